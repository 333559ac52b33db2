/* test_template.c — the key template parser (generator/ir/template.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "template.h"

static void parses(const char *text, ddbgen_tmpl *t)
{
    ddbgen_tmpl_error e;
    int rc = ddbgen_tmpl_parse(text, t, &e);
    if (rc != 0)
        fprintf(stderr, "%s: %s at %zu\n", text, e.message, e.offset);
    assert_int_equal(rc, 0);
}

static void literal_and_holes(void **state)
{
    (void)state;
    ddbgen_tmpl t;
    parses("ORG#{org}#{home.country}", &t);
    assert_int_equal(t.count, 4);
    assert_int_equal(t.fields, 2);
    assert_false(t.segs[0].is_field);
    assert_string_equal(t.segs[0].text, "ORG#");
    assert_true(t.segs[1].is_field);
    assert_string_equal(t.segs[1].text, "org");
    assert_int_equal(t.segs[1].offset, 4);
    assert_string_equal(t.segs[2].text, "#");
    assert_string_equal(t.segs[3].text, "home.country");
    assert_int_equal(t.segs[3].offset, 10);
    ddbgen_tmpl_free(&t);
}

static void formats_and_filters(void **state)
{
    (void)state;
    ddbgen_tmpl t;
    parses("pr-{id:06}/{d|year}{d|quarter}{n|lower}{n|upper}", &t);
    assert_int_equal(t.fields, 5);
    assert_int_equal(t.segs[1].pad, 6);
    assert_int_equal(t.segs[3].part, DDBGEN_PART_YEAR);
    assert_int_equal(t.segs[4].part, DDBGEN_PART_QUARTER);
    assert_int_equal(t.segs[5].kase, DDBGEN_CASE_LOWER);
    assert_int_equal(t.segs[6].kase, DDBGEN_CASE_UPPER);
    assert_string_equal(ddbgen_tmpl_part_name(t.segs[3].part), "year");
    ddbgen_tmpl_free(&t);
}

static void escaped_braces(void **state)
{
    (void)state;
    ddbgen_tmpl t;
    parses("{{x}}-{a}-}}", &t);
    assert_int_equal(t.count, 3);
    assert_string_equal(t.segs[0].text, "{x}-");
    assert_string_equal(t.segs[1].text, "a");
    assert_string_equal(t.segs[2].text, "-}");
    ddbgen_tmpl_free(&t);
    parses("", &t);
    assert_int_equal(t.count, 0);
    ddbgen_tmpl_free(&t);
}

static void fails(const char *text, size_t offset, const char *message)
{
    ddbgen_tmpl t;
    ddbgen_tmpl_error e;
    assert_int_equal(ddbgen_tmpl_parse(text, &t, &e), -1);
    ddbgen_tmpl_free(&t);
    if (strcmp(e.message, message) != 0 || e.offset != offset)
        fprintf(stderr, "%s: got '%s' at %zu\n", text, e.message, e.offset);
    assert_string_equal(e.message, message);
    assert_int_equal(e.offset, offset);
}

static void error_hints(void **state)
{
    (void)state;
    ddbgen_tmpl t;
    ddbgen_tmpl_error e;
    assert_int_equal(ddbgen_tmpl_parse("{id:6}", &t, &e), -1);
    ddbgen_tmpl_free(&t);
    assert_string_equal(e.hint, "the only format is ':0N' (zero-pad an integer to width N, e.g. ':06')");
    assert_int_equal(ddbgen_tmpl_parse("{a", &t, &e), -1);
    ddbgen_tmpl_free(&t);
    assert_string_equal(e.hint, "");
}

static void errors(void **state)
{
    (void)state;
    fails("ORG#{org", 4, "unclosed '{'");
    fails("ORG#{org:06", 4, "unclosed '{'");
    fails("a}b", 1, "unmatched '}'");
    fails("x{}", 1, "empty field reference '{}'");
    fails("{1abc}", 1, "expected a field name, found '1'");
    fails("{a.}", 3, "expected a field name, found '}'");
    fails("{id:6}", 3, "unknown format ':6'");
    fails("{id:x}", 3, "unknown format ':x'");
    fails("{id:00}", 3, "zero-pad width must be between 1 and 40");
    fails("{d|yearly}", 2, "unknown filter '|yearly'");
    fails("{d|year x}", 7, "expected '}' after the filter, found ' '");
    fails("{a b}", 2, "unexpected ' ' in field reference");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(literal_and_holes),
        cmocka_unit_test(formats_and_filters),
        cmocka_unit_test(escaped_braces),
        cmocka_unit_test(errors),
        cmocka_unit_test(error_hints),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
