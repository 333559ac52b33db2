/* saas_main.c — a user's program on the module ddbgen generates from
 * schemas/saas.h (a multi-tenant SaaS), run on the embedded engine and
 * through the remote backend (ddb serve): every generated write form
 * (create, put, update, update-fields, declared updates, conditional
 * variants, transactions, batches), every read form (get, access patterns
 * with sort-key levels, declared queries and scans, KEYS_ONLY / INCLUDE
 * projections, a paged collection, scans) and the decorators' promises
 * (defaults, timestamps, unique fields, UUIDs, auto ids, versions, TTL,
 * derived fields, sparse indexes).
 *
 * usage: saas_main [URI]    (file:DIR or http://HOST:PORT; default $DDB_TEST_URI);
 * exit 0 = every check held.  The invites' expiry times are far from any
 * clock (2025-11-25, before the test clock and the real one, within five
 * years: DynamoDB's TTL ignores older times; 2100): on the remote backend
 * the server's clock decides TTL. */
#include "saas_ddb.h"

#include "../trial_check.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int64_t now_ms = 1764165845123; /* 2025-11-26T14:04:05.123Z */
/* Timestamps follow ddb_options.clock_ms on both backends. */
static const bool exact_clock = true;
static int64_t test_clock(void *ctx)
{
    (void)ctx;
    return now_ms;
}

