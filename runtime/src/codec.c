/* Binary item records (see codec.h for the layout). */
#include "codec.h"

#include "value.h"

#include <stdlib.h>
#include <string.h>

#define RECORD_VERSION 1

int ddb_buf_put(ddb_buf *b, const void *p, size_t n)
{
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n)
            cap *= 2;
        uint8_t *np = realloc(b->p, cap);
        if (!np)
            return DDB_ENOMEM;
        b->p = np;
        b->cap = cap;
    }
    if (n)
        memcpy(b->p + b->len, p, n);
    b->len += n;
    return DDB_OK;
}

int ddb_buf_varint(ddb_buf *b, uint64_t v)
{
    uint8_t tmp[10];
    size_t n = 0;
    do {
        tmp[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
    return ddb_buf_put(b, tmp, n);
}

void ddb_buf_free(ddb_buf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

static int encode_value(ddb_buf *b, const ddb_value *v)
{
    uint8_t t = (uint8_t)v->type;
    int rc = ddb_buf_put(b, &t, 1);
    if (rc)
        return rc;
    switch (v->type) {
    case DDB_TS:
    case DDB_TN:
    case DDB_TB:
        if ((rc = ddb_buf_varint(b, v->len)))
            return rc;
        return ddb_buf_put(b, v->u.s, v->len);
    case DDB_TBOOL: {
        uint8_t x = v->u.boolean;
        return ddb_buf_put(b, &x, 1);
    }
    case DDB_TNULL:
        return DDB_OK;
    case DDB_TM:
        if ((rc = ddb_buf_varint(b, v->len)))
            return rc;
        for (uint32_t i = 0; i < v->len; i++) {
            if ((rc = ddb_buf_varint(b, v->u.m[i].name_len)) ||
                (rc = ddb_buf_put(b, v->u.m[i].name, v->u.m[i].name_len)) ||
                (rc = encode_value(b, v->u.m[i].value)))
                return rc;
        }
        return DDB_OK;
    default: /* L and sets */
        if ((rc = ddb_buf_varint(b, v->len)))
            return rc;
        for (uint32_t i = 0; i < v->len; i++)
            if ((rc = encode_value(b, v->u.l[i])))
                return rc;
        return DDB_OK;
    }
}

int ddb_encode_item(ddb_buf *b, const ddb_value *map, size_t size)
{
    uint8_t ver = RECORD_VERSION;
    int rc = ddb_buf_put(b, &ver, 1);
    if (!rc)
        rc = ddb_buf_varint(b, size);
    if (!rc)
        rc = ddb_buf_varint(b, map->len);
    for (uint32_t i = 0; !rc && i < map->len; i++) {
        if (!(rc = ddb_buf_varint(b, map->u.m[i].name_len)) &&
            !(rc = ddb_buf_put(b, map->u.m[i].name, map->u.m[i].name_len)))
            rc = encode_value(b, map->u.m[i].value);
    }
    return rc;
}

typedef struct rd {
    const uint8_t *p, *end;
    ddb_arena *a;
} rd;

static int get_varint(rd *r, uint64_t *out)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (r->p >= r->end)
            return DDB_ECORRUPT;
        uint8_t c = *r->p++;
        v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80)) {
            *out = v;
            return DDB_OK;
        }
    }
    return DDB_ECORRUPT;
}

static int get_bytes(rd *r, const char **out, uint32_t *len)
{
    uint64_t n;
    if (get_varint(r, &n) || n > (uint64_t)(r->end - r->p) || n > UINT32_MAX)
        return DDB_ECORRUPT;
    char *s = ddb_arena_alloc(r->a, n + 1);
    if (!s)
        return DDB_ENOMEM;
    memcpy(s, r->p, n);
    s[n] = '\0';
    r->p += n;
    *out = s;
    *len = (uint32_t)n;
    return DDB_OK;
}

static int decode_map_body(rd *r, ddb_value *m, int depth);

static int decode_value(rd *r, ddb_value **out, int depth)
{
    if (r->p >= r->end || depth > 64)
        return DDB_ECORRUPT;
    ddb_value *v = ddb_arena_alloc(r->a, sizeof *v);
    if (!v)
        return DDB_ENOMEM;
    memset(v, 0, sizeof *v);
    v->type = (ddb_type)*r->p++;
    int rc = DDB_OK;
    uint64_t n;
    switch (v->type) {
    case DDB_TS:
    case DDB_TN:
    case DDB_TB:
        rc = get_bytes(r, &v->u.s, &v->len);
        break;
    case DDB_TBOOL:
        if (r->p >= r->end)
            return DDB_ECORRUPT;
        v->u.boolean = *r->p++ != 0;
        break;
    case DDB_TNULL:
        v->u.boolean = true;
        break;
    case DDB_TM:
        rc = decode_map_body(r, v, depth);
        break;
    case DDB_TL:
    case DDB_TSS:
    case DDB_TNS:
    case DDB_TBS:
        if (get_varint(r, &n) || n > (uint64_t)(r->end - r->p))
            return DDB_ECORRUPT;
        if (n) {
            v->u.l = ddb_arena_alloc(r->a, n * sizeof *v->u.l);
            if (!v->u.l)
                return DDB_ENOMEM;
        }
        v->len = v->cap = (uint32_t)n;
        for (uint64_t i = 0; i < n && !rc; i++)
            rc = decode_value(r, &v->u.l[i], depth + 1);
        break;
    default:
        return DDB_ECORRUPT;
    }
    *out = v;
    return rc;
}

static int decode_map_body(rd *r, ddb_value *m, int depth)
{
    uint64_t n;
    if (get_varint(r, &n) || n > (uint64_t)(r->end - r->p))
        return DDB_ECORRUPT;
    m->type = DDB_TM;
    m->len = m->cap = (uint32_t)n;
    if (n) {
        m->u.m = ddb_arena_alloc(r->a, n * sizeof *m->u.m);
        if (!m->u.m)
            return DDB_ENOMEM;
    }
    for (uint64_t i = 0; i < n; i++) {
        ddb_attr *at = &m->u.m[i];
        int rc = get_bytes(r, &at->name, &at->name_len);
        if (!rc)
            rc = decode_value(r, &at->value, depth + 1);
        if (rc)
            return rc;
    }
    return DDB_OK;
}

int ddb_record_size(const uint8_t *p, size_t n, size_t *size)
{
    rd r = {p, p + n, NULL};
    uint64_t s;
    if (n < 1 || *r.p++ != RECORD_VERSION || get_varint(&r, &s))
        return DDB_ECORRUPT;
    *size = (size_t)s;
    return DDB_OK;
}

int ddb_decode_item(const uint8_t *p, size_t n, ddb_arena *a, ddb_item **out)
{
    rd r = {p, p + n, a};
    uint64_t s;
    if (n < 1 || *r.p++ != RECORD_VERSION || get_varint(&r, &s))
        return DDB_ECORRUPT;
    ddb_item *it = ddb_item_new(a);
    if (!it)
        return DDB_ENOMEM;
    int rc = decode_map_body(&r, &it->map, 0);
    if (rc)
        return rc;
    if (r.p != r.end)
        return DDB_ECORRUPT;
    *out = it;
    return DDB_OK;
}
