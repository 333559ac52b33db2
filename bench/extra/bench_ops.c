/* ddb-bench-ops: expressions and transactions, ddb (embedded) vs SQLite.
 *
 *   ddb-bench-ops [--seconds S] [--rounds R] [--threads T] [--dir DIR] [--keep] [--quick]
 *                 [--engines ddb,sqlite] [--modes full,none] [--workloads update,tx]
 *
 * Two workloads on a table of 10,000 counters (pk, n, owner, 100-byte data):
 *  - cond. update: one counter, chosen at random, is incremented if its
 *    owner matches and it is below a ceiling.
 *      ddb:    ddb_update_item(key, "SET n = n + :one",
 *                              ConditionExpression "#owner = :owner AND n < :max")
 *              (#owner -> owner, a reserved word), both expressions
 *              prepared once, values bound per call.
 *      SQLite: BEGIN IMMEDIATE; SELECT n, owner ...; check in C;
 *              UPDATE ... SET n = ?; COMMIT.
 *  - tx 10 items: five such conditional increments of distinct counters and
 *    five inserts of new 100-byte log items under "must not exist", all or
 *    nothing.
 *      ddb:    one ddb_transact_write of 10 operations (5 UPDATE with the
 *              condition above, 5 PUT with "attribute_not_exists(pk)").
 *      SQLite: BEGIN IMMEDIATE; 5 x (SELECT, check, UPDATE);
 *              5 x (SELECT, check absent, INSERT); COMMIT.
 * Each runs from 1 and T threads (default 8), in two durability pairs:
 *   FULL: ddb DDB_SYNC_FULL  vs SQLite WAL + synchronous=FULL
 *   NONE: ddb DDB_SYNC_NONE  vs SQLite WAL + synchronous=OFF
 * A phase runs R rounds (default 5) of S seconds (default 0.9) per engine,
 * the engines taking turns, and the median run is reported with the range
 * of the per-round ratios: fsync latency drifts (and collapses while other
 * programs write), turns spread that over both engines and the median
 * drops a disturbed round.
 * SQLite: one connection per thread, prepared statements, and writers
 * serialised by a mutex in the process (SQLite admits one writer at a time
 * anyway; its busy handler sleeps, which would only make it slower).
 * After every engine's phases the sum of the counters is checked against
 * the increments acknowledged. */
#include "bx.h"

#include <ddb/ddb.h>

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TABLE "ops"
#define N_CTR 10000u
#define N_OWNERS 1000u
#define DATA_LEN 100
#define TX_UPDATES 5
#define TX_PUTS 5
#define MAX_N 1000000000000000ll /* the ceiling of the condition: never reached */

typedef enum durab { D_FULL, D_NONE } durab;
typedef enum wkind { W_UPDATE, W_TX } wkind;

static const char *const durab_ddb[] = {"DDB_SYNC_FULL", "DDB_SYNC_NONE"};
static const char *const durab_sql[] = {"synchronous=FULL", "synchronous=OFF"};

static void ctr_key(uint32_t i, char out[16])
{
    snprintf(out, 16, "c%07u", i);
}

static void ctr_owner(uint32_t i, char out[16])
{
    snprintf(out, 16, "user%04u", i % N_OWNERS);
}

static void fill_data(uint8_t *d, uint64_t seed)
{
    for (int i = 0; i < DATA_LEN; i++)
        d[i] = (uint8_t)(seed * 31 + (uint64_t)i * 7);
}

/* TX_UPDATES distinct counters. */
static void pick_distinct(uint64_t *rng, uint32_t *out, int n)
{
    for (int k = 0; k < n; k++) {
        uint32_t c;
        bool dup;
        do {
            c = (uint32_t)(bx_rand(rng) % N_CTR);
            dup = false;
            for (int j = 0; j < k; j++)
                dup |= out[j] == c;
        } while (dup);
        out[k] = c;
    }
}

/* ---- engines ---------------------------------------------------------------- */

