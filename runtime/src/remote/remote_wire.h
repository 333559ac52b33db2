/* remote/: Pieces shared by the remote backend's files (internal to remote*.c and
 * expr_render.c): expression rendering, the HTTP transport, response
 * parsing, request building, and the handle's call/retry core. */
#ifndef DDB_REMOTE_WIRE_H
#define DDB_REMOTE_WIRE_H

#include "core/codec.h"
#include "remote/remote.h"

#include <jansson.h>
#include <pthread.h>

/* ---- Expressions back to text (expr_render.c) ------------------------------ */

/* ExpressionAttributeNames of one request: placeholder "#nI" stands for
 * names[I] (pointers into the expressions or items of the request, which
 * outlive it).  Arrays grow in arena. */
typedef struct ddb_wire_names {
    ddb_arena *arena;
    const char **names;
    size_t *lens;
    size_t n, cap;
} ddb_wire_names;

/* Append the placeholder of name (adding it to the map) to out. */
int ddbi_wire_name_ref(ddb_wire_names *m, const char *name, size_t len, ddb_buf *out);
/* Append one document path of a prepared expression (struct expr_path of
 * expr.h) to out, names as placeholders of m. */
struct expr_path;
int ddbi_wire_render_path(const struct expr_path *p, ddb_wire_names *m, ddb_buf *out);
/* Append the text of e to out (NUL-terminated, not counted in len), every
 * attribute name as a placeholder of m, ":values" unchanged. */
int ddbi_expr_render(const ddb_expr *e, ddb_wire_names *m, ddb_buf *out, ddb_error *err);

/* ---- HTTP transport (remote_http.c) ------------------------------------------ */

typedef struct remote_http remote_http;

typedef struct remote_reply {
    long status;     /* HTTP status */
    ddb_buf body;    /* the response body (NUL-terminated, not counted) */
    bool has_crc;    /* an x-amz-crc32 header came */
    uint32_t crc;    /* its value */
} remote_reply;

#define REMOTE_MAX_BODY (64u << 20)

/* A pool of curl easy handles with the given timeouts (milliseconds);
 * direct: never use a proxy (a loopback endpoint). */
int ddbi_remote_http_new(long connect_timeout_ms, long timeout_ms, unsigned pool, bool direct, remote_http **out,
                         ddb_error *err);
void ddbi_remote_http_free(remote_http *h);
/* Verify TLS peers with the CA certificates in path (AWS_CA_BUNDLE). */
int ddbi_remote_http_set_ca(remote_http *h, const char *path, ddb_error *err);
/* POST body to url with the given "Name: value" header lines.  A reply of
 * any HTTP status is DDB_OK (rep filled, free with ddbi_remote_reply_free);
 * transport failures are DDB_ENET / DDB_ETIMEOUT with curl's text. */
int ddbi_remote_http_post(remote_http *h, const char *url, const char *const *headers, size_t n_headers, const char *body,
                          size_t len, remote_reply *rep, ddb_error *err);
void ddbi_remote_reply_free(remote_reply *rep);

/* ---- Responses (remote_parse.c: no I/O, fuzzed) -------------------------------- */

typedef enum remote_kind { REMOTE_READ, REMOTE_WRITE } remote_kind;

/* How a failed call is to be treated. */
typedef struct remote_fault {
    int code;       /* DDB_E* */
    bool retry;     /* throttling or a server-side (5xx) failure */
    char type[80];  /* "ConditionalCheckFailedException", or "HTTP 502" */
} remote_fault;

/* Parse a 200 response body: a JSON object (duplicate keys rejected).
 * DDB_ENET "bad response to OP: ..." otherwise. */
int ddbi_remote_parse_body(const char *op, const char *body, size_t len, json_t **out, ddb_error *err);
/* Classify a non-200 response; fills err with the server's message (or a
 * description) and *errbody (when not NULL) with the parsed error object,
 * if there was one.  Returns f->code. */
