/* remote/: the signed call to the endpoint with retries and backoff
 * (throttling, 5xx, network faults), and the clock it waits by. */
#include "remote/remote_wire.h"

#include "core/error.h"
#include "remote/cred.h"
#include "remote/retry.h"
#include "remote/sigv4.h"

#include <curl/curl.h>
#include <errno.h>
#include <openssl/rand.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- Time and backoff ---- */

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

/* Sign and send one attempt (streams: to the DynamoDB Streams endpoint,
 * target DynamoDBStreams_20120810.OP; signed for service "dynamodb" as
 * well, as the service's API definition says). */
static int send_once(ddb_remote *r, bool streams, const char *op, const char *body, size_t len, remote_reply *rep,
                     ddb_error *err)
{
    const char *host = streams ? r->streams_host : r->host, *path = streams ? r->streams_path : r->path;
    ddbi_creds cr;
    int rc = ddbi_cred_cache_get(r->creds, &cr, err);
    if (rc)
        return rc;
    char target[96], amz_date[17];
    snprintf(target, sizeof target, "%s_20120810.%s", streams ? "DynamoDBStreams" : "DynamoDB", op);
    ddbi_sigv4_amz_date((long long)time(NULL), amz_date);
    ddb_sigv4_header sh[5] = {{"content-type", "application/x-amz-json-1.0"},
                              {"host", host},
                              {"x-amz-date", amz_date},
                              {"x-amz-target", target},
                              {"x-amz-security-token", cr.token}};
    size_t nsh = cr.token ? 5 : 4;
    ddb_sigv4_request req = {"POST", path, "", sh, nsh, body, len, NULL};
    ddb_sigv4_key key = {cr.akid, cr.secret, r->region, "dynamodb"};
    ddb_buf auth = {0};
    rc = ddbi_sigv4_sign(&req, &key, amz_date, &auth, NULL, err);
    size_t hcap = strlen(host) + (cr.token ? strlen(cr.token) : 0) + auth.len + 256;
    char *hb = rc ? NULL : malloc(hcap * 2);
    if (!hb) {
        ddbi_buf_free(&auth);
        ddbi_creds_clear(&cr);
        return rc ? rc : ddbi_fail_oom(err, __func__);
    }
    const char *lines[6];
    size_t n = 0, off = 0;
#define LINE(...)                                                                                                  \
    do {                                                                                                           \
        lines[n++] = hb + off;                                                                                     \
        off += (size_t)snprintf(hb + off, hcap * 2 - off, __VA_ARGS__) + 1;                                        \
    } while (0)
    LINE("Content-Type: application/x-amz-json-1.0");
    LINE("Host: %s", host);
    LINE("X-Amz-Date: %s", amz_date);
    LINE("X-Amz-Target: %s", target);
    LINE("Authorization: %s", (const char *)auth.p);
    if (cr.token)
        LINE("X-Amz-Security-Token: %s", cr.token);
#undef LINE
    rc = ddbi_remote_http_post(r->http, streams ? r->streams_url : r->url, lines, n, body, len, rep, err);
    free(hb);
    ddbi_buf_free(&auth);
    ddbi_creds_clear(&cr);
    return rc;
}

static int call(ddb_remote *r, bool streams, const char *op, const json_t *req, json_t **resp, json_t **errbody,
                ddb_error *err)
{
    *resp = NULL;
    if (errbody)
        *errbody = NULL;
    char *body = json_dumps(req, JSON_COMPACT);
    if (!body)
        return ddbi_fail_oom(err, op);
    size_t len = strlen(body);
    bool no_output = strcmp(op, "TagResource") == 0 || strcmp(op, "UntagResource") == 0;
    bool legacy = ddbi_retry_get_mode(r->retry) == DDBI_RETRY_LEGACY;
    remote_metrics m = {op, ddbi_remote_now_us(), 0, 0, 0};
    unsigned cost = 0; /* of the last retry (the quota's refund) */
    int rc;
    for (unsigned attempt = 1;; attempt++) {
        remote_reply rep;
        m.attempts = attempt;
        ddbi_retry_before_send(r->retry);
        if ((rc = send_once(r, streams, op, body, len, &rep, err))) {
            m.status = 0;
            /* standard and adaptive modes retry transient network failures */
            if (!legacy && (rc == DDB_ENET || rc == DDB_ETIMEOUT) && attempt < r->o.max_attempts &&
                ddbi_retry_acquire(r->retry, true, &cost)) {
                ddbi_remote_backoff(r, attempt);
                continue;
            }
            break;
        }
        m.status = rep.status;
        if (rep.status == 200) {
            ddbi_retry_after_response(r->retry, false);
            ddbi_retry_success(r->retry, cost);
        }
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
        if (streams && strcmp(f.type, "LimitExceededException") == 0) {
            /* DynamoDB Streams: "Your request rate is too high" (GetRecords) */
            f.code = err ? (err->code = DDB_ETHROTTLED) : DDB_ETHROTTLED;
            f.retry = true;
            rc = f.code;
        }
        bool throttled = f.code == DDB_ETHROTTLED;
        m.throttles += throttled;
        ddbi_retry_after_response(r->retry, throttled);
        bool quota = f.retry && attempt < r->o.max_attempts && ddbi_retry_acquire(r->retry, false, &cost);
        if (quota) {
            json_decref(eb);
            ddbi_remote_backoff(r, attempt);
            continue;
        }
        if (f.retry && attempt < r->o.max_attempts)
            append_msg(err, " (not retried: the retry quota is spent, attempt %u)", attempt);
        else if (f.retry)
            append_msg(err, " (gave up after %u attempts)", attempt);
        if (errbody)
            *errbody = eb;
        else
            json_decref(eb);
        break;
    }
    free(body);
    if (r->o.on_request)
        ddbi_remote_report(r->o.on_request, r->o.on_request_ctx, &m, req, *resp, rc);
    return rc;
}

int ddbi_remote_call(ddb_remote *r, const char *op, const json_t *req, json_t **resp, json_t **errbody, ddb_error *err)
{
    return call(r, false, op, req, resp, errbody, err);
}

int ddbi_remote_call_streams(ddb_remote *r, const char *op, const json_t *req, json_t **resp, json_t **errbody,
                             ddb_error *err)
{
    return call(r, true, op, req, resp, errbody, err);
}
