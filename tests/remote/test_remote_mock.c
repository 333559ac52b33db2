/* The remote backend against a local responder replaying DynamoDB's
 * documented responses: success paths, every error mapping, retries with
 * bounds, broken responses and broken networks.  Each case must end in a
 * clear error: no crash, no hang. */
#include "mockserver.h"
#include "remote/remote.h"

#include <ddb/ddb.h>
#include <ddb/json.h>
#include <jansson.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ERR(type, msg) "{\"__type\":\"com.amazonaws.dynamodb.v20120810#" type "\",\"message\":\"" msg "\"}"

static const char *const THROTTLED = ERR("ProvisionedThroughputExceededException",
                                         "The level of configured provisioned throughput for the table was exceeded. "
                                         "Consider increasing your provisioning level with the UpdateTable API.");

/* GetItem's documented example response (Thread table). */
static const char *const GET_ITEM_REPLY =
    "{\"ConsumedCapacity\":{\"CapacityUnits\":1,\"TableName\":\"Thread\"},"
    "\"Item\":{\"Tags\":{\"SS\":[\"Update\",\"Multiple Items\",\"HelpMe\"]},"
    "\"LastPostDateTime\":{\"S\":\"201303190436\"},"
    "\"Message\":{\"S\":\"I want to update multiple items in a single call. What's the best way to do that?\"}}}";

/* DescribeTable of the Reply table of DynamoDB's examples. */
static const char *const DESCRIBE_REPLY =
    "{\"Table\":{\"TableName\":\"Reply\",\"TableStatus\":\"ACTIVE\",\"ItemCount\":3,\"TableSizeBytes\":300,"
    "\"AttributeDefinitions\":[{\"AttributeName\":\"Id\",\"AttributeType\":\"S\"},"
    "{\"AttributeName\":\"ReplyDateTime\",\"AttributeType\":\"S\"},{\"AttributeName\":\"PostedBy\",\"AttributeType\":"
    "\"S\"}],"
    "\"KeySchema\":[{\"AttributeName\":\"Id\",\"KeyType\":\"HASH\"},{\"AttributeName\":\"ReplyDateTime\",\"KeyType\":"
    "\"RANGE\"}],"
    "\"ProvisionedThroughput\":{\"ReadCapacityUnits\":5,\"WriteCapacityUnits\":5},"
    "\"StreamSpecification\":{\"StreamEnabled\":true,\"StreamViewType\":\"NEW_AND_OLD_IMAGES\"},"
    "\"TableArn\":\"arn:aws:dynamodb:us-east-1:123456789012:table/Reply\","
    "\"GlobalSecondaryIndexes\":[{\"IndexName\":\"PostedBy-index\",\"IndexStatus\":\"ACTIVE\","
    "\"KeySchema\":[{\"AttributeName\":\"PostedBy\",\"KeyType\":\"HASH\"}],\"Projection\":{\"ProjectionType\":\"KEYS_"
    "ONLY\"},"
    "\"ProvisionedThroughput\":{\"ReadCapacityUnits\":1,\"WriteCapacityUnits\":1}}]}}";

/* Query's documented example response, with a LastEvaluatedKey. */
static const char *const QUERY_REPLY =
    "{\"ConsumedCapacity\":{\"CapacityUnits\":1,\"TableName\":\"Reply\"},\"Count\":2,"
    "\"Items\":[{\"ReplyDateTime\":{\"S\":\"2015-02-18T20:27:36.165Z\"},\"Id\":{\"S\":\"Amazon DynamoDB#DynamoDB "
    "Thread 1\"}},"
    "{\"ReplyDateTime\":{\"S\":\"2015-02-25T20:27:36.165Z\"},\"Id\":{\"S\":\"Amazon DynamoDB#DynamoDB Thread 1\"}}],"
    "\"ScannedCount\":2,\"LastEvaluatedKey\":{\"ReplyDateTime\":{\"S\":\"2015-02-25T20:27:36.165Z\"},"
    "\"Id\":{\"S\":\"Amazon DynamoDB#DynamoDB Thread 1\"}}}";

static ddb_remote *open_mock(mock *m, const char *query)
{
    char uri[256];
    mock_uri(m, query, uri, sizeof uri);
    ddb_remote *r = NULL;
    ddb_error err = {0};
    int rc = ddbi_remote_open(uri, NULL, &r, &err);
    if (rc)
        fail_msg("ddbi_remote_open(%s): %s", uri, err.message);
    return r;
}

static json_t *request(mock *m, size_t i)
{
    json_error_t je;
    json_t *j = json_loads(mock_body(m, i), 0, &je);
    if (!j)
        fail_msg("request %zu is not JSON: %s (%s)", i, je.text, mock_body(m, i));
    return j;
}

static const char *jstr(const json_t *j, const char *path)
{
    /* "a.b.c" lookup of a string */
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    const json_t *cur = j;
    for (char *save = NULL, *tok = strtok_r(buf, ".", &save); tok && cur; tok = strtok_r(NULL, ".", &save))
        cur = json_object_get(cur, tok);
    return json_is_string(cur) ? json_string_value(cur) : NULL;
}

static ddb_item *thread_item(ddb_arena *a)
{
    ddb_item *it = ddb_item_new(a);
    ddb_item_set_s(it, "ForumName", "Amazon DynamoDB");
    ddb_item_set_s(it, "Subject", "How do I update multiple items?");
    ddb_item_set_s(it, "LastPostedBy", "fred@example.com");
    ddb_value *tags = ddb_v_set(a, DDB_TSS);
    ddb_set_add(a, tags, ddb_v_str(a, "Update"), NULL);
    ddb_set_add(a, tags, ddb_v_str(a, "HelpMe"), NULL);
    ddb_item_set(it, "Tags", tags);
    return it;
}

static ddb_item *key_item(ddb_arena *a, const char *forum, const char *subject)
{
    ddb_item *k = ddb_item_new(a);
    ddb_item_set_s(k, "ForumName", forum);
    ddb_item_set_s(k, "Subject", subject);
    return k;
}

static double elapsed_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* ---- success paths -------------------------------------------------------------- */

