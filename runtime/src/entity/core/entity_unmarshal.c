/* Entity room: items -> entity structs, driven by descriptors (values
 * into C fields: strings, numbers into C integers and floats, bytes,
 * nested structs, lists and sets; the type attribute check).  Calls the
 * public value API, core/number.h and the field accessors of this room;
 * the templates call it to read key parts back into fields. */
#include "entity/core/entity_core.h"

#include "core/error.h"
#include "core/number.h"

#include <string.h>

static int type_error(const ddb_field_desc *f, const ddb_value *v, const char *want, ddb_error *err)
{
    return ddbi_fail(err, DDB_EVALIDATION, "attribute %s (field %s) is %s, expected %s", f->attr ? f->attr : f->name,
                    f->name, ddb_type_name(v->type), want);
}

/* How struct_from_map reads: missing required attributes are no error;
 * top-level strings and bytes point into the item (which lives in the
 * arena the caller reads into) instead of being copied. */
#define FROM_PARTIAL 1u
#define FROM_BORROW 2u

static int struct_from_map(const ddb_struct_desc *st, const ddb_value *m, char *obj, ddb_arena *a, unsigned how,
                           ddb_ent_mask *mask, ddb_error *err);

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
        ddbi_ent_int_set(f, p, x);
        return DDB_OK;
    }
    uint64_t x;
    uint64_t hi = f->size == 8 ? UINT64_MAX : ((uint64_t)1 << (f->size * 8)) - 1;
    if (ddbi_dec_to_u64(&d, &x) || x > hi)
        return ddbi_fail(err, DDB_EVALIDATION, "attribute %s = %s does not fit field %s (%u-byte unsigned integer)",
                        f->attr, v->u.s, f->name, f->size);
    ddbi_ent_int_set(f, p, (int64_t)x);
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
        return struct_from_map(f->sub, v, p, a, 0, NULL, err);
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

/* v into field f at p: borrowed (FROM_BORROW: top-level strings and bytes
 * point into v, which lives in the arena read into) or copied. */
static int field_in(const ddb_field_desc *f, const ddb_value *v, char *p, ddb_arena *a, unsigned how, ddb_error *err)
{
    if ((how & FROM_BORROW) && f->type == DDB_F_STRING && v->type == DDB_TS)
        *(const char **)(void *)p = v->u.s; /* NUL-terminated */
    else if ((how & FROM_BORROW) && f->type == DDB_F_BYTES && v->type == DDB_TB)
        *(ddb_bytes *)(void *)p = (ddb_bytes){(uint8_t *)v->u.b, v->len};
    else
        return ddbi_ent_field_from(f, v, p, a, err);
    return DDB_OK;
}

static int struct_from_map(const ddb_struct_desc *st, const ddb_value *m, char *obj, ddb_arena *a, unsigned how,
                           ddb_ent_mask *mask, ddb_error *err)
{
    if (mask && st->n_fields > DDB_ENT_MAX_FIELDS)
        return ddbi_fail(err, DDB_ELIMIT, "%s has %u fields; a field mask holds at most %d (DDB_ENT_MAX_FIELDS)",
                         st->name, (unsigned)st->n_fields, DDB_ENT_MAX_FIELDS);
    for (uint16_t i = 0; i < st->n_fields; i++) {
        const ddb_field_desc *f = &st->fields[i];
        const ddb_value *v = ddb_map_get(m, f->attr);
        if (!v) {
            if (!(how & FROM_PARTIAL) && ddbi_ent_field_required(f))
                return ddbi_fail(err, DDB_EVALIDATION, "required attribute %s (field %s of %s) is missing", f->attr,
                                f->name, st->name);
            continue;
        }
        int rc = field_in(f, v, obj + f->offset, a, how, err);
        if (rc)
            return rc;
        if (mask)
            ddb_ent_mask_set(mask, i);
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
                              ddb_ent_mask *mask, ddb_error *err)
{
    int rc = ddbi_ent_check_type(e, item, err);
    if (rc)
        return rc;
    return struct_from_map(e->st, ddb_item_map(item), obj, a, partial ? FROM_PARTIAL : 0, mask, err);
}

int ddbi_ent_fields_from_item(const ddb_entity_desc *e, const ddb_item *item, void *obj, ddb_arena *a, bool borrow,
                              ddb_ent_mask *mask, ddb_error *err)
{
    return struct_from_map(e->st, ddb_item_map(item), obj, a, FROM_PARTIAL | (borrow ? FROM_BORROW : 0), mask, err);
}

int ddbi_ent_check_required(const ddb_entity_desc *e, const ddb_ent_mask *mask, ddb_error *err)
{
    for (uint16_t i = 0; i < e->st->n_fields; i++) {
        const ddb_field_desc *f = &e->st->fields[i];
        if (!ddb_ent_mask_has(mask, i) && ddbi_ent_field_required(f))
            return ddbi_fail(err, DDB_EVALIDATION, "required attribute %s (field %s of %s) is missing", f->attr,
                             f->name, e->st->name);
    }
    return DDB_OK;
}

int ddb_ent_from_item(const ddb_entity_desc *e, const ddb_item *item, ddb_arena *a, void *out, ddb_error *err)
{
    if (!e || !item || !out || !a)
        return ddbi_fail(err, DDB_EINVAL, "ddb_ent_from_item: entity, item, arena and object are required");
    memset(out, 0, e->st->size);
    return ddbi_ent_from_item_partial(e, item, out, a, false, NULL, err);
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

int ddbi_ent_fields_by_order(const ddb_entity_desc *e, const uint16_t *order, const ddb_item *item, void *obj,
                             ddb_arena *a, ddb_ent_mask *mask, ddb_error *err)
{
    /* both sorted bytewise (the item's map by name): one walk */
    const ddb_value *m = ddb_item_map(item);
    uint32_t ai = 0;
    uint16_t fi = 0;
    while (ai < m->len && fi < e->st->n_fields) {
        const ddb_field_desc *f = &e->st->fields[order[fi]];
        int c = strcmp(m->u.m[ai].name, f->attr);
        if (c < 0) {
            ai++;
            continue;
        }
        if (c == 0) {
            int rc = field_in(f, m->u.m[ai].value, (char *)obj + f->offset, a, FROM_BORROW, err);
            if (rc)
                return rc;
            ddb_ent_mask_set(mask, order[fi]);
            ai++;
        }
        fi++;
    }
    return DDB_OK;
}
