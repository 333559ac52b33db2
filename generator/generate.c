/* generate.c — the back-end: validated model -> render context -> the
 * templates in templates_dir -> <base>_ddb.h and <base>_ddb.c.
 *
 * This file only computes data (identifiers, C expressions for sizes and
 * offsets, index paths of template holes); the shape of the output is in
 * the templates.  Files are written only when their content changes. */
#include "generate.h"

#include "generate_stream.h"
#include "mustache.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef DDBGEN_VERSION
#define DDBGEN_VERSION "0.0.0"
#endif

typedef struct gen {
    json_t *model;
    const char *templates_dir;
    FILE *diag;
    int failed;
    /* Partials loaded so far: the renderer asks for one at every use. */
    char *partial_name[32];
    char *partial_buf[32];
    int n_partials;
} gen;

static json_t *jstr(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static json_t *jstr(const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return json_string(buf);
}

/* A C string literal for s (declared in generate_stream.h, shared). */
json_t *ddbgen_c_literal(const char *s)
{
    size_t n = strlen(s);
    char *out = malloc(n * 4 + 3), *o = out;
    if (!out)
        return NULL;
    *o++ = '"';
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            *o++ = '\\';
            *o++ = (char)*p;
        } else if (*p < 0x20 || *p >= 0x7f || *p == '?') {
            /* octal escapes cannot swallow a following digit beyond 3 */
            o += sprintf(o, "\\%03o", *p);
        } else {
            *o++ = (char)*p;
        }
    }
    *o++ = '"';
    *o = '\0';
    json_t *j = json_string(out);
    free(out);
    return j;
}

/* A C identifier from a name ("GSI-1.x" -> "GSI_1_x"). */
static json_t *c_ident(const char *s)
{
    char buf[512];
    size_t i = 0;
    for (; s[i] && i < sizeof buf - 1; i++)
        buf[i] = isalnum((unsigned char)s[i]) ? s[i] : '_';
    buf[i] = '\0';
    return json_string(buf);
}

