/* engine/: the embedded engine on LMDB (room header: what the engine
 * offers the rooms above it).
 *
 * The room holds tables and their cache (table.c), partitions
 * (partition.c), keys (keys.c), the write path (write.c, batch.c), the
 * read path (read.c), transactions and group commit (db.c), the commit
 * log (clog*.c, clog.h: every change to LMDB goes through ddbi_kv_*),
 * opening and closing (open.c), consumed capacity (capacity.c), TTL expiry and the
 * clock (expiry.c), statistics (stats.c) and the consistency check
 * (check.c).  It may call core/ and expr/ and nothing above: the streams
 * room hooks into it (ddbi_engine_hooks below), and the API reaches it
 * through the operations declared at the end of this header.
 *
 * Offered: this header, plus keys.h (key attributes of items) and write.h
 * (the two-step item write whose request and state the write hook sees).
 * Everything else of the room is private to it. */
#ifndef DDB_ENGINE_H
#define DDB_ENGINE_H

#include <ddb/ddb.h>
#include <ddb/expr.h>
#include <lmdb.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "core/codec.h"
#include "core/keycodec.h"
#include "engine/clog.h"

#define DDB_MAX_INDEXES (DDB_MAX_GSI + DDB_MAX_LSI)
#define DDB_ITEM_MAX 409600u /* 400 KB */
#define DDB_PK_MAX 2048u
#define DDB_SK_MAX 1024u
#define DDB_PAGE_MAX (1024u * 1024u)

typedef struct ddb_index_rt {
    char *name;
    bool local;
    char *pk, *sk;
    ddb_type pk_type, sk_type;
    /* a multi-attribute key (GSIs only): the partition-key and sort-key
     * attributes after pk and sk, in declared order */
    size_t n_pk_more, n_sk_more;
    char *pk_more[DDB_MAX_KEY_ATTRS - 1], *sk_more[DDB_MAX_KEY_ATTRS - 1];
    ddb_type pk_more_type[DDB_MAX_KEY_ATTRS - 1], sk_more_type[DDB_MAX_KEY_ATTRS - 1];
    ddb_projection proj;
    char **include;
    size_t n_include;
    uint64_t rcu, wcu;
    MDB_dbi dbi;
} ddb_index_rt;

/* In-memory per-partition counters (consumption since open, throttling).
 * rcu/wcu are added to without a lock (ddbi_part_charge, compare-and-swap)
 * and read with atomic loads; the rest is guarded by the table's lock and
 * only used in throttle mode. */
/* One second of a partition's consumption in this handle (stats.c): what
 * was consumed and throttled, and how much of that is already in the
 * stored timeline ("w/<table>/<bound>"). */
typedef struct ddbi_tl_bucket {
    int64_t second; /* the handle's clock, seconds since the epoch; 0 = empty */
    double r, w;
    uint32_t th;
    double fr, fw;  /* flushed */
    uint32_t fth;
} ddbi_tl_bucket;

typedef struct ddb_part_rt {
    _Atomic double rcu, wcu;
    uint64_t throttled;
    double read_tokens, write_tokens;
    double last_refill; /* seconds */
    /* per-second timeline: a ring of DDB_STATS_SECONDS buckets (second %
     * DDB_STATS_SECONDS), guarded by the spin flag tl_busy (every charge
     * takes it for a few instructions; the table's lock is not taken in
     * the common case) */
    atomic_bool tl_busy;
    ddbi_tl_bucket tl[DDB_STATS_SECONDS];
} ddb_part_rt;

