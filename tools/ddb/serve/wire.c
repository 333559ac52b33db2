/* ddb serve: the request's members as libddb arguments, and results as
 * response JSON.  Shape problems answer as DynamoDB does: a member of the
 * wrong JSON type is a SerializationException, a missing required member a
 * ValidationException "1 validation error detected: Value null at '...'
 * failed to satisfy constraint: Member must not be null" (API_Operations:
 * Common Errors).  Calls fastreq.c (its decoded items), libddb's public API
 * and jansson. */
#include "serve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int wrong_type(serve_req *r, const char *name, const char *want)
{
    return serve_fail(r, 400, "SerializationException", "%s: expected %s", name, want);
}

/* A string holding U+0000: a name or an expression would end there. */
static bool has_nul(const json_t *s)
{
    return strlen(json_string_value(s)) != json_string_length(s);
}

static int nul_in(serve_req *r, const char *name)
{
    return serve_validation(r, "%s must not contain a NUL character (U+0000)", name);
}

static int missing(serve_req *r, const char *path)
{
    return serve_validation(r,
                            "1 validation error detected: Value null at '%s' failed to satisfy constraint: Member "
                            "must not be null",
                            path);
}

static int nul_walk(const json_t *j, const char *member, bool in_ss, char *msg, size_t cap)
{
    if (json_is_object(j)) {
        /* (jansson refuses a NUL in a member name itself) */
        const char *key;
        json_t *v;
        json_object_foreach((json_t *)j, key, v) {
            if (nul_walk(v, key, false, msg, cap))
                return -1;
        }
    } else if (json_is_array(j)) {
        size_t i;
        json_t *v;
        bool ss = member && strcmp(member, "SS") == 0;
        json_array_foreach(j, i, v) {
            if (nul_walk(v, member, ss, msg, cap))
                return -1;
        }
    } else if (json_is_string(j) && strlen(json_string_value(j)) != json_string_length(j) && !in_ss &&
               !(member && strcmp(member, "S") == 0)) {
        snprintf(msg, cap,
                 "the value of '%s' holds a NUL character (\\u0000), which is taken only inside string attribute "
                 "values (S, SS)",
                 member ? member : "");
        return -1;
    }
    return 0;
}

int w_nul_problem(const json_t *in, char *msg, size_t cap)
{
    return nul_walk(in, NULL, false, msg, cap);
}

int w_str(serve_req *r, const json_t *o, const char *name, const char **out)
{
    *out = NULL;
    const json_t *v = json_object_get(o, name);
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_string(v))
        return wrong_type(r, name, "a string");
    if (has_nul(v))
        return nul_in(r, name);
    *out = json_string_value(v);
    return 0;
}

int w_str_req(serve_req *r, const json_t *o, const char *name, const char *path, const char **out)
{
    if (w_str(r, o, name, out))
        return -1;
    return *out ? 0 : missing(r, path);
}

/* TableName's constraints (API_CreateTable, API_GetItem, ...: 3 to 255
 * characters of [a-zA-Z0-9_.-]).  The table operations answer a length
 * problem in their own words, the item operations in the request
 * validator's list (dynalite's validations: tableName, and
 * lengthGreaterThanOrEqual / regex, written to answer as DynamoDB does). */
static int table_name_check(serve_req *r, const char *name)
{
    size_t n = strlen(name);
    bool pattern = strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") == n;
    bool length = n >= 3 && n <= 255;
    if (pattern && length)
        return 0;
    bool table_op = r->op == op_create_table || r->op == op_delete_table || r->op == op_describe_table ||
                    r->op == op_update_table || r->op == op_describe_ttl;
    if (!length && table_op)
        return serve_validation(r, "TableName must be at least 3 characters long and at most 255 characters long");
    char list[sizeof r->err.message];
    size_t len = 0;
    int count = 0;
    const char *why[] = {pattern ? NULL : "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+",
                         n >= 3 ? NULL : "Member must have length greater than or equal to 3",
                         n <= 255 ? NULL : "Member must have length less than or equal to 255"};
    for (size_t i = 0; i < 3; i++) { /* the echoed name is cut at 64 characters */
        if (!why[i] || len >= sizeof list)
            continue;
        int w = snprintf(list + len, sizeof list - len,
                         "%sValue '%.64s' at 'tableName' failed to satisfy constraint: %s", count ? "; " : "", name,
                         why[i]);
        len += w > 0 ? (size_t)w : 0;
        count++;
    }
    return serve_validation(r, "%d validation error%s detected: %s", count, count > 1 ? "s" : "", list);
}

