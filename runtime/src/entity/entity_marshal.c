/* Entity structs <-> items, and key templates, driven by descriptors. */
#include "entity/entity_internal.h"

#include "core/error.h"
#include "core/number.h"
#include "core/value.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- reading C fields ---- */

static int64_t get_int(const void *p, unsigned size)
{
    switch (size) {
    case 1: return *(const int8_t *)p;
    case 2: return *(const int16_t *)p;
    case 4: return *(const int32_t *)p;
    default: return *(const int64_t *)p;
    }
}

static uint64_t get_uint(const void *p, unsigned size)
{
    switch (size) {
    case 1: return *(const uint8_t *)p;
    case 2: return *(const uint16_t *)p;
    case 4: return *(const uint32_t *)p;
    default: return *(const uint64_t *)p;
    }
}

static double get_float(const void *p, unsigned size)
{
    return size == 4 ? (double)*(const float *)p : *(const double *)p;
}

/* Locate the field a template hole names; *base receives its address. */
static const ddb_field_desc *resolve(const ddb_entity_desc *e, const ddb_tseg *s, const void *obj, const char **base)
{
    const ddb_struct_desc *st = e->st;
    const char *p = obj;
    const ddb_field_desc *f = NULL;
    for (uint8_t i = 0; i < s->path_len; i++) {
        if (!st || s->path[i] >= st->n_fields)
            return NULL;
        f = &st->fields[s->path[i]];
        p += f->offset;
        st = f->type == DDB_F_STRUCT ? f->sub : NULL;
    }
    *base = p;
    return f;
}

int ddbi_ent_chars_len(const ddb_field_desc *f, const char *p, size_t *len, ddb_error *err)
{
    size_t n = strnlen(p, f->size);
    if (n == f->size)
        return ddbi_fail(err, DDB_EVALIDATION, "field %s is not NUL-terminated within its %u bytes (at most %u characters)",
                        f->name, f->size, f->size - 1u);
    *len = n;
    return DDB_OK;
}

/* The text a hole renders to, before filters.  *absent when optional and unset. */
static int hole_text(const ddb_field_desc *f, const char *p, const ddb_tseg *s, char *buf, size_t cap, const char **text,
                     size_t *len, bool *absent, ddb_error *err)
{
    *absent = false;
    int n = 0;
    switch (f->type) {
    case DDB_F_CHARS:
        *text = p;
        return ddbi_ent_chars_len(f, p, len, err);
    case DDB_F_STRING:
        *text = *(char *const *)p;
        if (!*text) {
            *absent = true;
            return DDB_OK;
        }
        *len = strlen(*text);
        return DDB_OK;
    case DDB_F_INT: {
        int64_t v = get_int(p, f->size);
        n = s->pad ? snprintf(buf, cap, "%0*lld", (int)s->pad, (long long)v) : snprintf(buf, cap, "%lld", (long long)v);
        break;
    }
    case DDB_F_UINT: {
        uint64_t v = get_uint(p, f->size);
        n = s->pad ? snprintf(buf, cap, "%0*llu", (int)s->pad, (unsigned long long)v)
                   : snprintf(buf, cap, "%llu", (unsigned long long)v);
        break;
    }
    case DDB_F_FLOAT: {
        ddb_dec d;
        int rc = ddbi_dec_from_double(get_float(p, f->size), &d, err);
        if (rc)
            return rc;
        char t[DDB_NUMBER_TEXT_MAX];
        ddbi_dec_format(&d, t);
        n = snprintf(buf, cap, "%s", t);
        break;
    }
    case DDB_F_BOOL:
        n = snprintf(buf, cap, "%s", *(const bool *)p ? "true" : "false");
        break;
    default:
        return ddbi_fail(err, DDB_EVALIDATION, "field %s cannot be used in a key template", f->name);
    }
    if (n < 0 || (size_t)n >= cap)
        return ddbi_fail(err, DDB_EVALIDATION, "field %s: key text longer than %zu bytes (padding %u)", f->name, cap,
                        s->pad);
    *text = buf;
    *len = (size_t)n;
    return DDB_OK;
}

static bool digits(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return true;
}

