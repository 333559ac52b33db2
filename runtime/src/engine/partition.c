/* engine/: partitions: contiguous ranges of the partition-hash space,
 * with persisted item counts and sizes, in-memory consumption counters,
 * the optional throttle, and splits by size.  May call the transactions
 * of db.c and core/. */
#include "core/codec.h"
#include "engine/engine.h"
#include "core/error.h"
#include "engine/stored.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

size_t ddbi_bounds_find(const uint64_t *bounds, size_t n, uint64_t hash)
{
    size_t lo = 0, hi = n;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (bounds[mid] <= hash)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

bool ddbi_bounds_decode(const void *p, size_t len, uint64_t *out, char *why, size_t cap)
{
    size_t n = len / 8;
    if (len % 8 || n == 0) {
        snprintf(why, cap, "partition map has %zu bytes (a positive multiple of 8 expected)", len);
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        out[i] = ddbi_key_hash((const uint8_t *)p + 8 * i);
        if (i ? out[i] <= out[i - 1] : out[i] != 0) {
            snprintf(why, cap, "partition map bound %zu is 0x%016" PRIx64 " (bounds must start at 0 and ascend)", i,
                     out[i]);
            return false;
        }
    }
    return true;
}

size_t ddbi_part_of(const ddb_table_rt *t, uint64_t hash)
{
    return ddbi_bounds_find(t->bounds, t->n_parts, hash);
}

/* The throttle's time: the handle's clock when the application injected one
 * (ddb_options.clock_ms: tests and examples simulate seconds exactly), else
 * the monotonic clock. */
static double now_seconds(const ddbi_engine *db)
{
    if (db->opts.clock_ms)
        return (double)ddbi_engine_clock_ms(db) / 1000.0;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void add_units(_Atomic double *cell, double v)
{
    if (v == 0)
        return;
    double old = atomic_load_explicit(cell, memory_order_relaxed);
    while (!atomic_compare_exchange_weak_explicit(cell, &old, old + v, memory_order_relaxed, memory_order_relaxed))
        ;
}

int ddbi_part_charge(ddbi_engine *db, ddb_table_rt *t, size_t part, double rcu, double wcu, ddb_error *err)
{
    return ddbi_part_charge_at(db, t, part, rcu, wcu, ddbi_engine_read_clock_ms(db), err);
}

int ddbi_part_charge_at(ddbi_engine *db, ddb_table_rt *t, size_t part, double rcu, double wcu, int64_t now_ms,
                        ddb_error *err)
{
    if (part >= t->n_parts)
        return DDB_OK;
    ddb_part_rt *p = &t->parts[part];
    if (!db->opts.throttle) {
        /* the common case takes no lock: every read and write comes here */
        add_units(&p->rcu, rcu);
        add_units(&p->wcu, wcu);
        ddbi_timeline_add(p, rcu, wcu, 0, now_ms);
        return DDB_OK;
    }
    int rc = DDB_OK;
    pthread_mutex_lock(&t->lock);
    {
        /* a token bucket per partition holding at most one second of throughput */
        double rrate = t->rcu ? (double)t->rcu / (double)t->n_parts : 3000.0;
        double wrate = t->wcu ? (double)t->wcu / (double)t->n_parts : 1000.0;
        double now = now_seconds(db);
        if (p->last_refill == 0) {
            p->read_tokens = rrate;
            p->write_tokens = wrate;
        } else {
            double dt = now - p->last_refill;
            p->read_tokens = p->read_tokens + dt * rrate > rrate ? rrate : p->read_tokens + dt * rrate;
            p->write_tokens = p->write_tokens + dt * wrate > wrate ? wrate : p->write_tokens + dt * wrate;
        }
        p->last_refill = now;
        if ((rcu > 0 && p->read_tokens < rcu) || (wcu > 0 && p->write_tokens < wcu)) {
            p->throttled++;
            rc = ddbi_fail(err, DDB_ETHROTTLED,
                          "table %s partition %zu: throughput exceeded (needs %.1f RCU / %.1f WCU, "
                          "%.1f / %.1f left this second)",
                          t->name, part, rcu, wcu, p->read_tokens, p->write_tokens);
        } else {
            p->read_tokens -= rcu;
            p->write_tokens -= wcu;
        }
    }
    if (rc == DDB_OK) {
        add_units(&p->rcu, rcu);
        add_units(&p->wcu, wcu);
    }
    pthread_mutex_unlock(&t->lock);
    ddbi_timeline_add(p, rc ? 0 : rcu, rc ? 0 : wcu, rc ? 1 : 0, now_ms);
    return rc;
}

static size_t stats_key(char *buf, const ddb_table_rt *t, uint64_t bound)
{
    size_t n = (size_t)snprintf(buf, 300, "s/%s/", t->name);
    for (int i = 7; i >= 0; i--)
        buf[n + (size_t)(7 - i)] = (char)(bound >> (8 * i));
    return n + 8;
}

/* A partition's {count, bytes}; {0, 0} when it has no record yet.  err
 * NULL: a malformed record reads as {0, 0} (displays; ddb check reports it). */
static int stats_get(MDB_txn *txn, ddbi_engine *db, const ddb_table_rt *t, uint64_t bound, uint64_t v[2], ddb_error *err)
{
    char kb[300];
    MDB_val k = {stats_key(kb, t, bound), kb}, d;
    v[0] = v[1] = 0;
    int rc = mdb_get(txn, db->meta, &k, &d);
    if (rc == 0 && d.mv_size == 16)
        memcpy(v, d.mv_data, 16);
    else if (rc == 0 && err)
        return ddbi_fail_stored(err, t->name, k.mv_data, k.mv_size, "partition statistics record has %zu bytes (16 expected)",
                                d.mv_size);
    if (rc && rc != MDB_NOTFOUND)
        return err ? ddbi_mdb_fail(err, rc, "partition statistics") : rc;
    return DDB_OK;
}

static int stats_put(MDB_txn *txn, ddbi_engine *db, const ddb_table_rt *t, uint64_t bound, const uint64_t v[2])
{
    char kb[300];
    MDB_val k = {stats_key(kb, t, bound), kb}, d = {16, (void *)v};
    return ddbi_kv_put(db, txn, db->meta, &k, &d, 0);
}

int ddbi_part_read(MDB_txn *txn, ddbi_engine *db, const ddb_table_rt *t, size_t part, uint64_t *count, uint64_t *bytes)
{
    uint64_t v[2];
    int rc = stats_get(txn, db, t, t->bounds[part], v, NULL);
    *count = v[0];
    *bytes = v[1];
    return rc;
}

int ddbi_part_adjust(ddbi_engine *db, MDB_txn *txn, ddb_table_rt *t, uint64_t hash, int64_t dcount, int64_t dbytes,
                    ddb_error *err)
{
    if (!dcount && !dbytes)
        return DDB_OK;
    uint64_t bound = t->bounds[ddbi_part_of(t, hash)], v[2];
    int rc = stats_get(txn, db, t, bound, v, err);
    if (rc)
        return rc;
    v[0] += (uint64_t)dcount;
    v[1] += (uint64_t)dbytes;
    rc = stats_put(txn, db, t, bound, v);
    return rc ? ddbi_mdb_fail(err, rc, "partition statistics") : DDB_OK;
}

int ddbi_part_maybe_split(ddbi_engine *db, MDB_txn *txn, ddb_table_rt *t, uint64_t hash, ddb_error *err)
{
    size_t part = ddbi_part_of(t, hash);
    uint64_t lo = t->bounds[part], v[2];
    int rc = stats_get(txn, db, t, lo, v, err);
    if (rc)
        return rc;
    if (v[1] <= db->opts.partition_split_bytes)
        return DDB_OK;
    uint64_t hi = part + 1 < t->n_parts ? t->bounds[part + 1] : 0; /* 0 = end of space */
    MDB_cursor *c;
    if ((rc = mdb_cursor_open(txn, t->items, &c)))
        return ddbi_mdb_fail(err, rc, "partition split");
    uint8_t start[8];
    ddb_put_be(start, lo, 8);
    MDB_val k = {8, start}, d;
    /* one pass: at the start of each run of one partition hash, left holds
     * exactly the items below it; split at the first such hash with at
     * least half the bytes below */
    uint64_t left[2] = {0, 0}, split = 0, prev = lo;
    int g = mdb_cursor_get(c, &k, &d, MDB_SET_RANGE);
    while (g == 0) {
        size_t sz = 0;
        if ((rc = ddbi_stored_key_check(t->name, "an item key", &k, err)))
            break;
        uint64_t h = ddbi_key_hash(k.mv_data);
        if (hi && h >= hi)
            break;
        if (h != prev && left[1] * 2 >= v[1]) {
            split = h;
            break;
        }
        prev = h;
        if ((rc = ddbi_stored_val_check(db, t->name, "the stored item", &k, &d, err)))
            break;
        if (ddbi_record_size(d.mv_data, d.mv_size, &sz)) {
            rc = ddbi_fail_stored(err, t->name, k.mv_data, k.mv_size, "the stored item is unreadable");
            break;
        }
        left[0]++;
        left[1] += sz;
        g = mdb_cursor_get(c, &k, &d, MDB_NEXT);
    }
    mdb_cursor_close(c);
    if (!rc && g && g != MDB_NOTFOUND)
        rc = ddbi_mdb_fail(err, g, "partition split");
    if (rc)
        return rc;
    if (!split)
        return DDB_OK; /* one partition key holds the whole partition: cannot split by hash */
    if (left[0] > v[0] || left[1] > v[1])
        return ddbi_fail_stored(err, t->name, NULL, 0,
                                "partition statistics (%" PRIu64 " items, %" PRIu64 " bytes) count fewer than are stored",
                                v[0], v[1]);
    uint64_t right[2] = {v[0] - left[0], v[1] - left[1]};
    if ((rc = stats_put(txn, db, t, lo, left)) || (rc = stats_put(txn, db, t, split, right)))
        return ddbi_mdb_fail(err, rc, "partition split");
    /* new partition map */
    size_t n = t->n_parts + 1;
    uint8_t *b = malloc(n * 8);
    if (!b)
        return ddbi_fail_oom(err, __func__);
    for (size_t i = 0, j = 0; i < t->n_parts; i++) {
        ddb_put_be(b + 8 * j++, t->bounds[i], 8);
        if (i == part)
            ddb_put_be(b + 8 * j++, split, 8);
    }
    char key[300];
    int klen = snprintf(key, sizeof key, "p/%s", t->name);
    MDB_val pk = {(size_t)klen, key}, pv = {n * 8, b};
    rc = ddbi_kv_put(db, txn, db->meta, &pk, &pv, 0);
    free(b);
    if (!rc) {
        uint64_t g2 = 0;
        MDB_val gk = {3, (void *)DDB_META_GEN}, gv;
        if (mdb_get(txn, db->meta, &gk, &gv) == 0 && gv.mv_size == 8)
            memcpy(&g2, gv.mv_data, 8);
        g2++;
        gv = (MDB_val){8, &g2};
        rc = ddbi_kv_put(db, txn, db->meta, &gk, &gv, 0);
    }
    return rc ? ddbi_mdb_fail(err, rc, "partition split") : DDB_OK;
}
