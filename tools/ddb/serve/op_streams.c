/* ddb serve: DynamoDB Streams (DynamoDBStreams_20120810.*): ListStreams,
 * DescribeStream, GetShardIterator, GetRecords (API_streams_* pages of the
 * DynamoDB API Reference), over libddb's stream of each table, which is
 * one shard.  Shard iterators are self-contained text (no server state):
 * the table, where to read from and when the iterator was made; like
 * DynamoDB's they expire after 15 minutes (ExpiredIteratorException).
 * Calls wire.c, reply.c, shapes.c and libddb. */
#include "../cli.h"
#include "serve.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHARD_ID "shardId-00000000000000000001-00000001"
#define ITERATOR_TTL_MS (15 * 60 * 1000)

/* Sequence numbers as DynamoDB writes them: at least 21 digits
 * (API_streams_SequenceNumberRange: length 21 to 40). */
static void seq_text(uint64_t seq, char out[32])
{
    snprintf(out, 32, "%021" PRIu64, seq);
}

char *stream_arn(serve_req *r, const char *table)
{
    const char *t = w_table_arn(r, table);
    size_t n = strlen(t) + sizeof STREAM_LABEL + 16;
    char *s = ddb_arena_alloc(r->a, n);
    if (s)
        snprintf(s, n, "%s/stream/%s", t, STREAM_LABEL);
    return s;
}

/* The table of a stream ARN, which must name an existing table. */
static int arn_table(serve_req *r, const char *arn, const char **table)
{
    *table = w_arn_table(r, arn);
    if (!*table || !strstr(arn, "/stream/"))
        return serve_validation(r, "Invalid StreamArn: %s", arn);
    r->table = *table;
    return 0;
}

static bool has_stream(const ddb_stream_desc *sd)
{
    return sd->spec.view != DDB_STREAM_NONE || sd->last_seq;
}

int op_list_streams(serve_req *r)
{
    const char *only, *start;
    uint64_t limit = 100;
    bool given;
    if (w_str(r, r->in, "TableName", &only) || w_str(r, r->in, "ExclusiveStartStreamArn", &start) ||
        w_uint(r, r->in, "Limit", "limit", 1, 100, &limit, &given))
        return -1;
    const char **names;
    size_t n;
    int rc = ddb_list_tables(r->srv->db, r->a, &names, &n, &r->err);
    if (rc)
        return serve_fail_code(r, rc);
    const char *after = NULL;
    if (start && arn_table(r, start, &after))
        return -1;
    json_t *arr = json_array();
    json_object_set_new(r->out, "Streams", arr);
    for (size_t i = 0; i < n; i++) {
        ddb_stream_desc sd;
        if ((only && strcmp(names[i], only)) || (after && strcmp(names[i], after) <= 0) ||
            ddb_stream_describe(r->srv->db, names[i], &sd, NULL) || !has_stream(&sd))
            continue;
        if (json_array_size(arr) == limit) {
            json_object_set_new(r->out, "LastEvaluatedStreamArn",
                                json_string(json_string_value(json_object_get(json_array_get(arr, limit - 1),
                                                                              "StreamArn"))));
            break;
        }
        json_array_append_new(arr, json_pack("{s:s,s:s,s:s}", "StreamArn", stream_arn(r, names[i]), "TableName",
                                             names[i], "StreamLabel", STREAM_LABEL));
    }
    return 0;
}

static int describe(serve_req *r, const char *arn, const char **table, ddb_table_desc **d, ddb_stream_desc *sd)
{
    if (arn_table(r, arn, table))
        return -1;
    int rc = ddb_describe_table(r->srv->db, *table, r->a, d, &r->err);
    if (!rc)
        rc = ddb_stream_describe(r->srv->db, *table, sd, &r->err);
    if (rc || !has_stream(sd))
        return serve_fail(r, 400, "ResourceNotFoundException", "Requested resource not found: Stream: %s not found",
                          arn);
    return 0;
}

/* A disabled stream keeps its view type in DynamoDB (DescribeStream still
 * names it); libddb forgets the spec, but each record keeps the view it was
 * written with: the newest record's.  KEYS_ONLY when none is left. */
