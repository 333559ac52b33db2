/* Secondary indexes follow every write: an update that adds, changes or
 * removes an index key attribute moves the item into, within or out of the
 * index (sparse membership), and each index write is charged as the
 * DynamoDB developer guide ("Provisioned throughput considerations for
 * global secondary indexes", write capacity units) says:
 *   - a write that puts an item into an index: 1 write of the entry;
 *   - a change of an indexed key attribute (A -> B): 2 writes (delete, put);
 *   - a write that takes the item out of the index: 1 write;
 *   - no entry before or after: nothing;
 *   - only projected (non-key) attributes change: 1 write;
 * each rounded up per 1 KB of the index entry (its projected size).
 *
 * Table "Idx": Gsi1 (gpk S, gsk N, ALL), Gsi2 (kpk S, KEYS_ONLY), Lsi1 (LSI on
 * lsk S, INCLUDE inc).  ddb_check_table runs after every step. */
#include "ops_util.h"

#include <string.h>

/* The capacity of one write, by index. */
static void expect_caps(const ddb_write_result *r, double total, double table, double gsi1, double gsi2, double lsi1)
{
    expect_units(r->capacity.total, total);
    expect_units(r->capacity.write, total);
    expect_units(r->capacity.table_write, table);
    expect_units(idx_write(&r->capacity, "Gsi1"), gsi1);
    expect_units(idx_write(&r->capacity, "Gsi2"), gsi2);
    expect_units(idx_write(&r->capacity, "Lsi1"), lsi1);
}

