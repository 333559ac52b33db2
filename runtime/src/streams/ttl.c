/* streams/: the TTL sweep that deletes expired items (each deletion a
 * REMOVE stream record made by the service, as DynamoDB's TTL writes
 * them).  Expiry itself and the clock are the engine's (engine/expiry.c).
 * May call engine/, expr/, core/. */
#include "core/codec.h"
#include "core/error.h"
#include "engine/keys.h"
#include "engine/stored.h"
#include "streams/streams.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SWEEP_WALK 1000  /* items examined per read transaction */
#define SWEEP_BATCH 100  /* deletions per write transaction */

/* ---- the sweep ---- */

typedef struct sweep_ctx {
    const char *table;
    int64_t now_ms;
    ddb_item *keys[SWEEP_BATCH];
    size_t n;
    uint64_t deleted;
    ddb_arena *tmp;
    ddb_error *err;
} sweep_ctx;

/* Delete the collected keys whose items are still expired. */
static int sweep_fn(ddbi_engine *db, MDB_txn *txn, void *vctx)
{
    sweep_ctx *cx = vctx;
    int rc = DDB_OK;
    uint64_t deleted = 0;
    ddbi_streams_of(db)->ttl_writing = true; /* the stream records name the service */
    for (size_t i = 0; i < cx->n && !rc; i++) {
        ddb_wreq r = {.kind = DDB_TX_DELETE, .table = cx->table, .item = cx->keys[i]};
        ddb_wstate st;
        ddb_capacity cap;
        memset(&cap, 0, sizeof cap);
        if ((rc = ddbi_write_prepare(db, txn, &r, &st, cx->tmp, cx->err)))
            break;
        /* written again since it was found: not expired any more */
        if (st.old && ddbi_ttl_expired_at(st.t, st.old, cx->now_ms)) {
            /* factor 0: TTL deletions consume no write capacity */
            if (!(rc = ddbi_write_apply(db, txn, &r, &st, 0.0, false, &cap, DDB_CAPACITY_NONE, cx->err)))
                deleted++;
        }
    }
    ddbi_streams_of(db)->ttl_writing = false;
    if (!rc)
        cx->deleted += deleted;
    return rc;
}

/* Copy of the table key attributes of it, in a. */
static ddb_item *key_copy(ddb_arena *a, const ddb_table_rt *t, const ddb_item *it)
{
    ddb_item *k = ddb_item_new(a);
    const char *names[2] = {t->pk, t->sk};
    for (int i = 0; k && i < 2 && names[i]; i++) {
        const ddb_value *v = ddb_item_get(it, names[i]);
        if (!v || ddb_item_set(k, names[i], ddb_value_copy(a, v)))
            return NULL;
    }
    return k;
}

static int sweep_table(ddbi_engine *db, const char *table, int64_t now_ms, uint64_t *deleted, ddb_error *err)
{
    ddb_arena *keys = ddb_arena_new(), *scan = ddb_arena_new(), *tmp = ddb_arena_new();
    uint8_t resume[DDB_KEY_MAX];
    size_t resume_len = 0;
    bool done = false;
    int rc = keys && scan && tmp ? DDB_OK : ddbi_fail_oom(err, __func__);
    sweep_ctx cx = {table, now_ms, {0}, 0, 0, tmp, err};
    while (!rc && !done) {
        MDB_txn *txn;
        ddb_table_rt *t;
        if ((rc = ddbi_read_begin(db, &txn, err)))
            break;
        if ((rc = ddbi_table_get(db, txn, table, &t, err)) || !t->ttl_attr[0]) {
            ddbi_read_end(txn);
            break;
        }
        MDB_cursor *c = NULL;
        int g = mdb_cursor_open(txn, t->items, &c);
        MDB_val k = {resume_len, resume}, v;
        if (!g)
            g = resume_len ? mdb_cursor_get(c, &k, &v, MDB_SET_RANGE) : mdb_cursor_get(c, &k, &v, MDB_FIRST);
        if (!g && resume_len && k.mv_size == resume_len && memcmp(k.mv_data, resume, resume_len) == 0)
            g = mdb_cursor_get(c, &k, &v, MDB_NEXT);
        size_t walked = 0;
        cx.n = 0;
        while (g == 0 && walked < SWEEP_WALK && cx.n < SWEEP_BATCH) {
            ddb_item *it;
            walked++;
            /* keys must advance: a damaged page sending the cursor back
             * would make the sweep endless */
            MDB_val prev = {resume_len, resume};
            if ((rc = ddbi_stored_key_check(table, "an item key", &k, err)) ||
                (resume_len && ddbi_stored_cmp(&k, &prev) <= 0 &&
                 (rc = ddbi_fail_stored(err, table, k.mv_data, k.mv_size, "TTL sweep: the keys read do not advance"))))
                break;
            if ((rc = ddbi_stored_val_check(db, table, "TTL sweep: the stored item", &k, &v, err)))
                break;
            memcpy(resume, k.mv_data, k.mv_size);
            resume_len = k.mv_size;
            if (ddbi_decode_item(v.mv_data, v.mv_size, scan, &it) == DDB_OK && ddbi_ttl_expired_at(t, it, now_ms)) {
                if (!(cx.keys[cx.n] = key_copy(keys, t, it))) {
                    g = ENOMEM;
                    break;
                }
                cx.n++;
            }
            ddb_arena_reset(scan);
            g = mdb_cursor_get(c, &k, &v, MDB_NEXT);
        }
        if (!(g == 0 || g == MDB_NOTFOUND || g == ENOMEM))
            rc = ddbi_mdb_fail(err, g, "TTL sweep");
        else if (g == ENOMEM)
            rc = ddbi_fail_oom(err, __func__);
        done = g == MDB_NOTFOUND;
        if (c)
            mdb_cursor_close(c);
        ddbi_read_end(txn);
        if (!rc && cx.n)
            rc = ddbi_run_write(db, sweep_fn, &cx, false, err);
        ddb_arena_reset(keys);
        ddb_arena_reset(tmp);
    }
    ddb_arena_free(keys);
    ddb_arena_free(scan);
    ddb_arena_free(tmp);
    *deleted += cx.deleted;
    return rc;
}

int ddbi_streams_ttl_sweep(void *impl, const char *table, int64_t now_s, uint64_t *deleted, ddb_error *err)
{
    ddbi_engine *db = impl;
    int64_t now_ms = now_s ? now_s * 1000 : ddbi_engine_clock_ms(db);
    uint64_t n = 0;
    int rc = DDB_OK;
    if (table) {
        rc = sweep_table(db, table, now_ms, &n, err);
    } else {
        ddb_arena *a = ddb_arena_new();
        const char **names = NULL;
        size_t count = 0;
        rc = a ? ddbi_engine_list_tables(db, a, &names, &count, err) : ddbi_fail_oom(err, __func__);
        /* a table that fails (damaged, say) is that table's problem: the
         * others are swept; the first failure is returned, and a table
         * known damaged is left alone */
        ddb_error terr;
        for (size_t i = 0; rc != DDB_ENOMEM && i < count; i++) {
            if (ddbi_refuse_damaged_table(db, names[i], NULL))
                continue;
            int trc = sweep_table(db, names[i], now_ms, &n, rc ? &terr : err);
            if (trc == DDB_ECORRUPT)
                ddbi_engine_damaged(db, names[i], rc ? &terr : err);
            if (!rc && trc != DDB_ENOTABLE) /* ENOTABLE: deleted meanwhile */
                rc = trc;
        }
        ddb_arena_free(a);
    }
    if (deleted)
        *deleted = n;
    return rc;
}
