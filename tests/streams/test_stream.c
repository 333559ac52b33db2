/* Change streams: order and content of the records of every write path
 * (put, update, delete, batch, transaction, TTL), what leaves no record
 * (failed conditions, cancelled transactions, no-op writes), view types,
 * iterators and their positions, retention and DDB_ETRIMMED, switching the
 * stream on and off, DeleteTable, concurrency under group commit, and
 * ddb_stream_check on a damaged stream. */
#include "stream_util.h"

#include <lmdb.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T "Stream"
#define T0 1700000000000LL /* the injected clock's start (ms) */

static char dir[512];
static su_clock clk;

static ddb *open_fresh(const char *name)
{
    atomic_store(&clk.ms, T0);
    return su_open(name, NULL, &clk, dir, sizeof dir);
}

static ddb_item *key(ddb_arena *a, const char *pk, const char *sk)
{
    return su_item(a, "PK", 's', pk, "SK", 's', sk, NULL);
}

static void put(ddb *db, ddb_arena *a, const char *pk, const char *sk, const char *v)
{
    ddb_error err = {0};
    if (ddb_put_item(db, T, su_item(a, "PK", 's', pk, "SK", 's', sk, "v", 's', v, NULL), NULL, NULL, NULL, &err))
        fail_msg("put: %s", err.message);
}

static void expect(const ddb_stream_record *r, uint64_t seq, ddb_stream_event ev, const char *pk, const char *sk,
                   const char *old_v, const char *new_v)
{
    assert_int_equal(r->seq, seq);
    assert_int_equal(r->event, ev);
    assert_string_equal(r->table, T);
    assert_string_equal(su_s(r->keys, "PK"), pk);
    assert_string_equal(su_s(r->keys, "SK"), sk);
    assert_int_equal(ddb_item_count(r->keys), 2);
    if (old_v) {
        assert_non_null(r->old_image);
        assert_string_equal(su_s(r->old_image, "v"), old_v);
    } else {
        assert_null(r->old_image);
    }
    if (new_v) {
        assert_non_null(r->new_image);
        assert_string_equal(su_s(r->new_image, "v"), new_v);
    } else {
        assert_null(r->new_image);
    }
    size_t size = ddb_item_size(r->keys) + (r->old_image ? ddb_item_size(r->old_image) : 0) +
                  (r->new_image ? ddb_item_size(r->new_image) : 0);
    assert_int_equal(r->size, size);
    assert_false(r->by_ttl);
}

/* put, update and delete: INSERT / MODIFY / REMOVE with both images, and
 * the writes that change nothing record nothing. */
static void test_single_writes(void **state)
{
    (void)state;
    ddb *db = open_fresh("single");
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    su_table(db, T, DDB_STREAM_NEW_AND_OLD_IMAGES, NULL);
    put(db, a, "p", "1", "a");                                   /* 1 INSERT */
    put(db, a, "p", "1", "a");                                   /* no change: nothing */
    atomic_store(&clk.ms, T0 + 5000);
    put(db, a, "p", "1", "b");                                   /* 2 MODIFY a -> b */
    ddb_expr *up;
    SU_OK(ddb_expr_prepare(DDB_EXPR_UPDATE, "SET v = :v", NULL, &up, &err));
    ddb_write_opts wo = {.values = su_item(a, ":v", 's', "c", NULL)};
    SU_OK(ddb_update_item(db, T, key(a, "p", "1"), up, &wo, NULL, NULL, &err)); /* 3 MODIFY b -> c */
    SU_OK(ddb_update_item(db, T, key(a, "p", "1"), up, &wo, NULL, NULL, &err)); /* c -> c: nothing */
    SU_OK(ddb_update_item(db, T, key(a, "p", "2"), up, &wo, NULL, NULL, &err)); /* 4 INSERT (upsert) */
    SU_OK(ddb_delete_item(db, T, key(a, "p", "1"), NULL, NULL, NULL, &err));   /* 5 REMOVE */
    SU_OK(ddb_delete_item(db, T, key(a, "p", "1"), NULL, NULL, NULL, &err));   /* missing: nothing */
    ddb_expr_free(up);

    ddb_stream_record r[16];
    size_t n = su_read_all(db, T, a, r, 16);
    assert_int_equal(n, 5);
    expect(&r[0], 1, DDB_STREAM_INSERT, "p", "1", NULL, "a");
    expect(&r[1], 2, DDB_STREAM_MODIFY, "p", "1", "a", "b");
    expect(&r[2], 3, DDB_STREAM_MODIFY, "p", "1", "b", "c");
    expect(&r[3], 4, DDB_STREAM_INSERT, "p", "2", NULL, "c");
    expect(&r[4], 5, DDB_STREAM_REMOVE, "p", "1", "c", NULL);
    assert_int_equal(r[0].created_ms, T0);
    assert_int_equal(r[1].created_ms, T0 + 5000);
    assert_int_equal(r[0].view, DDB_STREAM_NEW_AND_OLD_IMAGES);

    ddb_stream_desc d;
    SU_OK(ddb_stream_describe(db, T, &d, &err));
    assert_int_equal(d.first_seq, 1);
    assert_int_equal(d.last_seq, 5);
    assert_int_equal(d.records, 5);
    assert_int_equal(d.oldest_ms, T0);
    assert_int_equal(d.spec.view, DDB_STREAM_NEW_AND_OLD_IMAGES);
    assert_int_equal(d.spec.retention_seconds, 86400);
    ddb_check_report cr;
    SU_OK(ddb_stream_check(db, T, &cr, &err));
    assert_int_equal(cr.items, 5);
    ddb_arena_free(a);
    ddb_close(db);
    su_rmdir(dir);
}

