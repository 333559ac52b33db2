/* Rendering prepared expressions back to text for the wire: every name a
 * "#nN" placeholder, values unchanged, precedence kept.  Checked three
 * ways: expected text for typical expressions; the rendered text prepared
 * again (with the names map it came with) renders identically; and it
 * evaluates / applies exactly like the original on sample items. */
#include "expr/expr.h"
#include "remote/remote_wire.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

typedef struct rendered {
    char text[1024];
    ddb_item *names; /* "#nI" -> S name, or NULL when none */
} rendered;

static void render(ddb_arena *a, const ddb_expr *e, rendered *out)
{
    ddb_wire_names m = {0};
    m.arena = a;
    ddb_buf b = {0};
    ddb_error err = {0};
    if (ddbi_expr_render(e, &m, &b, &err))
        fail_msg("render: %s", err.message);
    snprintf(out->text, sizeof out->text, "%s", (const char *)b.p);
    ddbi_buf_free(&b);
    out->names = NULL;
    if (m.n) {
        out->names = ddb_item_new(a);
        for (size_t i = 0; i < m.n; i++) {
            char ph[32];
            snprintf(ph, sizeof ph, "#n%zu", i);
            ddb_item_set(out->names, ph, ddb_v_s(a, m.names[i], m.lens[i]));
        }
    }
}

typedef struct rcase {
    ddb_expr_kind kind;
    const char *text;
    const char *want; /* NULL: only check the round trip */
} rcase;

static const rcase cases[] = {
    {DDB_EXPR_CONDITION, "a = :v", "#n0 = :v"},
    {DDB_EXPR_CONDITION, "#k.b[2].c <> :v", "#n0.#n1[2].#n2 <> :v"},
    {DDB_EXPR_CONDITION, "a < :x AND b >= :y OR NOT c = :z", "#n0 < :x AND #n1 >= :y OR NOT #n2 = :z"},
    {DDB_EXPR_CONDITION, "a = :x AND (b = :y OR c = :z)", "#n0 = :x AND (#n1 = :y OR #n2 = :z)"},
    {DDB_EXPR_CONDITION, "(a = :x OR b = :y) AND c = :z", "(#n0 = :x OR #n1 = :y) AND #n2 = :z"},
    {DDB_EXPR_CONDITION, "a = :x OR (b = :y OR c = :z)", "#n0 = :x OR (#n1 = :y OR #n2 = :z)"},
    {DDB_EXPR_CONDITION, "NOT (a = :x AND b = :y)", "NOT (#n0 = :x AND #n1 = :y)"},
    {DDB_EXPR_CONDITION, "a BETWEEN :lo AND :hi", "#n0 BETWEEN :lo AND :hi"},
    {DDB_EXPR_CONDITION, "a IN (:x, :y, :z)", "#n0 IN (:x, :y, :z)"},
    {DDB_EXPR_CONDITION, "attribute_not_exists(pk) AND size(#k) > :n", "attribute_not_exists(#n0) AND size(#n1) > :n"},
    {DDB_EXPR_CONDITION, "begins_with(a, :p) OR contains(b, :c) OR attribute_type(c, :t)",
     "begins_with(#n0, :p) OR contains(#n1, :c) OR attribute_type(#n2, :t)"},
    /* reserved words and the same name twice: one placeholder each */
    {DDB_EXPR_CONDITION, "#size = :x AND #size <> :y", "#n0 = :x AND #n0 <> :y"},
    {DDB_EXPR_CONDITION, "(a) = :x", "(#n0) = :x"},
    {DDB_EXPR_FILTER, "a.b = :x", "#n0.#n1 = :x"},
    {DDB_EXPR_UPDATE, "SET a = :x, b = b + :one REMOVE c, d[1] ADD e :n DELETE f :s",
     "SET #n0 = :x, #n1 = #n1 + :one REMOVE #n2, #n3[1] ADD #n4 :n DELETE #n5 :s"},
    {DDB_EXPR_UPDATE, "REMOVE c SET a = if_not_exists(a, :z), l = list_append(l, :items)",
     "REMOVE #n0 SET #n1 = if_not_exists(#n1, :z), #n2 = list_append(#n2, :items)"},
    {DDB_EXPR_UPDATE, "SET a = (b - :one)", "SET #n0 = (#n1 - :one)"},
    {DDB_EXPR_PROJECTION, "a, b.c, d[0], #k", "#n0, #n1.#n2, #n3[0], #n4"},
    {DDB_EXPR_KEY_CONDITION, "pk = :p AND begins_with(sk, :s)", "#n0 = :p AND begins_with(#n1, :s)"},
    {DDB_EXPR_KEY_CONDITION, "pk = :p AND sk BETWEEN :a AND :b", NULL},
    {DDB_EXPR_CONDITION, "a = :a AND b = :b AND c = :c OR d = :d AND NOT e = :e OR (f = :f)", NULL},
    {DDB_EXPR_CONDITION, "NOT NOT a = :a", NULL},
};

static ddb_item *names_map(ddb_arena *a)
{
    ddb_item *n = ddb_item_new(a);
    ddb_item_set_s(n, "#k", "weird name. [with] \"chars\"");
    ddb_item_set_s(n, "#size", "size");
    return n;
}

