/* remote/: Reading DynamoDB responses: error classification, consumed capacity,
 * items, pages, cancellation reasons, table descriptions.  Pure functions
 * over jansson values (no I/O), so a fuzzer can drive them; whatever the
 * server sends, the result is a value or a clear DDB_ENET "bad response".
 * May call core/ and expr/. */
#include "remote/remote_wire.h"

#include <ddb/json.h>
#include "json/djson.h"
#include "core/error.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int ddbi_remote_bad(ddb_error *err, const char *op, const char *fmt, ...)
{
    if (!err)
        return DDB_ENET;
    char msg[DDB_ERROR_TEXT_SIZE];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return ddbi_fail(err, DDB_ENET, "bad response to %s: %s", op, msg);
}

int ddbi_remote_parse_body(const char *op, const char *body, size_t len, json_t **out, ddb_error *err)
{
    *out = NULL;
    json_error_t je;
    json_t *j = json_loadb(body, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &je);
    if (!j)
        return ddbi_remote_bad(err, op, "malformed JSON at line %d column %d: %s", je.line, je.column, je.text);
    if (!json_is_object(j)) {
        int rc = ddbi_remote_bad(err, op, "the body is %s, not a JSON object", ddbi_json_kind(j));
        json_decref(j);
        return rc;
    }
    *out = j;
    return DDB_OK;
}

/* ---- Errors ------------------------------------------------------------------ */

static const struct {
    const char *type;
    int code;
    bool retry;
    bool verbatim; /* the message alone says it (no "Type: " prefix) */
} fault_types[] = {
    {"ConditionalCheckFailedException", DDB_ECONDITION, false, true},
    {"ValidationException", DDB_EVALIDATION, false, true},
    {"SerializationException", DDB_EVALIDATION, false, false},
    {"IdempotentParameterMismatchException", DDB_EIDEMPOTENT, false, false},
    {"ResourceNotFoundException", DDB_ENOTABLE, false, true},
    {"ResourceInUseException", DDB_EEXISTS, false, true},
    {"TransactionCanceledException", DDB_ECANCELED, false, true},
    {"TransactionConflictException", DDB_ECANCELED, false, false},
    {"TransactionInProgressException", DDB_ECANCELED, false, false},
    {"ProvisionedThroughputExceededException", DDB_ETHROTTLED, true, true},
    {"ThrottlingException", DDB_ETHROTTLED, true, true},
    {"RequestLimitExceeded", DDB_ETHROTTLED, true, true},
    {"ItemCollectionSizeLimitExceededException", DDB_ELIMIT, false, true},
    {"LimitExceededException", DDB_ELIMIT, false, false},
    {"TableDamagedException", DDB_ECORRUPT, false, true}, /* ddb serve: a damaged table (docs/SERVER.md) */
    {"InternalServerError", DDB_EIO, true, false},
    {"ServiceUnavailable", DDB_EIO, true, false},
    {"UnknownOperationException", DDB_ENOTSUP, false, false},
    {"UnrecognizedClientException", DDB_EINVAL, false, false},
    {"InvalidSignatureException", DDB_EINVAL, false, false},
    {"IncompleteSignatureException", DDB_EINVAL, false, false},
    {"MissingAuthenticationTokenException", DDB_EINVAL, false, false},
    {"AccessDeniedException", DDB_EINVAL, false, false},
    {"ExpiredTokenException", DDB_EINVAL, false, false},
    {"InvalidClientTokenId", DDB_EINVAL, false, false},
};

/* The ValidationExceptions that are a size or count limit: DDB_ELIMIT, as
 * the embedded engine answers them (engine/write.c, keys.c, batch.c,
 * table.c; expr/expr_parse.c), so a program checking the code behaves the
 * same on both backends.  DynamoDB's words (docs/CONFORMANCE.md), matched
 * anywhere in the message (expression errors start "Invalid
 * <Kind>Expression: "). */
