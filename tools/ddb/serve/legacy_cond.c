/* ddb serve: the legacy condition maps (Expected, QueryFilter, ScanFilter,
 * KeyConditions) as one expression of the engine's condition grammar.
 * Each entry "attr": {ComparisonOperator, AttributeValueList} (Expected also
 * {Value, Exists}) is checked with DynamoDB's rules and words, then written
 * as a comparison on a generated name placeholder (developer guide,
 * LegacyConditionalParameters.Conditions and .Expected; API_Condition,
 * API_ExpectedAttributeValue; the words as dynalite's validations, written
 * to answer as DynamoDB does, have them).  Calls legacy.c's placeholders,
 * reply.c, libddb and jansson. */
#include "legacy.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* One comparison operator: its name, how many values it takes (min..max),
 * the value types it accepts in a filter ("" = any: API_Condition, "EQ is
 * supported for all data types"; the others String, Number or Binary,
 * BEGINS_WITH String or Binary, as API_Condition lists them and dynalite's
 * test/scan.js, written against DynamoDB, checks), and whether
 * KeyConditions may use it. */
typedef struct lg_op {
    const char *name;
    unsigned min, max;
    const char *types;  /* space-separated type descriptors, "" = every type */
    bool indexable;     /* usable in KeyConditions */
} lg_op;

static const lg_op ops[] = {
    {"EQ", 1, 1, "", true},
    {"NE", 1, 1, "", false},
    {"LE", 1, 1, "S N B", true},
    {"LT", 1, 1, "S N B", true},
    {"GE", 1, 1, "S N B", true},
    {"GT", 1, 1, "S N B", true},
    {"NOT_NULL", 0, 0, "", false},
    {"NULL", 0, 0, "", false},
    {"CONTAINS", 1, 1, "S N B", false},
    {"NOT_CONTAINS", 1, 1, "S N B", false},
    {"BEGINS_WITH", 1, 1, "S B", true},
    {"IN", 1, UINT32_MAX, "S N B", false},
    {"BETWEEN", 2, 2, "S N B", true},
};

static const lg_op *find_op(const char *name)
{
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (strcmp(ops[i].name, name) == 0)
            return &ops[i];
    return NULL;
}

static bool type_allowed(const char *types, const char *t)
{
    if (!*types)
        return true;
    size_t n = strlen(t);
    for (const char *p = types; *p;) {
        size_t w = strcspn(p, " ");
        if (w == n && strncmp(p, t, n) == 0)
            return true;
        p += w + (p[w] == ' ');
    }
    return false;
}

/* The member's name as DynamoDB's validation messages spell it (first letter lower case). */
static void member_path(const char *member, char *out, size_t size)
{
    snprintf(out, size, "%s", member);
    if (out[0] >= 'A' && out[0] <= 'Z')
        out[0] = (char)(out[0] - 'A' + 'a');
}

/* The comparison of one entry, as an expression. */
static int write_comparison(lg_ctx *c, const lg_op *op, const char *name, const json_t *vals, lg_text *out)
{
    const char *v[2] = {NULL, NULL};
    size_t n = json_array_size(vals);
    for (size_t i = 0; i < n && i < 2; i++)
        if (!(v[i] = lg_value(c, json_array_get(vals, i))))
            return -1;
    const char *o = op->name;
    if (strcmp(o, "NOT_NULL") == 0)
        return lg_append(c, out, "attribute_exists(%s)", name);
    if (strcmp(o, "NULL") == 0)
        return lg_append(c, out, "attribute_not_exists(%s)", name);
    if (strcmp(o, "CONTAINS") == 0)
        return lg_append(c, out, "contains(%s, %s)", name, v[0]);
    if (strcmp(o, "NOT_CONTAINS") == 0)
        return lg_append(c, out, "NOT contains(%s, %s)", name, v[0]);
    if (strcmp(o, "BEGINS_WITH") == 0)
        return lg_append(c, out, "begins_with(%s, %s)", name, v[0]);
    if (strcmp(o, "BETWEEN") == 0)
        return lg_append(c, out, "%s BETWEEN %s AND %s", name, v[0], v[1]);
    if (strcmp(o, "IN") == 0) {
        if (lg_append(c, out, "%s IN (%s", name, v[0]))
            return -1;
        for (size_t i = 1; i < n; i++) {
            const char *p = i == 1 ? v[1] : lg_value(c, json_array_get(vals, i));
            if (!p || lg_append(c, out, ", %s", p))
                return -1;
        }
        return lg_append(c, out, ")");
    }
    static const char *const cmp[][2] = {{"EQ", "="},  {"NE", "<>"}, {"LE", "<="},
                                         {"LT", "<"},  {"GE", ">="}, {"GT", ">"}};
    for (size_t i = 0; i < sizeof cmp / sizeof *cmp; i++)
        if (strcmp(o, cmp[i][0]) == 0)
            return lg_append(c, out, "%s %s %s", name, cmp[i][1], v[0]);
    return serve_fail_code(c->r, DDB_EINVAL);
}

