/* Entity room: typed reads with ddb_ent_read_opts: a query by access
 * pattern (ddb_ent_query_pattern), a typed scan of one entity
 * (ddb_ent_scan) and a get with read options (ddb_ent_read).  A sharded
 * entity's get or exact-key query with a projection reads only the shard
 * items that hold its fields.  Each builds
 * its request here (key condition, projection, filter) and hands the page
 * to the reader (entity_page_decode.c).  Calls the public Query, Scan and
 * GetItem and this room's templates, keys, cursors and reader. */
#include "entity/reads/entity_reads.h"

#include "core/error.h"

#include <string.h>

/* The page's cursor into out (NULL when the read is complete). */
static int finish(ddbi_ent_reader *r, ddbi_ent_sink *s, ddb_ent_result *out, ddb_error *err)
{
    ddbi_ent_reader_finish(r);
    out->items = r->o->count_only ? NULL : s->items;
    out->masks = r->o->count_only ? NULL : s->masks;
    out->count = s->count;
    out->scanned_count = r->scanned;
    return r->last_key ? ddbi_ent_cursor_encode(r->a, r->last_key, &out->cursor, err) : DDB_OK;
}

/* Limit in physical items: a sharded entity's table items come n_shards to one. */
static uint32_t physical_limit(const ddb_entity_desc *e, uint32_t page_size, bool table)
{
    uint64_t n = (uint64_t)page_size * (e->n_shards && table ? e->n_shards : 1);
    return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

/* The exact primary key of a sharded entity (EQ, or a sort key without
 * fields: one item per partition) with a projection that some shards
 * hold: those shard items read by key (GetItem each), not the whole
 * logical item by a Query. */
static int exact_shards(ddb *db, const ddb_entity_desc *e, const void *obj, const ddb_ent_read_opts *o, ddb_arena *a,
                        ddb_ent_result *out, ddb_error *err)
{
    ddbi_ent_sink sink = {.e = e};
    ddbi_ent_reader r;
    ddb_item *k = NULL;
    ddb_page pg;
    ddbi_ent_ask ask;
    int rc = ddbi_ent_reader_init(&r, db, a, o, NULL, &sink, 1, err);
    if (!rc)
        rc = ddbi_ent_primary_key(e, obj, -1, a, &k, err);
    if (rc)
        return rc;
    if (!(rc = ddbi_ent_ask_init(&ask, db, e, &sink, 1, NULL, o, false, a, err)))
        rc = ddbi_ent_read_some_shards(db, e, k, ddbi_ent_shards_needed(e, o->fields), ask.projection, a,
                                       o->consistent, o->return_capacity, &pg, err);
    ddbi_ent_ask_done(&ask);
    if (!rc)
        rc = ddbi_ent_reader_take(&r, &pg, err);
    return rc ? rc : finish(&r, &sink, out, err);
}

/* A query of an index keyed on e's fields: a KeyConditionExpression over
 * the attributes (entity_fieldkey.c). */
static int fields_pattern(ddb *db, const ddb_entity_desc *e, const ddb_ent_key_cond *kc, const ddb_ent_read_opts *o,
                          ddb_arena *a, ddb_ent_result *out, ddb_error *err)
{
    const ddb_key_desc *kd = &e->keys[kc->key];
    ddbi_ent_sink sink = {.e = e};
    ddbi_ent_reader r;
    ddbi_exprb kx;
    int rc = ddbi_ent_reader_init(&r, db, a, o, kd->index, &sink, 1, err);
    if (rc || (rc = ddbi_exprb_init(&kx, db, a, err)))
        return rc;
    kx.n = DDBI_ENT_KEY_VALUES_BASE;
    ddb_query_params qp = {.table = e->table->def.name, .index = kd->index, .backward = o->backward,
                           .limit = physical_limit(e, o->page_size, false), .consistent = o->consistent,
                           .return_capacity = o->return_capacity};
    if (!(rc = ddbi_ent_fields_key_condition(e, kc, &kx, err)) &&
        !(rc = ddbi_exprb_prepare(&kx, DDB_EXPR_KEY_CONDITION, &qp.key_condition, err))) {
        qp.values = ddbi_exprb_values(&kx);
        if (o->cursor)
            rc = ddbi_ent_cursor_decode(a, o->cursor, (ddb_item **)&qp.start_key, err);
        if (!rc)
            rc = ddbi_ent_reader_run(&r, e, false, &qp, NULL, o->all_pages, err);
    }
    ddbi_exprb_done(&kx);
    return rc ? rc : finish(&r, &sink, out, err);
}

int ddb_ent_query_pattern(ddb *db, const ddb_entity_desc *e, const ddb_ent_key_cond *kc,
                          const ddb_ent_read_opts *o, ddb_arena *a, ddb_ent_result *out, ddb_error *err)
{
    o = ddbi_ent_opts_begin(o);
    if (!db || !e || !kc || !kc->obj || !a || !out)
        return ddbi_fail(err, DDB_EINVAL, "query: db, entity, key condition with its object, arena and out are required");
    memset(out, 0, sizeof *out);
    if (kc->key >= e->n_keys)
        return ddbi_fail(err, DDB_EINVAL, "%s has no key %u", e->name, kc->key);
    const ddb_key_desc *kd = &e->keys[kc->key];
    if (ddbi_ent_write_shards(e, &kd->pk) > 1)
        return ddbi_ent_scatter_pattern(db, e, kc, o, a, out, err); /* every write shard: entity_scatter.c */
    bool one = kc->op == DDB_ENT_SK_EQ || (kc->op == DDB_ENT_SK_ALL && kd->sk_attr && !ddbi_ent_holes(&kd->sk));
    if (!kd->index && one && e->n_shards && !o->filter && !o->count_only && !o->cursor &&
        ddbi_ent_shards_needed(e, o->fields) != ddbi_ent_all_shards(e))
        return exact_shards(db, e, kc->obj, o, a, out, err);
    if (kd->by_fields)
        return fields_pattern(db, e, kc, o, a, out, err);
    ddbi_ent_sink sink = {.e = e};
    ddbi_ent_reader r;
    ddb_value *pk;
    int rc = ddbi_ent_reader_init(&r, db, a, o, kd->index, &sink, 1, err);
    if (!rc)
        rc = ddb_ent_render(e, &kd->pk, kc->obj, a, &pk, err);
    if (rc)
        return rc;
    if (!pk)
        return ddbi_fail(err, DDB_EVALIDATION, "%s: a partition field of the query is unset", e->name);
    ddb_query_params qp = {.table = e->table->def.name, .index = kd->index, .pk = pk, .backward = o->backward,
                           .limit = physical_limit(e, o->page_size, !kd->index), .consistent = o->consistent,
                           .return_capacity = o->return_capacity};
    if ((rc = ddbi_ent_sk_condition(e, kc, a, &qp, err)))
        return rc;
    if (o->cursor && (rc = ddbi_ent_cursor_decode(a, o->cursor, (ddb_item **)&qp.start_key, err)))
        return rc;
    rc = ddbi_ent_reader_run(&r, e, false, &qp, NULL, o->all_pages, err);
    return rc ? rc : finish(&r, &sink, out, err);
}

int ddb_ent_scan(ddb *db, const ddb_entity_desc *e, const char *index, uint32_t segment, uint32_t total_segments,
                 const ddb_ent_read_opts *o, ddb_arena *a, ddb_ent_result *out, ddb_error *err)
{
    o = ddbi_ent_opts_begin(o);
    if (!db || !e || !a || !out)
        return ddbi_fail(err, DDB_EINVAL, "scan: db, entity, arena and out are required");
    memset(out, 0, sizeof *out);
    if (o->backward)
        return ddbi_fail(err, DDB_EINVAL, "%s: a scan has no direction (backward)", e->name);
    ddbi_ent_sink sink = {.e = e};
    ddbi_ent_reader r;
    int rc = ddbi_ent_reader_init(&r, db, a, o, index, &sink, 1, err);
    if (rc)
        return rc;
    ddb_scan_params sp = {.table = e->table->def.name, .index = index,
                          .limit = physical_limit(e, o->page_size, !index), .consistent = o->consistent,
                          .segment = segment, .total_segments = total_segments,
                          .return_capacity = o->return_capacity};
    if (o->cursor && (rc = ddbi_ent_cursor_decode(a, o->cursor, (ddb_item **)&sp.start_key, err)))
        return rc;
    rc = ddbi_ent_reader_run(&r, e, true, NULL, &sp, o->all_pages, err);
    return rc ? rc : finish(&r, &sink, out, err);
}

/* The key holds another entity's item: a data error, not "absent" (the
 * item decoded as e says what does not fit). */
static int other_entity(const ddb_entity_desc *e, const ddb_item *it, void *out, ddb_arena *a, ddb_error *err)
{
    int rc = ddb_ent_from_item(e, it, a, out, err);
    return rc ? rc : ddbi_fail(err, DDB_EVALIDATION, "%s: the item at this key is another entity's", e->name);
}

/* A get's visitor: the record found, decoded straight from the backend's
 * memory into a struct (its type checked in the same walk), or the item
 * kept for the item path. */
typedef struct get_visit {
    ddbi_ent_reader *r;
    ddbi_ent_sink *s;
    void *out;          /* the caller's struct (another entity's item is decoded into it) */
    ddb_item *it;       /* an item handed over */
    char *got;          /* the struct the record was decoded into */
    ddb_ent_mask m;
} get_visit;

static int get_visited(void *ctx, const ddbi_rec *rec, ddb_item *item, ddb_error *err)
{
    get_visit *g = ctx;
    const ddb_entity_desc *e = g->s->e;
    if (!rec) {
        g->it = item;
        return DDB_OK;
    }
    bool other = false;
    char *got = ddb_arena_alloc(g->r->a, e->st->size);
    if (!got)
        return ddbi_fail_oom(err, __func__);
    memset(got, 0, e->st->size);
    memset(&g->m, 0, sizeof g->m);
    int rc = ddbi_ent_decode_record(g->r, g->s, rec, got, &g->m, &other, err);
    if (!rc && !other) {
        g->got = got;
        return DDB_OK;
    }
    /* another entity's item (none without a type: not found) */
    ddb_item *it;
    if (!rc && !(rc = ddbi_ent_record_item(e, rec, g->r->a, &it, err)) && ddb_item_get(it, e->table->type_attr))
        rc = other_entity(e, it, g->out, g->r->a, err);
    return rc;
}

int ddb_ent_read(ddb *db, const ddb_entity_desc *e, const void *key, const ddb_ent_read_opts *o, ddb_arena *a,
                 void *out, ddb_ent_mask *mask, ddb_error *err)
{
    o = ddbi_ent_opts_begin(o);
    if (!db || !e || !key || !out || !a)
        return ddbi_fail(err, DDB_EINVAL, "read: db, entity, key, out and arena are required");
    if (o->filter || o->count_only)
        return ddbi_fail(err, DDB_EINVAL, "%s: a get takes no filter and no count", e->name);
    ddbi_ent_sink sink = {.e = e};
    ddbi_ent_reader r;
    ddbi_ent_key kh; /* the key, on the stack */
    int rc = ddbi_ent_reader_init(&r, db, a, o, NULL, &sink, 1, err);
    if (!rc)
        rc = ddbi_ent_key_fill(e, key, -1, a, &kh, err);
    if (rc)
        return rc;
    ddb_item *k = &kh.item;
    ddbi_rec_page rp; /* field by field: its capacity is 7 KB */
    ddb_page *pg = &rp.page;
    rp.recs = NULL;
    pg->items = NULL;
    pg->count = pg->scanned_count = 0;
    pg->last_key = NULL;
    ddbi_ent_cap_clear(&pg->capacity);
    get_visit g = {.r = &r, .s = &sink, .out = out};
    ddbi_ent_ask ask;
    if (!(rc = ddbi_ent_ask_init(&ask, db, e, &sink, 1, NULL, o, false, a, err))) {
        if (e->n_shards) {
            /* only the shard items holding the projection's fields */
            rc = ddbi_ent_read_some_shards(db, e, k, ddbi_ent_shards_needed(e, o->fields), ask.projection, a,
                                           o->consistent, o->return_capacity, pg, err);
        } else {
            ddb_get_opts go = {.consistent = o->consistent, .return_capacity = o->return_capacity,
                               .projection = ask.projection};
            ddbi_rec_visitor v = {get_visited, &g};
            ddbi_rec rec;
            ddb_item *none;
            /* the record decoded inside the read (the capacity only when
             * asked for: the read zeroes it first) */
            rc = ddbi_get_record(db, e->table->def.name, k, &go, a, &v, &none, &rec,
                                 o->capacity ? &pg->capacity : NULL, err);
            if (rc == DDB_ENOTFOUND)
                rc = DDB_OK;
            const ddb_value *tv = rc || !g.it ? NULL : ddb_item_get(g.it, e->table->type_attr);
            if (tv && (tv->type != DDB_TS || strcmp(tv->u.s, e->name))) {
                rc = other_entity(e, g.it, out, a, err);
            } else if (!rc && g.it) {
                pg->items = &g.it;
                pg->count = pg->scanned_count = 1;
            }
        }
    }
    ddbi_ent_ask_done(&ask);
    char *got = g.got; /* the struct read */
    ddb_ent_mask m = g.m;
    if (!rc && got) {
        ddbi_ent_cap_merge(&r.cap, &pg->capacity);
    } else if (!rc && !(rc = ddbi_ent_reader_take(&r, pg, err)) && sink.count) {
        got = sink.items;
        m = sink.masks[0];
    }
    ddbi_ent_reader_finish(&r);
    if (rc)
        return rc;
    if (!got)
        return ddbi_fail(err, DDB_ENOTFOUND, "%s not found", e->name);
    memcpy(out, got, e->st->size);
    if (mask)
        *mask = m;
    return DDB_OK;
}
