/* ddb serve: PartiQL's operations ExecuteStatement, BatchExecuteStatement
 * and ExecuteTransaction (API_ExecuteStatement, API_BatchExecuteStatement,
 * API_ExecuteTransaction).  Each statement is parsed and lowered
 * (partiql_parse.c, partiql_lower.c) into the Query, Scan, GetItem,
 * PutItem, UpdateItem or DeleteItem the JSON API would send, with its
 * expressions, and run through the same libddb calls; a transaction's
 * statements become one TransactGetItems or TransactWriteItems.
 * Calls partiql_*.c, wire.c, reply.c and libddb's public API. */
#include "partiql.h"
#include "serve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One statement of a request, compiled. */
typedef struct pq_run {
    const char *text;
    size_t len;
    pq_keys keys;
    pq_plan plan;
    pq_kind kind;
    ddb_expr *key_condition, *filter, *projection, *condition, *update;
    ddb_return_values on_failure;
    bool consistent;
} pq_run;

/* Statement: required, 1 to 8192 characters (API_ExecuteStatement); its
 * length as JSON gave it (a NUL inside is the parser's error, not the end). */
static int statement_text(serve_req *r, const json_t *o, const char **text, size_t *len)
{
    if (w_str_req(r, o, "Statement", "statement", text))
        return -1;
    size_t n = *len = json_string_length(json_object_get(o, "Statement"));
    if (n < 1 || n > PQ_MAX_STATEMENT)
        return serve_validation(r,
                                "1 validation error detected: Value at 'statement' failed to satisfy constraint: "
                                "Member must have length %s %d",
                                n < 1 ? "greater than or equal to" : "less than or equal to",
                                n < 1 ? 1 : PQ_MAX_STATEMENT);
    return 0;
}

/* Parameters: AttributeValues, at least one when given. */
static int parameters(serve_req *r, const json_t *o, const ddb_value ***out, size_t *n)
{
    *out = NULL;
    *n = 0;
    const json_t *v = json_object_get(o, "Parameters");
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_array(v))
        return serve_fail(r, 400, "SerializationException", "Parameters: expected an array");
    if (!json_array_size(v))
        return serve_validation(r, "1 validation error detected: Value '[]' at 'parameters' failed to satisfy "
                                   "constraint: Member must have length greater than or equal to 1");
    const ddb_value **p = ddb_arena_alloc(r->a, json_array_size(v) * sizeof *p);
    if (!p)
        return serve_fail_code(r, DDB_ENOMEM);
    for (size_t i = 0; i < json_array_size(v); i++) {
        ddb_value *x;
        int rc = ddb_json_to_value(json_array_get(v, i), r->a, &x, &r->err);
        if (rc)
            return serve_fail_code(r, rc);
        p[i] = x;
    }
    *out = p;
    *n = json_array_size(v);
    return 0;
}

/* The key attributes of the table and of the index read. */
static int keys_of(serve_req *r, const char *table, const char *index, pq_keys *k)
{
    ddb_table_desc *d = NULL;
    int rc = ddb_describe_table(r->srv->db, table, r->a, &d, &r->err);
    if (rc)
        return serve_fail_code(r, rc);
    k->table = k->target = d->def.key;
    if (!index)
        return 0;
    for (size_t i = 0; i < d->def.n_indexes; i++)
        if (strcmp(d->def.indexes[i].name, index) == 0) {
            k->target = d->def.indexes[i].key;
            return 0;
        }
    return serve_validation(r, "The table does not have the specified index: %s", index);
}

/* Parse, lower and prepare the statement of o (Statement, Parameters,
 * ReturnValuesOnConditionCheckFailure, ConsistentRead). */
