/* TransactWriteItems' ClientRequestToken and ReturnValuesOnConditionCheckFailure
 * on the embedded engine.
 *
 * Matched (Amazon DynamoDB API Reference, TransactWriteItems, Request
 * Parameters, ClientRequestToken): "multiple identical calls have the same
 * effect as one single call"; a repeat "with the same client token return[s]
 * the number of read capacity units consumed in reading the item"; "A client
 * request token is valid for 10 minutes after the first request that uses it
 * is completed. After 10 minutes, any request with the same client token is
 * treated as a new request"; "If you submit a request with the same client
 * token but a change in other parameters within the 10-minute idempotency
 * window, DynamoDB returns an IdempotentParameterMismatch exception", whose
 * message (Errors) is "DynamoDB rejected the request because you retried a
 * request with a different payload but with an idempotent token that was
 * already used."  Length Constraints: 1 to 36 characters.
 *
 * ReturnValuesOnConditionCheckFailure (API Reference, PutItem / UpdateItem /
 * DeleteItem Request Parameters, and TransactWriteItem's Put / Update /
 * Delete / ConditionCheck): "ALL_OLD" returns the item's attributes as they
 * were when the condition failed (ConditionalCheckFailedException.Item;
 * CancellationReason.Item); valid values NONE and ALL_OLD. */
#include "testutil.h"

#include <ddb/expr.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int64_t now_ms = 1764000000000;
static int64_t test_clock(void *ctx)
{
    (void)ctx;
    return now_ms;
}

typedef struct fx {
    ddb *db;
    ddb_arena *a;
    char dir[512];
    ddb_expr *add, *exists;
    ddb_item *one;
} fx;

static ddb *open_db(const char *dir, char *out, size_t cap)
{
    ddb_options o = {0};
    o.clock_ms = test_clock;
    if (out)
        return tu_open(dir, &o, out, cap);
    ddb *db = NULL;
    ddb_error err = {0};
    if (ddb_open(dir, &o, &db, &err))
        fail_msg("reopen: %s", err.message);
    return db;
}

static int setup(void **state)
{
    static unsigned seq;
    fx *f = calloc(1, sizeof *f);
    char name[32];
    snprintf(name, sizeof name, "txtok%u", seq++);
    f->db = open_db(name, f->dir, sizeof f->dir);
    f->a = ddb_arena_new();
    ddb_error err = {0};
    ddb_table_def def = {.name = "Tok", .key = {.pk = "PK", .pk_type = DDB_TS, .sk = "SK", .sk_type = DDB_TS}};
    if (ddb_create_table(f->db, &def, &err))
        fail_msg("create: %s", err.message);
    TU_OK(ddb_expr_prepare(DDB_EXPR_UPDATE, "ADD n :one", NULL, &f->add, &e_));
    TU_OK(ddb_expr_prepare(DDB_EXPR_CONDITION, "attribute_exists(PK)", NULL, &f->exists, &e_));
    f->one = tu_item(f->a, ":one", 'i', (int64_t)1, NULL);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    ddb_expr_free(f->add);
    ddb_expr_free(f->exists);
    ddb_close(f->db);
    ddb_arena_free(f->a);
    tu_rmdir(f->dir);
    free(f);
    return 0;
}

static ddb_item *key(fx *f, const char *pk)
{
    return tu_item(f->a, "PK", 's', pk, "SK", 's', "s", NULL);
}

/* The counter n of item pk (0 when absent). */
static int64_t counter(fx *f, const char *pk)
{
    ddb_item *it = NULL;
    ddb_error err = {0};
    int rc = ddb_get_item(f->db, "Tok", key(f, pk), NULL, f->a, &it, NULL, &err);
    if (rc == DDB_ENOTFOUND)
        return 0;
    if (rc)
        fail_msg("get: %s", err.message);
    int64_t v = 0;
    const ddb_value *n = it ? ddb_item_get(it, "n") : NULL;
    if (n)
        ddb_value_to_i64(n, &v);
    return v;
}

