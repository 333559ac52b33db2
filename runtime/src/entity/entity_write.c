/* Entity room: whole-entity operations by primary key: put, create, get
 * and delete.  A sharded entity is written and deleted as one transaction
 * over its shard items and read back with one Query over them.  Calls the
 * public item and transaction API and this room's marshalling, keys, ids
 * and expression builder. */
#include "entity/entity_internal.h"

#include "core/error.h"

#include <string.h>

int ddbi_ent_plan_write(ddb *db, const ddb_entity_desc *e, void *obj, bool create, ddb_arena *a, ddbi_exprb *x,
                        ddbi_ent_plan *p, ddb_capacity *cap, ddb_return_capacity mode, ddb_error *err)
{
    int rc;
    memset(p, 0, sizeof *p);
    p->obj = obj;
    if ((rc = ddbi_ent_check_shards(e, err)))
        return rc;
    if (create && (rc = ddbi_ent_fill_ids(db, e, obj, a, cap, mode, err)))
        return rc;
    if ((rc = ddbi_ent_fill_derived(e, obj, a, err)))
        return rc;
    p->vf = ddbi_ent_flagged(e, DDB_FIELD_VERSION);
    p->expected = p->vf ? ddbi_ent_int_get(p->vf, (char *)obj + p->vf->offset) : 0;
    p->cond_part = p->vf ? ddbi_ent_field_part(e, p->vf) : 0;
    if (create || (p->vf && p->expected == 0)) {
        const char *n = ddbi_exprb_name(x, e->keys[0].pk_attr);
        if (!n || ddbi_exprb_put(x, "attribute_not_exists(") || ddbi_exprb_put(x, n) || ddbi_exprb_put(x, ")"))
            return ddbi_fail_oom(err, __func__);
    } else if (p->vf) {
        const char *n = ddbi_exprb_name(x, p->vf->attr), *v = ddbi_exprb_value(x, ddb_v_i64(a, p->expected));
        if (!n || !v || ddbi_exprb_put(x, n) || ddbi_exprb_put(x, " = ") || ddbi_exprb_put(x, v))
            return ddbi_fail_oom(err, __func__);
    }
    if ((rc = ddbi_exprb_prepare(x, DDB_EXPR_CONDITION, &p->cond, err)))
        return rc;
    p->nparts = ddbi_ent_parts(e);
    for (int s = 0; s < p->nparts && !rc; s++) {
        rc = ddbi_ent_item_part(e, obj, e->n_shards ? s : -1, a, &p->items[s], err);
        if (!rc && p->vf && s == p->cond_part && ddb_item_set(p->items[s], p->vf->attr, ddb_v_i64(a, p->expected + 1)))
            rc = ddbi_fail_oom(err, __func__);
    }
    return rc;
}

/* The message of a failed entity write condition. */
static int condition_failed(const ddb_entity_desc *e, const ddbi_ent_plan *p, bool create, ddb_error *err)
{
    if (create)
        return ddbi_fail(err, DDB_ECONDITION, "%s already exists", e->name);
    if (p->vf)
        return ddbi_fail(err, DDB_ECONDITION, "%s: stored version is not %lld (changed by another writer)", e->name,
                         (long long)p->expected);
    return ddbi_fail(err, DDB_ECONDITION, "%s: the conditional request failed", e->name);
}

