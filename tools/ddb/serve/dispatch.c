/* ddb serve: one request, without HTTP.  The X-Amz-Target header names the
 * operation ("DynamoDB_20120810.PutItem", "DynamoDBStreams_20120810.GetRecords");
 * the body must be one JSON object (DynamoDB answers anything else with a
 * SerializationException, an unknown target with UnknownOperationException);
 * a string value may hold U+0000 (an S value keeps it, wire.c refuses it in
 * names and expressions).
 * The legacy parameters are translated into expressions (legacy.c) before
 * the handler runs.  Each worker thread keeps one arena, reset between
 * requests.  Calls fastreq.c, the op_*.c handlers, legacy.c, reply.c, libddb
 * and jansson. */
#include "serve.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct op_entry {
    const char *name;
    serve_op_fn fn;
} op_entry;

static const op_entry dynamodb_ops[] = {
    {"BatchGetItem", op_batch_get},
    {"BatchExecuteStatement", op_batch_execute_statement},
    {"BatchWriteItem", op_batch_write},
    {"CreateTable", op_create_table},
    {"DeleteItem", op_delete_item},
    {"DeleteTable", op_delete_table},
    {"DescribeContinuousBackups", op_describe_continuous_backups},
    {"DescribeContributorInsights", op_describe_contributor_insights},
    {"DescribeEndpoints", op_describe_endpoints},
    {"DescribeKinesisStreamingDestination", op_describe_kinesis_streaming_destination},
    {"DescribeLimits", op_describe_limits},
    {"DescribeTable", op_describe_table},
    {"DescribeTimeToLive", op_describe_ttl},
    {"ExecuteStatement", op_execute_statement},
    {"ExecuteTransaction", op_execute_transaction},
    {"GetItem", op_get_item},
    {"ListTables", op_list_tables},
    {"ListTagsOfResource", op_list_tags},
    {"PutItem", op_put_item},
    {"Query", op_query},
    {"Scan", op_scan},
    {"TagResource", op_tag_resource},
    {"TransactGetItems", op_transact_get},
    {"TransactWriteItems", op_transact_write},
    {"UntagResource", op_untag_resource},
    {"UpdateContinuousBackups", op_update_continuous_backups},
    {"UpdateItem", op_update_item},
    {"UpdateTable", op_update_table},
    {"UpdateTimeToLive", op_update_ttl},
};

static const op_entry streams_ops[] = {
    {"DescribeStream", op_describe_stream},
    {"GetRecords", op_get_records},
    {"GetShardIterator", op_get_shard_iterator},
    {"ListStreams", op_list_streams},
};

static serve_op_fn lookup(const char *target)
{
    static const char dynamodb[] = "DynamoDB_20120810.", streams[] = "DynamoDBStreams_20120810.";
    const op_entry *t = NULL;
    size_t n = 0;
    if (!target)
        return NULL;
    if (strncmp(target, dynamodb, sizeof dynamodb - 1) == 0) {
        target += sizeof dynamodb - 1;
        t = dynamodb_ops;
        n = sizeof dynamodb_ops / sizeof *dynamodb_ops;
    } else if (strncmp(target, streams, sizeof streams - 1) == 0) {
        target += sizeof streams - 1;
        t = streams_ops;
        n = sizeof streams_ops / sizeof *streams_ops;
    }
    for (size_t i = 0; i < n; i++)
        if (strcmp(t[i].name, target) == 0)
            return t[i].fn;
    return NULL;
}

/* One arena per worker thread, freed when the thread ends. */
static pthread_key_t arena_key;
static pthread_once_t arena_once = PTHREAD_ONCE_INIT;

static void arena_destroy(void *a)
{
    ddb_arena_free(a);
}

static void arena_key_init(void)
{
    pthread_key_create(&arena_key, arena_destroy);
}

static ddb_arena *thread_arena(void)
{
    pthread_once(&arena_once, arena_key_init);
    ddb_arena *a = pthread_getspecific(arena_key);
    if (!a) {
        a = ddb_arena_new();
        if (a && pthread_setspecific(arena_key, a)) {
            ddb_arena_free(a);
            a = NULL;
        }
    }
    return a;
}

/* The request object: fastreq.c's decoding when it takes the body,
 * jansson's tree otherwise.  NULL after filling out with the error. */
static json_t *request_object(serve_req *r, const char *body, size_t len, serve_reply *out)
{
    json_t *in = r->srv->tree_requests ? NULL : fastreq_decode(r, body ? body : "", len);
    if (in)
        return in;
    ddb_arena_reset(r->a); /* what a declined decoding left */
    json_error_t jerr;
    in = json_loadb(body ? body : "", len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &jerr);
    if (!in || !json_is_object(in)) {
        char msg[300];
        if (in)
            snprintf(msg, sizeof msg, "Start of structure or map expected, found a JSON %s",
                     json_is_array(in) ? "array" : "scalar");
        else
            snprintf(msg, sizeof msg, "Malformed JSON at line %d column %d: %s", jerr.line, jerr.column, jerr.text);
        json_decref(in);
        serve_error_reply(out, 400, "SerializationException", msg, NULL);
        return NULL;
    }
    char nul_msg[300];
    if (w_nul_problem(in, nul_msg, sizeof nul_msg)) {
        json_decref(in);
        serve_error_reply(out, 400, "ValidationException", nul_msg, NULL);
        return NULL;
    }
    return in;
}

void serve_call(server *s, const char *target, const char *host, const char *body, size_t len, serve_reply *out)
{
    memset(out, 0, sizeof *out);
    serve_op_fn fn = lookup(target);
    if (!fn) {
        serve_error_reply(out, 400, "UnknownOperationException", "An unknown operation was requested.", NULL);
        return;
    }
    ddb_arena *a = thread_arena();
    if (!a) {
        serve_error_reply(out, 500, "InternalServerError", "out of memory", NULL);
        return;
    }
    serve_req r;
    memset(&r, 0, sizeof r);
    r.srv = s;
    r.a = a;
    r.host = host;
    r.op = fn;
    json_t *in = request_object(&r, body, len, out);
    if (!in) {
        ddb_arena_reset(a);
        return;
    }
    r.in = in;
    r.out = json_object();
    json_t *translated = NULL;
    unsigned legacy = 0;
    int rc = !r.out ? serve_fail_code(&r, DDB_ENOMEM) : w_shape_check(&r, fn);
    if (rc == 0)
        rc = legacy_translate(&r, fn, &translated, &legacy);
    if (translated)
        r.in = translated;
    if (rc == 0)
        rc = fn(&r);
    if (rc && legacy)
        legacy_reword(&r, legacy);
    if (rc == 0) {
        out->status = 200;
        /* API_TagResource, API_UntagResource: no response elements, and
         * DynamoDB sends an empty body, not "{}" */
        if (fn == op_tag_resource || fn == op_untag_resource) {
            out->body = strdup("");
            out->len = 0;
        } else
            w_reply_body(&r, out);
        if (!out->body)
            serve_error_reply(out, 500, "InternalServerError", "a response could not be encoded", NULL);
    } else {
        if (!r.fail_type)
            serve_fail_code(&r, rc);
        serve_error_reply(out, r.fail_status, r.fail_type, r.err.message, r.fail_extra);
    }
    if (r.table)
        snprintf(out->table, sizeof out->table, "%s", r.table);
    json_decref(r.fail_extra);
    json_decref(r.out);
    jw_free(&r.direct);
    for (size_t i = 0; i < r.n_exprs; i++)
        ddb_expr_free(r.exprs[i]);
    free(r.exprs);
    json_decref(translated);
    json_decref(in);
    ddb_arena_reset(a);
}
