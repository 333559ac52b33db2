/* Testing with ddbgen (issue 26): the "mem:" database (a fresh private
 * directory on tmpfs, removed at close) and injected faults
 * (ddb_fault_inject), through the public API only.  The faults run on the
 * embedded engine ("mem:") and, when DDB_TEST_URI is set
 * (tests/serve/with_serve.py), through the remote backend against
 * `ddb serve`: the same rules, the same answers.
 *
 * The messages of injected faults follow DynamoDB's (API Reference,
 * "Common Errors" / PutItem Errors: ProvisionedThroughputExceededException
 * "The level of configured provisioned throughput for the table was
 * exceeded...", ConditionalCheckFailedException "The conditional request
 * failed"; TransactWriteItems Errors: TransactionCanceledException
 * "Transaction cancelled, please refer cancellation reasons for specific
 * reasons [...]" with CancellationReasons codes None and
 * ConditionalCheckFailed). */
#include <ddb/ddb.h>

#include <dirent.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define OK(expr)                                                                                                      \
    do {                                                                                                              \
        int rc_ = (expr);                                                                                             \
        if (rc_)                                                                                                      \
            fail_msg("%s: %s (%s)", #expr, ddb_strerror(rc_), err.message);                                           \
    } while (0)

static const char *uri(void)
{
    const char *u = getenv("DDB_TEST_URI");
    return u && *u ? u : "mem:";
}

static void make_table(ddb *db, const char *name)
{
    ddb_error err;
    ddb_delete_table(db, name, &err);
    ddb_table_def t = {.name = name, .key = {.pk = "PK", .pk_type = DDB_TS}};
    OK(ddb_create_table(db, &t, &err));
}

static ddb *open_db(void)
{
    ddb *db;
    ddb_error err;
    OK(ddb_open(uri(), NULL, &db, &err));
    make_table(db, "Tee");
    make_table(db, "You");
    return db;
}

static ddb_item *key_of(ddb_arena *a, const char *pk)
{
    ddb_item *k = ddb_item_new(a);
    assert_int_equal(ddb_item_set_s(k, "PK", pk), 0);
    return k;
}

static int put(ddb *db, const char *table, const char *pk, ddb_error *err)
{
    ddb_arena *a = ddb_arena_new();
    int rc = ddb_put_item(db, table, key_of(a, pk), NULL, NULL, NULL, err);
    ddb_arena_free(a);
    return rc;
}

static bool exists(ddb *db, const char *table, const char *pk)
{
    ddb_arena *a = ddb_arena_new();
    ddb_item *it = NULL;
    ddb_error err;
    int rc = ddb_get_item(db, table, key_of(a, pk), NULL, a, &it, NULL, &err);
    ddb_arena_free(a);
    if (rc && rc != DDB_ENOTFOUND)
        fail_msg("get %s: %s", pk, err.message);
    return rc == DDB_OK;
}

/* The directory of db's data file, found through /proc/self/fd. */
static bool mem_dir_of_open_files(char *out, size_t cap)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    bool found = false;
    while (d && !found && (e = readdir(d))) {
        char link[300], target[PATH_MAX];
        snprintf(link, sizeof link, "/proc/self/fd/%s", e->d_name);
        ssize_t n = readlink(link, target, sizeof target - 1);
        if (n <= 0)
            continue;
        target[n] = '\0';
        char *p = strstr(target, "/ddb-mem-");
        char *slash = p ? strchr(p + 1, '/') : NULL;
        if (slash) {
            *slash = '\0';
            snprintf(out, cap, "%s", target);
            found = true;
        }
    }
    if (d)
        closedir(d);
    return found;
}

/* "mem:": fresh, private (two handles do not share tables), on /dev/shm
 * when there is one, and gone after close. */
