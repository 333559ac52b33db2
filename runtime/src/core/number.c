/* DynamoDB's number type: parsing, canonical text, order-preserving keys,
 * item-size accounting, exact add/sub and conversions (see number.h).
 *
 * Sources for the rules: the DynamoDB Developer Guide ("Data types",
 * "Item sizes and formats"), DynamoDB's ValidationException texts as
 * recorded by dynalite's and ScyllaDB Alternator's test suites, and
 * dynalite's size formula (db/index.js valSize). */
#include "core/number.h"

#include "core/error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char MSG_NOT_NUMBER[] = "The parameter cannot be converted to a numeric value";
static const char MSG_OVERFLOW[] = "Number overflow. Attempting to store a number with magnitude larger than supported range";
static const char MSG_UNDERFLOW[] = "Number underflow. Attempting to store a number with magnitude smaller than supported range";
static const char MSG_DIGITS[] = "Attempting to store more than 38 significant digits in a Number";
#define MAX_MAGNITUDE "9.9999999999999999999999999999999999999E+125"
#define MIN_MAGNITUDE "1E-130"

/* Exponents are saturated while parsing so huge ones cannot overflow. */
#define EXP_SATURATE 1000000000000LL

/* ---- Error-message helpers ----------------------------------------------- */

#define QUOTE_MAX 80

/* Untrusted input for a message: quoted, non-printable bytes as \xNN, cut
 * after about 60 characters so the message fits ddb_error. */
static const char *quote(const char *s, size_t len, char out[QUOTE_MAX])
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    out[o++] = '"';
    for (size_t i = 0; i < len; i++) {
        if (o > 60) {
            memcpy(out + o, "...", 3);
            o += 3;
            break;
        }
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            out[o++] = '\\';
            out[o++] = (char)c;
        } else if (c < 0x20 || c >= 0x7f) {
            out[o++] = '\\';
            out[o++] = 'x';
            out[o++] = hex[c >> 4];
            out[o++] = hex[c & 15];
        } else {
            out[o++] = (char)c;
        }
    }
    out[o++] = '"';
    out[o] = '\0';
    return out;
}

/* ---- Parsing ------------------------------------------------------------- */

