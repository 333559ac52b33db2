/* One version's side of the sharded migration test (run_shards.sh drives
 * it); compiled against shards_v1.h's module (SHARDS_V 1) and shards_v2.h's
 * (SHARDS_V 2, with the old forms of version 1's deployed model).  Usage:
 * shards_vN COMMAND URI N [ARG]:
 *   populate      (v1) N products (two shard items each) and N events (write-sharded);
 *                 ARG "events": the events only (an endpoint without transactions cannot
 *                 write a sharded product)
 *   refuse        (v2) open is DDB_EMODEL with ARG in its message
 *   migrate       (v2) inv_migrate_from_old, 30 items a page; ARG > 0: SIGKILL after ARG
 *                 progress reports; prints the report
 *   migrate-events (v2) the events' step alone (inv_migrate with event_migration_step)
 *   no-tx         (v2) the migration is DDB_ENOTSUP (an endpoint without TransactWriteItems)
 *                 and leaves the table as it was: version 1 opens and reads it
 *   verify        (v1, v2) every item in this version's form, old keys gone, typed reads answer
 *                 (ARG "events": there are no products)
 * Exit 0 when the step behaved as expected. */
#if SHARDS_V == 1
#include "shards_v1_ddb.h"
#else
#include "shards_v2_old.h"
#endif

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const days[] = {"2026-01-01", "2026-01-02", "2026-01-03"};
static const char *const kinds[] = {"click", "view"};
static const char *const cats[] = {"tools", "toys", "books", "food"};

static int fail(const char *what, int rc, const ddb_error *err)
{
    fprintf(stderr, "shards v%d: %s: %s (%s)\n", SHARDS_V, what, ddb_strerror(rc), err->message);
    return 1;
}

static void fill_product(struct product *p, long i)
{
    memset(p, 0, sizeof *p);
    snprintf(p->sku, sizeof p->sku, "S%05d", (int)(i % 100000));
    snprintf(p->title, sizeof p->title, "title %d", (int)i);
    snprintf(p->category, sizeof p->category, "%s", cats[i % 4]);
    p->views = i * 3;
}

static void fill_event(struct event *e, long i)
{
    memset(e, 0, sizeof *e);
    snprintf(e->day, sizeof e->day, "%s", days[i % 3]);
    e->id = i;
    snprintf(e->kind, sizeof e->kind, "%s", kinds[i % 2]);
#if SHARDS_V == 1
    e->amount = (int32_t)(i * 7);
#else
    snprintf(e->amount, sizeof e->amount, "%d.00", (int)(i * 7 % 100000));
#endif
}

#if SHARDS_V == 2
/* The transform of the event's amount (int32_t -> text), from the struct
 * ddbgen generated from version 1's deployed model. */
int event_from_old(void *ctx, const struct event_old *old, struct event *e)
{
    (void)ctx;
    snprintf(e->amount, sizeof e->amount, "%d.00", (int)(old->amount % 100000));
    return 0;
}

static long kill_after, reports;

static void on_progress(void *ctx, const ddb_ent_progress *p)
{
    (void)ctx;
    (void)p;
    if (kill_after > 0 && ++reports == kill_after) {
        fprintf(stderr, "shards v2: SIGKILL after %ld progress reports\n", reports);
        fflush(stderr);
        raise(SIGKILL);
    }
}

static int migrate(ddb *db, long kill, bool events_only)
{
    ddb_error err = {0};
    ddb_arena *a = ddb_arena_new();
    ddb_ent_migrate_report r;
    ddb_ent_migrate_opts o = {.page_size = 30, .progress = on_progress};
    kill_after = kill;
    int rc = events_only ? inv_migrate(db, INV_MIGRATION_ID, &event_migration_step, 1, &o, a, &r, &err)
                         : inv_migrate_from_old(db, NULL, &o, a, &r, &err);
    if (rc)
        return fail("migrate", rc, &err);
    printf("shards v2: resumed %d moved %llu rewritten %llu unchanged %llu\n", r.resumed,
           (unsigned long long)r.moved, (unsigned long long)r.rewritten, (unsigned long long)r.unchanged);
    ddb_arena_free(a);
    return 0;
}

