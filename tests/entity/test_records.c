/* Typed reads decoding stored records straight into structs (issue 12,
 * item 8; runtime/src/entity/entity_record_decode.c) against the item path they
 * replace (record -> ddb_item -> struct):
 *   - every field type, and the entities of the fleet schema, filled by a
 *     generic filler: both paths give the same struct and field mask;
 *   - every byte of a record damaged in turn, and every truncation: both
 *     paths give the same answer, DDB_ECORRUPT where the item decoder
 *     finds damage (never a crash: this runs under ASan too);
 *   - attributes the entity does not know, anywhere among its own;
 *   - char[N] text of every length up to its room;
 *   - the shared read plans: a descriptor changed in place, more
 *     descriptors than the shared table holds;
 *   - a damaged record in the database file: a typed get, query, scan and
 *     batch get answer DDB_ECORRUPT. */
#include <ddb/entity.h>

#include "core/codec.h"
#include "core/keycodec.h"
#include "entity/reads/entity_reads.h"

#include "damaged_util.h"
#include "fleet_schema.h"

#include <float.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

/* ---- an entity with a field of every type ---------------------------------- */

struct inner {
    char label[8];
    int16_t n;
};

struct every {
    char pk[16];
    char sk[16];
    char *text;
    int8_t i8;
    int16_t i16;
    int32_t i32;
    int64_t i64;
    uint8_t u8;
    uint64_t u64;
    float f32;
    double f64;
    bool flag;
    ddb_bytes blob;
    struct inner in;
    struct inner *ins;
    size_t ins_count;
    char **names;
    size_t names_count;
    int32_t *nums;
    size_t nums_count;
    ddb_string_set ss;
    ddb_int_set is;
    ddb_double_set ds;
    ddb_bytes_set bs;
    char *zz; /* sorts after every other attribute */
};

#define F(n, a, t, sz, off, ...) {.name = n, .attr = a, .type = t, .size = sz, .offset = off, .shard = -1, __VA_ARGS__}
static const ddb_field_desc inner_fields[] = {
    F("label", "label", DDB_F_CHARS, 8, offsetof(struct inner, label)),
    F("n", "n", DDB_F_INT, 2, offsetof(struct inner, n)),
};
static const ddb_struct_desc inner_st = {"inner", sizeof(struct inner), 2, inner_fields};
#define O(m) offsetof(struct every, m)
static const ddb_field_desc every_fields[] = {
    F("pk", "PK", DDB_F_CHARS, 16, O(pk), .flags = DDB_FIELD_KEY),
    F("sk", "SK", DDB_F_CHARS, 16, O(sk), .flags = DDB_FIELD_KEY),
    F("text", "text", DDB_F_STRING, sizeof(char *), O(text), .flags = DDB_FIELD_OPTIONAL),
    F("i8", "i8", DDB_F_INT, 1, O(i8)),
    F("i16", "i16", DDB_F_INT, 2, O(i16)),
    F("i32", "i32", DDB_F_INT, 4, O(i32)),
    F("i64", "i64", DDB_F_INT, 8, O(i64)),
    F("u8", "u8", DDB_F_UINT, 1, O(u8)),
    F("u64", "u64", DDB_F_UINT, 8, O(u64)),
    F("f32", "f32", DDB_F_FLOAT, 4, O(f32)),
    F("f64", "f64", DDB_F_FLOAT, 8, O(f64)),
    F("flag", "flag", DDB_F_BOOL, 1, O(flag)),
    F("blob", "blob", DDB_F_BYTES, sizeof(ddb_bytes), O(blob), .flags = DDB_FIELD_OPTIONAL),
    F("in", "in", DDB_F_STRUCT, sizeof(struct inner), O(in), .sub = &inner_st),
    F("ins", "ins", DDB_F_LIST, 0, O(ins), .elem_type = DDB_F_STRUCT, .elem_size = sizeof(struct inner),
      .count_offset = O(ins_count), .sub = &inner_st, .flags = DDB_FIELD_OPTIONAL),
    F("names", "names", DDB_F_LIST, 0, O(names), .elem_type = DDB_F_STRING, .elem_size = sizeof(char *),
      .count_offset = O(names_count), .flags = DDB_FIELD_OPTIONAL),
    F("nums", "nums", DDB_F_LIST, 0, O(nums), .elem_type = DDB_F_INT, .elem_size = 4, .count_offset = O(nums_count),
      .flags = DDB_FIELD_OPTIONAL),
    F("ss", "ss", DDB_F_SSET, sizeof(ddb_string_set), O(ss), .flags = DDB_FIELD_OPTIONAL),
    F("is", "is", DDB_F_ISET, sizeof(ddb_int_set), O(is), .flags = DDB_FIELD_OPTIONAL),
    F("ds", "ds", DDB_F_DSET, sizeof(ddb_double_set), O(ds), .flags = DDB_FIELD_OPTIONAL),
    F("bs", "bs", DDB_F_BSET, sizeof(ddb_bytes_set), O(bs), .flags = DDB_FIELD_OPTIONAL),
    F("zz", "zz", DDB_F_STRING, sizeof(char *), O(zz), .flags = DDB_FIELD_OPTIONAL),
};
static const ddb_struct_desc every_st = {"every", sizeof(struct every), sizeof every_fields / sizeof every_fields[0],
                                         every_fields};
