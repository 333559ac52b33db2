/* remote/: DynamoDB Streams' answers (ListStreams, DescribeStream,
 * GetShardIterator, GetRecords) read into bounded C values.  Pure
 * functions over jansson values (no I/O), driven by the fuzz target: each
 * string is length-checked before it is copied, each number range-checked,
 * and whatever the server sends ends in a value or DDB_ENET "bad response
 * to OP: ...".  May call core/ (and the room's djson.c). */
#include "remote/remote_streams.h"

#include <ddb/json.h>
#include "core/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- Sequence numbers ---------------------------------------------------------- */

bool ddbi_rs_seq_ok(const char *s)
{
    size_t n = strlen(s);
    if (!n || n > RS_SEQ_MAX)
        return false;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return true;
}

int ddbi_rs_seq_cmp(const char *a, const char *b)
{
    while (*a == '0' && a[1])
        a++;
    while (*b == '0' && b[1])
        b++;
    size_t la = strlen(a), lb = strlen(b);
    if (la != lb)
        return la < lb ? -1 : 1;
    return strcmp(a, b);
}

uint64_t ddbi_rs_seq_u64(const char *s)
{
    uint64_t v = 0;
    for (; *s; s++) {
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10)
            return 0;
        v = v * 10 + d;
    }
    return v;
}

/* ---- Fields ---------------------------------------------------------------------- */

/* o[key] as a string of 1..max bytes without NUL, copied into out[max + 1].
 * 1 present, 0 absent (and !required), <0 an error. */
static int str_into(const char *op, const json_t *o, const char *key, size_t max, bool required, char *out,
                    ddb_error *err)
{
    const json_t *v = json_object_get(o, key);
    out[0] = '\0';
    if (!v || json_is_null(v)) {
        if (required)
            return ddbi_remote_bad(err, op, "%s is missing", key), -1;
        return 0;
    }
    if (!json_is_string(v))
        return ddbi_remote_bad(err, op, "%s is not a string", key), -1;
    size_t n = json_string_length(v);
    if (!n || n > max || memchr(json_string_value(v), '\0', n))
        return ddbi_remote_bad(err, op, "%s has %zu characters, not 1 to %zu", key, n, max), -1;
    memcpy(out, json_string_value(v), n + 1);
    return 1;
}

static int seq_into(const char *op, const json_t *o, const char *key, bool required, char *out, ddb_error *err)
{
    int got = str_into(op, o, key, RS_SEQ_MAX, required, out, err);
    if (got > 0 && !ddbi_rs_seq_ok(out))
        return ddbi_remote_bad(err, op, "%s \"%.40s\" is not a decimal sequence number", key, out), -1;
    return got;
}

static int view_of(const char *op, const char *s, ddb_stream_view *out, ddb_error *err)
{
    for (int v = DDB_STREAM_KEYS_ONLY; v <= DDB_STREAM_NEW_AND_OLD_IMAGES; v++)
        if (strcmp(s, ddb_stream_view_name((ddb_stream_view)v)) == 0) {
            *out = (ddb_stream_view)v;
            return DDB_OK;
        }
    return ddbi_remote_bad(err, op, "StreamViewType \"%.40s\" is not one of KEYS_ONLY, NEW_IMAGE, OLD_IMAGE, "
                               "NEW_AND_OLD_IMAGES", s);
    return DDB_OK;
}

/* ---- ListStreams ---------------------------------------------------------------- */

int ddbi_rs_parse_streams(const json_t *resp, const char *table, char arn[RS_ARN_MAX + 1], char label[64],
                          char last[RS_ARN_MAX + 1], ddb_error *err)
{
    static const char op[] = "ListStreams";
    if (str_into(op, resp, "LastEvaluatedStreamArn", RS_ARN_MAX, false, last, err) < 0)
        return DDB_ENET;
    const json_t *list = json_object_get(resp, "Streams");
    if (!json_is_array(list))
        return ddbi_remote_bad(err, op, "Streams is missing or not an array");
    char a[RS_ARN_MAX + 1], l[64], t[256];
    size_t i;
    const json_t *s;
    json_array_foreach(list, i, s) {
        if (!json_is_object(s))
            return ddbi_remote_bad(err, op, "Streams[%zu] is not an object", i);
        if (str_into(op, s, "StreamArn", RS_ARN_MAX, true, a, err) < 0 ||
            str_into(op, s, "StreamLabel", sizeof l - 1, true, l, err) < 0 ||
            str_into(op, s, "TableName", sizeof t - 1, true, t, err) < 0)
            return DDB_ENET;
        if (strcmp(t, table) != 0)
            continue; /* asked with TableName: another table's stream is not ours */
        if (!arn[0] || strcmp(l, label) > 0) {
            memcpy(arn, a, sizeof a);
            memcpy(label, l, sizeof l);
        }
    }
    return DDB_OK;
}

/* ---- DescribeStream -------------------------------------------------------------- */

