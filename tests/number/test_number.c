/* DynamoDB's number type (runtime/src/number.c): parsing, canonical text,
 * ordering (cmp and key bytes), item sizes, exact add/sub, conversions.
 *
 * Behaviour matched, and where it comes from:
 *  - Canonical text is plain decimal, never an exponent ("1e3" -> "1000",
 *    "1e-3" -> "0.001", "1e125" -> "1" + 125 zeros, "-0" -> "0", "+3" -> "3",
 *    ".5" -> "0.5").  These are DynamoDB's observed answers (the table
 *    in ScyllaDB's test/alternator/test_number.py, checked against
 *    DynamoDB; boto3 issue #4636 shows "1.0...E+50" coming back expanded),
 *    and dynalite agrees (it stores Big#toFixed()).
 *  - Accepted syntax: DynamoDB accepts "+3", ".123", "0001.23", "1e+5",
 *    "0e1000" and rejects "NaN", "Infinity", " 1", "1 " (ScyllaDB's
 *    test_invalid_numbers, run against DynamoDB).  dynalite (big.js)
 *    would reject "+3"; we follow DynamoDB.  "5." is accepted as by
 *    dynalite/big.js and Java's BigDecimal (DynamoDB's docs are silent).
 *  - Limits and their order (overflow, underflow, then digits) and the
 *    message texts: dynalite's checkNum and its tests, which record
 *    DynamoDB's ValidationException messages.
 *  - Sizes: dynalite's valSize for N: zero 1 byte, else 1 + ceil(n/2) +
 *    (n and the scientific exponent both even) + (negative), i.e. base-100
 *    digits aligned on the decimal point plus an exponent byte.  The docs
 *    only say "approximately 1 byte per two significant digits + 1".
 *  - Arithmetic that needs more than 38 digits fails with DynamoDB's
 *    "Number overflow..." text (ScyllaDB's test notes DynamoDB answers
 *    1e50 + 1 that way). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/number.h"

#define NOT_NUMBER "The parameter cannot be converted to a numeric value"
#define OVERFLOW "Number overflow. Attempting to store a number with magnitude larger than supported range"
#define UNDERFLOW "Number underflow. Attempting to store a number with magnitude smaller than supported range"
#define DIGITS "Attempting to store more than 38 significant digits in a Number"

/* "1" followed by n zeros, or "0." followed by n zeros and a tail. */
static const char *ones_zeros(char *buf, const char *sign, int n)
{
    size_t o = (size_t)sprintf(buf, "%s1", sign);
    memset(buf + o, '0', (size_t)n);
    buf[o + (size_t)n] = '\0';
    return buf;
}

static const char *tiny(char *buf, const char *sign, int zeros, const char *tail)
{
    size_t o = (size_t)sprintf(buf, "%s0.", sign);
    memset(buf + o, '0', (size_t)zeros);
    strcpy(buf + o + (size_t)zeros, tail);
    return buf;
}

static ddb_dec num(const char *s)
{
    ddb_dec x;
    ddb_error err = {0};
    int rc = ddbi_dec_parse(s, strlen(s), &x, &err);
    if (rc)
        fail_msg("parse(\"%s\"): %s", s, err.message);
    return x;
}

static const char *fmt(const ddb_dec *x, char buf[DDB_NUMBER_TEXT_MAX])
{
    ddbi_dec_format(x, buf);
    return buf;
}

/* ---- Parsing and canonical text ------------------------------------------ */

static const struct {
    const char *in, *out;
} canon_cases[] = {
    /* ScyllaDB's DynamoDB-verified normalisation table. */
    {"1", "1"},
    {"123", "123"},
    {"-5", "-5"},
    {"0", "0"},
    {"10", "10"},
    {"100", "100"},
    {"1000", "1000"},
    {"007", "7"},
    {"001.23", "1.23"},
    {"00", "0"},
    {"+3", "3"},
    {"+0", "0"},
    {"+1.5", "1.5"},
    {"1.0", "1"},
    {"1.00", "1"},
    {"1.10", "1.1"},
    {"1.50", "1.5"},
    {"100.000", "100"},
    {"0.0", "0"},
    {"0.10", "0.1"},
    {"1e3", "1000"},
    {"1E3", "1000"},
    {"1e+3", "1000"},
    {"1E+3", "1000"},
    {"5e1", "50"},
    {"-3e2", "-300"},
    {"1.5e2", "150"},
    {"1.23e4", "12300"},
    {"1e-3", "0.001"},
    {"5e-1", "0.5"},
    {"123e-2", "1.23"},
    {"1.23e-1", "0.123"},
    {"1.0e3", "1000"},
    {"1.00e2", "100"},
    {"1.0e-1", "0.1"},
    {"-0", "0"},
    {"-0.0", "0"},
    {"0e5", "0"},
    {"0.0e3", "0"},
    {"0e-5", "0"},
    {".5", "0.5"},
    {".123", "0.123"},
    {"-.5", "-0.5"},
    {"1e20", "100000000000000000000"},
    {"9.9e10", "99000000000"},
    {"1e-20", "0.00000000000000000001"},
    {"3.14159", "3.14159"},
    {"-273.15", "-273.15"},
    {"0.001", "0.001"},
    /* More of ours. */
    {"5.", "5"},
    {"-5.", "-5"},
    {"0e1000", "0"},
    {"-0e-99999999999999999999999", "0"},
    {"0.00012300", "0.000123"},
    {"-17e5", "-1700000"},
    {"-7.1234", "-7.1234"},
    {"-17.4E37", "-174000000000000000000000000000000000000"},
    {"1000000000000000000000000000000000000000000000", "1000000000000000000000000000000000000000000000"},
    {"000000000000000000000000000000000000000000000000000000001", "1"},
    {"0.0000000000000000000000000000000000000000000000000000000100000000000000000000000000000000000000000000000000",
     "0.00000000000000000000000000000000000000000000000000000001"},
    {"12345678901234567890123456789012345678", "12345678901234567890123456789012345678"},
    {"-1.2345678901234567890123456789012345678", "-1.2345678901234567890123456789012345678"},
    {"3.1415926535897932384626433832795028841", "3.1415926535897932384626433832795028841"},
    {"314159265358979323846.26433832795028841", "314159265358979323846.26433832795028841"},
    {"31415926535897932384626433832795028841e30",
     "31415926535897932384626433832795028841000000000000000000000000000000"},
    {"1.2345678901234567890123456789012345678000000", "1.2345678901234567890123456789012345678"},
    {"1e+0", "1"},
    {"1e-0", "1"},
    {"1e0000000000000000000000000000000000000001", "10"},
    {"12.5e-1", "1.25"},
    {"0.00125e3", "1.25"},
};

