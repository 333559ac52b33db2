/* The conformance corpus runner: each case of cases.json is a DynamoDB
 * request (or a few, in order), DynamoDB's documented answer and where that
 * answer is documented.  The runner replays the requests through the C API
 * against one backend and compares what comes back:
 *
 *   test_conformance CASES_DIR embedded          a fresh database directory
 *   test_conformance CASES_DIR dynalite SH DIR   dynalite started by dynalite.sh
 *                                                (exit 77 = skipped without node)
 *
 * CASES_DIR holds one JSON file per subject (read in name order).
 *
 * Against dynalite only the cases marked "dynalite": true run (dynalite
 * departs from DynamoDB elsewhere; the case's "dynalite_note" says how;
 * DDB_CONFORMANCE_ALL=1 runs them all, to review those notes).
 * Expressions are prepared by our parser on both backends, so a case whose
 * answer comes from preparing an expression tests our parser either way.
 *
 * Case file format (JSON; table names are per file):
 *   {"tables": {"NAME": {"pk": ["p","S"], "sk": ["c","N"],
 *                        "gsi": [{"name": "g1", "pk": ["g","S"], "sk": [...]}],
 *                        "lsi": [...]}},
 *    "cases": [{"id": "...", "item": 15, "source": "URL or test suite file",
 *               "tables": ["NAME"], "dynalite": true, "dynalite_note": "...",
 *               "steps": [{"op": "UpdateItem", "TableName": "NAME", ...request...,
 *                          "expect": {...}}]}]}
 * Values are DynamoDB JSON, plus {"S_repeat": ["a", N]} for a string of N
 * 'a's.  Requests use DynamoDB's parameter names (Key, Item, UpdateExpression,
 * ConditionExpression, FilterExpression, ProjectionExpression,
 * KeyConditionExpression, ExpressionAttributeNames/Values, ReturnValues,
 * ReturnConsumedCapacity, ConsistentRead, IndexName, Limit,
 * ExclusiveStartKey, ScanIndexForward, Segment, TotalSegments); op
 * CreateTable takes TableName and "Like" (a table definition; an index
 * definition may add "projection": "KEYS_ONLY"/"INCLUDE" and "include": [..],
 * and "gsi_repeat": N adds N copies of its first GSI, named g<i>); op
 * UpdateTable takes TableName and "CreateIndex" (an index definition, as
 * GlobalSecondaryIndexUpdates' Create).
 * BatchWriteItem and BatchGetItem take "RequestItems" (PutRequest /
 * DeleteRequest, Keys), TransactWriteItems "TransactItems" (Put / Delete)
 * and TransactGetItems "TransactItems" (Get), as DynamoDB does; in any of
 * those lists {"Repeat": N, "Of": X} stands for N copies of X with "{i}" in
 * its strings replaced by 0..N-1.  expect:
 * "error" (exception name) and "message" (the answer must start with it:
 * our extra detail may follow; "{echo}" in it stands for the request value
 * DynamoDB echoes, which no implementation reproduces), or "ok": true
 * and any of "Attributes", "Item" (null = absent), "Items" (in order),
 * "Count", "LastEvaluatedKey" (null = none), "CapacityUnits".  A step
 * without expect must succeed. */
#include <ddb/json.h>

#include <ddb/ddb.h>
#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct runner {
    ddb *db;
    bool remote;
    const json_t *tables; /* the file's table definitions */
    char prefix[64];      /* table names are prefixed per run */
    int failed, passed, skipped;
} runner;

/* ---- Requests ------------------------------------------------------------------ */

typedef struct step_ctx {
    ddb_arena *a;
    ddb_item *names, *values;
    ddb_expr *ex[4];
    size_t nex;
    char table[300];
} step_ctx;

/* The exception name DynamoDB would answer for a code. */
static const char *exception_of(int rc)
{
    switch (rc) {
    case DDB_EVALIDATION:
    case DDB_ELIMIT: return "ValidationException";
    case DDB_ECONDITION: return "ConditionalCheckFailedException";
    case DDB_ENOTABLE: return "ResourceNotFoundException";
    case DDB_EEXISTS: return "ResourceInUseException";
    case DDB_ECANCELED: return "TransactionCanceledException";
    default: return "OtherError";
    }
}

