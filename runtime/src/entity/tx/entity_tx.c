/* Entity room: the operations of one request, gathered then run.  Every
 * entity write goes through here: a caller's transaction (ddb_ent_tx_*),
 * and each single call (put, create, update, delete...), whose operations
 * (shard items, uniqueness items, id counters) go out as one PutItem /
 * UpdateItem / DeleteItem when there is one, else as one TransactWriteItems.
 * Auto ids are allocated inside the transaction: a counter is read when
 * the create is added and its conditional update joins the transaction,
 * so a cancelled transaction consumes no id.  A failed condition names the
 * entity and what failed; the stored item comes back decoded into the
 * caller's struct when asked (ReturnValuesOnConditionCheckFailure).
 * Calls the public item and transaction API and this room's marshalling,
 * keys and expression builder. */
#include "entity/tx/entity_tx.h"

#include "core/error.h"

#include <stdio.h>
#include <string.h>

/* The most operations (items) of one transaction: DynamoDB's limit. */
#define TX_OPS 100
/* Distinct id counters one transaction may draw from. */
#define TX_COUNTERS 16
/* The attribute of a counter item holding the last id. */
#define COUNTER_ATTR "Counter"

typedef struct pending_counter {
    const ddb_entity_desc *e;
    ddb_item *key;
    int64_t base, next; /* stored value when read; last id handed out */
} pending_counter;

typedef struct commit_set {
    const ddb_field_desc *f;
    void *obj;
    int64_t v;
} commit_set;

/* The arrays of a transaction grow in its arena, from a few entries (a
 * single call writes one or two items) up to TX_OPS. */
struct ddb_ent_tx {
    ddb *db;
    ddb_arena *a;
    size_t n, cap;
    ddb_tx_op *ops;
    ddbi_ent_opinfo *info;
    size_t nx;
    ddbi_exprb *xs[TX_OPS];    /* each allocated alone: callers keep pointers */
    size_t nsets, setcap;
    commit_set *sets;          /* on success */
    size_t nids, idcap;
    commit_set *ids;           /* auto ids: zeroed again on failure */
    size_t nctr;
    pending_counter ctr[TX_COUNTERS];
    ddb_capacity read_cap;     /* counters read (or drawn) while adding */
    bool ids_now;              /* draw ids at once (a single call) */
    ddb_return_capacity ids_mode;
    bool failed;
};

/* Grow *arr (elem bytes each, *cap entries, n used) to hold one more. */
static int grow(ddb_arena *a, void **arr, size_t *cap, size_t n, size_t elem, ddb_error *err)
{
    if (n < *cap)
        return DDB_OK;
    if (n >= TX_OPS)
        return ddbi_fail(err, DDB_ELIMIT, "a transaction holds at most %d operations (items)", TX_OPS);
    size_t nc = *cap ? 4 * *cap : 4;
    if (nc > TX_OPS)
        nc = TX_OPS;
    void *p = ddb_arena_alloc(a, nc * elem);
    if (!p)
        return ddbi_fail_oom(err, "transaction");
    if (n)
        memcpy(p, *arr, n * elem);
    *arr = p;
    *cap = nc;
    return DDB_OK;
}

ddb_ent_tx *ddb_ent_tx_new(ddb *db, ddb_arena *a, ddb_error *err)
{
    if (!db || !a) {
        ddbi_fail(err, DDB_EINVAL, "transaction: %s is required", db ? "an arena" : "a database handle");
        return NULL;
    }
    ddb_ent_tx *tx = ddb_arena_alloc(a, sizeof *tx);
    if (!tx) {
        ddbi_fail_oom(err, "ddb_ent_tx_new");
        return NULL;
    }
    memset(tx, 0, sizeof *tx);
    tx->db = db;
    tx->a = a;
    return tx;
}

ddb *ddbi_ent_tx_db(const ddb_ent_tx *tx)
{
    return tx->db;
}

ddb_arena *ddbi_ent_tx_arena(const ddb_ent_tx *tx)
{
    return tx->a;
}

void ddbi_ent_tx_ids_now(ddb_ent_tx *tx, ddb_return_capacity mode)
{
    tx->ids_now = true;
    tx->ids_mode = mode;
}

void ddbi_ent_tx_poison(ddb_ent_tx *tx)
{
    if (tx)
        tx->failed = true;
}

