/* DynamoDB JSON: round trips of every type, base64, and every error of the
 * strict reader. */
#include <ddb/json.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static ddb_item *every_type(ddb_arena *a)
{
    ddb_item *it = ddb_item_new(a);
    ddb_error err = {0};
    assert_int_equal(ddb_item_set_s(it, "s", "h\xc3\xa9llo \"quoted\"\n"), 0);
    assert_int_equal(ddb_item_set(it, "s0", ddb_v_s(a, "a\0b", 3)), 0);
    assert_int_equal(ddb_item_set_n(it, "n", "-1.50E+3", &err), 0);
    assert_int_equal(ddb_item_set_b(it, "b", "\x00\xff\x10", 3), 0);
    assert_int_equal(ddb_item_set_b(it, "b0", "", 0), 0);
    assert_int_equal(ddb_item_set_bool(it, "t", true), 0);
    assert_int_equal(ddb_item_set(it, "null", ddb_v_null(a)), 0);
    ddb_value *l = ddb_v_list(a), *m = ddb_v_map(a), *inner = ddb_v_list(a);
    ddb_list_append(a, inner, ddb_v_bool(a, false));
    ddb_list_append(a, l, ddb_v_str(a, "x"));
    ddb_list_append(a, l, inner);
    ddb_list_append(a, l, ddb_v_map(a));
    ddb_map_set(a, m, "k", ddb_v_i64(a, 42));
    ddb_map_set(a, m, "", ddb_v_str(a, "empty name inside a map"));
    ddb_map_set(a, m, "list", l);
    assert_int_equal(ddb_item_set(it, "m", m), 0);
    assert_int_equal(ddb_item_set(it, "l", ddb_v_list(a)), 0);
    ddb_value *ss = ddb_v_set(a, DDB_TSS), *ns = ddb_v_set(a, DDB_TNS), *bs = ddb_v_set(a, DDB_TBS);
    ddb_set_add(a, ss, ddb_v_str(a, "b"), &err);
    ddb_set_add(a, ss, ddb_v_str(a, "a"), &err);
    ddb_set_add(a, ns, ddb_v_i64(a, 10), &err);
    ddb_set_add(a, ns, ddb_v_i64(a, -2), &err);
    ddb_set_add(a, bs, ddb_v_b(a, "\x01", 1), &err);
    ddb_set_add(a, bs, ddb_v_b(a, "\x01\x02", 2), &err);
    ddb_item_set(it, "ss", ss);
    ddb_item_set(it, "ns", ns);
    ddb_item_set(it, "bs", bs);
    return it;
}

static void test_round_trip(void **state)
{
    (void)state;
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    ddb_item *it = every_type(a);
    char *text;
    assert_int_equal(ddb_json_dump_item(it, &text, &err), 0);
    /* the wire form of a few values */
    assert_non_null(strstr(text, "\"n\":{\"N\":\"-1500\"}"));
    assert_non_null(strstr(text, "\"b\":{\"B\":\"AP8Q\"}"));
    assert_non_null(strstr(text, "\"b0\":{\"B\":\"\"}"));
    assert_non_null(strstr(text, "\"null\":{\"NULL\":true}"));
    assert_non_null(strstr(text, "\"s0\":{\"S\":\"a\\u0000b\"}"));
    assert_non_null(strstr(text, "\"ns\":{\"NS\":[\"-2\",\"10\"]}"));
    assert_non_null(strstr(text, "\"l\":{\"L\":[]}"));
    ddb_item *back;
    assert_int_equal(ddb_json_parse_item(text, strlen(text), a, &back, &err), 0);
    assert_true(ddb_value_equal(ddb_item_map(it), ddb_item_map(back)));
    /* and once more through JSON values */
    json_t *j;
    assert_int_equal(ddb_json_from_item(back, &j, &err), 0);
    ddb_item *again;
    assert_int_equal(ddb_json_to_item(j, a, &again, &err), 0);
    assert_true(ddb_value_equal(ddb_item_map(it), ddb_item_map(again)));
    json_decref(j);
    free(text);

    /* a single value */
    ddb_value *v = ddb_v_i64(a, 7), *w;
    assert_int_equal(ddb_json_from_value(v, &j, &err), 0);
    assert_int_equal(ddb_json_to_value(j, a, &w, &err), 0);
    assert_true(ddb_value_equal(v, w));
    json_decref(j);

    /* numbers are canonicalised on the way in, sets sorted */
    const char *in = "{\"n\":{\"N\":\"0001.2300e2\"},\"ns\":{\"NS\":[\"3\",\"1e0\",\"2\"]}}";
    assert_int_equal(ddb_json_parse_item(in, strlen(in), a, &back, &err), 0);
    assert_string_equal(ddb_item_get(back, "n")->u.s, "123");
    assert_string_equal(ddb_item_get(back, "ns")->u.set[0]->u.s, "1");
    ddb_arena_free(a);
}