static const char *const limit_texts[] = {
    "Item size has exceeded the maximum allowed size",
    "Item size to update has exceeded the maximum allowed size",
    "Size of hashkey has exceeded the maximum size limit",
    "Aggregated size of all range keys has exceeded the size limit",
    "at 'requestItems' failed to satisfy constraint: Map value must satisfy constraint",
    "failed to satisfy constraint: Member must have length less than or equal to 100",
    "Too many items requested for the",
    "Transaction size of",
    "Number of projected attributes in all indexes exceeds limit",
    "nonKeyAttributes' failed to satisfy constraint: Member must have length less than or equal to 20",
    "GlobalSecondaryIndex count exceeds the per-table limit",
    "Number of LocalSecondaryIndexes exceeds per-table limit",
    "The document path has too many nesting levels",
    "The expression has too many operands for an operator",
    "The expression has too many nesting levels",
    "The expression contains too many operators",
    "Expression size has exceeded the maximum allowed size",
};

static bool is_limit(const char *msg)
{
    for (size_t i = 0; i < sizeof limit_texts / sizeof *limit_texts; i++)
        if (strstr(msg, limit_texts[i]))
            return true;
    return false;
}

/* Printable prefix of a body for messages. */
static void snippet(const char *body, size_t len, char *out, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < len && n + 1 < cap && i < 120; i++)
        out[n++] = (body[i] >= 0x20 && body[i] < 0x7f) ? body[i] : ' ';
    out[n] = '\0';
}

int ddbi_remote_parse_error(const char *op, long status, const char *body, size_t len, remote_fault *f, json_t **errbody,
                            ddb_error *err)
{
    memset(f, 0, sizeof *f);
    if (errbody)
        *errbody = NULL;
    json_t *j = body && len ? json_loadb(body, len, 0, NULL) : NULL;
    const json_t *type = json_is_object(j) ? json_object_get(j, "__type") : NULL;
    if (!json_is_string(type)) {
        /* Not DynamoDB's error shape: a proxy, a load balancer, a wrong URL. */
        char s[128];
        snippet(body ? body : "", len, s, sizeof s);
        json_decref(j);
        snprintf(f->type, sizeof f->type, "HTTP %ld", status);
        if (status == 413) {
            f->code = ddbi_fail(err, DDB_ELIMIT, "%s: the request is too large for the server (HTTP 413)", op);
        } else if (status >= 500) {
            f->retry = true;
            f->code = ddbi_fail(err, DDB_EIO, "%s: HTTP %ld from the server: %s", op, status, s);
        } else {
            f->code = ddbi_remote_bad(err, op, "HTTP %ld without a DynamoDB error: %s", status, s);
        }
        return f->code;
    }
    const char *t = json_string_value(type);
    const char *hash = strrchr(t, '#');
    t = hash ? hash + 1 : t;
    snprintf(f->type, sizeof f->type, "%s", t);
    const json_t *m = json_object_get(j, "message");
    if (!json_is_string(m))
        m = json_object_get(j, "Message");
    const char *msg = json_is_string(m) ? json_string_value(m) : "";
    f->code = DDB_EIO;
    f->retry = status >= 500;
    bool verbatim = false;
    for (size_t i = 0; i < sizeof fault_types / sizeof *fault_types; i++)
        if (strcmp(fault_types[i].type, t) == 0) {
            f->code = fault_types[i].code;
            f->retry = fault_types[i].retry;
            verbatim = fault_types[i].verbatim;
            break;
        }
    if (f->code == DDB_EVALIDATION && strcmp(t, "ValidationException") == 0 && is_limit(msg))
        f->code = DDB_ELIMIT;
    if (verbatim && *msg)
        ddbi_fail(err, f->code, "%s", msg);
    else if (*msg)
        ddbi_fail(err, f->code, "%s: %s", f->type, msg);
    else
        ddbi_fail(err, f->code, "%s: %s (HTTP %ld)", op, f->type, status);
    if (errbody)
        *errbody = j;
    else
        json_decref(j);
    return f->code;
}

/* ---- Capacity ------------------------------------------------------------------ */

