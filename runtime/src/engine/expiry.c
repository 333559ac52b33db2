/* engine/: the handle's clock and time-to-live expiry as the read paths
 * see it: with ddb_options.ttl_reads HIDE (the default) an expired item
 * reads as absent until the sweep of streams/ deletes it; with SHOW reads
 * return it until then, as DynamoDB's do.  May call core/. */
#include "engine/engine.h"
#include "core/clock.h"

/* DynamoDB ignores TTL values more than five years in the past. */
#define FIVE_YEARS_MS (5LL * 365 * 86400 * 1000)

int64_t ddbi_engine_clock_ms(const void *impl)
{
    const ddbi_engine *db = impl;
    return db->opts.clock_ms ? db->opts.clock_ms(db->opts.clock_ctx) : ddbi_clock_system_ms();
}

int64_t ddbi_engine_read_clock_ms(const void *impl)
{
    const ddbi_engine *db = impl;
    return db->opts.clock_ms ? db->opts.clock_ms(db->opts.clock_ctx) : ddbi_clock_coarse_ms();
}

bool ddbi_ttl_expired_at(const ddb_table_rt *t, const ddb_item *it, int64_t now_ms)
{
    if (!t->ttl_attr[0] || !it)
        return false;
    return ddbi_ttl_value_expired(ddb_item_get(it, t->ttl_attr), now_ms);
}

bool ddbi_ttl_value_expired(const ddb_value *v, int64_t now_ms)
{
    double s;
    if (!v || v->type != DDB_TN || ddb_value_to_double(v, &s))
        return false;
    double ms = s * 1000.0;
    return ms < (double)now_ms && ms >= (double)(now_ms - FIVE_YEARS_MS);
}

bool ddbi_ttl_expired(const ddbi_engine *db, const ddb_table_rt *t, const ddb_item *it)
{
    return ddbi_ttl_read_attr(t) && ddbi_ttl_expired_at(t, it, ddbi_engine_read_clock_ms(db));
}

bool ddbi_ttl_reads_hide(const ddbi_engine *db)
{
    return db->opts.ttl_reads == DDB_TTL_READS_HIDE;
}

const char *ddbi_ttl_read_attr(const ddb_table_rt *t)
{
    return t->ttl_reads_hide && t->ttl_attr[0] ? t->ttl_attr : NULL;
}
