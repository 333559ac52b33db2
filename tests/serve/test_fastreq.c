/* ddb serve's request decoder without a tree (tools/ddb/serve/fastreq.c)
 * against the jansson path: two servers, one decoding with fastreq.c and
 * one parsing every request with jansson (server.tree_requests), each on
 * its own fresh database, get the same requests in the same order and must
 * answer each with the same status and the same bytes.  The requests are
 * a corpus of item operations (every attribute type, escapes, surrogate
 * pairs, nesting, batches, transactions, expressions, legacy parameters, and what
 * DynamoDB refuses: empty and duplicate sets, bad numbers and base64,
 * names given twice, \u0000, lone surrogates, deep nesting, reals and
 * leading zeros where integers go, trailing garbage) and thousands of
 * seeded byte mutations of them.  The corpus also says which requests the
 * decoder must take and which it must decline, so a decoder that declines
 * everything fails.  A PutItem of 300,000 map keys (3.9 MB) is answered
 * alike by both.  Calls the serve sources, libddb and jansson. */
#include "serve.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static server fast_srv, tree_srv;

/* A server on a fresh "mem:" database with the table the corpus uses. */
static void open_server(server *s, bool tree)
{
    ddb_options o = {.map_size = 1ull << 28};
    ddb_error e;
    assert_int_equal(ddb_open("mem:", &o, &s->db, &e), DDB_OK);
    s->region = "us-east-1";
    s->account = "000000000000";
    s->tree_requests = tree;
    ddb_table_def t = {.name = "tbl", .key = {.pk = "pk", .pk_type = DDB_TS, .sk = "sk", .sk_type = DDB_TN}};
    assert_int_equal(ddb_create_table(s->db, &t, &e), DDB_OK);
}

static int setup(void **state)
{
    (void)state;
    open_server(&fast_srv, false);
    open_server(&tree_srv, true);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    ddb_close(fast_srv.db);
    ddb_close(tree_srv.db);
    return 0;
}

/* Both servers answer op(body) alike; returns the status. */
static unsigned same_answer(const char *op, const char *body, size_t len)
{
    char target[64];
    snprintf(target, sizeof target, "DynamoDB_20120810.%s", op);
    serve_reply a, b;
    serve_call(&fast_srv, target, "localhost", body, len, &a);
    serve_call(&tree_srv, target, "localhost", body, len, &b);
    if (a.status != b.status || a.len != b.len || (a.len && memcmp(a.body, b.body, a.len))) {
        fprintf(stderr, "%s %.*s\n  fast: %u %.*s\n  tree: %u %.*s\n", op, (int)(len > 400 ? 400 : len), body,
                a.status, (int)a.len, a.body, b.status, (int)b.len, b.body);
        fail();
    }
    free(a.body);
    free(b.body);
    return a.status;
}

/* Does fastreq.c take the body of a request to op? */
static bool taken(serve_op_fn op, const char *body)
{
    ddb_arena *a = ddb_arena_new();
    serve_req r;
    memset(&r, 0, sizeof r);
    r.srv = &fast_srv;
    r.a = a;
    r.op = op;
    json_t *in = fastreq_decode(&r, body, strlen(body));
    bool ok = in != NULL;
    json_decref(in);
    ddb_arena_free(a);
    return ok;
}

typedef struct req {
    const char *op;
    serve_op_fn fn;
    int fast; /* 1: the decoder takes it, 0: it declines, -1: not asked */
    const char *body;
} req;

