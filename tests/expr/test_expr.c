/* DynamoDB expressions: grammar, evaluation, updates, projections, key
 * conditions and every validation message, table-driven with exact results.
 *
 * Items are written in DynamoDB JSON ({"a": {"N": "1"}}), except that B and
 * BS hold raw text instead of base64 (test convention). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr/expr.h"

/* ---- DynamoDB JSON <-> values ---------------------------------------------- */

static ddb_value *from_json(ddb_arena *a, json_t *j)
{
    const char *t = NULL;
    json_t *v = NULL;
    json_object_foreach(j, t, v) break;
    assert_non_null(t);
    ddb_value *out = NULL;
    if (!strcmp(t, "S")) {
        out = ddb_v_s(a, json_string_value(v), json_string_length(v));
    } else if (!strcmp(t, "B")) {
        out = ddb_v_b(a, json_string_value(v), json_string_length(v));
    } else if (!strcmp(t, "N")) {
        assert_int_equal(ddb_v_n(a, json_string_value(v), &out, NULL), DDB_OK);
    } else if (!strcmp(t, "BOOL")) {
        out = ddb_v_bool(a, json_is_true(v));
    } else if (!strcmp(t, "NULL")) {
        out = ddb_v_null(a);
    } else if (!strcmp(t, "L")) {
        out = ddb_v_list(a);
        size_t i;
        json_t *x;
        json_array_foreach(v, i, x) assert_int_equal(ddb_list_append(a, out, from_json(a, x)), DDB_OK);
    } else if (!strcmp(t, "M")) {
        out = ddb_v_map(a);
        const char *k;
        json_t *x;
        json_object_foreach(v, k, x) assert_int_equal(ddb_map_set(a, out, k, from_json(a, x)), DDB_OK);
    } else {
        ddb_type st = !strcmp(t, "SS") ? DDB_TSS : !strcmp(t, "NS") ? DDB_TNS : DDB_TBS;
        out = ddb_v_set(a, st);
        size_t i;
        json_t *x;
        json_array_foreach(v, i, x)
        {
            ddb_value *e;
            if (st == DDB_TNS)
                assert_int_equal(ddb_v_n(a, json_string_value(x), &e, NULL), DDB_OK);
            else if (st == DDB_TSS)
                e = ddb_v_s(a, json_string_value(x), json_string_length(x));
            else
                e = ddb_v_b(a, json_string_value(x), json_string_length(x));
            assert_int_equal(ddb_set_add(a, out, e, NULL), DDB_OK);
        }
    }
    assert_non_null(out);
    return out;
}

static ddb_item *item_of(ddb_arena *a, const char *json)
{
    if (!json)
        return NULL;
    json_error_t je;
    json_t *j = json_loads(json, 0, &je);
    if (!j)
        fail_msg("bad test JSON %s: %s", json, je.text);
    ddb_item *it = ddb_item_new(a);
    const char *k;
    json_t *x;
    json_object_foreach(j, k, x) assert_int_equal(ddb_item_set(it, k, from_json(a, x)), DDB_OK);
    json_decref(j);
    return it;
}

/* {"#k": "name"} as a names item. */
static ddb_item *names_of(ddb_arena *a, const char *json)
{
    if (!json)
        return NULL;
    json_t *j = json_loads(json, 0, NULL);
    assert_non_null(j);
    ddb_item *it = ddb_item_new(a);
    const char *k;
    json_t *x;
    json_object_foreach(j, k, x) assert_int_equal(ddb_item_set(it, k, ddb_v_str(a, json_string_value(x))), DDB_OK);
    json_decref(j);
    return it;
}

static json_t *to_json(const ddb_value *v)
{
    json_t *o = json_object(), *x = NULL;
    switch (v->type) {
    case DDB_TS:
    case DDB_TN:
    case DDB_TB: x = json_stringn(v->u.s, v->len); break;
    case DDB_TBOOL: x = json_boolean(v->u.boolean); break;
    case DDB_TNULL: x = json_true(); break;
    case DDB_TM:
        x = json_object();
        for (uint32_t i = 0; i < v->len; i++)
            json_object_set_new(x, v->u.m[i].name, to_json(v->u.m[i].value));
        break;
    default: /* L and sets */
        x = json_array();
        for (uint32_t i = 0; i < v->len; i++) {
            if (v->type == DDB_TL)
                json_array_append_new(x, to_json(v->u.l[i]));
            else
                json_array_append_new(x, json_stringn(v->u.set[i]->u.s, v->u.set[i]->len));
        }
        break;
    }
    json_object_set_new(o, ddb_type_name(v->type), x);
    return o;
}

/* Compact JSON with sorted keys; caller frees.  NULL item -> "null". */
static char *item_json(const ddb_item *it)
{
    if (!it)
        return strdup("null");
    json_t *o = json_object();
    const ddb_value *m = ddb_item_map(it);
    for (uint32_t i = 0; i < m->len; i++)
        json_object_set_new(o, m->u.m[i].name, to_json(m->u.m[i].value));
    char *s = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(o);
    return s;
}

static void expect_json(const ddb_item *it, const char *want, const char *ctx)
{
    char *got = item_json(it);
    int same = strcmp(got, want) == 0;
    if (!same)
        print_error("%s\n  got:  %s\n  want: %s\n", ctx, got, want);
    free(got);
    if (!same)
        fail();
}

static void expect_error(int rc, const ddb_error *err, int code, const char *msg, const char *ctx)
{
    if (rc != code || strcmp(err->message, msg) != 0) {
        print_error("%s\n  got:  %d %s\n  want: %d %s\n", ctx, rc, rc ? err->message : "(ok)", code, msg);
        fail();
    }
}

/* ---- Fixtures ---------------------------------------------------------------- */

static const char *const ITEM =
    "{\"pk\":{\"S\":\"p1\"},\"s\":{\"S\":\"hello\"},\"n\":{\"N\":\"42\"},\"f\":{\"N\":\"-1.5\"},"
    "\"b\":{\"B\":\"bytes\"},\"t\":{\"BOOL\":true},\"z\":{\"NULL\":true},"
    "\"l\":{\"L\":[{\"N\":\"1\"},{\"S\":\"two\"},{\"L\":[{\"N\":\"3\"}]}]},"
    "\"m\":{\"M\":{\"x\":{\"N\":\"1\"},\"y\":{\"M\":{\"z\":{\"S\":\"deep\"}}},\"k.dot\":{\"S\":\"d\"}}},"
    "\"ss\":{\"SS\":[\"a\",\"b\"]},\"ns\":{\"NS\":[\"1\",\"2\"]},\"bs\":{\"BS\":[\"x\",\"y\"]},"
    "\"u\":{\"S\":\"\xc3\xa9p\xc3\xa9\x65\"},\"em\":{\"M\":{}},\"el\":{\"L\":[]}}";

static const char *const VALUES =
    "{\":s\":{\"S\":\"hello\"},\":he\":{\"S\":\"he\"},\":ll\":{\"S\":\"ll\"},\":a\":{\"S\":\"a\"},"
    "\":x\":{\"S\":\"x\"},\":sn\":{\"S\":\"42\"},\":d\":{\"S\":\"d\"},\":deep\":{\"S\":\"deep\"},"
    "\":n\":{\"N\":\"42\"},\":n0\":{\"N\":\"0\"},\":n1\":{\"N\":\"1\"},\":n2\":{\"N\":\"2\"},\":n3\":{\"N\":\"3\"},"
    "\":n5\":{\"N\":\"5\"},\":n6\":{\"N\":\"6\"},\":n100\":{\"N\":\"100\"},\":f\":{\"N\":\"-1.50\"},"
    "\":b\":{\"B\":\"bytes\"},\":by\":{\"B\":\"by\"},\":bx\":{\"B\":\"x\"},\":t\":{\"BOOL\":true},"
    "\":z\":{\"NULL\":true},\":l\":{\"L\":[{\"N\":\"1\"},{\"S\":\"two\"},{\"L\":[{\"N\":\"3\"}]}]},"
    "\":l3\":{\"L\":[{\"N\":\"3\"}]},\":ss\":{\"SS\":[\"b\",\"a\"]},\":ns\":{\"NS\":[\"2\",\"1\"]},"
    "\":m\":{\"M\":{\"x\":{\"N\":\"1\"}}},\":dog\":{\"S\":\"DOG\"},\":two\":{\"S\":\"two\"}}";

static const char *const NAMES = "{\"#k\":\"k.dot\",\"#n\":\"n\",\"#c\":\"COMMENT\",\"#p\":\"pk\"}";

typedef struct fixture {
    ddb_arena *a;
    ddb_item *item, *values, *names;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    f->a = ddb_arena_new();
    f->item = item_of(f->a, ITEM);
    f->values = item_of(f->a, VALUES);
    f->names = names_of(f->a, NAMES);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    ddb_arena_free(f->a);
    free(f);
    return 0;
}

static ddb_expr *prepare_ok(ddb_expr_kind kind, const char *text, const ddb_item *names)
{
    ddb_expr *e = NULL;
    ddb_error err = {0};
    int rc = ddb_expr_prepare(kind, text, names, &e, &err);
    if (rc != DDB_OK) {
        print_error("prepare %s: %s\n", text, err.message);
        fail();
    }
    return e;
}

/* ---- Reserved words and tokens ---------------------------------------------- */

static void test_reserved_words(void **state)
{
    (void)state;
    static const char *const yes[] = {"ABORT", "abort", "Zone", "ZONE", "comment", "Name", "size", "DATA",
                                      "INNTER", "FLATTERN", "LOGED", "ttl", "status", "user", "year", "timestamp"};
    static const char *const no[] = {"ABORTS", "ZONES", "A", "", "zz", "abor", "pk", "sk", "gsi1pk", "email",
                                     "AAAA", "ZZZZ", "_name", "name_", "size2"};
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
        if (!ddbi_expr_is_reserved(yes[i], strlen(yes[i])))
            fail_msg("%s should be reserved", yes[i]);
    for (size_t i = 0; i < sizeof no / sizeof *no; i++)
        if (ddbi_expr_is_reserved(no[i], strlen(no[i])))
            fail_msg("%s should not be reserved", no[i]);
}

static void test_lexer(void **state)
{
    fixture *f = *state;
    expr_token *t;
    size_t n;
    const char *src = "a.#b[12] <> :c\n<= >= < > = ( ) , + - ! x_1";
    assert_int_equal(ddbi_expr_lex(src, strlen(src), f->a, &t, &n), DDB_OK);
    static const expr_tok_kind want[] = {TK_NAME, TK_DOT,   TK_HASH,  TK_LBRACKET, TK_NUMBER, TK_RBRACKET,
                                         TK_NE,   TK_VALUE, TK_LE,    TK_GE,       TK_LT,     TK_GT,
                                         TK_EQ,   TK_LPAREN, TK_RPAREN, TK_COMMA,  TK_PLUS,   TK_MINUS,
                                         TK_BAD,  TK_NAME,  TK_EOF};
    assert_int_equal(n, sizeof want / sizeof *want);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(t[i].kind, want[i]);
    assert_int_equal(t[8].line, 2); /* <= on the second line */
    assert_int_equal(t[8].col, 1);
    assert_int_equal(t[19].len, 3); /* x_1 */
    /* one token for a multi-byte character */
    const char *u = "\xc3\xa9";
    assert_int_equal(ddbi_expr_lex(u, 2, f->a, &t, &n), DDB_OK);
    assert_int_equal(n, 2);
    assert_int_equal(t[0].kind, TK_BAD);
    assert_int_equal(t[0].len, 2);
}

