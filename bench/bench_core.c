/* ddb-bench: the same workload against ddb (embedded), SQLite and raw LMDB
 * in one run; prints a Markdown table of ops/s and ratios.
 *
 *   ddb-bench [--items N] [--quick] [--dir DIR] [--threads T] [--keep]
 *             [--peers ddb,sqlite,lmdb] [--phases get,query,gsi,put] [--no-load] [--sorted-load]
 *             [--repeat N]
 *
 * Load (fastest mode of each engine), then: point get, Query of a whole
 * 100-item collection, GSI Query of a whole 100-item GSI collection, each
 * from 1 and T threads; then puts (overwrites that move the GSI entry) from
 * 1 and T threads in each durability mode, each engine reopened in that
 * mode.  A phase runs until its operation budget is spent or its time cap
 * is reached; the table says how many operations each engine ran. */
#include "bench.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef enum op_kind { OP_GET, OP_QUERY, OP_GSI, OP_PUT } op_kind;

typedef struct phase {
    const char *name;
    op_kind op;
    bench_mode mode;
    int threads; /* 0 = the --threads value */
    uint64_t ops, quick_ops;
    double cap_s;
    const char *goal;
} phase;

#define GOAL_READ "x3 SQLite, x0.5 LMDB"
static const phase phases[] = {
    {"get", OP_GET, MODE_FULL, 1, 400000, 100000, 4, GOAL_READ},
    {"get", OP_GET, MODE_FULL, 0, 800000, 200000, 4, GOAL_READ},
    {"query 100", OP_QUERY, MODE_FULL, 1, 40000, 10000, 4, GOAL_READ},
    {"query 100", OP_QUERY, MODE_FULL, 0, 80000, 20000, 4, GOAL_READ},
    {"GSI query 100", OP_GSI, MODE_FULL, 1, 20000, 5000, 4, GOAL_READ},
    {"GSI query 100", OP_GSI, MODE_FULL, 0, 40000, 10000, 4, GOAL_READ},
    {"put FULL", OP_PUT, MODE_FULL, 1, 20000, 5000, 8, "x1 SQLite"},
    {"put FULL", OP_PUT, MODE_FULL, 0, 20000, 5000, 8, "x2 SQLite"},
    {"put LAZY", OP_PUT, MODE_LAZY, 1, 20000, 5000, 8, "x1 SQLite"},
    {"put LAZY", OP_PUT, MODE_LAZY, 0, 20000, 5000, 8, "x1 SQLite"},
    {"put NONE", OP_PUT, MODE_NONE, 1, 200000, 50000, 4, "x1 SQLite"},
    {"put NONE", OP_PUT, MODE_NONE, 0, 200000, 50000, 4, "x1 SQLite"},
};
#define N_PHASES (sizeof phases / sizeof *phases)

static const peer_vt *const peers[] = {&peer_ddb, &peer_sqlite, &peer_lmdb};
#define N_PEERS 3
static const char *const op_names[] = {"get", "query", "gsi", "put"};

/* Is name in the comma-separated list (NULL = everything)? */
static bool listed(const char *list, const char *name)
{
    if (!list)
        return true;
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        if (len == n && strncmp(p, name, n) == 0)
            return true;
        p += len + (p[len] == ',');
    }
    return false;
}

typedef struct result {
    uint64_t ops;
    double secs;
    double cpu; /* user + system seconds of the process during the phase */
    bool failed;
} result;

static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           (double)ru.ru_stime.tv_usec / 1e6;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- one phase on one peer ---- */

typedef struct run {
    const peer_vt *p;
    void *h;
    const wl *w;
    op_kind op;
    uint64_t budget;
    double cap_s;
    _Atomic double deadline;
    _Atomic uint64_t next, done;
    _Atomic bool failed;
    _Atomic uint64_t *version;
    pthread_barrier_t start, end;
} run;

typedef struct worker {
    run *r;
    unsigned id;
} worker;

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1Dull;
}

