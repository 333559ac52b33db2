/* model_json.c — the model file of --emit-model and --check-compat
 * (docs/MODEL.md), written from the IR.
 *
 * The declared members (names, C types, locations, templates as written)
 * are the front-end's document, copied; every derived member (template
 * segments, key attributes and types, the fields the primary key uses,
 * shards, index key types, the entities of each table, collections) is
 * written from the IR that lower.c made of that same document, so the
 * model file and the generated code come from one derivation; and the
 * canonical text of a model document.  May call ir.h and internal.h's JSON
 * helpers; nothing else.
 */
#include "internal.h"
#include "ir.h"

#include <stdio.h>
#include <string.h>

/* The document being written; failed when jansson ran out of memory, so a
 * model is never written with members missing. */
typedef struct mj {
    int failed;
} mj;

static void put(mj *m, json_t *obj, const char *key, json_t *value)
{
    if (!value || json_object_set_new(obj, key, value) != 0) /* frees value either way */
        m->failed = 1;
}

static void push(mj *m, json_t *arr, json_t *value)
{
    if (!value || json_array_append_new(arr, value) != 0)
        m->failed = 1;
}

/* "i32", "u64", "f64" of an N field. */
static json_t *num_name(const ddbgen_ir_field *f)
{
    char buf[16];
    char kind = f->num == DDBGEN_IR_NUM_FLOAT ? 'f' : f->num == DDBGEN_IR_NUM_UINT ? 'u' : 'i';
    snprintf(buf, sizeof buf, "%c%u", kind, f->num_bits);
    return json_string(buf);
}

static json_t *segment_json(mj *m, const ddbgen_ir_segment *s, const ddbgen_ir_field *fields)
{
    json_t *o = json_object();
    if (s->lit) {
        put(m, o, "lit", json_string(s->lit));
        return o;
    }
    const ddbgen_ir_field *f = s->field;
    json_t *path = json_array();
    for (size_t i = 0; i < s->path_len && fields; i++) {
        const ddbgen_ir_field *step = &fields[s->path[i]];
        push(m, path, json_string(step->name));
        fields = step->st ? step->st->fields : NULL;
    }
    put(m, o, "field", json_string(s->field_path));
    put(m, o, "path", path);
    put(m, o, "type", json_string(ddbgen_ir_type_name(f->type)));
    if (f->num)
        put(m, o, "num", num_name(f));
    if (s->pad)
        put(m, o, "pad", json_integer(s->pad));
    if (s->part)
        put(m, o, "part", json_string(ddbgen_tmpl_part_name(s->part)));
    if (s->kase)
        put(m, o, "case", json_string(ddbgen_tmpl_case_name(s->kase)));
    if (f->optional)
        put(m, o, "optional", json_true());
    return o;
}

/* Adds "segments" and "uses" (the entity fields it reads, in order) to the
 * declared template object t. */
static void template_json(mj *m, json_t *t, const ddbgen_ir_template *tm, const ddbgen_ir_entity *e)
{
    json_t *segs = json_array(), *uses = json_array();
    for (size_t i = 0; i < tm->n_segs; i++) {
        const ddbgen_ir_segment *s = &tm->segs[i];
        push(m, segs, segment_json(m, s, e->fields));
        if (s->lit || !s->path_len)
            continue;
        const char *top = e->fields[s->path[0]].name;
        int seen = 0;
        for (size_t k = 0; k < json_array_size(uses) && !seen; k++)
            seen = !strcmp(json_string_value(json_array_get(uses, k)), top);
        if (!seen)
            push(m, uses, json_string(top));
    }
    put(m, t, "segments", segs);
    put(m, t, "uses", uses);
}

/* A key template also names its attribute, its type and whether an absent
 * optional field leaves the key out (a sparse index). */
static void key_template_json(mj *m, json_t *t, const ddbgen_ir_template *tm, const char *attr,
                              const ddbgen_ir_entity *e)
{
    bool sparse = false;
    for (size_t i = 0; i < tm->n_segs; i++)
        sparse |= tm->segs[i].field && tm->segs[i].field->optional;
    template_json(m, t, tm, e);
    put(m, t, "attr", json_string(attr));
    put(m, t, "type", json_string(tm->numeric ? "N" : "S"));
    put(m, t, "sparse", json_boolean(sparse));
}

/* [{"attr", "type"}] of a key side of fields: first, then more[0..n). */
static json_t *parts_json(mj *m, const ddbgen_ir_key_attr *first, const ddbgen_ir_key_attr *more, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i <= n; i++) {
        const ddbgen_ir_key_attr *k = i ? &more[i - 1] : first;
        push(m, a, json_pack("{s:s, s:s}", "attr", k->attr, "type", ddbgen_ir_type_name(k->type)));
    }
    return a;
}

