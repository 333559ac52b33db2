/* ddb-bench-reads: typed reads of the entity layer (<ddb/entity.h>) against
 * raw LMDB doing the same work, and the untyped ddb API beside them, in one
 * run (the goals: a typed get >= 0.85x raw LMDB, a typed 100-item Query
 * >= 0.9x, a typed GSI query >= 0.85x; raw LMDB decodes what it reads into
 * a struct too, peer_lmdb.c).
 *
 * The workload and two of the peers are bench/'s (workload.c, peer_lmdb.c,
 * peer_ddb.c): 200-byte items, partitions of 100, a GSI whose partitions
 * gather 100 items from 100 base partitions.  The typed peer stores the
 * same items through a hand-written entity descriptor (pk, sk, gpk, gsk,
 * data) and reads them into its struct: ddb_ent_read for a get,
 * ddb_ent_query_pattern for the table and the GSI.  One thread; the peers
 * take turns in short slices and rates are per CPU second of the process,
 * so that a busy machine weighs on all of them alike; each operation's
 * answer is checked (1 item / 100 items).
 *
 *   ./build-bx/bench/extra/ddb-bench-reads [--items N] [--secs S] [--dir DIR]
 *                                          [--peer typed|ddb|lmdb] [--phase get|query|gsi]
 *
 * --peer and --phase run one peer and/or one phase alone (for a profiler:
 * `perf record -g` sees only that work); the ratios need all three peers.
 */
#include "bench.h"
#include "bx.h"

#include <ddb/entity.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the typed peer ------------------------------------------------------- */

struct row {
    char pk[WL_PK_LEN + 1];
    char sk[WL_SK_LEN + 1];
    char gpk[WL_GPK_LEN + 1];
    char gsk[WL_GSK_LEN + 1];
    ddb_bytes data;
};

#define P(i) ((const uint16_t[]){i})
static const ddb_field_desc row_fields[] = {
    {.name = "pk", .attr = "pk", .type = DDB_F_CHARS, .size = WL_PK_LEN + 1, .offset = offsetof(struct row, pk),
     .flags = DDB_FIELD_KEY, .shard = -1},
    {.name = "sk", .attr = "sk", .type = DDB_F_CHARS, .size = WL_SK_LEN + 1, .offset = offsetof(struct row, sk),
     .flags = DDB_FIELD_KEY, .shard = -1},
    {.name = "gpk", .attr = "gpk", .type = DDB_F_CHARS, .size = WL_GPK_LEN + 1, .offset = offsetof(struct row, gpk),
     .shard = -1},
    {.name = "gsk", .attr = "gsk", .type = DDB_F_CHARS, .size = WL_GSK_LEN + 1, .offset = offsetof(struct row, gsk),
     .shard = -1},
    {.name = "data", .attr = "data", .type = DDB_F_BYTES, .size = sizeof(ddb_bytes),
     .offset = offsetof(struct row, data), .shard = -1},
};
static const ddb_struct_desc row_st = {"row", sizeof(struct row), 5, row_fields};
static const ddb_tseg seg_pk[] = {{.path = P(0), .path_len = 1}}, seg_sk[] = {{.path = P(1), .path_len = 1}};
static const ddb_tseg seg_gpk[] = {{.path = P(2), .path_len = 1}}, seg_gsk[] = {{.path = P(3), .path_len = 1}};
static const ddb_key_desc row_keys[] = {
    {NULL, "pk", "sk", {seg_pk, 1, DDB_TS}, {seg_sk, 1, DDB_TS}, -1, false},
    {"by_status", "gpk", "gsk", {seg_gpk, 1, DDB_TS}, {seg_gsk, 1, DDB_TS}, -1, false},
};
static const ddb_index_def row_gsi = {.name = "by_status", .key = {.pk = "gpk", .pk_type = DDB_TS, .sk = "gsk", .sk_type = DDB_TS},
                                      .projection = DDB_PROJ_ALL};
