/* Paging a collection whose members have 1 to 4 items each (pages.h),
 * property-tested: random partitions (fixed seeds), every page size 1..7,
 * both directions.  Each page holds at most page_size entities and every
 * page but the last exactly page_size (page_size is "the most entities per
 * page", in logical items, <ddb/entity.h>); the pages together hold every
 * entity once, in key order (each page is the run of the partition's
 * entities that follows the previous page's last one: the cursor resumes
 * right after it), each sharded entity whole (all its shard items merged,
 * also when the items read for a page ended inside it), and the page's
 * entries (every type together) in that key order.  The same for a typed
 * scan of the table.  Embedded, and through the remote backend
 * against `ddb serve` when DDB_TEST_URI is set (tests/serve/with_serve.py).
 *
 * DynamoDB references: Query's and Scan's Limit ("the maximum number of
 * items to evaluate"), LastEvaluatedKey and ExclusiveStartKey (API
 * Reference, "Query", "Scan"; Developer Guide, "Paginating table query
 * results": a result set is complete when LastEvaluatedKey is absent). */
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

enum { K_ORG, K_PROJ, K_TEAM, K_USER };
#define MAX_SEQ 12
#define MAX_ENTITIES (1 + 3 * MAX_SEQ)
#define N_ORGS 3

/* An entity of the partition: its kind and sequence number (0 for the org). */
typedef struct ent {
    int kind;
    int seq;
} ent;

/* One partition's entities in key order ("A#<org>" first, then by seq:
 * "M#<seq>#P" < "#T" < "#U"). */
typedef struct partition {
    char org[16];
    ent e[MAX_ENTITIES];
    size_t n;
} partition;