static int shard_of(const char *op, const json_t *s, size_t i, rs_shard *out, ddb_error *err)
{
    if (!json_is_object(s))
        return ddbi_remote_bad(err, op, "Shards[%zu] is not an object", i);
    const json_t *range = json_object_get(s, "SequenceNumberRange");
    if (!json_is_object(range))
        return ddbi_remote_bad(err, op, "Shards[%zu].SequenceNumberRange is missing or not an object", i);
    if (str_into(op, s, "ShardId", RS_SHARD_ID_MAX, true, out->id, err) < 0 ||
        str_into(op, s, "ParentShardId", RS_SHARD_ID_MAX, false, out->parent, err) < 0 ||
        seq_into(op, range, "StartingSequenceNumber", true, out->start, err) < 0 ||
        seq_into(op, range, "EndingSequenceNumber", false, out->end, err) < 0)
        return DDB_ENET;
    if (out->end[0] && ddbi_rs_seq_cmp(out->end, out->start) < 0)
        return ddbi_remote_bad(err, op, "shard %s ends (%s) before it starts (%s)", out->id, out->end, out->start);
    if (strcmp(out->parent, out->id) == 0)
        return ddbi_remote_bad(err, op, "shard %s is its own parent", out->id);
    return DDB_OK;
}

int ddbi_rs_parse_stream(const json_t *resp, rs_stream_page *out, ddb_error *err)
{
    static const char op[] = "DescribeStream";
    memset(out, 0, sizeof *out);
    const json_t *d = json_object_get(resp, "StreamDescription");
    if (!json_is_object(d))
        return ddbi_remote_bad(err, op, "StreamDescription is missing or not an object");
    char view[32];
    if (str_into(op, d, "StreamViewType", sizeof view - 1, true, view, err) < 0)
        return DDB_ENET;
    int rc = view_of(op, view, &out->view, err);
    if (rc || str_into(op, d, "LastEvaluatedShardId", RS_SHARD_ID_MAX, false, out->last, err) < 0)
        return DDB_ENET;
    const json_t *list = json_object_get(d, "Shards");
    if (!json_is_array(list))
        return ddbi_remote_bad(err, op, "Shards is missing or not an array");
    size_t n = json_array_size(list);
    if (n > RS_SHARDS_PAGE)
        return ddbi_remote_bad(err, op, "%zu shards in one page; DynamoDB Streams returns at most %d", n,
                               RS_SHARDS_PAGE);
    if (!n)
        return DDB_OK;
    if (!(out->shards = calloc(n, sizeof *out->shards)))
        return ddbi_fail_oom(err, op);
    for (size_t i = 0; i < n; i++)
        if ((rc = shard_of(op, json_array_get(list, i), i, &out->shards[i], err))) {
            free(out->shards);
            out->shards = NULL;
            return rc;
        }
    out->n = n;
    return DDB_OK;
}

/* ---- GetShardIterator ------------------------------------------------------------ */

static int iter_copy(const char *op, const json_t *resp, const char *key, bool required, char **out, ddb_error *err)
{
    *out = NULL;
    char *buf = malloc(RS_ITER_MAX + 1);
    if (!buf)
        return ddbi_fail_oom(err, op);
    int got = str_into(op, resp, key, RS_ITER_MAX, required, buf, err);
    if (got > 0)
        *out = buf;
    else
        free(buf);
    return got < 0 ? DDB_ENET : DDB_OK;
}

int ddbi_rs_parse_iterator(const json_t *resp, char **iter, ddb_error *err)
{
    return iter_copy("GetShardIterator", resp, "ShardIterator", true, iter, err);
}

/* ---- GetRecords ------------------------------------------------------------------- */

static int image(const char *op, const json_t *d, const char *key, size_t i, ddb_arena *a, const ddb_item **out,
                 ddb_error *err)
{
    *out = NULL;
    const json_t *v = json_object_get(d, key);
    if (!v)
        return DDB_OK;
    ddb_item *it;
    ddb_error e2 = {0};
    if (!json_is_object(v) || ddb_json_to_item(v, a, &it, &e2))
        return ddbi_remote_bad(err, op, "Records[%zu].dynamodb.%s: %s", i, key,
                               json_is_object(v) ? e2.message : "not an object");
    *out = it;
    return DDB_OK;
}