static void test_mem_database(void **state)
{
    (void)state;
    if (getenv("DDB_TEST_URI") && *getenv("DDB_TEST_URI"))
        skip();
    ddb *a, *b;
    ddb_error err;
    OK(ddb_open("mem:", NULL, &a, &err));
    char dir[PATH_MAX];
    assert_true(mem_dir_of_open_files(dir, sizeof dir));
    struct stat st;
    if (stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) && access("/dev/shm", W_OK) == 0)
        assert_int_equal(strncmp(dir, "/dev/shm/ddb-mem-", 17), 0);
    OK(ddb_open("mem:", NULL, &b, &err));
    make_table(a, "Tee");
    ddb_arena *ar = ddb_arena_new();
    const char **names;
    size_t n;
    OK(ddb_list_tables(b, ar, &names, &n, &err));
    assert_int_equal(n, 0);
    OK(put(a, "Tee", "k", &err));
    assert_true(exists(a, "Tee", "k"));
    ddb_close(a);
    assert_int_not_equal(stat(dir, &st), 0); /* removed with everything in it */
    ddb_close(b);
    ddb_arena_free(ar);
    /* mem: is new and empty: read-only makes no sense */
    ddb_options ro = {.read_only = true};
    assert_int_equal(ddb_open("mem:", &ro, &a, &err), DDB_EINVAL);
}

/* The next N operations of a kind on a table fail; others pass. */
static void test_next_n_throttled(void **state)
{
    (void)state;
    ddb *db = open_db();
    ddb_error err;
    ddb_fault f = {.code = DDB_ETHROTTLED, .ops = DDB_OP_PUT, .table = "Tee", .count = 2};
    OK(ddb_fault_inject(db, &f, &err));
    assert_int_equal(put(db, "Tee", "a", &err), DDB_ETHROTTLED);
    assert_non_null(strstr(err.message, "provisioned throughput"));
    assert_non_null(strstr(err.message, "injected"));
    OK(put(db, "You", "a", &err)); /* another table */
    assert_false(exists(db, "Tee", "a")); /* a get is another kind; the put was not carried out */
    assert_int_equal(put(db, "Tee", "a", &err), DDB_ETHROTTLED);
    OK(put(db, "Tee", "a", &err)); /* spent */
    assert_true(exists(db, "Tee", "a"));
    assert_int_equal(ddb_fault_fired(db), 2);
    /* every kind (ops 0): reads too, until cleared */
    ddb_fault any = {.code = DDB_ETHROTTLED, .count = 100};
    OK(ddb_fault_inject(db, &any, &err));
    ddb_arena *a = ddb_arena_new();
    ddb_item *it;
    assert_int_equal(ddb_get_item(db, "Tee", key_of(a, "a"), NULL, a, &it, NULL, &err), DDB_ETHROTTLED);
    ddb_page pg;
    ddb_scan_params sp = {.table = "Tee"};
    assert_int_equal(ddb_scan(db, &sp, a, &pg, &err), DDB_ETHROTTLED);
    ddb_fault_clear(db);
    OK(ddb_scan(db, &sp, a, &pg, &err));
    assert_int_equal(pg.count, 1);
    ddb_arena_free(a);
    ddb_close(db);
}

/* A failed condition on an update: nothing written. */
static void test_condition_failure(void **state)
{
    (void)state;
    ddb *db = open_db();
    ddb_error err;
    ddb_arena *a = ddb_arena_new();
    OK(put(db, "Tee", "a", &err));
    ddb_fault f = {.code = DDB_ECONDITION, .ops = DDB_OP_UPDATE, .count = 1};
    OK(ddb_fault_inject(db, &f, &err));
    ddb_expr *up;
    OK(ddb_expr_prepare(DDB_EXPR_UPDATE, "SET n = :one", NULL, &up, &err));
    ddb_item *vals = ddb_item_new(a);
    ddb_item_set_i64(vals, ":one", 1);
    ddb_write_opts wo = {.values = vals};
    assert_int_equal(ddb_update_item(db, "Tee", key_of(a, "a"), up, &wo, a, NULL, &err), DDB_ECONDITION);
    assert_non_null(strstr(err.message, "The conditional request failed"));
    ddb_item *it;
    OK(ddb_get_item(db, "Tee", key_of(a, "a"), NULL, a, &it, NULL, &err));
    assert_null(ddb_item_get(it, "n"));
    OK(ddb_update_item(db, "Tee", key_of(a, "a"), up, &wo, a, NULL, &err));
    ddb_expr_free(up);
    ddb_arena_free(a);
    ddb_close(db);
}