/* Without TransactWriteItems the migration refuses before writing anything. */
static int no_tx(ddb *db)
{
    ddb_error err = {0};
    ddb_arena *a = ddb_arena_new();
    ddb_ent_migrate_report r;
    int rc = inv_migrate_from_old(db, NULL, NULL, a, &r, &err);
    ddb_arena_free(a);
    if (rc != DDB_ENOTSUP || !strstr(err.message, "no TransactWriteItems")) {
        fprintf(stderr, "shards v2: expected DDB_ENOTSUP (no TransactWriteItems), got %s \"%s\"\n",
                ddb_strerror(rc), err.message);
        return 1;
    }
    return 0;
}
#endif

/* Every stored item in this version's form: the products' shard items,
 * the events, and no key of the other version. */
static int verify_scan(ddb *db, long n, long products)
{
    ddb_arena *a = ddb_arena_new(), *pa = ddb_arena_new();
    ddb_scan_params sp = {.table = "AppShards", .consistent = true};
    ddb_error err = {0};
    long shard_items = 0, events = 0, bad = 0;
#if SHARDS_V == 1
    const char *pprefix = "PRODUCT#", *sks[] = {"DETAILS#A", "DETAILS#B"}, *eprefix = "DAY#";
#else
    const char *pprefix = "P#", *sks[] = {"INFO#A", "INFO#B"}, *eprefix = "D#";
#endif
    for (;;) {
        ddb_page pg;
        ddb_arena_reset(pa);
        int rc = ddb_scan(db, &sp, pa, &pg, &err);
        if (rc)
            return fail("scan", rc, &err);
        for (size_t i = 0; i < pg.count; i++) {
            const ddb_value *t = ddb_item_get(pg.items[i], "Type"), *pk = ddb_item_get(pg.items[i], "PK"),
                            *sk = ddb_item_get(pg.items[i], "SK");
            if (!t || !pk || !sk) {
                bad++;
                continue;
            }
            if (!strcmp(t->u.s, "Product")) {
                shard_items++;
                bool ok = !strncmp(pk->u.s, pprefix, strlen(pprefix)) && (!strcmp(sk->u.s, sks[0]) || !strcmp(sk->u.s, sks[1]));
#if SHARDS_V == 2
                /* views moved to shard A, the index key stays with category on B */
                ok &= (ddb_item_get(pg.items[i], "views") != NULL) == !strcmp(sk->u.s, sks[0]);
                ok &= (ddb_item_get(pg.items[i], "CatPK") != NULL) == !strcmp(sk->u.s, sks[1]);
#endif
                if (!ok && bad++ < 5)
                    fprintf(stderr, "verify: product item %s/%s is not in version %d's form\n", pk->u.s, sk->u.s,
                            SHARDS_V);
            } else if (!strcmp(t->u.s, "Event")) {
                events++;
                const ddb_value *amount = ddb_item_get(pg.items[i], "amount");
                bool ok = !strncmp(pk->u.s, eprefix, strlen(eprefix)) && amount &&
                          amount->type == (SHARDS_V == 1 ? DDB_TN : DDB_TS);
                if (!ok && bad++ < 5)
                    fprintf(stderr, "verify: event item %s/%s is not in version %d's form\n", pk->u.s, sk->u.s,
                            SHARDS_V);
            }
        }
        if (!pg.last_key)
            break;
        sp.start_key = ddb_item_copy(a, pg.last_key);
    }
    ddb_arena_free(pa);
    ddb_arena_free(a);
    if (shard_items != 2 * products || events != n || bad) {
        fprintf(stderr, "verify: %ld product shard items (want %ld), %ld events (want %ld), %ld wrong\n",
                shard_items, 2 * products, events, n, bad);
        return 1;
    }
    return 0;
}

/* The typed reads: every product by key, a category through the index on
 * a shard, a day's events (scatter-gather over the write shards) and a
 * kind's (the random shards). */