/* A DynamoDB JSON value; an empty set is built as such (the requests of
 * the corpus carry them on purpose: DynamoDB's answer is what is tested).
 * {"S_repeat": ["a", 2049]} is the corpus's shorthand for a long string. */
static int to_value(const json_t *j, ddb_arena *a, ddb_value **out, ddb_error *err)
{
    const json_t *rep = json_object_get(j, "S_repeat");
    if (rep) {
        const char *c = json_string_value(json_array_get(rep, 0));
        json_int_t n = json_integer_value(json_array_get(rep, 1));
        char *buf = n > 0 && n <= 1 << 20 && c && c[0] ? malloc((size_t)n) : NULL;
        if (!buf) {
            snprintf(err->message, sizeof err->message, "corpus: bad S_repeat");
            return err->code = DDB_EINVAL;
        }
        memset(buf, c[0], (size_t)n);
        *out = ddb_v_s(a, buf, (size_t)n);
        free(buf);
        return *out ? DDB_OK : DDB_ENOMEM;
    }
    static const struct {
        const char *key;
        ddb_type t;
    } sets[] = {{"SS", DDB_TSS}, {"NS", DDB_TNS}, {"BS", DDB_TBS}};
    for (size_t i = 0; json_is_object(j) && json_object_size(j) == 1 && i < 3; i++) {
        const json_t *v = json_object_get(j, sets[i].key);
        if (json_is_array(v) && json_array_size(v) == 0)
            return (*out = ddb_v_set(a, sets[i].t)) ? DDB_OK : DDB_ENOMEM;
    }
    /* a number through ddb_v_n(): its errors are the number module's */
    const char *n = json_string_value(json_object_get(j, "N"));
    if (n && json_object_size(j) == 1)
        return ddb_v_n(a, n, out, err);
    return ddb_json_to_value(j, a, out, err);
}

static int to_item(const json_t *j, ddb_arena *a, ddb_item **out, ddb_error *err)
{
    if (!json_is_object(j)) {
        snprintf(err->message, sizeof err->message, "corpus: an item must be a JSON object");
        return err->code = DDB_EINVAL;
    }
    ddb_item *it = ddb_item_new(a);
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)j, k, v) {
        ddb_value *x;
        int rc = to_value(v, a, &x, err);
        if (rc)
            return rc;
        if (ddb_item_set(it, k, x))
            return DDB_ENOMEM;
    }
    *out = it;
    return DDB_OK;
}

static void table_name(const runner *r, const char *logical, char *out, size_t cap)
{
    /* a name the corpus means as invalid is passed unchanged */
    if (json_object_get(r->tables, logical))
        snprintf(out, cap, "%s%s", r->prefix, logical);
    else
        snprintf(out, cap, "%s", logical);
}

static int prepare(step_ctx *c, const json_t *req, const char *param, ddb_expr_kind kind, ddb_expr **out,
                   ddb_error *err)
{
    *out = NULL;
    const char *text = json_string_value(json_object_get(req, param));
    if (!text)
        return DDB_OK;
    int rc = ddb_expr_prepare(kind, text, c->names, out, err);
    if (!rc)
        c->ex[c->nex++] = *out;
    return rc;
}

static ddb_return_values return_values(const json_t *req)
{
    static const char *const names[] = {"NONE", "ALL_OLD", "UPDATED_OLD", "ALL_NEW", "UPDATED_NEW"};
    const char *s = json_string_value(json_object_get(req, "ReturnValues"));
    for (int i = 0; s && i < 5; i++)
        if (strcmp(s, names[i]) == 0)
            return (ddb_return_values)i;
    return DDB_RETURN_NONE;
}

static ddb_return_capacity return_capacity(const json_t *req)
{
    const char *s = json_string_value(json_object_get(req, "ReturnConsumedCapacity"));
    return !s ? DDB_CAPACITY_NONE : strcmp(s, "INDEXES") == 0 ? DDB_CAPACITY_INDEXES : strcmp(s, "TOTAL") == 0
                                                                                         ? DDB_CAPACITY_TOTAL
                                                                                         : DDB_CAPACITY_NONE;
}

/* What a request returned, in the corpus's terms. */
typedef struct answer {
    int rc;
    ddb_error err;
    bool has_attrs, has_item, has_page;
    ddb_item *attrs, *item;
    ddb_page page;
    double capacity;
} answer;

