/* ddb serve --auth FILE: the access keys the server accepts, and the SigV4
 * check of every request against them (libddb's signer computes the
 * signature the client should have sent: ddb_sigv4_signature()).  Errors
 * answer as DynamoDB does (CommonErrors: MissingAuthenticationToken,
 * IncompleteSignature, UnrecognizedClient, InvalidSignature; a request
 * time more than 15 minutes off the server's clock is an
 * InvalidSignatureException "Signature expired").  The headers that say
 * what the request does must be signed (SigV4: host and x-amz-date always;
 * every x-amz-* header sent, so X-Amz-Target, the operation, and
 * X-Amz-Content-Sha256); the body is always bound, since the payload hash
 * is computed from the body received.  Calls libddb only. */
#include "serve.h"

#include <ddb/remote.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_KEYS 1024
#define MAX_SIGNED 32

typedef struct key_pair {
    char *id, *secret;
} key_pair;

struct serve_keys {
    key_pair k[MAX_KEYS];
    size_t n;
};

void auth_free(serve_keys *k)
{
    if (!k)
        return;
    for (size_t i = 0; i < k->n; i++) {
        free(k->k[i].id);
        free(k->k[i].secret);
    }
    free(k);
}

serve_keys *auth_load(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        return NULL;
    }
    serve_keys *k = calloc(1, sizeof *k);
    char line[1024];
    unsigned no = 0;
    bool ok = k != NULL;
    while (ok && fgets(line, sizeof line, f)) {
        no++;
        char id[256], secret[256], extra[2];
        char *p = line;
        while (isspace((unsigned char)*p))
            p++;
        if (!*p || *p == '#')
            continue;
        int n = sscanf(p, "%255s %255s %1s", id, secret, extra);
        if (n != 2 || k->n == MAX_KEYS) {
            fprintf(stderr, "%s:%u: expected \"ACCESS_KEY_ID SECRET_ACCESS_KEY\"%s\n", path, no,
                    k->n == MAX_KEYS ? " (at most 1024 keys)" : "");
            ok = false;
            break;
        }
        k->k[k->n].id = strdup(id);
        k->k[k->n].secret = strdup(secret);
        ok = k->k[k->n].id && k->k[k->n].secret;
        k->n++;
    }
    fclose(f);
    if (ok && k->n == 0) {
        fprintf(stderr, "%s: no access keys\n", path);
        ok = false;
    }
    if (!ok) {
        auth_free(k);
        return NULL;
    }
    return k;
}

/* Copy the text of "Name=value" (up to ',' or the end) out of an Authorization header. */
static bool field(const char *auth, const char *name, char *out, size_t cap)
{
    const char *p = strstr(auth, name);
    if (!p)
        return false;
    p += strlen(name);
    size_t n = strcspn(p, ", ");
    if (n == 0 || n >= cap)
        return false;
    memcpy(out, p, n);
    out[n] = '\0';
    return true;
}

static int deny(serve_reply *out, const char *type, const char *msg)
{
    serve_error_reply(out, 400, type, msg, NULL);
    return -1;
}

