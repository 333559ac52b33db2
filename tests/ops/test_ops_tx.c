/* TransactWriteItems and TransactGetItems.
 *
 * Matched: the API reference and the developer guide ("Amazon DynamoDB
 * Transactions: How it works"): up to 100 actions on distinct items, at
 * most 4 MB, all or nothing; a failed condition cancels the transaction
 * (TransactionCanceledException) with one reason per action in request
 * order ("None", "ConditionalCheckFailed", ...), the message listing them
 * as "Transaction cancelled, please refer cancellation reasons for specific
 * reasons [None, ConditionalCheckFailed]"; two actions on one item are a
 * ValidationException, not a cancellation.  Capacity: every item is read
 * or written twice (prepare and commit), so 2 WCU per 1 KB written (also
 * for index entries) and 2 RCU per 4 KB read, a missing item included.  A
 * ConditionCheck is charged as a write of the checked item (2 WCU per 1 KB
 * of it, 2 when absent), and a cancelled transaction reports no consumed
 * capacity: both as measured against DynamoDB by the dynamodb-conformance
 * suite (paritysuite/dynamodb-conformance#67).  dynalite 3.2.2 has no
 * transactions, so nothing there to compare. */
#include "ops_util.h"

#include <stdio.h>
#include <string.h>

static ddb_item *key_n(ops_fx *fx, const char *pk, int i)
{
    char s[16];
    snprintf(s, sizeof s, "%03d", i);
    return K(fx, pk, s);
}

static ddb_item *item_n(ops_fx *fx, const char *pk, int i, size_t size)
{
    char j[128];
    snprintf(j, sizeof j, "{'pk':{'S':'%s'},'sk':{'S':'%03d'}}", pk, i);
    return sized(fx, j, size);
}

/* The example: 10 items of 1 KB in one transaction cost 20 WCU. */
static void test_tx_capacity(void **state)
{
    ops_fx *fx = *state;
    ddb_tx_op ops[10];
    for (int i = 0; i < 10; i++)
        ops[i] = (ddb_tx_op){DDB_TX_PUT, T_OPS, item_n(fx, "p", i, 1024), NULL, NULL, NULL, DDB_RETURN_NONE};
    ddb_tx_result res;
    EXPECT_RC(DDB_OK, ddb_transact_write(fx->db, ops, 10, DDB_CAPACITY_INDEXES, fx->a, &res, err));
    expect_units(res.capacity.total, 20);
    expect_units(res.capacity.table_write, 20);
    expect_units(table_write_units(fx, T_OPS), 20);
    for (int i = 0; i < 10; i++)
        assert_int_equal(res.reasons[i], 0);
    expect_clean(fx, T_OPS, 10, 0);
    /* index entries count double too: a 1 KB item entering Gsi1 (ALL) */
    ddb_item *gsi_item = sized(fx, "{'pk':{'S':'p'},'sk':{'S':'1'},'gpk':{'S':'g'},'gsk':{'N':'1'}}", 1024);
    ddb_tx_op one = {DDB_TX_PUT, T_IDX, gsi_item, NULL, NULL, NULL, DDB_RETURN_NONE};
    EXPECT_RC(DDB_OK, ddb_transact_write(fx->db, &one, 1, DDB_CAPACITY_INDEXES, fx->a, &res, err));
    expect_units(res.capacity.total, 4);
    expect_units(res.capacity.table_write, 2);
    expect_units(idx_write(&res.capacity, "Gsi1"), 2);
    /* a 2.5 KB item updated to 1 KB: 3 WCU, 6 in a transaction */
    EXPECT_RC(DDB_OK, put(fx, T_OPS, item_n(fx, "big", 0, 2560), NULL, NULL, DDB_RETURN_NONE, NULL, err));
    ddb_item *v = ddb_item_new(fx->a);
    ddb_item_set_s(v, ":small", "small");
    const ddb_expr *set_pad = XN(fx, DDB_EXPR_UPDATE, "SET #p = :small", "{'#p':{'S':'pad'}}");
    ddb_tx_op shrink = {DDB_TX_UPDATE, T_OPS, key_n(fx, "big", 0), set_pad, NULL, v, DDB_RETURN_NONE};
    EXPECT_RC(DDB_OK, ddb_transact_write(fx->db, &shrink, 1, DDB_CAPACITY_TOTAL, fx->a, &res, err));
    expect_units(res.capacity.total, 6);
}