static void test_canonical(void **state)
{
    (void)state;
    char buf[DDB_NUMBER_TEXT_MAX];
    for (size_t i = 0; i < sizeof canon_cases / sizeof canon_cases[0]; i++) {
        ddb_error err = {0};
        int rc = ddb_number_canonical(canon_cases[i].in, strlen(canon_cases[i].in), buf, &err);
        if (rc != DDB_OK)
            fail_msg("\"%s\": rc %d: %s", canon_cases[i].in, rc, err.message);
        if (strcmp(buf, canon_cases[i].out) != 0)
            fail_msg("\"%s\": got \"%s\", want \"%s\"", canon_cases[i].in, buf, canon_cases[i].out);
        /* Canonical text is a fixed point. */
        rc = ddb_number_canonical(buf, strlen(buf), buf, &err);
        assert_int_equal(rc, DDB_OK);
        assert_string_equal(buf, canon_cases[i].out);
    }
}

/* Text that is not NUL-terminated where the length ends. */
static void test_counted_text(void **state)
{
    (void)state;
    char buf[DDB_NUMBER_TEXT_MAX];
    assert_int_equal(ddb_number_canonical("12345", 3, buf, NULL), DDB_OK);
    assert_string_equal(buf, "123");
    assert_int_equal(ddb_number_canonical("1e5xyz", 3, buf, NULL), DDB_OK);
    assert_string_equal(buf, "100000");
    assert_int_equal(ddb_number_canonical("1\0", 2, buf, NULL), DDB_EVALIDATION);
    assert_int_equal(ddb_number_canonical(NULL, 0, buf, NULL), DDB_EVALIDATION);
}

static void test_range_edges(void **state)
{
    (void)state;
    char want[200], got[DDB_NUMBER_TEXT_MAX];
    /* Largest: 38 nines then 88 zeros (126 integer digits). */
    char nines[100];
    memset(nines, '9', 38);
    nines[38] = '\0';
    strcpy(want, nines);
    memset(want + 38, '0', 88);
    want[126] = '\0';
    assert_int_equal(ddb_number_canonical("9.9999999999999999999999999999999999999E+125", 44, got, NULL), DDB_OK);
    assert_string_equal(got, want);
    assert_int_equal(ddb_number_canonical("-9.9999999999999999999999999999999999999E+125", 45, got, NULL), DDB_OK);
    assert_int_equal(got[0], '-');
    assert_string_equal(got + 1, want);

    assert_int_equal(ddb_number_canonical("1e125", 5, got, NULL), DDB_OK);
    assert_string_equal(got, ones_zeros(want, "", 125));
    assert_int_equal(ddb_number_canonical("-1E+125", 7, got, NULL), DDB_OK);
    assert_string_equal(got, ones_zeros(want, "-", 125));
    assert_int_equal(ddb_number_canonical("1E+100", 6, got, NULL), DDB_OK);
    assert_string_equal(got, ones_zeros(want, "", 100));

    /* Smallest: 1E-130 = "0." + 129 zeros + "1". */
    assert_int_equal(ddb_number_canonical("1e-130", 6, got, NULL), DDB_OK);
    assert_string_equal(got, tiny(want, "", 129, "1"));
    assert_int_equal(ddb_number_canonical("-1E-130", 7, got, NULL), DDB_OK);
    assert_string_equal(got, tiny(want, "-", 129, "1"));
    assert_int_equal(ddb_number_canonical("9.9e-131", 8, got, NULL), DDB_EVALIDATION);
    assert_int_equal(ddb_number_canonical("10e-131", 7, got, NULL), DDB_OK);
    assert_string_equal(got, tiny(want, "", 129, "1"));

    /* The longest canonical text fits DDB_NUMBER_TEXT_MAX exactly. */
    const char *longest = "-1.2345678901234567890123456789012345678e-130";
    assert_int_equal(ddb_number_canonical(longest, strlen(longest), got, NULL), DDB_OK);
    assert_string_equal(got, tiny(want, "-", 129, "12345678901234567890123456789012345678"));
    assert_int_equal(strlen(got), 170);
    assert_int_equal(DDB_NUMBER_TEXT_MAX, 171);
}

