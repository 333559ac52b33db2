/* BatchWriteItem and BatchGetItem.
 *
 * Matched: the API reference (at most 25 put/delete requests and 100 keys,
 * no two on the same item: "Provided list of item keys contains
 * duplicates"; a request that fails validation writes nothing); capacity
 * per the developer guide: each item of a batch is charged as its own
 * PutItem/DeleteItem/GetItem, so BatchGetItem of a 1.5 KB and a 6.5 KB item
 * costs (4 KB + 8 KB) / 4 KB = 3 RCU, strongly consistent.  A key with no
 * item costs the minimum read (dynalite: 1 RCU, 0.5 eventually consistent).
 * The embedded engine processes every request (no UnprocessedItems). */
#include "ops_util.h"

#include <stdio.h>
#include <string.h>

static ddb_item *item_n(ops_fx *fx, const char *pk, int i, size_t size, bool gsi)
{
    char j[160];
    snprintf(j, sizeof j, "{'pk':{'S':'%s'},'sk':{'S':'%03d'}%s}", pk, i,
             gsi ? ",'gpk':{'S':'g'},'gsk':{'N':'1'}" : "");
    ddb_item *it = sized(fx, j, size);
    return it;
}

static ddb_item *key_n(ops_fx *fx, const char *pk, int i)
{
    char s[16];
    snprintf(s, sizeof s, "%03d", i);
    return K(fx, pk, s);
}

static void test_batch_write(void **state)
{
    ops_fx *fx = *state;
    /* five 1.5 KB items to delete */
    for (int i = 0; i < 5; i++)
        EXPECT_RC(DDB_OK, put(fx, T_OPS, item_n(fx, "old", i, 1536, false), NULL, NULL, DDB_RETURN_NONE, NULL, err));
    ddb_batch_write_op ops[26];
    size_t n = 0;
    for (int i = 0; i < 10; i++) /* 1 KB items that enter Gsi1: 1 + 1 WCU */
        ops[n++] = (ddb_batch_write_op){T_IDX, item_n(fx, "p", i, 1024, true), NULL};
    for (int i = 0; i < 10; i++) /* 2 KB items: 2 WCU */
        ops[n++] = (ddb_batch_write_op){T_OPS, item_n(fx, "p", i, 2048, false), NULL};
    for (int i = 0; i < 5; i++) /* deletes of 1.5 KB items: 2 WCU */
        ops[n++] = (ddb_batch_write_op){T_OPS, NULL, key_n(fx, "old", i)};
    assert_int_equal(n, 25);
    ddb_capacity cap;
    EXPECT_RC(DDB_OK, ddb_batch_write(fx->db, ops, n, DDB_CAPACITY_INDEXES, &cap, err));
    expect_units(cap.total, 50);
    expect_units(cap.write, 50);
    expect_units(cap.table_write, 40);
    expect_units(idx_write(&cap, "Gsi1"), 10);
    expect_clean(fx, T_IDX, 10, 10);
    expect_clean(fx, T_OPS, 10, 0);
    assert_int_equal(ddb_item_size(get(fx, T_IDX, key_n(fx, "p", 9))), 1024);
    expect_stored(fx, T_OPS, key_n(fx, "old", 0), NULL);

    /* the same key in two tables is two items; a delete of an absent item costs 1 */
    ddb_batch_write_op two[] = {
        {T_OPS, NULL, key_n(fx, "p", 0)}, {T_IDX, NULL, key_n(fx, "p", 0)}, {T_OPS, NULL, key_n(fx, "none", 0)}};
    EXPECT_RC(DDB_OK, ddb_batch_write(fx->db, two, 3, DDB_CAPACITY_TOTAL, &cap, err));
    expect_units(cap.total, 2 + 2 + 1); /* 2 KB item, 1 KB item + its Gsi1 entry, absent item */
    expect_clean(fx, T_IDX, 9, 9);
    expect_clean(fx, T_OPS, 9, 0);
}

