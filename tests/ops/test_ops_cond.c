/* Conditional PutItem, UpdateItem and DeleteItem.
 *
 * A false ConditionExpression is DDB_ECONDITION ("The conditional request
 * failed", DynamoDB's ConditionalCheckFailedException), writes nothing, and
 * still consumes write capacity as the developer guide says ("Capacity
 * units consumed by conditional writes"): 1 WCU when the item does not
 * exist, otherwise the size of the existing item in 1 KB units (whatever
 * the size of the item the request would have written).  DynamoDB does not
 * return ConsumedCapacity with the exception; the engine fills
 * res->capacity anyway and charges the partition. */
#include "ops_util.h"

#include <string.h>

static void test_cond_put_if_absent(void **state)
{
    ops_fx *fx = *state;
    ddb_write_result res;
    ddb_item *k = K(fx, "a", "1");
    const char *v1 = "{'pk':{'S':'a'},'sk':{'S':'1'},'v':{'N':'1'}}";
    EXPECT_RC(DDB_OK, put(fx, T_OPS, J(fx, v1), "attribute_not_exists(pk)", NULL, DDB_RETURN_NONE, &res, err));
    expect_units(res.capacity.total, 1);
    EXPECT_ERR(DDB_ECONDITION, "The conditional request failed",
               put(fx, T_OPS, J(fx, "{'pk':{'S':'a'},'sk':{'S':'1'},'v':{'N':'2'}}"), "attribute_not_exists(pk)", NULL,
                   DDB_RETURN_ALL_OLD, &res, err));
    expect_item(fx, res.attributes, NULL);
    expect_units(res.capacity.total, 1);
    expect_units(res.capacity.table_write, 1);
    expect_stored(fx, T_OPS, k, v1);

    /* a failed put against a 2,560-byte item costs 3 WCU, though the new item has 5,000 bytes */
    EXPECT_RC(DDB_OK, put(fx, T_OPS, sized(fx, "{'pk':{'S':'b'},'sk':{'S':'1'}}", 2560), NULL, NULL, DDB_RETURN_NONE,
                          &res, err));
    double before = table_write_units(fx, T_OPS);
    EXPECT_RC(DDB_ECONDITION, put(fx, T_OPS, sized(fx, "{'pk':{'S':'b'},'sk':{'S':'1'}}", 5000),
                                  "attribute_not_exists(pk)", NULL, DDB_RETURN_NONE, &res, err));
    expect_units(res.capacity.total, 3);
    expect_units(res.capacity.table_write, 3);
    expect_units(table_write_units(fx, T_OPS) - before, 3);
    assert_int_equal(ddb_item_size(get(fx, T_OPS, K(fx, "b", "1"))), 2560);

    /* a condition on an absent item: 1 WCU, nothing created */
    before = table_write_units(fx, T_OPS);
    EXPECT_RC(DDB_ECONDITION, put(fx, T_OPS, sized(fx, "{'pk':{'S':'c'},'sk':{'S':'1'}}", 5000), "attribute_exists(pk)",
                                  NULL, DDB_RETURN_NONE, &res, err));
    expect_units(res.capacity.total, 1);
    expect_units(table_write_units(fx, T_OPS) - before, 1);
    expect_stored(fx, T_OPS, K(fx, "c", "1"), NULL);
    expect_clean(fx, T_OPS, 2, 0);
}