static int ent_write(ddb *db, const ddb_entity_desc *e, void *obj, bool create, const ddb_ent_opts *o,
                     ddb_capacity *cap, ddb_error *err)
{
    if (cap)
        memset(cap, 0, sizeof *cap);
    if (!db || !e || !obj)
        return ddbi_fail(err, DDB_EINVAL, "%s: db, entity and object are required", create ? "create" : "put");
    ddb_arena *a = ddb_arena_new();
    if (!a)
        return ddbi_fail_oom(err, __func__);
    ddbi_exprb x;
    int rc = ddbi_exprb_init(&x, db, a, err);
    if (rc) {
        ddb_arena_free(a);
        return rc;
    }
    ddb_return_capacity mode = ddbi_ent_cap_mode(o);
    ddbi_ent_plan p;
    rc = ddbi_ent_plan_write(db, e, obj, create, a, &x, &p, cap, mode, err);
    if (!rc && !e->n_shards) {
        ddb_write_result res;
        ddb_write_opts wo = {.return_capacity = mode, .condition = p.cond, .values = ddbi_exprb_values(&x)};
        rc = ddb_put_item(db, e->table->def.name, p.items[0], &wo, a, &res, err);
        if (!rc)
            ddbi_ent_cap_merge(cap, &res.capacity);
    } else if (!rc) {
        ddb_tx_op ops[DDB_ENT_MAX_SHARDS];
        for (int s = 0; s < p.nparts; s++)
            ops[s] = (ddb_tx_op){.kind = DDB_TX_PUT, .table = e->table->def.name, .item = p.items[s],
                                 .condition = s == p.cond_part ? p.cond : NULL,
                                 .values = s == p.cond_part && p.cond ? ddbi_exprb_values(&x) : NULL};
        ddb_tx_result res;
        rc = ddb_transact_write(db, ops, (size_t)p.nparts, mode, a, &res, err);
        if (rc == DDB_ECANCELED && res.reasons && res.reasons[p.cond_part] == DDB_ECONDITION)
            rc = DDB_ECONDITION;
        if (!rc)
            ddbi_ent_cap_merge(cap, &res.capacity);
    }
    if (rc == DDB_ECONDITION)
        condition_failed(e, &p, create, err);
    if (!rc && p.vf)
        ddbi_ent_int_set(p.vf, (char *)obj + p.vf->offset, p.expected + 1);
    ddbi_exprb_done(&x);
    ddb_arena_free(a);
    return rc;
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

int ddb_ent_get(ddb *db, const ddb_entity_desc *e, const void *key, void *out, ddb_arena *a, const ddb_ent_opts *o,
                ddb_capacity *cap, ddb_error *err)
{
    if (cap)
        memset(cap, 0, sizeof *cap);
    if (!db || !e || !key || !out || !a)
        return ddbi_fail(err, DDB_EINVAL, "get: db, entity, key, out and arena are required");
    ddb_item *k = NULL;
    int rc = ddbi_ent_check_shards(e, err);
    if (!rc)
        rc = ddbi_ent_primary_key(e, key, -1, a, &k, err);
    if (rc)
        return rc;
    ddb_item *it;
    if (!e->n_shards) {
        ddb_get_opts go = {.consistent = o && o->consistent, .return_capacity = ddbi_ent_cap_mode(o)};
        ddb_capacity c;
        rc = ddb_get_item(db, e->table->def.name, k, &go, a, &it, &c, err);
        ddbi_ent_cap_merge(cap, &c);
        if (rc)
            return rc == DDB_ENOTFOUND ? ddbi_fail(err, rc, "%s not found", e->name) : rc;
    } else {
        ddb_page pg;
        if ((rc = ddbi_ent_read_shards(db, e, k, a, o && o->consistent, ddbi_ent_cap_mode(o), &pg, err)))
            return rc;
        ddbi_ent_cap_merge(cap, &pg.capacity);
        if (!pg.count)
            return ddbi_fail(err, DDB_ENOTFOUND, "%s not found", e->name);
        if ((rc = ddbi_ent_merge_shards(a, pg.items, pg.count, &it, err)))
            return rc;
    }
    return ddb_ent_from_item(e, it, out, a, err);
}

int ddb_ent_delete(ddb *db, const ddb_entity_desc *e, const void *key, const ddb_ent_opts *o, ddb_capacity *cap,
                   ddb_error *err)
{
    if (cap)
        memset(cap, 0, sizeof *cap);
    if (!db || !e || !key)
        return ddbi_fail(err, DDB_EINVAL, "delete: db, entity and key are required");
    int rc = ddbi_ent_check_shards(e, err);
    if (rc)
        return rc;
    ddb_arena *a = ddb_arena_new();
    if (!a)
        return ddbi_fail_oom(err, __func__);
    if (!e->n_shards) {
        ddb_item *k = NULL;
        ddb_write_result res;
        ddb_write_opts wo = {.return_capacity = ddbi_ent_cap_mode(o)};
        if (!(rc = ddbi_ent_primary_key(e, key, -1, a, &k, err)) &&
            !(rc = ddb_delete_item(db, e->table->def.name, k, &wo, a, &res, err)))
            ddbi_ent_cap_merge(cap, &res.capacity);
    } else {
        ddb_tx_op ops[DDB_ENT_MAX_SHARDS];
        for (int s = 0; s < e->n_shards && !rc; s++) {
            ddb_item *k = NULL;
            rc = ddbi_ent_primary_key(e, key, s, a, &k, err);
            ops[s] = (ddb_tx_op){.kind = DDB_TX_DELETE, .table = e->table->def.name, .item = k};
        }
        ddb_tx_result res;
        if (!rc && !(rc = ddb_transact_write(db, ops, e->n_shards, ddbi_ent_cap_mode(o), a, &res, err)))
            ddbi_ent_cap_merge(cap, &res.capacity);
    }
    ddb_arena_free(a);
    return rc;
}