static const char *sget(json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static json_t *find_named(json_t *arr, const char *key, const char *name)
{
    size_t i;
    json_t *v;
    json_array_foreach(arr, i, v) if (sget(v, key) && name && strcmp(sget(v, key), name) == 0) return v;
    return NULL;
}

static long index_named(json_t *arr, const char *key, const char *name)
{
    size_t i;
    json_t *v;
    json_array_foreach(arr, i, v) if (sget(v, key) && name && strcmp(sget(v, key), name) == 0) return (long)i;
    return -1;
}

static const char *ftype_of(json_t *f)
{
    const char *t = sget(f, "type"), *num = sget(f, "num");
    if (!t)
        return "0";
    if (!strcmp(t, "S"))
        return json_object_get(f, "max_len") ? "DDB_F_CHARS" : "DDB_F_STRING";
    if (!strcmp(t, "N"))
        return num && num[0] == 'f' ? "DDB_F_FLOAT" : num && num[0] == 'u' ? "DDB_F_UINT" : "DDB_F_INT";
    if (!strcmp(t, "BOOL"))
        return "DDB_F_BOOL";
    if (!strcmp(t, "B"))
        return "DDB_F_BYTES";
    if (!strcmp(t, "M"))
        return "DDB_F_STRUCT";
    if (!strcmp(t, "L"))
        return "DDB_F_LIST";
    if (!strcmp(t, "SS"))
        return "DDB_F_SSET";
    if (!strcmp(t, "NS"))
        return num && num[0] == 'f' ? "DDB_F_DSET" : "DDB_F_ISET";
    if (!strcmp(t, "BS"))
        return "DDB_F_BSET";
    return "0";
}

/* Template -> {id, type, segs: [{lit | path_id, path_len, pad, part, kase}], paths: [...]} */
static json_t *template_ctx(gen *g, json_t *tmpl, const char *id, json_t *owner_fields, const char *type,
                            json_t *paths_out)
{
    json_t *t = json_object();
    json_object_set_new(t, "id", json_string(id));
    json_object_set_new(t, "type", json_string(type && !strcmp(type, "N") ? "DDB_TN" : "DDB_TS"));
    json_t *segs = json_array();
    size_t i;
    json_t *s;
    json_array_foreach(json_object_get(tmpl, "segments"), i, s) {
        json_t *o = json_object();
        if (sget(s, "lit")) {
            json_object_set_new(o, "lit", ddbgen_c_literal(sget(s, "lit")));
            json_object_set_new(o, "path", json_string("NULL"));
            json_object_set_new(o, "path_len", json_integer(0));
        } else {
            json_object_set_new(o, "lit", json_string("NULL"));
            /* path names -> field indexes through nested structs */
            json_t *fields = owner_fields, *idx = json_array();
            size_t j;
            json_t *pn;
            json_array_foreach(json_object_get(s, "path"), j, pn) {
                long k = index_named(fields, "name", json_string_value(pn));
                if (k < 0) {
                    fprintf(g->diag, "ddbgen: template %s: no field %s\n", sget(tmpl, "template"),
                            json_string_value(pn));
                    g->failed = 1;
                    k = 0;
                }
                json_array_append_new(idx, json_integer(k));
                json_t *f = json_array_get(fields, (size_t)k);
                json_t *st = f ? find_named(json_object_get(g->model, "structs"), "cname", sget(f, "struct")) : NULL;
                fields = st ? json_object_get(st, "fields") : NULL;
            }
            char pid[1400];
            snprintf(pid, sizeof pid, "%s_p%zu", id, i);
            json_t *p = json_object();
            json_object_set_new(p, "id", json_string(pid));
            json_t *ilist = json_array();
            size_t q;
            json_t *iv;
            json_array_foreach(idx, q, iv) {
                json_t *e = json_object();
                json_object_set_new(e, "i", json_integer(json_integer_value(iv)));
                json_object_set_new(e, "sep", json_string(q + 1 < json_array_size(idx) ? ", " : ""));
                json_array_append_new(ilist, e);
            }
            json_object_set_new(p, "indexes", ilist);
            json_array_append_new(paths_out, p);
            json_object_set_new(o, "path", json_string(pid));
            json_object_set_new(o, "path_len", json_integer((json_int_t)json_array_size(idx)));
            json_decref(idx);
        }
        json_int_t pad = json_integer_value(json_object_get(s, "pad"));
        const char *part = sget(s, "part"), *kase = sget(s, "case");
        json_object_set_new(o, "pad", json_integer(pad));
        json_object_set_new(o, "part",
                            json_string(!part ? "DDB_TP_NONE" : !strcmp(part, "year") ? "DDB_TP_YEAR"
                                        : !strcmp(part, "month") ? "DDB_TP_MONTH"
                                        : !strcmp(part, "day") ? "DDB_TP_DAY" : "DDB_TP_QUARTER"));
        json_object_set_new(o, "kase", json_string(!kase ? "DDB_TC_NONE" : !strcmp(kase, "lower") ? "DDB_TC_LOWER"
                                                                                                 : "DDB_TC_UPPER"));
        json_array_append_new(segs, o);
    }
    json_object_set_new(t, "n", json_integer((json_int_t)json_array_size(segs)));
    json_object_set_new(t, "segs", segs);
    return t;
}

/* Fields of a struct (entity or nested) -> field descriptor data. */
static json_t *fields_ctx(gen *g, json_t *fields, const char *ctype, const char *prefix, const char *tprefix,
                          json_t *shards, json_t *templates, json_t *paths)
{
    json_t *out = json_array();
    size_t i;
    json_t *f;
    json_array_foreach(fields, i, f) {
        json_t *o = json_object();
        const char *name = sget(f, "name");
        json_object_set_new(o, "name", ddbgen_c_literal(name));
        json_object_set_new(o, "attr", ddbgen_c_literal(sget(f, "attr") ? sget(f, "attr") : name));
        const char *ft = ftype_of(f);
        json_object_set_new(o, "ftype", json_string(ft));
        json_object_set_new(o, "size", jstr("sizeof(((%s *)0)->%s)", ctype, name));
        json_object_set_new(o, "offset", jstr("offsetof(%s, %s)", ctype, name));
        const char *sub = "NULL";
        char subbuf[300];
        if (!strcmp(ft, "DDB_F_LIST")) {
            json_t *item = json_object_get(f, "item");
            json_object_set_new(o, "elem_type", json_string(ftype_of(item)));
            json_object_set_new(o, "elem_size", jstr("sizeof(*((%s *)0)->%s)", ctype, name));
            json_object_set_new(o, "count_offset", jstr("offsetof(%s, %s)", ctype, sget(f, "count_field")));
            if (sget(item, "struct")) {
                snprintf(subbuf, sizeof subbuf, "&%s_%s_struct", prefix, sget(item, "struct"));
                sub = subbuf;
            }
        } else {
            json_object_set_new(o, "elem_type", json_string("0"));
            json_object_set_new(o, "elem_size", json_string("0"));
            json_object_set_new(o, "count_offset", json_string("0"));
            if (sget(f, "struct")) {
                snprintf(subbuf, sizeof subbuf, "&%s_%s_struct", prefix, sget(f, "struct"));
                sub = subbuf;
            }
        }
        json_object_set_new(o, "sub", json_string(sub));
        char flags[256] = "";
        const char *names[][2] = {{"optional", "DDB_FIELD_OPTIONAL"}, {"uuid", "DDB_FIELD_UUID"},
                                  {"auto_id", "DDB_FIELD_AUTO_ID"}, {"version", "DDB_FIELD_VERSION"},
                                  {"ttl", "DDB_FIELD_TTL"},         {"derived", "DDB_FIELD_DERIVED"},
                                  {"key", "DDB_FIELD_KEY"}};
        for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
            json_t *v = json_object_get(f, names[k][0]);
            if (v && !json_is_false(v) && !json_is_null(v)) {
                if (*flags)
                    strcat(flags, " | ");
                strcat(flags, names[k][1]);
            }
        }
        json_object_set_new(o, "flags", json_string(*flags ? flags : "0"));
        json_t *d = json_object_get(f, "derived");
        if (d && templates) {
            char id[1024];
            snprintf(id, sizeof id, "%s_derived_%s", tprefix, name);
            json_t *tc = template_ctx(g, d, id, fields, sget(f, "type"), paths);
            json_object_set_new(tc, "standalone", json_true());
            json_array_append_new(templates, tc);
            json_object_set_new(o, "derived", jstr("&%s", id));
        } else {
            json_object_set_new(o, "derived", json_string("NULL"));
        }
        json_t *sh = json_object_get(f, "shard");
        long si = sh ? index_named(shards, "id", sget(sh, "id")) : -1;
        json_object_set_new(o, "shard", json_integer(si));
        json_array_append_new(out, o);
    }
    return out;
}