static void *work(void *vw)
{
    worker *wk = vw;
    run *r = wk->r;
    void *tc = NULL;
    if (r->p->thread_open(r->h, &tc))
        atomic_store(&r->failed, true);
    uint64_t seed = 0x9E3779B97F4A7C15ull * (wk->id + 1) ^ (uint64_t)r->op << 32 ^ (uint64_t)time(NULL);
    pthread_barrier_wait(&r->start);
    uint64_t mine = 0;
    while (tc && !atomic_load_explicit(&r->failed, memory_order_relaxed)) {
        if (atomic_fetch_add_explicit(&r->next, 1, memory_order_relaxed) >= r->budget)
            break;
        if ((mine & 15) == 0 && now() > atomic_load_explicit(&r->deadline, memory_order_relaxed))
            break;
        int got, want;
        switch (r->op) {
        case OP_GET:
            got = r->p->get(tc, rnd(&seed) % r->w->items), want = 1;
            break;
        case OP_QUERY:
            got = r->p->query(tc, rnd(&seed) % r->w->parts), want = WL_COLLECTION;
            break;
        case OP_GSI:
            got = r->p->gsi(tc, rnd(&seed) % r->w->parts), want = WL_COLLECTION;
            break;
        default:
            got = r->p->put(tc, rnd(&seed) % r->w->items, atomic_fetch_add(r->version, 1)), want = 1;
            break;
        }
        if (got != want) {
            if (got >= 0)
                fprintf(stderr, "%s: an operation returned %d items, expected %d\n", r->p->name, got, want);
            atomic_store(&r->failed, true);
            break;
        }
        mine++;
    }
    atomic_fetch_add(&r->done, mine);
    pthread_barrier_wait(&r->end);
    if (tc)
        r->p->thread_close(tc);
    return NULL;
}

static result run_phase(const peer_vt *p, void *h, const wl *w, op_kind op, int threads, uint64_t budget,
                        double cap_s, _Atomic uint64_t *version)
{
    run r = {.p = p, .h = h, .w = w, .op = op, .budget = budget, .cap_s = cap_s, .version = version};
    atomic_store(&r.deadline, 1e300);
    pthread_barrier_init(&r.start, NULL, (unsigned)threads + 1);
    pthread_barrier_init(&r.end, NULL, (unsigned)threads + 1);
    pthread_t tid[256];
    worker wk[256];
    for (int i = 0; i < threads; i++) {
        wk[i] = (worker){&r, (unsigned)i};
        pthread_create(&tid[i], NULL, work, &wk[i]);
    }
    pthread_barrier_wait(&r.start);
    double t0 = now(), c0 = cpu_seconds();
    atomic_store(&r.deadline, t0 + cap_s);
    pthread_barrier_wait(&r.end);
    double t1 = now(), c1 = cpu_seconds();
    for (int i = 0; i < threads; i++)
        pthread_join(tid[i], NULL);
    pthread_barrier_destroy(&r.start);
    pthread_barrier_destroy(&r.end);
    return (result){atomic_load(&r.done), t1 - t0, c1 - c0, atomic_load(&r.failed)};
}

/* ---- driver ---- */

static void usage(void)
{
    fprintf(stderr, "usage: ddb-bench [--items N] [--quick] [--dir DIR] [--threads T] [--keep]\n"
                    "  --items N    items to load (default 1000000; rounded up to a multiple of 100)\n"
                    "  --quick      100000 items and smaller budgets\n"
                    "  --dir DIR    working directory (default /tmp/ddb-bench-PID; emptied first)\n"
                    "  --threads T  threads of the multi-threaded phases (default 8)\n"
                    "  --keep       keep the data afterwards\n"
                    "  --peers L    only these engines (comma list of ddb, sqlite, lmdb)\n"
                    "  --phases L   only these phases (comma list of get, query, gsi, put)\n"
                    "  --no-load    reuse the data a previous --keep run left in --dir\n"
                    "  --sorted-load  load in key order (LMDB: MDB_APPEND) instead of a scattered order\n"
                    "  --commit-log   ddb's FULL and LAZY commit through its commit log (ddb_options.commit_log)\n"
                    "  --repeat N   run every phase N times (engines taking turns), report the median\n");
    exit(2);
}

static int rm_rf(const char *dir)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd);
}

static void fmt_rate(char *out, size_t cap, const result *r)
{
    if (r->failed)
        snprintf(out, cap, "failed");
    else if (!r->ops || r->secs <= 0)
        snprintf(out, cap, "-");
    else
        snprintf(out, cap, "%.0f", (double)r->ops / r->secs);
}

