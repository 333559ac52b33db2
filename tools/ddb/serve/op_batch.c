/* ddb serve: BatchGetItem, BatchWriteItem, TransactGetItems and
 * TransactWriteItems (API_BatchGetItem, API_BatchWriteItem,
 * API_TransactGetItems, API_TransactWriteItems).  The embedded engine
 * processes every request of a batch, so UnprocessedItems is empty and
 * UnprocessedKeys holds only the keys past a response's 16 MB, unless
 * --unprocessed leaves a drawn part of each batch for the client to send
 * again (unprocessed.c).  A cancelled transaction answers
 * TransactionCanceledException with one CancellationReasons entry per
 * action.  Calls wire.c, reply.c and libddb. */
#include "serve.h"

#include <stdio.h>
#include <string.h>

/* ConsumedCapacity of a multi-table call: libddb reports one total, given
 * under the first table (docs/SERVER.md lists the difference). */
static void capacity_list(serve_req *r, const char *table, ddb_return_capacity rc, const ddb_capacity *c)
{
    json_t *j = table ? w_capacity_json(r, table, rc, c) : NULL;
    if (j)
        json_object_set_new(r->out, "ConsumedCapacity", json_pack("[o]", j));
}

/* A required top-level member of the given JSON type (RequestItems, TransactItems). */
static const json_t *required(serve_req *r, const char *name, const char *path, bool array)
{
    const json_t *v = json_object_get(r->in, name);
    if (!v || (array ? !json_is_array(v) : !json_is_object(v))) {
        serve_validation(r, "1 validation error detected: Value null at '%s' failed to satisfy constraint: Member "
                            "must not be null",
                         path);
        return NULL;
    }
    return v;
}

/* --unprocessed: *left (in r's arena) says which of a batch's k requests
 * are left unprocessed.  When all of them are, the answer is DynamoDB's
 * for a batch none of whose items could be processed,
 * ProvisionedThroughputExceededException (API_BatchWriteItem,
 * API_BatchGetItem), and -1 is returned. */
static int draw_left(serve_req *r, size_t k, bool **left)
{
    if (!(*left = ddb_arena_alloc(r->a, (k ? k : 1) * sizeof **left)))
        return serve_fail_code(r, DDB_ENOMEM);
    if (k && serve_unprocessed_draw(&r->srv->unprocessed, *left, k) == k)
        return serve_fail(r, 400, "ProvisionedThroughputExceededException",
                          "The level of configured provisioned throughput for the table was exceeded. Consider "
                          "increasing your provisioning level with the UpdateTable API.");
    return 0;
}

/* The data one BatchGetItem answers at most (API_BatchGetItem: 16 MB). */
#define BATCH_GET_RESPONSE_MAX ((size_t)16 * 1024 * 1024)

/* Responses: every table of the request with its items among the first n
 * answers (in the request's order), written as text (reply_direct.c). */
static int batch_get_responses(serve_req *r, const json_t *ri, const char *const *asked, ddb_item *const *items,
                               size_t n)
{
    jw *w = w_reply_member(r, "Responses");
    const char *table;
    json_t *spec;
    bool first = true;
    jw_lit(w, "{");
    json_object_foreach((json_t *)ri, table, spec) {
        if (!first)
            jw_lit(w, ",");
        first = false;
        jw_str(w, table, strlen(table)); /* a key of the parsed request: UTF-8 */
        jw_lit(w, ":[");
        bool none = true;
        for (size_t i = 0; i < n; i++) {
            if (!items[i] || asked[i] != table) /* the RequestItems key each key came under */
                continue;
            if (!none)
                jw_lit(w, ",");
            none = false;
            int rc = jw_item(w, items[i], &r->err);
            if (rc)
                return serve_fail_code(r, rc);
        }
        jw_lit(w, "]");
    }
    jw_lit(w, "}");
    return w_reply_end(r);
}

