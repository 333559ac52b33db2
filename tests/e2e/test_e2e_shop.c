/* End to end: the module ddbgen generated from tests/generator/schemas/shop.h
 * (every decorator), compiled into this test, on the embedded engine. */
#include "shop_ddb.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <unistd.h>

static char dir[512];

/* DDB_TEST_URI (e.g. http://127.0.0.1:PORT for dynalite) runs the same
 * tests through the remote backend; otherwise a fresh embedded directory. */
static bool remote(void)
{
    return getenv("DDB_TEST_URI") && *getenv("DDB_TEST_URI");
}

/* DDB_TEST_TRANSACTIONS=1: the endpoint has TransactWriteItems (ddb serve;
 * dynalite has not). */
static bool remote_has_transactions(void)
{
    return getenv("DDB_TEST_TRANSACTIONS") && !strcmp(getenv("DDB_TEST_TRANSACTIONS"), "1");
}

static void drop_tables(ddb *db)
{
    ddb_error err;
    int rc = ddb_delete_table(db, "Shop", &err);
    assert_true(rc == DDB_OK || rc == DDB_ENOTABLE);
    rc = ddb_delete_table(db, "Audit", &err);
    assert_true(rc == DDB_OK || rc == DDB_ENOTABLE);
}

static ddb *open_db(const char *name)
{
    char uri[600];
    if (remote()) {
        snprintf(uri, sizeof uri, "%s", getenv("DDB_TEST_URI"));
    } else {
        const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
        snprintf(dir, sizeof dir, "%s/ddb-e2e-%s-%d", base, name, (int)getpid());
        char cmd[600];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        assert_int_equal(system(cmd), 0);
        snprintf(uri, sizeof uri, "file:%s", dir);
    }
    ddb *db;
    ddb_error err;
    if (ddb_open(uri, NULL, &db, &err))
        fail_msg("open: %s", err.message);
    if (remote()) {
        /* dynalite has no UpdateTimeToLive: create the tables without TTL */
        drop_tables(db);
        ddb_table_def shop = shop_table.def, audit = audit_table.def;
        shop.ttl_attribute = audit.ttl_attribute = NULL;
        if (ddb_create_table(db, &shop, &err) || ddb_create_table(db, &audit, &err))
            fail_msg("create: %s", err.message);
        return db;
    }
    if (shop_create_table(db, &err) || audit_create_table(db, &err))
        fail_msg("create: %s", err.message);
    return db;
}

