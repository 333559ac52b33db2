/* engine/: transactions: read transactions (and the pool of
 * reset ones), the commit path (group commit), ddb_sync.  Opening and
 * closing are open.c; LMDB errors and storage failures durable.c.  May
 * call core/. */
#include "engine/engine.h"
#include "core/error.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

struct ddb_gc_op {
    ddb_write_fn fn;
    void *ctx;
    int rc;
    bool done;
    ddb_gc_op *next;
    uint64_t seq; /* DDB_SYNC_FULL: the batch that committed it, once it has */
    bool unknown; /* its transaction was written (meta page included) when a sync failed: on disk or not */
};

/* Everything committed so far made durable (sync_mu held): with a commit
 * log its sync (recovery replays the log, not LMDB's newest meta page),
 * else LMDB's.  0 or an errno. */
static int durable_sync(ddbi_engine *db)
{
    return db->clog ? ddbi_clog_sync(db) : mdb_env_sync(db->env, 1);
}

int ddbi_engine_sync(void *impl, ddb_error *err)
{
    ddbi_engine *db = impl;
    if (db->opts.read_only)
        return DDB_OK; /* nothing was written */
    int rc = ddbi_refuse_poisoned(db, err);
    if (rc)
        return rc;
    pthread_mutex_lock(&db->sync_mu);
    rc = durable_sync(db);
    if (rc)
        rc = ddbi_poison(db, rc);
    pthread_mutex_unlock(&db->sync_mu);
    return rc ? ddbi_mdb_fail(err, rc, "ddb_sync") : DDB_OK;
}

int ddbi_read_begin(ddbi_engine *db, MDB_txn **txn, ddb_error *err)
{
    int rc = mdb_txn_begin(db->env, NULL, MDB_RDONLY, txn);
    return rc ? ddbi_mdb_fail(err, rc, "read transaction") : DDB_OK;
}

void ddbi_read_end(MDB_txn *txn)
{
    /* commit, not abort: keeps any database handle the read opened */
    if (txn)
        mdb_txn_commit(txn);
}

/* Where a thread starts looking in the pool: threads spread over the
 * slots, so each tends to find the transaction it returned. */
static size_t pool_start(void)
{
    uintptr_t t = (uintptr_t)pthread_self();
    return (size_t)((t >> 12) ^ (t >> 20)) % DDB_RTXN_POOL;
}

int ddbi_rtxn_acquire(ddbi_engine *db, MDB_txn **txn, uint64_t *ticket, ddb_error *err)
{
    *ticket = atomic_load_explicit(&db->dbi_opens, memory_order_acquire);
    size_t s = pool_start();
    for (size_t i = 0; i < DDB_RTXN_POOL; i++) {
        _Atomic(MDB_txn *) *slot = &db->rtxn_pool[(s + i) % DDB_RTXN_POOL];
        if (!atomic_load_explicit(slot, memory_order_relaxed))
            continue;
        MDB_txn *t = atomic_exchange_explicit(slot, NULL, memory_order_acquire);
        if (!t)
            continue;
        if (mdb_txn_renew(t) == 0) {
            *txn = t;
            return DDB_OK;
        }
        mdb_txn_abort(t);
        break;
    }
    return ddbi_read_begin(db, txn, err);
}

void ddbi_rtxn_release(ddbi_engine *db, MDB_txn *txn, uint64_t ticket)
{
    if (!txn)
        return;
    /* A transaction that may have opened database handles (a table cache
     * reload ran meanwhile) must commit to keep them; resetting would close
     * them. */
    if (atomic_load_explicit(&db->dbi_opens, memory_order_acquire) != ticket) {
        mdb_txn_commit(txn);
        return;
    }
    mdb_txn_reset(txn);
    size_t s = pool_start();
    for (size_t i = 0; i < DDB_RTXN_POOL; i++) {
        MDB_txn *expect = NULL;
        if (atomic_compare_exchange_strong_explicit(&db->rtxn_pool[(s + i) % DDB_RTXN_POOL], &expect, txn,
                                                    memory_order_release, memory_order_relaxed))
            return;
    }
    mdb_txn_abort(txn); /* pool full */
}

/* Run one write fn: the handle's record buffer (db->wbuf, where
 * ddbi_write_prepare encodes new items) is its own while it runs. */
static int call_write(ddbi_engine *db, ddb_write_fn fn, MDB_txn *txn, void *ctx)
{
    db->wbuf.len = 0;
    int rc = fn(db, txn, ctx);
    if (db->wbuf.cap > 65536)
        ddbi_buf_free(&db->wbuf); /* do not keep a big item's buffer */
    return rc;
}

