/* Value trees: constructors, containers, ordering, DynamoDB sizes. */
#include "core/value.h"

#include "core/error.h"
#include "core/number.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const type_names[] = {"?", "S", "N", "B", "BOOL", "NULL", "L", "M", "SS", "NS", "BS"};

const char *ddb_type_name(ddb_type t)
{
    return (unsigned)t < sizeof type_names / sizeof *type_names ? type_names[t] : "?";
}

static ddb_value *vnew(ddb_arena *a, ddb_type t)
{
    ddb_value *v = ddb_arena_alloc(a, sizeof *v);
    if (v) {
        memset(v, 0, sizeof *v);
        v->type = t;
    }
    return v;
}

static ddb_value *bytes_value(ddb_arena *a, ddb_type t, const void *p, size_t len)
{
    if (len > UINT32_MAX)
        return NULL;
    ddb_value *v = vnew(a, t);
    char *copy = v ? ddb_arena_alloc(a, len + 1) : NULL;
    if (!copy)
        return NULL;
    if (len)
        memcpy(copy, p, len);
    copy[len] = '\0';
    v->u.s = copy;
    v->len = (uint32_t)len;
    return v;
}

ddb_value *ddb_v_s(ddb_arena *a, const char *s, size_t len)
{
    return bytes_value(a, DDB_TS, s, len);
}

ddb_value *ddb_v_str(ddb_arena *a, const char *s)
{
    return bytes_value(a, DDB_TS, s, strlen(s));
}

ddb_value *ddb_v_b(ddb_arena *a, const void *bytes, size_t len)
{
    return bytes_value(a, DDB_TB, bytes, len);
}

ddb_value *ddb_v_bool(ddb_arena *a, bool b)
{
    ddb_value *v = vnew(a, DDB_TBOOL);
    if (v)
        v->u.boolean = b;
    return v;
}

ddb_value *ddb_v_null(ddb_arena *a)
{
    ddb_value *v = vnew(a, DDB_TNULL);
    if (v)
        v->u.boolean = true;
    return v;
}

static ddb_value *dec_value(ddb_arena *a, const ddb_dec *d)
{
    char buf[DDB_NUMBER_TEXT_MAX];
    size_t n = ddbi_dec_format(d, buf);
    return bytes_value(a, DDB_TN, buf, n);
}

ddb_value *ddb_v_i64(ddb_arena *a, int64_t x)
{
    ddb_dec d;
    ddbi_dec_from_i64(x, &d);
    return dec_value(a, &d);
}

ddb_value *ddb_v_u64(ddb_arena *a, uint64_t x)
{
    ddb_dec d;
    ddbi_dec_from_u64(x, &d);
    return dec_value(a, &d);
}

int ddb_v_n(ddb_arena *a, const char *text, ddb_value **out, ddb_error *err)
{
    ddb_dec d;
    *out = NULL;
    if (!text)
        return ddbi_fail(err, DDB_EINVAL, "number text is NULL");
    int rc = ddbi_dec_parse(text, strlen(text), &d, err);
    if (rc)
        return rc;
    *out = dec_value(a, &d);
    return *out ? DDB_OK : ddbi_fail_oom(err, __func__);
}

int ddb_v_double(ddb_arena *a, double x, ddb_value **out, ddb_error *err)
{
    ddb_dec d;
    *out = NULL;
    int rc = ddbi_dec_from_double(x, &d, err);
    if (rc)
        return rc;
    *out = dec_value(a, &d);
    return *out ? DDB_OK : ddbi_fail_oom(err, __func__);
}

ddb_value *ddb_v_list(ddb_arena *a)
{
    return vnew(a, DDB_TL);
}

ddb_value *ddb_v_map(ddb_arena *a)
{
    return vnew(a, DDB_TM);
}

ddb_value *ddb_v_set(ddb_arena *a, ddb_type t)
{
    if (t != DDB_TSS && t != DDB_TNS && t != DDB_TBS)
        return NULL;
    return vnew(a, t);
}

