/* Peer: raw LMDB, the floor.  items: key pk||sk -> the 200-byte blob;
 * gsi (MDB_DUPSORT): gpk||gsk -> pk||sk.  Each thread keeps one read
 * transaction and reuses it with mdb_txn_reset/renew (LMDB's fast path);
 * every item read is decoded into a struct (its keys as C strings, its
 * payload copied out of the map), as an application reading into its own
 * types does and as the other peers do;
 * a put is one write transaction (LMDB serialises writers itself).
 * Durability flags as ddb's modes: FULL none, LAZY MDB_NOMETASYNC, NONE
 * MDB_NOSYNC|MDB_WRITEMAP. */
#include "bench.h"

#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct lh {
    MDB_env *env;
    MDB_dbi items, gsi;
    const wl *w;
} lh;

/* An item read: what the blob holds, as an application's struct. */
typedef struct lrow {
    char pk[WL_PK_LEN + 1], sk[WL_SK_LEN + 1], gpk[WL_GPK_LEN + 1], gsk[WL_GSK_LEN + 1];
    uint8_t data[WL_ITEM_BYTES - WL_OFF_DATA];
    size_t data_len;
} lrow;

typedef struct ltc {
    lh *h;
    MDB_txn *rt; /* reset between operations */
    MDB_cursor *ic, *gc;
    lrow row;
} ltc;

static int fail(int rc, const char *what)
{
    fprintf(stderr, "lmdb: %s: %s\n", what, mdb_strerror(rc));
    return -1;
}

static int env_open(const char *dir, bench_mode mode, bool create, lh *h)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/lmdb", dir);
    unsigned flags = MDB_NOTLS | MDB_NORDAHEAD | MDB_NOSUBDIR;
    if (mode == MODE_LAZY)
        flags |= MDB_NOMETASYNC;
    else if (mode == MODE_NONE)
        flags |= MDB_NOSYNC | MDB_WRITEMAP;
    MDB_txn *txn;
    int rc;
    if ((rc = mdb_env_create(&h->env)) || (rc = mdb_env_set_maxdbs(h->env, 4)) ||
        (rc = mdb_env_set_maxreaders(h->env, 512)) || (rc = mdb_env_set_mapsize(h->env, (size_t)bench_map_size())) ||
        (rc = mdb_env_open(h->env, path, flags, 0644)))
        return fail(rc, "env open");
    unsigned c = create ? MDB_CREATE : 0;
    if ((rc = mdb_txn_begin(h->env, NULL, 0, &txn)))
        return fail(rc, "txn");
    if ((rc = mdb_dbi_open(txn, "items", c, &h->items)) || (rc = mdb_dbi_open(txn, "gsi", c | MDB_DUPSORT, &h->gsi)) ||
        (rc = mdb_txn_commit(txn)))
        return fail(rc, "dbi open");
    return 0;
}

static int l_load(const char *dir, const wl *w)
{
    lh h = {0};
    if (env_open(dir, MODE_NONE, true, &h)) {
        mdb_env_close(h.env);
        return -1;
    }
    MDB_txn *txn;
    int rc = mdb_txn_begin(h.env, NULL, 0, &txn);
    wl_item x;
    for (uint64_t i = 0; i < w->items && !rc; i++) {
        wl_item_make(w, wl_load_order(w, i), 0, &x);
        MDB_val k = {WL_KEY_LEN, x.blob + WL_OFF_PK}, v = {WL_ITEM_BYTES, x.blob};
        MDB_val gk = {WL_GKEY_LEN, x.blob + WL_OFF_GPK}, gv = {WL_KEY_LEN, x.blob + WL_OFF_PK};
        /* items in key order: append (fills pages completely) */
        if (!(rc = mdb_put(txn, h.items, &k, &v, w->sorted ? MDB_APPEND : 0)))
            rc = mdb_put(txn, h.gsi, &gk, &gv, 0);
    }
    if (!rc)
        rc = mdb_txn_commit(txn);
    else
        mdb_txn_abort(txn);
    if (!rc)
        rc = mdb_env_sync(h.env, 1);
    mdb_env_close(h.env);
    return rc ? fail(rc, "load") : 0;
}

static int l_open(const char *dir, const wl *w, bench_mode mode, void **out)
{
    lh *h = calloc(1, sizeof *h);
    if (!h)
        return -1;
    if (env_open(dir, mode, false, h)) {
        mdb_env_close(h->env);
        free(h);
        return -1;
    }
    h->w = w;
    *out = h;
    return 0;
}

static void l_close(void *vh)
{
    lh *h = vh;
    mdb_env_close(h->env);
    free(h);
}

static int l_thread_open(void *vh, void **out)
{
    ltc *t = calloc(1, sizeof *t);
    if (!t)
        return -1;
    t->h = vh;
    int rc = mdb_txn_begin(t->h->env, NULL, MDB_RDONLY, &t->rt);
    if (!rc && !(rc = mdb_cursor_open(t->rt, t->h->items, &t->ic)))
        rc = mdb_cursor_open(t->rt, t->h->gsi, &t->gc);
    if (rc) {
        free(t);
        return fail(rc, "thread open");
    }
    mdb_txn_reset(t->rt);
    *out = t;
    return 0;
}

static void l_thread_close(void *vt)
{
    ltc *t = vt;
    mdb_cursor_close(t->ic);
    mdb_cursor_close(t->gc);
    mdb_txn_abort(t->rt);
    free(t);
}

