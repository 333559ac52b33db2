/* Failed syncs and full disks, under the power-loss shim (powerloss_shim.c,
 * LD_PRELOADed by ctest; this program finds its control functions with
 * dlsym).
 *   - a failed fdatasync in FULL mode: every write then waiting for its
 *     batch to become durable answers DDB_EUNKNOWN (it was committed: on
 *     disk or not), every later write fails with DDB_EIO ("a sync failed;
 *     reopen the database"); no write acknowledged with DDB_OK is missing
 *     from the disk image (the shadow), and none that answered DDB_EIO is
 *     in it; reopening works;
 *   - issue 22, section 3: a write whose transaction was written with its
 *     meta page when a sync failed may be on disk or not: DDB_EUNKNOWN,
 *     "the outcome of this commit is unknown" (the C API, a CreateTable,
 *     a generated module's create), never an answer that says it failed:
 *     DynamoDB's InternalServerError (HTTP 500; Developer Guide, "Error
 *     handling with DynamoDB") leaves a write's outcome open the same way,
 *     and API_TransactWriteItems's ClientRequestToken is its safe retry;
 *     one whose commit failed before its meta page was written is not
 *     applied (DDB_EIO, and it is absent after a reopen); one refused by
 *     the poisoned handle is absent too;
 *   - a full disk (the shim's file size cap: a short write, then ENOSPC)
 *     in each sync mode: DDB_EFULL "No space left on device", no signal,
 *     the handle refuses later writes, a reopened handle reads everything
 *     acknowledged;
 *   - the process's file size limit (RLIMIT_FSIZE, the real kernel, no
 *     shim): DDB_EFULL, no SIGXFSZ/SIGBUS, also in DDB_SYNC_NONE (whose
 *     writable map once made the file a sparse 64 GiB and died of SIGBUS). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ddb/ddb.h>

#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "fleet_ddb.h"
#include "powerloss_shim.h"

#define TABLE "Tab"
#define THREADS 8
#define PER_THREAD 400

static ddbt_shim_start_fn shim_start;
static ddbt_shim_fail_sync_in_fn shim_fail_sync_in;

static void fresh_dirs(const char *name, char *dir, char *shadow, size_t cap)
{
    const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char cmd[3200];
    if (snprintf(dir, cap, "%s/ddbsync-%s-%d", base, name, (int)getpid()) >= (int)cap ||
        snprintf(shadow, cap, "%s.shadow", dir) >= (int)cap ||
        snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s' && mkdir -p '%s'", dir, shadow, shadow) >= (int)sizeof cmd)
        fail_msg("TMPDIR is too long");
    if (system(cmd) != 0)
        fail_msg("cannot prepare %s", dir);
}

static void remove_dirs(const char *dir, const char *shadow)
{
    char cmd[2200];
    if (snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", dir, shadow) >= (int)sizeof cmd || system(cmd) != 0)
        fail_msg("cannot remove %s", dir);
}

static void create_table(ddb *db)
{
    ddb_index_def ix[] = {{.name = "ByG", .key = {.pk = "g", .pk_type = DDB_TS, .sk = "PK", .sk_type = DDB_TS}}};
    ddb_table_def def = {.name = TABLE, .key = {.pk = "PK", .pk_type = DDB_TS}, .indexes = ix, .n_indexes = 1};
    ddb_error err = {0};
    if (ddb_create_table(db, &def, &err))
        fail_msg("create table: %s", err.message);
}

/* A new database at dir holding the empty table. */
static void new_db(const char *dir, ddb_sync_mode mode)
{
    ddb_options o = {.sync = mode};
    ddb *db = NULL;
    ddb_error err = {0};
    if (ddb_open(dir, &o, &db, &err))
        fail_msg("open: %s", err.message);
    create_table(db);
    ddb_close(db);
}

/* A new FULL database at a fresh dir (holding the empty table) watched by
 * the shim from now on, open. */
