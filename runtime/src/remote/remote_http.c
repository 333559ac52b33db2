/* remote/: HTTP transport of the remote backend: a pool of libcurl easy handles.
 *
 * An easy handle keeps its connections open between transfers, so taking
 * one from the pool reuses a live connection to the endpoint.  A handle is
 * used by one thread at a time: threads take one from the pool (or make a
 * new one when the pool is empty, so nobody waits) and give it back;
 * handles beyond the pool size are closed on return.
 * May call core/ and expr/. */
#include "remote/remote_wire.h"

#include "core/error.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

struct remote_http {
    pthread_mutex_t mu;
    CURL **idle;
    size_t n_idle, cap;
    long connect_ms, timeout_ms;
    bool direct; /* a loopback endpoint: never through a proxy from the environment */
    char *ca;    /* CA bundle (AWS_CA_BUNDLE) or NULL: libcurl's default */
};

int ddbi_remote_http_new(long connect_timeout_ms, long timeout_ms, unsigned pool, bool direct, remote_http **out,
                         ddb_error *err)
{
    remote_http *h = calloc(1, sizeof *h);
    if (!h || !(h->idle = calloc(pool ? pool : 1, sizeof *h->idle))) {
        free(h);
        return ddbi_fail_oom(err, __func__);
    }
    pthread_mutex_init(&h->mu, NULL);
    h->cap = pool ? pool : 1;
    h->connect_ms = connect_timeout_ms;
    h->timeout_ms = timeout_ms;
    h->direct = direct;
    *out = h;
    return DDB_OK;
}

void ddbi_remote_http_free(remote_http *h)
{
    if (!h)
        return;
    for (size_t i = 0; i < h->n_idle; i++)
        curl_easy_cleanup(h->idle[i]);
    free(h->idle);
    free(h->ca);
    pthread_mutex_destroy(&h->mu);
    free(h);
}

int ddbi_remote_http_set_ca(remote_http *h, const char *path, ddb_error *err)
{
    free(h->ca);
    return (h->ca = strdup(path)) ? DDB_OK : ddbi_fail_oom(err, __func__);
}

static CURL *take(remote_http *h)
{
    CURL *c = NULL;
    pthread_mutex_lock(&h->mu);
    if (h->n_idle)
        c = h->idle[--h->n_idle];
    pthread_mutex_unlock(&h->mu);
    if (c) {
        curl_easy_reset(c); /* options off; live connections stay */
        return c;
    }
    return curl_easy_init();
}

static void give_back(remote_http *h, CURL *c)
{
    pthread_mutex_lock(&h->mu);
    if (h->n_idle < h->cap) {
        h->idle[h->n_idle++] = c;
        c = NULL;
    }
    pthread_mutex_unlock(&h->mu);
    if (c)
        curl_easy_cleanup(c);
}

typedef struct sink {
    remote_reply *rep;
    bool too_large;
} sink;

static size_t on_body(char *p, size_t size, size_t n, void *ud)
{
    sink *s = ud;
    size_t len = size * n;
    if (s->rep->body.len + len > REMOTE_MAX_BODY) {
        s->too_large = true;
        return 0; /* aborts the transfer */
    }
    return ddbi_buf_put(&s->rep->body, p, len) == DDB_OK ? len : 0;
}

static size_t on_header(char *p, size_t size, size_t n, void *ud)
{
    sink *s = ud;
    size_t len = size * n;
    static const char crc[] = "x-amz-crc32:";
    if (len >= 5 && strncmp(p, "HTTP/", 5) == 0) {
        s->rep->has_crc = false; /* a new response (after 100 Continue) */
    } else if (len > sizeof crc - 1 && strncasecmp(p, crc, sizeof crc - 1) == 0) {
        uint64_t v = 0;
        size_t i = sizeof crc - 1, digits = 0;
        while (i < len && (p[i] == ' ' || p[i] == '\t'))
            i++;
        for (; i < len && p[i] >= '0' && p[i] <= '9' && digits < 11; i++, digits++)
            v = v * 10 + (uint64_t)(p[i] - '0');
        if (digits && v <= UINT32_MAX) {
            s->rep->has_crc = true;
            s->rep->crc = (uint32_t)v;
        }
    }
    return len;
}