#define T "\"TableName\":\"tbl\""
static const req corpus[] = {
    /* every type, nesting, escapes, unicode */
    {"PutItem", op_put_item, 1,
     "{" T ",\"Item\":{\"pk\":{\"S\":\"a\"},\"sk\":{\"N\":\"1\"},\"s\":{\"S\":\"q\\\"b\\\\s\\/\\b\\f\\n\\r\\t\\u00e9"
     "\\u20ac\\ud83d\\ude00 \xc3\xa9\xf0\x9f\x98\x80\"},\"n\":{\"N\":\"-0012.5000E+3\"},\"b\":{\"B\":\"AAEC/w==\"},"
     "\"t\":{\"BOOL\":true},\"f\":{\"BOOL\":false},\"z\":{\"NULL\":true},\"l\":{\"L\":[{\"S\":\"x\"},{\"N\":\"2\"},"
     "{\"L\":[]},{\"M\":{}}]},\"m\":{\"M\":{\"k\":{\"M\":{\"deep\":{\"SS\":[\"b\",\"a\"]}}},\"\\u0041\":{\"NS\":["
     "\"3\",\"1.0\",\"2\"]}}},\"bs\":{\"BS\":[\"AQ==\",\"Ag==\"]},\"e\":{\"S\":\"\"}},\"ReturnConsumedCapacity\":"
     "\"TOTAL\"}"},
    {"GetItem", op_get_item, 1, "{" T ",\"Key\":{\"pk\":{\"S\":\"a\"},\"sk\":{\"N\":\"1\"}},\"ConsistentRead\":true}"},
    {"PutItem", op_put_item, 1,
     " \r\n\t{ \"Item\" : { \"pk\" : { \"S\" : \"b\" } , \"sk\" : { \"N\" : \"2\" } } , " T
     " , \"ReturnValues\" : \"ALL_OLD\" } \n"},
    {"PutItem", op_put_item, 1,
     "{" T ",\"Item\":{\"pk\":{\"S\":\"b\"},\"sk\":{\"N\":\"2\"},\"v\":{\"N\":\"9\"}},\"ReturnValues\":\"ALL_OLD\","
     "\"ConditionExpression\":\"v <> :v\",\"ExpressionAttributeValues\":{\":v\":{\"N\":\"9\"}}}"},
    {"PutItem", op_put_item, 1,
     "{" T ",\"Item\":{\"pk\":{\"S\":\"b\"},\"sk\":{\"N\":\"2\"}},\"ConditionExpression\":\"attribute_not_exists(pk)\","
     "\"ReturnValuesOnConditionCheckFailure\":\"ALL_OLD\"}"},
    {"UpdateItem", op_update_item, 1,
     "{" T ",\"Key\":{\"pk\":{\"S\":\"b\"},\"sk\":{\"N\":\"2\"}},\"UpdateExpression\":\"SET #c = :one ADD n :one\","
     "\"ExpressionAttributeNames\":{\"#c\":\"c\"},\"ExpressionAttributeValues\":{\":one\":{\"N\":\"1\"}},"
     "\"ReturnValues\":\"ALL_NEW\",\"ReturnConsumedCapacity\":\"INDEXES\"}"},
    {"DeleteItem", op_delete_item, 1,
     "{" T ",\"Key\":{\"pk\":{\"S\":\"b\"},\"sk\":{\"N\":\"2\"}},\"ReturnValues\":\"ALL_OLD\"}"},
    {"BatchWriteItem", op_batch_write, 1,
     "{\"RequestItems\":{\"tbl\":[{\"PutRequest\":{\"Item\":{\"pk\":{\"S\":\"q\"},\"sk\":{\"N\":\"1\"}}}},"
     "{\"PutRequest\":{\"Item\":{\"pk\":{\"S\":\"q\"},\"sk\":{\"N\":\"2\"},\"x\":{\"SS\":[\"1\"]}}}},"
     "{\"DeleteRequest\":{\"Key\":{\"pk\":{\"S\":\"a\"},\"sk\":{\"N\":\"1\"}}}}]},\"ReturnConsumedCapacity\":"
     "\"TOTAL\",\"ReturnItemCollectionMetrics\":\"SIZE\"}"},
    {"Query", op_query, 1,
     "{" T ",\"KeyConditionExpression\":\"pk = :p AND sk > :s\",\"ExpressionAttributeValues\":{\":p\":{\"S\":\"q\"},"
     "\":s\":{\"N\":\"0\"}},\"Limit\":1,\"ScanIndexForward\":false}"},
    {"Query", op_query, 1,
     "{" T ",\"KeyConditionExpression\":\"pk = :p\",\"ExpressionAttributeValues\":{\":p\":{\"S\":\"q\"}},"
     "\"ExclusiveStartKey\":{\"pk\":{\"S\":\"q\"},\"sk\":{\"N\":\"2\"}},\"Limit\":-5}"},
    {"Scan", op_scan, 1,
     "{" T ",\"FilterExpression\":\"attribute_exists(x)\",\"Limit\":10,\"Select\":\"COUNT\"}"},
    {"Scan", op_scan, 1,
     "{" T ",\"FilterExpression\":\"sk = :s\",\"ExpressionAttributeValues\":{\":s\":{\"N\":\"1\"},\":unused\":{"
     "\"N\":\"1\"}}}"},
    /* declined: the tree path answers */
    {"Scan", op_scan, 0, "{" T ",\"Limit\":1.5}"},
    {"Scan", op_scan, 0, "{" T ",\"Limit\":01}"},
    {"Scan", op_scan, 0, "{" T ",\"Limit\":1e2}"},
    {"Scan", op_scan, 0, "{" T ",\"Limit\":12345678901234567890123}"},
    {"Scan", op_scan, 0, "{" T ",\"ScanFilter\":{\"sk\":{\"ComparisonOperator\":\"NOT_NULL\"}}}"},
    {"GetItem", op_get_item, 0, "{" T ",\"Key\":{\"pk\":{\"S\":\"a\"},\"sk\":{\"N\":\"1\"}},\"AttributesToGet\":[\"pk\"]}"},
    {"PutItem", op_put_item, 0,
     "{" T ",\"Item\":{\"pk\":{\"S\":\"c\"},\"sk\":{\"N\":\"1\"}},\"Expected\":{\"pk\":{\"Exists\":false}}}"},
    {"UpdateItem", op_update_item, 0,
     "{" T ",\"Key\":{\"pk\":{\"S\":\"c\"},\"sk\":{\"N\":\"1\"}},\"AttributeUpdates\":{\"Item\":{\"Value\":{\"S\":"
     "\"x\"},\"Action\":\"PUT\"}}}"},
    {"PutItem", op_put_item, 0, "{" T ",\"Item\":{}}"},
    {"PutItem", op_put_item, 0, "{" T ",\"Item\":{\"pk\":{\"S\":\"d\"},\"sk\":{\"N\":\"1\"},\"e\":{\"SS\":[]}}}"},
    {"PutItem", op_put_item, 0, "{" T ",\"Item\":{\"pk\":{\"S\":\"d\"},\"sk\":{\"N\":\"1\"},\"e\":{\"SS\":[\"a\",\"a\"]}}}"},
    {"PutItem", op_put_item, 0, "{" T ",\"Item\":{\"pk\":{\"S\":\"d\"},\"sk\":{\"N\":\"1\"},\"e\":{\"NS\":[\"1\",\"1.0\"]}}}"},
    {"PutItem", op_put_item, 0, "{" T ",\"Item\":{\"pk\":{\"S\":\"d\"},\"sk\":{\"N\":\"1x\"}}}"},
    {"PutItem", op_put_item, 0, "{" T ",\"Item\":{\"pk\":{\"S\":\"d\"},\"sk\":{\"N\":\"1\"},\"b\":{\"B\":\"AAE\"}}}"},
    {"PutItem", op_put_item, 0, "{" T ",\"Item\":{\"pk\":{\"S\":\"d\"},\"sk\":{\"N\":\"1\"},\"z\":{\"NULL\":false}}}"},
    {"PutItem", op_put_item, 0, "{" T ",\"Item\":{\"pk\":{\"S\":\"d\"},\"sk\":{\"N\":\"1\"},\"z\":{\"BOOL\":\"x\"}}}"},
    {"PutItem", op_put_item, 0, "{" T ",\"Item\":{\"pk\":{\"S\":\"d\"},\"sk\":{\"N\":\"1\"},\"z\":{\"S\":\"a\",\"N\":\"1\"}}}"},
    {"PutItem", op_put_item, 0, "{" T ",\"Item\":{\"pk\":{\"S\":\"d\"},\"sk\":{\"N\":\"1\"},\"z\":{\"X\":\"1\"}}}"},
    {"PutItem", op_put_item, 0, "{" T ",\"Item\":{\"pk\":{\"S\":\"d\"},\"pk\":{\"S\":\"e\"},\"sk\":{\"N\":\"1\"}}}"},
    {"PutItem", op_put_item, 0, "{" T "," T ",\"Item\":{\"pk\":{\"S\":\"d\"},\"sk\":{\"N\":\"1\"}}}"},
    {"PutItem", op_put_item, 0, "{" T ",\"Item\":{\"pk\":{\"S\":\"d\\u0000\"},\"sk\":{\"N\":\"1\"}}}"},
    {"PutItem", op_put_item, 0, "{" T ",\"Item\":{\"p\\u0000k\":{\"S\":\"d\"},\"sk\":{\"N\":\"1\"}}}"},
    {"PutItem", op_put_item, 0, "{" T ",\"Item\":{\"pk\":{\"S\":\"\\ud800\"},\"sk\":{\"N\":\"1\"}}}"},
    {"PutItem", op_put_item, 0, "{" T ",\"Item\":{\"pk\":{\"S\":\"\\udc00\"},\"sk\":{\"N\":\"1\"}}}"},
    {"PutItem", op_put_item, 0, "{" T ",\"Item\":{\"pk\":{\"S\":\"\\x\"},\"sk\":{\"N\":\"1\"}}}"},
    {"PutItem", op_put_item, 0, "{" T ",\"Item\":{\"pk\":{\"S\":\"\xc3\"},\"sk\":{\"N\":\"1\"}}}"},
    {"PutItem", op_put_item, 0, "{" T ",\"Item\":{\"pk\":{\"S\":\"\xed\xa0\x80\"},\"sk\":{\"N\":\"1\"}}}"},
    {"PutItem", op_put_item, 0, "{" T ",\"Item\":{\"pk\":{\"S\":\"a\tb\"},\"sk\":{\"N\":\"1\"}}}"},
    {"PutItem", op_put_item, 0, "{" T ",\"Item\":{\"pk\":{\"S\":\"d\"},\"sk\":{\"N\":\"1\"}}} x"},
    {"PutItem", op_put_item, 0, "[{" T "}]"},
    {"PutItem", op_put_item, 0, "{" T ",\"Item\":{\"pk\":{\"S\":5},\"sk\":{\"N\":\"1\"}}}"},
    {"PutItem", op_put_item, 0, "{" T ",\"Item\":{\"pk\":{\"S\":\"d\"},\"sk\":{\"N\":\"1\"}},}"},
    {"PutItem", op_put_item, 0, "{" T ",\"Item\":{\"\":{\"S\":\"d\"},\"sk\":{\"N\":\"1\"}}}"},
    {"PutItem", op_put_item, 0, "{" T ",\"Item\":[]}"},
    {"PutItem", op_put_item, 0, "{" T ",\"Item\":null}"},
    {"PutItem", op_put_item, 0, ""},
    /* the request's own members go through the usual checks on the fast path */
    {"PutItem", op_put_item, 1, "{\"TableName\":\"x\",\"Item\":{\"pk\":{\"S\":\"d\"},\"sk\":{\"N\":\"1\"}}}"},
    {"PutItem", op_put_item, 1, "{\"TableName\":5,\"Item\":{\"pk\":{\"S\":\"d\"},\"sk\":{\"N\":\"1\"}}}"},
    {"PutItem", op_put_item, 1, "{\"Item\":{\"pk\":{\"S\":\"d\"},\"sk\":{\"N\":\"1\"}}}"},
    {"PutItem", op_put_item, 1, "{" T ",\"Item\":{\"pk\":{\"N\":\"1\"},\"sk\":{\"N\":\"1\"}}}"},
    {"PutItem", op_put_item, 1, "{" T ",\"Item\":{\"pk\":{\"S\":\"d\"}}}"},
    {"PutItem", op_put_item, 1, "{" T ",\"Item\":{\"pk\":{\"S\":\"d\"},\"sk\":{\"N\":\"1\"}},\"ReturnValues\":\"NO\"}"},
    {"PutItem", op_put_item, 1,
     "{" T ",\"Item\":{\"pk\":{\"S\":\"d\"},\"sk\":{\"N\":\"1\"}},\"ExpressionAttributeValues\":{\":v\":{\"S\":\"x\"}}}"},
    {"PutItem", op_put_item, 1, "{" T ",\"Item\":{\"pk\":{\"S\":\"d\"},\"sk\":{\"N\":\"1\"}},\"Bogus\":[1,true,null,{}]}"},
    {"GetItem", op_get_item, 1, "{" T ",\"Key\":{\"pk\":{\"S\":\"d\"},\"sk\":{\"N\":\"1\"},\"x\":{\"S\":\"y\"}}}"},
    {"BatchWriteItem", op_batch_write, 1,
     "{\"RequestItems\":{\"tbl\":[{\"PutRequest\":{\"Item\":{\"pk\":{\"S\":\"q\"},\"sk\":{\"N\":\"1\"}}},"
     "\"DeleteRequest\":{\"Key\":{\"pk\":{\"S\":\"q\"},\"sk\":{\"N\":\"1\"}}}}]}}"},
    {"BatchWriteItem", op_batch_write, 1,
     "{\"RequestItems\":{\"tbl\":[{\"PutRequest\":{\"Item\":{\"pk\":{\"S\":\"q\"},\"sk\":{\"N\":\"1\"}}}},"
     "{\"PutRequest\":{\"Item\":{\"pk\":{\"S\":\"q\"},\"sk\":{\"N\":\"1\"}}}}]}}"},
    {"BatchGetItem", op_batch_get, 1,
     "{\"RequestItems\":{\"tbl\":{\"Keys\":[{\"pk\":{\"S\":\"q\"},\"sk\":{\"N\":\"1\"}},{\"pk\":{\"S\":\"a\"},"
     "\"sk\":{\"N\":\"1\"}},{\"pk\":{\"S\":\"none\"},\"sk\":{\"N\":\"9\"}}],\"ProjectionExpression\":\"#s, pk\","
     "\"ExpressionAttributeNames\":{\"#s\":\"sk\"},\"ConsistentRead\":true}},\"ReturnConsumedCapacity\":\"TOTAL\"}"},
    {"BatchGetItem", op_batch_get, 1,
     "{\"RequestItems\":{\"tbl\":{\"Keys\":[{\"pk\":{\"S\":\"q\"},\"sk\":{\"N\":\"1\"}},{\"pk\":{\"S\":\"q\"},"
     "\"sk\":{\"N\":\"1\"}}]}}}"},
    {"BatchGetItem", op_batch_get, 1, "{\"RequestItems\":{\"tbl\":{\"Keys\":[{\"pk\":{\"S\":\"q\"}}]}}}"},
    {"BatchGetItem", op_batch_get, 0,
     "{\"RequestItems\":{\"tbl\":{\"Keys\":[{\"pk\":{\"S\":\"q\"},\"sk\":{\"N\":\"1\"}}],\"AttributesToGet\":[\"pk\"]}}}"},
    {"BatchGetItem", op_batch_get, 0, "{\"RequestItems\":{\"tbl\":{\"Keys\":[5]}}}"},
    {"TransactWriteItems", op_transact_write, 1,
     "{\"TransactItems\":[{\"Put\":{" T ",\"Item\":{\"pk\":{\"S\":\"tx\"},\"sk\":{\"N\":\"1\"},\"v\":{\"N\":\"1\"}},"
     "\"ConditionExpression\":\"attribute_not_exists(pk) OR v < :v\",\"ExpressionAttributeValues\":{\":v\":{\"N\":\"5\"}}}},"
     "{\"Update\":{" T ",\"Key\":{\"pk\":{\"S\":\"tx\"},\"sk\":{\"N\":\"2\"}},\"UpdateExpression\":\"ADD c :one\","
     "\"ExpressionAttributeValues\":{\":one\":{\"N\":\"1\"}}}},{\"Delete\":{" T ",\"Key\":{\"pk\":{\"S\":\"b\"},"
     "\"sk\":{\"N\":\"2\"}}}},{\"ConditionCheck\":{" T ",\"Key\":{\"pk\":{\"S\":\"q\"},\"sk\":{\"N\":\"1\"}},"
     "\"ConditionExpression\":\"attribute_exists(pk)\",\"ReturnValuesOnConditionCheckFailure\":\"ALL_OLD\"}}],"
     "\"ReturnConsumedCapacity\":\"INDEXES\"}"},
    {"TransactWriteItems", op_transact_write, 1,
     "{\"TransactItems\":[{\"ConditionCheck\":{" T ",\"Key\":{\"pk\":{\"S\":\"none\"},\"sk\":{\"N\":\"1\"}},"
     "\"ConditionExpression\":\"attribute_exists(pk)\",\"ReturnValuesOnConditionCheckFailure\":\"ALL_OLD\"}},"
     "{\"Put\":{" T ",\"Item\":{\"pk\":{\"S\":\"tx\"},\"sk\":{\"N\":\"3\"}}}}]}"},
    {"TransactWriteItems", op_transact_write, 1,
     "{\"TransactItems\":[{\"Put\":{" T ",\"Item\":{\"pk\":{\"S\":\"tx\"},\"sk\":{\"N\":\"4\"}}},\"Delete\":{" T
     ",\"Key\":{\"pk\":{\"S\":\"tx\"},\"sk\":{\"N\":\"4\"}}}}]}"},
    {"TransactGetItems", op_transact_get, 1,
     "{\"TransactItems\":[{\"Get\":{" T ",\"Key\":{\"pk\":{\"S\":\"tx\"},\"sk\":{\"N\":\"1\"}},\"ProjectionExpression\":"
     "\"v\"}},{\"Get\":{" T ",\"Key\":{\"pk\":{\"S\":\"none\"},\"sk\":{\"N\":\"1\"}}}}],\"ReturnConsumedCapacity\":\"TOTAL\"}"},
    {"TransactGetItems", op_transact_get, 1, "{\"TransactItems\":[{\"Get\":{" T ",\"Key\":{\"pk\":{\"N\":\"1\"}}}}]}"},
    {"BatchWriteItem", op_batch_write, 1, "{\"RequestItems\":{\"nope\":[{\"DeleteRequest\":{\"Key\":{\"pk\":{\"S\":\"q\"}}}}]}}"},
};

