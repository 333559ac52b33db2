/* Key attributes: presence, types, sizes; index membership; projections. */
#include "engine/keys.h"

#include "core/error.h"
#include "core/value.h"
#include "expr/expr.h"

#include <string.h>

int ddbi_keys_check_value(const char *name, const ddb_value *v, ddb_type want, bool partition, const char *index,
                         ddb_error *err)
{
    if (v->type != want && index)
        return ddbi_fail(err, DDB_EVALIDATION,
                        "One or more parameter values were invalid: Type mismatch for Index Key %s Expected: %s "
                        "Actual: %s IndexName: %s",
                        name, ddb_type_name(want), ddb_type_name(v->type), index);
    if (v->type != want)
        return ddbi_fail(err, DDB_EVALIDATION,
                        "One or more parameter values were invalid: Type mismatch for key %s expected: %s actual: %s",
                        name, ddb_type_name(want), ddb_type_name(v->type));
    const char *what = v->type == DDB_TS ? "string" : "binary";
    if ((v->type == DDB_TS || v->type == DDB_TB) && v->len == 0 && index)
        return ddbi_fail(err, DDB_EVALIDATION,
                        "One or more parameter values are not valid. A value specified for a secondary index key is "
                        "not supported. The AttributeValue for a key attribute cannot contain an empty %s value. "
                        "IndexName: %s, IndexKey: %s",
                        what, index, name);
    if ((v->type == DDB_TS || v->type == DDB_TB) && v->len == 0)
        return ddbi_fail(err, DDB_EVALIDATION,
                        "One or more parameter values are not valid. The AttributeValue for a key attribute cannot "
                        "contain an empty %s value. Key: %s",
                        what, name);
    /* DynamoDB's texts, its missing space ("of2048") included */
    if (v->type != DDB_TN && partition && v->len > DDB_PK_MAX)
        return ddbi_fail(err, DDB_ELIMIT,
                        "One or more parameter values were invalid: Size of hashkey has exceeded the maximum size "
                        "limit of2048 bytes (key %s is %u bytes)",
                        name, v->len);
    if (v->type != DDB_TN && !partition && v->len > DDB_SK_MAX)
        return ddbi_fail(err, DDB_ELIMIT,
                        "One or more parameter values were invalid: Aggregated size of all range keys has exceeded "
                        "the size limit of 1024 bytes (key %s is %u bytes)",
                        name, v->len);
    return DDB_OK;
}

int ddbi_keys_table(const ddb_table_rt *t, const ddb_item *item, const ddb_value **pk, const ddb_value **sk,
                   ddb_error *err)
{
    *pk = ddb_item_get(item, t->pk);
    *sk = NULL;
    if (!*pk)
        return ddbi_fail(err, DDB_EVALIDATION,
                        "One or more parameter values were invalid: Missing the key %s in the item", t->pk);
    int rc = ddbi_keys_check_value(t->pk, *pk, t->pk_type, true, NULL, err);
    if (rc || !t->sk)
        return rc;
    *sk = ddb_item_get(item, t->sk);
    if (!*sk)
        return ddbi_fail(err, DDB_EVALIDATION,
                        "One or more parameter values were invalid: Missing the key %s in the item", t->sk);
    return ddbi_keys_check_value(t->sk, *sk, t->sk_type, false, NULL, err);
}

int ddbi_keys_exact(const ddb_table_rt *t, const ddb_item *key, const ddb_value **pk, const ddb_value **sk,
                   ddb_error *err)
{
    if (!key)
        return ddbi_fail(err, DDB_EINVAL, "key item is NULL");
    size_t want = t->sk ? 2 : 1;
    *pk = ddb_item_count(key) == want ? ddb_item_get(key, t->pk) : NULL;
    *sk = *pk && t->sk ? ddb_item_get(key, t->sk) : NULL;
    if (!*pk || (t->sk && !*sk))
        return ddbi_fail(err, DDB_EVALIDATION,
                        "The provided key element does not match the schema: table %s has key %s%s%s", t->name,
                        t->pk, t->sk ? ", " : "", t->sk ? t->sk : "");
    int rc = ddbi_keys_check_value(t->pk, *pk, t->pk_type, true, NULL, err);
    return rc || !t->sk ? rc : ddbi_keys_check_value(t->sk, *sk, t->sk_type, false, NULL, err);
}

int ddbi_keys_index(const ddb_index_rt *x, const ddb_item *item, const ddb_value **pk, const ddb_value **sk,
                   ddb_error *err)
{
    *pk = ddb_item_get(item, x->pk);
    *sk = x->sk ? ddb_item_get(item, x->sk) : NULL;
    int rc;
    if (*pk && (rc = ddbi_keys_check_value(x->pk, *pk, x->pk_type, true, x->name, err)))
        return rc;
    if (*sk && (rc = ddbi_keys_check_value(x->sk, *sk, x->sk_type, false, x->name, err)))
        return rc;
    return *pk && (!x->sk || *sk) ? 1 : 0;
}

bool ddbi_keys_index_projects(const ddb_table_rt *t, const ddb_index_rt *x, const char *name)
{
    if (x->proj == DDB_PROJ_ALL)
        return true;
    if (strcmp(name, t->pk) == 0 || (t->sk && strcmp(name, t->sk) == 0) || strcmp(name, x->pk) == 0 ||
        (x->sk && strcmp(name, x->sk) == 0))
        return true;
    for (size_t i = 0; i < x->n_include; i++)
        if (strcmp(name, x->include[i]) == 0)
            return true;
    return false;
}

