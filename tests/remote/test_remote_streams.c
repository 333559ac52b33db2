/* Reading DynamoDB Streams through the remote backend (ddb_stream_iter_open,
 * ddb_stream_read, ddb_stream_describe over http://) against the local
 * responder replaying the service's documented answers, request by
 * request: a normal read, ListStreams and DescribeStream pagination, a
 * split (a closed parent, two children), an expired iterator, trimmed
 * data, throttling, and malformed answers, each ending in records or a
 * clear error.
 *
 * References (DynamoDB API Reference, "Amazon DynamoDB Streams" actions,
 * and the Developer Guide):
 *   ListStreams        https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_streams_ListStreams.html
 *   DescribeStream     https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_streams_DescribeStream.html
 *   GetShardIterator   https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_streams_GetShardIterator.html
 *   GetRecords         https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_streams_GetRecords.html
 *   Record, StreamRecord, Identity (data types of the same reference)
 *   "Reading and processing a stream" (Developer Guide, Streams.html#Streams.Processing):
 *     shards have lineage (ParentShardId); process a parent before its
 *     children; iterators expire after 15 minutes; records are trimmed
 *     after 24 hours. */
#include "mockserver.h"
#include "remote/remote_wire.h"

#include <ddb/ddb.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ERR(type, msg) "{\"__type\":\"com.amazonaws.dynamodb.v20120810#" type "\",\"message\":\"" msg "\"}"

/* ListStreams' example: the Forum table's stream. */
#define ARN "arn:aws:dynamodb:us-west-2:111122223333:table/Forum/stream/2015-05-20T20:51:10.252"
#define LIST_STREAMS                                                                                               \
    "{\"Streams\":[{\"StreamArn\":\"" ARN "\",\"StreamLabel\":\"2015-05-20T20:51:10.252\",\"TableName\":\"Forum\"}]}"

/* DescribeStream's shape: one shard, open (no EndingSequenceNumber). */
#define SHARD_A "shardId-00000001414562045508-2bac9cd2"
#define SHARD_B "shardId-00000001414576573621-f55eea83"
#define SHARD_C "shardId-00000001414592258131-674fd923"
#define DESCRIBE_OPEN(view, start)                                                                                  \
    "{\"StreamDescription\":{\"StreamArn\":\"" ARN "\",\"StreamLabel\":\"2015-05-20T20:51:10.252\","                \
    "\"StreamStatus\":\"ENABLED\",\"StreamViewType\":\"" view "\",\"CreationRequestDateTime\":1432155070.252,"       \
    "\"TableName\":\"Forum\",\"KeySchema\":[{\"AttributeName\":\"ForumName\",\"KeyType\":\"HASH\"},"              \
    "{\"AttributeName\":\"Subject\",\"KeyType\":\"RANGE\"}],"                                                      \
    "\"Shards\":[{\"ShardId\":\"" SHARD_A "\",\"SequenceNumberRange\":{\"StartingSequenceNumber\":\"" start "\"}}]}}"

#define ITER(n) "\"arn:aws:dynamodb:us-west-2:111122223333:table/Forum/stream/2015-05-20T20:51:10.252|1|AAAA" #n "\""
#define SHARD_ITER(n) "{\"ShardIterator\":" ITER(n) "}"

/* The records of the Developer Guide's example (an INSERT, a MODIFY and a
 * REMOVE of one item, NEW_AND_OLD_IMAGES), as GetRecords returns them. */
#define KEYS "\"Keys\":{\"ForumName\":{\"S\":\"DynamoDB\"},\"Subject\":{\"S\":\"Thread 3\"}}"
#define RECORD(event, seq, images, extra)                                                                          \
    "{\"eventID\":\"e2fd9c34eff2d779b297b26f5fef4206\",\"eventName\":\"" event "\",\"eventVersion\":\"1.1\","      \
    "\"eventSource\":\"aws:dynamodb\",\"awsRegion\":\"us-west-2\",\"dynamodb\":{\"ApproximateCreationDateTime\":"  \
    "1.46480646E9," KEYS images ",\"SequenceNumber\":\"" seq "\",\"SizeBytes\":41,"                                 \
    "\"StreamViewType\":\"NEW_AND_OLD_IMAGES\"}" extra "}"
#define NEW_IMG(msg) ",\"NewImage\":{\"ForumName\":{\"S\":\"DynamoDB\"},\"Subject\":{\"S\":\"Thread 3\"},\"Message\":{\"S\":\"" msg "\"}}"
#define OLD_IMG(msg) ",\"OldImage\":{\"ForumName\":{\"S\":\"DynamoDB\"},\"Subject\":{\"S\":\"Thread 3\"},\"Message\":{\"S\":\"" msg "\"}}"
/* Identity of a TTL deletion (the Record data type, userIdentity, of shape
 * Identity: PrincipalId and Type). */
#define TTL_IDENTITY ",\"userIdentity\":{\"Type\":\"Service\",\"PrincipalId\":\"dynamodb.amazonaws.com\"}"
/* A record of shard s with sequence number seq, keys only. */
#define KEYS_RECORD(seq) RECORD("INSERT", seq, "", "")

static ddb *open_db(mock *m)
{
    char uri[256];
    mock_uri(m, "retry_base_ms=1&retry_cap_ms=2", uri, sizeof uri);
    ddb *db = NULL;
    ddb_error err = {0};
    if (ddb_open(uri, NULL, &db, &err))
        fail_msg("ddb_open(%s): %s", uri, err.message);
    return db;
}

static json_t *request(mock *m, size_t i)
{
    json_error_t je;
    json_t *j = json_loads(mock_body(m, i), 0, &je);
    if (!j)
        fail_msg("request %zu is not JSON: %s (%s)", i, je.text, mock_body(m, i));
    return j;
}

