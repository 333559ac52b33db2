/* Query and Scan with FilterExpression, ProjectionExpression and
 * KeyConditionExpression; GetItem with ProjectionExpression.
 *
 * Matched (API reference Query/Scan, developer guide "Filter expressions
 * for Query"): a page stops at Limit evaluated items or 1 MB of data read,
 * both before the filter; Count counts the items returned after the
 * filter, ScannedCount those evaluated; LastEvaluatedKey is set whenever
 * Limit or 1 MB stopped the page; capacity is the size of everything read
 * (before the filter and the projection), rounded up to 4 KB once per page,
 * halved when eventually consistent; a Query filter cannot name the
 * partition or sort key of what it queries ("Filter Expression can only
 * contain non-primary key attributes: Primary key attribute: sk", the same
 * text as dynalite).  dynalite stops a page at the first item that brings
 * the data read to 1 MB or more (it takes that item), the engine at the
 * last item that fits: with items of exactly 128 KB both give 8 per page,
 * which is what the 1 MB test uses. */
#include "ops_util.h"

#include <stdio.h>
#include <string.h>

/* Ten 1,000-byte items q/00..q/09, n = i, st = even/odd. */
static void ten_items(ops_fx *fx)
{
    for (int i = 0; i < 10; i++) {
        char j[160];
        snprintf(j, sizeof j, "{'pk':{'S':'q'},'sk':{'S':'%02d'},'n':{'N':'%d'},'st':{'S':'%s'}}", i, i,
                 i % 2 ? "odd" : "even");
        EXPECT_RC(DDB_OK, put(fx, T_OPS, sized(fx, j, 1000), NULL, NULL, DDB_RETURN_NONE, NULL, err));
    }
}

/* The sort keys of a page, "00 02 04". */
static const char *sks(ops_fx *fx, const ddb_page *pg)
{
    char *s = ddb_arena_alloc(fx->a, pg->count * 8 + 1);
    s[0] = 0;
    for (size_t i = 0; i < pg->count; i++) {
        const ddb_value *v = ddb_item_get(pg->items[i], "sk");
        strcat(s, i ? " " : "");
        strcat(s, v ? v->u.s : "?");
    }
    return s;
}

static void test_query_filter_counts(void **state)
{
    ops_fx *fx = *state;
    ten_items(fx);
    ddb_query_params q = {.table = T_OPS,
                          .key_condition = KEYC(fx, "pk = :p"),
                          .filter = FLT(fx, "st = :even"),
                          .values = J(fx, "{':p':{'S':'q'},':even':{'S':'even'}}"),
                          .return_capacity = DDB_CAPACITY_INDEXES};
    ddb_page pg;
    EXPECT_RC(DDB_OK, ddb_query(fx->db, &q, fx->a, &pg, err));
    assert_int_equal(pg.count, 5);
    assert_int_equal(pg.scanned_count, 10);
    assert_string_equal(sks(fx, &pg), "00 02 04 06 08");
    assert_null(pg.last_key);
    /* 10,000 bytes read: 3 x 4 KB, eventually consistent */
    expect_units(pg.capacity.total, 1.5);
    expect_units(pg.capacity.table_read, 1.5);
    q.consistent = true;
    EXPECT_RC(DDB_OK, ddb_query(fx->db, &q, fx->a, &pg, err));
    expect_units(pg.capacity.total, 3);

    /* Limit counts evaluated items: 4 per page, Count after the filter */
    q.consistent = false;
    q.limit = 4;
    EXPECT_RC(DDB_OK, ddb_query(fx->db, &q, fx->a, &pg, err));
    assert_int_equal(pg.count, 2);
    assert_int_equal(pg.scanned_count, 4);
    assert_string_equal(sks(fx, &pg), "00 02");
    expect_item(fx, pg.last_key, "{'pk':{'S':'q'},'sk':{'S':'03'}}");
    expect_units(pg.capacity.total, 0.5); /* 4,000 bytes */
    q.start_key = pg.last_key;
    EXPECT_RC(DDB_OK, ddb_query(fx->db, &q, fx->a, &pg, err));
    assert_string_equal(sks(fx, &pg), "04 06");
    assert_int_equal(pg.scanned_count, 4);
    expect_item(fx, pg.last_key, "{'pk':{'S':'q'},'sk':{'S':'07'}}");
    q.start_key = pg.last_key;
    EXPECT_RC(DDB_OK, ddb_query(fx->db, &q, fx->a, &pg, err));
    assert_string_equal(sks(fx, &pg), "08");
    assert_int_equal(pg.count, 1);
    assert_int_equal(pg.scanned_count, 2);
    assert_null(pg.last_key);
    /* a page whose items are all filtered out still carries on */
    q.start_key = NULL;
    q.limit = 1;
    q.filter = FLT(fx, "st = :even AND n > :five");
    q.values = J(fx, "{':p':{'S':'q'},':even':{'S':'even'},':five':{'N':'5'}}");
    EXPECT_RC(DDB_OK, ddb_query(fx->db, &q, fx->a, &pg, err));
    assert_int_equal(pg.count, 0);
    assert_int_equal(pg.scanned_count, 1);
    expect_item(fx, pg.last_key, "{'pk':{'S':'q'},'sk':{'S':'00'}}");
    /* backward, with a sort key condition and a projection */
    q = (ddb_query_params){.table = T_OPS,
                           .key_condition = KEYC(fx, "pk = :p AND sk BETWEEN :a AND :b"),
                           .filter = FLT(fx, "st = :odd"),
                           .projection = PRJ(fx, "sk, n"),
                           .backward = true,
                           .values = J(fx, "{':p':{'S':'q'},':a':{'S':'02'},':b':{'S':'07'},':odd':{'S':'odd'}}"),
                           .return_capacity = DDB_CAPACITY_TOTAL};
    EXPECT_RC(DDB_OK, ddb_query(fx->db, &q, fx->a, &pg, err));
    assert_int_equal(pg.count, 3);
    assert_int_equal(pg.scanned_count, 6);
    expect_item(fx, pg.items[0], "{'sk':{'S':'07'},'n':{'N':'7'}}");
    expect_item(fx, pg.items[2], "{'sk':{'S':'03'},'n':{'N':'3'}}");
    expect_units(pg.capacity.total, 1); /* 6,000 bytes: the projection does not reduce it */
}

