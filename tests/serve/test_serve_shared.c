/* One database directory used at once by `ddb serve` (another process) and
 * by this program in process: LMDB's multi-process locking keeps both
 * consistent.  Writes through either side are seen by the other, and two
 * writers incrementing one counter concurrently (this process's embedded
 * handle, and the remote backend through the server) lose no increment.
 * Public API only (<ddb/ddb.h>, <ddb/remote.h>). */
#include <ddb/ddb.h>
#include <ddb/remote.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define INCREMENTS 150

static char dir[256], port_file[300];
static pid_t server;

static void start_server(void)
{
    snprintf(port_file, sizeof port_file, "%s.port", dir);
    unlink(port_file);
    server = fork();
    assert_true(server >= 0);
    if (server == 0) {
        execl(DDB_TOOL, "ddb", "--db", dir, "serve", "--listen", "127.0.0.1:0", "--port-file", port_file,
              "--log-level", "error", (char *)NULL);
        _exit(127);
    }
}

static int server_port(void)
{
    for (int i = 0; i < 6000; i++) { /* until the server has written its port */
        FILE *f = fopen(port_file, "r");
        int port = 0;
        if (f) {
            int n = fscanf(f, "%d", &port);
            fclose(f);
            if (n == 1 && port > 0)
                return port;
        }
        int st;
        assert_int_equal(waitpid(server, &st, WNOHANG), 0); /* still running */
        usleep(10000);
    }
    fail_msg("ddb serve did not write %s", port_file);
    return 0;
}

static void add_one(ddb *db, const char *who)
{
    ddb_arena *a = ddb_arena_new();
    ddb_item *key = ddb_item_new(a);
    assert_int_equal(ddb_item_set_s(key, "pk", "counter"), 0);
    ddb_item *vals = ddb_item_new(a);
    assert_int_equal(ddb_item_set_i64(vals, ":one", 1), 0);
    ddb_expr *up;
    ddb_error e = {0};
    assert_int_equal(ddb_expr_prepare(DDB_EXPR_UPDATE, "ADD n :one", NULL, &up, &e), 0);
    ddb_write_opts o = {.values = vals};
    int rc = ddb_update_item(db, "Shared", key, up, &o, a, NULL, &e);
    if (rc)
        fail_msg("%s: %s", who, e.message);
    ddb_expr_free(up);
    ddb_arena_free(a);
}

static void *remote_writer(void *arg)
{
    for (int i = 0; i < INCREMENTS; i++)
        add_one(arg, "through ddb serve");
    return NULL;
}

static int64_t counter(ddb *db)
{
    ddb_arena *a = ddb_arena_new();
    ddb_item *key = ddb_item_new(a), *it = NULL;
    ddb_item_set_s(key, "pk", "counter");
    ddb_get_opts o = {.consistent = true};
    ddb_error e = {0};
    assert_int_equal(ddb_get_item(db, "Shared", key, &o, a, &it, NULL, &e), 0);
    int64_t n = -1;
    assert_int_equal(ddb_value_to_i64(ddb_item_get(it, "n"), &n), 0);
    ddb_arena_free(a);
    return n;
}

static void test_one_directory_two_processes(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/ddb-serve-shared-XXXXXX");
    assert_non_null(mkdtemp(dir));
    ddb_error e = {0};
    ddb *local;
    assert_int_equal(ddb_open(dir, NULL, &local, &e), 0);
    ddb_table_def def = {.name = "Shared", .key = {.pk = "pk", .pk_type = DDB_TS}};
    assert_int_equal(ddb_create_table(local, &def, &e), 0);

    start_server();
    char uri[64];
    snprintf(uri, sizeof uri, "http://127.0.0.1:%d", server_port());
    ddb *remote;
    ddb_remote_options ro = {.access_key_id = "AKIDSHARED", .secret_access_key = "x", .region = "us-east-1"};
    if (ddb_open_remote(uri, &ro, &remote, &e))
        fail_msg("%s", e.message);

    /* written in process, read through the server, and the other way round */
    ddb_arena *a = ddb_arena_new();
    ddb_item *it = ddb_item_new(a);
    ddb_item_set_s(it, "pk", "from-c");
    ddb_item_set_s(it, "note", "written in process");
    assert_int_equal(ddb_put_item(local, "Shared", it, NULL, NULL, NULL, &e), 0);
    ddb_item *key = ddb_item_new(a), *got = NULL;
    ddb_item_set_s(key, "pk", "from-c");
    assert_int_equal(ddb_get_item(remote, "Shared", key, NULL, a, &got, NULL, &e), 0);
    assert_string_equal(ddb_item_get(got, "note")->u.s, "written in process");
    it = ddb_item_new(a);
    ddb_item_set_s(it, "pk", "from-http");
    ddb_item_set_s(it, "note", "written through ddb serve");
    assert_int_equal(ddb_put_item(remote, "Shared", it, NULL, NULL, NULL, &e), 0);
    key = ddb_item_new(a);
    ddb_item_set_s(key, "pk", "from-http");
    assert_int_equal(ddb_get_item(local, "Shared", key, NULL, a, &got, NULL, &e), 0);
    assert_string_equal(ddb_item_get(got, "note")->u.s, "written through ddb serve");

    /* two writers at once on one item, one in each process: no lost update */
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, remote_writer, remote), 0);
    for (int i = 0; i < INCREMENTS; i++)
        add_one(local, "in process");
    pthread_join(t, NULL);
    assert_int_equal(counter(local), 2 * INCREMENTS);
    assert_int_equal(counter(remote), 2 * INCREMENTS);

    /* SIGTERM: a clean exit, and the table checks clean afterwards */
    ddb_close(remote);
    kill(server, SIGTERM);
    int st;
    assert_int_equal(waitpid(server, &st, 0), server);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    ddb_check_report rep;
    assert_int_equal(ddb_check_table(local, "Shared", &rep, &e), 0);
    assert_int_equal(rep.items, 3);
    ddb_close(local);
    ddb_arena_free(a);
    unlink(port_file);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_one_directory_two_processes)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
