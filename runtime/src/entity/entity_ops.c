/* Entity operations: put, create, get, delete, partial update, queries and
 * collections, on top of the item API.  Shards become several physical
 * items written in one transaction and read back with one Query. */
#include "entity/entity_internal.h"

#include "api/expr_cache.h"

#include "core/error.h"
#include "core/value.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uuid/uuid.h>

#define MAX_PLACEHOLDERS 64

/* ---- small helpers ---- */

static void cap_merge(ddb_capacity *dst, const ddb_capacity *src)
{
    if (!dst)
        return;
    dst->total += src->total;
    dst->read += src->read;
    dst->write += src->write;
    dst->table_read += src->table_read;
    dst->table_write += src->table_write;
    for (size_t i = 0; i < src->n_indexes; i++) {
        size_t j = 0;
        while (j < dst->n_indexes && strcmp(dst->indexes[j].name, src->indexes[i].name) != 0)
            j++;
        if (j == dst->n_indexes) {
            if (j == sizeof dst->indexes / sizeof *dst->indexes)
                continue;
            dst->indexes[dst->n_indexes++] = src->indexes[i];
            continue;
        }
        dst->indexes[j].read += src->indexes[i].read;
        dst->indexes[j].write += src->indexes[i].write;
    }
}

static ddb_return_capacity cap_mode(const ddb_ent_opts *o)
{
    return o ? o->return_capacity : DDB_CAPACITY_NONE;
}

static const ddb_field_desc *flagged(const ddb_entity_desc *e, unsigned flag)
{
    for (uint16_t i = 0; i < e->st->n_fields; i++)
        if (e->st->fields[i].flags & flag)
            return &e->st->fields[i];
    return NULL;
}

static int shard_of(const ddb_entity_desc *e, const ddb_field_desc *f)
{
    return e->n_shards ? (f->shard >= 0 ? f->shard : 0) : -1;
}

/* The table key of obj (shard >= 0: that shard's physical item). */
static int primary_key(const ddb_entity_desc *e, const void *obj, int shard, ddb_arena *a, ddb_item **out,
                       ddb_error *err)
{
    const ddb_key_desc *k = &e->keys[0];
    ddb_value *pk, *sk = NULL;
    int rc = ddb_ent_render(e, &k->pk, obj, a, &pk, err);
    if (!rc && k->sk_attr)
        rc = ddb_ent_render(e, &k->sk, obj, a, &sk, err);
    if (rc)
        return rc;
    if (!pk || (k->sk_attr && !sk))
        return ddbi_fail(err, DDB_EVALIDATION, "%s: a primary key field is unset", e->name);
    if (shard >= 0) {
        const char *sfx = e->shard_suffix ? e->shard_suffix : "#";
        size_t n = sk->len + strlen(sfx) + strlen(e->shards[shard]);
        char *s = ddb_arena_alloc(a, n + 1);
        if (!s)
            return ddbi_fail_oom(err, __func__);
        snprintf(s, n + 1, "%s%s%s", sk->u.s, sfx, e->shards[shard]);
        sk = ddb_v_s(a, s, n);
    }
    ddb_item *key = ddb_item_new(a);
    if (!key || ddb_item_set(key, k->pk_attr, pk) || (sk && ddb_item_set(key, k->sk_attr, sk)))
        return ddbi_fail_oom(err, __func__);
    *out = key;
    return DDB_OK;
}

/* Expression text with its names and values, built up piece by piece. */
typedef struct exprb {
    ddb *db;
    ddb_expr *owned[4]; /* prepared outside the handle's cache (it was full) */
    int nowned;
    ddb_arena *a;
    ddb_buf text;
    ddb_item *names, *values;
    int n;
} exprb;

static const char *name_ref(exprb *x, const char *attr)
{
    char ref[16];
    snprintf(ref, sizeof ref, "#n%d", x->n++);
    if (ddb_item_set_s(x->names, ref, attr))
        return NULL;
    char *r = ddb_arena_alloc(x->a, strlen(ref) + 1);
    if (r)
        strcpy(r, ref);
    return r;
}

static const char *value_ref(exprb *x, ddb_value *v)
{
    char ref[16];
    snprintf(ref, sizeof ref, ":v%d", x->n++);
    if (!v || ddb_item_set(x->values, ref, v))
        return NULL;
    char *r = ddb_arena_alloc(x->a, strlen(ref) + 1);
    if (r)
        strcpy(r, ref);
    return r;
}

/* The values map to send: none when the expressions use none. */
static const ddb_item *vals(const exprb *x)
{
    return ddb_item_count(x->values) ? x->values : NULL;
}

static int put_text(exprb *x, const char *s)
{
    return ddbi_buf_put(&x->text, s, strlen(s));
}

static int exprb_init(exprb *x, ddb *db, ddb_arena *a)
{
    memset(x, 0, sizeof *x);
    x->db = db;
    x->a = a;
    x->names = ddb_item_new(a);
    x->values = ddb_item_new(a);
    return x->names && x->values ? DDB_OK : DDB_ENOMEM;
}

/* The text built so far as a prepared expression, from the handle's cache:
 * each distinct text is parsed once per handle. */
static int exprb_prepare(exprb *x, ddb_expr_kind kind, const ddb_expr **out, ddb_error *err)
{
    *out = NULL;
    if (!x->text.len)
        return DDB_OK;
    if (ddbi_buf_put(&x->text, "", 1))
        return ddbi_fail_oom(err, __func__);
    ddb_expr *owned = NULL;
    int rc = ddbi_expr_cached(x->db, kind, (const char *)x->text.p, ddb_item_count(x->names) ? x->names : NULL, out,
                             &owned, err);
    if (owned && x->nowned < (int)(sizeof x->owned / sizeof *x->owned))
        x->owned[x->nowned++] = owned;
    else if (owned) {
        ddb_expr_free(owned);
        return ddbi_fail(err, DDB_ELIMIT, "too many uncached expressions in one call");
    }
    return rc;
}

static void exprb_done(exprb *x)
{
    for (int i = 0; i < x->nowned; i++)
        ddb_expr_free(x->owned[i]);
    x->nowned = 0;
    ddbi_buf_free(&x->text);
}

/* ---- create: ids ---- */

static int fill_uuid(const ddb_field_desc *f, char *p, ddb_arena *a, ddb_error *err)
{
    uuid_t u;
    char text[37];
    if (f->type == DDB_F_CHARS) {
        if (p[0])
            return DDB_OK;
        if (f->size < 37)
            return ddbi_fail(err, DDB_EVALIDATION, "field %s holds %u bytes; a UUID needs 37", f->name, f->size);
        uuid_generate_random(u);
        uuid_unparse_lower(u, p);
        return DDB_OK;
    }
    if (f->type == DDB_F_STRING) {
        if (*(char **)p)
            return DDB_OK;
        uuid_generate_random(u);
        uuid_unparse_lower(u, text);
        char *s = ddb_arena_alloc(a, sizeof text);
        if (!s)
            return ddbi_fail_oom(err, __func__);
        memcpy(s, text, sizeof text);
        *(char **)p = s;
        return DDB_OK;
    }
    return ddbi_fail(err, DDB_EVALIDATION, "field %s: DDB_UUID needs a string field", f->name);
}

/* Next value of the counter for the rendered scope: an item (scope,
 * "#COUNTER") in the entity's table whose attribute "Counter" is bumped
 * with an atomic ADD. */
static int next_id(ddb *db, const ddb_entity_desc *e, const void *obj, ddb_arena *a, int64_t *id, ddb_capacity *cap,
                   ddb_return_capacity mode, ddb_error *err)
{
    if (!e->auto_id_scope)
        return ddbi_fail(err, DDB_EINVAL, "%s: auto id without a scope template", e->name);
    ddb_value *scope;
    int rc = ddb_ent_render(e, e->auto_id_scope, obj, a, &scope, err);
    if (rc)
        return rc;
    if (!scope)
        return ddbi_fail(err, DDB_EVALIDATION, "%s: a field of the auto id scope is unset", e->name);
    const ddb_table_def *t = &e->table->def;
    ddb_item *key = ddb_item_new(a);
    if (!key || ddb_item_set(key, t->key.pk, scope) || (t->key.sk && ddb_item_set_s(key, t->key.sk, "#COUNTER")))
        return ddbi_fail_oom(err, __func__);
    exprb x;
    if (exprb_init(&x, db, a))
        return ddbi_fail_oom(err, __func__);
    const char *nt = name_ref(&x, e->table->type_attr), *vt = value_ref(&x, ddb_v_str(a, "ddb:counter"));
    const char *nc = name_ref(&x, "Counter"), *vc = value_ref(&x, ddb_v_i64(a, 1));
    if (!nt || !vt || !nc || !vc || put_text(&x, "SET ") || put_text(&x, nt) || put_text(&x, " = ") ||
        put_text(&x, vt) || put_text(&x, " ADD ") || put_text(&x, nc) || put_text(&x, " ") || put_text(&x, vc))
        return ddbi_fail_oom(err, __func__);
    const ddb_expr *upd;
    if ((rc = exprb_prepare(&x, DDB_EXPR_UPDATE, &upd, err))) {
        exprb_done(&x);
        return rc;
    }
    ddb_write_result res;
    ddb_write_opts wo = {.return_values = DDB_RETURN_UPDATED_NEW, .return_capacity = mode, .values = x.values};
    rc = ddb_update_item(db, t->name, key, upd, &wo, a, &res, err);
    exprb_done(&x);
    if (rc)
        return rc;
    cap_merge(cap, &res.capacity);
    const ddb_value *v = res.attributes ? ddb_item_get(res.attributes, "Counter") : NULL;
    if (!v || ddb_value_to_i64(v, id))
        return ddbi_fail(err, DDB_ECORRUPT, "%s: the id counter did not return a number", e->name);
    return DDB_OK;
}

