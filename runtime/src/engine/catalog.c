/* engine/: the catalog's stored table definitions, "t/<name>" in the meta
 * database: a ddb_table_def's stored form (a map encoded as an item
 * record), reading it back into a ddb_table_def checked by the one
 * validator (table_def.c), and the writer that commits a definition only
 * after reading back what it would store, so that a definition accepted is
 * a definition that loads.  May call core/. */
#include "engine/table_def.h"
#include "core/codec.h"
#include "core/error.h"
#include "engine/stored.h"

#include <stdio.h>
#include <string.h>

/* ---- the stored form ---- */

static int set_str(ddb_arena *a, ddb_value *m, const char *k, const char *s)
{
    return s ? ddb_map_set(a, m, k, ddb_v_str(a, s)) : DDB_OK;
}

static int set_num(ddb_arena *a, ddb_value *m, const char *k, uint64_t v)
{
    return ddb_map_set(a, m, k, ddb_v_u64(a, v));
}

/* The stored form of an index format: 1 (absent) single-attribute keys
 * under "pk"/"sk"; 2 a multi-attribute key under "pk_parts"/"sk_parts"
 * (lists of {name, type}) and no "pk", so that a version before them
 * refuses the definition (its partition key is missing) instead of
 * reading one attribute of the key.  A later format is refused here. */
#define INDEX_FORMAT 2

/* A list of {name, type} of key attributes: first then more[0..n). */
static ddb_value *parts_list(ddb_arena *a, const char *first, ddb_type type, const ddb_key_part *more, size_t n)
{
    ddb_value *l = ddb_v_list(a);
    int rc = l ? DDB_OK : DDB_ENOMEM;
    for (size_t i = 0; !rc && i <= n; i++) {
        ddb_value *p = ddb_v_map(a);
        rc = !p ? DDB_ENOMEM
                : set_str(a, p, "name", i ? more[i - 1].name : first) |
                      set_num(a, p, "type", i ? more[i - 1].type : type) | ddb_list_append(a, l, p);
    }
    return rc ? NULL : l;
}

static int set_key(ddb_arena *a, ddb_value *xm, const ddb_key_schema *k)
{
    if (!k->n_pk_more && !k->n_sk_more)
        return set_str(a, xm, "pk", k->pk) | set_num(a, xm, "pk_type", k->pk_type) | set_str(a, xm, "sk", k->sk) |
               set_num(a, xm, "sk_type", k->sk ? k->sk_type : 0);
    int rc = set_num(a, xm, "format", INDEX_FORMAT) |
             ddb_map_set(a, xm, "pk_parts", parts_list(a, k->pk, k->pk_type, k->pk_more, k->n_pk_more));
    if (k->sk)
        rc |= ddb_map_set(a, xm, "sk_parts", parts_list(a, k->sk, k->sk_type, k->sk_more, k->n_sk_more));
    return rc;
}

ddb_value *ddbi_catalog_index_map(ddb_arena *a, const ddb_index_def *x)
{
    ddb_value *xm = ddb_v_map(a), *inc = ddb_v_list(a);
    if (!xm || !inc)
        return NULL;
    int rc = set_str(a, xm, "name", x->name) | set_num(a, xm, "local", x->local) | set_key(a, xm, &x->key) |
             set_num(a, xm, "proj", x->projection) | set_num(a, xm, "rcu", x->rcu) | set_num(a, xm, "wcu", x->wcu);
    for (size_t j = 0; x->projection == DDB_PROJ_INCLUDE && j < x->n_include; j++)
        rc |= ddb_list_append(a, inc, ddb_v_str(a, x->include[j]));
    rc |= ddb_map_set(a, xm, "include", inc);
    return rc ? NULL : xm;
}

int ddbi_catalog_encode(ddb_arena *a, const ddb_table_def *d, ddb_value **out, ddb_error *err)
{
    ddb_value *m = ddb_v_map(a), *ix = ddb_v_list(a);
    if (!m || !ix)
        return ddbi_fail_oom(err, __func__);
    int rc = set_str(a, m, "name", d->name) | set_str(a, m, "pk", d->key.pk) |
             set_num(a, m, "pk_type", d->key.pk_type) | set_str(a, m, "sk", d->key.sk) |
             set_num(a, m, "sk_type", d->key.sk ? d->key.sk_type : 0) | set_num(a, m, "rcu", d->rcu) |
             set_num(a, m, "wcu", d->wcu);
    for (size_t i = 0; i < d->n_indexes; i++)
        rc |= ddb_list_append(a, ix, ddbi_catalog_index_map(a, &d->indexes[i]));
    rc |= ddb_map_set(a, m, "indexes", ix);
    if (rc)
        return ddbi_fail_oom(err, __func__);
    *out = m;
    return DDB_OK;
}

/* ---- reading it back ---- */

/* A stored string without NUL bytes (the validator checks its length);
 * NULL when v is absent or of another form. */
static const char *str_of(const ddb_value *v)
{
    return v && v->type == DDB_TS && !memchr(v->u.s, 0, v->len) ? v->u.s : NULL;
}

