/* api/: the embedded backend: the engine (engine/) with the streams room
 * (streams/) hooked in, as one operations table, each operation telling
 * the engine when it found the file damaged.  May call engine/ and
 * streams/. */
#include "api/api.h"
#include "core/error.h"
#include "engine/engine.h"
#include "streams/streams.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

int ddbi_embedded_open(const char *uri, const char *path, const ddb_options *opts, void **impl, ddb_error *err)
{
    ddbi_engine *db;
    int rc = ddbi_engine_open(uri, path, opts, &ddbi_streams_hooks, &db, err);
    if (!rc)
        *impl = db;
    return rc;
}


/* Every operation passes through noted(): a DDB_ECORRUPT answer (a damaged
 * file) is remembered by the engine against the table the operation named
 * (or, naming none, against the whole handle); the engine then refuses
 * writes to that table (ddbi_engine_damaged), which the write wrappers ask
 * before writing (ddbi_refuse_damaged_table).  A check that found the
 * damage but has no problem list reports the error as its first problem. */
static int noted(void *impl, const char *table, int rc, const ddb_error *err)
{
    return rc == DDB_ECORRUPT ? ddbi_engine_damaged(impl, table, err) : rc;
}

void ddbi_embedded_mark_damaged(void *impl, const char *table, const char *why)
{
    ddb_error e = {0};
    ddbi_fail(&e, DDB_ECORRUPT, "%s", why);
    ddbi_engine_damaged(impl, table, &e);
}

/* The same for an operation over several tables: the table member (at
 * offset off) of each of n elements of size bytes from base. */
#define TABLE_AT(base, i, size, off) (*(const char *const *)((const char *)(base) + (i) * (size) + (off)))

/* Does err's message name table as the engine's damage messages do
 * ("table T: ...", engine/stored.c)? */
static bool names_table(const ddb_error *err, const char *table)
{
    size_t n = table ? strlen(table) : 0;
    return err && n && strncmp(err->message, "table ", 6) == 0 && strncmp(err->message + 6, table, n) == 0 &&
           (err->message[6 + n] == ':' || err->message[6 + n] == ' ');
}

/* The damage is noted against the table of the n ops that the message
 * names, or, when it names none of them, against each of them. */
static int noted_each(void *impl, const void *base, size_t n, size_t size, size_t off, int rc, const ddb_error *err)
{
    if (rc != DDB_ECORRUPT)
        return rc;
    for (size_t i = 0; i < n; i++)
        if (names_table(err, TABLE_AT(base, i, size, off)))
            return ddbi_engine_damaged(impl, TABLE_AT(base, i, size, off), err);
    for (size_t i = 0; i < n; i++)
        ddbi_engine_damaged(impl, TABLE_AT(base, i, size, off), err);
    return rc;
}

static int refused_each(void *impl, const void *base, size_t n, size_t size, size_t off, ddb_error *err)
{
    int rc = DDB_OK;
    for (size_t i = 0; !rc && i < n; i++)
        rc = ddbi_refuse_damaged_table(impl, TABLE_AT(base, i, size, off), err);
    return rc;
}

static int check_noted(void *impl, const char *table, int rc, ddb_check_report *report, const ddb_error *err)
{
    if (rc == DDB_ECORRUPT && report && !report->problems) {
        report->problems = 1;
        snprintf(report->first_problem, sizeof report->first_problem, "%s", err ? err->message : "");
    }
    return noted(impl, table, rc, err);
}

/* An operation reading or naming table (NULL: none). */
#define NOTED(op, table, fn, params, args)                                                                            \
    static int op params                                                                                              \
    {                                                                                                                 \
        return noted(impl, table, fn args, err);                                                                      \
    }
/* A write to table: refused once that table was found damaged. */
#define WRITE(op, table, fn, params, args)                                                                            \
    static int op params                                                                                              \
    {                                                                                                                 \
        int rc_ = ddbi_refuse_damaged_table(impl, table, err);                                                        \
        return rc_ ? rc_ : noted(impl, table, fn args, err);                                                          \
    }
/* A write over the tables of n ops (elements of type). */
#define WRITE_EACH(op, type, ops, n, fn, params, args)                                                                \
    static int op params                                                                                              \
    {                                                                                                                 \
        int rc_ = refused_each(impl, ops, n, sizeof(type), offsetof(type, table), err);                               \
        return rc_ ? rc_ : noted_each(impl, ops, n, sizeof(type), offsetof(type, table), fn args, err);               \
    }
#define READ_EACH(op, type, ops, n, fn, params, args)                                                                 \
    static int op params                                                                                              \
    {                                                                                                                 \
        return noted_each(impl, ops, n, sizeof(type), offsetof(type, table), fn args, err);                           \
    }
#define CHECK(op, table, fn, params, args)                                                                            \
    static int op params                                                                                              \
    {                                                                                                                 \
        return check_noted(impl, table, fn args, report, err);                                                        \
    }