static const ddb_schema_table row_table = {
    "bench", "Type", {.name = "bench", .key = {.pk = "pk", .pk_type = DDB_TS, .sk = "sk", .sk_type = DDB_TS}, .indexes = &row_gsi, .n_indexes = 1}};
static const ddb_entity_desc row_entity = {.name = "Row", .table = &row_table, .st = &row_st, .n_keys = 2,
                                           .keys = row_keys};

typedef struct th {
    ddb *db;
    const wl *w;
    ddb_arena *a;
} th;

static int t_fail(const char *what, int rc, const ddb_error *err)
{
    fprintf(stderr, "typed: %s: %s (%s)\n", what, ddb_strerror(rc), err->message);
    return -1;
}

static int t_open_db(const char *dir, bench_mode mode, ddb **db)
{
    char uri[1100];
    snprintf(uri, sizeof uri, "file:%s/typed", dir);
    ddb_options o = {0};
    o.map_size = bench_map_size();
    o.sync = mode == MODE_FULL ? DDB_SYNC_FULL : DDB_SYNC_NONE;
    ddb_error err = {0};
    int rc = ddb_open(uri, &o, db, &err);
    return rc ? t_fail("open", rc, &err) : 0;
}

static void fill(struct row *r, const wl_item *x)
{
    memcpy(r->pk, x->pk, sizeof r->pk);
    memcpy(r->sk, x->sk, sizeof r->sk);
    memcpy(r->gpk, x->gpk, sizeof r->gpk);
    memcpy(r->gsk, x->gsk, sizeof r->gsk);
    r->data = (ddb_bytes){(uint8_t *)x->data, WL_DATA_LEN};
}

static int t_load(const char *dir, const wl *w)
{
    ddb *db;
    if (t_open_db(dir, MODE_NONE, &db))
        return -1;
    ddb_error err = {0};
    const ddb_entity_desc *ents[] = {&row_entity};
    int rc = ddb_ent_open_table(db, &row_table, ents, 1, &err);
    wl_item x;
    struct row r;
    for (uint64_t i = 0; i < w->items && !rc; i++) {
        wl_item_make(w, wl_load_order(w, i), 0, &x);
        fill(&r, &x);
        rc = ddb_ent_put(db, &row_entity, &r, NULL, NULL, &err);
    }
    if (!rc)
        rc = ddb_sync(db, &err);
    ddb_close(db);
    return rc ? t_fail("load", rc, &err) : 0;
}

static int t_open(const char *dir, const wl *w, bench_mode mode, void **out)
{
    th *h = calloc(1, sizeof *h);
    if (!h || t_open_db(dir, mode, &h->db) || !(h->a = ddb_arena_new())) {
        free(h);
        return -1;
    }
    h->w = w;
    *out = h;
    return 0;
}

static void t_close(void *vh)
{
    th *h = vh;
    ddb_arena_free(h->a);
    ddb_close(h->db);
    free(h);
}

static int t_thread_open(void *vh, void **out)
{
    *out = vh; /* one thread */
    return 0;
}

static void t_thread_close(void *vt)
{
    (void)vt;
}

static int t_get(void *vt, uint64_t i)
{
    th *t = vt;
    ddb_arena_reset(t->a);
    struct row k, out;
    wl_pk(i / WL_COLLECTION, k.pk);
    wl_sk(i % WL_COLLECTION, k.sk);
    ddb_error err;
    int rc = ddb_ent_read(t->db, &row_entity, &k, NULL, t->a, &out, NULL, &err);
    if (rc)
        return t_fail("get", rc, &err);
    return out.data.len == WL_DATA_LEN ? 1 : -1;
}

static int t_run(th *t, uint16_t key, const struct row *k)
{
    ddb_arena_reset(t->a);
    ddb_ent_key_cond kc = {.key = key, .obj = k};
    ddb_ent_result res;
    ddb_error err;
    int rc = ddb_ent_query_pattern(t->db, &row_entity, &kc, NULL, t->a, &res, &err);
    if (rc)
        return t_fail("query", rc, &err);
    return (int)res.count;
}