typedef struct engine {
    const char *name;
    int (*setup)(const char *dir, durab d, void **h); /* create, load, reopen in d */
    void (*teardown)(void *h);
    void (*set_phase)(void *h, int phase);            /* makes log keys unique */
    void *(*thread_open)(void *h, int id);
    void (*thread_close)(void *tc);
    int (*update)(void *tc, uint64_t *rng);
    int (*tx)(void *tc, uint64_t *rng);
    int (*sum)(void *h, int64_t *out);                /* sum of the counters */
} engine;

/* ---- ddb ---- */

typedef struct dh {
    ddb *db;
    ddb_expr *upd, *cond, *absent;
    int phase;
} dh;

typedef struct dtc {
    dh *h;
    ddb_arena *a;
    int id, phase;
    uint64_t seq;
    ddb_error err;
} dtc;

static int dfail(const char *what, int rc, const ddb_error *err)
{
    fprintf(stderr, "ddb: %s: %s (%s)\n", what, ddb_strerror(rc), err ? err->message : "");
    return -1;
}

static bool g_commit_log; /* --commit-log: ddb's FULL commits through its commit log */

static int d_open(const char *dir, durab d, ddb **db)
{
    char uri[1200];
    snprintf(uri, sizeof uri, "file:%s", dir);
    ddb_options o = {0};
    o.sync = d == D_FULL ? DDB_SYNC_FULL : DDB_SYNC_NONE;
    o.commit_log = g_commit_log;
    o.map_size = 8ull << 30;
    ddb_error err = {0};
    int rc = ddb_open(uri, &o, db, &err);
    return rc ? dfail("open", rc, &err) : 0;
}

static ddb_item *d_counter(ddb_arena *a, uint32_t i)
{
    char k[16], ow[16];
    uint8_t data[DATA_LEN];
    ctr_key(i, k);
    ctr_owner(i, ow);
    fill_data(data, i);
    ddb_item *it = ddb_item_new(a);
    if (!it || ddb_item_set_s(it, "pk", k) || ddb_item_set_i64(it, "n", 0) || ddb_item_set_s(it, "owner", ow) ||
        ddb_item_set_b(it, "data", data, DATA_LEN))
        return NULL;
    return it;
}

static void d_teardown(void *vh)
{
    dh *h = vh;
    ddb_expr_free(h->upd);
    ddb_expr_free(h->cond);
    ddb_expr_free(h->absent);
    if (h->db)
        ddb_close(h->db);
    free(h);
}

static int d_setup(const char *dir, durab d, void **out)
{
    ddb *db;
    if (d_open(dir, D_NONE, &db))
        return -1;
    ddb_error err = {0};
    ddb_table_def def = {.name = TABLE, .key = {.pk = "pk", .pk_type = DDB_TS, .sk = NULL, .sk_type = DDB_TNONE}};
    int rc = ddb_create_table(db, &def, &err);
    if (rc) {
        ddb_close(db);
        return dfail("create table", rc, &err);
    }
    ddb_arena *a = ddb_arena_new();
    for (uint32_t base = 0; !rc && base < N_CTR; base += 25) {
        ddb_arena_reset(a);
        ddb_batch_write_op ops[25];
        size_t n = 0;
        for (uint32_t i = base; i < base + 25 && i < N_CTR; i++)
            ops[n++] = (ddb_batch_write_op){.table = TABLE, .put = d_counter(a, i)};
        rc = ddb_batch_write(db, ops, n, DDB_CAPACITY_NONE, NULL, &err);
    }
    ddb_arena_free(a);
    if (!rc)
        rc = ddb_sync(db, &err);
    ddb_close(db);
    if (rc)
        return dfail("load", rc, &err);
    dh *h = calloc(1, sizeof *h);
    if (!h || d_open(dir, d, &h->db)) {
        free(h);
        return -1;
    }
    /* "owner" is one of DynamoDB's reserved words: a #name stands for it */
    ddb_arena *na = ddb_arena_new();
    ddb_item *names = na ? ddb_item_new(na) : NULL;
    if (!names || ddb_item_set_s(names, "#owner", "owner")) {
        ddb_arena_free(na);
        d_teardown(h);
        return dfail("names", DDB_ENOMEM, NULL);
    }
    rc = ddb_expr_prepare(DDB_EXPR_CONDITION, "#owner = :owner AND n < :max", names, &h->cond, &err);
    ddb_arena_free(na); /* names are bound at prepare time and not retained */
    if (rc || (rc = ddb_expr_prepare(DDB_EXPR_UPDATE, "SET n = n + :one", NULL, &h->upd, &err)) ||
        (rc = ddb_expr_prepare(DDB_EXPR_CONDITION, "attribute_not_exists(pk)", NULL, &h->absent, &err))) {
        d_teardown(h);
        return dfail("prepare", rc, &err);
    }
    *out = h;
    return 0;
}