static void test_tx_all_kinds(void **state)
{
    ops_fx *fx = *state;
    EXPECT_RC(DDB_OK, put(fx, T_OPS, J(fx, "{'pk':{'S':'a'},'sk':{'S':'1'},'n':{'N':'1'}}"), NULL, NULL,
                          DDB_RETURN_NONE, NULL, err));
    EXPECT_RC(DDB_OK, put(fx, T_OPS, J(fx, "{'pk':{'S':'b'},'sk':{'S':'1'}}"), NULL, NULL, DDB_RETURN_NONE, NULL, err));
    EXPECT_RC(DDB_OK, put(fx, T_IDX, J(fx, "{'pk':{'S':'i'},'sk':{'S':'1'},'gpk':{'S':'g'},'gsk':{'N':'1'}}"), NULL,
                          NULL, DDB_RETURN_NONE, NULL, err));
    ddb_tx_op ops[] = {
        {DDB_TX_PUT, T_OPS, J(fx, "{'pk':{'S':'c'},'sk':{'S':'1'}}"), NULL, CND(fx, "attribute_not_exists(pk)"), NULL, DDB_RETURN_NONE},
        {DDB_TX_UPDATE, T_OPS, K(fx, "a", "1"), UPD(fx, "ADD n :one"), CND(fx, "n = :one"),
         J(fx, "{':one':{'N':'1'}}"), DDB_RETURN_NONE},
        {DDB_TX_DELETE, T_OPS, K(fx, "b", "1"), NULL, NULL, NULL, DDB_RETURN_NONE},
        {DDB_TX_CHECK, T_HASH, J(fx, "{'pk':{'S':'none'}}"), NULL, CND(fx, "attribute_not_exists(pk)"), NULL, DDB_RETURN_NONE},
        {DDB_TX_UPDATE, T_IDX, K(fx, "i", "1"), UPD(fx, "SET gsk = :two"), NULL, J(fx, "{':two':{'N':'2'}}"), DDB_RETURN_NONE},
        {DDB_TX_UPDATE, T_OPS, K(fx, "new", "1"), UPD(fx, "SET v = :v"), NULL, J(fx, "{':v':{'S':'created'}}"), DDB_RETURN_NONE},
    };
    ddb_tx_result res;
    double hash_units = table_write_units(fx, T_HASH);
    EXPECT_RC(DDB_OK, ddb_transact_write(fx->db, ops, 6, DDB_CAPACITY_INDEXES, fx->a, &res, err));
    /* the ConditionCheck's 2 units are charged to its table's partition */
    expect_units(table_write_units(fx, T_HASH) - hash_units, 2);
    /* 2 per small item (6 items, the check included), Gsi1 moves: 2 writes, doubled */
    expect_units(res.capacity.total, 16);
    expect_units(res.capacity.table_write, 12);
    expect_units(idx_write(&res.capacity, "Gsi1"), 4);
    expect_stored(fx, T_OPS, K(fx, "a", "1"), "{'pk':{'S':'a'},'sk':{'S':'1'},'n':{'N':'2'}}");
    expect_stored(fx, T_OPS, K(fx, "b", "1"), NULL);
    expect_stored(fx, T_OPS, K(fx, "c", "1"), "{'pk':{'S':'c'},'sk':{'S':'1'}}");
    expect_stored(fx, T_OPS, K(fx, "new", "1"), "{'pk':{'S':'new'},'sk':{'S':'1'},'v':{'S':'created'}}");
    expect_stored(fx, T_HASH, J(fx, "{'pk':{'S':'none'}}"), NULL);
    assert_string_equal(query_index(fx, T_IDX, "Gsi1", "g"),
                        "{\"gpk\":{\"S\":\"g\"},\"gsk\":{\"N\":\"2\"},\"pk\":{\"S\":\"i\"},\"sk\":{\"S\":\"1\"}}\n");
    expect_clean(fx, T_OPS, 3, 0);
    expect_clean(fx, T_IDX, 1, 1);
    expect_clean(fx, T_HASH, 0, 0);
}

