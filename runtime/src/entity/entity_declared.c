/* Entity room: declared updates (ddb_ent_update_declared), the runtime of
 * ddbgen's DDB_UPDATE: one UpdateItem on one item (a sharded entity: the
 * one shard item the update writes) with the expression ddbgen checked at
 * build time, the index keys and derived attributes fed by the fields it
 * sets recomputed in the same request, the version bumped, and the item
 * required to exist.  Calls the public UpdateItem API and this room's
 * templates, marshalling and keys. */
#include "entity/entity_internal.h"

#include "core/error.h"

#include <stdio.h>
#include <string.h>

#define DECL_MAX_FIELDS 1024

/* Text pieces of one clause: what ddbgen declared, then what is added. */
typedef struct clause {
    ddb_buf b;
} clause;

static int clause_add(clause *c, const char *s)
{
    if (!s || !*s)
        return DDB_OK;
    if (c->b.len && ddbi_buf_put(&c->b, ", ", 2))
        return DDB_ENOMEM;
    return ddbi_buf_put(&c->b, s, strlen(s));
}

/* "#ddb_<n>" / ":ddb_<n>": names and values of what the runtime adds (ddbgen
 * refuses declared placeholders starting with ddb_). */
static int extra(ddb_arena *a, ddb_item *names, ddb_item *values, int n, const char *attr, ddb_value *v,
                 char *ref, size_t refsz)
{
    char nm[32], vl[32];
    snprintf(nm, sizeof nm, "#ddb_%d", n);
    snprintf(vl, sizeof vl, ":ddb_%d", n);
    ddb_value *s = ddb_v_str(a, attr);
    if (!s || ddb_item_set(names, nm, s) || (v && ddb_item_set(values, vl, v)))
        return DDB_ENOMEM;
    if (v)
        snprintf(ref, refsz, "%s = %s", nm, vl);
    else
        snprintf(ref, refsz, "%s", nm);
    return DDB_OK;
}