/* The C parameter list for the fields a set of templates uses (top-level
 * or nested paths), and the code that copies them into an object `k`. */
static void params_ctx(gen *g, json_t *ent_fields, json_t *tmpls[], size_t nt, json_t *params)
{
    (void)g;
    for (size_t t = 0; t < nt; t++) {
        size_t i;
        json_t *s;
        if (!tmpls[t])
            continue;
        json_array_foreach(json_object_get(tmpls[t], "segments"), i, s) {
            const char *field = sget(s, "field");
            if (!field || find_named(params, "path", field))
                continue;
            /* resolve the last component's field */
            json_t *fields = ent_fields, *f = NULL;
            size_t j;
            json_t *pn;
            json_array_foreach(json_object_get(s, "path"), j, pn) {
                f = find_named(fields, "name", json_string_value(pn));
                json_t *st = f ? find_named(json_object_get(g->model, "structs"), "cname", sget(f, "struct")) : NULL;
                fields = st ? json_object_get(st, "fields") : NULL;
            }
            if (!f)
                continue;
            json_t *p = json_object();
            char pname[256];
            snprintf(pname, sizeof pname, "%s", field);
            for (char *c = pname; *c; c++)
                if (*c == '.')
                    *c = '_';
            json_object_set_new(p, "path", json_string(field));
            json_object_set_new(p, "pname", json_string(pname));
            bool chars = json_object_get(f, "max_len") != NULL;
            json_object_set_new(p, "ctype", json_string(chars ? "const char *" : sget(f, "ctype")));
            if (chars) {
                json_object_set_new(p, "chars", json_true());
                json_object_set_new(p, "cname_lit", ddbgen_c_literal(field));
            }
            json_array_append_new(params, p);
        }
    }
    size_t n = json_array_size(params), i;
    json_t *p;
    json_array_foreach(params, i, p) json_object_set_new(p, "last", json_boolean(i + 1 == n));
}

