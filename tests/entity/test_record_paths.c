/* The typed reads that take stored records (issue 12, items 6-8: scans,
 * write-sharded scatter queries, batch gets) against the item path they
 * replace, end to end on one embedded database: every read runs twice,
 * once through the embedded backend as it is (records handed over by
 * same backend with its optional record operations removed (the path the
 * remote backend takes: api/records.c falls back to Scan / Query /
 * BatchGetItem items).  Both must give the same structs, field masks,
 * counts, ScannedCount, cursors and capacity, page after page:
 *   - typed scans of each fleet entity (a sharded one among them), one
 *     segment and parallel segments, paged, with a filter, a projection,
 *     a count; a table scan grouped by type; expired (TTL) readings;
 *   - scatter queries of a write-sharded entity (DDB_WRITE_SHARDS),
 *     forward, backward, paged, with a filter and a count;
 *   - batch gets of plain and sharded entities, with projections, absent
 *     keys, expired items and more than 100 keys.
 * Links the internal library for struct ddb (api/api.h). */
#include <ddb/entity.h>

#include "api/api.h"

#include "fleet_schema.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

/* ---- a write-sharded entity in the fleet table ----------------------------- */

/* event: DAY#{day}.<0..3> / EV#{seq:04}, spread over 4 write shards by a
 * hash of its key */
struct event {
    char day[11];
    int32_t seq;
    char *what;
};

static const ddb_field_desc event_fields[] = {
    {.name = "day", .attr = "day", .type = DDB_F_CHARS, .size = 11, .offset = offsetof(struct event, day),
     .flags = DDB_FIELD_KEY, .shard = -1},
    {.name = "seq", .attr = "seq", .type = DDB_F_INT, .size = 4, .offset = offsetof(struct event, seq),
     .flags = DDB_FIELD_KEY, .shard = -1},
    {.name = "what", .attr = "what", .type = DDB_F_STRING, .size = sizeof(char *),
     .offset = offsetof(struct event, what), .flags = DDB_FIELD_OPTIONAL, .shard = -1},
};
static const ddb_struct_desc event_st = {"event", sizeof(struct event), 3, event_fields};
static const ddb_tseg event_pk[] = {{.lit = "DAY#"}, HOLE(0)};
static const ddb_tseg event_sk[] = {{.lit = "EV#"}, {.path = P1(1), .path_len = 1, .pad = 4}};
static const ddb_key_desc event_keys[] = {{NULL, "PK", "SK", {event_pk, 2, DDB_TS}, {event_sk, 2, DDB_TS}, -1, false}};
static const ddb_write_shards event_ws = {.count = 4, .by = DDB_WS_HASH, .hash_pk = &event_keys[0].pk,
                                          .hash_sk = &event_keys[0].sk};
static const ddb_write_shards *const event_ws_keys[] = {&event_ws};
static const ddb_entity_desc event_entity = {.name = "Event", .table = &fleet_table, .st = &event_st, .n_keys = 1,
                                             .keys = event_keys, .write_shards = event_ws_keys};