/* Request i was op, and its field key (a string) is want (NULL: absent). */
static void expect(mock *m, size_t i, const char *op, const char *key, const char *want)
{
    char target[96];
    snprintf(target, sizeof target, "DynamoDBStreams_20120810.%s", op);
    assert_string_equal(mock_target(m, i), target);
    if (!key)
        return;
    json_t *j = request(m, i);
    const char *got = json_string_value(json_object_get(j, key));
    if (want) {
        if (!got || strcmp(got, want))
            fail_msg("request %zu (%s): %s is \"%s\", not \"%s\"", i, op, key, got ? got : "(absent)", want);
    } else if (json_object_get(j, key)) {
        fail_msg("request %zu (%s): %s is present", i, op, key);
    }
    json_decref(j);
}

static const char *attr_s(const ddb_item *it, const char *name)
{
    const ddb_value *v = it ? ddb_item_get(it, name) : NULL;
    return v && v->type == DDB_TS ? v->u.s : NULL;
}

/* Replay steps, open a handle on the responder and an iterator on Forum's
 * stream from TRIM_HORIZON. */
static void start(const mock_step *steps, size_t n, mock **m, ddb **db, ddb_stream_iter **it)
{
    *m = mock_start(steps, n);
    *db = open_db(*m);
    ddb_error err = {0};
    if (ddb_stream_iter_open(*db, "Forum", DDB_STREAM_TRIM_HORIZON, 0, it, &err))
        fail_msg("ddb_stream_iter_open: %s", err.message);
}

/* ---- a normal read --------------------------------------------------------------------------- */

static void test_read(void **state)
{
    (void)state;
    mock_step steps[] = {
        {MOCK_REPLY, 200, LIST_STREAMS},
        {MOCK_REPLY, 200, DESCRIBE_OPEN("NEW_AND_OLD_IMAGES", "111")},
        {MOCK_REPLY, 200, SHARD_ITER(1)},
        {MOCK_REPLY, 200,
         "{\"NextShardIterator\":" ITER(2) ",\"Records\":[" RECORD("INSERT", "111", NEW_IMG("New item!"), "") ","
         RECORD("MODIFY", "222", OLD_IMG("New item!") NEW_IMG("This item has changed"), "") ","
         RECORD("REMOVE", "333", OLD_IMG("This item has changed"), TTL_IDENTITY) "]}"},
        /* DynamoDB's own sequence numbers are 21 to 40 digits: more than 64 bits */
        {MOCK_REPLY, 200,
         "{\"NextShardIterator\":" ITER(3) ",\"Records\":[" RECORD("INSERT", "300000000000000499659", NEW_IMG("x"),
                                                                   "") "]}"},
        /* caught up: no records, a next iterator */
        {MOCK_REPLY, 200, "{\"NextShardIterator\":" ITER(4) ",\"Records\":[]}"},
    };
    mock *m;
    ddb *db;
    ddb_stream_iter *it;
    ddb_error err = {0};
    start(steps, sizeof steps / sizeof *steps, &m, &db, &it);
    expect(m, 0, "ListStreams", "TableName", "Forum");
    expect(m, 1, "DescribeStream", "StreamArn", ARN);
    expect(m, 1, "DescribeStream", "ExclusiveStartShardId", NULL);
    assert_int_equal(mock_count(m), 2); /* TRIM_HORIZON: the iterator is acquired at the first read */
    /* signed for service "dynamodb" (the Streams API's signing name) */
    assert_non_null(strstr(mock_auth(m, 0), "/us-east-1/dynamodb/aws4_request"));

    ddb_arena *a = ddb_arena_new();
    ddb_stream_record recs[10];
    size_t n = 99;
    assert_int_equal(ddb_stream_read(it, 10, a, recs, &n, &err), 0);
    assert_int_equal(n, 3);
    expect(m, 2, "GetShardIterator", "ShardIteratorType", "TRIM_HORIZON");
    expect(m, 2, "GetShardIterator", "ShardId", SHARD_A);
    expect(m, 2, "GetShardIterator", "SequenceNumber", NULL);
    expect(m, 3, "GetRecords", "ShardIterator", "arn:aws:dynamodb:us-west-2:111122223333:table/Forum/stream/"
                                                 "2015-05-20T20:51:10.252|1|AAAA1");
    json_t *j = request(m, 3);
    assert_int_equal(json_integer_value(json_object_get(j, "Limit")), 10);
    json_decref(j);

    assert_int_equal(recs[0].event, DDB_STREAM_INSERT);
    assert_int_equal(recs[1].event, DDB_STREAM_MODIFY);
    assert_int_equal(recs[2].event, DDB_STREAM_REMOVE);
    for (int i = 0; i < 3; i++) {
        assert_string_equal(recs[i].table, "Forum");
        assert_int_equal(recs[i].seq, 111 * (i + 1));
        char text[8];
        snprintf(text, sizeof text, "%d", 111 * (i + 1));
        assert_string_equal(recs[i].sequence_number, text);
        assert_int_equal(recs[i].view, DDB_STREAM_NEW_AND_OLD_IMAGES);
        assert_int_equal(recs[i].size, 41);
        assert_int_equal(recs[i].created_ms, 1464806460000LL);
        assert_string_equal(attr_s(recs[i].keys, "Subject"), "Thread 3");
        assert_int_equal(ddb_item_count(recs[i].keys), 2);
        assert_int_equal(recs[i].by_ttl, i == 2);
    }
    assert_string_equal(attr_s(recs[0].new_image, "Message"), "New item!");
    assert_null(recs[0].old_image);
    assert_string_equal(attr_s(recs[1].old_image, "Message"), "New item!");
    assert_string_equal(attr_s(recs[1].new_image, "Message"), "This item has changed");
    assert_null(recs[2].new_image);
    assert_int_equal(ddb_stream_iter_position(it), 333);

    /* a sequence number beyond 64 bits: seq 0, the position stays */
    assert_int_equal(ddb_stream_read(it, 10, a, recs, &n, &err), 0);
    assert_int_equal(n, 1);
    assert_int_equal(recs[0].seq, 0);
    assert_string_equal(recs[0].sequence_number, "300000000000000499659");
    assert_int_equal(ddb_stream_iter_position(it), 333);
    expect(m, 4, "GetRecords", "ShardIterator", "arn:aws:dynamodb:us-west-2:111122223333:table/Forum/stream/"
                                                 "2015-05-20T20:51:10.252|1|AAAA2");

    assert_int_equal(ddb_stream_read(it, 10, a, recs, &n, &err), 0);
    assert_int_equal(n, 0);
    assert_int_equal(mock_count(m), 6);
    ddb_stream_iter_close(it);
    ddb_arena_free(a);
    ddb_close(db);
    mock_stop(m);
}

