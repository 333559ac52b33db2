/* Query and Scan: order, key conditions, pagination, indexes, segments. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char dir[512];

/* Collect every page of a query; returns the number of items, the sort
 * keys (as text) go into out. */
static size_t query_all(ddb *db, ddb_query_params q, ddb_arena *a, const char *attr, const char **out, size_t max)
{
    size_t n = 0;
    ddb_page pg;
    ddb_error err = {0};
    do {
        int rc = ddb_query(db, &q, a, &pg, &err);
        if (rc)
            fail_msg("query: %s", err.message);
        for (size_t i = 0; i < pg.count; i++) {
            assert_true(n < max);
            const ddb_value *v = ddb_item_get(pg.items[i], attr);
            out[n++] = v ? v->u.s : "(none)";
        }
        q.start_key = pg.last_key;
    } while (pg.last_key);
    return n;
}

static void test_number_sort_keys(void **state)
{
    (void)state;
    ddb *db = tu_open("qn", NULL, dir, sizeof dir);
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    TU_OK(ddb_create_table(db, &(ddb_table_def){.name = "Nums", .key = {.pk = "PK", .pk_type = DDB_TS, .sk = "SK", .sk_type = DDB_TN}}, &err));
    const char *in[] = {"10", "-1", "0", "2.5", "-100", "1E+30", "-0.001", "0.001", "99999999999999999999999999999999999999", "-2.5", "3"};
    const char *sorted[] = {"-100", "-2.5", "-1", "-0.001", "0", "0.001", "2.5", "3", "10",
                            "1000000000000000000000000000000", "99999999999999999999999999999999999999"};
    for (size_t i = 0; i < 11; i++)
        TU_OK(ddb_put_item(db, "Nums", tu_item(a, "PK", 's', "p", "SK", 'n', in[i], NULL), NULL, NULL, NULL, &err));
    const char *got[20];
    size_t n = query_all(db, (ddb_query_params){.table = "Nums", .pk = ddb_v_str(a, "p")}, a, "SK", got, 20);
    assert_int_equal(n, 11);
    for (size_t i = 0; i < n; i++)
        assert_string_equal(got[i], sorted[i]);
    /* backward, with a page size of 3 */
    n = query_all(db, (ddb_query_params){.table = "Nums", .pk = ddb_v_str(a, "p"), .backward = true, .limit = 3}, a,
                  "SK", got, 20);
    assert_int_equal(n, 11);
    for (size_t i = 0; i < n; i++)
        assert_string_equal(got[i], sorted[10 - i]);
    /* range conditions on numbers */
    ddb_value *lo, *hi;
    TU_OK(ddb_v_n(a, "-1", &lo, &err));
    TU_OK(ddb_v_n(a, "3", &hi, &err));
    n = query_all(db,
                  (ddb_query_params){.table = "Nums", .pk = ddb_v_str(a, "p"), .sk_op = DDB_SK_BETWEEN, .sk1 = lo, .sk2 = hi},
                  a, "SK", got, 20);
    assert_int_equal(n, 6);
    assert_string_equal(got[0], "-1");
    assert_string_equal(got[5], "3");
    n = query_all(db, (ddb_query_params){.table = "Nums", .pk = ddb_v_str(a, "p"), .sk_op = DDB_SK_LT, .sk1 = lo}, a,
                  "SK", got, 20);
    assert_int_equal(n, 2);
    n = query_all(db, (ddb_query_params){.table = "Nums", .pk = ddb_v_str(a, "p"), .sk_op = DDB_SK_GE, .sk1 = hi}, a,
                  "SK", got, 20);
    assert_int_equal(n, 4);
    assert_string_equal(got[0], "3");
    /* begins_with is refused on a number sort key */
    ddb_page pg;
    assert_int_equal(ddb_query(db,
                               &(ddb_query_params){.table = "Nums", .pk = ddb_v_str(a, "p"), .sk_op = DDB_SK_BEGINS_WITH,
                                                   .sk1 = lo},
                               a, &pg, &err),
                     DDB_EVALIDATION);
    ddb_close(db);
    ddb_arena_free(a);
    tu_rmdir(dir);
}

