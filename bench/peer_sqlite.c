/* Peer: SQLite in WAL mode, one connection per thread, prepared statements.
 *
 * Layout: items(pk, sk, v) WITHOUT ROWID keyed (pk, sk), v = the 200-byte
 * blob; gsi(gpk, gsk, pk, sk) WITHOUT ROWID, maintained in the write's
 * transaction (the old entry is found from the old blob, as ddb does).
 * Durability: synchronous=FULL / NORMAL / OFF for ddb's FULL / LAZY / NONE.
 * Reads go through mmap (mmap_size 4 GiB) as LMDB's do.  Writers are
 * serialised by a mutex in the process: SQLite allows one writer at a time
 * anyway, and a mutex is faster than SQLite's sleeping busy handler. */
#include "bench.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct sh {
    char path[1024];
    const wl *w;
    bench_mode mode;
    pthread_mutex_t write_mu;
} sh;

enum { S_GET, S_QUERY, S_GSI, S_BEGIN, S_COMMIT, S_ROLLBACK, S_OLD, S_GDEL, S_IPUT, S_GPUT, S_N };

static const char *const sql[S_N] = {
    "SELECT v FROM items WHERE pk = ?1 AND sk = ?2",
    "SELECT v FROM items WHERE pk = ?1 ORDER BY sk",
    "SELECT i.v FROM gsi g JOIN items i ON i.pk = g.pk AND i.sk = g.sk WHERE g.gpk = ?1 ORDER BY g.gsk",
    "BEGIN IMMEDIATE",
    "COMMIT",
    "ROLLBACK",
    "SELECT v FROM items WHERE pk = ?1 AND sk = ?2",
    "DELETE FROM gsi WHERE gpk = ?1 AND gsk = ?2 AND pk = ?3 AND sk = ?4",
    "INSERT OR REPLACE INTO items (pk, sk, v) VALUES (?1, ?2, ?3)",
    "INSERT OR REPLACE INTO gsi (gpk, gsk, pk, sk) VALUES (?1, ?2, ?3, ?4)",
};

typedef struct stc {
    sh *h;
    sqlite3 *c;
    sqlite3_stmt *st[S_N];
    uint8_t buf[WL_ITEM_BYTES];
} stc;

static int fail(sqlite3 *c, const char *what)
{
    fprintf(stderr, "sqlite: %s: %s\n", what, c ? sqlite3_errmsg(c) : "out of memory");
    return -1;
}

