/* music_main.c — a user's program on the module ddbgen generates from
 * schemas/music.h (music streaming), on the READ side: an access pattern
 * at every sort-key level and op (EQ, BEGINS, <, <=, >, >=, BETWEEN),
 * descending order, pages and cursors (a cursor resumes exactly, twice),
 * count-only, projections with masks, declared queries with filters, a
 * collection with a sharded member paged one item at a time, a KEYS_ONLY
 * and an INCLUDE index (what the masks say; fetch_base), typed scans with
 * segments (their union is the whole), a batch get of more than 100 keys
 * (BatchGetItem's limit), TTL-expired items invisible.  Embedded engine,
 * remote backend against `ddb serve`, and dynalite.
 *
 * usage: music_main [--dynalite] [URI]   (file:DIR or http://HOST:PORT; default
 * $DDB_TEST_URI; --dynalite: the endpoint has no UpdateTimeToLive and no
 * transactions: the table is created without TTL, the TTL checks are left
 * out and the sharded artists are batch-written);
 * exit 0 = every check held. */
#include "music_ddb.h"

#include "../trial_check.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { BIG = 150 };

static bool dynalite;

static void load(ddb *db)
{
    ddb_error err = {0};
    struct artist ar[2] = {{.artist = "A1", .name = "Aurora", .followers = 1000, .bio = "Norwegian singer"},
                           {.artist = "A3", .name = "Big Band", .followers = 5}};
    for (int i = 0; i < 2 && !dynalite; i++) /* a put of a sharded entity is a transaction */
        OK(artist_put(db, &ar[i], NULL, NULL, &err));
    if (dynalite)
        OK(artist_batch_put(db, ar, 2, NULL, NULL, &err));
    /* A1: ALB1 (pop, 2019) tracks 1..12, ALB2 (rock, 2021) tracks 1..8 */
    for (int al = 1; al <= 2; al++)
        for (int no = 1; no <= (al == 1 ? 12 : 8); no++) {
            struct track t = {.artist = "A1", .no = no, .year = al == 1 ? 2019 : 2021,
                              .plays = no * 100 + al * 7, .seconds = 150 + no * 10};
            snprintf(t.album, sizeof t.album, "ALB%d", al);
            snprintf(t.track_id, sizeof t.track_id, "T%d%02d", al, no);
            snprintf(t.title, sizeof t.title, "Song %d.%d", al, no);
            snprintf(t.genre, sizeof t.genre, "%s", al == 1 ? "pop" : "rock");
            OK(track_put(db, &t, NULL, NULL, &err));
        }
    /* A2: three pop tracks of 2020 */
    for (int no = 1; no <= 3; no++) {
        struct track t = {.artist = "A2", .album = "SOLO", .no = no, .genre = "pop", .year = 2020,
                          .plays = 50 + no, .seconds = 200};
        snprintf(t.track_id, sizeof t.track_id, "U%02d", no);
        snprintf(t.title, sizeof t.title, "Solo %d", no);
        OK(track_put(db, &t, NULL, NULL, &err));
    }
    /* A4: album names that are prefixes of each other (ALB1, ALB10) */
    for (int i = 1; i <= 5; i++) {
        struct track t = {.artist = "A4", .no = i, .genre = "folk", .year = 1999, .plays = i, .seconds = 100};
        snprintf(t.album, sizeof t.album, "%s", i <= 2 ? "ALB1" : "ALB10");
        snprintf(t.track_id, sizeof t.track_id, "F%d", i);
        snprintf(t.title, sizeof t.title, "Folk %d", i);
        OK(track_put(db, &t, NULL, NULL, &err));
    }
    /* A3: a big album of jazz, batch-put */
    static struct track big[BIG];
    for (int no = 1; no <= BIG; no++) {
        struct track *t = &big[no - 1];
        memset(t, 0, sizeof *t);
        snprintf(t->artist, sizeof t->artist, "A3");
        snprintf(t->album, sizeof t->album, "BIG");
        t->no = no;
        snprintf(t->track_id, sizeof t->track_id, "J%03d", no);
        snprintf(t->title, sizeof t->title, "Take %d", no);
        snprintf(t->genre, sizeof t->genre, "jazz");
        t->year = 2000 + no % 20;
        t->plays = no;
        t->seconds = 300;
    }
    OK(track_batch_put(db, big, BIG, NULL, NULL, &err));
}