/* The corpus in order: the same answers, and the decoder takes what it should. */
static void corpus_answers(void **state)
{
    (void)state;
    size_t fast = 0;
    for (size_t i = 0; i < sizeof corpus / sizeof *corpus; i++) {
        const req *q = &corpus[i];
        same_answer(q->op, q->body, strlen(q->body));
        if (q->fast >= 0 && taken(q->fn, q->body) != (q->fast == 1)) {
            fprintf(stderr, "request %zu: the decoder should %s %s\n", i, q->fast ? "take" : "decline", q->body);
            fail();
        }
        fast += q->fast == 1;
    }
    assert_true(fast >= 20);
    /* what the fast path wrote reads back the same through both */
    assert_int_equal(same_answer("Scan", "{" T "}", strlen("{" T "}")), 200);
}

/* Nesting past the decoder's depth and DynamoDB's: declined, answered alike. */
static void deep_nesting(void **state)
{
    (void)state;
    for (int depth = 10; depth <= 40; depth += 6) {
        char body[2048];
        int n = snprintf(body, sizeof body, "{" T ",\"Item\":{\"pk\":{\"S\":\"deep\"},\"sk\":{\"N\":\"%d\"},\"m\":", depth);
        for (int i = 0; i < depth; i++)
            n += snprintf(body + n, sizeof body - (size_t)n, "{\"L\":[");
        n += snprintf(body + n, sizeof body - (size_t)n, "{\"S\":\"x\"}");
        for (int i = 0; i < depth; i++)
            n += snprintf(body + n, sizeof body - (size_t)n, "]}");
        snprintf(body + n, sizeof body - (size_t)n, "}}");
        same_answer("PutItem", body, strlen(body));
        assert_int_equal(taken(op_put_item, body), depth < 14);
    }
}