int ddbi_ent_tx_exprb(ddb_ent_tx *tx, ddbi_exprb **out, ddb_error *err)
{
    if (tx->nx == TX_OPS)
        return ddbi_fail(err, DDB_ELIMIT, "a transaction holds at most %d operations", TX_OPS);
    ddbi_exprb *x = ddb_arena_alloc(tx->a, sizeof *x);
    if (!x)
        return ddbi_fail_oom(err, __func__);
    int rc = ddbi_exprb_init(x, tx->db, tx->a, err);
    if (!rc)
        *out = tx->xs[tx->nx++] = x;
    return rc;
}

int ddbi_ent_tx_add(ddb_ent_tx *tx, const ddb_tx_op *op, const ddbi_ent_opinfo *info, ddb_error *err)
{
    size_t cap = tx->cap;
    int rc = grow(tx->a, (void **)&tx->ops, &cap, tx->n, sizeof *tx->ops, err);
    if (!rc && cap != tx->cap)
        rc = grow(tx->a, (void **)&tx->info, &tx->cap, tx->n, sizeof *tx->info, err);
    if (rc)
        return rc;
    tx->ops[tx->n] = *op;
    tx->info[tx->n++] = *info;
    return DDB_OK;
}

int ddbi_ent_tx_on_commit(ddb_ent_tx *tx, const ddb_field_desc *f, void *obj, int64_t v, ddb_error *err)
{
    int rc = grow(tx->a, (void **)&tx->sets, &tx->setcap, tx->nsets, sizeof *tx->sets, err);
    if (!rc)
        tx->sets[tx->nsets++] = (commit_set){f, obj, v};
    return rc;
}

/* ---- auto ids ---- */

/* The counter of e's scope for obj, read once per transaction. */
static int counter_for(ddb_ent_tx *tx, const ddb_entity_desc *e, const void *obj, pending_counter **out,
                       ddb_error *err)
{
    if (!e->auto_id_scope)
        return ddbi_fail(err, DDB_EINVAL, "%s: auto id without a scope template", e->name);
    ddb_value *scope;
    int rc = ddb_ent_render(e, e->auto_id_scope, obj, tx->a, &scope, err);
    if (rc)
        return rc;
    if (!scope)
        return ddbi_fail(err, DDB_EVALIDATION, "%s: a field of the auto id scope is unset", e->name);
    const ddb_table_def *t = &e->table->def;
    for (size_t i = 0; i < tx->nctr; i++)
        if (strcmp(tx->ctr[i].e->table->def.name, t->name) == 0 &&
            ddb_value_equal(ddb_item_get(tx->ctr[i].key, t->key.pk), scope)) {
            *out = &tx->ctr[i];
            return DDB_OK;
        }
    if (tx->nctr == TX_COUNTERS)
        return ddbi_fail(err, DDB_ELIMIT, "a transaction draws ids from at most %d counters", TX_COUNTERS);
    ddb_item *key = ddb_item_new(tx->a);
    if (!key || ddb_item_set(key, t->key.pk, scope) || (t->key.sk && ddb_item_set_s(key, t->key.sk, "#COUNTER")))
        return ddbi_fail_oom(err, __func__);
    ddb_item *it = NULL;
    ddb_capacity c;
    ddb_get_opts go = {.consistent = true, .return_capacity = DDB_CAPACITY_TOTAL};
    rc = ddb_get_item(tx->db, t->name, key, &go, tx->a, &it, &c, err);
    if (rc && rc != DDB_ENOTFOUND)
        return ddbi_ent_fail_within(err, rc, "%s: reading the id counter", e->name);
    ddbi_ent_cap_merge(&tx->read_cap, &c);
    int64_t base = 0;
    const ddb_value *v = it ? ddb_item_get(it, COUNTER_ATTR) : NULL;
    if (v && ddb_value_to_i64(v, &base))
        return ddbi_fail(err, DDB_ECORRUPT, "%s: the id counter does not hold an integer", e->name);
    tx->ctr[tx->nctr] = (pending_counter){e, key, base, base};
    *out = &tx->ctr[tx->nctr++];
    return DDB_OK;
}

int ddbi_ent_tx_auto_ids(ddb_ent_tx *tx, const ddb_entity_desc *e, void *obj, ddb_error *err)
{
    for (uint16_t i = 0; i < e->st->n_fields; i++) {
        const ddb_field_desc *f = &e->st->fields[i];
        char *fp = (char *)obj + f->offset;
        if (!(f->flags & DDB_FIELD_AUTO_ID) || ddbi_ent_int_get(f, fp) != 0)
            continue;
        if (tx->ids_now) {
            int64_t id;
            int rc = ddbi_ent_next_id(tx->db, e, obj, tx->a, &id, &tx->read_cap, tx->ids_mode, err);
            if (rc)
                return rc;
            ddbi_ent_int_set(f, fp, id);
            continue;
        }
        pending_counter *c = NULL;
        int rc = counter_for(tx, e, obj, &c, err);
        if (rc)
            return rc;
        if ((rc = grow(tx->a, (void **)&tx->ids, &tx->idcap, tx->nids, sizeof *tx->ids, err)))
            return rc;
        ddbi_ent_int_set(f, fp, ++c->next);
        tx->ids[tx->nids++] = (commit_set){f, obj, c->next};
    }
    return DDB_OK;
}