int op_batch_get(serve_req *r)
{
    const json_t *ri = required(r, "RequestItems", "requestItems", false);
    ddb_return_capacity rc;
    if (!ri || w_capacity(r, r->in, &rc))
        return -1;
    size_t n = 0;
    const char *table;
    json_t *spec;
    json_object_foreach((json_t *)ri, table, spec) {
        const json_t *keys = json_object_get(spec, "Keys");
        n += json_is_array(keys) ? json_array_size(keys) : 0;
    }
    ddb_batch_get_op *ops = ddb_arena_alloc(r->a, (n ? n : 1) * sizeof *ops);
    const char **asked = ddb_arena_alloc(r->a, (n ? n : 1) * sizeof *asked); /* the RequestItems key (an ARN echoed) */
    if (!ops || !asked)
        return serve_fail_code(r, DDB_ENOMEM);
    size_t k = 0;
    json_object_foreach((json_t *)ri, table, spec) {
        ddb_item *names;
        ddb_expr *proj;
        bool consistent = false;
        if (!r->table)
            r->table = table;
        if (!json_is_object(spec) || !json_is_array(json_object_get(spec, "Keys")))
            return serve_validation(r, "1 validation error detected: Value null at 'requestItems.%s.member.keys' "
                                       "failed to satisfy constraint: Member must not be null",
                                    table);
        if (w_names(r, spec, &names) ||
            w_expr(r, spec, "ProjectionExpression", DDB_EXPR_PROJECTION, names, &proj) ||
            w_bool(r, spec, "ConsistentRead", &consistent))
            return -1;
        const ddb_expr *e[] = {proj};
        if (w_check_exprs(r, e, 1, names, NULL))
            return -1;
        size_t i;
        const json_t *key;
        json_array_foreach(json_object_get(spec, "Keys"), i, key) {
            ddb_item *it = fastreq_item(r, key);
            int rc2 = it                    ? DDB_OK
                      : json_is_object(key) ? ddb_json_to_item(key, r->a, &it, &r->err)
                                            : DDB_EVALIDATION;
            if (rc2)
                return json_is_object(key) ? serve_fail_code(r, rc2)
                                           : serve_fail(r, 400, "SerializationException", "Keys: expected objects");
            asked[k] = table;
            ops[k++] = (ddb_batch_get_op){
                .table = w_table_of(table), .key = it, .consistent = consistent, .projection = proj};
        }
    }
    /* --unprocessed: the keys drawn are not read; the others are, in order */
    bool *left;
    if (draw_left(r, k, &left))
        return -1;
    size_t *run_of = ddb_arena_alloc(r->a, (k ? k : 1) * sizeof *run_of);
    ddb_batch_get_op *run = ddb_arena_alloc(r->a, (k ? k : 1) * sizeof *run);
    ddb_item **got = ddb_arena_alloc(r->a, (k ? k : 1) * sizeof *got);
    if (!run_of || !run || !got)
        return serve_fail_code(r, DDB_ENOMEM);
    size_t m = 0;
    for (size_t i = 0; i < k; i++)
        if (!left[i])
            run_of[m] = i, run[m++] = ops[i];
    ddb_capacity cap;
    memset(&cap, 0, sizeof cap);
    int rc2 = ddb_batch_get(r->srv->db, run, m, r->a, got, rc, &cap, &r->err);
    if (rc2)
        return serve_fail_code(r, rc2);
    /* API_BatchGetItem: "A single operation can retrieve up to 16 MB of
     * data"; past that the response is partial and the keys not answered
     * come back in UnprocessedKeys, each table's with its request's other
     * members (ProjectionExpression, ExpressionAttributeNames,
     * ConsistentRead), so the client sends them again as they are.  The
     * items read but not returned are counted in the capacity. */
    size_t bytes = 0, cut = 0;
    for (; cut < m; cut++) {
        size_t size = got[cut] ? ddb_item_size(got[cut]) : 0;
        if (bytes + size > BATCH_GET_RESPONSE_MAX)
            break;
        bytes += size;
    }
    const char **got_asked = ddb_arena_alloc(r->a, (m ? m : 1) * sizeof *got_asked);
    if (!got_asked)
        return serve_fail_code(r, DDB_ENOMEM);
    for (size_t j = 0; j < m; j++) {
        got_asked[j] = asked[run_of[j]];
        if (j >= cut)
            left[run_of[j]] = true; /* read, past the response's size: sent again */
    }
    if (batch_get_responses(r, ri, got_asked, got, cut))
        return -1;
    json_t *unprocessed = json_object();
    json_object_set_new(r->out, "UnprocessedKeys", unprocessed);
    for (size_t i = 0; i < k; i++) {
        if (!left[i])
            continue;
        json_t *u = json_object_get(unprocessed, asked[i]);
        if (!u) {
            u = json_deep_copy(json_object_get(ri, asked[i]));
            json_object_set_new(u, "Keys", json_array());
            json_object_set_new(unprocessed, asked[i], u);
        }
        json_t *key = w_item_json(r, ops[i].key);
        if (!key)
            return serve_fail_code(r, r->err.code);
        json_array_append_new(json_object_get(u, "Keys"), key);
    }
    capacity_list(r, r->table, rc, &cap);
    return 0;
}

