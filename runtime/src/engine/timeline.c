/* engine/: the per-second timeline of each partition's consumption.
 *
 * The timeline answers what totals hide: a burst.  Each handle counts the
 * units a partition consumed, and the calls throttle mode rejected, per
 * second of its clock in a ring of DDB_STATS_SECONDS buckets (memory is
 * bounded: the ring of a partition is part of its ddb_part_rt; its spin
 * lock is engine.h's ddbi_tl_lock).  With the capacity ledger
 * (streams/ledger.c: on close and every sweep) it adds what it has not
 * stored yet to the partition's stored ring "w/<table>/<be64 bound>"
 * (DDB_STATS_SECONDS records of {second, read, write, throttled}), so
 * `ddb stats` in another process sees the window of every handle.  A
 * bucket keeps one second: a later second takes it over, an earlier one
 * (out of the window) is dropped.  Statistics, not billing: a crash loses
 * the unstored part.  ddb_table_stats (stats.c) reads it.
 * May call core/ and the handle's clock (expiry.c). */
#include "engine/engine.h"
#include "core/error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A stored bucket (native byte order, like the ledger). */
typedef struct stored_second {
    int64_t second;
    float r, w;
    uint32_t th, pad;
} stored_second;

#define RING DDB_STATS_SECONDS
#define STORED_SIZE (RING * sizeof(stored_second))

void ddbi_timeline_add(ddb_part_rt *p, double rcu, double wcu, uint32_t throttled, int64_t now_ms)
{
    int64_t now = now_ms / 1000;
    if (now <= 0)
        return;
    ddbi_tl_bucket *b = &p->tl[now % RING];
    ddbi_tl_lock(p);
    if (b->second < now)
        *b = (ddbi_tl_bucket){.second = now};
    if (b->second == now) {
        b->r += rcu;
        b->w += wcu;
        b->th += throttled;
    }
    ddbi_tl_unlock(p);
}

size_t ddbi_timeline_key(char *buf, const char *table, uint64_t bound)
{
    size_t n = (size_t)snprintf(buf, 300, "w/%s/", table);
    for (int i = 7; i >= 0; i--, bound >>= 8)
        buf[n + (size_t)i] = (char)(uint8_t)bound;
    return n + 8;
}

/* The stored ring of a partition; all empty when absent or malformed (a
 * damaged record is not trusted: its buckets would poison every sum). */
static void stored_get(ddbi_engine *db, MDB_txn *txn, const char *table, uint64_t bound, stored_second *ring)
{
    char key[300];
    MDB_val k = {ddbi_timeline_key(key, table, bound), key}, d;
    memset(ring, 0, STORED_SIZE);
    if (mdb_get(txn, db->meta, &k, &d) != 0 || d.mv_size != STORED_SIZE)
        return;
    memcpy(ring, d.mv_data, STORED_SIZE);
    for (size_t i = 0; i < RING; i++) {
        stored_second *s = &ring[i];
        if (s->second < 0 || s->second % RING != (int64_t)i || !isfinite(s->r) || !isfinite(s->w) || s->r < 0 ||
            s->w < 0)
            memset(s, 0, sizeof *s);
    }
}

/* ---- storing ---- */

typedef struct tl_delta {
    ddb_part_rt *p;
    const char *table; /* the table list lives until close */
    uint64_t bound;
    ddbi_tl_bucket now; /* the bucket when captured */
} tl_delta;

struct ddbi_tl_capture {
    tl_delta *d;
    size_t n, cap;
};

int ddbi_timeline_capture(ddbi_engine *db, ddbi_tl_capture **out, ddb_error *err)
{
    *out = NULL;
    ddbi_tl_capture *c = calloc(1, sizeof *c);
    if (!c)
        return ddbi_fail_oom(err, __func__);
    for (ddb_table_rt *t = atomic_load_explicit(&db->tables, memory_order_acquire); t; t = t->next) {
        for (size_t i = 0; i < t->n_parts; i++) {
            ddb_part_rt *p = &t->parts[i];
            for (size_t j = 0; j < RING; j++) {
                ddbi_tl_lock(p);
                ddbi_tl_bucket b = p->tl[j];
                ddbi_tl_unlock(p);
                if (!b.second || (b.r <= b.fr && b.w <= b.fw && b.th <= b.fth))
                    continue;
                if (c->n == c->cap) {
                    size_t nc = c->cap ? 2 * c->cap : 64;
                    tl_delta *nd = realloc(c->d, nc * sizeof *nd);
                    if (!nd) {
                        ddbi_timeline_done(c, false);
                        return ddbi_fail_oom(err, __func__);
                    }
                    c->d = nd;
                    c->cap = nc;
                }
                c->d[c->n++] = (tl_delta){p, t->name, t->bounds[i], b};
            }
        }
    }
    if (!c->n) {
        ddbi_timeline_done(c, false);
        return DDB_OK;
    }
    *out = c;
    return DDB_OK;
}