static int cmpstr(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static void test_string_and_long_sort_keys(void **state)
{
    (void)state;
    ddb *db = tu_open("qs", NULL, dir, sizeof dir);
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    TU_OK(ddb_create_table(db, &(ddb_table_def){.name = "Strs", .key = {.pk = "PK", .pk_type = DDB_TS, .sk = "SK", .sk_type = DDB_TS}}, &err));
    /* 40 keys: short ones, and long ones (up to 1024 bytes) sharing a 600-byte prefix */
    const char *keys[40];
    char prefix[601];
    memset(prefix, 'm', 600);
    prefix[600] = 0;
    for (int i = 0; i < 40; i++) {
        char *k = ddb_arena_alloc(a, 1100);
        if (i < 10)
            snprintf(k, 1100, "item-%02d", 39 - i);
        else if (i < 35) {
            /* long keys: same prefix, different tails and lengths */
            int tail = (i * 7919) % 25;
            snprintf(k, 1100, "%s%c%0*d", prefix, 'a' + tail, 10 + (i % 400), i);
        } else
            snprintf(k, 1100, "%.*s", 479 - (i - 35), prefix); /* exactly at/below the inline limit */
        keys[i] = k;
        TU_OK(ddb_put_item(db, "Strs", tu_item(a, "PK", 's', "p", "SK", 's', k, "i", 'i', (int64_t)i, NULL), NULL, NULL,
                           NULL, &err));
    }
    const char *sorted[40];
    memcpy(sorted, keys, sizeof keys);
    qsort(sorted, 40, sizeof *sorted, cmpstr);
    for (uint32_t limit = 0; limit <= 7; limit += 7) {
        const char *got[50];
        size_t n = query_all(db, (ddb_query_params){.table = "Strs", .pk = ddb_v_str(a, "p"), .limit = limit}, a, "SK",
                             got, 50);
        assert_int_equal(n, 40);
        for (size_t i = 0; i < n; i++)
            assert_string_equal(got[i], sorted[i]);
        n = query_all(db, (ddb_query_params){.table = "Strs", .pk = ddb_v_str(a, "p"), .limit = limit, .backward = true},
                      a, "SK", got, 50);
        assert_int_equal(n, 40);
        for (size_t i = 0; i < n; i++)
            assert_string_equal(got[i], sorted[39 - i]);
    }
    /* get of a long key */
    ddb_item *got_it;
    TU_OK(ddb_get_item(db, "Strs", tu_item(a, "PK", 's', "p", "SK", 's', keys[20], NULL), NULL, a, &got_it, NULL, &err));
    int64_t iv;
    TU_OK(ddb_value_to_i64(ddb_item_get(got_it, "i"), &iv));
    assert_int_equal(iv, 20);
    /* begins_with and EQ on long keys */
    char pre[700];
    snprintf(pre, sizeof pre, "%sc", prefix);
    const char *got[50];
    size_t n = query_all(db,
                         (ddb_query_params){.table = "Strs", .pk = ddb_v_str(a, "p"), .sk_op = DDB_SK_BEGINS_WITH,
                                            .sk1 = ddb_v_str(a, pre)},
                         a, "SK", got, 50);
    size_t want = 0;
    for (int i = 0; i < 40; i++)
        want += strncmp(keys[i], pre, strlen(pre)) == 0;
    assert_int_equal(n, want);
    n = query_all(db,
                  (ddb_query_params){.table = "Strs", .pk = ddb_v_str(a, "p"), .sk_op = DDB_SK_EQ,
                                     .sk1 = ddb_v_str(a, keys[22])},
                  a, "SK", got, 50);
    assert_int_equal(n, 1);
    assert_string_equal(got[0], keys[22]);
    n = query_all(db,
                  (ddb_query_params){.table = "Strs", .pk = ddb_v_str(a, "p"), .sk_op = DDB_SK_GT,
                                     .sk1 = ddb_v_str(a, sorted[30])},
                  a, "SK", got, 50);
    assert_int_equal(n, 9);
    assert_string_equal(got[0], sorted[31]);
    /* begins_with on short keys */
    n = query_all(db,
                  (ddb_query_params){.table = "Strs", .pk = ddb_v_str(a, "p"), .sk_op = DDB_SK_BEGINS_WITH,
                                     .sk1 = ddb_v_str(a, "item-3")},
                  a, "SK", got, 50);
    assert_int_equal(n, 10);
    assert_string_equal(got[0], "item-30");
    /* other partitions are not visited */
    n = query_all(db, (ddb_query_params){.table = "Strs", .pk = ddb_v_str(a, "q")}, a, "SK", got, 50);
    assert_int_equal(n, 0);
    ddb_close(db);
    ddb_arena_free(a);
    tu_rmdir(dir);
}

static void test_binary_sort_keys(void **state)
{
    (void)state;
    ddb *db = tu_open("qb", NULL, dir, sizeof dir);
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    TU_OK(ddb_create_table(db, &(ddb_table_def){.name = "Bins", .key = {.pk = "PK", .pk_type = DDB_TB, .sk = "SK", .sk_type = DDB_TB}}, &err));
    const uint8_t keys[][3] = {{0xff, 0, 0}, {0, 0, 1}, {0x80, 1, 0}, {0, 0, 0}, {0x7f, 0xff, 0xff}};
    for (int i = 0; i < 5; i++)
        TU_OK(ddb_put_item(db, "Bins", tu_item(a, "PK", 'b', "\x01", (size_t)1, "SK", 'b', keys[i], (size_t)3, NULL),
                           NULL, NULL, NULL, &err));
    ddb_page pg;
    TU_OK(ddb_query(db, &(ddb_query_params){.table = "Bins", .pk = ddb_v_b(a, "\x01", 1)}, a, &pg, &err));
    assert_int_equal(pg.count, 5);
    const int order[] = {3, 1, 4, 2, 0};
    for (int i = 0; i < 5; i++)
        assert_memory_equal(ddb_item_get(pg.items[i], "SK")->u.b, keys[order[i]], 3);
    ddb_close(db);
    ddb_arena_free(a);
    tu_rmdir(dir);
}

static void test_pagination_and_capacity(void **state)
{
    (void)state;
    ddb *db = tu_open("qp", NULL, dir, sizeof dir);
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    TU_OK(ddb_create_table(db, &(ddb_table_def){.name = "Pages", .key = {.pk = "PK", .pk_type = DDB_TS, .sk = "SK", .sk_type = DDB_TN}}, &err));
    /* 300 items of ~10 KB: 3 MB in one partition -> several 1 MB pages */
    char *pay = ddb_arena_alloc(a, 10001);
    memset(pay, 'z', 10000);
    pay[10000] = 0;
    for (int i = 0; i < 300; i++)
        TU_OK(ddb_put_item(db, "Pages", tu_item(a, "PK", 's', "p", "SK", 'i', (int64_t)i, "d", 's', pay, NULL), NULL, NULL,
                           NULL, &err));
    ddb_query_params q = {.table = "Pages", .pk = ddb_v_str(a, "p"), .return_capacity = DDB_CAPACITY_TOTAL};
    ddb_page pg;
    int seen[300] = {0};
    size_t pages = 0;
    do {
        TU_OK(ddb_query(db, &q, a, &pg, &err));
        size_t bytes = 0;
        for (size_t i = 0; i < pg.count; i++) {
            int64_t v;
            TU_OK(ddb_value_to_i64(ddb_item_get(pg.items[i], "SK"), &v));
            seen[v]++;
            bytes += ddb_item_size(pg.items[i]);
        }
        assert_true(bytes <= 1024 * 1024);
        /* eventually consistent: total bytes of the page rounded up to 4 KB once, halved */
        assert_true(pg.capacity.read == (double)((bytes + 4095) / 4096) / 2);
        pages++;
        q.start_key = pg.last_key;
    } while (pg.last_key);
    assert_int_equal(pages, 3);
    for (int i = 0; i < 300; i++)
        assert_int_equal(seen[i], 1);
    /* an empty result still costs the minimum */
    q = (ddb_query_params){.table = "Pages", .pk = ddb_v_str(a, "none"), .return_capacity = DDB_CAPACITY_TOTAL};
    TU_OK(ddb_query(db, &q, a, &pg, &err));
    assert_int_equal(pg.count, 0);
    assert_null(pg.last_key);
    assert_true(pg.capacity.read == 0.5);
    /* Limit = exact count still returns a LastEvaluatedKey, as DynamoDB does */
    q = (ddb_query_params){.table = "Pages", .pk = ddb_v_str(a, "p"), .limit = 300};
    TU_OK(ddb_query(db, &q, a, &pg, &err));
    assert_int_equal(pg.count, 300 > 100 ? pg.count : 300);
    ddb_close(db);
    ddb_arena_free(a);
    tu_rmdir(dir);
}

static void test_indexes(void **state)
{
    (void)state;
    ddb *db = tu_open("qi", NULL, dir, sizeof dir);
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    static const char *const inc[] = {"email"};
    ddb_index_def ix[] = {
        {.name = "GSI1", .key = {.pk = "GSI1PK", .pk_type = DDB_TS, .sk = "GSI1SK", .sk_type = DDB_TS}, .projection = DDB_PROJ_KEYS_ONLY},
        {.name = "Voucher", .key = {.pk = "voucher", .pk_type = DDB_TS}},
        {.name = "LSI1", .local = true, .key = {.pk = "PK", .pk_type = DDB_TS, .sk = "when", .sk_type = DDB_TN}, .projection = DDB_PROJ_INCLUDE,
         .include = inc, .n_include = 1},
    };
    TU_OK(ddb_create_table(db, &(ddb_table_def){.name = "Idx", .key = {.pk = "PK", .pk_type = DDB_TS, .sk = "SK", .sk_type = DDB_TS}, .indexes = ix, .n_indexes = 3}, &err));
    ddb_write_opts wo = {.return_capacity = DDB_CAPACITY_INDEXES};
    ddb_write_result res;
    /* not in GSI1 (sparse): no GSI1PK */
    TU_OK(ddb_put_item(db, "Idx", tu_item(a, "PK", 's', "c1", "SK", 's', "s1", "when", 'i', (int64_t)5, NULL), &wo, a,
                       &res, &err));
    assert_true(res.capacity.total == 2.0); /* table + LSI */
    assert_int_equal(res.capacity.n_indexes, 1);
    assert_string_equal(res.capacity.indexes[0].name, "LSI1");
    assert_true(res.capacity.indexes[0].local);
    TU_OK(ddb_put_item(db, "Idx",
                       tu_item(a, "PK", 's', "c1", "SK", 's', "s2", "GSI1PK", 's', "Y#2024", "GSI1SK", 's', "2024-05",
                               "email", 's', "e", "voucher", 's', "V1", "when", 'i', (int64_t)3, NULL),
                       &wo, a, &res, &err));
    assert_true(res.capacity.total == 4.0);
    /* each index says whether it is local (DynamoDB's ConsumedCapacity has
     * GlobalSecondaryIndexes and LocalSecondaryIndexes apart) */
    assert_int_equal(res.capacity.n_indexes, 3);
    for (size_t i = 0; i < res.capacity.n_indexes; i++)
        assert_int_equal(res.capacity.indexes[i].local, strcmp(res.capacity.indexes[i].name, "LSI1") == 0);
    ddb_page pg;
    TU_OK(ddb_query(db, &(ddb_query_params){.table = "Idx", .index = "GSI1", .pk = ddb_v_str(a, "Y#2024")}, a, &pg,
                    &err));
    assert_int_equal(pg.count, 1);
    /* KEYS_ONLY: table and index keys only */
    assert_int_equal(ddb_item_count(pg.items[0]), 4);
    assert_null(ddb_item_get(pg.items[0], "email"));
    TU_OK(ddb_query(db, &(ddb_query_params){.table = "Idx", .index = "Voucher", .pk = ddb_v_str(a, "V1")}, a, &pg, &err));
    assert_int_equal(pg.count, 1);
    assert_string_equal(ddb_item_get(pg.items[0], "email")->u.s, "e");
    /* fulfil the voucher: the item leaves the sparse index; GSI key change moves it */
    TU_OK(ddb_put_item(db, "Idx",
                       tu_item(a, "PK", 's', "c1", "SK", 's', "s2", "GSI1PK", 's', "Y#2025", "GSI1SK", 's', "2025-01",
                               "email", 's', "e", "when", 'i', (int64_t)3, NULL),
                       &wo, a, &res, &err));
    TU_OK(ddb_query(db, &(ddb_query_params){.table = "Idx", .index = "Voucher", .pk = ddb_v_str(a, "V1")}, a, &pg, &err));
    assert_int_equal(pg.count, 0);
    TU_OK(ddb_query(db, &(ddb_query_params){.table = "Idx", .index = "GSI1", .pk = ddb_v_str(a, "Y#2024")}, a, &pg,
                    &err));
    assert_int_equal(pg.count, 0);
    TU_OK(ddb_query(db, &(ddb_query_params){.table = "Idx", .index = "GSI1", .pk = ddb_v_str(a, "Y#2025")}, a, &pg,
                    &err));
    assert_int_equal(pg.count, 1);
    /* LSI: same partition, ordered by "when" */
    TU_OK(ddb_query(db, &(ddb_query_params){.table = "Idx", .index = "LSI1", .pk = ddb_v_str(a, "c1")}, a, &pg, &err));
    assert_int_equal(pg.count, 2);
    assert_string_equal(ddb_item_get(pg.items[0], "SK")->u.s, "s2");
    assert_string_equal(ddb_item_get(pg.items[1], "SK")->u.s, "s1");
    assert_null(ddb_item_get(pg.items[1], "GSI1PK")); /* INCLUDE projects keys + email */
    /* many items under one GSI key: pagination through duplicates */
    for (int i = 0; i < 25; i++) {
        char sk[16];
        snprintf(sk, sizeof sk, "d%02d", i);
        TU_OK(ddb_put_item(db, "Idx", tu_item(a, "PK", 's', sk, "SK", 's', "x", "voucher", 's', "SAME", NULL), NULL,
                           NULL, NULL, &err));
    }
    ddb_query_params q = {.table = "Idx", .index = "Voucher", .pk = ddb_v_str(a, "SAME"), .limit = 4};
    int seen[25] = {0};
    do {
        TU_OK(ddb_query(db, &q, a, &pg, &err));
        for (size_t i = 0; i < pg.count; i++)
            seen[atoi(ddb_item_get(pg.items[i], "PK")->u.s + 1)]++;
        q.start_key = pg.last_key;
    } while (pg.last_key);
    for (int i = 0; i < 25; i++)
        assert_int_equal(seen[i], 1);
    /* deleting removes index entries */
    TU_OK(ddb_delete_item(db, "Idx", tu_item(a, "PK", 's', "c1", "SK", 's', "s2", NULL), NULL, NULL, NULL, &err));
    TU_OK(ddb_query(db, &(ddb_query_params){.table = "Idx", .index = "GSI1", .pk = ddb_v_str(a, "Y#2025")}, a, &pg,
                    &err));
    assert_int_equal(pg.count, 0);
    /* errors */
    assert_int_equal(ddb_query(db, &(ddb_query_params){.table = "Idx", .index = "Nope", .pk = ddb_v_str(a, "x")}, a,
                               &pg, &err),
                     DDB_EVALIDATION);
    assert_string_equal(err.message, "The table does not have the specified index: Nope (table Idx)");
    assert_int_equal(ddb_query(db,
                               &(ddb_query_params){.table = "Idx", .index = "GSI1", .pk = ddb_v_str(a, "x"),
                                                   .consistent = true},
                               a, &pg, &err),
                     DDB_EVALIDATION);
    assert_int_equal(ddb_query(db, &(ddb_query_params){.table = "Idx", .pk = ddb_v_i64(a, 1)}, a, &pg, &err),
                     DDB_EVALIDATION);
    ddb_close(db);
    ddb_arena_free(a);
    tu_rmdir(dir);
}

static void test_scan_segments(void **state)
{
    (void)state;
    ddb *db = tu_open("scan", NULL, dir, sizeof dir);
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    ddb_index_def ix[] = {{.name = "Grp", .key = {.pk = "g", .pk_type = DDB_TN}}};
    TU_OK(ddb_create_table(db, &(ddb_table_def){.name = "Scan1", .key = {.pk = "PK", .pk_type = DDB_TN, .sk = NULL, .sk_type = 0}, .indexes = ix, .n_indexes = 1}, &err));
    for (int i = 0; i < 500; i++)
        TU_OK(ddb_put_item(db, "Scan1", tu_item(a, "PK", 'i', (int64_t)i, "g", 'i', (int64_t)(i % 7), NULL), NULL, NULL,
                           NULL, &err));
    for (int idx = 0; idx < 2; idx++) {
        int seen[500] = {0};
        for (uint32_t seg = 0; seg < 5; seg++) {
            ddb_scan_params s = {.table = "Scan1", .index = idx ? "Grp" : NULL, .segment = seg, .total_segments = 5, .limit = 33};
            ddb_page pg;
            do {
                TU_OK(ddb_scan(db, &s, a, &pg, &err));
                for (size_t i = 0; i < pg.count; i++) {
                    int64_t v;
                    TU_OK(ddb_value_to_i64(ddb_item_get(pg.items[i], "PK"), &v));
                    seen[v]++;
                }
                s.start_key = pg.last_key;
            } while (pg.last_key);
        }
        for (int i = 0; i < 500; i++)
            assert_int_equal(seen[i], 1);
    }
    ddb_page pg;
    assert_int_equal(ddb_scan(db, &(ddb_scan_params){.table = "Scan1", .segment = 5, .total_segments = 5}, a, &pg, &err),
                     DDB_EVALIDATION);
    ddb_close(db);
    ddb_arena_free(a);
    tu_rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_number_sort_keys), cmocka_unit_test(test_string_and_long_sort_keys),
        cmocka_unit_test(test_binary_sort_keys), cmocka_unit_test(test_pagination_and_capacity),
        cmocka_unit_test(test_indexes),          cmocka_unit_test(test_scan_segments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