static const ddb_tseg every_pk[] = {{.path = (const uint16_t[]){0}, .path_len = 1}};
static const ddb_tseg every_sk[] = {{.path = (const uint16_t[]){1}, .path_len = 1}};
static const ddb_key_desc every_keys[] = {{NULL, "PK", "SK", {every_pk, 1, DDB_TS}, {every_sk, 1, DDB_TS}, -1, false}};
static const ddb_schema_table every_table = {"records", "Type", {.name = "records", .key = {.pk = "PK", .pk_type = DDB_TS, .sk = "SK", .sk_type = DDB_TS}}};
static const ddb_entity_desc every_entity = {.name = "Every", .table = &every_table, .st = &every_st, .n_keys = 1,
                                             .keys = every_keys};

static struct every sample(int k)
{
    static struct inner ins[] = {{"a", -3}, {"b", 32767}};
    static char *names[] = {"x", "", "y z"};
    static int32_t nums[] = {0, -2147483647 - 1, 2147483647};
    static char *ss[] = {"alpha", "beta"};
    static int64_t is[] = {-9, 0, INT64_MAX};
    static double ds[] = {-0.5, 1e-30, 1e30};
    static uint8_t b1[] = {0, 1, 2, 255}, b2[] = {7};
    static ddb_bytes bs[] = {{b1, 4}, {b2, 1}};
    struct every e = {.i8 = -128, .i16 = -32768, .i32 = 123456, .i64 = INT64_MIN, .u8 = 255, .u64 = UINT64_MAX,
                      .f32 = 1.5f, .f64 = -2.25e-7, .flag = true, .in = {"in", -1}};
    snprintf(e.pk, sizeof e.pk, "P#%d", k);
    snprintf(e.sk, sizeof e.sk, "S#%d", k);
    if (k % 2 == 0) { /* every optional field set; odd samples leave them out */
        e.text = "some text";
        e.blob = (ddb_bytes){b1, sizeof b1};
        e.ins = ins;
        e.ins_count = 2;
        e.names = names;
        e.names_count = 3;
        e.nums = nums;
        e.nums_count = 3;
        e.ss = (ddb_string_set){ss, 2};
        e.is = (ddb_int_set){is, 3};
        e.ds = (ddb_double_set){ds, 3};
        e.bs = (ddb_bytes_set){bs, 2};
        e.zz = "last";
    }
    if (k == 2) { /* numbers the in-place integer parser leaves to the number parser */
        e.i64 = INT64_MAX;
        e.u64 = 0;
        e.f64 = 0;
    }
    return e;
}

/* ---- a struct of any schema, filled from its descriptor -------------------- */

static void fill(const ddb_struct_desc *st, char *obj, ddb_arena *a, unsigned seed);