typedef struct ddb_table_rt {
    char *name;
    char *pk, *sk;
    ddb_type pk_type, sk_type;
    ddb_index_rt idx[DDB_MAX_INDEXES];
    size_t n_idx;
    uint64_t rcu, wcu;
    MDB_dbi items;
    uint64_t *bounds; /* lower hash bound of each partition, ascending, bounds[0] = 0 */
    size_t n_parts;
    ddb_part_rt *parts;
    pthread_mutex_t lock; /* guards parts' throttle state and 'throttled' */
    struct ddb_table_rt *next;
    struct ddb_table_rt *retired_next; /* on a retired list's head: the next retired list */
    /* change stream and TTL, from the table's "q/<name>" record (stream.h) */
    ddb_stream_spec stream;
    int64_t stream_enabled_ms; /* when the stream was last enabled: its label (0: unknown) */
    char ttl_attr[256]; /* "" = no TTL */
    /* NULL; or the table's stored definition (or partition map, or stream
     * settings) is damaged: only name is set, every operation on the table
     * answers DDB_ECORRUPT with this message, DeleteTable drops it */
    char *damage;
    bool ttl_reads_hide; /* reads hide expired items (ddb_options.ttl_reads), set by the table cache */
    /* settings kept in the definition (table_settings.c) */
    int64_t created_ms, on_demand_ms;
    char table_id[37];
    bool deletion_protection;
} ddb_table_rt;

typedef struct ddb_gc_op ddb_gc_op;
typedef struct ddbi_engine ddbi_engine;
struct ddb_wreq;
struct ddb_wstate;

/* What a room above the engine (streams/) hooks into it, given to
 * ddbi_engine_open: the engine calls these and nothing else of that room.
 * LMDB codes where a hook returns int without a ddb_error. */
typedef struct ddbi_engine_hooks {
    /* open: inside the opening transaction, before the tables load (open
     * the room's databases, set db->ext); then once it committed */
    int (*open_txn)(ddbi_engine *db, MDB_txn *txn, ddb_error *err);
    int (*opened)(ddbi_engine *db, ddb_error *err);
    /* first thing at close (also after a failed open) */
    void (*close)(ddbi_engine *db);
    /* CreateTable: check the definition's fields the room owns, before
     * the write; then inside its transaction, store them */
    int (*table_validate)(const ddb_table_def *d, ddb_error *err);
    int (*table_create)(ddbi_engine *db, MDB_txn *txn, const ddb_table_def *d);
    /* DeleteTable, inside its transaction */
    int (*table_delete)(ddbi_engine *db, MDB_txn *txn, const char *table);
    /* the table cache loads t: fill the room's fields of t (stream,
     * ttl_attr); DDB_ECORRUPT when their stored record is malformed */
    int (*table_load)(ddbi_engine *db, MDB_txn *txn, ddb_table_rt *t, ddb_error *err);
    /* the end of every applied write, in the write's transaction */
    int (*write_applied)(ddbi_engine *db, MDB_txn *txn, const struct ddb_wreq *r, const struct ddb_wstate *st,
                         ddb_error *err);
} ddbi_engine_hooks;

/* Tables a handle remembers as damaged, at most. */
#define DDB_DAMAGED_TABLES 16

/* Reset read transactions kept for reuse (mdb_txn_renew): saves a reader
 * slot search under LMDB's reader-table mutex and a maxdbs-sized calloc per
 * read. */
#define DDB_RTXN_POOL 64