/* the track numbers of ALB1 (artist A1) a level condition selects */
static size_t nos(ddb *db, ddb_arena *a, track_table_sk sk, const ddb_ent_read_opts *o, int *first)
{
    ddb_error err = {0};
    track_page p;
    OK(track_table(db, "A1", sk, o, a, &p, &err));
    *first = p.count ? p.items[0].no : -1;
    for (size_t i = 0; i < p.count; i++)
        CHECK(strcmp(p.items[i].artist, "A1") == 0 && p.items[i].title[0], "a whole track: %s/%s", p.items[i].artist,
              p.items[i].title);
    return p.count;
}

static void levels(ddb *db, ddb_arena *a)
{
    int f;
    /* the album level (a string field followed by more key text) */
    CHECK(nos(db, a, track_table_all(), NULL, &f) == 20 && f == 1, "all tracks of A1 (not the artist)");
    CHECK(nos(db, a, track_table_album(DDB_ENT_SK_EQ, "ALB1"), NULL, &f) == 12, "album = ALB1");
    CHECK(nos(db, a, track_table_album(DDB_ENT_SK_EQ, "ALB"), NULL, &f) == 0, "album = ALB is not ALB1");
    CHECK(nos(db, a, track_table_album(DDB_ENT_SK_BEGINS, "ALB"), NULL, &f) == 20, "album begins ALB");
    /* "#META" (the artist's shard items) sorts before "ALBUM#": a range
     * below a value must not reach it */
    CHECK(nos(db, a, track_table_album(DDB_ENT_SK_LT, "ALB2"), NULL, &f) == 12, "album < ALB2");
    CHECK(nos(db, a, track_table_album(DDB_ENT_SK_LE, "ALB1"), NULL, &f) == 12, "album <= ALB1");
    CHECK(nos(db, a, track_table_album(DDB_ENT_SK_GT, "ALB1"), NULL, &f) == 8, "album > ALB1");
    CHECK(nos(db, a, track_table_album(DDB_ENT_SK_GE, "ALB2"), NULL, &f) == 8, "album >= ALB2");
    CHECK(nos(db, a, track_table_album_between("ALB0", "ALB1"), NULL, &f) == 12, "ALB0..ALB1");
    /* the track level (the last field, padded) */
    CHECK(nos(db, a, track_table_no(DDB_ENT_SK_EQ, "ALB1", 5), NULL, &f) == 1 && f == 5, "no = 5");
    CHECK(nos(db, a, track_table_no(DDB_ENT_SK_LT, "ALB1", 5), NULL, &f) == 4 && f == 1, "no < 5");
    CHECK(nos(db, a, track_table_no(DDB_ENT_SK_LE, "ALB1", 5), NULL, &f) == 5, "no <= 5");
    CHECK(nos(db, a, track_table_no(DDB_ENT_SK_GT, "ALB1", 10), NULL, &f) == 2 && f == 11, "no > 10");
    CHECK(nos(db, a, track_table_no(DDB_ENT_SK_GE, "ALB1", 10), NULL, &f) == 3 && f == 10, "no >= 10");
    CHECK(nos(db, a, track_table_no_between("ALB1", 3, 6), NULL, &f) == 4 && f == 3, "3..6");
    CHECK(nos(db, a, track_table_no(DDB_ENT_SK_GT, "ALB2", 7), NULL, &f) == 1 && f == 8, "ALB2 no > 7");

    /* a level's value that is a prefix of another's: ALB1 is not ALB10 */
    ddb_error err = {0};
    track_page p;
    struct { ddb_ent_sk_op op; const char *lo, *hi; size_t want; } alb[] = {
        {DDB_ENT_SK_EQ, "ALB1", NULL, 2},       {DDB_ENT_SK_BEGINS, "ALB1", NULL, 5},
        {DDB_ENT_SK_LE, "ALB1", NULL, 2},       {DDB_ENT_SK_LT, "ALB10", NULL, 2},
        {DDB_ENT_SK_GT, "ALB1", NULL, 3},       {DDB_ENT_SK_GE, "ALB10", NULL, 3},
        {DDB_ENT_SK_BETWEEN, "ALB1", "ALB1", 2}, {DDB_ENT_SK_BETWEEN, "ALB10", "ALB2", 3},
    };
    for (size_t i = 0; i < sizeof alb / sizeof alb[0]; i++) {
        track_table_sk sk = alb[i].op == DDB_ENT_SK_BETWEEN ? track_table_album_between(alb[i].lo, alb[i].hi)
                                                             : track_table_album(alb[i].op, alb[i].lo);
        OK(track_table(db, "A4", sk, NULL, a, &p, &err));
        CHECK(p.count == alb[i].want, "A4 album op %d %s..%s: %zu, want %zu", (int)alb[i].op, alb[i].lo,
              alb[i].hi ? alb[i].hi : "", p.count, alb[i].want);
    }

    /* descending */
    ddb_ent_read_opts back = {.backward = true};
    CHECK(nos(db, a, track_table_album(DDB_ENT_SK_EQ, "ALB1"), &back, &f) == 12 && f == 12, "backward: %d", f);
    CHECK(nos(db, a, track_table_no(DDB_ENT_SK_LT, "ALB1", 5), &back, &f) == 4 && f == 4, "backward < 5: %d", f);

    /* count only */
    ddb_ent_read_opts cnt = {.count_only = true};
    OK(track_table(db, "A1", track_table_no(DDB_ENT_SK_GE, "ALB1", 4), &cnt, a, &p, &err));
    CHECK(p.count == 9 && !p.items, "count only: %zu", p.count);
}