static const struct {
    const char *in;
    const char *prefix; /* DynamoDB's text the message starts with */
    const char *detail; /* and a part naming the problem */
} error_cases[] = {
    {"", NOT_NUMBER, "empty"},
    {"NaN", NOT_NUMBER, ": NaN"},
    {"-NaN", NOT_NUMBER, ": -NaN"},
    {"nan", NOT_NUMBER, ": nan"},
    {"Infinity", NOT_NUMBER, ": Infinity"},
    {"-Infinity", NOT_NUMBER, ": -Infinity"},
    {"inf", NOT_NUMBER, ": inf"},
    {"dog", NOT_NUMBER, ": dog"},
    {"-dog", NOT_NUMBER, ": -dog"},
    {" 1", NOT_NUMBER, ":  1"},
    {"1 ", NOT_NUMBER, ": 1 "},
    {"1\t", NOT_NUMBER, ": 1\\x09"},
    {"1e", NOT_NUMBER, ": 1e"},
    {"1e+", NOT_NUMBER, ": 1e+"},
    {"1e-", NOT_NUMBER, ": 1e-"},
    {"e5", NOT_NUMBER, ": e5"},
    {".", NOT_NUMBER, ": ."},
    {"-", NOT_NUMBER, ": -"},
    {"+", NOT_NUMBER, ": +"},
    {"-.", NOT_NUMBER, ": -."},
    {".e1", NOT_NUMBER, ": .e1"},
    {"1.2.3", NOT_NUMBER, ": 1.2.3"},
    {"++1", NOT_NUMBER, ": ++1"},
    {"--1", NOT_NUMBER, ": --1"},
    {"+-1", NOT_NUMBER, ": +-1"},
    {"1e5.5", NOT_NUMBER, ": 1e5.5"},
    {"1e+-5", NOT_NUMBER, ": 1e+-5"},
    {"0x10", NOT_NUMBER, ": 0x10"},
    {"1_000", NOT_NUMBER, ": 1_000"},
    {"1,5", NOT_NUMBER, ": 1,5"},
    {"1d5", NOT_NUMBER, ": 1d5"},
    {"1e126", OVERFLOW, "\"1e126\" (max 9.9999999999999999999999999999999999999E+125)"},
    {"-1e126", OVERFLOW, "\"-1e126\""},
    {"11e125", OVERFLOW, "\"11e125\""},
    {"10E+125", OVERFLOW, "\"10E+125\""},
    {"1e200", OVERFLOW, "\"1e200\""},
    {"1e99999999999999999999999999", OVERFLOW, "\"1e99999999999999999999999999\""},
    {"1e-131", UNDERFLOW, "\"1e-131\" (min 1E-130)"},
    {"-1e-131", UNDERFLOW, "\"-1e-131\""},
    {"0.9e-130", UNDERFLOW, "\"0.9e-130\""},
    {"1e-99999999999999999999999999", UNDERFLOW, "\"1e-99999999999999999999999999\""},
    {"123456789012345678901234567890123456789", DIGITS, "has 39 significant digits (max 38)"},
    {"-1.23456789012345678901234567890123456789", DIGITS, "has 39 significant digits"},
    {"3.14159265358979323846264338327950288419", DIGITS, "has 39"},
    {"314159265358979323846.264338327950288419", DIGITS, "has 39"},
    {"314159265358979323846264338327950288419e30", DIGITS, "has 39"},
    {"1.00000000000000000000000000000000000001", DIGITS, "has 39"},
    {"100000000000000000000000000000000000001", DIGITS, "has 39"},
    {"9.99999999999999999999999999999999999999e125", DIGITS, "has 39"},
    {"1.234567890123456789012345678901234567890123456789", DIGITS, "has 49"},
    /* Magnitude is checked before digits, as dynalite does. */
    {"1.00000000000000000000000000000000000001e200", OVERFLOW, "\"1.0"},
};

static void test_errors(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof error_cases / sizeof error_cases[0]; i++) {
        ddb_error err = {0};
        ddb_dec x;
        const char *in = error_cases[i].in;
        int rc = ddbi_dec_parse(in, strlen(in), &x, &err);
        if (rc != DDB_EVALIDATION || err.code != DDB_EVALIDATION)
            fail_msg("\"%s\": rc %d, want DDB_EVALIDATION", in, rc);
        if (strncmp(err.message, error_cases[i].prefix, strlen(error_cases[i].prefix)) != 0 ||
            !strstr(err.message, error_cases[i].detail))
            fail_msg("\"%s\": message \"%s\"", in, err.message);
    }
    /* 1 followed by 126 zeros is 1E+126; 125 zeros is fine. */
    char big[200];
    ddb_dec x;
    ddb_error err;
    ones_zeros(big, "", 126);
    assert_int_equal(ddbi_dec_parse(big, strlen(big), &x, &err), DDB_EVALIDATION);
    assert_non_null(strstr(err.message, OVERFLOW ": \"1000000000"));
    assert_non_null(strstr(err.message, "...\" (max"));
    ones_zeros(big, "-", 125);
    assert_int_equal(ddbi_dec_parse(big, strlen(big), &x, &err), DDB_OK);
    /* NULL err is allowed. */
    assert_int_equal(ddbi_dec_parse("x", 1, &x, NULL), DDB_EVALIDATION);
}

static void test_error_message_bounded(void **state)
{
    (void)state;
    char in[5002];
    memset(in, '7', sizeof in);
    in[0] = '0';
    in[1] = '.';
    ddb_error err;
    ddb_dec x;
    assert_int_equal(ddbi_dec_parse(in, sizeof in, &x, &err), DDB_EVALIDATION);
    assert_true(strlen(err.message) < sizeof err.message);
    assert_non_null(strstr(err.message, "has 5000 significant digits"));
    assert_non_null(strstr(err.message, ": \"0.7777"));
    assert_non_null(strstr(err.message, "7777...\" has"));
    /* Control and non-ASCII bytes are escaped (the text is echoed bare, as
     * DynamoDB echoes it: "...numeric value: 1\x0a\xff"). */
    assert_int_equal(ddbi_dec_parse("1\n\xff", 3, &x, &err), DDB_EVALIDATION);
    assert_non_null(strstr(err.message, "numeric value: 1\\x0a\\xff"));
}

/* ---- Ordering ------------------------------------------------------------- */

/* Ascending; no two equal. */
static const char *const ordered[] = {
    "-9.9999999999999999999999999999999999999e125",
    "-1e125",
    "-123456789012345678901234567890123456.78",
    "-1000",
    "-999.99",
    "-100.5",
    "-100",
    "-99",
    "-10.01",
    "-10",
    "-2",
    "-1.5",
    "-1.0000000000000000000000000000000000001",
    "-1",
    "-0.99999999999999999999999999999999999999",
    "-0.5",
    "-0.1",
    "-0.01",
    "-1.1e-129",
    "-1e-129",
    "-1e-130",
    "0",
    "1e-130",
    "1.1e-130",
    "2e-130",
    "1e-129",
    "0.0001",
    "0.01",
    "0.099",
    "0.1",
    "0.1000000000000000000000000000000000001",
    "0.5",
    "1",
    "1.0000000000000000000000000000000000001",
    "1.5",
    "2",
    "9",
    "10",
    "10.5",
    "99",
    "100",
    "101",
    "1000",
    "123456789012345678901234567890123456.78",
    "1e38",
    "1e125",
    "9.9999999999999999999999999999999999999e125",
};
#define NORDERED (sizeof ordered / sizeof ordered[0])

