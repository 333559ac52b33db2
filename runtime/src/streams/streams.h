/* streams/: change streams, TTL and the capacity ledger (room header:
 * what the streams room offers; internal).
 *
 * The room completes the embedded engine: it hooks into it (hooks.c:
 * stream and TTL settings of tables, a stream record for every applied
 * write, its state at open and close), and offers the API the streams,
 * TTL and report operations declared at the end of this header.  It may
 * call engine/, expr/ and core/; the engine never calls it directly.
 *
 * Storage:
 *  - meta "q/<table>": the table's stream specification and TTL attribute
 *    (stream_config.c), loaded into ddb_table_rt.stream / .ttl_attr with the
 *    table definition; changing it bumps the schema generation.
 *  - sub-database "streams": per table the counters under "<table>\0"
 *    (ddb_stream_state) and one record per change under
 *    "<table>\0" || be64(sequence number) (stream_store.c).  Records of one
 *    table are contiguous and in sequence order.
 *  - meta "c/<table>/<be64 bound>": consumed read / write units of a
 *    partition, accumulated by every handle (ledger.c).
 *
 * A record's value: version 1, event, view, flags (1 by TTL, 2 old image,
 * 4 new image), be64 created_ms, be32 SizeBytes, then varint length +
 * encoded item (codec.h) for the keys, the old image, the new image (the
 * images only when their flag is set). */
#ifndef DDB_STREAMS_H
#define DDB_STREAMS_H

#include "engine/engine.h"
#include "engine/write.h"
#include "core/backend.h"

#define DDB_STREAM_RECORD_VERSION 1
#define DDB_STREAM_DEFAULT_RETENTION_S 86400u
#define DDB_STREAM_FLAG_TTL 1u
#define DDB_STREAM_FLAG_OLD 2u
#define DDB_STREAM_FLAG_NEW 4u

/* The counters of one table's stream (stored host-endian, as the
 * partition statistics are). */
typedef struct ddb_stream_state {
    uint64_t last_seq;        /* the newest sequence number handed out */
    uint64_t trimmed_through; /* every record <= this is gone */
    uint64_t records, bytes;  /* retained records and their stored bytes */
} ddb_stream_state;

/* ---- stream_config.c ---- */

/* Fill t->stream and t->ttl_attr from "q/<name>" (defaults when absent);
 * DDB_ECORRUPT when the record is malformed. */
int ddbi_stream_load_config(ddbi_engine *db, MDB_txn *txn, ddb_table_rt *t, ddb_error *err);
/* The stream and TTL fields of a table definition. */
int ddbi_stream_validate_def(const ddb_table_def *d, ddb_error *err);
/* CreateTable / DeleteTable, inside their transaction: store (or remove)
 * the configuration; a deleted table's records go, its sequence numbers
 * stay used.  LMDB error codes. */
int ddbi_stream_on_create(ddbi_engine *db, MDB_txn *txn, const ddb_table_def *d);
int ddbi_stream_on_delete(ddbi_engine *db, MDB_txn *txn, const char *table);
/* The bytes of "q/<table>" into key; its length. */
size_t ddbi_stream_config_key(char *key, size_t cap, const char *table);

/* ---- stream_store.c ---- */

/* The hook at the end of ddbi_write_apply: append the record of a change
 * to t's stream (nothing when the table has no stream or nothing changed),
 * then trim what retention no longer keeps. */
int ddbi_stream_capture(ddbi_engine *db, MDB_txn *txn, const ddb_wreq *r, const ddb_wstate *st, ddb_error *err);
/* The stream counters of table (zeros and *present false when absent).
 * LMDB error codes. */
