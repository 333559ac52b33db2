/* ddb serve — the embedded engine behind DynamoDB's JSON protocol (internal
 * header of tools/ddb/serve/).
 *
 * Layers, each in its own file:
 *   http.c      libmicrohttpd: connections, bodies, limits, headers, logging
 *   auth.c      --auth: the access keys file and SigV4 verification
 *   dispatch.c  X-Amz-Target -> operation; serve_call() is the whole
 *               request -> response step, without HTTP (the fuzz target's entry)
 *   reply.c     DDB_E* codes -> DynamoDB's status, __type and message
 *   fastreq.c   the item operations' requests decoded without a tree for
 *               their attribute values (declining anything unusual)
 *   wire.c      request members -> libddb arguments, results -> JSON
 *   reply_direct.c, jwrite.c  items written into the response as text,
 *               without a JSON tree (GetItem, Query, Scan, BatchGetItem,
 *               TransactGetItems, a write's Attributes)
 *   op_*.c      one file per family of operations
 *   unprocessed.c  --unprocessed: the part of a batch left unprocessed (tests)
 * Everything goes through libddb's public API (<ddb/ddb.h>, <ddb/json.h>). */
#ifndef DDB_SERVE_H
#define DDB_SERVE_H

#include <ddb/ddb.h>
#include <ddb/json.h>

#include "jwrite.h"

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* DynamoDB's limit on one request's body (API request size limit). */
#define SERVE_MAX_BODY (16u << 20)

enum { LOG_NONE = 0, LOG_ERROR, LOG_WARN, LOG_INFO, LOG_DEBUG };

typedef struct serve_keys serve_keys; /* --auth access keys (auth.c) */

/* --unprocessed (unprocessed.c): the part of each batch left unprocessed. */
typedef struct serve_unprocessed {
    double fraction;        /* each request's probability of being left; 0 = off */
    pthread_mutex_t mu;     /* guards rng */
    unsigned short rng[3];  /* erand48's state, seeded by --fault-seed */
} serve_unprocessed;
void serve_unprocessed_init(serve_unprocessed *u, double fraction, uint64_t seed);
void serve_unprocessed_free(serve_unprocessed *u);
/* left[i]: is request i of a batch of n left unprocessed?  Returns how many are. */
size_t serve_unprocessed_draw(serve_unprocessed *u, bool *left, size_t n);

/* The server's shared, read-only-after-start state. */
typedef struct server {
    ddb *db;
    const char *region;     /* in ARNs and what SigV4 scopes may name */
    const char *account;    /* in ARNs */
    serve_keys *keys;       /* NULL: no authentication */
    int log_level;
    serve_unprocessed unprocessed;
    bool tree_requests;     /* every request parsed by jansson (the tests compare both decoders) */
} server;

/* One response: HTTP status and a JSON body (malloc'd). */
typedef struct serve_reply {
    unsigned status;
    char *body;
    size_t len;
    const char *error_type; /* short exception name, for the log line; NULL on success */
    char table[256];        /* the request's (first) table, for the log line; "" when none */
} serve_reply;

typedef struct serve_req serve_req;
typedef int (*serve_op_fn)(serve_req *r);

/* A member the request decoder without a tree (fastreq.c) decoded: the
 * empty object standing for it in the request, and its attributes. */
typedef struct serve_decoded {
    const json_t *stand_in;
    ddb_item *item;
} serve_decoded;

/* One request being handled: everything allocated for it lives in a. */
struct serve_req {
    server *srv;
    ddb_arena *a;
    const json_t *in;       /* the request object */
    const char *host;       /* Host header (DescribeEndpoints), may be NULL */
    json_t *out;            /* the response object being built */
    jw direct;              /* more members of it, written as text (reply_direct.c) */
    ddb_error err;
    /* set by a handler that answers with an error not coming from libddb */
    const char *fail_type;
    unsigned fail_status;
    json_t *fail_extra;     /* extra members of the error body (CancellationReasons) */
    const char *table;      /* for the log line */
    serve_op_fn op;         /* the operation (its handler) */
    ddb_expr **exprs;       /* prepared for this request, freed after it */
    size_t n_exprs, cap_exprs;
    serve_decoded *decoded; /* fastreq.c's items, in the arena */
    size_t n_decoded;
};