/* A table's ARN stands for the table (DynamoDB resolves it: ExtendDB's
 * dual-target tests/test_table_arn_as_name.py): what follows ":table/",
 * which must then be a table name (an index's ARN is not). */
const char *w_table_of(const char *name_or_arn)
{
    const char *t = strncmp(name_or_arn, "arn:", 4) == 0 ? strstr(name_or_arn, ":table/") : NULL;
    return t ? t + 7 : name_or_arn;
}

int w_table(serve_req *r, const json_t *o, const char **out)
{
    if (w_str_req(r, o, "TableName", "tableName", out))
        return -1;
    *out = w_table_of(*out);
    if (table_name_check(r, *out))
        return -1;
    if (!r->table)
        r->table = *out;
    return 0;
}

int w_bool(serve_req *r, const json_t *o, const char *name, bool *out)
{
    const json_t *v = json_object_get(o, name);
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_boolean(v))
        return wrong_type(r, name, "a boolean");
    *out = json_is_true(v);
    return 0;
}

int w_uint(serve_req *r, const json_t *o, const char *name, const char *path, uint64_t min, uint64_t max,
           uint64_t *out, bool *present)
{
    *present = false;
    const json_t *v = json_object_get(o, name);
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_integer(v))
        return wrong_type(r, name, "an integer");
    json_int_t i = json_integer_value(v);
    if (i < (json_int_t)min)
        return serve_validation(r,
                                "1 validation error detected: Value '%lld' at '%s' failed to satisfy constraint: "
                                "Member must have value greater than or equal to %llu",
                                (long long)i, path, (unsigned long long)min);
    if ((uint64_t)i > max)
        return serve_validation(r,
                                "1 validation error detected: Value '%lld' at '%s' failed to satisfy constraint: "
                                "Member must have value less than or equal to %llu",
                                (long long)i, path, (unsigned long long)max);
    *out = (uint64_t)i;
    *present = true;
    return 0;
}

int w_item(serve_req *r, const json_t *o, const char *name, ddb_item **out)
{
    *out = NULL;
    const json_t *v = json_object_get(o, name);
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_object(v))
        return wrong_type(r, name, "an object");
    if ((*out = fastreq_item(r, v)))
        return 0;
    int rc = ddb_json_to_item(v, r->a, out, &r->err);
    return rc ? serve_fail_code(r, rc) : 0;
}

int w_item_req(serve_req *r, const json_t *o, const char *name, const char *path, ddb_item **out)
{
    if (w_item(r, o, name, out))
        return -1;
    return *out ? 0 : missing(r, path);
}

int w_values(serve_req *r, const json_t *o, ddb_item **out)
{
    *out = NULL;
    const json_t *v = json_object_get(o, "ExpressionAttributeValues");
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_object(v))
        return wrong_type(r, "ExpressionAttributeValues", "an object");
    if ((*out = fastreq_item(r, v)))
        return 0;
    ddb_item *it = ddb_item_new(r->a);
    if (!it)
        return serve_fail_code(r, DDB_ENOMEM);
    const char *k;
    json_t *jv;
    json_object_foreach((json_t *)v, k, jv) {
        ddb_value *val;
        int rc = ddb_json_to_value(jv, r->a, &val, &r->err);
        if (rc == DDB_EVALIDATION) {
            /* DynamoDB names the placeholder after its words
             * (Expressions.ExpressionAttributeValues; the engine's
             * ddbi_value_check_placeholder form): "ExpressionAttributeValues
             * contains invalid value: <why> for key :v".  The decoder's own
             * "(attribute value)" locator is replaced by the key. */
            char why[sizeof r->err.message];
            snprintf(why, sizeof why, "%s", r->err.message);
            size_t n = strlen(why);
            static const char loc[] = " (attribute value)";
            if (n >= sizeof loc - 1 && strcmp(why + n - (sizeof loc - 1), loc) == 0)
                why[n - (sizeof loc - 1)] = 0;
            return serve_validation(r, "ExpressionAttributeValues contains invalid value: %s for key %.255s", why, k);
        }
        if (rc)
            return serve_fail_code(r, rc);
        if (ddb_item_set(it, k, val))
            return serve_fail_code(r, DDB_ENOMEM);
    }
    *out = it;
    return 0;
}

