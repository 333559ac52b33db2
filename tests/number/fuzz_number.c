/* libFuzzer target for runtime/src/number.c.
 *
 * The input is parsed whole; for accepted input the canonical text must
 * parse back to the same value and be a fixed point, the key must decode
 * back, and the size must be in range.  The input is also split in two at
 * its middle: when both halves parse, cmp and key order must agree, and
 * exact add/sub must be consistent ((a + b) - b == a, sign of a + b - a).
 *
 *   fuzz_number -max_len=256 tests/number/corpus */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/number.h"

#define CHECK(cond)                                                             \
    do {                                                                        \
        if (!(cond)) {                                                          \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            abort();                                                            \
        }                                                                       \
    } while (0)

static int sgn(int v)
{
    return v < 0 ? -1 : v > 0;
}

static int key_order(const ddb_dec *a, const ddb_dec *b)
{
    uint8_t ka[DDB_DEC_KEY_MAX], kb[DDB_DEC_KEY_MAX];
    size_t na = ddbi_dec_key(a, ka), nb = ddbi_dec_key(b, kb);
    int c = memcmp(ka, kb, na < nb ? na : nb);
    if (c == 0 && na != nb) /* the encoding is prefix-free */
        abort();
    return sgn(c);
}

static void check_one(const ddb_dec *x)
{
    char text[DDB_NUMBER_TEXT_MAX], again[DDB_NUMBER_TEXT_MAX];
    ddb_error err;
    ddb_dec y;

    size_t n = ddbi_dec_format(x, text);
    CHECK(n == strlen(text) && n < DDB_NUMBER_TEXT_MAX);
    CHECK(ddbi_dec_parse(text, n, &y, &err) == DDB_OK);
    CHECK(memcmp(x, &y, sizeof y) == 0);
    CHECK(ddb_number_canonical(text, n, again, &err) == DDB_OK);
    CHECK(strcmp(text, again) == 0);
    CHECK(ddb_number_compare(text, again) == 0);

    uint8_t key[DDB_DEC_KEY_MAX];
    size_t klen = ddbi_dec_key(x, key), used = 0;
    CHECK(klen >= 1 && klen <= 22);
    CHECK(ddbi_dec_from_key(key, klen, &y, &used) == DDB_OK);
    CHECK(used == klen && memcmp(x, &y, sizeof y) == 0);

    size_t size = ddbi_dec_size(x);
    CHECK(size >= 1 && size <= 22);

    /* Doubles: whatever to_double gives is finite and reads back. */
    double d = ddbi_dec_to_double(x);
    if (ddbi_dec_from_double(d, &y, NULL) == DDB_OK)
        CHECK(ddbi_dec_to_double(&y) == d);

    int64_t i64;
    if (ddbi_dec_to_i64(x, &i64) == DDB_OK) {
        ddbi_dec_from_i64(i64, &y);
        CHECK(memcmp(x, &y, sizeof y) == 0);
    }
}

static void check_pair(const ddb_dec *a, const ddb_dec *b)
{
    ddb_dec s, back, diff;
    ddb_error err;

    CHECK(sgn(ddbi_dec_cmp(a, b)) == key_order(a, b));
    CHECK(sgn(ddbi_dec_cmp(a, b)) == -sgn(ddbi_dec_cmp(b, a)));

    if (ddbi_dec_add(a, b, &s, &err) == DDB_OK) {
        check_one(&s);
        /* a + b compares to a as b compares to 0. */
        ddb_dec zero = {0};
        CHECK(sgn(ddbi_dec_cmp(&s, a)) == sgn(ddbi_dec_cmp(b, &zero)));
        /* Exact arithmetic: subtracting b gives a back. */
        CHECK(ddbi_dec_sub(&s, b, &back, &err) == DDB_OK);
        CHECK(memcmp(&back, a, sizeof back) == 0);
    } else {
        CHECK(err.code == DDB_EVALIDATION);
    }
    if (ddbi_dec_sub(a, b, &diff, &err) == DDB_OK) {
        check_one(&diff);
        ddb_dec zero = {0};
        CHECK(sgn(ddbi_dec_cmp(&diff, &zero)) == sgn(ddbi_dec_cmp(a, b)));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ddb_dec x, a, b;
    ddb_error err;
    const char *text = (const char *)data;

    if (ddbi_dec_parse(text, size, &x, &err) == DDB_OK)
        check_one(&x);
    else
        CHECK(err.code == DDB_EVALIDATION && strlen(err.message) < sizeof err.message);

    size_t half = size / 2;
    if (ddbi_dec_parse(text, half, &a, NULL) == DDB_OK && ddbi_dec_parse(text + half, size - half, &b, NULL) == DDB_OK) {
        check_pair(&a, &b);
        check_pair(&b, &a);
    }

    /* Arbitrary bytes as a key: decoding either fails or re-encodes to
     * the same bytes. */
    size_t used;
    if (ddbi_dec_from_key(data, size, &x, &used) == DDB_OK) {
        uint8_t key[DDB_DEC_KEY_MAX];
        CHECK(ddbi_dec_key(&x, key) == used && memcmp(key, data, used) == 0);
    }
    return 0;
}
