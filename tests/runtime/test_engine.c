/* Tables, items, sizes, capacity, limits, partitions, group commit. */
#include "testutil.h"

#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char dir[512];

static void create_basic(ddb *db, const char *name)
{
    static const char *const inc[] = {"email"};
    ddb_index_def ix[] = {
        {.name = "GSI1", .key = {.pk = "GSI1PK", .pk_type = DDB_TS, .sk = "GSI1SK", .sk_type = DDB_TS}},
        {.name = "ByYear", .key = {.pk = "Year", .pk_type = DDB_TN, .sk = "SK", .sk_type = DDB_TS}, .projection = DDB_PROJ_KEYS_ONLY},
        {.name = "LSI1", .local = true, .key = {.pk = "PK", .pk_type = DDB_TS, .sk = "LSI1SK", .sk_type = DDB_TS}, .projection = DDB_PROJ_INCLUDE,
         .include = inc, .n_include = 1},
    };
    ddb_table_def def = {.name = name, .key = {.pk = "PK", .pk_type = DDB_TS, .sk = "SK", .sk_type = DDB_TS}, .indexes = ix, .n_indexes = 3};
    ddb_error err = {0};
    int rc = ddb_create_table(db, &def, &err);
    if (rc)
        fail_msg("create: %s", err.message);
}

static void test_tables(void **state)
{
    (void)state;
    ddb *db = tu_open("tables", NULL, dir, sizeof dir);
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    create_basic(db, "Shop");
    assert_int_equal(ddb_create_table(db, &(ddb_table_def){.name = "Shop", .key = {.pk = "PK", .pk_type = DDB_TS}}, &err),
                     DDB_EEXISTS);
    assert_string_equal(err.message, "Table already exists: Shop");
    assert_int_equal(ddb_create_table(db, &(ddb_table_def){.name = "x", .key = {.pk = "PK", .pk_type = DDB_TS}}, &err),
                     DDB_EVALIDATION);
    assert_string_equal(err.message,
                        "TableName must be at least 3 characters long and at most 255 characters long (\"x\" has 1)");
    assert_int_equal(ddb_create_table(db, &(ddb_table_def){.name = "Bad", .key = {.pk = "PK", .pk_type = DDB_TBOOL}}, &err),
                     DDB_EVALIDATION);
    ddb_index_def many[21];
    char names[21][8];
    for (int i = 0; i < 21; i++) {
        snprintf(names[i], sizeof names[i], "G%02d", i);
        many[i] = (ddb_index_def){.name = names[i], .key = {.pk = "G", .pk_type = DDB_TS}};
    }
    assert_int_equal(ddb_create_table(db, &(ddb_table_def){.name = "Many", .key = {.pk = "PK", .pk_type = DDB_TS}, .indexes = many, .n_indexes = 21}, &err),
                     DDB_ELIMIT);
    /* DynamoDB's words (dynalite test/createTable.js), our detail after them */
    assert_string_equal(err.message, "One or more parameter values were invalid: GlobalSecondaryIndex count exceeds "
                                     "the per-table limit of 20 (table Many has 21)");
    TU_OK(ddb_create_table(db, &(ddb_table_def){.name = "Many", .key = {.pk = "PK", .pk_type = DDB_TS}, .indexes = many, .n_indexes = 20}, &err));

    const char **tn;
    size_t n;
    TU_OK(ddb_list_tables(db, a, &tn, &n, &err));
    assert_int_equal(n, 2);
    assert_string_equal(tn[0], "Many");
    assert_string_equal(tn[1], "Shop");

    ddb_table_desc *d;
    TU_OK(ddb_describe_table(db, "Shop", a, &d, &err));
    assert_string_equal(d->def.key.pk, "PK");
    assert_string_equal(d->def.key.sk, "SK");
    assert_int_equal(d->def.n_indexes, 3);
    assert_string_equal(d->def.indexes[2].name, "LSI1");
    assert_true(d->def.indexes[2].local);
    assert_int_equal(d->def.indexes[2].projection, DDB_PROJ_INCLUDE);
    assert_string_equal(d->def.indexes[2].include[0], "email");
    assert_int_equal(d->partitions, 4); /* on demand */
    assert_int_equal(d->item_count, 0);

    TU_OK(ddb_delete_table(db, "Many", &err));
    assert_int_equal(ddb_describe_table(db, "Many", a, &d, &err), DDB_ENOTABLE);
    assert_int_equal(ddb_delete_table(db, "Many", &err), DDB_ENOTABLE);

    /* provisioned: 1 partition per 3000 RCU + 1000 WCU */
    TU_OK(ddb_create_table(db, &(ddb_table_def){.name = "Prov", .key = {.pk = "PK", .pk_type = DDB_TN}, .rcu = 6000, .wcu = 1500},
                           &err));
    TU_OK(ddb_describe_table(db, "Prov", a, &d, &err));
    assert_int_equal(d->partitions, 4); /* 2 + 1.5 -> 4 */

    /* survives reopening */
    ddb_close(db);
    char uri[600];
    snprintf(uri, sizeof uri, "file:%s", dir);
    TU_OK(ddb_open(uri, NULL, &db, &err));
    TU_OK(ddb_describe_table(db, "Shop", a, &d, &err));
    assert_int_equal(d->def.n_indexes, 3);
    ddb_close(db);
    ddb_arena_free(a);
    tu_rmdir(dir);
}

