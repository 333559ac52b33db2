/* The remote backend's handle: endpoint and settings, credentials, the
 * signed call with retries and backoff, and the key schema cache. */
#include "remote/remote_wire.h"

#include "core/error.h"
#include "remote/sigv4.h"

#include <curl/curl.h>
#include <errno.h>
#include <openssl/rand.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Key attribute names of one table or index, as DescribeTable gave them. */
typedef struct rkeys {
    char *table, *index; /* index NULL: the table itself */
    char *pk, *sk;
    struct rkeys *next;
} rkeys;

struct ddb_remote {
    char *url;  /* where requests go: scheme://host[:port]/path */
    char *host; /* Host header (signed) */
    char *path; /* canonical URI */
    char *region, *access_key, *secret_key, *session_token;
    ddb_remote_options o; /* numbers resolved; strings point at the fields above */
    remote_http *http;
    pthread_mutex_t mu; /* guards keys */
    rkeys *keys;
};

/* Credentials for endpoints that check none (dynalite, a local Alternator). */
#define LOCAL_KEY_ID "ddbgen-local"
#define LOCAL_SECRET "ddbgen-local-secret"

/* ---- Settings ------------------------------------------------------------------ */

static const struct {
    const char *name;
    size_t off;
    uint32_t def, min, max;
} num_opts[] = {
    {"connect_timeout_ms", offsetof(ddb_remote_options, connect_timeout_ms), 3000, 1, 3600000},
    {"timeout_ms", offsetof(ddb_remote_options, timeout_ms), 30000, 1, 3600000},
    {"max_attempts", offsetof(ddb_remote_options, max_attempts), 10, 1, 100},
    {"retry_base_ms", offsetof(ddb_remote_options, retry_base_ms), 25, 1, 60000},
    {"retry_cap_ms", offsetof(ddb_remote_options, retry_cap_ms), 5000, 1, 600000},
    {"table_wait_ms", offsetof(ddb_remote_options, table_wait_ms), 120000, 1, 3600000},
    {"pool", offsetof(ddb_remote_options, pool), 8, 1, 1024},
};

static const struct {
    const char *name;
    size_t off;
} str_opts[] = {
    {"region", offsetof(ddb_remote_options, region)},
    {"access_key_id", offsetof(ddb_remote_options, access_key_id)},
    {"secret_access_key", offsetof(ddb_remote_options, secret_access_key)},
    {"session_token", offsetof(ddb_remote_options, session_token)},
};

#define NUM(o, i) ((uint32_t *)(void *)((char *)(o) + num_opts[i].off))
#define STR(o, i) ((const char **)(void *)((char *)(o) + str_opts[i].off))

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Percent-decode s[0..n) into a new string ('+' stays '+': secrets hold it). */
static char *pct_decode(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (!d)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '%' && i + 2 < n && hexval(s[i + 1]) >= 0 && hexval(s[i + 2]) >= 0) {
            d[o++] = (char)(hexval(s[i + 1]) * 16 + hexval(s[i + 2]));
            i += 2;
        } else {
            d[o++] = s[i];
        }
    }
    d[o] = '\0';
    return d;
}

/* Options given in the URI's query: numbers into uo, strings malloc'd into
 * strs[] (freed by the caller). */