static void test_put_get_query(void **state)
{
    (void)state;
    mock_step steps[] = {
        {MOCK_REPLY, 200,
         "{\"ConsumedCapacity\":{\"TableName\":\"Thread\",\"CapacityUnits\":1.0,"
         "\"Table\":{\"CapacityUnits\":1.0}}}"},
        {MOCK_REPLY, 200, GET_ITEM_REPLY},
        {MOCK_REPLY, 200, DESCRIBE_REPLY},
        {MOCK_REPLY, 200, QUERY_REPLY},
        {MOCK_REPLY, 200, QUERY_REPLY},
    };
    mock *m = mock_start(steps, 5);
    ddb_remote *r = open_mock(m, "");
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};

    /* PutItem with the documented condition */
    ddb_item *values = ddb_item_new(a);
    ddb_item_set_s(values, ":f", "Amazon DynamoDB");
    ddb_item_set_s(values, ":s", "How do I update multiple items?");
    ddb_expr *cond;
    assert_int_equal(ddb_expr_prepare(DDB_EXPR_CONDITION, "ForumName <> :f and Subject <> :s", NULL, &cond, &err), 0);
    ddb_write_opts wo = {DDB_RETURN_NONE, DDB_CAPACITY_TOTAL, cond, values, DDB_RETURN_NONE};
    ddb_write_result res;
    assert_int_equal(ddbi_remote_put_item(r, "Thread", thread_item(a), &wo, a, &res, &err), 0);
    assert_true(res.capacity.total == 1.0 && res.capacity.write == 1.0 && res.capacity.table_write == 1.0);
    assert_null(res.attributes);
    assert_string_equal(mock_target(m, 0), "DynamoDB_20120810.PutItem");
    const char *auth = mock_auth(m, 0);
    assert_true(strncmp(auth, "AWS4-HMAC-SHA256 Credential=ddbgen-local/", 41) == 0);
    assert_non_null(strstr(auth, "/us-east-1/dynamodb/aws4_request, SignedHeaders=content-type;host;x-amz-date;"
                                 "x-amz-target, Signature="));
    char host[64];
    snprintf(host, sizeof host, "127.0.0.1:%d", mock_port(m));
    assert_string_equal(mock_host(m, 0), host);
    json_t *j = request(m, 0);
    assert_string_equal(jstr(j, "TableName"), "Thread");
    assert_string_equal(jstr(j, "ConditionExpression"), "#n0 <> :f AND #n1 <> :s");
    assert_string_equal(jstr(j, "ExpressionAttributeNames.#n0"), "ForumName");
    assert_string_equal(jstr(j, "ExpressionAttributeNames.#n1"), "Subject");
    assert_string_equal(jstr(j, "ExpressionAttributeValues.:f.S"), "Amazon DynamoDB");
    assert_string_equal(jstr(j, "Item.LastPostedBy.S"), "fred@example.com");
    assert_string_equal(jstr(j, "ReturnConsumedCapacity"), "INDEXES");
    assert_int_equal(json_array_size(json_object_get(json_object_get(json_object_get(j, "Item"), "Tags"), "SS")), 2);
    json_decref(j);
    ddb_expr_free(cond);

    /* GetItem: the documented answer, projected attributes as a ProjectionExpression */
    const char *attrs[] = {"LastPostDateTime", "Message", "Tags"};
    ddb_get_opts go = {true, attrs, 3, DDB_CAPACITY_TOTAL, NULL};
    ddb_item *got;
    ddb_capacity cap;
    assert_int_equal(ddbi_remote_get_item(r, "Thread", key_item(a, "Amazon DynamoDB", "How do I update multiple items?"),
                                         &go, a, &got, &cap, &err),
                     0);
    assert_int_equal(ddb_item_count(got), 3);
    assert_int_equal(ddb_item_get(got, "Tags")->type, DDB_TSS);
    assert_int_equal(ddb_item_get(got, "Tags")->len, 3);
    assert_string_equal(ddb_item_get(got, "LastPostDateTime")->u.s, "201303190436");
    assert_true(cap.total == 1.0 && cap.read == 1.0 && cap.table_read == 1.0);
    j = request(m, 1);
    assert_string_equal(jstr(j, "ProjectionExpression"), "#n0, #n1, #n2");
    assert_string_equal(jstr(j, "ExpressionAttributeNames.#n1"), "Message");
    assert_true(json_is_true(json_object_get(j, "ConsistentRead")));
    json_decref(j);

    /* Query: key names from DescribeTable, then the documented page */
    ddb_query_params q = {0};
    q.table = "Reply";
    q.pk = ddb_v_str(a, "Amazon DynamoDB#DynamoDB Thread 1");
    q.sk_op = DDB_SK_BEGINS_WITH;
    q.sk1 = ddb_v_str(a, "2015-02");
    q.limit = 2;
    q.backward = true;
    q.return_capacity = DDB_CAPACITY_INDEXES;
    ddb_page page;
    assert_int_equal(ddbi_remote_query(r, &q, a, &page, &err), 0);
    assert_int_equal(page.count, 2);
    assert_int_equal(page.scanned_count, 2);
    assert_non_null(page.last_key);
    assert_string_equal(ddb_item_get(page.last_key, "ReplyDateTime")->u.s, "2015-02-25T20:27:36.165Z");
    assert_true(page.capacity.total == 1.0);
    assert_string_equal(mock_target(m, 2), "DynamoDB_20120810.DescribeTable");
    j = request(m, 3);
    assert_string_equal(jstr(j, "KeyConditionExpression"), "#n0 = :kp AND begins_with(#n1, :k1)");
    assert_string_equal(jstr(j, "ExpressionAttributeNames.#n0"), "Id");
    assert_string_equal(jstr(j, "ExpressionAttributeNames.#n1"), "ReplyDateTime");
    assert_string_equal(jstr(j, "ExpressionAttributeValues.:k1.S"), "2015-02");
    assert_int_equal(json_integer_value(json_object_get(j, "Limit")), 2);
    assert_true(json_is_false(json_object_get(j, "ScanIndexForward")));
    json_decref(j);

    /* second page: the key schema comes from the cache; a filter value
     * named like the generated ones pushes them aside */
    q.start_key = page.last_key;
    q.sk_op = DDB_SK_BETWEEN;
    q.sk2 = ddb_v_str(a, "2015-03");
    ddb_item *fv = ddb_item_new(a);
    ddb_item_set_s(fv, ":kp", "fred");
    ddb_expr *filter;
    assert_int_equal(ddb_expr_prepare(DDB_EXPR_FILTER, "PostedBy = :kp", NULL, &filter, &err), 0);
    q.filter = filter;
    q.values = fv;
    assert_int_equal(ddbi_remote_query(r, &q, a, &page, &err), 0);
    assert_int_equal(mock_count(m), 5);
    j = request(m, 4);
    assert_string_equal(jstr(j, "KeyConditionExpression"), "#n0 = :_kp AND #n1 BETWEEN :_k1 AND :_k2");
    assert_string_equal(jstr(j, "FilterExpression"), "#n2 = :kp");
    assert_string_equal(jstr(j, "ExpressionAttributeValues.:kp.S"), "fred");
    assert_string_equal(jstr(j, "ExclusiveStartKey.ReplyDateTime.S"), "2015-02-25T20:27:36.165Z");
    json_decref(j);
    ddb_expr_free(filter);

    ddb_arena_free(a);
    ddbi_remote_close(r);
    mock_stop(m);
}

static void test_describe_list_create(void **state)
{
    (void)state;
    mock_step steps[] = {
        {MOCK_REPLY, 200, DESCRIBE_REPLY},
        {MOCK_REPLY, 200,
         "{\"TimeToLiveDescription\":{\"TimeToLiveStatus\":\"ENABLED\",\"AttributeName\":\"expires\"}}"},
        {MOCK_REPLY, 200, "{\"TableNames\":[\"b\",\"a\"],\"LastEvaluatedTableName\":\"b\"}"},
        {MOCK_REPLY, 200, "{\"TableNames\":[\"c\"]}"},
        /* CreateTable, then CREATING, then ACTIVE */
        {MOCK_REPLY, 200, "{\"TableDescription\":{}}"},
        {MOCK_REPLY, 200,
         "{\"Table\":{\"TableName\":\"T\",\"TableStatus\":\"CREATING\",\"AttributeDefinitions\":"
         "[{\"AttributeName\":\"pk\",\"AttributeType\":\"S\"}],\"KeySchema\":[{\"AttributeName\":"
         "\"pk\",\"KeyType\":\"HASH\"}]}}"},
        {MOCK_REPLY, 200,
         "{\"Table\":{\"TableName\":\"T\",\"TableStatus\":\"ACTIVE\",\"AttributeDefinitions\":"
         "[{\"AttributeName\":\"pk\",\"AttributeType\":\"S\"}],\"KeySchema\":[{\"AttributeName\":"
         "\"pk\",\"KeyType\":\"HASH\"}]}}"},
    };
    mock *m = mock_start(steps, 7);
    ddb_remote *r = open_mock(m, "");
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    ddb_table_desc *d;
    assert_int_equal(ddbi_remote_describe_table(r, "Reply", a, &d, &err), 0);
    assert_string_equal(d->def.name, "Reply");
    assert_string_equal(d->def.key.pk, "Id");
    assert_string_equal(d->def.key.sk, "ReplyDateTime");
    assert_int_equal(d->def.key.sk_type, DDB_TS);
    assert_int_equal(d->def.rcu, 5);
    assert_int_equal(d->def.n_indexes, 1);
    assert_string_equal(d->def.indexes[0].name, "PostedBy-index");
    assert_int_equal(d->def.indexes[0].projection, DDB_PROJ_KEYS_ONLY);
    assert_false(d->def.indexes[0].local);
    assert_int_equal(d->item_count, 3);
    assert_int_equal(d->size_bytes, 300);
    assert_string_equal(d->def.ttl_attribute, "expires");
    assert_int_equal(d->def.stream.view, DDB_STREAM_NEW_AND_OLD_IMAGES);
    assert_string_equal(mock_target(m, 1), "DynamoDB_20120810.DescribeTimeToLive");

    const char **names;
    size_t n;
    assert_int_equal(ddbi_remote_list_tables(r, a, &names, &n, &err), 0);
    assert_int_equal(n, 3);
    assert_string_equal(names[0], "a");
    assert_string_equal(names[2], "c");
    json_t *j = request(m, 3);
    assert_string_equal(jstr(j, "ExclusiveStartTableName"), "b");
    json_decref(j);

    const char *inc[] = {"x"};
    ddb_index_def ix[] = {{.name = "g1",
                           .local = false,
                           .key = {.pk = "gpk", .pk_type = DDB_TN, .sk = "gsk", .sk_type = DDB_TS},
                           .projection = DDB_PROJ_INCLUDE,
                           .include = inc,
                           .n_include = 1},
                          {.name = "l1",
                           .local = true,
                           .key = {.pk = "pk", .pk_type = DDB_TS, .sk = "lsk", .sk_type = DDB_TB},
                           .projection = DDB_PROJ_KEYS_ONLY,
                           .include = NULL,
                           .n_include = 0}};
    ddb_table_def def = {
        .name = "T", .key = {.pk = "pk", .pk_type = DDB_TS, .sk = "sk", .sk_type = DDB_TS}, .indexes = ix, .n_indexes = 2, .rcu = 10, .wcu = 5};
    def.stream.view = DDB_STREAM_KEYS_ONLY;
    assert_int_equal(ddbi_remote_create_table(r, &def, &err), 0);
    assert_int_equal(mock_count(m), 7);
    j = request(m, 4);
    assert_true(json_is_true(json_object_get(json_object_get(j, "StreamSpecification"), "StreamEnabled")));
    assert_string_equal(jstr(j, "StreamSpecification.StreamViewType"), "KEYS_ONLY");
    assert_string_equal(jstr(j, "BillingMode"), "PROVISIONED");
    assert_int_equal(json_array_size(json_object_get(j, "AttributeDefinitions")), 5);
    json_t *g = json_array_get(json_object_get(j, "GlobalSecondaryIndexes"), 0);
    assert_string_equal(jstr(g, "Projection.ProjectionType"), "INCLUDE");
    assert_int_equal(
        json_integer_value(json_object_get(json_object_get(g, "ProvisionedThroughput"), "ReadCapacityUnits")), 10);
    json_t *l = json_array_get(json_object_get(j, "LocalSecondaryIndexes"), 0);
    assert_null(json_object_get(l, "ProvisionedThroughput"));
    assert_string_equal(jstr(json_array_get(json_object_get(l, "KeySchema"), 1), "KeyType"), "RANGE");
    json_decref(j);

    /* a second type for one attribute is refused before sending */
    ddb_index_def bad[] = {{.name = "g2",
                            .local = false,
                            .key = {.pk = "pk", .pk_type = DDB_TN, .sk = NULL, .sk_type = DDB_TNONE},
                            .projection = DDB_PROJ_ALL,
                            .include = NULL,
                            .n_include = 0}};
    ddb_table_def def2 = {
        .name = "T2", .key = {.pk = "pk", .pk_type = DDB_TS, .sk = NULL, .sk_type = DDB_TNONE}, .indexes = bad, .n_indexes = 1, .rcu = 0, .wcu = 0};
    assert_int_equal(ddbi_remote_create_table(r, &def2, &err), DDB_EVALIDATION);
    assert_int_equal(mock_count(m), 7);

    ddb_arena_free(a);
    ddbi_remote_close(r);
    mock_stop(m);
}

