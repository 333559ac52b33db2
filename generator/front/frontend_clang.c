/* frontend_clang.c — the libclang front-end: a decorated C header in, the
 * declared model (docs/MODEL.md) out.
 *
 * The header is parsed as C11 with DDB_SCHEMA_PARSE defined, so every
 * decorator of <ddb/schema.h> is an annotate attribute (see that header).
 * Values come from the annotation strings and the table's string literals;
 * positions come from the file locations libclang reports, and for the
 * arguments of entity and field decorators from tokenizing the decorator's
 * source range, so a diagnostic can point at the exact template hole.
 * Only what the header declares is recorded here; validate.c checks it and
 * derives the rest.
 */
#include "front.h"

#include <clang-c/Index.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#ifndef DDBGEN_RUNTIME_INCLUDE
#define DDBGEN_RUNTIME_INCLUDE "runtime/include"
#endif

#define SEP '\x1f'

typedef struct fe {
    ddbgen_context *cx;
    CXTranslationUnit tu;
    json_t *model, *tables, *entities, *structs;
    json_t *struct_state; /* canonical C type -> "busy" | struct cname */
    CXCursor *dup_tables; /* DDB_TABLEs repeating an earlier one's C name (tables_twice) */
    size_t n_dup_tables;
} fe;

/* One decorator found on a declaration. */
typedef struct deco {
    char *kind;        /* "key", "attr", ... (annotation without "ddb:") */
    char **args;
    size_t nargs;
    json_t *loc;       /* of the decorator */
    json_t **arg_locs; /* of each argument (the literal's opening quote) */
    int *verbatim;     /* argument is one plain literal: columns map 1:1 */
    /* of each argument, the identifiers written inside its parentheses
     * (DDB_PK(country, city): country, city), as an array of locations;
     * empty when the decorator's tokens could not be read */
    json_t **inner_locs;
} deco;

typedef struct decos {
    deco *items;
    size_t count;
} decos;

/* ---- locations and diagnostics --------------------------------------- */

static json_t *loc_of_cx(CXSourceLocation l)
{
    CXFile file;
    unsigned line, col;
    clang_getFileLocation(l, &file, &line, &col, NULL);
    if (!file)
        return ddbgen_jloc(NULL, 0, 0);
    CXString name = clang_getFileName(file);
    char *shown = ddbgen_display_path(clang_getCString(name));
    clang_disposeString(name);
    json_t *j = ddbgen_jloc(shown, (int)line, (int)col);
    free(shown);
    return j;
}

static void verr(fe *f, ddbgen_severity sev, const json_t *loc, const char *fmt, va_list ap)
{
    ddbgen_diag_vadd(&f->cx->diags, sev, ddbgen_loc_from(loc), fmt, ap);
}

static void __attribute__((format(printf, 3, 4))) err(fe *f, const json_t *loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verr(f, DDBGEN_ERROR, loc, fmt, ap);
    va_end(ap);
}

static char *cx_str(CXString s)
{
    char *r = strdup(clang_getCString(s) ? clang_getCString(s) : "");
    clang_disposeString(s);
    return r;
}

/* ---- decorators -------------------------------------------------------- */

static void decos_free(decos *ds)
{
    for (size_t i = 0; i < ds->count; i++) {
        deco *d = &ds->items[i];
        for (size_t a = 0; a < d->nargs; a++) {
            free(d->args[a]);
            json_decref(d->arg_locs[a]);
            json_decref(d->inner_locs[a]);
        }
        free(d->inner_locs);
        free(d->args);
        free(d->arg_locs);
        free(d->verbatim);
        free(d->kind);
        json_decref(d->loc);
    }
    free(ds->items);
    memset(ds, 0, sizeof *ds);
}

static const char *deco_macro(const char *kind)
{
    static const struct {
        const char *kind, *macro;
    } names[] = {{"entity", "DDB_ENTITY"}, {"key", "DDB_KEY"}, {"key_fields", "DDB_KEY_FIELDS"},
                 {"collection", "DDB_COLLECTION"}, {"shard_suffix", "DDB_SHARD_SUFFIX"},
                 {"write_shards", "DDB_WRITE_SHARDS"}, {"heat_ok", "DDB_HEAT_OK"},
                 {"attr", "DDB_ATTR"}, {"shard", "DDB_SHARD"},
                 {"derived", "DDB_DERIVED"}, {"uuid", "DDB_UUID"},
                 {"auto_id", "DDB_AUTO_ID"}, {"version", "DDB_VERSION"},
                 {"ttl", "DDB_TTL"}, {"table", "DDB_TABLE"},
                 {"pattern", "DDB_PATTERN"}, {"query", "DDB_QUERY"}, {"scan", "DDB_SCAN"},
                 {"update", "DDB_UPDATE"}, {"condition", "DDB_CONDITION"},
                 {"default", "DDB_DEFAULT"}, {"created_at", "DDB_CREATED_AT"},
                 {"updated_at", "DDB_UPDATED_AT"}, {"unique", "DDB_UNIQUE"},
                 {"renamed_from", "DDB_RENAMED_FROM"}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(names[i].kind, kind))
            return names[i].macro;
    return NULL;
}

/* Argument positions: tokenize the decorator's source range; when it reads
 * NAME ( arg , arg ... ) with as many arguments as the annotation carries,
 * each argument gets its own location.  Otherwise (the decorator came from
 * a user macro, say) every argument keeps the decorator's location. */
static void deco_arg_locs(fe *f, CXCursor attr, deco *d)
{
    for (size_t a = 0; a < d->nargs; a++)
        d->arg_locs[a] = json_incref(d->loc);
    if (d->nargs == 0)
        return;
    CXSourceRange r = clang_getCursorExtent(attr);
    CXFile f1, f2;
    unsigned l1, c1, l2, c2;
    clang_getFileLocation(clang_getRangeStart(r), &f1, &l1, &c1, NULL);
    clang_getFileLocation(clang_getRangeEnd(r), &f2, &l2, &c2, NULL);
    if (!f1 || !f2 || !clang_File_isEqual(f1, f2))
        return;
    CXSourceRange fr =
        clang_getRange(clang_getLocation(f->tu, f1, l1, c1), clang_getLocation(f->tu, f2, l2, c2));
    CXToken *toks = NULL;
    unsigned n = 0;
    clang_tokenize(f->tu, fr, &toks, &n);
    size_t *first = calloc(d->nargs, sizeof *first);
    size_t *ntok = calloc(d->nargs, sizeof *ntok);
    size_t arg = 0;
    int ok = first && ntok && n >= 3 && clang_getTokenKind(toks[0]) == CXToken_Identifier;
    if (ok) {
        CXString s0 = clang_getTokenSpelling(f->tu, toks[0]);
        CXString s1 = clang_getTokenSpelling(f->tu, toks[1]);
        const char *macro = deco_macro(d->kind);
        ok = macro && !strcmp(clang_getCString(s0), macro) && !strcmp(clang_getCString(s1), "(");
        clang_disposeString(s0);
        clang_disposeString(s1);
    }
    if (ok) {
        int depth = 1, closed = 0;
        for (unsigned i = 2; i < n && ok && !closed; i++) {
            CXString s = clang_getTokenSpelling(f->tu, toks[i]);
            const char *t = clang_getCString(s);
            if (!strcmp(t, "(") || !strcmp(t, "[") || !strcmp(t, "{"))
                depth++;
            if ((!strcmp(t, ")") || !strcmp(t, "]") || !strcmp(t, "}")) && --depth == 0)
                closed = 1;
            else if (depth == 1 && !strcmp(t, ","))
                ok = ++arg < d->nargs;
            else if (arg < d->nargs) {
                if (ntok[arg]++ == 0)
                    first[arg] = i;
                if (depth == 2 && clang_getTokenKind(toks[i]) == CXToken_Identifier)
                    json_array_append_new(d->inner_locs[arg], loc_of_cx(clang_getTokenLocation(f->tu, toks[i])));
            }
            clang_disposeString(s);
        }
        ok = ok && closed && arg + 1 == d->nargs;
    }
    for (size_t a = 0; !ok && a < d->nargs; a++)
        json_array_clear(d->inner_locs[a]);
    for (size_t a = 0; ok && a < d->nargs; a++)
        if (ntok[a] == 0)
            ok = 0;
    for (size_t a = 0; ok && a < d->nargs; a++) {
        CXToken t = toks[first[a]];
        json_decref(d->arg_locs[a]);
        d->arg_locs[a] = loc_of_cx(clang_getTokenLocation(f->tu, t));
        if (ntok[a] == 1 && clang_getTokenKind(t) == CXToken_Literal) {
            CXString s = clang_getTokenSpelling(f->tu, t);
            const char *sp = clang_getCString(s);
            size_t vl = strlen(d->args[a]), sl = strlen(sp);
            d->verbatim[a] = sl == vl + 2 && sp[0] == '"' && sp[sl - 1] == '"' &&
                             !memcmp(sp + 1, d->args[a], vl);
            clang_disposeString(s);
        }
    }
    free(first);
    free(ntok);
    clang_disposeTokens(f->tu, toks, n);
}

