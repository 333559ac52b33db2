/* Item records written before the key hint (version 1, core/codec.h) read
 * as the hinted ones do: a table's records are rewritten in the version 1
 * layout with raw LMDB, then GetItem (items and records), Query on the
 * table and on a GSI, TTL expiry and ddb_check_table see the same items.
 * Also: a version 2 record whose hint points into an attribute is found by
 * ddb_check_table and read as damaged (DDB_ECORRUPT), never as another
 * item. */
#include "testutil.h"

#include "api/records.h"
#include "core/codec.h"

#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char dir[512];
static const int64_t NOW_MS = 1700000000000LL;

static int64_t fixed_clock(void *ctx)
{
    (void)ctx;
    return NOW_MS;
}

#define N_PARTS 3
#define N_ITEMS 12 /* per partition */

/* Item i of partition p: every third expired (TTL), every third without
 * a TTL attribute. */
static ddb_item *make_item(ddb_arena *a, int p, int i)
{
    char pk[16], gpk[16], gsk[16];
    snprintf(pk, sizeof pk, "user#%d", p);
    snprintf(gpk, sizeof gpk, "g#%d", i % 2);
    snprintf(gsk, sizeof gsk, "%d-%02d", p, i);
    ddb_item *it = tu_item(a, "pk", 's', pk, "sk", 'i', (int64_t)i, "gpk", 's', gpk, "gsk", 's', gsk, "data", 's',
                           "some payload", NULL);
    if (i % 3 == 1)
        TU_OK(ddb_item_set_i64(it, "exp", NOW_MS / 1000 - 60)); /* expired */
    else if (i % 3 == 2)
        TU_OK(ddb_item_set_i64(it, "exp", NOW_MS / 1000 + 3600));
    return it;
}

static ddb *open_db(void)
{
    ddb_options o = {.clock_ms = fixed_clock};
    char uri[600];
    snprintf(uri, sizeof uri, "file:%s", dir);
    ddb *db;
    ddb_error err = {0};
    if (ddb_open(uri, &o, &db, &err))
        fail_msg("ddb_open: %s", err.message);
    return db;
}

/* Rewrite every record of table Tab: version 1 (no hint), or (damage) the
 * first hint offset of every hinted record moved by one byte.  Returns how
 * many records were hinted before. */
static int rewrite_records(bool damage)
{
    MDB_env *env;
    MDB_txn *txn;
    MDB_dbi dbi;
    MDB_cursor *cur;
    assert_int_equal(mdb_env_create(&env), 0);
    assert_int_equal(mdb_env_set_maxdbs(env, 64), 0);
    assert_int_equal(mdb_env_set_mapsize(env, (size_t)1 << 30), 0);
    assert_int_equal(mdb_env_open(env, dir, 0, 0644), 0);
    assert_int_equal(mdb_txn_begin(env, NULL, 0, &txn), 0);
    assert_int_equal(mdb_dbi_open(txn, "i/Tab", 0, &dbi), 0);
    assert_int_equal(mdb_cursor_open(txn, dbi, &cur), 0);
    ddb_arena *a = ddb_arena_new();
    ddb_buf b = {0};
    int hinted = 0;
    MDB_val k, v;
    for (int g = mdb_cursor_get(cur, &k, &v, MDB_FIRST); g == 0; g = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
        const uint8_t *rec = v.mv_data;
        hinted += rec[0] == DDBI_RECORD_VERSION_HINTED;
        b.len = 0;
        if (damage) {
            assert_int_equal(rec[0], DDBI_RECORD_VERSION_HINTED);
            assert_int_equal(ddbi_buf_put(&b, rec, v.mv_size), DDB_OK);
            ddbi_rec_header h = {0};
            assert_int_equal(ddbi_record_header(b.p, b.len, &h), DDB_OK);
            assert_true(h.n_hint > 0 && h.hint[0] < 0x7f);
            b.p[h.hint - b.p] += 1; /* the name length's varint is one byte: into the name */
        } else {
            ddb_arena_reset(a);
            ddb_item *it;
            assert_int_equal(ddbi_decode_item(rec, v.mv_size, a, &it), DDB_OK);
            assert_int_equal(ddbi_encode_item(&b, ddb_item_map(it), ddb_item_size(it)), DDB_OK);
            assert_int_equal(b.p[0], DDBI_RECORD_VERSION);
        }
        /* the key copied first: a value of another size moves the node,
         * and k points into the page */
        uint8_t kb[512];
        assert_true(k.mv_size <= sizeof kb);
        memcpy(kb, k.mv_data, k.mv_size);
        MDB_val nk = {k.mv_size, kb}, nv = {b.len, b.p};
        assert_int_equal(mdb_cursor_put(cur, &nk, &nv, MDB_CURRENT), 0);
    }
    mdb_cursor_close(cur);
    assert_int_equal(mdb_txn_commit(txn), 0);
    mdb_env_close(env);
    ddbi_buf_free(&b);
    ddb_arena_free(a);
    return hinted;
}

/* Every item reads as written (expired ones not at all), through the
 * item and the record paths, the table and the GSI queries. */
