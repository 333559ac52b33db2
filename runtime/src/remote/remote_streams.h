/* remote/: reading DynamoDB Streams through the remote backend (internal
 * to remote_streams*.c and the fuzz target).
 *
 * remote_streams_parse.c reads the service's answers (ListStreams,
 * DescribeStream, GetShardIterator, GetRecords) into bounded C values: pure
 * functions over jansson values, no I/O, fuzzed (tests/remote/fuzz_remote.c).
 * remote_streams.c is the iterator of ddb_stream_iter_open() /
 * ddb_stream_read() over a stream's shards and ddb_stream_describe(). */
#ifndef DDB_REMOTE_STREAMS_H
#define DDB_REMOTE_STREAMS_H

#include "remote/remote_wire.h"

/* DynamoDB Streams' limits (API reference, "Length Constraints"): ShardId
 * 28..65 characters, SequenceNumber 21..40 digits (shorter ones are taken:
 * a local server may count from 1), ShardIterator 1..2048, StreamArn
 * 37..1024. */
#define RS_SHARD_ID_MAX 65
#define RS_SEQ_MAX 40
#define RS_ITER_MAX 2048
#define RS_ARN_MAX 1024
/* GetRecords returns at most 1000 records; DescribeStream at most 100 shards a page. */
#define RS_RECORDS_MAX 1000
#define RS_SHARDS_PAGE 100

/* One shard of DescribeStream: its lineage and SequenceNumberRange. */
typedef struct rs_shard {
    char id[RS_SHARD_ID_MAX + 1];
    char parent[RS_SHARD_ID_MAX + 1]; /* ParentShardId; "" for none */
    char start[RS_SEQ_MAX + 1];       /* StartingSequenceNumber */
    char end[RS_SEQ_MAX + 1];         /* EndingSequenceNumber; "" while the shard is open */
} rs_shard;

/* One page of DescribeStream. */
typedef struct rs_stream_page {
    rs_shard *shards; /* malloc'd (free()), n of them */
    size_t n;
    char last[RS_SHARD_ID_MAX + 1]; /* LastEvaluatedShardId; "" on the last page */
    ddb_stream_view view;           /* StreamViewType */
} rs_stream_page;

/* ListStreams (one page): the newest stream of table (greatest StreamLabel,
 * an ISO 8601 time) into arn, or "" when the page holds none of it;
 * *last (LastEvaluatedStreamArn) "" on the last page. */
int ddbi_rs_parse_streams(const json_t *resp, const char *table, char arn[RS_ARN_MAX + 1], char label[64],
                          char last[RS_ARN_MAX + 1], ddb_error *err);
/* DescribeStream into *out (free out->shards). */
int ddbi_rs_parse_stream(const json_t *resp, rs_stream_page *out, ddb_error *err);
/* GetShardIterator: ShardIterator, malloc'd into *iter. */
int ddbi_rs_parse_iterator(const json_t *resp, char **iter, ddb_error *err);
/* GetRecords: at most max records into recs[0..*n) (table, keys and
 * images in a), *next the NextShardIterator (malloc'd; NULL when the shard
 * is closed and read to its end), last the SequenceNumber of the last
 * record (unchanged when none came).  A record without StreamViewType
 * gets view DDB_STREAM_NONE (the caller knows the stream's).  More records than max, a record of
 * another shape or sequence numbers that do not ascend are "bad response". */
int ddbi_rs_parse_records(const json_t *resp, const char *table, size_t max, ddb_arena *a, ddb_stream_record *recs,
                          size_t *n, char **next, char last[RS_SEQ_MAX + 1], ddb_error *err);

/* A decimal sequence number: 1..RS_SEQ_MAX digits. */
bool ddbi_rs_seq_ok(const char *s);
/* Compare two valid sequence numbers as numbers (<0, 0, >0). */
int ddbi_rs_seq_cmp(const char *a, const char *b);
/* s as a uint64_t; 0 when it does not fit in 64 bits. */
uint64_t ddbi_rs_seq_u64(const char *s);

/* The remote backend's stream operations (core/backend.h). */
int ddbi_remote_stream_describe(void *impl, const char *table, ddb_stream_desc *out, ddb_error *err);
int ddbi_remote_stream_iter_open(void *impl, const char *table, ddb_stream_position from, uint64_t seq,
                                 const ddbi_stream_iter_ops **iops, void **it, ddb_error *err);
int ddbi_remote_stream_iter_resume(void *impl, const char *table, const char *checkpoint,
                                   const ddbi_stream_iter_ops **iops, void **it, ddb_error *err);

#endif
