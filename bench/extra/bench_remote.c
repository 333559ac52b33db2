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
#include "remote_work.h"

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
    bool quick = false;
    const bx_opt opts[] = {
        {"--seconds", BX_OPT_DOUBLE, &secs, 0},
        {"--threads", BX_OPT_INT, &threads, 0},
        {"--uri", BX_OPT_TEXT, uri, sizeof uri},
        {"--dir", BX_OPT_TEXT, dir, sizeof dir},
        {"--keep", BX_OPT_FLAG, &keep, 0},
        {"--quick", BX_OPT_FLAG, &quick, 0},
        {"--only", BX_OPT_ARG, &only, 0},
    };
    if (!bx_parse_args(argc, argv, opts, sizeof opts / sizeof *opts))
        usage();
    if (quick)
        secs = 1;
    if (secs <= 0 || threads < 1 || threads > 256 ||
        (only && strcmp(only, "embedded") != 0 && strcmp(only, "remote") != 0))
        usage();
    bx_print_header("ddb-bench-remote: embedded engine vs remote backend on dynalite", argc, argv);
    fflush(stdout);

    long dyn_pid = 0;
    if (!uri[0]) {
        int rc = rw_start_dynalite(DYNALITE_SH, DYNALITE_DIR, uri, sizeof uri, &dyn_pid);
        if (rc == 77)
            return 0;
        if (rc)
            return 1;
    }
    printf("Remote endpoint: %s%s\n\n", uri, dyn_pid ? " (dynalite 3.2.2, tables in memory)" : "");
    fflush(stdout);

    int status = 0;
    ddb_error err = {0};
    rw_side emb = {0}, rem = {0}, full = {0};
    char furi[1200];
    snprintf(furi, sizeof furi, "file:%s", dir);
    ddb_options o = {0};
    o.sync = DDB_SYNC_NONE;
    o.map_size = 4ull << 30;
    int rc;
    if (bx_fresh_dir(dir) != 0) {
        status = 1;
    } else if ((rc = ddb_open(furi, &o, &emb.db, &err)) || (rc = ddb_open(uri, NULL, &rem.db, &err))) {
        rw_fail("ddb_open", rc, &err);
        status = 1;
    } else if (rw_load(emb.db) || rw_load(rem.db)) {
        status = 1;
    }
    const int tcounts[2] = {1, threads};
    row rows[2][RW_N_OPS];
    bx_result full_put[2];
    memset(rows, 0, sizeof rows);
    memset(full_put, 0, sizeof full_put);
    for (int tc = 0; tc < 2 && !status; tc++)
        for (int op = 0; op < RW_N_OPS && !status; op++)
            for (int sdx = 0; sdx < 2 && !status; sdx++) {
                rw_side *s = sdx ? &rem : &emb;
                if (only && strcmp(only, sdx ? "remote" : "embedded") != 0)
                    continue;
                bx_job j = {.threads = tcounts[tc], .budget = UINT64_MAX, .cap_s = secs, .ctx = s,
                            .thread_open = rw_thread_open, .thread_close = rw_thread_close, .op = rw_op_fns[op]};
                bx_result r = bx_run(&j);
                *(sdx ? &rows[tc][op].rem : &rows[tc][op].emb) = r;
                fprintf(stderr, "  %-8s %-18s %2d thr: %8" PRIu64 " ops in %.2f s, cpu %.2f s%s\n",
                        sdx ? "remote" : "embedded", rw_op_names[op], tcounts[tc], r.ops, r.secs, r.cpu,
                        r.failed ? " FAILED" : "");
                if (r.failed)
                    status = 1;
            }
    /* the embedded engine's durable put, for reference */
    if (!status && (!only || !strcmp(only, "embedded"))) {
        /* flush what the DDB_SYNC_NONE phases left dirty, so that the
         * durable puts do not pay for it */
        if ((rc = ddb_sync(emb.db, &err))) {
            rw_fail("ddb_sync", rc, &err);
            status = 1;
        }
        ddb_close(emb.db);
        emb.db = NULL;
        o.sync = DDB_SYNC_FULL;
        if (!status && (rc = ddb_open(furi, &o, &full.db, &err))) {
            rw_fail("ddb_open", rc, &err);
            status = 1;
        }
        for (int tc = 0; tc < 2 && !status; tc++) {
            bx_job j = {.threads = tcounts[tc], .budget = UINT64_MAX, .cap_s = secs, .ctx = &full,
                        .thread_open = rw_thread_open, .thread_close = rw_thread_close, .op = rw_op_fns[RW_PUT]};
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

    printf("%u items (%u partitions x %u, ~200 bytes each); %g-second phases; embedded: DDB_SYNC_NONE.\n\n", RW_ITEMS,
           RW_PARTS, RW_PER_PART, secs);
    printf("| operation | threads | embedded ops/s | remote (dynalite) ops/s | embedded/remote | remote: client CPU "
           "us/op |\n|---|---:|---:|---:|---:|---:|\n");
    for (int tc = 0; tc < 2; tc++)
        for (int op = 0; op < RW_N_OPS; op++) {
            const row *r = &rows[tc][op];
            char a[32], b[32], q[32];
            printf("| %s | %d | %s | %s | %s | %.0f |\n", rw_op_names[op], tcounts[tc], bx_fmt_rate(a, sizeof a, &r->emb),
                   bx_fmt_rate(b, sizeof b, &r->rem), bx_fmt_ratio(q, sizeof q, bx_rate(&r->emb), bx_rate(&r->rem)),
                   r->rem.ops ? r->rem.cpu * 1e6 / (double)r->rem.ops : 0.0);
        }
    for (int tc = 0; tc < 2; tc++) {
        char a[32], b[32], q[32];
        printf("| put, embedded DDB_SYNC_FULL (durable) | %d | %s | %s | %s | |\n", tcounts[tc],
               bx_fmt_rate(a, sizeof a, &full_put[tc]), bx_fmt_rate(b, sizeof b, &rows[tc][RW_PUT].rem),
               bx_fmt_ratio(q, sizeof q, bx_rate(&full_put[tc]), bx_rate(&rows[tc][RW_PUT].rem)));
    }
    printf("\nclient CPU: user+system time of this process (libddb's remote backend: JSON, SigV4, libcurl) per "
           "operation; dynalite's own CPU is not included.\n");
    printf("Load average (1 min) at end: %.2f\n", bx_loadavg());
    return 0;
}
