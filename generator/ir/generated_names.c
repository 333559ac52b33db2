/* generated_names.c — the names a generated module gives every entity and
 * table (the one list of them: templates/module.*.mustache, decl_*.mustache
 * and module_old.*.mustache print these), and the check that no two things
 * of a schema generate one C identifier; the rule that makes a schema's
 * name a C identifier.  Calls diag, jsonutil (internal.h), the IR and libc. */
#include "generated_names.h"

#include "decl_write.h"
#include "internal.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* C's name spaces a generated name lives in: ordinary identifiers
 * (functions, objects, typedef names, enum constants) and tags (struct,
 * union, enum). */
enum { NS_ORD = 1, NS_TAG = 2, NS_TYPE = NS_ORD | NS_TAG };

typedef struct suffix {
    const char *text; /* "patch"; a family ends in <...>: "update_if_<condition>" */
    int ns;
} suffix;

/* <entity>_<text>.  Families: tx_ (the transaction forms: tx_put, tx_create,
 * tx_delete, tx_require, tx_patch, tx_upsert, tx_update_fields,
 * tx_<update>, tx_<op>_if_<condition>, tx_check_<condition>) and the
 * conditional forms of a DDB_CONDITION.  The static helpers of declared
 * writes (<entity>_<update>_parts_ ..., <entity>_cond_<condition>_) are
 * added per declaration (add_entity). */
static const suffix entity_suffixes[] = {
    {"put", NS_ORD},           {"create", NS_ORD},          {"update", NS_ORD},
    {"update_fields", NS_ORD}, {"patch", NS_ORD},           {"upsert", NS_ORD},
    {"get", NS_ORD},           {"delete", NS_ORD},          {"batch_put", NS_ORD},
    {"batch_get", NS_ORD},     {"batch_delete", NS_ORD},    {"to_item", NS_ORD},
    {"from_item", NS_ORD},     {"entity", NS_ORD},          {"scan", NS_ORD},
    {"mask", NS_ORD},          {"masks", NS_ORD},           {"fields", NS_ORD},
    {"scan_iter", NS_TYPE},    {"scan_begin", NS_ORD},      {"scan_next", NS_ORD},
    {"scan_end", NS_ORD},
    {"page", NS_TYPE},         {"page_of", NS_ORD},         {"from_old", NS_ORD},
    {"migrate", NS_ORD},       {"migrate_from_old", NS_ORD}, {"migration_step", NS_ORD},
    {"transform", NS_ORD},     {"transform_fn", NS_ORD},    {"tx_<operation>", NS_ORD},
    {"put_if_<condition>", NS_ORD},           {"delete_if_<condition>", NS_ORD},
    {"update_if_<condition>", NS_ORD},        {"patch_if_<condition>", NS_ORD},
    {"update_fields_if_<condition>", NS_ORD},
};

/* The static helpers of one DDB_UPDATE u: <entity>_<u><helper>. */
static const char *const update_helpers[] = {"_attrs_", "_known_", "_names_", "_parts_", "_u_"};

/* What one DDB_CONDITION c generates: <entity>_<op>c. */
static const char *const condition_forms[] = {"put_if_",           "delete_if_",    "update_if_",
                                              "patch_if_",         "update_fields_if_", "tx_put_if_",
                                              "tx_delete_if_",     "tx_update_fields_if_", "tx_patch_if_",
                                              "tx_check_"};

/* <table>_<text>; per member entity m: batch_put_<m>, batch_delete_<m>; per
 * collection c: query_<c>, query_<c>_<m> per member m, <c>_begin, _next,
 * _end, _iter, _result, _collection, _kind, _entry (and the static
 * <c>_collection_entries_). */