static void fill_value(const ddb_field_desc *f, uint8_t type, uint32_t size, char *p, ddb_arena *a, unsigned seed)
{
    switch (type) {
    case DDB_F_CHARS:
        snprintf(p, size, "c%u", seed % 1000);
        break;
    case DDB_F_STRING: {
        char *s = ddb_arena_alloc(a, 16);
        snprintf(s, 16, "s%u", seed);
        *(char **)(void *)p = s;
        break;
    }
    case DDB_F_INT:
    case DDB_F_UINT: {
        int64_t v = (int64_t)(seed % 100);
        ddbi_ent_int_set(&(ddb_field_desc){.type = type, .size = size}, p, type == DDB_F_INT ? -v : v);
        break;
    }
    case DDB_F_FLOAT:
        if (size == 4)
            *(float *)(void *)p = (float)seed / 4;
        else
            *(double *)(void *)p = (double)seed / 8;
        break;
    case DDB_F_BOOL:
        *(bool *)(void *)p = seed % 2;
        break;
    case DDB_F_BYTES: {
        uint8_t *b = ddb_arena_alloc(a, 3);
        b[0] = (uint8_t)seed, b[1] = 0, b[2] = 9;
        *(ddb_bytes *)(void *)p = (ddb_bytes){b, 3};
        break;
    }
    case DDB_F_STRUCT:
        fill(f->sub, p, a, seed + 1);
        break;
    default:
        break; /* lists and sets: the every entity covers them */
    }
}

static void fill(const ddb_struct_desc *st, char *obj, ddb_arena *a, unsigned seed)
{
    memset(obj, 0, st->size);
    for (uint16_t i = 0; i < st->n_fields; i++) {
        const ddb_field_desc *f = &st->fields[i];
        fill_value(f, f->type, f->size, obj + f->offset, a, seed * 31 + i);
    }
}

/* ---- the two paths ----------------------------------------------------------- */

/* item as a stored record (in a). */
static ddbi_rec encode(const ddb_item *it, ddb_arena *a)
{
    ddb_buf b = {0};
    assert_int_equal(ddbi_encode_item(&b, ddb_item_map(it), ddb_item_size(it)), 0);
    uint8_t *p = ddb_arena_alloc(a, b.len);
    memcpy(p, b.p, b.len);
    ddbi_rec r = {p, b.len, false};
    ddbi_buf_free(&b);
    return r;
}

/* obj as a stored record (in a). */
static ddbi_rec record_of(const ddb_entity_desc *e, const void *obj, ddb_arena *a)
{
    ddb_item *it;
    ddb_error err = {0};
    assert_int_equal(ddb_ent_to_item(e, obj, a, &it, &err), 0);
    return encode(it, a);
}

/* obj as its stored records, one per shard item (at most 4). */
static size_t records_of(const ddb_entity_desc *e, const void *obj, ddb_arena *a, ddbi_rec *out)
{
    ddb_item *its[4];
    size_t n = 0;
    ddb_error err = {0};
    assert_int_equal(ddb_ent_to_items(e, obj, a, its, 4, &n, &err), 0);
    for (size_t i = 0; i < n; i++)
        out[i] = encode(its[i], a);
    return n;
}

typedef struct decoded {
    int rc;
    _Alignas(max_align_t) char obj[512]; /* a struct of any entity: aligned as malloc would */
    ddb_ent_mask mask;
    bool other;
} decoded;

static void by_record(const ddb_entity_desc *e, const ddbi_rec *rec, ddb_arena *a, decoded *d)
{
    const ddbi_ent_plan *plan;
    ddb_error err = {0};
    memset(d, 0, sizeof *d);
    assert_true(e->st->size <= sizeof d->obj);
    assert_int_equal(ddbi_ent_plan_of(e, a, &plan, &err), 0);
    d->rc = ddbi_ent_fields_from_record(plan, rec, d->obj, a, &d->mask, &d->other, &err);
}

/* The path typed reads took before: the record decoded into an item, the
 * item into the struct.  The type is checked as the reader checks it. */
