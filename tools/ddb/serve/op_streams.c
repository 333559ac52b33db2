/* ddb serve: DynamoDB Streams (DynamoDBStreams_20120810.*): ListStreams,
 * DescribeStream, GetShardIterator, GetRecords (API_streams_* pages of the
 * DynamoDB API Reference), over libddb's stream of each table, which is
 * one shard.  Each enablement of a table's stream is a new stream: its
 * label (the ARN's last part) is the time it was enabled
 * (ddb_stream_desc.enabled_ms); an ARN with an older label is not found.
 * Shard iterators are self-contained text (no server state):
 * the table, where to read from and when the iterator was made; like
 * DynamoDB's they expire after 15 minutes (ExpiredIteratorException).
 * Calls wire.c, reply.c, shapes.c and libddb. */
#include "../cli.h"
#include "serve.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SHARD_ID "shardId-00000000000000000001-00000001"
#define ITERATOR_TTL_MS (15 * 60 * 1000)

/* Sequence numbers as DynamoDB writes them: at least 21 digits
 * (API_streams_SequenceNumberRange: length 21 to 40). */
static void seq_text(uint64_t seq, char out[32])
{
    snprintf(out, 32, "%021" PRIu64, seq);
}

/* A stream's label: the time it was enabled, as DynamoDB writes it
 * ("2015-05-11T21:21:33.291", UTC, milliseconds). */
char *stream_label(serve_req *r, int64_t enabled_ms)
{
    char *s = ddb_arena_alloc(r->a, 80);
    time_t secs = (time_t)(enabled_ms / 1000);
    struct tm tm;
    if (s && gmtime_r(&secs, &tm))
        snprintf(s, 80, "%04d-%02d-%02dT%02d:%02d:%02d.%03d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                 tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(enabled_ms % 1000));
    else if (s)
        snprintf(s, 80, "1970-01-01T00:00:00.000");
    return s;
}

char *stream_arn(serve_req *r, const char *table, const char *label)
{
    const char *t = w_table_arn(r, table);
    size_t n = strlen(t) + strlen(label) + 16;
    char *s = ddb_arena_alloc(r->a, n);
    if (s)
        snprintf(s, n, "%s/stream/%s", t, label);
    return s;
}

/* The table of a stream ARN, which must name an existing table.  Its
 * label is checked by describe(). */
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
        const char *label = stream_label(r, sd.enabled_ms);
        json_array_append_new(arr, json_pack("{s:s,s:s,s:s}", "StreamArn", stream_arn(r, names[i], label),
                                             "TableName", names[i], "StreamLabel", label));
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
    /* the stream of an earlier enablement: gone with its records' shard */
    const char *label = strstr(arn, "/stream/") + 8;
    if (rc || !has_stream(sd) || strcmp(label, stream_label(r, sd->enabled_ms)) != 0)
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

/* DescribeStream pages the shards (API_streams_DescribeStream: Limit 1 to
 * 100, ExclusiveStartShardId, LastEvaluatedShardId); there is one.  A
 * start at or after it leaves none, so a reader paging the shards sees it
 * once (Alternator's test_streams.py, written to pass on DynamoDB, asks
 * that a start at the last shard returns no shards). */
int op_describe_stream(serve_req *r)
{
    const char *arn, *table, *start;
    ddb_table_desc *d;
    ddb_stream_desc sd;
    uint64_t limit = 100;
    bool given;
    if (w_str_req(r, r->in, "StreamArn", "streamArn", &arn) || w_str(r, r->in, "ExclusiveStartShardId", &start) ||
        w_uint(r, r->in, "Limit", "limit", 1, 100, &limit, &given) || describe(r, arn, &table, &d, &sd))
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
    json_t *shards = json_array();
    if (!start || strcmp(start, SHARD_ID) < 0)
        json_array_append_new(shards, json_pack("{s:s,s:o}", "ShardId", SHARD_ID, "SequenceNumberRange", range));
    else
        json_decref(range);
    json_t *desc = json_pack("{s:s,s:s,s:s,s:s,s:s,s:O,s:f,s:o}", "StreamArn", arn, "StreamLabel",
                             stream_label(r, sd.enabled_ms), "StreamStatus", enabled ? "ENABLED" : "DISABLED",
                             "StreamViewType", ddb_stream_view_name(view), "TableName", table, "KeySchema",
                             json_object_get(shape, "KeySchema"), "CreationRequestDateTime",
                             (double)sd.enabled_ms / 1000.0, "Shards", shards);
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
    bool horizon = strcmp(type, "TRIM_HORIZON") == 0, latest = strcmp(type, "LATEST") == 0;
    if (!at && !after && !horizon && !latest)
        return serve_validation(r,
                                "1 validation error detected: Value '%s' at 'shardIteratorType' failed to satisfy "
                                "constraint: Member must satisfy enum value set: [AFTER_SEQUENCE_NUMBER, "
                                "AT_SEQUENCE_NUMBER, TRIM_HORIZON, LATEST]",
                                type);
    /* API_streams_GetShardIterator: SequenceNumber goes with AT_ and
     * AFTER_SEQUENCE_NUMBER only (Alternator's test_get_shard_iterator,
     * written to pass on DynamoDB: missing there, or given with
     * TRIM_HORIZON / LATEST, is a ValidationException) */
    if ((at || after) && !seqtext)
        return serve_validation(r, "A SequenceNumber is required for ShardIteratorType %s", type);
    if ((horizon || latest) && seqtext)
        return serve_validation(r, "A SequenceNumber may only be given with ShardIteratorType AT_SEQUENCE_NUMBER or "
                                   "AFTER_SEQUENCE_NUMBER, not %s",
                                type);
    json_t *it;
    if (at || after) {
        /* a number of the shard's range: from its StartingSequenceNumber
         * (the next record's when none is retained) to the newest record */
        uint64_t seq, first = sd.first_seq ? sd.first_seq : sd.last_seq + 1;
        if (parse_u64(seqtext, &seq) || seq == 0 || seq > sd.last_seq + 1)
            return serve_validation(r,
                                    "Invalid SequenceNumber %s for ShardIteratorType %s: the shard's sequence numbers "
                                    "run from %021" PRIu64 " to %021" PRIu64,
                                    seqtext, type, first, sd.last_seq > first ? sd.last_seq : first);
        if (at)
            seq--;
        if (seq < sd.trimmed_through)
            return serve_fail(r, 400, "TrimmedDataAccessException",
                              "The operation attempted to read past the oldest stream record in a shard");
        it = iterator_text(r, table, 'A', seq);
    } else if (horizon) {
        it = iterator_text(r, table, 'T', 0);
    } else {
        it = iterator_text(r, table, 'A', sd.last_seq);
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