/* An update that only removes creates nothing on a missing item, inside a
 * transaction too (issue 11 item 15: DynamoDB's answer); it is still
 * charged as a write, doubled. */
static void test_tx_remove_only_update_of_missing_item(void **state)
{
    ops_fx *fx = *state;
    ddb_tx_op ops[] = {
        {DDB_TX_UPDATE, T_OPS, K(fx, "gone", "1"), UPD(fx, "REMOVE a, m.x"), NULL, NULL, DDB_RETURN_NONE},
        {DDB_TX_UPDATE, T_OPS, K(fx, "gone", "2"), UPD(fx, "DELETE s :s"), NULL, J(fx, "{':s':{'SS':['x']}}"), DDB_RETURN_NONE},
        {DDB_TX_UPDATE, T_OPS, K(fx, "made", "1"), UPD(fx, "REMOVE a SET v = :v"), NULL, J(fx, "{':v':{'N':'1'}}"), DDB_RETURN_NONE},
    };
    ddb_tx_result res;
    EXPECT_RC(DDB_OK, ddb_transact_write(fx->db, ops, 3, DDB_CAPACITY_TOTAL, fx->a, &res, err));
    expect_units(res.capacity.total, 6);
    expect_stored(fx, T_OPS, K(fx, "gone", "1"), NULL);
    expect_stored(fx, T_OPS, K(fx, "gone", "2"), NULL);
    expect_stored(fx, T_OPS, K(fx, "made", "1"), "{'pk':{'S':'made'},'sk':{'S':'1'},'v':{'N':'1'}}");
    expect_clean(fx, T_OPS, 1, 0);
}

/* A failing ConditionCheck cancels everything: every item and every index
 * entry stays as it was, and the reasons say which action failed. */