static void set_int(const ddb_field_desc *f, char *p, int64_t v)
{
    switch (f->size) {
    case 1: *(int8_t *)p = (int8_t)v; break;
    case 2: *(int16_t *)p = (int16_t)v; break;
    case 4: *(int32_t *)p = (int32_t)v; break;
    default: *(int64_t *)p = v;
    }
}

static int64_t read_int(const ddb_field_desc *f, const char *p)
{
    switch (f->size) {
    case 1: return f->type == DDB_F_UINT ? *(const uint8_t *)p : *(const int8_t *)p;
    case 2: return f->type == DDB_F_UINT ? *(const uint16_t *)p : *(const int16_t *)p;
    case 4: return f->type == DDB_F_UINT ? (int64_t)*(const uint32_t *)p : *(const int32_t *)p;
    default: return *(const int64_t *)p;
    }
}

/* ---- put / create ---- */

/* The physical items and the condition of one entity write. */
typedef struct ent_plan {
    int nparts;
    ddb_item *items[64];
    int cond_part;             /* the item the condition applies to */
    const ddb_expr *cond;
    const ddb_field_desc *vf;  /* version field */
    int64_t expected;          /* its value before the write */
    void *obj;
} ent_plan;

/* Fill ids (create), derived fields, and build the items and condition:
 * the item must not exist (create, or version 0), or must hold obj's
 * version, which the write then increments. */
static int plan_write(ddb *db, const ddb_entity_desc *e, void *obj, bool create, ddb_arena *a, exprb *x, ent_plan *p,
                      ddb_capacity *cap, ddb_return_capacity mode, ddb_error *err)
{
    int rc = DDB_OK;
    memset(p, 0, sizeof *p);
    p->obj = obj;
    if (create) {
        for (uint16_t i = 0; !rc && i < e->st->n_fields; i++) {
            const ddb_field_desc *f = &e->st->fields[i];
            char *fp = (char *)obj + f->offset;
            if (f->flags & DDB_FIELD_UUID)
                rc = fill_uuid(f, fp, a, err);
            else if ((f->flags & DDB_FIELD_AUTO_ID) && read_int(f, fp) == 0) {
                int64_t id;
                if (!(rc = next_id(db, e, obj, a, &id, cap, mode, err)))
                    set_int(f, fp, id);
            }
        }
        if (rc)
            return rc;
    }
    if ((rc = ddbi_ent_fill_derived(e, obj, a, err)))
        return rc;
    p->vf = flagged(e, DDB_FIELD_VERSION);
    p->expected = p->vf ? read_int(p->vf, (char *)obj + p->vf->offset) : 0;
    p->cond_part = p->vf ? (shard_of(e, p->vf) < 0 ? 0 : shard_of(e, p->vf)) : 0;
    if (create || (p->vf && p->expected == 0)) {
        const char *n = name_ref(x, e->keys[0].pk_attr);
        if (!n || put_text(x, "attribute_not_exists(") || put_text(x, n) || put_text(x, ")"))
            return ddbi_fail_oom(err, __func__);
    } else if (p->vf) {
        const char *n = name_ref(x, p->vf->attr), *v = value_ref(x, ddb_v_i64(a, p->expected));
        if (!n || !v || put_text(x, n) || put_text(x, " = ") || put_text(x, v))
            return ddbi_fail_oom(err, __func__);
    }
    if ((rc = exprb_prepare(x, DDB_EXPR_CONDITION, &p->cond, err)))
        return rc;
    p->nparts = e->n_shards ? e->n_shards : 1;
    if (p->nparts > 64)
        return ddbi_fail(err, DDB_ELIMIT, "%s has %d shards (max 64)", e->name, p->nparts);
    for (int s = 0; s < p->nparts && !rc; s++) {
        rc = ddbi_ent_item_part(e, obj, e->n_shards ? s : -1, a, &p->items[s], err);
        if (!rc && p->vf && s == p->cond_part && ddb_item_set(p->items[s], p->vf->attr, ddb_v_i64(a, p->expected + 1)))
            rc = ddbi_fail_oom(err, __func__);
    }
    return rc;
}

/* The message of a failed entity write condition. */
static int condition_failed(const ddb_entity_desc *e, const ent_plan *p, bool create, ddb_error *err)
{
    if (create)
        return ddbi_fail(err, DDB_ECONDITION, "%s already exists", e->name);
    if (p->vf)
        return ddbi_fail(err, DDB_ECONDITION, "%s: stored version is not %lld (changed by another writer)", e->name,
                        (long long)p->expected);
    return ddbi_fail(err, DDB_ECONDITION, "%s: the conditional request failed", e->name);
}

static int ent_write(ddb *db, const ddb_entity_desc *e, void *obj, bool create, const ddb_ent_opts *o,
                     ddb_capacity *cap, ddb_error *err)
{
    if (!db || !e || !obj)
        return ddbi_fail(err, DDB_EINVAL, "%s: db, entity and object are required", create ? "create" : "put");
    ddb_arena *a = ddb_arena_new();
    exprb x;
    if (!a || exprb_init(&x, db, a)) {
        ddb_arena_free(a);
        return ddbi_fail_oom(err, __func__);
    }
    ddb_return_capacity mode = cap_mode(o);
    ent_plan p;
    int rc = plan_write(db, e, obj, create, a, &x, &p, cap, mode, err);
    if (!rc && !e->n_shards) {
        ddb_write_result res;
        ddb_write_opts wo = {.return_capacity = mode, .condition = p.cond, .values = vals(&x)};
        rc = ddb_put_item(db, e->table->def.name, p.items[0], &wo, a, &res, err);
        if (!rc)
            cap_merge(cap, &res.capacity);
    } else if (!rc) {
        ddb_tx_op ops[64];
        for (int s = 0; s < p.nparts; s++)
            ops[s] = (ddb_tx_op){.kind = DDB_TX_PUT, .table = e->table->def.name, .item = p.items[s],
                                 .condition = s == p.cond_part ? p.cond : NULL,
                                 .values = s == p.cond_part && p.cond ? vals(&x) : NULL};
        ddb_tx_result res;
        rc = ddb_transact_write(db, ops, (size_t)p.nparts, mode, a, &res, err);
        if (rc == DDB_ECANCELED && res.reasons && res.reasons[p.cond_part] == DDB_ECONDITION)
            rc = DDB_ECONDITION;
        if (!rc)
            cap_merge(cap, &res.capacity);
    }
    if (rc == DDB_ECONDITION)
        condition_failed(e, &p, create, err);
    if (!rc && p.vf)
        set_int(p.vf, (char *)obj + p.vf->offset, p.expected + 1);
    exprb_done(&x);
    ddb_arena_free(a);
    return rc;
}

int ddb_ent_put(ddb *db, const ddb_entity_desc *e, void *obj, const ddb_ent_opts *o, ddb_capacity *cap,
                ddb_error *err)
{
    if (cap)
        memset(cap, 0, sizeof *cap);
    return ent_write(db, e, obj, false, o, cap, err);
}

int ddb_ent_create(ddb *db, const ddb_entity_desc *e, void *obj, const ddb_ent_opts *o, ddb_capacity *cap,
                   ddb_error *err)
{
    if (cap)
        memset(cap, 0, sizeof *cap);
    return ent_write(db, e, obj, true, o, cap, err);
}

/* ---- get ---- */

/* Merge the shard items of one logical item into one item. */
static ddb_item *merge_shards(ddb_arena *a, ddb_item *const *items, size_t n)
{
    ddb_item *m = ddb_item_new(a);
    for (size_t i = 0; m && i < n; i++) {
        const ddb_value *mv = ddb_item_map(items[i]);
        for (uint32_t j = 0; j < mv->len; j++)
            if (ddb_item_set(m, mv->u.m[j].name, mv->u.m[j].value))
                return NULL;
    }
    return m;
}

/* Query the shards of the item whose (unsharded) key is key. */
static int get_shards(ddb *db, const ddb_entity_desc *e, const ddb_item *key, ddb_arena *a, bool consistent,
                      ddb_return_capacity mode, ddb_page *pg, ddb_error *err)
{
    const ddb_key_desc *k = &e->keys[0];
    const ddb_value *sk = ddb_item_get(key, k->sk_attr);
    const char *sfx = e->shard_suffix ? e->shard_suffix : "#";
    size_t n = sk->len + strlen(sfx);
    char *prefix = ddb_arena_alloc(a, n + 1);
    if (!prefix)
        return ddbi_fail_oom(err, __func__);
    snprintf(prefix, n + 1, "%s%s", sk->u.s, sfx);
    ddb_query_params q = {.table = e->table->def.name, .pk = ddb_item_get(key, k->pk_attr),
                          .sk_op = DDB_SK_BEGINS_WITH, .sk1 = ddb_v_s(a, prefix, n), .consistent = consistent,
                          .return_capacity = mode};
    return ddb_query(db, &q, a, pg, err);
}

