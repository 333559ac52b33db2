/* workbench_export.c — a schema as a NoSQL Workbench data model (ddbgen
 * --emit-workbench): one DataModel entry per table with its key attributes,
 * every other attribute its entities store (with its DynamoDB type), its
 * GSIs with their projections and billing mode, and one facet per entity
 * whose key aliases are the entity's key templates as written
 * ("ORG#{org}"), so that NoSQL Workbench shows the design by access
 * pattern, with one sample item per facet rendered from the templates
 * (which is how the import gets the GSI key templates back).  Workbench models carry no local secondary indexes: a table with
 * one gets a warning, never a silent drop.  The import back into a draft
 * schema is workbench_import.c.
 * May call ir.h, infra.h (the CreateTable derivation, for the attribute
 * types of key attributes) and jansson; nothing else.
 */
#include "infra.h"
#include "internal.h"
#include "render.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const type_names[] = {"S", "N", "B", "BOOL", "M", "L", "SS", "NS", "BS"};

static json_t *key_attr(const char *name, const char *type)
{
    return json_pack("{s:s, s:s}", "AttributeName", name, "AttributeType", type);
}

/* {"PartitionKey": ..., "SortKey": ...} from a CreateTable KeySchema and
 * the request's attribute definitions. */
static json_t *key_attributes(const json_t *key_schema, const json_t *defs)
{
    json_t *out = json_object();
    size_t i, j;
    json_t *k, *d;
    json_array_foreach(key_schema, i, k) {
        const char *name = json_string_value(json_object_get(k, "AttributeName"));
        const char *type = "S";
        json_array_foreach(defs, j, d)
            if (!strcmp(json_string_value(json_object_get(d, "AttributeName")), name))
                type = json_string_value(json_object_get(d, "AttributeType"));
        int hash = !strcmp(json_string_value(json_object_get(k, "KeyType")), "HASH");
        json_object_set_new(out, hash ? "PartitionKey" : "SortKey", key_attr(name, type));
    }
    return out;
}

static int listed(const json_t *attrs, const char *name)
{
    size_t i;
    json_t *a;
    json_array_foreach(attrs, i, a)
        if (!strcmp(json_string_value(json_object_get(a, "AttributeName")), name))
            return 1;
    return 0;
}

/* ---- a sample item per facet ------------------------------------------- */

/* A number for attr's samples: 1000..9999 from its name (FNV-1a), so a
 * field's sample does not depend on its position. */
static unsigned sample_number(const char *attr)
{
    uint32_t h = 2166136261u;
    for (const unsigned char *p = (const unsigned char *)attr; *p; p++)
        h = (h ^ *p) * 16777619u;
    return 1000 + h % 9000;
}

/* A field's sample value: "<attr>-1" for a string, sample_number for a
 * number, true for a boolean; NULL for other types (left out). */
static json_t *sample_value(const ddbgen_ir_field *f)
{
    char buf[32];
    if (f->type == DDBGEN_IR_S) {
        ddbgen_buf b = {0};
        ddbgen_buf_printf(&b, "%s-1", f->attr);
        json_t *v = b.oom ? NULL : json_pack("{s:s}", "S", ddbgen_buf_str(&b));
        ddbgen_buf_free(&b);
        return v;
    }
    if (f->type == DDBGEN_IR_N) {
        snprintf(buf, sizeof buf, "%u", sample_number(f->attr));
        return json_pack("{s:s}", "N", buf);
    }
    return f->type == DDBGEN_IR_BOOL ? json_pack("{s:b}", "BOOL", 1) : NULL;
}

/* A key template rendered with the sample values into b; 0 when it has a
 * hole the sample cannot render (a nested path, a date part, a case). */
static int render_sample(const ddbgen_ir_entity *e, const ddbgen_ir_template *t, ddbgen_buf *b)
{
    for (size_t i = 0; i < t->n_segs; i++) {
        const ddbgen_ir_segment *g = &t->segs[i];
        if (g->lit) {
            ddbgen_buf_puts(b, g->lit);
            continue;
        }
        if (g->path_len != 1 || g->part || g->kase)
            return 0;
        const ddbgen_ir_field *f = &e->fields[g->path[0]];
        if (f->type == DDBGEN_IR_S)
            ddbgen_buf_printf(b, "%s-1", f->attr);
        else if (f->type == DDBGEN_IR_N)
            ddbgen_buf_printf(b, "%0*u", g->pad, sample_number(f->attr));
        else
            return 0;
    }
    return 1;
}