/* ---- dispatch.c ---- */

/* Handle one request: target is the X-Amz-Target header (may be NULL), body
 * the request body.  Fills out (status, JSON body).  Never fails: every
 * problem becomes an error response.  Thread-safe. */
void serve_call(server *s, const char *target, const char *host, const char *body, size_t len, serve_reply *out);

/* ---- fastreq.c ---- */

/* Operations whose requests fastreq_decode() takes. */
bool fastreq_applies(serve_op_fn fn);
/* The body of a request to r->op as the object json_loadb() would give,
 * except that Item, Key and ExpressionAttributeValues (and the batches' and
 * transactions' items and keys) are decoded into r->decoded, an empty
 * object standing in for each.  NULL when declined (anything unusual: the caller parses the
 * body with jansson, whose path gives DynamoDB's errors); the arena may
 * then hold garbage. */
json_t *fastreq_decode(serve_req *r, const char *body, size_t len);
/* The decoded item an empty object v stands in for; NULL when v is not one. */
ddb_item *fastreq_item(const serve_req *r, const json_t *v);

/* ---- cost.c ---- */

/* The memory decoding body (JSON text) into jansson's tree and libddb's
 * values is estimated to take, in bytes: one linear pass. */
size_t serve_decode_cost(const char *body, size_t len);

/* ---- reply.c ---- */

/* A handler's failure: the libddb code and message in r->err become the
 * response.  Returns the (negative) code. */