/* obj[key] as a non-negative finite number: 1 present, 0 absent, <0 error. */
static int units(const char *op, const json_t *obj, const char *key, double *out, ddb_error *err)
{
    const json_t *v = json_object_get(obj, key);
    if (!v)
        return 0;
    if (!json_is_number(v) || !isfinite(json_number_value(v)) || json_number_value(v) < 0)
        return ddbi_remote_bad(err, op, "ConsumedCapacity.%s is %s, not a non-negative number", key, ddbi_json_kind(v));
    *out = json_number_value(v);
    return 1;
}

typedef struct cu {
    double total, read, write;
} cu;

static int read_units(const char *op, const json_t *obj, remote_kind kind, cu *out, ddb_error *err)
{
    if (!json_is_object(obj))
        return ddbi_remote_bad(err, op, "a ConsumedCapacity entry is %s, not an object", ddbi_json_kind(obj));
    double c = 0, r = 0, w = 0;
    int hc = units(op, obj, "CapacityUnits", &c, err);
    int hr = hc < 0 ? -1 : units(op, obj, "ReadCapacityUnits", &r, err);
    int hw = hr < 0 ? -1 : units(op, obj, "WriteCapacityUnits", &w, err);
    if (hc < 0 || hr < 0 || hw < 0)
        return DDB_ENET;
    if (!hr && !hw) {
        r = kind == REMOTE_READ ? c : 0;
        w = kind == REMOTE_WRITE ? c : 0;
    }
    out->total = hc ? c : r + w;
    out->read = r;
    out->write = w;
    return DDB_OK;
}

static int add_indexes(const char *op, const json_t *obj, const char *key, remote_kind kind, ddb_return_capacity mode,
                       ddb_capacity *cap, cu *sum, ddb_error *err)
{
    const json_t *ix = json_object_get(obj, key);
    if (!ix)
        return DDB_OK;
    if (!json_is_object(ix))
        return ddbi_remote_bad(err, op, "ConsumedCapacity.%s is %s, not an object", key, ddbi_json_kind(ix));
    const char *name = NULL;
    json_t *v;
    json_object_foreach((json_t *)ix, name, v)
    {
        cu u = {0, 0, 0};
        int rc = read_units(op, v, kind, &u, err);
        if (rc)
            return rc;
        sum->read += u.read;
        sum->write += u.write;
        if (mode != DDB_CAPACITY_INDEXES)
            continue;
        size_t i = 0;
        while (i < cap->n_indexes && strcmp(cap->indexes[i].name, name) != 0)
            i++;
        if (i == cap->n_indexes) {
            if (i == sizeof cap->indexes / sizeof *cap->indexes)
                return ddbi_remote_bad(err, op, "ConsumedCapacity names more than %zu indexes", i);
            memset(&cap->indexes[i], 0, sizeof cap->indexes[i]);
            snprintf(cap->indexes[i].name, sizeof cap->indexes[i].name, "%s", name);
            cap->indexes[i].local = strcmp(key, "LocalSecondaryIndexes") == 0;
            cap->n_indexes++;
        }
        cap->indexes[i].read += u.read;
        cap->indexes[i].write += u.write;
    }
    return DDB_OK;
}

static int add_capacity(const char *op, const json_t *c, remote_kind kind, ddb_return_capacity mode,
                        ddb_capacity *cap, ddb_error *err)
{
    cu all = {0, 0, 0};
    int rc = read_units(op, c, kind, &all, err);
    if (rc)
        return rc;
    cap->total += all.total;
    cap->read += all.read;
    cap->write += all.write;
    const json_t *t = json_object_get(c, "Table");
    cu idx = {0, 0, 0};
    if ((rc = add_indexes(op, c, "GlobalSecondaryIndexes", kind, mode, cap, &idx, err)) ||
        (rc = add_indexes(op, c, "LocalSecondaryIndexes", kind, mode, cap, &idx, err)))
        return rc;
    if (t) {
        cu tu = {0, 0, 0};
        if ((rc = read_units(op, t, kind, &tu, err)))
            return rc;
        cap->table_read += tu.read;
        cap->table_write += tu.write;
    } else {
        /* no breakdown: what the indexes did not take is the table's */
        cap->table_read += all.read > idx.read ? all.read - idx.read : 0;
        cap->table_write += all.write > idx.write ? all.write - idx.write : 0;
    }
    return DDB_OK;
}

