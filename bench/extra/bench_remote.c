/* ddb-bench-remote: the embedded engine vs the remote backend on dynalite.
 *
 *   ddb-bench-remote [--seconds S] [--threads T] [--uri URI] [--dir DIR] [--keep] [--quick]
 *                    [--only embedded|remote]
 *
 * The comparison a user choosing between libddb's embedded engine and a
 * local DynamoDB emulator looks at: the same small workload through the
 * same API, once on the embedded engine (file:DIR) and once through the
 * remote backend (http://127.0.0.1:PORT) against dynalite, started by
 * tests/remote/dynalite.sh (installed once with npm into the build tree;
 * without node/npm the program says so and exits 0).  --uri points the
 * remote side at another endpoint instead (DynamoDB Local, Alternator).
 *
 * Data: 20 partitions of 100 items (pk "user#%08u", sk "order#%04u", a
 * 150-byte binary attribute: about 200 bytes an item), loaded with
 * BatchWriteItem.  Operations, each for S seconds (default 5) from 1 and
 * T threads (default 4):
 *   put    PutItem overwriting a random item
 *   get    GetItem of a random item (eventually consistent)
 *   query  Query of a whole 100-item partition (one page)
 * The embedded engine runs with DDB_SYNC_NONE (dynalite keeps its tables
 * in memory and syncs nothing); one more row gives its put with
 * DDB_SYNC_FULL.  Both sides run on this machine: dynalite's Node.js
 * process competes with the client for the same cores. */
#include "bx.h"

#include <ddb/ddb.h>

#include <errno.h>
#include <inttypes.h>
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

#define TABLE "remote_bench"
#define PARTS 20u
#define PER_PART 100u
#define N_ITEMS (PARTS * PER_PART)
#define DATA_LEN 150

typedef enum opk { OP_PUT, OP_GET, OP_QUERY, N_OPS } opk;
static const char *const op_names[N_OPS] = {"put", "get", "query (100 items)"};

typedef struct side {
    ddb *db;
    uint64_t version;
} side;

typedef struct tctx {
    side *s;
    ddb_arena *a;
    ddb_error err;
    uint64_t n;
} tctx;

static int fail(const char *what, int rc, const ddb_error *err)
{
    fprintf(stderr, "%s: %s (%s)\n", what, ddb_strerror(rc), err ? err->message : "");
    return -1;
}

static ddb_item *make_item(ddb_arena *a, uint32_t i, uint64_t version)
{
    char pk[16], sk[16];
    uint8_t data[DATA_LEN];
    snprintf(pk, sizeof pk, "user#%08u", i / PER_PART);
    snprintf(sk, sizeof sk, "order#%04u", i % PER_PART);
    for (int k = 0; k < DATA_LEN; k++)
        data[k] = (uint8_t)(i * 13 + version * 7 + (uint64_t)k);
    ddb_item *it = ddb_item_new(a);
    if (!it || ddb_item_set_s(it, "pk", pk) || ddb_item_set_s(it, "sk", sk) ||
        ddb_item_set_i64(it, "version", (int64_t)version) || ddb_item_set_b(it, "data", data, DATA_LEN))
        return NULL;
    return it;
}

static int load(ddb *db)
{
    ddb_error err = {0};
    ddb_table_def def = {.name = TABLE, .key = {"pk", DDB_TS, "sk", DDB_TS}};
    int rc = ddb_create_table(db, &def, &err);
    if (rc)
        return fail("create table", rc, &err);
    ddb_arena *a = ddb_arena_new();
    for (uint32_t base = 0; !rc && base < N_ITEMS; base += 25) {
        ddb_arena_reset(a);
        ddb_batch_write_op ops[25];
        size_t n = 0;
        for (uint32_t i = base; i < base + 25 && i < N_ITEMS; i++)
            ops[n++] = (ddb_batch_write_op){.table = TABLE, .put = make_item(a, i, 0)};
        rc = ddb_batch_write(db, ops, n, DDB_CAPACITY_NONE, NULL, &err);
    }
    ddb_arena_free(a);
    return rc ? fail("load", rc, &err) : 0;
}