/* Is the newest meta page transaction txnid's?  After a commit that
 * succeeded: it wrote a meta page, having synced the data file before it
 * (MDB_NOMETASYNC), which put every earlier meta page on disk (an empty
 * transaction commits without writing or syncing anything).  After a
 * commit that failed: LMDB got as far as writing the meta page, so the
 * transaction is in the file and may reach the disk. */
static bool meta_written(ddbi_engine *db, size_t txnid)
{
    MDB_envinfo info;
    return mdb_env_info(db->env, &info) == 0 && info.me_last_txnid == txnid;
}

/* A write whose transaction was written, meta page included, when a sync
 * failed (cause): the kernel may or may not have put it on disk, so it may
 * or may not be applied after a restart or a power loss.  DynamoDB's
 * InternalServerError says the same of a write; the caller reads the item
 * back, or retries idempotently. */
static int unknown_outcome(int cause, ddb_error *err)
{
    return ddbi_fail(err, DDB_EUNKNOWN,
                     "commit: the outcome of this commit is unknown: it was written, then a sync failed (%s), so it "
                     "may or may not be on disk. Reopen the database, then read the item back or retry the write "
                     "idempotently (the same ClientRequestToken, or a condition a retry fails)",
                     mdb_strerror(cause));
}

/* A top-level write transaction: begun, and with a commit log its record
 * started (a checkpoint first when one is due; its failure is a storage
 * failure, the caller poisons the handle).  LMDB codes or an errno. */
static int write_begin(ddbi_engine *db, MDB_txn **txn)
{
    int rc = mdb_txn_begin(db->env, NULL, 0, txn);
    if (rc)
        return rc;
    if (db->clog && (rc = ddbi_clog_begin(db, *txn))) {
        mdb_txn_abort(*txn);
        *txn = NULL;
    }
    return rc;
}

/* Commit txn (sync_mu held); sync: durable before this returns (with a
 * commit log the log's sync, else the meta page's after the commit synced
 * the data, MDB_NOMETASYNC).  *written: the transaction reached the files,
 * so that a storage failure leaves its outcome unknown: its meta page was
 * written, or its record was appended to the commit log (a recovery
 * replays it).  0, an LMDB code or an errno. */
static int commit_txn(ddbi_engine *db, MDB_txn *txn, bool sync, bool *written)
{
    size_t txnid = mdb_txn_id(txn);
    bool appended = false;
    int rc = db->clog ? ddbi_clog_append(db, txn, &appended) : 0;
    if (rc) {
        mdb_txn_abort(txn); /* a torn record fails its CRC: never replayed */
        *written = false;
        return rc;
    }
    rc = mdb_txn_commit(txn);
    /* not "!rc": a commit that changed nothing writes no meta page and
     * syncs nothing, so it makes no earlier batch durable (run_batch) */
    *written = meta_written(db, txnid) || (appended && ddbi_storage_failure(rc));
    if (rc && appended && !*written)
        ddbi_clog_unappend(db); /* refused before anything was written: not applied */
    if (!rc && db->clog && !appended && meta_written(db, txnid))
        rc = EIO; /* a change that bypassed the log (a bug): the log cannot restore it */
    if (!rc && sync)
        rc = db->clog ? (appended ? ddbi_clog_sync(db) : 0) : mdb_env_sync(db->env, 1);
    return rc;
}

/* One write in its own transaction. */
static int run_solo(ddbi_engine *db, ddb_write_fn fn, void *ctx, ddb_error *err)
{
    MDB_txn *txn;
    int rc = write_begin(db, &txn);
    if (rc) {
        if (ddbi_storage_failure(rc))
            rc = ddbi_poison(db, rc);
        return ddbi_mdb_fail(err, rc, "write transaction");
    }
    rc = call_write(db, fn, txn, ctx);
    if (rc) {
        mdb_txn_abort(txn);
        return rc;
    }
    bool written;
    pthread_mutex_lock(&db->sync_mu);
    rc = commit_txn(db, txn, db->opts.sync == DDB_SYNC_FULL, &written);
    bool storage = ddbi_storage_failure(rc);
    if (storage)
        rc = ddbi_poison(db, rc);
    pthread_mutex_unlock(&db->sync_mu);
    if (storage && written)
        return unknown_outcome(rc, err);
    return rc ? ddbi_mdb_fail(err, rc, "commit") : DDB_OK;
}

