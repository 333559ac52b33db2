/* The typed API's last mile (issue 26), on the embedded engine and through
 * the remote backend against `ddb serve` when DDB_TEST_URI is set
 * (tests/serve/with_serve.py): collection pages and table scans count
 * entities, not physical items, when a member is sharded; projected reads
 * keep the key fields; an empty list is a value of a list parameter.
 *
 * DynamoDB references: Query and Scan's Limit, LastEvaluatedKey and
 * ExclusiveStartKey (API Reference, "Query", "Scan"; Developer Guide,
 * "Paginating table query results"); ProjectionExpression (Developer Guide,
 * "Using projection expressions in DynamoDB"); list_append and
 * if_not_exists in SET (Developer Guide, "Using update expressions in
 * DynamoDB": "Appending elements to a list", "Preventing overwrites of an
 * existing attribute"): an empty list L [] is a value. */
#include "lastmile_ddb.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fresh_db.h"

static ddb *open_db(void)
{
    return fresh_db("CollT2", t_create_table);
}

static void close_db(ddb *db)
{
    fresh_db_close(db, "CollT2");
}

/* One org (two shard items) and six users u1..u6 in partition ORG#o1. */
static void fill(ddb *db)
{
    ddb_error err;
    struct org o = {.org = "o1", .name = "Acme", .n = 6};
    OK(org_put(db, &o, NULL, NULL, &err));
    for (int i = 1; i <= 6; i++) {
        struct user u = {.org = "o1"};
        snprintf(u.user, sizeof u.user, "u%d", i);
        snprintf(u.name, sizeof u.name, "User %d", i);
        OK(user_put(db, &u, NULL, NULL, &err));
    }
}

/* Every page of the collection with page_size n in one direction: each page
 * holds at most n entities (all but the last exactly n), together the org
 * once (both shards merged) and the six users once each, in key order. */
static void walk_members(ddb *db, uint32_t n, bool back)
{
    ddb_error err;
    ddb_arena *a = ddb_arena_new();
    ddb_ent_read_opts o = {.page_size = n, .backward = back};
    t_members_result r;
    char seen[8][16]; /* entities in the order read: "org" or the user */
    size_t total = 0, pages = 0, short_pages = 0;
    do {
        OK(t_query_members(db, "o1", NULL, &o, a, &r, &err));
        assert_true(r.page.count <= n);
        assert_int_equal(r.page.count, r.org_count + r.user_count);
        if (r.page.count < n)
            short_pages++;
        assert_true(total + r.page.count <= 7);
        /* the org sorts first ("A#o1#..." < "U#..."): before the users forward, after them backward */
        if (!back && r.org_count)
            snprintf(seen[total++], 16, "org");
        for (size_t i = 0; i < r.user_count; i++)
            snprintf(seen[total++], 16, "%s", r.user[i].user);
        if (back && r.org_count)
            snprintf(seen[total++], 16, "org");
        for (size_t i = 0; i < r.org_count; i++) {
            assert_string_equal(r.org[i].name, "Acme"); /* shard A */
            assert_int_equal(r.org[i].n, 6);           /* shard B */
        }
        pages++;
        o.cursor = r.page.cursor;
        /* a short page is the last one with items */
        assert_true(short_pages == 0 || (short_pages == 1 && (!o.cursor || r.page.count < n)));
    } while (o.cursor);
    assert_int_equal(total, 7);
    for (size_t i = 0; i < 7; i++) {
        size_t k = back ? 6 - i : i; /* forward: org, u1..u6 */
        char want[16];
        if (k == 0)
            snprintf(want, sizeof want, "org");
        else
            snprintf(want, sizeof want, "u%zu", k);
        assert_string_equal(seen[i], want);
    }
    assert_true(pages >= (7 + n - 1) / n);
    ddb_arena_free(a);
}

/* Issue 26, defect 1: with page_size 1 the pages held 1, 2, 2, 2
 * entities (Limit = page_size x shards physical items). */