/* The update of each counter drawn from: "SET type = ddb:counter, Counter =
 * :next" if it still holds what was read. */
static int add_counters(ddb_ent_tx *tx, ddb_error *err)
{
    int rc = DDB_OK;
    for (size_t i = 0; i < tx->nctr && !rc; i++) {
        pending_counter *c = &tx->ctr[i];
        ddbi_exprb *x = NULL;
        if ((rc = ddbi_ent_tx_exprb(tx, &x, err)))
            break;
        const char *nt = ddbi_exprb_name(x, c->e->table->type_attr), *vt = ddbi_exprb_value(x, ddb_v_str(tx->a, "ddb:counter"));
        const char *nc = ddbi_exprb_name(x, COUNTER_ATTR), *vn = ddbi_exprb_value(x, ddb_v_i64(tx->a, c->next));
        const char *vb = ddbi_exprb_value(x, ddb_v_i64(tx->a, c->base));
        const ddb_expr *upd = NULL, *cond = NULL;
        if (!nt || !vt || !nc || !vn || !vb || ddbi_exprb_put(x, "SET ") || ddbi_exprb_put(x, nt) ||
            ddbi_exprb_put(x, " = ") || ddbi_exprb_put(x, vt) || ddbi_exprb_put(x, ", ") || ddbi_exprb_put(x, nc) ||
            ddbi_exprb_put(x, " = ") || ddbi_exprb_put(x, vn))
            return ddbi_fail_oom(err, __func__);
        if ((rc = ddbi_exprb_prepare(x, DDB_EXPR_UPDATE, &upd, err)))
            break;
        x->text.len = 0;
        if (c->base == 0 ? (ddbi_exprb_put(x, "attribute_not_exists(") || ddbi_exprb_put(x, nc) || ddbi_exprb_put(x, ")"))
                         : (ddbi_exprb_put(x, nc) || ddbi_exprb_put(x, " = ") || ddbi_exprb_put(x, vb)))
            return ddbi_fail_oom(err, __func__);
        if ((rc = ddbi_exprb_prepare(x, DDB_EXPR_CONDITION, &cond, err)))
            break;
        if (c->base == 0) /* :vb unused: DynamoDB refuses unused values */
            ddb_item_remove((ddb_item *)x->values, vb);
        ddb_tx_op op = {.kind = DDB_TX_UPDATE, .table = c->e->table->def.name, .item = c->key, .update = upd,
                        .condition = cond, .values = ddbi_exprb_values(x)};
        rc = ddbi_ent_tx_add(tx, &op, &(ddbi_ent_opinfo){.e = c->e, .role = DDBI_OP_COUNTER}, err);
    }
    return rc;
}

/* ---- running ---- */

/* Decode the stored item of failed operation i where the caller asked. */
static void give_current(ddb_ent_tx *tx, size_t i, const ddb_item *item)
{
    const ddbi_ent_opinfo *in = &tx->info[i];
    if (!in->current || !in->current_arena)
        return;
    memset(in->current, 0, in->e->st->size);
    bool found = item && ddbi_ent_from_item_partial(in->e, item, in->current, in->current_arena,
                                                    in->e->n_shards != 0, NULL, NULL) == DDB_OK;
    if (in->current_found)
        *in->current_found = found;
}

/* The message of failed operation in, seen from a single call: the code
 * returned (DDB_ECONDITION, or DDB_ENOTFOUND for an update of nothing). */