static ddb_stream_view last_view(serve_req *r, const char *table, const ddb_stream_desc *sd)
{
    ddb_stream_view view = DDB_STREAM_KEYS_ONLY;
    ddb_stream_iter *it;
    if (!sd->last_seq || ddb_stream_iter_open(r->srv->db, table, DDB_STREAM_AT_SEQUENCE, sd->last_seq, &it, NULL))
        return view;
    ddb_stream_record rec;
    size_t n = 0;
    if (ddb_stream_read(it, 1, r->a, &rec, &n, NULL) == DDB_OK && n == 1)
        view = rec.view;
    ddb_stream_iter_close(it);
    return view;
}

int op_describe_stream(serve_req *r)
{
    const char *arn, *table;
    ddb_table_desc *d;
    ddb_stream_desc sd;
    if (w_str_req(r, r->in, "StreamArn", "streamArn", &arn) || describe(r, arn, &table, &d, &sd))
        return -1;
    char first[32], last[32];
    seq_text(sd.first_seq ? sd.first_seq : sd.last_seq + 1, first);
    seq_text(sd.last_seq, last);
    json_t *range = json_pack("{s:s}", "StartingSequenceNumber", first);
    bool enabled = sd.spec.view != DDB_STREAM_NONE;
    if (!enabled) /* a disabled stream's shard is closed (DescribeStream: EndingSequenceNumber) */
        json_object_set_new(range, "EndingSequenceNumber", json_string(last));
    ddb_stream_view view = enabled ? sd.spec.view : last_view(r, table, &sd);
    json_t *shape = table_shape(d, NULL);
    json_t *desc = json_pack("{s:s,s:s,s:s,s:s,s:s,s:O,s:i,s:[{s:s,s:o}]}", "StreamArn", arn, "StreamLabel",
                             STREAM_LABEL, "StreamStatus", enabled ? "ENABLED" : "DISABLED", "StreamViewType",
                             ddb_stream_view_name(view), "TableName", table,
                             "KeySchema", json_object_get(shape, "KeySchema"), "CreationRequestDateTime", 0, "Shards",
                             "ShardId", SHARD_ID, "SequenceNumberRange", range);
    json_decref(shape);
    json_object_set_new(r->out, "StreamDescription", desc);
    return 0;
}

/* ---- iterators: "ddb1|MODE|SEQ|ISSUED_MS|TABLE", MODE T (trim horizon) or A (after SEQ) ---- */

static json_t *iterator_text(serve_req *r, const char *table, char mode, uint64_t seq)
{
    char buf[400];
    snprintf(buf, sizeof buf, "ddb1|%c|%" PRIu64 "|%" PRId64 "|%s", mode, seq, ddb_clock_ms(r->srv->db), table);
    return json_string(buf);
}

static int iterator_parse(serve_req *r, const char *s, const char **table, ddb_stream_position *pos,
                          uint64_t *seq)
{
    char mode;
    unsigned long long q;
    long long issued;
    int used = 0;
    if (strlen(s) > 300 || sscanf(s, "ddb1|%c|%llu|%lld|%n", &mode, &q, &issued, &used) != 3 || !used ||
        (mode != 'T' && mode != 'A') || !s[used])
        return serve_validation(r, "Invalid ShardIterator");
    *table = s + used;
    r->table = *table;
    *pos = mode == 'T' ? DDB_STREAM_TRIM_HORIZON : DDB_STREAM_AFTER_SEQUENCE;
    *seq = q;
    int64_t now = ddb_clock_ms(r->srv->db);
    if (now - issued > ITERATOR_TTL_MS)
        return serve_fail(r, 400, "ExpiredIteratorException",
                          "Iterator expired. The iterator was created at time %lld while right now it's %lld",
                          issued, (long long)now);
    return 0;
}