int ddbi_remote_parse_capacity(const char *op, const json_t *cc, remote_kind kind, ddb_return_capacity mode,
                               ddb_capacity *cap, ddb_error *err)
{
    if (!cc || !cap || mode == DDB_CAPACITY_NONE)
        return DDB_OK;
    if (json_is_array(cc)) {
        for (size_t i = 0; i < json_array_size(cc); i++) {
            int rc = add_capacity(op, json_array_get(cc, i), kind, mode, cap, err);
            if (rc)
                return rc;
        }
        return DDB_OK;
    }
    return add_capacity(op, cc, kind, mode, cap, err);
}

/* ---- Items and pages -------------------------------------------------------------- */

static int bad_item(ddb_error *err, const char *op, const char *what, int rc)
{
    if (rc == DDB_ENOMEM)
        return rc;
    if (!err)
        return DDB_ENET;
    char inner[DDB_ERROR_TEXT_SIZE];
    snprintf(inner, sizeof inner, "%s", err->message);
    return ddbi_remote_bad(err, op, "%s: %s", what, inner);
}

int ddbi_remote_parse_item(const char *op, const json_t *resp, const char *field, ddb_arena *a, ddb_item **out,
                           ddb_error *err)
{
    *out = NULL;
    const json_t *j = json_object_get(resp, field);
    if (!j)
        return DDB_OK;
    if (!json_is_object(j))
        return ddbi_remote_bad(err, op, "%s is %s, not an object", field, ddbi_json_kind(j));
    int rc = ddb_json_to_item(j, a, out, err);
    return rc ? bad_item(err, op, field, rc) : DDB_OK;
}

static int count_field(const char *op, const json_t *resp, const char *key, size_t *out, bool *present,
                       ddb_error *err)
{
    const json_t *v = json_object_get(resp, key);
    *present = v != NULL;
    if (!v)
        return DDB_OK;
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return ddbi_remote_bad(err, op, "%s is %s, not a non-negative integer", key, ddbi_json_kind(v));
    *out = (size_t)json_integer_value(v);
    return DDB_OK;
}

int ddbi_remote_parse_page(const char *op, const json_t *resp, ddb_return_capacity mode, ddb_arena *a, ddb_page *out,
                           ddb_error *err)
{
    memset(out, 0, sizeof *out);
    const json_t *items = json_object_get(resp, "Items");
    if (items && !json_is_array(items))
        return ddbi_remote_bad(err, op, "Items is %s, not an array", ddbi_json_kind(items));
    size_t n = items ? json_array_size(items) : 0;
    size_t count = n, scanned = n;
    bool has_count, has_scanned;
    int rc;
    if ((rc = count_field(op, resp, "Count", &count, &has_count, err)) ||
        (rc = count_field(op, resp, "ScannedCount", &scanned, &has_scanned, err)))
        return rc;
    if (count != n)
        return ddbi_remote_bad(err, op, "Count is %zu but %zu Items came", count, n);
    if (!has_scanned)
        scanned = count;
    if (scanned < count)
        return ddbi_remote_bad(err, op, "ScannedCount %zu is below Count %zu", scanned, count);
    if (n) {
        out->items = ddb_arena_alloc(a, n * sizeof *out->items);
        if (!out->items)
            return ddbi_fail_oom(err, __func__);
    }
    for (size_t i = 0; i < n; i++) {
        const json_t *it = json_array_get(items, i);
        char what[32];
        snprintf(what, sizeof what, "Items[%zu]", i);
        if (!json_is_object(it))
            return ddbi_remote_bad(err, op, "%s is %s, not an object", what, ddbi_json_kind(it));
        if ((rc = ddb_json_to_item(it, a, &out->items[i], err)))
            return bad_item(err, op, what, rc);
    }
    out->count = n;
    out->scanned_count = scanned;
    if ((rc = ddbi_remote_parse_item(op, resp, "LastEvaluatedKey", a, &out->last_key, err)))
        return rc;
    return ddbi_remote_parse_capacity(op, json_object_get(resp, "ConsumedCapacity"), REMOTE_READ, mode, &out->capacity,
                                 err);
}

