/* ddb serve: DynamoDB's legacy parameters (AttributesToGet, Expected with
 * ConditionalOperator, AttributeUpdates, KeyConditions, QueryFilter,
 * ScanFilter), translated in one place into the expression members the
 * handlers already serve, before the handler runs (serve_call's one hook):
 * the request is rewritten, with the legacy members replaced by
 * ConditionExpression, UpdateExpression, KeyConditionExpression,
 * FilterExpression or ProjectionExpression over generated placeholders.
 *
 * Why here and not in libddb: the legacy parameters are a form of the
 * HTTP API only.  The C API (and the remote backend, which sends
 * expressions to DynamoDB) takes expressions, so the server is the one
 * place that receives them.
 *
 * The rules come first, in DynamoDB's words (API reference of each
 * operation; the developer guide's LegacyConditionalParameters pages; the
 * words as dynalite's validations, written to answer as DynamoDB does, have
 * them): expression and non-expression members of one request exclude each
 * other, ExpressionAttributeNames / Values need an expression, AttributesToGet
 * is not empty and has no duplicates.  legacy_reword() puts the engine's
 * words about a translated expression in the legacy member's.
 * Calls legacy_cond.c, legacy_update.c, legacy_text.c, reply.c, libddb and
 * jansson. */
#include "legacy.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- The rules of each operation ------------------------------------------- */

enum { LG_DID_UPDATES = 1, LG_DID_QUERY_FILTER = 2 };

typedef struct lg_rules {
    const char *exprs[4];      /* the expression members, in DynamoDB's order in its message */
    const char *legacy[5];     /* the non-expression members */
    const char *values_null;   /* "... is null" of ExpressionAttributeValues without an expression, NULL: none */
    bool translate_attributes; /* AttributesToGet becomes a ProjectionExpression (BatchGetItem) */
} lg_rules;

static const lg_rules get_rules = {{"ProjectionExpression"}, {"AttributesToGet"}, NULL, false};
static const lg_rules batch_get_rules = {{"ProjectionExpression"}, {"AttributesToGet"}, NULL, true};
static const lg_rules put_rules = {
    {"ConditionExpression"}, {"Expected", "ConditionalOperator"}, "ConditionExpression is null", false};
static const lg_rules update_rules = {{"UpdateExpression", "ConditionExpression"},
                                      {"AttributeUpdates", "Expected", "ConditionalOperator"},
                                      "UpdateExpression and ConditionExpression are null",
                                      false};
static const lg_rules query_rules = {{"ProjectionExpression", "FilterExpression", "KeyConditionExpression"},
                                     {"AttributesToGet", "QueryFilter", "ConditionalOperator", "KeyConditions"},
                                     "FilterExpression and KeyConditionExpression are null",
                                     false};
static const lg_rules scan_rules = {{"ProjectionExpression", "FilterExpression"},
                                    {"AttributesToGet", "ScanFilter", "ConditionalOperator"},
                                    "FilterExpression is null",
                                    false};

static bool given(const json_t *o, const char *name)
{
    const json_t *v = json_object_get(o, name);
    return v && !json_is_null(v);
}

/* "Value provided ... : {A, B}" lists of the members given. */
static void list_given(const json_t *o, const char *const *names, const char *skip, char *out, size_t size)
{
    size_t len = 0;
    out[0] = 0;
    for (size_t i = 0; names[i] && len < size; i++)
        if (given(o, names[i]) && (!skip || strcmp(names[i], skip)))
            len += (size_t)snprintf(out + len, size - len, "%s%s", len ? ", " : "", names[i]);
}

/* Expression and non-expression members together; names or values without
 * an expression (dynalite's validateExpressionParams has DynamoDB's words). */
