/* Binary item records (see codec.h for the layout). */
#include "core/codec.h"

#include "core/value.h"

#include <stdlib.h>
#include <string.h>

#define RECORD_VERSION DDBI_RECORD_VERSION

/* Room for n more bytes in b. */
static int grow(ddb_buf *b, size_t n)
{
    if (b->len + n <= b->cap)
        return DDB_OK;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + n)
        cap *= 2;
    uint8_t *np = realloc(b->p, cap);
    if (!np)
        return DDB_ENOMEM;
    b->p = np;
    b->cap = cap;
    return DDB_OK;
}

int ddbi_buf_put(ddb_buf *b, const void *p, size_t n)
{
    int rc = grow(b, n);
    if (rc)
        return rc;
    if (n)
        memcpy(b->p + b->len, p, n);
    b->len += n;
    return DDB_OK;
}

int ddbi_buf_varint(ddb_buf *b, uint64_t v)
{
    uint8_t tmp[10];
    size_t n = 0;
    do {
        tmp[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
    return ddbi_buf_put(b, tmp, n);
}

void ddbi_buf_free(ddb_buf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

/* What the record encoder learns of the values it writes, in the same walk:
 * their DynamoDB size, and whether one of them is what a write must refuse. */
typedef struct sizing {
    size_t size;
    bool bad;
} sizing;

/* Room for n more bytes in b (b NULL: none needed). */
static int reserve(ddb_buf *b, size_t n)
{
    return b ? grow(b, n) : DDB_OK;
}

static void w_byte(ddb_buf *b, uint8_t x)
{
    if (b)
        b->p[b->len++] = x;
}

static void w_varint(ddb_buf *b, uint64_t v)
{
    if (!b)
        return;
    do {
        b->p[b->len++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
}

static void w_bytes(ddb_buf *b, const void *p, size_t n)
{
    if (b && n) {
        memcpy(b->p + b->len, p, n);
        b->len += n;
    }
}

/* Append v (b NULL: nothing); with z, add its DynamoDB size (ddb_value_size's
 * rules) and note a value to refuse (ddbi_value_node_problem at depth).
 * Each value reserves its own bytes once (type, a varint, its text). */
static int encode_value(ddb_buf *b, const ddb_value *v, sizing *z, int depth)
{
    if (z && !z->bad && ddbi_value_node_checked(v, depth)) {
        char why[220];
        z->bad = ddbi_value_node_problem(v, depth, why, sizeof why) != NULL;
    }
    int rc;
    switch (v->type) {
    case DDB_TS:
    case DDB_TN:
    case DDB_TB:
        if (z)
            z->size += v->type == DDB_TN ? ddbi_number_size(v->u.s, v->len) : v->len;
        if ((rc = reserve(b, 11 + (size_t)v->len)))
            return rc;
        w_byte(b, (uint8_t)v->type);
        w_varint(b, v->len);
        w_bytes(b, v->u.s, v->len);
        return DDB_OK;
    case DDB_TBOOL:
    case DDB_TNULL:
        if (z)
            z->size += 1;
        if ((rc = reserve(b, 2)))
            return rc;
        w_byte(b, (uint8_t)v->type);
        if (v->type == DDB_TBOOL)
            w_byte(b, v->u.boolean);
        return DDB_OK;
    case DDB_TM:
        if (z)
            z->size += 3;
        if ((rc = reserve(b, 11)))
            return rc;
        w_byte(b, (uint8_t)v->type);
        w_varint(b, v->len);
        for (uint32_t i = 0; i < v->len; i++) {
            if (z)
                z->size += 1 + v->u.m[i].name_len;
            if ((rc = reserve(b, 10 + (size_t)v->u.m[i].name_len)))
                return rc;
            w_varint(b, v->u.m[i].name_len);
            w_bytes(b, v->u.m[i].name, v->u.m[i].name_len);
            if ((rc = encode_value(b, v->u.m[i].value, z, depth + 1)))
                return rc;
        }
        return DDB_OK;
    case DDB_TL:
    case DDB_TSS:
    case DDB_TNS:
    case DDB_TBS:
        if (z && v->type == DDB_TL)
            z->size += 3 + (size_t)v->len; /* 3, and 1 per element */
        if ((rc = reserve(b, 11)))
            return rc;
        w_byte(b, (uint8_t)v->type);
        w_varint(b, v->len);
        for (uint32_t i = 0; i < v->len; i++)
            if ((rc = encode_value(b, v->u.l[i], z, v->type == DDB_TL ? depth + 1 : depth)))
                return rc;
        return DDB_OK;
    default: /* no type: refused (z->bad); its type byte only */
        if ((rc = reserve(b, 1)))
            return rc;
        w_byte(b, (uint8_t)v->type);
        return DDB_OK;
    }
}

int ddbi_encode_item(ddb_buf *b, const ddb_value *map, size_t size)
{
    uint8_t ver = RECORD_VERSION;
    int rc = ddbi_buf_put(b, &ver, 1);
    if (!rc)
        rc = ddbi_buf_varint(b, size);
    if (!rc)
        rc = ddbi_buf_varint(b, map->len);
    for (uint32_t i = 0; !rc && i < map->len; i++) {
        if (!(rc = ddbi_buf_varint(b, map->u.m[i].name_len)) &&
            !(rc = ddbi_buf_put(b, map->u.m[i].name, map->u.m[i].name_len)))
            rc = encode_value(b, map->u.m[i].value, NULL, 1);
    }
    return rc;
}

/* The record's header is written after its body, when the size and the
 * hint's offsets are known: the body goes after room for the longest
 * header (a version byte, a 10-byte varint, and a hint of a count and
 * DDBI_HINT_MAX 5-byte offsets), and the header ends where the body
 * starts. */
#define HEADER_ROOM (11 + 1 + 5 * DDBI_HINT_MAX)

/* Append varint v at p; the byte after it. */
static uint8_t *put_varint(uint8_t *p, uint64_t v)
{
    do {
        *p++ = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
    return p;
}

int ddbi_encode_record(ddb_buf *b, const ddb_value *map, const ddbi_hint_names *hint, ddbi_record *out)
{
    size_t start = b ? b->len : 0;
    sizing z = {0, false};
    out->bad_attr = UINT32_MAX;
    int rc = reserve(b, HEADER_ROOM + 10);
    if (rc)
        return rc;
    if (b)
        b->len += HEADER_ROOM;
    size_t body = b ? b->len : 0;
    uint64_t hint_off[DDBI_HINT_MAX];
    bool hinted[DDBI_HINT_MAX] = {false};
    uint32_t nh = hint && b ? (hint->n < DDBI_HINT_MAX ? hint->n : DDBI_HINT_MAX) : 0, found = 0;
    w_varint(b, map->len);
    for (uint32_t i = 0; i < map->len; i++) {
        for (uint32_t j = 0; found < nh && j < nh; j++)
            if (!hinted[j] && hint->len[j] == map->u.m[i].name_len &&
                memcmp(hint->name[j], map->u.m[i].name, hint->len[j]) == 0) {
                hint_off[j] = b->len - body;
                hinted[j] = true;
                found++;
                break; /* an attribute once, whatever hint repeats */
            }
        z.size += map->u.m[i].name_len;
        if ((rc = reserve(b, 10 + (size_t)map->u.m[i].name_len)))
            return rc;
        w_varint(b, map->u.m[i].name_len);
        w_bytes(b, map->u.m[i].name, map->u.m[i].name_len);
        if ((rc = encode_value(b, map->u.m[i].value, &z, 1)))
            return rc;
        if (z.bad && out->bad_attr == UINT32_MAX)
            out->bad_attr = i;
    }
    out->size = z.size;
    out->off = out->len = 0;
    if (!b)
        return DDB_OK;
    uint8_t hdr[HEADER_ROOM], *h = hdr;
    *h++ = found ? DDBI_RECORD_VERSION_HINTED : RECORD_VERSION;
    h = put_varint(h, z.size);
    if (found) {
        h = put_varint(h, found);
        for (uint32_t j = 0; j < nh; j++)
            if (hinted[j])
                h = put_varint(h, hint_off[j]);
    }
    size_t n = (size_t)(h - hdr);
    out->off = start + HEADER_ROOM - n;
    memcpy(b->p + out->off, hdr, n);
    out->len = b->len - out->off;
    return DDB_OK;
}

typedef struct rd {
    const uint8_t *p, *end;
    ddb_arena *a;
} rd;

/* Decoding runs in two passes: measure() walks the record once, checking
 * every length against the bytes left, and counts the values, map entries
 * and list slots it holds; fill() then carves the whole item out of one
 * arena allocation.  The strings are not copied one by one: the record body
 * is copied once, and each string is NUL-terminated in that copy over the
 * byte that follows it (the next field's length or type, which fill()
 * reads from the original).  One allocation and one copy instead of three
 * allocations and two copies per attribute is most of the cost of reading
 * an item.
 * Both passes are loops over an explicit stack of open containers with
 * their cursors in local variables: kept in a struct behind a pointer, the
 * cursors were stored and reloaded around every field, and gcc's merged
 * 16-byte reloads of two of them stalled on store forwarding. */

#define DECODE_DEPTH 64 /* deepest value (top-level attributes are depth 1) */

typedef struct dsize {
    size_t values, attrs, slots;
} dsize;

#define varint_at ddbi_varint_at

/* A length-prefixed string at p: the byte after it, or NULL. */
static inline const uint8_t *skip_string(const uint8_t *p, const uint8_t *end)
{
    uint64_t n;
    if (!(p = varint_at(p, end, &n)) || n > (uint64_t)(end - p) || n > UINT32_MAX)
        return NULL;
    return p + n;
}

/* Check the container body at p (a map's when map; base: the depth of
 * the container, 0 = a record's top-level map) and count what it holds:
 * the byte after it, or NULL when damaged. */
static const uint8_t *walk(const uint8_t *p, const uint8_t *end, bool map, int base, dsize *z)
{
    struct {
        uint64_t left;
        bool map;
    } st[DECODE_DEPTH + 1];
    int top = 0;
    uint64_t n;
    if (!(p = varint_at(p, end, &n)) || n > (uint64_t)(end - p))
        return NULL;
    size_t values = 0, attrs = map ? n : 0, slots = map ? 0 : n;
    st[0].left = n;
    st[0].map = map;
    while (top >= 0) {
        if (st[top].left == 0) {
            top--;
            continue;
        }
        st[top].left--;
        if (st[top].map && !(p = skip_string(p, end)))
            return NULL;
        /* a value at depth top + 1 */
        if (p >= end)
            return NULL;
        values++;
        switch ((ddb_type)*p++) {
        case DDB_TS:
        case DDB_TN:
        case DDB_TB:
            if (!(p = skip_string(p, end)))
                return NULL;
            break;
        case DDB_TBOOL:
            if (p >= end)
                return NULL;
            p++;
            break;
        case DDB_TNULL:
            break;
        case DDB_TM:
        case DDB_TL:
        case DDB_TSS:
        case DDB_TNS:
        case DDB_TBS: {
            bool map = p[-1] == DDB_TM;
            if (!(p = varint_at(p, end, &n)) || n > (uint64_t)(end - p))
                return NULL;
            if (n) {
                if (top + 1 + base >= DECODE_DEPTH) /* its elements would be deeper than 64 */
                    return NULL;
                if (map)
                    attrs += n;
                else
                    slots += n;
                top++;
                st[top].left = n;
                st[top].map = map;
            }
            break;
        }
        default:
            return NULL;
        }
    }
    *z = (dsize){values, attrs, slots};
    return p;
}

/* Check the map body at p..end and count what it holds. */
static int measure(const uint8_t *p, const uint8_t *end, dsize *z)
{
    return walk(p, end, true, 0, z) == end ? DDB_OK : DDB_ECORRUPT;
}

const uint8_t *ddbi_skip_body(const uint8_t *p, const uint8_t *end, bool map)
{
    dsize z;
    return walk(p, end, map, 1, &z);
}

/* A varint measure() has checked. */
static inline uint64_t varint_ok(const uint8_t **pp)
{
    const uint8_t *p = *pp;
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
        uint8_t c = *p++;
        v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80)) {
            *pp = p;
            return v;
        }
    }
}

/* Build the map body (checked by measure()) into map, carving values,
 * attributes and list slots from the three areas given; copy holds the
 * body's bytes and one more.  Parsing reads body, never the copy. */
static void fill(const uint8_t *body, char *copy, ddb_value *map, ddb_value *v, ddb_attr *at, ddb_value **sl)
{
    const uint8_t *p = body;
    struct {
        ddb_value *c; /* the container being filled */
        uint32_t i, n;
    } st[DECODE_DEPTH + 1];
    int top = 0;
    uint32_t n = (uint32_t)varint_ok(&p);
    map->type = DDB_TM;
    map->len = map->cap = n;
    map->u.m = n ? at : NULL;
    at += n;
    st[0].c = map;
    st[0].i = 0;
    st[0].n = n;
    while (top >= 0) {
        if (st[top].i == st[top].n) {
            top--;
            continue;
        }
        ddb_value *c = st[top].c;
        uint32_t i = st[top].i++;
        ddb_value *x = v++;
        if (c->type == DDB_TM) {
            ddb_attr *a = &c->u.m[i];
            n = (uint32_t)varint_ok(&p);
            char *str = copy + (p - body);
            str[n] = '\0';
            a->name = str;
            a->name_len = n;
            a->value = x;
            p += n;
        } else {
            c->u.l[i] = x;
        }
        x->type = (ddb_type)*p++;
        x->cap = 0;
        switch (x->type) {
        case DDB_TS:
        case DDB_TN:
        case DDB_TB:
            n = (uint32_t)varint_ok(&p);
            x->u.s = copy + (p - body);
            copy[p - body + n] = '\0';
            x->len = n;
            p += n;
            break;
        case DDB_TBOOL:
            x->len = 0;
            x->u.l = NULL;
            x->u.boolean = *p++ != 0;
            break;
        case DDB_TNULL:
            x->len = 0;
            x->u.l = NULL;
            x->u.boolean = true;
            break;
        case DDB_TM:
            n = (uint32_t)varint_ok(&p);
            x->len = x->cap = n;
            x->u.m = n ? at : NULL;
            at += n;
            goto open;
        default: /* L and sets */
            n = (uint32_t)varint_ok(&p);
            x->len = x->cap = n;
            x->u.l = n ? sl : NULL;
            sl += n;
        open:
            if (n) {
                top++;
                st[top].c = x;
                st[top].i = 0;
                st[top].n = n;
            }
            break;
        }
    }
}

int ddbi_decode_item(const uint8_t *p, size_t n, ddb_arena *a, ddb_item **out)
{
    rd r = {p, p + n, a};
    ddbi_rec_header h;
    if (ddbi_record_header(p, n, &h))
        return DDB_ECORRUPT;
    r.p = h.body;
    /* The walk below is a chain of dependent loads (each length says where
     * the next field starts): ask for every cache line of the record at
     * once so that their misses overlap. */
    for (size_t off = 64; off < n && off < 4096; off += 64)
        __builtin_prefetch(p + off);
    dsize z;
    int rc = measure(r.p, r.end, &z);
    if (rc)
        return rc;
    /* item, values, attributes, list slots (all 8-byte aligned), then the
     * body's bytes and one for the last string's NUL */
    size_t body = (size_t)(r.end - r.p);
    size_t size = sizeof(ddb_item) + z.values * sizeof(ddb_value) + z.attrs * sizeof(ddb_attr) +
                  z.slots * sizeof(ddb_value *) + body + 1;
    uint8_t *mem = ddb_arena_alloc(a, size);
    if (!mem)
        return DDB_ENOMEM;
    ddb_item *it = (ddb_item *)mem;
    it->arena = a;
    ddb_value *v = (ddb_value *)(mem + sizeof(ddb_item));
    ddb_attr *at = (ddb_attr *)(v + z.values);
    ddb_value **sl = (ddb_value **)(at + z.attrs);
    char *copy = (char *)(sl + z.slots);
    memcpy(copy, r.p, body);
    fill(r.p, copy, &it->map, v, at, sl);
    *out = it;
    return DDB_OK;
}

int ddbi_decode_value(const uint8_t *p, size_t n, ddb_arena *a, ddb_value **out)
{
    /* as the body of a map of one attribute with an empty name */
    uint8_t *body = ddb_arena_alloc(a, n + 2);
    if (!body)
        return DDB_ENOMEM;
    body[0] = 1;
    body[1] = 0;
    if (n)
        memcpy(body + 2, p, n);
    dsize z;
    int rc = measure(body, body + n + 2, &z);
    if (rc)
        return rc;
    size_t size = sizeof(ddb_value) + z.values * sizeof(ddb_value) + z.attrs * sizeof(ddb_attr) +
                  z.slots * sizeof(ddb_value *) + n + 3;
    uint8_t *mem = ddb_arena_alloc(a, size);
    if (!mem)
        return DDB_ENOMEM;
    ddb_value *map = (ddb_value *)mem, *v = map + 1;
    ddb_attr *at = (ddb_attr *)(v + z.values);
    ddb_value **sl = (ddb_value **)(at + z.attrs);
    char *copy = (char *)(sl + z.slots);
    memcpy(copy, body, n + 2);
    fill(body, copy, map, v, at, sl);
    *out = map->u.m[0].value;
    return DDB_OK;
}
