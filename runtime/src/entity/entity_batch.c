/* Entity room: batch reads of one entity type: BatchGetItem (100 keys a
 * request; a sharded entity asks for all its shard items in the same
 * request and they are decoded into one struct).  Batch writes are
 * entity_batch_write.c.  Calls the public batch API and this room's
 * marshalling, templates and keys. */
#include "entity/entity_internal.h"

#include "core/error.h"

#include <string.h>

/* DynamoDB's limit per request: keys of BatchGetItem. */
#define BATCH_GET_MAX 100

int ddb_ent_batch_get(ddb *db, const ddb_entity_desc *e, const void *keys, size_t n, void *out, bool *found,
                      ddb_arena *a, const ddb_ent_opts *o, ddb_capacity *cap, ddb_error *err)
{
    if (cap)
        memset(cap, 0, sizeof *cap);
    if (!db || !e || (n && (!keys || !out || !found)) || !a)
        return ddbi_fail(err, DDB_EINVAL, "batch get: db, entity, keys, out, found and arena are required");
    int rc = ddbi_ent_check_shards(e, err);
    if (rc)
        return rc;
    /* a sharded entity is its shard items: parts keys per entity, all in the batch */
    int parts = ddbi_ent_parts(e);
    size_t per = BATCH_GET_MAX / (size_t)parts; /* entities per request */
    ddb_batch_get_op ops[BATCH_GET_MAX];
    ddb_item *items[BATCH_GET_MAX];
    for (size_t base = 0; base < n && !rc; base += per) {
        size_t m = n - base < per ? n - base : per;
        for (size_t i = 0; i < m * (size_t)parts && !rc; i++) {
            ddb_item *k = NULL;
            const char *key = (const char *)keys + (base + i / (size_t)parts) * e->st->size;
            if (!(rc = ddbi_ent_primary_key(e, key, e->n_shards ? (int)(i % (size_t)parts) : -1, a, &k, err)))
                ops[i] = (ddb_batch_get_op){.table = e->table->def.name, .key = k, .consistent = o && o->consistent};
        }
        ddb_capacity c;
        if (!rc && !(rc = ddb_batch_get(db, ops, m * (size_t)parts, a, items, ddbi_ent_cap_mode(o), &c, err)))
            ddbi_ent_cap_merge(cap, &c);
        for (size_t i = 0; i < m && !rc; i++) {
            char *slot = (char *)out + (base + i) * e->st->size;
            ddb_ent_mask mask = {{0}};
            memset(slot, 0, e->st->size);
            found[base + i] = false;
            for (int s = 0; s < parts && !rc; s++) {
                ddb_item *it = items[i * (size_t)parts + (size_t)s];
                if (it && !(rc = ddbi_ent_check_type(e, it, err))) {
                    found[base + i] = true;
                    rc = ddbi_ent_fields_from_item(e, it, slot, a, true, &mask, err);
                }
            }
            if (!rc && found[base + i])
                rc = ddbi_ent_check_required(e, &mask, err);
        }
    }
    return rc;
}