/* One transaction: ADD 1 to a and b, with token. */
static int bump(fx *f, const char *a, const char *b, const char *token, ddb_tx_result *res, ddb_error *err)
{
    ddb_tx_op ops[2] = {{DDB_TX_UPDATE, "Tok", key(f, a), f->add, NULL, f->one, DDB_RETURN_NONE},
                        {DDB_TX_UPDATE, "Tok", key(f, b), f->add, NULL, f->one, DDB_RETURN_NONE}};
    ddb_tx_opts o = {.return_capacity = DDB_CAPACITY_TOTAL, .client_request_token = token};
    return ddb_transact_write_opts(f->db, ops, 2, &o, f->a, res, err);
}

static void test_same_request_applies_once(void **state)
{
    fx *f = *state;
    ddb_tx_result res;
    ddb_error err = {0};
    assert_int_equal(bump(f, "a", "b", "tok-1", &res, &err), DDB_OK);
    assert_true(res.capacity.write > 0 && res.capacity.read == 0);
    /* the retry succeeds, writes nothing, and reports read units:
     * 2 items under 4 KB read transactionally = 2 x 2 RCU */
    assert_int_equal(bump(f, "a", "b", "tok-1", &res, &err), DDB_OK);
    assert_true(res.capacity.write == 0);
    assert_true(res.capacity.read == 4.0);
    assert_int_equal(counter(f, "a"), 1);
    assert_int_equal(counter(f, "b"), 1);
    /* no token: applied every time */
    assert_int_equal(bump(f, "a", "b", NULL, &res, &err), DDB_OK);
    assert_int_equal(counter(f, "a"), 2);
}

static void test_other_request_same_token_mismatch(void **state)
{
    fx *f = *state;
    ddb_tx_result res;
    ddb_error err = {0};
    assert_int_equal(bump(f, "a", "b", "tok-2", &res, &err), DDB_OK);
    assert_int_equal(bump(f, "a", "c", "tok-2", &res, &err), DDB_EIDEMPOTENT);
    assert_string_equal(err.message, "DynamoDB rejected the request because you retried a request with a different "
                                     "payload but with an idempotent token that was already used.");
    assert_int_equal(counter(f, "c"), 0);
    /* a different value is a different request too */
    ddb_item *two = tu_item(f->a, ":one", 'i', (int64_t)2, NULL);
    ddb_tx_op ops[2] = {{DDB_TX_UPDATE, "Tok", key(f, "a"), f->add, NULL, two, DDB_RETURN_NONE},
                        {DDB_TX_UPDATE, "Tok", key(f, "b"), f->add, NULL, f->one, DDB_RETURN_NONE}};
    ddb_tx_opts o = {.client_request_token = "tok-2"};
    assert_int_equal(ddb_transact_write_opts(f->db, ops, 2, &o, f->a, &res, &err), DDB_EIDEMPOTENT);
    assert_int_equal(counter(f, "a"), 1);
}

static void test_token_expires_after_10_minutes(void **state)
{
    fx *f = *state;
    ddb_tx_result res;
    ddb_error err = {0};
    assert_int_equal(bump(f, "a", "b", "tok-3", &res, &err), DDB_OK);
    now_ms += 10 * 60 * 1000 - 1; /* still inside the window */
    assert_int_equal(bump(f, "a", "b", "tok-3", &res, &err), DDB_OK);
    assert_int_equal(counter(f, "a"), 1);
    now_ms += 1; /* 10 minutes after the first completion: a new request */
    assert_int_equal(bump(f, "a", "c", "tok-3", &res, &err), DDB_OK);
    assert_int_equal(counter(f, "c"), 1);
    /* and its window starts now */
    assert_int_equal(bump(f, "a", "b", "tok-3", &res, &err), DDB_EIDEMPOTENT);
    /* expired tokens are removed as new ones are stored */
    now_ms += 10 * 60 * 1000;
    assert_int_equal(bump(f, "x", "y", "tok-4", &res, &err), DDB_OK);
    assert_int_equal(bump(f, "a", "b", "tok-3", &res, &err), DDB_OK);
    assert_int_equal(counter(f, "a"), 3);
}