static int record_of(const char *op, const json_t *r, size_t i, ddb_arena *a, ddb_stream_record *out,
                     char seq[RS_SEQ_MAX + 1], ddb_error *err)
{
    if (!json_is_object(r))
        return ddbi_remote_bad(err, op, "Records[%zu] is not an object", i);
    char name[16], view[32];
    if (str_into(op, r, "eventName", sizeof name - 1, true, name, err) < 0)
        return DDB_ENET;
    out->event = 0;
    for (int e = DDB_STREAM_INSERT; e <= DDB_STREAM_REMOVE; e++)
        if (strcmp(name, ddb_stream_event_name((ddb_stream_event)e)) == 0)
            out->event = (ddb_stream_event)e;
    if (!out->event)
        return ddbi_remote_bad(err, op, "Records[%zu].eventName \"%s\" is not INSERT, MODIFY or REMOVE", i, name);
    const json_t *d = json_object_get(r, "dynamodb");
    if (!json_is_object(d))
        return ddbi_remote_bad(err, op, "Records[%zu].dynamodb is missing or not an object", i);
    int hv = seq_into(op, d, "SequenceNumber", true, seq, err) < 0
                 ? -1
                 : str_into(op, d, "StreamViewType", sizeof view - 1, false, view, err);
    if (hv < 0 || (hv > 0 && view_of(op, view, &out->view, err)))
        return DDB_ENET; /* absent: the stream's (DescribeStream), filled by the caller */
    out->seq = ddbi_rs_seq_u64(seq);
    if (!(out->sequence_number = ddb_arena_strdup(a, seq)))
        return ddbi_fail_oom(err, op);
    const json_t *size = json_object_get(d, "SizeBytes"), *t = json_object_get(d, "ApproximateCreationDateTime");
    if (size && (!json_is_integer(size) || json_integer_value(size) < 0))
        return ddbi_remote_bad(err, op, "Records[%zu].dynamodb.SizeBytes is not a non-negative integer", i);
    out->size = size ? (size_t)json_integer_value(size) : 0;
    /* epoch seconds (a JSON number, fractional since 2023); 1e11 s is year 5138 */
    if (t && (!json_is_number(t) || !isfinite(json_number_value(t)) || json_number_value(t) < 0 ||
              json_number_value(t) > 1e11))
        return ddbi_remote_bad(err, op, "Records[%zu].dynamodb.ApproximateCreationDateTime is not a time in epoch "
                               "seconds", i);
    out->created_ms = t ? (int64_t)llround(json_number_value(t) * 1000.0) : 0;
    int rc = image(op, d, "Keys", i, a, &out->keys, err);
    if (!rc && !out->keys)
        rc = ddbi_remote_bad(err, op, "Records[%zu].dynamodb.Keys is missing", i);
    if (!rc)
        rc = image(op, d, "NewImage", i, a, &out->new_image, err);
    if (!rc)
        rc = image(op, d, "OldImage", i, a, &out->old_image, err);
    if (rc)
        return rc;
    /* TTL deletions: userIdentity {"Type": "Service", "PrincipalId":
     * "dynamodb.amazonaws.com"} (API_streams_Identity; Lambda's event
     * format spells them type and principalId) */
    const json_t *u = json_object_get(r, "userIdentity");
    const json_t *jt = json_object_get(u, "Type"), *jp = json_object_get(u, "PrincipalId");
    const char *ut = json_string_value(jt ? jt : json_object_get(u, "type"));
    const char *up = json_string_value(jp ? jp : json_object_get(u, "principalId"));
    out->by_ttl = ut && up && strcmp(ut, DDB_USER_IDENTITY_TYPE) == 0 && strcmp(up, DDB_USER_IDENTITY_PRINCIPAL) == 0;
    return DDB_OK;
}

int ddbi_rs_parse_records(const json_t *resp, const char *table, size_t max, ddb_arena *a, ddb_stream_record *recs,
                          size_t *n, char **next, char last[RS_SEQ_MAX + 1], ddb_error *err)
{
    static const char op[] = "GetRecords";
    *n = 0;
    *next = NULL;
    const json_t *list = json_object_get(resp, "Records");
    if (!json_is_array(list))
        return ddbi_remote_bad(err, op, "Records is missing or not an array");
    size_t count = json_array_size(list);
    if (count > max)
        return ddbi_remote_bad(err, op, "%zu records for a Limit of %zu", count, max);
    const char *tname = count ? ddb_arena_strdup(a, table) : NULL;
    if (count && !tname)
        return ddbi_fail_oom(err, op);
    char prev[RS_SEQ_MAX + 1], seq[RS_SEQ_MAX + 1];
    snprintf(prev, sizeof prev, "%s", last);
    for (size_t i = 0; i < count; i++) {
        memset(&recs[i], 0, sizeof recs[i]);
        recs[i].table = tname;
        int rc = record_of(op, json_array_get(list, i), i, a, &recs[i], seq, err);
        if (!rc && prev[0] && ddbi_rs_seq_cmp(seq, prev) <= 0)
            rc = ddbi_remote_bad(err, op, "Records[%zu].dynamodb.SequenceNumber %s does not follow %s", i, seq, prev);
        if (rc)
            return rc;
        memcpy(prev, seq, sizeof seq);
    }
    int rc = iter_copy(op, resp, "NextShardIterator", false, next, err);
    if (rc)
        return rc;
    memcpy(last, prev, sizeof prev);
    *n = count;
    return DDB_OK;
}
