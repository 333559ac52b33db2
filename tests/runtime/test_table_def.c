/* Table definitions (issue 22 section 1): every definition the engine
 * accepts loads again in a fresh handle, and every definition DynamoDB
 * refuses is refused before anything is stored, through every path that
 * writes one (CreateTable, UpdateTable adding or deleting a GSI,
 * UpdateTimeToLive).  Limits: DynamoDB's API_Projection.html
 * (NonKeyAttributes: "Length Constraints: Minimum length of 1. Maximum
 * length of 255"), API_KeySchemaElement.html (AttributeName 1..255 bytes),
 * HowItWorks.NamingRulesDataTypes.html (names are counted in UTF-8 bytes;
 * table and index names 3..255 of [a-zA-Z0-9_.-]) and ServiceQuotas.html
 * (20 GSIs, 5 LSIs, 100 projected attributes over all of a table's
 * secondary indexes).  A stored definition damaged on disk is that
 * table's problem only.  Calls the public API, and LMDB to damage a file. */
#include "testutil.h"
#include "../damaged/damaged_util.h"
#include "core/codec.h"
#include "engine/table_def.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char dir[512];

/* A new handle on the database at dir (*db closed first unless NULL). */
static void reopen(ddb **db)
{
    if (*db)
        ddb_close(*db);
    char uri[600];
    snprintf(uri, sizeof uri, "file:%s", dir);
    ddb_error err = {0};
    int rc = ddb_open(uri, NULL, db, &err);
    if (rc)
        fail_msg("reopening %s: %s", dir, err.message);
}

/* n bytes of 'a', or n/2 times "é" (2 bytes in UTF-8) */
static char *name_of(size_t n, bool utf8)
{
    char *s = malloc(n + 1);
    for (size_t i = 0; i < n; i++)
        s[i] = utf8 ? (char)(i % 2 ? 0xa9 : 0xc3) : 'a';
    s[n] = '\0';
    return s;
}

/* A put and a get on table "Okay" work (the database is usable). */
static void ok_table_works(ddb *db)
{
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    TU_OK(ddb_put_item(db, "Okay", tu_item(a, "PK", 's', "k", NULL), NULL, a, NULL, &err));
    ddb_item *got = NULL;
    TU_OK(ddb_get_item(db, "Okay", tu_item(a, "PK", 's', "k", NULL), NULL, a, &got, NULL, &err));
    assert_non_null(got);
    ddb_arena_free(a);
}

static ddb_table_def with_index(ddb_index_def *x, const char *name)
{
    return (ddb_table_def){.name = name, .key = {.pk = "a", .pk_type = DDB_TS, .sk = "b", .sk_type = DDB_TS},
                           .indexes = x, .n_indexes = 1};
}

/* The reproduction: an INCLUDE projection naming an attribute of
 * 256 bytes (ASCII, or 128 x "é") in a GSI or an LSI is refused; 255 bytes
 * is accepted, stored, and loads again. */
