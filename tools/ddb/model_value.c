/* ddb — plain JSON by field names in and out of the structs the model's
 * descriptors lay out (model_desc.c): {"device_id": "d1", "celsius": 21.5,
 * "tags": ["a"], "site": {"city": "Oslo"}, "blob": "<base64>"}.  Input is
 * checked against each field's C type: unknown fields, wrong JSON types,
 * strings longer than their char[N], integers outside their width, bad
 * base64 are errors naming the field and the limit.
 * May call libddb's public API (<ddb/entity.h>, <ddb/json.h>) and jansson. */
#include "model_value.h"

#include <ddb/json.h>

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int bad(char *why, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int bad(char *why, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, cap, fmt, ap);
    va_end(ap);
    return -1;
}

/* ---- out ---------------------------------------------------------------- */

static json_t *scalar_out(uint8_t type, uint32_t size, const ddb_struct_desc *sub, const void *p);

static json_t *bytes_out(const ddb_bytes *b)
{
    char *t = malloc(DDB_JSON_BASE64_LEN(b->len) + 1);
    if (!t)
        return NULL;
    ddb_json_base64_encode(b->data, b->len, t);
    json_t *s = json_string(t);
    free(t);
    return s;
}

static json_t *int_out(const void *p, uint32_t size, int is_signed)
{
    if (is_signed) {
        int64_t v = size == 1 ? *(const int8_t *)p : size == 2 ? *(const int16_t *)p
                  : size == 4 ? *(const int32_t *)p : *(const int64_t *)p;
        return json_integer((json_int_t)v);
    }
    uint64_t v = size == 1 ? *(const uint8_t *)p : size == 2 ? *(const uint16_t *)p
               : size == 4 ? *(const uint32_t *)p : *(const uint64_t *)p;
    if (v <= (uint64_t)INT64_MAX)
        return json_integer((json_int_t)v);
    char buf[24]; /* above JSON's exact integers: the digits, as text */
    snprintf(buf, sizeof buf, "%" PRIu64, v);
    return json_string(buf);
}

json_t *model_struct_out(const ddb_struct_desc *st, const void *obj, const ddb_ent_mask *mask)
{
    json_t *o = json_object();
    for (uint16_t i = 0; o && i < st->n_fields; i++) {
        const ddb_field_desc *f = &st->fields[i];
        if (mask && !ddb_ent_mask_has(mask, i))
            continue;
        const char *p = (const char *)obj + f->offset;
        json_t *v = NULL;
        if (f->type == DDB_F_LIST) {
            const char *items = *(const char *const *)p;
            size_t n = *(const size_t *)((const char *)obj + f->count_offset);
            if (!n && (f->flags & DDB_FIELD_OPTIONAL))
                continue;
            v = json_array();
            for (size_t k = 0; v && items && k < n; k++)
                json_array_append_new(v, scalar_out(f->elem_type, f->elem_size, f->sub, items + k * f->elem_size));
        } else {
            if (f->type == DDB_F_STRING && !*(const char *const *)p)
                continue;
            if (f->type == DDB_F_BYTES && !((const ddb_bytes *)p)->data)
                continue;
            if ((f->type == DDB_F_SSET && !((const ddb_string_set *)p)->count) ||
                (f->type == DDB_F_ISET && !((const ddb_int_set *)p)->count) ||
                (f->type == DDB_F_DSET && !((const ddb_double_set *)p)->count) ||
                (f->type == DDB_F_BSET && !((const ddb_bytes_set *)p)->count))
                continue;
            v = scalar_out(f->type, f->size, f->sub, p);
        }
        if (v)
            json_object_set_new(o, f->name, v);
    }
    return o;
}

static json_t *scalar_out(uint8_t type, uint32_t size, const ddb_struct_desc *sub, const void *p)
{
    switch (type) {
    case DDB_F_CHARS:
        return json_stringn((const char *)p, strnlen((const char *)p, size));
    case DDB_F_STRING:
        return *(const char *const *)p ? json_string(*(const char *const *)p) : json_null();
    case DDB_F_INT:
    case DDB_F_UINT:
        return int_out(p, size, type == DDB_F_INT);
    case DDB_F_FLOAT:
        return json_real(size == 4 ? *(const float *)p : *(const double *)p);
    case DDB_F_BOOL:
        return json_boolean(*(const bool *)p);
    case DDB_F_BYTES:
        return bytes_out((const ddb_bytes *)p);
    case DDB_F_STRUCT:
        return model_struct_out(sub, p, NULL);
    case DDB_F_SSET: {
        const ddb_string_set *s = p;
        json_t *a = json_array();
        for (size_t i = 0; a && i < s->count; i++)
            json_array_append_new(a, json_string(s->items[i]));
        return a;
    }
    case DDB_F_ISET: {
        const ddb_int_set *s = p;
        json_t *a = json_array();
        for (size_t i = 0; a && i < s->count; i++)
            json_array_append_new(a, json_integer((json_int_t)s->items[i]));
        return a;
    }
    case DDB_F_DSET: {
        const ddb_double_set *s = p;
        json_t *a = json_array();
        for (size_t i = 0; a && i < s->count; i++)
            json_array_append_new(a, json_real(s->items[i]));
        return a;
    }
    case DDB_F_BSET: {
        const ddb_bytes_set *s = p;
        json_t *a = json_array();
        for (size_t i = 0; a && i < s->count; i++)
            json_array_append_new(a, bytes_out(&s->items[i]));
        return a;
    }
    default:
        return NULL;
    }
}