/* Apply a date-part filter to an ISO-8601 date text. */
static int date_part(const ddb_field_desc *f, uint8_t part, const char *t, size_t n, char *buf, const char **out,
                     size_t *olen, ddb_error *err)
{
    bool ok = n >= 4 && digits(t, 4);
    if (part != DDB_TP_YEAR)
        ok = ok && n >= 7 && t[4] == '-' && digits(t + 5, 2);
    if (part == DDB_TP_DAY)
        ok = ok && n >= 10 && t[7] == '-' && digits(t + 8, 2);
    if (!ok)
        return ddbi_fail(err, DDB_EVALIDATION, "field %s = \"%.*s\" is not an ISO-8601 date (YYYY-MM-DD...)", f->name,
                        (int)(n > 40 ? 40 : n), t);
    switch (part) {
    case DDB_TP_YEAR:
        *out = t;
        *olen = 4;
        break;
    case DDB_TP_MONTH:
        *out = t + 5;
        *olen = 2;
        break;
    case DDB_TP_DAY:
        *out = t + 8;
        *olen = 2;
        break;
    default: {
        int month = (t[5] - '0') * 10 + (t[6] - '0');
        if (month < 1 || month > 12)
            return ddbi_fail(err, DDB_EVALIDATION, "field %s = \"%.*s\" has month %d", f->name, (int)(n > 40 ? 40 : n), t,
                            month);
        buf[0] = 'Q';
        buf[1] = (char)('1' + (month - 1) / 3);
        *out = buf;
        *olen = 2;
    }
    }
    return DDB_OK;
}

int ddbi_ent_render_prefix(const ddb_entity_desc *e, const ddb_template *t, const void *obj, uint16_t max_holes,
                          bool through_literal, ddb_buf *b, bool *absent, ddb_error *err)
{
    *absent = false;
    uint16_t holes = 0;
    for (uint16_t i = 0; i < t->n; i++) {
        const ddb_tseg *s = &t->segs[i];
        if (s->lit) {
            if (holes >= max_holes && !through_literal)
                break;
            if (ddbi_buf_put(b, s->lit, strlen(s->lit)))
                return ddbi_fail_oom(err, __func__);
            if (holes >= max_holes)
                break;
            continue;
        }
        if (holes++ >= max_holes)
            break;
        const char *base;
        const ddb_field_desc *f = resolve(e, s, obj, &base);
        if (!f)
            return ddbi_fail(err, DDB_EINVAL, "entity %s: template hole with a bad field path", e->name);
        char buf[DDB_NUMBER_TEXT_MAX + 8], qbuf[4];
        const char *text = "";
        size_t len = 0;
        int rc = hole_text(f, base, s, buf, sizeof buf, &text, &len, absent, err);
        if (rc || *absent)
            return rc;
        if (s->part && (rc = date_part(f, s->part, text, len, qbuf, &text, &len, err)))
            return rc;
        size_t at = b->len;
        if (ddbi_buf_put(b, text, len))
            return ddbi_fail_oom(err, __func__);
        for (size_t j = at; s->kase && j < b->len; j++) {
            char c = (char)b->p[j];
            if (s->kase == DDB_TC_LOWER && c >= 'A' && c <= 'Z')
                b->p[j] = (uint8_t)(c - 'A' + 'a');
            else if (s->kase == DDB_TC_UPPER && c >= 'a' && c <= 'z')
                b->p[j] = (uint8_t)(c - 'a' + 'A');
        }
    }
    return DDB_OK;
}

uint16_t ddbi_ent_holes(const ddb_template *t)
{
    uint16_t n = 0;
    for (uint16_t i = 0; i < t->n; i++)
        n += t->segs[i].lit == NULL;
    return n;
}

