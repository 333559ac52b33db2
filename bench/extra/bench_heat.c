/* ddb-bench-heat: what write sharding (DDB_WRITE_SHARDS) buys and costs,
 * one date-keyed entity with its key plain and spread over 8 write shards
 * (heat.h), in one run (issue 16).
 *
 * 1. Throttle mode: the write rate a day's partition sustains before the
 *    first DDB_ETHROTTLED.  Both tables are provisioned with 4,000 WCU (4
 *    partitions of 1,000 WCU/s).  The offered rate climbs by 250 writes/s
 *    every 5 seconds (a simulated clock, ddb_options.clock_ms, paces the
 *    writes 100 ticks a second, so the result is the capacity model's and
 *    not the CPU's; 5 seconds a step, so the one second of burst a full
 *    token bucket allows does not carry a step); the sustained rate is the
 *    last step's before the first throttled write.
 * 2. The write path: real-time put rate, sharded vs plain (the shard costs
 *    a hash of the rendered key).
 * 3. Reading the day back: a typed query of the same 1,000 items, one
 *    partition vs a scatter-gather over 8, page size 100 (10 pages): median
 *    latency of --reps runs and the RCU consumed.
 *
 *   ./build-bx/bench/extra/ddb-bench-heat [--reps N] [--dir DIR]
 */
#include "bx.h"
#include "heat_ddb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DAY "2024-03-04"     /* the day read back: ITEMS items */
#define BUSY_DAY "2024-03-05" /* the day the write measurements fill */
#define ITEMS 1000
#define STEP_S 5              /* seconds at each offered rate */

static int64_t sim_ms = INT64_C(1709510400000);

static int64_t sim_clock(void *ctx)
{
    (void)ctx;
    return sim_ms;
}

static ddb *open_db(const char *dir, bool throttle)
{
    char uri[4200];
    bx_rm_rf(dir);
    snprintf(uri, sizeof uri, "file:%s", dir);
    ddb_options o = {.throttle = throttle, .clock_ms = throttle ? sim_clock : NULL, .sync = DDB_SYNC_NONE};
    ddb *db;
    ddb_error err;
    if (ddb_open(uri, &o, &db, &err)) {
        fprintf(stderr, "open %s: %s\n", dir, err.message);
        exit(1);
    }
    return db;
}

static void check(int rc, const ddb_error *err, const char *what)
{
    if (rc) {
        fprintf(stderr, "%s: %s\n", what, err->message);
        exit(1);
    }
}

static void create(ddb *db, uint64_t wcu)
{
    ddb_error err;
    ddb_table_def p = plain_log_table.def, s = sharded_log_table.def;
    p.wcu = s.wcu = wcu;
    p.rcu = s.rcu = wcu ? 3 * wcu : 0;
    check(ddb_create_table(db, &p, &err), &err, "create PlainLog");
    check(ddb_create_table(db, &s, &err), &err, "create ShardedLog");
    check(plain_log_open(db, &err), &err, "open PlainLog");
    check(sharded_log_open(db, &err), &err, "open ShardedLog");
}

static int put_one(ddb *db, bool sharded, const char *day, uint32_t id, ddb_error *err)
{
    if (sharded) {
        struct sharded_event e = {.id = id};
        snprintf(e.day, sizeof e.day, "%s", day);
        memset(e.body, 'x', sizeof e.body - 1);
        return sharded_event_put(db, &e, NULL, NULL, err);
    }
    struct plain_event e = {.id = id};
    snprintf(e.day, sizeof e.day, "%s", day);
    memset(e.body, 'x', sizeof e.body - 1);
    return plain_event_put(db, &e, NULL, NULL, err);
}

/* 1: the last offered rate held for STEP_S seconds without a throttled write. */
static int sustained_before_throttle(ddb *db, bool sharded, uint32_t *id)
{
    ddb_error err;
    for (int rate = 250;; rate += 250) {
        for (int tick = 0; tick < 100 * STEP_S; tick++, sim_ms += 10) {
            /* rate/100 writes per tick, the remainder spread over the ticks */
            int n = rate / 100 + (tick % 100 < rate % 100);
            for (int i = 0; i < n; i++) {
                int rc = put_one(db, sharded, BUSY_DAY, (*id)++, &err);
                if (rc == DDB_ETHROTTLED)
                    return rate - 250;
                check(rc, &err, "put");
            }
        }
        if (rate > 100000)
            return rate;
    }
}