static int compile(serve_req *r, const json_t *o, bool single_item, pq_run *run)
{
    memset(run, 0, sizeof *run);
    const ddb_value **params;
    size_t n;
    pq_stmt *s;
    if (statement_text(r, o, &run->text, &run->len) || parameters(r, o, &params, &n) ||
        w_return_on_failure(r, o, &run->on_failure) || w_bool(r, o, "ConsistentRead", &run->consistent))
        return -1;
    int rc = pq_parse(run->text, run->len, params, n, r->a, &s, &r->err);
    if (rc)
        return serve_fail_code(r, rc);
    run->kind = s->kind;
    if (!r->table)
        r->table = s->table;
    if (s->kind == PQ_EXISTS && !single_item)
        return serve_validation(r, "EXISTS can only be used in ExecuteTransaction write requests.");
    if (keys_of(r, s->table, s->index, &run->keys))
        return -1;
    rc = pq_lower(s, &run->keys, single_item, r->a, &run->plan, &r->err);
    if (rc)
        return serve_fail_code(r, rc);
    const pq_plan *p = &run->plan;
    return w_prepare(r, DDB_EXPR_KEY_CONDITION, p->key_condition, p->names, &run->key_condition) ||
                   w_prepare(r, DDB_EXPR_FILTER, p->filter, p->names, &run->filter) ||
                   w_prepare(r, DDB_EXPR_PROJECTION, p->projection, p->names, &run->projection) ||
                   w_prepare(r, DDB_EXPR_CONDITION, p->condition, p->names, &run->condition) ||
                   w_prepare(r, DDB_EXPR_UPDATE, p->update, p->names, &run->update)
               ? -1
               : 0;
}

/* ---- one statement ------------------------------------------------------ */

typedef struct pq_result {
    ddb_item **items;    /* read: the page; write: RETURNING's item */
    size_t count;
    ddb_item *last_key;
    ddb_item *failed;    /* the stored item of a failed condition (ALL_OLD) */
    ddb_capacity cap;
} pq_result;

static const char *const duplicate_item = "Duplicate primary key exists in table";

/* Run one compiled statement; the libddb code. */
static int run_one(serve_req *r, const pq_run *run, const ddb_item *start, uint32_t limit, ddb_return_capacity rc,
                   pq_result *out)
{
    const pq_plan *p = &run->plan;
    memset(out, 0, sizeof *out);
    ddb_page page;
    memset(&page, 0, sizeof page);
    ddb_write_opts wo = {.return_values = p->returning,
                         .return_capacity = rc,
                         .condition = run->condition,
                         .values = p->values,
                         .return_on_condition_failure = run->on_failure};
    ddb_write_result res;
    memset(&res, 0, sizeof res);
    int code = 0;
    switch (p->call) {
    case PQC_QUERY: {
        ddb_query_params q = {.table = p->table, .index = p->index, .backward = p->backward, .limit = limit,
                              .start_key = start, .consistent = run->consistent, .return_capacity = rc,
                              .filter = run->filter, .projection = run->projection, .values = p->values,
                              .key_condition = run->key_condition};
        code = ddb_query(r->srv->db, &q, r->a, &page, &r->err);
        break;
    }
    case PQC_SCAN: {
        ddb_scan_params q = {.table = p->table, .index = p->index, .limit = limit, .start_key = start,
                             .consistent = run->consistent, .return_capacity = rc, .filter = run->filter,
                             .projection = run->projection, .values = p->values};
        code = ddb_scan(r->srv->db, &q, r->a, &page, &r->err);
        break;
    }
    case PQC_GET: {
        ddb_get_opts g = {.consistent = run->consistent, .return_capacity = rc, .projection = run->projection};
        ddb_item *it = NULL;
        code = ddb_get_item(r->srv->db, p->table, p->key, &g, r->a, &it, &out->cap, &r->err);
        if (code == DDB_ENOTFOUND) {
            code = 0; /* no item: an empty answer, no error */
            memset(&r->err, 0, sizeof r->err);
        }
        out->items = ddb_arena_alloc(r->a, sizeof *out->items);
        if (!code && !out->items)
            code = DDB_ENOMEM;
        if (!code && it)
            out->items[out->count++] = it;
        return code;
    }
    case PQC_PUT:
        code = ddb_put_item(r->srv->db, p->table, p->key, &wo, r->a, &res, &r->err);
        break;
    case PQC_UPDATE:
        code = ddb_update_item(r->srv->db, p->table, p->key, run->update, &wo, r->a, &res, &r->err);
        break;
    case PQC_DELETE:
        code = ddb_delete_item(r->srv->db, p->table, p->key, &wo, r->a, &res, &r->err);
        break;
    case PQC_CHECK:
        return serve_validation(r, "EXISTS can only be used in ExecuteTransaction write requests.");
    }
    if (p->call == PQC_QUERY || p->call == PQC_SCAN) {
        out->items = page.items;
        out->count = page.count;
        out->last_key = page.last_key;
        out->cap = page.capacity;
        return code;
    }
    out->cap = res.capacity;
    if (code == DDB_ECONDITION) {
        out->failed = res.attributes;
        if (p->call == PQC_PUT)
            snprintf(r->err.message, sizeof r->err.message, "%s", duplicate_item);
        return code;
    }
    if (!code && res.attributes && ddb_item_count(res.attributes)) {
        out->items = ddb_arena_alloc(r->a, sizeof *out->items);
        if (!out->items)
            return DDB_ENOMEM;
        out->items[out->count++] = res.attributes;
    }
    return code;
}