/* The 1 MB page limit applies to the data read, before the filter. */
static void test_query_scan_1mb_before_filter(void **state)
{
    ops_fx *fx = *state;
    for (int i = 0; i < 20; i++) {
        char j[100];
        snprintf(j, sizeof j, "{'pk':{'S':'big'},'sk':{'S':'%02d'},'n':{'N':'%d'}}", i, i);
        EXPECT_RC(DDB_OK, put(fx, T_OPS, sized(fx, j, 131072), NULL, NULL, DDB_RETURN_NONE, NULL, err));
        snprintf(j, sizeof j, "{'pk':{'S':'big%02d'},'n':{'N':'%d'}}", i, i);
        EXPECT_RC(DDB_OK, put(fx, T_HASH, sized(fx, j, 131072), NULL, NULL, DDB_RETURN_NONE, NULL, err));
    }
    ddb_query_params q = {.table = T_OPS,
                          .key_condition = KEYC(fx, "pk = :p"),
                          .filter = FLT(fx, "n > :max"),
                          .values = J(fx, "{':p':{'S':'big'},':max':{'N':'100'}}"),
                          .return_capacity = DDB_CAPACITY_TOTAL};
    ddb_scan_params s = {.table = T_HASH,
                         .filter = FLT(fx, "n > :max"),
                         .values = J(fx, "{':max':{'N':'100'}}"),
                         .return_capacity = DDB_CAPACITY_TOTAL};
    size_t want[] = {8, 8, 4};
    for (int page = 0; page < 3; page++) {
        ddb_page pq, ps;
        EXPECT_RC(DDB_OK, ddb_query(fx->db, &q, fx->a, &pq, err));
        EXPECT_RC(DDB_OK, ddb_scan(fx->db, &s, fx->a, &ps, err));
        for (int k = 0; k < 2; k++) {
            const ddb_page *pg = k ? &ps : &pq;
            assert_int_equal(pg->count, 0);
            assert_int_equal(pg->scanned_count, want[page]);
            assert_true((pg->last_key != NULL) == (page < 2));
            expect_units(pg->capacity.total, (double)want[page] * 131072 / 4096 / 2);
        }
        q.start_key = pq.last_key;
        s.start_key = ps.last_key;
    }
}