static int exec(sqlite3 *c, const char *s)
{
    char *msg = NULL;
    if (sqlite3_exec(c, s, NULL, NULL, &msg) != SQLITE_OK) {
        fprintf(stderr, "sqlite: %s: %s\n", s, msg ? msg : "?");
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

static int connect(const char *path, bench_mode mode, sqlite3 **out)
{
    sqlite3 *c;
    if (sqlite3_open_v2(path, &c, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) !=
        SQLITE_OK) {
        fail(c, "open");
        sqlite3_close(c);
        return -1;
    }
    const char *sync = mode == MODE_FULL ? "PRAGMA synchronous=FULL" : mode == MODE_LAZY ? "PRAGMA synchronous=NORMAL"
                                                                                          : "PRAGMA synchronous=OFF";
    sqlite3_busy_timeout(c, 60000);
    if (exec(c, "PRAGMA journal_mode=WAL") || exec(c, sync) || exec(c, "PRAGMA mmap_size=4294967296") ||
        exec(c, "PRAGMA cache_size=-65536")) {
        sqlite3_close(c);
        return -1;
    }
    *out = c;
    return 0;
}

static int step_done(sqlite3 *c, sqlite3_stmt *s, const char *what)
{
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    return rc == SQLITE_DONE ? 0 : fail(c, what);
}

static int s_load(const char *dir, const wl *w)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/sqlite.db", dir);
    sqlite3 *c;
    if (connect(path, MODE_NONE, &c))
        return -1;
    sqlite3_stmt *ip = NULL, *gp = NULL;
    int rc = exec(c, "CREATE TABLE items (pk TEXT NOT NULL, sk TEXT NOT NULL, v BLOB NOT NULL, PRIMARY KEY (pk, sk)) "
                     "WITHOUT ROWID") ||
             exec(c, "CREATE TABLE gsi (gpk TEXT NOT NULL, gsk TEXT NOT NULL, pk TEXT NOT NULL, sk TEXT NOT NULL, "
                     "PRIMARY KEY (gpk, gsk, pk, sk)) WITHOUT ROWID") ||
             exec(c, "BEGIN");
    if (!rc && (sqlite3_prepare_v2(c, sql[S_IPUT], -1, &ip, NULL) || sqlite3_prepare_v2(c, sql[S_GPUT], -1, &gp, NULL)))
        rc = fail(c, "prepare");
    wl_item x;
    for (uint64_t i = 0; i < w->items && !rc; i++) {
        wl_item_make(w, wl_load_order(w, i), 0, &x);
        sqlite3_bind_text(ip, 1, x.pk, WL_PK_LEN, SQLITE_STATIC);
        sqlite3_bind_text(ip, 2, x.sk, WL_SK_LEN, SQLITE_STATIC);
        sqlite3_bind_blob(ip, 3, x.blob, WL_ITEM_BYTES, SQLITE_STATIC);
        sqlite3_bind_text(gp, 1, x.gpk, WL_GPK_LEN, SQLITE_STATIC);
        sqlite3_bind_text(gp, 2, x.gsk, WL_GSK_LEN, SQLITE_STATIC);
        sqlite3_bind_text(gp, 3, x.pk, WL_PK_LEN, SQLITE_STATIC);
        sqlite3_bind_text(gp, 4, x.sk, WL_SK_LEN, SQLITE_STATIC);
        rc = step_done(c, ip, "load items") || step_done(c, gp, "load gsi");
    }
    sqlite3_finalize(ip);
    sqlite3_finalize(gp);
    if (!rc)
        rc = exec(c, "COMMIT") || exec(c, "PRAGMA wal_checkpoint(TRUNCATE)") || exec(c, "ANALYZE");
    sqlite3_close(c);
    return rc ? -1 : 0;
}

static int s_open(const char *dir, const wl *w, bench_mode mode, void **out)
{
    sh *h = calloc(1, sizeof *h);
    if (!h)
        return -1;
    snprintf(h->path, sizeof h->path, "%s/sqlite.db", dir);
    h->w = w;
    h->mode = mode;
    pthread_mutex_init(&h->write_mu, NULL);
    *out = h;
    return 0;
}

static void s_close(void *vh)
{
    sh *h = vh;
    /* fold the WAL back so the next phase starts from the same state */
    sqlite3 *c;
    if (connect(h->path, h->mode, &c) == 0) {
        exec(c, "PRAGMA wal_checkpoint(TRUNCATE)");
        sqlite3_close(c);
    }
    pthread_mutex_destroy(&h->write_mu);
    free(h);
}

static void s_thread_close(void *vt)
{
    stc *t = vt;
    for (int i = 0; i < S_N; i++)
        sqlite3_finalize(t->st[i]);
    sqlite3_close(t->c);
    free(t);
}

static int s_thread_open(void *vh, void **out)
{
    stc *t = calloc(1, sizeof *t);
    if (!t)
        return -1;
    t->h = vh;
    if (connect(t->h->path, t->h->mode, &t->c)) {
        free(t);
        return -1;
    }
    for (int i = 0; i < S_N; i++)
        if (sqlite3_prepare_v2(t->c, sql[i], -1, &t->st[i], NULL) != SQLITE_OK) {
            fail(t->c, sql[i]);
            s_thread_close(t);
            return -1;
        }
    *out = t;
    return 0;
}

static int s_get(void *vt, uint64_t i)
{
    stc *t = vt;
    char pk[WL_PK_LEN + 1], sk[WL_SK_LEN + 1];
    wl_pk(i / WL_COLLECTION, pk);
    wl_sk(i % WL_COLLECTION, sk);
    sqlite3_stmt *s = t->st[S_GET];
    sqlite3_bind_text(s, 1, pk, WL_PK_LEN, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, sk, WL_SK_LEN, SQLITE_STATIC);
    int n = 0, rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        memcpy(t->buf, sqlite3_column_blob(s, 0), (size_t)sqlite3_column_bytes(s, 0));
        n++;
    }
    sqlite3_reset(s);
    return rc == SQLITE_DONE ? n : fail(t->c, "get");
}

static int rows(stc *t, sqlite3_stmt *s, const char *key, int len, const char *what)
{
    sqlite3_bind_text(s, 1, key, len, SQLITE_STATIC);
    int n = 0, rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        int sz = sqlite3_column_bytes(s, 0);
        memcpy(t->buf, sqlite3_column_blob(s, 0), sz > WL_ITEM_BYTES ? WL_ITEM_BYTES : (size_t)sz);
        n++;
    }
    sqlite3_reset(s);
    return rc == SQLITE_DONE ? n : fail(t->c, what);
}

