/* Peer: ddb embedded, through the public API only (<ddb/ddb.h>). */
#include "bench.h"

#include <ddb/ddb.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TABLE "bench"
#define GSI "by_status"

typedef struct dh {
    ddb *db;
    const wl *w;
} dh;

typedef struct dtc {
    dh *h;
    ddb_arena *a;
    ddb_error err;
} dtc;

static int fail(const char *what, int rc, const ddb_error *err)
{
    fprintf(stderr, "ddb: %s: %s (%s)\n", what, ddb_strerror(rc), err ? err->message : "");
    return -1;
}

bool bench_commit_log;

static int open_mode(const char *dir, bench_mode mode, ddb **db)
{
    char uri[1024];
    snprintf(uri, sizeof uri, "file:%s/ddb", dir);
    ddb_options o = {0};
    o.map_size = bench_map_size();
    o.sync = mode == MODE_FULL ? DDB_SYNC_FULL : mode == MODE_LAZY ? DDB_SYNC_LAZY : DDB_SYNC_NONE;
    o.commit_log = bench_commit_log;
    ddb_error err = {0};
    int rc = ddb_open(uri, &o, db, &err);
    return rc ? fail("ddb_open", rc, &err) : 0;
}

static ddb_item *make_item(ddb_arena *a, const wl_item *x)
{
    ddb_item *it = ddb_item_new(a);
    if (!it || ddb_item_set(it, "pk", ddb_v_s(a, x->pk, WL_PK_LEN)) ||
        ddb_item_set(it, "sk", ddb_v_s(a, x->sk, WL_SK_LEN)) ||
        ddb_item_set(it, "gpk", ddb_v_s(a, x->gpk, WL_GPK_LEN)) ||
        ddb_item_set(it, "gsk", ddb_v_s(a, x->gsk, WL_GSK_LEN)) ||
        ddb_item_set(it, "data", ddb_v_b(a, x->data, WL_DATA_LEN)))
        return NULL;
    return it;
}

static int d_load(const char *dir, const wl *w)
{
    ddb *db;
    if (open_mode(dir, MODE_NONE, &db))
        return -1;
    ddb_error err = {0};
    ddb_index_def gsi = {.name = GSI, .key = {.pk = "gpk", .pk_type = DDB_TS, .sk = "gsk", .sk_type = DDB_TS}, .projection = DDB_PROJ_ALL};
    ddb_table_def def = {.name = TABLE, .key = {.pk = "pk", .pk_type = DDB_TS, .sk = "sk", .sk_type = DDB_TS}, .indexes = &gsi, .n_indexes = 1};
    int rc = ddb_create_table(db, &def, &err);
    if (rc) {
        ddb_close(db);
        return fail("create table", rc, &err);
    }
    ddb_arena *a = ddb_arena_new();
    wl_item x;
    for (uint64_t i = 0; i < w->items && !rc; i++) {
        ddb_arena_reset(a);
        wl_item_make(w, wl_load_order(w, i), 0, &x);
        ddb_item *it = make_item(a, &x);
        rc = it ? ddb_put_item(db, TABLE, it, NULL, NULL, NULL, &err) : DDB_ENOMEM;
    }
    ddb_arena_free(a);
    if (rc) {
        ddb_close(db);
        return fail("load put", rc, &err);
    }
    rc = ddb_sync(db, &err);
    ddb_close(db);
    return rc ? fail("sync", rc, &err) : 0;
}

static int d_open(const char *dir, const wl *w, bench_mode mode, void **out)
{
    dh *h = calloc(1, sizeof *h);
    if (!h || open_mode(dir, mode, &h->db)) {
        free(h);
        return -1;
    }
    h->w = w;
    *out = h;
    return 0;
}

static void d_close(void *vh)
{
    dh *h = vh;
    ddb_close(h->db);
    free(h);
}

static int d_thread_open(void *vh, void **out)
{
    dtc *t = calloc(1, sizeof *t);
    if (!t || !(t->a = ddb_arena_new())) {
        free(t);
        return -1;
    }
    t->h = vh;
    *out = t;
    return 0;
}

static void d_thread_close(void *vt)
{
    dtc *t = vt;
    ddb_arena_free(t->a);
    free(t);
}

static int d_get(void *vt, uint64_t i)
{
    dtc *t = vt;
    ddb_arena_reset(t->a);
    char pk[WL_PK_LEN + 1], sk[WL_SK_LEN + 1];
    wl_pk(i / WL_COLLECTION, pk);
    wl_sk(i % WL_COLLECTION, sk);
    ddb_item *key = ddb_item_new(t->a), *out;
    if (!key || ddb_item_set(key, "pk", ddb_v_s(t->a, pk, WL_PK_LEN)) ||
        ddb_item_set(key, "sk", ddb_v_s(t->a, sk, WL_SK_LEN)))
        return fail("get: key", DDB_ENOMEM, NULL);
    int rc = ddb_get_item(t->h->db, TABLE, key, NULL, t->a, &out, NULL, &t->err);
    if (rc)
        return fail("get", rc, &t->err);
    const ddb_value *d = ddb_item_get(out, "data");
    return d && d->len == WL_DATA_LEN ? 1 : fail("get: no data", DDB_ECORRUPT, NULL);
}

static int run_query(dtc *t, const char *index, const char *pkv, size_t len)
{
    ddb_arena_reset(t->a);
    ddb_query_params q = {.table = TABLE, .index = index, .pk = ddb_v_s(t->a, pkv, len)};
    ddb_page pg;
    int rc = ddb_query(t->h->db, &q, t->a, &pg, &t->err);
    if (rc)
        return fail("query", rc, &t->err);
    return (int)pg.count;
}

static int d_query(void *vt, uint64_t part)
{
    char pk[WL_PK_LEN + 1];
    wl_pk(part, pk);
    return run_query(vt, NULL, pk, WL_PK_LEN);
}

static int d_gsi(void *vt, uint64_t gpart)
{
    char gpk[WL_GPK_LEN + 1];
    wl_gpk(gpart, gpk);
    return run_query(vt, GSI, gpk, WL_GPK_LEN);
}

static int d_put(void *vt, uint64_t i, uint64_t version)
{
    dtc *t = vt;
    ddb_arena_reset(t->a);
    wl_item x;
    wl_item_make(t->h->w, i, version, &x);
    ddb_item *it = make_item(t->a, &x);
    if (!it)
        return fail("put: item", DDB_ENOMEM, NULL);
    int rc = ddb_put_item(t->h->db, TABLE, it, NULL, NULL, NULL, &t->err);
    return rc ? fail("put", rc, &t->err) : 1;
}

const peer_vt peer_ddb = {"ddb", d_load, d_open, d_close, d_thread_open, d_thread_close,
                          d_get, d_query, d_gsi, d_put};
