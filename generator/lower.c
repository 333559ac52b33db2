/* lower.c — the lowering step: a checked model (JSON) becomes the typed IR
 * of ir.h.
 *
 * Runs only on a model that passed validate.c, so it reports nothing: every
 * name it resolves is known to exist.  Everything the back-end needs is
 * derived here, once: pointers between tables, indexes, entities, fields
 * and shards; template holes as field index paths; the primary key first
 * with key numbers; each table's TTL attribute; collection members and the
 * fields that address an item (key parameters).  May call internal.h's JSON
 * helpers and template.h; nothing else.
 */
#include "internal.h"
#include "ir.h"

#include <stdlib.h>
#include <string.h>

struct ddbgen_ir_pool {
    ddbgen_ir_pool *next;
    max_align_t data[];
};

typedef struct lw {
    ddbgen_ir *ir;
    const json_t *model;
    int oom;
} lw;

/* n zeroed bytes owned by the IR (NULL, with lw->oom set, when out of memory). */
static void *alloc(lw *w, size_t n)
{
    ddbgen_ir_pool *p = calloc(1, sizeof *p + (n ? n : 1));
    if (!p) {
        w->oom = 1;
        return NULL;
    }
    p->next = w->ir->pool;
    w->ir->pool = p;
    return p->data;
}

static void *alloc_array(lw *w, size_t count, size_t size)
{
    return count ? alloc(w, count * size) : NULL;
}

static const char *copy(lw *w, const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *c = alloc(w, n);
    if (c)
        memcpy(c, s, n);
    return c;
}

static int is(const char *a, const char *b) { return a && b && !strcmp(a, b); }

const char *ddbgen_ir_type_name(ddbgen_ir_type t)
{
    static const char *const names[] = {"S", "N", "B", "BOOL", "M", "L", "SS", "NS", "BS"};
    return (size_t)t < sizeof names / sizeof *names ? names[t] : "S";
}

static ddbgen_ir_type type_of(const char *name)
{
    for (int t = DDBGEN_IR_S; t <= DDBGEN_IR_BS; t++)
        if (is(name, ddbgen_ir_type_name((ddbgen_ir_type)t)))
            return (ddbgen_ir_type)t;
    return DDBGEN_IR_S;
}

/* "i32" / "u64" / "f64" -> its kind. */
static ddbgen_ir_num num_of(const char *num)
{
    if (!num)
        return DDBGEN_IR_NUM_NONE;
    return num[0] == 'f' ? DDBGEN_IR_NUM_FLOAT : num[0] == 'u' ? DDBGEN_IR_NUM_UINT : DDBGEN_IR_NUM_INT;
}

static const ddbgen_ir_struct *struct_named(lw *w, const char *cname)
{
    for (size_t i = 0; cname && i < w->ir->n_structs; i++)
        if (is(w->ir->structs[i].cname, cname))
            return &w->ir->structs[i];
    return NULL;
}

/* ---- templates ------------------------------------------------------------ */

static ddbgen_tmpl_part part_of(const char *name)
{
    for (int p = DDBGEN_PART_YEAR; p <= DDBGEN_PART_QUARTER; p++)
        if (is(name, ddbgen_tmpl_part_name((ddbgen_tmpl_part)p)))
            return (ddbgen_tmpl_part)p;
    return DDBGEN_PART_NONE;
}

static ddbgen_tmpl_case case_of(const char *name)
{
    return is(name, "lower") ? DDBGEN_CASE_LOWER : is(name, "upper") ? DDBGEN_CASE_UPPER : DDBGEN_CASE_NONE;
}

/* The hole's path of names (["home", "country"]) as field indexes, starting
 * from the owner's fields. */
static void lower_path(lw *w, const json_t *names, const ddbgen_ir_field *fields, size_t n_fields,
                       ddbgen_ir_segment *seg)
{
    size_t n = json_array_size(names);
    size_t *path = alloc_array(w, n, sizeof *path);
    seg->path = path;
    seg->path_len = n;
    for (size_t i = 0; path && i < n; i++) {
        const char *name = json_string_value(json_array_get(names, i));
        const ddbgen_ir_field *f = NULL;
        for (size_t k = 0; k < n_fields && !f; k++) {
            if (is(fields[k].name, name)) {
                f = &fields[k];
                path[i] = k;
            }
        }
        if (!f)
            return; /* the checks resolved every path; unreachable */
        seg->field = f;
        fields = f->st ? f->st->fields : NULL;
        n_fields = f->st ? f->st->n_fields : 0;
    }
}

