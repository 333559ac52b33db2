/* libddb — DynamoDB's data model in process (embedded engine on LMDB).
 *
 * Conventions (after lmdb.h and jansson):
 *  - Handles are opaque.  Every function that can fail returns int: 0 on
 *    success, a negative DDB_E* code otherwise; ddb_strerror() names it.
 *  - Functions take an optional caller-owned ddb_error *err (may be NULL).
 *    On failure it receives the code and a message naming the attribute,
 *    the size and the limit involved.  No heap is used on the error path.
 *  - Memory a call returns (items, values, pages, descriptions) lives in a
 *    caller-owned ddb_arena passed to the call and stays valid until that
 *    arena is reset or freed.  Inputs are never retained after a call.
 */
#ifndef DDB_DDB_H
#define DDB_DDB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Every function declared in the public headers (include/ddb) is exported
 * from libddb.so, built with hidden visibility; nothing else is
 * (tests/symbols checks both directions). */
#pragma GCC visibility push(default)

#define DDB_VERSION_MAJOR 0
#define DDB_VERSION_MINOR 1
#define DDB_VERSION_PATCH 0
#define DDB_VERSION_STRING "0.1.0"

/* ---- Errors ------------------------------------------------------------ */

/* Reserved range -32000 .. -32099 (LMDB uses -30799 .. -30999). */
#define DDB_OK 0
#define DDB_EINVAL (-32000)      /* API misuse: NULL handle, bad option value */
#define DDB_EVALIDATION (-32001) /* request breaks a DynamoDB rule (ValidationException) */
#define DDB_ELIMIT (-32002)      /* a DynamoDB size or count limit was exceeded */
#define DDB_ENOTFOUND (-32003)   /* the item does not exist */
#define DDB_ENOTABLE (-32004)    /* no such table or index (ResourceNotFoundException) */
#define DDB_EEXISTS (-32005)     /* table already exists (ResourceInUseException) */
#define DDB_ECONDITION (-32006)  /* a condition expression evaluated to false */
#define DDB_ECANCELED (-32007)   /* a transaction was cancelled */
#define DDB_ETHROTTLED (-32008)  /* a partition's throughput limit was exceeded */
#define DDB_ENOMEM (-32009)      /* out of memory */
#define DDB_EIO (-32010)         /* storage failure (the message carries LMDB's text) */
#define DDB_ECORRUPT (-32011)    /* stored data failed a consistency check */
#define DDB_ECOLLISION (-32012)  /* two different keys share a 128-bit digest */
#define DDB_ENOTSUP (-32013)     /* not supported by this backend */
#define DDB_ENET (-32014)        /* network failure (remote backend) */
#define DDB_ETIMEOUT (-32015)    /* timed out (remote backend) */
#define DDB_EMODEL (-32016)      /* data written under an incompatible schema model */
#define DDB_ETRIMMED (-32017)    /* stream records at that position were trimmed (TrimmedDataAccessException) */
#define DDB_EFULL (-32018)       /* the disk (or the process's file size limit) is full: "No space left on device" */
#define DDB_EIDEMPOTENT (-32019) /* a ClientRequestToken reused for another request (IdempotentParameterMismatchException) */
#define DDB_EUNKNOWN (-32020)    /* the write may or may not have been applied (a sync failed after its commit was
                                  * written; a remote InternalServerError): read it back, or retry it idempotently */
#define DDB_ELAST (-32020)

#define DDB_ERROR_TEXT_SIZE 320

/* Caller-owned error detail, filled on failure (like json_error_t). */
typedef struct ddb_error {
    int code;                          /* the DDB_E* code also returned */
    char message[DDB_ERROR_TEXT_SIZE]; /* NUL-terminated, human readable */
} ddb_error;

/* Static name of a code, e.g. "DDB_ELIMIT: limit exceeded".  Never NULL. */
const char *ddb_strerror(int code);

/* ---- Arenas ------------------------------------------------------------ */

/* A region allocator: everything allocated from it is released at once by
 * ddb_arena_reset() (keeps one block, its largest up to 1 MB, for reuse) or
 * ddb_arena_free().
 * An arena is not thread-safe; use one per thread. */
typedef struct ddb_arena ddb_arena;

ddb_arena *ddb_arena_new(void); /* NULL when out of memory */
void ddb_arena_free(ddb_arena *a);
void ddb_arena_reset(ddb_arena *a);
/* Aligned for any type; NULL when out of memory.  Freed with the arena. */
void *ddb_arena_alloc(ddb_arena *a, size_t size);
/* A copy of the NUL-terminated s in the arena; NULL when s is NULL or out of memory. */
char *ddb_arena_strdup(ddb_arena *a, const char *s);
/* Bytes currently handed out (for tests and accounting). */
size_t ddb_arena_used(const ddb_arena *a);

/* ---- Values -------------------------------------------------------------- */

typedef enum ddb_type {
    DDB_TNONE = 0,
    DDB_TS,    /* string (UTF-8) */
    DDB_TN,    /* number (canonical decimal text) */
    DDB_TB,    /* binary */
    DDB_TBOOL, /* boolean */
    DDB_TNULL, /* null */
    DDB_TL,    /* list */
    DDB_TM,    /* map */
    DDB_TSS,   /* string set */
    DDB_TNS,   /* number set */
    DDB_TBS    /* binary set */
} ddb_type;

/* The DynamoDB type descriptor: "S", "N", "B", "BOOL", "NULL", "L", "M",
 * "SS", "NS", "BS"; "?" for anything else. */
const char *ddb_type_name(ddb_type t);

typedef struct ddb_value ddb_value;

/* One attribute of a map or item.  name is NUL-terminated as well. */
typedef struct ddb_attr {
    const char *name;
    uint32_t name_len;
    ddb_value *value;
} ddb_attr;

/* A value tree.  Read the fields freely; build values with the ddb_v_*
 * constructors, which allocate from an arena and validate.
 *   S, N: s/len (NUL-terminated; N holds the canonical number text)
 *   B:    b/len
 *   BOOL: boolean
 *   L:    l[0..len)
 *   M:    m[0..len), sorted by name (bytewise), names unique
 *   SS, NS, BS: set[0..len) of S / N / B values, sorted by ddb_value_compare,
 *         no duplicates, never empty once validated by a write. */
struct ddb_value {
    ddb_type type;
    uint32_t len;
    union {
        const char *s;
        const uint8_t *b;
        bool boolean;
        ddb_value **l;
        ddb_attr *m;
        ddb_value **set;
    } u;
    uint32_t cap; /* allocated slots of l/m/set (builders only) */
};

/* Constructors.  All copy their input into the arena and return NULL only
 * when out of memory, except where an int is returned. */
ddb_value *ddb_v_s(ddb_arena *a, const char *s, size_t len);
ddb_value *ddb_v_str(ddb_arena *a, const char *nul_terminated);
ddb_value *ddb_v_b(ddb_arena *a, const void *bytes, size_t len);
ddb_value *ddb_v_bool(ddb_arena *a, bool v);
ddb_value *ddb_v_null(ddb_arena *a);
ddb_value *ddb_v_i64(ddb_arena *a, int64_t v);
ddb_value *ddb_v_u64(ddb_arena *a, uint64_t v);
/* Number from text ("12", "-1.5E+30"): DDB_EVALIDATION for anything
 * DynamoDB rejects (NaN, Infinity, > 38 significant digits, out of range). */
