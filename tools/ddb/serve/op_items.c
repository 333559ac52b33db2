/* ddb serve: the single-item operations PutItem, GetItem, UpdateItem and
 * DeleteItem (API_PutItem, API_GetItem, API_UpdateItem, API_DeleteItem):
 * expressions with ExpressionAttributeNames / Values, ReturnValues,
 * ReturnConsumedCapacity, AttributesToGet.  The other legacy parameters
 * (Expected, AttributeUpdates, ConditionalOperator) arrive translated into
 * expressions (legacy.c).  Calls wire.c, reply.c and libddb. */
#include "serve.h"

#include <string.h>

/* ReturnValuesOnConditionCheckFailure: NONE or ALL_OLD. */
int w_return_on_failure(serve_req *r, const json_t *o, ddb_return_values *out)
{
    const char *s;
    *out = DDB_RETURN_NONE;
    if (w_str(r, o, "ReturnValuesOnConditionCheckFailure", &s))
        return -1;
    if (!s || strcmp(s, "NONE") == 0)
        return 0;
    if (strcmp(s, "ALL_OLD") == 0) {
        *out = DDB_RETURN_ALL_OLD;
        return 0;
    }
    return serve_validation(r,
                            "1 validation error detected: Value '%s' at 'returnValuesOnConditionCheckFailure' failed "
                            "to satisfy constraint: Member must satisfy enum value set: [ALL_OLD, NONE]",
                            s);
}

int w_return_values(serve_req *r, const json_t *o, ddb_return_values *out)
{
    static const char *const names[] = {"NONE", "ALL_OLD", "UPDATED_OLD", "ALL_NEW", "UPDATED_NEW"};
    *out = DDB_RETURN_NONE;
    const char *s;
    if (w_str(r, o, "ReturnValues", &s))
        return -1;
    if (!s)
        return 0;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(s, names[i]) == 0) {
            *out = (ddb_return_values)i;
            return 0;
        }
    return serve_validation(r,
                            "1 validation error detected: Value '%s' at 'returnValues' failed to satisfy constraint: "
                            "Member must satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]",
                            s);
}

/* What a write answers: Attributes (when asked and present), ConsumedCapacity. */
static int write_reply(serve_req *r, const char *table, ddb_return_capacity rc, const ddb_write_result *res)
{
    if (res->attributes && ddb_item_count(res->attributes) && w_reply_item(r, "Attributes", res->attributes))
        return -1;
    json_t *c = w_capacity_json(r, table, rc, &res->capacity);
    if (c)
        json_object_set_new(r->out, "ConsumedCapacity", c);
    return 0;
}

/* A failed write; a failed condition carries the stored item when
 * ReturnValuesOnConditionCheckFailure asked for it (API_PutItem: Item in
 * ConditionalCheckFailedException). */
static int write_failed(serve_req *r, int rc, const ddb_write_result *res)
{
    if (rc == DDB_ECONDITION && res->attributes) {
        json_t *j = w_item_json(r, res->attributes);
        if (j)
            r->fail_extra = json_pack("{s:o}", "Item", j);
    }
    return serve_fail_code(r, rc);
}

/* The options every write shares: condition, values, ReturnValues, capacity. */
static int write_opts(serve_req *r, ddb_write_opts *o, const ddb_item **names_out, ddb_expr **cond)
{
    memset(o, 0, sizeof *o);
    ddb_item *names, *values;
    if (w_names(r, r->in, &names) ||
        w_values(r, r->in, &values) ||
        w_expr(r, r->in, "ConditionExpression", DDB_EXPR_CONDITION, names, cond) ||
        w_return_values(r, r->in, &o->return_values) || w_capacity(r, r->in, &o->return_capacity) ||
        w_return_on_failure(r, r->in, &o->return_on_condition_failure))
        return -1;
    o->condition = *cond;
    o->values = values;
    *names_out = names;
    return 0;
}

typedef int (*single_write_fn)(ddb *db, const char *table, const ddb_item *item, const ddb_write_opts *opts,
                               ddb_arena *a, ddb_write_result *res, ddb_error *err);

/* PutItem (member Item) and DeleteItem (member Key): the same request shape. */
static int single_write(serve_req *r, const char *member, const char *path, single_write_fn fn)
{
    const char *table;
    ddb_item *item;
    ddb_write_opts o;
    const ddb_item *names;
    ddb_expr *cond;
    if (w_table(r, r->in, &table) || w_item_req(r, r->in, member, path, &item) || write_opts(r, &o, &names, &cond))
        return -1;
    const ddb_expr *e[] = {cond};
    if (w_check_exprs(r, e, 1, names, o.values))
        return -1;
    ddb_write_result res;
    memset(&res, 0, sizeof res);
    int rc = fn(r->srv->db, table, item, &o, r->a, &res, &r->err);
    return rc ? write_failed(r, rc, &res) : write_reply(r, table, o.return_capacity, &res);
}

int op_put_item(serve_req *r)
{
    return single_write(r, "Item", "item", ddb_put_item);
}