void ddbi_remote_reply_free(remote_reply *rep)
{
    if (rep)
        ddbi_buf_free(&rep->body);
}

int ddbi_remote_http_post(remote_http *h, const char *url, const char *const *headers, size_t n_headers, const char *body,
                          size_t len, remote_reply *rep, ddb_error *err)
{
    memset(rep, 0, sizeof *rep);
    CURL *c = take(h);
    if (!c)
        return ddbi_fail(err, DDB_ENOMEM, "POST %s: cannot create a curl handle", url);
    struct curl_slist *hl = NULL;
    int rc = DDB_OK;
    for (size_t i = 0; i < n_headers && rc == DDB_OK; i++) {
        struct curl_slist *n = curl_slist_append(hl, headers[i]);
        if (!n)
            rc = ddbi_fail_oom(err, __func__);
        hl = n ? n : hl;
    }
    struct curl_slist *n = rc ? NULL : curl_slist_append(hl, "Expect:"); /* no 100-continue round trip */
    if (!rc && !n)
        rc = ddbi_fail_oom(err, __func__);
    hl = n ? n : hl;
    if (rc) {
        curl_slist_free_all(hl);
        give_back(h, c);
        return rc;
    }
    char errbuf[CURL_ERROR_SIZE] = "";
    sink s = {rep, false};
    curl_easy_setopt(c, CURLOPT_URL, url);
#if LIBCURL_VERSION_NUM >= 0x075500
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
#endif
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    if (h->direct)
        curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
    if (h->ca)
        curl_easy_setopt(c, CURLOPT_CAINFO, h->ca);
    curl_easy_setopt(c, CURLOPT_POST, 1L);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hl);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, h->connect_ms);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, h->timeout_ms);
    curl_easy_setopt(c, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &s);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &s);
    CURLcode cc = curl_easy_perform(c);
    if (cc == CURLE_OK)
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &rep->status);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, NULL); /* errbuf leaves scope */
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, NULL);
    curl_slist_free_all(hl);
    give_back(h, c);

    const char *why = errbuf[0] ? errbuf : curl_easy_strerror(cc);
    if (cc == CURLE_OPERATION_TIMEDOUT)
        rc = ddbi_fail(err, DDB_ETIMEOUT, "POST %s: %s", url, why);
    else if (s.too_large)
        rc = ddbi_fail(err, DDB_ENET, "POST %s: the response is larger than %u bytes", url, REMOTE_MAX_BODY);
    else if (cc != CURLE_OK)
        rc = ddbi_fail(err, cc == CURLE_OUT_OF_MEMORY ? DDB_ENOMEM : DDB_ENET, "POST %s: %s", url, why);
    else if (ddbi_buf_put(&rep->body, "", 1) != DDB_OK)
        rc = ddbi_fail_oom(err, __func__);
    if (rc) {
        ddbi_remote_reply_free(rep);
        return rc;
    }
    rep->body.len--; /* the NUL is not part of the body */
    if (rep->has_crc) {
        /* DynamoDB (and dynalite) send the CRC32 of the body: catches a
         * body cut short or damaged on the way. */
        uLong crc = crc32(0L, Z_NULL, 0);
        const uint8_t *p = rep->body.p;
        for (size_t off = 0; off < rep->body.len;) {
            size_t chunk = rep->body.len - off > (1u << 30) ? (1u << 30) : rep->body.len - off;
            crc = crc32(crc, p + off, (uInt)chunk);
            off += chunk;
        }
        if ((uint32_t)crc != rep->crc) {
            ddbi_remote_reply_free(rep);
            return ddbi_fail(err, DDB_ENET, "POST %s: the response body fails its x-amz-crc32 check (%u, expected %u)",
                            url, (unsigned)crc, (unsigned)rep->crc);
        }
    }
    return DDB_OK;
}