/* What each view type records. */
static void test_views(void **state)
{
    (void)state;
    ddb *db = open_fresh("views");
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    static const ddb_stream_view views[] = {DDB_STREAM_KEYS_ONLY, DDB_STREAM_NEW_IMAGE, DDB_STREAM_OLD_IMAGE};
    for (size_t i = 0; i < 3; i++) {
        su_table(db, T, views[i], NULL);
        put(db, a, "k", "1", "x");
        put(db, a, "k", "1", "y");
        SU_OK(ddb_delete_item(db, T, key(a, "k", "1"), NULL, NULL, NULL, &err));
        ddb_stream_record r[8];
        size_t n = su_read_all(db, T, a, r, 8);
        assert_int_equal(n, 3);
        for (size_t j = 0; j < 3; j++) {
            assert_int_equal(r[j].view, views[i]);
            assert_string_equal(su_s(r[j].keys, "PK"), "k");
        }
        if (views[i] == DDB_STREAM_KEYS_ONLY) {
            for (size_t j = 0; j < 3; j++)
                assert_true(!r[j].old_image && !r[j].new_image);
        } else if (views[i] == DDB_STREAM_NEW_IMAGE) {
            assert_string_equal(su_s(r[0].new_image, "v"), "x");
            assert_string_equal(su_s(r[1].new_image, "v"), "y");
            assert_null(r[2].new_image);
            assert_true(!r[0].old_image && !r[1].old_image && !r[2].old_image);
        } else {
            assert_null(r[0].old_image);
            assert_string_equal(su_s(r[1].old_image, "v"), "x");
            assert_string_equal(su_s(r[2].old_image, "v"), "y");
            assert_true(!r[0].new_image && !r[1].new_image && !r[2].new_image);
        }
        ddb_check_report cr;
        SU_OK(ddb_stream_check(db, T, &cr, &err));
        SU_OK(ddb_delete_table(db, T, &err));
        ddb_arena_reset(a);
    }
    ddb_arena_free(a);
    ddb_close(db);
    su_rmdir(dir);
}

/* Batches and transactions record each change in request order, in one
 * commit; failed conditions and cancelled transactions record nothing. */
