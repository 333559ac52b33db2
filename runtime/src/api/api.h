/* api/: the public handle and the entry points of <ddb/ddb.h> (internal
 * header of the room).
 *
 * The room holds struct ddb (a backend's operations and handle, plus the
 * prepared-expression cache every backend shares), ddb_open / ddb_close
 * (which choose the backend from the URI), and every public ddb_* function
 * that takes a handle: each checks its arguments once and dispatches to
 * the backend's operation (backend.h).  Files by subject: handle.c (open,
 * close, sync, clock), tables.c, items.c, batches.c (batches and
 * transactions), query.c (Query and Scan), streams.c (streams and TTL),
 * admin.c (statistics, checks, reports), records.c (the record reads of
 * the entity room), embedded.c (the embedded
 * backend: engine/ with streams/ hooked in), expr_cache.c.
 *
 * May call: engine/ (engine.h: open), streams/ (streams.h: hooks and
 * operations), remote/ (remote.h: open and operations), core/.  Offers the
 * entity room expr_cache.h and records.h (reads handing over stored
 * records) and nothing else. */
#ifndef DDB_API_API_H
#define DDB_API_API_H

#include <ddb/ddb.h>
#include <pthread.h>

#include "core/backend.h"

struct ddb {
    const ddbi_backend_ops *ops;
    void *impl;                       /* the backend's handle */
    pthread_mutex_t mu;               /* creation of expr_cache and faults */
    struct ddb_expr_cache *expr_cache; /* prepared expressions of generated modules (expr_cache.c) */
    struct ddbi_faults *faults;       /* injected faults (faults.c); NULL = none; read atomically */
    char *temp_dir;                   /* "mem:": the private directory removed at close (temp_dir.c) */
};

/* A backend's stream iterator with its operations. */
struct ddb_stream_iter {
    const ddbi_stream_iter_ops *ops;
    void *impl;
};

/* The arguments of BatchGetItem and TransactGetItems (batches.c; what
 * names the operation in the message); *cap zeroed. */
int ddbi_api_check_read_many(const ddb *db, const char *what, size_t n, const void *ops, ddb_arena *a,
                             ddb_item **items, ddb_capacity *cap, ddb_error *err);

/* ---- injected faults (faults.c) ---- */

/* One operation as the faults see it: its kind (DDB_OP_*), its name in
 * messages ("PutItem"), its table, or (table NULL) the n requests at reqs,
 * stride bytes apart, each with its table name at table_off; a
 * transaction's arena and result (for the cancellation reasons). */
typedef struct ddbi_fault_call {
    unsigned op;
    const char *what;
    const char *table;
    const void *reqs;
    size_t n, stride, table_off;
    ddb_arena *a;
    ddb_tx_result *res;
    size_t processed;   /* out, with *after: run only the first `processed` requests (a batch left partly unprocessed) */
} ddbi_fault_call;
/* Before the backend runs call c: DDB_OK to go on, or the injected
 * failure (err filled; a transaction's reasons in c->res).  *after: go on
 * (with c->processed set: only that many requests), then hand the
 * backend's answer to ddbi_fault_after (an unknown outcome after the
 * write, or the unprocessed rest of a batch). */
int ddbi_fault_check(ddb *db, ddbi_fault_call *c, bool *after, ddb_error *err);
/* The backend's answer rc to call c: as it is, unless after (set by
 * ddbi_fault_check) and it succeeded: then DDB_EUNKNOWN (applied, the
 * answer lost). */
int ddbi_fault_after(const ddbi_fault_call *c, bool after, int rc, ddb_error *err);
/* A BatchGetItem's arguments (ddbi_api_check_read_many) and faults
 * (ddbi_fault_check, fc filled): run the backend on the first
 * fc->processed keys when set (else all n), then ddbi_fault_after. */
int ddbi_batch_get_begin(ddb *db, const ddb_batch_get_op *ops, size_t n, ddb_arena *a, ddb_item **items,
                         ddb_capacity *cap, ddbi_fault_call *fc, bool *after, ddb_error *err);
/* ddbi_fault_check of a read of n requests (BatchGetItem, TransactGetItems). */
int ddbi_fault_read_many(ddb *db, unsigned op, const char *what, const void *reqs, size_t n, size_t stride,
                         size_t table_off, ddb_error *err);
/* Free the rules (ddb_close). */
void ddbi_faults_free(ddb *db);

/* ---- "mem:" databases (temp_dir.c) ---- */

/* A new private directory for a "mem:" database, on tmpfs (/dev/shm) when
 * the machine has one, else under $TMPDIR or /tmp; *out malloc'd. */
int ddbi_temp_dir_new(char **out, ddb_error *err);
/* Remove directory dir and everything in it (best effort). */
void ddbi_temp_dir_remove(const char *dir);

/* DDB_ENOTSUP: "<op>: not supported by the <backend> backend". */
int ddbi_api_notsup(const ddb *db, const char *op, ddb_error *err);

/* The embedded backend (embedded.c): engine/ with the streams/ room
 * hooked in.  path: a directory. */
extern const ddbi_backend_ops ddbi_embedded_ops;
int ddbi_embedded_open(const char *uri, const char *path, const ddb_options *opts, void **impl, ddb_error *err);
/* ddb_options.verify (verify.c): every check of the database in dir, in a
 * child process; DDB_OK (also when there is no database yet) with out
 * naming the tables found damaged (each that table's problem: the caller
 * marks them, ddbi_embedded_mark_damaged), DDB_ECORRUPT naming `ddb check
 * DIR` when the catalog is damaged, more tables than out holds are, or the
 * check crashed (LMDB aborted on a page). */
#define DDBI_VERIFY_TABLES 8
typedef struct ddbi_verify_result {
    int n_tables;
    char tables[DDBI_VERIFY_TABLES][256];
    char why[DDB_ERROR_TEXT_SIZE]; /* the first damaged table's problem */
} ddbi_verify_result;
int ddbi_verify_file(const char *dir, ddbi_verify_result *out, ddb_error *err);
/* A table verify found damaged: the handle writes nothing more to it. */
void ddbi_embedded_mark_damaged(void *impl, const char *table, const char *why);

#endif