int ddb_ent_update_declared(ddb *db, const ddb_entity_desc *e, const ddb_ent_update_desc *u, void *obj,
                            const ddb_ent_arg *args, size_t n_args, const ddb_ent_opts *o, void *out, ddb_arena *ra,
                            ddb_capacity *cap, ddb_error *err)
{
    if (cap)
        memset(cap, 0, sizeof *cap);
    if (!db || !e || !u || !obj || (n_args && !args) || (out && !ra))
        return ddbi_fail(err, DDB_EINVAL, "declared update: db, entity, update and key are required");
    if (e->st->n_fields > DECL_MAX_FIELDS)
        return ddbi_fail(err, DDB_ELIMIT, "%s has %u fields; a declared update handles at most %d", e->name,
                         (unsigned)e->st->n_fields, DECL_MAX_FIELDS);
    int rc = ddbi_ent_check_shards(e, err);
    if (rc)
        return rc;
    if (e->n_shards && (u->shard < 0 || u->shard >= e->n_shards))
        return ddbi_fail(err, DDB_EINVAL, "declared update %s of %s names shard %d of %u", u->name, e->name,
                         u->shard, (unsigned)e->n_shards);
    bool changed[DECL_MAX_FIELDS] = {false};
    for (uint16_t i = 0; i < u->n_known; i++) {
        if (u->known[i] >= e->st->n_fields)
            return ddbi_fail(err, DDB_EINVAL, "declared update %s of %s names field %u of %u", u->name, e->name,
                             (unsigned)u->known[i], (unsigned)e->st->n_fields);
        changed[u->known[i]] = true;
    }
    ddb_arena *a = ddb_arena_new();
    if (!a)
        return ddbi_fail_oom(err, __func__);
    ddb_item *names = ddb_item_new(a), *values = ddb_item_new(a), *key = NULL;
    clause cl[4];
    memset(cl, 0, sizeof cl);
    const char *declared[4] = {u->set, u->remove, u->add, u->del};
    char ref[96];
    int n = 0;
    if (!names || !values)
        rc = ddbi_fail_oom(err, __func__);
    if (!rc)
        rc = ddbi_ent_bind(e, u->name, u->names, u->attrs, u->n_names, args, n_args, a, names, values, err);
    for (int c = 0; !rc && c < 4; c++)
        if (clause_add(&cl[c], declared[c]))
            rc = ddbi_fail_oom(err, __func__);
    /* derived attributes and index keys fed by the fields set (ddbgen made
     * sure every field they read is a key field or one of those) */
    for (uint16_t j = 0; !rc && j < e->st->n_fields; j++) {
        const ddb_field_desc *f = &e->st->fields[j];
        if (!(f->flags & DDB_FIELD_DERIVED) || !f->derived || !ddbi_ent_template_uses(f->derived, changed))
            continue;
        ddb_value *v;
        if ((rc = ddb_ent_render(e, f->derived, obj, a, &v, err)))
            break;
        if (extra(a, names, values, n++, f->attr, v, ref, sizeof ref) || clause_add(&cl[v ? 0 : 1], ref))
            rc = ddbi_fail_oom(err, __func__);
    }
    for (uint16_t k = 1; !rc && k < e->n_keys; k++) {
        const ddb_key_desc *kd = &e->keys[k];
        if (e->n_shards && kd->shard != u->shard)
            continue;
        if (!ddbi_ent_template_uses(&kd->pk, changed) && !(kd->sk_attr && ddbi_ent_template_uses(&kd->sk, changed)))
            continue;
        ddb_value *pk, *sk = NULL;
        if ((rc = ddb_ent_render(e, &kd->pk, obj, a, &pk, err)) ||
            (kd->sk_attr && (rc = ddb_ent_render(e, &kd->sk, obj, a, &sk, err))))
            break;
        bool in = pk && (!kd->sk_attr || sk);
        if (extra(a, names, values, n++, kd->pk_attr, in ? pk : NULL, ref, sizeof ref) ||
            clause_add(&cl[in ? 0 : 1], ref))
            rc = ddbi_fail_oom(err, __func__);
        if (!rc && kd->sk_attr &&
            (extra(a, names, values, n++, kd->sk_attr, in ? sk : NULL, ref, sizeof ref) ||
             clause_add(&cl[in ? 0 : 1], ref)))
            rc = ddbi_fail_oom(err, __func__);
    }
    /* the version of the item written moves on, as for every write (a
     * sharded entity has one per shard: the written shard's) */
    const ddb_field_desc *vf = NULL;
    for (uint16_t j = 0; !vf && j < e->st->n_fields; j++) {
        const ddb_field_desc *f = &e->st->fields[j];
        if ((f->flags & DDB_FIELD_VERSION) && (!e->n_shards || ddbi_ent_field_part(e, f) == u->shard))
            vf = f;
    }
    if (!rc && vf) {
        if (extra(a, names, values, n++, vf->attr, ddb_v_i64(a, 1), ref, sizeof ref))
            rc = ddbi_fail_oom(err, __func__);
        for (char *p = ref; !rc && *p; p++)
            if (*p == '=') /* "#v = :v" -> "#v :v" for ADD */
                memmove(p - 1, p + 1, strlen(p + 1) + 1);
        if (!rc && clause_add(&cl[2], ref))
            rc = ddbi_fail_oom(err, __func__);
    }
    ddb_buf text = {0}, cond = {0};
    static const char *const kw[4] = {"SET ", " REMOVE ", " ADD ", " DELETE "};
    for (int c = 0; !rc && c < 4; c++) {
        if (!cl[c].b.len)
            continue;
        const char *k = text.len ? kw[c] : kw[c] + (c ? 1 : 0);
        if (ddbi_buf_put(&text, k, strlen(k)) || ddbi_buf_put(&text, cl[c].b.p, cl[c].b.len))
            rc = ddbi_fail_oom(err, __func__);
    }
    if (!rc && (extra(a, names, values, n++, e->keys[0].pk_attr, NULL, ref, sizeof ref) ||
                ddbi_buf_put(&cond, "attribute_exists(", 17) || ddbi_buf_put(&cond, ref, strlen(ref)) ||
                ddbi_buf_put(&cond, ")", 1) ||
                (u->condition && (ddbi_buf_put(&cond, " AND (", 6) ||
                                  ddbi_buf_put(&cond, u->condition, strlen(u->condition)) ||
                                  ddbi_buf_put(&cond, ")", 1))) ||
                ddbi_buf_put(&text, "", 1) || ddbi_buf_put(&cond, "", 1)))
        rc = ddbi_fail_oom(err, __func__);
    ddb_expr *upx = NULL, *cx = NULL;
    if (!rc && !(rc = ddb_expr_prepare(DDB_EXPR_UPDATE, (const char *)text.p, names, &upx, err)))
        rc = ddb_expr_prepare(DDB_EXPR_CONDITION, (const char *)cond.p, names, &cx, err);
    if (!rc)
        rc = ddbi_ent_primary_key(e, obj, e->n_shards ? u->shard : -1, a, &key, err);
    if (!rc) {
        ddb_write_result res;
        ddb_write_opts wo = {.return_values = out ? DDB_RETURN_ALL_NEW : DDB_RETURN_NONE,
                             .return_capacity = ddbi_ent_cap_mode(o),
                             .condition = cx,
                             .values = ddb_item_count(values) ? values : NULL};
        rc = ddb_update_item(db, e->table->def.name, key, upx, &wo, a, &res, err);
        if (!rc)
            ddbi_ent_cap_merge(cap, &res.capacity);
        if (!rc && out)
            memset(out, 0, e->st->size);
        if (!rc && out)
            rc = ddbi_ent_from_item_partial(e, res.attributes, out, ra, e->n_shards > 0, NULL, err);
        if (rc == DDB_ECONDITION && u->condition)
            ddbi_fail(err, rc, "%s %s: the item does not exist or its condition (%s) is false", e->name, u->name,
                      u->condition);
        else if (rc == DDB_ECONDITION)
            rc = ddbi_fail(err, DDB_ENOTFOUND, "%s not found", e->name);
    }
    ddb_expr_free(upx);
    ddb_expr_free(cx);
    ddbi_buf_free(&text);
    ddbi_buf_free(&cond);
    for (int c = 0; c < 4; c++)
        ddbi_buf_free(&cl[c].b);
    ddb_arena_free(a);
    return rc;
}