static void d_set_phase(void *vh, int phase)
{
    ((dh *)vh)->phase = phase;
}

static void *d_thread_open(void *vh, int id)
{
    dtc *t = calloc(1, sizeof *t);
    if (!t || !(t->a = ddb_arena_new())) {
        free(t);
        return NULL;
    }
    t->h = vh;
    t->id = id;
    t->phase = t->h->phase;
    return t;
}

static void d_thread_close(void *vt)
{
    dtc *t = vt;
    ddb_arena_free(t->a);
    free(t);
}

/* The key and values of one conditional increment of counter i. */
static int d_incr_args(ddb_arena *a, uint32_t i, ddb_item **key, ddb_item **vals)
{
    char k[16], ow[16];
    ctr_key(i, k);
    ctr_owner(i, ow);
    *key = ddb_item_new(a);
    *vals = ddb_item_new(a);
    if (!*key || !*vals || ddb_item_set_s(*key, "pk", k) || ddb_item_set_i64(*vals, ":one", 1) ||
        ddb_item_set_s(*vals, ":owner", ow) || ddb_item_set_i64(*vals, ":max", MAX_N))
        return DDB_ENOMEM;
    return DDB_OK;
}

static int d_update(void *vt, uint64_t *rng)
{
    dtc *t = vt;
    ddb_arena_reset(t->a);
    ddb_item *key, *vals;
    if (d_incr_args(t->a, (uint32_t)(bx_rand(rng) % N_CTR), &key, &vals))
        return dfail("update: args", DDB_ENOMEM, NULL);
    ddb_write_opts wo = {.condition = t->h->cond, .values = vals};
    int rc = ddb_update_item(t->h->db, TABLE, key, t->h->upd, &wo, NULL, NULL, &t->err);
    return rc ? dfail("update", rc, &t->err) : 0;
}

static int d_tx(void *vt, uint64_t *rng)
{
    dtc *t = vt;
    ddb_arena_reset(t->a);
    ddb_tx_op ops[TX_UPDATES + TX_PUTS];
    uint32_t c[TX_UPDATES];
    pick_distinct(rng, c, TX_UPDATES);
    for (int k = 0; k < TX_UPDATES; k++) {
        ddb_item *key, *vals;
        if (d_incr_args(t->a, c[k], &key, &vals))
            return dfail("tx: args", DDB_ENOMEM, NULL);
        ops[k] = (ddb_tx_op){.kind = DDB_TX_UPDATE, .table = TABLE, .item = key, .update = t->h->upd,
                             .condition = t->h->cond, .values = vals};
    }
    uint8_t data[DATA_LEN];
    fill_data(data, t->seq);
    for (int k = 0; k < TX_PUTS; k++) {
        char pk[48];
        snprintf(pk, sizeof pk, "L%03d-%03d-%09" PRIu64 "-%d", t->phase, t->id, t->seq, k);
        ddb_item *it = ddb_item_new(t->a);
        if (!it || ddb_item_set_s(it, "pk", pk) || ddb_item_set_i64(it, "n", 0) ||
            ddb_item_set_s(it, "owner", "log") || ddb_item_set_b(it, "data", data, DATA_LEN))
            return dfail("tx: item", DDB_ENOMEM, NULL);
        ops[TX_UPDATES + k] = (ddb_tx_op){.kind = DDB_TX_PUT, .table = TABLE, .item = it, .condition = t->h->absent};
    }
    t->seq++;
    ddb_tx_result res;
    int rc = ddb_transact_write(t->h->db, ops, TX_UPDATES + TX_PUTS, DDB_CAPACITY_NONE, t->a, &res, &t->err);
    return rc ? dfail("transact_write", rc, &t->err) : 0;
}