static void test_index_follows_updates(void **state)
{
    ops_fx *fx = *state;
    ddb_write_result res;
    ddb_item *k = K(fx, "p", "1");
    EXPECT_RC(DDB_OK, put(fx, T_IDX, J(fx, "{'pk':{'S':'p'},'sk':{'S':'1'},'d':{'S':'x'}}"), NULL, NULL,
                          DDB_RETURN_NONE, &res, err));
    expect_caps(&res, 1, 1, 0, 0, 0);
    expect_clean(fx, T_IDX, 1, 0);

    /* add the GSI key: the item enters Gsi1 */
    EXPECT_RC(DDB_OK, update(fx, T_IDX, k, "SET gpk = :g, gsk = :n", NULL, "{':g':{'S':'g'},':n':{'N':'5'}}",
                             DDB_RETURN_NONE, &res, err));
    expect_caps(&res, 2, 1, 1, 0, 0);
    expect_clean(fx, T_IDX, 1, 1);
    assert_string_equal(query_index(fx, T_IDX, "Gsi1", "g"),
                        "{\"d\":{\"S\":\"x\"},\"gpk\":{\"S\":\"g\"},\"gsk\":{\"N\":\"5\"},\"pk\":{\"S\":\"p\"},"
                        "\"sk\":{\"S\":\"1\"}}\n");
    /* change the sort key, then the partition key of the index: delete + put */
    EXPECT_RC(DDB_OK, update(fx, T_IDX, k, "SET gsk = :n", NULL, "{':n':{'N':'7'}}", DDB_RETURN_NONE, &res, err));
    expect_caps(&res, 3, 1, 2, 0, 0);
    EXPECT_RC(DDB_OK, update(fx, T_IDX, k, "SET gpk = :h", NULL, "{':h':{'S':'h'}}", DDB_RETURN_NONE, &res, err));
    expect_caps(&res, 3, 1, 2, 0, 0);
    expect_clean(fx, T_IDX, 1, 1);
    assert_string_equal(query_index(fx, T_IDX, "Gsi1", "g"), "");
    assert_string_equal(query_index(fx, T_IDX, "Gsi1", "h"),
                        "{\"d\":{\"S\":\"x\"},\"gpk\":{\"S\":\"h\"},\"gsk\":{\"N\":\"7\"},\"pk\":{\"S\":\"p\"},"
                        "\"sk\":{\"S\":\"1\"}}\n");
    /* a non-key attribute that Gsi1 projects (ALL) */
    EXPECT_RC(DDB_OK, update(fx, T_IDX, k, "SET d = :y", NULL, "{':y':{'S':'y'}}", DDB_RETURN_NONE, &res, err));
    expect_caps(&res, 2, 1, 1, 0, 0);
    /* enter Gsi2 (KEYS_ONLY) and Lsi1 (INCLUDE inc) at once */
    EXPECT_RC(DDB_OK, update(fx, T_IDX, k, "SET kpk = :k, lsk = :l, inc = :i", NULL,
                             "{':k':{'S':'k'},':l':{'S':'l'},':i':{'S':'i1'}}", DDB_RETURN_NONE, &res, err));
    expect_caps(&res, 4, 1, 1, 1, 1);
    expect_clean(fx, T_IDX, 1, 3);
    assert_string_equal(query_index(fx, T_IDX, "Gsi2", "k"),
                        "{\"kpk\":{\"S\":\"k\"},\"pk\":{\"S\":\"p\"},\"sk\":{\"S\":\"1\"}}\n");
    assert_string_equal(query_index(fx, T_IDX, "Lsi1", "p"),
                        "{\"inc\":{\"S\":\"i1\"},\"lsk\":{\"S\":\"l\"},\"pk\":{\"S\":\"p\"},\"sk\":{\"S\":\"1\"}}\n");
    /* a projected attribute of Lsi1 changes (same size): Lsi1 and Gsi1 are written,
     * Gsi2 (keys only) is not */
    EXPECT_RC(DDB_OK, update(fx, T_IDX, k, "SET inc = :i", NULL, "{':i':{'S':'i2'}}", DDB_RETURN_NONE, &res, err));
    expect_caps(&res, 3, 1, 1, 0, 1);
    assert_string_equal(query_index(fx, T_IDX, "Lsi1", "p"),
                        "{\"inc\":{\"S\":\"i2\"},\"lsk\":{\"S\":\"l\"},\"pk\":{\"S\":\"p\"},\"sk\":{\"S\":\"1\"}}\n");
    /* an attribute Lsi1 does not project: only Gsi1 */
    EXPECT_RC(DDB_OK, update(fx, T_IDX, k, "SET d = :z", NULL, "{':z':{'S':'z'}}", DDB_RETURN_NONE, &res, err));
    expect_caps(&res, 2, 1, 1, 0, 0);
    /* nothing changes at all: the table write only */
    EXPECT_RC(DDB_OK, update(fx, T_IDX, k, "SET d = :z", NULL, "{':z':{'S':'z'}}", DDB_RETURN_NONE, &res, err));
    expect_caps(&res, 1, 1, 0, 0, 0);
    /* the item grows to 2,500 bytes: 3 units for the table and for the Gsi1
     * entry (ALL); Gsi2 and Lsi1 do not project filler */
    size_t grow = 2500 - ddb_item_size(get(fx, T_IDX, k)) - 6; /* "filler" */
    char *pad = ddb_arena_alloc(fx->a, grow + 1);
    memset(pad, 'q', grow);
    pad[grow] = 0;
    ddb_item *v = ddb_item_new(fx->a);
    ddb_item_set_s(v, ":pad", pad);
    EXPECT_RC(DDB_OK, ddb_update_item(fx->db, T_IDX, k, UPD(fx, "SET filler = :pad"),
                                      &(ddb_write_opts){.return_capacity = DDB_CAPACITY_INDEXES, .values = v}, fx->a,
                                      &res, err));
    assert_int_equal(ddb_item_size(get(fx, T_IDX, k)), 2500);
    expect_caps(&res, 6, 3, 3, 0, 0);
    /* remove the GSI sort key: the item leaves Gsi1 (sparse) */
    EXPECT_RC(DDB_OK, update(fx, T_IDX, k, "REMOVE gsk", NULL, NULL, DDB_RETURN_NONE, &res, err));
    expect_caps(&res, 6, 3, 3, 0, 0);
    expect_clean(fx, T_IDX, 1, 2);
    assert_string_equal(query_index(fx, T_IDX, "Gsi1", "h"), "");
    /* remove the LSI key and the filler: 3 for the table (the old size), 1 for Lsi1 */
    EXPECT_RC(DDB_OK, update(fx, T_IDX, k, "REMOVE lsk, filler", NULL, NULL, DDB_RETURN_NONE, &res, err));
    expect_caps(&res, 4, 3, 0, 0, 1);
    expect_clean(fx, T_IDX, 1, 1);
    /* DeleteItem removes the last entry */
    EXPECT_RC(DDB_OK, del(fx, T_IDX, k, NULL, NULL, DDB_RETURN_NONE, &res, err));
    expect_caps(&res, 2, 1, 0, 1, 0);
    expect_clean(fx, T_IDX, 0, 0);
}