/* 2: real-time puts per second. */
static double put_rate(ddb *db, bool sharded, int n)
{
    ddb_error err;
    double t0 = bx_now();
    for (int i = 0; i < n; i++)
        check(put_one(db, sharded, BUSY_DAY, (uint32_t)i, &err), &err, "put");
    return n / (bx_now() - t0);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* 3: the day's items in pages of 100: median seconds of reps runs, RCU of one. */
static double query_day(ddb *db, bool sharded, int reps, double *rcu, size_t *items)
{
    ddb_error err;
    ddb_arena *a = ddb_arena_new();
    double *t = calloc((size_t)reps, sizeof *t);
    ddb_capacity cap;
    ddb_ent_read_opts o = {.return_capacity = DDB_CAPACITY_TOTAL, .capacity = &cap, .page_size = 100};
    for (int r = 0; r < reps; r++) {
        double t0 = bx_now();
        const char *cursor = NULL;
        *rcu = 0;
        *items = 0;
        do {
            int rc;
            const char *next;
            o.cursor = cursor;
            if (sharded) {
                sharded_event_page pg;
                rc = sharded_event_table(db, DAY, sharded_event_table_all(), &o, a, &pg, &err);
                *items += pg.count;
                next = pg.cursor;
            } else {
                plain_event_page pg;
                rc = plain_event_table(db, DAY, plain_event_table_all(), &o, a, &pg, &err);
                *items += pg.count;
                next = pg.cursor;
            }
            *rcu += cap.read;
            check(rc, &err, "query");
            cursor = next;
        } while (cursor);
        t[r] = bx_now() - t0;
        ddb_arena_reset(a);
    }
    qsort(t, (size_t)reps, sizeof *t, cmp_double);
    double med = t[reps / 2];
    free(t);
    ddb_arena_free(a);
    return med;
}

int main(int argc, char **argv)
{
    int reps = 200;
    const char *dir = "/tmp/ddb-bench-heat";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--reps"))
            reps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--dir"))
            dir = argv[i + 1];
    }
    if (reps < 1)
        reps = 1;
    bx_print_header("ddb-bench-heat: write sharding (DDB_WRITE_SHARDS), 1 vs 8 write shards", argc, argv);
    char d1[4200], d2[4200], r1[32], r2[32];
    snprintf(d1, sizeof d1, "%s-throttle", dir);
    snprintf(d2, sizeof d2, "%s-free", dir);

    ddb *db = open_db(d1, true);
    create(db, 4000);
    uint32_t id = 0;
    int plain = sustained_before_throttle(db, false, &id);
    int sharded = sustained_before_throttle(db, true, &id);
    ddb_close(db);
    bx_rm_rf(d1);

    db = open_db(d2, false);
    create(db, 0);
    put_rate(db, false, 2000); /* warm up */
    put_rate(db, true, 2000);
    /* alternate rounds: the later writer would otherwise meet a larger file */
    double wp = 0, ws = 0;
    for (int round = 0; round < 4; round++) {
        ws += round % 2 ? 0 : put_rate(db, true, 5000);
        wp += put_rate(db, false, 5000);
        ws += round % 2 ? put_rate(db, true, 5000) : 0;
    }
    wp /= 4;
    ws /= 4;
    ddb_error err;
    for (uint32_t i = 0; i < ITEMS; i++) {
        check(put_one(db, false, DAY, i, &err), &err, "put");
        check(put_one(db, true, DAY, i, &err), &err, "put");
    }
    double rcu_p, rcu_s;
    size_t n_p, n_s;
    double qp = query_day(db, false, reps, &rcu_p, &n_p), qs = query_day(db, true, reps, &rcu_s, &n_s);
    ddb_close(db);
    bx_rm_rf(d2);
    if (n_p != n_s) {
        fprintf(stderr, "the two queries returned %zu and %zu items\n", n_p, n_s);
        return 1;
    }

    printf("| measurement | 1 shard (plain key) | 8 write shards | sharded / plain |\n|---|---|---|---|\n");
    printf("| writes/s sustained before the first DDB_ETHROTTLED (throttle mode, 4,000 WCU table, simulated "
           "clock) | %d | %d | %s |\n",
           plain, sharded, bx_fmt_ratio(r1, sizeof r1, sharded, plain));
    printf("| put rate, real time (no throttle, DDB_SYNC_NONE) | %.0f/s | %.0f/s | %s |\n", wp, ws,
           bx_fmt_ratio(r1, sizeof r1, ws, wp));
    printf("| query of the day's %zu items, 10 pages of 100: median latency (%d runs) | %.2f ms | %.2f ms | %s |\n",
           n_p, reps, qp * 1e3, qs * 1e3, bx_fmt_ratio(r1, sizeof r1, qs, qp));
    printf("| the same query: consumed RCU | %.1f | %.1f | %s |\n", rcu_p, rcu_s,
           bx_fmt_ratio(r2, sizeof r2, rcu_s, rcu_p));
    return 0;
}