/* Every refusal is decided before anything is written. */
static void test_batch_write_refusals(void **state)
{
    ops_fx *fx = *state;
    for (int i = 0; i < 3; i++)
        EXPECT_RC(DDB_OK, put(fx, T_IDX, item_n(fx, "p", i, 100, true), NULL, NULL, DDB_RETURN_NONE, NULL, err));
    const char *before = table_state(fx, T_IDX), *before_ops = table_state(fx, T_OPS);
    ddb_batch_write_op ops[26];
    for (int i = 0; i < 26; i++)
        ops[i] = (ddb_batch_write_op){T_IDX, item_n(fx, "new", i, 100, true), NULL};
    ddb_capacity cap;
    /* DynamoDB's words: over 25 for one table breaks the request model's
     * constraint, over 25 in all is "Too many items"; none at all breaks
     * RequestItems' minimum length (tests/conformance/cases/23-limits-messages.json) */
    EXPECT_ERR(DDB_ELIMIT,
               "1 validation error detected: Value '{Idx=[26 write requests]}' at 'requestItems' failed to satisfy "
               "constraint: Map value must satisfy constraint: [Member must have length less than or equal to 25",
               ddb_batch_write(fx->db, ops, 26, DDB_CAPACITY_TOTAL, &cap, err));
    for (int i = 13; i < 26; i++)
        ops[i].table = T_OPS;
    EXPECT_ERR(DDB_ELIMIT, "Too many items requested for the BatchWriteItem call", ddb_batch_write(fx->db, ops, 26, DDB_CAPACITY_TOTAL, &cap, err));
    for (int i = 13; i < 26; i++)
        ops[i].table = T_IDX;
    EXPECT_ERR(DDB_EVALIDATION,
               "1 validation error detected: Value '{}' at 'requestItems' failed to satisfy constraint: Member must "
               "have length greater than or equal to 1",
               ddb_batch_write(fx->db, ops, 0, DDB_CAPACITY_TOTAL, &cap, err));
    /* a put and a delete of one item */
    ops[3] = (ddb_batch_write_op){T_IDX, NULL, key_n(fx, "new", 1)};
    EXPECT_ERR(DDB_EVALIDATION, "Provided list of item keys contains duplicates",
               ddb_batch_write(fx->db, ops, 5, DDB_CAPACITY_TOTAL, &cap, err));
    /* one bad request (a missing sort key; an index key of the wrong type;
     * an item over 400 KB) refuses the whole batch */
    ops[3] = (ddb_batch_write_op){T_IDX, J(fx, "{'pk':{'S':'x'}}"), NULL};
    EXPECT_ERR(DDB_EVALIDATION, "Missing the key sk", ddb_batch_write(fx->db, ops, 5, DDB_CAPACITY_TOTAL, &cap, err));
    ops[3] = (ddb_batch_write_op){T_IDX, J(fx, "{'pk':{'S':'x'},'sk':{'S':'x'},'gsk':{'S':'x'}}"), NULL};
    EXPECT_ERR(DDB_EVALIDATION, "Type mismatch for Index Key gsk",
               ddb_batch_write(fx->db, ops, 5, DDB_CAPACITY_TOTAL, &cap, err));
    ops[3] = (ddb_batch_write_op){T_IDX, sized(fx, "{'pk':{'S':'x'},'sk':{'S':'x'}}", 409601), NULL};
    EXPECT_ERR(DDB_ELIMIT, "has exceeded the maximum allowed size",
               ddb_batch_write(fx->db, ops, 5, DDB_CAPACITY_TOTAL, &cap, err));
    ops[3] = (ddb_batch_write_op){T_OPS, item_n(fx, "p", 0, 100, false), item_n(fx, "p", 0, 100, false)};
    EXPECT_ERR(DDB_EVALIDATION, "exactly one of put and delete_key",
               ddb_batch_write(fx->db, ops, 5, DDB_CAPACITY_TOTAL, &cap, err));
    ops[3] = (ddb_batch_write_op){"Nope", item_n(fx, "p", 0, 100, false), NULL};
    EXPECT_RC(DDB_ENOTABLE, ddb_batch_write(fx->db, ops, 5, DDB_CAPACITY_TOTAL, &cap, err));
    assert_string_equal(table_state(fx, T_IDX), before);
    assert_string_equal(table_state(fx, T_OPS), before_ops);
}

