/* Read-only open (ddb_options.read_only, "file:DIR?mode=ro"): reads work,
 * never change a byte of data.mdb (not even the capacity ledger at close),
 * every write fails with DDB_EINVAL "the database is open read-only", and a
 * directory the process may not write can still be read. */
#include "testutil.h"

#include <ddb/expr.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[512];

/* The bytes of DIR/data.mdb and its modification time. */
typedef struct file_state {
    char *bytes;
    size_t len;
    struct timespec mtime;
} file_state;

static file_state data_file(void)
{
    char path[600];
    snprintf(path, sizeof path, "%s/data.mdb", dir);
    file_state s = {0};
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    s.mtime = st.st_mtim;
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    s.bytes = malloc((size_t)st.st_size + 1);
    assert_non_null(s.bytes);
    s.len = fread(s.bytes, 1, (size_t)st.st_size, f);
    fclose(f);
    assert_int_equal(s.len, (size_t)st.st_size);
    return s;
}

static void assert_same_file(file_state a, file_state b)
{
    assert_int_equal(a.len, b.len);
    assert_memory_equal(a.bytes, b.bytes, a.len);
    assert_int_equal(a.mtime.tv_sec, b.mtime.tv_sec);
    assert_int_equal(a.mtime.tv_nsec, b.mtime.tv_nsec);
    free(a.bytes);
    free(b.bytes);
}

static ddb *open_uri(const char *uri, const ddb_options *o)
{
    ddb *db = NULL;
    ddb_error e = {0};
    if (ddb_open(uri, o, &db, &e))
        fail_msg("ddb_open(%s): %s", uri, e.message);
    return db;
}

/* A table with a GSI, a stream and TTL, three items (one expired). */
static void fill(void)
{
    ddb *db = tu_open("ro", NULL, dir, sizeof dir);
    ddb_arena *a = ddb_arena_new();
    ddb_index_def ix[] = {{.name = "GSI1", .key = {.pk = "G", .pk_type = DDB_TS, .sk = NULL, .sk_type = DDB_TNONE}}};
    ddb_table_def def = {.name = "Items", .key = {.pk = "PK", .pk_type = DDB_TS, .sk = "SK", .sk_type = DDB_TS}, .indexes = ix, .n_indexes = 1};
    TU_OK(ddb_create_table(db, &def, &e_));
    TU_OK(ddb_update_table_stream(db, "Items", &(ddb_stream_spec){.view = DDB_STREAM_NEW_AND_OLD_IMAGES}, &e_));
    TU_OK(ddb_update_time_to_live(db, "Items", "exp", &e_));
    TU_OK(ddb_put_item(db, "Items", tu_item(a, "PK", 's', "a", "SK", 's', "1", "G", 's', "g", NULL), NULL, NULL, NULL, &e_));
    TU_OK(ddb_put_item(db, "Items", tu_item(a, "PK", 's', "a", "SK", 's', "2", NULL), NULL, NULL, NULL, &e_));
    TU_OK(ddb_put_item(db, "Items", tu_item(a, "PK", 's', "b", "SK", 's', "1", "exp", 'i', (int64_t)1700000000, NULL),
                       NULL, NULL, NULL, &e_));
    ddb_arena_free(a);
    ddb_close(db);
}

/* Every read the tool makes; returns the items a scan sees. */
static size_t read_everything(ddb *db)
{
    ddb_arena *a = ddb_arena_new();
    ddb_error e = {0};
    const char **names;
    size_t n;
    TU_OK(ddb_list_tables(db, a, &names, &n, &e_));
    assert_int_equal(n, 1);
    ddb_table_desc *d;
    TU_OK(ddb_describe_table(db, "Items", a, &d, &e_));
    ddb_item *it = NULL;
    TU_OK(ddb_get_item(db, "Items", tu_item(a, "PK", 's', "a", "SK", 's', "1", NULL), NULL, a, &it, NULL, &e_));
    assert_non_null(it);
    ddb_page p;
    TU_OK(ddb_query(db, &(ddb_query_params){.table = "Items", .pk = ddb_v_str(a, "a")}, a, &p, &e_));
    assert_int_equal(p.count, 2);
    TU_OK(ddb_query(db, &(ddb_query_params){.table = "Items", .index = "GSI1", .pk = ddb_v_str(a, "g")}, a, &p, &e_));
    assert_int_equal(p.count, 1);
    TU_OK(ddb_scan(db, &(ddb_scan_params){.table = "Items", .consistent = true}, a, &p, &e_));
    ddb_partition_stats *parts;
    TU_OK(ddb_table_stats(db, "Items", a, &parts, &n, &e_));
    ddb_table_report *r;
    TU_OK(ddb_table_report_build(db, "Items", 3, a, &r, &e_));
    ddb_check_report cr;
    TU_OK(ddb_check_table(db, "Items", &cr, &e_));
    TU_OK(ddb_stream_check(db, "Items", &cr, &e_));
    ddb_stream_iter *si;
    ddb_stream_record recs[8];
    TU_OK(ddb_stream_iter_open(db, "Items", DDB_STREAM_TRIM_HORIZON, 0, &si, &e_));
    TU_OK(ddb_stream_read(si, 8, a, recs, &n, &e_));
    assert_int_equal(n, 3);
    ddb_stream_iter_close(si);
    TU_OK(ddb_sync(db, &e)); /* nothing to flush */
    size_t seen = p.count;
    ddb_arena_free(a);
    return seen;
}

