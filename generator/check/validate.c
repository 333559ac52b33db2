/* validate.c — the checks: every rule a schema must follow, run on the
 * declared model before anything is lowered or written.
 *
 * Works on the jansson model only, so schemas from libclang and models from
 * JSON are checked by the same code.  Every problem is recorded (nothing
 * stops at the first one); diag.c sorts them by location.  The model given
 * is not modified: the rules work on a private copy, where they note what
 * they work out along the way (template segments, key types, shards,
 * collections) for the rules that need it.  Those notes are the checks'
 * own; the IR (lower.c) derives the facts it keeps by itself.  Every rule
 * is listed, with an example, in docs/SCHEMA.md.
 */
#include "decl.h"
#include "check.h"
#include "template.h"

#include <ddb/entity.h> /* DDB_ENT_MAX_SHARDS: the runtime's limit is the schema's */

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define ITEM_LIMIT 409600 /* DynamoDB: 400 KB per item, attribute names included */
#define PK_LIMIT 2048     /* bytes of a partition key value */
#define SK_LIMIT 1024     /* bytes of a sort key value */
#define NUMBER_SIZE 21    /* the most a DynamoDB number takes */

typedef struct V {
    ddbgen_diags *d;
    json_t *model;
    json_t *tables;   /* array */
    json_t *structs;  /* array */
    json_t *entities; /* array */
    json_t *table_by_cname;  /* cname -> table (borrowed refs in an object) */
    json_t *struct_by_cname; /* cname -> struct */
    json_t *cur_entity;      /* the entity being checked */
    json_t *invalid_fields;  /* its fields the front-end rejected: name -> true */
} V;

/* ---- diagnostics ---------------------------------------------------- */

static long __attribute__((format(printf, 4, 5)))
report(V *v, ddbgen_severity sev, ddbgen_loc l, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    long h = ddbgen_diag_vadd(v->d, sev, l, fmt, ap);
    va_end(ap);
    return h;
}

#define ERR(v, l, ...) report((v), DDBGEN_ERROR, (l), __VA_ARGS__)
#define WARN(v, l, ...) report((v), DDBGEN_WARNING, (l), __VA_ARGS__)
#define NOTE(v, h, l, ...) ddbgen_diag_note((v)->d, (h), (l), __VA_ARGS__)

static ddbgen_loc LOC(const json_t *obj) { return ddbgen_loc_of(obj, "loc"); }

/* Where byte `offset` of template object t is, when its literal was written
 * verbatim on one line (the common case); else the literal itself. */
static ddbgen_loc tmpl_loc(const json_t *t, size_t offset)
{
    ddbgen_loc l = LOC(t);
    if (l.line > 0 && !json_is_false(json_object_get(t, "verbatim")))
        l.col += 1 + (int)offset;
    return l;
}

/* ---- small helpers --------------------------------------------------- */

static size_t edit_distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > 64 || m > 64)
        return 99;
    size_t row[65];
    for (size_t j = 0; j <= m; j++)
        row[j] = j;
    for (size_t i = 1; i <= n; i++) {
        size_t prev = row[0];
        row[0] = i;
        for (size_t j = 1; j <= m; j++) {
            size_t cur = row[j];
            size_t best = prev + (a[i - 1] != b[j - 1]);
            if (row[j] + 1 < best)
                best = row[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            prev = cur;
        }
    }
    return row[m];
}

/* The member `key` of the element of arr closest to name, when close enough. */
static const char *suggest(const json_t *arr, const char *key, const char *name)
{
    const char *best = NULL;
    size_t best_d = strlen(name) / 3 + 1;
    if (best_d > 3)
        best_d = 3;
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e) {
        const char *s = ddbgen_jstr(e, key);
        if (!s)
            continue;
        size_t dd = edit_distance(name, s);
        if (dd <= best_d && (!best || dd < best_d)) {
            best = s;
            best_d = dd;
        }
    }
    return best;
}

/* "a, b, c" of member key of each element. */
static void list_names(ddbgen_buf *b, const json_t *arr, const char *key)
{
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e) {
        if (i)
            ddbgen_buf_puts(b, ", ");
        ddbgen_buf_puts(b, ddbgen_jstr(e, key) ? ddbgen_jstr(e, key) : "?");
    }
}

static int is_integer_num(const char *num) { return num && (num[0] == 'i' || num[0] == 'u'); }

static int valid_resource_name(const char *s)
{
    size_t n = strlen(s);
    if (n < 3 || n > 255)
        return 0;
    for (; *s; s++)
        if (!(('a' <= *s && *s <= 'z') || ('A' <= *s && *s <= 'Z') || ('0' <= *s && *s <= '9') ||
              *s == '_' || *s == '-' || *s == '.'))
            return 0;
    return 1;
}

static const char *type_words(const char *type)
{
    static const struct {
        const char *t, *w;
    } words[] = {{"S", "a string (S)"},        {"N", "a number (N)"},     {"BOOL", "a boolean (BOOL)"},
                 {"B", "binary (B)"},          {"M", "a map (M)"},        {"L", "a list (L)"},
                 {"SS", "a string set (SS)"},  {"NS", "a number set (NS)"}, {"BS", "a binary set (BS)"}};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (type && !strcmp(words[i].t, type))
            return words[i].w;
    return "of an unknown type";
}

