/* Mapping a prepared KeyConditionExpression onto a key schema: the
 * partition key value and the sort key operator and bounds of ddb_query. */
#include "expr/expr.h"

#include "core/error.h"

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

int ddbi_expr_key_condition(const ddb_expr *e, const ddb_key_schema *key, const ddb_item *values,
                           ddb_key_condition *out, ddb_error *err)
{
    if (!e || e->kind != DDB_EXPR_KEY_CONDITION || !key || !key->pk || !out)
        return ddbi_fail(err, DDB_EINVAL, "ddbi_expr_key_condition needs a key condition, a key schema and out");
    memset(out, 0, sizeof *out);
    int rc = ddbi_expr_check_values(e, values, err);
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