static void lower_template(lw *w, const json_t *t, bool numeric, const ddbgen_ir_field *fields,
                           size_t n_fields, ddbgen_ir_template *out)
{
    const json_t *segs = json_object_get(t, "segments");
    out->text = copy(w, ddbgen_jstr(t, "template"));
    out->numeric = numeric;
    out->n_segs = json_array_size(segs);
    out->segs = alloc_array(w, out->n_segs, sizeof *out->segs);
    for (size_t i = 0; out->segs && i < out->n_segs; i++) {
        const json_t *s = json_array_get(segs, i);
        ddbgen_ir_segment *seg = &out->segs[i];
        if (ddbgen_jstr(s, "lit")) {
            seg->lit = copy(w, ddbgen_jstr(s, "lit"));
            continue;
        }
        seg->field_path = copy(w, ddbgen_jstr(s, "field"));
        seg->pad = (int)ddbgen_jint(s, "pad", 0);
        seg->part = part_of(ddbgen_jstr(s, "part"));
        seg->kase = case_of(ddbgen_jstr(s, "case"));
        lower_path(w, json_object_get(s, "path"), fields, n_fields, seg);
    }
}

static const ddbgen_ir_template *new_template(lw *w, const json_t *t, bool numeric,
                                              const ddbgen_ir_field *fields, size_t n_fields)
{
    ddbgen_ir_template *out = alloc(w, sizeof *out);
    if (out)
        lower_template(w, t, numeric, fields, n_fields, out);
    return out;
}

/* The distinct holes of templates (in order) as parameters. */
static ddbgen_ir_param *collect_params(lw *w, const ddbgen_ir_template *const *tmpls, size_t nt, size_t *count)
{
    size_t cap = 0;
    for (size_t t = 0; t < nt; t++)
        cap += tmpls[t] ? tmpls[t]->n_segs : 0;
    ddbgen_ir_param *params = alloc_array(w, cap, sizeof *params);
    size_t n = 0;
    for (size_t t = 0; params && t < nt; t++) {
        for (size_t i = 0; tmpls[t] && i < tmpls[t]->n_segs; i++) {
            const ddbgen_ir_segment *s = &tmpls[t]->segs[i];
            int seen = !s->field_path || !s->field;
            for (size_t k = 0; k < n && !seen; k++)
                seen = is(params[k].path, s->field_path);
            if (!seen)
                params[n++] = (ddbgen_ir_param){.path = s->field_path, .field = s->field};
        }
    }
    *count = n;
    return params;
}

/* ---- fields and structs --------------------------------------------------- */

static void lower_value(lw *w, const json_t *v, ddbgen_ir_value *out)
{
    out->type = type_of(ddbgen_jstr(v, "type"));
    out->num = num_of(ddbgen_jstr(v, "num"));
    out->chars = json_object_get(v, "max_len") != NULL;
    out->st = struct_named(w, ddbgen_jstr(v, "struct"));
}

/* The declared members of a field; templates and shards come later, when
 * the owner's fields all exist. */
static void lower_field(lw *w, const json_t *f, ddbgen_ir_field *out)
{
    ddbgen_ir_value v;
    lower_value(w, f, &v);
    out->name = copy(w, ddbgen_jstr(f, "name"));
    out->attr = copy(w, ddbgen_jstr(f, "attr"));
    out->ctype = copy(w, ddbgen_jstr(f, "ctype"));
    out->type = v.type;
    out->num = v.num;
    out->chars = v.chars;
    out->st = v.st;
    out->is_list = json_object_get(f, "item") != NULL;
    if (out->is_list)
        lower_value(w, json_object_get(f, "item"), &out->item);
    out->count_field = copy(w, ddbgen_jstr(f, "count_field"));
    out->optional = ddbgen_jtrue(f, "optional");
    out->uuid = json_object_get(f, "uuid") != NULL;
    out->version = json_object_get(f, "version") != NULL;
    out->ttl = json_object_get(f, "ttl") != NULL;
    out->key = ddbgen_jtrue(f, "key");
}

static ddbgen_ir_field *lower_fields(lw *w, const json_t *fields, size_t *count)
{
    *count = json_array_size(fields);
    ddbgen_ir_field *out = alloc_array(w, *count, sizeof *out);
    for (size_t i = 0; out && i < *count; i++)
        lower_field(w, json_array_get(fields, i), &out[i]);
    return out;
}