int ddb_ent_render(const ddb_entity_desc *e, const ddb_template *t, const void *obj, ddb_arena *a, ddb_value **out,
                   ddb_error *err)
{
    *out = NULL;
    if (t->type == DDB_TN && t->n == 1 && !t->segs[0].lit && !t->segs[0].pad && !t->segs[0].part) {
        /* exactly one numeric field: its value */
        const char *base;
        const ddb_field_desc *f = resolve(e, &t->segs[0], obj, &base);
        if (!f)
            return ddbi_fail(err, DDB_EINVAL, "entity %s: template hole with a bad field path", e->name);
        if (f->type == DDB_F_INT)
            *out = ddb_v_i64(a, get_int(base, f->size));
        else if (f->type == DDB_F_UINT)
            *out = ddb_v_u64(a, get_uint(base, f->size));
        else if (f->type == DDB_F_FLOAT)
            return ddb_v_double(a, get_float(base, f->size), out, err);
        if (f->type == DDB_F_INT || f->type == DDB_F_UINT)
            return *out ? DDB_OK : ddbi_fail_oom(err, __func__);
    }
    ddb_buf b = {0};
    bool absent;
    int rc = ddbi_ent_render_prefix(e, t, obj, UINT16_MAX, true, &b, &absent, err);
    if (!rc && !absent) {
        if (t->type == DDB_TN) {
            /* text that must be a number, e.g. {order_date|year} */
            char *s = ddb_arena_alloc(a, b.len + 1);
            if (!s)
                rc = ddbi_fail_oom(err, __func__);
            else {
                memcpy(s, b.p ? (const char *)b.p : "", b.len);
                s[b.len] = '\0';
                rc = ddb_v_n(a, s, out, err);
            }
        } else if (!(*out = ddb_v_s(a, b.p ? (const char *)b.p : "", b.len)))
            rc = ddbi_fail_oom(err, __func__);
    }
    ddbi_buf_free(&b);
    return rc;
}

/* Store a rendered derived value into its C field. */
static int store_derived(const ddb_field_desc *f, const ddb_value *v, char *p, ddb_arena *a, ddb_error *err)
{
    if (f->type == DDB_F_CHARS && v->len >= f->size)
        return ddbi_fail(err, DDB_EVALIDATION, "derived field %s needs %u bytes, it holds %u", f->name, v->len + 1u,
                        f->size);
    if ((f->type == DDB_F_CHARS || f->type == DDB_F_STRING) && v->type == DDB_TN) {
        ddb_value s = *v;
        s.type = DDB_TS;
        return ddbi_ent_field_from(f, &s, p, a, err);
    }
    if ((f->type == DDB_F_INT || f->type == DDB_F_UINT || f->type == DDB_F_FLOAT) && v->type == DDB_TS) {
        ddb_value *n;
        int rc = ddb_v_n(a, v->u.s, &n, err);
        if (rc)
            return ddbi_fail(err, rc, "derived field %s: \"%s\" is not a number", f->name, v->u.s);
        return ddbi_ent_field_from(f, n, p, a, err);
    }
    return ddbi_ent_field_from(f, v, p, a, err);
}

int ddbi_ent_fill_derived(const ddb_entity_desc *e, void *obj, ddb_arena *a, ddb_error *err)
{
    for (uint16_t i = 0; i < e->st->n_fields; i++) {
        const ddb_field_desc *f = &e->st->fields[i];
        if (!(f->flags & DDB_FIELD_DERIVED) || !f->derived)
            continue;
        ddb_value *v;
        int rc = ddb_ent_render(e, f->derived, obj, a, &v, err);
        if (rc)
            return rc;
        if (v && (rc = store_derived(f, v, (char *)obj + f->offset, a, err)))
            return rc;
    }
    return DDB_OK;
}

/* ---- C value -> ddb_value ---- */

static int struct_to_map(const ddb_struct_desc *st, const char *obj, ddb_arena *a, ddb_value *m, int shard,
                         bool keys_only, ddb_error *err);

static int elem_value(uint8_t type, uint32_t size, const ddb_struct_desc *sub, const char *name, const char *p,
                      ddb_arena *a, ddb_value **out, ddb_error *err);