/* Seeded byte mutations of the corpus: whatever the decoder takes or
 * declines, both servers answer alike. */
static void mutations(void **state)
{
    (void)state;
    static const char bytes[] = "{}[]\",:\\ 0123456789.-eE+SNBLMtruefalsenull\x80\xc3\xff\x01u";
    uint64_t rng = 0x2545F4914F6CDD1Dull;
    char buf[4096];
    for (int round = 0; round < 4000; round++) {
        const req *q = &corpus[(size_t)round % (sizeof corpus / sizeof *corpus)];
        size_t n = strlen(q->body);
        memcpy(buf, q->body, n);
        for (int k = 0; k < 1 + round % 3; k++) {
            rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
            size_t at = n ? (size_t)(rng >> 8) % n : 0;
            char c = bytes[(rng >> 40) % (sizeof bytes - 1)];
            switch (rng % 3) {
            case 0: buf[at] = c; break;
            case 1:
                if (n) {
                    memmove(buf + at, buf + at + 1, n - at - 1);
                    n--;
                }
                break;
            default:
                if (n + 1 < sizeof buf) {
                    memmove(buf + at + 1, buf + at, n - at);
                    buf[at] = c;
                    n++;
                }
            }
        }
        same_answer(q->op, buf, n);
    }
}

/* 300,000 map keys in one item (DynamoDB's limit is the item's 400 KB):
 * past the decoder's bounds, refused alike. */