static void pages(ddb *db, ddb_arena *a)
{
    ddb_error err = {0};
    track_page p;
    /* page size 5 over the 12 tracks of ALB1, descending: 12..8, 7..3, 2..1 */
    ddb_ent_read_opts o = {.page_size = 5, .backward = true};
    int want = 12;
    size_t npages = 0;
    const char *second = NULL;
    do {
        OK(track_table(db, "A1", track_table_album(DDB_ENT_SK_EQ, "ALB1"), &o, a, &p, &err));
        for (size_t i = 0; i < p.count; i++, want--)
            CHECK(p.items[i].no == want, "page %zu item %zu: no %d, want %d", npages, i, p.items[i].no, want);
        if (npages == 0)
            second = p.cursor;
        o.cursor = p.cursor;
    } while (p.cursor && ++npages < 10);
    CHECK(want == 0 && npages == 2, "three pages: want %d pages %zu", want, npages);
    /* the first page's cursor resumes exactly, however often it is used */
    for (int k = 0; k < 2; k++) {
        o.cursor = second;
        OK(track_table(db, "A1", track_table_album(DDB_ENT_SK_EQ, "ALB1"), &o, a, &p, &err));
        CHECK(p.count == 5 && p.items[0].no == 7 && p.items[4].no == 3 && p.cursor, "resume %d: %zu from %d", k,
              p.count, p.count ? p.items[0].no : -1);
    }

    /* a cursor is bounded input: garbage, or one of another partition, is a
     * clear error, not a crash or a silent restart (API_Query,
     * ExclusiveStartKey: "The provided starting key is invalid" / "outside
     * query boundaries") */
    ddb_ent_read_opts bad = {.cursor = "not a cursor!"};
    int rc = track_table(db, "A1", track_table_all(), &bad, a, &p, &err);
    CHECK(rc != 0 && err.message[0], "garbage cursor: %s: %s", ddb_strerror(rc), err.message);
    bad.cursor = second;
    rc = track_table(db, "A2", track_table_all(), &bad, a, &p, &err);
    CHECK(rc != 0 && err.message[0], "another partition's cursor: %s: %s", ddb_strerror(rc), err.message);

    /* a projection: the title and the key fields (always read: entity.h,
     * ddb_ent_read_opts.fields); the masks say so */
    ddb_ent_mask title = track_mask(TRACK_F_TITLE);
    ddb_ent_read_opts po = {.fields = &title};
    OK(track_table(db, "A1", track_table_no(DDB_ENT_SK_LE, "ALB2", 2), &po, a, &p, &err));
    CHECK(p.count == 2, "projection: %zu", p.count);
    for (size_t i = 0; i < p.count; i++)
        CHECK(ddb_ent_mask_has(&p.masks[i], TRACK_FN_TITLE) && !ddb_ent_mask_has(&p.masks[i], TRACK_FN_PLAYS) &&
                  ddb_ent_mask_has(&p.masks[i], TRACK_FN_NO) && p.items[i].plays == 0 && p.items[i].no == (int32_t)i + 1 &&
                  strncmp(p.items[i].title, "Song 2.", 7) == 0,
              "projected track %zu: %s plays %" PRId64 " mask %" PRIx64, i, p.items[i].title, p.items[i].plays,
              p.masks[i].w[0]);

    /* a declared query: tracks of an album longer than :s (seconds 160..270) */
    OK(track_long_on_album(db, "A1", "ALB1", 200, NULL, a, &p, &err));
    CHECK(p.count == 7 && p.scanned_count == 12, "long tracks: %zu of %zu", p.count, p.scanned_count);
    /* with a page size: Limit counts items read before the filter (DynamoDB
     * Query, "Limit"), so a page may hold fewer; the pages add up */
    ddb_ent_read_opts lo = {.page_size = 4};
    size_t total = 0, guard = 0;
    do {
        OK(track_long_on_album(db, "A1", "ALB1", 200, &lo, a, &p, &err));
        total += p.count;
        lo.cursor = p.cursor;
    } while (p.cursor && ++guard < 10);
    CHECK(total == 7, "long tracks over pages: %zu", total);
}