static int opt_item(const json_t *req, const char *param, ddb_arena *a, ddb_item **out, ddb_error *err)
{
    *out = NULL;
    const json_t *j = json_object_get(req, param);
    return j ? to_item(j, a, out, err) : DDB_OK;
}

/* ---- Lists with {"Repeat": N, "Of": X} ----------------------------------- */

/* A deep copy of j with "{i}" in its strings replaced by i. */
static json_t *subst(const json_t *j, int i)
{
    if (json_is_string(j)) {
        const char *v = json_string_value(j), *at = strstr(v, "{i}");
        if (!at)
            return json_deep_copy(j);
        char buf[512];
        snprintf(buf, sizeof buf, "%.*s%d%s", (int)(at - v), v, i, at + 3);
        return json_string(buf);
    }
    json_t *out;
    if (json_is_array(j)) {
        out = json_array();
        size_t k;
        const json_t *x;
        json_array_foreach((json_t *)j, k, x) json_array_append_new(out, subst(x, i));
        return out;
    }
    if (json_is_object(j)) {
        out = json_object();
        const char *key;
        json_t *x;
        json_object_foreach((json_t *)j, key, x) json_object_set_new(out, key, subst(x, i));
        return out;
    }
    return json_deep_copy(j);
}

/* A new array: list with every {"Repeat": N, "Of": X} expanded. */
static json_t *expand(const json_t *list)
{
    json_t *out = json_array();
    size_t k;
    const json_t *x;
    json_array_foreach((json_t *)list, k, x) {
        const json_t *of = json_object_get(x, "Of");
        json_int_t n = json_integer_value(json_object_get(x, "Repeat"));
        if (!of) {
            json_array_append(out, (json_t *)x);
            continue;
        }
        for (json_int_t i = 0; i < n && i < 100000; i++)
            json_array_append_new(out, subst(of, (int)i));
    }
    return out;
}

/* ---- Batches and transactions ---------------------------------------------------- */

static void *zalloc(ddb_arena *a, size_t size)
{
    void *p = ddb_arena_alloc(a, size);
    if (p)
        memset(p, 0, size);
    return p;
}

static const char *arena_table(runner *r, ddb_arena *a, const char *logical)
{
    char name[300];
    table_name(r, logical ? logical : "", name, sizeof name);
    return ddb_arena_strdup(a, name);
}

/* One request of a batch or transaction: {"Put": {"TableName", "Item"}},
 * {"Delete": {"TableName", "Key"}} or {"Get": {"TableName", "Key"}}. */
static json_t *request_of(const char *kind, const char *table, const char *field, const json_t *item)
{
    return json_pack("{s:{s:s, s:O}}", kind, "TableName", table, field, item);
}

/* BatchWriteItem's / BatchGetItem's "RequestItems" as a list of requests. */
static json_t *batch_requests(const json_t *ri, bool get)
{
    json_t *all = json_array(), *v;
    const char *tn;
    json_object_foreach((json_t *)ri, tn, v) {
        json_t *list = expand(get ? json_object_get(v, "Keys") : v), *x;
        size_t k;
        json_array_foreach(list, k, x) {
            const json_t *put = json_object_get(json_object_get(x, "PutRequest"), "Item");
            const json_t *del = json_object_get(json_object_get(x, "DeleteRequest"), "Key");
            json_array_append_new(all, get   ? request_of("Get", tn, "Key", x)
                                       : put ? request_of("Put", tn, "Item", put)
                                             : request_of("Delete", tn, "Key", del ? del : json_null()));
        }
        json_decref(list);
    }
    return all;
}

/* A batch or transaction of requests (request_of's form) through the API
 * named by op. */