static void set_zero(ddb_dec *x)
{
    memset(x, 0, sizeof *x);
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* DynamoDB echoes the text as it is ("...numeric value: 12e", dynalite's
 * validations and ExtendDB's dual-target tests): quote()'s escaped, cut
 * text without its quotes. */
static int not_number(const char *text, size_t len, ddb_error *err)
{
    char q[QUOTE_MAX];
    size_t n = strlen(quote(text, len, q));
    q[n - 1] = '\0';
    return ddbi_fail(err, DDB_EVALIDATION, "%s: %s", MSG_NOT_NUMBER, q + 1);
}

int ddbi_dec_parse(const char *text, size_t len, ddb_dec *out, ddb_error *err)
{
    char q[QUOTE_MAX];
    ddb_dec x;
    size_t i = 0;
    int neg = 0;

    if (!text || len == 0)
        return ddbi_fail(err, DDB_EVALIDATION, "%s (empty text)", MSG_NOT_NUMBER);
    if (text[0] == '+' || text[0] == '-') {
        neg = text[0] == '-';
        i++;
    }

    /* Mantissa: digits with at most one '.'.  Digit indexes count all
     * mantissa digits; first/last are those of the nonzero ones. */
    int64_t ndigits = 0, nint = -1, first = -1, last = -1;
    set_zero(&x);
    for (; i < len; i++) {
        char c = text[i];
        if (is_digit(c)) {
            if (c != '0') {
                if (first < 0)
                    first = ndigits;
                last = ndigits;
            }
            if (first >= 0 && ndigits - first < DDB_DEC_DIGITS)
                x.d[ndigits - first] = (uint8_t)(c - '0');
            ndigits++;
        } else if (c == '.' && nint < 0) {
            nint = ndigits;
        } else {
            break;
        }
    }
    if (nint < 0)
        nint = ndigits;
    if (ndigits == 0)
        return not_number(text, len, err);

    int64_t e = 0;
    if (i < len && (text[i] == 'e' || text[i] == 'E')) {
        int eneg = 0;
        i++;
        if (i < len && (text[i] == '+' || text[i] == '-')) {
            eneg = text[i] == '-';
            i++;
        }
        if (i >= len || !is_digit(text[i]))
            return not_number(text, len, err);
        for (; i < len && is_digit(text[i]); i++)
            if (e < EXP_SATURATE)
                e = e * 10 + (text[i] - '0');
        if (eneg)
            e = -e;
    }
    if (i != len)
        return not_number(text, len, err);

    if (first < 0) { /* zero, whatever its sign and exponent */
        *out = x;
        return DDB_OK;
    }
    /* The first nonzero digit has place value 10^(nint - first - 1). */
    int64_t exp = nint - first + e;
    if (exp > DDB_DEC_EXP_MAX)
        return ddbi_fail(err, DDB_EVALIDATION, "%s: %s (max " MAX_MAGNITUDE ")", MSG_OVERFLOW,
                        quote(text, len, q));
    if (exp < DDB_DEC_EXP_MIN)
        return ddbi_fail(err, DDB_EVALIDATION, "%s: %s (min " MIN_MAGNITUDE ")", MSG_UNDERFLOW,
                        quote(text, len, q));
    int64_t nsig = last - first + 1;
    if (nsig > DDB_DEC_DIGITS)
        return ddbi_fail(err, DDB_EVALIDATION, "%s: %s has %lld significant digits (max 38)", MSG_DIGITS,
                        quote(text, len, q), (long long)nsig);
    x.sign = neg ? -1 : 1;
    x.ndig = (uint8_t)nsig;
    x.exp = (int16_t)exp;
    *out = x;
    return DDB_OK;
}

/* ---- Canonical text -------------------------------------------------------- */

size_t ddbi_dec_format(const ddb_dec *x, char out[DDB_NUMBER_TEXT_MAX])
{
    size_t o = 0;
    int n = x->ndig, exp = x->exp;

    if (x->sign == 0 || n == 0) {
        out[0] = '0';
        out[1] = '\0';
        return 1;
    }
    if (x->sign < 0)
        out[o++] = '-';
    if (exp <= 0) { /* 0.000ddd */
        out[o++] = '0';
        out[o++] = '.';
        for (int i = 0; i < -exp; i++)
            out[o++] = '0';
        for (int i = 0; i < n; i++)
            out[o++] = (char)('0' + x->d[i]);
    } else if (exp < n) { /* ddd.ddd */
        for (int i = 0; i < n; i++) {
            if (i == exp)
                out[o++] = '.';
            out[o++] = (char)('0' + x->d[i]);
        }
    } else { /* ddd000 */
        for (int i = 0; i < n; i++)
            out[o++] = (char)('0' + x->d[i]);
        for (int i = n; i < exp; i++)
            out[o++] = '0';
    }
    out[o] = '\0';
    return o;
}

int ddb_number_canonical(const char *text, size_t len, char out[DDB_NUMBER_TEXT_MAX], ddb_error *err)
{
    ddb_dec x;
    int rc = ddbi_dec_parse(text, len, &x, err);
    if (rc)
        return rc;
    ddbi_dec_format(&x, out);
    return DDB_OK;
}

/* ---- Comparison ------------------------------------------------------------ */

static int cmp_magnitude(const ddb_dec *a, const ddb_dec *b)
{
    if (a->exp != b->exp)
        return a->exp < b->exp ? -1 : 1;
    int n = a->ndig < b->ndig ? a->ndig : b->ndig;
    for (int i = 0; i < n; i++)
        if (a->d[i] != b->d[i])
            return a->d[i] < b->d[i] ? -1 : 1;
    return a->ndig < b->ndig ? -1 : a->ndig > b->ndig;
}

int ddbi_dec_cmp(const ddb_dec *a, const ddb_dec *b)
{
    if (a->sign != b->sign)
        return a->sign < b->sign ? -1 : 1;
    if (a->sign == 0)
        return 0;
    int c = cmp_magnitude(a, b);
    return a->sign > 0 ? c : -c;
}

/* Text that does not parse sorts before every number (bytewise among
 * itself) so the order stays total even for corrupt input. */
int ddb_number_compare(const char *a, const char *b)
{
    ddb_dec x, y;
    int bad_a = ddbi_dec_parse(a, a ? strlen(a) : 0, &x, NULL) != DDB_OK;
    int bad_b = ddbi_dec_parse(b, b ? strlen(b) : 0, &y, NULL) != DDB_OK;
    if (bad_a || bad_b) {
        if (bad_a != bad_b)
            return bad_a ? -1 : 1;
        int c = strcmp(a ? a : "", b ? b : "");
        return c < 0 ? -1 : c > 0;
    }
    return ddbi_dec_cmp(&x, &y);
}

/* ---- Order-preserving key ---------------------------------------------------- */

enum { KEY_NEG = 0x01, KEY_ZERO = 0x02, KEY_POS = 0x03 };

size_t ddbi_dec_key(const ddb_dec *x, uint8_t out[DDB_DEC_KEY_MAX])
{
    if (x->sign == 0 || x->ndig == 0) {
        out[0] = KEY_ZERO;
        return 1;
    }
    /* Positive: a larger exponent is a larger number; digit nibbles d+1
     * end with a 0 nibble, so a shorter digit string (a prefix of a longer
     * one) sorts first.  Negative: the same bytes complemented reverse
     * the order of magnitudes. */
    uint8_t flip = x->sign < 0 ? 0xff : 0x00;
    size_t o = 0;
    out[o++] = x->sign < 0 ? KEY_NEG : KEY_POS;
    out[o++] = (uint8_t)((x->exp - DDB_DEC_EXP_MIN) ^ flip);
    int nibbles = x->ndig + 1; /* digits and the terminator */
    for (int i = 0; i < nibbles; i += 2) {
        uint8_t hi = i < x->ndig ? (uint8_t)(x->d[i] + 1) : 0;
        uint8_t lo = i + 1 < x->ndig ? (uint8_t)(x->d[i + 1] + 1) : 0;
        out[o++] = (uint8_t)(((hi << 4) | lo) ^ flip);
    }
    return o;
}

int ddbi_dec_from_key(const uint8_t *key, size_t len, ddb_dec *out, size_t *used)
{
    ddb_dec x;
    set_zero(&x);
    if (!key || len == 0)
        return DDB_ECORRUPT;
    if (key[0] == KEY_ZERO) {
        *out = x;
        if (used)
            *used = 1;
        return DDB_OK;
    }
    if (key[0] != KEY_NEG && key[0] != KEY_POS)
        return DDB_ECORRUPT;
    uint8_t flip = key[0] == KEY_NEG ? 0xff : 0x00;
    if (len < 3)
        return DDB_ECORRUPT;
    x.sign = key[0] == KEY_NEG ? -1 : 1;
    x.exp = (int16_t)((key[1] ^ flip) + DDB_DEC_EXP_MIN);
    size_t o = 2;
    for (;;) {
        if (o >= len)
            return DDB_ECORRUPT;
        uint8_t b = key[o++] ^ flip;
        uint8_t nib[2] = {(uint8_t)(b >> 4), (uint8_t)(b & 15)};
        for (int k = 0; k < 2; k++) {
            if (nib[k] == 0) {
                /* Terminator: the padding after it must be 0, the digit
                 * string nonempty, starting and ending with nonzero. */
                if ((k == 0 && nib[1] != 0) || x.ndig == 0 || x.d[0] == 0 || x.d[x.ndig - 1] == 0)
                    return DDB_ECORRUPT;
                *out = x;
                if (used)
                    *used = o;
                return DDB_OK;
            }
            if (nib[k] > 10 || x.ndig == DDB_DEC_DIGITS)
                return DDB_ECORRUPT;
            x.d[x.ndig++] = (uint8_t)(nib[k] - 1);
        }
    }
}

/* ---- Item size -------------------------------------------------------------- */

static int floor_div2(int v)
{
    return v >= 0 ? v / 2 : -((-v + 1) / 2);
}

size_t ddbi_dec_size(const ddb_dec *x)
{
    if (x->sign == 0 || x->ndig == 0)
        return 1;
    /* Digit i has place value 10^(exp-1-i); DynamoDB stores base-100
     * digits aligned on the decimal point (places 2k+1 and 2k share a
     * byte), after one exponent byte, plus one byte for negatives.  This
     * equals dynalite's 1 + ceil(n/2) + (n even && e even) + (neg), e being
     * the scientific exponent. */
    int top = x->exp - 1, bottom = x->exp - x->ndig;
    size_t pairs = (size_t)(floor_div2(top) - floor_div2(bottom) + 1);
    return 1 + pairs + (x->sign < 0 ? 1 : 0);
}

/* ---- Arithmetic ------------------------------------------------------------- */

/* Places an exact sum can span: from 10^(EXP_MIN-1-37) up to 10^EXP_MAX
 * (the carry), i.e. 126 - (-167) + 1 = 294. */
#define SPAN 296

static int valid(const ddb_dec *x)
{
    if (x->sign == 0 || x->ndig == 0)
        return 1;
    return x->ndig <= DDB_DEC_DIGITS && x->exp >= DDB_DEC_EXP_MIN && x->exp <= DDB_DEC_EXP_MAX;
}

static int add_signed(const ddb_dec *a, const ddb_dec *b, int bsign, ddb_dec *out, ddb_error *err)
{
    if (!valid(a) || !valid(b)) /* would not fit the digit buffers */
        return ddbi_fail(err, DDB_EINVAL, "number operand is not a valid ddb_dec");
    int sa = a->ndig ? a->sign : 0, sb = b->ndig ? b->sign * bsign : 0;
    if (sb == 0) {
        if (sa == 0)
            set_zero(out);
        else
            *out = *a;
        return DDB_OK;
    }
    if (sa == 0) {
        ddb_dec r = *b;
        r.sign = (int8_t)sb;
        *out = r;
        return DDB_OK;
    }

    /* Index k of A/B/R holds the digit of place value 10^(lo + k). */
    int lo_a = a->exp - a->ndig, lo_b = b->exp - b->ndig;
    int lo = lo_a < lo_b ? lo_a : lo_b;
    int hi = a->exp > b->exp ? a->exp : b->exp; /* room for a carry */
    int width = hi - lo + 1;
    uint8_t A[SPAN] = {0}, B[SPAN] = {0}, R[SPAN] = {0};
    for (int i = 0; i < a->ndig; i++)
        A[a->exp - 1 - i - lo] = a->d[i];
    for (int i = 0; i < b->ndig; i++)
        B[b->exp - 1 - i - lo] = b->d[i];

    int sign;
    if (sa == sb) {
        int carry = 0;
        for (int k = 0; k < width; k++) {
            int s = A[k] + B[k] + carry;
            R[k] = (uint8_t)(s % 10);
            carry = s / 10;
        }
        sign = sa;
    } else {
        int c = cmp_magnitude(a, b);
        if (c == 0) {
            set_zero(out);
            return DDB_OK;
        }
        const uint8_t *big = c > 0 ? A : B, *small = c > 0 ? B : A;
        int borrow = 0;
        for (int k = 0; k < width; k++) {
            int s = big[k] - small[k] - borrow;
            borrow = s < 0;
            R[k] = (uint8_t)(s + (borrow ? 10 : 0));
        }
        sign = c > 0 ? sa : sb;
    }

    int top = width - 1, bottom = 0;
    while (top > 0 && R[top] == 0)
        top--;
    while (bottom < top && R[bottom] == 0)
        bottom++;
    int exp = lo + top + 1, nsig = top - bottom + 1;
    if (exp > DDB_DEC_EXP_MAX)
        return ddbi_fail(err, DDB_EVALIDATION, "%s (the result is at least 1E+%d; max " MAX_MAGNITUDE ")",
                        MSG_OVERFLOW, exp - 1);
    if (exp < DDB_DEC_EXP_MIN)
        return ddbi_fail(err, DDB_EVALIDATION, "%s (the result is below 1E%d; min " MIN_MAGNITUDE ")", MSG_UNDERFLOW,
                        exp);
    if (nsig > DDB_DEC_DIGITS)
        /* DynamoDB answers an inexact sum with its overflow text too. */
        return ddbi_fail(err, DDB_EVALIDATION, "%s (the exact result needs %d significant digits; max 38)",
                        MSG_OVERFLOW, nsig);
    ddb_dec r;
    set_zero(&r);
    r.sign = (int8_t)sign;
    r.exp = (int16_t)exp;
    r.ndig = (uint8_t)nsig;
    for (int i = 0; i < nsig; i++)
        r.d[i] = R[top - i];
    *out = r;
    return DDB_OK;
}

int ddbi_dec_add(const ddb_dec *a, const ddb_dec *b, ddb_dec *out, ddb_error *err)
{
    return add_signed(a, b, 1, out, err);
}

int ddbi_dec_sub(const ddb_dec *a, const ddb_dec *b, ddb_dec *out, ddb_error *err)
{
    return add_signed(a, b, -1, out, err);
}

/* ---- Integers ------------------------------------------------------------------- */

static void from_magnitude(uint64_t m, int sign, ddb_dec *out)
{
    uint8_t rev[20]; /* least significant first */
    int n = 0, low = 0;
    set_zero(out);
    if (m == 0)
        return;
    while (m) {
        rev[n++] = (uint8_t)(m % 10);
        m /= 10;
    }
    while (rev[low] == 0)
        low++;
    out->sign = (int8_t)sign;
    out->exp = (int16_t)n;
    out->ndig = (uint8_t)(n - low);
    for (int i = 0; i < out->ndig; i++)
        out->d[i] = rev[n - 1 - i];
}

void ddbi_dec_from_i64(int64_t v, ddb_dec *out)
{
    if (v < 0)
        from_magnitude((uint64_t)0 - (uint64_t)v, -1, out);
    else
        from_magnitude((uint64_t)v, 1, out);
}

void ddbi_dec_from_u64(uint64_t v, ddb_dec *out)
{
    from_magnitude(v, 1, out);
}

/* |x| as an integer no larger than limit; DDB_EVALIDATION otherwise. */
static int to_magnitude(const ddb_dec *x, uint64_t limit, uint64_t *m)
{
    uint64_t v = 0;
    if (x->sign == 0 || x->ndig == 0) {
        *m = 0;
        return DDB_OK;
    }
    if (x->exp < x->ndig || x->exp > 20) /* a fraction, or >= 1E+20 */
        return DDB_EVALIDATION;
    for (int i = 0; i < x->exp; i++) {
        unsigned digit = i < x->ndig ? x->d[i] : 0;
        if (v > (limit - digit) / 10)
            return DDB_EVALIDATION;
        v = v * 10 + digit;
    }
    *m = v;
    return DDB_OK;
}

int ddbi_dec_to_i64(const ddb_dec *x, int64_t *out)
{
    uint64_t m;
    uint64_t limit = x->sign < 0 ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    int rc = to_magnitude(x, limit, &m);
    if (rc)
        return rc;
    if (x->sign < 0)
        *out = m == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)m;
    else
        *out = (int64_t)m;
    return DDB_OK;
}

int ddbi_dec_to_u64(const ddb_dec *x, uint64_t *out)
{
    uint64_t m;
    if (x->sign < 0)
        return DDB_EVALIDATION;
    int rc = to_magnitude(x, UINT64_MAX, &m);
    if (rc)
        return rc;
    *out = m;
    return DDB_OK;
}

/* ---- Doubles --------------------------------------------------------------------- */

int ddbi_dec_from_double(double v, ddb_dec *out, ddb_error *err)
{
    if (isnan(v))
        return ddbi_fail(err, DDB_EVALIDATION, "%s: NaN (a double that is not a number)", MSG_NOT_NUMBER);
    if (isinf(v))
        return ddbi_fail(err, DDB_EVALIDATION, "%s: %sInfinity (an infinite double)", MSG_NOT_NUMBER,
                        v < 0 ? "-" : "");
    if (v == 0) {
        set_zero(out);
        return DDB_OK;
    }
    /* The fewest digits that read back as v (shortest.c). */
    ddb_dec x;
    set_zero(&x);
    x.sign = v < 0 ? -1 : 1;
    int k;
    x.ndig = (uint8_t)ddbi_shortest_digits(fabs(v), x.d, &k);
    long exp = k;
    if (exp > DDB_DEC_EXP_MAX)
        return ddbi_fail(err, DDB_EVALIDATION, "%s: %.17g (max " MAX_MAGNITUDE ")", MSG_OVERFLOW, v);
    if (exp < DDB_DEC_EXP_MIN)
        return ddbi_fail(err, DDB_EVALIDATION, "%s: %.17g (min " MIN_MAGNITUDE ")", MSG_UNDERFLOW, v);
    x.exp = (int16_t)exp;
    *out = x;
    return DDB_OK;
}

double ddbi_dec_to_double(const ddb_dec *x)
{
    /* An integer mantissa and an exponent: no radix character, so strtod
     * reads it the same in every locale, correctly rounded. */
    char buf[64];
    size_t o = 0;
    if (x->sign == 0 || x->ndig == 0)
        return 0.0;
    if (x->sign < 0)
        buf[o++] = '-';
    for (int i = 0; i < x->ndig; i++)
        buf[o++] = (char)('0' + x->d[i]);
    snprintf(buf + o, sizeof buf - o, "e%d", x->exp - x->ndig);
    return strtod(buf, NULL);
}