/* ---- Conditions --------------------------------------------------------------- */

typedef struct cond_case {
    const char *expr;
    int want;
} cond_case;

static const cond_case cond_cases[] = {
    /* = and <> on every type, type mismatches, absent attributes */
    {"n = :n", 1},
    {"n = :sn", 0},
    {"n <> :sn", 1},
    {"n <> :n", 0},
    {"f = :f", 1}, /* -1.5 = -1.50 numerically */
    {"s = :s", 1},
    {"b = :b", 1},
    {"t = :t", 1},
    {"z = :z", 1},
    {"l = :l", 1},
    {"ss = :ss", 1}, /* sets compare as sets */
    {"ns = :ns", 1},
    {"m.x = :n1", 1},
    {"m = :m", 0},
    {"nope = :n", 0},
    {"nope <> :n", 1},
    {"nope <> other2", 1},
    /* ordering comparisons: S, N, B only */
    {"n < :n100", 1},
    {"n <= :n", 1},
    {"n > :n", 0},
    {"n >= :n", 1},
    {"n > :n5", 1},
    {"f < :n1", 1},
    {"f < :f", 0},
    {"s < :x", 1},
    {"s > :he", 1},
    {"s >= :s", 1},
    {"b > :by", 1},
    {"b < :by", 0},
    {"s < :n", 0},
    {"n < :sn", 0},
    {"nope < :n", 0},
    {":n > nope", 0},
    {":n1 < n", 1},
    {"m.x < n", 1},
    /* nested paths and names */
    {"l[0] = :n1", 1},
    {"l[1] = :two", 1},
    {"l[2][0] = :n3", 1},
    {"l[5] = :n1", 0},
    {"m.y.z = :deep", 1},
    {"m.#k = :d", 1},
    {"#n = :n", 1},
    {"m.k.dot = :d", 0},
    {"l.x = :n1", 0},
    {"m[0] = :n1", 0},
    {"s[0] = :s", 0},
    /* BETWEEN */
    {"n BETWEEN :n1 AND :n100", 1},
    {"n BETWEEN :n AND :n", 1},
    {"n BETWEEN :n1 AND :n5", 0},
    {"s BETWEEN :a AND :x", 1},
    {"s between :x and :x", 0},
    {"b BETWEEN :by AND :bx", 1},
    {"n BETWEEN :a AND :x", 0},
    {"nope BETWEEN :n1 AND :n100", 0},
    {"n BETWEEN m.x AND :n100", 1},
    /* IN */
    {"n IN (:n1, :n)", 1},
    {"n IN (:n1)", 0},
    {"n IN (:sn, :a)", 0},
    {"nope IN (:n)", 0},
    {"ss IN (:ss, :n)", 1},
    {"l in (:l)", 1},
    {"n IN (m.x, #n)", 1},
    /* AND, OR, NOT and precedence */
    {"n = :n AND s = :s", 1},
    {"n = :n AND s = :a", 0},
    {"n = :n1 OR s = :s", 1},
    {"n = :n1 OR s = :a", 0},
    {"NOT n = :n", 0},
    {"not nope = :n", 1},
    {"n = :n1 OR n = :n AND s = :a", 0},
    {"n = :n OR n = :n1 AND s = :a", 1},
    {"(n = :n1 OR n = :n) AND s = :a", 0},
    {"NOT n = :n1 AND s = :s", 1},
    {"NOT (n = :n1 OR s = :s)", 0},
    {"NOT NOT n = :n", 1},
    {"n = :n and s = :s or n = :n1", 1},
    {"(n = :n)", 1},
    {"((n = :n) AND (s = :s))", 1},
    {"(n) = :n", 1},
    {"(size(s)) = :n5", 1},
    {"n = (:n)", 1},
    {"n\t=\n:n", 1},
    /* functions */
    {"attribute_exists(s)", 1},
    {"attribute_exists(nope)", 0},
    {"attribute_exists(m.y.z)", 1},
    {"attribute_exists(l[2][0])", 1},
    {"attribute_exists(l[3])", 0},
    {"attribute_not_exists(nope)", 1},
    {"attribute_not_exists(l[3])", 1},
    {"attribute_not_exists(s)", 0},
    {"attribute_not_exists (#p)", 0},
    {"begins_with(s, :he)", 1},
    {"begins_with(s, :ll)", 0},
    {"begins_with(s, :s)", 1},
    {"begins_with(b, :by)", 1},
    {"begins_with(b, :he)", 0},
    {"begins_with(n, :he)", 0},
    {"begins_with(nope, :he)", 0},
    {"begins_with(:s, :he)", 1},
    {"contains(s, :ll)", 1},
    {"contains(s, :x)", 0},
    {"contains(s, :n)", 0},
    {"contains(ss, :a)", 1},
    {"contains(ss, :x)", 0},
    {"contains(ns, :n1)", 1},
    {"contains(ns, :sn)", 0},
    {"contains(bs, :bx)", 1},
    {"contains(b, :by)", 1},
    {"contains(l, :n1)", 1},
    {"contains(l, :l3)", 1},
    {"contains(l, :n3)", 0},
    {"contains(n, :n)", 0},
    {"contains(m, :n1)", 0},
    {"contains(nope, :a)", 0},
    {"size(s) = :n5", 1},
    {"size(u) = :n6", 1}, /* bytes of UTF-8 */
    {"size(b) = :n5", 1},
    {"size(l) = :n3", 1},
    {"size(m) = :n3", 1},
    {"size(ss) = :n2", 1},
    {"size(ns) = :n2", 1},
    {"size(bs) = :n2", 1},
    {"size(em) = :n0", 1},
    {"size(el) = :n0", 1},
    {"size(n) = :n2", 0},
    {"size(t) < :n100", 0},
    {"size(z) >= :n0", 0},
    {"size(nope) = :n0", 0},
    {"size(nope) <> :n0", 1},
    {"size(s) > :n1", 1},
    {"size(s) = :sn", 0},
    {"size(s) BETWEEN :n1 AND :n5", 1},
    {"size(s) IN (:n1, :n5)", 1},
    {":n5 = size(s)", 1},
    {"size(m.y) = :n1", 1},
    {"size(:s) = :n5", 1},
    {"size(l[2]) < size(s)", 1},
};

static void test_conditions(void **state)
{
    fixture *f = *state;
    for (size_t i = 0; i < sizeof cond_cases / sizeof *cond_cases; i++) {
        const cond_case *c = &cond_cases[i];
        for (int kind = DDB_EXPR_CONDITION; kind <= DDB_EXPR_FILTER; kind++) {
            ddb_expr *e = prepare_ok((ddb_expr_kind)kind, c->expr, f->names);
            ddb_error err = {0};
            if (ddbi_expr_check_values(e, f->values, &err) != DDB_OK)
                fail_msg("%s: %s", c->expr, err.message);
            bool r = !c->want;
            if (ddbi_expr_eval_condition(e, f->item, f->values, &r, &err) != DDB_OK)
                fail_msg("%s: %s", c->expr, err.message);
            if (r != (c->want == 1))
                fail_msg("%s: got %d, want %d", c->expr, r, c->want);
            ddb_expr_free(e);
        }
    }
}

static void test_attribute_type_all(void **state)
{
    fixture *f = *state;
    static const struct {
        const char *attr, *type;
    } t[] = {{"s", "S"},   {"n", "N"}, {"b", "B"},   {"t", "BOOL"}, {"z", "NULL"},
             {"l", "L"},   {"m", "M"}, {"ss", "SS"}, {"ns", "NS"},  {"bs", "BS"}};
    static const char *const all[] = {"S", "N", "B", "BOOL", "NULL", "L", "M", "SS", "NS", "BS"};
    ddb_arena *a = ddb_arena_new();
    for (size_t i = 0; i < 10; i++) {
        char text[64];
        snprintf(text, sizeof text, "attribute_type(%s, :t)", t[i].attr);
        ddb_expr *e = prepare_ok(DDB_EXPR_CONDITION, text, NULL);
        for (size_t k = 0; k < 10; k++) {
            ddb_item *v = ddb_item_new(a);
            ddb_item_set_s(v, ":t", all[k]);
            bool r;
            assert_int_equal(ddbi_expr_check_values(e, v, NULL), DDB_OK);
            assert_int_equal(ddbi_expr_eval_condition(e, f->item, v, &r, NULL), DDB_OK);
            if (r != !strcmp(all[k], t[i].type))
                fail_msg("%s with %s", text, all[k]);
        }
        ddb_expr_free(e);
    }
    ddb_arena_free(a);
}

static void test_condition_without_item(void **state)
{
    fixture *f = *state;
    static const cond_case cases[] = {{"attribute_not_exists(pk)", 1}, {"attribute_exists(pk)", 0},
                                      {"pk = :s", 0},                  {"pk <> :s", 1},
                                      {"size(pk) = :n0", 0},           {"NOT contains(pk, :s)", 1}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        ddb_expr *e = prepare_ok(DDB_EXPR_CONDITION, cases[i].expr, NULL);
        bool r;
        assert_int_equal(ddbi_expr_eval_condition(e, NULL, f->values, &r, NULL), DDB_OK);
        if (r != (cases[i].want == 1))
            fail_msg("%s", cases[i].expr);
        ddb_expr_free(e);
    }
}

/* ---- Validation messages ---------------------------------------------------------- */

typedef struct err_case {
    ddb_expr_kind kind;
    const char *expr;
    int code;
    const char *msg;
} err_case;

#define C DDB_EXPR_CONDITION
#define F DDB_EXPR_FILTER
#define U DDB_EXPR_UPDATE
#define P DDB_EXPR_PROJECTION
#define K DDB_EXPR_KEY_CONDITION
#define V DDB_EVALIDATION