struct keyed {
    ddb_dec x;
    uint8_t key[DDB_DEC_KEY_MAX];
    size_t len;
};

static int key_cmp(const struct keyed *a, const struct keyed *b)
{
    size_t n = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->key, b->key, n);
    if (c)
        return c;
    return a->len < b->len ? -1 : a->len > b->len;
}

static int qsort_by_key(const void *a, const void *b)
{
    return key_cmp(a, b);
}

static int qsort_by_cmp(const void *a, const void *b)
{
    return ddbi_dec_cmp(&((const struct keyed *)a)->x, &((const struct keyed *)b)->x);
}

static void check_sorted(struct keyed *v, const char *how)
{
    char buf[DDB_NUMBER_TEXT_MAX], want[DDB_NUMBER_TEXT_MAX];
    for (size_t i = 0; i < NORDERED; i++) {
        ddb_dec w = num(ordered[i]);
        if (ddbi_dec_cmp(&v[i].x, &w) != 0)
            fail_msg("sorted by %s, [%zu] is %s, want %s", how, i, fmt(&v[i].x, buf), fmt(&w, want));
    }
}

static void test_ordering(void **state)
{
    (void)state;
    struct keyed v[NORDERED];
    /* A deterministic shuffle: stride 7 through the list (7 is coprime
     * with its length). */
    assert_true(NORDERED % 7 != 0);
    for (size_t i = 0; i < NORDERED; i++) {
        v[i].x = num(ordered[(i * 7) % NORDERED]);
        v[i].len = ddbi_dec_key(&v[i].x, v[i].key);
        assert_true(v[i].len >= 1 && v[i].len <= 22);
    }
    qsort(v, NORDERED, sizeof v[0], qsort_by_key);
    check_sorted(v, "key bytes");
    qsort(v, NORDERED, sizeof v[0], qsort_by_cmp);
    check_sorted(v, "ddbi_dec_cmp");

    /* Pairwise: cmp and key agree, and no key is a prefix of another. */
    for (size_t i = 0; i < NORDERED; i++)
        for (size_t j = 0; j < NORDERED; j++) {
            int c = ddbi_dec_cmp(&v[i].x, &v[j].x), k = key_cmp(&v[i], &v[j]);
            assert_int_equal(c < 0 ? -1 : c > 0, i < j ? -1 : i > j);
            assert_int_equal(k < 0 ? -1 : k > 0, i < j ? -1 : i > j);
            if (i != j) {
                size_t n = v[i].len < v[j].len ? v[i].len : v[j].len;
                assert_int_not_equal(memcmp(v[i].key, v[j].key, n), 0);
            }
        }
}

static void test_equal_spellings(void **state)
{
    (void)state;
    static const char *const groups[][7] = {
        {"1", "1.0", "+1", "1e0", "10e-1", "0.1e1", "001.000"},
        {"0", "-0", "+0", "0.000", "0e99", "-0e-99", ".0"},
        {"-1500", "-1.5e3", "-1500.00", "-0.0015e6", "-15E+2", "-150000e-2", "-1.500E3"},
        {"0.001", "1e-3", "1E-3", ".001", "0.0010", "100e-5", "0.00001e2"},
    };
    for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
        ddb_dec first = num(groups[g][0]);
        uint8_t k0[DDB_DEC_KEY_MAX], k[DDB_DEC_KEY_MAX];
        size_t n0 = ddbi_dec_key(&first, k0);
        for (size_t i = 1; i < 7; i++) {
            ddb_dec x = num(groups[g][i]);
            assert_int_equal(ddbi_dec_cmp(&first, &x), 0);
            assert_memory_equal(&first, &x, sizeof x); /* one representation */
            assert_int_equal(ddbi_dec_key(&x, k), n0);
            assert_memory_equal(k, k0, n0);
            assert_int_equal(ddb_number_compare(groups[g][0], groups[g][i]), 0);
        }
    }
}

static void test_key_bytes(void **state)
{
    (void)state;
    uint8_t k[DDB_DEC_KEY_MAX];
    ddb_dec x = num("0");
    assert_int_equal(ddbi_dec_key(&x, k), 1);
    assert_int_equal(k[0], 0x02);
    x = num("12.5"); /* 0.125e2: exp 2 -> 131; nibbles 2 3 6 0 */
    assert_int_equal(ddbi_dec_key(&x, k), 4);
    assert_memory_equal(k, ((uint8_t[]){0x03, 131, 0x23, 0x60}), 4);
    x = num("-12.5");
    assert_int_equal(ddbi_dec_key(&x, k), 4);
    assert_memory_equal(k, ((uint8_t[]){0x01, 255 - 131, 0xdc, 0x9f}), 4);
    x = num("1"); /* 0.1e1: exp 1 -> 130; nibbles 2 0 */
    assert_int_equal(ddbi_dec_key(&x, k), 3);
    assert_memory_equal(k, ((uint8_t[]){0x03, 130, 0x20}), 3);
    x = num("1e-130");
    assert_int_equal(ddbi_dec_key(&x, k), 3);
    assert_memory_equal(k, ((uint8_t[]){0x03, 0, 0x20}), 3);
    x = num("9.9999999999999999999999999999999999999e125"); /* longest */
    assert_int_equal(ddbi_dec_key(&x, k), 22);
    assert_int_equal(k[1], 255);
    assert_int_equal(k[20], 0xaa); /* digits 37 and 38 */
    assert_int_equal(k[21], 0x00); /* terminator and padding */
}