static void test_tx_cancel_leaves_everything(void **state)
{
    ops_fx *fx = *state;
    for (int i = 0; i < 4; i++) {
        char j[200];
        snprintf(j, sizeof j,
                 "{'pk':{'S':'p'},'sk':{'S':'%d'},'gpk':{'S':'g'},'gsk':{'N':'%d'},'kpk':{'S':'k%d'},'lsk':{'S':'l'},"
                 "'inc':{'N':'%d'}}",
                 i, i, i, i);
        EXPECT_RC(DDB_OK, put(fx, T_IDX, J(fx, j), NULL, NULL, DDB_RETURN_NONE, NULL, err));
        EXPECT_RC(DDB_OK, put(fx, T_OPS, item_n(fx, "o", i, 300), NULL, NULL, DDB_RETURN_NONE, NULL, err));
    }
    const char *idx_before = table_state(fx, T_IDX), *ops_before = table_state(fx, T_OPS);
    double units_before = table_write_units(fx, T_IDX) + table_write_units(fx, T_OPS);
    ddb_tx_op ops[] = {
        {DDB_TX_PUT, T_IDX, J(fx, "{'pk':{'S':'p'},'sk':{'S':'9'},'gpk':{'S':'g'},'gsk':{'N':'9'},'kpk':{'S':'k9'}}"),
         NULL, NULL, NULL, DDB_RETURN_NONE},
        {DDB_TX_UPDATE, T_IDX, K(fx, "p", "0"), UPD(fx, "SET gsk = :n REMOVE kpk, lsk"), NULL,
         J(fx, "{':n':{'N':'100'}}"), DDB_RETURN_NONE},
        {DDB_TX_DELETE, T_IDX, K(fx, "p", "1"), NULL, NULL, NULL, DDB_RETURN_NONE},
        {DDB_TX_DELETE, T_OPS, key_n(fx, "o", 0), NULL, NULL, NULL, DDB_RETURN_NONE},
        {DDB_TX_CHECK, T_IDX, K(fx, "p", "2"), NULL, CND(fx, "inc = :zero"), J(fx, "{':zero':{'N':'0'}}"), DDB_RETURN_NONE},
        {DDB_TX_UPDATE, T_OPS, key_n(fx, "o", 1), UPD(fx, "SET x = :x"), CND(fx, "attribute_exists(pk)"),
         J(fx, "{':x':{'S':'x'}}"), DDB_RETURN_NONE},
    };
    ddb_tx_result res;
    EXPECT_ERR(DDB_ECANCELED,
               "Transaction cancelled, please refer cancellation reasons for specific reasons [None, None, None, None, "
               "ConditionalCheckFailed, None]",
               ddb_transact_write(fx->db, ops, 6, DDB_CAPACITY_INDEXES, fx->a, &res, err));
    int want[] = {0, 0, 0, 0, DDB_ECONDITION, 0};
    for (int i = 0; i < 6; i++)
        assert_int_equal(res.reasons[i], want[i]);
    expect_units(res.capacity.total, 0);
    assert_string_equal(table_state(fx, T_IDX), idx_before);
    assert_string_equal(table_state(fx, T_OPS), ops_before);
    expect_clean(fx, T_IDX, 4, 12);
    expect_clean(fx, T_OPS, 4, 0);
    /* nothing was applied, so no partition was charged a write */
    expect_units(table_write_units(fx, T_IDX) + table_write_units(fx, T_OPS), units_before);
    /* the same transaction with a true check goes through */
    ops[4].values = J(fx, "{':zero':{'N':'2'}}");
    EXPECT_RC(DDB_OK, ddb_transact_write(fx->db, ops, 6, DDB_CAPACITY_INDEXES, fx->a, &res, err));
    expect_clean(fx, T_IDX, 4, 3 + 3 + 2 + 1); /* p/2, p/3 in 3 indexes; p/9 in Gsi1, Gsi2; p/0 in Gsi1 */
    expect_clean(fx, T_OPS, 3, 0);
    expect_stored(fx, T_IDX, K(fx, "p", "1"), NULL);
}

