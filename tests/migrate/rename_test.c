/* One version's side of the rename/remove migration test (run_rename.sh
 * drives it); compiled against rename_v1.h's module (RENAME_V 1) and
 * rename_v2.h's (RENAME_V 2, with the old forms of version 1 and the
 * plan's steps).  Usage: rename_vN COMMAND URI N:
 *   populate (v1) N alerts (severity "sev<i>"), N/2 probes, 3 tags
 *   migrate-generated (v2) fleet_migrate_from_old (the steps generated
 *            from the plan: the rename and the delete); run after ddb
 *            migrate, it changes nothing
 *   verify   (v2) every alert is a Notice under its new key with its
 *            severity as level, no Alert or Probe item is left, the tags
 *            are kept; a new notice is written and read
 * Exit 0 when the step behaved as expected. */
#if RENAME_V == 1
#include "rename_v1_ddb.h"
#else
#include "rename_v2_old.h"
#endif

#include "test_open.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *what, int rc, const ddb_error *err)
{
    fprintf(stderr, "rename v%d: %s: %s (%s)\n", RENAME_V, what, ddb_strerror(rc), err->message);
    return 1;
}

#if RENAME_V == 1
static int populate(ddb *db, long n)
{
    ddb_error err = {0};
    int rc = fleet_open(db, &err);
    for (long i = 0; i < n && !rc; i++) {
        struct alert a = {.raised = i};
        snprintf(a.id, sizeof a.id, "a%d", (int)(i % 1000000));
        snprintf(a.severity, sizeof a.severity, "sev%d", (int)(i % 1000000));
        rc = alert_create(db, &a, NULL, NULL, &err);
        struct probe p = {.rtt = i};
        snprintf(p.id, sizeof p.id, "p%d", (int)(i % 1000000));
        if (!rc && i % 2 == 0)
            rc = probe_create(db, &p, NULL, NULL, &err);
    }
    for (int i = 0; i < 3 && !rc; i++) {
        struct tag t;
        snprintf(t.id, sizeof t.id, "t%d", i);
        rc = tag_create(db, &t, NULL, NULL, &err);
    }
    return rc ? fail("populate", rc, &err) : 0;
}
#else
/* Does the table hold an item at pk/sk? */
static bool stored(ddb *db, const char *pk, const char *sk, ddb_arena *a)
{
    ddb_item *key = ddb_item_new(a), *it = NULL;
    ddb_item_set_s(key, "PK", pk);
    ddb_item_set_s(key, "SK", sk);
    ddb_error err = {0};
    return !ddb_get_item(db, "Fleet", key, &(ddb_get_opts){.consistent = true}, a, &it, NULL, &err) && it;
}

static int verify(ddb *db, long n)
{
    ddb_error err = {0};
    ddb_arena *a = ddb_arena_new();
    int rc = fleet_open(db, &err), st = 0;
    if (rc)
        return fail("fleet_open", rc, &err);
    for (long i = 0; i < n && !st; i++) {
        char id[16], pk[32], want[16];
        snprintf(id, sizeof id, "a%d", (int)(i % 1000000));
        snprintf(want, sizeof want, "sev%d", (int)(i % 1000000));
        struct notice x;
        if ((rc = notice_get(db, id, NULL, a, &x, &err)))
            st = fail("notice_get", rc, &err);
        else if (strcmp(x.level, want) || x.raised != i)
            st = fprintf(stderr, "rename v2: notice %s has level \"%s\" raised %lld\n", id, x.level,
                         (long long)x.raised) > 0;
        snprintf(pk, sizeof pk, "ALERT#a%ld", i);
        if (!st && stored(db, pk, "ALERT", a))
            st = fprintf(stderr, "rename v2: %s/ALERT is still stored\n", pk) > 0;
        snprintf(pk, sizeof pk, "PROBE#p%ld", i);
        if (!st && stored(db, pk, "PROBE", a))
            st = fprintf(stderr, "rename v2: %s/PROBE (a removed entity's item) is still stored\n", pk) > 0;
        ddb_arena_reset(a);
    }
    for (int i = 0; i < 3 && !st; i++) {
        char pk[32];
        snprintf(pk, sizeof pk, "TAG#t%d", i);
        if (!stored(db, pk, "TAG", a))
            st = fprintf(stderr, "rename v2: %s/TAG (kept) is gone\n", pk) > 0;
    }
    struct notice fresh = {.id = "new", .level = "low", .raised = 1};
    if (!st && (rc = notice_create(db, &fresh, NULL, NULL, &err)))
        st = fail("notice_create", rc, &err);
    ddb_arena_free(a);
    if (!st)
        printf("rename v2: verified\n");
    return st;
}

static int migrate_generated(ddb *db)
{
    ddb_error err = {0};
    ddb_arena *a = ddb_arena_new();
    ddb_ent_migrate_report r;
    int rc = fleet_migrate_from_old(db, NULL, NULL, a, &r, &err);
    ddb_arena_free(a);
    if (rc)
        return fail("fleet_migrate_from_old", rc, &err);
    if (r.moved || r.rewritten || r.deleted) {
        fprintf(stderr, "rename v2: run again, the generated steps moved %llu, rewrote %llu, deleted %llu\n",
                (unsigned long long)r.moved, (unsigned long long)r.rewritten, (unsigned long long)r.deleted);
        return 1;
    }
    printf("rename v2: the generated steps changed nothing\n");
    return 0;
}
#endif

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: rename_v%d populate|verify|migrate-generated URI N\n", RENAME_V);
        return 2;
    }
    const char *cmd = argv[1];
    long n = atol(argv[3]);
    ddb *db = NULL;
    ddb_error err = {0};
    int rc = migrate_test_open(argv[2], &db, &err), st = 1;
    if (rc)
        return fail("ddb_open", rc, &err);
#if RENAME_V == 1
    if (!strcmp(cmd, "populate"))
        st = populate(db, n);
#else
    if (!strcmp(cmd, "verify"))
        st = verify(db, n);
    else if (!strcmp(cmd, "migrate-generated"))
        st = migrate_generated(db);
#endif
    else
        fprintf(stderr, "rename v%d: unknown command %s\n", RENAME_V, cmd);
    ddb_close(db);
    return st;
}
