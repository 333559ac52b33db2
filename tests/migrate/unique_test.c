/* One version's side of the unique-claim migration test (run_unique.sh
 * drives it); compiled against unique_v1.h's module (UNIQUE_V 1) and
 * unique_v2.h's (UNIQUE_V 2).  Usage: unique_vN COMMAND URI N:
 *   populate (v1) N guests, nick "nick<i>", except guest 7 whose nick is
 *            guest 3's ("nick3": a duplicate) and guest 5 without a nick
 *   fix-holder (v2) the guest whose claim of "nick3" a stopped run made
 *            gets the nick "nick3b" (the duplicate fixed on the item the
 *            run had already passed: its new value must be claimed too)
 *   migrate-generated (v2) club_migrate_from_old (the step generated from
 *            the plan, with its claim): N - 1 nicks claimed, nothing moved
 *   refused  (v2) club_open refuses the table whose stored nicks were never
 *            claimed: DDB_EMODEL naming the field and the claim step
 *   verify-claims (v2) every stored nick is claimed by its guest
 *   verify   (v2) every stored nick (as stored, read with the plain item
 *            API) is claimed by its guest; a new guest
 *            or an update taking a claimed nick is DDB_ECONDITION, a free
 *            nick is taken, and the update frees the old nick
 * Exit 0 when the step behaved as expected. */
#if UNIQUE_V == 1
#include "unique_v1_ddb.h"
#else
#include "unique_v2_old.h"
#endif

#include "test_open.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *what, int rc, const ddb_error *err)
{
    fprintf(stderr, "unique v%d: %s: %s (%s)\n", UNIQUE_V, what, ddb_strerror(rc), err->message);
    return 1;
}

static void fill(struct guest *g, long i)
{
    memset(g, 0, sizeof *g);
    snprintf(g->id, sizeof g->id, "g%d", (int)(i % 100000));
    if (i == 7)
        snprintf(g->nick, sizeof g->nick, "nick3");
    else if (i != 5)
        snprintf(g->nick, sizeof g->nick, "nick%d", (int)(i % 100000));
    g->visits = i;
}

#if UNIQUE_V == 2
/* Guest pk's nick becomes nick, with the plain item API. */
static int set_nick(ddb *db, const char *pk, const char *nick)
{
    ddb_arena *a = ddb_arena_new();
    ddb_item *key = ddb_item_new(a), *names = ddb_item_new(a), *vals = ddb_item_new(a);
    ddb_error err = {0};
    ddb_item_set_s(key, "PK", pk);
    ddb_item_set_s(key, "SK", "GUEST");
    ddb_item_set_s(names, "#n", "nick");
    ddb_item_set_s(vals, ":n", nick);
    ddb_expr *up = NULL;
    int rc = ddb_expr_prepare(DDB_EXPR_UPDATE, "SET #n = :n", names, &up, &err);
    if (!rc)
        rc = ddb_update_item(db, "Club", key, up, &(ddb_write_opts){.values = vals}, a, NULL, &err);
    ddb_expr_free(up);
    ddb_arena_free(a);
    return rc ? fail("fix", rc, &err) : 0;
}

/* The uniqueness item of nick: its owner, "" when there is none. */
static const char *owner_of(ddb *db, const char *nick, ddb_arena *a)
{
    char pk[80];
    snprintf(pk, sizeof pk, "UNIQUE#Guest#nick#%s", nick);
    ddb_item *key = ddb_item_new(a), *it = NULL;
    ddb_item_set_s(key, "PK", pk);
    ddb_item_set_s(key, "SK", "UNIQUE");
    ddb_error err = {0};
    if (ddb_get_item(db, "Club", key, &(ddb_get_opts){.consistent = true}, a, &it, NULL, &err) || !it)
        return "";
    const ddb_value *o = ddb_item_get(it, "owner");
    return o && o->type == DDB_TS ? o->u.s : "";
}

/* Guest pk's stored nick ("" when it has none). */
static const char *stored_nick(ddb *db, const char *pk, ddb_arena *a)
{
    ddb_item *key = ddb_item_new(a), *it = NULL;
    ddb_item_set_s(key, "PK", pk);
    ddb_item_set_s(key, "SK", "GUEST");
    ddb_error err = {0};
    if (ddb_get_item(db, "Club", key, &(ddb_get_opts){.consistent = true}, a, &it, NULL, &err) || !it)
        return "";
    const ddb_value *v = ddb_item_get(it, "nick");
    return v && v->type == DDB_TS ? v->u.s : "";
}

/* The guest holding the claim of "nick3" (one of the duplicates) gets "nick3b". */
static int fix_holder(ddb *db)
{
    ddb_arena *a = ddb_arena_new();
    const char *owner = owner_of(db, "nick3", a), *bar = strchr(owner, '|');
    int st = 1;
    if (!bar)
        fprintf(stderr, "unique v2: no claim of nick3 was made\n");
    else {
        char pk[64];
        snprintf(pk, sizeof pk, "%.*s", (int)(bar - owner), owner);
        printf("unique v2: %s held nick3's claim: its nick becomes nick3b\n", pk);
        st = set_nick(db, pk, "nick3b");
    }
    ddb_arena_free(a);
    return st;
}

/* Before the claim step: version 2's open refuses the table (issue 25,
 * defect 3: it opened it and wrote a duplicate). */