int ddb_v_n(ddb_arena *a, const char *text, ddb_value **out, ddb_error *err);
/* Number from a double: DDB_EVALIDATION for NaN and infinities.  Uses the
 * shortest text that round-trips (at most 17 significant digits). */
int ddb_v_double(ddb_arena *a, double v, ddb_value **out, ddb_error *err);
ddb_value *ddb_v_list(ddb_arena *a);
ddb_value *ddb_v_map(ddb_arena *a);
/* An empty set of the given type (DDB_TSS, DDB_TNS or DDB_TBS). */
ddb_value *ddb_v_set(ddb_arena *a, ddb_type set_type);

/* Append to a list (the value is linked, not copied: it must live at least
 * as long as the list; normally both come from one arena). */
int ddb_list_append(ddb_arena *a, ddb_value *list, ddb_value *v);
/* Insert or replace name in a map.  The name is copied. */
int ddb_map_set(ddb_arena *a, ddb_value *map, const char *name, ddb_value *v);
const ddb_value *ddb_map_get(const ddb_value *map, const char *name);
/* Remove name from a map; returns 1 if it was there, 0 if not. */
int ddb_map_remove(ddb_value *map, const char *name);
/* Add an element of the set's element type; DDB_EVALIDATION on a type
 * mismatch.  Adding an element already present is a no-op. */
int ddb_set_add(ddb_arena *a, ddb_value *set, ddb_value *elem, ddb_error *err);

/* Deep copy into another arena. */
ddb_value *ddb_value_copy(ddb_arena *a, const ddb_value *v);
/* Total order used for sets and tests: by type, then S/B bytewise, N
 * numerically, containers element-wise.  Returns <0, 0, >0. */
int ddb_value_compare(const ddb_value *x, const ddb_value *y);
bool ddb_value_equal(const ddb_value *x, const ddb_value *y);
/* Numeric reads: DDB_EVALIDATION if v is not N or is not an integer in
 * range (to_i64) / DDB_OK with the nearest double (to_double). */
int ddb_value_to_i64(const ddb_value *v, int64_t *out);
int ddb_value_to_double(const ddb_value *v, double *out);

/* ---- Items ------------------------------------------------------------- */

/* An item is a map of top-level attributes plus the arena it builds in. */
typedef struct ddb_item ddb_item;

ddb_item *ddb_item_new(ddb_arena *a);
ddb_arena *ddb_item_arena(const ddb_item *it);
/* The item's attributes as an M value (sorted by name).  Owned by the item. */
const ddb_value *ddb_item_map(const ddb_item *it);
size_t ddb_item_count(const ddb_item *it);
const ddb_value *ddb_item_get(const ddb_item *it, const char *name);
int ddb_item_set(ddb_item *it, const char *name, ddb_value *v);
int ddb_item_set_s(ddb_item *it, const char *name, const char *s);
int ddb_item_set_i64(ddb_item *it, const char *name, int64_t v);
int ddb_item_set_n(ddb_item *it, const char *name, const char *text, ddb_error *err);
int ddb_item_set_b(ddb_item *it, const char *name, const void *b, size_t len);
int ddb_item_set_bool(ddb_item *it, const char *name, bool v);
int ddb_item_remove(ddb_item *it, const char *name);
ddb_item *ddb_item_copy(ddb_arena *a, const ddb_item *it);
/* Wrap an existing M value as an item (no copy). */
ddb_item *ddb_item_from_map(ddb_arena *a, ddb_value *map);

/* The item's size as DynamoDB counts it for limits and capacity: UTF-8
 * bytes of every attribute name plus each value (N: 1 byte per two
 * significant digits + 1; BOOL/NULL 1; L/M 3 bytes + 1 per element). */
size_t ddb_item_size(const ddb_item *it);
size_t ddb_value_size(const ddb_value *v);

/* ---- Numbers ------------------------------------------------------------- */

/* Longest canonical number text, NUL included. */
#define DDB_NUMBER_TEXT_MAX 171 /* "-0." + 129 zeros + 38 digits + NUL (-1.2...E-130) */
/* Validate and canonicalise a DynamoDB number.  out gets e.g. "1.5",
 * "-100", "0.001", "0" (plain notation, never an exponent).  DDB_EVALIDATION with a message otherwise. */
int ddb_number_canonical(const char *text, size_t len, char out[DDB_NUMBER_TEXT_MAX], ddb_error *err);
/* Compare two canonical numbers numerically: <0, 0, >0. */
int ddb_number_compare(const char *a, const char *b);

/* ---- Database ------------------------------------------------------------ */

typedef struct ddb ddb;

/* What a committed write survives (the embedded engine). */
typedef enum ddb_sync_mode {
    /* Default.  A write returns only once it is on disk: survives a process
     * crash and an OS crash or power loss.  Concurrent writers share one
     * LMDB transaction and one sync (group commit). */
    DDB_SYNC_FULL = 0,
    /* Database stays consistent after an OS crash, but the last committed
     * transactions may be lost (LMDB MDB_NOMETASYNC: data is synced, the
     * meta page is synced with the next commit). Survives a process crash. */
    DDB_SYNC_LAZY,
    /* Nothing is synced by the write (LMDB MDB_NOSYNC, pages written with
     * pwrite, not through a writable map, so that a full disk is an error,
     * not SIGBUS).  Every acknowledged write survives a process crash (the
     * OS holds it); an OS crash or power loss can lose recent writes and may
     * corrupt the file.  ddb_sync() makes everything written so far durable.
     *
     * In every mode, a full disk fails the write with DDB_EFULL ("No space
     * left on device"), and after any failed sync or failed commit write
     * the handle refuses every later write with DDB_EIO ("a sync failed;
     * reopen the database"); in FULL the writes committed but not yet
     * durable fail with it too.  Reopening recovers the last durable state. */
    DDB_SYNC_NONE
} ddb_sync_mode;

/* ddb_options.ttl_reads */
typedef enum ddb_ttl_reads {
    DDB_TTL_READS_HIDE = 0, /* default: expired items are invisible at once */
    DDB_TTL_READS_SHOW      /* returned until the sweep deletes them, as DynamoDB does (ddb serve's default) */
} ddb_ttl_reads;

