/* model_json.c — the model file of --emit-model and --check-compat
 * (docs/MODEL.md), written from the IR.
 *
 * The declared members (names, C types, locations, templates as written)
 * are the front-end's document, copied; every derived member (template
 * segments, key attributes and types, the fields the primary key uses,
 * shards, index key types, the entities of each table, collections) is
 * written from the IR that lower.c made of that same document, so the
 * model file and the generated code come from one derivation.  May call
 * ir.h and internal.h's JSON helpers; nothing else.
 */
#include "internal.h"
#include "ir.h"

#include <stdio.h>
#include <string.h>

/* "i32", "u64", "f64" of an N field. */
static json_t *num_name(const ddbgen_ir_field *f)
{
    char buf[16];
    char kind = f->num == DDBGEN_IR_NUM_FLOAT ? 'f' : f->num == DDBGEN_IR_NUM_UINT ? 'u' : 'i';
    snprintf(buf, sizeof buf, "%c%u", kind, f->num_bits);
    return json_string(buf);
}

static json_t *segment_json(const ddbgen_ir_segment *s, const ddbgen_ir_field *fields)
{
    if (s->lit)
        return json_pack("{s:s}", "lit", s->lit);
    const ddbgen_ir_field *f = s->field;
    json_t *o = json_pack("{s:s, s:[], s:s}", "field", s->field_path, "path", "type", ddbgen_ir_type_name(f->type));
    json_t *path = json_object_get(o, "path");
    for (size_t i = 0; i < s->path_len && fields; i++) {
        const ddbgen_ir_field *step = &fields[s->path[i]];
        json_array_append_new(path, json_string(step->name));
        fields = step->st ? step->st->fields : NULL;
    }
    if (f->num)
        json_object_set_new(o, "num", num_name(f));
    if (s->pad)
        json_object_set_new(o, "pad", json_integer(s->pad));
    if (s->part)
        json_object_set_new(o, "part", json_string(ddbgen_tmpl_part_name(s->part)));
    if (s->kase)
        json_object_set_new(o, "case", json_string(ddbgen_tmpl_case_name(s->kase)));
    if (f->optional)
        json_object_set_new(o, "optional", json_true());
    return o;
}

/* Adds "segments" and "uses" (the entity fields it reads, in order) to the
 * declared template object t. */
static void template_json(json_t *t, const ddbgen_ir_template *tm, const ddbgen_ir_entity *e)
{
    json_t *segs = json_array(), *uses = json_array();
    for (size_t i = 0; i < tm->n_segs; i++) {
        const ddbgen_ir_segment *s = &tm->segs[i];
        json_array_append_new(segs, segment_json(s, e->fields));
        if (s->lit || !s->path_len)
            continue;
        const char *top = e->fields[s->path[0]].name;
        int seen = 0;
        for (size_t k = 0; k < json_array_size(uses) && !seen; k++)
            seen = !strcmp(json_string_value(json_array_get(uses, k)), top);
        if (!seen)
            json_array_append_new(uses, json_string(top));
    }
    json_object_set_new(t, "segments", segs);
    json_object_set_new(t, "uses", uses);
}

/* A key template also names its attribute, its type and whether an absent
 * optional field leaves the key out (a sparse index). */
static void key_template_json(json_t *t, const ddbgen_ir_template *tm, const char *attr, const ddbgen_ir_entity *e)
{
    bool sparse = false;
    for (size_t i = 0; i < tm->n_segs; i++)
        sparse |= tm->segs[i].field && tm->segs[i].field->optional;
    template_json(t, tm, e);
    json_object_set_new(t, "attr", json_string(attr));
    json_object_set_new(t, "type", json_string(tm->numeric ? "N" : "S"));
    json_object_set_new(t, "sparse", json_boolean(sparse));
}