static void orgs(ddb *db, ddb_arena *a)
{
    ddb_error err = {0};
    struct org o = {.org_id = "acme", .name = "Acme"};
    OK(org_create(db, &o, NULL, NULL, &err));
    /* DDB_DEFAULT, DDB_CREATED_AT (epoch ms), DDB_UPDATED_AT (ISO-8601), DDB_VERSION */
    CHECK(strcmp(o.plan, "free") == 0, "plan default: %s", o.plan);
    CHECK(exact_clock ? o.created_ms == now_ms : o.created_ms > 0, "created_ms %" PRId64, o.created_ms);
    CHECK(!exact_clock || strcmp(o.updated, "2025-11-26T14:04:05.123Z") == 0, "updated %s", o.updated);
    CHECK(strlen(o.updated) == 24 && o.updated[23] == 'Z', "ISO-8601 with ms: %s", o.updated);
    CHECK(o.version == 1, "version %u", (unsigned)o.version);
    struct org again = {.org_id = "acme", .name = "Other"};
    RC(DDB_ECONDITION, org_create(db, &again, NULL, NULL, &err));

    now_ms += 1000;
    struct org after;
    OK(org_rename(db, "acme", "Acme Inc", NULL, a, &after, NULL, &err));
    CHECK(strcmp(after.name, "Acme Inc") == 0 && after.version == 2, "rename: %s v%u", after.name,
          (unsigned)after.version);
    CHECK(after.created_ms == o.created_ms, "rename kept created_ms");
    CHECK(exact_clock ? strcmp(after.updated, "2025-11-26T14:04:06.123Z") == 0 : strcmp(after.updated, o.updated) >= 0,
          "rename stamped updated: %s", after.updated);
    OK(org_add_seats(db, "acme", 5, NULL, a, &after, NULL, &err));
    OK(org_add_seats(db, "acme", -2, NULL, a, &after, NULL, &err));
    CHECK(after.seats == 3 && after.version == 4, "seats %d v%u", after.seats, (unsigned)after.version);
    RC(DDB_ENOTFOUND, org_rename(db, "nobody", "x", NULL, a, NULL, NULL, &err));

    /* a stale version: the stored item comes back */
    struct org stale = o; /* version 1 */
    struct org cur;
    bool found = false;
    ddb_ent_opts co = {.current = &cur, .current_found = &found, .current_arena = a};
    RC(DDB_ECONDITION, org_put(db, &stale, &co, NULL, &err));
    CHECK(strstr(err.message, "stored version is not 1") != NULL, "message: %s", err.message);
    CHECK(found && cur.version == 4 && strcmp(cur.name, "Acme Inc") == 0, "current v%u", (unsigned)cur.version);

    /* declared condition */
    found = false;
    memset(&cur, 0, sizeof cur);
    after.plan[0] = 0;
    strcpy(after.plan, "pro");
    RC(DDB_ECONDITION, org_put_if_on_plan(db, &after, "enterprise", &co, NULL, &err));
    CHECK(found && strcmp(cur.plan, "free") == 0, "current plan %s", cur.plan);
    OK(org_put_if_on_plan(db, &after, "free", NULL, NULL, &err));
    CHECK(after.version == 5, "put_if bumps the version: %u", (unsigned)after.version);
    CHECK(after.created_ms == o.created_ms, "put keeps created_ms: %" PRId64, after.created_ms);
    struct org got;
    OK(org_get(db, "acme", NULL, a, &got, &err));
    CHECK(strcmp(got.plan, "pro") == 0 && got.created_ms == o.created_ms && got.version == 5,
          "got plan %s created %" PRId64 " v%u", got.plan, got.created_ms, (unsigned)got.version);

    /* update-fields with a mask, conditional */
    got.seats = 50;
    RC(DDB_ECONDITION, org_update_fields_if_on_plan(db, &got, org_mask(ORG_F_SEATS), "free", NULL, NULL, &err));
    OK(org_update_fields_if_on_plan(db, &got, org_mask(ORG_F_SEATS), "pro", NULL, NULL, &err));
    OK(org_get(db, "acme", NULL, a, &got, &err));
    CHECK(got.seats == 50 && got.version == 6, "seats %d v%u", got.seats, (unsigned)got.version);

    /* upsert: creates with defaults and stamps, then updates without touching created_ms;
     * patch: only an existing item */
    now_ms += 1000;
    struct org ini = {.org_id = "initech", .name = "Initech"};
    OK(org_upsert(db, &ini, NULL, NULL, &err));
    struct org ig;
    OK(org_get(db, "initech", NULL, a, &ig, &err));
    CHECK(strcmp(ig.plan, "free") == 0 && ig.version == 1 && (!exact_clock || ig.created_ms == now_ms),
          "upsert created: plan %s v%u created %" PRId64, ig.plan, (unsigned)ig.version, ig.created_ms);
    int64_t ini_created = ig.created_ms;
    now_ms += 1000;
    struct org ini2 = {.org_id = "initech", .name = "Initech Ltd", .plan = "pro", .version = 1};
    OK(org_upsert(db, &ini2, NULL, NULL, &err));
    OK(org_get(db, "initech", NULL, a, &ig, &err));
    CHECK(strcmp(ig.plan, "pro") == 0 && strcmp(ig.name, "Initech Ltd") == 0 && ig.version == 2 &&
              ig.created_ms == ini_created,
          "upsert updated: plan %s v%u created %" PRId64, ig.plan, (unsigned)ig.version, ig.created_ms);
    struct org stale_ini = {.org_id = "initech", .name = "x"}; /* version 0: "must not exist yet" */
    RC(DDB_ECONDITION, org_upsert(db, &stale_ini, NULL, NULL, &err));
    ig.seats = 9;
    OK(org_patch(db, &ig, NULL, NULL, &err));
    CHECK(ig.version == 3, "patch moved the version: %u", (unsigned)ig.version);
    struct org nobody = {.org_id = "nobody", .name = "x"};
    RC(DDB_ENOTFOUND, org_patch(db, &nobody, NULL, NULL, &err));
    OK(org_delete(db, "initech", NULL, NULL, &err));

    struct org globex = {.org_id = "globex", .name = "Globex"};
    OK(org_create(db, &globex, NULL, NULL, &err));
    RC(DDB_ECONDITION, org_delete_if_on_plan(db, "globex", "pro", NULL, NULL, &err));
}