static void test_base64(void **state)
{
    (void)state;
    /* RFC 4648 test vectors */
    const char *plain[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    const char *enc[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
    for (int i = 0; i < 7; i++) {
        char out[16];
        ddb_json_base64_encode((const uint8_t *)plain[i], strlen(plain[i]), out);
        assert_string_equal(out, enc[i]);
        uint8_t dec[16];
        size_t n = 99, bad = 0;
        assert_int_equal(ddb_json_base64_decode(enc[i], strlen(enc[i]), dec, &n, &bad), 0);
        assert_int_equal(n, strlen(plain[i]));
        assert_memory_equal(dec, plain[i], n);
    }
    const struct {
        const char *s;
        size_t bad_at;
    } wrong[] = {{"Zg=", 3},    {"Zg", 2},   {"Z===", 1}, {"Zg=a", 2}, {"Zh==", 1},    {"Zm9=", 2},
                 {"Zm9v\n", 5}, {"Zm 9", 2}, {"Zm9-", 3}, {"=Zm9", 0}, {"Zg==Zg==", 2}};
    for (size_t i = 0; i < sizeof wrong / sizeof *wrong; i++) {
        uint8_t dec[16];
        size_t n = 0, bad = 99;
        if (ddb_json_base64_decode(wrong[i].s, strlen(wrong[i].s), dec, &n, &bad) != DDB_EVALIDATION ||
            bad != wrong[i].bad_at)
            fail_msg("\"%s\": bad_at %zu, want %zu", wrong[i].s, bad, wrong[i].bad_at);
    }
}

static void test_errors(void **state)
{
    (void)state;
    const struct {
        const char *json;
        const char *message;
    } cases[] = {
        {"[]", "an item must be a JSON object of attributes, not an array"},
        {"{\"a\": \"x\"}", "an attribute value must be an object like {\"S\": \"x\"}, not a string (attribute \"a\")"},
        {"{\"a\": {}}", "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes (attribute \"a\")"},
        {"{\"a\": {\"S\": \"x\", \"N\": \"1\"}}",
         "Supplied AttributeValue has more than one datatypes"},
        {"{\"a\": {\"X\": 1}}", "unknown type descriptor \"X\""},
        {"{\"a\": {\"s\": \"x\"}}", "unknown type descriptor \"s\""},
        {"{\"a\": {\"S\": 1}}", "S must hold a string, not a number (attribute \"a\")"},
        {"{\"a\": {\"N\": \"1x\"}}", "The parameter cannot be converted to a numeric value: 1x (N) (attribute \"a\")"},
        {"{\"a\": {\"N\": \"1e126\"}}", "Number overflow"},
        {"{\"a\": {\"N\": \"1e-131\"}}", "Number underflow"},
        {"{\"a\": {\"N\": \"1234567890123456789012345678901234567890\"}}", "38 significant digits"},
        {"{\"a\": {\"N\": \"\"}}", "cannot be converted"},
        {"{\"a\": {\"B\": \"Zg=\"}}", "B is not valid base64: length 3 is not a multiple of 4 (attribute \"a\")"},
        {"{\"a\": {\"B\": \"Z*==\"}}", "B is not valid base64: unexpected '*' at offset 1"},
        {"{\"a\": {\"BOOL\": \"true\"}}", "BOOL must hold true or false, not a string"},
        {"{\"a\": {\"NULL\": false}}", "Null attribute value types must have the value of true"},
        {"{\"a\": {\"L\": {}}}", "L must hold an array, not an object"},
        {"{\"a\": {\"M\": []}}", "M must hold an object, not an array"},
        {"{\"a\": {\"L\": [{\"S\": \"x\"}, {\"Q\": 1}]}}", "(attribute \"a\"[1])"},
        {"{\"a\": {\"M\": {\"b\": {\"L\": [{\"N\": \"x\"}]}}}}", "cannot be converted to a numeric value: x (N) (attribute \"a\".\"b\"[0])"},
        {"{\"a\": {\"SS\": []}}", "One or more parameter values were invalid: An string set  may not be empty (attribute \"a\")"},
        {"{\"a\": {\"BS\": []}}", "One or more parameter values were invalid: Binary sets should not be empty (attribute \"a\")"},
        {"{\"a\": {\"NS\": \"1\"}}", "NS must hold an array, not a string"},
        {"{\"a\": {\"SS\": [\"x\", 1]}}", "SS element 1 is a number, not a string"},
        {"{\"a\": {\"SS\": [\"x\", \"x\"]}}", "Input collection SS contains duplicates (element 1: \"x\")"},
        {"{\"a\": {\"NS\": [\"1\", \"1.0\"]}}", "Input collection NS contains duplicates"},
        {"{\"a\": {\"NS\": [\"1\", \"one\"]}}", "The parameter cannot be converted to a numeric value: one (NS element 1)"},
        {"{\"a\": {\"BS\": [\"AA==\", \"A\"]}}", "BS element 1 is not valid base64"},
        {"{\"a\": {\"BS\": [\"AA==\", \"AA==\"]}}", "contains duplicates"},
        {"{\"\": {\"S\": \"x\"}}", "an attribute name must not be empty (attribute \"\")"},
        {"{\"a\\u0000b\": {\"S\": \"x\"}}", "NUL byte in object key not supported"},
        {"{\"a\": {\"S\": \"x\"}, \"a\": {\"S\": \"y\"}}", "malformed JSON"},
        {"{\"a\": ", "malformed JSON"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        ddb_arena *a = ddb_arena_new();
        ddb_error err = {0};
        ddb_item *it = (ddb_item *)1;
        int rc = ddb_json_parse_item(cases[i].json, strlen(cases[i].json), a, &it, &err);
        if (rc != DDB_EVALIDATION || err.code != DDB_EVALIDATION || it || !strstr(err.message, cases[i].message))
            fail_msg("case %zu (%s): %d \"%s\"", i, cases[i].json, rc, err.message);
        ddb_arena_free(a);
    }
    /* names with a NUL byte (jansson's parser refuses them; built by hand) */
    json_t *o = json_object(), *m = json_object();
    json_object_setn_new(o, "a\0b", 3, json_pack("{s:s}", "S", "x"));
    json_object_setn_new(m, "x\0", 2, json_pack("{s:s}", "S", "x"));
    ddb_arena *na = ddb_arena_new();
    ddb_error nerr = {0};
    ddb_item *nit;
    assert_int_equal(ddb_json_to_item(o, na, &nit, &nerr), DDB_EVALIDATION);
    assert_non_null(strstr(nerr.message, "the attribute name holds a NUL byte"));
    json_object_clear(o);
    json_object_set_new(o, "a", json_pack("{s:o}", "M", m));
    assert_int_equal(ddb_json_to_item(o, na, &nit, &nerr), DDB_EVALIDATION);
    assert_non_null(strstr(nerr.message, "attribute \"a\".\"x"));
    assert_non_null(strstr(nerr.message, "the attribute name holds a NUL byte"));
    json_decref(o);
    ddb_arena_free(na);

    /* nesting: reading takes 64 levels, not 65 (a write holds a stored item
     * to DynamoDB's 32) */
    for (int depth = DDB_JSON_READ_MAX_DEPTH; depth <= DDB_JSON_READ_MAX_DEPTH + 1; depth++) {
        char buf[2048];
        size_t n = 0;
        n += (size_t)snprintf(buf + n, sizeof buf - n, "{\"a\": ");
        for (int i = 1; i < depth; i++)
            n += (size_t)snprintf(buf + n, sizeof buf - n, "{\"L\": [");
        n += (size_t)snprintf(buf + n, sizeof buf - n, "{\"S\": \"x\"}");
        for (int i = 1; i < depth; i++)
            n += (size_t)snprintf(buf + n, sizeof buf - n, "]}");
        snprintf(buf + n, sizeof buf - n, "}");
        ddb_arena *a = ddb_arena_new();
        ddb_error err = {0};
        ddb_item *it;
        int rc = ddb_json_parse_item(buf, strlen(buf), a, &it, &err);
        if (depth == DDB_JSON_READ_MAX_DEPTH)
            assert_int_equal(rc, 0);
        else
            assert_true(rc == DDB_EVALIDATION && strstr(err.message, "nested deeper than 64 levels"));
        ddb_arena_free(a);
    }
}

static void test_write_errors(void **state)
{
    (void)state;
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    json_t *j = NULL;
    ddb_item *it = ddb_item_new(a);
    ddb_item_set(it, "bad", ddb_v_s(a, "\xff\xfe", 2));
    assert_int_equal(ddb_json_from_item(it, &j, &err), DDB_EVALIDATION);
    assert_non_null(strstr(err.message, "S text is not valid UTF-8 (DynamoDB JSON needs UTF-8) (attribute \"bad\")"));
    assert_null(j);
    it = ddb_item_new(a);
    ddb_item_set_s(it, "\xc3", "x");
    assert_int_equal(ddb_json_from_item(it, &j, &err), DDB_EVALIDATION);
    assert_non_null(strstr(err.message, "the attribute name is not valid UTF-8"));
    ddb_value none = {0};
    assert_int_equal(ddb_json_from_value(&none, &j, &err), DDB_EINVAL);
    /* 33 levels cannot be sent either */
    ddb_value *v = ddb_v_str(a, "x");
    for (int i = 0; i < 32; i++) {
        ddb_value *l = ddb_v_list(a);
        ddb_list_append(a, l, v);
        v = l;
    }
    assert_int_equal(ddb_json_from_value(v, &j, &err), DDB_EVALIDATION);
    assert_int_equal(ddb_json_to_value(NULL, a, &v, &err), DDB_EINVAL);
    ddb_arena_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_base64),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_write_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
