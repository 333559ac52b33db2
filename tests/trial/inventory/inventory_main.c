/* inventory_main.c — a user's program on the module ddbgen generates from
 * schemas/inventory.h (a warehouse): a SKU split into a fast shard (stock,
 * reservations, price, its version) and a slow one (title, description,
 * warehouse index key), declared updates touching one shard, declared
 * conditions, stock movements on a write-sharded day index, notes with read
 * receipts, the sku_feed collection merging shard items across pages, and
 * the capacity each write costs.  Embedded engine and remote backend.
 *
 * usage: inventory_main [URI]   (file:DIR or http://HOST:PORT; default $DDB_TEST_URI);
 * exit 0 = every check held. */
#include "inventory_ddb.h"

#include "../trial_check.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static bool remote;

static void skus(ddb *db, ddb_arena *a)
{
    ddb_error err = {0};
    const char *cats[] = {"cables", "chargers", "cases", "mice"};
    for (int i = 0; i < 4; i++) {
        struct sku s = {.warehouse = "PAR1", .on_hand = 10 * (i + 1), .price_cents = 500 + i,
                        .dims = {.w_cm = 1.5, .h_cm = 2.25, .d_cm = 0.1}};
        snprintf(s.sku, sizeof s.sku, "S%03d", i);
        snprintf(s.category, sizeof s.category, "%s", cats[i]);
        snprintf(s.title, sizeof s.title, "Item %d", i);
        if (i % 2 == 0)
            s.description = "with a description";
        OK(sku_create(db, &s, NULL, NULL, &err));
        CHECK(s.version == 1, "version after create: %u", (unsigned)s.version);
    }
    struct sku s;
    OK(sku_get(db, "S000", NULL, a, &s, &err));
    CHECK(s.on_hand == 10 && strcmp(s.title, "Item 0") == 0 && s.description && s.dims.h_cm == 2.25 &&
              s.version == 1,
          "the shards merged: %d %s v%u", s.on_hand, s.title, (unsigned)s.version);

    /* a declared update on shard A writes one small item: 1 WCU, version bumped */
    ddb_capacity cap;
    ddb_ent_opts tot = {.return_capacity = DDB_CAPACITY_TOTAL};
    struct sku after;
    OK(sku_restock(db, "S000", 5, &tot, a, &after, &cap, &err));
    CHECK(after.on_hand == 15 && after.version == 2, "restock: %d v%u", after.on_hand, (unsigned)after.version);
    CHECK(cap.write == 1.0, "restock costs one shard item: %g WCU", cap.write);
    /* on shard B: the version (on A) is neither checked nor bumped */
    char title[] = "Item zero";
    OK(sku_retitle(db, "S000", title, &tot, a, &after, &cap, &err));
    /* `after` is the whole entity, both shards (trial finding T7) */
    CHECK(strcmp(after.title, "Item zero") == 0 && after.version == 2 && after.on_hand == 15, "retitle %s v%u %d",
          after.title, (unsigned)after.version, after.on_hand);
    OK(sku_get(db, "S000", NULL, a, &s, &err));
    CHECK(s.version == 2 && strcmp(s.title, "Item zero") == 0, "retitle left the version: v%u", (unsigned)s.version);
    CHECK(cap.write >= 1.0, "retitle wrote shard B (and its GSI1 entry): %g WCU", cap.write);

    /* a declared update's condition, with the stored item returned */
    /* the stored item with the failure (the shard item the condition read) */
    struct sku cur;
    bool found = false;
    ddb_ent_opts co = {.current = &cur, .current_found = &found, .current_arena = a};
    RC(DDB_ECONDITION, sku_reserve(db, "S000", 100, &co, a, &after, NULL, &err));
    CHECK(found && cur.on_hand == 15 && cur.version == 2, "current on_hand %d v%u", cur.on_hand, (unsigned)cur.version);
    OK(sku_reserve(db, "S000", 4, NULL, a, &after, NULL, &err));
    CHECK(after.on_hand == 11 && after.reserved == 4 && after.version == 3, "reserve: %d/%d v%u", after.on_hand,
          after.reserved, (unsigned)after.version);
    RC(DDB_ENOTFOUND, sku_restock(db, "NOPE", 1, NULL, a, NULL, NULL, &err));

    /* update-fields of one shard: costs that shard only */
    OK(sku_get(db, "S001", NULL, a, &s, &err));
    s.price_cents = 999;
    OK(sku_update_fields(db, &s, sku_mask(SKU_F_PRICE_CENTS), &tot, &cap, &err));
    CHECK(cap.write == 1.0, "price update: %g WCU", cap.write);
    CHECK(s.version == 2, "version bumped by a shard-A update: %u", (unsigned)s.version);
    /* a stale version */
    s.version = 1;
    s.on_hand = 0;
    RC(DDB_ECONDITION, sku_update_fields(db, &s, sku_mask(SKU_F_ON_HAND), NULL, NULL, &err));
    CHECK(strstr(err.message, "stored version is not 1") != NULL, "message: %s", err.message);

    /* declared conditions */
    OK(sku_get(db, "S002", NULL, a, &s, &err));
    s.on_hand = 0;
    RC(DDB_ECONDITION, sku_update_fields_if_in_stock(db, &s, sku_mask(SKU_F_ON_HAND), 100, NULL, NULL, &err));
    OK(sku_update_fields_if_in_stock(db, &s, sku_mask(SKU_F_ON_HAND), 5, NULL, NULL, &err));
    found = false;
    /* on_hand 0 > 0 is false; the shard item the condition read comes back */
    RC(DDB_ECONDITION, sku_delete_if_in_stock(db, "S002", 0, &co, NULL, &err));
    CHECK(found && cur.on_hand == 0 && strcmp(cur.sku, "S002") == 0, "current of the condition's shard");
    OK(sku_get(db, "S002", NULL, a, &s, &err));

    /* access patterns on GSI1 (shard B holds the index key) */
    sku_page p;
    OK(sku_in_warehouse(db, "PAR1", sku_in_warehouse_all(), NULL, a, &p, &err));
    CHECK(p.count == 4, "in_warehouse: %zu", p.count);
    if (p.count == 4)
        CHECK(strcmp(p.items[0].category, "cables") == 0 && strcmp(p.items[3].category, "mice") == 0 &&
                  p.items[0].on_hand == 11,
              "sorted by category, shards completed: %s %d", p.items[0].category, p.items[0].on_hand);
    OK(sku_in_warehouse(db, "PAR1", sku_in_warehouse_category(DDB_ENT_SK_BEGINS, "ca"), NULL, a, &p, &err));
    CHECK(p.count == 2, "category begins with ca: %zu", p.count);
    OK(sku_cat_range(db, "PAR1", "cases", "chargers", NULL, a, &p, &err));
    CHECK(p.count == 2, "cases..chargers: %zu", p.count);
    OK(sku_by_prefix(db, "PAR1", "c", NULL, a, &p, &err));
    CHECK(p.count == 2, "c* with a description: %zu", p.count);
    ddb_ent_read_opts pg = {.page_size = 3};
    OK(sku_in_warehouse(db, "PAR1", sku_in_warehouse_all(), &pg, a, &p, &err));
    CHECK(p.count == 3 && p.cursor, "page of 3");
    pg.cursor = p.cursor;
    OK(sku_in_warehouse(db, "PAR1", sku_in_warehouse_all(), &pg, a, &p, &err));
    CHECK(p.count == 1 && !p.cursor, "last page: %zu", p.count);

    /* batches: a versioned entity cannot be batch-put (the module has no sku_batch_put; the
     * runtime refuses its descriptor); batch get merges shards */
    struct sku two[1] = {{.sku = "S900", .warehouse = "PAR1", .category = "x", .title = "t"}};
    int rc = ddb_ent_batch_put(db, &sku_entity, two, 1, NULL, NULL, &err);
    CHECK(rc != 0, "batch put of a versioned entity is refused");
    struct sku keys[3] = {{.sku = "S001"}, {.sku = "S404"}, {.sku = "S003"}};
    struct sku out[3];
    bool got[3];
    OK(sku_batch_get(db, keys, 3, NULL, a, out, NULL, got, &err));
    CHECK(got[0] && !got[1] && got[2] && out[0].price_cents == 999 && strcmp(out[2].title, "Item 3") == 0,
          "batch get");
}

