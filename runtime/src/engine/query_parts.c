/* engine/: a Query of an index with a multi-attribute key (query_parts.h).
 * The key range is built from the sort forms of key_parts.h: the
 * equalities' forms are a prefix every matching key starts with, and the
 * range condition bounds the next attribute's form.  Long keys (a sort part
 * cut to its first DDB_SK_INLINE bytes) make the bounds approximate, so
 * every item found is checked against the condition itself.  May call
 * core/ and expr/. */
#include "engine/query_parts.h"

#include "core/error.h"

#include <string.h>

/* Append the sort form of v (terminated or not) to a bound, cut where a
 * stored key's inline sort part ends. */
static void bound_add(uint8_t *b, size_t *len, const ddb_value *v, bool terminated)
{
    uint8_t part[DDB_KEY_PART_MAX];
    size_t n = ddbi_key_part_encode(v, terminated, part);
    size_t room = DDB_DIGEST_LEN + DDB_SK_INLINE - *len;
    if (*len > DDB_DIGEST_LEN + DDB_SK_INLINE)
        room = 0;
    if (n > room)
        n = room;
    memcpy(b + *len, part, n);
    *len += n;
}

int ddbi_qparts_prepare(const ddb_index_rt *x, const ddb_query_params *q, ddbi_qparts *m, ddb_error *err)
{
    memset(m, 0, sizeof *m);
    m->x = x;
    if (!q->key_condition)
        return ddbi_fail(err, DDB_EVALIDATION,
                         "Query: index %s has a multi-attribute key; give its condition as a KeyConditionExpression "
                         "(key_condition), not pk/sk_op",
                         x->name);
    ddb_key_schema ks;
    ddb_key_part more[2 * (DDB_MAX_KEY_ATTRS - 1)];
    ddbi_index_key_schema(x, &ks, more);
    int rc = ddbi_expr_key_condition_parts(q->key_condition, &ks, q->values, &m->kc, err);
    if (rc)
        return rc;
    m->n = ddbi_key_schema_attrs(&ks, m->names, m->types, &m->n_pk);
    const ddb_key_condition_parts *kc = &m->kc;
    for (size_t i = 0; i < kc->n_pk; i++)
        if ((rc = ddbi_keys_check_value(m->names[i], kc->pk[i], m->types[i], true, NULL, err)))
            return rc;
    for (size_t i = 0; i < kc->n_sk_eq; i++)
        if ((rc = ddbi_keys_check_value(m->names[m->n_pk + i], kc->sk_eq[i], m->types[m->n_pk + i], false, NULL,
                                        err)))
            return rc;
    const char *rname = kc->op != DDB_SK_ANY ? m->names[m->n_pk + kc->n_sk_eq] : NULL;
    ddb_type rtype = kc->op != DDB_SK_ANY ? m->types[m->n_pk + kc->n_sk_eq] : DDB_TS;
    if (rname && ((rc = ddbi_keys_check_value(rname, kc->v1, rtype, false, NULL, err)) ||
                  (kc->v2 && (rc = ddbi_keys_check_value(rname, kc->v2, rtype, false, NULL, err)))))
        return rc;
    if (kc->op == DDB_SK_BEGINS_WITH && rtype == DDB_TN)
        return ddbi_fail(err, DDB_EVALIDATION,
                         "Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or "
                         "function: begins_with, operand type: N (sort key %s)",
                         rname);
    if (kc->op == DDB_SK_BETWEEN && ddb_value_compare(kc->v1, kc->v2) > 0)
        return ddbi_fail(err, DDB_EVALIDATION,
                         "Invalid KeyConditionExpression: The BETWEEN operator requires upper bound to be greater than "
                         "or equal to lower bound (sort key %s)",
                         rname);
    ddbi_key_parts_digest(kc->pk, kc->n_pk, m->lo);
    m->lolen = DDB_DIGEST_LEN;
    for (size_t i = 0; i < kc->n_sk_eq; i++)
        bound_add(m->lo, &m->lolen, kc->sk_eq[i], true);
    memcpy(m->hi, m->lo, m->lolen);
    m->hilen = m->lolen;
    switch (kc->op) {
    case DDB_SK_BEGINS_WITH:
        bound_add(m->lo, &m->lolen, kc->v1, false);
        bound_add(m->hi, &m->hilen, kc->v1, false);
        break;
    case DDB_SK_LT:
    case DDB_SK_LE:
        bound_add(m->hi, &m->hilen, kc->v1, true);
        break;
    case DDB_SK_GT:
    case DDB_SK_GE:
        bound_add(m->lo, &m->lolen, kc->v1, true);
        break;
    case DDB_SK_BETWEEN:
        bound_add(m->lo, &m->lolen, kc->v1, true);
        bound_add(m->hi, &m->hilen, kc->v2, true);
        break;
    default:
        break;
    }
    return DDB_OK;
}

int ddbi_qparts_start(ddbi_qparts *m, const ddb_item *start, bool backward, ddb_error *err)
{
    for (size_t i = 0; i < m->n_pk; i++)
        if (!ddb_value_equal(ddb_item_get(start, m->names[i]), m->kc.pk[i]))
            return ddbi_fail(err, DDB_EVALIDATION,
                             "The provided starting key is outside query boundaries based on provided conditions");
    if (m->n == m->n_pk)
        return DDB_OK;
    /* the start's sort form, cut as a stored key is: keys before it (after
     * it, backward) cannot follow the start */
    uint8_t b[DDB_KEY_MAX];
    size_t len = DDB_DIGEST_LEN;
    memcpy(b, m->lo, DDB_DIGEST_LEN);
    for (size_t i = m->n_pk; i < m->n; i++)
        bound_add(b, &len, ddb_item_get(start, m->names[i]), true);
    uint8_t *cur = backward ? m->hi : m->lo;
    size_t *curlen = backward ? &m->hilen : &m->lolen;
    size_t k = len < *curlen ? len : *curlen;
    int c = memcmp(b, cur, k);
    if (!c)
        c = len < *curlen ? -1 : len > *curlen;
    if (backward ? c < 0 : c > 0) {
        memcpy(cur, b, len);
        *curlen = len;
    }
    return DDB_OK;
}

bool ddbi_qparts_match(const ddbi_qparts *m, const ddb_item *item)
{
    const ddb_key_condition_parts *kc = &m->kc;
    for (size_t i = 0; i < m->n_pk; i++)
        if (!ddb_value_equal(ddb_item_get(item, m->names[i]), kc->pk[i]))
            return false; /* a digest collision with another partition */
    for (size_t i = 0; i < kc->n_sk_eq; i++)
        if (!ddb_value_equal(ddb_item_get(item, m->names[m->n_pk + i]), kc->sk_eq[i]))
            return false;
    if (kc->op == DDB_SK_ANY)
        return true;
    return ddbi_keys_op_matches(ddb_item_get(item, m->names[m->n_pk + kc->n_sk_eq]), kc->op, kc->v1, kc->v2);
}

int ddbi_qparts_cmp(const ddbi_qparts *m, const ddb_item *a, const ddb_item *b)
{
    for (size_t i = m->n_pk; i < m->n; i++) {
        const ddb_value *x = ddb_item_get(a, m->names[i]), *y = ddb_item_get(b, m->names[i]);
        if (!x || !y)
            return !x - !y;
        int c = ddb_value_compare(x, y);
        if (c)
            return c;
    }
    return 0;
}
