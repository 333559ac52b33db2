/* Generated access patterns over a global secondary index keyed on the
 * entity's own fields (DDB_KEY_FIELDS), on the embedded engine and through
 * the remote backend against `ddb serve` when DDB_TEST_URI is set
 * (tests/serve/with_serve.py): one typed parameter per partition-key
 * field, a level per sort-key field, no key string written.
 *
 * DynamoDB references: Developer Guide, "Multi-attribute keys pattern"
 * (a GSI key of up to four attributes a side, each with its own type; the
 * partition-key attributes hashed together; items ordered by the sort-key
 * attributes in declared order, numbers as numbers; a Query names every
 * partition-key attribute with equality and sort-key attributes left to
 * right, equality on each, a range or begins_with only on the last one
 * named; an item lacking a key attribute is not in the index); API
 * Reference, "Query" (Limit, LastEvaluatedKey, ExclusiveStartKey) and
 * "GlobalSecondaryIndex" (KeySchema). */
#include "key_fields_ddb.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fresh_db.h"

/* Matches of tournament W24 / region EU (and one elsewhere), chosen so that
 * text order and value order differ: round 10 after 2, score -1.5 before
 * 0.25, bracket "UP" beside "UPPER" (a prefix of it). */
static const struct match matches[] = { /* no seal: not in BySeal */
    {"m1", "W24", "EU", 2, "UPPER", 0.25, "ann", NULL, {NULL, 0}},
    {"m2", "W24", "EU", 10, "LOWER", 3, "bob", "rita", {NULL, 0}},
    {"m3", "W24", "EU", 2, "UP", -1.5, "cy", "rita", {NULL, 0}},
    {"m4", "W24", "EU", 1, "UPPER", 7, "dee", NULL, {NULL, 0}},
    {"m5", "W24", "EU", 2, "UPPER", -1.5, "eve", "sam", {NULL, 0}},
    {"m6", "W24", "NA", 2, "UPPER", 1, "fay", "tom", {NULL, 0}},
};
#define N_MATCHES (sizeof matches / sizeof *matches)

static ddb *open_filled(void)
{
    ddb_error err;
    ddb *db = fresh_db("Matches", mk_create_table);
    for (size_t i = 0; i < N_MATCHES; i++) {
        struct match m = matches[i];
        OK(match_put(db, &m, NULL, NULL, &err));
    }
    return db;
}

/* The ids of a page, joined by spaces. */
static const char *ids(const match_page *p)
{
    static char buf[256];
    buf[0] = 0;
    for (size_t i = 0; i < p->count; i++)
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", i ? " " : "", p->items[i].match_id);
    return buf;
}

static const char *by_round(ddb *db, match_by_round_sk sk, const ddb_ent_read_opts *o)
{
    ddb_error err;
    ddb_arena *a = ddb_arena_new();
    match_page p;
    OK(match_by_round(db, "W24", "EU", sk, o, a, &p, &err));
    const char *r = ids(&p);
    ddb_arena_free(a);
    return r;
}

/* The partition is both partition-key fields: W24/NA is another one.
 * Sort order: round as a number, then bracket, then score as a number. */
static void test_order_and_levels(void **state)
{
    (void)state;
    ddb *db = open_filled();
    assert_string_equal(by_round(db, match_by_round_all(), NULL), "m4 m3 m5 m1 m2");
    ddb_ent_read_opts back = {.backward = true};
    assert_string_equal(by_round(db, match_by_round_all(), &back), "m2 m1 m5 m3 m4");
    /* equality on a level is equality on that attribute, never a prefix:
     * "UP" does not take "UPPER" */
    assert_string_equal(by_round(db, match_by_round_round(DDB_ENT_SK_EQ, 2), NULL), "m3 m5 m1");
    assert_string_equal(by_round(db, match_by_round_bracket(DDB_ENT_SK_EQ, 2, "UP"), NULL), "m3");
    assert_string_equal(by_round(db, match_by_round_bracket(DDB_ENT_SK_BEGINS, 2, "UP"), NULL), "m3 m5 m1");
    assert_string_equal(by_round(db, match_by_round_score(DDB_ENT_SK_EQ, 2, "UPPER", -1.5), NULL), "m5");
    /* a range on the last level named, the levels before it equal */
    assert_string_equal(by_round(db, match_by_round_round(DDB_ENT_SK_GT, 1), NULL), "m3 m5 m1 m2");
    assert_string_equal(by_round(db, match_by_round_round(DDB_ENT_SK_LE, 2), NULL), "m4 m3 m5 m1");
    assert_string_equal(by_round(db, match_by_round_round_between(2, 10), NULL), "m3 m5 m1 m2");
    assert_string_equal(by_round(db, match_by_round_score(DDB_ENT_SK_GE, 2, "UPPER", 0), NULL), "m1");
    assert_string_equal(by_round(db, match_by_round_score_between(2, "UPPER", -2, 0.25), NULL), "m5 m1");
    assert_string_equal(by_round(db, match_by_round_bracket_between(2, "A", "UP"), NULL), "m3");
    fresh_db_close(db, "Matches");
}