static int set_value(const ddb_field_desc *f, const char *p, ddb_arena *a, ddb_value **out, ddb_error *err)
{
    size_t count;
    ddb_type st = f->type == DDB_F_SSET ? DDB_TSS : f->type == DDB_F_BSET ? DDB_TBS : DDB_TNS;
    const void *items;
    switch (f->type) {
    case DDB_F_SSET: {
        const ddb_string_set *s = (const void *)p;
        count = s->count;
        items = s->items;
        break;
    }
    case DDB_F_ISET: {
        const ddb_int_set *s = (const void *)p;
        count = s->count;
        items = s->items;
        break;
    }
    case DDB_F_DSET: {
        const ddb_double_set *s = (const void *)p;
        count = s->count;
        items = s->items;
        break;
    }
    default: {
        const ddb_bytes_set *s = (const void *)p;
        count = s->count;
        items = s->items;
    }
    }
    *out = NULL;
    if (!count)
        return DDB_OK;
    if (!items)
        return ddbi_fail(err, DDB_EINVAL, "field %s: count is %zu but items is NULL", f->name, count);
    ddb_value *set = ddb_v_set(a, st);
    for (size_t i = 0; set && i < count; i++) {
        ddb_value *v = NULL;
        int rc = DDB_OK;
        switch (f->type) {
        case DDB_F_SSET:
            v = ((char *const *)items)[i] ? ddb_v_str(a, ((char *const *)items)[i]) : NULL;
            if (!((char *const *)items)[i])
                return ddbi_fail(err, DDB_EVALIDATION, "field %s: element %zu is NULL", f->name, i);
            break;
        case DDB_F_ISET:
            v = ddb_v_i64(a, ((const int64_t *)items)[i]);
            break;
        case DDB_F_DSET:
            rc = ddb_v_double(a, ((const double *)items)[i], &v, err);
            break;
        default:
            v = ddb_v_b(a, ((const ddb_bytes *)items)[i].data, ((const ddb_bytes *)items)[i].len);
        }
        if (rc)
            return rc;
        if (!v)
            return ddbi_fail_oom(err, __func__);
        uint32_t before = set->len;
        if ((rc = ddb_set_add(a, set, v, err)))
            return rc;
        if (set->len == before)
            return ddbi_fail(err, DDB_EVALIDATION, "field %s: Input collection contains duplicates (element %zu)",
                            f->name, i);
    }
    *out = set;
    return set ? DDB_OK : ddbi_fail_oom(err, __func__);
}

static int elem_value(uint8_t type, uint32_t size, const ddb_struct_desc *sub, const char *name, const char *p,
                      ddb_arena *a, ddb_value **out, ddb_error *err)
{
    ddb_field_desc f = {.name = name, .type = type, .size = size, .sub = sub, .shard = -1};
    return ddbi_ent_field_value(&f, p, a, out, err);
}

int ddbi_ent_field_value(const ddb_field_desc *f, const char *p, ddb_arena *a, ddb_value **out, ddb_error *err)
{
    *out = NULL;
    size_t len = 0; /* set by ddbi_ent_chars_len (gcc cannot see it once inlined) */
    int rc;
    switch (f->type) {
    case DDB_F_CHARS:
        if ((rc = ddbi_ent_chars_len(f, p, &len, err)))
            return rc;
        *out = ddb_v_s(a, p, len);
        break;
    case DDB_F_STRING:
        if (!*(char *const *)p)
            return DDB_OK;
        *out = ddb_v_str(a, *(char *const *)p);
        break;
    case DDB_F_INT:
        if ((f->flags & DDB_FIELD_TTL) && get_int(p, f->size) == 0)
            return DDB_OK;
        *out = ddb_v_i64(a, get_int(p, f->size));
        break;
    case DDB_F_UINT:
        if ((f->flags & DDB_FIELD_TTL) && get_uint(p, f->size) == 0)
            return DDB_OK;
        *out = ddb_v_u64(a, get_uint(p, f->size));
        break;
    case DDB_F_FLOAT:
        if ((rc = ddb_v_double(a, get_float(p, f->size), out, err)))
            return ddbi_fail(err, rc, "field %s: %s", f->name, err ? err->message : "not a number");
        return DDB_OK;
    case DDB_F_BOOL:
        *out = ddb_v_bool(a, *(const bool *)p);
        break;
    case DDB_F_BYTES: {
        const ddb_bytes *b = (const void *)p;
        if (!b->data)
            return DDB_OK;
        *out = ddb_v_b(a, b->data, b->len);
        break;
    }
    case DDB_F_STRUCT:
        *out = ddb_v_map(a);
        if (*out && (rc = struct_to_map(f->sub, p, a, *out, -1, false, err)))
            return rc;
        break;
    case DDB_F_LIST: {
        const char *items = *(char *const *)p;
        size_t count = *(const size_t *)(p - f->offset + f->count_offset);
        if (!count)
            return DDB_OK;
        if (!items)
            return ddbi_fail(err, DDB_EINVAL, "field %s: count is %zu but the array is NULL", f->name, count);
        *out = ddb_v_list(a);
        for (size_t i = 0; *out && i < count; i++) {
            ddb_value *v;
            if ((rc = elem_value(f->elem_type, f->elem_size, f->sub, f->name, items + i * f->elem_size, a, &v, err)))
                return rc;
            if (!v) /* absent element (NULL string): keep the position as NULL */
                v = ddb_v_null(a);
            if (!v || ddb_list_append(a, *out, v))
                return ddbi_fail_oom(err, __func__);
        }
        break;
    }
    default:
        return set_value(f, p, a, out, err);
    }
    return *out ? DDB_OK : ddbi_fail_oom(err, __func__);
}

