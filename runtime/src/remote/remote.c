/* remote/: the remote backend's handle: endpoint and settings (options,
 * URI, environment and profile: remote_config.h), credentials (the
 * chain's cache, cred.h), the retry mode's state (retry.h), opening and
 * closing.  The signed call is remote_call.c, the key schema cache
 * remote_keys.c. */
#include "remote/remote_wire.h"

#include "core/clock.h"
#include "core/error.h"
#include "remote/cred.h"
#include "remote/remote_config.h"
#include "remote/retry.h"
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
    {"profile", offsetof(ddb_remote_options, profile)},
    {"retry_mode", offsetof(ddb_remote_options, retry_mode)},
};
#define N_STR_OPTS (sizeof str_opts / sizeof *str_opts)

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
                                "ddb_open: unknown option \"%.*s\" (known: region, profile, access_key_id, "
                                "secret_access_key, session_token, retry_mode, connect_timeout_ms, timeout_ms, max_attempts, retry_base_ms, "
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

static int parse_dynamodb_uri(const char *uri, const ddbi_remote_config *cfg, endpoint *e, ddb_error *err)
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
    char region[65];
    snprintf(region, sizeof region, "%.*s", (int)n, p);
    ddbi_remote_dynamodb_host(region, ddbi_remote_config_flag(cfg, "AWS_USE_FIPS_ENDPOINT", "use_fips_endpoint"),
                              ddbi_remote_config_flag(cfg, "AWS_USE_DUALSTACK_ENDPOINT", "use_dualstack_endpoint"), host,
                              sizeof host);
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

/* DynamoDB Streams' endpoint: streams.dynamodb.REGION.amazonaws.com
 * (.com.cn in China) for dynamodb://REGION; a URL given by the user (a
 * local server, a proxy) serves both APIs. */
static int streams_endpoint(ddb_remote *r, const endpoint *e, bool aws, ddb_error *err)
{
    char host[160];
    if (aws)
        snprintf(host, sizeof host, "streams.dynamodb.%s.amazonaws.com%s", r->region,
                 strncmp(r->region, "cn-", 3) == 0 ? ".cn" : "");
    size_t n = strlen(aws ? host : r->host) + strlen(e->path) + 16;
    r->streams_host = strdup(aws ? host : r->host);
    r->streams_path = strdup(aws ? "/" : e->path);
    r->streams_url = malloc(n);
    if (!r->streams_host || !r->streams_path || !r->streams_url)
        return ddbi_fail_oom(err, __func__);
    snprintf(r->streams_url, n, "%s://%s%s", aws ? "https" : e->scheme, r->streams_host, r->streams_path);
    return DDB_OK;
}

int ddbi_remote_open(const char *uri, const ddb_options *opts, ddb_remote **out, ddb_error *err)
{
    /* of the embedded engine's settings only the clock means something here */
    ddb_remote_options ro = {.clock_ms = opts ? opts->clock_ms : NULL, .clock_ctx = opts ? opts->clock_ctx : NULL};
    return ddbi_remote_open_with(uri, &ro, out, err);
}

/* The region when neither the options nor the URI give one. */
static const char *config_region(const ddbi_remote_config *cfg)
{
    return first(ddbi_env("AWS_REGION"), ddbi_env("AWS_DEFAULT_REGION"),
                 first(ddbi_profile_get(&cfg->profile, "region"), "us-east-1", NULL));
}

/* Numbers: explicit, URI, then (max_attempts only) the environment and the
 * profile, then the default of the retry mode. */
static int resolve_numbers(ddb_remote *r, const ddb_remote_options *given, const ddb_remote_options *uo,
                           const ddbi_remote_config *cfg, ddbi_retry_mode mode, ddb_error *err)
{
    for (size_t i = 0; i < sizeof num_opts / sizeof *num_opts; i++) {
        uint32_t v = *NUM(given, i) ? *NUM(given, i) : *NUM(uo, i);
        const char *name = num_opts[i].name;
        if (!v && strcmp(name, "max_attempts") == 0) {
            const char *s = ddbi_remote_config_get(cfg, "AWS_MAX_ATTEMPTS", "max_attempts");
            char *end = NULL;
            unsigned long x = s ? strtoul(s, &end, 10) : 0;
            if (s && (*end || !x || x > num_opts[i].max))
                return ddbi_fail(err, DDB_EINVAL, "ddb_open: max_attempts=%.20s (AWS_MAX_ATTEMPTS or the profile) is "
                                 "not a number in 1..%u", s, num_opts[i].max);
            v = s ? (uint32_t)x : mode == DDBI_RETRY_LEGACY ? num_opts[i].def : 3;
        }
        if (!v && strcmp(name, "retry_cap_ms") == 0 && mode != DDBI_RETRY_LEGACY)
            v = 20000;
        if (!v)
            v = num_opts[i].def;
        if (v < num_opts[i].min || v > num_opts[i].max)
            return ddbi_fail(err, DDB_EINVAL, "ddb_open: %s=%u is outside %u..%u", name, v, num_opts[i].min,
                             num_opts[i].max);
        *NUM(&r->o, i) = v;
    }
    return DDB_OK;
}