static time_t amz_time(const char *d)
{
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    if (strlen(d) != 16 || sscanf(d, "%4d%2d%2dT%2d%2d%2dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                                  &tm.tm_min, &tm.tm_sec) != 6)
        return (time_t)-1;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    return timegm(&tm);
}

int auth_check(const server *s, const char *method, const char *path, auth_header_fn header, void *ctx,
               const char *body, size_t len, serve_reply *out)
{
    const char *auth = header(ctx, "Authorization");
    if (!auth)
        return deny(out, "MissingAuthenticationTokenException", "Request is missing Authentication Token");
    char cred[512], signed_list[1024], sig[128];
    if (strncmp(auth, "AWS4-HMAC-SHA256 ", 17) != 0 || !field(auth, "Credential=", cred, sizeof cred) ||
        !field(auth, "SignedHeaders=", signed_list, sizeof signed_list) || !field(auth, "Signature=", sig, sizeof sig))
        return deny(out, "IncompleteSignatureException",
                    "Authorization header requires 'Credential', 'Signature' and 'SignedHeaders' parameters "
                    "(AWS4-HMAC-SHA256)");
    /* Credential=AKID/YYYYMMDD/region/service/aws4_request */
    char *parts[5];
    size_t np = 0;
    for (char *p = cred, *save = NULL; np < 5 && (p = strtok_r(p, "/", &save)); p = NULL)
        parts[np++] = p;
    if (np != 5 || strcmp(parts[4], "aws4_request") != 0)
        return deny(out, "IncompleteSignatureException", "Credential should be scoped to a valid region and service");
    const key_pair *key = NULL;
    for (size_t i = 0; i < s->keys->n && !key; i++)
        if (strcmp(s->keys->k[i].id, parts[0]) == 0)
            key = &s->keys->k[i];
    if (!key)
        return deny(out, "UnrecognizedClientException", "The security token included in the request is invalid.");
    const char *date = header(ctx, "X-Amz-Date");
    time_t t = date ? amz_time(date) : (time_t)-1;
    if (t == (time_t)-1)
        return deny(out, "IncompleteSignatureException", "Authorization header requires existence of either a "
                                                         "'X-Amz-Date' or a 'Date' header.");
    time_t now = time(NULL);
    if (t < now - 15 * 60 || t > now + 15 * 60) {
        char msg[200];
        snprintf(msg, sizeof msg, "Signature expired: %s is now earlier or later than 15 minutes from the server's "
                                  "time.",
                 date);
        return deny(out, "InvalidSignatureException", msg);
    }
    /* the headers that must be signed when the request carries them
     * (host and x-amz-date always: a request without them has failed above
     * or fails on the missing header) */
    static const char *const must_sign[] = {"host", "x-amz-date", "x-amz-target", "x-amz-content-sha256",
                                            "x-amz-security-token"};
    enum { N_MUST = sizeof must_sign / sizeof *must_sign };
    bool signed_ok[N_MUST] = {false};
    ddb_http_header h[MAX_SIGNED];
    size_t nh = 0;
    for (char *p = signed_list, *save = NULL; (p = strtok_r(p, ";", &save)); p = NULL) {
        for (size_t i = 0; i < N_MUST; i++)
            signed_ok[i] |= strcmp(p, must_sign[i]) == 0;
        const char *v = header(ctx, p);
        if (nh == MAX_SIGNED || !v)
            return deny(out, "InvalidSignatureException",
                        "The request signature we calculated does not match the signature you provided. Check your "
                        "AWS Secret Access Key and signing method. Consult the service documentation for details.");
        h[nh++] = (ddb_http_header){p, v};
    }
    for (size_t i = 0; i < N_MUST; i++)
        if (!signed_ok[i] && (i < 2 || header(ctx, must_sign[i]))) {
            char msg[200];
            snprintf(msg, sizeof msg, "'%s' must be a signed header: it is missing from SignedHeaders", must_sign[i]);
            return deny(out, "IncompleteSignatureException", msg);
        }
    ddb_sigv4_input in = {method, path, NULL, h, nh, body, len, key->id, key->secret, parts[2], parts[3], date};
    char want[65];
    ddb_error e;
    if (ddb_sigv4_signature(&in, want, &e))
        return deny(out, "IncompleteSignatureException", e.message);
    /* compare without an early exit */
    unsigned diff = strlen(sig) != 64;
    for (size_t i = 0; i < 64 && sig[i]; i++)
        diff |= (unsigned)(sig[i] ^ want[i]);
    if (diff)
        return deny(out, "InvalidSignatureException",
                    "The request signature we calculated does not match the signature you provided. Check your AWS "
                    "Secret Access Key and signing method. Consult the service documentation for details.");
    return 0;
}
