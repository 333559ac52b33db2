/* Helpers of the stream and TTL tests. */
#ifndef DDB_STREAM_UTIL_H
#define DDB_STREAM_UTIL_H

#include <ddb/ddb.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

/* An injectable clock (ms since the epoch). */
typedef struct su_clock {
    _Atomic int64_t ms;
} su_clock;
int64_t su_clock_fn(void *ctx);

/* A fresh database directory; opts may be NULL; clock may be NULL. */
ddb *su_open(const char *name, ddb_options *opts, su_clock *clock, char *dir, size_t cap);
ddb *su_reopen(const char *dir, ddb_options *opts, su_clock *clock);
void su_rmdir(const char *dir);

/* Item from (name, kind, value) triples, kind 's' string, 'n' number text,
 * 'i' int64; NULL name ends. */
ddb_item *su_item(ddb_arena *a, ...);
/* A table with PK (S) + SK (S), GSI "GSI" on GK (S), the view given. */
void su_table(ddb *db, const char *name, ddb_stream_view view, const char *ttl);

/* Every record of table from TRIM_HORIZON into recs (arena a); the count. */
size_t su_read_all(ddb *db, const char *table, ddb_arena *a, ddb_stream_record *recs, size_t cap);
/* S attribute of an item (NULL when absent or not S). */
const char *su_s(const ddb_item *it, const char *name);

/* expr must return 0; the failure names it, its code and err.message (an
 * ddb_error named err must be in scope). */
#define SU_OK(expr)                                                                                                   \
    do {                                                                                                              \
        int rc_ = (expr);                                                                                             \
        if (rc_ != 0)                                                                                                 \
            fail_msg("%s -> %d %s (%s)", #expr, rc_, ddb_strerror(rc_), err.message);                                 \
    } while (0)

#endif