static void test_create_table_wait_bounded(void **state)
{
    (void)state;
    mock_step steps[] = {
        {MOCK_REPLY, 200, "{}"},
        {MOCK_REPLY, 200,
         "{\"Table\":{\"TableName\":\"T\",\"TableStatus\":\"CREATING\",\"AttributeDefinitions\":"
         "[{\"AttributeName\":\"pk\",\"AttributeType\":\"S\"}],\"KeySchema\":[{\"AttributeName\":"
         "\"pk\",\"KeyType\":\"HASH\"}]}}"},
    };
    mock *m = mock_start(steps, 2);
    ddb_remote *r = open_mock(m, "table_wait_ms=200");
    ddb_error err = {0};
    ddb_table_def def = {
        .name = "T", .key = {.pk = "pk", .pk_type = DDB_TS, .sk = NULL, .sk_type = DDB_TNONE}, .indexes = NULL, .n_indexes = 0, .rcu = 0, .wcu = 0};
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_int_equal(ddbi_remote_create_table(r, &def, &err), DDB_ETIMEOUT);
    assert_true(elapsed_since(&t0) < 5.0);
    assert_non_null(strstr(err.message, "CREATING"));
    ddbi_remote_close(r);
    mock_stop(m);
}

#define REPLY_TABLE(extra)                                                                                             \
    "{\"Table\":{\"TableName\":\"Reply\",\"TableStatus\":\"ACTIVE\",\"TableArn\":\"arn:aws:dynamodb:us-east-1:1:"      \
    "table/Reply\","                                                                                                   \
    "\"AttributeDefinitions\":[{\"AttributeName\":\"Id\",\"AttributeType\":\"S\"},"                                    \
    "{\"AttributeName\":\"By\",\"AttributeType\":\"S\"}],"                                                             \
    "\"KeySchema\":[{\"AttributeName\":\"Id\",\"KeyType\":\"HASH\"}],"                                                 \
    "\"ProvisionedThroughput\":{\"ReadCapacityUnits\":5,\"WriteCapacityUnits\":4}" extra "}}"
#define NEW_INDEX(status)                                                                                              \
    ",\"GlobalSecondaryIndexes\":[{\"IndexName\":\"By-index\",\"IndexStatus\":\"" status "\","                         \
    "\"KeySchema\":[{\"AttributeName\":\"By\",\"KeyType\":\"HASH\"}],\"Projection\":{\"ProjectionType\":\"ALL\"}}]"

static void test_add_index_meta_ttl(void **state)
{
    (void)state;
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    /* a 300-byte value: 400 base64 characters, two tags */
    char value[301];
    for (int i = 0; i < 300; i++)
        value[i] = (char)('a' + i % 26);
    value[300] = '\0';
    char b64[512];
    ddb_json_base64_encode((const uint8_t *)value, 300, b64);
    char page1[1024], page2[1024], listed[1024];
    snprintf(page1, sizeof page1, "{\"Tags\":[{\"Key\":\"k.x:1\",\"Value\":\"%s\"}],\"NextToken\":\"t1\"}", b64 + 256);
    snprintf(page2, sizeof page2,
             "{\"Tags\":[{\"Key\":\"k.x:0\",\"Value\":\"%.256s\"},{\"Key\":\"k.xy:0\",\"Value\":\"\"}]}", b64);
    snprintf(listed, sizeof listed,
             "{\"Tags\":[{\"Key\":\"k.x:0\",\"Value\":\"old\"},{\"Key\":\"k.x:2\",\"Value\":\"old\"},"
             "{\"Key\":\"k.x:10\",\"Value\":\"old\"},{\"Key\":\"other\",\"Value\":\"y\"}]}");
    mock_step steps[] = {
        /* ddb_add_index: describe, UpdateTable, describe (CREATING), describe (ACTIVE) */
        {MOCK_REPLY, 200, REPLY_TABLE("")},
        {MOCK_REPLY, 200, "{}"},
        {MOCK_REPLY, 200, REPLY_TABLE(NEW_INDEX("CREATING"))},
        {MOCK_REPLY, 200, REPLY_TABLE(NEW_INDEX("ACTIVE"))},
        /* meta put: ARN, tags, untag stale chunks, tag */
        {MOCK_REPLY, 200, REPLY_TABLE("")},
        {MOCK_REPLY, 200, listed},
        {MOCK_REPLY, 200, "{}"},
        {MOCK_REPLY, 200, "{}"},
        /* meta get: ARN, two pages of tags */
        {MOCK_REPLY, 200, REPLY_TABLE("")},
        {MOCK_REPLY, 200, page1},
        {MOCK_REPLY, 200, page2},
        /* meta get of an absent key */
        {MOCK_REPLY, 200, REPLY_TABLE("")},
        {MOCK_REPLY, 200, "{\"Tags\":[]}"},
        /* an endpoint that does not create the index */
        {MOCK_REPLY, 200, REPLY_TABLE("")},
        {MOCK_REPLY, 200, "{}"},
        {MOCK_REPLY, 200, REPLY_TABLE("")},
        /* CreateTable with TTL on an endpoint without UpdateTimeToLive */
        {MOCK_REPLY, 200, "{}"},
        {MOCK_REPLY, 200, REPLY_TABLE("")},
        {MOCK_REPLY, 400, "{\"__type\":\"com.amazon.coral.service#UnknownOperationException\"}"},
    };
    mock *m = mock_start(steps, sizeof steps / sizeof *steps);
    ddb_remote *r = open_mock(m, "");
    ddb_index_def x = {.name = "By-index", .key = {.pk = "By", .pk_type = DDB_TS, .sk = NULL, .sk_type = DDB_TNONE}, .projection = DDB_PROJ_ALL};
    uint64_t filled = 99, skipped = 99;
    assert_int_equal(ddbi_remote_add_index(r, "Reply", &x, &filled, &skipped, &err), 0);
    assert_int_equal(filled, 0);
    assert_int_equal(mock_count(m), 4);
    json_t *j = request(m, 1);
    assert_string_equal(mock_target(m, 1), "DynamoDB_20120810.UpdateTable");
    json_t *c = json_object_get(json_array_get(json_object_get(j, "GlobalSecondaryIndexUpdates"), 0), "Create");
    assert_string_equal(jstr(c, "IndexName"), "By-index");
    assert_int_equal(
        json_integer_value(json_object_get(json_object_get(c, "ProvisionedThroughput"), "WriteCapacityUnits")), 4);
    assert_int_equal(json_array_size(json_object_get(j, "AttributeDefinitions")), 1);
    json_decref(j);

    assert_int_equal(ddbi_remote_table_meta_put(r, "Reply", "k.x", value, 300, &err), 0);
    assert_int_equal(mock_count(m), 8);
    assert_string_equal(mock_target(m, 6), "DynamoDB_20120810.UntagResource");
    j = request(m, 6);
    json_t *keys = json_object_get(j, "TagKeys");
    assert_int_equal(json_array_size(keys), 2);
    assert_string_equal(json_string_value(json_array_get(keys, 0)), "k.x:2");
    assert_string_equal(json_string_value(json_array_get(keys, 1)), "k.x:10");
    json_decref(j);
    j = request(m, 7);
    assert_string_equal(jstr(j, "ResourceArn"), "arn:aws:dynamodb:us-east-1:1:table/Reply");
    json_t *tags = json_object_get(j, "Tags");
    assert_int_equal(json_array_size(tags), 2);
    assert_string_equal(jstr(json_array_get(tags, 1), "Key"), "k.x:1");
    assert_string_equal(jstr(json_array_get(tags, 1), "Value"), b64 + 256);
    assert_int_equal(strlen(jstr(json_array_get(tags, 0), "Value")), 256);
    json_decref(j);

    void *got;
    size_t len;
    assert_int_equal(ddbi_remote_table_meta_get(r, "Reply", "k.x", a, &got, &len, &err), 0);
    assert_int_equal(len, 300);
    assert_string_equal((char *)got, value);
    j = request(m, 10);
    assert_string_equal(jstr(j, "NextToken"), "t1");
    json_decref(j);
    assert_int_equal(ddbi_remote_table_meta_get(r, "Reply", "k.q", a, &got, &len, &err), DDB_ENOTFOUND);
    assert_int_equal(ddbi_remote_table_meta_put(r, "Reply", "bad#key", "v", 1, &err), DDB_EINVAL);
    assert_int_equal(mock_count(m), 13);

    assert_int_equal(ddbi_remote_add_index(r, "Reply", &x, NULL, NULL, &err), DDB_ENOTSUP);
    assert_non_null(strstr(err.message, "created no index By-index"));
    x.local = true;
    assert_int_equal(ddbi_remote_add_index(r, "Reply", &x, NULL, NULL, &err), DDB_EVALIDATION);

    ddb_table_def def = {.name = "Reply", .key = {.pk = "Id", .pk_type = DDB_TS, .sk = NULL, .sk_type = DDB_TNONE}, .ttl_attribute = "expires"};
    assert_int_equal(ddbi_remote_create_table(r, &def, &err), DDB_ENOTSUP);
    assert_non_null(strstr(err.message, "was created, but the endpoint cannot set its TTL"));
    j = request(m, 18);
    assert_string_equal(jstr(j, "TimeToLiveSpecification.AttributeName"), "expires");
    json_decref(j);
    ddb_arena_free(a);
    ddbi_remote_close(r);
    mock_stop(m);
}

