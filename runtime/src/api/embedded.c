/* api/: the embedded backend: the engine (engine/) with the streams room
 * (streams/) hooked in, as one operations table.  May call engine/ and
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

const ddbi_backend_ops ddbi_embedded_ops = {
    .name = "embedded",
    .close = ddbi_engine_close,
    .sync = ddbi_engine_sync,
    .clock_ms = ddbi_engine_clock_ms,
    .create_table = ddbi_engine_create_table,
    .delete_table = ddbi_engine_delete_table,
    .describe_table = ddbi_engine_describe_table,
    .list_tables = ddbi_engine_list_tables,
    .add_index = ddbi_engine_add_index,
    .delete_index = ddbi_engine_delete_index,
    .table_meta_put = ddbi_engine_table_meta_put,
    .table_meta_get = ddbi_engine_table_meta_get,
    .put_item = ddbi_engine_put_item,
    .delete_item = ddbi_engine_delete_item,
    .update_item = ddbi_engine_update_item,
    .get_item = ddbi_engine_get_item,
    .batch_write = ddbi_engine_batch_write,
    .batch_get = ddbi_engine_batch_get,
    .transact_write = ddbi_engine_transact_write,
    .transact_get = ddbi_engine_transact_get,
    .query = ddbi_engine_query,
    .scan = ddbi_engine_scan,
    .update_table_stream = ddbi_streams_update_table_stream,
    .update_time_to_live = ddbi_streams_update_time_to_live,
    .ttl_sweep = ddbi_streams_ttl_sweep,
    .stream_trim = ddbi_streams_stream_trim,
    .stream_describe = ddbi_streams_stream_describe,
    .stream_iter_open = ddbi_streams_stream_iter_open,
    .stream_check = ddbi_streams_stream_check,
    .table_stats = ddbi_engine_table_stats,
    .check_table = ddbi_engine_check_table,
    .check_catalog = ddbi_engine_check_catalog,
    .table_report_build = ddbi_streams_table_report_build,
};