int ddb_ent_get(ddb *db, const ddb_entity_desc *e, const void *key, void *out, ddb_arena *a, const ddb_ent_opts *o,
                ddb_capacity *cap, ddb_error *err)
{
    if (cap)
        memset(cap, 0, sizeof *cap);
    if (!db || !e || !key || !out || !a)
        return ddbi_fail(err, DDB_EINVAL, "get: db, entity, key, out and arena are required");
    ddb_item *k = NULL;
    int rc = primary_key(e, key, -1, a, &k, err);
    if (rc)
        return rc;
    ddb_item *it;
    if (!e->n_shards) {
        ddb_get_opts go = {.consistent = o && o->consistent, .return_capacity = cap_mode(o)};
        ddb_capacity c;
        rc = ddb_get_item(db, e->table->def.name, k, &go, a, &it, &c, err);
        cap_merge(cap, &c);
        if (rc)
            return rc == DDB_ENOTFOUND ? ddbi_fail(err, rc, "%s not found", e->name) : rc;
    } else {
        ddb_page pg;
        if ((rc = get_shards(db, e, k, a, o && o->consistent, cap_mode(o), &pg, err)))
            return rc;
        cap_merge(cap, &pg.capacity);
        if (!pg.count)
            return ddbi_fail(err, DDB_ENOTFOUND, "%s not found", e->name);
        if (!(it = merge_shards(a, pg.items, pg.count)))
            return ddbi_fail_oom(err, __func__);
    }
    return ddb_ent_from_item(e, it, out, a, err);
}

/* ---- delete ---- */

int ddb_ent_delete(ddb *db, const ddb_entity_desc *e, const void *key, const ddb_ent_opts *o, ddb_capacity *cap,
                   ddb_error *err)
{
    if (cap)
        memset(cap, 0, sizeof *cap);
    if (!db || !e || !key)
        return ddbi_fail(err, DDB_EINVAL, "delete: db, entity and key are required");
    ddb_arena *a = ddb_arena_new();
    if (!a)
        return ddbi_fail_oom(err, __func__);
    int rc = DDB_OK;
    if (!e->n_shards) {
        ddb_item *k = NULL;
        ddb_write_result res;
        ddb_write_opts wo = {.return_capacity = cap_mode(o)};
        if (!(rc = primary_key(e, key, -1, a, &k, err)) &&
            !(rc = ddb_delete_item(db, e->table->def.name, k, &wo, a, &res, err)))
            cap_merge(cap, &res.capacity);
    } else {
        ddb_tx_op ops[64];
        for (int s = 0; s < e->n_shards && s < 64 && !rc; s++) {
            ddb_item *k = NULL;
            rc = primary_key(e, key, s, a, &k, err);
            ops[s] = (ddb_tx_op){.kind = DDB_TX_DELETE, .table = e->table->def.name, .item = k};
        }
        ddb_tx_result res;
        if (!rc && !(rc = ddb_transact_write(db, ops, e->n_shards, cap_mode(o), a, &res, err)))
            cap_merge(cap, &res.capacity);
    }
    ddb_arena_free(a);
    return rc;
}

/* ---- partial update ---- */

static bool template_uses(const ddb_template *t, const bool *changed)
{
    for (uint16_t i = 0; i < t->n; i++)
        if (!t->segs[i].lit && t->segs[i].path_len && changed[t->segs[i].path[0]])
            return true;
    return false;
}

/* Append "SET/REMOVE" assignments for attr = v (v NULL: remove). */
typedef struct upd {
    exprb x;
    ddb_buf rem;
    int nset, nrem;
} upd;

static int upd_set(upd *u, const char *attr, ddb_value *v)
{
    const char *n = name_ref(&u->x, attr);
    if (!n)
        return DDB_ENOMEM;
    if (!v) {
        const char *sep = u->nrem++ ? ", " : " REMOVE ";
        int rc = ddbi_buf_put(&u->rem, sep, strlen(sep));
        return rc ? rc : ddbi_buf_put(&u->rem, n, strlen(n));
    }
    const char *r = value_ref(&u->x, v);
    if (!r || put_text(&u->x, u->nset++ ? ", " : "SET ") || put_text(&u->x, n) || put_text(&u->x, " = ") ||
        put_text(&u->x, r))
        return DDB_ENOMEM;
    return DDB_OK;
}

int ddb_ent_update_fields(ddb *db, const ddb_entity_desc *e, void *obj, const char *const *fields, size_t n_fields,
                          const ddb_ent_opts *o, ddb_capacity *cap, ddb_error *err)
{
    if (cap)
        memset(cap, 0, sizeof *cap);
    if (!db || !e || !obj || (n_fields && !fields))
        return ddbi_fail(err, DDB_EINVAL, "update: db, entity, object and fields are required");
    bool changed[1024] = {false};
    if (e->st->n_fields > 1024)
        return ddbi_fail(err, DDB_ELIMIT, "%s has more than 1024 fields", e->name);
    for (size_t i = 0; i < n_fields; i++) {
        uint16_t j = 0;
        while (j < e->st->n_fields && strcmp(e->st->fields[j].name, fields[i]) != 0)
            j++;
        if (j == e->st->n_fields)
            return ddbi_fail(err, DDB_EVALIDATION, "%s has no field %s", e->name, fields[i]);
        const ddb_field_desc *f = &e->st->fields[j];
        if (f->flags & DDB_FIELD_KEY)
            return ddbi_fail(err, DDB_EVALIDATION,
                            "field %s is part of the primary key of %s: write a new item instead", f->name, e->name);
        if (f->flags & (DDB_FIELD_DERIVED | DDB_FIELD_VERSION | DDB_FIELD_UUID | DDB_FIELD_AUTO_ID))
            return ddbi_fail(err, DDB_EVALIDATION, "field %s of %s is maintained by ddbgen and cannot be set",
                            f->name, e->name);
        changed[j] = true;
    }
    int nparts = e->n_shards ? e->n_shards : 1;
    if (nparts > 64)
        return ddbi_fail(err, DDB_ELIMIT, "%s has %d shards (max 64)", e->name, nparts);
    ddb_arena *a = ddb_arena_new();
    if (!a)
        return ddbi_fail_oom(err, __func__);
    upd u[64];
    bool touched[64] = {false};
    int rc = DDB_OK;
    for (int s = 0; s < nparts; s++) {
        memset(&u[s], 0, sizeof u[s]);
        if (exprb_init(&u[s].x, db, a))
            rc = ddbi_fail_oom(err, __func__);
    }
    /* the fields themselves, and derived attributes that depend on them */
    if (!rc)
        rc = ddbi_ent_fill_derived(e, obj, a, err);
    for (uint16_t j = 0; !rc && j < e->st->n_fields; j++) {
        const ddb_field_desc *f = &e->st->fields[j];
        bool derived = (f->flags & DDB_FIELD_DERIVED) && f->derived && template_uses(f->derived, changed);
        if (!changed[j] && !derived)
            continue;
        int s = e->n_shards ? (f->shard >= 0 ? f->shard : 0) : 0;
        ddb_value *v;
        rc = ddbi_ent_field_value(f, (const char *)obj + f->offset, a, &v, err);
        if (!rc && upd_set(&u[s], f->attr, v))
            rc = ddbi_fail_oom(err, __func__);
        touched[s] = true;
    }
    /* index keys that depend on them (they live on the first shard) */
    for (uint16_t k = 1; !rc && k < e->n_keys; k++) {
        const ddb_key_desc *kd = &e->keys[k];
        if (!template_uses(&kd->pk, changed) && !(kd->sk_attr && template_uses(&kd->sk, changed)))
            continue;
        ddb_value *pk, *sk = NULL;
        if ((rc = ddb_ent_render(e, &kd->pk, obj, a, &pk, err)) ||
            (kd->sk_attr && (rc = ddb_ent_render(e, &kd->sk, obj, a, &sk, err))))
            break;
        bool in = pk && (!kd->sk_attr || sk);
        int ks = e->n_shards && kd->shard >= 0 ? kd->shard : 0;
        if (upd_set(&u[ks], kd->pk_attr, in ? pk : NULL) ||
            (kd->sk_attr && upd_set(&u[ks], kd->sk_attr, in ? sk : NULL)))
            rc = ddbi_fail_oom(err, __func__);
        touched[ks] = true;
    }
    const ddb_field_desc *vf = flagged(e, DDB_FIELD_VERSION);
    int64_t expected = vf ? read_int(vf, (char *)obj + vf->offset) : 0;
    int vshard = vf ? (e->n_shards ? (vf->shard >= 0 ? vf->shard : 0) : 0) : -1;
    if (!rc && vf) {
        if (upd_set(&u[vshard], vf->attr, ddb_v_i64(a, expected + 1)))
            rc = ddbi_fail_oom(err, __func__);
        touched[vshard] = true;
    }
    const ddb_expr *upx[64] = {NULL}, *cx[64] = {NULL};
    ddb_item *keys[64];
    ddb_tx_op ops[64];
    size_t nops = 0;
    for (int s = 0; !rc && s < nparts; s++) {
        if (!touched[s])
            continue;
        /* the item must exist; with a version, it must be the expected one */
        exprb *x = &u[s].x;
        const char *n = name_ref(x, e->keys[0].pk_attr);
        if (u[s].rem.len && ddbi_buf_put(&x->text, u[s].rem.p, u[s].rem.len))
            rc = ddbi_fail_oom(err, __func__);
        if (!rc && (rc = exprb_prepare(x, DDB_EXPR_UPDATE, &upx[s], err)))
            break;
        x->text.len = 0; /* the same names and values serve the condition */
        if (!n || put_text(x, "attribute_exists(") || put_text(x, n) || put_text(x, ")"))
            rc = ddbi_fail_oom(err, __func__);
        if (!rc && vf && s == vshard) {
            const char *vn = name_ref(x, vf->attr), *vv = value_ref(x, ddb_v_i64(a, expected));
            if (!vn || !vv || put_text(x, " AND ") || put_text(x, vn) || put_text(x, " = ") || put_text(x, vv))
                rc = ddbi_fail_oom(err, __func__);
        }
        if (!rc && (rc = exprb_prepare(x, DDB_EXPR_CONDITION, &cx[s], err)))
            break;
        if (!rc && !(rc = primary_key(e, obj, e->n_shards ? s : -1, a, &keys[s], err)))
            ops[nops++] = (ddb_tx_op){.kind = DDB_TX_UPDATE, .table = e->table->def.name, .item = keys[s],
                                      .update = upx[s], .condition = cx[s], .values = vals(x)};
    }
    if (!rc && nops == 1) {
        ddb_write_result res;
        ddb_write_opts wo = {.return_capacity = cap_mode(o), .condition = ops[0].condition, .values = ops[0].values};
        rc = ddb_update_item(db, ops[0].table, ops[0].item, ops[0].update, &wo, a, &res, err);
        if (!rc)
            cap_merge(cap, &res.capacity);
    } else if (!rc && nops > 1) {
        ddb_tx_result res;
        rc = ddb_transact_write(db, ops, nops, cap_mode(o), a, &res, err);
        if (rc == DDB_ECANCELED && res.reasons)
            for (size_t i = 0; i < nops; i++)
                if (res.reasons[i] == DDB_ECONDITION)
                    rc = DDB_ECONDITION;
        if (!rc)
            cap_merge(cap, &res.capacity);
    }
    if (rc == DDB_ECONDITION)
        ddbi_fail(err, rc, vf ? "%s does not exist or its version is not %lld" : "%s does not exist%.0lld", e->name,
                 (long long)expected);
    if (!rc && vf)
        set_int(vf, (char *)obj + vf->offset, expected + 1);
    for (int s = 0; s < nparts; s++) {
        exprb_done(&u[s].x);
        ddbi_buf_free(&u[s].rem);
    }
    ddb_arena_free(a);
    if (rc == DDB_ECONDITION && !vf)
        return ddbi_fail(err, DDB_ENOTFOUND, "%s not found", e->name);
    return rc;
}