static void *t_open(void *ctx, int id)
{
    (void)id;
    tctx *t = calloc(1, sizeof *t);
    if (!t || !(t->a = ddb_arena_new())) {
        free(t);
        return NULL;
    }
    t->s = ctx;
    return t;
}

static void t_close(void *vt)
{
    tctx *t = vt;
    ddb_arena_free(t->a);
    free(t);
}

static int op_put(void *vt, uint64_t *rng)
{
    tctx *t = vt;
    ddb_arena_reset(t->a);
    ddb_item *it = make_item(t->a, (uint32_t)(bx_rand(rng) % N_ITEMS),
                             __atomic_add_fetch(&t->s->version, 1, __ATOMIC_RELAXED));
    if (!it)
        return fail("put: item", DDB_ENOMEM, NULL);
    int rc = ddb_put_item(t->s->db, TABLE, it, NULL, NULL, NULL, &t->err);
    return rc ? fail("put", rc, &t->err) : 0;
}

static int op_get(void *vt, uint64_t *rng)
{
    tctx *t = vt;
    ddb_arena_reset(t->a);
    uint32_t i = (uint32_t)(bx_rand(rng) % N_ITEMS);
    char pk[16], sk[16];
    snprintf(pk, sizeof pk, "user#%08u", i / PER_PART);
    snprintf(sk, sizeof sk, "order#%04u", i % PER_PART);
    ddb_item *key = ddb_item_new(t->a), *out;
    if (!key || ddb_item_set_s(key, "pk", pk) || ddb_item_set_s(key, "sk", sk))
        return fail("get: key", DDB_ENOMEM, NULL);
    int rc = ddb_get_item(t->s->db, TABLE, key, NULL, t->a, &out, NULL, &t->err);
    if (rc)
        return fail("get", rc, &t->err);
    const ddb_value *d = ddb_item_get(out, "data");
    return d && d->len == DATA_LEN ? 0 : fail("get: no data", DDB_ECORRUPT, NULL);
}

static int op_query(void *vt, uint64_t *rng)
{
    tctx *t = vt;
    ddb_arena_reset(t->a);
    char pk[16];
    snprintf(pk, sizeof pk, "user#%08u", (uint32_t)(bx_rand(rng) % PARTS));
    ddb_query_params q = {.table = TABLE, .pk = ddb_v_str(t->a, pk)};
    ddb_page pg;
    int rc = ddb_query(t->s->db, &q, t->a, &pg, &t->err);
    if (rc)
        return fail("query", rc, &t->err);
    if (pg.count != PER_PART || pg.last_key) {
        fprintf(stderr, "query: %zu items%s, expected %u in one page\n", pg.count, pg.last_key ? " and more" : "",
                PER_PART);
        return -1;
    }
    return 0;
}

static int (*const op_fns[N_OPS])(void *, uint64_t *) = {op_put, op_get, op_query};

/* Start dynalite; 0 ok (uri filled), 77 skip (reason printed), -1 error. */
static int start_dynalite(char *uri, size_t cap, long *pid)
{
    char cmd[2048], out[1024] = "";
    snprintf(cmd, sizeof cmd, "sh '%s' start '%s' %d", DYNALITE_SH, DYNALITE_DIR, (int)getpid());
    FILE *p = popen(cmd, "r");
    if (!p) {
        fprintf(stderr, "cannot run %s\n", DYNALITE_SH);
        return -1;
    }
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 77) {
        out[strcspn(out, "\n")] = '\0';
        printf("dynalite cannot run here: %s\nNothing to compare: install Node.js and npm "
               "(apt-get install nodejs npm) or pass --uri of a running DynamoDB-compatible endpoint.\n",
               strncmp(out, "SKIP: ", 6) == 0 ? out + 6 : out);
        return 77;
    }
    int port;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || sscanf(out, "%d %ld", &port, pid) != 2) {
        fprintf(stderr, "%s start failed (status %d): %s\n", DYNALITE_SH, st, out);
        return -1;
    }
    snprintf(uri, cap, "http://127.0.0.1:%d", port);
    return 0;
}

