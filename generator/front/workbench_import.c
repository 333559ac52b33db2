/* workbench_import.c — a NoSQL Workbench data model as a draft schema
 * header (ddbgen --import-workbench): each table becomes a DDB_TABLE with
 * its key attributes and GSIs, each facet an entity whose fields are the
 * facet's attributes (C types from the attribute types) and whose primary
 * key templates are the facet's key aliases when they are templates
 * ("ORG#{org}"), else inferred from the facet's sample items (a literal
 * prefix and one attribute's value: "ACCT#76584123" with AccountId 76584123
 * gives "ACCT#{AccountId}"); GSI keys are inferred the same way.  What the
 * model does not say is a TODO comment in the draft, which then goes
 * through ddbgen's validator like any schema.
 * May call internal.h's buffer helpers and jansson; nothing else.
 */
#include "front.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

typedef struct field {
    char *attr;  /* the stored attribute */
    char *cname; /* its C member */
    const char *type; /* Workbench type: S, N, B, BOOL, SS, NS, BS, M, L, NULL */
    int in_key;  /* a key template uses it: fixed-size, required */
    int fraction; /* a sample value of an N attribute has a fraction */
    int guessed; /* not in the facet's attributes: named by a key alias */
} field;

typedef struct entity {
    field *f;
    size_t n, cap;
    ddbgen_buf keys;     /* DDB_KEY(...) lines */
    ddbgen_buf comments; /* TODO lines */
} entity;

static const char *jstr(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : NULL;
}

/* A C string literal's body. */
static void c_str(ddbgen_buf *b, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            ddbgen_buf_printf(b, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f)
            ddbgen_buf_printf(b, "\\%03o", *p);
        else
            ddbgen_buf_add(b, (const char *)p, 1);
    }
}

static int c_keyword(const char *s)
{
    static const char *const kw[] = {"auto", "break", "case", "char", "const", "continue", "default", "do",
                                     "double", "else", "enum", "extern", "float", "for", "goto", "if", "inline",
                                     "int", "long", "register", "restrict", "return", "short", "signed",
                                     "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned",
                                     "void", "volatile", "while", "bool", "true", "false"};
    for (size_t i = 0; i < sizeof kw / sizeof *kw; i++)
        if (!strcmp(s, kw[i]))
            return 1;
    return 0;
}

/* A C identifier for name: other bytes become '_', "Table Name" ->
 * "table_name" when lower is set. */
static char *c_ident(const char *name, int lower)
{
    size_t n = strlen(name);
    char *s = malloc(n + 3);
    if (!s)
        return NULL;
    size_t k = 0;
    if (!n || isdigit((unsigned char)name[0]))
        s[k++] = 'f', s[k++] = '_';
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)name[i];
        s[k++] = isalnum(c) ? (char)(lower ? tolower(c) : c) : '_';
    }
    s[k] = '\0';
    if (c_keyword(s)) {
        char *t = realloc(s, k + 2);
        if (!t) {
            free(s);
            return NULL;
        }
        s = t;
        memcpy(s + k, "_", 2);
    }
    return s;
}

static field *find_field(entity *e, const char *name)
{
    for (size_t i = 0; i < e->n; i++)
        if (!strcmp(e->f[i].attr, name) || !strcmp(e->f[i].cname, name))
            return &e->f[i];
    return NULL;
}

static field *add_field(entity *e, const char *attr, const char *type)
{
    if (e->n == e->cap) {
        size_t cap = e->cap ? e->cap * 2 : 16;
        field *f = realloc(e->f, cap * sizeof *f);
        if (!f)
            return NULL;
        e->f = f;
        e->cap = cap;
    }
    field *f = &e->f[e->n];
    memset(f, 0, sizeof *f);
    f->attr = strdup(attr);
    f->cname = c_ident(attr, 0);
    f->type = type;
    if (!f->attr || !f->cname) {
        free(f->attr);
        free(f->cname);
        return NULL;
    }
    /* two attributes with one C name ("a-b", "a_b"): number the later */
    for (unsigned k = 2; e->n && find_field(e, f->cname) && k < 1000; k++) {
        char *c = malloc(strlen(f->cname) + 8);
        if (!c)
            break;
        sprintf(c, "%s_%u", f->cname, k);
        free(f->cname);
        f->cname = c;
    }
    e->n++;
    return f;
}