/* ---- in ----------------------------------------------------------------- */

static int scalar_in(const json_t *v, uint8_t type, uint32_t size, const ddb_struct_desc *sub, void *p, ddb_arena *a,
                     const char *name, char *why, size_t cap);

static int bytes_in(const json_t *v, ddb_bytes *b, ddb_arena *a, const char *name, char *why, size_t cap)
{
    const char *s = json_string_value(v);
    if (!s)
        return bad(why, cap, "field '%s' takes base64 text (B)", name);
    size_t n = json_string_length(v), len = 0, at = 0;
    uint8_t *out = ddb_arena_alloc(a, n / 4 * 3 + 1);
    if (!out)
        return bad(why, cap, "out of memory");
    if (ddb_json_base64_decode(s, n, out, &len, &at))
        return bad(why, cap, "field '%s': invalid base64 at character %zu", name, at);
    b->data = out;
    b->len = len;
    return 0;
}

static int int_in(const json_t *v, uint32_t size, int is_signed, void *p, const char *name, char *why, size_t cap)
{
    int64_t s = 0;
    uint64_t u = 0;
    const char *text = json_string_value(v);
    if (json_is_integer(v)) {
        s = json_integer_value(v);
        if (!is_signed && s < 0)
            return bad(why, cap, "field '%s' is unsigned: %" PRId64 " is below 0", name, s);
        u = (uint64_t)s;
    } else if (text && !is_signed && text[0] >= '0' && text[0] <= '9') { /* above JSON's integers */
        char *end;
        u = strtoull(text, &end, 10);
        if (*end)
            return bad(why, cap, "field '%s' takes an integer, not \"%s\"", name, text);
    } else
        return bad(why, cap, "field '%s' takes an integer (%s%u)", name, is_signed ? "int" : "uint", size * 8);
    int bits = (int)size * 8;
    if (is_signed ? (bits < 64 && (s < -(INT64_C(1) << (bits - 1)) || s >= (INT64_C(1) << (bits - 1))))
                  : (bits < 64 && u >= (UINT64_C(1) << bits)))
        return bad(why, cap, "field '%s' holds %s%d: %s is out of its range", name, is_signed ? "int" : "uint", bits,
                   text ? text : is_signed ? "the value" : "the value");
    switch (size) {
    case 1: is_signed ? (void)(*(int8_t *)p = (int8_t)s) : (void)(*(uint8_t *)p = (uint8_t)u); break;
    case 2: is_signed ? (void)(*(int16_t *)p = (int16_t)s) : (void)(*(uint16_t *)p = (uint16_t)u); break;
    case 4: is_signed ? (void)(*(int32_t *)p = (int32_t)s) : (void)(*(uint32_t *)p = (uint32_t)u); break;
    default: is_signed ? (void)(*(int64_t *)p = s) : (void)(*(uint64_t *)p = u); break;
    }
    return 0;
}

/* An array of n elements of esize bytes from the JSON array v, each read by
 * scalar_in; *out and *count set. */
static int array_in(const json_t *v, uint8_t etype, uint32_t esize, const ddb_struct_desc *sub, void **out,
                    size_t *count, ddb_arena *a, const char *name, char *why, size_t cap)
{
    if (!json_is_array(v))
        return bad(why, cap, "field '%s' takes a JSON array", name);
    size_t n = json_array_size(v);
    char *items = n ? ddb_arena_alloc(a, n * esize) : NULL;
    if (n && !items)
        return bad(why, cap, "out of memory");
    if (items)
        memset(items, 0, n * esize);
    for (size_t i = 0; i < n; i++)
        if (scalar_in(json_array_get(v, i), etype, esize, sub, items + i * esize, a, name, why, cap))
            return -1;
    *out = items;
    *count = n;
    return 0;
}