static void usage(void)
{
    fprintf(stderr, "usage: ddb-bench-remote [--seconds S] [--threads T] [--uri URI] [--dir DIR] [--keep] [--quick]\n"
                    "  --seconds S  length of each phase (default 5)\n"
                    "  --threads T  threads of the multi-threaded phases (default 4)\n"
                    "  --uri URI    remote endpoint to use instead of starting dynalite\n"
                    "  --dir DIR    embedded engine's directory (default /tmp/ddb-bench-remote-PID; emptied first)\n"
                    "  --keep       keep it afterwards\n"
                    "  --quick      1-second phases\n"
                    "  --only SIDE  run only the embedded or the remote side (for profiling)\n");
    exit(2);
}

typedef struct row {
    bx_result emb, rem;
} row;

int main(int argc, char **argv)
{
    double secs = 5;
    int threads = 4;
    bool keep = false;
    const char *only = NULL;
    char dir[1024], uri[1024] = "";
    snprintf(dir, sizeof dir, "/tmp/ddb-bench-remote-%d", (int)getpid());
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
            secs = atof(argv[++i]);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--uri") && i + 1 < argc)
            snprintf(uri, sizeof uri, "%s", argv[++i]);
        else if (!strcmp(argv[i], "--dir") && i + 1 < argc)
            snprintf(dir, sizeof dir, "%s", argv[++i]);
        else if (!strcmp(argv[i], "--keep"))
            keep = true;
        else if (!strcmp(argv[i], "--quick"))
            secs = 1;
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i];
        else
            usage();
    }
    if (secs <= 0 || threads < 1 || threads > 256 ||
        (only && strcmp(only, "embedded") != 0 && strcmp(only, "remote") != 0))
        usage();
    bx_print_header("ddb-bench-remote: embedded engine vs remote backend on dynalite", argc, argv);
    fflush(stdout);

    long dyn_pid = 0;
    if (!uri[0]) {
        int rc = start_dynalite(uri, sizeof uri, &dyn_pid);
        if (rc == 77)
            return 0;
        if (rc)
            return 1;
    }
    printf("Remote endpoint: %s%s\n\n", uri, dyn_pid ? " (dynalite 3.2.2, tables in memory)" : "");
    fflush(stdout);

    int status = 0;
    ddb_error err = {0};
    side emb = {0}, rem = {0}, full = {0};
    char furi[1200];
    snprintf(furi, sizeof furi, "file:%s", dir);
    ddb_options o = {0};
    o.sync = DDB_SYNC_NONE;
    o.map_size = 4ull << 30;
    int rc;
    if (bx_rm_rf(dir) != 0 || mkdir(dir, 0755) != 0) {
        fprintf(stderr, "cannot create %s: %s\n", dir, strerror(errno));
        status = 1;
    } else if ((rc = ddb_open(furi, &o, &emb.db, &err)) || (rc = ddb_open(uri, NULL, &rem.db, &err))) {
        fail("ddb_open", rc, &err);
        status = 1;
    } else if (load(emb.db) || load(rem.db)) {
        status = 1;
    }
    const int tcounts[2] = {1, threads};
    row rows[2][N_OPS];
    bx_result full_put[2];
    memset(rows, 0, sizeof rows);
    memset(full_put, 0, sizeof full_put);
    for (int tc = 0; tc < 2 && !status; tc++)
        for (int op = 0; op < N_OPS && !status; op++)
            for (int sdx = 0; sdx < 2 && !status; sdx++) {
                side *s = sdx ? &rem : &emb;
                if (only && strcmp(only, sdx ? "remote" : "embedded") != 0)
                    continue;
                bx_job j = {.threads = tcounts[tc], .budget = UINT64_MAX, .cap_s = secs, .ctx = s,
                            .thread_open = t_open, .thread_close = t_close, .op = op_fns[op]};
                bx_result r = bx_run(&j);
                *(sdx ? &rows[tc][op].rem : &rows[tc][op].emb) = r;
                fprintf(stderr, "  %-8s %-18s %2d thr: %8" PRIu64 " ops in %.2f s, cpu %.2f s%s\n",
                        sdx ? "remote" : "embedded", op_names[op], tcounts[tc], r.ops, r.secs, r.cpu,
                        r.failed ? " FAILED" : "");
                if (r.failed)
                    status = 1;
            }
    /* the embedded engine's durable put, for reference */
    if (!status && (!only || !strcmp(only, "embedded"))) {
        /* flush what the DDB_SYNC_NONE phases left dirty, so that the
         * durable puts do not pay for it */
        if ((rc = ddb_sync(emb.db, &err))) {
            fail("ddb_sync", rc, &err);
            status = 1;
        }
        ddb_close(emb.db);
        emb.db = NULL;
        o.sync = DDB_SYNC_FULL;
        if (!status && (rc = ddb_open(furi, &o, &full.db, &err))) {
            fail("ddb_open", rc, &err);
            status = 1;
        }
        for (int tc = 0; tc < 2 && !status; tc++) {
            bx_job j = {.threads = tcounts[tc], .budget = UINT64_MAX, .cap_s = secs, .ctx = &full,
                        .thread_open = t_open, .thread_close = t_close, .op = op_put};
            full_put[tc] = bx_run(&j);
            fprintf(stderr, "  embedded put FULL %2d thr: %8" PRIu64 " ops in %.2f s%s\n", tcounts[tc],
                    full_put[tc].ops, full_put[tc].secs, full_put[tc].failed ? " FAILED" : "");
            status |= full_put[tc].failed;
        }
    }
    if (emb.db)
        ddb_close(emb.db);
    if (full.db)
        ddb_close(full.db);
    if (rem.db)
        ddb_close(rem.db);
    if (dyn_pid > 0)
        kill((pid_t)dyn_pid, SIGTERM);
    if (!keep)
        bx_rm_rf(dir);
    if (status)
        return 1;

    printf("%u items (%u partitions x %u, ~200 bytes each); %g-second phases; embedded: DDB_SYNC_NONE.\n\n", N_ITEMS,
           PARTS, PER_PART, secs);
    printf("| operation | threads | embedded ops/s | remote (dynalite) ops/s | embedded/remote | remote: client CPU "
           "us/op |\n|---|---:|---:|---:|---:|---:|\n");
    for (int tc = 0; tc < 2; tc++)
        for (int op = 0; op < N_OPS; op++) {
            const row *r = &rows[tc][op];
            char a[32], b[32], q[32];
            printf("| %s | %d | %s | %s | %s | %.0f |\n", op_names[op], tcounts[tc], bx_fmt_rate(a, sizeof a, &r->emb),
                   bx_fmt_rate(b, sizeof b, &r->rem), bx_fmt_ratio(q, sizeof q, bx_rate(&r->emb), bx_rate(&r->rem)),
                   r->rem.ops ? r->rem.cpu * 1e6 / (double)r->rem.ops : 0.0);
        }
    for (int tc = 0; tc < 2; tc++) {
        char a[32], b[32], q[32];
        printf("| put, embedded DDB_SYNC_FULL (durable) | %d | %s | %s | %s | |\n", tcounts[tc],
               bx_fmt_rate(a, sizeof a, &full_put[tc]), bx_fmt_rate(b, sizeof b, &rows[tc][OP_PUT].rem),
               bx_fmt_ratio(q, sizeof q, bx_rate(&full_put[tc]), bx_rate(&rows[tc][OP_PUT].rem)));
    }
    printf("\nclient CPU: user+system time of this process (libddb's remote backend: JSON, SigV4, libcurl) per "
           "operation; dynalite's own CPU is not included.\n");
    printf("Load average (1 min) at end: %.2f\n", bx_loadavg());
    return 0;
}