/* A PutItem that replaces an item moves its entries the same way. */
static void test_index_follows_puts(void **state)
{
    ops_fx *fx = *state;
    ddb_write_result res;
    EXPECT_RC(DDB_OK,
              put(fx, T_IDX, J(fx, "{'pk':{'S':'p'},'sk':{'S':'1'},'gpk':{'S':'g'},'gsk':{'N':'1'},'kpk':{'S':'k'}}"),
                  NULL, NULL, DDB_RETURN_NONE, &res, err));
    expect_caps(&res, 3, 1, 1, 1, 0);
    EXPECT_RC(DDB_OK,
              put(fx, T_IDX, J(fx, "{'pk':{'S':'p'},'sk':{'S':'1'},'gpk':{'S':'g'},'gsk':{'N':'2'},'lsk':{'S':'l'}}"),
                  NULL, NULL, DDB_RETURN_NONE, &res, err));
    expect_caps(&res, 5, 1, 2, 1, 1);
    expect_clean(fx, T_IDX, 1, 2);
    assert_string_equal(query_index(fx, T_IDX, "Gsi2", "k"), "");
    assert_string_equal(query_index(fx, T_IDX, "Lsi1", "p"),
                        "{\"lsk\":{\"S\":\"l\"},\"pk\":{\"S\":\"p\"},\"sk\":{\"S\":\"1\"}}\n");
}

/* API_Query, Select: ALL_ATTRIBUTES on an INCLUDE local index fetches each
 * item from the table (read units on the table), and so does a projection
 * naming an attribute the index does not hold; a KEYS_ONLY global index
 * refuses ALL_ATTRIBUTES in DynamoDB's words (it cannot fetch). */
static void test_index_select_all(void **state)
{
    ops_fx *fx = *state;
    EXPECT_RC(DDB_OK, put(fx, T_IDX,
                          J(fx, "{'pk':{'S':'p'},'sk':{'S':'1'},'lsk':{'S':'l'},'inc':{'N':'1'},'extra':{'S':'x'},"
                                "'kpk':{'S':'k'}}"),
                          NULL, NULL, DDB_RETURN_NONE, NULL, err));
    ddb_query_params q = {.table = T_IDX, .index = "Lsi1", .pk = ddb_v_str(fx->a, "p"),
                          .return_capacity = DDB_CAPACITY_INDEXES};
    ddb_page pg;
    EXPECT_RC(DDB_OK, ddb_query(fx->db, &q, fx->a, &pg, err));
    assert_int_equal(pg.count, 1);
    assert_null(ddb_item_get(pg.items[0], "extra"));
    assert_true(pg.capacity.table_read == 0);
    q.select_all = true;
    EXPECT_RC(DDB_OK, ddb_query(fx->db, &q, fx->a, &pg, err));
    assert_non_null(ddb_item_get(pg.items[0], "extra"));
    assert_non_null(ddb_item_get(pg.items[0], "kpk"));
    expect_units(pg.capacity.table_read, 0.5);
    q.select_all = false;
    q.projection = PRJ(fx, "sk, extra");
    EXPECT_RC(DDB_OK, ddb_query(fx->db, &q, fx->a, &pg, err));
    assert_string_equal(dump(fx, pg.items[0]), "{\"extra\":{\"S\":\"x\"},\"sk\":{\"S\":\"1\"}}");
    q.projection = PRJ(fx, "sk, inc"); /* inc is projected: no fetch */
    EXPECT_RC(DDB_OK, ddb_query(fx->db, &q, fx->a, &pg, err));
    assert_true(pg.capacity.table_read == 0);
    ddb_scan_params sc = {.table = T_IDX, .index = "Lsi1", .select_all = true};
    EXPECT_RC(DDB_OK, ddb_scan(fx->db, &sc, fx->a, &pg, err));
    assert_int_equal(pg.count, 1);
    assert_non_null(ddb_item_get(pg.items[0], "extra"));
    ddb_query_params g = {.table = T_IDX, .index = "Gsi2", .pk = ddb_v_str(fx->a, "k"), .select_all = true};
    EXPECT_ERR(DDB_EVALIDATION,
               "One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not supported for global "
               "secondary index Gsi2 because its projection type is not ALL",
               ddb_query(fx->db, &g, fx->a, &pg, err));
}

