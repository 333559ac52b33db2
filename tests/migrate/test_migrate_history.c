/* The migration history kept in the table (ddb_ent_migration_baseline,
 * _model, _status): a schema model larger than one item is split over
 * items of at most 350,000 bytes and read back whole — DynamoDB's item
 * limit is 400 KB, attribute names and values together (Developer Guide,
 * "Constraints in Amazon DynamoDB", Items: "The maximum item size in
 * DynamoDB is 400 KB, which includes both attribute name binary length
 * (UTF-8 length) and attribute value lengths"; a binary value counts its
 * raw bytes, "DynamoDB item sizes and formats").  Entries are numbered
 * from 1; the last with a model is the one read.  What is read back is
 * checked before use: a part missing or of another size, or a model that
 * does not match its hash, is DDB_ECORRUPT naming the entry and the part;
 * no model recorded is DDB_ENOTFOUND saying how to record one; a table
 * keyed by a number is DDB_EVALIDATION naming the key; a model over
 * DDB_ENT_MODEL_MAX is DDB_ELIMIT with both sizes.  A table without a
 * sort key keeps its history too. */
#include <ddb/ddb.h>
#include <ddb/entity.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static ddb *open_mem(void)
{
    ddb *db = NULL;
    ddb_error err = {0};
    assert_int_equal(ddb_open("mem:", NULL, &db, &err), 0);
    return db;
}

static void create(ddb *db, const char *name, ddb_type pk, const char *sk, ddb_type skt)
{
    ddb_table_def d = {.name = name, .key = {.pk = "PK", .pk_type = pk, .sk = sk, .sk_type = skt}};
    ddb_error err = {0};
    assert_int_equal(ddb_create_table(db, &d, &err), 0);
}

/* A model of n bytes: JSON text whose bytes vary, so that a part out of place shows. */
static char *model_of(size_t n)
{
    char *m = malloc(n + 1);
    assert_non_null(m);
    memset(m, ' ', n);
    m[0] = '{';
    for (size_t i = 1; i + 1 < n; i++)
        m[i] = (char)('a' + i % 26);
    m[1] = m[n - 2] = '"';
    m[n - 1] = '}';
    m[n] = '\0';
    return m;
}

static void a_model_over_several_items_reads_back_whole(void **state)
{
    (void)state;
    ddb *db = open_mem();
    create(db, "Hist", DDB_TS, "SK", DDB_TS);
    ddb_error err = {0};
    ddb_arena *a = ddb_arena_new();
    const char *got;
    size_t len;
    /* none yet: says how to record one */
    assert_int_equal(ddb_ent_migration_model(db, "Hist", a, &got, &len, NULL, &err), DDB_ENOTFOUND);
    assert_non_null(strstr(err.message, "ddb migrate baseline Hist"));
    char *small = model_of(1000), *big = model_of(800001); /* three parts: 350,000 + 350,000 + 100,001 */
    assert_int_equal(ddb_ent_migration_baseline(db, "Hist", small, strlen(small), &err), 0);
    assert_int_equal(ddb_ent_migration_baseline(db, "Hist", big, strlen(big), &err), 0);
    ddb_ent_migration_record e;
    assert_int_equal(ddb_ent_migration_model(db, "Hist", a, &got, &len, &e, &err), 0);
    assert_int_equal(len, strlen(big));
    assert_memory_equal(got, big, len);
    assert_int_equal(e.seq, 2);
    assert_string_equal(e.id, "baseline");
    ddb_ent_migration_state st;
    assert_int_equal(ddb_ent_migration_status(db, "Hist", a, &st, &err), 0);
    assert_int_equal(st.n_recorded, 2);
    assert_int_equal(st.n_history, 2);
    assert_int_equal(st.history[0].model_bytes, 1000);
    assert_non_null(st.model_entry);
    assert_int_equal(st.model_entry->seq, 2);
    assert_int_equal(st.model_entry->model_bytes, 800001);
    /* each item within DynamoDB's 400 KB */
    ddb_scan_params sp = {.table = "Hist"};
    ddb_page pg = {0};
    assert_int_equal(ddb_scan(db, &sp, a, &pg, &err), 0);
    assert_int_equal(pg.count, 4); /* two entries, two more parts of the big model */
    for (size_t i = 0; i < pg.count; i++)
        assert_true(ddb_item_size(pg.items[i]) <= 400 * 1024);
    free(small);
    free(big);
    ddb_arena_free(a);
    ddb_close(db);
}

/* The key of entry seq's part (0: the entry) in table Hist. */
static ddb_item *part_key(ddb_arena *a, unsigned seq, unsigned part)
{
    char pk[64];
    if (part)
        snprintf(pk, sizeof pk, "DDBGEN#MIGRATION#%010u#%03u", seq, part);
    else
        snprintf(pk, sizeof pk, "DDBGEN#MIGRATION#%010u", seq);
    ddb_item *k = ddb_item_new(a);
    assert_int_equal(ddb_item_set_s(k, "PK", pk), 0);
    assert_int_equal(ddb_item_set_s(k, "SK", "MIGRATION"), 0);
    return k;
}