static void indexes(ddb *db, ddb_arena *a)
{
    ddb_error err = {0};
    track_page p;
    /* KEYS_ONLY: the keys, parsed back through the templates */
    OK(track_years(db, "pop", 2019, 2020, NULL, a, &p, &err));
    CHECK(p.count == 15, "pop 2019..2020: %zu", p.count);
    for (size_t i = 0; i < p.count; i++) {
        const ddb_ent_mask *m = &p.masks[i];
        CHECK(ddb_ent_mask_has(m, TRACK_FN_GENRE) && ddb_ent_mask_has(m, TRACK_FN_YEAR) &&
                  ddb_ent_mask_has(m, TRACK_FN_TRACK_ID) && ddb_ent_mask_has(m, TRACK_FN_ARTIST) &&
                  ddb_ent_mask_has(m, TRACK_FN_ALBUM) && ddb_ent_mask_has(m, TRACK_FN_NO) &&
                  !ddb_ent_mask_has(m, TRACK_FN_TITLE) && !ddb_ent_mask_has(m, TRACK_FN_PLAYS),
              "KEYS_ONLY masks of %s", p.items[i].track_id);
        CHECK(p.items[i].title[0] == 0 && p.items[i].no >= 1 && strcmp(p.items[i].genre, "pop") == 0,
              "KEYS_ONLY item %zu: no %d", i, p.items[i].no);
    }
    ddb_ent_read_opts fb = {.fetch_base = true};
    OK(track_years(db, "pop", 2020, 2020, &fb, a, &p, &err));
    CHECK(p.count == 3 && ddb_ent_mask_has(&p.masks[0], TRACK_FN_TITLE) && strncmp(p.items[0].title, "Solo", 4) == 0 &&
              p.items[0].seconds == 200,
          "fetch_base: %zu %s", p.count, p.count ? p.items[0].title : "");
    OK(track_by_genre(db, "pop", track_by_genre_year(DDB_ENT_SK_GT, 2019), NULL, a, &p, &err));
    CHECK(p.count == 3, "pop after 2019: %zu", p.count);

    /* INCLUDE (title, plays): the chart of a genre, most played first */
    ddb_ent_read_opts top = {.backward = true, .page_size = 3};
    OK(track_chart(db, "rock", track_chart_all(), &top, a, &p, &err));
    CHECK(p.count == 3 && p.items[0].plays == 814 && strcmp(p.items[0].title, "Song 2.8") == 0 && p.cursor,
          "rock chart: %zu, %" PRId64, p.count, p.count ? p.items[0].plays : 0);
    for (size_t i = 0; i < p.count; i++)
        CHECK(ddb_ent_mask_has(&p.masks[i], TRACK_FN_TITLE) && ddb_ent_mask_has(&p.masks[i], TRACK_FN_PLAYS) &&
                  !ddb_ent_mask_has(&p.masks[i], TRACK_FN_SECONDS) && !ddb_ent_mask_has(&p.masks[i], TRACK_FN_YEAR) &&
                  p.items[i].seconds == 0,
              "INCLUDE masks of %zu", i);
    top.fetch_base = true;
    top.cursor = p.cursor;
    OK(track_chart(db, "rock", track_chart_all(), &top, a, &p, &err));
    CHECK(p.count == 3 && p.items[0].plays == 514 && p.items[0].seconds == 200 && p.items[0].year == 2021 &&
              ddb_ent_mask_has(&p.masks[0], TRACK_FN_SECONDS),
          "chart page 2, fetch_base: %zu", p.count);
    OK(track_chart(db, "jazz", track_chart_plays_between(10, 19), NULL, a, &p, &err));
    CHECK(p.count == 10 && p.items[0].plays == 10, "jazz plays 10..19: %zu", p.count);
}