static void users(ddb *db, ddb_arena *a)
{
    ddb_error err = {0};
    struct user ann = {.org_id = "acme", .user_id = "u1", .email = "Ann@Example.com", .joined = "2025-01-10"};
    struct user bob = {.org_id = "acme", .user_id = "u2", .email = "bob@example.com", .joined = "2025-03-01",
                       .role = "admin"};
    struct user cy = {.org_id = "acme", .user_id = "u3", .joined = "2025-06-30", .logins = 40};
    struct user ann2 = {.org_id = "globex", .user_id = "u1", .joined = "2025-02-02"};
    OK(user_create(db, &ann, NULL, NULL, &err));
    CHECK(strcmp(ann.role, "member") == 0, "role default %s", ann.role);
    OK(user_create(db, &bob, NULL, NULL, &err));
    CHECK(strcmp(bob.role, "admin") == 0, "a set field keeps its value: %s", bob.role);
    OK(user_create(db, &cy, NULL, NULL, &err));
    OK(user_create(db, &ann2, NULL, NULL, &err));

    /* DDB_UNIQUE: the same email for another user */
    struct user dup = {.org_id = "globex", .user_id = "u9", .email = "bob@example.com", .joined = "2025-01-01"};
    RC(DDB_ECONDITION, user_create(db, &dup, NULL, NULL, &err));
    CHECK(strstr(err.message, "is already taken") != NULL, "unique message: %s", err.message);
    /* bob changes his email: the old one is free again */
    bob.email = "robert@example.com";
    OK(user_update_fields(db, &bob, user_mask(USER_F_EMAIL), NULL, NULL, &err));
    OK(user_create(db, &dup, NULL, NULL, &err));
    /* a delete frees the value */
    OK(user_delete(db, "globex", "u9", NULL, NULL, &err));
    dup.user_id[1] = '8';
    OK(user_create(db, &dup, NULL, NULL, &err));
    OK(user_delete(db, "globex", "u8", NULL, NULL, &err));

    /* DynamoDB's limits are DDB_ELIMIT on both backends (the remote one maps
     * DynamoDB's ValidationException words back to it) */
    static char big[420 * 1024];
    memset(big, 'x', sizeof big - 1);
    struct user huge = {.org_id = "acme", .user_id = "huge", .joined = "2025-01-01", .name = big};
    RC(DDB_ELIMIT, user_create(db, &huge, NULL, NULL, &err));
    CHECK(strstr(err.message, "Item size has exceeded the maximum allowed size") != NULL, "%s", err.message);
    big[2100] = 0;
    huge.name = NULL;
    huge.email = big; /* the ByEmail partition key over 2048 bytes */
    RC(DDB_ELIMIT, user_create(db, &huge, NULL, NULL, &err));
    CHECK(strstr(err.message, "Size of hashkey has exceeded the maximum size limit") != NULL, "%s", err.message);

    /* access patterns */
    user_page p;
    OK(user_orgs_of(db, "u1", user_orgs_of_all(), NULL, a, &p, &err));
    CHECK(p.count == 2 && strcmp(p.items[0].org_id, "acme") == 0 && strcmp(p.items[1].org_id, "globex") == 0,
          "orgs_of u1: %zu", p.count);
    OK(user_orgs_of(db, "u1", user_orgs_of_org_id(DDB_ENT_SK_EQ, "globex"), NULL, a, &p, &err));
    CHECK(p.count == 1 && strcmp(p.items[0].joined, "2025-02-02") == 0, "orgs_of u1 = globex: %zu", p.count);

    /* KEYS_ONLY on an {email|lower} key: the mask says what came back */
    /* access-pattern keys of char * fields take const char * (trial finding T3) */
    const char *email_key = "ann@example.com";
    OK(user_by_email(db, email_key, user_by_email_all(), NULL, a, &p, &err));
    CHECK(p.count == 1, "by_email count %zu", p.count);
    if (p.count == 1) {
        CHECK(strcmp(p.items[0].user_id, "u1") == 0, "by_email user_id '%s'", p.items[0].user_id);
        CHECK(!ddb_ent_mask_has(&p.masks[0], USER_FN_JOINED), "KEYS_ONLY has no 'joined'");
    }
    ddb_ent_read_opts fb = {.fetch_base = true};
    OK(user_by_email(db, email_key, user_by_email_all(), &fb, a, &p, &err));
    CHECK(p.count == 1 && strcmp(p.items[0].joined, "2025-01-10") == 0 && p.items[0].email &&
              strcmp(p.items[0].email, "Ann@Example.com") == 0,
          "fetch_base");
    const char *upper_key = "ANN@EXAMPLE.COM";
    OK(user_by_email(db, upper_key, user_by_email_all(), NULL, a, &p, &err));
    CHECK(p.count == 1, "the {email|lower} template lowers the parameter too: %zu", p.count);

    /* LSI by join date: levels and declared BETWEEN */
    OK(user_by_joined(db, "acme", user_by_joined_joined(DDB_ENT_SK_LT, "2025-06"), NULL, a, &p, &err));
    CHECK(p.count == 2, "joined < 2025-06: %zu", p.count);
    OK(user_by_joined(db, "acme", user_by_joined_joined_between("2025-03-01", "2025-06-30"), NULL, a,
                      &p, &err));
    CHECK(p.count == 2, "joined between (inclusive): %zu", p.count);
    OK(user_joined_between(db, "acme", "2025-01-01", "2025-03-01", NULL, a, &p, &err));
    CHECK(p.count == 2 && strcmp(p.items[0].user_id, "u1") == 0, "joined_between: %zu", p.count);
    ddb_ent_read_opts back = {.backward = true, .page_size = 1};
    OK(user_by_joined(db, "acme", user_by_joined_all(), &back, a, &p, &err));
    CHECK(p.count == 1 && strcmp(p.items[0].user_id, "u3") == 0 && p.cursor, "backward first page");
    back.cursor = p.cursor;
    OK(user_by_joined(db, "acme", user_by_joined_all(), &back, a, &p, &err));
    CHECK(p.count == 1 && strcmp(p.items[0].user_id, "u2") == 0, "backward second page");

    /* declared query with a filter on a reserved word (role) */
    OK(user_with_role(db, "acme", "admin", NULL, a, &p, &err));
    CHECK(p.count == 1 && strcmp(p.items[0].user_id, "u2") == 0, "with_role admin: %zu", p.count);
    ddb_ent_read_opts cnt = {.count_only = true};
    OK(user_with_role(db, "acme", "member", &cnt, a, &p, &err));
    CHECK(p.count == 2, "count member: %zu", p.count);
    OK(user_table(db, "acme", user_table_user_id(DDB_ENT_SK_GE, "u2"), NULL, a, &p, &err));
    CHECK(p.count == 2, "table user_id >= u2: %zu", p.count);

    /* projection */
    ddb_ent_mask only = user_mask(USER_F_ROLE);
    ddb_ent_read_opts proj = {.fields = &only};
    OK(user_table(db, "acme", user_table_all(), &proj, a, &p, &err));
    CHECK(p.count == 3 && ddb_ent_mask_has(&p.masks[0], USER_FN_ROLE) &&
              !ddb_ent_mask_has(&p.masks[0], USER_FN_JOINED),
          "projection");

    /* declared updates */
    /* declared-update parameters of char * fields take const char * (trial finding T3) */
    const char *at = "2025-11-26T14:00:00Z";
    struct user u;
    OK(user_login(db, "acme", "u1", at, 1, NULL, a, &u, NULL, &err));
    OK(user_login(db, "acme", "u1", at, 1, NULL, a, &u, NULL, &err));
    CHECK(u.logins == 2 && u.last_login && strcmp(u.last_login, at) == 0, "logins %d", u.logins);
    const char *why = "left";
    OK(user_disable(db, "acme", "u3", why, NULL, a, &u, NULL, &err));
    RC(DDB_ECONDITION, user_disable(db, "acme", "u3", why, NULL, a, &u, NULL, &err));
    OK(user_idle(db, 100, 0, 0, NULL, a, &p, &err));
    CHECK(p.count == 3, "idle scan (u1, bob, ann2; u3 disabled): %zu", p.count);
    RC(DDB_ECONDITION, user_delete_if_enabled(db, "acme", "u3", NULL, NULL, &err));
    OK(user_enable(db, "acme", "u3", NULL, a, &u, NULL, &err));
    CHECK(u.disabled == NULL, "enable removed disabled");
    char *t1[] = {"beta", "sso"};
    OK(user_tag(db, "acme", "u3", (ddb_string_set){t1, 2}, NULL, a, &u, NULL, &err));
    CHECK(u.tags.count == 2, "tags %zu", u.tags.count);
    OK(user_untag(db, "acme", "u3", (ddb_string_set){t1, 2}, NULL, a, &u, NULL, &err));
    CHECK(u.tags.count == 0, "untag all: %zu", u.tags.count);
    const char *n1 = "Cy", *n2 = "Cyrus";
    OK(user_set_name(db, "acme", "u3", n1, NULL, a, &u, NULL, &err));
    OK(user_set_name(db, "acme", "u3", n2, NULL, a, &u, NULL, &err));
    CHECK(u.name && strcmp(u.name, "Cy") == 0, "if_not_exists keeps the first: %s", u.name ? u.name : "(null)");
    OK(user_delete_if_enabled(db, "acme", "u3", NULL, NULL, &err));
    RC(DDB_ENOTFOUND, user_get(db, "acme", "u3", NULL, a, &u, &err));

    /* a full rewrite of an entity with an LSI key keeps created_ms (trial
     * finding T1: it used to SET the table's partition key and fail) */
    now_ms += 5000;
    OK(user_get(db, "acme", "u1", NULL, a, &u, &err));
    int64_t created = u.created_ms;
    u.logins = 7;
    OK(user_update(db, &u, NULL, NULL, &err));
    OK(user_get(db, "acme", "u1", NULL, a, &u, &err));
    CHECK(u.created_ms == created && u.logins == 7, "update kept created_ms");
    /* put of it (an UpdateItem: created-at kept) sends neither key of the
     * Inverted GSI, both the table's own (trial finding T1b) */
    now_ms += 5000;
    u.logins = 8;
    OK(user_put(db, &u, NULL, NULL, &err));
    OK(user_get(db, "acme", "u1", NULL, a, &u, &err));
    CHECK(u.created_ms == created && u.logins == 8, "put kept created_ms");
    struct user ghost = {.org_id = "acme", .user_id = "nobody", .joined = "2025-01-01"};
    RC(DDB_ENOTFOUND, user_update(db, &ghost, NULL, NULL, &err));
}

