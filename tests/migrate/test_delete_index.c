/* ddb_delete_index on the embedded engine: a GSI and its entries go, the
 * items stay, the table and the catalog check clean, a query on the index
 * is a ValidationException, an index of that name can be added again (and is
 * backfilled afresh); a missing index is DDB_ENOTABLE and a local index
 * DDB_EVALIDATION (DynamoDB: UpdateTable's GlobalSecondaryIndexUpdates
 * Delete applies to global secondary indexes only; local ones live and die
 * with their table — Amazon DynamoDB Developer Guide, "Local secondary
 * indexes"). */
#include <ddb/ddb.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

static void delete_a_gsi(void **state)
{
    (void)state;
    char dir[] = "/tmp/ddb-delix-XXXXXX", uri[64];
    assert_non_null(mkdtemp(dir));
    snprintf(uri, sizeof uri, "file:%s", dir);
    ddb *db;
    ddb_error err = {0};
    ddb_options o = {.sync = DDB_SYNC_NONE};
    assert_int_equal(ddb_open(uri, &o, &db, &err), 0);
    ddb_index_def ix[] = {
        {.name = "ByGrp", .key = {.pk = "grp", .pk_type = DDB_TS, .sk = "pk", .sk_type = DDB_TS}},
        {.name = "Local", .local = true, .key = {.pk = "pk", .pk_type = DDB_TS, .sk = "lsk", .sk_type = DDB_TS}},
    };
    ddb_table_def def = {.name = "Tab", .key = {.pk = "pk", .pk_type = DDB_TS, .sk = "sk", .sk_type = DDB_TS}, .indexes = ix, .n_indexes = 2};
    if (ddb_create_table(db, &def, &err))
        fail_msg("create: %s", err.message);
    ddb_arena *a = ddb_arena_new();
    for (int i = 0; i < 50; i++) {
        ddb_item *it = ddb_item_new(a);
        char pk[16];
        snprintf(pk, sizeof pk, "p%02d", i);
        ddb_item_set_s(it, "pk", pk);
        ddb_item_set_s(it, "sk", "s");
        ddb_item_set_s(it, "grp", i % 2 ? "odd" : "even");
        ddb_item_set_s(it, "lsk", "l");
        assert_int_equal(ddb_put_item(db, "Tab", it, NULL, NULL, NULL, &err), 0);
    }
    ddb_check_report r;
    assert_int_equal(ddb_check_table(db, "Tab", &r, &err), 0);
    assert_int_equal(r.index_entries, 100);

    assert_int_equal(ddb_delete_index(db, "Tab", "ByGrp", &err), 0);
    ddb_table_desc *d;
    assert_int_equal(ddb_describe_table(db, "Tab", a, &d, &err), 0);
    assert_int_equal(d->def.n_indexes, 1);
    assert_string_equal(d->def.indexes[0].name, "Local");
    assert_int_equal(d->item_count, 50);
    ddb_query_params q = {.table = "Tab", .index = "ByGrp", .pk = ddb_v_str(a, "odd")};
    ddb_page pg;
    /* DynamoDB: ValidationException "The table does not have the specified index" (Query, IndexName) */
    assert_int_equal(ddb_query(db, &q, a, &pg, &err), DDB_EVALIDATION);
    assert_int_equal(ddb_check_table(db, "Tab", &r, &err), 0);
    assert_int_equal(r.items, 50);
    assert_int_equal(r.index_entries, 50); /* the local index only */
    assert_int_equal(ddb_check_catalog(db, &r, &err), 0);

    assert_int_equal(ddb_delete_index(db, "Tab", "ByGrp", &err), DDB_ENOTABLE);
    assert_int_equal(ddb_delete_index(db, "Tab", "Local", &err), DDB_EVALIDATION);
    assert_int_equal(ddb_delete_index(db, "Nope", "ByGrp", &err), DDB_ENOTABLE);

    /* the name is free again: a new index under it is backfilled from the items */
    ddb_index_def again = {.name = "ByGrp", .key = {.pk = "grp", .pk_type = DDB_TS, .sk = NULL, .sk_type = DDB_TNONE}};
    uint64_t filled = 0;
    assert_int_equal(ddb_add_index(db, "Tab", &again, &filled, NULL, &err), 0);
    assert_int_equal(filled, 50);
    assert_int_equal(ddb_query(db, &q, a, &pg, &err), 0);
    assert_int_equal(pg.count, 25);
    assert_int_equal(ddb_check_table(db, "Tab", &r, &err), 0);
    ddb_close(db);
    ddb_arena_free(a);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(delete_a_gsi)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