typedef struct ddb_options {
    ddb_sync_mode sync;
    /* Upper bound of the database file in bytes (LMDB map size; the file
     * grows as needed).  0 = 64 GiB. */
    uint64_t map_size;
    /* Partition size that triggers a split; 0 = 10 GB as DynamoDB. */
    uint64_t partition_split_bytes;
    /* Enforce per-partition throughput (3,000 RCU / 1,000 WCU per second,
     * or the provisioned share): over-limit calls fail with DDB_ETHROTTLED. */
    bool throttle;
    /* Change streams and TTL (see "Change streams and TTL" below).
     * clock_ms: the time TTL expiry, stream records, throttle mode's
     * token buckets and the per-second statistics use, in milliseconds
     * since the epoch; NULL = the system clock.  Tests inject their own.
     * Called from any thread, with clock_ctx.
     * ttl_sweep_ms: every so many milliseconds a background thread of the
     * handle deletes expired items and trims streams by age; 0 = no thread
     * (call ddb_ttl_sweep() / ddb_stream_trim() yourself). */
    int64_t (*clock_ms)(void *clock_ctx);
    void *clock_ctx;
    uint32_t ttl_sweep_ms;
    /* Open the embedded engine read-only (also the URI "file:DIR?mode=ro"):
     * LMDB's read-only environment, no sweep thread, no capacity ledger
     * written at close; reads never change the files.  Every write (items,
     * tables, streams, TTL sweeps) fails with DDB_EINVAL, "the database is
     * open read-only".  The directory must hold a database (it is not
     * created).  Where LMDB's lock file cannot be opened for writing (a
     * read-only directory or file system) the handle reads without it: then
     * nothing may write the database while it is open.  The remote backend
     * refuses the flag (DDB_ENOTSUP): there, credentials decide. */
    bool read_only;
    /* Verify the embedded database before opening it: every check of
     * `ddb check` (ddb_check_catalog, and ddb_check_table and
     * ddb_stream_check of each table) runs in a child process first, so
     * that a page LMDB cannot read (it asserts and aborts on some damaged
     * pages) kills that child, not the caller.  A problem or a crash
     * refuses the open: DDB_ECORRUPT, "DIR is damaged (run `ddb check
     * DIR` ...)".  It reads the whole file: for a server's start (ddb serve
     * sets it), not for every open.  The remote backend ignores it. */
    bool verify;
    /* What reads (GetItem, Query, Scan, BatchGetItem, TransactGetItems) do
     * with items whose TTL has passed but that the sweep has not deleted
     * yet (see ddb_update_time_to_live). */
    ddb_ttl_reads ttl_reads;
    /* Commit through a redo log (the embedded engine, DDB_SYNC_FULL and
     * DDB_SYNC_LAZY; off by default while it is being proven): each
     * transaction's changes are appended to commit.log in the database
     * directory and LMDB writes its pages without syncing, so a FULL
     * commit is durable after one sync (of the log, once per group-commit
     * batch) instead of two, and LAZY syncs nothing per commit.  The data
     * file is synced at checkpoints; an open after a crash replays the log.
     * The handle needs the directory to itself: its open is refused
     * (DDB_EINVAL) while another process has the database open, and so is
     * another process's writable open meanwhile (read-only opens read
     * alongside it).  docs/ENGINE.md, "Durability". */
    bool commit_log;
} ddb_options;

/* Open a database.  uri: "file:DIR" or a plain directory path (created if
 * missing) for the embedded engine; "file:DIR?mode=ro" opens it read-only
 * (see read_only above; "?mode=rw" is the default).  "mem:" opens a new,
 * empty embedded database for a test: a private directory on tmpfs
 * (/dev/shm when there is one, else $TMPDIR or /tmp), nothing synced
 * (sync is DDB_SYNC_NONE), removed with everything in it by ddb_close
 * (read_only is DDB_EINVAL there).  opts may be NULL
 * (defaults).  Several threads may use one handle; several processes may
 * open one directory.  http://, https:// and dynamodb://REGION open the
 * remote backend (settings and credentials as the AWS SDKs find them;
 * opts is ignored there): see <ddb/remote.h> and ddb_open_remote() for
 * settings given in code. */
int ddb_open(const char *uri, const ddb_options *opts, ddb **out, ddb_error *err);
void ddb_close(ddb *db);
/* Flush everything committed so far to disk (useful with DDB_SYNC_NONE). */
int ddb_sync(ddb *db, ddb_error *err);

/* ---- Tables -------------------------------------------------------------- */

#define DDB_MAX_KEY_ATTRS 4   /* attributes per side of a GSI key (DynamoDB's limit) */

/* One further attribute of a multi-attribute index key. */
typedef struct ddb_key_part {
    const char *name;
    ddb_type type;     /* DDB_TS, DDB_TN or DDB_TB */
} ddb_key_part;

typedef struct ddb_key_schema {
    const char *pk;    /* first (or only) partition key attribute */
    ddb_type pk_type;  /* DDB_TS, DDB_TN or DDB_TB */
    const char *sk;    /* first (or only) sort key attribute, NULL = none */
    ddb_type sk_type;  /* ignored when sk is NULL */
    /* Multi-attribute keys (global secondary indexes only): the further
     * partition-key and sort-key attributes after pk / sk, in declared order
     * (at most DDB_MAX_KEY_ATTRS - 1 each; sk_more needs sk).  The
     * partition is the hash of all partition-key attributes together; items
     * are ordered by the sort-key attributes in declared order, each by its
     * own type.  Such an index is queried with ddb_query_params.key_condition
     * only (see docs/ENGINE.md).  Zero (NULL, 0): a single-attribute key. */
    const ddb_key_part *pk_more;
    size_t n_pk_more;
    const ddb_key_part *sk_more;
    size_t n_sk_more;
} ddb_key_schema;

typedef enum ddb_projection {
    DDB_PROJ_ALL = 0,
    DDB_PROJ_KEYS_ONLY,
    DDB_PROJ_INCLUDE
} ddb_projection;

typedef struct ddb_index_def {
    const char *name;
    bool local;             /* LSI: pk must equal the table's pk */
    ddb_key_schema key;
    ddb_projection projection;
    const char *const *include; /* DDB_PROJ_INCLUDE: non-key attributes */
    size_t n_include;
    uint64_t rcu, wcu;      /* GSI provisioned throughput; 0 = on demand */
} ddb_index_def;

/* What a change stream records of each write (StreamViewType). */
typedef enum ddb_stream_view {
    DDB_STREAM_NONE = 0,          /* no stream */
    DDB_STREAM_KEYS_ONLY,         /* the key attributes only */
    DDB_STREAM_NEW_IMAGE,         /* the item after the change */
    DDB_STREAM_OLD_IMAGE,         /* the item before the change */
    DDB_STREAM_NEW_AND_OLD_IMAGES /* both */
} ddb_stream_view;

/* A table's stream.  Records older than retention_seconds or beyond
 * retention_bytes (oldest first) are trimmed. */
typedef struct ddb_stream_spec {
    ddb_stream_view view;
    uint64_t retention_seconds; /* 0 = 86400 (24 hours, as DynamoDB Streams) */
    uint64_t retention_bytes;   /* stored bytes of retained records; 0 = no limit */
} ddb_stream_spec;

#define DDB_MAX_GSI 20
#define DDB_MAX_LSI 5

typedef struct ddb_table_def {
    const char *name;
    ddb_key_schema key;
    const ddb_index_def *indexes;
    size_t n_indexes;
    uint64_t rcu, wcu;      /* provisioned throughput; 0 = on demand */
    ddb_stream_spec stream; /* StreamSpecification; {0} = no stream */
    const char *ttl_attribute; /* TimeToLiveSpecification.AttributeName; NULL = no TTL */
    bool deletion_protection;  /* DeletionProtectionEnabled: ddb_delete_table refuses the table */
} ddb_table_def;

