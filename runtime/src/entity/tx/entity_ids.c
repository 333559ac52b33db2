/* Entity room: the ids create fills in: a random UUID into an empty
 * DDB_FIELD_UUID field; for a create alone, the next value of an atomic
 * counter (UpdateItem ADD) into a zero DDB_FIELD_AUTO_ID field (in a
 * transaction the counter joins the transaction instead: entity_tx.c).
 * Calls libuuid, the public UpdateItem and the expression builder and
 * templates of this room. */
#include "entity/tx/entity_tx.h"

#include "core/error.h"

#include <string.h>
#include <uuid/uuid.h>

static int fill_uuid(const ddb_field_desc *f, char *p, ddb_arena *a, ddb_error *err)
{
    uuid_t u;
    char text[37];
    if (f->type == DDB_F_CHARS) {
        if (p[0])
            return DDB_OK;
        if (f->size < 37)
            return ddbi_fail(err, DDB_EVALIDATION, "field %s holds %u bytes; a UUID needs 37", f->name, f->size);
        uuid_generate_random(u);
        uuid_unparse_lower(u, p);
        return DDB_OK;
    }
    if (f->type == DDB_F_STRING) {
        if (*(char **)p)
            return DDB_OK;
        uuid_generate_random(u);
        uuid_unparse_lower(u, text);
        char *s = ddb_arena_alloc(a, sizeof text);
        if (!s)
            return ddbi_fail_oom(err, __func__);
        memcpy(s, text, sizeof text);
        *(char **)p = s;
        return DDB_OK;
    }
    return ddbi_fail(err, DDB_EVALIDATION, "field %s: DDB_UUID needs a string field", f->name);
}

/* Next value of the counter for the rendered scope: an item (scope,
 * "#COUNTER") in the entity's table whose attribute "Counter" is bumped
 * with an atomic ADD. */
int ddbi_ent_next_id(ddb *db, const ddb_entity_desc *e, const void *obj, ddb_arena *a, int64_t *id, ddb_capacity *cap,
                   ddb_return_capacity mode, ddb_error *err)
{
    if (!e->auto_id_scope)
        return ddbi_fail(err, DDB_EINVAL, "%s: auto id without a scope template", e->name);
    ddb_value *scope;
    int rc = ddb_ent_render(e, e->auto_id_scope, obj, a, &scope, err);
    if (rc)
        return rc;
    if (!scope)
        return ddbi_fail(err, DDB_EVALIDATION, "%s: a field of the auto id scope is unset", e->name);
    const ddb_table_def *t = &e->table->def;
    ddb_item *key = ddb_item_new(a);
    if (!key || ddb_item_set(key, t->key.pk, scope) || (t->key.sk && ddb_item_set_s(key, t->key.sk, "#COUNTER")))
        return ddbi_fail_oom(err, __func__);
    ddbi_exprb x;
    if ((rc = ddbi_exprb_init(&x, db, a, err)))
        return rc;
    const char *nt = ddbi_exprb_name(&x, e->table->type_attr), *vt = ddbi_exprb_value(&x, ddb_v_str(a, "ddb:counter"));
    const char *nc = ddbi_exprb_name(&x, "Counter"), *vc = ddbi_exprb_value(&x, ddb_v_i64(a, 1));
    const ddb_expr *upd;
    if (!nt || !vt || !nc || !vc || ddbi_exprb_put(&x, "SET ") || ddbi_exprb_put(&x, nt) ||
        ddbi_exprb_put(&x, " = ") || ddbi_exprb_put(&x, vt) || ddbi_exprb_put(&x, " ADD ") ||
        ddbi_exprb_put(&x, nc) || ddbi_exprb_put(&x, " ") || ddbi_exprb_put(&x, vc))
        rc = ddbi_fail_oom(err, __func__);
    else
        rc = ddbi_exprb_prepare(&x, DDB_EXPR_UPDATE, &upd, err);
    ddb_write_result res;
    if (!rc) {
        ddb_write_opts wo = {.return_values = DDB_RETURN_UPDATED_NEW, .return_capacity = mode, .values = x.values};
        rc = ddb_update_item(db, t->name, key, upd, &wo, a, &res, err);
    }
    ddbi_exprb_done(&x);
    if (rc)
        return rc;
    ddbi_ent_cap_merge(cap, &res.capacity);
    const ddb_value *v = res.attributes ? ddb_item_get(res.attributes, "Counter") : NULL;
    if (!v || ddb_value_to_i64(v, id))
        return ddbi_fail(err, DDB_ECORRUPT, "%s: the id counter did not return a number", e->name);
    return DDB_OK;
}

int ddbi_ent_fill_uuids(const ddb_entity_desc *e, void *obj, ddb_arena *a, ddb_error *err)
{
    int rc = DDB_OK;
    for (uint16_t i = 0; !rc && i < e->st->n_fields; i++) {
        const ddb_field_desc *f = &e->st->fields[i];
        if (f->flags & DDB_FIELD_UUID)
            rc = fill_uuid(f, (char *)obj + f->offset, a, err);
    }
    return rc;
}