/* ---- cursors: LastEvaluatedKey as an opaque base64url string ---- */

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

static const char *cursor_encode(ddb_arena *a, const ddb_item *key)
{
    ddb_buf b = {0};
    if (ddbi_encode_item(&b, ddb_item_map(key), 0)) {
        ddbi_buf_free(&b);
        return NULL;
    }
    char *s = ddb_arena_alloc(a, (b.len + 2) / 3 * 4 + 1);
    size_t o = 0;
    for (size_t i = 0; s && i < b.len; i += 3) {
        uint32_t v = (uint32_t)b.p[i] << 16 | (i + 1 < b.len ? (uint32_t)b.p[i + 1] << 8 : 0) |
                     (i + 2 < b.len ? b.p[i + 2] : 0);
        s[o++] = b64[v >> 18 & 63];
        s[o++] = b64[v >> 12 & 63];
        if (i + 1 < b.len)
            s[o++] = b64[v >> 6 & 63];
        if (i + 2 < b.len)
            s[o++] = b64[v & 63];
    }
    if (s)
        s[o] = '\0';
    ddbi_buf_free(&b);
    return s;
}

static int cursor_decode(ddb_arena *a, const char *s, ddb_item **out, ddb_error *err)
{
    size_t n = strlen(s);
    uint8_t *p = ddb_arena_alloc(a, n * 3 / 4 + 3);
    size_t o = 0;
    uint32_t acc = 0;
    int bits = 0;
    if (!p)
        return ddbi_fail_oom(err, __func__);
    for (size_t i = 0; i < n; i++) {
        const char *c = memchr(b64, s[i], 64);
        if (!c || !s[i])
            return ddbi_fail(err, DDB_EVALIDATION, "invalid cursor (character %zu)", i + 1);
        acc = acc << 6 | (uint32_t)(c - b64);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            p[o++] = (uint8_t)(acc >> bits);
        }
    }
    if (ddbi_decode_item(p, o, a, out))
        return ddbi_fail(err, DDB_EVALIDATION, "invalid cursor");
    return DDB_OK;
}

/* ---- queries ---- */

/* Build the sort-key condition of q on key kd. */
static int sk_condition(const ddb_entity_desc *e, const ddb_key_desc *kd, const ddb_ent_query *q, ddb_arena *a,
                        ddb_query_params *qp, ddb_error *err)
{
    uint16_t holes = kd->sk_attr ? ddbi_ent_holes(&kd->sk) : 0;
    if (q->sk_fields == 0) {
        if (q->op != DDB_SK_ANY)
            return ddbi_fail(err, DDB_EVALIDATION, "a sort-key condition needs at least one sort-key field");
        /* every item of e starts its sort key with the template's leading
         * literal ("USER#" of "USER#{username}"): read only those, not the
         * other types sharing the partition (seed 004's begins_with(SK, "USER#")) */
        if (kd->sk_attr && kd->sk.type == DDB_TS && kd->sk.n && kd->sk.segs[0].lit && kd->sk.segs[0].lit[0]) {
            qp->sk_op = DDB_SK_BEGINS_WITH;
            if (!(qp->sk1 = ddb_v_str(a, kd->sk.segs[0].lit)))
                return ddbi_fail_oom(err, __func__);
        }
        return DDB_OK;
    }
    if (q->sk_fields > holes)
        return ddbi_fail(err, DDB_EVALIDATION, "%s: the sort key has %u fields, %u given", e->name, holes, q->sk_fields);
    if (kd->sk.type == DDB_TN) {
        ddb_value *v, *hi = NULL;
        int rc = ddb_ent_render(e, &kd->sk, q->obj, a, &v, err);
        if (!rc && q->op == DDB_SK_BETWEEN)
            rc = ddb_ent_render(e, &kd->sk, q->obj_hi, a, &hi, err);
        if (rc)
            return rc;
        qp->sk_op = q->op == DDB_SK_ANY ? DDB_SK_EQ : q->op;
        qp->sk1 = v;
        qp->sk2 = hi;
        return DDB_OK;
    }
    bool whole = q->sk_fields == holes;
    ddb_buf b = {0}, h = {0};
    bool absent = false, absent2 = false;
    int rc = ddbi_ent_render_prefix(e, &kd->sk, q->obj, q->sk_fields, q->op == DDB_SK_ANY && !whole, &b, &absent, err);
    if (!rc && q->op == DDB_SK_BETWEEN) {
        if (!q->obj_hi)
            rc = ddbi_fail(err, DDB_EINVAL, "BETWEEN needs obj_hi");
        else
            rc = ddbi_ent_render_prefix(e, &kd->sk, q->obj_hi, q->sk_fields, false, &h, &absent2, err);
    }
    if (!rc && (absent || absent2))
        rc = ddbi_fail(err, DDB_EVALIDATION, "%s: a sort-key field of the query is unset", e->name);
    /* a range on a field that is followed by more key text: bound the rest
     * with U+10FFFF so "<= x" includes every key that continues after x */
    static const char top[] = "\xf4\x8f\xbf\xbf";
    if (!rc && !whole) {
        if ((q->op == DDB_SK_LE || q->op == DDB_SK_GT) && ddbi_buf_put(&b, top, 4))
            rc = DDB_ENOMEM;
        if (q->op == DDB_SK_BETWEEN && ddbi_buf_put(&h, top, 4))
            rc = DDB_ENOMEM;
    }
    if (!rc) {
        qp->sk_op = q->op == DDB_SK_ANY ? (whole ? DDB_SK_EQ : DDB_SK_BEGINS_WITH) : q->op;
        qp->sk1 = ddb_v_s(a, b.p ? (const char *)b.p : "", b.len);
        if (q->op == DDB_SK_BETWEEN)
            qp->sk2 = ddb_v_s(a, h.p ? (const char *)h.p : "", h.len);
        if (!qp->sk1 || (q->op == DDB_SK_BETWEEN && !qp->sk2))
            rc = DDB_ENOMEM;
    }
    ddbi_buf_free(&b);
    ddbi_buf_free(&h);
    if (rc == DDB_ENOMEM)
        return ddbi_fail_oom(err, __func__);
    return rc;
}

/* A sharded entity found through a secondary index: the index holds the
 * shard item carrying that key; read all its shards from the table. */