static int refused(ddb *db)
{
    ddb_error err = {0};
    int rc = club_open(db, &err);
    if (rc != DDB_EMODEL || !strstr(err.message, "nick") || !strstr(err.message, "DDB_UNIQUE") ||
        !strstr(err.message, "ddb migrate")) {
        fprintf(stderr, "unique v2: club_open before the claims: %s \"%s\"\n", ddb_strerror(rc), err.message);
        return 1;
    }
    printf("unique v2: refused: %s\n", err.message);
    return 0;
}

/* Every stored nick is claimed by its own guest. */
static int claims_ok(ddb *db, long n)
{
    ddb_arena *a = ddb_arena_new();
    for (long i = 0; i < n; i++) {
        char pk[40], want[64];
        snprintf(pk, sizeof pk, "GUEST#g%ld", i);
        snprintf(want, sizeof want, "%s|GUEST", pk);
        const char *nick = stored_nick(db, pk, a);
        if (*nick && strcmp(owner_of(db, nick, a), want)) {
            fprintf(stderr, "unique v2: \"%s\" (guest g%ld's nick) is not claimed by it (owner \"%s\")\n", nick, i,
                    owner_of(db, nick, a));
            ddb_arena_free(a);
            return 1;
        }
        ddb_arena_reset(a);
    }
    ddb_arena_free(a);
    printf("unique v2: every stored nick is claimed by its guest\n");
    return 0;
}

static int verify(ddb *db, long n)
{
    ddb_error err = {0};
    ddb_arena *a = ddb_arena_new();
    int rc = club_open(db, &err);
    if (rc)
        return fail("club_open", rc, &err);
    if (claims_ok(db, n))
        return 1;
    struct guest g = {.id = "new1", .nick = "nick3"};
    /* a new guest taking a claimed nick: refused, naming the field and the value */
    rc = guest_create(db, &g, NULL, NULL, &err);
    if (rc != DDB_ECONDITION || !strstr(err.message, "nick") || !strstr(err.message, "nick3")) {
        fprintf(stderr, "unique v2: create with a claimed nick: %s \"%s\"\n", ddb_strerror(rc), err.message);
        return 1;
    }
    /* the guest without a nick takes a claimed one: refused; a free one: taken */
    struct guest five;
    fill(&five, 5);
    snprintf(five.nick, sizeof five.nick, "nick2");
    rc = guest_put(db, &five, NULL, NULL, &err);
    if (rc != DDB_ECONDITION) {
        fprintf(stderr, "unique v2: put with a claimed nick: %s \"%s\"\n", ddb_strerror(rc), err.message);
        return 1;
    }
    snprintf(g.nick, sizeof g.nick, "fresh");
    if ((rc = guest_create(db, &g, NULL, NULL, &err)))
        return fail("create with a free nick", rc, &err);
    /* guest 1 changes its nick: the old one is free again */
    struct guest one;
    fill(&one, 1);
    snprintf(one.nick, sizeof one.nick, "renamed");
    if ((rc = guest_put(db, &one, NULL, NULL, &err)))
        return fail("put with a new nick", rc, &err);
    if (*owner_of(db, "nick1", a) || strcmp(owner_of(db, "renamed", a), "GUEST#g1|GUEST")) {
        fprintf(stderr, "unique v2: guest 1's nick change did not move its claim\n");
        return 1;
    }
    ddb_arena_free(a);
    printf("unique v2: verified\n");
    return 0;
}

static int migrate_generated(ddb *db, long n)
{
    ddb_error err = {0};
    ddb_arena *a = ddb_arena_new();
    ddb_ent_migrate_report r;
    int rc = club_migrate_from_old(db, NULL, NULL, a, &r, &err);
    ddb_arena_free(a);
    if (rc)
        return fail("club_migrate_from_old", rc, &err);
    if (r.claimed != (uint64_t)(n - 1) || r.moved || r.rewritten) {
        fprintf(stderr, "unique v2: the generated step claimed %llu (want %ld), moved %llu, rewrote %llu\n",
                (unsigned long long)r.claimed, n - 1, (unsigned long long)r.moved, (unsigned long long)r.rewritten);
        return 1;
    }
    printf("unique v2: the generated step claimed %llu\n", (unsigned long long)r.claimed);
    return 0;
}
#endif

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: unique_v%d populate|fix-holder|refused|verify-claims|verify|migrate-generated URI N\n", UNIQUE_V);
        return 2;
    }
    const char *cmd = argv[1];
    long n = atol(argv[3]);
    ddb *db = NULL;
    ddb_error err = {0};
    int rc = migrate_test_open(argv[2], &db, &err), st = 1;
    if (rc)
        return fail("ddb_open", rc, &err);
#if UNIQUE_V == 1
    if (!strcmp(cmd, "populate")) {
        if ((rc = club_open(db, &err)))
            return fail("club_open", rc, &err);
        st = 0;
        for (long i = 0; i < n && !st; i++) {
            struct guest g;
            fill(&g, i);
            if ((rc = guest_create(db, &g, NULL, NULL, &err)))
                st = fail("guest_create", rc, &err);
        }
#else
    if (!strcmp(cmd, "fix-holder")) {
        st = fix_holder(db);
    } else if (!strcmp(cmd, "refused")) {
        st = refused(db);
    } else if (!strcmp(cmd, "verify-claims")) {
        st = claims_ok(db, n);
    } else if (!strcmp(cmd, "verify")) {
        st = verify(db, n);
    } else if (!strcmp(cmd, "migrate-generated")) {
        st = migrate_generated(db, n);
#endif
    } else {
        fprintf(stderr, "unique v%d: unknown command %s\n", UNIQUE_V, cmd);
    }
    ddb_close(db);
    return st;
}