static void index_json(json_t *x, const ddbgen_ir_index *ix, const json_t *primary_pk)
{
    if (ix->kind == DDBGEN_IR_LSI && primary_pk)
        json_object_set_new(x, "pk", json_deep_copy(primary_pk));
    json_object_set_new(json_object_get(x, "pk"), "type", json_string(ddbgen_ir_type_name(ix->pk.type)));
    if (ix->has_sk)
        json_object_set_new(json_object_get(x, "sk"), "type", json_string(ddbgen_ir_type_name(ix->sk.type)));
}

static void table_json(json_t *t, const ddbgen_ir_table *tb)
{
    json_t *indexes = json_object_get(t, "indexes"), *names = json_array();
    const json_t *primary_pk = json_object_get(ddbgen_jfind(indexes, "kind", "primary"), "pk");
    size_t secondary = 0;
    for (size_t k = 0; k < json_array_size(indexes); k++) {
        json_t *x = json_array_get(indexes, k);
        int is_primary = !strcmp(ddbgen_jstr(x, "kind"), "primary");
        index_json(x, is_primary ? &tb->primary : &tb->indexes[secondary++], primary_pk);
    }
    for (size_t i = 0; i < tb->n_entities; i++)
        json_array_append_new(names, json_string(tb->entities[i]->name));
    json_object_set_new(t, "entities", names);
}

static void entity_json(json_t *je, const ddbgen_ir_entity *e)
{
    json_t *fields = json_object_get(je, "fields"), *keys = json_object_get(je, "keys");
    json_t *shards = json_array();
    json_object_del(je, "_invalid_fields");
    for (size_t i = 0; i < e->n_fields; i++) {
        json_t *f = json_array_get(fields, i);
        const ddbgen_ir_field *fl = &e->fields[i];
        json_object_set_new(f, "key", json_boolean(fl->key));
        if (fl->derived)
            template_json(json_object_get(f, "derived"), fl->derived, e);
        if (fl->auto_id)
            template_json(json_object_get(f, "auto_id"), fl->auto_id, e);
    }
    for (size_t s = 0; s < e->n_shards; s++) {
        json_t *names = json_array();
        for (size_t i = 0; i < e->n_fields; i++)
            if (e->fields[i].shard == &e->shards[s])
                json_array_append_new(names, json_string(e->fields[i].name));
        json_array_append_new(shards, json_pack("{s:s, s:o}", "id", e->shards[s].id, "fields", names));
    }
    json_object_set_new(je, "shards", shards);
    for (size_t k = 0; k < e->n_keys; k++) {
        const ddbgen_ir_key *key = &e->keys[k];
        json_t *jk = json_array_get(keys, key->decl_no);
        key_template_json(json_object_get(jk, "pk"), &key->pk, key->index->pk.attr, e);
        if (key->has_sk)
            key_template_json(json_object_get(jk, "sk"), &key->sk, key->index->sk.attr, e);
        if (key->shard)
            json_object_set_new(jk, "shard", json_string(key->shard->id));
    }
}

static json_t *collections_json(const ddbgen_ir *ir)
{
    json_t *out = json_array();
    for (size_t i = 0; i < ir->n_collections; i++) {
        const ddbgen_ir_collection *c = &ir->collections[i];
        json_t *names = json_array();
        for (size_t m = 0; m < c->n_members; m++)
            json_array_append_new(names, json_string(c->members[m].entity->name));
        json_array_append_new(out, json_pack("{s:s, s:s, s:s, s:o}", "name", c->name, "table", c->table->cname,
                                             "index", c->index->name, "entities", names));
    }
    return out;
}

json_t *ddbgen__model_json(const ddbgen_ir *ir, const json_t *declared)
{
    json_t *m = json_deep_copy(declared);
    if (!m)
        return NULL;
    json_t *tables = json_object_get(m, "tables"), *ents = json_object_get(m, "entities");
    for (size_t i = 0; i < ir->n_tables; i++)
        table_json(json_array_get(tables, i), &ir->tables[i]);
    for (size_t i = 0; i < ir->n_entities; i++)
        entity_json(json_array_get(ents, i), &ir->entities[i]);
    json_object_set_new(m, "collections", collections_json(ir));
    return m;
}