typedef struct collect_ctx {
    fe *f;
    decos *ds;
} collect_ctx;

static void add_deco(collect_ctx *c, CXCursor attr)
{
    CXString sp = clang_getCursorSpelling(attr);
    const char *s = clang_getCString(sp);
    if (!s || strncmp(s, "ddb:", 4) != 0) {
        clang_disposeString(sp);
        return;
    }
    decos *ds = c->ds;
    deco *items = realloc(ds->items, (ds->count + 1) * sizeof *items);
    if (!items) {
        clang_disposeString(sp);
        return;
    }
    ds->items = items;
    deco *d = &items[ds->count++];
    memset(d, 0, sizeof *d);
    const char *p = s + 4;
    const char *end = strchr(p, SEP);
    d->kind = strndup(p, end ? (size_t)(end - p) : strlen(p));
    size_t n = 0;
    for (const char *q = end; q; q = strchr(q + 1, SEP))
        n++;
    d->args = calloc(n ? n : 1, sizeof *d->args);
    d->arg_locs = calloc(n ? n : 1, sizeof *d->arg_locs);
    d->verbatim = calloc(n ? n : 1, sizeof *d->verbatim);
    d->inner_locs = calloc(n ? n : 1, sizeof *d->inner_locs);
    d->nargs = n;
    for (size_t a = 0; a < n; a++)
        d->inner_locs[a] = json_array();
    for (size_t a = 0; a < n; a++) {
        const char *b = end + 1;
        end = strchr(b, SEP);
        d->args[a] = strndup(b, end ? (size_t)(end - b) : strlen(b));
    }
    d->loc = loc_of_cx(clang_getCursorLocation(attr));
    clang_disposeString(sp);
    deco_arg_locs(c->f, attr, d);
}

static enum CXChildVisitResult collect_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    if (clang_getCursorKind(c) == CXCursor_AnnotateAttr)
        add_deco(data, c);
    return CXChildVisit_Continue;
}

/* The ddb: decorators directly on cursor c, in source order. */
static void get_decos(fe *f, CXCursor c, decos *out)
{
    memset(out, 0, sizeof *out);
    collect_ctx cc = {f, out};
    clang_visitChildren(c, collect_visit, &cc);
}

typedef struct fields_ctx {
    CXCursor *items;
    size_t count;
} fields_ctx;

static enum CXChildVisitResult fields_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    fields_ctx *fc = data;
    enum CXCursorKind k = clang_getCursorKind(c);
    /* An anonymous struct or union member has no FieldDecl of its own: the
     * record is kept so that describe_fields reports it instead of dropping
     * its fields. */
    if (k == CXCursor_FieldDecl ||
        ((k == CXCursor_StructDecl || k == CXCursor_UnionDecl) &&
         clang_Cursor_isAnonymousRecordDecl(c))) {
        CXCursor *items = realloc(fc->items, (fc->count + 1) * sizeof *items);
        if (items) {
            fc->items = items;
            fc->items[fc->count++] = c;
        }
    }
    return CXChildVisit_Continue;
}

static const deco *find_deco(const decos *ds, const char *kind)
{
    for (size_t i = 0; i < ds->count; i++)
        if (!strcmp(ds->items[i].kind, kind))
            return &ds->items[i];
    return NULL;
}

/* {"template": t, "loc": L[, "verbatim": false]} for argument a of d. */
static json_t *template_obj(const deco *d, size_t a)
{
    json_t *o = json_pack("{s:s, s:O}", "template", d->args[a], "loc", d->arg_locs[a]);
    if (o && !d->verbatim[a])
        json_object_set_new(o, "verbatim", json_false());
    return o;
}

static int check_nargs(fe *f, const deco *d, size_t min, size_t max, const char *usage)
{
    if (d->nargs >= min && d->nargs <= max)
        return 1;
    err(f, d->loc, "%s takes %s", deco_macro(d->kind), usage);
    return 0;
}

/* DDB_WRITE_SHARDS and DDB_HEAT_OK: an option of the entity's DDB_KEY for
 * the index they name ("write_shards" / "heat_ok" of that key object). */
static void key_option(fe *f, const deco *d, json_t *keys, const char *entity)
{
    int shards = !strcmp(d->kind, "write_shards");
    if (!shards && strcmp(d->kind, "heat_ok") != 0)
        return;
    if (shards ? !check_nargs(f, d, 3, 3, "the index name, the shard count and \"hash\" or \"random\": "
                                          "DDB_WRITE_SHARDS(\"table\", 8, \"hash\")")
               : !check_nargs(f, d, 2, 2, "the index name and why its few partition key values are "
                                          "enough: DDB_HEAT_OK(\"table\", \"a few writes a day\")"))
        return;
    const char *what = shards ? "write_shards" : "heat_ok";
    json_t *k = ddbgen_jfind(keys, "index", d->args[0]);
    if (!k) {
        err(f, d->arg_locs[0], "%s names index '%s', but '%s' has no DDB_KEY(\"%s\", ...)",
            deco_macro(d->kind), d->args[0], entity, d->args[0]);
        return;
    }
    if (json_object_get(k, what)) {
        err(f, d->loc, "duplicate %s for index '%s' on '%s'", deco_macro(d->kind), d->args[0], entity);
        return;
    }
    if (!shards) {
        json_object_set_new(k, what, json_pack("{s:s, s:O}", "reason", d->args[1], "loc", d->loc));
        return;
    }
    char *end = NULL;
    long n = strtol(d->args[1], &end, 10);
    if (!d->args[1][0] || *end || n < 0 || n > 1000000) {
        err(f, d->arg_locs[1], "DDB_WRITE_SHARDS needs a shard count (a whole number), not '%s'",
            d->args[1]);
        return;
    }
    json_object_set_new(k, what, json_pack("{s:I, s:s, s:O, s:O}", "count", (json_int_t)n, "by",
                                           d->args[2], "loc", d->loc, "count_loc", d->arg_locs[1]));
}

/* ---- C types ----------------------------------------------------------- */

static int is_anonymous_spelling(const char *s)
{
    return strstr(s, "(unnamed") != NULL || strstr(s, "(anonymous") != NULL;
}

