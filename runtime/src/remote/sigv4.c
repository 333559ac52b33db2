/* AWS Signature Version 4 on OpenSSL (see sigv4.h). */
#include "remote/sigv4.h"

#include "core/error.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_HEADERS 64
#define MAX_QUERY_PAIRS 128

static void hex(const unsigned char *p, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[p[i] >> 4];
        out[2 * i + 1] = digits[p[i] & 15];
    }
    out[2 * n] = '\0';
}

void ddbi_sha256_hex(const void *data, size_t len, char out[DDB_SHA256_HEX])
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    if (!EVP_Digest(data, len, md, &mdlen, EVP_sha256(), NULL) || mdlen != 32) {
        memset(out, '0', 64); /* cannot happen with a working libcrypto; the server will reject it */
        out[64] = '\0';
        return;
    }
    hex(md, 32, out);
}

static int hmac(const void *key, size_t klen, const void *data, size_t dlen, unsigned char out[32])
{
    unsigned int n = 0;
    if (!HMAC(EVP_sha256(), key, (int)klen, data, dlen, out, &n) || n != 32)
        return DDB_ENOMEM;
    return DDB_OK;
}

static int puts_buf(ddb_buf *b, const char *s)
{
    return ddbi_buf_put(b, s, strlen(s));
}

/* Finish a text buffer with a NUL that is not counted in len. */
static int terminate(ddb_buf *b)
{
    if (ddbi_buf_put(b, "", 1))
        return DDB_ENOMEM;
    b->len--;
    return DDB_OK;
}

typedef struct hdr {
    char name[128];
    const char *value;
    size_t order; /* input position: keeps duplicates in request order */
} hdr;

static int hdr_cmp(const void *x, const void *y)
{
    const hdr *a = x, *b = y;
    int c = strcmp(a->name, b->name);
    return c ? c : (a->order > b->order) - (a->order < b->order);
}

/* Value with leading/trailing spaces removed and inner runs collapsed. */
static int put_trimmed(ddb_buf *b, const char *v)
{
    while (*v == ' ' || *v == '\t')
        v++;
    bool space = false;
    for (; *v; v++) {
        if (*v == ' ' || *v == '\t') {
            space = true;
            continue;
        }
        if (space && ddbi_buf_put(b, " ", 1))
            return DDB_ENOMEM;
        space = false;
        if (ddbi_buf_put(b, v, 1))
            return DDB_ENOMEM;
    }
    return DDB_OK;
}

typedef struct qpair {
    const char *s;
    size_t len, name_len;
} qpair;

static int qpair_cmp(const void *x, const void *y)
{
    const qpair *a = x, *b = y;
    size_t n = a->name_len < b->name_len ? a->name_len : b->name_len;
    int c = memcmp(a->s, b->s, n);
    if (c || a->name_len != b->name_len)
        return c ? c : (a->name_len < b->name_len ? -1 : 1);
    n = a->len < b->len ? a->len : b->len;
    c = memcmp(a->s, b->s, n);
    return c ? c : (a->len > b->len) - (a->len < b->len);
}

static int canonical_query(const char *q, ddb_buf *out, ddb_error *err)
{
    if (!q || !*q)
        return DDB_OK;
    qpair pairs[MAX_QUERY_PAIRS];
    size_t n = 0;
    for (const char *p = q; *p;) {
        const char *amp = strchr(p, '&');
        size_t len = amp ? (size_t)(amp - p) : strlen(p);
        if (len) {
            if (n == MAX_QUERY_PAIRS)
                return ddbi_fail(err, DDB_EINVAL, "SigV4: more than %d query parameters", MAX_QUERY_PAIRS);
            const char *eq = memchr(p, '=', len);
            pairs[n++] = (qpair){p, len, eq ? (size_t)(eq - p) : len};
        }
        p += len + (amp ? 1 : 0);
    }
    qsort(pairs, n, sizeof *pairs, qpair_cmp);
    for (size_t i = 0; i < n; i++) {
        if ((i && ddbi_buf_put(out, "&", 1)) || ddbi_buf_put(out, pairs[i].s, pairs[i].len) ||
            (pairs[i].name_len == pairs[i].len && ddbi_buf_put(out, "=", 1)))
            return ddbi_fail_oom(err, "signing a request");
    }
    return DDB_OK;
}