static void movements(ddb *db, ddb_arena *a)
{
    ddb_error err = {0};
    double readings[] = {0.5, 1.25, -3};
    for (int i = 0; i < 20; i++) {
        struct movement m = {.delta = i % 2 ? -1 : 2, .reason = "pick", .expires = 4102444800};
        snprintf(m.sku, sizeof m.sku, "S%03d", i % 4);
        snprintf(m.at, sizeof m.at, "2025-11-26T%02d:%02d:00Z", 8 + i / 6, (i * 7) % 60);
        if (i == 3) {
            m.readings = readings;
            m.readings_count = 3;
        }
        OK(movement_create(db, &m, NULL, NULL, &err));
    }
    struct movement old = {.sku = "S000", .at = "2025-11-25T23:00:00Z", .delta = 1, .reason = "old",
                           .expires = 1764028800};
    OK(movement_create(db, &old, NULL, NULL, &err));
    struct movement g;
    RC(DDB_ENOTFOUND, movement_get(db, "S000", "2025-11-25T23:00:00Z", NULL, a, &g, &err));

    /* the day's movements, gathered from the 4 write shards in time order */
    movement_page p;
    ddb_ent_read_opts o = {.page_size = 7};
    size_t n = 0, pages = 0;
    char last[25] = "";
    bool ordered = true;
    do {
        OK(movement_on_day(db, "2025-11-26T00:00:00Z", movement_on_day_all(), &o, a, &p, &err));
        for (size_t i = 0; i < p.count; i++) {
            ordered &= strcmp(last, p.items[i].at) <= 0;
            snprintf(last, sizeof last, "%s", p.items[i].at);
            if (p.items[i].readings_count)
                CHECK(p.items[i].readings_count == 3 && p.items[i].readings[1] == 1.25, "list of doubles");
        }
        n += p.count;
        o.cursor = p.cursor;
    } while (p.cursor && ++pages < 20);
    CHECK(n == 20 && ordered, "on_day: %zu, ordered %d", n, ordered);
    ddb_ent_read_opts back = {.backward = true, .page_size = 2};
    OK(movement_on_day(db, "2025-11-26T00:00:00Z", movement_on_day_all(), &back, a, &p, &err));
    CHECK(p.count == 2 && strcmp(p.items[0].at, p.items[1].at) >= 0, "backward");
    ddb_ent_read_opts cnt = {.count_only = true};
    OK(movement_on_day(db, "2025-11-26T00:00:00Z", movement_on_day_at(DDB_ENT_SK_LT, "2025-11-26T09"), &cnt,
                       a, &p, &err));
    CHECK(p.count == 6, "before 09:00: %zu", p.count);
    OK(movement_table(db, "S001", movement_table_at(DDB_ENT_SK_BEGINS, "2025-11-26T1"), NULL, a, &p, &err));
    CHECK(p.count == 2, "S001 after 10:00: %zu", p.count);
}

