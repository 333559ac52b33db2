/* One step of the schema-evolution test; compiled once per schema version
 * (EVOLVE_STEP 1, 2 or 3) against that version's generated module.
 * Usage: evolve DIR.  Exit status 0 when the step behaved as expected. */
#if EVOLVE_STEP == 1
#include "v1_ddb.h"
#elif EVOLVE_STEP == 2
#include "v2_ddb.h"
#else
#include "v2bad_ddb.h"
#endif

#include <stdio.h>
#include <string.h>

#if EVOLVE_STEP == 2
typedef struct progress_seen {
    int calls;
    ddb_ent_progress last;
    char step[64];
} progress_seen;

static void on_progress(void *ctx, const ddb_ent_progress *p)
{
    progress_seen *ps = ctx;
    ps->calls++;
    ps->last = *p;
    snprintf(ps->step, sizeof ps->step, "%s", p->step);
}
#endif

static int fail(const char *what, int rc, const ddb_error *err)
{
    fprintf(stderr, "evolve step %d: %s: %s (%s)\n", EVOLVE_STEP, what, ddb_strerror(rc), err->message);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    char uri[600];
    snprintf(uri, sizeof uri, "file:%s", argv[1]);
    ddb *db;
    ddb_error err = {0};
    int rc = ddb_open(uri, NULL, &db, &err);
    if (rc)
        return fail("open", rc, &err);
    rc = app_open(db, &err);
#if EVOLVE_STEP == 1
    if (rc)
        return fail("app_open", rc, &err);
    struct member m[3] = {{"red", "ann", "ann@x.org"}, {"red", "bob", NULL}, {"blue", "cy", "cy@x.org"}};
    for (int i = 0; i < 3; i++)
        if ((rc = member_put(db, &m[i], NULL, NULL, &err)))
            return fail("put", rc, &err);
#elif EVOLVE_STEP == 2
    /* open never rewrites stored items: the backfill of ByEmail is reported, nothing is changed */
    const char *want2 = "table AppEvolve needs 1 backfill before this schema can use it: Member joins index ByEmail "
                        "(its stored items lack EmailPK); nothing was changed";
    if (rc != DDB_EMODEL || strncmp(err.message, want2, strlen(want2)) != 0) {
        fprintf(stderr, "evolve step 2: expected DDB_EMODEL \"%s...\", got %s \"%s\"\n", want2, ddb_strerror(rc),
                err.message);
        return 1;
    }
    if ((rc = app_open(db, &err)) != DDB_EMODEL)
        return fail("app_open again (still refused: nothing was changed)", rc, &err);
    progress_seen ps = {0};
    rc = app_open_with(db, &(ddb_ent_open_opts){.backfill = true, .progress = on_progress, .progress_ctx = &ps},
                       &err);
    if (rc)
        return fail("app_open_with backfill (compatible schema)", rc, &err);
    if (ps.calls == 0 || ps.last.done != 2 || /* bob has no email: sparse */  ps.last.capacity <= 0 || strcmp(ps.step, "backfill ByEmail") != 0) {
        fprintf(stderr, "evolve step 2: progress: %d calls, last %llu done, %.1f WCU, step %s\n", ps.calls,
                (unsigned long long)ps.last.done, ps.last.capacity, ps.step);
        return 1;
    }
    ddb_arena *a = ddb_arena_new();
    member_page pg;
    if ((rc = member_ByEmail(db, "cy@x.org", member_ByEmail_all(), NULL, a, &pg, &err)))
        return fail("query ByEmail", rc, &err);
    if (pg.count != 1 || strcmp(pg.items[0].name, "cy") != 0) {
        fprintf(stderr, "evolve step 2: the new index was not backfilled (%zu items)\n", pg.count);
        return 1;
    }
    struct team t = {"red", 2};
    if ((rc = team_create(db, &t, NULL, NULL, &err)))
        return fail("team_create", rc, &err);
    /* opening again is a no-op */
    if ((rc = app_open(db, &err)))
        return fail("app_open again", rc, &err);
    ddb_arena_free(a);
#else
    const char *want = "table AppEvolve holds Member items written with \"table: PK=TEAM#{team} SK=MEMBER#{name}\"; "
                       "the schema now says \"table: PK=TEAM#{team} SK=M#{name}\" (regenerate against the old schema, "
                       "or migrate the items: ddbgen --plan-migration, then ddb migrate)";
    if (rc != DDB_EMODEL || strcmp(err.message, want) != 0) {
        fprintf(stderr, "evolve step 3: expected DDB_EMODEL \"%s\", got %s \"%s\"\n", want, ddb_strerror(rc),
                err.message);
        return 1;
    }
#endif
    ddb_close(db);
    printf("evolve step %d: ok\n", EVOLVE_STEP);
    return 0;
}