static int check_mixing(serve_req *r, const json_t *o, const lg_rules *rules)
{
    char exprs[200], legacy[200];
    list_given(o, rules->exprs, NULL, exprs, sizeof exprs);
    /* Query: KeyConditions may go with a FilterExpression or a
     * ProjectionExpression as long as KeyConditionExpression is absent */
    const char *skip = given(o, "KeyConditionExpression") ? NULL : "KeyConditions";
    list_given(o, rules->legacy, skip, legacy, sizeof legacy);
    if (exprs[0] && legacy[0])
        return serve_validation(r, "Can not use both expression and non-expression parameters in the same request: "
                                   "Non-expression parameters: {%s} Expression parameters: {%s}",
                                legacy, exprs);
    if (!exprs[0] && given(o, "ExpressionAttributeNames"))
        return serve_validation(r, "ExpressionAttributeNames can only be specified when using expressions");
    if (!exprs[0] && rules->values_null && given(o, "ExpressionAttributeValues"))
        return serve_validation(r, "ExpressionAttributeValues can only be specified when using expressions: %s",
                                rules->values_null);
    return 0;
}

/* AttributesToGet: one or more names, no name twice (API_GetItem). */
static int check_attributes(serve_req *r, const json_t *o)
{
    const json_t *a = json_object_get(o, "AttributesToGet");
    if (!a || json_is_null(a))
        return 0;
    if (!json_is_array(a))
        return serve_fail(r, 400, "SerializationException", "AttributesToGet: expected an array");
    if (json_array_size(a) == 0)
        return serve_validation(r, "1 validation error detected: Value '[]' at 'attributesToGet' failed to satisfy "
                                   "constraint: Member must have length greater than or equal to 1");
    for (size_t i = 0; i < json_array_size(a); i++) {
        const json_t *s = json_array_get(a, i);
        if (!json_is_string(s))
            return serve_fail(r, 400, "SerializationException", "AttributesToGet: expected strings");
        if (strlen(json_string_value(s)) != json_string_length(s))
            return serve_validation(r, "AttributesToGet must not contain a NUL character (U+0000)");
        for (size_t k = 0; k < i; k++)
            if (json_equal(s, json_array_get(a, k)))
                return lg_invalid(r, "Duplicate value in attribute name: %.255s", json_string_value(s));
    }
    return 0;
}

/* AttributesToGet as a ProjectionExpression of name placeholders. */
static int projection(lg_ctx *c, const json_t *a, lg_text *out)
{
    for (size_t i = 0; i < json_array_size(a); i++) {
        const char *n = lg_name(c, json_string_value(json_array_get(a, i)));
        if (!n || lg_append(c, out, "%s%s", i ? ", " : "", n))
            return -1;
    }
    return 0;
}

/* ConditionalOperator: AND (the default) or OR, and only over two or more
 * conditions of the request's filter or Expected (the words as DynamoDB
 * answers them, captured by ExtendDB's dual-target tests,
 * tests/test_conditional_operator.py). */
static int conditional_or(serve_req *r, const json_t *o, bool *or_join)
{
    const json_t *v = json_object_get(o, "ConditionalOperator");
    *or_join = false;
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_string(v))
        return serve_fail(r, 400, "SerializationException", "ConditionalOperator: expected a string");
    if (strcmp(json_string_value(v), "OR") == 0)
        *or_join = true;
    else if (strcmp(json_string_value(v), "AND"))
        return serve_validation(r,
                                "1 validation error detected: Value '%.100s' at 'conditionalOperator' failed to "
                                "satisfy constraint: Member must satisfy enum value set: [OR, AND]",
                                json_string_value(v));
    size_t n = 0;
    static const char *const maps[] = {"Expected", "QueryFilter", "ScanFilter"};
    for (size_t i = 0; i < sizeof maps / sizeof *maps; i++) {
        const json_t *m = json_object_get(o, maps[i]);
        n += json_is_object(m) ? json_object_size(m) : 0;
    }
    if (n == 0)
        return serve_validation(r, "ConditionalOperator cannot be used without Filter or Expected");
    if (n == 1)
        return serve_validation(r, "ConditionalOperator can only be used when Filter or Expected has two or more "
                                   "elements");
    return 0;
}

