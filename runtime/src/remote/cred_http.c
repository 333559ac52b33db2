/* remote/: the small HTTP client of the credential sources (IMDS, the
 * container endpoint, STS): one libcurl easy handle per request (they are
 * rare: once per credential refresh), a bounded answer, a total timeout,
 * no proxy for link-local and loopback hosts.  May call core/ and libcurl. */
#include "remote/cred.h"

#include "core/error.h"

#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>

typedef struct sink {
    ddbi_cred_reply *rep;
    bool too_large, oom;
} sink;

static size_t on_body(char *p, size_t size, size_t n, void *ud)
{
    sink *s = ud;
    size_t len = size * n;
    if (s->rep->len + len > DDBI_CRED_MAX_BODY) {
        s->too_large = true;
        return 0;
    }
    char *b = realloc(s->rep->body, s->rep->len + len + 1);
    if (!b) {
        s->oom = true;
        return 0;
    }
    memcpy(b + s->rep->len, p, len);
    s->rep->len += len;
    b[s->rep->len] = '\0';
    s->rep->body = b;
    return len;
}

void ddbi_cred_reply_free(ddbi_cred_reply *rep)
{
    if (!rep)
        return;
    if (rep->body)
        memset(rep->body, 0, rep->len);
    free(rep->body);
    memset(rep, 0, sizeof *rep);
}

int ddbi_cred_http(const char *what, const char *method, const char *url, const char *const *headers,
                   size_t n_headers, const char *body, long timeout_ms, ddbi_cred_reply *rep, ddb_error *err)
{
    memset(rep, 0, sizeof *rep);
    CURL *c = curl_easy_init();
    if (!c)
        return ddbi_fail_oom(err, what);
    struct curl_slist *hl = NULL;
    for (size_t i = 0; i < n_headers; i++) {
        struct curl_slist *n = curl_slist_append(hl, headers[i]);
        if (!n) {
            curl_slist_free_all(hl);
            curl_easy_cleanup(c);
            return ddbi_fail_oom(err, what);
        }
        hl = n;
    }
    char errbuf[CURL_ERROR_SIZE] = "";
    sink s = {rep, false, false};
    curl_easy_setopt(c, CURLOPT_URL, url);
#if LIBCURL_VERSION_NUM >= 0x075500
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
#endif
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    if (body) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(body));
    } else if (strcmp(method, "GET") != 0) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, "");
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)0);
    }
    const char *host = strstr(url, "://");
    host = host ? host + 3 : url;
    if (strncmp(host, "169.254.", 8) == 0 || strncmp(host, "127.", 4) == 0 || strncmp(host, "localhost", 9) == 0 ||
        strncmp(host, "[::1]", 5) == 0 || strncmp(host, "[fd00:ec2::", 11) == 0)
        curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hl);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &s);
    CURLcode cc = curl_easy_perform(c);
    if (cc == CURLE_OK)
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &rep->status);
    curl_slist_free_all(hl);
    curl_easy_cleanup(c);
    int rc = DDB_OK;
    const char *why = errbuf[0] ? errbuf : curl_easy_strerror(cc);
    if (s.oom)
        rc = ddbi_fail_oom(err, what);
    else if (s.too_large)
        rc = ddbi_fail(err, DDB_ENET, "%s: %s %s: the answer is larger than %u bytes", what, method, url,
                       DDBI_CRED_MAX_BODY);
    else if (cc == CURLE_OPERATION_TIMEDOUT)
        rc = ddbi_fail(err, DDB_ETIMEOUT, "%s: %s %s: %s", what, method, url, why);
    else if (cc != CURLE_OK)
        rc = ddbi_fail(err, DDB_ENET, "%s: %s %s: %s", what, method, url, why);
    else if (!rep->body && !(rep->body = calloc(1, 1)))
        rc = ddbi_fail_oom(err, what);
    if (rc)
        ddbi_cred_reply_free(rep);
    return rc;
}