/* ---- ListStreams and DescribeStream pages; a split ------------------------------------------- */

/* Page 1 of DescribeStream lists child B; page 2 its parent A (closed:
 * both SequenceNumberRange ends) and child C.  The Developer Guide: a
 * parent is read to its end before its children. */
#define SHARD(id, parent, range) "{\"ShardId\":\"" id "\"" parent ",\"SequenceNumberRange\":{" range "}}"
#define PARENT(id) ",\"ParentShardId\":\"" id "\""
#define DESCRIBE_PAGE(shards, last)                                                                                 \
    "{\"StreamDescription\":{\"StreamArn\":\"" ARN "\",\"StreamStatus\":\"ENABLED\","                               \
    "\"StreamViewType\":\"KEYS_ONLY\",\"TableName\":\"Forum\",\"Shards\":[" shards "]" last "}}"

/* The whole split in one page: B (child of A), A (closed), C (child of A). */
#define SPLIT_ALL                                                                                                   \
    DESCRIBE_PAGE(SHARD(SHARD_B, PARENT(SHARD_A), "\"StartingSequenceNumber\":\"300\"") ","                       \
                  SHARD(SHARD_A, "", "\"StartingSequenceNumber\":\"100\",\"EndingSequenceNumber\":\"200\"") ","  \
                  SHARD(SHARD_C, PARENT(SHARD_A), "\"StartingSequenceNumber\":\"400\""), "")

