/* End to end: write sharding (DDB_WRITE_SHARDS) through the module ddbgen
 * generated from wshard/wshard.h, on the embedded engine or, with
 * DDB_TEST_URI, a remote endpoint (dynalite).
 *
 * The pattern is AWS's "Using write sharding to distribute workloads
 * evenly" (DynamoDB Developer Guide, best practices for partition keys):
 * a suffix on the partition key value spreads one logical partition over
 * several physical ones; a suffix calculated from the item's key lets a
 * read by key go to its one shard, and a query of the logical partition
 * reads every suffix and merges the results. */
#include "wshard_ddb.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DAY "2024-03-04"
#define OTHER_DAY "2024-03-05"
#define N_CHECKINS 120
#define N_SHIFTS 9

static char dir[512];

static ddb *open_db(void)
{
    char uri[600];
    ddb *db;
    ddb_error err;
    const char *remote = getenv("DDB_TEST_URI");
    if (remote && *remote) {
        snprintf(uri, sizeof uri, "%s", remote);
    } else {
        const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
        snprintf(dir, sizeof dir, "%s/ddb-e2e-wshard-%d", base, (int)getpid());
        char cmd[600];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        assert_int_equal(system(cmd), 0);
        snprintf(uri, sizeof uri, "file:%s", dir);
    }
    if (ddb_open(uri, NULL, &db, &err))
        fail_msg("open: %s", err.message);
    int rc = ddb_delete_table(db, "Desk", &err);
    assert_true(rc == DDB_OK || rc == DDB_ENOTABLE);
    if (desk_open(db, &err))
        fail_msg("desk_open: %s", err.message);
    return db;
}

static void close_db(ddb *db)
{
    ddb_close(db);
    if (dir[0]) {
        char cmd[600];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        assert_int_equal(system(cmd), 0);
    }
}

static struct check_in check_in_no(int i, const char *day)
{
    struct check_in c = {.visit_no = (uint16_t)(1 + i % 3)};
    snprintf(c.date, sizeof c.date, "%s", day);
    snprintf(c.patient, sizeof c.patient, "p-%04d", i / 3);
    snprintf(c.kind, sizeof c.kind, "%s", i % 2 ? "walk-in" : "booked");
    snprintf(c.note, sizeof c.note, "n%d", i);
    return c;
}

static void fill(ddb *db)
{
    ddb_error err;
    for (int i = 0; i < N_CHECKINS; i++) {
        struct check_in c = check_in_no(i, DAY), o = check_in_no(i, OTHER_DAY);
        if (check_in_put(db, &c, NULL, NULL, &err) || (i % 4 == 0 && check_in_put(db, &o, NULL, NULL, &err)))
            fail_msg("put: %s", err.message);
    }
    for (int i = 0; i < N_SHIFTS; i++) {
        struct shift s = {.date = DAY};
        snprintf(s.doctor, sizeof s.doctor, "d-%02d", i);
        if (shift_put(db, &s, NULL, NULL, &err))
            fail_msg("put shift: %s", err.message);
    }
}

/* Items of one physical partition, read with the raw API. */
static size_t raw_count(ddb *db, const char *index, const char *pk_attr, const char *pk, ddb_arena *a)
{
    (void)pk_attr;
    ddb_error err;
    ddb_query_params q = {.table = "Desk", .index = index, .pk = ddb_v_str(a, pk)};
    size_t n = 0;
    ddb_page pg;
    do {
        if (ddb_query(db, &q, a, &pg, &err))
            fail_msg("raw query %s: %s", pk, err.message);
        n += pg.count;
        q.start_key = pg.last_key;
    } while (pg.last_key);
    return n;
}

/* Each item lands in one shard, several shards are used, none is the
 * logical partition itself. */
