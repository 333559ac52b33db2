/* The shard limit of the entity layer (DDB_ENT_MAX_SHARDS).
 *
 * A hand-written descriptor with one shard more than the limit goes
 * through every entity operation: each refuses it with DDB_ELIMIT naming
 * the entity, its shard count and the limit, before it touches a shard
 * (delete used to read past a 64-entry stack array; under ASan this test
 * catches any such overflow).  An entity with exactly DDB_ENT_MAX_SHARDS
 * shards works end to end: open, put, get, update, query, transaction,
 * delete. */
#include "testutil.h" /* tests/runtime: tu_open, tu_rmdir, cmocka */

#include <ddb/entity.h>

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define OVER (DDB_ENT_MAX_SHARDS + 1)

struct rec {
    char id[16];
    int64_t v;
};

/* The result of a collection query over Rec. */
struct recs {
    struct rec *recs;
    size_t recs_count;
};

static const ddb_field_desc rec_fields[] = {
    {.name = "id", .attr = "id", .type = DDB_F_CHARS, .size = 16, .offset = offsetof(struct rec, id),
     .flags = DDB_FIELD_KEY, .shard = -1},
    {.name = "v", .attr = "v", .type = DDB_F_INT, .size = 8, .offset = offsetof(struct rec, v), .shard = 1},
};
static const ddb_struct_desc rec_desc = {"rec", sizeof(struct rec), 2, rec_fields};

static const ddb_tseg pk_segs[] = {{.lit = "REC#"}, {.path = (const uint16_t[]){0}, .path_len = 1}};
static const ddb_tseg sk_segs[] = {{.lit = "REC"}};
static const ddb_key_desc rec_keys[] = {{NULL, "PK", "SK", {pk_segs, 2, DDB_TS}, {sk_segs, 1, DDB_TS}, -1, false}};
static const ddb_schema_table table = {"shards", "Type", {.name = "Shards", .key = {.pk = "PK", .pk_type = DDB_TS, .sk = "SK", .sk_type = DDB_TS}}};

static char shard_text[OVER][8];
static const char *shard_ids[OVER];

/* Entity "Rec" with n shards "S00", "S01", ... */
static ddb_entity_desc rec_entity(uint16_t n)
{
    for (int i = 0; i < OVER; i++) {
        snprintf(shard_text[i], sizeof shard_text[i], "S%02d", i);
        shard_ids[i] = shard_text[i];
    }
    return (ddb_entity_desc){.name = "Rec", .table = &table, .st = &rec_desc, .n_keys = 1, .keys = rec_keys,
                             .n_shards = n, .shards = shard_ids, .shard_suffix = "#"};
}

typedef struct fx {
    ddb *db;
    ddb_arena *a;
    char dir[512];
} fx;

static int setup(void **state)
{
    static fx f;
    memset(&f, 0, sizeof f);
    f.db = tu_open("shard-limit", NULL, f.dir, sizeof f.dir);
    f.a = ddb_arena_new();
    *state = &f;
    return f.a ? 0 : -1;
}

static int teardown(void **state)
{
    fx *f = *state;
    ddb_arena_free(f->a);
    ddb_close(f->db);
    tu_rmdir(f->dir);
    return 0;
}

/* rc is DDB_ELIMIT and the message names the entity, the count and the limit. */
static void assert_over_limit(const char *op, int rc, const ddb_error *err)
{
    char want[DDB_ERROR_TEXT_SIZE];
    snprintf(want, sizeof want, "entity Rec has %d shards; at most %d are allowed (DDB_ENT_MAX_SHARDS)", OVER,
             DDB_ENT_MAX_SHARDS);
    if (rc != DDB_ELIMIT || err->code != DDB_ELIMIT || strcmp(err->message, want) != 0)
        fail_msg("%s: rc %d, error %d \"%s\"; expected DDB_ELIMIT \"%s\"", op, rc, err->code, err->message, want);
}

