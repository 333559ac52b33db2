/* End to end: the declared updates (DDB_UPDATE) and conditions (DDB_CONDITION) ddbgen generated from
 * tests/e2e/writes/typed_writes.h, on the embedded engine, or through the remote
 * backend when DDB_TEST_URI is set (test_e2e_writes_dynalite).
 *
 * Behaviour matched (DynamoDB Developer Guide, "Update expressions"):
 * SET with + and -, if_not_exists and list_append, REMOVE, ADD on numbers
 * and sets, DELETE from sets; a ConditionExpression that fails leaves the
 * item as it was ("Condition expressions"); one UpdateItem of an item under
 * 1 KB costs 1 WCU, and each GSI whose key it writes 1 more ("Managing
 * settings on DynamoDB provisioned capacity tables": write capacity of
 * global secondary indexes). */
#include "typed_writes_ddb.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[512];

/* The handle's clock (ddb_options.clock_ms): what DDB_CREATED_AT and
 * DDB_UPDATED_AT read. */
static int64_t now_ms = 1764169445123; /* 2025-11-26T15:04:05.123Z */
static int64_t test_clock(void *ctx)
{
    (void)ctx;
    return now_ms;
}

static bool remote(void) { return getenv("DDB_TEST_URI") && *getenv("DDB_TEST_URI"); }

/* DDB_TEST_TRANSACTIONS=1: the endpoint has TransactWriteItems (ddb serve;
 * dynalite has not). */
static bool remote_has_transactions(void)
{
    return getenv("DDB_TEST_TRANSACTIONS") && !strcmp(getenv("DDB_TEST_TRANSACTIONS"), "1");
}

/* Skip the calling test where the endpoint has no TransactWriteItems
 * (sharded items, uniqueness items and transactions need it). */
static void need_transactions(void)
{
    if (remote() && !remote_has_transactions()) {
        print_message("skipped: dynalite has no TransactWriteItems\n");
        skip();
    }
}

static ddb *open_db(void)
{
    char uri[600];
    ddb *db;
    ddb_error err;
    if (remote()) {
        snprintf(uri, sizeof uri, "%s", getenv("DDB_TEST_URI"));
    } else {
        const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
        snprintf(dir, sizeof dir, "%s/ddb-e2e-writes-%d", base, (int)getpid());
        char cmd[600];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        assert_int_equal(system(cmd), 0);
        snprintf(uri, sizeof uri, "file:%s", dir);
    }
    ddb_options opts = {.clock_ms = test_clock};
    if (ddb_open(uri, &opts, &db, &err))
        fail_msg("open: %s", err.message);
    int rc = ddb_delete_table(db, "Fleet", &err);
    assert_true(rc == DDB_OK || rc == DDB_ENOTABLE);
    if (fleet_create_table(db, &err))
        fail_msg("create: %s", err.message);
    return db;
}

static void close_db(ddb *db)
{
    ddb_error err;
    ddb_delete_table(db, "Fleet", &err);
    ddb_close(db);
    if (!remote()) {
        char cmd[600];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        assert_int_equal(system(cmd), 0);
    }
}

