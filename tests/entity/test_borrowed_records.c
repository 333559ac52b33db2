/* Typed reads decode the embedded engine's records inside its read
 * transaction, straight from LMDB's map (api/backend.h: a visitor gets
 * each record borrowed).  What such a read gives the caller must outlive
 * the transaction: no field of the struct may point into the map.  A get
 * and a 100-item Query of an entity with a bytes and a string field, the
 * pointers they return checked against where the engine's file is mapped,
 * and the values checked after the items are overwritten (the pages they
 * were read from reused).  Links the internal library for the engine's
 * map (engine/engine.h). */
#include <ddb/entity.h>

#include "api/api.h"
#include "engine/engine.h"
#include "testutil.h" /* tests/runtime: tu_open, tu_rmdir, TU_OK, cmocka */

#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct blob {
    char pk[16];
    int32_t n;
    ddb_bytes data;
    char *note;
};

#define P(i) ((const uint16_t[]){i})
static const ddb_field_desc blob_fields[] = {
    {.name = "pk", .attr = "pk", .type = DDB_F_CHARS, .size = 16, .offset = offsetof(struct blob, pk),
     .flags = DDB_FIELD_KEY, .shard = -1},
    {.name = "n", .attr = "n", .type = DDB_F_INT, .size = 4, .offset = offsetof(struct blob, n),
     .flags = DDB_FIELD_KEY, .shard = -1},
    {.name = "data", .attr = "data", .type = DDB_F_BYTES, .size = sizeof(ddb_bytes),
     .offset = offsetof(struct blob, data), .shard = -1},
    {.name = "note", .attr = "note", .type = DDB_F_STRING, .size = sizeof(char *),
     .offset = offsetof(struct blob, note), .shard = -1},
};
static const ddb_struct_desc blob_st = {"blob", sizeof(struct blob), 4, blob_fields};
static const ddb_tseg seg_pk[] = {{.path = P(0), .path_len = 1}}, seg_sk[] = {{.path = P(1), .path_len = 1, .pad = 4}};
static const ddb_key_desc blob_keys[] = {{NULL, "PK", "SK", {seg_pk, 1, DDB_TS}, {seg_sk, 1, DDB_TS}, -1, false}};
static const ddb_schema_table blob_table = {"Blobs", "Type", {.name = "Blobs", .key = {.pk = "PK", .pk_type = DDB_TS, .sk = "SK", .sk_type = DDB_TS}}};
static const ddb_entity_desc blob_entity = {.name = "Blob", .table = &blob_table, .st = &blob_st, .n_keys = 1,
                                            .keys = blob_keys};

enum { N = 100, DATA = 150 };

/* Item i's bytes at version v. */
static void data_of(int i, int v, uint8_t *out)
{
    for (int k = 0; k < DATA; k++)
        out[k] = (uint8_t)(i * 7 + k + v * 13);
}

static void put_all(ddb *db, int v)
{
    uint8_t d[DATA];
    char note[32];
    ddb_error err = {0};
    for (int i = 0; i < N; i++) {
        struct blob b = {.pk = "P", .n = i, .data = {d, DATA}, .note = note};
        data_of(i, v, d);
        snprintf(note, sizeof note, "note %d v%d", i, v);
        TU_OK(ddb_ent_put(db, &blob_entity, &b, NULL, NULL, &err));
    }
}

/* Is p inside the engine's mapping of its file? */
static bool in_map(ddb *db, const void *p)
{
    const ddbi_engine *e = db->impl;
    uintptr_t x = (uintptr_t)p, m = (uintptr_t)e->map;
    return e->map && x >= m && x - m < e->map_size;
}

static void check(ddb *db, const struct blob *b, int i, int v)
{
    uint8_t d[DATA];
    char note[32];
    data_of(i, v, d);
    snprintf(note, sizeof note, "note %d v%d", i, v);
    assert_int_equal(b->n, i);
    assert_int_equal(b->data.len, DATA);
    assert_memory_equal(b->data.data, d, DATA);
    assert_string_equal(b->note, note);
    assert_false(in_map(db, b->data.data));
    assert_false(in_map(db, b->note));
}

static void test_reads_outlive_the_transaction(void **state)
{
    (void)state;
    char dir[512];
    ddb_error err = {0};
    ddb_options o = {.sync = DDB_SYNC_NONE};
    ddb *db = tu_open("borrowed", &o, dir, sizeof dir);
    assert_non_null(db);
    const ddb_entity_desc *ents[] = {&blob_entity};
    TU_OK(ddb_ent_open_table(db, &blob_table, ents, 1, &err));
    assert_non_null(((const ddbi_engine *)db->impl)->map); /* the check below means something */
    put_all(db, 0);
    ddb_arena *a = ddb_arena_new();

    /* a get */
    struct blob key = {.pk = "P", .n = 42}, got;
    TU_OK(ddb_ent_read(db, &blob_entity, &key, NULL, a, &got, NULL, &err));
    check(db, &got, 42, 0);

    /* a query of the whole partition */
    ddb_ent_key_cond kc = {.key = 0, .obj = &key};
    ddb_ent_result res;
    TU_OK(ddb_ent_query_pattern(db, &blob_entity, &kc, NULL, a, &res, &err));
    assert_int_equal(res.count, N);
    const struct blob *items = res.items;
    for (int i = 0; i < N; i++)
        check(db, &items[i], i, 0);

    /* the pages they came from rewritten: what was read stays */
    put_all(db, 1);
    put_all(db, 2);
    check(db, &got, 42, 0);
    for (int i = 0; i < N; i++)
        check(db, &items[i], i, 0);

    ddb_arena_free(a);
    ddb_close(db);
    tu_rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reads_outlive_the_transaction),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
