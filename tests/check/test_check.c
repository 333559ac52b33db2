/* ddb_check_table: clean tables pass with exact counts; damage done through
 * raw LMDB (the database closed, then opened again) is found and the first
 * problem is described exactly. */
#include <ddb/ddb.h>

#include <inttypes.h>
#include <lmdb.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/keycodec.h"

#define TABLE "Shop"

static char dir[512];

/* ---- helpers ---- */

static void rm_dir(const char *d)
{
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", d);
    if (system(cmd) != 0)
        fail_msg("cannot remove %s", d);
}

static ddb *open_db(const char *name, const ddb_options *opts)
{
    const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(dir, sizeof dir, "%s/ddbcheck-%s-%d", base, name, (int)getpid());
    rm_dir(dir);
    ddb *db = NULL;
    ddb_error err = {0};
    if (ddb_open(dir, opts, &db, &err))
        fail_msg("ddb_open(%s): %s", dir, err.message);
    return db;
}

static ddb *reopen_db(void)
{
    ddb *db = NULL;
    ddb_error err = {0};
    if (ddb_open(dir, NULL, &db, &err))
        fail_msg("ddb_open(%s): %s", dir, err.message);
    return db;
}

#define OK(expr)                                                                                                      \
    do {                                                                                                              \
        int rc_ = (expr);                                                                                             \
        if (rc_ != 0)                                                                                                 \
            fail_msg("%s -> %d %s (%s)", #expr, rc_, ddb_strerror(rc_), err.message);                                 \
    } while (0)

#define MOK(expr)                                                                                                     \
    do {                                                                                                              \
        int rc_ = (expr);                                                                                             \
        if (rc_ != 0)                                                                                                 \
            fail_msg("%s -> %s", #expr, mdb_strerror(rc_));                                                           \
    } while (0)

/* Same rendering as check.c: full hex up to 32 bytes, else 24 + length. */
static const char *hex(char *buf, const void *p, size_t n)
{
    const uint8_t *b = p;
    size_t show = n > 32 ? 24 : n, o = 0;
    for (size_t i = 0; i < show; i++)
        o += (size_t)sprintf(buf + o, "%02x", b[i]);
    if (show < n)
        sprintf(buf + o, "...(%zu bytes)", n);
    else
        buf[o] = '\0';
    return buf;
}

/* The table: a GSI with an N sort key, a KEYS_ONLY GSI on a B key, and an
 * LSI; items are spread so that every index is sparse. */
static void create_shop(ddb *db)
{
    static const char *const inc[] = {"data"};
    ddb_index_def ix[] = {
        {.name = "GSI1", .key = {.pk = "GSI1PK", .pk_type = DDB_TS, .sk = "GSI1SK", .sk_type = DDB_TN}},
        {.name = "ByBin", .key = {.pk = "bin", .pk_type = DDB_TB, .sk = NULL, .sk_type = 0}, .projection = DDB_PROJ_KEYS_ONLY},
        {.name = "LSI1", .local = true, .key = {.pk = "PK", .pk_type = DDB_TS, .sk = "LSI1SK", .sk_type = DDB_TS}, .projection = DDB_PROJ_INCLUDE,
         .include = inc, .n_include = 1},
    };
    ddb_table_def def = {.name = TABLE, .key = {.pk = "PK", .pk_type = DDB_TS, .sk = "SK", .sk_type = DDB_TS}, .indexes = ix, .n_indexes = 3};
    ddb_error err = {0};
    OK(ddb_create_table(db, &def, &err));
}

static bool in_gsi1(int u, int o)
{
    return (u + o) % 3 != 0;
}

static bool in_bybin(int u)
{
    return u % 2 == 0;
}

static bool in_lsi1(int o)
{
    return o != 1;
}

/* Item (u, o); pad adds bytes to the data attribute. */
static ddb_item *shop_item(ddb_arena *a, int u, int o, size_t pad)
{
    char s[64];
    ddb_item *it = ddb_item_new(a);
    snprintf(s, sizeof s, "u#%02d", u);
    ddb_item_set_s(it, "PK", s);
    snprintf(s, sizeof s, "o#%d", o);
    ddb_item_set_s(it, "SK", s);
    if (in_gsi1(u, o)) {
        snprintf(s, sizeof s, "g#%d", u % 4);
        ddb_item_set_s(it, "GSI1PK", s);
        ddb_item_set_i64(it, "GSI1SK", u * 10 + o);
    }
    if (in_bybin(u)) {
        uint8_t b[2] = {(uint8_t)u, (uint8_t)o};
        ddb_item_set_b(it, "bin", b, 2);
    }
    if (in_lsi1(o)) {
        snprintf(s, sizeof s, "l#%d", o);
        ddb_item_set_s(it, "LSI1SK", s);
    }
    char *data = ddb_arena_alloc(a, pad + 16);
    int n = snprintf(data, 16, "d%d.%d", u, o);
    memset(data + n, 'x', pad);
    data[(size_t)n + pad] = '\0';
    ddb_item_set_s(it, "data", data);
    return it;
}

#define N_USERS 10
#define N_ORDERS 3

/* Fill the table; returns the number of index entries it calls for. */
static uint64_t fill_shop(ddb *db, size_t pad)
{
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    uint64_t entries = 0;
    for (int u = 0; u < N_USERS; u++) {
        for (int o = 0; o < N_ORDERS; o++) {
            OK(ddb_put_item(db, TABLE, shop_item(a, u, o, pad), NULL, NULL, NULL, &err));
            entries += in_gsi1(u, o) + in_bybin(u) + in_lsi1(o);
        }
        ddb_arena_reset(a);
    }
    ddb_arena_free(a);
    return entries;
}

/* Build the usual table, close it, and return the entry count. */
static uint64_t build_closed(const char *name)
{
    ddb *db = open_db(name, NULL);
    create_shop(db);
    uint64_t entries = fill_shop(db, 0);
    ddb_close(db);
    return entries;
}

static ddb_check_report check_expect(int want_rc, uint64_t problems)
{
    ddb *db = reopen_db();
    ddb_check_report r;
    ddb_error err = {0};
    int rc = ddb_check_table(db, TABLE, &r, &err);
    ddb_close(db);
    if (rc != want_rc)
        fail_msg("ddb_check_table -> %d (%s), want %d; first problem: %s", rc, err.message, want_rc, r.first_problem);
    if (r.problems != problems)
        fail_msg("%" PRIu64 " problems, want %" PRIu64 "; first: %s", r.problems, problems, r.first_problem);
    if (want_rc == DDB_ECORRUPT) {
        char head[400];
        snprintf(head, sizeof head, "table " TABLE ": %" PRIu64 " problem(s); the first: ", problems);
        assert_int_equal(err.code, DDB_ECORRUPT);
        assert_memory_equal(err.message, head, strlen(head));
    }
    return r;
}

/* Raw LMDB access to the closed database. */
typedef struct raw {
    MDB_env *env;
    MDB_txn *txn;
    MDB_dbi items, meta, gsi1, lsi1, bybin;
} raw;

static void raw_open(raw *w)
{
    MOK(mdb_env_create(&w->env));
    MOK(mdb_env_set_maxdbs(w->env, 64));
    MOK(mdb_env_set_mapsize(w->env, (size_t)64 << 30));
    MOK(mdb_env_open(w->env, dir, 0, 0644));
    MOK(mdb_txn_begin(w->env, NULL, 0, &w->txn));
    MOK(mdb_dbi_open(w->txn, "i/" TABLE, 0, &w->items));
    MOK(mdb_dbi_open(w->txn, "meta", 0, &w->meta));
    MOK(mdb_dbi_open(w->txn, "x/" TABLE "/GSI1", MDB_DUPSORT, &w->gsi1));
    MOK(mdb_dbi_open(w->txn, "x/" TABLE "/LSI1", MDB_DUPSORT, &w->lsi1));
    MOK(mdb_dbi_open(w->txn, "x/" TABLE "/ByBin", MDB_DUPSORT, &w->bybin));
}

static void raw_close(raw *w)
{
    MOK(mdb_txn_commit(w->txn));
    mdb_env_close(w->env);
}

/* Keys as the engine makes them. */
static ddb_key table_key(ddb_arena *a, int u, int o)
{
    char pk[16], sk[16];
    snprintf(pk, sizeof pk, "u#%02d", u);
    snprintf(sk, sizeof sk, "o#%d", o);
    ddb_key k;
    ddbi_key_make(&k, ddb_v_str(a, pk), ddb_v_str(a, sk));
    return k;
}

static ddb_key gsi1_key(ddb_arena *a, const char *pk, int64_t sk)
{
    ddb_key k;
    ddbi_key_make(&k, ddb_v_str(a, pk), ddb_v_i64(a, sk));
    return k;
}

static void be64(uint8_t *p, uint64_t v)
{
    for (int i = 7; i >= 0; i--, v >>= 8)
        p[i] = (uint8_t)v;
}

/* The partition (index, bounds) that holds hash. */
static size_t raw_partition(raw *w, uint64_t hash, uint64_t *lo, uint64_t *hi)
{
    MDB_val k = {strlen("p/" TABLE), "p/" TABLE}, v;
    MOK(mdb_get(w->txn, w->meta, &k, &v));
    size_t n = v.mv_size / 8, p = 0;
    for (size_t i = 0; i < n; i++)
        if (ddbi_key_hash((const uint8_t *)v.mv_data + 8 * i) <= hash)
            p = i;
    *lo = ddbi_key_hash((const uint8_t *)v.mv_data + 8 * p);
    *hi = p + 1 < n ? ddbi_key_hash((const uint8_t *)v.mv_data + 8 * (p + 1)) - 1 : UINT64_MAX;
    return p;
}

static size_t stats_key(char *buf, uint64_t bound)
{
    size_t n = (size_t)sprintf(buf, "s/" TABLE "/");
    be64((uint8_t *)buf + n, bound);
    return n + 8;
}

/* ---- tests ---- */

static void test_clean(void **state)
{
    (void)state;
    ddb *db = open_db("clean", NULL);
    ddb_error err = {0};
    ddb_check_report r;
    assert_int_equal(ddb_check_table(db, "Nope", &r, &err), DDB_ENOTABLE);
    assert_int_equal(ddb_check_table(db, NULL, &r, &err), DDB_EINVAL);
    create_shop(db);
    OK(ddb_check_table(db, TABLE, &r, &err));
    assert_int_equal(r.items, 0);
    assert_int_equal(r.index_entries, 0);
    assert_int_equal(r.problems, 0);
    assert_string_equal(r.first_problem, "");

    uint64_t entries = fill_shop(db, 0);
    assert_int_equal(entries, 20 + 15 + 20); /* GSI1, ByBin, LSI1 */
    OK(ddb_check_table(db, TABLE, &r, &err));
    assert_int_equal(r.items, N_USERS * N_ORDERS);
    assert_int_equal(r.index_entries, entries);
    assert_int_equal(r.problems, 0);
    assert_string_equal(r.first_problem, "");
    OK(ddb_check_table(db, TABLE, NULL, &err)); /* the report is optional */

    /* replacing items moves and drops entries; deleting removes them */
    ddb_arena *a = ddb_arena_new();
    ddb_item *it = shop_item(a, 1, 1, 0); /* in GSI1 under g#1 */
    ddb_item_set_s(it, "GSI1PK", "g#3");
    OK(ddb_put_item(db, TABLE, it, NULL, NULL, NULL, &err));
    it = shop_item(a, 2, 0, 0); /* leaves GSI1 and LSI1 */
    ddb_item_remove(it, "GSI1PK");
    ddb_item_remove(it, "LSI1SK");
    OK(ddb_put_item(db, TABLE, it, NULL, NULL, NULL, &err));
    ddb_item *key = ddb_item_new(a);
    ddb_item_set_s(key, "PK", "u#04");
    ddb_item_set_s(key, "SK", "o#0"); /* in GSI1, ByBin, LSI1 */
    OK(ddb_delete_item(db, TABLE, key, NULL, NULL, NULL, &err));
    OK(ddb_check_table(db, TABLE, &r, &err));
    assert_int_equal(r.items, N_USERS * N_ORDERS - 1);
    assert_int_equal(r.index_entries, entries - 2 - 3);
    assert_int_equal(r.problems, 0);

    ddb_table_desc *d;
    OK(ddb_describe_table(db, TABLE, a, &d, &err));
    assert_int_equal(d->item_count, r.items);
    ddb_arena_free(a);
    ddb_close(db);
    rm_dir(dir);
}

/* Many partitions after splits: statistics still add up per partition. */
static void test_clean_after_splits(void **state)
{
    (void)state;
    ddb_options o = {.partition_split_bytes = 8 * 1024};
    ddb *db = open_db("splits", &o);
    create_shop(db);
    uint64_t entries = fill_shop(db, 1500);
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    ddb_table_desc *d;
    OK(ddb_describe_table(db, TABLE, a, &d, &err));
    assert_true(d->partitions > 4);
    ddb_check_report r;
    OK(ddb_check_table(db, TABLE, &r, &err));
    assert_int_equal(r.items, N_USERS * N_ORDERS);
    assert_int_equal(r.index_entries, entries);
    assert_int_equal(r.problems, 0);
    ddb_arena_free(a);
    ddb_close(db);
    rm_dir(dir);
}

/* Key shapes: B and N keys, hash-only tables, long sort keys (prefix +
 * digest form), numbers of many encodings; a GSI on a long key. */
static void test_clean_key_shapes(void **state)
{
    (void)state;
    ddb *db = open_db("shapes", NULL);
    ddb_error err = {0};
    ddb_index_def gx[] = {{.name = "ByLong", .key = {.pk = "L", .pk_type = DDB_TS, .sk = "N", .sk_type = DDB_TN}}};
    OK(ddb_create_table(db, &(ddb_table_def){.name = "BinNum", .key = {.pk = "B", .pk_type = DDB_TB, .sk = "N", .sk_type = DDB_TN}, .indexes = gx, .n_indexes = 1}, &err));
    OK(ddb_create_table(db, &(ddb_table_def){.name = "NumOnly", .key = {.pk = "N", .pk_type = DDB_TN, .sk = NULL, .sk_type = 0}, .indexes = NULL, .n_indexes = 0}, &err));
    OK(ddb_create_table(db, &(ddb_table_def){.name = "LongSK", .key = {.pk = "P", .pk_type = DDB_TS, .sk = "S", .sk_type = DDB_TS}, .indexes = NULL, .n_indexes = 0}, &err));
    static const char *const nums[] = {"0", "-1", "1", "1E+100", "-1.5E-130", "12345678901234567890123456789012345678",
                                       "0.001", "-99999"};
    ddb_arena *a = ddb_arena_new();
    char longs[1024 + 1];
    for (size_t i = 0; i < sizeof nums / sizeof *nums; i++) {
        ddb_value *n;
        OK(ddb_v_n(a, nums[i], &n, &err));
        uint8_t b[3] = {(uint8_t)i, 0, 0xff};
        ddb_item *it = ddb_item_new(a);
        ddb_item_set_b(it, "B", b, 1 + i % 3);
        ddb_item_set(it, "N", n);
        memset(longs, 'a' + (int)i % 3, 1024);
        longs[1024 - i] = '\0';
        ddb_item_set_s(it, "L", longs);
        OK(ddb_put_item(db, "BinNum", it, NULL, NULL, NULL, &err));
        it = ddb_item_new(a);
        ddb_item_set(it, "N", n);
        OK(ddb_put_item(db, "NumOnly", it, NULL, NULL, NULL, &err));
        it = ddb_item_new(a);
        ddb_item_set_s(it, "P", "same");
        ddb_item_set_s(it, "S", longs); /* one run of long keys sharing a prefix */
        OK(ddb_put_item(db, "LongSK", it, NULL, NULL, NULL, &err));
    }
    const char *tables[] = {"BinNum", "NumOnly", "LongSK"};
    for (size_t i = 0; i < 3; i++) {
        ddb_check_report r;
        OK(ddb_check_table(db, tables[i], &r, &err));
        assert_int_equal(r.items, sizeof nums / sizeof *nums);
        assert_int_equal(r.index_entries, i == 0 ? sizeof nums / sizeof *nums : 0);
        assert_int_equal(r.problems, 0);
    }
    ddb_arena_free(a);
    ddb_close(db);
    rm_dir(dir);
}

static void test_missing_entry(void **state)
{
    (void)state;
    uint64_t entries = build_closed("missing");
    ddb_arena *a = ddb_arena_new();
    raw w;
    raw_open(&w);
    /* item u#05/o#2 is in GSI1 under g#1, 52 */
    ddb_key tk = table_key(a, 5, 2), ik = gsi1_key(a, "g#1", 52);
    MDB_val k = {ik.len, ik.b}, d = {tk.len, tk.b};
    MOK(mdb_del(w.txn, w.gsi1, &k, &d));
    raw_close(&w);

    ddb_check_report r = check_expect(DDB_ECORRUPT, 1);
    char h[128], want[400];
    snprintf(want, sizeof want,
             "table Shop index GSI1: item PK=\"u#05\" SK=\"o#2\" has no entry under GSI1PK=\"g#1\" GSI1SK=52 "
             "(key %s)",
             hex(h, ik.b, ik.len));
    assert_string_equal(r.first_problem, want);
    assert_int_equal(r.items, N_USERS * N_ORDERS);
    assert_int_equal(r.index_entries, entries - 1);
    ddb_arena_free(a);
    rm_dir(dir);
}

static void test_missing_lsi_and_bin_entries(void **state)
{
    (void)state;
    uint64_t entries = build_closed("missing2");
    ddb_arena *a = ddb_arena_new();
    raw w;
    raw_open(&w);
    /* u#00/o#0: in ByBin (bin 0x0000) and LSI1 (l#0), not in GSI1 */
    ddb_key tk = table_key(a, 0, 0), bk, lk;
    uint8_t bin[2] = {0, 0};
    ddbi_key_make(&bk, ddb_v_b(a, bin, 2), NULL);
    ddbi_key_make(&lk, ddb_v_str(a, "u#00"), ddb_v_str(a, "l#0"));
    MDB_val d = {tk.len, tk.b}, k1 = {bk.len, bk.b}, k2 = {lk.len, lk.b};
    MOK(mdb_del(w.txn, w.bybin, &k1, &d));
    MOK(mdb_del(w.txn, w.lsi1, &k2, &d));
    raw_close(&w);

    /* indexes are checked in definition order: ByBin before LSI1 */
    ddb_check_report r = check_expect(DDB_ECORRUPT, 2);
    char h[128], want[400];
    snprintf(want, sizeof want,
             "table Shop index ByBin: item PK=\"u#00\" SK=\"o#0\" has no entry under bin=0x0000 (key %s)",
             hex(h, bk.b, bk.len));
    assert_string_equal(r.first_problem, want);
    assert_int_equal(r.index_entries, entries - 2);
    ddb_arena_free(a);
    rm_dir(dir);
}

static void test_stale_entries(void **state)
{
    (void)state;
    uint64_t entries = build_closed("stale");
    ddb_arena *a = ddb_arena_new();
    raw w;
    raw_open(&w);
    /* u#05/o#2 belongs under g#1/52: add a second entry under g#9/1 */
    ddb_key tk = table_key(a, 5, 2), bad = gsi1_key(a, "g#9", 1);
    MDB_val k = {bad.len, bad.b}, d = {tk.len, tk.b};
    MOK(mdb_put(w.txn, w.gsi1, &k, &d, MDB_NODUPDATA));
    raw_close(&w);

    ddb_check_report r = check_expect(DDB_ECORRUPT, 1);
    char h[128], want[400];
    snprintf(want, sizeof want,
             "table Shop index GSI1: stale entry %s for item PK=\"u#05\" SK=\"o#2\", which belongs under "
             "GSI1PK=\"g#1\" GSI1SK=52",
             hex(h, bad.b, bad.len));
    assert_string_equal(r.first_problem, want);
    assert_int_equal(r.index_entries, entries + 1);

    /* an entry for an item the index does not hold (u#00/o#0 has no GSI1
     * key), and one for an item that does not exist */
    raw_open(&w);
    ddb_key tk0 = table_key(a, 0, 0), gone = table_key(a, 42, 0);
    ddb_key e0 = gsi1_key(a, "g#0", 0), e1 = gsi1_key(a, "g#0", 1);
    k = (MDB_val){e0.len, e0.b};
    d = (MDB_val){tk0.len, tk0.b};
    MOK(mdb_put(w.txn, w.gsi1, &k, &d, MDB_NODUPDATA));
    k = (MDB_val){e1.len, e1.b};
    d = (MDB_val){gone.len, gone.b};
    MOK(mdb_put(w.txn, w.gsi1, &k, &d, MDB_NODUPDATA));
    raw_close(&w);
    r = check_expect(DDB_ECORRUPT, 3);
    assert_int_equal(r.index_entries, entries + 3);

    /* alone, each is the first problem */
    raw_open(&w);
    k = (MDB_val){bad.len, bad.b};
    d = (MDB_val){tk.len, tk.b};
    MOK(mdb_del(w.txn, w.gsi1, &k, &d));
    k = (MDB_val){e1.len, e1.b};
    d = (MDB_val){gone.len, gone.b};
    MOK(mdb_del(w.txn, w.gsi1, &k, &d));
    raw_close(&w);
    r = check_expect(DDB_ECORRUPT, 1);
    snprintf(want, sizeof want,
             "table Shop index GSI1: stale entry %s for item PK=\"u#00\" SK=\"o#0\", which is not in the index",
             hex(h, e0.b, e0.len));
    assert_string_equal(r.first_problem, want);

    raw_open(&w);
    k = (MDB_val){e0.len, e0.b};
    d = (MDB_val){tk0.len, tk0.b};
    MOK(mdb_del(w.txn, w.gsi1, &k, &d));
    k = (MDB_val){e1.len, e1.b};
    d = (MDB_val){gone.len, gone.b};
    MOK(mdb_put(w.txn, w.gsi1, &k, &d, MDB_NODUPDATA));
    raw_close(&w);
    r = check_expect(DDB_ECORRUPT, 1);
    char h2[128];
    snprintf(want, sizeof want, "table Shop index GSI1: entry %s points to a missing item %s", hex(h, e1.b, e1.len),
             hex(h2, gone.b, gone.len));
    assert_string_equal(r.first_problem, want);
    ddb_arena_free(a);
    rm_dir(dir);
}

static void test_stats(void **state)
{
    (void)state;
    build_closed("stats");
    ddb_arena *a = ddb_arena_new();
    raw w;
    raw_open(&w);
    ddb_key tk = table_key(a, 7, 1);
    uint64_t lo, hi;
    size_t p = raw_partition(&w, ddbi_key_hash(tk.b), &lo, &hi);
    char kb[64];
    MDB_val k = {stats_key(kb, lo), kb}, v;
    MOK(mdb_get(w.txn, w.meta, &k, &v));
    assert_int_equal(v.mv_size, 16);
    uint64_t st[2], bad[2];
    memcpy(st, v.mv_data, 16);
    bad[0] = st[0] + 1;
    bad[1] = st[1] - 3;
    v = (MDB_val){16, bad};
    MOK(mdb_put(w.txn, w.meta, &k, &v, 0));
    raw_close(&w);

    ddb_check_report r = check_expect(DDB_ECORRUPT, 1);
    char want[400];
    snprintf(want, sizeof want,
             "table Shop: partition %zu [0x%016" PRIx64 "..0x%016" PRIx64 "]: statistics say %" PRIu64
             " items / %" PRIu64 " bytes, its range holds %" PRIu64 " items / %" PRIu64 " bytes",
             p, lo, hi, bad[0], bad[1], st[0], st[1]);
    assert_string_equal(r.first_problem, want);

    /* a statistics record no partition starts at is counted nowhere */
    raw_open(&w);
    k = (MDB_val){stats_key(kb, lo), kb};
    v = (MDB_val){16, st};
    MOK(mdb_put(w.txn, w.meta, &k, &v, 0));
    uint64_t orphan[2] = {1, 100};
    k = (MDB_val){stats_key(kb, lo + 12345), kb};
    v = (MDB_val){16, orphan};
    MOK(mdb_put(w.txn, w.meta, &k, &v, 0));
    raw_close(&w);
    r = check_expect(DDB_ECORRUPT, 1);
    snprintf(want, sizeof want, "table Shop: statistics record for 0x%016" PRIx64 ", which starts no partition",
             lo + 12345);
    assert_string_equal(r.first_problem, want);
    ddb_arena_free(a);
    rm_dir(dir);
}

/* Damage to item records themselves. */
static void test_items(void **state)
{
    (void)state;
    uint64_t entries = build_closed("items");
    ddb_arena *a = ddb_arena_new();
    raw w;

    /* an item (u#04/o#0: in GSI1, ByBin and LSI1) deleted behind the
     * indexes' back: its partition's statistics and each of its three index
     * entries disagree */
    raw_open(&w);
    ddb_key tk = table_key(a, 4, 0);
    MDB_val k = {tk.len, tk.b}, v;
    MOK(mdb_get(w.txn, w.items, &k, &v));
    size_t rec_len = v.mv_size;
    uint8_t *rec = malloc(rec_len);
    assert_non_null(rec);
    memcpy(rec, v.mv_data, rec_len);
    MOK(mdb_del(w.txn, w.items, &k, NULL));
    uint64_t lo, hi;
    size_t p = raw_partition(&w, ddbi_key_hash(tk.b), &lo, &hi);
    raw_close(&w);
    ddb_check_report r = check_expect(DDB_ECORRUPT, 1 + 3);
    assert_int_equal(r.items, N_USERS * N_ORDERS - 1);
    assert_int_equal(r.index_entries, entries);
    char want[400], h[128], h2[128];
    snprintf(want, sizeof want, "table Shop: partition %zu [0x%016" PRIx64 "..0x%016" PRIx64 "]: statistics say ",
             p, lo, hi);
    assert_memory_equal(r.first_problem, want, strlen(want));

    /* the record back, truncated: it no longer decodes (its entries are
     * not blamed again) */
    raw_open(&w);
    v = (MDB_val){rec_len - 1, rec};
    MOK(mdb_put(w.txn, w.items, &k, &v, 0));
    raw_close(&w);
    r = check_expect(DDB_ECORRUPT, 1);
    snprintf(want, sizeof want, "table Shop: item record under key %s does not decode (%zu bytes)",
             hex(h, tk.b, tk.len), rec_len - 1);
    assert_string_equal(r.first_problem, want);

    /* the record also copied over u#09/o#0 (in LSI1 only): it sits under
     * the wrong key, its partition's bytes change, the three entries it
     * calls for are missing and u#09/o#0's LSI1 entry is stale */
    raw_open(&w);
    v = (MDB_val){rec_len, rec};
    MOK(mdb_put(w.txn, w.items, &k, &v, 0));
    ddb_key other = table_key(a, 9, 0);
    MDB_val ok = {other.len, other.b};
    MOK(mdb_put(w.txn, w.items, &ok, &v, 0));
    raw_close(&w);
    r = check_expect(DDB_ECORRUPT, 1 + 1 + 3 + 1);
    snprintf(want, sizeof want,
             "table Shop: item PK=\"u#04\" SK=\"o#0\" is stored under key %s, its key attributes give %s",
             hex(h, other.b, other.len), hex(h2, tk.b, tk.len));
    assert_string_equal(r.first_problem, want);
    free(rec);

    /* a key attribute of the wrong type (SK as a number) */
    build_closed("items"); /* start over */
    raw_open(&w);
    ddb_item *bad = shop_item(a, 3, 0, 0); /* in LSI1 only */
    ddb_item_set_i64(bad, "SK", 7);
    /* encode it by hand: version 1, size, count, (name length, name, type,
     * value length, value)*; every number here fits a one-byte varint */
    uint8_t buf[512];
    size_t n = 0;
    const ddb_value *m = ddb_item_map(bad);
    buf[n++] = 1;
    buf[n++] = (uint8_t)ddb_item_size(bad);
    buf[n++] = (uint8_t)m->len;
    for (uint32_t i = 0; i < m->len; i++) {
        const ddb_value *x = m->u.m[i].value;
        assert_true(x->type == DDB_TS || x->type == DDB_TN);
        buf[n++] = (uint8_t)m->u.m[i].name_len;
        memcpy(buf + n, m->u.m[i].name, m->u.m[i].name_len);
        n += m->u.m[i].name_len;
        buf[n++] = (uint8_t)x->type;
        buf[n++] = (uint8_t)x->len;
        memcpy(buf + n, x->u.s, x->len);
        n += x->len;
    }
    assert_true(ddb_item_size(bad) < 128 && n < sizeof buf);
    tk = table_key(a, 3, 0);
    k = (MDB_val){tk.len, tk.b};
    v = (MDB_val){n, buf};
    MOK(mdb_put(w.txn, w.items, &k, &v, 0));
    raw_close(&w);
    r = check_expect(DDB_ECORRUPT, 2); /* the item, and its partition's byte count */
    snprintf(want, sizeof want,
             "table Shop: item under key %s: One or more parameter values were invalid: Type mismatch for key SK "
             "expected: S actual: N",
             hex(h, tk.b, tk.len));
    assert_string_equal(r.first_problem, want);
    ddb_arena_free(a);
    rm_dir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clean),         cmocka_unit_test(test_clean_after_splits),
        cmocka_unit_test(test_clean_key_shapes),
        cmocka_unit_test(test_missing_entry), cmocka_unit_test(test_missing_lsi_and_bin_entries),
        cmocka_unit_test(test_stale_entries), cmocka_unit_test(test_stats),
        cmocka_unit_test(test_items),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