/* Create a table.  DDB_EEXISTS if it exists, DDB_EVALIDATION for a bad
 * definition (names, types, more than 20 GSIs or 5 LSIs, ...). */
int ddb_create_table(ddb *db, const ddb_table_def *def, ddb_error *err);
/* Delete a table with its items and indexes.  DDB_ENOTABLE if absent. */
int ddb_delete_table(ddb *db, const char *name, ddb_error *err);

typedef struct ddb_table_desc {
    ddb_table_def def;      /* strings and arrays live in the arena */
    uint64_t item_count;
    uint64_t size_bytes;    /* sum of DynamoDB item sizes */
    uint32_t partitions;
    /* Kept with the definition since CreateTable (0 / "" for a table
     * created before they were kept): CreationDateTime, TableId (a random
     * UUID), and LastUpdateToPayPerRequestDateTime (when the table last
     * became on demand, 0 = never). */
    int64_t created_ms;
    char table_id[37];
    int64_t on_demand_since_ms;
} ddb_table_desc;

/* Describe a table into arena memory.  DDB_ENOTABLE if absent. */
int ddb_describe_table(ddb *db, const char *name, ddb_arena *a, ddb_table_desc **out, ddb_error *err);
/* All table names, sorted, into arena memory. */
int ddb_list_tables(ddb *db, ddb_arena *a, const char ***names, size_t *count, ddb_error *err);

/* UpdateTable: add a global secondary index and backfill it from the items
 * already in the table, in one transaction.  Items whose index key
 * attribute has another type are not indexed (*skipped counts them, as
 * DynamoDB reports index key violations).  backfilled/skipped may be NULL. */
int ddb_add_index(ddb *db, const char *table, const ddb_index_def *x, uint64_t *backfilled, uint64_t *skipped,
                  ddb_error *err);
/* UpdateTable: delete a global secondary index and its entries (the items
 * keep their attributes).  DDB_ENOTABLE when the table or the index does
 * not exist; DDB_EVALIDATION for a local secondary index (deleted only
 * with its table). */
int ddb_delete_index(ddb *db, const char *table, const char *index, ddb_error *err);

/* UpdateTable's table settings: the billing mode with the provisioned
 * throughput (rcu = wcu = 0: on demand, PAY_PER_REQUEST), which throttle
 * mode uses, and deletion protection.  Fields not set stay as they are. */
typedef struct ddb_table_update {
    bool set_throughput;
    uint64_t rcu, wcu;
    bool set_deletion_protection;
    bool deletion_protection;
} ddb_table_update;
/* DDB_ENOTABLE, DDB_EVALIDATION (one of rcu and wcu 0, or above 40,000).
 * The remote backend sends UpdateTable and waits until the table is ACTIVE. */
int ddb_update_table(ddb *db, const char *table, const ddb_table_update *u, ddb_error *err);

/* Small named values kept with a table (deleted with it): generated
 * modules keep their model fingerprints here.  get: DDB_ENOTFOUND when
 * absent; *val (NUL-terminated as well) lives in arena a. */
int ddb_table_meta_put(ddb *db, const char *table, const char *key, const void *val, size_t len, ddb_error *err);
int ddb_table_meta_get(ddb *db, const char *table, const char *key, ddb_arena *a, void **val, size_t *len,
                       ddb_error *err);

/* ---- Capacity ------------------------------------------------------------ */

typedef enum ddb_return_capacity {
    DDB_CAPACITY_NONE = 0,
    DDB_CAPACITY_TOTAL,
    DDB_CAPACITY_INDEXES
} ddb_return_capacity;

typedef struct ddb_index_capacity {
    char name[256];
    double read, write;
    bool local; /* a local secondary index (DynamoDB's LocalSecondaryIndexes), else a global one */
} ddb_index_capacity;

/* Consumed capacity of one call, as DynamoDB's ConsumedCapacity. */
typedef struct ddb_capacity {
    double total;           /* CapacityUnits: everything below */
    double read, write;     /* totals by kind */
    double table_read, table_write;
    size_t n_indexes;       /* filled with DDB_CAPACITY_INDEXES */
    ddb_index_capacity indexes[DDB_MAX_GSI + DDB_MAX_LSI];
} ddb_capacity;

/* ---- Item operations ------------------------------------------------------ */

/* A prepared expression (ConditionExpression, UpdateExpression, ...): see
 * <ddb/expr.h>, included at the end of this header. */
typedef struct ddb_expr ddb_expr;

typedef enum ddb_return_values {
    DDB_RETURN_NONE = 0,
    DDB_RETURN_ALL_OLD,
    DDB_RETURN_UPDATED_OLD,
    DDB_RETURN_ALL_NEW,
    DDB_RETURN_UPDATED_NEW
} ddb_return_values;

/* Options of a write; NULL means all defaults. */
typedef struct ddb_write_opts {
    ddb_return_values return_values;    /* put/delete: NONE or ALL_OLD; update: any */
    ddb_return_capacity return_capacity;
    const ddb_expr *condition;          /* ConditionExpression; NULL = unconditional */
    const ddb_item *values;             /* ExpressionAttributeValues (":v" -> value) */
    /* ReturnValuesOnConditionCheckFailure: DDB_RETURN_NONE or
     * DDB_RETURN_ALL_OLD.  With ALL_OLD, a write failing its condition
     * (DDB_ECONDITION) fills res->attributes with the stored item (NULL when
     * there is none), as DynamoDB's ConditionalCheckFailedException carries
     * it in Item. */
    ddb_return_values return_on_condition_failure;
} ddb_write_opts;

/* What a write returns.  attributes lives in the arena passed to the call
 * (NULL when nothing is returned). */
typedef struct ddb_write_result {
    ddb_item *attributes;
    ddb_capacity capacity;
} ddb_write_result;

/* PutItem: create or replace the item.  The item must hold the table's key
 * attributes with the declared types; index key attributes, when present,
 * must have the index's types.  DDB_EVALIDATION / DDB_ELIMIT otherwise
 * (item over 400 KB, partition key over 2048 bytes, sort key over 1024).
 * res and a may be NULL when nothing is asked back. */
int ddb_put_item(ddb *db, const char *table, const ddb_item *item, const ddb_write_opts *opts, ddb_arena *a,
                 ddb_write_result *res, ddb_error *err);

/* DeleteItem by key (an item holding exactly the key attributes).
 * Deleting a missing item succeeds (and costs 1 WCU), as in DynamoDB. */
int ddb_delete_item(ddb *db, const char *table, const ddb_item *key, const ddb_write_opts *opts, ddb_arena *a,
                    ddb_write_result *res, ddb_error *err);

/* UpdateItem: apply an UpdateExpression to the item with this key, creating
 * it when absent (as DynamoDB does).  A failed condition is DDB_ECONDITION
 * and writes nothing.  Key attributes cannot be updated. */