static ddb *open_watched(const char *name, char *dir, char *shadow, size_t cap)
{
    fresh_dirs(name, dir, shadow, cap);
    new_db(dir, DDB_SYNC_FULL);
    shim_start(dir, shadow, 0, 0, false);
    ddb *db = NULL;
    ddb_error err = {0};
    ddb_options o = {.sync = DDB_SYNC_FULL};
    if (ddb_open(dir, &o, &db, &err))
        fail_msg("open: %s", err.message);
    return db;
}

static ddb_item *make_item(ddb_arena *a, int thread, int i, size_t pad)
{
    char k[32], g[16];
    snprintf(k, sizeof k, "t%d-%d", thread, i);
    snprintf(g, sizeof g, "g%d", thread);
    ddb_item *it = ddb_item_new(a);
    ddb_item_set_s(it, "PK", k);
    ddb_item_set_s(it, "g", g);
    char *data = ddb_arena_alloc(a, pad + 1);
    memset(data, 'a' + (i % 26), pad);
    data[pad] = '\0';
    ddb_item_set_s(it, "data", data);
    return it;
}

static ddb_item *make_key(ddb_arena *a, int thread, int i)
{
    char k[32];
    snprintf(k, sizeof k, "t%d-%d", thread, i);
    ddb_item *it = ddb_item_new(a);
    ddb_item_set_s(it, "PK", k);
    return it;
}

static bool refused(int rc, const ddb_error *err)
{
    return rc == DDB_EIO && strstr(err->message, "a sync failed; reopen the database") != NULL;
}

/* DynamoDB's InternalServerError: "the outcome of this commit is unknown". */
static bool unknown(int rc, const ddb_error *err)
{
    return rc == DDB_EUNKNOWN && strstr(err->message, "the outcome of this commit is unknown") != NULL;
}

/* ---- one failed fdatasync under concurrent FULL writers ---- */

typedef struct writer {
    ddb *db;
    int id;
    int acked;         /* items t<id>-0 .. acked-1 were acknowledged */
    int first_rc;      /* the first failure */
    char first_msg[DDB_ERROR_TEXT_SIZE];
    int later_rc;      /* a write after it */
    ddb_error later;
} writer;

static void *write_until_failure(void *p)
{
    writer *w = p;
    ddb_arena *a = ddb_arena_new();
    for (int i = 0; i < PER_THREAD; i++) {
        ddb_error err = {0};
        int rc = ddb_put_item(w->db, TABLE, make_item(a, w->id, i, 100), NULL, NULL, NULL, &err);
        ddb_arena_reset(a);
        if (rc) {
            w->first_rc = rc;
            snprintf(w->first_msg, sizeof w->first_msg, "%s", err.message);
            w->later_rc = ddb_put_item(w->db, TABLE, make_item(a, w->id, PER_THREAD, 100), NULL, NULL, NULL, &w->later);
            break;
        }
        w->acked = i + 1;
    }
    ddb_arena_free(a);
    return NULL;
}

/* Is item t<thread>-<i> in the database at dir? */
static bool present(const char *dir, int thread, int i)
{
    ddb *db = NULL;
    ddb_error err = {0};
    if (ddb_open(dir, NULL, &db, &err))
        fail_msg("open %s: %s", dir, err.message);
    ddb_arena *a = ddb_arena_new();
    ddb_item *got = NULL;
    int rc = ddb_get_item(db, TABLE, make_key(a, thread, i), NULL, a, &got, NULL, &err);
    if (rc && rc != DDB_ENOTFOUND)
        fail_msg("get t%d-%d: %s", thread, i, err.message);
    ddb_arena_free(a);
    ddb_close(db);
    return rc == DDB_OK;
}

/* Every acknowledged item of every writer is in the database at dir. */
static void expect_acked(const char *dir, const writer *w, int n, const char *what)
{
    ddb *db = NULL;
    ddb_error err = {0};
    if (ddb_open(dir, NULL, &db, &err))
        fail_msg("%s: open: %s", what, err.message);
    ddb_arena *a = ddb_arena_new();
    for (int t = 0; t < n; t++)
        for (int i = 0; i < w[t].acked; i++) {
            ddb_item *got = NULL;
            ddb_get_opts go = {.consistent = true};
            int rc = ddb_get_item(db, TABLE, make_key(a, t, i), &go, a, &got, NULL, &err);
            if (rc)
                fail_msg("%s: acknowledged item t%d-%d is lost (%s)", what, t, i,
                         rc == DDB_ENOTFOUND ? "not found" : err.message);
            ddb_arena_reset(a);
        }
    ddb_check_report r;
    if (ddb_check_table(db, TABLE, &r, &err))
        fail_msg("%s: ddb_check_table: %s", what, err.message);
    ddb_arena_free(a);
    ddb_close(db);
}

