/* PartiQL's parser and lowering (tools/ddb/serve/partiql_parse.c,
 * partiql_lower.c) without a server: each statement's plan — the libddb
 * call, its key and its expression texts with their names and values — and
 * each error message, table-driven with exact results.  The statements
 * follow DynamoDB's developer guide pages "PartiQL select / insert / update /
 * delete statements for DynamoDB", "PartiQL functions" and "PartiQL
 * operators"; the messages are DynamoDB's (as DynamoDB Local spells them).
 * Links the parser sources and libddb's public API. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <ddb/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "partiql.h"

/* The table "t": pk (S) and sk (N); its index "gsi": g (S) and h (S). */
static const pq_keys table_keys = {.table = {.pk = "pk", .pk_type = DDB_TS, .sk = "sk", .sk_type = DDB_TN}, .target = {.pk = "pk", .pk_type = DDB_TS, .sk = "sk", .sk_type = DDB_TN}};
static const pq_keys index_keys = {.table = {.pk = "pk", .pk_type = DDB_TS, .sk = "sk", .sk_type = DDB_TN}, .target = {.pk = "g", .pk_type = DDB_TS, .sk = "h", .sk_type = DDB_TS}};

static const char *const call_names[] = {"?", "QUERY", "SCAN", "GET", "PUT", "UPDATE", "DELETE", "CHECK"};

static void add_item(char *out, size_t cap, const char *label, const ddb_item *it)
{
    if (!it)
        return;
    char *j = NULL;
    assert_int_equal(ddb_json_dump_item(it, &j, NULL), 0);
    size_t n = strlen(out);
    snprintf(out + n, cap - n, " %s=%s", label, j);
    free(j);
}

static void add_text(char *out, size_t cap, const char *label, const char *text)
{
    size_t n = strlen(out);
    if (text)
        snprintf(out + n, cap - n, " %s=[%s]", label, text);
}

/* The plan of a statement as one line; or "error: <message>". */
static const char *plan_of(const char *stmt, const ddb_value *const *params, size_t n_params, bool single_item)
{
    static char out[4096];
    ddb_arena *a = ddb_arena_new();
    assert_non_null(a);
    ddb_error err;
    memset(&err, 0, sizeof err);
    pq_stmt *s = NULL;
    pq_plan p;
    int rc = pq_parse(stmt, strlen(stmt), params, n_params, a, &s, &err);
    if (!rc)
        rc = pq_lower(s, s->index ? &index_keys : &table_keys, single_item, a, &p, &err);
    if (rc) {
        assert_true(rc == DDB_EVALIDATION || rc == DDB_ELIMIT);
        snprintf(out, sizeof out, "error: %s", err.message);
        ddb_arena_free(a);
        return out;
    }
    snprintf(out, sizeof out, "%s%s%s", call_names[p.call], p.backward ? " backward" : "",
             p.index ? " index" : "");
    add_item(out, sizeof out, "key", p.key);
    add_text(out, sizeof out, "kc", p.key_condition);
    add_text(out, sizeof out, "filter", p.filter);
    add_text(out, sizeof out, "proj", p.projection);
    add_text(out, sizeof out, "update", p.update);
    add_text(out, sizeof out, "cond", p.condition);
    if (p.returning)
        add_text(out, sizeof out, "returning", p.returning == DDB_RETURN_ALL_OLD ? "ALL_OLD"
                                                : p.returning == DDB_RETURN_ALL_NEW ? "ALL_NEW"
                                                : p.returning == DDB_RETURN_UPDATED_OLD ? "UPDATED_OLD"
                                                                                        : "UPDATED_NEW");
    add_item(out, sizeof out, "names", p.names);
    add_item(out, sizeof out, "values", p.values);
    ddb_arena_free(a);
    return out;
}

typedef struct tcase {
    const char *stmt, *want;
} tcase;

static void run_cases(const tcase *cases, size_t n, bool single_item)
{
    for (size_t i = 0; i < n; i++) {
        const char *got = plan_of(cases[i].stmt, NULL, 0, single_item);
        if (strcmp(got, cases[i].want)) {
            fprintf(stderr, "statement: %s\n     got: %s\n    want: %s\n", cases[i].stmt, got, cases[i].want);
            fail();
        }
    }
}