/* Fields of st into map m.  shard >= 0: only that shard's fields and keys;
 * keys_only: only DDB_FIELD_KEY fields. */
static int struct_to_map(const ddb_struct_desc *st, const char *obj, ddb_arena *a, ddb_value *m, int shard,
                         bool keys_only, ddb_error *err)
{
    for (uint16_t i = 0; i < st->n_fields; i++) {
        const ddb_field_desc *f = &st->fields[i];
        bool key = (f->flags & DDB_FIELD_KEY) != 0;
        if (keys_only && !key)
            continue;
        if (shard >= 0 && !key && f->shard != shard)
            continue;
        ddb_value *v;
        int rc = ddbi_ent_field_value(f, obj + f->offset, a, &v, err);
        if (rc)
            return rc;
        if (v && ddb_map_set(a, m, f->attr, v))
            return ddbi_fail_oom(err, __func__);
    }
    return DDB_OK;
}

int ddbi_ent_item_part(const ddb_entity_desc *e, const void *obj, int shard, ddb_arena *a, ddb_item **out,
                      ddb_error *err)
{
    ddb_item *it = ddb_item_new(a);
    if (!it)
        return ddbi_fail_oom(err, __func__);
    ddb_value *m = (ddb_value *)ddb_item_map(it);
    int rc = struct_to_map(e->st, obj, a, m, shard, false, err);
    if (rc)
        return rc;
    if (ddb_item_set_s(it, e->table->type_attr, e->name))
        return ddbi_fail_oom(err, __func__);
    /* keys: the primary key always; index keys when their fields are there */
    for (uint16_t k = 0; k < e->n_keys; k++) {
        const ddb_key_desc *kd = &e->keys[k];
        if (k > 0 && shard >= 0 && shard != (kd->shard >= 0 ? kd->shard : 0))
            continue; /* an index key lives on one shard item */
        ddb_value *pk, *sk = NULL;
        if ((rc = ddb_ent_render(e, &kd->pk, obj, a, &pk, err)))
            return rc;
        if (kd->sk_attr && (rc = ddb_ent_render(e, &kd->sk, obj, a, &sk, err)))
            return rc;
        if (!pk || (kd->sk_attr && !sk)) {
            if (k == 0)
                return ddbi_fail(err, DDB_EVALIDATION, "entity %s: a primary key field is unset", e->name);
            continue; /* sparse: not in this index */
        }
        if (k == 0 && shard >= 0) {
            /* shard item: SK + suffix + shard id */
            const char *sfx = e->shard_suffix ? e->shard_suffix : "#";
            const char *id = e->shards[shard];
            size_t n = sk->len + strlen(sfx) + strlen(id);
            char *s = ddb_arena_alloc(a, n + 1);
            if (!s)
                return ddbi_fail_oom(err, __func__);
            snprintf(s, n + 1, "%s%s%s", sk->u.s, sfx, id);
            sk = ddb_v_s(a, s, n);
        }
        if (ddb_item_set(it, kd->pk_attr, pk) || (sk && ddb_item_set(it, kd->sk_attr, sk)))
            return ddbi_fail_oom(err, __func__);
    }
    *out = it;
    return DDB_OK;
}