/* Credentials: explicit (options, then URI), else the chain. */
static int resolve_creds(ddb_remote *r, const ddb_remote_options *given, const ddb_remote_options *uo,
                         const ddbi_remote_config *cfg, bool local, ddb_error *err)
{
    const char *akid = first(given->access_key_id, uo->access_key_id, NULL);
    const char *secret = first(given->secret_access_key, uo->secret_access_key, NULL);
    const char *token = first(given->session_token, uo->session_token, NULL);
    if (!akid != !secret)
        return ddbi_fail(err, DDB_EINVAL, "ddb_open: %s is set but not %s",
                         akid ? "the access key id" : "the secret key",
                         akid ? "the secret access key" : "the access key id");
    ddbi_cred_ctx ctx = {&cfg->files, r->profile, cfg->profile_named, r->region, 5000, local};
    ddbi_creds ex = {0};
    int rc = akid ? ddbi_creds_set(&ex, "explicit settings", akid, secret, token, 0, err) : DDB_OK;
    if (!rc)
        rc = ddbi_cred_chain_open(&ctx, akid ? &ex : NULL, local, &r->creds, err);
    if (!rc && !r->creds) { /* a local endpoint that checks none */
        rc = ddbi_creds_set(&ex, "local", LOCAL_KEY_ID, LOCAL_SECRET, NULL, 0, err);
        if (!rc)
            rc = ddbi_cred_chain_open(&ctx, &ex, false, &r->creds, err);
    }
    ddbi_creds_clear(&ex);
    return rc;
}