#define OK(expr)                                                                                                      \
    do {                                                                                                              \
        int rc_ = (expr);                                                                                             \
        if (rc_)                                                                                                      \
            fail_msg("%s: %d %s", #expr, rc_, err.message);                                                           \
    } while (0)

static const ddb_ent_opts caps = {.return_capacity = DDB_CAPACITY_INDEXES};

static void new_device(ddb *db, const char *id)
{
    ddb_error err;
    struct device d = {.battery = 50, .boots = 0};
    snprintf(d.id, sizeof d.id, "%s", id);
    snprintf(d.site, sizeof d.site, "berlin");
    snprintf(d.status, sizeof d.status, "idle");
    snprintf(d.updated, sizeof d.updated, "2026-11-26T00:00:00.000Z");
    OK(device_create(db, &d, NULL, NULL, &err));
}

static void test_set_and_arithmetic(void **state)
{
    (void)state;
    ddb *db = open_db();
    ddb_arena *a = ddb_arena_new();
    ddb_error err;
    ddb_capacity cap;
    struct device got;
    new_device(db, "d1");
    /* SET two fields to placeholders: no key reads them, but GSI1 projects
     * every attribute, so its copy of the item is rewritten too (1 unit) */
    OK(device_charge(db, "d1", 90, 1700000000000, &caps, a, &got, &cap, &err));
    assert_int_equal(got.battery, 90);
    assert_int_equal(got.last_seen, 1700000000000);
    assert_int_equal(got.rev, 2); /* created at 1, the update moved it on */
    assert_true(cap.table_write == 1.0);
    if (!remote()) { /* dynalite reports no per-index capacity */
        assert_int_equal(cap.n_indexes, 1);
        assert_true(cap.indexes[0].write == 1.0);
    }
    /* SET battery = battery - :d when battery >= :d */
    OK(device_drain(db, "d1", 30, NULL, a, &got, NULL, &err));
    assert_int_equal(got.battery, 60);
    int rc = device_drain(db, "d1", 61, NULL, NULL, NULL, NULL, &err);
    assert_int_equal(rc, DDB_ECONDITION);
    OK(device_get(db, "d1", NULL, a, &got, &err));
    assert_int_equal(got.battery, 60); /* a failed condition writes nothing */
    /* ADD on a number, twice */
    OK(device_count_boot(db, "d1", 1, NULL, NULL, NULL, NULL, &err));
    OK(device_count_boot(db, "d1", 1, NULL, a, &got, NULL, &err));
    assert_int_equal(got.boots, 2);
    /* if_not_exists keeps the first value */
    const char *first = "first"; /* a char * field's placeholder takes a const char * */
    OK(device_first_note(db, "d1", first, NULL, NULL, NULL, NULL, &err));
    OK(device_first_note(db, "d1", "second", NULL, a, &got, NULL, &err));
    assert_string_equal(got.note, "first");
    /* an absent item is not created */
    rc = device_charge(db, "nope", 1, 1, NULL, NULL, NULL, NULL, &err);
    assert_int_equal(rc, DDB_ENOTFOUND);
    assert_int_equal(device_get(db, "nope", NULL, a, &got, &err), DDB_ENOTFOUND);
    ddb_arena_free(a);
    close_db(db);
}

static void test_sets_lists_remove(void **state)
{
    (void)state;
    ddb *db = open_db();
    ddb_arena *a = ddb_arena_new();
    ddb_error err;
    struct device got;
    new_device(db, "d2");
    char *t1[] = {"red", "blue"}, *t2[] = {"red"};
    OK(device_tag(db, "d2", (ddb_string_set){t1, 2}, NULL, NULL, NULL, NULL, &err));
    OK(device_untag(db, "d2", (ddb_string_set){t2, 1}, NULL, a, &got, NULL, &err));
    assert_int_equal(got.tags.count, 1);
    assert_string_equal(got.tags.items[0], "blue");
    int32_t r1[] = {1, 2}, r2[] = {3};
    /* list_append onto an absent list fails, as in DynamoDB: the device's
     * readings start as an empty list written by the first append's
     * if_not_exists-free form, so seed it with a put */
    OK(device_get(db, "d2", NULL, a, &got, &err));
    got.readings = r1;
    got.readings_count = 2;
    got.note = "hello";
    OK(device_put(db, &got, NULL, NULL, &err));
    OK(device_log(db, "d2", r2, 1, NULL, a, &got, NULL, &err));
    assert_int_equal(got.readings_count, 3);
    assert_int_equal(got.readings[2], 3);
    assert_string_equal(got.note, "hello");
    OK(device_forget(db, "d2", NULL, a, &got, NULL, &err));
    assert_null(got.note);
    ddb_arena_free(a);
    close_db(db);
}

static void test_recomputed_keys(void **state)
{
    (void)state;
    ddb *db = open_db();
    ddb_arena *a = ddb_arena_new();
    ddb_error err;
    ddb_capacity cap;
    struct device got;
    new_device(db, "d3");
    /* site and status feed GSI1 and the derived label: recomputed in the same request */
    OK(device_move(db, "d3", "paris", "busy", &caps, a, &got, &cap, &err));
    assert_string_equal(got.site, "paris");
    assert_string_equal(got.label, "paris/busy");
    /* the table item, and GSI1 (old entry deleted, new one put: 2 units) */
    assert_true(cap.table_write == 1.0);
    if (!remote()) { /* dynalite reports no per-index capacity */
        assert_int_equal(cap.n_indexes, 1);
        assert_true(cap.indexes[0].write == 2.0);
    }
    device_page pg;
    OK(device_GSI1(db, "paris", device_GSI1_all(), NULL, a, &pg, &err));
    assert_int_equal(pg.count, 1);
    assert_string_equal(pg.items[0].status, "busy");
    OK(device_GSI1(db, "berlin", device_GSI1_all(), NULL, a, &pg, &err));
    assert_int_equal(pg.count, 0);
    /* a placeholder that does not fit its char[N] field is refused, naming it */
    int rc = device_move(db, "d3", "a-site-name-far-too-long", "x", NULL, NULL, NULL, NULL, &err);
    assert_int_equal(rc, DDB_EVALIDATION);
    assert_non_null(strstr(err.message, "site"));
    ddb_arena_free(a);
    close_db(db);
}

/* A declared update that REMOVEs a field of a sparse index key takes the
 * item off the index in the same request (its index keys REMOVEd), and one
 * that SETs the key's fields puts it back.  Developer Guide, "Take advantage
 * of sparse indexes" (bp-indexes-general-sparse-indexes.html): only items
 * with the index key attributes appear in the index. */
static void test_sparse_index_remove(void **state)
{
    (void)state;
    ddb *db = open_db();
    ddb_arena *a = ddb_arena_new();
    ddb_error err;
    ddb_capacity cap;
    struct ticket t = {.id = "t1", .state = "open", .prio = "P1"}, got;
    OK(ticket_put(db, &t, NULL, NULL, &err));
    ticket_page pg;
    OK(ticket_GSI1(db, "open", ticket_GSI1_all(), NULL, a, &pg, &err));
    assert_int_equal(pg.count, 1);
    OK(ticket_close(db, "t1", "2026-11-26", &caps, a, &got, &cap, &err));
    assert_null(got.state);
    assert_string_equal(got.closed_at, "2026-11-26");
    assert_string_equal(got.prio, "P1");
    if (!remote()) { /* the GSI1 entry deleted: 1 unit (dynalite reports no per-index capacity) */
        assert_int_equal(cap.n_indexes, 1);
        assert_true(cap.indexes[0].write == 1.0);
    }
    OK(ticket_GSI1(db, "open", ticket_GSI1_all(), NULL, a, &pg, &err));
    assert_int_equal(pg.count, 0);
    /* the stored item holds no index key attribute any more */
    ddb_item *key = ddb_item_new(a), *it = NULL;
    assert_non_null(key);
    OK(ddb_item_set_s(key, "PK", "TICKET#t1"));
    OK(ddb_item_set_s(key, "SK", "TICKET"));
    OK(ddb_get_item(db, "Fleet", key, NULL, a, &it, NULL, &err));
    assert_null(ddb_item_get(it, "GSI1PK"));
    assert_null(ddb_item_get(it, "GSI1SK"));
    /* reopened (its sort key's prio set too): back on GSI1, closed_at gone */
    OK(ticket_reopen(db, "t1", "triage", "P2", NULL, a, &got, NULL, &err));
    assert_null(got.closed_at);
    OK(ticket_GSI1(db, "triage", ticket_GSI1_all(), NULL, a, &pg, &err));
    assert_int_equal(pg.count, 1);
    assert_string_equal(pg.items[0].prio, "P2");
    /* closing in a transaction does the same */
    if (!remote() || remote_has_transactions()) {
        ddb_ent_tx *tx = ddb_ent_tx_new(db, a, &err);
        assert_non_null(tx);
        OK(ticket_tx_close(tx, "t1", "2026-11-27", NULL, &err));
        OK(ddb_ent_tx_commit(tx, NULL, NULL, &err));
        OK(ticket_GSI1(db, "triage", ticket_GSI1_all(), NULL, a, &pg, &err));
        assert_int_equal(pg.count, 0);
    }
    ddb_arena_free(a);
    close_db(db);
}

/* Stock sku: qty 10, title "Kayak", a 20 KB blurb (returned: free it). */
static char *new_stock(ddb *db, const char *sku)
{
    ddb_error err;
    char *blurb = malloc(20 * 1024);
    assert_non_null(blurb);
    memset(blurb, 'b', 20 * 1024 - 1);
    blurb[20 * 1024 - 1] = 0;
    struct stock s = {.qty = 10, .title = "Kayak", .blurb = blurb};
    snprintf(s.sku, sizeof s.sku, "%s", sku);
    OK(stock_put(db, &s, NULL, NULL, &err));
    return blurb;
}

static void test_sharded(void **state)
{
    (void)state;
    need_transactions();
    ddb *db = open_db();
    ddb_arena *a = ddb_arena_new();
    ddb_error err;
    ddb_capacity cap;
    char *blurb = new_stock(db, "k1");
    struct stock got;
    /* the stock shard only: 1 WCU, not the 20 KB shard */
    OK(stock_take(db, "k1", 3, &caps, a, &got, &cap, &err));
    assert_true(cap.table_write == 1.0);
    /* out is the whole item, read back with one consistent Query of the shard items (20.6 KB: 6 RCU) */
    assert_true(cap.table_read == 6.0);
    assert_string_equal(got.title, "Kayak");
    assert_int_equal(strlen(got.blurb), 20 * 1024 - 1);
    assert_int_equal(got.qty, 7);
    assert_int_equal(got.ver_a, 2); /* put wrote 1; only shard A's version moves */
    assert_int_equal(stock_take(db, "k1", 8, NULL, NULL, NULL, NULL, &err), DDB_ECONDITION);
    OK(stock_rename(db, "k1", "Canoe", &caps, NULL, NULL, &cap, &err));
    assert_true(cap.table_write == 21.0); /* the 20 KB shard item: 21 units */
    OK(stock_get(db, "k1", NULL, a, &got, &err));
    assert_int_equal(got.qty, 7);
    assert_string_equal(got.title, "Canoe");
    assert_int_equal(got.ver_a, 2); /* the stock shard and its version were not rewritten */
    assert_int_equal(strlen(got.blurb), 20 * 1024 - 1);
    free(blurb);
    ddb_arena_free(a);
    close_db(db);
}

/* A declared update whose fields span two shard items: one UpdateItem per
 * item in one TransactWriteItems, each shard item's own version only; a
 * declared condition on a shard the update does not write: a
 * ConditionCheck of that item in the same transaction (DynamoDB API
 * Reference, TransactWriteItems: "no two actions can target the same item",
 * so the check and the update are on two shard items).  Capacity: a
 * transactional write costs 2 WCU per KB of each item and a ConditionCheck
 * 2 WCU per KB of the item checked (Developer Guide, "Capacity management
 * for transactions"); the item read back for out is a consistent read, 1
 * RCU per 4 KB ("Read consistency" / "Capacity unit consumption"). */
static void test_sharded_multi(void **state)
{
    (void)state;
    need_transactions();
    ddb *db = open_db();
    ddb_arena *a = ddb_arena_new();
    ddb_error err;
    ddb_capacity cap;
    char *blurb = new_stock(db, "k2");
    struct stock got;
    /* both shards: the 20 KB blurb is removed in the same request, so shard
     * B's write is sized by the larger of the item before and after (21 KB:
     * 42 WCU transactional) and shard A's by 1 KB (2 WCU) */
    OK(stock_restock(db, "k2", 5, "Canoe", &caps, NULL, NULL, &cap, &err));
    assert_true(cap.table_write == 44.0);
    assert_true(cap.table_read == 0.0);
    OK(stock_get(db, "k2", NULL, a, &got, &err));
    assert_int_equal(got.qty, 15);
    assert_string_equal(got.title, "Canoe");
    assert_null(got.blurb);
    assert_int_equal(got.ver_a, 2); /* shard A's version moved on once */
    /* with out: the whole item read back after the transaction (one consistent Query of its shard
     * items: the sum of their sizes, under 4 KB now, 1 RCU -- "Query": capacity is the total size
     * of the items read, rounded up to 4 KB) */
    OK(stock_restock(db, "k2", 1, "Raft", &caps, a, &got, &cap, &err));
    assert_true(cap.table_write == 4.0);
    assert_true(cap.table_read == 1.0);
    assert_int_equal(got.qty, 16);
    assert_string_equal(got.title, "Raft");
    assert_int_equal(got.ver_a, 3);
    /* an absent item is not created: the transaction is cancelled */
    assert_int_equal(stock_restock(db, "nope", 1, "x", NULL, NULL, NULL, NULL, &err), DDB_ENOTFOUND);
    assert_int_equal(stock_get(db, "nope", NULL, a, &got, &err), DDB_ENOTFOUND);
    /* the condition reads shard A (qty), the update writes shard B (title):
     * false -> nothing written, DDB_ECONDITION */
    assert_int_equal(stock_retitle_if_stocked(db, "k2", "Punt", 100, &caps, NULL, NULL, &cap, &err), DDB_ECONDITION);
    assert_string_equal(err.message, "Stock: the condition failed");
    OK(stock_get(db, "k2", NULL, a, &got, &err));
    assert_string_equal(got.title, "Raft");
    /* true: ConditionCheck of shard A (2 WCU) + UpdateItem of shard B (2 WCU) */
    OK(stock_retitle_if_stocked(db, "k2", "Punt", 16, &caps, NULL, NULL, &cap, &err));
    assert_true(cap.table_write == 4.0);
    OK(stock_get(db, "k2", NULL, a, &got, &err));
    assert_string_equal(got.title, "Punt");
    assert_int_equal(got.qty, 16);
    assert_int_equal(got.ver_a, 3); /* shard A was checked, not written */
    /* the condition on an absent item: not found */
    assert_int_equal(stock_retitle_if_stocked(db, "nope", "Punt", 0, NULL, NULL, NULL, NULL, &err), DDB_ENOTFOUND);
    /* DDB_CONDITION stocked ("qty >= :min", shard A) on an update-fields of title (shard B): the same
     * ConditionCheck of shard A in the transaction */
    snprintf(got.title, sizeof got.title, "Skiff");
    assert_int_equal(stock_update_fields_if_stocked(db, &got, DDB_FIELDS(STOCK_FN_TITLE), 17, NULL, NULL, &err),
                     DDB_ECONDITION);
    OK(stock_update_fields_if_stocked(db, &got, DDB_FIELDS(STOCK_FN_TITLE), 16, &caps, &cap, &err));
    assert_true(cap.table_write == 4.0);
    OK(stock_get(db, "k2", NULL, a, &got, &err));
    assert_string_equal(got.title, "Skiff");
    assert_int_equal(got.ver_a, 3);
    free(blurb);
    ddb_arena_free(a);
    close_db(db);
}

/* The transaction form of every declared update (<entity>_tx_<name>): all
 * or nothing with the caller's other operations ("TransactWriteItems": a
 * failed condition cancels every action, TransactionCanceledException). */
static void test_declared_in_transactions(void **state)
{
    (void)state;
    need_transactions();
    ddb *db = open_db();
    ddb_arena *a = ddb_arena_new(), *ca = ddb_arena_new();
    ddb_error err;
    ddb_capacity cap;
    new_device(db, "t1");
    struct stock s = {.sku = "k3", .qty = 4, .title = "Oar"};
    OK(stock_put(db, &s, NULL, NULL, &err));
    ddb_ent_tx *tx = ddb_ent_tx_new(db, a, &err);
    assert_non_null(tx);
    /* three declared updates of two entities (one of them two shard items) and a move of GSI1 */
    OK(stock_tx_take(tx, "k3", 3, NULL, &err));
    OK(device_tx_move(tx, "t1", "rome", "busy", NULL, &err));
    OK(device_tx_count_boot(tx, "t1", 1, NULL, &err));
    /* device t1 twice: "Transaction request cannot include multiple operations on one item" (ValidationException) */
    int rc = ddb_ent_tx_commit(tx, &caps, &cap, &err);
    assert_int_equal(rc, DDB_EVALIDATION);
    struct stock sg;
    OK(stock_get(db, "k3", NULL, a, &sg, &err));
    assert_int_equal(sg.qty, 4); /* nothing was written */
    OK(stock_tx_take(tx, "k3", 3, NULL, &err));
    OK(device_tx_move(tx, "t1", "rome", "busy", NULL, &err));
    OK(ddb_ent_tx_commit(tx, &caps, &cap, &err));
    /* 2 WCU per item (two small items); GSI1's entry moves (delete + put, 2 WCU each transactional) */
    assert_true(cap.table_write == 4.0);
    OK(stock_get(db, "k3", NULL, a, &sg, &err));
    assert_int_equal(sg.qty, 1);
    assert_int_equal(sg.ver_a, 2);
    struct device got;
    OK(device_get(db, "t1", NULL, a, &got, &err));
    assert_string_equal(got.site, "rome");
    assert_string_equal(got.label, "rome/busy");
    device_page pg;
    OK(device_GSI1(db, "rome", device_GSI1_all(), NULL, a, &pg, &err));
    assert_int_equal(pg.count, 1);
    /* the declared condition fails (qty 1 >= 3 is false): all cancelled, the item it failed on returned */
    struct stock cur;
    bool found = false;
    ddb_ent_tx_cond tc = {.current = &cur, .current_found = &found, .current_arena = ca};
    OK(stock_tx_take(tx, "k3", 3, &tc, &err));
    OK(device_tx_charge(tx, "t1", 5, 6, NULL, &err));
    assert_int_equal(ddb_ent_tx_commit(tx, NULL, NULL, &err), DDB_ECANCELED);
    assert_non_null(strstr(err.message, "operation 1 (Stock) condition failed"));
    assert_true(found);
    assert_int_equal(cur.qty, 1);
    OK(device_get(db, "t1", NULL, a, &got, &err));
    assert_int_equal(got.battery, 50); /* the charge was cancelled with it */
    /* a caller's condition is ANDed with the declared one (and binds its own placeholders) */
    ddb_item *vals = ddb_item_new(a), *nms = ddb_item_new(a);
    assert_int_equal(ddb_item_set_s(nms, "#t", "title"), 0);
    assert_int_equal(ddb_item_set_s(vals, ":title", "Paddle"), 0);
    ddb_ent_expr mine = {.text = "#t = :title", .names = nms, .values = vals, .shard = 1};
    ddb_ent_tx_cond mc = {.condition = &mine};
    OK(stock_tx_retitle_if_stocked(tx, "k3", "Blade", 1, &mc, &err));
    assert_int_equal(ddb_ent_tx_commit(tx, NULL, NULL, &err), DDB_ECANCELED); /* the title is "Oar" */
    assert_int_equal(ddb_item_set_s(vals, ":title", "Oar"), 0);
    OK(stock_tx_retitle_if_stocked(tx, "k3", "Blade", 1, &mc, &err));
    OK(ddb_ent_tx_commit(tx, NULL, NULL, &err));
    OK(stock_get(db, "k3", NULL, a, &sg, &err));
    assert_string_equal(sg.title, "Blade");
    ddb_arena_free(ca);
    ddb_arena_free(a);
    close_db(db);
}

/* create / put / patch / upsert (docs/SCHEMA.md, "Whole-item writes"):
 * patch is an UpdateItem conditional on attribute_exists (DynamoDB API
 * Reference, UpdateItem: "Edits an existing item's attributes, or adds a
 * new item to the table if it does not already exist" -- hence the
 * condition), upsert the same UpdateItem without it, keeping created-at
 * with if_not_exists ("Update expressions", "Preventing overwrites of an
 * existing attribute"); REMOVE drops an attribute. */
static void test_patch_upsert(void **state)
{
    (void)state;
    ddb *db = open_db();
    ddb_arena *a = ddb_arena_new();
    ddb_error err;
    ddb_capacity cap;
    struct device got;
    now_ms = 1764169445123;
    /* patch of an absent item: not found, nothing created */
    struct device p = {.id = "p1", .site = "oslo", .status = "idle", .battery = 9};
    assert_int_equal(device_patch(db, &p, NULL, NULL, &err), DDB_ENOTFOUND);
    assert_string_equal(err.message, "Device not found");
    assert_int_equal(device_get(db, "p1", NULL, a, &got, &err), DDB_ENOTFOUND);
    /* upsert of an absent item (version 0): created, with its default and created-at */
    struct device u = {.id = "u1", .site = "oslo", .status = "idle", .note = "n"};
    OK(device_upsert(db, &u, &caps, &cap, &err));
    assert_true(cap.table_write == 1.0);
    OK(device_get(db, "u1", NULL, a, &got, &err));
    assert_int_equal(got.battery, 100); /* DDB_DEFAULT("100") */
    assert_int_equal(got.rev, 1);
    assert_string_equal(got.label, "oslo/idle");
    assert_string_equal(got.note, "n");
    if (!remote())
        assert_int_equal(got.created_ms, 1764169445123);
    int64_t created = got.created_ms;
    /* upsert again (version 1): updates what obj sets, keeps created-at and the unset note */
    now_ms += 5000;
    struct device u2 = {.id = "u1", .site = "rome", .status = "busy", .battery = 7, .rev = 1, .created_ms = 42};
    OK(device_upsert(db, &u2, NULL, NULL, &err));
    assert_int_equal(u2.rev, 2);
    OK(device_get(db, "u1", NULL, a, &got, &err));
    assert_int_equal(got.battery, 7);
    assert_string_equal(got.label, "rome/busy");
    assert_string_equal(got.note, "n"); /* upsert removes nothing */
    assert_int_equal(got.created_ms, created);
    device_page pg;
    OK(device_GSI1(db, "rome", device_GSI1_all(), NULL, a, &pg, &err));
    assert_int_equal(pg.count, 1);
    /* a stale version: refused (put's optimistic lock) */
    u2.rev = 1;
    assert_int_equal(device_upsert(db, &u2, NULL, NULL, &err), DDB_ECONDITION);
    /* patch: every writable field, unset optional ones removed, created-at kept */
    OK(device_get(db, "u1", NULL, a, &got, &err));
    got.note = NULL;
    got.battery = 3;
    got.created_ms = 1;
    OK(device_patch(db, &got, &caps, &cap, &err));
    assert_true(cap.table_write == 1.0);
    assert_int_equal(got.rev, 3);
    OK(device_get(db, "u1", NULL, a, &got, &err));
    assert_int_equal(got.battery, 3);
    assert_null(got.note);
    assert_int_equal(got.created_ms, created);
    if (!remote())
        assert_string_equal(got.updated, "2025-11-26T15:04:10.123Z");
    got.rev = 1;
    assert_int_equal(device_patch(db, &got, NULL, NULL, &err), DDB_ECONDITION);
    assert_string_equal(err.message, "Device: stored version is not 1 (changed by another writer)");
    ddb_arena_free(a);
    close_db(db);
}

/* An entity with a key on a local secondary index, whose partition key is
 * the table's: rewrites send the index's sort key only (DynamoDB API
 * Reference, UpdateItem: a key attribute cannot be updated -- "Cannot update
 * attribute PK. This attribute is part of the key"). */
static void test_lsi_rewrites(void **state)
{
    (void)state;
    ddb *db = open_db();
    ddb_arena *a = ddb_arena_new();
    ddb_error err;
    struct visit v = {.site = "oslo", .id = "v1", .day = "2026-01-05", .note = "first"}, got;
    OK(visit_create(db, &v, NULL, NULL, &err));
    OK(visit_put(db, &v, NULL, NULL, &err)); /* created-at kept: an UpdateItem */
    OK(visit_put(db, &v, NULL, NULL, &err));
    snprintf(v.note, sizeof v.note, "second");
    OK(visit_update(db, &v, NULL, NULL, &err));
    OK(visit_patch(db, &v, NULL, NULL, &err));
    snprintf(v.day, sizeof v.day, "2026-01-07");
    OK(visit_upsert(db, &v, NULL, NULL, &err));
    visit_page pg;
    OK(visit_ByDay(db, "oslo", visit_ByDay_all(), NULL, a, &pg, &err));
    assert_int_equal(pg.count, 1);
    assert_string_equal(pg.items[0].day, "2026-01-07");
    /* the declared update recomputes the LSI's sort key */
    OK(visit_reschedule(db, "oslo", "v1", "2026-01-09", NULL, a, &got, NULL, &err));
    assert_string_equal(got.day, "2026-01-09");
    assert_string_equal(got.note, "second");
    OK(visit_ByDay(db, "oslo", visit_ByDay_all(), NULL, a, &pg, &err));
    assert_int_equal(pg.count, 1);
    assert_string_equal(pg.items[0].day, "2026-01-09");
    ddb_arena_free(a);
    close_db(db);
}

/* The transaction forms of patch and upsert: all or nothing. */
static void test_patch_upsert_in_transactions(void **state)
{
    (void)state;
    need_transactions();
    ddb *db = open_db();
    ddb_arena *a = ddb_arena_new();
    ddb_error err;
    struct device got;
    new_device(db, "x1");
    OK(device_get(db, "x1", NULL, a, &got, &err));
    got.battery = 11;
    struct device n = {.id = "x2", .site = "kyiv", .status = "idle"};
    struct device absent = {.id = "x3", .site = "kyiv", .status = "idle"};
    ddb_ent_tx *tx = ddb_ent_tx_new(db, a, &err);
    assert_non_null(tx);
    OK(device_tx_patch(tx, &got, NULL, &err));
    OK(device_tx_upsert(tx, &n, NULL, &err));
    OK(device_tx_patch(tx, &absent, NULL, &err)); /* x3 does not exist: all cancelled */
    assert_int_equal(ddb_ent_tx_commit(tx, NULL, NULL, &err), DDB_ECANCELED);
    assert_int_equal(device_get(db, "x2", NULL, a, &n, &err), DDB_ENOTFOUND);
    OK(device_tx_patch(tx, &got, NULL, &err));
    OK(device_tx_upsert(tx, &n, NULL, &err));
    OK(ddb_ent_tx_commit(tx, NULL, NULL, &err));
    OK(device_get(db, "x1", NULL, a, &got, &err));
    assert_int_equal(got.battery, 11);
    assert_int_equal(got.rev, 2);
    /* update-fields in a transaction: only the masked field (and the stamp, the version) */
    got.battery = 12;
    snprintf(got.site, sizeof got.site, "lviv"); /* not in the mask: not written */
    OK(device_tx_update_fields(tx, &got, DDB_FIELDS(DEVICE_FN_BATTERY), NULL, &err));
    OK(ddb_ent_tx_commit(tx, NULL, NULL, &err));
    OK(device_get(db, "x1", NULL, a, &got, &err));
    assert_int_equal(got.battery, 12);
    assert_string_equal(got.site, "berlin");
    assert_int_equal(got.rev, 3);
    OK(device_get(db, "x2", NULL, a, &got, &err));
    assert_int_equal(got.battery, 100);
    assert_int_equal(got.rev, 1);
    ddb_arena_free(a);
    close_db(db);
}

static void test_defaults_and_stamps(void **state)
{
    (void)state;
    /* both backends: a remote handle's ddb_clock_ms is ddb_options.clock_ms too */
    ddb *db = open_db();
    now_ms = 1764169445123;
    assert_int_equal(ddb_clock_ms(db), 1764169445123);
    ddb_arena *a = ddb_arena_new();
    ddb_error err;
    struct device d = {.id = "d4", .site = "oslo", .status = "idle"};
    now_ms = 1764169445123;
    OK(device_create(db, &d, NULL, NULL, &err));
    assert_int_equal(d.battery, 100);                           /* DDB_DEFAULT("100"): left unset */
    assert_int_equal(d.created_ms, 1764169445123);              /* DDB_CREATED_AT: epoch ms */
    assert_string_equal(d.updated, "2025-11-26T15:04:05.123Z"); /* DDB_UPDATED_AT: ISO-8601 in char[25] */
    struct device got;
    OK(device_get(db, "d4", NULL, a, &got, &err));
    assert_int_equal(got.battery, 100);
    assert_int_equal(got.created_ms, 1764169445123);
    /* a value that is set is kept: the default applies to unset fields only */
    struct device e = {.id = "d5", .site = "oslo", .status = "idle", .battery = 7};
    OK(device_create(db, &e, NULL, NULL, &err));
    assert_int_equal(e.battery, 7);
    /* a declared update stamps updated, never created */
    now_ms = 1764169505999;
    OK(device_charge(db, "d4", 80, 5, NULL, a, &got, NULL, &err));
    assert_string_equal(got.updated, "2025-11-26T15:05:05.999Z");
    assert_int_equal(got.created_ms, 1764169445123);
    /* update_fields writes the stamp with the fields named */
    now_ms += 1000;
    got.note = "checked";
    OK(device_update_fields(db, &got, device_mask(DEVICE_F_NOTE), NULL, NULL, &err));
    OK(device_get(db, "d4", NULL, a, &got, &err));
    assert_string_equal(got.note, "checked");
    assert_string_equal(got.updated, "2025-11-26T15:05:06.999Z");
    assert_int_equal(got.created_ms, 1764169445123);
    /* a full update writes every field but created */
    now_ms += 1000;
    got.created_ms = 42;
    got.battery = 55;
    OK(device_update(db, &got, NULL, NULL, &err));
    OK(device_get(db, "d4", NULL, a, &got, &err));
    assert_int_equal(got.battery, 55);
    assert_int_equal(got.created_ms, 1764169445123);
    assert_string_equal(got.updated, "2025-11-26T15:05:07.999Z");
    ddb_arena_free(a);
    close_db(db);
}

static void test_unique(void **state)
{
    (void)state;
    need_transactions();
    ddb *db = open_db();
    ddb_error err;
    struct owner a = {.id = "o1", .email = "ann@example.com"}, b = {.id = "o2", .email = "ann@example.com"};
    OK(owner_create(db, &a, NULL, NULL, &err));
    /* DDB_UNIQUE: a second item with the same email is refused, naming the field and the value */
    assert_int_equal(owner_create(db, &b, NULL, NULL, &err), DDB_ECONDITION);
    assert_non_null(strstr(err.message, "email"));
    assert_non_null(strstr(err.message, "ann@example.com"));
    snprintf(b.email, sizeof b.email, "bob@example.com");
    OK(owner_create(db, &b, NULL, NULL, &err));
    /* once o1 is gone, its email is free again */
    OK(owner_delete(db, "o1", NULL, NULL, &err));
    snprintf(a.id, sizeof a.id, "o3");
    snprintf(a.email, sizeof a.email, "ann@example.com");
    OK(owner_create(db, &a, NULL, NULL, &err));
    close_db(db);
}

/* DDB_CONDITION idle ("battery < :max AND attribute_not_exists(note)"):
 * the conditional variants of put, update-fields and delete, and in a
 * transaction.  A failed ConditionExpression writes nothing and is
 * ConditionalCheckFailedException; with ReturnValuesOnConditionCheckFailure
 * ALL_OLD the item as stored comes back (DynamoDB API Reference, PutItem /
 * UpdateItem / DeleteItem: ReturnValuesOnConditionCheckFailure); in
 * TransactWriteItems a failed condition cancels every operation
 * (TransactionCanceledException, "TransactWriteItems"). */
static void test_conditions(void **state)
{
    (void)state;
    ddb *db = open_db();
    ddb_arena *a = ddb_arena_new(), *ca = ddb_arena_new();
    ddb_error err;
    struct device d, cur;
    bool found = false;
    ddb_ent_opts o = {.current = &cur, .current_found = &found, .current_arena = ca};
    new_device(db, "d1"); /* battery 50, rev 1, no note */
    OK(device_get(db, "d1", NULL, a, &d, &err));
    d.battery = 40;
    /* put: 50 < 45 is false */
    assert_int_equal(device_put_if_idle(db, &d, 45, &o, NULL, &err), DDB_ECONDITION);
    if (!remote() || remote_has_transactions()) { /* ReturnValuesOnConditionCheckFailure: dynalite has
                      * none (without the stored item the runtime cannot tell which part failed) */
        assert_string_equal(err.message, "Device: the condition failed");
        assert_true(found);
        assert_int_equal(cur.battery, 50);
        assert_int_equal(cur.rev, 1);
        assert_string_equal(cur.site, "berlin");
        assert_null(cur.note);
    }
    struct device got;
    OK(device_get(db, "d1", NULL, a, &got, &err));
    assert_int_equal(got.battery, 50);
    /* 50 < 60: written, the version moved on */
    OK(device_put_if_idle(db, &d, 60, NULL, NULL, &err));
    OK(device_get(db, "d1", NULL, a, &got, &err));
    assert_int_equal(got.battery, 40);
    assert_int_equal(got.rev, 2);
    /* update-fields: 40 < 30 is false; 40 < 50 is true */
    got.battery = 10;
    assert_int_equal(device_update_fields_if_idle(db, &got, DDB_FIELDS(DEVICE_FN_BATTERY), 30, NULL, NULL, &err),
                     DDB_ECONDITION);
    OK(device_update_fields_if_idle(db, &got, DDB_FIELDS(DEVICE_FN_BATTERY), 50, NULL, NULL, &err));
    OK(device_get(db, "d1", NULL, a, &got, &err));
    assert_int_equal(got.battery, 10);
    /* a note makes attribute_not_exists(note) false: delete refused, item returned */
    OK(device_first_note(db, "d1", "busy", NULL, NULL, NULL, NULL, &err));
    found = false;
    assert_int_equal(device_delete_if_idle(db, "d1", 100, &o, NULL, &err), DDB_ECONDITION);
    if (!remote() || remote_has_transactions()) {
        assert_true(found);
        assert_string_equal(cur.note, "busy");
        assert_int_equal(cur.battery, 10);
    }
    OK(device_get(db, "d1", NULL, a, &got, &err));
    OK(device_forget(db, "d1", NULL, NULL, NULL, NULL, &err));
    OK(device_delete_if_idle(db, "d1", 100, NULL, NULL, &err));
    assert_int_equal(device_get(db, "d1", NULL, a, &got, &err), DDB_ENOTFOUND);
    /* the caller's own condition is ANDed with the declared one */
    new_device(db, "d5");
    ddb_item *vals = ddb_item_new(a);
    assert_int_equal(ddb_item_set_s(vals, ":site", "paris"), 0);
    ddb_item *nms = ddb_item_new(a);
    assert_int_equal(ddb_item_set_s(nms, "#s", "site"), 0);
    ddb_ent_expr mine = {.text = "#s = :site", .names = nms, .values = vals};
    ddb_ent_opts om = {.condition = &mine};
    assert_int_equal(device_delete_if_idle(db, "d5", 100, &om, NULL, &err), DDB_ECONDITION);
    OK(device_get(db, "d5", NULL, a, &got, &err));
    assert_int_equal(ddb_item_set_s(vals, ":site", "berlin"), 0);
    OK(device_delete_if_idle(db, "d5", 100, &om, NULL, &err));
    assert_int_equal(device_get(db, "d5", NULL, a, &got, &err), DDB_ENOTFOUND);
    if (remote() && !remote_has_transactions()) { /* dynalite has no TransactWriteItems */
        ddb_arena_free(ca);
        ddb_arena_free(a);
        close_db(db);
        return;
    }
    /* transactions: the check of d2 fails (50 < 10 is false), so d3 stays */
    new_device(db, "d2");
    new_device(db, "d3");
    new_device(db, "d4");
    ddb_ent_tx *tx = ddb_ent_tx_new(db, a, &err);
    assert_non_null(tx);
    found = false;
    ddb_ent_tx_cond tc = {.current = &cur, .current_found = &found, .current_arena = ca};
    OK(device_tx_check_idle(tx, "d2", 10, &tc, &err));
    OK(device_tx_delete_if_idle(tx, "d3", 100, NULL, &err));
    assert_int_equal(ddb_ent_tx_commit(tx, NULL, NULL, &err), DDB_ECANCELED);
    assert_true(found);
    assert_string_equal(cur.id, "d2");
    assert_int_equal(cur.battery, 50);
    OK(device_get(db, "d3", NULL, a, &got, &err));
    /* all three hold: d3 deleted, d4 replaced */
    OK(device_get(db, "d4", NULL, a, &d, &err));
    d.battery = 77;
    OK(device_tx_check_idle(tx, "d2", 100, NULL, &err));
    OK(device_tx_delete_if_idle(tx, "d3", 100, NULL, &err));
    OK(device_tx_put_if_idle(tx, &d, 100, NULL, &err));
    OK(ddb_ent_tx_commit(tx, NULL, NULL, &err));
    assert_int_equal(device_get(db, "d3", NULL, a, &got, &err), DDB_ENOTFOUND);
    OK(device_get(db, "d4", NULL, a, &got, &err));
    assert_int_equal(got.battery, 77);
    assert_int_equal(got.rev, 2);
    ddb_arena_free(ca);
    ddb_arena_free(a);
    close_db(db);
}

/* Batch deletes and the table's mixed batch: BatchWriteItem, 25 requests a
 * call (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchWriteItem.html:
 * "up to 25 item put or delete operations"), no condition checked.  The
 * typed forms exist only for entities the runtime batches (Owner has a
 * unique field: no owner_batch_delete, no fleet_batch_put_owner). */
static void test_batches(void **state)
{
    (void)state;
    ddb *db = open_db();
    ddb_arena *a = ddb_arena_new();
    ddb_error err;
    ddb_capacity cap;
    struct memo m, keys[30], out[30];
    bool found[30];
    struct device dk[2];
    memset(keys, 0, sizeof keys);
    memset(dk, 0, sizeof dk);
    new_device(db, "b1");
    new_device(db, "b2");
    new_device(db, "b3");
    /* 30 memos and two device deletes in one mixed batch: two requests */
    fleet_batch *b = fleet_batch_new(db, a, &err);
    assert_non_null(b);
    for (int i = 0; i < 30; i++) {
        memset(&m, 0, sizeof m);
        snprintf(m.id, sizeof m.id, "m%02d", i);
        snprintf(m.text, sizeof m.text, "memo %d", i);
        OK(fleet_batch_put_memo(b, &m, &err));
        snprintf(keys[i].id, sizeof keys[i].id, "m%02d", i);
    }
    snprintf(dk[0].id, sizeof dk[0].id, "b1");
    snprintf(dk[1].id, sizeof dk[1].id, "b2");
    OK(fleet_batch_delete_device(b, &dk[0], &err));
    OK(fleet_batch_delete_device(b, &dk[1], &err));
    memset(&cap, 0, sizeof cap);
    OK(fleet_batch_run(b, &caps, &cap, &err));
    assert_true(cap.table_write >= 32.0); /* 30 puts + 2 deletes, 1 WCU each at least */
    struct device got;
    assert_int_equal(device_get(db, "b1", NULL, a, &got, &err), DDB_ENOTFOUND);
    assert_int_equal(device_get(db, "b2", NULL, a, &got, &err), DDB_ENOTFOUND);
    OK(device_get(db, "b3", NULL, a, &got, &err));
    OK(memo_batch_get(db, keys, 30, NULL, a, out, NULL, found, &err));
    for (int i = 0; i < 30; i++) {
        char want[32];
        snprintf(want, sizeof want, "memo %d", i);
        assert_true(found[i]);
        assert_string_equal(out[i].text, want);
    }
    /* the batch is empty after a run: running it again writes nothing */
    OK(fleet_batch_run(b, NULL, NULL, &err));
    /* <entity>_batch_delete: 27 of the memos (two requests), then the device b3 */
    OK(memo_batch_delete(db, keys, 27, NULL, NULL, &err));
    OK(memo_batch_get(db, keys, 30, NULL, a, out, NULL, found, &err));
    for (int i = 0; i < 30; i++)
        assert_int_equal(found[i], i >= 27);
    snprintf(dk[0].id, sizeof dk[0].id, "b3");
    OK(device_batch_delete(db, dk, 1, NULL, NULL, &err));
    assert_int_equal(device_get(db, "b3", NULL, a, &got, &err), DDB_ENOTFOUND);
    /* a sharded entity: every shard item goes */
    if (!remote() || remote_has_transactions()) {
        free(new_stock(db, "bk"));
        ddb_query_params q = {.table = "Fleet", .pk = ddb_v_str(a, "ITEM#bk"), .consistent = true};
        ddb_page pg;
        OK(ddb_query(db, &q, a, &pg, &err));
        assert_true(pg.count >= 2); /* the stock shard and the 20 KB title shard */
        struct stock sk;
        memset(&sk, 0, sizeof sk);
        snprintf(sk.sku, sizeof sk.sku, "bk");
        OK(stock_batch_delete(db, &sk, 1, NULL, NULL, &err));
        OK(ddb_query(db, &q, a, &pg, &err));
        assert_int_equal(pg.count, 0);
    }
    ddb_arena_free(a);
    close_db(db);
}

/* update / patch / tx_update_fields / tx_patch guarded by a declared
 * condition: the UpdateItem's ConditionExpression is the declared one ANDed
 * with the operation's own (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.ConditionExpressions.html). */
static void test_update_conditions(void **state)
{
    (void)state;
    ddb *db = open_db();
    ddb_arena *a = ddb_arena_new();
    ddb_error err;
    struct device d, got;
    new_device(db, "u1"); /* battery 50, rev 1, no note */
    OK(device_get(db, "u1", NULL, a, &d, &err));
    d.battery = 30;
    snprintf(d.status, sizeof d.status, "busy");
    /* update: 50 < 40 is false */
    assert_int_equal(device_update_if_idle(db, &d, 40, NULL, NULL, &err), DDB_ECONDITION);
    OK(device_get(db, "u1", NULL, a, &got, &err));
    assert_int_equal(got.battery, 50);
    assert_string_equal(got.status, "idle");
    OK(device_update_if_idle(db, &d, 60, NULL, NULL, &err));
    OK(device_get(db, "u1", NULL, a, &got, &err));
    assert_int_equal(got.battery, 30);
    assert_string_equal(got.status, "busy");
    assert_int_equal(got.rev, 2);
    /* patch: 30 < 20 is false; 30 < 31 holds */
    got.battery = 25;
    assert_int_equal(device_patch_if_idle(db, &got, 20, NULL, NULL, &err), DDB_ECONDITION);
    OK(device_patch_if_idle(db, &got, 31, NULL, NULL, &err));
    OK(device_get(db, "u1", NULL, a, &got, &err));
    assert_int_equal(got.battery, 25);
    if (remote() && !remote_has_transactions()) { /* dynalite has no TransactWriteItems */
        ddb_arena_free(a);
        close_db(db);
        return;
    }
    ddb_ent_tx *tx = ddb_ent_tx_new(db, a, &err);
    assert_non_null(tx);
    /* update-fields in a transaction: 25 < 25 is false, nothing written */
    got.battery = 5;
    OK(device_tx_update_fields_if_idle(tx, &got, DDB_FIELDS(DEVICE_FN_BATTERY), 25, NULL, &err));
    assert_int_equal(ddb_ent_tx_commit(tx, NULL, NULL, &err), DDB_ECANCELED);
    OK(device_get(db, "u1", NULL, a, &d, &err));
    assert_int_equal(d.battery, 25);
    OK(device_tx_update_fields_if_idle(tx, &got, DDB_FIELDS(DEVICE_FN_BATTERY), 26, NULL, &err));
    OK(ddb_ent_tx_commit(tx, NULL, NULL, &err));
    OK(device_get(db, "u1", NULL, a, &d, &err));
    assert_int_equal(d.battery, 5);
    /* patch in a transaction: 5 < 5 false; 5 < 6 holds */
    d.battery = 4;
    OK(device_tx_patch_if_idle(tx, &d, 5, NULL, &err));
    assert_int_equal(ddb_ent_tx_commit(tx, NULL, NULL, &err), DDB_ECANCELED);
    OK(device_get(db, "u1", NULL, a, &got, &err));
    assert_int_equal(got.battery, 5);
    got.battery = 4;
    OK(device_tx_patch_if_idle(tx, &got, 6, NULL, &err));
    OK(ddb_ent_tx_commit(tx, NULL, NULL, &err));
    OK(device_get(db, "u1", NULL, a, &got, &err));
    assert_int_equal(got.battery, 4);
    ddb_arena_free(a);
    close_db(db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unique),
        cmocka_unit_test(test_defaults_and_stamps),
        cmocka_unit_test(test_set_and_arithmetic),
        cmocka_unit_test(test_sets_lists_remove),
        cmocka_unit_test(test_recomputed_keys),
        cmocka_unit_test(test_sparse_index_remove),
        cmocka_unit_test(test_sharded),
        cmocka_unit_test(test_sharded_multi),
        cmocka_unit_test(test_declared_in_transactions),
        cmocka_unit_test(test_patch_upsert),
        cmocka_unit_test(test_patch_upsert_in_transactions),
        cmocka_unit_test(test_lsi_rewrites),
        cmocka_unit_test(test_conditions),
        cmocka_unit_test(test_batches),
        cmocka_unit_test(test_update_conditions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