static int reassemble(ddb *db, const ddb_entity_desc *e, const ddb_item *shard_item, ddb_arena *a,
                      const ddb_ent_opts *o, ddb_capacity *cap, ddb_item **out, ddb_error *err)
{
    const ddb_key_desc *k = &e->keys[0];
    const ddb_value *pk = ddb_item_get(shard_item, k->pk_attr), *sk = ddb_item_get(shard_item, k->sk_attr);
    const char *sfx = e->shard_suffix ? e->shard_suffix : "#";
    const char *cut = NULL;
    for (const char *p = sk ? strstr(sk->u.s, sfx) : NULL; p; p = strstr(p + 1, sfx))
        cut = p; /* the last suffix: what follows is the shard id */
    if (!pk || !cut)
        return ddbi_fail(err, DDB_ECORRUPT, "%s: an index entry is not a shard item", e->name);
    ddb_item *key = ddb_item_new(a);
    if (!key || ddb_item_set(key, k->pk_attr, (ddb_value *)pk) ||
        ddb_item_set(key, k->sk_attr, ddb_v_s(a, sk->u.s, (size_t)(cut - sk->u.s))))
        return ddbi_fail_oom(err, __func__);
    ddb_page pg;
    int rc = get_shards(db, e, key, a, o && o->consistent, cap_mode(o), &pg, err);
    if (rc)
        return rc;
    cap_merge(cap, &pg.capacity);
    if (!(*out = merge_shards(a, pg.items, pg.count)))
        return ddbi_fail_oom(err, __func__);
    return DDB_OK;
}

/* An index that projects less than the whole item returns partial items: a
 * typed query reads each one whole from the table (and reports the reads). */
static int refetch_projected(ddb *db, const ddb_entity_desc *e, const char *index, ddb_page *pg, ddb_arena *a,
                             const ddb_ent_opts *o, ddb_capacity *cap, ddb_error *err)
{
    const ddb_table_def *t = &e->table->def;
    const ddb_index_def *x = NULL;
    for (size_t i = 0; i < t->n_indexes; i++)
        if (!strcmp(t->indexes[i].name, index))
            x = &t->indexes[i];
    if (!x || x->projection == DDB_PROJ_ALL)
        return DDB_OK;
    size_t kept = 0;
    for (size_t i = 0; i < pg->count; i++) {
        ddb_item *key = ddb_item_new(a), *full;
        const ddb_value *pk = ddb_item_get(pg->items[i], t->key.pk);
        const ddb_value *sk = t->key.sk ? ddb_item_get(pg->items[i], t->key.sk) : NULL;
        if (!key || !pk || ddb_item_set(key, t->key.pk, (ddb_value *)pk) ||
            (sk && ddb_item_set(key, t->key.sk, (ddb_value *)sk)))
            return ddbi_fail_oom(err, __func__);
        ddb_capacity c;
        ddb_get_opts go = {.consistent = o && o->consistent, .return_capacity = cap_mode(o)};
        int rc = ddb_get_item(db, t->name, key, &go, a, &full, &c, err);
        cap_merge(cap, &c);
        if (rc == DDB_ENOTFOUND)
            continue; /* deleted since the index was read */
        if (rc)
            return rc;
        pg->items[kept++] = full;
    }
    pg->count = kept;
    return DDB_OK;
}

int ddb_ent_query_page(ddb *db, const ddb_entity_desc *e, const ddb_ent_query *q, ddb_arena *a,
                       const ddb_ent_opts *o, ddb_ent_page *out, ddb_error *err)
{
    if (!db || !e || !q || !q->obj || !a || !out)
        return ddbi_fail(err, DDB_EINVAL, "query: db, entity, query, object, arena and out are required");
    memset(out, 0, sizeof *out);
    if (q->key >= e->n_keys)
        return ddbi_fail(err, DDB_EINVAL, "%s has no key %u", e->name, q->key);
    const ddb_key_desc *kd = &e->keys[q->key];
    ddb_value *pk;
    int rc = ddb_ent_render(e, &kd->pk, q->obj, a, &pk, err);
    if (rc)
        return rc;
    if (!pk)
        return ddbi_fail(err, DDB_EVALIDATION, "%s: a partition field of the query is unset", e->name);
    ddb_query_params qp = {.table = e->table->def.name, .index = kd->index, .pk = pk, .backward = q->backward,
                           .limit = q->page_size, .consistent = o && o->consistent, .return_capacity = cap_mode(o)};
    if ((rc = sk_condition(e, kd, q, a, &qp, err)))
        return rc;
    if (q->cursor && (rc = cursor_decode(a, q->cursor, (ddb_item **)&qp.start_key, err)))
        return rc;
    bool sharded = e->n_shards && q->key == 0;
    bool shard_index = e->n_shards && q->key != 0; /* the index holds one shard item per entity */
    if (sharded && q->page_size)
        qp.limit = q->page_size * e->n_shards;
    ddb_page pg;
    if ((rc = ddb_query(db, &qp, a, &pg, err)))
        return rc;
    out->capacity = pg.capacity;
    if (kd->index && (rc = refetch_projected(db, e, kd->index, &pg, a, o, &out->capacity, err)))
        return rc;
    char *items = ddb_arena_alloc(a, (pg.count ? pg.count : 1) * e->st->size);
    if (!items)
        return ddbi_fail_oom(err, __func__);
    const ddb_value *tv;
    for (size_t i = 0; i < pg.count; i++) {
        ddb_item *it = pg.items[i];
        size_t span = 1;
        tv = ddb_item_get(it, e->table->type_attr);
        if (!tv || tv->type != DDB_TS || strcmp(tv->u.s, e->name) != 0)
            continue; /* another entity in the same partition */
        if (sharded) {
            /* consecutive shard items of one logical item share SK up to the suffix */
            const ddb_value *sk = ddb_item_get(it, kd->sk_attr);
            const char *sfx = e->shard_suffix ? e->shard_suffix : "#";
            const char *cut = sk ? strstr(sk->u.s, sfx) : NULL;
            size_t base = cut ? (size_t)(cut - sk->u.s) + strlen(sfx) : 0;
            while (sk && i + span < pg.count) {
                const ddb_value *nsk = ddb_item_get(pg.items[i + span], kd->sk_attr);
                if (!nsk || nsk->len < base || memcmp(nsk->u.s, sk->u.s, base) != 0)
                    break;
                span++;
            }
            if (!(it = merge_shards(a, &pg.items[i], span)))
                return ddbi_fail_oom(err, __func__);
        }
        if (shard_index && (rc = reassemble(db, e, it, a, o, &out->capacity, &it, err)))
            return rc;
        char *slot = items + out->count * e->st->size;
        if ((rc = ddb_ent_from_item(e, it, slot, a, err)))
            return rc;
        out->count++;
        i += span - 1;
    }
    out->items = items;
    if (pg.last_key && !(out->cursor = cursor_encode(a, pg.last_key)))
        return ddbi_fail_oom(err, __func__);
    return DDB_OK;
}

int ddb_ent_query_collection(ddb *db, const ddb_collection_desc *c, uint16_t member_index, const void *obj,
                             void *result, ddb_arena *a, const ddb_ent_opts *o, ddb_capacity *cap, ddb_error *err)
{
    if (cap)
        memset(cap, 0, sizeof *cap);
    if (!db || !c || !obj || !result || !a || member_index >= c->n_members)
        return ddbi_fail(err, DDB_EINVAL, "collection query: db, collection, object, result and arena are required");
    const ddb_collection_member *lead = &c->members[member_index];
    const ddb_key_desc *kd = &lead->entity->keys[lead->key];
    ddb_value *pk;
    int rc = ddb_ent_render(lead->entity, &kd->pk, obj, a, &pk, err);
    if (rc)
        return rc;
    if (!pk)
        return ddbi_fail(err, DDB_EVALIDATION, "%s: a partition field of the collection query is unset", c->name);
    size_t caps[64] = {0};
    if (c->n_members > 64)
        return ddbi_fail(err, DDB_ELIMIT, "collection %s has more than 64 members", c->name);
    for (uint16_t m = 0; m < c->n_members; m++) {
        *(void **)((char *)result + c->members[m].items_offset) = NULL;
        *(size_t *)((char *)result + c->members[m].count_offset) = 0;
    }
    ddb_query_params qp = {.table = lead->entity->table->def.name, .index = c->index, .pk = pk,
                           .consistent = o && o->consistent, .return_capacity = cap_mode(o)};
    ddb_page pg;
    do {
        if ((rc = ddb_query(db, &qp, a, &pg, err)))
            return rc;
        cap_merge(cap, &pg.capacity);
        for (size_t i = 0; i < pg.count; i++) {
            const ddb_value *tv = ddb_item_get(pg.items[i], lead->entity->table->type_attr);
            if (!tv || tv->type != DDB_TS)
                continue;
            for (uint16_t m = 0; m < c->n_members; m++) {
                const ddb_collection_member *mb = &c->members[m];
                if (strcmp(tv->u.s, mb->entity->name) != 0)
                    continue;
                char **arr = (char **)((char *)result + mb->items_offset);
                size_t *cnt = (size_t *)((char *)result + mb->count_offset);
                size_t sz = mb->entity->st->size;
                if (*cnt == caps[m]) {
                    size_t nc = caps[m] ? caps[m] * 2 : 8;
                    char *na = ddb_arena_alloc(a, nc * sz);
                    if (!na)
                        return ddbi_fail_oom(err, __func__);
                    if (*cnt)
                        memcpy(na, *arr, *cnt * sz);
                    *arr = na;
                    caps[m] = nc;
                }
                if ((rc = ddb_ent_from_item(mb->entity, pg.items[i], *arr + *cnt * sz, a, err)))
                    return rc;
                (*cnt)++;
                break;
            }
        }
        qp.start_key = pg.last_key;
    } while (pg.last_key);
    return DDB_OK;
}

