/* libFuzzer target: a DynamoDB response body through everything that reads
 * one — body parsing, error classification (400 and 500), pages, items,
 * consumed capacity, cancellation reasons, table descriptions, and
 * DynamoDB Streams' answers (ListStreams, DescribeStream, GetShardIterator,
 * GetRecords: remote_streams_parse.c).  Whatever
 * the bytes, the result is a value or an error code with a message. */
#include "remote/remote_streams.h"

#include <ddb/json.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void check_error(const ddb_error *err, int rc)
{
    if (rc && (err->code != rc || !memchr(err->message, '\0', sizeof err->message)))
        __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *body = (const char *)data;
    ddb_error err;
    remote_fault f;
    json_t *eb = NULL;
    for (long status = 400; status <= 500; status += 100) {
        memset(&err, 0, sizeof err);
        int rc = ddbi_remote_parse_error("Op", status, body, size, &f, &eb, &err);
        check_error(&err, rc);
        if (!rc)
            __builtin_trap(); /* an error response is never success */
        ddb_arena *a = ddb_arena_new();
        int *reasons;
        if (eb && ddbi_remote_parse_reasons(eb, 3, a, &reasons, &err) == DDB_OK && reasons)
            for (int i = 0; i < 3; i++)
                if (reasons[i] > 0)
                    __builtin_trap();
        ddb_arena_free(a);
        json_decref(eb);
        eb = NULL;
    }

    json_t *j = NULL;
    memset(&err, 0, sizeof err);
    int rc = ddbi_remote_parse_body("Op", body, size, &j, &err);
    check_error(&err, rc);
    if (rc)
        return 0;
    ddb_arena *a = ddb_arena_new();
    ddb_page page;
    rc = ddbi_remote_parse_page("Query", j, DDB_CAPACITY_INDEXES, a, &page, &err);
    check_error(&err, rc);
    if (!rc && page.capacity.n_indexes > DDB_MAX_GSI + DDB_MAX_LSI)
        __builtin_trap();
    ddb_item *it;
    rc = ddbi_remote_parse_item("GetItem", j, "Item", a, &it, &err);
    check_error(&err, rc);
    ddb_capacity cap = {0};
    rc = ddbi_remote_parse_capacity("BatchGetItem", json_object_get(j, "ConsumedCapacity"), REMOTE_WRITE, DDB_CAPACITY_TOTAL,
                               &cap, &err);
    check_error(&err, rc);
    ddb_table_desc *d;
    const char *status;
    bool active;
    rc = ddbi_remote_parse_table("DescribeTable", json_object_get(j, "Table"), a, &d, &status, &active, &err);
    check_error(&err, rc);
    /* DynamoDB Streams */
    char arn[RS_ARN_MAX + 1] = "", label[64] = "", last[RS_ARN_MAX + 1];
    rc = ddbi_rs_parse_streams(j, "Forum", arn, label, last, &err);
    check_error(&err, rc);
    if (!rc && (strlen(arn) > RS_ARN_MAX || strlen(last) > RS_ARN_MAX))
        __builtin_trap();
    rs_stream_page pg;
    rc = ddbi_rs_parse_stream(j, &pg, &err);
    check_error(&err, rc);
    for (size_t i = 0; !rc && i < pg.n; i++)
        if (!ddbi_rs_seq_ok(pg.shards[i].start) || (pg.shards[i].end[0] && !ddbi_rs_seq_ok(pg.shards[i].end)))
            __builtin_trap();
    free(pg.shards);
    char *iter = NULL;
    rc = ddbi_rs_parse_iterator(j, &iter, &err);
    check_error(&err, rc);
    if (!rc && (!iter || strlen(iter) > RS_ITER_MAX))
        __builtin_trap();
    free(iter);
    ddb_stream_record recs[4];
    size_t n = 0;
    char seq[RS_SEQ_MAX + 1] = "";
    rc = ddbi_rs_parse_records(j, "Forum", 4, a, recs, &n, &iter, seq, &err);
    check_error(&err, rc);
    if (!rc && (n > 4 || (iter && strlen(iter) > RS_ITER_MAX) || (n && !ddbi_rs_seq_ok(seq))))
        __builtin_trap();
    for (size_t i = 0; !rc && i < n; i++)
        if (!recs[i].keys || recs[i].event < DDB_STREAM_INSERT || recs[i].event > DDB_STREAM_REMOVE)
            __builtin_trap();
    free(iter);
    /* the whole object as an item, and back to JSON */
    if (ddb_json_to_item(j, a, &it, &err) == DDB_OK) {
        json_t *back;
        if (ddb_json_from_item(it, &back, &err) != DDB_OK)
            __builtin_trap(); /* what was read can be written */
        json_decref(back);
    }
    ddb_arena_free(a);
    json_decref(j);
    return 0;
}