static void test_collection_page_counts_entities(void **state)
{
    (void)state;
    ddb *db = open_db();
    fill(db);
    for (uint32_t n = 1; n <= 8; n++) {
        walk_members(db, n, false);
        walk_members(db, n, true);
    }
    /* the iterator pages the same way */
    ddb_error err;
    ddb_arena *a = ddb_arena_new();
    ddb_ent_read_opts o = {.page_size = 2};
    t_members_iter it;
    t_members_result r;
    size_t total = 0;
    int rc;
    OK(t_members_begin(&it, db, "o1", NULL, &o, &err));
    while ((rc = t_members_next(&it, a, &r, &err)) == DDB_OK && it.it.has_page) {
        assert_true(r.page.count <= 2);
        total += r.page.count;
    }
    OK(rc);
    t_members_end(&it);
    assert_int_equal(total, 7);
    ddb_arena_free(a);
    close_db(db);
}

/* The same for a typed scan of the whole table, grouped by type. */
static void test_table_scan_counts_entities(void **state)
{
    (void)state;
    ddb *db = open_db();
    fill(db);
    ddb_error err;
    struct site s = {.site_id = "s1", .name = "North", .region = "eu"};
    OK(site_put(db, &s, NULL, NULL, &err));
    ddb_arena *a = ddb_arena_new();
    for (uint32_t n = 1; n <= 9; n++) {
        ddb_ent_read_opts o = {.page_size = n};
        t_scan_result r;
        size_t orgs = 0, users = 0, sites = 0;
        do {
            OK(t_scan(db, 0, 0, &o, a, &r, &err));
            assert_true(r.page.count <= n);
            orgs += r.org_count;
            users += r.user_count;
            sites += r.site_count;
            o.cursor = r.page.cursor;
        } while (o.cursor);
        assert_int_equal(orgs, 1);
        assert_int_equal(users, 6);
        assert_int_equal(sites, 1);
    }
    ddb_arena_free(a);
    close_db(db);
}

/* Issue 26, defect 2: a projection returns the key fields, and the mask
 * says so ("keys are always read", <ddb/entity.h>). */