static void test_key_decode(void **state)
{
    (void)state;
    uint8_t k[DDB_DEC_KEY_MAX + 3];
    for (size_t i = 0; i < NORDERED; i++) {
        ddb_dec x = num(ordered[i]), y;
        size_t n = ddbi_dec_key(&x, k), used = 0;
        k[n] = 0x55; /* trailing bytes of a longer key are left alone */
        assert_int_equal(ddbi_dec_from_key(k, n + 1, &y, &used), DDB_OK);
        assert_int_equal(used, n);
        assert_memory_equal(&x, &y, sizeof x);
        assert_int_equal(ddbi_dec_from_key(k, n - 1, &y, NULL), DDB_ECORRUPT); /* truncated */
    }
    ddb_dec y;
    static const struct {
        uint8_t b[4];
        size_t len;
    } bad[] = {
        {{0}, 0},                       /* empty */
        {{0x00}, 1},                    /* unknown lead byte */
        {{0x04, 1, 0x20}, 3},           /* unknown lead byte */
        {{0x03, 130}, 2},               /* truncated */
        {{0x03, 130, 0x22}, 3},         /* no terminator */
        {{0x03, 130, 0x00}, 3},         /* no digits */
        {{0x03, 130, 0x10}, 3},         /* leading zero digit */
        {{0x03, 130, 0x21, 0x00}, 4},   /* trailing zero digit */
        {{0x03, 130, 0xb0}, 3},         /* nibble 11 */
        {{0x03, 130, 0x02}, 3},         /* padding after the terminator */
        {{0x01, 125, 0xdd}, 3},         /* negative, no terminator */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (ddbi_dec_from_key(bad[i].b, bad[i].len, &y, NULL) != DDB_ECORRUPT)
            fail_msg("bad key %zu accepted", i);
    /* 39 digits. */
    uint8_t long_key[24] = {0x03, 130};
    memset(long_key + 2, 0x22, 20);
    long_key[22] = 0x00;
    assert_int_equal(ddbi_dec_from_key(long_key, 23, &y, NULL), DDB_ECORRUPT);
    long_key[21] = 0x00; /* 38 digits then the terminator */
    assert_int_equal(ddbi_dec_from_key(long_key, 22, &y, NULL), DDB_OK);
    assert_int_equal(y.ndig, 38);
}

static void test_number_compare(void **state)
{
    (void)state;
    assert_true(ddb_number_compare("1", "2") < 0);
    assert_true(ddb_number_compare("10", "9") > 0);
    assert_true(ddb_number_compare("-1", "-10") > 0);
    assert_true(ddb_number_compare("-0.5", "0") < 0);
    assert_true(ddb_number_compare("100", "1E+2") == 0);
    assert_true(ddb_number_compare("0.001", "0.0001") > 0);
    /* Invalid text sorts first, bytewise among itself. */
    assert_true(ddb_number_compare("x", "-1e125") < 0);
    assert_true(ddb_number_compare("-1e125", "x") > 0);
    assert_true(ddb_number_compare("x", "y") < 0);
    assert_true(ddb_number_compare("x", "x") == 0);
    for (size_t i = 0; i + 1 < NORDERED; i++)
        assert_true(ddb_number_compare(ordered[i], ordered[i + 1]) < 0);
}

/* ---- Sizes ----------------------------------------------------------------- */

static const struct {
    const char *n;
    size_t size;
} size_cases[] = {
    {"0", 1},
    {"1", 2},
    {"9", 2},
    {"10", 2},
    {"12", 2},
    {"15", 2},
    {"100", 2},
    {"1000000", 2},
    {"1.2", 3},
    {"1.5", 3},
    {"123", 3},
    {"12.3", 3},
    {"1234", 3},
    {"0.5", 2},
    {"0.12", 2},
    {"0.012", 3},
    {"0.0012", 2},
    {"-1", 3},
    {"-15", 3},
    {"-1.2", 4},
    {"-0.012", 4},
    {"1e125", 2},
    {"1e-130", 2},
    {"-1e-130", 3},
    {"12345678901234567890123456789012345678", 20},
    {"1.2345678901234567890123456789012345678", 21},
    {"-1.2345678901234567890123456789012345678", 22},
    {"9.9999999999999999999999999999999999999e125", 20},
    {"1234567890123456789012345678901234567", 20},
    {"3.14159", 5},
    {"1577670000", 4},
    {"1759999711", 6},
};

static void test_sizes(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof size_cases / sizeof size_cases[0]; i++) {
        ddb_dec x = num(size_cases[i].n);
        size_t got = ddbi_dec_size(&x);
        if (got != size_cases[i].size)
            fail_msg("size(%s) = %zu, want %zu", size_cases[i].n, got, size_cases[i].size);
    }
}

/* dynalite's formula, with e the scientific exponent (value = d.ddd x 10^e). */
static size_t dynalite_size(const ddb_dec *x)
{
    if (x->sign == 0)
        return 1;
    int n = x->ndig, e = x->exp - 1;
    return 1 + (size_t)(n + 1) / 2 + ((n % 2 == 0 && e % 2 == 0) ? 1 : 0) + (x->sign < 0 ? 1 : 0);
}

static void test_sizes_match_dynalite(void **state)
{
    (void)state;
    for (int sign = -1; sign <= 1; sign += 2)
        for (int exp = DDB_DEC_EXP_MIN; exp <= DDB_DEC_EXP_MAX; exp++)
            for (int n = 1; n <= 38; n++) {
                ddb_dec x = {.sign = (int8_t)sign, .ndig = (uint8_t)n, .exp = (int16_t)exp};
                for (int i = 0; i < n; i++)
                    x.d[i] = 7;
                if (ddbi_dec_size(&x) != dynalite_size(&x))
                    fail_msg("sign %d exp %d ndig %d: %zu vs dynalite %zu", sign, exp, n, ddbi_dec_size(&x),
                             dynalite_size(&x));
            }
}

/* ---- Arithmetic ------------------------------------------------------------- */