static const err_case err_cases[] = {
    /* empty and syntax */
    {C, "", V, "Invalid ConditionExpression: The expression can not be empty;"},
    {C, "  \n\t ", V, "Invalid ConditionExpression: The expression can not be empty;"},
    {F, "", V, "Invalid FilterExpression: The expression can not be empty;"},
    {U, "", V, "Invalid UpdateExpression: The expression can not be empty;"},
    {P, " ", V, "Invalid ProjectionExpression: The expression can not be empty;"},
    {K, "", V, "Invalid KeyConditionExpression: The expression can not be empty;"},
    {C, "a =", V, "Invalid ConditionExpression: Syntax error; token: \"<EOF>\", near: \"=\" at 1:4"},
    {F, "a =", V, "Invalid FilterExpression: Syntax error; token: \"<EOF>\", near: \"=\" at 1:4"},
    {C, "a = = b", V, "Invalid ConditionExpression: Syntax error; token: \"=\", near: \"= = b\" at 1:5"},
    {C, "a ! b", V, "Invalid ConditionExpression: Syntax error; token: \"!\", near: \"a ! b\" at 1:3"},
    {C, "a = :v AND", V, "Invalid ConditionExpression: Syntax error; token: \"<EOF>\", near: \"AND\" at 1:11"},
    {C, "a IN ()", V, "Invalid ConditionExpression: Syntax error; token: \")\", near: \"()\" at 1:7"},
    {C, "a BETWEEN :x :y", V, "Invalid ConditionExpression: Syntax error; token: \":y\", near: \":x :y\" at 1:14"},
    {C, "a = :v\nAND b =", V, "Invalid ConditionExpression: Syntax error; token: \"<EOF>\", near: \"=\" at 2:8"},
    {C, "(a = :v", V, "Invalid ConditionExpression: Syntax error; token: \"<EOF>\", near: \":v\" at 1:8"},
    {C, "a = :v)", V, "Invalid ConditionExpression: Syntax error; token: \")\", near: \":v)\" at 1:7"},
    {C, "a", V, "Invalid ConditionExpression: Syntax error; token: \"<EOF>\", near: \"a\" at 1:2"},
    {C, "a > 4", V, "Invalid ConditionExpression: Syntax error; token: \"4\", near: \"> 4\" at 1:5"},
    {C, "a = and", V, "Invalid ConditionExpression: Syntax error; token: \"and\", near: \"= and\" at 1:5"},
    {C, "IN(a) = :v", V, "Invalid ConditionExpression: Syntax error; token: \"IN\", near: \"IN(\" at 1:1"},
    {C, "size() = :v", V, "Invalid ConditionExpression: Syntax error; token: \")\", near: \"() =\" at 1:6"},
    {C, "a.[1] = :v", V, "Invalid ConditionExpression: Syntax error; token: \"[\", near: \".[1\" at 1:3"},
    {C, "a[x] = :v", V, "Invalid ConditionExpression: Syntax error; token: \"x\", near: \"[x]\" at 1:3"},
    {C, "a = \"x\"", V, "Invalid ConditionExpression: Syntax error; token: \"\"\", near: \"= \"x\" at 1:5"},
    {C, "a = :v OR OR b = :v", V,
     "Invalid ConditionExpression: Syntax error; token: \"OR\", near: \"OR OR b\" at 1:11"},
    /* semantic checks of conditions */
    {C, "size(a)", V,
     "Invalid ConditionExpression: The function is not allowed to be used this way in an expression; function: size "
     "at 1:1"},
    {C, "attribute_exists(a) = :v", V,
     "Invalid ConditionExpression: The function is not allowed to be used this way in an expression; function: "
     "attribute_exists at 1:1"},
    {C, "contains(attribute_exists(a), :v)", V,
     "Invalid ConditionExpression: The function is not allowed to be used this way in an expression; function: "
     "attribute_exists at 1:10"},
    {C, "foo(a) = :v", V, "Invalid ConditionExpression: Invalid function name; function: foo at 1:1"},
    {C, "Size(a) = :v", V, "Invalid ConditionExpression: Invalid function name; function: Size at 1:1"},
    {C, "if_not_exists(a, :v) = :v", V,
     "Invalid ConditionExpression: The function is not allowed in a condition expression; function: if_not_exists "
     "at 1:1"},
    {C, "list_append(a, :v) = :v", V,
     "Invalid ConditionExpression: The function is not allowed in a condition expression; function: list_append at "
     "1:1"},
    {C, "a = a", V,
     "Invalid ConditionExpression: The first operand must be distinct from the remaining operands for this operator "
     "or function; operator: =, first operand: [a] at 1:1"},
    {C, "contains(m.x[1], m.x[1])", V,
     "Invalid ConditionExpression: The first operand must be distinct from the remaining operands for this operator "
     "or function; operator: contains, first operand: [m, x, [1]] at 1:10"},
    {C, "((a = :v))", V, "Invalid ConditionExpression: The expression has redundant parentheses; at 1:5"},
    {C, "((a)) = :v", V, "Invalid ConditionExpression: The expression has redundant parentheses; at 1:3"},
    {C, "a.COMMENT = :v", V,
     "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: COMMENT at 1:3"},
    {C, "a = :v AND Name = :v", V,
     "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: Name at 1:12"},
    {C, "#nope = :v", V,
     "Invalid ConditionExpression: An expression attribute name used in the document path is not defined; attribute "
     "name: #nope at 1:1"},
    {C, "size(a, b) = :v", V,
     "Invalid ConditionExpression: Incorrect number of operands for operator or function; operator or function: "
     "size, number of operands: 2 at 1:1"},
    {C, "attribute_exists(a, b)", V,
     "Invalid ConditionExpression: Incorrect number of operands for operator or function; operator or function: "
     "attribute_exists, number of operands: 2 at 1:1"},
    {C, "attribute_exists(:v)", V,
     "Invalid ConditionExpression: Operator or function requires a document path; operator or function: "
     "attribute_exists at 1:18"},
    {C, "attribute_not_exists(size(a))", V,
     "Invalid ConditionExpression: Operator or function requires a document path; operator or function: "
     "attribute_not_exists at 1:22"},
    {C, "attribute_type(a, b)", V,
     "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: "
     "attribute_type, operand type: {NS,SS,L,BS,N,M,B,BOOL,NULL,S} at 1:19"},
    {C, "begins_with(size(a), :v)", V,
     "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: "
     "begins_with, operand type: N at 1:13"},
    {C, "size(size(a)) > :v", V,
     "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: size, "
     "operand type: N at 1:6"},
    /* category order: unknown function before reserved word, reserved before undefined name */
    {C, "a.COMMENT = :v AND foo(a) = :v", V, "Invalid ConditionExpression: Invalid function name; function: foo at 1:20"},
    {C, "#nope = :v AND COMMENT = :v", V,
     "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: COMMENT at 1:16"},
    /* value-time checks (values bound at execution) */
    {C, "a = :undefined", V,
     "Invalid ConditionExpression: An expression attribute value used in expression is not defined; attribute value: "
     ":undefined at 1:5"},
    {C, "begins_with(a, :n)", V,
     "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: "
     "begins_with, operand type: N at 1:16"},
    {C, "attribute_type(a, :n)", V,
     "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: "
     "attribute_type, operand type: N at 1:19"},
    {C, "attribute_type(a, :dog)", V,
     "Invalid ConditionExpression: Invalid attribute type name found; type: DOG, valid types: "
     "{B,NULL,SS,BOOL,L,BS,N,NS,S,M} at 1:19"},
    {C, "size(:n) > :n1", V,
     "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: size, "
     "operand type: N at 1:6"},
    {C, "a < :l", V,
     "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: <, "
     "operand type: L at 1:5"},
    {C, ":ss >= a", V,
     "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: >=, "
     "operand type: SS at 1:1"},
    {C, "a BETWEEN :t AND :n", V,
     "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: BETWEEN, "
     "operand type: BOOL at 1:11"},
    {C, "a BETWEEN :n AND :s", V,
     "Invalid ConditionExpression: The BETWEEN operator requires same data type for lower and upper bounds; lower "
     "bound operand: AttributeValue: {N:42}, upper bound operand: AttributeValue: {S:hello} at 1:3"},
    {C, "a BETWEEN :n100 AND :n1", V,
     "Invalid ConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower "
     "bound; lower bound operand: AttributeValue: {N:100}, upper bound operand: AttributeValue: {N:1} at 1:3"},
    {C, "a BETWEEN :b AND :by", V,
     "Invalid ConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower "
     "bound; lower bound operand: AttributeValue: {B:Ynl0ZXM=}, upper bound operand: AttributeValue: {B:Ynk=} at "
     "1:3"},
    {C, "a = :v1 AND b = :undefined", V,
     "Invalid ConditionExpression: An expression attribute value used in expression is not defined; attribute value: "
     ":v1 at 1:5"},
    /* update syntax and semantics */
    {U, "SETT a", V, "Invalid UpdateExpression: Syntax error; token: \"SETT\", near: \"SETT a\" at 1:1"},
    {U, "SET a = :s SET b = :s", V,
     "Invalid UpdateExpression: The \"SET\" section can only be used once in an update expression; at 1:12"},
    {U, "remove a ADD b :n remove c", V,
     "Invalid UpdateExpression: The \"REMOVE\" section can only be used once in an update expression; at 1:19"},
    {U, "SET a = b * c", V, "Invalid UpdateExpression: Syntax error; token: \"*\", near: \"b * c\" at 1:11"},
    {U, "ADD a", V, "Invalid UpdateExpression: Syntax error; token: \"<EOF>\", near: \"a\" at 1:6"},
    {U, "ADD a 1", V, "Invalid UpdateExpression: Syntax error; token: \"1\", near: \"a 1\" at 1:7"},
    {U, "DELETE a b", V, "Invalid UpdateExpression: Syntax error; token: \"b\", near: \"a b\" at 1:10"},
    {U, "SET a = b + c + d", V, "Invalid UpdateExpression: Syntax error; token: \"+\", near: \"c + d\" at 1:15"},
    {U, "SET a = :s REMOVE", V, "Invalid UpdateExpression: Syntax error; token: \"<EOF>\", near: \"REMOVE\" at 1:18"},
    {U, "set a = (b.c).d + e", V, "Invalid UpdateExpression: Syntax error; token: \".\", near: \").d\" at 1:14"},
    {U, "SET a[1] = \"x\"", V, "Invalid UpdateExpression: Syntax error; token: \"\"\", near: \"= \"x\" at 1:12"},
    {U, "SET a = set", V, "Invalid UpdateExpression: Syntax error; token: \"set\", near: \"= set\" at 1:9"},
    {U, "set (a = (b + c))", V, "Invalid UpdateExpression: Syntax error; token: \"(\", near: \"set (a\" at 1:5"},
    {U, "REMOVE a = b", V, "Invalid UpdateExpression: Syntax error; token: \"=\", near: \"a = b\" at 1:10"},
    {U, "SET a = :s,", V, "Invalid UpdateExpression: Syntax error; token: \"<EOF>\", near: \",\" at 1:12"},
    {U, "SET :a = b", V, "Invalid UpdateExpression: Syntax error; token: \":a\", near: \"SET :a =\" at 1:5"},
    {U, "SET a = :s, a = :t", V,
     "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these "
     "paths; path one: [a], path two: [a] at 1:13"},
    {U, "SET m.x = :s REMOVE m", V,
     "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these "
     "paths; path one: [m, x], path two: [m] at 1:21"},
    {U, "SET #n = :s REMOVE n", V,
     "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these "
     "paths; path one: [n], path two: [n] at 1:20"},
    {U, "SET l[0] = :s REMOVE l.x", V,
     "Invalid UpdateExpression: Two document paths conflict with each other; must remove or rewrite one of these "
     "paths; path one: [l, [0]], path two: [l, x] at 1:22"},
    {U, "SET d[1] = a, d.b = a, c[1].a = a, c = a", V,
     "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these "
     "paths; path one: [c, [1], a], path two: [c] at 1:36"},
    {U, "SET a = contains(b, :s)", V,
     "Invalid UpdateExpression: The function is not allowed in an update expression; function: contains at 1:9"},
    {U, "SET a = size(b)", V,
     "Invalid UpdateExpression: The function is not allowed in an update expression; function: size at 1:9"},
    {U, "SET a = foo(b)", V, "Invalid UpdateExpression: Invalid function name; function: foo at 1:9"},
    {U, "SET a = if_not_exists(:s, b)", V,
     "Invalid UpdateExpression: Operator or function requires a document path; operator or function: if_not_exists "
     "at 1:23"},
    {U, "SET a = if_not_exists(if_not_exists(a, b), c)", V,
     "Invalid UpdateExpression: Operator or function requires a document path; operator or function: if_not_exists "
     "at 1:23"},
    {U, "SET a = list_append(b)", V,
     "Invalid UpdateExpression: Incorrect number of operands for operator or function; operator or function: "
     "list_append, number of operands: 1 at 1:9"},
    {U, "SET a = if_not_exists(a)", V,
     "Invalid UpdateExpression: Incorrect number of operands for operator or function; operator or function: "
     "if_not_exists, number of operands: 1 at 1:9"},
    {U, "SET a = list_append(b, c) + d", V,
     "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: +, operand "
     "type: L at 1:9"},
    /* list_append nested in a function is refused (changed deliberately:
     * DynamoDB answers this, issue 11 item 17); if_not_exists nests */
    {U, "SET a = list_append(b, if_not_exists(c, list_append(d, e)))", V,
     "Invalid UpdateExpression: The function is not allowed to be used this way in an expression; function: "
     "list_append at 1:41"},
    {U, "SET a = list_append(if_not_exists(a, c), b)", V, NULL},
    {U, "REMOVE COMMENT", V,
     "Invalid UpdateExpression: Attribute name is a reserved keyword; reserved keyword: COMMENT at 1:8"},
    {U, "SET a = :s set abOrt = :s", V,
     "Invalid UpdateExpression: Attribute name is a reserved keyword; reserved keyword: abOrt at 1:16"},
    {U, "SET #nope = :s", V,
     "Invalid UpdateExpression: An expression attribute name used in the document path is not defined; attribute "
     "name: #nope at 1:5"},
    {U, "SET a.#c = :s", V, NULL}, /* reserved words are fine through names */
    /* update: value-time checks */
    {U, "SET a = :undefined", V,
     "Invalid UpdateExpression: An expression attribute value used in expression is not defined; attribute value: "
     ":undefined at 1:9"},
    {U, "SET a = list_append(:n, b)", V,
     "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: list_append, "
     "operand type: N at 1:21"},
    {U, "SET a = b + :s", V,
     "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: +, operand "
     "type: S at 1:13"},
    {U, "SET a = :ss - b", V,
     "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: -, operand "
     "type: SS at 1:9"},
    {U, "ADD a :s", V,
     "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: STRING, "
     "typeSet: ALLOWED_FOR_ADD_OPERAND at 1:7"},
    {U, "ADD a.b :l", V,
     "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: LIST, "
     "typeSet: ALLOWED_FOR_ADD_OPERAND at 1:9"},
    {U, "DELETE a :n", V,
     "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: DELETE, operand type: "
     "NUMBER, typeSet: ALLOWED_FOR_DELETE_OPERAND at 1:10"},
    {U, "DELETE a :m", V,
     "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: DELETE, operand type: "
     "MAP, typeSet: ALLOWED_FOR_DELETE_OPERAND at 1:10"},
    /* projection */
    {P, "a, COMMENT", V,
     "Invalid ProjectionExpression: Attribute name is a reserved keyword; reserved keyword: COMMENT at 1:4"},
    {P, "a, a.b", V,
     "Invalid ProjectionExpression: Two document paths overlap with each other; must remove or rewrite one of these "
     "paths; path one: [a], path two: [a, b] at 1:4"},
    {P, "l[0], l.x", V,
     "Invalid ProjectionExpression: Two document paths conflict with each other; must remove or rewrite one of these "
     "paths; path one: [l, [0]], path two: [l, x] at 1:7"},
    {P, "a b", V, "Invalid ProjectionExpression: Syntax error; token: \"b\", near: \"a b\" at 1:3"},
    {P, "a,", V, "Invalid ProjectionExpression: Syntax error; token: \"<EOF>\", near: \",\" at 1:3"},
    {P, "#nope", V,
     "Invalid ProjectionExpression: An expression attribute name used in the document path is not defined; attribute "
     "name: #nope at 1:1"},
    {P, "size(a)", V, "Invalid ProjectionExpression: Syntax error; token: \"(\", near: \"size(a\" at 1:5"},
    {P, "and, or, not", V, "Invalid ProjectionExpression: Attribute name is a reserved keyword; reserved keyword: and at 1:1"},
    /* key condition shape */
    {K, "pk = :s OR sk = :s", V, "Invalid operator used in KeyConditionExpression: OR at 1:9"},
    {K, "pk <> :s", V, "Invalid operator used in KeyConditionExpression: <> at 1:4"},
    {K, "pk IN (:s)", V, "Invalid operator used in KeyConditionExpression: IN at 1:4"},
    {K, "NOT pk = :s", V, "Invalid operator used in KeyConditionExpression: NOT at 1:1"},
    {K, "attribute_exists(pk)", V, "Invalid operator used in KeyConditionExpression: attribute_exists at 1:1"},
    {K, "pk = :s AND contains(sk, :s)", V, "Invalid operator used in KeyConditionExpression: contains at 1:13"},
    {K, "attribute_type(pk, :s)", V, "Invalid operator used in KeyConditionExpression: attribute_type at 1:1"},
    {K, ":s BETWEEN pk AND :s", V,
     "Invalid condition in KeyConditionExpression: BETWEEN operator must have the key attribute as its first operand "
     "at 1:4"},
    {K, "begins_with(:s, pk)", V,
     "Invalid condition in KeyConditionExpression: begins_with operator must have the key attribute as its first "
     "operand at 1:1"},
    {K, "size(pk) = :n AND sk = :s", V, "KeyConditionExpressions cannot contain nested operations at 1:1"},
    {K, "pk = :s AND sk BETWEEN :s AND size(x)", V, "KeyConditionExpressions cannot contain nested operations at 1:31"},
    {K, "pk = sk", V, "Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition at 1:6"},
    {K, "pk.x = :s", V, "KeyConditionExpressions cannot have conditions on nested attributes at 1:1"},
    {K, "pk[0] = :s", V, "KeyConditionExpressions cannot have conditions on nested attributes at 1:1"},
    {K, ":s = :n", V, "Invalid condition in KeyConditionExpression: No key attribute specified at 1:4"},
    {K, "pk = :s AND pk = :n", V, "KeyConditionExpressions must only contain one condition per key at 1:13"},
    /* a multi-attribute key has up to four attributes a side: more
     * conditions than eight are refused at prepare (fewer, on a key schema
     * of two attributes, when mapped: test_key_condition_mapping) */
    {K, "a = :s AND b = :s AND c = :s AND d = :s AND e = :s AND f = :s AND g = :s AND h = :s AND i = :s", V,
     "Conditions can be of length 1 or 2 only at 1:85"},
    {K, "pk > 4", V, "Invalid KeyConditionExpression: Syntax error; token: \"4\", near: \"> 4\" at 1:6"},
    {K, "attribute_type(pk, x)", V,
     "Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: "
     "attribute_type, operand type: {NS,SS,L,BS,N,M,B,BOOL,NULL,S} at 1:20"},
    {K, "pk = :s AND begins_with(sk, :n)", V,
     "Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: "
     "begins_with, operand type: N at 1:29"},
    {K, "pk = :s AND sk BETWEEN :n AND :s", V,
     "Invalid KeyConditionExpression: The BETWEEN operator requires same data type for lower and upper bounds; lower "
     "bound operand: AttributeValue: {N:42}, upper bound operand: AttributeValue: {S:hello} at 1:16"},
};

