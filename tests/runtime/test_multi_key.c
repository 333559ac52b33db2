/* Global secondary indexes with multi-attribute keys on the embedded
 * engine, through the C API: definitions (CreateTable, UpdateTable,
 * DescribeTable, the catalog read back by a fresh handle), writes (every
 * key attribute checked, sparse when one is missing, entries moved by
 * updates and removed by deletes and transactions), Query (conditions,
 * order of mixed-type sort attributes in both directions, pages carrying
 * every key attribute) and Scan, and `ddb check`.
 *
 * What DynamoDB documents, and these tests hold to:
 *  - developer guide, "Multi-attribute keys pattern"
 *    (docs.aws.amazon.com/amazondynamodb/latest/developerguide/
 *    GSI.DesignPattern.MultiAttributeKeys.html): a GSI's partition key and
 *    sort key are each made of up to four attributes; the partition-key
 *    attributes are hashed together; items are ordered by the sort-key
 *    attributes in their declared order, each by its own type (S, N or B);
 *    a Query names every partition-key attribute with equality and the
 *    sort-key attributes left to right, equality on each but the last one
 *    named, which may have < <= > >= BETWEEN or begins_with; an item that
 *    lacks any key attribute is not in the index.
 *  - developer guide, GSI.html "Multi-attribute key schema" and the SDKs'
 *    CreateGlobalSecondaryIndexAction ("Global secondary index supports up
 *    to 4 partition and up to 4 sort keys"); a table's and an LSI's
 *    KeySchema stay at most 2 elements (API_CreateTable.html,
 *    API_LocalSecondaryIndex.html: "Maximum number of 2 items").
 *  - type mismatches of index keys, empty key strings and the classic
 *    Query messages keep DynamoDB's wording (keys.c, expr_key.c).
 * The documentation gives no wording for a skipped sort attribute, a range
 * condition before the last one named or more than four attributes a side:
 * those keep DynamoDB's classic prefix ("Query key condition not
 * supported", "One or more parameter values were invalid") with the
 * attribute named after it. */
#include "testutil.h"

#include "core/key_parts.h"

#include <ctype.h>
#include <ddb/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char dir[512];

/* DDB_TEST_URI (tests/serve's with_serve.py: `ddb serve`) runs these tests
 * through the remote backend; unset, on a fresh embedded database. */
static const char *remote_uri(void)
{
    const char *u = getenv("DDB_TEST_URI");
    return u && *u ? u : NULL;
}

/* A database without the tables these tests create. */
static ddb *open_db(const char *name)
{
    if (!remote_uri())
        return tu_open(name, NULL, dir, sizeof dir);
    ddb *db;
    ddb_error err = {0};
    TU_OK(ddb_open(remote_uri(), NULL, &db, &err));
    const char *tables[] = {"Matches", "Tab1", "Tab2"};
    for (size_t i = 0; i < 3; i++)
        ddb_delete_table(db, tables[i], &err);
    return db;
}

static void close_db(ddb *db)
{
    ddb_close(db);
    if (!remote_uri())
        tu_rmdir(dir);
}

/* `ddb check` of the table finds nothing wrong (the embedded engine's;
 * the remote backend has no check). */
static void check_clean(ddb *db, uint64_t entries)
{
    if (remote_uri())
        return;
    ddb_check_report rep;
    ddb_error err = {0};
    TU_OK(ddb_check_table(db, "Matches", &rep, &err));
    assert_int_equal(rep.problems, 0);
    if (entries)
        assert_int_equal(rep.index_entries, entries);
}

static const ddb_key_part rgn_more[] = {{"rgn", DDB_TS}};
static const ddb_key_part sk_more[] = {{"bracket", DDB_TS}, {"tag", DDB_TB}};

/* Matches: partition (tid, rgn), sort (round N, bracket S, tag B). */
static ddb_index_def by_round(void)
{
    return (ddb_index_def){.name = "ByRound",
                           .key = {.pk = "tid",
                                   .pk_type = DDB_TS,
                                   .sk = "round",
                                   .sk_type = DDB_TN,
                                   .pk_more = rgn_more,
                                   .n_pk_more = 1,
                                   .sk_more = sk_more,
                                   .n_sk_more = 2},
                           .projection = DDB_PROJ_ALL};
}