static void damaged_parts_are_reported(void **state)
{
    (void)state;
    ddb *db = open_mem();
    create(db, "Hist", DDB_TS, "SK", DDB_TS);
    ddb_error err = {0};
    ddb_arena *a = ddb_arena_new();
    char *big = model_of(700001);
    assert_int_equal(ddb_ent_migration_baseline(db, "Hist", big, strlen(big), &err), 0);
    const char *got;
    size_t len;
    /* a part of another size */
    ddb_item *p = part_key(a, 1, 2);
    assert_int_equal(ddb_item_set_b(p, "model", "xyz", 3), 0);
    assert_int_equal(ddb_put_item(db, "Hist", p, NULL, NULL, NULL, &err), 0);
    assert_int_equal(ddb_ent_migration_model(db, "Hist", a, &got, &len, NULL, &err), DDB_ECORRUPT);
    assert_non_null(strstr(err.message, "part 2 of the model of migration history entry 1 is of another size"));
    /* a part missing */
    assert_int_equal(ddb_delete_item(db, "Hist", part_key(a, 1, 2), NULL, NULL, NULL, &err), 0);
    assert_int_equal(ddb_ent_migration_model(db, "Hist", a, &got, &len, NULL, &err), DDB_ECORRUPT);
    assert_non_null(strstr(err.message, "part 2 of the model of migration history entry 1 is missing"));
    /* a part changed in place: the hash tells */
    ddb_item *q = part_key(a, 1, 2);
    big[700000] = 'X';
    assert_int_equal(ddb_item_set_b(q, "model", big + 700000, 1), 0);
    assert_int_equal(ddb_put_item(db, "Hist", q, NULL, NULL, NULL, &err), 0);
    assert_int_equal(ddb_ent_migration_model(db, "Hist", a, &got, &len, NULL, &err), DDB_ECORRUPT);
    assert_non_null(strstr(err.message, "does not match its hash"));
    /* an entry saying more than a model can be */
    ddb_item *k = part_key(a, 1, 0);
    ddb_item *stored = NULL;
    assert_int_equal(ddb_get_item(db, "Hist", k, NULL, a, &stored, NULL, &err), 0);
    assert_int_equal(ddb_item_set_i64(stored, "model_bytes", (int64_t)DDB_ENT_MODEL_MAX + 1), 0);
    assert_int_equal(ddb_put_item(db, "Hist", stored, NULL, NULL, NULL, &err), 0);
    assert_int_equal(ddb_ent_migration_model(db, "Hist", a, &got, &len, NULL, &err), DDB_ECORRUPT);
    assert_non_null(strstr(err.message, "says its model is 8388609 bytes"));
    free(big);
    ddb_arena_free(a);
    ddb_close(db);
}

static void tables_of_other_keys(void **state)
{
    (void)state;
    ddb *db = open_mem();
    create(db, "Plain", DDB_TS, NULL, DDB_TS);  /* no sort key */
    create(db, "Numbered", DDB_TN, "SK", DDB_TS);
    create(db, "Bin", DDB_TB, "SK", DDB_TN);
    ddb_error err = {0};
    ddb_arena *a = ddb_arena_new();
    const char *m = "{\"tables\":[],\"entities\":[]}", *got;
    size_t len;
    assert_int_equal(ddb_ent_migration_baseline(db, "Plain", m, strlen(m), &err), 0);
    assert_int_equal(ddb_ent_migration_model(db, "Plain", a, &got, &len, NULL, &err), 0);
    assert_string_equal(got, m);
    assert_int_equal(ddb_ent_migration_baseline(db, "Bin", m, strlen(m), &err), 0);
    assert_int_equal(ddb_ent_migration_model(db, "Bin", a, &got, &len, NULL, &err), 0);
    assert_string_equal(got, m);
    assert_int_equal(ddb_ent_migration_baseline(db, "Numbered", m, strlen(m), &err), DDB_EVALIDATION);
    assert_non_null(strstr(err.message, "table Numbered: its partition key PK is a number"));
    ddb_ent_migration_state st; /* a status still: no history */
    assert_int_equal(ddb_ent_migration_status(db, "Numbered", a, &st, &err), 0);
    assert_int_equal(st.n_recorded, 0);
    /* over the limit */
    char *huge = model_of((size_t)DDB_ENT_MODEL_MAX + 1);
    assert_int_equal(ddb_ent_migration_baseline(db, "Plain", huge, strlen(huge), &err), DDB_ELIMIT);
    assert_non_null(strstr(err.message, "the schema model is 8388609 bytes, more than the 8388608"));
    free(huge);
    ddb_arena_free(a);
    ddb_close(db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_model_over_several_items_reads_back_whole),
        cmocka_unit_test(damaged_parts_are_reported),
        cmocka_unit_test(tables_of_other_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