static int run_requests(runner *r, step_ctx *c, const char *op, json_t *list, ddb_error *err)
{
    size_t n = json_array_size(list);
    ddb_tx_op *w = zalloc(c->a, (n + 1) * sizeof *w);
    ddb_item **items = zalloc(c->a, (n + 1) * sizeof *items);
    int rc = w && items ? DDB_OK : DDB_ENOMEM;
    for (size_t i = 0; i < n && !rc; i++) {
        const json_t *x = json_array_get(list, i), *put = json_object_get(x, "Put"), *body;
        body = put ? put : json_object_get(x, "Delete") ? json_object_get(x, "Delete") : json_object_get(x, "Get");
        w[i].table = arena_table(r, c->a, json_string_value(json_object_get(body, "TableName")));
        w[i].kind = put ? DDB_TX_PUT : DDB_TX_DELETE;
        ddb_item *it = NULL;
        rc = to_item(json_object_get(body, put ? "Item" : "Key"), c->a, &it, err);
        w[i].item = it;
    }
    json_decref(list);
    ddb_batch_write_op *bw = zalloc(c->a, (n + 1) * sizeof *bw);
    ddb_batch_get_op *bg = zalloc(c->a, (n + 1) * sizeof *bg);
    ddb_tx_get *tg = zalloc(c->a, (n + 1) * sizeof *tg);
    if (!rc && !(bw && bg && tg))
        rc = DDB_ENOMEM;
    for (size_t i = 0; i < n && !rc; i++) {
        bw[i] = (ddb_batch_write_op){w[i].table, w[i].kind == DDB_TX_PUT ? w[i].item : NULL,
                                     w[i].kind == DDB_TX_PUT ? NULL : w[i].item};
        bg[i] = (ddb_batch_get_op){.table = w[i].table, .key = w[i].item};
        tg[i] = (ddb_tx_get){.table = w[i].table, .key = w[i].item};
    }
    if (rc)
        return rc;
    ddb_tx_result res;
    if (strcmp(op, "BatchWriteItem") == 0)
        return ddb_batch_write(r->db, bw, n, DDB_CAPACITY_NONE, NULL, err);
    if (strcmp(op, "BatchGetItem") == 0)
        return ddb_batch_get(r->db, bg, n, c->a, items, DDB_CAPACITY_NONE, NULL, err);
    if (strcmp(op, "TransactGetItems") == 0)
        return ddb_transact_get(r->db, tg, n, c->a, items, DDB_CAPACITY_NONE, NULL, err);
    return ddb_transact_write(r->db, w, n, DDB_CAPACITY_NONE, c->a, &res, err);
}

static int create_table_as(runner *r, const char *logical, const char *name, ddb_error *err);
static ddb_index_def index_def(const json_t *x, bool local, ddb_arena *a);