int ddbi_sigv4_canonical_request(const ddb_sigv4_request *req, ddb_buf *out, ddb_buf *signed_headers,
                                ddb_error *err)
{
    if (!req || !req->method || !out)
        return ddbi_fail(err, DDB_EINVAL, "SigV4: a request with a method is required");
    if (req->n_headers > MAX_HEADERS)
        return ddbi_fail(err, DDB_EINVAL, "SigV4: more than %d headers to sign", MAX_HEADERS);
    hdr h[MAX_HEADERS];
    for (size_t i = 0; i < req->n_headers; i++) {
        const char *name = req->headers[i].name;
        size_t len = name ? strlen(name) : 0;
        if (!len || len >= sizeof h[i].name || !req->headers[i].value)
            return ddbi_fail(err, DDB_EINVAL, "SigV4: header %zu has no name, no value or a name over 127 bytes", i);
        for (size_t k = 0; k <= len; k++)
            h[i].name[k] = (char)((name[k] >= 'A' && name[k] <= 'Z') ? name[k] - 'A' + 'a' : name[k]);
        h[i].value = req->headers[i].value;
        h[i].order = i;
    }
    qsort(h, req->n_headers, sizeof *h, hdr_cmp);

    ddb_buf sh = {0};
    int rc = DDB_ENOMEM;
    if (puts_buf(out, req->method) || puts_buf(out, "\n") ||
        puts_buf(out, req->path && *req->path ? req->path : "/") || puts_buf(out, "\n"))
        goto done;
    if ((rc = canonical_query(req->query, out, err)))
        goto done;
    rc = DDB_ENOMEM;
    if (puts_buf(out, "\n"))
        goto done;
    for (size_t i = 0; i < req->n_headers; i++) {
        bool dup = i && strcmp(h[i].name, h[i - 1].name) == 0;
        if (dup) {
            /* a repeated header: one line, values joined by commas */
            out->len--; /* drop the previous line's newline */
            if (ddbi_buf_put(out, ",", 1))
                goto done;
        } else {
            if (puts_buf(out, h[i].name) || puts_buf(out, ":"))
                goto done;
            if ((sh.len && puts_buf(&sh, ";")) || puts_buf(&sh, h[i].name))
                goto done;
        }
        if (put_trimmed(out, h[i].value) || puts_buf(out, "\n"))
            goto done;
    }
    char ph[DDB_SHA256_HEX];
    const char *payload_hash = req->payload_hash;
    if (!payload_hash) {
        ddbi_sha256_hex(req->payload ? req->payload : "", req->payload ? req->payload_len : 0, ph);
        payload_hash = ph;
    }
    if (puts_buf(out, "\n") || ddbi_buf_put(out, sh.p, sh.len) || puts_buf(out, "\n") || puts_buf(out, payload_hash) ||
        terminate(out))
        goto done;
    if (signed_headers && (ddbi_buf_put(signed_headers, sh.p, sh.len) || terminate(signed_headers)))
        goto done;
    rc = DDB_OK;
done:
    ddbi_buf_free(&sh);
    if (rc == DDB_ENOMEM)
        ddbi_fail_oom(err, "signing a request");
    return rc;
}

int ddbi_sigv4_signing_key(const ddb_sigv4_key *key, const char *date8, unsigned char out[32], ddb_error *err)
{
    if (!key || !key->secret_access_key || !key->region || !key->service || !date8 || strlen(date8) != 8)
        return ddbi_fail(err, DDB_EINVAL, "SigV4: secret key, region, service and a YYYYMMDD date are required");
    size_t slen = strlen(key->secret_access_key);
    char *k = malloc(slen + 5);
    if (!k)
        return ddbi_fail_oom(err, "signing a request");
    memcpy(k, "AWS4", 4);
    memcpy(k + 4, key->secret_access_key, slen + 1);
    unsigned char kdate[32], kregion[32], kservice[32];
    int rc = hmac(k, slen + 4, date8, 8, kdate);
    if (!rc)
        rc = hmac(kdate, 32, key->region, strlen(key->region), kregion);
    if (!rc)
        rc = hmac(kregion, 32, key->service, strlen(key->service), kservice);
    if (!rc)
        rc = hmac(kservice, 32, "aws4_request", 12, out);
    memset(k, 0, slen + 4);
    free(k);
    return rc ? ddbi_fail(err, rc, "SigV4: HMAC-SHA256 failed") : DDB_OK;
}