int ddb_update_item(ddb *db, const char *table, const ddb_item *key, const ddb_expr *update,
                    const ddb_write_opts *opts, ddb_arena *a, ddb_write_result *res, ddb_error *err);

/* ---- Batches and transactions ----------------------------------------------- */

/* One BatchWriteItem request: exactly one of put / delete_key is set. */
typedef struct ddb_batch_write_op {
    const char *table;
    const ddb_item *put;
    const ddb_item *delete_key;
} ddb_batch_write_op;

/* BatchWriteItem: up to 25 puts/deletes, no two on the same key
 * (DDB_EVALIDATION).  The embedded engine processes every request. */
int ddb_batch_write(ddb *db, const ddb_batch_write_op *ops, size_t n, ddb_return_capacity rc, ddb_capacity *cap,
                    ddb_error *err);

typedef struct ddb_batch_get_op {
    const char *table;
    const ddb_item *key;
    bool consistent;
    const ddb_expr *projection; /* ProjectionExpression; NULL = all */
} ddb_batch_get_op;

/* BatchGetItem: up to 100 keys, no duplicates.  items[i] receives the item
 * for ops[i] (arena memory), or NULL when it does not exist. */
int ddb_batch_get(ddb *db, const ddb_batch_get_op *ops, size_t n, ddb_arena *a, ddb_item **items,
                  ddb_return_capacity rc, ddb_capacity *cap, ddb_error *err);

typedef enum ddb_tx_kind {
    DDB_TX_PUT = 1,
    DDB_TX_UPDATE,
    DDB_TX_DELETE,
    DDB_TX_CHECK     /* ConditionCheck */
} ddb_tx_kind;

typedef struct ddb_tx_op {
    ddb_tx_kind kind;
    const char *table;
    const ddb_item *item;       /* PUT: the item; others: the key */
    const ddb_expr *update;     /* UPDATE */
    const ddb_expr *condition;  /* optional; required for CHECK */
    const ddb_item *values;     /* ExpressionAttributeValues */
    /* ReturnValuesOnConditionCheckFailure: NONE or ALL_OLD (the stored item
     * comes back in ddb_tx_result.items[i] when this op's condition fails). */
    ddb_return_values return_on_condition_failure;
} ddb_tx_op;

typedef struct ddb_tx_result {
    /* One code per op (arena memory), set when the transaction is
     * cancelled: 0 (None), DDB_ECONDITION (ConditionalCheckFailed),
     * DDB_EVALIDATION, DDB_ELIMIT ... */
    int *reasons;
    /* Set with reasons: per op the stored item (CancellationReasons[i].Item)
     * when the op asked for ALL_OLD on condition failure and its condition
     * failed; NULL otherwise. */
    ddb_item **items;
    /* Set with reasons: per op with a reason other than None,
     * ConditionalCheckFailed or ThrottlingError, its message (arena memory;
     * CancellationReasons[i].Message); NULL otherwise. */
    char **messages;
    ddb_capacity capacity;
} ddb_tx_result;

/* Options of TransactWriteItems; NULL = defaults. */
typedef struct ddb_tx_opts {
    ddb_return_capacity return_capacity;
    /* ClientRequestToken (1 to 36 characters; NULL = none).  The same token
     * with the same request within 10 minutes of the first success returns
     * DDB_OK without writing again (capacity: the read units of the items,
     * as DynamoDB reports them); with a different request it is
     * DDB_EIDEMPOTENT.  The embedded engine stores the token with the
     * transaction's writes (durably, in the same LMDB transaction); the
     * remote backend sends it (and otherwise sends a random one of its own,
     * so that its retries never apply a transaction twice). */
    const char *client_request_token;
} ddb_tx_opts;

/* TransactWriteItems: up to 100 operations on distinct items, at most 4 MB,
 * all or nothing in one LMDB transaction.  DDB_ECANCELED with per-op reasons
 * when any condition fails, or an op's item or update turns out invalid (a
 * key attribute of the wrong type included: DDB_EVALIDATION as that op's
 * reason, as DynamoDB answers); capacity counts double. */
int ddb_transact_write(ddb *db, const ddb_tx_op *ops, size_t n, ddb_return_capacity rc, ddb_arena *a,
                       ddb_tx_result *res, ddb_error *err);
/* ddb_transact_write with options (a ClientRequestToken). */
int ddb_transact_write_opts(ddb *db, const ddb_tx_op *ops, size_t n, const ddb_tx_opts *opts, ddb_arena *a,
                            ddb_tx_result *res, ddb_error *err);

typedef struct ddb_tx_get {
    const char *table;
    const ddb_item *key;
    const ddb_expr *projection;
} ddb_tx_get;

/* TransactGetItems: up to 100 items read from one snapshot; items[i] is NULL
 * when absent.  Capacity counts double. */
int ddb_transact_get(ddb *db, const ddb_tx_get *gets, size_t n, ddb_arena *a, ddb_item **items,
                     ddb_return_capacity rc, ddb_capacity *cap, ddb_error *err);

typedef struct ddb_get_opts {
    bool consistent;        /* strongly consistent read (full RCU) */
    /* Top-level attributes to return; NULL = all. */
    const char *const *attributes;
    size_t n_attributes;
    ddb_return_capacity return_capacity;
    const ddb_expr *projection; /* ProjectionExpression (nested paths); NULL = all */
} ddb_get_opts;

/* GetItem.  *out gets the item in arena a; DDB_ENOTFOUND (with *out NULL)
 * when there is none.  cap may be NULL. */
int ddb_get_item(ddb *db, const char *table, const ddb_item *key, const ddb_get_opts *opts, ddb_arena *a,
                 ddb_item **out, ddb_capacity *cap, ddb_error *err);

/* ---- Query and Scan ------------------------------------------------------- */

typedef enum ddb_key_op {
    DDB_SK_ANY = 0,         /* no sort key condition */
    DDB_SK_EQ,
    DDB_SK_LT,
    DDB_SK_LE,
    DDB_SK_GT,
    DDB_SK_GE,
    DDB_SK_BETWEEN,         /* sk1 <= sk <= sk2 */
    DDB_SK_BEGINS_WITH      /* S and B sort keys only */
} ddb_key_op;

typedef struct ddb_query_params {
    const char *table;
    const char *index;      /* NULL = the table's primary key */
    const ddb_value *pk;    /* partition key value (equality) */
    ddb_key_op sk_op;
    const ddb_value *sk1, *sk2;
    bool backward;          /* ScanIndexForward = false */
    uint32_t limit;         /* items to evaluate; 0 = no limit (1 MB pages) */
    const ddb_item *start_key; /* ExclusiveStartKey (a page's last_key) */
    bool consistent;        /* not allowed on a GSI */
    const char *const *attributes; /* top-level projection; NULL = all */
    size_t n_attributes;
    ddb_return_capacity return_capacity;
    const ddb_expr *filter;     /* FilterExpression, applied after the 1 MB limit */
    const ddb_expr *projection; /* ProjectionExpression */
    const ddb_item *values;     /* ExpressionAttributeValues (key condition, filter) */
    /* KeyConditionExpression: when set, it gives pk / sk_op / sk1 / sk2.
     * The only form for an index with multi-attribute keys: equality on
     * every partition-key attribute, then sort-key attributes left to
     * right, equality on each, optionally a range condition (< <= > >=
     * BETWEEN begins_with) on the last one named, no gaps (the struct form
     * answers DDB_EVALIDATION for such an index). */
    const ddb_expr *key_condition;
    /* Select ALL_ATTRIBUTES: on a local secondary index that does not
     * project every attribute, each item is read whole from the table
     * (DynamoDB's fetch; its read units are added to the table's capacity).
     * A projection naming an attribute the LSI does not hold fetches the
     * same way without it.  A GSI cannot fetch. */
    bool select_all;
} ddb_query_params;

