/* ddb serve: the expression text the legacy translation writes (legacy.h):
 * printf-style appends, the placeholders that stand for attribute names and
 * values, and the ValidationException of DynamoDB's parameter checks.
 * Shared by legacy.c, legacy_cond.c and legacy_update.c; calls reply.c,
 * libddb and jansson. */
#include "legacy.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- Placeholders and text ------------------------------------------------- */

int lg_append(lg_ctx *c, lg_text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return serve_fail_code(c->r, DDB_EINVAL);
    if (t->len + (size_t)n + 1 > t->cap) {
        size_t cap = (t->cap ? t->cap * 2 : 128) + (size_t)n;
        char *s = ddb_arena_alloc(c->r->a, cap);
        if (!s)
            return serve_fail_code(c->r, DDB_ENOMEM);
        if (t->len)
            memcpy(s, t->s, t->len);
        t->s = s;
        t->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
    return 0;
}

int lg_invalid(serve_req *r, const char *fmt, ...)
{
    char text[sizeof r->err.message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    serve_validation(r, "One or more parameter values were invalid: %s", text);
    return -1;
}

/* The next placeholder "<sigil>lN" not already a key of map (the request's
 * own names and values stay as they are). */
static const char *placeholder(lg_ctx *c, json_t *map, char sigil, json_t *bound)
{
    char ph[32];
    do
        snprintf(ph, sizeof ph, "%cl%u", sigil, c->next++);
    while (json_object_get(map, ph));
    char *s = ddb_arena_strdup(c->r->a, ph);
    if (!s || !bound) {
        json_decref(bound);
        serve_fail_code(c->r, DDB_ENOMEM);
        return NULL;
    }
    if (json_object_set_new(map, ph, bound)) { /* bound is released by it either way */
        serve_fail_code(c->r, DDB_ENOMEM);
        return NULL;
    }
    return s;
}

const char *lg_name(lg_ctx *c, const char *attr)
{
    return placeholder(c, c->names, '#', json_string(attr));
}

const char *lg_value(lg_ctx *c, json_t *v)
{
    return placeholder(c, c->values, ':', json_incref(v));
}