/* "i32", "u64", "f64" ... for a canonical arithmetic type; NULL otherwise. */
static const char *num_kind(CXType ct)
{
    static const char *const sname[] = {NULL, "i8", "i16", NULL, "i32", NULL, NULL, NULL, "i64"};
    static const char *const uname[] = {NULL, "u8", "u16", NULL, "u32", NULL, NULL, NULL, "u64"};
    long long size = clang_Type_getSizeOf(ct);
    int sgn;
    switch (ct.kind) {
    case CXType_Char_S:
    case CXType_SChar:
    case CXType_Short:
    case CXType_Int:
    case CXType_Long:
    case CXType_LongLong:
        sgn = 1;
        break;
    case CXType_Char_U:
    case CXType_UChar:
    case CXType_UShort:
    case CXType_UInt:
    case CXType_ULong:
    case CXType_ULongLong:
        sgn = 0;
        break;
    case CXType_Float:
        return "f32";
    case CXType_Double:
        return "f64";
    default:
        return NULL;
    }
    if (size < 1 || size > 8)
        return NULL;
    return sgn ? sname[size] : uname[size];
}

static int is_char(CXType ct) { return ct.kind == CXType_Char_S || ct.kind == CXType_Char_U; }

static char *type_spelling(CXType t)
{
    char *s = cx_str(clang_getTypeSpelling(t));
    if (s && !strcmp(s, "_Bool")) {
        free(s);
        s = strdup("bool");
    }
    return s;
}

static const char *describe_struct(fe *f, CXCursor decl, CXType t, const json_t *use_loc,
                                   const char *what);

/* Counts the enumerators of an enum declaration (a few values make a hot key). */
static enum CXChildVisitResult count_enumerators(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    if (clang_getCursorKind(c) == CXCursor_EnumConstantDecl)
        (*(unsigned *)data)++;
    return CXChildVisit_Continue;
}

/* The model's type members for C type t (type, ctype and the per-type
 * extras), or NULL after reporting why t cannot be stored.  `what` names
 * the field in messages.  Pointers other than char * are lists and are
 * handled by the caller. */
static json_t *describe_value(fe *f, CXType t, const json_t *loc, const char *what)
{
    CXType ct = clang_getCanonicalType(t);
    char *ctype = type_spelling(t);
    json_t *o = NULL;
    const char *num;
    if (ct.kind == CXType_ConstantArray && is_char(clang_getCanonicalType(clang_getArrayElementType(ct)))) {
        long long n = clang_getArraySize(ct);
        if (n < 2)
            err(f, loc, "%s is char[%lld]: a string field needs room for at least one byte and the "
                        "terminating NUL",
                what, n);
        else
            o = json_pack("{s:s, s:s, s:I, s:b}", "type", "S", "ctype", ctype, "max_len",
                          (json_int_t)(n - 1), "optional", 0);
    } else if (ct.kind == CXType_Pointer && is_char(clang_getCanonicalType(clang_getPointeeType(ct)))) {
        o = json_pack("{s:s, s:s, s:b}", "type", "S", "ctype", ctype, "optional", 1);
    } else if (ct.kind == CXType_Bool) {
        o = json_pack("{s:s, s:s, s:b}", "type", "BOOL", "ctype", ctype, "optional", 0);
    } else if (ct.kind == CXType_Enum) {
        CXCursor decl = clang_getTypeDeclaration(ct);
        CXType it = clang_getCanonicalType(clang_getEnumDeclIntegerType(decl));
        num = num_kind(it);
        if (is_anonymous_spelling(ctype)) {
            free(ctype);
            ctype = type_spelling(it);
        }
        if (num) {
            o = json_pack("{s:s, s:s, s:s, s:b}", "type", "N", "ctype", ctype, "num", num,
                          "optional", 0);
            unsigned n_values = 0;
            clang_visitChildren(decl, count_enumerators, &n_values);
            json_object_set_new(o, "enum_values", json_integer(n_values));
        } else
            err(f, loc, "%s has an enum type whose integer type is not supported", what);
    } else if ((num = num_kind(ct)) != NULL) {
        o = json_pack("{s:s, s:s, s:s, s:b}", "type", "N", "ctype", ctype, "num", num, "optional",
                      0);
    } else if (ct.kind == CXType_Record) {
        CXCursor decl = clang_getTypeDeclaration(ct);
        char *tag = cx_str(clang_getCursorSpelling(decl));
        static const struct {
            const char *name, *type, *item;
        } builtin[] = {{"ddb_bytes", "B", NULL},
                       {"ddb_string_set", "SS", "char *"},
                       {"ddb_int_set", "NS", "int64_t"},
                       {"ddb_double_set", "NS", "double"},
                       {"ddb_bytes_set", "BS", "ddb_bytes"}};
        size_t i;
        for (i = 0; i < sizeof builtin / sizeof builtin[0]; i++)
            if (!strcmp(tag, builtin[i].name))
                break;
        if (clang_getCursorKind(decl) == CXCursor_UnionDecl) {
            err(f, loc, "%s is a union; unions cannot be stored (use a struct)", what);
        } else if (i < sizeof builtin / sizeof builtin[0]) {
            o = json_pack("{s:s, s:s, s:b}", "type", builtin[i].type, "ctype", ctype, "optional",
                          1);
            if (o && builtin[i].item)
                json_object_set_new(o, "item_ctype", json_string(builtin[i].item));
            if (o && !strcmp(builtin[i].type, "NS"))
                json_object_set_new(o, "num", json_string(strcmp(builtin[i].item, "double") ? "i64"
                                                                                        : "f64"));
        } else {
            const char *sname = describe_struct(f, decl, t, loc, what);
            if (sname)
                o = json_pack("{s:s, s:s, s:s, s:b}", "type", "M", "ctype", ctype, "struct", sname,
                              "optional", 0);
        }
        free(tag);
    } else if (ct.kind == CXType_ConstantArray || ct.kind == CXType_IncompleteArray) {
        err(f, loc,
            "%s is an array (%s); only char[N] strings are supported as arrays — declare a list "
            "as a pointer and a count ('T *name; size_t name_count;')",
            what, ctype);
    } else if (ct.kind == CXType_LongDouble) {
        err(f, loc, "%s is long double, which has no exact DynamoDB number form; use double", what);
    } else {
        err(f, loc,
            "%s has type '%s', which ddbgen cannot store; supported: char[N], char *, integer and "
            "floating types, bool, enums, ddb_bytes, ddb_*_set, structs, and 'T *x; size_t "
            "x_count;' lists",
            what, ctype);
    }
    free(ctype);
    return o;
}

/* A list item: like describe_value, where char * is an S item. */
static json_t *describe_item(fe *f, CXType t, const json_t *loc, const char *what)
{
    CXType ct = clang_getCanonicalType(t);
    if (ct.kind == CXType_Pointer && !is_char(clang_getCanonicalType(clang_getPointeeType(ct)))) {
        err(f, loc, "%s is a list of pointers; list items are values (a pointer and a count per list)",
            what);
        return NULL;
    }
    json_t *o = describe_value(f, t, loc, what);
    if (o)
        json_object_del(o, "optional");
    return o;
}

typedef struct field_opts {
    int entity;      /* fields of an entity: all field decorators apply */
    int quiet_decos; /* a nested struct that is also an entity: ignore its decorators */
    const char *owner;
} field_opts;

