/* remote/: Remote batches and transactions: BatchWriteItem and BatchGetItem (with
 * UnprocessedItems / UnprocessedKeys resubmitted under backoff),
 * TransactWriteItems (cancellation reasons) and TransactGetItems.
 * May call core/ and expr/. */
#include "remote/remote_wire.h"

#include <ddb/json.h>
#include "core/error.h"
#include "expr/expr.h"

#include <openssl/rand.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int nomem(ddb_error *err)
{
    return ddbi_fail_oom(err, "building a request");
}

static int append(json_t *arr, json_t *v, ddb_error *err)
{
    return (v && json_array_append_new(arr, v) == 0) ? DDB_OK : nomem(err);
}

/* obj[key] as an array, created when absent. */
static json_t *array_at(json_t *obj, const char *key)
{
    json_t *a = json_object_get(obj, key);
    if (a)
        return a;
    a = json_array();
    if (!a || json_object_set_new(obj, key, a))
        return NULL;
    return a;
}

/* Requests left in an UnprocessedItems / UnprocessedKeys object. */
static size_t pending(const char *op, const json_t *un, bool keys, int *rc, ddb_error *err)
{
    *rc = DDB_OK;
    if (!un)
        return 0;
    if (!json_is_object(un)) {
        *rc = ddbi_remote_bad(err, op, "%s is not an object", keys ? "UnprocessedKeys" : "UnprocessedItems");
        return 0;
    }
    size_t n = 0;
    const char *t;
    json_t *v;
    json_object_foreach((json_t *)un, t, v)
    {
        const json_t *arr = keys ? json_object_get(v, "Keys") : v;
        if (!json_is_array(arr)) {
            *rc = ddbi_remote_bad(err, op, "the unprocessed requests of %s are not an array", t);
            return 0;
        }
        n += json_array_size(arr);
    }
    return n;
}

/* ---- BatchWriteItem ------------------------------------------------------------- */

int ddbi_remote_batch_write(void *impl, const ddb_batch_write_op *ops, size_t n, ddb_return_capacity rc_mode,
                            ddb_capacity *cap, ddb_error *err)
{
    ddb_remote *r = impl;
    if (cap)
        memset(cap, 0, sizeof *cap);
    for (size_t i = 0; i < n; i++)
        if (!ops[i].table || !ops[i].put == !ops[i].delete_key)
            return ddbi_fail(err, DDB_EINVAL,
                            "BatchWriteItem: op %zu needs a table and exactly one of put and delete_key", i);
    remote_req q;
    int rc = ddbi_remote_req_init(&q, err);
    if (rc)
        return rc;
    json_t *ri = json_object(), *resp = NULL;
    if (!ri || json_object_set_new(q.j, "RequestItems", ri)) {
        rc = nomem(err);
        goto done;
    }
    for (size_t i = 0; i < n && !rc; i++) {
        json_t *arr = array_at(ri, ops[i].table), *body = json_object(), *wrap;
        if (!arr || !body) {
            json_decref(body);
            rc = nomem(err);
            break;
        }
        if (ops[i].put) {
            rc = ddbi_rq_item(body, "Item", ops[i].put, err);
            wrap = json_pack("{s:o}", "PutRequest", body);
        } else {
            rc = ddbi_rq_item(body, "Key", ops[i].delete_key, err);
            wrap = json_pack("{s:o}", "DeleteRequest", body);
        }
        if (!rc)
            rc = append(arr, wrap, err);
        else
            json_decref(wrap);
    }
    if (rc || (cap && (rc = ddbi_rq_capacity(q.j, rc_mode, err))))
        goto done;
    for (unsigned attempt = 1;; attempt++) {
        if ((rc = ddbi_remote_call(r, "BatchWriteItem", q.j, &resp, NULL, err)) ||
            (rc = ddbi_remote_parse_capacity("BatchWriteItem", json_object_get(resp, "ConsumedCapacity"), REMOTE_WRITE,
                                        rc_mode, cap, err)))
            break;
        json_t *un = json_object_get(resp, "UnprocessedItems");
        size_t left = pending("BatchWriteItem", un, false, &rc, err);
        if (rc || !left)
            break;
        if (attempt >= ddbi_remote_max_attempts(r)) {
            rc = ddbi_fail(err, DDB_ETHROTTLED,
                          "BatchWriteItem: %zu of %zu requests still unprocessed after %u attempts", left, n, attempt);
            break;
        }
        json_object_set(q.j, "RequestItems", un); /* resubmit exactly what was left */
        json_decref(resp);
        resp = NULL;
        ddbi_remote_backoff(r, attempt);
    }
done:
    json_decref(resp);
    ddbi_remote_req_free(&q);
    return rc;
}