int ddb_ent_create_table(ddb *db, const ddb_schema_table *t, ddb_error *err)
{
    if (!t)
        return ddbi_fail(err, DDB_EINVAL, "create_table: no table");
    return ddb_create_table(db, &t->def, err);
}

/* ---- transactions and batches across entities ---- */

#define TX_OPS 100

struct ddb_ent_tx {
    ddb *db;
    ddb_arena *a;
    size_t n;
    ddb_tx_op ops[TX_OPS];
    const ddb_entity_desc *ent[TX_OPS]; /* whose op it is, for messages */
    size_t nx;
    exprb xs[TX_OPS];
    size_t nplans;
    ent_plan *plans[TX_OPS];             /* version bumps on success */
    int failed;                          /* an earlier add failed */
};

ddb_ent_tx *ddb_ent_tx_new(ddb *db, ddb_arena *a)
{
    ddb_ent_tx *tx = db && a ? ddb_arena_alloc(a, sizeof *tx) : NULL;
    if (tx) {
        memset(tx, 0, sizeof *tx);
        tx->db = db;
        tx->a = a;
    }
    return tx;
}

static exprb *tx_exprb(ddb_ent_tx *tx, ddb_error *err)
{
    if (tx->nx == TX_OPS) {
        ddbi_fail(err, DDB_ELIMIT, "a transaction holds at most %d operations", TX_OPS);
        return NULL;
    }
    exprb *x = &tx->xs[tx->nx];
    if (exprb_init(x, tx->db, tx->a)) {
        ddbi_fail_oom(err, __func__);
        return NULL;
    }
    tx->nx++;
    return x;
}

static int tx_add(ddb_ent_tx *tx, const ddb_entity_desc *e, ddb_tx_op op, ddb_error *err)
{
    if (tx->n == TX_OPS)
        return ddbi_fail(err, DDB_ELIMIT, "a transaction holds at most %d operations (items)", TX_OPS);
    tx->ent[tx->n] = e;
    tx->ops[tx->n++] = op;
    return DDB_OK;
}

static int tx_write(ddb_ent_tx *tx, const ddb_entity_desc *e, void *obj, bool create, ddb_error *err)
{
    if (!tx || !e || !obj)
        return ddbi_fail(err, DDB_EINVAL, "transaction: tx, entity and object are required");
    exprb *x = tx_exprb(tx, err);
    ent_plan *p = ddb_arena_alloc(tx->a, sizeof *p);
    int rc = !x ? (err ? err->code : DDB_ELIMIT) : !p ? ddbi_fail_oom(err, __func__) : DDB_OK;
    if (!rc)
        rc = plan_write(tx->db, e, obj, create, tx->a, x, p, NULL, DDB_CAPACITY_NONE, err);
    for (int s = 0; !rc && s < p->nparts; s++)
        rc = tx_add(tx, e,
                    (ddb_tx_op){.kind = DDB_TX_PUT, .table = e->table->def.name, .item = p->items[s],
                                .condition = s == p->cond_part ? p->cond : NULL,
                                .values = s == p->cond_part && p->cond ? vals(x) : NULL},
                    err);
    if (!rc && p->vf)
        tx->plans[tx->nplans++] = p;
    tx->failed |= rc != DDB_OK;
    return rc;
}

int ddb_ent_tx_put(ddb_ent_tx *tx, const ddb_entity_desc *e, void *obj, ddb_error *err)
{
    return tx_write(tx, e, obj, false, err);
}

int ddb_ent_tx_create(ddb_ent_tx *tx, const ddb_entity_desc *e, void *obj, ddb_error *err)
{
    return tx_write(tx, e, obj, true, err);
}

int ddb_ent_tx_delete(ddb_ent_tx *tx, const ddb_entity_desc *e, const void *key, ddb_error *err)
{
    if (!tx || !e || !key)
        return ddbi_fail(err, DDB_EINVAL, "transaction: tx, entity and key are required");
    int rc = DDB_OK;
    for (int s = 0; !rc && s < (e->n_shards ? e->n_shards : 1); s++) {
        ddb_item *k = NULL;
        if (!(rc = primary_key(e, key, e->n_shards ? s : -1, tx->a, &k, err)))
            rc = tx_add(tx, e, (ddb_tx_op){.kind = DDB_TX_DELETE, .table = e->table->def.name, .item = k}, err);
    }
    tx->failed |= rc != DDB_OK;
    return rc;
}

int ddb_ent_tx_require(ddb_ent_tx *tx, const ddb_entity_desc *e, const void *key, bool exists, ddb_error *err)
{
    if (!tx || !e || !key)
        return ddbi_fail(err, DDB_EINVAL, "transaction: tx, entity and key are required");
    exprb *x = tx_exprb(tx, err);
    ddb_item *k = NULL;
    const ddb_expr *cond = NULL;
    int rc = !x ? (err ? err->code : DDB_ELIMIT) : primary_key(e, key, e->n_shards ? 0 : -1, tx->a, &k, err);
    if (!rc) {
        const char *n = name_ref(x, e->keys[0].pk_attr);
        if (!n || put_text(x, exists ? "attribute_exists(" : "attribute_not_exists(") || put_text(x, n) ||
            put_text(x, ")"))
            rc = ddbi_fail_oom(err, __func__);
    }
    if (!rc)
        rc = exprb_prepare(x, DDB_EXPR_CONDITION, &cond, err);
    if (!rc)
        rc = tx_add(tx, e, (ddb_tx_op){.kind = DDB_TX_CHECK, .table = e->table->def.name, .item = k, .condition = cond},
                    err);
    tx->failed |= rc != DDB_OK;
    return rc;
}

int ddb_ent_tx_commit(ddb_ent_tx *tx, const ddb_ent_opts *o, ddb_capacity *cap, ddb_error *err)
{
    if (cap)
        memset(cap, 0, sizeof *cap);
    if (!tx)
        return ddbi_fail(err, DDB_EINVAL, "transaction: no builder");
    int rc;
    if (tx->failed)
        rc = ddbi_fail(err, DDB_EINVAL, "transaction: an operation could not be added; nothing was written");
    else if (!tx->n)
        rc = ddbi_fail(err, DDB_EVALIDATION, "transaction: no operations");
    else {
        ddb_tx_result res;
        rc = ddb_transact_write(tx->db, tx->ops, tx->n, cap_mode(o), tx->a, &res, err);
        if (rc == DDB_ECANCELED && res.reasons) {
            /* name the entities whose conditions failed */
            char text[DDB_ERROR_TEXT_SIZE];
            size_t w = (size_t)snprintf(text, sizeof text, "transaction cancelled:");
            for (size_t i = 0; i < tx->n && w < sizeof text; i++)
                if (res.reasons[i])
                    w += (size_t)snprintf(text + w, sizeof text - w, " operation %zu (%s) %s;", i + 1,
                                          tx->ent[i]->name,
                                          res.reasons[i] == DDB_ECONDITION ? "condition failed" : ddb_strerror(res.reasons[i]));
            ddbi_fail(err, rc, "%s", text);
        }
        if (!rc) {
            cap_merge(cap, &res.capacity);
            for (size_t i = 0; i < tx->nplans; i++)
                set_int(tx->plans[i]->vf, (char *)tx->plans[i]->obj + tx->plans[i]->vf->offset,
                        tx->plans[i]->expected + 1);
        }
    }
    for (size_t i = 0; i < tx->nx; i++)
        exprb_done(&tx->xs[i]);
    tx->nx = tx->n = tx->nplans = 0;
    return rc;
}

int ddb_ent_batch_put(ddb *db, const ddb_entity_desc *e, void *objs, size_t n, const ddb_ent_opts *o,
                      ddb_capacity *cap, ddb_error *err)
{
    if (cap)
        memset(cap, 0, sizeof *cap);
    if (!db || !e || (n && !objs))
        return ddbi_fail(err, DDB_EINVAL, "batch put: db, entity and objects are required");
    if (flagged(e, DDB_FIELD_VERSION))
        return ddbi_fail(err, DDB_EVALIDATION,
                        "%s has a version field: a batch cannot check versions (use put or a transaction)", e->name);
    ddb_arena *a = ddb_arena_new();
    if (!a)
        return ddbi_fail_oom(err, __func__);
    ddb_batch_write_op ops[25];
    size_t nops = 0;
    int rc = DDB_OK;
    for (size_t i = 0; i <= n && !rc; i++) {
        int nparts = e->n_shards ? e->n_shards : 1;
        if (nops && (i == n || nops + (size_t)nparts > 25)) {
            ddb_capacity c;
            if (!(rc = ddb_batch_write(db, ops, nops, cap_mode(o), &c, err)))
                cap_merge(cap, &c);
            nops = 0;
            ddb_arena_reset(a);
        }
        if (i == n || rc)
            break;
        void *obj = (char *)objs + i * e->st->size;
        if ((rc = ddbi_ent_fill_derived(e, obj, a, err)))
            break;
        for (int s = 0; s < nparts && !rc; s++) {
            ddb_item *it;
            if (!(rc = ddbi_ent_item_part(e, obj, e->n_shards ? s : -1, a, &it, err)))
                ops[nops++] = (ddb_batch_write_op){.table = e->table->def.name, .put = it};
        }
    }
    ddb_arena_free(a);
    return rc;
}

