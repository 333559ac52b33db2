/* Entity room: an entity's primary key and its shard items.  A sharded
 * entity is several physical items whose sort keys are the entity's sort
 * key + suffix + shard id ("ORDER#7#A", "ORDER#7#B"); this file renders
 * those keys, reads the shard items of one entity back (all with one
 * Query, or those a projection needs with a GetItem each), tells which
 * shard an item is, and merges them.  Also the one check of a descriptor's shard count against
 * DDB_ENT_MAX_SHARDS.  Calls the public item and query API and the
 * templates of this room. */
#include "entity/core/entity_core.h"

#include "core/error.h"

#include <stdio.h>
#include <string.h>

int ddbi_ent_check_shards(const ddb_entity_desc *e, ddb_error *err)
{
    if (e->n_shards > DDB_ENT_MAX_SHARDS)
        return ddbi_fail(err, DDB_ELIMIT, "entity %s has %u shards; at most %d are allowed (DDB_ENT_MAX_SHARDS)",
                         e->name, (unsigned)e->n_shards, DDB_ENT_MAX_SHARDS);
    if (e->n_shards && !e->shards)
        return ddbi_fail(err, DDB_EINVAL, "entity %s has %u shards but no shard ids", e->name, (unsigned)e->n_shards);
    /* every shard a field or key names is one of the entity's */
    for (uint16_t i = 0; e->n_shards && i < e->st->n_fields; i++)
        if (e->st->fields[i].shard >= (int)e->n_shards)
            return ddbi_fail(err, DDB_EINVAL, "entity %s: field %s is on shard %d of %u", e->name,
                             e->st->fields[i].name, e->st->fields[i].shard, (unsigned)e->n_shards);
    for (uint16_t k = 0; e->n_shards && k < e->n_keys; k++)
        if (e->keys[k].shard >= (int)e->n_shards)
            return ddbi_fail(err, DDB_EINVAL, "entity %s: the key on %s is on shard %d of %u", e->name,
                             e->keys[k].index ? e->keys[k].index : "the table", e->keys[k].shard,
                             (unsigned)e->n_shards);
    return DDB_OK;
}

int ddbi_ent_parts(const ddb_entity_desc *e)
{
    return e->n_shards ? e->n_shards : 1;
}

int ddbi_ent_field_part(const ddb_entity_desc *e, const ddb_field_desc *f)
{
    return e->n_shards && f->shard >= 0 ? f->shard : 0;
}

const char *ddbi_ent_shard_suffix(const ddb_entity_desc *e)
{
    return e->shard_suffix ? e->shard_suffix : "#";
}

int ddbi_ent_shard_sk(const ddb_entity_desc *e, const ddb_value *sk, int shard, ddb_arena *a, ddb_value **out,
                      ddb_error *err)
{
    if (!sk || sk->type != DDB_TS)
        return ddbi_fail(err, DDB_EINVAL, "entity %s is sharded: its primary key needs a string sort key", e->name);
    if (shard < 0 || shard >= e->n_shards)
        return ddbi_fail(err, DDB_EINVAL, "entity %s has no shard %d", e->name, shard);
    const char *sfx = ddbi_ent_shard_suffix(e), *id = e->shards[shard];
    size_t n = sk->len + strlen(sfx) + strlen(id);
    char *s = ddb_arena_alloc(a, n + 1);
    if (!s)
        return ddbi_fail_oom(err, __func__);
    snprintf(s, n + 1, "%s%s%s", sk->u.s, sfx, id);
    if (!(*out = ddb_v_s(a, s, n)))
        return ddbi_fail_oom(err, __func__);
    return DDB_OK;
}

/* Key template t of obj into *v: a string template (not write-sharded) is
 * rendered into buf (cap bytes; into a when longer), anything else by
 * ddb_ent_render; *set false when an optional field of it is unset. */
static int key_part(const ddb_entity_desc *e, const ddb_template *t, bool plain, const void *obj, char *buf,
                    size_t cap, ddb_arena *a, ddb_value *v, bool *set, ddb_error *err)
{
    if (!plain || t->type != DDB_TS) {
        ddb_value *r;
        int rc = ddb_ent_render(e, t, obj, a, &r, err);
        if (!rc && (*set = r != NULL))
            *v = *r;
        return rc;
    }
    ddbi_ent_text tx;
    ddbi_ent_text_init(&tx, buf, cap);
    bool absent;
    int rc = ddbi_ent_render_prefix(e, t, obj, UINT16_MAX, true, &tx, &absent, err);
    *set = !rc && !absent;
    if (*set && tx.heap) {
        ddb_value *r = ddb_v_s(a, tx.p, tx.len);
        if (r)
            *v = *r;
        else
            rc = ddbi_fail_oom(err, __func__);
    } else if (*set)
        *v = (ddb_value){.type = DDB_TS, .len = (uint32_t)tx.len, .u.s = tx.p};
    ddbi_ent_text_free(&tx);
    return rc;
}