static int d_sum(void *vh, int64_t *out)
{
    dh *h = vh;
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    int rc = a ? DDB_OK : DDB_ENOMEM;
    *out = 0;
    for (uint32_t base = 0; !rc && base < N_CTR; base += 100) {
        ddb_arena_reset(a);
        ddb_batch_get_op ops[100];
        ddb_item *items[100];
        size_t n = 0;
        for (uint32_t i = base; i < base + 100 && i < N_CTR; i++) {
            char k[16];
            ctr_key(i, k);
            ddb_item *key = ddb_item_new(a);
            if (!key || ddb_item_set_s(key, "pk", k))
                rc = DDB_ENOMEM;
            ops[n++] = (ddb_batch_get_op){.table = TABLE, .key = key, .consistent = true};
        }
        if (!rc)
            rc = ddb_batch_get(h->db, ops, n, a, items, DDB_CAPACITY_NONE, NULL, &err);
        for (size_t i = 0; !rc && i < n; i++) {
            int64_t v;
            const ddb_value *nv = items[i] ? ddb_item_get(items[i], "n") : NULL;
            if (!nv || ddb_value_to_i64(nv, &v))
                rc = DDB_ECORRUPT;
            else
                *out += v;
        }
    }
    ddb_arena_free(a);
    return rc ? dfail("sum", rc, &err) : 0;
}

static const engine eng_ddb = {"ddb",         d_setup,  d_teardown, d_set_phase, d_thread_open,
                               d_thread_close, d_update, d_tx,       d_sum};

/* ---- SQLite ---- */

enum { Q_BEGIN, Q_COMMIT, Q_ROLLBACK, Q_SEL, Q_UPD, Q_EXISTS, Q_INS, Q_N };
static const char *const qsql[Q_N] = {
    "BEGIN IMMEDIATE",
    "COMMIT",
    "ROLLBACK",
    "SELECT n, owner FROM ops WHERE pk = ?1",
    "UPDATE ops SET n = ?2 WHERE pk = ?1",
    "SELECT 1 FROM ops WHERE pk = ?1",
    "INSERT INTO ops (pk, n, owner, data) VALUES (?1, ?2, ?3, ?4)",
};

typedef struct sh {
    char path[1200];
    durab d;
    int phase;
    pthread_mutex_t mu;
    sqlite3 *c; /* for the final sum */
} sh;

typedef struct stc {
    sh *h;
    sqlite3 *c;
    sqlite3_stmt *q[Q_N];
    int id, phase;
    uint64_t seq;
} stc;

static int sfail(sqlite3 *c, const char *what)
{
    fprintf(stderr, "sqlite: %s: %s\n", what, c ? sqlite3_errmsg(c) : "out of memory");
    return -1;
}