/* SELECT: an equality on the partition key is a Query with the sort-key
 * condition as key condition; everything else a Scan (PartiQL select
 * statements: "a full table scan if an equality or IN condition with a
 * partition key is not provided"). */
static void test_select(void **state)
{
    (void)state;
    static const tcase cases[] = {
        {"SELECT * FROM t", "SCAN"},
        {"select * from \"t\" where pk = 'a'",
         "QUERY kc=[#n0 = :v0] names={\"#n0\":{\"S\":\"pk\"}} values={\":v0\":{\"S\":\"a\"}}"},
        {"SELECT a, b.c[1], \"d e\" FROM t WHERE 'a' = pk AND 3 < sk AND x <> 1",
         "QUERY kc=[#n4 = :v0 AND #n5 > :v1] filter=[#n6 <> :v2] proj=[#n0, #n1.#n2[1], #n3] "
         "names={\"#n0\":{\"S\":\"a\"},\"#n1\":{\"S\":\"b\"},\"#n2\":{\"S\":\"c\"},\"#n3\":{\"S\":\"d e\"},"
         "\"#n4\":{\"S\":\"pk\"},\"#n5\":{\"S\":\"sk\"},\"#n6\":{\"S\":\"x\"}} "
         "values={\":v0\":{\"S\":\"a\"},\":v1\":{\"N\":\"3\"},\":v2\":{\"N\":\"1\"}}"},
        {"SELECT * FROM t WHERE pk = 'a' AND sk BETWEEN 1 AND 2 ORDER BY sk DESC",
         "QUERY backward kc=[#n0 = :v0 AND #n1 BETWEEN :v1 AND :v2] names={\"#n0\":{\"S\":\"pk\"},"
         "\"#n1\":{\"S\":\"sk\"}} values={\":v0\":{\"S\":\"a\"},\":v1\":{\"N\":\"1\"},\":v2\":{\"N\":\"2\"}}"},
        {"SELECT * FROM t WHERE pk = 'a' -- a comment\n /* another\n one */ ORDER BY pk DESC, sk DESC",
         "QUERY backward kc=[#n0 = :v0] names={\"#n0\":{\"S\":\"pk\"}} values={\":v0\":{\"S\":\"a\"}}"},
        {"SELECT * FROM t WHERE pk = 'a' ORDER BY pk DESC",
         "QUERY kc=[#n0 = :v0] names={\"#n0\":{\"S\":\"pk\"}} values={\":v0\":{\"S\":\"a\"}}"},
        {"SELECT * FROM t WHERE begins_with(sk, 'x') AND pk = 'a'",
         "QUERY kc=[#n0 = :v0 AND begins_with(#n1, :v1)] names={\"#n0\":{\"S\":\"pk\"},\"#n1\":{\"S\":\"sk\"}} "
         "values={\":v0\":{\"S\":\"a\"},\":v1\":{\"S\":\"x\"}}"},
        /* not a key condition: Scans of the whole WHERE clause */
        {"SELECT * FROM t WHERE pk = 'a' OR pk = 'b'",
         "SCAN filter=[#n0 = :v0 OR #n0 = :v1] names={\"#n0\":{\"S\":\"pk\"}} "
         "values={\":v0\":{\"S\":\"a\"},\":v1\":{\"S\":\"b\"}}"},
        {"SELECT * FROM t WHERE pk > 'a'",
         "SCAN filter=[#n0 > :v0] names={\"#n0\":{\"S\":\"pk\"}} values={\":v0\":{\"S\":\"a\"}}"},
        {"SELECT * FROM t WHERE pk = 'a' AND pk = 'b'",
         "SCAN filter=[#n0 = :v0 AND #n0 = :v1] names={\"#n0\":{\"S\":\"pk\"}} "
         "values={\":v0\":{\"S\":\"a\"},\":v1\":{\"S\":\"b\"}}"},
        {"SELECT * FROM t WHERE pk = 'a' AND NOT sk = 1",
         "SCAN filter=[#n0 = :v0 AND NOT #n1 = :v1] names={\"#n0\":{\"S\":\"pk\"},\"#n1\":{\"S\":\"sk\"}} "
         "values={\":v0\":{\"S\":\"a\"},\":v1\":{\"N\":\"1\"}}"},
        {"SELECT * FROM t WHERE pk = 'a' AND (sk = 1 OR sk = 2)",
         "SCAN filter=[#n0 = :v0 AND (#n1 = :v1 OR #n1 = :v2)] names={\"#n0\":{\"S\":\"pk\"},"
         "\"#n1\":{\"S\":\"sk\"}} values={\":v0\":{\"S\":\"a\"},\":v1\":{\"N\":\"1\"},\":v2\":{\"N\":\"2\"}}"},
        {"SELECT * FROM t WHERE pk IN ['a', 'b']",
         "SCAN filter=[#n0 IN (:v0, :v1)] names={\"#n0\":{\"S\":\"pk\"}} "
         "values={\":v0\":{\"S\":\"a\"},\":v1\":{\"S\":\"b\"}}"},
        /* precedence: parentheses only where the expression needs them */
        {"SELECT * FROM t WHERE a = 1 OR b = 2 AND NOT (c = 3 OR d = 4)",
         "SCAN filter=[#n0 = :v0 OR #n1 = :v1 AND NOT (#n2 = :v2 OR #n3 = :v3)] names={\"#n0\":{\"S\":\"a\"},"
         "\"#n1\":{\"S\":\"b\"},\"#n2\":{\"S\":\"c\"},\"#n3\":{\"S\":\"d\"}} values={\":v0\":{\"N\":\"1\"},"
         "\":v1\":{\"N\":\"2\"},\":v2\":{\"N\":\"3\"},\":v3\":{\"N\":\"4\"}}"},
        {"SELECT * FROM t WHERE ((a = 1 OR b = 2)) AND c != 3",
         "SCAN filter=[(#n0 = :v0 OR #n1 = :v1) AND #n2 <> :v2] names={\"#n0\":{\"S\":\"a\"},"
         "\"#n1\":{\"S\":\"b\"},\"#n2\":{\"S\":\"c\"}} values={\":v0\":{\"N\":\"1\"},\":v1\":{\"N\":\"2\"},"
         "\":v2\":{\"N\":\"3\"}}"},
        /* IS, functions, size, literals of every type */
        {"SELECT * FROM t WHERE a IS MISSING AND b IS NOT MISSING AND c IS NOT NULL AND d IS TUPLE",
         "SCAN filter=[attribute_not_exists(#n0) AND attribute_exists(#n1) AND NOT attribute_type(#n2, :v0) AND "
         "attribute_type(#n3, :v1)] names={\"#n0\":{\"S\":\"a\"},\"#n1\":{\"S\":\"b\"},\"#n2\":{\"S\":\"c\"},"
         "\"#n3\":{\"S\":\"d\"}} values={\":v0\":{\"S\":\"NULL\"},\":v1\":{\"S\":\"M\"}}"},
        {"SELECT * FROM t WHERE CONTAINS(a, 'x') AND size(b) >= 2 AND Attribute_Type(c, 'N')",
         "SCAN filter=[contains(#n0, :v0) AND size(#n1) >= :v1 AND attribute_type(#n2, :v2)] "
         "names={\"#n0\":{\"S\":\"a\"},\"#n1\":{\"S\":\"b\"},\"#n2\":{\"S\":\"c\"}} "
         "values={\":v0\":{\"S\":\"x\"},\":v1\":{\"N\":\"2\"},\":v2\":{\"S\":\"N\"}}"},
        {"SELECT * FROM t WHERE a = {'k': [1, -2.50, 'it''s', TRUE, null, <<'y', 'x'>>, <<2, 1>>]}",
         "SCAN filter=[#n0 = :v0] names={\"#n0\":{\"S\":\"a\"}} values={\":v0\":{\"M\":{\"k\":{\"L\":["
         "{\"N\":\"1\"},{\"N\":\"-2.5\"},{\"S\":\"it's\"},{\"BOOL\":true},{\"NULL\":true},"
         "{\"SS\":[\"x\",\"y\"]},{\"NS\":[\"1\",\"2\"]}]}}}}"},
        {"SELECT * FROM t WHERE a['b c'].\"d\"\"e\"[0] = 1",
         "SCAN filter=[#n0.#n1.#n2[0] = :v0] names={\"#n0\":{\"S\":\"a\"},\"#n1\":{\"S\":\"b c\"},"
         "\"#n2\":{\"S\":\"d\\\"e\"}} values={\":v0\":{\"N\":\"1\"}}"},
        /* an index: its own key schema */
        {"SELECT * FROM \"t\".\"gsi\" WHERE g = 'x' AND h = 'y' ORDER BY h",
         "QUERY index kc=[#n0 = :v0 AND #n1 = :v1] names={\"#n0\":{\"S\":\"g\"},\"#n1\":{\"S\":\"h\"}} "
         "values={\":v0\":{\"S\":\"x\"},\":v1\":{\"S\":\"y\"}}"},
        {"SELECT * FROM \"t\".\"gsi\" WHERE pk = 'x'",
         "SCAN index filter=[#n0 = :v0] names={\"#n0\":{\"S\":\"pk\"}} values={\":v0\":{\"S\":\"x\"}}"},
    };
    run_cases(cases, sizeof cases / sizeof *cases, false);
}

