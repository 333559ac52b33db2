/* ddb-bench-serve: `ddb serve` vs dynalite, both driven by libddb's remote
 * backend, and the embedded engine called in process for reference.
 *
 *   ddb-bench-serve [--seconds S] [--threads T] [--dir DIR] [--quick]
 *
 * The same client for both servers: the C remote backend (ddb_open with an
 * http:// endpoint; SigV4-signed JSON over libcurl, keep-alive connections
 * from its pool) runs remote_work.h's workload (20 partitions x 100 items
 * of ~200 bytes) from 1 and T threads (default 8) for S seconds (default 3)
 * an operation: PutItem, GetItem, and a 100-item Query.  Each operation's
 * latency is recorded for the p99.  `ddb serve` is started from this build
 * (`--sync none --log-level none`: dynalite keeps its tables in memory and
 * logs nothing), dynalite through tests/remote/dynalite.sh (npm, installed
 * once into the build tree; without node/npm only ddb serve and the
 * embedded engine are measured).  The embedded engine (file:, DDB_SYNC_NONE)
 * runs the same operations through the same API in this process: the
 * difference is the cost of HTTP + JSON + the client.  All run on this
 * machine: the server competes with the client for the same cores. */
#include "bx.h"
#include "remote_work.h"

#include <ddb/ddb.h>

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef DYNALITE_SH
#define DYNALITE_SH "tests/remote/dynalite.sh"
#endif
#ifndef DYNALITE_DIR
#define DYNALITE_DIR "/tmp/ddb-bench-dynalite"
#endif
#ifndef DDB_TOOL
#define DDB_TOOL "ddb"
#endif

#define LAT_CAP (1u << 18) /* latencies kept per thread */

enum { S_EMB, S_SERVE, S_DYN, N_SIDES };
static const char *const side_names[N_SIDES] = {"embedded", "ddb serve", "dynalite"};

/* One timed phase's latencies, merged from its threads. */
typedef struct phase {
    rw_side *side;
    rw_op op;
    pthread_mutex_t mu;
    double *lat;
    size_t n;
} phase;

typedef struct lat_tc {
    phase *ph;
    void *inner;
    double *lat;
    size_t n;
} lat_tc;

static void *lat_open(void *ctx, int id)
{
    phase *ph = ctx;
    lat_tc *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->ph = ph;
    t->lat = malloc(LAT_CAP * sizeof *t->lat);
    t->inner = rw_thread_open(ph->side, id);
    if (!t->lat || !t->inner) {
        if (t->inner)
            rw_thread_close(t->inner);
        free(t->lat);
        free(t);
        return NULL;
    }
    return t;
}

static void lat_close(void *vt)
{
    lat_tc *t = vt;
    phase *ph = t->ph;
    pthread_mutex_lock(&ph->mu);
    double *grown = realloc(ph->lat, (ph->n + t->n + 1) * sizeof *grown);
    if (grown) {
        memcpy(grown + ph->n, t->lat, t->n * sizeof *grown);
        ph->lat = grown;
        ph->n += t->n;
    }
    pthread_mutex_unlock(&ph->mu);
    rw_thread_close(t->inner);
    free(t->lat);
    free(t);
}