static int t_query(void *vt, uint64_t part)
{
    struct row k;
    wl_pk(part, k.pk);
    return t_run(vt, 0, &k);
}

static int t_gsi(void *vt, uint64_t gpart)
{
    struct row k;
    wl_gpk(gpart, k.gpk);
    return t_run(vt, 1, &k);
}

static int t_put(void *vt, uint64_t i, uint64_t version)
{
    (void)vt, (void)i, (void)version;
    return -1; /* not measured here */
}

static const peer_vt peer_typed = {"typed", t_load, t_open, t_close, t_thread_open, t_thread_close,
                                   t_get, t_query, t_gsi, t_put};

/* ---- the driver ------------------------------------------------------------ */

enum { PH_GET, PH_QUERY, PH_GSI, N_PH };
static const char *const ph_names[] = {"get", "query (100 items)", "GSI query (100 items)"};
static const double goals[] = {0.85, 0.9, 0.85};

/* One slice: ops of one peer on one phase for about secs seconds; adds the
 * ops and the process CPU seconds they took.  -1 on a wrong answer. */
static int slice(const peer_vt *p, void *tc, const wl *w, int ph, double secs, uint64_t *rng, double *ops,
                 double *cpu)
{
    double t0 = bx_now(), c0 = bx_cpu();
    uint64_t n = 0;
    while (bx_now() - t0 < secs) {
        for (int k = 0; k < 16; k++, n++) {
            uint64_t r = bx_rand(rng);
            int got = ph == PH_GET ? p->get(tc, r % w->items) : ph == PH_QUERY ? p->query(tc, r % w->parts)
                                                                              : p->gsi(tc, r % w->parts);
            if (got != (ph == PH_GET ? 1 : WL_COLLECTION)) {
                fprintf(stderr, "%s: %s returned %d\n", p->name, ph_names[ph], got);
                return -1;
            }
        }
    }
    *ops += (double)n;
    *cpu += bx_cpu() - c0;
    return 0;
}