/* The text of a scalar attribute value ({"S": ...} or {"N": ...}), or NULL. */
static const char *scalar(const json_t *item, const char *attr)
{
    const json_t *v = json_object_get(item, attr);
    const char *s = jstr(v, "S");
    return s ? s : jstr(v, "N");
}

/* Rewrites an alias that is a template: its holes name attributes; each
 * becomes the field's C name (an unknown one is added as a guessed S
 * field).  0 when alias has no hole or a hole this draft cannot resolve. */
static int template_from_alias(entity *e, const char *alias, ddbgen_buf *out)
{
    if (!strchr(alias, '{'))
        return 0;
    const char *p = alias;
    while (*p) {
        if (*p != '{') {
            ddbgen_buf_add(out, p++, 1);
            continue;
        }
        const char *end = strchr(p, '}');
        if (!end)
            return 0;
        size_t len = (size_t)(end - p - 1), name_len = strcspn(p + 1, ":|}");
        char *name = strndup(p + 1, name_len);
        if (!name || strchr(name, '.')) { /* a nested path: the draft cannot say */
            free(name);
            return 0;
        }
        field *f = find_field(e, name);
        if (!f && (f = add_field(e, name, strstr(p, ":0") == p + 1 + name_len ? "N" : "S")))
            f->guessed = 1;
        free(name);
        if (!f)
            return 0;
        f->in_key = 1;
        ddbgen_buf_printf(out, "{%s%.*s}", f->cname, (int)(len - name_len), p + 1 + name_len);
        p = end + 1;
    }
    return 1;
}

/* A hole found in a key's text: field f's value, zero-padded to pad
 * digits when pad > 0. */
typedef struct hole {
    field *f;
    int pad;
} hole;

/* The template inferred from text (a key's value in the first sample item)
 * into out: the longest field value found in it becomes a hole, and the
 * text on either side is searched the same way; the rest is literal. */
static void infer_text(entity *e, const json_t *item, const char *text, size_t n, ddbgen_buf *out, hole *holes,
                       size_t *n_holes)
{
    size_t best_at = 0, best_len = 0;
    hole best = {NULL, 0};
    for (size_t k = 0; k < e->n; k++) {
        const char *s = scalar(item, e->f[k].attr);
        size_t ls = s ? strlen(s) : 0;
        if (!ls || (ls < 2 && ls < n))
            continue; /* a one-character value would match literals anywhere */
        for (size_t at = 0; at + ls <= n; at++) {
            if (memcmp(text + at, s, ls))
                continue;
            size_t start = at, len = ls;
            int pad = 0;
            if (!strcmp(e->f[k].type, "N"))
                while (start > 0 && text[start - 1] == '0')
                    start--, len++, pad = (int)len;
            if (len > best_len) {
                best_at = start, best_len = len;
                best = (hole){&e->f[k], pad};
            }
            break;
        }
    }
    if (!best.f || *n_holes >= 8) {
        ddbgen_buf_add(out, text, n);
        return;
    }
    infer_text(e, item, text, best_at, out, holes, n_holes);
    ddbgen_buf_printf(out, "{%s", best.f->cname);
    if (best.pad)
        ddbgen_buf_printf(out, ":0%d", best.pad);
    ddbgen_buf_puts(out, "}");
    holes[(*n_holes)++] = best;
    infer_text(e, item, text + best_at + best_len, n - best_at - best_len, out, holes, n_holes);
}

/* The key the template t (holes in order) gives for item, compared with
 * the item's own key_attr value. */
static int template_fits(const json_t *item, const char *key_attr, const char *t, const hole *holes)
{
    ddbgen_buf b = {0};
    size_t h = 0;
    for (const char *p = t; *p;) {
        if (*p != '{') {
            ddbgen_buf_add(&b, p++, 1);
            continue;
        }
        const char *s = scalar(item, holes[h].f->attr);
        if (!s) {
            ddbgen_buf_free(&b);
            return 0;
        }
        for (size_t z = strlen(s); holes[h].pad > 0 && z < (size_t)holes[h].pad; z++)
            ddbgen_buf_puts(&b, "0");
        ddbgen_buf_puts(&b, s);
        h++;
        p = strchr(p, '}') + 1;
    }
    const char *v = scalar(item, key_attr);
    int same = v && !b.oom && !strcmp(v, ddbgen_buf_str(&b));
    ddbgen_buf_free(&b);
    return same;
}

