/* Unprocessed items in the generated batch functions (pages.h's entities:
 * an unsharded User, a Proj of three shard items).
 *
 * On every backend: an injected fault (ddb_fault.processed) leaves the end
 * of a BatchWriteItem / BatchGetItem unprocessed; the batch function
 * answers DDB_ETHROTTLED naming how many requests were left, what was
 * processed is there, and calling it again (the caller's retry) completes
 * it.  Against `ddb serve --unprocessed F` (DDB_TEST_UNPROCESSED=F, set
 * with DDB_TEST_SERVE_ARGS by tests/serve/CMakeLists.txt) the server
 * itself leaves a drawn part of each batch in UnprocessedItems /
 * UnprocessedKeys: with F < 1 the remote backend's retries complete every
 * batch (more requests than batches were sent), with F = 1 nothing is
 * ever processed and the call ends in DDB_ETHROTTLED after its attempts.
 *
 * DynamoDB references: API_BatchWriteItem ("the failed operations are
 * returned in the UnprocessedItems response parameter ... call
 * BatchWriteItem in a loop"; none processed:
 * ProvisionedThroughputExceededException), API_BatchGetItem
 * (UnprocessedKeys), Developer Guide "Error handling with DynamoDB",
 * "Batch operations" (retry with exponential backoff). */
#include "pages_ddb.h"

#include <ddb/remote.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fresh_db.h"

#define N_USERS 60
#define N_PROJS 20

static double unprocessed_fraction(void)
{
    const char *f = getenv("DDB_TEST_UNPROCESSED");
    return remote() && f ? atof(f) : 0;
}

static void fill_users(struct user *u, size_t n)
{
    memset(u, 0, n * sizeof *u);
    for (size_t i = 0; i < n; i++) {
        snprintf(u[i].org, sizeof u[i].org, "o1");
        u[i].seq = (int32_t)i + 1;
        u[i].a = (int32_t)(i * 7);
    }
}

static void fill_projs(struct proj *p, size_t n)
{
    memset(p, 0, n * sizeof *p);
    for (size_t i = 0; i < n; i++) {
        snprintf(p[i].org, sizeof p[i].org, "o2");
        p[i].seq = (int32_t)i + 1;
        p[i].a = (int32_t)i;
        p[i].b = (int32_t)i * 10;
        p[i].c = (int32_t)i * 100;
    }
}

/* How many of the n users are stored (checked whole when found). */
static size_t users_found(ddb *db, const struct user *keys, size_t n)
{
    ddb_error err;
    ddb_arena *a = ddb_arena_new();
    struct user out[N_USERS];
    bool found[N_USERS];
    OK(user_batch_get(db, keys, n, NULL, a, out, NULL, found, &err));
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (found[i]) {
            assert_int_equal(out[i].seq, keys[i].seq);
            assert_int_equal(out[i].a, keys[i].a);
            k++;
        }
    ddb_arena_free(a);
    return k;
}

/* On either backend: an injected fault leaves part of a batch unprocessed. */
static void test_injected_unprocessed(void **state)
{
    (void)state;
    if (unprocessed_fraction() > 0)
        skip(); /* the server leaves its own part unprocessed: the cases below */
    ddb *db = fresh_db("CollPages", pg_create_table);
    ddb_error err;
    struct user users[N_USERS];
    fill_users(users, N_USERS);
    /* BatchWriteItem: the first request of 25 keeps 10, leaves 15 */
    ddb_fault w = {.code = DDB_ETHROTTLED, .ops = DDB_OP_BATCH_WRITE, .count = 1, .processed = 10};
    OK(ddb_fault_inject(db, &w, &err));
    assert_int_equal(user_batch_put(db, users, N_USERS, NULL, NULL, &err), DDB_ETHROTTLED);
    assert_non_null(strstr(err.message, "15 of 25 requests still unprocessed"));
    assert_int_equal(users_found(db, users, N_USERS), 10);
    OK(user_batch_put(db, users, N_USERS, NULL, NULL, &err)); /* the caller's retry: puts are idempotent */
    assert_int_equal(users_found(db, users, N_USERS), N_USERS);
    /* BatchGetItem: the first request reads 5 keys and leaves the rest */
    ddb_fault g = {.code = DDB_ETHROTTLED, .ops = DDB_OP_BATCH_GET, .count = 1, .processed = 5};
    OK(ddb_fault_inject(db, &g, &err));
    ddb_arena *a = ddb_arena_new();
    struct user out[N_USERS];
    bool found[N_USERS];
    assert_int_equal(user_batch_get(db, users, N_USERS, NULL, a, out, NULL, found, &err), DDB_ETHROTTLED);
    assert_non_null(strstr(err.message, "55 of 60 requests still unprocessed"));
    assert_int_equal(users_found(db, users, N_USERS), N_USERS);
    /* processed is for throttled batches only */
    ddb_fault bad = {.code = DDB_ETHROTTLED, .ops = DDB_OP_PUT, .count = 1, .processed = 1};
    assert_int_equal(ddb_fault_inject(db, &bad, &err), DDB_EINVAL);
    ddb_arena_free(a);
    fresh_db_close(db, "CollPages");
}