int op_delete_item(serve_req *r)
{
    return single_write(r, "Key", "key", ddb_delete_item);
}

/* API_UpdateItem without an UpdateExpression creates the item with its key
 * alone when it is absent and changes nothing otherwise: a PutItem of the
 * key on condition that no item has it, where a failed condition is the
 * unchanged item (returned by the failed condition).  ReturnValues: ALL_NEW
 * is the item as it is after the call, ALL_OLD the item there was, the
 * UPDATED_* ones nothing (no attribute was updated).  (With a
 * ConditionExpression, ddb serve asks for an UpdateExpression:
 * docs/SERVER.md.) */
static int create_key_only(serve_req *r, const char *table, const ddb_item *key, const ddb_write_opts *o)
{
    if (o->condition)
        return serve_validation(r, "ddb serve needs an UpdateExpression in an UpdateItem with a ConditionExpression");
    const ddb_value *m = ddb_item_map(key);
    /* the Key is the key, nothing else: a PutItem would keep another
     * attribute (ScyllaDB test/alternator/test_item.py::
     * test_update_item_wrong_key_type) */
    ddb_table_desc *d = NULL;
    if (ddb_describe_table(r->srv->db, table, r->a, &d, NULL) == DDB_OK && m->len != (d->def.key.sk ? 2u : 1u))
        return serve_validation(r, "The provided key element does not match the schema");
    ddb_item *names = ddb_item_new(r->a);
    ddb_expr *absent = NULL;
    if (!names || !m->len || ddb_item_set_s(names, "#k", m->u.m[0].name))
        return serve_fail_code(r, DDB_ENOMEM);
    int rc = ddb_expr_prepare(DDB_EXPR_CONDITION, "attribute_not_exists(#k)", names, &absent, &r->err);
    if (rc || w_keep_expr(r, absent))
        return rc ? serve_fail_code(r, rc) : -1;
    ddb_write_opts put = {.return_capacity = o->return_capacity,
                          .condition = absent,
                          .return_on_condition_failure = DDB_RETURN_ALL_OLD};
    ddb_write_result res;
    memset(&res, 0, sizeof res);
    rc = ddb_put_item(r->srv->db, table, key, &put, r->a, &res, &r->err);
    if (rc && rc != DDB_ECONDITION)
        return serve_fail_code(r, rc);
    /* rc == 0: created, res.attributes NULL; otherwise the stored item */
    bool created = rc == 0;
    if (o->return_values == DDB_RETURN_ALL_NEW && created)
        res.attributes = (ddb_item *)key;
    else if (o->return_values != DDB_RETURN_ALL_NEW && o->return_values != DDB_RETURN_ALL_OLD)
        res.attributes = NULL;
    return write_reply(r, table, o->return_capacity, &res);
}

int op_update_item(serve_req *r)
{
    const char *table;
    ddb_item *key;
    ddb_write_opts o;
    const ddb_item *names;
    ddb_expr *cond, *update;
    if (w_table(r, r->in, &table) || w_item_req(r, r->in, "Key", "key", &key) ||
        write_opts(r, &o, &names, &cond) ||
        w_expr(r, r->in, "UpdateExpression", DDB_EXPR_UPDATE, names, &update))
        return -1;
    const ddb_expr *e[] = {update, cond};
    if (w_check_exprs(r, e, 2, names, o.values))
        return -1;
    if (!update)
        return create_key_only(r, table, key, &o);
    ddb_write_result res;
    memset(&res, 0, sizeof res);
    int rc = ddb_update_item(r->srv->db, table, key, update, &o, r->a, &res, &r->err);
    return rc ? write_failed(r, rc, &res) : write_reply(r, table, o.return_capacity, &res);
}

int op_get_item(serve_req *r)
{
    const char *table;
    ddb_item *key, *names;
    ddb_expr *proj;
    ddb_get_opts o;
    memset(&o, 0, sizeof o);
    if (w_table(r, r->in, &table) || w_item_req(r, r->in, "Key", "key", &key) || w_names(r, r->in, &names) ||
        w_expr(r, r->in, "ProjectionExpression", DDB_EXPR_PROJECTION, names, &proj) ||
        w_bool(r, r->in, "ConsistentRead", &o.consistent) || w_capacity(r, r->in, &o.return_capacity) ||
        w_attributes(r, r->in, (const char ***)&o.attributes, &o.n_attributes))
        return -1;
    const ddb_expr *e[] = {proj};
    if (w_check_exprs(r, e, 1, names, NULL))
        return -1;
    o.projection = proj;
    ddb_item *it = NULL;
    ddb_capacity cap;
    memset(&cap, 0, sizeof cap);
    int rc = ddb_get_item(r->srv->db, table, key, &o, r->a, &it, &cap, &r->err);
    if (rc && rc != DDB_ENOTFOUND)
        return serve_fail_code(r, rc);
    if (it && w_reply_item(r, "Item", it))
        return -1;
    json_t *c = w_capacity_json(r, table, o.return_capacity, &cap);
    if (c)
        json_object_set_new(r->out, "ConsumedCapacity", c);
    return 0;
}