typedef struct ddb_scan_params {
    const char *table;
    const char *index;
    uint32_t limit;
    const ddb_item *start_key;
    bool consistent;
    uint32_t segment, total_segments; /* parallel scan; 0/0 = whole table */
    const char *const *attributes;
    size_t n_attributes;
    ddb_return_capacity return_capacity;
    const ddb_expr *filter;
    const ddb_expr *projection;
    const ddb_item *values;
    bool select_all; /* as ddb_query_params.select_all */
} ddb_scan_params;

/* One page of results, in arena memory. */
typedef struct ddb_page {
    ddb_item **items;
    size_t count;           /* Count: items returned (after the filter) */
    size_t scanned_count;   /* ScannedCount: items evaluated (before the filter) */
    ddb_item *last_key;     /* LastEvaluatedKey; NULL when the result is complete */
    ddb_capacity capacity;
} ddb_page;

/* Query one partition of the table or of an index, in sort key order.  A
 * page stops at limit items or 1 MB of data; pass last_key back as
 * start_key for the next page. */
int ddb_query(ddb *db, const ddb_query_params *q, ddb_arena *a, ddb_page *out, ddb_error *err);
/* Scan the table or an index in partition-hash order. */
int ddb_scan(ddb *db, const ddb_scan_params *s, ddb_arena *a, ddb_page *out, ddb_error *err);

/* ---- Partitions ---------------------------------------------------------- */

/* The partition hash of a partition key value: the first 64 bits of its
 * 128-bit digest.  A partition owns a contiguous range of these. */
uint64_t ddb_partition_hash(const ddb_value *pk);

/* The recorded window of per-second statistics: the last this many seconds. */
#define DDB_STATS_SECONDS 120

/* Capacity a partition consumed in one second (every handle that recorded it). */
typedef struct ddb_second_units {
    int64_t second;            /* seconds since the epoch (the handle's clock) */
    double read_units, write_units;
    uint64_t throttled;        /* calls rejected by throttle mode in that second */
} ddb_second_units;

typedef struct ddb_partition_stats {
    uint64_t hash_lo, hash_hi; /* inclusive range of partition hashes */
    uint64_t item_count;
    uint64_t size_bytes;
    double read_units, write_units; /* consumed since this handle opened */
    uint64_t throttled;        /* calls rejected by throttle mode */
    /* The timeline: consumption per second over the recorded window (the
     * DDB_STATS_SECONDS seconds up to the latest one recorded for this
     * table), by this handle and those that flushed theirs (on close and
     * every sweep); only seconds with consumption, oldest first. */
    const ddb_second_units *seconds;
    size_t n_seconds;
} ddb_partition_stats;

/* Per-partition statistics of a table (its base partitions), into arena a. */
int ddb_table_stats(ddb *db, const char *table, ddb_arena *a, ddb_partition_stats **parts, size_t *count,
                    ddb_error *err);

/* ---- Consistency check ----------------------------------------------------- */

typedef struct ddb_check_report {
    uint64_t items;          /* items in the table */
    uint64_t index_entries;  /* entries in all its indexes */
    uint64_t problems;       /* disagreements found */
    char first_problem[DDB_ERROR_TEXT_SIZE]; /* the first one, described */
} ddb_check_report;

/* Verify that every stored item decodes, sits under the key its attributes
 * give, is counted in its partition's statistics, and that every index of
 * the table holds exactly the entries its items call for (no missing, no
 * stale entries).  DDB_OK when clean, DDB_ECORRUPT when problems were found
 * (report says which), DDB_ENOTABLE for an unknown table. */
int ddb_check_table(ddb *db, const char *table, ddb_check_report *report, ddb_error *err);

/* Verify the catalog of an embedded database: every item and index
 * database in the file belongs to a stored table definition (a damaged or
 * lost definition would otherwise hide its items: ddb_list_tables shows
 * only defined tables).  report->items counts the databases examined.
 * DDB_OK when clean, DDB_ECORRUPT when problems were found, DDB_ENOTSUP for
 * a remote backend (the service keeps its own catalog).  What the checks
 * detect and what they do not is in docs/ENGINE.md ("Damaged files and what `ddb check` guarantees"). */
int ddb_check_catalog(ddb *db, ddb_check_report *report, ddb_error *err);

/* ---- Change streams and TTL ------------------------------------------------- */

/* A table's change stream (DynamoDB Streams, one shard per table): every
 * committed change of an item appends one record in the same LMDB write
 * transaction as the change, so a write whose condition fails, a cancelled
 * transaction or a crash before commit leaves no record, and no committed
 * change lacks one.  A PutItem or UpdateItem that leaves the item as it was
 * and a DeleteItem of a missing item record nothing (as in DynamoDB).
 * Sequence numbers count 1, 2, 3 ... per table and are never reused, also
 * not when the table is deleted and created again.
 *
 * Consumers read with an iterator and keep their own checkpoint (the
 * sequence number of the last record they processed); reopening with
 * DDB_STREAM_AFTER_SEQUENCE and that checkpoint resumes without loss.
 * On a remote handle the iterator reads DynamoDB Streams (docs/REMOTE.md,
 * "Change streams"): the same records, shard after shard; DynamoDB's
 * sequence numbers exceed 64 bits (seq 0 for those), ddb serve's do not. */

typedef enum ddb_stream_event {
    DDB_STREAM_INSERT = 1, /* a new item */
    DDB_STREAM_MODIFY,     /* an existing item changed */
    DDB_STREAM_REMOVE      /* an item was deleted */
} ddb_stream_event;

/* "INSERT", "MODIFY", "REMOVE"; "?" for anything else. */
const char *ddb_stream_event_name(ddb_stream_event e);
/* "NONE", "KEYS_ONLY", "NEW_IMAGE", "OLD_IMAGE", "NEW_AND_OLD_IMAGES"; "?" otherwise. */
const char *ddb_stream_view_name(ddb_stream_view v);
/* The view named s (the names above, case-insensitive): DDB_EINVAL otherwise. */
int ddb_stream_view_parse(const char *s, ddb_stream_view *out);

/* One stream record.  Everything it points to lives in the arena given to
 * ddb_stream_read(). */