/* A template for key_attr inferred from the facet's items (holes where the
 * first item's key holds field values, checked against every item); a
 * constant key when no field value is in it. */
static int template_from_items(entity *e, const json_t *items, const char *key_attr, ddbgen_buf *out)
{
    const json_t *first = json_array_get(items, 0);
    const char *v0 = first ? scalar(first, key_attr) : NULL;
    if (!v0 || strchr(v0, '{') || strchr(v0, '}'))
        return 0;
    ddbgen_buf t = {0};
    hole holes[8];
    size_t n_holes = 0;
    infer_text(e, first, v0, strlen(v0), &t, holes, &n_holes);
    int fits = !t.oom;
    size_t i;
    json_t *it;
    json_array_foreach(items, i, it)
        fits = fits && template_fits(it, key_attr, ddbgen_buf_str(&t), holes);
    if (fits) {
        for (size_t h = 0; h < n_holes; h++)
            holes[h].f->in_key = 1;
        ddbgen_buf_puts(out, ddbgen_buf_str(&t));
    }
    ddbgen_buf_free(&t);
    return fits;
}

/* The template of one key attribute of facet e: its alias when that is a
 * template, else inferred from items; a TODO placeholder when neither. */
static void key_template(entity *e, const char *alias, const json_t *items, const char *key_attr, const char *facet,
                         ddbgen_buf *out)
{
    ddbgen_buf t = {0};
    if ((alias && template_from_alias(e, alias, &t)) || template_from_items(e, items, key_attr, &t)) {
        c_str(out, ddbgen_buf_str(&t));
        ddbgen_buf_free(&t);
        return;
    }
    ddbgen_buf_free(&t);
    /* a placeholder that validates: the facet's name and its first field */
    field *f = e->n ? &e->f[0] : add_field(e, "id", "S");
    if (f)
        f->in_key = 1;
    ddbgen_buf_printf(&e->comments, "/* TODO: the model gives no template for %s of '%s'%s%s%s; the draft "
                                    "uses a placeholder */\n",
                      key_attr, facet, alias ? " (its alias is \"" : "", alias ? alias : "", alias ? "\")" : "");
    ddbgen_buf_printf(out, "%s#{%s}", facet, f ? f->cname : "id");
}

static int is_key_attr(const json_t *keys, const char *attr)
{
    return json_object_get(keys, attr) != NULL;
}

static void emit_field(ddbgen_buf *b, const field *f)
{
    const char *t = f->type;
    const char *decl = !strcmp(t, "N")      ? (f->fraction ? "double %s" : "int64_t %s")
                       : !strcmp(t, "BOOL") ? "bool %s"
                       : !strcmp(t, "B")    ? "ddb_bytes %s"
                       : !strcmp(t, "SS")   ? "ddb_string_set %s"
                       : !strcmp(t, "NS")   ? "ddb_double_set %s"
                       : !strcmp(t, "BS")   ? "ddb_bytes_set %s"
                       : !strcmp(t, "S")    ? (f->in_key ? "char %s[64]" : "char *%s")
                                            : NULL;
    if (!decl) {
        ddbgen_buf_printf(b, "    /* TODO: attribute \"%s\" is of type %s: declare a struct or a list for it */\n",
                          f->attr, t);
        return;
    }
    ddbgen_buf_puts(b, "    ");
    ddbgen_buf_printf(b, decl, f->cname);
    if (strcmp(f->cname, f->attr)) {
        ddbgen_buf_puts(b, " DDB_ATTR(\"");
        c_str(b, f->attr);
        ddbgen_buf_puts(b, "\")");
    }
    ddbgen_buf_puts(b, ";");
    if (f->guessed)
        ddbgen_buf_puts(b, " /* TODO: named by a key alias, not among the facet's attributes: check its type */");
    ddbgen_buf_puts(b, "\n");
}

/* The type attribute of a table: the attribute whose value is the facet's
 * name in every facet's first sample item (as ddbgen's export writes
 * them); else "Type" when present, else a name the modelling libraries
 * use; NULL (the default "Type"). */
