/* frontend_json.c — the JSON front-end: a model file (docs/MODEL.md) in,
 * the declared model out.
 *
 * Only declared members are copied, after checking their JSON types; the
 * derived ones (segments, key types, shards, collections ...) are dropped
 * and recomputed by validate.c, so a model written by --emit-model reads
 * back to the same document, and a hand-edited one cannot smuggle in
 * derived data that disagrees with its declarations.  Shape problems are
 * reported as "model.json: error: entities[0].fields[2]: ..." (jansson keeps
 * no positions after parsing).
 */
#include "front.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef enum kind { K_STR, K_INT, K_BOOL, K_OBJ, K_ARR_OBJ, K_ARR_STR } kind;

typedef struct spec {
    const char *key;
    kind k;
    int required;
    const struct spec *sub; /* members of K_OBJ / elements of K_ARR_OBJ */
} spec;

#define END {NULL, K_STR, 0, NULL}

static const spec loc_spec[] = {{"file", K_STR, 1, NULL}, {"line", K_INT, 1, NULL},
                                {"col", K_INT, 1, NULL}, END};
static const spec tmpl_spec[] = {{"template", K_STR, 1, NULL}, {"loc", K_OBJ, 1, loc_spec},
                                 {"verbatim", K_BOOL, 0, NULL}, END};
static const spec keyattr_spec[] = {{"attr", K_STR, 1, NULL}, {"loc", K_OBJ, 1, loc_spec}, END};
static const spec proj_spec[] = {{"type", K_STR, 1, NULL}, {"loc", K_OBJ, 0, loc_spec},
                                 {"attributes", K_ARR_STR, 0, NULL}, END};
static const spec index_spec[] = {{"name", K_STR, 1, NULL},       {"kind", K_STR, 1, NULL},
                                  {"loc", K_OBJ, 1, loc_spec},     {"pk", K_OBJ, 0, keyattr_spec},
                                  {"sk", K_OBJ, 0, keyattr_spec},  {"projection", K_OBJ, 0, proj_spec},
                                  END};
static const spec provisioned_spec[] = {{"rcu", K_INT, 1, NULL}, {"wcu", K_INT, 1, NULL},
                                       {"loc", K_OBJ, 1, loc_spec}, END};
static const spec removed_spec[] = {{"entity", K_STR, 1, NULL}, {"items", K_STR, 1, NULL},
                                    {"loc", K_OBJ, 1, loc_spec}, END};
static const spec table_spec[] = {{"cname", K_STR, 1, NULL},
                                  {"name", K_STR, 1, NULL},
                                  {"loc", K_OBJ, 1, loc_spec},
                                  {"type_attribute", K_STR, 1, NULL},
                                  {"type_attribute_loc", K_OBJ, 0, loc_spec},
                                  {"stream", K_STR, 0, NULL},
                                  {"stream_loc", K_OBJ, 0, loc_spec},
                                  {"provisioned", K_OBJ, 0, provisioned_spec},
                                  {"deletion_protection", K_BOOL, 0, NULL},
                                  {"indexes", K_ARR_OBJ, 1, index_spec},
                                  {"removed", K_ARR_OBJ, 0, removed_spec},
                                  END};
static const spec item_spec[] = {{"type", K_STR, 1, NULL},     {"ctype", K_STR, 1, NULL},
                                 {"max_len", K_INT, 0, NULL},  {"num", K_STR, 0, NULL},
                                 {"struct", K_STR, 0, NULL},   {"item_ctype", K_STR, 0, NULL},
                                 END};
static const spec flag_spec[] = {{"loc", K_OBJ, 1, loc_spec}, END};
static const spec shard_spec[] = {{"id", K_STR, 1, NULL}, {"loc", K_OBJ, 1, loc_spec}, END};
static const spec default_spec[] = {{"value", K_STR, 1, NULL}, {"loc", K_OBJ, 1, loc_spec}, END};
static const spec expr_spec[] = {{"text", K_STR, 1, NULL}, {"loc", K_OBJ, 1, loc_spec},
                                 {"verbatim", K_BOOL, 0, NULL}, END};
static const spec update_spec[] = {{"name", K_STR, 1, NULL}, {"loc", K_OBJ, 1, loc_spec},
                                   {"update", K_OBJ, 1, expr_spec}, {"condition", K_OBJ, 0, expr_spec},
                                   END};
static const spec condition_spec[] = {{"name", K_STR, 1, NULL}, {"loc", K_OBJ, 1, loc_spec},
                                      {"condition", K_OBJ, 1, expr_spec}, END};
