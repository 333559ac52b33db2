/* Entity room: partial update (ddb_ent_update_fields): only the named
 * fields, the derived attributes and index keys that depend on them, and
 * the version; for a sharded entity only the shard items holding them, in
 * one transaction.  Calls the public UpdateItem and transaction API and
 * this room's templates, marshalling, keys and expression builder. */
#include "entity/entity_internal.h"

#include "core/error.h"

#include <string.h>

/* The most fields an entity struct may have for a partial update. */
#define UPDATE_MAX_FIELDS 1024

/* The update of one shard item: "SET" assignments in x, "REMOVE" ones in rem. */
typedef struct upd {
    ddbi_exprb x;
    ddb_buf rem;
    int nset, nrem;
} upd;

/* Append the assignment attr = v (v NULL: remove attr); DDB_ENOMEM (err not
 * filled) when out of memory. */
static int upd_set(upd *u, const char *attr, ddb_value *v)
{
    const char *n = ddbi_exprb_name(&u->x, attr);
    if (!n)
        return DDB_ENOMEM;
    if (!v) {
        const char *sep = u->nrem++ ? ", " : " REMOVE ";
        int rc = ddbi_buf_put(&u->rem, sep, strlen(sep));
        return rc ? rc : ddbi_buf_put(&u->rem, n, strlen(n));
    }
    const char *r = ddbi_exprb_value(&u->x, v);
    if (!r || ddbi_exprb_put(&u->x, u->nset++ ? ", " : "SET ") || ddbi_exprb_put(&u->x, n) ||
        ddbi_exprb_put(&u->x, " = ") || ddbi_exprb_put(&u->x, r))
        return DDB_ENOMEM;
    return DDB_OK;
}