/* The older ddb_ent_query interface (a count of sort-key fields): on a key
 * of fields, the fields given are equal (round 2, bracket "UP": not
 * "UPPER"), and an operator applies to the last one. */
static void test_query_by_field_count(void **state)
{
    (void)state;
    ddb *db = open_filled();
    ddb_error err;
    ddb_arena *a = ddb_arena_new();
    struct match k = {.tournament = "W24", .region = "EU", .round = 2, .bracket = "UP"};
    ddb_ent_page p;
    OK(ddb_ent_query_page(db, &match_entity, &(ddb_ent_query){.key = 1, .obj = &k, .sk_fields = 2}, NULL, a, &p, &err));
    assert_int_equal(p.count, 1);
    assert_string_equal(((struct match *)p.items)[0].match_id, "m3");
    OK(ddb_ent_query_page(db, &match_entity,
                          &(ddb_ent_query){.key = 1, .obj = &k, .sk_fields = 2, .op = DDB_SK_BEGINS_WITH}, NULL, a, &p,
                          &err));
    assert_int_equal(p.count, 3);
    ddb_arena_free(a);
    fresh_db_close(db, "Matches");
}

/* begins_with takes strings (and binary) only: a numeric level refuses it. */
static void test_begins_on_a_number(void **state)
{
    (void)state;
    ddb *db = open_filled();
    ddb_error err;
    ddb_arena *a = ddb_arena_new();
    match_page p;
    assert_int_equal(match_by_round(db, "W24", "EU", match_by_round_round(DDB_ENT_SK_BEGINS, 2), NULL, a, &p, &err),
                     DDB_EVALIDATION);
    assert_non_null(strstr(err.message, "round"));
    ddb_arena_free(a);
    fresh_db_close(db, "Matches");
}

/* A write stores the fields as the key attributes: no synthetic attribute. */
static void test_no_key_strings(void **state)
{
    (void)state;
    ddb *db = open_filled();
    ddb_error err;
    ddb_arena *a = ddb_arena_new();
    ddb_item *key = ddb_item_new(a), *it = NULL;
    OK(ddb_item_set_s(key, "PK", "MATCH#m2") || ddb_item_set_s(key, "SK", "MATCH") ? DDB_ENOMEM : DDB_OK);
    OK(ddb_get_item(db, "Matches", key, NULL, a, &it, NULL, &err));
    /* PK, SK, Type and the eight fields */
    assert_int_equal(ddb_item_count(it), 11);
    assert_int_equal(ddb_item_get(it, "round")->type, DDB_TN);
    assert_int_equal(ddb_item_get(it, "score")->type, DDB_TN);
    assert_string_equal(ddb_item_get(it, "region")->u.s, "EU");
    /* the table's definition carries every attribute of the index's key */
    ddb_table_desc *d;
    OK(ddb_describe_table(db, "Matches", a, &d, &err));
    const ddb_index_def *x = NULL;
    for (size_t i = 0; i < d->def.n_indexes; i++)
        if (!strcmp(d->def.indexes[i].name, "ByRound"))
            x = &d->def.indexes[i];
    assert_non_null(x);
    assert_string_equal(x->key.pk, "tournament");
    assert_int_equal(x->key.n_pk_more, 1);
    assert_string_equal(x->key.pk_more[0].name, "region");
    assert_string_equal(x->key.sk, "round");
    assert_int_equal(x->key.sk_type, DDB_TN);
    assert_int_equal(x->key.n_sk_more, 2);
    assert_string_equal(x->key.sk_more[1].name, "score");
    ddb_arena_free(a);
    fresh_db_close(db, "Matches");
}

/* A partial update of a key field moves the item in the index. */
static void test_update_moves(void **state)
{
    (void)state;
    ddb *db = open_filled();
    ddb_error err;
    struct match m = matches[3]; /* m4, round 1 */
    m.round = 11;
    OK(match_update_fields(db, &m, match_mask(MATCH_F_ROUND), NULL, NULL, &err));
    assert_string_equal(by_round(db, match_by_round_all(), NULL), "m3 m5 m1 m2 m4");
    assert_string_equal(by_round(db, match_by_round_round(DDB_ENT_SK_EQ, 1), NULL), "");
    fresh_db_close(db, "Matches");
}

/* Pages of two: every item once, in order, resumed after the last one. */
static void test_pages(void **state)
{
    (void)state;
    ddb *db = open_filled();
    ddb_error err;
    ddb_arena *a = ddb_arena_new();
    match_by_round_iter it;
    match_page p;
    char all[256] = "";
    size_t pages = 0;
    match_by_round_begin(&it, db, "W24", "EU", match_by_round_all(), &(ddb_ent_read_opts){.page_size = 2});
    int rc;
    while ((rc = match_by_round_next(&it, a, &p, &err)) == DDB_OK && it.pages.has_page) {
        assert_true(p.count <= 2);
        for (size_t i = 0; i < p.count; i++)
            snprintf(all + strlen(all), sizeof all - strlen(all), "%s%s", all[0] ? " " : "", p.items[i].match_id);
        pages++;
    }
    match_by_round_end(&it);
    OK(rc);
    assert_string_equal(all, "m4 m3 m5 m1 m2");
    assert_true(pages >= 3);
    ddb_arena_free(a);
    fresh_db_close(db, "Matches");
}