int w_names(serve_req *r, const json_t *o, ddb_item **out)
{
    *out = NULL;
    const json_t *v = json_object_get(o, "ExpressionAttributeNames");
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_object(v))
        return wrong_type(r, "ExpressionAttributeNames", "an object");
    ddb_item *it = ddb_item_new(r->a);
    if (!it)
        return serve_fail_code(r, DDB_ENOMEM);
    const char *k;
    json_t *s;
    json_object_foreach((json_t *)v, k, s) {
        if (!json_is_string(s))
            return wrong_type(r, "ExpressionAttributeNames", "string values");
        if (has_nul(s))
            return nul_in(r, "ExpressionAttributeNames");
        ddb_value *sv = ddb_v_s(r->a, json_string_value(s), json_string_length(s));
        if (!sv || ddb_item_set(it, k, sv))
            return serve_fail_code(r, DDB_ENOMEM);
    }
    /* the keys before any expression uses them (a bad key, not "#a is not defined") */
    int rc = ddb_expr_check_maps(it, NULL, &r->err);
    if (rc)
        return serve_fail_code(r, rc);
    *out = it;
    return 0;
}

int w_keep_expr(serve_req *r, ddb_expr *e)
{
    if (r->n_exprs == r->cap_exprs) {
        size_t cap = r->cap_exprs ? r->cap_exprs * 2 : 8;
        ddb_expr **p = realloc(r->exprs, cap * sizeof *p);
        if (!p) {
            ddb_expr_free(e);
            return serve_fail_code(r, DDB_ENOMEM);
        }
        r->exprs = p;
        r->cap_exprs = cap;
    }
    r->exprs[r->n_exprs++] = e;
    return 0;
}

int w_expr(serve_req *r, const json_t *o, const char *name, ddb_expr_kind kind, const ddb_item *names,
           ddb_expr **out)
{
    *out = NULL;
    const char *text;
    if (w_str(r, o, name, &text))
        return -1;
    return w_prepare(r, kind, text, names, out);
}

int w_prepare(serve_req *r, ddb_expr_kind kind, const char *text, const ddb_item *names, ddb_expr **out)
{
    *out = NULL;
    if (!text)
        return 0;
    int rc = ddb_expr_prepare(kind, text, names, out, &r->err);
    if (rc)
        return serve_fail_code(r, rc);
    return w_keep_expr(r, *out);
}

int w_capacity(serve_req *r, const json_t *o, ddb_return_capacity *out)
{
    *out = DDB_CAPACITY_NONE;
    const char *s;
    if (w_str(r, o, "ReturnConsumedCapacity", &s))
        return -1;
    if (!s || strcmp(s, "NONE") == 0)
        return 0;
    if (strcmp(s, "TOTAL") == 0)
        *out = DDB_CAPACITY_TOTAL;
    else if (strcmp(s, "INDEXES") == 0)
        *out = DDB_CAPACITY_INDEXES;
    else
        return serve_validation(r,
                                "1 validation error detected: Value '%s' at 'returnConsumedCapacity' failed to "
                                "satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]",
                                s);
    return 0;
}

