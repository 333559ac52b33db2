/* Entity room: condition, update and filter expressions built as text with
 * "#nK" names and ":vK" values, then prepared once per handle through its
 * expression cache.  Calls the public item and expression API and
 * api/expr_cache.h. */
#include "entity/core/entity_core.h"

#include "api/expr_cache.h"
#include "core/error.h"

#include <stdio.h>
#include <string.h>

int ddbi_exprb_init(ddbi_exprb *x, ddb *db, ddb_arena *a, ddb_error *err)
{
    memset(x, 0, sizeof *x);
    x->db = db;
    x->a = a;
    x->names = ddb_item_new(a);
    x->values = ddb_item_new(a);
    return x->names && x->values ? DDB_OK : ddbi_fail_oom(err, __func__);
}

/* A copy of ref in x's arena. */
static const char *keep(ddbi_exprb *x, const char *ref)
{
    char *r = ddb_arena_alloc(x->a, strlen(ref) + 1);
    if (r)
        strcpy(r, ref);
    return r;
}

const char *ddbi_exprb_name(ddbi_exprb *x, const char *attr)
{
    char ref[16];
    snprintf(ref, sizeof ref, "#n%d", x->n++);
    return ddb_item_set_s(x->names, ref, attr) ? NULL : keep(x, ref);
}

const char *ddbi_exprb_value(ddbi_exprb *x, ddb_value *v)
{
    char ref[16];
    snprintf(ref, sizeof ref, ":v%d", x->n++);
    return !v || ddb_item_set(x->values, ref, v) ? NULL : keep(x, ref);
}

int ddbi_exprb_put(ddbi_exprb *x, const char *s)
{
    return ddbi_buf_put(&x->text, s, strlen(s));
}

const ddb_item *ddbi_exprb_values(const ddbi_exprb *x)
{
    return ddb_item_count(x->values) ? x->values : NULL;
}

int ddbi_exprb_prepare(ddbi_exprb *x, ddb_expr_kind kind, const ddb_expr **out, ddb_error *err)
{
    *out = NULL;
    if (!x->text.len)
        return DDB_OK;
    if (ddbi_buf_put(&x->text, "", 1))
        return ddbi_fail_oom(err, __func__);
    ddb_expr *owned = NULL;
    int rc = ddbi_expr_cached(x->db, kind, (const char *)x->text.p, ddb_item_count(x->names) ? x->names : NULL, out,
                              &owned, err);
    if (owned && x->nowned < (int)(sizeof x->owned / sizeof *x->owned))
        x->owned[x->nowned++] = owned;
    else if (owned) {
        ddb_expr_free(owned);
        return ddbi_fail(err, DDB_ELIMIT, "too many uncached expressions in one call (at most %d)",
                         (int)(sizeof x->owned / sizeof *x->owned));
    }
    return rc;
}

void ddbi_exprb_done(ddbi_exprb *x)
{
    for (int i = 0; i < x->nowned; i++)
        ddb_expr_free(x->owned[i]);
    x->nowned = 0;
    ddbi_buf_free(&x->text);
}

/* Appends a caller's condition to x: its text in parentheses, its names
 * and values into x's maps (the runtime's own placeholders, #n<digits> and
 * :v<digits>, are refused). */
int ddbi_exprb_merge(ddbi_exprb *x, const ddb_ent_expr *c, ddb_error *err)
{
    if (!c->text || !*c->text)
        return ddbi_fail(err, DDB_EINVAL, "a condition needs its expression text");
    const ddb_item *maps[2] = {c->names, c->values};
    ddb_item *into[2] = {x->names, x->values};
    for (int m = 0; m < 2; m++) {
        const ddb_value *mv = maps[m] ? ddb_item_map(maps[m]) : NULL;
        for (uint32_t i = 0; mv && i < mv->len; i++) {
            const char *k = mv->u.m[i].name;
            if ((k[0] == '#' && k[1] == 'n' && k[2] >= '0' && k[2] <= '9') ||
                (k[0] == ':' && k[1] == 'v' && k[2] >= '0' && k[2] <= '9'))
                return ddbi_fail(err, DDB_EINVAL, "placeholder %s is reserved for the runtime (#n<digits>, :v<digits>)",
                                 k);
            if (ddb_item_set(into[m], k, ddb_value_copy(x->a, mv->u.m[i].value)))
                return ddbi_fail_oom(err, __func__);
        }
    }
    if (ddbi_exprb_put(x, "(") || ddbi_exprb_put(x, c->text) || ddbi_exprb_put(x, ")"))
        return ddbi_fail_oom(err, __func__);
    return DDB_OK;
}

int ddbi_ent_values_merge(ddb_arena *a, const ddb_item *x, const ddb_item *y, const ddb_item **out, ddb_error *err)
{
    ddb_item *m = ddb_item_new(a);
    if (!m)
        return ddbi_fail_oom(err, __func__);
    const ddb_item *from[2] = {x, y};
    for (int s = 0; s < 2; s++) {
        const ddb_value *mv = ddb_item_map(from[s]);
        for (uint32_t i = 0; mv && i < mv->len; i++) {
            const char *k = mv->u.m[i].name;
            if (s && ddb_item_get(m, k))
                return ddbi_fail(err, DDB_EINVAL, "placeholder %s is bound by the key condition and the filter", k);
            if (ddb_item_set(m, k, ddb_value_copy(a, mv->u.m[i].value)))
                return ddbi_fail_oom(err, __func__);
        }
    }
    *out = m;
    return DDB_OK;
}