static void invites_and_audit(ddb *db, ddb_arena *a)
{
    ddb_error err = {0};
    struct invite inv = {.org_id = "acme", .email = "New@Example.com", .expires_at = 4102444800};
    OK(invite_create(db, &inv, NULL, NULL, &err));
    CHECK(strlen(inv.token) == 36, "UUID: %s", inv.token);
    struct invite old = {.org_id = "acme", .email = "old@example.com", .expires_at = 1764028800};
    OK(invite_create(db, &old, NULL, NULL, &err));
    struct invite g;
    RC(DDB_ENOTFOUND, invite_get(db, "acme", "old@example.com", NULL, a, &g, &err));
    OK(invite_get(db, "acme", "new@example.com", NULL, a, &g, &err));
    CHECK(strcmp(g.token, inv.token) == 0, "invite by lowered email");

    struct invite batch[3] = {{.org_id = "globex", .email = "a@x.io", .token = "t-a"},
                              {.org_id = "globex", .email = "b@x.io", .token = "t-b"},
                              {.org_id = "globex", .email = "c@x.io", .token = "t-c"}};
    OK(invite_batch_put(db, batch, 3, NULL, NULL, &err));
    struct invite keys[2] = {{.org_id = "globex", .email = "b@x.io"}, {.org_id = "globex", .email = "zz@x.io"}};
    struct invite out[2];
    bool found[2];
    OK(invite_batch_get(db, keys, 2, NULL, a, out, NULL, found, &err));
    CHECK(found[0] && !found[1] && strcmp(out[0].token, "t-b") == 0, "batch get");

    /* auto ids, derived day, sparse INCLUDE index */
    const char *ats[] = {"2025-11-25T23:59:59Z", "2025-11-26T00:00:01Z", "2025-11-26T08:30:00Z"};
    for (int i = 0; i < 3; i++) {
        struct audit ev = {.org_id = "acme", .action = "login", .actor = "u1"};
        strcpy(ev.at, ats[i]);
        if (i != 1)
            ev.flag = "suspicious";
        OK(audit_create(db, &ev, NULL, NULL, &err));
        CHECK(ev.seq == (uint64_t)i + 1, "auto id %" PRIu64, ev.seq);
        CHECK(strcmp(ev.day, i ? "2025-11-26" : "2025-11-25") == 0, "derived day %s", ev.day);
    }
    audit_page ap;
    const char *flag = "suspicious";
    OK(audit_flagged(db, flag, audit_flagged_all(), NULL, a, &ap, &err));
    CHECK(ap.count == 2, "flagged: %zu", ap.count);
    if (ap.count == 2) {
        CHECK(strcmp(ap.items[0].action, "login") == 0 && ddb_ent_mask_has(&ap.masks[0], AUDIT_FN_ACTION),
              "INCLUDE has action");
        CHECK(!ddb_ent_mask_has(&ap.masks[0], AUDIT_FN_DAY), "INCLUDE lacks day");
        CHECK(ddb_ent_mask_has(&ap.masks[0], AUDIT_FN_ORG_ID) && strcmp(ap.items[0].org_id, "acme") == 0,
              "org_id parsed back from {at}#{org_id}");
    }
    /* clearing the flag takes the event out of the sparse index */
    struct audit ev;
    OK(audit_get(db, "acme", 3, NULL, a, &ev, &err));
    ev.flag = NULL;
    OK(audit_update_fields(db, &ev, audit_mask(AUDIT_F_FLAG), NULL, NULL, &err));
    OK(audit_flagged(db, flag, audit_flagged_all(), NULL, a, &ap, &err));
    CHECK(ap.count == 1, "unflagged: %zu", ap.count);

    /* a transaction across entities, then a cancelled one that draws no id */
    ddb_ent_tx *tx = ddb_ent_tx_new(db, a, &err);
    CHECK(tx != NULL, "tx_new: %s", err.message);
    struct audit ev4 = {.org_id = "acme", .at = "2025-11-26T09:00:00Z", .action = "invite", .actor = "u2"};
    struct invite inv2 = {.org_id = "acme", .email = "third@example.com"};
    OK(org_tx_check_on_plan(tx, "acme", "pro", NULL, &err));
    OK(audit_tx_create(tx, &ev4, NULL, &err));
    OK(invite_tx_create(tx, &inv2, NULL, &err));
    OK(ddb_ent_tx_commit(tx, NULL, NULL, &err));
    CHECK(ev4.seq == 4, "tx auto id %" PRIu64, ev4.seq);
    CHECK(strlen(inv2.token) == 36, "tx uuid");
    tx = ddb_ent_tx_new(db, a, &err);
    struct audit ev5 = {.org_id = "acme", .at = "2025-11-26T09:01:00Z", .action = "invite", .actor = "u2"};
    struct org ocur;
    bool ofound = false;
    ddb_ent_tx_cond oc = {.current = &ocur, .current_found = &ofound, .current_arena = a};
    OK(org_tx_check_on_plan(tx, "acme", "free", &oc, &err));
    OK(audit_tx_create(tx, &ev5, NULL, &err));
    RC(DDB_ECANCELED, ddb_ent_tx_commit(tx, NULL, NULL, &err));
    CHECK(ev5.seq == 0, "a cancelled tx gives the id back: %" PRIu64, ev5.seq);
    CHECK(ofound && strcmp(ocur.plan, "pro") == 0, "tx current");
    struct audit ev6 = {.org_id = "acme", .at = "2025-11-26T09:02:00Z", .action = "x", .actor = "u2"};
    OK(audit_create(db, &ev6, NULL, NULL, &err));
    CHECK(ev6.seq == 5, "no gap after the cancelled tx: %" PRIu64, ev6.seq);
}

