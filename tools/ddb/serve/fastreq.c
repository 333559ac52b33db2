/* ddb serve: the request decoder without a tree for the item operations
 * (PutItem, GetItem, DeleteItem, UpdateItem, Query, Scan, BatchWriteItem,
 * BatchGetItem, TransactWriteItems, TransactGetItems).  One pass over the
 * body: the attribute values of Item, Key and ExpressionAttributeValues
 * (and of the batches' and transactions' items and keys) become libddb
 * items straight in the request's arena, with no jansson tree for them; the request's other
 * members become the small jansson object json_loadb() would have built,
 * where an empty object stands in for each decoded member (w_item and
 * w_values take the decoded item for it: fastreq_item()).
 *
 * It takes only what it is sure of and declines the rest: a legacy
 * parameter, any value DynamoDB or jansson would refuse (the refusal's
 * words come from the tree path), a name given twice, a \u0000, a number
 * in the request's own members that is not a small integer, more than
 * FAST_MAX_MEMBERS members in one map, set or item, nesting past
 * FAST_MAX_DEPTH, more than FAST_MAX_DECODED decoded members, a body past
 * FAST_MAX_BODY.  A declined request is parsed again by jansson
 * (dispatch.c) and checked by wire.c and wire_shape.c, which answer as
 * DynamoDB does.  Each byte is read once; the sorted inserts into a map
 * or set are bounded by FAST_MAX_MEMBERS, so the work stays linear in the
 * body.  Calls libddb's public value API, jwrite.h's UTF-8 checks and
 * jansson. */
#include "serve.h"

#include <string.h>

#define FAST_MAX_BODY (1u << 20)
#define FAST_MAX_DEPTH 16
#define FAST_MAX_MEMBERS 256
#define FAST_MAX_DECODED 128

/* Where an object sits in the request: which of its members are decoded
 * as attribute values. */
typedef enum where {
    AT_OTHER,
    AT_TOP,
    AT_REQUEST_ITEMS,  /* BatchWriteItem's RequestItems */
    AT_TABLE_WRITES,   /* one table's array of write requests */
    AT_WRITE,          /* {"PutRequest": ...} or {"DeleteRequest": ...} */
    AT_PUT_REQUEST,
    AT_DELETE_REQUEST,
    AT_GET_TABLES,     /* BatchGetItem's RequestItems */
    AT_GET_TABLE,      /* one table's {"Keys": [...], ...} */
    AT_GET_KEYS,       /* its keys: each element decoded */
    AT_TX_ITEMS,       /* TransactItems */
    AT_TX_ITEM,        /* {"Put": ...}, {"Update": ...}, ..., {"Get": ...} */
    AT_TX_PUT,         /* a transaction's Put: Item and its values */
    AT_TX_KEYED,       /* its Update, Delete or ConditionCheck: Key and values */
    AT_TX_GET,         /* TransactGetItems' Get: Key */
} where;

typedef struct fp {
    const unsigned char *p, *end;
    serve_req *r;
} fp;

static bool is(const char *s, size_t n, const char *lit)
{
    return strlen(lit) == n && memcmp(s, lit, n) == 0;
}

static void ws(fp *f)
{
    while (f->p < f->end && (*f->p == ' ' || *f->p == '\t' || *f->p == '\n' || *f->p == '\r'))
        f->p++;
}

/* The next byte (after white space) is c: consumed. */
static bool take(fp *f, unsigned char c)
{
    ws(f);
    if (f->p < f->end && *f->p == c) {
        f->p++;
        return true;
    }
    return false;
}

static int hex4(const unsigned char *s, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        unsigned char c = s[i];
        unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0')
                     : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                     : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
                                            : 16u;
        if (d == 16)
            return -1;
        v = v * 16 + d;
    }
    *out = v;
    return 0;
}

/* The escapes of the string s[0..n) (checked as JSON text by str())
 * decoded into the arena, NUL-terminated.  A \u0000 or a lone surrogate
 * declines. */