static void index_json(mj *m, json_t *x, const ddbgen_ir_index *ix, const json_t *primary_pk)
{
    if (ix->by_fields) {
        put(m, x, "pk_parts", parts_json(m, &ix->pk, ix->pk_more, ix->n_pk_more));
        if (ix->has_sk)
            put(m, x, "sk_parts", parts_json(m, &ix->sk, ix->sk_more, ix->n_sk_more));
        return;
    }
    if (ix->kind == DDBGEN_IR_LSI && primary_pk)
        put(m, x, "pk", json_deep_copy(primary_pk));
    put(m, json_object_get(x, "pk"), "type", json_string(ddbgen_ir_type_name(ix->pk.type)));
    if (ix->has_sk)
        put(m, json_object_get(x, "sk"), "type", json_string(ddbgen_ir_type_name(ix->sk.type)));
}

static void table_json(mj *m, json_t *t, const ddbgen_ir_table *tb)
{
    json_t *indexes = json_object_get(t, "indexes"), *names = json_array();
    const json_t *primary_pk = json_object_get(ddbgen_jfind(indexes, "kind", "primary"), "pk");
    size_t secondary = 0;
    for (size_t k = 0; k < json_array_size(indexes); k++) {
        json_t *x = json_array_get(indexes, k);
        int is_primary = !strcmp(ddbgen_jstr(x, "kind"), "primary");
        index_json(m, x, is_primary ? &tb->primary : &tb->indexes[secondary++], primary_pk);
    }
    for (size_t i = 0; i < tb->n_entities; i++)
        push(m, names, json_string(tb->entities[i]->name));
    put(m, t, "entities", names);
}

static void entity_json(mj *m, json_t *je, const ddbgen_ir_entity *e)
{
    json_t *fields = json_object_get(je, "fields"), *keys = json_object_get(je, "keys");
    json_t *shards = json_array();
    json_object_del(je, "_invalid_fields");
    for (size_t i = 0; i < e->n_fields; i++) {
        json_t *f = json_array_get(fields, i);
        const ddbgen_ir_field *fl = &e->fields[i];
        put(m, f, "key", json_boolean(fl->key));
        if (fl->derived)
            template_json(m, json_object_get(f, "derived"), fl->derived, e);
        if (fl->auto_id)
            template_json(m, json_object_get(f, "auto_id"), fl->auto_id, e);
    }
    for (size_t s = 0; s < e->n_shards; s++) {
        json_t *shard = json_object(), *names = json_array();
        for (size_t i = 0; i < e->n_fields; i++)
            if (e->fields[i].shard == &e->shards[s])
                push(m, names, json_string(e->fields[i].name));
        put(m, shard, "id", json_string(e->shards[s].id));
        put(m, shard, "fields", names);
        push(m, shards, shard);
    }
    put(m, je, "shards", shards);
    for (size_t k = 0; k < e->n_keys; k++) {
        const ddbgen_ir_key *key = &e->keys[k];
        json_t *jk = json_array_get(keys, key->decl_no);
        if (key->by_fields)
            continue; /* its fields are the index's parts (index_json) */
        key_template_json(m, json_object_get(jk, "pk"), &key->pk, key->index->pk.attr, e);
        if (key->has_sk)
            key_template_json(m, json_object_get(jk, "sk"), &key->sk, key->index->sk.attr, e);
        if (key->shard)
            put(m, jk, "shard", json_string(key->shard->id));
    }
}

static json_t *collections_json(mj *m, const ddbgen_ir *ir)
{
    json_t *out = json_array();
    for (size_t i = 0; i < ir->n_collections; i++) {
        const ddbgen_ir_collection *c = &ir->collections[i];
        json_t *o = json_object(), *names = json_array();
        for (size_t k = 0; k < c->n_members; k++)
            push(m, names, json_string(c->members[k].entity->name));
        put(m, o, "name", json_string(c->name));
        put(m, o, "table", json_string(c->table->cname));
        put(m, o, "index", json_string(c->index->name));
        put(m, o, "entities", names);
        push(m, out, o);
    }
    return out;
}

json_t *ddbgen__model_json(const ddbgen_ir *ir, const json_t *declared)
{
    mj m = {0};
    json_t *doc = json_deep_copy(declared);
    if (!doc)
        return NULL;
    json_t *tables = json_object_get(doc, "tables"), *ents = json_object_get(doc, "entities");
    for (size_t i = 0; i < ir->n_tables; i++)
        table_json(&m, json_array_get(tables, i), &ir->tables[i]);
    for (size_t i = 0; i < ir->n_entities; i++)
        entity_json(&m, json_array_get(ents, i), &ir->entities[i]);
    put(&m, doc, "collections", collections_json(&m, ir));
    if (m.failed) {
        json_decref(doc);
        return NULL;
    }
    return doc;
}

/* The canonical text of a model document (model.h). */
char *ddbgen_model_to_string(const json_t *model) { return ddbgen_json_text(model, JSON_INDENT(2) | JSON_SORT_KEYS); }