/* Longest decimal text of an integer kind. */
static int num_digits(const char *num)
{
    static const struct {
        const char *n;
        int d;
    } t[] = {{"i8", 4},  {"u8", 3},  {"i16", 6}, {"u16", 5},
             {"i32", 11}, {"u32", 10}, {"i64", 20}, {"u64", 20}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (num && !strcmp(t[i].n, num))
            return t[i].d;
    return 24;
}

/* Digits of the largest value of an integer kind (zero-pad width). */
static int max_digits(const char *num)
{
    static const struct {
        const char *n;
        int d;
    } t[] = {{"i8", 3}, {"u8", 3}, {"i16", 5}, {"u16", 5}, {"i32", 10}, {"u32", 10}, {"i64", 19}, {"u64", 20}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (num && !strcmp(t[i].n, num))
            return t[i].d;
    return 20;
}

/* ---- tables ---------------------------------------------------------- */

static json_t *primary_of(const json_t *table)
{
    return ddbgen_jfind(json_object_get(table, "indexes"), "kind", "primary");
}

/* attr is the partition or sort key attribute of one of the table's indexes. */
static int is_key_attr(const json_t *table, const char *attr)
{
    size_t i;
    json_t *x;
    json_array_foreach(json_object_get(table, "indexes"), i, x) {
        const char *pk = ddbgen_jstr(json_object_get(x, "pk"), "attr");
        const char *sk = ddbgen_jstr(json_object_get(x, "sk"), "attr");
        if ((pk && !strcmp(pk, attr)) || (sk && !strcmp(sk, attr)))
            return 1;
    }
    return 0;
}

/* DDB_STREAM's view type and DDB_PROVISIONED's capacity units, as
 * DynamoDB's StreamSpecification and ProvisionedThroughput accept them. */
static void check_table_options(V *v, const json_t *t)
{
    const char *views[] = {"KEYS_ONLY", "NEW_IMAGE", "OLD_IMAGE", "NEW_AND_OLD_IMAGES"};
    const char *stream = ddbgen_jstr(t, "stream");
    if (json_object_get(t, "stream")) {
        int known = 0;
        for (size_t i = 0; i < sizeof views / sizeof *views; i++)
            known |= !strcmp(stream, views[i]);
        ddbgen_loc l = ddbgen_loc_of(t, "stream_loc");
        if (!known)
            ERR(v, l.file ? l : LOC(t),
                "DDB_STREAM(\"%s\"): the view type is one of KEYS_ONLY, NEW_IMAGE, OLD_IMAGE and "
                "NEW_AND_OLD_IMAGES",
                stream);
    }
    /* DynamoDB's Projection: at most 20 NonKeyAttributes an index, 100 over
     * all of a table's secondary indexes, each named once, 1 to 255 bytes;
     * key attribute names 1 to 255 bytes (API_Projection, API_KeySchemaElement) */
    size_t total = 0, k;
    const json_t *x;
    json_array_foreach(json_object_get(t, "indexes"), k, x) {
        const json_t *proj = json_object_get(x, "projection"), *attrs = json_object_get(proj, "attributes");
        const char *iname = ddbgen_jstr(x, "name");
        const char *which[] = {"pk", "sk"};
        for (int w = 0; w < 2; w++) {
            const json_t *ka = json_object_get(x, which[w]);
            const char *an = ddbgen_jstr(ka, "attr");
            if (ka && an && strlen(an) > 255)
                ERR(v, LOC(ka), "key attribute name of %zu bytes: DynamoDB allows at most 255", strlen(an));
        }
        size_t n = json_array_size(attrs), a, b;
        total += n;
        if (n > 20)
            ERR(v, LOC(proj), "DDB_PROJECT_INCLUDE of index '%s' names %zu attributes: DynamoDB allows at most 20 an index",
                iname, n);
        for (a = 0; a < n; a++) {
            const char *an = json_string_value(json_array_get(attrs, a));
            if (!an)
                continue;
            if (!an[0] || strlen(an) > 255)
                ERR(v, LOC(proj), "DDB_PROJECT_INCLUDE of index '%s': an attribute name of %zu bytes (1 to 255)", iname,
                    strlen(an));
            for (b = 0; b < a; b++)
                if (json_string_value(json_array_get(attrs, b)) && !strcmp(an, json_string_value(json_array_get(attrs, b))))
                    ERR(v, LOC(proj), "DDB_PROJECT_INCLUDE of index '%s' names '%s' twice", iname, an);
        }
    }
    if (total > 100)
        ERR(v, LOC(t), "the indexes of table '%s' project %zu attributes: DynamoDB allows at most 100 over all of a "
                       "table's secondary indexes",
            ddbgen_jstr(t, "name"), total);
    const json_t *p = json_object_get(t, "provisioned");
    const char *units[] = {"rcu", "wcu"};
    for (int i = 0; p && i < 2; i++) {
        json_int_t n = json_integer_value(json_object_get(p, units[i]));
        if (n < 1)
            ERR(v, LOC(p),
                "DDB_PROVISIONED: the %s capacity units are a whole number of at least 1 (DynamoDB's "
                "ProvisionedThroughput)",
                i ? "write" : "read");
    }
}

static void check_tables(V *v)
{
    size_t i, k;
    json_t *t, *x;
    json_array_foreach(v->tables, i, t) {
        const char *cname = ddbgen_jstr(t, "cname");
        const char *name = ddbgen_jstr(t, "name");
        json_t *prev = json_object_get(v->table_by_cname, cname);
        if (prev) {
            long h = ERR(v, LOC(t), "duplicate table C name '%s'", cname);
            NOTE(v, h, LOC(prev), "'%s' is first declared here", cname);
        } else
            json_object_set(v->table_by_cname, cname, t);
        if (!valid_resource_name(name))
            ERR(v, LOC(t),
                "\"%s\" is not a valid DynamoDB table name: use 3 to 255 characters from a-z, A-Z, "
                "0-9, '_', '-' and '.'",
                name);
        check_table_options(v, t);
        json_t *indexes = json_object_get(t, "indexes");
        json_t *primary = NULL;
        size_t gsis = 0, lsis = 0;
        json_array_foreach(indexes, k, x) {
            const char *kind = ddbgen_jstr(x, "kind");
            const char *iname = ddbgen_jstr(x, "name");
            if (!strcmp(kind, "primary")) {
                if (primary) {
                    long h = ERR(v, LOC(x), "duplicate DDB_PRIMARY in table '%s'", name);
                    NOTE(v, h, LOC(primary), "the first DDB_PRIMARY is here");
                } else
                    primary = x;
                continue;
            }
            if (!strcmp(kind, "gsi"))
                gsis++;
            else
                lsis++;
            if (!strcmp(iname, "table"))
                ERR(v, LOC(x), "\"table\" names the primary key in DDB_KEY; choose another index name");
            else if (!valid_resource_name(iname))
                ERR(v, LOC(x),
                    "\"%s\" is not a valid index name: use 3 to 255 characters from a-z, A-Z, 0-9, "
                    "'_', '-' and '.'",
                    iname);
            for (size_t m = 0; m < k && strcmp(iname, "table") != 0; m++) {
                json_t *other = json_array_get(indexes, m);
                if (!strcmp(ddbgen_jstr(other, "name"), iname)) {
                    long h = ERR(v, LOC(x), "duplicate index name '%s' in table '%s'", iname, name);
                    NOTE(v, h, LOC(other), "'%s' is first declared here", iname);
                    break;
                }
            }
        }
        if (!primary) {
            ERR(v, LOC(t), "table '%s' has no primary key: add DDB_PRIMARY(\"PK\", \"SK\")", name);
            continue;
        }
        if (gsis > 20)
            ERR(v, LOC(t), "table '%s' declares %zu global secondary indexes; DynamoDB allows 20",
                name, gsis);
        if (lsis > 5)
            ERR(v, LOC(t), "table '%s' declares %zu local secondary indexes; DynamoDB allows 5", name,
                lsis);
        json_t *ppk = json_object_get(primary, "pk"), *psk = json_object_get(primary, "sk");
        json_array_foreach(indexes, k, x) {
            if (strcmp(ddbgen_jstr(x, "kind"), "lsi") != 0)
                continue;
            json_object_set_new(x, "pk", json_deep_copy(ppk));
            if (!psk) {
                ERR(v, LOC(x),
                    "local secondary index '%s' needs a table with a sort key; DDB_PRIMARY of '%s' "
                    "has none",
                    ddbgen_jstr(x, "name"), name);
            } else if (!strcmp(ddbgen_jstr(json_object_get(x, "sk"), "attr"), ddbgen_jstr(psk, "attr"))) {
                ERR(v, ddbgen_loc_of(json_object_get(x, "sk"), "loc"),
                    "local secondary index '%s' sorts by '%s', the table's own sort key; give it "
                    "its own attribute",
                    ddbgen_jstr(x, "name"), ddbgen_jstr(psk, "attr"));
            }
        }
        json_array_foreach(indexes, k, x) {
            const char *which[] = {"pk", "sk"};
            for (int w = 0; w < 2; w++) {
                json_t *ka = json_object_get(x, which[w]);
                if (ka && !ddbgen_jstr(ka, "attr")[0])
                    ERR(v, LOC(ka), "empty key attribute name");
            }
        }
        const char *ta = ddbgen_jstr(t, "type_attribute");
        ddbgen_loc tal = ddbgen_loc_of(t, "type_attribute_loc");
        if (!tal.file)
            tal = LOC(t);
        if (!ta[0])
            ERR(v, tal, "empty type attribute name");
        else if (is_key_attr(t, ta))
            ERR(v, tal, "type attribute '%s' is also a key attribute of table '%s'", ta, name);
    }
}

/* ---- structs ------------------------------------------------------- */

static void check_attr_names(V *v, json_t *fields, const char *owner)
{
    size_t i, j;
    json_t *f, *g;
    json_array_foreach(fields, i, f) {
        const char *attr = ddbgen_jstr(f, "attr");
        ddbgen_loc al = ddbgen_loc_of(f, "attr_loc");
        if (!al.file)
            al = LOC(f);
        if (!attr[0]) {
            ERR(v, al, "field '%s' of '%s' has an empty attribute name", ddbgen_jstr(f, "name"), owner);
            continue;
        }
        json_array_foreach(fields, j, g) {
            if (j >= i)
                break;
            if (!strcmp(ddbgen_jstr(g, "attr"), attr)) {
                long h = ERR(v, al,
                             "field '%s' of '%s' is stored as attribute '%s', which field '%s' "
                             "already uses; give one of them another name with DDB_ATTR",
                             ddbgen_jstr(f, "name"), owner, attr, ddbgen_jstr(g, "name"));
                NOTE(v, h, LOC(g), "'%s' is declared here", ddbgen_jstr(g, "name"));
                break;
            }
        }
    }
}

static void check_struct_refs(V *v, json_t *fields)
{
    size_t i;
    json_t *f;
    json_array_foreach(fields, i, f) {
        json_t *t = json_object_get(f, "item") ? json_object_get(f, "item") : f;
        const char *s = ddbgen_jstr(t, "struct");
        if (s && !json_object_get(v->struct_by_cname, s))
            ERR(v, LOC(f), "field '%s' refers to struct '%s', which the model does not describe",
                ddbgen_jstr(f, "name"), s);
    }
}

static void check_structs(V *v)
{
    size_t i;
    json_t *s;
    json_array_foreach(v->structs, i, s) json_object_set(v->struct_by_cname, ddbgen_jstr(s, "cname"), s);
    json_array_foreach(v->structs, i, s) {
        check_attr_names(v, json_object_get(s, "fields"), ddbgen_jstr(s, "cname"));
        check_struct_refs(v, json_object_get(s, "fields"));
    }
}

/* ---- templates ------------------------------------------------------ */

enum {
    T_KEY = 1,      /* a key template: S and integer fields */
    T_PRIMARY = 2,  /* ... of the primary key: no optional fields */
    T_SORT = 4,     /* ... a sort key: warn on unpadded numbers */
    T_DERIVED = 8,  /* a DDB_DERIVED template */
    T_AUTO_ID = 16  /* a DDB_AUTO_ID scope */
};

typedef struct tinfo {
    int ok;
    int numeric;        /* one integer hole, no format: an N value */
    long long bounded;  /* bytes it can render, counting bounded holes only */
    int unbounded;      /* some hole has no bound (char *) */
    json_t *top_fields; /* names of the entity fields it uses (array) */
} tinfo;

/* Finds the field for path "a.b.c" from an entity's fields; reports problems. */
static json_t *resolve_path(V *v, json_t *fields, const json_t *t, const ddbgen_tmpl_seg *seg,
                            const char *what)
{
    char *path = strdup(seg->text);
    json_t *cur_fields = fields, *f = NULL;
    const char *owner = NULL;
    ddbgen_loc l = tmpl_loc(t, seg->offset);
    for (char *part = strtok(path, "."); part; part = strtok(NULL, ".")) {
        if (f) {
            const char *sname = ddbgen_jstr(f, "struct");
            if (strcmp(ddbgen_jstr(f, "type"), "M") != 0 || !sname) {
                ERR(v, l, "'%s' in '{%s}' is %s, not a struct, so it has no member '%s' (%s)",
                    ddbgen_jstr(f, "name"), seg->text, type_words(ddbgen_jstr(f, "type")), part, what);
                f = NULL;
                break;
            }
            owner = sname;
            cur_fields = json_object_get(json_object_get(v->struct_by_cname, sname), "fields");
        }
        json_t *next = ddbgen_jfind(cur_fields, "name", part);
        if (!next) {
            const char *s = suggest(cur_fields, "name", part);
            ddbgen_buf hint = {0};
            if (s) {
                ddbgen_buf_printf(&hint, "; did you mean '%s'?", s);
            } else {
                ddbgen_buf_printf(&hint, "; the fields of '%s' are: ", owner ? owner : ddbgen_jstr(v->cur_entity, "name"));
                list_names(&hint, cur_fields, "name");
            }
            if (!owner && json_object_get(v->invalid_fields, part))
                ; /* its declaration was already reported */
            else if (owner)
                ERR(v, l, "struct '%s' has no field '%s' (in '{%s}', %s)%s", owner, part, seg->text,
                    what, ddbgen_buf_str(&hint));
            else
                ERR(v, l, "unknown field '%s' in %s%s", part, what, ddbgen_buf_str(&hint));
            ddbgen_buf_free(&hint);
            f = NULL;
            break;
        }
        f = next;
    }
    free(path);
    return f;
}

/* Parses and resolves template object t of entity e; adds "segments". */
static void resolve_template(V *v, json_t *e, json_t *t, int flags, const char *what,
                             const char *self, tinfo *out)
{
    memset(out, 0, sizeof *out);
    out->top_fields = json_array();
    const char *text = ddbgen_jstr(t, "template");
    ddbgen_tmpl tp;
    ddbgen_tmpl_error te;
    json_t *fields = json_object_get(e, "fields");
    if (ddbgen_tmpl_parse(text, &tp, &te) != 0) {
        ERR(v, tmpl_loc(t, te.offset), "%s in \"%s\" (%s)%s%s", te.message, text, what,
            te.hint[0] ? "; " : "", te.hint);
        ddbgen_tmpl_free(&tp);
        return;
    }
    if ((flags & (T_KEY | T_AUTO_ID)) && tp.count == 0) {
        ERR(v, LOC(t), "%s is empty; %s", what,
            (flags & T_KEY) ? "a key value cannot be empty"
                            : "the scope is the partition key of the counter item, which cannot be empty");
        ddbgen_tmpl_free(&tp);
        return;
    }
    json_t *segs = json_array();
    out->ok = 1;
    for (size_t i = 0; i < tp.count; i++) {
        ddbgen_tmpl_seg *s = &tp.segs[i];
        if (!s->is_field) {
            json_array_append_new(segs, json_pack("{s:s}", "lit", s->text));
            out->bounded += (long long)strlen(s->text);
            continue;
        }
        ddbgen_loc hl = tmpl_loc(t, s->offset);
        json_t *f = resolve_path(v, fields, t, s, what);
        if (!f) {
            out->ok = 0;
            continue;
        }
        char top[256];
        snprintf(top, sizeof top, "%.*s", (int)strcspn(s->text, "."), s->text);
        json_t *topf = ddbgen_jfind(fields, "name", top);
        {
            size_t k;
            json_t *n;
            int seen = 0;
            json_array_foreach(out->top_fields, k, n) seen |= !strcmp(json_string_value(n), top);
            if (!seen)
                json_array_append_new(out->top_fields, json_string(top));
        }
        const char *type = ddbgen_jstr(f, "type");
        const char *num = ddbgen_jstr(f, "num");
        int optional = ddbgen_jtrue(f, "optional");
        const char *fname = s->text;
        if (strcmp(type, "S") != 0 && !(strcmp(type, "N") == 0 && is_integer_num(num))) {
            if (!strcmp(type, "N"))
                ERR(v, hl, "floating-point field '%s' cannot be used in %s: its text form is not "
                           "exact; use an integer or a string field",
                    fname, what);
            else
                ERR(v, hl,
                    "field '%s' is %s and cannot be used in %s; templates can only use string "
                    "(char[N], char *) and integer fields",
                    fname, type_words(type), what);
            out->ok = 0;
            continue;
        }
        int is_s = !strcmp(type, "S");
        size_t errors_at_hole = v->d->errors;
        if (s->pad && is_s) {
            ERR(v, hl, "':0%d' zero-pads integers, but '%s' is a string (%s)", s->pad, fname, what);
            out->ok = 0;
        }
        if ((s->part || s->kase) && !is_s) {
            ERR(v, hl, "'|%s' applies to strings%s, but '%s' is a number (%s)",
                s->part ? ddbgen_tmpl_part_name(s->part) : ddbgen_tmpl_case_name(s->kase),
                s->part ? " holding an ISO-8601 date" : "", fname, what);
            out->ok = 0;
        }
        if (optional) {
            if (flags & T_PRIMARY) {
                ERR(v, hl,
                    "optional field '%s' (%s) cannot be part of the primary key of '%s': every item "
                    "needs its key; make it a required string (char[N]) (in a secondary index key "
                    "an optional field makes the index sparse)",
                    fname, ddbgen_jstr(f, "ctype"), ddbgen_jstr(e, "name"));
                out->ok = 0;
            }
        }
        if (topf && (flags & T_KEY) && json_object_get(topf, "version")) {
            ERR(v, hl, "version field '%s' cannot be part of a key: it changes on every write", fname);
            out->ok = 0;
        }
        if (self && !strcmp(top, self)) {
            ERR(v, hl, "%s uses field '%s' itself", what, self);
            out->ok = 0;
        } else if ((flags & T_DERIVED) && topf && json_object_get(topf, "derived")) {
            ERR(v, hl, "%s uses derived field '%s'; derived templates may only use stored fields",
                what, fname);
            out->ok = 0;
        }
        /* Rendered length, for key-size and derived-field checks. */
        long long len;
        if (s->part)
            len = s->part == DDBGEN_PART_YEAR ? 4 : 2;
        else if (is_s) {
            len = ddbgen_jint(f, "max_len", -1);
            if (optional || len < 0) {
                len = 0;
                out->unbounded = 1;
            }
        } else {
            len = num_digits(num);
            if (s->pad > len)
                len = s->pad;
        }
        out->bounded += len;
        if ((flags & T_SORT) && !is_s && !s->pad && tp.count > 1 && v->d->errors == errors_at_hole)
            WARN(v, hl,
                 "integer field '%s' in string sort key \"%s\" is not zero-padded, so keys sort as "
                 "text (\"10\" before \"9\"); write {%s:0N} with N the most digits it can have, "
                 "e.g. {%s:0%d} for any %s",
                 fname, text, fname, fname, max_digits(num), ddbgen_jstr(f, "ctype"));
        json_t *seg = json_pack("{s:s, s:[], s:s}", "field", s->text, "path", "type", type);
        char *p = strdup(s->text);
        for (char *part = strtok(p, "."); part; part = strtok(NULL, "."))
            json_array_append_new(json_object_get(seg, "path"), json_string(part));
        free(p);
        if (num)
            json_object_set_new(seg, "num", json_string(num));
        if (s->pad)
            json_object_set_new(seg, "pad", json_integer(s->pad));
        if (s->part)
            json_object_set_new(seg, "part", json_string(ddbgen_tmpl_part_name(s->part)));
        if (s->kase)
            json_object_set_new(seg, "case", json_string(ddbgen_tmpl_case_name(s->kase)));
        if (optional)
            json_object_set_new(seg, "optional", json_true());
        json_array_append_new(segs, seg);
    }
    if (out->ok && tp.count == 1 && tp.segs[0].is_field && !tp.segs[0].pad && !tp.segs[0].part &&
        !tp.segs[0].kase) {
        json_t *seg0 = json_array_get(segs, 0);
        out->numeric = !strcmp(ddbgen_jstr(seg0, "type"), "N");
    }
    json_object_set_new(t, "segments", segs);
    ddbgen_tmpl_free(&tp);
}

static void tinfo_free(tinfo *ti) { json_decref(ti->top_fields); }

/* ---- entities ------------------------------------------------------ */

/* Bytes an attribute value of this type can take, counting only what is
 * bounded; *unb is set when some part is not bounded. */
static long long value_size(V *v, const json_t *t, int depth, int *unb)
{
    const char *type = ddbgen_jstr(t, "type");
    if (!strcmp(type, "S")) {
        if (ddbgen_jtrue(t, "optional") || !json_object_get(t, "max_len")) {
            *unb = 1;
            return 0;
        }
        return ddbgen_jint(t, "max_len", 0);
    }
    if (!strcmp(type, "N"))
        return NUMBER_SIZE;
    if (!strcmp(type, "BOOL"))
        return 1;
    if (!strcmp(type, "M") && depth < 32) {
        json_t *s = json_object_get(v->struct_by_cname, ddbgen_jstr(t, "struct"));
        long long total = 3;
        size_t i;
        json_t *f;
        json_array_foreach(json_object_get(s, "fields"), i, f)
            total += (long long)strlen(ddbgen_jstr(f, "attr")) + value_size(v, f, depth + 1, unb);
        return total;
    }
    *unb = 1;
    return 3;
}

typedef struct ent {
    json_t *e, *table, *primary;
    const char *name;
    json_t *fields;
    json_t *key_fields; /* names used by the primary key (object name -> true) */
    int sharded;
} ent;

static void check_field_flags(V *v, ent *x)
{
    size_t i;
    json_t *f;
    json_t *version = NULL, *ttl = NULL;
    json_array_foreach(x->fields, i, f) {
        const char *name = ddbgen_jstr(f, "name");
        const char *type = ddbgen_jstr(f, "type");
        const char *num = ddbgen_jstr(f, "num");
        const char *ctype = ddbgen_jstr(f, "ctype");
        int is_int = !strcmp(type, "N") && is_integer_num(num);
        json_t *uuid = json_object_get(f, "uuid"), *auto_id = json_object_get(f, "auto_id");
        json_t *derived = json_object_get(f, "derived"), *ver = json_object_get(f, "version");
        json_t *tl = json_object_get(f, "ttl");
        const char *attr = ddbgen_jstr(f, "attr");
        ddbgen_loc al = ddbgen_loc_of(f, "attr_loc");
        if (!al.file)
            al = LOC(f);
        if (attr[0] && is_key_attr(x->table, attr))
            ERR(v, al,
                "field '%s' of '%s' is stored as '%s', a key attribute of table '%s'; key "
                "attributes are written from DDB_KEY templates, so store the field under another "
                "name with DDB_ATTR",
                name, x->name, attr, ddbgen_jstr(x->table, "name"));
        else if (attr[0] && !strcmp(attr, ddbgen_jstr(x->table, "type_attribute")))
            ERR(v, al,
                "field '%s' of '%s' is stored as '%s', the type attribute of table '%s'; store it "
                "under another name with DDB_ATTR",
                name, x->name, attr, ddbgen_jstr(x->table, "name"));
        if (uuid) {
            long long ml = ddbgen_jint(f, "max_len", -1);
            if (strcmp(type, "S") != 0)
                ERR(v, LOC(uuid), "DDB_UUID field '%s' must be a string (char[37]), not %s", name,
                    ctype);
            else if (strchr(ctype, '*'))
                ERR(v, LOC(uuid),
                    "DDB_UUID field '%s' is %s; the write fills it, and a pointer would point into "
                    "the call's memory after it returns: declare it char[37]",
                    name, ctype);
            else if (!ddbgen_jtrue(f, "optional") && ml < 36)
                ERR(v, LOC(uuid), "DDB_UUID field '%s' is %s; a UUID needs 36 bytes: use char[37]",
                    name, ctype);
        }
        if (auto_id && !is_int)
            ERR(v, LOC(auto_id), "DDB_AUTO_ID field '%s' must be an integer, not %s", name, ctype);
        if (ver) {
            if (!is_int)
                ERR(v, LOC(ver), "DDB_VERSION field '%s' must be an integer, not %s", name, ctype);
            if (version) {
                long h = ERR(v, LOC(ver), "'%s' has two DDB_VERSION fields", x->name);
                NOTE(v, h, LOC(json_object_get(version, "version")), "the first is '%s'",
                     ddbgen_jstr(version, "name"));
            } else
                version = f;
        }
        if (tl) {
            if (!is_int)
                ERR(v, LOC(tl), "DDB_TTL field '%s' must be an integer (epoch seconds), not %s", name,
                    ctype);
            if (ttl) {
                long h = ERR(v, LOC(tl), "'%s' has two DDB_TTL fields", x->name);
                NOTE(v, h, LOC(json_object_get(ttl, "ttl")), "the first is '%s'",
                     ddbgen_jstr(ttl, "name"));
            } else
                ttl = f;
        }
        const char *fill[3] = {uuid ? "DDB_UUID" : NULL, auto_id ? "DDB_AUTO_ID" : NULL,
                               derived ? "DDB_DERIVED" : NULL};
        const char *first = NULL;
        for (int k = 0; k < 3; k++) {
            if (!fill[k])
                continue;
            if (first)
                ERR(v, LOC(f), "field '%s' has both %s and %s; a field gets its value one way", name,
                    first, fill[k]);
            first = fill[k];
        }
        if (ver && first)
            ERR(v, LOC(f), "DDB_VERSION field '%s' cannot also have %s", name, first);
        if (derived) {
            int ok_type = !strcmp(type, "S") || is_int;
            if (!ok_type)
                ERR(v, LOC(derived), "DDB_DERIVED field '%s' must be a string or an integer, not %s",
                    name, ctype);
            else if (strchr(ctype, '*'))
                ERR(v, LOC(derived),
                    "DDB_DERIVED field '%s' is %s; the write fills it, and a pointer would point "
                    "into the call's memory after it returns: declare it char[N], N larger than "
                    "its template can render",
                    name, ctype);
        }
    }
}

/* Templates of DDB_DERIVED and DDB_AUTO_ID fields. */
static void check_field_templates(V *v, ent *x)
{
    size_t i;
    json_t *f;
    char what[512];
    json_array_foreach(x->fields, i, f) {
        const char *name = ddbgen_jstr(f, "name");
        json_t *derived = json_object_get(f, "derived"), *auto_id = json_object_get(f, "auto_id");
        if (derived) {
            snprintf(what, sizeof what, "the DDB_DERIVED template of field '%s'", name);
            tinfo ti;
            resolve_template(v, x->e, derived, T_DERIVED, what, name, &ti);
            if (ti.ok)
                json_object_set(derived, "uses", ti.top_fields);
            const char *type = ddbgen_jstr(f, "type");
            json_t *segs = json_object_get(derived, "segments");
            json_t *seg0 = json_array_get(segs, 0);
            if (ti.ok && !strcmp(type, "N")) {
                const char *part = ddbgen_jstr(seg0, "part");
                int digits = json_array_size(segs) == 1 && ddbgen_jstr(seg0, "field") &&
                             (ti.numeric || (part && strcmp(part, "quarter") != 0));
                if (!digits)
                    ERR(v, LOC(derived),
                        "field '%s' is a number, but its DDB_DERIVED template \"%s\" renders text; "
                        "use one integer field or one of |year, |month, |day",
                        name, ddbgen_jstr(derived, "template"));
            } else if (ti.ok && !strcmp(type, "S") && !ti.unbounded && json_object_get(f, "max_len") &&
                       ti.bounded > ddbgen_jint(f, "max_len", 0)) {
                ERR(v, LOC(derived),
                    "the DDB_DERIVED template \"%s\" can render %lld bytes, but field '%s' (%s) "
                    "holds at most %lld",
                    ddbgen_jstr(derived, "template"), ti.bounded, name, ddbgen_jstr(f, "ctype"),
                    ddbgen_jint(f, "max_len", 0));
            }
            tinfo_free(&ti);
        }
        if (auto_id) {
            snprintf(what, sizeof what, "the DDB_AUTO_ID scope of field '%s'", name);
            tinfo ti;
            resolve_template(v, x->e, auto_id, T_AUTO_ID, what, name, &ti);
            if (ti.ok)
                json_object_set(auto_id, "uses", ti.top_fields);
            tinfo_free(&ti);
        }
    }
}

/* Per-table key attribute types: attr -> {"type", "loc", "entity", "template"}. */
static void note_key_type(V *v, json_t *types, const char *attr, const char *type, const json_t *t,
                          const char *entity)
{
    json_t *prev = json_object_get(types, attr);
    if (!prev) {
        json_object_set_new(types, attr,
                            json_pack("{s:s, s:O, s:s, s:s}", "type", type, "loc",
                                      json_object_get(t, "loc"), "entity", entity, "template",
                                      ddbgen_jstr(t, "template")));
        return;
    }
    if (strcmp(ddbgen_jstr(prev, "type"), type) != 0) {
        long h = ERR(v, LOC(t),
                     "key attribute '%s' would hold %s here (\"%s\" of '%s') but %s for '%s' "
                     "(\"%s\"); all entities must agree on a key attribute's type",
                     attr, type_words(type), ddbgen_jstr(t, "template"), entity,
                     type_words(ddbgen_jstr(prev, "type")), ddbgen_jstr(prev, "entity"),
                     ddbgen_jstr(prev, "template"));
        NOTE(v, h, LOC(prev), "'%s' makes '%s' %s here", ddbgen_jstr(prev, "entity"), attr,
             type_words(ddbgen_jstr(prev, "type")));
    }
}

/* DDB_WRITE_SHARDS on key k (index ix): a count the runtime supports, an
 * explicit way to pick the shard, and a partition key the suffix can go on. */
static void check_write_shards(V *v, ent *x, const json_t *k, const json_t *ix)
{
    const json_t *ws = json_object_get(k, "write_shards");
    if (!ws)
        return;
    const char *iname = ddbgen_jstr(k, "index"), *by = ddbgen_jstr(ws, "by");
    long long n = ddbgen_jint(ws, "count", 0);
    ddbgen_loc cl = json_object_get(ws, "count_loc") ? ddbgen_loc_of(ws, "count_loc") : LOC(ws);
    if (n < 2 || n > DDB_ENT_MAX_WRITE_SHARDS)
        ERR(v, cl,
            "DDB_WRITE_SHARDS of '%s' on index '%s' asks for %lld shards; give 2 to %d "
            "(DDB_ENT_MAX_WRITE_SHARDS): a query reads every shard",
            x->name, iname, n, DDB_ENT_MAX_WRITE_SHARDS);
    if (strcmp(by, "hash") != 0 && strcmp(by, "random") != 0)
        ERR(v, LOC(ws),
            "DDB_WRITE_SHARDS of '%s' on index '%s' picks the shard by \"%s\"; say \"hash\" (from "
            "the item's primary key, so a read by key finds it) or \"random\" (write-only fan-in)",
            x->name, iname, by);
    else if (!strcmp(by, "random") && !strcmp(iname, "table"))
        ERR(v, LOC(ws),
            "the primary key of '%s' cannot be sharded at random: get, update and delete must find "
            "the item's shard from its key; use \"hash\"",
            x->name);
    if (!strcmp(ddbgen_jstr(ix, "kind"), "lsi"))
        ERR(v, LOC(ws),
            "index '%s' is local: it shares the table's partition key, so shard the primary key "
            "(DDB_WRITE_SHARDS(\"table\", ...)) instead",
            iname);
    const json_t *pk = json_object_get(k, "pk");
    if (!strcmp(ddbgen_jstr(pk, "type"), "N"))
        ERR(v, LOC(pk),
            "the partition key \"%s\" of '%s' on index '%s' is a number, so it cannot carry a shard "
            "suffix; start it with a literal (\"Y{...}\") to make it a string",
            ddbgen_jstr(pk, "template"), x->name, iname);
    size_t i;
    json_t *f;
    int field_shards = 0;
    json_array_foreach(x->fields, i, f) field_shards |= json_object_get(f, "shard") != NULL;
    if (field_shards)
        ERR(v, LOC(ws), "'%s' stores its fields in DDB_SHARD items; write sharding a key of such an "
                        "entity is not supported",
            x->name);
}

/* The names the generated functions give their own arguments and locals
 * (templates/module.*.mustache): a key field becomes a parameter of
 * get/delete, of its access patterns and of their sort-key constructors, so a
 * key field with one of these names would make the generated module fail to
 * compile. */
static const char *const generated_names[] = {"db", "o",  "a",  "out", "err",   "cap",    "tx", "k",     "hi",
                                              "kc", "r",  "rc", "sk",  "sk_op", "exists", "it", "range"};

static void check_key_field_name(V *v, ent *x, const char *field, json_t *reported)
{
    if (json_object_get(reported, field))
        return;
    for (size_t i = 0; i < sizeof generated_names / sizeof *generated_names; i++) {
        if (strcmp(generated_names[i], field) != 0)
            continue;
        json_t *f = ddbgen_jfind(x->fields, "name", field);
        ERR(v, f ? LOC(f) : LOC(x->e),
            "key field '%s' of '%s' would be a parameter of the generated functions, which use the name "
            "'%s' for one of their own: rename the field (its stored name can stay '%s' with DDB_ATTR)",
            field, x->name, field, field);
        json_object_set_new(reported, field, json_true());
        return;
    }
}

/* The type a field gives a key attribute: "S", "N" or "B", or NULL for a
 * field DynamoDB cannot key on (BOOL, M, L, sets). */
static const char *key_part_type(const json_t *f)
{
    const char *t = ddbgen_jstr(f, "type");
    return t && (!strcmp(t, "S") || !strcmp(t, "N") || !strcmp(t, "B")) ? t : NULL;
}

/* DDB_KEY_FIELDS: a global secondary index declared by name alone, keyed on
 * up to four of the entity's own top-level fields a side, each a string,
 * number or binary (DynamoDB's multi-attribute keys, developer guide
 * "Multi-attribute keys pattern"); every entity on the index names the
 * same attributes in the same order.  The first entity's parts are noted
 * on the index (pk_parts / sk_parts) for the others and the later rules. */
static void check_key_fields(V *v, ent *x, json_t *k, json_t *ix, json_t *reported)
{
    const char *iname = ddbgen_jstr(k, "index"), *kind = ddbgen_jstr(ix, "kind");
    if (strcmp(kind, "gsi") != 0) {
        ERR(v, LOC(k),
            "DDB_KEY_FIELDS on %s: DynamoDB keys only global secondary indexes on several attributes; "
            "use DDB_KEY with a template here",
            !strcmp(kind, "primary") ? "the table's primary key" : "a local secondary index");
        return;
    }
    if (json_object_get(ix, "pk") || json_object_get(k, "pk")) {
        long h = ERR(v, LOC(k),
                     "index '%s' of '%s' mixes a key template and a list of fields; declare the index by name "
                     "alone (DDB_GSI(\"%s\")) and key every entity on it with DDB_KEY_FIELDS, or keep its key "
                     "attributes and use DDB_KEY templates",
                     iname, x->name, iname);
        NOTE(v, h, LOC(ix), "index '%s' is declared here", iname);
        return;
    }
    if (json_object_get(k, "write_shards"))
        ERR(v, LOC(json_object_get(k, "write_shards")),
            "DDB_WRITE_SHARDS of '%s' on index '%s': a key of fields has no key string to put a shard "
            "suffix on; add a field to its partition key instead (DynamoDB hashes them together)",
            x->name, iname);
    if (x->sharded)
        ERR(v, LOC(k), "'%s' stores its fields in DDB_SHARD items; DDB_KEY_FIELDS on such an entity is not "
                       "supported: key it with DDB_KEY",
            x->name);
    const char *sides[2] = {"pk_fields", "sk_fields"}, *parts[2] = {"pk_parts", "sk_parts"};
    const json_t *optional = NULL;
    json_t *mine[2] = {json_array(), json_array()};
    for (int w = 0; w < 2; w++) {
        json_t *list = json_object_get(k, sides[w]);
        size_t n, m;
        json_t *r;
        json_array_foreach(list, n, r) {
            const char *name = ddbgen_jstr(r, "field");
            if (n == 4)
                ERR(v, LOC(r),
                    "the %s key of '%s' on index '%s' names %zu fields; DynamoDB allows at most 4 attributes a "
                    "side in a global secondary index's key",
                    w ? "sort" : "partition", x->name, iname, json_array_size(list));
            for (int w2 = 0; w2 <= w; w2++)
                for (m = 0; m < (w2 == w ? n : json_array_size(json_object_get(k, sides[w2]))); m++)
                    if (!strcmp(name, ddbgen_jstr(json_array_get(json_object_get(k, sides[w2]), m), "field"))) {
                        ERR(v, LOC(r), "the key of '%s' on index '%s' names field '%s' twice", x->name, iname,
                            name);
                        w2 = w + 1;
                        break;
                    }
            json_t *f = ddbgen_jfind(x->fields, "name", name);
            if (!f) {
                const char *hint = suggest(x->fields, "name", name);
                ERR(v, LOC(r), "'%s' has no field '%s'%s%s%s (a key of fields names top-level fields)", x->name,
                    name, hint ? "; did you mean '" : "", hint ? hint : "", hint ? "'?" : "");
                continue;
            }
            const char *type = key_part_type(f);
            if (!type) {
                ERR(v, LOC(r),
                    "field '%s' of '%s' is %s (%s); a key attribute is a string, a number or binary (char[N], "
                    "char *, an integer or floating type, ddb_bytes)",
                    name, x->name, ddbgen_jstr(f, "type"), ddbgen_jstr(f, "ctype"));
                continue;
            }
            if (ddbgen_jtrue(f, "optional") && !optional)
                optional = r;
            check_key_field_name(v, x, name, reported);
            json_array_append_new(mine[w], json_pack("{s:s, s:s, s:O}", "attr", ddbgen_jstr(f, "attr"), "type",
                                                     type, "loc", json_object_get(r, "loc")));
        }
    }
    if (optional && !json_object_get(k, "sparse"))
        WARN(v, LOC(optional),
             "field '%s' of '%s' is optional: an item without it is not in index '%s' (DynamoDB leaves out "
             "items that lack a key attribute); add DDB_SPARSE to DDB_KEY_FIELDS if that is meant",
             ddbgen_jstr(optional, "field"), x->name, iname);
    /* every entity on the index keys it on the same attributes */
    for (int w = 0; w < 2; w++) {
        json_t *have = json_object_get(ix, parts[w]);
        if (!json_object_get(ix, "_parts_from")) {
            json_object_set(ix, parts[w], mine[w]);
            continue;
        }
        int same = json_array_size(have) == json_array_size(mine[w]);
        for (size_t n = 0; same && n < json_array_size(have); n++) {
            const json_t *a = json_array_get(have, n), *b = json_array_get(mine[w], n);
            same = !strcmp(ddbgen_jstr(a, "attr"), ddbgen_jstr(b, "attr")) &&
                   !strcmp(ddbgen_jstr(a, "type"), ddbgen_jstr(b, "type"));
        }
        if (!same) {
            const json_t *from = json_object_get(ix, "_parts_from");
            long h = ERR(v, LOC(k),
                         "the %s key of '%s' on index '%s' differs from that of '%s'; every entity on an index "
                         "keyed on fields names attributes of the same names and types in the same order",
                         w ? "sort" : "partition", x->name, iname, ddbgen_jstr(from, "entity"));
            NOTE(v, h, LOC(from), "'%s' keys index '%s' here", ddbgen_jstr(from, "entity"), iname);
        }
    }
    if (!json_object_get(ix, "_parts_from"))
        json_object_set_new(ix, "_parts_from", json_pack("{s:s, s:O}", "entity", x->name, "loc", json_object_get(k, "loc")));
    json_decref(mine[0]);
    json_decref(mine[1]);
}

static void check_keys(V *v, ent *x, json_t *key_types)
{
    json_t *reported = json_object(); /* key fields already refused by name */
    json_t *keys = json_object_get(x->e, "keys");
    json_t *indexes = json_object_get(x->table, "indexes");
    json_t *attr_tmpl = json_object(); /* key attr -> template object, within this entity */
    size_t i;
    json_t *k;
    char what[512];
    /* The primary key first: other keys' checks need its fields. */
    for (int pass = 0; pass < 2; pass++) {
        json_array_foreach(keys, i, k) {
            const char *iname = ddbgen_jstr(k, "index");
            int is_primary = !strcmp(iname, "table");
            if (is_primary != (pass == 0))
                continue;
            json_t *ix = ddbgen_jfind(indexes, "name", iname);
            for (size_t j = 0; j < i; j++) {
                json_t *other = json_array_get(keys, j);
                if (!strcmp(ddbgen_jstr(other, "index"), iname)) {
                    long h = ERR(v, LOC(k), "'%s' has two DDB_KEYs for index '%s'", x->name, iname);
                    NOTE(v, h, LOC(other), "the first is here");
                    ix = NULL;
                    break;
                }
            }
            if (!ix) {
                if (!ddbgen_jfind(indexes, "name", iname)) {
                    ddbgen_buf b = {0};
                    list_names(&b, indexes, "name");
                    const char *s = suggest(indexes, "name", iname);
                    char hint[300] = "";
                    if (s)
                        snprintf(hint, sizeof hint, "did you mean '%s'? ", s);
                    ERR(v, LOC(k), "table '%s' has no index '%s' (%sdeclared: %s)",
                        ddbgen_jstr(x->table, "name"), iname, hint, ddbgen_buf_str(&b));
                    ddbgen_buf_free(&b);
                }
                continue;
            }
            if (json_object_get(k, "pk_fields")) {
                check_key_fields(v, x, k, ix, reported);
                continue;
            }
            if (!json_object_get(ix, "pk")) {
                ERR(v, LOC(k),
                    "index '%s' is declared without key attributes, so it is keyed on its entities' fields: "
                    "key '%s' on it with DDB_KEY_FIELDS(\"%s\", DDB_PK(...), DDB_SK(...))",
                    iname, x->name, iname);
                continue;
            }
            json_t *ixsk = json_object_get(ix, "sk");
            if (ixsk && !json_object_get(k, "sk")) {
                ERR(v, LOC(k),
                    "index '%s' has a sort key ('%s'); give its template too: DDB_KEY(\"%s\", "
                    "<partition template>, <sort template>)",
                    iname, ddbgen_jstr(ixsk, "attr"), iname);
                continue;
            }
            if (!ixsk && json_object_get(k, "sk")) {
                ERR(v, LOC(json_object_get(k, "sk")),
                    "index '%s' has no sort key; drop the sort key template", iname);
                continue;
            }
            const char *which[2] = {"pk", "sk"};
            for (int w = 0; w < 2; w++) {
                json_t *t = json_object_get(k, which[w]);
                if (!t)
                    continue;
                const char *attr = ddbgen_jstr(json_object_get(ix, which[w]), "attr");
                snprintf(what, sizeof what, "the %s key template of '%s' on index '%s'",
                         w ? "sort" : "partition", x->name, iname);
                int flags = T_KEY | (is_primary ? T_PRIMARY : 0) | (w ? T_SORT : 0);
                tinfo ti;
                resolve_template(v, x->e, t, flags, what, NULL, &ti);
                json_object_set_new(t, "attr", json_string(attr));
                json_object_set_new(t, "type", json_string(ti.numeric ? "N" : "S"));
                if (ti.ok) {
                    long long limit = w ? SK_LIMIT : PK_LIMIT;
                    if (!w && json_object_get(k, "write_shards"))
                        ti.bounded += 3; /* the write shard suffix ".63" */
                    if (!ti.numeric && ti.bounded > limit)
                        ERR(v, LOC(t),
                            "%s can render %lld bytes; DynamoDB allows %lld bytes in a %s key: "
                            "lower the bounds of its fields",
                            what, ti.bounded, limit, w ? "sort" : "partition");
                    note_key_type(v, key_types, attr, ti.numeric ? "N" : "S", t, x->name);
                    if (is_primary) {
                        size_t n;
                        json_t *name;
                        json_array_foreach(ti.top_fields, n, name)
                            json_object_set_new(x->key_fields, json_string_value(name), json_true());
                    }
                    json_t *prev = json_object_get(attr_tmpl, attr);
                    if (prev && strcmp(ddbgen_jstr(prev, "template"), ddbgen_jstr(t, "template"))) {
                        long h = ERR(v, LOC(t),
                                     "key attribute '%s' of '%s' is \"%s\" here but \"%s\" on "
                                     "another index; an attribute holds one value per item, so "
                                     "both templates must be the same",
                                     attr, x->name, ddbgen_jstr(t, "template"),
                                     ddbgen_jstr(prev, "template"));
                        NOTE(v, h, LOC(prev), "'%s' is written from this template", attr);
                    } else if (!prev) {
                        json_object_set(attr_tmpl, attr, t);
                    }
                    json_object_set(t, "uses", ti.top_fields);
                    size_t n;
                    json_t *name;
                    json_array_foreach(ti.top_fields, n, name)
                        check_key_field_name(v, x, json_string_value(name), reported);
                }
                tinfo_free(&ti);
            }
            check_write_shards(v, x, k, ix);
        }
    }
    json_decref(attr_tmpl);
    json_decref(reported);
    if (!ddbgen_jfind(keys, "index", "table"))
        ERR(v, LOC(x->e),
            "entity '%s' has no primary key: add DDB_KEY(\"table\", \"<partition template>\"%s)",
            x->name, json_object_get(x->primary, "sk") ? ", \"<sort template>\"" : "");
}

static void check_shards(V *v, ent *x)
{
    json_t *shards = json_array();
    json_object_set_new(x->e, "shards", shards);
    size_t i;
    json_t *f;
    json_t *first_shard = NULL;
    json_array_foreach(x->fields, i, f) {
        int is_key = json_object_get(x->key_fields, ddbgen_jstr(f, "name")) != NULL;
        json_object_set_new(f, "key", json_boolean(is_key));
        json_t *sh = json_object_get(f, "shard");
        if (sh && !first_shard)
            first_shard = sh;
    }
    x->sharded = first_shard != NULL;
    if (!x->sharded) {
        if (json_object_get(x->e, "shard_suffix_loc"))
            WARN(v, ddbgen_loc_of(x->e, "shard_suffix_loc"),
                 "DDB_SHARD_SUFFIX has no effect: no field of '%s' has DDB_SHARD", x->name);
        return;
    }
    if (!json_object_get(x->primary, "sk"))
        ERR(v, LOC(first_shard),
            "'%s' is sharded, but table '%s' has no sort key to append the shard id to", x->name,
            ddbgen_jstr(x->table, "name"));
    if (!ddbgen_jstr(x->e, "shard_suffix")[0])
        ERR(v, ddbgen_loc_of(x->e, "shard_suffix_loc"), "empty DDB_SHARD_SUFFIX");
    ddbgen_buf keys = {0};
    json_array_foreach(x->fields, i, f) {
        if (ddbgen_jtrue(f, "key")) {
            if (keys.len)
                ddbgen_buf_puts(&keys, ", ");
            ddbgen_buf_puts(&keys, ddbgen_jstr(f, "name"));
        }
    }
    json_array_foreach(x->fields, i, f) {
        const char *name = ddbgen_jstr(f, "name");
        json_t *sh = json_object_get(f, "shard");
        if (ddbgen_jtrue(f, "key")) {
            if (sh)
                ERR(v, LOC(sh),
                    "field '%s' is part of the primary key, which every shard carries; remove its "
                    "DDB_SHARD",
                    name);
            continue;
        }
        if (!sh) {
            ERR(v, LOC(f),
                "field '%s' of '%s' has no DDB_SHARD: once a field of an entity is sharded, every "
                "field outside the primary key must name its shard (primary key fields: %s)",
                name, x->name, keys.len ? ddbgen_buf_str(&keys) : "none");
            continue;
        }
        const char *id = ddbgen_jstr(sh, "id");
        if (!id[0]) {
            ERR(v, LOC(sh), "empty shard id on field '%s'", name);
            continue;
        }
        json_t *s = ddbgen_jfind(shards, "id", id);
        if (!s && json_array_size(shards) == DDB_ENT_MAX_SHARDS) {
            ERR(v, LOC(sh),
                "shard '%s' of field '%s' is one too many: '%s' already has %d shards, the most an "
                "entity can have (DDB_ENT_MAX_SHARDS); put more fields in each shard",
                id, name, x->name, DDB_ENT_MAX_SHARDS);
            continue;
        }
        if (!s) {
            s = json_pack("{s:s, s:[]}", "id", id, "fields");
            json_array_append_new(shards, s);
        }
        json_array_append_new(json_object_get(s, "fields"), json_string(name));
    }
    ddbgen_buf_free(&keys);
    /* A secondary index key is carried by one shard item. */
    json_t *k;
    json_array_foreach(json_object_get(x->e, "keys"), i, k) {
        if (!strcmp(ddbgen_jstr(k, "index"), "table") || json_array_size(shards) == 0)
            continue;
        const char *shard = NULL, *shard_field = NULL; /* the first sharded field's */
        const char *which[2] = {"pk", "sk"};
        for (int w = 0; w < 2; w++) {
            size_t n;
            json_t *name;
            json_array_foreach(json_object_get(json_object_get(k, which[w]), "uses"), n, name) {
                json_t *fld = ddbgen_jfind(x->fields, "name", json_string_value(name));
                const char *id = ddbgen_jstr(json_object_get(fld, "shard"), "id");
                if (!id || ddbgen_jtrue(fld, "key"))
                    continue;
                if (shard && strcmp(shard, id) != 0) {
                    ERR(v, LOC(k),
                        "the key of '%s' on index '%s' uses '%s' (shard %s) and '%s' (shard %s); an "
                        "index key must come from one shard",
                        x->name, ddbgen_jstr(k, "index"), shard_field, shard, json_string_value(name),
                        id);
                } else {
                    shard = id;
                    shard_field = json_string_value(name);
                }
            }
        }
    }
}

/* Item size: DynamoDB counts attribute names and values. */
static void check_size(V *v, ent *x)
{
    long long base = (long long)strlen(ddbgen_jstr(x->table, "type_attribute")) +
                     (long long)strlen(x->name);
    size_t i;
    json_t *k, *f;
    json_array_foreach(json_object_get(x->e, "keys"), i, k) {
        const char *which[2] = {"pk", "sk"};
        for (int w = 0; w < 2; w++) {
            json_t *t = json_object_get(k, which[w]);
            if (!t || !json_object_get(t, "segments"))
                continue;
            long long len = 0;
            size_t n;
            json_t *seg;
            json_array_foreach(json_object_get(t, "segments"), n, seg) {
                if (ddbgen_jstr(seg, "lit"))
                    len += (long long)strlen(ddbgen_jstr(seg, "lit"));
                else if (ddbgen_jstr(seg, "part"))
                    len += !strcmp(ddbgen_jstr(seg, "part"), "year") ? 4 : 2;
                else if (!strcmp(ddbgen_jstr(seg, "type"), "N"))
                    len += num_digits(ddbgen_jstr(seg, "num"));
                else if (!ddbgen_jtrue(seg, "optional")) {
                    json_t *fld = ddbgen_jfind(x->fields, "name", ddbgen_jstr(seg, "field"));
                    len += fld ? ddbgen_jint(fld, "max_len", 0) : 0;
                }
            }
            base += (long long)strlen(ddbgen_jstr(t, "attr") ? ddbgen_jstr(t, "attr") : "") + len;
        }
    }
    json_t *shards = json_object_get(x->e, "shards");
    size_t nshards = x->sharded ? json_array_size(shards) : 1;
    for (size_t s = 0; s < nshards; s++) {
        const char *id = x->sharded ? ddbgen_jstr(json_array_get(shards, s), "id") : NULL;
        long long total = base, biggest = -1;
        json_t *big = NULL;
        json_array_foreach(x->fields, i, f) {
            const char *fid = ddbgen_jstr(json_object_get(f, "shard"), "id");
            if (id && !ddbgen_jtrue(f, "key") && (!fid || strcmp(fid, id) != 0))
                continue;
            int unb = 0;
            long long sz = (long long)strlen(ddbgen_jstr(f, "attr")) + value_size(v, f, 0, &unb);
            total += sz;
            if (sz > biggest) {
                biggest = sz;
                big = f;
            }
        }
        if (total > ITEM_LIMIT) {
            char which[300];
            if (id)
                snprintf(which, sizeof which, "shard '%s' of '%s'", id, x->name);
            else
                snprintf(which, sizeof which, "'%s'", x->name);
            ERR(v, LOC(x->e),
                "items of %s can reach %lld bytes, over DynamoDB's 400 KB item limit (%d bytes); "
                "the largest field is '%s' (%s, up to %lld bytes): lower its bound%s",
                which, total, ITEM_LIMIT, ddbgen_jstr(big, "name"), ddbgen_jstr(big, "ctype"),
                biggest, id ? "" : " or split the entity into shards with DDB_SHARD");
        }
    }
}

static void check_entity_collections(V *v, ent *x)
{
    size_t i;
    json_t *c;
    json_t *indexes = json_object_get(x->table, "indexes");
    json_array_foreach(json_object_get(x->e, "collections"), i, c) {
        const char *iname = ddbgen_jstr(c, "index");
        if (!ddbgen_jfind(indexes, "name", iname)) {
            ddbgen_buf b = {0};
            list_names(&b, indexes, "name");
            ERR(v, LOC(c), "collection '%s': table '%s' has no index '%s' (declared: %s)",
                ddbgen_jstr(c, "name"), ddbgen_jstr(x->table, "name"), iname, ddbgen_buf_str(&b));
            ddbgen_buf_free(&b);
        } else if (!ddbgen_jfind(json_object_get(x->e, "keys"), "index", iname)) {
            ERR(v, LOC(c),
                "'%s' joins collection '%s' on index '%s' but has no DDB_KEY(\"%s\", ...): members "
                "need a key on the collection's index",
                x->name, ddbgen_jstr(c, "name"), iname, iname);
        } else if (!json_object_get(ddbgen_jfind(indexes, "name", iname), "pk")) {
            ERR(v, LOC(c),
                "collection '%s' on index '%s': that index is keyed on its entities' fields, and a collection "
                "needs a key template that members share; read its entities with their access patterns",
                ddbgen_jstr(c, "name"), iname);
        }
        for (size_t j = 0; j < i; j++) {
            json_t *o = json_array_get(json_object_get(x->e, "collections"), j);
            if (!strcmp(ddbgen_jstr(o, "name"), ddbgen_jstr(c, "name")))
                ERR(v, LOC(c), "'%s' joins collection '%s' twice", x->name, ddbgen_jstr(c, "name"));
        }
    }
}

/* ---- across entities ---------------------------------------------------- */

/* The key's templates resolved without error (they then list their fields). */
static int resolved(const json_t *key)
{
    json_t *pk = json_object_get(key, "pk"), *sk = json_object_get(key, "sk");
    return key && json_object_get(pk, "uses") && (!sk || json_object_get(sk, "uses"));
}

/* "ORG#{S}" for "ORG#{org}": the key's structure without field names. */
static void shape_of(ddbgen_buf *b, const json_t *segs)
{
    size_t i;
    json_t *s;
    json_array_foreach(segs, i, s) {
        const char *lit = ddbgen_jstr(s, "lit");
        if (lit) {
            for (const char *p = lit; *p; p++)
                ddbgen_buf_puts(b, *p == '{' ? "{{" : *p == '}' ? "}}" : (char[2]){*p, 0});
            continue;
        }
        ddbgen_buf_printf(b, "{%s", ddbgen_jstr(s, "type"));
        if (ddbgen_jint(s, "pad", 0))
            ddbgen_buf_printf(b, ":0%lld", ddbgen_jint(s, "pad", 0));
        if (ddbgen_jstr(s, "part"))
            ddbgen_buf_printf(b, "|%s", ddbgen_jstr(s, "part"));
        if (ddbgen_jstr(s, "case"))
            ddbgen_buf_printf(b, "|%s", ddbgen_jstr(s, "case"));
        ddbgen_buf_puts(b, "}");
    }
}

/* The members of a collection live on one index and share the shape of
 * their partition key. */
static void check_collections(V *v)
{
    json_t *first_member = json_object(); /* "table\x1fname" -> {entity, coll, key} */
    size_t i, j;
    json_t *e, *c;
    json_array_foreach(v->entities, i, e) {
        json_array_foreach(json_object_get(e, "collections"), j, c) {
            const char *table = ddbgen_jstr(e, "table");
            const char *name = ddbgen_jstr(c, "name");
            const char *iname = ddbgen_jstr(c, "index");
            json_t *key = ddbgen_jfind(json_object_get(e, "keys"), "index", iname);
            json_t *pk = json_object_get(key, "pk");
            if (!resolved(key))
                continue;
            char id[600];
            snprintf(id, sizeof id, "%s\x1f%s", table, name);
            json_t *first = json_object_get(first_member, id);
            if (!first) {
                json_object_set_new(first_member, id,
                                    json_pack("{s:O, s:O, s:O, s:O}", "entity", e, "coll", c, "pk", pk, "key", key));
                continue;
            }
            json_t *fe = json_object_get(first, "entity"), *fc = json_object_get(first, "coll");
            if (strcmp(ddbgen_jstr(fc, "index"), iname) != 0) {
                long h = ERR(v, LOC(c),
                             "collection '%s' is on index '%s' for '%s' but on '%s' for '%s'; a "
                             "collection lives on one index",
                             name, iname, ddbgen_jstr(e, "name"), ddbgen_jstr(fc, "index"),
                             ddbgen_jstr(fe, "name"));
                NOTE(v, h, LOC(fc), "'%s' joins it here", ddbgen_jstr(fe, "name"));
                continue;
            }
            ddbgen_buf a = {0}, b = {0};
            shape_of(&a, json_object_get(pk, "segments"));
            shape_of(&b, json_object_get(json_object_get(first, "pk"), "segments"));
            if (strcmp(ddbgen_buf_str(&a), ddbgen_buf_str(&b)) != 0) {
                long h = ERR(v, LOC(c),
                             "'%s' cannot join collection '%s': its partition key \"%s\" on index "
                             "'%s' is shaped %s, but '%s' has \"%s\" (%s); members of a collection "
                             "share one partition, so their partition key templates must have the "
                             "same literals and field types",
                             ddbgen_jstr(e, "name"), name, ddbgen_jstr(pk, "template"), iname,
                             ddbgen_buf_str(&a), ddbgen_jstr(fe, "name"),
                             ddbgen_jstr(json_object_get(first, "pk"), "template"), ddbgen_buf_str(&b));
                NOTE(v, h, LOC(fc), "'%s' joins collection '%s' here", ddbgen_jstr(fe, "name"), name);
            }
            ddbgen_buf_free(&a);
            ddbgen_buf_free(&b);
            /* one partition, one layout: a collection query reads the lead member's shards */
            const json_t *ws = json_object_get(key, "write_shards");
            const json_t *fws = json_object_get(json_object_get(first, "key"), "write_shards");
            long long n = ws ? ddbgen_jint(ws, "count", 0) : 1, fn = fws ? ddbgen_jint(fws, "count", 0) : 1;
            if (n != fn) {
                long h = ERR(v, LOC(c),
                             "'%s' cannot join collection '%s': its key on index '%s' has %lld write shards "
                             "but '%s' has %lld; members of a collection share one partition, so they must "
                             "spread it over the same shards (the same DDB_WRITE_SHARDS count)",
                             ddbgen_jstr(e, "name"), name, iname, n, ddbgen_jstr(fe, "name"), fn);
                NOTE(v, h, LOC(fc), "'%s' joins collection '%s' here", ddbgen_jstr(fe, "name"), name);
            }
        }
    }
    json_decref(first_member);
}

static void check_collisions(V *v)
{
    size_t i, j;
    json_t *a, *b;
    json_array_foreach(v->entities, i, b) {
        json_t *kb = ddbgen_jfind(json_object_get(b, "keys"), "index", "table");
        if (!resolved(kb))
            continue;
        json_array_foreach(v->entities, j, a) {
            if (j >= i)
                break;
            if (strcmp(ddbgen_jstr(a, "table"), ddbgen_jstr(b, "table")) != 0)
                continue;
            json_t *ka = ddbgen_jfind(json_object_get(a, "keys"), "index", "table");
            char *sa = NULL, *sb = NULL;
            if (!resolved(ka) || !ddbgen__find_collision(a, ka, b, kb, &sa, &sb))
                continue;
            char shard_a[400] = "", shard_b[400] = "";
            if (sa[0])
                snprintf(shard_a, sizeof shard_a, " (shard item: sort key + \"%s\")", sa);
            if (sb[0])
                snprintf(shard_b, sizeof shard_b, " (shard item: sort key + \"%s\")", sb);
            free(sa);
            free(sb);
            json_t *skb = json_object_get(kb, "sk"), *ska = json_object_get(ka, "sk");
            char upper[64];
            size_t n = 0;
            for (const char *p = ddbgen_jstr(b, "name"); *p && n < sizeof upper - 1; p++)
                upper[n++] = (*p >= 'a' && *p <= 'z') ? (char)(*p - 32) : *p;
            upper[n] = '\0';
            long h = ERR(v, LOC(kb),
                         "primary keys of '%s' and '%s' can collide: no literal text tells \"%s\"%s%s%s%s "
                         "from \"%s\"%s%s%s%s; start the %s key with a literal that only '%s' uses, "
                         "e.g. \"%s#\"",
                         ddbgen_jstr(b, "name"), ddbgen_jstr(a, "name"),
                         ddbgen_jstr(json_object_get(kb, "pk"), "template"), skb ? " / \"" : "",
                         skb ? ddbgen_jstr(skb, "template") : "", skb ? "\"" : "", shard_b,
                         ddbgen_jstr(json_object_get(ka, "pk"), "template"), ska ? " / \"" : "",
                         ska ? ddbgen_jstr(ska, "template") : "", ska ? "\"" : "", shard_a,
                         skb ? "sort" : "partition", ddbgen_jstr(b, "name"), upper);
            NOTE(v, h, LOC(ka), "the primary key of '%s' is declared here", ddbgen_jstr(a, "name"));
        }
    }
}

/* The first DDB_TTL field of entity e, or NULL. */
static const json_t *ttl_field_of(const json_t *e)
{
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(e, "fields"), i, f) if (json_object_get(f, "ttl")) return f;
    return NULL;
}

/* DynamoDB has one TTL attribute per table: the entities of a table that
 * have a DDB_TTL field must keep it in the same attribute. */
static void check_table_ttl(V *v)
{
    size_t i, j;
    json_t *t, *e;
    json_array_foreach(v->tables, i, t) {
        const json_t *first = NULL, *first_entity = NULL;
        json_array_foreach(v->entities, j, e) {
            const json_t *f = ttl_field_of(e);
            if (!f || strcmp(ddbgen_jstr(e, "table"), ddbgen_jstr(t, "cname")) != 0)
                continue;
            if (!first) {
                first = f;
                first_entity = e;
            } else if (strcmp(ddbgen_jstr(f, "attr"), ddbgen_jstr(first, "attr")) != 0) {
                ERR(v, LOC(json_object_get(f, "ttl")),
                    "entity '%s' keeps its DDB_TTL in attribute '%s', but '%s' of the same table "
                    "uses '%s' (a table has one TTL attribute)",
                    ddbgen_jstr(e, "name"), ddbgen_jstr(f, "attr"), ddbgen_jstr(first_entity, "name"),
                    ddbgen_jstr(first, "attr"));
            }
        }
    }
}

/* Warnings about declared parts no entity uses. */
static void check_table_use(V *v)
{
    /* Hints about unused parts only help once the schema is otherwise right. */
    int quiet = v->d->errors > 0;
    size_t i, k;
    json_t *t, *x;
    json_array_foreach(v->tables, i, t) {
        size_t n, members = 0;
        json_t *e;
        json_array_foreach(v->entities, n, e) members +=
            !strcmp(ddbgen_jstr(e, "table"), ddbgen_jstr(t, "cname"));
        if (members == 0 && !quiet)
            WARN(v, LOC(t), "table '%s' has no entities", ddbgen_jstr(t, "name"));
        json_array_foreach(json_object_get(t, "indexes"), k, x) {
            int used = 0;
            json_array_foreach(v->entities, n, e) {
                if (!strcmp(ddbgen_jstr(e, "table"), ddbgen_jstr(t, "cname")) &&
                    ddbgen_jfind(json_object_get(e, "keys"), "index", ddbgen_jstr(x, "name")))
                    used = 1;
            }
            if (!used && !json_object_get(x, "pk"))
                ERR(v, LOC(x),
                    "index '%s' is declared without key attributes, so its key comes from its entities' "
                    "DDB_KEY_FIELDS, and no entity has one: name its key attributes or key an entity on it",
                    ddbgen_jstr(x, "name"));
            else if (!used && !quiet && members > 0 &&
                strcmp(ddbgen_jstr(x, "kind"), "primary"))
                WARN(v, LOC(x), "no entity has a DDB_KEY for index '%s'", ddbgen_jstr(x, "name"));
        }
        json_array_foreach(json_object_get(t, "indexes"), k, x) {
            json_t *proj = json_object_get(x, "projection");
            size_t a;
            json_t *attr;
            json_array_foreach(json_object_get(proj, "attributes"), a, attr) {
                const char *an = json_string_value(attr);
                int found = 0;
                json_array_foreach(v->entities, n, e) {
                    if (strcmp(ddbgen_jstr(e, "table"), ddbgen_jstr(t, "cname")) == 0 &&
                        ddbgen_jfind(json_object_get(e, "fields"), "attr", an))
                        found = 1;
                }
                if (!found && !quiet && !is_key_attr(t, an) &&
                    strcmp(an, ddbgen_jstr(t, "type_attribute")))
                    WARN(v, LOC(proj),
                         "DDB_PROJECT_INCLUDE of index '%s' names '%s', which no entity of table "
                         "'%s' stores",
                         ddbgen_jstr(x, "name"), an, ddbgen_jstr(t, "name"));
            }
        }
    }
}

int ddbgen__validate(const json_t *declared, ddbgen_diags *d)
{
    json_t *model = json_deep_copy(declared);
    if (!model) {
        ddbgen_loc none = {NULL, 0, 0};
        ddbgen_diag_add(d, DDBGEN_ERROR, none, "out of memory");
        return DDBGEN_EUSAGE;
    }
    V v;
    memset(&v, 0, sizeof v);
    v.d = d;
    v.model = model;
    v.tables = json_object_get(model, "tables");
    v.structs = json_object_get(model, "structs");
    v.entities = json_object_get(model, "entities");
    v.table_by_cname = json_object();
    v.struct_by_cname = json_object();

    if (json_array_size(v.tables) == 0) {
        ddbgen_loc l = {ddbgen_jstr(model, "schema"), 0, 0};
        ERR(&v, l, "no DDB_TABLE(...) found: a schema declares at least one table");
    }
    check_tables(&v);
    check_structs(&v);
    ddbgen__check_renames(model, d);

    json_t *types_by_table = json_object();
    json_t *entity_by_name = json_object();
    json_t *entity_by_cname = json_object();
    size_t i;
    json_t *e;
    json_array_foreach(v.entities, i, e) {
        ent x;
        memset(&x, 0, sizeof x);
        x.e = e;
        v.cur_entity = e;
        v.invalid_fields = json_object_get(e, "_invalid_fields");
        x.name = ddbgen_jstr(e, "name");
        x.fields = json_object_get(e, "fields");
        const char *table = ddbgen_jstr(e, "table");
        json_t *prev = json_object_get(entity_by_name, x.name);
        if (!x.name[0]) {
            ERR(&v, LOC(e), "empty entity name");
        } else if (prev) {
            long h = ERR(&v, LOC(e),
                         "duplicate entity name '%s' (struct '%s'); the name is stored in every "
                         "item's type attribute, so it must be unique",
                         x.name, ddbgen_jstr(e, "cname"));
            NOTE(&v, h, LOC(prev), "'%s' is first declared by struct '%s' here", x.name,
                 ddbgen_jstr(prev, "cname"));
        } else {
            json_object_set(entity_by_name, x.name, e);
        }
        json_t *prevc = json_object_get(entity_by_cname, ddbgen_jstr(e, "cname"));
        if (prevc && prevc != prev) {
            long h = ERR(&v, LOC(e), "duplicate entity C name '%s'", ddbgen_jstr(e, "cname"));
            NOTE(&v, h, LOC(prevc), "first used here");
        } else
            json_object_set(entity_by_cname, ddbgen_jstr(e, "cname"), e);
        x.table = json_object_get(v.table_by_cname, table);
        if (!x.table) {
            ddbgen_buf b = {0};
            list_names(&b, v.tables, "cname");
            ERR(&v, LOC(e), "entity '%s' names table '%s', which is not declared (declared: %s)",
                x.name, table, b.len ? ddbgen_buf_str(&b) : "none");
            ddbgen_buf_free(&b);
            continue;
        }
        x.primary = primary_of(x.table);
        if (!x.primary)
            continue;
        json_t *types = json_object_get(types_by_table, table);
        if (!types) {
            types = json_object();
            json_object_set_new(types_by_table, table, types);
        }
        x.key_fields = json_object();
        check_attr_names(&v, x.fields, x.name);
        check_struct_refs(&v, x.fields);
        check_field_flags(&v, &x);
        check_keys(&v, &x, types);
        check_field_templates(&v, &x);
        check_shards(&v, &x);
        check_entity_collections(&v, &x);
        check_size(&v, &x);
        ddbgen__check_writes(v.d, e, x.table);
        json_decref(x.key_fields);
    }
    v.cur_entity = v.invalid_fields = NULL;
    check_collections(&v);
    check_collisions(&v);
    ddbgen__check_unique_space(v.d, v.tables, v.entities);
    check_table_ttl(&v);
    check_table_use(&v);
    if (d->errors == 0)
        ddbgen__heat(model, d); /* the keys are resolved: warn about hot partitions */
    json_decref(types_by_table);
    json_decref(entity_by_name);
    json_decref(entity_by_cname);
    json_decref(v.table_by_cname);
    json_decref(v.struct_by_cname);
    json_decref(model);
    return d->errors == 0 ? DDBGEN_OK : DDBGEN_ESCHEMA;
}