static void test_batch_transaction_rollback(void **state)
{
    (void)state;
    ddb *db = open_fresh("batch");
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    su_table(db, T, DDB_STREAM_NEW_AND_OLD_IMAGES, NULL);
    put(db, a, "b", "0", "old");                                           /* 1 */
    ddb_batch_write_op bw[3] = {{.table = T, .put = su_item(a, "PK", 's', "b", "SK", 's', "2", "v", 's', "two", NULL)},
                                {.table = T, .delete_key = key(a, "b", "0")},
                                {.table = T, .put = su_item(a, "PK", 's', "b", "SK", 's', "1", "v", 's', "one", NULL)}};
    SU_OK(ddb_batch_write(db, bw, 3, DDB_CAPACITY_NONE, NULL, &err));    /* 2, 3, 4 */

    /* a failed condition: nothing */
    ddb_expr *absent, *present, *up;
    SU_OK(ddb_expr_prepare(DDB_EXPR_CONDITION, "attribute_not_exists(PK)", NULL, &absent, &err));
    SU_OK(ddb_expr_prepare(DDB_EXPR_CONDITION, "attribute_exists(PK)", NULL, &present, &err));
    SU_OK(ddb_expr_prepare(DDB_EXPR_UPDATE, "SET v = :v", NULL, &up, &err));
    ddb_write_opts cond = {.condition = absent};
    assert_int_equal(ddb_put_item(db, T, su_item(a, "PK", 's', "b", "SK", 's', "1", "v", 's', "no", NULL), &cond, NULL,
                                  NULL, &err),
                     DDB_ECONDITION);
    /* a cancelled transaction: nothing, although its first op would write */
    ddb_item *vals = su_item(a, ":v", 's', "tx", NULL);
    ddb_tx_op tx[3] = {{.kind = DDB_TX_PUT, .table = T, .item = su_item(a, "PK", 's', "t", "SK", 's', "1", "v", 's', "a", NULL)},
                       {.kind = DDB_TX_UPDATE, .table = T, .item = key(a, "b", "1"), .update = up, .values = vals},
                       {.kind = DDB_TX_CHECK, .table = T, .item = key(a, "b", "9"), .condition = present}};
    ddb_tx_result res;
    assert_int_equal(ddb_transact_write(db, tx, 3, DDB_CAPACITY_NONE, a, &res, &err), DDB_ECANCELED);
    /* the same with a check that holds: 5 INSERT t/1, 6 MODIFY b/1 (the check records nothing) */
    tx[2].item = key(a, "b", "2");
    SU_OK(ddb_transact_write(db, tx, 3, DDB_CAPACITY_NONE, a, &res, &err));
    /* a batch whose second put breaks the index key type after the first was applied: nothing */
    ddb_batch_write_op bad[2] = {
        {.table = T, .put = su_item(a, "PK", 's', "z", "SK", 's', "1", "v", 's', "first", NULL)},
        {.table = T, .put = su_item(a, "PK", 's', "z", "SK", 's', "2", "GK", 'i', (int64_t)7, NULL)}};
    assert_int_equal(ddb_batch_write(db, bad, 2, DDB_CAPACITY_NONE, NULL, &err), DDB_EVALIDATION);
    ddb_item *got;
    assert_int_equal(ddb_get_item(db, T, key(a, "z", "1"), NULL, a, &got, NULL, &err), DDB_ENOTFOUND);
    ddb_expr_free(absent);
    ddb_expr_free(present);
    ddb_expr_free(up);

    ddb_stream_record r[16];
    size_t n = su_read_all(db, T, a, r, 16);
    assert_int_equal(n, 6);
    expect(&r[0], 1, DDB_STREAM_INSERT, "b", "0", NULL, "old");
    expect(&r[1], 2, DDB_STREAM_INSERT, "b", "2", NULL, "two");
    expect(&r[2], 3, DDB_STREAM_REMOVE, "b", "0", "old", NULL);
    expect(&r[3], 4, DDB_STREAM_INSERT, "b", "1", NULL, "one");
    expect(&r[4], 5, DDB_STREAM_INSERT, "t", "1", NULL, "a");
    expect(&r[5], 6, DDB_STREAM_MODIFY, "b", "1", "one", "tx");
    ddb_arena_free(a);
    ddb_close(db);
    su_rmdir(dir);
}

/* Group commit runs many writers' transactions as nested transactions of
 * one: a writer whose condition fails rolls back alone, and exactly the
 * successful writes have records, numbered without gaps. */
typedef struct worker {
    ddb *db;
    int id;
    int ok;
} worker;

static void *writer(void *arg)
{
    worker *w = arg;
    ddb_arena *a = ddb_arena_new();
    ddb_expr *absent;
    ddb_error err = {0};
    ddb_expr_prepare(DDB_EXPR_CONDITION, "attribute_not_exists(PK)", NULL, &absent, &err);
    ddb_write_opts cond = {.condition = absent};
    for (int i = 0; i < 200; i++) {
        char sk[32];
        snprintf(sk, sizeof sk, "%d", i % 50); /* repeats: conditional puts fail */
        ddb_item *it = su_item(a, "PK", 's', w->id % 2 ? "odd" : "even", "SK", 's', sk, "v", 's', "x", NULL);
        int rc = ddb_put_item(w->db, T, it, &cond, NULL, NULL, &err);
        if (rc == DDB_OK)
            w->ok++;
        else if (rc != DDB_ECONDITION)
            fail_msg("put: %s", err.message);
        ddb_arena_reset(a);
    }
    ddb_expr_free(absent);
    ddb_arena_free(a);
    return NULL;
}