/* INSERT, UPDATE, DELETE: the full key from the WHERE clause, the rest a
 * condition; an UPDATE needs the item, a DELETE of a missing item succeeds
 * (PartiQL insert / update / delete statements). */
static void test_writes(void **state)
{
    (void)state;
    static const tcase cases[] = {
        {"INSERT INTO t VALUE {'pk': 'a', 'sk': 1, 'x': <<'s'>>}",
         "PUT key={\"pk\":{\"S\":\"a\"},\"sk\":{\"N\":\"1\"},\"x\":{\"SS\":[\"s\"]}} "
         "cond=[attribute_not_exists(#n0)] names={\"#n0\":{\"S\":\"pk\"}}"},
        {"UPDATE t SET a = 1 REMOVE b SET c = set_add(c, <<1>>), d = set_delete(d, <<'x'>>) SET e = e - 2 "
         "WHERE pk = 'a' AND sk = 1 AND x > 0 RETURNING MODIFIED NEW *",
         "UPDATE key={\"pk\":{\"S\":\"a\"},\"sk\":{\"N\":\"1\"}} update=[SET #n0 = :v0, #n1 = #n1 - :v1 REMOVE #n2 "
         "ADD #n3 :v2 DELETE #n4 :v3] cond=[attribute_exists(#n6) AND #n5 > :v4] returning=[UPDATED_NEW] "
         "names={\"#n0\":{\"S\":\"a\"},\"#n1\":{\"S\":\"e\"},\"#n2\":{\"S\":\"b\"},\"#n3\":{\"S\":\"c\"},"
         "\"#n4\":{\"S\":\"d\"},\"#n5\":{\"S\":\"x\"},\"#n6\":{\"S\":\"pk\"}} values={\":v0\":{\"N\":\"1\"},"
         "\":v1\":{\"N\":\"2\"},\":v2\":{\"NS\":[\"1\"]},\":v3\":{\"SS\":[\"x\"]},\":v4\":{\"N\":\"0\"}}"},
        {"UPDATE t SET l = list_append(l, [1]) WHERE sk = 2 AND pk = 'b' RETURNING ALL OLD *",
         "UPDATE key={\"pk\":{\"S\":\"b\"},\"sk\":{\"N\":\"2\"}} update=[SET #n0 = list_append(#n0, :v0)] "
         "cond=[attribute_exists(#n1)] returning=[ALL_OLD] names={\"#n0\":{\"S\":\"l\"},\"#n1\":{\"S\":\"pk\"}} "
         "values={\":v0\":{\"L\":[{\"N\":\"1\"}]}}"},
        {"DELETE FROM t WHERE pk = 'a' AND sk = 1 AND x = 1 AND y = 2",
         "DELETE key={\"pk\":{\"S\":\"a\"},\"sk\":{\"N\":\"1\"}} cond=[attribute_not_exists(#n2) OR #n0 = :v0 AND "
         "#n1 = :v1] names={\"#n0\":{\"S\":\"x\"},\"#n1\":{\"S\":\"y\"},\"#n2\":{\"S\":\"pk\"}} "
         "values={\":v0\":{\"N\":\"1\"},\":v1\":{\"N\":\"2\"}}"},
        {"DELETE FROM t WHERE pk = 'a' AND sk = 1",
         "DELETE key={\"pk\":{\"S\":\"a\"},\"sk\":{\"N\":\"1\"}} names={\"#n0\":{\"S\":\"pk\"}}"},
        {"DELETE FROM t WHERE pk = 'a' AND sk = 1 AND (x = 1 OR y IS MISSING) RETURNING ALL OLD *",
         "DELETE key={\"pk\":{\"S\":\"a\"},\"sk\":{\"N\":\"1\"}} cond=[attribute_not_exists(#n2) OR "
         "(#n0 = :v0 OR attribute_not_exists(#n1))] returning=[ALL_OLD] names={\"#n0\":{\"S\":\"x\"},"
         "\"#n1\":{\"S\":\"y\"},\"#n2\":{\"S\":\"pk\"}} values={\":v0\":{\"N\":\"1\"}}"},
    };
    run_cases(cases, sizeof cases / sizeof *cases, false);
}