static void test_projected_name_length(void **state)
{
    (void)state;
    ddb *db = tu_open("tdef-proj", NULL, dir, sizeof dir);
    ddb_error err = {0};
    TU_OK(ddb_create_table(db, &(ddb_table_def){.name = "Okay", .key = {.pk = "PK", .pk_type = DDB_TS}}, &err));
    for (int local = 0; local < 2; local++) {
        for (int utf8 = 0; utf8 < 2; utf8++) {
            char *bad = name_of(256, utf8), *good = name_of(utf8 ? 254 : 255, utf8);
            const char *inc[1] = {bad};
            ddb_index_def x = {.name = "idx", .local = local,
                               .key = {.pk = local ? "a" : "c", .pk_type = DDB_TS, .sk = local ? "c" : NULL,
                                       .sk_type = DDB_TS},
                               .projection = DDB_PROJ_INCLUDE, .include = inc, .n_include = 1};
            ddb_table_def d = with_index(&x, "bad");
            assert_int_equal(ddb_create_table(db, &d, &err), DDB_EVALIDATION);
            /* DynamoDB's request-validation form (API_Projection.html: 1..255) */
            char want[200];
            snprintf(want, sizeof want, "at '%sSecondaryIndexes.1.member.projection.nonKeyAttributes.1.member' "
                     "failed to satisfy constraint: Member must have length less than or equal to 255",
                     local ? "local" : "global");
            if (!strstr(err.message, want))
                fail_msg("local %d utf8 %d: %s", local, utf8, err.message);
            ok_table_works(db);
            reopen(&db);
            ok_table_works(db);
            inc[0] = good;
            d.name = local ? (utf8 ? "goodLu" : "goodL") : (utf8 ? "goodGu" : "goodG");
            TU_OK(ddb_create_table(db, &d, &err));
            reopen(&db);
            ddb_arena *a = ddb_arena_new();
            ddb_table_desc *desc;
            TU_OK(ddb_describe_table(db, d.name, a, &desc, &err));
            assert_int_equal(desc->def.n_indexes, 1);
            assert_string_equal(desc->def.indexes[0].include[0], good);
            ddb_arena_free(a);
            ok_table_works(db);
            free(bad);
            free(good);
        }
    }
    ddb_close(db);
    tu_rmdir(dir);
}

/* UpdateTable adding a GSI checks the same rules (and its stored form
 * loads again); deleting it leaves a definition that loads. */
static void test_add_index_rules(void **state)
{
    (void)state;
    ddb *db = tu_open("tdef-addix", NULL, dir, sizeof dir);
    ddb_error err = {0};
    TU_OK(ddb_create_table(db, &(ddb_table_def){.name = "Okay", .key = {.pk = "PK", .pk_type = DDB_TS}}, &err));
    char *bad = name_of(256, true);
    const char *inc[2] = {bad, "x"};
    ddb_index_def x = {.name = "late", .key = {.pk = "c", .pk_type = DDB_TS}, .projection = DDB_PROJ_INCLUDE,
                       .include = inc, .n_include = 1};
    assert_int_equal(ddb_add_index(db, "Okay", &x, NULL, NULL, &err), DDB_EVALIDATION);
    assert_non_null(strstr(err.message, "Member must have length less than or equal to 255"));
    /* an empty name, and a name given twice (API_Projection.html: NonKeyAttributes is a set of names) */
    inc[0] = "";
    assert_int_equal(ddb_add_index(db, "Okay", &x, NULL, NULL, &err), DDB_EVALIDATION);
    assert_non_null(strstr(err.message, "Member must have length greater than or equal to 1"));
    inc[0] = "x";
    x.n_include = 2;
    assert_int_equal(ddb_add_index(db, "Okay", &x, NULL, NULL, &err), DDB_EVALIDATION);
    assert_non_null(strstr(err.message, "Duplicate"));
    /* a list the caller left NULL: refused, never read */
    x.include = NULL;
    x.n_include = 21;
    assert_int_equal(ddb_add_index(db, "Okay", &x, NULL, NULL, &err), DDB_EVALIDATION);
    const char *none[2] = {"x", NULL};
    x.include = none;
    x.n_include = 2;
    assert_int_equal(ddb_add_index(db, "Okay", &x, NULL, NULL, &err), DDB_EVALIDATION);
    x.include = inc;
    x.n_include = 1;
    TU_OK(ddb_add_index(db, "Okay", &x, NULL, NULL, &err));
    reopen(&db);
    ok_table_works(db);
    TU_OK(ddb_delete_index(db, "Okay", "late", &err));
    reopen(&db);
    ok_table_works(db);
    free(bad);
    ddb_close(db);
    tu_rmdir(dir);
}

/* 100 projected attributes over all of a table's indexes are accepted,
 * 101 refused (ServiceQuotas.html, API_Projection.html); one index projects
 * at most 20 (API_Projection.html: "Array Members: Maximum number of 20
 * items"); the same through UpdateTable. */