int ddbi_remote_parse_error(const char *op, long status, const char *body, size_t len, remote_fault *f, json_t **errbody,
                            ddb_error *err);
/* Add a ConsumedCapacity object (or array of them, batches) to cap.  Absent
 * (NULL) is fine.  Read/WriteCapacityUnits are used when present, else
 * CapacityUnits count as kind. */
int ddbi_remote_parse_capacity(const char *op, const json_t *cc, remote_kind kind, ddb_return_capacity mode,
                               ddb_capacity *cap, ddb_error *err);
/* resp[field] as an item in a (NULL when absent). */
int ddbi_remote_parse_item(const char *op, const json_t *resp, const char *field, ddb_arena *a, ddb_item **out,
                           ddb_error *err);
/* A Query / Scan page: Items, Count, ScannedCount, LastEvaluatedKey,
 * ConsumedCapacity. */
int ddbi_remote_parse_page(const char *op, const json_t *resp, ddb_return_capacity mode, ddb_arena *a, ddb_page *out,
                           ddb_error *err);
/* TransactionCanceledException's CancellationReasons -> n codes in a. */
int ddbi_remote_parse_reasons(const json_t *errbody, size_t n, ddb_arena *a, int **reasons, ddb_error *err);
/* ... and their Items (ReturnValuesOnConditionCheckFailure) -> n items in a (NULL where absent). */
int ddbi_remote_parse_reason_items(const json_t *errbody, size_t n, ddb_arena *a, ddb_item ***items, ddb_error *err);
/* A TableDescription -> ddb_table_desc in a; *status gets TableStatus and
 * *indexes_active whether every GSI is ACTIVE. */
int ddbi_remote_parse_table(const char *op, const json_t *t, ddb_arena *a, ddb_table_desc **out, const char **status,
                            bool *indexes_active, ddb_error *err);
/* "bad response to OP: ..." (DDB_ENET). */
int ddbi_remote_bad(ddb_error *err, const char *op, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* ---- Requests (remote_req.c) --------------------------------------------------- */

/* One request under construction: the JSON body, a scratch arena, the
 * names map of its expressions. */
typedef struct remote_req {
    json_t *j;
    ddb_arena *tmp;
    ddb_wire_names names;
} remote_req;

int ddbi_remote_req_init(remote_req *q, ddb_error *err);
void ddbi_remote_req_free(remote_req *q);
/* Set j[key] (a new names map is started per object by the caller). */
int ddbi_rq_str(json_t *o, const char *key, const char *s, ddb_error *err);
int ddbi_rq_bool(json_t *o, const char *key, bool v, ddb_error *err);
int ddbi_rq_int(json_t *o, const char *key, long long v, ddb_error *err);
int ddbi_rq_item(json_t *o, const char *key, const ddb_item *it, ddb_error *err);
/* Render e into o[key] with names collected in m. */
int ddbi_rq_expr(json_t *o, const char *key, const ddb_expr *e, ddb_wire_names *m, ddb_error *err);
/* ProjectionExpression from a projection expression and/or top-level
 * attribute names (NULL/0 for none); extra (may be NULL) names attributes to
 * add (key attributes). */
int ddbi_rq_projection(json_t *o, const ddb_expr *proj, const char *const *attrs, size_t n_attrs,
                  const char *const *extra, size_t n_extra, ddb_wire_names *m, ddb_error *err);
/* ExpressionAttributeNames from m (nothing when empty) and
 * ExpressionAttributeValues from values (nothing when NULL). */
int ddbi_rq_names_values(json_t *o, const ddb_wire_names *m, const ddb_item *values, ddb_error *err);
/* ReturnConsumedCapacity (INDEXES whenever asked, see remote.h). */
int ddbi_rq_capacity(json_t *o, ddb_return_capacity rc, ddb_error *err);
/* A fresh names map for one object of a request (arena: the request's). */
void ddbi_rq_names_reset(remote_req *q, ddb_wire_names *m);

/* ---- The handle (remote.c) ---------------------------------------------------------- */

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
    /* DynamoDB Streams (remote_streams.c): streams.dynamodb.REGION.amazonaws.com
     * for dynamodb://REGION, else the same endpoint as the tables */
    char *streams_url, *streams_host, *streams_path;
    char *region, *profile, *retry_mode;
    ddb_remote_options o;          /* numbers resolved; strings point at the fields above */
    struct ddbi_cred_cache *creds; /* the credential chain's source, refreshed (cred.h) */
    struct ddbi_retry *retry;      /* retry mode state: quota, rate limiter (retry.h) */
    remote_http *http;
    pthread_mutex_t mu; /* guards keys */
    rkeys *keys;
};

