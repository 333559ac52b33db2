/* ddb serve: the streaming DynamoDB-JSON writer (jwrite.h): ddb_value
 * trees appended as JSON text to a growing buffer.  Calls libddb's public
 * value API and its base64 encoder (<ddb/json.h>) only. */
#include "jwrite.h"

#include <ddb/json.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* No more room: every later reservation fails too (cap = len). */
static bool out_of_room(jw *w)
{
    w->oom = true;
    w->cap = w->len;
    return false;
}

bool jw_grow(jw *w, size_t n)
{
    if (w->oom)
        return false;
    if (n > JW_MAX - w->len)
        return out_of_room(w);
    size_t cap = w->cap ? w->cap : 1024;
    while (cap - w->len < n)
        cap *= 2;
    char *p = realloc(w->p, cap);
    if (!p)
        return out_of_room(w);
    w->p = p;
    w->cap = cap;
    return true;
}

void jw_free(jw *w)
{
    free(w->p);
    *w = (jw){0};
}

void jw_u64(jw *w, uint64_t v)
{
    char d[20];
    size_t n = 0;
    do
        d[sizeof d - ++n] = (char)('0' + v % 10);
    while ((v /= 10));
    jw_bytes(w, d + sizeof d - n, n);
}

/* What a byte of a string needs: 0 copied as it is, 1 a backslash escape,
 * 2 the first byte of a multi-byte UTF-8 sequence (checked), 3 never valid
 * (a continuation byte first, 0xC0, 0xC1, 0xF5..0xFF). */
static const unsigned char byte_class[256] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 00-1F */
    0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* " */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, /* \ */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, /* 80-9F */
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, /* A0-BF */
    3, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, /* C0-DF */
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, /* E0-FF */
};

size_t jw_utf8_len(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    if (byte_class[c] != 2)
        return 0;
    size_t len = c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    if (n < len)
        return 0;
    /* the second byte's range depends on the first (RFC 3629, section 4) */
    unsigned char lo = 0x80, hi = 0xBF;
    if (c == 0xE0)
        lo = 0xA0;
    else if (c == 0xED)
        hi = 0x9F;
    else if (c == 0xF0)
        lo = 0x90;
    else if (c == 0xF4)
        hi = 0x8F;
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < len; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    return len;
}

int jw_str(jw *w, const char *str, size_t n)
{
    static const char hex[] = "0123456789ABCDEF";
    const unsigned char *s = (const unsigned char *)str;
    /* at most 6 bytes out per byte in, plus the quotes */
    if (n > (JW_MAX - 2) / 6) {
        out_of_room(w);
        return 0;
    }
    if (!jw_reserve(w, n * 6 + 2))
        return 0;
    char *o = w->p + w->len;
    *o++ = '"';
    size_t i = 0;
    while (i < n) {
        size_t run = i;
        while (n - run >= 8 && jw_plain8(s + run))
            run += 8;
        while (run < n && !byte_class[s[run]])
            run++;
        memcpy(o, s + i, run - i);
        o += run - i;
        if ((i = run) == n)
            break;
        unsigned char c = s[i];
        switch (byte_class[c]) {
        case 1:
            *o++ = '\\';
            switch (c) {
            case '"': *o++ = '"'; break;
            case '\\': *o++ = '\\'; break;
            case '\b': *o++ = 'b'; break;
            case '\f': *o++ = 'f'; break;
            case '\n': *o++ = 'n'; break;
            case '\r': *o++ = 'r'; break;
            case '\t': *o++ = 't'; break;
            default:
                *o++ = 'u', *o++ = '0', *o++ = '0', *o++ = hex[c >> 4], *o++ = hex[c & 15];
            }
            i++;
            break;
        case 2: {
            size_t k = jw_utf8_len(s + i, n - i);
            if (!k)
                return -1;
            memcpy(o, s + i, k);
            o += k;
            i += k;
            break;
        }
        default: return -1;
        }
    }
    *o++ = '"';
    w->len = (size_t)(o - w->p);
    return 0;
}

/* ---- Values -------------------------------------------------------------- */

static int fail(ddb_error *err, int code, const char *name, const char *what)
{
    if (err) {
        err->code = code;
        snprintf(err->message, sizeof err->message, "attribute \"%.200s\": %s", name ? name : "?", what);
    }
    return code;
}

static int write_value(jw *w, const ddb_value *v, int depth, const char *top, ddb_error *err);