static void test_errors(void **state)
{
    fixture *f = *state;
    for (size_t i = 0; i < sizeof err_cases / sizeof *err_cases; i++) {
        const err_case *c = &err_cases[i];
        ddb_expr *e = NULL;
        ddb_error err = {0};
        int rc = ddb_expr_prepare(c->kind, c->expr, f->names, &e, &err);
        if (rc == DDB_OK) {
            assert_non_null(e);
            rc = ddbi_expr_check_values(e, f->values, &err);
            ddb_expr_free(e);
        } else {
            assert_null(e);
        }
        if (!c->msg) {
            if (rc != DDB_OK)
                fail_msg("%s: unexpected error %s", c->expr, err.message);
            continue;
        }
        expect_error(rc, &err, c->code, c->msg, c->expr);
        assert_int_equal(err.code, c->code);
    }
}

/* Inputs DynamoDB answers with a syntax error (dynalite's test suite). */
static void test_syntax_errors(void **state)
{
    (void)state;
    static const struct {
        ddb_expr_kind kind;
        const char *expr;
    } cases[] = {
        {U, "whatever"},
        {U, "set a"},
        {U, "add a"},
        {U, "delete a"},
        {U, "set a=set"},
        {U, "remove a = b"},
        {U, "add a = b"},
        {U, "delete a = b"},
        {U, "delete a b"},
        {U, "delete a if_not_exist(b)"},
        {U, "add abort b"},
        {U, "add a if_not_exist(b)"},
        {U, "remove a b"},
        {U, "set a b"},
        {U, "set :a = b"},
        {U, "add :a b"},
        {U, "delete :a b"},
        {U, "remove :a"},
        {U, "set a = b / c"},
        {U, "set a = b * c"},
        {U, "set a[1] = \"eight\""},
        {U, "set a[1] = 1"},
        {U, "SET a = if_not_exist(a, 100)"},
        {U, "SET if_not_exist(a, b) = a"},
        {U, "set (a = (b + c))"},
        {U, "set a = (b.c).d + e"},
        {U, "set a = (b.c)[0] + e"},
        {U, "set a = b + c + d"},
        {U, "set a = ((b + c))"},
        {U, "SET a = b,"},
        {U, "SET a[-1] = b"},
        {U, "SET a[99999999999] = b"},
        {K, "things are not gonna be ok"},
        {K, "a > 4"},
        {K, "(size(a))[0] > a"},
        {C, "a = :v AND"},
        {C, "NOT"},
        {C, "a BETWEEN :v"},
        {C, "a IN :v"},
        {C, "a IN (:v"},
        {C, "(a = :v"},
        {C, "a = :v)"},
        {C, "attribute_exists(a"},
        {C, "a.b. = :v"},
        {C, "a[1 = :v"},
        {C, ":v"},
        {C, "a = :v b = :v"},
        {C, "a == :v"},
        {C, "a => :v"},
        {P, "a,,b"},
        {P, ",a"},
        {P, "a.b[1]c"},
        {P, "(a)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        ddb_expr *e = NULL;
        ddb_error err = {0};
        char want[80];
        snprintf(want, sizeof want, "Invalid %s: Syntax error; token: ", ddb_expr_kind_name(cases[i].kind));
        int rc = ddb_expr_prepare(cases[i].kind, cases[i].expr, NULL, &e, &err);
        if (rc != DDB_EVALIDATION || strncmp(err.message, want, strlen(want)) != 0)
            fail_msg("%s: %d %s", cases[i].expr, rc, rc ? err.message : "(ok)");
        assert_null(e);
    }
}

/* ---- Limits ---------------------------------------------------------------------- */

static char *repeat_join(const char *piece, const char *sep, size_t n)
{
    size_t len = n * (strlen(piece) + strlen(sep)) + 1;
    char *s = malloc(len);
    s[0] = 0;
    for (size_t i = 0; i < n; i++) {
        if (i)
            strcat(s, sep);
        strcat(s, piece);
    }
    return s;
}

static void test_limits(void **state)
{
    fixture *f = *state;
    ddb_error err;
    ddb_expr *e;
    /* 4 KB: 4096 bytes pass, 4097 fail */
    char *text = malloc(4098);
    memset(text, ' ', 4097);
    memcpy(text, "a = :s", 6);
    text[4096] = 0;
    e = prepare_ok(DDB_EXPR_CONDITION, text, NULL);
    ddb_expr_free(e);
    text[4096] = ' ';
    text[4097] = 0;
    expect_error(ddb_expr_prepare(DDB_EXPR_CONDITION, text, NULL, &e, &err), &err, DDB_ELIMIT,
                 "Invalid ConditionExpression: Expression size has exceeded the maximum allowed size; expression "
                 "size: 4097",
                 "4097 bytes");
    expect_error(ddb_expr_prepare(DDB_EXPR_UPDATE, text, NULL, &e, &err), &err, DDB_ELIMIT,
                 "Invalid UpdateExpression: Expression size has exceeded the maximum allowed size; expression size: "
                 "4097",
                 "4097 bytes update");
    free(text);

    /* 300 operators pass, 301 fail (150 comparisons + 149 OR; 151 + 150) */
    text = repeat_join("a = :s", " OR ", 150);
    e = prepare_ok(DDB_EXPR_FILTER, text, NULL);
    ddb_expr_free(e);
    free(text);
    text = repeat_join("a = :s", " OR ", 151);
    expect_error(ddb_expr_prepare(DDB_EXPR_FILTER, text, NULL, &e, &err), &err, DDB_ELIMIT,
                 "Invalid FilterExpression: The expression contains too many operators; operator count: 301",
                 "301 operators");
    free(text);
    text = repeat_join("NOT", " ", 200);
    char *t2 = malloc(strlen(text) + 64);
    sprintf(t2, "%s a = :s AND %s", text, "b = :s");
    e = prepare_ok(DDB_EXPR_CONDITION, t2, NULL);
    bool r;
    assert_int_equal(ddbi_expr_eval_condition(e, f->item, f->values, &r, NULL), DDB_OK);
    ddb_expr_free(e);
    free(text);
    free(t2);

    /* IN: 100 operands in all pass, 101 fail */
    text = repeat_join(":s", ",", 99);
    t2 = malloc(strlen(text) + 32);
    sprintf(t2, "a IN (%s)", text);
    e = prepare_ok(DDB_EXPR_CONDITION, t2, NULL);
    ddb_expr_free(e);
    free(text);
    free(t2);
    text = repeat_join(":s", ",", 100);
    t2 = malloc(strlen(text) + 32);
    sprintf(t2, "a IN (%s)", text);
    expect_error(ddb_expr_prepare(DDB_EXPR_CONDITION, t2, NULL, &e, &err), &err, DDB_ELIMIT,
                 "Invalid ConditionExpression: The expression has too many operands for an operator; operator: IN, "
                 "number of operands: 101, maximum: 100 at 1:3",
                 "IN 101");
    free(text);
    free(t2);

    /* document path depth: 32 elements pass, 33 fail */
    text = repeat_join("a", ".", 32);
    e = prepare_ok(DDB_EXPR_PROJECTION, text, NULL);
    ddb_expr_free(e);
    free(text);
    text = repeat_join("a", ".", 33);
    expect_error(ddb_expr_prepare(DDB_EXPR_PROJECTION, text, NULL, &e, &err), &err, DDB_ELIMIT,
                 "Invalid ProjectionExpression: The document path has too many nesting levels; nesting levels: 33 at "
                 "1:1",
                 "depth 33");
    free(text);

    /* nesting: parentheses and NOT deeper than the parser follows */
    text = malloc(2000);
    memset(text, '(', 300);
    strcpy(text + 300, "a = :s");
    memset(text + 306, ')', 300);
    text[606] = 0;
    expect_error(ddb_expr_prepare(DDB_EXPR_CONDITION, text, NULL, &e, &err), &err, DDB_ELIMIT,
                 "Invalid ConditionExpression: The expression has too many nesting levels; maximum: 256 at 1:257",
                 "deep parentheses");
    free(text);
    text = repeat_join("NOT", " ", 300);
    t2 = malloc(strlen(text) + 16);
    sprintf(t2, "%s a = :s", text);
    expect_error(ddb_expr_prepare(DDB_EXPR_CONDITION, t2, NULL, &e, &err), &err, DDB_ELIMIT,
                 "Invalid ConditionExpression: The expression has too many nesting levels; maximum: 256 at 1:1025",
                 "deep NOT");
    free(text);
    free(t2);
    /* 2000 unbalanced parentheses: a clean error, no deep recursion */
    text = malloc(2001);
    memset(text, '(', 2000);
    text[2000] = 0;
    assert_int_equal(ddb_expr_prepare(DDB_EXPR_CONDITION, text, NULL, &e, &err), DDB_ELIMIT);
    free(text);
}

/* ---- Updates ------------------------------------------------------------------------ */

static const char *const OLD = "{\"pk\":{\"S\":\"k\"},\"n\":{\"N\":\"5\"},"
                               "\"l\":{\"L\":[{\"N\":\"0\"},{\"N\":\"1\"},{\"N\":\"2\"}]},"
                               "\"m\":{\"M\":{\"a\":{\"N\":\"1\"}}},\"ss\":{\"SS\":[\"a\",\"b\"]}}";

static const char *const UVALUES =
    "{\":one\":{\"N\":\"1\"},\":two\":{\"N\":\"2\"},\":s\":{\"S\":\"y\"},\":l\":{\"L\":[{\"N\":\"9\"}]},"
    "\":ssc\":{\"SS\":[\"c\"]},\":ssa\":{\"SS\":[\"a\"]},\":ssab\":{\"SS\":[\"b\",\"a\"]},\":nsx\":{\"NS\":[\"3\"]},"
    "\":m\":{\"M\":{\"q\":{\"BOOL\":false}}},\":frac\":{\"N\":\"0.25\"},"
    "\":big\":{\"N\":\"99999999999999999999999999999999999999\"},\":tiny\":{\"N\":\"1E-130\"},"
    "\":huge\":{\"N\":\"9.9999999999999999999999999999999999999E+125\"}}";

typedef struct upd_case {
    const char *expr;
    const char *old; /* NULL: no item */
    const char *want; /* new item, or the error message */
    int code;
} upd_case;

#define OLDJ(rest) "{" rest "}"
#define L3 "\"l\":{\"L\":[{\"N\":\"0\"},{\"N\":\"1\"},{\"N\":\"2\"}]}"
#define M1 "\"m\":{\"M\":{\"a\":{\"N\":\"1\"}}}"
#define N5 "\"n\":{\"N\":\"5\"}"
#define PK "\"pk\":{\"S\":\"k\"}"
#define SSAB "\"ss\":{\"SS\":[\"a\",\"b\"]}"

static const upd_case upd_cases[] = {
    {"SET s = :s", OLD, OLDJ(L3 "," M1 "," N5 "," PK ",\"s\":{\"S\":\"y\"}," SSAB), 0},
    {"SET n = n + :one", OLD, OLDJ(L3 "," M1 ",\"n\":{\"N\":\"6\"}," PK "," SSAB), 0},
    {"SET n = n - :two", OLD, OLDJ(L3 "," M1 ",\"n\":{\"N\":\"3\"}," PK "," SSAB), 0},
    {"SET n = :one - n", OLD, OLDJ(L3 "," M1 ",\"n\":{\"N\":\"-4\"}," PK "," SSAB), 0},
    {"SET n = n + :frac", OLD, OLDJ(L3 "," M1 ",\"n\":{\"N\":\"5.25\"}," PK "," SSAB), 0},
    {"SET n = (n + :one)", OLD, OLDJ(L3 "," M1 ",\"n\":{\"N\":\"6\"}," PK "," SSAB), 0},
    {"SET n = (n) + (:one)", OLD, OLDJ(L3 "," M1 ",\"n\":{\"N\":\"6\"}," PK "," SSAB), 0},
    {"SET x = if_not_exists(x, :one)", OLD, OLDJ(L3 "," M1 "," N5 "," PK "," SSAB ",\"x\":{\"N\":\"1\"}"), 0},
    {"SET n = if_not_exists(n, :one)", OLD, OLDJ(L3 "," M1 "," N5 "," PK "," SSAB), 0},
    {"SET c = if_not_exists(c, :one) + :two", OLD,
     OLDJ("\"c\":{\"N\":\"3\"}," L3 "," M1 "," N5 "," PK "," SSAB), 0},
    {"SET l = list_append(l, :l)", OLD,
     OLDJ("\"l\":{\"L\":[{\"N\":\"0\"},{\"N\":\"1\"},{\"N\":\"2\"},{\"N\":\"9\"}]}," M1 "," N5 "," PK "," SSAB), 0},
    {"SET l = list_append(:l, l)", OLD,
     OLDJ("\"l\":{\"L\":[{\"N\":\"9\"},{\"N\":\"0\"},{\"N\":\"1\"},{\"N\":\"2\"}]}," M1 "," N5 "," PK "," SSAB), 0},
    {"SET x = list_append(if_not_exists(x, :l), :l)", OLD,
     OLDJ(L3 "," M1 "," N5 "," PK "," SSAB ",\"x\":{\"L\":[{\"N\":\"9\"},{\"N\":\"9\"}]}"), 0},
    {"SET l[1] = :s", OLD,
     OLDJ("\"l\":{\"L\":[{\"N\":\"0\"},{\"S\":\"y\"},{\"N\":\"2\"}]}," M1 "," N5 "," PK "," SSAB), 0},
    {"SET l[10] = :s", OLD,
     OLDJ("\"l\":{\"L\":[{\"N\":\"0\"},{\"N\":\"1\"},{\"N\":\"2\"},{\"S\":\"y\"}]}," M1 "," N5 "," PK "," SSAB), 0},
    {"SET l[5] = :s, l[3] = :one", OLD,
     OLDJ("\"l\":{\"L\":[{\"N\":\"0\"},{\"N\":\"1\"},{\"N\":\"2\"},{\"N\":\"1\"},{\"S\":\"y\"}]}," M1 "," N5 "," PK
          "," SSAB),
     0},
    {"SET m.b = :s", OLD, OLDJ(L3 ",\"m\":{\"M\":{\"a\":{\"N\":\"1\"},\"b\":{\"S\":\"y\"}}}," N5 "," PK "," SSAB), 0},
    {"SET m.a = m.a + :one", OLD, OLDJ(L3 ",\"m\":{\"M\":{\"a\":{\"N\":\"2\"}}}," N5 "," PK "," SSAB), 0},
    {"SET m.#c = :s", OLD,
     OLDJ(L3 ",\"m\":{\"M\":{\"COMMENT\":{\"S\":\"y\"},\"a\":{\"N\":\"1\"}}}," N5 "," PK "," SSAB), 0},
    {"SET m = :m", OLD, OLDJ(L3 ",\"m\":{\"M\":{\"q\":{\"BOOL\":false}}}," N5 "," PK "," SSAB), 0},
    {"SET n = :one, x = n", OLD, OLDJ(L3 "," M1 ",\"n\":{\"N\":\"1\"}," PK "," SSAB ",\"x\":{\"N\":\"5\"}"), 0},
    {"SET a = n, n = a", OLD, "The provided expression refers to an attribute that does not exist in the item at 1:16",
     DDB_EVALIDATION},
    {"REMOVE n", OLD, OLDJ(L3 "," M1 "," PK "," SSAB), 0},
    {"REMOVE nope, n", OLD, OLDJ(L3 "," M1 "," PK "," SSAB), 0},
    {"REMOVE l[1]", OLD, OLDJ("\"l\":{\"L\":[{\"N\":\"0\"},{\"N\":\"2\"}]}," M1 "," N5 "," PK "," SSAB), 0},
    {"REMOVE l[0], l[2]", OLD, OLDJ("\"l\":{\"L\":[{\"N\":\"1\"}]}," M1 "," N5 "," PK "," SSAB), 0},
    {"REMOVE l[2], l[0], l[1]", OLD, OLDJ("\"l\":{\"L\":[]}," M1 "," N5 "," PK "," SSAB), 0},
    {"REMOVE l[7]", OLD, OLDJ(L3 "," M1 "," N5 "," PK "," SSAB), 0},
    {"REMOVE m.a", OLD, OLDJ(L3 ",\"m\":{\"M\":{}}," N5 "," PK "," SSAB), 0},
    {"REMOVE m.zz", OLD, OLDJ(L3 "," M1 "," N5 "," PK "," SSAB), 0},
    {"REMOVE l[0] SET l[1] = :s", OLD, OLDJ("\"l\":{\"L\":[{\"S\":\"y\"},{\"N\":\"2\"}]}," M1 "," N5 "," PK "," SSAB),
     0},
    {"REMOVE l[0] SET l[4] = :s", OLD,
     OLDJ("\"l\":{\"L\":[{\"N\":\"1\"},{\"N\":\"2\"},{\"S\":\"y\"}]}," M1 "," N5 "," PK "," SSAB), 0},
    {"ADD n :one", OLD, OLDJ(L3 "," M1 ",\"n\":{\"N\":\"6\"}," PK "," SSAB), 0},
    {"ADD n :frac", OLD, OLDJ(L3 "," M1 ",\"n\":{\"N\":\"5.25\"}," PK "," SSAB), 0},
    {"ADD newn :two", OLD, OLDJ(L3 "," M1 "," N5 ",\"newn\":{\"N\":\"2\"}," PK "," SSAB), 0},
    {"ADD ss :ssc", OLD, OLDJ(L3 "," M1 "," N5 "," PK ",\"ss\":{\"SS\":[\"a\",\"b\",\"c\"]}"), 0},
    {"ADD ss :ssab", OLD, OLDJ(L3 "," M1 "," N5 "," PK "," SSAB), 0},
    {"ADD newss :ssc", OLD, OLDJ(L3 "," M1 "," N5 ",\"newss\":{\"SS\":[\"c\"]}," PK "," SSAB), 0},
    {"ADD m.a :one, m.b :two", OLD,
     OLDJ(L3 ",\"m\":{\"M\":{\"a\":{\"N\":\"2\"},\"b\":{\"N\":\"2\"}}}," N5 "," PK "," SSAB), 0},
    {"ADD l[1] :one, l[7] :ssc", OLD,
     OLDJ("\"l\":{\"L\":[{\"N\":\"0\"},{\"N\":\"2\"},{\"N\":\"2\"},{\"SS\":[\"c\"]}]}," M1 "," N5 "," PK "," SSAB), 0},
    {"DELETE ss :ssa", OLD, OLDJ(L3 "," M1 "," N5 "," PK ",\"ss\":{\"SS\":[\"b\"]}"), 0},
    {"DELETE ss :ssc", OLD, OLDJ(L3 "," M1 "," N5 "," PK "," SSAB), 0},
    {"DELETE ss :ssab", OLD, OLDJ(L3 "," M1 "," N5 "," PK), 0},
    {"DELETE nope :ssa", OLD, OLDJ(L3 "," M1 "," N5 "," PK "," SSAB), 0},
    {"SET n = n + :one, s = :s REMOVE m ADD ss :ssc DELETE nothing :ssa", OLD,
     OLDJ(L3 ",\"n\":{\"N\":\"6\"}," PK ",\"s\":{\"S\":\"y\"},\"ss\":{\"SS\":[\"a\",\"b\",\"c\"]}"), 0},
    {"add n :one set s = :s", OLD, OLDJ(L3 "," M1 ",\"n\":{\"N\":\"6\"}," PK ",\"s\":{\"S\":\"y\"}," SSAB), 0},
    /* sets nested in maps and lists */
    {"ADD m.s :ssc", "{\"m\":{\"M\":{\"s\":{\"SS\":[\"a\"]}}}}",
     "{\"m\":{\"M\":{\"s\":{\"SS\":[\"a\",\"c\"]}}}}", 0},
    {"DELETE m.s :ssab", "{\"m\":{\"M\":{\"s\":{\"SS\":[\"a\"]}}}}", "{\"m\":{\"M\":{}}}", 0},
    {"DELETE l[0] :ssa, l[1] :ssa", "{\"l\":{\"L\":[{\"SS\":[\"a\"]},{\"SS\":[\"a\",\"b\"]},{\"N\":\"1\"}]}}",
     "{\"l\":{\"L\":[{\"SS\":[\"b\"]},{\"N\":\"1\"}]}}", 0},
    {"ADD l[0] :nsx", "{\"l\":{\"L\":[{\"NS\":[\"1\"]}]}}", "{\"l\":{\"L\":[{\"NS\":[\"1\",\"3\"]}]}}", 0},
    /* no old item */
    {"SET a = :one", NULL, "{\"a\":{\"N\":\"1\"}}", 0},
    {"ADD c :one, d :ssc", NULL, "{\"c\":{\"N\":\"1\"},\"d\":{\"SS\":[\"c\"]}}", 0},
    {"REMOVE a DELETE b :ssa", NULL, "{}", 0},
    {"SET a = if_not_exists(a, :s)", NULL, "{\"a\":{\"S\":\"y\"}}", 0},
    {"SET b.a = :one", NULL, "The document path provided in the update expression is invalid for update at 1:5",
     DDB_EVALIDATION},
    {"SET a = b", NULL, "The provided expression refers to an attribute that does not exist in the item at 1:9",
     DDB_EVALIDATION},
    /* runtime errors */
    {"SET x = nope", OLD, "The provided expression refers to an attribute that does not exist in the item at 1:9",
     DDB_EVALIDATION},
    {"SET x = list_append(l, nope)", OLD,
     "The provided expression refers to an attribute that does not exist in the item at 1:24", DDB_EVALIDATION},
    {"SET x = n + ss", OLD, "An operand in the update expression has an incorrect data type at 1:11", DDB_EVALIDATION},
    {"SET x = list_append(n, l)", OLD, "An operand in the update expression has an incorrect data type at 1:9",
     DDB_EVALIDATION},
    {"ADD ss :one", OLD, "An operand in the update expression has an incorrect data type at 1:8", DDB_EVALIDATION},
    {"ADD m :one", OLD, "An operand in the update expression has an incorrect data type at 1:7", DDB_EVALIDATION},
    {"ADD n :ssa", OLD, "An operand in the update expression has an incorrect data type at 1:7", DDB_EVALIDATION},
    {"DELETE n :ssa", OLD, "An operand in the update expression has an incorrect data type at 1:10", DDB_EVALIDATION},
    {"DELETE ss :nsx", OLD, "An operand in the update expression has an incorrect data type at 1:11", DDB_EVALIDATION},
    {"SET m.q.r = :one", OLD, "The document path provided in the update expression is invalid for update at 1:5",
     DDB_EVALIDATION},
    {"SET zz.a = :one", OLD, "The document path provided in the update expression is invalid for update at 1:5",
     DDB_EVALIDATION},
    {"SET l[9].a = :one", OLD, "The document path provided in the update expression is invalid for update at 1:5",
     DDB_EVALIDATION},
    {"SET m[0] = :one", OLD, "The document path provided in the update expression is invalid for update at 1:5",
     DDB_EVALIDATION},
    {"SET l.a = :one", OLD, "The document path provided in the update expression is invalid for update at 1:5",
     DDB_EVALIDATION},
    {"SET n.a = :one", OLD, "The document path provided in the update expression is invalid for update at 1:5",
     DDB_EVALIDATION},
    {"REMOVE zz.a", OLD, "The document path provided in the update expression is invalid for update at 1:8",
     DDB_EVALIDATION},
    {"REMOVE m[0]", OLD, "The document path provided in the update expression is invalid for update at 1:8",
     DDB_EVALIDATION},
    {"ADD zz.a :one", OLD, "The document path provided in the update expression is invalid for update at 1:5",
     DDB_EVALIDATION},
    {"DELETE l.a :ssa", OLD, "The document path provided in the update expression is invalid for update at 1:8",
     DDB_EVALIDATION},
    /* number arithmetic: 38 digits, range */
    {"SET n = :big + :big", OLD,
     "Number overflow. Attempting to store a number with magnitude larger than supported range (the exact result "
     "needs 39 significant digits; max 38)",
     DDB_EVALIDATION},
    {"ADD n :big", OLD,
     "Number overflow. Attempting to store a number with magnitude larger than supported range (the exact result "
     "needs 39 significant digits; max 38)",
     DDB_EVALIDATION},
    {"SET n = :tiny + :one", OLD,
     "Number overflow. Attempting to store a number with magnitude larger than supported range (the exact result "
     "needs 131 significant digits; max 38)",
     DDB_EVALIDATION},
    {"SET n = :huge + :huge", OLD,
     "Number overflow. Attempting to store a number with magnitude larger than supported range (the result is at "
     "least 1E+126; max 9.9999999999999999999999999999999999999E+125)",
     DDB_EVALIDATION},
    {"SET n = :big - :big", OLD, OLDJ(L3 "," M1 ",\"n\":{\"N\":\"0\"}," PK "," SSAB), 0},
};

static void test_updates(void **state)
{
    fixture *f = *state;
    ddb_arena *a = ddb_arena_new();
    ddb_item *values = item_of(a, UVALUES);
    for (size_t i = 0; i < sizeof upd_cases / sizeof *upd_cases; i++) {
        const upd_case *c = &upd_cases[i];
        ddb_expr *e = prepare_ok(DDB_EXPR_UPDATE, c->expr, f->names);
        ddb_error err = {0};
        if (ddbi_expr_check_values(e, values, &err) != DDB_OK)
            fail_msg("%s: %s", c->expr, err.message);
        ddb_item *old = item_of(a, c->old), *out = NULL;
        char *before = item_json(old);
        int rc = ddbi_expr_apply_update(e, old, values, a, &out, &err);
        if (c->code) {
            expect_error(rc, &err, c->code, c->want, c->expr);
            assert_null(out);
        } else {
            if (rc != DDB_OK)
                fail_msg("%s: %s", c->expr, err.message);
            expect_json(out, c->want, c->expr);
        }
        char *after = item_json(old); /* the old item is never modified */
        assert_string_equal(before, after);
        free(before);
        free(after);
        ddb_expr_free(e);
    }
    ddb_arena_free(a);
}

/* The new item shares nothing with the old item or the values. */
static void test_update_copies(void **state)
{
    fixture *f = *state;
    ddb_arena *oa = ddb_arena_new(), *va = ddb_arena_new(), *na = ddb_arena_new();
    ddb_item *old = item_of(oa, OLD), *values = item_of(va, UVALUES), *out;
    ddb_expr *e = prepare_ok(DDB_EXPR_UPDATE, "SET x = l, y = :l, z = m ADD ss :ssc", f->names);
    assert_int_equal(ddbi_expr_apply_update(e, old, values, na, &out, NULL), DDB_OK);
    ddb_arena_free(oa);
    ddb_arena_free(va);
    expect_json(out,
                "{\"l\":{\"L\":[{\"N\":\"0\"},{\"N\":\"1\"},{\"N\":\"2\"}]},\"m\":{\"M\":{\"a\":{\"N\":\"1\"}}},"
                "\"n\":{\"N\":\"5\"},\"pk\":{\"S\":\"k\"},\"ss\":{\"SS\":[\"a\",\"b\",\"c\"]},"
                "\"x\":{\"L\":[{\"N\":\"0\"},{\"N\":\"1\"},{\"N\":\"2\"}]},\"y\":{\"L\":[{\"N\":\"9\"}]},"
                "\"z\":{\"M\":{\"a\":{\"N\":\"1\"}}}}",
                "copies");
    ddb_arena_free(na);
    ddb_expr_free(e);
}

static void test_updated_attributes(void **state)
{
    fixture *f = *state;
    ddb_arena *a = ddb_arena_new();
    ddb_item *values = item_of(a, UVALUES), *old = item_of(a, OLD), *out, *ret;
    ddb_expr *e = prepare_ok(DDB_EXPR_UPDATE, "SET m.b = :s, n = n + :one REMOVE l[0] ADD newn :one", f->names);
    assert_int_equal(ddbi_expr_apply_update(e, old, values, a, &out, NULL), DDB_OK);
    assert_int_equal(ddbi_expr_updated_attributes(e, out, a, &ret, NULL), DDB_OK);
    expect_json(ret,
                "{\"l\":{\"L\":[{\"N\":\"1\"}]},\"m\":{\"M\":{\"b\":{\"S\":\"y\"}}},\"n\":{\"N\":\"6\"},"
                "\"newn\":{\"N\":\"1\"}}",
                "UPDATED_NEW");
    assert_int_equal(ddbi_expr_updated_attributes(e, old, a, &ret, NULL), DDB_OK);
    expect_json(ret, "{\"l\":{\"L\":[{\"N\":\"0\"}]},\"n\":{\"N\":\"5\"}}", "UPDATED_OLD");
    ddb_expr_free(e);
    /* nothing updated that existed: NULL */
    e = prepare_ok(DDB_EXPR_UPDATE, "REMOVE nothing", NULL);
    assert_int_equal(ddbi_expr_updated_attributes(e, old, a, &ret, NULL), DDB_OK);
    assert_null(ret);
    const char *const *names;
    size_t n;
    ddbi_expr_top_level_names(e, &names, &n);
    assert_int_equal(n, 1);
    assert_string_equal(names[0], "nothing");
    ddb_expr_free(e);
    ddb_arena_free(a);
}

static void test_update_keys(void **state)
{
    fixture *f = *state;
    static const char *const keys[] = {"pk", "sk"};
    static const char *const idx[] = {"gk", "gs"};
    static const struct {
        const char *expr, *msg;
    } cases[] = {
        {"SET pk = :s", "One or more parameter values were invalid: Cannot update attribute pk. This attribute is "
                        "part of the key"},
        {"ADD x :one, sk.y :one", "One or more parameter values were invalid: Cannot update attribute sk. This "
                                  "attribute is part of the key"},
        {"REMOVE #p", "One or more parameter values were invalid: Cannot update attribute pk. This attribute is part "
                      "of the key"},
        {"SET gk.x = :s", "Key attributes must be scalars; list random access '[]' and map lookup '.' are not "
                          "allowed: IndexKey: gk"},
        {"SET x = list_append(a, gs[0])", "Key attributes must be scalars; list random access '[]' and map lookup "
                                          "'.' are not allowed: IndexKey: gs"},
        /* a nested path into a table key attribute is refused too (changed
         * deliberately, issue 11 item 18: DynamoDB refuses it everywhere) */
        {"SET y = sk.z", "Key attributes must be scalars; list random access '[]' and map lookup '.' are not "
                         "allowed: Key: sk"},
        {"SET gk = :s, x = pk", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        ddb_expr *e = prepare_ok(DDB_EXPR_UPDATE, cases[i].expr, f->names);
        ddb_error err = {0};
        int rc = ddbi_expr_update_check_keys(e, keys, 2, idx, 2, &err);
        if (cases[i].msg)
            expect_error(rc, &err, DDB_EVALIDATION, cases[i].msg, cases[i].expr);
        else
            assert_int_equal(rc, DDB_OK);
        assert_int_equal(ddbi_expr_update_check_keys(e, NULL, 0, NULL, 0, NULL), DDB_OK);
        ddb_expr_free(e);
    }
}

/* ---- Projection ------------------------------------------------------------------ */

static void test_projection(void **state)
{
    fixture *f = *state;
    static const struct {
        const char *expr, *want;
    } cases[] = {
        {"s", "{\"s\":{\"S\":\"hello\"}}"},
        {"s, n, nope", "{\"n\":{\"N\":\"42\"},\"s\":{\"S\":\"hello\"}}"},
        {"m.x", "{\"m\":{\"M\":{\"x\":{\"N\":\"1\"}}}}"},
        {"m.y.z, m.x", "{\"m\":{\"M\":{\"x\":{\"N\":\"1\"},\"y\":{\"M\":{\"z\":{\"S\":\"deep\"}}}}}}"},
        {"l[2], l[0]", "{\"l\":{\"L\":[{\"N\":\"1\"},{\"L\":[{\"N\":\"3\"}]}]}}"},
        {"l[2][0]", "{\"l\":{\"L\":[{\"L\":[{\"N\":\"3\"}]}]}}"},
        {"l[9], l[1]", "{\"l\":{\"L\":[{\"S\":\"two\"}]}}"},
        {"l[9]", "{}"},
        {"nope", "{}"},
        {"m.#k", "{\"m\":{\"M\":{\"k.dot\":{\"S\":\"d\"}}}}"},
        {"m.nope", "{}"},
        {"m[0]", "{}"},
        {"l.x", "{}"},
        {"s[0]", "{}"},
        {"#n, #p", "{\"n\":{\"N\":\"42\"},\"pk\":{\"S\":\"p1\"}}"},
        {"ss", "{\"ss\":{\"SS\":[\"a\",\"b\"]}}"},
        {"em, el", "{\"el\":{\"L\":[]},\"em\":{\"M\":{}}}"},
        {"m.y, m.x", "{\"m\":{\"M\":{\"x\":{\"N\":\"1\"},\"y\":{\"M\":{\"z\":{\"S\":\"deep\"}}}}}}"},
    };
    ddb_arena *a = ddb_arena_new();
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        ddb_expr *e = prepare_ok(DDB_EXPR_PROJECTION, cases[i].expr, f->names);
        ddb_item *out;
        assert_int_equal(ddbi_expr_project(e, f->item, a, &out, NULL), DDB_OK);
        expect_json(out, cases[i].want, cases[i].expr);
        ddb_expr_free(e);
    }
    ddb_expr *e = prepare_ok(DDB_EXPR_PROJECTION, "m.x, s, m.y, #p", f->names);
    const char *const *names;
    size_t n;
    ddbi_expr_top_level_names(e, &names, &n);
    assert_int_equal(n, 3);
    assert_string_equal(names[0], "m");
    assert_string_equal(names[1], "pk");
    assert_string_equal(names[2], "s");
    ddb_item *out;
    assert_int_equal(ddbi_expr_project(e, NULL, a, &out, NULL), DDB_OK);
    expect_json(out, "{}", "no item");
    ddb_error err;
    assert_int_equal(ddbi_expr_apply_update(e, f->item, NULL, a, &out, &err), DDB_EINVAL);
    ddb_expr_free(e);
    e = prepare_ok(DDB_EXPR_FILTER, "a.b = :v AND c = :v", NULL);
    assert_int_equal(ddbi_expr_project(e, f->item, a, &out, &err), DDB_EINVAL);
    ddbi_expr_top_level_names(e, &names, &n);
    assert_int_equal(n, 2);
    assert_string_equal(names[0], "a");
    assert_string_equal(names[1], "c");
    ddb_expr_free(e);
    ddb_arena_free(a);
}

/* ---- Key conditions ---------------------------------------------------------------- */

static void test_key_conditions(void **state)
{
    fixture *f = *state;
    const ddb_key_schema sn = {.pk = "pk", .pk_type = DDB_TS, .sk = "sk", .sk_type = DDB_TN},
                         ss = {.pk = "pk", .pk_type = DDB_TS, .sk = "sk", .sk_type = DDB_TS},
                         hash = {.pk = "pk", .pk_type = DDB_TS, .sk = NULL, .sk_type = DDB_TNONE};
    static const struct {
        int schema; /* 0 sn, 1 ss, 2 hash */
        const char *expr;
        ddb_key_op op;
        const char *sk1, *sk2; /* values names or NULL */
        const char *msg;
    } cases[] = {
        {0, "pk = :s", DDB_SK_ANY, NULL, NULL, NULL},
        {2, "pk = :s", DDB_SK_ANY, NULL, NULL, NULL},
        {0, "#p = :s", DDB_SK_ANY, NULL, NULL, NULL},
        {0, ":s = pk", DDB_SK_ANY, NULL, NULL, NULL},
        {0, "pk = :s AND sk = :n1", DDB_SK_EQ, ":n1", NULL, NULL},
        {0, "sk < :n1 AND pk = :s", DDB_SK_LT, ":n1", NULL, NULL},
        {0, "pk = :s and sk <= :n", DDB_SK_LE, ":n", NULL, NULL},
        {0, "pk = :s AND sk > :n", DDB_SK_GT, ":n", NULL, NULL},
        {0, "pk = :s AND sk >= :n", DDB_SK_GE, ":n", NULL, NULL},
        {0, "pk = :s AND :n1 < sk", DDB_SK_GT, ":n1", NULL, NULL},
        {0, "pk = :s AND :n1 >= sk", DDB_SK_LE, ":n1", NULL, NULL},
        {0, "pk = :s AND sk BETWEEN :n1 AND :n", DDB_SK_BETWEEN, ":n1", ":n", NULL},
        {0, "(pk = :s) AND (sk = :n1)", DDB_SK_EQ, ":n1", NULL, NULL},
        {1, "pk = :s AND begins_with(sk, :he)", DDB_SK_BEGINS_WITH, ":he", NULL, NULL},
        {0, "sk = :n1", 0, NULL, NULL, "Query condition missed key schema element: pk"},
        {0, "pk = :s AND x = :n1", 0, NULL, NULL, "Query condition missed key schema element: sk"},
        {2, "pk = :s AND sk = :n1", 0, NULL, NULL, "Query key condition not supported"},
        {2, "y = :s AND z = :s", 0, NULL, NULL, "Query key condition not supported"},
        {2, "z = :s", 0, NULL, NULL, "Query condition missed key schema element: pk"},
        {0, "pk = :s AND sk = :n1 AND x = :n", 0, NULL, NULL, "Conditions can be of length 1 or 2 only"},
        {0, "pk > :s", 0, NULL, NULL, "Query key condition not supported"},
        {0, "begins_with(pk, :he)", 0, NULL, NULL, "Query key condition not supported"},
        {0, "pk BETWEEN :a AND :s", 0, NULL, NULL, "Query key condition not supported"},
        {0, ":n > pk", 0, NULL, NULL,
         "One or more parameter values were invalid: Condition parameter type does not match schema type"},
        {0, "pk = :n", 0, NULL, NULL,
         "One or more parameter values were invalid: Condition parameter type does not match schema type"},
        {0, "pk = :s AND sk = :s", 0, NULL, NULL,
         "One or more parameter values were invalid: Condition parameter type does not match schema type"},
        {0, "pk = :s AND begins_with(sk, :he)", 0, NULL, NULL,
         "One or more parameter values were invalid: Condition parameter type does not match schema type"},
        {0, "pk = :s AND sk = :nope", 0, NULL, NULL,
         "Invalid KeyConditionExpression: An expression attribute value used in expression is not defined; attribute "
         "value: :nope at 1:18"},
        {0, "pk = :s AND sk BETWEEN :n AND :n1", 0, NULL, NULL,
         "Invalid KeyConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to "
         "lower bound; lower bound operand: AttributeValue: {N:42}, upper bound operand: AttributeValue: {N:1} at "
         "1:16"},
    };
    const ddb_key_schema *schemas[] = {&sn, &ss, &hash};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        ddb_expr *e = prepare_ok(DDB_EXPR_KEY_CONDITION, cases[i].expr, f->names);
        ddb_key_condition kc;
        ddb_error err = {0};
        int rc = ddbi_expr_key_condition(e, schemas[cases[i].schema], f->values, &kc, &err);
        if (cases[i].msg) {
            expect_error(rc, &err, DDB_EVALIDATION, cases[i].msg, cases[i].expr);
        } else {
            if (rc != DDB_OK)
                fail_msg("%s: %s", cases[i].expr, err.message);
            assert_ptr_equal(kc.pk, ddb_item_get(f->values, ":s"));
            assert_int_equal(kc.sk_op, cases[i].op);
            assert_ptr_equal(kc.sk1, cases[i].sk1 ? ddb_item_get(f->values, cases[i].sk1) : NULL);
            assert_ptr_equal(kc.sk2, cases[i].sk2 ? ddb_item_get(f->values, cases[i].sk2) : NULL);
            /* a key condition also evaluates as a filter */
            bool r;
            assert_int_equal(ddbi_expr_eval_condition(e, f->item, f->values, &r, NULL), DDB_OK);
        }
        ddb_expr_free(e);
    }
}