/* A stored whole number in 0..max. */
static bool num_of(const ddb_value *v, uint64_t max, uint64_t *out)
{
    int64_t x;
    if (!v || v->type != DDB_TN || ddb_value_to_i64(v, &x) != DDB_OK || x < 0 || (uint64_t)x > max)
        return false;
    *out = (uint64_t)x;
    return true;
}

/* The same for a field older definitions may lack: absent is 0. */
static bool opt_num(const ddb_value *v, uint64_t max, uint64_t *out)
{
    *out = 0;
    return !v || num_of(v, max, out);
}

/* A stored key schema (keys pk, pk_type, sk, sk_type of m): NULL, or what
 * is malformed. */
static const char *key_of(const ddb_value *m, ddb_key_schema *k)
{
    uint64_t t = 0;
    memset(k, 0, sizeof *k);
    if (!(k->pk = str_of(ddb_map_get(m, "pk"))) || !num_of(ddb_map_get(m, "pk_type"), DDB_TNULL, &t))
        return "its partition key is malformed";
    k->pk_type = (ddb_type)t;
    const ddb_value *sk = ddb_map_get(m, "sk");
    if (sk && (!(k->sk = str_of(sk)) || !num_of(ddb_map_get(m, "sk_type"), DDB_TNULL, &t)))
        return "its sort key is malformed";
    k->sk_type = sk ? (ddb_type)t : (ddb_type)0;
    return NULL;
}

/* A stored list of key attributes (parts_list) into *first / *type and
 * more (arena a): false when malformed; "" in *why when out of memory. */
static bool parts_of(const ddb_value *l, ddb_arena *a, const char **first, ddb_type *type,
                     const ddb_key_part **more, size_t *n, const char **why)
{
    if (!l || l->type != DDB_TL || l->len < 1 || l->len > DDB_MAX_KEY_ATTRS)
        return false;
    ddb_key_part *m = l->len > 1 ? ddb_arena_alloc(a, (l->len - 1) * sizeof *m) : NULL;
    if (l->len > 1 && !m) {
        *why = "";
        return false;
    }
    for (uint32_t i = 0; i < l->len; i++) {
        const ddb_value *p = l->u.l[i];
        uint64_t t;
        const char *name = p && p->type == DDB_TM ? str_of(ddb_map_get(p, "name")) : NULL;
        if (!name || !num_of(ddb_map_get(p, "type"), DDB_TNULL, &t))
            return false;
        if (i == 0) {
            *first = name;
            *type = (ddb_type)t;
        } else {
            m[i - 1] = (ddb_key_part){name, (ddb_type)t};
        }
    }
    *more = m;
    *n = l->len - 1;
    return true;
}

/* A stored index key of format 2 (multi-attribute): NULL, or what is
 * malformed ("" when out of memory). */
static const char *parts_key_of(const ddb_value *m, ddb_arena *a, ddb_key_schema *k)
{
    uint64_t format;
    const char *why = "an index's key is malformed";
    if (!num_of(ddb_map_get(m, "format"), UINT32_MAX, &format) || format > INDEX_FORMAT)
        return "an index's key is of a later format than this version of ddbgen reads (format 2): it was written "
               "by a newer version";
    memset(k, 0, sizeof *k);
    const ddb_value *sk = ddb_map_get(m, "sk_parts");
    if (!parts_of(ddb_map_get(m, "pk_parts"), a, &k->pk, &k->pk_type, &k->pk_more, &k->n_pk_more, &why) ||
        (sk && !parts_of(sk, a, &k->sk, &k->sk_type, &k->sk_more, &k->n_sk_more, &why)))
        return why;
    return NULL;
}

/* An index of a stored index list: NULL, or what is malformed. */
static const char *index_of(const ddb_value *m, ddb_arena *a, ddb_index_def *x)
{
    uint64_t local, proj;
    memset(x, 0, sizeof *x);
    if (!m || m->type != DDB_TM)
        return "an index is malformed";
    const ddb_value *pv = ddb_map_get(m, "proj"), *inc = ddb_map_get(m, "include");
    if ( !(x->name = str_of(ddb_map_get(m, "name"))))
        return "an index's name is malformed";
    const char *kwhy = ddb_map_get(m, "format") ? parts_key_of(m, a, &x->key)
                       : key_of(m, &x->key)     ? "an index's key is malformed"
                                                : NULL;
    if (kwhy)
        return kwhy;
    if (!opt_num(ddb_map_get(m, "local"), 1, &local) || !opt_num(pv, DDB_PROJ_INCLUDE, &proj) ||
        !opt_num(ddb_map_get(m, "rcu"), INT64_MAX, &x->rcu) || !opt_num(ddb_map_get(m, "wcu"), INT64_MAX, &x->wcu))
        return "an index's projection, kind or throughput is malformed";
    x->local = local != 0;
    x->projection = (ddb_projection)proj;
    if (inc && inc->type != DDB_TL)
        return "an index's projected attributes are malformed";
    if (proj == DDB_PROJ_INCLUDE && inc && inc->len) {
        const char **names = ddb_arena_alloc(a, inc->len * sizeof *names);
        if (!names)
            return "";
        size_t n = 0;
        for (uint32_t j = 0; j < inc->len; j++) {
            const char *s = str_of(inc->u.l[j]);
            if (!s)
                return "an index's projected attribute name is malformed";
            /* versions before the one validator stored a name given twice:
             * it is read back once (what such an index always held) */
            bool again = false;
            for (size_t k = 0; k < n && !again; k++)
                again = strcmp(names[k], s) == 0;
            if (!again)
                names[n++] = s;
        }
        x->include = names;
        x->n_include = n;
    }
    return NULL;
}

