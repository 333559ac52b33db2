/* infra.c — the table definitions of a schema in the formats that create
 * tables on AWS (ddbgen --emit-infra): the AWS CLI's `create-table` and
 * `update-time-to-live` inputs (--cli-input-json), a CloudFormation
 * template of AWS::DynamoDB::Table resources, and Terraform's
 * aws_dynamodb_table resources (HCL).
 *
 * One derivation: each table becomes a CreateTable request (key schema,
 * the attribute definitions of every key attribute of the table and its
 * indexes, GSIs and LSIs with their projections, billing mode and
 * throughput, stream, deletion protection) built from the IR; the other
 * formats are renderings of that request plus the table's TTL attribute.
 * May call ir.h, internal.h's buffer helpers and jansson; nothing else.
 */
#include "infra.h"
#include "internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *type_name(ddbgen_ir_type t)
{
    return t == DDBGEN_IR_N ? "N" : t == DDBGEN_IR_B ? "B" : "S";
}

static const char *projection_name(ddbgen_ir_projection p)
{
    return p == DDBGEN_IR_PROJ_KEYS_ONLY ? "KEYS_ONLY" : p == DDBGEN_IR_PROJ_INCLUDE ? "INCLUDE" : "ALL";
}

/* Adds {AttributeName, AttributeType} for a once, in the order met. */
static void define_attr(json_t *defs, const ddbgen_ir_key_attr *a)
{
    size_t i;
    json_t *d;
    json_array_foreach(defs, i, d)
        if (!strcmp(json_string_value(json_object_get(d, "AttributeName")), a->attr))
            return;
    json_array_append_new(defs, json_pack("{s:s, s:s}", "AttributeName", a->attr, "AttributeType", type_name(a->type)));
}

/* The KeySchema of x: its partition-key attributes (HASH) then its sort-key
 * attributes (RANGE), each side in declared order (several only for a
 * GSI keyed on fields: DynamoDB's API reference, KeySchema of a
 * GlobalSecondaryIndex); its attributes into defs. */
static json_t *key_schema(json_t *defs, const ddbgen_ir_index *x)
{
    json_t *ks = json_array();
    for (int s = 0; s < 2; s++) {
        if (s && !x->has_sk)
            break;
        const ddbgen_ir_key_attr *first = s ? &x->sk : &x->pk, *more = s ? x->sk_more : x->pk_more;
        size_t n = s ? x->n_sk_more : x->n_pk_more;
        for (size_t i = 0; i <= n; i++) {
            const ddbgen_ir_key_attr *a = i ? &more[i - 1] : first;
            define_attr(defs, a);
            json_array_append_new(ks, json_pack("{s:s, s:s}", "AttributeName", a->attr, "KeyType", s ? "RANGE" : "HASH"));
        }
    }
    return ks;
}

static json_t *throughput(const ddbgen_ir_table *t)
{
    return json_pack("{s:I, s:I}", "ReadCapacityUnits", (json_int_t)t->rcu, "WriteCapacityUnits", (json_int_t)t->wcu);
}

static json_t *index_request(json_t *defs, const ddbgen_ir_table *t, const ddbgen_ir_index *x)
{
    json_t *proj = json_pack("{s:s}", "ProjectionType", projection_name(x->projection));
    if (x->projection == DDBGEN_IR_PROJ_INCLUDE) {
        json_t *nk = json_array();
        for (size_t i = 0; i < x->n_include; i++)
            json_array_append_new(nk, json_string(x->include[i]));
        json_object_set_new(proj, "NonKeyAttributes", nk);
    }
    json_t *o = json_pack("{s:s, s:o, s:o}", "IndexName", x->name, "KeySchema", key_schema(defs, x), "Projection", proj);
    if (x->kind == DDBGEN_IR_GSI && t->rcu)
        json_object_set_new(o, "ProvisionedThroughput", throughput(t));
    return o;
}

json_t *ddbgen__create_table_request(const ddbgen_ir_table *t)
{
    json_t *defs = json_array(), *gsis = json_array(), *lsis = json_array();
    json_t *primary = key_schema(defs, &t->primary);
    for (size_t i = 0; i < t->n_indexes; i++) {
        const ddbgen_ir_index *x = &t->indexes[i];
        json_array_append_new(x->kind == DDBGEN_IR_LSI ? lsis : gsis, index_request(defs, t, x));
    }
    json_t *r = json_pack("{s:s, s:o, s:o, s:s}", "TableName", t->name, "AttributeDefinitions", defs, "KeySchema",
                          primary, "BillingMode", t->rcu ? "PROVISIONED" : "PAY_PER_REQUEST");
    if (t->rcu)
        json_object_set_new(r, "ProvisionedThroughput", throughput(t));
    if (json_array_size(gsis))
        json_object_set(r, "GlobalSecondaryIndexes", gsis);
    if (json_array_size(lsis))
        json_object_set(r, "LocalSecondaryIndexes", lsis);
    json_decref(gsis);
    json_decref(lsis);
    if (t->stream_view)
        json_object_set_new(r, "StreamSpecification",
                            json_pack("{s:b, s:s}", "StreamEnabled", 1, "StreamViewType", t->stream_view));
    if (t->deletion_protection)
        json_object_set_new(r, "DeletionProtectionEnabled", json_true());
    return r;
}

