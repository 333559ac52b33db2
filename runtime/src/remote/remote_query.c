/* remote/: Remote Query and Scan.
 * May call core/ and expr/. */
#include "remote/remote_wire.h"

#include "core/error.h"

#include <stdio.h>
#include <string.h>

/* A ":<prefix>..." that no value of the request starts with, so the key
 * condition's own values cannot collide with the filter's. */
static void value_prefix(const ddb_item *values, char *out, size_t cap)
{
    size_t under = 0;
    for (;;) {
        snprintf(out, cap, ":%.*sk", (int)under, "________________");
        size_t len = strlen(out);
        bool clash = false;
        const ddb_value *m = values ? ddb_item_map(values) : NULL;
        for (uint32_t i = 0; m && i < m->len && !clash; i++)
            clash = m->u.m[i].name_len >= len && memcmp(m->u.m[i].name, out, len) == 0;
        if (!clash || under == 16)
            return;
        under++;
    }
}

static int put(ddb_buf *b, const char *s)
{
    return ddbi_buf_put(b, s, strlen(s));
}

/* KeyConditionExpression and its values (added to vals). */
static int key_condition(const ddb_query_params *qp, const char *pk, const char *sk, ddb_wire_names *m,
                         ddb_item *vals, json_t *j, ddb_error *err)
{
    char pre[24], vpk[32], v1[32], v2[32];
    value_prefix(qp->values, pre, sizeof pre);
    snprintf(vpk, sizeof vpk, "%sp", pre);
    snprintf(v1, sizeof v1, "%s1", pre);
    snprintf(v2, sizeof v2, "%s2", pre);
    ddb_buf b = {0};
    int rc = ddbi_wire_name_ref(m, pk, strlen(pk), &b);
    if (!rc)
        rc = put(&b, " = ") || put(&b, vpk) ? DDB_ENOMEM : DDB_OK;
    if (!rc)
        rc = ddb_item_set(vals, vpk, (ddb_value *)qp->pk);
    if (!rc && qp->sk_op != DDB_SK_ANY) {
        static const char *const ops[] = {[DDB_SK_EQ] = " = ", [DDB_SK_LT] = " < ", [DDB_SK_LE] = " <= ",
                                          [DDB_SK_GT] = " > ", [DDB_SK_GE] = " >= "};
        rc = put(&b, " AND ");
        if (!rc && qp->sk_op == DDB_SK_BEGINS_WITH)
            rc = put(&b, "begins_with(") || ddbi_wire_name_ref(m, sk, strlen(sk), &b) || put(&b, ", ") ||
                         put(&b, v1) || put(&b, ")")
                     ? DDB_ENOMEM
                     : DDB_OK;
        else if (!rc && qp->sk_op == DDB_SK_BETWEEN)
            rc = ddbi_wire_name_ref(m, sk, strlen(sk), &b) || put(&b, " BETWEEN ") || put(&b, v1) ||
                         put(&b, " AND ") || put(&b, v2)
                     ? DDB_ENOMEM
                     : DDB_OK;
        else if (!rc)
            rc = ddbi_wire_name_ref(m, sk, strlen(sk), &b) || put(&b, ops[qp->sk_op]) || put(&b, v1) ? DDB_ENOMEM
                                                                                                    : DDB_OK;
        if (!rc)
            rc = ddb_item_set(vals, v1, (ddb_value *)qp->sk1);
        if (!rc && qp->sk_op == DDB_SK_BETWEEN)
            rc = ddb_item_set(vals, v2, (ddb_value *)qp->sk2);
    }
    json_t *s = rc ? NULL : json_stringn((const char *)b.p, b.len);
    ddbi_buf_free(&b);
    if (!s || json_object_set_new(j, "KeyConditionExpression", s))
        return ddbi_fail_oom(err, "building a request");
    return DDB_OK;
}

/* The request's values plus the key condition's (values linked, not copied). */
static ddb_item *values_copy(ddb_arena *a, const ddb_item *values)
{
    ddb_item *it = ddb_item_new(a);
    const ddb_value *m = values ? ddb_item_map(values) : NULL;
    for (uint32_t i = 0; it && m && i < m->len; i++)
        if (ddb_item_set(it, m->u.m[i].name, m->u.m[i].value))
            return NULL;
    return it;
}

