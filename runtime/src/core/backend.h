/* core/: the contract between the public API and a backend (internal).
 *
 * A backend (the embedded engine with its streams, the remote backend) is a
 * table of operations, after SQLite's sqlite3_io_methods: one function
 * pointer per public operation of <ddb/ddb.h>, each taking the backend's own
 * handle (impl) in place of `ddb *db` and otherwise the public function's
 * parameters and contract.  The public functions (the .c files of api/) check their
 * arguments once, before dispatching, so an operation sees a non-NULL impl
 * and the arguments its public function documents as required.  An
 * operation a backend does not offer stays NULL: the API answers
 * DDB_ENOTSUP naming the operation and the backend.
 *
 * It holds types only, and lives in core/ so that the backends (engine/ with
 * streams/, remote/), which build their operations tables from it, and
 * api/, which dispatches through them, include it without any of them
 * reaching up to another. */
#ifndef DDB_CORE_BACKEND_H
#define DDB_CORE_BACKEND_H

#include <ddb/ddb.h>

/* A stream iterator of a backend: ddb_stream_iter (the public object)
 * carries these with the backend's iterator, so that any backend's
 * iterator plugs in. */
typedef struct ddbi_stream_iter_ops {
    int (*read)(void *it, size_t max, ddb_arena *a, ddb_stream_record *recs, size_t *n, ddb_error *err);
    uint64_t (*position)(const void *it);
    void (*close)(void *it);
    /* ddb_stream_iter_checkpoint; NULL: the decimal of position() */
    int (*checkpoint)(const void *it, char *buf, size_t cap, ddb_error *err);
} ddbi_stream_iter_ops;

/* Stored records handed over undecoded (the optional read operations
 * below): a record in the layout of core/codec.h, copied into the caller's
 * arena (it lives as long as the arena), or -- borrowed, handed to a
 * visitor -- the backend's own bytes, valid only during the visitor's call
 * (nothing may point into them afterwards).  Read with core/record.h. */
typedef struct ddbi_rec {
    const uint8_t *p; /* NULL: no record */
    size_t len;
    bool borrowed; /* p is the backend's memory, for the visitor's call only */
} ddbi_rec;

/* A reader's visitor of the entries of a GetItem or Query page, called in
 * their order inside the backend's read (the embedded engine: inside its
 * read transaction, so records come borrowed, not copied): each entry as a
 * record (rec, item NULL) where nothing needs it decoded, else as an item
 * (rec NULL) in the caller's arena.  A non-zero return ends the read with
 * that code (err set by fn). */
typedef struct ddbi_rec_visitor {
    int (*fn)(void *ctx, const ddbi_rec *rec, ddb_item *item, ddb_error *err);
    void *ctx;
} ddbi_rec_visitor;

/* A Query or Scan page whose entries come as decoded items or as records: entry i
 * is recs[i] when recs && recs[i].p (page.items[i] is NULL then), else
 * page.items[i].  Everything else of page (counts, last_key, capacity) is
 * as ddb_query gives it. */
typedef struct ddbi_rec_page {
    ddb_page page;
    ddbi_rec *recs; /* NULL: every entry is an item */
} ddbi_rec_page;

