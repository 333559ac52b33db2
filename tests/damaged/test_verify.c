/* A page LMDB aborts on (issue 22, section 2): a leaf page of a table's
 * items whose flags say neither leaf nor branch.  A cursor stepping onto it
 * fails LMDB's assertion IS_LEAF and the process aborts; under `ddb serve`
 * the TTL sweeper got there within a second of the start, before any
 * request was answered, and every restart crashed again.
 *
 * Shown here: the damage does abort a reader (in a child process); with
 * ddb_options.verify, ddb_open refuses the file with DDB_ECORRUPT naming
 * `ddb check DIR`, and the caller lives on; `ddb serve` (the tool,
 * argv[1]) verifies by default and exits with that message instead of
 * aborting; a clean database opens and serves as before. */
#include <ddb/ddb.h>

#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "core/keycodec.h"
#include "damaged_util.h"

static const char *tool;
static const char MARKER[] = "this-item-sits-on-the-last-leaf-page";

/* Table Tab (PK; TTL on exp, far ahead) of 300 items of ~200 bytes (many
 * leaf pages); the item with the greatest stored key, on the last leaf page
 * (never the first), carries MARKER. */
static void build(const char *dir)
{
    ddb *db = NULL;
    ddb_error err = {0};
    ddb_arena *a = ddb_arena_new();
    ddb_table_def def = {.name = "Tab", .key = {.pk = "PK", .pk_type = DDB_TS, .sk = NULL, .sk_type = 0}, .ttl_attribute = "exp"};
    if (ddb_open(dir, &(ddb_options){.sync = DDB_SYNC_LAZY}, &db, &err) || ddb_create_table(db, &def, &err))
        fail_msg("%s", err.message);
    char pk[16], last[16] = "";
    ddb_key max = {{0}, 0};
    for (int i = 0; i < 300; i++) {
        snprintf(pk, sizeof pk, "item%d", i);
        ddb_key k;
        ddbi_key_make(&k, ddb_v_str(a, pk), NULL);
        if (memcmp(k.b, max.b, DDB_DIGEST_LEN) > 0) {
            max = k;
            snprintf(last, sizeof last, "%s", pk);
        }
    }
    char pad[200];
    memset(pad, 'x', sizeof pad - 1);
    pad[sizeof pad - 1] = '\0';
    for (int i = 0; i < 300; i++) {
        ddb_item *it = ddb_item_new(a);
        snprintf(pk, sizeof pk, "item%d", i);
        ddb_item_set_s(it, "PK", pk);
        ddb_item_set_s(it, "pad", strcmp(pk, last) == 0 ? MARKER : pad);
        ddb_item_set_i64(it, "exp", 4102444800);
        if (ddb_put_item(db, "Tab", it, NULL, a, NULL, &err))
            fail_msg("%s", err.message);
    }
    ddb_close(db);
    ddb_arena_free(a);
}

/* Zero the flags of every page holding MARKER (the live leaf and any stale
 * copy): LMDB's mp_flags, after mp_pgno (8 bytes) and mp_pad (2). */
static void damage(const char *dir)
{
    size_t n, psize = (size_t)sysconf(_SC_PAGESIZE), hits = 0;
    unsigned char *f = dmg_read(dir, &n);
    assert_non_null(f);
    for (size_t i = 0; i + sizeof MARKER <= n; i++)
        if (memcmp(f + i, MARKER, sizeof MARKER - 1) == 0) {
            f[i / psize * psize + 10] = f[i / psize * psize + 11] = 0;
            hits++;
        }
    assert_true(hits >= 1);
    assert_int_equal(dmg_write(dir, f, n), 0);
    free(f);
}

/* Scan Tab to its end in a child process: its wait status. */
static int scan_in_child(const char *dir)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        ddb *db = NULL;
        ddb_error err = {0};
        if (ddb_open(dir, NULL, &db, &err))
            _exit(3);
        ddb_arena *a = ddb_arena_new();
        ddb_scan_params sp = {.table = "Tab", .limit = 50};
        ddb_page page;
        while (ddb_scan(db, &sp, a, &page, &err) == DDB_OK && page.last_key)
            sp.start_key = page.last_key;
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    return st;
}

/* Run `ddb serve --db dir` on a free loopback port, stopped at once when
 * it starts (SIGTERM once the port file appears); its exit status and
 * output. */
static int run_serve(const char *dir, char *out, size_t cap)
{
    char cmd[6000], port[1100];
    snprintf(port, sizeof port, "%s.port", dir);
    unlink(port);
    snprintf(cmd, sizeof cmd,
             "'%s' --db '%s' serve --listen 127.0.0.1:0 --port-file '%s' --log-level none 2>&1 & p=$!; "
             "while kill -0 $p 2>/dev/null && ! test -s '%s'; do sleep 0.05; done; "
             "kill -TERM $p 2>/dev/null; wait $p",
             tool, dir, port, port);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    unlink(port);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void test_verify_refuses_an_aborting_page(void **state)
{
    (void)state;
    char dir[1024], out[8192];
    dmg_dir(dir, sizeof dir, "verify");
    build(dir);

    /* clean: opens with verify; the server starts (and stops on SIGTERM) */
    ddb *db = NULL;
    ddb_error err = {0};
    if (ddb_open(dir, &(ddb_options){.verify = true}, &db, &err))
        fail_msg("a clean database: %s", err.message);
    ddb_close(db);
    int rc = run_serve(dir, out, sizeof out);
    if (rc != 0 || !strstr(out, "listening on"))
        fail_msg("a clean database: exit %d: %s", rc, out);

    damage(dir);
    /* the damage is the kind LMDB aborts on */
    int st = scan_in_child(dir);
    assert_true(WIFSIGNALED(st));
    assert_int_equal(WTERMSIG(st), SIGABRT);

    /* verify: refused, the caller lives on */
    assert_int_equal(ddb_open(dir, &(ddb_options){.verify = true}, &db, &err), DDB_ECORRUPT);
    assert_null(db);
    char want[1200];
    snprintf(want, sizeof want, "run `ddb check %s`", dir);
    if (!strstr(err.message, want) || !strstr(err.message, "is damaged"))
        fail_msg("unexpected message: %s", err.message);

    /* ddb serve: refuses with that message instead of aborting */
    rc = run_serve(dir, out, sizeof out);
    if (rc != 1 || !strstr(out, want) || strstr(out, "listening on"))
        fail_msg("ddb serve on the damaged file: exit %d: %s", rc, out);
    dmg_rmdir(dir);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_verify DDB_TOOL\n");
        return 2;
    }
    tool = argv[1];
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_verify_refuses_an_aborting_page)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