/* A declared query over the fields: equality on round and bracket, a range
 * on score, and a filter. */
static void test_declared_query(void **state)
{
    (void)state;
    ddb *db = open_filled();
    ddb_error err;
    ddb_arena *a = ddb_arena_new();
    match_page p;
    OK(match_in_bracket(db, "W24", "EU", 2, "UPPER", -2, "eve", NULL, a, &p, &err));
    assert_string_equal(ids(&p), "m1");
    OK(match_in_bracket(db, "W24", "EU", 2, "UP", -2, "nobody", NULL, a, &p, &err));
    assert_string_equal(ids(&p), "m3");
    ddb_arena_free(a);
    fresh_db_close(db, "Matches");
}

/* DDB_SPARSE: a match without a referee is not in ByReferee; a KEYS_ONLY
 * index gives the key fields back (the table key parsed from its template,
 * the index's own attributes as they are). */
static void test_sparse_keys_only(void **state)
{
    (void)state;
    ddb *db = open_filled();
    ddb_error err;
    ddb_arena *a = ddb_arena_new();
    match_page p;
    OK(match_by_referee(db, "rita", match_by_referee_all(), NULL, a, &p, &err));
    assert_string_equal(ids(&p), "m3 m2");
    assert_int_equal(p.items[1].round, 10);
    assert_string_equal(p.items[1].referee, "rita");
    assert_true(ddb_ent_mask_has(&p.masks[1], MATCH_FN_ROUND));
    assert_false(ddb_ent_mask_has(&p.masks[1], MATCH_FN_WINNER));
    ddb_page all;
    OK(ddb_scan(db, &(ddb_scan_params){.table = "Matches", .index = "ByReferee"}, a, &all, &err));
    assert_int_equal(all.count, 4);
    /* clearing the field takes the item out of the index */
    struct match m = matches[4]; /* m5, referee sam */
    m.referee = NULL;
    OK(match_put(db, &m, NULL, NULL, &err));
    OK(match_by_referee(db, "sam", match_by_referee_all(), NULL, a, &p, &err));
    assert_int_equal(p.count, 0);
    ddb_arena_free(a);
    fresh_db_close(db, "Matches");
}

/* A binary sort-key field: ordered bytewise, begins_with on bytes. */
static void test_binary_level(void **state)
{
    (void)state;
    ddb *db = open_filled();
    ddb_error err;
    ddb_arena *a = ddb_arena_new();
    static uint8_t s1[] = {0x01, 0xff}, s2[] = {0x01, 0x02}, s3[] = {0x02}, p[] = {0x01};
    const struct {
        int i;
        uint8_t *b;
        size_t n;
    } seals[] = {{0, s1, 2}, {1, s2, 2}, {2, s3, 1}};
    for (size_t i = 0; i < 3; i++) {
        struct match m = matches[seals[i].i];
        m.seal = (ddb_bytes){seals[i].b, seals[i].n};
        OK(match_put(db, &m, NULL, NULL, &err));
    }
    match_page pg;
    OK(match_by_seal(db, "EU", match_by_seal_all(), NULL, a, &pg, &err));
    assert_string_equal(ids(&pg), "m2 m1 m3");
    OK(match_by_seal(db, "EU", match_by_seal_seal(DDB_ENT_SK_BEGINS, (ddb_bytes){p, 1}), NULL, a, &pg, &err));
    assert_string_equal(ids(&pg), "m2 m1");
    OK(match_by_seal(db, "EU", match_by_seal_seal(DDB_ENT_SK_GT, (ddb_bytes){s2, 2}), NULL, a, &pg, &err));
    assert_string_equal(ids(&pg), "m1 m3");
    assert_int_equal(pg.items[0].seal.len, 2);
    assert_int_equal(pg.items[0].seal.data[1], 0xff);
    /* the same through a declared query */
    OK(match_sealed(db, "EU", (ddb_bytes){p, 1}, NULL, a, &pg, &err));
    assert_string_equal(ids(&pg), "m2 m1");
    ddb_arena_free(a);
    fresh_db_close(db, "Matches");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_and_levels), cmocka_unit_test(test_begins_on_a_number),
        cmocka_unit_test(test_no_key_strings),   cmocka_unit_test(test_update_moves),
        cmocka_unit_test(test_pages),            cmocka_unit_test(test_declared_query),
        cmocka_unit_test(test_sparse_keys_only), cmocka_unit_test(test_binary_level),
        cmocka_unit_test(test_query_by_field_count),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