static void test_query_filter_refusals(void **state)
{
    ops_fx *fx = *state;
    ten_items(fx);
    ddb_page pg;
    ddb_query_params q = {.table = T_OPS,
                          .key_condition = KEYC(fx, "pk = :p"),
                          .filter = FLT(fx, "sk = :s"),
                          .values = J(fx, "{':p':{'S':'q'},':s':{'S':'00'}}")};
    EXPECT_ERR(DDB_EVALIDATION,
               "Filter Expression can only contain non-primary key attributes: Primary key attribute: sk",
               ddb_query(fx->db, &q, fx->a, &pg, err));
    q.filter = FLT(fx, "attribute_exists(pk)");
    q.values = J(fx, "{':p':{'S':'q'}}");
    EXPECT_ERR(DDB_EVALIDATION,
               "Filter Expression can only contain non-primary key attributes: Primary key attribute: pk",
               ddb_query(fx->db, &q, fx->a, &pg, err));
    /* on an index the index's keys are refused, the table's sort key is not */
    EXPECT_RC(DDB_OK, put(fx, T_IDX, J(fx, "{'pk':{'S':'p'},'sk':{'S':'1'},'gpk':{'S':'g'},'gsk':{'N':'1'}}"), NULL,
                          NULL, DDB_RETURN_NONE, NULL, err));
    q = (ddb_query_params){.table = T_IDX,
                           .index = "Gsi1",
                           .key_condition = KEYC(fx, "gpk = :g"),
                           .filter = FLT(fx, "gsk > :z"),
                           .values = J(fx, "{':g':{'S':'g'},':z':{'N':'0'}}")};
    EXPECT_ERR(DDB_EVALIDATION, "Primary key attribute: gsk", ddb_query(fx->db, &q, fx->a, &pg, err));
    q.filter = FLT(fx, "sk = :one");
    q.values = J(fx, "{':g':{'S':'g'},':one':{'S':'1'}}");
    EXPECT_RC(DDB_OK, ddb_query(fx->db, &q, fx->a, &pg, err));
    assert_int_equal(pg.count, 1);
    /* a Scan may filter on key attributes */
    ddb_scan_params s = {
        .table = T_OPS, .filter = FLT(fx, "sk = :s AND pk = :p"), .values = J(fx, "{':p':{'S':'q'},':s':{'S':'03'}}")};
    EXPECT_RC(DDB_OK, ddb_scan(fx->db, &s, fx->a, &pg, err));
    assert_int_equal(pg.count, 1);
    assert_int_equal(pg.scanned_count, 10);
    /* undefined and unused values, a key condition without the partition key */
    q = (ddb_query_params){.table = T_OPS,
                           .key_condition = KEYC(fx, "pk = :p"),
                           .filter = FLT(fx, "n = :nope"),
                           .values = J(fx, "{':p':{'S':'q'}}")};
    EXPECT_ERR(DDB_EVALIDATION, "An expression attribute value used in expression is not defined",
               ddb_query(fx->db, &q, fx->a, &pg, err));
    q.filter = NULL;
    q.values = J(fx, "{':p':{'S':'q'},':x':{'S':'x'}}");
    EXPECT_ERR(DDB_EVALIDATION, "Value provided in ExpressionAttributeValues unused in expressions: keys: {:x}",
               ddb_query(fx->db, &q, fx->a, &pg, err));
    q.key_condition = KEYC(fx, "sk = :x");
    q.values = J(fx, "{':x':{'S':'x'}}");
    EXPECT_ERR(DDB_EVALIDATION, "Query condition missed key schema element: pk",
               ddb_query(fx->db, &q, fx->a, &pg, err));
}