/* The embedded engine's handle (the impl of the embedded backend). */
struct ddbi_engine {
    MDB_env *env;
    MDB_dbi meta;
    ddb_options opts;
    /* Table cache.  Readers take it without a lock: tables is published
     * (release) before schema_gen; a list, once published, never changes
     * (a reload builds a new list and retires the old one). */
    pthread_mutex_t schema_mu;         /* reloads and mdb_dbi_open */
    _Atomic uint64_t schema_gen;       /* generation of the cached tables */
    _Atomic(ddb_table_rt *) tables;    /* current */
    ddb_table_rt *retired;             /* replaced lists (chained by retired_next), freed at close */
    /* Every read snapshot whose txnid is <= this saw a generation <= schema_gen:
     * the cache serves it without reading the generation again. */
    _Atomic uint64_t schema_txnid;
    _Atomic uint64_t dbi_opens;        /* bumped before any mdb_dbi_open of the cache */
    _Atomic(MDB_txn *) rtxn_pool[DDB_RTXN_POOL];
    /* Scratch of the write path, only used while holding LMDB's write lock
     * (one write transaction at a time per environment). */
    ddb_arena *wscratch;
    ddb_buf wbuf;
    /* group commit */
    pthread_mutex_t gc_mu;
    pthread_cond_t gc_cv;
    ddb_gc_op *gc_head, *gc_tail;
    bool gc_leader;
    /* DDB_SYNC_FULL: batches are numbered as they commit; every batch up to
     * gc_durable is on disk (see ddbi_run_write) */
    uint64_t gc_committed, gc_durable;
    bool gc_syncing; /* a thread is in mdb_env_sync for the waiters */
    pthread_mutex_t sync_mu; /* one commit or sync at a time (see run_batch) */
    /* 0, or the errno of a failed sync or commit write: every later write
     * is refused (durable.c) */
    _Atomic int poisoned;
    /* 0 healthy; 1 an operation found the file damaged (DDB_ECORRUPT); 2
     * the same with its message in damage: every later write is refused,
     * the capacity ledger's flush at close included (durable.c) */
    _Atomic int damaged;
    char damage[DDB_ERROR_TEXT_SIZE];
    /* Damage scoped to tables (an operation on one of them answered
     * DDB_ECORRUPT): writes to these tables are refused, the others' are
     * not.  More tables than fit make the damage handle-wide. */
    pthread_mutex_t damaged_mu;
    _Atomic int n_damaged_tables;
    char damaged_tables[DDB_DAMAGED_TABLES][256];
    /* Where data.mdb is mapped (stored.c): the map's first byte and size
     * (map NULL: not found, nothing is bounded by it) and the end of the
     * file in the map, which only grows; every record, key and value read
     * from the map must end before it. */
    const uint8_t *map;
    size_t map_size;
    _Atomic uintptr_t map_end;
    /* the room that hooked into this handle at open (streams/: change
     * streams, TTL, the capacity ledger) and its per-handle state */
    const ddbi_engine_hooks *hooks;
    void *ext;
    /* the commit log (ddb_options.commit_log, clog.h); NULL without one */
    struct ddbi_clog *clog;
};

/* A write: runs inside a write transaction; returns DDB_OK to keep its
 * changes.  Any failure rolls back only this write. */
typedef int (*ddb_write_fn)(ddbi_engine *db, MDB_txn *txn, void *ctx);

/* Run fn in a write transaction according to the sync mode (group commit
 * for FULL and LAZY).  exclusive: its own transaction (DDL). */
int ddbi_run_write(ddbi_engine *db, ddb_write_fn fn, void *ctx, bool exclusive, ddb_error *err);
int ddbi_read_begin(ddbi_engine *db, MDB_txn **txn, ddb_error *err);
void ddbi_read_end(MDB_txn *txn);
/* The same from the handle's pool of reset read transactions (hot paths).
 * ticket is opaque: pass it back to ddbi_rtxn_release. */
int ddbi_rtxn_acquire(ddbi_engine *db, MDB_txn **txn, uint64_t *ticket, ddb_error *err);
void ddbi_rtxn_release(ddbi_engine *db, MDB_txn *txn, uint64_t ticket);
int ddbi_mdb_fail(ddb_error *err, int mdb_rc, const char *what);
/* A check (check.c, the stream check) that LMDB stopped with code
 * (err: its message): DDB_ECORRUPT is counted in report r as a problem,
 * described by that message when it is the first.  Returns code. */
int ddbi_check_stopped(ddb_check_report *r, int code, const ddb_error *err);

/* Storage failures (durable.c).  Is rc (from a commit or a sync) a failed
 * write or sync, after which nothing unsynced can be trusted? */
bool ddbi_storage_failure(int rc);
/* Poison the handle after such a failure; returns its cause (ENOSPC or
 * EFBIG where LMDB said EIO for a full disk's short write). */
int ddbi_poison(ddbi_engine *db, int rc);
/* DDB_OK, or DDB_EIO "a sync failed; reopen the database" once poisoned. */
int ddbi_refuse_poisoned(ddbi_engine *db, ddb_error *err);
/* An operation of this handle answered DDB_ECORRUPT (err: its message, may
 * be NULL).  table NULL: the handle writes nothing more; else only writes
 * to that table are refused from now on.  Returns DDB_ECORRUPT. */