static void test_stream_ttl_settings(void **state)
{
    (void)state;
    mock_step steps[] = {
        /* enable TTL */
        {MOCK_REPLY, 200, "{\"TimeToLiveSpecification\":{\"Enabled\":true,\"AttributeName\":\"exp\"}}"},
        /* disable: which attribute?, then UpdateTimeToLive */
        {MOCK_REPLY, 200, "{\"TimeToLiveDescription\":{\"TimeToLiveStatus\":\"ENABLED\",\"AttributeName\":\"exp\"}}"},
        {MOCK_REPLY, 200, "{}"},
        /* disable when already disabled: nothing to send */
        {MOCK_REPLY, 200, "{\"TimeToLiveDescription\":{\"TimeToLiveStatus\":\"DISABLED\"}}"},
        /* a stream: UpdateTable, then ACTIVE */
        {MOCK_REPLY, 200, "{}"},
        {MOCK_REPLY, 200, REPLY_TABLE("")},
    };
    mock *m = mock_start(steps, sizeof steps / sizeof *steps);
    ddb_remote *r = open_mock(m, "");
    ddb_error err = {0};
    assert_int_equal(ddbi_remote_update_time_to_live(r, "Reply", "exp", &err), 0);
    json_t *j = request(m, 0);
    assert_true(json_is_true(json_object_get(json_object_get(j, "TimeToLiveSpecification"), "Enabled")));
    json_decref(j);
    assert_int_equal(ddbi_remote_update_time_to_live(r, "Reply", NULL, &err), 0);
    j = request(m, 2);
    assert_string_equal(mock_target(m, 2), "DynamoDB_20120810.UpdateTimeToLive");
    assert_true(json_is_false(json_object_get(json_object_get(j, "TimeToLiveSpecification"), "Enabled")));
    assert_string_equal(jstr(j, "TimeToLiveSpecification.AttributeName"), "exp");
    json_decref(j);
    assert_int_equal(ddbi_remote_update_time_to_live(r, "Reply", "", &err), 0);
    assert_int_equal(mock_count(m), 4);
    ddb_stream_spec spec = {DDB_STREAM_NEW_IMAGE, 0, 0};
    assert_int_equal(ddbi_remote_update_table_stream(r, "Reply", &spec, &err), 0);
    j = request(m, 4);
    assert_string_equal(jstr(j, "StreamSpecification.StreamViewType"), "NEW_IMAGE");
    json_decref(j);
    assert_int_equal(mock_count(m), 6);

    /* what the service does by itself, and what only the embedded engine has */
    uint64_t n = 9;
    assert_int_equal(ddbi_remote_ttl_sweep(r, NULL, 0, &n, &err), 0);
    assert_int_equal(n, 0);
    n = 9;
    assert_int_equal(ddbi_remote_stream_trim(r, "Reply", &n, &err), 0);
    assert_int_equal(n, 0);
    /* operations the remote backend lacks answer DDB_ENOTSUP through the
     * public API (no request is sent) */
    char uri[256];
    mock_uri(m, "", uri, sizeof uri);
    ddb *db = NULL;
    assert_int_equal(ddb_open(uri, NULL, &db, &err), 0);
    ddb_check_report rep;
    assert_int_equal(ddb_check_table(db, "Reply", &rep, &err), DDB_ENOTSUP);
    assert_string_equal(err.message, "ddb_check_table: not supported by the remote backend");
    assert_int_equal(ddb_stream_check(db, "Reply", &rep, &err), DDB_ENOTSUP);
    ddb_partition_stats *ps;
    size_t np;
    assert_int_equal(ddb_table_stats(db, "Reply", NULL, &ps, &np, &err), DDB_ENOTSUP);
    ddb_table_report *tr;
    assert_int_equal(ddb_table_report_build(db, "Reply", 5, NULL, &tr, &err), DDB_ENOTSUP);
    ddb_close(db);
    assert_int_equal(ddbi_remote_sync(r, &err), 0);
    assert_int_equal(mock_count(m), 6);
    ddbi_remote_close(r);
    mock_stop(m);
}

/* ---- server errors ----------------------------------------------------------------- */

typedef struct error_case {
    int status;
    const char *body;
    int code;
    const char *message; /* expected substring */
} error_case;

