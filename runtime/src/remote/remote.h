/* remote/: the remote backend (room header: what the room offers the API:
 * open, close and its operations table; internal).  It may call core/ and
 * expr/ (and libcurl, OpenSSL, jansson); remote_wire.h, djson.h and
 * sigv4.h are the room's own.
 *
 * Every public operation of <ddb/ddb.h>
 * sent as DynamoDB's JSON protocol (X-Amz-Target: DynamoDB_20120810.<Op>,
 * Content-Type: application/x-amz-json-1.0) over HTTP(S) with libcurl,
 * signed with AWS Signature Version 4, to DynamoDB or a compatible engine
 * (ScyllaDB Alternator, dynalite).
 *
 * Each ddbi_remote_X() is the operation X of the backend interface
 * (core/backend.h): the parameters of the public ddb_X() with the remote
 * handle (ddb_remote, as void *impl) in place of `ddb *db`, arguments
 * checked by the API, and the public contract: the same
 * ownership (results in the caller's arena), the same DDB_E* codes:
 *   ConditionalCheckFailedException        -> DDB_ECONDITION
 *   ValidationException, SerializationException -> DDB_EVALIDATION (message = the server's)
 *   ResourceNotFoundException              -> DDB_ENOTABLE
 *   ResourceInUseException                 -> DDB_EEXISTS
 *   TransactionCanceledException           -> DDB_ECANCELED (per-op reasons in ddb_tx_result)
 *   TransactionConflictException, TransactionInProgressException -> DDB_ECANCELED
 *   ProvisionedThroughputExceededException, ThrottlingException,
 *   RequestLimitExceeded                   -> retried (exponential backoff, full jitter,
 *                                             max_attempts, the retry mode's quota and
 *                                             rate limiter: retry.h), then DDB_ETHROTTLED
 *   InternalServerError, ServiceUnavailable, other HTTP 5xx -> retried the same way, then DDB_EIO
 *   ItemCollectionSizeLimitExceededException, LimitExceededException -> DDB_ELIMIT
 *   UnknownOperationException              -> DDB_ENOTSUP (e.g. dynalite has no transactions)
 *   bad credentials / signature / access   -> DDB_EINVAL
 *   any other error type                   -> DDB_EIO with its type and message
 *   connection, TLS, DNS failures          -> DDB_ENET (curl's error text)
 *   connect or request timeout             -> DDB_ETIMEOUT (curl's error text)
 *   a response that is not DynamoDB JSON of the expected shape (malformed
 *   JSON, wrong types, bad attribute values, truncated body, CRC32
 *   mismatch)                              -> DDB_ENET, message "bad response to <Op> ..."
 * BatchWriteItem / BatchGetItem resubmit UnprocessedItems / UnprocessedKeys
 * with the same backoff; what is still unprocessed after max_attempts is
 * DDB_ETHROTTLED.  Nothing blocks without a bound: every request has a
 * connect and a total timeout, every retry loop an attempt limit, table
 * creation and deletion a wait limit.
 *
 * Credentials come from the AWS SDKs' standard chain and are refreshed
 * before they expire (cred.h, cred_chain.c); settings from the options,
 * the URI, the environment and the shared config file (remote_config.h).
 * Each request ends with one call of the options' on_request callback
 * (remote_metrics.c).
 *
 * Threads: a handle may be used by any number of threads at once.  It
 * holds a small pool of curl easy handles (each keeps its connection
 * alive for reuse) behind a mutex, and a mutex-protected cache of key
 * schemas (Query needs the key attribute names).  The only process-wide
 * state is curl_global_init(), called once through pthread_once by the
 * first ddbi_remote_open() and never undone (libcurl's rule: global cleanup
 * must not race with other users of libcurl in the process). */
#ifndef DDB_REMOTE_H
#define DDB_REMOTE_H

#include <ddb/ddb.h>
#include <ddb/remote.h>

#include "core/backend.h"

typedef struct ddb_remote ddb_remote;

/* Settings of a remote handle: ddb_remote_options of <ddb/remote.h>. */