int ddbi_engine_damaged(ddbi_engine *db, const char *table, const ddb_error *err);
/* DDB_OK, or DDB_ECORRUPT naming the damage once the handle has seen it
 * (handle-wide damage; ddbi_run_write asks). */
int ddbi_refuse_damaged(ddbi_engine *db, ddb_error *err);
/* The same for a write to table: DDB_ECORRUPT once an operation found
 * that table damaged. */
int ddbi_refuse_damaged_table(ddbi_engine *db, const char *table, ddb_error *err);
/* Forget table's damage (DeleteTable dropped it). */
void ddbi_engine_damage_dropped(ddbi_engine *db, const char *table);
/* Has this handle seen damage anywhere (a table or the file)?  Writes that
 * belong to no table (the capacity ledger's flush) are then left out. */
bool ddbi_engine_any_damage(ddbi_engine *db);
/* A database whose files open just created: sync the data file, its
 * directory and (created_dir) the directory's parent. */
int ddbi_sync_created(ddbi_engine *db, const char *path, bool created_dir, ddb_error *err);


/* Table cache: look up name as of txn's snapshot. */
int ddbi_table_get(ddbi_engine *db, MDB_txn *txn, const char *name, ddb_table_rt **out, ddb_error *err);
/* Validate the TableName of a request on an existing table as DynamoDB
 * does (ValidationException "1 validation error detected: Value 'bad
 * name!' at 'tableName' failed to satisfy constraint: ...").  Called by
 * ddbi_table_get(); belongs at the public entry points (api/). */
int ddbi_table_name_check(const char *name, ddb_error *err);
/* An attribute name of a table definition (key schemas, projections, the
 * TTL attribute): 1..255 bytes, counted in UTF-8 bytes as DynamoDB counts
 * them; field names the request member in the error
 * ("keySchema.1.member.attributeName").  Part of the one validator of a
 * definition (table_def.c). */
int ddbi_attr_name_check(const char *field, const char *name, ddb_error *err);
/* The same for a read-only txn: may skip reading the generation, and may
 * renew txn (a fresh snapshot) when it predates the table's database
 * handles, so call it before reading anything through txn. */
int ddbi_table_get_rd(ddbi_engine *db, MDB_txn *txn, const char *name, ddb_table_rt **out, ddb_error *err);
const ddb_index_rt *ddbi_table_index(const ddb_table_rt *t, const char *name);
/* Begin a read transaction and find table name in it; on failure nothing
 * is left open.  End it with ddbi_read_end. */
int ddbi_read_table(ddbi_engine *db, const char *name, MDB_txn **txn, ddb_table_rt **t, ddb_error *err);
void ddbi_tables_free(ddb_table_rt *t);
int ddbi_tables_load(ddbi_engine *db, MDB_txn *txn, ddb_error *err);

/* Bump the schema generation so every handle reloads its table cache
 * (DDL and its kin).  LMDB codes. */
int ddbi_schema_bump_gen(ddbi_engine *db, MDB_txn *txn);
/* Delete every key of dbi starting with prefix.  LMDB codes. */
int ddbi_del_prefix(ddbi_engine *db, MDB_txn *txn, MDB_dbi dbi, const void *prefix, size_t len);

/* Partitions (partition.c) */
size_t ddbi_part_of(const ddb_table_rt *t, uint64_t hash);
/* The partition (index into bounds, ascending lower bounds) holding hash. */
size_t ddbi_bounds_find(const uint64_t *bounds, size_t n, uint64_t hash);
/* Check a stored partition map "p/<table>" (len bytes: big-endian lower
 * bounds, the first 0, ascending) and decode it into out (len / 8 of them):
 * true, or false with what is wrong in why. */
bool ddbi_bounds_decode(const void *p, size_t len, uint64_t *out, char *why, size_t cap);
/* Charge consumed units to a partition; in throttle mode DDB_ETHROTTLED
 * when the partition has no capacity left this second. */