/* The values' checks every condition shares (API_Condition): their count
 * for the operator, one type for all, the types a filter's operator takes,
 * a BETWEEN range in order. */
static int check_values(serve_req *r, const lg_op *op, const json_t *vals, bool typed)
{
    size_t n = json_array_size(vals);
    const ddb_value *first = NULL, *second = NULL;
    bool mixed = false;
    for (size_t i = 0; i < n; i++) {
        ddb_value *v;
        int rc = ddb_json_to_value(json_array_get(vals, i), r->a, &v, &r->err);
        if (rc)
            return serve_fail_code(r, rc);
        if (!first)
            first = v;
        else if (!second)
            second = v;
        mixed |= v->type != first->type;
    }
    if (n < op->min || n > op->max)
        return lg_invalid(r, "Invalid number of argument(s) for the %s ComparisonOperator", op->name);
    if (mixed)
        return lg_invalid(r, "AttributeValues inside AttributeValueList must be of same type");
    if (typed && first && !type_allowed(op->types, ddb_type_name(first->type)))
        return lg_invalid(r, "ComparisonOperator %s is not valid for %s AttributeValue type",
                             op->name, ddb_type_name(first->type));
    if (second && strcmp(op->name, "BETWEEN") == 0 && ddb_value_compare(first, second) > 0)
        return serve_validation(r, "The BETWEEN condition was provided a range where the lower bound is greater than "
                                   "the upper bound");
    return 0;
}

/* A member of a condition object of the given JSON type (NULL when absent). */
static int member(serve_req *r, const json_t *cond, const char *name, json_type type, const json_t **out)
{
    const json_t *v = json_object_get(cond, name);
    *out = NULL;
    if (!v || json_is_null(v))
        return 0;
    if (json_typeof(v) != type && !(type == JSON_TRUE && json_is_boolean(v)))
        return serve_fail(r, 400, "SerializationException", "%s: unexpected JSON type", name);
    *out = v;
    return 0;
}

/* One Expected entry (API_ExpectedAttributeValue): Exists / Value, or a
 * ComparisonOperator with AttributeValueList (or Value as its one value). */