static void test_pages_and_split(void **state)
{
    (void)state;
    const char *split_all = SPLIT_ALL;
    mock_step steps[] = {
        /* ListStreams, two pages: an older stream of the table, then the current one */
        {MOCK_REPLY, 200,
         "{\"Streams\":[{\"StreamArn\":\"arn:aws:dynamodb:us-west-2:111122223333:table/Forum/stream/"
         "2014-01-01T00:00:00.000\",\"StreamLabel\":\"2014-01-01T00:00:00.000\",\"TableName\":\"Forum\"}],"
         "\"LastEvaluatedStreamArn\":\"arn:aws:dynamodb:us-west-2:111122223333:table/Forum/stream/"
         "2014-01-01T00:00:00.000\"}"},
        {MOCK_REPLY, 200, LIST_STREAMS},
        {MOCK_REPLY, 200,
         DESCRIBE_PAGE(SHARD(SHARD_B, PARENT(SHARD_A), "\"StartingSequenceNumber\":\"300\""),
                       ",\"LastEvaluatedShardId\":\"" SHARD_B "\"")},
        {MOCK_REPLY, 200,
         DESCRIBE_PAGE(SHARD(SHARD_A, "", "\"StartingSequenceNumber\":\"100\",\"EndingSequenceNumber\":\"200\"") ","
                       SHARD(SHARD_C, PARENT(SHARD_A), "\"StartingSequenceNumber\":\"400\""), "")},
        /* read 1: the parent A to its end (no NextShardIterator), then C */
        {MOCK_REPLY, 200, SHARD_ITER(10)},
        {MOCK_REPLY, 200, "{\"Records\":[" KEYS_RECORD("150") "," KEYS_RECORD("200") "]}"},
        {MOCK_REPLY, 200, SHARD_ITER(30)},
        {MOCK_REPLY, 200, "{\"NextShardIterator\":" ITER(31) ",\"Records\":[" KEYS_RECORD("410") "]}"},
        /* read 2: DescribeStream again (A ended: children may be new), then B, then C */
        {MOCK_REPLY, 200, split_all},
        {MOCK_REPLY, 200, SHARD_ITER(20)},
        {MOCK_REPLY, 200, "{\"NextShardIterator\":" ITER(21) ",\"Records\":[" KEYS_RECORD("310") "]}"},
        {MOCK_REPLY, 200, "{\"NextShardIterator\":" ITER(32) ",\"Records\":[]}"},
    };
    mock *m;
    ddb *db;
    ddb_stream_iter *it;
    ddb_error err = {0};
    start(steps, sizeof steps / sizeof *steps, &m, &db, &it);
    expect(m, 0, "ListStreams", "ExclusiveStartStreamArn", NULL);
    expect(m, 1, "ListStreams", "ExclusiveStartStreamArn",
           "arn:aws:dynamodb:us-west-2:111122223333:table/Forum/stream/2014-01-01T00:00:00.000");
    expect(m, 2, "DescribeStream", "StreamArn", ARN); /* the newest stream */
    expect(m, 3, "DescribeStream", "ExclusiveStartShardId", SHARD_B);
    json_t *j = request(m, 3);
    assert_int_equal(json_integer_value(json_object_get(j, "Limit")), 100);
    json_decref(j);

    ddb_arena *a = ddb_arena_new();
    ddb_stream_record recs[10];
    size_t n;
    assert_int_equal(ddb_stream_read(it, 10, a, recs, &n, &err), 0);
    assert_int_equal(n, 3);
    expect(m, 4, "GetShardIterator", "ShardId", SHARD_A);
    expect(m, 6, "GetShardIterator", "ShardId", SHARD_C);
    assert_int_equal(recs[0].seq, 150);
    assert_int_equal(recs[1].seq, 200);
    assert_int_equal(recs[2].seq, 410);
    assert_int_equal(recs[0].view, DDB_STREAM_NEW_AND_OLD_IMAGES);
    /* the text checkpoint: B not started, C after 410 (A, done, is their parent) */
    char ck[512];
    assert_int_equal(ddb_stream_iter_checkpoint(it, ck, sizeof ck, &err), 0);
    assert_string_equal(ck, "ddb-streams-1;" SHARD_B "=;" SHARD_C ">410");

    assert_int_equal(ddb_stream_read(it, 10, a, recs, &n, &err), 0);
    assert_int_equal(n, 1);
    assert_int_equal(recs[0].seq, 310);
    assert_int_equal(ddb_stream_iter_checkpoint(it, ck, sizeof ck, &err), 0);
    assert_string_equal(ck, "ddb-streams-1;" SHARD_B ">310;" SHARD_C ">410");
    assert_int_equal(ddb_stream_iter_checkpoint(it, ck, 20, &err), DDB_ELIMIT);
    assert_string_equal(err.message, "ddb_stream_iter_checkpoint: the checkpoint of 3 shards needs 98 bytes, the "
                                     "buffer has 20");
    expect(m, 8, "DescribeStream", "ExclusiveStartShardId", NULL);
    expect(m, 9, "GetShardIterator", "ShardId", SHARD_B);
    expect(m, 9, "GetShardIterator", "ShardIteratorType", "TRIM_HORIZON");
    expect(m, 11, "GetRecords", "ShardIterator",
           "arn:aws:dynamodb:us-west-2:111122223333:table/Forum/stream/2015-05-20T20:51:10.252|1|AAAA31");
    assert_int_equal(mock_count(m), 12);
    ddb_stream_iter_close(it);

    /* LATEST: the open shards from now on, the closed parent not at all */
    mock_stop(m);
    mock_step latest[] = {
        {MOCK_REPLY, 200, LIST_STREAMS},
        {MOCK_REPLY, 200, split_all},
        {MOCK_REPLY, 200, SHARD_ITER(20)},
        {MOCK_REPLY, 200, SHARD_ITER(30)},
        {MOCK_REPLY, 200, "{\"NextShardIterator\":" ITER(21) ",\"Records\":[]}"},
        {MOCK_REPLY, 200, "{\"NextShardIterator\":" ITER(31) ",\"Records\":[" KEYS_RECORD("420") "]}"},
    };
    m = mock_start(latest, sizeof latest / sizeof *latest);
    ddb_close(db);
    db = open_db(m);
    assert_int_equal(ddb_stream_iter_open(db, "Forum", DDB_STREAM_LATEST, 0, &it, &err), 0);
    assert_int_equal(mock_count(m), 4); /* LATEST: acquired at open, "records written after" */
    expect(m, 2, "GetShardIterator", "ShardId", SHARD_B);
    expect(m, 2, "GetShardIterator", "ShardIteratorType", "LATEST");
    expect(m, 3, "GetShardIterator", "ShardId", SHARD_C);
    assert_int_equal(ddb_stream_read(it, 10, a, recs, &n, &err), 0);
    assert_int_equal(n, 1);
    assert_int_equal(recs[0].seq, 420);
    assert_int_equal(mock_count(m), 6);
    ddb_stream_iter_close(it);

    /* AFTER_SEQUENCE 310 (a checkpoint in child B): B after 310; its
     * parent A is behind; C (started at 400, after 310) from its start */
    mock_stop(m);
    mock_step after[] = {
        {MOCK_REPLY, 200, LIST_STREAMS},
        {MOCK_REPLY, 200, split_all},
        {MOCK_REPLY, 200, SHARD_ITER(22)},
        {MOCK_REPLY, 200, "{\"NextShardIterator\":" ITER(23) ",\"Records\":[" KEYS_RECORD("320") "]}"},
        {MOCK_REPLY, 200, SHARD_ITER(30)},
        {MOCK_REPLY, 200, "{\"NextShardIterator\":" ITER(31) ",\"Records\":[" KEYS_RECORD("410") "]}"},
    };
    m = mock_start(after, sizeof after / sizeof *after);
    ddb_close(db);
    db = open_db(m);
    assert_int_equal(ddb_stream_iter_open(db, "Forum", DDB_STREAM_AFTER_SEQUENCE, 310, &it, &err), 0);
    assert_int_equal(ddb_stream_iter_position(it), 310);
    expect(m, 2, "GetShardIterator", "ShardId", SHARD_B);
    expect(m, 2, "GetShardIterator", "ShardIteratorType", "AFTER_SEQUENCE_NUMBER");
    expect(m, 2, "GetShardIterator", "SequenceNumber", "310");
    assert_int_equal(ddb_stream_read(it, 10, a, recs, &n, &err), 0);
    assert_int_equal(n, 2);
    assert_int_equal(recs[0].seq, 320);
    assert_int_equal(recs[1].seq, 410);
    expect(m, 4, "GetShardIterator", "ShardId", SHARD_C);
    expect(m, 4, "GetShardIterator", "ShardIteratorType", "TRIM_HORIZON");
    assert_int_equal(ddb_stream_iter_position(it), 410);
    ddb_stream_iter_close(it);

    ddb_arena_free(a);
    ddb_close(db);
    mock_stop(m);
}

/* ---- a failure in the middle of a read ----------------------------------------------------------- */

/* Records already taken are returned; the failing call is made again at
 * the next read, so nothing is lost. */