static int sexec(sqlite3 *c, const char *s)
{
    char *msg = NULL;
    if (sqlite3_exec(c, s, NULL, NULL, &msg) != SQLITE_OK) {
        fprintf(stderr, "sqlite: %s: %s\n", s, msg ? msg : "?");
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

static int s_connect(const char *path, durab d, sqlite3 **out)
{
    sqlite3 *c = NULL;
    if (sqlite3_open_v2(path, &c, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) !=
        SQLITE_OK) {
        sfail(c, "open");
        sqlite3_close(c);
        return -1;
    }
    sqlite3_busy_timeout(c, 60000);
    if (sexec(c, "PRAGMA journal_mode=WAL") ||
        sexec(c, d == D_FULL ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=OFF") ||
        sexec(c, "PRAGMA mmap_size=1073741824") || sexec(c, "PRAGMA cache_size=-65536")) {
        sqlite3_close(c);
        return -1;
    }
    *out = c;
    return 0;
}

static int s_done(sqlite3 *c, sqlite3_stmt *s, const char *what)
{
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    return rc == SQLITE_DONE ? 0 : sfail(c, what);
}

static void s_teardown(void *vh)
{
    sh *h = vh;
    if (h->c)
        sqlite3_close(h->c);
    pthread_mutex_destroy(&h->mu);
    free(h);
}

static int s_setup(const char *dir, durab d, void **out)
{
    sh *h = calloc(1, sizeof *h);
    if (!h)
        return -1;
    snprintf(h->path, sizeof h->path, "%s/ops.db", dir);
    h->d = d;
    pthread_mutex_init(&h->mu, NULL);
    sqlite3 *c;
    if (s_connect(h->path, D_NONE, &c)) {
        s_teardown(h);
        return -1;
    }
    sqlite3_stmt *ins = NULL;
    int rc = sexec(c, "CREATE TABLE ops (pk TEXT PRIMARY KEY, n INTEGER NOT NULL, owner TEXT NOT NULL, "
                      "data BLOB NOT NULL) WITHOUT ROWID") ||
             sexec(c, "BEGIN");
    if (!rc && sqlite3_prepare_v2(c, qsql[Q_INS], -1, &ins, NULL) != SQLITE_OK)
        rc = sfail(c, "prepare");
    for (uint32_t i = 0; !rc && i < N_CTR; i++) {
        char k[16], ow[16];
        uint8_t data[DATA_LEN];
        ctr_key(i, k);
        ctr_owner(i, ow);
        fill_data(data, i);
        sqlite3_bind_text(ins, 1, k, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(ins, 2, 0);
        sqlite3_bind_text(ins, 3, ow, -1, SQLITE_TRANSIENT);
        sqlite3_bind_blob(ins, 4, data, DATA_LEN, SQLITE_TRANSIENT);
        rc = s_done(c, ins, "load");
    }
    sqlite3_finalize(ins);
    if (!rc)
        rc = sexec(c, "COMMIT") || sexec(c, "PRAGMA wal_checkpoint(TRUNCATE)");
    sqlite3_close(c);
    if (rc || s_connect(h->path, d, &h->c)) {
        s_teardown(h);
        return -1;
    }
    *out = h;
    return 0;
}

static void s_set_phase(void *vh, int phase)
{
    ((sh *)vh)->phase = phase;
}

static void s_thread_close(void *vt)
{
    stc *t = vt;
    for (int i = 0; i < Q_N; i++)
        sqlite3_finalize(t->q[i]);
    sqlite3_close(t->c);
    free(t);
}

static void *s_thread_open(void *vh, int id)
{
    stc *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->h = vh;
    t->id = id;
    t->phase = t->h->phase;
    if (s_connect(t->h->path, t->h->d, &t->c)) {
        free(t);
        return NULL;
    }
    for (int i = 0; i < Q_N; i++)
        if (sqlite3_prepare_v2(t->c, qsql[i], -1, &t->q[i], NULL) != SQLITE_OK) {
            sfail(t->c, qsql[i]);
            s_thread_close(t);
            return NULL;
        }
    return t;
}

/* Inside the transaction: read counter i, check owner and ceiling, write n + 1.
 * 0 done, 1 condition false, -1 error. */
static int s_incr(stc *t, uint32_t i)
{
    char k[16], ow[16];
    ctr_key(i, k);
    ctr_owner(i, ow);
    sqlite3_stmt *s = t->q[Q_SEL];
    sqlite3_bind_text(s, 1, k, -1, SQLITE_STATIC);
    int rc = sqlite3_step(s);
    if (rc != SQLITE_ROW) {
        sqlite3_reset(s);
        return rc == SQLITE_DONE ? 1 : sfail(t->c, "select");
    }
    int64_t n = sqlite3_column_int64(s, 0);
    const unsigned char *owner = sqlite3_column_text(s, 1);
    bool ok = owner && strcmp((const char *)owner, ow) == 0 && n < MAX_N;
    sqlite3_reset(s);
    if (!ok)
        return 1;
    s = t->q[Q_UPD];
    sqlite3_bind_text(s, 1, k, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 2, n + 1);
    return s_done(t->c, s, "update");
}

/* Inside the transaction: insert log item pk unless it exists. */
static int s_insert_new(stc *t, const char *pk, const uint8_t *data)
{
    sqlite3_stmt *s = t->q[Q_EXISTS];
    sqlite3_bind_text(s, 1, pk, -1, SQLITE_STATIC);
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    if (rc == SQLITE_ROW)
        return 1;
    if (rc != SQLITE_DONE)
        return sfail(t->c, "exists");
    s = t->q[Q_INS];
    sqlite3_bind_text(s, 1, pk, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 2, 0);
    sqlite3_bind_text(s, 3, "log", 3, SQLITE_STATIC);
    sqlite3_bind_blob(s, 4, data, DATA_LEN, SQLITE_STATIC);
    return s_done(t->c, s, "insert");
}

static int s_finish(stc *t, int rc)
{
    if (rc == 0)
        rc = s_done(t->c, t->q[Q_COMMIT], "commit");
    else {
        s_done(t->c, t->q[Q_ROLLBACK], "rollback");
        if (rc > 0)
            fprintf(stderr, "sqlite: a condition was false\n");
        rc = -1;
    }
    pthread_mutex_unlock(&t->h->mu);
    return rc;
}

static int s_update(void *vt, uint64_t *rng)
{
    stc *t = vt;
    uint32_t i = (uint32_t)(bx_rand(rng) % N_CTR);
    pthread_mutex_lock(&t->h->mu);
    if (s_done(t->c, t->q[Q_BEGIN], "begin")) {
        pthread_mutex_unlock(&t->h->mu);
        return -1;
    }
    return s_finish(t, s_incr(t, i));
}

static int s_tx(void *vt, uint64_t *rng)
{
    stc *t = vt;
    uint32_t c[TX_UPDATES];
    pick_distinct(rng, c, TX_UPDATES);
    uint8_t data[DATA_LEN];
    fill_data(data, t->seq);
    char pk[TX_PUTS][48];
    for (int k = 0; k < TX_PUTS; k++)
        snprintf(pk[k], sizeof pk[k], "L%03d-%03d-%09" PRIu64 "-%d", t->phase, t->id, t->seq, k);
    t->seq++;
    pthread_mutex_lock(&t->h->mu);
    if (s_done(t->c, t->q[Q_BEGIN], "begin")) {
        pthread_mutex_unlock(&t->h->mu);
        return -1;
    }
    int rc = 0;
    for (int k = 0; !rc && k < TX_UPDATES; k++)
        rc = s_incr(t, c[k]);
    for (int k = 0; !rc && k < TX_PUTS; k++)
        rc = s_insert_new(t, pk[k], data);
    return s_finish(t, rc);
}

static int s_sum(void *vh, int64_t *out)
{
    sh *h = vh;
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(h->c, "SELECT sum(n) FROM ops WHERE pk >= 'c' AND pk < 'd'", -1, &s, NULL) != SQLITE_OK)
        return sfail(h->c, "sum");
    int rc = sqlite3_step(s);
    *out = rc == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
    sqlite3_finalize(s);
    return rc == SQLITE_ROW ? 0 : sfail(h->c, "sum");
}

static const engine eng_sqlite = {"SQLite",       s_setup,  s_teardown, s_set_phase, s_thread_open,
                                  s_thread_close, s_update, s_tx,       s_sum};

/* ---- driver ------------------------------------------------------------------- */

#define MAX_ROUNDS 15

/* One table row: each engine's runs of the phase, the median reported. */
typedef struct cell {
    bx_result r[2][MAX_ROUNDS]; /* ddb, SQLite */
    int n;
} cell;

static int cmp_rate(const void *a, const void *b)
{
    double x = bx_rate(a), y = bx_rate(b);
    return x < y ? -1 : x > y;
}

/* The run of median rate (any failed run: that one). */
static bx_result median(const bx_result *runs, int n)
{
    bx_result v[MAX_ROUNDS];
    for (int i = 0; i < n; i++) {
        if (runs[i].failed)
            return runs[i];
        v[i] = runs[i];
    }
    if (!n)
        return (bx_result){0};
    qsort(v, (size_t)n, sizeof *v, cmp_rate);
    return v[n / 2];
}

static void usage(void)
{
    fprintf(stderr, "usage: ddb-bench-ops [--seconds S] [--rounds R] [--threads T] [--dir DIR] [--keep] [--quick]\n"
                    "  --seconds S  length of one run of a phase (default 0.9)\n"
                    "  --rounds R   runs of each phase per engine, engines taking turns; the median is reported "
                    "(default 5)\n"
                    "  --threads T  threads of the multi-threaded phases (default 8)\n"
                    "  --dir DIR    working directory (default /tmp/ddb-bench-ops-PID; emptied first)\n"
                    "  --keep       keep the data afterwards\n"
                    "  --commit-log ddb's FULL commits through its commit log (ddb_options.commit_log)\n"
                    "  --quick      1 round of 1 second\n"
                    "  --engines L  only these engines (comma list of ddb, sqlite)\n"
                    "  --modes L    only these durability pairs (comma list of full, none)\n"
                    "  --workloads L  only these workloads (comma list of update, tx)\n");
    exit(2);
}

/* Is name in the comma-separated list (NULL = everything)? */
static bool listed(const char *list, const char *name)
{
    if (!list)
        return true;
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        if (len == n && strncmp(p, name, n) == 0)
            return true;
        p += len + (p[len] == ',');
    }
    return false;
}

int main(int argc, char **argv)
{
    const char *only_e = NULL, *only_m = NULL, *only_w = NULL;
    double secs = 0.9;
    int threads = 8, rounds = 5;
    bool keep = false;
    char dir[1024];
    snprintf(dir, sizeof dir, "/tmp/ddb-bench-ops-%d", (int)getpid());
    bool quick = false;
    const bx_opt opts[] = {
        {"--seconds", BX_OPT_DOUBLE, &secs, 0},
        {"--rounds", BX_OPT_INT, &rounds, 0},
        {"--threads", BX_OPT_INT, &threads, 0},
        {"--dir", BX_OPT_TEXT, dir, sizeof dir},
        {"--keep", BX_OPT_FLAG, &keep, 0},
        {"--quick", BX_OPT_FLAG, &quick, 0},
        {"--commit-log", BX_OPT_FLAG, &g_commit_log, 0},
        {"--engines", BX_OPT_ARG, &only_e, 0},
        {"--modes", BX_OPT_ARG, &only_m, 0},
        {"--workloads", BX_OPT_ARG, &only_w, 0},
    };
    if (!bx_parse_args(argc, argv, opts, sizeof opts / sizeof *opts))
        usage();
    if (quick)
        secs = 1, rounds = 1;
    if (secs <= 0 || threads < 1 || threads > 256 || rounds < 1 || rounds > MAX_ROUNDS)
        usage();
    bx_print_header("ddb-bench-ops: conditional updates and 10-item transactions, ddb vs SQLite", argc, argv);
    printf("10,000 counters (pk, n, owner, 100-byte data).  Each phase runs %d x %.1f s per engine, the engines "
           "taking turns; the median run is reported.  SQLite: WAL mode, one connection per thread, prepared "
           "statements, writers serialised by a process mutex.\n\n",
           rounds, secs);
    fflush(stdout);
    if (bx_fresh_dir(dir) != 0)
        return 1;

    static const engine *const engines[2] = {&eng_ddb, &eng_sqlite};
    static const char *const ename[2] = {"ddb", "sqlite"};
    static const wkind works[2] = {W_UPDATE, W_TX};
    const int tcounts[2] = {1, threads};
    static cell cells[2][2][2]; /* durab, work, threads */
    bool bad = false;
    int phase = 0;
    for (int d = 0; d < 2; d++) {
        if (!listed(only_m, d == D_FULL ? "full" : "none"))
            continue;
        void *h[2] = {NULL, NULL};
        int64_t expect[2] = {0, 0};
        for (int e = 0; e < 2; e++) {
            if (!listed(only_e, ename[e]))
                continue;
            char edir[1200];
            snprintf(edir, sizeof edir, "%s/%s-%s", dir, ename[e], d == D_FULL ? "full" : "none");
            if (mkdir(edir, 0755) != 0) {
                fprintf(stderr, "mkdir %s: %s\n", edir, strerror(errno));
                return 1;
            }
            if (engines[e]->setup(edir, (durab)d, &h[e])) {
                fprintf(stderr, "%s: setup failed\n", engines[e]->name);
                h[e] = NULL;
                bad = true;
            }
        }
        for (int w = 0; w < 2; w++) {
            if (!listed(only_w, works[w] == W_UPDATE ? "update" : "tx"))
                continue;
            for (int tc = 0; tc < 2; tc++) {
                cell *c = &cells[d][w][tc];
                for (int r = 0; r < rounds; r++) {
                    for (int k = 0; k < 2; k++) {
                        int e = r % 2 ? 1 - k : k; /* who goes first alternates */
                        const engine *en = engines[e];
                        if (!h[e])
                            continue;
                        en->set_phase(h[e], phase++);
                        bx_job j = {.threads = tcounts[tc], .budget = UINT64_MAX, .cap_s = secs, .ctx = h[e],
                                    .thread_open = en->thread_open, .thread_close = en->thread_close,
                                    .op = works[w] == W_UPDATE ? en->update : en->tx};
                        bx_result res = bx_run(&j);
                        c->r[e][r] = res;
                        expect[e] += (int64_t)res.ops * (works[w] == W_UPDATE ? 1 : TX_UPDATES);
                        fprintf(stderr, "  %-6s %-4s %-11s %3d thr round %d: %8" PRIu64 " ops in %.2f s = %.0f/s%s\n",
                                en->name, d == D_FULL ? "FULL" : "NONE", works[w] == W_UPDATE ? "cond-update" : "tx10",
                                tcounts[tc], r, res.ops, res.secs, bx_rate(&res), res.failed ? " FAILED" : "");
                        bad |= res.failed;
                    }
                }
                c->n = rounds;
            }
        }
        for (int e = 0; e < 2; e++) {
            if (!h[e])
                continue;
            int64_t sum = -1;
            if (engines[e]->sum(h[e], &sum) || sum != expect[e]) {
                fprintf(stderr, "%s: counters sum to %" PRId64 ", expected %" PRId64 "\n", engines[e]->name, sum,
                        expect[e]);
                bad = true;
            }
            engines[e]->teardown(h[e]);
        }
    }

    printf("| workload | durability (ddb / SQLite) | threads | ddb ops/s | SQLite ops/s | ddb/SQLite | per-round "
           "ratios |\n|---|---|---:|---:|---:|---:|---:|\n");
    for (int w = 0; w < 2; w++)
        for (int d = 0; d < 2; d++)
            for (int tc = 0; tc < 2; tc++) {
                const cell *c = &cells[d][w][tc];
                if (!c->n)
                    continue;
                bx_result m0 = median(c->r[0], c->n), m1 = median(c->r[1], c->n);
                /* each round's ddb run against the SQLite run next to it in time */
                double lo = 1e300, hi = 0;
                for (int r = 0; r < c->n; r++) {
                    double x = bx_rate(&c->r[0][r]), y = bx_rate(&c->r[1][r]);
                    if (x > 0 && y > 0) {
                        lo = x / y < lo ? x / y : lo;
                        hi = x / y > hi ? x / y : hi;
                    }
                }
                char a[32], b[32], q[32], range[48] = "-";
                if (hi > 0)
                    snprintf(range, sizeof range, "%.2f-%.2f", lo, hi);
                printf("| %s | %s / %s | %d | %s | %s | %s | %s |\n",
                       works[w] == W_UPDATE ? "cond. update (1 item)" : "transaction (10 items)", durab_ddb[d],
                       durab_sql[d], tcounts[tc], bx_fmt_rate(a, sizeof a, &m0), bx_fmt_rate(b, sizeof b, &m1),
                       bx_fmt_ratio(q, sizeof q, bx_rate(&m0), bx_rate(&m1)), range);
            }
    printf("\nops/s: UpdateItem calls / transactions per second (a transaction = 5 conditional increments + "
           "5 conditional inserts), median of the rounds; ddb/SQLite = ratio of the medians; per-round ratios = "
           "lowest and highest ratio of one round's ddb run to the SQLite run next to it.\n");
    printf("Check: after each engine's phases the counters sum to the increments acknowledged: %s.\n",
           bad ? "FAILED (see stderr)" : "ok");
    printf("Load average (1 min) at end: %.2f\n", bx_loadavg());
    if (!keep)
        bx_rm_rf(dir);
    return bad ? 1 : 0;
}