static void apply_field_decos(fe *f, json_t *field, const decos *ds, const char *fname,
                              const field_opts *fo)
{
    for (size_t i = 0; i < ds->count; i++) {
        const deco *d = &ds->items[i];
        const char *k = d->kind;
        const char *macro = deco_macro(k);
        if (!macro) {
            err(f, d->loc, "unknown decorator 'ddb:%s' on field '%s' (is <ddb/schema.h> from a "
                           "different ddbgen version?)",
                k, fname);
            continue;
        }
        if (!strcmp(k, "entity") || !strcmp(k, "key") || !strcmp(k, "key_fields") || !strcmp(k, "collection") ||
            !strcmp(k, "shard_suffix") || !strcmp(k, "write_shards") || !strcmp(k, "heat_ok") ||
            !strcmp(k, "update") || !strcmp(k, "condition")) {
            err(f, d->loc, "%s belongs between 'struct' and the struct's name, not on field '%s'",
                macro, fname);
            continue;
        }
        if (strcmp(k, "attr") != 0 && !fo->entity) {
            if (!fo->quiet_decos)
                err(f, d->loc,
                    "%s has no effect on field '%s' of nested struct '%s'; only DDB_ATTR applies to "
                    "the fields of a nested struct",
                    macro, fname, fo->owner);
            continue;
        }
        const char *member = !strcmp(k, "attr") ? "attr_loc" : k;
        if (json_object_get(field, member)) {
            err(f, d->loc, "duplicate %s on field '%s'", macro, fname);
            continue;
        }
        if (!strcmp(k, "attr")) {
            if (check_nargs(f, d, 1, 1, "one argument: the stored attribute name")) {
                json_object_set_new(field, "attr", json_string(d->args[0]));
                json_object_set(field, "attr_loc", d->arg_locs[0]);
            }
        } else if (!strcmp(k, "shard")) {
            if (check_nargs(f, d, 1, 1, "one argument: the shard id"))
                json_object_set_new(field, "shard",
                                    json_pack("{s:s, s:O}", "id", d->args[0], "loc", d->arg_locs[0]));
        } else if (!strcmp(k, "derived") || !strcmp(k, "auto_id")) {
            if (check_nargs(f, d, 1, 1, "one argument: a template"))
                json_object_set_new(field, k, template_obj(d, 0));
        } else if (!strcmp(k, "renamed_from")) {
            if (check_nargs(f, d, 1, 1, "one argument: the field's stored attribute name in the deployed schema")) {
                json_object_set_new(field, k, json_string(d->args[0]));
                json_object_set(field, "renamed_from_loc", d->arg_locs[0]);
            }
        } else if (!strcmp(k, "default")) {
            if (check_nargs(f, d, 1, 1, "one argument: the value as a string literal"))
                json_object_set_new(field, k,
                                    json_pack("{s:s, s:O}", "value", d->args[0], "loc", d->arg_locs[0]));
        } else if (check_nargs(f, d, 0, 0, "no arguments")) {
            json_object_set_new(field, k, json_pack("{s:O}", "loc", d->loc));
        }
    }
}

/* Appends the fields of record `decl` to out; the names of fields that
 * cannot be stored go to invalid (when not NULL). */
static void describe_fields(fe *f, CXCursor decl, json_t *out, json_t *invalid,
                            const field_opts *fo)
{
    fields_ctx fc = {NULL, 0};
    clang_visitChildren(decl, fields_visit, &fc);
    for (size_t i = 0; i < fc.count; i++) {
        CXCursor c = fc.items[i];
        char *name = cx_str(clang_getCursorSpelling(c));
        json_t *loc = loc_of_cx(clang_getCursorLocation(c));
        char what[512];
        snprintf(what, sizeof what, "field '%s'", name);
        decos ds;
        get_decos(f, c, &ds);
        CXType t = clang_getCursorType(c);
        CXType ct = clang_getCanonicalType(t);
        json_t *desc = NULL;
        if (!name[0] || clang_getCursorKind(c) != CXCursor_FieldDecl) {
            err(f, loc, "anonymous struct or union members are not supported in '%s'; give the "
                        "member a name",
                fo->owner);
        } else if (clang_Cursor_isBitField(c)) {
            err(f, loc, "%s is a bit-field; bit-fields cannot be stored", what);
        } else if (ct.kind == CXType_Pointer &&
                   !is_char(clang_getCanonicalType(clang_getPointeeType(ct)))) {
            /* T *name; size_t name_count;  -> a list */
            char *next = i + 1 < fc.count ? cx_str(clang_getCursorSpelling(fc.items[i + 1])) : NULL;
            size_t nl = strlen(name);
            int is_count = next && !strncmp(next, name, nl) && !strcmp(next + nl, "_count");
            if (!is_count) {
                char *ctype = type_spelling(t);
                size_t cl = strlen(ctype);
                err(f, loc,
                    "%s is a pointer (%s) without a count: declare a list as '%s%s%s; size_t "
                    "%s_count;' (the count right after it); only char * stands alone (an optional "
                    "string)",
                    what, ctype, ctype, cl && ctype[cl - 1] == '*' ? "" : " ", name, name);
                free(ctype);
            } else {
                CXType count_t = clang_getCanonicalType(clang_getCursorType(fc.items[i + 1]));
                const char *cn = num_kind(count_t);
                json_t *cloc = loc_of_cx(clang_getCursorLocation(fc.items[i + 1]));
                decos cds;
                get_decos(f, fc.items[i + 1], &cds);
                if (!cn || cn[0] != 'u' || count_t.kind == CXType_Char_U || count_t.kind == CXType_UChar)
                    err(f, cloc, "list count '%s' must be an unsigned integer (size_t)", next);
                else if (cds.count)
                    err(f, cds.items[0].loc, "decorators of list '%s' belong on '%s', not on its "
                                             "count '%s'",
                        name, name, next);
                else {
                    json_t *item = describe_item(f, clang_getPointeeType(t), loc, what);
                    if (item) {
                        char *ctype = type_spelling(t);
                        desc = json_pack("{s:s, s:s, s:s, s:o, s:b}", "type", "L", "ctype", ctype,
                                         "count_field", next, "item", item, "optional", 1);
                        free(ctype);
                    }
                }
                decos_free(&cds);
                json_decref(cloc);
                i++;
            }
            free(next);
        } else {
            desc = describe_value(f, t, loc, what);
        }
        if (desc) {
            json_t *field = json_pack("{s:s, s:O, s:s}", "name", name, "loc", loc, "attr", name);
            json_object_update(field, desc);
            apply_field_decos(f, field, &ds, name, fo);
            json_array_append_new(out, field);
        } else if (name[0] && invalid) {
            /* reported already: keep templates that use it from saying "unknown field" */
            json_object_set_new(invalid, name, json_true());
        }
        json_decref(desc);
        decos_free(&ds);
        json_decref(loc);
        free(name);
    }
    free(fc.items);
}

/* Registers the struct used by a field; returns its model cname. */
static const char *describe_struct(fe *f, CXCursor decl, CXType t, const json_t *use_loc,
                                   const char *what)
{
    CXType canon = clang_getCanonicalType(clang_getCursorType(decl));
    char *key = type_spelling(canon);
    json_t *state = json_object_get(f->struct_state, key);
    if (state) {
        const char *s = json_string_value(state);
        if (!strcmp(s, "\x01")) {
            err(f, use_loc, "'%s' contains itself through this field; recursive types cannot be "
                            "stored in one item",
                key);
            free(key);
            return NULL;
        }
        free(key);
        return s;
    }
    char *cname = cx_str(clang_getCursorSpelling(decl));
    if (!cname[0] || is_anonymous_spelling(cname)) {
        free(cname);
        CXType tt = t;
        cname = type_spelling(tt);
        if (is_anonymous_spelling(key) || is_anonymous_spelling(cname) || strchr(cname, ' ')) {
            err(f, use_loc, "%s has an unnamed struct type; give the struct a tag "
                            "('struct name { ... }') so generated code can refer to it",
                what);
            free(cname);
            free(key);
            return NULL;
        }
    }
    if (!clang_isCursorDefinition(clang_getCursorDefinition(decl)) ||
        clang_Cursor_isNull(clang_getCursorDefinition(decl))) {
        err(f, use_loc, "'%s' is an incomplete type", key);
        free(cname);
        free(key);
        return NULL;
    }
    decl = clang_getCursorDefinition(decl);
    json_object_set_new(f->struct_state, key, json_string("\x01"));
    decos sd;
    get_decos(f, decl, &sd);
    field_opts fo = {0, find_deco(&sd, "entity") != NULL, cname};
    decos_free(&sd);
    json_t *fields = json_array();
    describe_fields(f, decl, fields, NULL, &fo);
    json_t *loc = loc_of_cx(clang_getCursorLocation(decl));
    json_array_append_new(f->structs, json_pack("{s:s, s:s, s:o, s:o}", "cname", cname, "ctype",
                                                key, "loc", loc, "fields", fields));
    json_object_set_new(f->struct_state, key, json_string(cname));
    free(cname);
    const char *r = json_string_value(json_object_get(f->struct_state, key));
    free(key);
    return r;
}