static void test_projected_count(void **state)
{
    (void)state;
    ddb *db = tu_open("tdef-count", NULL, dir, sizeof dir);
    ddb_error err = {0};
    char names[101][8], inames[6][8], keys[6][8];
    const char *inc[101];
    for (int i = 0; i < 101; i++) {
        snprintf(names[i], sizeof names[i], "p%d", i);
        inc[i] = names[i];
    }
    ddb_index_def x[6];
    for (int i = 0; i < 6; i++) {
        snprintf(inames[i], sizeof inames[i], "ix%d", i);
        snprintf(keys[i], sizeof keys[i], "k%d", i);
        x[i] = (ddb_index_def){.name = inames[i], .key = {.pk = keys[i], .pk_type = DDB_TS},
                               .projection = DDB_PROJ_INCLUDE, .include = inc + 20 * i, .n_include = i < 5 ? 20 : 1};
    }
    ddb_table_def d = {.name = "Count", .key = {.pk = "a", .pk_type = DDB_TS}, .indexes = x, .n_indexes = 6};
    assert_int_equal(ddb_create_table(db, &d, &err), DDB_ELIMIT);
    assert_non_null(strstr(err.message, "Number of projected attributes in all indexes exceeds limit of 100"));
    /* 21 in one index: DynamoDB's request-validation form */
    x[0].n_include = 21;
    d.n_indexes = 1;
    assert_int_equal(ddb_create_table(db, &d, &err), DDB_ELIMIT);
    assert_non_null(strstr(err.message, "at 'globalSecondaryIndexes.1.member.projection.nonKeyAttributes' failed to "
                                        "satisfy constraint: Member must have length less than or equal to 20"));
    x[0].n_include = 20;
    d.n_indexes = 5;
    TU_OK(ddb_create_table(db, &d, &err));
    assert_int_equal(ddb_add_index(db, "Count", &x[5], NULL, NULL, &err), DDB_ELIMIT);
    assert_non_null(strstr(err.message, "exceeds limit of 100"));
    x[5].include = inc;
    x[5].n_include = 21;
    assert_int_equal(ddb_add_index(db, "Count", &x[5], NULL, NULL, &err), DDB_ELIMIT);
    assert_non_null(strstr(err.message, "globalSecondaryIndexUpdates.1.member.create.projection.nonKeyAttributes"));
    reopen(&db);
    ddb_arena *a = ddb_arena_new();
    ddb_table_desc *desc;
    TU_OK(ddb_describe_table(db, "Count", a, &desc, &err));
    size_t total = 0;
    for (size_t i = 0; i < desc->def.n_indexes; i++)
        total += desc->def.indexes[i].n_include;
    assert_int_equal(total, 100);
    ddb_arena_free(a);
    ddb_close(db);
    tu_rmdir(dir);
}

/* Table and index names: 3..255 bytes of [a-zA-Z0-9_.-] (a multi-byte
 * character is outside the pattern); attribute names of key schemas
 * 1..255 bytes, counted in UTF-8 bytes. */
static void test_names(void **state)
{
    (void)state;
    ddb *db = tu_open("tdef-names", NULL, dir, sizeof dir);
    ddb_error err = {0};
    char *k255 = name_of(254, true), *k256 = name_of(256, true);
    ddb_table_def d = {.name = "Keys", .key = {.pk = k256, .pk_type = DDB_TS}};
    assert_int_equal(ddb_create_table(db, &d, &err), DDB_EVALIDATION);
    assert_non_null(strstr(err.message, "keySchema.1.member.attributeName"));
    d.key.pk = k255;
    TU_OK(ddb_create_table(db, &d, &err));
    char *t255 = name_of(255, false), *t256 = name_of(256, false);
    d.name = t256;
    assert_int_equal(ddb_create_table(db, &d, &err), DDB_EVALIDATION);
    d.name = "é.é";
    assert_int_equal(ddb_create_table(db, &d, &err), DDB_EVALIDATION);
    assert_non_null(strstr(err.message, "[a-zA-Z0-9_.-]+"));
    d.name = t255;
    TU_OK(ddb_create_table(db, &d, &err));
    reopen(&db);
    ddb_arena *a = ddb_arena_new();
    ddb_table_desc *desc;
    TU_OK(ddb_describe_table(db, t255, a, &desc, &err));
    assert_string_equal(desc->def.key.pk, k255);
    ddb_arena_free(a);
    free(k255);
    free(k256);
    free(t255);
    free(t256);
    ddb_close(db);
    tu_rmdir(dir);
}