int ddbi_ent_key_fill(const ddb_entity_desc *e, const void *obj, int shard, ddb_arena *a, ddbi_ent_key *out,
                      ddb_error *err)
{
    const ddb_key_desc *k = &e->keys[0];
    bool pk_set, sk_set = false;
    /* the partition key template may carry write shards (ddb_ent_render adds them) */
    bool plain_pk = !e->write_shards || !e->write_shards[0];
    int rc = key_part(e, &k->pk, plain_pk, obj, out->text[0], sizeof out->text[0], a, &out->vals[0], &pk_set, err);
    if (!rc && k->sk_attr)
        rc = key_part(e, &k->sk, true, obj, out->text[1], sizeof out->text[1], a, &out->vals[1], &sk_set, err);
    if (rc)
        return rc;
    if (!pk_set || (k->sk_attr && !sk_set))
        return ddbi_fail(err, DDB_EVALIDATION, "%s: a primary key field is unset", e->name);
    ddb_value *sk = &out->vals[1];
    if (shard >= 0 && (rc = ddbi_ent_shard_sk(e, &out->vals[1], shard, a, &sk, err)))
        return rc;
    /* the item: its attributes sorted by name, as ddb_item_set keeps them */
    ddb_attr *m = out->attrs;
    uint32_t n = 0;
    m[n++] = (ddb_attr){k->pk_attr, (uint32_t)strlen(k->pk_attr), &out->vals[0]};
    if (k->sk_attr) {
        ddb_attr x = {k->sk_attr, (uint32_t)strlen(k->sk_attr), sk};
        int c = strcmp(k->sk_attr, k->pk_attr);
        if (!c)
            m[0].value = sk; /* (one attribute: the later value, as ddb_item_set) */
        else if (c > 0)
            m[n++] = x;
        else {
            m[1] = m[0];
            m[0] = x;
            n++;
        }
    }
    out->item.map = (ddb_value){.type = DDB_TM, .len = n, .u.m = m, .cap = n};
    out->item.arena = a;
    return DDB_OK;
}

int ddbi_ent_primary_key(const ddb_entity_desc *e, const void *obj, int shard, ddb_arena *a, ddb_item **out,
                         ddb_error *err)
{
    ddbi_ent_key *k = ddb_arena_alloc(a, sizeof *k);
    if (!k)
        return ddbi_fail_oom(err, __func__);
    int rc = ddbi_ent_key_fill(e, obj, shard, a, k, err);
    if (!rc)
        *out = &k->item;
    return rc;
}

/* Every shard item of the logical item key, with projection (may be NULL): one Query. */
static int query_shards(ddb *db, const ddb_entity_desc *e, const ddb_item *key, const ddb_expr *projection,
                        ddb_arena *a, bool consistent, ddb_return_capacity mode, ddb_page *pg, ddb_error *err)
{
    const ddb_key_desc *k = &e->keys[0];
    const ddb_value *sk = k->sk_attr ? ddb_item_get(key, k->sk_attr) : NULL;
    if (!sk || sk->type != DDB_TS)
        return ddbi_fail(err, DDB_EINVAL, "entity %s is sharded: its primary key needs a string sort key", e->name);
    const char *sfx = ddbi_ent_shard_suffix(e);
    size_t n = sk->len + strlen(sfx);
    char *prefix = ddb_arena_alloc(a, n + 1);
    if (!prefix)
        return ddbi_fail_oom(err, __func__);
    snprintf(prefix, n + 1, "%s%s", sk->u.s, sfx);
    ddb_query_params q = {.table = e->table->def.name, .pk = ddb_item_get(key, k->pk_attr),
                          .sk_op = DDB_SK_BEGINS_WITH, .sk1 = ddb_v_s(a, prefix, n), .consistent = consistent,
                          .return_capacity = mode, .projection = projection};
    if (!q.sk1)
        return ddbi_fail_oom(err, __func__);
    return ddb_query(db, &q, a, pg, err);
}

int ddbi_ent_read_shards(ddb *db, const ddb_entity_desc *e, const ddb_item *key, ddb_arena *a, bool consistent,
                         ddb_return_capacity mode, ddb_page *pg, ddb_error *err)
{
    return query_shards(db, e, key, NULL, a, consistent, mode, pg, err);
}

int ddbi_ent_merge_shards(ddb_arena *a, ddb_item *const *items, size_t n, ddb_item **out, ddb_error *err)
{
    ddb_item *m = ddb_item_new(a);
    for (size_t i = 0; m && i < n; i++) {
        const ddb_value *mv = ddb_item_map(items[i]);
        for (uint32_t j = 0; j < mv->len; j++)
            if (ddb_item_set(m, mv->u.m[j].name, mv->u.m[j].value))
                return ddbi_fail_oom(err, __func__);
    }
    if (!m)
        return ddbi_fail_oom(err, __func__);
    *out = m;
    return DDB_OK;
}