static const char *key_type(const char *t)
{
    return t && !strcmp(t, "N") ? "DDB_TN" : t && !strcmp(t, "B") ? "DDB_TB" : "DDB_TS";
}

static json_t *build_context(gen *g, const char *base)
{
    json_t *m = g->model, *ctx = json_object();
    json_object_set_new(ctx, "version", json_string(DDBGEN_VERSION));
    int major = 0, minor = 0;
    sscanf(DDBGEN_VERSION, "%d.%d", &major, &minor);
    json_object_set_new(ctx, "major", json_integer(major));
    json_object_set_new(ctx, "minor", json_integer(minor));
    json_object_set_new(ctx, "source", json_string(sget(m, "schema") ? sget(m, "schema") : base));
    json_object_set_new(ctx, "base", json_string(base));
    char guard[300];
    snprintf(guard, sizeof guard, "%s_DDB_H", base);
    for (char *c = guard; *c; c++)
        *c = isalnum((unsigned char)*c) ? (char)toupper((unsigned char)*c) : '_';
    json_object_set_new(ctx, "guard", json_string(guard));
    const char *schema = sget(m, "schema");
    const char *slash = schema ? strrchr(schema, '/') : NULL;
    json_object_set_new(ctx, "schema_include", json_string(slash ? slash + 1 : schema ? schema : ""));

    /* tables */
    json_t *tables = json_array();
    size_t i;
    json_t *t;
    json_array_foreach(json_object_get(m, "tables"), i, t) {
        json_t *o = json_object(), *ix = json_array();
        json_object_set_new(o, "cname", json_string(sget(t, "cname")));
        json_object_set_new(o, "name", ddbgen_c_literal(sget(t, "name")));
        json_object_set_new(o, "type_attr", ddbgen_c_literal(sget(t, "type_attribute") ? sget(t, "type_attribute") : "Type"));
        size_t j;
        json_t *x;
        json_array_foreach(json_object_get(t, "indexes"), j, x) {
            json_t *pk = json_object_get(x, "pk"), *sk = json_object_get(x, "sk");
            const char *kind = sget(x, "kind");
            if (kind && !strcmp(kind, "primary")) {
                json_object_set_new(o, "pk", ddbgen_c_literal(sget(pk, "attr")));
                json_object_set_new(o, "pk_type", json_string(key_type(sget(pk, "type"))));
                json_object_set_new(o, "sk", sk ? ddbgen_c_literal(sget(sk, "attr")) : json_string("NULL"));
                json_object_set_new(o, "sk_type", json_string(sk ? key_type(sget(sk, "type")) : "DDB_TNONE"));
                continue;
            }
            json_t *xo = json_object();
            json_object_set_new(xo, "name", ddbgen_c_literal(sget(x, "name")));
            json_object_set_new(xo, "local", json_string(kind && !strcmp(kind, "lsi") ? "true" : "false"));
            json_object_set_new(xo, "pk", ddbgen_c_literal(sget(pk, "attr")));
            json_object_set_new(xo, "pk_type", json_string(key_type(sget(pk, "type"))));
            json_object_set_new(xo, "sk", sk ? ddbgen_c_literal(sget(sk, "attr")) : json_string("NULL"));
            json_object_set_new(xo, "sk_type", json_string(sk ? key_type(sget(sk, "type")) : "DDB_TNONE"));
            json_t *proj = json_object_get(x, "projection");
            const char *pt = proj ? sget(proj, "type") : "ALL";
            json_object_set_new(xo, "proj", jstr("DDB_PROJ_%s", pt ? pt : "ALL"));
            json_t *inc = json_array();
            size_t q;
            json_t *a;
            json_array_foreach(json_object_get(proj, "attributes"), q, a) {
                json_t *ao = json_object();
                json_object_set_new(ao, "attr", ddbgen_c_literal(json_string_value(a)));
                json_array_append_new(inc, ao);
            }
            json_object_set_new(xo, "n_include", json_integer((json_int_t)json_array_size(inc)));
            json_object_set_new(xo, "has_include", json_boolean(json_array_size(inc) > 0));
            json_object_set_new(xo, "include_ref", json_array_size(inc) ? jstr("%s_index%zu_include", sget(t, "cname"), json_array_size(ix)) : json_string("NULL"));
            json_object_set_new(xo, "include", inc);
            json_object_set_new(xo, "id", jstr("%s_index%zu", sget(t, "cname"), json_array_size(ix)));
            json_array_append_new(ix, xo);
        }
        json_t *members = json_array(), *en;
        size_t q;
        json_array_foreach(json_object_get(m, "entities"), q, en) {
            if (!sget(en, "table") || strcmp(sget(en, "table"), sget(t, "cname")) != 0)
                continue;
            json_t *mo = json_object();
            json_object_set_new(mo, "ename", json_string(sget(en, "cname")));
            json_array_append_new(members, mo);
        }
        json_object_set_new(o, "has_members", json_boolean(json_array_size(members) > 0));
        json_object_set_new(o, "n_members", json_integer((json_int_t)json_array_size(members)));
        json_object_set_new(o, "members_ref", json_array_size(members) ? jstr("%s_entities", sget(t, "cname"))
                                                                         : json_string("NULL"));
        json_object_set_new(o, "members", members);
        g->failed |= ddbgen_stream_ctx(m, t, o, g->diag); /* TTL attribute, stream decoder (generate_stream.c) */
        json_object_set_new(o, "n_indexes", json_integer((json_int_t)json_array_size(ix)));
        json_object_set_new(o, "has_indexes", json_boolean(json_array_size(ix) > 0));
        json_object_set_new(o, "indexes_ref", json_array_size(ix) ? jstr("%s_indexes", sget(t, "cname")) : json_string("NULL"));
        json_object_set_new(o, "indexes", ix);
        json_array_append_new(tables, o);
    }
    json_object_set_new(ctx, "tables", tables);

    /* nested structs */
    json_t *structs = json_array();
    json_array_foreach(json_object_get(m, "structs"), i, t) {
        json_t *o = json_object();
        char ctype[300];
        snprintf(ctype, sizeof ctype, "%s", sget(t, "ctype"));
        json_object_set_new(o, "id", jstr("%s_%s_struct", base, sget(t, "cname")));
        json_object_set_new(o, "cname", ddbgen_c_literal(sget(t, "cname")));
        json_object_set_new(o, "ctype", json_string(ctype));
        json_t *fs = fields_ctx(g, json_object_get(t, "fields"), ctype, base, base, NULL, NULL, NULL);
        json_object_set_new(o, "n_fields", json_integer((json_int_t)json_array_size(fs)));
        json_object_set_new(o, "fields", fs);
        json_array_append_new(structs, o);
    }
    json_object_set_new(ctx, "structs", structs);

    /* entities */
    json_t *ents = json_array();
    json_t *e;
    json_array_foreach(json_object_get(m, "entities"), i, e) {
        json_t *o = json_object(), *templates = json_array(), *paths = json_array();
        const char *cname = sget(e, "cname"), *ctype = sget(e, "ctype");
        char prefix[300];
        snprintf(prefix, sizeof prefix, "%s_%s", base, cname);
        json_object_set_new(o, "cname", json_string(cname));
        json_object_set_new(o, "ctype", json_string(ctype));
        json_object_set_new(o, "name", ddbgen_c_literal(sget(e, "name")));
        json_object_set_new(o, "table", json_string(sget(e, "table")));
        json_object_set_new(o, "prefix", json_string(prefix));
        json_t *shards = json_object_get(e, "shards"), *efields = json_object_get(e, "fields");
        json_t *fs = fields_ctx(g, efields, ctype, base, prefix, shards, templates, paths);
        json_object_set_new(o, "n_fields", json_integer((json_int_t)json_array_size(fs)));
        json_object_set_new(o, "fields", fs);
        json_t *sh = json_array();
        size_t j;
        json_t *s;
        json_array_foreach(shards, j, s) {
            json_t *so = json_object();
            json_object_set_new(so, "id", ddbgen_c_literal(sget(s, "id")));
            json_array_append_new(sh, so);
        }
        json_object_set_new(o, "n_shards", json_integer((json_int_t)json_array_size(sh)));
        json_object_set_new(o, "has_shards", json_boolean(json_array_size(sh) > 0));
        json_object_set_new(o, "shards_ref", json_array_size(sh) ? jstr("%s_shards", prefix) : json_string("NULL"));
        /* fields a full update writes: not keys, not maintained by ddbgen */
        json_t *upd = json_array(), *uf;
        json_array_foreach(efields, j, uf) {
            if (json_is_true(json_object_get(uf, "key")) || json_object_get(uf, "derived") ||
                json_object_get(uf, "version") || json_object_get(uf, "uuid") || json_object_get(uf, "auto_id"))
                continue;
            json_t *uo = json_object();
            json_object_set_new(uo, "name", ddbgen_c_literal(sget(uf, "name")));
            json_array_append_new(upd, uo);
        }
        json_object_set_new(o, "has_updatable", json_boolean(json_array_size(upd) > 0));
        json_object_set_new(o, "n_updatable", json_integer((json_int_t)json_array_size(upd)));
        json_object_set_new(o, "updatable", upd);
        json_object_set_new(o, "shards", sh);
        json_object_set_new(o, "shard_suffix", ddbgen_c_literal(sget(e, "shard_suffix") ? sget(e, "shard_suffix") : "#"));
        json_t *keys = json_array(), *k;
        json_t *pk_tmpls[2] = {NULL, NULL};
        json_array_foreach(json_object_get(e, "keys"), j, k) {
            json_t *ko = json_object();
            const char *index = sget(k, "index");
            bool primary = index && !strcmp(index, "table");
            json_t *pk = json_object_get(k, "pk"), *sk = json_object_get(k, "sk");
            char id[1024];
            json_object_set_new(ko, "index", primary ? json_string("NULL") : ddbgen_c_literal(index));
            json_object_set_new(ko, "index_ident", c_ident(index));
            json_object_set_new(ko, "key_no", json_integer((json_int_t)j));
            json_object_set_new(ko, "pk_attr", ddbgen_c_literal(sget(pk, "attr")));
            json_object_set_new(ko, "sk_attr", sk ? ddbgen_c_literal(sget(sk, "attr")) : json_string("NULL"));
            snprintf(id, sizeof id, "%s_k%zu_pk", prefix, j);
            json_array_append_new(templates, template_ctx(g, pk, id, efields, sget(pk, "type"), paths));
            json_object_set_new(ko, "pk_tmpl", json_string(id));
            if (sk) {
                snprintf(id, sizeof id, "%s_k%zu_sk", prefix, j);
                json_array_append_new(templates, template_ctx(g, sk, id, efields, sget(sk, "type"), paths));
                json_object_set_new(ko, "sk_tmpl", jstr("%s_segs, %zu, %s", id,
                                                        json_array_size(json_object_get(sk, "segments")),
                                                        key_type(sget(sk, "type"))));
            } else {
                json_object_set_new(ko, "sk_tmpl", json_string("NULL, 0, 0"));
            }
            json_object_set_new(ko, "pk_n", json_integer((json_int_t)json_array_size(json_object_get(pk, "segments"))));
            json_object_set_new(ko, "pk_type", json_string(key_type(sget(pk, "type"))));
            long ksh = sget(k, "shard") ? index_named(shards, "id", sget(k, "shard")) : -1;
            json_object_set_new(ko, "shard", json_integer(ksh));
            if (primary) {
                pk_tmpls[0] = pk;
                pk_tmpls[1] = sk;
                json_array_insert_new(keys, 0, ko);
            } else {
                json_array_append_new(keys, ko);
            }
        }
        /* key_no after the primary moved first */
        json_array_foreach(keys, j, k) json_object_set_new(k, "key_no", json_integer((json_int_t)j));
        json_object_set_new(o, "n_keys", json_integer((json_int_t)json_array_size(keys)));
        json_object_set_new(o, "keys", keys);
        json_t *params = json_array();
        params_ctx(g, efields, pk_tmpls, 2, params);
        json_object_set_new(o, "key_params", params);
        /* auto id scope */
        json_t *auto_scope = NULL;
        json_t *f;
        json_array_foreach(efields, j, f) if (json_object_get(f, "auto_id")) auto_scope = json_object_get(f, "auto_id");
        if (auto_scope) {
            char id[1024];
            snprintf(id, sizeof id, "%s_auto_scope", prefix);
            json_t *tc = template_ctx(g, auto_scope, id, efields, "S", paths);
            json_object_set_new(tc, "standalone", json_true());
            json_array_append_new(templates, tc);
            json_object_set_new(o, "auto_scope", jstr("&%s", id));
        } else {
            json_object_set_new(o, "auto_scope", json_string("NULL"));
        }
        json_object_set_new(o, "templates", templates);
        json_object_set_new(o, "paths", paths);
        json_array_append_new(ents, o);
    }
    json_object_set_new(ctx, "entities", ents);

    /* collections */
    json_t *colls = json_array(), *c;
    json_array_foreach(json_object_get(m, "collections"), i, c) {
        json_t *o = json_object(), *members = json_array();
        const char *index = sget(c, "index");
        json_object_set_new(o, "table", json_string(sget(c, "table")));
        json_object_set_new(o, "cname", c_ident(sget(c, "name")));
        json_object_set_new(o, "result_type", jstr("%s_%s_result", sget(c, "table"), sget(c, "name")));
        json_object_set_new(o, "id", jstr("%s_%s_collection", sget(c, "table"), sget(c, "name")));
        json_object_set_new(o, "name", ddbgen_c_literal(sget(c, "name")));
        json_object_set_new(o, "index", index && strcmp(index, "table") ? ddbgen_c_literal(index) : json_string("NULL"));
        size_t j;
        json_t *en;
        json_t *first = NULL;
        json_array_foreach(json_object_get(c, "entities"), j, en) {
            json_t *ent = find_named(json_object_get(m, "entities"), "name", json_string_value(en));
            if (!ent)
                continue;
            json_t *mo = json_object();
            json_object_set_new(mo, "cname", json_string(sget(ent, "cname")));
            json_object_set_new(mo, "ctype", json_string(sget(ent, "ctype")));
            /* the member's key number on the collection's index (primary first) */
            json_t *keys = json_object_get(ent, "keys"), *k;
            size_t q;
            long no = -1, sec = 0;
            json_array_foreach(keys, q, k) {
                bool primary = !strcmp(sget(k, "index"), "table");
                if (!strcmp(sget(k, "index"), index ? index : "table"))
                    no = primary ? 0 : sec + 1;
                if (!primary)
                    sec++;
            }
            json_object_set_new(mo, "key_no", json_integer(no < 0 ? 0 : no));
            json_array_append_new(members, mo);
            if (!first) {
                first = ent;
                json_t *pk = NULL;
                json_array_foreach(keys, q, k) if (!strcmp(sget(k, "index"), index ? index : "table")) pk =
                    json_object_get(k, "pk");
                json_t *params = json_array();
                json_t *tm[1] = {pk};
                params_ctx(g, json_object_get(ent, "fields"), tm, 1, params);
                json_object_set_new(o, "params", params);
                json_object_set_new(o, "first_ctype", json_string(sget(ent, "ctype")));
            }
        }
        json_object_set_new(o, "n_members", json_integer((json_int_t)json_array_size(members)));
        json_object_set_new(o, "members", members);
        json_array_append_new(colls, o);
    }
    json_object_set_new(ctx, "collections", colls);
    return ctx;
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    size_t r;
    while (buf && (r = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += r;
        if (cap - n - 1 == 0) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    fclose(f);
    if (buf)
        buf[n] = '\0';
    return buf;
}

static const char *load_partial(void *ud, const char *name)
{
    gen *g = ud;
    for (int i = 0; i < g->n_partials; i++)
        if (!strcmp(g->partial_name[i], name))
            return g->partial_buf[i];
    if (g->n_partials == (int)(sizeof g->partial_buf / sizeof *g->partial_buf))
        return NULL;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.mustache", g->templates_dir, name);
    char *text = read_file(path), *copy = text ? strdup(name) : NULL;
    if (!copy) {
        free(text);
        return NULL;
    }
    g->partial_name[g->n_partials] = copy;
    g->partial_buf[g->n_partials++] = text;
    return text;
}

/* Write path only when its content differs. */
static int write_if_changed(gen *g, const char *path, const char *text)
{
    char *old = read_file(path);
    int same = old && strcmp(old, text) == 0;
    free(old);
    if (same)
        return 0;
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0 || rename(tmp, path) != 0) {
        fprintf(g->diag, "ddbgen: cannot write %s: %s\n", path, strerror(errno));
        return 1;
    }
    return 0;
}

static int render_one(gen *g, json_t *ctx, const char *tmpl_name, const char *outdir, const char *outname)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", g->templates_dir, tmpl_name);
    char *tmpl = read_file(path);
    if (!tmpl) {
        fprintf(g->diag, "ddbgen: cannot read template %s: %s\n", path, strerror(errno));
        return 2;
    }
    ddbgen_mustache_opts o = {0};
    o.escape = 0;
    o.partial = load_partial;
    o.partial_ud = g;
    o.strict_partials = 1;
    o.strict_vars = 1;
    o.name = path;
    ddbgen_mustache_error merr;
    char *out = ddbgen_mustache_render(tmpl, ctx, &o, &merr);
    free(tmpl);
    if (!out) {
        fprintf(g->diag, "%s:%d:%d: error: %s\n", merr.source, merr.line, merr.column, merr.text);
        return 1;
    }
    snprintf(path, sizeof path, "%s/%s", outdir, outname);
    int rc = write_if_changed(g, path, out);
    free(out);
    return rc;
}