static void read_all(ddb *db)
{
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    for (int p = 0; p < N_PARTS; p++) {
        for (int i = 0; i < N_ITEMS; i++) {
            ddb_arena_reset(a);
            ddb_item *want = make_item(a, p, i);
            ddb_item *key = tu_item(a, "pk", 's', ddb_item_get(want, "pk")->u.s, "sk", 'i', (int64_t)i, NULL), *out;
            int rc = ddb_get_item(db, "Tab", key, NULL, a, &out, NULL, &err);
            ddbi_rec rec;
            ddb_item *rout;
            int rrc = ddbi_get_record(db, "Tab", key, NULL, a, NULL, &rout, &rec, NULL, &err);
            if (i % 3 == 1) { /* expired: invisible */
                assert_int_equal(rc, DDB_ENOTFOUND);
                assert_int_equal(rrc, DDB_ENOTFOUND);
                continue;
            }
            assert_int_equal(rc, DDB_OK);
            assert_true(ddb_value_equal(ddb_item_map(out), ddb_item_map(want)));
            assert_int_equal(rrc, DDB_OK);
            assert_non_null(rec.p);
            ddb_item *dec;
            assert_int_equal(ddbi_decode_item(rec.p, rec.len, a, &dec), DDB_OK);
            assert_true(ddb_value_equal(ddb_item_map(dec), ddb_item_map(want)));
        }
        /* the partition: the live items, also as records */
        ddb_arena_reset(a);
        char pk[16];
        snprintf(pk, sizeof pk, "user#%d", p);
        ddb_query_params q = {.table = "Tab", .pk = ddb_v_str(a, pk)};
        ddb_page pg;
        TU_OK(ddb_query(db, &q, a, &pg, &err));
        assert_int_equal(pg.count, N_ITEMS - N_ITEMS / 3);
        ddbi_rec_page rp;
        TU_OK(ddbi_query_records(db, &q, a, NULL, &rp, &err));
        assert_int_equal(rp.page.count, N_ITEMS - N_ITEMS / 3);
        /* a sort key condition reads the sort key in the record */
        q.sk_op = DDB_SK_GE;
        q.sk1 = ddb_v_i64(a, 6);
        TU_OK(ddbi_query_records(db, &q, a, NULL, &rp, &err));
        assert_int_equal(rp.page.count, 4); /* 6, 8, 9, 11 */
    }
    /* the GSI: partition g#0 holds the even i of every partition */
    ddb_arena_reset(a);
    ddb_query_params q = {.table = "Tab", .index = "Gsi", .pk = ddb_v_str(a, "g#0")};
    ddbi_rec_page rp;
    TU_OK(ddbi_query_records(db, &q, a, NULL, &rp, &err));
    assert_int_equal(rp.page.count, N_PARTS * 4); /* i = 0, 2, 6, 8 (4 and 10 expired) */
    ddb_check_report rep;
    TU_OK(ddb_check_table(db, "Tab", &rep, &err));
    assert_int_equal(rep.items, N_PARTS * N_ITEMS);
    ddb_arena_free(a);
}

static void test_old_records(void **state)
{
    (void)state;
    ddb *db = tu_open("reccompat", &(ddb_options){.clock_ms = fixed_clock}, dir, sizeof dir);
    ddb_error err = {0};
    ddb_index_def g = {.name = "Gsi", .key = {.pk = "gpk", .pk_type = DDB_TS, .sk = "gsk", .sk_type = DDB_TS}, .projection = DDB_PROJ_ALL};
    TU_OK(ddb_create_table(db, &(ddb_table_def){.name = "Tab", .key = {.pk = "pk", .pk_type = DDB_TS, .sk = "sk", .sk_type = DDB_TN}, .indexes = &g,
                                                .n_indexes = 1},
                           &err));
    TU_OK(ddb_update_time_to_live(db, "Tab", "exp", &err));
    ddb_arena *a = ddb_arena_new();
    for (int p = 0; p < N_PARTS; p++)
        for (int i = 0; i < N_ITEMS; i++) {
            ddb_arena_reset(a);
            TU_OK(ddb_put_item(db, "Tab", make_item(a, p, i), NULL, NULL, NULL, &err));
        }
    ddb_arena_free(a);
    read_all(db); /* hinted records */
    ddb_close(db);
    assert_int_equal(rewrite_records(false), N_PARTS * N_ITEMS); /* all were hinted */
    db = open_db();
    read_all(db); /* version 1 records */
    ddb_close(db);
    tu_rmdir(dir);
}

static void test_damaged_hint(void **state)
{
    (void)state;
    ddb *db = tu_open("rechint", &(ddb_options){.clock_ms = fixed_clock}, dir, sizeof dir);
    ddb_error err = {0};
    TU_OK(ddb_create_table(db, &(ddb_table_def){.name = "Tab", .key = {.pk = "pk", .pk_type = DDB_TS, .sk = "sk", .sk_type = DDB_TN}}, &err));
    ddb_arena *a = ddb_arena_new();
    TU_OK(ddb_put_item(db, "Tab", make_item(a, 0, 0), NULL, NULL, NULL, &err));
    ddb_close(db);
    rewrite_records(true);
    db = open_db();
    ddb_check_report rep;
    assert_int_equal(ddb_check_table(db, "Tab", &rep, &err), DDB_ECORRUPT);
    assert_non_null(strstr(rep.first_problem, "key hint"));
    /* the hinted partition key's name no longer reads as "pk": the walk
     * finds it, the record path reads the item as it is */
    ddb_item *key = tu_item(a, "pk", 's', "user#0", "sk", 'i', (int64_t)0, NULL), *out;
    ddbi_rec rec;
    int rc = ddbi_get_record(db, "Tab", key, NULL, a, NULL, &out, &rec, NULL, &err);
    assert_true(rc == DDB_OK || rc == DDB_ECORRUPT);
    TU_OK(ddb_get_item(db, "Tab", key, NULL, a, &out, NULL, &err));
    ddb_close(db);
    ddb_arena_free(a);
    tu_rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_old_records),
        cmocka_unit_test(test_damaged_hint),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