static void test_error_mapping(void **state)
{
    (void)state;
    const error_case cases[] = {
        {400, ERR("ConditionalCheckFailedException", "The conditional request failed"), DDB_ECONDITION,
         "The conditional request failed"},
        {400, ERR("ValidationException", "One or more parameter values were invalid: Missing the key pk in the item"),
         DDB_EVALIDATION, "One or more parameter values were invalid: Missing the key pk in the item"},
        /* a size or count limit is DDB_ELIMIT, as the embedded engine says it (docs/CONFORMANCE.md) */
        {400, ERR("ValidationException", "Item size has exceeded the maximum allowed size"), DDB_ELIMIT,
         "Item size has exceeded the maximum allowed size"},
        {400,
         ERR("ValidationException", "One or more parameter values were invalid: Size of hashkey has exceeded the "
                                    "maximum size limit of2048 bytes"),
         DDB_ELIMIT, "Size of hashkey"},
        {400,
         ERR("ValidationException", "Invalid ConditionExpression: Expression size has exceeded the maximum allowed "
                                    "size; expression size: 5000"),
         DDB_ELIMIT, "Expression size has exceeded"},
        {400, ERR("ResourceNotFoundException", "Requested resource not found"), DDB_ENOTABLE,
         "Requested resource not found"},
        {400, ERR("ResourceInUseException", "Table already exists: Thread"), DDB_EEXISTS, "Table already exists"},
        {400, ERR("ItemCollectionSizeLimitExceededException", "Item collection size limit exceeded"), DDB_ELIMIT,
         "Item collection size limit exceeded"},
        {400, "{\"__type\":\"com.amazon.coral.service#UnknownOperationException\"}", DDB_ENOTSUP,
         "UnknownOperationException"},
        {400,
         "{\"__type\":\"com.amazon.coral.service#UnrecognizedClientException\",\"Message\":\"The security token "
         "included in the request is invalid.\"}",
         DDB_EINVAL, "The security token included in the request is invalid."},
        {400, ERR("SerializationException", "Start of structure or map found where not expected"), DDB_EVALIDATION,
         "SerializationException: Start of structure"},
        /* ddb serve's answer for a damaged table (docs/SERVER.md): not retried, DDB_ECORRUPT as embedded */
        {400, ERR("TableDamagedException", "table Thread: the stored table definition is corrupt"), DDB_ECORRUPT,
         "table Thread: the stored table definition is corrupt"},
        {400, ERR("SomethingNewException", "a future error"), DDB_EIO, "SomethingNewException: a future error"},
        {403, "<html>Forbidden</html>", DDB_ENET, "bad response to PutItem: HTTP 403"},
        {413, "", DDB_ELIMIT, "the request is too large for the server (HTTP 413)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        mock_step st = {MOCK_REPLY, cases[i].status, cases[i].body};
        mock *m = mock_start(&st, 1);
        ddb_remote *r = open_mock(m, "max_attempts=2&retry_base_ms=1");
        ddb_arena *a = ddb_arena_new();
        ddb_error err = {0};
        int rc = ddbi_remote_put_item(r, "Thread", thread_item(a), NULL, NULL, NULL, &err);
        if (rc != cases[i].code || err.code != rc || !strstr(err.message, cases[i].message))
            fail_msg("case %zu: got %d (%s), want %d with \"%s\"", i, rc, err.message, cases[i].code, cases[i].message);
        assert_int_equal(mock_count(m), 1); /* none of these is retried */
        ddb_arena_free(a);
        ddbi_remote_close(r);
        mock_stop(m);
    }
}

/* The caller's ClientRequestToken is sent as is (TransactWriteItems,
 * Request Parameters, ClientRequestToken), an op asking
 * ReturnValuesOnConditionCheckFailure ALL_OLD says so, and the item of a
 * CancellationReason (TransactWriteItems, Errors,
 * TransactionCanceledException: "CancellationReasons ... Item") comes back
 * in res.items; the reply replays DynamoDB's documented shapes (dynalite
 * 3.2.2 has no transactions).  IdempotentParameterMismatchException is
 * DDB_EIDEMPOTENT. */
static void test_transaction_token_and_items(void **state)
{
    (void)state;
    mock_step st[] = {
        {MOCK_REPLY, 400,
         "{\"__type\":\"com.amazonaws.dynamodb.v20120810#TransactionCanceledException\","
         "\"Message\":\"Transaction cancelled, please refer cancellation reasons for specific reasons "
         "[None, ConditionalCheckFailed]\",\"CancellationReasons\":[{\"Code\":\"None\"},"
         "{\"Code\":\"ConditionalCheckFailed\",\"Message\":\"The conditional request failed\","
         "\"Item\":{\"ForumName\":{\"S\":\"Amazon DynamoDB\"},\"Subject\":{\"S\":\"x\"},"
         "\"Replies\":{\"N\":\"4\"}}}]}"},
        {MOCK_REPLY, 400,
         "{\"__type\":\"com.amazonaws.dynamodb.v20120810#IdempotentParameterMismatchException\","
         "\"message\":\"DynamoDB rejected the request because you retried a request with a different payload but "
         "with an idempotent token that was already used.\"}"},
    };
    mock *m = mock_start(st, 2);
    ddb_remote *r = open_mock(m, "");
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    ddb_expr *cond;
    assert_int_equal(ddb_expr_prepare(DDB_EXPR_CONDITION, "Replies < :max", NULL, &cond, &err), 0);
    ddb_item *vals = ddb_item_new(a);
    ddb_item_set_i64(vals, ":max", 3);
    ddb_tx_op ops[] = {
        {DDB_TX_PUT, "Thread", thread_item(a), NULL, NULL, NULL, DDB_RETURN_NONE},
        {DDB_TX_CHECK, "Forum", key_item(a, "Amazon DynamoDB", "x"), NULL, cond, vals, DDB_RETURN_ALL_OLD},
    };
    ddb_tx_result res;
    ddb_tx_opts o = {.client_request_token = "retry-7f3a"};
    assert_int_equal(ddbi_remote_transact_write(r, ops, 2, &o, a, &res, &err), DDB_ECANCELED);
    assert_non_null(res.items);
    assert_null(res.items[0]);
    assert_non_null(res.items[1]);
    int64_t replies = 0;
    assert_int_equal(ddb_value_to_i64(ddb_item_get(res.items[1], "Replies"), &replies), 0);
    assert_int_equal(replies, 4);
    json_t *j = request(m, 0);
    assert_string_equal(jstr(j, "ClientRequestToken"), "retry-7f3a");
    json_t *c = json_object_get(json_array_get(json_object_get(j, "TransactItems"), 1), "ConditionCheck");
    assert_string_equal(jstr(c, "ReturnValuesOnConditionCheckFailure"), "ALL_OLD");
    assert_null(json_object_get(json_object_get(json_array_get(json_object_get(j, "TransactItems"), 0), "Put"),
                                "ReturnValuesOnConditionCheckFailure"));
    json_decref(j);
    assert_int_equal(ddbi_remote_transact_write(r, ops, 2, &o, a, &res, &err), DDB_EIDEMPOTENT);
    assert_non_null(strstr(err.message, "idempotent token that was already used"));
    ddb_expr_free(cond);
    ddb_arena_free(a);
    ddbi_remote_close(r);
    mock_stop(m);
}

/* ConditionalCheckFailedException with Item (PutItem / UpdateItem /
 * DeleteItem, ReturnValuesOnConditionCheckFailure ALL_OLD): the stored item
 * in res.attributes, the code still DDB_ECONDITION. */
static void test_condition_failure_item(void **state)
{
    (void)state;
    mock_step st = {MOCK_REPLY, 400,
                    "{\"__type\":\"com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException\","
                    "\"message\":\"The conditional request failed\","
                    "\"Item\":{\"ForumName\":{\"S\":\"Amazon DynamoDB\"},\"Subject\":{\"S\":\"x\"},"
                    "\"Replies\":{\"N\":\"9\"}}}"};
    mock *m = mock_start(&st, 1);
    ddb_remote *r = open_mock(m, "");
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    ddb_expr *cond;
    assert_int_equal(ddb_expr_prepare(DDB_EXPR_CONDITION, "attribute_not_exists(Subject)", NULL, &cond, &err), 0);
    ddb_write_opts wo = {.condition = cond, .return_on_condition_failure = DDB_RETURN_ALL_OLD};
    ddb_write_result res;
    assert_int_equal(ddbi_remote_delete_item(r, "Forum", key_item(a, "Amazon DynamoDB", "x"), &wo, a, &res, &err),
                     DDB_ECONDITION);
    assert_string_equal(err.message, "The conditional request failed");
    assert_non_null(res.attributes);
    assert_int_equal(ddb_item_count(res.attributes), 3);
    json_t *j = request(m, 0);
    assert_string_equal(jstr(j, "ReturnValuesOnConditionCheckFailure"), "ALL_OLD");
    json_decref(j);
    ddb_expr_free(cond);
    ddb_arena_free(a);
    ddbi_remote_close(r);
    mock_stop(m);
}

static void test_transaction_canceled(void **state)
{
    (void)state;
    mock_step st = {MOCK_REPLY, 400,
                    "{\"__type\":\"com.amazonaws.dynamodb.v20120810#TransactionCanceledException\","
                    "\"Message\":\"Transaction cancelled, please refer cancellation reasons for specific reasons "
                    "[None, ConditionalCheckFailed]\",\"CancellationReasons\":[{\"Code\":\"None\"},"
                    "{\"Code\":\"ConditionalCheckFailed\",\"Message\":\"The conditional request failed\"}]}"};
    mock *m = mock_start(&st, 1);
    ddb_remote *r = open_mock(m, "");
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    ddb_expr *cond, *upd;
    assert_int_equal(ddb_expr_prepare(DDB_EXPR_CONDITION, "attribute_exists(#s)", NULL, &cond, &err), DDB_EVALIDATION);
    ddb_item *names = ddb_item_new(a);
    ddb_item_set_s(names, "#s", "Subject");
    assert_int_equal(ddb_expr_prepare(DDB_EXPR_CONDITION, "attribute_exists(#s)", names, &cond, &err), 0);
    assert_int_equal(ddb_expr_prepare(DDB_EXPR_UPDATE, "SET Replies = Replies + :one", NULL, &upd, &err), 0);
    ddb_item *vals = ddb_item_new(a);
    ddb_item_set_i64(vals, ":one", 1);
    ddb_tx_op ops[] = {
        {DDB_TX_PUT, "Thread", thread_item(a), NULL, NULL, NULL, DDB_RETURN_NONE},
        {DDB_TX_UPDATE, "Forum", key_item(a, "Amazon DynamoDB", "x"), upd, cond, vals, DDB_RETURN_NONE},
    };
    ddb_tx_result res;
    assert_int_equal(ddbi_remote_transact_write(r, ops, 2, &(ddb_tx_opts){0}, a, &res, &err), DDB_ECANCELED);
    assert_non_null(strstr(err.message, "[None, ConditionalCheckFailed]"));
    assert_non_null(res.reasons);
    assert_int_equal(res.reasons[0], 0);
    assert_int_equal(res.reasons[1], DDB_ECONDITION);
    json_t *j = request(m, 0);
    assert_string_equal(mock_target(m, 0), "DynamoDB_20120810.TransactWriteItems");
    json_t *u = json_object_get(json_array_get(json_object_get(j, "TransactItems"), 1), "Update");
    assert_string_equal(jstr(u, "UpdateExpression"), "SET #n0 = #n0 + :one");
    assert_string_equal(jstr(u, "ConditionExpression"), "attribute_exists(#n1)");
    assert_string_equal(jstr(u, "ExpressionAttributeNames.#n1"), "Subject");
    assert_string_equal(jstr(u, "ExpressionAttributeValues.:one.N"), "1");
    assert_int_equal(strlen(jstr(j, "ClientRequestToken")), 32);
    json_decref(j);
    ddb_expr_free(cond);
    ddb_expr_free(upd);
    ddb_arena_free(a);
    ddbi_remote_close(r);
    mock_stop(m);
}

/* ---- retries ---------------------------------------------------------------------------- */

static void test_throttled_then_ok(void **state)
{
    (void)state;
    mock_step steps[] = {{MOCK_REPLY, 400, THROTTLED}, {MOCK_REPLY, 400, THROTTLED}, {MOCK_REPLY, 200, GET_ITEM_REPLY}};
    mock *m = mock_start(steps, 3);
    ddb_remote *r = open_mock(m, "retry_base_ms=1&max_attempts=5");
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    ddb_item *got;
    assert_int_equal(ddbi_remote_get_item(r, "Thread", key_item(a, "f", "s"), NULL, a, &got, NULL, &err), 0);
    assert_int_equal(mock_count(m), 3);
    assert_int_equal(ddb_item_count(got), 3);
    /* the same request each time */
    assert_string_equal(mock_body(m, 0), mock_body(m, 2));
    ddb_arena_free(a);
    ddbi_remote_close(r);
    mock_stop(m);
}

static void test_throttled_bounded(void **state)
{
    (void)state;
    mock_step st = {MOCK_REPLY, 400, THROTTLED};
    mock *m = mock_start(&st, 1);
    ddb_remote *r = open_mock(m, "retry_base_ms=1&max_attempts=3");
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    ddb_item *got;
    assert_int_equal(ddbi_remote_get_item(r, "Thread", key_item(a, "f", "s"), NULL, a, &got, NULL, &err),
                     DDB_ETHROTTLED);
    assert_null(got);
    assert_int_equal(mock_count(m), 3);
    assert_non_null(strstr(err.message, "provisioned throughput"));
    assert_non_null(strstr(err.message, "gave up after 3 attempts"));
    ddb_arena_free(a);
    ddbi_remote_close(r);
    mock_stop(m);
}

static void test_http_500(void **state)
{
    (void)state;
    /* DynamoDB's 500 (retried, then DDB_EIO) and a proxy's HTML 502 */
    const char *bodies[] = {ERR("InternalServerError", "Internal server error"),
                            "<html><body>Bad Gateway</body></html>"};
    const char *want[] = {"InternalServerError: Internal server error",
                          "HTTP 502 from the server: <html><body>Bad Gateway"};
    for (int i = 0; i < 2; i++) {
        mock_step st = {MOCK_REPLY, i ? 502 : 500, bodies[i]};
        mock *m = mock_start(&st, 1);
        ddb_remote *r = open_mock(m, "retry_base_ms=1&max_attempts=4");
        ddb_arena *a = ddb_arena_new();
        ddb_error err = {0};
        assert_int_equal(ddbi_remote_delete_item(r, "Thread", key_item(a, "f", "s"), NULL, NULL, NULL, &err), DDB_EIO);
        assert_int_equal(mock_count(m), 4);
        if (!strstr(err.message, want[i]))
            fail_msg("message: %s", err.message);
        ddb_arena_free(a);
        ddbi_remote_close(r);
        mock_stop(m);
    }
}

/* ---- broken responses ------------------------------------------------------------------- */

static void test_bad_responses(void **state)
{
    (void)state;
    const struct {
        const char *body;
        const char *message;
    } cases[] = {
        {"{\"Item\": {\"a\": {\"S\": \"x\"}", "malformed JSON"},
        {"[1, 2]", "not a JSON object"},
        {"", "malformed JSON"},
        {"{\"Item\": \"x\"}", "Item is a string, not an object"},
        {"{\"Item\": {\"a\": {\"N\": \"abc\"}}}", "converted to a numeric value"},
        {"{\"Item\": {\"a\": {\"N\": 12}}}", "N must hold a string, not a number"},
        {"{\"Item\": {\"a\": {\"Q\": \"x\"}}}", "unknown type descriptor \"Q\""},
        {"{\"Item\": {\"a\": {\"S\": \"x\", \"N\": \"1\"}}}", "more than one datatypes"},
        {"{\"Item\": {\"a\": {\"B\": \"a=b=\"}}}", "not valid base64"},
        {"{\"Item\": {\"a\": {\"SS\": [\"x\", \"x\"]}}}", "contains duplicates"},
        {"{\"Item\": {\"a\": {\"NULL\": false}}}", "must have the value of true"},
        {"{\"Item\": {\"a\": {\"S\": \"x\"}}, \"Item\": {}}", "duplicate object key"},
        {"{\"ConsumedCapacity\": {\"CapacityUnits\": \"1\"}, \"Item\": {}}", "ConsumedCapacity.CapacityUnits"},
        {"{\"ConsumedCapacity\": [1]}", "not an object"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        mock_step st = {MOCK_REPLY, 200, cases[i].body};
        mock *m = mock_start(&st, 1);
        ddb_remote *r = open_mock(m, "");
        ddb_arena *a = ddb_arena_new();
        ddb_error err = {0};
        ddb_item *got = NULL;
        ddb_capacity cap;
        ddb_get_opts go = {false, NULL, 0, DDB_CAPACITY_TOTAL, NULL};
        int rc = ddbi_remote_get_item(r, "Thread", key_item(a, "f", "s"), &go, a, &got, &cap, &err);
        if (rc != DDB_ENET || !strstr(err.message, "bad response to GetItem") || !strstr(err.message, cases[i].message))
            fail_msg("case %zu: %d %s", i, rc, err.message);
        ddb_arena_free(a);
        ddbi_remote_close(r);
        mock_stop(m);
    }
    /* Query pages */
    const struct {
        const char *body;
        const char *message;
    } pages[] = {
        {"{\"Items\": \"x\"}", "Items is a string"},
        {"{\"Items\": [], \"Count\": \"0\"}", "Count is a string"},
        {"{\"Items\": [{}], \"Count\": 2}", "Count is 2 but 1 Items came"},
        {"{\"Items\": [1]}", "Items[0] is a number"},
        {"{\"Items\": [], \"LastEvaluatedKey\": []}", "LastEvaluatedKey is an array"},
    };
    for (size_t i = 0; i < sizeof pages / sizeof *pages; i++) {
        mock_step st = {MOCK_REPLY, 200, pages[i].body};
        mock *m = mock_start(&st, 1);
        ddb_remote *r = open_mock(m, "");
        ddb_arena *a = ddb_arena_new();
        ddb_error err = {0};
        ddb_scan_params s = {0};
        s.table = "Thread";
        ddb_page page;
        int rc = ddbi_remote_scan(r, &s, a, &page, &err);
        if (rc != DDB_ENET || !strstr(err.message, "bad response to Scan") || !strstr(err.message, pages[i].message))
            fail_msg("page case %zu: %d %s", i, rc, err.message);
        ddb_arena_free(a);
        ddbi_remote_close(r);
        mock_stop(m);
    }
}

static void test_truncated_and_crc(void **state)
{
    (void)state;
    mock_step cases[] = {
        {MOCK_TRUNCATE, 200, GET_ITEM_REPLY}, {MOCK_BAD_CRC, 200, GET_ITEM_REPLY}, {MOCK_CLOSE, 0, NULL}};
    const char *want[] = {"transfer closed", "x-amz-crc32", "Empty reply from server"};
    for (int i = 0; i < 3; i++) {
        mock *m = mock_start(&cases[i], 1);
        ddb_remote *r = open_mock(m, "");
        ddb_arena *a = ddb_arena_new();
        ddb_error err = {0};
        ddb_item *got;
        int rc = ddbi_remote_get_item(r, "Thread", key_item(a, "f", "s"), NULL, a, &got, NULL, &err);
        if (rc != DDB_ENET || !strstr(err.message, want[i]))
            fail_msg("case %d: %d %s", i, rc, err.message);
        ddb_arena_free(a);
        ddbi_remote_close(r);
        mock_stop(m);
    }
}

/* ---- broken networks ----------------------------------------------------------------------- */

static void test_connection_refused(void **state)
{
    (void)state;
    char uri[64];
    snprintf(uri, sizeof uri, "http://127.0.0.1:%d", mock_closed_port());
    ddb_remote *r;
    ddb_error err = {0};
    assert_int_equal(ddbi_remote_open(uri, NULL, &r, &err), 0);
    ddb_arena *a = ddb_arena_new();
    const char **names;
    size_t n;
    assert_int_equal(ddbi_remote_list_tables(r, a, &names, &n, &err), DDB_ENET);
    assert_int_equal(err.code, DDB_ENET);
    if (!strstr(err.message, "Couldn't connect") && !strstr(err.message, "Connection refused"))
        fail_msg("message: %s", err.message);
    ddb_arena_free(a);
    ddbi_remote_close(r);
}

static void test_timeout(void **state)
{
    (void)state;
    mock_step st = {MOCK_HANG, 0, NULL};
    mock *m = mock_start(&st, 1);
    ddb_remote *r = open_mock(m, "timeout_ms=300&max_attempts=5");
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ddb_item *got;
    assert_int_equal(ddbi_remote_get_item(r, "Thread", key_item(a, "f", "s"), NULL, a, &got, NULL, &err), DDB_ETIMEOUT);
    double s = elapsed_since(&t0);
    assert_true(s >= 0.25 && s < 3.0);
    assert_non_null(strstr(err.message, "timed out"));
    assert_int_equal(mock_count(m), 1); /* a timeout is not retried */
    /* the handle stays usable after a timeout */
    assert_int_equal(ddbi_remote_get_item(r, "Thread", key_item(a, "f", "s"), NULL, a, &got, NULL, &err), DDB_ETIMEOUT);
    ddb_arena_free(a);
    ddbi_remote_close(r);
    mock_stop(m);
}

/* ---- batches -------------------------------------------------------------------------------- */

static void test_batch_write_unprocessed(void **state)
{
    (void)state;
    mock_step steps[] = {
        {MOCK_REPLY, 200,
         "{\"UnprocessedItems\":{\"Thread\":[{\"DeleteRequest\":{\"Key\":{\"ForumName\":{\"S\":\"f\"},"
         "\"Subject\":{\"S\":\"2\"}}}}]},\"ConsumedCapacity\":[{\"TableName\":\"Thread\","
         "\"CapacityUnits\":2}]}"},
        {MOCK_REPLY, 200,
         "{\"UnprocessedItems\":{},\"ConsumedCapacity\":[{\"TableName\":\"Thread\",\"CapacityUnits\":1}]}"},
    };
    mock *m = mock_start(steps, 2);
    ddb_remote *r = open_mock(m, "retry_base_ms=1");
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    ddb_batch_write_op ops[] = {{"Thread", thread_item(a), NULL},
                                {"Thread", NULL, key_item(a, "f", "1")},
                                {"Thread", NULL, key_item(a, "f", "2")}};
    ddb_capacity cap;
    assert_int_equal(ddbi_remote_batch_write(r, ops, 3, DDB_CAPACITY_TOTAL, &cap, &err), 0);
    assert_int_equal(mock_count(m), 2);
    assert_true(cap.total == 3.0 && cap.write == 3.0);
    json_t *j = request(m, 0);
    assert_int_equal(json_array_size(json_object_get(json_object_get(j, "RequestItems"), "Thread")), 3);
    json_decref(j);
    j = request(m, 1);
    json_t *again = json_object_get(json_object_get(j, "RequestItems"), "Thread");
    assert_int_equal(json_array_size(again), 1);
    assert_string_equal(jstr(json_array_get(again, 0), "DeleteRequest.Key.Subject.S"), "2");
    json_decref(j);
    ddbi_remote_close(r);
    mock_stop(m);

    /* always unprocessed: bounded, then DDB_ETHROTTLED */
    mock *m2 = mock_start(steps, 1);
    r = open_mock(m2, "retry_base_ms=1&max_attempts=3");
    assert_int_equal(ddbi_remote_batch_write(r, ops, 3, DDB_CAPACITY_NONE, NULL, &err), DDB_ETHROTTLED);
    assert_int_equal(mock_count(m2), 3);
    assert_non_null(strstr(err.message, "1 of 3 requests still unprocessed after 3 attempts"));
    ddb_arena_free(a);
    ddbi_remote_close(r);
    mock_stop(m2);
}

static void test_batch_get(void **state)
{
    (void)state;
    mock_step steps[] = {
        {MOCK_REPLY, 200,
         "{\"Responses\":{\"Thread\":[{\"ForumName\":{\"S\":\"f\"},\"Subject\":{\"S\":\"2\"},"
         "\"ViewCount\":{\"N\":\"7\"}}]},\"UnprocessedKeys\":{\"Thread\":{\"Keys\":[{\"ForumName\":"
         "{\"S\":\"f\"},\"Subject\":{\"S\":\"1\"}}],\"ProjectionExpression\":\"#n0, #n1, #n2\","
         "\"ExpressionAttributeNames\":{\"#n0\":\"ViewCount\",\"#n1\":\"ForumName\",\"#n2\":\"Subject\"}}}}"},
        {MOCK_REPLY, 200,
         "{\"Responses\":{\"Thread\":[{\"ForumName\":{\"S\":\"f\"},\"Subject\":{\"S\":\"1\"},"
         "\"ViewCount\":{\"N\":\"1\"}}]}}"},
    };
    mock *m = mock_start(steps, 2);
    ddb_remote *r = open_mock(m, "retry_base_ms=1");
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    ddb_expr *proj;
    assert_int_equal(ddb_expr_prepare(DDB_EXPR_PROJECTION, "ViewCount", NULL, &proj, &err), 0);
    ddb_batch_get_op ops[] = {{"Thread", key_item(a, "f", "1"), false, proj},
                              {"Thread", key_item(a, "f", "2"), false, proj},
                              {"Thread", key_item(a, "f", "3"), false, proj}};
    ddb_item *items[3];
    assert_int_equal(ddbi_remote_batch_get(r, ops, 3, a, items, DDB_CAPACITY_NONE, NULL, &err), 0);
    assert_int_equal(mock_count(m), 2);
    /* answers matched by key, key attributes the projection did not ask for removed */
    assert_non_null(items[0]);
    assert_non_null(items[1]);
    assert_null(items[2]);
    assert_int_equal(ddb_item_count(items[0]), 1);
    assert_string_equal(ddb_item_get(items[0], "ViewCount")->u.s, "1");
    assert_string_equal(ddb_item_get(items[1], "ViewCount")->u.s, "7");
    json_t *j = request(m, 0);
    assert_string_equal(jstr(j, "RequestItems.Thread.ProjectionExpression"), "#n0, #n1, #n2");
    json_decref(j);
    ddb_expr_free(proj);
    ddb_arena_free(a);
    ddbi_remote_close(r);
    mock_stop(m);
}

/* ---- opening ------------------------------------------------------------------------------------ */

static void test_open(void **state)
{
    (void)state;
    ddb_remote *r = NULL;
    ddb_error err = {0};
    assert_int_equal(ddbi_remote_open("file:/tmp/x", NULL, &r, &err), DDB_EINVAL);
    assert_int_equal(ddbi_remote_open("http://", NULL, &r, &err), DDB_EINVAL);
    assert_int_equal(ddbi_remote_open("http://localhost:8000?bogus=1", NULL, &r, &err), DDB_EINVAL);
    assert_non_null(strstr(err.message, "unknown option \"bogus\""));
    assert_int_equal(ddbi_remote_open("http://localhost:8000?timeout_ms=abc", NULL, &r, &err), DDB_EINVAL);
    assert_int_equal(ddbi_remote_open("http://localhost:8000?max_attempts=0", NULL, &r, &err), DDB_EINVAL);
    assert_int_equal(ddbi_remote_open("http://user:pw@localhost:8000", NULL, &r, &err), DDB_EINVAL);
    assert_int_equal(ddbi_remote_open("dynamodb://EU_WEST", NULL, &r, &err), DDB_EINVAL);
    assert_null(r);

    /* credentials: https needs them; http falls back to local dummies */
    char *saved[3];
    const char *vars[] = {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"};
    for (int i = 0; i < 3; i++) {
        saved[i] = getenv(vars[i]) ? strdup(getenv(vars[i])) : NULL;
        unsetenv(vars[i]);
    }
    assert_int_equal(ddbi_remote_open("https://dynamodb.eu-west-1.amazonaws.com", NULL, &r, &err), DDB_EINVAL);
    assert_non_null(strstr(err.message, "no AWS credentials"));
    assert_int_equal(ddbi_remote_open("dynamodb://eu-west-1?access_key_id=AKID", NULL, &r, &err), DDB_EINVAL);
    assert_int_equal(
        ddbi_remote_open("dynamodb://eu-west-1?access_key_id=AKID&secret_access_key=a%2Bb/c", NULL, &r, &err), 0);
    assert_string_equal(ddbi_remote_endpoint(r), "https://dynamodb.eu-west-1.amazonaws.com/");
    ddbi_remote_close(r);
    assert_int_equal(ddbi_remote_open("dynamodb://cn-north-1?access_key_id=A&secret_access_key=B", NULL, &r, &err), 0);
    assert_string_equal(ddbi_remote_endpoint(r), "https://dynamodb.cn-north-1.amazonaws.com.cn/");
    ddbi_remote_close(r);
    setenv("AWS_ACCESS_KEY_ID", "AKIDENV", 1);
    setenv("AWS_SECRET_ACCESS_KEY", "secret", 1);
    ddb_remote_options ro = {.region = "ap-south-1", .timeout_ms = 1000};
    assert_int_equal(ddbi_remote_open_with("https://example.com:8443/ddb?region=eu-west-1", &ro, &r, &err), 0);
    assert_string_equal(ddbi_remote_endpoint(r), "https://example.com:8443/ddb");
    ddbi_remote_close(r);
    for (int i = 0; i < 3; i++) {
        if (saved[i])
            setenv(vars[i], saved[i], 1);
        else
            unsetenv(vars[i]);
        free(saved[i]);
    }
    assert_true(ddbi_remote_uri("http://x") && ddbi_remote_uri("dynamodb://x") && !ddbi_remote_uri("file:x"));
}

/* ddb_options.clock_ms (and ddb_remote_options.clock_ms) is a remote
 * handle's clock too (ddb_clock_ms: the entity layer's created-at /
 * updated-at); the request is still signed with the system clock, as
 * DynamoDB refuses a signature whose date is more than 5 minutes off
 * (DynamoDB Developer Guide, "Signing and authenticating requests": the
 * request's time stamp must be within five minutes of the AWS system time). */
static int64_t clock_2001(void *ctx)
{
    *(int *)ctx += 1;
    return 978307200123; /* 2001-01-01T00:00:00.123Z */
}

static void test_clock(void **state)
{
    (void)state;
    mock_step st[] = {{MOCK_REPLY, 200, "{\"TableNames\":[]}"}};
    mock *m = mock_start(st, 1);
    char uri[512];
    mock_uri(m, "access_key_id=AKIDEXAMPLE&secret_access_key=secret", uri, sizeof uri);
    int calls = 0;
    ddb_options opts = {.clock_ms = clock_2001, .clock_ctx = &calls};
    ddb *db;
    ddb_error err = {0};
    assert_int_equal(ddb_open(uri, &opts, &db, &err), 0);
    assert_int_equal(ddb_clock_ms(db), 978307200123);
    assert_int_equal(calls, 1);
    ddb_arena *a = ddb_arena_new();
    const char **names;
    size_t n;
    assert_int_equal(ddb_list_tables(db, a, &names, &n, &err), 0);
    assert_int_equal(calls, 1); /* the signature did not ask the handle's clock */
    char today[9];
    time_t now = time(NULL);
    strftime(today, sizeof today, "%Y%m%d", gmtime(&now));
    const char *auth = mock_auth(m, 0);
    assert_non_null(strstr(auth, today)); /* Credential=AKIDEXAMPLE/<today>/... */
    assert_null(strstr(auth, "/20010101/"));
    ddb_close(db);
    /* ddb_open_remote: the same through ddb_remote_options; without one, the system clock */
    ddb_remote_options ro = {.clock_ms = clock_2001, .clock_ctx = &calls};
    assert_int_equal(ddb_open_remote(uri, &ro, &db, &err), 0);
    assert_int_equal(ddb_clock_ms(db), 978307200123);
    ddb_close(db);
    assert_int_equal(ddb_open(uri, NULL, &db, &err), 0);
    int64_t sys = ddb_clock_ms(db);
    assert_true(sys >= (int64_t)now * 1000 - 1000 && sys <= ((int64_t)time(NULL) + 1) * 1000);
    ddb_close(db);
    ddb_arena_free(a);
    mock_stop(m);
}

static void test_signed_with_env_credentials(void **state)
{
    (void)state;
    mock_step st = {MOCK_REPLY, 200, "{\"TableNames\":[]}"};
    mock *m = mock_start(&st, 1);
    /* a proxy in the environment does not catch a loopback endpoint */
    setenv("http_proxy", "http://127.0.0.1:9", 1);
    char uri[512];
    mock_uri(m,
             "region=eu-central-1&access_key_id=AKIDEXAMPLE&secret_access_key=wJalrXUtnFEMI%2FK7MDENG%"
             "2BbPxRfiCYEXAMPLEKEY&session_token=TOKEN",
             uri, sizeof uri);
    ddb_remote *r;
    ddb_error err = {0};
    assert_int_equal(ddbi_remote_open(uri, NULL, &r, &err), 0);
    ddb_arena *a = ddb_arena_new();
    const char **names;
    size_t n;
    assert_int_equal(ddbi_remote_list_tables(r, a, &names, &n, &err), 0);
    assert_int_equal(n, 0);
    const char *auth = mock_auth(m, 0);
    assert_true(strncmp(auth, "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/", 40) == 0);
    assert_non_null(strstr(auth, "/eu-central-1/dynamodb/aws4_request, SignedHeaders=content-type;host;x-amz-date;"
                                 "x-amz-security-token;x-amz-target, Signature="));
    unsetenv("http_proxy");
    ddb_arena_free(a);
    ddbi_remote_close(r);
    mock_stop(m);
}

/* ---- threads --------------------------------------------------------------------------------------- */

typedef struct worker {
    ddb_remote *r;
    int failures;
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    ddb_arena *a = ddb_arena_new();
    for (int i = 0; i < 25; i++) {
        ddb_error err = {0};
        ddb_item *got;
        if (ddbi_remote_get_item(w->r, "Thread", key_item(a, "f", "s"), NULL, a, &got, NULL, &err) ||
            ddb_item_count(got) != 3)
            w->failures++;
        ddb_arena_reset(a);
    }
    ddb_arena_free(a);
    return NULL;
}

static void test_threads(void **state)
{
    (void)state;
    mock_step st = {MOCK_REPLY, 200, GET_ITEM_REPLY};
    mock *m = mock_start(&st, 1);
    ddb_remote *r = open_mock(m, "pool=2");
    pthread_t th[6];
    worker w[6];
    for (int i = 0; i < 6; i++) {
        w[i] = (worker){r, 0};
        pthread_create(&th[i], NULL, work, &w[i]);
    }
    for (int i = 0; i < 6; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(w[i].failures, 0);
    }
    assert_true(mock_count(m) >= 128); /* 150 requests; the log keeps the first 128 */
    ddbi_remote_close(r);
    mock_stop(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_put_get_query),
        cmocka_unit_test(test_describe_list_create),
        cmocka_unit_test(test_create_table_wait_bounded),
        cmocka_unit_test(test_add_index_meta_ttl),
        cmocka_unit_test(test_stream_ttl_settings),
        cmocka_unit_test(test_error_mapping),
        cmocka_unit_test(test_transaction_canceled),
        cmocka_unit_test(test_transaction_token_and_items),
        cmocka_unit_test(test_condition_failure_item),
        cmocka_unit_test(test_throttled_then_ok),
        cmocka_unit_test(test_throttled_bounded),
        cmocka_unit_test(test_http_500),
        cmocka_unit_test(test_bad_responses),
        cmocka_unit_test(test_truncated_and_crc),
        cmocka_unit_test(test_connection_refused),
        cmocka_unit_test(test_timeout),
        cmocka_unit_test(test_batch_write_unprocessed),
        cmocka_unit_test(test_batch_get),
        cmocka_unit_test(test_open),
        cmocka_unit_test(test_signed_with_env_credentials),
        cmocka_unit_test(test_clock),
        cmocka_unit_test(test_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