static void items_are_spread(void **state)
{
    (void)state;
    ddb *db = open_db();
    ddb_arena *a = ddb_arena_new();
    fill(db);
    size_t total = 0, used = 0;
    char pk[64];
    for (int s = 0; s < 4; s++) {
        snprintf(pk, sizeof pk, "DATE#%s.%d", DAY, s);
        size_t n = raw_count(db, NULL, "PK", pk, a);
        total += n;
        used += n > 0;
    }
    assert_int_equal(total, N_CHECKINS + N_SHIFTS);
    assert_true(used >= 3);
    assert_int_equal(raw_count(db, NULL, "PK", "DATE#" DAY, a), 0);
    size_t by_kind = 0, kinds_used = 0;
    for (int s = 0; s < 3; s++) {
        snprintf(pk, sizeof pk, "KIND#walk-in.%d", s);
        size_t n = raw_count(db, "ByKind", "KindPK", pk, a);
        by_kind += n;
        kinds_used += n > 0;
    }
    assert_int_equal(by_kind, N_CHECKINS / 2);
    assert_true(kinds_used >= 2);
    ddb_arena_free(a);
    close_db(db);
}

/* get, update and delete by the full key find the item's shard. */
static void point_reads_find_their_shard(void **state)
{
    (void)state;
    ddb *db = open_db();
    ddb_arena *a = ddb_arena_new();
    ddb_error err;
    fill(db);
    for (int i = 0; i < N_CHECKINS; i++) {
        struct check_in want = check_in_no(i, DAY), got;
        if (check_in_get(db, want.date, want.patient, want.visit_no, NULL, a, &got, &err))
            fail_msg("get %d: %s", i, err.message);
        assert_string_equal(got.note, want.note);
    }
    struct check_in c = check_in_no(7, DAY), got;
    snprintf(c.note, sizeof c.note, "changed");
    assert_int_equal(check_in_update_fields(db, &c, check_in_mask(CHECK_IN_F_NOTE), NULL, NULL, &err), DDB_OK);
    assert_int_equal(check_in_get(db, c.date, c.patient, c.visit_no, NULL, a, &got, &err), DDB_OK);
    assert_string_equal(got.note, "changed");
    assert_int_equal(check_in_delete(db, c.date, c.patient, c.visit_no, NULL, NULL, &err), DDB_OK);
    assert_int_equal(check_in_get(db, c.date, c.patient, c.visit_no, NULL, a, &got, &err), DDB_ENOTFOUND);
    ddb_arena_free(a);
    close_db(db);
}

/* Batch writes and gets, and a transaction, address each item's shard.
 * (dynalite has no TransactWriteItems: the transaction runs embedded only.) */
static void batches_and_transactions(void **state)
{
    (void)state;
    ddb *db = open_db();
    ddb_arena *a = ddb_arena_new();
    ddb_error err;
    struct check_in in[30], keys[31], out[31];
    bool found[31];
    for (int i = 0; i < 30; i++)
        in[i] = keys[i] = check_in_no(i, DAY);
    keys[30] = check_in_no(99, DAY); /* never written */
    if (check_in_batch_put(db, in, 30, NULL, NULL, &err))
        fail_msg("batch put: %s", err.message);
    if (check_in_batch_get(db, keys, 31, NULL, a, out, NULL, found, &err))
        fail_msg("batch get: %s", err.message);
    for (int i = 0; i < 30; i++) {
        assert_true(found[i]);
        assert_string_equal(out[i].note, in[i].note);
    }
    assert_false(found[30]);
    const char *uri = getenv("DDB_TEST_URI");
    if (!uri || !*uri) {
        ddb_ent_tx *tx = ddb_ent_tx_new(db, a, &err);
        assert_non_null(tx);
        struct check_in t1 = check_in_no(200, DAY), t2 = check_in_no(201, DAY);
        assert_int_equal(check_in_tx_put(tx, &t1, NULL, &err), DDB_OK);
        assert_int_equal(check_in_tx_put(tx, &t2, NULL, &err), DDB_OK);
        assert_int_equal(check_in_tx_delete(tx, in[0].date, in[0].patient, in[0].visit_no, NULL, &err), DDB_OK);
        if (ddb_ent_tx_commit(tx, NULL, NULL, &err))
            fail_msg("commit: %s", err.message);
        struct check_in got;
        assert_int_equal(check_in_get(db, t1.date, t1.patient, t1.visit_no, NULL, a, &got, &err), DDB_OK);
        assert_int_equal(check_in_get(db, t2.date, t2.patient, t2.visit_no, NULL, a, &got, &err), DDB_OK);
        assert_int_equal(check_in_get(db, in[0].date, in[0].patient, in[0].visit_no, NULL, a, &got, &err),
                         DDB_ENOTFOUND);
    }
    ddb_arena_free(a);
    close_db(db);
}