static void test_concurrent_group_commit(void **state)
{
    (void)state;
    ddb_options o = {.sync = DDB_SYNC_LAZY};
    atomic_store(&clk.ms, T0);
    ddb *db = su_open("group", &o, &clk, dir, sizeof dir);
    su_table(db, T, DDB_STREAM_KEYS_ONLY, NULL);
    pthread_t th[6];
    worker w[6];
    for (int i = 0; i < 6; i++) {
        w[i] = (worker){db, i, 0};
        pthread_create(&th[i], NULL, writer, &w[i]);
    }
    int ok = 0;
    for (int i = 0; i < 6; i++) {
        pthread_join(th[i], NULL);
        ok += w[i].ok;
    }
    assert_int_equal(ok, 100); /* 50 keys under each of two partition keys */
    ddb_arena *a = ddb_arena_new();
    ddb_stream_record *r = calloc(200, sizeof *r);
    size_t n = su_read_all(db, T, a, r, 200);
    assert_int_equal(n, 100);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(r[i].seq, i + 1);
        assert_int_equal(r[i].event, DDB_STREAM_INSERT);
    }
    ddb_error err = {0};
    ddb_check_report cr;
    SU_OK(ddb_stream_check(db, T, &cr, &err));
    free(r);
    ddb_arena_free(a);
    ddb_close(db);
    su_rmdir(dir);
}

/* Iterator positions and the consumer's checkpoint. */
static void test_iterators(void **state)
{
    (void)state;
    ddb *db = open_fresh("iter");
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    ddb_stream_iter *it;
    assert_int_equal(ddb_stream_iter_open(db, T, DDB_STREAM_TRIM_HORIZON, 0, &it, &err), DDB_ENOTABLE);
    su_table(db, T, DDB_STREAM_NONE, NULL);
    assert_int_equal(ddb_stream_iter_open(db, T, DDB_STREAM_TRIM_HORIZON, 0, &it, &err), DDB_ENOTABLE);
    put(db, a, "n", "0", "unrecorded");
    ddb_stream_spec spec = {.view = DDB_STREAM_NEW_IMAGE};
    SU_OK(ddb_update_table_stream(db, T, &spec, &err));
    for (int i = 1; i <= 5; i++) {
        char sk[8];
        snprintf(sk, sizeof sk, "%d", i);
        put(db, a, "n", sk, sk);
    }
    ddb_stream_record r[8];
    size_t n;
    /* AT 3: 3, 4, 5 */
    SU_OK(ddb_stream_iter_open(db, T, DDB_STREAM_AT_SEQUENCE, 3, &it, &err));
    SU_OK(ddb_stream_read(it, 2, a, r, &n, &err));
    assert_int_equal(n, 2);
    assert_int_equal(r[0].seq, 3);
    assert_int_equal(ddb_stream_iter_position(it), 4);
    SU_OK(ddb_stream_read(it, 8, a, r, &n, &err));
    assert_int_equal(n, 1);
    assert_int_equal(r[0].seq, 5);
    SU_OK(ddb_stream_read(it, 8, a, r, &n, &err));
    assert_int_equal(n, 0); /* caught up */
    put(db, a, "n", "6", "6");
    SU_OK(ddb_stream_read(it, 8, a, r, &n, &err));
    assert_int_equal(n, 1);
    assert_int_equal(r[0].seq, 6);
    ddb_stream_iter_close(it);
    /* LATEST: only what comes later */
    SU_OK(ddb_stream_iter_open(db, T, DDB_STREAM_LATEST, 0, &it, &err));
    assert_int_equal(ddb_stream_iter_position(it), 6);
    SU_OK(ddb_stream_read(it, 8, a, r, &n, &err));
    assert_int_equal(n, 0);
    put(db, a, "n", "7", "7");
    SU_OK(ddb_stream_read(it, 8, a, r, &n, &err));
    assert_int_equal(n, 1);
    assert_string_equal(su_s(r[0].new_image, "v"), "7");
    ddb_stream_iter_close(it);
    /* AFTER a checkpoint */
    SU_OK(ddb_stream_iter_open(db, T, DDB_STREAM_AFTER_SEQUENCE, 5, &it, &err));
    SU_OK(ddb_stream_read(it, 8, a, r, &n, &err));
    assert_int_equal(n, 2);
    assert_int_equal(r[0].seq, 6);
    ddb_stream_iter_close(it);
    SU_OK(ddb_stream_iter_open(db, T, DDB_STREAM_AFTER_SEQUENCE, 7, &it, &err)); /* caught up is fine */
    ddb_stream_iter_close(it);
    assert_int_equal(ddb_stream_iter_open(db, T, DDB_STREAM_AFTER_SEQUENCE, 8, &it, &err), DDB_EVALIDATION);
    assert_non_null(strstr(err.message, "beyond the newest record (7)"));
    assert_int_equal(ddb_stream_iter_open(db, T, DDB_STREAM_AT_SEQUENCE, 0, &it, &err), DDB_EVALIDATION);
    /* disabled again: records stay readable, writes record nothing */
    spec.view = DDB_STREAM_NONE;
    SU_OK(ddb_update_table_stream(db, T, &spec, &err));
    put(db, a, "n", "8", "8");
    assert_int_equal(su_read_all(db, T, a, r, 8), 7);
    /* switched to KEYS_ONLY: new records say so */
    spec.view = DDB_STREAM_KEYS_ONLY;
    SU_OK(ddb_update_table_stream(db, T, &spec, &err));
    put(db, a, "n", "9", "9");
    assert_int_equal(su_read_all(db, T, a, r, 8), 8);
    assert_int_equal(r[7].seq, 8);
    assert_int_equal(r[7].view, DDB_STREAM_KEYS_ONLY);
    assert_null(r[7].new_image);
    assert_int_equal(r[6].view, DDB_STREAM_NEW_IMAGE);
    ddb_table_desc *td;
    SU_OK(ddb_describe_table(db, T, a, &td, &err));
    assert_int_equal(td->def.stream.view, DDB_STREAM_KEYS_ONLY);
    ddb_arena_free(a);
    ddb_close(db);
    su_rmdir(dir);
}