static void test_token_is_durable(void **state)
{
    fx *f = *state;
    ddb_tx_result res;
    ddb_error err = {0};
    assert_int_equal(bump(f, "a", "b", "tok-5", &res, &err), DDB_OK);
    ddb_close(f->db);
    f->db = open_db(f->dir, NULL, 0);
    assert_int_equal(bump(f, "a", "b", "tok-5", &res, &err), DDB_OK);
    assert_int_equal(counter(f, "a"), 1);
    assert_int_equal(bump(f, "a", "z", "tok-5", &res, &err), DDB_EIDEMPOTENT);
}

static void test_cancelled_transaction_keeps_no_token(void **state)
{
    fx *f = *state;
    ddb_tx_result res;
    ddb_error err = {0};
    /* the condition fails: cancelled, nothing stored under the token */
    ddb_tx_op op = {DDB_TX_UPDATE, "Tok", key(f, "a"), f->add, f->exists, f->one, DDB_RETURN_NONE};
    ddb_tx_opts o = {.client_request_token = "tok-6"};
    assert_int_equal(ddb_transact_write_opts(f->db, &op, 1, &o, f->a, &res, &err), DDB_ECANCELED);
    /* once the item exists the same request applies */
    assert_int_equal(ddb_put_item(f->db, "Tok", key(f, "a"), NULL, NULL, NULL, &err), DDB_OK);
    assert_int_equal(ddb_transact_write_opts(f->db, &op, 1, &o, f->a, &res, &err), DDB_OK);
    assert_int_equal(ddb_transact_write_opts(f->db, &op, 1, &o, f->a, &res, &err), DDB_OK);
    assert_int_equal(counter(f, "a"), 1);
}

static void test_token_length(void **state)
{
    fx *f = *state;
    ddb_tx_result res;
    ddb_error err = {0};
    assert_int_equal(bump(f, "a", "b", "0123456789012345678901234567890123456", &res, &err), DDB_EVALIDATION);
    assert_non_null(strstr(err.message, "at 'clientRequestToken' failed to satisfy constraint: Member must have "
                                        "length less than or equal to 36"));
    assert_int_equal(bump(f, "a", "b", "", &res, &err), DDB_EVALIDATION);
    assert_non_null(strstr(err.message, "greater than or equal to 1"));
    assert_int_equal(bump(f, "a", "b", "012345678901234567890123456789012345", &res, &err), DDB_OK);
}