static void sample_key(json_t *item, const ddbgen_ir_entity *e, const ddbgen_ir_key_attr *a,
                       const ddbgen_ir_template *t)
{
    ddbgen_buf b = {0};
    if (render_sample(e, t, &b) && !b.oom)
        json_object_set_new(item, a->attr, json_pack("{s:s}", a->type == DDBGEN_IR_N ? "N" : "S", ddbgen_buf_str(&b)));
    ddbgen_buf_free(&b);
}

/* One item of e as the schema would store it (key attributes rendered from
 * its templates, the type attribute, sample field values): Workbench shows
 * it in the facet, and the import infers the GSI key templates from it. */
static json_t *sample_item(const ddbgen_ir_entity *e)
{
    json_t *item = json_object();
    for (size_t k = 0; k < e->n_keys; k++) {
        const ddbgen_ir_key *key = &e->keys[k];
        if (key->by_fields)
            continue; /* its attributes are the fields: sampled below */
        sample_key(item, e, &key->index->pk, &key->pk);
        if (key->has_sk)
            sample_key(item, e, &key->index->sk, &key->sk);
    }
    json_object_set_new(item, e->table->type_attr, json_pack("{s:s}", "S", e->name));
    for (size_t i = 0; i < e->n_fields; i++) {
        json_t *v = sample_value(&e->fields[i]);
        if (v)
            json_object_set_new(item, e->fields[i].attr, v);
    }
    return item;
}

/* A key template as an alias: its holes name the stored attributes
 * ("ORG#{orgId}" for a field org stored as orgId), with their modifiers. */
static json_t *alias_text(const ddbgen_ir_entity *e, const ddbgen_ir_template *t)
{
    ddbgen_buf b = {0};
    for (size_t i = 0; i < t->n_segs; i++) {
        const ddbgen_ir_segment *g = &t->segs[i];
        if (g->lit) {
            ddbgen_buf_puts(&b, g->lit);
            continue;
        }
        ddbgen_buf_printf(&b, "{%s", g->path_len == 1 ? e->fields[g->path[0]].attr : g->field_path);
        if (g->pad)
            ddbgen_buf_printf(&b, ":0%d", g->pad);
        if (g->part)
            ddbgen_buf_printf(&b, "|%s", ddbgen_tmpl_part_name(g->part));
        if (g->kase)
            ddbgen_buf_printf(&b, "|%s", ddbgen_tmpl_case_name(g->kase));
        ddbgen_buf_puts(&b, "}");
    }
    json_t *s = b.oom ? NULL : json_string(ddbgen_buf_str(&b));
    ddbgen_buf_free(&b);
    return s;
}

static json_t *facet(const ddbgen_ir_entity *e, json_t *table_attrs)
{
    const ddbgen_ir_key *k = &e->keys[0];
    json_t *alias = json_pack("{s:o}", "PartitionKeyAlias", alias_text(e, &k->pk));
    if (k->has_sk)
        json_object_set_new(alias, "SortKeyAlias", alias_text(e, &k->sk));
    json_t *names = json_array();
    for (size_t i = 0; i < e->n_fields; i++) {
        const ddbgen_ir_field *f = &e->fields[i];
        json_array_append_new(names, json_string(f->attr));
        if (!listed(table_attrs, f->attr))
            json_array_append_new(table_attrs, key_attr(f->attr, type_names[f->type]));
    }
    return json_pack("{s:s, s:o, s:o, s:[o], s:{s:{}}}", "FacetName", e->name, "KeyAttributeAlias", alias,
                     "NonKeyAttributes", names, "TableData", sample_item(e), "DataAccess", "MySql");
}