/* Statements of transactions and batches name one item (PartiQL
 * transactions: "Select statements ... must specify the primary key"). */
static void test_single_item(void **state)
{
    (void)state;
    static const tcase cases[] = {
        {"SELECT a FROM t WHERE pk = 'a' AND sk = 1",
         "GET key={\"pk\":{\"S\":\"a\"},\"sk\":{\"N\":\"1\"}} proj=[#n0] names={\"#n0\":{\"S\":\"a\"}}"},
        {"SELECT * FROM t WHERE pk = 'a' AND sk = 1 AND x = 2",
         "QUERY key={\"pk\":{\"S\":\"a\"},\"sk\":{\"N\":\"1\"}} kc=[#n1 = :v1 AND #n2 = :v2] filter=[#n0 = :v0] "
         "names={\"#n0\":{\"S\":\"x\"},"
         "\"#n1\":{\"S\":\"pk\"},\"#n2\":{\"S\":\"sk\"}} values={\":v0\":{\"N\":\"2\"},\":v1\":{\"S\":\"a\"},"
         "\":v2\":{\"N\":\"1\"}}"},
        {"EXISTS(SELECT * FROM t WHERE pk = 'a' AND sk = 1)",
         "CHECK key={\"pk\":{\"S\":\"a\"},\"sk\":{\"N\":\"1\"}} cond=[attribute_exists(#n0)] "
         "names={\"#n0\":{\"S\":\"pk\"}}"},
        {"EXISTS(SELECT * FROM t WHERE pk = 'a' AND sk = 1 AND n > 2)",
         "CHECK key={\"pk\":{\"S\":\"a\"},\"sk\":{\"N\":\"1\"}} cond=[attribute_exists(#n1) AND #n0 > :v0] "
         "names={\"#n0\":{\"S\":\"n\"},\"#n1\":{\"S\":\"pk\"}} values={\":v0\":{\"N\":\"2\"}}"},
        {"SELECT * FROM t WHERE pk = 'a'",
         "error: Where clause does not contain a mandatory equality on all key attributes"},
        {"SELECT * FROM \"t\".\"gsi\" WHERE g = 'a'", "error: Reads on indices are not supported within transactions."},
    };
    run_cases(cases, sizeof cases / sizeof *cases, true);
}