int op_batch_write(serve_req *r)
{
    const json_t *ri = required(r, "RequestItems", "requestItems", false);
    ddb_return_capacity rc;
    if (!ri || w_capacity(r, r->in, &rc))
        return -1;
    size_t n = 0;
    const char *table;
    json_t *list;
    json_object_foreach((json_t *)ri, table, list) {
        n += json_is_array(list) ? json_array_size(list) : 0;
    }
    ddb_batch_write_op *ops = ddb_arena_alloc(r->a, (n ? n : 1) * sizeof *ops);
    const char **asked = ddb_arena_alloc(r->a, (n ? n : 1) * sizeof *asked); /* its RequestItems key */
    if (!ops || !asked)
        return serve_fail_code(r, DDB_ENOMEM);
    size_t k = 0;
    json_object_foreach((json_t *)ri, table, list) {
        if (!r->table)
            r->table = table;
        if (!json_is_array(list))
            return serve_fail(r, 400, "SerializationException", "RequestItems.%s: expected an array", table);
        size_t i;
        const json_t *w;
        json_array_foreach(list, i, w) {
            const json_t *put = json_object_get(w, "PutRequest"), *del = json_object_get(w, "DeleteRequest");
            ddb_item *it;
            memset(&ops[k], 0, sizeof ops[k]);
            ops[k].table = w_table_of(table);
            /* API_WriteRequest: exactly one of PutRequest / DeleteRequest */
            if (!put == !del)
                return serve_validation(r, "A WriteRequest of table %s must hold exactly one of PutRequest and "
                                           "DeleteRequest",
                                        table);
            if (put) {
                if (w_item_req(r, put, "Item", "requestItems.member.putRequest.item", &it))
                    return -1;
                ops[k].put = it;
            } else {
                if (w_item_req(r, del, "Key", "requestItems.member.deleteRequest.key", &it))
                    return -1;
                ops[k].delete_key = it;
            }
            asked[k] = table;
            k++;
        }
    }
    /* --unprocessed: the requests drawn are not carried out but returned in
     * UnprocessedItems under their RequestItems key, written from the
     * decoded request (as UnprocessedKeys below) */
    bool *left;
    if (draw_left(r, k, &left))
        return -1;
    ddb_batch_write_op *run = ddb_arena_alloc(r->a, (k ? k : 1) * sizeof *run);
    if (!run)
        return serve_fail_code(r, DDB_ENOMEM);
    size_t m = 0;
    for (size_t i = 0; i < k; i++)
        if (!left[i])
            run[m++] = ops[i];
    ddb_capacity cap;
    memset(&cap, 0, sizeof cap);
    int rc2 = ddb_batch_write(r->srv->db, run, m, rc, &cap, &r->err);
    if (rc2)
        return serve_fail_code(r, rc2);
    json_t *unprocessed = json_object();
    json_object_set_new(r->out, "UnprocessedItems", unprocessed);
    for (size_t i = 0; i < k; i++) {
        if (!left[i])
            continue;
        json_t *list = json_object_get(unprocessed, asked[i]);
        if (!list) {
            list = json_array();
            json_object_set_new(unprocessed, asked[i], list);
        }
        bool put = ops[i].put != NULL;
        json_t *item = w_item_json(r, put ? ops[i].put : ops[i].delete_key);
        if (!item)
            return serve_fail_code(r, r->err.code);
        json_t *req = json_pack("{s:{s:o}}", put ? "PutRequest" : "DeleteRequest", put ? "Item" : "Key", item);
        if (!req || json_array_append_new(list, req))
            return serve_fail_code(r, DDB_ENOMEM);
    }
    capacity_list(r, r->table, rc, &cap);
    return 0;
}

/* TransactGetItems: a key attribute of the wrong type cancels the whole
 * request with that Get's ValidationError, as DynamoDB answers (ExtendDB's
 * dual-target tests/test_transaction_operations.py, measured on DynamoDB);
 * the engine's ddb_transact_get reports no reasons, so they are found here
 * from the tables' key schemas.  0 when every key has its table's types. */