static void assert_read_only(int rc, const ddb_error *e, const char *what)
{
    if (rc != DDB_EINVAL || strcmp(e->message, "the database is open read-only") != 0)
        fail_msg("%s on a read-only handle: %d %s", what, rc, e->message);
}

static void test_writes_refused(void **state)
{
    (void)state;
    fill();
    file_state before = data_file();
    /* a sweep interval is ignored: the sweeper would write */
    ddb *db = open_uri(dir, &(ddb_options){.read_only = true, .ttl_sweep_ms = 1});
    assert_int_equal(read_everything(db), 2); /* the expired item is invisible */
    ddb_arena *a = ddb_arena_new();
    ddb_item *item = tu_item(a, "PK", 's', "c", "SK", 's', "1", NULL), *key = tu_item(a, "PK", 's', "a", "SK", 's', "1", NULL);
    ddb_expr *upd = NULL;
    ddb_error e = {0};
    TU_OK(ddb_expr_prepare(DDB_EXPR_UPDATE, "SET x = :v", NULL, &upd, &e_));
    ddb_item *vals = tu_item(a, ":v", 'i', (int64_t)1, NULL);
    assert_read_only(ddb_put_item(db, "Items", item, NULL, NULL, NULL, &e), &e, "put");
    assert_read_only(ddb_delete_item(db, "Items", key, NULL, NULL, NULL, &e), &e, "delete");
    assert_read_only(ddb_update_item(db, "Items", key, upd, &(ddb_write_opts){.values = vals}, a, NULL, &e), &e, "update");
    ddb_batch_write_op bw = {.table = "Items", .put = item};
    assert_read_only(ddb_batch_write(db, &bw, 1, DDB_CAPACITY_NONE, NULL, &e), &e, "batch write");
    ddb_tx_op tx = {.kind = DDB_TX_PUT, .table = "Items", .item = item};
    ddb_tx_result txr;
    assert_read_only(ddb_transact_write(db, &tx, 1, DDB_CAPACITY_NONE, a, &txr, &e), &e, "transaction");
    ddb_table_def def = {.name = "Other", .key = {.pk = "PK", .pk_type = DDB_TS, .sk = NULL, .sk_type = DDB_TNONE}};
    assert_read_only(ddb_create_table(db, &def, &e), &e, "create table");
    assert_read_only(ddb_delete_table(db, "Items", &e), &e, "delete table");
    assert_read_only(ddb_update_table_stream(db, "Items", &(ddb_stream_spec){.view = DDB_STREAM_KEYS_ONLY}, &e), &e,
                     "update stream");
    assert_read_only(ddb_update_time_to_live(db, "Items", "other", &e), &e, "update TTL");
    assert_read_only(ddb_table_meta_put(db, "Items", "k", "v", 1, &e), &e, "table meta");
    assert_read_only(ddb_ttl_sweep(db, NULL, 0, NULL, &e), &e, "TTL sweep"); /* one item is expired */
    ddb_expr_free(upd);
    ddb_arena_free(a);
    usleep(20000); /* a sweep thread, if one ran, would have swept by now */
    ddb_close(db); /* no capacity ledger flush */
    assert_same_file(before, data_file());

    /* the URI form, default options */
    before = data_file();
    char uri[600];
    snprintf(uri, sizeof uri, "file:%s?mode=ro", dir);
    db = open_uri(uri, NULL);
    assert_int_equal(read_everything(db), 2);
    a = ddb_arena_new();
    assert_read_only(ddb_put_item(db, "Items", tu_item(a, "PK", 's', "c", "SK", 's', "1", NULL), NULL, NULL, NULL, &e), &e,
                     "put");
    ddb_arena_free(a);
    ddb_close(db);
    assert_same_file(before, data_file());
    tu_rmdir(dir);
}

/* A read-only handle sees what a writer commits meanwhile (it uses LMDB's
 * lock file when it may). */
