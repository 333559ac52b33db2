/* End to end: every typed read ddbgen generates from tests/e2e/fleet.h (a
 * user's schema of issue 12: shards + version + collection + sparse
 * KEYS_ONLY GSI + TTL), on the embedded engine, and through the remote
 * backend against dynalite when DDB_TEST_URI is set (with_dynalite.sh).
 *
 * What each sort-key condition must match follows DynamoDB's Query
 * (Developer Guide, "Key condition expressions for the Query operation":
 * =, <, <=, >, >=, BETWEEN, begins_with on the sort key; "Paginating table
 * query results": LastEvaluatedKey; "Filter expressions for Query": the
 * filter runs after the read, ScannedCount counts what was read) and Scan
 * ("Parallel scan": Segment / TotalSegments cover the table once).
 * dynalite has no TransactWriteItems, so there a device's shard items are
 * written one PutItem each (ddbi_ent_item_part); the reads are the same. */
#include "fleet_ddb.h"

#include "entity/core/entity_core.h" /* ddbi_ent_item_part: seeding shard items without a transaction */

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

static bool remote(void)
{
    return getenv("DDB_TEST_URI") && *getenv("DDB_TEST_URI");
}

#define OK(expr)                                                                                                      \
    do {                                                                                                              \
        int rc_ = (expr);                                                                                             \
        if (rc_)                                                                                                      \
            fail_msg("%s: %s (%s)", #expr, ddb_strerror(rc_), err.message);                                           \
    } while (0)

static ddb *open_db(void)
{
    char uri[600];
    ddb *db;
    ddb_error err;
    if (remote()) {
        snprintf(uri, sizeof uri, "%s", getenv("DDB_TEST_URI"));
    } else {
        const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
        snprintf(dir, sizeof dir, "%s/ddb-e2e-fleet-%d", base, (int)getpid());
        char cmd[600];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        assert_int_equal(system(cmd), 0);
        snprintf(uri, sizeof uri, "file:%s", dir);
    }
    if (ddb_open(uri, NULL, &db, &err))
        fail_msg("open: %s", err.message);
    if (remote()) {
        /* dynalite has no UpdateTimeToLive: the table without TTL */
        int rc = ddb_delete_table(db, "Fleet", &err);
        assert_true(rc == DDB_OK || rc == DDB_ENOTABLE);
        ddb_table_def t = fleet_table.def;
        t.ttl_attribute = NULL;
        OK(ddb_create_table(db, &t, &err));
    } else {
        OK(fleet_create_table(db, &err));
    }
    return db;
}

static void close_db(ddb *db)
{
    if (remote()) {
        ddb_error err;
        ddb_delete_table(db, "Fleet", &err);
    }
    ddb_close(db);
    if (!remote()) {
        char cmd[600];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        assert_int_equal(system(cmd), 0);
    }
}

static void fill(ddb *db)
{
    ddb_error err;
    struct site sites[] = {{"s1", "North", "eu"}, {"s2", "South", "eu"}};
    for (int i = 0; i < 2; i++)
        OK(site_create(db, &sites[i], NULL, NULL, &err));
    struct device devs[] = {
        {"d1", "s1", "sensor", "T-100", 80, "ok", 0, NULL},
        {"d2", "s1", "sensor", "T-100", 15, "low", 0, NULL},
        {"d3", "s1", "gateway", "G-7", 50, "ok", 0, NULL},
        {"d4", "s2", "sensor", "T-200", 5, "low", 0, NULL},
    };
    static char notes[6001]; /* d1's shard B item is over 4 KB: reading it costs more */
    memset(notes, 'n', sizeof notes - 1);
    devs[0].notes = notes;
    for (int i = 0; i < 4; i++) {
        if (!remote()) {
            OK(device_put(db, &devs[i], NULL, NULL, &err));
            assert_int_equal(devs[i].version, 1);
            continue;
        }
        ddb_arena *a = ddb_arena_new();
        devs[i].version = 1; /* what put stores */
        for (int s = 0; s < device_entity.n_shards; s++) {
            ddb_item *it;
            OK(ddbi_ent_item_part(&device_entity, &devs[i], s, a, &it, &err));
            OK(ddb_put_item(db, "Fleet", it, NULL, a, NULL, &err));
        }
        ddb_arena_free(a);
    }
    const char *at[] = {"2024-03-04T10:00:00Z", "2024-03-04T11:00:00Z", "2024-03-04T12:00:00Z",
                        "2024-03-04T13:00:00Z", "2024-03-04T14:00:00Z"};
    double c[] = {20, 22.5, 25, 19, 30};
    for (int i = 0; i < 5; i++) {
        struct reading r = {.device_id = "d1", .celsius = c[i], .expires_at = 4102444800};
        strcpy(r.taken_at, at[i]);
        OK(reading_create(db, &r, NULL, NULL, &err));
    }
    struct reading other = {"d2", "2024-03-04T10:00:00Z", 18, 4102444800};
    OK(reading_create(db, &other, NULL, NULL, &err));
    struct alert alerts[] = {
        {"d1", "a1", "s1", "2024-03-04T10:05:00Z", "too warm", 2},
        {"d1", "a2", NULL, "2024-03-04T09:00:00Z", "closed one", 1},
        {"d2", "a3", "s1", "2024-03-04T11:00:00Z", "battery low", 3},
    };
    for (int i = 0; i < 3; i++)
        OK(alert_create(db, &alerts[i], NULL, NULL, &err));
    struct shift shifts[] = {{"s1", "night", "2024-03-04", "Ana, Ben"}, {"s1", "early", "2024-03-05", "Cy"}};
    for (int i = 0; i < 2; i++)
        OK(shift_create(db, &shifts[i], NULL, NULL, &err));
}

static void test_get_and_patterns(void **state)
{
    (void)state;
    ddb *db = open_db();
    ddb_arena *a = ddb_arena_new();
    ddb_error err;
    fill(db);

    /* a sharded, versioned entity by primary key: the shards merged */
    struct device d;
    OK(device_get(db, "d2", NULL, a, &d, &err));
    assert_string_equal(d.model, "T-100");
    assert_int_equal(d.battery_pct, 15);
    assert_int_equal(d.version, 1);

    /* its primary-key pattern: the whole key is "DEVICE" */
    device_page dp;
    OK(device_table(db, "d2", device_table_all(), NULL, a, &dp, &err));
    assert_int_equal(dp.count, 1);
    assert_string_equal(dp.items[0].status, "low");

    /* by_site: GSI1 "SITE#{site_id}" / "DEV#{kind}#{device_id}", carried by a shard item */
    OK(device_by_site(db, "s1", device_by_site_all(), NULL, a, &dp, &err));
    assert_int_equal(dp.count, 3);
    assert_string_equal(dp.items[0].device_id, "d3"); /* gateway < sensor */
    assert_string_equal(dp.items[1].device_id, "d1");
    assert_int_equal(dp.items[1].battery_pct, 80); /* the other shard, completed from the table */
    OK(device_by_site(db, "s1", device_by_site_kind(DDB_ENT_SK_EQ, "sensor"), NULL, a, &dp, &err));
    assert_int_equal(dp.count, 2);
    OK(device_by_site(db, "s1", device_by_site_kind(DDB_ENT_SK_EQ, "sens"), NULL, a, &dp, &err));
    assert_int_equal(dp.count, 0); /* a level equals: "DEV#sens#" is no prefix of "DEV#sensor#" */
    /* the exact key of a sharded entity on an index (issue 12: it returned nothing) */
    OK(device_by_site(db, "s1", device_by_site_device_id(DDB_ENT_SK_EQ, "sensor", "d2"), NULL, a, &dp, &err));
    assert_int_equal(dp.count, 1);
    assert_string_equal(dp.items[0].model, "T-100");
    OK(device_by_site(db, "s1", device_by_site_device_id(DDB_ENT_SK_BEGINS, "sensor", "d"), NULL, a, &dp,
                      &err));
    assert_int_equal(dp.count, 2);
    OK(device_by_site(db, "s1", device_by_site_device_id(DDB_ENT_SK_GT, "sensor", "d1"), NULL, a, &dp, &err));
    assert_int_equal(dp.count, 1);
    assert_string_equal(dp.items[0].device_id, "d2");
    OK(device_by_site(db, "s1", device_by_site_device_id(DDB_ENT_SK_LE, "sensor", "d2"), NULL, a, &dp, &err));
    assert_int_equal(dp.count, 2);
    OK(device_by_site(db, "s1", device_by_site_device_id_between("sensor", "d0", "d1"), NULL, a, &dp,
                      &err));
    assert_int_equal(dp.count, 1);
    assert_string_equal(dp.items[0].device_id, "d1");
    OK(device_by_site(db, "s1", device_by_site_kind(DDB_ENT_SK_LT, "sensor"), NULL, a, &dp, &err));
    assert_int_equal(dp.count, 1); /* the gateway */

    /* pages of one, both ways, with the cursor */
    const char *fwd[] = {"d3", "d1", "d2"};
    for (int back = 0; back < 2; back++) {
        ddb_ent_read_opts o = {.page_size = 1, .backward = back};
        size_t n = 0;
        do {
            OK(device_by_site(db, "s1", device_by_site_all(), &o, a, &dp, &err));
            for (size_t i = 0; i < dp.count; i++, n++)
                assert_string_equal(dp.items[i].device_id, fwd[back ? 2 - n : n]);
            o.cursor = dp.cursor;
        } while (o.cursor);
        assert_int_equal(n, 3);
    }
    /* count only, and a projection by field mask */
    OK(device_by_site(db, "s1", device_by_site_all(), &(ddb_ent_read_opts){.count_only = true}, a, &dp, &err));
    assert_int_equal(dp.count, 3);
    ddb_ent_mask m = device_mask(DEVICE_F_BATTERY_PCT);
    OK(device_table(db, "d1", device_table_all(), &(ddb_ent_read_opts){.fields = &m}, a, &dp, &err));
    assert_int_equal(dp.count, 1);
    assert_int_equal(dp.items[0].battery_pct, 80);
    assert_true(ddb_ent_mask_has(&dp.masks[0], DEVICE_FN_BATTERY_PCT));
    assert_false(ddb_ent_mask_has(&dp.masks[0], DEVICE_FN_MODEL));

    /* batch get with the read options */
    struct device keys[3] = {{.device_id = "d1"}, {.device_id = "nope"}, {.device_id = "d4"}}, out[3];
    bool found[3];
    ddb_capacity cap;
    OK(device_batch_get(db, keys, 3, &(ddb_ent_read_opts){.return_capacity = DDB_CAPACITY_TOTAL, .capacity = &cap},
                        a, out, NULL, found, &err));
    assert_true(found[0] && !found[1] && found[2]);
    assert_int_equal(out[2].battery_pct, 5);
    assert_true(cap.read > 0);
    ddb_arena_free(a);
    close_db(db);
}

static void test_declared_queries_and_scans(void **state)
{
    (void)state;
    ddb *db = open_db();
    ddb_arena *a = ddb_arena_new();
    ddb_error err;
    fill(db);

    /* device_of_model: "kind = :kind", filter "model = :model" (on the shard GSI1 holds) */
    device_page dp;
    OK(device_of_model(db, "s1", "sensor", "T-100", NULL, a, &dp, &err));
    assert_int_equal(dp.count, 2);
    assert_int_equal(dp.items[1].battery_pct, 15); /* completed from the table */
    OK(device_of_model(db, "s1", "sensor", "T-200", NULL, a, &dp, &err));
    assert_int_equal(dp.count, 0);

    /* reading_hot: "taken_at BETWEEN :from AND :to", filter "celsius > :min" */
    reading_page rp;
    OK(reading_hot(db, "d1", "2024-03-04T11:00:00Z", "2024-03-04T13:00:00Z", 21, NULL, a, &rp, &err));
    assert_int_equal(rp.count, 2); /* 22.5 and 25; 19 filtered out */
    assert_int_equal(rp.scanned_count, 3);
    assert_true(rp.items[0].celsius == 22.5);
    assert_int_equal(rp.items[0].expires_at, 4102444800);
    /* the caller's filter is ANDed with the declared one, also when it uses
     * the same placeholder names (#f0, :min) as the schema's text */
    ddb_item *fn = ddb_item_new(a), *fv = ddb_item_new(a);
    OK(ddb_item_set_s(fn, "#f0", "celsius"));
    ddb_value *max;
    OK(ddb_v_double(a, 24, &max, &err));
    OK(ddb_item_set(fv, ":min", max));
    ddb_ent_read_opts fo = {.filter = "#f0 < :min", .filter_names = fn, .filter_values = fv};
    OK(reading_hot(db, "d1", "2024-03-04T11:00:00Z", "2024-03-04T13:00:00Z", 21, &fo, a, &rp, &err));
    assert_int_equal(rp.count, 1); /* 22.5: > 21 (declared) and < 24 (the caller's) */
    assert_true(rp.items[0].celsius == 22.5);
    /* the declared filter's own namespace (#ddb_..., :ddb_...) is refused */
    ddb_item *bad = ddb_item_new(a);
    OK(ddb_item_set_s(bad, "#ddb_f0", "celsius"));
    ddb_ent_read_opts bo = {.filter = "#ddb_f0 < :min", .filter_names = bad, .filter_values = fv};
    assert_int_equal(reading_hot(db, "d1", "2024-03-04T11:00:00Z", "2024-03-04T13:00:00Z", 21, &bo, a, &rp, &err),
                     DDB_EINVAL);
    assert_non_null(strstr(err.message, "#ddb_f0"));
    OK(reading_since(db, "d1", "2024-03-04T12:00:00Z", NULL, a, &rp, &err));
    assert_int_equal(rp.count, 3);
    OK(reading_band(db, "d1", 20, 23, NULL, a, &rp, &err)); /* :lo, :hi (a name the function has itself) */
    assert_int_equal(rp.count, 2);                         /* 20, 22.5 */
    OK(reading_table(db, "d1", reading_table_taken_at(DDB_ENT_SK_LT, "2024-03-04T12:00:00Z"), NULL, a, &rp,
                     &err));
    assert_int_equal(rp.count, 2);

    /* the sparse KEYS_ONLY index: what it holds, or the whole alert on request */
    alert_page ap;
    OK(alert_open_at_site(db, "s1", alert_open_at_site_all(), &(ddb_ent_read_opts){.fetch_base = true}, a, &ap,
                          &err));
    assert_int_equal(ap.count, 2); /* a2 is closed: not in the index */
    assert_string_equal(ap.items[0].alert_id, "a1");
    assert_string_equal(ap.items[0].message, "too warm");
    OK(alert_open_at_site(db, "s1", alert_open_at_site_all(), NULL, a, &ap, &err));
    assert_int_equal(ap.count, 2);
    assert_false(ddb_ent_mask_has(&ap.masks[0], ALERT_FN_MESSAGE));
    OK(alert_open_since(db, "s1", "2024-03-04T10:30:00Z", &(ddb_ent_read_opts){.fetch_base = true}, a, &ap, &err));
    assert_int_equal(ap.count, 1);
    assert_string_equal(ap.items[0].alert_id, "a3");

    /* typed scans: one entity's items, filtered, in parallel segments */
    size_t n = 0;
    for (uint32_t seg = 0; seg < 3; seg++) {
        ddb_ent_read_opts o = {0};
        do {
            OK(device_low_battery(db, 20, seg, 3, &o, a, &dp, &err));
            for (size_t i = 0; i < dp.count; i++)
                assert_true(dp.items[i].battery_pct < 20);
            n += dp.count;
            o.cursor = dp.cursor;
        } while (o.cursor);
    }
    assert_int_equal(n, 2); /* d2 and d4, once each */
    /* a declared scan's filter ANDed with the caller's (on the same shard: the B item) */
    ddb_item *sn = ddb_item_new(a), *sv = ddb_item_new(a);
    OK(ddb_item_set_s(sn, "#f0", "battery_pct"));
    OK(ddb_item_set_i64(sv, ":pct", 10));
    ddb_ent_read_opts lo = {.filter = "#f0 >= :pct", .filter_names = sn, .filter_values = sv};
    OK(device_low_battery(db, 20, 0, 0, &lo, a, &dp, &err));
    assert_int_equal(dp.count, 1); /* d2 (15); d4 (5) is below the caller's 10 */
    assert_string_equal(dp.items[0].device_id, "d2");
    OK(device_scan(db, 0, 0, NULL, a, &dp, &err));
    assert_int_equal(dp.count, 4);
    for (size_t i = 0; i < dp.count; i++)
        assert_true(dp.items[i].model[0] != 0 && dp.items[i].status[0] != 0); /* both shards merged */

    /* the table scan, grouped by type */
    fleet_scan_result sr;
    size_t sites = 0, devices = 0, readings = 0, alerts = 0;
    ddb_ent_read_opts so = {.page_size = 3};
    do {
        OK(fleet_scan(db, 0, 0, &so, a, &sr, &err));
        sites += sr.site_count;
        devices += sr.device_count;
        readings += sr.reading_count;
        alerts += sr.alert_count;
        so.cursor = sr.page.cursor;
    } while (so.cursor);
    assert_int_equal(sites, 2);
    assert_int_equal(devices, 4);
    assert_int_equal(readings, 6);
    assert_int_equal(alerts, 3);
    ddb_arena_free(a);
    close_db(db);
}

static void test_collection_pages(void **state)
{
    (void)state;
    ddb *db = open_db();
    ddb_arena *a = ddb_arena_new();
    ddb_error err;
    fill(db);

    /* the collection with a sharded member (issue 12: it failed) */
    fleet_telemetry_result res;
    OK(fleet_query_telemetry(db, "d1", NULL, NULL, a, &res, &err));
    assert_int_equal(res.device_count, 1);
    assert_string_equal(res.device[0].model, "T-100");
    assert_int_equal(res.device[0].battery_pct, 80);
    assert_int_equal(res.reading_count, 5);
    assert_null(res.page.cursor);

    /* pages of two items: shard items are merged across page ends */
    fleet_telemetry_iter it;
    ddb_ent_read_opts o = {.page_size = 2};
    OK(fleet_telemetry_begin(&it, db, "d1", NULL, &o, &err));
    size_t devices = 0, readings = 0, pages = 0;
    int rc;
    while ((rc = fleet_telemetry_next(&it, a, &res, &err)) == DDB_OK && it.it.has_page) {
        pages++;
        for (size_t i = 0; i < res.device_count; i++) {
            assert_string_equal(res.device[i].model, "T-100");
            assert_int_equal(res.device[i].battery_pct, 80);
        }
        devices += res.device_count;
        readings += res.reading_count;
    }
    fleet_telemetry_end(&it);
    OK(rc);
    assert_int_equal(devices, 1);
    assert_int_equal(readings, 5);
    assert_true(pages >= 3);

    /* a range on the collection's sort key: the readings only */
    ddb_ent_range only = {.op = DDB_SK_BEGINS_WITH, .lo = ddb_v_str(a, "READING#")};
    OK(fleet_query_telemetry(db, "d1", &only, NULL, a, &res, &err));
    assert_int_equal(res.device_count, 0);
    assert_int_equal(res.reading_count, 5);
    ddb_arena_free(a);
    close_db(db);
}

/* A projection naming one shard's fields reads only that shard's items
 * (GetItem of "DEVICE#A"), on get, exact-key query, index query, batch get
 * and collection pages; the capacity is the smaller read's (Developer
 * Guide, "Read consumption": GetItem rounds the item up to 4 KB, a Query
 * the sum of the items it reads; eventually consistent = half). */
static void test_shard_projection(void **state)
{
    (void)state;
    ddb *db = open_db();
    ddb_arena *a = ddb_arena_new();
    ddb_error err;
    fill(db);
    ddb_capacity full, part;
    ddb_ent_mask a_only = device_mask(DEVICE_F_MODEL), b_only = device_mask(DEVICE_F_BATTERY_PCT);
    ddb_ent_read_opts all_o = {.return_capacity = DDB_CAPACITY_TOTAL, .capacity = &full};
    ddb_ent_read_opts a_o = {.fields = &a_only, .return_capacity = DDB_CAPACITY_TOTAL, .capacity = &part};

    /* get */
    struct device d;
    OK(device_get(db, "d1", &all_o, a, &d, &err));
    assert_non_null(d.notes);
    OK(device_get(db, "d1", &a_o, a, &d, &err));
    assert_string_equal(d.model, "T-100");
    assert_null(d.notes);
    assert_int_equal(d.battery_pct, 0);
    assert_true(part.read > 0 && part.read < full.read);

    /* the exact key by its pattern, with a mask of either shard */
    device_page dp;
    OK(device_table(db, "d1", device_table_all(), &all_o, a, &dp, &err));
    OK(device_table(db, "d1", device_table_all(), &a_o, a, &dp, &err));
    assert_int_equal(dp.count, 1);
    assert_string_equal(dp.items[0].model, "T-100");
    assert_true(ddb_ent_mask_has(&dp.masks[0], DEVICE_FN_MODEL));
    assert_false(ddb_ent_mask_has(&dp.masks[0], DEVICE_FN_BATTERY_PCT) || ddb_ent_mask_has(&dp.masks[0], DEVICE_FN_NOTES));
    assert_true(part.read < full.read);
    ddb_ent_read_opts b_o = {.fields = &b_only, .return_capacity = DDB_CAPACITY_TOTAL, .capacity = &part};
    OK(device_table(db, "d2", device_table_all(), &b_o, a, &dp, &err));
    assert_int_equal(dp.count, 1);
    assert_int_equal(dp.items[0].battery_pct, 15);
    assert_false(ddb_ent_mask_has(&dp.masks[0], DEVICE_FN_MODEL));
    assert_int_equal(device_table(db, "nope", device_table_all(), &b_o, a, &dp, &err), DDB_OK);
    assert_int_equal(dp.count, 0);

    /* GSI1 holds shard A items: fields of A need no completion from the table */
    OK(device_by_site(db, "s1", device_by_site_all(), &all_o, a, &dp, &err));
    OK(device_by_site(db, "s1", device_by_site_all(), &a_o, a, &dp, &err));
    assert_int_equal(dp.count, 3);
    assert_string_equal(dp.items[1].model, "T-100");
    assert_false(ddb_ent_mask_has(&dp.masks[1], DEVICE_FN_BATTERY_PCT));
    assert_true(part.read < full.read);
    /* a field of B: its item read by key for each entry */
    OK(device_by_site(db, "s1", device_by_site_all(), &b_o, a, &dp, &err));
    assert_int_equal(dp.count, 3);
    assert_int_equal(dp.items[1].battery_pct, 80);
    assert_true(part.read <= full.read); /* B items read by key: d1's big one costs what it costs */

    /* batch get */
    struct device keys[2] = {{.device_id = "d1"}, {.device_id = "d4"}}, out[2];
    bool found[2];
    ddb_ent_mask bm[2];
    OK(device_batch_get(db, keys, 2, &all_o, a, out, bm, found, &err));
    assert_true(ddb_ent_mask_has(&bm[1], DEVICE_FN_BATTERY_PCT) && ddb_ent_mask_has(&bm[1], DEVICE_FN_MODEL));
    OK(device_batch_get(db, keys, 2, &a_o, a, out, bm, found, &err));
    assert_true(found[0] && found[1]);
    assert_string_equal(out[1].model, "T-200");
    assert_null(out[0].notes);
    assert_true(part.read < full.read);
    /* the masks say what the projection read: shard A's fields, not B's,
     * as the exact-key query's mask says */
    for (int i = 0; i < 2; i++) {
        assert_true(ddb_ent_mask_has(&bm[i], DEVICE_FN_MODEL));
        assert_false(ddb_ent_mask_has(&bm[i], DEVICE_FN_BATTERY_PCT) || ddb_ent_mask_has(&bm[i], DEVICE_FN_NOTES));
    }
    OK(device_table(db, "d4", device_table_all(), &a_o, a, &dp, &err));
    assert_memory_equal(&dp.masks[0], &bm[1], sizeof bm[1]);

    /* a collection page: the device's projection, the readings whole */
    const ddb_ent_mask *mf[FLEET_TELEMETRY_MEMBERS] = {[FLEET_TELEMETRY_DEVICE] = &a_only};
    ddb_ent_read_opts co = {.member_fields = mf, .return_capacity = DDB_CAPACITY_TOTAL, .capacity = &part};
    fleet_telemetry_result res;
    OK(fleet_query_telemetry(db, "d1", NULL, &co, a, &res, &err));
    assert_int_equal(res.device_count, 1);
    assert_string_equal(res.device[0].model, "T-100");
    assert_false(ddb_ent_mask_has(&res.device_masks[0], DEVICE_FN_NOTES));
    assert_null(res.device[0].notes); /* read with the partition, cut to the projection */
    assert_int_equal(res.reading_count, 5);
    assert_true(ddb_ent_mask_has(&res.reading_masks[0], READING_FN_CELSIUS));
    /* a range that holds only the B item of d1 (as a page cut between its
     * shard items would): the A item the projection needs is read by key */
    ddb_ent_range b_item = {.op = DDB_SK_BEGINS_WITH, .lo = ddb_v_str(a, "DEVICE#B")};
    OK(fleet_query_telemetry(db, "d1", &b_item, &co, a, &res, &err));
    assert_int_equal(res.device_count, 1);
    assert_string_equal(res.device[0].model, "T-100");
    assert_false(ddb_ent_mask_has(&res.device_masks[0], DEVICE_FN_BATTERY_PCT));
    mf[FLEET_TELEMETRY_DEVICE] = &b_only;
    OK(fleet_query_telemetry(db, "d1", &b_item, &co, a, &res, &err));
    assert_int_equal(res.device_count, 1);
    assert_int_equal(res.device[0].battery_pct, 80);
    assert_false(ddb_ent_mask_has(&res.device_masks[0], DEVICE_FN_MODEL));
    assert_int_equal(fleet_query_telemetry(db, "d1", NULL, &(ddb_ent_read_opts){.fields = &a_only}, a, &res, &err),
                     DDB_EINVAL); /* a collection projects per member */
    ddb_arena_free(a);
    close_db(db);
}

/* Collection pages and table scans take a filter over stored attributes
 * (applied to every item read, whatever its type: DynamoDB's
 * FilterExpression) and a projection per member type. */
static void test_collection_and_scan_options(void **state)
{
    (void)state;
    ddb *db = open_db();
    ddb_arena *a = ddb_arena_new();
    ddb_error err;
    fill(db);
    ddb_item *names = ddb_item_new(a), *values = ddb_item_new(a);
    OK(ddb_item_set_s(names, "#c", "celsius"));
    ddb_value *v;
    OK(ddb_v_double(a, 22.5, &v, &err));
    OK(ddb_item_set(values, ":v", v));
    ddb_ent_read_opts fo = {.filter = "attribute_not_exists(#c) OR #c >= :v", .filter_names = names,
                            .filter_values = values};
    fleet_telemetry_result res;
    OK(fleet_query_telemetry(db, "d1", NULL, &fo, a, &res, &err));
    assert_int_equal(res.device_count, 1); /* no celsius: kept */
    assert_string_equal(res.device[0].model, "T-100");
    assert_int_equal(res.reading_count, 3); /* 22.5, 25, 30 */
    for (size_t i = 0; i < res.reading_count; i++)
        assert_true(res.reading[i].celsius >= 22.5);

    /* the table scan: only items with a region (the sites), projected to their name */
    ddb_item *rn = ddb_item_new(a);
    OK(ddb_item_set_s(rn, "#r", "region"));
    ddb_ent_mask name_only = site_mask(SITE_F_NAME);
    const ddb_ent_mask *mf[FLEET_SCAN_MEMBERS] = {[FLEET_SCAN_SITE] = &name_only};
    ddb_ent_read_opts so = {.filter = "attribute_exists(#r)", .filter_names = rn, .member_fields = mf};
    fleet_scan_result sr;
    size_t sites = 0, others = 0;
    do {
        OK(fleet_scan(db, 0, 0, &so, a, &sr, &err));
        for (size_t i = 0; i < sr.site_count; i++) {
            assert_true(sr.site[i].name[0] != 0);
            assert_string_equal(sr.site[i].region, "");
            assert_false(ddb_ent_mask_has(&sr.site_masks[i], SITE_FN_REGION));
        }
        sites += sr.site_count;
        others += sr.device_count + sr.reading_count + sr.alert_count;
        so.cursor = sr.page.cursor;
    } while (so.cursor);
    assert_int_equal(sites, 2);
    assert_int_equal(others, 0);
    ddb_arena_free(a);
    close_db(db);
}

/* KEYS_ONLY entries give back what their keys hold (docs/SCHEMA.md,
 * Reads): the day of ByDay's "{day|year}{day|month}{day|day}#{shift_id}"
 * from its three date parts (placed by their widths), the crew not at all. */
static void test_keys_only_date_parts(void **state)
{
    (void)state;
    ddb *db = open_db();
    ddb_arena *a = ddb_arena_new();
    ddb_error err;
    fill(db);
    shift_page sp;
    OK(shift_by_day(db, "s1", shift_by_day_all(), NULL, a, &sp, &err));
    assert_int_equal(sp.count, 2);
    assert_string_equal(sp.items[0].day, "2024-03-04");
    assert_string_equal(sp.items[0].shift_id, "night");
    assert_string_equal(sp.items[1].day, "2024-03-05");
    assert_true(ddb_ent_mask_has(&sp.masks[0], SHIFT_FN_DAY) && ddb_ent_mask_has(&sp.masks[0], SHIFT_FN_SITE_ID));
    assert_false(ddb_ent_mask_has(&sp.masks[0], SHIFT_FN_CREW));
    assert_string_equal(sp.items[0].crew, "");
    OK(shift_by_day(db, "s1", shift_by_day_day_day(DDB_ENT_SK_EQ, "2024-03-05"), NULL, a, &sp, &err));
    assert_int_equal(sp.count, 1);
    assert_string_equal(sp.items[0].shift_id, "early");
    assert_string_equal(sp.items[0].day, "2024-03-05");
    ddb_arena_free(a);
    close_db(db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_get_and_patterns),
        cmocka_unit_test(test_declared_queries_and_scans),
        cmocka_unit_test(test_collection_pages),
        cmocka_unit_test(test_shard_projection),
        cmocka_unit_test(test_collection_and_scan_options),
        cmocka_unit_test(test_keys_only_date_parts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