void *ddbi_ent_copy_derived(const ddb_entity_desc *e, const void *obj, ddb_arena *a, ddb_error *err)
{
    void *copy = ddb_arena_alloc(a, e->st->size);
    if (!copy) {
        ddbi_fail_oom(err, __func__);
        return NULL;
    }
    memcpy(copy, obj, e->st->size);
    return ddbi_ent_fill_derived(e, copy, a, err) ? NULL : copy;
}

int ddb_ent_to_item(const ddb_entity_desc *e, const void *obj, ddb_arena *a, ddb_item **out, ddb_error *err)
{
    if (!e || !obj || !a || !out)
        return ddbi_fail(err, DDB_EINVAL, "ddb_ent_to_item: entity, object, arena and out are required");
    void *copy = ddbi_ent_copy_derived(e, obj, a, err);
    return copy ? ddbi_ent_item_part(e, copy, -1, a, out, err) : (err ? err->code : DDB_EVALIDATION);
}

/* ---- ddb_value -> C value ---- */

static int type_error(const ddb_field_desc *f, const ddb_value *v, const char *want, ddb_error *err)
{
    return ddbi_fail(err, DDB_EVALIDATION, "attribute %s (field %s) is %s, expected %s", f->attr ? f->attr : f->name,
                    f->name, ddb_type_name(v->type), want);
}

static int struct_from_map(const ddb_struct_desc *st, const ddb_value *m, char *obj, ddb_arena *a, bool partial,
                           ddb_error *err);

static void *acopy(ddb_arena *a, const void *p, size_t n)
{
    void *c = ddb_arena_alloc(a, n ? n : 1);
    if (c && n)
        memcpy(c, p, n);
    return c;
}

static int num_out(const ddb_field_desc *f, const ddb_value *v, char *p, ddb_error *err)
{
    if (v->type != DDB_TN)
        return type_error(f, v, "N", err);
    ddb_dec d;
    if (ddbi_dec_parse(v->u.s, v->len, &d, NULL))
        return type_error(f, v, "N", err);
    if (f->type == DDB_F_FLOAT) {
        double x = ddbi_dec_to_double(&d);
        if (f->size == 4)
            *(float *)p = (float)x;
        else
            *(double *)p = x;
        return DDB_OK;
    }
    if (f->type == DDB_F_INT) {
        int64_t x;
        int64_t lo = f->size == 8 ? INT64_MIN : -((int64_t)1 << (f->size * 8 - 1));
        int64_t hi = f->size == 8 ? INT64_MAX : ((int64_t)1 << (f->size * 8 - 1)) - 1;
        if (ddbi_dec_to_i64(&d, &x) || x < lo || x > hi)
            return ddbi_fail(err, DDB_EVALIDATION, "attribute %s = %s does not fit field %s (%u-byte integer)", f->attr,
                            v->u.s, f->name, f->size);
        switch (f->size) {
        case 1: *(int8_t *)p = (int8_t)x; break;
        case 2: *(int16_t *)p = (int16_t)x; break;
        case 4: *(int32_t *)p = (int32_t)x; break;
        default: *(int64_t *)p = x;
        }
        return DDB_OK;
    }
    uint64_t x;
    uint64_t hi = f->size == 8 ? UINT64_MAX : ((uint64_t)1 << (f->size * 8)) - 1;
    if (ddbi_dec_to_u64(&d, &x) || x > hi)
        return ddbi_fail(err, DDB_EVALIDATION, "attribute %s = %s does not fit field %s (%u-byte unsigned integer)",
                        f->attr, v->u.s, f->name, f->size);
    switch (f->size) {
    case 1: *(uint8_t *)p = (uint8_t)x; break;
    case 2: *(uint16_t *)p = (uint16_t)x; break;
    case 4: *(uint32_t *)p = (uint32_t)x; break;
    default: *(uint64_t *)p = x;
    }
    return DDB_OK;
}

