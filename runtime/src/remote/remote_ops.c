/* remote/: the remote backend's operations table (core/backend.h): what
 * api/ dispatches to for http://, https:// and dynamodb:// handles.
 * Operations DynamoDB's API lacks stay NULL. */
#include "remote/remote.h"
#include "remote/remote_streams.h"

const ddbi_backend_ops ddbi_remote_ops = {
    .name = "remote",
    .close = ddbi_remote_close,
    .sync = ddbi_remote_sync,
    .clock_ms = ddbi_remote_clock_ms,
    .create_table = ddbi_remote_create_table,
    .delete_table = ddbi_remote_delete_table,
    .describe_table = ddbi_remote_describe_table,
    .list_tables = ddbi_remote_list_tables,
    .add_index = ddbi_remote_add_index,
    .delete_index = ddbi_remote_delete_index,
    .table_meta_put = ddbi_remote_table_meta_put,
    .table_meta_get = ddbi_remote_table_meta_get,
    .put_item = ddbi_remote_put_item,
    .delete_item = ddbi_remote_delete_item,
    .update_item = ddbi_remote_update_item,
    .get_item = ddbi_remote_get_item,
    .batch_write = ddbi_remote_batch_write,
    .batch_get = ddbi_remote_batch_get,
    .transact_write = ddbi_remote_transact_write,
    .transact_get = ddbi_remote_transact_get,
    .query = ddbi_remote_query,
    .scan = ddbi_remote_scan,
    .update_table_stream = ddbi_remote_update_table_stream,
    .update_table = ddbi_remote_update_table,
    .update_time_to_live = ddbi_remote_update_time_to_live,
    .ttl_sweep = ddbi_remote_ttl_sweep,
    .stream_trim = ddbi_remote_stream_trim,
    .stream_describe = ddbi_remote_stream_describe,
    .stream_iter_open = ddbi_remote_stream_iter_open,
    .stream_iter_resume = ddbi_remote_stream_iter_resume,
};