static void run_request(runner *r, step_ctx *c, const json_t *req, answer *ans)
{
    ddb_error *err = &ans->err;
    const char *op = json_string_value(json_object_get(req, "op"));
    const char *tn = json_string_value(json_object_get(req, "TableName"));
    table_name(r, tn ? tn : "", c->table, sizeof c->table);
    int rc;
    ddb_expr *cond, *upd, *filter, *proj, *kc;
    ddb_item *key, *item, *start;
    /* ExpressionAttributeNames as DynamoDB takes them ({"#n": "name"}) */
    json_t *names = json_object();
    const char *nk;
    json_t *nv;
    json_object_foreach(json_object_get(req, "ExpressionAttributeNames"), nk, nv)
        json_object_set_new(names, nk, json_pack("{s:O}", "S", nv));
    rc = json_object_size(names) ? to_item(names, c->a, &c->names, err) : DDB_OK;
    json_decref(names);
    if (rc ||
        (rc = opt_item(req, "ExpressionAttributeValues", c->a, &c->values, err)) ||
        (rc = opt_item(req, "Key", c->a, &key, err)) || (rc = opt_item(req, "Item", c->a, &item, err)) ||
        (rc = opt_item(req, "ExclusiveStartKey", c->a, &start, err)) ||
        (rc = prepare(c, req, "ConditionExpression", DDB_EXPR_CONDITION, &cond, err)) ||
        (rc = prepare(c, req, "UpdateExpression", DDB_EXPR_UPDATE, &upd, err)) ||
        (rc = prepare(c, req, "FilterExpression", DDB_EXPR_FILTER, &filter, err)) ||
        (rc = prepare(c, req, "ProjectionExpression", DDB_EXPR_PROJECTION, &proj, err)) ||
        (rc = prepare(c, req, "KeyConditionExpression", DDB_EXPR_KEY_CONDITION, &kc, err))) {
        ans->rc = rc;
        return;
    }
    ddb_return_capacity rcap = return_capacity(req);
    bool consistent = json_is_true(json_object_get(req, "ConsistentRead"));
    const char *index = json_string_value(json_object_get(req, "IndexName"));
    uint32_t limit = (uint32_t)json_integer_value(json_object_get(req, "Limit"));
    ddb_write_opts wo = {return_values(req), rcap, cond, c->values, DDB_RETURN_NONE};
    ddb_write_result wr;
    memset(&wr, 0, sizeof wr);
    if (!op) {
        snprintf(err->message, sizeof err->message, "corpus: a step needs \"op\"");
        rc = DDB_EINVAL;
    } else if (strcmp(op, "PutItem") == 0) {
        rc = ddb_put_item(r->db, c->table, item, &wo, c->a, &wr, err);
        ans->has_attrs = true;
    } else if (strcmp(op, "UpdateItem") == 0) {
        rc = ddb_update_item(r->db, c->table, key, upd, &wo, c->a, &wr, err);
        ans->has_attrs = true;
    } else if (strcmp(op, "DeleteItem") == 0) {
        rc = ddb_delete_item(r->db, c->table, key, &wo, c->a, &wr, err);
        ans->has_attrs = true;
    } else if (strcmp(op, "GetItem") == 0) {
        ddb_get_opts go = {.consistent = consistent, .return_capacity = rcap, .projection = proj};
        ddb_capacity cap;
        memset(&cap, 0, sizeof cap);
        rc = ddb_get_item(r->db, c->table, key, &go, c->a, &ans->item, &cap, err);
        if (rc == DDB_ENOTFOUND)
            rc = DDB_OK;
        ans->has_item = true;
        ans->capacity = cap.total;
    } else if (strcmp(op, "Query") == 0 || strcmp(op, "Scan") == 0) {
        if (op[0] == 'Q') {
            ddb_query_params q = {.table = c->table, .index = index, .limit = limit, .start_key = start,
                                  .consistent = consistent, .return_capacity = rcap, .filter = filter,
                                  .projection = proj, .values = c->values, .key_condition = kc};
            q.backward = json_is_false(json_object_get(req, "ScanIndexForward"));
            rc = ddb_query(r->db, &q, c->a, &ans->page, err);
        } else {
            ddb_scan_params s = {.table = c->table, .index = index, .limit = limit, .start_key = start,
                                 .consistent = consistent, .return_capacity = rcap, .filter = filter,
                                 .projection = proj, .values = c->values};
            s.segment = (uint32_t)json_integer_value(json_object_get(req, "Segment"));
            s.total_segments = (uint32_t)json_integer_value(json_object_get(req, "TotalSegments"));
            rc = ddb_scan(r->db, &s, c->a, &ans->page, err);
        }
        ans->has_page = true;
        ans->capacity = ans->page.capacity.total;
    } else if (strcmp(op, "BatchWriteItem") == 0 || strcmp(op, "BatchGetItem") == 0) {
        rc = run_requests(r, c, op, batch_requests(json_object_get(req, "RequestItems"), op[5] == 'G'), err);
    } else if (strcmp(op, "TransactWriteItems") == 0 || strcmp(op, "TransactGetItems") == 0) {
        rc = run_requests(r, c, op, expand(json_object_get(req, "TransactItems")), err);
    } else if (strcmp(op, "UpdateTable") == 0) {
        ddb_index_def x = index_def(json_object_get(req, "CreateIndex"), false, c->a);
        rc = ddb_add_index(r->db, c->table, &x, NULL, NULL, err);
    } else if (strcmp(op, "CreateTable") == 0) {
        /* the key schema of table definition "Like", under TableName as
         * given (a table created here is deleted at once) */
        const char *like = json_string_value(json_object_get(req, "Like"));
        const char *name = json_string_value(json_object_get(req, "TableName"));
        rc = create_table_as(r, like ? like : "", name ? name : "", err);
        if (!rc)
            ddb_delete_table(r->db, name, NULL);
    } else {
        snprintf(err->message, sizeof err->message, "corpus: unknown op %s", op);
        rc = DDB_EINVAL;
    }
    if (ans->has_attrs) {
        ans->attrs = wr.attributes;
        ans->capacity = wr.capacity.total;
    }
    ans->rc = rc;
}

/* ---- Comparing ------------------------------------------------------------------- */

static void show(const ddb_item *it, char *out, size_t cap)
{
    char *s = NULL;
    if (!it)
        snprintf(out, cap, "null");
    else if (ddb_json_dump_item(it, &s, NULL) == 0)
        snprintf(out, cap, "%s", s);
    else
        snprintf(out, cap, "(unprintable)");
    free(s);
}

