/* streams/: The capacity ledger: consumed read and write units per partition since
 * the table was created, accumulated across handles and processes.  The
 * engine counts consumption in memory per handle (ddb_part_rt); a handle
 * adds what it consumed since its last flush to "c/<table>/<be64 bound>"
 * when it closes and on every sweep.  A crash loses the unflushed part:
 * these are statistics, not billing.  The per-second timelines
 * (engine/timeline.c) are stored in the same transaction.
 * May call engine/, expr/ and core/. */
#include "core/error.h"
#include "streams/streams.h"

#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

static size_t ledger_key(char *buf, const char *table, uint64_t bound)
{
    size_t n = (size_t)snprintf(buf, 300, "c/%s/", table);
    for (int i = 7; i >= 0; i--, bound >>= 8)
        buf[n + (size_t)i] = (char)(uint8_t)bound;
    return n + 8;
}

static ddb_ledger_base *base_find(ddb_stream_rt *s, const char *table, uint64_t bound)
{
    for (size_t i = 0; i < s->n_base; i++)
        if (s->base[i].bound == bound && strcmp(s->base[i].table, table) == 0)
            return &s->base[i];
    return NULL;
}

static void ledger_get(ddbi_engine *db, MDB_txn *txn, const char *table, uint64_t bound, double v[2])
{
    char key[300];
    MDB_val k = {ledger_key(key, table, bound), key}, d;
    v[0] = v[1] = 0;
    if (mdb_get(txn, db->meta, &k, &d) == 0 && d.mv_size == 2 * sizeof(double))
        memcpy(v, d.mv_data, 2 * sizeof(double));
    /* totals of consumed units are finite and not negative: a damaged file's
     * (NaN, infinite, negative) would poison every later sum, so the
     * partition's total starts again from 0 */
    if (!isfinite(v[0]) || !isfinite(v[1]) || v[0] < 0 || v[1] < 0)
        v[0] = v[1] = 0;
}

/* One partition's consumption not yet in the ledger. */
typedef struct delta {
    char table[256];
    uint64_t bound;
    double cur_r, cur_w; /* the in-memory counters now */
    double dr, dw;       /* minus what was flushed */
} delta;

typedef struct flush_ctx {
    delta *d;
    size_t n;
    const ddbi_tl_capture *tl; /* the per-second timelines (engine/timeline.c) */
    ddb_error *err;
} flush_ctx;

static int flush_fn(ddbi_engine *db, MDB_txn *txn, void *vctx)
{
    flush_ctx *cx = vctx;
    for (size_t i = 0; i < cx->n; i++) {
        double v[2];
        ledger_get(db, txn, cx->d[i].table, cx->d[i].bound, v);
        v[0] += cx->d[i].dr;
        v[1] += cx->d[i].dw;
        char key[300];
        MDB_val k = {ledger_key(key, cx->d[i].table, cx->d[i].bound), key}, d = {sizeof v, v};
        int rc = ddbi_kv_put(db, txn, db->meta, &k, &d, 0);
        if (rc)
            return ddbi_mdb_fail(cx->err, rc, "capacity ledger");
    }
    return ddbi_timeline_store(db, txn, cx->tl, cx->err);
}

int ddbi_ledger_flush(ddbi_engine *db, ddb_error *err)
{
    ddb_stream_rt *s = ddbi_streams_of(db);
    /* housekeeping of no table is not written into a file known to be
     * damaged: the corruption fuzzer saw LMDB overflow a page flushing it */
    if (!s || ddbi_engine_any_damage(db))
        return DDB_OK;
    pthread_mutex_lock(&s->ledger_mu);
    size_t cap = 0, n = 0;
    delta *d = NULL;
    int rc = DDB_OK;
    /* a published table list never changes, and lists are freed at close */
    for (ddb_table_rt *t = atomic_load_explicit(&db->tables, memory_order_acquire); t && !rc; t = t->next) {
        for (size_t i = 0; i < t->n_parts; i++) {
            double r = atomic_load_explicit(&t->parts[i].rcu, memory_order_relaxed);
            double w = atomic_load_explicit(&t->parts[i].wcu, memory_order_relaxed);
            ddb_ledger_base *b = base_find(s, t->name, t->bounds[i]);
            double br = b && b->r <= r ? b->r : 0, bw = b && b->w <= w ? b->w : 0;
            if (r - br <= 0 && w - bw <= 0)
                continue;
            if (n == cap) {
                size_t nc = cap ? 2 * cap : 16;
                delta *nd = realloc(d, nc * sizeof *nd);
                if (!nd) {
                    rc = ddbi_fail_oom(err, __func__);
                    break;
                }
                d = nd;
                cap = nc;
            }
            d[n] = (delta){.bound = t->bounds[i], .cur_r = r, .cur_w = w, .dr = r - br, .dw = w - bw};
            snprintf(d[n].table, sizeof d[n].table, "%s", t->name);
            n++;
        }
    }
    ddbi_tl_capture *tl = NULL;
    if (!rc)
        rc = ddbi_timeline_capture(db, &tl, err);
    if (!rc && (n || tl)) {
        flush_ctx cx = {d, n, tl, err};
        rc = ddbi_run_write(db, flush_fn, &cx, false, err);
    }
    ddbi_timeline_done(tl, rc == DDB_OK);
    /* only what was committed becomes the baseline */
    for (size_t i = 0; !rc && i < n; i++) {
        ddb_ledger_base *b = base_find(s, d[i].table, d[i].bound);
        if (!b) {
            if (s->n_base == s->cap_base) {
                size_t nc = s->cap_base ? 2 * s->cap_base : 16;
                ddb_ledger_base *nb = realloc(s->base, nc * sizeof *nb);
                if (!nb) {
                    rc = ddbi_fail_oom(err, __func__);
                    break;
                }
                s->base = nb;
                s->cap_base = nc;
            }
            b = &s->base[s->n_base++];
            memcpy(b->table, d[i].table, sizeof b->table);
            b->bound = d[i].bound;
        }
        b->r = d[i].cur_r;
        b->w = d[i].cur_w;
    }
    pthread_mutex_unlock(&s->ledger_mu);
    free(d);
    return rc;
}

void ddbi_ledger_totals(ddbi_engine *db, MDB_txn *txn, const char *table, uint64_t bound, double cur_r, double cur_w,
                       double *r, double *w)
{
    double v[2];
    ledger_get(db, txn, table, bound, v);
    double br = 0, bw = 0;
    ddb_stream_rt *s = ddbi_streams_of(db);
    if (s) {
        pthread_mutex_lock(&s->ledger_mu);
        ddb_ledger_base *b = base_find(s, table, bound);
        if (b) {
            br = b->r <= cur_r ? b->r : 0;
            bw = b->w <= cur_w ? b->w : 0;
        }
        pthread_mutex_unlock(&s->ledger_mu);
    }
    *r = v[0] + cur_r - br;
    *w = v[1] + cur_w - bw;
}

int ddbi_ledger_drop(ddbi_engine *db, MDB_txn *txn, const char *table)
{
    char key[300];
    size_t n = ledger_key(key, table, 0) - 8;
    int rc = ddbi_del_prefix(db, txn, db->meta, key, n);
    if (!rc)
        rc = ddbi_del_prefix(db, txn, db->meta, key, ddbi_timeline_key(key, table, 0) - 8); /* engine/timeline.c */
    return rc;
}