/* ---- Request-level checks ------------------------------------------------------------ */

static void test_request_checks(void **state)
{
    (void)state;
    ddb_arena *a = ddb_arena_new();
    ddb_item *names = names_of(a, "{\"#a\":\"a\",\"#x\":\"x\"}");
    ddb_item *names1 = names_of(a, "{\"#a\":\"a\"}");
    ddb_item *values = item_of(a, "{\":v\":{\"N\":\"1\"},\":w\":{\"N\":\"2\"},\":u\":{\"S\":\"u\"}}");
    ddb_item *values2 = item_of(a, "{\":v\":{\"N\":\"1\"},\":w\":{\"N\":\"2\"}}");
    ddb_expr *cond = prepare_ok(DDB_EXPR_CONDITION, "#a = :v", names);
    ddb_expr *upd = prepare_ok(DDB_EXPR_UPDATE, "SET b = :w", names);
    ddb_expr *proj = prepare_ok(DDB_EXPR_PROJECTION, "#x", names);
    ddb_error err;
    const ddb_expr *two[] = {cond, upd}, *three[] = {cond, NULL, upd, proj}, *one[] = {cond};

    assert_int_equal(ddbi_expr_check_request(three, 4, names, values2, &err), DDB_OK);
    expect_error(ddbi_expr_check_request(two, 2, names, values2, &err), &err, DDB_EVALIDATION,
                 "Value provided in ExpressionAttributeNames unused in expressions: keys: {#x}", "unused name");
    expect_error(ddbi_expr_check_request(three, 4, names, values, &err), &err, DDB_EVALIDATION,
                 "Value provided in ExpressionAttributeValues unused in expressions: keys: {:u}", "unused value");
    expect_error(ddbi_expr_check_request(one, 1, names1, values, &err), &err, DDB_EVALIDATION,
                 "Value provided in ExpressionAttributeValues unused in expressions: keys: {:u, :w}", "unused values");
    expect_error(ddbi_expr_check_request(one, 1, names1, NULL, &err), &err, DDB_EVALIDATION,
                 "Invalid ConditionExpression: An expression attribute value used in expression is not defined; "
                 "attribute value: :v at 1:6",
                 "undefined value");
    ddb_item *empty = ddb_item_new(a);
    expect_error(ddbi_expr_check_request(one, 1, empty, values2, &err), &err, DDB_EVALIDATION,
                 "ExpressionAttributeNames must not be empty", "empty names");
    expect_error(ddbi_expr_check_request(one, 1, names1, empty, &err), &err, DDB_EVALIDATION,
                 "ExpressionAttributeValues must not be empty", "empty values");
    ddb_item *bad = names_of(a, "{\"a\":\"a\"}");
    expect_error(ddbi_expr_check_request(one, 1, bad, values2, &err), &err, DDB_EVALIDATION,
                 "ExpressionAttributeNames contains invalid key: Syntax error; key: \"a\"", "bad name key");
    bad = item_of(a, "{\":v\":{\"N\":\"1\"},\"b\":{\"S\":\"a\"}}");
    expect_error(ddbi_expr_check_request(one, 1, names1, bad, &err), &err, DDB_EVALIDATION,
                 "ExpressionAttributeValues contains invalid key: Syntax error; key: \"b\"", "bad value key");
    bad = item_of(a, "{\"#a\":{\"N\":\"1\"}}");
    expect_error(ddbi_expr_check_maps(bad, NULL, &err), &err, DDB_EVALIDATION,
                 "ExpressionAttributeNames contains invalid value: the name for key #a must be a string",
                 "bad name value");
    /* DynamoDB's words for an empty name, captured from the service by
     * ExtendDB's dual-target tests/test_expression_attribute_map_validation.py */
    bad = item_of(a, "{\"#a\":{\"S\":\"\"}}");
    expect_error(ddbi_expr_check_maps(bad, NULL, &err), &err, DDB_EVALIDATION,
                 "ExpressionAttributeNames contains invalid value: Empty attribute name for key #a", "empty name value");
    expect_error(ddbi_expr_check_request(NULL, 0, names1, NULL, &err), &err, DDB_EVALIDATION,
                 "ExpressionAttributeNames can only be specified when using expressions", "names without expressions");
    expect_error(ddbi_expr_check_request(NULL, 0, NULL, values2, &err), &err, DDB_EVALIDATION,
                 "ExpressionAttributeValues can only be specified when using expressions",
                 "values without expressions");
    assert_int_equal(ddbi_expr_check_request(NULL, 0, NULL, NULL, &err), DDB_OK);
    ddb_expr_free(cond);
    ddb_expr_free(upd);
    ddb_expr_free(proj);
    ddb_arena_free(a);
}