int op_get_shard_iterator(serve_req *r)
{
    const char *arn, *shard, *type, *seqtext, *table;
    ddb_table_desc *d;
    ddb_stream_desc sd;
    if (w_str_req(r, r->in, "StreamArn", "streamArn", &arn) ||
        w_str_req(r, r->in, "ShardId", "shardId", &shard) ||
        w_str_req(r, r->in, "ShardIteratorType", "shardIteratorType", &type) ||
        w_str(r, r->in, "SequenceNumber", &seqtext) || describe(r, arn, &table, &d, &sd))
        return -1;
    if (strcmp(shard, SHARD_ID))
        return serve_fail(r, 400, "ResourceNotFoundException",
                          "Requested resource not found: Shard does not exist");
    bool at = strcmp(type, "AT_SEQUENCE_NUMBER") == 0, after = strcmp(type, "AFTER_SEQUENCE_NUMBER") == 0;
    json_t *it;
    if (at || after) {
        uint64_t seq;
        if (!seqtext || parse_u64(seqtext, &seq) || (at && seq == 0))
            return serve_validation(r, "Invalid SequenceNumber %s for ShardIteratorType %s",
                                    seqtext ? seqtext : "(none)", type);
        if (seq > sd.last_seq)
            return serve_validation(r, "Invalid SequenceNumber %s: beyond the last record %" PRIu64, seqtext,
                                    sd.last_seq);
        if (at)
            seq--;
        if (seq < sd.trimmed_through)
            return serve_fail(r, 400, "TrimmedDataAccessException",
                              "The operation attempted to read past the oldest stream record in a shard");
        it = iterator_text(r, table, 'A', seq);
    } else if (strcmp(type, "TRIM_HORIZON") == 0) {
        it = iterator_text(r, table, 'T', 0);
    } else if (strcmp(type, "LATEST") == 0) {
        it = iterator_text(r, table, 'A', sd.last_seq);
    } else {
        return serve_validation(r,
                                "1 validation error detected: Value '%s' at 'shardIteratorType' failed to satisfy "
                                "constraint: Member must satisfy enum value set: [AFTER_SEQUENCE_NUMBER, "
                                "AT_SEQUENCE_NUMBER, TRIM_HORIZON, LATEST]",
                                type);
    }
    json_object_set_new(r->out, "ShardIterator", it);
    return 0;
}

int op_get_records(serve_req *r)
{
    const char *text, *table = NULL;
    uint64_t limit = 1000, seq = 0;
    bool given;
    ddb_stream_position pos = DDB_STREAM_TRIM_HORIZON;
    if (w_str_req(r, r->in, "ShardIterator", "shardIterator", &text) ||
        w_uint(r, r->in, "Limit", "limit", 1, 1000, &limit, &given) || iterator_parse(r, text, &table, &pos, &seq))
        return -1;
    ddb_stream_iter *it;
    int rc = ddb_stream_iter_open(r->srv->db, table, pos, seq, &it, &r->err);
    if (rc)
        return serve_fail_code(r, rc);
    ddb_stream_record *recs = ddb_arena_alloc(r->a, limit * sizeof *recs);
    size_t n = 0;
    rc = recs ? ddb_stream_read(it, limit, r->a, recs, &n, &r->err) : DDB_ENOMEM;
    uint64_t next = ddb_stream_iter_position(it);
    ddb_stream_iter_close(it);
    if (rc)
        return serve_fail_code(r, rc);
    json_t *arr = json_array();
    json_object_set_new(r->out, "Records", arr);
    for (size_t i = 0; i < n; i++) {
        json_t *o = stream_record_shape(&recs[i]);
        if (!o)
            return serve_fail_code(r, DDB_ENOMEM);
        json_object_set_new(o, "awsRegion", json_string(r->srv->region));
        char seq21[32];
        seq_text(recs[i].seq, seq21);
        json_object_set_new(json_object_get(o, "dynamodb"), "SequenceNumber", json_string(seq21));
        /* the API's Identity shape spells its members PrincipalId and Type
         * (API_streams_Identity); Lambda's event format, which shapes.c
         * writes, spells them principalId and type */
        if (json_object_get(o, "userIdentity"))
            json_object_set_new(o, "userIdentity", json_pack("{s:s,s:s}", "PrincipalId", DDB_USER_IDENTITY_PRINCIPAL,
                                                             "Type", DDB_USER_IDENTITY_TYPE));
        json_array_append_new(arr, o);
    }
    /* a disabled stream read to its end is a closed shard: no next iterator */
    ddb_stream_desc sd;
    if (ddb_stream_describe(r->srv->db, table, &sd, &r->err))
        return serve_fail_code(r, r->err.code);
    if (sd.spec.view != DDB_STREAM_NONE || next < sd.last_seq)
        json_object_set_new(r->out, "NextShardIterator", iterator_text(r, table, 'A', next));
    return 0;
}