static int single_failure(const ddbi_ent_opinfo *in, bool known, const ddb_item *cur, ddb_error *err)
{
    const char *name = in->e->name;
    int64_t stored = 0;
    const ddb_value *sv = cur && in->vf ? ddb_item_get(cur, in->vf->attr) : NULL;
    bool version_differs = in->vf && (!known || !cur || !sv || ddb_value_to_i64(sv, &stored) || stored != in->expected);
    switch (in->role) {
    case DDBI_OP_CREATE:
        if (known && !cur)
            return ddbi_fail(err, DDB_ECONDITION, "%s: the condition failed", name);
        return ddbi_fail(err, DDB_ECONDITION, in->user_cond && !known ? "%s already exists or the condition failed"
                                                                        : "%s already exists",
                         name);
    case DDBI_OP_UNIQUE:
        return ddbi_fail(err, DDB_ECONDITION, "%s: %s \"%s\" is already taken (unique field)", name, in->uf->name,
                         in->uval);
    case DDBI_OP_UPDATE:
        if ((known && !cur) || (!known && !in->vf && !in->user_cond))
            return ddbi_fail(err, DDB_ENOTFOUND, "%s not found", name);
        /* fall through */
    default:
        if (in->vf && version_differs && !(known && in->user_cond && sv && stored == in->expected))
            return ddbi_fail(err, DDB_ECONDITION, "%s: stored version is not %lld (changed by another writer)", name,
                             (long long)in->expected);
        return ddbi_fail(err, DDB_ECONDITION, "%s: the condition failed", name);
    }
}

/* The stored item operation i failed on, read back (consistent) to say
 * why when the failure did not carry it; NULL when absent or unreadable. */
static const ddb_item *read_back(ddb_ent_tx *tx, size_t i)
{
    const ddb_tx_op *op = &tx->ops[i];
    const ddb_key_schema *ks = &tx->info[i].e->table->def.key;
    ddb_item *k = ddb_item_new(tx->a), *it = NULL;
    const ddb_value *pk = ddb_item_get(op->item, ks->pk), *sk = ks->sk ? ddb_item_get(op->item, ks->sk) : NULL;
    if (!k || !pk || ddb_item_set(k, ks->pk, ddb_value_copy(tx->a, pk)) ||
        (sk && ddb_item_set(k, ks->sk, ddb_value_copy(tx->a, sk))))
        return NULL;
    ddb_get_opts go = {.consistent = true};
    return ddb_get_item(tx->db, op->table, k, &go, tx->a, &it, NULL, NULL) ? NULL : it;
}

/* single_failure for operation i, reading the item back when it is not known. */
static int failure_of(ddb_ent_tx *tx, size_t i, bool known, const ddb_item *cur, ddb_error *err)
{
    const ddbi_ent_opinfo *in = &tx->info[i];
    if (!known && (in->vf || in->user_cond || in->role == DDBI_OP_CREATE)) {
        cur = read_back(tx, i);
        known = true;
    }
    return single_failure(in, known, cur, err);
}

static void reset(ddb_ent_tx *tx)
{
    for (size_t i = 0; i < tx->nx; i++)
        ddbi_exprb_done(tx->xs[i]);
    tx->nx = tx->n = tx->nsets = tx->nids = tx->nctr = 0;
    memset(&tx->read_cap, 0, sizeof tx->read_cap);
    tx->failed = tx->ids_now = false;
}

static int run_one(ddb_ent_tx *tx, ddb_return_capacity mode, ddb_capacity *cap, ddb_error *err)
{
    const ddb_tx_op *op = &tx->ops[0];
    ddbi_ent_opinfo *in = &tx->info[0];
    ddb_write_result res;
    ddb_write_opts wo = {.return_capacity = mode, .condition = op->condition, .values = op->values,
                         .return_values = in->out && op->kind == DDB_TX_UPDATE ? DDB_RETURN_ALL_NEW : DDB_RETURN_NONE,
                         .return_on_condition_failure = in->current ? DDB_RETURN_ALL_OLD : DDB_RETURN_NONE};
    int rc;
    switch (op->kind) {
    case DDB_TX_PUT: rc = ddb_put_item(tx->db, op->table, op->item, &wo, tx->a, &res, err); break;
    case DDB_TX_UPDATE: rc = ddb_update_item(tx->db, op->table, op->item, op->update, &wo, tx->a, &res, err); break;
    case DDB_TX_DELETE: rc = ddb_delete_item(tx->db, op->table, op->item, &wo, tx->a, &res, err); break;
    default: {
        ddb_tx_result tr;
        rc = ddb_transact_write(tx->db, op, 1, mode, tx->a, &tr, err);
        if (rc == DDB_ECANCELED && tr.reasons && tr.reasons[0] == DDB_ECONDITION)
            rc = DDB_ECONDITION;
        res.attributes = NULL;
        res.capacity = tr.capacity;
    }
    }
    if (rc == DDB_ECONDITION) {
        give_current(tx, 0, res.attributes);
        return failure_of(tx, 0, in->current != NULL, res.attributes, err);
    }
    if (!rc)
        ddbi_ent_cap_merge(cap, &res.capacity);
    if (!rc && in->out && op->kind == DDB_TX_UPDATE)
        rc = ddbi_ent_from_item_partial(in->e, res.attributes, in->out, in->out_arena, in->e->n_shards != 0, NULL, err);
    return rc;
}