/* A damaged stored definition is that table's problem only (issue 22): the
 * database opens, the table answers DDB_ECORRUPT naming it, the other
 * tables read and write in the same handle, ddb_check_table reports it,
 * and DeleteTable drops it with its databases (the way out). */
static void test_damaged_definition(void **state)
{
    (void)state;
    ddb *db = tu_open("tdef-damaged", NULL, dir, sizeof dir);
    ddb_error err = {0};
    ddb_arena *a = ddb_arena_new();
    TU_OK(ddb_create_table(db, &(ddb_table_def){.name = "Okay", .key = {.pk = "PK", .pk_type = DDB_TS}}, &err));
    ddb_index_def g = {.name = "byG", .key = {.pk = "G", .pk_type = DDB_TS}};
    TU_OK(ddb_create_table(db, &(ddb_table_def){.name = "Hurt", .key = {.pk = "PK", .pk_type = DDB_TS}, .indexes = &g,
                                                .n_indexes = 1},
                           &err));
    TU_OK(ddb_put_item(db, "Hurt", tu_item(a, "PK", 's', "h", "G", 's', "g", NULL), NULL, a, NULL, &err));
    ok_table_works(db);
    ddb_close(db);
    dmg_raw w;
    assert_int_equal(dmg_raw_open(&w, dir), 0);
    assert_int_equal(dmg_raw_put(&w, "meta", 0, "t/Hurt", 6, "\x01\x07garbage", 9), 0);
    assert_int_equal(dmg_raw_close(&w), 0);

    char uri[600];
    snprintf(uri, sizeof uri, "file:%s", dir);
    TU_OK(ddb_open(uri, NULL, &db, &err));
    const char **names;
    size_t n;
    TU_OK(ddb_list_tables(db, a, &names, &n, &err));
    assert_int_equal(n, 2);
    /* a batch over both tables meets the damage: only the table it names
     * is taken for damaged, the other keeps taking writes */
    ddb_batch_get_op bg[2] = {{.table = "Okay", .key = tu_item(a, "PK", 's', "k", NULL)},
                              {.table = "Hurt", .key = tu_item(a, "PK", 's', "h", NULL)}};
    ddb_item *items[2];
    assert_int_equal(ddb_batch_get(db, bg, 2, a, items, DDB_CAPACITY_NONE, NULL, &err), DDB_ECORRUPT);
    assert_non_null(strstr(err.message, "table Hurt"));
    ok_table_works(db);
    ddb_table_desc *d;
    assert_int_equal(ddb_describe_table(db, "Hurt", a, &d, &err), DDB_ECORRUPT);
    assert_non_null(strstr(err.message, "table Hurt: the stored table definition does not decode"));
    assert_non_null(strstr(err.message, "the other tables work"));
    ddb_item *got;
    assert_int_equal(ddb_get_item(db, "Hurt", tu_item(a, "PK", 's', "h", NULL), NULL, a, &got, NULL, &err),
                     DDB_ECORRUPT);
    assert_int_equal(ddb_put_item(db, "Hurt", tu_item(a, "PK", 's', "x", NULL), NULL, a, NULL, &err), DDB_ECORRUPT);
    ok_table_works(db); /* after the damage was seen, in the same handle */
    ddb_check_report r;
    assert_int_equal(ddb_check_table(db, "Hurt", &r, &err), DDB_ECORRUPT);
    assert_int_equal(r.problems, 1);
    assert_non_null(strstr(r.first_problem, "table Hurt"));
    TU_OK(ddb_check_table(db, "Okay", &r, &err));
    /* the way out: DeleteTable drops the definition and the data */
    assert_int_equal(ddb_check_catalog(db, &r, &err), DDB_OK); /* a definition that does not load is no orphan */
    TU_OK(ddb_delete_table(db, "Hurt", &err));
    TU_OK(ddb_check_catalog(db, &r, &err));
    TU_OK(ddb_create_table(db, &(ddb_table_def){.name = "Hurt", .key = {.pk = "PK", .pk_type = DDB_TS}}, &err));
    TU_OK(ddb_put_item(db, "Hurt", tu_item(a, "PK", 's', "new", NULL), NULL, a, NULL, &err));
    ddb_page page;
    TU_OK(ddb_scan(db, &(ddb_scan_params){.table = "Hurt"}, a, &page, &err));
    assert_int_equal(page.count, 1); /* the old items went with the old definition */
    reopen(&db);
    ok_table_works(db);
    TU_OK(ddb_describe_table(db, "Hurt", a, &d, &err));

    /* a key of the table list that names no table (too long for a name):
     * skipped, reported by the catalog check; the database opens */
    ddb_close(db);
    char key[300] = "t/";
    memset(key + 2, 'k', 280);
    assert_int_equal(dmg_raw_open(&w, dir), 0);
    assert_int_equal(dmg_raw_put(&w, "meta", 0, key, 282, "x", 1), 0);
    assert_int_equal(dmg_raw_close(&w), 0);
    TU_OK(ddb_open(uri, NULL, &db, &err));
    TU_OK(ddb_list_tables(db, a, &names, &n, &err));
    assert_int_equal(n, 2);
    ok_table_works(db);
    assert_int_equal(ddb_check_catalog(db, &r, &err), DDB_ECORRUPT);
    assert_non_null(strstr(err.message, "is in the table list but names no table"));
    ok_table_works(db);
    ddb_arena_free(a);
    ddb_close(db);
    tu_rmdir(dir);
}