/* ---- tables ----------------------------------------------------------- */

static void append_to(json_t *obj, const char *key, json_t *v);

typedef struct elem {
    int marker;
    char *value;
    json_t *loc;
} elem;

typedef struct elems {
    elem *items;
    size_t count;
    fe *f;
} elems;

static enum CXChildVisitResult first_child(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    *(CXCursor *)data = c;
    return CXChildVisit_Break;
}

/* The string an initializer element evaluates to: libclang evaluates the
 * implicit array-to-pointer conversion of a literal, but not an explicit
 * cast around it, so descend through casts.  malloc'ed, or NULL. */
static char *eval_string(CXCursor c, int depth)
{
    char *value = NULL;
    CXEvalResult r = clang_Cursor_Evaluate(c);
    if (r) {
        if (clang_EvalResult_getKind(r) == CXEval_StrLiteral)
            value = strdup(clang_EvalResult_getAsStr(r));
        clang_EvalResult_dispose(r);
    }
    if (!value && depth < 4) {
        CXCursor child = clang_getNullCursor();
        clang_visitChildren(c, first_child, &child);
        if (!clang_Cursor_isNull(child))
            value = eval_string(child, depth + 1);
    }
    return value;
}

static enum CXChildVisitResult init_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    elems *es = data;
    elem *items = realloc(es->items, (es->count + 1) * sizeof *items);
    if (!items)
        return CXChildVisit_Break;
    es->items = items;
    elem *e = &items[es->count++];
    e->marker = clang_getCursorKind(c) == CXCursor_CStyleCastExpr;
    e->loc = loc_of_cx(clang_getCursorLocation(c));
    e->value = eval_string(c, 0);
    if (!e->value)
        err(es->f, e->loc, "the arguments of DDB_TABLE must be string literals");
    return CXChildVisit_Continue;
}

static enum CXChildVisitResult find_init(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    if (clang_getCursorKind(c) == CXCursor_InitListExpr) {
        *(CXCursor *)data = c;
        return CXChildVisit_Break;
    }
    return CXChildVisit_Continue;
}

static json_t *key_attr(const elem *e)
{
    return json_pack("{s:s, s:O}", "attr", e->value, "loc", e->loc);
}

static void process_table(fe *f, CXCursor var, const deco *td)
{
    const char *cname = td->nargs ? td->args[0] : "";
    CXCursor init = clang_getNullCursor();
    clang_visitChildren(var, find_init, &init);
    elems es = {NULL, 0, f};
    if (!clang_Cursor_isNull(init))
        clang_visitChildren(init, init_visit, &es);
    json_t *table = json_pack("{s:s, s:O, s:s, s:[]}", "cname", cname, "loc", td->loc,
                              "type_attribute", "Type", "indexes");
    json_t *indexes = json_object_get(table, "indexes");
    int bad = 0;
    size_t kept = 0; /* elements that are not strings were reported; skip them */
    for (size_t i = 0; i < es.count; i++) {
        if (es.items[i].value)
            es.items[kept++] = es.items[i];
        else
            json_decref(es.items[i].loc);
    }
    es.count = kept;
    if (es.count == 0 || es.items[0].marker) {
        err(f, td->loc, "DDB_TABLE(%s, ...) needs the table name as its second argument", cname);
        bad = 1;
    }
    if (!bad)
        json_object_set_new(table, "name", json_string(es.items[0].value));
    json_t *last_index = NULL; /* the index a projection may attach to */
    for (size_t i = 1; !bad && i < es.count;) {
        elem *m = &es.items[i];
        if (!m->marker) {
            err(f, m->loc,
                "unexpected argument \"%s\" in DDB_TABLE; after the name come DDB_PRIMARY, "
                "DDB_GSI, DDB_LSI, DDB_TYPE_ATTRIBUTE, DDB_STREAM, DDB_PROVISIONED and "
                "DDB_DELETION_PROTECTION options",
                m->value);
            bad = 1;
            break;
        }
        size_t j = i + 1;
        while (j < es.count && !es.items[j].marker)
            j++;
        size_t n = j - i - 1;
        elem *a = &es.items[i + 1];
        const char *opt = m->value + 4; /* skip "ddb:" */
        if (!strcmp(opt, "primary") || !strcmp(opt, "gsi") || !strcmp(opt, "lsi")) {
            int primary = !strcmp(opt, "primary"), lsi = !strcmp(opt, "lsi");
            size_t min = primary || !lsi ? 1 : 2, max = primary ? 2 : lsi ? 2 : 3;
            if (n < min || n > max) {
                err(f, m->loc, "%s",
                    primary ? "DDB_PRIMARY takes the partition key attribute and an optional sort "
                              "key attribute: DDB_PRIMARY(\"PK\", \"SK\")"
                    : lsi   ? "DDB_LSI takes the index name and its sort key attribute, then an "
                              "optional projection: DDB_LSI(\"LSI1\", \"LSI1SK\")"
                            : "DDB_GSI takes the index name, its partition key attribute and an "
                              "optional sort key attribute, then an optional projection: "
                              "DDB_GSI(\"GSI1\", \"GSI1PK\", \"GSI1SK\"); or the index name "
                              "alone for an index keyed on its entities' fields (DDB_KEY_FIELDS)");
                last_index = NULL;
            } else {
                json_t *ix = json_pack("{s:s, s:s, s:O}", "name", primary ? "table" : a[0].value,
                                       "kind", opt, "loc", m->loc);
                if (primary) {
                    json_object_set_new(ix, "pk", key_attr(&a[0]));
                    if (n == 2)
                        json_object_set_new(ix, "sk", key_attr(&a[1]));
                } else if (lsi) {
                    json_object_set_new(ix, "sk", key_attr(&a[1]));
                } else if (n >= 2) { /* the name alone: keyed by DDB_KEY_FIELDS */
                    json_object_set_new(ix, "pk", key_attr(&a[1]));
                    if (n == 3)
                        json_object_set_new(ix, "sk", key_attr(&a[2]));
                }
                if (!primary)
                    json_object_set_new(ix, "projection", json_pack("{s:s}", "type", "ALL"));
                json_array_append_new(indexes, ix);
                last_index = primary ? NULL : ix;
            }
        } else if (!strcmp(opt, "keys_only") || !strcmp(opt, "include")) {
            int keys_only = !strcmp(opt, "keys_only");
            const char *macro = keys_only ? "DDB_PROJECT_KEYS_ONLY" : "DDB_PROJECT_INCLUDE";
            if (!last_index) {
                err(f, m->loc, "%s must be the last argument of a DDB_GSI or DDB_LSI", macro);
            } else if (!keys_only && n == 0) {
                err(f, m->loc, "DDB_PROJECT_INCLUDE needs at least one attribute name");
            } else if (keys_only && n != 0) {
                err(f, a[0].loc, "unexpected argument \"%s\" after DDB_PROJECT_KEYS_ONLY", a[0].value);
            } else {
                json_t *p = json_pack("{s:s, s:O}", "type", keys_only ? "KEYS_ONLY" : "INCLUDE",
                                      "loc", m->loc);
                if (!keys_only) {
                    json_t *attrs = json_array();
                    for (size_t k = 0; k < n; k++)
                        json_array_append_new(attrs, json_string(a[k].value));
                    json_object_set_new(p, "attributes", attrs);
                }
                json_object_set_new(last_index, "projection", p);
            }
            last_index = NULL;
        } else if (!strcmp(opt, "type_attribute")) {
            if (n != 1)
                err(f, m->loc, "DDB_TYPE_ATTRIBUTE takes one argument: the attribute name");
            else {
                json_object_set_new(table, "type_attribute", json_string(a[0].value));
                json_object_set(table, "type_attribute_loc", a[0].loc);
            }
            last_index = NULL;
        } else if (!strcmp(opt, "stream")) {
            if (n != 1)
                err(f, m->loc, "DDB_STREAM takes one argument: the view type, e.g. DDB_STREAM(\"NEW_AND_OLD_IMAGES\")");
            else {
                json_object_set_new(table, "stream", json_string(a[0].value));
                json_object_set(table, "stream_loc", a[0].loc);
            }
            last_index = NULL;
        } else if (!strcmp(opt, "provisioned")) {
            long long rw[2] = {0, 0};
            for (size_t k = 0; k < 2 && k < n; k++) {
                char *end = NULL;
                rw[k] = strtoll(a[k].value, &end, 10);
                if (!end || end == a[k].value || *end)
                    rw[k] = 0;
            }
            if (n != 2)
                err(f, m->loc, "DDB_PROVISIONED takes the read and write capacity units: DDB_PROVISIONED(5, 5)");
            else
                json_object_set_new(table, "provisioned",
                                    json_pack("{s:I, s:I, s:O}", "rcu", (json_int_t)rw[0], "wcu", (json_int_t)rw[1],
                                              "loc", m->loc));
            last_index = NULL;
        } else if (!strcmp(opt, "deletion_protection")) {
            if (n != 0)
                err(f, a[0].loc, "unexpected argument \"%s\" after DDB_DELETION_PROTECTION", a[0].value);
            else
                json_object_set_new(table, "deletion_protection", json_true());
            last_index = NULL;
        } else if (!strcmp(opt, "removed")) {
            if (n != 2 || (strcmp(a[1].value, "delete") && strcmp(a[1].value, "keep")))
                err(f, n == 2 ? a[1].loc : m->loc,
                    "DDB_REMOVED takes the removed entity's name and what happens to its stored items: \"delete\" "
                    "(the migration deletes them) or \"keep\" (they stay, unread)");
            else
                append_to(table, "removed", json_pack("{s:s, s:s, s:O}", "entity", a[0].value, "items", a[1].value,
                                                      "loc", a[0].loc));
            last_index = NULL;
        } else {
            err(f, m->loc, "unknown table option '%s'", m->value);
        }
        i = j;
    }
    if (!bad)
        json_array_append(f->tables, table);
    json_decref(table);
    for (size_t i = 0; i < es.count; i++) {
        free(es.items[i].value);
        json_decref(es.items[i].loc);
    }
    free(es.items);
}

