/* ddb serve: HTTP/1.1 (HTTPS with --tls-cert/--tls-key) on libmicrohttpd —
 * a pool of worker threads (epoll), keep-alive, at most --max-connections
 * connections and --max-per-address from one address, idle connections
 * closed after --timeout seconds and requests that take longer than
 * --request-timeout to arrive by the connection guard (guard.c), request
 * bodies bounded by
 * DynamoDB's 16 MB (413 beyond) and, together with the memory their
 * decoding takes (cost.c), by --body-memory (a ThrottlingException beyond,
 * which the SDKs retry).  Every response carries DynamoDB's
 * headers: Content-Type application/x-amz-json-1.0, x-amzn-RequestId and
 * x-amz-crc32 (the CRC-32 of the body, which the AWS SDKs verify).  One
 * log line per request on stderr.  Calls dispatch.c, auth.c, reply.c,
 * guard.c, libmicrohttpd and ISA-L or zlib (the CRC-32). */
#include "http.h"

#include "guard.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef DDB_HAVE_ISAL
#include <isa-l/crc.h>
#else
#include <zlib.h>
#endif

/* What one request accumulates between the handler's calls. */
typedef struct conn_req {
    char *body;
    size_t len, cap;
    bool too_large;
    bool over_budget;          /* the bodies in memory would exceed --body-memory */
    struct timespec start;
} conn_req;

/* libmicrohttpd's memory per connection (its default is 32 KiB): the
 * request line and headers, and the buffers it reads the body and writes
 * the answer's headers through (the body is copied out as it arrives, the
 * answer's body is sent from its own buffer).  libmicrohttpd zeroes it
 * between two requests of a kept-alive connection, and an idle connection
 * holds it: 8 KiB is several times an SDK's SigV4-signed headers and keeps
 * both small.  Headers past it are answered 431 by libmicrohttpd. */
#define CONNECTION_MEMORY (8 * 1024)

static atomic_uint_fast64_t request_counter;
/* Requests begun and not yet answered (http_stop waits for them). */
static atomic_int in_flight;
/* Bytes held by the bodies being received, and the bound on them. */
static atomic_size_t body_bytes;
static size_t body_budget;

/* Take n more bytes of the budget; false (nothing taken) when it is spent,
 * unless the budget holds only `alone` bytes (the caller's own: one request
 * too big for the budget still runs when it is the only one). */
static bool budget_take(size_t n, size_t alone)
{
    size_t cur = atomic_load(&body_bytes);
    do {
        if (cur + n > body_budget && cur != alone)
            return false;
    } while (!atomic_compare_exchange_weak(&body_bytes, &cur, cur + n));
    return true;
}

/* The answer past --body-memory: the SDKs retry a throttling error with backoff. */
static void throttled(serve_reply *rep)
{
    serve_error_reply(rep, 400, "ThrottlingException",
                      "Rate of requests exceeds the allowed throughput (ddb serve: request bodies in memory and "
                      "their decoding exceed --body-memory)",
                      NULL);
}
static uint64_t request_salt;

/* DynamoDB's request ids: 52 characters of [A-Z0-9]. */
static void request_id(char out[53])
{
    static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    uint64_t x = atomic_fetch_add(&request_counter, 1) ^ request_salt;
    for (int i = 0; i < 52; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        out[i] = digits[x % 36];
    }
    out[52] = '\0';
}

static const char *header_of(void *ctx, const char *name)
{
    return MHD_lookup_connection_value(ctx, MHD_HEADER_KIND, name);
}

static double elapsed_ms(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) * 1e3 + (double)(t1.tv_nsec - t0->tv_nsec) / 1e6;
}

static void log_request(const server *s, const char *target, const serve_reply *rep, size_t in_len, double ms,
                        const char *id)
{
    int level = rep->status >= 500 ? LOG_ERROR : LOG_INFO;
    if (s->log_level < level)
        return;
    const char *op = target ? strchr(target, '.') : NULL;
    op = op ? op + 1 : target ? target : "-";
    fprintf(stderr, "ddb serve: %s %s%s status=%u%s%s in=%zu out=%zu ms=%.3f id=%s\n", op,
            rep->table[0] ? "table=" : "", rep->table, rep->status, rep->error_type ? " error=" : "",
            rep->error_type ? rep->error_type : "", in_len, rep->len, ms, id);
}

/* The body's CRC-32 (zlib's and gzip's, which the SDKs check x-amz-crc32
 * against): ISA-L's when built with it (CMakeLists.txt), zlib's otherwise. */
static unsigned long body_crc32(const char *p, size_t n)
{
#ifdef DDB_HAVE_ISAL
    return crc32_gzip_refl(0, (const unsigned char *)p, n);
#else
    return crc32(crc32(0L, Z_NULL, 0), (const Bytef *)p, (uInt)n);
#endif
}

