/* Entity room: transactions across entities (ddb_ent_tx_*): operations of
 * any entities of one database gathered in an arena, then committed as
 * one TransactWriteItems; a sharded entity adds one operation per shard
 * item.  Calls the public transaction API and this room's writes, keys and
 * expression builder. */
#include "entity/entity_internal.h"

#include "core/error.h"

#include <stdio.h>
#include <string.h>

/* The most operations (items) of one transaction: DynamoDB's limit. */
#define TX_OPS 100

struct ddb_ent_tx {
    ddb *db;
    ddb_arena *a;
    size_t n;
    ddb_tx_op ops[TX_OPS];
    const ddb_entity_desc *ent[TX_OPS]; /* whose op it is, for messages */
    size_t nx;
    ddbi_exprb xs[TX_OPS];
    size_t nplans;
    ddbi_ent_plan *plans[TX_OPS];       /* version bumps on success */
    int failed;                         /* an earlier add failed */
};

ddb *ddb_ent_tx_db(const ddb_ent_tx *tx) { return tx ? tx->db : NULL; }

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

/* *out: a new expression builder of tx, for one operation's condition. */
static int tx_exprb(ddb_ent_tx *tx, ddbi_exprb **out, ddb_error *err)
{
    if (tx->nx == TX_OPS)
        return ddbi_fail(err, DDB_ELIMIT, "a transaction holds at most %d operations", TX_OPS);
    int rc = ddbi_exprb_init(&tx->xs[tx->nx], tx->db, tx->a, err);
    if (!rc)
        *out = &tx->xs[tx->nx++];
    return rc;
}

/* Append op (an operation of entity e) to tx. */
static int tx_add(ddb_ent_tx *tx, const ddb_entity_desc *e, ddb_tx_op op, ddb_error *err)
{
    if (tx->n == TX_OPS)
        return ddbi_fail(err, DDB_ELIMIT, "a transaction holds at most %d operations (items)", TX_OPS);
    tx->ent[tx->n] = e;
    tx->ops[tx->n++] = op;
    return DDB_OK;
}

static int tx_write(ddb_ent_tx *tx, const ddb_entity_desc *e, void *obj, bool create, ddb_error *err)
{
    if (!tx || !e || !obj)
        return ddbi_fail(err, DDB_EINVAL, "transaction: tx, entity and object are required");
    ddbi_exprb *x = NULL;
    ddbi_ent_plan *p = NULL;
    int rc = tx_exprb(tx, &x, err);
    if (!rc && !(p = ddb_arena_alloc(tx->a, sizeof *p)))
        rc = ddbi_fail_oom(err, __func__);
    if (!rc)
        rc = ddbi_ent_plan_write(tx->db, e, obj, create, tx->a, x, p, NULL, DDB_CAPACITY_NONE, err);
    for (int s = 0; !rc && s < p->nparts; s++)
        rc = tx_add(tx, e,
                    (ddb_tx_op){.kind = DDB_TX_PUT, .table = e->table->def.name, .item = p->items[s],
                                .condition = s == p->cond_part ? p->cond : NULL,
                                .values = s == p->cond_part && p->cond ? ddbi_exprb_values(x) : NULL},
                    err);
    if (!rc && p->vf)
        tx->plans[tx->nplans++] = p;
    tx->failed |= rc != DDB_OK;
    return rc;
}

int ddb_ent_tx_put(ddb_ent_tx *tx, const ddb_entity_desc *e, void *obj, ddb_error *err)
{
    return tx_write(tx, e, obj, false, err);
}

int ddb_ent_tx_create(ddb_ent_tx *tx, const ddb_entity_desc *e, void *obj, ddb_error *err)
{
    return tx_write(tx, e, obj, true, err);
}

