/* Entity room: collections (several entity types in one partition) read a
 * page at a time (ddb_ent_collection_page) or by an iterator over every
 * page, the whole partition at once (ddb_ent_query_collection, the older
 * interface), and table scans grouped by type the same way
 * (ddb_ent_scan_table).  The reader (entity_page_decode.c) sorts the items into
 * one arena array per member type and merges shard items; a write-sharded
 * partition is read from every shard (entity_scatter.c).  Calls the
 * public Query and Scan, this room's templates, cursors, reader and
 * scatter-gather.  Options as for entity reads: a projection per member
 * type (member_fields) and a filter over stored attributes. */
#include "entity/reads/entity_reads.h"

#include "core/error.h"

#include <string.h>

/* A reader with one sink per member of c; *max_shards: the most shards of one. */
static int members_reader(ddbi_ent_reader *r, ddb *db, const ddb_collection_desc *c, const ddb_ent_read_opts *o,
                          ddb_arena *a, ddbi_ent_sink *sinks, uint32_t *max_shards, ddb_error *err)
{
    if (c->n_members > DDBI_ENT_MAX_SINKS)
        return ddbi_fail(err, DDB_ELIMIT, "collection %s has %u member types; at most %d are allowed", c->name,
                         (unsigned)c->n_members, DDBI_ENT_MAX_SINKS);
    *max_shards = 1;
    for (uint16_t m = 0; m < c->n_members; m++) {
        if (!c->members[m].entity)
            return ddbi_fail(err, DDB_EINVAL, "collection %s: member %u has no entity", c->name, (unsigned)m);
        sinks[m] = (ddbi_ent_sink){.e = c->members[m].entity};
        if (c->members[m].entity->n_shards > *max_shards)
            *max_shards = c->members[m].entity->n_shards;
    }
    return ddbi_ent_reader_init(r, db, a, o, c->index, sinks, c->n_members, err);
}

/* The sinks into the caller's result struct, and the page's totals into info. */
static int fill_result(const ddb_collection_desc *c, ddbi_ent_reader *r, void *result, ddb_ent_page_info *info,
                       ddb_error *err)
{
    ddbi_ent_reader_finish(r);
    size_t total = 0;
    for (uint16_t m = 0; m < c->n_members; m++) {
        const ddb_collection_member *mb = &c->members[m];
        ddbi_ent_sink *s = &r->sinks[m];
        for (size_t i = 0; s->fields && !r->o->count_only && i < s->count; i++) /* another type's projection */
            ddbi_ent_mask_trim(s->e, s->items + i * s->e->st->size, &s->masks[i], s->fields);
        *(void **)((char *)result + mb->items_offset) = r->o->count_only ? NULL : s->items;
        *(size_t *)((char *)result + mb->count_offset) = s->count;
        if (mb->masks_offset)
            *(ddb_ent_mask **)((char *)result + mb->masks_offset) = r->o->count_only ? NULL : s->masks;
        total += s->count;
    }
    if (!info)
        return DDB_OK;
    info->count = total;
    info->scanned_count = r->scanned;
    info->cursor = NULL;
    info->order = r->o->count_only ? NULL : r->order;
    return r->last_key ? ddbi_ent_cursor_encode(r->a, r->last_key, &info->cursor, err) : DDB_OK;
}