static void test_return_on_condition_failure_single(void **state)
{
    fx *f = *state;
    ddb_error err = {0};
    ddb_item *it = tu_item(f->a, "PK", 's', "r", "SK", 's', "s", "v", 'i', (int64_t)7, NULL);
    assert_int_equal(ddb_put_item(f->db, "Tok", it, NULL, NULL, NULL, &err), DDB_OK);
    ddb_expr *absent;
    TU_OK(ddb_expr_prepare(DDB_EXPR_CONDITION, "attribute_not_exists(PK)", NULL, &absent, &e_));
    ddb_write_result res;
    ddb_write_opts wo = {.condition = absent, .return_on_condition_failure = DDB_RETURN_ALL_OLD};
    /* PutItem */
    assert_int_equal(ddb_put_item(f->db, "Tok", it, &wo, f->a, &res, &err), DDB_ECONDITION);
    assert_non_null(res.attributes);
    assert_true(ddb_value_equal(ddb_item_get(res.attributes, "v"), ddb_item_get(it, "v")));
    /* UpdateItem */
    assert_int_equal(ddb_update_item(f->db, "Tok", key(f, "r"), f->add, &(ddb_write_opts){.condition = absent,
                                     .values = f->one, .return_on_condition_failure = DDB_RETURN_ALL_OLD},
                                     f->a, &res, &err),
                     DDB_ECONDITION);
    assert_non_null(res.attributes);
    assert_int_equal(ddb_item_count(res.attributes), 3);
    /* DeleteItem, and NONE returns nothing */
    assert_int_equal(ddb_delete_item(f->db, "Tok", key(f, "r"), &wo, f->a, &res, &err), DDB_ECONDITION);
    assert_non_null(res.attributes);
    wo.return_on_condition_failure = DDB_RETURN_NONE;
    assert_int_equal(ddb_delete_item(f->db, "Tok", key(f, "r"), &wo, f->a, &res, &err), DDB_ECONDITION);
    assert_null(res.attributes);
    /* the condition failing on an absent item: no Item */
    ddb_write_opts ex = {.condition = f->exists, .return_on_condition_failure = DDB_RETURN_ALL_OLD};
    assert_int_equal(ddb_delete_item(f->db, "Tok", key(f, "none"), &ex, f->a, &res, &err), DDB_ECONDITION);
    assert_null(res.attributes);
    /* UPDATED_NEW is not a valid value */
    ex.return_on_condition_failure = DDB_RETURN_UPDATED_NEW;
    assert_int_equal(ddb_delete_item(f->db, "Tok", key(f, "none"), &ex, f->a, &res, &err), DDB_EVALIDATION);
    ddb_expr_free(absent);
}

static void test_return_on_condition_failure_tx(void **state)
{
    fx *f = *state;
    ddb_error err = {0};
    ddb_item *it = tu_item(f->a, "PK", 's', "r", "SK", 's', "s", "v", 'i', (int64_t)7, NULL);
    assert_int_equal(ddb_put_item(f->db, "Tok", it, NULL, NULL, NULL, &err), DDB_OK);
    ddb_expr *absent;
    TU_OK(ddb_expr_prepare(DDB_EXPR_CONDITION, "attribute_not_exists(PK)", NULL, &absent, &e_));
    ddb_tx_op ops[3] = {{DDB_TX_CHECK, "Tok", key(f, "r"), NULL, absent, NULL, DDB_RETURN_ALL_OLD},
                        {DDB_TX_UPDATE, "Tok", key(f, "q"), f->add, NULL, f->one, DDB_RETURN_ALL_OLD},
                        {DDB_TX_CHECK, "Tok", key(f, "none"), NULL, f->exists, NULL, DDB_RETURN_ALL_OLD}};
    ddb_tx_result res;
    assert_int_equal(ddb_transact_write_opts(f->db, ops, 3, NULL, f->a, &res, &err), DDB_ECANCELED);
    assert_int_equal(res.reasons[0], DDB_ECONDITION);
    assert_int_equal(res.reasons[1], DDB_OK);
    assert_int_equal(res.reasons[2], DDB_ECONDITION);
    assert_non_null(res.items[0]);
    assert_true(ddb_value_equal(ddb_item_get(res.items[0], "v"), ddb_item_get(it, "v")));
    assert_null(res.items[1]);
    assert_null(res.items[2]); /* nothing stored */
    ops[0].return_on_condition_failure = DDB_RETURN_NONE;
    assert_int_equal(ddb_transact_write_opts(f->db, ops, 3, NULL, f->a, &res, &err), DDB_ECANCELED);
    assert_null(res.items[0]);
    ddb_expr_free(absent);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_same_request_applies_once, setup, teardown),
        cmocka_unit_test_setup_teardown(test_other_request_same_token_mismatch, setup, teardown),
        cmocka_unit_test_setup_teardown(test_token_expires_after_10_minutes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_token_is_durable, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cancelled_transaction_keeps_no_token, setup, teardown),
        cmocka_unit_test_setup_teardown(test_token_length, setup, teardown),
        cmocka_unit_test_setup_teardown(test_return_on_condition_failure_single, setup, teardown),
        cmocka_unit_test_setup_teardown(test_return_on_condition_failure_tx, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