static void collection(ddb *db, ddb_arena *a)
{
    ddb_error err = {0};
    /* acme: 1 org, 2 users, 2 visible invites (one expired), audit items are not members */
    ddb_ent_read_opts o = {.page_size = 2};
    size_t orgs = 0, users = 0, invites = 0, pages = 0;
    saas_tenant_result r;
    do {
        OK(saas_query_tenant(db, "acme", NULL, &o, a, &r, &err));
        orgs += r.org_count;
        users += r.user_count;
        invites += r.invite_count;
        pages++;
        o.cursor = r.page.cursor;
    } while (r.page.cursor && pages < 20);
    CHECK(orgs == 1 && users == 2 && invites == 2, "tenant: %zu orgs %zu users %zu invites", orgs, users, invites);

    /* a filter over stored attributes and a projection per member type */
    ddb_item *fn = ddb_item_new(a), *fv = ddb_item_new(a);
    ddb_item_set_s(fn, "#r", "role");
    ddb_item_set_s(fv, ":r", "admin");
    ddb_ent_read_opts fo = {.filter = "#r = :r", .filter_names = fn, .filter_values = fv};
    OK(saas_query_tenant(db, "acme", NULL, &fo, a, &r, &err));
    CHECK(r.org_count == 0 && r.user_count == 1 && r.invite_count == 0 && strcmp(r.user[0].user_id, "u2") == 0,
          "filtered tenant: %zu orgs %zu users %zu invites", r.org_count, r.user_count, r.invite_count);
    ddb_ent_mask only_name = org_mask(ORG_F_NAME), only_role = user_mask(USER_F_ROLE);
    const ddb_ent_mask *mf[SAAS_TENANT_MEMBERS] = {[SAAS_TENANT_ORG] = &only_name, [SAAS_TENANT_USER] = &only_role};
    ddb_ent_read_opts po = {.member_fields = mf};
    OK(saas_query_tenant(db, "acme", NULL, &po, a, &r, &err));
    CHECK(r.org_count == 1 && ddb_ent_mask_has(&r.org_masks[0], ORG_FN_NAME) &&
              !ddb_ent_mask_has(&r.org_masks[0], ORG_FN_SEATS) && r.org[0].seats == 0,
          "org projected to its name");
    CHECK(r.user_count == 2 && ddb_ent_mask_has(&r.user_masks[0], USER_FN_ROLE) &&
              !ddb_ent_mask_has(&r.user_masks[0], USER_FN_JOINED),
          "users projected to their role");
    CHECK(r.invite_count == 2 && ddb_ent_mask_has(&r.invite_masks[0], INVITE_FN_TOKEN), "invites whole");

    /* a declared query's filter ANDed with the caller's */
    ddb_item *qv = ddb_item_new(a);
    ddb_item_set_i64(qv, ":m", 1);
    ddb_item *qn = ddb_item_new(a);
    ddb_item_set_s(qn, "#l", "logins");
    ddb_ent_read_opts qo = {.filter = "#l > :m", .filter_names = qn, .filter_values = qv};
    user_page up;
    OK(user_with_role(db, "acme", "member", &qo, a, &up, &err));
    CHECK(up.count == 1 && strcmp(up.items[0].user_id, "u1") == 0, "member with logins > 1: %zu", up.count);
    ddb_item_set_i64(qv, ":m", 10);
    OK(user_with_role(db, "acme", "member", &qo, a, &up, &err));
    CHECK(up.count == 0, "member with logins > 10: %zu", up.count);

    saas_tenant_iter it;
    size_t total = 0;
    int rc;
    OK(saas_tenant_begin(&it, db, "acme", NULL, &(ddb_ent_read_opts){.page_size = 1}, &err));
    while ((rc = saas_tenant_next(&it, a, &r, &err)) == DDB_OK && it.it.has_page)
        total += r.org_count + r.user_count + r.invite_count;
    saas_tenant_end(&it);
    CHECK(rc == 0 && total == 5, "iterator: %zu (%s)", total, err.message);

    saas_scan_result s;
    size_t scanned_orgs = 0, scanned_users = 0, spages = 0;
    ddb_ent_read_opts so = {.page_size = 3};
    do {
        OK(saas_scan(db, 0, 0, &so, a, &s, &err));
        scanned_orgs += s.org_count;
        scanned_users += s.user_count;
        so.cursor = s.page.cursor;
    } while (s.page.cursor && ++spages < 50);
    CHECK(scanned_orgs == 2 && scanned_users == 3, "table scan: %zu orgs %zu users", scanned_orgs, scanned_users);
}