static json_t *data_model(const ddbgen_ir_table *t, FILE *warn)
{
    json_t *req = ddbgen__create_table_request(t);
    const json_t *defs = json_object_get(req, "AttributeDefinitions");
    json_t *attrs = json_array(), *facets = json_array(), *gsis = json_array();
    json_array_append_new(attrs, key_attr(t->type_attr, "S"));
    size_t i;
    json_t *x;
    size_t multi = 0;
    json_array_foreach(json_object_get(req, "GlobalSecondaryIndexes"), i, x) {
        const char *iname = json_string_value(json_object_get(x, "IndexName"));
        bool by_fields = false;
        for (size_t k = 0; k < t->n_indexes; k++)
            by_fields |= t->indexes[k].by_fields && !strcmp(t->indexes[k].name, iname);
        if (by_fields) {
            multi++; /* keyed on the fields' own attributes: a Workbench facet keys on generic ones */
            continue;
        }
        json_t *g = json_pack("{s:O, s:o, s:O}", "IndexName", json_object_get(x, "IndexName"), "KeyAttributes",
                              key_attributes(json_object_get(x, "KeySchema"), defs), "Projection",
                              json_object_get(x, "Projection"));
        json_array_append_new(gsis, g);
        json_t *ka = json_object_get(g, "KeyAttributes"), *part;
        const char *which[] = {"PartitionKey", "SortKey"};
        for (int w = 0; w < 2; w++)
            if ((part = json_object_get(ka, which[w])) &&
                !listed(attrs, json_string_value(json_object_get(part, "AttributeName"))))
                json_array_append(attrs, part);
    }
    if (multi && warn)
        fprintf(warn,
                "ddbgen: warning: table \"%s\": NoSQL Workbench models key an index on attributes apart from the "
                "fields, one a side; its %zu indexes keyed on fields (DDB_KEY_FIELDS) are not in the model\n",
                t->name, multi);
    if (json_array_size(json_object_get(req, "LocalSecondaryIndexes")) && warn)
        fprintf(warn,
                "ddbgen: warning: table \"%s\": NoSQL Workbench models have no local secondary indexes; "
                "its %zu LSIs are not in the model\n",
                t->name, json_array_size(json_object_get(req, "LocalSecondaryIndexes")));
    for (size_t e = 0; e < t->n_entities; e++)
        json_array_append_new(facets, facet(t->entities[e], attrs));
    json_t *m = json_pack("{s:s, s:o, s:o, s:o}", "TableName", t->name, "KeyAttributes",
                          key_attributes(json_object_get(req, "KeySchema"), defs), "NonKeyAttributes", attrs,
                          "TableFacets", facets);
    if (json_array_size(gsis))
        json_object_set(m, "GlobalSecondaryIndexes", gsis);
    json_decref(gsis);
    json_object_set_new(m, "TableData", json_array());
    json_object_set_new(m, "DataAccess", json_pack("{s:{}}", "MySql"));
    json_object_set(m, "BillingMode", json_object_get(req, "BillingMode"));
    if (json_object_get(req, "ProvisionedThroughput"))
        json_object_set_new(m, "ProvisionedCapacitySettings",
                            json_pack("{s:O}", "ProvisionedThroughput", json_object_get(req, "ProvisionedThroughput")));
    json_decref(req);
    return m;
}

/* "Nov 28, 2026, 05:53 PM", as Workbench writes its dates; SOURCE_DATE_EPOCH
 * (reproducible builds) fixes the time. */
static void model_date(char *buf, size_t cap)
{
    const char *sde = getenv("SOURCE_DATE_EPOCH");
    time_t now = sde && *sde ? (time_t)strtoll(sde, NULL, 10) : time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    if (!strftime(buf, cap, "%b %d, %Y, %I:%M %p", &tm))
        snprintf(buf, cap, "Jan 01, 1970, 12:00 AM");
}

char *ddbgen__workbench_text(const ddbgen_ir *ir, const char *model_name, FILE *warn)
{
    char date[64];
    model_date(date, sizeof date);
    json_t *tables = json_array();
    for (size_t i = 0; i < ir->n_tables; i++)
        json_array_append_new(tables, data_model(&ir->tables[i], warn));
    json_t *doc = json_pack("{s:s, s:{s:s, s:s, s:s, s:s, s:s, s:s}, s:o}", "ModelName", model_name,
                            "ModelMetadata", "Author", "ddbgen", "DateCreated", date, "DateLastModified", date,
                            "Description", "Generated by ddbgen from the schema", "AWSService", "Amazon DynamoDB",
                            "Version", "3.0", "DataModel", tables);
    char *s = doc ? json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
    json_decref(doc);
    return s;
}