int ddb_ent_tx_delete(ddb_ent_tx *tx, const ddb_entity_desc *e, const void *key, ddb_error *err)
{
    if (!tx || !e || !key)
        return ddbi_fail(err, DDB_EINVAL, "transaction: tx, entity and key are required");
    int rc = ddbi_ent_check_shards(e, err);
    for (int s = 0; !rc && s < ddbi_ent_parts(e); s++) {
        ddb_item *k = NULL;
        if (!(rc = ddbi_ent_primary_key(e, key, e->n_shards ? s : -1, tx->a, &k, err)))
            rc = tx_add(tx, e, (ddb_tx_op){.kind = DDB_TX_DELETE, .table = e->table->def.name, .item = k}, err);
    }
    tx->failed |= rc != DDB_OK;
    return rc;
}

int ddb_ent_tx_require(ddb_ent_tx *tx, const ddb_entity_desc *e, const void *key, bool exists, ddb_error *err)
{
    if (!tx || !e || !key)
        return ddbi_fail(err, DDB_EINVAL, "transaction: tx, entity and key are required");
    ddbi_exprb *x = NULL;
    ddb_item *k = NULL;
    const ddb_expr *cond = NULL;
    int rc = ddbi_ent_check_shards(e, err);
    if (!rc)
        rc = tx_exprb(tx, &x, err);
    if (!rc)
        rc = ddbi_ent_primary_key(e, key, e->n_shards ? 0 : -1, tx->a, &k, err);
    if (!rc) {
        const char *n = ddbi_exprb_name(x, e->keys[0].pk_attr);
        if (!n || ddbi_exprb_put(x, exists ? "attribute_exists(" : "attribute_not_exists(") ||
            ddbi_exprb_put(x, n) || ddbi_exprb_put(x, ")"))
            rc = ddbi_fail_oom(err, __func__);
    }
    if (!rc)
        rc = ddbi_exprb_prepare(x, DDB_EXPR_CONDITION, &cond, err);
    if (!rc)
        rc = tx_add(tx, e, (ddb_tx_op){.kind = DDB_TX_CHECK, .table = e->table->def.name, .item = k, .condition = cond},
                    err);
    tx->failed |= rc != DDB_OK;
    return rc;
}

int ddb_ent_tx_commit(ddb_ent_tx *tx, const ddb_ent_opts *o, ddb_capacity *cap, ddb_error *err)
{
    if (cap)
        memset(cap, 0, sizeof *cap);
    if (!tx)
        return ddbi_fail(err, DDB_EINVAL, "transaction: no builder");
    int rc;
    if (tx->failed)
        rc = ddbi_fail(err, DDB_EINVAL, "transaction: an operation could not be added; nothing was written");
    else if (!tx->n)
        rc = ddbi_fail(err, DDB_EVALIDATION, "transaction: no operations");
    else {
        ddb_tx_result res;
        rc = ddb_transact_write(tx->db, tx->ops, tx->n, ddbi_ent_cap_mode(o), tx->a, &res, err);
        if (rc == DDB_ECANCELED && res.reasons) {
            /* name the entities whose conditions failed */
            char text[DDB_ERROR_TEXT_SIZE];
            size_t w = (size_t)snprintf(text, sizeof text, "transaction cancelled:");
            for (size_t i = 0; i < tx->n && w < sizeof text; i++)
                if (res.reasons[i])
                    w += (size_t)snprintf(text + w, sizeof text - w, " operation %zu (%s) %s;", i + 1,
                                          tx->ent[i]->name,
                                          res.reasons[i] == DDB_ECONDITION ? "condition failed"
                                                                           : ddb_strerror(res.reasons[i]));
            ddbi_fail(err, rc, "%s", text);
        }
        if (!rc) {
            ddbi_ent_cap_merge(cap, &res.capacity);
            for (size_t i = 0; i < tx->nplans; i++)
                ddbi_ent_int_set(tx->plans[i]->vf, (char *)tx->plans[i]->obj + tx->plans[i]->vf->offset,
                        tx->plans[i]->expected + 1);
        }
    }
    for (size_t i = 0; i < tx->nx; i++)
        ddbi_exprb_done(&tx->xs[i]);
    tx->nx = tx->n = tx->nplans = 0;
    return rc;
}