static int unescape(fp *f, const unsigned char *s, size_t n, const char **out, size_t *len)
{
    char *o = ddb_arena_alloc(f->r->a, n + 1), *start = o;
    if (!o)
        return -1;
    const unsigned char *end = s + n;
    while (s < end) {
        if (*s != '\\') {
            *o++ = (char)*s++;
            continue;
        }
        unsigned char c = s[1];
        s += 2;
        static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
        const char *k = c ? strchr(from, c) : NULL;
        if (k) {
            *o++ = to[k - from];
            continue;
        }
        unsigned cp, lo;
        if (c != 'u' || end - s < 4 || hex4(s, &cp) || cp == 0 || (cp >= 0xDC00 && cp <= 0xDFFF))
            return -1;
        s += 4;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (end - s < 6 || s[0] != '\\' || s[1] != 'u' || hex4(s + 2, &lo) || lo < 0xDC00 || lo > 0xDFFF)
                return -1;
            s += 6;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        }
        if (cp < 0x80) {
            *o++ = (char)cp;
        } else if (cp < 0x800) {
            *o++ = (char)(0xC0 | cp >> 6);
            *o++ = (char)(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            *o++ = (char)(0xE0 | cp >> 12);
            *o++ = (char)(0x80 | (cp >> 6 & 0x3F));
            *o++ = (char)(0x80 | (cp & 0x3F));
        } else {
            *o++ = (char)(0xF0 | cp >> 18);
            *o++ = (char)(0x80 | (cp >> 12 & 0x3F));
            *o++ = (char)(0x80 | (cp >> 6 & 0x3F));
            *o++ = (char)(0x80 | (cp & 0x3F));
        }
    }
    *o = '\0';
    *out = start;
    *len = (size_t)(o - start);
    return 0;
}

/* A JSON string: *out points into the body when it has no escape (not
 * NUL-terminated), into the arena otherwise.  Raw control bytes and
 * ill-formed UTF-8 decline, as jansson refuses them. */
static int str(fp *f, const char **out, size_t *len)
{
    if (!take(f, '"'))
        return -1;
    const unsigned char *s = f->p, *q = s;
    bool escaped = false;
    for (;;) {
        while (f->end - q >= 8 && jw_plain8(q))
            q += 8;
        if (q == f->end)
            return -1;
        unsigned char c = *q;
        if (c == '"')
            break;
        if (c == '\\') {
            if (f->end - q < 2)
                return -1;
            escaped = true;
            q += 2;
        } else if (c < 0x20) {
            return -1;
        } else if (c < 0x80) {
            q++;
        } else {
            size_t k = jw_utf8_len(q, (size_t)(f->end - q));
            if (!k)
                return -1;
            q += k;
        }
    }
    f->p = q + 1;
    if (escaped)
        return unescape(f, s, (size_t)(q - s), out, len);
    *out = (const char *)s;
    *len = (size_t)(q - s);
    return 0;
}

/* An attribute name, NUL-terminated in the arena; an empty one declines. */
static int name(fp *f, const char **out)
{
    const char *s;
    size_t n;
    if (str(f, &s, &n) || n == 0)
        return -1;
    char *c = ddb_arena_alloc(f->r->a, n + 1);
    if (!c)
        return -1;
    memcpy(c, s, n);
    c[n] = '\0';
    *out = c;
    return 0;
}

static bool literal(fp *f, const char *lit)
{
    ws(f);
    size_t n = strlen(lit);
    if ((size_t)(f->end - f->p) < n || memcmp(f->p, lit, n))
        return false;
    f->p += n;
    return true;
}

/* ---- attribute values ----------------------------------------------------- */

static int attribute_value(fp *f, ddb_value **out, int depth);

static int scalar_of(fp *f, const char *type, size_t tlen, ddb_value **out)
{
    const char *s;
    size_t n;
    if (str(f, &s, &n))
        return -1;
    ddb_arena *a = f->r->a;
    if (tlen == 1 && type[0] == 'S')
        return (*out = ddb_v_s(a, s, n)) ? 0 : -1;
    if (tlen == 1 && type[0] == 'N') {
        char canon[DDB_NUMBER_TEXT_MAX];
        ddb_error e;
        if (ddb_number_canonical(s, n, canon, &e) != DDB_OK || !(*out = ddb_v_s(a, canon, strlen(canon))))
            return -1;
        (*out)->type = DDB_TN;
        return 0;
    }
    uint8_t *b = ddb_arena_alloc(a, n / 4 * 3 + 1);
    size_t blen = 0, bad = 0;
    if (!b || ddb_json_base64_decode(s, n, b, &blen, &bad) != DDB_OK)
        return -1;
    return (*out = ddb_v_b(a, b, blen)) ? 0 : -1;
}

