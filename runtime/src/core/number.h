/* DynamoDB's number type: decimal, up to 38 significant digits, magnitude
 * 1E-130 .. 9.99...E+125, compared numerically (internal API).
 *
 * Everything here works on caller-owned storage: no heap, no global state.
 * Error messages begin with DynamoDB's own ValidationException text (so a
 * wire layer can pass them on) and then name the offending value and the
 * limit, e.g.
 *   Number overflow. Attempting to store a number with magnitude larger
 *   than supported range: "1e200" (max 9.9999999999999999999999999999999999999E+125)
 */
#ifndef DDB_NUMBER_H
#define DDB_NUMBER_H

#include <ddb/ddb.h>

#define DDB_DEC_DIGITS 38
/* Longest order-preserving key encoding of a number (the encoding below
 * needs at most 22 bytes). */
#define DDB_DEC_KEY_MAX 24
/* Bounds of exp below: 1E-130 = 0.1E-129, 9.99..E+125 = 0.999..E+126. */
#define DDB_DEC_EXP_MIN (-129)
#define DDB_DEC_EXP_MAX 126

/* value = sign * 0.d[0]d[1]...d[ndig-1] * 10^exp; d[0] != 0 unless zero.
 * Zero: sign = 0, ndig = 0, exp = 0.  No trailing zero digits are kept,
 * so equal numbers have identical fields. */
typedef struct ddb_dec {
    int8_t sign;  /* -1, 0, +1 */
    uint8_t ndig; /* 0..38 */
    int16_t exp;  /* DDB_DEC_EXP_MIN..DDB_DEC_EXP_MAX when nonzero */
    uint8_t d[DDB_DEC_DIGITS]; /* digit values 0..9 */
} ddb_dec;

/* Parse number text as DynamoDB accepts it: optional '+' or '-', digits
 * with an optional '.' (".5" and "5." are both accepted), optional e/E
 * exponent with optional sign ("1e+5").  Leading/trailing zeros are not
 * significant; zero with any exponent ("0e1000", "-0") is zero.  No
 * whitespace, no NaN/Infinity, no hex.  text need not be NUL-terminated.
 * DDB_EVALIDATION with DynamoDB's message plus the quoted value for: empty
 * or malformed text ("The parameter cannot be converted to a numeric
 * value"), magnitude >= 1E+126 ("Number overflow..."), magnitude < 1E-130
 * ("Number underflow..."), more than 38 significant digits ("Attempting to
 * store more than 38 significant digits in a Number") - checked in that
 * order, like dynalite. */
int ddbi_dec_parse(const char *text, size_t len, ddb_dec *out, ddb_error *err);
/* Canonical text, DynamoDB's normalised form: plain decimal notation, never
 * an exponent ("1e3" -> "1000", "1E-3" -> "0.001", "1.50" -> "1.5",
 * "-0" -> "0", ".5" -> "0.5", "+3" -> "3").  NUL-terminated; returns its
 * length (at most DDB_NUMBER_TEXT_MAX - 1). */
size_t ddbi_dec_format(const ddb_dec *x, char out[DDB_NUMBER_TEXT_MAX]);
/* Numeric comparison: <0, 0, >0. */
int ddbi_dec_cmp(const ddb_dec *a, const ddb_dec *b);
/* Order-preserving encoding: memcmp order of encodings == numeric order.
 * The encoding is prefix-free (no encoding is a proper prefix of another),
 * so it may be followed by further key bytes.  Returns its length (1..22).
 * Layout: 0x01 negative | 0x02 zero | 0x03 positive; then for nonzero one
 * exponent byte (exp - DDB_DEC_EXP_MIN, complemented for negatives) and the
 * digits as nibbles digit+1 ending with a 0 nibble, padded to a byte with
 * 0, all complemented for negatives. */
size_t ddbi_dec_key(const ddb_dec *x, uint8_t out[DDB_DEC_KEY_MAX]);
/* Decode one encoding made by ddbi_dec_key at the start of key[0..len);
 * *used (may be NULL) gets its length.  DDB_ECORRUPT if it is malformed. */
int ddbi_dec_from_key(const uint8_t *key, size_t len, ddb_dec *out, size_t *used);
/* Storage size as DynamoDB counts it for item size (the value only, not
 * the attribute name): zero is 1 byte; otherwise 1 (exponent) + one byte
 * per pair of digits, pairs aligned on the decimal point (so "12" is one
 * pair, "1.2" two) + 1 for negatives.  Same values as dynalite. */
size_t ddbi_dec_size(const ddb_dec *x);
/* Exact arithmetic; out may alias a or b.  DDB_EVALIDATION when the exact
 * result leaves the range (DynamoDB's "Number overflow..." / "Number
 * underflow..." text) or needs more than 38 significant digits (DynamoDB
 * reports that too as "Number overflow. Attempting to store a number with
 * magnitude larger than supported range"; the message adds the digit
 * count).  On error *out is unchanged. */
int ddbi_dec_add(const ddb_dec *a, const ddb_dec *b, ddb_dec *out, ddb_error *err);
int ddbi_dec_sub(const ddb_dec *a, const ddb_dec *b, ddb_dec *out, ddb_error *err);
void ddbi_dec_from_i64(int64_t v, ddb_dec *out);
void ddbi_dec_from_u64(uint64_t v, ddb_dec *out);
/* DDB_EVALIDATION when x is not an integer or not in range; *out is then
 * unchanged. */
int ddbi_dec_to_i64(const ddb_dec *x, int64_t *out);
int ddbi_dec_to_u64(const ddb_dec *x, uint64_t *out);
/* The shortest decimal that reads back as v (at most 17 significant
 * digits).  DDB_EVALIDATION for NaN, infinities and finite doubles outside
 * DynamoDB's range (e.g. 1e300, 5e-324). */
int ddbi_dec_from_double(double v, ddb_dec *out, ddb_error *err);
/* The shortest digits d[0..n) (d[0] != 0; at most 17) with
 * v = 0.d[0]d[1]...d[n-1] * 10^k reading back as v (a positive finite
 * double); returns n (shortest.c). */
int ddbi_shortest_digits(double v, uint8_t digits[17], int *k);
/* Nearest double (correctly rounded). */
double ddbi_dec_to_double(const ddb_dec *x);

#endif
