/* One version's side of the default-backfill migration test
 * (run_default.sh drives it); compiled against default_v1.h's module
 * (DEFAULT_V 1) and default_v2.h's (DEFAULT_V 2).  Usage: default_vN
 * COMMAND URI FROM TO:
 *   populate (v1) devices FROM..TO-1
 *   refused  (v2) site_open refuses: the devices lack the ByZone key
 *   backfill (v2) site_open_with(.backfill = true) succeeds (issue 25,
 *            defect 5: it failed "required attribute ... is missing")
 *   verify   (v2) devices FROM..TO-1 read with priority 5 and zone "eu",
 *            and the ByZone query of "eu" finds TO devices in all
 * Exit 0 when the step behaved as expected. */
#if DEFAULT_V == 1
#include "default_v1_ddb.h"
#else
#include "default_v2_ddb.h"
#endif
#include "test_open.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *what, int rc, const ddb_error *err)
{
    fprintf(stderr, "default v%d: %s: %s (%s)\n", DEFAULT_V, what, ddb_strerror(rc), err->message);
    return 1;
}

#if DEFAULT_V == 1
static int populate(ddb *db, long from, long to)
{
    ddb_error err = {0};
    int rc = site_open(db, &err);
    for (long i = from; i < to && !rc; i++) {
        struct device d;
        memset(&d, 0, sizeof d);
        snprintf(d.id, sizeof d.id, "d%d", (int)(i % 1000000));
        snprintf(d.name, sizeof d.name, "device %d", (int)(i % 1000000));
        rc = device_create(db, &d, NULL, NULL, &err);
    }
    return rc ? fail("populate", rc, &err) : 0;
}
#else
static int verify(ddb *db, long from, long to)
{
    ddb_error err = {0};
    ddb_arena *a = ddb_arena_new();
    int rc = site_open(db, &err), st = 0;
    if (rc)
        return fail("site_open", rc, &err);
    for (long i = from; i < to && !st; i++) {
        char id[16];
        snprintf(id, sizeof id, "d%d", (int)(i % 1000000));
        struct device d;
        if ((rc = device_get(db, id, NULL, a, &d, &err)))
            st = fail("device_get", rc, &err);
        else if (d.priority != 5 || !d.zone || strcmp(d.zone, "eu"))
            st = fprintf(stderr, "default v2: device %s has priority %lld zone \"%s\"\n", id, (long long)d.priority,
                         d.zone ? d.zone : "(none)") > 0;
        ddb_arena_reset(a);
    }
    /* every stored device is in the index under its default zone */
    ddb_item *names = ddb_item_new(a), *vals = ddb_item_new(a);
    ddb_item_set_s(names, "#p", "ZonePK");
    ddb_item_set_s(vals, ":p", "ZONE#eu");
    ddb_expr *kc = NULL;
    rc = ddb_expr_prepare(DDB_EXPR_KEY_CONDITION, "#p = :p", names, &kc, &err);
    uint64_t found = 0;
    ddb_query_params qp = {.table = "Site", .index = "ByZone", .key_condition = kc, .values = vals};
    while (!rc && !st) {
        ddb_page pg = {0};
        if ((rc = ddb_query(db, &qp, a, &pg, &err)))
            break;
        found += pg.count;
        if (!pg.last_key)
            break;
        qp.start_key = pg.last_key;
    }
    ddb_expr_free(kc);
    if (rc)
        st = fail("query ByZone", rc, &err);
    else if (!st && found != (uint64_t)to)
        st = fprintf(stderr, "default v2: ByZone holds %llu devices of zone eu, want %ld\n", (unsigned long long)found,
                     to) > 0;
    ddb_arena_free(a);
    if (!st)
        printf("default v2: verified %ld..%ld, %llu in ByZone\n", from, to, (unsigned long long)found);
    return st;
}
#endif

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: default_v%d populate|refused|backfill|verify URI FROM TO\n", DEFAULT_V);
        return 2;
    }
    const char *cmd = argv[1];
    long from = atol(argv[3]), to = atol(argv[4]);
    ddb *db = NULL;
    ddb_error err = {0};
    int rc = migrate_test_open(argv[2], &db, &err), st = 1;
    if (rc)
        return fail("ddb_open", rc, &err);
#if DEFAULT_V == 1
    if (!strcmp(cmd, "populate"))
        st = populate(db, from, to);
#else
    if (!strcmp(cmd, "refused")) {
        rc = site_open(db, &err);
        st = rc == DDB_EMODEL && strstr(err.message, "ByZone") ? 0 : fail("site_open (must be refused)", rc, &err);
    } else if (!strcmp(cmd, "backfill")) {
        rc = site_open_with(db, &(ddb_ent_open_opts){.backfill = true}, &err);
        st = rc ? fail("site_open_with(.backfill = true)", rc, &err) : 0;
    } else if (!strcmp(cmd, "verify")) {
        st = verify(db, from, to);
    }
#endif
    else
        fprintf(stderr, "default v%d: unknown command %s\n", DEFAULT_V, cmd);
    ddb_close(db);
    return st;
}
