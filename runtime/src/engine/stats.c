/* engine/: ddb_table_stats: the partitions of a table with their item
 * counts, sizes, consumed capacity and per-second timelines (timeline.c).
 * May call the rest of engine/ and core/. */
#include "engine/engine.h"
#include "core/error.h"

#include <string.h>

int ddbi_engine_table_stats(void *impl, const char *table, ddb_arena *a, ddb_partition_stats **parts, size_t *count,
                            ddb_error *err)
{
    ddbi_engine *db = impl;
    MDB_txn *txn;
    ddb_table_rt *t;
    int rc = ddbi_read_table(db, table, &txn, &t, err);
    if (rc)
        return rc;
    ddb_partition_stats *s = ddb_arena_alloc(a, (t->n_parts ? t->n_parts : 1) * sizeof *s);
    if (!s) {
        ddbi_read_end(txn);
        return ddbi_fail_oom(err, __func__);
    }
    memset(s, 0, (t->n_parts ? t->n_parts : 1) * sizeof *s);
    pthread_mutex_lock(&t->lock);
    for (size_t i = 0; i < t->n_parts; i++) {
        s[i].hash_lo = t->bounds[i];
        s[i].hash_hi = i + 1 < t->n_parts ? t->bounds[i + 1] - 1 : UINT64_MAX;
        s[i].read_units = atomic_load_explicit(&t->parts[i].rcu, memory_order_relaxed);
        s[i].write_units = atomic_load_explicit(&t->parts[i].wcu, memory_order_relaxed);
        s[i].throttled = t->parts[i].throttled;
    }
    pthread_mutex_unlock(&t->lock);
    int64_t end = ddbi_timeline_latest(db, txn, t);
    for (size_t i = 0; i < t->n_parts && !rc; i++) {
        ddbi_part_read(txn, db, t, i, &s[i].item_count, &s[i].size_bytes);
        rc = ddbi_timeline_read(db, txn, t, i, end, a, &s[i], err);
    }
    ddbi_read_end(txn);
    if (rc)
        return rc;
    *parts = s;
    *count = t->n_parts;
    return DDB_OK;
}
