/* ProjectionExpression (and the UPDATED_OLD / UPDATED_NEW views of an
 * update): copy the selected document paths of an item into a new item. */
#include "expr/expr.h"

#include "core/error.h"
#include "core/value.h"

#include <string.h>

int ddbi_expr_map_setn(ddb_arena *a, ddb_value *map, const char *name, size_t len, ddb_value *v)
{
    if (len > UINT32_MAX)
        return DDB_EINVAL;
    long i = ddbi_map_find(map, name, len);
    if (i >= 0) {
        map->u.m[i].value = v;
        return DDB_OK;
    }
    size_t at = (size_t)(-i - 1);
    if (map->len == map->cap) {
        uint32_t nc = map->cap ? map->cap * 2 : 4;
        ddb_attr *m = ddb_arena_alloc(a, nc * sizeof *m);
        if (!m)
            return DDB_ENOMEM;
        if (map->len)
            memcpy(m, map->u.m, map->len * sizeof *m);
        map->u.m = m;
        map->cap = nc;
    }
    char *copy = ddb_arena_alloc(a, len + 1);
    if (!copy)
        return DDB_ENOMEM;
    memcpy(copy, name, len);
    copy[len] = 0;
    memmove(&map->u.m[at + 1], &map->u.m[at], (map->len - at) * sizeof *map->u.m);
    map->u.m[at] = (ddb_attr){copy, (uint32_t)len, v};
    map->len++;
    return DDB_OK;
}

bool ddbi_expr_map_removen(ddb_value *map, const char *name, size_t len)
{
    if (map->type != DDB_TM)
        return false;
    long i = ddbi_map_find(map, name, len);
    if (i < 0)
        return false;
    memmove(&map->u.m[i], &map->u.m[i + 1], (map->len - (size_t)i - 1) * sizeof *map->u.m);
    map->len--;
    return true;
}

ddb_value *ddbi_expr_project_value(ddb_arena *a, const ddb_value *v, const expr_pnode *node, bool *nomem)
{
    if (node->leaf) {
        ddb_value *c = ddb_value_copy(a, v);
        if (!c)
            *nomem = true;
        return c;
    }
    ddb_value *out = NULL;
    for (uint32_t i = 0; i < node->n; i++) {
        const expr_pnode *k = &node->kids[i];
        const ddb_value *child;
        if (k->name)
            child = v->type == DDB_TM ? ddbi_map_getn(v, k->name, k->len) : NULL;
        else
            child = v->type == DDB_TL && k->index < v->len ? v->u.l[k->index] : NULL;
        if (!child)
            continue;
        ddb_value *r = ddbi_expr_project_value(a, child, k, nomem);
        if (!r) {
            if (*nomem)
                return NULL;
            continue;
        }
        if (!out && !(out = v->type == DDB_TM ? ddb_v_map(a) : ddb_v_list(a))) {
            *nomem = true;
            return NULL;
        }
        int rc = k->name ? ddbi_expr_map_setn(a, out, k->name, k->len, r) : ddb_list_append(a, out, r);
        if (rc != DDB_OK) {
            *nomem = true;
            return NULL;
        }
    }
    return out;
}

static int project(const ddb_expr *e, const ddb_item *item, ddb_arena *a, ddb_item **out, bool empty_item,
                   ddb_error *err)
{
    bool nomem = false;
    ddb_value *m = item ? ddbi_expr_project_value(a, ddb_item_map(item), &e->ptree, &nomem) : NULL;
    if (nomem)
        return ddbi_fail_oom(err, "projecting an item");
    if (m)
        *out = ddb_item_from_map(a, m);
    else
        *out = empty_item ? ddb_item_new(a) : NULL;
    if ((m || empty_item) && !*out)
        return ddbi_fail_oom(err, "projecting an item");
    return DDB_OK;
}

int ddbi_expr_project(const ddb_expr *e, const ddb_item *item, ddb_arena *a, ddb_item **out, ddb_error *err)
{
    if (out)
        *out = NULL;
    if (!e || e->kind != DDB_EXPR_PROJECTION || !a || !out)
        return ddbi_fail(err, DDB_EINVAL, "ddbi_expr_project needs a projection expression, an arena and out");
    return project(e, item, a, out, true, err);
}

int ddbi_expr_updated_attributes(const ddb_expr *e, const ddb_item *item, ddb_arena *a, ddb_item **out,
                                ddb_error *err)
{
    if (out)
        *out = NULL;
    if (!e || (e->kind != DDB_EXPR_UPDATE && e->kind != DDB_EXPR_PROJECTION) || !a || !out)
        return ddbi_fail(err, DDB_EINVAL, "ddbi_expr_updated_attributes needs an update expression, an arena and out");
    return project(e, item, a, out, false, err);
}
