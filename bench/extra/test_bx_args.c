/* test_bx_args.c — bx_parse_args, the command-line reader the bench/extra
 * benchmarks share: each kind of option, flags, and the refusals (unknown
 * option, missing value, malformed or out-of-range number, text longer than
 * its buffer) that make a benchmark print its usage. */
#include "bx.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdint.h>
#include <string.h>

typedef struct vars {
    double secs;
    int threads;
    uint64_t ops;
    char dir[8];
    const char *only;
    bool quick;
} vars;

static bool parse(vars *v, int argc, const char **argv)
{
    const bx_opt opts[] = {
        {"--seconds", BX_OPT_DOUBLE, &v->secs, 0}, {"--threads", BX_OPT_INT, &v->threads, 0},
        {"--ops", BX_OPT_U64, &v->ops, 0},         {"--dir", BX_OPT_TEXT, v->dir, sizeof v->dir},
        {"--only", BX_OPT_ARG, &v->only, 0},       {"--quick", BX_OPT_FLAG, &v->quick, 0},
    };
    return bx_parse_args(argc, (char **)argv, opts, sizeof opts / sizeof *opts);
}

static void reads_every_kind(void **state)
{
    (void)state;
    vars v = {3, 8, 1, "d", NULL, false};
    const char *argv[] = {"b", "--seconds", "0.5", "--threads", "4", "--ops", "18446744073709551615",
                          "--dir", "/tmp/x", "--only", "remote", "--quick"};
    assert_true(parse(&v, 12, argv));
    assert_true(v.secs == 0.5);
    assert_int_equal(v.threads, 4);
    assert_true(v.ops == UINT64_MAX);
    assert_string_equal(v.dir, "/tmp/x");
    assert_string_equal(v.only, "remote");
    assert_true(v.quick);
}

static void nothing_keeps_defaults(void **state)
{
    (void)state;
    vars v = {3, 8, 1, "d", NULL, false};
    const char *argv[] = {"b"};
    assert_true(parse(&v, 1, argv));
    assert_true(v.secs == 3 && v.threads == 8 && v.ops == 1 && !strcmp(v.dir, "d") && !v.only && !v.quick);
}

static void refuses(void **state)
{
    (void)state;
    const char *bad[][3] = {
        {"--nope", NULL, NULL},          /* unknown */
        {"--threads", NULL, NULL},       /* no value */
        {"--seconds", "abc", NULL},      /* not a number */
        {"--seconds", "1s", NULL},       /* trailing text */
        {"--seconds", "inf", NULL},      /* not finite */
        {"--threads", "99999999999", NULL}, /* beyond int */
        {"--ops", "-5", NULL},           /* negative */
        {"--dir", "/tmp/longer", NULL},  /* 11 characters into 8 bytes */
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        vars v = {3, 8, 1, "d", NULL, false};
        const char *argv[] = {"b", bad[i][0], bad[i][1]};
        assert_false(parse(&v, bad[i][1] ? 3 : 2, argv));
        assert_string_equal(v.dir, "d"); /* a refused text leaves the buffer as it was */
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reads_every_kind),
        cmocka_unit_test(nothing_keeps_defaults),
        cmocka_unit_test(refuses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
