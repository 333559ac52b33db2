/* retry — a write whose outcome is unknown, written again safely.
 *
 * DDB_EUNKNOWN ("the outcome of this commit is unknown") is the embedded
 * engine's InternalServerError: the write was written to the file when a
 * sync failed, so after a restart or a power loss it may be there or not.
 * The handle then refuses every write until the database is reopened.  A
 * deposit sent again as is might be counted twice.  Two ways make the
 * second attempt safe, as DynamoDB's own documentation advises for its
 * InternalServerError (API_TransactWriteItems, ClientRequestToken; the
 * Developer Guide's conditional writes):
 *
 *   1. TransactWriteItems with a ClientRequestToken: the same token with
 *      the same request within ten minutes of its success is answered
 *      DDB_OK without writing again;
 *   2. a condition the first attempt makes false: the deposit stores its
 *      request id, and a second attempt of an applied deposit fails with
 *      DDB_ECONDITION: "already applied".
 *
 * A program cannot make its disk fail on purpose, so each deposit is sent
 * twice, as the retry after DDB_EUNKNOWN (and a reopen) would send it; the
 * balance moves once.
 *
 * A rerun on the same directory within ten minutes finds the token's first
 * success and writes nothing for it (as DynamoDB does with the token).
 *
 *   retry [DIR]      DIR: database directory (default: in the build tree) */
#include "example.h"

#include <ddb/expr.h>
#include <stdio.h>

#define TABLE "Accounts"

static ddb_expr *expr(ddb_expr_kind kind, const char *text)
{
    ddb_expr *e = NULL;
    ddb_error err = {0};
    EX_CHECK(ddb_expr_prepare(kind, text, NULL, &e, &err));
    return e;
}

static void print_balance(ddb *db, ddb_arena *a, const char *when)
{
    ddb_error err = {0};
    ddb_item *key = ddb_item_new(a), *it = NULL;
    ddb_item_set_s(key, "id", "acct-1");
    EX_CHECK(ddb_get_item(db, TABLE, key, &(ddb_get_opts){.consistent = true}, a, &it, NULL, &err));
    const ddb_value *b = ddb_item_get(it, "balance");
    printf("  balance %s: %.*s\n", when, (int)b->len, b->u.s);
}

/* 1. A deposit in a transaction carrying a ClientRequestToken. */
static int deposit_with_token(ddb *db, ddb_arena *a, const ddb_expr *add, int64_t amount, const char *token)
{
    ddb_error err = {0};
    ddb_item *key = ddb_item_new(a), *values = ddb_item_new(a);
    ddb_item_set_s(key, "id", "acct-1");
    ddb_item_set_i64(values, ":amt", amount);
    ddb_tx_op op = {.kind = DDB_TX_UPDATE, .table = TABLE, .item = key, .update = add, .values = values};
    ddb_tx_result res;
    int rc = ddb_transact_write_opts(db, &op, 1, &(ddb_tx_opts){.client_request_token = token}, a, &res, &err);
    printf("  deposit %lld, token %s: %s\n", (long long)amount, token, rc ? err.message : "DDB_OK");
    return rc;
}

/* 2. A deposit that records its request id, on condition that it is not
 * the one recorded already. */
static int deposit_once(ddb *db, ddb_arena *a, const ddb_expr *add, const ddb_expr *not_yet, int64_t amount,
                        const char *request)
{
    ddb_error err = {0};
    ddb_item *key = ddb_item_new(a), *values = ddb_item_new(a);
    ddb_item_set_s(key, "id", "acct-1");
    ddb_item_set_i64(values, ":amt", amount);
    ddb_item_set_s(values, ":r", request);
    ddb_write_opts o = {.condition = not_yet, .values = values};
    int rc = ddb_update_item(db, TABLE, key, add, &o, a, NULL, &err);
    printf("  deposit %lld, request %s: %s\n", (long long)amount, request,
           rc == DDB_ECONDITION ? "DDB_ECONDITION: applied already, nothing to do" : rc ? err.message : "DDB_OK");
    return rc == DDB_ECONDITION ? DDB_OK : rc;
}

int main(int argc, char **argv)
{
    ddb_error err = {0};
    ddb *db = ex_open(argc, argv, EX_DEFAULT_DIR, NULL, NULL, 0);
    int rc = ddb_delete_table(db, TABLE, &err); /* a previous run's */
    if (rc && rc != DDB_ENOTABLE)
        ex_check(rc, &err, "ddb_delete_table");
    EX_CHECK(ddb_create_table(db, &(ddb_table_def){.name = TABLE, .key = {.pk = "id", .pk_type = DDB_TS}}, &err));
    ddb_arena *a = ddb_arena_new();
    ddb_item *acct = ddb_item_new(a);
    ddb_item_set_s(acct, "id", "acct-1");
    ddb_item_set_i64(acct, "balance", 100);
    EX_CHECK(ddb_put_item(db, TABLE, acct, NULL, a, NULL, &err));
    print_balance(db, a, "at first");

    printf("1. TransactWriteItems with a ClientRequestToken, sent twice:\n");
    ddb_expr *add = expr(DDB_EXPR_UPDATE, "SET balance = balance + :amt");
    EX_CHECK(deposit_with_token(db, a, add, 10, "deposit-0001"));
    EX_CHECK(deposit_with_token(db, a, add, 10, "deposit-0001")); /* the retry */
    print_balance(db, a, "after the deposit and its retry");

    printf("2. A condition the first attempt makes false, sent twice:\n");
    ddb_expr *add_once = expr(DDB_EXPR_UPDATE, "SET balance = balance + :amt, last_request = :r");
    ddb_expr *not_yet = expr(DDB_EXPR_CONDITION, "attribute_not_exists(last_request) OR last_request <> :r");
    EX_CHECK(deposit_once(db, a, add_once, not_yet, 25, "req-0002"));
    EX_CHECK(deposit_once(db, a, add_once, not_yet, 25, "req-0002")); /* the retry */
    print_balance(db, a, "after the deposit and its retry");

    ddb_expr_free(add);
    ddb_expr_free(add_once);
    ddb_expr_free(not_yet);
    ddb_arena_free(a);
    ddb_close(db);
    return 0;
}