static void close_db(ddb *db)
{
    if (remote()) {
        drop_tables(db);
        ddb_close(db);
        return;
    }
    ddb_close(db);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

#define OK(expr)                                                                                                      \
    do {                                                                                                              \
        int rc_ = (expr);                                                                                             \
        if (rc_)                                                                                                      \
            fail_msg("%s -> %s: %s", #expr, ddb_strerror(rc_), err.message);                                          \
    } while (0)

/* The stored item under a raw key, for checking what ddbgen wrote. */
static ddb_item *raw(ddb *db, ddb_arena *a, const char *table, const char *pk, const char *sk)
{
    ddb_item *k = ddb_item_new(a), *it = NULL;
    ddb_item_set_s(k, table[0] == 'A' ? "id" : "PK", pk);
    if (sk)
        ddb_item_set_s(k, "SK", sk);
    ddb_error err;
    int rc = ddb_get_item(db, table, k, NULL, a, &it, NULL, &err);
    return rc ? NULL : it;
}

static void test_crud(void **state)
{
    (void)state;
    ddb *db = open_db("crud");
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    assert_int_equal(shop_create_table(db, &err), DDB_EEXISTS);

    struct organization org = {.name = "acme", .plan = PLAN_TEAM, .seats = 5};
    OK(organization_create(db, &org, NULL, NULL, &err));
    assert_int_equal(organization_create(db, &org, NULL, NULL, &err), DDB_ECONDITION);
    assert_string_equal(err.message, "Organization already exists");

    ddb_item *it = raw(db, a, "Shop", "ORG#acme", "METADATA#acme");
    assert_non_null(it);
    assert_string_equal(ddb_item_get(it, "Type")->u.s, "Organization");
    assert_string_equal(ddb_item_get(it, "seats")->u.s, "5");
    assert_string_equal(ddb_item_get(it, "plan")->u.s, "1");

    struct organization got;
    OK(organization_get(db, "acme", NULL, a, &got, &err));
    assert_string_equal(got.name, "acme");
    assert_int_equal(got.plan, PLAN_TEAM);
    assert_int_equal(got.seats, 5);

    org.seats = 9;
    ddb_capacity cap;
    OK(organization_update(db, &org, &(ddb_ent_opts){.return_capacity = DDB_CAPACITY_TOTAL}, &cap, &err));
    assert_true(cap.write == 1.0);
    OK(organization_get(db, "acme", NULL, a, &got, &err));
    assert_int_equal(got.seats, 9);
    OK(organization_update_fields(db, &(struct organization){.name = "acme", .seats = 11},
                                  organization_mask(ORGANIZATION_F_SEATS), NULL, NULL, &err));
    OK(organization_get(db, "acme", NULL, a, &got, &err));
    assert_int_equal(got.seats, 11);
    assert_int_equal(got.plan, PLAN_TEAM); /* untouched */

    struct organization missing = {.name = "nobody"};
    assert_int_equal(organization_update(db, &missing, NULL, NULL, &err), DDB_ENOTFOUND);
    assert_int_equal(organization_get(db, "nobody", NULL, a, &got, &err), DDB_ENOTFOUND);
    assert_int_equal(organization_update_fields(db, &org, organization_mask(ORGANIZATION_F_NAME), NULL, NULL, &err),
                     DDB_EVALIDATION);
    assert_string_equal(err.message, "field name is part of the primary key of Organization: write a new item instead");
    /* a misspelt field is a compile error (ORGANIZATION_F_COLOUR); a bit no field has is refused */
    assert_int_equal(organization_update_fields(db, &org, DDB_FIELDS(40), NULL, NULL, &err), DDB_EVALIDATION);
    assert_string_equal(err.message, "Organization has no field (a bit beyond the last field)");

    /* strings longer than their field: an error, never truncation */
    char longname[80];
    memset(longname, 'n', sizeof longname - 1);
    longname[79] = 0;
    assert_int_equal(organization_get(db, longname, NULL, a, &got, &err), DDB_EVALIDATION);
    assert_string_equal(err.message,
                        "field name: \"nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn...\" is 79 bytes, the field holds at most 63");

    /* an item of another type under the key: an error, not garbage */
    ddb_item *bad = ddb_item_new(a);
    ddb_item_set_s(bad, "PK", "ORG#evil");
    ddb_item_set_s(bad, "SK", "METADATA#evil");
    ddb_item_set_s(bad, "Type", "User");
    OK(ddb_put_item(db, "Shop", bad, NULL, NULL, NULL, &err));
    assert_int_equal(organization_get(db, "evil", NULL, a, &got, &err), DDB_EVALIDATION);
    assert_string_equal(err.message, "item has Type = \"User\", expected \"Organization\"");
    ddb_item_set_s(bad, "Type", "Organization");
    OK(ddb_put_item(db, "Shop", bad, NULL, NULL, NULL, &err));
    assert_int_equal(organization_get(db, "evil", NULL, a, &got, &err), DDB_EVALIDATION);
    assert_string_equal(err.message, "required attribute name (field name of organization) is missing");

    OK(organization_delete(db, "acme", NULL, NULL, &err));
    assert_int_equal(organization_get(db, "acme", NULL, a, &got, &err), DDB_ENOTFOUND);
    ddb_arena_free(a);
    close_db(db);
}

static void test_user_version_uuid_sparse(void **state)
{
    (void)state;
    ddb *db = open_db("user");
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    struct address past[] = {{"de", "Berlin", NULL, {52.5, 13.4}}, {"no", "Oslo", "Karl Johans gate", {59.9, 10.7}}};
    char *nicks[] = {"annie", "a."};
    char *tags[] = {"admin", "beta"};
    struct user u = {.org = "acme", .username = "ann", .logins = 1, .created_at = 1700000000, .active = true,
                     .home = {"fr", "Lyon", NULL, {45.76, 4.84}}, .past = past, .past_count = 2,
                     .nicknames = nicks, .nicknames_count = 2, .tags = {tags, 2}};
    OK(user_create(db, &u, NULL, NULL, &err));
    assert_int_equal(strlen(u.global_id), 36); /* DDB_UUID filled */
    assert_int_equal(u.version, 1);            /* DDB_VERSION starts at 1 */
    char first_id[37];
    strcpy(first_id, u.global_id);

    struct user got;
    OK(user_get(db, "acme", "ann", NULL, a, &got, &err));
    assert_string_equal(got.global_id, first_id);
    assert_int_equal(got.version, 1);
    assert_int_equal(got.past_count, 2);
    assert_string_equal(got.past[1].street, "Karl Johans gate");
    assert_null(got.past[0].street);
    assert_true(got.past[1].geo.lat == 59.9);
    assert_int_equal(got.nicknames_count, 2);
    assert_string_equal(got.nicknames[0], "annie");
    assert_int_equal(got.tags.count, 2);
    assert_null(got.email);
    assert_int_equal(got.expires_at, 0);
    /* LSI1 key from a nested field, upper-cased, and a padded number */
    ddb_item *it = raw(db, a, "Shop", "ORG#acme", "USER#ann");
    assert_string_equal(ddb_item_get(it, "LSI1SK")->u.s, "FR#00000000001700000000");
    assert_string_equal(ddb_item_get(it, "GSI1PK")->u.s, "USER#ann");
    assert_null(ddb_item_get(it, "EmailPK")); /* sparse: no email */
    assert_null(ddb_item_get(it, "expires_at")); /* TTL 0: no attribute */
    assert_string_equal(ddb_item_get(it, "ca")->u.s, "1700000000"); /* DDB_ATTR */

    /* optimistic locking */
    u.logins = 2;
    OK(user_put(db, &u, NULL, NULL, &err));
    assert_int_equal(u.version, 2);
    struct user stale = u;
    stale.version = 1;
    stale.logins = 99;
    assert_int_equal(user_put(db, &stale, NULL, NULL, &err), DDB_ECONDITION);
    assert_string_equal(err.message, "User: stored version is not 1 (changed by another writer)");
    assert_int_equal(user_update_fields(db, &stale, user_mask(USER_F_LOGINS), NULL, NULL, &err),
                     DDB_ECONDITION);
    OK(user_get(db, "acme", "ann", NULL, a, &got, &err));
    assert_int_equal(got.logins, 2);
    assert_int_equal(got.version, 2);

    /* sparse index: an email puts the user in ByEmail ({email|lower}) */
    user_page pg;
    /* ByEmail projects (username, Type) only: fetch_base reads the whole user */
    ddb_ent_read_opts whole = {.fetch_base = true};
    OK(user_ByEmail(db, "ann@x.org", user_ByEmail_all(), &whole, a, &pg, &err));
    assert_int_equal(pg.count, 0);
    u.email = "Ann@X.org";
    u.expires_at = 4102444800;
    OK(user_update_fields(db, &u, user_mask(USER_F_EMAIL | USER_F_EXPIRES_AT), NULL, NULL, &err));
    assert_int_equal(u.version, 3);
    OK(user_ByEmail(db, "ann@x.org", user_ByEmail_all(), &whole, a, &pg, &err));
    assert_int_equal(pg.count, 1);
    assert_string_equal(pg.items[0].username, "ann");
    assert_string_equal(pg.items[0].global_id, first_id);
    assert_true(ddb_ent_mask_has(&pg.masks[0], USER_FN_GLOBAL_ID));
    /* without it, what the index holds: username is there, global_id is not */
    OK(user_ByEmail(db, "ann@x.org", user_ByEmail_all(), NULL, a, &pg, &err));
    assert_int_equal(pg.count, 1);
    assert_string_equal(pg.items[0].username, "ann");
    assert_true(ddb_ent_mask_has(&pg.masks[0], USER_FN_USERNAME));
    assert_false(ddb_ent_mask_has(&pg.masks[0], USER_FN_GLOBAL_ID));
    it = raw(db, a, "Shop", "ORG#acme", "USER#ann");
    assert_string_equal(ddb_item_get(it, "EmailPK")->u.s, "ann@x.org");
    assert_string_equal(ddb_item_get(it, "expires_at")->u.s, "4102444800");
    /* and removing it takes the user out again */
    u.email = NULL;
    OK(user_update_fields(db, &u, user_mask(USER_F_EMAIL), NULL, NULL, &err));
    OK(user_ByEmail(db, "ann@x.org", user_ByEmail_all(), &whole, a, &pg, &err));
    assert_int_equal(pg.count, 0);
    it = raw(db, a, "Shop", "ORG#acme", "USER#ann");
    assert_null(ddb_item_get(it, "EmailPK"));
    assert_null(ddb_item_get(it, "email"));

    /* GSI1: USER#{username} / PROFILE */
    OK(user_GSI1(db, "ann", user_GSI1_all(), NULL, a, &pg, &err));
    assert_int_equal(pg.count, 1);
    assert_string_equal(pg.items[0].global_id, first_id);

    /* TTL on another table, with a UUID primary key */
    struct audit_event ev = {.actor = "ann"};
    OK(audit_event_create(db, &ev, NULL, NULL, &err));
    assert_int_equal(strlen(ev.event_id), 36);
    it = raw(db, a, "Audit", ev.event_id, NULL);
    assert_non_null(it);
    assert_null(ddb_item_get(it, "at"));
    assert_string_equal(ddb_item_get(it, "Type")->u.s, "AuditEvent");
    ddb_arena_free(a);
    close_db(db);
}

static void test_orders_ids_derived_queries(void **state)
{
    (void)state;
    ddb *db = open_db("orders");
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    const char *dates[] = {"2022-11-01", "2022-11-20", "2022-12-24", "2023-01-05", "2022-03-15"};
    for (int i = 0; i < 5; i++) {
        struct order o = {.org = "acme", .total = 10.5 * (i + 1)};
        strcpy(o.order_date, dates[i]);
        OK(order_create(db, &o, NULL, NULL, &err));
        assert_int_equal(o.id, (uint64_t)i + 1); /* DDB_AUTO_ID: 1, 2, 3 ... per org */
    }
    struct order other = {.org = "globex", .order_date = "2022-01-01"};
    OK(order_create(db, &other, NULL, NULL, &err));
    assert_int_equal(other.id, 1); /* another scope, another counter */
    /* derived attributes written and read back */
    struct order o;
    struct organization org = {.name = "acme"};
    OK(organization_put(db, &org, NULL, NULL, &err));
    struct user usr = {.org = "acme", .username = "bob", .home = {"us", "Austin", NULL, {0, 0}}};
    OK(user_put(db, &usr, NULL, NULL, &err));

    ddb_item *it = raw(db, a, "Shop", "ORG#acme", "ORDER#00000003");
    assert_non_null(it);
    assert_string_equal(ddb_item_get(it, "quarter")->u.s, "Q4");
    assert_string_equal(ddb_item_get(it, "Month")->u.s, "12");
    assert_string_equal(ddb_item_get(it, "year")->u.s, "2022");
    assert_string_equal(ddb_item_get(it, "Year")->u.s, "2022"); /* ByYear key attribute (N) */
    assert_int_equal(ddb_item_get(it, "Year")->type, DDB_TN);

    /* orders in 2022 from the ByYear index: it projects keys only, so the
     * typed query reads each order whole from the table */
    order_page pg;
    ddb_ent_read_opts q = {.page_size = 2, .fetch_base = true};
    size_t n = 0;
    do {
        OK(order_ByYear(db, 2022, order_ByYear_all(), &q, a, &pg, &err));
        for (size_t i = 0; i < pg.count; i++) {
            assert_int_equal(pg.items[i].year, 2022);
            assert_int_equal(strncmp(pg.items[i].order_date, "2022-", 5), 0);
        }
        n += pg.count;
        q.cursor = pg.cursor;
    } while (q.cursor);
    assert_int_equal(n, 5); /* four of acme's, one of globex's */

    /* every order of acme, from the table: other types in the partition are skipped */
    OK(order_table(db, "acme", order_table_all(), NULL, a, &pg, &err));
    assert_int_equal(pg.count, 5);
    for (size_t i = 0; i < pg.count; i++)
        assert_int_equal(pg.items[i].id, i + 1);
    /* one per page, backwards, with the cursor */
    q = (ddb_ent_read_opts){.page_size = 1, .backward = true};
    uint64_t expect = 5;
    do {
        OK(order_table(db, "acme", order_table_all(), &q, a, &pg, &err));
        for (size_t i = 0; i < pg.count; i++)
            assert_int_equal(pg.items[i].id, expect--);
        q.cursor = pg.cursor;
    } while (q.cursor);
    assert_int_equal(expect, 0);
    /* a range on the sort-key field: id > 2 */
    OK(order_table(db, "acme", order_table_id(DDB_ENT_SK_GT, 2), NULL, a, &pg, &err));
    assert_int_equal(pg.count, 3);
    assert_int_equal(pg.items[0].id, 3);
    /* between 2 and 4 */
    OK(order_table(db, "acme", order_table_id_between(2, 4), NULL, a, &pg, &err));
    assert_int_equal(pg.count, 3);
    /* exact key */
    OK(order_table(db, "acme", order_table_id(DDB_ENT_SK_EQ, 2), NULL, a, &pg, &err));
    assert_int_equal(pg.count, 1);
    assert_string_equal(pg.items[0].order_date, "2022-11-20");
    /* GSI1: ORDER#{id} / {order_date} */
    OK(order_GSI1(db, 4, order_GSI1_all(), NULL, a, &pg, &err));
    assert_int_equal(pg.count, 1); /* acme's #4; globex has only #1 */
    OK(order_get(db, "acme", 4, NULL, a, &o, &err));
    assert_string_equal(o.quarter, "Q1");
    assert_int_equal(o.year, 2023);

    /* the collection: organization, users and orders of one partition, one query */
    shop_members_result res;
    ddb_capacity mcap;
    OK(shop_query_members(db, "acme", NULL, &(ddb_ent_read_opts){.return_capacity = DDB_CAPACITY_TOTAL, .capacity = &mcap},
                          a, &res, &err));
    assert_int_equal(res.organization_count, 1);
    assert_int_equal(res.user_count, 1);
    assert_int_equal(res.order_count, 5);
    assert_string_equal(res.user[0].username, "bob");
    assert_true(mcap.read > 0);
    assert_null(res.page.cursor);
    ddb_arena_free(a);
    close_db(db);
}

static void test_shards(void **state)
{
    (void)state;
    if (remote() && !remote_has_transactions()) {
        /* a sharded item is written with TransactWriteItems */
        print_message("skipped: dynalite has no TransactWriteItems\n");
        skip();
    }
    ddb *db = open_db("shards");
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    char *desc = malloc(40 * 1024);
    memset(desc, 'd', 40 * 1024 - 1);
    desc[40 * 1024 - 1] = 0;
    struct product p = {.sku = "pr-000001", .title = "Kayak", .description = desc, .stock = 10, .views = 3};
    ddb_capacity cap;
    ddb_ent_opts caps = {.return_capacity = DDB_CAPACITY_INDEXES};
    OK(product_put(db, &p, &caps, &cap, &err));
    /* shard A ~41 KB (41 units) + shard B (1), written in one transaction:
     * transactional writes count double, as in DynamoDB */
    assert_true(cap.table_write == 84.0);
    /* two physical items: same PK, SK + "~" + shard id */
    ddb_item *ia = raw(db, a, "Shop", "PRODUCT#pr-000001", "DETAILS~A");
    ddb_item *ib = raw(db, a, "Shop", "PRODUCT#pr-000001", "DETAILS~B");
    assert_non_null(ia);
    assert_non_null(ib);
    assert_non_null(ddb_item_get(ia, "description"));
    assert_null(ddb_item_get(ia, "stock"));
    assert_string_equal(ddb_item_get(ib, "stock")->u.s, "10");
    assert_string_equal(ddb_item_get(ib, "sku")->u.s, "pr-000001"); /* key fields on every shard */
    assert_string_equal(ddb_item_get(ib, "GSI1SK")->u.s, "00000000000000000003#pr-000001");

    struct product got;
    OK(product_get(db, "pr-000001", NULL, a, &got, &err));
    assert_string_equal(got.title, "Kayak");
    assert_int_equal(strlen(got.description), 40 * 1024 - 1);
    assert_int_equal(got.stock, 10);

    /* the stock changes: only shard B is written, 1 WCU instead of 42 */
    p.stock = 9;
    OK(product_update_fields(db, &p, product_mask(PRODUCT_F_STOCK), &caps, &cap, &err));
    assert_true(cap.table_write == 1.0);
    OK(product_get(db, "pr-000001", NULL, a, &got, &err));
    assert_int_equal(got.stock, 9);
    assert_string_equal(got.title, "Kayak");

    /* the popularity index follows the views (its key lives on shard B) */
    p.views = 7;
    OK(product_update_fields(db, &p, product_mask(PRODUCT_F_VIEWS), &caps, &cap, &err));
    assert_true(cap.table_write == 1.0);
    product_page pg;
    OK(product_popular(db, product_popular_all(), NULL, a, &pg, &err));
    assert_int_equal(pg.count, 1);
    ib = raw(db, a, "Shop", "PRODUCT#pr-000001", "DETAILS~B");
    assert_string_equal(ddb_item_get(ib, "GSI1SK")->u.s, "00000000000000000007#pr-000001");

    OK(product_delete(db, "pr-000001", NULL, NULL, &err));
    assert_null(raw(db, a, "Shop", "PRODUCT#pr-000001", "DETAILS~A"));
    assert_null(raw(db, a, "Shop", "PRODUCT#pr-000001", "DETAILS~B"));
    assert_int_equal(product_get(db, "pr-000001", NULL, a, &got, &err), DDB_ENOTFOUND);
    free(desc);
    ddb_arena_free(a);
    close_db(db);
}

static void test_transactions_and_batches(void **state)
{
    (void)state;
    if (remote() && !remote_has_transactions()) {
        print_message("skipped: dynalite has no TransactWriteItems\n");
        skip();
    }
    ddb *db = open_db("tx");
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    /* one transaction across three entities */
    ddb_ent_tx *tx = ddb_ent_tx_new(db, a, &err);
    struct organization org = {.name = "acme", .seats = 3};
    struct user u = {.org = "acme", .username = "ann", .home = {"fr", "Lyon", NULL, {0, 0}}};
    struct order o = {.org = "acme", .order_date = "2024-02-29"};
    OK(organization_tx_create(tx, &org, NULL, &err));
    OK(user_tx_create(tx, &u, NULL, &err));
    OK(order_tx_create(tx, &o, NULL, &err));
    assert_int_equal(o.id, 1); /* the id is drawn when the operation is added */
    ddb_capacity cap;
    OK(ddb_ent_tx_commit(tx, &(ddb_ent_opts){.return_capacity = DDB_CAPACITY_TOTAL}, &cap, &err));
    assert_int_equal(u.version, 1);
    /* three 1 KB items and the order id counter, transactional: doubled (the
     * counter's update is part of the transaction: issue 13) */
    assert_true(cap.table_write == 8.0);
    struct user gu;
    OK(user_get(db, "acme", "ann", NULL, a, &gu, &err));
    struct order go;
    OK(order_get(db, "acme", 1, NULL, a, &go, &err));
    assert_string_equal(go.quarter, "Q1");

    /* a failed condition cancels everything */
    tx = ddb_ent_tx_new(db, a, &err);
    struct organization org2 = {.name = "globex"};
    OK(organization_tx_put(tx, &org2, NULL, &err));
    OK(user_tx_require(tx, "acme", "ann", false, &err)); /* ann exists: fails */
    assert_int_equal(ddb_ent_tx_commit(tx, NULL, NULL, &err), DDB_ECANCELED);
    assert_string_equal(err.message, "transaction cancelled: operation 2 (User) condition failed;");
    struct organization go2;
    assert_int_equal(organization_get(db, "globex", NULL, a, &go2, &err), DDB_ENOTFOUND);
    /* and with the right expectation it goes through, deleting in the same breath */
    tx = ddb_ent_tx_new(db, a, &err);
    OK(organization_tx_put(tx, &org2, NULL, &err));
    OK(user_tx_require(tx, "acme", "ann", true, &err));
    OK(order_tx_delete(tx, "acme", 1, NULL, &err));
    u.logins = 5;
    OK(user_tx_put(tx, &u, NULL, &err)); /* the same item twice in one transaction: refused at commit */
    assert_int_equal(ddb_ent_tx_commit(tx, NULL, NULL, &err), DDB_EVALIDATION);
    assert_int_equal(u.version, 1);
    tx = ddb_ent_tx_new(db, a, &err);
    OK(organization_tx_put(tx, &org2, NULL, &err));
    OK(order_tx_delete(tx, "acme", 1, NULL, &err));
    OK(user_tx_put(tx, &u, NULL, &err));
    OK(ddb_ent_tx_commit(tx, NULL, NULL, &err));
    assert_int_equal(u.version, 2);
    OK(organization_get(db, "globex", NULL, a, &go2, &err));
    assert_int_equal(order_get(db, "acme", 1, NULL, a, &go, &err), DDB_ENOTFOUND);

    /* batches: 30 organizations (two BatchWriteItem calls), read back with 2 misses */
    struct organization many[30], keys[32], out[32];
    bool found[32];
    ddb_ent_mask masks[32];
    for (int i = 0; i < 30; i++) {
        many[i] = (struct organization){.seats = (uint16_t)i};
        snprintf(many[i].name, sizeof many[i].name, "org%02d", i);
        keys[i] = (struct organization){0};
        strcpy(keys[i].name, many[i].name);
    }
    strcpy(keys[30].name, "nope1");
    strcpy(keys[31].name, "nope2");
    OK(organization_batch_put(db, many, 30, &(ddb_ent_opts){.return_capacity = DDB_CAPACITY_TOTAL}, &cap, &err));
    assert_true(cap.write == 30.0);
    OK(organization_batch_get(db, keys, 32, &(ddb_ent_read_opts){.return_capacity = DDB_CAPACITY_TOTAL, .capacity = &cap},
                              a, out, masks, found, &err));
    for (int i = 0; i < 30; i++) {
        assert_true(found[i]);
        assert_int_equal(out[i].seats, i);
        assert_true(ddb_ent_mask_has(&masks[i], ORGANIZATION_FN_NAME) && ddb_ent_mask_has(&masks[i], ORGANIZATION_FN_SEATS));
    }
    /* a projection: the masks hold its fields (and the key) only */
    ddb_ent_mask seats_only = {{0}};
    ddb_ent_mask_set(&seats_only, ORGANIZATION_FN_SEATS);
    OK(organization_batch_get(db, keys, 32, &(ddb_ent_read_opts){.fields = &seats_only}, a, out, masks, found, &err));
    assert_true(found[7] && !found[31]);
    assert_int_equal(out[7].seats, 7);
    assert_true(ddb_ent_mask_has(&masks[7], ORGANIZATION_FN_SEATS));
    assert_false(ddb_ent_mask_has(&masks[7], ORGANIZATION_FN_PLAN));
    assert_false(found[30]);
    assert_false(found[31]);
    /* a get's mask (opts.mask): every field without a projection, the
     * projection's fields with one */
    struct organization one;
    ddb_ent_mask got_mask;
    OK(organization_get(db, "org07", &(ddb_ent_read_opts){.mask = &got_mask}, a, &one, &err));
    assert_true(ddb_ent_mask_has(&got_mask, ORGANIZATION_FN_SEATS) && ddb_ent_mask_has(&got_mask, ORGANIZATION_FN_NAME));
    OK(organization_get(db, "org07", &(ddb_ent_read_opts){.fields = &seats_only, .mask = &got_mask}, a, &one, &err));
    assert_int_equal(one.seats, 7);
    /* the projection and the key fields, as a page's masks (entity.h, fields) */
    assert_true(ddb_ent_mask_has(&got_mask, ORGANIZATION_FN_SEATS));
    assert_false(ddb_ent_mask_has(&got_mask, ORGANIZATION_FN_PLAN));
    assert_true(ddb_ent_mask_has(&got_mask, ORGANIZATION_FN_NAME)); /* the key */
    assert_true(cap.read == 16.0); /* 32 eventually consistent reads of at most 4 KB: 0.5 each */
    /* a versioned entity cannot be batch-written: the module has no user_batch_put, and the
     * runtime refuses the entity's descriptor */
    assert_int_equal(ddb_ent_batch_put(db, &user_entity, &u, 1, NULL, NULL, &err), DDB_EVALIDATION);
    ddb_arena_free(a);
    close_db(db);
}

/* One handle, several threads: the generated module's prepared-expression
 * cache (create/put conditions, update texts) is shared safely. */
typedef struct worker {
    ddb *db;
    int id;
    int failures;
} worker;

static void *work(void *p)
{
    worker *w = p;
    ddb_arena *a = ddb_arena_new();
    ddb_error err;
    for (int i = 0; i < 50; i++) {
        struct user u = {.home = {"se", "Lund", NULL, {0, 0}}};
        snprintf(u.org, sizeof u.org, "org%d", w->id);
        snprintf(u.username, sizeof u.username, "u%d", i);
        struct user got;
        u.logins = i;
        if (user_create(w->db, &u, NULL, NULL, &err) ||
            user_update_fields(w->db, &u, user_mask(USER_F_LOGINS), NULL, NULL, &err) ||
            user_get(w->db, u.org, u.username, NULL, a, &got, &err) || got.version != 2 || got.logins != i)
            w->failures++;
        ddb_arena_reset(a);
    }
    ddb_arena_free(a);
    return NULL;
}

static void test_threads_share_one_handle(void **state)
{
    (void)state;
    ddb *db = open_db("threads");
    pthread_t th[4];
    worker w[4];
    for (int i = 0; i < 4; i++) {
        w[i] = (worker){db, i, 0};
        assert_int_equal(pthread_create(&th[i], NULL, work, &w[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(w[i].failures, 0);
    }
    close_db(db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crud),
        cmocka_unit_test(test_user_version_uuid_sparse),
        cmocka_unit_test(test_orders_ids_derived_queries),
        cmocka_unit_test(test_shards),
        cmocka_unit_test(test_transactions_and_batches),
        cmocka_unit_test(test_threads_share_one_handle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