static int run_many(ddb_ent_tx *tx, bool single, const char *token, ddb_return_capacity mode, ddb_capacity *cap,
                    ddb_error *err)
{
    for (size_t i = 0; i < tx->n; i++)
        if (tx->info[i].current)
            tx->ops[i].return_on_condition_failure = DDB_RETURN_ALL_OLD;
    ddb_tx_result res;
    ddb_tx_opts to = {.return_capacity = mode, .client_request_token = token};
    int rc = ddb_transact_write_opts(tx->db, tx->ops, tx->n, &to, tx->a, &res, err);
    if (!rc)
        ddbi_ent_cap_merge(cap, &res.capacity);
    if (rc != DDB_ECANCELED || !res.reasons)
        return rc;
    for (size_t i = 0; i < tx->n; i++)
        if (res.reasons[i] == DDB_ECONDITION)
            give_current(tx, i, res.items ? res.items[i] : NULL);
    if (single) {
        /* the first failed condition says why: an id counter raced (retry),
         * or the entity's own condition */
        for (size_t i = 0; i < tx->n; i++)
            if (res.reasons[i] == DDB_ECONDITION && tx->info[i].role == DDBI_OP_COUNTER)
                return DDBI_ECOUNTER;
        for (size_t i = 0; i < tx->n; i++)
            if (res.reasons[i] == DDB_ECONDITION)
                return failure_of(tx, i, tx->info[i].current != NULL, res.items ? res.items[i] : NULL, err);
        return rc;
    }
    /* name the operations that failed */
    char text[DDB_ERROR_TEXT_SIZE];
    size_t w = (size_t)snprintf(text, sizeof text, "transaction cancelled:");
    for (size_t i = 0; i < tx->n && w < sizeof text; i++) {
        const ddbi_ent_opinfo *in = &tx->info[i];
        if (!res.reasons[i])
            continue;
        if (res.reasons[i] == DDB_ECONDITION && in->role == DDBI_OP_UNIQUE)
            w += (size_t)snprintf(text + w, sizeof text - w, " operation %zu (%s) %s \"%s\" is already taken;", i + 1,
                                  in->e->name, in->uf->name, in->uval);
        else if (res.reasons[i] == DDB_ECONDITION && in->role == DDBI_OP_COUNTER)
            w += (size_t)snprintf(text + w, sizeof text - w,
                                  " operation %zu (%s) id counter changed by another writer (retry);", i + 1,
                                  in->e->name);
        else
            w += (size_t)snprintf(text + w, sizeof text - w, " operation %zu (%s) %s;", i + 1, in->e->name,
                                  res.reasons[i] == DDB_ECONDITION ? "condition failed"
                                                                   : ddb_strerror(res.reasons[i]));
    }
    return ddbi_fail(err, rc, "%s", text);
}

int ddbi_ent_tx_run(ddb_ent_tx *tx, bool single, const char *token, ddb_return_capacity mode, ddb_capacity *cap,
                    ddb_error *err)
{
    int rc;
    if (tx->failed)
        rc = ddbi_fail(err, DDB_EINVAL, "transaction: an operation could not be added; nothing was written");
    else if (!tx->n)
        rc = ddbi_fail(err, DDB_EVALIDATION, "transaction: no operations");
    else if (!(rc = add_counters(tx, err))) {
        if (single && tx->n == 1 && !token)
            rc = run_one(tx, mode, cap, err);
        else
            rc = run_many(tx, single, token, mode, cap, err);
    }
    if (!rc) {
        ddbi_ent_cap_merge(cap, &tx->read_cap);
        for (size_t i = 0; i < tx->nsets; i++)
            ddbi_ent_int_set(tx->sets[i].f, (char *)tx->sets[i].obj + tx->sets[i].f->offset, tx->sets[i].v);
    } else {
        for (size_t i = 0; i < tx->nids; i++) /* no id was consumed */
            ddbi_ent_int_set(tx->ids[i].f, (char *)tx->ids[i].obj + tx->ids[i].f->offset, 0);
    }
    reset(tx);
    return rc;
}

int ddb_ent_tx_commit(ddb_ent_tx *tx, const ddb_ent_opts *o, ddb_capacity *cap, ddb_error *err)
{
    if (cap)
        memset(cap, 0, sizeof *cap);
    if (!tx)
        return ddbi_fail(err, DDB_EINVAL, "transaction: no builder");
    return ddbi_ent_tx_run(tx, false, o ? o->client_request_token : NULL, ddbi_ent_cap_mode(o), cap, err);
}