/* ---- Transactions ------------------------------------------------------------------ */

static int reason_code(const char *code)
{
    static const struct {
        const char *name;
        int code;
    } map[] = {
        {"None", DDB_OK},
        {"ConditionalCheckFailed", DDB_ECONDITION},
        {"ItemCollectionSizeLimitExceeded", DDB_ELIMIT},
        {"TransactionConflict", DDB_ECANCELED},
        {"ProvisionedThroughputExceeded", DDB_ETHROTTLED},
        {"ThrottlingError", DDB_ETHROTTLED},
        {"RequestLimitExceeded", DDB_ETHROTTLED},
        {"ValidationError", DDB_EVALIDATION},
    };
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (strcmp(map[i].name, code) == 0)
            return map[i].code;
    return DDB_EIO;
}

int ddbi_remote_parse_reasons(const json_t *errbody, size_t n, ddb_arena *a, int **reasons, ddb_error *err)
{
    *reasons = NULL;
    if (!n)
        return DDB_OK;
    int *r = ddb_arena_alloc(a, n * sizeof *r);
    if (!r)
        return ddbi_fail_oom(err, __func__);
    const json_t *arr = json_is_object(errbody) ? json_object_get(errbody, "CancellationReasons") : NULL;
    for (size_t i = 0; i < n; i++) {
        const json_t *e = json_is_array(arr) ? json_array_get(arr, i) : NULL;
        const json_t *code = json_is_object(e) ? json_object_get(e, "Code") : NULL;
        if (!e)
            r[i] = DDB_ECANCELED; /* no reason given for this op */
        else if (!code || json_is_null(code))
            r[i] = DDB_OK;
        else
            r[i] = json_is_string(code) ? reason_code(json_string_value(code)) : DDB_EIO;
    }
    *reasons = r;
    return DDB_OK;
}

/* CancellationReasons[i].Item (ReturnValuesOnConditionCheckFailure ALL_OLD)
 * -> items[i] in a, NULL where absent. */
int ddbi_remote_parse_reason_items(const json_t *errbody, size_t n, ddb_arena *a, ddb_item ***items, ddb_error *err)
{
    *items = NULL;
    if (!n)
        return DDB_OK;
    ddb_item **r = ddb_arena_alloc(a, n * sizeof *r);
    if (!r)
        return ddbi_fail_oom(err, __func__);
    memset(r, 0, n * sizeof *r);
    const json_t *arr = json_is_object(errbody) ? json_object_get(errbody, "CancellationReasons") : NULL;
    for (size_t i = 0; i < n; i++) {
        const json_t *e = json_is_array(arr) ? json_array_get(arr, i) : NULL;
        char what[48];
        snprintf(what, sizeof what, "CancellationReasons[%zu]", i);
        if (json_is_object(e) && json_object_get(e, "Item")) {
            int rc = ddbi_remote_parse_item("TransactWriteItems", e, "Item", a, &r[i], err);
            if (rc)
                return rc;
        }
    }
    *items = r;
    return DDB_OK;
}

/* ---- Table descriptions -------------------------------------------------------------- */

static int str_field(const char *op, const json_t *o, const char *key, const char *ctx, const char **out,
                     ddb_error *err)
{
    const json_t *v = json_object_get(o, key);
    if (!json_is_string(v))
        return ddbi_remote_bad(err, op, "%s%s is %s, not a string", ctx, key, ddbi_json_kind(v));
    *out = json_string_value(v);
    return DDB_OK;
}