static const char *type_attribute(const json_t *table)
{
    const json_t *attrs = json_object_get(table, "NonKeyAttributes");
    const json_t *facets = json_object_get(table, "TableFacets");
    size_t i, j;
    json_t *a, *fc;
    json_array_foreach(attrs, i, a) {
        const char *name = jstr(a, "AttributeName");
        int all = name && json_array_size(facets) > 0;
        json_array_foreach(facets, j, fc) {
            const char *v = jstr(json_object_get(json_array_get(json_object_get(fc, "TableData"), 0), name), "S");
            all = all && v && jstr(fc, "FacetName") && !strcmp(v, jstr(fc, "FacetName"));
        }
        if (all)
            return name;
    }
    static const char *const names[] = {"Type", "type", "_type", "EntityType", "entityType", "__edb_e__", "_et"};
    for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
        size_t i;
        json_t *a;
        json_array_foreach(attrs, i, a)
            if (jstr(a, "AttributeName") && !strcmp(jstr(a, "AttributeName"), names[k]))
                return names[k];
    }
    return NULL;
}

static const char *attr_type(const json_t *attrs, const char *name)
{
    size_t i;
    json_t *a;
    json_array_foreach(attrs, i, a)
        if (jstr(a, "AttributeName") && !strcmp(jstr(a, "AttributeName"), name))
            return jstr(a, "AttributeType") ? jstr(a, "AttributeType") : "S";
    return "S";
}

static void free_entity(entity *e)
{
    for (size_t i = 0; i < e->n; i++) {
        free(e->f[i].attr);
        free(e->f[i].cname);
    }
    free(e->f);
    ddbgen_buf_free(&e->keys);
    ddbgen_buf_free(&e->comments);
}

static void emit_entity(ddbgen_buf *b, const char *tcname, const json_t *table, const json_t *fc, const json_t *keys,
                        const char *type_attr)
{
    entity e = {0};
    const json_t *attrs = json_object_get(table, "NonKeyAttributes");
    const char *name = jstr(fc, "FacetName");
    const json_t *items = json_object_get(fc, "TableData");
    size_t i;
    json_t *a, *it;
    json_array_foreach(json_object_get(fc, "NonKeyAttributes"), i, a) {
        const char *an = json_string_value(a);
        if (an && !is_key_attr(keys, an) && strcmp(an, type_attr) && !find_field(&e, an))
            add_field(&e, an, attr_type(attrs, an));
    }
    for (size_t k = 0; k < e.n; k++)
        json_array_foreach(items, i, it) {
            const char *n = jstr(json_object_get(it, e.f[k].attr), "N");
            e.f[k].fraction |= n && (strchr(n, '.') || strchr(n, 'e') || strchr(n, 'E'));
        }
    const json_t *alias = json_object_get(fc, "KeyAttributeAlias"), *ka = json_object_get(table, "KeyAttributes");
    const char *pk = jstr(json_object_get(ka, "PartitionKey"), "AttributeName");
    const char *sk = jstr(json_object_get(ka, "SortKey"), "AttributeName");
    ddbgen_buf_puts(&e.keys, "       DDB_KEY(\"table\", \"");
    key_template(&e, jstr(alias, "PartitionKeyAlias"), items, pk, name, &e.keys);
    if (sk) {
        ddbgen_buf_puts(&e.keys, "\", \"");
        key_template(&e, jstr(alias, "SortKeyAlias"), items, sk, name, &e.keys);
    }
    ddbgen_buf_puts(&e.keys, "\")\n");
    json_array_foreach(json_object_get(table, "GlobalSecondaryIndexes"), i, a) {
        const json_t *gk = json_object_get(a, "KeyAttributes");
        const char *gpk = jstr(json_object_get(gk, "PartitionKey"), "AttributeName");
        const char *gsk = jstr(json_object_get(gk, "SortKey"), "AttributeName");
        ddbgen_buf p = {0}, s = {0};
        if (!gpk || !template_from_items(&e, items, gpk, &p) || (gsk && !template_from_items(&e, items, gsk, &s))) {
            if (gpk && json_array_size(items) && scalar(json_array_get(items, 0), gpk))
                ddbgen_buf_printf(&e.comments, "/* TODO: '%s' is in index '%s', but its key templates cannot be "
                                               "inferred from the sample items */\n",
                                  name, jstr(a, "IndexName"));
        } else {
            ddbgen_buf_puts(&e.keys, "       DDB_KEY(\"");
            c_str(&e.keys, jstr(a, "IndexName"));
            ddbgen_buf_puts(&e.keys, "\", \"");
            c_str(&e.keys, ddbgen_buf_str(&p));
            if (gsk) {
                ddbgen_buf_puts(&e.keys, "\", \"");
                c_str(&e.keys, ddbgen_buf_str(&s));
            }
            ddbgen_buf_puts(&e.keys, "\")\n");
        }
        ddbgen_buf_free(&p);
        ddbgen_buf_free(&s);
    }
    char *ecname = c_ident(name, 1);
    ddbgen_buf_printf(b, "\n%s", ddbgen_buf_str(&e.comments));
    ddbgen_buf_printf(b, "struct DDB_ENTITY(%s, \"", tcname);
    c_str(b, name);
    ddbgen_buf_printf(b, "\")\n%s%s {\n", ddbgen_buf_str(&e.keys), ecname ? ecname : "entity");
    for (size_t k = 0; k < e.n; k++)
        emit_field(b, &e.f[k]);
    ddbgen_buf_puts(b, "};\n");
    free(ecname);
    free_entity(&e);
}