/* ---- BatchGetItem ---------------------------------------------------------------- */

/* Same request parameters: one KeysAndAttributes entry can hold both. */
static bool same_params(const ddb_batch_get_op *a, const ddb_batch_get_op *b)
{
    return strcmp(a->table, b->table) == 0 && a->consistent == b->consistent && a->projection == b->projection;
}

static bool key_matches(const ddb_item *item, const ddb_item *key)
{
    const ddb_value *k = ddb_item_map(key);
    if (!k->len)
        return false;
    for (uint32_t i = 0; i < k->len; i++) {
        const ddb_value *v = ddb_item_get(item, k->u.m[i].name);
        if (!v || !ddb_value_equal(v, k->u.m[i].value))
            return false;
    }
    return true;
}

/* Is attribute name a whole top-level path of projection e? */
static bool projects(const ddb_expr *e, const char *name)
{
    size_t len = strlen(name);
    for (size_t i = 0; i < e->npaths; i++)
        if (e->paths[i].n >= 1 && e->paths[i].el[0].name && e->paths[i].el[0].len == len &&
            memcmp(e->paths[i].el[0].name, name, len) == 0)
            return true;
    return false;
}

/* One request: the ops marked in `round`. */
static int batch_get_round(ddb_remote *r, const ddb_batch_get_op *ops, size_t n, const bool *round, ddb_arena *a,
                           ddb_item **items, bool *matched, ddb_return_capacity rc_mode, ddb_capacity *cap,
                           ddb_error *err)
{
    remote_req q;
    int rc = ddbi_remote_req_init(&q, err);
    if (rc)
        return rc;
    json_t *ri = json_object(), *resp = NULL;
    if (!ri || json_object_set_new(q.j, "RequestItems", ri)) {
        rc = nomem(err);
        goto done;
    }
    for (size_t i = 0; i < n && !rc; i++) {
        if (!round[i])
            continue;
        json_t *ka = json_object_get(ri, ops[i].table);
        if (!ka) {
            /* the first op of this table in the round sets its parameters */
            ddb_wire_names m;
            ddbi_rq_names_reset(&q, &m);
            const ddb_value *km = ddb_item_map(ops[i].key);
            const char **keys = ddb_arena_alloc(q.tmp, (km->len ? km->len : 1) * sizeof *keys);
            if (!keys || !(ka = json_object()) || json_object_set_new(ri, ops[i].table, ka)) {
                rc = nomem(err);
                break;
            }
            for (uint32_t k = 0; k < km->len; k++)
                keys[k] = km->u.m[k].name;
            if ((ops[i].consistent && (rc = ddbi_rq_bool(ka, "ConsistentRead", true, err))) ||
                (rc = ddbi_rq_projection(ka, ops[i].projection, NULL, 0, keys, km->len, &m, err)) ||
                (rc = ddbi_rq_names_values(ka, &m, NULL, err)))
                break;
        }
        json_t *arr = array_at(ka, "Keys"), *k = NULL;
        if (!arr) {
            rc = nomem(err);
            break;
        }
        if (!(rc = ddb_json_from_item(ops[i].key, &k, err)))
            rc = append(arr, k, err);
    }
    if (rc || (cap && (rc = ddbi_rq_capacity(q.j, rc_mode, err))))
        goto done;
    for (unsigned attempt = 1;; attempt++) {
        if ((rc = ddbi_remote_call(r, "BatchGetItem", q.j, &resp, NULL, err)) ||
            (rc = ddbi_remote_parse_capacity("BatchGetItem", json_object_get(resp, "ConsumedCapacity"), REMOTE_READ, rc_mode,
                                        cap, err)))
            break;
        const json_t *responses = json_object_get(resp, "Responses");
        if (responses && !json_is_object(responses)) {
            rc = ddbi_remote_bad(err, "BatchGetItem", "Responses is not an object");
            break;
        }
        const char *t;
        json_t *list;
        json_object_foreach((json_t *)responses, t, list)
        {
            if (!json_is_array(list)) {
                rc = ddbi_remote_bad(err, "BatchGetItem", "Responses.%s is not an array", t);
                break;
            }
            for (size_t k = 0; k < json_array_size(list) && !rc; k++) {
                ddb_item *it;
                char what[48];
                snprintf(what, sizeof what, "Responses[%zu]", k);
                json_t *wrap = json_pack("{s:O}", "Item", json_array_get(list, k));
                rc = wrap ? ddbi_remote_parse_item("BatchGetItem", wrap, "Item", a, &it, err) : nomem(err);
                json_decref(wrap);
                if (rc)
                    break;
                size_t i = 0;
                while (i < n &&
                       !(round[i] && !matched[i] && strcmp(ops[i].table, t) == 0 && key_matches(it, ops[i].key)))
                    i++;
                if (i == n) {
                    rc = ddbi_remote_bad(err, "BatchGetItem", "%s in %s matches no requested key", what, t);
                    break;
                }
                matched[i] = true;
                if (ops[i].projection) {
                    /* drop the key attributes added only to match answers to ops */
                    const ddb_value *km = ddb_item_map(ops[i].key);
                    for (uint32_t x = 0; x < km->len; x++)
                        if (!projects(ops[i].projection, km->u.m[x].name))
                            ddb_item_remove(it, km->u.m[x].name);
                }
                items[i] = it;
            }
            if (rc)
                break;
        }
        if (rc)
            break;
        json_t *un = json_object_get(resp, "UnprocessedKeys");
        size_t left = pending("BatchGetItem", un, true, &rc, err);
        if (rc || !left)
            break;
        if (attempt >= ddbi_remote_max_attempts(r)) {
            rc = ddbi_fail(err, DDB_ETHROTTLED, "BatchGetItem: %zu keys still unprocessed after %u attempts", left,
                          attempt);
            break;
        }
        json_object_set(q.j, "RequestItems", un);
        json_decref(resp);
        resp = NULL;
        ddbi_remote_backoff(r, attempt);
    }
done:
    json_decref(resp);
    ddbi_remote_req_free(&q);
    return rc;
}

