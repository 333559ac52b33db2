/* streams/: what this room hooks into the engine (engine.h,
 * ddbi_engine_hooks): its state at open and close, a table's stream and
 * TTL settings on create, delete and load, and a stream record for every
 * applied write.  The engine calls the room only through these. */
#include "streams/streams.h"

const ddbi_engine_hooks ddbi_streams_hooks = {
    .open_txn = ddbi_stream_open,
    .opened = ddbi_stream_start,
    .close = ddbi_stream_close,
    .table_validate = ddbi_stream_validate_def,
    .table_create = ddbi_stream_on_create,
    .table_delete = ddbi_stream_on_delete,
    .table_load = ddbi_stream_load_config,
    .write_applied = ddbi_stream_capture,
};