static ddb_item *json_item(ddb_arena *a, const char *json)
{
    ddb_item *it;
    ddb_error err = {0};
    if (ddb_json_parse_item(json, strlen(json), a, &it, &err))
        fail_msg("%s: %s", json, err.message);
    return it;
}

/* The values of all that text uses (DynamoDB refuses unused ones). */
static ddb_item *values_for(ddb_arena *a, const ddb_item *all, const char *text)
{
    ddb_item *out = ddb_item_new(a);
    const ddb_value *m = ddb_item_map(all);
    for (uint32_t i = 0; i < m->len; i++) {
        const char *name = m->u.m[i].name, *at = text;
        size_t n = strlen(name);
        while ((at = strstr(at, name)) && (isalnum((unsigned char)at[n]) || at[n] == '_'))
            at += n;
        if (at)
            TU_OK(ddb_item_set(out, name, m->u.m[i].value));
    }
    return out;
}

static ddb_expr *prep(const char *text)
{
    ddb_expr *e;
    ddb_error err = {0};
    if (ddb_expr_prepare(DDB_EXPR_KEY_CONDITION, text, NULL, &e, &err))
        fail_msg("%s: %s", text, err.message);
    return e;
}

static void put(ddb *db, ddb_arena *a, const char *json)
{
    ddb_error err = {0};
    if (ddb_put_item(db, "Matches", json_item(a, json), NULL, NULL, NULL, &err))
        fail_msg("put %s: %s", json, err.message);
}

static void expect_fail(int rc, const ddb_error *err, int want, const char *substr)
{
    if (rc != want || !strstr(err->message, substr))
        fail_msg("want %d \"%s\", got %d \"%s\"", want, substr, rc, err->message);
}

static ddb *open_matches(const char *name)
{
    ddb *db = open_db(name);
    ddb_error err = {0};
    ddb_index_def ix = by_round();
    ddb_table_def d = {.name = "Matches", .key = {.pk = "id", .pk_type = DDB_TS}, .indexes = &ix, .n_indexes = 1};
    TU_OK(ddb_create_table(db, &d, &err));
    return db;
}

/* Every page of a query of ByRound: the "id" of each item, in order, joined
 * by spaces into out; the count of pages. */
static size_t query_ids(ddb *db, const char *cond, const ddb_item *values, bool backward, uint32_t limit,
                        char *out, size_t cap)
{
    ddb_arena *a = ddb_arena_new();
    ddb_expr *kc = prep(cond);
    ddb_query_params q = {.table = "Matches", .index = "ByRound", .key_condition = kc,
                          .values = values_for(a, values, cond),
                          .backward = backward, .limit = limit};
    ddb_page pg;
    ddb_error err = {0};
    size_t pages = 0, o = 0;
    out[0] = '\0';
    do {
        if (ddb_query(db, &q, a, &pg, &err))
            fail_msg("%s: %s", cond, err.message);
        pages++;
        for (size_t i = 0; i < pg.count; i++) {
            const ddb_value *id = ddb_item_get(pg.items[i], "id");
            o += (size_t)snprintf(out + o, cap - o, "%s%s", o ? " " : "", id->u.s);
        }
        if (pg.last_key) {
            /* LastEvaluatedKey: the table's key and every index key attribute */
            const char *want[] = {"id", "tid", "rgn", "round", "bracket", "tag"};
            assert_int_equal(ddb_item_count(pg.last_key), 6);
            for (size_t i = 0; i < 6; i++)
                assert_non_null(ddb_item_get(pg.last_key, want[i]));
        }
        q.start_key = pg.last_key;
    } while (pg.last_key && pages < 100);
    ddb_expr_free(kc);
    ddb_arena_free(a);
    return pages;
}

/* The ordering fixture: one partition (t1, eu); sort by round as a number
 * (2 before 10), then bracket as bytes with prefix-sharing values ("a" <
 * "a\0" < "ab"), then tag as bytes ({0x01} < {0x01,0x00} < {0xff}). */
