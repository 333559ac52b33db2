/* Helpers of the stream and TTL tests (stream_util.h): databases on a
 * settable clock, tables with a stream view and TTL attribute, reading a
 * whole stream back. Calls the public API only. */
#include "stream_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int64_t su_clock_fn(void *ctx)
{
    return atomic_load(&((su_clock *)ctx)->ms);
}

void su_rmdir(const char *dir)
{
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fail_msg("cannot remove %s", dir);
}

ddb *su_reopen(const char *dir, ddb_options *opts, su_clock *clock)
{
    ddb_options o = opts ? *opts : (ddb_options){0};
    if (clock) {
        o.clock_ms = su_clock_fn;
        o.clock_ctx = clock;
    }
    ddb *db = NULL;
    ddb_error err = {0};
    if (ddb_open(dir, &o, &db, &err))
        fail_msg("ddb_open(%s): %s", dir, err.message);
    return db;
}

ddb *su_open(const char *name, ddb_options *opts, su_clock *clock, char *dir, size_t cap)
{
    const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(dir, cap, "%s/ddbstream-%s-%d", base, name, (int)getpid());
    su_rmdir(dir);
    return su_reopen(dir, opts, clock);
}

ddb_item *su_item(ddb_arena *a, ...)
{
    va_list ap;
    va_start(ap, a);
    ddb_item *it = ddb_item_new(a);
    const char *name;
    while ((name = va_arg(ap, const char *))) {
        int t = va_arg(ap, int);
        ddb_error err = {0};
        int rc = 0;
        if (t == 's')
            rc = ddb_item_set_s(it, name, va_arg(ap, const char *));
        else if (t == 'n')
            rc = ddb_item_set_n(it, name, va_arg(ap, const char *), &err);
        else if (t == 'i')
            rc = ddb_item_set_i64(it, name, va_arg(ap, int64_t));
        if (rc)
            fail_msg("su_item %s: %d %s", name, rc, err.message);
    }
    va_end(ap);
    return it;
}

void su_table(ddb *db, const char *name, ddb_stream_view view, const char *ttl)
{
    ddb_index_def ix[1] = {{.name = "GSI", .key = {.pk = "GK", .pk_type = DDB_TS}}};
    ddb_table_def def = {.name = name,
                         .key = {.pk = "PK", .pk_type = DDB_TS, .sk = "SK", .sk_type = DDB_TS},
                         .indexes = ix,
                         .n_indexes = 1,
                         .stream = {.view = view},
                         .ttl_attribute = ttl};
    ddb_error err = {0};
    if (ddb_create_table(db, &def, &err))
        fail_msg("create_table %s: %s", name, err.message);
}

size_t su_read_all(ddb *db, const char *table, ddb_arena *a, ddb_stream_record *recs, size_t cap)
{
    ddb_stream_iter *it;
    ddb_error err = {0};
    if (ddb_stream_iter_open(db, table, DDB_STREAM_TRIM_HORIZON, 0, &it, &err))
        fail_msg("iter_open %s: %s", table, err.message);
    size_t total = 0;
    for (;;) {
        size_t n = 0;
        if (ddb_stream_read(it, cap - total < 7 ? cap - total : 7, a, recs + total, &n, &err))
            fail_msg("stream_read %s: %s", table, err.message);
        if (!n)
            break;
        total += n;
        if (total == cap)
            break;
    }
    ddb_stream_iter_close(it);
    return total;
}

const char *su_s(const ddb_item *it, const char *name)
{
    const ddb_value *v = it ? ddb_item_get(it, name) : NULL;
    return v && v->type == DDB_TS ? v->u.s : NULL;
}