static void test_sees_writer(void **state)
{
    (void)state;
    fill();
    char uri[600];
    snprintf(uri, sizeof uri, "file:%s?mode=ro", dir);
    ddb *ro = open_uri(uri, NULL), *rw = open_uri(dir, NULL);
    ddb_arena *a = ddb_arena_new();
    ddb_item *key = tu_item(a, "PK", 's', "new", "SK", 's', "1", NULL), *it = NULL;
    ddb_error e = {0};
    assert_int_equal(ddb_get_item(ro, "Items", key, NULL, a, &it, NULL, &e), DDB_ENOTFOUND);
    TU_OK(ddb_put_item(rw, "Items", key, NULL, NULL, NULL, &e_));
    TU_OK(ddb_get_item(ro, "Items", key, NULL, a, &it, NULL, &e_));
    /* a table created meanwhile too */
    TU_OK(ddb_create_table(rw, &(ddb_table_def){.name = "Later", .key = {.pk = "PK", .pk_type = DDB_TS, .sk = NULL, .sk_type = DDB_TNONE}}, &e_));
    TU_OK(ddb_put_item(rw, "Later", tu_item(a, "PK", 's', "x", NULL), NULL, NULL, NULL, &e_));
    TU_OK(ddb_get_item(ro, "Later", tu_item(a, "PK", 's', "x", NULL), NULL, a, &it, NULL, &e_));
    ddb_arena_free(a);
    ddb_close(ro);
    ddb_close(rw);
    tu_rmdir(dir);
}

static void test_bad_uri_and_missing(void **state)
{
    (void)state;
    ddb *db = NULL;
    ddb_error e = {0};
    char uri[700];
    const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(dir, sizeof dir, "%s/ddbtest-ro-missing-%d", base, (int)getpid());
    snprintf(uri, sizeof uri, "file:%s?mode=rx", dir);
    assert_int_equal(ddb_open(uri, NULL, &db, &e), DDB_EINVAL);
    char want[900];
    snprintf(want, sizeof want, "ddb_open: unknown parameter \"mode=rx\" in \"%s\" (file:DIR?mode=ro or ?mode=rw)", uri);
    assert_string_equal(e.message, want);
    assert_null(db);
    /* a read-only open creates nothing */
    snprintf(uri, sizeof uri, "file:%s?mode=ro", dir);
    assert_int_equal(ddb_open(uri, NULL, &db, &e), DDB_EIO);
    snprintf(want, sizeof want, "ddb_open: no database in %s (a read-only open creates none)", dir);
    assert_string_equal(e.message, want);
    struct stat st;
    assert_int_not_equal(stat(dir, &st), 0);
    /* the remote backend refuses the flag */
    assert_int_equal(ddb_open("http://127.0.0.1:1", &(ddb_options){.read_only = true}, &db, &e), DDB_ENOTSUP);
    assert_null(db);
}

/* A directory (and files) the process may not write: read without LMDB's
 * lock file.  Root ignores permissions, so as root the reader drops to
 * nobody (uid 65534) in a child process. */
static void test_unwritable_directory(void **state)
{
    (void)state;
    fill();
    char cmd[700];
    snprintf(cmd, sizeof cmd, "chmod -R a-w '%s'", dir);
    assert_int_equal(system(cmd), 0);
    file_state before = data_file();
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        /* where uid 65534 does not exist (a container's user namespace),
         * root reads on: the files' bytes are still checked */
        if (getuid() == 0 && setgid(65534) == 0 && setuid(65534) != 0)
            _exit(3);
        char uri[600];
        snprintf(uri, sizeof uri, "file:%s?mode=ro", dir);
        ddb *db = NULL;
        ddb_error e = {0};
        if (ddb_open(uri, NULL, &db, &e)) {
            fprintf(stderr, "read-only open: %s\n", e.message);
            _exit(1);
        }
        ddb_arena *a = ddb_arena_new();
        ddb_page p;
        int rc = ddb_scan(db, &(ddb_scan_params){.table = "Items"}, a, &p, &e);
        if (rc || p.count != 2) {
            fprintf(stderr, "scan: %d %s\n", rc, e.message);
            _exit(2);
        }
        ddb_arena_free(a);
        ddb_close(db);
        _exit(0);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_same_file(before, data_file());
    snprintf(cmd, sizeof cmd, "chmod -R u+w '%s'", dir);
    assert_int_equal(system(cmd), 0);
    tu_rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_writes_refused),
        cmocka_unit_test(test_sees_writer),
        cmocka_unit_test(test_bad_uri_and_missing),
        cmocka_unit_test(test_unwritable_directory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