static json_t *items_json(serve_req *r, const pq_result *res)
{
    json_t *items = json_array();
    for (size_t i = 0; items && i < res->count; i++) {
        json_t *j = w_item_json(r, res->items[i]);
        if (!j) {
            json_decref(items);
            return NULL;
        }
        json_array_append_new(items, j);
    }
    return items;
}

/* What a NextToken is bound to: the statement and its Parameters. */
static const char *request_identity(serve_req *r, const pq_run *run)
{
    const json_t *params = json_object_get(r->in, "Parameters");
    char *p = params ? json_dumps(params, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    size_t n = strlen(run->text) + (p ? strlen(p) : 0) + 2;
    char *s = ddb_arena_alloc(r->a, n);
    if (s)
        snprintf(s, n, "%s\n%s", run->text, p ? p : "");
    free(p);
    return s ? s : run->text;
}

int op_execute_statement(serve_req *r)
{
    pq_run run;
    const char *token;
    uint64_t limit = 0;
    bool has_limit;
    ddb_return_capacity rc;
    if (w_str(r, r->in, "NextToken", &token) ||
        w_uint(r, r->in, "Limit", "limit", 1, UINT32_MAX, &limit, &has_limit) || w_capacity(r, r->in, &rc) ||
        compile(r, r->in, false, &run))
        return -1;
    ddb_item *start = NULL;
    if (token && run.kind == PQ_SELECT) {
        int code = pq_token_decode(request_identity(r, &run), token, r->a, &start, &r->err);
        if (code)
            return serve_fail_code(r, code);
    }
    pq_result res;
    int code = run_one(r, &run, start, (uint32_t)limit, rc, &res);
    if (code == DDB_ECONDITION && run.plan.call == PQC_PUT)
        /* API_ExecuteStatement: DuplicateItemException for an INSERT of a key that exists */
        return serve_fail(r, 400, "DuplicateItemException", "%s", duplicate_item);
    if (code == DDB_ECONDITION && res.failed) {
        json_t *j = w_item_json(r, res.failed);
        if (j)
            r->fail_extra = json_pack("{s:o}", "Item", j);
    }
    if (code)
        return r->fail_type ? code : serve_fail_code(r, code);
    json_t *items = items_json(r, &res);
    if (!items)
        return serve_fail_code(r, r->err.code ? r->err.code : DDB_ENOMEM);
    json_object_set_new(r->out, "Items", items);
    if (res.last_key) {
        char *next;
        json_t *lek = w_item_json(r, res.last_key);
        code = pq_token_encode(request_identity(r, &run), res.last_key, r->a, &next, &r->err);
        if (code || !lek) {
            json_decref(lek);
            return serve_fail_code(r, code ? code : r->err.code);
        }
        json_object_set_new(r->out, "NextToken", json_string(next));
        json_object_set_new(r->out, "LastEvaluatedKey", lek);
    }
    json_t *c = w_capacity_json(r, run.plan.table, rc, &res.cap);
    if (c)
        json_object_set_new(r->out, "ConsumedCapacity", c);
    return 0;
}

/* ---- batches and transactions ---------------------------------------------- */

/* A required array member of 1 to max entries. */
static const json_t *statement_list(serve_req *r, const char *name, const char *path, size_t max)
{
    const json_t *v = json_object_get(r->in, name);
    if (!v || json_is_null(v)) {
        serve_validation(r, "1 validation error detected: Value null at '%s' failed to satisfy constraint: Member "
                            "must not be null",
                         path);
        return NULL;
    }
    if (!json_is_array(v)) {
        serve_fail(r, 400, "SerializationException", "%s: expected an array", name);
        return NULL;
    }
    size_t n = json_array_size(v);
    if (n < 1 || n > max) {
        serve_validation(r,
                         "1 validation error detected: Value at '%s' failed to satisfy constraint: Member must have "
                         "length %s %zu",
                         path, n < 1 ? "greater than or equal to" : "less than or equal to", n < 1 ? (size_t)1 : max);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        if (!json_is_object(json_array_get(v, i))) {
            serve_fail(r, 400, "SerializationException", "%s: expected objects", name);
            return NULL;
        }
    return v;
}

static bool is_read(const pq_run *run)
{
    return run->kind == PQ_SELECT;
}

/* The per-table sum of the capacity of a batch's statements. */
typedef struct cap_sums {
    const char **tables;
    ddb_capacity *caps;
    size_t n;
} cap_sums;

static void cap_add(cap_sums *s, const char *table, const ddb_capacity *c)
{
    size_t i = 0;
    while (i < s->n && strcmp(s->tables[i], table))
        i++;
    if (i == s->n) {
        s->tables[s->n] = table;
        memset(&s->caps[s->n++], 0, sizeof *s->caps);
    }
    s->caps[i].total += c->total;
    s->caps[i].read += c->read;
    s->caps[i].write += c->write;
    s->caps[i].table_read += c->table_read;
    s->caps[i].table_write += c->table_write;
}

static void cap_reply(serve_req *r, const cap_sums *s, ddb_return_capacity rc)
{
    if (rc == DDB_CAPACITY_NONE)
        return;
    json_t *list = json_array();
    for (size_t i = 0; i < s->n; i++)
        json_array_append_new(list, w_capacity_json(r, s->tables[i], DDB_CAPACITY_TOTAL, &s->caps[i]));
    json_object_set_new(r->out, "ConsumedCapacity", list);
}

/* BatchStatementError.Code of a failed statement (API_BatchStatementError). */
static const char *batch_error_code(const serve_req *r, int code)
{
    if (r->fail_type && strcmp(r->fail_type, "ResourceNotFoundException") == 0)
        return "ResourceNotFound";
    switch (code) {
    case DDB_ECONDITION: return "ConditionalCheckFailed";
    case DDB_ETHROTTLED: return "ThrottlingError";
    case DDB_ENOTABLE: return "ResourceNotFound";
    case DDB_ENOMEM:
    case DDB_EIO:
    case DDB_ECORRUPT: return "InternalServerError";
    default: return "ValidationError";
    }
}

/* The statements of a batch or transaction, compiled.  errors NULL
 * (transactions): the first statement that does not compile fails the
 * request; otherwise (batches) its error entry goes to errors[i] and the
 * request goes on (API_BatchStatementResponse: Error). */
static int compile_all(serve_req *r, const json_t *list, pq_run *runs, json_t **errors)
{
    for (size_t i = 0; i < json_array_size(list); i++) {
        int code = compile(r, json_array_get(list, i), true, &runs[i]);
        if (!code)
            continue;
        if (!errors)
            return -1;
        if (!r->fail_type)
            serve_fail_code(r, code);
        errors[i] = json_pack("{s:{s:s,s:s}}", "Error", "Code", batch_error_code(r, code), "Message", r->err.message);
        if (!errors[i])
            return serve_fail_code(r, DDB_ENOMEM);
        r->fail_type = NULL;
        r->fail_status = 0;
        memset(&r->err, 0, sizeof r->err);
    }
    return 0;
}

/* Do two statements of a batch name one item? */
static bool same_item(const pq_run *a, const pq_run *b)
{
    if (strcmp(a->plan.table, b->plan.table) || !a->plan.key || !b->plan.key)
        return false;
    const char *attrs[2] = {a->keys.table.pk, a->keys.table.sk};
    for (int k = 0; k < 2; k++) {
        const ddb_value *x = attrs[k] ? ddb_item_get(a->plan.key, attrs[k]) : NULL;
        const ddb_value *y = attrs[k] ? ddb_item_get(b->plan.key, attrs[k]) : NULL;
        if (!x != !y || (x && !ddb_value_equal(x, y)))
            return false;
    }
    return true;
}

/* API_BatchExecuteStatement: up to 25 statements, all reads or all writes,
 * each run on its own and answered with its item or its error. */
int op_batch_execute_statement(serve_req *r)
{
    const json_t *list = statement_list(r, "Statements", "statements", 25);
    ddb_return_capacity rc;
    if (!list || w_capacity(r, r->in, &rc))
        return -1;
    size_t n = json_array_size(list);
    pq_run *runs = ddb_arena_alloc(r->a, n * sizeof *runs);
    json_t **errors = ddb_arena_alloc(r->a, n * sizeof *errors);
    cap_sums sums = {ddb_arena_alloc(r->a, n * sizeof(char *)), ddb_arena_alloc(r->a, n * sizeof(ddb_capacity)), 0};
    if (!runs || !errors || !sums.tables || !sums.caps)
        return serve_fail_code(r, DDB_ENOMEM);
    memset(errors, 0, n * sizeof *errors);
    json_t *responses = json_array();
    json_object_set_new(r->out, "Responses", responses);
    int rc2 = compile_all(r, list, runs, errors);
    bool reads = false, writes = false;
    for (size_t i = 0; i < n; i++)
        if (!errors[i])
            *(is_read(&runs[i]) ? &reads : &writes) = true;
    /* developer guide, "Running batch operations with PartiQL": a batch
     * is either all reads or all writes (DynamoDB's words as DynamoDB Local
     * has them) */
    if (!rc2 && reads && writes)
        rc2 = serve_validation(r, "Read and write requests together in the same batch is not supported.");
    for (size_t i = 0; !rc2 && i < n; i++)
        for (size_t j = 0; !rc2 && !errors[i] && j < i; j++)
            if (!errors[j] && same_item(&runs[i], &runs[j]))
                rc2 = serve_validation(r, "Provided list of item keys contains duplicates");
    for (size_t i = 0; i < n; i++) {
        if (errors[i]) {
            json_array_append_new(responses, errors[i]);
            continue;
        }
        if (rc2)
            continue;
        pq_result res;
        int code = run_one(r, &runs[i], NULL, 0, rc, &res);
        cap_add(&sums, runs[i].plan.table, &res.cap);
        json_t *entry = json_pack("{s:s}", "TableName", runs[i].plan.table);
        if (code) {
            if (!r->fail_type)
                serve_fail_code(r, code);
            bool dup = code == DDB_ECONDITION && runs[i].plan.call == PQC_PUT;
            json_t *e = json_pack("{s:s,s:s}", "Code", dup ? "DuplicateItem" : batch_error_code(r, code), "Message",
                                  r->err.message);
            json_t *old = res.failed ? w_item_json(r, res.failed) : NULL;
            if (old)
                json_object_set_new(e, "Item", old);
            json_object_set_new(entry, "Error", e);
            r->fail_type = NULL;
            r->fail_status = 0;
            memset(&r->err, 0, sizeof r->err);
        } else if (res.count) {
            json_t *j = w_item_json(r, res.items[0]);
            if (j)
                json_object_set_new(entry, "Item", j);
        }
        json_array_append_new(responses, entry);
    }
    if (rc2)
        return rc2;
    cap_reply(r, &sums, rc);
    return 0;
}

/* CancellationReasons[i] of a cancelled ExecuteTransaction: an INSERT
 * whose key exists is DuplicateItem (API_CancellationReason). */
static json_t *cancel_reason(serve_req *r, const pq_run *run, int code, const ddb_item *item)
{
    const char *c = "None", *m = NULL;
    if (code == DDB_ECONDITION && run->plan.call == PQC_PUT)
        c = "DuplicateItem", m = duplicate_item;
    else if (code == DDB_ECONDITION)
        c = "ConditionalCheckFailed", m = "The conditional request failed";
    else if (code == DDB_ETHROTTLED)
        c = "ThrottlingError";
    else if (code)
        c = "ValidationError";
    json_t *o = json_pack("{s:s}", "Code", c);
    if (m)
        json_object_set_new(o, "Message", json_string(m));
    json_t *j = item ? w_item_json(r, item) : NULL;
    if (j)
        json_object_set_new(o, "Item", j);
    return o;
}

static int transact_reads(serve_req *r, const pq_run *runs, size_t n, ddb_return_capacity rc)
{
    ddb_tx_get *gets = ddb_arena_alloc(r->a, n * sizeof *gets);
    ddb_item **items = ddb_arena_alloc(r->a, n * sizeof *items);
    if (!gets || !items)
        return serve_fail_code(r, DDB_ENOMEM);
    for (size_t i = 0; i < n; i++) {
        if (runs[i].plan.call != PQC_GET || runs[i].filter)
            return serve_validation(r, "Select statements within ExecuteTransaction must specify the primary key in "
                                       "the where clause.");
        gets[i] = (ddb_tx_get){runs[i].plan.table, runs[i].plan.key, runs[i].projection};
    }
    ddb_capacity cap;
    memset(&cap, 0, sizeof cap);
    int code = ddb_transact_get(r->srv->db, gets, n, r->a, items, rc, &cap, &r->err);
    if (code)
        return serve_fail_code(r, code);
    json_t *resp = json_array();
    json_object_set_new(r->out, "Responses", resp);
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_object();
        json_array_append_new(resp, o);
        json_t *j = items[i] ? w_item_json(r, items[i]) : NULL;
        if (j)
            json_object_set_new(o, "Item", j);
    }
    json_t *c = w_capacity_json(r, runs[0].plan.table, rc, &cap);
    if (c)
        json_object_set_new(r->out, "ConsumedCapacity", json_pack("[o]", c));
    return 0;
}

static int transact_writes(serve_req *r, const pq_run *runs, size_t n, ddb_return_capacity rc, const char *token)
{
    ddb_tx_op *ops = ddb_arena_alloc(r->a, n * sizeof *ops);
    if (!ops)
        return serve_fail_code(r, DDB_ENOMEM);
    for (size_t i = 0; i < n; i++) {
        const pq_plan *p = &runs[i].plan;
        ddb_tx_kind k = p->call == PQC_PUT      ? DDB_TX_PUT
                        : p->call == PQC_UPDATE ? DDB_TX_UPDATE
                        : p->call == PQC_DELETE ? DDB_TX_DELETE
                                                : DDB_TX_CHECK;
        if (p->returning != DDB_RETURN_NONE)
            return serve_validation(r, "RETURNING is not supported in ExecuteTransaction");
        ops[i] = (ddb_tx_op){.kind = k, .table = p->table, .item = p->key, .update = runs[i].update,
                             .condition = runs[i].condition, .values = p->values,
                             .return_on_condition_failure = runs[i].on_failure};
    }
    ddb_tx_result res;
    memset(&res, 0, sizeof res);
    ddb_tx_opts to = {.return_capacity = rc, .client_request_token = token};
    int code = ddb_transact_write_opts(r->srv->db, ops, n, &to, r->a, &res, &r->err);
    if (code == DDB_ECANCELED && res.reasons) {
        json_t *reasons = json_array();
        for (size_t i = 0; i < n; i++)
            json_array_append_new(reasons,
                                  cancel_reason(r, &runs[i], res.reasons[i], res.items ? res.items[i] : NULL));
        r->fail_extra = json_pack("{s:o}", "CancellationReasons", reasons);
    }
    if (code)
        return serve_fail_code(r, code);
    /* writes answer an empty Responses list (as DynamoDB Local does) */
    json_object_set_new(r->out, "Responses", json_array());
    json_t *c = w_capacity_json(r, runs[0].plan.table, rc, &res.capacity);
    if (c)
        json_object_set_new(r->out, "ConsumedCapacity", json_pack("[o]", c));
    return 0;
}

/* API_ExecuteTransaction: up to 100 statements, all SELECTs of one item
 * (TransactGetItems) or all writes and EXISTS checks (TransactWriteItems). */
int op_execute_transaction(serve_req *r)
{
    const json_t *list = statement_list(r, "TransactStatements", "transactStatements", 100);
    ddb_return_capacity rc;
    const char *token;
    if (!list || w_capacity(r, r->in, &rc) || w_str(r, r->in, "ClientRequestToken", &token))
        return -1;
    size_t n = json_array_size(list);
    pq_run *runs = ddb_arena_alloc(r->a, n * sizeof *runs);
    if (!runs)
        return serve_fail_code(r, DDB_ENOMEM);
    if (compile_all(r, list, runs, NULL))
        return -1;
    size_t reads = 0;
    for (size_t i = 0; i < n; i++)
        reads += is_read(&runs[i]);
    if (reads && reads != n)
        /* DynamoDB's words as DynamoDB Local has them */
        return serve_validation(r, "ExecuteTransaction API does not support both read and write operations in the "
                                   "same request.");
    return reads ? transact_reads(r, runs, n, rc) : transact_writes(r, runs, n, rc, token);
}
