/* Entity room: one logical item in its new form, for a migration step
 * (ddb_ent_migrate): its stored items (one, or a sharded entity's shard
 * items) merged, renamed attributes moved, absent fields with a
 * DDB_DEFAULT given it (entity_default_fill.c), read into the new schema's
 * struct (or transformed by the caller's callback from the old schema's
 * struct), written back as items by the new schema's descriptor (one a
 * shard), with the stored attributes the new schema does not know kept.
 * Pure: reads and writes nothing in the database.  Calls the public item
 * API and this room's marshalling and shard keys. */
#include "entity/migrate/entity_migrate.h"

#include "core/error.h"

#include <string.h>

/* Is name a key attribute of the table or of one of its indexes (td may be NULL)? */
static bool key_attr(const ddb_table_def *td, const char *name)
{
    if (!td)
        return false;
    if (!strcmp(td->key.pk, name) || (td->key.sk && !strcmp(td->key.sk, name)))
        return true;
    for (size_t i = 0; i < td->n_indexes; i++) {
        const ddb_key_schema *k = &td->indexes[i].key;
        if (!strcmp(k->pk, name) || (k->sk && !strcmp(k->sk, name)))
            return true;
    }
    return false;
}

/* Is name the stored attribute of one of e's fields? */
static bool field_attr(const ddb_entity_desc *e, const char *name)
{
    for (uint16_t i = 0; i < e->st->n_fields; i++)
        if (!strcmp(e->st->fields[i].attr, name))
            return true;
    return false;
}

/* Fill obj with every field of e whose stored attribute reads as its type;
 * the others stay zero (for the transform to fill). */
static int prefill(const ddb_entity_desc *e, const ddb_item *src, void *obj, ddb_arena *a, ddb_error *err)
{
    void *before = ddb_arena_alloc(a, e->st->size);
    if (!before)
        return ddbi_fail_oom(err, __func__);
    for (uint16_t i = 0; i < e->st->n_fields; i++) {
        const ddb_field_desc *f = &e->st->fields[i];
        const ddb_value *v = ddb_item_get(src, f->attr);
        ddb_error ignored;
        memcpy(before, obj, e->st->size);
        if (v && ddbi_ent_field_from(f, v, (char *)obj + f->offset, a, &ignored))
            memcpy(obj, before, e->st->size); /* another type now: left for the transform */
    }
    return DDB_OK;
}

/* The item's table key as "PK/SK" text, for messages and samples. */
const char *ddbi_ent_key_text(const ddb_table_def *td, const ddb_item *it, ddb_arena *a)
{
    const ddb_value *v[2] = {ddb_item_get(it, td->key.pk), td->key.sk ? ddb_item_get(it, td->key.sk) : NULL};
    ddb_buf b = {0};
    for (int i = 0; i < 2; i++) {
        if (!v[i])
            continue;
        if (i)
            ddbi_buf_put(&b, "/", 1);
        if (v[i]->type == DDB_TS || v[i]->type == DDB_TN)
            ddbi_buf_put(&b, v[i]->u.s, v[i]->len > 200 ? 200 : v[i]->len);
        else
            ddbi_buf_put(&b, "(binary)", 8);
    }
    char *s = ddb_arena_alloc(a, b.len + 1);
    if (s) {
        memcpy(s, b.p ? (const char *)b.p : "", b.len);
        s[b.len] = '\0';
    }
    ddbi_buf_free(&b);
    return s ? s : "";
}

const char *ddbi_ent_shard_cut(const ddb_entity_desc *e, const ddb_item *it)
{
    const ddb_value *sk = e->keys[0].sk_attr ? ddb_item_get(it, e->keys[0].sk_attr) : NULL;
    const char *sfx = ddbi_ent_shard_suffix(e), *cut = NULL;
    for (const char *p = sk && sk->type == DDB_TS ? strstr(sk->u.s, sfx) : NULL; p; p = strstr(p + 1, sfx))
        cut = p;
    return cut;
}

/* The shard id of a stored shard item of e, or NULL. */
static const char *shard_id_of(const ddb_entity_desc *e, const ddb_item *it)
{
    const char *cut = ddbi_ent_shard_cut(e, it);
    return cut ? cut + strlen(ddbi_ent_shard_suffix(e)) : NULL;
}