static void test_failed_sync_poisons(void **state)
{
    (void)state;
    char dir[1024], shadow[1024];
    ddb *db = open_watched("failsync", dir, shadow, sizeof dir);
    ddb_error err = {0};
    ddb_options o = {.sync = DDB_SYNC_FULL};
    /* some syncs into the run, so that batches are in flight */
    shim_fail_sync_in(6);
    writer w[THREADS];
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++) {
        w[i] = (writer){.db = db, .id = i};
        assert_int_equal(pthread_create(&th[i], NULL, write_until_failure, &w[i]), 0);
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < THREADS; i++) {
        if (w[i].first_rc != DDB_EIO && w[i].first_rc != DDB_EUNKNOWN)
            fail_msg("writer %d: after %d acknowledged writes: %d %s (expected DDB_EIO or DDB_EUNKNOWN)", i,
                     w[i].acked, w[i].first_rc, w[i].first_msg);
        if (!refused(w[i].later_rc, &w[i].later))
            fail_msg("writer %d: a write after the failure answered %d %s", i, w[i].later_rc, w[i].later.message);
    }
    /* the handle refuses every write now, DDL and ddb_sync included */
    ddb_arena *a = ddb_arena_new();
    int rc = ddb_put_item(db, TABLE, make_item(a, 99, 0, 10), NULL, NULL, NULL, &err);
    assert_true(refused(rc, &err));
    ddb_table_def def2 = {.name = "Tab2", .key = {.pk = "PK", .pk_type = DDB_TS}};
    rc = ddb_create_table(db, &def2, &err);
    assert_true(refused(rc, &err));
    rc = ddb_sync(db, &err);
    assert_true(refused(rc, &err));
    ddb_close(db);
    /* the disk image holds every acknowledged write, and no write that
     * answered it failed (DDB_EIO: not applied) */
    expect_acked(shadow, w, THREADS, "the disk after the failed sync");
    for (int i = 0; i < THREADS; i++)
        if (w[i].first_rc == DDB_EIO && present(shadow, i, w[i].acked))
            fail_msg("writer %d: write t%d-%d answered \"%s\" and is on the disk", i, i, w[i].acked, w[i].first_msg);
    /* reopening recovers: writes work again */
    if (ddb_open(dir, &o, &db, &err))
        fail_msg("reopen: %s", err.message);
    if (ddb_put_item(db, TABLE, make_item(a, 99, 0, 10), NULL, NULL, NULL, &err))
        fail_msg("put after reopen: %s", err.message);
    ddb_close(db);
    ddb_arena_free(a);
    remove_dirs(dir, shadow);
}

/* ---- the outcome of a commit whose sync failed (issue 22, section 3) ---- */

/* One FULL writer: write 0 acknowledged, then the sync_in-th sync from
 * there fails under write 1 (1: the commit's own sync of the data, before
 * LMDB writes the meta page; 2: the sync of that meta page).  Write 1's
 * answer and code are returned; write 2, after it, is refused and absent. */
static int one_failed_sync(unsigned long sync_in, ddb_error *first)
{
    char dir[1024], shadow[1024];
    ddb *db = open_watched(sync_in == 1 ? "unknown-data" : "unknown-meta", dir, shadow, sizeof dir);
    ddb_error err = {0};
    ddb_arena *a = ddb_arena_new();
    if (ddb_put_item(db, TABLE, make_item(a, 0, 0, 100), NULL, NULL, NULL, &err))
        fail_msg("write 0: %s", err.message);
    shim_fail_sync_in(sync_in);
    int rc = ddb_put_item(db, TABLE, make_item(a, 0, 1, 100), NULL, NULL, NULL, first);
    int later = ddb_put_item(db, TABLE, make_item(a, 0, 2, 100), NULL, NULL, NULL, &err);
    if (!refused(later, &err))
        fail_msg("a write after the failed sync answered %d %s", later, err.message);
    ddb_close(db);
    ddb_arena_free(a);
    assert_true(present(shadow, 0, 0)); /* acknowledged: on the disk */
    assert_false(present(shadow, 0, 2)); /* refused: nowhere */
    assert_false(present(dir, 0, 2));
    if (rc == DDB_EIO)
        assert_false(present(dir, 0, 1)); /* "failed" means not applied, even in the file */
    remove_dirs(dir, shadow);
    return rc;
}