/* ---- CloudFormation ------------------------------------------------------ */

/* "visits_by_date" -> "VisitsByDateTable": a logical id is alphanumeric. */
static void logical_id(ddbgen_buf *b, const char *cname)
{
    int up = 1;
    for (const char *p = cname; *p; p++) {
        if (!isalnum((unsigned char)*p)) {
            up = 1;
            continue;
        }
        char c = up ? (char)toupper((unsigned char)*p) : *p;
        ddbgen_buf_add(b, &c, 1);
        up = 0;
    }
    ddbgen_buf_puts(b, "Table");
}

static json_t *cloudformation(const ddbgen_ir *ir, const ddbgen_ir_table *only)
{
    json_t *res = json_object();
    for (size_t i = 0; i < ir->n_tables; i++) {
        const ddbgen_ir_table *t = &ir->tables[i];
        if (only && only != t)
            continue;
        json_t *props = ddbgen__create_table_request(t);
        json_t *stream = json_object_get(props, "StreamSpecification");
        if (stream)
            json_object_del(stream, "StreamEnabled"); /* CloudFormation: the view type alone */
        if (t->ttl_attr)
            json_object_set_new(props, "TimeToLiveSpecification",
                                json_pack("{s:s, s:b}", "AttributeName", t->ttl_attr, "Enabled", 1));
        ddbgen_buf id = {0};
        logical_id(&id, t->cname);
        /* two C names that differ only in '_' or case: number the later one */
        for (unsigned n = 2; json_object_get(res, ddbgen_buf_str(&id)); n++) {
            ddbgen_buf_free(&id);
            logical_id(&id, t->cname);
            ddbgen_buf_printf(&id, "%u", n);
        }
        json_object_set_new(res, ddbgen_buf_str(&id),
                            json_pack("{s:s, s:o}", "Type", "AWS::DynamoDB::Table", "Properties", props));
        ddbgen_buf_free(&id);
    }
    return json_pack("{s:s, s:s, s:o}", "AWSTemplateFormatVersion", "2010-09-09", "Description",
                     "DynamoDB tables generated by ddbgen from the schema", "Resources", res);
}

/* ---- Terraform (HCL) ----------------------------------------------------- */

/* A quoted HCL string: escapes, and "${" / "%{" doubled so they stay text. */
static void hcl_str(ddbgen_buf *b, const char *s)
{
    ddbgen_buf_puts(b, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            ddbgen_buf_printf(b, "\\%c", *p);
        else if (*p == '\n')
            ddbgen_buf_puts(b, "\\n");
        else if (*p == '\r')
            ddbgen_buf_puts(b, "\\r");
        else if (*p == '\t')
            ddbgen_buf_puts(b, "\\t");
        else if (*p < 0x20 || *p == 0x7f)
            ddbgen_buf_printf(b, "\\u%04x", *p);
        else if ((*p == '$' || *p == '%') && p[1] == '{')
            ddbgen_buf_printf(b, "%c%c", *p, *p);
        else
            ddbgen_buf_add(b, (const char *)p, 1);
    }
    ddbgen_buf_puts(b, "\"");
}

static void hcl_attr(ddbgen_buf *b, int indent, const char *name, const char *value)
{
    ddbgen_buf_printf(b, "%*s%s = ", indent, "", name);
    hcl_str(b, value);
    ddbgen_buf_puts(b, "\n");
}

static const char *key_of(const json_t *ks, const char *type)
{
    size_t i;
    json_t *k;
    json_array_foreach(ks, i, k)
        if (!strcmp(json_string_value(json_object_get(k, "KeyType")), type))
            return json_string_value(json_object_get(k, "AttributeName"));
    return NULL;
}

static void hcl_index(ddbgen_buf *b, const json_t *x, const char *block, const ddbgen_ir_table *t)
{
    const json_t *ks = json_object_get(x, "KeySchema"), *p = json_object_get(x, "Projection");
    ddbgen_buf_printf(b, "\n  %s {\n", block);
    hcl_attr(b, 4, "name", json_string_value(json_object_get(x, "IndexName")));
    if (json_array_size(ks) > 2 || (json_array_size(ks) == 2 && !key_of(ks, "RANGE"))) {
        /* a key of several attributes a side: one key_schema block each, in order */
        size_t i;
        json_t *k;
        json_array_foreach(ks, i, k) {
            ddbgen_buf_puts(b, "    key_schema {\n");
            hcl_attr(b, 6, "attribute_name", json_string_value(json_object_get(k, "AttributeName")));
            hcl_attr(b, 6, "key_type", json_string_value(json_object_get(k, "KeyType")));
            ddbgen_buf_puts(b, "    }\n");
        }
    } else {
        if (!strcmp(block, "global_secondary_index"))
            hcl_attr(b, 4, "hash_key", key_of(ks, "HASH"));
        if (key_of(ks, "RANGE"))
            hcl_attr(b, 4, "range_key", key_of(ks, "RANGE"));
    }
    hcl_attr(b, 4, "projection_type", json_string_value(json_object_get(p, "ProjectionType")));
    const json_t *nk = json_object_get(p, "NonKeyAttributes");
    if (nk) {
        ddbgen_buf_puts(b, "    non_key_attributes = [");
        size_t i;
        json_t *a;
        json_array_foreach(nk, i, a) {
            ddbgen_buf_puts(b, i ? ", " : "");
            hcl_str(b, json_string_value(a));
        }
        ddbgen_buf_puts(b, "]\n");
    }
    if (json_object_get(x, "ProvisionedThroughput"))
        ddbgen_buf_printf(b, "    read_capacity = %llu\n    write_capacity = %llu\n", t->rcu, t->wcu);
    ddbgen_buf_puts(b, "  }\n");
}