int ddbi_remote_batch_get(void *impl, const ddb_batch_get_op *ops, size_t n, ddb_arena *a, ddb_item **items,
                          ddb_return_capacity rc_mode, ddb_capacity *cap, ddb_error *err)
{
    ddb_remote *r = impl;
    if (cap)
        memset(cap, 0, sizeof *cap);
    for (size_t i = 0; i < n; i++) {
        items[i] = NULL;
        if (!ops[i].table || !ops[i].key)
            return ddbi_fail(err, DDB_EINVAL, "BatchGetItem: op %zu needs a table and a key", i);
        if (ops[i].projection && ddb_expr_get_kind(ops[i].projection) != DDB_EXPR_PROJECTION)
            return ddbi_fail(err, DDB_EINVAL, "BatchGetItem: the projection of op %zu is not a ProjectionExpression", i);
    }
    bool *sent = calloc(n ? 3 * n : 1, sizeof *sent);
    if (!sent)
        return ddbi_fail_oom(err, __func__);
    bool *round = sent + n, *matched = sent + 2 * n;
    int rc = DDB_OK;
    /* Usually one round; ops of one table with different parameters wait
     * for the next. */
    for (size_t left = n; left && !rc;) {
        memset(round, 0, n * sizeof *round);
        for (size_t i = 0; i < n; i++) {
            if (sent[i])
                continue;
            bool clash = false;
            for (size_t j = 0; j < n && !clash; j++)
                clash = round[j] && strcmp(ops[j].table, ops[i].table) == 0 && !same_params(&ops[j], &ops[i]);
            if (!clash) {
                round[i] = sent[i] = true;
                left--;
            }
        }
        rc = batch_get_round(r, ops, n, round, a, items, matched, rc_mode, cap, err);
    }
    free(sent);
    return rc;
}