static void test_cond_optimistic_locking(void **state)
{
    ops_fx *fx = *state;
    ddb_write_result res;
    ddb_item *k = K(fx, "a", "1");
    EXPECT_RC(DDB_OK, put(fx, T_OPS, J(fx, "{'pk':{'S':'a'},'sk':{'S':'1'},'ver':{'N':'1'},'d':{'S':'one'}}"), NULL,
                          NULL, DDB_RETURN_NONE, &res, err));
    const char *bump = "SET ver = ver + :one, d = :d";
    EXPECT_RC(DDB_OK,
              update(fx, T_OPS, k, bump, "ver = :expected", "{':one':{'N':'1'},':d':{'S':'two'},':expected':{'N':'1'}}",
                     DDB_RETURN_ALL_NEW, &res, err));
    expect_item(fx, res.attributes, "{'pk':{'S':'a'},'sk':{'S':'1'},'ver':{'N':'2'},'d':{'S':'two'}}");
    /* a second writer that read version 1 loses */
    EXPECT_ERR(DDB_ECONDITION, "The conditional request failed",
               update(fx, T_OPS, k, bump, "ver = :expected",
                      "{':one':{'N':'1'},':d':{'S':'lost'},':expected':{'N':'1'}}", DDB_RETURN_ALL_NEW, &res, err));
    expect_item(fx, res.attributes, NULL);
    expect_stored(fx, T_OPS, k, "{'pk':{'S':'a'},'sk':{'S':'1'},'ver':{'N':'2'},'d':{'S':'two'}}");
    /* an update whose condition fails on an absent item does not create it */
    EXPECT_RC(DDB_ECONDITION, update(fx, T_OPS, K(fx, "b", "1"), bump, "attribute_exists(pk)",
                                     "{':one':{'N':'1'},':d':{'S':'x'}}", DDB_RETURN_NONE, &res, err));
    expect_units(res.capacity.total, 1);
    expect_stored(fx, T_OPS, K(fx, "b", "1"), NULL);
    /* ... and one that requires absence creates it */
    EXPECT_RC(DDB_OK, update(fx, T_OPS, K(fx, "b", "1"), "SET ver = :one", "attribute_not_exists(ver)",
                             "{':one':{'N':'1'}}", DDB_RETURN_NONE, &res, err));
    expect_stored(fx, T_OPS, K(fx, "b", "1"), "{'pk':{'S':'b'},'sk':{'S':'1'},'ver':{'N':'1'}}");
    expect_clean(fx, T_OPS, 2, 0);
}

/* The condition sees the stored item (functions, nested paths, sets). */
static void test_cond_functions(void **state)
{
    ops_fx *fx = *state;
    ddb_write_result res;
    ddb_item *k = K(fx, "a", "1");
    const char *item = "{'pk':{'S':'a'},'sk':{'S':'1'},'s':{'S':'order#17'},'n':{'N':'5'},'ss':{'SS':['x','y']},"
                       "'m':{'M':{'a':{'L':[{'N':'1'},{'M':{'b':{'BOOL':true}}}]}}}}";
    EXPECT_RC(DDB_OK, put(fx, T_OPS, J(fx, item), NULL, NULL, DDB_RETURN_NONE, &res, err));
    const char *cond = "begins_with(s, :pre) AND n BETWEEN :lo AND :hi AND contains(ss, :x) AND size(ss) = :two "
                       "AND m.a[1].b = :t AND attribute_type(m.a, :L) AND NOT attribute_exists(m.a[2]) "
                       "AND s IN (:other, :s)";
    const char *vals = "{':pre':{'S':'order#'},':lo':{'N':'5'},':hi':{'N':'6'},':x':{'S':'x'},':two':{'N':'2'},"
                       "':t':{'BOOL':true},':L':{'S':'L'},':other':{'S':'z'},':s':{'S':'order#17'}}";
    EXPECT_RC(DDB_OK, update(fx, T_OPS, k, "SET ok = :t", cond, vals, DDB_RETURN_NONE, &res, err));
    /* the same with the upper bound one below n: false */
    const char *vals2 = "{':pre':{'S':'order#'},':lo':{'N':'1'},':hi':{'N':'4.99'},':x':{'S':'x'},':two':{'N':'2'},"
                        "':t':{'BOOL':true},':L':{'S':'L'},':other':{'S':'z'},':s':{'S':'order#17'}}";
    EXPECT_RC(DDB_ECONDITION, update(fx, T_OPS, k, "SET ok2 = :t", cond, vals2, DDB_RETURN_NONE, &res, err));
    /* comparing with a value of another type is false, not an error */
    EXPECT_RC(DDB_ECONDITION, del(fx, T_OPS, k, "n < :s", "{':s':{'S':'9'}}", DDB_RETURN_NONE, &res, err));
    EXPECT_RC(DDB_OK, del(fx, T_OPS, k, "n <> :s", "{':s':{'S':'9'}}", DDB_RETURN_NONE, &res, err));
    expect_clean(fx, T_OPS, 0, 0);
}