static void terraform_table(ddbgen_buf *b, const ddbgen_ir_table *t)
{
    json_t *r = ddbgen__create_table_request(t);
    const json_t *ks = json_object_get(r, "KeySchema");
    ddbgen_buf_printf(b, "resource \"aws_dynamodb_table\" \"%s\" {\n", t->cname);
    hcl_attr(b, 2, "name", t->name);
    hcl_attr(b, 2, "billing_mode", json_string_value(json_object_get(r, "BillingMode")));
    if (t->rcu)
        ddbgen_buf_printf(b, "  read_capacity  = %llu\n  write_capacity = %llu\n", t->rcu, t->wcu);
    hcl_attr(b, 2, "hash_key", key_of(ks, "HASH"));
    if (key_of(ks, "RANGE"))
        hcl_attr(b, 2, "range_key", key_of(ks, "RANGE"));
    if (t->stream_view) {
        ddbgen_buf_puts(b, "  stream_enabled = true\n");
        hcl_attr(b, 2, "stream_view_type", t->stream_view);
    }
    if (t->deletion_protection)
        ddbgen_buf_puts(b, "  deletion_protection_enabled = true\n");
    size_t i;
    json_t *x;
    json_array_foreach(json_object_get(r, "AttributeDefinitions"), i, x) {
        ddbgen_buf_puts(b, "\n  attribute {\n");
        hcl_attr(b, 4, "name", json_string_value(json_object_get(x, "AttributeName")));
        hcl_attr(b, 4, "type", json_string_value(json_object_get(x, "AttributeType")));
        ddbgen_buf_puts(b, "  }\n");
    }
    json_array_foreach(json_object_get(r, "GlobalSecondaryIndexes"), i, x)
        hcl_index(b, x, "global_secondary_index", t);
    json_array_foreach(json_object_get(r, "LocalSecondaryIndexes"), i, x)
        hcl_index(b, x, "local_secondary_index", t);
    if (t->ttl_attr) {
        ddbgen_buf_puts(b, "\n  ttl {\n");
        hcl_attr(b, 4, "attribute_name", t->ttl_attr);
        ddbgen_buf_puts(b, "    enabled = true\n  }\n");
    }
    ddbgen_buf_puts(b, "}\n");
    json_decref(r);
}

/* ---- the entry point ------------------------------------------------------- */

static const char *const formats[] = {"cloudformation", "terraform", "create-table", "update-time-to-live"};

int ddbgen__infra_format_known(const char *format)
{
    for (size_t i = 0; i < sizeof formats / sizeof *formats; i++)
        if (!strcmp(format, formats[i]))
            return 1;
    return 0;
}

static char *json_text(json_t *doc)
{
    char *s = doc ? ddbgen_json_text(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
    json_decref(doc);
    return s;
}

char *ddbgen__infra_text(const ddbgen_ir *ir, const char *format, const ddbgen_ir_table *only, const char **why)
{
    *why = NULL;
    if (!strcmp(format, "cloudformation"))
        return json_text(cloudformation(ir, only));
    if (!strcmp(format, "terraform")) {
        ddbgen_buf b = {0};
        ddbgen_buf_puts(&b, "# DynamoDB tables generated by ddbgen from the schema.\n");
        for (size_t i = 0; i < ir->n_tables; i++)
            if (!only || only == &ir->tables[i]) {
                ddbgen_buf_puts(&b, "\n");
                terraform_table(&b, &ir->tables[i]);
            }
        char *s = b.oom ? NULL : strdup(ddbgen_buf_str(&b));
        ddbgen_buf_free(&b);
        return s;
    }
    /* the AWS CLI's inputs are one table each */
    if (!only && ir->n_tables != 1) {
        *why = "takes one table and the schema has several: add --infra-table NAME";
        return NULL;
    }
    const ddbgen_ir_table *t = only ? only : &ir->tables[0];
    if (!strcmp(format, "create-table"))
        return json_text(ddbgen__create_table_request(t));
    if (!t->ttl_attr) {
        *why = "needs a table with a DDB_TTL field";
        return NULL;
    }
    return json_text(json_pack("{s:s, s:{s:b, s:s}}", "TableName", t->name, "TimeToLiveSpecification", "Enabled", 1,
                               "AttributeName", t->ttl_attr));
}