static void by_item(const ddb_entity_desc *e, const ddbi_rec *rec, ddb_arena *a, decoded *d)
{
    const ddbi_ent_plan *plan;
    ddb_error err = {0};
    ddb_item *it;
    memset(d, 0, sizeof *d);
    assert_int_equal(ddbi_ent_plan_of(e, a, &plan, &err), 0);
    d->rc = ddbi_decode_item(rec->p, rec->len, a, &it);
    if (d->rc)
        return;
    const ddb_value *t = ddb_item_get(it, e->table->type_attr);
    d->other = !t || t->type != DDB_TS || strcmp(t->u.s, e->name);
    d->rc = ddbi_ent_fields_by_order(e, plan->order, it, d->obj, a, &d->mask, &err);
}

/* The same struct: compared as the items they marshal to (every field
 * type, pointers followed), and the same mask. */
static void assert_same(const ddb_entity_desc *e, const decoded *x, const decoded *y, ddb_arena *a)
{
    assert_int_equal(x->rc, y->rc);
    if (x->rc)
        return;
    assert_int_equal(x->other, y->other);
    if (x->other)
        return; /* another entity's item: dropped, whatever was decoded */
    assert_memory_equal(&x->mask, &y->mask, sizeof x->mask);
    ddb_item *ix, *iy;
    ddb_error err = {0};
    int rx = ddb_ent_to_item(e, x->obj, a, &ix, &err), ry = ddb_ent_to_item(e, y->obj, a, &iy, &err);
    assert_int_equal(rx, ry);
    if (!rx)
        assert_true(ddb_value_equal(ddb_item_map(ix), ddb_item_map(iy)));
}

static void test_every_field_type(void **state)
{
    (void)state;
    ddb_arena *a = ddb_arena_new();
    for (int k = 0; k < 4; k++) {
        struct every s = sample(k);
        ddbi_rec rec = record_of(&every_entity, &s, a);
        decoded x, y;
        by_record(&every_entity, &rec, a, &x); /* optional fields alternate: plan names skipped, then matched */
        by_item(&every_entity, &rec, a, &y);
        assert_int_equal(x.rc, DDB_OK);
        assert_false(x.other);
        assert_same(&every_entity, &x, &y, a);
        const struct every *v = (const void *)x.obj;
        assert_string_equal(v->pk, s.pk);
        assert_true(v->i64 == s.i64 && v->u64 == s.u64 && v->i8 == s.i8 && v->u8 == s.u8);
        assert_true(v->f32 == s.f32 && v->f64 == s.f64 && v->flag == s.flag);
        if (k % 2 == 0) {
            assert_string_equal(v->text, "some text");
            assert_int_equal(v->blob.len, 4);
            assert_memory_equal(v->blob.data, s.blob.data, 4);
            assert_int_equal(v->nums_count, 3);
            assert_int_equal(v->nums[1], INT32_MIN);
            assert_string_equal(v->zz, "last");
        } else {
            assert_null(v->text);
            assert_null(v->zz);
        }
    }
    ddb_arena_free(a);
}

static void test_fleet_entities(void **state)
{
    (void)state;
    ddb_arena *a = ddb_arena_new();
    for (size_t i = 0; i < sizeof fleet_entities / sizeof fleet_entities[0]; i++) {
        const ddb_entity_desc *e = fleet_entities[i];
        for (unsigned seed = 1; seed < 4; seed++) {
            _Alignas(max_align_t) char obj[512];
            assert_true(e->st->size <= sizeof obj);
            fill(e->st, obj, a, seed);
            ddbi_rec recs[4];
            size_t n = records_of(e, obj, a, recs);
            assert_true(n >= 1);
            for (size_t r = 0; r < n; r++) { /* a sharded entity: each shard item */
                decoded x, y;
                by_record(e, &recs[r], a, &x);
                by_item(e, &recs[r], a, &y);
                assert_int_equal(x.rc, DDB_OK);
                assert_same(e, &x, &y, a);
                /* read as another entity of the table: dropped by both */
                const ddb_entity_desc *o = fleet_entities[(i + 1) % 4];
                by_record(o, &recs[r], a, &x);
                by_item(o, &recs[r], a, &y);
                assert_true(x.other && y.other);
            }
        }
    }
    ddb_arena_free(a);
}