/* Retention by size and by age; a position whose records are gone is
 * DDB_ETRIMMED, TRIM_HORIZON moves on to the oldest retained record. */
static void test_retention(void **state)
{
    (void)state;
    ddb *db = open_fresh("retention");
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    su_table(db, T, DDB_STREAM_NEW_IMAGE, NULL);
    put(db, a, "r", "0", "0123456789");
    ddb_stream_desc d;
    SU_OK(ddb_stream_describe(db, T, &d, &err));
    uint64_t one = d.bytes; /* stored bytes of one such record */
    ddb_stream_spec spec = {.view = DDB_STREAM_NEW_IMAGE, .retention_bytes = 3 * one};
    SU_OK(ddb_update_table_stream(db, T, &spec, &err));
    ddb_stream_iter *slow;
    SU_OK(ddb_stream_iter_open(db, T, DDB_STREAM_AFTER_SEQUENCE, 0, &slow, &err));
    for (int i = 1; i <= 5; i++) {
        char sk[8];
        snprintf(sk, sizeof sk, "%d", i);
        put(db, a, "r", sk, "0123456789"); /* same size */
    }
    SU_OK(ddb_stream_describe(db, T, &d, &err));
    assert_int_equal(d.records, 3);
    assert_int_equal(d.first_seq, 4);
    assert_int_equal(d.trimmed_through, 3);
    assert_int_equal(d.last_seq, 6);
    assert_int_equal(d.bytes, 3 * one);
    ddb_stream_record r[8];
    size_t n;
    assert_int_equal(ddb_stream_read(slow, 8, a, r, &n, &err), DDB_ETRIMMED);
    assert_string_equal(err.message, "stream of table " T ": records 1..3 were trimmed before they were read; the "
                                     "oldest retained is 4");
    ddb_stream_iter_close(slow);
    ddb_stream_iter *it;
    assert_int_equal(ddb_stream_iter_open(db, T, DDB_STREAM_AFTER_SEQUENCE, 2, &it, &err), DDB_ETRIMMED);
    SU_OK(ddb_stream_iter_open(db, T, DDB_STREAM_AFTER_SEQUENCE, 3, &it, &err));
    ddb_stream_iter_close(it);
    n = su_read_all(db, T, a, r, 8);
    assert_int_equal(n, 3);
    assert_int_equal(r[0].seq, 4);

    /* by age: one hour retention, the clock moves on */
    spec = (ddb_stream_spec){.view = DDB_STREAM_NEW_IMAGE, .retention_seconds = 3600};
    SU_OK(ddb_update_table_stream(db, T, &spec, &err));
    atomic_store(&clk.ms, T0 + 1800 * 1000);
    put(db, a, "r", "7", "later"); /* 7, and nothing is old enough yet */
    SU_OK(ddb_stream_describe(db, T, &d, &err));
    assert_int_equal(d.records, 4);
    atomic_store(&clk.ms, T0 + 3601 * 1000);
    uint64_t trimmed = 0;
    SU_OK(ddb_stream_trim(db, T, &trimmed, &err));
    assert_int_equal(trimmed, 3); /* 4, 5, 6 were written at T0 */
    SU_OK(ddb_stream_describe(db, T, &d, &err));
    assert_int_equal(d.first_seq, 7);
    assert_int_equal(d.records, 1);
    /* a write also trims as it goes */
    atomic_store(&clk.ms, T0 + 1800 * 1000 + 3601 * 1000);
    put(db, a, "r", "8", "last");
    SU_OK(ddb_stream_describe(db, T, &d, &err));
    assert_int_equal(d.first_seq, 8);
    assert_int_equal(d.records, 1);
    ddb_check_report cr;
    SU_OK(ddb_stream_check(db, T, &cr, &err));
    ddb_arena_free(a);
    ddb_close(db);
    su_rmdir(dir);
}