static const spec field_spec[] = {{"name", K_STR, 1, NULL},
                                  {"loc", K_OBJ, 1, loc_spec},
                                  {"attr", K_STR, 1, NULL},
                                  {"attr_loc", K_OBJ, 0, loc_spec},
                                  {"type", K_STR, 1, NULL},
                                  {"ctype", K_STR, 1, NULL},
                                  {"optional", K_BOOL, 1, NULL},
                                  {"max_len", K_INT, 0, NULL},
                                  {"num", K_STR, 0, NULL},
                                  {"enum_values", K_INT, 0, NULL},
                                  {"struct", K_STR, 0, NULL},
                                  {"count_field", K_STR, 0, NULL},
                                  {"item", K_OBJ, 0, item_spec},
                                  {"item_ctype", K_STR, 0, NULL},
                                  {"shard", K_OBJ, 0, shard_spec},
                                  {"derived", K_OBJ, 0, tmpl_spec},
                                  {"auto_id", K_OBJ, 0, tmpl_spec},
                                  {"uuid", K_OBJ, 0, flag_spec},
                                  {"version", K_OBJ, 0, flag_spec},
                                  {"ttl", K_OBJ, 0, flag_spec},
                                  {"default", K_OBJ, 0, default_spec},
                                  {"created_at", K_OBJ, 0, flag_spec},
                                  {"updated_at", K_OBJ, 0, flag_spec},
                                  {"unique", K_OBJ, 0, flag_spec},
                                  {"renamed_from", K_STR, 0, NULL},
                                  {"renamed_from_loc", K_OBJ, 0, loc_spec},
                                  END};
static const spec struct_spec[] = {{"cname", K_STR, 1, NULL}, {"ctype", K_STR, 1, NULL},
                                   {"loc", K_OBJ, 1, loc_spec}, {"fields", K_ARR_OBJ, 1, field_spec},
                                   END};
static const spec write_shards_spec[] = {{"count", K_INT, 1, NULL}, {"by", K_STR, 1, NULL},
                                         {"loc", K_OBJ, 1, loc_spec}, {"count_loc", K_OBJ, 0, loc_spec},
                                         END};
static const spec heat_ok_spec[] = {{"reason", K_STR, 1, NULL}, {"loc", K_OBJ, 1, loc_spec}, END};
static const spec field_ref_spec[] = {{"field", K_STR, 1, NULL}, {"loc", K_OBJ, 1, loc_spec}, END};
static const spec key_spec[] = {{"index", K_STR, 1, NULL}, {"loc", K_OBJ, 1, loc_spec},
                                {"pk", K_OBJ, 0, tmpl_spec}, {"sk", K_OBJ, 0, tmpl_spec},
                                {"pk_fields", K_ARR_OBJ, 0, field_ref_spec},
                                {"sk_fields", K_ARR_OBJ, 0, field_ref_spec},
                                {"sparse", K_OBJ, 0, flag_spec},
                                {"write_shards", K_OBJ, 0, write_shards_spec},
                                {"heat_ok", K_OBJ, 0, heat_ok_spec}, END};
static const spec coll_spec[] = {{"name", K_STR, 1, NULL}, {"index", K_STR, 1, NULL},
                                 {"loc", K_OBJ, 1, loc_spec}, END};
static const spec pattern_spec[] = {{"name", K_STR, 1, NULL}, {"loc", K_OBJ, 1, loc_spec},
                                    {"index", K_STR, 1, NULL}, {"index_loc", K_OBJ, 1, loc_spec}, END};
static const spec query_spec[] = {{"name", K_STR, 1, NULL},    {"loc", K_OBJ, 1, loc_spec},
                                  {"pattern", K_STR, 1, NULL}, {"pattern_loc", K_OBJ, 1, loc_spec},
                                  {"key", K_OBJ, 1, expr_spec}, {"filter", K_OBJ, 0, expr_spec},
                                  END};
static const spec scan_spec[] = {{"name", K_STR, 1, NULL}, {"loc", K_OBJ, 1, loc_spec},
                                 {"filter", K_OBJ, 1, expr_spec}, END};
static const spec entity_spec[] = {{"name", K_STR, 1, NULL},
                                   {"cname", K_STR, 1, NULL},
                                   {"ctype", K_STR, 1, NULL},
                                   {"table", K_STR, 1, NULL},
                                   {"loc", K_OBJ, 1, loc_spec},
                                   {"shard_suffix", K_STR, 1, NULL},
                                   {"shard_suffix_loc", K_OBJ, 0, loc_spec},
                                   {"keys", K_ARR_OBJ, 1, key_spec},
                                   {"collections", K_ARR_OBJ, 1, coll_spec},
                                   {"fields", K_ARR_OBJ, 1, field_spec},
                                   {"patterns", K_ARR_OBJ, 0, pattern_spec},
                                   {"queries", K_ARR_OBJ, 0, query_spec},
                                   {"scans", K_ARR_OBJ, 0, scan_spec},
                                   {"updates", K_ARR_OBJ, 0, update_spec},
                                   {"conditions", K_ARR_OBJ, 0, condition_spec},
                                   {"renamed_from", K_STR, 0, NULL},
                                   {"renamed_from_loc", K_OBJ, 0, loc_spec},
                                   END};