static void test_render(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        ddb_arena *a = ddb_arena_new();
        ddb_item *names = names_map(a);
        ddb_error err = {0};
        ddb_expr *e, *e2;
        /* the names map only when the text uses it (unused names are not an error at prepare) */
        if (ddb_expr_prepare(cases[i].kind, cases[i].text, strchr(cases[i].text, '#') ? names : NULL, &e, &err))
            fail_msg("prepare %s: %s", cases[i].text, err.message);
        rendered r1, r2;
        render(a, e, &r1);
        if (cases[i].want && strcmp(r1.text, cases[i].want) != 0)
            fail_msg("%s -> %s, want %s", cases[i].text, r1.text, cases[i].want);
        if (ddb_expr_prepare(cases[i].kind, r1.text, r1.names, &e2, &err))
            fail_msg("re-prepare %s: %s", r1.text, err.message);
        render(a, e2, &r2);
        assert_string_equal(r1.text, r2.text);
        ddb_expr_free(e);
        ddb_expr_free(e2);
        ddb_arena_free(a);
    }
}

/* Same truth value on every sample item for original and rendered text. */
static void test_same_meaning(void **state)
{
    (void)state;
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    ddb_item *vals = ddb_item_new(a);
    const char *vn[] = {":a", ":b", ":c", ":d", ":e", ":f"};
    for (int i = 0; i < 6; i++)
        ddb_item_set_i64(vals, vn[i], 1);
    const char *conds[] = {"a = :a AND b = :b AND c = :c OR d = :d AND NOT e = :e OR (f = :f)",
                           "a = :a AND (b = :b OR c = :c)", "NOT (a = :a OR b = :b) AND c = :c",
                           "a = :a OR b = :b AND c = :c", "(a = :a OR b = :b) AND (c = :c OR NOT d = :d)"};
    for (size_t c = 0; c < sizeof conds / sizeof *conds; c++) {
        ddb_expr *e, *e2;
        assert_int_equal(ddb_expr_prepare(DDB_EXPR_CONDITION, conds[c], NULL, &e, &err), 0);
        rendered r;
        render(a, e, &r);
        assert_int_equal(ddb_expr_prepare(DDB_EXPR_CONDITION, r.text, r.names, &e2, &err), 0);
        /* every combination of a..f being 1 or 0 */
        for (unsigned bits = 0; bits < 64; bits++) {
            ddb_item *it = ddb_item_new(a);
            const char *an[] = {"a", "b", "c", "d", "e", "f"};
            for (int k = 0; k < 6; k++)
                ddb_item_set_i64(it, an[k], (bits >> k) & 1);
            bool x, y;
            assert_int_equal(ddbi_expr_eval_condition(e, it, vals, &x, &err), 0);
            assert_int_equal(ddbi_expr_eval_condition(e2, it, vals, &y, &err), 0);
            if (x != y)
                fail_msg("%s vs %s differ on %02x", conds[c], r.text, bits);
        }
        ddb_expr_free(e);
        ddb_expr_free(e2);
    }
    /* an update applies the same way */
    ddb_expr *u, *u2;
    assert_int_equal(ddb_expr_prepare(DDB_EXPR_UPDATE, "SET a = a + :a, b = :b REMOVE c", NULL, &u, &err), 0);
    rendered r;
    render(a, u, &r);
    assert_int_equal(ddb_expr_prepare(DDB_EXPR_UPDATE, r.text, r.names, &u2, &err), 0);
    ddb_item *old = ddb_item_new(a);
    ddb_item_set_i64(old, "a", 41);
    ddb_item_set_i64(old, "c", 3);
    ddb_item *n1, *n2;
    ddb_item *uv = ddb_item_new(a);
    ddb_item_set_i64(uv, ":a", 1);
    ddb_item_set_s(uv, ":b", "x");
    assert_int_equal(ddbi_expr_apply_update(u, old, uv, a, &n1, &err), 0);
    assert_int_equal(ddbi_expr_apply_update(u2, old, uv, a, &n2, &err), 0);
    assert_true(ddb_value_equal(ddb_item_map(n1), ddb_item_map(n2)));
    assert_string_equal(ddb_item_get(n2, "a")->u.s, "42");
    ddb_expr_free(u);
    ddb_expr_free(u2);
    ddb_arena_free(a);
}

static void test_shared_names(void **state)
{
    (void)state;
    /* one map across the expressions of a request */
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    ddb_expr *u, *c;
    assert_int_equal(ddb_expr_prepare(DDB_EXPR_UPDATE, "SET a = :x, b = :y", NULL, &u, &err), 0);
    assert_int_equal(ddb_expr_prepare(DDB_EXPR_CONDITION, "attribute_exists(b) AND c = :z", NULL, &c, &err), 0);
    ddb_wire_names m = {0};
    m.arena = a;
    ddb_buf b1 = {0}, b2 = {0};
    assert_int_equal(ddbi_expr_render(u, &m, &b1, &err), 0);
    assert_int_equal(ddbi_expr_render(c, &m, &b2, &err), 0);
    assert_string_equal((char *)b1.p, "SET #n0 = :x, #n1 = :y");
    assert_string_equal((char *)b2.p, "attribute_exists(#n1) AND #n2 = :z");
    assert_int_equal(m.n, 3);
    ddbi_buf_free(&b1);
    ddbi_buf_free(&b2);
    assert_int_equal(ddbi_expr_render(NULL, &m, &b1, &err), DDB_EINVAL);
    ddb_expr_free(u);
    ddb_expr_free(c);
    ddb_arena_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_render),
        cmocka_unit_test(test_same_meaning),
        cmocka_unit_test(test_shared_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