/* ---- entities ---------------------------------------------------------- */

/* {"text": t, "loc": L[, "verbatim": false]} for argument a of d. */
static json_t *expr_obj(const deco *d, size_t a)
{
    json_t *o = json_pack("{s:s, s:O}", "text", d->args[a], "loc", d->arg_locs[a]);
    if (o && !d->verbatim[a])
        json_object_set_new(o, "verbatim", json_false());
    return o;
}

/* Appends v to the array obj[key], created when absent (so schemas without
 * declared writes keep the model they had). */
static void append_to(json_t *obj, const char *key, json_t *v)
{
    json_t *arr = json_object_get(obj, key);
    if (!arr) {
        arr = json_array();
        json_object_set_new(obj, key, arr);
    }
    json_array_append_new(arr, v);
}

/* DDB_KEY_FIELDS(index, DDB_PK(f, ...)[, DDB_SK(f, ...)][, DDB_SPARSE]):
 * {"index", "loc", "pk_fields": [{"field", "loc"}], "sk_fields": [...],
 * "sparse": {"loc"}}, or NULL after reporting a malformed one. */
static json_t *key_fields_obj(fe *f, const deco *d)
{
    static const char usage[] = "the index name, DDB_PK(field, ...), an optional DDB_SK(field, ...) and an "
                                "optional DDB_SPARSE: DDB_KEY_FIELDS(\"ByPlace\", DDB_PK(country), "
                                "DDB_SK(state, city))";
    if (!check_nargs(f, d, 2, 4, usage))
        return NULL;
    json_t *k = json_pack("{s:s, s:O}", "index", d->args[0], "loc", d->loc);
    int bad = 0;
    for (size_t a = 1; a < d->nargs; a++) {
        const char *arg = d->args[a];
        const char *side = !strncmp(arg, "pk:", 3) ? "pk_fields" : !strncmp(arg, "sk:", 3) ? "sk_fields" : NULL;
        if (!strcmp(arg, "sparse") && !json_object_get(k, "sparse")) {
            json_object_set_new(k, "sparse", json_pack("{s:O}", "loc", d->arg_locs[a]));
            continue;
        }
        if (!side || json_object_get(k, side) || (side[0] == 'p') != (a == 1)) {
            err(f, d->arg_locs[a], "DDB_KEY_FIELDS takes %s", usage);
            bad = 1;
            continue;
        }
        json_t *list = json_array();
        json_object_set_new(k, side, list);
        size_t n = 0;
        for (const char *p = arg + 3; *p;) {
            while (*p == ' ' || *p == ',')
                p++;
            size_t len = strcspn(p, " ,");
            if (!len)
                break;
            json_t *il = json_array_get(d->inner_locs[a], n);
            json_array_append_new(list, json_pack("{s:s%, s:O}", "field", p, len, "loc", il ? il : d->arg_locs[a]));
            n++;
            p += len;
        }
        if (!n) {
            err(f, d->arg_locs[a], "%s() names no field; list the key's fields in order: %s(country, city)",
                side[0] == 'p' ? "DDB_PK" : "DDB_SK", side[0] == 'p' ? "DDB_PK" : "DDB_SK");
            bad = 1;
        }
    }
    if (bad) {
        json_decref(k);
        return NULL;
    }
    return k;
}

/* DDB_UPDATE(name, update[, condition]) / DDB_CONDITION(name, condition). */
static json_t *declared_write(const deco *d)
{
    int upd = !strcmp(d->kind, "update");
    json_t *o = json_pack("{s:s, s:O, s:o}", "name", d->args[0], "loc", d->loc,
                          upd ? "update" : "condition", expr_obj(d, 1));
    if (o && upd && d->nargs == 3)
        json_object_set_new(o, "condition", expr_obj(d, 2));
    return o;
}