static const suffix table_suffixes[] = {
    {"table", NS_ORD},         {"open", NS_ORD},          {"open_with", NS_ORD},   {"create_table", NS_ORD},
    {"migrate", NS_ORD},       {"type", NS_TYPE},         {"image", NS_TYPE},      {"record", NS_TYPE},
    {"decode_record", NS_ORD}, {"scan", NS_ORD},          {"scan_desc", NS_ORD},   {"scan_members", NS_ORD},
    {"scan_result", NS_TYPE},  {"entities", NS_ORD},      {"indexes", NS_ORD},     {"batch", NS_TYPE},
    {"batch_new", NS_ORD},     {"batch_run", NS_ORD},     {"scan_kind", NS_TYPE},  {"scan_entry", NS_TYPE},
    {"scan_entries_", NS_ORD},
};
static const suffix collection_suffixes[] = {{"begin", NS_ORD},  {"next", NS_ORD},     {"end", NS_ORD},
                                             {"iter", NS_TYPE},  {"result", NS_TYPE},  {"collection", NS_ORD},
                                             {"kind", NS_TYPE},  {"entry", NS_TYPE},
                                             {"collection_entries_", NS_ORD}};

#define COUNT(a) (sizeof(a) / sizeof *(a))

const char *ddbgen_entity_name_taken(const char *name)
{
    for (size_t i = 0; name && i < COUNT(entity_suffixes); i++) {
        const char *t = entity_suffixes[i].text, *lt = strchr(t, '<');
        if (lt ? !strncmp(name, t, (size_t)(lt - t)) : !strcmp(name, t))
            return t;
    }
    return NULL;
}

/* ---- the module's name space ------------------------------------------------ */

enum { K_FIXED, K_READ, K_UPDATE, K_DERIVED, K_STRUCT };

typedef struct gname {
    char *id;          /* the C identifier */
    int ns;
    int kind;          /* K_*: clashes two checks already report are left to them */
    size_t owner;      /* which entity or table (tables after the entities) */
    char *what;        /* "the DDB_QUERY 'joined' of 'User'", "table 'shop''s shop_batch_run" */
    ddbgen_loc loc;
    size_t order;      /* as added: after the place in the schema, for "the later one" */
} gname;

typedef struct space {
    gname *v;
    size_t n, cap;
    int oom;
} space;

static void add(space *s, int ns, int kind, size_t owner, ddbgen_loc loc, const char *what, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));

