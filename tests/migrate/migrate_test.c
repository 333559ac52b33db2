/* One version's side of the migration test (tests/migrate/run.sh drives
 * it); compiled once per schema version (MIG_V 1..4) against that
 * version's generated module.  Usage: migrate_vN COMMAND DIR N [ARG]:
 *   populate        write N customers (creating the table)
 *   grow      (v2)  the new optional field: open as is, write customer N with it
 *   refuse          open must be DDB_EMODEL naming what is needed (ARG: text it must hold)
 *   migrate         migrate to this version; ARG > 0 (v3): SIGKILL this process after ARG
 *                   progress reports (v4: MIGRATE_KILL_AFTER, transform_v4.c)
 *   dry-run         counts and samples, nothing written
 *   reads           while the next version's migration is in progress: this (old)
 *                   version opens the table and reads customer 1 (found, or already
 *                   moved away: DDB_ENOTFOUND); issue 25, defect 4
 *   verify          every item in this version's form, old keys gone, typed queries answer
 * DIR is a "file:" directory or an http:// endpoint.  Exit 0 when the step
 * behaved as expected. */
#if MIG_V == 1
#include "v1_ddb.h"
#elif MIG_V == 2
#include "v2_ddb.h"
#elif MIG_V == 3
#include "v3_ddb.h"
#else
#include "v4_old.h" /* v4_ddb.h and the old forms of the deployed model (version 3's) */
#endif

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const cities[] = {"Paris", "Lyon", "Oslo", "Rome", "Kyiv", "Lima", "Quito", "Hanoi", "Dakar", "Perth"};
#define N_CITIES 10

static int fail(const char *what, int rc, const ddb_error *err)
{
    fprintf(stderr, "migrate v%d: %s: %s (%s)\n", MIG_V, what, ddb_strerror(rc), err->message);
    return 1;
}

static void fill(struct customer *c, int64_t i)
{
    memset(c, 0, sizeof *c);
    c->id = i;
    snprintf(c->name, sizeof c->name, "n%05lld", (long long)(i % 5000));
    snprintf(c->home.city, sizeof c->home.city, "%s", cities[i % N_CITIES]);
    snprintf(c->home.zip, sizeof c->home.zip, "Z%03lld", (long long)(i % 100));
#if MIG_V < 4
    c->score = (double)i * 0.5;
#else
    snprintf(c->score, sizeof c->score, "%.1f", (double)i * 0.5);
#endif
}

static long kill_after;
static long events;
static int progress_bad;

/* The killed run prints where its last progress report was (the
 * checkpoint is stored before each report): "at scanned S done D capacity C". */
static void maybe_die(const ddb_ent_progress *p)
{
    if (kill_after > 0 && ++events == kill_after) {
        fprintf(stderr, "migrate v%d: SIGKILL after %ld at scanned %llu done %llu capacity %.0f\n", MIG_V, events,
                (unsigned long long)p->scanned, (unsigned long long)p->done, p->capacity);
        fflush(stderr);
        raise(SIGKILL);
    }
}

/* MIGRATE_RESUME_FROM="S D C" (run.sh, from the killed run's last line):
 * the resumed run's first report goes on from there (scanned and done past
 * them, capacity not below), and says which part earlier runs did. */
static void check_resumed(const ddb_ent_progress *p)
{
    const char *from = getenv("MIGRATE_RESUME_FROM");
    unsigned long long s, d;
    double c;
    if (events != 1 || !from)
        return;
    if (sscanf(from, "%llu %llu %lf", &s, &d, &c) != 3) {
        fprintf(stderr, "migrate v%d: MIGRATE_RESUME_FROM \"%s\" is not \"S D C\"\n", MIG_V, from);
        progress_bad = 1;
        return;
    }
    if (p->scanned <= s || p->done <= d || p->capacity < c - 0.5 || p->scanned_before != s) {
        fprintf(stderr,
                "migrate v%d: the resumed run's first progress (scanned %llu, before %llu, done %llu, capacity "
                "%.0f) does not go on from the checkpoint (scanned %llu done %llu capacity %.0f)\n",
                MIG_V, (unsigned long long)p->scanned, (unsigned long long)p->scanned_before,
                (unsigned long long)p->done, p->capacity, s, d, c);
        progress_bad = 1;
    }
}

static void on_progress(void *ctx, const ddb_ent_progress *p)
{
    (void)ctx;
    if (!kill_after)
        events++;
    check_resumed(p);
    maybe_die(p);
}

/* Version 3 names its step and id; version 4 runs the plan ddbgen generated
 * from the deployed model (app_migrate_from_old, with customer_from_old of
 * transform_v4.c). */