/* ---- Threads --------------------------------------------------------------------------- */

typedef struct thread_arg {
    const ddb_expr *e;
    const ddb_item *item, *values;
    int ok;
} thread_arg;

static void *worker(void *p)
{
    thread_arg *t = p;
    t->ok = 1;
    for (int i = 0; i < 2000; i++) {
        bool r = false;
        if (ddbi_expr_eval_condition(t->e, t->item, t->values, &r, NULL) != DDB_OK || !r)
            t->ok = 0;
    }
    return NULL;
}

static void test_concurrent_eval(void **state)
{
    fixture *f = *state;
    ddb_expr *e = prepare_ok(DDB_EXPR_FILTER,
                             "size(s) = :n5 AND contains(ss, :a) AND m.y.z = :deep AND n BETWEEN :n1 AND :n100", NULL);
    pthread_t th[4];
    thread_arg args[4];
    for (int i = 0; i < 4; i++) {
        args[i] = (thread_arg){e, f->item, f->values, 0};
        assert_int_equal(pthread_create(&th[i], NULL, worker, &args[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(args[i].ok, 1);
    }
    ddb_expr_free(e);
}

static void test_accessors(void **state)
{
    (void)state;
    assert_string_equal(ddb_expr_kind_name(DDB_EXPR_CONDITION), "ConditionExpression");
    assert_string_equal(ddb_expr_kind_name(DDB_EXPR_FILTER), "FilterExpression");
    assert_string_equal(ddb_expr_kind_name(DDB_EXPR_UPDATE), "UpdateExpression");
    assert_string_equal(ddb_expr_kind_name(DDB_EXPR_PROJECTION), "ProjectionExpression");
    assert_string_equal(ddb_expr_kind_name(DDB_EXPR_KEY_CONDITION), "KeyConditionExpression");
    ddb_expr *e = prepare_ok(DDB_EXPR_UPDATE, "SET a = :v", NULL);
    assert_int_equal(ddb_expr_get_kind(e), DDB_EXPR_UPDATE);
    assert_string_equal(ddb_expr_text(e), "SET a = :v");
    ddb_expr_free(e);
    ddb_expr_free(NULL);
    ddb_error err;
    assert_int_equal(ddb_expr_prepare(DDB_EXPR_UPDATE, NULL, NULL, &e, &err), DDB_EINVAL);
    assert_int_equal(ddb_expr_prepare((ddb_expr_kind)99, "a", NULL, &e, &err), DDB_EINVAL);
    assert_int_equal(ddb_expr_prepare(DDB_EXPR_UPDATE, "SET a = :v", NULL, NULL, &err), DDB_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reserved_words),
        cmocka_unit_test_setup_teardown(test_lexer, setup, teardown),
        cmocka_unit_test_setup_teardown(test_conditions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_attribute_type_all, setup, teardown),
        cmocka_unit_test_setup_teardown(test_condition_without_item, setup, teardown),
        cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
        cmocka_unit_test(test_syntax_errors),
        cmocka_unit_test_setup_teardown(test_limits, setup, teardown),
        cmocka_unit_test_setup_teardown(test_updates, setup, teardown),
        cmocka_unit_test_setup_teardown(test_update_copies, setup, teardown),
        cmocka_unit_test_setup_teardown(test_updated_attributes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_update_keys, setup, teardown),
        cmocka_unit_test_setup_teardown(test_projection, setup, teardown),
        cmocka_unit_test_setup_teardown(test_key_conditions, setup, teardown),
        cmocka_unit_test(test_request_checks),
        cmocka_unit_test_setup_teardown(test_concurrent_eval, setup, teardown),
        cmocka_unit_test(test_accessors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
