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

#include "api/backend.h"

struct ddb {
    const ddbi_backend_ops *ops;
    void *impl;                       /* the backend's handle */
    pthread_mutex_t mu;               /* creation of expr_cache */
    struct ddb_expr_cache *expr_cache; /* prepared expressions of generated modules (expr_cache.c) */
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

/* DDB_ENOTSUP: "<op>: not supported by the <backend> backend". */
int ddbi_api_notsup(const ddb *db, const char *op, ddb_error *err);

/* The embedded backend (embedded.c): engine/ with the streams/ room
 * hooked in.  path: a directory. */
extern const ddbi_backend_ops ddbi_embedded_ops;
int ddbi_embedded_open(const char *uri, const char *path, const ddb_options *opts, void **impl, ddb_error *err);
/* ddb_options.verify (verify.c): every check of the database in dir, in a
 * child process; DDB_OK (also when there is no database yet), DDB_ECORRUPT
 * naming `ddb check DIR` when it is damaged or its check crashed. */
int ddbi_verify_file(const char *dir, ddb_error *err);

#endif