/* Requests the remote backend sent, by operation (ddb_remote_options.on_request). */
typedef struct sent {
    unsigned batch_write, batch_get;
} sent;

static void count_request(const ddb_request_metrics *m, void *ctx)
{
    sent *s = ctx;
    if (!strcmp(m->operation, "BatchWriteItem"))
        s->batch_write++;
    else if (!strcmp(m->operation, "BatchGetItem"))
        s->batch_get++;
}

/* The server at DDB_TEST_URI, with table CollPages new, counting requests. */
static ddb *open_counting(sent *s, uint32_t max_attempts)
{
    ddb *db;
    ddb_error err;
    ddb_remote_options ro = {.on_request = count_request, .on_request_ctx = s, .max_attempts = max_attempts,
                             .retry_base_ms = 1, .retry_cap_ms = 5};
    OK(ddb_open_remote(getenv("DDB_TEST_URI"), &ro, &db, &err));
    int rc = ddb_delete_table(db, "CollPages", &err);
    assert_true(rc == DDB_OK || rc == DDB_ENOTABLE);
    OK(pg_create_table(db, &err));
    return db;
}

/* ddb serve --unprocessed F, F < 1: the remote backend sends what was left
 * again until every batch is done. */
static void test_server_leaves_some(void **state)
{
    (void)state;
    double f = unprocessed_fraction();
    if (!(f > 0 && f < 1))
        skip();
    sent s = {0, 0};
    ddb *db = open_counting(&s, 30);
    ddb_error err;
    struct user users[N_USERS];
    struct proj projs[N_PROJS];
    fill_users(users, N_USERS);
    fill_projs(projs, N_PROJS);
    OK(user_batch_put(db, users, N_USERS, NULL, NULL, &err));
    OK(proj_batch_put(db, projs, N_PROJS, NULL, NULL, &err)); /* 60 shard items */
    /* 120 items in batches of 25 are 5 requests, or more when some were left */
    assert_true(s.batch_write > 5);
    s.batch_get = 0;
    assert_int_equal(users_found(db, users, N_USERS), N_USERS);
    ddb_arena *a = ddb_arena_new();
    struct proj out[N_PROJS];
    bool found[N_PROJS];
    OK(proj_batch_get(db, projs, N_PROJS, NULL, a, out, NULL, found, &err));
    for (size_t i = 0; i < N_PROJS; i++) {
        assert_true(found[i]);
        assert_int_equal(out[i].a, projs[i].a);
        assert_int_equal(out[i].b, projs[i].b);
        assert_int_equal(out[i].c, projs[i].c);
    }
    assert_true(s.batch_get > 2); /* 60 user keys and 60 shard keys: 2 requests when all are read at once */
    OK(user_batch_delete(db, users, N_USERS, NULL, NULL, &err));
    assert_int_equal(users_found(db, users, N_USERS), 0);
    ddb_arena_free(a);
    fresh_db_close(db, "CollPages");
}

/* ddb serve --unprocessed 1: nothing is processed; the call ends after its
 * attempts with DDB_ETHROTTLED and nothing is written. */
static void test_server_leaves_all(void **state)
{
    (void)state;
    if (!(unprocessed_fraction() >= 1))
        skip();
    sent s = {0, 0};
    ddb *db = open_counting(&s, 3);
    ddb_error err;
    struct user users[4];
    fill_users(users, 4);
    assert_int_equal(user_batch_put(db, users, 4, NULL, NULL, &err), DDB_ETHROTTLED);
    assert_int_equal(s.batch_write, 1); /* one request, its 3 attempts throttled */
    ddb_arena *a = ddb_arena_new();
    struct user out[4];
    bool found[4];
    assert_int_equal(user_batch_get(db, users, 4, NULL, a, out, NULL, found, &err), DDB_ETHROTTLED);
    ddb_arena_free(a);
    fresh_db_close(db, "CollPages");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_injected_unprocessed),
        cmocka_unit_test(test_server_leaves_some),
        cmocka_unit_test(test_server_leaves_all),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