/* An S, N or B value's text (a set's element). */
static int write_scalar(jw *w, const ddb_value *v, const char *top, ddb_error *err)
{
    switch (v->type) {
    case DDB_TS:
    case DDB_TN:
        if (jw_str(w, v->u.s, v->len))
            return fail(err, DDB_EVALIDATION, top,
                        v->type == DDB_TS ? "S text is not valid UTF-8 (DynamoDB JSON needs UTF-8)"
                                          : "N text is not valid UTF-8 (DynamoDB JSON needs UTF-8)");
        return 0;
    case DDB_TB: {
        size_t n = DDB_JSON_BASE64_LEN((size_t)v->len);
        if (jw_reserve(w, n + 3)) {
            w->p[w->len++] = '"';
            ddb_json_base64_encode(v->u.b, v->len, w->p + w->len); /* writes a NUL after, inside the room */
            w->len += n;
            w->p[w->len++] = '"';
        }
        return 0;
    }
    default: return fail(err, DDB_EINVAL, top, "a value where S, N or B is needed");
    }
}

static int write_map(jw *w, const ddb_value *m, int depth, const char *top, ddb_error *err)
{
    jw_lit(w, "{");
    for (uint32_t i = 0; i < m->len; i++) {
        const ddb_attr *at = &m->u.m[i];
        if (i)
            jw_lit(w, ",");
        if (jw_str(w, at->name, at->name_len))
            return fail(err, DDB_EVALIDATION, top ? top : at->name, "the attribute name is not valid UTF-8");
        jw_lit(w, ":");
        int rc = write_value(w, at->value, depth + 1, top ? top : at->name, err);
        if (rc)
            return rc;
    }
    jw_lit(w, "}");
    return 0;
}

static int write_value(jw *w, const ddb_value *v, int depth, const char *top, ddb_error *err)
{
    if (!v)
        return fail(err, DDB_EINVAL, top, "a NULL value");
    if (depth > DDB_JSON_MAX_DEPTH) {
        char msg[64];
        snprintf(msg, sizeof msg, "nested deeper than %d levels", DDB_JSON_MAX_DEPTH);
        return fail(err, DDB_EVALIDATION, top, msg);
    }
    int rc = 0;
    switch (v->type) {
    case DDB_TS: jw_lit(w, "{\"S\":"); rc = write_scalar(w, v, top, err); break;
    case DDB_TN: jw_lit(w, "{\"N\":"); rc = write_scalar(w, v, top, err); break;
    case DDB_TB: jw_lit(w, "{\"B\":"); rc = write_scalar(w, v, top, err); break;
    case DDB_TBOOL:
        if (v->u.boolean)
            jw_lit(w, "{\"BOOL\":true");
        else
            jw_lit(w, "{\"BOOL\":false");
        break;
    case DDB_TNULL: jw_lit(w, "{\"NULL\":true"); break;
    case DDB_TM:
        jw_lit(w, "{\"M\":");
        rc = write_map(w, v, depth, top, err);
        break;
    case DDB_TL:
    case DDB_TSS:
    case DDB_TNS:
    case DDB_TBS:
        jw_lit(w, "{\"");
        jw_bytes(w, ddb_type_name(v->type), strlen(ddb_type_name(v->type)));
        jw_lit(w, "\":[");
        for (uint32_t i = 0; i < v->len && !rc; i++) {
            if (i)
                jw_lit(w, ",");
            rc = v->type == DDB_TL ? write_value(w, v->u.l[i], depth + 1, top, err)
                                   : v->u.set[i] ? write_scalar(w, v->u.set[i], top, err)
                                                 : fail(err, DDB_EINVAL, top, "a NULL set element");
        }
        jw_lit(w, "]");
        break;
    default: return fail(err, DDB_EINVAL, top, "a value without a valid type");
    }
    if (rc)
        return rc;
    jw_lit(w, "}");
    return w->oom ? fail(err, DDB_ENOMEM, top, "out of memory writing the response") : 0;
}

int jw_value(jw *w, const ddb_value *v, ddb_error *err)
{
    return write_value(w, v, 1, NULL, err);
}

int jw_item(jw *w, const ddb_item *it, ddb_error *err)
{
    if (!it)
        return fail(err, DDB_EINVAL, NULL, "a NULL item");
    /* the item's attributes are the top level: depth 0 */
    int rc = write_map(w, ddb_item_map(it), 0, NULL, err);
    return rc ? rc : w->oom ? fail(err, DDB_ENOMEM, NULL, "out of memory writing the response") : 0;
}
