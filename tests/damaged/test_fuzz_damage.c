/* Corruption fuzzer (issue 11): two small databases are written (tables
 * through the C API; the table of tests/e2e/fleet.h through its generated
 * module, whose reads hand records over undecoded), then for many rounds a
 * copy of one's data.mdb is damaged at random (bytes flipped, pages
 * zeroed, the file truncated, a leaf node's data size changed, a table's
 * catalog key renamed) and a child
 * process opens it, runs the generated module's typed reads on the fleet
 * copy (get, query on an index, a collection's pages, scans, batch get:
 * issue 22, the SIGBUS of rec_copy), lists the tables, scans (paging) and
 * queries them, and runs every check, under alarm(CHILD_SECONDS).
 *
 * Pass: no sanitizer report, no crash in ddb's code, no hang, no Scan whose
 * pages do not end, and no "clean" from the checks unless the file still
 * lists every table with every item (what the child says of the undamaged
 * file).  LMDB asserts or faults on some damaged
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
#include "fleet_ddb.h"

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
#define FLEET_DEVICES 24

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
    ddb_index_def ix = {.name = "Gsi", .key = {.pk = "GP", .pk_type = DDB_TS, .sk = "GS", .sk_type = DDB_TS}};
    ddb_table_def tab = {.name = "Tab",
                         .key = {.pk = "PK", .pk_type = DDB_TS, .sk = "SK", .sk_type = DDB_TS},
                         .indexes = &ix,
                         .n_indexes = 1,
                         .stream = {.view = DDB_STREAM_NEW_AND_OLD_IMAGES}};
    ddb_table_def two = {.name = "Two", .key = {.pk = "PK", .pk_type = DDB_TS, .sk = NULL, .sk_type = 0}};
    if (ddb_open(dir, &o, &db, &err) || ddb_create_table(db, &tab, &err) || ddb_create_table(db, &two, &err)) {
        fprintf(stderr, "build: %s\n", err.message);
        exit(1);
    }
    for (int t = 0; t < N_TABLES; t++)
        for (uint64_t i = 0; i < ITEMS[t]; i++)
            put_item(db, TABLES[t], (int)i);
    ddb_close(db);
}

/* The fleet table through its generated module: sites, devices (two
 * shards; every third with notes over 4 KB, a record on overflow pages),
 * their readings (TTL far ahead) and alerts: one collection per device. */