static int parse_query(const char *q, ddb_remote_options *uo, char **strs, ddb_error *err)
{
    while (q && *q) {
        const char *amp = strchr(q, '&');
        size_t len = amp ? (size_t)(amp - q) : strlen(q);
        const char *eq = memchr(q, '=', len);
        size_t klen = eq ? (size_t)(eq - q) : len;
        if (len) {
            if (!eq)
                return ddbi_fail(err, DDB_EINVAL, "ddb_open: option \"%.*s\" has no value", (int)len, q);
            const char *v = eq + 1;
            size_t vlen = len - klen - 1;
            bool known = false;
            for (size_t i = 0; i < sizeof num_opts / sizeof *num_opts && !known; i++) {
                if (strlen(num_opts[i].name) != klen || memcmp(num_opts[i].name, q, klen) != 0)
                    continue;
                known = true;
                uint64_t x = 0;
                size_t k = 0;
                for (; k < vlen && v[k] >= '0' && v[k] <= '9' && x <= UINT32_MAX; k++)
                    x = x * 10 + (uint64_t)(v[k] - '0');
                if (!vlen || k != vlen || x < num_opts[i].min || x > num_opts[i].max)
                    return ddbi_fail(err, DDB_EINVAL, "ddb_open: option %s=%.*s is not a number in %u..%u",
                                    num_opts[i].name, (int)(vlen > 32 ? 32 : vlen), v, num_opts[i].min,
                                    num_opts[i].max);
                *NUM(uo, i) = (uint32_t)x;
            }
            for (size_t i = 0; i < sizeof str_opts / sizeof *str_opts && !known; i++) {
                if (strlen(str_opts[i].name) != klen || memcmp(str_opts[i].name, q, klen) != 0)
                    continue;
                known = true;
                free(strs[i]);
                if (!(strs[i] = pct_decode(v, vlen)))
                    return ddbi_fail_oom(err, __func__);
                *STR(uo, i) = strs[i];
            }
            if (!known)
                return ddbi_fail(err, DDB_EINVAL,
                                "ddb_open: unknown option \"%.*s\" (known: region, access_key_id, secret_access_key, "
                                "session_token, connect_timeout_ms, timeout_ms, max_attempts, retry_base_ms, "
                                "retry_cap_ms, table_wait_ms, pool)",
                                (int)(klen > 40 ? 40 : klen), q);
        }
        q = amp ? amp + 1 : NULL;
    }
    return DDB_OK;
}

static char *sdup(const char *s)
{
    return s ? strdup(s) : NULL;
}