static void notes_and_feed(ddb *db, ddb_arena *a)
{
    ddb_error err = {0};
    int64_t readers[] = {7, 3, 11};
    for (int i = 0; i < 5; i++) {
        struct note nt = {.sku = "S000", .posted_ms = 1764165845000 + i, .author = "ann"};
        snprintf(nt.body, sizeof nt.body, i == 2 ? "box is damaged" : "note %d", i);
        if (i == 4) {
            nt.read_by.items = readers;
            nt.read_by.count = 3;
            nt.pinned = true;
        }
        OK(note_create(db, &nt, NULL, NULL, &err));
    }
    note_page p;
    ddb_ent_read_opts newest = {.backward = true, .page_size = 2};
    OK(note_table(db, "S000", note_table_all(), &newest, a, &p, &err));
    CHECK(p.count == 2 && p.items[0].posted_ms == 1764165845004 && p.items[0].pinned && p.items[0].read_by.count == 3,
          "newest first with read receipts");
    OK(note_table(db, "S000", note_table_posted_ms_between(1764165845001, 1764165845003), NULL, a, &p,
                  &err));
    CHECK(p.count == 3, "between: %zu", p.count);
    char word[] = "damaged";
    OK(note_mentions(db, word, 0, 0, NULL, a, &p, &err));
    CHECK(p.count == 1 && p.items[0].posted_ms == 1764165845002, "mentions: %zu", p.count);

    /* the feed of S000: the SKU (2 shard items), 5 movements, 5 notes; page size 1 */
    inv_sku_feed_result r;
    ddb_ent_read_opts o = {.page_size = 1};
    size_t skus = 0, moves = 0, nts = 0, pages = 0;
    do {
        OK(inv_query_sku_feed(db, "S000", NULL, &o, a, &r, &err));
        skus += r.sku_count;
        moves += r.movement_count;
        nts += r.note_count;
        if (r.sku_count)
            CHECK(r.sku[0].on_hand == 11 && strcmp(r.sku[0].title, "Item zero") == 0, "merged sku in the feed");
        o.cursor = r.page.cursor;
    } while (r.page.cursor && ++pages < 40);
    CHECK(skus == 1 && moves == 5 && nts == 5, "feed: %zu skus %zu movements %zu notes", skus, moves, nts);

    /* a transaction: take stock if in stock, record the movement */
    ddb_ent_tx *tx = ddb_ent_tx_new(db, a, &err);
    struct movement m = {.sku = "S003", .at = "2025-11-26T18:00:00Z", .delta = -1, .reason = "sale",
                         .expires = 4102444800};
    OK(sku_tx_check_in_stock(tx, "S003", 0, NULL, &err));
    OK(movement_tx_create(tx, &m, NULL, &err));
    OK(ddb_ent_tx_commit(tx, NULL, NULL, &err));
    tx = ddb_ent_tx_new(db, a, &err);
    struct movement m2 = {.sku = "S003", .at = "2025-11-26T18:01:00Z", .delta = -1, .reason = "sale"};
    OK(sku_tx_check_in_stock(tx, "S003", 1000, NULL, &err));
    OK(movement_tx_create(tx, &m2, NULL, &err));
    RC(DDB_ECANCELED, ddb_ent_tx_commit(tx, NULL, NULL, &err));
    struct movement g;
    RC(DDB_ENOTFOUND, movement_get(db, "S003", "2025-11-26T18:01:00Z", NULL, a, &g, &err));

    /* the table scanned by type */
    inv_scan_result s;
    ddb_ent_read_opts so = {.page_size = 5};
    size_t ns = 0, nm = 0, nn = 0, spages = 0;
    do {
        OK(inv_scan(db, 0, 0, &so, a, &s, &err));
        ns += s.sku_count;
        nm += s.movement_count;
        nn += s.note_count;
        so.cursor = s.page.cursor;
    } while (s.page.cursor && ++spages < 100);
    CHECK(ns == 4 && nm == 21 && nn == 5, "scan: %zu skus %zu movements %zu notes", ns, nm, nn);
    /* deletes take every shard item */
    OK(sku_delete(db, "S003", NULL, NULL, &err));
    struct sku gone;
    RC(DDB_ENOTFOUND, sku_get(db, "S003", NULL, a, &gone, &err));
    sku_page sp;
    OK(sku_table(db, "S003", sku_table_all(), NULL, a, &sp, &err));
    CHECK(sp.count == 0 && sp.scanned_count == 0, "no shard item left: %zu/%zu", sp.count, sp.scanned_count);
}

int main(int argc, char **argv)
{
    const char *uri = trial_uri(argc, argv);
    if (!uri)
        return 2;
    remote = strncmp(uri, "file:", 5) != 0;
    ddb *db = trial_open(uri, NULL);
    if (!db)
        return 1;
    ddb_error err = {0};
    ddb_arena *a = ddb_arena_new();
    int rc = inv_open(db, &err);
    CHECK(rc == 0, "inv_open: %s", err.message);
    if (rc == 0) {
        skus(db, a);
        movements(db, a);
        notes_and_feed(db, a);
    }
    return trial_done(argv[0], db, a);
}