static void test_put_get_delete(void **state)
{
    (void)state;
    ddb *db = tu_open("items", NULL, dir, sizeof dir);
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    create_basic(db, "Shop");
    ddb_item *it = tu_item(a, "PK", 's', "ORG#1", "SK", 's', "USER#ann", "email", 's', "ann@x.org", "logins", 'i',
                           (int64_t)42, NULL);
    ddb_write_result res;
    ddb_write_opts wo = {.return_capacity = DDB_CAPACITY_INDEXES, .return_values = DDB_RETURN_ALL_OLD};
    TU_OK(ddb_put_item(db, "Shop", it, &wo, a, &res, &err));
    assert_null(res.attributes);
    assert_true(res.capacity.write == 1.0);

    ddb_item *key = tu_item(a, "PK", 's', "ORG#1", "SK", 's', "USER#ann", NULL), *got;
    ddb_capacity cap;
    TU_OK(ddb_get_item(db, "Shop", key, &(ddb_get_opts){.return_capacity = DDB_CAPACITY_TOTAL}, a, &got, &cap, &err));
    assert_string_equal(ddb_item_get(got, "email")->u.s, "ann@x.org");
    assert_string_equal(ddb_item_get(got, "logins")->u.s, "42");
    assert_true(cap.total == 0.5);
    TU_OK(ddb_get_item(db, "Shop", key, &(ddb_get_opts){.consistent = true, .return_capacity = DDB_CAPACITY_TOTAL}, a,
                       &got, &cap, &err));
    assert_true(cap.total == 1.0);
    /* projection */
    const char *const attrs[] = {"logins", "nope"};
    TU_OK(ddb_get_item(db, "Shop", key, &(ddb_get_opts){.attributes = attrs, .n_attributes = 2}, a, &got, NULL, &err));
    assert_int_equal(ddb_item_count(got), 1);
    assert_string_equal(ddb_item_get(got, "logins")->u.s, "42");

    /* replace returns the old item */
    ddb_item *it2 = tu_item(a, "PK", 's', "ORG#1", "SK", 's', "USER#ann", "logins", 'i', (int64_t)43, NULL);
    TU_OK(ddb_put_item(db, "Shop", it2, &wo, a, &res, &err));
    assert_non_null(res.attributes);
    assert_string_equal(ddb_item_get(res.attributes, "logins")->u.s, "42");

    /* missing item */
    ddb_item *k2 = tu_item(a, "PK", 's', "ORG#1", "SK", 's', "USER#bob", NULL);
    assert_int_equal(ddb_get_item(db, "Shop", k2, &(ddb_get_opts){.return_capacity = DDB_CAPACITY_TOTAL}, a, &got, &cap,
                                  &err),
                     DDB_ENOTFOUND);
    assert_null(got);
    assert_true(cap.total == 0.5); /* a miss still costs */

    /* delete returns old; deleting a missing item succeeds and costs 1 WCU */
    TU_OK(ddb_delete_item(db, "Shop", key, &wo, a, &res, &err));
    assert_string_equal(ddb_item_get(res.attributes, "logins")->u.s, "43");
    assert_int_equal(ddb_get_item(db, "Shop", key, NULL, a, &got, NULL, &err), DDB_ENOTFOUND);
    TU_OK(ddb_delete_item(db, "Shop", key, &wo, a, &res, &err));
    assert_null(res.attributes);
    assert_true(res.capacity.write == 1.0);

    /* key item must match the schema exactly */
    ddb_item *bad = tu_item(a, "PK", 's', "ORG#1", NULL);
    assert_int_equal(ddb_get_item(db, "Shop", bad, NULL, a, &got, NULL, &err), DDB_EVALIDATION);
    assert_string_equal(err.message,
                        "The provided key element does not match the schema: table Shop has key PK, SK");
    assert_int_equal(ddb_get_item(db, "Nope", key, NULL, a, &got, NULL, &err), DDB_ENOTABLE);
    ddb_close(db);
    ddb_arena_free(a);
    tu_rmdir(dir);
}

