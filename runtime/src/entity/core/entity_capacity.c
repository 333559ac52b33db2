/* Entity room: consumed capacity of one entity operation, summed over the
 * several requests it may make (shards, counters, refetches).  Calls
 * nothing but libc. */
#include "entity/core/entity_core.h"

#include <stddef.h>
#include <string.h>

void ddbi_ent_cap_merge(ddb_capacity *dst, const ddb_capacity *src)
{
    if (!dst)
        return;
    dst->total += src->total;
    dst->read += src->read;
    dst->write += src->write;
    dst->table_read += src->table_read;
    dst->table_write += src->table_write;
    for (size_t i = 0; i < src->n_indexes; i++) {
        size_t j = 0;
        while (j < dst->n_indexes && strcmp(dst->indexes[j].name, src->indexes[i].name) != 0)
            j++;
        if (j == dst->n_indexes) {
            if (j == sizeof dst->indexes / sizeof *dst->indexes)
                continue;
            dst->indexes[dst->n_indexes++] = src->indexes[i];
            continue;
        }
        dst->indexes[j].read += src->indexes[i].read;
        dst->indexes[j].write += src->indexes[i].write;
    }
}

void ddbi_ent_cap_clear(ddb_capacity *c)
{
    memset(c, 0, offsetof(ddb_capacity, indexes));
}

void ddbi_ent_cap_copy(ddb_capacity *dst, const ddb_capacity *src)
{
    memcpy(dst, src, offsetof(ddb_capacity, indexes));
    memcpy(dst->indexes, src->indexes, src->n_indexes * sizeof *src->indexes);
}

ddb_return_capacity ddbi_ent_cap_mode(const ddb_ent_opts *o)
{
    return o ? o->return_capacity : DDB_CAPACITY_NONE;
}
