/* The commit log (ddb_options.commit_log): recovery and the directory's
 * ownership, with the real file system (no shim; power loss with the log
 * is test_power_loss_commit_log in tests/crash).
 *   - a clean close retires the log: commit.log and commit.ckpt are gone,
 *     and an open without the log reads everything;
 *   - a writer that dies without closing leaves the log; the data file as
 *     of the log's checkpoint (every page written after it lost, as a
 *     power loss may leave it) plus the log is every acknowledged write;
 *   - a torn tail (the last record cut short, or junk after the last one)
 *     is dropped, the records before it are replayed;
 *   - a damaged record in the middle ends the replay: nothing after it is
 *     replayed, although the records after it are whole (a gap);
 *   - a second process is refused while a writer with the log has the
 *     directory (with a log and without), a read-only open reads alongside
 *     it, and a read-only open of a log whose writer died is refused. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ddb/ddb.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#define TABLE "Tab"
#define ITEMS 40
#define HEADER 24 /* a record's header (engine/clog.h) */

static char g_dir[512];

static void path_of(char *out, size_t cap, const char *name)
{
    snprintf(out, cap, "%s/%s", g_dir, name);
}

static bool exists(const char *name)
{
    char p[700];
    struct stat st;
    path_of(p, sizeof p, name);
    return stat(p, &st) == 0;
}

static void copy_file(const char *from, const char *to)
{
    char cmd[1600], a[700], b[700];
    path_of(a, sizeof a, from);
    path_of(b, sizeof b, to);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", a, b);
    if (system(cmd) != 0)
        fail_msg("%s failed", cmd);
}

static ddb *open_db(bool commit_log, bool read_only, int *rc, ddb_error *err)
{
    ddb_options o = {.sync = DDB_SYNC_FULL, .commit_log = commit_log, .read_only = read_only};
    ddb *db = NULL;
    *rc = ddb_open(g_dir, &o, &db, err);
    return db;
}

static ddb *must_open(bool commit_log)
{
    int rc;
    ddb_error err = {0};
    ddb *db = open_db(commit_log, false, &rc, &err);
    if (rc)
        fail_msg("open: %s", err.message);
    return db;
}

static void put(ddb *db, int i)
{
    ddb_arena *a = ddb_arena_new();
    char k[32];
    snprintf(k, sizeof k, "k%03d", i);
    ddb_item *it = ddb_item_new(a);
    ddb_item_set_s(it, "PK", k);
    ddb_item_set_s(it, "g", "group");
    ddb_error err = {0};
    if (ddb_put_item(db, TABLE, it, NULL, NULL, NULL, &err))
        fail_msg("put %d: %s", i, err.message);
    ddb_arena_free(a);
}

static bool present(ddb *db, int i)
{
    ddb_arena *a = ddb_arena_new();
    char k[32];
    snprintf(k, sizeof k, "k%03d", i);
    ddb_item *key = ddb_item_new(a), *got = NULL;
    ddb_item_set_s(key, "PK", k);
    ddb_error err = {0};
    int rc = ddb_get_item(db, TABLE, key, NULL, a, &got, NULL, &err);
    if (rc && rc != DDB_ENOTFOUND)
        fail_msg("get %d: %s", i, err.message);
    ddb_arena_free(a);
    return rc == DDB_OK;
}

/* The items present are exactly 0..n-1, and the table and its index agree. */
static void expect_items(ddb *db, int n)
{
    for (int i = 0; i < ITEMS; i++)
        if (present(db, i) != (i < n))
            fail_msg("item %d: %s, expected the first %d items", i, i < n ? "missing" : "present", n);
    ddb_check_report r;
    ddb_error err = {0};
    if (ddb_check_table(db, TABLE, &r, &err) || r.problems || r.items != (uint64_t)n)
        fail_msg("check: %s, %llu problems, %llu items (%d expected)", err.message, (unsigned long long)r.problems,
                 (unsigned long long)r.items, n);
}

/* Open (with the log or not), expect the first n items, close. */
static void reopen_expect(bool commit_log, int n)
{
    ddb *db = must_open(commit_log);
    expect_items(db, n);
    ddb_close(db);
}