static void put_fixture(ddb *db, ddb_arena *a)
{
    put(db, a, "{\"id\":{\"S\":\"m7\"},\"tid\":{\"S\":\"t1\"},\"rgn\":{\"S\":\"eu\"},\"round\":{\"N\":\"10\"},"
               "\"bracket\":{\"S\":\"a\"},\"tag\":{\"B\":\"AQ==\"}}");
    put(db, a, "{\"id\":{\"S\":\"m1\"},\"tid\":{\"S\":\"t1\"},\"rgn\":{\"S\":\"eu\"},\"round\":{\"N\":\"2\"},"
               "\"bracket\":{\"S\":\"ab\"},\"tag\":{\"B\":\"AQ==\"}}");
    put(db, a, "{\"id\":{\"S\":\"m2\"},\"tid\":{\"S\":\"t1\"},\"rgn\":{\"S\":\"eu\"},\"round\":{\"N\":\"2\"},"
               "\"bracket\":{\"S\":\"a\\u0000\"},\"tag\":{\"B\":\"AQ==\"}}");
    put(db, a, "{\"id\":{\"S\":\"m3\"},\"tid\":{\"S\":\"t1\"},\"rgn\":{\"S\":\"eu\"},\"round\":{\"N\":\"2\"},"
               "\"bracket\":{\"S\":\"a\"},\"tag\":{\"B\":\"/w==\"}}");
    put(db, a, "{\"id\":{\"S\":\"m4\"},\"tid\":{\"S\":\"t1\"},\"rgn\":{\"S\":\"eu\"},\"round\":{\"N\":\"2\"},"
               "\"bracket\":{\"S\":\"a\"},\"tag\":{\"B\":\"AQA=\"}}");
    put(db, a, "{\"id\":{\"S\":\"m5\"},\"tid\":{\"S\":\"t1\"},\"rgn\":{\"S\":\"eu\"},\"round\":{\"N\":\"2\"},"
               "\"bracket\":{\"S\":\"a\"},\"tag\":{\"B\":\"AQ==\"}}");
    put(db, a, "{\"id\":{\"S\":\"m6\"},\"tid\":{\"S\":\"t1\"},\"rgn\":{\"S\":\"eu\"},\"round\":{\"N\":\"-3.5\"},"
               "\"bracket\":{\"S\":\"z\"},\"tag\":{\"B\":\"AQ==\"}}");
    /* another partition sharing one of the two values, and a sparse item */
    put(db, a, "{\"id\":{\"S\":\"o1\"},\"tid\":{\"S\":\"t1\"},\"rgn\":{\"S\":\"us\"},\"round\":{\"N\":\"2\"},"
               "\"bracket\":{\"S\":\"a\"},\"tag\":{\"B\":\"AQ==\"}}");
    put(db, a, "{\"id\":{\"S\":\"s1\"},\"tid\":{\"S\":\"t1\"},\"rgn\":{\"S\":\"eu\"},\"round\":{\"N\":\"2\"},"
               "\"bracket\":{\"S\":\"a\"}}");
}

static const char *const part_values =
    "{\":t\":{\"S\":\"t1\"},\":r\":{\"S\":\"eu\"},\":two\":{\"N\":\"2\"},\":ten\":{\"N\":\"10\"},"
    "\":a\":{\"S\":\"a\"},\":n\":{\"N\":\"1\"},\":us\":{\"S\":\"us\"}}";