int serve_fail_code(serve_req *r, int code);
/* A failure of the request's shape: ValidationException (400) with message. */
int serve_validation(serve_req *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Any exception by its short name ("ResourceNotFoundException"). */
int serve_fail(serve_req *r, unsigned status, const char *type, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* An error response body { "__type": "<prefix>#type", "message": msg } into out. */
void serve_error_reply(serve_reply *out, unsigned status, const char *type, const char *message, json_t *extra);

/* ---- wire.c: reading the request ---- */

/* An escaped NUL (\u0000) is data inside a string attribute value (an "S"
 * value, an "SS" element), which libddb keeps whole; anywhere else (member
 * names, table names, expressions) the request's C strings would end at it,
 * so it is refused.  0, or -1 with what holds one in msg. */
int w_nul_problem(const json_t *in, char *msg, size_t cap);

/* A string member; NULL when absent.  Not a string: ValidationException
 * (returns -1 with the error set; *out NULL). */
int w_str(serve_req *r, const json_t *o, const char *name, const char **out);
/* A required string member: "1 validation error detected: Value null at
 * 'tableName' failed to satisfy constraint: Member must not be null". */
int w_str_req(serve_req *r, const json_t *o, const char *name, const char *path, const char **out);
/* The table a TableName (or a RequestItems key) names: itself, or the
 * name in a table's ARN (arn:...:table/NAME). */
const char *w_table_of(const char *name_or_arn);
/* The TableName member, required and recorded for the log line; a table's
 * ARN gives its name (w_table_of). */
int w_table(serve_req *r, const json_t *o, const char **out);
int w_bool(serve_req *r, const json_t *o, const char *name, bool *out);
/* An integer member in [min, max]; *present false when absent. */
int w_uint(serve_req *r, const json_t *o, const char *name, const char *path, uint64_t min, uint64_t max,
           uint64_t *out, bool *present);
/* An object of DynamoDB JSON attributes as an item (NULL when absent). */
int w_item(serve_req *r, const json_t *o, const char *name, ddb_item **out);
int w_item_req(serve_req *r, const json_t *o, const char *name, const char *path, ddb_item **out);
/* ExpressionAttributeValues as an item; a value that is not valid DynamoDB
 * JSON is answered in DynamoDB's form "ExpressionAttributeValues contains
 * invalid value: ... for key :v". */
int w_values(serve_req *r, const json_t *o, ddb_item **out);
/* ExpressionAttributeNames ({"#n": "name"}) as the item ddb_expr_prepare takes. */
int w_names(serve_req *r, const json_t *o, ddb_item **out);
/* Prepare the expression in member name (NULL when absent); freed with the request. */
int w_expr(serve_req *r, const json_t *o, const char *name, ddb_expr_kind kind, const ddb_item *names,
           ddb_expr **out);
/* Prepare text (NULL: *out NULL) as in w_expr. */
int w_prepare(serve_req *r, ddb_expr_kind kind, const char *text, const ddb_item *names, ddb_expr **out);
/* Keep a prepared expression until the request ends (freed then; on
 * failure now). */
int w_keep_expr(serve_req *r, ddb_expr *e);
/* ReturnConsumedCapacity: NONE / TOTAL / INDEXES. */
int w_capacity(serve_req *r, const json_t *o, ddb_return_capacity *out);
/* AttributesToGet as a name array in the arena. */
int w_attributes(serve_req *r, const json_t *o, const char ***names, size_t *n);
/* The JSON types of the attribute values of an item operation's request
 * (wire_shape.c): a wrong one is DynamoDB's SerializationException. */
int w_shape_check(serve_req *r, serve_op_fn fn);
/* The request-level expression checks (unused names and values, ...). */
int w_check_exprs(serve_req *r, const ddb_expr *const *e, size_t n, const ddb_item *names, const ddb_item *values);

/* ReturnValuesOnConditionCheckFailure (op_items.c). */
int w_return_on_failure(serve_req *r, const json_t *o, ddb_return_values *out);
/* ReturnValues (op_items.c). */
int w_return_values(serve_req *r, const json_t *o, ddb_return_values *out);

/* ---- legacy.c: the legacy parameters as expressions ---- */

/* Check the expression / non-expression rules of a request to operation fn
 * and translate its legacy members (Expected, ConditionalOperator,
 * AttributeUpdates, KeyConditions, QueryFilter, ScanFilter; BatchGetItem's
 * AttributesToGet) into expression members.  *out: the request to handle
 * instead (a new reference), NULL when nothing was translated.  *flags: what
 * was translated, for legacy_reword.  0, or -1 with the error set. */
int legacy_translate(serve_req *r, serve_op_fn fn, json_t **out, unsigned *flags);
/* A failed request whose legacy members were translated: the engine's words
 * about the expression put in the legacy member's. */
void legacy_reword(serve_req *r, unsigned flags);

/* ---- wire.c: writing the response ---- */

json_t *w_item_json(serve_req *r, const ddb_item *it);
/* ConsumedCapacity of one table ({"TableName", "CapacityUnits", ...}); NULL when rc is NONE. */
json_t *w_capacity_json(serve_req *r, const char *table, ddb_return_capacity rc, const ddb_capacity *c);
/* arn:aws:dynamodb:REGION:ACCOUNT:table/NAME */
char *w_table_arn(serve_req *r, const char *table);
/* The table name of a table ARN (or a plain name); NULL when malformed. */
const char *w_arn_table(serve_req *r, const char *arn);

/* ---- reply_direct.c: response members written as text ---- */

/* Append the member "name": the item (DynamoDB JSON) to the response.
 * 0, or the libddb code with the error set (serve_fail_code). */
int w_reply_item(serve_req *r, const char *name, const ddb_item *it);
/* "name": [the n items]. */
int w_reply_items(serve_req *r, const char *name, ddb_item *const *items, size_t n);
/* "name": v. */
void w_reply_u64(serve_req *r, const char *name, uint64_t v);
/* Start the member "name" and return the buffer to write its value into
 * (jwrite.h); w_reply_end() checks it. */
jw *w_reply_member(serve_req *r, const char *name);
int w_reply_end(serve_req *r);
/* The response body: r->direct's members and r->out's (dispatch.c);
 * malloc'd into out->body, NULL when out of memory. */
void w_reply_body(serve_req *r, serve_reply *out);

/* ---- op_*.c ---- */

int op_create_table(serve_req *r);
int op_delete_table(serve_req *r);
int op_describe_table(serve_req *r);
int op_list_tables(serve_req *r);
int op_update_table(serve_req *r);
int op_update_ttl(serve_req *r);
int op_describe_ttl(serve_req *r);
int op_describe_limits(serve_req *r);
int op_describe_endpoints(serve_req *r);
int op_tag_resource(serve_req *r);
int op_untag_resource(serve_req *r);
int op_list_tags(serve_req *r);
int op_put_item(serve_req *r);
int op_get_item(serve_req *r);
int op_update_item(serve_req *r);
int op_delete_item(serve_req *r);
int op_query(serve_req *r);
int op_scan(serve_req *r);
int op_batch_get(serve_req *r);
int op_batch_write(serve_req *r);
int op_transact_get(serve_req *r);
int op_transact_write(serve_req *r);
int op_list_streams(serve_req *r);
int op_describe_stream(serve_req *r);
int op_get_shard_iterator(serve_req *r);
int op_get_records(serve_req *r);
/* PartiQL (op_partiql.c, partiql.h) */
int op_execute_statement(serve_req *r);
int op_batch_execute_statement(serve_req *r);
int op_execute_transaction(serve_req *r);
int op_describe_continuous_backups(serve_req *r);
int op_update_continuous_backups(serve_req *r);
int op_describe_kinesis_streaming_destination(serve_req *r);
int op_describe_contributor_insights(serve_req *r);

/* The TableDescription of a table (op_tables.c); NULL after setting the error. */
json_t *table_description(serve_req *r, const char *table, const char *status);
/* A stream's label (its ARN's last part): the time it was enabled,
 * ddb_stream_desc.enabled_ms (op_streams.c). */
char *stream_label(serve_req *r, int64_t enabled_ms);
/* The ARN of a table's stream with that label (op_streams.c). */
char *stream_arn(serve_req *r, const char *table, const char *label);

/* ---- table_settings.c ---- */

/* The settings of a TableDescription t: TableId, CreationDateTime,
 * BillingModeSummary, DeletionProtectionEnabled, LatestStreamArn/Label. */
void settings_describe(serve_req *r, json_t *t, const ddb_table_desc *d, const ddb_stream_desc *sd);
/* UpdateTable's BillingMode, ProvisionedThroughput and
 * DeletionProtectionEnabled, applied when given. */
int settings_update(serve_req *r, const char *table);
/* UpdateTable's StreamSpecification s against the table's stream: enabling
 * an enabled one or disabling a disabled one is a ValidationException. */
int settings_stream_check(serve_req *r, const char *table, const ddb_stream_spec *s);

/* ---- auth.c ---- */

/* Read the keys file: one "ACCESS_KEY_ID SECRET_ACCESS_KEY" per line, '#'
 * comments.  NULL after printing the problem (file:line). */
serve_keys *auth_load(const char *path);
void auth_free(serve_keys *k);
/* Check a request's Authorization header.  0 when valid; otherwise fills
 * out with DynamoDB's error (UnrecognizedClientException,
 * InvalidSignatureException, MissingAuthenticationTokenException,
 * IncompleteSignatureException) and returns -1.  header(name) looks a
 * request header up (case-insensitive). */
typedef const char *(*auth_header_fn)(void *ctx, const char *name);
int auth_check(const server *s, const char *method, const char *path, auth_header_fn header, void *ctx,
               const char *body, size_t len, serve_reply *out);

#endif