/* A fresh directory with the empty table (closed cleanly). */
static void fresh(const char *name)
{
    const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(g_dir, sizeof g_dir, "%s/ddbclog-%s-%d", base, name, (int)getpid());
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (system(cmd) != 0)
        fail_msg("cannot remove %s", g_dir);
    ddb *db = must_open(false);
    ddb_index_def ix[] = {{.name = "ByG", .key = {.pk = "g", .pk_type = DDB_TS, .sk = "PK", .sk_type = DDB_TS}}};
    ddb_table_def def = {.name = TABLE, .key = {.pk = "PK", .pk_type = DDB_TS}, .indexes = ix, .n_indexes = 1};
    ddb_error err = {0};
    if (ddb_create_table(db, &def, &err))
        fail_msg("create table: %s", err.message);
    ddb_close(db);
}

static void cleanup(void)
{
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (system(cmd) != 0)
        fail_msg("cannot remove %s", g_dir);
}

/* A child opens the database with the log, the parent keeps a copy of the
 * data file as of that open's checkpoint (data.ckpt-copy), the child puts
 * ITEMS items, each acknowledged (one record each), and dies without
 * closing. */
static void writer_dies(void)
{
    int go[2], done[2];
    if (pipe(go) || pipe(done))
        fail_msg("pipe");
    pid_t pid = fork();
    if (pid == 0) {
        ddb *db = must_open(true);
        char c = 1;
        if (write(done[1], &c, 1) != 1 || read(go[0], &c, 1) != 1)
            _exit(2);
        for (int i = 0; i < ITEMS; i++)
            put(db, i);
        _exit(0); /* no ddb_close: the log stays */
    }
    char c;
    if (read(done[0], &c, 1) != 1)
        fail_msg("the writer did not open");
    copy_file("data.mdb", "data.ckpt-copy");
    if (write(go[1], &c, 1) != 1)
        fail_msg("pipe");
    int st;
    waitpid(pid, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        fail_msg("the writer failed (%d)", st);
    close(go[0]), close(go[1]), close(done[0]), close(done[1]);
    assert_true(exists("commit.log") && exists("commit.ckpt"));
    /* the disk as a power loss may leave it: no page written since the
     * checkpoint reached it */
    copy_file("data.ckpt-copy", "data.mdb");
}

/* Offsets of the log's records (the format of engine/clog_record.c). */
static size_t record_offsets(long *off, size_t cap, long *end)
{
    char p[700];
    path_of(p, sizeof p, "commit.log");
    FILE *f = fopen(p, "rb");
    if (!f)
        fail_msg("no commit.log");
    size_t n = 0;
    long at = 0;
    unsigned char h[HEADER];
    while (n < cap && fseek(f, at, SEEK_SET) == 0 && fread(h, 1, HEADER, f) == HEADER && h[0] == 'L') {
        uint32_t len = (uint32_t)h[4] | (uint32_t)h[5] << 8 | (uint32_t)h[6] << 16 | (uint32_t)h[7] << 24;
        off[n++] = at;
        at += HEADER + (long)len;
    }
    *end = at;
    fclose(f);
    return n;
}

/* A fresh database whose writer died after ITEMS records (writer_dies):
 * the records' offsets and the log's end. */
static void crashed(const char *name, long *off, long *end)
{
    fresh(name);
    writer_dies();
    assert_int_equal(record_offsets(off, ITEMS + 8, end), ITEMS);
}

static void patch_log(long at, const void *bytes, size_t n)
{
    char p[700];
    path_of(p, sizeof p, "commit.log");
    FILE *f = fopen(p, "r+b");
    if (!f || fseek(f, at, SEEK_SET) != 0 || fwrite(bytes, 1, n, f) != n || fclose(f) != 0)
        fail_msg("cannot patch commit.log");
}

static void truncate_log(long len)
{
    char p[700];
    path_of(p, sizeof p, "commit.log");
    if (truncate(p, len) != 0)
        fail_msg("truncate");
}

static void test_clean_close_retires_the_log(void **state)
{
    (void)state;
    fresh("clean");
    ddb *db = must_open(true);
    assert_true(exists("commit.log") && exists("commit.ckpt"));
    for (int i = 0; i < ITEMS; i++)
        put(db, i);
    ddb_close(db);
    assert_false(exists("commit.log"));
    assert_false(exists("commit.ckpt"));
    reopen_expect(false, ITEMS);
    cleanup();
}

static void test_replay_restores_every_acknowledged_write(void **state)
{
    (void)state;
    long off[ITEMS + 8], end;
    crashed("replay", off, &end);
    reopen_expect(true, ITEMS);
    /* and the replay is durable: the next open has no log to replay */
    reopen_expect(false, ITEMS);
    cleanup();
}

static void test_replay_without_the_log_option_retires_it(void **state)
{
    (void)state;
    fresh("retire");
    writer_dies();
    ddb *db = must_open(false);
    assert_false(exists("commit.log"));
    assert_false(exists("commit.ckpt"));
    expect_items(db, ITEMS);
    ddb_close(db);
    cleanup();
}

static void test_torn_tail_is_dropped(void **state)
{
    (void)state;
    long off[ITEMS + 8], end;
    crashed("torn", off, &end);
    truncate_log(end - 3); /* the last record cut short */
    reopen_expect(true, ITEMS - 1);
    cleanup();

    crashed("junk", off, &end);
    static const char junk[] = "LOG1 not a record, a torn write's leftovers";
    patch_log(end, junk, sizeof junk);
    reopen_expect(true, ITEMS);
    cleanup();
}

static void test_never_replayed_past_a_damaged_record(void **state)
{
    (void)state;
    long off[ITEMS + 8], end;
    crashed("gap", off, &end);
    int k = ITEMS / 2;
    unsigned char flip = 0xff;
    patch_log(off[k] + HEADER + 2, &flip, 1); /* inside record k's changes: its CRC fails */
    ddb *db = must_open(true);
    expect_items(db, k); /* records k+1.. are whole, and not replayed */
    ddb_close(db);
    cleanup();
}

static void test_the_directory_has_one_log_writer(void **state)
{
    (void)state;
    fresh("owner");
    int go[2], done[2];
    if (pipe(go) || pipe(done))
        fail_msg("pipe");
    pid_t pid = fork();
    if (pid == 0) {
        ddb *db = must_open(true);
        put(db, 0);
        char c = 1;
        if (write(done[1], &c, 1) != 1 || read(go[0], &c, 1) != 1)
            _exit(2);
        _exit(0); /* dies holding the log */
    }
    char c;
    if (read(done[0], &c, 1) != 1)
        fail_msg("the writer did not open");
    int rc;
    ddb_error err = {0};
    ddb *db = open_db(true, false, &rc, &err);
    assert_int_equal(rc, DDB_EINVAL);
    assert_null(db);
    assert_non_null(strstr(err.message, "commit log"));
    db = open_db(false, false, &rc, &err);
    assert_int_equal(rc, DDB_EINVAL);
    assert_non_null(strstr(err.message, "commit log"));
    db = open_db(false, true, &rc, &err); /* a reader alongside the live writer */
    assert_int_equal(rc, DDB_OK);
    assert_true(present(db, 0));
    ddb_close(db);
    if (write(go[1], &c, 1) != 1)
        fail_msg("pipe");
    int st;
    waitpid(pid, &st, 0);
    close(go[0]), close(go[1]), close(done[0]), close(done[1]);
    db = open_db(false, true, &rc, &err); /* the writer died: its log must be replayed first */
    assert_int_equal(rc, DDB_EINVAL);
    assert_non_null(strstr(err.message, "open the database for writing once"));
    reopen_expect(true, 1);

    /* a writer without the log holds the directory: the log is refused */
    if (pipe(go) || pipe(done))
        fail_msg("pipe");
    pid = fork();
    if (pid == 0) {
        ddb *w = must_open(false);
        char x = 1;
        if (write(done[1], &x, 1) != 1 || read(go[0], &x, 1) != 1)
            _exit(2);
        ddb_close(w);
        _exit(0);
    }
    if (read(done[0], &c, 1) != 1)
        fail_msg("the writer did not open");
    db = open_db(true, false, &rc, &err);
    assert_int_equal(rc, DDB_EINVAL);
    assert_non_null(strstr(err.message, "needs the directory to itself"));
    if (write(go[1], &c, 1) != 1)
        fail_msg("pipe");
    waitpid(pid, &st, 0);
    close(go[0]), close(go[1]), close(done[0]), close(done[1]);
    cleanup();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clean_close_retires_the_log),
        cmocka_unit_test(test_replay_restores_every_acknowledged_write),
        cmocka_unit_test(test_replay_without_the_log_option_retires_it),
        cmocka_unit_test(test_torn_tail_is_dropped),
        cmocka_unit_test(test_never_replayed_past_a_damaged_record),
        cmocka_unit_test(test_the_directory_has_one_log_writer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