/* DeleteTable takes the records; sequence numbers of the name go on, so an
 * old checkpoint is DDB_ETRIMMED, not silently reused. */
static void test_delete_table(void **state)
{
    (void)state;
    ddb *db = open_fresh("deltable");
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    su_table(db, T, DDB_STREAM_KEYS_ONLY, NULL);
    put(db, a, "d", "1", "x");
    put(db, a, "d", "2", "x");
    SU_OK(ddb_delete_table(db, T, &err));
    su_table(db, T, DDB_STREAM_KEYS_ONLY, NULL);
    ddb_stream_iter *it;
    assert_int_equal(ddb_stream_iter_open(db, T, DDB_STREAM_AFTER_SEQUENCE, 1, &it, &err), DDB_ETRIMMED);
    put(db, a, "d", "3", "x");
    ddb_stream_record r[4];
    assert_int_equal(su_read_all(db, T, a, r, 4), 1);
    assert_int_equal(r[0].seq, 3);
    ddb_check_report cr;
    SU_OK(ddb_stream_check(db, T, &cr, &err));
    ddb_arena_free(a);
    ddb_close(db);
    su_rmdir(dir);
}

/* TTL: expired items vanish from every read at once; the sweep deletes them
 * (index entries too) and records REMOVEs by the service. */
static void test_ttl(void **state)
{
    (void)state;
    ddb *db = open_fresh("ttl");
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    su_table(db, T, DDB_STREAM_NEW_AND_OLD_IMAGES, NULL);
    int64_t now = T0 / 1000;
    char soon[32], later[32], ancient[32];
    snprintf(soon, sizeof soon, "%lld", (long long)(now + 60));
    snprintf(later, sizeof later, "%lld", (long long)(now + 3600));
    snprintf(ancient, sizeof ancient, "%lld", (long long)(now - 6 * 365 * 86400LL));
    ddb_item *items[5] = {
        su_item(a, "PK", 's', "t", "SK", 's', "soon", "GK", 's', "g", "exp", 'n', soon, NULL),
        su_item(a, "PK", 's', "t", "SK", 's', "later", "GK", 's', "g", "exp", 'n', later, NULL),
        su_item(a, "PK", 's', "t", "SK", 's', "never", "GK", 's', "g", NULL),
        su_item(a, "PK", 's', "t", "SK", 's', "text", "GK", 's', "g", "exp", 's', "12", NULL),
        su_item(a, "PK", 's', "t", "SK", 's', "ancient", "GK", 's', "g", "exp", 'n', ancient, NULL)};
    for (int i = 0; i < 5; i++)
        SU_OK(ddb_put_item(db, T, items[i], NULL, NULL, NULL, &err));
    SU_OK(ddb_update_time_to_live(db, T, "exp", &err));
    ddb_table_desc *td;
    SU_OK(ddb_describe_table(db, T, a, &td, &err));
    assert_string_equal(td->def.ttl_attribute, "exp");

    atomic_store(&clk.ms, (now + 61) * 1000); /* "soon" has expired */
    ddb_item *got;
    assert_int_equal(ddb_get_item(db, T, key(a, "t", "soon"), NULL, a, &got, NULL, &err), DDB_ENOTFOUND);
    SU_OK(ddb_get_item(db, T, key(a, "t", "later"), NULL, a, &got, NULL, &err));
    SU_OK(ddb_get_item(db, T, key(a, "t", "text"), NULL, a, &got, NULL, &err));
    SU_OK(ddb_get_item(db, T, key(a, "t", "ancient"), NULL, a, &got, NULL, &err));
    ddb_query_params q = {.table = T, .pk = ddb_v_str(a, "t")};
    ddb_page pg;
    SU_OK(ddb_query(db, &q, a, &pg, &err));
    assert_int_equal(pg.count, 4);
    q = (ddb_query_params){.table = T, .index = "GSI", .pk = ddb_v_str(a, "g")};
    SU_OK(ddb_query(db, &q, a, &pg, &err));
    assert_int_equal(pg.count, 4);
    ddb_scan_params s = {.table = T};
    SU_OK(ddb_scan(db, &s, a, &pg, &err));
    assert_int_equal(pg.count, 4);
    ddb_batch_get_op bg[2] = {{.table = T, .key = key(a, "t", "soon")}, {.table = T, .key = key(a, "t", "never")}};
    ddb_item *out[2];
    SU_OK(ddb_batch_get(db, bg, 2, a, out, DDB_CAPACITY_NONE, NULL, &err));
    assert_null(out[0]);
    assert_non_null(out[1]);
    ddb_tx_get tg[2] = {{.table = T, .key = key(a, "t", "soon")}, {.table = T, .key = key(a, "t", "later")}};
    SU_OK(ddb_transact_get(db, tg, 2, a, out, DDB_CAPACITY_NONE, NULL, &err));
    assert_null(out[0]);
    assert_non_null(out[1]);

    /* the sweep as of a later time: "later" too */
    uint64_t deleted = 0;
    SU_OK(ddb_ttl_sweep(db, T, now + 3601, &deleted, &err));
    assert_int_equal(deleted, 2);
    ddb_check_report cr;
    SU_OK(ddb_check_table(db, T, &cr, &err));
    assert_int_equal(cr.items, 3);
    assert_int_equal(cr.index_entries, 3);
    ddb_stream_record r[16];
    size_t n = su_read_all(db, T, a, r, 16);
    assert_int_equal(n, 7);
    for (int i = 5; i < 7; i++) {
        assert_int_equal(r[i].event, DDB_STREAM_REMOVE);
        assert_true(r[i].by_ttl);
        assert_non_null(r[i].old_image);
        assert_null(r[i].new_image);
    }
    assert_false(r[4].by_ttl);
    assert_string_equal(su_s(r[5].keys, "SK"), "later"); /* table order: by key */
    assert_string_equal(su_s(r[6].keys, "SK"), "soon");
    SU_OK(ddb_stream_check(db, T, &cr, &err));
    /* a user's delete is not the service's */
    SU_OK(ddb_delete_item(db, T, key(a, "t", "never"), NULL, NULL, NULL, &err));
    n = su_read_all(db, T, a, r, 16);
    assert_false(r[n - 1].by_ttl);
    /* TTL off: nothing expires */
    SU_OK(ddb_update_time_to_live(db, T, NULL, &err));
    SU_OK(ddb_ttl_sweep(db, NULL, now + 1000000, &deleted, &err));
    assert_int_equal(deleted, 0);
    ddb_arena_free(a);
    ddb_close(db);
    su_rmdir(dir);
}