static void index_decl(ddbgen_buf *b, const json_t *g)
{
    const json_t *gk = json_object_get(g, "KeyAttributes"), *proj = json_object_get(g, "Projection");
    const char *gsk = jstr(json_object_get(gk, "SortKey"), "AttributeName");
    ddbgen_buf_puts(b, ",\n          DDB_GSI(\"");
    c_str(b, jstr(g, "IndexName"));
    ddbgen_buf_puts(b, "\", \"");
    c_str(b, jstr(json_object_get(gk, "PartitionKey"), "AttributeName"));
    if (gsk) {
        ddbgen_buf_puts(b, "\", \"");
        c_str(b, gsk);
    }
    ddbgen_buf_puts(b, "\"");
    const char *pt = jstr(proj, "ProjectionType");
    if (pt && !strcmp(pt, "KEYS_ONLY"))
        ddbgen_buf_puts(b, ", DDB_PROJECT_KEYS_ONLY");
    else if (pt && !strcmp(pt, "INCLUDE")) {
        ddbgen_buf_puts(b, ", DDB_PROJECT_INCLUDE(");
        size_t i;
        json_t *a;
        json_array_foreach(json_object_get(proj, "NonKeyAttributes"), i, a) {
            ddbgen_buf_puts(b, i ? ", \"" : "\"");
            c_str(b, json_string_value(a) ? json_string_value(a) : "");
            ddbgen_buf_puts(b, "\"");
        }
        ddbgen_buf_puts(b, ")");
    }
    ddbgen_buf_puts(b, ")");
}

/* What a model must hold to be read: problems appended to why. */
static void check_model(const json_t *m, ddbgen_buf *why)
{
    if (!json_is_object(m) || !json_is_array(json_object_get(m, "DataModel"))) {
        ddbgen_buf_puts(why, "not a NoSQL Workbench model: no \"DataModel\" array\n");
        return;
    }
    size_t i, j;
    json_t *t, *x;
    json_array_foreach(json_object_get(m, "DataModel"), i, t) {
        if (!jstr(t, "TableName"))
            ddbgen_buf_printf(why, "DataModel[%zu]: no \"TableName\"\n", i);
        if (!jstr(json_object_get(json_object_get(t, "KeyAttributes"), "PartitionKey"), "AttributeName"))
            ddbgen_buf_printf(why, "DataModel[%zu]: no \"KeyAttributes\".\"PartitionKey\".\"AttributeName\"\n", i);
        json_array_foreach(json_object_get(t, "GlobalSecondaryIndexes"), j, x)
            if (!jstr(x, "IndexName") ||
                !jstr(json_object_get(json_object_get(x, "KeyAttributes"), "PartitionKey"), "AttributeName"))
                ddbgen_buf_printf(why, "DataModel[%zu].GlobalSecondaryIndexes[%zu]: no IndexName or partition key\n",
                                  i, j);
        json_array_foreach(json_object_get(t, "TableFacets"), j, x)
            if (!jstr(x, "FacetName"))
                ddbgen_buf_printf(why, "DataModel[%zu].TableFacets[%zu]: no \"FacetName\"\n", i, j);
    }
}