/* mkdir -p: the output directory is created when missing. */
static int make_dirs(const char *path)
{
    char buf[1024];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return -1;
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return mkdir(buf, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

int ddbgen_generate(json_t *model, const char *outdir, const char *templates_dir, const char *schema_base,
                    FILE *diag)
{
    gen g = {model, templates_dir, diag ? diag : stderr, 0, {0}, {0}, 0};
    struct stat st;
    if (stat(outdir, &st) != 0 && make_dirs(outdir) != 0) {
        fprintf(g.diag, "ddbgen: cannot create the output directory %s: %s\n", outdir, strerror(errno));
        return 2;
    }
    if (stat(outdir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(g.diag, "ddbgen: %s is not a directory\n", outdir);
        return 2;
    }
    json_t *ctx = build_context(&g, schema_base);
    int rc = g.failed;
    char name[600];
    if (!rc) {
        snprintf(name, sizeof name, "%s_ddb.h", schema_base);
        rc = render_one(&g, ctx, "module.h.mustache", outdir, name);
    }
    if (!rc) {
        snprintf(name, sizeof name, "%s_ddb.c", schema_base);
        rc = render_one(&g, ctx, "module.c.mustache", outdir, name);
    }
    if (getenv("DDBGEN_DUMP_CONTEXT")) {
        char *s = json_dumps(ctx, JSON_INDENT(1) | JSON_SORT_KEYS);
        fprintf(g.diag, "%s\n", s ? s : "");
        free(s);
    }
    json_decref(ctx);
    for (int i = 0; i < g.n_partials; i++) {
        free(g.partial_name[i]);
        free(g.partial_buf[i]);
    }
    return rc;
}