/* The handle's sweep thread deletes expired items on its own. */
static void test_ttl_thread(void **state)
{
    (void)state;
    ddb_options o = {.ttl_sweep_ms = 5};
    atomic_store(&clk.ms, T0);
    ddb *db = su_open("ttlthread", &o, &clk, dir, sizeof dir);
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    su_table(db, T, DDB_STREAM_KEYS_ONLY, "exp");
    char exp[32];
    snprintf(exp, sizeof exp, "%lld", (long long)(T0 / 1000 + 10));
    SU_OK(ddb_put_item(db, T, su_item(a, "PK", 's', "x", "SK", 's', "1", "exp", 'n', exp, NULL), NULL, NULL, NULL,
                       &err));
    atomic_store(&clk.ms, T0 + 11000);
    ddb_stream_record r[4];
    size_t n = 0;
    for (int i = 0; i < 1000 && n < 2; i++) {
        struct timespec ts = {0, 5000000};
        nanosleep(&ts, NULL);
        ddb_arena_reset(a);
        n = su_read_all(db, T, a, r, 4);
    }
    assert_int_equal(n, 2);
    assert_int_equal(r[1].event, DDB_STREAM_REMOVE);
    assert_true(r[1].by_ttl);
    ddb_arena_free(a);
    ddb_close(db);
    su_rmdir(dir);
}

