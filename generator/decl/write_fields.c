/* write_fields.c — the checks of the field decorators that shape writes:
 * DDB_DEFAULT (type-checked against the field), DDB_CREATED_AT and
 * DDB_UPDATED_AT (epoch milliseconds in an integer, ISO-8601 in a string
 * of at least 24 characters), DDB_UNIQUE (a scalar outside the primary
 * key).  Called from decl_update.c's ddbgen__check_writes; may call
 * internal.h's JSON helpers and diag.h only. */
#include "decl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define ERR(l, ...) ddbgen_diag_add(d, DDBGEN_ERROR, (l), __VA_ARGS__)

static ddbgen_loc LOC(const json_t *o) { return ddbgen_loc_of(o, "loc"); }

/* Does text fit field f?  NULL when it does, else why not. */
static const char *default_fits(const json_t *f, const char *text)
{
    const char *type = ddbgen_jstr(f, "type"), *num = ddbgen_jstr(f, "num");
    if (!strcmp(type, "S")) {
        long long max = ddbgen_jint(f, "max_len", -1);
        return max >= 0 && (long long)strlen(text) > max ? "it is longer than the field" : NULL;
    }
    if (!strcmp(type, "BOOL"))
        return strcmp(text, "true") && strcmp(text, "false") ? "a bool default is \"true\" or \"false\"" : NULL;
    if (strcmp(type, "N"))
        return "DDB_DEFAULT applies to strings, numbers and booleans";
    char *end = NULL;
    errno = 0;
    if (num && num[0] == 'f') {
        /* a decimal C literal: digits, sign, point, exponent (no inf, nan, hex) */
        if (strspn(text, "0123456789+-.eE") != strlen(text))
            return "it is not a decimal number";
        strtod(text, &end);
        return !*text || *end || errno ? "it is not a number" : NULL;
    }
    int bits = num ? atoi(num + 1) : 64;
    if (num && num[0] == 'u') {
        if (text[0] == '-')
            return "the field is unsigned";
        unsigned long long v = strtoull(text, &end, 10);
        if (!*text || *end || errno)
            return "it is not an integer in range";
        return bits < 64 && v >> bits ? "it does not fit the field" : NULL;
    }
    long long v = strtoll(text, &end, 10);
    if (!*text || *end || errno)
        return "it is not an integer in range";
    if (bits < 64 && (v < -(1LL << (bits - 1)) || v >= (1LL << (bits - 1))))
        return "it does not fit the field";
    return NULL;
}

/* The field-mask constants <ENTITY>_F_<FIELD> are the names upper-cased:
 * two fields must not give the same one. */
static void check_mask_names(ddbgen_diags *d, json_t *e)
{
    size_t i, j;
    json_t *f, *g;
    json_t *fields = json_object_get(e, "fields");
    json_array_foreach(fields, i, f) {
        json_array_foreach(fields, j, g) {
            if (j >= i)
                break;
            if (strcasecmp(ddbgen_jstr(f, "name"), ddbgen_jstr(g, "name")))
                continue;
            long h = ERR(LOC(f), "fields '%s' and '%s' of '%s' differ only in case, so they would share one field-mask "
                                 "constant: rename one",
                         ddbgen_jstr(f, "name"), ddbgen_jstr(g, "name"), ddbgen_jstr(e, "name"));
            ddbgen_diag_note(d, h, LOC(g), "'%s' is here", ddbgen_jstr(g, "name"));
        }
    }
}

void ddbgen__check_field_writes(ddbgen_diags *d, json_t *e)
{
    check_mask_names(d, e);
    size_t i;
    json_t *f;
    json_t *created = NULL, *updated = NULL;
    json_array_foreach(json_object_get(e, "fields"), i, f) {
        const char *name = ddbgen_jstr(f, "name"), *ctype = ddbgen_jstr(f, "ctype");
        const char *type = ddbgen_jstr(f, "type"), *num = ddbgen_jstr(f, "num");
        int is_key = ddbgen_jtrue(f, "key");
        int by_ddbgen = json_object_get(f, "derived") || json_object_get(f, "version") ||
                        json_object_get(f, "uuid") || json_object_get(f, "auto_id");
        json_t *dflt = json_object_get(f, "default");
        if (dflt) {
            const char *why = default_fits(f, ddbgen_jstr(dflt, "value"));
            if (by_ddbgen)
                ERR(LOC(dflt), "field '%s' gets its value from ddbgen; it cannot have a DDB_DEFAULT", name);
            else if (why)
                ERR(LOC(dflt), "DDB_DEFAULT(\"%s\") does not fit field '%s' (%s): %s", ddbgen_jstr(dflt, "value"),
                    name, ctype, why);
        }
        const char *stamp[2] = {"created_at", "updated_at"};
        json_t **first[2] = {&created, &updated};
        for (int s = 0; s < 2; s++) {
            json_t *st = json_object_get(f, stamp[s]);
            if (!st)
                continue;
            const char *macro = s ? "DDB_UPDATED_AT" : "DDB_CREATED_AT";
            int ms = !strcmp(type, "N") && num && (!strcmp(num, "i64") || !strcmp(num, "u64"));
            long long max = ddbgen_jint(f, "max_len", -1);
            int iso = !strcmp(type, "S") && max >= 24;
            if (!ms && !iso)
                ERR(LOC(st),
                    "%s field '%s' must be int64_t (epoch milliseconds) or char[N] with N >= 25 (ISO-8601 UTC "
                    "with milliseconds), not %s",
                    macro, name, ctype);
            if (is_key || by_ddbgen || dflt)
                ERR(LOC(st), "%s field '%s' cannot also be a key field, have a default or another generated value",
                    macro, name);
            if (s == 1 && json_object_get(f, "created_at"))
                ERR(LOC(st), "field '%s' has both DDB_CREATED_AT and DDB_UPDATED_AT", name);
            if (*first[s]) {
                long h = ERR(LOC(st), "'%s' has two %s fields", ddbgen_jstr(e, "name"), macro);
                ddbgen_diag_note(d, h, LOC(json_object_get(*first[s], stamp[s])), "the first is '%s'",
                                 ddbgen_jstr(*first[s], "name"));
            } else
                *first[s] = f;
        }
        json_t *uq = json_object_get(f, "unique");
        if (uq) {
            if (is_key)
                ERR(LOC(uq), "field '%s' is part of the primary key, which is unique already; drop DDB_UNIQUE", name);
            else if (strcmp(type, "S") && strcmp(type, "N") && strcmp(type, "B"))
                ERR(LOC(uq), "DDB_UNIQUE field '%s' must be a string, a number or bytes, not %s", name, ctype);
        }
    }
}