static const struct {
    const char *a;
    char op;
    const char *b;
    const char *want;   /* canonical result, or NULL */
    const char *prefix; /* message prefix when want is NULL */
} arith_cases[] = {
    {"1", '+', "1", "2", NULL},
    {"0.1", '+', "0.2", "0.3", NULL},
    {"9", '+', "1", "10", NULL},
    {"999", '+', "1", "1000", NULL},
    {"0.999", '+', "0.001", "1", NULL},
    {"99999999999999999999999999999999999999", '+', "1", "100000000000000000000000000000000000000", NULL},
    {"9.9999999999999999999999999999999999999", '+', "0.0000000000000000000000000000000000001", "10", NULL},
    {"12345678901234567890123456789012345678", '+', "1", "12345678901234567890123456789012345679", NULL},
    {"10000000000000000000000", '+', "1", "10000000000000000000001", NULL},
    {"10000000000000000000000", '-', "1", "9999999999999999999999", NULL},
    {"1", '-', "1", "0", NULL},
    {"1.5", '-', "1.5", "0", NULL},
    {"-0.1", '+', "0.1", "0", NULL},
    {"1", '+', "-1", "0", NULL},
    {"1", '-', "2", "-1", NULL},
    {"-1", '-', "2", "-3", NULL},
    {"-1", '+', "2", "1", NULL},
    {"-1", '-', "-2", "1", NULL},
    {"2", '-', "-2", "4", NULL},
    {"0.5", '-', "0.25", "0.25", NULL},
    {"100", '-', "0.001", "99.999", NULL},
    {"1000", '-', "0.001", "999.999", NULL},
    {"1.0000000000000000000000000000000000001", '-', "1", "0.0000000000000000000000000000000000001", NULL},
    {"-1.0000000000000000000000000000000000001", '+', "1", "-0.0000000000000000000000000000000000001", NULL},
    {"123456789012345678901234567890123456.78", '-', "123456789012345678901234567890123456.77", "0.01", NULL},
    {"1e125", '+', "1e125", "2" "0000000000" "0000000000" "0000000000" "0000000000" "0000000000" "0000000000"
                            "0000000000" "0000000000" "0000000000" "0000000000" "0000000000" "0000000000" "00000",
     NULL},
    {"1e-130", '+', "1e-130", "", NULL}, /* "" = 2E-130, built below */
    {"0", '+', "5", "5", NULL},
    {"5", '+', "0", "5", NULL},
    {"0", '-', "5", "-5", NULL},
    {"-5", '-', "0", "-5", NULL},
    {"0", '+', "0", "0", NULL},
    {"0", '-', "0", "0", NULL},
    {"1e50", '+', "1", NULL, OVERFLOW},
    {"1e50", '-', "1", NULL, OVERFLOW},
    {"12345678901234567890123456789012345678", '+', "0.1", NULL, OVERFLOW},
    {"1", '+', "1e-38", NULL, OVERFLOW},
    {"9e125", '+', "9e125", NULL, OVERFLOW},
    {"9e125", '-', "-9e125", NULL, OVERFLOW},
    {"-9e125", '-', "9e125", NULL, OVERFLOW},
    {"9.9999999999999999999999999999999999999e125", '+', "1e88", NULL, OVERFLOW},
    {"1.0000000000000000000000000000000000001e-130", '-', "1e-130", NULL, UNDERFLOW},
    {"-1e-130", '+', "1.0000000000000000000000000000000000001e-130", NULL, UNDERFLOW},
};

static void test_arithmetic(void **state)
{
    (void)state;
    char buf[DDB_NUMBER_TEXT_MAX];
    for (size_t i = 0; i < sizeof arith_cases / sizeof arith_cases[0]; i++) {
        ddb_dec a = num(arith_cases[i].a), b = num(arith_cases[i].b), r = num("42");
        ddb_error err = {0};
        int rc = arith_cases[i].op == '+' ? ddbi_dec_add(&a, &b, &r, &err) : ddbi_dec_sub(&a, &b, &r, &err);
        char tmp[DDB_NUMBER_TEXT_MAX];
        const char *want = arith_cases[i].want;
        if (want && !*want)
            want = tiny(tmp, "", 129, "2");
        if (want) {
            if (rc != DDB_OK)
                fail_msg("%s %c %s: %s", arith_cases[i].a, arith_cases[i].op, arith_cases[i].b, err.message);
            if (strcmp(fmt(&r, buf), want) != 0)
                fail_msg("%s %c %s = %s, want %s", arith_cases[i].a, arith_cases[i].op, arith_cases[i].b, buf, want);
        } else {
            if (rc != DDB_EVALIDATION ||
                strncmp(err.message, arith_cases[i].prefix, strlen(arith_cases[i].prefix)) != 0)
                fail_msg("%s %c %s: rc %d \"%s\"", arith_cases[i].a, arith_cases[i].op, arith_cases[i].b, rc,
                         err.message);
            assert_string_equal(fmt(&r, buf), "42"); /* untouched */
        }
    }
}

static void test_arithmetic_messages(void **state)
{
    (void)state;
    ddb_dec a = num("1e50"), b = num("1"), r;
    ddb_error err;
    assert_int_equal(ddbi_dec_add(&a, &b, &r, &err), DDB_EVALIDATION);
    assert_non_null(strstr(err.message, "needs 51 significant digits; max 38"));
    a = num("9e125");
    assert_int_equal(ddbi_dec_add(&a, &a, &r, &err), DDB_EVALIDATION);
    assert_non_null(strstr(err.message, "at least 1E+126"));
    a = num("1.0000000000000000000000000000000000001e-130");
    b = num("1e-130");
    assert_int_equal(ddbi_dec_sub(&a, &b, &r, &err), DDB_EVALIDATION);
    assert_non_null(strstr(err.message, "below 1E-166"));
    /* An operand that is not a valid ddb_dec. */
    ddb_dec bad = {.sign = 1, .ndig = 1, .exp = 500, .d = {1}};
    assert_int_equal(ddbi_dec_add(&bad, &b, &r, &err), DDB_EINVAL);
}