static int u64_field(const char *op, const json_t *o, const char *key, uint64_t *out, ddb_error *err)
{
    const json_t *v = json_object_get(o, key);
    *out = 0;
    if (!v)
        return DDB_OK;
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return ddbi_remote_bad(err, op, "%s is %s, not a non-negative integer", key, ddbi_json_kind(v));
    *out = (uint64_t)json_integer_value(v);
    return DDB_OK;
}

static int attr_type(const char *op, const json_t *defs, const char *name, ddb_type *out, ddb_error *err)
{
    for (size_t i = 0; i < json_array_size(defs); i++) {
        const json_t *d = json_array_get(defs, i);
        const json_t *n = json_object_get(d, "AttributeName"), *t = json_object_get(d, "AttributeType");
        if (!json_is_string(n) || strcmp(json_string_value(n), name) != 0)
            continue;
        const char *ts = json_is_string(t) ? json_string_value(t) : "";
        *out = !strcmp(ts, "S") ? DDB_TS : !strcmp(ts, "N") ? DDB_TN : !strcmp(ts, "B") ? DDB_TB : DDB_TNONE;
        if (*out == DDB_TNONE)
            return ddbi_remote_bad(err, op, "AttributeDefinitions gives %s the type \"%s\"", name, ts);
        return DDB_OK;
    }
    return ddbi_remote_bad(err, op, "AttributeDefinitions lacks the key attribute %s", name);
}

/* KeySchema: a HASH element, then a RANGE one; for a global secondary
 * index with a multi-attribute key up to four HASH elements, then up to
 * four RANGE ones, in declared order (API_KeySchemaElement). */
static int key_schema(const char *op, const json_t *ks, const json_t *defs, ddb_arena *a, ddb_key_schema *out,
                      ddb_error *err)
{
    memset(out, 0, sizeof *out);
    if (!json_is_array(ks) || json_array_size(ks) < 1 || json_array_size(ks) > 2 * DDB_MAX_KEY_ATTRS)
        return ddbi_remote_bad(err, op, "KeySchema is %s, not an array of 1 to %d elements", ddbi_json_kind(ks),
                               2 * DDB_MAX_KEY_ATTRS);
    ddb_key_part *more = ddb_arena_alloc(a, json_array_size(ks) * sizeof *more);
    if (!more)
        return ddbi_fail_oom(err, __func__);
    for (size_t i = 0; i < json_array_size(ks); i++) {
        const json_t *k = json_array_get(ks, i);
        const char *name = NULL, *type = NULL;
        int rc;
        if (!json_is_object(k))
            return ddbi_remote_bad(err, op, "KeySchema[%zu] is %s, not an object", i, ddbi_json_kind(k));
        if ((rc = str_field(op, k, "AttributeName", "KeySchema.", &name, err)) ||
            (rc = str_field(op, k, "KeyType", "KeySchema.", &type, err)))
            return rc;
        bool hash = strcmp(type, "HASH") == 0;
        if (!hash && strcmp(type, "RANGE") != 0)
            return ddbi_remote_bad(err, op, "KeySchema has the KeyType \"%s\"", type);
        if (hash && out->sk)
            return ddbi_remote_bad(err, op, "KeySchema has a HASH key after a RANGE key");
        if ((hash ? 1 + out->n_pk_more : (out->sk ? 1 : 0) + out->n_sk_more) >= DDB_MAX_KEY_ATTRS)
            return ddbi_remote_bad(err, op, "KeySchema has more than %d %s keys", DDB_MAX_KEY_ATTRS, type);
        const char *copy = ddb_arena_strdup(a, name);
        if (!copy)
            return ddbi_fail_oom(err, __func__);
        ddb_type t;
        if ((rc = attr_type(op, defs, name, &t, err)))
            return rc;
        if (hash && !out->pk) {
            out->pk = copy;
            out->pk_type = t;
        } else if (hash) {
            more[out->n_pk_more++] = (ddb_key_part){copy, t};
        } else if (!out->sk) {
            out->sk = copy;
            out->sk_type = t;
        } else {
            more[out->n_pk_more + out->n_sk_more++] = (ddb_key_part){copy, t};
        }
    }
    if (!out->pk)
        return ddbi_remote_bad(err, op, "KeySchema has no HASH key");
    out->pk_more = out->n_pk_more ? more : NULL;
    out->sk_more = out->n_sk_more ? more + out->n_pk_more : NULL;
    return DDB_OK;
}

