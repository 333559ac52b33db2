/* Mapping a prepared KeyConditionExpression onto a key schema: the
 * partition key value and the sort key operator and bounds of ddb_query;
 * for a multi-attribute key, every partition-key value and the sort-key
 * attributes' equalities and range.  May call core/. */
#include "expr/expr.h"

#include "core/error.h"
#include "core/key_schema.h"

#include <string.h>

static bool is(const expr_keycond *kc, const char *name)
{
    return name && strlen(name) == kc->attr_len && memcmp(kc->attr, name, kc->attr_len) == 0;
}

static int type_mismatch(ddb_error *err)
{
    return ddbi_fail(err, DDB_EVALIDATION,
                    "One or more parameter values were invalid: Condition parameter type does not match schema type");
}

/* The arguments of a mapping (out, of size n, cleared) and the values the
 * expression uses. */
static int mapping_start(const ddb_expr *e, const ddb_key_schema *key, const ddb_item *values, void *out, size_t n,
                         ddb_error *err)
{
    if (!e || e->kind != DDB_EXPR_KEY_CONDITION || !key || !key->pk || !out)
        return ddbi_fail(err, DDB_EINVAL, "mapping a key condition needs a key condition, a key schema and out");
    memset(out, 0, n);
    return ddbi_expr_check_values(e, values, err);
}

int ddbi_expr_key_condition(const ddb_expr *e, const ddb_key_schema *key, const ddb_item *values,
                           ddb_key_condition *out, ddb_error *err)
{
    int rc = mapping_start(e, key, values, out, sizeof *out, err);
    if (rc)
        return rc;
    const expr_keycond *pk = NULL, *sk = NULL, *other = NULL;
    for (size_t i = 0; i < e->nkeyconds; i++) {
        const expr_keycond *kc = &e->keyconds[i];
        if (!pk && is(kc, key->pk))
            pk = kc;
        else if (key->sk && is(kc, key->sk))
            sk = kc;
        else
            other = kc;
    }
    if (e->nkeyconds > 2)
        return ddbi_fail(err, DDB_EVALIDATION, "Conditions can be of length 1 or 2 only");
    if (e->nkeyconds == 2 && !key->sk)
        return ddbi_fail(err, DDB_EVALIDATION, "Query key condition not supported");
    if (!pk)
        return ddbi_fail(err, DDB_EVALIDATION, "Query condition missed key schema element: %s", key->pk);
    if (other)
        return ddbi_fail(err, DDB_EVALIDATION, "Query condition missed key schema element: %s", key->sk);
    const ddb_value *pv = ddbi_expr_value_of(values, pk->v1);
    if (pv->type != key->pk_type)
        return type_mismatch(err);
    const ddb_value *s1 = NULL, *s2 = NULL;
    if (sk) {
        s1 = ddbi_expr_value_of(values, sk->v1);
        s2 = sk->v2 ? ddbi_expr_value_of(values, sk->v2) : NULL;
        if (s1->type != key->sk_type || (s2 && s2->type != key->sk_type))
            return type_mismatch(err);
    }
    if (pk->op != DDB_SK_EQ)
        return ddbi_fail(err, DDB_EVALIDATION, "Query key condition not supported");
    out->pk = pv;
    out->sk_op = sk ? sk->op : DDB_SK_ANY;
    out->sk1 = s1;
    out->sk2 = s2;
    return DDB_OK;
}

/* Multi-attribute keys (developer guide, GSI.DesignPattern.MultiAttributeKeys:
 * every partition-key attribute with equality; sort-key attributes left to
 * right, equality on each but the last one named, which may have a range
 * condition, no attribute skipped).  DynamoDB's classic messages where the
 * case is the classic one, with the attribute named after them. */
int ddbi_expr_key_condition_parts(const ddb_expr *e, const ddb_key_schema *key, const ddb_item *values,
                                  ddb_key_condition_parts *out, ddb_error *err)
{
    int rc = mapping_start(e, key, values, out, sizeof *out, err);
    if (rc)
        return rc;
    const char *names[2 * DDB_MAX_KEY_ATTRS];
    ddb_type types[2 * DDB_MAX_KEY_ATTRS];
    size_t n_pk, n = ddbi_key_schema_attrs(key, names, types, &n_pk);
    const expr_keycond *by[2 * DDB_MAX_KEY_ATTRS] = {0};
    for (size_t i = 0; i < e->nkeyconds; i++) {
        const expr_keycond *kc = &e->keyconds[i];
        size_t j = 0;
        while (j < n && !is(kc, names[j]))
            j++;
        if (j == n)
            return ddbi_fail(err, DDB_EVALIDATION,
                             "Query key condition not supported (%.*s is not a key attribute of the index)",
                             (int)kc->attr_len, kc->attr);
        by[j] = kc;
    }
    for (size_t j = 0; j < n_pk; j++) {
        if (!by[j])
            return ddbi_fail(err, DDB_EVALIDATION, "Query condition missed key schema element: %s", names[j]);
        if (by[j]->op != DDB_SK_EQ)
            return ddbi_fail(err, DDB_EVALIDATION,
                             "Query key condition not supported (partition key attribute %s needs an equality)",
                             names[j]);
        const ddb_value *v = ddbi_expr_value_of(values, by[j]->v1);
        if (v->type != types[j])
            return type_mismatch(err);
        out->pk[out->n_pk++] = v;
    }
    size_t last = n_pk; /* one past the last sort-key attribute named */
    for (size_t j = n_pk; j < n; j++)
        if (by[j])
            last = j + 1;
    for (size_t j = n_pk; j < last; j++) {
        if (!by[j])
            return ddbi_fail(err, DDB_EVALIDATION,
                             "Query key condition not supported (sort key attribute %s is named but %s before it is "
                             "not: sort key attributes are named left to right)",
                             names[last - 1], names[j]);
        const ddb_value *v1 = ddbi_expr_value_of(values, by[j]->v1);
        const ddb_value *v2 = by[j]->v2 ? ddbi_expr_value_of(values, by[j]->v2) : NULL;
        if (v1->type != types[j] || (v2 && v2->type != types[j]))
            return type_mismatch(err);
        if (j + 1 < last && by[j]->op != DDB_SK_EQ)
            return ddbi_fail(err, DDB_EVALIDATION,
                             "Query key condition not supported (only the last sort key attribute named may have a "
                             "range condition; %s has one and %s follows)",
                             names[j], names[j + 1]);
        if (j + 1 < last || by[j]->op == DDB_SK_EQ) {
            out->sk_eq[out->n_sk_eq++] = v1;
        } else {
            out->op = by[j]->op;
            out->v1 = v1;
            out->v2 = v2;
        }
    }
    return DDB_OK;
}