static void build_fleet(const char *dir)
{
    ddb *db = NULL;
    ddb_error err = {0};
    ddb_options o = {.sync = DDB_SYNC_LAZY};
    static char notes[6001];
    memset(notes, 'n', sizeof notes - 1);
    int rc = ddb_open(dir, &o, &db, &err);
    if (!rc)
        rc = fleet_create_table(db, &err);
    for (int s = 0; !rc && s < 3; s++) {
        struct site st = {.name = "a site", .region = "eu"};
        snprintf(st.site_id, sizeof st.site_id, "s%d", s);
        rc = site_create(db, &st, NULL, NULL, &err);
    }
    for (int d = 0; !rc && d < FLEET_DEVICES; d++) {
        struct device dv = {.kind = "sensor", .model = "T-100", .battery_pct = d, .status = "ok",
                            .notes = d % 3 ? NULL : notes};
        snprintf(dv.device_id, sizeof dv.device_id, "d%d", d);
        snprintf(dv.site_id, sizeof dv.site_id, "s%d", d % 3);
        rc = device_put(db, &dv, NULL, NULL, &err);
        for (int r = 0; !rc && r < 8; r++) {
            struct reading rd = {.celsius = 20 + r, .expires_at = 4102444800};
            snprintf(rd.device_id, sizeof rd.device_id, "d%d", d);
            snprintf(rd.taken_at, sizeof rd.taken_at, "2024-03-04T1%d:00:00Z", r);
            rc = reading_create(db, &rd, NULL, NULL, &err);
        }
        struct alert al = {.open_site = d % 2 ? "s1" : NULL, .raised_at = "2024-03-04T10:05:00Z",
                           .message = "too warm", .level = 2};
        snprintf(al.device_id, sizeof al.device_id, "d%d", d);
        snprintf(al.alert_id, sizeof al.alert_id, "a%d", d);
        if (!rc)
            rc = alert_create(db, &al, NULL, NULL, &err);
    }
    if (rc) {
        fprintf(stderr, "build_fleet: %s\n", err.message);
        exit(1);
    }
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

/* The generated module's reads of the fleet copy, every page of each;
 * what they answer is only noted (damage may give any error, never a
 * crash).  false when a read's pages do not end. */
static bool fleet_reads(ddb *db)
{
    ddb_error err = {0};
    ddb_arena *a = ddb_arena_new();
    int pages = 0;
    for (int d = 0; d < FLEET_DEVICES; d += 5) {
        char id[16];
        snprintf(id, sizeof id, "d%d", d);
        struct device dv;
        noted(device_get(db, id, NULL, a, &dv, &err));
        /* the collection, a page of 4 at a time */
        ddb_ent_read_opts o = {.page_size = 4};
        fleet_telemetry_result tr;
        do
            o.cursor = noted(fleet_query_telemetry(db, id, NULL, &o, a, &tr, &err)) ? NULL : tr.page.cursor;
        while (o.cursor && ++pages < MAX_PAGES);
        ddb_arena_reset(a);
    }
    for (int s = 0; s < 3; s++) {
        char id[16];
        snprintf(id, sizeof id, "s%d", s);
        ddb_ent_read_opts o = {.page_size = 3};
        device_page dp;
        do
            o.cursor = noted(device_by_site(db, id, device_by_site_all(), &o, a, &dp, &err)) ? NULL : dp.cursor;
        while (o.cursor && ++pages < MAX_PAGES);
        ddb_arena_reset(a);
    }
    ddb_ent_read_opts o = {.page_size = 7};
    fleet_scan_result sr;
    do
        o.cursor = noted(fleet_scan(db, 0, 0, &o, a, &sr, &err)) ? NULL : sr.page.cursor;
    while (o.cursor && ++pages < MAX_PAGES);
    o = (ddb_ent_read_opts){.page_size = 5};
    device_page dp;
    do
        o.cursor = noted(device_scan(db, 0, 0, &o, a, &dp, &err)) ? NULL : dp.cursor;
    while (o.cursor && ++pages < MAX_PAGES);
    struct device keys[FLEET_DEVICES], out[FLEET_DEVICES];
    bool found[FLEET_DEVICES];
    for (int d = 0; d < FLEET_DEVICES; d++)
        snprintf(keys[d].device_id, sizeof keys[d].device_id, "d%d", d);
    noted(device_batch_get(db, keys, FLEET_DEVICES, NULL, a, out, NULL, found, &err));
    ddb_arena_free(a);
    return pages < MAX_PAGES;
}

/* A line for the parent: "refused", or "clean|problems <table>:<items>..."
 * or "endless <table>".  typed: the fleet copy (its module's reads first). */
static void child(const char *dir, bool typed, int out)
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
    if (noted(ddb_open(dir, NULL, &db, &err)) == DDB_OK && typed && !fleet_reads(db)) {
        snprintf(res, sizeof res, "endless typed reads");
    } else if (db && noted(ddb_list_tables(db, a, &names, &n, &err)) == DDB_OK) {
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
    switch (next() % 5) {
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
    case 3: { /* a leaf node's data size (LMDB's page layout: flags at 10, mp_lower at 12, the node
               * offsets from 16; a node starts with its data size, low then high 16 bits) */
        for (int tries = 0; tries < 64; tries++) {
            size_t p = 2 + next() % (pages - 2);
            unsigned char *pg = f + p * psize;
            unsigned flags = pg[10] | pg[11] << 8, lower = pg[12] | pg[13] << 8;
            if (flags != 0x02 || lower < 18 || lower > psize)
                continue;
            size_t i = next() % ((lower - 16) / 2), off = pg[16 + 2 * i] | (size_t)pg[17 + 2 * i] << 8;
            if (off < 16 || off + 8 > psize)
                continue;
            size_t at = p * psize + off + (next() % 2 ? 2 : 0) + next() % 2; /* mn_lo or mn_hi, either byte */
            uint8_t x = (uint8_t)(1u << (next() % 8));
            f[at] ^= x;
            snprintf(what, cap, "leaf node size: page %zu node %zu @%zu^%02x", p, i, at, x);
            return n;
        }
        snprintf(what, cap, "leaf node size: no leaf page found");
        return n;
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

/* Fork a child on the copy in dir; its line into res, its wait status. */
static int run_child(const char *dir, bool typed, char *res, size_t cap)
{
    int fd[2];
    if (pipe(fd)) {
        perror("pipe");
        exit(1);
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        child(dir, typed, fd[1]);
    }
    close(fd[1]);
    ssize_t got = 0, k;
    while ((k = read(fd[0], res + got, cap - 1 - (size_t)got)) > 0)
        got += k;
    res[got > 0 ? got : 0] = '\0';
    close(fd[0]);
    int st;
    waitpid(pid, &st, 0);
    return st;
}

/* One database the rounds damage copies of: its bytes, and what the child
 * says of the undamaged copy. */
typedef struct original {
    const char *name;
    bool typed;
    unsigned char *bytes;
    size_t n;
    char expect[512];
} original;

static void load_original(original *o, const char *base, const char *work)
{
    o->bytes = dmg_read(base, &o->n);
    size_t psize = (size_t)sysconf(_SC_PAGESIZE);
    if (!o->bytes || o->n < 4 * psize || dmg_write(work, o->bytes, o->n)) {
        fprintf(stderr, "cannot read the %s database (%zu bytes)\n", o->name, o->n);
        exit(1);
    }
    int st = run_child(work, o->typed, o->expect, sizeof o->expect);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || strncmp(o->expect, "clean ", 6) != 0) {
        fprintf(stderr, "the undamaged %s database: status 0x%x, \"%s\"\n", o->name, st, o->expect);
        exit(1);
    }
    printf("undamaged %s database: %s\n", o->name, o->expect);
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
    char base[1024], fleet[1024], work[1024];
    dmg_dir(base, sizeof base, "fuzz-base");
    dmg_dir(fleet, sizeof fleet, "fuzz-fleet");
    dmg_dir(work, sizeof work, "fuzz-work");
    build(base);
    build_fleet(fleet);
    original orig[2] = {{.name = "tables"}, {.name = "fleet", .typed = true}};
    load_original(&orig[0], base, work);
    load_original(&orig[1], fleet, work);
    size_t psize = (size_t)sysconf(_SC_PAGESIZE);
    unsigned char *f = malloc(orig[0].n > orig[1].n ? orig[0].n : orig[1].n);
    if (!f)
        return 1;
    int failures = 0, refused = 0, lmdb = 0, clean = 0, problems = 0, done = 0;
    double start = now_s();
    for (int r = 0; r < rounds && now_s() - start < budget; r++, done++) {
        const original *o = &orig[r % 2];
        memcpy(f, o->bytes, o->n);
        char what[400];
        size_t len = damage(f, o->n, psize, what, sizeof what);
        if (dmg_write(work, f, len)) {
            fprintf(stderr, "cannot write %s\n", work);
            return 1;
        }
        char res[512];
        int st = run_child(work, o->typed, res, sizeof res);
        const char *bad = NULL;
        if (WIFSIGNALED(st))
            bad = WTERMSIG(st) == SIGALRM ? "hang (no answer within the timeout)" : "crash in ddb's code";
        else if (WEXITSTATUS(st) == EXIT_LMDB_CRASH)
            lmdb++;
        else if (WEXITSTATUS(st) != 0)
            bad = "sanitizer report or failure in the child";
        else if (strncmp(res, "endless", 7) == 0)
            bad = "a Scan whose pages never end";
        else if (strncmp(res, "clean", 5) == 0 && strcmp(res, o->expect) != 0)
            bad = "checks clean but tables or items are missing";
        else if (strncmp(res, "clean", 5) == 0)
            clean++;
        else if (strncmp(res, "refused", 7) == 0)
            refused++;
        else
            problems++;
        if (bad) {
            failures++;
            fprintf(stderr, "FAIL round %d (DDB_FUZZ_SEED=%llu), the %s database: %s; damage: %s; child said \"%s\", "
                            "status 0x%x\n",
                    r, (unsigned long long)seed, o->name, bad, what, res, st);
            char keep[1100];
            snprintf(keep, sizeof keep, "%s-fail%d.mdb", work, r);
            FILE *out = fopen(keep, "wb");
            if (out) {
                fwrite(f, 1, len, out);
                fclose(out);
                fprintf(stderr, "  the damaged file is kept as %s\n", keep);
            }
        }
    }
    printf("%d rounds: %d refused at open, %d with problems reported, %d clean, %d LMDB crashes (tolerated), "
           "%d failures\n",
           done, refused, problems, clean, lmdb, failures);
    free(orig[0].bytes);
    free(orig[1].bytes);
    free(f);
    dmg_rmdir(base);
    dmg_rmdir(fleet);
    dmg_rmdir(work);
    return failures ? 1 : 0;
}