static int do_migrate(ddb *db, bool dry)
{
    ddb_error err = {0};
    ddb_arena *a = ddb_arena_new();
    ddb_ent_migrate_report r;
    ddb_ent_migrate_opts o = {.dry_run = dry, .samples = 3, .progress = on_progress, .page_size = 500,
                              .drop_indexes = !getenv("MIGRATE_KEEP_INDEXES")};
#if MIG_V == 4
    int rc = app_migrate_from_old(db, NULL, &o, a, &r, &err);
#else
    ddb_ent_migration_step step = {.entity = &customer_entity};
    int rc = app_migrate(db, "v2-to-v3", &step, 1, &o, a, &r, &err);
#endif
    if (rc)
        return fail("migrate", rc, &err);
    printf("migrate v%d%s: resumed %d scanned %llu moved %llu rewritten %llu unchanged %llu capacity %.0f\n", MIG_V,
           dry ? " (dry run)" : "", r.resumed, (unsigned long long)r.scanned, (unsigned long long)r.moved,
           (unsigned long long)r.rewritten, (unsigned long long)r.unchanged, r.capacity);
    for (size_t i = 0; i < r.n_samples; i++)
        printf("  %s\n", r.samples[i]);
    ddb_arena_free(a);
    return progress_bad;
}

/* Every stored customer is in this version's form; n of them. */
static int verify_scan(ddb *db, long n)
{
    ddb_arena *a = ddb_arena_new(), *pa = ddb_arena_new();
    ddb_scan_params sp = {.table = "AppMigrate"};
    ddb_error err = {0};
    long seen = 0;
    int bad = 0;
    for (;;) {
        ddb_page pg;
        ddb_arena_reset(pa);
        int rc = ddb_scan(db, &sp, pa, &pg, &err);
        if (rc)
            return fail("scan", rc, &err);
        for (size_t i = 0; i < pg.count; i++) {
            const ddb_value *t = ddb_item_get(pg.items[i], "Type"), *pk = ddb_item_get(pg.items[i], "PK");
            if (!t || strcmp(t->u.s, "Customer"))
                continue;
            seen++;
            (void)pk;
#if MIG_V >= 3
            if (!ddb_item_get(pg.items[i], "ZipPK") && bad++ < 5)
                fprintf(stderr, "verify: %s lacks ZipPK\n", pk->u.s);
#endif
#if MIG_V == 4
            if (ddb_item_get(pg.items[i], "GSI1PK") && bad++ < 5)
                fprintf(stderr, "verify: %s still has GSI1PK (it left GSI1)\n", pk->u.s);
            const ddb_value *sc = ddb_item_get(pg.items[i], "score");
            for (const char *p = pk->u.s; *p; p++)
                if (*p >= 'A' && *p <= 'Z' && p > pk->u.s + 4 && bad++ < 5)
                    fprintf(stderr, "verify: old key %s is still there\n", pk->u.s);
            if ((!sc || sc->type != DDB_TS) && bad++ < 5)
                fprintf(stderr, "verify: %s: score is not text\n", pk->u.s);
#endif
        }
        if (!pg.last_key)
            break;
        sp.start_key = ddb_item_copy(a, pg.last_key);
    }
#if MIG_V == 4
    /* the plan dropped GSI1 (unless kept: see run_remote.sh) */
    ddb_table_desc *d;
    int drc = ddb_describe_table(db, "AppMigrate", a, &d, &err);
    if (drc)
        return fail("describe", drc, &err);
    for (size_t i = 0; i < d->def.n_indexes; i++)
        if (!strcmp(d->def.indexes[i].name, "GSI1") && !getenv("MIGRATE_KEEP_INDEXES") && bad++ < 5)
            fprintf(stderr, "verify: index GSI1 is still there\n");
#endif
    ddb_arena_free(pa);
    ddb_arena_free(a);
    if (seen != n || bad) {
        fprintf(stderr, "verify: %ld customers (want %ld), %d in the wrong form\n", seen, n, bad);
        return 1;
    }
    return 0;
}