static const char *env(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

static const char *first(const char *a, const char *b, const char *c)
{
    return a ? a : b ? b : c;
}

bool ddbi_remote_uri(const char *uri)
{
    return uri && (strncmp(uri, "http://", 7) == 0 || strncmp(uri, "https://", 8) == 0 ||
                   strncmp(uri, "dynamodb://", 11) == 0);
}

/* ---- Opening --------------------------------------------------------------------- */

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc = CURLE_OK;

static void curl_init_once(void)
{
    curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

typedef struct endpoint {
    char *scheme, *host, *port, *path, *query, *region;
} endpoint;

static void endpoint_free(endpoint *e)
{
    free(e->scheme);
    free(e->host);
    free(e->port);
    free(e->path);
    free(e->query);
    free(e->region);
}

static int parse_dynamodb_uri(const char *uri, endpoint *e, ddb_error *err)
{
    const char *p = uri + 11;
    size_t n = strcspn(p, "?/");
    if (p[n] == '/' && p[n + 1] && p[n + 1] != '?')
        return ddbi_fail(err, DDB_EINVAL, "ddb_open: \"%s\": dynamodb://REGION takes no path", uri);
    for (size_t i = 0; i < n; i++)
        if (!((p[i] >= 'a' && p[i] <= 'z') || (p[i] >= '0' && p[i] <= '9') || p[i] == '-'))
            return ddbi_fail(err, DDB_EINVAL, "ddb_open: \"%s\": \"%.*s\" is not a region name", uri, (int)n, p);
    const char *q = strchr(p, '?');
    char host[128];
    if (n > 64)
        return ddbi_fail(err, DDB_EINVAL, "ddb_open: \"%s\": region name too long", uri);
    snprintf(host, sizeof host, "dynamodb.%.*s.amazonaws.com%s", (int)n, p, strncmp(p, "cn-", 3) == 0 ? ".cn" : "");
    e->scheme = strdup("https");
    e->host = strdup(host);
    e->path = strdup("/");
    e->query = q ? strdup(q + 1) : NULL;
    e->region = n ? strndup(p, n) : NULL;
    if (!e->scheme || !e->host || !e->path || (q && !e->query) || (n && !e->region))
        return ddbi_fail_oom(err, __func__);
    return DDB_OK;
}

static int parse_http_uri(const char *uri, endpoint *e, ddb_error *err)
{
    CURLU *u = curl_url();
    if (!u)
        return ddbi_fail_oom(err, __func__);
    int rc = DDB_OK;
    CURLUcode uc = curl_url_set(u, CURLUPART_URL, uri, 0);
    char *user = NULL, *frag = NULL;
    if (uc != CURLUE_OK) {
        rc = ddbi_fail(err, DDB_EINVAL, "ddb_open: \"%s\" is not a valid URL: %s", uri, curl_url_strerror(uc));
        goto done;
    }
    if (curl_url_get(u, CURLUPART_USER, &user, 0) == CURLUE_OK) {
        rc = ddbi_fail(err, DDB_EINVAL, "ddb_open: \"%s\": credentials do not go in the URL's user part", uri);
        goto done;
    }
    if (curl_url_get(u, CURLUPART_FRAGMENT, &frag, 0) == CURLUE_OK) {
        rc = ddbi_fail(err, DDB_EINVAL, "ddb_open: \"%s\": a URL fragment is not allowed", uri);
        goto done;
    }
    char *s = NULL;
    if (curl_url_get(u, CURLUPART_SCHEME, &s, 0) == CURLUE_OK) {
        e->scheme = strdup(s);
        curl_free(s);
    }
    if (curl_url_get(u, CURLUPART_HOST, &s, 0) == CURLUE_OK) {
        e->host = strdup(s);
        curl_free(s);
    }
    if (curl_url_get(u, CURLUPART_PORT, &s, 0) == CURLUE_OK) {
        e->port = strdup(s);
        curl_free(s);
    }
    if (curl_url_get(u, CURLUPART_PATH, &s, 0) == CURLUE_OK) {
        e->path = strdup(s);
        curl_free(s);
    }
    if (curl_url_get(u, CURLUPART_QUERY, &s, 0) == CURLUE_OK) {
        e->query = strdup(s);
        curl_free(s);
    }
    if (!e->scheme || !e->host || !e->path)
        rc = ddbi_fail(err, DDB_EINVAL, "ddb_open: \"%s\" needs a scheme and a host", uri);
done:
    curl_free(user);
    curl_free(frag);
    curl_url_cleanup(u);
    return rc;
}

int ddbi_remote_open(const char *uri, const ddb_options *opts, ddb_remote **out, ddb_error *err)
{
    (void)opts; /* the embedded engine's settings (sync, map size, throttle) mean nothing here */
    return ddbi_remote_open_with(uri, NULL, out, err);
}

int ddbi_remote_open_with(const char *uri, const ddb_remote_options *ro, ddb_remote **out, ddb_error *err)
{
    if (!uri || !out)
        return ddbi_fail(err, DDB_EINVAL, "ddb_open: uri and out are required");
    *out = NULL;
    if (!ddbi_remote_uri(uri))
        return ddbi_fail(err, DDB_EINVAL, "ddb_open: \"%s\" is not an http://, https:// or dynamodb:// URI", uri);
    pthread_once(&curl_once, curl_init_once);
    if (curl_init_rc != CURLE_OK)
        return ddbi_fail(err, DDB_ENET, "ddb_open: libcurl failed to initialise: %s", curl_easy_strerror(curl_init_rc));

    endpoint e = {0};
    ddb_remote_options uo = {0};
    char *ustr[4] = {NULL, NULL, NULL, NULL};
    ddb_remote *r = NULL;
    int rc = strncmp(uri, "dynamodb://", 11) == 0 ? parse_dynamodb_uri(uri, &e, err) : parse_http_uri(uri, &e, err);
    if (!rc)
        rc = parse_query(e.query, &uo, ustr, err);
    if (rc)
        goto done;

    if (!(r = calloc(1, sizeof *r))) {
        rc = ddbi_fail_oom(err, __func__);
        goto done;
    }
    pthread_mutex_init(&r->mu, NULL);
    ddb_remote_options given = ro ? *ro : (ddb_remote_options){0};
    for (size_t i = 0; i < sizeof num_opts / sizeof *num_opts; i++) {
        uint32_t v = *NUM(&given, i) ? *NUM(&given, i) : *NUM(&uo, i) ? *NUM(&uo, i) : num_opts[i].def;
        if (v < num_opts[i].min || v > num_opts[i].max) {
            rc = ddbi_fail(err, DDB_EINVAL, "ddb_open: %s=%u is outside %u..%u", num_opts[i].name, v, num_opts[i].min,
                          num_opts[i].max);
            goto done;
        }
        *NUM(&r->o, i) = v;
    }
    /* Credentials: explicit, then URI, then environment; a session token from
     * the environment only goes with keys from the environment. */
    const char *akid = first(given.access_key_id, uo.access_key_id, NULL);
    const char *secret = first(given.secret_access_key, uo.secret_access_key, NULL);
    const char *token = first(given.session_token, uo.session_token, NULL);
    if (!akid && !secret) {
        akid = env("AWS_ACCESS_KEY_ID");
        secret = env("AWS_SECRET_ACCESS_KEY");
        if (!token)
            token = env("AWS_SESSION_TOKEN");
    }
    if (!akid != !secret) {
        rc = ddbi_fail(err, DDB_EINVAL, "ddb_open: %s is set but not %s", akid ? "the access key id" : "the secret key",
                      akid ? "the secret access key" : "the access key id");
        goto done;
    }
    if (!akid) {
        if (strcmp(e.scheme, "http") != 0) {
            rc = ddbi_fail(err, DDB_EINVAL,
                          "ddb_open: no AWS credentials for %s: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or "
                          "the access_key_id and secret_access_key options",
                          uri);
            goto done;
        }
        akid = LOCAL_KEY_ID;
        secret = LOCAL_SECRET;
        token = NULL;
    }
    const char *region = first(given.region, uo.region, e.region);
    if (!region)
        region = first(env("AWS_REGION"), env("AWS_DEFAULT_REGION"), "us-east-1");

    size_t ulen = strlen(e.scheme) + strlen(e.host) + (e.port ? strlen(e.port) : 0) + strlen(e.path) + 8;
    r->url = malloc(ulen);
    r->host = malloc(ulen);
    r->path = strdup(e.path);
    r->region = sdup(region);
    r->access_key = sdup(akid);
    r->secret_key = sdup(secret);
    r->session_token = sdup(token);
    if (!r->url || !r->host || !r->path || !r->region || !r->access_key || !r->secret_key ||
        (token && !r->session_token)) {
        rc = ddbi_fail_oom(err, __func__);
        goto done;
    }
    snprintf(r->host, ulen, "%s%s%s", e.host, e.port ? ":" : "", e.port ? e.port : "");
    snprintf(r->url, ulen, "%s://%s%s", e.scheme, r->host, e.path);
    r->o.region = r->region;
    r->o.access_key_id = r->access_key;
    r->o.secret_access_key = r->secret_key;
    r->o.session_token = r->session_token;
    /* a proxy from the environment (http_proxy) must not catch a local endpoint */
    bool loopback = strcmp(e.host, "localhost") == 0 || strncmp(e.host, "127.", 4) == 0 || strcmp(e.host, "[::1]") == 0;
    if ((rc = ddbi_remote_http_new((long)r->o.connect_timeout_ms, (long)r->o.timeout_ms, r->o.pool, loopback, &r->http,
                              err)))
        goto done;
    *out = r;
    r = NULL;
done:
    ddbi_remote_close(r);
    endpoint_free(&e);
    for (size_t i = 0; i < 4; i++)
        free(ustr[i]);
    return rc;
}

static void keys_free(rkeys *k)
{
    while (k) {
        rkeys *n = k->next;
        free(k->table);
        free(k->index);
        free(k->pk);
        free(k->sk);
        free(k);
        k = n;
    }
}

void ddbi_remote_close(void *impl)
{
    ddb_remote *r = impl;
    if (!r)
        return;
    ddbi_remote_http_free(r->http);
    keys_free(r->keys);
    pthread_mutex_destroy(&r->mu);
    if (r->secret_key)
        memset(r->secret_key, 0, strlen(r->secret_key));
    free(r->url);
    free(r->host);
    free(r->path);
    free(r->region);
    free(r->access_key);
    free(r->secret_key);
    free(r->session_token);
    free(r);
}

const char *ddbi_remote_endpoint(const ddb_remote *r)
{
    return r ? r->url : NULL;
}

/* Nothing to flush: DynamoDB acknowledges durable writes. */
int ddbi_remote_sync(void *impl, ddb_error *err)
{
    (void)impl, (void)err;
    return DDB_OK;
}

int ddbi_remote_ttl_sweep(void *impl, const char *table, int64_t now_s, uint64_t *deleted, ddb_error *err)
{
    (void)impl, (void)table, (void)now_s, (void)err;
    if (deleted)
        *deleted = 0;
    return DDB_OK;
}

int ddbi_remote_stream_trim(void *impl, const char *table, uint64_t *trimmed, ddb_error *err)
{
    (void)impl, (void)table, (void)err;
    if (trimmed)
        *trimmed = 0;
    return DDB_OK;
}

/* ---- Time and backoff ---------------------------------------------------------------- */

uint64_t ddbi_remote_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

void ddbi_remote_sleep_ms(uint32_t ms)
{
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

unsigned ddbi_remote_max_attempts(const ddb_remote *r)
{
    return r->o.max_attempts;
}

uint32_t ddbi_remote_table_wait_ms(const ddb_remote *r)
{
    return r->o.table_wait_ms;
}

void ddbi_remote_backoff(const ddb_remote *r, unsigned attempt)
{
    /* "Full jitter": uniform in [0, min(cap, base * 2^attempt)]. */
    uint64_t ceiling = r->o.retry_base_ms;
    for (unsigned i = 0; i < attempt && ceiling < r->o.retry_cap_ms; i++)
        ceiling *= 2;
    if (ceiling > r->o.retry_cap_ms)
        ceiling = r->o.retry_cap_ms;
    uint32_t rnd;
    if (RAND_bytes((unsigned char *)&rnd, sizeof rnd) != 1)
        rnd = (uint32_t)ddbi_remote_now_ms() * 2654435761u;
    ddbi_remote_sleep_ms((uint32_t)(rnd % (ceiling + 1)));
}

/* ---- The call ----------------------------------------------------------------------- */

static void append_msg(ddb_error *err, const char *fmt, unsigned n)
{
    if (!err)
        return;
    size_t l = strlen(err->message);
    if (l < sizeof err->message - 1)
        snprintf(err->message + l, sizeof err->message - l, fmt, n);
}

/* Sign and send one attempt. */
static int send_once(ddb_remote *r, const char *op, const char *body, size_t len, remote_reply *rep, ddb_error *err)
{
    char target[96], amz_date[17];
    snprintf(target, sizeof target, "DynamoDB_20120810.%s", op);
    ddbi_sigv4_amz_date((long long)time(NULL), amz_date);
    ddb_sigv4_header sh[5] = {{"content-type", "application/x-amz-json-1.0"},
                              {"host", r->host},
                              {"x-amz-date", amz_date},
                              {"x-amz-target", target},
                              {"x-amz-security-token", r->session_token}};
    size_t nsh = r->session_token ? 5 : 4;
    ddb_sigv4_request req = {"POST", r->path, "", sh, nsh, body, len, NULL};
    ddb_sigv4_key key = {r->access_key, r->secret_key, r->region, "dynamodb"};
    ddb_buf auth = {0};
    int rc = ddbi_sigv4_sign(&req, &key, amz_date, &auth, NULL, err);
    if (rc) {
        ddbi_buf_free(&auth);
        return rc;
    }
    size_t hcap = strlen(r->host) + (r->session_token ? strlen(r->session_token) : 0) + auth.len + 256;
    char *hb = malloc(hcap * 2);
    if (!hb) {
        ddbi_buf_free(&auth);
        return ddbi_fail_oom(err, __func__);
    }
    const char *lines[6];
    size_t n = 0, off = 0;
#define LINE(...)                                                                                                  \
    do {                                                                                                           \
        lines[n++] = hb + off;                                                                                     \
        off += (size_t)snprintf(hb + off, hcap * 2 - off, __VA_ARGS__) + 1;                                        \
    } while (0)
    LINE("Content-Type: application/x-amz-json-1.0");
    LINE("Host: %s", r->host);
    LINE("X-Amz-Date: %s", amz_date);
    LINE("X-Amz-Target: %s", target);
    LINE("Authorization: %s", (const char *)auth.p);
    if (r->session_token)
        LINE("X-Amz-Security-Token: %s", r->session_token);
#undef LINE
    rc = ddbi_remote_http_post(r->http, r->url, lines, n, body, len, rep, err);
    free(hb);
    ddbi_buf_free(&auth);
    return rc;
}

int ddbi_remote_call(ddb_remote *r, const char *op, const json_t *req, json_t **resp, json_t **errbody, ddb_error *err)
{
    *resp = NULL;
    if (errbody)
        *errbody = NULL;
    char *body = json_dumps(req, JSON_COMPACT);
    if (!body)
        return ddbi_fail_oom(err, op);
    size_t len = strlen(body);
    bool no_output = strcmp(op, "TagResource") == 0 || strcmp(op, "UntagResource") == 0;
    int rc;
    for (unsigned attempt = 1;; attempt++) {
        remote_reply rep;
        if ((rc = send_once(r, op, body, len, &rep, err)))
            break;
        if (rep.status == 200 && no_output) {
            /* TagResource and UntagResource answer with no body (dynalite: "") */
            rc = (*resp = json_object()) ? DDB_OK : ddbi_fail_oom(err, __func__);
            ddbi_remote_reply_free(&rep);
            break;
        }
        if (rep.status == 200) {
            rc = ddbi_remote_parse_body(op, (const char *)rep.body.p, rep.body.len, resp, err);
            ddbi_remote_reply_free(&rep);
            break;
        }
        remote_fault f;
        json_t *eb = NULL;
        rc = ddbi_remote_parse_error(op, rep.status, (const char *)rep.body.p, rep.body.len, &f, &eb, err);
        ddbi_remote_reply_free(&rep);
        if (f.retry && attempt < r->o.max_attempts) {
            json_decref(eb);
            ddbi_remote_backoff(r, attempt);
            continue;
        }
        if (f.retry)
            append_msg(err, " (gave up after %u attempts)", attempt);
        if (errbody)
            *errbody = eb;
        else
            json_decref(eb);
        break;
    }
    free(body);
    return rc;
}

/* ---- Key schema cache --------------------------------------------------------------- */

static rkeys *find_keys(rkeys *k, const char *table, const char *index)
{
    for (; k; k = k->next)
        if (strcmp(k->table, table) == 0 && (index ? k->index && strcmp(k->index, index) == 0 : !k->index))
            return k;
    return NULL;
}

static bool table_cached(rkeys *k, const char *table)
{
    return find_keys(k, table, NULL) != NULL;
}

static rkeys *keys_new(const char *table, const char *index, const ddb_key_schema *ks)
{
    rkeys *k = calloc(1, sizeof *k);
    if (!k)
        return NULL;
    k->table = sdup(table);
    k->index = sdup(index);
    k->pk = sdup(ks->pk);
    k->sk = sdup(ks->sk);
    if (!k->table || (index && !k->index) || !k->pk || (ks->sk && !k->sk)) {
        keys_free(k);
        return NULL;
    }
    return k;
}

/* Describe table and (re)place its entries in the cache. */
static int load_keys(ddb_remote *r, const char *table, ddb_error *err)
{
    ddb_arena *a = ddb_arena_new();
    if (!a)
        return ddbi_fail_oom(err, __func__);
    ddb_table_desc *d;
    int rc = ddbi_remote_describe(r, table, a, &d, false, err);
    rkeys *fresh = NULL;
    if (!rc) {
        fresh = keys_new(table, NULL, &d->def.key);
        for (size_t i = 0; fresh && i < d->def.n_indexes; i++) {
            rkeys *k = keys_new(table, d->def.indexes[i].name, &d->def.indexes[i].key);
            if (!k) {
                keys_free(fresh);
                fresh = NULL;
                break;
            }
            k->next = fresh;
            fresh = k;
        }
        if (!fresh)
            rc = ddbi_fail_oom(err, __func__);
    }
    ddb_arena_free(a);
    if (rc)
        return rc;
    ddbi_remote_forget_table(r, table);
    pthread_mutex_lock(&r->mu);
    rkeys *last = fresh;
    while (last->next)
        last = last->next;
    last->next = r->keys;
    r->keys = fresh;
    pthread_mutex_unlock(&r->mu);
    return DDB_OK;
}

void ddbi_remote_forget_table(ddb_remote *r, const char *table)
{
    pthread_mutex_lock(&r->mu);
    for (rkeys **pp = &r->keys; *pp;) {
        rkeys *k = *pp;
        if (strcmp(k->table, table) == 0) {
            *pp = k->next;
            k->next = NULL;
            keys_free(k);
        } else {
            pp = &k->next;
        }
    }
    pthread_mutex_unlock(&r->mu);
}

int ddbi_remote_key_names(ddb_remote *r, const char *table, const char *index, ddb_arena *a, const char **pk,
                          const char **sk, ddb_error *err)
{
    for (int pass = 0; pass < 2; pass++) {
        pthread_mutex_lock(&r->mu);
        rkeys *k = find_keys(r->keys, table, index);
        bool known_table = table_cached(r->keys, table), found = k != NULL, ok = true;
        if (k) {
            *pk = ddb_arena_strdup(a, k->pk);
            *sk = ddb_arena_strdup(a, k->sk);
            ok = *pk && (!k->sk || *sk);
        }
        pthread_mutex_unlock(&r->mu);
        if (found)
            return ok ? DDB_OK : ddbi_fail_oom(err, __func__);
        if (pass == 1 || (known_table && !index))
            break;
        /* unknown table, or an index created since it was cached */
        int rc = load_keys(r, table, err);
        if (rc)
            return rc;
    }
    return ddbi_fail(err, DDB_EVALIDATION, "The table %s does not have the specified index: %s", table,
                    index ? index : "");
}