/* SS, NS, BS: at least one element, none twice (ddb_set_add keeps one of
 * two equal elements: a set that did not grow had the element already). */
static int set_of(fp *f, const char *type, ddb_value **out)
{
    ddb_type st = type[0] == 'S' ? DDB_TSS : type[0] == 'N' ? DDB_TNS : DDB_TBS;
    ddb_value *set = ddb_v_set(f->r->a, st);
    if (!set || !take(f, '[') || take(f, ']'))
        return -1;
    do {
        ddb_value *e;
        uint32_t before = set->len;
        ddb_error err;
        if (set->len == FAST_MAX_MEMBERS || scalar_of(f, type, 1, &e) || ddb_set_add(f->r->a, set, e, &err) ||
            set->len == before)
            return -1;
    } while (take(f, ','));
    if (!take(f, ']'))
        return -1;
    *out = set;
    return 0;
}

static int list_of(fp *f, ddb_value **out, int depth)
{
    ddb_value *l = ddb_v_list(f->r->a);
    if (!l || !take(f, '['))
        return -1;
    if (!take(f, ']')) {
        do {
            ddb_value *v;
            if (attribute_value(f, &v, depth + 1) || ddb_list_append(f->r->a, l, v))
                return -1;
        } while (take(f, ','));
        if (!take(f, ']'))
            return -1;
    }
    *out = l;
    return 0;
}

static int map_of(fp *f, ddb_value **out, int depth)
{
    ddb_value *m = ddb_v_map(f->r->a);
    if (!m || !take(f, '{'))
        return -1;
    if (!take(f, '}')) {
        do {
            const char *k;
            ddb_value *v;
            if (m->len == FAST_MAX_MEMBERS || name(f, &k) || ddb_map_get(m, k) || !take(f, ':') ||
                attribute_value(f, &v, depth + 1) || ddb_map_set(f->r->a, m, k, v))
                return -1;
        } while (take(f, ','));
        if (!take(f, '}'))
            return -1;
    }
    *out = m;
    return 0;
}

/* {"TYPE": value}: exactly one member. */
static int attribute_value(fp *f, ddb_value **out, int depth)
{
    const char *t;
    size_t tl;
    if (depth > FAST_MAX_DEPTH || !take(f, '{') || str(f, &t, &tl) || !take(f, ':'))
        return -1;
    int rc;
    if (is(t, tl, "S") || is(t, tl, "N") || is(t, tl, "B"))
        rc = scalar_of(f, t, tl, out);
    else if (is(t, tl, "BOOL"))
        rc = literal(f, "true") ? (*out = ddb_v_bool(f->r->a, true)) ? 0 : -1
             : literal(f, "false") ? (*out = ddb_v_bool(f->r->a, false)) ? 0 : -1
                                   : -1;
    else if (is(t, tl, "NULL"))
        rc = literal(f, "true") && (*out = ddb_v_null(f->r->a)) ? 0 : -1;
    else if (is(t, tl, "L"))
        rc = list_of(f, out, depth);
    else if (is(t, tl, "M"))
        rc = map_of(f, out, depth);
    else if (is(t, tl, "SS") || is(t, tl, "NS") || is(t, tl, "BS"))
        rc = set_of(f, t, out);
    else
        rc = -1;
    return rc || !take(f, '}') ? -1 : 0;
}

/* An object of attributes (an item, a key, the expression's values): at
 * least one. */
static int item_of(fp *f, ddb_item **out, int depth)
{
    ddb_item *it = ddb_item_new(f->r->a);
    if (!it || !take(f, '{') || take(f, '}'))
        return -1;
    do {
        const char *k;
        ddb_value *v;
        if (ddb_item_count(it) == FAST_MAX_MEMBERS || name(f, &k) || ddb_item_get(it, k) || !take(f, ':') ||
            attribute_value(f, &v, depth + 1) || ddb_item_set(it, k, v))
            return -1;
    } while (take(f, ','));
    if (!take(f, '}'))
        return -1;
    *out = it;
    return 0;
}