/* The table's change stream decoded into the entities (docs/SCHEMA.md
 * "Streams"): every record decodes; the module's own items (uniqueness
 * claims, id counters) are no entity; an Org's MODIFY carries both images. */
static void stream(ddb *db, ddb_arena *a)
{
    ddb_error err = {0};
    ddb_stream_iter *it;
    OK(ddb_stream_iter_open(db, "Saas", DDB_STREAM_TRIM_HORIZON, 0, &it, &err));
    if (!it)
        return;
    size_t by_type[SAAS_TYPE_AUDIT + 1] = {0}, total = 0, org_modify = 0;
    uint32_t last_version = 0;
    bool versions_rise = true;
    for (int round = 0; round < 100; round++) {
        ddb_stream_record recs[64];
        size_t n = 0;
        int rc = ddb_stream_read(it, 64, a, recs, &n, &err);
        CHECK(rc == 0, "stream read: %s", err.message);
        if (rc || n == 0)
            break;
        for (size_t i = 0; i < n; i++) {
            saas_record r;
            OK(saas_decode_record(&recs[i], a, &r, &err));
            total++;
            by_type[r.type]++;
            if (r.type == SAAS_TYPE_ORG && r.event == DDB_STREAM_MODIFY && strcmp(r.new_image.org.org_id, "acme") == 0) {
                org_modify++;
                CHECK(r.has_old && r.has_new && r.new_image.org.version == r.old_image.org.version + 1,
                      "org MODIFY v%u -> v%u", (unsigned)r.old_image.org.version, (unsigned)r.new_image.org.version);
                versions_rise &= r.new_image.org.version > last_version;
                last_version = r.new_image.org.version;
            }
        }
    }
    ddb_stream_iter_close(it);
    /* acme: created (INSERT), then rename, 2 x add_seats, put_if, update_fields_if = 5 MODIFY */
    CHECK(org_modify == 5 && versions_rise, "org MODIFY records: %zu", org_modify);
    /* org: acme 1 + 5, initech INSERT, 2 x MODIFY, REMOVE, globex INSERT */
    CHECK(by_type[SAAS_TYPE_ORG] == 11 && by_type[SAAS_TYPE_INVITE] >= 6 && by_type[SAAS_TYPE_AUDIT] >= 6,
          "records by type: org %zu invite %zu audit %zu", by_type[SAAS_TYPE_ORG], by_type[SAAS_TYPE_INVITE],
          by_type[SAAS_TYPE_AUDIT]);
    CHECK(by_type[SAAS_TYPE_NONE] > 0, "uniqueness and counter items are no entity: %zu", by_type[SAAS_TYPE_NONE]);
    CHECK(total > 30, "records: %zu", total);
}

int main(int argc, char **argv)
{
    const char *uri = trial_uri(argc, argv);
    if (!uri)
        return 2;
    ddb_options opts = {.clock_ms = test_clock};
    ddb *db = trial_open(uri, &opts);
    if (!db)
        return 1;
    ddb_error err = {0};
    ddb_arena *a = ddb_arena_new();
    int rc = saas_open(db, &err);
    CHECK(rc == 0, "saas_open: %s", err.message);
    if (rc == 0) {
        ddb_stream_spec spec = {.view = DDB_STREAM_NEW_AND_OLD_IMAGES};
        rc = ddb_update_table_stream(db, "Saas", &spec, &err);
        CHECK(rc == 0, "stream on: %s", err.message);
    }
    if (rc == 0) {
        orgs(db, a);
        users(db, a);
        invites_and_audit(db, a);
        collection(db, a);
        stream(db, a);
    }
    return trial_done(argv[0], db, a);
}
