/* ddb-bench-gen: the generator's speed, and what generated code costs.
 *
 *   ddb-bench-gen [--runs N] [--ops N] [--rounds N] [--dir DIR] [--keep] [--quick]
 *
 * (a) Writes a schema header of 100 entities (7 fields each, a primary key
 *     and a GSI key, one table) and times the built ddbgen on it:
 *     `ddbgen -o OUT schema100.h` (libclang parse, validation, templates,
 *     writing the files), N runs (default 5); also `--emit-model` alone
 *     (parse and validation without generating) to split the time.
 *     Goal: under a second.
 * (b) The generated module of widgets.h (one entity, 7 fields, a primary
 *     key and a GSI key) against the runtime called directly: widget_put /
 *     widget_get vs ddb_put_item / ddb_get_item with the same item built by
 *     hand from the same struct (the same PK, SK, GSI1PK, GSI1SK, Type and
 *     7 attributes: checked equal before timing) and read back into the
 *     struct by hand.  DDB_SYNC_NONE, one thread, 10,000 widgets
 *     overwritten / read at random, --ops (default 200,000) per variant and
 *     round, the median of --rounds (default 5) rounds, variants taking
 *     turns.  Cost = CPU time per op (wall time is shown too: on a shared
 *     machine it also counts time the thread waited for a core).
 *     Goal: generated within 1.1x of hand-built (issue 13). */
#include "bx.h"
#include "widgets_ddb.h"

#include <ddb/ddb.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef DDBGEN_EXE
#error "DDBGEN_EXE (the path of the ddbgen executable) must be defined"
#endif

extern char **environ;

#define N_ENTITIES 100
#define N_WIDGETS 10000u

/* ---- (a) the generator ---------------------------------------------------- */

static int write_schema(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        return -1;
    }
    fprintf(f, "/* 100 entities, 7 fields each, a primary key and a GSI key (ddb-bench-gen). */\n"
               "#ifndef SCHEMA100_H\n#define SCHEMA100_H\n\n#include <ddb/schema.h>\n\n"
               "DDB_TABLE(gen100, \"Gen100\",\n"
               "          DDB_PRIMARY(\"PK\", \"SK\"),\n"
               "          DDB_GSI(\"GSI1\", \"GSI1PK\", \"GSI1SK\"));\n");
    /* a few field-type variations, as real entities have */
    static const char *const f4[] = {"int32_t", "uint64_t", "int16_t", "int64_t"};
    static const char *const f6[] = {"bool active", "char *note", "double ratio", "uint8_t level"};
    for (int i = 0; i < N_ENTITIES; i++) {
        fprintf(f,
                "\nstruct DDB_ENTITY(gen100, \"Entity%03d\")\n"
                "       DDB_KEY(\"table\", \"E%03d#{id}\", \"META#{id}\")\n"
                "       DDB_KEY(\"GSI1\", \"E%03d#OWNER#{owner}\", \"{created:020}#{id}\")\n"
                "entity%03d {\n"
                "    char id[32];\n"
                "    char owner[32];\n"
                "    char name[64];\n"
                "    %s qty;\n"
                "    double price;\n"
                "    %s;\n"
                "    int64_t created;\n"
                "};\n",
                i, i, i, i, f4[i % 4], f6[i % 4]);
    }
    fprintf(f, "\n#endif\n");
    return fclose(f) == 0 ? 0 : -1;
}

/* Run argv, wait; seconds of wall time, or -1 on failure. */
static double timed_run(char *const argv[])
{
    double t0 = bx_now();
    pid_t pid;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(rc));
        return -1;
    }
    int st;
    if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "%s failed (status %d)\n", argv[0], st);
        return -1;
    }
    return bx_now() - t0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct stat3 {
    double min, med, max;
} stat3;

static stat3 stats(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return (stat3){v[0], n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2, v[n - 1]};
}

static long file_lines(const char *path, long *bytes)
{
    FILE *f = fopen(path, "r");
    long n = 0;
    *bytes = 0;
    if (!f)
        return -1;
    int c;
    while ((c = getc(f)) != EOF) {
        (*bytes)++;
        n += c == '\n';
    }
    fclose(f);
    return n;
}