/* Store the definition of table name (key PK, S) with the one index map
 * ix in the closed database at dir, as a writer would. */
static void store_definition(ddb_arena *a, const char *name, ddb_value *ix)
{
    ddb_item *def = ddb_item_new(a);
    ddb_value *list = ddb_v_list(a);
    ddb_item_set_s(def, "name", name);
    ddb_item_set_s(def, "pk", "PK");
    ddb_item_set_i64(def, "pk_type", DDB_TS);
    ddb_list_append(a, list, ix);
    ddb_item_set(def, "indexes", list);
    ddb_buf b = {0};
    assert_int_equal(ddbi_encode_item(&b, ddb_item_map(def), ddb_item_size(def)), 0);
    char key[300];
    int klen = snprintf(key, sizeof key, "t/%s", name);
    dmg_raw w;
    assert_int_equal(dmg_raw_open(&w, dir), 0);
    assert_int_equal(dmg_raw_put(&w, "meta", 0, key, (size_t)klen, b.p, b.len), 0);
    assert_int_equal(dmg_raw_close(&w), 0);
    ddbi_buf_free(&b);
}

/* A GSI with a multi-attribute key is stored in the catalog's index format
 * 2: no "pk" member, so that a version before it (which reads "pk" and
 * "sk") refuses the definition instead of indexing one attribute of the
 * key; and a format after 2 is refused here, naming a newer version. */