NOTED(create_table, NULL, ddbi_engine_create_table, (void *impl, const ddb_table_def *def, ddb_error *err), (impl, def, err))
/* DeleteTable is the way out for a damaged table: never refused for it,
 * and the table's damage is forgotten once it is dropped */
static int delete_table(void *impl, const char *name, ddb_error *err)
{
    int rc = ddbi_engine_delete_table(impl, name, err);
    if (!rc)
        ddbi_engine_damage_dropped(impl, name);
    return noted(impl, name, rc, err);
}
NOTED(describe_table, name, ddbi_engine_describe_table, (void *impl, const char *name, ddb_arena *a, ddb_table_desc **out, ddb_error *err), (impl, name, a, out, err))
NOTED(list_tables, NULL, ddbi_engine_list_tables, (void *impl, ddb_arena *a, const char ***names, size_t *count, ddb_error *err), (impl, a, names, count, err))
WRITE(add_index, table, ddbi_engine_add_index, (void *impl, const char *table, const ddb_index_def *x, uint64_t *backfilled, uint64_t *skipped, ddb_error *err), (impl, table, x, backfilled, skipped, err))
WRITE(delete_index, table, ddbi_engine_delete_index, (void *impl, const char *table, const char *index, ddb_error *err), (impl, table, index, err))
WRITE(update_table, table, ddbi_engine_update_table, (void *impl, const char *table, const ddb_table_update *u, ddb_error *err), (impl, table, u, err))
WRITE(table_meta_put, table, ddbi_engine_table_meta_put, (void *impl, const char *table, const char *key, const void *val, size_t len, ddb_error *err), (impl, table, key, val, len, err))
NOTED(table_meta_get, table, ddbi_engine_table_meta_get, (void *impl, const char *table, const char *key, ddb_arena *a, void **val, size_t *len, ddb_error *err), (impl, table, key, a, val, len, err))
WRITE(put_item, table, ddbi_engine_put_item, (void *impl, const char *table, const ddb_item *item, const ddb_write_opts *opts, ddb_arena *a, ddb_write_result *res, ddb_error *err), (impl, table, item, opts, a, res, err))
WRITE(delete_item, table, ddbi_engine_delete_item, (void *impl, const char *table, const ddb_item *key, const ddb_write_opts *opts, ddb_arena *a, ddb_write_result *res, ddb_error *err), (impl, table, key, opts, a, res, err))
WRITE(update_item, table, ddbi_engine_update_item, (void *impl, const char *table, const ddb_item *key, const ddb_expr *update, const ddb_write_opts *opts, ddb_arena *a, ddb_write_result *res, ddb_error *err), (impl, table, key, update, opts, a, res, err))
NOTED(get_item, table, ddbi_engine_get_item, (void *impl, const char *table, const ddb_item *key, const ddb_get_opts *opts, ddb_arena *a, ddb_item **out, ddb_capacity *cap, ddb_error *err), (impl, table, key, opts, a, out, cap, err))
WRITE_EACH(batch_write, ddb_batch_write_op, ops, n, ddbi_engine_batch_write, (void *impl, const ddb_batch_write_op *ops, size_t n, ddb_return_capacity rc, ddb_capacity *cap, ddb_error *err), (impl, ops, n, rc, cap, err))
READ_EACH(batch_get, ddb_batch_get_op, ops, n, ddbi_engine_batch_get, (void *impl, const ddb_batch_get_op *ops, size_t n, ddb_arena *a, ddb_item **items, ddb_return_capacity rc, ddb_capacity *cap, ddb_error *err), (impl, ops, n, a, items, rc, cap, err))
WRITE_EACH(transact_write, ddb_tx_op, ops, n, ddbi_engine_transact_write, (void *impl, const ddb_tx_op *ops, size_t n, const ddb_tx_opts *o, ddb_arena *a, ddb_tx_result *res, ddb_error *err), (impl, ops, n, o, a, res, err))
READ_EACH(transact_get, ddb_tx_get, gets, n, ddbi_engine_transact_get, (void *impl, const ddb_tx_get *gets, size_t n, ddb_arena *a, ddb_item **items, ddb_return_capacity rc, ddb_capacity *cap, ddb_error *err), (impl, gets, n, a, items, rc, cap, err))
NOTED(query, q->table, ddbi_engine_query, (void *impl, const ddb_query_params *q, ddb_arena *a, ddb_page *out, ddb_error *err), (impl, q, a, out, err))
NOTED(scan, s->table, ddbi_engine_scan, (void *impl, const ddb_scan_params *s, ddb_arena *a, ddb_page *out, ddb_error *err), (impl, s, a, out, err))
NOTED(get_record, table, ddbi_engine_get_record, (void *impl, const char *table, const ddb_item *key, const ddb_get_opts *opts, ddb_arena *a, const ddbi_rec_visitor *v, ddb_item **out, ddbi_rec *rec, ddb_capacity *cap, ddb_error *err), (impl, table, key, opts, a, v, out, rec, cap, err))
NOTED(query_records, q->table, ddbi_engine_query_records, (void *impl, const ddb_query_params *q, ddb_arena *a, const ddbi_rec_visitor *v, ddbi_rec_page *out, ddb_error *err), (impl, q, a, v, out, err))
NOTED(scan_records, s->table, ddbi_engine_scan_records, (void *impl, const ddb_scan_params *s, ddb_arena *a, ddbi_rec_page *out, ddb_error *err), (impl, s, a, out, err))
READ_EACH(batch_get_records, ddb_batch_get_op, ops, n, ddbi_engine_batch_get_records, (void *impl, const ddb_batch_get_op *ops, size_t n, ddb_arena *a, ddb_item **items, ddbi_rec *recs, ddb_return_capacity rc, ddb_capacity *cap, ddb_error *err), (impl, ops, n, a, items, recs, rc, cap, err))
WRITE(update_table_stream, table, ddbi_streams_update_table_stream, (void *impl, const char *table, const ddb_stream_spec *spec, ddb_error *err), (impl, table, spec, err))
WRITE(update_time_to_live, table, ddbi_streams_update_time_to_live, (void *impl, const char *table, const char *attr, ddb_error *err), (impl, table, attr, err))
WRITE(ttl_sweep, table, ddbi_streams_ttl_sweep, (void *impl, const char *table, int64_t now_s, uint64_t *deleted, ddb_error *err), (impl, table, now_s, deleted, err))
WRITE(stream_trim, table, ddbi_streams_stream_trim, (void *impl, const char *table, uint64_t *trimmed, ddb_error *err), (impl, table, trimmed, err))
NOTED(stream_describe, table, ddbi_streams_stream_describe, (void *impl, const char *table, ddb_stream_desc *out, ddb_error *err), (impl, table, out, err))
NOTED(stream_iter_open, table, ddbi_streams_stream_iter_open, (void *impl, const char *table, ddb_stream_position from, uint64_t seq, const ddbi_stream_iter_ops **iops, void **it, ddb_error *err), (impl, table, from, seq, iops, it, err))
CHECK(stream_check, table, ddbi_streams_stream_check, (void *impl, const char *table, ddb_check_report *report, ddb_error *err), (impl, table, report, err))
NOTED(table_stats, table, ddbi_engine_table_stats, (void *impl, const char *table, ddb_arena *a, ddb_partition_stats **parts, size_t *count, ddb_error *err), (impl, table, a, parts, count, err))
CHECK(check_table, table, ddbi_engine_check_table, (void *impl, const char *table, ddb_check_report *report, ddb_error *err), (impl, table, report, err))
/* the catalog's problems (databases no definition calls for) are not
 * written to: only a catalog that cannot be read damages the handle */
