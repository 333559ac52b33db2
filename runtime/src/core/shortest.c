/* core/: the shortest decimal digits that read back as a double, without
 * trial formatting: the free-format algorithm of Burger & Dybvig
 * ("Printing Floating-Point Numbers Quickly and Accurately", PLDI 1996),
 * itself Steele & White's, in exact integer arithmetic on small fixed-size
 * bignums.  Debian packages no C library for it (double-conversion is C++;
 * Ryu only as Rust source), hence this file; tests/number checks it
 * against printf/strtod on 120,000 doubles.  Calls the C library only. */
#include "core/number.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* Enough 32-bit limbs for 2^1078 * 10 (the largest value below). */
#define LIMBS 40

typedef struct big {
    uint32_t w[LIMBS];
    int n; /* limbs in use; w[n-1] != 0 unless n == 0 */
} big;

static void big_set(big *b, uint64_t v)
{
    memset(b, 0, sizeof *b);
    b->w[0] = (uint32_t)v;
    b->w[1] = (uint32_t)(v >> 32);
    b->n = b->w[1] ? 2 : b->w[0] ? 1 : 0;
}

static void big_mul_small(big *b, uint32_t m)
{
    uint64_t carry = 0;
    for (int i = 0; i < b->n; i++) {
        uint64_t t = (uint64_t)b->w[i] * m + carry;
        b->w[i] = (uint32_t)t;
        carry = t >> 32;
    }
    if (carry && b->n < LIMBS)
        b->w[b->n++] = (uint32_t)carry;
}

static void big_shl(big *b, int bits)
{
    int words = bits / 32, r = bits % 32;
    if (!b->n || !bits)
        return;
    int n = b->n + words + 1 <= LIMBS ? b->n + words + 1 : LIMBS;
    for (int i = n - 1; i >= 0; i--) {
        int s = i - words;
        uint32_t hi = s >= 0 && s < b->n ? b->w[s] : 0, lo = s - 1 >= 0 && s - 1 < b->n ? b->w[s - 1] : 0;
        b->w[i] = r ? (hi << r) | (lo >> (32 - r)) : hi;
    }
    b->n = n;
    while (b->n && !b->w[b->n - 1])
        b->n--;
}

static void big_pow10(big *b, int k)
{
    for (; k >= 9; k -= 9)
        big_mul_small(b, 1000000000u);
    static const uint32_t p[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};
    if (k)
        big_mul_small(b, p[k]);
}

static int big_cmp(const big *a, const big *b)
{
    if (a->n != b->n)
        return a->n < b->n ? -1 : 1;
    for (int i = a->n - 1; i >= 0; i--)
        if (a->w[i] != b->w[i])
            return a->w[i] < b->w[i] ? -1 : 1;
    return 0;
}

/* a + b compared with c */
static int big_cmp_sum(const big *a, const big *b, const big *c)
{
    big s;
    uint64_t carry = 0;
    int n = a->n > b->n ? a->n : b->n;
    memset(&s, 0, sizeof s);
    for (int i = 0; i < n; i++) {
        uint64_t t = (uint64_t)(i < a->n ? a->w[i] : 0) + (i < b->n ? b->w[i] : 0) + carry;
        s.w[i] = (uint32_t)t;
        carry = t >> 32;
    }
    s.n = n;
    if (carry && n < LIMBS)
        s.w[s.n++] = (uint32_t)carry;
    return big_cmp(&s, c);
}

/* a -= b (a >= b) */
static void big_sub(big *a, const big *b)
{
    int64_t borrow = 0;
    for (int i = 0; i < a->n; i++) {
        int64_t t = (int64_t)a->w[i] - (i < b->n ? b->w[i] : 0) - borrow;
        borrow = t < 0;
        a->w[i] = (uint32_t)(t + (borrow ? (int64_t)1 << 32 : 0));
    }
    while (a->n && !a->w[a->n - 1])
        a->n--;
}

int ddbi_shortest_digits(double v, uint8_t digits[17], int *k_out)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    int be = (int)((bits >> 52) & 0x7ff);
    uint64_t f = bits & ((UINT64_C(1) << 52) - 1);
    int e;
    if (be == 0)
        e = -1074; /* subnormal */
    else {
        f |= UINT64_C(1) << 52;
        e = be - 1075;
    }
    /* v = f * 2^e; the rounding interval is half-way to each neighbour,
     * its ends included when f is even (round-half-even reads them back) */
    bool even = (f & 1) == 0, boundary = f == UINT64_C(1) << 52 && be > 1;
    big r, s, mp, mm;
    big_set(&r, f);
    big_set(&s, 1);
    big_set(&mp, 1);
    big_set(&mm, 1);
    if (e >= 0) {
        big_shl(&r, e + (boundary ? 2 : 1));
        big_set(&s, boundary ? 4 : 2);
        big_shl(&mp, e + (boundary ? 1 : 0));
        big_shl(&mm, e);
    } else {
        big_shl(&r, boundary ? 2 : 1);
        big_shl(&s, boundary ? 2 - e : 1 - e);
        if (boundary)
            big_set(&mp, 2);
    }
    /* k = ceil(log10 v), estimated, then fixed so that r/s < 1 <= 10 r/s */
    int k = (int)ceil(log10(v) - 1e-10);
    if (k >= 0)
        big_pow10(&s, k);
    else {
        big_pow10(&r, -k);
        big_pow10(&mp, -k);
        big_pow10(&mm, -k);
    }
    int c = big_cmp_sum(&r, &mp, &s);
    if (even ? c >= 0 : c > 0)
        k++;
    else {
        big_mul_small(&r, 10);
        big_mul_small(&mp, 10);
        big_mul_small(&mm, 10);
    }
    int n = 0;
    for (;;) {
        int d = 0;
        while (big_cmp(&r, &s) >= 0) {
            big_sub(&r, &s);
            d++;
        }
        int lo = big_cmp(&r, &mm), hi = big_cmp_sum(&r, &mp, &s);
        bool tc1 = even ? lo <= 0 : lo < 0, tc2 = even ? hi >= 0 : hi > 0;
        if (!tc1 && !tc2 && n < 16) {
            digits[n++] = (uint8_t)d;
            big_mul_small(&r, 10);
            big_mul_small(&mp, 10);
            big_mul_small(&mm, 10);
            continue;
        }
        if (tc1 && tc2) { /* both ends reachable: the nearer one (2r vs s), an exact tie to even as printf */
            big r2 = r;
            big_shl(&r2, 1);
            int t = big_cmp(&r2, &s);
            if (t > 0 || (t == 0 && (d & 1)))
                d++;
        } else if (tc2)
            d++;
        digits[n++] = (uint8_t)d;
        break;
    }
    /* a last digit rounded up to 10 carries into the previous ones */
    while (n > 1 && digits[n - 1] == 10) {
        n--;
        digits[n - 1]++;
    }
    if (digits[0] == 10) {
        digits[0] = 1;
        k++;
    }
    while (n > 1 && digits[n - 1] == 0)
        n--;
    *k_out = k;
    return n;
}