/* Blob v into t->row (bounded by v's length: a short blob is an error). */
static int decode_row(ltc *t, const MDB_val *v)
{
    const uint8_t *b = v->mv_data;
    if (v->mv_size < WL_OFF_DATA)
        return -1;
    lrow *r = &t->row;
    memcpy(r->pk, b + WL_OFF_PK, WL_PK_LEN);
    r->pk[WL_PK_LEN] = '\0';
    memcpy(r->sk, b + WL_OFF_SK, WL_SK_LEN);
    r->sk[WL_SK_LEN] = '\0';
    memcpy(r->gpk, b + WL_OFF_GPK, WL_GPK_LEN);
    r->gpk[WL_GPK_LEN] = '\0';
    memcpy(r->gsk, b + WL_OFF_GSK, WL_GSK_LEN);
    r->gsk[WL_GSK_LEN] = '\0';
    r->data_len = v->mv_size - WL_OFF_DATA < sizeof r->data ? v->mv_size - WL_OFF_DATA : sizeof r->data;
    memcpy(r->data, b + WL_OFF_DATA, r->data_len);
    return 0;
}

static int begin(ltc *t)
{
    int rc = mdb_txn_renew(t->rt);
    if (!rc && !(rc = mdb_cursor_renew(t->rt, t->ic)))
        rc = mdb_cursor_renew(t->rt, t->gc);
    return rc ? fail(rc, "renew") : 0;
}

static int l_get(void *vt, uint64_t i)
{
    ltc *t = vt;
    char key[WL_KEY_LEN + 1];
    wl_pk(i / WL_COLLECTION, key);
    wl_sk(i % WL_COLLECTION, key + WL_PK_LEN);
    int rc = mdb_txn_renew(t->rt);
    if (rc)
        return fail(rc, "renew");
    MDB_val k = {WL_KEY_LEN, key}, v;
    rc = mdb_get(t->rt, t->h->items, &k, &v);
    if (!rc && decode_row(t, &v))
        rc = MDB_CORRUPTED;
    mdb_txn_reset(t->rt);
    return rc ? fail(rc, "get") : 1;
}

static int l_query(void *vt, uint64_t part)
{
    ltc *t = vt;
    char pk[WL_PK_LEN + 1];
    wl_pk(part, pk);
    if (begin(t))
        return -1;
    MDB_val k = {WL_PK_LEN, pk}, v;
    int n = 0, rc = mdb_cursor_get(t->ic, &k, &v, MDB_SET_RANGE);
    while (rc == 0 && k.mv_size >= WL_PK_LEN && memcmp(k.mv_data, pk, WL_PK_LEN) == 0) {
        if (decode_row(t, &v)) {
            rc = MDB_CORRUPTED;
            break;
        }
        n++;
        rc = mdb_cursor_get(t->ic, &k, &v, MDB_NEXT);
    }
    mdb_txn_reset(t->rt);
    return rc == 0 || rc == MDB_NOTFOUND ? n : fail(rc, "query");
}

static int l_gsi(void *vt, uint64_t gpart)
{
    ltc *t = vt;
    char gpk[WL_GPK_LEN + 1];
    wl_gpk(gpart, gpk);
    if (begin(t))
        return -1;
    MDB_val k = {WL_GPK_LEN, gpk}, d, v;
    int n = 0, rc = mdb_cursor_get(t->gc, &k, &d, MDB_SET_RANGE);
    while (rc == 0 && k.mv_size >= WL_GPK_LEN && memcmp(k.mv_data, gpk, WL_GPK_LEN) == 0) {
        if ((rc = mdb_get(t->rt, t->h->items, &d, &v)))
            break;
        if (decode_row(t, &v)) {
            rc = MDB_CORRUPTED;
            break;
        }
        n++;
        rc = mdb_cursor_get(t->gc, &k, &d, MDB_NEXT);
    }
    mdb_txn_reset(t->rt);
    return rc == 0 || rc == MDB_NOTFOUND ? n : fail(rc, "gsi query");
}

static int l_put(void *vt, uint64_t i, uint64_t version)
{
    ltc *t = vt;
    wl_item x;
    wl_item_make(t->h->w, i, version, &x);
    MDB_txn *txn;
    int rc = mdb_txn_begin(t->h->env, NULL, 0, &txn);
    if (rc)
        return fail(rc, "write txn");
    MDB_val k = {WL_KEY_LEN, x.blob + WL_OFF_PK}, v = {WL_ITEM_BYTES, x.blob}, old;
    MDB_val gk = {WL_GKEY_LEN, x.blob + WL_OFF_GPK}, gv = {WL_KEY_LEN, x.blob + WL_OFF_PK};
    rc = mdb_get(txn, t->h->items, &k, &old);
    if (rc == 0 && old.mv_size == WL_ITEM_BYTES &&
        memcmp((uint8_t *)old.mv_data + WL_OFF_GPK, x.blob + WL_OFF_GPK, WL_GKEY_LEN) != 0) {
        uint8_t ogk[WL_GKEY_LEN];
        memcpy(ogk, (uint8_t *)old.mv_data + WL_OFF_GPK, WL_GKEY_LEN);
        MDB_val ok = {WL_GKEY_LEN, ogk};
        rc = mdb_del(txn, t->h->gsi, &ok, &gv);
    }
    if (rc == MDB_NOTFOUND)
        rc = 0;
    if (!rc && !(rc = mdb_put(txn, t->h->items, &k, &v, 0)) && !(rc = mdb_put(txn, t->h->gsi, &gk, &gv, 0)))
        rc = mdb_txn_commit(txn);
    else
        mdb_txn_abort(txn);
    return rc ? fail(rc, "put") : 1;
}

const peer_vt peer_lmdb = {"lmdb", l_load, l_open, l_close, l_thread_open, l_thread_close,
                           l_get, l_query, l_gsi, l_put};