static int lat_op(void *vt, uint64_t *rng)
{
    lat_tc *t = vt;
    double t0 = bx_now();
    int rc = rw_op_fns[t->ph->op](t->inner, rng);
    if (t->n < LAT_CAP)
        t->lat[t->n++] = bx_now() - t0;
    return rc;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The 99th percentile in milliseconds (nearest rank); 0 when empty. */
static double p99_ms(double *lat, size_t n)
{
    if (!n)
        return 0;
    qsort(lat, n, sizeof *lat, cmp_double);
    size_t k = (n * 99 + 99) / 100;
    return lat[k - 1] * 1e3;
}

/* Start `ddb --db DIR serve` on a port the kernel picks; 0 ok (uri, pid). */
static int start_serve(const char *dir, char *uri, size_t cap, pid_t *pid)
{
    char db[1100], port_file[1100];
    snprintf(db, sizeof db, "%s/serve-db", dir);
    snprintf(port_file, sizeof port_file, "%s/serve.port", dir);
    unlink(port_file);
    pid_t p = fork();
    if (p < 0)
        return rw_fail("fork", DDB_EIO, NULL);
    if (p == 0) {
        if (!freopen("/dev/null", "w", stdout))
            _exit(127);
        execl(DDB_TOOL, DDB_TOOL, "--db", db, "serve", "--listen", "127.0.0.1:0", "--port-file", port_file,
              "--sync", "none", "--log-level", "none", "--threads", "8", (char *)NULL);
        _exit(127);
    }
    *pid = p;
    for (int i = 0; i < 300; i++) { /* 30 s */
        FILE *f = fopen(port_file, "r");
        int port = 0;
        if (f) {
            int ok = fscanf(f, "%d", &port) == 1;
            fclose(f);
            if (ok && port > 0) {
                snprintf(uri, cap, "http://127.0.0.1:%d", port);
                return 0;
            }
        }
        int st;
        if (waitpid(p, &st, WNOHANG) == p) {
            fprintf(stderr, "%s serve exited at start (status %d)\n", DDB_TOOL, st);
            *pid = 0;
            return -1;
        }
        usleep(100 * 1000);
    }
    fprintf(stderr, "%s serve did not write %s within 30 s\n", DDB_TOOL, port_file);
    return -1;
}

static void stop_serve(pid_t pid)
{
    if (pid <= 0)
        return;
    kill(pid, SIGTERM);
    int st;
    waitpid(pid, &st, 0);
}

static void usage(void)
{
    fprintf(stderr, "usage: ddb-bench-serve [--seconds S] [--threads T] [--dir DIR] [--quick]\n"
                    "  --seconds S  length of each phase (default 3)\n"
                    "  --threads T  client threads of the multi-threaded phases (default 8)\n"
                    "  --dir DIR    work directory (default /tmp/ddb-bench-serve-PID; emptied first, removed after)\n"
                    "  --quick      1-second phases\n");
    exit(2);
}

typedef struct cell {
    bx_result r;
    double p99;
} cell;

int main(int argc, char **argv)
{
    double secs = 3;
    int threads = 8;
    char dir[1024];
    snprintf(dir, sizeof dir, "/tmp/ddb-bench-serve-%d", (int)getpid());
    bool quick = false;
    const bx_opt opts[] = {
        {"--seconds", BX_OPT_DOUBLE, &secs, 0},
        {"--threads", BX_OPT_INT, &threads, 0},
        {"--dir", BX_OPT_TEXT, dir, sizeof dir},
        {"--quick", BX_OPT_FLAG, &quick, 0},
    };
    if (!bx_parse_args(argc, argv, opts, sizeof opts / sizeof *opts))
        usage();
    if (quick)
        secs = 1;
    if (secs <= 0 || threads < 1 || threads > 64)
        usage();
    bx_print_header("ddb-bench-serve: ddb serve vs dynalite (libddb's remote backend as the client), "
                    "and the embedded engine",
                    argc, argv);
    fflush(stdout);
    if (bx_fresh_dir(dir) != 0)
        return 1;

    int status = 0;
    ddb_error err = {0};
    rw_side sides[N_SIDES];
    memset(sides, 0, sizeof sides);
    char uri[N_SIDES][1200];
    snprintf(uri[S_EMB], sizeof uri[S_EMB], "file:%s/embedded", dir);
    pid_t serve_pid = 0;
    long dyn_pid = 0;
    bool have_dyn = true;
    if (start_serve(dir, uri[S_SERVE], sizeof uri[S_SERVE], &serve_pid))
        status = 1;
    if (!status) {
        int rc = rw_start_dynalite(DYNALITE_SH, DYNALITE_DIR, uri[S_DYN], sizeof uri[S_DYN], &dyn_pid);
        if (rc == 77)
            have_dyn = false;
        else if (rc)
            status = 1;
    }
    for (int s = 0; s < N_SIDES && !status; s++) {
        if (s == S_DYN && !have_dyn)
            continue;
        ddb_options o = {0};
        o.sync = DDB_SYNC_NONE;
        o.map_size = 1ull << 30;
        int rc = ddb_open(uri[s], s == S_EMB ? &o : NULL, &sides[s].db, &err);
        if (rc)
            status = rw_fail(side_names[s], rc, &err) ? 1 : 0;
        else if (rw_load(sides[s].db))
            status = 1;
    }
    if (!status)
        printf("ddb serve: %s (--sync none, --threads 8); dynalite: %s\n\n", uri[S_SERVE],
               have_dyn ? uri[S_DYN] : "not available (no node/npm)");
    fflush(stdout);

    const int tcounts[2] = {1, threads};
    cell cells[2][RW_N_OPS][N_SIDES];
    memset(cells, 0, sizeof cells);
    for (int tc = 0; tc < 2 && !status; tc++)
        for (int op = 0; op < RW_N_OPS && !status; op++)
            for (int s = 0; s < N_SIDES && !status; s++) {
                if (!sides[s].db)
                    continue;
                phase ph = {.side = &sides[s], .op = (rw_op)op};
                pthread_mutex_init(&ph.mu, NULL);
                bx_job j = {.threads = tcounts[tc], .budget = UINT64_MAX, .cap_s = secs, .ctx = &ph,
                            .thread_open = lat_open, .thread_close = lat_close, .op = lat_op};
                cell *c = &cells[tc][op][s];
                c->r = bx_run(&j);
                c->p99 = p99_ms(ph.lat, ph.n);
                free(ph.lat);
                pthread_mutex_destroy(&ph.mu);
                fprintf(stderr, "  %-9s %-18s %2d thr: %8" PRIu64 " ops in %.2f s, p99 %.3f ms%s\n", side_names[s],
                        rw_op_names[op], tcounts[tc], c->r.ops, c->r.secs, c->p99, c->r.failed ? " FAILED" : "");
                if (c->r.failed)
                    status = 1;
            }
    for (int s = 0; s < N_SIDES; s++)
        if (sides[s].db)
            ddb_close(sides[s].db);
    stop_serve(serve_pid);
    if (dyn_pid > 0)
        kill((pid_t)dyn_pid, SIGTERM);
    bx_rm_rf(dir);
    if (status)
        return 1;

    printf("%u items (%u partitions x %u, ~200 bytes each); %g-second phases.\n\n", RW_ITEMS, RW_PARTS, RW_PER_PART,
           secs);
    printf("| operation | client threads | ddb serve ops/s | dynalite ops/s | serve / dynalite | ddb serve p99 ms | "
           "dynalite p99 ms | embedded ops/s (in process) | embedded / serve |\n"
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int tc = 0; tc < 2; tc++)
        for (int op = 0; op < RW_N_OPS; op++) {
            const cell *c = cells[tc][op];
            char a[32], b[32], q[32], e[32], q2[32], d99[32] = "-";
            if (have_dyn)
                snprintf(d99, sizeof d99, "%.2f", c[S_DYN].p99);
            printf("| %s | %d | %s | %s | %s | %.2f | %s | %s | %s |\n", rw_op_names[op], tcounts[tc],
                   bx_fmt_rate(a, sizeof a, &c[S_SERVE].r), bx_fmt_rate(b, sizeof b, &c[S_DYN].r),
                   bx_fmt_ratio(q, sizeof q, bx_rate(&c[S_SERVE].r), bx_rate(&c[S_DYN].r)), c[S_SERVE].p99, d99,
                   bx_fmt_rate(e, sizeof e, &c[S_EMB].r),
                   bx_fmt_ratio(q2, sizeof q2, bx_rate(&c[S_EMB].r), bx_rate(&c[S_SERVE].r)));
        }
    printf("\nLoad average (1 min) at end: %.2f\n", bx_loadavg());
    return 0;
}