int ddbi_catalog_decode(const void *p, size_t n, const char *name, ddb_arena *a, ddb_table_def *out,
                        ddb_error *err)
{
    ddb_item *it;
    int rc = ddbi_decode_item(p, n, a, &it);
    if (rc == DDB_ENOMEM)
        return ddbi_fail_oom(err, "loading a table definition");
    if (rc)
        return ddbi_fail_stored(err, name, NULL, 0, "the stored table definition does not decode");
    memset(out, 0, sizeof *out);
    const ddb_value *ix = ddb_item_get(it, "indexes");
    const char *why = NULL;
    if (!(out->name = str_of(ddb_item_get(it, "name"))) || strcmp(out->name, name) != 0)
        why = "its name is missing or differs from its key";
    else if ((why = key_of(ddb_item_map(it), &out->key)))
        ;
    else if (!opt_num(ddb_item_get(it, "rcu"), INT64_MAX, &out->rcu) ||
             !opt_num(ddb_item_get(it, "wcu"), INT64_MAX, &out->wcu))
        why = "its throughput is malformed";
    else if (ix && (ix->type != DDB_TL || ix->len > DDB_MAX_INDEXES))
        why = "its index list is malformed";
    ddb_index_def *xs = !why && ix && ix->len ? ddb_arena_alloc(a, ix->len * sizeof *xs) : NULL;
    if (!why && ix && ix->len && !xs)
        return ddbi_fail_oom(err, "loading a table definition");
    for (uint32_t i = 0; !why && ix && i < ix->len; i++)
        why = index_of(ix->u.l[i], a, &xs[i]);
    if (why && !why[0])
        return ddbi_fail_oom(err, "loading a table definition");
    if (why)
        return ddbi_fail_stored(err, name, NULL, 0, "the stored table definition is corrupt: %s", why);
    out->indexes = xs;
    out->n_indexes = ix ? ix->len : 0;
    ddb_error why_err = {0};
    if ((rc = ddbi_table_def_validate(out, &why_err)))
        return ddbi_fail_stored(err, name, NULL, 0, "the stored table definition is corrupt: %s", why_err.message);
    return DDB_OK;
}

/* ---- writing it ---- */

static int def_key(char *buf, size_t cap, const char *name)
{
    int n = snprintf(buf, cap, "t/%s", name);
    return (n < 0 || (size_t)n >= cap) ? -1 : n;
}

int ddbi_catalog_get(ddbi_engine *db, MDB_txn *txn, const char *name, ddb_arena *a, ddb_item **out, ddb_error *err)
{
    char key[600];
    int klen = def_key(key, sizeof key, name);
    MDB_val k = {(size_t)(klen < 0 ? 0 : klen), key}, v;
    if (klen < 0 || mdb_get(txn, db->meta, &k, &v) || ddbi_decode_item(v.mv_data, v.mv_size, a, out))
        return ddbi_fail_stored(err, name, NULL, 0, "the stored table definition is unreadable");
    return DDB_OK;
}

int ddbi_catalog_put(ddbi_engine *db, MDB_txn *txn, const char *name, const ddb_value *def, ddb_error *err)
{
    char key[600];
    int klen = def_key(key, sizeof key, name);
    if (klen < 0)
        return ddbi_fail(err, DDB_EVALIDATION, "table name of %zu bytes is too long", strlen(name));
    ddb_buf b = {0};
    ddb_arena *a = ddb_arena_new();
    int rc = a ? ddbi_encode_item(&b, def, 0) : DDB_ENOMEM;
    if (rc) {
        ddb_arena_free(a);
        ddbi_buf_free(&b);
        return ddbi_fail_oom(err, __func__);
    }
    /* the round trip: what the loader will read, checked as it checks it */
    ddb_table_def back;
    ddb_error why = {0};
    rc = ddbi_catalog_decode(b.p, b.len, name, a, &back, &why);
    ddb_arena_free(a);
    if (rc) {
        ddbi_buf_free(&b);
        return rc == DDB_ENOMEM ? ddbi_fail_oom(err, __func__)
                                : ddbi_fail(err, DDB_EVALIDATION,
                                            "table %s: the definition was not stored, it would not load back (%s)",
                                            name, why.message);
    }
    MDB_val k = {(size_t)klen, key}, v = {b.len, b.p};
    rc = ddbi_kv_put(db, txn, db->meta, &k, &v, 0);
    ddbi_buf_free(&b);
    return rc ? ddbi_mdb_fail(err, rc, "storing the table definition") : DDB_OK;
}