/* Set member to the text written (nothing when empty). */
static int set_expr(lg_ctx *c, json_t *out, const char *member, const lg_text *t)
{
    if (!t->len)
        return 0;
    return json_object_set_new(out, member, json_string(t->s)) ? serve_fail_code(c->r, DDB_ENOMEM) : 0;
}

/* The legacy members of o translated into out (a copy of o). */
static int translate(lg_ctx *c, const json_t *o, json_t *out, const lg_rules *rules, unsigned *flags)
{
    serve_req *r = c->r;
    bool or_join;
    if (conditional_or(r, o, &or_join))
        return -1;
    static const struct {
        const char *member, *into;
        lg_map kind;
    } maps[] = {
        {"Expected", "ConditionExpression", LG_EXPECTED},
        {"KeyConditions", "KeyConditionExpression", LG_KEY},
        {"QueryFilter", "FilterExpression", LG_FILTER},
        {"ScanFilter", "FilterExpression", LG_FILTER},
    };
    for (size_t i = 0; i < sizeof maps / sizeof *maps; i++) {
        const json_t *m = json_object_get(o, maps[i].member);
        if (!m || json_is_null(m))
            continue;
        /* API_Query: "KeyConditions ... one or two conditions" */
        if (maps[i].kind == LG_KEY && json_is_object(m) && (json_object_size(m) < 1 || json_object_size(m) > 2))
            return serve_validation(r, "Conditions can be of length 1 or 2 only");
        lg_text t = {0};
        if (lg_conditions(c, m, maps[i].member, maps[i].kind, or_join && maps[i].kind != LG_KEY, &t) ||
            set_expr(c, out, maps[i].into, &t))
            return -1;
        if (strcmp(maps[i].member, "QueryFilter") == 0)
            *flags |= LG_DID_QUERY_FILTER;
    }
    const json_t *u = json_object_get(o, "AttributeUpdates");
    if (u && !json_is_null(u)) {
        lg_text t = {0};
        if (lg_updates(c, u, &t) || set_expr(c, out, "UpdateExpression", &t))
            return -1;
        *flags |= LG_DID_UPDATES;
    }
    const json_t *a = json_object_get(o, "AttributesToGet");
    if (rules->translate_attributes && a && !json_is_null(a)) {
        lg_text t = {0};
        if (projection(c, a, &t) || set_expr(c, out, "ProjectionExpression", &t))
            return -1;
        json_object_del(out, "AttributesToGet");
    }
    static const char *const gone[] = {"Expected", "ConditionalOperator", "AttributeUpdates", "KeyConditions",
                                       "QueryFilter", "ScanFilter"};
    for (size_t i = 0; i < sizeof gone / sizeof *gone; i++)
        json_object_del(out, gone[i]);
    return 0;
}

/* One request object (or one table's part of a BatchGetItem): the rules,
 * then, when a legacy member is given, *out is the rewritten copy. */
static int rewrite(serve_req *r, const json_t *o, const lg_rules *rules, json_t **out, unsigned *flags)
{
    *out = NULL;
    /* the table name is checked first (DynamoDB's request validator),
     * except in a BatchGetItem table's part, which has none */
    const char *table;
    if ((!rules->translate_attributes && w_table(r, o, &table)) || check_mixing(r, o, rules) ||
        check_attributes(r, o))
        return -1;
    bool any = false;
    for (size_t i = 0; rules->legacy[i]; i++)
        any |= given(o, rules->legacy[i]) &&
               (rules->translate_attributes || strcmp(rules->legacy[i], "AttributesToGet"));
    if (!any)
        return 0;
    json_t *copy = json_copy((json_t *)o);
    const json_t *names = json_object_get(o, "ExpressionAttributeNames");
    const json_t *values = json_object_get(o, "ExpressionAttributeValues");
    lg_ctx c = {.r = r,
                .names = json_is_object(names) ? json_copy((json_t *)names) : json_object(),
                .values = json_is_object(values) ? json_copy((json_t *)values) : json_object()};
    int rc = copy && c.names && c.values ? translate(&c, o, copy, rules, flags) : serve_fail_code(r, DDB_ENOMEM);
    if (!rc && json_object_size(c.names))
        json_object_set(copy, "ExpressionAttributeNames", c.names);
    if (!rc && json_object_size(c.values))
        json_object_set(copy, "ExpressionAttributeValues", c.values);
    json_decref(c.names);
    json_decref(c.values);
    if (rc) {
        json_decref(copy);
        return -1;
    }
    *out = copy;
    return 0;
}

