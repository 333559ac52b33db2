/* Items: a top-level map plus the arena it builds in. */
#include "core/value.h"

#include "core/error.h"

#include <string.h>

ddb_item *ddb_item_new(ddb_arena *a)
{
    ddb_item *it = ddb_arena_alloc(a, sizeof *it);
    if (!it)
        return NULL;
    memset(it, 0, sizeof *it);
    it->map.type = DDB_TM;
    it->arena = a;
    return it;
}

ddb_item *ddb_item_from_map(ddb_arena *a, ddb_value *map)
{
    if (!map || map->type != DDB_TM)
        return NULL;
    ddb_item *it = ddb_arena_alloc(a, sizeof *it);
    if (!it)
        return NULL;
    it->map = *map;
    it->arena = a;
    return it;
}

ddb_arena *ddb_item_arena(const ddb_item *it)
{
    return it->arena;
}

const ddb_value *ddb_item_map(const ddb_item *it)
{
    return &it->map;
}

size_t ddb_item_count(const ddb_item *it)
{
    return it->map.len;
}

const ddb_value *ddb_item_get(const ddb_item *it, const char *name)
{
    return it ? ddb_map_get(&it->map, name) : NULL;
}

int ddb_item_set(ddb_item *it, const char *name, ddb_value *v)
{
    if (!it || !v)
        return DDB_ENOMEM; /* a NULL value comes from a failed constructor */
    return ddb_map_set(it->arena, &it->map, name, v);
}

int ddb_item_set_s(ddb_item *it, const char *name, const char *s)
{
    return s ? ddb_item_set(it, name, ddb_v_str(it->arena, s)) : DDB_EINVAL;
}

int ddb_item_set_i64(ddb_item *it, const char *name, int64_t v)
{
    return ddb_item_set(it, name, ddb_v_i64(it->arena, v));
}

int ddb_item_set_n(ddb_item *it, const char *name, const char *text, ddb_error *err)
{
    ddb_value *v;
    int rc = ddb_v_n(it->arena, text, &v, err);
    return rc ? rc : ddb_item_set(it, name, v);
}

int ddb_item_set_b(ddb_item *it, const char *name, const void *b, size_t len)
{
    return ddb_item_set(it, name, ddb_v_b(it->arena, b, len));
}

int ddb_item_set_bool(ddb_item *it, const char *name, bool v)
{
    return ddb_item_set(it, name, ddb_v_bool(it->arena, v));
}

int ddb_item_remove(ddb_item *it, const char *name)
{
    return ddb_map_remove(&it->map, name);
}

ddb_item *ddb_item_copy(ddb_arena *a, const ddb_item *it)
{
    ddb_value *m = ddb_value_copy(a, &it->map);
    return m ? ddb_item_from_map(a, m) : NULL;
}

size_t ddb_item_size(const ddb_item *it)
{
    size_t n = 0;
    for (uint32_t i = 0; i < it->map.len; i++)
        n += it->map.u.m[i].name_len + ddb_value_size(it->map.u.m[i].value);
    return n;
}