static void process_entity(fe *f, CXCursor decl, const decos *ds)
{
    char *cname = cx_str(clang_getCursorSpelling(decl));
    const deco *ent = NULL;
    int ok = 1;
    for (size_t i = 0; i < ds->count; i++) {
        const deco *d = &ds->items[i];
        if (!strcmp(d->kind, "entity")) {
            if (ent) {
                err(f, d->loc, "duplicate DDB_ENTITY on struct '%s'", cname);
                ok = 0;
            } else
                ent = d;
        }
    }
    if (!ent) {
        err(f, ds->items[0].loc, "%s on struct '%s', which has no DDB_ENTITY(table, \"Name\")",
            deco_macro(ds->items[0].kind) ? deco_macro(ds->items[0].kind) : ds->items[0].kind,
            cname);
        free(cname);
        return;
    }
    if (!check_nargs(f, ent, 2, 2, "the table's C name and the entity name: "
                                   "DDB_ENTITY(shop, \"User\")"))
        ok = 0;
    if (!cname[0] || is_anonymous_spelling(cname)) {
        err(f, ent->loc, "an entity struct needs a tag: 'struct DDB_ENTITY(...) name { ... }'");
        ok = 0;
    }
    if (!ok) {
        free(cname);
        return;
    }
    char ctype[512];
    snprintf(ctype, sizeof ctype, "struct %s", cname);
    json_t *e = json_pack("{s:s, s:s, s:s, s:s, s:O, s:s, s:[], s:[], s:[]}", "name", ent->args[1],
                          "cname", cname, "ctype", ctype, "table", ent->args[0], "loc", ent->loc,
                          "shard_suffix", "#", "keys", "collections", "fields");
    json_t *patterns = json_array(), *queries = json_array(), *scans = json_array();
    for (size_t i = 0; i < ds->count; i++) {
        const deco *d = &ds->items[i];
        if (!strcmp(d->kind, "entity"))
            continue;
        if (!strcmp(d->kind, "key")) {
            if (check_nargs(f, d, 2, 3, "the index name (\"table\" for the primary key), the "
                                        "partition key template and, when the index has a sort "
                                        "key, the sort key template")) {
                json_t *k = json_pack("{s:s, s:O, s:o}", "index", d->args[0], "loc", d->loc, "pk",
                                      template_obj(d, 1));
                if (d->nargs == 3)
                    json_object_set_new(k, "sk", template_obj(d, 2));
                json_array_append_new(json_object_get(e, "keys"), k);
            }
        } else if (!strcmp(d->kind, "key_fields")) {
            json_t *k = key_fields_obj(f, d);
            if (k)
                json_array_append_new(json_object_get(e, "keys"), k);
        } else if (!strcmp(d->kind, "collection")) {
            if (check_nargs(f, d, 2, 2, "the collection name and the index name"))
                json_array_append_new(json_object_get(e, "collections"),
                                      json_pack("{s:s, s:s, s:O}", "name", d->args[0], "index",
                                                d->args[1], "loc", d->loc));
        } else if (!strcmp(d->kind, "pattern")) {
            if (check_nargs(f, d, 2, 2, "the access pattern's name and the index it reads: "
                                        "DDB_PATTERN(\"by_site\", \"GSI1\")"))
                json_array_append_new(patterns, json_pack("{s:s, s:O, s:s, s:O}", "name", d->args[0], "loc",
                                                          d->arg_locs[0], "index", d->args[1], "index_loc",
                                                          d->arg_locs[1]));
        } else if (!strcmp(d->kind, "query")) {
            if (check_nargs(f, d, 3, 4, "the query's name, its access pattern (or index), a key "
                                        "condition (\"\" for the whole partition) and an optional "
                                        "filter: DDB_QUERY(\"hot\", \"table\", \"taken_at > :t\", "
                                        "\"celsius > :min\")")) {
                json_t *q = json_pack("{s:s, s:O, s:s, s:O, s:o}", "name", d->args[0], "loc", d->arg_locs[0],
                                      "pattern", d->args[1], "pattern_loc", d->arg_locs[1], "key",
                                      expr_obj(d, 2));
                if (d->nargs == 4)
                    json_object_set_new(q, "filter", expr_obj(d, 3));
                json_array_append_new(queries, q);
            }
        } else if (!strcmp(d->kind, "scan")) {
            if (check_nargs(f, d, 2, 2, "the scan's name and its filter: "
                                        "DDB_SCAN(\"low_battery\", \"battery_pct < :pct\")"))
                json_array_append_new(scans, json_pack("{s:s, s:O, s:o}", "name", d->args[0], "loc",
                                                       d->arg_locs[0], "filter", expr_obj(d, 1)));
        } else if (!strcmp(d->kind, "shard_suffix")) {
            if (json_object_get(e, "shard_suffix_loc"))
                err(f, d->loc, "duplicate DDB_SHARD_SUFFIX on '%s'", cname);
            else if (check_nargs(f, d, 1, 1, "one argument: the separator before the shard id")) {
                json_object_set_new(e, "shard_suffix", json_string(d->args[0]));
                json_object_set(e, "shard_suffix_loc", d->arg_locs[0]);
            }
        } else if (!strcmp(d->kind, "renamed_from")) {
            if (json_object_get(e, "renamed_from"))
                err(f, d->loc, "duplicate DDB_RENAMED_FROM on '%s'", cname);
            else if (check_nargs(f, d, 1, 1, "one argument: the entity's name in the deployed schema")) {
                json_object_set_new(e, "renamed_from", json_string(d->args[0]));
                json_object_set(e, "renamed_from_loc", d->arg_locs[0]);
            }
        } else if (!strcmp(d->kind, "write_shards") || !strcmp(d->kind, "heat_ok")) {
            continue; /* attached to their keys below, once every DDB_KEY is read */
        } else if (!strcmp(d->kind, "update")) {
            if (check_nargs(f, d, 2, 3, "the update's name, its UpdateExpression over the C field "
                                        "names and, optionally, a ConditionExpression"))
                append_to(e, "updates", declared_write(d));
        } else if (!strcmp(d->kind, "condition")) {
            if (check_nargs(f, d, 2, 2, "the condition's name and its ConditionExpression over the C "
                                        "field names"))
                append_to(e, "conditions", declared_write(d));
        } else if (deco_macro(d->kind)) {
            err(f, d->loc, "%s is a field decorator; write it after a field's name, before the ';'",
                deco_macro(d->kind));
        } else {
            err(f, d->loc, "unknown decorator 'ddb:%s' on struct '%s'", d->kind, cname);
        }
    }
    /* reads: only written when declared, so older models read back unchanged */
    if (json_array_size(patterns))
        json_object_set(e, "patterns", patterns);
    if (json_array_size(queries))
        json_object_set(e, "queries", queries);
    if (json_array_size(scans))
        json_object_set(e, "scans", scans);
    json_decref(patterns);
    json_decref(queries);
    json_decref(scans);
    for (size_t i = 0; i < ds->count; i++)
        key_option(f, &ds->items[i], json_object_get(e, "keys"), ent->args[1]);
    field_opts fo = {1, 0, cname};
    json_t *invalid = json_object();
    describe_fields(f, decl, json_object_get(e, "fields"), invalid, &fo);
    if (json_object_size(invalid))
        json_object_set(e, "_invalid_fields", invalid);
    json_decref(invalid);
    json_array_append_new(f->entities, e);
    free(cname);
}

/* ---- the translation unit --------------------------------------------- */

static enum CXChildVisitResult top_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    fe *f = data;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k != CXCursor_VarDecl && k != CXCursor_StructDecl && k != CXCursor_UnionDecl)
        return CXChildVisit_Continue;
    decos ds;
    get_decos(f, c, &ds);
    if (ds.count == 0) {
        decos_free(&ds);
        return CXChildVisit_Continue;
    }
    if (k == CXCursor_VarDecl) {
        const deco *td = find_deco(&ds, "table");
        if (td)
            process_table(f, c, td);
    } else if (k == CXCursor_UnionDecl) {
        err(f, ds.items[0].loc, "decorators on a union; entities must be structs");
    } else if (clang_isCursorDefinition(c)) {
        process_entity(f, c, &ds);
    } else if (find_deco(&ds, "entity")) {
        err(f, ds.items[0].loc, "decorators on a declaration without a body; put them on the "
                                "struct's definition");
    }
    decos_free(&ds);
    return CXChildVisit_Continue;
}