/* Open a handle (no DynamoDB request is sent; credentials are resolved,
 * see <ddb/remote.h>).  uri (NULL: from the configuration):
 *   http://HOST[:PORT][/PATH][?OPTIONS]   e.g. http://127.0.0.1:8000 (dynalite, Alternator)
 *   https://HOST[:PORT][/PATH][?OPTIONS]
 *   dynamodb://REGION[?OPTIONS]           = https://dynamodb.REGION.amazonaws.com (.com.cn for cn-*)
 * OPTIONS are the ddb_remote_options names above, '&'-separated.  Of opts
 * (the embedded engine's options) only clock_ms / clock_ctx apply: the
 * handle's clock (ddb_clock_ms); the rest means nothing remotely.
 * DDB_EINVAL for a malformed URI, an unknown or malformed option, missing
 * credentials for an https:// or dynamodb:// endpoint, or only one of the
 * key id and secret; DDB_ENOMEM; DDB_ENET if libcurl cannot initialise. */
int ddbi_remote_open(const char *uri, const ddb_options *opts, ddb_remote **out, ddb_error *err);
/* The same with explicit settings (ro may be NULL). */
int ddbi_remote_open_with(const char *uri, const ddb_remote_options *ro, ddb_remote **out, ddb_error *err);
void ddbi_remote_close(void *impl);
/* The endpoint URL requests go to, its region, and the credential source
 * in use ("environment", "profile dev", ...; all owned by r). */
const char *ddbi_remote_endpoint(const ddb_remote *r);
const char *ddbi_remote_region(const ddb_remote *r);
const char *ddbi_remote_cred_source(const ddb_remote *r);
/* Its retry state (retry.h). */
struct ddbi_retry *ddbi_remote_retry(const ddb_remote *r);

/* True when uri names the remote backend (http://, https://, dynamodb://). */
bool ddbi_remote_uri(const char *uri);

/* ddb_sync: nothing to flush; DDB_OK. */
int ddbi_remote_sync(void *impl, ddb_error *err);
/* ddb_clock_ms: the clock_ms the handle was opened with (ddb_options or
 * ddb_remote_options), else the system clock. */
int64_t ddbi_remote_clock_ms(const void *impl);

/* Tables.  create_table sends CreateTable (PAY_PER_REQUEST when rcu and wcu
 * are 0, else PROVISIONED; GSIs of a provisioned table without their own
 * throughput take the table's; a stream view becomes StreamSpecification,
 * its retention settings are not sent: DynamoDB keeps 24 hours) and polls
 * DescribeTable until the table and its indexes are ACTIVE (DDB_ETIMEOUT
 * after table_wait_ms); a ttl_attribute is then set with UpdateTimeToLive
 * (DDB_ENOTSUP, the table created, where the endpoint lacks it).
 * delete_table waits until the table is gone.  describe_table fills
 * item_count and size_bytes from ItemCount / TableSizeBytes (refreshed by
 * DynamoDB about every six hours), partitions = 0 (not reported), the
 * stream view from StreamSpecification and ttl_attribute from
 * DescribeTimeToLive.  list_tables follows LastEvaluatedTableName through
 * every page and returns the names sorted. */
int ddbi_remote_create_table(void *impl, const ddb_table_def *def, ddb_error *err);
int ddbi_remote_delete_table(void *impl, const char *name, ddb_error *err);
int ddbi_remote_describe_table(void *impl, const char *name, ddb_arena *a, ddb_table_desc **out, ddb_error *err);
int ddbi_remote_list_tables(void *impl, ddb_arena *a, const char ***names, size_t *count, ddb_error *err);

/* UpdateTable adding a GSI, then waiting until it is ACTIVE (DynamoDB
 * backfills it meanwhile; *backfilled and *skipped are 0: not reported).
 * DDB_EVALIDATION for a local index; DDB_ENOTSUP when the endpoint takes
 * the request but lists no such index afterwards (dynalite). */
int ddbi_remote_add_index(void *impl, const char *table, const ddb_index_def *x, uint64_t *backfilled,
                          uint64_t *skipped, ddb_error *err);
int ddbi_remote_delete_index(void *impl, const char *table, const char *index, ddb_error *err);
/* Table metadata, kept in the table's tags (see remote_meta.c): values
 * base64 in 256-character chunks under "KEY:0", "KEY:1", ...; keys of at
 * most 120 characters from letters, digits, spaces and _.:/=+-@
 * (DDB_EINVAL / DDB_ELIMIT otherwise); 50 tags per table.  DynamoDB's tags
 * are eventually consistent.  get: DDB_ENOTFOUND when absent; *val is
 * NUL-terminated as well and lives in a. */
int ddbi_remote_table_meta_put(void *impl, const char *table, const char *key, const void *val, size_t len,
                               ddb_error *err);