static int throughput(const char *op, const json_t *o, uint64_t *rcu, uint64_t *wcu, ddb_error *err)
{
    const json_t *pt = json_object_get(o, "ProvisionedThroughput");
    *rcu = *wcu = 0;
    if (!pt)
        return DDB_OK;
    if (!json_is_object(pt))
        return ddbi_remote_bad(err, op, "ProvisionedThroughput is %s, not an object", ddbi_json_kind(pt));
    int rc = u64_field(op, pt, "ReadCapacityUnits", rcu, err);
    return rc ? rc : u64_field(op, pt, "WriteCapacityUnits", wcu, err);
}

static int index_defs(const char *op, const json_t *arr, const json_t *defs, bool local, bool on_demand,
                      ddb_arena *a, ddb_index_def *out, size_t *n, bool *active, ddb_error *err)
{
    if (!arr)
        return DDB_OK;
    if (!json_is_array(arr))
        return ddbi_remote_bad(err, op, "%s is %s, not an array", local ? "LocalSecondaryIndexes" : "GlobalSecondaryIndexes",
                          ddbi_json_kind(arr));
    for (size_t i = 0; i < json_array_size(arr); i++) {
        const json_t *x = json_array_get(arr, i);
        if (*n == DDB_MAX_GSI + DDB_MAX_LSI)
            return ddbi_remote_bad(err, op, "more than %d secondary indexes", DDB_MAX_GSI + DDB_MAX_LSI);
        if (!json_is_object(x))
            return ddbi_remote_bad(err, op, "an index description is %s, not an object", ddbi_json_kind(x));
        ddb_index_def *d = &out[*n];
        memset(d, 0, sizeof *d);
        const char *name = NULL;
        int rc;
        if ((rc = str_field(op, x, "IndexName", "", &name, err)) ||
            (rc = key_schema(op, json_object_get(x, "KeySchema"), defs, a, &d->key, err)))
            return rc;
        if (!(d->name = ddb_arena_strdup(a, name)))
            return ddbi_fail_oom(err, __func__);
        d->local = local;
        const json_t *p = json_object_get(x, "Projection");
        const json_t *pt = json_is_object(p) ? json_object_get(p, "ProjectionType") : NULL;
        const char *ps = json_is_string(pt) ? json_string_value(pt) : "ALL";
        if (strcmp(ps, "KEYS_ONLY") == 0) {
            d->projection = DDB_PROJ_KEYS_ONLY;
        } else if (strcmp(ps, "INCLUDE") == 0) {
            d->projection = DDB_PROJ_INCLUDE;
            const json_t *nk = json_object_get(p, "NonKeyAttributes");
            if (!json_is_array(nk))
                return ddbi_remote_bad(err, op, "index %s: NonKeyAttributes is %s, not an array", name, ddbi_json_kind(nk));
            size_t m = json_array_size(nk);
            const char **inc = ddb_arena_alloc(a, (m ? m : 1) * sizeof *inc);
            if (!inc)
                return ddbi_fail_oom(err, __func__);
            for (size_t k = 0; k < m; k++) {
                const json_t *s = json_array_get(nk, k);
                if (!json_is_string(s))
                    return ddbi_remote_bad(err, op, "index %s: NonKeyAttributes[%zu] is %s", name, k, ddbi_json_kind(s));
                if (!(inc[k] = ddb_arena_strdup(a, json_string_value(s))))
                    return ddbi_fail_oom(err, __func__);
            }
            d->include = inc;
            d->n_include = m;
        } else if (strcmp(ps, "ALL") != 0) {
            return ddbi_remote_bad(err, op, "index %s: ProjectionType \"%s\"", name, ps);
        }
        if (!local && !on_demand && (rc = throughput(op, x, &d->rcu, &d->wcu, err)))
            return rc;
        const json_t *st = json_object_get(x, "IndexStatus");
        if (!local && (!json_is_string(st) || strcmp(json_string_value(st), "ACTIVE") != 0))
            *active = false;
        (*n)++;
    }
    return DDB_OK;
}