static void collection(ddb *db, ddb_arena *a)
{
    ddb_error err = {0};
    /* A1's discography: the artist (two shard items) and 20 tracks, one
     * item a page: a page boundary falls between the artist's shard items */
    for (int dir = 0; dir < 2; dir++) {
        mus_discography_result r;
        ddb_ent_read_opts o = {.page_size = 1, .backward = dir == 1};
        size_t artists = 0, tracks = 0, guard = 0;
        do {
            OK(mus_query_discography(db, "A1", NULL, &o, a, &r, &err));
            artists += r.artist_count;
            tracks += r.track_count;
            if (r.artist_count)
                CHECK(strcmp(r.artist[0].name, "Aurora") == 0 && r.artist[0].bio &&
                          strcmp(r.artist[0].bio, "Norwegian singer") == 0 && r.artist[0].followers == 1000,
                      "the artist whole, dir %d", dir);
            o.cursor = r.page.cursor;
        } while (r.page.cursor && ++guard < 60);
        CHECK(artists == 1 && tracks == 20, "discography dir %d: %zu artists %zu tracks", dir, artists, tracks);
    }
    /* a projection per member: the artist's bio only (its B shard) */
    ddb_ent_mask bio = artist_mask(ARTIST_F_BIO);
    const ddb_ent_mask *mf[MUS_DISCOGRAPHY_MEMBERS] = {0};
    mf[MUS_DISCOGRAPHY_ARTIST] = &bio;
    ddb_ent_read_opts po = {.member_fields = mf, .page_size = 1};
    mus_discography_result r;
    OK(mus_query_discography(db, "A1", NULL, &po, a, &r, &err));
    CHECK(r.artist_count == 1 && r.artist[0].bio && r.artist[0].name[0] == 0 &&
              ddb_ent_mask_has(&r.artist_masks[0], ARTIST_FN_BIO) &&
              !ddb_ent_mask_has(&r.artist_masks[0], ARTIST_FN_NAME),
          "artist bio only: %zu", r.artist_count);
}

static void scans_and_batches(ddb *db, ddb_arena *a)
{
    ddb_error err = {0};
    enum { ALL = 20 + 3 + BIG + 5 };
    static bool seen[ALL];
    size_t total = 0, dup = 0;
    /* four segments of the typed scan: each track once, all of them */
    for (uint32_t seg = 0; seg < 4; seg++) {
        ddb_ent_read_opts o = {.page_size = 17};
        track_page p;
        size_t guard = 0;
        do {
            OK(track_scan(db, seg, 4, &o, a, &p, &err));
            for (size_t i = 0; i < p.count; i++) {
                const char *id = p.items[i].track_id;
                int k = id[0] == 'T' ? (id[1] - '1') * 12 + atoi(id + 2) - 1
                        : id[0] == 'U' ? 20 + atoi(id + 1) - 1
                        : id[0] == 'J' ? 23 + atoi(id + 1) - 1
                                       : 23 + BIG + atoi(id + 1) - 1;
                if (k < 0 || k >= ALL || seen[k])
                    dup++;
                else
                    seen[k] = true;
            }
            total += p.count;
            o.cursor = p.cursor;
        } while (p.cursor && ++guard < 100);
    }
    CHECK(total == ALL && dup == 0, "segments: %zu tracks (want %d), %zu repeated", total, ALL, dup);
    /* the declared scan by segments */
    size_t pop = 0;
    for (uint32_t seg = 0; seg < 3; seg++) {
        track_page p;
        OK(track_popular(db, 800, seg, 3, NULL, a, &p, &err));
        pop += p.count;
    }
    CHECK(pop == 5 + 1, "plays >= 800: %zu", pop); /* ALB1 8..12, ALB2 8 */
    /* the table scan by segments: every type */
    size_t nart = 0, ntr = 0;
    for (uint32_t seg = 0; seg < 2; seg++) {
        mus_scan_result s;
        ddb_ent_read_opts o = {.page_size = 40};
        size_t guard = 0;
        do {
            OK(mus_scan(db, seg, 2, &o, a, &s, &err));
            nart += s.artist_count;
            ntr += s.track_count;
            o.cursor = s.page.cursor;
        } while (s.page.cursor && ++guard < 100);
    }
    CHECK(nart == 2 && ntr == ALL, "table scan: %zu artists %zu tracks", nart, ntr);

    /* a batch get of more keys than BatchGetItem takes (100), some missing */
    enum { NK = BIG + 2 };
    static struct track keys[NK], out[NK];
    static bool found[NK];
    for (int i = 0; i < NK; i++) {
        snprintf(keys[i].artist, sizeof keys[i].artist, "A3");
        snprintf(keys[i].album, sizeof keys[i].album, "BIG");
        keys[i].no = i < BIG ? BIG - i : 900 + i; /* descending, then two missing */
    }
    OK(track_batch_get(db, keys, NK, NULL, a, out, NULL, found, &err));
    size_t nf = 0, right = 0;
    for (int i = 0; i < NK; i++) {
        nf += found[i];
        right += found[i] && out[i].no == keys[i].no && out[i].plays == keys[i].no;
    }
    CHECK(nf == BIG && right == BIG && !found[BIG] && !found[BIG + 1], "batch get: %zu found, %zu in place", nf,
          right);
    /* with a projection: masks per result */
    static ddb_ent_mask masks[NK];
    ddb_ent_mask plays = track_mask(TRACK_F_PLAYS);
    ddb_ent_read_opts po = {.fields = &plays};
    OK(track_batch_get(db, keys, NK, &po, a, out, masks, found, &err));
    CHECK(found[0] && out[0].plays == BIG && out[0].title[0] == 0 && ddb_ent_mask_has(&masks[0], TRACK_FN_PLAYS) &&
              !ddb_ent_mask_has(&masks[0], TRACK_FN_TITLE),
          "projected batch get");
}