static int verify_reads(ddb *db, long n, long products)
{
    ddb_error err = {0};
    ddb_arena *a = ddb_arena_new();
    int rc;
    for (long i = 0; i < products; i++) {
        struct product p, want;
        fill_product(&want, i);
        if ((rc = product_get(db, want.sku, NULL, a, &p, &err)))
            return fail("product_get", rc, &err);
        if (strcmp(p.title, want.title) || strcmp(p.category, want.category) || p.views != want.views) {
            fprintf(stderr, "verify: product %s read back wrong\n", want.sku);
            return 1;
        }
        ddb_arena_reset(a);
    }
    long in_cat = 0, in_day = 0, of_kind = 0;
    ddb_ent_read_opts q = {.consistent = false};
    for (;;) {
        product_page pg;
        if ((rc = product_ByCat(db, cats[1], product_ByCat_all(), &q, a, &pg, &err)))
            return fail("product_ByCat", rc, &err);
        in_cat += (long)pg.count;
        if (!(q.cursor = pg.cursor))
            break;
    }
    q = (ddb_ent_read_opts){.consistent = true};
    for (;;) {
        event_page pg;
        if ((rc = event_table(db, days[2], event_table_all(), &q, a, &pg, &err)))
            return fail("event_table", rc, &err);
        for (size_t i = 0; i < pg.count; i++) {
            struct event want;
            fill_event(&want, (long)pg.items[i].id);
#if SHARDS_V == 1
            if (pg.items[i].amount != want.amount) {
#else
            if (strcmp(pg.items[i].amount, want.amount)) {
#endif
                fprintf(stderr, "verify: event %lld read back wrong\n", (long long)want.id);
                return 1;
            }
        }
        in_day += (long)pg.count;
        if (!(q.cursor = pg.cursor))
            break;
    }
    q = (ddb_ent_read_opts){0};
    for (;;) {
        event_page pg;
        if ((rc = event_ByKind(db, kinds[1], event_ByKind_all(), &q, a, &pg, &err)))
            return fail("event_ByKind", rc, &err);
        of_kind += (long)pg.count;
        if (!(q.cursor = pg.cursor))
            break;
    }
    long want_cat = 0, want_day = 0, want_kind = 0;
    for (long i = 0; i < n; i++) {
        want_cat += i % 4 == 1 && i < products;
        want_day += i % 3 == 2;
        want_kind += i % 2 == 1;
    }
    ddb_arena_free(a);
    if (in_cat != want_cat || in_day != want_day || of_kind != want_kind) {
        fprintf(stderr, "verify: %ld in the category (want %ld), %ld of the day (want %ld), %ld of the kind (want %ld)\n",
                in_cat, want_cat, in_day, want_day, of_kind, want_kind);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 4)
        return 2;
    const char *cmd = argv[1], *arg = argc > 4 ? argv[4] : "";
    long n = atol(argv[3]);
    char uri[600];
    snprintf(uri, sizeof uri, strncmp(argv[2], "http", 4) ? "file:%s" : "%s", argv[2]);
    ddb *db;
    ddb_error err = {0};
    ddb_options opts = {.sync = DDB_SYNC_NONE};
    int rc = ddb_open(uri, &opts, &db, &err), st = 0;
    bool events_only = !strcmp(arg, "events");
    if (rc)
        return fail("ddb_open", rc, &err);
    if (!strcmp(cmd, "populate") && SHARDS_V == 1) {
        if ((rc = inv_open(db, &err)))
            return fail("inv_open", rc, &err);
        for (long i = 0; i < n && !rc; i++) {
            struct product p;
            struct event e;
            fill_product(&p, i);
            fill_event(&e, i);
            if (!(rc = events_only ? DDB_OK : product_put(db, &p, NULL, NULL, &err)))
                rc = event_put(db, &e, NULL, NULL, &err);
        }
        if (rc)
            return fail("put", rc, &err);
    } else if (!strcmp(cmd, "refuse")) {
        rc = inv_open(db, &err);
        if (rc != DDB_EMODEL || !strstr(err.message, arg)) {
            fprintf(stderr, "shards v%d: expected DDB_EMODEL with \"%s\", got %s \"%s\"\n", SHARDS_V, arg,
                    ddb_strerror(rc), err.message);
            st = 1;
        }
#if SHARDS_V == 2
    } else if (!strcmp(cmd, "migrate")) {
        st = migrate(db, atol(arg), false);
    } else if (!strcmp(cmd, "migrate-events")) {
        st = migrate(db, 0, true);
    } else if (!strcmp(cmd, "no-tx")) {
        st = no_tx(db);
#endif
    } else if (!strcmp(cmd, "verify")) {
        if ((rc = inv_open(db, &err)))
            return fail("inv_open", rc, &err);
        st = verify_scan(db, n, events_only ? 0 : n) || verify_reads(db, n, events_only ? 0 : n);
    } else {
        st = 2;
    }
    ddb_close(db);
    if (!st)
        printf("shards v%d %s: ok\n", SHARDS_V, cmd);
    return st;
}
