/* Key attributes: presence, types, sizes; index membership; projections. */
#include "engine/keys.h"

#include "core/error.h"
#include "core/key_parts.h"
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

void ddbi_index_key_schema(const ddb_index_rt *x, ddb_key_schema *k, ddb_key_part *more)
{
    *k = (ddb_key_schema){.pk = x->pk, .pk_type = x->pk_type, .sk = x->sk, .sk_type = x->sk_type};
    for (size_t i = 0; i < x->n_pk_more; i++)
        more[i] = (ddb_key_part){x->pk_more[i], x->pk_more_type[i]};
    for (size_t i = 0; i < x->n_sk_more; i++)
        more[x->n_pk_more + i] = (ddb_key_part){x->sk_more[i], x->sk_more_type[i]};
    k->pk_more = x->n_pk_more ? more : NULL;
    k->n_pk_more = x->n_pk_more;
    k->sk_more = x->n_sk_more ? more + x->n_pk_more : NULL;
    k->n_sk_more = x->n_sk_more;
}

size_t ddbi_index_key_attrs(const ddb_index_rt *x, const char **names, ddb_type *types, size_t *n_pk)
{
    ddb_key_schema k;
    ddb_key_part more[2 * (DDB_MAX_KEY_ATTRS - 1)];
    ddbi_index_key_schema(x, &k, more);
    return ddbi_key_schema_attrs(&k, names, types, n_pk);
}

/* Every key attribute of index x in item, checked: vals (room 2 *
 * DDB_MAX_KEY_ATTRS) gets each (NULL when absent); 1 when all are there. */
static int index_values(const ddb_index_rt *x, const ddb_item *item, const ddb_value **vals, size_t *n_pk,
                        size_t *n, ddb_error *err)
{
    const char *names[2 * DDB_MAX_KEY_ATTRS];
    ddb_type types[2 * DDB_MAX_KEY_ATTRS];
    *n = ddbi_index_key_attrs(x, names, types, n_pk);
    bool all = true;
    for (size_t i = 0; i < *n; i++) {
        vals[i] = ddb_item_get(item, names[i]);
        int rc;
        if (vals[i] && (rc = ddbi_keys_check_value(names[i], vals[i], types[i], i < *n_pk, x->name, err)))
            return rc;
        all &= vals[i] != NULL;
    }
    return all ? 1 : 0;
}

bool ddbi_keys_op_matches(const ddb_value *v, ddb_key_op op, const ddb_value *v1, const ddb_value *v2)
{
    if (!v || v->type != v1->type)
        return false;
    int c = ddb_value_compare(v, v1);
    switch (op) {
    case DDB_SK_EQ:
        return c == 0;
    case DDB_SK_LT:
        return c < 0;
    case DDB_SK_LE:
        return c <= 0;
    case DDB_SK_GT:
        return c > 0;
    case DDB_SK_GE:
        return c >= 0;
    case DDB_SK_BETWEEN:
        return c >= 0 && ddb_value_compare(v, v2) <= 0;
    case DDB_SK_BEGINS_WITH:
        return v->len >= v1->len && memcmp(v->u.s, v1->u.s, v1->len) == 0;
    default:
        return false;
    }
}

int ddbi_keys_index(const ddb_index_rt *x, const ddb_item *item, const ddb_value **pk, const ddb_value **sk,
                   ddb_error *err)
{
    const ddb_value *vals[2 * DDB_MAX_KEY_ATTRS];
    size_t n_pk, n;
    int in = index_values(x, item, vals, &n_pk, &n, err);
    *pk = vals[0];
    *sk = n > n_pk ? vals[n_pk] : NULL;
    return in;
}

int ddbi_keys_index_key(const ddb_index_rt *x, const ddb_item *item, ddb_key *k, ddb_error *err)
{
    const ddb_value *vals[2 * DDB_MAX_KEY_ATTRS];
    size_t n_pk, n;
    int in = index_values(x, item, vals, &n_pk, &n, err);
    if (in <= 0)
        return in;
    if (!ddbi_index_multi(x)) {
        ddbi_key_make(k, vals[0], n > 1 ? vals[1] : NULL);
        return 1;
    }
    uint8_t scratch[DDB_KEY_PARTS_MAX];
    if (!ddbi_key_parts_make(k, vals, n_pk, vals + n_pk, n - n_pk, scratch))
        return ddbi_fail(err, DDB_EINVAL, "index %s: a key attribute of the item does not encode", x->name);
    return 1;
}

bool ddbi_keys_index_projects(const ddb_table_rt *t, const ddb_index_rt *x, const char *name)
{
    if (x->proj == DDB_PROJ_ALL)
        return true;
    if (strcmp(name, t->pk) == 0 || (t->sk && strcmp(name, t->sk) == 0))
        return true;
    const char *names[2 * DDB_MAX_KEY_ATTRS];
    ddb_type types[2 * DDB_MAX_KEY_ATTRS];
    size_t n = ddbi_index_key_attrs(x, names, types, NULL);
    for (size_t i = 0; i < n; i++)
        if (strcmp(name, names[i]) == 0)
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
    const char *names[2 + 2 * DDB_MAX_KEY_ATTRS];
    ddb_type types[2 + 2 * DDB_MAX_KEY_ATTRS];
    size_t n = 0, nc = 2;
    const char *cand[2 + 2 * DDB_MAX_KEY_ATTRS] = {t->pk, t->sk};
    ddb_type ctyp[2 + 2 * DDB_MAX_KEY_ATTRS] = {t->pk_type, t->sk_type};
    if (x)
        nc += ddbi_index_key_attrs(x, cand + 2, ctyp + 2, NULL);
    for (size_t i = 0; i < nc; i++) {
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
    const char *keys[2], *ixk[DDBI_INDEX_KEYS_MAX];
    size_t nix, nk = ddbi_keys_names(t, keys, ixk, &nix);
    const char *cand[3 + DDBI_INDEX_KEYS_MAX];
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
        ddb_type types[2 * DDB_MAX_KEY_ATTRS];
        nix += ddbi_index_key_attrs(&t->idx[i], index_keys + nix, types, NULL);
    }
    *n_index_keys = nix;
    return t->sk ? 2 : 1;
}

int ddbi_keys_check_paths(const ddb_table_rt *t, const ddb_expr *const *exprs, size_t n, ddb_error *err)
{
    const char *keys[2], *ixk[DDBI_INDEX_KEYS_MAX];
    size_t nix, nk = ddbi_keys_names(t, keys, ixk, &nix);
    return ddbi_expr_check_key_paths(exprs, n, keys, nk, ixk, nix, err);
}
