/* remote/: Remote item operations: PutItem, DeleteItem, UpdateItem, GetItem.
 * May call core/ and expr/. */
#include "remote/remote_wire.h"

#include "core/error.h"

#include <string.h>

static const char *const return_values[] = {"NONE", "ALL_OLD", "UPDATED_OLD", "ALL_NEW", "UPDATED_NEW"};

typedef enum { OP_PUT, OP_DELETE, OP_UPDATE } write_kind;

static const char *const op_names[] = {"PutItem", "DeleteItem", "UpdateItem"};

static int write_item(ddb_remote *r, write_kind k, const char *table, const ddb_item *item, const ddb_expr *update,
                      const ddb_write_opts *opts, ddb_arena *a, ddb_write_result *res, ddb_error *err)
{
    const char *op = op_names[k];
    if (k == OP_UPDATE && (!update || ddb_expr_get_kind(update) != DDB_EXPR_UPDATE))
        return ddbi_fail(err, DDB_EINVAL, "UpdateItem: a prepared UpdateExpression is required");
    ddb_write_opts o = opts ? *opts : (ddb_write_opts){0};
    if (res)
        memset(res, 0, sizeof *res);

    remote_req q;
    int rc = ddbi_remote_req_init(&q, err);
    if (rc)
        return rc;
    json_t *resp = NULL, *eb = NULL;
    if ((rc = ddbi_rq_str(q.j, "TableName", table, err)) || (rc = ddbi_rq_item(q.j, k == OP_PUT ? "Item" : "Key", item, err)) ||
        (rc = ddbi_rq_expr(q.j, "UpdateExpression", update, &q.names, err)) ||
        (rc = ddbi_rq_expr(q.j, "ConditionExpression", o.condition, &q.names, err)) ||
        (rc = ddbi_rq_names_values(q.j, &q.names, o.values, err)) ||
        (o.return_values && (rc = ddbi_rq_str(q.j, "ReturnValues", return_values[o.return_values], err))) ||
        (o.return_on_condition_failure == DDB_RETURN_ALL_OLD &&
         (rc = ddbi_rq_str(q.j, "ReturnValuesOnConditionCheckFailure", "ALL_OLD", err))) ||
        (res && (rc = ddbi_rq_capacity(q.j, o.return_capacity, err))))
        goto done;
    if ((rc = ddbi_remote_call(r, op, q.j, &resp, &eb, err))) {
        /* ConditionalCheckFailedException carries the stored item in Item
         * when the request asked ReturnValuesOnConditionCheckFailure ALL_OLD */
        if (rc == DDB_ECONDITION && res && a && o.return_on_condition_failure == DDB_RETURN_ALL_OLD && eb) {
            ddb_error keep = err ? *err : (ddb_error){0};
            int prc = ddbi_remote_parse_item(op, eb, "Item", a, &res->attributes, err);
            if (prc)
                rc = prc;
            else if (err)
                *err = keep;
        }
        goto done;
    }
    if (res) {
        if (o.return_values && (rc = ddbi_remote_parse_item(op, resp, "Attributes", a, &res->attributes, err)))
            goto done;
        rc = ddbi_remote_parse_capacity(op, json_object_get(resp, "ConsumedCapacity"), REMOTE_WRITE, o.return_capacity,
                                   &res->capacity, err);
    }
done:
    json_decref(eb);
    json_decref(resp);
    ddbi_remote_req_free(&q);
    return rc;
}

int ddbi_remote_put_item(void *impl, const char *table, const ddb_item *item, const ddb_write_opts *opts,
                         ddb_arena *a, ddb_write_result *res, ddb_error *err)
{
    ddb_remote *r = impl;
    return write_item(r, OP_PUT, table, item, NULL, opts, a, res, err);
}

int ddbi_remote_delete_item(void *impl, const char *table, const ddb_item *key, const ddb_write_opts *opts,
                            ddb_arena *a, ddb_write_result *res, ddb_error *err)
{
    ddb_remote *r = impl;
    return write_item(r, OP_DELETE, table, key, NULL, opts, a, res, err);
}

int ddbi_remote_update_item(void *impl, const char *table, const ddb_item *key, const ddb_expr *update,
                            const ddb_write_opts *opts, ddb_arena *a, ddb_write_result *res, ddb_error *err)
{
    ddb_remote *r = impl;
    return write_item(r, OP_UPDATE, table, key, update, opts, a, res, err);
}

int ddbi_remote_get_item(void *impl, const char *table, const ddb_item *key, const ddb_get_opts *opts,
                         ddb_arena *a, ddb_item **out, ddb_capacity *cap, ddb_error *err)
{
    ddb_remote *r = impl;
    *out = NULL;
    ddb_get_opts o = opts ? *opts : (ddb_get_opts){0};
    if (cap)
        memset(cap, 0, sizeof *cap);
    remote_req q;
    int rc = ddbi_remote_req_init(&q, err);
    if (rc)
        return rc;
    json_t *resp = NULL;
    if ((rc = ddbi_rq_str(q.j, "TableName", table, err)) || (rc = ddbi_rq_item(q.j, "Key", key, err)) ||
        (o.consistent && (rc = ddbi_rq_bool(q.j, "ConsistentRead", true, err))) ||
        (rc = ddbi_rq_projection(q.j, o.projection, o.attributes, o.n_attributes, NULL, 0, &q.names, err)) ||
        (rc = ddbi_rq_names_values(q.j, &q.names, NULL, err)) || (cap && (rc = ddbi_rq_capacity(q.j, o.return_capacity, err))))
        goto done;
    if ((rc = ddbi_remote_call(r, "GetItem", q.j, &resp, NULL, err)) ||
        (rc = ddbi_remote_parse_capacity("GetItem", json_object_get(resp, "ConsumedCapacity"), REMOTE_READ,
                                    o.return_capacity, cap, err)) ||
        (rc = ddbi_remote_parse_item("GetItem", resp, "Item", a, out, err)))
        goto done;
    if (!*out)
        rc = ddbi_fail(err, DDB_ENOTFOUND, "GetItem: no item with that key in table %s", table);
done:
    json_decref(resp);
    ddbi_remote_req_free(&q);
    return rc;
}
