/* Corruption fuzzer (issue 11): a small database is written, then for many
 * rounds a copy of its data.mdb is damaged at random (bytes flipped, pages
 * zeroed, the file truncated, a table's catalog key renamed) and a
 * child process opens it, lists the tables, scans (paging) and queries
 * them, and runs every check, under alarm(CHILD_SECONDS).
 *
 * Pass: no sanitizer report, no crash in ddb's code, no hang, no Scan whose
 * pages do not end, and no "clean" from the checks unless the file still
 * lists every table with every item.  LMDB asserts or faults on some damaged
 * pages (README, "Damaged files"): a crash is tolerated when the faulting
 * code is liblmdb's (faulting_object: the first frame past the signal
 * trampoline, libc and the sanitizer's interceptors, found with backtrace()
 * and dladdr(); ddb is linked statically into this program, so its frames
 * are never in liblmdb); any crash that cannot be attributed so fails.  An
 * AddressSanitizer report inside liblmdb (a write through a damaged page)
 * is tolerated only while the handle has answered no DDB_ECORRUPT: after
 * one it writes nothing, the capacity ledger at close included.
 *
 * DDB_FUZZ_SEED (default: from the clock; always printed), DDB_FUZZ_ROUNDS
 * (default 120) and DDB_FUZZ_SECONDS (the time budget for starting rounds,
 * default 40) make a run reproducible and bounded. */
#include <ddb/ddb.h>

#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/wait.h>
#include <time.h>

#include "damaged_util.h"

#if defined(__SANITIZE_ADDRESS__)
#define FUZZ_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FUZZ_ASAN 1
#endif
#endif
#ifdef FUZZ_ASAN
#include <sanitizer/asan_interface.h>
#endif

#define CHILD_SECONDS 20
#define EXIT_LMDB_CRASH 42
#define MAX_PAGES 2000 /* a Scan of this many pages has not ended */

static const char *const TABLES[] = {"Tab", "Two"};
#define N_TABLES 2
static const uint64_t ITEMS[N_TABLES] = {300, 100};

/* ---- the database ---- */

static void put_item(ddb *db, const char *table, int i)
{
    ddb_arena *a = ddb_arena_new();
    ddb_item *it = ddb_item_new(a);
    ddb_error err = {0};
    char pk[32], gp[16], gs[700];
    snprintf(pk, sizeof pk, "item%d", i);
    ddb_item_set_s(it, "PK", pk);
    if (strcmp(table, "Tab") == 0) {
        ddb_item_set_s(it, "SK", i % 2 ? "a" : "b");
        snprintf(gp, sizeof gp, "g%d", i % 5);
        /* every seventh index sort key is long (511-byte LMDB keys, re-sorted runs) */
        memset(gs, 'x', 600);
        snprintf(i % 7 ? gs : gs + 600, 40, "k%d", i);
        ddb_item_set_s(it, "GP", gp);
        ddb_item_set_s(it, "GS", gs);
        ddb_item_set_i64(it, "n", i);
    } else {
        ddb_item_set_s(it, "data", "some words for the value");
    }
    if (ddb_put_item(db, table, it, NULL, a, NULL, &err)) {
        fprintf(stderr, "put_item: %s\n", err.message);
        exit(1);
    }
    ddb_arena_free(a);
}

static void build(const char *dir)
{
    ddb *db = NULL;
    ddb_error err = {0};
    ddb_options o = {.sync = DDB_SYNC_LAZY};
    ddb_index_def ix = {.name = "Gsi", .key = {"GP", DDB_TS, "GS", DDB_TS}};
    ddb_table_def tab = {.name = "Tab",
                         .key = {"PK", DDB_TS, "SK", DDB_TS},
                         .indexes = &ix,
                         .n_indexes = 1,
                         .stream = {.view = DDB_STREAM_NEW_AND_OLD_IMAGES}};
    ddb_table_def two = {.name = "Two", .key = {"PK", DDB_TS, NULL, 0}};
    if (ddb_open(dir, &o, &db, &err) || ddb_create_table(db, &tab, &err) || ddb_create_table(db, &two, &err)) {
        fprintf(stderr, "build: %s\n", err.message);
        exit(1);
    }
    for (int t = 0; t < N_TABLES; t++)
        for (uint64_t i = 0; i < ITEMS[t]; i++)
            put_item(db, TABLES[t], (int)i);
    ddb_close(db);
}

/* ---- the child: everything a reader does, on the damaged copy ---- */

static bool in_libc(const Dl_info *di)
{
    return strstr(di->dli_fname, "libc.so") || strstr(di->dli_fname, "linux-vdso") || strstr(di->dli_fname, "libpthread");
}