static void test_failure_mid_read(void **state)
{
    (void)state;
    mock_step steps[] = {
        {MOCK_REPLY, 200, LIST_STREAMS},
        {MOCK_REPLY, 200, SPLIT_ALL},
        {MOCK_REPLY, 200, SHARD_ITER(10)},
        {MOCK_REPLY, 200, "{\"Records\":[" KEYS_RECORD("150") "," KEYS_RECORD("200") "]}"},
        /* C's iterator: refused (GetShardIterator, Errors: ValidationException is not retried) */
        {MOCK_REPLY, 400, ERR("ValidationException", "Invalid ShardId")},
        /* next read: DescribeStream (A ended), B, then C again */
        {MOCK_REPLY, 200, SPLIT_ALL},
        {MOCK_REPLY, 200, SHARD_ITER(20)},
        {MOCK_REPLY, 200, "{\"NextShardIterator\":" ITER(21) ",\"Records\":[" KEYS_RECORD("310") "]}"},
        {MOCK_REPLY, 200, SHARD_ITER(30)},
        {MOCK_REPLY, 200, "{\"NextShardIterator\":" ITER(31) ",\"Records\":[" KEYS_RECORD("410") "]}"},
    };
    mock *m;
    ddb *db;
    ddb_stream_iter *it;
    ddb_error err = {0};
    start(steps, sizeof steps / sizeof *steps, &m, &db, &it);
    ddb_arena *a = ddb_arena_new();
    ddb_stream_record recs[8];
    size_t n;
    assert_int_equal(ddb_stream_read(it, 8, a, recs, &n, &err), 0);
    assert_int_equal(n, 2);
    assert_int_equal(recs[1].seq, 200);
    expect(m, 4, "GetShardIterator", "ShardId", SHARD_C);
    assert_int_equal(ddb_stream_read(it, 8, a, recs, &n, &err), 0);
    assert_int_equal(n, 2);
    assert_int_equal(recs[0].seq, 310);
    assert_int_equal(recs[1].seq, 410);
    expect(m, 8, "GetShardIterator", "ShardId", SHARD_C);
    expect(m, 8, "GetShardIterator", "ShardIteratorType", "TRIM_HORIZON");
    assert_int_equal(mock_count(m), 10);
    ddb_stream_iter_close(it);

    /* the same failure with nothing taken yet is the read's error */
    mock_stop(m);
    mock_step fail[] = {
        {MOCK_REPLY, 200, LIST_STREAMS},
        {MOCK_REPLY, 200, DESCRIBE_OPEN("KEYS_ONLY", "100")},
        {MOCK_REPLY, 400, ERR("ValidationException", "Invalid ShardId")},
    };
    m = mock_start(fail, 3);
    ddb_close(db);
    db = open_db(m);
    assert_int_equal(ddb_stream_iter_open(db, "Forum", DDB_STREAM_TRIM_HORIZON, 0, &it, &err), 0);
    assert_int_equal(ddb_stream_read(it, 8, a, recs, &n, &err), DDB_EVALIDATION);
    assert_int_equal(n, 0);
    assert_string_equal(err.message, "Invalid ShardId");
    ddb_stream_iter_close(it);
    ddb_arena_free(a);
    ddb_close(db);
    mock_stop(m);
}

/* ---- resuming from a text checkpoint ------------------------------------------------------------- */

