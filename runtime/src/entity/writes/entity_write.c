/* Entity room: whole-entity writes by primary key: put, create and
 * delete, alone (ddb_ent_put...) and in a transaction
 * (ddb_ent_tx_put...).  A write adds its operations to a transaction
 * (entity_tx.c) — every shard item, uniqueness items, id counters — which
 * a single call runs as one PutItem / DeleteItem when it holds one
 * operation.  Calls the public item API and this room's marshalling, keys,
 * ids, stamps, uniqueness items and expression builder. */
#include "entity/writes/entity_writes.h"

#include "core/error.h"

#include <string.h>

/* Does the entity have fields put must keep (created-at, create-only)? */
static bool keeps_fields(const ddb_entity_desc *e)
{
    for (uint16_t i = 0; i < e->st->n_fields; i++)
        if (e->st->fields[i].flags & (DDB_FIELD_CREATED_AT | DDB_FIELD_CREATE_ONLY))
            return true;
    return false;
}

/* Append " AND " when x already holds text. */
static int and(ddbi_exprb *x)
{
    return x->text.len ? ddbi_exprb_put(x, " AND ") : DDB_OK;
}

int ddbi_ent_add_put(ddb_ent_tx *tx, const ddb_entity_desc *e, void *obj, bool create, const ddb_ent_tx_cond *c,
                     const void *old, ddb_error *err)
{
    ddb_arena *a = ddbi_ent_tx_arena(tx);
    ddb *db = ddbi_ent_tx_db(tx);
    int rc = ddbi_ent_check_shards(e, err);
    if (!rc && create && !(rc = ddbi_ent_fill_uuids(e, obj, a, err)))
        rc = ddbi_ent_tx_auto_ids(tx, e, obj, err);
    if (!rc)
        rc = ddbi_ent_fill_stamps(db, e, obj, create, a, err);
    if (!rc)
        rc = ddbi_ent_fill_derived(e, obj, a, err);
    if (rc)
        return rc;
    const ddb_field_desc *vf = ddbi_ent_flagged(e, DDB_FIELD_VERSION);
    int64_t expected = vf ? ddbi_ent_int_get(vf, (char *)obj + vf->offset) : 0;
    int vpart = vf ? ddbi_ent_field_part(e, vf) : 0;
    int upart = c && c->condition && e->n_shards ? c->condition->shard : 0;
    if (upart < 0 || upart >= ddbi_ent_parts(e))
        return ddbi_fail(err, DDB_EINVAL, "%s: the condition names shard %d of %d", e->name, upart, ddbi_ent_parts(e));
    int nparts = ddbi_ent_parts(e);
    for (int s = 0; s < nparts && !rc; s++) {
        ddb_item *it = NULL;
        if ((rc = ddbi_ent_item_part(e, obj, e->n_shards ? s : -1, a, &it, err)))
            break;
        if (vf && s == vpart && ddb_item_set(it, vf->attr, ddb_v_i64(a, expected + 1)))
            return ddbi_fail_oom(err, __func__);
        ddbi_ent_opinfo in = {.e = e, .role = DDBI_OP_PART};
        const ddb_expr *cond = NULL;
        ddbi_exprb *x = NULL;
        bool builtin = s == vpart && (create || vf), user = c && c->condition && s == upart;
        if (builtin || user) {
            if ((rc = ddbi_ent_tx_exprb(tx, &x, err)))
                break;
            if (builtin && (create || expected == 0)) {
                const char *n = ddbi_exprb_name(x, e->keys[0].pk_attr);
                if (!n || ddbi_exprb_put(x, "attribute_not_exists(") || ddbi_exprb_put(x, n) || ddbi_exprb_put(x, ")"))
                    return ddbi_fail_oom(err, __func__);
            } else if (builtin) {
                const char *n = ddbi_exprb_name(x, vf->attr), *v = ddbi_exprb_value(x, ddb_v_i64(a, expected));
                if (!n || !v || ddbi_exprb_put(x, n) || ddbi_exprb_put(x, " = ") || ddbi_exprb_put(x, v))
                    return ddbi_fail_oom(err, __func__);
            }
            if (user && (and(x) || (rc = ddbi_exprb_merge(x, c->condition, err))))
                return rc ? rc : ddbi_fail_oom(err, __func__);
            if ((rc = ddbi_exprb_prepare(x, DDB_EXPR_CONDITION, &cond, err)))
                break;
            in = (ddbi_ent_opinfo){.e = e, .role = create ? DDBI_OP_CREATE : DDBI_OP_PUT, .vf = builtin ? vf : NULL,
                                   .expected = expected, .user_cond = user, .current = c ? c->current : NULL,
                                   .current_found = c ? c->current_found : NULL,
                                   .current_arena = c ? c->current_arena : NULL};
        }
        ddb_tx_op op = {.kind = DDB_TX_PUT, .table = e->table->def.name, .item = it, .condition = cond,
                        .values = x ? ddbi_exprb_values(x) : NULL};
        rc = ddbi_ent_tx_add(tx, &op, &in, err);
    }
    if (!rc && vf)
        rc = ddbi_ent_tx_on_commit(tx, vf, obj, expected + 1, err);
    if (!rc && ddbi_ent_has_unique(e, NULL))
        rc = ddbi_ent_unique_sync(tx, a, e, obj, create ? NULL : old, NULL, err);
    return rc;
}