/* Make room for one more slot of elem_size bytes in v's array. */
static void *grow(ddb_arena *a, ddb_value *v, void *arr, size_t elem_size)
{
    if (v->len < v->cap)
        return arr;
    uint32_t ncap = v->cap ? v->cap * 2 : 4;
    void *n = ddb_arena_alloc(a, ncap * elem_size);
    if (!n)
        return NULL;
    if (v->len)
        memcpy(n, arr, v->len * elem_size);
    v->cap = ncap;
    return n;
}

int ddb_list_append(ddb_arena *a, ddb_value *list, ddb_value *x)
{
    if (!list || list->type != DDB_TL || !x)
        return DDB_EINVAL;
    ddb_value **l = grow(a, list, list->u.l, sizeof *l);
    if (!l)
        return DDB_ENOMEM;
    list->u.l = l;
    l[list->len++] = x;
    return DDB_OK;
}

static int name_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
    int c = memcmp(a, b, alen < blen ? alen : blen);
    return c ? c : (alen < blen ? -1 : alen > blen);
}

long ddbi_map_find(const ddb_value *map, const char *name, size_t name_len)
{
    long lo = 0, hi = (long)map->len - 1;
    while (lo <= hi) {
        long mid = (lo + hi) / 2;
        const ddb_attr *at = &map->u.m[mid];
        int c = name_cmp(at->name, at->name_len, name, name_len);
        if (c == 0)
            return mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -lo - 1;
}

const ddb_value *ddbi_map_getn(const ddb_value *map, const char *name, size_t name_len)
{
    if (!map || map->type != DDB_TM)
        return NULL;
    long i = ddbi_map_find(map, name, name_len);
    return i >= 0 ? map->u.m[i].value : NULL;
}

const ddb_value *ddb_map_get(const ddb_value *map, const char *name)
{
    return name ? ddbi_map_getn(map, name, strlen(name)) : NULL;
}

int ddb_map_set(ddb_arena *a, ddb_value *map, const char *name, ddb_value *x)
{
    if (!map || map->type != DDB_TM || !name || !x)
        return DDB_EINVAL;
    size_t nlen = strlen(name);
    if (nlen > UINT32_MAX)
        return DDB_EINVAL;
    long i = ddbi_map_find(map, name, nlen);
    if (i >= 0) {
        map->u.m[i].value = x;
        return DDB_OK;
    }
    size_t at = (size_t)(-i - 1);
    ddb_attr *m = grow(a, map, map->u.m, sizeof *m);
    char *copy = m ? ddb_arena_alloc(a, nlen + 1) : NULL;
    if (!copy)
        return DDB_ENOMEM;
    memcpy(copy, name, nlen + 1);
    map->u.m = m;
    memmove(&m[at + 1], &m[at], (map->len - at) * sizeof *m);
    m[at] = (ddb_attr){copy, (uint32_t)nlen, x};
    map->len++;
    return DDB_OK;
}

static int attr_order(const void *x, const void *y)
{
    const ddb_attr *a = x, *b = y;
    return name_cmp(a->name, a->name_len, b->name, b->name_len);
}

int ddbi_map_adopt(ddb_value *map, ddb_attr *attrs, size_t n)
{
    if (!map || map->type != DDB_TM || map->len || n > UINT32_MAX)
        return DDB_EINVAL;
    if (n)
        qsort(attrs, n, sizeof *attrs, attr_order);
    for (size_t i = 1; i < n; i++)
        if (attr_order(&attrs[i - 1], &attrs[i]) == 0)
            return DDB_EINVAL;
    map->u.m = attrs;
    map->len = map->cap = (uint32_t)n;
    return DDB_OK;
}

static int value_order(const void *x, const void *y)
{
    return ddb_value_compare(*(ddb_value *const *)x, *(ddb_value *const *)y);
}

int ddbi_set_adopt(ddb_value *set, ddb_value **elems, size_t n, const ddb_value *dup[2])
{
    if (!set || (set->type != DDB_TSS && set->type != DDB_TNS && set->type != DDB_TBS) || set->len ||
        n > UINT32_MAX)
        return DDB_EINVAL;
    if (n)
        qsort(elems, n, sizeof *elems, value_order);
    for (size_t i = 1; i < n; i++)
        if (ddb_value_compare(elems[i - 1], elems[i]) == 0) {
            dup[0] = elems[i - 1];
            dup[1] = elems[i];
            return DDB_EVALIDATION;
        }
    set->u.set = elems;
    set->len = set->cap = (uint32_t)n;
    return DDB_OK;
}

int ddb_map_remove(ddb_value *map, const char *name)
{
    if (!map || map->type != DDB_TM || !name)
        return 0;
    long i = ddbi_map_find(map, name, strlen(name));
    if (i < 0)
        return 0;
    memmove(&map->u.m[i], &map->u.m[i + 1], (map->len - (size_t)i - 1) * sizeof *map->u.m);
    map->len--;
    return 1;
}

static ddb_type set_elem_type(ddb_type set)
{
    return set == DDB_TSS ? DDB_TS : set == DDB_TNS ? DDB_TN : DDB_TB;
}

int ddb_set_add(ddb_arena *a, ddb_value *set, ddb_value *x, ddb_error *err)
{
    if (!set || !x || (set->type != DDB_TSS && set->type != DDB_TNS && set->type != DDB_TBS))
        return ddbi_fail(err, DDB_EINVAL, "ddb_set_add needs a set and a value");
    if (x->type != set_elem_type(set->type))
        return ddbi_fail(err, DDB_EVALIDATION, "a %s set cannot hold a %s value", ddb_type_name(set->type),
                        ddb_type_name(x->type));
    long lo = 0, hi = (long)set->len - 1;
    while (lo <= hi) {
        long mid = (lo + hi) / 2;
        int c = ddb_value_compare(set->u.set[mid], x);
        if (c == 0)
            return DDB_OK;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    ddb_value **s = grow(a, set, set->u.set, sizeof *s);
    if (!s)
        return ddbi_fail_oom(err, __func__);
    set->u.set = s;
    memmove(&s[lo + 1], &s[lo], (set->len - (size_t)lo) * sizeof *s);
    s[lo] = x;
    set->len++;
    return DDB_OK;
}

ddb_value *ddb_value_copy(ddb_arena *a, const ddb_value *v)
{
    if (!v)
        return NULL;
    switch (v->type) {
    case DDB_TS:
    case DDB_TN:
    case DDB_TB:
        return bytes_value(a, v->type, v->u.s, v->len);
    case DDB_TBOOL:
    case DDB_TNULL: {
        ddb_value *c = vnew(a, v->type);
        if (c)
            c->u.boolean = v->u.boolean;
        return c;
    }
    case DDB_TL:
    case DDB_TSS:
    case DDB_TNS:
    case DDB_TBS: {
        ddb_value *c = vnew(a, v->type);
        ddb_value **arr = c && v->len ? ddb_arena_alloc(a, v->len * sizeof *arr) : NULL;
        if (!c || (v->len && !arr))
            return NULL;
        for (uint32_t i = 0; i < v->len; i++)
            if (!(arr[i] = ddb_value_copy(a, v->u.l[i])))
                return NULL;
        c->u.l = arr;
        c->len = c->cap = v->len;
        return c;
    }
    case DDB_TM: {
        ddb_value *c = vnew(a, DDB_TM);
        ddb_attr *m = c && v->len ? ddb_arena_alloc(a, v->len * sizeof *m) : NULL;
        if (!c || (v->len && !m))
            return NULL;
        for (uint32_t i = 0; i < v->len; i++) {
            char *n = ddb_arena_alloc(a, v->u.m[i].name_len + 1);
            if (!n)
                return NULL;
            memcpy(n, v->u.m[i].name, v->u.m[i].name_len + 1);
            m[i] = (ddb_attr){n, v->u.m[i].name_len, ddb_value_copy(a, v->u.m[i].value)};
            if (!m[i].value)
                return NULL;
        }
        c->u.m = m;
        c->len = c->cap = v->len;
        return c;
    }
    default:
        return NULL;
    }
}

int ddb_value_compare(const ddb_value *x, const ddb_value *y)
{
    if (x->type != y->type)
        return x->type < y->type ? -1 : 1;
    switch (x->type) {
    case DDB_TS:
    case DDB_TB:
        return name_cmp(x->u.s, x->len, y->u.s, y->len);
    case DDB_TN:
        return ddb_number_compare(x->u.s, y->u.s);
    case DDB_TBOOL:
        return (int)x->u.boolean - (int)y->u.boolean;
    case DDB_TNULL:
        return 0;
    case DDB_TM:
        for (uint32_t i = 0; i < x->len && i < y->len; i++) {
            int c = name_cmp(x->u.m[i].name, x->u.m[i].name_len, y->u.m[i].name, y->u.m[i].name_len);
            if (!c)
                c = ddb_value_compare(x->u.m[i].value, y->u.m[i].value);
            if (c)
                return c;
        }
        return x->len < y->len ? -1 : x->len > y->len;
    default: /* L and sets */
        for (uint32_t i = 0; i < x->len && i < y->len; i++) {
            int c = ddb_value_compare(x->u.l[i], y->u.l[i]);
            if (c)
                return c;
        }
        return x->len < y->len ? -1 : x->len > y->len;
    }
}

bool ddb_value_equal(const ddb_value *x, const ddb_value *y)
{
    return ddb_value_compare(x, y) == 0;
}

int ddb_value_to_i64(const ddb_value *v, int64_t *out)
{
    ddb_dec d;
    if (!v || v->type != DDB_TN || ddbi_dec_parse(v->u.s, v->len, &d, NULL))
        return DDB_EVALIDATION;
    return ddbi_dec_to_i64(&d, out);
}

int ddb_value_to_double(const ddb_value *v, double *out)
{
    ddb_dec d;
    if (!v || v->type != DDB_TN || ddbi_dec_parse(v->u.s, v->len, &d, NULL))
        return DDB_EVALIDATION;
    *out = ddbi_dec_to_double(&d);
    return DDB_OK;
}

/* An integer without leading zeros ("-1200"): its sign, digits and
 * significant digits (no trailing zeros), which is all ddbi_dec_size
 * reads; false for any other text. */
static bool plain_integer(const char *s, size_t len, ddb_dec *d)
{
    size_t i = len && s[0] == '-';
    if (i == len || len - i > DDB_DEC_DIGITS || s[i] == '0')
        return false;
    size_t last = 0; /* one past the last non-zero digit */
    for (size_t k = i; k < len; k++) {
        if (s[k] < '0' || s[k] > '9')
            return false;
        if (s[k] != '0')
            last = k + 1;
    }
    d->sign = i ? -1 : 1;
    d->exp = (int16_t)(len - i);
    d->ndig = (uint8_t)(last - i);
    return true;
}

size_t ddbi_number_size(const char *canon, size_t len)
{
    ddb_dec d;
    if (len == 1 && canon[0] == '0')
        return 1;
    if (plain_integer(canon, len, &d)) /* the common case, without a full parse */
        return ddbi_dec_size(&d);
    if (ddbi_dec_parse(canon, len, &d, NULL))
        return len; /* unreachable for stored values */
    return ddbi_dec_size(&d);
}

size_t ddb_value_size(const ddb_value *v)
{
    size_t n = 0;
    switch (v->type) {
    case DDB_TS:
    case DDB_TB:
        return v->len;
    case DDB_TN:
        return ddbi_number_size(v->u.s, v->len);
    case DDB_TBOOL:
    case DDB_TNULL:
        return 1;
    case DDB_TL:
        n = 3;
        for (uint32_t i = 0; i < v->len; i++)
            n += 1 + ddb_value_size(v->u.l[i]);
        return n;
    case DDB_TM:
        n = 3;
        for (uint32_t i = 0; i < v->len; i++)
            n += 1 + v->u.m[i].name_len + ddb_value_size(v->u.m[i].value);
        return n;
    case DDB_TSS:
    case DDB_TNS:
    case DDB_TBS:
        for (uint32_t i = 0; i < v->len; i++)
            n += ddb_value_size(v->u.set[i]);
        return n;
    default:
        return 0;
    }
}

/* The elements of an SS or NS, DynamoDB style ("[a, b]"), bounded. */
static void set_text(const ddb_value *v, char *buf, size_t cap)
{
    size_t n = (size_t)snprintf(buf, cap, "[");
    for (uint32_t i = 0; i < v->len && n + 8 < cap; i++) {
        const ddb_value *e = v->u.set[i];
        int w = (int)(e->len > 40 ? 40 : e->len);
        n += (size_t)snprintf(buf + n, cap - n, "%s%.*s", i ? ", " : "", w, e->u.s);
    }
    if (n < cap)
        snprintf(buf + n, cap - n, "]");
}

const char *ddbi_empty_set_problem(ddb_type set_type)
{
    /* DynamoDB's words, the double space and the article included */
    return set_type == DDB_TSS   ? "One or more parameter values were invalid: An string set  may not be empty"
           : set_type == DDB_TNS ? "One or more parameter values were invalid: An number set  may not be empty"
                                 : "One or more parameter values were invalid: Binary sets should not be empty";
}

const char *ddbi_value_node_problem(const ddb_value *v, int depth, char *buf, size_t cap)
{
    if (depth > 32)
        return "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond "
               "supported limit";
    switch (v->type) {
    case DDB_TS:
    case DDB_TN:
    case DDB_TB:
    case DDB_TBOOL:
    case DDB_TNULL:
    case DDB_TL:
    case DDB_TM:
        return NULL;
    case DDB_TSS:
    case DDB_TNS:
    case DDB_TBS:
        if (v->len == 0)
            return ddbi_empty_set_problem(v->type);
        for (uint32_t i = 0; i < v->len; i++) {
            if (v->u.set[i]->type != set_elem_type(v->type)) {
                snprintf(buf, cap, "One or more parameter values were invalid: a %s set holds a %s value",
                         ddb_type_name(v->type), ddb_type_name(v->u.set[i]->type));
                return buf;
            }
            if (i && ddb_value_compare(v->u.set[i - 1], v->u.set[i]) >= 0) {
                char elems[160] = "";
                if (v->type != DDB_TBS)
                    set_text(v, elems, sizeof elems);
                snprintf(buf, cap, "One or more parameter values were invalid: Input collection %s%s contains duplicates.",
                         elems, v->type == DDB_TBS ? "of type BS" : "");
                return buf;
            }
        }
        return NULL;
    default:
        return "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes";
    }
}

/* What a write must refuse about v or a value inside it (NULL = nothing). */
static const char *value_problem(const ddb_value *v, int depth, char *buf, size_t cap)
{
    const char *p = ddbi_value_node_problem(v, depth, buf, cap);
    if (p || (v->type != DDB_TL && v->type != DDB_TM))
        return p;
    for (uint32_t i = 0; i < v->len; i++)
        if ((p = value_problem(v->type == DDB_TL ? v->u.l[i] : v->u.m[i].value, depth + 1, buf, cap)))
            return p;
    return NULL;
}

int ddbi_value_check(const ddb_value *v, const char *path, int depth, ddb_error *err)
{
    char buf[220];
    const char *p = value_problem(v, depth, buf, sizeof buf);
    return p ? ddbi_fail(err, DDB_EVALIDATION, "%s (attribute %s)", p, path) : DDB_OK;
}

int ddbi_value_check_placeholder(const ddb_value *v, const char *key, size_t key_len, ddb_error *err)
{
    char buf[220];
    /* A value nests to 64 levels here, not 32: DynamoDB holds to 32 only what
     * an item stores, which the write checks (ExtendDB
     * tests/test_item_operations.py::TestNestingDepth). */
    const char *p = value_problem(v, 1 - 32, buf, sizeof buf);
    return p ? ddbi_fail(err, DDB_EVALIDATION, "ExpressionAttributeValues contains invalid value: %s for key %.*s", p,
                         (int)(key_len > 255 ? 255 : key_len), key)
             : DDB_OK;
}