int ddbi_part_charge(ddbi_engine *db, ddb_table_rt *t, size_t part, double rcu, double wcu, ddb_error *err);
/* The same at now_ms of the read clock (a read that has read it already). */
int ddbi_part_charge_at(ddbi_engine *db, ddb_table_rt *t, size_t part, double rcu, double wcu, int64_t now_ms,
                        ddb_error *err);
/* Persisted item count/size of a partition, adjusted by a write. */
int ddbi_part_adjust(ddbi_engine *db, MDB_txn *txn, ddb_table_rt *t, uint64_t hash, int64_t dcount, int64_t dbytes,
                    ddb_error *err);
int ddbi_part_read(MDB_txn *txn, ddbi_engine *db, const ddb_table_rt *t, size_t part, uint64_t *count, uint64_t *bytes);
/* Per-second timelines (timeline.c).  ddbi_timeline_add: count consumed units
 * (or a throttled call) in the current second of partition p.
 * ddbi_timeline_copy: a reloaded table keeps a surviving partition's. */
void ddbi_timeline_add(ddb_part_rt *p, double rcu, double wcu, uint32_t throttled, int64_t now_ms);
static inline void ddbi_tl_lock(ddb_part_rt *p)
{
    while (atomic_exchange_explicit(&p->tl_busy, true, memory_order_acquire))
        ;
}
static inline void ddbi_tl_unlock(ddb_part_rt *p)
{
    atomic_store_explicit(&p->tl_busy, false, memory_order_release);
}
static inline void ddbi_timeline_copy(ddb_part_rt *dst, ddb_part_rt *src)
{
    ddbi_tl_lock(src);
    memcpy(dst->tl, src->tl, sizeof dst->tl);
    ddbi_tl_unlock(src);
}
/* The stored timeline's key of a partition ("w/<table>/<be64 bound>"; the
 * table's prefix is all but the last 8 bytes); buf holds 300 bytes. */
size_t ddbi_timeline_key(char *buf, const char *table, uint64_t bound);
/* Reading: the latest second recorded for t (stored or in this handle),
 * and partition i's seconds of the window (end - DDB_STATS_SECONDS, end]
 * into s->seconds (arena a). */
int64_t ddbi_timeline_latest(ddbi_engine *db, MDB_txn *txn, ddb_table_rt *t);
int ddbi_timeline_read(ddbi_engine *db, MDB_txn *txn, ddb_table_rt *t, size_t i, int64_t end, ddb_arena *a,
                       ddb_partition_stats *s, ddb_error *err);
/* Storing them, with the capacity ledger (streams/ledger.c): capture what
 * is not stored yet (*out NULL when nothing), add it to the stored
 * timelines inside the ledger's write transaction, then, once committed,
 * mark it stored (and free the capture; also after a failed commit, with
 * committed false). */
typedef struct ddbi_tl_capture ddbi_tl_capture;
int ddbi_timeline_capture(ddbi_engine *db, ddbi_tl_capture **out, ddb_error *err);
int ddbi_timeline_store(ddbi_engine *db, MDB_txn *txn, const ddbi_tl_capture *c, ddb_error *err);
void ddbi_timeline_done(ddbi_tl_capture *c, bool committed);
/* Split partitions of t that are over the size threshold. */
int ddbi_part_maybe_split(ddbi_engine *db, MDB_txn *txn, ddb_table_rt *t, uint64_t hash, ddb_error *err);


/* Capacity arithmetic (capacity.c) */
double ddbi_write_units(size_t bytes);
double ddbi_read_units(size_t bytes, bool consistent);
void ddbi_cap_add(ddb_capacity *c, const char *index, bool local, double read, double write, ddb_return_capacity mode);

/* The handle's clock and TTL expiry (expiry.c).  ddbi_ttl_expired_at: is
 * item it of t expired at now_ms?  False when t has no TTL.
 * ddbi_ttl_expired: the same at the handle's read clock (the read paths).
 * ddbi_engine_read_clock_ms: the injected clock, else the coarse one
 * (core/clock.h): what reads read once for TTL and the timelines. */