static void lower_structs(lw *w)
{
    const json_t *structs = json_object_get(w->model, "structs");
    ddbgen_ir *ir = w->ir;
    ir->n_structs = json_array_size(structs);
    ir->structs = alloc_array(w, ir->n_structs, sizeof *ir->structs);
    if (!ir->structs) {
        ir->n_structs = 0;
        return;
    }
    for (size_t i = 0; i < ir->n_structs; i++) {
        ir->structs[i].cname = copy(w, ddbgen_jstr(json_array_get(structs, i), "cname"));
        ir->structs[i].ctype = copy(w, ddbgen_jstr(json_array_get(structs, i), "ctype"));
    }
    /* fields after all names: a field may refer to a struct declared later */
    for (size_t i = 0; i < ir->n_structs; i++)
        ir->structs[i].fields =
            lower_fields(w, json_object_get(json_array_get(structs, i), "fields"), &ir->structs[i].n_fields);
}

/* ---- tables ------------------------------------------------------------- */

static void lower_key_attr(lw *w, const json_t *k, ddbgen_ir_key_attr *out)
{
    out->attr = copy(w, ddbgen_jstr(k, "attr"));
    out->type = type_of(ddbgen_jstr(k, "type"));
}

static void lower_index(lw *w, const json_t *x, ddbgen_ir_index *out)
{
    const char *kind = ddbgen_jstr(x, "kind");
    const json_t *proj = json_object_get(x, "projection");
    const char *pt = ddbgen_jstr(proj, "type");
    const json_t *inc = json_object_get(proj, "attributes");
    out->name = copy(w, ddbgen_jstr(x, "name"));
    out->kind = is(kind, "primary") ? DDBGEN_IR_PRIMARY : is(kind, "lsi") ? DDBGEN_IR_LSI : DDBGEN_IR_GSI;
    lower_key_attr(w, json_object_get(x, "pk"), &out->pk);
    out->has_sk = json_object_get(x, "sk") != NULL;
    if (out->has_sk)
        lower_key_attr(w, json_object_get(x, "sk"), &out->sk);
    out->projection = is(pt, "KEYS_ONLY") ? DDBGEN_IR_PROJ_KEYS_ONLY
                      : is(pt, "INCLUDE") ? DDBGEN_IR_PROJ_INCLUDE
                                          : DDBGEN_IR_PROJ_ALL;
    out->n_include = json_array_size(inc);
    const char **include = alloc_array(w, out->n_include, sizeof *include);
    for (size_t i = 0; include && i < out->n_include; i++)
        include[i] = copy(w, json_string_value(json_array_get(inc, i)));
    out->include = include;
}

static void lower_tables(lw *w)
{
    const json_t *tables = json_object_get(w->model, "tables");
    ddbgen_ir *ir = w->ir;
    ir->n_tables = json_array_size(tables);
    ir->tables = alloc_array(w, ir->n_tables, sizeof *ir->tables);
    if (!ir->tables) {
        ir->n_tables = 0;
        return;
    }
    for (size_t i = 0; i < ir->n_tables; i++) {
        const json_t *t = json_array_get(tables, i), *indexes = json_object_get(t, "indexes");
        ddbgen_ir_table *out = &ir->tables[i];
        out->cname = copy(w, ddbgen_jstr(t, "cname"));
        out->name = copy(w, ddbgen_jstr(t, "name"));
        out->type_attr = copy(w, ddbgen_jstr(t, "type_attribute") ? ddbgen_jstr(t, "type_attribute") : "Type");
        out->indexes = alloc_array(w, json_array_size(indexes), sizeof *out->indexes);
        for (size_t k = 0; k < json_array_size(indexes); k++) {
            const json_t *x = json_array_get(indexes, k);
            if (is(ddbgen_jstr(x, "kind"), "primary"))
                lower_index(w, x, &out->primary);
            else if (out->indexes)
                lower_index(w, x, &out->indexes[out->n_indexes++]);
        }
    }
}

static ddbgen_ir_table *table_named(lw *w, const char *cname)
{
    for (size_t i = 0; i < w->ir->n_tables; i++)
        if (is(w->ir->tables[i].cname, cname))
            return &w->ir->tables[i];
    return NULL;
}