typedef struct put_ctx {
    const ddb_entity_desc *e;
    void *obj;
    bool create;
    const ddb_ent_opts *o;
} put_ctx;

static int build_put(ddb_ent_tx *tx, ddb_arena *a, void *vctx, ddb_error *err)
{
    put_ctx *p = vctx;
    ddb_ent_tx_cond c = ddbi_ent_cond_of(p->o);
    void *old = NULL;
    int rc = DDB_OK;
    if (!p->create && ddbi_ent_has_unique(p->e, NULL))
        rc = ddbi_ent_read_old(ddbi_ent_tx_db(tx), p->e, p->obj, a, &old, err);
    if (!rc && !p->create && keeps_fields(p->e)) /* replace, keeping created-at and create-only fields */
        return ddbi_ent_add_update(tx, p->e, p->obj, NULL, DDBI_UPD_PUT, &c, old, err);
    return rc ? rc : ddbi_ent_add_put(tx, p->e, p->obj, p->create, &c, old, err);
}

static int ent_write(ddb *db, const ddb_entity_desc *e, void *obj, bool create, const ddb_ent_opts *o,
                     ddb_capacity *cap, ddb_error *err)
{
    if (cap)
        memset(cap, 0, sizeof *cap);
    if (!db || !e || !obj)
        return ddbi_fail(err, DDB_EINVAL, "%s: db, entity and object are required", create ? "create" : "put");
    put_ctx p = {e, obj, create, o};
    return ddbi_ent_single(db, o, cap, build_put, &p, err);
}

int ddb_ent_put(ddb *db, const ddb_entity_desc *e, void *obj, const ddb_ent_opts *o, ddb_capacity *cap,
                ddb_error *err)
{
    return ent_write(db, e, obj, false, o, cap, err);
}

int ddb_ent_create(ddb *db, const ddb_entity_desc *e, void *obj, const ddb_ent_opts *o, ddb_capacity *cap,
                   ddb_error *err)
{
    return ent_write(db, e, obj, true, o, cap, err);
}

/* Add the delete of every shard item of key's entity (the condition, on
 * its shard, and the release of its unique values: old is the stored
 * entity when it has unique fields). */
static int add_delete(ddb_ent_tx *tx, const ddb_entity_desc *e, const void *key, const ddb_ent_tx_cond *c,
                      const void *old, ddb_error *err)
{
    ddb_arena *a = ddbi_ent_tx_arena(tx);
    int rc = ddbi_ent_check_shards(e, err);
    int upart = c && c->condition && e->n_shards ? c->condition->shard : 0;
    if (!rc && (upart < 0 || upart >= ddbi_ent_parts(e)))
        return ddbi_fail(err, DDB_EINVAL, "%s: the condition names shard %d of %d", e->name, upart, ddbi_ent_parts(e));
    for (int s = 0; !rc && s < ddbi_ent_parts(e); s++) {
        ddb_item *k = NULL;
        if ((rc = ddbi_ent_primary_key(e, key, e->n_shards ? s : -1, a, &k, err)))
            break;
        ddb_tx_op op = {.kind = DDB_TX_DELETE, .table = e->table->def.name, .item = k};
        ddbi_ent_opinfo in = {.e = e, .role = DDBI_OP_PART};
        if (c && c->condition && s == upart) {
            ddbi_exprb *x = NULL;
            if ((rc = ddbi_ent_tx_exprb(tx, &x, err)) || (rc = ddbi_exprb_merge(x, c->condition, err)) ||
                (rc = ddbi_exprb_prepare(x, DDB_EXPR_CONDITION, &op.condition, err)))
                break;
            op.values = ddbi_exprb_values(x);
            in = (ddbi_ent_opinfo){.e = e, .role = DDBI_OP_DELETE, .user_cond = true, .current = c->current,
                                   .current_found = c->current_found, .current_arena = c->current_arena};
        }
        rc = ddbi_ent_tx_add(tx, &op, &in, err);
    }
    if (!rc && old)
        rc = ddbi_ent_unique_sync(tx, a, e, NULL, old, NULL, err);
    return rc;
}