static void test_unknown_outcome(void **state)
{
    (void)state;
    ddb_error err = {0};
    /* the meta page was written, its sync failed: on disk or not */
    int rc = one_failed_sync(2, &err);
    if (!unknown(rc, &err))
        fail_msg("the meta page's sync failed: %d %s (DDB_EUNKNOWN expected)", rc, err.message);
    /* the commit's own sync failed: LMDB wrote no meta page, nothing applied */
    rc = one_failed_sync(1, &err);
    if (rc != DDB_EIO || !strstr(err.message, "commit"))
        fail_msg("the commit's sync failed: %d %s (DDB_EIO expected)", rc, err.message);

    /* a CreateTable (its own transaction) and a generated module's create */
    char dir[1024], shadow[1024];
    ddb *db = open_watched("unknown-ddl", dir, shadow, sizeof dir);
    ddb_options o = {.sync = DDB_SYNC_FULL};
    shim_fail_sync_in(2);
    rc = fleet_create_table(db, &err);
    if (!unknown(rc, &err))
        fail_msg("CreateTable whose meta page's sync failed: %d %s", rc, err.message);
    ddb_close(db);
    shim_start(dir, shadow, 0, 0, false); /* a new start: the file as it is now */
    if (ddb_open(dir, &o, &db, &err))
        fail_msg("reopen: %s", err.message);
    if (fleet_open(db, &err)) /* the table was created, or is now: the retry is safe */
        fail_msg("fleet_open after the reopen: %s", err.message);
    struct site s = {.site_id = "s1", .name = "North", .region = "eu"};
    if (site_create(db, &s, NULL, NULL, &err))
        fail_msg("site_create: %s", err.message);
    shim_fail_sync_in(2);
    struct site s2 = {.site_id = "s2", .name = "South", .region = "eu"};
    rc = site_create(db, &s2, NULL, NULL, &err);
    if (!unknown(rc, &err))
        fail_msg("a typed create whose meta page's sync failed: %d %s", rc, err.message);
    ddb_close(db);
    remove_dirs(dir, shadow);
}

/* ---- a full disk ---- */

/* Fill the database at dir (opened in mode) until a write fails; returns
 * the number of acknowledged writes.  Runs in a child process by the
 * caller, so a signal shows as such. */
static int fill(const char *dir, ddb_sync_mode mode, const char *want_msg)
{
    ddb_options o = {.sync = mode};
    ddb *db = NULL;
    ddb_error err = {0};
    if (ddb_open(dir, &o, &db, &err)) {
        fprintf(stderr, "open: %s\n", err.message);
        _exit(10);
    }
    ddb_arena *a = ddb_arena_new();
    int rc = 0, n = 0;
    for (; n < 5000; n++) { /* 5000 x 8 KB: far beyond any cap used here */
        rc = ddb_put_item(db, TABLE, make_item(a, 0, n, 8000), NULL, NULL, NULL, &err);
        ddb_arena_reset(a);
        if (rc)
            break;
    }
    if (rc != DDB_EFULL || !strstr(err.message, want_msg)) {
        fprintf(stderr, "after %d writes: %d %s (expected DDB_EFULL \"%s\")\n", n, rc, rc ? err.message : "",
                want_msg);
        _exit(11);
    }
    rc = ddb_put_item(db, TABLE, make_item(a, 0, 0, 10), NULL, NULL, NULL, &err);
    if (!refused(rc, &err)) {
        fprintf(stderr, "a write after the full disk: %d %s\n", rc, err.message);
        _exit(12);
    }
    ddb_close(db);
    ddb_arena_free(a);
    _exit(n > 0 ? 0 : 13);
}