/* Several failures at once: one reason each, in request order. */
static void test_tx_reasons(void **state)
{
    ops_fx *fx = *state;
    EXPECT_RC(DDB_OK, put(fx, T_OPS, J(fx, "{'pk':{'S':'a'},'sk':{'S':'1'},'s':{'S':'text'}}"), NULL, NULL,
                          DDB_RETURN_NONE, NULL, err));
    const char *before = table_state(fx, T_OPS);
    ddb_tx_op ops[] = {
        {DDB_TX_PUT, T_OPS, J(fx, "{'pk':{'S':'a'},'sk':{'S':'1'}}"), NULL, CND(fx, "attribute_not_exists(pk)"), NULL, DDB_RETURN_NONE},
        {DDB_TX_PUT, T_OPS, J(fx, "{'pk':{'S':'b'},'sk':{'S':'1'}}"), NULL, NULL, NULL, DDB_RETURN_NONE},
        {DDB_TX_UPDATE, T_OPS, K(fx, "c", "1"), UPD(fx, "ADD s :one"), NULL, J(fx, "{':one':{'N':'1'}}"), DDB_RETURN_NONE},
        {DDB_TX_CHECK, T_OPS, K(fx, "d", "1"), NULL, CND(fx, "attribute_exists(pk)"), NULL, DDB_RETURN_NONE},
        {DDB_TX_UPDATE, T_OPS, K(fx, "e", "1"), UPD(fx, "SET s = s + :one"), NULL, J(fx, "{':one':{'N':'1'}}"), DDB_RETURN_NONE},
    };
    /* the ADD on a new item succeeds (s starts at 0); SET s = s + 1 on an
     * absent s is a ValidationError of that action */
    ddb_tx_result res;
    EXPECT_ERR(DDB_ECANCELED, "[ConditionalCheckFailed, None, None, ConditionalCheckFailed, ValidationError]",
               ddb_transact_write(fx->db, ops, 5, DDB_CAPACITY_TOTAL, fx->a, &res, err));
    int want[] = {DDB_ECONDITION, 0, 0, DDB_ECONDITION, DDB_EVALIDATION};
    for (int i = 0; i < 5; i++)
        assert_int_equal(res.reasons[i], want[i]);
    assert_string_equal(table_state(fx, T_OPS), before);
    /* an update that grows an item past 400 KB cancels with a validation
     * reason (the developer guide: "When an item size becomes too large
     * (larger than 400 KB) ... because of changes made by the transaction") */
    EXPECT_RC(DDB_OK, put(fx, T_OPS, item_n(fx, "big", 0, 409600), NULL, NULL, DDB_RETURN_NONE, NULL, err));
    ddb_tx_op grow[] = {
        {DDB_TX_PUT, T_OPS, J(fx, "{'pk':{'S':'b'},'sk':{'S':'1'}}"), NULL, NULL, NULL, DDB_RETURN_NONE},
        {DDB_TX_UPDATE, T_OPS, key_n(fx, "big", 0), UPD(fx, "SET x = :x"), NULL, J(fx, "{':x':{'S':'x'}}"), DDB_RETURN_NONE},
    };
    EXPECT_ERR(DDB_ECANCELED, "[None, ValidationError]",
               ddb_transact_write(fx->db, grow, 2, DDB_CAPACITY_TOTAL, fx->a, &res, err));
    assert_int_equal(res.reasons[0], 0);
    assert_int_equal(res.reasons[1], DDB_ELIMIT);
    expect_stored(fx, T_OPS, K(fx, "b", "1"), NULL);
    /* a key of the wrong type cancels with that action's ValidationError,
     * whatever the action (ExtendDB's dual-target
     * tests/test_transaction_operations.py, measured on DynamoDB: Put,
     * Delete and Update with a key of the wrong type) */
    ddb_tx_op bad_key[] = {
        {DDB_TX_PUT, T_OPS, J(fx, "{'pk':{'S':'b'},'sk':{'S':'1'}}"), NULL, NULL, NULL, DDB_RETURN_NONE},
        {DDB_TX_DELETE, T_OPS, J(fx, "{'pk':{'N':'1'},'sk':{'S':'1'}}"), NULL, NULL, NULL, DDB_RETURN_NONE},
        {DDB_TX_PUT, T_OPS, J(fx, "{'pk':{'S':'c'},'sk':{'B':'AAAA'}}"), NULL, NULL, NULL, DDB_RETURN_NONE},
        {DDB_TX_UPDATE, T_OPS, J(fx, "{'pk':{'N':'2'},'sk':{'S':'1'}}"), UPD(fx, "SET x = :x"), NULL,
         J(fx, "{':x':{'S':'x'}}"), DDB_RETURN_NONE},
    };
    /* ... and only the first such action: DynamoDB validates every action
     * before it runs any and stops at the first error, the others "None"
     * (ScyllaDB test/alternator/test_transact.py::
     * test_transact_write_cancellation_reasons_validationerror) */
    EXPECT_ERR(DDB_ECANCELED, "[None, ValidationError, None, None]",
               ddb_transact_write(fx->db, bad_key, 4, DDB_CAPACITY_TOTAL, fx->a, &res, err));
    assert_int_equal(res.reasons[0], 0);
    assert_int_equal(res.reasons[1], DDB_EVALIDATION);
    assert_non_null(res.messages[1]);
    assert_null(res.messages[0]);
    assert_int_equal(res.reasons[3], 0);
    for (int i = 2; i < 4; i++) {
        EXPECT_ERR(DDB_ECANCELED, "[None, ValidationError]",
                   ddb_transact_write(fx->db, (ddb_tx_op[]){bad_key[0], bad_key[i]}, 2, DDB_CAPACITY_TOTAL, fx->a,
                                      &res, err));
    }
    expect_stored(fx, T_OPS, K(fx, "b", "1"), NULL);
}

