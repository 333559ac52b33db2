/* engine/: opening and closing the embedded engine's handle (the LMDB
 * environment, the table cache, the hooks of the room above).  May call
 * the rest of engine/ and core/; the room above only through its hooks. */
#include "engine/engine.h"
#include "core/error.h"
#include "engine/stored.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int make_dir(const char *path, bool *created, ddb_error *err)
{
    struct stat st;
    *created = false;
    if (stat(path, &st) == 0) {
        if (!S_ISDIR(st.st_mode))
            return ddbi_fail(err, DDB_EINVAL, "ddb_open: %s exists and is not a directory", path);
        return DDB_OK;
    }
    if (mkdir(path, 0755) == 0)
        *created = true;
    else if (errno != EEXIST)
        return ddbi_fail(err, DDB_EIO, "ddb_open: cannot create directory %s: %s", path, strerror(errno));
    return DDB_OK;
}

/* Does path hold no data file yet (so that open creates one)? */
static int data_file_missing(const char *path, bool *missing, ddb_error *err)
{
    char file[4096];
    struct stat st;
    if (snprintf(file, sizeof file, "%s/data.mdb", path) >= (int)sizeof file)
        return ddbi_fail(err, DDB_EINVAL, "ddb_open: path %s is too long", path);
    *missing = stat(file, &st) != 0 && errno == ENOENT;
    return DDB_OK;
}

/* LMDB found a page it cannot use and is about to abort the process (its
 * assertions end in abort(); nothing may return from them): say which
 * database, and the command that finds what is damaged (ddb_options.verify
 * refuses such a file at the next open instead of crashing again). */
static void on_lmdb_assert(MDB_env *env, const char *msg)
{
    const char *path = NULL;
    if (mdb_env_get_path(env, &path) || !path)
        path = "the database";
    fprintf(stderr, "libddb: LMDB stops this process on a damaged page of %s (%s): run `ddb check %s`\n", path, msg,
            path);
}

/* mdb_env_create .. mdb_env_open; on failure the environment is closed
 * (LMDB cannot retry an open) and the LMDB code returned. */
static int env_open(ddbi_engine *db, const char *path, unsigned flags)
{
    int rc;
    if ((rc = mdb_env_create(&db->env)))
        return rc;
    mdb_env_set_assert(db->env, on_lmdb_assert);
    if ((rc = mdb_env_set_maxdbs(db->env, 1024)) || (rc = mdb_env_set_maxreaders(db->env, 512)) ||
        (rc = mdb_env_set_mapsize(db->env, (size_t)db->opts.map_size)) ||
        (rc = mdb_env_open(db->env, path, flags, 0644))) {
        mdb_env_close(db->env);
        db->env = NULL;
    }
    return rc;
}

/* The environment of a read-only handle: LMDB's read-only mode; where the
 * lock file cannot be opened for writing (a read-only directory), without
 * the lock file (ddb_options.read_only documents what that requires). */
static int env_open_ro(ddbi_engine *db, const char *path, unsigned flags, ddb_error *err)
{
    int rc = env_open(db, path, flags | MDB_RDONLY);
    if (rc == EACCES)
        rc = env_open(db, path, flags | MDB_RDONLY | MDB_NOLOCK);
    if (rc == ENOENT)
        return ddbi_fail(err, DDB_EIO, "ddb_open: no database in %s (a read-only open creates none)", path);
    return rc ? ddbi_mdb_fail(err, rc, "ddb_open") : DDB_OK;
}