#define GC_BATCH_MAX 64 /* writes per batch, late joiners included */
/* ddb_gc_op.rc of a write refused because the handle is poisoned (the
 * message comes from ddbi_refuse_poisoned) */
#define GC_REFUSED INT_MIN

/* Writes queued while the leader ran its batch join it before it commits:
 * they were going to wait for the next batch's sync anyway.  Appends up
 * to room of them after *tail; returns the first, NULL when none. */
static ddb_gc_op *take_joiners(ddbi_engine *db, ddb_gc_op **tail, size_t room)
{
    ddb_gc_op *first = NULL;
    pthread_mutex_lock(&db->gc_mu);
    for (; room && db->gc_head; room--) {
        ddb_gc_op *op = db->gc_head;
        db->gc_head = op->next;
        if (!db->gc_head)
            db->gc_tail = NULL;
        op->next = NULL;
        (*tail)->next = op;
        *tail = op;
        if (!first)
            first = op;
    }
    pthread_mutex_unlock(&db->gc_mu);
    return first;
}

/* What a batch's commit made durable (DDB_SYNC_FULL). */
typedef enum gc_durable { GC_NOTHING, GC_EARLIER, GC_THIS_BATCH } gc_durable;

/* Leader: run the queued writes (and late joiners), each in a nested
 * transaction of one parent, then commit (and sync the data, or with a
 * commit log in FULL the log) once.  A write failing rolls back only
 * itself.  Returns what the commit made durable: without a commit log,
 * its sync of the data file made the earlier batches' meta pages durable
 * (see meta_written); with one, its sync of the log this batch. */
static gc_durable run_batch(ddbi_engine *db, ddb_gc_op *batch)
{
    if (atomic_load(&db->poisoned)) {
        for (ddb_gc_op *o = batch; o; o = o->next)
            o->rc = GC_REFUSED;
        return GC_NOTHING;
    }
    MDB_txn *txn = NULL;
    size_t n = 0;
    bool kept = false; /* txn holds a write that succeeded */
    ddb_gc_op *op = batch, *tail = batch;
    for (ddb_gc_op *o = batch; o; o = o->next, n++)
        tail = o;
    for (;;) {
        for (; op; op = op->next) {
            if (!txn) {
                int rc = write_begin(db, &txn);
                if (rc) {
                    op->rc = ddbi_storage_failure(rc) ? ddbi_poison(db, rc) : rc;
                    txn = NULL;
                    continue;
                }
            }
            if (!kept && !op->next) {
                /* alone in an empty transaction: no nested transaction is
                 * needed, aborting the parent rolls back exactly this write */
                op->rc = call_write(db, op->fn, txn, op->ctx);
                if (op->rc) {
                    mdb_txn_abort(txn);
                    txn = NULL;
                } else {
                    kept = true;
                }
                continue;
            }
            MDB_txn *child;
            int crc = mdb_txn_begin(db->env, txn, 0, &child);
            if (crc) {
                op->rc = crc;
                continue;
            }
            size_t mark = ddbi_clog_mark(db);
            op->rc = call_write(db, op->fn, child, op->ctx);
            if (op->rc == DDB_OK) {
                crc = mdb_txn_commit(child);
                if (crc)
                    op->rc = crc;
                else
                    kept = true;
            } else {
                mdb_txn_abort(child);
            }
            if (op->rc != DDB_OK)
                ddbi_clog_rollback(db, mark);
        }
        if (n >= GC_BATCH_MAX || !(op = take_joiners(db, &tail, GC_BATCH_MAX - n)))
            break;
        for (ddb_gc_op *o = op; o; o = o->next)
            n++;
    }
    if (!txn)
        return GC_NOTHING;
    if (!kept) {
        mdb_txn_abort(txn); /* every write failed: nothing to commit */
        return GC_NOTHING;
    }
    /* sync_mu: a sync that succeeds while (or after) another one failed
     * proves nothing, the kernel may have dropped the pages that one could
     * not write; syncs run one at a time and the poison is set before the
     * next one starts */
    pthread_mutex_lock(&db->sync_mu);
    bool logged_sync = db->clog && db->opts.sync == DDB_SYNC_FULL, written;
    int rc = commit_txn(db, txn, logged_sync, &written);
    bool storage = ddbi_storage_failure(rc);
    if (storage)
        rc = ddbi_poison(db, rc);
    /* with the log, every earlier batch synced its own record and this
     * one's was synced by commit_txn (or it had none to sync) */
    bool synced = rc == 0 && !atomic_load(&db->poisoned) && (written || logged_sync);
    pthread_mutex_unlock(&db->sync_mu);
    if (rc)
        for (ddb_gc_op *o = batch; o; o = o->next)
            if (o->rc == DDB_OK) {
                o->rc = rc;
                o->unknown = storage && written;
            }
    return !synced ? GC_NOTHING : logged_sync ? GC_THIS_BATCH : GC_EARLIER;
}