/* Filters and projections on index pages see the projected attributes. */
static void test_query_index_filter(void **state)
{
    ops_fx *fx = *state;
    for (int i = 0; i < 6; i++) {
        char j[200];
        snprintf(j, sizeof j,
                 "{'pk':{'S':'p%d'},'sk':{'S':'1'},'gpk':{'S':'g'},'gsk':{'N':'%d'},'kpk':{'S':'k'},'d':{'S':'%s'}}", i,
                 i, i < 2 ? "x" : "y");
        EXPECT_RC(DDB_OK, put(fx, T_IDX, sized(fx, j, 2000), NULL, NULL, DDB_RETURN_NONE, NULL, err));
    }
    /* Gsi1 projects ALL: the filter sees d; 6 x 2,000 bytes = 3 x 4 KB, halved */
    ddb_query_params q = {.table = T_IDX,
                          .index = "Gsi1",
                          .key_condition = KEYC(fx, "gpk = :g AND gsk >= :one"),
                          .filter = FLT(fx, "d = :x"),
                          .projection = PRJ(fx, "pk, gsk"),
                          .values = J(fx, "{':g':{'S':'g'},':one':{'N':'1'},':x':{'S':'x'}}"),
                          .return_capacity = DDB_CAPACITY_INDEXES};
    ddb_page pg;
    EXPECT_RC(DDB_OK, ddb_query(fx->db, &q, fx->a, &pg, err));
    assert_int_equal(pg.count, 1);
    assert_int_equal(pg.scanned_count, 5);
    expect_item(fx, pg.items[0], "{'pk':{'S':'p1'},'gsk':{'N':'1'}}");
    expect_units(pg.capacity.total, 1.5);
    expect_units(idx_read(&pg.capacity, "Gsi1"), 1.5);
    expect_units(pg.capacity.table_read, 0);
    /* Gsi2 is KEYS_ONLY: d is not in its entries, so nothing matches; the
     * entries are small (keys only): 0.5 RCU */
    q = (ddb_query_params){.table = T_IDX,
                           .index = "Gsi2",
                           .key_condition = KEYC(fx, "kpk = :k"),
                           .filter = FLT(fx, "attribute_exists(d)"),
                           .values = J(fx, "{':k':{'S':'k'}}"),
                           .return_capacity = DDB_CAPACITY_INDEXES};
    EXPECT_RC(DDB_OK, ddb_query(fx->db, &q, fx->a, &pg, err));
    assert_int_equal(pg.count, 0);
    assert_int_equal(pg.scanned_count, 6);
    expect_units(idx_read(&pg.capacity, "Gsi2"), 0.5);
    /* Scan of an index with a filter */
    ddb_scan_params s = {
        .table = T_IDX, .index = "Gsi1", .filter = FLT(fx, "gsk < :three"), .values = J(fx, "{':three':{'N':'3'}}")};
    EXPECT_RC(DDB_OK, ddb_scan(fx->db, &s, fx->a, &pg, err));
    assert_int_equal(pg.count, 3);
    assert_int_equal(pg.scanned_count, 6);
}

static void test_get_projection(void **state)
{
    ops_fx *fx = *state;
    ddb_item *it =
        sized(fx,
              "{'pk':{'S':'a'},'sk':{'S':'1'},'m':{'M':{'a':{'N':'1'},'b':{'N':'2'}}},"
              "'l':{'L':[{'S':'l0'},{'S':'l1'},{'M':{'x':{'S':'deep'},'y':{'S':'no'}}}]},'status':{'S':'on'}}",
              5000);
    EXPECT_RC(DDB_OK, put(fx, T_OPS, it, NULL, NULL, DDB_RETURN_NONE, NULL, err));
    ddb_get_opts o = {.projection = XN(fx, DDB_EXPR_PROJECTION, "m.b, l[2].x, l[0], #s, nope", "{'#s':{'S':'status'}}"),
                      .return_capacity = DDB_CAPACITY_INDEXES};
    ddb_item *got;
    ddb_capacity cap;
    EXPECT_RC(DDB_OK, ddb_get_item(fx->db, T_OPS, K(fx, "a", "1"), &o, fx->a, &got, &cap, err));
    expect_item(fx, got,
                "{'m':{'M':{'b':{'N':'2'}}},'l':{'L':[{'S':'l0'},{'M':{'x':{'S':'deep'}}}]},'status':{'S':'on'}}");
    /* the whole 5,000-byte item is read: 2 x 4 KB, halved */
    expect_units(cap.total, 1);
    expect_units(cap.table_read, 1);
    o.consistent = true;
    EXPECT_RC(DDB_OK, ddb_get_item(fx->db, T_OPS, K(fx, "a", "1"), &o, fx->a, &got, &cap, err));
    expect_units(cap.total, 2);
    /* nothing matched: an empty item */
    o.projection = PRJ(fx, "nope, m.c");
    EXPECT_RC(DDB_OK, ddb_get_item(fx->db, T_OPS, K(fx, "a", "1"), &o, fx->a, &got, &cap, err));
    expect_item(fx, got, "{}");
    /* an absent item: DDB_ENOTFOUND, still 1 RCU consistent */
    EXPECT_RC(DDB_ENOTFOUND, ddb_get_item(fx->db, T_OPS, K(fx, "b", "1"), &o, fx->a, &got, &cap, err));
    assert_null(got);
    expect_units(cap.total, 1);
}

const struct CMUnitTest ops_query_tests[] = {
    cmocka_unit_test_setup_teardown(test_query_filter_counts, ops_setup, ops_teardown),
    cmocka_unit_test_setup_teardown(test_query_scan_1mb_before_filter, ops_setup, ops_teardown),
    cmocka_unit_test_setup_teardown(test_query_filter_refusals, ops_setup, ops_teardown),
    cmocka_unit_test_setup_teardown(test_query_index_filter, ops_setup, ops_teardown),
    cmocka_unit_test_setup_teardown(test_get_projection, ops_setup, ops_teardown),
};
const size_t ops_query_count = sizeof ops_query_tests / sizeof *ops_query_tests;