static void test_projection_keeps_keys(void **state)
{
    (void)state;
    ddb *db = open_db();
    fill(db);
    ddb_error err;
    ddb_arena *a = ddb_arena_new();
    struct site sites[] = {{"s1", "North", "eu"}, {"s2", "South", "us"}};
    for (int i = 0; i < 2; i++)
        OK(site_put(db, &sites[i], NULL, NULL, &err));
    ddb_ent_mask name_only = site_mask(SITE_F_NAME), m;

    /* get */
    struct site out;
    ddb_ent_read_opts o = {.fields = &name_only, .mask = &m};
    OK(site_get(db, "s1", &o, a, &out, &err));
    assert_string_equal(out.site_id, "s1");
    assert_string_equal(out.name, "North");
    assert_string_equal(out.region, ""); /* not projected */
    assert_true(ddb_ent_mask_has(&m, SITE_FN_SITE_ID));
    assert_true(ddb_ent_mask_has(&m, SITE_FN_NAME));
    assert_false(ddb_ent_mask_has(&m, SITE_FN_REGION));

    /* query by pattern */
    site_page sp;
    ddb_ent_read_opts q = {.fields = &name_only};
    OK(site_table(db, "s2", site_table_all(), &q, a, &sp, &err));
    assert_int_equal(sp.count, 1);
    assert_string_equal(sp.items[0].site_id, "s2");
    assert_true(ddb_ent_mask_has(&sp.masks[0], SITE_FN_SITE_ID));
    assert_false(ddb_ent_mask_has(&sp.masks[0], SITE_FN_REGION));

    /* scan */
    OK(site_scan(db, 0, 0, &q, a, &sp, &err));
    assert_int_equal(sp.count, 2);
    for (size_t i = 0; i < 2; i++) {
        assert_true(!strcmp(sp.items[i].site_id, "s1") || !strcmp(sp.items[i].site_id, "s2"));
        assert_true(ddb_ent_mask_has(&sp.masks[i], SITE_FN_SITE_ID));
    }

    /* batch get */
    struct site keys[2] = {{.site_id = "s2"}, {.site_id = "s1"}}, got[2];
    ddb_ent_mask masks[2];
    bool found[2];
    OK(site_batch_get(db, keys, 2, &q, a, got, masks, found, &err));
    for (int i = 0; i < 2; i++) {
        assert_true(found[i]);
        assert_string_equal(got[i].site_id, keys[i].site_id);
        assert_true(ddb_ent_mask_has(&masks[i], SITE_FN_SITE_ID));
        assert_true(ddb_ent_mask_has(&masks[i], SITE_FN_NAME));
        assert_false(ddb_ent_mask_has(&masks[i], SITE_FN_REGION));
    }

    /* a sharded entity: the key field with a projection of shard B's field */
    ddb_ent_mask n_only = org_mask(ORG_F_N);
    struct org og;
    ddb_ent_read_opts oo = {.fields = &n_only, .mask = &m};
    OK(org_get(db, "o1", &oo, a, &og, &err));
    assert_string_equal(og.org, "o1");
    assert_int_equal(og.n, 6);
    assert_true(ddb_ent_mask_has(&m, ORG_FN_ORG));
    assert_false(ddb_ent_mask_has(&m, ORG_FN_NAME));
    struct org okey = {.org = "o1"}, ogot;
    bool ofound;
    ddb_ent_mask omask;
    OK(org_batch_get(db, &okey, 1, &oo, a, &ogot, &omask, &ofound, &err));
    assert_true(ofound);
    assert_string_equal(ogot.org, "o1");
    assert_true(ddb_ent_mask_has(&omask, ORG_FN_ORG));

    /* a collection page with a projection per member type */
    ddb_ent_mask user_name = user_mask(USER_F_NAME);
    const ddb_ent_mask *mf[T_MEMBERS_MEMBERS] = {[T_MEMBERS_ORG] = &n_only, [T_MEMBERS_USER] = &user_name};
    ddb_ent_read_opts co = {.member_fields = mf};
    t_members_result r;
    OK(t_query_members(db, "o1", NULL, &co, a, &r, &err));
    assert_int_equal(r.org_count, 1);
    assert_string_equal(r.org[0].org, "o1");
    assert_true(ddb_ent_mask_has(&r.org_masks[0], ORG_FN_ORG));
    assert_int_equal(r.user_count, 6);
    for (size_t i = 0; i < 6; i++) {
        assert_string_equal(r.user[i].org, "o1");
        assert_int_not_equal(r.user[i].user[0], '\0');
        assert_true(ddb_ent_mask_has(&r.user_masks[i], USER_FN_USER));
        assert_true(ddb_ent_mask_has(&r.user_masks[i], USER_FN_NAME));
    }
    ddb_arena_free(a);
    close_db(db);
}

/* Issue 26, defect 3: an empty list is a value of a list parameter
 * (list_append(if_not_exists(notes, :empty), :more) is DynamoDB's idiom
 * for appending to a list that may not exist yet). */
static void test_empty_list_parameter(void **state)
{
    (void)state;
    ddb *db = open_db();
    fill(db);
    ddb_error err;
    ddb_arena *a = ddb_arena_new();
    const char *more[] = {"first"};
    struct user u;
    OK(user_note(db, "o1", "u1", NULL, 0, more, 1, NULL, a, &u, NULL, &err));
    assert_int_equal(u.notes_count, 1);
    assert_string_equal(u.notes[0], "first");
    const char *again[] = {"second", "third"};
    OK(user_note(db, "o1", "u1", NULL, 0, again, 2, NULL, a, &u, NULL, &err));
    assert_int_equal(u.notes_count, 3);
    assert_string_equal(u.notes[2], "third");
    /* a non-empty :empty is a value too: if_not_exists takes the stored list */
    const char *unused[] = {"unused"};
    OK(user_note(db, "o1", "u1", unused, 1, again, 1, NULL, a, &u, NULL, &err));
    assert_int_equal(u.notes_count, 4);
    /* NULL with a non-zero count is no list: refused, naming the parameter, nothing written */
    assert_int_equal(user_note(db, "o1", "u1", NULL, 2, again, 1, NULL, a, &u, NULL, &err), DDB_EINVAL);
    assert_non_null(strstr(err.message, ":empty"));
    OK(user_get(db, "o1", "u1", NULL, a, &u, &err));
    assert_int_equal(u.notes_count, 4);
    /* appending an empty list keeps the list as it is */
    OK(user_note(db, "o1", "u1", NULL, 0, NULL, 0, NULL, a, &u, NULL, &err));
    assert_int_equal(u.notes_count, 4);
    ddb_arena_free(a);
    close_db(db);
}