/* ddb_stream_check finds a damaged record and wrong counters. */
static void test_check_damage(void **state)
{
    (void)state;
    ddb *db = open_fresh("damage");
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    su_table(db, T, DDB_STREAM_NEW_IMAGE, NULL);
    put(db, a, "c", "1", "x");
    put(db, a, "c", "2", "y");
    ddb_close(db);
    /* flip record 2's event into an unknown one, through LMDB */
    MDB_env *env;
    MDB_txn *txn;
    MDB_dbi dbi;
    assert_int_equal(mdb_env_create(&env), 0);
    mdb_env_set_maxdbs(env, 1024);
    mdb_env_set_mapsize(env, (size_t)64 << 30);
    assert_int_equal(mdb_env_open(env, dir, 0, 0644), 0);
    assert_int_equal(mdb_txn_begin(env, NULL, 0, &txn), 0);
    assert_int_equal(mdb_dbi_open(txn, "streams", 0, &dbi), 0);
    uint8_t k[32];
    memcpy(k, T, strlen(T) + 1);
    memset(k + strlen(T) + 1, 0, 8);
    k[strlen(T) + 8] = 2;
    MDB_val kv = {strlen(T) + 9, k}, v;
    assert_int_equal(mdb_get(txn, dbi, &kv, &v), 0);
    uint8_t *copy = malloc(v.mv_size);
    memcpy(copy, v.mv_data, v.mv_size);
    copy[1] = 9;
    MDB_val nv = {v.mv_size, copy};
    assert_int_equal(mdb_put(txn, dbi, &kv, &nv, 0), 0);
    assert_int_equal(mdb_txn_commit(txn), 0);
    mdb_env_close(env);
    free(copy);
    db = su_reopen(dir, NULL, &clk);
    ddb_check_report cr;
    assert_int_equal(ddb_stream_check(db, T, &cr, &err), DDB_ECORRUPT);
    assert_int_equal(cr.problems, 1);
    assert_string_equal(cr.first_problem, "stream of table " T ", record 2: unknown event 9");
    ddb_arena_free(a);
    ddb_close(db);
    su_rmdir(dir);
}

/* The table report: partitions, collections, hot keys, index sizes, and
 * consumed capacity that outlives the handle. */
static void test_report(void **state)
{
    (void)state;
    ddb *db = open_fresh("report");
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    su_table(db, T, DDB_STREAM_NEW_AND_OLD_IMAGES, NULL);
    for (int i = 0; i < 6; i++) {
        char sk[8];
        snprintf(sk, sizeof sk, "%d", i);
        SU_OK(ddb_put_item(db, T, su_item(a, "PK", 's', "big", "SK", 's', sk, "GK", 's', "g", NULL), NULL, NULL, NULL,
                           &err));
    }
    put(db, a, "small", "1", "x");
    put(db, a, "small", "1", "y");
    put(db, a, "small", "1", "z");
    ddb_item *got;
    SU_OK(ddb_get_item(db, T, key(a, "small", "1"), &(ddb_get_opts){.consistent = true}, a, &got, NULL, &err));
    ddb_close(db);
    db = su_reopen(dir, NULL, &clk);
    ddb_table_report *r;
    SU_OK(ddb_table_report_build(db, T, 5, a, &r, &err));
    assert_string_equal(r->table, T);
    assert_int_equal(r->items, 7);
    assert_int_equal(r->n_parts, 4);
    assert_int_equal(r->stream_records, 9);
    assert_int_equal(r->n_collections, 2);
    assert_string_equal(r->collections[0].pk->u.s, "big");
    assert_int_equal(r->collections[0].items, 6);
    assert_string_equal(r->collections[1].pk->u.s, "small");
    assert_int_equal(r->n_hot, 2);
    assert_string_equal(r->hot[0].pk->u.s, "big");
    assert_int_equal(r->hot[0].writes, 6);
    assert_int_equal(r->hot[1].writes, 3);
    assert_int_equal(r->n_indexes, 1);
    assert_int_equal(r->indexes[0].items, 6);
    double rcu = 0, wcu = 0, swcu = 0;
    uint64_t items = 0;
    for (size_t i = 0; i < r->n_parts; i++) {
        rcu += r->parts[i].read_units;
        wcu += r->parts[i].write_units;
        swcu += r->parts[i].stream_write_units;
        items += r->parts[i].item_count;
    }
    assert_int_equal(items, 7);
    assert_true(rcu == 1.0);        /* the consistent GetItem, recorded when the handle closed */
    assert_true(wcu == 9.0);        /* 9 writes of 1 WCU */
    assert_true(swcu == 9.0);
    assert_int_equal(r->parts[r->collections[1].partition].item_count >= 1, 1);
    ddb_arena_free(a);
    ddb_close(db);
    su_rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_single_writes),
        cmocka_unit_test(test_views),
        cmocka_unit_test(test_batch_transaction_rollback),
        cmocka_unit_test(test_concurrent_group_commit),
        cmocka_unit_test(test_iterators),
        cmocka_unit_test(test_retention),
        cmocka_unit_test(test_delete_table),
        cmocka_unit_test(test_ttl),
        cmocka_unit_test(test_ttl_thread),
        cmocka_unit_test(test_check_damage),
        cmocka_unit_test(test_report),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