/* BatchGetItem: each table's KeysAndAttributes. */
static int rewrite_batch_get(serve_req *r, json_t **out, unsigned *flags)
{
    const json_t *ri = json_object_get(r->in, "RequestItems");
    if (!json_is_object(ri))
        return 0;
    json_t *items = NULL;
    const char *table;
    json_t *spec;
    /* the two kinds mix across the request too: a ProjectionExpression for
     * one table, AttributesToGet for another (ExtendDB
     * tests/test_batch_operations.py::TestBatchGetItemExpressionParamMix) */
    bool proj = false, attrs = false;
    json_object_foreach((json_t *)ri, table, spec) {
        proj |= given(spec, "ProjectionExpression");
        attrs |= given(spec, "AttributesToGet");
    }
    if (proj && attrs)
        return serve_validation(r, "Can not use both expression and non-expression parameters in the same request: "
                                   "Non-expression parameters: {AttributesToGet} Expression parameters: "
                                   "{ProjectionExpression}");
    json_object_foreach((json_t *)ri, table, spec) {
        json_t *one;
        if (!json_is_object(spec))
            continue;
        if (rewrite(r, spec, &batch_get_rules, &one, flags)) {
            json_decref(items);
            return -1;
        }
        if (!one)
            continue;
        if (!items)
            items = json_copy((json_t *)ri);
        json_object_set_new(items, table, one);
    }
    if (items) {
        *out = json_copy((json_t *)r->in);
        json_object_set_new(*out, "RequestItems", items);
    }
    return 0;
}

int legacy_translate(serve_req *r, serve_op_fn fn, json_t **out, unsigned *flags)
{
    *out = NULL;
    *flags = 0;
    const lg_rules *rules = fn == op_get_item                           ? &get_rules
                            : fn == op_put_item || fn == op_delete_item ? &put_rules
                            : fn == op_update_item                      ? &update_rules
                            : fn == op_query                            ? &query_rules
                            : fn == op_scan                             ? &scan_rules
                                                                        : NULL;
    if (fn == op_batch_get)
        return rewrite_batch_get(r, out, flags);
    return rules ? rewrite(r, r->in, rules, out, flags) : 0;
}

void legacy_reword(serve_req *r, unsigned flags)
{
    static const struct {
        unsigned flag;
        const char *engine, *legacy;
    } words[] = {
        /* dynalite updateItem.js: an ADD or DELETE on an attribute of another type */
        {LG_DID_UPDATES, "An operand in the update expression has an incorrect data type",
         "Type mismatch for attribute to update"},
        /* dynalite query.js: "QueryFilter can only contain non-primary key attributes" */
        {LG_DID_QUERY_FILTER, "Filter Expression can only contain", "QueryFilter can only contain"},
    };
    for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
        size_t n = strlen(words[i].engine);
        if (!(flags & words[i].flag) || strncmp(r->err.message, words[i].engine, n))
            continue;
        char was[sizeof r->err.message];
        memcpy(was, r->err.message, sizeof was);
        size_t k = strlen(words[i].legacy), room = sizeof r->err.message - 1;
        memcpy(r->err.message, words[i].legacy, k);
        size_t tail = strlen(was + n);
        if (tail > room - k)
            tail = room - k;
        memcpy(r->err.message + k, was + n, tail);
        r->err.message[k + tail] = 0;
    }
}