/* Requests DynamoDB refuses as a whole (ValidationException). */
static void test_tx_refusals(void **state)
{
    ops_fx *fx = *state;
    const char *before = table_state(fx, T_OPS);
    ddb_tx_op ops[101];
    for (int i = 0; i < 101; i++)
        ops[i] = (ddb_tx_op){DDB_TX_PUT, T_OPS, item_n(fx, "p", i, 20), NULL, NULL, NULL, DDB_RETURN_NONE};
    ddb_tx_result res;
    EXPECT_ERR(DDB_ELIMIT, "at 'transactItems' failed to satisfy constraint: Member must have length less than or equal to 100", ddb_transact_write(fx->db, ops, 101, DDB_CAPACITY_TOTAL, fx->a, &res, err));
    EXPECT_ERR(DDB_EVALIDATION, "1 validation error detected: Value '[]' at 'transactItems' failed to satisfy constraint: Member must have length greater than or equal to 1",
               ddb_transact_write(fx->db, ops, 0, DDB_CAPACITY_TOTAL, fx->a, &res, err));
    /* a ConditionCheck and an Update of one item */
    ops[5] = (ddb_tx_op){DDB_TX_CHECK, T_OPS, key_n(fx, "p", 2), NULL, CND(fx, "attribute_exists(pk)"), NULL, DDB_RETURN_NONE};
    EXPECT_ERR(DDB_EVALIDATION, "Transaction request cannot include multiple operations on one item",
               ddb_transact_write(fx->db, ops, 10, DDB_CAPACITY_TOTAL, fx->a, &res, err));
    ops[5] = (ddb_tx_op){DDB_TX_CHECK, T_OPS, key_n(fx, "p", 5), NULL, NULL, NULL, DDB_RETURN_NONE};
    EXPECT_ERR(DDB_EVALIDATION, "has no ConditionExpression",
               ddb_transact_write(fx->db, ops, 10, DDB_CAPACITY_TOTAL, fx->a, &res, err));
    ops[5] = (ddb_tx_op){DDB_TX_UPDATE, T_OPS, key_n(fx, "p", 5), NULL, NULL, NULL, DDB_RETURN_NONE};
    EXPECT_ERR(DDB_EVALIDATION, "has no UpdateExpression",
               ddb_transact_write(fx->db, ops, 10, DDB_CAPACITY_TOTAL, fx->a, &res, err));
    ops[5] = (ddb_tx_op){DDB_TX_DELETE, T_OPS, J(fx, "{'pk':{'S':'p'}}"), NULL, NULL, NULL, DDB_RETURN_NONE};
    EXPECT_ERR(DDB_EVALIDATION, "The provided key element does not match the schema",
               ddb_transact_write(fx->db, ops, 10, DDB_CAPACITY_TOTAL, fx->a, &res, err));
    /* what the request alone shows to be wrong is a ValidationException of
     * the whole request, as for PutItem/UpdateItem, not a cancellation */
    ops[5] =
        (ddb_tx_op){DDB_TX_UPDATE, T_OPS, key_n(fx, "p", 5), UPD(fx, "SET sk = :v"), NULL, J(fx, "{':v':{'S':'v'}}"), DDB_RETURN_NONE};
    EXPECT_ERR(DDB_EVALIDATION, "Cannot update attribute sk. This attribute is part of the key",
               ddb_transact_write(fx->db, ops, 10, DDB_CAPACITY_TOTAL, fx->a, &res, err));
    assert_int_equal(res.reasons[5], 0); /* reasons are only given with DDB_ECANCELED */
    ops[5] = (ddb_tx_op){DDB_TX_PUT, T_OPS, item_n(fx, "p", 5, 409601), NULL, NULL, NULL, DDB_RETURN_NONE};
    EXPECT_ERR(DDB_ELIMIT, "Item size has exceeded the maximum allowed size (item of 409601 bytes",
               ddb_transact_write(fx->db, ops, 10, DDB_CAPACITY_TOTAL, fx->a, &res, err));
    ops[5] = (ddb_tx_op){DDB_TX_PUT, T_IDX, J(fx, "{'pk':{'S':'p'},'sk':{'S':'1'},'gpk':{'N':'1'}}"), NULL, NULL, NULL, DDB_RETURN_NONE};
    EXPECT_ERR(DDB_EVALIDATION, "Type mismatch for Index Key gpk",
               ddb_transact_write(fx->db, ops, 10, DDB_CAPACITY_TOTAL, fx->a, &res, err));
    ops[5] =
        (ddb_tx_op){DDB_TX_UPDATE, T_IDX, K(fx, "p", "1"), UPD(fx, "SET gsk.x = :v"), NULL, J(fx, "{':v':{'S':'v'}}"), DDB_RETURN_NONE};
    EXPECT_ERR(DDB_EVALIDATION, "Key attributes must be scalars",
               ddb_transact_write(fx->db, ops, 10, DDB_CAPACITY_TOTAL, fx->a, &res, err));
    assert_string_equal(table_state(fx, T_OPS), before);
    expect_clean(fx, T_IDX, 0, 0);
    /* 100 actions are allowed: 200 WCU for 100 small items */
    ops[5] = (ddb_tx_op){DDB_TX_PUT, T_OPS, item_n(fx, "p", 5, 20), NULL, NULL, NULL, DDB_RETURN_NONE};
    EXPECT_RC(DDB_OK, ddb_transact_write(fx->db, ops + 1, 100, DDB_CAPACITY_TOTAL, fx->a, &res, err));
    expect_units(res.capacity.total, 200);
    expect_clean(fx, T_OPS, 100, 0);
}