char *ddbgen__workbench_draft(const json_t *model, const char *source, ddbgen_buf *why)
{
    check_model(model, why);
    if (why->len)
        return NULL;
    ddbgen_buf b = {0};
    ddbgen_buf_puts(&b, "/* A draft schema from the NoSQL Workbench model \"");
    c_str(&b, jstr(model, "ModelName") ? jstr(model, "ModelName") : "");
    ddbgen_buf_printf(&b, "\" (%s), written by\n * ddbgen --import-workbench.  Review every TODO, then run "
                          "ddbgen on it. */\n#include <ddb/schema.h>\n\n#include <stdbool.h>\n#include <stdint.h>\n",
                      source);
    size_t i, j;
    json_t *t, *x;
    json_array_foreach(json_object_get(model, "DataModel"), i, t) {
        char *tcname = c_ident(jstr(t, "TableName"), 1);
        const json_t *ka = json_object_get(t, "KeyAttributes");
        const char *pk = jstr(json_object_get(ka, "PartitionKey"), "AttributeName");
        const char *sk = jstr(json_object_get(ka, "SortKey"), "AttributeName");
        json_t *keys = json_object(); /* every key attribute of the table and its indexes */
        json_object_set_new(keys, pk, json_true());
        if (sk)
            json_object_set_new(keys, sk, json_true());
        json_array_foreach(json_object_get(t, "GlobalSecondaryIndexes"), j, x) {
            const json_t *gk = json_object_get(x, "KeyAttributes");
            json_object_set_new(keys, jstr(json_object_get(gk, "PartitionKey"), "AttributeName"), json_true());
            const char *gsk = jstr(json_object_get(gk, "SortKey"), "AttributeName");
            if (gsk)
                json_object_set_new(keys, gsk, json_true());
        }
        const char *ta = type_attribute(t);
        ddbgen_buf_printf(&b, "\nDDB_TABLE(%s, \"", tcname ? tcname : "table");
        c_str(&b, jstr(t, "TableName"));
        ddbgen_buf_puts(&b, "\", DDB_PRIMARY(\"");
        c_str(&b, pk);
        if (sk) {
            ddbgen_buf_puts(&b, "\", \"");
            c_str(&b, sk);
        }
        ddbgen_buf_puts(&b, "\")");
        json_array_foreach(json_object_get(t, "GlobalSecondaryIndexes"), j, x)
            index_decl(&b, x);
        if (ta && strcmp(ta, "Type")) {
            ddbgen_buf_puts(&b, ",\n          DDB_TYPE_ATTRIBUTE(\"");
            c_str(&b, ta);
            ddbgen_buf_puts(&b, "\")");
        }
        const json_t *pt = json_object_get(json_object_get(t, "ProvisionedCapacitySettings"), "ProvisionedThroughput");
        if (jstr(t, "BillingMode") && !strcmp(jstr(t, "BillingMode"), "PROVISIONED") && pt)
            ddbgen_buf_printf(&b, ",\n          DDB_PROVISIONED(%lld, %lld)",
                              (long long)json_integer_value(json_object_get(pt, "ReadCapacityUnits")),
                              (long long)json_integer_value(json_object_get(pt, "WriteCapacityUnits")));
        ddbgen_buf_puts(&b, ");\n");
        const json_t *facets = json_object_get(t, "TableFacets");
        if (json_array_size(facets)) {
            json_array_foreach(facets, j, x)
                emit_entity(&b, tcname ? tcname : "table", t, x, keys, ta ? ta : "Type");
        } else {
            /* no facets: one entity of every attribute, keys from the table's items */
            json_t *names = json_array();
            json_array_foreach(json_object_get(t, "NonKeyAttributes"), j, x)
                json_array_append(names, json_object_get(x, "AttributeName"));
            json_t *fc = json_pack("{s:s, s:o, s:O}", "FacetName", "Item", "NonKeyAttributes", names, "TableData",
                                   json_object_get(t, "TableData") ? json_object_get(t, "TableData") : json_null());
            emit_entity(&b, tcname ? tcname : "table", t, fc, keys, ta ? ta : "Type");
            json_decref(fc);
        }
        json_decref(keys);
        free(tcname);
    }
    char *s = b.oom ? NULL : strdup(ddbgen_buf_str(&b));
    ddbgen_buf_free(&b);
    return s;
}