int ddbi_ent_field_from(const ddb_field_desc *f, const ddb_value *v, char *p, ddb_arena *a, ddb_error *err)
{
    switch (f->type) {
    case DDB_F_CHARS:
        if (v->type != DDB_TS)
            return type_error(f, v, "S", err);
        if (v->len >= f->size)
            return ddbi_fail(err, DDB_EVALIDATION,
                            "attribute %s is %u bytes, longer than field %s holds (at most %u)", f->attr, v->len,
                            f->name, f->size - 1u);
        memcpy(p, v->u.s, v->len);
        p[v->len] = '\0';
        return DDB_OK;
    case DDB_F_STRING:
        if (v->type != DDB_TS)
            return type_error(f, v, "S", err);
        if (!(*(char **)p = acopy(a, v->u.s, v->len + 1)))
            return ddbi_fail_oom(err, __func__);
        return DDB_OK;
    case DDB_F_INT:
    case DDB_F_UINT:
    case DDB_F_FLOAT:
        return num_out(f, v, p, err);
    case DDB_F_BOOL:
        if (v->type != DDB_TBOOL)
            return type_error(f, v, "BOOL", err);
        *(bool *)p = v->u.boolean;
        return DDB_OK;
    case DDB_F_BYTES: {
        if (v->type != DDB_TB)
            return type_error(f, v, "B", err);
        ddb_bytes *b = (void *)p;
        if (!(b->data = acopy(a, v->u.b, v->len)))
            return ddbi_fail_oom(err, __func__);
        b->len = v->len;
        return DDB_OK;
    }
    case DDB_F_STRUCT:
        if (v->type != DDB_TM)
            return type_error(f, v, "M", err);
        return struct_from_map(f->sub, v, p, a, false, err);
    case DDB_F_LIST: {
        if (v->type != DDB_TL)
            return type_error(f, v, "L", err);
        char *items = ddb_arena_alloc(a, (size_t)v->len * f->elem_size + 1);
        if (!items)
            return ddbi_fail_oom(err, __func__);
        memset(items, 0, (size_t)v->len * f->elem_size);
        ddb_field_desc ef = {.name = f->name, .attr = f->attr, .type = f->elem_type, .size = f->elem_size,
                             .sub = f->sub, .shard = -1};
        for (uint32_t i = 0; i < v->len; i++) {
            if (v->u.l[i]->type == DDB_TNULL && ef.type == DDB_F_STRING)
                continue;
            int rc = ddbi_ent_field_from(&ef, v->u.l[i], items + (size_t)i * f->elem_size, a, err);
            if (rc)
                return rc;
        }
        *(char **)p = items;
        *(size_t *)(p - f->offset + f->count_offset) = v->len;
        return DDB_OK;
    }
    default: {
        ddb_type want = f->type == DDB_F_SSET ? DDB_TSS : f->type == DDB_F_BSET ? DDB_TBS : DDB_TNS;
        if (v->type != want)
            return type_error(f, v, ddb_type_name(want), err);
        size_t n = v->len;
        if (f->type == DDB_F_SSET) {
            char **items = ddb_arena_alloc(a, n * sizeof *items);
            for (size_t i = 0; items && i < n; i++)
                if (!(items[i] = acopy(a, v->u.set[i]->u.s, v->u.set[i]->len + 1)))
                    items = NULL;
            if (!items)
                return ddbi_fail_oom(err, __func__);
            *(ddb_string_set *)(void *)p = (ddb_string_set){items, n};
        } else if (f->type == DDB_F_BSET) {
            ddb_bytes *items = ddb_arena_alloc(a, n * sizeof *items);
            for (size_t i = 0; items && i < n; i++) {
                items[i].len = v->u.set[i]->len;
                if (!(items[i].data = acopy(a, v->u.set[i]->u.b, v->u.set[i]->len)))
                    items = NULL;
            }
            if (!items)
                return ddbi_fail_oom(err, __func__);
            *(ddb_bytes_set *)(void *)p = (ddb_bytes_set){items, n};
        } else if (f->type == DDB_F_ISET) {
            int64_t *items = ddb_arena_alloc(a, n * sizeof *items);
            if (!items)
                return ddbi_fail_oom(err, __func__);
            ddb_field_desc ef = {.name = f->name, .attr = f->attr, .type = DDB_F_INT, .size = 8, .shard = -1};
            for (size_t i = 0; i < n; i++) {
                int rc = num_out(&ef, v->u.set[i], (char *)&items[i], err);
                if (rc)
                    return rc;
            }
            *(ddb_int_set *)(void *)p = (ddb_int_set){items, n};
        } else {
            double *items = ddb_arena_alloc(a, n * sizeof *items);
            if (!items)
                return ddbi_fail_oom(err, __func__);
            ddb_field_desc ef = {.name = f->name, .attr = f->attr, .type = DDB_F_FLOAT, .size = 8, .shard = -1};
            for (size_t i = 0; i < n; i++) {
                int rc = num_out(&ef, v->u.set[i], (char *)&items[i], err);
                if (rc)
                    return rc;
            }
            *(ddb_double_set *)(void *)p = (ddb_double_set){items, n};
        }
        return DDB_OK;
    }
    }
}