int64_t ddbi_engine_clock_ms(const void *impl);
int64_t ddbi_engine_read_clock_ms(const void *impl);
bool ddbi_ttl_expired_at(const ddb_table_rt *t, const ddb_item *it, int64_t now_ms);
bool ddbi_ttl_expired(const ddbi_engine *db, const ddb_table_rt *t, const ddb_item *it);
/* Is a TTL attribute's value v (NULL: none) expired at now_ms? */
bool ddbi_ttl_value_expired(const ddb_value *v, int64_t now_ms);
/* The TTL attribute whose expiry hides items from reads: NULL when t has
 * no TTL or the handle's reads show expired items (ddb_options.ttl_reads,
 * copied into t->ttl_reads_hide when the table loads).  Every read path
 * asks this, the sweep never does. */
const char *ddbi_ttl_read_attr(const ddb_table_rt *t);
/* Does the handle's ddb_options.ttl_reads hide expired items? */
bool ddbi_ttl_reads_hide(const ddbi_engine *db);

/* A table's settings kept in its stored definition (table_settings.c):
 * stamped into a new definition's map, loaded into t, described, DeleteTable's
 * deletion protection, UpdateTable's edit of the definition. */
int ddbi_table_settings_stamp(ddbi_engine *db, ddb_arena *a, ddb_value *def_map, const ddb_table_def *d);
void ddbi_table_settings_load(ddb_table_rt *t, const ddb_item *def);
void ddbi_table_settings_describe(const ddb_table_rt *t, ddb_table_desc *d);
int ddbi_table_delete_allowed(const ddb_table_rt *t, ddb_error *err);
int ddbi_table_settings_check(const ddb_table_update *u, ddb_error *err);
int ddbi_table_settings_edit(ddb_arena *a, ddb_item *def, const ddb_table_update *u, int64_t now_ms);
/* Rewrite table's stored definition in txn: fn edits the decoded
 * definition (arena a), the rest is kept (table.c).  The caller bumps the
 * schema generation. */
int ddbi_table_def_edit(ddbi_engine *db, MDB_txn *txn, const char *table,
                        int (*fn)(ddb_arena *a, ddb_item *def, void *ctx), void *ctx, ddb_error *err);

/* ---- What the engine offers the API: open, close and the operations of
 * the embedded backend (core/backend.h gives each one's contract; impl is
 * the ddbi_engine, arguments are checked by the API). ---- */

/* Open the database in directory path (uri: for messages) with the hooks
 * of the room above (NULL: none). */
int ddbi_engine_open(const char *uri, const char *path, const ddb_options *opts, const ddbi_engine_hooks *hooks,
                     ddbi_engine **out, ddb_error *err);
void ddbi_engine_close(void *impl);
int ddbi_engine_sync(void *impl, ddb_error *err);
int ddbi_engine_create_table(void *impl, const ddb_table_def *def, ddb_error *err);
int ddbi_engine_delete_table(void *impl, const char *name, ddb_error *err);
int ddbi_engine_describe_table(void *impl, const char *name, ddb_arena *a, ddb_table_desc **out, ddb_error *err);
int ddbi_engine_list_tables(void *impl, ddb_arena *a, const char ***names, size_t *count, ddb_error *err);
int ddbi_engine_add_index(void *impl, const char *table, const ddb_index_def *x, uint64_t *backfilled,
                          uint64_t *skipped, ddb_error *err);
int ddbi_engine_delete_index(void *impl, const char *table, const char *index, ddb_error *err);
int ddbi_engine_update_table(void *impl, const char *table, const ddb_table_update *u, ddb_error *err);
int ddbi_engine_table_meta_put(void *impl, const char *table, const char *key, const void *val, size_t len,
                               ddb_error *err);
int ddbi_engine_table_meta_get(void *impl, const char *table, const char *key, ddb_arena *a, void **val,
                               size_t *len, ddb_error *err);
