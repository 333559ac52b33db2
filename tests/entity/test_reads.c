/* Every typed read of the entity layer (issue 12) on one schema that
 * combines shards, a version field, a collection, a sparse KEYS_ONLY GSI
 * and a TTL field (fleet_schema.h): queries by sort-key level, paging with
 * cursors both ways, filters, counts, field-mask projections, collection
 * pages whose boundaries fall between shard items, index queries of a
 * sharded entity, honest KEYS_ONLY results, typed scans (one entity, in
 * parallel segments; a whole table by type), gets and batch gets, stream
 * records of one shard completed from the table.
 *
 * Runs on a fresh embedded database, or with DDB_TEST_URI set through the
 * remote backend (tests/entity/CMakeLists.txt runs it against dynalite).
 * dynalite has no TransactWriteItems, so there the device's shard items are
 * written one PutItem each (ddbi_ent_item_part); the reads are the same. */
#include "fleet_schema.h"

#include "entity/reads/entity_reads.h" /* ddbi_ent_item_part: seeding shard items without a transaction; ddbi_ent_parse_key */

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

static bool remote(void)
{
    return getenv("DDB_TEST_URI") && *getenv("DDB_TEST_URI");
}

typedef struct fx {
    ddb *db;
    ddb_arena *a;
    char dir[512];
} fx;