static const spec model_spec[] = {{"model_version", K_INT, 1, NULL},
                                  {"schema", K_STR, 1, NULL},
                                  {"tables", K_ARR_OBJ, 1, table_spec},
                                  {"structs", K_ARR_OBJ, 1, struct_spec},
                                  {"entities", K_ARR_OBJ, 1, entity_spec},
                                  END};

typedef struct jf {
    ddbgen_diags *d;
    const char *name;
} jf;

static void __attribute__((format(printf, 3, 4))) shape_err(jf *j, const char *path, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    ddbgen_loc l = {j->name, 0, 0};
    ddbgen_diag_add(j->d, DDBGEN_ERROR, l, "%s%s%s", path, path[0] ? ": " : "", msg);
}

/* snprintf for member paths; a path too long for the buffer is just cut. */
static void __attribute__((format(printf, 3, 4))) pathf(char *dst, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst, n, fmt, ap);
    va_end(ap);
}

static const char *kind_name(kind k)
{
    switch (k) {
    case K_STR:
        return "a string";
    case K_INT:
        return "an integer";
    case K_BOOL:
        return "true or false";
    case K_OBJ:
        return "an object";
    default:
        return "an array";
    }
}

static json_t *copy_obj(jf *j, const json_t *src, const spec *sp, const char *path);

static json_t *copy_value(jf *j, const json_t *v, const spec *s, const char *path)
{
    char sub[512];
    switch (s->k) {
    case K_STR:
        return json_is_string(v) ? json_copy((json_t *)v) : NULL;
    case K_INT:
        return json_is_integer(v) ? json_copy((json_t *)v) : NULL;
    case K_BOOL:
        return json_is_boolean(v) ? json_copy((json_t *)v) : NULL;
    case K_OBJ:
        return json_is_object(v) ? copy_obj(j, v, s->sub, path) : NULL;
    case K_ARR_STR: {
        if (!json_is_array(v))
            return NULL;
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e) if (!json_is_string(e)) return NULL;
        return json_copy((json_t *)v);
    }
    case K_ARR_OBJ: {
        if (!json_is_array(v))
            return NULL;
        json_t *out = json_array();
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e) {
            pathf(sub, sizeof sub, "%s[%zu]", path, i);
            json_t *c = json_is_object(e) ? copy_obj(j, e, s->sub, sub) : NULL;
            if (!c && !json_is_object(e))
                shape_err(j, sub, "must be an object");
            json_array_append_new(out, c ? c : json_object());
        }
        return out;
    }
    }
    return NULL;
}

static json_t *copy_obj(jf *j, const json_t *src, const spec *sp, const char *path)
{
    json_t *out = json_object();
    char sub[512];
    for (const spec *s = sp; s->key; s++) {
        json_t *v = json_object_get(src, s->key);
        pathf(sub, sizeof sub, "%s%s%s", path, path[0] ? "." : "", s->key);
        if (!v) {
            if (s->required)
                shape_err(j, path, "missing \"%s\"", s->key);
            continue;
        }
        json_t *c = copy_value(j, v, s, sub);
        if (!c) {
            if (!(s->k == K_OBJ && json_is_object(v)))
                shape_err(j, sub, "must be %s", kind_name(s->k));
            continue;
        }
        json_object_set_new(out, s->key, c);
    }
    return out;
}

static int one_of(const char *s, const char *const *set)
{
    for (; *set; set++)
        if (s && !strcmp(s, *set))
            return 1;
    return 0;
}

static const char *const nums[] = {"i8", "i16", "i32", "i64", "u8", "u16",
                                   "u32", "u64", "f32", "f64", NULL};

/* Type members a C front-end would never produce inconsistently. */
static void check_type(jf *j, const json_t *t, const char *path, int is_item)
{
    static const char *const types[] = {"S", "N", "BOOL", "B", "M", "L", "SS", "NS", "BS", NULL};
    const char *type = ddbgen_jstr(t, "type");
    if (!type)
        return;
    if (!one_of(type, types) || (is_item && !strcmp(type, "L"))) {
        shape_err(j, path, "unknown type \"%s\"", type);
        return;
    }
    int optional = ddbgen_jtrue(t, "optional");
    if (!strcmp(type, "S") && !optional && !is_item && ddbgen_jint(t, "max_len", 0) < 1)
        shape_err(j, path, "a required S field needs \"max_len\" >= 1 (char[max_len + 1])");
    if ((!strcmp(type, "N") || !strcmp(type, "NS")) && !one_of(ddbgen_jstr(t, "num"), nums))
        shape_err(j, path, "\"num\" must be one of i8 i16 i32 i64 u8 u16 u32 u64 f32 f64");
    if (!strcmp(type, "M") && !ddbgen_jstr(t, "struct"))
        shape_err(j, path, "an M field needs \"struct\"");
    if (!strcmp(type, "L")) {
        if (!ddbgen_jstr(t, "count_field"))
            shape_err(j, path, "an L field needs \"count_field\"");
        json_t *item = json_object_get(t, "item");
        if (!item)
            shape_err(j, path, "an L field needs \"item\"");
        else {
            char sub[512];
            pathf(sub, sizeof sub, "%s.item", path);
            check_type(j, item, sub, 1);
        }
    }
}