int ddbi_timeline_store(ddbi_engine *db, MDB_txn *txn, const ddbi_tl_capture *c, ddb_error *err)
{
    stored_second ring[RING];
    for (size_t i = 0; c && i < c->n;) {
        /* the deltas of one partition are consecutive */
        const tl_delta *first = &c->d[i];
        stored_get(db, txn, first->table, first->bound, ring);
        for (; i < c->n && c->d[i].p == first->p && c->d[i].table == first->table; i++) {
            const ddbi_tl_bucket *b = &c->d[i].now;
            stored_second *s = &ring[b->second % RING];
            if (s->second > b->second)
                continue; /* out of the stored window already */
            if (s->second < b->second)
                *s = (stored_second){.second = b->second};
            s->r += (float)(b->r - b->fr);
            s->w += (float)(b->w - b->fw);
            s->th += b->th - b->fth;
        }
        char key[300];
        MDB_val k = {ddbi_timeline_key(key, first->table, first->bound), key}, d = {STORED_SIZE, ring};
        int rc = ddbi_kv_put(db, txn, db->meta, &k, &d, 0);
        if (rc)
            return ddbi_mdb_fail(err, rc, "capacity timeline");
    }
    return DDB_OK;
}

void ddbi_timeline_done(ddbi_tl_capture *c, bool committed)
{
    if (!c)
        return;
    for (size_t i = 0; committed && i < c->n; i++) {
        const ddbi_tl_bucket *b = &c->d[i].now;
        ddb_part_rt *p = c->d[i].p;
        ddbi_tl_lock(p);
        ddbi_tl_bucket *live = &p->tl[b->second % RING];
        if (live->second == b->second) {
            live->fr = b->r;
            live->fw = b->w;
            live->fth = b->th;
        }
        ddbi_tl_unlock(p);
    }
    free(c->d);
    free(c);
}

/* ---- reading ---- */

/* The stored ring of partition i plus this handle's unstored part, as the
 * seconds of the window that have any consumption, oldest first.  end: the
 * latest second recorded for the table (the window is (end - RING, end]). */
int ddbi_timeline_read(ddbi_engine *db, MDB_txn *txn, ddb_table_rt *t, size_t i, int64_t end, ddb_arena *a,
                       ddb_partition_stats *s, ddb_error *err)
{
    stored_second ring[RING];
    stored_get(db, txn, t->name, t->bounds[i], ring);
    ddb_second_units sec[RING];
    memset(sec, 0, sizeof sec);
    for (size_t j = 0; j < RING; j++) {
        if (ring[j].second > end - RING && ring[j].second <= end) {
            ddb_second_units *u = &sec[ring[j].second % RING];
            *u = (ddb_second_units){ring[j].second, ring[j].r, ring[j].w, ring[j].th};
        }
    }
    ddb_part_rt *p = &t->parts[i];
    ddbi_tl_lock(p);
    for (size_t j = 0; j < RING; j++) {
        const ddbi_tl_bucket *b = &p->tl[j];
        if (b->second <= end - RING || b->second > end)
            continue;
        ddb_second_units *u = &sec[b->second % RING];
        if (u->second != b->second)
            *u = (ddb_second_units){.second = b->second};
        u->read_units += b->r - b->fr;
        u->write_units += b->w - b->fw;
        u->throttled += b->th - b->fth;
    }
    ddbi_tl_unlock(p);
    size_t n = 0;
    for (size_t j = 0; j < RING; j++)
        n += sec[j].second != 0 && (sec[j].read_units > 0 || sec[j].write_units > 0 || sec[j].throttled);
    ddb_second_units *out = ddb_arena_alloc(a, (n ? n : 1) * sizeof *out);
    if (!out)
        return ddbi_fail_oom(err, __func__);
    /* oldest first: the ring starts after end's bucket */
    size_t k = 0;
    for (size_t j = 1; j <= RING; j++) {
        const ddb_second_units *u = &sec[(size_t)((end + (int64_t)j) % RING)];
        if (u->second != 0 && (u->read_units > 0 || u->write_units > 0 || u->throttled))
            out[k++] = *u;
    }
    s->seconds = out;
    s->n_seconds = k;
    return DDB_OK;
}

/* The latest second any partition of t recorded (stored or in memory). */
int64_t ddbi_timeline_latest(ddbi_engine *db, MDB_txn *txn, ddb_table_rt *t)
{
    int64_t end = 0;
    stored_second ring[RING];
    for (size_t i = 0; i < t->n_parts; i++) {
        stored_get(db, txn, t->name, t->bounds[i], ring);
        for (size_t j = 0; j < RING; j++)
            end = ring[j].second > end ? ring[j].second : end;
        ddb_part_rt *p = &t->parts[i];
        ddbi_tl_lock(p);
        for (size_t j = 0; j < RING; j++)
            end = p->tl[j].second > end ? p->tl[j].second : end;
        ddbi_tl_unlock(p);
    }
    return end;
}
