/* ddb serve: UpdateItem's legacy AttributeUpdates as one UpdateExpression
 * (developer guide, LegacyConditionalParameters.AttributeUpdates;
 * API_AttributeValueUpdate).  Each entry "attr": {Action, Value}:
 *   PUT (the default) with a value    SET #a = :v
 *   DELETE without a value            REMOVE #a
 *   DELETE with a set                 DELETE #a :v   (those elements)
 *   ADD with a number or a set        ADD #a :v
 *   ADD with a list                   SET #a = list_append(if_not_exists(#a, :empty), :v)
 * with DynamoDB's checks and words (as dynalite's validations, written to
 * answer as DynamoDB does, have them).  Calls legacy.c's placeholders,
 * reply.c, libddb and jansson. */
#include "legacy.h"

#include <string.h>

/* The clauses being gathered, each a comma-separated list. */
typedef struct clauses {
    lg_text set, remove, add, del;
} clauses;

static int add_to(lg_ctx *c, lg_text *t, const char *a, const char *b, const char *sep)
{
    return lg_append(c, t, "%s%s%s%s", t->len ? ", " : "", a, b ? sep : "", b ? b : "");
}

static int one_update(lg_ctx *c, const char *attr, const json_t *u, clauses *cl)
{
    serve_req *r = c->r;
    if (!json_is_object(u))
        return serve_fail(r, 400, "SerializationException", "AttributeUpdates.%s: expected an object", attr);
    const json_t *aj = json_object_get(u, "Action"), *value = json_object_get(u, "Value");
    if (aj && !json_is_null(aj) && !json_is_string(aj))
        return serve_fail(r, 400, "SerializationException", "AttributeUpdates.%s.Action: expected a string", attr);
    if (value && json_is_null(value))
        value = NULL;
    if (value && !json_is_object(value))
        return serve_fail(r, 400, "SerializationException", "AttributeUpdates.%s.Value: expected an object", attr);
    const char *action = json_is_string(aj) ? json_string_value(aj) : "PUT";
    if (strcmp(action, "PUT") && strcmp(action, "ADD") && strcmp(action, "DELETE"))
        return serve_validation(r,
                                "1 validation error detected: Value '%.100s' at "
                                "'attributeUpdates.%.255s.member.action' failed to satisfy constraint: Member must "
                                "satisfy enum value set: [ADD, PUT, DELETE]",
                                action, attr);
    ddb_value *v = NULL;
    if (value) {
        int rc = ddb_json_to_value(value, r->a, &v, &r->err);
        if (rc)
            return serve_fail_code(r, rc);
    }
    if (!v && strcmp(action, "DELETE"))
        return lg_invalid(r, "Only DELETE action is allowed when no attribute value is specified");
    const char *type = v ? ddb_type_name(v->type) : NULL;
    bool set = v && (v->type == DDB_TSS || v->type == DDB_TNS || v->type == DDB_TBS);
    if (v && strcmp(action, "DELETE") == 0 && !set)
        return lg_invalid(r, "DELETE action with value is not supported for the type %s", type);
    if (v && strcmp(action, "ADD") == 0 && !set && v->type != DDB_TN && v->type != DDB_TL)
        return lg_invalid(r, "ADD action is not supported for the type %s", type);
    const char *name = lg_name(c, attr);
    const char *ph = v ? lg_value(c, (json_t *)value) : NULL;
    if (!name || (v && !ph))
        return -1;
    if (strcmp(action, "PUT") == 0)
        return add_to(c, &cl->set, name, ph, " = ");
    if (strcmp(action, "DELETE") == 0)
        return v ? add_to(c, &cl->del, name, ph, " ") : add_to(c, &cl->remove, name, NULL, NULL);
    if (v->type != DDB_TL)
        return add_to(c, &cl->add, name, ph, " ");
    /* ADD of a list appends its elements (API_AttributeValueUpdate: "If the
     * existing data type is a list, ... the new list is appended"); the
     * expression ADD has no lists, so it is list_append over the list or an
     * empty one */
    json_t *empty = json_pack("{s:[]}", "L");
    const char *none = empty ? lg_value(c, empty) : NULL;
    json_decref(empty);
    if (!none)
        return empty ? -1 : serve_fail_code(r, DDB_ENOMEM);
    return lg_append(c, &cl->set, "%s%s = list_append(if_not_exists(%s, %s), %s)", cl->set.len ? ", " : "", name,
                     name, none, ph);
}

int lg_updates(lg_ctx *c, const json_t *map, lg_text *out)
{
    if (!json_is_object(map))
        return serve_fail(c->r, 400, "SerializationException", "AttributeUpdates: expected an object");
    clauses cl;
    memset(&cl, 0, sizeof cl);
    const char *attr;
    json_t *u;
    json_object_foreach((json_t *)map, attr, u) {
        if (one_update(c, attr, u, &cl))
            return -1;
    }
    const struct {
        const char *word;
        const lg_text *t;
    } parts[] = {{"SET", &cl.set}, {"REMOVE", &cl.remove}, {"ADD", &cl.add}, {"DELETE", &cl.del}};
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
        if (parts[i].t->len && lg_append(c, out, "%s%s %s", out->len ? " " : "", parts[i].word, parts[i].t->s))
            return -1;
    return 0;
}