/* A sanitizer runtime function (linked into this program, exported by name:
 * the interceptors of mem and str functions and the like). */
static bool sanitizer_named(const Dl_info *di)
{
    const char *s = di->dli_sname;
    return s && (strncmp(s, "__interceptor", 13) == 0 || strncmp(s, "___interceptor", 14) == 0 ||
                 strncmp(s, "__asan", 6) == 0 || strncmp(s, "__sanitizer", 11) == 0 || strncmp(s, "__ubsan", 7) == 0 ||
                 strncmp(s, "mem", 3) == 0 || strncmp(s, "str", 3) == 0 || strncmp(s, "bcmp", 4) == 0);
}

/* The object whose code faulted: the first frame past the signal trampoline
 * (in libc) that is neither libc nor the sanitizer runtime.  The runtime's
 * internal functions have no exported name, so a fault inside an
 * interceptor (LMDB's memmove, say) shows unnamed frames of this program
 * and then the named interceptor: when one of the first frames is a named
 * interceptor, its caller decides. */
static const char *faulting_object(void **fr, int n)
{
    Dl_info di[64];
    int first = -1;
    for (int i = 1; i < n && i < 64; i++) {
        if (!dladdr(fr[i], &di[i]) || !di[i].dli_fname)
            return "(unknown)";
        if (first < 0 && in_libc(&di[i]))
            first = i + 1; /* past __restore_rt */
    }
    if (first < 0)
        return "(unknown)";
    while (first < n && in_libc(&di[first]))
        first++;
    int start = first;
    for (int i = first; i < n && i < first + 4; i++)
        if (!in_libc(&di[i]) && sanitizer_named(&di[i]))
            start = i + 1;
    for (int i = start; i < n; i++)
        if (!in_libc(&di[i]) && !sanitizer_named(&di[i]))
            return di[i].dli_fname;
    return "(unknown)";
}

static void on_crash(int sig, siginfo_t *si, void *uc)
{
    (void)si;
    (void)uc;
    void *fr[64];
    int n = backtrace(fr, 64);
    const char *who = faulting_object(fr, n);
    char msg[600];
    int len = snprintf(msg, sizeof msg, "fuzz child: signal %d (%s) in %s\n", sig, strsignal(sig), who);
    if (write(2, msg, (size_t)len) < 0)
        _exit(3);
    backtrace_symbols_fd(fr, n, 2);
    if (strstr(who, "liblmdb"))
        _exit(EXIT_LMDB_CRASH);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Set once any call of the child answered DDB_ECORRUPT: from then on the
 * handle writes nothing (not even the capacity ledger at close). */
static volatile sig_atomic_t seen_corrupt;

static int noted(int rc)
{
    if (rc == DDB_ECORRUPT)
        seen_corrupt = 1;
    return rc;
}

#ifdef FUZZ_ASAN
/* An AddressSanitizer report whose first frame past the sanitizer's
 * interceptors is liblmdb's is LMDB writing through a damaged page it
 * trusted (the capacity ledger flushed at close: the child writes nothing
 * else), LMDB's fault like a signal there: the child exits with
 * EXIT_LMDB_CRASH, but only while the handle has not seen the damage.  A
 * handle that answered DDB_ECORRUPT must not write at all, so a report then
 * fails the round, as does any report elsewhere. */
static void on_asan_report(const char *report)
{
    if (seen_corrupt) {
        static const char msg[] = "fuzz child: AddressSanitizer report after DDB_ECORRUPT: the handle wrote\n";
        if (write(2, msg, sizeof msg - 1) < 0)
            _exit(3);
        return;
    }
    const char *f = strstr(report, "    #0 ");
    for (int i = 0; f && i < 4; i++) {
        const char *end = strchr(f, '\n');
        size_t len = end ? (size_t)(end - f) : strlen(f);
        char line[512];
        snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), f);
        /* the sanitizer's frames: its interceptors (memcpy, memmove, memset,
         * __interceptor_*) and entry points, linked into this program */
        bool sanitizer = strstr(line, " in mem") || strstr(line, "__interceptor_") ||
                         strstr(line, " in __asan") || strstr(line, "libclang_rt") || strstr(line, "libasan");
        if (!sanitizer) {
            if (strstr(line, "liblmdb")) {
                static const char msg[] = "fuzz child: AddressSanitizer report in liblmdb (tolerated)\n";
                if (write(2, msg, sizeof msg - 1) < 0)
                    _exit(3);
                _exit(EXIT_LMDB_CRASH);
            }
            return;
        }
        f = end ? strstr(end, "    #") : NULL;
    }
}
#endif

