/* The iterators of declared queries and scans (pages.h: team_big, a
 * DDB_QUERY whose filter reads a shard's field of a sharded entity, and
 * user_over, a DDB_SCAN), and their every-page and count-all forms
 * (ddb_ent_read_opts.all_pages, count_only): every page size 1..5 gives
 * each matching entity once, the same ones the all-pages read returns and
 * as many as the count-all read counts.  Embedded, and through the remote
 * backend against `ddb serve` when DDB_TEST_URI is set.
 *
 * DynamoDB references: Query's and Scan's Limit, FilterExpression ("applied
 * after ... the items are read"; a page may hold fewer than Limit items),
 * Select COUNT, LastEvaluatedKey / ExclusiveStartKey (API Reference,
 * "Query", "Scan"; Developer Guide, "Paginating table query results"). */
#include "pages_ddb.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fresh_db.h"

#define N_SEQ 23

/* Teams 1..N_SEQ of org o1 (d = seq * 1000 + 3, in shard D) and users
 * 1..N_SEQ of orgs o1 and o2 (a = seq). */
static void fill(ddb *db)
{
    ddb_error err;
    for (int s = 1; s <= N_SEQ; s++) {
        struct team t = {.org = "o1", .seq = s, .a = s, .b = s, .c = s, .d = s * 1000 + 3};
        OK(team_put(db, &t, NULL, NULL, &err));
        for (int o = 1; o <= 2; o++) {
            struct user u = {.seq = s, .a = s};
            snprintf(u.org, sizeof u.org, "o%d", o);
            OK(user_put(db, &u, NULL, NULL, &err));
        }
    }
}

static void test_query_iterator(void **state)
{
    (void)state;
    ddb *db = fresh_db("CollPages", pg_create_table);
    fill(db);
    ddb_error err;
    ddb_arena *a = ddb_arena_new();
    const int32_t min_d = 9000; /* teams 9..N_SEQ */
    const size_t want = N_SEQ - 8;
    for (uint32_t n = 1; n <= 5; n++) {
        bool seen[N_SEQ + 1] = {false};
        size_t total = 0, pages = 0;
        ddb_ent_read_opts o = {.page_size = n};
        team_big_iter it;
        team_page page;
        int rc;
        team_big_begin(&it, db, "o1", min_d, &o);
        while ((rc = team_big_next(&it, a, &page, &err)) == DDB_OK && it.pages.has_page) {
            assert_true(page.count <= n);
            for (size_t i = 0; i < page.count; i++) {
                const struct team *t = &page.items[i];
                assert_true(t->d >= min_d);
                assert_int_equal(t->a, t->seq); /* merged whole */
                assert_false(seen[t->seq]);
                seen[t->seq] = true;
            }
            total += page.count;
            pages++;
            ddb_arena_reset(a); /* the iterator keeps its own cursor */
        }
        OK(rc);
        team_big_end(&it);
        assert_int_equal(total, want);
        assert_true(pages >= (want + n - 1) / n);
    }
    /* every page in one call, and the count of all of them */
    team_page all;
    ddb_ent_read_opts o = {.all_pages = true, .page_size = 4};
    OK(team_big(db, "o1", min_d, &o, a, &all, &err));
    assert_int_equal(all.count, want);
    assert_null(all.cursor);
    o.count_only = true;
    OK(team_big(db, "o1", min_d, &o, a, &all, &err));
    assert_int_equal(all.count, want);
    ddb_arena_free(a);
    fresh_db_close(db, "CollPages");
}

static void test_scan_iterator(void **state)
{
    (void)state;
    ddb *db = fresh_db("CollPages", pg_create_table);
    fill(db);
    ddb_error err;
    ddb_arena *a = ddb_arena_new();
    const int32_t min_a = 20; /* users 20..N_SEQ of both orgs */
    const size_t want = 2 * (N_SEQ - 19);
    for (uint32_t n = 1; n <= 5; n++) {
        bool seen[3][N_SEQ + 1];
        memset(seen, 0, sizeof seen);
        size_t total = 0;
        ddb_ent_read_opts o = {.page_size = n};
        user_over_iter it;
        user_page page;
        int rc;
        user_over_begin(&it, db, min_a, 0, 0, &o);
        while ((rc = user_over_next(&it, a, &page, &err)) == DDB_OK && it.pages.has_page) {
            assert_true(page.count <= n);
            for (size_t i = 0; i < page.count; i++) {
                const struct user *u = &page.items[i];
                int org = u->org[1] - '0';
                assert_true(u->a >= min_a && (org == 1 || org == 2));
                assert_false(seen[org][u->seq]);
                seen[org][u->seq] = true;
            }
            total += page.count;
            ddb_arena_reset(a);
        }
        OK(rc);
        user_over_end(&it);
        assert_int_equal(total, want);
    }
    user_page all;
    ddb_ent_read_opts o = {.all_pages = true, .count_only = true};
    OK(user_over(db, min_a, 0, 0, &o, a, &all, &err));
    assert_int_equal(all.count, want);
    ddb_arena_free(a);
    fresh_db_close(db, "CollPages");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_query_iterator),
        cmocka_unit_test(test_scan_iterator),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