static int s_query(void *vt, uint64_t part)
{
    stc *t = vt;
    char pk[WL_PK_LEN + 1];
    wl_pk(part, pk);
    return rows(t, t->st[S_QUERY], pk, WL_PK_LEN, "query");
}

static int s_gsi(void *vt, uint64_t gpart)
{
    stc *t = vt;
    char gpk[WL_GPK_LEN + 1];
    wl_gpk(gpart, gpk);
    return rows(t, t->st[S_GSI], gpk, WL_GPK_LEN, "gsi query");
}

static int put_locked(stc *t, const wl_item *x)
{
    sqlite3_stmt **st = t->st;
    if (step_done(t->c, st[S_BEGIN], "begin"))
        return -1;
    /* the old item's GSI key, from its blob */
    sqlite3_bind_text(st[S_OLD], 1, x->pk, WL_PK_LEN, SQLITE_STATIC);
    sqlite3_bind_text(st[S_OLD], 2, x->sk, WL_SK_LEN, SQLITE_STATIC);
    int rc = sqlite3_step(st[S_OLD]), err = 0;
    if (rc == SQLITE_ROW && sqlite3_column_bytes(st[S_OLD], 0) == WL_ITEM_BYTES) {
        const uint8_t *old = sqlite3_column_blob(st[S_OLD], 0);
        if (memcmp(old + WL_OFF_GPK, x->blob + WL_OFF_GPK, WL_GKEY_LEN) != 0) {
            char ogpk[WL_GPK_LEN], ogsk[WL_GSK_LEN];
            memcpy(ogpk, old + WL_OFF_GPK, WL_GPK_LEN);
            memcpy(ogsk, old + WL_OFF_GSK, WL_GSK_LEN);
            sqlite3_reset(st[S_OLD]);
            sqlite3_bind_text(st[S_GDEL], 1, ogpk, WL_GPK_LEN, SQLITE_TRANSIENT);
            sqlite3_bind_text(st[S_GDEL], 2, ogsk, WL_GSK_LEN, SQLITE_TRANSIENT);
            sqlite3_bind_text(st[S_GDEL], 3, x->pk, WL_PK_LEN, SQLITE_STATIC);
            sqlite3_bind_text(st[S_GDEL], 4, x->sk, WL_SK_LEN, SQLITE_STATIC);
            err = step_done(t->c, st[S_GDEL], "gsi delete");
        }
    } else if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        err = fail(t->c, "read old");
    }
    sqlite3_reset(st[S_OLD]);
    if (!err) {
        sqlite3_bind_text(st[S_IPUT], 1, x->pk, WL_PK_LEN, SQLITE_STATIC);
        sqlite3_bind_text(st[S_IPUT], 2, x->sk, WL_SK_LEN, SQLITE_STATIC);
        sqlite3_bind_blob(st[S_IPUT], 3, x->blob, WL_ITEM_BYTES, SQLITE_STATIC);
        sqlite3_bind_text(st[S_GPUT], 1, x->gpk, WL_GPK_LEN, SQLITE_STATIC);
        sqlite3_bind_text(st[S_GPUT], 2, x->gsk, WL_GSK_LEN, SQLITE_STATIC);
        sqlite3_bind_text(st[S_GPUT], 3, x->pk, WL_PK_LEN, SQLITE_STATIC);
        sqlite3_bind_text(st[S_GPUT], 4, x->sk, WL_SK_LEN, SQLITE_STATIC);
        err = step_done(t->c, st[S_IPUT], "put item") || step_done(t->c, st[S_GPUT], "put gsi");
    }
    if (err) {
        step_done(t->c, st[S_ROLLBACK], "rollback");
        return -1;
    }
    return step_done(t->c, st[S_COMMIT], "commit") ? -1 : 1;
}

static int s_put(void *vt, uint64_t i, uint64_t version)
{
    stc *t = vt;
    wl_item x;
    wl_item_make(t->h->w, i, version, &x);
    pthread_mutex_lock(&t->h->write_mu);
    int rc = put_locked(t, &x);
    pthread_mutex_unlock(&t->h->write_mu);
    return rc;
}

const peer_vt peer_sqlite = {"sqlite", s_load, s_open, s_close, s_thread_open, s_thread_close,
                             s_get, s_query, s_gsi, s_put};