/* Parameters: `?` takes the request's Parameters in order (API_ExecuteStatement). */
static void test_parameters(void **state)
{
    (void)state;
    ddb_arena *a = ddb_arena_new();
    const ddb_value *p[] = {ddb_v_str(a, "x"), ddb_v_i64(a, 5), ddb_v_b(a, "\x01", 1)};
    assert_string_equal(plan_of("SELECT * FROM t WHERE pk = ? AND sk > ?", p, 2, false),
                        "QUERY kc=[#n0 = :v0 AND #n1 > :v1] names={\"#n0\":{\"S\":\"pk\"},\"#n1\":{\"S\":\"sk\"}} "
                        "values={\":v0\":{\"S\":\"x\"},\":v1\":{\"N\":\"5\"}}");
    const ddb_value *mixed[] = {p[0], p[2]};
    assert_string_equal(plan_of("SELECT * FROM t WHERE b IN [<<?, ?>>]", mixed, 2, false),
                        "error: Unsupported data type in Bag. DynamoDB only supports either numbers or strings in "
                        "bags");
    assert_string_equal(plan_of("SELECT * FROM t WHERE b = <<?>>", p + 2, 1, false),
                        "SCAN filter=[#n0 = :v0] names={\"#n0\":{\"S\":\"b\"}} values={\":v0\":{\"BS\":[\"AQ==\"]}}");
    static const char *const mismatched[] = {"SELECT * FROM t WHERE pk = ?", "SELECT * FROM t WHERE pk = ? AND a = ? "
                                                                             "AND b = ? AND c = ?"};
    assert_string_equal(plan_of(mismatched[0], p, 2, false),
                        "error: Number of parameters in request and statement don't match.");
    assert_string_equal(plan_of(mismatched[1], p, 3, false),
                        "error: Number of parameters in request and statement don't match.");
    ddb_arena_free(a);
}