static void test_order_and_pages(void **state)
{
    (void)state;
    ddb *db = open_matches("mk_order");
    ddb_arena *a = ddb_arena_new();
    put_fixture(db, a);
    ddb_item *v = json_item(a, part_values);
    char got[256];
    const char *all = "m6 m5 m4 m3 m2 m1 m7";
    query_ids(db, "tid = :t AND rgn = :r", v, false, 0, got, sizeof got);
    assert_string_equal(got, all);
    query_ids(db, "rgn = :r AND tid = :t", v, true, 0, got, sizeof got);
    assert_string_equal(got, "m7 m1 m2 m3 m4 m5 m6");
    /* one item a page, both ways: every page's LastEvaluatedKey resumes it */
    assert_true(query_ids(db, "tid = :t AND rgn = :r", v, false, 1, got, sizeof got) >= 7);
    assert_string_equal(got, all);
    query_ids(db, "tid = :t AND rgn = :r", v, true, 2, got, sizeof got);
    assert_string_equal(got, "m7 m1 m2 m3 m4 m5 m6");
    /* sort-key conditions, left to right; (limit, backward) vary the pages */
    struct {
        const char *cond;
        bool backward;
        uint32_t limit;
        const char *want;
    } cases[] = {
        {"tid = :t AND rgn = :r AND round = :two", false, 0, "m5 m4 m3 m2 m1"},
        {"tid = :t AND rgn = :r AND round > :two", false, 0, "m7"},
        {"tid = :t AND rgn = :r AND round < :two", false, 0, "m6"},
        {"tid = :t AND rgn = :r AND round BETWEEN :n AND :ten", true, 0, "m7 m1 m2 m3 m4 m5"},
        {"tid = :t AND rgn = :r AND round = :two AND bracket = :a", false, 0, "m5 m4 m3"},
        {"tid = :t AND rgn = :r AND round = :two AND begins_with(bracket, :a)", false, 0, "m5 m4 m3 m2 m1"},
        {"tid = :t AND rgn = :r AND round = :two AND bracket > :a", false, 1, "m2 m1"},
        {"tid = :t AND rgn = :r AND round = :two AND bracket <= :a", true, 0, "m3 m4 m5"},
        {"tid = :t AND rgn = :us", false, 0, "o1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        query_ids(db, cases[i].cond, v, cases[i].backward, cases[i].limit, got, sizeof got);
        if (strcmp(got, cases[i].want) != 0)
            fail_msg("%s: got \"%s\", want \"%s\"", cases[i].cond, got, cases[i].want);
    }
    /* Scan of the index: the sparse item is not in it; a page at a time,
     * each LastEvaluatedKey (every key attribute) resumes it */
    ddb_page pg;
    ddb_error err = {0};
    TU_OK(ddb_scan(db, &(ddb_scan_params){.table = "Matches", .index = "ByRound"}, a, &pg, &err));
    assert_int_equal(pg.count, 8);
    size_t scanned = 0, pages = 0;
    ddb_scan_params sp = {.table = "Matches", .index = "ByRound", .limit = 3};
    do {
        TU_OK(ddb_scan(db, &sp, a, &pg, &err));
        scanned += pg.count;
        sp.start_key = pg.last_key;
    } while (pg.last_key && ++pages < 10);
    assert_int_equal(scanned, 8);
    /* a filter (on a non-key attribute), a projection and the index's
     * capacity (API_Query: ReturnConsumedCapacity INDEXES) */
    ddb_expr *kc = prep("tid = :t AND rgn = :r"), *flt, *proj;
    TU_OK(ddb_expr_prepare(DDB_EXPR_FILTER, "id <> :m", NULL, &flt, &err));
    TU_OK(ddb_expr_prepare(DDB_EXPR_PROJECTION, "id, tag", NULL, &proj, &err));
    TU_OK(ddb_query(db, &(ddb_query_params){.table = "Matches", .index = "ByRound", .key_condition = kc,
                                             .values = json_item(a, "{\":t\":{\"S\":\"t1\"},\":r\":{\"S\":\"eu\"},"
                                                                    "\":m\":{\"S\":\"m7\"}}"),
                                             .filter = flt, .projection = proj,
                                             .return_capacity = DDB_CAPACITY_INDEXES},
                    a, &pg, &err));
    assert_int_equal(pg.count, 6);
    assert_int_equal(pg.scanned_count, 7);
    assert_int_equal(ddb_item_count(pg.items[0]), 2);
    assert_int_equal(pg.capacity.n_indexes, 1);
    assert_string_equal(pg.capacity.indexes[0].name, "ByRound");
    assert_true(pg.capacity.indexes[0].read > 0);
    /* a filter may not name an index key attribute (API_Query:
     * "Filter Expression can only contain non-primary key attributes") */
    ddb_expr_free(flt);
    TU_OK(ddb_expr_prepare(DDB_EXPR_FILTER, "attribute_exists(bracket)", NULL, &flt, &err));
    expect_fail(ddb_query(db, &(ddb_query_params){.table = "Matches", .index = "ByRound", .key_condition = kc,
                                                   .values = values_for(a, v, "tid = :t AND rgn = :r"),
                                                   .filter = flt},
                          a, &pg, &err),
                &err, DDB_EVALIDATION, "Primary key attribute: bracket");
    ddb_expr_free(flt);
    ddb_expr_free(proj);
    ddb_expr_free(kc);
    check_clean(db, 8);
    ddb_arena_free(a);
    close_db(db);
}

static void test_key_condition_rules(void **state)
{
    (void)state;
    ddb *db = open_matches("mk_rules");
    ddb_arena *a = ddb_arena_new();
    put_fixture(db, a);
    ddb_item *v = json_item(a, part_values);
    struct {
        const char *cond, *msg;
    } bad[] = {
        {"tid = :t", "Query condition missed key schema element: rgn"},
        {"tid = :t AND rgn = :r AND bracket = :a", "sort key attributes are named left to right"},
        {"tid = :t AND rgn = :r AND round > :two AND bracket = :a", "only the last sort key attribute named"},
        {"tid = :t AND rgn > :r", "Query key condition not supported"},
        {"tid = :t AND rgn = :r AND nope = :a", "nope is not a key attribute"},
        {"tid = :t AND rgn = :two", "Condition parameter type does not match schema type"},
        {"tid = :t AND rgn = :r AND begins_with(round, :a)", "Condition parameter type does not match"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        ddb_expr *kc = prep(bad[i].cond);
        ddb_page pg;
        ddb_error err = {0};
        int rc = ddb_query(db, &(ddb_query_params){.table = "Matches", .index = "ByRound", .key_condition = kc,
                                                     .values = values_for(a, v, bad[i].cond)},
                           a, &pg, &err);
        expect_fail(rc, &err, DDB_EVALIDATION, bad[i].msg);
        ddb_expr_free(kc);
    }
    /* ExclusiveStartKey: every key attribute, of this partition (API_Query:
     * "The provided starting key is invalid", "... outside query
     * boundaries based on provided conditions") */
    ddb_expr *part = prep("tid = :t AND rgn = :r");
    const char *bad_starts[][2] = {
        {"{\"id\":{\"S\":\"m1\"},\"tid\":{\"S\":\"t1\"},\"rgn\":{\"S\":\"eu\"},\"round\":{\"N\":\"2\"},"
         "\"bracket\":{\"S\":\"ab\"}}",
         "ExclusiveStartKey lacks the key attribute tag"},
        {"{\"id\":{\"S\":\"o1\"},\"tid\":{\"S\":\"t1\"},\"rgn\":{\"S\":\"us\"},\"round\":{\"N\":\"2\"},"
         "\"bracket\":{\"S\":\"a\"},\"tag\":{\"B\":\"AQ==\"}}",
         "outside query boundaries"},
    };
    for (size_t i = 0; i < 2; i++) {
        ddb_page pg;
        ddb_error err = {0};
        int rc = ddb_query(db, &(ddb_query_params){.table = "Matches", .index = "ByRound", .key_condition = part,
                                                     .values = values_for(a, v, "tid = :t AND rgn = :r"),
                                                     .start_key = json_item(a, bad_starts[i][0])},
                           a, &pg, &err);
        expect_fail(rc, &err, DDB_EVALIDATION, bad_starts[i][1]);
    }
    ddb_expr_free(part);
    /* the struct form cannot name the further attributes */
    ddb_page pg;
    ddb_error err = {0};
    int rc = ddb_query(db, &(ddb_query_params){.table = "Matches", .index = "ByRound", .pk = ddb_v_str(a, "t1")}, a,
                       &pg, &err);
    /* (through the remote backend: the condition it sends, answered as
     * DynamoDB answers a Query that lacks a partition-key attribute) */
    expect_fail(rc, &err, DDB_EVALIDATION,
                remote_uri() ? "Query condition missed key schema element: rgn" : "multi-attribute key");
    /* three conditions on a single-attribute key: DynamoDB's classic answer */
    ddb_expr *kc = prep("id = :t AND rgn = :r AND tid = :t");
    rc = ddb_query(db, &(ddb_query_params){.table = "Matches", .key_condition = kc,
                                           .values = values_for(a, v, "id = :t AND rgn = :r")},
                   a, &pg, &err);
    expect_fail(rc, &err, DDB_EVALIDATION, "Conditions can be of length 1 or 2 only");
    ddb_expr_free(kc);
    ddb_arena_free(a);
    close_db(db);
}

static void test_writes(void **state)
{
    (void)state;
    ddb *db = open_matches("mk_writes");
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    /* each key attribute is type-checked, with DynamoDB's message */
    int rc = ddb_put_item(db, "Matches",
                          json_item(a, "{\"id\":{\"S\":\"x\"},\"tid\":{\"S\":\"t1\"},\"rgn\":{\"N\":\"5\"}}"), NULL,
                          NULL, NULL, &err);
    expect_fail(rc, &err, DDB_EVALIDATION,
                "Type mismatch for Index Key rgn Expected: S Actual: N IndexName: ByRound");
    rc = ddb_put_item(db, "Matches",
                      json_item(a, "{\"id\":{\"S\":\"x\"},\"tid\":{\"S\":\"t1\"},\"tag\":{\"B\":\"\"}}"), NULL, NULL,
                      NULL, &err);
    expect_fail(rc, &err, DDB_EVALIDATION, "IndexName: ByRound, IndexKey: tag");
    put_fixture(db, a);
    ddb_item *v = json_item(a, part_values);
    char got[256];
    /* an update of one key attribute moves the entry */
    ddb_expr *up;
    TU_OK(ddb_expr_prepare(DDB_EXPR_UPDATE, "SET rgn = :us", NULL, &up, &err));
    TU_OK(ddb_update_item(db, "Matches", json_item(a, "{\"id\":{\"S\":\"m5\"}}"), up,
                          &(ddb_write_opts){.values = values_for(a, v, ":us")}, NULL, NULL, &err));
    ddb_expr_free(up);
    query_ids(db, "tid = :t AND rgn = :us", v, false, 0, got, sizeof got);
    /* (equal index keys: in the order of their table keys' digests) */
    assert_true(strcmp(got, "m5 o1") == 0 || strcmp(got, "o1 m5") == 0);
    /* removing one makes the item sparse */
    TU_OK(ddb_expr_prepare(DDB_EXPR_UPDATE, "REMOVE bracket", NULL, &up, &err));
    TU_OK(ddb_update_item(db, "Matches", json_item(a, "{\"id\":{\"S\":\"m4\"}}"), up, NULL, NULL, NULL, &err));
    ddb_expr_free(up);
    /* a delete and a transaction's delete remove their entries */
    TU_OK(ddb_delete_item(db, "Matches", json_item(a, "{\"id\":{\"S\":\"m3\"}}"), NULL, NULL, NULL, &err));
    ddb_tx_op op = {.kind = DDB_TX_DELETE, .table = "Matches", .item = json_item(a, "{\"id\":{\"S\":\"m2\"}}")};
    ddb_tx_result txr;
    TU_OK(ddb_transact_write(db, &op, 1, DDB_CAPACITY_NONE, a, &txr, &err));
    /* a batch puts one back and deletes another */
    ddb_batch_write_op ops[] = {
        {.table = "Matches",
         .put = json_item(a, "{\"id\":{\"S\":\"b1\"},\"tid\":{\"S\":\"t1\"},\"rgn\":{\"S\":\"eu\"},"
                             "\"round\":{\"N\":\"3\"},\"bracket\":{\"S\":\"a\"},\"tag\":{\"B\":\"AQ==\"}}")},
        {.table = "Matches", .delete_key = json_item(a, "{\"id\":{\"S\":\"m6\"}}")}};
    ddb_capacity cap;
    TU_OK(ddb_batch_write(db, ops, 2, DDB_CAPACITY_NONE, &cap, &err));
    query_ids(db, "tid = :t AND rgn = :r", v, false, 0, got, sizeof got);
    assert_string_equal(got, "m1 b1 m7");
    check_clean(db, 0);
    ddb_arena_free(a);
    close_db(db);
}

static void test_definitions(void **state)
{
    (void)state;
    ddb *db = open_db("mk_defs");
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    ddb_key_part four[] = {{"a", DDB_TS}, {"b", DDB_TN}, {"c", DDB_TB}, {"d", DDB_TS}};
    ddb_index_def ix = by_round();
    ddb_table_def d = {.name = "Tab1", .key = {.pk = "id", .pk_type = DDB_TS, .sk = "s", .sk_type = DDB_TS},
                       .indexes = &ix, .n_indexes = 1};
    /* five partition-key attributes */
    ix.key.pk_more = four;
    ix.key.n_pk_more = 4;
    expect_fail(ddb_create_table(db, &d, &err), &err, DDB_ELIMIT, "up to 4 partition and up to 4 sort keys");
    /* further sort attributes need a first one */
    ix = by_round();
    ix.key.sk = NULL;
    expect_fail(ddb_create_table(db, &d, &err), &err, DDB_EVALIDATION, "sk_more needs sk");
    /* one attribute twice in the key */
    ix = by_round();
    ix.key.sk_more = (ddb_key_part[]){{"tid", DDB_TS}};
    ix.key.n_sk_more = 1;
    expect_fail(ddb_create_table(db, &d, &err), &err, DDB_EVALIDATION, "Duplicate attribute name in the KeySchema: tid");
    /* one attribute, two types across key schemas */
    ix = by_round();
    ix.key.pk_more = (ddb_key_part[]){{"s", DDB_TN}};
    expect_fail(ddb_create_table(db, &d, &err), &err, DDB_EVALIDATION, "Cannot have two attributes with the same name");
    /* not for local secondary indexes, nor for the table */
    ix = (ddb_index_def){.name = "Loc", .local = true,
                         .key = {.pk = "id", .pk_type = DDB_TS, .sk = "x", .sk_type = DDB_TS, .sk_more = four,
                                 .n_sk_more = 1}};
    expect_fail(ddb_create_table(db, &d, &err), &err, DDB_EVALIDATION,
                "Member must have length less than or equal to 2");
    ddb_table_def t2 = {.name = "Tab2", .key = {.pk = "id", .pk_type = DDB_TS, .pk_more = four, .n_pk_more = 1}};
    expect_fail(ddb_create_table(db, &t2, &err), &err, DDB_EVALIDATION,
                "Member must have length less than or equal to 2");
    /* four and four are accepted; DescribeTable returns them in order, and
     * so does a fresh handle (the catalog) */
    ix = (ddb_index_def){.name = "Wide",
                         .key = {.pk = "p1", .pk_type = DDB_TS, .pk_more = four + 1, .n_pk_more = 3, .sk = "q1",
                                 .sk_type = DDB_TN, .sk_more = (ddb_key_part[]){{"q2", DDB_TS}, {"q3", DDB_TB},
                                                                                {"q4", DDB_TN}},
                                 .n_sk_more = 3},
                         .projection = DDB_PROJ_KEYS_ONLY};
    TU_OK(ddb_create_table(db, &d, &err));
    for (int round = 0; round < 2; round++) {
        ddb_table_desc *td;
        TU_OK(ddb_describe_table(db, "Tab1", a, &td, &err));
        const ddb_key_schema *k = &td->def.indexes[0].key;
        assert_string_equal(k->pk, "p1");
        assert_int_equal(k->n_pk_more, 3);
        assert_string_equal(k->pk_more[2].name, "d");
        assert_int_equal(k->pk_more[1].type, DDB_TB);
        assert_string_equal(k->sk, "q1");
        assert_int_equal(k->n_sk_more, 3);
        assert_string_equal(k->sk_more[1].name, "q3");
        assert_int_equal(k->sk_more[2].type, DDB_TN);
        ddb_close(db);
        TU_OK(ddb_open(remote_uri() ? remote_uri() : dir, NULL, &db, &err));
    }
    /* UpdateTable: a multi-attribute GSI backfilled from the items there,
     * skipping one with a key attribute of another type; then deleted */
    TU_OK(ddb_create_table(db, &(ddb_table_def){.name = "Matches", .key = {.pk = "id", .pk_type = DDB_TS}}, &err));
    put_fixture(db, a);
    put(db, a, "{\"id\":{\"S\":\"bad\"},\"tid\":{\"S\":\"t1\"},\"rgn\":{\"N\":\"1\"},\"round\":{\"N\":\"2\"},"
               "\"bracket\":{\"S\":\"a\"},\"tag\":{\"B\":\"AQ==\"}}");
    ix = by_round();
    uint64_t filled = 0, skipped = 0;
    TU_OK(ddb_add_index(db, "Matches", &ix, &filled, &skipped, &err));
    if (!remote_uri()) { /* (DynamoDB's UpdateTable does not count them) */
        assert_int_equal(filled, 8);
        assert_int_equal(skipped, 1);
    }
    char got[256];
    query_ids(db, "tid = :t AND rgn = :r AND round = :two", json_item(a, part_values), false, 0, got, sizeof got);
    assert_string_equal(got, "m5 m4 m3 m2 m1");
    TU_OK(ddb_delete_index(db, "Matches", "ByRound", &err));
    ddb_arena_free(a);
    close_db(db);
}

/* The sort form of tuples (key_parts.h) orders them as DynamoDB orders a
 * multi-attribute sort key: attribute by attribute in declared order,
 * numbers as numbers, strings and binaries as bytes (shorter first when one
 * begins the other), whatever bytes the values hold.  Random tuples of
 * (N, S, B) over an alphabet of 0x00, 0x01, 'a' and 0xff. */
static int tuple_cmp(const ddb_value *const *x, const ddb_value *const *y, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int c = ddb_value_compare(x[i], y[i]);
        if (c)
            return c;
    }
    return 0;
}

static ddb_value *random_part(ddb_arena *a, ddb_type type, unsigned *seed)
{
    static const char *const nums[] = {"-100", "-2.5", "-2", "-0.001", "0", "0.001", "1", "1.5", "10", "99", "1E+30"};
    if (type == DDB_TN) {
        ddb_value *v;
        TU_OK(ddb_v_n(a, nums[rand_r(seed) % 11], &v, NULL));
        return v;
    }
    static const uint8_t alphabet[] = {0x00, 0x01, 'a', 0xff};
    uint8_t b[4];
    size_t len = 1 + (size_t)rand_r(seed) % 4;
    for (size_t i = 0; i < len; i++)
        b[i] = alphabet[rand_r(seed) % 4];
    if (type == DDB_TB)
        return ddb_v_b(a, b, len);
    for (size_t i = 0; i < len; i++)
        b[i] = b[i] == 0xff ? 'z' : b[i]; /* strings stay UTF-8 */
    return ddb_v_s(a, (const char *)b, len);
}

static void test_sort_form_order(void **state)
{
    (void)state;
    ddb_arena *a = ddb_arena_new();
    unsigned seed = 27;
    const ddb_type types[3] = {DDB_TN, DDB_TS, DDB_TB};
    static uint8_t ex[DDB_KEY_PARTS_MAX], ey[DDB_KEY_PARTS_MAX];
    for (int round = 0; round < 20000; round++) {
        const ddb_value *x[3], *y[3];
        for (size_t i = 0; i < 3; i++) {
            x[i] = random_part(a, types[i], &seed);
            /* often the same value, so that later attributes decide */
            y[i] = rand_r(&seed) % 2 ? x[i] : random_part(a, types[i], &seed);
        }
        size_t lx = ddbi_key_parts_encode(x, 3, ex), ly = ddbi_key_parts_encode(y, 3, ey);
        assert_true(lx && ly);
        int c = memcmp(ex, ey, lx < ly ? lx : ly);
        if (!c)
            c = lx < ly ? -1 : lx > ly;
        int want = tuple_cmp(x, y, 3);
        if ((c > 0) != (want > 0) || (c < 0) != (want < 0))
            fail_msg("round %d: sort forms compare %d, the tuples %d", round, c, want);
        if (round % 1000 == 999)
            ddb_arena_reset(a);
    }
    ddb_arena_free(a);
}

/* Sort forms longer than a stored key's inline part (long strings sharing
 * their first 600 bytes) keep their order in Query, both ways and a page at
 * a time. */
static void test_long_sort_values(void **state)
{
    (void)state;
    ddb *db = open_matches("mk_long");
    ddb_arena *a = ddb_arena_new();
    const char *ends[] = {"b", "a", "a\\u0000", "ab", "c"}; /* put in this order */
    char json[2048], stem[601];
    memset(stem, 'x', 600);
    stem[600] = '\0';
    for (size_t i = 0; i < 5; i++) {
        snprintf(json, sizeof json,
                 "{\"id\":{\"S\":\"L%zu\"},\"tid\":{\"S\":\"t1\"},\"rgn\":{\"S\":\"eu\"},\"round\":{\"N\":\"1\"},"
                 "\"bracket\":{\"S\":\"%s%s\"},\"tag\":{\"B\":\"AQ==\"}}",
                 i, stem, ends[i]);
        put(db, a, json);
    }
    ddb_item *v = json_item(a, part_values);
    char got[256];
    for (uint32_t limit = 0; limit < 3; limit++) {
        query_ids(db, "tid = :t AND rgn = :r", v, false, limit, got, sizeof got);
        assert_string_equal(got, "L1 L2 L3 L0 L4");
        query_ids(db, "tid = :t AND rgn = :r AND round = :n", v, true, limit, got, sizeof got);
        assert_string_equal(got, "L4 L0 L3 L2 L1");
    }
    check_clean(db, 0);
    ddb_arena_free(a);
    close_db(db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sort_form_order),
        cmocka_unit_test(test_order_and_pages),
        cmocka_unit_test(test_long_sort_values),
        cmocka_unit_test(test_key_condition_rules),
        cmocka_unit_test(test_writes),
        cmocka_unit_test(test_definitions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