/* Reads every page of a query (pattern table of day `part`, or ByKind of
 * kind `part`); checks the order and returns the count. */
static size_t read_all(ddb *db, const char *part, check_in_table_sk tsk, ddb_ent_read_opts o, ddb_arena *a,
                       bool by_kind, size_t *pages)
{
    ddb_error err;
    char prev[80] = "";
    size_t n = 0;
    *pages = 0;
    do {
        check_in_page pg;
        int rc = by_kind ? check_in_ByKind(db, part, check_in_ByKind_all(), &o, a, &pg, &err)
                         : check_in_table(db, part, tsk, &o, a, &pg, &err);
        if (rc)
            fail_msg("query: %s", err.message);
        assert_true(!o.page_size || pg.count <= o.page_size);
        for (size_t i = 0; i < pg.count; i++) {
            char k[80];
            if (by_kind)
                snprintf(k, sizeof k, "%s#%s#%04u", pg.items[i].date, pg.items[i].patient, pg.items[i].visit_no);
            else
                snprintf(k, sizeof k, "%s#%04u", pg.items[i].patient, pg.items[i].visit_no);
            if (n)
                assert_true(o.backward ? strcmp(k, prev) < 0 : strcmp(k, prev) > 0);
            snprintf(prev, sizeof prev, "%s", k);
            n++;
        }
        o.cursor = pg.cursor;
        (*pages)++;
    } while (o.cursor);
    return n;
}

/* The typed query of a sharded key reads all shards, in sort-key order,
 * page by page with one cursor, forward and backward, with sort-key
 * conditions. */
static void query_gathers_every_shard(void **state)
{
    (void)state;
    ddb *db = open_db();
    ddb_arena *a = ddb_arena_new();
    fill(db);
    size_t pages;
    ddb_ent_read_opts q = {0};
    assert_int_equal(read_all(db, DAY, check_in_table_all(), q, a, false, &pages), N_CHECKINS);
    q.page_size = 7;
    assert_int_equal(read_all(db, DAY, check_in_table_all(), q, a, false, &pages), N_CHECKINS);
    assert_true(pages >= N_CHECKINS / 7);
    q.backward = true;
    assert_int_equal(read_all(db, DAY, check_in_table_all(), q, a, false, &pages), N_CHECKINS);
    /* one patient's visits: the first level of the sort key equal */
    assert_int_equal(read_all(db, DAY, check_in_table_patient(DDB_ENT_SK_EQ, "p-0005"),
                              (ddb_ent_read_opts){.page_size = 2}, a, false, &pages),
                     3);
    /* a range: patients from p-0010 on */
    assert_int_equal(read_all(db, DAY, check_in_table_patient(DDB_ENT_SK_GE, "p-0010"),
                              (ddb_ent_read_opts){.page_size = 5}, a, false, &pages),
                     N_CHECKINS - 30);
    /* the other day has its own partitions */
    assert_int_equal(read_all(db, OTHER_DAY, check_in_table_all(), (ddb_ent_read_opts){.page_size = 4}, a, false,
                              &pages),
                     N_CHECKINS / 4);
    /* the GSI sharded at random */
    assert_int_equal(read_all(db, "walk-in", check_in_table_all(), (ddb_ent_read_opts){.page_size = 6}, a, true,
                              &pages),
                     N_CHECKINS / 2);
    ddb_arena_free(a);
    close_db(db);
}