int ddbi_remote_open_with(const char *uri, const ddb_remote_options *ro, ddb_remote **out, ddb_error *err)
{
    if (!out)
        return ddbi_fail(err, DDB_EINVAL, "ddb_open: out is required");
    *out = NULL;
    if (uri && !ddbi_remote_uri(uri))
        return ddbi_fail(err, DDB_EINVAL, "ddb_open: \"%s\" is not an http://, https:// or dynamodb:// URI", uri);
    pthread_once(&curl_once, curl_init_once);
    if (curl_init_rc != CURLE_OK)
        return ddbi_fail(err, DDB_ENET, "ddb_open: libcurl failed to initialise: %s", curl_easy_strerror(curl_init_rc));

    endpoint e = {0};
    ddb_remote_options uo = {0};
    char *ustr[N_STR_OPTS] = {0};
    ddb_remote *r = NULL;
    ddbi_remote_config cfg;
    bool have_cfg = false;
    char *uri_buf = NULL;
    ddb_remote_options given = ro ? *ro : (ddb_remote_options){0};
    int rc = uri && strchr(uri, '?') ? parse_query(strchr(uri, '?') + 1, &uo, ustr, err) : DDB_OK;
    if (!rc && !(rc = ddbi_remote_config_load(first(given.profile, uo.profile, NULL), &cfg, err)))
        have_cfg = true;
    if (rc)
        goto done;
    const char *region = first(given.region, uo.region, NULL);
    if (!uri) { /* the endpoint from the configuration, else DynamoDB in the region */
        const char *ep = ddbi_remote_config_endpoint(&cfg);
        const char *reg = first(region, config_region(&cfg), NULL);
        size_t n = (ep ? strlen(ep) : strlen(reg)) + 16;
        if (!(uri_buf = malloc(n))) {
            rc = ddbi_fail_oom(err, __func__);
            goto done;
        }
        snprintf(uri_buf, n, ep ? "%s" : "dynamodb://%s", ep ? ep : reg);
        uri = uri_buf;
        if (!ddbi_remote_uri(uri)) {
            rc = ddbi_fail(err, DDB_EINVAL, "ddb_open: the configured endpoint \"%s\" is not an http:// or https:// URL",
                           uri);
            goto done;
        }
    }
    rc = strncmp(uri, "dynamodb://", 11) == 0 ? parse_dynamodb_uri(uri, &cfg, &e, err) : parse_http_uri(uri, &e, err);
    if (rc)
        goto done;
    const char *mode_s = first(given.retry_mode, uo.retry_mode, ddbi_remote_config_get(&cfg, "AWS_RETRY_MODE", "retry_mode"));
    ddbi_retry_mode mode = DDBI_RETRY_LEGACY;
    if (mode_s && ddbi_retry_mode_parse(mode_s, &mode)) {
        rc = ddbi_fail(err, DDB_EINVAL, "ddb_open: retry_mode \"%.40s\" is not legacy, standard or adaptive", mode_s);
        goto done;
    }
    if (!(r = calloc(1, sizeof *r))) {
        rc = ddbi_fail_oom(err, __func__);
        goto done;
    }
    pthread_mutex_init(&r->mu, NULL);
    if ((rc = resolve_numbers(r, &given, &uo, &cfg, mode, err)) || (rc = ddbi_retry_new(mode, &r->retry, err)))
        goto done;
    if (!region)
        region = first(e.region, config_region(&cfg), NULL);

    size_t ulen = strlen(e.scheme) + strlen(e.host) + (e.port ? strlen(e.port) : 0) + strlen(e.path) + 8;
    r->url = malloc(ulen);
    r->host = malloc(ulen);
    r->path = strdup(e.path);
    r->region = sdup(region);
    r->profile = sdup(cfg.profile.name);
    r->retry_mode = sdup(mode == DDBI_RETRY_LEGACY ? "legacy" : mode == DDBI_RETRY_STANDARD ? "standard" : "adaptive");
    if (!r->url || !r->host || !r->path || !r->region || !r->profile || !r->retry_mode) {
        rc = ddbi_fail_oom(err, __func__);
        goto done;
    }
    snprintf(r->host, ulen, "%s%s%s", e.host, e.port ? ":" : "", e.port ? e.port : "");
    snprintf(r->url, ulen, "%s://%s%s", e.scheme, r->host, e.path);
    if ((rc = streams_endpoint(r, &e, strncmp(uri, "dynamodb://", 11) == 0, err)))
        goto done;
    r->o.region = r->region;
    r->o.profile = r->profile;
    r->o.retry_mode = r->retry_mode;
    r->o.on_request = given.on_request;
    r->o.on_request_ctx = given.on_request_ctx;
    r->o.clock_ms = given.clock_ms;
    r->o.clock_ctx = given.clock_ctx;
    if ((rc = resolve_creds(r, &given, &uo, &cfg, strcmp(e.scheme, "http") == 0, err)))
        goto done;
    /* a proxy from the environment (http_proxy) must not catch a local endpoint */
    bool loopback = strcmp(e.host, "localhost") == 0 || strncmp(e.host, "127.", 4) == 0 || strcmp(e.host, "[::1]") == 0;
    if ((rc = ddbi_remote_http_new((long)r->o.connect_timeout_ms, (long)r->o.timeout_ms, r->o.pool, loopback, &r->http,
                              err)))
        goto done;
    const char *ca = ddbi_remote_config_get(&cfg, "AWS_CA_BUNDLE", "ca_bundle");
    if (ca && (rc = ddbi_remote_http_set_ca(r->http, ca, err)))
        goto done;
    *out = r;
    r = NULL;
done:
    ddbi_remote_close(r);
    endpoint_free(&e);
    if (have_cfg)
        ddbi_remote_config_free(&cfg);
    for (size_t i = 0; i < N_STR_OPTS; i++)
        free(ustr[i]);
    free(uri_buf);
    return rc;
}

void ddbi_remote_close(void *impl)
{
    ddb_remote *r = impl;
    if (!r)
        return;
    ddbi_remote_http_free(r->http);
    ddbi_remote_keys_free(r->keys);
    pthread_mutex_destroy(&r->mu);
    ddbi_cred_cache_free(r->creds);
    ddbi_retry_free(r->retry);
    free(r->url);
    free(r->host);
    free(r->path);
    free(r->streams_url);
    free(r->streams_host);
    free(r->streams_path);
    free(r->region);
    free(r->profile);
    free(r->retry_mode);
    free(r);
}

const char *ddbi_remote_endpoint(const ddb_remote *r)
{
    return r ? r->url : NULL;
}

const char *ddbi_remote_region(const ddb_remote *r)
{
    return r ? r->region : NULL;
}

struct ddbi_retry *ddbi_remote_retry(const ddb_remote *r)
{
    return r->retry;
}

const char *ddbi_remote_cred_source(const ddb_remote *r)
{
    return r ? ddbi_cred_cache_source(r->creds) : NULL;
}

/* Nothing to flush: DynamoDB acknowledges durable writes. */
int ddbi_remote_sync(void *impl, ddb_error *err)
{
    (void)impl, (void)err;
    return DDB_OK;
}

int64_t ddbi_remote_clock_ms(const void *impl)
{
    const ddb_remote *r = impl;
    return r->o.clock_ms ? r->o.clock_ms(r->o.clock_ctx) : ddbi_clock_system_ms();
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
