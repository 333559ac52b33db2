/* api/: A handle's cache of prepared expressions: generated modules build the same
 * few expression texts (attribute_not_exists(#n0), #n0 = :v0, SET ...) on
 * every call, so each is prepared once per handle and shared by threads.
 * Serves every backend (it lives in the public handle).  May call expr/
 * (through ddb_expr_prepare) and core/. */
#include "api/api.h"
#include "api/expr_cache.h"
#include "core/codec.h"
#include "core/error.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#define CACHE_BUCKETS 256
#define CACHE_MAX 4096 /* beyond this, texts are prepared for one call and not kept */

typedef struct entry {
    struct entry *next;
    uint64_t hash;
    size_t klen;
    ddb_expr *expr;
    unsigned char key[]; /* kind byte, text, NUL, encoded names */
} entry;

struct ddb_expr_cache {
    pthread_mutex_t mu;
    size_t count;
    entry *buckets[CACHE_BUCKETS];
};

static struct ddb_expr_cache *cache_of(ddb *db)
{
    /* created lazily under the schema mutex (rare, once per handle) */
    struct ddb_expr_cache *c = __atomic_load_n(&db->expr_cache, __ATOMIC_ACQUIRE);
    if (c)
        return c;
    pthread_mutex_lock(&db->mu);
    c = db->expr_cache;
    if (!c && (c = calloc(1, sizeof *c))) {
        pthread_mutex_init(&c->mu, NULL);
        __atomic_store_n(&db->expr_cache, c, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&db->mu);
    return c;
}

int ddbi_expr_cached(ddb *db, ddb_expr_kind kind, const char *text, const ddb_item *names, const ddb_expr **out,
                    ddb_expr **owned, ddb_error *err)
{
    *out = NULL;
    *owned = NULL;
    struct ddb_expr_cache *c = cache_of(db);
    if (!c)
        return ddbi_fail_oom(err, __func__);
    ddb_buf k = {0};
    unsigned char kb = (unsigned char)kind;
    if (ddbi_buf_put(&k, &kb, 1) || ddbi_buf_put(&k, text, strlen(text) + 1) ||
        (names && ddbi_encode_item(&k, ddb_item_map(names), 0))) {
        ddbi_buf_free(&k);
        return ddbi_fail_oom(err, __func__);
    }
    uint64_t h = XXH3_64bits(k.p, k.len);
    entry **slot = &c->buckets[h % CACHE_BUCKETS];
    pthread_mutex_lock(&c->mu);
    for (entry *e = *slot; e; e = e->next)
        if (e->hash == h && e->klen == k.len && memcmp(e->key, k.p, k.len) == 0) {
            *out = e->expr;
            pthread_mutex_unlock(&c->mu);
            ddbi_buf_free(&k);
            return DDB_OK;
        }
    pthread_mutex_unlock(&c->mu);
    ddb_expr *x;
    int rc = ddb_expr_prepare(kind, text, names, &x, err);
    if (rc) {
        ddbi_buf_free(&k);
        return rc;
    }
    entry *e = malloc(sizeof *e + k.len);
    if (!e) {
        ddb_expr_free(x);
        ddbi_buf_free(&k);
        return ddbi_fail_oom(err, __func__);
    }
    e->hash = h;
    e->klen = k.len;
    e->expr = x;
    memcpy(e->key, k.p, k.len);
    ddbi_buf_free(&k);
    pthread_mutex_lock(&c->mu);
    for (entry *o = *slot; o; o = o->next)
        if (o->hash == h && o->klen == e->klen && memcmp(o->key, e->key, e->klen) == 0) {
            /* another thread prepared the same text meanwhile */
            *out = o->expr;
            pthread_mutex_unlock(&c->mu);
            ddb_expr_free(x);
            free(e);
            return DDB_OK;
        }
    if (c->count >= CACHE_MAX) {
        /* full: the caller owns this one and frees it after use */
        pthread_mutex_unlock(&c->mu);
        free(e);
        *out = *owned = x;
        return DDB_OK;
    }
    e->next = *slot;
    *slot = e;
    c->count++;
    *out = x;
    pthread_mutex_unlock(&c->mu);
    return DDB_OK;
}

void ddbi_expr_cache_free(ddb *db)
{
    struct ddb_expr_cache *c = db->expr_cache;
    if (!c)
        return;
    for (size_t i = 0; i < CACHE_BUCKETS; i++)
        for (entry *e = c->buckets[i], *n; e; e = n) {
            n = e->next;
            ddb_expr_free(e->expr);
            free(e);
        }
    pthread_mutex_destroy(&c->mu);
    free(c);
    db->expr_cache = NULL;
}