static MHD_Result_t send_reply(struct MHD_Connection *c, serve_reply *rep, const char *id)
{
    char crc[16];
    snprintf(crc, sizeof crc, "%lu", body_crc32(rep->body, rep->len));
    struct MHD_Response *resp = MHD_create_response_from_buffer(rep->len, rep->body, MHD_RESPMEM_MUST_FREE);
    if (!resp) {
        free(rep->body);
        rep->body = NULL;
        return MHD_NO;
    }
    rep->body = NULL; /* the response owns it now */
    MHD_add_response_header(resp, "Content-Type", "application/x-amz-json-1.0");
    MHD_add_response_header(resp, "x-amzn-RequestId", id);
    MHD_add_response_header(resp, "x-amz-crc32", crc);
    MHD_Result_t ok = MHD_queue_response(c, rep->status, resp);
    MHD_destroy_response(resp);
    return ok;
}

static MHD_Result_t on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                               const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
    (void)version;
    server *s = cls;
    conn_req *q = *con_cls;
    if (!q) {
        /* first call: headers only */
        if (!(q = calloc(1, sizeof *q)))
            return MHD_NO;
        clock_gettime(CLOCK_MONOTONIC, &q->start);
        *con_cls = q;
        atomic_fetch_add(&in_flight, 1);
        const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
        if (cl && strtoull(cl, NULL, 10) > SERVE_MAX_BODY)
            q->too_large = true; /* answered once the body is drained */
        return MHD_YES;
    }
    if (*upload_size) {
        size_t n = *upload_size;
        *upload_size = 0;
        if (q->too_large || q->len + n > SERVE_MAX_BODY) {
            q->too_large = true;
            return MHD_YES;
        }
        if (q->over_budget)
            return MHD_YES;
        if (q->len + n > q->cap) {
            size_t cap = q->cap ? q->cap : 4096;
            while (cap < q->len + n)
                cap *= 2;
            if (!budget_take(cap - q->cap, SIZE_MAX)) {
                q->over_budget = true; /* drained, answered with a throttling error */
                return MHD_YES;
            }
            char *p = realloc(q->body, cap);
            if (!p) {
                atomic_fetch_sub(&body_bytes, cap - q->cap);
                return MHD_NO;
            }
            q->body = p;
            q->cap = cap;
        }
        memcpy(q->body + q->len, upload, n);
        q->len += n;
        return MHD_YES;
    }
    /* the whole request is in */
    guard_request_received(c);
    char id[53];
    request_id(id);
    const char *target = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-Amz-Target");
    serve_reply rep;
    memset(&rep, 0, sizeof rep);
    if (strcmp(method, "GET") == 0 && strcmp(url, "/") == 0 && !target) {
        /* DynamoDB answers a GET of / with a health line (load balancers probe it) */
        rep.status = 200;
        rep.body = strdup("healthy: ddb serve");
        rep.len = rep.body ? strlen(rep.body) : 0;
    } else if (q->too_large) {
        char msg[120];
        snprintf(msg, sizeof msg, "Request size exceeds the limit of %u bytes", SERVE_MAX_BODY);
        serve_error_reply(&rep, 413, "RequestEntityTooLargeException", msg, NULL);
    } else if (q->over_budget) {
        throttled(&rep); /* the server holds as many request bodies as --body-memory allows */
    } else if (strcmp(method, "POST") != 0) {
        serve_error_reply(&rep, 400, "UnknownOperationException", "", NULL);
    } else if (s->keys && auth_check(s, method, url, header_of, c, q->body, q->len, &rep)) {
        /* rep holds the authentication error */
    } else {
        /* the decoded request's memory counts too, while it is handled */
        size_t cost = serve_decode_cost(q->body, q->len);
        if (!budget_take(cost, q->cap)) {
            throttled(&rep);
        } else {
            serve_call(s, target, MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host"), q->body, q->len, &rep);
            atomic_fetch_sub(&body_bytes, cost);
        }
    }
    log_request(s, target, &rep, q->len, elapsed_ms(&q->start), id);
    if (s->log_level >= LOG_DEBUG)
        fprintf(stderr, "ddb serve: id=%s request %.*s%s\nddb serve: id=%s response %.*s%s\n", id,
                (int)(q->len > 2000 ? 2000 : q->len), q->body ? q->body : "", q->len > 2000 ? " ..." : "", id,
                (int)(rep.len > 2000 ? 2000 : rep.len), rep.body ? rep.body : "", rep.len > 2000 ? " ..." : "");
    /* the body is no longer needed: its memory goes back before the reply is sent */
    atomic_fetch_sub(&body_bytes, q->cap);
    free(q->body);
    q->body = NULL;
    q->len = q->cap = 0;
    if (!rep.body)
        return MHD_NO;
    return send_reply(c, &rep, id);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    if (toe == MHD_REQUEST_TERMINATED_COMPLETED_OK)
        guard_request_done(c);
    conn_req *q = *con_cls;
    if (q) {
        atomic_fetch_sub(&body_bytes, q->cap);
        free(q->body);
        free(q);
        *con_cls = NULL;
        atomic_fetch_sub(&in_flight, 1);
    }
}