static void test_batch_get(void **state)
{
    ops_fx *fx = *state;
    EXPECT_RC(DDB_OK,
              put(fx, T_OPS, sized(fx, "{'pk':{'S':'a'},'sk':{'S':'1'},'m':{'M':{'x':{'N':'1'},'y':{'N':'2'}}}}", 1536),
                  NULL, NULL, DDB_RETURN_NONE, NULL, err));
    EXPECT_RC(DDB_OK, put(fx, T_OPS, sized(fx, "{'pk':{'S':'b'},'sk':{'S':'1'}}", 6656), NULL, NULL, DDB_RETURN_NONE,
                          NULL, err));
    EXPECT_RC(DDB_OK,
              put(fx, T_HASH, J(fx, "{'pk':{'S':'a'},'v':{'S':'hash'}}"), NULL, NULL, DDB_RETURN_NONE, NULL, err));
    ddb_batch_get_op ops[] = {
        {T_OPS, K(fx, "b", "1"), true, NULL},
        {T_OPS, K(fx, "missing", "1"), true, NULL},
        {T_OPS, K(fx, "a", "1"), true, PRJ(fx, "m.y, sk")},
        {T_HASH, J(fx, "{'pk':{'S':'a'}}"), true, NULL},
    };
    ddb_item *items[4];
    ddb_capacity cap;
    EXPECT_RC(DDB_OK, ddb_batch_get(fx->db, ops, 4, fx->a, items, DDB_CAPACITY_INDEXES, &cap, err));
    assert_int_equal(ddb_item_size(items[0]), 6656);
    expect_item(fx, items[1], NULL);
    expect_item(fx, items[2], "{'sk':{'S':'1'},'m':{'M':{'y':{'N':'2'}}}}");
    expect_item(fx, items[3], "{'pk':{'S':'a'},'v':{'S':'hash'}}");
    /* 8 KB + 4 KB (the projection does not reduce it) + 1 for the missing key + 1 */
    expect_units(cap.total, 2 + 1 + 1 + 1);
    expect_units(cap.read, 5);
    expect_units(cap.table_read, 5);
    expect_units(cap.write, 0);
    /* eventually consistent: half */
    for (int i = 0; i < 4; i++)
        ops[i].consistent = false;
    EXPECT_RC(DDB_OK, ddb_batch_get(fx->db, ops, 4, fx->a, items, DDB_CAPACITY_TOTAL, &cap, err));
    expect_units(cap.total, 2.5);
    /* the developer guide's example: 1.5 KB + 6.5 KB = 3 RCU */
    EXPECT_RC(DDB_OK, ddb_batch_get(fx->db,
                                    (ddb_batch_get_op[]){{T_OPS, K(fx, "a", "1"), true, NULL},
                                                         {T_OPS, K(fx, "b", "1"), true, NULL}},
                                    2, fx->a, items, DDB_CAPACITY_TOTAL, &cap, err));
    expect_units(cap.total, 3);
}

static void test_batch_get_limits(void **state)
{
    ops_fx *fx = *state;
    /* 100 items written 25 at a time */
    for (int b = 0; b < 4; b++) {
        ddb_batch_write_op w[25];
        for (int i = 0; i < 25; i++)
            w[i] = (ddb_batch_write_op){T_OPS, item_n(fx, "p", b * 25 + i, 100, false), NULL};
        EXPECT_RC(DDB_OK, ddb_batch_write(fx->db, w, 25, DDB_CAPACITY_NONE, NULL, err));
    }
    ddb_batch_get_op ops[101];
    ddb_item *items[101];
    for (int i = 0; i < 101; i++)
        ops[i] = (ddb_batch_get_op){T_OPS, key_n(fx, "p", i), false, NULL};
    ddb_capacity cap;
    EXPECT_RC(DDB_OK, ddb_batch_get(fx->db, ops, 100, fx->a, items, DDB_CAPACITY_TOTAL, &cap, err));
    for (int i = 0; i < 100; i++)
        assert_true(ddb_value_equal(ddb_item_map(items[i]), ddb_item_map(item_n(fx, "p", i, 100, false))));
    expect_units(cap.total, 50);
    /* 101 keys of one table: the request model's constraint, in DynamoDB's words */
    EXPECT_ERR(DDB_ELIMIT,
               "1 validation error detected: Value '[101 keys]' at 'requestItems.Ops.member.keys' failed to satisfy "
               "constraint: Member must have length less than or equal to 100",
               ddb_batch_get(fx->db, ops, 101, fx->a, items, DDB_CAPACITY_TOTAL, &cap, err));
    ops[7] = ops[3];
    EXPECT_ERR(DDB_EVALIDATION, "Provided list of item keys contains duplicates",
               ddb_batch_get(fx->db, ops, 10, fx->a, items, DDB_CAPACITY_TOTAL, &cap, err));
    ops[7] = (ddb_batch_get_op){T_OPS, J(fx, "{'pk':{'S':'p'},'sk':{'S':'007'},'x':{'S':'x'}}"), false, NULL};
    EXPECT_ERR(DDB_EVALIDATION, "The provided key element does not match the schema",
               ddb_batch_get(fx->db, ops, 10, fx->a, items, DDB_CAPACITY_TOTAL, &cap, err));
    EXPECT_ERR(DDB_EVALIDATION, "Value '{}' at 'requestItems' failed to satisfy constraint: Member must have length greater than or equal to 1", ddb_batch_get(fx->db, ops, 0, fx->a, items, DDB_CAPACITY_TOTAL, &cap, err));
}

const struct CMUnitTest ops_batch_tests[] = {
    cmocka_unit_test_setup_teardown(test_batch_write, ops_setup, ops_teardown),
    cmocka_unit_test_setup_teardown(test_batch_write_refusals, ops_setup, ops_teardown),
    cmocka_unit_test_setup_teardown(test_batch_get, ops_setup, ops_teardown),
    cmocka_unit_test_setup_teardown(test_batch_get_limits, ops_setup, ops_teardown),
};
const size_t ops_batch_count = sizeof ops_batch_tests / sizeof *ops_batch_tests;