static const ddbgen_ir_index *index_named(const ddbgen_ir_table *t, const char *name)
{
    if (is(name, "table"))
        return &t->primary;
    for (size_t i = 0; i < t->n_indexes; i++)
        if (is(t->indexes[i].name, name))
            return &t->indexes[i];
    return NULL;
}

/* ---- entities ------------------------------------------------------------- */

static const ddbgen_ir_shard *shard_named(const ddbgen_ir_entity *e, const char *id)
{
    for (size_t i = 0; id && i < e->n_shards; i++)
        if (is(e->shards[i].id, id))
            return &e->shards[i];
    return NULL;
}

static void lower_shards(lw *w, const json_t *je, ddbgen_ir_entity *e)
{
    const json_t *shards = json_object_get(je, "shards");
    e->n_shards = json_array_size(shards);
    e->shards = alloc_array(w, e->n_shards, sizeof *e->shards);
    if (!e->shards)
        e->n_shards = 0;
    for (size_t i = 0; i < e->n_shards; i++)
        e->shards[i] = (ddbgen_ir_shard){.id = copy(w, ddbgen_jstr(json_array_get(shards, i), "id")), .no = i};
    e->shard_suffix = copy(w, ddbgen_jstr(je, "shard_suffix") ? ddbgen_jstr(je, "shard_suffix") : "#");
}

/* Templates, shards and the update set of each field, once all fields exist. */
static void finish_fields(lw *w, const json_t *je, ddbgen_ir_entity *e)
{
    const json_t *fields = json_object_get(je, "fields");
    for (size_t i = 0; i < e->n_fields; i++) {
        const json_t *f = json_array_get(fields, i);
        ddbgen_ir_field *out = &e->fields[i];
        const json_t *derived = json_object_get(f, "derived"), *auto_id = json_object_get(f, "auto_id");
        if (derived)
            out->derived = new_template(w, derived, out->type == DDBGEN_IR_N, e->fields, e->n_fields);
        if (auto_id) {
            out->auto_id = new_template(w, auto_id, false, e->fields, e->n_fields);
            e->auto_scope = out->auto_id;
        }
        out->shard = shard_named(e, ddbgen_jstr(json_object_get(f, "shard"), "id"));
        out->updatable = !out->key && !derived && !out->version && !out->uuid && !auto_id;
    }
}

/* The keys with the primary key first; decl_no keeps the declared order. */
static void lower_keys(lw *w, const json_t *je, ddbgen_ir_entity *e)
{
    const json_t *keys = json_object_get(je, "keys");
    size_t n = json_array_size(keys);
    e->keys = alloc_array(w, n, sizeof *e->keys);
    if (!e->keys)
        return;
    size_t primary = 0;
    for (size_t j = 0; j < n; j++)
        if (is(ddbgen_jstr(json_array_get(keys, j), "index"), "table"))
            primary = j;
    for (size_t j = 0; j < n; j++) {
        const json_t *k = json_array_get(keys, j);
        const json_t *pk = json_object_get(k, "pk"), *sk = json_object_get(k, "sk");
        size_t no = j == primary ? 0 : j < primary ? j + 1 : j;
        ddbgen_ir_key *out = &e->keys[no];
        out->index = index_named(e->table, ddbgen_jstr(k, "index"));
        out->no = no;
        out->decl_no = j;
        lower_template(w, pk, is(ddbgen_jstr(pk, "type"), "N"), e->fields, e->n_fields, &out->pk);
        out->has_sk = sk != NULL;
        if (sk)
            lower_template(w, sk, is(ddbgen_jstr(sk, "type"), "N"), e->fields, e->n_fields, &out->sk);
        out->shard = shard_named(e, ddbgen_jstr(k, "shard"));
    }
    e->n_keys = n;
    const ddbgen_ir_template *pk_tmpls[2] = {&e->keys[0].pk, e->keys[0].has_sk ? &e->keys[0].sk : NULL};
    e->key_params = collect_params(w, pk_tmpls, 2, &e->n_key_params);
}