static uint32_t limit_of(uint32_t page_size, uint32_t max_shards)
{
    uint64_t n = (uint64_t)page_size * max_shards;
    return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

/* Query the partition of c; all_pages: every page into the same sinks. */
static int collection_read(ddb *db, const ddb_collection_desc *c, uint16_t member_index, const void *obj,
                           const ddb_ent_range *range, const ddb_ent_read_opts *o, bool all_pages, ddb_arena *a,
                           void *result, ddb_ent_page_info *info, ddb_error *err)
{
    o = ddbi_ent_opts_begin(o);
    if (info)
        memset(info, 0, sizeof *info);
    if (!db || !c || !obj || !result || !a || member_index >= c->n_members)
        return ddbi_fail(err, DDB_EINVAL, "collection query: db, collection, object, result and arena are required");
    if (o->fields)
        return ddbi_fail(err, DDB_EINVAL, "collection %s: project with member_fields (a mask per member type)",
                         c->name);
    ddbi_ent_sink sinks[DDBI_ENT_MAX_SINKS];
    uint32_t max_shards;
    ddbi_ent_reader r;
    int rc = members_reader(&r, db, c, o, a, sinks, &max_shards, err);
    if (rc)
        return rc;
    const ddb_collection_member *lead = &c->members[member_index];
    if (lead->key >= lead->entity->n_keys)
        return ddbi_fail(err, DDB_EINVAL, "collection %s: %s has no key %u", c->name, lead->entity->name, lead->key);
    const ddb_key_desc *kd = &lead->entity->keys[lead->key];
    bool sharded = ddbi_ent_write_shards(lead->entity, &kd->pk) > 1; /* every write shard: entity_scatter.c */
    ddb_value *pk = NULL;
    if (!sharded && (rc = ddb_ent_render(lead->entity, &kd->pk, obj, a, &pk, err)))
        return rc;
    if (!sharded && !pk)
        return ddbi_fail(err, DDB_EVALIDATION, "%s: a partition field of the collection query is unset", c->name);
    ddb_query_params qp = {.table = lead->entity->table->def.name, .index = c->index, .pk = pk,
                           .backward = o->backward, .limit = limit_of(o->page_size, c->index ? 1 : max_shards),
                           .consistent = o->consistent, .return_capacity = o->return_capacity};
    if (range && range->typed) {
        const ddb_collection_member *m = range->member < c->n_members ? &c->members[range->member] : NULL;
        if (!m || range->kc.key != m->key || !range->kc.obj)
            return ddbi_fail(err, DDB_EINVAL, "collection %s: a typed range names member %u and its key on the index",
                             c->name, (unsigned)range->member);
        if ((rc = ddbi_ent_sk_condition(m->entity, &range->kc, a, &qp, err)))
            return rc;
    } else if (range) {
        if ((unsigned)range->op > DDB_SK_BEGINS_WITH || (range->op && !range->lo) ||
            (range->op == DDB_SK_BETWEEN && !range->hi))
            return ddbi_fail(err, DDB_EINVAL, "collection %s: a range needs its operator's values", c->name);
        qp.sk_op = range->op;
        qp.sk1 = range->lo;
        qp.sk2 = range->hi;
    }
    if (sharded) {
        const char *next;
        rc = ddbi_ent_scatter_run(&r, lead->entity, &kd->pk, obj, kd->sk_attr, &qp, all_pages, &next, err);
        if (!rc && !(rc = fill_result(c, &r, result, info, err)) && info)
            info->cursor = next;
        return rc;
    }
    if (o->cursor && (rc = ddbi_ent_cursor_decode(a, o->cursor, (ddb_item **)&qp.start_key, err)))
        return rc;
    if (!c->index && !all_pages)
        r.max_entities = o->page_size; /* Limit counted every member as sharded */
    rc = ddbi_ent_reader_run(&r, lead->entity, false, &qp, NULL, all_pages, err);
    return rc ? rc : fill_result(c, &r, result, info, err);
}

int ddb_ent_collection_page(ddb *db, const ddb_collection_desc *c, uint16_t member_index, const void *obj,
                            const ddb_ent_range *range, const ddb_ent_read_opts *o, ddb_arena *a, void *result,
                            ddb_ent_page_info *info, ddb_error *err)
{
    return collection_read(db, c, member_index, obj, range, o, o && o->all_pages, a, result, info, err);
}

int ddb_ent_query_collection(ddb *db, const ddb_collection_desc *c, uint16_t member_index, const void *obj,
                             const ddb_ent_opts *o, ddb_arena *a, void *result, ddb_capacity *cap, ddb_error *err)
{
    ddb_ent_read_opts ro = {.consistent = o && o->consistent, .return_capacity = ddbi_ent_cap_mode(o),
                            .capacity = cap};
    return collection_read(db, c, member_index, obj, NULL, &ro, true, a, result, NULL, err);
}

int ddb_ent_scan_table(ddb *db, const ddb_collection_desc *c, uint32_t segment, uint32_t total_segments,
                       const ddb_ent_read_opts *o, ddb_arena *a, void *result, ddb_ent_page_info *info,
                       ddb_error *err)
{
    o = ddbi_ent_opts_begin(o);
    if (info)
        memset(info, 0, sizeof *info);
    if (!db || !c || !c->n_members || !result || !a)
        return ddbi_fail(err, DDB_EINVAL, "table scan: db, member types, result and arena are required");
    if (o->fields || o->backward)
        return ddbi_fail(err, DDB_EINVAL,
                         "table scan %s: takes no direction, and projects with member_fields (a mask per member type)",
                         c->name);
    ddbi_ent_sink sinks[DDBI_ENT_MAX_SINKS];
    uint32_t max_shards;
    ddbi_ent_reader r;
    int rc = members_reader(&r, db, c, o, a, sinks, &max_shards, err);
    if (rc)
        return rc;
    const ddb_entity_desc *e = c->members[0].entity;
    ddb_scan_params sp = {.table = e->table->def.name, .index = c->index,
                          .limit = limit_of(o->page_size, c->index ? 1 : max_shards), .consistent = o->consistent,
                          .segment = segment, .total_segments = total_segments,
                          .return_capacity = o->return_capacity};
    if (o->cursor && (rc = ddbi_ent_cursor_decode(a, o->cursor, (ddb_item **)&sp.start_key, err)))
        return rc;
    if (!c->index && !o->all_pages)
        r.max_entities = o->page_size; /* Limit counted every member as sharded */
    rc = ddbi_ent_reader_run(&r, e, false, NULL, &sp, o->all_pages, err);
    return rc ? rc : fill_result(c, &r, result, info, err);
}

void ddb_ent_collection_iter_init(ddb_ent_collection_iter *it, ddb *db, const ddb_collection_desc *c,
                                  uint16_t member_index, const void *obj, const ddb_ent_range *range,
                                  const ddb_ent_read_opts *o)
{
    memset(it, 0, sizeof *it);
    it->db = db;
    it->c = c;
    it->member_index = member_index;
    it->obj = obj;
    it->range = range;
    ddb_ent_pages_init(&it->pages, o);
}

int ddb_ent_collection_next(ddb_ent_collection_iter *it, ddb_arena *a, void *result, ddb_error *err)
{
    if (!it)
        return ddbi_fail(err, DDB_EINVAL, "collection iterator: it is required");
    it->has_page = false;
    if (!ddb_ent_pages_more(&it->pages))
        return DDB_OK;
    int rc = ddb_ent_collection_page(it->db, it->c, it->member_index, it->obj, it->range, &it->pages.opts, a, result,
                                     &it->info, err);
    rc = ddb_ent_pages_after(&it->pages, rc, rc ? NULL : it->info.cursor, err);
    it->has_page = it->pages.has_page;
    return rc;
}

void ddb_ent_collection_iter_done(ddb_ent_collection_iter *it)
{
    if (it)
        ddb_ent_pages_done(&it->pages);
}
