/* ddb serve: the JSON types of a request's attribute values, checked the
 * way DynamoDB's request deserializer checks them before any validation:
 * a value of the wrong JSON type is a SerializationException, in its words
 * ("NUMBER_VALUE cannot be converted to String" for {"N": 5}, "Base64
 * encoded length is expected a multiple of 4 bytes but found: 3" for a bad
 * B, ...; the words as dynalite's validations, written to answer as
 * DynamoDB does, have them; API_AttributeValue for the types).  What passes
 * here is then decoded and validated by <ddb/json.h> (wire.c), which keeps
 * DynamoDB's validation words (empty sets, numbers, ...).
 *
 * The attribute values of the item operations sit under members of known
 * names at any depth (Item, Key, Keys, ExclusiveStartKey,
 * ExpressionAttributeValues, and the Value / AttributeValueList of the
 * legacy condition and update maps); the walk looks for those, and takes
 * the names of tables and attributes that key RequestItems and the legacy
 * maps for names, whatever they are.  Calls reply.c, libddb and jansson. */
#include "serve.h"

#include <stdlib.h>
#include <string.h>

/* Deeper than this the walk stops; the decoder refuses values nested past
 * DynamoDB's 32 levels anyway. */
#define SHAPE_MAX_DEPTH 64

static int ser(serve_req *r, const char *msg, const char *detail)
{
    return serve_fail(r, 400, "SerializationException", "%s%s", msg, detail ? detail : "");
}

/* The deserializer's words for a JSON value where a scalar of Java type
 * `type` (String, Boolean) was expected. */
static int not_scalar(serve_req *r, const json_t *v, const char *type)
{
    char m[96];
    switch (json_typeof(v)) {
    case JSON_INTEGER: snprintf(m, sizeof m, "NUMBER_VALUE cannot be converted to %s", type); break;
    case JSON_REAL: snprintf(m, sizeof m, "DECIMAL_VALUE cannot be converted to %s", type); break;
    case JSON_TRUE: snprintf(m, sizeof m, "TRUE_VALUE cannot be converted to %s", type); break;
    case JSON_FALSE: snprintf(m, sizeof m, "FALSE_VALUE cannot be converted to %s", type); break;
    case JSON_OBJECT: snprintf(m, sizeof m, "Start of structure or map found where not expected"); break;
    case JSON_ARRAY: snprintf(m, sizeof m, "Unrecognized collection type class java.lang.%s", type); break;
    default: return 0;
    }
    return ser(r, m, NULL);
}

static int string_shape(serve_req *r, const json_t *v)
{
    return json_is_string(v) || json_is_null(v) ? 0 : not_scalar(r, v, "String");
}

/* B and BS elements: base64 text (a multiple of 4 characters, the standard alphabet). */
static int blob_shape(serve_req *r, const json_t *v)
{
    if (json_is_null(v))
        return 0;
    if (json_is_number(v) || json_is_boolean(v))
        return ser(r, "only base-64-encoded strings are convertible to bytes", NULL);
    if (json_is_array(v))
        return ser(r, "Unrecognized collection type class java.nio.ByteBuffer", NULL);
    if (json_is_object(v))
        return ser(r, "Start of structure or map found where not expected", NULL);
    size_t n = json_string_length(v);
    if (n % 4) {
        char m[96];
        snprintf(m, sizeof m, "Base64 encoded length is expected a multiple of 4 bytes but found: %zu", n);
        return ser(r, m, NULL);
    }
    uint8_t *buf = malloc(n / 4 * 3 + 1);
    if (!buf)
        return serve_fail_code(r, DDB_ENOMEM);
    size_t len, bad;
    int rc = ddb_json_base64_decode(json_string_value(v), n, buf, &len, &bad);
    free(buf);
    /* sic: DynamoDB's word "dectected" */
    return rc == DDB_OK ? 0 : ser(r, "Invalid last non-pad Base64 character dectected", NULL);
}

static int value_shape(serve_req *r, const json_t *v, bool field, int depth);

/* A map of attribute values (an item, a key, M's contents). */
static int map_shape(serve_req *r, const json_t *m, int depth)
{
    if (!m || json_is_null(m) || depth > SHAPE_MAX_DEPTH)
        return 0;
    if (json_is_array(m))
        return ser(r, "Unrecognized collection type java.util.Map<java.lang.String, "
                      "com.amazonaws.dynamodb.v20120810.AttributeValue>",
                   NULL);
    if (!json_is_object(m))
        return ser(r, "Unexpected field type", NULL);
    const char *k;
    json_t *x;
    json_object_foreach((json_t *)m, k, x) {
        if (value_shape(r, x, false, depth + 1))
            return -1;
    }
    return 0;
}

/* A list of one element shape (SS / NS: strings, BS: base64, L: values,
 * M: maps of values, as BatchGetItem's Keys). */