static void expect_child_ok(pid_t pid, const char *what)
{
    int st;
    while (waitpid(pid, &st, 0) < 0)
        ;
    if (WIFSIGNALED(st))
        fail_msg("%s: the writer died of signal %d (%s)", what, WTERMSIG(st), strsignal(WTERMSIG(st)));
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        fail_msg("%s: the writer failed (status %d, see stderr)", what, WEXITSTATUS(st));
}

static void full_disk(ddb_sync_mode mode, const char *name)
{
    char dir[1024], shadow[1024];
    fresh_dirs(name, dir, shadow, sizeof dir);
    new_db(dir, mode);
    char file[1100];
    snprintf(file, sizeof file, "%s/data.mdb", dir);
    struct stat st;
    assert_int_equal(stat(file, &st), 0);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGBUS, SIG_DFL);
        signal(SIGSEGV, SIG_DFL);
        shim_start(dir, shadow, 0, (uint64_t)st.st_size + 300 * 1024 + 1234, false);
        fill(dir, mode, "No space left on device");
    }
    expect_child_ok(pid, name);
    /* the writes acknowledged before the disk filled are there */
    ddb_options o = {.sync = mode};
    ddb *db = NULL;
    ddb_error err = {0};
    if (ddb_open(dir, &o, &db, &err))
        fail_msg("%s: reopen after the full disk: %s", name, err.message);
    ddb_check_report r;
    if (ddb_check_table(db, TABLE, &r, &err))
        fail_msg("%s: check after the full disk: %s", name, err.message);
    assert_true(r.items > 0);
    ddb_close(db);
    remove_dirs(dir, shadow);
}

static void test_full_disk_full(void **state)
{
    (void)state;
    full_disk(DDB_SYNC_FULL, "enospc-full");
}

static void test_full_disk_lazy(void **state)
{
    (void)state;
    full_disk(DDB_SYNC_LAZY, "enospc-lazy");
}

static void test_full_disk_none(void **state)
{
    (void)state;
    full_disk(DDB_SYNC_NONE, "enospc-none");
}

/* The real kernel's answer to a write beyond RLIMIT_FSIZE: EFBIG, or a
 * short write that LMDB reports as EIO; both are DDB_EFULL. */
static void test_file_size_limit(void **state)
{
    (void)state;
    const ddb_sync_mode modes[] = {DDB_SYNC_FULL, DDB_SYNC_NONE};
    for (size_t m = 0; m < 2; m++) {
        char dir[1024], shadow[1024];
        fresh_dirs(m ? "fsize-none" : "fsize-full", dir, shadow, sizeof dir);
        new_db(dir, modes[m]);
        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0) {
            signal(SIGBUS, SIG_DFL);
            signal(SIGXFSZ, SIG_IGN); /* else the kernel kills the process at the limit */
            struct rlimit rl = {2u << 20, 2u << 20};
            if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
                _exit(20);
            fill(dir, modes[m], "File too large");
        }
        expect_child_ok(pid, m ? "RLIMIT_FSIZE, DDB_SYNC_NONE" : "RLIMIT_FSIZE, DDB_SYNC_FULL");
        remove_dirs(dir, shadow);
    }
}

int main(void)
{
    shim_start = (ddbt_shim_start_fn)dlsym(RTLD_DEFAULT, "ddbt_shim_start");
    shim_fail_sync_in = (ddbt_shim_fail_sync_in_fn)dlsym(RTLD_DEFAULT, "ddbt_shim_fail_sync_in");
    if (!shim_start || !shim_fail_sync_in) {
        fprintf(stderr, "test_sync_failure: run with LD_PRELOAD=<the powerloss shim>\n");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_failed_sync_poisons), cmocka_unit_test(test_full_disk_full),
        cmocka_unit_test(test_full_disk_lazy),      cmocka_unit_test(test_full_disk_none),
        cmocka_unit_test(test_file_size_limit),     cmocka_unit_test(test_unknown_outcome),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