/* Writes refused because of an index key leave every index untouched. */
static void test_index_refusals(void **state)
{
    ops_fx *fx = *state;
    ddb_write_result res;
    ddb_item *k = K(fx, "p", "1");
    EXPECT_RC(DDB_OK, put(fx, T_IDX,
                          J(fx, "{'pk':{'S':'p'},'sk':{'S':'1'},'gpk':{'S':'g'},'gsk':{'N':'1'},'kpk':{'S':'k'},"
                                "'lsk':{'S':'l'},'inc':{'N':'0'}}"),
                          NULL, NULL, DDB_RETURN_NONE, &res, err));
    const char *before = table_state(fx, T_IDX);
    EXPECT_ERR(DDB_EVALIDATION, "Type mismatch for Index Key gsk Expected: N Actual: S IndexName: ",
               update(fx, T_IDX, k, "SET gsk = :s", NULL, "{':s':{'S':'1'}}", DDB_RETURN_NONE, &res, err));
    EXPECT_ERR(DDB_EVALIDATION, "The AttributeValue for a key attribute cannot contain an empty string value",
               update(fx, T_IDX, k, "SET kpk = :e", NULL, "{':e':{'S':''}}", DDB_RETURN_NONE, &res, err));
    EXPECT_ERR(DDB_EVALIDATION,
               "Key attributes must be scalars; list random access '[]' and map lookup '.' are not "
               "allowed: IndexKey: gpk",
               update(fx, T_IDX, k, "SET gpk.x = :v", NULL, "{':v':{'S':'x'}}", DDB_RETURN_NONE, &res, err));
    /* a failed condition: no entry moves; 1 WCU for the table only */
    EXPECT_RC(DDB_ECONDITION, update(fx, T_IDX, k, "SET gsk = :n REMOVE kpk, lsk", "inc = :one",
                                     "{':n':{'N':'9'},':one':{'N':'1'}}", DDB_RETURN_NONE, &res, err));
    expect_caps(&res, 1, 1, 0, 0, 0);
    EXPECT_RC(DDB_ECONDITION, put(fx, T_IDX, J(fx, "{'pk':{'S':'p'},'sk':{'S':'1'}}"), "attribute_not_exists(pk)", NULL,
                                  DDB_RETURN_NONE, &res, err));
    EXPECT_RC(DDB_ECONDITION, del(fx, T_IDX, k, "attribute_not_exists(gsk)", NULL, DDB_RETURN_NONE, &res, err));
    assert_string_equal(table_state(fx, T_IDX), before);
    expect_clean(fx, T_IDX, 1, 3);
}

const struct CMUnitTest ops_index_tests[] = {
    cmocka_unit_test_setup_teardown(test_index_follows_updates, ops_setup, ops_teardown),
    cmocka_unit_test_setup_teardown(test_index_follows_puts, ops_setup, ops_teardown),
    cmocka_unit_test_setup_teardown(test_index_refusals, ops_setup, ops_teardown),
    cmocka_unit_test_setup_teardown(test_index_select_all, ops_setup, ops_teardown),
};
const size_t ops_index_count = sizeof ops_index_tests / sizeof *ops_index_tests;