/* every type of the table, for a table scan */
struct everything {
    struct site *site;
    size_t site_count;
    ddb_ent_mask *site_masks;
    struct device *device;
    size_t device_count;
    ddb_ent_mask *device_masks;
    struct reading *reading;
    size_t reading_count;
    ddb_ent_mask *reading_masks;
    struct alert *alert;
    size_t alert_count;
    ddb_ent_mask *alert_masks;
    struct event *event;
    size_t event_count;
    ddb_ent_mask *event_masks;
};
#define MEMBER(ent, m)                                                                                                \
    {.entity = &ent, .key = 0, .items_offset = offsetof(struct everything, m),                                       \
     .count_offset = offsetof(struct everything, m##_count), .masks_offset = offsetof(struct everything, m##_masks)}
static const ddb_collection_member everything_members[] = {
    MEMBER(site_entity, site), MEMBER(device_entity, device), MEMBER(reading_entity, reading),
    MEMBER(alert_entity, alert), MEMBER(event_entity, event),
};
static const ddb_collection_desc everything = {.name = "everything", .n_members = 5, .members = everything_members};

/* the events of one day, as a collection (its partition write-sharded) */
struct day_events {
    struct event *event;
    size_t event_count;
    ddb_ent_mask *event_masks;
};
static const ddb_collection_member day_members[] = {
    {.entity = &event_entity, .key = 0, .items_offset = offsetof(struct day_events, event),
     .count_offset = offsetof(struct day_events, event_count), .masks_offset = offsetof(struct day_events, event_masks)},
};
static const ddb_collection_desc day = {.name = "day", .n_members = 1, .members = day_members};

/* ---- the two paths ------------------------------------------------------------ */

typedef struct fx {
    ddb *db;
    ddb_arena *a;
    char dir[512];
    ddbi_backend_ops records; /* the embedded backend, its record reads counted */
    ddbi_backend_ops items;   /* the same without its record reads */
} fx;

/* The embedded backend's record reads, and the entries they handed over
 * as records (so that a test knows the record path was taken). */
static const ddbi_backend_ops *embedded;
static size_t handed_over;

static void count_records(const ddbi_rec_page *out)
{
    for (size_t i = 0; out->recs && i < out->page.count; i++)
        handed_over += out->recs[i].p != NULL;
}

static int counted_scan(void *impl, const ddb_scan_params *s, ddb_arena *a, ddbi_rec_page *out, ddb_error *err)
{
    int rc = embedded->scan_records(impl, s, a, out, err);
    if (!rc)
        count_records(out);
    return rc;
}

static int counted_batch(void *impl, const ddb_batch_get_op *ops, size_t n, ddb_arena *a, ddb_item **items,
                         ddbi_rec *recs, ddb_return_capacity rc, ddb_capacity *cap, ddb_error *err)
{
    int r = embedded->batch_get_records(impl, ops, n, a, items, recs, rc, cap, err);
    for (size_t i = 0; !r && i < n; i++)
        handed_over += recs[i].p != NULL;
    return r;
}

/* A visitor's records counted as they pass (ctx: the reader's visitor). */
static int counting_visit(void *ctx, const ddbi_rec *rec, ddb_item *it, ddb_error *err)
{
    const ddbi_rec_visitor *inner = ctx;
    handed_over += rec != NULL;
    return inner->fn(inner->ctx, rec, it, err);
}

static int counted_query(void *impl, const ddb_query_params *q, ddb_arena *a, const ddbi_rec_visitor *v,
                         ddbi_rec_page *out, ddb_error *err)
{
    ddbi_rec_visitor counting = {counting_visit, (void *)v};
    int rc = embedded->query_records(impl, q, a, v ? &counting : NULL, out, err);
    if (!rc)
        count_records(out);
    return rc;
}

#define OK(call)                                                                                                      \
    do {                                                                                                              \
        ddb_error e_ = {0};                                                                                           \
        int rc_ = (call);                                                                                             \
        if (rc_)                                                                                                      \
            fail_msg("%s -> %d: %s", #call, rc_, e_.message);                                                         \
    } while (0)

static void use_records(fx *f, bool on)
{
    f->db->ops = on ? &f->records : &f->items;
}

/* The same field values, compared by the struct's descriptor (the fleet
 * schema's field types). */
static void assert_same_struct(const ddb_struct_desc *st, const char *x, const char *y, const ddb_ent_mask *m)
{
    for (uint16_t i = 0; i < st->n_fields; i++) {
        const ddb_field_desc *f = &st->fields[i];
        if (m && !ddb_ent_mask_has(m, i))
            continue;
        const char *p = x + f->offset, *q = y + f->offset;
        switch (f->type) {
        case DDB_F_CHARS:
            assert_string_equal(p, q);
            break;
        case DDB_F_STRING: {
            const char *s = *(char *const *)(const void *)p, *t = *(char *const *)(const void *)q;
            assert_true(!s == !t);
            if (s)
                assert_string_equal(s, t);
            break;
        }
        case DDB_F_INT:
        case DDB_F_UINT:
        case DDB_F_FLOAT:
        case DDB_F_BOOL:
            assert_memory_equal(p, q, f->size);
            break;
        default:
            fail_msg("field %s: a type this test does not compare", f->name);
        }
    }
}

static void assert_same_entities(const ddb_entity_desc *e, const void *xi, const ddb_ent_mask *xm, const void *yi,
                                 const ddb_ent_mask *ym, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const ddb_ent_mask *m = xm ? &xm[i] : NULL;
        if (xm && ym)
            assert_memory_equal(&xm[i], &ym[i], sizeof xm[i]);
        assert_same_struct(e->st, (const char *)xi + i * e->st->size, (const char *)yi + i * e->st->size, m);
    }
}

static void assert_same_cursor(const char *x, const char *y)
{
    assert_true(!x == !y);
    if (x)
        assert_string_equal(x, y);
}

static void assert_same_capacity(const ddb_capacity *x, const ddb_capacity *y)
{
    assert_true(x->total == y->total && x->read == y->read && x->table_read == y->table_read);
    assert_int_equal(x->n_indexes, y->n_indexes);
}

static void assert_same_result(const ddb_entity_desc *e, const ddb_ent_result *x, const ddb_ent_result *y)
{
    assert_int_equal(x->count, y->count);
    assert_int_equal(x->scanned_count, y->scanned_count);
    assert_same_cursor(x->cursor, y->cursor);
    assert_true(!x->items == !y->items || !x->count); /* (an empty page's array: either) */
    if (x->count && x->items)
        assert_same_entities(e, x->items, x->masks, y->items, y->masks, x->count);
}

/* ---- the data ----------------------------------------------------------------- */

enum { N_DEVICES = 6, N_READINGS = 12, N_EVENTS = 40 };

static void put(fx *f, const ddb_entity_desc *e, void *obj)
{
    OK(ddb_ent_put(f->db, e, obj, NULL, NULL, &e_));
}

static void seed(fx *f)
{
    int64_t now = (int64_t)time(NULL);
    for (int s = 0; s < 3; s++) {
        struct site st = {.name = s % 2 ? "north" : NULL};
        snprintf(st.site_id, sizeof st.site_id, "s%d", s);
        put(f, &site_entity, &st);
    }
    for (int d = 0; d < N_DEVICES; d++) {
        struct device dv = {.version = 0};
        snprintf(dv.device_id, sizeof dv.device_id, "d%d", d);
        snprintf(dv.site_id, sizeof dv.site_id, "s%d", d % 3);
        snprintf(dv.model, sizeof dv.model, "m%d", d % 2);
        snprintf(dv.firmware, sizeof dv.firmware, "fw%d", d);
        put(f, &device_entity, &dv);
        for (int r = 0; r < N_READINGS; r++) {
            /* every fifth reading has expired (TTL): invisible to every read */
            struct reading rd = {.seq = r, .celsius = 10 + d + r * 0.5, .expires = r % 5 == 4 ? now - 3600 : now + 86400};
            snprintf(rd.device_id, sizeof rd.device_id, "d%d", d);
            snprintf(rd.day, sizeof rd.day, "2024-03-0%d", 1 + r % 3);
            put(f, &reading_entity, &rd);
        }
        struct alert al = {.open_site = d % 2 ? "s1" : NULL, .text = "hot"};
        snprintf(al.device_id, sizeof al.device_id, "d%d", d);
        snprintf(al.raised, sizeof al.raised, "2024-03-01T0%d", d);
        put(f, &alert_entity, &al);
    }
    for (int i = 0; i < N_EVENTS; i++) {
        struct event ev = {.seq = i, .what = i % 3 ? "tick" : NULL};
        snprintf(ev.day, sizeof ev.day, "2024-03-0%d", 1 + i % 2);
        put(f, &event_entity, &ev);
    }
}

static int setup(void **state)
{
    static fx f;
    memset(&f, 0, sizeof f);
    const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(f.dir, sizeof f.dir, "%s/ddb-record-paths-%d", base, (int)getpid());
    char cmd[600], uri[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f.dir);
    if (system(cmd))
        return -1;
    snprintf(uri, sizeof uri, "file:%s", f.dir);
    ddb_error err = {0};
    if (ddb_open(uri, NULL, &f.db, &err) || !(f.a = ddb_arena_new()))
        return -1;
    const ddb_entity_desc *ents[] = {&site_entity, &device_entity, &reading_entity, &alert_entity, &event_entity};
    if (ddb_ent_open_table(f.db, &fleet_table, ents, 5, &err)) {
        fprintf(stderr, "open table: %s\n", err.message);
        return -1;
    }
    embedded = f.db->ops;
    f.records = *embedded;
    f.records.scan_records = counted_scan;
    f.records.query_records = counted_query;
    f.records.batch_get_records = counted_batch;
    f.items = *embedded;
    f.items.get_record = NULL;
    f.items.query_records = NULL;
    f.items.scan_records = NULL;
    f.items.batch_get_records = NULL;
    assert_non_null(embedded->scan_records);
    assert_non_null(embedded->batch_get_records);
    seed(&f);
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    use_records(f, true);
    ddb_close(f->db);
    ddb_arena_free(f->a);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
    return system(cmd) ? -1 : 0;
}

/* ---- scans -------------------------------------------------------------------- */

/* One read of entities of e: a typed scan or a query. */
typedef struct read_of {
    const ddb_entity_desc *e;
    uint32_t seg, segs;           /* a scan */
    const char *index;            /* a scan's index (NULL: the table) */
    const ddb_ent_key_cond *kc;   /* a query (NULL: a scan) */
} read_of;

static int run(fx *f, const read_of *r, const ddb_ent_read_opts *o, ddb_ent_result *out, ddb_error *err)
{
    if (r->kc)
        return ddb_ent_query_pattern(f->db, r->e, r->kc, o, f->a, out, err);
    return ddb_ent_scan(f->db, r->e, r->index, r->seg, r->segs, o, f->a, out, err);
}

/* Every page of r, both ways, compared; the entities seen. */
static size_t pages_both(fx *f, const read_of *r, ddb_ent_read_opts o)
{
    size_t seen = 0;
    const char *cursor = NULL;
    int pages = 0;
    do {
        ddb_ent_result x, y;
        ddb_capacity cx, cy;
        o.cursor = cursor;
        o.return_capacity = DDB_CAPACITY_TOTAL;
        use_records(f, true);
        o.capacity = &cx;
        OK(run(f, r, &o, &x, &e_));
        use_records(f, false);
        o.capacity = &cy;
        OK(run(f, r, &o, &y, &e_));
        assert_same_result(r->e, &x, &y);
        assert_same_capacity(&cx, &cy);
        assert_true(cx.total > 0);
        seen += x.count;
        cursor = x.cursor;
        assert_true(++pages < 1000);
    } while (cursor);
    return seen;
}

static size_t scan_both(fx *f, const ddb_entity_desc *e, uint32_t seg, uint32_t segs, ddb_ent_read_opts o)
{
    return pages_both(f, &(read_of){.e = e, .seg = seg, .segs = segs}, o);
}

static size_t query_both(fx *f, const ddb_entity_desc *e, const ddb_ent_key_cond *kc, ddb_ent_read_opts o)
{
    return pages_both(f, &(read_of){.e = e, .kc = kc}, o);
}

/* Typed scans (issue 12 item 6; parallel segments: Developer Guide, "Parallel
 * scan"; Limit counts the items evaluated before any filter: API_Scan, Limit). */
static void test_scans(void **state)
{
    fx *f = *state;
    const size_t live_readings = N_DEVICES * (N_READINGS - N_READINGS / 5);
    const ddb_entity_desc *ents[] = {&site_entity, &device_entity, &reading_entity, &alert_entity, &event_entity};
    const size_t counts[] = {3, N_DEVICES, live_readings, N_DEVICES, N_EVENTS};
    for (size_t i = 0; i < 5; i++) {
        handed_over = 0;
        for (uint32_t page = 0; page <= 7; page += 7) {
            ddb_ent_read_opts o = {.page_size = page};
            assert_int_equal(scan_both(f, ents[i], 0, 0, o), counts[i]);
            size_t parallel = 0;
            for (uint32_t seg = 0; seg < 3; seg++)
                parallel += scan_both(f, ents[i], seg, 3, o);
            assert_int_equal(parallel, counts[i]);
        }
        /* the plain scans of unsharded entities took the record path (a
         * sharded entity's shard items are grouped as items: its scan keeps
         * the type filter) */
        if (!ents[i]->n_shards)
            assert_true(handed_over >= 2 * counts[i]);
    }
    /* a filter, a projection, a count: the item path on both sides, the same answers */
    ddb_item *vals = ddb_item_new(f->a);
    assert_int_equal(ddb_item_set_n(vals, ":t", "14", NULL), 0);
    ddb_ent_read_opts fo = {.filter = "celsius > :t", .filter_values = vals, .page_size = 9};
    size_t hot = scan_both(f, &reading_entity, 0, 0, fo);
    assert_true(hot > 0 && hot < live_readings);
    ddb_ent_mask only_fw = {{0}};
    ddb_ent_mask_set(&only_fw, DEVICE_FIRMWARE);
    ddb_ent_read_opts po = {.fields = &only_fw, .page_size = 4};
    assert_int_equal(scan_both(f, &device_entity, 0, 0, po), N_DEVICES);
    ddb_ent_read_opts co = {.count_only = true};
    assert_int_equal(scan_both(f, &alert_entity, 0, 0, co), N_DEVICES);
    /* scans of indexes: an ALL GSI of a sharded entity (its entries completed
     * from the table), a sparse KEYS_ONLY one (honest results, key fields
     * parsed back) */
    for (uint32_t page = 0; page <= 4; page += 4) {
        ddb_ent_read_opts o = {.page_size = page};
        assert_int_equal(pages_both(f, &(read_of){.e = &device_entity, .index = "GSI1"}, o), N_DEVICES);
        assert_int_equal(pages_both(f, &(read_of){.e = &alert_entity, .index = "OpenAlerts"}, o), N_DEVICES / 2);
    }
}

static void assert_same_everything(const struct everything *x, const struct everything *y)
{
#define SAME(m, ent)                                                                                                  \
    assert_int_equal(x->m##_count, y->m##_count);                                                                      \
    assert_same_entities(&ent, x->m, x->m##_masks, y->m, y->m##_masks, x->m##_count)
    SAME(site, site_entity);
    SAME(device, device_entity);
    SAME(reading, reading_entity);
    SAME(alert, alert_entity);
    SAME(event, event_entity);
#undef SAME
}

/* A table scan grouped by type (issue 12 item 6), page after page. */
static void test_table_scan(void **state)
{
    fx *f = *state;
    handed_over = 0;
    for (uint32_t page = 0; page <= 11; page += 11) {
        const char *cursor = NULL;
        size_t total = 0;
        do {
            struct everything x, y;
            ddb_ent_page_info ix, iy;
            ddb_capacity cx, cy;
            ddb_ent_read_opts o = {.page_size = page, .cursor = cursor, .return_capacity = DDB_CAPACITY_TOTAL};
            use_records(f, true);
            o.capacity = &cx;
            OK(ddb_ent_scan_table(f->db, &everything, 0, 0, &o, f->a, &x, &ix, &e_));
            use_records(f, false);
            o.capacity = &cy;
            OK(ddb_ent_scan_table(f->db, &everything, 0, 0, &o, f->a, &y, &iy, &e_));
            assert_int_equal(ix.count, iy.count);
            assert_int_equal(ix.scanned_count, iy.scanned_count);
            assert_same_cursor(ix.cursor, iy.cursor);
            assert_same_capacity(&cx, &cy);
            assert_same_everything(&x, &y);
            total += ix.count;
            cursor = ix.cursor;
        } while (cursor);
        assert_int_equal(total, 3 + 2 * N_DEVICES + N_DEVICES * (N_READINGS - N_READINGS / 5) + N_EVENTS);
    }
    assert_true(handed_over > 0);
}

/* ---- scatter queries ------------------------------------------------------------ */

/* A write-sharded partition read from every shard and merged in sort-key
 * order (DDB_WRITE_SHARDS; Developer Guide, "Using write sharding to
 * distribute workloads evenly"). */
static void test_scatter(void **state)
{
    fx *f = *state;
    struct event day1 = {.day = "2024-03-01"};
    ddb_ent_key_cond all = {.key = 0, .obj = &day1};
    ddb_item *vals = ddb_item_new(f->a);
    assert_int_equal(ddb_item_set_s(vals, ":w", "tick"), 0);
    handed_over = 0;
    for (uint32_t page = 0; page <= 6; page += 3) {
        for (int back = 0; back < 2; back++) {
            ddb_ent_read_opts o = {.page_size = page, .backward = back};
            assert_int_equal(query_both(f, &event_entity, &all, o), N_EVENTS / 2);
            ddb_ent_read_opts fo = {.page_size = page, .backward = back, .filter = "what = :w", .filter_values = vals};
            size_t ticks = query_both(f, &event_entity, &all, fo);
            assert_true(ticks > 0 && ticks < N_EVENTS / 2);
            ddb_ent_read_opts co = {.page_size = page, .backward = back, .count_only = true};
            assert_int_equal(query_both(f, &event_entity, &all, co), N_EVENTS / 2);
        }
    }
    assert_true(handed_over >= N_EVENTS / 2); /* the record path was taken */
    /* a range on the sort key: events 10..29 of day 1 (the even ones) */
    struct event lo = {.day = "2024-03-01", .seq = 10}, hi = {.day = "2024-03-01", .seq = 29};
    ddb_ent_key_cond between = {.key = 0, .obj = &lo, .op = DDB_ENT_SK_BETWEEN, .level = 1, .hi = &hi};
    assert_int_equal(query_both(f, &event_entity, &between, (ddb_ent_read_opts){.page_size = 4}), 10);

    /* the same partition as a collection, page after page */
    for (uint32_t page = 0; page <= 7; page += 7) {
        const char *cursor = NULL;
        size_t total = 0;
        do {
            struct day_events x, y;
            ddb_ent_page_info ix, iy;
            ddb_ent_read_opts o = {.page_size = page, .cursor = cursor};
            use_records(f, true);
            OK(ddb_ent_collection_page(f->db, &day, 0, &day1, NULL, &o, f->a, &x, &ix, &e_));
            use_records(f, false);
            OK(ddb_ent_collection_page(f->db, &day, 0, &day1, NULL, &o, f->a, &y, &iy, &e_));
            assert_int_equal(ix.count, iy.count);
            assert_int_equal(ix.scanned_count, iy.scanned_count);
            assert_same_cursor(ix.cursor, iy.cursor);
            assert_int_equal(x.event_count, y.event_count);
            assert_same_entities(&event_entity, x.event, x.event_masks, y.event, y.event_masks, x.event_count);
            total += ix.count;
            cursor = ix.cursor;
        } while (cursor);
        assert_int_equal(total, N_EVENTS / 2);
    }
}

/* ---- batch gets ------------------------------------------------------------------- */

/* A batch read of n keys of e both ways (ddb_ent_batch_read with o, or
 * ddb_ent_batch_get when o is NULL), compared; the entities found
 * (SIZE_MAX: the same DDB_EVALIDATION both ways). */
static size_t batch_both(fx *f, const ddb_entity_desc *e, const void *keys, size_t n, const ddb_ent_read_opts *o)
{
    size_t sz = e->st->size, hits = 0;
    char *out[2];
    ddb_ent_mask *masks[2];
    bool *found[2];
    ddb_capacity cap[2];
    int rc[2];
    ddb_error err[2] = {{0}, {0}};
    for (int k = 0; k < 2; k++) {
        out[k] = ddb_arena_alloc(f->a, n * sz);
        masks[k] = ddb_arena_alloc(f->a, n * sizeof *masks[k]);
        found[k] = ddb_arena_alloc(f->a, n * sizeof *found[k]);
        use_records(f, k == 0);
        if (o) {
            ddb_ent_read_opts ro = *o;
            ro.return_capacity = DDB_CAPACITY_TOTAL;
            ro.capacity = &cap[k];
            rc[k] = ddb_ent_batch_read(f->db, e, keys, n, &ro, f->a, out[k], masks[k], found[k], &err[k]);
        } else {
            ddb_ent_opts eo = {.return_capacity = DDB_CAPACITY_TOTAL};
            masks[k] = NULL;
            rc[k] = ddb_ent_batch_get(f->db, e, keys, n, &eo, f->a, out[k], found[k], &cap[k], &err[k]);
        }
    }
    assert_int_equal(rc[0], rc[1]);
    if (rc[0]) {
        assert_int_equal(rc[0], DDB_EVALIDATION);
        assert_string_equal(err[0].message, err[1].message);
        return SIZE_MAX;
    }
    assert_same_capacity(&cap[0], &cap[1]);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(found[0][i], found[1][i]);
        if (found[0][i])
            assert_same_entities(e, out[0] + i * sz, masks[0] ? &masks[0][i] : NULL, out[1] + i * sz,
                                 masks[1] ? &masks[1][i] : NULL, 1);
        hits += found[0][i];
    }
    return hits;
}

/* Batch gets (BatchGetItem: at most 100 keys a request, absent keys are
 * no error; API_BatchGetItem), of more keys than one request takes. */
static void test_batch_gets(void **state)
{
    fx *f = *state;
    enum { N = N_DEVICES * N_READINGS + 40 };
    struct reading *rk = ddb_arena_alloc(f->a, N * sizeof *rk);
    memset(rk, 0, N * sizeof *rk);
    for (int i = 0; i < N; i++) { /* every reading (expired ones too), then keys of none */
        snprintf(rk[i].device_id, sizeof rk[i].device_id, "d%d", i / N_READINGS);
        snprintf(rk[i].day, sizeof rk[i].day, "2024-03-0%d", 1 + (i % N_READINGS) % 3);
        rk[i].seq = i % N_READINGS;
    }
    const size_t live = N_DEVICES * (N_READINGS - N_READINGS / 5);
    handed_over = 0;
    assert_int_equal(batch_both(f, &reading_entity, rk, N, &(ddb_ent_read_opts){0}), live);
    assert_true(handed_over >= live); /* the record path was taken */
    assert_int_equal(batch_both(f, &reading_entity, rk, N, NULL), live);
    ddb_ent_mask cel = {{0}};
    ddb_ent_mask_set(&cel, READING_CELSIUS);
    assert_int_equal(batch_both(f, &reading_entity, rk, N, &(ddb_ent_read_opts){.fields = &cel}), live);

    /* a sharded entity: its shard items in the same request, one struct */
    struct device dk[N_DEVICES + 2];
    memset(dk, 0, sizeof dk);
    for (int i = 0; i < N_DEVICES + 2; i++)
        snprintf(dk[i].device_id, sizeof dk[i].device_id, "d%d", i);
    assert_int_equal(batch_both(f, &device_entity, dk, N_DEVICES + 2, &(ddb_ent_read_opts){0}), N_DEVICES);
    assert_int_equal(batch_both(f, &device_entity, dk, N_DEVICES + 2, NULL), N_DEVICES);
    ddb_ent_mask fw = {{0}};
    ddb_ent_mask_set(&fw, DEVICE_FIRMWARE);
    assert_int_equal(batch_both(f, &device_entity, dk, N_DEVICES + 2, &(ddb_ent_read_opts){.fields = &fw}),
                     N_DEVICES);

    /* the keys of another entity's items: the same error both ways */
    ddb_entity_desc not_reading = reading_entity;
    not_reading.name = "NotReading";
    assert_true(batch_both(f, &not_reading, rk, 3, &(ddb_ent_read_opts){0}) == SIZE_MAX);
    assert_true(batch_both(f, &not_reading, rk, 3, NULL) == SIZE_MAX);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scans),
        cmocka_unit_test(test_table_scan),
        cmocka_unit_test(test_scatter),
        cmocka_unit_test(test_batch_gets),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