static void test_multi_key_format(void **state)
{
    (void)state;
    ddb *db = tu_open("tdef-mkformat", NULL, dir, sizeof dir);
    ddb_error err = {0};
    ddb_arena *a = ddb_arena_new();
    static const ddb_key_part more[] = {{"G2", DDB_TN}, {"H2", DDB_TB}};
    ddb_index_def x = {.name = "byG",
                       .key = {.pk = "G", .pk_type = DDB_TS, .pk_more = more, .n_pk_more = 1, .sk = "H",
                               .sk_type = DDB_TS, .sk_more = more + 1, .n_sk_more = 1}};
    ddb_value *m = ddbi_catalog_index_map(a, &x);
    assert_non_null(m);
    assert_null(ddb_map_get(m, "pk"));
    assert_null(ddb_map_get(m, "sk"));
    const ddb_value *fmt = ddb_map_get(m, "format");
    assert_non_null(fmt);
    assert_string_equal(fmt->u.s, "2");
    ddb_table_def d = {.name = "Multi", .key = {.pk = "PK", .pk_type = DDB_TS}, .indexes = &x, .n_indexes = 1};
    TU_OK(ddb_create_table(db, &d, &err));
    ddb_close(db);
    db = NULL;
    /* the same index as a later version might store it */
    ddb_map_set(a, m, "format", ddb_v_i64(a, 3));
    store_definition(a, "Later", m);
    reopen(&db);
    ddb_table_desc *desc;
    TU_OK(ddb_describe_table(db, "Multi", a, &desc, &err));
    assert_int_equal(desc->def.indexes[0].key.n_pk_more, 1);
    assert_int_equal(desc->def.indexes[0].key.sk_more[0].type, DDB_TB);
    assert_int_equal(ddb_describe_table(db, "Later", a, &desc, &err), DDB_ECORRUPT);
    assert_non_null(strstr(err.message, "written by a newer version"));
    ddb_arena_free(a);
    ddb_close(db);
    tu_rmdir(dir);
}

/* A definition stored by a version before the one validator with a
 * NonKeyAttribute named twice (then accepted) still loads, the name once. */
static void test_old_duplicate_projection(void **state)
{
    (void)state;
    ddb *db = tu_open("tdef-olddup", NULL, dir, sizeof dir);
    ddb_error err = {0};
    const char *inc[1] = {"p"};
    ddb_index_def x = {.name = "byG", .key = {.pk = "G", .pk_type = DDB_TS}, .projection = DDB_PROJ_INCLUDE,
                       .include = inc, .n_include = 1};
    ddb_table_def d = {.name = "Old", .key = {.pk = "PK", .pk_type = DDB_TS}, .indexes = &x, .n_indexes = 1};
    TU_OK(ddb_create_table(db, &d, &err));
    ddb_close(db);
    db = NULL;
    /* rewrite its stored definition as the old writer did: "include": ["p", "p"] */
    ddb_arena *a = ddb_arena_new();
    ddb_value *ix = ddb_v_map(a), *names = ddb_v_list(a);
    ddb_map_set(a, ix, "name", ddb_v_str(a, "byG"));
    ddb_map_set(a, ix, "pk", ddb_v_str(a, "G"));
    ddb_map_set(a, ix, "pk_type", ddb_v_i64(a, DDB_TS));
    ddb_map_set(a, ix, "proj", ddb_v_i64(a, DDB_PROJ_INCLUDE));
    ddb_list_append(a, names, ddb_v_str(a, "p"));
    ddb_list_append(a, names, ddb_v_str(a, "p"));
    ddb_map_set(a, ix, "include", names);
    store_definition(a, "Old", ix);
    reopen(&db);
    ddb_table_desc *desc;
    TU_OK(ddb_describe_table(db, "Old", a, &desc, &err));
    assert_int_equal(desc->def.indexes[0].n_include, 1);
    assert_string_equal(desc->def.indexes[0].include[0], "p");
    ddb_arena_free(a);
    ddb_close(db);
    tu_rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_projected_name_length),
        cmocka_unit_test(test_add_index_rules),
        cmocka_unit_test(test_projected_count),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_damaged_definition),
        cmocka_unit_test(test_old_duplicate_projection),
        cmocka_unit_test(test_multi_key_format),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
