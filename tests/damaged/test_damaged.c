/* Damaged and hostile database files: a file may come from elsewhere, so
 * every length, count and offset read from it is bounded before use.  Each
 * case writes a real database, damages it (patching data.mdb's bytes, or
 * writing a bad record through LMDB with the internal layouts) and shows
 * that the API answers DDB_ECORRUPT naming the table and the key, where it
 * used to overflow a stack buffer (ASan: stack-buffer-overflow), read past
 * a key, or use a malformed definition. */
#include <ddb/ddb.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cmocka.h>

#include "core/codec.h"
#include "api/records.h"
#include "core/keycodec.h"
#include "damaged_util.h"

static char dir[1024];

#define OK(expr)                                                                                                      \
    do {                                                                                                              \
        int rc_ = (expr);                                                                                             \
        if (rc_ != 0)                                                                                                 \
            fail_msg("%s -> %d (%s)", #expr, rc_, err.message);                                                       \
    } while (0)

#define EXPECT_CORRUPT(expr, ...)                                                                                     \
    do {                                                                                                              \
        int rc_ = (expr);                                                                                             \
        if (rc_ != DDB_ECORRUPT)                                                                                      \
            fail_msg("%s -> %d (%s), DDB_ECORRUPT expected", #expr, rc_, err.message);                                \
        const char *want_[] = {__VA_ARGS__};                                                                          \
        for (size_t i_ = 0; i_ < sizeof want_ / sizeof *want_; i_++)                                                  \
            if (!strstr(err.message, want_[i_]))                                                                      \
                fail_msg("\"%s\" not in the message: %s", want_[i_], err.message);                                    \
    } while (0)

static ddb *open_fresh(const char *tag)
{
    dmg_dir(dir, sizeof dir, tag);
    ddb *db = NULL;
    ddb_error err = {0};
    ddb_options o = {.sync = DDB_SYNC_LAZY}; /* no sync per write: the cases write hundreds */
    OK(ddb_open(dir, &o, &db, &err));
    return db;
}

/* Table Tab (PK, SK strings) with a GSI Gsi on (GP, GS), both strings, and
 * TTL on attribute exp (which no item has). */
static void create_t(ddb *db)
{
    ddb_index_def ix = {.name = "Gsi", .key = {.pk = "GP", .pk_type = DDB_TS, .sk = "GS", .sk_type = DDB_TS}};
    ddb_table_def def = {.name = "Tab",
                         .key = {.pk = "PK", .pk_type = DDB_TS, .sk = "SK", .sk_type = DDB_TS},
                         .indexes = &ix,
                         .n_indexes = 1,
                         .ttl_attribute = "exp"};
    ddb_error err = {0};
    OK(ddb_create_table(db, &def, &err));
}

static void put(ddb *db, const char *table, const char *pk, const char *sk, const char *gp, const char *gs)
{
    ddb_arena *a = ddb_arena_new();
    ddb_item *it = ddb_item_new(a);
    ddb_error err = {0};
    ddb_item_set_s(it, "PK", pk);
    if (sk)
        ddb_item_set_s(it, "SK", sk);
    if (gp)
        ddb_item_set_s(it, "GP", gp);
    if (gs)
        ddb_item_set_s(it, "GS", gs);
    OK(ddb_put_item(db, table, it, NULL, a, NULL, &err));
    ddb_arena_free(a);
}

/* A second table of 1 KB items, written last: the pages it takes lie past
 * the ones patched, so a key lengthened by a patch stays inside the file. */
static void pad(ddb *db)
{
    ddb_table_def def = {.name = "Pad", .key = {.pk = "PK", .pk_type = DDB_TS, .sk = NULL, .sk_type = 0}};
    ddb_error err = {0};
    OK(ddb_create_table(db, &def, &err));
    char pk[16], gs[1024];
    memset(gs, 'p', sizeof gs - 1);
    gs[sizeof gs - 1] = '\0';
    for (int i = 0; i < 200; i++) {
        snprintf(pk, sizeof pk, "pad%d", i);
        put(db, "Pad", pk, NULL, NULL, gs);
    }
}

static int query_index(ddb *db, const char *gp, ddb_error *err)
{
    ddb_arena *a = ddb_arena_new();
    ddb_query_params q = {.table = "Tab", .index = "Gsi", .pk = ddb_v_str(a, gp)};
    ddb_page page;
    int rc = ddb_query(db, &q, a, &page, err);
    ddb_arena_free(a);
    return rc;
}

static int scan(ddb *db, const char *table, const char *index, ddb_error *err)
{
    ddb_arena *a = ddb_arena_new();
    ddb_scan_params s = {.table = table, .index = index};
    ddb_page page;
    int rc = ddb_scan(db, &s, a, &page, err);
    ddb_arena_free(a);
    return rc;
}

/* Find the stored nodes holding key k in data.mdb (the node's key size,
 * little-endian u16, just before the key) and overwrite the key's bytes
 * from off on with len bytes of b in each (the live page and any stale
 * copies copy-on-write left in free pages). */
static void patch_key(const ddb_key *k, ptrdiff_t off, const void *b, size_t len)
{
    size_t n, found = 0;
    unsigned char *f = dmg_read(dir, &n);
    assert_non_null(f);
    for (size_t i = 8; i + k->len <= n; i++)
        if (memcmp(f + i, k->b, k->len) == 0 && f[i - 2] == (k->len & 0xff) && f[i - 1] == k->len >> 8) {
            memcpy(f + i + off, b, len);
            found++;
        }
    assert_true(found >= 1);
    assert_int_equal(dmg_write(dir, f, n), 0);
    free(f);
}

static ddb_key table_key(const char *pk, const char *sk)
{
    ddb_arena *a = ddb_arena_new();
    ddb_key k;
    ddbi_key_make(&k, ddb_v_str(a, pk), ddb_v_str(a, sk));
    ddb_arena_free(a);
    return k;
}

/* Issue 11, item 1: an index key whose stored length (the LMDB node's key
 * size) says 1,000 bytes; ddb_query copied it into a 511-byte stack
 * buffer.  The long sort key (> 479 bytes) makes the key 511 bytes, the
 * form whose runs Query gathers and re-sorts. */
static void test_query_long_key_length(void **state)
{
    (void)state;
    ddb *db = open_fresh("longkey");
    create_t(db);
    char gs[601];
    memset(gs, 'x', 600);
    gs[600] = '\0';
    put(db, "Tab", "p1", "s1", "g", gs);
    pad(db);
    ddb_close(db);

    ddb_key k = table_key("g", gs);
    assert_int_equal(k.len, DDB_KEY_MAX);
    /* the index entry's node: its key size becomes 1000 */
    patch_key(&k, -2, (const unsigned char[]){1000 & 0xff, 1000 >> 8}, 2);

    ddb_error err = {0};
    OK(ddb_open(dir, NULL, &db, &err));
    EXPECT_CORRUPT(query_index(db, "g", &err), "table Tab", "an index key has 1000 bytes", "(1000 bytes)");
    EXPECT_CORRUPT(scan(db, "Tab", "Gsi", &err), "table Tab", "an index key has 1000 bytes");
    OK(scan(db, "Tab", NULL, &err)); /* the table itself is intact */
    ddb_close(db);
    dmg_rmdir(dir);
}

/* A stored item key shorter than a digest: Scan read 8 bytes of it as the
 * partition hash. */
static void test_short_item_key(void **state)
{
    (void)state;
    ddb *db = open_fresh("shortkey");
    create_t(db);
    put(db, "Tab", "p1", "s1", NULL, NULL);
    ddb_close(db);
    dmg_raw w;
    assert_int_equal(dmg_raw_open(&w, dir), 0);
    static const unsigned char rec[] = {1, 0, 0}; /* version 1, size 0, no attributes */
    assert_int_equal(dmg_raw_put(&w, "i/Tab", 0, "\x01short", 6, rec, sizeof rec), 0);
    assert_int_equal(dmg_raw_close(&w), 0);
    ddb_error err = {0};
    OK(ddb_open(dir, NULL, &db, &err));
    EXPECT_CORRUPT(scan(db, "Tab", NULL, &err), "table Tab", "an item key has 6 bytes", "key 0173686f7274");
    ddb_close(db);
    dmg_rmdir(dir);
}

/* Issue 11 follow-up, scoped by issue 22: a handle that has seen
 * DDB_ECORRUPT in a table writes nothing more to that table (LMDB trusts
 * the pages it writes through: a write into a damaged tree can spread the
 * damage); every later write to it, alone, in a batch or in a transaction,
 * is DDB_ECORRUPT naming it, while the other tables take writes. */
static void test_no_writes_after_damage(void **state)
{
    (void)state;
    ddb *db = open_fresh("nowrite");
    create_t(db);
    put(db, "Tab", "p1", "s1", NULL, NULL);
    ddb_table_def two = {.name = "Two", .key = {.pk = "PK", .pk_type = DDB_TS, .sk = NULL, .sk_type = 0}};
    ddb_error err = {0};
    OK(ddb_create_table(db, &two, &err));
    ddb_close(db);
    dmg_raw w;
    assert_int_equal(dmg_raw_open(&w, dir), 0);
    static const unsigned char rec[] = {1, 0, 0};
    assert_int_equal(dmg_raw_put(&w, "i/Tab", 0, "\x01short", 6, rec, sizeof rec), 0);
    assert_int_equal(dmg_raw_close(&w), 0);

    OK(ddb_open(dir, NULL, &db, &err));
    /* reads of intact data work, and writes too until the damage is seen */
    put(db, "Two", "before", NULL, NULL, NULL);
    EXPECT_CORRUPT(scan(db, "Tab", NULL, &err), "an item key has 6 bytes");
    /* from then on the damaged table takes no writes (issue 22: the rule
     * is scoped to what is damaged); the other tables take them */
    ddb_arena *a = ddb_arena_new();
    ddb_item *it = ddb_item_new(a);
    ddb_item_set_s(it, "PK", "after");
    ddb_item_set_s(it, "SK", "s");
    EXPECT_CORRUPT(ddb_put_item(db, "Tab", it, NULL, a, NULL, &err), "table Tab is damaged",
                   "this handle writes nothing more to it");
    EXPECT_CORRUPT(ddb_delete_item(db, "Tab", it, NULL, a, NULL, &err), "table Tab is damaged");
    ddb_tx_op ops[2] = {{.kind = DDB_TX_PUT, .table = "Two", .item = it}, {.kind = DDB_TX_PUT, .table = "Tab", .item = it}};
    ddb_tx_result res;
    EXPECT_CORRUPT(ddb_transact_write(db, ops, 2, DDB_CAPACITY_NONE, a, &res, &err), "table Tab is damaged");
    ddb_batch_write_op bw = {.table = "Tab", .put = it};
    EXPECT_CORRUPT(ddb_batch_write(db, &bw, 1, DDB_CAPACITY_NONE, NULL, &err), "table Tab is damaged");
    OK(ddb_put_item(db, "Two", it, NULL, a, NULL, &err));
    OK(ddb_transact_write(db, ops, 1, DDB_CAPACITY_NONE, a, &res, &err));
    ddb_table_def three = {.name = "Three", .key = {.pk = "PK", .pk_type = DDB_TS, .sk = NULL, .sk_type = 0}};
    OK(ddb_create_table(db, &three, &err));
    /* reads go on */
    ddb_item *got = NULL;
    ddb_item *key = ddb_item_new(a);
    ddb_item_set_s(key, "PK", "before");
    OK(ddb_get_item(db, "Two", key, NULL, a, &got, NULL, &err));
    assert_non_null(got);
    ddb_arena_free(a);
    ddb_close(db);
    /* a fresh handle finds the damage again; nothing written spread it */
    OK(ddb_open(dir, NULL, &db, &err));
    EXPECT_CORRUPT(scan(db, "Tab", NULL, &err), "an item key has 6 bytes");
    OK(scan(db, "Two", NULL, &err));
    ddb_close(db);
    dmg_rmdir(dir);
}

/* An item record claiming a size far beyond its bytes: refused before the
 * size reaches page and capacity sums. */
static void test_record_size_bounded(void **state)
{
    (void)state;
    static const unsigned char rec[] = {1, 0x80, 0x80, 0x80, 0x80, 0x04, 0}; /* size 2^30, no attributes */
    size_t size = 0;
    assert_int_equal(ddbi_record_size(rec, sizeof rec, &size), DDB_ECORRUPT);
    static const unsigned char ok[] = {1, 3, 0}; /* an empty item counts 3 (its map) */
    assert_int_equal(ddbi_record_size(ok, sizeof ok, &size), DDB_OK);
    assert_int_equal(size, 3);
}

/* A damaged definition is that table's problem only (issue 22): the
 * database opens, the table answers DDB_ECORRUPT naming the damage. */
#define EXPECT_TABLE_CORRUPT(table, ...)                                                                              \
    do {                                                                                                              \
        OK(ddb_open(dir, NULL, &db, &err));                                                                           \
        ddb_arena *da_ = ddb_arena_new();                                                                             \
        ddb_table_desc *dd_;                                                                                          \
        EXPECT_CORRUPT(ddb_describe_table(db, table, da_, &dd_, &err), __VA_ARGS__);                                  \
        ddb_arena_free(da_);                                                                                          \
        ddb_close(db);                                                                                                \
    } while (0)

/* Rewrite the stored definition of Tab through LMDB: the record of an item
 * whose attribute name is set to v. */
static void put_definition(const char *name, ddb_value *v)
{
    ddb_arena *a = ddb_arena_new();
    ddb_item *def = ddb_item_new(a);
    ddb_item_set_s(def, "name", "Tab");
    ddb_item_set_s(def, "pk", "PK");
    ddb_item_set_i64(def, "pk_type", DDB_TS);
    ddb_item_set(def, name, v);
    ddb_buf b = {0};
    assert_int_equal(ddbi_encode_item(&b, ddb_item_map(def), ddb_item_size(def)), 0);
    dmg_raw w;
    assert_int_equal(dmg_raw_open(&w, dir), 0);
    assert_int_equal(dmg_raw_put(&w, "meta", 0, "t/Tab", 5, b.p, b.len), 0);
    assert_int_equal(dmg_raw_close(&w), 0);
    ddbi_buf_free(&b);
    ddb_arena_free(a);
}

/* Table metadata: a definition with an unknown key type, one whose name
 * differs from its key, a partition map that is not a whole number of
 * bounds.  The table answers each with DDB_ECORRUPT naming it. */
static void test_bad_definitions(void **state)
{
    (void)state;
    ddb_arena *a = ddb_arena_new();
    struct {
        const char *attr;
        ddb_value *v;
        const char *want;
    } cases[] = {
        {"pk_type", ddb_v_i64(a, 99), "its partition key is malformed"},
        {"name", ddb_v_str(a, "U"), "its name is missing or differs from its key"},
        {"sk", ddb_v_i64(a, 7), "its sort key is malformed"},
        {"indexes", ddb_v_str(a, "G"), "its index list is malformed"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        ddb *db = open_fresh("def");
        create_t(db);
        ddb_close(db);
        put_definition(cases[i].attr, cases[i].v);
        ddb_error err = {0};
        EXPECT_TABLE_CORRUPT("Tab", "table Tab", cases[i].want);
        dmg_rmdir(dir);
    }
    ddb_arena_free(a);

    ddb *db = open_fresh("bounds");
    create_t(db);
    ddb_close(db);
    dmg_raw w;
    assert_int_equal(dmg_raw_open(&w, dir), 0);
    assert_int_equal(dmg_raw_put(&w, "meta", 0, "p/Tab", 5, "\0\0\0\0\0\0\0\0\0\0\0\1", 12), 0);
    assert_int_equal(dmg_raw_close(&w), 0);
    ddb_error err = {0};
    EXPECT_TABLE_CORRUPT("Tab", "table Tab", "partition map has 12 bytes");
    assert_int_equal(dmg_raw_open(&w, dir), 0);
    assert_int_equal(dmg_raw_put(&w, "meta", 0, "p/Tab", 5, "\0\0\0\0\0\0\0\5\0\0\0\0\0\0\0\1", 16), 0);
    assert_int_equal(dmg_raw_close(&w), 0);
    EXPECT_TABLE_CORRUPT("Tab", "table Tab", "bound 0 is 0x0000000000000005");
    dmg_rmdir(dir);
}

/* Stream records: a malformed stream and TTL settings record damages the
 * table (it used to run without its stream, losing its records); a
 * malformed counters record fails the write (its sequence used to restart
 * at 1 over the stored records). */
static void test_bad_stream_records(void **state)
{
    (void)state;
    ddb *db = open_fresh("stream");
    ddb_table_def def = {.name = "Str", .key = {.pk = "PK", .pk_type = DDB_TS, .sk = NULL, .sk_type = 0}, .stream = {.view = DDB_STREAM_KEYS_ONLY}};
    ddb_error err = {0};
    OK(ddb_create_table(db, &def, &err));
    put(db, "Str", "p1", NULL, NULL, NULL);
    ddb_close(db);
    dmg_raw w;
    assert_int_equal(dmg_raw_open(&w, dir), 0);
    assert_int_equal(dmg_raw_put(&w, "streams", 0, "Str", 4, "\1\2\3", 3), 0); /* "Str\0": the counters */
    assert_int_equal(dmg_raw_close(&w), 0);
    OK(ddb_open(dir, NULL, &db, &err));
    ddb_arena *a = ddb_arena_new();
    ddb_item *it = ddb_item_new(a);
    ddb_item_set_s(it, "PK", "p2");
    EXPECT_CORRUPT(ddb_put_item(db, "Str", it, NULL, a, NULL, &err), "table Str",
                   "its stream counters record is malformed");
    ddb_arena_free(a);
    ddb_close(db);

    assert_int_equal(dmg_raw_open(&w, dir), 0);
    assert_int_equal(dmg_raw_put(&w, "meta", 0, "q/Str", 5, "\1\2\3", 3), 0);
    assert_int_equal(dmg_raw_close(&w), 0);
    EXPECT_TABLE_CORRUPT("Str", "table Str", "its stream and TTL settings record is malformed");
    dmg_rmdir(dir);
}

/* Issue 11, item 2: a data.mdb cut short anywhere, the catalog page
 * included, is refused at open (it used to open as an empty database, or
 * fault with SIGBUS on the first read past the end). */
static void test_truncated_file_refused(void **state)
{
    (void)state;
    ddb *db = NULL;
    ddb_error err = {0};
    ddb_options o = {.sync = DDB_SYNC_LAZY};
    dmg_dir(dir, sizeof dir, "trunc");
    OK(ddb_open(dir, &o, &db, &err));
    create_t(db);
    char pk[32];
    for (int i = 0; i < 3000; i++) {
        snprintf(pk, sizeof pk, "item%d", i);
        put(db, "Tab", pk, "s", i % 3 ? NULL : "g", i % 3 ? NULL : pk);
    }
    ddb_close(db);
    size_t n;
    unsigned char *f = dmg_read(dir, &n);
    assert_non_null(f);
    for (size_t i = 0; i < 30; i++) {
        size_t cut = n * i / 30;
        assert_int_equal(dmg_write(dir, f, cut), 0);
        err = (ddb_error){0};
        EXPECT_CORRUPT(ddb_open(dir, NULL, &db, &err), "data.mdb");
    }
    assert_int_equal(dmg_write(dir, f, n), 0);
    OK(ddb_open(dir, NULL, &db, &err));
    ddb_check_report r;
    OK(ddb_check_table(db, "Tab", &r, &err));
    assert_int_equal(r.items, 3000);
    ddb_close(db);
    free(f);
    dmg_rmdir(dir);
}

/* Issue 11, item 2: item and index databases whose table definition is
 * gone are reported by ddb_check_catalog (ddb_list_tables cannot show
 * them). */
static void test_orphan_databases(void **state)
{
    (void)state;
    ddb *db = open_fresh("orphan");
    create_t(db);
    put(db, "Tab", "p1", "s1", "g", "h");
    ddb_check_report r;
    ddb_error err = {0};
    OK(ddb_check_catalog(db, &r, &err));
    assert_int_equal(r.items, 4); /* meta, streams, i/Tab, x/Tab/Gsi */
    ddb_close(db);
    dmg_raw w;
    assert_int_equal(dmg_raw_open(&w, dir), 0);
    assert_int_equal(dmg_raw_del(&w, "meta", "t/Tab"), 0);
    assert_int_equal(dmg_raw_close(&w), 0);
    OK(ddb_open(dir, NULL, &db, &err));
    ddb_arena *a = ddb_arena_new();
    const char **names;
    size_t count;
    OK(ddb_list_tables(db, a, &names, &count, &err));
    assert_int_equal(count, 0);
    EXPECT_CORRUPT(ddb_check_catalog(db, &r, &err), "catalog: 2 problem(s)",
                   "database \"i/Tab\" holds items of a table that has no definition");
    assert_int_equal(r.problems, 2);
    ddb_arena_free(a);
    ddb_close(db);
    dmg_rmdir(dir);
}

/* Issue 11, item 3: the greatest item key rewritten to sort first.  The
 * cursor then steps back to it after the last item; a Scan resumed from it
 * (its LastEvaluatedKey) started over from the first item, so paging
 * never ended.  Keys must advance: DDB_ECORRUPT. */
static void test_scan_keys_advance(void **state)
{
    (void)state;
    ddb *db = open_fresh("scanloop");
    create_t(db);
    char pk[32];
    ddb_key max = {{0}, 0};
    for (int i = 0; i < 200; i++) {
        snprintf(pk, sizeof pk, "item%d", i);
        put(db, "Tab", pk, "s", NULL, NULL);
        ddb_key k = table_key(pk, "s");
        if (memcmp(k.b, max.b, DDB_KEY_MAX) > 0)
            max = k;
    }
    ddb_close(db);
    assert_true(max.b[0] != 0);
    patch_key(&max, 0, "\0", 1);

    ddb_error err = {0};
    OK(ddb_open(dir, NULL, &db, &err));
    ddb_arena *a = ddb_arena_new();
    /* the TTL sweep walks the items too: it would sweep for ever (first:
     * once a read found the table damaged, its writes are refused) */
    uint64_t deleted = 0;
    EXPECT_CORRUPT(ddb_ttl_sweep(db, "Tab", 0, &deleted, &err), "table Tab", "TTL sweep: the keys read do not advance");
    ddb_scan_params sp = {.table = "Tab", .limit = 25};
    ddb_page page;
    int rc, pages = 0;
    size_t items = 0;
    while ((rc = ddb_scan(db, &sp, a, &page, &err)) == DDB_OK && page.last_key && pages < 100) {
        items += page.count;
        sp.start_key = page.last_key;
        pages++;
    }
    assert_true(pages < 100);
    EXPECT_CORRUPT(rc, "table Tab", "the keys read do not advance");
    assert_true(items <= 200);
    sp = (ddb_scan_params){.table = "Tab"};
    EXPECT_CORRUPT(ddb_scan(db, &sp, a, &page, &err), "table Tab", "the keys read do not advance");
    EXPECT_CORRUPT(ddb_ttl_sweep(db, "Tab", 0, &deleted, &err), "table Tab is damaged");
    ddb_arena_free(a);
    ddb_close(db);
    dmg_rmdir(dir);
}

/* The same inside one partition: Query reads s1..s8, then "s9" rewritten
 * as "s0" sorts before them. */
static void test_query_keys_advance(void **state)
{
    (void)state;
    ddb *db = open_fresh("queryloop");
    create_t(db);
    char sk[8];
    for (int i = 1; i <= 9; i++) {
        snprintf(sk, sizeof sk, "s%d", i);
        put(db, "Tab", "P", sk, NULL, NULL);
    }
    ddb_close(db);
    ddb_key k = table_key("P", "s9");
    patch_key(&k, DDB_DIGEST_LEN + 1, "0", 1);

    ddb_error err = {0};
    OK(ddb_open(dir, NULL, &db, &err));
    ddb_arena *a = ddb_arena_new();
    ddb_page page;
    for (int backward = 0; backward < 2; backward++) {
        ddb_query_params q = {.table = "Tab", .pk = ddb_v_str(a, "P"), .backward = backward};
        EXPECT_CORRUPT(ddb_query(db, &q, a, &page, &err), "table Tab", "the keys read do not advance");
    }
    ddb_arena_free(a);
    ddb_close(db);
    dmg_rmdir(dir);
}


/* Issue 22, section 2: an item's LMDB node whose data size says 5 MB (its
 * high half flipped) in a file of a few hundred KB.  The record reads of
 * the typed layer (get_record, query_records, scan_records,
 * batch_get_records) read its keys in place through the key hint, then
 * copied all 5 MB: SIGBUS past the end of the file.  Every record is
 * bounded by the file before use: DDB_ECORRUPT naming the table and key. */
/* Tab's item ("P", "7") of 20 whose LMDB node says 5 MB (its high half
 * set to 0x4d, the n=5046393), the database closed.  two: a table
 * Two too (TTL on exp), holding one expired item. */
static void past_end_db(const char *tag, bool two)
{
    ddb *db = open_fresh(tag);
    create_t(db);
    ddb_error err = {0};
    ddb_arena *a = ddb_arena_new();
    for (int i = 0; i < 20; i++) {
        /* sort keys "0".."19" in one partition, each with its TTL
         * attribute (far ahead): a record read finds all it looks for
         * before the end of the record */
        char sk[16];
        snprintf(sk, sizeof sk, "%d", i);
        ddb_item *it = ddb_item_new(a);
        ddb_item_set_s(it, "PK", "P");
        ddb_item_set_s(it, "SK", sk);
        ddb_item_set_i64(it, "exp", 4102444800);
        OK(ddb_put_item(db, "Tab", it, NULL, a, NULL, &err));
    }
    if (two) {
        ddb_table_def def = {.name = "Two", .key = {.pk = "PK", .pk_type = DDB_TS, .sk = NULL, .sk_type = 0}, .ttl_attribute = "exp"};
        OK(ddb_create_table(db, &def, &err));
        ddb_item *it = ddb_item_new(a);
        ddb_item_set_s(it, "PK", "gone");
        ddb_item_set_i64(it, "exp", (int64_t)time(NULL) - 100); /* DynamoDB skips values over 5 years old */
        OK(ddb_put_item(db, "Two", it, NULL, a, NULL, &err));
    }
    ddb_close(db);
    ddb_arena_free(a);
    ddb_key k = table_key("P", "7");
    patch_key(&k, -6, "\x4d\x00", 2); /* the node's mn_hi: 0x4d0000 + its size */
}

static void test_record_past_file_end(void **state)
{
    (void)state;
    past_end_db("pastend", false);
    ddb *db = NULL;
    ddb_error err = {0};
    ddb_arena *a = ddb_arena_new();
    OK(ddb_open(dir, NULL, &db, &err));
    ddb_item *key = ddb_item_new(a), *it = NULL;
    ddb_item_set_s(key, "PK", "P");
    ddb_item_set_s(key, "SK", "7");
    ddbi_rec_page rp;
    ddb_query_params q = {.table = "Tab", .pk = ddb_v_str(a, "P")};
    EXPECT_CORRUPT(ddbi_query_records(db, &q, a, NULL, &rp, &err), "table Tab", "past the end of the database file");
    ddbi_rec rec;
    EXPECT_CORRUPT(ddbi_get_record(db, "Tab", key, NULL, a, NULL, &it, &rec, NULL, &err), "table Tab", "(key ",
                   "past the end of the database file");
    ddb_scan_params sp = {.table = "Tab"};
    EXPECT_CORRUPT(ddbi_scan_records(db, &sp, a, &rp, &err), "table Tab", "past the end of the database file");
    ddb_batch_get_op op = {.table = "Tab", .key = key};
    ddb_item *items[1];
    ddbi_rec recs[1];
    EXPECT_CORRUPT(ddbi_batch_get_records(db, &op, 1, a, items, recs, DDB_CAPACITY_NONE, NULL, &err), "table Tab",
                   "past the end of the database file");
    /* the item paths and the TTL sweep, the same answer */
    ddb_page page;
    EXPECT_CORRUPT(ddb_get_item(db, "Tab", key, NULL, a, &it, NULL, &err), "past the end of the database file");
    EXPECT_CORRUPT(ddb_query(db, &q, a, &page, &err), "past the end of the database file");
    uint64_t deleted = 0;
    /* the sweep writes: the reads above found Tab damaged, so the handle
     * writes nothing more to it (the other tables go on) */
    EXPECT_CORRUPT(ddb_ttl_sweep(db, "Tab", 0, &deleted, &err), "table Tab is damaged");
    ddb_check_report r;
    EXPECT_CORRUPT(ddb_check_table(db, "Tab", &r, &err), "past the end of the database file");
    ddb_arena_free(a);
    ddb_close(db);
    dmg_rmdir(dir);
}

/* The TTL sweep of every table (what the handle's sweeper runs) goes on
 * past a table that fails: Two's expired item is deleted although Tab,
 * swept first, is damaged; the sweep answers Tab's DDB_ECORRUPT. */
static void test_sweep_past_a_damaged_table(void **state)
{
    (void)state;
    past_end_db("sweeppast", true);
    ddb *db = NULL;
    ddb_error err = {0};
    OK(ddb_open(dir, NULL, &db, &err));
    uint64_t deleted = 0;
    EXPECT_CORRUPT(ddb_ttl_sweep(db, NULL, 0, &deleted, &err), "table Tab", "past the end of the database file");
    assert_int_equal(deleted, 1);
    ddb_arena *a = ddb_arena_new();
    ddb_item *key = ddb_item_new(a), *it = NULL;
    ddb_item_set_s(key, "PK", "gone");
    assert_int_equal(ddb_get_item(db, "Two", key, NULL, a, &it, NULL, &err), DDB_ENOTFOUND);
    ddb_arena_free(a);
    ddb_close(db);
    dmg_rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_query_long_key_length),
        cmocka_unit_test(test_short_item_key),
        cmocka_unit_test(test_no_writes_after_damage),
        cmocka_unit_test(test_record_size_bounded),
        cmocka_unit_test(test_bad_definitions),
        cmocka_unit_test(test_bad_stream_records),
        cmocka_unit_test(test_truncated_file_refused),
        cmocka_unit_test(test_orphan_databases),
        cmocka_unit_test(test_scan_keys_advance),
        cmocka_unit_test(test_query_keys_advance),
        cmocka_unit_test(test_record_past_file_end),
        cmocka_unit_test(test_sweep_past_a_damaged_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