typedef struct ddb_stream_record {
    const char *table;
    uint64_t seq;              /* SequenceNumber */
    ddb_stream_event event;    /* eventName */
    ddb_stream_view view;      /* StreamViewType the record was written with */
    int64_t created_ms;        /* ApproximateCreationDateTime, ms since the epoch (the handle's clock) */
    size_t size;               /* SizeBytes: keys and images, measured as DynamoDB measures items */
    /* Deleted by TTL: DynamoDB's userIdentity {"type": "Service",
     * "principalId": "dynamodb.amazonaws.com"}. */
    bool by_ttl;
    const ddb_item *keys;      /* Keys: the table's key attributes */
    const ddb_item *old_image; /* OldImage (OLD_IMAGE, NEW_AND_OLD_IMAGES; MODIFY, REMOVE); else NULL */
    const ddb_item *new_image; /* NewImage (NEW_IMAGE, NEW_AND_OLD_IMAGES; INSERT, MODIFY); else NULL */
    /* SequenceNumber as text: the decimal of seq on the embedded engine,
     * the service's own on a remote handle (DynamoDB's exceed 64 bits, seq
     * is 0 for those) */
    const char *sequence_number;
} ddb_stream_record;

#define DDB_USER_IDENTITY_TYPE "Service"
#define DDB_USER_IDENTITY_PRINCIPAL "dynamodb.amazonaws.com"

/* Enable, change or disable (view DDB_STREAM_NONE) a table's stream
 * (UpdateTable StreamSpecification).  Records already written stay
 * readable until retention trims them.  The view of an enabled stream
 * cannot change (DynamoDB's rule): disable it, then enable it with the new
 * view; its retention can.  DDB_ENOTABLE, DDB_EVALIDATION. */
int ddb_update_table_stream(ddb *db, const char *table, const ddb_stream_spec *spec, ddb_error *err);

typedef struct ddb_stream_desc {
    ddb_stream_spec spec;     /* view NONE: disabled (older records may remain) */
    uint64_t first_seq;       /* oldest retained record; 0 when none is retained */
    uint64_t last_seq;        /* newest record ever written; 0 when none */
    uint64_t trimmed_through; /* every record up to this one is gone */
    uint64_t records, bytes;  /* retained records and their stored size */
    int64_t oldest_ms;        /* created_ms of the oldest retained record; 0 when none */
    /* When the stream was last enabled (its StreamLabel), ms since the
     * epoch; each enablement's is later than the one before.  0 when it
     * was never enabled, or enabled before this was kept. */
    int64_t enabled_ms;
} ddb_stream_desc;

/* DescribeStream.  DDB_ENOTABLE for an unknown table. */
int ddb_stream_describe(ddb *db, const char *table, ddb_stream_desc *out, ddb_error *err);

/* Where an iterator starts (ShardIteratorType). */
typedef enum ddb_stream_position {
    DDB_STREAM_TRIM_HORIZON = 0, /* the oldest record retained when the first record is read */
    DDB_STREAM_LATEST,           /* records written after the iterator was opened */
    DDB_STREAM_AT_SEQUENCE,      /* the record seq and those after it */
    DDB_STREAM_AFTER_SEQUENCE    /* records after seq: resume from a checkpoint (0 = from the first) */
} ddb_stream_position;

typedef struct ddb_stream_iter ddb_stream_iter;

/* GetShardIterator.  seq is used by AT_ / AFTER_SEQUENCE.  DDB_ENOTABLE
 * (unknown table, or a table that never had a stream), DDB_EVALIDATION
 * (seq beyond the newest record), DDB_ETRIMMED (records after seq are
 * already trimmed: resuming there would lose them).  The iterator is
 * freed by ddb_stream_iter_close(); use it from one thread at a time. */
int ddb_stream_iter_open(ddb *db, const char *table, ddb_stream_position from, uint64_t seq,
                         ddb_stream_iter **out, ddb_error *err);
/* GetRecords: up to max records in order into recs[0..*n) (arena a).
 * *n == 0 when the consumer is caught up (poll again later).
 * DDB_ETRIMMED when records the iterator has not read yet were trimmed
 * meanwhile (the message names the oldest retained sequence number). */
int ddb_stream_read(ddb_stream_iter *it, size_t max, ddb_arena *a, ddb_stream_record *recs, size_t *n,
                    ddb_error *err);
/* The sequence number of the last record read (or the position the
 * iterator started after): what a consumer checkpoints. */
uint64_t ddb_stream_iter_position(const ddb_stream_iter *it);
void ddb_stream_iter_close(ddb_stream_iter *it);
/* The iterator's position as text, to keep and give to
 * ddb_stream_iter_resume() (records after it).  The embedded engine's is
 * the decimal sequence number (ddb_stream_iter_position); a remote
 * iterator's names each DynamoDB Streams shard it is reading with its last
 * sequence number (DynamoDB's do not fit in 64 bits, and a table's stream
 * may have many shards): about 110 bytes per shard.  NUL-terminated into
 * buf[0..cap); DDB_ELIMIT (buf "") when cap is too small, the message
 * saying how many bytes it needs. */
int ddb_stream_iter_checkpoint(const ddb_stream_iter *it, char *buf, size_t cap, ddb_error *err);
/* Open an iterator after a checkpoint of ddb_stream_iter_checkpoint() (or a
 * decimal sequence number: the same as DDB_STREAM_AFTER_SEQUENCE).  Errors
 * as ddb_stream_iter_open(); DDB_EINVAL for text that is no checkpoint. */
int ddb_stream_iter_resume(ddb *db, const char *table, const char *checkpoint, ddb_stream_iter **out,
                           ddb_error *err);

/* Trim records older than the retention period now (writes also trim a
 * few as they go, and the sweep thread calls this).  trimmed may be NULL. */
int ddb_stream_trim(ddb *db, const char *table, uint64_t *trimmed, ddb_error *err);

/* Verify a table's stream: every record decodes, sequence numbers ascend
 * within the retained range, event, keys and images agree with each
 * other and with the table's key schema, and the stream's counters match
 * its records.  report->items counts the records checked.  DDB_OK when
 * clean, DDB_ECORRUPT with the first problem described otherwise. */
int ddb_stream_check(ddb *db, const char *table, ddb_check_report *report, ddb_error *err);

/* UpdateTimeToLive: items whose attribute attr holds a Number of epoch
 * seconds earlier than now are expired.  Expired items are invisible to
 * GetItem, Query, Scan, BatchGetItem and TransactGetItems at once (or, with
 * ddb_options.ttl_reads DDB_TTL_READS_SHOW, returned by them until
 * deleted, as DynamoDB does), and are
 * deleted by ddb_ttl_sweep() or the handle's sweep thread (each deletion
 * is a REMOVE stream record with by_ttl set).  Values that are not
 * Numbers, and times more than five years in the past, never expire (as in
 * DynamoDB).  Writes see expired items until they are deleted.  attr NULL
 * or "" disables TTL. */
int ddb_update_time_to_live(ddb *db, const char *table, const char *attr, ddb_error *err);
/* Delete the expired items of table (NULL = every table with TTL) as of
 * now_s (epoch seconds; 0 = the handle's clock), in transactions of up to
 * 100 items.  TTL deletions consume no capacity.  deleted may be NULL. */
