/* Entity room: one typed write as a one-operation transaction
 * (ddbi_ent_single): built on a per-thread arena that is reset between
 * calls, rebuilt when an id counter raced, run and accounted.  Calls this
 * room's transactions. */
#include "entity/tx/entity_tx.h"

#include "core/error.h"

#include <pthread.h>
#include <string.h>

/* The most times a single call is rebuilt when an id counter raced. */
#define COUNTER_ATTEMPTS 8

/* The memory of single calls: one arena per thread, reset between calls,
 * so that a write allocates nothing once its thread has made one (freed
 * when the thread exits).  A call made while the thread's arena is in use
 * takes one of its own. */
static pthread_key_t call_arena_key;
static pthread_once_t call_arena_once = PTHREAD_ONCE_INIT;
static _Thread_local bool call_arena_busy;

static void call_arena_free(void *a)
{
    ddb_arena_free(a);
}

static void call_arena_init(void)
{
    if (pthread_key_create(&call_arena_key, call_arena_free))
        call_arena_key = (pthread_key_t)-1;
}

static ddb_arena *call_arena(bool *shared)
{
    *shared = false;
    if (call_arena_busy || pthread_once(&call_arena_once, call_arena_init) ||
        call_arena_key == (pthread_key_t)-1)
        return ddb_arena_new();
    ddb_arena *a = pthread_getspecific(call_arena_key);
    if (!a && (!(a = ddb_arena_new()) || pthread_setspecific(call_arena_key, a))) {
        ddb_arena_free(a);
        return ddb_arena_new();
    }
    *shared = call_arena_busy = true;
    return a;
}

static void call_arena_done(ddb_arena *a, bool shared)
{
    if (shared) {
        ddb_arena_reset(a);
        call_arena_busy = false;
    } else
        ddb_arena_free(a);
}

int ddbi_ent_single(ddb *db, const ddb_ent_opts *o, ddb_capacity *cap, ddbi_ent_build_fn build, void *ctx,
                    ddb_error *err)
{
    if (cap)
        memset(cap, 0, sizeof *cap);
    bool shared;
    ddb_arena *a = call_arena(&shared);
    if (!a)
        return ddbi_fail_oom(err, __func__);
    int rc = DDBI_ECOUNTER;
    for (int attempt = 0; attempt < COUNTER_ATTEMPTS && rc == DDBI_ECOUNTER; attempt++) {
        ddb_arena_reset(a);
        ddb_ent_tx *tx = ddb_ent_tx_new(db, a, err);
        if (!tx)
            rc = DDB_ENOMEM;
        else if ((ddbi_ent_tx_ids_now(tx, ddbi_ent_cap_mode(o)), rc = build(tx, a, ctx, err)))
            ddbi_ent_tx_poison(tx), ddbi_ent_tx_run(tx, true, NULL, DDB_CAPACITY_NONE, NULL, NULL);
        else
            rc = ddbi_ent_tx_run(tx, true, NULL, ddbi_ent_cap_mode(o), cap, err);
    }
    if (rc == DDBI_ECOUNTER)
        rc = ddbi_fail(err, DDB_ECONDITION, "the id counter kept changing under %d attempts", COUNTER_ATTEMPTS);
    call_arena_done(a, shared);
    return rc;
}
