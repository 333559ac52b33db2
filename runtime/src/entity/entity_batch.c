/* Entity room: batch reads of one entity type: BatchGetItem (100 keys a
 * request; a sharded entity is read entity by entity).  Batch writes are
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
    if (e->n_shards) { /* each logical item is a query over its shards */
        for (size_t i = 0; i < n && !rc; i++) {
            ddb_capacity c;
            rc = ddb_ent_get(db, e, (const char *)keys + i * e->st->size, (char *)out + i * e->st->size, a, o, &c,
                             err);
            ddbi_ent_cap_merge(cap, &c);
            found[i] = rc == DDB_OK;
            if (rc == DDB_ENOTFOUND)
                rc = DDB_OK;
        }
        return rc;
    }
    ddb_batch_get_op ops[BATCH_GET_MAX];
    ddb_item *items[BATCH_GET_MAX];
    for (size_t base = 0; base < n && !rc; base += BATCH_GET_MAX) {
        size_t m = n - base < BATCH_GET_MAX ? n - base : BATCH_GET_MAX;
        for (size_t i = 0; i < m && !rc; i++) {
            ddb_item *k = NULL;
            if (!(rc = ddbi_ent_primary_key(e, (const char *)keys + (base + i) * e->st->size, -1, a, &k, err)))
                ops[i] = (ddb_batch_get_op){.table = e->table->def.name, .key = k, .consistent = o && o->consistent};
        }
        ddb_capacity c;
        if (!rc && !(rc = ddb_batch_get(db, ops, m, a, items, ddbi_ent_cap_mode(o), &c, err)))
            ddbi_ent_cap_merge(cap, &c);
        for (size_t i = 0; i < m && !rc; i++) {
            char *slot = (char *)out + (base + i) * e->st->size;
            found[base + i] = items[i] != NULL;
            if (items[i])
                rc = ddb_ent_from_item(e, items[i], slot, a, err);
            else
                memset(slot, 0, e->st->size);
        }
    }
    return rc;
}
