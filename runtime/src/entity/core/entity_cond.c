/* Entity room: binding a declared expression's #names and :placeholders
 * (ddbgen's DDB_UPDATE and DDB_CONDITION) to a names map and a values map,
 * and ddb_ent_declared_cond, the runtime of ddbgen's conditional variants
 * (<entity>_put_if_<name>, ...): the declared condition as a ddb_ent_expr
 * for ddb_ent_opts.condition / ddb_ent_tx_cond.  Calls the public item
 * API and this room's field marshalling. */
#include "entity/core/entity_core.h"

#include "core/error.h"

#include <stdio.h>
#include <string.h>

/* A list placeholder (arg, of list field f, at p): an empty list (count
 * 0) is the value L [] (list_append(if_not_exists(l, :empty), :more)),
 * not "absent" as an empty list field is; a NULL array with a non-zero
 * count is refused naming the placeholder.  *v stays NULL for other fields. */
static int list_arg(const ddb_entity_desc *e, const char *what, const ddb_ent_arg *arg, const ddb_field_desc *f,
                    const char *p, ddb_arena *a, ddb_value **v, ddb_error *err)
{
    *v = NULL;
    if (f->type != DDB_F_LIST)
        return DDB_OK;
    size_t count = *(const size_t *)(p - f->offset + f->count_offset);
    if (count && !*(char *const *)p)
        return ddbi_fail(err, DDB_EINVAL, "%s %s: %s has %zu elements but its array is NULL", e->name, what, arg->name,
                         count);
    if (count)
        return DDB_OK; /* marshalled like the field */
    return (*v = ddb_v_list(a)) ? DDB_OK : ddbi_fail_oom(err, __func__);
}

int ddbi_ent_bind(const ddb_entity_desc *e, const char *what, const char *const *names, const char *const *attrs,
                  uint16_t n_names, const ddb_ent_arg *args, size_t n_args, ddb_arena *a, ddb_item *nm,
                  ddb_item *vals, ddb_error *err)
{
    for (uint16_t i = 0; i < n_names; i++) {
        ddb_value *s = ddb_v_str(a, attrs[i]);
        if (!s || ddb_item_set(nm, names[i], s))
            return ddbi_fail_oom(err, __func__);
    }
    /* the placeholders, marshalled like the fields whose type they have */
    for (size_t i = 0; i < n_args; i++) {
        ddb_value *v = NULL;
        if (args[i].field < 0) {
            v = ddb_v_i64(a, *(const int64_t *)args[i].obj);
        } else if ((uint16_t)args[i].field < e->st->n_fields) {
            const ddb_field_desc *f = &e->st->fields[args[i].field];
            const char *p = (const char *)args[i].obj + f->offset;
            int rc = list_arg(e, what, &args[i], f, p, a, &v, err);
            if (!rc && !v)
                rc = ddbi_ent_field_value(f, p, a, &v, err);
            if (rc)
                return rc;
            if (!v)
                return ddbi_fail(err, DDB_EINVAL, "%s %s: %s is empty (absent), and an expression value must be set",
                                 e->name, what, args[i].name);
        } else {
            return ddbi_fail(err, DDB_EINVAL, "%s %s: %s names field %d of %u", e->name, what, args[i].name,
                             args[i].field, (unsigned)e->st->n_fields);
        }
        if (!v || ddb_item_set(vals, args[i].name, v))
            return ddbi_fail_oom(err, __func__);
    }
    return DDB_OK;
}

/* Copy map `from` (may be NULL) into `into`; a key already there with
 * another value is refused (the two expressions would disagree). */
static int and_map(const ddb_entity_desc *e, const ddb_ent_cond_desc *c, const ddb_item *from, ddb_item *into,
                   ddb_error *err)
{
    const ddb_value *mv = from ? ddb_item_map(from) : NULL;
    for (uint32_t i = 0; mv && i < mv->len; i++) {
        const char *k = mv->u.m[i].name;
        const ddb_value *have = ddb_item_get(into, k);
        if (have) {
            if (!ddb_value_equal(have, mv->u.m[i].value))
                return ddbi_fail(err, DDB_EINVAL,
                                 "%s condition %s: the caller's condition binds %s to another value than the "
                                 "declared condition",
                                 e->name, c->name, k);
            continue;
        }
        if (ddb_item_set(into, k, (ddb_value *)mv->u.m[i].value))
            return ddbi_fail_oom(err, __func__);
    }
    return DDB_OK;
}

int ddb_ent_declared_cond(const ddb_entity_desc *e, const ddb_ent_cond_desc *c, const ddb_ent_arg *args,
                          size_t n_args, const ddb_ent_expr *also, ddb_arena *a, ddb_ent_expr *out, ddb_error *err)
{
    if (!e || !c || !c->text || !out || (n_args && !args))
        return ddbi_fail(err, DDB_EINVAL, "declared condition: entity, condition and output are required");
    if (!a)
        return ddbi_fail_oom(err, __func__);
    if (also && (!also->text || !*also->text))
        return ddbi_fail(err, DDB_EINVAL, "%s condition %s: the caller's condition has no text", e->name, c->name);
    ddb_item *nm = ddb_item_new(a), *vals = ddb_item_new(a);
    if (!nm || !vals)
        return ddbi_fail_oom(err, __func__);
    int rc = ddbi_ent_bind(e, c->name, c->names, c->attrs, c->n_names, args, n_args, a, nm, vals, err);
    if (!rc && also && (rc = and_map(e, c, also->names, nm, err)) == DDB_OK)
        rc = and_map(e, c, also->values, vals, err);
    if (rc)
        return rc;
    const char *text = c->text;
    if (also) {
        size_t n = strlen(c->text) + strlen(also->text) + 12;
        char *t = ddb_arena_alloc(a, n);
        if (!t)
            return ddbi_fail_oom(err, __func__);
        snprintf(t, n, "(%s) AND (%s)", c->text, also->text);
        text = t;
    }
    memset(out, 0, sizeof *out);
    out->text = text;
    out->names = nm;
    out->values = vals;
    out->shard = c->shard;
    return DDB_OK;
}