/* ---- The call (remote_call.c) ------------------------------------------------------- */

/* Send operation op with body req (not consumed): sign, post, retry
 * throttling and 5xx with backoff.  On success *resp owns the response
 * object.  On failure err is filled; *errbody (when not NULL) owns the
 * server's error object if there was one. */
int ddbi_remote_call(ddb_remote *r, const char *op, const json_t *req, json_t **resp, json_t **errbody, ddb_error *err);
/* The same to DynamoDB Streams (X-Amz-Target: DynamoDBStreams_20120810.<Op>,
 * r->streams_url); its LimitExceededException ("request rate is too high")
 * is throttling, retried as such. */
int ddbi_remote_call_streams(ddb_remote *r, const char *op, const json_t *req, json_t **resp, json_t **errbody,
                             ddb_error *err);
/* Sleep before retry number attempt (1, 2, ...): full jitter. */
void ddbi_remote_backoff(const ddb_remote *r, unsigned attempt);
unsigned ddbi_remote_max_attempts(const ddb_remote *r);
uint32_t ddbi_remote_table_wait_ms(const ddb_remote *r);
/* ---- Key schema cache (remote_keys.c) ----------------------------------------------- */

/* Key attribute names of a table or one of its indexes (index NULL = the
 * table), from a cached DescribeTable.  Copies into a. */
int ddbi_remote_key_names(ddb_remote *r, const char *table, const char *index, ddb_arena *a, const char **pk,
                          const char **sk, ddb_error *err);
void ddbi_remote_forget_table(ddb_remote *r, const char *table);
void ddbi_remote_keys_free(rkeys *k);

/* ---- DescribeTable, DescribeTimeToLive (remote_describe.c) -------------------------- */

/* DescribeTable (and DescribeTimeToLive when with_ttl) into a. */
int ddbi_remote_describe(ddb_remote *r, const char *name, ddb_arena *a, ddb_table_desc **out, bool with_ttl,
                         ddb_error *err);
/* DescribeTimeToLive: the TTL attribute when TTL is enabled (or being
 * enabled), else NULL.  An endpoint without the operation has no TTL. */
int ddbi_remote_get_ttl(ddb_remote *r, const char *table, ddb_arena *a, const char **attr, ddb_error *err);

/* ---- Per-request metrics (remote_metrics.c) ------------------------------------------ */

/* What ddbi_remote_call counts of one request. */
typedef struct remote_metrics {
    const char *op;
    uint64_t start_us; /* ddbi_remote_now_us() at the first attempt */
    long status;       /* of the last attempt (0: no answer) */
    unsigned attempts, throttles;
} remote_metrics;

/* Monotonic microseconds. */
uint64_t ddbi_remote_now_us(void);
/* Fill a ddb_request_metrics (the table from req, the capacity from resp,
 * which may be NULL) and call fn. */
void ddbi_remote_report(ddb_request_fn fn, void *ctx, const remote_metrics *m, const json_t *req, const json_t *resp,
                        int rc);

/* Monotonic milliseconds (remote_call.c). */
uint64_t ddbi_remote_now_ms(void);
void ddbi_remote_sleep_ms(uint32_t ms);

#endif