bool ddbi_ent_field_required(const ddb_field_desc *f)
{
    if (f->flags & (DDB_FIELD_OPTIONAL | DDB_FIELD_TTL))
        return false;
    switch (f->type) {
    case DDB_F_CHARS:
    case DDB_F_INT:
    case DDB_F_UINT:
    case DDB_F_FLOAT:
    case DDB_F_BOOL:
    case DDB_F_STRUCT:
        return true;
    default:
        return false;
    }
}

static int struct_from_map(const ddb_struct_desc *st, const ddb_value *m, char *obj, ddb_arena *a, bool partial,
                           ddb_error *err)
{
    for (uint16_t i = 0; i < st->n_fields; i++) {
        const ddb_field_desc *f = &st->fields[i];
        const ddb_value *v = ddb_map_get(m, f->attr);
        if (!v) {
            if (!partial && ddbi_ent_field_required(f))
                return ddbi_fail(err, DDB_EVALIDATION, "required attribute %s (field %s of %s) is missing", f->attr,
                                f->name, st->name);
            continue;
        }
        int rc = ddbi_ent_field_from(f, v, obj + f->offset, a, err);
        if (rc)
            return rc;
    }
    return DDB_OK;
}

int ddbi_ent_check_type(const ddb_entity_desc *e, const ddb_item *item, ddb_error *err)
{
    const ddb_value *t = ddb_item_get(item, e->table->type_attr);
    if (!t || t->type != DDB_TS || strcmp(t->u.s, e->name) != 0)
        return ddbi_fail(err, DDB_EVALIDATION, "item has %s = %s%s%s, expected \"%s\"", e->table->type_attr,
                        t && t->type == DDB_TS ? "\"" : "", t ? (t->type == DDB_TS ? t->u.s : ddb_type_name(t->type)) : "(none)",
                        t && t->type == DDB_TS ? "\"" : "", e->name);
    return DDB_OK;
}

int ddbi_ent_from_item_partial(const ddb_entity_desc *e, const ddb_item *item, void *obj, ddb_arena *a, bool partial,
                              ddb_error *err)
{
    int rc = ddbi_ent_check_type(e, item, err);
    if (rc)
        return rc;
    return struct_from_map(e->st, ddb_item_map(item), obj, a, partial, err);
}

int ddb_ent_from_item(const ddb_entity_desc *e, const ddb_item *item, void *obj, ddb_arena *a, ddb_error *err)
{
    if (!e || !item || !obj || !a)
        return ddbi_fail(err, DDB_EINVAL, "ddb_ent_from_item: entity, item, object and arena are required");
    memset(obj, 0, e->st->size);
    return ddbi_ent_from_item_partial(e, item, obj, a, false, err);
}

int ddb_ent_set_chars(char *dst, size_t cap, const char *src, const char *field, ddb_error *err)
{
    if (!src)
        return ddbi_fail(err, DDB_EINVAL, "field %s: NULL string", field);
    size_t n = strlen(src);
    if (n >= cap)
        return ddbi_fail(err, DDB_EVALIDATION, "field %s: \"%.40s%s\" is %zu bytes, the field holds at most %zu", field,
                        src, n > 40 ? "..." : "", n, cap - 1);
    memcpy(dst, src, n + 1);
    return DDB_OK;
}
