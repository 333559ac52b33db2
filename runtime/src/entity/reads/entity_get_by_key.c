/* Entity room: ddb_ent_get, one entity by its primary key with the plain
 * entity options (the typed reads' get with read options is ddb_ent_read in
 * entity_typed_reads.c); a sharded entity's shard items are read and merged.  The
 * writes use it to load the stored entity (unique fields, returned old
 * values).  Calls the public GetItem and this room's keys and shard reader. */
#include "entity/reads/entity_reads.h"

#include "core/error.h"

#include <string.h>

int ddb_ent_get(ddb *db, const ddb_entity_desc *e, const void *key, const ddb_ent_opts *o, ddb_arena *a, void *out,
                ddb_capacity *cap, ddb_error *err)
{
    if (cap)
        memset(cap, 0, sizeof *cap);
    if (!db || !e || !key || !out || !a)
        return ddbi_fail(err, DDB_EINVAL, "get: db, entity, key, out and arena are required");
    ddb_item *k = NULL;
    int rc = ddbi_ent_check_shards(e, err);
    if (!rc)
        rc = ddbi_ent_primary_key(e, key, -1, a, &k, err);
    if (rc)
        return rc;
    ddb_item *it = NULL;
    if (!e->n_shards) {
        ddb_get_opts go = {.consistent = o && o->consistent, .return_capacity = ddbi_ent_cap_mode(o)};
        ddb_capacity c;
        rc = ddb_get_item(db, e->table->def.name, k, &go, a, &it, &c, err);
        ddbi_ent_cap_merge(cap, &c);
        if (rc)
            return rc == DDB_ENOTFOUND ? ddbi_fail(err, rc, "%s not found", e->name) : rc;
    } else {
        ddb_page pg;
        if ((rc = ddbi_ent_read_shards(db, e, k, a, o && o->consistent, ddbi_ent_cap_mode(o), &pg, err)))
            return rc;
        ddbi_ent_cap_merge(cap, &pg.capacity);
        if (!pg.count)
            return ddbi_fail(err, DDB_ENOTFOUND, "%s not found", e->name);
        if ((rc = ddbi_ent_merge_shards(a, pg.items, pg.count, &it, err)))
            return rc;
    }
    return ddb_ent_from_item(e, it, a, out, err);
}

/* The stored entity of key into a new struct in a (NULL when absent), read
 * consistently: the writes compare against it. */
int ddbi_ent_read_old(ddb *db, const ddb_entity_desc *e, const void *key, ddb_arena *a, void **old, ddb_error *err)
{
    *old = ddb_arena_alloc(a, e->st->size);
    if (!*old)
        return ddbi_fail_oom(err, __func__);
    int rc = ddb_ent_get(db, e, key, &(ddb_ent_opts){.consistent = true}, a, *old, NULL, err);
    if (rc == DDB_ENOTFOUND) {
        *old = NULL;
        return DDB_OK;
    }
    return rc ? ddbi_ent_fail_within(err, rc, "%s: reading the stored item", e->name) : DDB_OK;
}