int ddbi_engine_open(const char *uri, const char *path, const ddb_options *opts, const ddbi_engine_hooks *hooks,
                     ddbi_engine **out, ddb_error *err)
{
    *out = NULL;
    if (!*path)
        return ddbi_fail(err, DDB_EINVAL, "ddb_open: empty path in \"%s\"", uri);
    ddb_options o = opts ? *opts : (ddb_options){0};
    if (o.sync > DDB_SYNC_NONE)
        return ddbi_fail(err, DDB_EINVAL, "ddb_open: unknown sync mode %d", (int)o.sync);
    if (!o.map_size)
        o.map_size = (uint64_t)64 << 30;
    if (!o.partition_split_bytes)
        o.partition_split_bytes = (uint64_t)10 << 30;
    bool ro = o.read_only, created_dir = false, fresh = false;
    int rc = DDB_OK;
    if (ro)
        o.ttl_sweep_ms = 0; /* the sweeper writes */
    else if ((rc = make_dir(path, &created_dir, err)) || (rc = data_file_missing(path, &fresh, err)))
        return rc;

    ddbi_engine *db = calloc(1, sizeof *db);
    if (!db)
        return ddbi_fail_oom(err, "ddb_open");
    db->opts = o;
    db->hooks = hooks;
    pthread_mutex_init(&db->schema_mu, NULL);
    pthread_mutex_init(&db->gc_mu, NULL);
    pthread_mutex_init(&db->sync_mu, NULL);
    pthread_mutex_init(&db->damaged_mu, NULL);
    pthread_cond_init(&db->gc_cv, NULL);

    unsigned flags = MDB_NOTLS | MDB_NORDAHEAD;
    /* FULL too: a commit syncs the data pages and writes the meta page
     * without syncing it, and ddbi_run_write makes the meta page durable
     * before it returns, by a later commit's sync or by its own (so that
     * under load a batch costs one sync, not two). */
    if (!ro && (o.sync == DDB_SYNC_LAZY || o.sync == DDB_SYNC_FULL))
        flags |= MDB_NOMETASYNC;
    else if (!ro && o.sync == DDB_SYNC_NONE)
        flags |= MDB_NOSYNC; /* not MDB_WRITEMAP: writes through the map into a
                              * sparse file die of SIGBUS when the disk is full */
    MDB_txn *txn = NULL;
    /* a commit log left by a writer that did not close: its checkpoint's
     * meta pages are written back before LMDB reads them (clog.c) */
    if ((rc = ddbi_clog_prepare(db, path, err)))
        goto fail;
    if ((rc = ddbi_file_check_length(path, err))) /* a truncated file is refused (stored.c) */
        goto fail;
    if (ro)
        rc = env_open_ro(db, path, flags, err);
    else if ((rc = env_open(db, path, flags)))
        rc = ddbi_mdb_fail(err, rc, "ddb_open");
    if (rc)
        goto fail;
    ddbi_file_map_locate(db); /* bounds every value read from the map (stored.c) */
    if ((rc = ddbi_clog_recover(db, err)))
        goto fail;
    if ((rc = mdb_txn_begin(db->env, NULL, ro ? MDB_RDONLY : 0, &txn)) ||
        (rc = ddbi_kv_dbi_open(db, txn, "meta", ro ? 0 : MDB_CREATE, &db->meta))) {
        rc = ddbi_mdb_fail(err, rc, "ddb_open: meta");
        goto fail;
    }
    if (hooks && hooks->open_txn && (rc = hooks->open_txn(db, txn, err)))
        goto fail;
    if ((rc = ddbi_tables_load(db, txn, err)))
        goto fail;
    rc = mdb_txn_commit(txn);
    txn = NULL;
    if (rc) {
        rc = ddbi_mdb_fail(err, rc, "ddb_open: commit");
        goto fail;
    }
    if (fresh && (rc = ddbi_sync_created(db, path, created_dir, err)))
        goto fail;
    if ((rc = ddbi_clog_opened(db, err)))
        goto fail;
    if (hooks && hooks->opened && (rc = hooks->opened(db, err)))
        goto fail;
    *out = db;
    return DDB_OK;
fail:
    if (txn)
        mdb_txn_abort(txn);
    ddbi_engine_close(db);
    return rc;
}

void ddbi_engine_close(void *impl)
{
    ddbi_engine *db = impl;
    if (!db)
        return;
    if (db->hooks && db->hooks->close)
        db->hooks->close(db); /* first: the room above may still write */
    ddbi_clog_close(db);       /* then the commit log retires (it may sync) */
    for (size_t i = 0; i < DDB_RTXN_POOL; i++) {
        MDB_txn *txn = atomic_exchange(&db->rtxn_pool[i], NULL);
        if (txn)
            mdb_txn_abort(txn);
    }
    if (db->env)
        mdb_env_close(db->env);
    ddbi_tables_free(atomic_load(&db->tables));
    for (ddb_table_rt *l = db->retired, *n; l; l = n) {
        n = l->retired_next;
        ddbi_tables_free(l);
    }
    ddb_arena_free(db->wscratch);
    ddbi_buf_free(&db->wbuf);
    pthread_mutex_destroy(&db->schema_mu);
    pthread_mutex_destroy(&db->gc_mu);
    pthread_mutex_destroy(&db->sync_mu);
    pthread_mutex_destroy(&db->damaged_mu);
    pthread_cond_destroy(&db->gc_cv);
    free(db);
}