int ddbi_run_write(ddbi_engine *db, ddb_write_fn fn, void *ctx, bool exclusive, ddb_error *err)
{
    if (db->opts.read_only)
        return ddbi_fail(err, DDB_EINVAL, "the database is open read-only");
    int prc = ddbi_refuse_poisoned(db, err);
    if (!prc)
        prc = ddbi_refuse_damaged(db, err);
    if (prc)
        return prc;
    if (exclusive || db->opts.sync == DDB_SYNC_NONE)
        return run_solo(db, fn, ctx, err);

    /* Group commit.  Queued writes run as one batch (one transaction) led by
     * one of their threads.  LAZY: a write is done once its batch commits.
     * FULL: once its batch is durable too, that is once a later commit has
     * synced the file (the next batch's, typically already running) or,
     * when no batch follows, once a waiter has called mdb_env_sync.  After
     * a failed sync or commit (the handle is poisoned), a committed write
     * that is not durable yet fails: its pages may never reach the disk. */
    bool full = db->opts.sync == DDB_SYNC_FULL;
    ddb_gc_op me = {fn, ctx, 0, false, NULL, 0, false};
    pthread_mutex_lock(&db->gc_mu);
    if (db->gc_tail)
        db->gc_tail->next = &me;
    else
        db->gc_head = &me;
    db->gc_tail = &me;
    for (;;) {
        if (me.seq && me.seq <= db->gc_durable)
            me.done = true;
        else if (me.seq && atomic_load(&db->poisoned)) {
            me.rc = GC_REFUSED; /* committed, and a sync failed before it was durable */
            me.unknown = me.done = true;
        }
        if (me.done)
            break;
        if (db->gc_head && !db->gc_leader) {
            /* become the leader: take the whole queue as one batch */
            db->gc_leader = true;
            ddb_gc_op *batch = db->gc_head;
            db->gc_head = db->gc_tail = NULL;
            pthread_mutex_unlock(&db->gc_mu);
            gc_durable synced = run_batch(db, batch);
            pthread_mutex_lock(&db->gc_mu);
            uint64_t seq = ++db->gc_committed;
            uint64_t upto = synced == GC_THIS_BATCH ? seq : synced == GC_EARLIER ? seq - 1 : 0;
            if (upto > db->gc_durable)
                db->gc_durable = upto;
            for (ddb_gc_op *op = batch, *next; op; op = next) {
                next = op->next;
                if (full && op->rc == DDB_OK)
                    op->seq = seq; /* committed; done when durable */
                else
                    op->done = true; /* LAZY, or failed: nothing to wait for */
            }
            db->gc_leader = false;
            pthread_cond_broadcast(&db->gc_cv);
        } else if (me.seq && !db->gc_leader && !db->gc_head && !db->gc_syncing) {
            /* committed, and no batch will come to sync it: sync now */
            db->gc_syncing = true;
            uint64_t upto = db->gc_committed;
            pthread_mutex_unlock(&db->gc_mu);
            pthread_mutex_lock(&db->sync_mu);
            int rc = durable_sync(db);
            if (rc)
                rc = ddbi_poison(db, rc);
            bool synced = rc == 0 && !atomic_load(&db->poisoned);
            pthread_mutex_unlock(&db->sync_mu);
            pthread_mutex_lock(&db->gc_mu);
            db->gc_syncing = false;
            if (synced && upto > db->gc_durable)
                db->gc_durable = upto;
            else if (rc) {
                me.rc = rc; /* committed, its sync failed */
                me.unknown = me.done = true;
            }
            pthread_cond_broadcast(&db->gc_cv);
        } else {
            pthread_cond_wait(&db->gc_cv, &db->gc_mu);
        }
    }
    pthread_mutex_unlock(&db->gc_mu);
    if (me.unknown)
        return unknown_outcome(me.rc == GC_REFUSED ? atomic_load(&db->poisoned) : me.rc, err);
    if (me.rc == GC_REFUSED)
        return ddbi_refuse_poisoned(db, err);
    /* errors from fn filled err already; an LMDB code did not */
    if (me.rc > 0 || (me.rc < 0 && (me.rc < DDB_ELAST || me.rc > DDB_EINVAL)))
        return ddbi_mdb_fail(err, me.rc, "commit");
    return me.rc;
}