static int query_once(ddb_remote *r, const ddb_query_params *qp, ddb_arena *a, ddb_page *out, ddb_error *err)
{
    remote_req q;
    int rc = ddbi_remote_req_init(&q, err);
    if (rc)
        return rc;
    json_t *resp = NULL;
    const char *pk = NULL, *sk = NULL;
    const ddb_item *vals = qp->values;
    if (!qp->key_condition) {
        /* the structured condition becomes a KeyConditionExpression on the
         * key attribute names, with values of its own beside the request's */
        ddb_item *all = values_copy(q.tmp, qp->values);
        if (!all) {
            rc = ddbi_fail_oom(err, __func__);
            goto done;
        }
        if ((rc = ddbi_remote_key_names(r, qp->table, qp->index, q.tmp, &pk, &sk, err)))
            goto done;
        if (qp->sk_op != DDB_SK_ANY && !sk) {
            rc = ddbi_fail(err, DDB_EVALIDATION, "Query condition on a sort key, but %s has no sort key",
                          qp->index ? qp->index : qp->table);
            goto done;
        }
        if ((rc = key_condition(qp, pk, sk, &q.names, all, q.j, err)))
            goto done;
        vals = all;
    } else if (ddb_expr_get_kind(qp->key_condition) != DDB_EXPR_KEY_CONDITION) {
        rc = ddbi_fail(err, DDB_EINVAL, "Query: key_condition is a %s, not a KeyConditionExpression",
                      ddb_expr_kind_name(ddb_expr_get_kind(qp->key_condition)));
        goto done;
    }
    if ((rc = ddbi_rq_str(q.j, "TableName", qp->table, err)) ||
        (qp->index && (rc = ddbi_rq_str(q.j, "IndexName", qp->index, err))) ||
        (rc = ddbi_rq_expr(q.j, "KeyConditionExpression", qp->key_condition, &q.names, err)) ||
        (rc = ddbi_rq_expr(q.j, "FilterExpression", qp->filter, &q.names, err)) ||
        (rc = ddbi_rq_projection(q.j, qp->projection, qp->attributes, qp->n_attributes, NULL, 0, &q.names, err)) ||
        (rc = ddbi_rq_names_values(q.j, &q.names, vals, err)) ||
        (qp->limit && (rc = ddbi_rq_int(q.j, "Limit", qp->limit, err))) ||
        (qp->backward && (rc = ddbi_rq_bool(q.j, "ScanIndexForward", false, err))) ||
        (qp->consistent && (rc = ddbi_rq_bool(q.j, "ConsistentRead", true, err))) ||
        (qp->start_key && (rc = ddbi_rq_item(q.j, "ExclusiveStartKey", qp->start_key, err))) ||
        (qp->select_all && !qp->projection && !qp->attributes && (rc = ddbi_rq_str(q.j, "Select", "ALL_ATTRIBUTES", err))) ||
        (rc = ddbi_rq_capacity(q.j, qp->return_capacity, err)))
        goto done;
    if (!(rc = ddbi_remote_call(r, "Query", q.j, &resp, NULL, err)))
        rc = ddbi_remote_parse_page("Query", resp, qp->return_capacity, a, out, err);
done:
    json_decref(resp);
    ddbi_remote_req_free(&q);
    return rc;
}

int ddbi_remote_query(void *impl, const ddb_query_params *q, ddb_arena *a, ddb_page *out, ddb_error *err)
{
    ddb_remote *r = impl;
    memset(out, 0, sizeof *out);
    if ((unsigned)q->sk_op > DDB_SK_BEGINS_WITH)
        return ddbi_fail(err, DDB_EINVAL, "Query: unknown sort key operator %d", (int)q->sk_op);
    if (!q->key_condition && q->sk_op != DDB_SK_ANY && (!q->sk1 || (q->sk_op == DDB_SK_BETWEEN && !q->sk2)))
        return ddbi_fail(err, DDB_EINVAL, "Query: the sort key condition needs its value(s)");
    ddb_error local, *e = err ? err : &local; /* the message decides the retry, also for a NULL err */
    int rc = query_once(r, q, a, out, e);
    if (rc == DDB_ENOTABLE ||
        (rc == DDB_EVALIDATION && !q->key_condition && strstr(e->message, "key schema element"))) {
        /* the cached key schema may be stale (table recreated elsewhere) */
        ddbi_remote_forget_table(r, q->table);
        if (rc == DDB_EVALIDATION) {
            memset(out, 0, sizeof *out);
            rc = query_once(r, q, a, out, e);
        }
    }
    return rc;
}

int ddbi_remote_scan(void *impl, const ddb_scan_params *s, ddb_arena *a, ddb_page *out, ddb_error *err)
{
    ddb_remote *r = impl;
    memset(out, 0, sizeof *out);
    remote_req q;
    int rc = ddbi_remote_req_init(&q, err);
    if (rc)
        return rc;
    json_t *resp = NULL;
    if ((rc = ddbi_rq_str(q.j, "TableName", s->table, err)) ||
        (s->index && (rc = ddbi_rq_str(q.j, "IndexName", s->index, err))) ||
        (rc = ddbi_rq_expr(q.j, "FilterExpression", s->filter, &q.names, err)) ||
        (rc = ddbi_rq_projection(q.j, s->projection, s->attributes, s->n_attributes, NULL, 0, &q.names, err)) ||
        (rc = ddbi_rq_names_values(q.j, &q.names, s->values, err)) ||
        (s->limit && (rc = ddbi_rq_int(q.j, "Limit", s->limit, err))) ||
        (s->consistent && (rc = ddbi_rq_bool(q.j, "ConsistentRead", true, err))) ||
        (s->start_key && (rc = ddbi_rq_item(q.j, "ExclusiveStartKey", s->start_key, err))) ||
        (s->select_all && !s->projection && !s->attributes && (rc = ddbi_rq_str(q.j, "Select", "ALL_ATTRIBUTES", err))) ||
        (s->total_segments && ((rc = ddbi_rq_int(q.j, "Segment", s->segment, err)) ||
                               (rc = ddbi_rq_int(q.j, "TotalSegments", s->total_segments, err)))) ||
        (rc = ddbi_rq_capacity(q.j, s->return_capacity, err)))
        goto done;
    if (!(rc = ddbi_remote_call(r, "Scan", q.j, &resp, NULL, err)))
        rc = ddbi_remote_parse_page("Scan", resp, s->return_capacity, a, out, err);
done:
    json_decref(resp);
    ddbi_remote_req_free(&q);
    return rc;
}
