/* Entity room: what a typed read asks for besides its key condition: the
 * projection of a field mask (the fields' attributes plus the keys and the
 * type attribute, which grouping and cursors need; only those for a
 * count), and the filter (the caller's text with its bound names and
 * values, ANDed with "type attribute = the entity's name" for scans).
 * Calls this room's expression builder and the public item API. */
#include "entity/entity_internal.h"

#include "core/error.h"

#include <string.h>

/* Append ", #nK" (or "#nK" first) naming attr to the projection, once
 * (DynamoDB refuses a projection naming one path twice). */
static int project(ddbi_exprb *x, const char *attr)
{
    const ddb_value *names = ddb_item_map(x->names);
    for (uint32_t i = 0; attr && i < names->len; i++)
        if (!strcmp(names->u.m[i].value->u.s, attr))
            return DDB_OK;
    if (!attr)
        return DDB_OK;
    const char *ref = ddbi_exprb_name(x, attr);
    if (!ref || (x->text.len && ddbi_exprb_put(x, ", ")) || ddbi_exprb_put(x, ref))
        return DDB_ENOMEM;
    return DDB_OK;
}

static int build_projection(ddbi_ent_ask *q, const ddb_entity_desc *e, const char *index,
                            const ddb_ent_read_opts *o, ddb_error *err)
{
    const ddb_table_def *t = &e->table->def;
    int rc = project(&q->xp, e->table->type_attr) || project(&q->xp, t->key.pk) || project(&q->xp, t->key.sk);
    for (size_t i = 0; index && !rc && i < t->n_indexes; i++)
        if (!strcmp(t->indexes[i].name, index))
            rc = project(&q->xp, t->indexes[i].key.pk) || project(&q->xp, t->indexes[i].key.sk);
    for (uint16_t i = 0; !rc && !o->count_only && i < e->st->n_fields && i < DDB_ENT_MAX_FIELDS; i++)
        if (ddb_ent_mask_has(o->fields, i))
            rc = project(&q->xp, e->st->fields[i].attr);
    if (rc)
        return ddbi_fail_oom(err, __func__);
    return ddbi_exprb_prepare(&q->xp, DDB_EXPR_PROJECTION, &q->projection, err);
}

/* Copy every attribute of src into dst. */
static int copy_into(ddb_item *dst, const ddb_item *src)
{
    const ddb_value *m = src ? ddb_item_map(src) : NULL;
    for (uint32_t i = 0; m && i < m->len; i++)
        if (ddb_item_set(dst, m->u.m[i].name, m->u.m[i].value))
            return DDB_ENOMEM;
    return DDB_OK;
}

static int build_filter(ddbi_ent_ask *q, const ddb_entity_desc *e, const ddb_ent_read_opts *o, bool type_filter,
                        ddb_error *err)
{
    bool user = o->filter && o->filter[0];
    if (!user && !type_filter)
        return DDB_OK;
    ddbi_exprb *x = &q->xf;
    if (copy_into(x->names, o->filter_names) || copy_into(x->values, o->filter_values))
        return ddbi_fail_oom(err, __func__);
    if (type_filter) {
        /* the type condition's own name and value, not the caller's */
        if (ddb_item_get(x->names, "#ddb_type") || ddb_item_get(x->values, ":ddb_type"))
            return ddbi_fail(err, DDB_EINVAL, "%s: the filter may not bind #ddb_type or :ddb_type (the scan's own)",
                             e->name);
        if (ddb_item_set_s(x->names, "#ddb_type", e->table->type_attr) ||
            ddb_item_set_s(x->values, ":ddb_type", e->name) || ddbi_exprb_put(x, "#ddb_type = :ddb_type"))
            return ddbi_fail_oom(err, __func__);
    }
    if (user && ((type_filter && ddbi_exprb_put(x, " AND (")) || ddbi_exprb_put(x, o->filter) ||
                 (type_filter && ddbi_exprb_put(x, ")"))))
        return ddbi_fail_oom(err, __func__);
    q->values = ddbi_exprb_values(x);
    return ddbi_exprb_prepare(x, DDB_EXPR_FILTER, &q->filter, err);
}

int ddbi_ent_ask_init(ddbi_ent_ask *q, ddb *db, const ddb_entity_desc *e, const char *index,
                      const ddb_ent_read_opts *o, bool type_filter, ddb_arena *a, ddb_error *err)
{
    memset(q, 0, sizeof *q); /* builders made only when needed: a plain read allocates nothing here */
    int rc = DDB_OK;
    if (o->fields || o->count_only) {
        if (!(rc = ddbi_exprb_init(&q->xp, db, a, err)))
            rc = build_projection(q, e, index, o, err);
    }
    if (!rc && ((o->filter && o->filter[0]) || type_filter)) {
        if (!(rc = ddbi_exprb_init(&q->xf, db, a, err)))
            rc = build_filter(q, e, o, type_filter, err);
    }
    if (!rc && !o->filter && (o->filter_names || o->filter_values))
        rc = ddbi_fail(err, DDB_EINVAL, "%s: filter names or values without a filter", e->name);
    return rc;
}

void ddbi_ent_ask_done(ddbi_ent_ask *q)
{
    ddbi_exprb_done(&q->xp);
    ddbi_exprb_done(&q->xf);
}