static bool valid_amz_date(const char *d)
{
    if (!d || strlen(d) != 16 || d[8] != 'T' || d[15] != 'Z')
        return false;
    for (int i = 0; i < 15; i++)
        if (i != 8 && (d[i] < '0' || d[i] > '9'))
            return false;
    return true;
}

int ddbi_sigv4_sign(const ddb_sigv4_request *req, const ddb_sigv4_key *key, const char *amz_date, ddb_buf *auth,
                   ddb_buf *string_to_sign, ddb_error *err)
{
    if (!key || !key->access_key_id || !*key->access_key_id || !auth)
        return ddbi_fail(err, DDB_EINVAL, "SigV4: an access key id is required");
    if (!valid_amz_date(amz_date))
        return ddbi_fail(err, DDB_EINVAL, "SigV4: X-Amz-Date \"%s\" is not YYYYMMDDTHHMMSSZ", amz_date ? amz_date : "");
    char date8[9];
    memcpy(date8, amz_date, 8);
    date8[8] = '\0';
    unsigned char skey[32];
    int rc = ddbi_sigv4_signing_key(key, date8, skey, err);
    if (rc)
        return rc;
    ddb_buf creq = {0}, sh = {0}, sts = {0};
    if ((rc = ddbi_sigv4_canonical_request(req, &creq, &sh, err)))
        goto done;
    char creq_hash[DDB_SHA256_HEX];
    ddbi_sha256_hex(creq.p, creq.len, creq_hash);
    rc = DDB_ENOMEM;
    char scope[300];
    int w = snprintf(scope, sizeof scope, "%s/%s/%s/aws4_request", date8, key->region, key->service);
    if (w < 0 || (size_t)w >= sizeof scope) {
        rc = ddbi_fail(err, DDB_EINVAL, "SigV4: region or service name too long");
        goto done;
    }
    if (puts_buf(&sts, "AWS4-HMAC-SHA256\n") || puts_buf(&sts, amz_date) || puts_buf(&sts, "\n") ||
        puts_buf(&sts, scope) || puts_buf(&sts, "\n") || puts_buf(&sts, creq_hash))
        goto nomem;
    unsigned char sig[32];
    if (hmac(skey, 32, sts.p, sts.len, sig))
        goto nomem;
    char sighex[DDB_SHA256_HEX];
    hex(sig, 32, sighex);
    if (puts_buf(auth, "AWS4-HMAC-SHA256 Credential=") || puts_buf(auth, key->access_key_id) ||
        puts_buf(auth, "/") || puts_buf(auth, scope) || puts_buf(auth, ", SignedHeaders=") ||
        ddbi_buf_put(auth, sh.p, sh.len) || puts_buf(auth, ", Signature=") || puts_buf(auth, sighex) ||
        terminate(auth))
        goto nomem;
    if (string_to_sign && (ddbi_buf_put(string_to_sign, sts.p, sts.len) || terminate(string_to_sign)))
        goto nomem;
    rc = DDB_OK;
    goto done;
nomem:
    rc = ddbi_fail_oom(err, "signing a request");
done:
    memset(skey, 0, sizeof skey);
    ddbi_buf_free(&creq);
    ddbi_buf_free(&sh);
    ddbi_buf_free(&sts);
    return rc;
}

void ddbi_sigv4_amz_date(long long unix_seconds, char out[17])
{
    time_t t = (time_t)unix_seconds;
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, 17, "%Y%m%dT%H%M%SZ", &tm);
}
