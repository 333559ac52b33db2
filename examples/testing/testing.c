/* testing — unit tests of your own code that uses a generated module
 * (schemas/reservations.h), written with plain assert(); any C test
 * framework (cmocka, Unity, Check, ...) calls the same hooks:
 *
 *   ddb_open("mem:", &opts, &db, &err)  a fresh private database per test,
 *                                       on tmpfs, removed by ddb_close
 *   ddb_options.clock_ms / clock_ctx    the time the database uses (created-at
 *                                       and updated-at stamps, TTL, streams):
 *                                       the test sets and moves it
 *   ddb_fault_inject(db, &fault, &err)  the next N (or a fraction) of chosen
 *                                       operations fail: throttled, a failed
 *                                       condition, a cancelled transaction,
 *                                       an unknown outcome
 *
 *   testing [DIR]      (DIR is ignored: each test opens its own database) */
#include "reservations_ddb.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* ---- the application code under test ---------------------------------- */

/* Reserve party spots of a day (at most its capacity), sending the
 * request up to 3 times while it is throttled.  An unknown outcome is
 * settled by reading the day back: its version says whether the
 * reservation was applied (if not, it is sent again).  *attempts: the
 * requests sent. */
static int reserve_spots(ddb *db, const char *date, int32_t party, int *attempts, ddb_error *err)
{
    ddb_arena *a = ddb_arena_new();
    const ddb_ent_read_opts strong = {.consistent = true};
    struct product_date before, after;
    int rc = product_date_get(db, "parks", "dayuse", "p1", date, &strong, a, &before, err);
    for (*attempts = 1; rc == DDB_OK; ++*attempts) {
        rc = product_date_reserve(db, "parks", "dayuse", "p1", date, party, before.capacity - party, NULL, a, NULL,
                                  NULL, err);
        bool again = rc == DDB_ETHROTTLED; /* a real program waits before it sends again */
        if (rc == DDB_EUNKNOWN && !(rc = product_date_get(db, "parks", "dayuse", "p1", date, &strong, a, &after, err)))
            again = after.version == before.version; /* not applied */
        if (!again || *attempts == 3)
            break;
        rc = DDB_OK;
    }
    ddb_arena_free(a);
    return rc;
}

/* ---- fixtures ------------------------------------------------------------ */

static int64_t now_ms; /* the tests' clock */

static int64_t tests_clock(void *ctx)
{
    return *(const int64_t *)ctx;
}

/* A fresh database with the table and one day of capacity 4, at 2026-01-01T00:00:00Z. */
static ddb *fresh_db(void)
{
    ddb *db;
    ddb_error err;
    now_ms = 1767225600000;
    ddb_options o = {.clock_ms = tests_clock, .clock_ctx = &now_ms};
    int rc = ddb_open("mem:", &o, &db, &err);
    assert(rc == DDB_OK);
    rc = reservations_create_table(db, &err);
    assert(rc == DDB_OK);
    struct product_date day = {.collection_id = "parks", .activity = "dayuse", .product = "p1",
                               .date = "2026-07-01", .capacity = 4};
    rc = product_date_create(db, &day, NULL, NULL, &err);
    assert(rc == DDB_OK);
    return db;
}

static int32_t reserved(ddb *db)
{
    ddb_arena *a = ddb_arena_new();
    struct product_date d;
    ddb_error err;
    int rc = product_date_get(db, "parks", "dayuse", "p1", "2026-07-01", NULL, a, &d, &err);
    assert(rc == DDB_OK);
    ddb_arena_free(a);
    return d.reserved;
}

/* ---- the tests ------------------------------------------------------------ */

static void test_retries_throttling(void)
{
    ddb *db = fresh_db();
    ddb_error err;
    /* the next two UpdateItems on the table are throttled */
    ddb_fault f = {.code = DDB_ETHROTTLED, .ops = DDB_OP_UPDATE, .table = "Reservations", .count = 2};
    int attempts, rc = ddb_fault_inject(db, &f, &err);
    assert(rc == DDB_OK);
    rc = reserve_spots(db, "2026-07-01", 2, &attempts, &err);
    assert(rc == DDB_OK && attempts == 3 && reserved(db) == 2);
    printf("throttled twice: reserved after %d attempts, %d of 4 spots taken\n", attempts, (int)reserved(db));
    ddb_close(db);
}