/* The typed queries of this version answer. */
static int verify_queries(ddb *db, long n)
{
    ddb_error err = {0};
    ddb_arena *a = ddb_arena_new();
    int rc;
    /* customer 7 by its primary key */
    struct customer c, want;
    fill(&c, 7);
    fill(&want, 7);
    if ((rc = ddb_ent_get(db, &customer_entity, &c, NULL, a, &c, NULL, &err)))
        return fail("get customer 7", rc, &err);
#if MIG_V == 4
    if (strcmp(c.score, want.score) || strcmp(c.home.city, want.home.city)) {
#else
    if (c.score != want.score || strcmp(c.home.city, want.home.city)) {
#endif
        fprintf(stderr, "verify: customer 7 read back wrong\n");
        return 1;
    }
    /* a whole partition of the table: customers of one city */
    long in_city = 0, want_city = 0;
    for (long i = 0; i < n; i++)
        want_city += i % N_CITIES == 3;
    ddb_ent_read_opts q = {0};
    fill(&want, 3);
    for (;;) {
        customer_page pg;
        if ((rc = customer_table(db, want.home.city, customer_table_all(), &q, a, &pg, &err)))
            return fail("query the city", rc, &err);
        in_city += (long)pg.count;
        if (!pg.cursor)
            break;
        q.cursor = pg.cursor;
    }
    if (in_city != want_city) {
        fprintf(stderr, "verify: %ld customers in Rome, want %ld\n", in_city, want_city);
        return 1;
    }
#if MIG_V >= 3
    /* the new index */
    long in_zip = 0, want_zip = 0;
    for (long i = 0; i < n; i++)
        want_zip += i % 100 == 42;
    fill(&want, 42);
    ddb_ent_read_opts z = {0};
    for (;;) {
        customer_page pg;
        if ((rc = customer_ByZip(db, want.home.zip, customer_ByZip_all(), &z, a, &pg, &err)))
            return fail("query ByZip", rc, &err);
        in_zip += (long)pg.count;
        if (!pg.cursor)
            break;
        z.cursor = pg.cursor;
    }
    if (in_zip != want_zip) {
        fprintf(stderr, "verify: %ld customers in ByZip Z042, want %ld\n", in_zip, want_zip);
        return 1;
    }
#endif
    ddb_arena_free(a);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 4)
        return 2;
    const char *cmd = argv[1];
    long n = atol(argv[3]);
    const char *arg = argc > 4 ? argv[4] : "";
    char uri[600];
    snprintf(uri, sizeof uri, strncmp(argv[2], "http", 4) ? "file:%s" : "%s", argv[2]);
    ddb *db;
    ddb_error err = {0};
    ddb_options opts = {.sync = DDB_SYNC_NONE};
    int rc = ddb_open(uri, &opts, &db, &err);
    if (rc)
        return fail("ddb_open", rc, &err);
    int st = 0;
    if (!strcmp(cmd, "populate")) {
        if ((rc = app_open(db, &err)))
            return fail("app_open", rc, &err);
        struct customer batch[100];
        for (long i = 0; i < n && !rc; i += 100) {
            size_t k = 0;
            for (; k < 100 && i + (long)k < n; k++)
                fill(&batch[k], i + (long)k);
            rc = customer_batch_put(db, batch, k, NULL, NULL, &err);
        }
        if (rc)
            return fail("batch put", rc, &err);
    } else if (!strcmp(cmd, "grow")) {
#if MIG_V == 2
        if ((rc = app_open(db, &err))) /* a new optional field needs nothing */
            return fail("app_open (new optional field)", rc, &err);
        struct customer c;
        fill(&c, n);
        c.nickname = "newcomer";
        if ((rc = customer_create(db, &c, NULL, NULL, &err)))
            return fail("create with the new field", rc, &err);
        ddb_arena *a = ddb_arena_new();
        struct customer old;
        fill(&old, 1);
        if ((rc = ddb_ent_get(db, &customer_entity, &old, NULL, a, &old, NULL, &err)) || old.nickname)
            return fail("get an old customer (no nickname)", rc, &err);
        ddb_arena_free(a);
#endif
    } else if (!strcmp(cmd, "refuse")) {
        rc = app_open(db, &err);
        if (rc != DDB_EMODEL || !strstr(err.message, arg)) {
            fprintf(stderr, "migrate v%d: expected DDB_EMODEL with \"%s\", got %s \"%s\"\n", MIG_V, arg,
                    ddb_strerror(rc), err.message);
            st = 1;
        }
    } else if (!strcmp(cmd, "migrate") || !strcmp(cmd, "dry-run")) {
        kill_after = atol(arg);
        st = do_migrate(db, !strcmp(cmd, "dry-run"));
    } else if (!strcmp(cmd, "reads")) {
        if ((rc = app_open(db, &err)))
            return fail("app_open during the next version's migration", rc, &err);
        ddb_arena *a = ddb_arena_new();
        struct customer one;
        fill(&one, 1);
        rc = ddb_ent_get(db, &customer_entity, &one, NULL, a, &one, NULL, &err);
        ddb_arena_free(a);
        if (rc && rc != DDB_ENOTFOUND)
            return fail("get customer 1 during the migration", rc, &err);
    } else if (!strcmp(cmd, "verify")) {
        if ((rc = app_open(db, &err)))
            return fail("app_open after the migration", rc, &err);
        st = verify_scan(db, n) || verify_queries(db, n);
    } else {
        st = 2;
    }
    ddb_close(db);
    if (!st)
        printf("migrate v%d %s: ok\n", MIG_V, cmd);
    return st;
}