int ddb_ent_update_fields(ddb *db, const ddb_entity_desc *e, void *obj, const char *const *fields, size_t n_fields,
                          const ddb_ent_opts *o, ddb_capacity *cap, ddb_error *err)
{
    if (cap)
        memset(cap, 0, sizeof *cap);
    if (!db || !e || !obj || (n_fields && !fields))
        return ddbi_fail(err, DDB_EINVAL, "update: db, entity, object and fields are required");
    bool changed[UPDATE_MAX_FIELDS] = {false};
    if (e->st->n_fields > UPDATE_MAX_FIELDS)
        return ddbi_fail(err, DDB_ELIMIT, "%s has %u fields; a partial update handles at most %d", e->name,
                         (unsigned)e->st->n_fields, UPDATE_MAX_FIELDS);
    int rc = ddbi_ent_check_shards(e, err);
    if (rc)
        return rc;
    for (size_t i = 0; i < n_fields; i++) {
        uint16_t j = 0;
        while (j < e->st->n_fields && strcmp(e->st->fields[j].name, fields[i]) != 0)
            j++;
        if (j == e->st->n_fields)
            return ddbi_fail(err, DDB_EVALIDATION, "%s has no field %s", e->name, fields[i]);
        const ddb_field_desc *f = &e->st->fields[j];
        if (f->flags & DDB_FIELD_KEY)
            return ddbi_fail(err, DDB_EVALIDATION,
                            "field %s is part of the primary key of %s: write a new item instead", f->name, e->name);
        if (f->flags & (DDB_FIELD_DERIVED | DDB_FIELD_VERSION | DDB_FIELD_UUID | DDB_FIELD_AUTO_ID))
            return ddbi_fail(err, DDB_EVALIDATION, "field %s of %s is maintained by ddbgen and cannot be set",
                            f->name, e->name);
        changed[j] = true;
    }
    int nparts = ddbi_ent_parts(e);
    ddb_arena *a = ddb_arena_new();
    if (!a)
        return ddbi_fail_oom(err, __func__);
    upd u[DDB_ENT_MAX_SHARDS];
    bool touched[DDB_ENT_MAX_SHARDS] = {false};
    for (int s = 0; s < nparts; s++) {
        memset(&u[s], 0, sizeof u[s]);
        if (!rc)
            rc = ddbi_exprb_init(&u[s].x, db, a, err);
    }
    /* the fields themselves, and derived attributes that depend on them */
    if (!rc)
        rc = ddbi_ent_fill_derived(e, obj, a, err);
    for (uint16_t j = 0; !rc && j < e->st->n_fields; j++) {
        const ddb_field_desc *f = &e->st->fields[j];
        bool derived = (f->flags & DDB_FIELD_DERIVED) && f->derived && ddbi_ent_template_uses(f->derived, changed);
        if (!changed[j] && !derived)
            continue;
        int s = ddbi_ent_field_part(e, f);
        ddb_value *v;
        rc = ddbi_ent_field_value(f, (const char *)obj + f->offset, a, &v, err);
        if (!rc && upd_set(&u[s], f->attr, v))
            rc = ddbi_fail_oom(err, __func__);
        touched[s] = true;
    }
    /* index keys that depend on them (each on the shard item carrying it) */
    for (uint16_t k = 1; !rc && k < e->n_keys; k++) {
        const ddb_key_desc *kd = &e->keys[k];
        if (!ddbi_ent_template_uses(&kd->pk, changed) && !(kd->sk_attr && ddbi_ent_template_uses(&kd->sk, changed)))
            continue;
        ddb_value *pk, *sk = NULL;
        if ((rc = ddb_ent_render(e, &kd->pk, obj, a, &pk, err)) ||
            (kd->sk_attr && (rc = ddb_ent_render(e, &kd->sk, obj, a, &sk, err))))
            break;
        bool in = pk && (!kd->sk_attr || sk);
        int ks = e->n_shards && kd->shard >= 0 ? kd->shard : 0;
        if (upd_set(&u[ks], kd->pk_attr, in ? pk : NULL) ||
            (kd->sk_attr && upd_set(&u[ks], kd->sk_attr, in ? sk : NULL)))
            rc = ddbi_fail_oom(err, __func__);
        touched[ks] = true;
    }
    const ddb_field_desc *vf = ddbi_ent_flagged(e, DDB_FIELD_VERSION);
    int64_t expected = vf ? ddbi_ent_int_get(vf, (char *)obj + vf->offset) : 0;
    int vshard = vf ? ddbi_ent_field_part(e, vf) : -1;
    if (!rc && vf) {
        if (upd_set(&u[vshard], vf->attr, ddb_v_i64(a, expected + 1)))
            rc = ddbi_fail_oom(err, __func__);
        touched[vshard] = true;
    }
    const ddb_expr *upx[DDB_ENT_MAX_SHARDS] = {NULL}, *cx[DDB_ENT_MAX_SHARDS] = {NULL};
    ddb_item *keys[DDB_ENT_MAX_SHARDS];
    ddb_tx_op ops[DDB_ENT_MAX_SHARDS];
    size_t nops = 0;
    for (int s = 0; !rc && s < nparts; s++) {
        if (!touched[s])
            continue;
        /* the item must exist; with a version, it must be the expected one */
        ddbi_exprb *x = &u[s].x;
        const char *n = ddbi_exprb_name(x, e->keys[0].pk_attr);
        if (u[s].rem.len && ddbi_buf_put(&x->text, u[s].rem.p, u[s].rem.len))
            rc = ddbi_fail_oom(err, __func__);
        if (!rc && (rc = ddbi_exprb_prepare(x, DDB_EXPR_UPDATE, &upx[s], err)))
            break;
        x->text.len = 0; /* the same names and values serve the condition */
        if (!n || ddbi_exprb_put(x, "attribute_exists(") || ddbi_exprb_put(x, n) || ddbi_exprb_put(x, ")"))
            rc = ddbi_fail_oom(err, __func__);
        if (!rc && vf && s == vshard) {
            const char *vn = ddbi_exprb_name(x, vf->attr), *vv = ddbi_exprb_value(x, ddb_v_i64(a, expected));
            if (!vn || !vv || ddbi_exprb_put(x, " AND ") || ddbi_exprb_put(x, vn) || ddbi_exprb_put(x, " = ") ||
                ddbi_exprb_put(x, vv))
                rc = ddbi_fail_oom(err, __func__);
        }
        if (!rc && (rc = ddbi_exprb_prepare(x, DDB_EXPR_CONDITION, &cx[s], err)))
            break;
        if (!rc && !(rc = ddbi_ent_primary_key(e, obj, e->n_shards ? s : -1, a, &keys[s], err)))
            ops[nops++] = (ddb_tx_op){.kind = DDB_TX_UPDATE, .table = e->table->def.name, .item = keys[s],
                                      .update = upx[s], .condition = cx[s], .values = ddbi_exprb_values(x)};
    }
    if (!rc && nops == 1) {
        ddb_write_result res;
        ddb_write_opts wo = {.return_capacity = ddbi_ent_cap_mode(o), .condition = ops[0].condition,
                             .values = ops[0].values};
        rc = ddb_update_item(db, ops[0].table, ops[0].item, ops[0].update, &wo, a, &res, err);
        if (!rc)
            ddbi_ent_cap_merge(cap, &res.capacity);
    } else if (!rc && nops > 1) {
        ddb_tx_result res;
        rc = ddb_transact_write(db, ops, nops, ddbi_ent_cap_mode(o), a, &res, err);
        if (rc == DDB_ECANCELED && res.reasons)
            for (size_t i = 0; i < nops; i++)
                if (res.reasons[i] == DDB_ECONDITION)
                    rc = DDB_ECONDITION;
        if (!rc)
            ddbi_ent_cap_merge(cap, &res.capacity);
    }
    if (rc == DDB_ECONDITION && vf)
        ddbi_fail(err, rc, "%s does not exist or its version is not %lld", e->name, (long long)expected);
    else if (rc == DDB_ECONDITION) /* no version: the condition only said "it exists" */
        rc = ddbi_fail(err, DDB_ENOTFOUND, "%s not found", e->name);
    if (!rc && vf)
        ddbi_ent_int_set(vf, (char *)obj + vf->offset, expected + 1);
    for (int s = 0; s < nparts; s++) {
        ddbi_exprb_done(&u[s].x);
        ddbi_buf_free(&u[s].rem);
    }
    ddb_arena_free(a);
    return rc;
}