static void many_map_keys(void **state)
{
    (void)state;
    size_t cap = 300000 * 24 + 256, n = 0;
    char *body = malloc(cap);
    assert_non_null(body);
    n += (size_t)snprintf(body, cap, "{" T ",\"Item\":{\"pk\":{\"S\":\"many\"},\"sk\":{\"N\":\"1\"},\"m\":{\"M\":{");
    for (int i = 0; i < 300000; i++)
        n += (size_t)snprintf(body + n, cap - n, "%s\"k%d\":{\"N\":\"1\"}", i ? "," : "", i);
    n += (size_t)snprintf(body + n, cap - n, "}}}}");
    assert_int_equal(same_answer("PutItem", body, n), 400);
    /* 1,000 keys (under the item's limit): past the decoder's members, taken by the tree path */
    n = (size_t)snprintf(body, cap, "{" T ",\"Item\":{\"pk\":{\"S\":\"many\"},\"sk\":{\"N\":\"2\"}");
    for (int i = 0; i < 1000; i++)
        n += (size_t)snprintf(body + n, cap - n, ",\"k%d\":{\"N\":\"1\"}", i);
    n += (size_t)snprintf(body + n, cap - n, "}}");
    assert_int_equal(same_answer("PutItem", body, n), 200);
    assert_false(taken(op_put_item, body));
    free(body);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(corpus_answers),
        cmocka_unit_test(deep_nesting),
        cmocka_unit_test(mutations),
        cmocka_unit_test(many_map_keys),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