static void on_mhd_error(void *cls, const char *fmt, va_list ap)
{
    const server *s = cls;
    if (s->log_level >= LOG_WARN) {
        fputs("ddb serve: ", stderr);
        vfprintf(stderr, fmt, ap);
    }
}

/* A request's first line is in (libmicrohttpd's URI logger): its deadline starts. */
static void *on_request_line(void *cls, const char *uri, struct MHD_Connection *c)
{
    (void)cls, (void)uri;
    guard_request_begun(c);
    return NULL; /* on_request's first call still sees *con_cls == NULL */
}

struct MHD_Daemon *http_start(server *s, int listen_fd, const http_limits *lim)
{
    body_budget = lim->body_memory;
    request_salt = (uint64_t)time(NULL) * 0x9E3779B97F4A7C15ull ^ (uint64_t)(uintptr_t)s;
    if (!request_salt)
        request_salt = 1;
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG | MHD_USE_ITC;
#ifdef __linux__
    flags |= MHD_USE_EPOLL;
#else
    flags |= MHD_USE_POLL;
#endif
    if (lim->tls_cert) {
        if (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
            fprintf(stderr, "ddb serve: this libmicrohttpd is built without TLS (GnuTLS): --tls-cert is not available\n");
            return NULL;
        }
        flags |= MHD_USE_TLS;
    }
    guard_limits g = {.max_connections = lim->max_connections,
                      .max_per_address = lim->max_per_address,
                      .idle_s = lim->timeout_s,
                      .request_s = lim->request_timeout_s,
                      .response_s = lim->response_timeout_s,
                      .log_level = s->log_level};
    if (!guard_start(&g))
        return NULL;
    /* libmicrohttpd gives each worker thread an equal share of its limit,
     * and a worker holding exactly its share stopped serving them (0.9.75,
     * epoll: 256 keep-alive connections hung at the default 1024 / 4
     * threads); the guard enforces the limits over all workers instead
     * (libmicrohttpd's per-address limit counts per worker too), and
     * libmicrohttpd's share is one more than the whole limit: no worker
     * ever reaches it */
    struct MHD_OptionItem opts[] = {
        {MHD_OPTION_EXTERNAL_LOGGER, (intptr_t)on_mhd_error, s},
        {MHD_OPTION_LISTEN_SOCKET, listen_fd, NULL},
        {MHD_OPTION_THREAD_POOL_SIZE, lim->threads, NULL},
        {MHD_OPTION_CONNECTION_LIMIT, ((intptr_t)lim->max_connections + 1) * lim->threads, NULL},
        {MHD_OPTION_CONNECTION_TIMEOUT, lim->timeout_s, NULL},
        {MHD_OPTION_CONNECTION_MEMORY_LIMIT, CONNECTION_MEMORY, NULL},
        {MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)on_completed, s},
        {MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)guard_connection, NULL},
        {MHD_OPTION_URI_LOG_CALLBACK, (intptr_t)on_request_line, NULL},
        {MHD_OPTION_END, 0, NULL}, /* the certificate, with TLS */
        {MHD_OPTION_END, 0, NULL}, /* its key */
        {MHD_OPTION_END, 0, NULL},
    };
    if (lim->tls_cert) {
        size_t n = sizeof opts / sizeof *opts;
        opts[n - 3] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_CERT, 0, (void *)lim->tls_cert};
        opts[n - 2] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_KEY, 0, (void *)lim->tls_key};
    }
    struct MHD_Daemon *d = MHD_start_daemon(flags, 0, guard_accept, NULL, on_request, s, MHD_OPTION_ARRAY, opts,
                                            MHD_OPTION_END);
    if (!d)
        guard_stop();
    return d;
}

void http_stop(struct MHD_Daemon *d)
{
    /* stop accepting, let the requests in flight be answered (at most 30 s),
     * then close every connection, idle keep-alive ones included */
    MHD_socket fd = MHD_quiesce_daemon(d);
    for (int i = 0; i < 3000 && atomic_load(&in_flight) > 0; i++)
        usleep(10000);
    MHD_stop_daemon(d);
    guard_stop();
    if (fd != MHD_INVALID_SOCKET)
        close(fd);
}