static int bench_generator(const char *dir, int runs)
{
    char schema[1200], out[1200], model[1200];
    snprintf(schema, sizeof schema, "%s/schema100.h", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(model, sizeof model, "%s/schema100.model.json", dir);
    if (write_schema(schema) || mkdir(out, 0755) != 0) {
        fprintf(stderr, "cannot write the schema in %s\n", dir);
        return -1;
    }
    char *gen_argv[] = {DDBGEN_EXE, "-o", out, schema, NULL};
    char *model_argv[] = {DDBGEN_EXE, "--emit-model", model, schema, NULL};
    double g[64], m[64];
    if (runs > 64)
        runs = 64;
    /* one untimed run of each (page cache, libclang's shared objects) */
    if (timed_run(gen_argv) < 0 || timed_run(model_argv) < 0)
        return -1;
    for (int i = 0; i < runs; i++) {
        if ((g[i] = timed_run(gen_argv)) < 0 || (m[i] = timed_run(model_argv)) < 0)
            return -1;
    }
    stat3 sg = stats(g, runs), sm = stats(m, runs);
    char h[1300], c[1300];
    snprintf(h, sizeof h, "%s/schema100_ddb.h", out);
    snprintf(c, sizeof c, "%s/schema100_ddb.c", out);
    long hb, cb, hl = file_lines(h, &hb), cl = file_lines(c, &cb);
    printf("### (a) ddbgen on a 100-entity schema\n\n"
           "Schema: 1 table (primary key + 1 GSI), 100 entities x 7 fields, 2 key templates each.\n"
           "Output: schema100_ddb.h %ld lines (%ld KB), schema100_ddb.c %ld lines (%ld KB).\n\n",
           hl, hb / 1024, cl, cb / 1024);
    printf("| command | runs | min s | median s | max s | goal < 1 s |\n|---|---:|---:|---:|---:|---|\n");
    printf("| `ddbgen -o OUT schema100.h` | %d | %.3f | %.3f | %.3f | %s |\n", runs, sg.min, sg.med, sg.max,
           sg.med < 1.0 ? "met" : "missed");
    printf("| `ddbgen --emit-model M schema100.h` (parse + validate only) | %d | %.3f | %.3f | %.3f | |\n", runs,
           sm.min, sm.med, sm.max);
#if defined(DDBX_CC) && defined(DDBX_RUNTIME_INCLUDE)
    /* for scale: compiling what was generated (once) */
    char obj[1300];
    snprintf(obj, sizeof obj, "%s/schema100_ddb.o", out);
    char inc1[1300], inc2[1300];
    snprintf(inc1, sizeof inc1, "-I%s", dir);
    snprintf(inc2, sizeof inc2, "-I%s", DDBX_RUNTIME_INCLUDE);
    char *cc_argv[] = {DDBX_CC, "-std=c11", "-O2", "-c", inc1, inc2, c, "-o", obj, NULL};
    double ct = timed_run(cc_argv);
    if (ct >= 0)
        printf("| `cc -O2 -c schema100_ddb.c` (for scale: compiling the output) | 1 | %.3f | %.3f | %.3f | |\n", ct,
               ct, ct);
#endif
    printf("\n");
    fflush(stdout);
    return 0;
}

/* ---- (b) generated vs hand-built ------------------------------------------------ */

static struct widget *widgets; /* N_WIDGETS, filled once */

static void make_widgets(void)
{
    widgets = calloc(N_WIDGETS, sizeof *widgets);
    if (!widgets)
        abort();
    for (uint32_t i = 0; i < N_WIDGETS; i++) {
        struct widget *w = &widgets[i];
        snprintf(w->id, sizeof w->id, "w%08u", i);
        snprintf(w->owner, sizeof w->owner, "owner%04u", i % 500);
        snprintf(w->name, sizeof w->name, "Widget number %u, blue", i);
        w->qty = (int32_t)(i * 7 % 1000);
        w->price = (double)(i % 10000) / 100.0 + 0.25;
        w->active = i % 3 != 0;
        w->created = 1700000000000ll + (int64_t)i * 1000;
    }
}

/* What widget_put stores, built by hand as an application using the
 * runtime directly would. */
static ddb_item *hand_item(ddb_arena *a, const struct widget *w, ddb_error *err)
{
    char pk[40], gpk[40], gsk[24];
    snprintf(pk, sizeof pk, "WIDGET#%s", w->id);
    snprintf(gpk, sizeof gpk, "OWNER#%s", w->owner);
    snprintf(gsk, sizeof gsk, "%020" PRId64, w->created);
    ddb_item *it = ddb_item_new(a);
    ddb_value *price;
    if (!it || ddb_v_double(a, w->price, &price, err) || ddb_item_set_s(it, "PK", pk) ||
        ddb_item_set_s(it, "SK", "META") || ddb_item_set_s(it, "GSI1PK", gpk) || ddb_item_set_s(it, "GSI1SK", gsk) ||
        ddb_item_set_s(it, "Type", "Widget") || ddb_item_set_s(it, "id", w->id) ||
        ddb_item_set_s(it, "owner", w->owner) || ddb_item_set_s(it, "name", w->name) ||
        ddb_item_set_i64(it, "qty", w->qty) || ddb_item_set(it, "price", price) ||
        ddb_item_set_bool(it, "active", w->active) || ddb_item_set_i64(it, "created", w->created))
        return NULL;
    return it;
}

static int hand_key(ddb_arena *a, const char *id, ddb_item **out)
{
    char pk[40];
    snprintf(pk, sizeof pk, "WIDGET#%s", id);
    ddb_item *k = ddb_item_new(a);
    if (!k || ddb_item_set_s(k, "PK", pk) || ddb_item_set_s(k, "SK", "META"))
        return DDB_ENOMEM;
    *out = k;
    return DDB_OK;
}

static int copy_s(const ddb_item *it, const char *name, char *dst, size_t cap)
{
    const ddb_value *v = ddb_item_get(it, name);
    if (!v || v->type != DDB_TS || v->len >= cap)
        return DDB_EVALIDATION;
    memcpy(dst, v->u.s, v->len + 1);
    return DDB_OK;
}

/* The item back into the struct, checking what the generated reader checks. */
static int hand_decode(const ddb_item *it, struct widget *w)
{
    memset(w, 0, sizeof *w);
    const ddb_value *t = ddb_item_get(it, "Type"), *q = ddb_item_get(it, "qty"), *p = ddb_item_get(it, "price"),
                    *ac = ddb_item_get(it, "active"), *cr = ddb_item_get(it, "created");
    int64_t qty;
    if (!t || t->type != DDB_TS || strcmp(t->u.s, "Widget") != 0 || copy_s(it, "id", w->id, sizeof w->id) ||
        copy_s(it, "owner", w->owner, sizeof w->owner) || copy_s(it, "name", w->name, sizeof w->name) || !q ||
        ddb_value_to_i64(q, &qty) || qty < INT32_MIN || qty > INT32_MAX || !p || p->type != DDB_TN ||
        ddb_value_to_double(p, &w->price) || !ac || ac->type != DDB_TBOOL || !cr ||
        ddb_value_to_i64(cr, &w->created))
        return DDB_EVALIDATION;
    w->qty = (int32_t)qty;
    w->active = ac->u.boolean;
    return DDB_OK;
}

static bool same_widget(const struct widget *x, const struct widget *y)
{
    return !strcmp(x->id, y->id) && !strcmp(x->owner, y->owner) && !strcmp(x->name, y->name) && x->qty == y->qty &&
           x->price == y->price && x->active == y->active && x->created == y->created;
}

typedef struct gctx {
    ddb *db;
    ddb_arena *a;
    ddb_error err;
    struct widget out;
} gctx;

static int fail(const char *what, int rc, const ddb_error *err)
{
    fprintf(stderr, "%s: %s (%s)\n", what, ddb_strerror(rc), err ? err->message : "");
    return -1;
}

static int op_hand_put(void *vt, uint64_t *rng)
{
    gctx *g = vt;
    ddb_arena_reset(g->a);
    ddb_item *it = hand_item(g->a, &widgets[bx_rand(rng) % N_WIDGETS], &g->err);
    if (!it)
        return fail("hand put: item", DDB_ENOMEM, NULL);
    int rc = ddb_put_item(g->db, "Widgets", it, NULL, NULL, NULL, &g->err);
    return rc ? fail("ddb_put_item", rc, &g->err) : 0;
}

static int op_gen_put(void *vt, uint64_t *rng)
{
    gctx *g = vt;
    int rc = widget_put(g->db, &widgets[bx_rand(rng) % N_WIDGETS], NULL, NULL, &g->err);
    return rc ? fail("widget_put", rc, &g->err) : 0;
}

static int op_hand_get(void *vt, uint64_t *rng)
{
    gctx *g = vt;
    ddb_arena_reset(g->a);
    const struct widget *w = &widgets[bx_rand(rng) % N_WIDGETS];
    ddb_item *k, *it;
    if (hand_key(g->a, w->id, &k))
        return fail("hand get: key", DDB_ENOMEM, NULL);
    int rc = ddb_get_item(g->db, "Widgets", k, NULL, g->a, &it, NULL, &g->err);
    if (rc)
        return fail("ddb_get_item", rc, &g->err);
    if (hand_decode(it, &g->out) || g->out.qty != w->qty)
        return fail("hand get: decode", DDB_EVALIDATION, NULL);
    return 0;
}

static int op_gen_get(void *vt, uint64_t *rng)
{
    gctx *g = vt;
    ddb_arena_reset(g->a);
    const struct widget *w = &widgets[bx_rand(rng) % N_WIDGETS];
    int rc = widget_get(g->db, w->id, NULL, g->a, &g->out, &g->err);
    if (rc)
        return fail("widget_get", rc, &g->err);
    return g->out.qty == w->qty ? 0 : fail("widget_get: wrong item", DDB_ECORRUPT, NULL);
}

static void *g_open(void *ctx, int id)
{
    (void)id;
    return ctx;
}

static void g_close(void *tc)
{
    (void)tc;
}

/* The two sides must do the same work: the same item stored, the same struct read. */
static int check_equivalent(gctx *g)
{
    ddb_arena_reset(g->a);
    for (uint32_t i = 0; i < N_WIDGETS; i += 997) {
        ddb_item *gi, *hi = hand_item(g->a, &widgets[i], &g->err);
        int rc = widget_to_item(&widgets[i], g->a, &gi, &g->err);
        if (rc || !hi)
            return fail("to_item", rc ? rc : DDB_ENOMEM, &g->err);
        if (!ddb_value_equal(ddb_item_map(gi), ddb_item_map(hi))) {
            const ddb_value *m = ddb_item_map(gi);
            fprintf(stderr, "the hand-built item differs from the generated one; generated attributes:");
            for (uint32_t j = 0; j < m->len; j++)
                fprintf(stderr, " %s", m->u.m[j].name);
            fprintf(stderr, "\n");
            return -1;
        }
        struct widget a, b;
        ddb_item *k, *it;
        if ((rc = widget_get(g->db, widgets[i].id, NULL, g->a, &a, &g->err)) ||
            (rc = hand_key(g->a, widgets[i].id, &k)) ||
            (rc = ddb_get_item(g->db, "Widgets", k, NULL, g->a, &it, NULL, &g->err)) || (rc = hand_decode(it, &b)))
            return fail("get", rc, &g->err);
        if (!same_widget(&a, &b) || !same_widget(&a, &widgets[i])) {
            fprintf(stderr, "generated and hand-built reads differ for %s\n", widgets[i].id);
            return -1;
        }
    }
    return 0;
}

static int bench_module(const char *dir, uint64_t ops, int rounds)
{
    char uri[1200];
    snprintf(uri, sizeof uri, "file:%s/db", dir);
    ddb_options o = {0};
    o.sync = DDB_SYNC_NONE;
    o.map_size = 4ull << 30;
    gctx g = {0};
    int rc = ddb_open(uri, &o, &g.db, &g.err);
    if (rc)
        return fail("ddb_open", rc, &g.err);
    if ((rc = widgets_open(g.db, &g.err))) {
        ddb_close(g.db);
        return fail("widgets_open", rc, &g.err);
    }
    g.a = ddb_arena_new();
    make_widgets();
    for (uint32_t i = 0; i < N_WIDGETS && !rc; i++) /* load (and warm up) */
        rc = widget_put(g.db, &widgets[i], NULL, NULL, &g.err);
    if (rc || check_equivalent(&g)) {
        if (rc)
            fail("load", rc, &g.err);
        ddb_arena_free(g.a);
        ddb_close(g.db);
        return -1;
    }
    /* variants: hand put, generated put, hand get, generated get */
    int (*const fns[4])(void *, uint64_t *) = {op_hand_put, op_gen_put, op_hand_get, op_gen_get};
    static const char *const vname[4] = {"hand put", "gen put", "hand get", "gen get"};
    double cpu_ns[4][16], wall_ns[4][16];
    if (rounds > 16)
        rounds = 16;
    bool failed = false;
    for (int r = 0; r < rounds && !failed; r++)
        for (int k = 0; k < 4 && !failed; k++) {
            int v = r % 2 ? (k ^ 1) : k; /* take turns: who goes first alternates */
            bx_job j = {.threads = 1, .budget = ops, .cap_s = 120, .ctx = &g, .thread_open = g_open,
                        .thread_close = g_close, .op = fns[v]};
            bx_result res = bx_run(&j);
            failed = res.failed || res.ops == 0;
            wall_ns[v][r] = failed ? 0 : res.secs * 1e9 / (double)res.ops;
            cpu_ns[v][r] = failed ? 0 : res.cpu * 1e9 / (double)res.ops;
            fprintf(stderr, "  round %d %-10s %8" PRIu64 " ops: %.0f ns/op CPU, %.0f ns/op wall\n", r, vname[v],
                    res.ops, cpu_ns[v][r], wall_ns[v][r]);
        }
    ddb_arena_free(g.a);
    ddb_close(g.db);
    free(widgets);
    if (failed)
        return -1;
    stat3 c[4], w[4];
    for (int v = 0; v < 4; v++) {
        c[v] = stats(cpu_ns[v], rounds);
        w[v] = stats(wall_ns[v], rounds);
    }
    printf("### (b) generated module vs hand-built runtime calls\n\n"
           "Entity widget (widgets.h): 7 fields, keys PK/SK \"WIDGET#{id}\"/\"META\" and GSI1 "
           "\"OWNER#{owner}\"/\"{created:020}\"; stored item of 12 attributes.\n"
           "DDB_SYNC_NONE, 1 thread, 10,000 widgets, %" PRIu64 " ops per variant and round, %d rounds (variants "
           "taking turns), median reported.  ns/op = CPU time of the process (user + system) / ops; the wall-clock "
           "ratio is given too.\n\n",
           ops, rounds);
    printf("| operation | hand-built: ddb_put_item / ddb_get_item, ns/op | generated: widget_put / widget_get, ns/op "
           "| generated/hand (CPU) | generated/hand (wall) | goal <= 1.1x |\n|---|---:|---:|---:|---:|---|\n");
    for (int op = 0; op < 2; op++) {
        double h = c[op * 2].med, gn = c[op * 2 + 1].med;
        double hw = w[op * 2].med, gw = w[op * 2 + 1].med;
        printf("| %s | %.0f | %.0f | %.2fx | %.2fx | %s |\n",
               op ? "get (+ decode into the struct)" : "put (item from the struct)", h, gn, gn / h, gw / hw,
               gn / h <= 1.1 ? "met" : "missed");
    }
    printf("\n");
    return 0;
}

static void usage(void)
{
    fprintf(stderr, "usage: ddb-bench-gen [--runs N] [--ops N] [--rounds N] [--dir DIR] [--keep] [--quick]\n"
                    "  --runs N    timed ddbgen runs (default 5)\n"
                    "  --ops N     operations per variant and round (default 200000)\n"
                    "  --rounds N  rounds of the four variants (default 5; the median is reported)\n"
                    "  --dir DIR   working directory (default /tmp/ddb-bench-gen-PID; emptied first)\n"
                    "  --keep      keep it afterwards\n"
                    "  --quick     2 runs, 50000 ops, 1 round\n");
    exit(2);
}

int main(int argc, char **argv)
{
    int runs = 5, rounds = 5;
    uint64_t ops = 200000;
    bool keep = false;
    char dir[1024];
    snprintf(dir, sizeof dir, "/tmp/ddb-bench-gen-%d", (int)getpid());
    bool quick = false;
    const bx_opt opts[] = {
        {"--runs", BX_OPT_INT, &runs, 0},
        {"--ops", BX_OPT_U64, &ops, 0},
        {"--rounds", BX_OPT_INT, &rounds, 0},
        {"--dir", BX_OPT_TEXT, dir, sizeof dir},
        {"--keep", BX_OPT_FLAG, &keep, 0},
        {"--quick", BX_OPT_FLAG, &quick, 0},
    };
    if (!bx_parse_args(argc, argv, opts, sizeof opts / sizeof *opts))
        usage();
    if (quick)
        runs = 2, ops = 50000, rounds = 1;
    if (runs < 1 || rounds < 1 || ops < 1)
        usage();
    bx_print_header("ddb-bench-gen: generator speed and generated-code cost", argc, argv);
    printf("ddbgen: %s\n\n", DDBGEN_EXE);
    fflush(stdout);
    if (bx_fresh_dir(dir) != 0)
        return 1;
    int rc = bench_generator(dir, runs);
    if (bench_module(dir, ops, rounds))
        rc = -1;
    if (!keep)
        bx_rm_rf(dir);
    printf("Load average (1 min) at end: %.2f\n", bx_loadavg());
    return rc ? 1 : 0;
}