/* ---- a table's C name declared twice ---------------------------------- */

typedef struct twice_ctx {
    fe *f;
    json_t *first; /* C name -> the location of its first DDB_TABLE */
} twice_ctx;

static enum CXChildVisitResult twice_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    twice_ctx *t = data;
    if (clang_getCursorKind(c) != CXCursor_VarDecl)
        return CXChildVisit_Continue;
    decos ds;
    get_decos(t->f, c, &ds);
    const deco *td = find_deco(&ds, "table");
    json_t *first = td && td->nargs ? json_object_get(t->first, td->args[0]) : NULL;
    if (first) {
        fe *f = t->f;
        long h = ddbgen_diag_add(&f->cx->diags, DDBGEN_ERROR, ddbgen_loc_from(td->loc),
                                 "table '%s' is declared twice (DDB_TABLE); each table's C name must be unique",
                                 td->args[0]);
        ddbgen_diag_note(&f->cx->diags, h, ddbgen_loc_from(first), "'%s' is first declared here", td->args[0]);
        CXCursor *grown = realloc(f->dup_tables, (f->n_dup_tables + 1) * sizeof *grown);
        if (grown) {
            f->dup_tables = grown;
            f->dup_tables[f->n_dup_tables++] = c;
        }
    } else if (td && td->nargs) {
        json_object_set(t->first, td->args[0], td->loc);
    }
    decos_free(&ds);
    return CXChildVisit_Continue;
}

/* Every DDB_TABLE whose C name an earlier one declared: an error there and
 * a note at the first, read from the AST (each DDB_TABLE is a variable
 * carrying the "ddb:table" decorator), so it holds whatever clang says
 * about the repeated variable. */
static void tables_twice(fe *f)
{
    twice_ctx t = {f, json_object()};
    clang_visitChildren(clang_getTranslationUnitCursor(f->tu), twice_visit, &t);
    json_decref(t.first);
}

/* Does the error at l stand on a repeated DDB_TABLE (reported by
 * tables_twice in the schema's words)? */
static int on_repeated_table(const fe *f, CXSourceLocation l)
{
    CXFile file;
    unsigned off;
    clang_getExpansionLocation(l, &file, NULL, NULL, &off);
    for (size_t i = 0; i < f->n_dup_tables; i++) {
        CXFile df;
        unsigned doff;
        clang_getExpansionLocation(clang_getCursorLocation(f->dup_tables[i]), &df, NULL, NULL, &doff);
        if (file && df && clang_File_isEqual(file, df) && off == doff)
            return 1;
    }
    return 0;
}

static void report_clang_diags(fe *f)
{
    unsigned n = clang_getNumDiagnostics(f->tu);
    for (unsigned i = 0; i < n; i++) {
        CXDiagnostic d = clang_getDiagnostic(f->tu, i);
        enum CXDiagnosticSeverity sev = clang_getDiagnosticSeverity(d);
        if (sev >= CXDiagnostic_Error) {
            CXSourceLocation l = clang_getDiagnosticLocation(d);
            CXFile file;
            unsigned line, col;
            clang_getExpansionLocation(l, &file, &line, &col, NULL);
            json_t *loc;
            if (file) {
                CXString name = clang_getFileName(file);
                char *shown = ddbgen_display_path(clang_getCString(name));
                clang_disposeString(name);
                loc = ddbgen_jloc(shown, (int)line, (int)col);
                free(shown);
            } else {
                loc = json_pack("{s:n}", "file");
            }
            CXString msg = clang_getDiagnosticSpelling(d);
            if (!on_repeated_table(f, l))
                err(f, loc, "%s", clang_getCString(msg));
            clang_disposeString(msg);
            json_decref(loc);
        }
        clang_disposeDiagnostic(d);
    }
}

int ddbgen__parse_clang(ddbgen_context *cx, const char *path)
{
    FILE *probe = fopen(path, "r");
    if (!probe) {
        ddbgen_loc none = {NULL, 0, 0};
        ddbgen_diag_add(&cx->diags, DDBGEN_ERROR, none, "cannot read '%s': %s", path,
                        strerror(errno));
        return DDBGEN_EUSAGE;
    }
    fclose(probe);

    size_t nargs = 0, cap = 8 + 2 * (cx->include_dir_count + cx->define_count);
    char **args = calloc(cap, sizeof *args);
    if (!args)
        return DDBGEN_EUSAGE;
    args[nargs++] = strdup("-x");
    args[nargs++] = strdup("c");
    args[nargs++] = strdup("-std=c11");
    args[nargs++] = strdup("-ferror-limit=0");
    args[nargs++] = strdup("-DDDB_SCHEMA_PARSE=1");
    for (size_t i = 0; i < cx->include_dir_count; i++) {
        args[nargs++] = strdup("-I");
        args[nargs++] = strdup(cx->include_dirs[i]);
    }
    for (size_t i = 0; i < cx->define_count; i++) {
        args[nargs++] = strdup("-D");
        args[nargs++] = strdup(cx->defines[i]);
    }
    args[nargs++] = strdup("-I");
    args[nargs++] =
        strdup(cx->runtime_include_dir ? cx->runtime_include_dir : DDBGEN_RUNTIME_INCLUDE);

    fe f;
    memset(&f, 0, sizeof f);
    f.cx = cx;
    CXIndex index = clang_createIndex(0, 0);
    enum CXErrorCode ec = clang_parseTranslationUnit2(
        index, path, (const char *const *)args, (int)nargs, NULL, 0,
        CXTranslationUnit_SkipFunctionBodies, &f.tu);
    for (size_t i = 0; i < nargs; i++)
        free(args[i]);
    free(args);
    int rc = DDBGEN_OK;
    if (ec != CXError_Success || !f.tu) {
        ddbgen_loc none = {NULL, 0, 0};
        ddbgen_diag_add(&cx->diags, DDBGEN_ERROR, none, "libclang could not parse '%s' (error %d)",
                        path, (int)ec);
        clang_disposeIndex(index);
        return DDBGEN_ESCHEMA;
    }
    size_t errors_before = cx->diags.errors;
    tables_twice(&f);
    report_clang_diags(&f);
    free(f.dup_tables);
    if (cx->diags.errors == errors_before) {
        char *shown = ddbgen_display_path(path);
        f.model = json_pack("{s:i, s:s, s:[], s:[], s:[]}", "model_version", DDBGEN_MODEL_VERSION,
                            "schema", shown, "tables", "structs", "entities");
        free(shown);
        f.tables = json_object_get(f.model, "tables");
        f.structs = json_object_get(f.model, "structs");
        f.entities = json_object_get(f.model, "entities");
        f.struct_state = json_object();
        clang_visitChildren(clang_getTranslationUnitCursor(f.tu), top_visit, &f);
        json_decref(f.struct_state);
    }
    if (!f.model) {
        rc = DDBGEN_ESCHEMA; /* C errors: the AST cannot be trusted */
    } else {
        /* Decorator problems were recorded and the pieces skipped; the model
         * is kept so ddbgen_validate() can report every other problem too. */
        cx->model = f.model;
        if (cx->diags.errors != errors_before)
            rc = DDBGEN_ESCHEMA;
    }
    clang_disposeTranslationUnit(f.tu);
    clang_disposeIndex(index);
    return rc;
}