/* Attributes the entity does not know (before, between and after its
 * own, and beside the type and key attributes): skipped by both paths. */
static void test_unknown_attributes(void **state)
{
    (void)state;
    ddb_arena *a = ddb_arena_new();
    static const char *const extra[] = {"A", "PK0", "Tz", "in2", "m", "u9", "zzz", "\x7f", "a", "Typ"};
    for (int k = 0; k < 2; k++) {
        struct every s = sample(k);
        ddb_item *it;
        ddb_error err = {0};
        assert_int_equal(ddb_ent_to_item(&every_entity, &s, a, &it, &err), 0);
        for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++)
            assert_int_equal(ddb_item_set_s(it, extra[i], "x"), 0);
        ddbi_rec rec = encode(it, a);
        decoded x, y;
        by_record(&every_entity, &rec, a, &x);
        by_item(&every_entity, &rec, a, &y);
        assert_int_equal(x.rc, DDB_OK);
        assert_false(x.other);
        assert_same(&every_entity, &x, &y, a);
    }
    ddb_arena_free(a);
}

/* The shared plans: a descriptor changed in place gets a plan of what it
 * is now; more descriptors than the shared table holds each get theirs. */
static void test_plans(void **state)
{
    (void)state;
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    struct every s = sample(0);
    ddbi_rec rec = record_of(&every_entity, &s, a);

    /* a copy whose field "text" is read from attribute "zz" instead */
    ddb_field_desc *fields = malloc(sizeof every_fields);
    memcpy(fields, every_fields, sizeof every_fields);
    ddb_struct_desc *st = malloc(sizeof *st);
    *st = every_st;
    st->fields = fields;
    ddb_entity_desc *e = malloc(sizeof *e);
    *e = every_entity;
    e->st = st;
    decoded x;
    by_record(e, &rec, a, &x);
    assert_int_equal(x.rc, DDB_OK);
    assert_string_equal(((struct every *)(void *)x.obj)->text, "some text");
    fields[2].attr = "zz";
    fields[21].attr = "text";
    by_record(e, &rec, a, &x);
    assert_int_equal(x.rc, DDB_OK);
    assert_string_equal(((struct every *)(void *)x.obj)->text, "last");
    assert_string_equal(((struct every *)(void *)x.obj)->zz, "some text");
    /* the same names again, their members swapped (offsets only) */
    fields[2].attr = "text";
    fields[21].attr = "zz";
    fields[2].offset = O(zz);
    fields[21].offset = O(text);
    by_record(e, &rec, a, &x);
    assert_int_equal(x.rc, DDB_OK);
    assert_string_equal(((struct every *)(void *)x.obj)->text, "last");
    assert_string_equal(((struct every *)(void *)x.obj)->zz, "some text");
    /* a required field made optional: a record without it decodes */
    struct every odd = sample(1);
    fields[3].flags = DDB_FIELD_OPTIONAL;
    ddb_item *it;
    assert_int_equal(ddb_ent_to_item(&every_entity, &odd, a, &it, &err), 0);
    ddb_item_remove(it, "i8");
    ddbi_rec lacking = encode(it, a);
    const ddbi_ent_plan *plan;
    assert_int_equal(ddbi_ent_plan_of(e, a, &plan, &err), 0);
    assert_false(ddb_ent_mask_has(&plan->required, 3));
    assert_true(ddb_ent_mask_has(&plan->required, 4));
    by_record(e, &lacking, a, &x);
    assert_int_equal(x.rc, DDB_OK);
    assert_int_equal(ddbi_ent_plan_check_required(plan, &x.mask, &err), DDB_OK);
    const ddbi_ent_plan *every_plan;
    assert_int_equal(ddbi_ent_plan_of(&every_entity, a, &every_plan, &err), 0);
    assert_int_equal(ddbi_ent_plan_check_required(every_plan, &x.mask, &err), DDB_EVALIDATION);
    assert_non_null(strstr(err.message, "i8"));

    enum { MANY = 150 };
    ddb_entity_desc *many = malloc(MANY * sizeof *many);
    for (int i = 0; i < MANY; i++) {
        many[i] = every_entity;
        const ddbi_ent_plan *p;
        assert_int_equal(ddbi_ent_plan_of(&many[i], a, &p, &err), 0);
        assert_ptr_equal(p->e, &many[i]);
        by_record(&many[i], &rec, a, &x);
        assert_int_equal(x.rc, DDB_OK);
        assert_string_equal(((struct every *)(void *)x.obj)->zz, "last");
    }
    free(many);
    free(e);
    free(st);
    free(fields);
    ddb_arena_free(a);
}