static double rate(const result *r)
{
    return r->failed || !r->ops || r->secs <= 0 ? 0 : (double)r->ops / r->secs;
}

static int by_rate(const void *a, const void *b)
{
    double x = rate(a), y = rate(b);
    return (x > y) - (x < y);
}

/* Other work on the machine skews every number: say how busy it was. */
static void print_loadavg(const char *when)
{
    char buf[128] = "?";
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (!fgets(buf, sizeof buf, f))
            snprintf(buf, sizeof buf, "?");
        fclose(f);
    }
    buf[strcspn(buf, "\n")] = '\0';
    printf("Load average %s: %s\n", when, buf);
}

static void print_machine(void)
{
    char model[256] = "?";
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0) {
            char *c = strchr(line, ':');
            if (c) {
                snprintf(model, sizeof model, "%s", c + 2);
                model[strcspn(model, "\n")] = '\0';
            }
            break;
        }
    }
    if (f)
        fclose(f);
    printf("Machine: %ld CPUs (nproc), %s\n", sysconf(_SC_NPROCESSORS_ONLN), model);
}

int main(int argc, char **argv)
{
    uint64_t items = 1000000;
    bool quick = false, keep = false, items_set = false, load = true, sorted = false;
    const char *only_peers = NULL, *only_phases = NULL;
    int threads = 8, repeat = 1;
    char dir[1024] = "";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--items") && i + 1 < argc) {
            items = strtoull(argv[++i], NULL, 10);
            items_set = true;
        } else if (!strcmp(argv[i], "--quick")) {
            quick = true;
        } else if (!strcmp(argv[i], "--dir") && i + 1 < argc) {
            snprintf(dir, sizeof dir, "%s", argv[++i]);
        } else if (!strcmp(argv[i], "--repeat") && i + 1 < argc) {
            repeat = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            threads = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--keep")) {
            keep = true;
        } else if (!strcmp(argv[i], "--no-load")) {
            load = false;
        } else if (!strcmp(argv[i], "--sorted-load")) {
            sorted = true;
        } else if (!strcmp(argv[i], "--commit-log")) {
            bench_commit_log = true;
        } else if (!strcmp(argv[i], "--peers") && i + 1 < argc) {
            only_peers = argv[++i];
        } else if (!strcmp(argv[i], "--phases") && i + 1 < argc) {
            only_phases = argv[++i];
        } else {
            usage();
        }
    }
    if (quick && !items_set)
        items = 100000;
    if (threads < 2 || threads > 256 || items < WL_COLLECTION || items > 99999999 || repeat < 1 || repeat > 9)
        usage();
    items = (items + WL_COLLECTION - 1) / WL_COLLECTION * WL_COLLECTION;
    if (!*dir)
        snprintf(dir, sizeof dir, "/tmp/ddb-bench-%d", (int)getpid());
    if (load)
        rm_rf(dir);
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        perror(dir);
        return 1;
    }
    wl w = {items, items / WL_COLLECTION, sorted};
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("ddb-bench: %" PRIu64 " items of %d bytes, %" PRIu64 " partitions of %d items (and as many GSI "
           "partitions), %s load, %d threads, %d run(s) per phase (median), dir %s\n",
           w.items, WL_ITEM_BYTES, w.parts, WL_COLLECTION, sorted ? "sorted" : "scattered", threads, repeat, dir);
    print_machine();
    print_loadavg("at start");

    /* load */
    bool on[N_PEERS];
    for (int p = 0; p < N_PEERS; p++)
        on[p] = listed(only_peers, peers[p]->name);
    for (int p = 0; p < N_PEERS && load; p++) {
        if (!on[p])
            continue;
        double t0 = now();
        if (peers[p]->load(dir, &w)) {
            fprintf(stderr, "%s: load failed\n", peers[p]->name);
            return 1;
        }
        double t = now() - t0;
        fprintf(stderr, "load %-6s %8" PRIu64 " items in %6.2f s (%.0f items/s)\n", peers[p]->name, w.items, t,
                (double)w.items / t);
    }

    result res[N_PHASES][N_PEERS];
    memset(res, 0, sizeof res);
    _Atomic uint64_t version[N_PEERS];
    for (int p = 0; p < N_PEERS; p++)
        atomic_store(&version[p], 1);
    void *h[N_PEERS] = {0};
    int open_mode = -1;
    for (size_t ph = 0; ph < N_PHASES; ph++) {
        const phase *x = &phases[ph];
        if (!listed(only_phases, op_names[x->op]))
            continue;
        if ((int)x->mode != open_mode) {
            for (int p = 0; p < N_PEERS; p++) {
                if (!on[p])
                    continue;
                if (h[p])
                    peers[p]->close(h[p]);
                if (peers[p]->open(dir, &w, x->mode, &h[p])) {
                    fprintf(stderr, "%s: open failed\n", peers[p]->name);
                    return 1;
                }
                if (open_mode < 0) /* warm up: page tables of the maps, caches */
                    run_phase(peers[p], h[p], &w, OP_GET, 1, w.items / 20, 2, &version[p]);
            }
            open_mode = (int)x->mode;
        }
        int t = x->threads ? x->threads : threads;
        uint64_t budget = quick ? x->quick_ops : x->ops;
        double cap = quick ? x->cap_s / 2 : x->cap_s;
        /* each engine in turn, repeat times; the median run counts */
        result runs[N_PEERS][9];
        for (int k = 0; k < repeat; k++) {
            for (int p = 0; p < N_PEERS; p++) {
                if (!on[p])
                    continue;
                result *r = &runs[p][k];
                *r = run_phase(peers[p], h[p], &w, x->op, t, budget, cap, &version[p]);
                fprintf(stderr, "%-14s %2dT %-6s %8" PRIu64 " ops in %6.2f s: %10.0f ops/s, %8.2f us CPU/op%s\n",
                        x->name, t, peers[p]->name, r->ops, r->secs, rate(r),
                        r->ops ? r->cpu * 1e6 / (double)r->ops : 0, r->failed ? "  FAILED" : "");
            }
        }
        for (int p = 0; p < N_PEERS; p++) {
            if (!on[p])
                continue;
            qsort(runs[p], (size_t)repeat, sizeof **runs, by_rate);
            res[ph][p] = runs[p][repeat / 2];
            for (int k = 0; k < repeat; k++)
                res[ph][p].failed |= runs[p][k].failed;
        }
    }
    for (int p = 0; p < N_PEERS; p++)
        if (h[p])
            peers[p]->close(h[p]);

    print_loadavg("at end");
    printf("\n| phase | threads | ddb ops/s | SQLite ops/s | LMDB ops/s | ddb / SQLite | ddb / LMDB | goal | "
           "ops run (ddb / SQLite / LMDB) |\n");
    printf("|---|---:|---:|---:|---:|---:|---:|---|---|\n");
    int shortfalls = 0, shown = 0;
    for (size_t ph = 0; ph < N_PHASES; ph++) {
        const phase *x = &phases[ph];
        if (!listed(only_phases, op_names[x->op]))
            continue;
        char a[32], b[32], c[32];
        fmt_rate(a, sizeof a, &res[ph][0]);
        fmt_rate(b, sizeof b, &res[ph][1]);
        fmt_rate(c, sizeof c, &res[ph][2]);
        double d = rate(&res[ph][0]), s = rate(&res[ph][1]), l = rate(&res[ph][2]);
        double rs = s > 0 ? d / s : 0, rl = l > 0 ? d / l : 0;
        bool met = x->op == OP_PUT ? rs >= (strstr(x->goal, "x2") ? 2.0 : 1.0) : (rs >= 3.0 && rl >= 0.5);
        shortfalls += !met;
        shown++;
        printf("| %s | %d | %s | %s | %s | %.2f | %.2f | %s: %s | %" PRIu64 " / %" PRIu64 " / %" PRIu64 " |\n",
               x->name, x->threads ? x->threads : threads, a, b, c, rs, rl, x->goal, met ? "met" : "**not met**",
               res[ph][0].ops, res[ph][1].ops, res[ph][2].ops);
    }
    printf("\n%d of %d goals not met.\n", shortfalls, shown);
    if (!keep)
        rm_rf(dir);
    return 0;
}