static void test_arithmetic_aliasing(void **state)
{
    (void)state;
    char buf[DDB_NUMBER_TEXT_MAX];
    ddb_dec a = num("999.5"), b = num("0.5");
    assert_int_equal(ddbi_dec_add(&a, &b, &a, NULL), DDB_OK);
    assert_string_equal(fmt(&a, buf), "1000");
    assert_int_equal(ddbi_dec_sub(&a, &a, &a, NULL), DDB_OK);
    assert_string_equal(fmt(&a, buf), "0");
    a = num("7");
    assert_int_equal(ddbi_dec_sub(&a, &b, &b, NULL), DDB_OK);
    assert_string_equal(fmt(&b, buf), "6.5");
    /* A running counter: 1000 increments of 0.001. */
    ddb_dec sum = num("0"), step = num("0.001");
    for (int i = 0; i < 1000; i++)
        assert_int_equal(ddbi_dec_add(&sum, &step, &sum, NULL), DDB_OK);
    assert_string_equal(fmt(&sum, buf), "1");
}

/* ---- Conversions ---------------------------------------------------------------- */

static void test_i64(void **state)
{
    (void)state;
    static const struct {
        int64_t v;
        const char *text;
    } cases[] = {
        {0, "0"},
        {1, "1"},
        {-1, "-1"},
        {10, "10"},
        {-1000, "-1000"},
        {1234567890, "1234567890"},
        {INT64_MAX, "9223372036854775807"},
        {INT64_MAX - 1, "9223372036854775806"},
        {INT64_MIN, "-9223372036854775808"},
        {INT64_MIN + 1, "-9223372036854775807"},
        {1000000000000000000, "1000000000000000000"},
        {-1000000000000000000, "-1000000000000000000"},
    };
    char buf[DDB_NUMBER_TEXT_MAX];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ddb_dec x, p;
        int64_t back = 42;
        ddbi_dec_from_i64(cases[i].v, &x);
        assert_string_equal(fmt(&x, buf), cases[i].text);
        p = num(cases[i].text);
        assert_memory_equal(&x, &p, sizeof x);
        assert_int_equal(ddbi_dec_to_i64(&x, &back), DDB_OK);
        assert_true(back == cases[i].v);
    }
    static const char *const bad[] = {
        "9223372036854775808", "-9223372036854775809", "1e19", "-1e19", "1e20", "1e125",
        "1.5", "-0.5", "1e-5", "9223372036854775807.5", "18446744073709551616",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ddb_dec x = num(bad[i]);
        int64_t back = 42;
        if (ddbi_dec_to_i64(&x, &back) != DDB_EVALIDATION)
            fail_msg("to_i64(%s) accepted", bad[i]);
        assert_true(back == 42);
    }
    ddb_dec x = num("1e18");
    int64_t v;
    assert_int_equal(ddbi_dec_to_i64(&x, &v), DDB_OK);
    assert_true(v == 1000000000000000000);
    x = num("-9.223372036854775808e18");
    assert_int_equal(ddbi_dec_to_i64(&x, &v), DDB_OK);
    assert_true(v == INT64_MIN);
}

static void test_u64(void **state)
{
    (void)state;
    char buf[DDB_NUMBER_TEXT_MAX];
    ddb_dec x;
    uint64_t v;
    ddbi_dec_from_u64(UINT64_MAX, &x);
    assert_string_equal(fmt(&x, buf), "18446744073709551615");
    assert_int_equal(ddbi_dec_to_u64(&x, &v), DDB_OK);
    assert_true(v == UINT64_MAX);
    ddbi_dec_from_u64(0, &x);
    assert_string_equal(fmt(&x, buf), "0");
    ddbi_dec_from_u64(10000000000000000000u, &x);
    assert_string_equal(fmt(&x, buf), "10000000000000000000");
    assert_int_equal(ddbi_dec_to_u64(&x, &v), DDB_OK);
    assert_true(v == 10000000000000000000u);
    static const char *const bad[] = {"18446744073709551616", "-1", "0.5", "1e20", "-18446744073709551615"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        x = num(bad[i]);
        if (ddbi_dec_to_u64(&x, &v) != DDB_EVALIDATION)
            fail_msg("to_u64(%s) accepted", bad[i]);
    }
}

static void test_double(void **state)
{
    (void)state;
    static const struct {
        double v;
        const char *text;
    } cases[] = {
        {0.0, "0"},
        {-0.0, "0"},
        {1.0, "1"},
        {-1.0, "-1"},
        {0.1, "0.1"},
        {0.1 + 0.2, "0.30000000000000004"},
        {1.0 / 3.0, "0.3333333333333333"},
        {-2.5, "-2.5"},
        {123.456, "123.456"},
        {1e21, "1000000000000000000000"},
        {9007199254740992.0, "9007199254740992"},
        {9007199254740993.0, "9007199254740992"},
        {1e-7, "0.0000001"},
        {1e-130, NULL}, /* checked below: "0." + 129 zeros + "1" */
    };
    char buf[DDB_NUMBER_TEXT_MAX], want[DDB_NUMBER_TEXT_MAX];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ddb_dec x;
        ddb_error err = {0};
        if (ddbi_dec_from_double(cases[i].v, &x, &err) != DDB_OK)
            fail_msg("from_double(%.17g): %s", cases[i].v, err.message);
        const char *w = cases[i].text ? cases[i].text : tiny(want, "", 129, "1");
        assert_string_equal(fmt(&x, buf), w);
        double back = ddbi_dec_to_double(&x);
        assert_true(back == cases[i].v);
    }

    static const struct {
        double v;
        const char *prefix;
    } bad[] = {
        {NAN, NOT_NUMBER},           {INFINITY, NOT_NUMBER},     {-INFINITY, NOT_NUMBER},
        {1e126, OVERFLOW},           {-1e300, OVERFLOW},         {DBL_MAX, OVERFLOW},
        {9.99999999999999999e125, OVERFLOW}, /* rounds to 1e126 */
        {5e-324, UNDERFLOW},         {-DBL_MIN, UNDERFLOW},      {9e-131, UNDERFLOW},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ddb_dec x;
        ddb_error err = {0};
        if (ddbi_dec_from_double(bad[i].v, &x, &err) != DDB_EVALIDATION ||
            strncmp(err.message, bad[i].prefix, strlen(bad[i].prefix)) != 0)
            fail_msg("from_double(%.17g): \"%s\"", bad[i].v, err.message);
    }

    /* Large doubles come out in plain notation too. */
    ddb_dec big;
    assert_int_equal(ddbi_dec_from_double(1.7976931348623155e125, &big, NULL), DDB_OK);
    fmt(&big, buf);
    assert_int_equal(strlen(buf), 126);
    assert_memory_equal(buf, "17976931348623155000", 20);
    assert_int_equal(strspn(buf + 17, "0"), 109);
    assert_true(ddbi_dec_to_double(&big) == 1.7976931348623155e125);

    /* to_double rounds correctly and reads 38 digits. */
    ddb_dec x = num("0.1");
    assert_true(ddbi_dec_to_double(&x) == 0.1);
    x = num("-1e-130");
    assert_true(ddbi_dec_to_double(&x) == -1e-130);
    x = num("9.9999999999999999999999999999999999999e125");
    assert_true(ddbi_dec_to_double(&x) == 1e126);
    x = num("12345678901234567890123456789012345678");
    assert_true(ddbi_dec_to_double(&x) == 12345678901234567890123456789012345678.0);
    x = num("0");
    assert_true(ddbi_dec_to_double(&x) == 0.0);
}