/* Does item equal the expected JSON (null = no item)?  An empty item
 * counts as none (DynamoDB omits an empty Attributes/Item). */
static bool same_item(const json_t *want, const ddb_item *got, ddb_arena *a, char *why, size_t cap)
{
    ddb_item *w = NULL;
    ddb_error e = {0};
    if (!json_is_null(want) && to_item(want, a, &w, &e)) {
        snprintf(why, cap, "corpus: bad expected item: %s", e.message);
        return false;
    }
    bool wn = !w || ddb_item_count(w) == 0, gn = !got || ddb_item_count(got) == 0;
    if (wn && gn)
        return true;
    if (!wn && !gn && ddb_value_equal(ddb_item_map(w), ddb_item_map(got)))
        return true;
    char g[300], x[300];
    show(got, g, sizeof g);
    show(w, x, sizeof x);
    snprintf(why, cap, "got %s, expected %s", g, x);
    return false;
}

/* Does got start with want, where "{echo}" in want matches any text? */
static bool message_matches(const char *got, const char *want)
{
    const char *echo = strstr(want, "{echo}");
    size_t head = echo ? (size_t)(echo - want) : strlen(want);
    if (strncmp(got, want, head) != 0)
        return false;
    if (!echo)
        return true;
    got += head;
    want = echo + 6;
    /* the rest of want (up to its next {echo}) must follow somewhere */
    const char *next = strstr(want, "{echo}");
    size_t len = next ? (size_t)(next - want) : strlen(want);
    for (const char *p = got; *p; p++)
        if (strncmp(p, want, len) == 0 && message_matches(p, want))
            return true;
    return len == 0;
}

static bool check(const json_t *expect, const answer *ans, ddb_arena *a, char *why, size_t cap)
{
    const char *want_err = json_string_value(json_object_get(expect, "error"));
    if (want_err) {
        const char *msg = json_string_value(json_object_get(expect, "message"));
        if (!ans->rc) {
            snprintf(why, cap, "succeeded, expected %s", want_err);
            return false;
        }
        if (strcmp(exception_of(ans->rc), want_err) != 0 || (msg && !message_matches(ans->err.message, msg))) {
            snprintf(why, cap, "got %s \"%s\", expected %s \"%s\"", exception_of(ans->rc), ans->err.message, want_err,
                     msg ? msg : "");
            return false;
        }
        return true;
    }
    if (ans->rc) {
        snprintf(why, cap, "failed: %s \"%s\"", exception_of(ans->rc), ans->err.message);
        return false;
    }
    const json_t *j;
    if ((j = json_object_get(expect, "Attributes")) && !same_item(j, ans->attrs, a, why, cap))
        return false;
    if ((j = json_object_get(expect, "Item")) && !same_item(j, ans->item, a, why, cap))
        return false;
    if ((j = json_object_get(expect, "Items"))) {
        if (json_array_size(j) != ans->page.count) {
            snprintf(why, cap, "got %zu items, expected %zu", ans->page.count, json_array_size(j));
            return false;
        }
        for (size_t i = 0; i < ans->page.count; i++)
            if (!same_item(json_array_get(j, i), ans->page.items[i], a, why, cap))
                return false;
    }
    if ((j = json_object_get(expect, "Count")) && (size_t)json_integer_value(j) != ans->page.count) {
        snprintf(why, cap, "Count %zu, expected %lld", ans->page.count, (long long)json_integer_value(j));
        return false;
    }
    if ((j = json_object_get(expect, "LastEvaluatedKey")) && !same_item(j, ans->page.last_key, a, why, cap))
        return false;
    if ((j = json_object_get(expect, "CapacityUnits")) && fabs(json_number_value(j) - ans->capacity) > 1e-9) {
        snprintf(why, cap, "consumed %g capacity units, expected %g", ans->capacity, json_number_value(j));
        return false;
    }
    return true;
}

/* ---- Tables ---------------------------------------------------------------------- */

static ddb_type key_type(const json_t *k)
{
    const char *t = json_string_value(json_array_get(k, 1));
    return t && strcmp(t, "N") == 0 ? DDB_TN : t && strcmp(t, "B") == 0 ? DDB_TB : DDB_TS;
}