/* ---- TransactWriteItems ------------------------------------------------------------ */

static int tx_op(remote_req *q, const ddb_tx_op *op, size_t i, json_t **out, ddb_error *err)
{
    static const char *const kinds[] = {[DDB_TX_PUT] = "Put", [DDB_TX_UPDATE] = "Update", [DDB_TX_DELETE] = "Delete",
                                        [DDB_TX_CHECK] = "ConditionCheck"};
    if (op->kind < DDB_TX_PUT || op->kind > DDB_TX_CHECK || !op->table || !op->item)
        return ddbi_fail(err, DDB_EINVAL, "TransactWriteItems: op %zu needs a known kind, a table and an item/key", i);
    if (op->kind == DDB_TX_UPDATE && (!op->update || ddb_expr_get_kind(op->update) != DDB_EXPR_UPDATE))
        return ddbi_fail(err, DDB_EINVAL, "TransactWriteItems: update op %zu needs a prepared UpdateExpression", i);
    if (op->kind == DDB_TX_CHECK && !op->condition)
        return ddbi_fail(err, DDB_EINVAL, "TransactWriteItems: condition check op %zu needs a condition", i);
    ddb_wire_names m;
    ddbi_rq_names_reset(q, &m);
    json_t *body = json_object();
    if (!body)
        return nomem(err);
    int rc;
    if ((rc = ddbi_rq_str(body, "TableName", op->table, err)) ||
        (rc = ddbi_rq_item(body, op->kind == DDB_TX_PUT ? "Item" : "Key", op->item, err)) ||
        (op->kind == DDB_TX_UPDATE && (rc = ddbi_rq_expr(body, "UpdateExpression", op->update, &m, err))) ||
        (rc = ddbi_rq_expr(body, "ConditionExpression", op->condition, &m, err)) ||
        (rc = ddbi_rq_names_values(body, &m, op->values, err)) ||
        (op->return_on_condition_failure == DDB_RETURN_ALL_OLD &&
         (rc = ddbi_rq_str(body, "ReturnValuesOnConditionCheckFailure", "ALL_OLD", err)))) {
        json_decref(body);
        return rc;
    }
    *out = json_pack("{s:o}", kinds[op->kind], body);
    return *out ? DDB_OK : nomem(err);
}

int ddbi_remote_transact_write(void *impl, const ddb_tx_op *ops, size_t n, const ddb_tx_opts *o, ddb_arena *a,
                               ddb_tx_result *res, ddb_error *err)
{
    ddb_remote *r = impl;
    ddb_return_capacity rc_mode = o->return_capacity;
    if (res)
        memset(res, 0, sizeof *res);
    remote_req q;
    int rc = ddbi_remote_req_init(&q, err);
    if (rc)
        return rc;
    json_t *items = json_array(), *resp = NULL, *eb = NULL;
    if (!items || json_object_set_new(q.j, "TransactItems", items)) {
        rc = nomem(err);
        goto done;
    }
    for (size_t i = 0; i < n && !rc; i++) {
        json_t *o = NULL;
        if (!(rc = tx_op(&q, &ops[i], i, &o, err)))
            rc = append(items, o, err);
    }
    /* An idempotency token: the caller's, else one of our own so that a
     * retry after a 5xx cannot apply the transaction twice. */
    unsigned char tok[16];
    char hex[33];
    if (!rc && o->client_request_token)
        rc = ddbi_rq_str(q.j, "ClientRequestToken", o->client_request_token, err);
    else if (!rc && RAND_bytes(tok, sizeof tok) == 1) {
        for (int i = 0; i < 16; i++)
            snprintf(hex + 2 * i, 3, "%02x", tok[i]);
        rc = ddbi_rq_str(q.j, "ClientRequestToken", hex, err);
    }
    if (rc || (res && (rc = ddbi_rq_capacity(q.j, rc_mode, err))))
        goto done;
    rc = ddbi_remote_call(r, "TransactWriteItems", q.j, &resp, &eb, err);
    if (rc == DDB_ECANCELED && res && a && eb && json_object_get(eb, "CancellationReasons")) {
        ddb_error keep = err ? *err : (ddb_error){0};
        int prc = ddbi_remote_parse_reasons(eb, n, a, &res->reasons, err);
        if (!prc)
            prc = ddbi_remote_parse_reason_items(eb, n, a, &res->items, err);
        if (prc)
            rc = prc;
        else if (err)
            *err = keep;
    }
    if (!rc && res)
        rc = ddbi_remote_parse_capacity("TransactWriteItems", json_object_get(resp, "ConsumedCapacity"), REMOTE_WRITE,
                                   rc_mode, &res->capacity, err);
done:
    json_decref(eb);
    json_decref(resp);
    ddbi_remote_req_free(&q);
    return rc;
}