int ddb_ent_batch_get(ddb *db, const ddb_entity_desc *e, const void *keys, size_t n, void *out, bool *found,
                      ddb_arena *a, const ddb_ent_opts *o, ddb_capacity *cap, ddb_error *err)
{
    if (cap)
        memset(cap, 0, sizeof *cap);
    if (!db || !e || (n && (!keys || !out || !found)) || !a)
        return ddbi_fail(err, DDB_EINVAL, "batch get: db, entity, keys, out, found and arena are required");
    int rc = DDB_OK;
    if (e->n_shards) { /* each logical item is a query over its shards */
        for (size_t i = 0; i < n && !rc; i++) {
            ddb_capacity c;
            rc = ddb_ent_get(db, e, (const char *)keys + i * e->st->size, (char *)out + i * e->st->size, a, o, &c,
                             err);
            cap_merge(cap, &c);
            found[i] = rc == DDB_OK;
            if (rc == DDB_ENOTFOUND)
                rc = DDB_OK;
        }
        return rc;
    }
    ddb_batch_get_op ops[100];
    ddb_item *items[100];
    for (size_t base = 0; base < n && !rc; base += 100) {
        size_t m = n - base < 100 ? n - base : 100;
        for (size_t i = 0; i < m && !rc; i++) {
            ddb_item *k = NULL;
            if (!(rc = primary_key(e, (const char *)keys + (base + i) * e->st->size, -1, a, &k, err)))
                ops[i] = (ddb_batch_get_op){.table = e->table->def.name, .key = k, .consistent = o && o->consistent};
        }
        ddb_capacity c;
        if (!rc && !(rc = ddb_batch_get(db, ops, m, a, items, cap_mode(o), &c, err)))
            cap_merge(cap, &c);
        for (size_t i = 0; i < m && !rc; i++) {
            char *slot = (char *)out + (base + i) * e->st->size;
            found[base + i] = items[i] != NULL;
            if (items[i])
                rc = ddb_ent_from_item(e, items[i], slot, a, err);
            else
                memset(slot, 0, e->st->size);
        }
    }
    return rc;
}

/* ---- opening a table under a schema: create, evolve, or refuse ---- */

/* A template as text, with field names: "ORG#{org}", "{created_at:020}". */
static int template_text(const ddb_entity_desc *e, const ddb_template *t, ddb_buf *b)
{
    static const char *const parts[] = {"", "|year", "|month", "|day", "|quarter"};
    static const char *const cases[] = {"", "|lower", "|upper"};
    int rc = DDB_OK;
    for (uint16_t i = 0; !rc && i < t->n; i++) {
        const ddb_tseg *s = &t->segs[i];
        if (s->lit) {
            for (const char *p = s->lit; *p && !rc; p++) {
                rc = ddbi_buf_put(b, p, 1);
                if (!rc && (*p == '{' || *p == '}')) /* braces are doubled in templates */
                    rc = ddbi_buf_put(b, p, 1);
            }
            continue;
        }
        rc = ddbi_buf_put(b, "{", 1);
        const ddb_struct_desc *st = e->st;
        for (uint8_t j = 0; !rc && j < s->path_len && st && s->path[j] < st->n_fields; j++) {
            const ddb_field_desc *f = &st->fields[s->path[j]];
            if (j)
                rc = ddbi_buf_put(b, ".", 1);
            if (!rc)
                rc = ddbi_buf_put(b, f->name, strlen(f->name));
            st = f->sub;
        }
        char fmt[32] = "";
        if (s->pad)
            snprintf(fmt, sizeof fmt, ":0%u", s->pad);
        if (!rc)
            rc = ddbi_buf_put(b, fmt, strlen(fmt));
        if (!rc && s->part < 5)
            rc = ddbi_buf_put(b, parts[s->part], strlen(parts[s->part]));
        if (!rc && s->kase < 3)
            rc = ddbi_buf_put(b, cases[s->kase], strlen(cases[s->kase]));
        if (!rc)
            rc = ddbi_buf_put(b, "}", 1);
    }
    return rc;
}

/* What an entity's stored items depend on: its keys per index (attribute =
 * template), the type attribute, the shard layout.  One line per key. */
static int fingerprint(const ddb_entity_desc *e, ddb_buf *b)
{
    int rc = DDB_OK;
    for (uint16_t k = 0; !rc && k < e->n_keys; k++) {
        const ddb_key_desc *kd = &e->keys[k];
        const char *ix = kd->index ? kd->index : "table";
        if ((rc = ddbi_buf_put(b, ix, strlen(ix))) || (rc = ddbi_buf_put(b, ": ", 2)) ||
            (rc = ddbi_buf_put(b, kd->pk_attr, strlen(kd->pk_attr))) || (rc = ddbi_buf_put(b, "=", 1)) ||
            (rc = template_text(e, &kd->pk, b)))
            break;
        if (kd->sk_attr && ((rc = ddbi_buf_put(b, " ", 1)) || (rc = ddbi_buf_put(b, kd->sk_attr, strlen(kd->sk_attr))) ||
                            (rc = ddbi_buf_put(b, "=", 1)) || (rc = template_text(e, &kd->sk, b))))
            break;
        rc = ddbi_buf_put(b, "\n", 1);
    }
    char line[300];
    int n = snprintf(line, sizeof line, "type: %s=%s\n", e->table->type_attr, e->name);
    if (!rc)
        rc = ddbi_buf_put(b, line, (size_t)n);
    if (!rc && e->n_shards) {
        rc = ddbi_buf_put(b, "shards:", 7);
        for (uint16_t s = 0; !rc && s < e->n_shards; s++) {
            n = snprintf(line, sizeof line, " %s%s", e->shard_suffix ? e->shard_suffix : "#", e->shards[s]);
            rc = ddbi_buf_put(b, line, (size_t)n);
        }
        if (!rc)
            rc = ddbi_buf_put(b, "\n", 1);
    }
    if (!rc)
        rc = ddbi_buf_put(b, "", 1);
    return rc;
}

/* The line of fingerprint fp whose label (text before ':') is label. */
static const char *find_line(const char *fp, const char *label, size_t llen, int *len)
{
    for (const char *l = fp; *l;) {
        const char *e = strchr(l, '\n');
        size_t n = e ? (size_t)(e - l) : strlen(l);
        if (n > llen && l[llen] == ':' && memcmp(l, label, llen) == 0) {
            *len = (int)n;
            return l;
        }
        l += n + (e != NULL);
    }
    return NULL;
}

/* Compare an entity's stored fingerprint with the schema's: every key the
 * stored items were written with must be unchanged (an entity may join new
 * indexes or leave old ones); the type attribute and shards must match.
 * On a difference, *old_line / *new_line say what changed. */
static bool compatible(const char *old, const char *now, const char **ol, int *on, const char **nl, int *nn)
{
    for (int pass = 0; pass < 2; pass++) {
        const char *from = pass ? now : old, *other = pass ? old : now;
        for (const char *l = from; *l;) {
            const char *e = strchr(l, '\n'), *c = strchr(l, ':');
            size_t n = e ? (size_t)(e - l) : strlen(l);
            size_t llen = c && c < l + n ? (size_t)(c - l) : n;
            bool strict = (llen == 4 && !memcmp(l, "type", 4)) || (llen == 6 && !memcmp(l, "shards", 6)) ||
                          (llen == 5 && !memcmp(l, "table", 5));
            int m = 0;
            const char *match = find_line(other, l, llen, &m);
            if ((match && (m != (int)n || memcmp(match, l, n))) || (!match && strict)) {
                *ol = pass ? (match ? match : "") : l;
                *on = pass ? (match ? m : 0) : (int)n;
                *nl = pass ? l : (match ? match : "");
                *nn = pass ? (int)n : (match ? m : 0);
                return false;
            }
            l += n + (e != NULL);
        }
    }
    return true;
}

static bool same_key(const ddb_key_schema *x, const ddb_key_schema *y)
{
    return !strcmp(x->pk, y->pk) && x->pk_type == y->pk_type && !x->sk == !y->sk &&
           (!x->sk || (!strcmp(x->sk, y->sk) && x->sk_type == y->sk_type));
}

static bool same_index(const ddb_index_def *x, const ddb_index_def *y)
{
    if (x->local != y->local || !same_key(&x->key, &y->key) || x->projection != y->projection)
        return false;
    if (x->projection != DDB_PROJ_INCLUDE)
        return true;
    if (x->n_include != y->n_include)
        return false;
    for (size_t i = 0; i < x->n_include; i++) {
        size_t j = 0;
        while (j < y->n_include && strcmp(x->include[i], y->include[j]) != 0)
            j++;
        if (j == y->n_include)
            return false;
    }
    return true;
}

/* Write the key attributes of key k into every stored item of entity e:
 * items written before the entity had that key (a new index, or an index
 * the entity joined) get its attributes, and the engine adds the index
 * entries as for any write. */