typedef struct del_ctx {
    const ddb_entity_desc *e;
    const void *key;
    const ddb_ent_opts *o;
} del_ctx;

static int build_delete(ddb_ent_tx *tx, ddb_arena *a, void *vctx, ddb_error *err)
{
    del_ctx *d = vctx;
    ddb_ent_tx_cond c = ddbi_ent_cond_of(d->o);
    void *old = NULL;
    int rc = DDB_OK;
    if (ddbi_ent_has_unique(d->e, NULL))
        rc = ddbi_ent_read_old(ddbi_ent_tx_db(tx), d->e, d->key, a, &old, err);
    return rc ? rc : add_delete(tx, d->e, d->key, &c, old, err);
}

int ddb_ent_delete(ddb *db, const ddb_entity_desc *e, const void *key, const ddb_ent_opts *o, ddb_capacity *cap,
                   ddb_error *err)
{
    if (cap)
        memset(cap, 0, sizeof *cap);
    if (!db || !e || !key)
        return ddbi_fail(err, DDB_EINVAL, "delete: db, entity and key are required");
    del_ctx d = {e, key, o};
    return ddbi_ent_single(db, o, cap, build_delete, &d, err);
}

/* ---- in a caller's transaction ---- */

static int tx_put(ddb_ent_tx *tx, const ddb_entity_desc *e, void *obj, bool create, const ddb_ent_tx_cond *c,
                  ddb_error *err)
{
    if (!tx || !e || !obj)
        return ddbi_fail(err, DDB_EINVAL, "transaction: tx, entity and object are required");
    void *old = NULL;
    int rc = DDB_OK;
    if (!create && ddbi_ent_has_unique(e, NULL))
        rc = ddbi_ent_read_old(ddbi_ent_tx_db(tx), e, obj, ddbi_ent_tx_arena(tx), &old, err);
    if (!rc && !create && keeps_fields(e))
        rc = ddbi_ent_add_update(tx, e, obj, NULL, DDBI_UPD_PUT, c, old, err);
    else if (!rc)
        rc = ddbi_ent_add_put(tx, e, obj, create, c, old, err);
    if (rc)
        ddbi_ent_tx_poison(tx);
    return rc;
}

int ddb_ent_tx_put(ddb_ent_tx *tx, const ddb_entity_desc *e, void *obj, const ddb_ent_tx_cond *c, ddb_error *err)
{
    return tx_put(tx, e, obj, false, c, err);
}

int ddb_ent_tx_create(ddb_ent_tx *tx, const ddb_entity_desc *e, void *obj, const ddb_ent_tx_cond *c, ddb_error *err)
{
    return tx_put(tx, e, obj, true, c, err);
}

int ddb_ent_tx_delete(ddb_ent_tx *tx, const ddb_entity_desc *e, const void *key, const ddb_ent_tx_cond *c,
                      ddb_error *err)
{
    if (!tx || !e || !key)
        return ddbi_fail(err, DDB_EINVAL, "transaction: tx, entity and key are required");
    void *old = NULL;
    int rc = DDB_OK;
    if (ddbi_ent_has_unique(e, NULL))
        rc = ddbi_ent_read_old(ddbi_ent_tx_db(tx), e, key, ddbi_ent_tx_arena(tx), &old, err);
    if (!rc)
        rc = add_delete(tx, e, key, c, old, err);
    if (rc)
        ddbi_ent_tx_poison(tx);
    return rc;
}

/* ConditionCheck on key's item (shard of c's condition, else the first):
 * exists (1), not exists (0) or none (-1), ANDed with c's condition. */
static int tx_check(ddb_ent_tx *tx, const ddb_entity_desc *e, const void *key, int exists, const ddb_ent_tx_cond *c,
                    ddb_error *err)
{
    if (!tx || !e || !key)
        return ddbi_fail(err, DDB_EINVAL, "transaction: tx, entity and key are required");
    int rc = ddbi_ent_add_check(tx, e, key, exists, c, DDBI_OP_CHECK, err);
    if (rc)
        ddbi_ent_tx_poison(tx);
    return rc;
}

int ddb_ent_tx_require(ddb_ent_tx *tx, const ddb_entity_desc *e, const void *key, bool exists, ddb_error *err)
{
    return tx_check(tx, e, key, exists ? 1 : 0, NULL, err);
}

int ddb_ent_tx_check(ddb_ent_tx *tx, const ddb_entity_desc *e, const void *key, const ddb_ent_tx_cond *c,
                     ddb_error *err)
{
    return tx_check(tx, e, key, -1, c, err);
}