static int tx_get_key_types(serve_req *r, const ddb_tx_get *gets, size_t n)
{
    json_t *reasons = json_array();
    bool cancel = false;
    char list[DDB_ERROR_TEXT_SIZE];
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        ddb_table_desc *d = NULL;
        bool bad = false;
        if (ddb_describe_table(r->srv->db, gets[i].table, r->a, &d, NULL) == DDB_OK) {
            const ddb_key_schema *k = &d->def.key;
            const ddb_value *pk = ddb_item_get(gets[i].key, k->pk);
            const ddb_value *sk = k->sk ? ddb_item_get(gets[i].key, k->sk) : NULL;
            bad = (pk && pk->type != k->pk_type) || (sk && sk->type != k->sk_type);
        }
        cancel |= bad;
        json_array_append_new(reasons, json_pack("{s:s}", "Code", bad ? "ValidationError" : "None"));
        if (len < sizeof list)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "",
                                    bad ? "ValidationError" : "None");
    }
    if (!cancel) {
        json_decref(reasons);
        return 0;
    }
    r->fail_extra = json_pack("{s:o}", "CancellationReasons", reasons);
    return serve_fail(r, 400, "TransactionCanceledException",
                      "Transaction cancelled, please refer cancellation reasons for specific reasons [%s]", list);
}

/* Responses: one {"Item": ...} per Get ({} for an item not found), written
 * as text (reply_direct.c). */
static int transact_get_responses(serve_req *r, ddb_item *const *items, size_t n)
{
    jw *w = w_reply_member(r, "Responses");
    jw_lit(w, "[");
    for (size_t i = 0; i < n; i++) {
        if (i)
            jw_lit(w, ",");
        jw_lit(w, "{");
        if (items[i]) {
            jw_lit(w, "\"Item\":");
            int rc = jw_item(w, items[i], &r->err);
            if (rc)
                return serve_fail_code(r, rc);
        }
        jw_lit(w, "}");
    }
    jw_lit(w, "]");
    return w_reply_end(r);
}

int op_transact_get(serve_req *r)
{
    const json_t *ti = required(r, "TransactItems", "transactItems", true);
    ddb_return_capacity rc;
    if (!ti || w_capacity(r, r->in, &rc))
        return -1;
    size_t n = json_array_size(ti);
    ddb_tx_get *gets = ddb_arena_alloc(r->a, (n ? n : 1) * sizeof *gets);
    ddb_item **items = ddb_arena_alloc(r->a, (n ? n : 1) * sizeof *items);
    if (!gets || !items)
        return serve_fail_code(r, DDB_ENOMEM);
    for (size_t i = 0; i < n; i++) {
        const json_t *g = json_object_get(json_array_get(ti, i), "Get");
        ddb_item *names, *key;
        ddb_expr *proj;
        if (!g)
            return serve_validation(r, "1 validation error detected: Value null at 'transactItems.%zu.member.get' "
                                       "failed to satisfy constraint: Member must not be null",
                                    i + 1);
        if (w_table(r, g, &gets[i].table) || w_item_req(r, g, "Key", "transactItems.member.get.key", &key) ||
            w_names(r, g, &names) || w_expr(r, g, "ProjectionExpression", DDB_EXPR_PROJECTION, names, &proj))
            return -1;
        /* a transaction's Get takes names without a projection (see tx_action) */
        const ddb_expr *e[] = {proj};
        if (proj && w_check_exprs(r, e, 1, names, NULL))
            return -1;
        gets[i].key = key;
        gets[i].projection = proj;
    }
    if (tx_get_key_types(r, gets, n))
        return -1;
    ddb_capacity cap;
    memset(&cap, 0, sizeof cap);
    int rc2 = ddb_transact_get(r->srv->db, gets, n, r->a, items, rc, &cap, &r->err);
    if (rc2)
        return serve_fail_code(r, rc2);
    if (transact_get_responses(r, items, n))
        return -1;
    capacity_list(r, r->table, rc, &cap);
    return 0;
}

