/* json/: DynamoDB JSON <-> ddb_value / ddb_item, the public codec
 * <ddb/json.h> (documented there; room of its own, with djson.h), used by the
 * remote backend, the `ddb` tool and its server.  Calls only the public
 * value API, core/error.h and jansson. */
#include <ddb/json.h>
#include "json/djson.h"

#include "core/error.h"
#include "core/value.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Attribute paths for messages ------------------------------------------ */

typedef struct jpath {
    char s[160];
    size_t n;
} jpath;

static void path_add(jpath *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void path_add(jpath *p, const char *fmt, ...)
{
    if (p->n >= sizeof p->s - 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(p->s + p->n, sizeof p->s - p->n, fmt, ap);
    va_end(ap);
    if (w < 0)
        return;
    if ((size_t)w >= sizeof p->s - p->n) {
        p->n = sizeof p->s - 1;
        memcpy(p->s + p->n - 3, "...", 3);
    } else {
        p->n += (size_t)w;
    }
}

/* Append a quoted name (at most 40 bytes of it) to the path. */
static size_t path_name(jpath *p, const char *name, size_t len)
{
    size_t mark = p->n;
    int show = len > 40 ? 40 : (int)len;
    path_add(p, "%s\"%.*s%s\"", mark ? "." : "", show, name, len > 40 ? "..." : "");
    return mark;
}

static size_t path_index(jpath *p, size_t i)
{
    size_t mark = p->n;
    path_add(p, "[%zu]", i);
    return mark;
}

static void path_cut(jpath *p, size_t mark)
{
    p->n = mark;
    p->s[mark] = '\0';
}

static int jfail(ddb_error *err, int code, const jpath *p, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int jfail(ddb_error *err, int code, const jpath *p, const char *fmt, ...)
{
    if (!err)
        return code;
    char msg[DDB_ERROR_TEXT_SIZE];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* DynamoDB's words first (programs match on them), where after them */
    if (p && p->n)
        return ddbi_fail(err, code, "%s (attribute %s)", msg, p->s);
    return ddbi_fail(err, code, "%s (attribute value)", msg);
}

static int nomem(ddb_error *err)
{
    return ddbi_fail_oom(err, "converting DynamoDB JSON");
}

/* ---- Base64 ------------------------------------------------------------------ */

static const char b64chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void ddb_json_base64_encode(const uint8_t *p, size_t n, char *out)
{
    size_t o = 0, i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
        out[o++] = b64chars[v >> 18];
        out[o++] = b64chars[(v >> 12) & 63];
        out[o++] = b64chars[(v >> 6) & 63];
        out[o++] = b64chars[v & 63];
    }
    if (n - i == 1) {
        uint32_t v = (uint32_t)p[i] << 16;
        out[o++] = b64chars[v >> 18];
        out[o++] = b64chars[(v >> 12) & 63];
        out[o++] = '=';
        out[o++] = '=';
    } else if (n - i == 2) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8;
        out[o++] = b64chars[v >> 18];
        out[o++] = b64chars[(v >> 12) & 63];
        out[o++] = b64chars[(v >> 6) & 63];
        out[o++] = '=';
    }
    out[o] = '\0';
}

static int b64val(char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

int ddb_json_base64_decode(const char *s, size_t n, uint8_t *out, size_t *out_len, size_t *bad_at)
{
    size_t o = 0;
    if (n % 4) {
        *bad_at = n;
        return DDB_EVALIDATION;
    }
    for (size_t i = 0; i < n; i += 4) {
        bool last = i + 4 == n;
        int v[4];
        int pad = 0;
        for (int k = 0; k < 4; k++) {
            char c = s[i + (size_t)k];
            if (c == '=' && last && k >= 2 && (pad || k == 3 || s[i + 3] == '=')) {
                pad++;
                v[k] = 0;
                continue;
            }
            v[k] = pad ? -1 : b64val(c);
            if (v[k] < 0) {
                *bad_at = i + (size_t)k;
                return DDB_EVALIDATION;
            }
        }
        uint32_t x = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 | (uint32_t)v[3];
        /* the bits a padded quantum does not use must be zero (canonical form) */
        if ((pad == 2 && (x & 0xFFFF)) || (pad == 1 && (x & 0xFF))) {
            *bad_at = i + 4 - (size_t)pad - 1;
            return DDB_EVALIDATION;
        }
        out[o++] = (uint8_t)(x >> 16);
        if (pad < 2)
            out[o++] = (uint8_t)(x >> 8);
        if (pad < 1)
            out[o++] = (uint8_t)x;
    }
    *out_len = o;
    return DDB_OK;
}

/* ---- ddb_value -> JSON ----------------------------------------------------- */

static int from_value(const ddb_value *v, json_t **out, jpath *p, int depth, ddb_error *err);

static int json_b64(const uint8_t *b, size_t n, json_t **out, ddb_error *err)
{
    char small[256];
    size_t need = DDB_JSON_BASE64_LEN(n) + 1;
    char *buf = need <= sizeof small ? small : malloc(need);
    if (!buf)
        return nomem(err);
    ddb_json_base64_encode(b, n, buf);
    *out = json_stringn(buf, need - 1);
    if (buf != small)
        free(buf);
    return *out ? DDB_OK : nomem(err);
}

static int scalar_json(const ddb_value *v, json_t **out, const jpath *p, ddb_error *err)
{
    switch (v->type) {
    case DDB_TS:
    case DDB_TN:
        if (!(*out = json_stringn(v->u.s, v->len)))
            return jfail(err, DDB_EVALIDATION, p, "%s text is not valid UTF-8 (DynamoDB JSON needs UTF-8)",
                         ddb_type_name(v->type));
        return DDB_OK;
    case DDB_TB: return json_b64(v->u.b, v->len, out, err);
    default: return jfail(err, DDB_EINVAL, p, "a %s value where a scalar is needed", ddb_type_name(v->type));
    }
}

static int container_json(const ddb_value *v, json_t **out, jpath *p, int depth, ddb_error *err)
{
    int rc = DDB_OK;
    if (v->type == DDB_TM) {
        json_t *o = json_object();
        if (!o)
            return nomem(err);
        for (uint32_t i = 0; i < v->len && !rc; i++) {
            const ddb_attr *at = &v->u.m[i];
            size_t mark = path_name(p, at->name, at->name_len);
            json_t *c = NULL;
            if (!(rc = from_value(at->value, &c, p, depth + 1, err)) &&
                json_object_setn_new(o, at->name, at->name_len, c) != 0)
                rc = jfail(err, DDB_EVALIDATION, p, "the attribute name is not valid UTF-8");
            path_cut(p, mark);
        }
        if (rc)
            json_decref(o);
        else
            *out = o;
        return rc;
    }
    json_t *arr = json_array();
    if (!arr)
        return nomem(err);
    for (uint32_t i = 0; i < v->len && !rc; i++) {
        size_t mark = path_index(p, i);
        json_t *c = NULL;
        if (v->type == DDB_TL)
            rc = from_value(v->u.l[i], &c, p, depth + 1, err);
        else
            rc = scalar_json(v->u.set[i], &c, p, err);
        if (!rc && json_array_append_new(arr, c) != 0)
            rc = nomem(err);
        path_cut(p, mark);
    }
    if (rc)
        json_decref(arr);
    else
        *out = arr;
    return rc;
}

static int from_value(const ddb_value *v, json_t **out, jpath *p, int depth, ddb_error *err)
{
    if (!v)
        return jfail(err, DDB_EINVAL, p, "a NULL value");
    if (depth > DDB_JSON_MAX_DEPTH)
        return jfail(err, DDB_EVALIDATION, p, "nested deeper than %d levels", DDB_JSON_MAX_DEPTH);
    json_t *inner = NULL;
    int rc;
    switch (v->type) {
    case DDB_TS:
    case DDB_TN:
    case DDB_TB: rc = scalar_json(v, &inner, p, err); break;
    case DDB_TBOOL: rc = (inner = json_boolean(v->u.boolean)) ? DDB_OK : nomem(err); break;
    case DDB_TNULL: rc = (inner = json_true()) ? DDB_OK : nomem(err); break;
    case DDB_TL:
    case DDB_TM:
    case DDB_TSS:
    case DDB_TNS:
    case DDB_TBS: rc = container_json(v, &inner, p, depth, err); break;
    default: return jfail(err, DDB_EINVAL, p, "a value without a valid type (%d)", (int)v->type);
    }
    if (rc)
        return rc;
    json_t *o = json_object();
    if (!o || json_object_set_new(o, ddb_type_name(v->type), inner) != 0) {
        json_decref(o);
        return nomem(err);
    }
    *out = o;
    return DDB_OK;
}

int ddb_json_from_value(const ddb_value *v, json_t **out, ddb_error *err)
{
    if (!out)
        return ddbi_fail(err, DDB_EINVAL, "ddb_json_from_value needs out");
    *out = NULL;
    jpath p = {{0}, 0};
    return from_value(v, out, &p, 1, err);
}

int ddb_json_from_item(const ddb_item *it, json_t **out, ddb_error *err)
{
    if (!out || !it)
        return ddbi_fail(err, DDB_EINVAL, "ddb_json_from_item needs an item and out");
    *out = NULL;
    const ddb_value *m = ddb_item_map(it);
    json_t *o = json_object();
    if (!o)
        return nomem(err);
    jpath p = {{0}, 0};
    int rc = DDB_OK;
    for (uint32_t i = 0; i < m->len && !rc; i++) {
        const ddb_attr *at = &m->u.m[i];
        size_t mark = path_name(&p, at->name, at->name_len);
        json_t *c = NULL;
        if (!(rc = from_value(at->value, &c, &p, 1, err)) && json_object_setn_new(o, at->name, at->name_len, c) != 0)
            rc = jfail(err, DDB_EVALIDATION, &p, "the attribute name is not valid UTF-8");
        path_cut(&p, mark);
    }
    if (rc) {
        json_decref(o);
        return rc;
    }
    *out = o;
    return DDB_OK;
}

/* ---- JSON -> ddb_value ----------------------------------------------------- */

const char *ddbi_json_kind(const json_t *j)
{
    if (!j)
        return "missing";
    switch (json_typeof(j)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER:
    case JSON_REAL: return "a number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    case JSON_NULL: return "null";
    }
    return "?";
}

static int to_value(const json_t *j, ddb_arena *a, ddb_value **out, jpath *p, int depth, ddb_error *err);

static int number_value(const char *s, size_t n, ddb_arena *a, ddb_value **out, const jpath *p, const char *what,
                        ddb_error *err)
{
    char canon[DDB_NUMBER_TEXT_MAX];
    ddb_error nerr = {0};
    if (ddb_number_canonical(s, n, canon, &nerr) != DDB_OK)
        return jfail(err, DDB_EVALIDATION, p, "%s (%s)", nerr.message, what); /* the message quotes the text */
    ddb_value *v = ddb_v_s(a, canon, strlen(canon));
    if (!v)
        return nomem(err);
    v->type = DDB_TN;
    *out = v;
    return DDB_OK;
}

static int binary_value(const char *s, size_t n, ddb_arena *a, ddb_value **out, const jpath *p, const char *what,
                        ddb_error *err)
{
    uint8_t small[192];
    uint8_t *buf = n / 4 * 3 <= sizeof small ? small : malloc(n / 4 * 3);
    if (!buf)
        return nomem(err);
    size_t len = 0, bad = 0;
    int rc = DDB_OK;
    if (ddb_json_base64_decode(s, n, buf, &len, &bad) != DDB_OK) {
        if (bad >= n)
            rc = jfail(err, DDB_EVALIDATION, p, "%s is not valid base64: length %zu is not a multiple of 4", what, n);
        else
            rc = jfail(err, DDB_EVALIDATION, p, "%s is not valid base64: unexpected '%c' at offset %zu", what,
                       (s[bad] >= 0x20 && s[bad] < 0x7f) ? s[bad] : '?', bad);
    } else if (!(*out = ddb_v_b(a, buf, len))) {
        rc = nomem(err);
    }
    if (buf != small)
        free(buf);
    return rc;
}

static int set_value(const char *d, const json_t *arr, ddb_arena *a, ddb_value **out, jpath *p, ddb_error *err)
{
    ddb_type st = d[0] == 'S' ? DDB_TSS : d[0] == 'N' ? DDB_TNS : DDB_TBS;
    if (!json_is_array(arr))
        return jfail(err, DDB_EVALIDATION, p, "%s must hold an array, not %s", d, ddbi_json_kind(arr));
    size_t n = json_array_size(arr);
    if (n == 0)
        return jfail(err, DDB_EVALIDATION, p, "%s", ddbi_empty_set_problem(st));
    ddb_value *set = ddb_v_set(a, st);
    /* the elements in the request's order, then sorted into the set's
     * (ddbi_set_adopt: one sort, not n sorted inserts) */
    ddb_value **given = set ? ddb_arena_alloc(a, n * sizeof *given) : NULL;
    ddb_value **sorted = given ? ddb_arena_alloc(a, n * sizeof *sorted) : NULL;
    if (!sorted)
        return nomem(err);
    for (size_t i = 0; i < n; i++) {
        const json_t *e = json_array_get(arr, i);
        /* DynamoDB's words, "An string set" included (ExtendDB
         * tests/test_attribute_value_validation.py); the NS / BS forms follow them */
        if (json_is_null(e))
            return ddbi_fail(err, DDB_EVALIDATION,
                             "One or more parameter values were invalid: An %s set may not have a null %s as a member",
                             st == DDB_TSS ? "string" : st == DDB_TNS ? "number" : "binary",
                             st == DDB_TSS ? "string" : st == DDB_TNS ? "number" : "binary");
        if (!json_is_string(e))
            return jfail(err, DDB_EVALIDATION, p, "%s element %zu is %s, not a string", d, i, ddbi_json_kind(e));
        const char *s = json_string_value(e);
        size_t len = json_string_length(e);
        int rc;
        char what[32];
        snprintf(what, sizeof what, "%s element %zu", d, i);
        if (st == DDB_TSS)
            rc = (given[i] = ddb_v_s(a, s, len)) ? DDB_OK : nomem(err);
        else if (st == DDB_TNS)
            rc = number_value(s, len, a, &given[i], p, what, err);
        else
            rc = binary_value(s, len, a, &given[i], p, what, err);
        if (rc)
            return rc;
    }
    memcpy(sorted, given, n * sizeof *sorted);
    const ddb_value *dup[2];
    int rc = ddbi_set_adopt(set, sorted, n, dup);
    if (rc == DDB_EVALIDATION) {
        /* name the later of the two equal elements, as the request has them */
        size_t later = 0;
        for (size_t i = 0; i < n; i++)
            if (given[i] == dup[0] || given[i] == dup[1])
                later = i;
        const json_t *e = json_array_get(arr, later);
        size_t len = json_string_length(e);
        return jfail(err, DDB_EVALIDATION, p, "Input collection %s contains duplicates (element %zu: \"%.*s\")", d,
                     later, (int)(len > 48 ? 48 : len), json_string_value(e));
    }
    if (rc)
        return nomem(err);
    *out = set;
    return DDB_OK;
}

static int map_value(const json_t *o, ddb_arena *a, ddb_value **out, jpath *p, int depth, ddb_error *err)
{
    ddb_value *m = ddb_v_map(a);
    size_t n = json_object_size(o), i = 0;
    /* the attributes gathered, then sorted once (ddbi_map_adopt) */
    ddb_attr *attrs = m && n ? ddb_arena_alloc(a, n * sizeof *attrs) : NULL;
    if (!m || (n && !attrs))
        return nomem(err);
    const char *key;
    size_t klen;
    json_t *child;
    json_object_keylen_foreach((json_t *)o, key, klen, child)
    {
        size_t mark = path_name(p, key, klen);
        if (strlen(key) != klen)
            return jfail(err, DDB_EVALIDATION, p, "the attribute name holds a NUL byte");
        if (klen > UINT32_MAX || i == n)
            return jfail(err, DDB_EVALIDATION, p, "the attribute name is too long");
        ddb_value *v;
        int rc = to_value(child, a, &v, p, depth + 1, err);
        if (rc)
            return rc;
        char *name = ddb_arena_alloc(a, klen + 1);
        if (!name)
            return nomem(err);
        memcpy(name, key, klen + 1);
        attrs[i++] = (ddb_attr){name, (uint32_t)klen, v};
        path_cut(p, mark);
    }
    /* a JSON object's names are distinct: jansson keeps one value a name */
    if (ddbi_map_adopt(m, attrs, i) != DDB_OK)
        return jfail(err, DDB_EVALIDATION, p, "the map holds one name twice");
    *out = m;
    return DDB_OK;
}

static int to_value(const json_t *j, ddb_arena *a, ddb_value **out, jpath *p, int depth, ddb_error *err)
{
    if (depth > DDB_JSON_READ_MAX_DEPTH)
        return jfail(err, DDB_EVALIDATION, p, "nested deeper than %d levels", DDB_JSON_READ_MAX_DEPTH);
    if (!json_is_object(j))
        return jfail(err, DDB_EVALIDATION, p, "an attribute value must be an object like {\"S\": \"x\"}, not %s",
                     ddbi_json_kind(j));
    size_t n = json_object_size(j);
    if (n == 0)
        return jfail(err, DDB_EVALIDATION, p,
                     "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes");
    if (n > 1)
        return jfail(err, DDB_EVALIDATION, p,
                     "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the "
                     "supported datatypes");
    void *it = json_object_iter((json_t *)j);
    const char *d = json_object_iter_key(it);
    size_t dlen = json_object_iter_key_len(it);
    const json_t *x = json_object_iter_value(it);
#define IS(lit) (dlen == sizeof lit - 1 && memcmp(d, lit, dlen) == 0)
    if (IS("S") || IS("N") || IS("B")) {
        if (!json_is_string(x))
            return jfail(err, DDB_EVALIDATION, p, "%s must hold a string, not %s", d, ddbi_json_kind(x));
        const char *s = json_string_value(x);
        size_t len = json_string_length(x);
        if (d[0] == 'S')
            return (*out = ddb_v_s(a, s, len)) ? DDB_OK : nomem(err);
        if (d[0] == 'N')
            return number_value(s, len, a, out, p, "N", err);
        return binary_value(s, len, a, out, p, "B", err);
    }
    if (IS("BOOL")) {
        if (!json_is_boolean(x))
            return jfail(err, DDB_EVALIDATION, p, "BOOL must hold true or false, not %s", ddbi_json_kind(x));
        return (*out = ddb_v_bool(a, json_is_true(x))) ? DDB_OK : nomem(err);
    }
    if (IS("NULL")) {
        if (!json_is_true(x))
            return jfail(err, DDB_EVALIDATION, p,
                         "One or more parameter values were invalid: Null attribute value types must have the value "
                         "of true");
        return (*out = ddb_v_null(a)) ? DDB_OK : nomem(err);
    }
    if (IS("L")) {
        if (!json_is_array(x))
            return jfail(err, DDB_EVALIDATION, p, "L must hold an array, not %s", ddbi_json_kind(x));
        ddb_value *l = ddb_v_list(a);
        if (!l)
            return nomem(err);
        for (size_t i = 0; i < json_array_size(x); i++) {
            size_t mark = path_index(p, i);
            ddb_value *v;
            int rc = to_value(json_array_get(x, i), a, &v, p, depth + 1, err);
            if (rc)
                return rc;
            if (ddb_list_append(a, l, v) != DDB_OK)
                return nomem(err);
            path_cut(p, mark);
        }
        *out = l;
        return DDB_OK;
    }
    if (IS("M")) {
        if (!json_is_object(x))
            return jfail(err, DDB_EVALIDATION, p, "M must hold an object, not %s", ddbi_json_kind(x));
        return map_value(x, a, out, p, depth, err);
    }
    if (IS("SS") || IS("NS") || IS("BS"))
        return set_value(d, x, a, out, p, err);
#undef IS
    return jfail(err, DDB_EVALIDATION, p,
                 "unknown type descriptor \"%.*s\" (expected S, N, B, BOOL, NULL, L, M, SS, NS or BS)",
                 (int)(dlen > 32 ? 32 : dlen), d);
}

int ddb_json_to_value(const json_t *j, ddb_arena *a, ddb_value **out, ddb_error *err)
{
    if (!j || !a || !out)
        return ddbi_fail(err, DDB_EINVAL, "ddb_json_to_value needs json, an arena and out");
    *out = NULL;
    jpath p = {{0}, 0};
    return to_value(j, a, out, &p, 1, err);
}

int ddb_json_to_item(const json_t *j, ddb_arena *a, ddb_item **out, ddb_error *err)
{
    if (!j || !a || !out)
        return ddbi_fail(err, DDB_EINVAL, "ddb_json_to_item needs json, an arena and out");
    *out = NULL;
    if (!json_is_object(j))
        return ddbi_fail(err, DDB_EVALIDATION, "an item must be a JSON object of attributes, not %s", ddbi_json_kind(j));
    ddb_item *it = ddb_item_new(a);
    if (!it)
        return nomem(err);
    jpath p = {{0}, 0};
    const char *key;
    size_t klen;
    json_t *child;
    json_object_keylen_foreach((json_t *)j, key, klen, child)
    {
        size_t mark = path_name(&p, key, klen);
        if (klen == 0)
            return jfail(err, DDB_EVALIDATION, &p, "an attribute name must not be empty");
        if (strlen(key) != klen)
            return jfail(err, DDB_EVALIDATION, &p, "the attribute name holds a NUL byte");
        ddb_value *v;
        int rc = to_value(child, a, &v, &p, 1, err);
        if (rc)
            return rc;
        if (ddb_item_set(it, key, v) != DDB_OK)
            return nomem(err);
        path_cut(&p, mark);
    }
    *out = it;
    return DDB_OK;
}

int ddb_json_parse_item(const char *text, size_t len, ddb_arena *a, ddb_item **out, ddb_error *err)
{
    if (!text || !a || !out)
        return ddbi_fail(err, DDB_EINVAL, "ddb_json_parse_item needs text, an arena and out");
    *out = NULL;
    json_error_t je;
    json_t *j = json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &je);
    if (!j)
        return ddbi_fail(err, DDB_EVALIDATION, "malformed JSON at line %d column %d: %s", je.line, je.column, je.text);
    int rc = ddb_json_to_item(j, a, out, err);
    json_decref(j);
    return rc;
}

int ddb_json_dump_item(const ddb_item *it, char **out, ddb_error *err)
{
    if (!out)
        return ddbi_fail(err, DDB_EINVAL, "ddb_json_dump_item needs out");
    *out = NULL;
    json_t *j;
    int rc = ddb_json_from_item(it, &j, err);
    if (rc)
        return rc;
    *out = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    return *out ? DDB_OK : nomem(err);
}