static void add(space *s, int ns, int kind, size_t owner, ddbgen_loc loc, const char *what, const char *fmt, ...)
{
    if (s->oom)
        return;
    if (s->n == s->cap) {
        size_t nc = s->cap ? 2 * s->cap : 256;
        gname *v = realloc(s->v, nc * sizeof *v);
        if (!v) {
            s->oom = 1;
            return;
        }
        s->v = v;
        s->cap = nc;
    }
    char idb[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(idb, sizeof idb, fmt, ap);
    va_end(ap);
    char *id = n >= 0 && (size_t)n < sizeof idb ? strdup(idb) : NULL, *w = strdup(what);
    if (!id || !w) { /* a name beyond 1 KiB is refused elsewhere long before */
        free(id);
        free(w);
        s->oom = 1;
        return;
    }
    s->v[s->n] = (gname){id, ns, kind, owner, w, loc, s->n};
    s->n++;
}

static const json_t *named(const json_t *arr, const char *name)
{
    size_t i;
    const json_t *o;
    json_array_foreach(arr, i, o)
        if (name && !strcmp(ddbgen_jstr(o, "name") ? ddbgen_jstr(o, "name") : "", name))
            return o;
    return NULL;
}

char *ddbgen_c_ident(const char *s, int upper)
{
    char *buf = strdup(s ? s : "");
    if (!buf)
        return NULL;
    for (char *c = buf; *c; c++)
        *c = !isalnum((unsigned char)*c) ? '_' : upper ? (char)toupper((unsigned char)*c) : *c;
    return buf;
}

const char *ddbgen__part_word(ddbgen_tmpl_part p)
{
    static const char *const names[] = {"", "year", "month", "day", "quarter"};
    return (size_t)p < sizeof names / sizeof *names ? names[p] : "";
}

static char *ident(const char *s) { return ddbgen_c_ident(s, 0); }

static char *upper(const char *s) { return ddbgen_c_ident(s, 1); }

/* The names of a family suffix given its literal text (what precedes '<'). */
static void add_suffixes(space *s, const suffix *sx, size_t n, size_t owner, ddbgen_loc loc, const char *who,
                         const char *prefix)
{
    for (size_t i = 0; i < n; i++) {
        if (strchr(sx[i].text, '<'))
            continue; /* families: their members are added where they are declared */
        add(s, sx[i].ns, K_FIXED, owner, loc, who, "%s_%s", prefix, sx[i].text);
    }
}

/* The iterator of read <entity>_<read> (an access pattern, a DDB_QUERY or
 * a DDB_SCAN): <read>_iter, _begin, _next, _end. */
static void add_iterator(space *s, size_t owner, ddbgen_loc loc, const char *what, const char *entity,
                         const char *read)
{
    static const char *const fns[] = {"begin", "next", "end"};
    for (size_t i = 0; i < sizeof fns / sizeof *fns; i++)
        add(s, NS_ORD, K_DERIVED, owner, loc, what, "%s_%s_%s", entity, read, fns[i]);
    add(s, NS_TYPE, K_DERIVED, owner, loc, what, "%s_%s_iter", entity, read);
}

static void add_pattern(space *s, const ddbgen_ir_entity *e, const ddbgen_ir_key *k, size_t owner,
                        const json_t *je)
{
    const json_t *jp = named(json_object_get(je, "patterns"), k->pattern);
    ddbgen_loc loc = ddbgen_loc_of(jp ? jp : je, "loc");
    char *p = ident(k->pattern);
    if (!p) {
        s->oom = 1;
        return;
    }
    char what[512];
    snprintf(what, sizeof what, "the access pattern '%s' of '%s'", k->pattern, e->name);
    if (!ddbgen_entity_name_taken(p))
        add(s, NS_ORD, K_READ, owner, loc, what, "%s_%s", e->cname, p);
    add(s, NS_TYPE, K_DERIVED, owner, loc, what, "%s_%s_sk", e->cname, p);
    add(s, NS_ORD, K_DERIVED, owner, loc, what, "%s_%s_all", e->cname, p);
    add_iterator(s, owner, loc, what, e->cname, p);
    add(s, NS_ORD, K_DERIVED, owner, loc, what, "%s_%s_kc_", e->cname, p); /* its key condition (static) */
    for (size_t i = 0; i < k->n_levels; i++) {
        const ddbgen_ir_level *l = &k->levels[i];
        char *lid = ident(l->path);
        const char *part = ddbgen__part_word(k->sk.segs[l->seg].part);
        if (lid) {
            add(s, NS_ORD, K_DERIVED, owner, loc, what, "%s_%s_%s%s%s", e->cname, p, lid, *part ? "_" : "", part);
            add(s, NS_ORD, K_DERIVED, owner, loc, what, "%s_%s_%s%s%s_between", e->cname, p, lid, *part ? "_" : "",
                part);
        } else
            s->oom = 1;
        free(lid);
    }
    free(p);
}

static void add_entity(space *s, const ddbgen_ir_entity *e, size_t owner, const json_t *je)
{
    ddbgen_loc loc = ddbgen_loc_of(je, "loc");
    char who[300];
    snprintf(who, sizeof who, "entity '%s'", e->name);
    add_suffixes(s, entity_suffixes, COUNT(entity_suffixes), owner, loc, who, e->cname);
    const char *tag = !strncmp(e->ctype, "struct ", 7) ? e->ctype + 7 : NULL;
    char what[512];
    if (tag) {
        snprintf(what, sizeof what, "the struct of '%s'", e->name);
        add(s, NS_TAG, K_STRUCT, owner, loc, what, "%s", tag);
    }
    char *eu = upper(e->cname);
    for (size_t f = 0; eu && f < e->n_fields; f++) {
        char *fu = upper(e->fields[f].name);
        if (fu) {
            add(s, NS_ORD, K_FIXED, owner, loc, who, "%s_FN_%s", eu, fu);
            add(s, NS_ORD, K_FIXED, owner, loc, who, "%s_F_%s", eu, fu);
        }
        s->oom |= !fu;
        free(fu);
    }
    if (eu)
        add(s, NS_ORD, K_FIXED, owner, loc, who, "%s_MIGRATION_ID", eu);
    s->oom |= !eu;
    free(eu);
    for (size_t k = 0; k < e->n_keys; k++)
        add_pattern(s, e, &e->keys[k], owner, je);
    const json_t *qs = json_object_get(je, "queries"), *ss = json_object_get(je, "scans");
    for (size_t q = 0; q < e->n_queries; q++) {
        const ddbgen_ir_query *iq = &e->queries[q];
        const json_t *jq = named(iq->key ? qs : ss, iq->name);
        snprintf(what, sizeof what, "the %s '%s' of '%s'", iq->key ? "DDB_QUERY" : "DDB_SCAN", iq->name, e->name);
        ddbgen_loc ql = ddbgen_loc_of(jq ? jq : je, "loc");
        if (!ddbgen_entity_name_taken(iq->name))
            add(s, NS_ORD, K_READ, owner, ql, what, "%s_%s", e->cname, iq->name);
        add_iterator(s, owner, ql, what, e->cname, iq->name);
    }
    for (size_t u = 0; e->writes && u < e->writes->n_updates; u++) {
        const char *n = e->writes->updates[u].name;
        const json_t *ju = named(json_object_get(je, "updates"), n);
        ddbgen_loc ul = ddbgen_loc_of(ju ? ju : je, "loc");
        snprintf(what, sizeof what, "the DDB_UPDATE '%s' of '%s'", n, e->name);
        if (ddbgen_entity_name_taken(n))
            continue;
        add(s, NS_ORD, K_UPDATE, owner, ul, what, "%s_%s", e->cname, n);
        add(s, NS_ORD, K_DERIVED, owner, ul, what, "%s_tx_%s", e->cname, n);
        for (size_t h = 0; h < COUNT(update_helpers); h++)
            add(s, NS_ORD, K_DERIVED, owner, ul, what, "%s_%s%s", e->cname, n, update_helpers[h]);
    }
    for (size_t c = 0; e->writes && c < e->writes->n_conditions; c++) {
        const char *n = e->writes->conditions[c].name;
        const json_t *jc = named(json_object_get(je, "conditions"), n);
        snprintf(what, sizeof what, "the DDB_CONDITION '%s' of '%s'", n, e->name);
        ddbgen_loc cl = ddbgen_loc_of(jc ? jc : je, "loc");
        for (size_t f = 0; f < COUNT(condition_forms); f++)
            add(s, NS_ORD, K_DERIVED, owner, cl, what, "%s_%s%s", e->cname, condition_forms[f], n);
        add(s, NS_ORD, K_DERIVED, owner, cl, what, "%s_cond_%s_", e->cname, n);
    }
}

/* Owner numbers of the entities: their index in ir->entities. */
static size_t entity_no(const ddbgen_ir *ir, const ddbgen_ir_entity *e) { return (size_t)(e - ir->entities); }

/* One read result of a table (the scan's <t>_scan_result, a collection's
 * <t>_<c>_result): the members <e>, <e>_count and <e>_masks of each entity
 * (owned by the entity, as "<type>.<member>"), page and entries; the constants
 * <T>_<NAME>_<E> and <T>_<NAME>_MEMBERS. */
static void add_result(space *s, const ddbgen_ir *ir, size_t owner, ddbgen_loc loc, const char *who,
                       const char *type, const char *konst, const ddbgen_ir_entity *const *es, size_t n,
                       const json_t *ents)
{
    static const char *const members[] = {"", "_count", "_masks"};
    char what[512];
    add(s, NS_ORD, K_FIXED, owner, loc, who, "%s.page", type);
    add(s, NS_ORD, K_FIXED, owner, loc, who, "%s.entries", type); /* the page in the order read */
    add(s, NS_ORD, K_FIXED, owner, loc, who, "%s_MEMBERS", konst);
    for (size_t i = 0; i < n; i++) {
        size_t no = entity_no(ir, es[i]);
        ddbgen_loc el = ddbgen_loc_of(json_array_get(ents, no), "loc");
        char *eu = upper(es[i]->cname);
        if (!eu) {
            s->oom = 1;
            return;
        }
        snprintf(what, sizeof what, "entity '%s'", es[i]->name);
        for (size_t m = 0; m < COUNT(members); m++)
            add(s, NS_ORD, K_DERIVED, no, el, what, "%s.%s%s", type, es[i]->cname, members[m]);
        add(s, NS_ORD, K_DERIVED, no, el, what, "%s_%s", konst, eu);
        free(eu);
    }
}

static void add_table(space *s, const ddbgen_ir *ir, const ddbgen_ir_table *t, size_t owner, const json_t *jt,
                      const json_t *ents)
{
    ddbgen_loc loc = ddbgen_loc_of(jt, "loc");
    char who[300], what[512];
    snprintf(who, sizeof who, "table '%s'", t->cname);
    add_suffixes(s, table_suffixes, COUNT(table_suffixes), owner, loc, who, t->cname);
    for (size_t i = 0; i < t->n_entities; i++) {
        const char *m = t->entities[i]->cname;
        snprintf(what, sizeof what, "the mixed batch of table '%s' (for '%s')", t->cname, t->entities[i]->name);
        add(s, NS_ORD, K_DERIVED, owner, loc, what, "%s_batch_put_%s", t->cname, m);
        add(s, NS_ORD, K_DERIVED, owner, loc, what, "%s_batch_delete_%s", t->cname, m);
    }
    char *tu = upper(t->cname), type[600], konst[600];
    if (!tu) {
        s->oom = 1;
        return;
    }
    snprintf(type, sizeof type, "%s_scan_result", t->cname);
    snprintf(konst, sizeof konst, "%s_SCAN", tu);
    add_result(s, ir, owner, loc, who, type, konst, (const ddbgen_ir_entity *const *)t->entities, t->n_entities,
               ents);
    add(s, NS_ORD, K_FIXED, owner, loc, who, "%s_TYPE_NONE", tu);
    for (size_t i = 0; i < t->n_entities; i++) {
        char *eu = upper(t->entities[i]->cname);
        size_t no = entity_no(ir, t->entities[i]);
        snprintf(what, sizeof what, "entity '%s'", t->entities[i]->name);
        if (eu)
            add(s, NS_ORD, K_DERIVED, no, ddbgen_loc_of(json_array_get(ents, no), "loc"), what, "%s_TYPE_%s", tu,
                eu);
        else
            s->oom = 1;
        free(eu);
    }
    for (size_t c = 0; c < ir->n_collections; c++) {
        const ddbgen_ir_collection *col = &ir->collections[c];
        if (col->table != t)
            continue;
        snprintf(what, sizeof what, "the collection '%s' of table '%s'", col->name, t->cname);
        add(s, NS_ORD, K_DERIVED, owner, loc, what, "%s_query_%s", t->cname, col->name);
        for (size_t i = 0; i < col->n_members; i++) /* its typed ranges */
            add(s, NS_ORD, K_DERIVED, owner, loc, what, "%s_query_%s_%s", t->cname, col->name,
                col->members[i].entity->cname);
        for (size_t i = 0; i < COUNT(collection_suffixes); i++)
            add(s, collection_suffixes[i].ns, K_DERIVED, owner, loc, what, "%s_%s_%s", t->cname, col->name,
                collection_suffixes[i].text);
        const ddbgen_ir_entity **es = calloc(col->n_members ? col->n_members : 1, sizeof *es);
        char *cu = upper(col->name);
        if (es && cu) {
            for (size_t i = 0; i < col->n_members; i++)
                es[i] = col->members[i].entity;
            snprintf(type, sizeof type, "%s_%s_result", t->cname, col->name);
            snprintf(konst, sizeof konst, "%s_%s", tu, cu);
            add_result(s, ir, owner, loc, what, type, konst, es, col->n_members, ents);
        } else {
            s->oom = 1;
        }
        free(es);
        free(cu);
    }
    free(tu);
}

/* ---- the module's own descriptors (templates/entity_desc.mustache, table_desc,
 * struct_desc; render_context.c names them): <base>_<entity>_... ---------- */

static const char *const entity_descriptors[] = {"fields", "keys",   "struct",  "updatable",
                                                 "shards", "write_shards", "renames", "claims"};

/* A key or derived template's descriptor id: id, id_segs, id_p<i> per hole. */
static void add_template(space *s, size_t owner, ddbgen_loc loc, const char *who, const char *id,
                         const ddbgen_ir_template *t)
{
    add(s, NS_ORD, K_FIXED, owner, loc, who, "%s", id);
    add(s, NS_ORD, K_FIXED, owner, loc, who, "%s_segs", id);
    for (size_t i = 0; i < t->n_segs; i++)
        if (!t->segs[i].lit)
            add(s, NS_ORD, K_FIXED, owner, loc, who, "%s_p%zu", id, i);
}

static void add_descriptors(space *s, const ddbgen_ir *ir, const char *base, const json_t *ents, const json_t *tabs)
{
    char who[300], id[600];
    ddbgen_loc none = {NULL, 0, 0};
    add(s, NS_ORD, K_FIXED, SIZE_MAX, none, "the module", "%s_sk_level", base);
    add(s, NS_ORD, K_FIXED, SIZE_MAX, none, "the module", "%s_failed", base);
    for (size_t i = 0; i < ir->n_structs; i++) {
        add(s, NS_ORD, K_FIXED, SIZE_MAX, none, "the module", "%s_%s_struct", base, ir->structs[i].cname);
        add(s, NS_ORD, K_FIXED, SIZE_MAX, none, "the module", "%s_%s_struct_fields", base, ir->structs[i].cname);
    }
    for (size_t i = 0; i < ir->n_entities; i++) {
        const ddbgen_ir_entity *e = &ir->entities[i];
        ddbgen_loc loc = ddbgen_loc_of(json_array_get(ents, i), "loc");
        snprintf(who, sizeof who, "the module's descriptor of '%s'", e->name);
        for (size_t k = 0; k < COUNT(entity_descriptors); k++)
            add(s, NS_ORD, K_FIXED, i, loc, who, "%s_%s_%s", base, e->cname, entity_descriptors[k]);
        for (size_t k = 0; k < e->n_keys; k++) {
            const ddbgen_ir_key *key = &e->keys[k];
            snprintf(id, sizeof id, "%s_%s_k%zu_pk", base, e->cname, key->decl_no);
            add_template(s, i, loc, who, id, &key->pk);
            if (key->has_sk) {
                snprintf(id, sizeof id, "%s_%s_k%zu_sk", base, e->cname, key->decl_no);
                add_template(s, i, loc, who, id, &key->sk);
            }
            add(s, NS_ORD, K_FIXED, i, loc, who, "%s_%s_k%zu_ws", base, e->cname, key->decl_no);
        }
        for (size_t f = 0; f < e->n_fields; f++)
            if (e->fields[f].derived) {
                snprintf(id, sizeof id, "%s_%s_derived_%s", base, e->cname, e->fields[f].name);
                add_template(s, i, loc, who, id, e->fields[f].derived);
            }
        if (e->auto_scope) {
            snprintf(id, sizeof id, "%s_%s_auto_scope", base, e->cname);
            add_template(s, i, loc, who, id, e->auto_scope);
        }
    }
    for (size_t t = 0; t < ir->n_tables; t++)
        for (size_t x = 0; x < ir->tables[t].n_indexes; x++) {
            snprintf(who, sizeof who, "table '%s'", ir->tables[t].cname);
            ddbgen_loc tl = ddbgen_loc_of(named(tabs, ir->tables[t].name), "loc");
            add(s, NS_ORD, K_FIXED, ir->n_entities + t, tl, who, "%s_index%zu", ir->tables[t].cname, x);
            add(s, NS_ORD, K_FIXED, ir->n_entities + t, tl, who, "%s_index%zu_include", ir->tables[t].cname, x);
        }
}

static int by_id(const void *a, const void *b)
{
    const gname *x = a, *y = b;
    int c = strcmp(x->id, y->id);
    if (c)
        return c;
    /* then by place in the schema (one file: a header or a model), then as added */
    if (x->loc.line != y->loc.line)
        return x->loc.line < y->loc.line ? -1 : 1;
    if (x->loc.col != y->loc.col)
        return x->loc.col < y->loc.col ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* Clashes the other checks report already: two reads of one entity
 * (reads.c's claim), two declared updates of one entity (decl_update.c). */
static bool reported_elsewhere(const gname *a, const gname *b)
{
    return a->owner == b->owner && a->kind == b->kind && (a->kind == K_READ || a->kind == K_UPDATE);
}

typedef struct clash {
    const gname *a, *b; /* a earlier */
    bool shown;
} clash;

static bool same_pair(const clash *x, const clash *y)
{
    return x->a->owner == y->a->owner && x->b->owner == y->b->owner && !strcmp(x->a->what, y->a->what) &&
           !strcmp(x->b->what, y->b->what);
}

/* s sorted by id: each later name against the first earlier one it clashes
 * with; one error for each two things that clash, naming one identifier and
 * how many more the two share. */
static void report_clashes(space *s, ddbgen_diags *d)
{
    clash *c = calloc(s->n ? s->n : 1, sizeof *c);
    size_t n = 0;
    if (!c) {
        ddbgen_loc none = {NULL, 0, 0};
        ddbgen_diag_add(d, DDBGEN_ERROR, none, "out of memory");
        return;
    }
    for (size_t i = 0, end; i < s->n; i = end) {
        for (end = i + 1; end < s->n && !strcmp(s->v[i].id, s->v[end].id); end++)
            ;
        for (size_t j = i + 1; j < end; j++)
            for (size_t k = i; k < j; k++)
                if ((s->v[k].ns & s->v[j].ns) && !reported_elsewhere(&s->v[k], &s->v[j])) {
                    c[n++] = (clash){&s->v[k], &s->v[j], false};
                    break;
                }
    }
    for (size_t i = 0; i < n; i++) {
        if (c[i].shown)
            continue;
        size_t more = 0;
        for (size_t j = i + 1; j < n; j++)
            if (!c[j].shown && same_pair(&c[i], &c[j])) {
                c[j].shown = true;
                more++;
            }
        const gname *a = c[i].a, *b = c[i].b;
        char others[64] = "";
        if (more)
            snprintf(others, sizeof others, " (and %zu other name%s)", more, more == 1 ? "" : "s");
        long h = ddbgen_diag_add(d, DDBGEN_ERROR, b->loc,
                                 "%s would generate %s%s%s, which %s generates already: rename one of them", b->what,
                                 (a->ns & b->ns) == NS_TAG ? "the type " : "", b->id, others, a->what);
        if (a->loc.file)
            ddbgen_diag_note(d, h, a->loc, "%s is here", a->what);
    }
    free(c);
}

void ddbgen__check_generated_names(const ddbgen_ir *ir, const json_t *declared, const char *base, ddbgen_diags *d)
{
    space s = {0};
    const json_t *ents = json_object_get(declared, "entities"), *tabs = json_object_get(declared, "tables");
    /* tables first: a clash of an entity with its table is the entity's (the later one) */
    for (size_t i = 0; i < ir->n_tables; i++)
        add_table(&s, ir, &ir->tables[i], ir->n_entities + i, named(tabs, ir->tables[i].name), ents);
    for (size_t i = 0; i < ir->n_entities; i++)
        add_entity(&s, &ir->entities[i], i, json_array_get(ents, i));
    if (base)
        add_descriptors(&s, ir, base, ents, tabs);
    if (s.oom) {
        ddbgen_loc none = {NULL, 0, 0};
        ddbgen_diag_add(d, DDBGEN_ERROR, none, "out of memory");
    } else {
        qsort(s.v, s.n, sizeof *s.v, by_id);
        report_clashes(&s, d);
    }
    for (size_t i = 0; i < s.n; i++) {
        free(s.v[i].id);
        free(s.v[i].what);
    }
    free(s.v);
}