static ddb_key_schema key_schema(const json_t *def)
{
    const json_t *pk = json_object_get(def, "pk"), *sk = json_object_get(def, "sk");
    return (ddb_key_schema){.pk = json_string_value(json_array_get(pk, 0)), .pk_type = key_type(pk),
                            .sk = sk ? json_string_value(json_array_get(sk, 0)) : NULL,
                            .sk_type = sk ? key_type(sk) : DDB_TS};
}

static ddb_index_def index_def(const json_t *x, bool local, ddb_arena *a)
{
    ddb_index_def d = {.name = json_string_value(json_object_get(x, "name")), .local = local, .key = key_schema(x)};
    const char *p = json_string_value(json_object_get(x, "projection"));
    d.projection = !p ? DDB_PROJ_ALL : strcmp(p, "KEYS_ONLY") == 0 ? DDB_PROJ_KEYS_ONLY : DDB_PROJ_INCLUDE;
    json_t *inc = expand(json_object_get(x, "include"));
    d.n_include = json_array_size(inc);
    const char **names = d.n_include ? ddb_arena_alloc(a, d.n_include * sizeof *names) : NULL;
    for (size_t i = 0; names && i < d.n_include; i++)
        names[i] = ddb_arena_strdup(a, json_string_value(json_array_get(inc, i)));
    d.include = names;
    json_decref(inc);
    return d;
}

static int create_table_as(runner *r, const char *logical, const char *name, ddb_error *err)
{
    const json_t *def = json_object_get(r->tables, logical);
    if (!def) {
        snprintf(err->message, sizeof err->message, "corpus: no table definition %s", logical);
        return DDB_EINVAL;
    }
    ddb_arena *a = ddb_arena_new();
    ddb_index_def idx[64];
    size_t n = 0;
    for (int local = 0; local < 2; local++) {
        const json_t *list = json_object_get(def, local ? "lsi" : "gsi"), *x;
        size_t i;
        json_array_foreach(list, i, x) {
            if (n < 64)
                idx[n++] = index_def(x, local, a);
        }
    }
    /* "gsi_repeat": N more copies of the first GSI, named g<i> */
    json_int_t more = json_integer_value(json_object_get(def, "gsi_repeat"));
    for (json_int_t i = 0; i < more && n < 64 && json_array_size(json_object_get(def, "gsi")); i++) {
        idx[n] = index_def(json_array_get(json_object_get(def, "gsi"), 0), false, a);
        char nm[32];
        snprintf(nm, sizeof nm, "g%03d", (int)i);
        idx[n++].name = ddb_arena_strdup(a, nm);
    }
    ddb_table_def td = {.name = name, .key = key_schema(def), .indexes = idx, .n_indexes = n};
    int rc = ddb_create_table(r->db, &td, err);
    ddb_arena_free(a);
    return rc;
}

static int create_table(runner *r, const char *logical, ddb_error *err)
{
    char name[300];
    table_name(r, logical, name, sizeof name);
    return create_table_as(r, logical, name, err);
}

/* ---- Cases ----------------------------------------------------------------------- */

static void run_case(runner *r, const json_t *cs)
{
    const char *id = json_string_value(json_object_get(cs, "id"));
    if (r->remote && !json_is_true(json_object_get(cs, "dynalite")) && !getenv("DDB_CONFORMANCE_ALL")) {
        r->skipped++;
        return;
    }
    const json_t *tables = json_object_get(cs, "tables"), *t, *st;
    size_t i;
    ddb_error err = {0};
    char why[900] = "";
    bool ok = true;
    json_array_foreach(tables, i, t) {
        if (create_table(r, json_string_value(t), &err)) {
            snprintf(why, sizeof why, "creating table %s: %s", json_string_value(t), err.message);
            ok = false;
        }
    }
    json_array_foreach(json_object_get(cs, "steps"), i, st) {
        if (!ok)
            break;
        step_ctx c;
        memset(&c, 0, sizeof c);
        c.a = ddb_arena_new();
        answer ans;
        memset(&ans, 0, sizeof ans);
        run_request(r, &c, st, &ans);
        const json_t *expect = json_object_get(st, "expect");
        json_t *okx = json_pack("{s:b}", "ok", 1);
        char w[800] = "";
        if (!check(expect ? expect : okx, &ans, c.a, w, sizeof w)) {
            snprintf(why, sizeof why, "step %zu (%s): %s", i + 1, json_string_value(json_object_get(st, "op")), w);
            ok = false;
        }
        json_decref(okx);
        for (size_t k = 0; k < c.nex; k++)
            ddb_expr_free(c.ex[k]);
        ddb_arena_free(c.a);
    }
    json_array_foreach(tables, i, t) {
        char name[300];
        table_name(r, json_string_value(t), name, sizeof name);
        ddb_delete_table(r->db, name, NULL);
    }
    if (ok) {
        r->passed++;
        return;
    }
    r->failed++;
    printf("FAIL %s [%s]: %s\n     source: %s\n", id ? id : "?", r->remote ? "dynalite" : "embedded", why,
           json_string_value(json_object_get(cs, "source")));
}