/* Issue 26, friction: every transactional write takes a condition
 * (TransactWriteItems: each Put / Delete has its own ConditionExpression,
 * API Reference "TransactWriteItems"; a failed one cancels the whole
 * transaction, CancellationReasons ConditionalCheckFailed; "Transaction
 * request cannot include multiple operations on one item"). */
static void test_tx_writes_take_conditions(void **state)
{
    (void)state;
    ddb *db = open_db();
    ddb_error err;
    ddb_arena *a = ddb_arena_new();
    struct site s1 = {"s1", "North", "eu"}, s2 = {"s2", "South", "us"};
    OK(site_put(db, &s1, NULL, NULL, &err));
    ddb_item *names = ddb_item_new(a), *eu = ddb_item_new(a);
    ddb_item_set_s(names, "#r", "region");
    ddb_item_set_s(eu, ":r", "eu");
    ddb_ent_expr in_eu = {.text = "#r = :r", .names = names, .values = eu};
    struct site current;
    bool found = false;
    ddb_ent_tx_cond c = {.condition = &in_eu, .current = &current, .current_found = &found, .current_arena = a};

    /* a put whose condition holds, and a create beside it */
    ddb_ent_tx *tx = ddb_ent_tx_new(db, a, &err);
    assert_non_null(tx);
    s1.region[0] = 'E';
    OK(site_tx_put(tx, &s1, &c, &err));
    OK(site_tx_create(tx, &s2, NULL, &err));
    OK(ddb_ent_tx_commit(tx, NULL, NULL, &err));

    /* now the region is "Eu": the same condition cancels the transaction, nothing written */
    tx = ddb_ent_tx_new(db, a, &err);
    struct site s3 = {"s3", "West", "eu"};
    OK(site_tx_create(tx, &s3, NULL, &err));
    OK(site_tx_delete(tx, "s1", &c, &err));
    assert_int_equal(ddb_ent_tx_commit(tx, NULL, NULL, &err), DDB_ECANCELED);
    assert_true(found);
    assert_string_equal(current.region, "Eu"); /* the stored item, as it was */
    struct site got;
    OK(site_get(db, "s1", NULL, a, &got, &err));
    assert_int_equal(site_get(db, "s3", NULL, a, &got, &err), DDB_ENOTFOUND);

    /* a create's condition is ANDed with "does not exist": on no item,
     * region = "eu" is false (ConditionExpression on a missing item) */
    tx = ddb_ent_tx_new(db, a, &err);
    OK(site_tx_create(tx, &s3, &c, &err));
    assert_int_equal(ddb_ent_tx_commit(tx, NULL, NULL, &err), DDB_ECANCELED);
    assert_false(found); /* there was no stored item */
    assert_int_equal(site_get(db, "s3", NULL, a, &got, &err), DDB_ENOTFOUND);

    /* two operations on one item: refused (the header comment says so) */
    tx = ddb_ent_tx_new(db, a, &err);
    OK(site_tx_put(tx, &s2, NULL, &err));
    OK(site_tx_delete(tx, "s2", NULL, &err));
    assert_int_equal(ddb_ent_tx_commit(tx, NULL, NULL, &err), DDB_EVALIDATION);
    ddb_arena_free(a);
    close_db(db);
}

/* Issue 26, friction: every page in one call ("all pages"), and a count of
 * them all, for patterns, scans, collections and table scans. */
