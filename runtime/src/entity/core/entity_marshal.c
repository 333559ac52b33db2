/* Entity room: entity structs -> items, driven by descriptors (the whole
 * item or one shard item, with its type attribute and index keys).  Calls
 * the public value API, the field accessors, the templates and the shard
 * keys of this room.  Items -> structs: entity_unmarshal.c. */
#include "entity/core/entity_core.h"

#include "core/error.h"

#include <string.h>

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
    case DDB_F_UINT: {
        int64_t v = ddbi_ent_int_get(f, p);
        if ((f->flags & DDB_FIELD_TTL) && v == 0)
            return DDB_OK;
        *out = f->type == DDB_F_UINT ? ddb_v_u64(a, (uint64_t)v) : ddb_v_i64(a, v);
        break;
    }
    case DDB_F_FLOAT:
        if ((rc = ddb_v_double(a, ddbi_ent_float_get(f, p), out, err)))
            return ddbi_ent_fail_within(err, rc, "field %s", f->name);
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
        if (kd->by_fields)
            continue; /* its attributes are the fields, stored above */
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
        if (k == 0 && shard >= 0 && (rc = ddbi_ent_shard_sk(e, sk, shard, a, &sk, err)))
            return rc;
        if (ddb_item_set(it, kd->pk_attr, pk) || (sk && ddb_item_set(it, kd->sk_attr, sk)))
            return ddbi_fail_oom(err, __func__);
    }
    *out = it;
    return DDB_OK;
}

/* A copy of obj with its derived fields computed (obj is not changed). */
static int derived_copy(const ddb_entity_desc *e, const void *obj, ddb_arena *a, void **out, ddb_error *err)
{
    void *copy = ddb_arena_alloc(a, e->st->size);
    if (!copy)
        return ddbi_fail_oom(err, __func__);
    memcpy(copy, obj, e->st->size);
    *out = copy;
    return ddbi_ent_fill_derived(e, copy, a, err);
}

int ddb_ent_to_item(const ddb_entity_desc *e, const void *obj, ddb_arena *a, ddb_item **out, ddb_error *err)
{
    if (!e || !obj || !a || !out)
        return ddbi_fail(err, DDB_EINVAL, "ddb_ent_to_item: entity, object, arena and out are required");
    if (e->n_shards)
        return ddbi_fail(err, DDB_EINVAL,
                         "ddb_ent_to_item: %s is sharded into %u items; a merged item written back would corrupt it "
                         "(use ddb_ent_to_items)",
                         e->name, (unsigned)e->n_shards);
    void *copy = NULL;
    int rc = derived_copy(e, obj, a, &copy, err);
    return rc ? rc : ddbi_ent_item_part(e, copy, -1, a, out, err);
}

int ddb_ent_to_items(const ddb_entity_desc *e, const void *obj, ddb_arena *a, ddb_item **out, size_t cap,
                     size_t *out_n, ddb_error *err)
{
    if (!e || !obj || !a || !out || !out_n)
        return ddbi_fail(err, DDB_EINVAL, "ddb_ent_to_items: entity, object, arena, out and out_n are required");
    *out_n = 0;
    int rc = ddbi_ent_check_shards(e, err);
    if (rc)
        return rc;
    size_t parts = (size_t)ddbi_ent_parts(e);
    if (cap < parts)
        return ddbi_fail(err, DDB_ELIMIT, "ddb_ent_to_items: %s is %zu items; out has room for %zu", e->name, parts,
                         cap);
    void *copy = NULL;
    if ((rc = derived_copy(e, obj, a, &copy, err)))
        return rc;
    for (size_t s = 0; s < parts && !rc; s++)
        rc = ddbi_ent_item_part(e, copy, e->n_shards ? (int)s : -1, a, &out[s], err);
    if (!rc)
        *out_n = parts;
    return rc;
}