static int check_catalog(void *impl, ddb_check_report *report, ddb_error *err)
{
    int rc = ddbi_engine_check_catalog(impl, report, err);
    return rc == DDB_ECORRUPT && report && report->problems ? rc : check_noted(impl, NULL, rc, report, err);
}
NOTED(table_report_build, table, ddbi_streams_table_report_build, (void *impl, const char *table, size_t top, ddb_arena *a, ddb_table_report **out, ddb_error *err), (impl, table, top, a, out, err))

const ddbi_backend_ops ddbi_embedded_ops = {
    .name = "embedded",
    .close = ddbi_engine_close,
    .sync = ddbi_engine_sync,
    .clock_ms = ddbi_engine_clock_ms,
    .create_table = create_table,
    .update_table = update_table,
    .delete_table = delete_table,
    .describe_table = describe_table,
    .list_tables = list_tables,
    .add_index = add_index,
    .delete_index = delete_index,
    .table_meta_put = table_meta_put,
    .table_meta_get = table_meta_get,
    .put_item = put_item,
    .delete_item = delete_item,
    .update_item = update_item,
    .get_item = get_item,
    .batch_write = batch_write,
    .batch_get = batch_get,
    .transact_write = transact_write,
    .transact_get = transact_get,
    .query = query,
    .scan = scan,
    .get_record = get_record,
    .query_records = query_records,
    .scan_records = scan_records,
    .batch_get_records = batch_get_records,
    .update_table_stream = update_table_stream,
    .update_time_to_live = update_time_to_live,
    .ttl_sweep = ttl_sweep,
    .stream_trim = stream_trim,
    .stream_describe = stream_describe,
    .stream_iter_open = stream_iter_open,
    .stream_check = stream_check,
    .table_stats = table_stats,
    .check_table = check_table,
    .check_catalog = check_catalog,
    .table_report_build = table_report_build,
};