static int list_shape(serve_req *r, const json_t *l, char elem, int depth)
{
    if (!l || json_is_null(l))
        return 0;
    if (json_is_object(l))
        return ser(r, "Start of structure or map found where not expected", NULL);
    if (!json_is_array(l))
        return ser(r, "Unexpected field type", NULL);
    size_t i;
    const json_t *e;
    json_array_foreach(l, i, e) {
        int rc = elem == 'S'   ? string_shape(r, e)
                 : elem == 'B' ? blob_shape(r, e)
                 : elem == 'M' ? map_shape(r, e, depth + 1)
                               : value_shape(r, e, false, depth + 1);
        if (rc)
            return -1;
    }
    return 0;
}

/* One AttributeValue; field: in a position the deserializer calls a field
 * (Expected's Value) rather than a value of a map or list. */
static int value_shape(serve_req *r, const json_t *v, bool field, int depth)
{
    if (!v || json_is_null(v) || depth > SHAPE_MAX_DEPTH)
        return 0;
    if (json_is_array(v))
        return ser(r, "Unrecognized collection type class com.amazonaws.dynamodb.v20120810.AttributeValue", NULL);
    if (!json_is_object(v))
        return ser(r, field ? "Unexpected field type" : "Unexpected value type in payload", NULL);
    const char *k;
    json_t *x;
    json_object_foreach((json_t *)v, k, x) {
        int rc = 0;
        if (!strcmp(k, "S") || !strcmp(k, "N"))
            rc = string_shape(r, x);
        else if (!strcmp(k, "B"))
            rc = blob_shape(r, x);
        else if (!strcmp(k, "BOOL") || !strcmp(k, "NULL"))
            /* a string is left to the decoder (the deserializer reads "true" and "yes" as true) */
            rc = json_is_boolean(x) || json_is_string(x) || json_is_null(x) ? 0 : not_scalar(r, x, "Boolean");
        else if (!strcmp(k, "SS") || !strcmp(k, "NS"))
            rc = list_shape(r, x, 'S', depth);
        else if (!strcmp(k, "BS"))
            rc = list_shape(r, x, 'B', depth);
        else if (!strcmp(k, "L"))
            rc = list_shape(r, x, 'L', depth);
        else if (!strcmp(k, "M"))
            rc = map_shape(r, x, depth);
        if (rc)
            return -1;
    }
    return 0;
}

static int walk(serve_req *r, const json_t *o, int depth);

/* The values of each member of o, whatever its name (a table of
 * RequestItems, an attribute of a legacy condition map). */
static int walk_members(serve_req *r, const json_t *o, bool conditions, int depth)
{
    const char *k;
    json_t *x;
    json_object_foreach((json_t *)o, k, x) {
        /* a legacy condition or update: its Value and AttributeValueList */
        if (conditions ? json_is_object(x) && (value_shape(r, json_object_get(x, "Value"), true, depth + 1) ||
                                               list_shape(r, json_object_get(x, "AttributeValueList"), 'L', depth))
                       : walk(r, x, depth + 1))
            return -1;
    }
    return 0;
}

/* Any member of o, at any depth, that holds attribute values. */
static int walk(serve_req *r, const json_t *o, int depth)
{
    if (depth > SHAPE_MAX_DEPTH)
        return 0;
    if (json_is_array(o)) {
        size_t i;
        const json_t *e;
        json_array_foreach(o, i, e) {
            if (walk(r, e, depth + 1))
                return -1;
        }
        return 0;
    }
    if (!json_is_object(o))
        return 0;
    const char *k;
    json_t *x;
    json_object_foreach((json_t *)o, k, x) {
        int rc;
        if (!strcmp(k, "Item") || !strcmp(k, "Key") || !strcmp(k, "ExclusiveStartKey") ||
            !strcmp(k, "ExpressionAttributeValues"))
            rc = map_shape(r, x, depth + 1);
        else if (!strcmp(k, "Keys"))
            rc = json_is_array(x) ? list_shape(r, x, 'M', depth) : 0;
        else if (!strcmp(k, "RequestItems"))
            rc = json_is_object(x) ? walk_members(r, x, false, depth) : 0;
        else if (!strcmp(k, "Expected") || !strcmp(k, "AttributeUpdates") || !strcmp(k, "KeyConditions") ||
                 !strcmp(k, "QueryFilter") || !strcmp(k, "ScanFilter"))
            rc = json_is_object(x) ? walk_members(r, x, true, depth) : 0;
        else if (!strcmp(k, "ExpressionAttributeNames"))
            rc = 0;
        else
            rc = walk(r, x, depth + 1);
        if (rc)
            return -1;
    }
    return 0;
}

int w_shape_check(serve_req *r, serve_op_fn fn)
{
    static const serve_op_fn item_ops[] = {op_get_item,  op_put_item,   op_update_item,  op_delete_item,
                                           op_query,     op_scan,       op_batch_get,    op_batch_write,
                                           op_transact_get, op_transact_write};
    for (size_t i = 0; i < sizeof item_ops / sizeof *item_ops; i++)
        if (fn == item_ops[i])
            return walk(r, r->in, 0);
    return 0;
}
