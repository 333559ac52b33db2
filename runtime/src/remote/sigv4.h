/* AWS Signature Version 4 (internal API): HMAC-SHA256 request signing as
 * AWS documents it ("Create a signed AWS API request"), on OpenSSL.
 *
 *   CanonicalRequest = Method \n CanonicalURI \n CanonicalQuery \n
 *                      CanonicalHeaders \n SignedHeaders \n HexSHA256(Payload)
 *   StringToSign     = "AWS4-HMAC-SHA256" \n AmzDate \n Scope \n HexSHA256(CanonicalRequest)
 *   Scope            = YYYYMMDD/region/service/aws4_request
 *   SigningKey       = HMAC(HMAC(HMAC(HMAC("AWS4" + secret, YYYYMMDD), region), service), "aws4_request")
 *   Signature        = Hex(HMAC(SigningKey, StringToSign))
 *
 * Everything is computed into caller-owned ddb_buf / fixed arrays; the
 * functions are reentrant and keep no state.
 */
#ifndef DDB_SIGV4_H
#define DDB_SIGV4_H

#include <ddb/ddb.h>

#include "core/codec.h"

#define DDB_SHA256_HEX 65 /* 64 hex digits + NUL */

typedef struct ddb_sigv4_header {
    const char *name;  /* any case; canonicalised to lower case */
    const char *value; /* trimmed, inner runs of spaces collapsed to one */
} ddb_sigv4_header;

typedef struct ddb_sigv4_request {
    const char *method;    /* "POST" */
    const char *path;      /* canonical URI, already URI-encoded ("/" when empty) */
    const char *query;     /* "a=1&b=2" already URI-encoded, "" or NULL when none; pairs get sorted */
    const ddb_sigv4_header *headers; /* every header to sign (host and x-amz-date included) */
    size_t n_headers;
    const void *payload;
    size_t payload_len;
    const char *payload_hash; /* NULL = hex SHA-256 of payload; or e.g. "UNSIGNED-PAYLOAD" */
} ddb_sigv4_request;

typedef struct ddb_sigv4_key {
    const char *access_key_id;
    const char *secret_access_key;
    const char *region;  /* "us-east-1" */
    const char *service; /* "dynamodb" */
} ddb_sigv4_key;

/* Hex SHA-256 of data. */
void ddbi_sha256_hex(const void *data, size_t len, char out[DDB_SHA256_HEX]);

/* The canonical request text (appended to out, NUL-terminated) and the
 * signed headers list ("content-type;host;x-amz-date", also appended to
 * signed_headers when not NULL).  DDB_EINVAL for a header without a name
 * or more than 64 headers, DDB_ENOMEM. */
int ddbi_sigv4_canonical_request(const ddb_sigv4_request *req, ddb_buf *out, ddb_buf *signed_headers,
                                ddb_error *err);

/* The derived signing key for date "YYYYMMDD". */
int ddbi_sigv4_signing_key(const ddb_sigv4_key *key, const char *date8, unsigned char out[32], ddb_error *err);

/* Sign: fills the Authorization header value ("AWS4-HMAC-SHA256
 * Credential=AKID/20150830/us-east-1/iam/aws4_request, SignedHeaders=...,
 * Signature=...") into auth (NUL-terminated).  amz_date is the request's
 * X-Amz-Date ("20150830T123600Z"), which must also be among the signed
 * headers.  string_to_sign, when not NULL, receives that text (tests).
 * DDB_EINVAL for a malformed date or missing key parts, DDB_ENOMEM. */
int ddbi_sigv4_sign(const ddb_sigv4_request *req, const ddb_sigv4_key *key, const char *amz_date, ddb_buf *auth,
                   ddb_buf *string_to_sign, ddb_error *err);

/* X-Amz-Date for a Unix time: "YYYYMMDDTHHMMSSZ". */
void ddbi_sigv4_amz_date(long long unix_seconds, char out[17]);

#endif