#define OK(expr)                                                                                                      \
    do {                                                                                                              \
        ddb_error err_ = {0};                                                                                         \
        ddb_error *err = &err_;                                                                                       \
        int rc_ = (expr);                                                                                             \
        if (rc_ != DDB_OK)                                                                                            \
            fail_msg("%s -> %d: %s", #expr, rc_, err_.message);                                                       \
    } while (0)

static void put_device(fx *f, struct device d)
{
    ddb_error err = {0};
    if (!remote()) {
        if (ddb_ent_put(f->db, &device_entity, &d, NULL, NULL, &err))
            fail_msg("put device: %s", err.message);
        return;
    }
    d.version = 1; /* what put would store */
    for (int s = 0; s < device_entity.n_shards; s++) {
        ddb_item *it;
        ddb_write_result res;
        if (ddbi_ent_item_part(&device_entity, &d, s, f->a, &it, &err) ||
            ddb_put_item(f->db, "Fleet", it, NULL, f->a, &res, &err))
            fail_msg("put device shard %d: %s", s, err.message);
    }
}

static void put(fx *f, const ddb_entity_desc *e, void *obj)
{
    ddb_error err = {0};
    if (ddb_ent_put(f->db, e, obj, NULL, NULL, &err))
        fail_msg("put %s: %s", e->name, err.message);
}

static void seed(fx *f)
{
    put(f, &site_entity, &(struct site){"s1", "North"});
    put(f, &site_entity, &(struct site){"s2", "South"});
    put_device(f, (struct device){"d1", "s1", "T100", "1.0", 0});
    put_device(f, (struct device){"d2", "s1", "T200", "2.0", 0});
    put_device(f, (struct device){"d3", "s2", "T100", "1.1", 0});
    static const struct {
        const char *day;
        int seq;
    } rd[] = {{"2024-05-01", 1}, {"2024-05-01", 2}, {"2024-05-01", 3},
              {"2024-05-02", 1}, {"2024-05-02", 2}, {"2024-05-10", 1}};
    for (size_t i = 0; i < sizeof rd / sizeof *rd; i++) {
        struct reading r = {.device_id = "d1", .seq = rd[i].seq, .celsius = 10.0 * (double)(i + 1)};
        strcpy(r.day, rd[i].day);
        r.expires = i == 0 ? 4102444800 : 0; /* 2100-01-01: a TTL in the future on one reading */
        put(f, &reading_entity, &r);
    }
    put(f, &reading_entity, &(struct reading){"d2", "2024-05-01", 1, 21.5, 0});
    put(f, &alert_entity, &(struct alert){"d1", "2024-05-01T10", "s1", "hot"});
    put(f, &alert_entity, &(struct alert){"d1", "2024-05-02T11", NULL, "closed"});
    put(f, &alert_entity, &(struct alert){"d1", "2024-05-03T12", "s1", "hotter"});
    put(f, &alert_entity, &(struct alert){"d3", "2024-05-04T09", "s2", "cold"});
}

static int drop(ddb *db)
{
    ddb_error err;
    int rc = ddb_delete_table(db, "Fleet", &err);
    return rc == DDB_OK || rc == DDB_ENOTABLE ? 0 : -1;
}

static int setup(void **state)
{
    static fx f;
    memset(&f, 0, sizeof f);
    char uri[600];
    if (remote())
        snprintf(uri, sizeof uri, "%s", getenv("DDB_TEST_URI"));
    else {
        const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
        snprintf(f.dir, sizeof f.dir, "%s/ddb-reads-%d", base, (int)getpid());
        char cmd[600];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", f.dir);
        if (system(cmd))
            return -1;
        snprintf(uri, sizeof uri, "file:%s", f.dir);
    }
    ddb_error err = {0};
    if (ddb_open(uri, NULL, &f.db, &err) || !(f.a = ddb_arena_new())) {
        fprintf(stderr, "open %s: %s\n", uri, err.message);
        return -1;
    }
    if (remote()) {
        /* dynalite has no UpdateTimeToLive: the table without TTL */
        ddb_table_def def = fleet_table.def;
        def.ttl_attribute = NULL;
        if (drop(f.db) || ddb_create_table(f.db, &def, &err)) {
            fprintf(stderr, "create: %s\n", err.message);
            return -1;
        }
    } else if (ddb_ent_open_table(f.db, &fleet_table, fleet_entities, 4, &err)) {
        fprintf(stderr, "open table: %s\n", err.message);
        return -1;
    }
    seed(&f);
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    if (remote())
        drop(f->db);
    ddb_arena_free(f->a);
    ddb_close(f->db);
    if (!remote()) {
        char cmd[600];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
        if (system(cmd))
            return -1;
    }
    return 0;
}

static void all_fields(const ddb_ent_mask *m, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        if (!ddb_ent_mask_has(m, i))
            fail_msg("field %u is not in the mask", i);
}

/* ---- queries by sort-key level ---------------------------------------- */

static ddb_ent_result query(fx *f, const ddb_entity_desc *e, ddb_ent_key_cond kc, const ddb_ent_read_opts *o)
{
    ddb_ent_result res;
    OK(ddb_ent_query_pattern(f->db, e, &kc, o, f->a, &res, err));
    return res;
}

/* Equality on the whole sort key of a sharded entity finds its shard items
 * (they are stored under DEV#d1#A and DEV#d1#B) and merges them. */
static void test_exact_key_sharded(void **state)
{
    fx *f = *state;
    struct device k = {.device_id = "d1"};
    ddb_ent_result res = query(f, &device_entity, (ddb_ent_key_cond){.key = 0, .obj = &k, .op = DDB_ENT_SK_EQ, .level = 1}, NULL);
    assert_int_equal(res.count, 1);
    struct device *d = res.items;
    assert_string_equal(d->model, "T100");   /* shard A */
    assert_string_equal(d->firmware, "1.0"); /* shard B */
    assert_string_equal(d->site_id, "s1");
    assert_int_equal(d->version, 1);
    all_fields(&res.masks[0], 5);
    assert_null(res.cursor);

    /* the older interface: all sort-key fields given means equality */
    ddb_ent_page pg;
    ddb_ent_query q = {.key = 0, .obj = &k, .sk_fields = 1};
    OK(ddb_ent_query_page(f->db, &device_entity, &q, NULL, f->a, &pg, err));
    assert_int_equal(pg.count, 1);
    assert_string_equal(((struct device *)pg.items)[0].firmware, "1.0");

    /* get with read options, and the mask */
    struct device out;
    ddb_ent_mask m;
    ddb_capacity cap;
    ddb_ent_read_opts o = {.return_capacity = DDB_CAPACITY_TOTAL, .capacity = &cap};
    OK(ddb_ent_read(f->db, &device_entity, &k, &o, f->a, &out, &m, err));
    assert_string_equal(out.firmware, "1.0");
    all_fields(&m, 5);
    assert_true(cap.total > 0);
    struct device none = {.device_id = "dx"};
    ddb_error err = {0};
    assert_int_equal(ddb_ent_read(f->db, &device_entity, &none, NULL, f->a, &out, NULL, &err), DDB_ENOTFOUND);
}

static size_t count_of(fx *f, ddb_ent_sk_op op, uint16_t level, const char *day, int seq, const char *hday,
                       int hseq)
{
    struct reading k = {.device_id = "d1", .seq = seq}, hi = {.device_id = "d1", .seq = hseq};
    snprintf(k.day, sizeof k.day, "%s", day);
    snprintf(hi.day, sizeof hi.day, "%s", hday ? hday : "");
    ddb_ent_result res =
        query(f, &reading_entity, (ddb_ent_key_cond){.key = 0, .obj = &k, .op = op, .level = level, .hi = &hi}, NULL);
    for (size_t i = 0; i < res.count; i++)
        assert_string_equal(((struct reading *)res.items)[i].device_id, "d1");
    return res.count;
}

/* Sort-key conditions by level of READ#{day}#{seq:04}.  DynamoDB's Query
 * KeyConditionExpression takes =, <, <=, >, >=, BETWEEN and begins_with on
 * the sort key (API Reference, Query, KeyConditionExpression); a level
 * turns into one of them on the key's text. */
static void test_levels(void **state)
{
    fx *f = *state;
    assert_int_equal(count_of(f, DDB_ENT_SK_ALL, 0, "", 0, NULL, 0), 6); /* not the alerts or the device */
    assert_int_equal(count_of(f, DDB_ENT_SK_BEGINS, READING_SK_READ, "", 0, NULL, 0), 6);
    assert_int_equal(count_of(f, DDB_ENT_SK_BEGINS, READING_SK_DAY, "2024-05-01", 0, NULL, 0), 3);
    /* at the literal after the day, through the separator: day "2024-05-1"
     * is not a prefix of "2024-05-10#"; at the day's hole, a prefix of the
     * day's text is (reads-gen: generated "level equals" passes the literal,
     * begins_with(day, :p) the hole) */
    assert_int_equal(count_of(f, DDB_ENT_SK_BEGINS, READING_SK_DAY + 1, "2024-05-1", 0, NULL, 0), 0);
    assert_int_equal(count_of(f, DDB_ENT_SK_BEGINS, READING_SK_DAY, "2024-05-1", 0, NULL, 0), 1);
    assert_int_equal(count_of(f, DDB_ENT_SK_EQ, READING_SK_SEQ, "2024-05-02", 2, NULL, 0), 1);
    assert_int_equal(count_of(f, DDB_ENT_SK_LT, READING_SK_SEQ, "2024-05-01", 3, NULL, 0), 2);
    assert_int_equal(count_of(f, DDB_ENT_SK_LE, READING_SK_SEQ, "2024-05-01", 3, NULL, 0), 3);
    /* a range on a level that the key continues after: the whole day counts as equal */
    assert_int_equal(count_of(f, DDB_ENT_SK_GT, READING_SK_DAY, "2024-05-01", 0, NULL, 0), 3);
    assert_int_equal(count_of(f, DDB_ENT_SK_GE, READING_SK_DAY, "2024-05-02", 0, NULL, 0), 3);
    assert_int_equal(count_of(f, DDB_ENT_SK_LE, READING_SK_DAY, "2024-05-02", 0, NULL, 0), 5);
    assert_int_equal(count_of(f, DDB_ENT_SK_LT, READING_SK_DAY, "2024-05-02", 0, NULL, 0), 3);
    assert_int_equal(count_of(f, DDB_ENT_SK_BETWEEN, READING_SK_DAY, "2024-05-02", 0, "2024-05-10", 0), 3);
    assert_int_equal(count_of(f, DDB_ENT_SK_BETWEEN, READING_SK_SEQ, "2024-05-01", 2, "2024-05-01", 3), 2);

    /* what a level cannot take */
    struct reading k = {.device_id = "d1", .day = "2024-05-01", .seq = 1};
    ddb_ent_result res;
    ddb_error err = {0};
    ddb_ent_key_cond eq_short = {.key = 0, .obj = &k, .op = DDB_ENT_SK_EQ, .level = READING_SK_DAY};
    assert_int_equal(ddb_ent_query_pattern(f->db, &reading_entity, &eq_short, NULL, f->a, &res, &err),
                     DDB_EVALIDATION);
    assert_non_null(strstr(err.message, "EQ needs the whole sort key"));
    ddb_ent_key_cond lt_lit = {.key = 0, .obj = &k, .op = DDB_ENT_SK_LT, .level = READING_SK_DAY_SEP};
    assert_int_equal(ddb_ent_query_pattern(f->db, &reading_entity, &lt_lit, NULL, f->a, &res, &err),
                     DDB_EVALIDATION);
    assert_non_null(strstr(err.message, "literal text"));
    ddb_ent_key_cond past = {.key = 0, .obj = &k, .op = DDB_ENT_SK_BEGINS, .level = 9};
    assert_int_equal(ddb_ent_query_pattern(f->db, &reading_entity, &past, NULL, f->a, &res, &err), DDB_EVALIDATION);
    ddb_ent_key_cond between = {.key = 0, .obj = &k, .op = DDB_ENT_SK_BETWEEN, .level = READING_SK_SEQ};
    assert_int_equal(ddb_ent_query_pattern(f->db, &reading_entity, &between, NULL, f->a, &res, &err), DDB_EINVAL);
}

/* Pages of two, newest first, resumed by cursor until it is NULL.  Limit
 * is the most items evaluated per page and LastEvaluatedKey resumes (API
 * Reference, Query, Limit and ExclusiveStartKey). */
static void test_paging_backward(void **state)
{
    fx *f = *state;
    static const char *const want[] = {"2024-05-10/1", "2024-05-02/2", "2024-05-02/1",
                                       "2024-05-01/3", "2024-05-01/2", "2024-05-01/1"};
    struct reading k = {.device_id = "d1"};
    ddb_ent_read_opts o = {.page_size = 2, .backward = true};
    size_t n = 0, pages = 0;
    do {
        ddb_ent_result res = query(f, &reading_entity, (ddb_ent_key_cond){.key = 0, .obj = &k}, &o);
        assert_true(res.count <= 2);
        for (size_t i = 0; i < res.count; i++, n++) {
            const struct reading *r = &((struct reading *)res.items)[i];
            char got[32];
            snprintf(got, sizeof got, "%s/%d", r->day, (int)r->seq);
            assert_true(n < 6);
            assert_string_equal(got, want[n]);
        }
        o.cursor = res.cursor;
        assert_true(++pages <= 4);
    } while (o.cursor);
    assert_int_equal(n, 6);
}

/* Filters (applied after the key condition, before the page is returned:
 * Query, FilterExpression), counts, and projections by field mask. */
static void test_filter_count_projection(void **state)
{
    fx *f = *state;
    struct reading k = {.device_id = "d1"};
    ddb_item *names = ddb_item_new(f->a), *values = ddb_item_new(f->a);
    assert_int_equal(ddb_item_set_s(names, "#c", "celsius"), 0);
    assert_int_equal(ddb_item_set_i64(values, ":min", 35), 0);
    ddb_ent_read_opts o = {.filter = "#c > :min", .filter_names = names, .filter_values = values};
    ddb_ent_result res = query(f, &reading_entity, (ddb_ent_key_cond){.key = 0, .obj = &k}, &o);
    assert_int_equal(res.count, 3); /* 40, 50, 60 */
    assert_int_equal(res.scanned_count, 6);
    for (size_t i = 0; i < res.count; i++)
        assert_true(((struct reading *)res.items)[i].celsius > 35);

    /* count only: the matching entities, no items */
    o.count_only = true;
    res = query(f, &reading_entity, (ddb_ent_key_cond){.key = 0, .obj = &k}, &o);
    assert_int_equal(res.count, 3);
    assert_null(res.items);
    ddb_ent_read_opts c = {.count_only = true};
    struct device dk = {.device_id = "d1"};
    res = query(f, &device_entity, (ddb_ent_key_cond){.key = 0, .obj = &dk}, &c);
    assert_int_equal(res.count, 1); /* one device, two shard items */

    /* a projection: only celsius and the primary key's fields (always
     * read: entity.h, ddb_ent_read_opts.fields) */
    ddb_ent_mask m = {{0}};
    ddb_ent_mask_set(&m, READING_CELSIUS);
    ddb_ent_read_opts p = {.fields = &m};
    res = query(f, &reading_entity, (ddb_ent_key_cond){.key = 0, .obj = &k}, &p);
    assert_int_equal(res.count, 6);
    for (size_t i = 0; i < res.count; i++) {
        assert_true(ddb_ent_mask_has(&res.masks[i], READING_CELSIUS));
        assert_true(ddb_ent_mask_has(&res.masks[i], READING_DAY));
        assert_string_not_equal(((struct reading *)res.items)[i].day, "");
    }
    /* the TTL field is set only where the item has one */
    ddb_ent_read_opts all = {0};
    res = query(f, &reading_entity, (ddb_ent_key_cond){.key = 0, .obj = &k}, &all);
    assert_true(ddb_ent_mask_has(&res.masks[0], READING_EXPIRES));
    assert_int_equal(((struct reading *)res.items)[0].expires, 4102444800);
    assert_false(ddb_ent_mask_has(&res.masks[1], READING_EXPIRES));
}

/* ---- collections ------------------------------------------------------ */

/* Pages of one entity (Limit 2 items: the first boundary falls between the
 * device's shard items DEV#d1#A and DEV#d1#B): each page's device is whole,
 * the cursor resumes after it, and the totals are the partition's. */
static void test_collection_pages(void **state)
{
    fx *f = *state;
    struct device k = {.device_id = "d1"};
    ddb_ent_read_opts o = {.page_size = 1};
    ddb_ent_collection_iter it;
    ddb_ent_collection_iter_init(&it, f->db, &telemetry, 0, &k, NULL, &o);
    size_t devices = 0, readings = 0, alerts = 0, pages = 0;
    struct telemetry t;
    for (;;) {
        OK(ddb_ent_collection_next(&it, f->a, &t, err));
        if (!it.has_page)
            break;
        pages++;
        for (size_t i = 0; i < t.device_count; i++) {
            assert_string_equal(t.device[i].model, "T100");
            assert_string_equal(t.device[i].firmware, "1.0");
            all_fields(&t.device_masks[i], 5);
        }
        devices += t.device_count;
        readings += t.reading_count;
        alerts += t.alert_count;
        assert_true(pages < 20);
    }
    ddb_ent_collection_iter_done(&it);
    assert_int_equal(devices, 1);
    assert_int_equal(readings, 6);
    assert_int_equal(alerts, 3);
    assert_true(pages >= 5);

    /* the whole partition at once (the older interface): the collection
     * with a sharded member decodes */
    ddb_capacity cap;
    OK(ddb_ent_query_collection(f->db, &telemetry, 0, &k, NULL, f->a, &t, &cap, err));
    assert_int_equal(t.device_count, 1);
    assert_string_equal(t.device[0].firmware, "1.0");
    assert_int_equal(t.reading_count, 6);
    assert_int_equal(t.alert_count, 3);

    /* a sort-key range on the shared prefix */
    ddb_ent_range r = {.op = DDB_SK_BEGINS_WITH, .lo = ddb_v_str(f->a, "READ#2024-05-01")};
    ddb_ent_page_info info;
    OK(ddb_ent_collection_page(f->db, &telemetry, 0, &k, &r, NULL, f->a, &t, &info, err));
    assert_int_equal(t.reading_count, 3);
    assert_int_equal(t.device_count + t.alert_count, 0);
    assert_int_equal(info.count, 3);
    assert_null(info.cursor);

    /* backward, pages of one: still whole devices */
    ddb_ent_read_opts b = {.page_size = 1, .backward = true};
    ddb_ent_collection_iter_init(&it, f->db, &telemetry, 0, &k, NULL, &b);
    devices = 0;
    for (;;) {
        OK(ddb_ent_collection_next(&it, f->a, &t, err));
        if (!it.has_page)
            break;
        for (size_t i = 0; i < t.device_count; i++)
            assert_string_equal(t.device[i].model, "T100");
        devices += t.device_count;
    }
    ddb_ent_collection_iter_done(&it);
    assert_int_equal(devices, 1);
}

/* ---- indexes ---------------------------------------------------------- */

/* GSI1 holds shard A of each device; the query returns whole devices. */
static void test_index_sharded(void **state)
{
    fx *f = *state;
    struct device k = {.site_id = "s1"};
    ddb_ent_result res = query(f, &device_entity, (ddb_ent_key_cond){.key = 1, .obj = &k}, NULL);
    assert_int_equal(res.count, 2);
    struct device *d = res.items;
    assert_string_equal(d[0].device_id, "d1");
    assert_string_equal(d[0].firmware, "1.0");
    assert_string_equal(d[1].device_id, "d2");
    assert_string_equal(d[1].firmware, "2.0");
    /* equality on the index's whole sort key */
    struct device one = {.site_id = "s1", .device_id = "d2"};
    res = query(f, &device_entity, (ddb_ent_key_cond){.key = 1, .obj = &one, .op = DDB_ENT_SK_EQ, .level = 1}, NULL);
    assert_int_equal(res.count, 1);
    assert_string_equal(((struct device *)res.items)[0].model, "T200");
    /* a strongly consistent read of a GSI is refused (Query, ConsistentRead:
     * "Strongly consistent reads are not supported on global secondary indexes") */
    ddb_ent_read_opts o = {.consistent = true};
    ddb_error err = {0};
    ddb_ent_key_cond kc = {.key = 1, .obj = &k};
    assert_int_not_equal(ddb_ent_query_pattern(f->db, &device_entity, &kc, &o, f->a, &res, &err), DDB_OK);
}

/* OpenAlerts is sparse (only alerts with open_site) and KEYS_ONLY: "each
 * item in the index consists only of the table partition key and sort key
 * values, plus the index key values" (Developer Guide, Projected
 * Attributes).  The query returns what the index holds, with masks that
 * say so; fetch_base reads the whole alerts, explicitly. */
static void test_keys_only_sparse(void **state)
{
    fx *f = *state;
    struct alert k = {.open_site = "s1"};
    ddb_capacity cap;
    ddb_ent_read_opts o = {.return_capacity = DDB_CAPACITY_TOTAL, .capacity = &cap};
    ddb_ent_result res = query(f, &alert_entity, (ddb_ent_key_cond){.key = 1, .obj = &k}, &o);
    assert_int_equal(res.count, 2); /* the closed alert is not in the index */
    double index_only = cap.total;
    for (size_t i = 0; i < res.count; i++) {
        const struct alert *al = &((struct alert *)res.items)[i];
        assert_false(ddb_ent_mask_has(&res.masks[i], ALERT_TEXT));
        assert_null(al->text);
        /* the fields only the key attributes hold, parsed back through the
         * templates: PK DEVICE#{device_id}, SK ALERT#{raised}, OAPK {open_site} */
        assert_true(ddb_ent_mask_has(&res.masks[i], ALERT_DEVICE));
        assert_true(ddb_ent_mask_has(&res.masks[i], ALERT_RAISED));
        assert_true(ddb_ent_mask_has(&res.masks[i], ALERT_OPEN_SITE));
        assert_string_equal(al->device_id, "d1");
        assert_string_equal(al->raised, i == 0 ? "2024-05-01T10" : "2024-05-03T12");
        assert_string_equal(al->open_site, "s1");
    }
    o.fetch_base = true;
    res = query(f, &alert_entity, (ddb_ent_key_cond){.key = 1, .obj = &k}, &o);
    assert_int_equal(res.count, 2);
    assert_string_equal(((struct alert *)res.items)[0].text, "hot");
    assert_string_equal(((struct alert *)res.items)[1].text, "hotter");
    assert_true(ddb_ent_mask_has(&res.masks[0], ALERT_TEXT));
    assert_true(cap.total > index_only); /* the base reads are paid, and shown */
}

/* Key text parsed back through a template: a padded number only when it
 * reads back as rendered, a hole left unset when a separator it may hold
 * itself makes the split ambiguous, a text the template does not fit. */
static void test_parse_key(void **state)
{
    fx *f = *state;
    const ddb_template *rsk = &reading_keys[0].sk;
    struct reading r = {0};
    ddb_ent_mask m = {0};
    ddbi_ent_parse_key(&reading_entity, rsk, ddb_v_str(f->a, "READ#2024-05-01#0042"), SIZE_MAX, &r, f->a, &m);
    assert_string_equal(r.day, "2024-05-01");
    assert_int_equal(r.seq, 42);
    assert_true(ddb_ent_mask_has(&m, READING_DAY) && ddb_ent_mask_has(&m, READING_SEQ));
    assert_false(ddb_ent_mask_has(&m, READING_DEVICE));

    /* {seq:04} renders 42 as "0042": "42" is not such a key; "x" no number */
    memset(&r, 0, sizeof r), memset(&m, 0, sizeof m);
    ddbi_ent_parse_key(&reading_entity, rsk, ddb_v_str(f->a, "READ#2024-05-01#42"), SIZE_MAX, &r, f->a, &m);
    assert_true(ddb_ent_mask_has(&m, READING_DAY));
    assert_false(ddb_ent_mask_has(&m, READING_SEQ));
    assert_int_equal(r.seq, 0);
    ddbi_ent_parse_key(&reading_entity, rsk, ddb_v_str(f->a, "READ#2024-05-01#000x"), SIZE_MAX, &r, f->a, &m);
    assert_false(ddb_ent_mask_has(&m, READING_SEQ));

    /* a field already set (projected) is kept */
    memset(&m, 0, sizeof m);
    strcpy(r.day, "kept");
    ddb_ent_mask_set(&m, READING_DAY);
    ddbi_ent_parse_key(&reading_entity, rsk, ddb_v_str(f->a, "READ#2024-05-01#0001"), SIZE_MAX, &r, f->a, &m);
    assert_string_equal(r.day, "kept");
    assert_int_equal(r.seq, 1);

    /* {device_id}#{raised} with "a#b#c": two splits fit, so neither field
     * is set; "d1#2024" has one */
    const ddb_template *osk = &alert_keys[1].sk;
    struct alert al = {0};
    memset(&m, 0, sizeof m);
    ddbi_ent_parse_key(&alert_entity, osk, ddb_v_str(f->a, "a#b#c"), SIZE_MAX, &al, f->a, &m);
    assert_false(ddb_ent_mask_has(&m, ALERT_DEVICE) || ddb_ent_mask_has(&m, ALERT_RAISED));
    assert_string_equal(al.device_id, "");
    ddbi_ent_parse_key(&alert_entity, osk, ddb_v_str(f->a, "d1#2024"), SIZE_MAX, &al, f->a, &m);
    assert_string_equal(al.device_id, "d1");
    assert_string_equal(al.raised, "2024");

    /* longer than char[16] holds: not stored, not truncated */
    memset(&al, 0, sizeof al), memset(&m, 0, sizeof m);
    ddbi_ent_parse_key(&alert_entity, &alert_keys[0].pk, ddb_v_str(f->a, "DEVICE#0123456789abcdefXYZ"), SIZE_MAX, &al,
                       f->a, &m);
    assert_false(ddb_ent_mask_has(&m, ALERT_DEVICE));
    assert_string_equal(al.device_id, "");

    /* a text the template does not fit, and the length limit (a shard suffix cut off) */
    ddbi_ent_parse_key(&alert_entity, &alert_keys[0].pk, ddb_v_str(f->a, "SITE#s1"), SIZE_MAX, &al, f->a, &m);
    assert_false(ddb_ent_mask_has(&m, ALERT_DEVICE));
    ddbi_ent_parse_key(&alert_entity, &alert_keys[0].pk, ddb_v_str(f->a, "DEVICE#d7.3"), 9, &al, f->a, &m);
    assert_string_equal(al.device_id, "d7");
}

/* Date parts ({d|year}, |month, |day, |quarter; docs/SCHEMA.md, Template
 * grammar) are placed by their fixed widths, so the holes after them still
 * parse; a field seen only as date parts is rebuilt when they determine it
 * (reading.day is char[11]: "YYYY-MM-DD" exactly), else it stays absent. */
static void test_parse_date_parts(void **state)
{
    fx *f = *state;
    const ddb_tseg ymd[] = {{.path = P1(1), .path_len = 1, .part = DDB_TP_YEAR},
                                   {.path = P1(1), .path_len = 1, .part = DDB_TP_MONTH},
                                   {.path = P1(1), .path_len = 1, .part = DDB_TP_DAY},
                                   {.lit = "#"},
                                   {.path = P1(2), .path_len = 1, .pad = 4}};
    const ddb_template t_ymd = {ymd, 5, DDB_TS};
    struct reading r = {0};
    ddb_ent_mask m = {0};
    ddbi_ent_parse_key(&reading_entity, &t_ymd, ddb_v_str(f->a, "20240501#0042"), SIZE_MAX, &r, f->a, &m);
    assert_string_equal(r.day, "2024-05-01");
    assert_int_equal(r.seq, 42);
    assert_true(ddb_ent_mask_has(&m, READING_DAY) && ddb_ent_mask_has(&m, READING_SEQ));

    /* a year and a quarter do not make a day: absent, the mask says so */
    const ddb_tseg yq[] = {{.path = P1(1), .path_len = 1, .part = DDB_TP_YEAR},
                                  {.lit = "-"},
                                  {.path = P1(1), .path_len = 1, .part = DDB_TP_QUARTER},
                                  {.path = P1(2), .path_len = 1, .pad = 4}};
    const ddb_template t_yq = {yq, 4, DDB_TS};
    memset(&r, 0, sizeof r), memset(&m, 0, sizeof m);
    ddbi_ent_parse_key(&reading_entity, &t_yq, ddb_v_str(f->a, "2024-Q20042"), SIZE_MAX, &r, f->a, &m);
    assert_false(ddb_ent_mask_has(&m, READING_DAY));
    assert_string_equal(r.day, "");
    assert_true(ddb_ent_mask_has(&m, READING_SEQ)); /* placed after the quarter's two characters */
    assert_int_equal(r.seq, 42);

    /* the field whole in another hole of the key wins */
    const ddb_tseg yw[] = {{.lit = "Y"}, {.path = P1(1), .path_len = 1, .part = DDB_TP_YEAR}, {.lit = "#"},
                                  HOLE(1)};
    const ddb_template t_yw = {yw, 4, DDB_TS};
    memset(&r, 0, sizeof r), memset(&m, 0, sizeof m);
    ddbi_ent_parse_key(&reading_entity, &t_yw, ddb_v_str(f->a, "Y2024#2024-05-01"), SIZE_MAX, &r, f->a, &m);
    assert_string_equal(r.day, "2024-05-01");

    /* a year and a month of a longer field (alert.raised is char[24]: a time may follow) */
    const ddb_tseg ym[] = {{.path = P1(1), .path_len = 1, .part = DDB_TP_YEAR},
                                  {.path = P1(1), .path_len = 1, .part = DDB_TP_MONTH},
                                  {.lit = "#"},
                                  HOLE(0)};
    const ddb_template t_ym = {ym, 4, DDB_TS};
    struct alert al = {0};
    memset(&m, 0, sizeof m);
    ddbi_ent_parse_key(&alert_entity, &t_ym, ddb_v_str(f->a, "202403#d1"), SIZE_MAX, &al, f->a, &m);
    assert_false(ddb_ent_mask_has(&m, ALERT_RAISED));
    assert_string_equal(al.raised, "");
    assert_string_equal(al.device_id, "d1");

    /* text that is no date part: the key was not rendered from this template */
    memset(&r, 0, sizeof r), memset(&m, 0, sizeof m);
    ddbi_ent_parse_key(&reading_entity, &t_ymd, ddb_v_str(f->a, "20x40501#0042"), SIZE_MAX, &r, f->a, &m);
    assert_false(ddb_ent_mask_has(&m, READING_DAY) || ddb_ent_mask_has(&m, READING_SEQ));
}

/* ---- scans ------------------------------------------------------------ */

/* A typed scan returns only its entity's items; parallel segments split
 * the table between them (Developer Guide, Parallel scan). */
static void test_scans(void **state)
{
    fx *f = *state;
    size_t readings = 0;
    for (uint32_t seg = 0; seg < 2; seg++) {
        ddb_ent_read_opts o = {0};
        do {
            ddb_ent_result res;
            OK(ddb_ent_scan(f->db, &reading_entity, NULL, seg, 2, &o, f->a, &res, err));
            readings += res.count;
            o.cursor = res.cursor;
        } while (o.cursor);
    }
    assert_int_equal(readings, 7);

    /* devices, in pages of one: merged shard items, never split */
    ddb_ent_read_opts o = {.page_size = 1};
    size_t devices = 0;
    do {
        ddb_ent_result res;
        OK(ddb_ent_scan(f->db, &device_entity, NULL, 0, 0, &o, f->a, &res, err));
        for (size_t i = 0; i < res.count; i++) {
            assert_true(((struct device *)res.items)[i].firmware[0] != '\0');
            assert_true(((struct device *)res.items)[i].model[0] != '\0');
        }
        devices += res.count;
        o.cursor = res.cursor;
    } while (o.cursor);
    assert_int_equal(devices, 3);

    /* with a filter */
    ddb_item *names = ddb_item_new(f->a), *values = ddb_item_new(f->a);
    assert_int_equal(ddb_item_set_s(names, "#m", "model"), 0);
    assert_int_equal(ddb_item_set_s(values, ":m", "T100"), 0);
    ddb_ent_read_opts fo = {.filter = "#m = :m", .filter_names = names, .filter_values = values};
    ddb_ent_result res;
    OK(ddb_ent_scan(f->db, &device_entity, NULL, 0, 0, &fo, f->a, &res, err));
    assert_int_equal(res.count, 2); /* d1 and d3, whole (firmware is on the other shard) */
    assert_true(((struct device *)res.items)[0].firmware[0] != '\0');

    /* a sparse KEYS_ONLY index, which does not hold the type attribute: its
     * entries told by their key templates, key fields parsed back, the mask
     * honest (API_Scan scans an index with IndexName; KEYS_ONLY projects the
     * key attributes only: Developer Guide, "Projections") */
    OK(ddb_ent_scan(f->db, &alert_entity, "OpenAlerts", 0, 0, NULL, f->a, &res, err));
    assert_int_equal(res.count, 3); /* the closed alert is not in the index */
    for (size_t i = 0; i < res.count; i++) {
        const struct alert *al = &((struct alert *)res.items)[i];
        assert_true(al->device_id[0] == 'd' && al->raised[0] == '2' && al->open_site);
        assert_true(ddb_ent_mask_has(&res.masks[i], ALERT_DEVICE) && !ddb_ent_mask_has(&res.masks[i], ALERT_TEXT));
        assert_null(al->text);
    }

    /* the whole table by type */
    struct everything {
        struct site *site;
        size_t site_count;
        struct device *device;
        size_t device_count;
        struct reading *reading;
        size_t reading_count;
        struct alert *alert;
        size_t alert_count;
    } t;
    const ddb_collection_member m[] = {
        {.entity = &site_entity, .items_offset = offsetof(struct everything, site),
         .count_offset = offsetof(struct everything, site_count)},
        {.entity = &device_entity, .items_offset = offsetof(struct everything, device),
         .count_offset = offsetof(struct everything, device_count)},
        {.entity = &reading_entity, .items_offset = offsetof(struct everything, reading),
         .count_offset = offsetof(struct everything, reading_count)},
        {.entity = &alert_entity, .items_offset = offsetof(struct everything, alert),
         .count_offset = offsetof(struct everything, alert_count)},
    };
    const ddb_collection_desc all = {.name = "fleet", .n_members = 4, .members = m};
    size_t n[4] = {0};
    ddb_ent_read_opts po = {.page_size = 1};
    ddb_ent_page_info info;
    do {
        OK(ddb_ent_scan_table(f->db, &all, 0, 0, &po, f->a, &t, &info, err));
        n[0] += t.site_count;
        n[1] += t.device_count;
        n[2] += t.reading_count;
        n[3] += t.alert_count;
        for (size_t i = 0; i < t.device_count; i++)
            assert_true(t.device[i].firmware[0] != '\0');
        po.cursor = info.cursor;
    } while (po.cursor);
    assert_int_equal(n[0], 2);
    assert_int_equal(n[1], 3);
    assert_int_equal(n[2], 7);
    assert_int_equal(n[3], 4);
}

/* ---- batch get -------------------------------------------------------- */

static void test_batch_get_sharded(void **state)
{
    fx *f = *state;
    struct device keys[3] = {{.device_id = "d1"}, {.device_id = "dx"}, {.device_id = "d3"}}, out[3];
    bool found[3];
    ddb_capacity cap;
    OK(ddb_ent_batch_get(f->db, &device_entity, keys, 3, NULL, f->a, out, found, &cap, err));
    assert_true(found[0]);
    assert_false(found[1]);
    assert_true(found[2]);
    assert_string_equal(out[0].firmware, "1.0");
    assert_string_equal(out[2].firmware, "1.1");
    assert_string_equal(out[2].model, "T100");
}

/* ---- stream records --------------------------------------------------- */

/* An update of the device's firmware writes shard B only: its record's
 * image holds shard B's fields; ddb_ent_complete_record reads the others. */
static void test_stream_record_merged(void **state)
{
    fx *f = *state;
    if (remote()) {
        skip(); /* the embedded engine's stream; the remote one is read the same way */
        return;
    }
    ddb_stream_spec spec = {.view = DDB_STREAM_NEW_AND_OLD_IMAGES};
    OK(ddb_update_table_stream(f->db, "Fleet", &spec, err));
    ddb_stream_iter *it;
    OK(ddb_stream_iter_open(f->db, "Fleet", DDB_STREAM_LATEST, 0, &it, err));
    struct device d = {.device_id = "d1"};
    OK(ddb_ent_read(f->db, &device_entity, &d, NULL, f->a, &d, NULL, err));
    strcpy(d.firmware, "1.5");
    const char *fields[] = {"firmware"};
    OK(ddb_ent_update_fields(f->db, &device_entity, &d, fields, 1, NULL, NULL, err));
    ddb_stream_record recs[8];
    size_t n = 0;
    OK(ddb_stream_read(it, 8, f->a, recs, &n, err));
    ddb_stream_iter_close(it);
    assert_true(n >= 1);
    struct device nw, old;
    ddb_ent_record info;
    OK(ddb_ent_decode_record(fleet_entities, 4, &recs[n - 1], f->a, &nw, &old, sizeof nw, &info, err));
    assert_int_equal(info.type, 2);
    assert_true(info.partial);
    assert_string_equal(nw.firmware, "1.5");
    assert_string_equal(nw.model, ""); /* on shard A */
    assert_false(ddb_ent_mask_has(&info.new_fields, DEVICE_MODEL));
    OK(ddb_ent_complete_record(f->db, fleet_entities, 4, NULL, f->a, &info, &nw, err));
    assert_false(info.partial);
    assert_string_equal(nw.model, "T100");
    assert_string_equal(nw.site_id, "s1");
    assert_string_equal(nw.firmware, "1.5");
    all_fields(&info.new_fields, 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_exact_key_sharded, setup, teardown),
        cmocka_unit_test_setup_teardown(test_levels, setup, teardown),
        cmocka_unit_test_setup_teardown(test_paging_backward, setup, teardown),
        cmocka_unit_test_setup_teardown(test_filter_count_projection, setup, teardown),
        cmocka_unit_test_setup_teardown(test_collection_pages, setup, teardown),
        cmocka_unit_test_setup_teardown(test_index_sharded, setup, teardown),
        cmocka_unit_test_setup_teardown(test_keys_only_sparse, setup, teardown),
        cmocka_unit_test_setup_teardown(test_parse_key, setup, teardown),
        cmocka_unit_test_setup_teardown(test_parse_date_parts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_scans, setup, teardown),
        cmocka_unit_test_setup_teardown(test_batch_get_sharded, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stream_record_merged, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