int ddbi_remote_parse_table(const char *op, const json_t *t, ddb_arena *a, ddb_table_desc **out, const char **status,
                            bool *indexes_active, ddb_error *err)
{
    *out = NULL;
    *status = "";
    *indexes_active = true;
    if (!json_is_object(t))
        return ddbi_remote_bad(err, op, "the table description is %s, not an object", ddbi_json_kind(t));
    ddb_table_desc *d = ddb_arena_alloc(a, sizeof *d);
    ddb_index_def *ix = ddb_arena_alloc(a, (DDB_MAX_GSI + DDB_MAX_LSI) * sizeof *ix);
    if (!d || !ix)
        return ddbi_fail_oom(err, __func__);
    memset(d, 0, sizeof *d);
    const char *name = NULL;
    int rc;
    const json_t *defs = json_object_get(t, "AttributeDefinitions");
    if (!json_is_array(defs))
        return ddbi_remote_bad(err, op, "AttributeDefinitions is %s, not an array", ddbi_json_kind(defs));
    if ((rc = str_field(op, t, "TableName", "", &name, err)) ||
        (rc = key_schema(op, json_object_get(t, "KeySchema"), defs, a, &d->def.key, err)))
        return rc;
    if (!(d->def.name = ddb_arena_strdup(a, name)))
        return ddbi_fail_oom(err, __func__);
    const json_t *st = json_object_get(t, "TableStatus");
    if (st && !json_is_string(st))
        return ddbi_remote_bad(err, op, "TableStatus is %s, not a string", ddbi_json_kind(st));
    *status = st ? json_string_value(st) : "ACTIVE";
    const json_t *bm = json_object_get(t, "BillingModeSummary");
    const json_t *mode = json_is_object(bm) ? json_object_get(bm, "BillingMode") : NULL;
    bool on_demand = json_is_string(mode) && strcmp(json_string_value(mode), "PAY_PER_REQUEST") == 0;
    if (!on_demand && (rc = throughput(op, t, &d->def.rcu, &d->def.wcu, err)))
        return rc;
    size_t n = 0;
    if ((rc = index_defs(op, json_object_get(t, "GlobalSecondaryIndexes"), defs, false, on_demand, a, ix, &n,
                         indexes_active, err)) ||
        (rc = index_defs(op, json_object_get(t, "LocalSecondaryIndexes"), defs, true, on_demand, a, ix, &n,
                         indexes_active, err)))
        return rc;
    d->def.indexes = ix;
    d->def.n_indexes = n;
    const json_t *ss = json_object_get(t, "StreamSpecification");
    if (ss) {
        const json_t *on = json_object_get(ss, "StreamEnabled"), *vt = json_object_get(ss, "StreamViewType");
        if (!json_is_object(ss) || (on && !json_is_boolean(on)) || (vt && !json_is_string(vt)))
            return ddbi_remote_bad(err, op, "StreamSpecification has the wrong shape");
        for (int v = 1; json_is_true(on) && vt && v <= DDB_STREAM_NEW_AND_OLD_IMAGES; v++)
            if (strcmp(json_string_value(vt), ddb_stream_view_name((ddb_stream_view)v)) == 0)
                d->def.stream.view = (ddb_stream_view)v;
        if (json_is_true(on) && d->def.stream.view == DDB_STREAM_NONE)
            return ddbi_remote_bad(err, op, "StreamViewType is missing or unknown");
        if (d->def.stream.view)
            d->def.stream.retention_seconds = 86400; /* DynamoDB Streams: 24 hours */
    }
    if ((rc = u64_field(op, t, "ItemCount", &d->item_count, err)) ||
        (rc = u64_field(op, t, "TableSizeBytes", &d->size_bytes, err)))
        return rc;
    *out = d;
    return DDB_OK;
}
