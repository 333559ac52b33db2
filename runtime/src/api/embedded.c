/* api/: the embedded backend: the engine (engine/) with the streams room
 * (streams/) hooked in, as one operations table, each operation telling
 * the engine when it found the file damaged.  May call engine/ and
 * streams/. */
#include "api/api.h"
#include "engine/engine.h"
#include "streams/streams.h"

int ddbi_embedded_open(const char *uri, const char *path, const ddb_options *opts, void **impl, ddb_error *err)
{
    ddbi_engine *db;
    int rc = ddbi_engine_open(uri, path, opts, &ddbi_streams_hooks, &db, err);
    if (!rc)
        *impl = db;
    return rc;
}


/* Every operation passes through noted(): a DDB_ECORRUPT answer (a damaged
 * file) is remembered by the engine, which then refuses every later write
 * of the handle (ddbi_engine_damaged). */
static int noted(void *impl, int rc, const ddb_error *err)
{
    return rc == DDB_ECORRUPT ? ddbi_engine_damaged(impl, err) : rc;
}

#define NOTED(op, fn, params, args)                                                                                   \
    static int op params                                                                                              \
    {                                                                                                                 \
        return noted(impl, fn args, err);                                                                             \
    }

NOTED(create_table, ddbi_engine_create_table, (void *impl, const ddb_table_def *def, ddb_error *err), (impl, def, err))
NOTED(delete_table, ddbi_engine_delete_table, (void *impl, const char *name, ddb_error *err), (impl, name, err))
NOTED(describe_table, ddbi_engine_describe_table, (void *impl, const char *name, ddb_arena *a, ddb_table_desc **out, ddb_error *err), (impl, name, a, out, err))
NOTED(list_tables, ddbi_engine_list_tables, (void *impl, ddb_arena *a, const char ***names, size_t *count, ddb_error *err), (impl, a, names, count, err))
NOTED(add_index, ddbi_engine_add_index, (void *impl, const char *table, const ddb_index_def *x, uint64_t *backfilled, uint64_t *skipped, ddb_error *err), (impl, table, x, backfilled, skipped, err))
NOTED(delete_index, ddbi_engine_delete_index, (void *impl, const char *table, const char *index, ddb_error *err), (impl, table, index, err))
NOTED(update_table, ddbi_engine_update_table, (void *impl, const char *table, const ddb_table_update *u, ddb_error *err), (impl, table, u, err))
NOTED(table_meta_put, ddbi_engine_table_meta_put, (void *impl, const char *table, const char *key, const void *val, size_t len, ddb_error *err), (impl, table, key, val, len, err))
NOTED(table_meta_get, ddbi_engine_table_meta_get, (void *impl, const char *table, const char *key, ddb_arena *a, void **val, size_t *len, ddb_error *err), (impl, table, key, a, val, len, err))
NOTED(put_item, ddbi_engine_put_item, (void *impl, const char *table, const ddb_item *item, const ddb_write_opts *opts, ddb_arena *a, ddb_write_result *res, ddb_error *err), (impl, table, item, opts, a, res, err))
NOTED(delete_item, ddbi_engine_delete_item, (void *impl, const char *table, const ddb_item *key, const ddb_write_opts *opts, ddb_arena *a, ddb_write_result *res, ddb_error *err), (impl, table, key, opts, a, res, err))
NOTED(update_item, ddbi_engine_update_item, (void *impl, const char *table, const ddb_item *key, const ddb_expr *update, const ddb_write_opts *opts, ddb_arena *a, ddb_write_result *res, ddb_error *err), (impl, table, key, update, opts, a, res, err))
NOTED(get_item, ddbi_engine_get_item, (void *impl, const char *table, const ddb_item *key, const ddb_get_opts *opts, ddb_arena *a, ddb_item **out, ddb_capacity *cap, ddb_error *err), (impl, table, key, opts, a, out, cap, err))
NOTED(batch_write, ddbi_engine_batch_write, (void *impl, const ddb_batch_write_op *ops, size_t n, ddb_return_capacity rc, ddb_capacity *cap, ddb_error *err), (impl, ops, n, rc, cap, err))
NOTED(batch_get, ddbi_engine_batch_get, (void *impl, const ddb_batch_get_op *ops, size_t n, ddb_arena *a, ddb_item **items, ddb_return_capacity rc, ddb_capacity *cap, ddb_error *err), (impl, ops, n, a, items, rc, cap, err))
NOTED(transact_write, ddbi_engine_transact_write, (void *impl, const ddb_tx_op *ops, size_t n, const ddb_tx_opts *o, ddb_arena *a, ddb_tx_result *res, ddb_error *err), (impl, ops, n, o, a, res, err))
NOTED(transact_get, ddbi_engine_transact_get, (void *impl, const ddb_tx_get *gets, size_t n, ddb_arena *a, ddb_item **items, ddb_return_capacity rc, ddb_capacity *cap, ddb_error *err), (impl, gets, n, a, items, rc, cap, err))
NOTED(query, ddbi_engine_query, (void *impl, const ddb_query_params *q, ddb_arena *a, ddb_page *out, ddb_error *err), (impl, q, a, out, err))
NOTED(scan, ddbi_engine_scan, (void *impl, const ddb_scan_params *s, ddb_arena *a, ddb_page *out, ddb_error *err), (impl, s, a, out, err))
NOTED(get_record, ddbi_engine_get_record, (void *impl, const char *table, const ddb_item *key, const ddb_get_opts *opts, ddb_arena *a, ddb_item **out, ddbi_rec *rec, ddb_capacity *cap, ddb_error *err), (impl, table, key, opts, a, out, rec, cap, err))
NOTED(query_records, ddbi_engine_query_records, (void *impl, const ddb_query_params *q, ddb_arena *a, ddbi_rec_page *out, ddb_error *err), (impl, q, a, out, err))
NOTED(scan_records, ddbi_engine_scan_records, (void *impl, const ddb_scan_params *s, ddb_arena *a, ddbi_rec_page *out, ddb_error *err), (impl, s, a, out, err))
NOTED(batch_get_records, ddbi_engine_batch_get_records, (void *impl, const ddb_batch_get_op *ops, size_t n, ddb_arena *a, ddb_item **items, ddbi_rec *recs, ddb_return_capacity rc, ddb_capacity *cap, ddb_error *err), (impl, ops, n, a, items, recs, rc, cap, err))
NOTED(update_table_stream, ddbi_streams_update_table_stream, (void *impl, const char *table, const ddb_stream_spec *spec, ddb_error *err), (impl, table, spec, err))
NOTED(update_time_to_live, ddbi_streams_update_time_to_live, (void *impl, const char *table, const char *attr, ddb_error *err), (impl, table, attr, err))
NOTED(ttl_sweep, ddbi_streams_ttl_sweep, (void *impl, const char *table, int64_t now_s, uint64_t *deleted, ddb_error *err), (impl, table, now_s, deleted, err))
NOTED(stream_trim, ddbi_streams_stream_trim, (void *impl, const char *table, uint64_t *trimmed, ddb_error *err), (impl, table, trimmed, err))
NOTED(stream_describe, ddbi_streams_stream_describe, (void *impl, const char *table, ddb_stream_desc *out, ddb_error *err), (impl, table, out, err))
NOTED(stream_iter_open, ddbi_streams_stream_iter_open, (void *impl, const char *table, ddb_stream_position from, uint64_t seq, const ddbi_stream_iter_ops **iops, void **it, ddb_error *err), (impl, table, from, seq, iops, it, err))
NOTED(stream_check, ddbi_streams_stream_check, (void *impl, const char *table, ddb_check_report *report, ddb_error *err), (impl, table, report, err))
NOTED(table_stats, ddbi_engine_table_stats, (void *impl, const char *table, ddb_arena *a, ddb_partition_stats **parts, size_t *count, ddb_error *err), (impl, table, a, parts, count, err))
NOTED(check_table, ddbi_engine_check_table, (void *impl, const char *table, ddb_check_report *report, ddb_error *err), (impl, table, report, err))
NOTED(check_catalog, ddbi_engine_check_catalog, (void *impl, ddb_check_report *report, ddb_error *err), (impl, report, err))
NOTED(table_report_build, ddbi_streams_table_report_build, (void *impl, const char *table, size_t top, ddb_arena *a, ddb_table_report **out, ddb_error *err), (impl, table, top, a, out, err))

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
