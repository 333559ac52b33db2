/* The per-second timeline of ddb_table_stats (engine/stats.c): units
 * consumed per partition per second of the handle's clock, throttled calls
 * per second, the bounded window of DDB_STATS_SECONDS, and the stored
 * timeline another handle (`ddb stats`) reads after a close.  The clock is
 * injected (ddb_options.clock_ms), so the seconds are exact. */
#include "testutil.h"

#include <stdio.h>
#include <string.h>

static char dir[512];
static int64_t now_ms;

static int64_t test_clock(void *ctx)
{
    (void)ctx;
    return now_ms;
}

#define T0 INT64_C(1700000000)

static ddb *open_at(int64_t second, bool throttle, bool fresh)
{
    now_ms = second * 1000;
    ddb_options o = {.clock_ms = test_clock, .throttle = throttle};
    if (fresh)
        return tu_open("timeline", &o, dir, sizeof dir);
    char uri[600];
    snprintf(uri, sizeof uri, "file:%s", dir);
    ddb *db;
    ddb_error err;
    if (ddb_open(uri, &o, &db, &err))
        fail_msg("reopen: %s", err.message);
    return db;
}

static void put(ddb *db, ddb_arena *a, const char *pk, int64_t sk)
{
    ddb_error err;
    TU_OK(ddb_put_item(db, "Days", tu_item(a, "PK", 's', pk, "SK", 'i', sk, NULL), NULL, NULL, NULL, &err));
}

/* The units of second `second` summed over the partitions. */
static void units_at(ddb *db, ddb_arena *a, int64_t second, double *r, double *w, uint64_t *th, size_t *seconds)
{
    ddb_partition_stats *ps;
    size_t n;
    ddb_error err;
    TU_OK(ddb_table_stats(db, "Days", a, &ps, &n, &err));
    *r = *w = 0;
    *th = 0;
    *seconds = 0;
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < ps[i].n_seconds; j++) {
            const ddb_second_units *u = &ps[i].seconds[j];
            assert_true(j == 0 || ps[i].seconds[j - 1].second < u->second); /* oldest first */
            if (u->second == second) {
                *r += u->read_units;
                *w += u->write_units;
                *th += u->throttled;
            }
            (*seconds)++;
        }
    }
}

static void create(ddb *db, uint64_t wcu)
{
    ddb_error err;
    TU_OK(ddb_create_table(db, &(ddb_table_def){.name = "Days", .key = {.pk = "PK", .pk_type = DDB_TS, .sk = "SK", .sk_type = DDB_TN}, .wcu = wcu,
                                                 .rcu = wcu ? 100 : 0},
                           &err));
}

static void per_second_and_window(void **state)
{
    (void)state;
    ddb *db = open_at(T0, false, true);
    ddb_arena *a = ddb_arena_new();
    create(db, 0);
    double r, w;
    uint64_t th;
    size_t seconds;
    for (int i = 0; i < 3; i++)
        put(db, a, "DAY#1", i); /* 1 WCU each */
    now_ms += 1000;
    put(db, a, "DAY#1", 10);
    put(db, a, "DAY#2", 11);
    ddb_error err;
    ddb_item *got;
    TU_OK(ddb_get_item(db, "Days", tu_item(a, "PK", 's', "DAY#1", "SK", 'i', (int64_t)0, NULL), NULL, a, &got, NULL,
                       &err)); /* 0.5 RCU */
    units_at(db, a, T0, &r, &w, &th, &seconds);
    assert_true(w == 3 && r == 0 && th == 0);
    units_at(db, a, T0 + 1, &r, &w, &th, &seconds);
    assert_true(w == 2 && r == 0.5);
    /* a write 200 seconds later: the window moves, the old seconds leave it */
    now_ms = (T0 + 200) * 1000;
    put(db, a, "DAY#1", 12);
    units_at(db, a, T0, &r, &w, &th, &seconds);
    assert_true(w == 0);
    units_at(db, a, T0 + 200, &r, &w, &th, &seconds);
    assert_true(w == 1);
    assert_int_equal(seconds, 1);
    ddb_close(db);
    ddb_arena_free(a);
    tu_rmdir(dir);
}

/* What a handle recorded is stored when it closes: another handle sees it,
 * and adds its own. */
static void stored_across_handles(void **state)
{
    (void)state;
    ddb *db = open_at(T0, false, true);
    ddb_arena *a = ddb_arena_new();
    create(db, 0);
    for (int i = 0; i < 4; i++)
        put(db, a, "DAY#1", i);
    ddb_close(db);
    db = open_at(T0, false, false);
    double r, w;
    uint64_t th;
    size_t seconds;
    units_at(db, a, T0, &r, &w, &th, &seconds);
    assert_true(w == 4);
    put(db, a, "DAY#1", 99);
    units_at(db, a, T0, &r, &w, &th, &seconds);
    assert_true(w == 5);
    ddb_close(db);
    db = open_at(T0 + 1, false, false);
    units_at(db, a, T0, &r, &w, &th, &seconds);
    assert_true(w == 5); /* the second handle's write counted once */
    ddb_close(db);
    ddb_arena_free(a);
    tu_rmdir(dir);
}

/* Throttle mode: the second shows what was consumed and what was refused. */
static void throttled_calls_per_second(void **state)
{
    (void)state;
    ddb *db = open_at(T0, true, true);
    ddb_arena *a = ddb_arena_new();
    create(db, 5);
    int ok = 0, refused = 0;
    for (int i = 0; i < 20; i++) {
        ddb_error err;
        int rc = ddb_put_item(db, "Days", tu_item(a, "PK", 's', "DAY#1", "SK", 'i', (int64_t)i, NULL), NULL, NULL,
                              NULL, &err);
        if (rc == DDB_OK)
            ok++;
        else if (rc == DDB_ETHROTTLED)
            refused++;
    }
    assert_true(refused > 0);
    double r, w;
    uint64_t th;
    size_t seconds;
    units_at(db, a, T0, &r, &w, &th, &seconds);
    assert_true(w == ok);
    assert_int_equal(th, refused);
    ddb_close(db);
    ddb_arena_free(a);
    tu_rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(per_second_and_window),
        cmocka_unit_test(stored_across_handles),
        cmocka_unit_test(throttled_calls_per_second),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