/* The stored item the new item of part `part` comes from: the only one,
 * or the shard item with that part's shard id (NULL: a new shard). */
static const ddb_item *source_of(const ddb_entity_desc *e, ddb_item *const *olds, size_t n_old, size_t part)
{
    if (!e->n_shards)
        return n_old ? olds[0] : NULL;
    for (size_t i = 0; i < n_old; i++) {
        const char *id = shard_id_of(e, olds[i]);
        if (id && !strcmp(id, e->shards[part]))
            return olds[i];
    }
    return NULL;
}

/* Value v without a write shard suffix (".<digits>"): its length. */
static size_t unsharded_len(const ddb_value *v)
{
    size_t n = v->len;
    while (n && v->u.s[n - 1] >= '0' && v->u.s[n - 1] <= '9')
        n--;
    return n && n < v->len && v->u.s[n - 1] == '.' ? n - 1 : v->len;
}

/* A key on randomly picked write shards gets a new shard at every
 * rendering: keep the stored one when the rest of the value is the same,
 * so an item already in its new form stays as it is. */
static int keep_random_shards(const ddb_entity_desc *e, ddb_item *ni, const ddb_item *from, ddb_arena *a,
                              ddb_error *err)
{
    for (uint16_t k = 0; from && e->write_shards && k < e->n_keys; k++) {
        const ddb_write_shards *ws = e->write_shards[k];
        if (!ws || ws->by != DDB_WS_RANDOM)
            continue;
        const char *attr = e->keys[k].pk_attr;
        const ddb_value *nv = ddb_item_get(ni, attr), *ov = ddb_item_get(from, attr);
        if (!nv || !ov || nv->type != DDB_TS || ov->type != DDB_TS)
            continue;
        size_t nl = unsharded_len(nv), ol = unsharded_len(ov);
        if (nl == ol && !memcmp(nv->u.s, ov->u.s, nl)) {
            ddb_value *c = ddb_value_copy(a, ov);
            if (!c || ddb_item_set(ni, attr, c))
                return ddbi_fail_oom(err, __func__);
        }
    }
    return DDB_OK;
}

/* A copy of it with the step's renamed attributes moved (NULL: out of memory). */
static ddb_item *renamed(const ddb_ent_migration_step *s, const ddb_item *it, ddb_arena *a)
{
    ddb_item *src = ddb_item_copy(a, it);
    if (src && s->renamed_from && ddb_item_set_s(src, s->entity->table->type_attr, s->entity->name))
        return NULL; /* a renamed entity's item is read as one of its new name */
    for (size_t i = 0; src && i < s->n_renames; i++) {
        const ddb_value *v = ddb_item_get(src, s->renames[i].from);
        if (!v)
            continue;
        ddb_value *c = ddb_value_copy(a, v);
        if (!c || ddb_item_set(src, s->renames[i].to, c))
            return NULL;
        ddb_item_remove(src, s->renames[i].from);
    }
    return src;
}

/* news[0..*n_new): obj as items of e (one a shard), each with the stored
 * attributes of its source item the new schema does not know (a removed
 * field's) kept; key attributes of the table as it is (live) or as e's
 * schema declares it are not kept. */
static int new_forms(const ddb_ent_migration_step *s, const void *obj, ddb_item *const *olds, size_t n_old,
                     const ddb_table_def *live, ddb_arena *a, ddb_item **news, size_t *n_new, ddb_error *err)
{
    const ddb_entity_desc *e = s->entity;
    int rc = ddb_ent_to_items(e, obj, a, news, DDBI_ENT_MIGRATE_MAX_PARTS, n_new, err);
    for (size_t p = 0; !rc && p < *n_new; p++) {
        const ddb_item *from = source_of(e, olds, n_old, p);
        ddb_item *src = from ? renamed(s, from, a) : NULL;
        if (from && !src)
            return ddbi_fail_oom(err, __func__);
        const ddb_value *m = src ? ddb_item_map(src) : NULL;
        for (uint32_t i = 0; m && i < m->len; i++) {
            const char *name = m->u.m[i].name;
            if (ddb_item_get(news[p], name) || key_attr(&e->table->def, name) || key_attr(live, name) ||
                field_attr(e, name) || !strcmp(name, e->table->type_attr))
                continue;
            ddb_value *c = ddb_value_copy(a, m->u.m[i].value);
            if (!c || ddb_item_set(news[p], name, c))
                return ddbi_fail_oom(err, __func__);
        }
        rc = keep_random_shards(e, news[p], from, a, err);
    }
    return rc;
}