static void check_fields(jf *j, const json_t *fields, const char *path)
{
    size_t i;
    json_t *f;
    char sub[512];
    json_array_foreach(fields, i, f) {
        pathf(sub, sizeof sub, "%s[%zu]", path, i);
        check_type(j, f, sub, 0);
    }
}

static void check_semantics(jf *j, json_t *m)
{
    static const char *const kinds[] = {"primary", "gsi", "lsi", NULL};
    static const char *const projs[] = {"ALL", "KEYS_ONLY", "INCLUDE", NULL};
    char path[512];
    size_t i, k;
    json_t *t, *x;
    json_array_foreach(json_object_get(m, "tables"), i, t) {
        json_array_foreach(json_object_get(t, "indexes"), k, x) {
            pathf(path, sizeof path, "tables[%zu].indexes[%zu]", i, k);
            const char *kind = ddbgen_jstr(x, "kind");
            if (kind && !one_of(kind, kinds))
                shape_err(j, path, "\"kind\" must be \"primary\", \"gsi\" or \"lsi\"");
            if (kind && !strcmp(kind, "primary") && !json_object_get(x, "pk"))
                shape_err(j, path, "missing \"pk\""); /* a GSI without one is keyed by its entities' fields */
            if (kind && !strcmp(kind, "lsi")) {
                json_object_del(x, "pk"); /* derived from the primary key */
                if (!json_object_get(x, "sk"))
                    shape_err(j, path, "missing \"sk\" (a local secondary index has a sort key)");
            }
            json_t *p = json_object_get(x, "projection");
            const char *pt = ddbgen_jstr(p, "type");
            if (p && pt && !one_of(pt, projs))
                shape_err(j, path, "projection \"type\" must be ALL, KEYS_ONLY or INCLUDE");
            if (pt && !strcmp(pt, "INCLUDE") && !json_object_get(p, "attributes"))
                shape_err(j, path, "an INCLUDE projection needs \"attributes\"");
            if (kind && strcmp(kind, "primary") != 0 && !p)
                json_object_set_new(x, "projection", json_pack("{s:s}", "type", "ALL"));
        }
    }
    json_array_foreach(json_object_get(m, "structs"), i, t) {
        pathf(path, sizeof path, "structs[%zu].fields", i);
        check_fields(j, json_object_get(t, "fields"), path);
    }
    json_array_foreach(json_object_get(m, "entities"), i, t) {
        pathf(path, sizeof path, "entities[%zu].fields", i);
        check_fields(j, json_object_get(t, "fields"), path);
        json_array_foreach(json_object_get(t, "keys"), k, x) {
            pathf(path, sizeof path, "entities[%zu].keys[%zu]", i, k);
            if (!json_object_get(x, "pk") && !json_object_get(x, "pk_fields"))
                shape_err(j, path, "missing \"pk\" (a template) or \"pk_fields\" (a list of fields)");
        }
    }
}

int ddbgen__load_json(ddbgen_context *cx, json_t *doc, const char *name, json_t **out)
{
    jf j = {&cx->diags, name};
    size_t before = cx->diags.errors;
    *out = NULL;
    if (!json_is_object(doc)) {
        shape_err(&j, "", "a model is a JSON object (see docs/MODEL.md)");
        return DDBGEN_ESCHEMA;
    }
    json_t *version = json_object_get(doc, "model_version");
    if (!json_is_integer(version) || json_integer_value(version) != DDBGEN_MODEL_VERSION) {
        shape_err(&j, "", "\"model_version\" must be %d; this model was written by an "
                          "incompatible ddbgen",
                  DDBGEN_MODEL_VERSION);
        return DDBGEN_ESCHEMA;
    }
    json_t *m = copy_obj(&j, doc, model_spec, "");
    if (cx->diags.errors == before)
        check_semantics(&j, m);
    if (cx->diags.errors != before) {
        json_decref(m);
        return DDBGEN_ESCHEMA;
    }
    *out = m;
    return DDBGEN_OK;
}