/* An item of exactly `size` bytes: PK (2+1) + SK (2+1) + "d" (1) + payload. */
static ddb_item *sized(ddb_arena *a, const char *pk, size_t size)
{
    size_t pay = size - 7 - strlen(pk) + 1;
    char *p = ddb_arena_alloc(a, pay + 1);
    memset(p, 'x', pay);
    p[pay] = 0;
    ddb_item *it = tu_item(a, "PK", 's', pk, "SK", 's', "s", "d", 's', p, NULL);
    assert_int_equal(ddb_item_size(it), size);
    return it;
}

static void test_sizes_and_capacity(void **state)
{
    (void)state;
    ddb *db = tu_open("cap", NULL, dir, sizeof dir);
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    TU_OK(ddb_create_table(db, &(ddb_table_def){.name = "Tab1", .key = {.pk = "PK", .pk_type = DDB_TS, .sk = "SK", .sk_type = DDB_TS}}, &err));
    ddb_write_opts wo = {.return_capacity = DDB_CAPACITY_TOTAL};
    ddb_write_result res;
    struct {
        size_t size;
        double wcu, rcu_strong;
    } cases[] = {{1, 1, 1}, {1024, 1, 1}, {1025, 2, 1}, {2048, 2, 1}, {4096, 4, 1}, {4097, 5, 2}, {409600, 400, 100}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        if (cases[i].size < 8)
            continue;
        ddb_item *it = sized(a, "k", cases[i].size);
        TU_OK(ddb_put_item(db, "Tab1", it, &wo, a, &res, &err));
        assert_true(res.capacity.write == cases[i].wcu);
        ddb_item *key = tu_item(a, "PK", 's', "k", "SK", 's', "s", NULL), *got;
        ddb_capacity cap;
        TU_OK(ddb_get_item(db, "Tab1", key,
                           &(ddb_get_opts){.consistent = true, .return_capacity = DDB_CAPACITY_TOTAL}, a, &got, &cap,
                           &err));
        assert_true(cap.read == cases[i].rcu_strong);
        TU_OK(ddb_delete_item(db, "Tab1", key, NULL, NULL, NULL, &err));
    }
    /* replacing charges the larger of old and new */
    TU_OK(ddb_put_item(db, "Tab1", sized(a, "k", 3000), NULL, NULL, NULL, &err));
    TU_OK(ddb_put_item(db, "Tab1", sized(a, "k", 100), &wo, a, &res, &err));
    assert_true(res.capacity.write == 3.0);

    /* sizes DynamoDB's way */
    ddb_item *it = ddb_item_new(a);
    TU_OK(ddb_item_set_s(it, "ab", "xyz"));     /* 2 + 3 */
    TU_OK(ddb_item_set_bool(it, "t", true));    /* 1 + 1 */
    ddb_value *l = ddb_v_list(a);
    TU_OK(ddb_list_append(a, l, ddb_v_str(a, "q"))); /* 3 + (1 + 1) */
    TU_OK(ddb_item_set(it, "l", l));                 /* + 1 */
    ddb_value *m = ddb_v_map(a);
    TU_OK(ddb_map_set(a, m, "k", ddb_v_null(a))); /* 3 + (1 + 1 + 1) */
    TU_OK(ddb_item_set(it, "m", m));              /* + 1 */
    assert_int_equal(ddb_item_size(it), 5 + 2 + 6 + 7);

    /* 400 KB limit: one byte over is refused and nothing is written */
    ddb_item *big = sized(a, "big", 409601);
    assert_int_equal(ddb_put_item(db, "Tab1", big, NULL, NULL, NULL, &err), DDB_ELIMIT);
    assert_string_equal(err.message,
                        "Item size has exceeded the maximum allowed size (item of 409601 bytes, limit 409600 bytes)");
    ddb_item *bk = tu_item(a, "PK", 's', "big", "SK", 's', "s", NULL), *got;
    assert_int_equal(ddb_get_item(db, "Tab1", bk, NULL, a, &got, NULL, &err), DDB_ENOTFOUND);
    TU_OK(ddb_put_item(db, "Tab1", sized(a, "big", 409600), NULL, NULL, NULL, &err));
    ddb_close(db);
    ddb_arena_free(a);
    tu_rmdir(dir);
}