typedef struct ddbi_backend_ops {
    const char *name; /* "embedded", "remote": named in DDB_ENOTSUP messages */

    /* handle */
    void (*close)(void *impl);
    int (*sync)(void *impl, ddb_error *err);
    int64_t (*clock_ms)(const void *impl); /* NULL: the system clock */

    /* tables */
    int (*create_table)(void *impl, const ddb_table_def *def, ddb_error *err);
    int (*delete_table)(void *impl, const char *name, ddb_error *err);
    int (*describe_table)(void *impl, const char *name, ddb_arena *a, ddb_table_desc **out, ddb_error *err);
    int (*list_tables)(void *impl, ddb_arena *a, const char ***names, size_t *count, ddb_error *err);
    int (*add_index)(void *impl, const char *table, const ddb_index_def *x, uint64_t *backfilled, uint64_t *skipped,
                     ddb_error *err);
    int (*delete_index)(void *impl, const char *table, const char *index, ddb_error *err);
    int (*update_table)(void *impl, const char *table, const ddb_table_update *u, ddb_error *err);
    int (*table_meta_put)(void *impl, const char *table, const char *key, const void *val, size_t len,
                          ddb_error *err);
    int (*table_meta_get)(void *impl, const char *table, const char *key, ddb_arena *a, void **val, size_t *len,
                          ddb_error *err);

    /* items */
    int (*put_item)(void *impl, const char *table, const ddb_item *item, const ddb_write_opts *opts, ddb_arena *a,
                    ddb_write_result *res, ddb_error *err);
    int (*delete_item)(void *impl, const char *table, const ddb_item *key, const ddb_write_opts *opts, ddb_arena *a,
                       ddb_write_result *res, ddb_error *err);
    int (*update_item)(void *impl, const char *table, const ddb_item *key, const ddb_expr *update,
                       const ddb_write_opts *opts, ddb_arena *a, ddb_write_result *res, ddb_error *err);
    int (*get_item)(void *impl, const char *table, const ddb_item *key, const ddb_get_opts *opts, ddb_arena *a,
                    ddb_item **out, ddb_capacity *cap, ddb_error *err);

    /* batches and transactions */
    int (*batch_write)(void *impl, const ddb_batch_write_op *ops, size_t n, ddb_return_capacity rc, ddb_capacity *cap,
                       ddb_error *err);
    int (*batch_get)(void *impl, const ddb_batch_get_op *ops, size_t n, ddb_arena *a, ddb_item **items,
                     ddb_return_capacity rc, ddb_capacity *cap, ddb_error *err);
    /* o is never NULL; a client_request_token was checked (1..36 characters) */
    int (*transact_write)(void *impl, const ddb_tx_op *ops, size_t n, const ddb_tx_opts *o, ddb_arena *a,
                          ddb_tx_result *res, ddb_error *err);
    int (*transact_get)(void *impl, const ddb_tx_get *gets, size_t n, ddb_arena *a, ddb_item **items,
                        ddb_return_capacity rc, ddb_capacity *cap, ddb_error *err);

    /* query and scan */
    int (*query)(void *impl, const ddb_query_params *q, ddb_arena *a, ddb_page *out, ddb_error *err);
    int (*scan)(void *impl, const ddb_scan_params *s, ddb_arena *a, ddb_page *out, ddb_error *err);

    /* Optional reads that hand over stored records instead of items where
     * nothing in the request needs the item decoded (no filter, projection
     * or attribute list, an ALL index); the same contract as get_item,
     * query, scan and batch_get otherwise (capacity, limits, 1 MB pages,
     * last_key, TTL).  NULL: the API falls back to those (api/records.h).
     * get_record: *out gets the item, or *rec the record (one of them; both
     * empty with DDB_ENOTFOUND).  With a visitor v (get_record,
     * query_records), the entries go to v instead: *out, *rec and the
     * page's items and recs stay empty (its counts, last_key and capacity
     * as without). */
    int (*get_record)(void *impl, const char *table, const ddb_item *key, const ddb_get_opts *opts, ddb_arena *a,
                      const ddbi_rec_visitor *v, ddb_item **out, ddbi_rec *rec, ddb_capacity *cap, ddb_error *err);
    int (*query_records)(void *impl, const ddb_query_params *q, ddb_arena *a, const ddbi_rec_visitor *v,
                         ddbi_rec_page *out, ddb_error *err);
    int (*scan_records)(void *impl, const ddb_scan_params *s, ddb_arena *a, ddbi_rec_page *out, ddb_error *err);
    /* batch_get_records: batch_get, entry i as items[i] or (a request
     * without projection) recs[i]; both empty when there is no such item */
    int (*batch_get_records)(void *impl, const ddb_batch_get_op *ops, size_t n, ddb_arena *a, ddb_item **items,
                             ddbi_rec *recs, ddb_return_capacity rc, ddb_capacity *cap, ddb_error *err);

    /* streams and TTL */
    int (*update_table_stream)(void *impl, const char *table, const ddb_stream_spec *spec, ddb_error *err);
    int (*update_time_to_live)(void *impl, const char *table, const char *attr, ddb_error *err);
    int (*ttl_sweep)(void *impl, const char *table, int64_t now_s, uint64_t *deleted, ddb_error *err);
    int (*stream_trim)(void *impl, const char *table, uint64_t *trimmed, ddb_error *err);
    int (*stream_describe)(void *impl, const char *table, ddb_stream_desc *out, ddb_error *err);
    /* *it gets the backend's iterator, *iops its operations */
    int (*stream_iter_open)(void *impl, const char *table, ddb_stream_position from, uint64_t seq,
                            const ddbi_stream_iter_ops **iops, void **it, ddb_error *err);
    /* ddb_stream_iter_resume of a checkpoint that is not a decimal sequence
     * number (those are opened AFTER_SEQUENCE); NULL: DDB_EINVAL */
    int (*stream_iter_resume)(void *impl, const char *table, const char *checkpoint,
                              const ddbi_stream_iter_ops **iops, void **it, ddb_error *err);
    int (*stream_check)(void *impl, const char *table, ddb_check_report *report, ddb_error *err);

    /* administration and reports */
    int (*table_stats)(void *impl, const char *table, ddb_arena *a, ddb_partition_stats **parts, size_t *count,
                       ddb_error *err);
    int (*check_table)(void *impl, const char *table, ddb_check_report *report, ddb_error *err);
    int (*check_catalog)(void *impl, ddb_check_report *report, ddb_error *err);
    int (*table_report_build)(void *impl, const char *table, size_t top, ddb_arena *a, ddb_table_report **out,
                              ddb_error *err);
} ddbi_backend_ops;

#endif