/* One action of TransactWriteItems: Put, Update, Delete or ConditionCheck. */
static int tx_action(serve_req *r, size_t i, const json_t *a, ddb_tx_op *op)
{
    static const char *const kinds[] = {"Put", "Update", "Delete", "ConditionCheck"};
    const json_t *body = NULL;
    size_t which = 0;
    for (size_t k = 0; k < 4; k++)
        if (json_object_get(a, kinds[k])) {
            if (body)
                return serve_validation(r, "TransactItems can only contain one of Check, Put, Update or Delete");
            body = json_object_get(a, kinds[k]);
            which = k;
        }
    if (!body)
        return serve_validation(r, "TransactItems can only contain one of Check, Put, Update or Delete (item %zu)",
                                i + 1);
    memset(op, 0, sizeof *op);
    op->kind = which == 0 ? DDB_TX_PUT : which == 1 ? DDB_TX_UPDATE : which == 2 ? DDB_TX_DELETE : DDB_TX_CHECK;
    ddb_item *names, *values, *item;
    ddb_expr *cond, *update = NULL;
    if (w_table(r, body, &op->table) ||
        (which == 0 ? w_item_req(r, body, "Item", "transactItems.member.put.item", &item)
                    : w_item_req(r, body, "Key", "transactItems.member.key", &item)) ||
        w_names(r, body, &names) || w_values(r, body, &values) ||
        w_expr(r, body, "ConditionExpression", DDB_EXPR_CONDITION, names, &cond) ||
        (which == 1 && w_expr(r, body, "UpdateExpression", DDB_EXPR_UPDATE, names, &update)) ||
        w_return_on_failure(r, body, &op->return_on_condition_failure))
        return -1;
    if (which == 1 && !update)
        return serve_validation(r, "1 validation error detected: Value null at 'transactItems.%zu.member.update."
                                   "updateExpression' failed to satisfy constraint: Member must not be null",
                                i + 1);
    if (which == 3 && !cond)
        return serve_validation(r, "1 validation error detected: Value null at 'transactItems.%zu.member."
                                   "conditionCheck.conditionExpression' failed to satisfy constraint: Member must "
                                   "not be null",
                                i + 1);
    /* Unlike the single-item operations, a transaction's actions take
     * ExpressionAttributeNames / Values without any expression (as DynamoDB
     * answers, captured by ExtendDB's dual-target tests,
     * tests/test_transact_expression_validation.py); with one, the unused
     * ones are refused as usual. */
    const ddb_expr *e[] = {update, cond};
    if ((update || cond) && w_check_exprs(r, e, 2, names, values))
        return -1;
    op->item = item;
    op->update = update;
    op->condition = cond;
    op->values = update || cond ? values : NULL;
    return 0;
}

static const char *reason_code(int code)
{
    switch (code) {
    case DDB_OK: return "None";
    case DDB_ECONDITION: return "ConditionalCheckFailed";
    case DDB_ETHROTTLED: return "ThrottlingError";
    default: return "ValidationError";
    }
}

int op_transact_write(serve_req *r)
{
    const json_t *ti = required(r, "TransactItems", "transactItems", true);
    ddb_return_capacity rc;
    const char *token;
    if (!ti || w_capacity(r, r->in, &rc) || w_str(r, r->in, "ClientRequestToken", &token))
        return -1;
    size_t n = json_array_size(ti);
    ddb_tx_op *ops = ddb_arena_alloc(r->a, (n ? n : 1) * sizeof *ops);
    if (!ops)
        return serve_fail_code(r, DDB_ENOMEM);
    for (size_t i = 0; i < n; i++)
        if (tx_action(r, i, json_array_get(ti, i), &ops[i]))
            return -1;
    ddb_tx_result res;
    memset(&res, 0, sizeof res);
    ddb_tx_opts to = {.return_capacity = rc, .client_request_token = token};
    int rc2 = ddb_transact_write_opts(r->srv->db, ops, n, &to, r->a, &res, &r->err);
    if (rc2 == DDB_ECANCELED && res.reasons) {
        json_t *reasons = json_array();
        for (size_t i = 0; i < n; i++) {
            json_t *o = json_pack("{s:s}", "Code", reason_code(res.reasons[i]));
            if (res.reasons[i] == DDB_ECONDITION)
                json_object_set_new(o, "Message", json_string("The conditional request failed"));
            else if (res.messages && res.messages[i])
                json_object_set_new(o, "Message", json_string(res.messages[i]));
            json_t *item = res.items && res.items[i] ? w_item_json(r, res.items[i]) : NULL;
            if (item)
                json_object_set_new(o, "Item", item);
            json_array_append_new(reasons, o);
        }
        r->fail_extra = json_pack("{s:o}", "CancellationReasons", reasons);
    }
    if (rc2)
        return serve_fail_code(r, rc2);
    capacity_list(r, r->table, rc, &res.capacity);
    return 0;
}
