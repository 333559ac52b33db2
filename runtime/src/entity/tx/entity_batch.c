/* Entity room: batch reads of one entity type: BatchGetItem (100 keys a
 * request; a sharded entity asks for its shard items in the same request,
 * only those holding the projection's fields, and they are decoded into
 * one struct).  Items the backend hands over as stored records
 * (api/records.h: the embedded engine, requests without projection) are
 * decoded straight into the structs (entity_record_decode.c).  Batch writes are
 * entity_batch_write.c.  Calls the record reads, the public batch API and
 * this room's marshalling, templates and keys. */
#include "entity/tx/entity_tx.h"

#include "core/error.h"

#include <string.h>

/* DynamoDB's limit per request: keys of BatchGetItem. */
#define BATCH_GET_MAX 100

/* What one batch read asks for: the shards of each entity (bit s = shard
 * s; unsharded: bit 0), the projection, the read's mode. */
typedef struct batch_ask {
    uint64_t shards;
    const ddb_expr *projection;
    bool consistent, projected;
    ddb_return_capacity mode;
} batch_ask;

/* A stored record of e's into slot (the shard items of one entity go into
 * the same slot); another entity's record is the item path's type error. */
static int from_record(const ddb_entity_desc *e, const ddbi_rec *rec, ddb_arena *a, const ddbi_ent_plan **plan,
                       void *slot, ddb_ent_mask *mask, ddb_error *err)
{
    bool other = false;
    ddb_item *it;
    int rc = *plan ? DDB_OK : ddbi_ent_plan_of(e, a, plan, err);
    if (!rc)
        rc = ddbi_ent_fields_from_record(*plan, rec, slot, a, mask, &other, err);
    if (!rc && other && !(rc = ddbi_ent_record_item(e, rec, a, &it, err)))
        rc = ddbi_ent_check_type(e, it, err);
    return rc;
}

static int batch_body(ddb *db, const ddb_entity_desc *e, const void *keys, size_t n, const batch_ask *q, ddb_arena *a,
                      void *out, ddb_ent_mask *masks, bool *found, ddb_capacity *cap, ddb_error *err)
{
    /* the shard items each entity needs, all in the same request */
    int which[DDB_ENT_MAX_SHARDS];
    size_t parts = 0;
    for (int s = 0; s < (e->n_shards ? e->n_shards : 1); s++)
        if (q->shards >> s & 1)
            which[parts++] = e->n_shards ? s : -1;
    size_t per = BATCH_GET_MAX / parts; /* entities per request */
    ddb_batch_get_op ops[BATCH_GET_MAX];
    ddb_item *items[BATCH_GET_MAX];
    ddbi_rec recs[BATCH_GET_MAX];
    const ddbi_ent_plan *plan = NULL;
    int rc = DDB_OK;
    for (size_t base = 0; base < n && !rc; base += per) {
        size_t m = n - base < per ? n - base : per;
        for (size_t i = 0; i < m * parts && !rc; i++) {
            ddb_item *k = NULL;
            const char *key = (const char *)keys + (base + i / parts) * e->st->size;
            if (!(rc = ddbi_ent_primary_key(e, key, which[i % parts], a, &k, err)))
                ops[i] = (ddb_batch_get_op){.table = e->table->def.name, .key = k, .consistent = q->consistent,
                                            .projection = q->projection};
        }
        ddb_capacity c;
        if (!rc && !(rc = ddbi_batch_get_records(db, ops, m * parts, a, items, recs, q->mode, &c, err)))
            ddbi_ent_cap_merge(cap, &c);
        for (size_t i = 0; i < m && !rc; i++) {
            char *slot = (char *)out + (base + i) * e->st->size;
            ddb_ent_mask mask = {{0}};
            memset(slot, 0, e->st->size);
            found[base + i] = false;
            for (size_t s = 0; s < parts && !rc; s++) {
                size_t j = i * parts + s;
                if (recs[j].p) {
                    found[base + i] = true;
                    rc = from_record(e, &recs[j], a, &plan, slot, &mask, err);
                } else if (items[j] && !(rc = ddbi_ent_check_type(e, items[j], err))) {
                    found[base + i] = true;
                    rc = ddbi_ent_fields_from_item(e, items[j], slot, a, true, &mask, err);
                }
            }
            if (!rc && found[base + i] && !q->projected)
                rc = ddbi_ent_check_required(e, &mask, err);
            if (masks)
                masks[base + i] = mask;
        }
    }
    return rc;
}

int ddb_ent_batch_get(ddb *db, const ddb_entity_desc *e, const void *keys, size_t n, const ddb_ent_opts *o,
                      ddb_arena *a, void *out, bool *found, ddb_capacity *cap, ddb_error *err)
{
    if (cap)
        memset(cap, 0, sizeof *cap);
    if (!db || !e || (n && (!keys || !out || !found)) || !a)
        return ddbi_fail(err, DDB_EINVAL, "batch get: db, entity, keys, out, found and arena are required");
    int rc = ddbi_ent_check_shards(e, err);
    if (rc)
        return rc;
    batch_ask q = {.shards = e->n_shards ? ddbi_ent_all_shards(e) : 1, .consistent = o && o->consistent,
                   .mode = ddbi_ent_cap_mode(o)};
    return batch_body(db, e, keys, n, &q, a, out, NULL, found, cap, err);
}

int ddb_ent_batch_read(ddb *db, const ddb_entity_desc *e, const void *keys, size_t n, const ddb_ent_read_opts *o,
                       ddb_arena *a, void *out, ddb_ent_mask *masks, bool *found, ddb_error *err)
{
    o = ddbi_ent_opts_begin(o);
    if (!db || !e || (n && (!keys || !out || !found)) || !a)
        return ddbi_fail(err, DDB_EINVAL, "batch get: db, entity, keys, out, found and arena are required");
    if (o->filter || o->count_only || o->cursor || o->member_fields)
        return ddbi_fail(err, DDB_EINVAL, "%s: a batch get takes no filter, count, cursor or member fields", e->name);
    ddbi_ent_sink sink = {.e = e, .fields = o->fields};
    ddbi_ent_ask ask;
    int rc = ddbi_ent_check_shards(e, err);
    if (!rc && !(rc = ddbi_ent_ask_init(&ask, db, e, &sink, 1, NULL, o, false, a, err))) {
        batch_ask q = {.shards = e->n_shards ? ddbi_ent_shards_needed(e, o->fields) : 1,
                       .projection = ask.projection, .consistent = o->consistent, .projected = o->fields != NULL,
                       .mode = o->return_capacity};
        rc = batch_body(db, e, keys, n, &q, a, out, masks, found, o->capacity, err);
        ddbi_ent_ask_done(&ask);
    }
    return rc;
}