int ddbi_remote_table_meta_get(void *impl, const char *table, const char *key, ddb_arena *a, void **val,
                               size_t *len, ddb_error *err);

/* Items.  Capacity: whenever return_capacity is not NONE the request asks
 * for INDEXES, so table_read/table_write are filled as the embedded engine
 * fills them; with DDB_CAPACITY_TOTAL the per-index list is then dropped. */
int ddbi_remote_put_item(void *impl, const char *table, const ddb_item *item, const ddb_write_opts *opts,
                         ddb_arena *a, ddb_write_result *res, ddb_error *err);
int ddbi_remote_delete_item(void *impl, const char *table, const ddb_item *key, const ddb_write_opts *opts,
                            ddb_arena *a, ddb_write_result *res, ddb_error *err);
int ddbi_remote_update_item(void *impl, const char *table, const ddb_item *key, const ddb_expr *update,
                            const ddb_write_opts *opts, ddb_arena *a, ddb_write_result *res, ddb_error *err);
/* DDB_ENOTFOUND (with *out NULL, cap filled) when there is no item. */
int ddbi_remote_get_item(void *impl, const char *table, const ddb_item *key, const ddb_get_opts *opts,
                         ddb_arena *a, ddb_item **out, ddb_capacity *cap, ddb_error *err);

/* Batches and transactions.  batch_get: ops of one table with different
 * consistency or projection go out as separate requests; key attributes
 * are added to a projection so that answers can be matched to ops, and
 * removed again when the projection did not ask for them. */
int ddbi_remote_batch_write(void *impl, const ddb_batch_write_op *ops, size_t n, ddb_return_capacity rc,
                            ddb_capacity *cap, ddb_error *err);
int ddbi_remote_batch_get(void *impl, const ddb_batch_get_op *ops, size_t n, ddb_arena *a, ddb_item **items,
                          ddb_return_capacity rc, ddb_capacity *cap, ddb_error *err);
int ddbi_remote_transact_write(void *impl, const ddb_tx_op *ops, size_t n, const ddb_tx_opts *o, ddb_arena *a,
                               ddb_tx_result *res, ddb_error *err);
int ddbi_remote_transact_get(void *impl, const ddb_tx_get *gets, size_t n, ddb_arena *a, ddb_item **items,
                             ddb_return_capacity rc, ddb_capacity *cap, ddb_error *err);

/* Query and Scan.  Query sends a prepared key_condition as its
 * KeyConditionExpression; otherwise it turns pk / sk_op / sk1 / sk2 into
 * one on the table's or index's key attributes (names from DescribeTable,
 * cached in the handle; values under ":k..." names that no request value
 * starts with).  attributes and projection become one
 * ProjectionExpression; start_key / last_key are ExclusiveStartKey /
 * LastEvaluatedKey; segment / total_segments are sent when
 * total_segments > 0. */
int ddbi_remote_query(void *impl, const ddb_query_params *q, ddb_arena *a, ddb_page *out, ddb_error *err);
int ddbi_remote_scan(void *impl, const ddb_scan_params *s, ddb_arena *a, ddb_page *out, ddb_error *err);

/* Streams and TTL.  update_time_to_live sends UpdateTimeToLive (attr NULL
 * or "": disable, naming the attribute DescribeTimeToLive reports);
 * update_table_stream sends UpdateTable's StreamSpecification and waits
 * for ACTIVE.  DynamoDB deletes expired items and trims streams itself:
 * ttl_sweep and stream_trim do nothing and report 0.  Reading DynamoDB
 * Streams (a separate service: ListStreams, DescribeStream,
 * GetShardIterator, GetRecords) is remote_streams.h. */
int ddbi_remote_update_time_to_live(void *impl, const char *table, const char *attr, ddb_error *err);
int ddbi_remote_update_table_stream(void *impl, const char *table, const ddb_stream_spec *spec, ddb_error *err);
int ddbi_remote_update_table(void *impl, const char *table, const ddb_table_update *u, ddb_error *err);
int ddbi_remote_ttl_sweep(void *impl, const char *table, int64_t now_s, uint64_t *deleted, ddb_error *err);
int ddbi_remote_stream_trim(void *impl, const char *table, uint64_t *trimmed, ddb_error *err);

/* The remote backend's operations table (remote_ops.c).  DynamoDB's API
 * has no partitions, consistency checks or reports: those operations are
 * NULL (DDB_ENOTSUP). */
extern const ddbi_backend_ops ddbi_remote_ops;

#endif
