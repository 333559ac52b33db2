/* `ddb check` (the tool, argv[1]) on damaged files.  Issue 11, item 4: the
 * checker runs in a child process, so a crash inside it (LMDB asserts or
 * faults on some damaged pages) is reported with its signal and a non-zero
 * exit, not a dead tool; the crash is made by preloading a shim whose
 * mdb_env_info aborts (argv[2]).  Item 2: a truncated file and a lost table
 * definition are no longer "0 tables checked, all clean".  Issue 22: a
 * table check that LMDB stops ("Located page was wrong type") reports that
 * reason, not "0 problems ...; the first: " and nothing. */
#include <ddb/ddb.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "damaged_util.h"

static const char *tool, *shim;

/* Run `ddb check dir` (with LD_PRELOAD=preload when given); its exit
 * status, and its stdout and stderr together in out. */
static int run_check(const char *dir, const char *preload, char *out, size_t cap)
{
    char cmd[6000];
    snprintf(cmd, sizeof cmd, "%s%s%s '%s' check '%s' 2>&1", preload ? "LD_PRELOAD='" : "", preload ? preload : "",
             preload ? "' " : "", tool, dir);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void test_checker_crash_reported(void **state)
{
    (void)state;
    char dir[1024], out[8192];
    dmg_dir(dir, sizeof dir, "checkchild");
    ddb *db = NULL;
    ddb_error err = {0};
    assert_int_equal(ddb_open(dir, NULL, &db, &err), DDB_OK);
    ddb_table_def def = {.name = "Tab", .key = {.pk = "PK", .pk_type = DDB_TS, .sk = NULL, .sk_type = 0}};
    assert_int_equal(ddb_create_table(db, &def, &err), DDB_OK);
    ddb_close(db);

    assert_int_equal(run_check(dir, NULL, out, sizeof out), 0);
    assert_non_null(strstr(out, "1 table checked, all clean"));

    assert_int_equal(run_check(dir, shim, out, sizeof out), 2);
    if (!strstr(out, "ddb check: the checker crashed (signal 6, Aborted)"))
        fail_msg("unexpected output: %s", out);
    dmg_rmdir(dir);
}

/* A database with one table holding one item (with attribute marker set
 * to marker, when given). */
static void one_item_db(char *dir, size_t cap, const char *tag, const char *marker)
{
    dmg_dir(dir, cap, tag);
    ddb *db = NULL;
    ddb_error err = {0};
    ddb_arena *a = ddb_arena_new();
    ddb_item *it = ddb_item_new(a);
    ddb_item_set_s(it, "PK", "p1");
    if (marker)
        ddb_item_set_s(it, "marker", marker);
    ddb_table_def def = {.name = "Tab", .key = {.pk = "PK", .pk_type = DDB_TS, .sk = NULL, .sk_type = 0}};
    if (ddb_open(dir, NULL, &db, &err) || ddb_create_table(db, &def, &err) ||
        ddb_put_item(db, "Tab", it, NULL, a, NULL, &err))
        fail_msg("%s", err.message);
    ddb_close(db);
    ddb_arena_free(a);
}

static void test_truncated_and_lost_catalog(void **state)
{
    (void)state;
    char dir[1024], out[8192];
    one_item_db(dir, sizeof dir, "checktrunc", NULL);
    size_t n;
    unsigned char *f = dmg_read(dir, &n);
    assert_non_null(f);
    assert_int_equal(dmg_write(dir, f, n - n / 3), 0);
    assert_int_equal(run_check(dir, NULL, out, sizeof out), 2);
    if (!strstr(out, "is truncated"))
        fail_msg("unexpected output: %s", out);
    free(f);
    dmg_rmdir(dir);

    one_item_db(dir, sizeof dir, "checklost", NULL);
    dmg_raw w;
    assert_int_equal(dmg_raw_open(&w, dir), 0);
    assert_int_equal(dmg_raw_del(&w, "meta", "t/Tab"), 0);
    assert_int_equal(dmg_raw_close(&w), 0);
    assert_int_equal(run_check(dir, NULL, out, sizeof out), 1);
    if (!strstr(out, "catalog: 1 problem; the first: database \"i/Tab\" holds items of a table that has no "
                     "definition\n0 tables checked, clean, but the catalog has problems\n"))
        fail_msg("unexpected output: %s", out);
    dmg_rmdir(dir);
}

/* Issue 22, section 2: the leaf page of Tab's items made neither leaf nor
 * branch (its flags zeroed: LMDB answers MDB_CORRUPTED, "Located page was
 * wrong type").  The check stops there; the reason reaches the output. */
static void test_stopped_check_says_why(void **state)
{
    (void)state;
    char dir[1024], out[8192];
    static const char marker[] = "a-value-found-only-in-the-items-leaf";
    one_item_db(dir, sizeof dir, "checkwhy", marker);
    size_t n, psize = (size_t)sysconf(_SC_PAGESIZE), hits = 0;
    unsigned char *f = dmg_read(dir, &n);
    assert_non_null(f);
    for (size_t i = 0; i + sizeof marker <= n; i++)
        if (memcmp(f + i, marker, sizeof marker - 1) == 0) {
            size_t page = i / psize * psize;
            f[page + 10] = f[page + 11] = 0; /* mp_flags: after mp_pgno (8 bytes) and mp_pad (2) */
            hits++;
        }
    assert_true(hits >= 1);
    assert_int_equal(dmg_write(dir, f, n), 0);
    free(f);
    assert_int_equal(run_check(dir, NULL, out, sizeof out), 1);
    if (!strstr(out, "table Tab: 1 problem in its items and indexes; the first: ") ||
        !strstr(out, "Located page was wrong type"))
        fail_msg("unexpected output: %s", out);
    dmg_rmdir(dir);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_check_child DDB_TOOL ABORT_SHIM\n");
        return 2;
    }
    tool = argv[1];
    shim = argv[2];
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_checker_crash_reported),
                                       cmocka_unit_test(test_truncated_and_lost_catalog),
                                       cmocka_unit_test(test_stopped_check_says_why)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