size_t ddbi_keys_projected_size(const ddb_table_rt *t, const ddb_index_rt *x, const ddb_item *item)
{
    if (x->proj == DDB_PROJ_ALL)
        return ddb_item_size(item);
    const ddb_value *m = ddb_item_map(item);
    size_t n = 0;
    for (uint32_t i = 0; i < m->len; i++)
        if (ddbi_keys_index_projects(t, x, m->u.m[i].name))
            n += m->u.m[i].name_len + ddb_value_size(m->u.m[i].value);
    return n;
}

ddb_item *ddbi_keys_project_index(ddb_arena *a, const ddb_table_rt *t, const ddb_index_rt *x, const ddb_item *item)
{
    if (x->proj == DDB_PROJ_ALL)
        return (ddb_item *)item;
    ddb_item *out = ddb_item_new(a);
    const ddb_value *m = ddb_item_map(item);
    for (uint32_t i = 0; out && i < m->len; i++)
        if (ddbi_keys_index_projects(t, x, m->u.m[i].name) && ddb_item_set(out, m->u.m[i].name, m->u.m[i].value))
            return NULL;
    return out;
}

ddb_item *ddbi_keys_project(ddb_arena *a, const ddb_item *item, const char *const *names, size_t n)
{
    ddb_item *out = ddb_item_new(a);
    for (size_t i = 0; out && i < n; i++) {
        const ddb_value *v = ddb_item_get(item, names[i]);
        if (v && ddb_item_set(out, names[i], (ddb_value *)v))
            return NULL;
    }
    return out;
}

int ddbi_keys_start(const ddb_table_rt *t, const ddb_index_rt *x, const ddb_item *start, bool table_scan,
                    ddb_error *err)
{
    const char *names[4];
    ddb_type types[4];
    size_t n = 0;
    const char *cand[4] = {t->pk, t->sk, x ? x->pk : NULL, x ? x->sk : NULL};
    ddb_type ctyp[4] = {t->pk_type, t->sk_type, x ? x->pk_type : DDB_TS, x ? x->sk_type : DDB_TS};
    for (size_t i = 0; i < 4; i++) {
        bool dup = !cand[i];
        for (size_t j = 0; j < n && !dup; j++)
            dup = strcmp(names[j], cand[i]) == 0;
        if (!dup) {
            names[n] = cand[i];
            types[n++] = ctyp[i];
        }
    }
    const char *msg = table_scan ? "The provided starting key is invalid: The provided key element does not match the "
                                   "schema"
                                 : "The provided starting key is invalid";
    for (size_t i = 0; i < n; i++) {
        const ddb_value *v = ddb_item_get(start, names[i]);
        if (!v)
            return ddbi_fail(err, DDB_EVALIDATION, "%s (ExclusiveStartKey lacks the key attribute %s)", msg, names[i]);
        if (v->type != types[i])
            return ddbi_fail(err, DDB_EVALIDATION, "%s (ExclusiveStartKey attribute %s is %s, the key schema says %s)",
                            msg, names[i], ddb_type_name(v->type), ddb_type_name(types[i]));
    }
    if (ddb_item_count(start) != n)
        return ddbi_fail(err, DDB_EVALIDATION, "%s (ExclusiveStartKey has %zu attributes, the key schema %zu)", msg,
                        ddb_item_count(start), n);
    return DDB_OK;
}

void ddbi_keys_hint_names(const ddb_table_rt *t, ddbi_hint_names *h)
{
    const char *keys[2], *ixk[2 * DDB_MAX_INDEXES];
    size_t nix, nk = ddbi_keys_names(t, keys, ixk, &nix);
    const char *cand[3 + 2 * DDB_MAX_INDEXES];
    size_t nc = 0;
    for (size_t i = 0; i < nk; i++)
        cand[nc++] = keys[i];
    if (t->ttl_attr[0])
        cand[nc++] = t->ttl_attr;
    for (size_t i = 0; i < nix; i++)
        cand[nc++] = ixk[i];
    h->n = 0;
    for (size_t i = 0; i < nc && h->n < DDBI_HINT_MAX; i++) {
        bool dup = false;
        for (uint32_t j = 0; j < h->n && !dup; j++)
            dup = strcmp(h->name[j], cand[i]) == 0;
        if (!dup) {
            h->name[h->n] = cand[i];
            h->len[h->n++] = (uint32_t)strlen(cand[i]);
        }
    }
}

size_t ddbi_keys_names(const ddb_table_rt *t, const char **keys, const char **index_keys, size_t *n_index_keys)
{
    keys[0] = t->pk;
    keys[1] = t->sk;
    size_t nix = 0;
    for (size_t i = 0; i < t->n_idx; i++) {
        index_keys[nix++] = t->idx[i].pk;
        if (t->idx[i].sk)
            index_keys[nix++] = t->idx[i].sk;
    }
    *n_index_keys = nix;
    return t->sk ? 2 : 1;
}

int ddbi_keys_check_paths(const ddb_table_rt *t, const ddb_expr *const *exprs, size_t n, ddb_error *err)
{
    const char *keys[2], *ixk[2 * DDB_MAX_INDEXES];
    size_t nix, nk = ddbi_keys_names(t, keys, ixk, &nix);
    return ddbi_expr_check_key_paths(exprs, n, keys, nk, ixk, nix, err);
}