/* ---- TransactGetItems ----------------------------------------------------------- */

int ddbi_remote_transact_get(void *impl, const ddb_tx_get *gets, size_t n, ddb_arena *a, ddb_item **items,
                             ddb_return_capacity rc_mode, ddb_capacity *cap, ddb_error *err)
{
    ddb_remote *r = impl;
    if (cap)
        memset(cap, 0, sizeof *cap);
    for (size_t i = 0; i < n; i++)
        items[i] = NULL;
    remote_req q;
    int rc = ddbi_remote_req_init(&q, err);
    if (rc)
        return rc;
    json_t *arr = json_array(), *resp = NULL;
    if (!arr || json_object_set_new(q.j, "TransactItems", arr)) {
        rc = nomem(err);
        goto done;
    }
    for (size_t i = 0; i < n && !rc; i++) {
        if (!gets[i].table || !gets[i].key) {
            rc = ddbi_fail(err, DDB_EINVAL, "TransactGetItems: get %zu needs a table and a key", i);
            break;
        }
        ddb_wire_names m;
        ddbi_rq_names_reset(&q, &m);
        json_t *body = json_object();
        if (!body) {
            rc = nomem(err);
            break;
        }
        if ((rc = ddbi_rq_str(body, "TableName", gets[i].table, err)) || (rc = ddbi_rq_item(body, "Key", gets[i].key, err)) ||
            (rc = ddbi_rq_projection(body, gets[i].projection, NULL, 0, NULL, 0, &m, err)) ||
            (rc = ddbi_rq_names_values(body, &m, NULL, err))) {
            json_decref(body);
            break;
        }
        rc = append(arr, json_pack("{s:o}", "Get", body), err);
    }
    if (rc || (cap && (rc = ddbi_rq_capacity(q.j, rc_mode, err))))
        goto done;
    if ((rc = ddbi_remote_call(r, "TransactGetItems", q.j, &resp, NULL, err)) ||
        (rc = ddbi_remote_parse_capacity("TransactGetItems", json_object_get(resp, "ConsumedCapacity"), REMOTE_READ,
                                    rc_mode, cap, err)))
        goto done;
    const json_t *rs = json_object_get(resp, "Responses");
    if (n && (!json_is_array(rs) || json_array_size(rs) != n)) {
        rc = ddbi_remote_bad(err, "TransactGetItems", "Responses is not an array of %zu entries", n);
        goto done;
    }
    for (size_t i = 0; i < n && !rc; i++) {
        const json_t *e = json_array_get(rs, i);
        if (!json_is_object(e))
            rc = ddbi_remote_bad(err, "TransactGetItems", "Responses[%zu] is not an object", i);
        else
            rc = ddbi_remote_parse_item("TransactGetItems", e, "Item", a, &items[i], err);
    }
done:
    json_decref(resp);
    ddbi_remote_req_free(&q);
    return rc;
}