static void test_all_pages(void **state)
{
    (void)state;
    ddb *db = open_db();
    fill(db);
    ddb_error err;
    ddb_arena *a = ddb_arena_new();
    for (uint32_t n = 0; n <= 2; n++) {
        ddb_ent_read_opts o = {.page_size = n, .all_pages = true};
        user_page up;
        OK(user_table(db, "o1", user_table_all(), &o, a, &up, &err));
        assert_int_equal(up.count, 6);
        assert_null(up.cursor);
        assert_string_equal(up.items[5].user, "u6");
        OK(user_scan(db, 0, 0, &o, a, &up, &err));
        assert_int_equal(up.count, 6);
        t_members_result r;
        OK(t_query_members(db, "o1", NULL, &o, a, &r, &err));
        assert_int_equal(r.page.count, 7);
        assert_int_equal(r.org_count, 1);
        assert_int_equal(r.org[0].n, 6);
        assert_null(r.page.cursor);
        t_scan_result sr;
        OK(t_scan(db, 0, 0, &o, a, &sr, &err));
        assert_int_equal(sr.page.count, 7);
        o.count_only = true; /* count them all */
        OK(user_table(db, "o1", user_table_all(), &o, a, &up, &err));
        assert_int_equal(up.count, 6);
        assert_null(up.items);
        OK(t_query_members(db, "o1", NULL, &o, a, &r, &err));
        assert_int_equal(r.page.count, 7);
    }
    ddb_arena_free(a);
    close_db(db);
}

/* Issue 26, friction: access patterns and entity scans have an iterator,
 * as collections do. */
static void test_pattern_and_scan_iterators(void **state)
{
    (void)state;
    ddb *db = open_db();
    fill(db);
    ddb_error err;
    ddb_arena *a = ddb_arena_new();
    ddb_ent_read_opts o = {.page_size = 4, .backward = true};
    user_table_iter it;
    user_page page;
    size_t n = 0, pages = 0;
    int rc;
    user_table_begin(&it, db, "o1", user_table_all(), &o);
    while ((rc = user_table_next(&it, a, &page, &err)) == DDB_OK && it.pages.has_page) {
        for (size_t i = 0; i < page.count; i++, n++) {
            char want[16];
            snprintf(want, sizeof want, "u%zu", 6 - n);
            assert_string_equal(page.items[i].user, want);
        }
        pages++;
        ddb_arena_reset(a); /* the iterator keeps its own copy of the cursor */
    }
    OK(rc);
    user_table_end(&it);
    assert_int_equal(n, 6);
    assert_int_equal(pages, 2);

    /* a level constructor, resuming from a caller's cursor */
    ddb_ent_read_opts one = {.page_size = 1};
    OK(user_table(db, "o1", user_table_user(DDB_ENT_SK_GE, "u2"), &one, a, &page, &err));
    assert_string_equal(page.items[0].user, "u2");
    one.cursor = page.cursor;
    user_table_begin(&it, db, "o1", user_table_user(DDB_ENT_SK_GE, "u2"), &one);
    n = 0;
    while ((rc = user_table_next(&it, a, &page, &err)) == DDB_OK && it.pages.has_page)
        n += page.count;
    OK(rc);
    user_table_end(&it);
    assert_int_equal(n, 4); /* u3..u6 */

    /* level constructors: no unused upper bound; BETWEEN has its own */
    OK(user_table(db, "o1", user_table_user_between("u2", "u4"), NULL, a, &page, &err));
    assert_int_equal(page.count, 3);
    OK(user_table(db, "o1", user_table_user(DDB_ENT_SK_EQ, "u4"), NULL, a, &page, &err));
    assert_int_equal(page.count, 1);
    rc = user_table(db, "o1", user_table_user(DDB_ENT_SK_BETWEEN, "u2"), NULL, a, &page, &err);
    assert_true(rc == DDB_EVALIDATION || rc == DDB_EINVAL); /* no upper bound: refused, with a message */
    assert_int_not_equal(err.message[0], '\0');

    user_scan_iter si;
    n = 0;
    user_scan_begin(&si, db, 0, 0, &(ddb_ent_read_opts){.page_size = 5});
    while ((rc = user_scan_next(&si, a, &page, &err)) == DDB_OK && si.pages.has_page)
        n += page.count;
    OK(rc);
    user_scan_end(&si);
    assert_int_equal(n, 6);
    ddb_arena_free(a);
    close_db(db);
}

/* Issue 26, friction: a collection's range given by a member's sort-key
 * condition (a typed range, as access patterns take), not the key's text
 * (Query's KeyConditionExpression on the sort key: =, <, <=, >, >=,
 * BETWEEN, begins_with; Developer Guide "Key condition expressions"). */