/* The 4 MB limit on the items of one transaction. */
static void test_tx_size_limit(void **state)
{
    ops_fx *fx = *state;
    ddb_tx_op ops[11];
    for (int i = 0; i < 11; i++)
        ops[i] = (ddb_tx_op){DDB_TX_PUT, T_OPS, item_n(fx, "big", i, 390000), NULL, NULL, NULL, DDB_RETURN_NONE};
    ddb_tx_result res;
    EXPECT_ERR(DDB_ELIMIT, "Transaction payload size cannot exceed 4 MB (4290000 bytes, at most 4194304)",
               ddb_transact_write(fx->db, ops, 11, DDB_CAPACITY_TOTAL, fx->a, &res, err));
    expect_clean(fx, T_OPS, 0, 0);
    EXPECT_RC(DDB_OK, ddb_transact_write(fx->db, ops, 10, DDB_CAPACITY_TOTAL, fx->a, &res, err));
    expect_units(res.capacity.total, 10 * 381 * 2); /* 390,000 bytes = 381 KB */
    expect_clean(fx, T_OPS, 10, 0);
    /* the same limit on what a TransactGetItems reads (API_TransactGetItems:
     * "DynamoDB rejects the entire TransactGetItems request if ... The
     * aggregate size of the items in the transaction exceeded 4 MB") */
    EXPECT_RC(DDB_OK, ddb_transact_write(fx->db, ops + 10, 1, DDB_CAPACITY_TOTAL, fx->a, &res, err));
    ddb_tx_get gets[11];
    ddb_item *items[11];
    ddb_capacity cap;
    for (int i = 0; i < 11; i++)
        gets[i] = (ddb_tx_get){T_OPS, key_n(fx, "big", i), NULL};
    EXPECT_ERR(DDB_ELIMIT, "Transaction payload size cannot exceed 4 MB (4290000 bytes, at most 4194304)",
               ddb_transact_get(fx->db, gets, 11, fx->a, items, DDB_CAPACITY_TOTAL, &cap, err));
    EXPECT_RC(DDB_OK, ddb_transact_get(fx->db, gets, 10, fx->a, items, DDB_CAPACITY_TOTAL, &cap, err));
    assert_int_equal(ddb_item_size(items[9]), 390000);
}