/* DynamoDB's messages for statements it refuses. */
static void test_errors(void **state)
{
    (void)state;
#define NWF "error: Statement wasn't well formed, can't be processed: "
    static const tcase cases[] = {
        {"", NWF "Expected data manipulation"},
        {"SLECT * FROM t", NWF "Expected data manipulation"},
        {"SELECT * FROM t WHERE", NWF "expected an expression at end of statement"},
        {"SELECT * FROM t x", NWF "Unexpected token after expression, found 'x' at offset 16"},
        {"SELECT * FROM t WHERE a = 'x", NWF "unterminated string starting at offset 26"},
        {"SELECT * FROM t WHERE a = 1 #", NWF "unexpected character '#' at offset 28"},
        {"SELECT * FROM t WHERE a.'b' = 1", NWF "expected identifier for simple path, found ''b'' at offset 24"},
        {"SELECT * FROM t WHERE select = 1", NWF "expected an expression, found 'select' at offset 22"},
        {"SELECT a, * FROM t", "error: Other attributes should not be present in the projection when '*' is used."},
        {"SELECT a AS b FROM t", "error: Aliasing is not supported"},
        {"SELECT a.b, a.b FROM t", "error: Duplicate identifiers in select clause: a"},
        {"SELECT * FROM t WHERE a = MISSING", "error: MISSING must be compared using IS operator"},
        {"SELECT * FROM t WHERE a <> <<>>", "error: Empty bags are not supported"},
        {"SELECT * FROM t WHERE a IS DATE",
         "error: Unsupported data type for IS operator: DATE. Supported data types are [MISSING, NULL, BOOLEAN, "
         "BLOB, STRING, NUMERIC, STRUCT, TUPLE, LIST]"},
        {"SELECT * FROM t WHERE foo(a)", "error: Unrecognized function: foo"},
        {"SELECT * FROM t WHERE foo()", "error: Unrecognized function: foo"}, /* fuzz_partiql: no arguments */
        {"SELECT * FROM t WHERE a + 1 = 2", "error: Unsupported operator in Condition Expression. Operator: +"},
        {"SELECT * FROM t WHERE a BETWEEN 1 AND b - 1",
         "error: Unsupported operator in Condition Expression. Operator: -"},
        {"SELECT * FROM t WHERE contains(list_append(a, [1]), 1)",
         "error: Unsupported function in a condition: list_append"},
        {"SELECT * FROM t WHERE a", "error: WHERE clause must contain an expression that resolves to a boolean"},
        {"SELECT * FROM t WHERE a IN 1",
         "error: IN operator must have a left hand argument of type Variable Reference and right hand argument of "
         "type Seq with at least one member"},
        {"SELECT * FROM t WHERE a[10000000000] = 1", "error: List index is not within the allowable range; index: "
                                                      "[10000000000]"},
        {"SELECT * FROM t WHERE a = 1e999", "error: Number overflow. Attempting to store a number with magnitude "
                                            "larger than supported range: \"1e999\" (max "
                                            "9.9999999999999999999999999999999999999E+125)"},
        {"SELECT * FROM t ORDER BY pk", "error: Must have WHERE clause in the statement when using ORDER BY clause."},
        {"SELECT * FROM t WHERE pk = 'a' ORDER BY pk, sk, x",
         "error: Variable reference x in ORDER BY clause must be part of the primary key"},
        {"SELECT * FROM t /* open", NWF "unterminated comment starting at offset 16"},
        {"SELECT * FROM t WHERE a = 1 ORDER BY sk",
         "error: Must have at least one non-optional hash key condition in WHERE clause when using ORDER BY clause."},
        {"SELECT * FROM t WHERE pk = 'a' ORDER BY x",
         "error: Variable reference x in ORDER BY clause must be part of the primary key"},
        {"INSERT INTO t VALUES ('a')", "error: Unsupported operation: Inserting multiple items in a single statement "
                                       "is not supported, use \"INSERT INTO tableName VALUE item\" instead"},
        {"INSERT INTO t VALUE 'a'", "error: Unsupported format in item expression. Please use struct format {...} "
                                    "to express item values for insert statement."},
        {"INSERT INTO t VALUE {'pk': 'a', 'pk': 'b'}", "error: Duplicate keys in tuple. Key: pk"},
        {"INSERT INTO t VALUE {a: 1}", "error: Tuple keys must be of type String. Actual type: IDENTIFIER under "
                                       "tuple"},
        {"INSERT INTO t VALUE {'pk': 'a'} RETURNING ALL OLD *", "error: RETURNING is not supported in INSERT"},
        {"INSERT INTO t VALUE {'pk': 'a'}", "error: Key attribute should be present in the item: Key sk"},
        {"INSERT INTO t VALUE {'pk': 1, 'sk': 1}",
         "error: Key attribute's data type should match its data type in table's schema: Key pk"},
        {"INSERT INTO t VALUE {'pk': ['a'], 'sk': 1}",
         "error: Key value must be of type S, N, or B. Key name: pk, Key type: L"},
        {"DELETE FROM t WHERE pk = 'a' AND sk = '1'",
         "error: Key attribute's data type should match its data type in table's schema: Key sk"},
        {"UPDATE t SET a = 1", "error: Where clause does not contain a mandatory equality on all key attributes"},
        {"UPDATE t SET a = 1 WHERE pk = 'a'",
         "error: Where clause does not contain a mandatory equality on all key attributes"},
        {"UPDATE t SET a = 1 WHERE pk = 'a' AND sk = 1 AND sk = 2",
         "error: Multiple conditions on same key sk. Only single item Update/Insert/Delete are supported"},
        {"UPDATE t SET a = 1 WHERE pk = 'a' AND sk = 1 RETURNING ALL NEW",
         "error: Expected '*' after ( MODIFIED | ALL ) ( NEW | OLD ) in RETURNING clause"},
        {"UPDATE t SET a = set_add(b, <<1>>) WHERE pk = 'a' AND sk = 1",
         "error: The first argument to SET_ADD must equal the assignment value"},
        {"UPDATE t SET a = set_delete(a, [1]) WHERE pk = 'a' AND sk = 1",
         "error: The second argument to SET_DELETE must be a value with type SET"},
        {"UPDATE t SET a = set_add(a) WHERE pk = 'a' AND sk = 1", "error: SET_ADD must have exactly two arguments"},
        {"UPDATE t WHERE pk = 'a' AND sk = 1", NWF "expected SET or REMOVE, found 'WHERE' at offset 9"},
        {"DELETE FROM t WHERE pk = 'a' AND sk = 1 RETURNING MODIFIED OLD *",
         "error: Invalid returning clause: RETURNING MODIFIED OLD *. Only RETURNING ALL OLD * is allowed in DELETE "
         "statements."},
    };
#undef NWF
    run_cases(cases, sizeof cases / sizeof *cases, false);
}

