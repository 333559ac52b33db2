/* streams/: The handle's background work (ddb_options.ttl_sweep_ms): delete expired
 * items, trim streams past their retention period, record consumed
 * capacity in the ledger.  Started after ddb_open succeeded, stopped first
 * thing in ddb_close.
 * May call engine/, expr/ and core/. */
#include "core/error.h"
#include "streams/streams.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One pass; errors are left for the next pass (the handle is shared with
 * the application, which sees its own errors). */
static void pass(ddbi_engine *db)
{
    ddbi_streams_ttl_sweep(db, NULL, 0, NULL, NULL);
    ddb_arena *a = ddb_arena_new();
    const char **names = NULL;
    size_t n = 0;
    if (a && ddbi_engine_list_tables(db, a, &names, &n, NULL) == DDB_OK) {
        int64_t now = ddbi_engine_clock_ms(db);
        for (size_t i = 0; i < n; i++) {
            ddb_stream_desc d;
            if (ddbi_refuse_damaged_table(db, names[i], NULL) ||
                ddbi_streams_stream_describe(db, names[i], &d, NULL) || !d.records)
                continue;
            uint64_t ret = d.spec.retention_seconds ? d.spec.retention_seconds : DDB_STREAM_DEFAULT_RETENTION_S;
            if (d.oldest_ms < now - (int64_t)(ret * 1000u))
                ddbi_streams_stream_trim(db, names[i], NULL, NULL);
        }
    }
    ddb_arena_free(a);
    ddbi_ledger_flush(db, NULL);
}

static void *sweeper_main(void *arg)
{
    ddbi_engine *db = arg;
    ddb_stream_rt *s = ddbi_streams_of(db);
    uint32_t ms = db->opts.ttl_sweep_ms;
    pthread_mutex_lock(&s->mu);
    while (!s->stop) {
        struct timespec at;
        clock_gettime(CLOCK_MONOTONIC, &at);
        at.tv_sec += ms / 1000;
        at.tv_nsec += (long)(ms % 1000) * 1000000L;
        if (at.tv_nsec >= 1000000000L) {
            at.tv_sec++;
            at.tv_nsec -= 1000000000L;
        }
        int w = 0;
        while (!s->stop && w != ETIMEDOUT)
            w = pthread_cond_timedwait(&s->cv, &s->mu, &at);
        if (s->stop)
            break;
        pthread_mutex_unlock(&s->mu);
        pass(db);
        pthread_mutex_lock(&s->mu);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

int ddbi_stream_open(ddbi_engine *db, MDB_txn *txn, ddb_error *err)
{
    ddb_stream_rt *s = calloc(1, sizeof *s);
    if (!s)
        return ddbi_fail_oom(err, "ddb_open");
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&s->cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&s->mu, NULL);
    pthread_mutex_init(&s->ledger_mu, NULL);
    db->ext = s;
    int rc = ddbi_kv_dbi_open(db, txn, "streams", db->opts.read_only ? 0 : MDB_CREATE, &s->dbi);
    return rc ? ddbi_mdb_fail(err, rc, "ddb_open: streams") : DDB_OK;
}

int ddbi_stream_start(ddbi_engine *db, ddb_error *err)
{
    ddb_stream_rt *s = ddbi_streams_of(db);
    if (db->opts.ttl_sweep_ms) {
        int rc = pthread_create(&s->thread, NULL, sweeper_main, db);
        if (rc)
            return ddbi_fail(err, DDB_ENOMEM, "ddb_open: cannot start the TTL sweep thread: %s", strerror(rc));
        s->thread_on = true;
    }
    return DDB_OK;
}

void ddbi_stream_close(ddbi_engine *db)
{
    ddb_stream_rt *s = ddbi_streams_of(db);
    if (!s)
        return;
    if (s->thread_on) {
        pthread_mutex_lock(&s->mu);
        s->stop = true;
        pthread_cond_signal(&s->cv);
        pthread_mutex_unlock(&s->mu);
        pthread_join(s->thread, NULL);
    }
    if (db->env && !db->opts.read_only)
        ddbi_ledger_flush(db, NULL);
    db->ext = NULL;
    pthread_mutex_destroy(&s->mu);
    pthread_mutex_destroy(&s->ledger_mu);
    pthread_cond_destroy(&s->cv);
    free(s->base);
    free(s);
}