static void test_collection_typed_ranges(void **state)
{
    (void)state;
    ddb *db = open_db();
    fill(db);
    ddb_error err;
    ddb_arena *a = ddb_arena_new();
    t_members_result r;
    OK(t_query_members_user(db, "o1", user_table_user(DDB_ENT_SK_GE, "u4"), NULL, a, &r, &err));
    assert_int_equal(r.org_count, 0); /* "A#o1#..." sorts before "U#u4" */
    assert_int_equal(r.user_count, 3);
    assert_string_equal(r.user[0].user, "u4");
    OK(t_query_members_user(db, "o1", user_table_user_between("u2", "u3"), NULL, a, &r, &err));
    assert_int_equal(r.user_count, 2);
    OK(t_query_members_user(db, "o1", user_table_all(), NULL, a, &r, &err));
    assert_int_equal(r.user_count, 6); /* begins_with "U#": the users only */
    assert_int_equal(r.org_count, 0);
    OK(t_query_members_org(db, "o1", org_table_all(), NULL, a, &r, &err));
    assert_int_equal(r.org_count, 1); /* both shard items, merged */
    assert_int_equal(r.org[0].n, 6);
    assert_int_equal(r.user_count, 0);
    /* pages of a typed range resume exactly */
    ddb_ent_read_opts o = {.page_size = 1, .backward = true};
    size_t n = 0;
    do {
        OK(t_query_members_user(db, "o1", user_table_user(DDB_ENT_SK_LT, "u5"), &o, a, &r, &err));
        assert_true(r.page.count <= 1);
        for (size_t i = 0; i < r.user_count; i++, n++) {
            char want[16];
            snprintf(want, sizeof want, "u%zu", 4 - n);
            assert_string_equal(r.user[i].user, want);
        }
        o.cursor = r.page.cursor;
    } while (o.cursor);
    assert_int_equal(n, 4);
    ddb_arena_free(a);
    close_db(db);
}

/* Injected faults reach the typed operations, on either backend: a
 * sharded entity's put is a TransactWriteItems, a site's a PutItem. */
static void test_faults_under_typed_operations(void **state)
{
    (void)state;
    ddb *db = open_db();
    ddb_error err;
    ddb_arena *a = ddb_arena_new();
    ddb_fault throttled = {.code = DDB_ETHROTTLED, .ops = DDB_OP_PUT, .table = "CollT2", .count = 1};
    OK(ddb_fault_inject(db, &throttled, &err));
    struct site s = {"s1", "North", "eu"};
    assert_int_equal(site_put(db, &s, NULL, NULL, &err), DDB_ETHROTTLED);
    struct site got;
    assert_int_equal(site_get(db, "s1", NULL, a, &got, &err), DDB_ENOTFOUND);
    OK(site_put(db, &s, NULL, NULL, &err));
    /* the org's two shard items are one transaction: cancelled, shard B's condition named */
    int reasons[] = {DDB_OK, DDB_ECONDITION};
    ddb_fault cancel = {.code = DDB_ECANCELED, .ops = DDB_OP_TRANSACT_WRITE, .count = 1, .reasons = reasons,
                        .n_reasons = 2};
    OK(ddb_fault_inject(db, &cancel, &err));
    struct org o = {.org = "o1", .name = "Acme", .n = 6};
    int rc = org_put(db, &o, NULL, NULL, &err);
    assert_int_equal(rc, DDB_ECONDITION); /* a single write: its failed condition, as an unsharded put says it */
    assert_int_equal(org_get(db, "o1", NULL, a, &o, &err), DDB_ENOTFOUND);
    OK(org_put(db, &o, NULL, NULL, &err));
    assert_int_equal(ddb_fault_fired(db), 2);
    ddb_arena_free(a);
    close_db(db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_collection_page_counts_entities),
        cmocka_unit_test(test_table_scan_counts_entities),
        cmocka_unit_test(test_projection_keeps_keys),
        cmocka_unit_test(test_empty_list_parameter),
        cmocka_unit_test(test_tx_writes_take_conditions),
        cmocka_unit_test(test_all_pages),
        cmocka_unit_test(test_pattern_and_scan_iterators),
        cmocka_unit_test(test_collection_typed_ranges),
        cmocka_unit_test(test_faults_under_typed_operations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