static int expected_entry(lg_ctx *c, const char *attr, const char *name, const lg_op *op, const json_t *cond,
                          lg_text *out)
{
    serve_req *r = c->r;
    const json_t *list, *value, *exists;
    if (member(r, cond, "AttributeValueList", JSON_ARRAY, &list) || member(r, cond, "Value", JSON_OBJECT, &value) ||
        member(r, cond, "Exists", JSON_TRUE, &exists))
        return -1;
    if (list && value)
        return lg_invalid(r, "Value and AttributeValueList cannot be used together for Attribute: %s", attr);
    if (op) {
        if (exists)
            return lg_invalid(r, "Exists and ComparisonOperator cannot be used together for Attribute: %s", attr);
        if (op->max > 0 && !list && !value)
            return lg_invalid(r, "Value or AttributeValueList must be used with ComparisonOperator: %s for "
                                 "Attribute: %s", op->name, attr);
        json_t *vals = list ? json_incref((json_t *)list) : json_array();
        if (value)
            json_array_append(vals, (json_t *)value);
        int rc = check_values(r, op, vals, false) || write_comparison(c, op, name, vals, out);
        json_decref(vals);
        return rc ? -1 : 0;
    }
    if (list)
        return lg_invalid(r, "AttributeValueList can only be used with a ComparisonOperator for Attribute: %s", attr);
    bool must_exist = !exists || json_is_true(exists);
    if (must_exist && !value)
        return lg_invalid(r, "Value must be provided when Exists is %s for Attribute: %s",
                             exists ? "true" : "null", attr);
    if (!must_exist && value)
        return lg_invalid(r, "Value cannot be used when Exists is false for Attribute: %s", attr);
    if (!must_exist)
        return lg_append(c, out, "attribute_not_exists(%s)", name);
    ddb_value *v;
    int rc = ddb_json_to_value(value, r->a, &v, &r->err);
    if (rc)
        return serve_fail_code(r, rc);
    const char *p = lg_value(c, (json_t *)value);
    return p ? lg_append(c, out, "%s = %s", name, p) : -1;
}

/* One entry of a QueryFilter, ScanFilter or KeyConditions (API_Condition). */
static int filter_entry(lg_ctx *c, const char *name, const lg_op *op, lg_map kind, const json_t *cond, lg_text *out)
{
    serve_req *r = c->r;
    const json_t *list;
    if (member(r, cond, "AttributeValueList", JSON_ARRAY, &list))
        return -1;
    json_t *vals = list ? json_incref((json_t *)list) : json_array();
    int rc = check_values(r, op, vals, true);
    /* Query.KeyConditions: only the operators a key range can serve */
    if (!rc && kind == LG_KEY && !op->indexable)
        rc = serve_validation(r, "Attempted conditional constraint is not an indexable operation");
    if (!rc)
        rc = write_comparison(c, op, name, vals, out);
    json_decref(vals);
    return rc ? -1 : 0;
}

int lg_conditions(lg_ctx *c, const json_t *map, const char *member_name, lg_map kind, bool or_join, lg_text *out)
{
    serve_req *r = c->r;
    if (!json_is_object(map))
        return serve_fail(r, 400, "SerializationException", "%s: expected an object", member_name);
    char path[64];
    member_path(member_name, path, sizeof path);
    const char *attr;
    json_t *cond;
    size_t i = 0, n = json_object_size(map);
    json_object_foreach((json_t *)map, attr, cond) {
        if (!json_is_object(cond))
            return serve_fail(r, 400, "SerializationException", "%s.%s: expected an object", member_name, attr);
        const json_t *opj;
        if (member(r, cond, "ComparisonOperator", JSON_STRING, &opj))
            return -1;
        const char *opname = opj ? json_string_value(opj) : NULL;
        const lg_op *op = opname ? find_op(opname) : NULL;
        if (opname && !op)
            return serve_validation(r,
                                    "1 validation error detected: Value '%.100s' at "
                                    "'%s.%.255s.member.comparisonOperator' failed to satisfy constraint: Member must "
                                    "satisfy enum value set: [IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, GT, NOT_NULL, "
                                    "NE, LE, BEGINS_WITH, GE, CONTAINS]",
                                    opname, path, attr);
        if (!op && kind != LG_EXPECTED)
            return serve_validation(r,
                                    "1 validation error detected: Value null at '%s.%.255s.member.comparisonOperator' "
                                    "failed to satisfy constraint: Member must not be null",
                                    path, attr);
        const char *name = lg_name(c, attr);
        if (!name)
            return -1;
        /* key conditions are the grammar's "a AND b", without parentheses */
        bool paren = n > 1 && kind != LG_KEY;
        if (lg_append(c, out, "%s%s", i ? (or_join ? " OR " : " AND ") : "", paren ? "(" : ""))
            return -1;
        int rc = kind == LG_EXPECTED ? expected_entry(c, attr, name, op, cond, out)
                                     : filter_entry(c, name, op, kind, cond, out);
        if (rc || (paren && lg_append(c, out, ")")))
            return -1;
        i++;
    }
    return 0;
}