/* A cancelled transaction with the reasons asked for. */
static void test_cancelled_transaction(void **state)
{
    (void)state;
    ddb *db = open_db();
    ddb_error err;
    ddb_arena *a = ddb_arena_new();
    int reasons[] = {DDB_OK, DDB_ECONDITION};
    ddb_fault f = {.code = DDB_ECANCELED, .ops = DDB_OP_TRANSACT_WRITE, .table = "You", .count = 1,
                   .reasons = reasons, .n_reasons = 2};
    OK(ddb_fault_inject(db, &f, &err));
    ddb_tx_op ops[] = {{.kind = DDB_TX_PUT, .table = "Tee", .item = key_of(a, "x")},
                       {.kind = DDB_TX_PUT, .table = "You", .item = key_of(a, "y")}};
    ddb_tx_result res;
    assert_int_equal(ddb_transact_write(db, ops, 2, DDB_CAPACITY_NONE, a, &res, &err), DDB_ECANCELED);
    assert_non_null(res.reasons);
    assert_int_equal(res.reasons[0], DDB_OK);
    assert_int_equal(res.reasons[1], DDB_ECONDITION);
    assert_non_null(strstr(err.message, "[None, ConditionalCheckFailed]"));
    assert_false(exists(db, "Tee", "x"));
    int rc = ddb_transact_write(db, ops, 2, DDB_CAPACITY_NONE, a, &res, &err);
    if (rc == DDB_ENOTSUP) /* a backend without transactions */
        skip();
    OK(rc);
    assert_true(exists(db, "You", "y"));
    ddb_arena_free(a);
    ddb_close(db);
}

/* An unknown outcome: applied or not, the caller cannot tell from the answer. */
static void test_unknown_outcome(void **state)
{
    (void)state;
    ddb *db = open_db();
    ddb_error err;
    ddb_fault lost_answer = {.code = DDB_EUNKNOWN, .ops = DDB_OP_PUT, .count = 1, .applied = true};
    OK(ddb_fault_inject(db, &lost_answer, &err));
    assert_int_equal(put(db, "Tee", "applied", &err), DDB_EUNKNOWN);
    assert_non_null(strstr(err.message, "unknown"));
    assert_true(exists(db, "Tee", "applied"));
    ddb_fault lost_request = {.code = DDB_EUNKNOWN, .ops = DDB_OP_PUT, .count = 1};
    OK(ddb_fault_inject(db, &lost_request, &err));
    assert_int_equal(put(db, "Tee", "lost", &err), DDB_EUNKNOWN);
    assert_false(exists(db, "Tee", "lost"));
    /* a batch write on one of its tables */
    ddb_arena *a = ddb_arena_new();
    ddb_fault batch = {.code = DDB_ETHROTTLED, .ops = DDB_OP_BATCH_WRITE, .table = "You", .count = 1};
    OK(ddb_fault_inject(db, &batch, &err));
    ddb_batch_write_op bw[] = {{.table = "Tee", .put = key_of(a, "b1")}, {.table = "You", .put = key_of(a, "b2")}};
    assert_int_equal(ddb_batch_write(db, bw, 2, DDB_CAPACITY_NONE, NULL, &err), DDB_ETHROTTLED);
    assert_false(exists(db, "Tee", "b1"));
    OK(ddb_batch_write(db, bw, 2, DDB_CAPACITY_NONE, NULL, &err));
    assert_true(exists(db, "You", "b2"));
    /* a batch left partly unprocessed (the remote backend's answer when
     * UnprocessedItems remain after its retries: BatchWriteItem, "Response
     * Elements: UnprocessedItems") */
    ddb_fault partly = {.code = DDB_ETHROTTLED, .ops = DDB_OP_BATCH_WRITE, .count = 1, .processed = 1};
    OK(ddb_fault_inject(db, &partly, &err));
    ddb_batch_write_op three[] = {{.table = "Tee", .put = key_of(a, "p1")},
                                  {.table = "Tee", .put = key_of(a, "p2")},
                                  {.table = "Tee", .put = key_of(a, "p3")}};
    assert_int_equal(ddb_batch_write(db, three, 3, DDB_CAPACITY_NONE, NULL, &err), DDB_ETHROTTLED);
    assert_non_null(strstr(err.message, "2 of 3 requests still unprocessed"));
    assert_true(exists(db, "Tee", "p1"));
    assert_false(exists(db, "Tee", "p2"));
    assert_false(exists(db, "Tee", "p3"));
    ddb_fault bad = {.code = DDB_ECONDITION, .ops = DDB_OP_BATCH_WRITE, .count = 1, .processed = 1};
    assert_int_equal(ddb_fault_inject(db, &bad, &err), DDB_EINVAL);
    ddb_arena_free(a);
    ddb_close(db);
}

