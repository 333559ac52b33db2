/* Entity room: write-sharded partition keys (DDB_WRITE_SHARDS).  A key
 * whose partition template carries a ddb_write_shards spreads one logical
 * partition ("DATE#2024-03-04") over `count` physical ones
 * ("DATE#2024-03-04.0" ... ".7", the suffix of AWS's write-sharding
 * pattern).  The shard of an item is a hash (FNV-1a, 64 bits) of its
 * rendered primary key, so every write and every read by key lands on the
 * same one, or, for secondary indexes that are only ever queried, drawn at
 * random.  Queries read all of them (entity_scatter.c).  ddb_ent_render,
 * the renderer every key goes through, is here: the suffix on top of the
 * template's text (entity_template.c).  Calls the public value API and the
 * templates of this room. */
#include "entity/core/entity_core.h"

#include "core/error.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* The write shards of template t when it is the partition key of one of
 * e's keys (the descriptor keeps them per key), else NULL. */
static const ddb_write_shards *ws_of(const ddb_entity_desc *e, const ddb_template *t)
{
    for (uint16_t k = 0; e->write_shards && k < e->n_keys; k++)
        if (t == &e->keys[k].pk)
            return e->write_shards[k];
    return NULL;
}

int ddbi_ent_write_shards(const ddb_entity_desc *e, const ddb_template *t)
{
    const ddb_write_shards *ws = ws_of(e, t);
    return ws && ws->count > 1 ? ws->count : 1;
}

static uint64_t fnv1a(uint64_t h, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        h ^= (uint8_t)s[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

/* The text of a rendered key value (S and N hold text). */
static uint64_t hash_value(uint64_t h, const ddb_value *v)
{
    return v ? fnv1a(h, v->u.s, v->len) : h;
}

/* splitmix64 over a shared counter: spread, not secret. */
static unsigned random_shard(unsigned count)
{
    static _Atomic uint64_t state;
    uint64_t s = atomic_fetch_add(&state, 0x9e3779b97f4a7c15ULL) ^ (uint64_t)time(NULL);
    s = (s ^ (s >> 30)) * 0xbf58476d1ce4e5b9ULL;
    s = (s ^ (s >> 27)) * 0x94d049bb133111ebULL;
    return (unsigned)((s ^ (s >> 31)) % count);
}

/* The shard obj's item belongs to. */
static int own_shard(const ddb_entity_desc *e, const ddb_write_shards *ws, const void *obj, ddb_arena *a, int *shard,
                     ddb_error *err)
{
    if (ws->by == DDB_WS_RANDOM) {
        *shard = (int)random_shard(ws->count);
        return DDB_OK;
    }
    if (ws->by != DDB_WS_HASH || !ws->hash_pk)
        return ddbi_fail(err, DDB_EINVAL, "entity %s: write shards without a way to pick one", e->name);
    ddb_value *pk, *sk = NULL;
    int rc = ddbi_ent_render_plain(e, ws->hash_pk, obj, a, &pk, err);
    if (!rc && ws->hash_sk)
        rc = ddbi_ent_render_plain(e, ws->hash_sk, obj, a, &sk, err);
    if (rc)
        return rc;
    if (!pk || (ws->hash_sk && !sk))
        return ddbi_fail(err, DDB_EVALIDATION, "%s: a primary key field is unset", e->name);
    uint64_t h = hash_value(fnv1a(0xcbf29ce484222325ULL, "", 0), pk);
    h = hash_value(fnv1a(h, "\x1f", 1), sk);
    *shard = (int)(h % ws->count);
    return DDB_OK;
}

int ddb_ent_render(const ddb_entity_desc *e, const ddb_template *t, const void *obj, ddb_arena *a, ddb_value **out,
                   ddb_error *err)
{
    return ddbi_ent_render_shard(e, t, obj, -1, a, out, err);
}

int ddbi_ent_render_shard(const ddb_entity_desc *e, const ddb_template *t, const void *obj, int shard, ddb_arena *a,
                          ddb_value **out, ddb_error *err)
{
    const ddb_write_shards *ws = ws_of(e, t);
    *out = NULL;
    if (!ws)
        return ddbi_ent_render_plain(e, t, obj, a, out, err);
    if (!ws->count || ws->count > DDB_ENT_MAX_WRITE_SHARDS || t->type != DDB_TS)
        return ddbi_fail(err, DDB_EINVAL,
                         "entity %s: a write-sharded partition key needs a string template and 2..%d shards, "
                         "not %u",
                         e->name, DDB_ENT_MAX_WRITE_SHARDS, (unsigned)ws->count);
    if (shard >= (int)ws->count)
        return ddbi_fail(err, DDB_EINVAL, "entity %s has no write shard %d", e->name, shard);
    ddb_value *v;
    int rc = ddbi_ent_render_plain(e, t, obj, a, &v, err);
    if (rc || !v)
        return rc; /* an absent optional field: no key, no shard */
    if (shard < 0 && (rc = own_shard(e, ws, obj, a, &shard, err)))
        return rc;
    size_t n = v->len + 8;
    char *s = ddb_arena_alloc(a, n);
    if (!s)
        return ddbi_fail_oom(err, __func__);
    int len = snprintf(s, n, "%s.%d", v->u.s, shard);
    if (!(*out = ddb_v_s(a, s, (size_t)len)))
        return ddbi_fail_oom(err, __func__);
    return DDB_OK;
}