static void ttl(ddb *db, ddb_arena *a)
{
    ddb_error err = {0};
    /* DynamoDB deletes expired items eventually; ddb hides them from reads
     * at once (docs/STREAMS.md).  An expiry more than five years in the past
     * is ignored, as DynamoDB ignores it (Developer Guide, "Time to Live",
     * formatting an item's TTL attribute): the expired ones expired an hour ago. */
    int64_t hour_ago = (int64_t)time(NULL) - 3600;
    for (int i = 0; i < 6; i++) {
        struct listen l = {.user = "u1", .at_ms = 1764200000000 + i, .track_id = "T101",
                           .expires = i % 2 ? hour_ago : 4102444800};
        OK(listen_put(db, &l, NULL, NULL, &err));
    }
    struct listen g;
    RC(DDB_ENOTFOUND, listen_get(db, "u1", 1764200000001, NULL, a, &g, &err));
    OK(listen_get(db, "u1", 1764200000002, NULL, a, &g, &err));
    listen_page p;
    OK(listen_table(db, "u1", listen_table_all(), NULL, a, &p, &err));
    CHECK(p.count == 3, "live listens: %zu", p.count);
    ddb_ent_read_opts cnt = {.count_only = true};
    OK(listen_table(db, "u1", listen_table_at_ms(DDB_ENT_SK_GE, 1764200000001), &cnt, a, &p, &err));
    CHECK(p.count == 2, "live listens counted: %zu", p.count);
    struct listen k[2] = {{.user = "u1", .at_ms = 1764200000003}, {.user = "u1", .at_ms = 1764200000004}};
    struct listen o[2];
    bool f[2];
    OK(listen_batch_get(db, k, 2, NULL, a, o, NULL, f, &err));
    CHECK(!f[0] && f[1], "batch get hides the expired");
}

int main(int argc, char **argv)
{
    dynalite = argc > 1 && strcmp(argv[1], "--dynalite") == 0;
    if (dynalite) {
        argc--;
        argv++;
    }
    const char *uri = trial_uri(argc, argv);
    if (!uri)
        return 2;
    ddb *db = trial_open(uri, NULL);
    if (!db)
        return 1;
    ddb_error err = {0};
    ddb_arena *a = ddb_arena_new();
    int rc = 0;
    if (dynalite) {
        ddb_table_def t = mus_table.def;
        t.ttl_attribute = NULL;
        rc = ddb_create_table(db, &t, &err);
        CHECK(rc == 0 || rc == DDB_EEXISTS, "create without TTL: %s", err.message);
    }
    rc = mus_open(db, &err);
    CHECK(rc == 0, "mus_open: %s", err.message);
    if (rc == 0) {
        load(db);
        levels(db, a);
        pages(db, a);
        indexes(db, a);
        collection(db, a);
        scans_and_batches(db, a);
        if (!dynalite)
            ttl(db, a);
    }
    return trial_done(argv[0], db, a);
}