/* A fraction of operations, drawn from a seeded generator: the same seed
 * fails the same operations. */
static void fraction_pattern(uint64_t seed, char *out, size_t n)
{
    ddb *db = open_db();
    ddb_error err;
    ddb_fault f = {.code = DDB_ETHROTTLED, .ops = DDB_OP_PUT, .fraction = 0.3, .seed = seed};
    OK(ddb_fault_inject(db, &f, &err));
    for (size_t i = 0; i < n; i++) {
        int rc = put(db, "Tee", "k", &err);
        assert_true(rc == DDB_OK || rc == DDB_ETHROTTLED);
        out[i] = rc ? 'x' : '.';
    }
    out[n] = '\0';
    ddb_close(db);
}

static void test_fraction(void **state)
{
    (void)state;
    char p1[101], p2[101], p3[101];
    fraction_pattern(7, p1, 100);
    fraction_pattern(7, p2, 100);
    fraction_pattern(8, p3, 100);
    assert_string_equal(p1, p2);
    assert_string_not_equal(p1, p3);
    size_t failed = 0;
    for (size_t i = 0; i < 100; i++)
        failed += p1[i] == 'x';
    assert_true(failed > 5 && failed < 60); /* about 30 of 100 */
}

/* Rules that cannot mean anything are refused with a message. */
static void test_bad_rules(void **state)
{
    (void)state;
    ddb *db = open_db();
    ddb_error err;
    ddb_fault none = {.code = DDB_ETHROTTLED};
    assert_int_equal(ddb_fault_inject(db, &none, &err), DDB_EINVAL);
    assert_non_null(strstr(err.message, "count or a fraction"));
    ddb_fault cancel_put = {.code = DDB_ECANCELED, .ops = DDB_OP_PUT, .count = 1};
    assert_int_equal(ddb_fault_inject(db, &cancel_put, &err), DDB_EINVAL);
    ddb_fault unknown_read = {.code = DDB_EUNKNOWN, .ops = DDB_OP_GET, .count = 1};
    assert_int_equal(ddb_fault_inject(db, &unknown_read, &err), DDB_EINVAL);
    ddb_fault not_error = {.code = 5, .count = 1};
    assert_int_equal(ddb_fault_inject(db, &not_error, &err), DDB_EINVAL);
    ddb_fault big = {.code = DDB_ETHROTTLED, .fraction = 1.5};
    assert_int_equal(ddb_fault_inject(db, &big, &err), DDB_EINVAL);
    ddb_fault ok = {.code = DDB_ETHROTTLED, .count = 1, .table = "nope"};
    for (int i = 0; i < 32; i++)
        OK(ddb_fault_inject(db, &ok, &err));
    assert_int_equal(ddb_fault_inject(db, &ok, &err), DDB_ELIMIT);
    assert_int_equal(ddb_fault_fired(db), 0);
    ddb_close(db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mem_database),       cmocka_unit_test(test_next_n_throttled),
        cmocka_unit_test(test_condition_failure),  cmocka_unit_test(test_cancelled_transaction),
        cmocka_unit_test(test_unknown_outcome),    cmocka_unit_test(test_fraction),
        cmocka_unit_test(test_bad_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