int w_attributes(serve_req *r, const json_t *o, const char ***names, size_t *n)
{
    *names = NULL;
    *n = 0;
    const json_t *v = json_object_get(o, "AttributesToGet");
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_array(v))
        return wrong_type(r, "AttributesToGet", "an array");
    size_t count = json_array_size(v);
    const char **p = ddb_arena_alloc(r->a, (count ? count : 1) * sizeof *p);
    if (!p)
        return serve_fail_code(r, DDB_ENOMEM);
    for (size_t i = 0; i < count; i++) {
        if (!json_is_string(json_array_get(v, i)))
            return wrong_type(r, "AttributesToGet", "strings");
        p[i] = json_string_value(json_array_get(v, i));
        /* the item's limit on a name, as where an expression names it */
        if (json_string_length(json_array_get(v, i)) > DDB_ATTR_NAME_MAX)
            return serve_validation(r, "Attribute name is too large, must be less than 65536 bytes (AttributesToGet "
                                       "member %zu)",
                                    i + 1);
    }
    *names = p;
    *n = count;
    return 0;
}

int w_check_exprs(serve_req *r, const ddb_expr *const *e, size_t n, const ddb_item *names, const ddb_item *values)
{
    int rc = ddb_expr_check_request(e, n, names, values, &r->err);
    return rc ? serve_fail_code(r, rc) : 0;
}

json_t *w_item_json(serve_req *r, const ddb_item *it)
{
    json_t *j = NULL;
    if (ddb_json_from_item(it, &j, &r->err))
        return NULL;
    return j;
}

json_t *w_capacity_json(serve_req *r, const char *table, ddb_return_capacity rc, const ddb_capacity *c)
{
    if (rc == DDB_CAPACITY_NONE)
        return NULL;
    json_t *o = json_object();
    json_object_set_new(o, "TableName", json_string(table));
    json_object_set_new(o, "CapacityUnits", json_real(c->total));
    /* DynamoDB gives the read / write split only for transactions, which
     * may do both; the other operations answer CapacityUnits alone
     * (ExtendDB's dual-target tests/test_consumed_capacity_shape.py,
     * measured on DynamoDB) */
    bool split = r->op == op_transact_write || r->op == op_transact_get;
    if (split && c->read)
        json_object_set_new(o, "ReadCapacityUnits", json_real(c->read));
    if (split && c->write)
        json_object_set_new(o, "WriteCapacityUnits", json_real(c->write));
    if (rc == DDB_CAPACITY_INDEXES) {
        json_object_set_new(o, "Table", json_pack("{s:f}", "CapacityUnits", c->table_read + c->table_write));
        if (c->n_indexes) {
            json_t *g = json_object(), *l = json_object();
            for (size_t i = 0; i < c->n_indexes; i++)
                json_object_set_new(c->indexes[i].local ? l : g, c->indexes[i].name,
                                    json_pack("{s:f}", "CapacityUnits", c->indexes[i].read + c->indexes[i].write));
            if (json_object_size(g))
                json_object_set(o, "GlobalSecondaryIndexes", g);
            if (json_object_size(l))
                json_object_set(o, "LocalSecondaryIndexes", l);
            json_decref(g);
            json_decref(l);
        }
    }
    return o;
}

char *w_table_arn(serve_req *r, const char *table)
{
    size_t n = strlen(table) + strlen(r->srv->region) + strlen(r->srv->account) + 40;
    char *s = ddb_arena_alloc(r->a, n);
    if (s)
        snprintf(s, n, "arn:aws:dynamodb:%s:%s:table/%s", r->srv->region, r->srv->account, table);
    return s;
}

const char *w_arn_table(serve_req *r, const char *arn)
{
    const char *t = w_table_of(arn);
    if (t == arn)
        return strncmp(arn, "arn:", 4) == 0 ? NULL : arn;
    const char *end = strchr(t, '/');
    size_t n = end ? (size_t)(end - t) : strlen(t);
    char *s = ddb_arena_alloc(r->a, n + 1);
    if (!s)
        return NULL;
    memcpy(s, t, n);
    s[n] = '\0';
    return s;
}