/* char[N] text of every length up to its room (copied in runs of 1-3, 4-7,
 * 8-16 bytes and longer): the bytes given, a NUL, zeros after it. */
struct texts {
    char pk[8];
    char t[40];
};
static const ddb_field_desc texts_fields[] = {
    F("pk", "PK", DDB_F_CHARS, 8, offsetof(struct texts, pk), .flags = DDB_FIELD_KEY),
    F("t", "t", DDB_F_CHARS, 40, offsetof(struct texts, t)),
};
static const ddb_struct_desc texts_st = {"texts", sizeof(struct texts), 2, texts_fields};
static const ddb_tseg texts_pk[] = {{.path = (const uint16_t[]){0}, .path_len = 1}};
static const ddb_key_desc texts_keys[] = {{NULL, "PK", NULL, {texts_pk, 1, DDB_TS}, {NULL, 0, DDB_TS}, -1, false}};
static const ddb_schema_table texts_table = {"texts", "Type", {.name = "texts", .key = {.pk = "PK", .pk_type = DDB_TS, .sk = NULL, .sk_type = 0}}};
static const ddb_entity_desc texts_entity = {.name = "Texts", .table = &texts_table, .st = &texts_st, .n_keys = 1,
                                             .keys = texts_keys};

static void test_text_lengths(void **state)
{
    (void)state;
    ddb_arena *a = ddb_arena_new();
    for (size_t n = 0; n < 40; n++) {
        struct texts s = {.pk = "k"};
        for (size_t i = 0; i < n; i++)
            s.t[i] = (char)('a' + i % 26);
        ddbi_rec rec = record_of(&texts_entity, &s, a);
        decoded x, y;
        by_record(&texts_entity, &rec, a, &x);
        by_item(&texts_entity, &rec, a, &y);
        assert_int_equal(x.rc, DDB_OK);
        assert_same(&texts_entity, &x, &y, a);
        assert_memory_equal(x.obj, &s, sizeof s); /* zeros after the text, as the struct had */
    }
    ddb_arena_free(a);
}

/* Are the item's attribute names in order (as every stored record's are)? */
static bool sorted(const ddbi_rec *rec, ddb_arena *a)
{
    ddb_item *it;
    if (ddbi_decode_item(rec->p, rec->len, a, &it))
        return true;
    const ddb_value *m = ddb_item_map(it);
    for (uint32_t i = 1; i < m->len; i++) {
        const ddb_attr *x = &m->u.m[i - 1], *y = &m->u.m[i];
        size_t n = x->name_len < y->name_len ? x->name_len : y->name_len;
        int c = memcmp(x->name, y->name, n);
        if (c > 0 || (!c && x->name_len >= y->name_len))
            return false;
    }
    return true;
}

/* One damaged record through both paths: the record path's answer. */
static int both_paths(const uint8_t *p, size_t n, ddb_arena *a, size_t *corrupt)
{
    /* a copy of exactly n bytes, so that ASan sees any read past them */
    uint8_t *c = malloc(n ? n : 1);
    memcpy(c, p, n);
    ddbi_rec rec = {c, n, false};
    decoded x, y;
    by_item(&every_entity, &rec, a, &y);
    by_record(&every_entity, &rec, a, &x);
    if (y.rc == DDB_ECORRUPT || !sorted(&rec, a)) {
        /* (the item path does not see names out of order: its walk of
         * the sorted fields misses some attributes) */
        assert_int_equal(x.rc, DDB_ECORRUPT);
        (*corrupt)++;
    } else {
        assert_same(&every_entity, &x, &y, a);
    }
    free(c);
    return x.rc;
}