static void test_resume(void **state)
{
    (void)state;
    mock_step steps[] = {
        {MOCK_REPLY, 200, LIST_STREAMS},
        {MOCK_REPLY, 200, SPLIT_ALL},
        /* the positions given are taken at once: B after 310, C after 410 */
        {MOCK_REPLY, 200, SHARD_ITER(22)},
        {MOCK_REPLY, 200, SHARD_ITER(32)},
        {MOCK_REPLY, 200, "{\"NextShardIterator\":" ITER(23) ",\"Records\":[" KEYS_RECORD("320") "]}"},
        {MOCK_REPLY, 200, "{\"NextShardIterator\":" ITER(33) ",\"Records\":[]}"},
    };
    mock *m = mock_start(steps, sizeof steps / sizeof *steps);
    ddb *db = open_db(m);
    ddb_error err = {0};
    ddb_stream_iter *it = NULL;
    assert_int_equal(ddb_stream_iter_resume(db, "Forum", "ddb-streams-1;" SHARD_B ">310;" SHARD_C ">410", &it, &err),
                     0);
    expect(m, 2, "GetShardIterator", "ShardId", SHARD_B);
    expect(m, 2, "GetShardIterator", "ShardIteratorType", "AFTER_SEQUENCE_NUMBER");
    expect(m, 2, "GetShardIterator", "SequenceNumber", "310");
    expect(m, 3, "GetShardIterator", "ShardId", SHARD_C);
    expect(m, 3, "GetShardIterator", "SequenceNumber", "410");
    ddb_arena *a = ddb_arena_new();
    ddb_stream_record recs[4];
    size_t n;
    assert_int_equal(ddb_stream_read(it, 4, a, recs, &n, &err), 0);
    assert_int_equal(n, 1); /* A (their parent) is not read again */
    assert_int_equal(recs[0].seq, 320);
    assert_int_equal(mock_count(m), 6);
    ddb_stream_iter_close(it);
    ddb_arena_free(a);
    ddb_close(db);
    mock_stop(m);

    /* checkpoints that cannot be resumed */
    static const struct {
        const char *ckpt;
        int code;
        const char *message;
    } bad[] = {
        {"ddb-streams-2;x>1", DDB_EINVAL, "is not a checkpoint (a sequence number, or text starting ddb-streams-1)"},
        {"ddb-streams-1;" SHARD_B ">31a", DDB_EINVAL, "shard " SHARD_B ": \"31a\" is not a sequence number"},
        {"ddb-streams-1;" SHARD_B "=5", DDB_EINVAL, "shard " SHARD_B ": bad position \"5\""},
        {"ddb-streams-1;" SHARD_B, DDB_EINVAL, "is not a shard entry of a checkpoint"},
        {"ddb-streams-1;shardId-00000000000000000000-gone0000>5", DDB_ETRIMMED,
         "shard shardId-00000000000000000000-gone0000 of the checkpoint is no longer in the stream"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        mock_step two[] = {{MOCK_REPLY, 200, LIST_STREAMS}, {MOCK_REPLY, 200, SPLIT_ALL}};
        m = mock_start(two, 2);
        db = open_db(m);
        it = (ddb_stream_iter *)&err;
        int rc = ddb_stream_iter_resume(db, "Forum", bad[i].ckpt, &it, &err);
        if (rc != bad[i].code || !strstr(err.message, bad[i].message))
            fail_msg("%s: %d \"%s\", expected %d with \"%s\"", bad[i].ckpt, rc, err.message, bad[i].code,
                     bad[i].message);
        assert_null(it);
        ddb_close(db);
        mock_stop(m);
    }
}

/* ---- an expired iterator; throttling ----------------------------------------------------------- */

static void test_expired_iterator(void **state)
{
    (void)state;
    mock_step steps[] = {
        {MOCK_REPLY, 200, LIST_STREAMS},
        {MOCK_REPLY, 200, DESCRIBE_OPEN("KEYS_ONLY", "100")},
        {MOCK_REPLY, 200, SHARD_ITER(1)},
        {MOCK_REPLY, 200, "{\"NextShardIterator\":" ITER(2) ",\"Records\":[" KEYS_RECORD("500") "]}"},
        /* 15 minutes later (GetRecords, Errors: ExpiredIteratorException) */
        {MOCK_REPLY, 400,
         ERR("ExpiredIteratorException", "Iterator expired. The iterator was created at time Mon Nov 23 10:00:00 UTC "
                                         "2026 while right now it is Mon Nov 23 10:15:01 UTC 2026 which is further "
                                         "in the future than the tolerated delay of 900000 milliseconds.")},
        {MOCK_REPLY, 200, SHARD_ITER(3)},
        /* GetRecords' LimitExceededException: "request rate is too high", retried */
        {MOCK_REPLY, 400, ERR("LimitExceededException", "Rate exceeded for shard " SHARD_A)},
        {MOCK_REPLY, 200, "{\"NextShardIterator\":" ITER(4) ",\"Records\":[" KEYS_RECORD("501") "]}"},
    };
    mock *m;
    ddb *db;
    ddb_stream_iter *it;
    ddb_error err = {0};
    start(steps, sizeof steps / sizeof *steps, &m, &db, &it);
    ddb_arena *a = ddb_arena_new();
    ddb_stream_record recs[4];
    size_t n;
    assert_int_equal(ddb_stream_read(it, 4, a, recs, &n, &err), 0);
    assert_int_equal(n, 1);
    assert_int_equal(ddb_stream_read(it, 4, a, recs, &n, &err), 0);
    assert_int_equal(n, 1);
    assert_int_equal(recs[0].seq, 501);
    /* acquired again right after the last record read: nothing lost, nothing repeated */
    expect(m, 5, "GetShardIterator", "ShardIteratorType", "AFTER_SEQUENCE_NUMBER");
    expect(m, 5, "GetShardIterator", "SequenceNumber", "500");
    expect(m, 6, "GetRecords", "ShardIterator",
           "arn:aws:dynamodb:us-west-2:111122223333:table/Forum/stream/2015-05-20T20:51:10.252|1|AAAA3");
    expect(m, 7, "GetRecords", "ShardIterator",
           "arn:aws:dynamodb:us-west-2:111122223333:table/Forum/stream/2015-05-20T20:51:10.252|1|AAAA3");
    assert_int_equal(mock_count(m), 8);
    ddb_stream_iter_close(it);
    ddb_arena_free(a);
    ddb_close(db);
    mock_stop(m);
}

/* ---- trimmed data ------------------------------------------------------------------------------- */

#define TRIMMED                                                                                                     \
    ERR("TrimmedDataAccessException", "The operation attempted to read past the oldest stream record in a shard.")

static void test_trimmed(void **state)
{
    (void)state;
    /* 1. From TRIM_HORIZON, before anything was read: the horizon moved on
     * between GetShardIterator and GetRecords; start again there. */
    mock_step fresh[] = {
        {MOCK_REPLY, 200, LIST_STREAMS},
        {MOCK_REPLY, 200, DESCRIBE_OPEN("KEYS_ONLY", "100")},
        {MOCK_REPLY, 200, SHARD_ITER(1)},
        {MOCK_REPLY, 400, TRIMMED},
        {MOCK_REPLY, 200, SHARD_ITER(2)},
        {MOCK_REPLY, 200, "{\"NextShardIterator\":" ITER(3) ",\"Records\":[" KEYS_RECORD("700") "]}"},
        /* later the records after 700 are trimmed before they are read */
        {MOCK_REPLY, 400, TRIMMED},
    };
    mock *m = mock_start(fresh, sizeof fresh / sizeof *fresh);
    ddb *db = open_db(m);
    ddb_error err = {0};
    ddb_stream_iter *it = NULL;
    assert_int_equal(ddb_stream_iter_open(db, "Forum", DDB_STREAM_TRIM_HORIZON, 0, &it, &err), 0);
    ddb_arena *a = ddb_arena_new();
    ddb_stream_record recs[4];
    size_t n;
    assert_int_equal(ddb_stream_read(it, 4, a, recs, &n, &err), 0);
    assert_int_equal(n, 1);
    assert_int_equal(recs[0].seq, 700);
    expect(m, 4, "GetShardIterator", "ShardIteratorType", "TRIM_HORIZON");
    assert_int_equal(ddb_stream_read(it, 4, a, recs, &n, &err), DDB_ETRIMMED);
    assert_int_equal(n, 0);
    assert_non_null(strstr(err.message, "records after sequence number 700 were trimmed"));
    assert_non_null(strstr(err.message, "The operation attempted to read past the oldest stream record"));
    assert_int_equal(mock_count(m), 7);
    ddb_stream_iter_close(it);
    ddb_close(db);
    mock_stop(m);

    /* 2. Resuming after a checkpoint that is trimmed (GetShardIterator with a
     * sequence number older than the trim point): DDB_ETRIMMED at open. */
    mock_step old[] = {
        {MOCK_REPLY, 200, LIST_STREAMS},
        {MOCK_REPLY, 200, DESCRIBE_OPEN("KEYS_ONLY", "100")},
        {MOCK_REPLY, 400, TRIMMED},
    };
    m = mock_start(old, sizeof old / sizeof *old);
    db = open_db(m);
    it = (ddb_stream_iter *)&err;
    assert_int_equal(ddb_stream_iter_open(db, "Forum", DDB_STREAM_AFTER_SEQUENCE, 150, &it, &err), DDB_ETRIMMED);
    assert_null(it);
    assert_non_null(strstr(err.message, "shard " SHARD_A ": records after sequence number 150 were trimmed"));
    expect(m, 2, "GetShardIterator", "SequenceNumber", "150");
    ddb_close(db);
    mock_stop(m);

    /* 3. A shard gone altogether (older than 24 hours: ResourceNotFoundException)
     * while read from TRIM_HORIZON: it is skipped, its child is read. */
    mock_step gone[] = {
        {MOCK_REPLY, 200, LIST_STREAMS},
        {MOCK_REPLY, 200,
         DESCRIBE_PAGE(SHARD(SHARD_A, "", "\"StartingSequenceNumber\":\"100\",\"EndingSequenceNumber\":\"200\"") ","
                       SHARD(SHARD_B, PARENT(SHARD_A), "\"StartingSequenceNumber\":\"300\""), "")},
        {MOCK_REPLY, 400, ERR("ResourceNotFoundException", "Requested resource not found: Shard does not exist")},
        {MOCK_REPLY, 200, SHARD_ITER(5)},
        {MOCK_REPLY, 200, "{\"NextShardIterator\":" ITER(6) ",\"Records\":[" KEYS_RECORD("301") "]}"},
    };
    m = mock_start(gone, sizeof gone / sizeof *gone);
    db = open_db(m);
    assert_int_equal(ddb_stream_iter_open(db, "Forum", DDB_STREAM_TRIM_HORIZON, 0, &it, &err), 0);
    assert_int_equal(ddb_stream_read(it, 4, a, recs, &n, &err), 0);
    assert_int_equal(n, 1);
    assert_int_equal(recs[0].seq, 301);
    expect(m, 3, "GetShardIterator", "ShardId", SHARD_B);
    ddb_stream_iter_close(it);
    ddb_arena_free(a);
    ddb_close(db);
    mock_stop(m);
}

/* ---- no stream; describe --------------------------------------------------------------------------- */

static void test_no_stream_and_describe(void **state)
{
    (void)state;
    mock_step steps[] = {
        {MOCK_REPLY, 200, "{\"Streams\":[]}"},
        /* ddb_stream_describe: DescribeTable, ListStreams, DescribeStream */
        {MOCK_REPLY, 200,
         "{\"Table\":{\"TableName\":\"Forum\",\"TableStatus\":\"ACTIVE\",\"AttributeDefinitions\":[{"
         "\"AttributeName\":\"ForumName\",\"AttributeType\":\"S\"}],\"KeySchema\":[{\"AttributeName\":\"ForumName\","
         "\"KeyType\":\"HASH\"}],\"StreamSpecification\":{\"StreamEnabled\":true,\"StreamViewType\":\"KEYS_ONLY\"},"
         "\"LatestStreamArn\":\"" ARN "\",\"LatestStreamLabel\":\"2015-05-20T20:51:10.252\"}}"},
        {MOCK_REPLY, 200, LIST_STREAMS},
        {MOCK_REPLY, 200, DESCRIBE_OPEN("KEYS_ONLY", "4200")},
    };
    mock *m = mock_start(steps, sizeof steps / sizeof *steps);
    ddb *db = open_db(m);
    ddb_error err = {0};
    ddb_stream_iter *it = NULL;
    assert_int_equal(ddb_stream_iter_open(db, "Forum", DDB_STREAM_LATEST, 0, &it, &err), DDB_ENOTABLE);
    assert_string_equal(err.message, "table Forum has no stream (ListStreams lists none)");
    ddb_stream_desc d;
    assert_int_equal(ddb_stream_describe(db, "Forum", &d, &err), 0);
    assert_int_equal(d.spec.view, DDB_STREAM_KEYS_ONLY);
    assert_int_equal(d.spec.retention_seconds, 86400);
    assert_int_equal(d.first_seq, 4200);
    assert_string_equal(mock_target(m, 1), "DynamoDB_20120810.DescribeTable");
    expect(m, 3, "DescribeStream", "StreamArn", ARN);
    ddb_close(db);
    mock_stop(m);
}

/* ---- malformed answers -------------------------------------------------------------------------------- */

#define SAME_PAGE "(the describe page)"

typedef struct bad_case {
    const char *list, *describe, *iter, *records; /* NULL: a good answer */
    const char *message;                          /* expected substring */
} bad_case;

static void test_malformed(void **state)
{
    (void)state;
    static char long_iter[4200];
    memset(long_iter, 0, sizeof long_iter);
    strcpy(long_iter, "{\"ShardIterator\":\"");
    memset(long_iter + strlen(long_iter), 'x', 2049);
    strcat(long_iter, "\"}");
    static const char big[] = "{\"Records\":[" KEYS_RECORD("1") "," KEYS_RECORD("2") "," KEYS_RECORD("3") "]}";
    const bad_case cases[] = {
        {"{\"Streams\":{}}", NULL, NULL, NULL, "bad response to ListStreams: Streams is missing or not an array"},
        {"[1,2]", NULL, NULL, NULL, "bad response to ListStreams: the body is an array, not a JSON object"},
        {"{\"Streams\":[{\"StreamArn\":\"" ARN "\",\"TableName\":\"Forum\"}]}", NULL, NULL, NULL,
         "bad response to ListStreams: StreamLabel is missing"},
        {NULL, "{\"StreamDescription\":[]}", NULL, NULL,
         "bad response to DescribeStream: StreamDescription is missing or not an object"},
        {NULL, DESCRIBE_OPEN("KEYS_ONLY", "12ab"), NULL, NULL,
         "bad response to DescribeStream: StartingSequenceNumber \"12ab\" is not a decimal sequence number"},
        {NULL, DESCRIBE_OPEN("EVERYTHING", "1"), NULL, NULL,
         "bad response to DescribeStream: StreamViewType \"EVERYTHING\" is not one of"},
        /* the same page twice (its LastEvaluatedShardId again) */
        {NULL, DESCRIBE_PAGE(SHARD(SHARD_A, "", "\"StartingSequenceNumber\":\"1\""), ",\"LastEvaluatedShardId\":\""
                             SHARD_A "\""), SAME_PAGE, NULL, "LastEvaluatedShardId " SHARD_A " does not advance"},
        {NULL, DESCRIBE_PAGE(SHARD(SHARD_A, "", "\"StartingSequenceNumber\":\"9\",\"EndingSequenceNumber\":\"8\""),
                             ""), NULL, NULL, "ends (8) before it starts (9)"},
        {NULL, DESCRIBE_PAGE(SHARD(SHARD_A, "", "\"StartingSequenceNumber\":\"1\"") ","
                             SHARD(SHARD_A, "", "\"StartingSequenceNumber\":\"1\""), ""), NULL, NULL,
         "bad response to DescribeStream: shard " SHARD_A " is listed twice"},
        {NULL, NULL, "{}", NULL, "bad response to GetShardIterator: ShardIterator is missing"},
        {NULL, NULL, long_iter, NULL, "ShardIterator has 2049 characters, not 1 to 2048"},
        {NULL, NULL, NULL, "{\"Records\":[" RECORD("UPSERT", "5", "", "") "]}",
         "Records[0].eventName \"UPSERT\" is not INSERT, MODIFY or REMOVE"},
        {NULL, NULL, NULL, big, "bad response to GetRecords: 3 records for a Limit of 2"},
        {NULL, NULL, NULL, "{\"Records\":[" KEYS_RECORD("7") "," KEYS_RECORD("6") "]}",
         "Records[1].dynamodb.SequenceNumber 6 does not follow 7"},
        {NULL, NULL, NULL, "{\"Records\":[{\"eventName\":\"INSERT\",\"dynamodb\":{\"SequenceNumber\":\"5\"}}]}",
         "Records[0].dynamodb.Keys is missing"},
        {NULL, NULL, NULL,
         "{\"Records\":[{\"eventName\":\"INSERT\",\"dynamodb\":{\"SequenceNumber\":\"5\",\"Keys\":{\"k\":{\"Q\":1}}}}]}",
         "Records[0].dynamodb.Keys:"},
        {NULL, NULL, NULL,
         "{\"Records\":[{\"eventName\":\"INSERT\",\"dynamodb\":{\"SequenceNumber\":\"5\",\"SizeBytes\":-1,"
         KEYS "}}]}", "SizeBytes is not a non-negative integer"},
        {NULL, NULL, NULL,
         "{\"Records\":[{\"eventName\":\"INSERT\",\"dynamodb\":{\"SequenceNumber\":\"5\","
         "\"ApproximateCreationDateTime\":\"yesterday\"," KEYS "}}]}",
         "ApproximateCreationDateTime is not a time in epoch seconds"},
        {NULL, NULL, NULL, "{\"Records\":[],\"NextShardIterator\":17}", "NextShardIterator is not a string"},
        {NULL, NULL, NULL, "{\"Records\":[" KEYS_RECORD("10000000000000000000000000000000000000001") "]}",
         "SequenceNumber has 41 characters, not 1 to 40"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const bad_case *c = &cases[i];
        mock_step steps[] = {
            {MOCK_REPLY, 200, c->list ? c->list : LIST_STREAMS},
            {MOCK_REPLY, 200, c->describe ? c->describe : DESCRIBE_OPEN("KEYS_ONLY", "1")},
            {MOCK_REPLY, 200, !c->iter ? SHARD_ITER(1) : strcmp(c->iter, SAME_PAGE) ? c->iter : c->describe},
            {MOCK_REPLY, 200, c->records ? c->records : "{\"Records\":[]}"},
        };
        mock *m = mock_start(steps, 4);
        ddb *db = open_db(m);
        ddb_error err = {0};
        ddb_stream_iter *it = NULL;
        int rc = ddb_stream_iter_open(db, "Forum", DDB_STREAM_TRIM_HORIZON, 0, &it, &err);
        if (!rc) {
            ddb_arena *a = ddb_arena_new();
            ddb_stream_record recs[2];
            size_t n = 9;
            rc = ddb_stream_read(it, 2, a, recs, &n, &err);
            assert_int_equal(n, 0);
            ddb_arena_free(a);
            ddb_stream_iter_close(it);
        }
        if (rc != DDB_ENET || !strstr(err.message, c->message))
            fail_msg("case %zu: rc %d \"%s\", expected DDB_ENET with \"%s\"", i, rc, err.message, c->message);
        ddb_close(db);
        mock_stop(m);
    }
}

/* ---- the endpoint ------------------------------------------------------------------------------------ */

/* DynamoDB Streams' endpoints (AWS General Reference, "Amazon DynamoDB
 * endpoints and quotas": streams.dynamodb.REGION.amazonaws.com); a URL the
 * user gives serves both APIs. */
static void test_endpoint(void **state)
{
    (void)state;
    static const struct {
        const char *uri, *streams;
    } cases[] = {
        {"dynamodb://eu-west-1", "https://streams.dynamodb.eu-west-1.amazonaws.com/"},
        {"dynamodb://cn-north-1", "https://streams.dynamodb.cn-north-1.amazonaws.com.cn/"},
        {"http://127.0.0.1:8000", "http://127.0.0.1:8000/"},
        {"https://proxy.example.com:8443/ddb", "https://proxy.example.com:8443/ddb"},
    };
    ddb_remote_options ro = {.access_key_id = "AKIDEXAMPLE", .secret_access_key = "secret"};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        ddb_remote *r = NULL;
        ddb_error err = {0};
        if (ddbi_remote_open_with(cases[i].uri, &ro, &r, &err))
            fail_msg("%s: %s", cases[i].uri, err.message);
        assert_string_equal(r->streams_url, cases[i].streams);
        ddbi_remote_close(r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read),
        cmocka_unit_test(test_pages_and_split),
        cmocka_unit_test(test_failure_mid_read),
        cmocka_unit_test(test_resume),
        cmocka_unit_test(test_expired_iterator),
        cmocka_unit_test(test_trimmed),
        cmocka_unit_test(test_no_stream_and_describe),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_endpoint),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