static void lower_entities(lw *w)
{
    const json_t *ents = json_object_get(w->model, "entities");
    ddbgen_ir *ir = w->ir;
    ir->n_entities = json_array_size(ents);
    ir->entities = alloc_array(w, ir->n_entities, sizeof *ir->entities);
    if (!ir->entities) {
        ir->n_entities = 0;
        return;
    }
    for (size_t i = 0; i < ir->n_entities && !w->oom; i++) {
        const json_t *je = json_array_get(ents, i);
        ddbgen_ir_entity *e = &ir->entities[i];
        e->name = copy(w, ddbgen_jstr(je, "name"));
        e->cname = copy(w, ddbgen_jstr(je, "cname"));
        e->ctype = copy(w, ddbgen_jstr(je, "ctype"));
        ddbgen_ir_table *t = table_named(w, ddbgen_jstr(je, "table"));
        e->table = t;
        e->fields = lower_fields(w, json_object_get(je, "fields"), &e->n_fields);
        lower_shards(w, je, e);
        finish_fields(w, je, e);
        if (t)
            lower_keys(w, je, e);
    }
}

/* Each table's entities and TTL attribute (the checks made the entities'
 * DDB_TTL attributes agree). */
static void finish_tables(lw *w)
{
    ddbgen_ir *ir = w->ir;
    for (size_t i = 0; i < ir->n_tables; i++) {
        ddbgen_ir_table *t = &ir->tables[i];
        const ddbgen_ir_entity **members = alloc_array(w, ir->n_entities, sizeof *members);
        for (size_t j = 0; members && j < ir->n_entities; j++) {
            const ddbgen_ir_entity *e = &ir->entities[j];
            if (e->table != t)
                continue;
            members[t->n_entities++] = e;
            for (size_t k = 0; k < e->n_fields && !t->ttl_attr; k++)
                if (e->fields[k].ttl)
                    t->ttl_attr = e->fields[k].attr;
        }
        t->entities = members;
    }
}

/* ---- collections ---------------------------------------------------------- */

static const ddbgen_ir_entity *entity_named(lw *w, const char *name)
{
    for (size_t i = 0; i < w->ir->n_entities; i++)
        if (is(w->ir->entities[i].name, name))
            return &w->ir->entities[i];
    return NULL;
}

static const ddbgen_ir_key *key_on(const ddbgen_ir_entity *e, const ddbgen_ir_index *x)
{
    for (size_t i = 0; i < e->n_keys; i++)
        if (e->keys[i].index == x)
            return &e->keys[i];
    return NULL;
}

static void lower_collections(lw *w)
{
    const json_t *colls = json_object_get(w->model, "collections");
    ddbgen_ir *ir = w->ir;
    ir->collections = alloc_array(w, json_array_size(colls), sizeof *ir->collections);
    for (size_t i = 0; ir->collections && i < json_array_size(colls); i++) {
        const json_t *c = json_array_get(colls, i), *names = json_object_get(c, "entities");
        ddbgen_ir_collection *out = &ir->collections[ir->n_collections++];
        out->name = copy(w, ddbgen_jstr(c, "name"));
        out->table = table_named(w, ddbgen_jstr(c, "table"));
        out->index = out->table ? index_named(out->table, ddbgen_jstr(c, "index")) : NULL;
        out->members = alloc_array(w, json_array_size(names), sizeof *out->members);
        for (size_t j = 0; out->members && j < json_array_size(names); j++) {
            const ddbgen_ir_entity *e = entity_named(w, json_string_value(json_array_get(names, j)));
            const ddbgen_ir_key *k = e ? key_on(e, out->index) : NULL;
            if (k)
                out->members[out->n_members++] = (ddbgen_ir_member){.entity = e, .key = k};
        }
        if (out->n_members) {
            const ddbgen_ir_template *pk = &out->members[0].key->pk;
            out->params = collect_params(w, &pk, 1, &out->n_params);
        }
    }
}

ddbgen_ir *ddbgen__lower(const json_t *model)
{
    ddbgen_ir *ir = calloc(1, sizeof *ir);
    if (!ir)
        return NULL;
    lw w = {ir, model, 0};
    ir->schema = copy(&w, ddbgen_jstr(model, "schema"));
    lower_tables(&w);
    lower_structs(&w);
    lower_entities(&w);
    finish_tables(&w);
    lower_collections(&w);
    if (w.oom) {
        ddbgen_ir_free(ir);
        return NULL;
    }
    return ir;
}

void ddbgen_ir_free(ddbgen_ir *ir)
{
    if (!ir)
        return;
    for (ddbgen_ir_pool *p = ir->pool, *next; p; p = next) {
        next = p->next;
        free(p);
    }
    free(ir);
}