static int backfill_key(ddb *db, const ddb_entity_desc *e, uint16_t k, ddb_error *err)
{
    const ddb_key_desc *kd = &e->keys[k];
    ddb_arena *a = ddb_arena_new(), *pa = ddb_arena_new();
    exprb fx, ux;
    int rc = !a || !pa || exprb_init(&fx, db, a) || exprb_init(&ux, db, a) ? DDB_ENOMEM : DDB_OK;
    const ddb_expr *filter = NULL;
    if (!rc) {
        const char *n = name_ref(&fx, e->table->type_attr), *v = value_ref(&fx, ddb_v_str(a, e->name));
        if (!n || !v || put_text(&fx, n) || put_text(&fx, " = ") || put_text(&fx, v))
            rc = DDB_ENOMEM;
    }
    if (rc) {
        ddb_arena_free(a);
        ddb_arena_free(pa);
        return ddbi_fail_oom(err, __func__);
    }
    if ((rc = exprb_prepare(&fx, DDB_EXPR_FILTER, &filter, err))) {
        exprb_done(&fx);
        ddb_arena_free(a);
        ddb_arena_free(pa);
        return rc;
    }
    const char *sid = e->n_shards ? e->shards[kd->shard >= 0 ? kd->shard : 0] : NULL;
    const char *sfx = e->shard_suffix ? e->shard_suffix : "#";
    ddb_scan_params sp = {.table = e->table->def.name, .consistent = true, .filter = filter, .values = vals(&fx)};
    ddb_page pg;
    do {
        ddb_arena_reset(pa);
        if ((rc = ddb_scan(db, &sp, pa, &pg, err)))
            break;
        for (size_t i = 0; i < pg.count && !rc; i++) {
            ddb_item *it = pg.items[i], *full = it;
            const ddb_value *sk = e->keys[0].sk_attr ? ddb_item_get(it, e->keys[0].sk_attr) : NULL;
            if (sid) { /* the key lives on one shard item: rebuild the entity from all of them */
                size_t l = strlen(sfx) + strlen(sid);
                if (!sk || sk->len < l || memcmp(sk->u.s + sk->len - l, sfx, strlen(sfx)) ||
                    strcmp(sk->u.s + sk->len - strlen(sid), sid))
                    continue;
                if ((rc = reassemble(db, e, it, pa, NULL, NULL, &full, err)))
                    break;
            }
            void *obj = ddb_arena_alloc(pa, e->st->size);
            ddb_value *pk, *skv = NULL;
            if (!obj)
                rc = ddbi_fail_oom(err, __func__);
            else if ((rc = ddb_ent_from_item(e, full, obj, pa, err)))
                rc = ddbi_fail(err, DDB_EMODEL, "cannot add the %s key to a stored %s: %s", kd->index ? kd->index : "table",
                              e->name, err ? err->message : "unreadable");
            if (!rc)
                rc = ddb_ent_render(e, &kd->pk, obj, pa, &pk, err);
            if (!rc && kd->sk_attr)
                rc = ddb_ent_render(e, &kd->sk, obj, pa, &skv, err);
            if (rc || !pk || (kd->sk_attr && !skv))
                continue; /* sparse: not in this index */
            /* SET the key attributes on the stored (shard) item, if it is still there */
            ux.text.len = 0;
            ux.n = 0;
            ux.names = ddb_item_new(pa);
            ux.values = ddb_item_new(pa);
            const char *np = name_ref(&ux, kd->pk_attr), *vp = value_ref(&ux, pk);
            const char *ns = kd->sk_attr ? name_ref(&ux, kd->sk_attr) : NULL, *vs = skv ? value_ref(&ux, skv) : NULL;
            if (!np || !vp || put_text(&ux, "SET ") || put_text(&ux, np) || put_text(&ux, " = ") || put_text(&ux, vp) ||
                (ns && (!vs || put_text(&ux, ", ") || put_text(&ux, ns) || put_text(&ux, " = ") || put_text(&ux, vs)))) {
                rc = ddbi_fail_oom(err, __func__);
                break;
            }
            const ddb_expr *upd;
            if ((rc = exprb_prepare(&ux, DDB_EXPR_UPDATE, &upd, err)))
                break;
            ddb_item *key = ddb_item_new(pa);
            const ddb_value *tpk = ddb_item_get(it, e->table->def.key.pk);
            if (!key || !tpk || ddb_item_set(key, e->table->def.key.pk, (ddb_value *)tpk) ||
                (sk && ddb_item_set(key, e->table->def.key.sk, (ddb_value *)sk))) {
                rc = ddbi_fail_oom(err, __func__);
                break;
            }
            ddb_write_opts wo = {.values = vals(&ux)};
            rc = ddb_update_item(db, e->table->def.name, key, upd, &wo, NULL, NULL, err);
        }
        if (pg.last_key && !rc) {
            /* the next page starts after this key: keep it in the long-lived arena */
            sp.start_key = ddb_item_copy(a, pg.last_key);
            if (!sp.start_key)
                rc = ddbi_fail_oom(err, __func__);
        }
    } while (!rc && pg.last_key);
    exprb_done(&ux);
    exprb_done(&fx);
    ddb_arena_free(pa);
    ddb_arena_free(a);
    return rc;
}

static int check_entities(ddb *db, const ddb_schema_table *t, const ddb_entity_desc *const *ents, size_t n,
                          ddb_arena *a, ddb_error *err)
{
    int rc = DDB_OK;
    for (size_t i = 0; i < n && !rc; i++) {
        ddb_buf fp = {0};
        char key[300];
        snprintf(key, sizeof key, "ddbgen.entity.%s", ents[i]->name);
        if (fingerprint(ents[i], &fp)) {
            ddbi_buf_free(&fp);
            return ddbi_fail_oom(err, __func__);
        }
        void *old;
        size_t len;
        rc = ddb_table_meta_get(db, t->def.name, key, a, &old, &len, err);
        if (rc == DDB_ENOTFOUND)
            rc = ddb_table_meta_put(db, t->def.name, key, fp.p, fp.len, err); /* a new entity */
        else if (!rc && (len != fp.len || memcmp(old, fp.p, len) != 0)) {
            const char *la, *lb;
            int na, nb;
            if (compatible(old, (const char *)fp.p, &la, &na, &lb, &nb)) {
                /* keys the stored items lack (a new index, an index joined): write them, then remember */
                for (uint16_t k = 1; k < ents[i]->n_keys && !rc; k++) {
                    const char *ix = ents[i]->keys[k].index;
                    int ml;
                    if (!find_line(old, ix, strlen(ix), &ml))
                        rc = backfill_key(db, ents[i], k, err);
                }
                if (!rc)
                    rc = ddb_table_meta_put(db, t->def.name, key, fp.p, fp.len, err);
                ddbi_buf_free(&fp);
                continue;
            }
            rc = ddbi_fail(err, DDB_EMODEL,
                          "table %s holds %s items written with \"%.*s\"; the schema now says \"%.*s\" (regenerate "
                          "against the old schema, or migrate the items)",
                          t->def.name, ents[i]->name, na > 90 ? 90 : na, la, nb > 90 ? 90 : nb, lb);
        }
        ddbi_buf_free(&fp);
    }
    return rc;
}

int ddb_ent_open_table(ddb *db, const ddb_schema_table *t, const ddb_entity_desc *const *ents, size_t n,
                       ddb_error *err)
{
    if (!db || !t || (n && !ents))
        return ddbi_fail(err, DDB_EINVAL, "open_table: db, table and entities are required");
    ddb_arena *a = ddb_arena_new();
    if (!a)
        return ddbi_fail_oom(err, __func__);
    ddb_table_desc *d;
    int rc = ddb_describe_table(db, t->def.name, a, &d, err);
    if (rc == DDB_ENOTABLE) {
        rc = ddb_create_table(db, &t->def, err);
        if (rc == DDB_EEXISTS) /* created meanwhile by someone else: verify it below */
            rc = ddb_describe_table(db, t->def.name, a, &d, err);
        else if (!rc)
            d = NULL;
    }
    if (!rc && d && !same_key(&d->def.key, &t->def.key))
        rc = ddbi_fail(err, DDB_EMODEL, "table %s was created with key %s%s%s; the schema declares %s%s%s",
                      t->def.name, d->def.key.pk, d->def.key.sk ? "/" : "", d->def.key.sk ? d->def.key.sk : "",
                      t->def.key.pk, t->def.key.sk ? "/" : "", t->def.key.sk ? t->def.key.sk : "");
    for (size_t i = 0; !rc && d && i < t->def.n_indexes; i++) {
        const ddb_index_def *want = &t->def.indexes[i], *have = NULL;
        for (size_t j = 0; j < d->def.n_indexes; j++)
            if (!strcmp(d->def.indexes[j].name, want->name))
                have = &d->def.indexes[j];
        if (have && !same_index(have, want))
            rc = ddbi_fail(err, DDB_EMODEL,
                          "index %s of table %s was created with another key or projection than the schema declares",
                          want->name, t->def.name);
        else if (!have && want->local)
            rc = ddbi_fail(err, DDB_EMODEL,
                          "table %s has no local index %s, and a local index can only be created with the table",
                          t->def.name, want->name);
        else if (!have)
            rc = ddb_add_index(db, t->def.name, want, NULL, NULL, err); /* a new GSI, backfilled */
    }
    if (!rc)
        rc = check_entities(db, t, ents, n, a, err);
    ddb_arena_free(a);
    return rc;
}