int ddbi_engine_put_item(void *impl, const char *table, const ddb_item *item, const ddb_write_opts *opts,
                         ddb_arena *a, ddb_write_result *res, ddb_error *err);
int ddbi_engine_delete_item(void *impl, const char *table, const ddb_item *key, const ddb_write_opts *opts,
                            ddb_arena *a, ddb_write_result *res, ddb_error *err);
int ddbi_engine_update_item(void *impl, const char *table, const ddb_item *key, const ddb_expr *update,
                            const ddb_write_opts *opts, ddb_arena *a, ddb_write_result *res, ddb_error *err);
int ddbi_engine_get_item(void *impl, const char *table, const ddb_item *key, const ddb_get_opts *opts,
                         ddb_arena *a, ddb_item **out, ddb_capacity *cap, ddb_error *err);
int ddbi_engine_batch_write(void *impl, const ddb_batch_write_op *ops, size_t n, ddb_return_capacity rc,
                            ddb_capacity *cap, ddb_error *err);
int ddbi_engine_batch_get(void *impl, const ddb_batch_get_op *ops, size_t n, ddb_arena *a, ddb_item **items,
                          ddb_return_capacity rc, ddb_capacity *cap, ddb_error *err);
int ddbi_engine_transact_write(void *impl, const ddb_tx_op *ops, size_t n, const ddb_tx_opts *o, ddb_arena *a,
                               ddb_tx_result *res, ddb_error *err);
int ddbi_engine_transact_get(void *impl, const ddb_tx_get *gets, size_t n, ddb_arena *a, ddb_item **items,
                             ddb_return_capacity rc, ddb_capacity *cap, ddb_error *err);
int ddbi_engine_query(void *impl, const ddb_query_params *q, ddb_arena *a, ddb_page *out, ddb_error *err);
/* The optional record reads (core/backend.h: get_record, query_records,
 * scan_records, batch_get_records). */
struct ddbi_rec;
struct ddbi_rec_page;
struct ddbi_rec_visitor;
int ddbi_engine_get_record(void *impl, const char *table, const ddb_item *key, const ddb_get_opts *opts,
                           ddb_arena *a, const struct ddbi_rec_visitor *v, ddb_item **out, struct ddbi_rec *rec,
                           ddb_capacity *cap, ddb_error *err);
int ddbi_engine_query_records(void *impl, const ddb_query_params *q, ddb_arena *a, const struct ddbi_rec_visitor *v,
                              struct ddbi_rec_page *out, ddb_error *err);
int ddbi_engine_scan(void *impl, const ddb_scan_params *s, ddb_arena *a, ddb_page *out, ddb_error *err);
int ddbi_engine_scan_records(void *impl, const ddb_scan_params *s, ddb_arena *a, struct ddbi_rec_page *out,
                             ddb_error *err);
int ddbi_engine_batch_get_records(void *impl, const ddb_batch_get_op *ops, size_t n, ddb_arena *a, ddb_item **items,
                                  struct ddbi_rec *recs, ddb_return_capacity rc, ddb_capacity *cap, ddb_error *err);
/* Is record r (len bytes) stored under the key of pk / sk in t the item
 * of that key, unexpired (TTL)?  The checks of a read by key, made in
 * place (read.c; the walk's DDB_ECORRUPT, DDB_ENOMEM). */
int ddbi_engine_rec_visible(ddbi_engine *db, const ddb_table_rt *t, const ddb_value *pk, const ddb_value *sk,
                            const uint8_t *r, size_t len, ddb_arena *a, bool *visible);
int ddbi_engine_table_stats(void *impl, const char *table, ddb_arena *a, ddb_partition_stats **parts,
                            size_t *count, ddb_error *err);
int ddbi_engine_check_table(void *impl, const char *table, ddb_check_report *report, ddb_error *err);
/* ddb_check_catalog (check_catalog.c) */
int ddbi_engine_check_catalog(void *impl, ddb_check_report *report, ddb_error *err);

/* Meta keys */
#define DDB_META_GEN "gen"

#endif