int main(int argc, char **argv)
{
    uint64_t items = 100000;
    double secs = 3;
    char dir[1024] = "";
    const char *only_peer = NULL, *only_phase = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--items") && i + 1 < argc)
            items = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--secs") && i + 1 < argc)
            secs = atof(argv[++i]);
        else if (!strcmp(argv[i], "--dir") && i + 1 < argc)
            snprintf(dir, sizeof dir, "%s", argv[++i]);
        else if (!strcmp(argv[i], "--peer") && i + 1 < argc)
            only_peer = argv[++i];
        else if (!strcmp(argv[i], "--phase") && i + 1 < argc)
            only_phase = argv[++i];
        else {
            fprintf(stderr, "usage: ddb-bench-reads [--items N (100000)] [--secs S per phase (3)] [--dir DIR] "
                            "[--peer typed|ddb|lmdb] [--phase get|query|gsi]\n");
            return 2;
        }
    }
    items = (items + WL_COLLECTION - 1) / WL_COLLECTION * WL_COLLECTION;
    if (items < WL_COLLECTION || secs <= 0)
        return 2;
    if (!*dir)
        snprintf(dir, sizeof dir, "/tmp/ddb-bench-reads-%d", (int)getpid());
    bx_rm_rf(dir);
    if (mkdir(dir, 0755)) {
        perror(dir);
        return 1;
    }
    bx_print_header("Typed reads (entity layer) vs raw LMDB and the untyped API, 1 thread", argc, argv);
    wl w = {items, items / WL_COLLECTION, false};
    const peer_vt *peers[] = {&peer_typed, &peer_ddb, &peer_lmdb};
    enum { N = 3 };
    static const char *const phase_args[] = {"get", "query", "gsi"};
    bool run_peer[N], run_phase[N_PH];
    for (int p = 0; p < N; p++)
        run_peer[p] = !only_peer || !strcmp(only_peer, peers[p]->name);
    for (int ph = 0; ph < N_PH; ph++)
        run_phase[ph] = !only_phase || !strcmp(only_phase, phase_args[ph]);
    if (!memchr(run_peer, true, sizeof run_peer) || !memchr(run_phase, true, sizeof run_phase)) {
        fprintf(stderr, "ddb-bench-reads: no peer %s / no phase %s\n", only_peer ? only_peer : "",
                only_phase ? only_phase : "");
        return 2;
    }
    void *h[N] = {0}, *tc[N] = {0};
    for (int p = 0; p < N; p++) {
        if (!run_peer[p])
            continue;
        double t0 = bx_now();
        if (peers[p]->load(dir, &w) || peers[p]->open(dir, &w, MODE_FULL, &h[p]) ||
            peers[p]->thread_open(h[p], &tc[p])) {
            fprintf(stderr, "%s: load/open failed\n", peers[p]->name);
            return 1;
        }
        fprintf(stderr, "loaded %s: %" PRIu64 " items in %.1f s\n", peers[p]->name, items, bx_now() - t0);
        uint64_t rng = 7;
        double o = 0, c = 0;
        if (slice(peers[p], tc[p], &w, PH_GET, secs / 3, &rng, &o, &c)) /* warm up */
            return 1;
    }
    /* The peers take turns in short slices (20 per phase), so that other
     * work on the machine weighs on all of them alike; a rate is operations
     * per second of this process's CPU time (one thread). */
    enum { SLICES = 20 };
    double rate[N_PH][N] = {{0}};
    for (int ph = 0; ph < N_PH; ph++) {
        if (!run_phase[ph])
            continue;
        double ops[N] = {0}, cpu[N] = {0};
        uint64_t rng[N];
        for (int p = 0; p < N; p++)
            rng[p] = 12345 + (uint64_t)ph; /* the same keys for every peer */
        for (int k = 0; k < SLICES; k++)
            for (int p = 0; p < N; p++)
                if (run_peer[p] && slice(peers[p], tc[p], &w, ph, secs / SLICES, &rng[p], &ops[p], &cpu[p]))
                    return 1;
        for (int p = 0; p < N; p++)
            rate[ph][p] = cpu[p] > 0 ? ops[p] / cpu[p] : 0;
    }
    printf("\n%" PRIu64 " items of %d bytes in partitions of %d, one GSI; %.1f s per phase and peer, in %d "
           "alternating slices; ops per CPU second\n\n",
           items, WL_ITEM_BYTES, WL_COLLECTION, secs, SLICES);
    printf("| read | typed ops/s | untyped ddb ops/s | raw LMDB ops/s | typed / LMDB | typed / untyped | goal |\n");
    printf("|---|---:|---:|---:|---:|---:|---|\n");
    for (int ph = 0; ph < N_PH; ph++) {
        if (!run_phase[ph])
            continue;
        char a[32], b[32], c[32], r1[32], r2[32];
        bx_result ra = {.ops = (uint64_t)rate[ph][0], .secs = 1}, rb = {.ops = (uint64_t)rate[ph][1], .secs = 1},
                  rc = {.ops = (uint64_t)rate[ph][2], .secs = 1};
        bool both = rate[ph][0] > 0 && rate[ph][2] > 0;
        double ratio = both ? rate[ph][0] / rate[ph][2] : 0;
        printf("| %s | %s | %s | %s | %s | %s | >= %.2fx: %s |\n", ph_names[ph], bx_fmt_rate(a, sizeof a, &ra),
               bx_fmt_rate(b, sizeof b, &rb), bx_fmt_rate(c, sizeof c, &rc),
               bx_fmt_ratio(r1, sizeof r1, rate[ph][0], rate[ph][2]),
               bx_fmt_ratio(r2, sizeof r2, rate[ph][0], rate[ph][1]), goals[ph],
               !both ? "-" : ratio >= goals[ph] ? "met" : "**not met**");
    }
    for (int p = 0; p < N; p++) {
        if (!run_peer[p])
            continue;
        peers[p]->thread_close(tc[p]);
        peers[p]->close(h[p]);
    }
    bx_rm_rf(dir);
    return 0;
}