static uint32_t next_rand(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

static ddb *open_db(void)
{
    return fresh_db("CollPages", pg_create_table);
}

static void close_db(ddb *db)
{
    fresh_db_close(db, "CollPages");
}

/* A random partition of org `name`, written, its entities listed in p. */
static void fill(ddb *db, uint32_t *rnd, const char *name, partition *p)
{
    ddb_error err;
    memset(p, 0, sizeof *p);
    snprintf(p->org, sizeof p->org, "%s", name);
    if (next_rand(rnd) % 2) {
        struct org o = {.n = 7};
        snprintf(o.org, sizeof o.org, "%s", name);
        snprintf(o.name, sizeof o.name, "Org %s", name);
        OK(org_put(db, &o, NULL, NULL, &err));
        p->e[p->n++] = (ent){K_ORG, 0};
    }
    int seqs = 3 + (int)(next_rand(rnd) % (MAX_SEQ - 2));
    for (int s = 1; s <= seqs; s++) {
        uint32_t which = next_rand(rnd) % 8;
        if (which & 1) {
            struct proj x = {.seq = s, .a = s, .b = s * 10 + 1, .c = s * 100 + 2};
            snprintf(x.org, sizeof x.org, "%s", name);
            OK(proj_put(db, &x, NULL, NULL, &err));
            p->e[p->n++] = (ent){K_PROJ, s};
        }
        if (which & 2) {
            struct team x = {.seq = s, .a = s, .b = s * 10 + 1, .c = s * 100 + 2, .d = s * 1000 + 3};
            snprintf(x.org, sizeof x.org, "%s", name);
            OK(team_put(db, &x, NULL, NULL, &err));
            p->e[p->n++] = (ent){K_TEAM, s};
        }
        if (which & 4) {
            struct user x = {.seq = s, .a = s};
            snprintf(x.org, sizeof x.org, "%s", name);
            OK(user_put(db, &x, NULL, NULL, &err));
            p->e[p->n++] = (ent){K_USER, s};
        }
    }
}

/* The entities of a page (grouped by type) as a list, each checked whole:
 * every shard item's fields hold the values fill wrote. */
static size_t page_entities(const pg_members_result *r, const char *org, ent *out)
{
    size_t n = 0;
    for (size_t i = 0; i < r->org_count; i++) {
        assert_string_equal(r->org[i].org, org);
        char want[24];
        snprintf(want, sizeof want, "Org %s", org);
        assert_string_equal(r->org[i].name, want); /* shard A */
        assert_int_equal(r->org[i].n, 7);          /* shard B */
        out[n++] = (ent){K_ORG, 0};
    }
    for (size_t i = 0; i < r->proj_count; i++) {
        const struct proj *x = &r->proj[i];
        assert_string_equal(x->org, org);
        assert_int_equal(x->a, x->seq);
        assert_int_equal(x->b, x->seq * 10 + 1);
        assert_int_equal(x->c, x->seq * 100 + 2);
        out[n++] = (ent){K_PROJ, x->seq};
    }
    for (size_t i = 0; i < r->team_count; i++) {
        const struct team *x = &r->team[i];
        assert_string_equal(x->org, org);
        assert_int_equal(x->a, x->seq);
        assert_int_equal(x->b, x->seq * 10 + 1);
        assert_int_equal(x->c, x->seq * 100 + 2);
        assert_int_equal(x->d, x->seq * 1000 + 3);
        out[n++] = (ent){K_TEAM, x->seq};
    }
    for (size_t i = 0; i < r->user_count; i++) {
        assert_string_equal(r->user[i].org, org);
        assert_int_equal(r->user[i].a, r->user[i].seq);
        out[n++] = (ent){K_USER, r->user[i].seq};
    }
    return n;
}

static bool same_ent(ent x, ent y)
{
    return x.kind == y.kind && x.seq == y.seq;
}

/* got[0..n) holds exactly the entities want[0..n) (a page is grouped by
 * type, so its order is not the key order). */
static void assert_same_set(const ent *got, const ent *want, size_t n, uint32_t page_size, bool back, size_t at)
{
    for (size_t i = 0; i < n; i++) {
        bool found = false;
        for (size_t j = 0; j < n && !found; j++)
            found = same_ent(got[i], want[j]);
        if (!found)
            fail_msg("page_size %u %s, page at entity %zu: entity kind %d seq %d is not the next one of the partition",
                     page_size, back ? "backward" : "forward", at, got[i].kind, got[i].seq);
    }
}

/* A page entry (the page in sort-key order) as an ent, checked to point
 * into the page's array of its type. */
static ent entry_ent(const pg_members_result *r, const pg_members_entry *x)
{
    assert_non_null(x->mask);
    switch (x->kind) {
    case PG_MEMBERS_ORG:
        assert_true(x->as.org >= r->org && x->as.org < r->org + r->org_count);
        return (ent){K_ORG, 0};
    case PG_MEMBERS_PROJ:
        assert_true(x->as.proj >= r->proj && x->as.proj < r->proj + r->proj_count);
        return (ent){K_PROJ, x->as.proj->seq};
    case PG_MEMBERS_TEAM:
        assert_true(x->as.team >= r->team && x->as.team < r->team + r->team_count);
        return (ent){K_TEAM, x->as.team->seq};
    case PG_MEMBERS_USER:
        assert_true(x->as.user >= r->user && x->as.user < r->user + r->user_count);
        return (ent){K_USER, x->as.user->seq};
    default:
        fail_msg("entry kind %d is no member of the collection", (int)x->kind);
    }
    return (ent){-1, -1};
}

/* Checks one page of p's walk with page_size n: at most n entities, fewer
 * only on the last page, exactly the entities that follow the previous
 * page's in key order.  *at counts the entities walked so far. */
static void check_page(const partition *p, const ent *want, const pg_members_result *r, uint32_t n, bool back,
                       size_t *at, bool *short_seen)
{
    ent got[MAX_ENTITIES];
    assert_true(r->page.count <= n);
    size_t k = page_entities(r, p->org, got);
    assert_int_equal(k, r->page.count);
    if (*short_seen)
        fail_msg("page_size %u %s: a page after a short one (%zu entities at %zu)", n, back ? "backward" : "forward", k,
                 *at);
    if (k < n)
        *short_seen = true;
    assert_true(*at + k <= p->n);
    assert_same_set(got, want + *at, k, n, back, *at);
    /* and in sort-key order, every type together: the page's entries */
    assert_true(k == 0 || r->entries);
    for (size_t i = 0; i < k; i++) {
        ent e = entry_ent(r, &r->entries[i]);
        if (!same_ent(e, want[*at + i]))
            fail_msg("page_size %u %s: entry %zu of the page at %zu is kind %d seq %d, not kind %d seq %d", n,
                     back ? "backward" : "forward", i, *at, e.kind, e.seq, want[*at + i].kind, want[*at + i].seq);
    }
    *at += k;
}

/* Every page of p's collection with page_size n in one direction, by the
 * cursor of each page; then again with the iterator (which keeps its own
 * copy of each cursor, so the arena is reset between pages). */
static void walk(ddb *db, const partition *p, uint32_t n, bool back)
{
    ddb_error err;
    ddb_arena *a = ddb_arena_new();
    ddb_ent_read_opts o = {.page_size = n, .backward = back};
    ent want[MAX_ENTITIES];
    for (size_t i = 0; i < p->n; i++)
        want[i] = p->e[back ? p->n - 1 - i : i];
    size_t at = 0;
    bool short_seen = false;
    do {
        pg_members_result r;
        OK(pg_query_members(db, p->org, NULL, &o, a, &r, &err));
        check_page(p, want, &r, n, back, &at, &short_seen);
        o.cursor = r.page.cursor; /* in a, kept until the walk ends */
    } while (o.cursor);
    assert_int_equal(at, p->n);

    o.cursor = NULL;
    pg_members_iter it;
    pg_members_result r;
    int rc;
    at = 0;
    short_seen = false;
    OK(pg_members_begin(&it, db, p->org, NULL, &o, &err));
    while ((rc = pg_members_next(&it, a, &r, &err)) == DDB_OK && it.it.has_page) {
        check_page(p, want, &r, n, back, &at, &short_seen);
        ddb_arena_reset(a);
    }
    OK(rc);
    pg_members_end(&it);
    assert_int_equal(at, p->n);
    ddb_arena_free(a);
}

static const uint32_t seeds[] = {1, 7, 42, 1234, 99991};

static void test_collection_pages(void **state)
{
    (void)state;
    for (size_t s = 0; s < sizeof seeds / sizeof *seeds; s++) {
        ddb *db = open_db();
        uint32_t rnd = seeds[s];
        partition p[N_ORGS];
        for (int i = 0; i < N_ORGS; i++) {
            char name[16];
            snprintf(name, sizeof name, "o%d", i);
            fill(db, &rnd, name, &p[i]);
        }
        for (int i = 0; i < N_ORGS; i++)
            for (uint32_t n = 1; n <= 7; n++) {
                walk(db, &p[i], n, false);
                walk(db, &p[i], n, true);
            }
        close_db(db);
    }
}

/* The entities of a scan page, each checked whole as page_entities does,
 * with the org each belongs to. */
static size_t scan_entities(const pg_scan_result *r, ent *out, const char **org_of)
{
    size_t n = 0;
    pg_members_result one;
#define ONE_OF(member)                                                                                                \
    for (size_t i = 0; i < r->member##_count; i++) {                                                                  \
        memset(&one, 0, sizeof one);                                                                                  \
        one.member = &r->member[i];                                                                                   \
        one.member##_count = 1;                                                                                       \
        org_of[n] = r->member[i].org;                                                                                 \
        n += page_entities(&one, r->member[i].org, out + n);                                                          \
    }
    ONE_OF(org)
    ONE_OF(proj)
    ONE_OF(team)
    ONE_OF(user)
#undef ONE_OF
    return n;
}

/* The scan's pages in the same terms: at most n entities each, fewer only
 * on the last, every entity of every partition once (a scan's order is the
 * table's, not one partition's). */
static void test_table_scan_pages(void **state)
{
    (void)state;
    for (size_t s = 0; s < sizeof seeds / sizeof *seeds; s++) {
        ddb *db = open_db();
        uint32_t rnd = seeds[s];
        partition p[N_ORGS];
        size_t total = 0;
        for (int i = 0; i < N_ORGS; i++) {
            char name[16];
            snprintf(name, sizeof name, "o%d", i);
            fill(db, &rnd, name, &p[i]);
            total += p[i].n;
        }
        for (uint32_t n = 1; n <= 7; n++) {
            ddb_error err;
            ddb_arena *a = ddb_arena_new();
            ddb_ent_read_opts o = {.page_size = n};
            bool seen[N_ORGS][MAX_ENTITIES];
            memset(seen, 0, sizeof seen);
            size_t at = 0;
            bool short_seen = false;
            do {
                pg_scan_result r;
                OK(pg_scan(db, 0, 0, &o, a, &r, &err));
                assert_true(r.page.count <= n);
                assert_false(short_seen);
                if (r.page.count < n)
                    short_seen = true;
                /* each entity whole, found in its partition's list, once */
                ent got[MAX_ENTITIES * N_ORGS];
                const char *org_of[MAX_ENTITIES * N_ORGS];
                size_t k = scan_entities(&r, got, org_of);
                assert_int_equal(k, r.page.count);
                /* the entries: every entity of the page once, each pointing into its array */
                size_t per_kind[PG_SCAN_MEMBERS] = {0};
                for (size_t j = 0; j < k; j++) {
                    const pg_scan_entry *x = &r.entries[j];
                    assert_true(x->kind < PG_SCAN_MEMBERS);
                    per_kind[x->kind]++;
                }
                assert_int_equal(per_kind[PG_SCAN_ORG], r.org_count);
                assert_int_equal(per_kind[PG_SCAN_PROJ], r.proj_count);
                assert_int_equal(per_kind[PG_SCAN_TEAM], r.team_count);
                assert_int_equal(per_kind[PG_SCAN_USER], r.user_count);
                for (size_t j = 0; j < k; j++)
                    for (size_t i2 = j + 1; i2 < k; i2++)
                        assert_true(r.entries[j].mask != r.entries[i2].mask);
                for (size_t j = 0; j < k; j++) {
                    int i = 0;
                    while (i < N_ORGS && strcmp(p[i].org, org_of[j]))
                        i++;
                    assert_true(i < N_ORGS);
                    size_t x = 0;
                    while (x < p[i].n && !same_ent(p[i].e[x], got[j]))
                        x++;
                    assert_true(x < p[i].n);
                    assert_false(seen[i][x]);
                    seen[i][x] = true;
                }
                at += r.page.count;
                o.cursor = r.page.cursor;
            } while (o.cursor);
            assert_int_equal(at, total);
            ddb_arena_free(a);
        }
        close_db(db);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_collection_pages),
        cmocka_unit_test(test_table_scan_pages),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