/* dynalite through dynalite.sh; 77 = skip. */
static int start_dynalite(const char *sh, const char *dir, char *uri, size_t cap)
{
    char cmd[1400], out[512] = "";
    snprintf(cmd, sizeof cmd, "'%s' start '%s' %d", sh, dir, (int)getpid());
    FILE *p = popen(cmd, "r");
    if (!p)
        return 1;
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    int port;
    long pid;
    if (WIFEXITED(st) && WEXITSTATUS(st) == 77) {
        printf("skipped: %s", out);
        return 77;
    }
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || sscanf(out, "%d %ld", &port, &pid) != 2) {
        fprintf(stderr, "dynalite.sh start failed: %s\n", out);
        return 1;
    }
    /* generous, bounded: a sanitizer build on a loaded machine (ctest -j) is slow */
    snprintf(uri, cap, "http://127.0.0.1:%d?timeout_ms=120000&connect_timeout_ms=30000&retry_base_ms=5", port);
    return 0;
}

static int is_json(const struct dirent *d)
{
    size_t n = strlen(d->d_name);
    return n > 5 && strcmp(d->d_name + n - 5, ".json") == 0;
}

/* Every case of one file. */
static int run_file(runner *r, const char *path)
{
    json_error_t je;
    json_t *file = json_load_file(path, 0, &je);
    if (!file) {
        printf("FAIL %s:%d: %s\n", path, je.line, je.text);
        r->failed++;
        return 1;
    }
    r->tables = json_object_get(file, "tables");
    const json_t *cs;
    size_t i;
    json_array_foreach(json_object_get(file, "cases"), i, cs)
        run_case(r, cs);
    json_decref(file);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3 || (strcmp(argv[2], "dynalite") == 0 && argc < 5)) {
        fprintf(stderr, "usage: %s CASES_DIR embedded | dynalite DYNALITE_SH DIR\n", argv[0]);
        return 2;
    }
    runner r = {.remote = strcmp(argv[2], "dynalite") == 0};
    snprintf(r.prefix, sizeof r.prefix, "conf%d_", (int)getpid());
    char uri[700], dir[512] = "";
    if (r.remote) {
        int rc = start_dynalite(argv[3], argv[4], uri, sizeof uri);
        if (rc)
            return rc;
    } else {
        const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
        snprintf(dir, sizeof dir, "%s/ddb-conformance-XXXXXX", tmp);
        if (!mkdtemp(dir)) {
            perror("mkdtemp");
            return 1;
        }
        snprintf(uri, sizeof uri, "file:%s", dir);
    }
    ddb_error err = {0};
    if (ddb_open(uri, NULL, &r.db, &err)) {
        fprintf(stderr, "ddb_open %s: %s\n", uri, err.message);
        return 1;
    }
    struct dirent **files;
    int n = scandir(argv[1], &files, is_json, alphasort);
    if (n < 0)
        perror(argv[1]);
    for (int i = 0; i < n; i++) {
        char path[1200];
        snprintf(path, sizeof path, "%s/%s", argv[1], files[i]->d_name);
        run_file(&r, path);
        free(files[i]);
    }
    if (n >= 0)
        free(files);
    ddb_close(r.db);
    if (dir[0]) {
        char rm[600];
        snprintf(rm, sizeof rm, "rm -rf '%s'", dir);
        if (system(rm) != 0)
            fprintf(stderr, "could not remove %s\n", dir);
    }
    printf("%s: %d passed, %d failed, %d not run (dynalite departs from DynamoDB there)\n", argv[2], r.passed,
           r.failed, r.skipped);
    return r.failed || n <= 0 ? 1 : 0;
}