static void test_tx_get(void **state)
{
    ops_fx *fx = *state;
    EXPECT_RC(DDB_OK, put(fx, T_OPS, sized(fx, "{'pk':{'S':'a'},'sk':{'S':'1'},'m':{'M':{'x':{'N':'1'}}}}", 1024), NULL,
                          NULL, DDB_RETURN_NONE, NULL, err));
    EXPECT_RC(DDB_OK, put(fx, T_OPS, item_n(fx, "b", 0, 5120), NULL, NULL, DDB_RETURN_NONE, NULL, err));
    ddb_tx_get gets[] = {
        {T_OPS, K(fx, "a", "1"), PRJ(fx, "m.x")},
        {T_OPS, key_n(fx, "b", 0), NULL},
        {T_OPS, K(fx, "c", "1"), NULL},
    };
    ddb_item *items[3];
    ddb_capacity cap;
    EXPECT_RC(DDB_OK, ddb_transact_get(fx->db, gets, 3, fx->a, items, DDB_CAPACITY_INDEXES, &cap, err));
    expect_item(fx, items[0], "{'m':{'M':{'x':{'N':'1'}}}}");
    assert_int_equal(ddb_item_size(items[1]), 5120);
    expect_item(fx, items[2], NULL);
    /* 2 x (1 + 2 + 1): a transactional read is two strongly consistent reads */
    expect_units(cap.total, 8);
    expect_units(cap.table_read, 8);
    ddb_tx_get dup[] = {{T_OPS, K(fx, "a", "1"), NULL}, {T_OPS, K(fx, "a", "1"), NULL}};
    EXPECT_ERR(DDB_EVALIDATION, "Provided list of item keys contains duplicates",
               ddb_transact_get(fx->db, dup, 2, fx->a, items, DDB_CAPACITY_TOTAL, &cap, err));
    ddb_tx_get many[101];
    ddb_item *out[101];
    for (int i = 0; i < 101; i++)
        many[i] = (ddb_tx_get){T_OPS, key_n(fx, "m", i), NULL};
    EXPECT_ERR(DDB_ELIMIT, "at 'transactItems' failed to satisfy constraint: Member must have length less than or equal to 100",
               ddb_transact_get(fx->db, many, 101, fx->a, out, DDB_CAPACITY_TOTAL, &cap, err));
    EXPECT_RC(DDB_OK, ddb_transact_get(fx->db, many, 100, fx->a, out, DDB_CAPACITY_TOTAL, &cap, err));
    expect_units(cap.total, 200);
}

const struct CMUnitTest ops_tx_tests[] = {
    cmocka_unit_test_setup_teardown(test_tx_capacity, ops_setup, ops_teardown),
    cmocka_unit_test_setup_teardown(test_tx_all_kinds, ops_setup, ops_teardown),
    cmocka_unit_test_setup_teardown(test_tx_remove_only_update_of_missing_item, ops_setup, ops_teardown),
    cmocka_unit_test_setup_teardown(test_tx_cancel_leaves_everything, ops_setup, ops_teardown),
    cmocka_unit_test_setup_teardown(test_tx_reasons, ops_setup, ops_teardown),
    cmocka_unit_test_setup_teardown(test_tx_refusals, ops_setup, ops_teardown),
    cmocka_unit_test_setup_teardown(test_tx_size_limit, ops_setup, ops_teardown),
    cmocka_unit_test_setup_teardown(test_tx_get, ops_setup, ops_teardown),
};
const size_t ops_tx_count = sizeof ops_tx_tests / sizeof *ops_tx_tests;