static void test_cond_delete(void **state)
{
    ops_fx *fx = *state;
    ddb_write_result res;
    ddb_item *k = K(fx, "a", "1");
    ddb_item *it = sized(fx, "{'pk':{'S':'a'},'sk':{'S':'1'},'st':{'S':'closed'}}", 1025);
    EXPECT_RC(DDB_OK, put(fx, T_OPS, it, NULL, NULL, DDB_RETURN_NONE, &res, err));
    expect_units(res.capacity.total, 2);
    EXPECT_RC(DDB_ECONDITION, del(fx, T_OPS, k, "st = :open", "{':open':{'S':'open'}}", DDB_RETURN_ALL_OLD, &res, err));
    expect_item(fx, res.attributes, NULL);
    expect_units(res.capacity.total, 2);
    assert_non_null(get(fx, T_OPS, k));
    EXPECT_RC(DDB_OK, del(fx, T_OPS, k, "st = :closed", "{':closed':{'S':'closed'}}", DDB_RETURN_ALL_OLD, &res, err));
    assert_true(ddb_value_equal(ddb_item_map(res.attributes), ddb_item_map(it)));
    expect_units(res.capacity.total, 2);
    expect_stored(fx, T_OPS, k, NULL);
    /* deleting an absent item: a condition on it fails (1 WCU); without one it succeeds (1 WCU) */
    EXPECT_RC(DDB_ECONDITION, del(fx, T_OPS, k, "attribute_exists(pk)", NULL, DDB_RETURN_NONE, &res, err));
    expect_units(res.capacity.total, 1);
    EXPECT_RC(DDB_OK, del(fx, T_OPS, k, "attribute_not_exists(pk)", NULL, DDB_RETURN_NONE, &res, err));
    expect_units(res.capacity.total, 1);
    expect_clean(fx, T_OPS, 0, 0);
}

/* Requests refused before anything is read: nothing is charged. */
static void test_cond_request_errors(void **state)
{
    ops_fx *fx = *state;
    ddb_write_result res;
    ddb_item *k = K(fx, "a", "1");
    EXPECT_RC(DDB_OK, put(fx, T_OPS, J(fx, "{'pk':{'S':'a'},'sk':{'S':'1'}}"), NULL, NULL, DDB_RETURN_NONE, &res, err));
    double before = table_write_units(fx, T_OPS);
    EXPECT_ERR(DDB_EVALIDATION, "An expression attribute value used in expression is not defined",
               put(fx, T_OPS, k, "pk = :nope", "{':v':{'S':'x'}}", DDB_RETURN_NONE, &res, err));
    EXPECT_ERR(DDB_EVALIDATION, "ExpressionAttributeValues can only be specified when using expressions",
               put(fx, T_OPS, k, NULL, "{':v':{'S':'x'}}", DDB_RETURN_NONE, &res, err));
    EXPECT_ERR(DDB_EVALIDATION, "Value provided in ExpressionAttributeValues unused in expressions",
               put(fx, T_OPS, k, "attribute_exists(pk)", "{':v':{'S':'x'}}", DDB_RETURN_NONE, &res, err));
    EXPECT_ERR(DDB_EINVAL, "not a ConditionExpression",
               ddb_put_item(fx->db, T_OPS, k, &(ddb_write_opts){.condition = FLT(fx, "attribute_exists(pk)")}, NULL,
                            NULL, err));
    expect_units(table_write_units(fx, T_OPS), before);
}

const struct CMUnitTest ops_cond_tests[] = {
    cmocka_unit_test_setup_teardown(test_cond_put_if_absent, ops_setup, ops_teardown),
    cmocka_unit_test_setup_teardown(test_cond_optimistic_locking, ops_setup, ops_teardown),
    cmocka_unit_test_setup_teardown(test_cond_functions, ops_setup, ops_teardown),
    cmocka_unit_test_setup_teardown(test_cond_delete, ops_setup, ops_teardown),
    cmocka_unit_test_setup_teardown(test_cond_request_errors, ops_setup, ops_teardown),
};
const size_t ops_cond_count = sizeof ops_cond_tests / sizeof *ops_cond_tests;