static void child_handlers(void)
{
#ifdef FUZZ_ASAN
    __asan_set_error_report_callback(on_asan_report);
#endif
    static char alt[64 * 1024];
    stack_t ss = {.ss_sp = alt, .ss_size = sizeof alt};
    sigaltstack(&ss, NULL);
    void *warm[4];
    backtrace(warm, 4); /* loads the unwinder now, not in the handler */
    struct sigaction sa = {.sa_sigaction = on_crash, .sa_flags = SA_SIGINFO | SA_ONSTACK};
    sigemptyset(&sa.sa_mask);
    int sigs[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
        sigaction(sigs[i], &sa, NULL);
}

/* A line for the parent: "refused", or "clean|problems <table>:<items>..."
 * or "endless <table>". */
static void child(const char *dir, int out)
{
    child_handlers();
    alarm(CHILD_SECONDS);
    char res[512] = "refused";
    size_t rl = 0;
    ddb *db = NULL;
    ddb_error err = {0};
    ddb_arena *a = ddb_arena_new();
    const char **names = NULL;
    size_t n = 0;
    if (noted(ddb_open(dir, NULL, &db, &err)) == DDB_OK && noted(ddb_list_tables(db, a, &names, &n, &err)) == DDB_OK) {
        ddb_check_report r;
        bool clean = noted(ddb_check_catalog(db, &r, &err)) == DDB_OK;
        char counts[400] = "";
        size_t cl = 0;
        for (size_t t = 0; t < n; t++) {
            /* Scan, page by page */
            ddb_arena *pa = ddb_arena_new();
            ddb_scan_params sp = {.table = names[t], .limit = 40};
            ddb_page page;
            uint64_t items = 0;
            int pages = 0, rc;
            while ((rc = noted(ddb_scan(db, &sp, pa, &page, &err))) == DDB_OK && page.last_key && ++pages < MAX_PAGES) {
                items += page.count;
                sp.start_key = ddb_item_copy(a, page.last_key);
                ddb_arena_free(pa);
                pa = ddb_arena_new();
            }
            ddb_arena_free(pa);
            if (pages >= MAX_PAGES) {
                snprintf(res, sizeof res, "endless %s", names[t]);
                goto report;
            }
            /* a few Queries of the table and of the index, both directions */
            for (int i = 0; i < 10; i++) {
                pa = ddb_arena_new();
                char pk[32];
                snprintf(pk, sizeof pk, i < 5 ? "item%d" : "g%d", i < 5 ? i * 37 : i - 5);
                ddb_query_params q = {.table = names[t], .index = i < 5 ? NULL : "Gsi", .pk = ddb_v_str(pa, pk),
                                      .backward = i % 2};
                noted(ddb_query(db, &q, pa, &page, &err));
                ddb_arena_free(pa);
            }
            ddb_check_report sr;
            bool tc = noted(ddb_check_table(db, names[t], &r, &err)) == DDB_OK;
            bool sc = noted(ddb_stream_check(db, names[t], &sr, &err)) == DDB_OK;
            clean = clean && tc && sc && rc == DDB_OK;
            int w = snprintf(counts + cl, sizeof counts - cl, " %s:%llu", names[t], (unsigned long long)(tc ? r.items : 0));
            (void)items;
            if (w > 0 && (size_t)w < sizeof counts - cl)
                cl += (size_t)w;
        }
        snprintf(res, sizeof res, "%s%s", clean ? "clean" : "problems", counts);
    }
report:
    rl = strlen(res);
    if (write(out, res, rl) < 0)
        _exit(3);
    ddb_close(db);
    ddb_arena_free(a);
    _exit(0);
}

/* ---- damage ---- */

static uint64_t rng;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Damage f (n bytes) in place; returns the new length and says what it did. */
static size_t damage(unsigned char *f, size_t n, size_t psize, char *what, size_t cap)
{
    size_t pages = n / psize;
    switch (next() % 4) {
    case 0: { /* flip bytes, mostly past the two meta pages */
        int k = 1 + (int)(next() % 8);
        size_t w = (size_t)snprintf(what, cap, "flip");
        for (int i = 0; i < k; i++) {
            size_t at = next() % 5 ? 2 * psize + next() % (n - 2 * psize) : next() % n;
            uint8_t x = (uint8_t)(1u << (next() % 8));
            f[at] ^= x;
            if (w < cap)
                w += (size_t)snprintf(what + w, cap - w, " @%zu^%02x", at, x);
        }
        return n;
    }
    case 1: {
        size_t p = next() % pages;
        memset(f + p * psize, 0, psize);
        snprintf(what, cap, "zero page %zu", p);
        return n;
    }
    case 2: {
        size_t cut = next() % n;
        snprintf(what, cap, "truncate at %zu of %zu", cut, n);
        return cut;
    }
    default: { /* the catalog: the table list loses "t/Two" (renamed "T/Two"; stale copies too) */
        size_t hits = 0;
        for (size_t i = 0; i + 5 <= n; i++)
            if (memcmp(f + i, "t/Two", 5) == 0) {
                f[i] = 'T';
                hits++;
            }
        snprintf(what, cap, "the catalog key t/Two renamed T/Two (%zu copies)", hits);
        return n;
    }
    }
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(void)
{
    uint64_t seed = getenv("DDB_FUZZ_SEED") ? strtoull(getenv("DDB_FUZZ_SEED"), NULL, 0) : (uint64_t)time(NULL);
    int rounds = getenv("DDB_FUZZ_ROUNDS") ? atoi(getenv("DDB_FUZZ_ROUNDS")) : 120;
    double budget = getenv("DDB_FUZZ_SECONDS") ? atof(getenv("DDB_FUZZ_SECONDS")) : 40;
    printf("corruption fuzzer: DDB_FUZZ_SEED=%llu, %d rounds, %.0f s budget\n", (unsigned long long)seed, rounds,
           budget);
    fflush(stdout);
    rng = seed * 2654435761u + 1;
    char base[1024], work[1024];
    dmg_dir(base, sizeof base, "fuzz-base");
    dmg_dir(work, sizeof work, "fuzz-work");
    build(base);
    size_t n;
    unsigned char *orig = dmg_read(base, &n), *f = malloc(n);
    size_t psize = (size_t)sysconf(_SC_PAGESIZE);
    if (!orig || !f || n < 4 * psize) {
        fprintf(stderr, "cannot read the database (%zu bytes)\n", n);
        return 1;
    }
    int failures = 0, refused = 0, lmdb = 0, clean = 0, problems = 0, done = 0;
    double start = now_s();
    for (int r = 0; r < rounds && now_s() - start < budget; r++, done++) {
        memcpy(f, orig, n);
        char what[400];
        size_t len = damage(f, n, psize, what, sizeof what);
        if (dmg_write(work, f, len)) {
            fprintf(stderr, "cannot write %s\n", work);
            return 1;
        }
        int fd[2];
        if (pipe(fd)) {
            perror("pipe");
            return 1;
        }
        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0) {
            close(fd[0]);
            child(work, fd[1]);
        }
        close(fd[1]);
        char res[512] = "";
        ssize_t got = 0, k;
        while ((k = read(fd[0], res + got, sizeof res - 1 - (size_t)got)) > 0)
            got += k;
        res[got > 0 ? got : 0] = '\0';
        close(fd[0]);
        int st;
        waitpid(pid, &st, 0);
        const char *bad = NULL;
        char expect[200];
        snprintf(expect, sizeof expect, "clean Tab:%llu Two:%llu", (unsigned long long)ITEMS[0],
                 (unsigned long long)ITEMS[1]);
        if (WIFSIGNALED(st))
            bad = WTERMSIG(st) == SIGALRM ? "hang (no answer within the timeout)" : "crash in ddb's code";
        else if (WEXITSTATUS(st) == EXIT_LMDB_CRASH)
            lmdb++;
        else if (WEXITSTATUS(st) != 0)
            bad = "sanitizer report or failure in the child";
        else if (strncmp(res, "endless", 7) == 0)
            bad = "a Scan whose pages never end";
        else if (strncmp(res, "clean", 5) == 0 && strcmp(res, expect) != 0)
            bad = "checks clean but tables or items are missing";
        else if (strncmp(res, "clean", 5) == 0)
            clean++;
        else if (strncmp(res, "refused", 7) == 0)
            refused++;
        else
            problems++;
        if (bad) {
            failures++;
            fprintf(stderr, "FAIL round %d (DDB_FUZZ_SEED=%llu): %s; damage: %s; child said \"%s\", status 0x%x\n", r,
                    (unsigned long long)seed, bad, what, res, st);
            char keep[1100];
            snprintf(keep, sizeof keep, "%s-fail%d.mdb", work, r);
            FILE *o = fopen(keep, "wb");
            if (o) {
                fwrite(f, 1, len, o);
                fclose(o);
                fprintf(stderr, "  the damaged file is kept as %s\n", keep);
            }
        }
    }
    printf("%d rounds: %d refused at open, %d with problems reported, %d clean, %d LMDB crashes (tolerated), "
           "%d failures\n",
           done, refused, problems, clean, lmdb, failures);
    free(orig);
    free(f);
    dmg_rmdir(base);
    dmg_rmdir(work);
    return failures ? 1 : 0;
}