/* The fewest digits by trial: the first precision whose correctly rounded
 * text (printf) reads back (strtod) as v; the reference for shortest.c. */
static int trial_digits(double v, char *digits, int *k)
{
    char buf[40];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*e", prec - 1, v);
        if (prec == 17 || strtod(buf, NULL) == v)
            break;
    }
    int n = 0;
    for (const char *p = buf; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9')
            digits[n++] = *p;
    while (n > 1 && digits[n - 1] == '0')
        n--;
    *k = atoi(strchr(buf, 'e') + 1) + 1;
    return n;
}

/* ddbi_shortest_digits (Burger & Dybvig's free-format algorithm) on the
 * whole range of doubles, subnormals, powers of two and their neighbours:
 * its digits read back as v, they are never longer than the trial
 * reference (sometimes shorter: 7.1202363472230444e-307 is
 * 7.120236347223045e-307), and of equal length they are the same digits
 * (the nearest, an exact tie to even). */
static void test_shortest_digits(void **state)
{
    (void)state;
    uint64_t s = 0x2545f4914f6cdd1du;
    int n_cases = 0;
    for (int i = 0; i < 120000; i++) {
        double v;
        uint64_t bits;
        if (i < 2100) { /* 2^-1074 .. 2^1023 and a neighbour of each */
            v = ldexp(1.0, i / 2 - 1074);
            if (i % 2)
                v = nextafter(v, INFINITY);
        } else {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            bits = s & ~(UINT64_C(1) << 63);
            memcpy(&v, &bits, sizeof v);
            if (i % 3 == 0) /* short decimals, as programs store them */
                v = (double)(s % 100000) / 100.0;
        }
        if (!(v > 0) || isinf(v))
            continue;
        n_cases++;
        uint8_t d[17];
        int k, n = ddbi_shortest_digits(v, d, &k);
        char text[64], want[20];
        int o = snprintf(text, sizeof text, "0.");
        for (int j = 0; j < n; j++)
            text[o++] = (char)('0' + d[j]);
        snprintf(text + o, sizeof text - (size_t)o, "e%d", k);
        if (n < 1 || n > 17 || d[0] == 0 || d[n - 1] == 0 || strtod(text, NULL) != v)
            fail_msg("%.17g -> %s does not read back", v, text);
        int wk, wn = trial_digits(v, want, &wk);
        if (n > wn)
            fail_msg("%.17g -> %s: longer than the trial's %.*se%d", v, text, wn, want, wk);
        /* shorter than the trial: the correctly rounded text of that length
         * does not read back, another one does (printf cannot find it) */
        if (n == wn && (wk != k || memcmp(want, text + 2, (size_t)n) != 0))
            fail_msg("%.17g -> %s, the trial %.*se%d: same length, other digits", v, text, wn, want, wk);
    }
    assert_true(n_cases > 100000);
}

/* Round trip of many doubles through the shortest text. */
static void test_double_round_trip(void **state)
{
    (void)state;
    uint64_t s = 0x9e3779b97f4a7c15u;
    int checked = 0;
    for (int i = 0; i < 20000; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        double v;
        uint64_t bits = s;
        memcpy(&v, &bits, sizeof v);
        ddb_dec x, y;
        if (ddbi_dec_from_double(v, &x, NULL) != DDB_OK)
            continue; /* NaN, Inf or out of DynamoDB's range */
        checked++;
        assert_true(x.ndig <= 17);
        assert_true(ddbi_dec_to_double(&x) == v);
        char buf[DDB_NUMBER_TEXT_MAX];
        ddbi_dec_format(&x, buf);
        assert_int_equal(ddbi_dec_parse(buf, strlen(buf), &y, NULL), DDB_OK);
        assert_memory_equal(&x, &y, sizeof x);
        assert_true(strtod(buf, NULL) == v);
    }
    assert_true(checked > 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_canonical),
        cmocka_unit_test(test_counted_text),
        cmocka_unit_test(test_range_edges),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_error_message_bounded),
        cmocka_unit_test(test_ordering),
        cmocka_unit_test(test_equal_spellings),
        cmocka_unit_test(test_key_bytes),
        cmocka_unit_test(test_key_decode),
        cmocka_unit_test(test_number_compare),
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_sizes_match_dynalite),
        cmocka_unit_test(test_arithmetic),
        cmocka_unit_test(test_arithmetic_messages),
        cmocka_unit_test(test_arithmetic_aliasing),
        cmocka_unit_test(test_i64),
        cmocka_unit_test(test_u64),
        cmocka_unit_test(test_double),
        cmocka_unit_test(test_shortest_digits),
        cmocka_unit_test(test_double_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