int model_struct_in(const ddb_struct_desc *st, const json_t *in, void *obj, ddb_arena *a, ddb_ent_mask *given,
                    char *why, size_t cap)
{
    if (!json_is_object(in))
        return bad(why, cap, "%s takes a JSON object of its fields", st->name);
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)in, key, v) {
        int i = model_field_index(st, key);
        if (i < 0) {
            char names[512] = "";
            size_t used = 0;
            for (uint16_t k = 0; k < st->n_fields && used + 1 < sizeof names; k++)
                used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", k ? ", " : "",
                                         st->fields[k].name);
            return bad(why, cap, "%s has no field '%s' (its fields: %s)", st->name, key, names);
        }
        const ddb_field_desc *f = &st->fields[i];
        char *p = (char *)obj + f->offset;
        if (json_is_null(v))
            continue; /* absent */
        if (f->type == DDB_F_LIST) {
            if (array_in(v, f->elem_type, f->elem_size, f->sub, (void **)p, (size_t *)((char *)obj + f->count_offset),
                         a, f->name, why, cap))
                return -1;
        } else if (scalar_in(v, f->type, f->size, f->sub, p, a, f->name, why, cap))
            return -1;
        if (given)
            ddb_ent_mask_set(given, (unsigned)i);
    }
    return 0;
}

static int scalar_in(const json_t *v, uint8_t type, uint32_t size, const ddb_struct_desc *sub, void *p, ddb_arena *a,
                     const char *name, char *why, size_t cap)
{
    switch (type) {
    case DDB_F_CHARS: {
        const char *s = json_string_value(v);
        if (!s)
            return bad(why, cap, "field '%s' takes a string", name);
        if (json_string_length(v) >= size)
            return bad(why, cap, "field '%s' holds at most %u bytes (char[%u]); the value has %zu", name, size - 1,
                       size, json_string_length(v));
        if (memchr(s, 0, json_string_length(v)))
            return bad(why, cap, "field '%s': a NUL character cannot be stored in char[%u]", name, size);
        memcpy(p, s, json_string_length(v) + 1);
        return 0;
    }
    case DDB_F_STRING: {
        const char *s = json_string_value(v);
        if (!s)
            return bad(why, cap, "field '%s' takes a string", name);
        char *c = ddb_arena_strdup(a, s);
        if (!c)
            return bad(why, cap, "out of memory");
        *(char **)p = c;
        return 0;
    }
    case DDB_F_INT:
    case DDB_F_UINT:
        return int_in(v, size, type == DDB_F_INT, p, name, why, cap);
    case DDB_F_FLOAT: {
        if (!json_is_number(v))
            return bad(why, cap, "field '%s' takes a number", name);
        double d = json_number_value(v);
        if (size == 4 && isfinite(d) && fabs(d) > 3.4028234663852886e38)
            return bad(why, cap, "field '%s' is a float: %g is out of its range", name, d);
        size == 4 ? (void)(*(float *)p = (float)d) : (void)(*(double *)p = d);
        return 0;
    }
    case DDB_F_BOOL:
        if (!json_is_boolean(v))
            return bad(why, cap, "field '%s' takes true or false", name);
        *(bool *)p = json_is_true(v);
        return 0;
    case DDB_F_BYTES:
        return bytes_in(v, (ddb_bytes *)p, a, name, why, cap);
    case DDB_F_STRUCT:
        return model_struct_in(sub, v, p, a, NULL, why, cap);
    case DDB_F_SSET: {
        ddb_string_set *s = p;
        return array_in(v, DDB_F_STRING, sizeof(char *), NULL, (void **)&s->items, &s->count, a, name, why, cap);
    }
    case DDB_F_ISET: {
        ddb_int_set *s = p;
        return array_in(v, DDB_F_INT, sizeof(int64_t), NULL, (void **)&s->items, &s->count, a, name, why, cap);
    }
    case DDB_F_DSET: {
        ddb_double_set *s = p;
        return array_in(v, DDB_F_FLOAT, sizeof(double), NULL, (void **)&s->items, &s->count, a, name, why, cap);
    }
    case DDB_F_BSET: {
        ddb_bytes_set *s = p;
        return array_in(v, DDB_F_BYTES, sizeof(ddb_bytes), NULL, (void **)&s->items, &s->count, a, name, why, cap);
    }
    default:
        return bad(why, cap, "field '%s' has a type this tool cannot read", name);
    }
}

int model_field_text_in(const ddb_struct_desc *st, int i, const char *text, void *obj, ddb_arena *a, char *why,
                        size_t cap)
{
    const ddb_field_desc *f = &st->fields[i];
    json_t *v = NULL;
    switch (f->type) {
    case DDB_F_CHARS:
    case DDB_F_STRING:
    case DDB_F_BYTES:
        v = json_string(text);
        break;
    default: { /* a number, true/false, or JSON for structs, lists and sets */
        json_error_t je;
        v = json_loads(text, JSON_DECODE_ANY, &je);
        if (!v)
            return bad(why, cap, "field '%s': \"%s\" is not a value of its type", f->name, text);
    }
    }
    json_t *o = json_object();
    json_object_set_new(o, f->name, v);
    int rc = model_struct_in(st, o, obj, a, NULL, why, cap);
    json_decref(o);
    return rc;
}