static void test_gives_up(void)
{
    ddb *db = fresh_db();
    ddb_error err;
    ddb_fault f = {.code = DDB_ETHROTTLED, .ops = DDB_OP_UPDATE, .count = 5};
    int attempts, rc = ddb_fault_inject(db, &f, &err);
    assert(rc == DDB_OK);
    rc = reserve_spots(db, "2026-07-01", 2, &attempts, &err);
    assert(rc == DDB_ETHROTTLED && attempts == 3 && reserved(db) == 0);
    printf("throttled five times: gave up after %d attempts (%s), %" PRIu64 " requests failed\n", attempts,
           ddb_strerror(rc), ddb_fault_fired(db));
    ddb_close(db);
}

static void test_full_day(void)
{
    ddb *db = fresh_db();
    ddb_error err;
    int attempts;
    int rc = reserve_spots(db, "2026-07-01", 3, &attempts, &err);
    assert(rc == DDB_OK);
    rc = reserve_spots(db, "2026-07-01", 3, &attempts, &err); /* a real failed condition */
    assert(rc == DDB_ECONDITION && reserved(db) == 3);
    printf("a day of 4 spots: 3 reserved, 3 more refused (%s)\n", ddb_strerror(rc));
    ddb_close(db);
}

static void test_unknown_outcome(void)
{
    ddb *db = fresh_db();
    ddb_error err;
    /* the reservation is written, but its answer is lost */
    ddb_fault lost_answer = {.code = DDB_EUNKNOWN, .ops = DDB_OP_UPDATE, .count = 1, .applied = true};
    int attempts, rc = ddb_fault_inject(db, &lost_answer, &err);
    assert(rc == DDB_OK);
    rc = reserve_spots(db, "2026-07-01", 2, &attempts, &err);
    assert(rc == DDB_OK && attempts == 1 && reserved(db) == 2); /* not reserved twice */
    printf("answer lost, write applied: %d attempt, %d spots taken\n", attempts, (int)reserved(db));
    /* the request is lost before it is written */
    ddb_fault lost_request = {.code = DDB_EUNKNOWN, .ops = DDB_OP_UPDATE, .count = 1};
    rc = ddb_fault_inject(db, &lost_request, &err);
    assert(rc == DDB_OK);
    rc = reserve_spots(db, "2026-07-01", 1, &attempts, &err);
    assert(rc == DDB_OK && attempts == 2 && reserved(db) == 3);
    printf("request lost: %d attempts, %d spots taken\n", attempts, (int)reserved(db));
    ddb_close(db);
}

static void test_stamps_and_ttl(void)
{
    ddb *db = fresh_db();
    ddb_error err;
    ddb_arena *a = ddb_arena_new();
    /* an unpaid hold of 15 minutes */
    struct booking b = {.collection_id = "parks", .activity = "dayuse", .product = "p1", .date = "2026-07-01",
                        .guest = "Ana", .party_size = 2, .hold_until = now_ms / 1000 + 15 * 60};
    int rc = booking_create(db, &b, NULL, NULL, &err);
    assert(rc == DDB_OK && b.created_at == now_ms);
    now_ms += 10 * 60 * 1000; /* ten minutes later */
    strcpy(b.guest, "Ana B.");
    rc = booking_patch(db, &b, NULL, NULL, &err);
    assert(rc == DDB_OK);
    struct booking got;
    rc = booking_get(db, "parks", b.booking_no, NULL, a, &got, &err);
    assert(rc == DDB_OK && got.created_at == 1767225600000 && !strcmp(got.updated_at, "2026-01-01T00:10:00.000Z"));
    printf("booking %" PRIu64 ": created %" PRId64 ", updated %s, status %s\n", got.booking_no, got.created_at,
           got.updated_at, got.status);
    now_ms += 6 * 60 * 1000; /* past the hold: expired, and reads no longer see it */
    rc = booking_get(db, "parks", b.booking_no, NULL, a, &got, &err);
    assert(rc == DDB_ENOTFOUND);
    printf("16 minutes after the hold began: %s\n", ddb_strerror(rc));
    ddb_arena_free(a);
    ddb_close(db);
}

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    test_retries_throttling();
    test_gives_up();
    test_full_day();
    test_unknown_outcome();
    test_stamps_and_ttl();
    printf("5 tests passed\n");
    return 0;
}