/* A collection of a sharded partition: every member of every shard, in
 * sort-key order. */
static void collection_gathers_every_shard(void **state)
{
    (void)state;
    ddb *db = open_db();
    ddb_arena *a = ddb_arena_new();
    ddb_error err;
    fill(db);
    desk_day_result r;
    if (desk_query_day(db, DAY, NULL, NULL, a, &r, &err))
        fail_msg("collection: %s", err.message);
    assert_int_equal(r.check_in_count, N_CHECKINS);
    assert_int_equal(r.shift_count, N_SHIFTS);
    for (size_t i = 1; i < r.shift_count; i++)
        assert_true(strcmp(r.shift[i - 1].doctor, r.shift[i].doctor) < 0);
    for (size_t i = 1; i < r.check_in_count; i++) {
        int c = strcmp(r.check_in[i - 1].patient, r.check_in[i].patient);
        assert_true(c < 0 || (c == 0 && r.check_in[i - 1].visit_no < r.check_in[i].visit_no));
    }
    ddb_arena_free(a);
    close_db(db);
}

/* The typed read API (ddb_ent_query_pattern): a count, a filter and a
 * field mask over every shard, page by page. */
static void pattern_count_filter_fields(void **state)
{
    (void)state;
    ddb *db = open_db();
    ddb_arena *a = ddb_arena_new();
    ddb_error err;
    fill(db);
    struct check_in day = {.date = DAY};
    ddb_ent_key_cond kc = {.key = 0, .obj = &day, .op = DDB_ENT_SK_ALL};
    /* count: the pages' counts add up to every check-in of the day */
    ddb_ent_read_opts ro = {.page_size = 9, .count_only = true};
    size_t counted = 0;
    ddb_ent_result res;
    do {
        if (ddb_ent_query_pattern(db, &check_in_entity, &kc, &ro, a, &res, &err))
            fail_msg("count: %s", err.message);
        assert_null(res.items);
        counted += res.count;
        ro.cursor = res.cursor;
    } while (ro.cursor);
    assert_int_equal(counted, N_CHECKINS);
    /* filter (DynamoDB FilterExpression, applied per shard after the key
     * condition and the Limit: pages may be short, the cursor goes on) */
    ddb_item *names = ddb_item_new(a), *values = ddb_item_new(a);
    assert_int_equal(ddb_item_set_s(names, "#k", "kind"), 0);
    assert_int_equal(ddb_item_set_s(values, ":v", "walk-in"), 0);
    ddb_ent_read_opts rf = {.page_size = 7, .filter = "#k = :v", .filter_names = names, .filter_values = values};
    size_t n = 0;
    char prev[40] = "";
    do {
        if (ddb_ent_query_pattern(db, &check_in_entity, &kc, &rf, a, &res, &err))
            fail_msg("filter: %s", err.message);
        assert_true(res.count <= 7);
        const struct check_in *it = res.items;
        for (size_t i = 0; i < res.count; i++, n++) {
            char k[40];
            snprintf(k, sizeof k, "%s#%04u", it[i].patient, it[i].visit_no);
            assert_string_equal(it[i].kind, "walk-in");
            assert_true(strcmp(prev, k) < 0);
            snprintf(prev, sizeof prev, "%s", k);
        }
        rf.cursor = res.cursor;
    } while (rf.cursor);
    assert_int_equal(n, N_CHECKINS / 2);
    /* a field mask: only the note is read (keys always are) */
    ddb_ent_mask note = {{0}};
    ddb_ent_mask_set(&note, 4); /* check_in.note */
    ddb_ent_read_opts rm = {.page_size = 50, .fields = &note};
    n = 0;
    do {
        if (ddb_ent_query_pattern(db, &check_in_entity, &kc, &rm, a, &res, &err))
            fail_msg("fields: %s", err.message);
        const struct check_in *it = res.items;
        for (size_t i = 0; i < res.count; i++, n++) {
            assert_true(ddb_ent_mask_has(&res.masks[i], 4));
            assert_false(ddb_ent_mask_has(&res.masks[i], 3)); /* kind was not read */
            assert_string_equal(it[i].kind, "");
            assert_true(it[i].note[0] == 'n');
        }
        rm.cursor = res.cursor;
    } while (rm.cursor);
    assert_int_equal(n, N_CHECKINS);
    ddb_arena_free(a);
    close_db(db);
}