int ddbi_stream_state_get(ddbi_engine *db, MDB_txn *txn, const char *table, ddb_stream_state *s, bool *present);
/* Delete every record of table (DeleteTable): trimmed_through = last_seq. */
int ddbi_stream_drop_records(ddbi_engine *db, MDB_txn *txn, const char *table);
/* Key of record seq of table; its length (cap >= strlen(table) + 9). */
size_t ddbi_stream_record_key(uint8_t *key, const char *table, uint64_t seq);
/* Decode a stored record into arena memory; DDB_ECORRUPT with a reason. */
int ddbi_stream_decode(const char *table, uint64_t seq, const uint8_t *p, size_t n, ddb_arena *a,
                      ddb_stream_record *rec, ddb_error *err);

/* ---- ledger.c / sweeper.c ---- */

/* What the ledger has recorded of one partition's consumption. */
typedef struct ddb_ledger_base {
    char table[256];
    uint64_t bound;
    double r, w;
} ddb_ledger_base;

/* Per handle (the engine handle's ext): the "streams" database, the sweep
 * thread and the ledger's baselines. */
typedef struct ddb_stream_rt {
    MDB_dbi dbi;      /* "streams": every table's stream records and counters */
    bool ttl_writing; /* the write running now deletes expired items (write lock held) */
    pthread_mutex_t mu; /* stop */
    pthread_cond_t cv;
    pthread_t thread;
    bool thread_on, stop;
    pthread_mutex_t ledger_mu; /* base, one flush at a time */
    ddb_ledger_base *base;
    size_t n_base, cap_base;
} ddb_stream_rt;

/* The room's state in an engine handle. */
static inline ddb_stream_rt *ddbi_streams_of(const ddbi_engine *db)
{
    return db->ext;
}

/* The hooks of this room on the engine (hooks.c), given to
 * ddbi_engine_open by api/embedded.c. */
extern const ddbi_engine_hooks ddbi_streams_hooks;
/* Hook open_txn: the room's state and its database. */
int ddbi_stream_open(ddbi_engine *db, MDB_txn *txn, ddb_error *err);
/* Hook opened: the sweep thread when ddb_options.ttl_sweep_ms is set. */
int ddbi_stream_start(ddbi_engine *db, ddb_error *err);
/* Hook close: stop the thread, record consumed capacity, free the state. */
void ddbi_stream_close(ddbi_engine *db);
/* Add what this handle consumed since the last flush to the ledger. */
int ddbi_ledger_flush(ddbi_engine *db, ddb_error *err);
/* The ledger's totals for a partition of table starting at bound, plus
 * this handle's unflushed consumption (cur_* = the in-memory counters). */
void ddbi_ledger_totals(ddbi_engine *db, MDB_txn *txn, const char *table, uint64_t bound, double cur_r, double cur_w,
                       double *r, double *w);
/* LMDB: delete the ledger of table (DeleteTable). */
int ddbi_ledger_drop(ddbi_engine *db, MDB_txn *txn, const char *table);


/* ---- What the room offers the API: the streams, TTL and report
 * operations of the embedded backend (core/backend.h gives the contracts;
 * impl is the ddbi_engine, arguments are checked by the API). ---- */
int ddbi_streams_update_table_stream(void *impl, const char *table, const ddb_stream_spec *spec, ddb_error *err);
int ddbi_streams_update_time_to_live(void *impl, const char *table, const char *attr, ddb_error *err);
int ddbi_streams_ttl_sweep(void *impl, const char *table, int64_t now_s, uint64_t *deleted, ddb_error *err);
int ddbi_streams_stream_trim(void *impl, const char *table, uint64_t *trimmed, ddb_error *err);
int ddbi_streams_stream_describe(void *impl, const char *table, ddb_stream_desc *out, ddb_error *err);
int ddbi_streams_stream_iter_open(void *impl, const char *table, ddb_stream_position from, uint64_t seq,
                                  const ddbi_stream_iter_ops **iops, void **it, ddb_error *err);
int ddbi_streams_stream_check(void *impl, const char *table, ddb_check_report *report, ddb_error *err);
int ddbi_streams_table_report_build(void *impl, const char *table, size_t top, ddb_arena *a,
                                    ddb_table_report **out, ddb_error *err);

#endif
