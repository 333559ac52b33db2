/* Building DynamoDB JSON requests: fields, items, expressions with their
 * ExpressionAttributeNames, projections, capacity. */
#include "remote/remote_wire.h"

#include <ddb/json.h>
#include "core/error.h"
#include "expr/expr.h"

#include <stdio.h>
#include <string.h>

static int nomem(ddb_error *err)
{
    return ddbi_fail_oom(err, "building a request");
}

int ddbi_remote_req_init(remote_req *q, ddb_error *err)
{
    memset(q, 0, sizeof *q);
    q->j = json_object();
    q->tmp = ddb_arena_new();
    if (!q->j || !q->tmp) {
        ddbi_remote_req_free(q);
        return nomem(err);
    }
    q->names.arena = q->tmp;
    return DDB_OK;
}

void ddbi_remote_req_free(remote_req *q)
{
    json_decref(q->j);
    ddb_arena_free(q->tmp);
    memset(q, 0, sizeof *q);
}

void ddbi_rq_names_reset(remote_req *q, ddb_wire_names *m)
{
    memset(m, 0, sizeof *m);
    m->arena = q->tmp;
}

static int set_new(json_t *o, const char *key, json_t *v, ddb_error *err)
{
    if (!v || json_object_set_new(o, key, v) != 0)
        return nomem(err);
    return DDB_OK;
}

int ddbi_rq_str(json_t *o, const char *key, const char *s, ddb_error *err)
{
    json_t *v = json_string(s);
    if (!v)
        return ddbi_fail(err, DDB_EVALIDATION, "%s \"%.64s\" is not valid UTF-8", key, s);
    return set_new(o, key, v, err);
}

int ddbi_rq_bool(json_t *o, const char *key, bool v, ddb_error *err)
{
    return set_new(o, key, json_boolean(v), err);
}

int ddbi_rq_int(json_t *o, const char *key, long long v, ddb_error *err)
{
    return set_new(o, key, json_integer(v), err);
}

int ddbi_rq_item(json_t *o, const char *key, const ddb_item *it, ddb_error *err)
{
    json_t *v;
    int rc = ddb_json_from_item(it, &v, err);
    return rc ? rc : set_new(o, key, v, err);
}

static int set_text(json_t *o, const char *key, ddb_buf *b, ddb_error *err)
{
    json_t *v = json_stringn(b->len ? (const char *)b->p : "", b->len);
    ddbi_buf_free(b);
    return set_new(o, key, v, err);
}

int ddbi_rq_expr(json_t *o, const char *key, const ddb_expr *e, ddb_wire_names *m, ddb_error *err)
{
    if (!e)
        return DDB_OK;
    ddb_buf b = {0};
    int rc = ddbi_expr_render(e, m, &b, err);
    if (rc) {
        ddbi_buf_free(&b);
        return rc;
    }
    return set_text(o, key, &b, err);
}

static bool has_name(const char *const *v, size_t n, const char *s, size_t len)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] && strlen(v[i]) == len && memcmp(v[i], s, len) == 0)
            return true;
    return false;
}

int ddbi_rq_projection(json_t *o, const ddb_expr *proj, const char *const *attrs, size_t n_attrs,
                  const char *const *extra, size_t n_extra, ddb_wire_names *m, ddb_error *err)
{
    if (!proj && !attrs)
        return DDB_OK; /* everything comes back, key attributes included */
    if (proj && ddb_expr_get_kind(proj) != DDB_EXPR_PROJECTION)
        return ddbi_fail(err, DDB_EINVAL, "the projection is a %s, not a ProjectionExpression",
                        ddb_expr_kind_name(ddb_expr_get_kind(proj)));
    /* Whole top-level attributes asked for: attrs and extra, once each; a
     * projection path under one of them is covered by it (sending both
     * would be rejected as overlapping paths). */
    ddb_buf b = {0};
    int rc = DDB_OK;
    bool first = true;
    for (size_t i = 0; proj && i < proj->npaths && !rc; i++) {
        const expr_path *p = &proj->paths[i];
        const expr_pelem *top = &p->el[0];
        if (top->name &&
            (has_name(attrs, n_attrs, top->name, top->len) || has_name(extra, n_extra, top->name, top->len)))
            continue;
        rc = (!first && ddbi_buf_put(&b, ", ", 2)) ? DDB_ENOMEM : ddbi_wire_render_path(p, m, &b);
        first = false;
    }
    for (size_t pass = 0; pass < 2 && !rc; pass++) {
        const char *const *v = pass ? extra : attrs;
        size_t n = pass ? n_extra : n_attrs;
        for (size_t i = 0; i < n && !rc; i++) {
            if (!v[i])
                continue;
            size_t len = strlen(v[i]);
            if (has_name(v, i, v[i], len) || (pass && has_name(attrs, n_attrs, v[i], len)))
                continue; /* already there */
            rc = (!first && ddbi_buf_put(&b, ", ", 2)) ? DDB_ENOMEM : ddbi_wire_name_ref(m, v[i], len, &b);
            first = false;
        }
    }
    if (rc) {
        ddbi_buf_free(&b);
        return nomem(err);
    }
    if (first) {
        ddbi_buf_free(&b);
        return ddbi_fail(err, DDB_EINVAL, "an empty list of attributes to project");
    }
    return set_text(o, "ProjectionExpression", &b, err);
}

int ddbi_rq_names_values(json_t *o, const ddb_wire_names *m, const ddb_item *values, ddb_error *err)
{
    int rc;
    if (m && m->n) {
        json_t *names = json_object();
        if (!names)
            return nomem(err);
        for (size_t i = 0; i < m->n; i++) {
            char ph[32];
            snprintf(ph, sizeof ph, "#n%zu", i);
            json_t *s = json_stringn(m->names[i], m->lens[i]);
            if (!s) {
                json_decref(names);
                return ddbi_fail(err, DDB_EVALIDATION, "attribute name \"%.*s\" is not valid UTF-8",
                                (int)(m->lens[i] > 64 ? 64 : m->lens[i]), m->names[i]);
            }
            if (json_object_set_new(names, ph, s) != 0) {
                json_decref(names);
                return nomem(err);
            }
        }
        if ((rc = set_new(o, "ExpressionAttributeNames", names, err)))
            return rc;
    }
    if (values && (rc = ddbi_rq_item(o, "ExpressionAttributeValues", values, err)))
        return rc;
    return DDB_OK;
}

int ddbi_rq_capacity(json_t *o, ddb_return_capacity rc, ddb_error *err)
{
    if (rc == DDB_CAPACITY_NONE)
        return DDB_OK;
    if ((unsigned)rc > DDB_CAPACITY_INDEXES)
        return ddbi_fail(err, DDB_EINVAL, "unknown return_capacity %d", (int)rc);
    return ddbi_rq_str(o, "ReturnConsumedCapacity", "INDEXES", err);
}