int ddb_ttl_sweep(ddb *db, const char *table, int64_t now_s, uint64_t *deleted, ddb_error *err);
/* The handle's clock (ddb_options.clock_ms or the system clock), ms since the epoch.
 * Remote handles too take ddb_options.clock_ms (or ddb_remote_options.clock_ms);
 * their request signatures always use the system clock. */
int64_t ddb_clock_ms(const ddb *db);

/* ---- Table report (what `ddb stats` prints) --------------------------------- */

typedef struct ddb_partition_report {
    uint64_t hash_lo, hash_hi; /* inclusive range of partition hashes */
    uint64_t item_count, size_bytes;
    /* Consumed capacity charged to the partition since the table was
     * created: what every handle recorded (each adds what it consumed when
     * it closes and on every sweep) plus this handle's not yet recorded. */
    double read_units, write_units;
    uint64_t throttled;        /* this handle's throttled calls */
    uint64_t stream_writes;    /* changes in the retained stream */
    double stream_write_units; /* their write units (larger image; 1 when images are not recorded) */
} ddb_partition_report;

/* One partition key: its item collection and its writes in the stream. */
typedef struct ddb_key_report {
    const ddb_value *pk;
    uint64_t hash;             /* partition hash */
    uint32_t partition;        /* index into the report's partitions */
    uint64_t items, bytes;     /* item collection (table items) */
    uint64_t writes;           /* changes in the retained stream */
    double write_units;
} ddb_key_report;

typedef struct ddb_index_report {
    const char *name;
    bool local;
    uint64_t items;            /* entries */
    uint64_t bytes;            /* projected size of the entries (what index capacity is charged on) */
} ddb_index_report;

typedef struct ddb_table_report {
    const char *table;
    uint64_t items, bytes;
    size_t n_parts;
    ddb_partition_report *parts;
    size_t n_collections;
    ddb_key_report *collections; /* largest item collections, by bytes, largest first */
    size_t n_hot;
    ddb_key_report *hot;         /* most written partition keys in the stream, most first */
    size_t n_indexes;
    ddb_index_report *indexes;
    uint64_t stream_records;     /* records the write heat comes from */
} ddb_table_report;

/* Read a table (one snapshot: every item, the stream) and report its
 * partitions, the top largest item collections and most written partition
 * keys, and its index sizes, into arena a.  O(items + stream records). */
int ddb_table_report_build(ddb *db, const char *table, size_t top, ddb_arena *a, ddb_table_report **out,
                           ddb_error *err);

/* ---- Testing: injected faults ------------------------------------------------ */

/* Operation kinds a fault applies to (bits of ddb_fault.ops). */
#define DDB_OP_GET 0x001u            /* GetItem */
#define DDB_OP_PUT 0x002u            /* PutItem */
#define DDB_OP_UPDATE 0x004u         /* UpdateItem */
#define DDB_OP_DELETE 0x008u         /* DeleteItem */
#define DDB_OP_QUERY 0x010u          /* Query */
#define DDB_OP_SCAN 0x020u           /* Scan */
#define DDB_OP_BATCH_WRITE 0x040u    /* BatchWriteItem */
#define DDB_OP_BATCH_GET 0x080u      /* BatchGetItem */
#define DDB_OP_TRANSACT_WRITE 0x100u /* TransactWriteItems */
#define DDB_OP_TRANSACT_GET 0x200u   /* TransactGetItems */
#define DDB_OP_READS (DDB_OP_GET | DDB_OP_QUERY | DDB_OP_SCAN | DDB_OP_BATCH_GET | DDB_OP_TRANSACT_GET)
#define DDB_OP_WRITES (DDB_OP_PUT | DDB_OP_UPDATE | DDB_OP_DELETE | DDB_OP_BATCH_WRITE | DDB_OP_TRANSACT_WRITE)

/* A fault for tests of the code that handles failures (retries, conflicts,
 * unknown outcomes): the item operations above (and every typed operation
 * of a generated module, which calls them) fail as the service would, on
 * either backend.  A rule matches an operation of a kind in ops on table;
 * of the matching operations the next `count` fail, or (fraction > 0) each
 * fails with that probability, drawn from a generator seeded with seed (the
 * same seed, the same operations fail), at most count times (0 = no limit).
 * A failed operation is not carried out (except DDB_EUNKNOWN with applied)
 * and its err says "injected" besides DynamoDB's wording. */
typedef struct ddb_fault {
    /* DDB_ETHROTTLED (ProvisionedThroughputExceededException), DDB_ECONDITION
     * (ConditionalCheckFailedException; writes), DDB_ECANCELED
     * (TransactionCanceledException; TransactWriteItems, with `reasons`),
     * DDB_EUNKNOWN (the outcome of a write is unknown), or any other DDB_E* code. */
    int code;
    uint32_t ops;              /* DDB_OP_* bits; 0 = every kind */
    const char *table;         /* only operations on this table (a batch or transaction: one of its requests); NULL = any */
    uint32_t count;            /* fail the next count matching operations (with fraction: at most count; 0 = no limit) */
    double fraction;           /* 0 = every matching operation (up to count); 0 < fraction <= 1: each with this probability */
    uint64_t seed;             /* the generator of fraction */
    /* DDB_ECANCELED: the cancellation reason of each operation of the
     * transaction (ddb_tx_result.reasons: 0 = None, DDB_ECONDITION, ...);
     * operations past n_reasons get 0.  NULL: the first operation's is
     * DDB_ECONDITION. */
    const int *reasons;
    size_t n_reasons;
    /* DDB_EUNKNOWN: the write is carried out before the error is returned
     * (a commit whose answer was lost); false: it is not (a request lost
     * on its way). */
    bool applied;
    /* DDB_ETHROTTLED on DDB_OP_BATCH_WRITE or DDB_OP_BATCH_GET only: the
     * first `processed` requests (keys) are carried out and the rest left
     * unprocessed, the answer of the remote backend when UnprocessedItems
     * (UnprocessedKeys) remain after its retries ("BatchWriteItem: 3 of 5
     * requests still unprocessed"); 0 = none.  `ddb serve --unprocessed`
     * returns them on the wire instead, so that the remote backend's
     * retries run (docs/SERVER.md). */
    uint32_t processed;
} ddb_fault;

/* Add a rule (the table name and reasons are copied); rules are matched in
 * the order added, the first match decides.  DDB_EINVAL for a code that is
 * not a DDB_E* error, no count and no fraction, a fraction outside (0, 1],
 * DDB_ECANCELED on anything but TransactWriteItems, DDB_EUNKNOWN on reads,
 * or processed without DDB_ETHROTTLED on a batch; DDB_ELIMIT past 32
 * rules.  Thread-safe with the handle's operations. */
int ddb_fault_inject(ddb *db, const ddb_fault *f, ddb_error *err);
/* Remove every rule. */
void ddb_fault_clear(ddb *db);
/* How many operations injected faults have failed on db so far. */
uint64_t ddb_fault_fired(ddb *db);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#include <ddb/expr.h>

#endif /* DDB_DDB_H */