static void test_over_limit_refused(void **state)
{
    fx *f = *state;
    ddb_entity_desc e = rec_entity(OVER);
    const ddb_entity_desc *ents[] = {&e};
    struct rec r = {.id = "r1", .v = 7}, out;
    ddb_error err;
    ddb_capacity cap;

    /* the table exists, so a path that skipped the check would reach the backend */
    assert_int_equal(ddb_ent_create_table(f->db, &table, &err), DDB_OK);

    memset(&err, 0, sizeof err);
    assert_over_limit("put", ddb_ent_put(f->db, &e, &r, NULL, &cap, &err), &err);
    memset(&err, 0, sizeof err);
    assert_over_limit("create", ddb_ent_create(f->db, &e, &r, NULL, &cap, &err), &err);
    memset(&err, 0, sizeof err);
    assert_over_limit("get", ddb_ent_get(f->db, &e, &r, NULL, f->a, &out, &cap, &err), &err);
    memset(&err, 0, sizeof err);
    assert_over_limit("delete", ddb_ent_delete(f->db, &e, &r, NULL, &cap, &err), &err);
    memset(&err, 0, sizeof err);
    const char *fields[] = {"v"};
    assert_over_limit("update", ddb_ent_update_fields(f->db, &e, &r, fields, 1, NULL, &cap, &err), &err);

    memset(&err, 0, sizeof err);
    ddb_ent_query q = {.key = 0, .obj = &r};
    ddb_ent_page page;
    assert_over_limit("query", ddb_ent_query_page(f->db, &e, &q, NULL, f->a, &page, &err), &err);

    struct recs result;
    const ddb_collection_member members[] = {{&e, 0, offsetof(struct recs, recs), offsetof(struct recs, recs_count), 0}};
    const ddb_collection_desc coll = {"Recs", NULL, 1, members};
    memset(&err, 0, sizeof err);
    assert_over_limit("collection", ddb_ent_query_collection(f->db, &coll, 0, &r, NULL, f->a, &result, &cap, &err),
                      &err);

    ddb_ent_tx *tx = ddb_ent_tx_new(f->db, f->a, &err);
    assert_non_null(tx);
    memset(&err, 0, sizeof err);
    assert_over_limit("tx put", ddb_ent_tx_put(tx, &e, &r, NULL, &err), &err);
    memset(&err, 0, sizeof err);
    assert_over_limit("tx create", ddb_ent_tx_create(tx, &e, &r, NULL, &err), &err);
    memset(&err, 0, sizeof err);
    assert_over_limit("tx delete", ddb_ent_tx_delete(tx, &e, &r, NULL, &err), &err);
    memset(&err, 0, sizeof err);
    assert_over_limit("tx require", ddb_ent_tx_require(tx, &e, &r, true, &err), &err);
    memset(&err, 0, sizeof err);
    assert_int_equal(ddb_ent_tx_commit(tx, NULL, &cap, &err), DDB_EINVAL); /* nothing is written */

    memset(&err, 0, sizeof err);
    assert_over_limit("batch put", ddb_ent_batch_put(f->db, &e, &r, 1, NULL, &cap, &err), &err);
    bool found;
    memset(&err, 0, sizeof err);
    assert_over_limit("batch get", ddb_ent_batch_get(f->db, &e, &r, 1, NULL, f->a, &out, &found, &cap, &err), &err);

    memset(&err, 0, sizeof err);
    assert_over_limit("open table", ddb_ent_open_table(f->db, &table, ents, 1, &err), &err);

    ddb_stream_record rec = {.table = "Shards"};
    ddb_ent_record info;
    struct rec old;
    memset(&err, 0, sizeof err);
    assert_over_limit("decode record",
                      ddb_ent_decode_record(ents, 1, &rec, f->a, &out, &old, sizeof out, &info, &err), &err);

    /* nothing reached the table */
    ddb_scan_params sp = {.table = "Shards"};
    ddb_page pg;
    assert_int_equal(ddb_scan(f->db, &sp, f->a, &pg, &err), DDB_OK);
    assert_int_equal(pg.count, 0);
}

static void test_at_limit_works(void **state)
{
    fx *f = *state;
    ddb_entity_desc e = rec_entity(DDB_ENT_MAX_SHARDS);
    const ddb_entity_desc *ents[] = {&e};
    ddb_error err = {0};
    ddb_capacity cap;
    if (ddb_ent_open_table(f->db, &table, ents, 1, &err))
        fail_msg("open: %s", err.message);

    struct rec r = {.id = "r1", .v = 7}, out;
    if (ddb_ent_put(f->db, &e, &r, NULL, &cap, &err))
        fail_msg("put: %s", err.message);
    ddb_scan_params sp = {.table = "Shards"};
    ddb_page pg;
    assert_int_equal(ddb_scan(f->db, &sp, f->a, &pg, &err), DDB_OK);
    assert_int_equal(pg.count, DDB_ENT_MAX_SHARDS); /* one item per shard */

    memset(&out, 0, sizeof out);
    if (ddb_ent_get(f->db, &e, &r, NULL, f->a, &out, &cap, &err))
        fail_msg("get: %s", err.message);
    assert_string_equal(out.id, "r1");
    assert_int_equal(out.v, 7);

    r.v = 8;
    const char *fields[] = {"v"};
    if (ddb_ent_update_fields(f->db, &e, &r, fields, 1, NULL, &cap, &err))
        fail_msg("update: %s", err.message);

    ddb_ent_query q = {.key = 0, .obj = &r};
    ddb_ent_page page;
    if (ddb_ent_query_page(f->db, &e, &q, NULL, f->a, &page, &err))
        fail_msg("query: %s", err.message);
    assert_int_equal(page.count, 1); /* the shard items merged into one entity */
    assert_int_equal(((struct rec *)page.items)[0].v, 8);

    struct rec r2 = {.id = "r2", .v = 9};
    ddb_ent_tx *tx = ddb_ent_tx_new(f->db, f->a, &err);
    assert_non_null(tx);
    if (ddb_ent_tx_create(tx, &e, &r2, NULL, &err) || ddb_ent_tx_commit(tx, NULL, &cap, &err))
        fail_msg("transaction: %s", err.message);

    /* a batch write request holds 25 items: an entity of more shards is refused, not overrun */
    assert_int_equal(ddb_ent_batch_put(f->db, &e, &r2, 1, NULL, &cap, &err), DDB_ELIMIT);
    assert_non_null(strstr(err.message, "Rec has 64 shards"));

    if (ddb_ent_delete(f->db, &e, &r, NULL, &cap, &err) || ddb_ent_delete(f->db, &e, &r2, NULL, &cap, &err))
        fail_msg("delete: %s", err.message);
    assert_int_equal(ddb_ent_get(f->db, &e, &r, NULL, f->a, &out, &cap, &err), DDB_ENOTFOUND);
    assert_int_equal(ddb_scan(f->db, &sp, f->a, &pg, &err), DDB_OK);
    assert_int_equal(pg.count, 0);
}

/* A field or key on a shard the entity does not have is refused too. */
static void test_unknown_shard_refused(void **state)
{
    fx *f = *state;
    ddb_entity_desc e = rec_entity(1); /* field v is on shard 1 */
    struct rec r = {.id = "r1", .v = 7};
    ddb_error err = {0};
    assert_int_equal(ddb_ent_put(f->db, &e, &r, NULL, NULL, &err), DDB_EINVAL);
    assert_string_equal(err.message, "entity Rec: field v is on shard 1 of 1");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_over_limit_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_at_limit_works, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unknown_shard_refused, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