uint64_t ddbi_ent_all_shards(const ddb_entity_desc *e)
{
    return e->n_shards >= 64 ? UINT64_MAX : ((uint64_t)1 << e->n_shards) - 1;
}

int ddbi_ent_shard_of(const ddb_entity_desc *e, const ddb_item *it, ddb_arena *a, int *shard, ddb_item **key,
                      ddb_error *err)
{
    const ddb_key_desc *k = &e->keys[0];
    const ddb_value *pk = ddb_item_get(it, k->pk_attr);
    const ddb_value *sk = k->sk_attr ? ddb_item_get(it, k->sk_attr) : NULL;
    const char *sfx = ddbi_ent_shard_suffix(e);
    size_t sl = strlen(sfx), base = 0;
    *shard = -1;
    for (uint16_t s = 0; pk && sk && sk->type == DDB_TS && *shard < 0 && s < e->n_shards; s++) {
        size_t il = strlen(e->shards[s]);
        if (sk->len > sl + il && !memcmp(sk->u.s + sk->len - il, e->shards[s], il) &&
            !memcmp(sk->u.s + sk->len - il - sl, sfx, sl)) {
            *shard = s; /* the first id that fits, as the reader's groups tell them */
            base = sk->len - il - sl;
        }
    }
    if (*shard < 0 || !key)
        return DDB_OK;
    ddb_item *kk = ddb_item_new(a);
    if (!kk || ddb_item_set(kk, k->pk_attr, (ddb_value *)pk) || ddb_item_set(kk, k->sk_attr, ddb_v_s(a, sk->u.s, base)))
        return ddbi_fail_oom(err, __func__);
    *key = kk;
    return DDB_OK;
}

int ddbi_ent_read_some_shards(ddb *db, const ddb_entity_desc *e, const ddb_item *key, uint64_t want,
                              const ddb_expr *projection, ddb_arena *a, bool consistent, ddb_return_capacity mode,
                              ddb_page *pg, ddb_error *err)
{
    memset(pg, 0, sizeof *pg);
    want &= ddbi_ent_all_shards(e);
    if (want == ddbi_ent_all_shards(e)) {
        int rc = query_shards(db, e, key, projection, a, consistent, mode, pg, err);
        pg->last_key = NULL;
        return rc;
    }
    const ddb_key_desc *k = &e->keys[0];
    size_t n = 0;
    for (uint64_t w = want; w; w &= w - 1)
        n++;
    ddb_item **items = ddb_arena_alloc(a, (n ? n : 1) * sizeof *items);
    if (!items)
        return ddbi_fail_oom(err, __func__);
    pg->items = items;
    ddb_get_opts go = {.consistent = consistent, .return_capacity = mode, .projection = projection};
    for (uint16_t s = 0; s < e->n_shards; s++) {
        if (!(want >> s & 1))
            continue;
        ddb_value *sk;
        ddb_item *sk_key = ddb_item_new(a), *it = NULL;
        int rc = ddbi_ent_shard_sk(e, ddb_item_get(key, k->sk_attr), s, a, &sk, err);
        if (rc)
            return rc;
        if (!sk_key || ddb_item_set(sk_key, k->pk_attr, (ddb_value *)ddb_item_get(key, k->pk_attr)) ||
            ddb_item_set(sk_key, k->sk_attr, sk))
            return ddbi_fail_oom(err, __func__);
        ddb_capacity c;
        rc = ddb_get_item(db, e->table->def.name, sk_key, &go, a, &it, &c, err);
        ddbi_ent_cap_merge(&pg->capacity, &c);
        if (rc == DDB_ENOTFOUND)
            continue;
        if (rc)
            return rc;
        items[pg->count++] = it;
        pg->scanned_count++;
    }
    return DDB_OK;
}

int ddbi_ent_reassemble(ddb *db, const ddb_entity_desc *e, const ddb_item *shard_item, ddb_arena *a,
                        const ddb_ent_opts *o, ddb_capacity *cap, ddb_item **out, ddb_error *err)
{
    ddb_item *key = NULL;
    int shard;
    int rc = ddbi_ent_shard_of(e, shard_item, a, &shard, &key, err);
    if (rc)
        return rc;
    if (shard < 0)
        return ddbi_fail(err, DDB_ECORRUPT, "%s: an index entry is not a shard item", e->name);
    ddb_page pg;
    rc = ddbi_ent_read_shards(db, e, key, a, o && o->consistent, ddbi_ent_cap_mode(o), &pg, err);
    if (rc)
        return rc;
    ddbi_ent_cap_merge(cap, &pg.capacity);
    return ddbi_ent_merge_shards(a, pg.items, pg.count, out, err);
}
