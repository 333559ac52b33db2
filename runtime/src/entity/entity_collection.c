/* Entity room: collection queries (ddb_ent_query_collection): every item of
 * one partition, sorted by type into one arena array per member entity.
 * Calls the public Query and this room's templates and marshalling. */
#include "entity/entity_internal.h"

#include "core/error.h"

#include <string.h>

/* The most member types one collection may have. */
#define COLLECTION_MAX_MEMBERS 64

int ddb_ent_query_collection(ddb *db, const ddb_collection_desc *c, uint16_t member_index, const void *obj,
                             void *result, ddb_arena *a, const ddb_ent_opts *o, ddb_capacity *cap, ddb_error *err)
{
    if (cap)
        memset(cap, 0, sizeof *cap);
    if (!db || !c || !obj || !result || !a || member_index >= c->n_members)
        return ddbi_fail(err, DDB_EINVAL, "collection query: db, collection, object, result and arena are required");
    if (c->n_members > COLLECTION_MAX_MEMBERS)
        return ddbi_fail(err, DDB_ELIMIT, "collection %s has %u member types; at most %d are allowed", c->name,
                         (unsigned)c->n_members, COLLECTION_MAX_MEMBERS);
    int rc = DDB_OK;
    for (uint16_t m = 0; m < c->n_members && !rc; m++)
        rc = ddbi_ent_check_shards(c->members[m].entity, err);
    if (rc)
        return rc;
    const ddb_collection_member *lead = &c->members[member_index];
    if (lead->key >= lead->entity->n_keys)
        return ddbi_fail(err, DDB_EINVAL, "collection %s: %s has no key %u", c->name, lead->entity->name, lead->key);
    const ddb_key_desc *kd = &lead->entity->keys[lead->key];
    ddb_value *pk;
    if ((rc = ddb_ent_render(lead->entity, &kd->pk, obj, a, &pk, err)))
        return rc;
    if (!pk)
        return ddbi_fail(err, DDB_EVALIDATION, "%s: a partition field of the collection query is unset", c->name);
    size_t caps[COLLECTION_MAX_MEMBERS] = {0};
    for (uint16_t m = 0; m < c->n_members; m++) {
        *(void **)((char *)result + c->members[m].items_offset) = NULL;
        *(size_t *)((char *)result + c->members[m].count_offset) = 0;
    }
    ddb_query_params qp = {.table = lead->entity->table->def.name, .index = c->index, .pk = pk,
                           .consistent = o && o->consistent, .return_capacity = ddbi_ent_cap_mode(o)};
    ddb_page pg;
    do {
        if ((rc = ddb_query(db, &qp, a, &pg, err)))
            return rc;
        ddbi_ent_cap_merge(cap, &pg.capacity);
        for (size_t i = 0; i < pg.count; i++) {
            const ddb_value *tv = ddb_item_get(pg.items[i], lead->entity->table->type_attr);
            if (!tv || tv->type != DDB_TS)
                continue;
            for (uint16_t m = 0; m < c->n_members; m++) {
                const ddb_collection_member *mb = &c->members[m];
                if (strcmp(tv->u.s, mb->entity->name) != 0)
                    continue;
                char **arr = (char **)((char *)result + mb->items_offset);
                size_t *cnt = (size_t *)((char *)result + mb->count_offset);
                size_t sz = mb->entity->st->size;
                if (*cnt == caps[m]) {
                    size_t nc = caps[m] ? caps[m] * 2 : 8;
                    char *na = ddb_arena_alloc(a, nc * sz);
                    if (!na)
                        return ddbi_fail_oom(err, __func__);
                    if (*cnt)
                        memcpy(na, *arr, *cnt * sz);
                    *arr = na;
                    caps[m] = nc;
                }
                if ((rc = ddb_ent_from_item(mb->entity, pg.items[i], *arr + *cnt * sz, a, err)))
                    return rc;
                (*cnt)++;
                break;
            }
        }
        qp.start_key = pg.last_key;
    } while (pg.last_key);
    return DDB_OK;
}