static void test_bad_input(void **state)
{
    (void)state;
    ddb *db = tu_open("bad", NULL, dir, sizeof dir);
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    create_basic(db, "Shop");
    char pk[2050], sk[1030];
    memset(pk, 'p', sizeof pk - 1);
    pk[2049] = 0;
    memset(sk, 's', sizeof sk - 1);
    sk[1025] = 0;
    struct {
        ddb_item *it;
        int rc;
        const char *msg;
    } cases[] = {
        {tu_item(a, "SK", 's', "x", NULL), DDB_EVALIDATION,
         "One or more parameter values were invalid: Missing the key PK in the item"},
        {tu_item(a, "PK", 's', "x", NULL), DDB_EVALIDATION,
         "One or more parameter values were invalid: Missing the key SK in the item"},
        {tu_item(a, "PK", 'i', (int64_t)1, "SK", 's', "x", NULL), DDB_EVALIDATION,
         "One or more parameter values were invalid: Type mismatch for key PK expected: S actual: N"},
        {tu_item(a, "PK", 's', "", "SK", 's', "x", NULL), DDB_EVALIDATION,
         "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty "
         "string value. Key: PK"},
        {tu_item(a, "PK", 's', pk, "SK", 's', "x", NULL), DDB_ELIMIT,
         "One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of2048 bytes "
         "(key PK is 2049 bytes)"},
        {tu_item(a, "PK", 's', "x", "SK", 's', sk, NULL), DDB_ELIMIT,
         "One or more parameter values were invalid: Aggregated size of all range keys has exceeded the size limit of "
         "1024 bytes (key SK is 1025 bytes)"},
        {tu_item(a, "PK", 's', "x", "SK", 's', "x", "Year", 's', "2024", NULL), DDB_EVALIDATION,
         "One or more parameter values were invalid: Type mismatch for Index Key Year Expected: N Actual: S "
         "IndexName: ByYear"},
        {tu_item(a, "PK", 's', "x", "SK", 's', "x", "GSI1PK", 's', "", NULL), DDB_EVALIDATION,
         "One or more parameter values are not valid. A value specified for a secondary index key is not supported. "
         "The AttributeValue for a key attribute cannot contain an empty string value. IndexName: GSI1, IndexKey: "
         "GSI1PK"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        memset(&err, 0, sizeof err);
        assert_int_equal(ddb_put_item(db, "Shop", cases[i].it, NULL, NULL, NULL, &err), cases[i].rc);
        assert_string_equal(err.message, cases[i].msg);
        assert_int_equal(err.code, cases[i].rc);
    }
    /* the largest keys are fine */
    pk[2048] = 0;
    sk[1024] = 0;
    TU_OK(ddb_put_item(db, "Shop", tu_item(a, "PK", 's', pk, "SK", 's', sk, NULL), NULL, NULL, NULL, &err));
    /* empty sets and bad numbers */
    ddb_item *it = tu_item(a, "PK", 's', "x", "SK", 's', "y", NULL);
    TU_OK(ddb_item_set(it, "tags", ddb_v_set(a, DDB_TSS)));
    assert_int_equal(ddb_put_item(db, "Shop", it, NULL, NULL, NULL, &err), DDB_EVALIDATION);
    assert_string_equal(err.message, "One or more parameter values were invalid: An string set  may not be empty (attribute tags)");
    ddb_value *v;
    assert_int_equal(ddb_v_n(a, "NaN", &v, &err), DDB_EVALIDATION);
    assert_int_equal(ddb_v_n(a, "123456789012345678901234567890123456789", &v, &err), DDB_EVALIDATION);
    /* nothing was written: only the large-key item exists */
    ddb_table_desc *d;
    TU_OK(ddb_describe_table(db, "Shop", a, &d, &err));
    assert_int_equal(d->item_count, 1);
    ddb_close(db);
    ddb_arena_free(a);
    tu_rmdir(dir);
}

static void test_partitions(void **state)
{
    (void)state;
    ddb_options o = {.partition_split_bytes = 64 * 1024};
    ddb *db = tu_open("parts", &o, dir, sizeof dir);
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    TU_OK(ddb_create_table(db, &(ddb_table_def){.name = "Part1", .key = {.pk = "PK", .pk_type = DDB_TS}, .rcu = 100, .wcu = 100}, &err));
    ddb_table_desc *d;
    TU_OK(ddb_describe_table(db, "Part1", a, &d, &err));
    assert_int_equal(d->partitions, 1);
    char k[32];
    uint64_t total = 0;
    for (int i = 0; i < 400; i++) {
        snprintf(k, sizeof k, "key%04d", i);
        ddb_item *it = sized(a, k, 1000);
        ddb_item_remove(it, "SK");
        total += ddb_item_size(it);
        TU_OK(ddb_put_item(db, "Part1", it, NULL, NULL, NULL, &err));
    }
    TU_OK(ddb_describe_table(db, "Part1", a, &d, &err));
    assert_int_equal(d->item_count, 400);
    assert_int_equal(d->size_bytes, total);
    assert_true(d->partitions >= 8); /* ~393 KB in partitions of at most 64 KB */
    ddb_partition_stats *ps;
    size_t n;
    TU_OK(ddb_table_stats(db, "Part1", a, &ps, &n, &err));
    assert_int_equal(n, d->partitions);
    uint64_t cnt = 0, bytes = 0;
    for (size_t i = 0; i < n; i++) {
        cnt += ps[i].item_count;
        bytes += ps[i].size_bytes;
        assert_true(ps[i].size_bytes <= 64 * 1024 + 1000);
        if (i)
            assert_true(ps[i].hash_lo == ps[i - 1].hash_hi + 1);
    }
    assert_int_equal(ps[0].hash_lo, 0);
    assert_true(ps[n - 1].hash_hi == UINT64_MAX);
    assert_int_equal(cnt, 400);
    assert_int_equal(bytes, total);
    /* every item is counted in the partition its hash falls in */
    ddb_page pg;
    uint64_t per[64] = {0};
    ddb_scan_params sp = {.table = "Part1"};
    do {
        TU_OK(ddb_scan(db, &sp, a, &pg, &err));
        for (size_t i = 0; i < pg.count; i++) {
            uint64_t h = ddb_partition_hash(ddb_item_get(pg.items[i], "PK"));
            for (size_t j = 0; j < n; j++)
                if (h >= ps[j].hash_lo && h <= ps[j].hash_hi)
                    per[j]++;
        }
        sp.start_key = pg.last_key;
    } while (pg.last_key);
    for (size_t j = 0; j < n; j++)
        assert_int_equal(per[j], ps[j].item_count);
    /* consumption is charged to the partition that served it */
    TU_OK(ddb_table_stats(db, "Part1", a, &ps, &n, &err));
    double w = 0;
    for (size_t i = 0; i < n; i++)
        w += ps[i].write_units;
    assert_true(w == 400.0);
    ddb_close(db);
    ddb_arena_free(a);
    tu_rmdir(dir);
}

static void test_throttle(void **state)
{
    (void)state;
    ddb_options o = {.throttle = true};
    ddb *db = tu_open("throttle", &o, dir, sizeof dir);
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    TU_OK(ddb_create_table(db, &(ddb_table_def){.name = "Hot", .key = {.pk = "PK", .pk_type = DDB_TS, .sk = "SK", .sk_type = DDB_TN}, .rcu = 10, .wcu = 5},
                           &err));
    int ok = 0, throttled = 0;
    for (int i = 0; i < 20; i++) {
        ddb_item *it = tu_item(a, "PK", 's', "same", "SK", 'i', (int64_t)i, NULL);
        int rc = ddb_put_item(db, "Hot", it, NULL, NULL, NULL, &err);
        if (rc == DDB_OK)
            ok++;
        else if (rc == DDB_ETHROTTLED)
            throttled++;
    }
    /* 5 WCU per second on one partition: the 6th write within a second fails */
    assert_true(ok >= 5 && ok <= 6);
    assert_int_equal(ok + throttled, 20);
    ddb_partition_stats *ps;
    size_t n;
    TU_OK(ddb_table_stats(db, "Hot", a, &ps, &n, &err));
    assert_int_equal(ps[0].throttled, throttled);
    assert_int_equal(ps[0].item_count, ok);
    ddb_close(db);
    ddb_arena_free(a);
    tu_rmdir(dir);
}

typedef struct {
    ddb *db;
    int id;
} thr;

static void *writer(void *p)
{
    thr *t = p;
    ddb_arena *a = ddb_arena_new();
    for (int i = 0; i < 200; i++) {
        char k[32];
        snprintf(k, sizeof k, "t%d-%d", t->id, i);
        ddb_item *it = tu_item(a, "PK", 's', k, "SK", 's', "x", "GSI1PK", 's', "all", "GSI1SK", 's', k, NULL);
        ddb_error err;
        if (ddb_put_item(t->db, "Shop", it, NULL, NULL, NULL, &err))
            return (void *)1;
        ddb_arena_reset(a);
    }
    ddb_arena_free(a);
    return NULL;
}

static void test_group_commit(void **state)
{
    (void)state;
    for (int mode = DDB_SYNC_FULL; mode <= DDB_SYNC_NONE; mode++) {
        ddb_options o = {.sync = (ddb_sync_mode)mode};
        ddb *db = tu_open("gc", &o, dir, sizeof dir);
        create_basic(db, "Shop");
        pthread_t th[8];
        thr args[8];
        for (int i = 0; i < 8; i++) {
            args[i] = (thr){db, i};
            pthread_create(&th[i], NULL, writer, &args[i]);
        }
        for (int i = 0; i < 8; i++) {
            void *r;
            pthread_join(th[i], &r);
            assert_null(r);
        }
        ddb_arena *a = ddb_arena_new();
        ddb_error err;
        ddb_table_desc *d;
        TU_OK(ddb_describe_table(db, "Shop", a, &d, &err));
        assert_int_equal(d->item_count, 1600);
        ddb_page pg;
        size_t seen = 0;
        ddb_query_params q = {.table = "Shop", .index = "GSI1", .pk = ddb_v_str(a, "all")};
        do {
            TU_OK(ddb_query(db, &q, a, &pg, &err));
            seen += pg.count;
            q.start_key = pg.last_key;
        } while (pg.last_key);
        assert_int_equal(seen, 1600);
        ddb_close(db);
        ddb_arena_free(a);
        tu_rmdir(dir);
    }
}

/* Two processes on one directory: both write, each sees the other's items
 * and tables (LMDB's locking; the table cache follows the generation). */
static void test_two_processes(void **state)
{
    (void)state;
    ddb *db = tu_open("procs", NULL, dir, sizeof dir);
    char uri[600];
    snprintf(uri, sizeof uri, "file:%s", dir);
    ddb_error err = {0};
    TU_OK(ddb_create_table(db, &(ddb_table_def){.name = "Shared", .key = {.pk = "PK", .pk_type = DDB_TS}}, &err));
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        ddb *child;
        ddb_arena *a = ddb_arena_new();
        int bad = ddb_open(uri, NULL, &child, &err) != 0;
        for (int i = 0; !bad && i < 200; i++) {
            char k[32];
            snprintf(k, sizeof k, "child-%d", i);
            bad = ddb_put_item(child, "Shared", tu_item(a, "PK", 's', k, NULL), NULL, NULL, NULL, &err) != 0;
        }
        /* a table created by this process, seen by the parent afterwards */
        bad = bad || ddb_create_table(child, &(ddb_table_def){.name = "FromChild", .key = {.pk = "PK", .pk_type = DDB_TN}},
                                      &err) != 0;
        ddb_close(child);
        ddb_arena_free(a);
        _exit(bad);
    }
    ddb_arena *a = ddb_arena_new();
    for (int i = 0; i < 200; i++) {
        char k[32];
        snprintf(k, sizeof k, "parent-%d", i);
        TU_OK(ddb_put_item(db, "Shared", tu_item(a, "PK", 's', k, NULL), NULL, NULL, NULL, &err));
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    ddb_table_desc *d;
    TU_OK(ddb_describe_table(db, "Shared", a, &d, &err));
    assert_int_equal(d->item_count, 400);
    TU_OK(ddb_describe_table(db, "FromChild", a, &d, &err));
    assert_int_equal(d->def.key.pk_type, DDB_TN);
    ddb_check_report rep;
    TU_OK(ddb_check_table(db, "Shared", &rep, &err));
    assert_int_equal(rep.items, 400);
    ddb_close(db);
    ddb_arena_free(a);
    tu_rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tables),          cmocka_unit_test(test_put_get_delete),
        cmocka_unit_test(test_sizes_and_capacity), cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_partitions),      cmocka_unit_test(test_throttle),
        cmocka_unit_test(test_group_commit),    cmocka_unit_test(test_two_processes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