/* Collection pages (ddb_ent_collection_page) of a sharded partition: every
 * member of every shard, page by page, each type in sort-key order. */
typedef struct day_page {
    struct check_in *check_in;
    size_t check_in_count;
    struct shift *shift;
    size_t shift_count;
} day_page;

static void collection_pages(void **state)
{
    (void)state;
    ddb *db = open_db();
    ddb_arena *a = ddb_arena_new();
    ddb_error err;
    fill(db);
    static const ddb_collection_member members[] = {
        {.entity = &check_in_entity, .key = 0, .items_offset = offsetof(day_page, check_in),
         .count_offset = offsetof(day_page, check_in_count)},
        {.entity = &shift_entity, .key = 0, .items_offset = offsetof(day_page, shift),
         .count_offset = offsetof(day_page, shift_count)},
    };
    static const ddb_collection_desc day = {.name = "day", .n_members = 2, .members = members};
    struct check_in key = {.date = DAY};
    ddb_ent_read_opts ro = {.page_size = 10};
    size_t check_ins = 0, shifts = 0, pages = 0;
    char prev[40] = "";
    ddb_ent_page_info info;
    do {
        day_page pg;
        if (ddb_ent_collection_page(db, &day, 0, &key, NULL, &ro, a, &pg, &info, &err))
            fail_msg("collection page: %s", err.message);
        assert_true(info.count <= 10);
        for (size_t i = 0; i < pg.check_in_count; i++) {
            char k[40];
            snprintf(k, sizeof k, "%s#%04u", pg.check_in[i].patient, pg.check_in[i].visit_no);
            assert_true(strcmp(prev, k) < 0);
            snprintf(prev, sizeof prev, "%s", k);
        }
        check_ins += pg.check_in_count;
        shifts += pg.shift_count;
        ro.cursor = info.cursor;
        pages++;
    } while (ro.cursor);
    assert_int_equal(check_ins, N_CHECKINS);
    assert_int_equal(shifts, N_SHIFTS);
    assert_true(pages >= (N_CHECKINS + N_SHIFTS) / 10);
    ddb_arena_free(a);
    close_db(db);
}

/* A cursor that is not this query's is refused, not misread. */
static void foreign_cursor_is_refused(void **state)
{
    (void)state;
    ddb *db = open_db();
    ddb_arena *a = ddb_arena_new();
    ddb_error err;
    fill(db);
    check_in_page pg;
    const char *bad[] = {"ws3:~~", "ws4:~~", "ws4:~~~~", "AAAA", "ws4:!~!~*~"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ddb_ent_read_opts q = {.cursor = bad[i]};
        assert_int_equal(check_in_table(db, DAY, check_in_table_all(), &q, a, &pg, &err), DDB_EVALIDATION);
    }
    /* every shard done: an empty, final page */
    ddb_ent_read_opts q = {.cursor = "ws4:!~!~!~!"};
    assert_int_equal(check_in_table(db, DAY, check_in_table_all(), &q, a, &pg, &err), DDB_OK);
    assert_int_equal(pg.count, 0);
    assert_null(pg.cursor);
    ddb_arena_free(a);
    close_db(db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(items_are_spread),
        cmocka_unit_test(point_reads_find_their_shard),
        cmocka_unit_test(batches_and_transactions),
        cmocka_unit_test(query_gathers_every_shard),
        cmocka_unit_test(collection_gathers_every_shard),
        cmocka_unit_test(pattern_count_filter_fields),
        cmocka_unit_test(collection_pages),
        cmocka_unit_test(foreign_cursor_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