/* ---- the request's own members --------------------------------------------- */

/* Members that the legacy translation (legacy.c) reads or rewrites, at
 * the top or in a BatchGetItem table's part: such a request goes through
 * the tree. */
static bool legacy_member(const char *k, size_t n)
{
    static const char *const names[] = {"Expected",     "ConditionalOperator", "AttributeUpdates", "KeyConditions",
                                        "QueryFilter",  "ScanFilter",          "AttributesToGet"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (is(k, n, names[i]))
            return true;
    return false;
}

/* Is member k of an object at `at` decoded as attributes? */
static bool decoded_member(serve_op_fn fn, where at, const char *k, size_t n)
{
    if (at == AT_PUT_REQUEST)
        return is(k, n, "Item");
    if (at == AT_DELETE_REQUEST || at == AT_TX_GET)
        return is(k, n, "Key");
    if (at == AT_TX_PUT || at == AT_TX_KEYED)
        return is(k, n, at == AT_TX_PUT ? "Item" : "Key") || is(k, n, "ExpressionAttributeValues");
    if (at != AT_TOP)
        return false;
    if (is(k, n, "Item"))
        return fn == op_put_item;
    if (is(k, n, "Key"))
        return fn == op_get_item || fn == op_delete_item || fn == op_update_item;
    if (is(k, n, "ExpressionAttributeValues"))
        return fn == op_put_item || fn == op_delete_item || fn == op_update_item || fn == op_query || fn == op_scan;
    return false;
}

static where inside(serve_op_fn fn, where at, const char *k, size_t n)
{
    switch (at) {
    case AT_TOP:
        if (is(k, n, "RequestItems"))
            return fn == op_batch_write ? AT_REQUEST_ITEMS : fn == op_batch_get ? AT_GET_TABLES : AT_OTHER;
        return is(k, n, "TransactItems") && (fn == op_transact_write || fn == op_transact_get) ? AT_TX_ITEMS
                                                                                               : AT_OTHER;
    case AT_REQUEST_ITEMS: return AT_TABLE_WRITES;
    case AT_WRITE:
        return is(k, n, "PutRequest") ? AT_PUT_REQUEST : is(k, n, "DeleteRequest") ? AT_DELETE_REQUEST : AT_OTHER;
    case AT_GET_TABLES: return AT_GET_TABLE;
    case AT_GET_TABLE: return is(k, n, "Keys") ? AT_GET_KEYS : AT_OTHER;
    case AT_TX_ITEM:
        if (fn == op_transact_get)
            return is(k, n, "Get") ? AT_TX_GET : AT_OTHER;
        return is(k, n, "Put") ? AT_TX_PUT
               : is(k, n, "Update") || is(k, n, "Delete") || is(k, n, "ConditionCheck") ? AT_TX_KEYED
                                                                                          : AT_OTHER;
    default: return AT_OTHER;
    }
}

static int member_value(fp *f, json_t **out, where at, int depth);

/* The decoded item of member k, and the empty object standing in for it. */
static int decoded(fp *f, json_t **out, int depth)
{
    serve_req *r = f->r;
    if (r->n_decoded == FAST_MAX_DECODED)
        return -1;
    if (!r->decoded && !(r->decoded = ddb_arena_alloc(r->a, FAST_MAX_DECODED * sizeof *r->decoded)))
        return -1;
    ddb_item *it;
    if (item_of(f, &it, depth + 1) || !(*out = json_object()))
        return -1;
    r->decoded[r->n_decoded++] = (serve_decoded){*out, it};
    return 0;
}

static int object_of(fp *f, json_t **out, where at, int depth)
{
    json_t *o = json_object();
    if (!o)
        return -1;
    f->p++; /* '{' */
    if (take(f, '}')) {
        *out = o;
        return 0;
    }
    do {
        const char *k;
        size_t n;
        json_t *v = NULL;
        if (str(f, &k, &n) || memchr(k, 0, n) || json_object_getn(o, k, n) || !take(f, ':') ||
            ((at == AT_TOP || at == AT_GET_TABLE) && legacy_member(k, n)))
            goto fail;
        int rc = decoded_member(f->r->op, at, k, n) ? decoded(f, &v, depth)
                                                   : member_value(f, &v, inside(f->r->op, at, k, n), depth + 1);
        if (rc || json_object_setn_new_nocheck(o, k, n, v)) {
            json_decref(v);
            goto fail;
        }
    } while (take(f, ','));
    if (take(f, '}')) {
        *out = o;
        return 0;
    }
fail:
    json_decref(o);
    return -1;
}

static int array_of(fp *f, json_t **out, where at, int depth)
{
    json_t *a = json_array();
    if (!a)
        return -1;
    f->p++; /* '[' */
    if (take(f, ']')) {
        *out = a;
        return 0;
    }
    do {
        json_t *v = NULL;
        int rc = at == AT_GET_KEYS ? decoded(f, &v, depth)
                 : member_value(f, &v, at == AT_TABLE_WRITES ? AT_WRITE : at == AT_TX_ITEMS ? AT_TX_ITEM : AT_OTHER,
                                depth + 1);
        if (rc || json_array_append_new(a, v))
            goto fail;
    } while (take(f, ','));
    if (take(f, ']')) {
        *out = a;
        return 0;
    }
fail:
    json_decref(a);
    return -1;
}

/* An integer as jansson reads one (no leading zero, no fraction or
 * exponent: those decline), of at most 18 digits. */
static int integer_of(fp *f, json_t **out)
{
    bool neg = f->p < f->end && *f->p == '-';
    const unsigned char *d = f->p + neg, *q = d;
    long long v = 0;
    while (q < f->end && *q >= '0' && *q <= '9' && q - d < 19)
        v = v * 10 + (*q++ - '0');
    if (q == d || q - d > 18 || (*d == '0' && q - d > 1) ||
        (q < f->end && (*q == '.' || *q == 'e' || *q == 'E' || (*q >= '0' && *q <= '9'))))
        return -1;
    f->p = q;
    return (*out = json_integer(neg ? -v : v)) ? 0 : -1;
}

static int member_value(fp *f, json_t **out, where at, int depth)
{
    if (depth > FAST_MAX_DEPTH)
        return -1;
    ws(f);
    if (f->p == f->end)
        return -1;
    switch (*f->p) {
    case '{': return object_of(f, out, at, depth);
    case '[': return array_of(f, out, at, depth);
    case '"': {
        const char *s;
        size_t n;
        return str(f, &s, &n) || !(*out = json_stringn_nocheck(s, n)) ? -1 : 0;
    }
    case 't': return literal(f, "true") && (*out = json_true()) ? 0 : -1;
    case 'f': return literal(f, "false") && (*out = json_false()) ? 0 : -1;
    case 'n': return literal(f, "null") && (*out = json_null()) ? 0 : -1;
    default: return integer_of(f, out);
    }
}

bool fastreq_applies(serve_op_fn fn)
{
    return fn == op_put_item || fn == op_get_item || fn == op_delete_item || fn == op_update_item ||
           fn == op_query || fn == op_scan || fn == op_batch_write || fn == op_batch_get ||
           fn == op_transact_write || fn == op_transact_get;
}

json_t *fastreq_decode(serve_req *r, const char *body, size_t len)
{
    if (!fastreq_applies(r->op) || len > FAST_MAX_BODY)
        return NULL;
    fp f = {(const unsigned char *)body, (const unsigned char *)body + len, r};
    json_t *in = NULL;
    ws(&f);
    if (f.p == f.end || *f.p != '{' || object_of(&f, &in, AT_TOP, 0) || (ws(&f), f.p != f.end)) {
        json_decref(in);
        r->decoded = NULL;
        r->n_decoded = 0;
        return NULL;
    }
    return in;
}

ddb_item *fastreq_item(const serve_req *r, const json_t *v)
{
    for (size_t i = 0; i < r->n_decoded; i++)
        if (r->decoded[i].stand_in == v)
            return r->decoded[i].item;
    return NULL;
}