static void test_damaged_records(void **state)
{
    (void)state;
    ddb_arena *a = ddb_arena_new();
    struct every s = sample(0);
    ddbi_rec rec = record_of(&every_entity, &s, a);
    uint8_t *m = malloc(rec.len);
    size_t corrupt = 0, cases = 0;
    static const uint8_t with[] = {0x00, 0x01, 0x7f, 0x80, 0xff};
    for (size_t i = 0; i < rec.len; i++) {
        for (size_t w = 0; w < sizeof with; w++) {
            memcpy(m, rec.p, rec.len);
            if (m[i] == with[w])
                continue;
            m[i] = with[w];
            both_paths(m, rec.len, a, &corrupt);
            cases++;
        }
        assert_int_equal(both_paths(rec.p, i, a, &corrupt), DDB_ECORRUPT); /* cut short */
        cases++;
        ddb_arena_reset(a);
        rec = record_of(&every_entity, &s, a);
    }
    /* every cut, and some of the changed bytes, are damage (the others
     * change values, types or names) */
    assert_true(corrupt > rec.len && corrupt < cases);
    free(m);
    ddb_arena_free(a);
}

/* ---- a damaged record in the database file ----------------------------------- */

static void test_damaged_in_file(void **state)
{
    (void)state;
    char dir[1024], uri[1100];
    dmg_dir(dir, sizeof dir, "records");
    snprintf(uri, sizeof uri, "file:%s", dir);
    ddb *db;
    ddb_error err = {0};
    assert_int_equal(ddb_open(uri, NULL, &db, &err), 0);
    const ddb_entity_desc *ents[] = {&every_entity};
    assert_int_equal(ddb_ent_open_table(db, &every_table, ents, 1, &err), 0);
    struct every s = sample(0);
    assert_int_equal(ddb_ent_put(db, &every_entity, &s, NULL, NULL, &err), 0);
    ddb_close(db);

    /* the record cut short inside its last attribute (zz): its keys still
     * read, its body does not */
    ddb_arena *a = ddb_arena_new();
    ddbi_rec rec = record_of(&every_entity, &s, a);
    ddb_key k;
    ddbi_key_make(&k, ddb_v_str(a, s.pk), ddb_v_str(a, s.sk));
    dmg_raw w;
    assert_int_equal(dmg_raw_open(&w, dir), 0);
    assert_int_equal(dmg_raw_put(&w, "i/records", 0, k.b, k.len, rec.p, rec.len - 2), 0);
    assert_int_equal(dmg_raw_close(&w), 0);

    assert_int_equal(ddb_open(uri, NULL, &db, &err), 0);
    struct every out;
    assert_int_equal(ddb_ent_read(db, &every_entity, &s, NULL, a, &out, NULL, &err), DDB_ECORRUPT);
    assert_non_null(strstr(err.message, "unreadable"));
    ddb_ent_key_cond kc = {.key = 0, .obj = &s};
    ddb_ent_result res;
    assert_int_equal(ddb_ent_query_pattern(db, &every_entity, &kc, NULL, a, &res, &err), DDB_ECORRUPT);
    /* a typed scan and a batch get of it: records too (scan_records, batch_get_records) */
    assert_int_equal(ddb_ent_scan(db, &every_entity, NULL, 0, 0, NULL, a, &res, &err), DDB_ECORRUPT);
    assert_non_null(strstr(err.message, "unreadable"));
    bool found;
    assert_int_equal(ddb_ent_batch_read(db, &every_entity, &s, 1, NULL, a, &out, NULL, &found, &err), DDB_ECORRUPT);
    assert_non_null(strstr(err.message, "unreadable"));
    ddb_close(db);
    ddb_arena_free(a);
    dmg_rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_field_type),
        cmocka_unit_test(test_fleet_entities),
        cmocka_unit_test(test_unknown_attributes),
        cmocka_unit_test(test_text_lengths),
        cmocka_unit_test(test_plans),
        cmocka_unit_test(test_damaged_records),
        cmocka_unit_test(test_damaged_in_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