/* Bounded input: the statement's 8192 bytes (API_ExecuteStatement:
 * Statement) and the parser's nesting depth. */
static void test_limits(void **state)
{
    (void)state;
    static char text[PQ_MAX_STATEMENT + 2];
    memset(text, ' ', sizeof text - 1);
    memcpy(text, "SELECT * FROM t", 15);
    text[PQ_MAX_STATEMENT] = 0;
    assert_string_equal(plan_of(text, NULL, 0, false), "SCAN");
    text[PQ_MAX_STATEMENT] = ' ';
    assert_string_equal(plan_of(text, NULL, 0, false), "error: Statement is 8193 bytes long: at most 8192");
    /* a NUL inside the statement (JSON's \u0000) is refused, not its end */
    ddb_arena *a = ddb_arena_new();
    ddb_error err;
    pq_stmt *s;
    static const char nul[] = "SELECT * FROM t\0 WHERE pk = 'x'";
    assert_int_equal(pq_parse(nul, sizeof nul - 1, NULL, 0, a, &s, &err), DDB_EVALIDATION);
    assert_string_equal(err.message, "Statement wasn't well formed, can't be processed: unexpected character '?' at "
                                     "offset 15");
    static const char nul_name[] = "SELECT * FROM t WHERE \"a\0b\" = 1";
    assert_int_equal(pq_parse(nul_name, sizeof nul_name - 1, NULL, 0, a, &s, &err), DDB_EVALIDATION);
    assert_string_equal(err.message, "Statement wasn't well formed, can't be processed: a name cannot contain a NUL "
                                     "character (offset 22)");
    static const char nul_key[] = "INSERT INTO t VALUE {'pk': 'a', 's\0k': 1}";
    assert_int_equal(pq_parse(nul_key, sizeof nul_key - 1, NULL, 0, a, &s, &err), DDB_EVALIDATION);
    static const char nul_value[] = "INSERT INTO t VALUE {'pk': 'a\0b', 'sk': 1}";
    assert_int_equal(pq_parse(nul_value, sizeof nul_value - 1, NULL, 0, a, &s, &err), DDB_OK);
    assert_int_equal(ddb_map_get(s->item, "pk")->len, 3);
    ddb_arena_free(a);
    char deep[1024];
    for (int depth = 20; depth <= 100; depth += 80) {
        int n = snprintf(deep, sizeof deep, "SELECT * FROM t WHERE a = ");
        for (int i = 0; i < depth; i++)
            n += snprintf(deep + n, sizeof deep - (size_t)n, "[");
        for (int i = 0; i < depth; i++)
            n += snprintf(deep + n, sizeof deep - (size_t)n, "]");
        const char *got = plan_of(deep, NULL, 0, false);
        if (depth < PQ_MAX_DEPTH)
            assert_true(strncmp(got, "SCAN", 4) == 0);
        else
            assert_string_equal(got, "error: Statement wasn't well formed, can't be processed: nesting deeper than "
                                     "64 levels");
        n = snprintf(deep, sizeof deep, "SELECT * FROM t WHERE ");
        for (int i = 0; i < depth; i++)
            n += snprintf(deep + n, sizeof deep - (size_t)n, "NOT (");
        n += snprintf(deep + n, sizeof deep - (size_t)n, "a = 1");
        for (int i = 0; i < depth; i++)
            n += snprintf(deep + n, sizeof deep - (size_t)n, ")");
        got = plan_of(deep, NULL, 0, false);
        if (depth < PQ_MAX_DEPTH / 3)
            assert_true(strncmp(got, "SCAN", 4) == 0);
        else
            assert_string_equal(got, "error: Statement wasn't well formed, can't be processed: nesting deeper than "
                                     "64 levels");
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_select),     cmocka_unit_test(test_writes), cmocka_unit_test(test_single_item),
        cmocka_unit_test(test_parameters), cmocka_unit_test(test_errors), cmocka_unit_test(test_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