/* Are the new items the stored ones (each equal to the stored item of its key)? */
static bool all_same(const ddb_table_def *td, ddb_item *const *olds, size_t n_old, ddb_item *const *news,
                     size_t n_new)
{
    if (n_old != n_new)
        return false;
    for (size_t i = 0; i < n_new; i++) {
        bool found = false;
        for (size_t j = 0; j < n_old && !found; j++)
            found = ddbi_ent_same_key(td, news[i], olds[j]) &&
                    ddb_value_equal(ddb_item_map(news[i]), ddb_item_map(olds[j]));
        if (!found)
            return false;
    }
    return true;
}

bool ddbi_ent_same_key(const ddb_table_def *td, const ddb_item *x, const ddb_item *y)
{
    const ddb_value *a = ddb_item_get(x, td->key.pk), *b = ddb_item_get(y, td->key.pk);
    if (!a || !b || !ddb_value_equal(a, b))
        return false;
    if (!td->key.sk)
        return true;
    a = ddb_item_get(x, td->key.sk);
    b = ddb_item_get(y, td->key.sk);
    return a && b && ddb_value_equal(a, b);
}

int ddbi_ent_migrate_item(const ddb_ent_migration_step *s, const ddb_table_def *live, ddb_item *const *olds,
                          size_t n_old, ddb_arena *a, ddb_item **news, size_t *n_new, bool *same, ddb_error *err)
{
    const ddb_entity_desc *e = s->entity;
    const ddb_table_def *td = &e->table->def;
    *n_new = 0;
    *same = false;
    ddb_item *merged = NULL;
    int rc = n_old == 1 ? DDB_OK : ddbi_ent_merge_shards(a, olds, n_old, &merged, err);
    if (rc)
        return rc;
    const ddb_item *it = n_old == 1 ? olds[0] : merged; /* the logical item as stored */
    ddb_item *src = renamed(s, it, a);
    void *obj = ddb_arena_alloc(a, e->st->size);
    if (!src || !obj)
        return ddbi_fail_oom(err, __func__);
    /* fields added with a DDB_DEFAULT: the stored items get it */
    if ((rc = ddbi_ent_fill_defaults(e, src, a, &src, NULL, NULL, err)))
        return rc;
    if (!s->transform) {
        if ((rc = ddb_ent_from_item(e, src, a, obj, err)))
            return ddbi_ent_fail_within(err, rc, "stored %s item %s cannot be read by the new schema", e->name,
                                        ddbi_ent_key_text(td, it, a));
    } else {
        ddb_error quiet;
        /* an item already in its new form is read by the new schema and written back the same */
        if (!ddb_ent_from_item(e, src, a, obj, &quiet) &&
            !new_forms(s, obj, olds, n_old, live, a, news, n_new, &quiet) &&
            all_same(td, olds, n_old, news, *n_new)) {
            *same = true;
            return DDB_OK;
        }
        memset(obj, 0, e->st->size);
        if ((rc = prefill(e, src, obj, a, err)))
            return rc;
        void *old = NULL;
        if (s->old_entity) {
            if (!(old = ddb_arena_alloc(a, s->old_entity->st->size)))
                return ddbi_fail_oom(err, __func__);
            if ((rc = ddb_ent_from_item(s->old_entity, it, a, old, err)))
                return ddbi_ent_fail_within(err, rc, "stored %s item %s cannot be read by the old schema", e->name,
                                            ddbi_ent_key_text(td, it, a));
        }
        if ((rc = s->transform(s->transform_ctx, it, old, obj, a, err)))
            return ddbi_ent_fail_within(err, rc, "the transform of %s item %s failed", e->name,
                                        ddbi_ent_key_text(td, it, a));
    }
    if ((rc = new_forms(s, obj, olds, n_old, live, a, news, n_new, err)))
        return ddbi_ent_fail_within(err, rc, "%s item %s in its new form", e->name, ddbi_ent_key_text(td, it, a));
    *same = all_same(td, olds, n_old, news, *n_new);
    return DDB_OK;
}
