/* Entity room: what a typed read asks for besides its key condition: the
 * projection of a field mask (the fields' attributes plus the primary
 * key's fields, the key attributes and the type attribute, which grouping
 * and cursors need; only the last two for a count), and the filter (the caller's text with its bound names and
 * values, ANDed with "type attribute = the entity's name" for scans), the
 * shards a projection needs of a sharded entity, and
 * ddb_ent_declared_filter, which ANDs a declared query's filter (ddbgen's
 * DDB_QUERY / DDB_SCAN) with the caller's.  Calls this room's expression
 * builder and the public item API. */
#include "entity/reads/entity_reads.h"

#include "core/error.h"

#include <stdio.h>
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

static int build_projection(ddbi_ent_ask *q, const ddb_entity_desc *e, const ddbi_ent_sink *sinks, uint16_t n,
                            const char *index, const ddb_ent_read_opts *o, ddb_error *err)
{
    const ddb_table_def *t = &e->table->def;
    int rc = project(&q->xp, e->table->type_attr) || project(&q->xp, t->key.pk) || project(&q->xp, t->key.sk);
    bool whole = true; /* the items read hold every attribute: the table, or an ALL index */
    for (size_t i = 0; index && !rc && i < t->n_indexes; i++)
        if (!strcmp(t->indexes[i].name, index)) {
            rc = project(&q->xp, t->indexes[i].key.pk) || project(&q->xp, t->indexes[i].key.sk);
            whole = t->indexes[i].projection == DDB_PROJ_ALL;
        }
    for (uint16_t s = 0; !rc && !o->count_only && s < n; s++) {
        const ddb_entity_desc *se = sinks[s].e;
        /* the primary key's fields are always read (a partial index's
         * entries carry them in their key attributes, parsed back) */
        for (uint16_t i = 0; !rc && i < se->st->n_fields && i < DDB_ENT_MAX_FIELDS; i++)
            if (ddb_ent_mask_has(sinks[s].fields, i) || (whole && (se->st->fields[i].flags & DDB_FIELD_KEY)))
                rc = project(&q->xp, se->st->fields[i].attr);
    }
    if (rc)
        return ddbi_fail_oom(err, __func__);
    return ddbi_exprb_prepare(&q->xp, DDB_EXPR_PROJECTION, &q->projection, err);
}

uint64_t ddbi_ent_shards_needed(const ddb_entity_desc *e, const ddb_ent_mask *fields)
{
    if (!fields || !e->n_shards)
        return ddbi_ent_all_shards(e);
    uint64_t need = 0;
    for (uint16_t i = 0; i < e->st->n_fields && i < DDB_ENT_MAX_FIELDS; i++) {
        const ddb_field_desc *f = &e->st->fields[i];
        if (ddb_ent_mask_has(fields, i) && !(f->flags & DDB_FIELD_KEY))
            need |= (uint64_t)1 << ddbi_ent_field_part(e, f);
    }
    return need ? need : 1; /* keys only: one shard item says the entity is there */
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

/* Is placeholder k in the namespace of declared filters and the runtime ("#ddb_...", ":ddb_...")? */
static bool reserved(const char *k)
{
    return (k[0] == '#' || k[0] == ':') && !strncmp(k + 1, "ddb_", 4);
}

/* Copy map from (may be NULL) into into; with check, a reserved key is refused. */
static int and_map(const char *what, const ddb_item *from, bool check, ddb_item *into, ddb_error *err)
{
    const ddb_value *mv = from ? ddb_item_map(from) : NULL;
    for (uint32_t i = 0; mv && i < mv->len; i++) {
        const char *k = mv->u.m[i].name;
        if (check && reserved(k))
            return ddbi_fail(err, DDB_EINVAL,
                             "%s: the caller's filter binds %s; names and values starting with #ddb_ and :ddb_ are "
                             "the declared filter's and the runtime's",
                             what, k);
        if (ddb_item_set(into, k, (ddb_value *)mv->u.m[i].value))
            return ddbi_fail_oom(err, __func__);
    }
    return DDB_OK;
}

int ddb_ent_declared_filter(const char *what, const char *text, const ddb_item *names, const ddb_item *values,
                            const ddb_ent_read_opts *o, ddb_arena *a, ddb_ent_read_opts *out, ddb_error *err)
{
    if (!what || !text || !*text || !out)
        return ddbi_fail(err, DDB_EINVAL, "declared filter: its name, text and output are required");
    if (!a)
        return ddbi_fail_oom(err, __func__);
    static const ddb_ent_read_opts none = {0};
    const ddb_ent_read_opts *in = o ? o : &none;
    bool user = in->filter && in->filter[0];
    if (!user && (in->filter_names || in->filter_values))
        return ddbi_fail(err, DDB_EINVAL, "%s: filter names or values without a filter", what);
    ddb_item *nm = ddb_item_new(a), *vals = ddb_item_new(a);
    if (!nm || !vals)
        return ddbi_fail_oom(err, __func__);
    int rc = and_map(what, names, false, nm, err);
    if (!rc)
        rc = and_map(what, values, false, vals, err);
    if (!rc && user && !(rc = and_map(what, in->filter_names, true, nm, err)))
        rc = and_map(what, in->filter_values, true, vals, err);
    if (rc)
        return rc;
    const char *t = text;
    if (user) {
        size_t n = strlen(text) + strlen(in->filter) + 12;
        char *both = ddb_arena_alloc(a, n);
        if (!both)
            return ddbi_fail_oom(err, __func__);
        snprintf(both, n, "(%s) AND (%s)", text, in->filter);
        t = both;
    }
    *out = *in;
    out->filter = t;
    out->filter_names = ddb_item_count(nm) ? nm : NULL;
    out->filter_values = ddb_item_count(vals) ? vals : NULL;
    return DDB_OK;
}

int ddbi_ent_ask_init(ddbi_ent_ask *q, ddb *db, const ddb_entity_desc *e, const ddbi_ent_sink *sinks, uint16_t n,
                      const char *index, const ddb_ent_read_opts *o, bool type_filter, ddb_arena *a, ddb_error *err)
{
    memset(q, 0, sizeof *q); /* builders made only when needed: a plain read allocates nothing here */
    int rc = DDB_OK;
    bool every = n > 0; /* every type kept has a projection */
    for (uint16_t s = 0; s < n; s++)
        every = every && sinks[s].fields;
    if (every || o->count_only) {
        if (!(rc = ddbi_exprb_init(&q->xp, db, a, err)))
            rc = build_projection(q, e, sinks, n, index, o, err);
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
