/* render_context.c — see render_context.h.
 *
 * Only presentation happens here: every fact comes from the IR (ir.h), and
 * this file turns it into C text (string literals, identifiers, sizeof and
 * offsetof expressions, descriptor names).  Nothing is validated or looked
 * up by name.  May call ir.h and jansson; nothing else.
 */
#include "render_context.h"

#include "c_text.h"
#include "decl_write.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef DDBGEN_VERSION
#define DDBGEN_VERSION "0.0.0"
#endif

static void set(json_t *o, const char *key, json_t *v) { json_object_set_new(o, key, v); }

#define fmt ddbgen__rc_fmt
#define c_ident ddbgen__rc_ident
#define params_ctx ddbgen__rc_params
#define key_comment ddbgen__rc_key_comment
#define c_literal ddbgen__c_literal
#define comment_literal ddbgen__comment_literal

static json_t *count(size_t n) { return json_integer((json_int_t)n); }

/* The runtime's ddb_type of a key attribute. */
static const char *key_type(ddbgen_ir_type t)
{
    return t == DDBGEN_IR_N ? "DDB_TN" : t == DDBGEN_IR_B ? "DDB_TB" : "DDB_TS";
}

static const char *template_type(const ddbgen_ir_template *t) { return t->numeric ? "DDB_TN" : "DDB_TS"; }

/* The runtime's ddb_ftype of a value. */
static const char *ftype(ddbgen_ir_type type, ddbgen_ir_num num, bool chars)
{
    switch (type) {
    case DDBGEN_IR_S:
        return chars ? "DDB_F_CHARS" : "DDB_F_STRING";
    case DDBGEN_IR_N:
        return num == DDBGEN_IR_NUM_FLOAT ? "DDB_F_FLOAT" : num == DDBGEN_IR_NUM_UINT ? "DDB_F_UINT" : "DDB_F_INT";
    case DDBGEN_IR_BOOL:
        return "DDB_F_BOOL";
    case DDBGEN_IR_B:
        return "DDB_F_BYTES";
    case DDBGEN_IR_M:
        return "DDB_F_STRUCT";
    case DDBGEN_IR_L:
        return "DDB_F_LIST";
    case DDBGEN_IR_SS:
        return "DDB_F_SSET";
    case DDBGEN_IR_NS:
        return num == DDBGEN_IR_NUM_FLOAT ? "DDB_F_DSET" : "DDB_F_ISET";
    case DDBGEN_IR_BS:
        return "DDB_F_BSET";
    }
    return "0";
}

static const char *part_const(ddbgen_tmpl_part p)
{
    static const char *const names[] = {"DDB_TP_NONE", "DDB_TP_YEAR", "DDB_TP_MONTH", "DDB_TP_DAY",
                                        "DDB_TP_QUARTER"};
    return (size_t)p < sizeof names / sizeof *names ? names[p] : "DDB_TP_NONE";
}

static const char *case_const(ddbgen_tmpl_case c)
{
    return c == DDBGEN_CASE_LOWER ? "DDB_TC_LOWER" : c == DDBGEN_CASE_UPPER ? "DDB_TC_UPPER" : "DDB_TC_NONE";
}

/* ---- templates ------------------------------------------------------------ */

/* t as {id, what, text, type, n, segs: [{is_lit, lit, path, path_len, pad,
 * part, kase}]}; text is the template as a comment shows it, what says
 * whose template it is.  The index path of each hole goes to paths as
 * {id, indexes: [{i, sep}]}. */
static json_t *template_ctx(const ddbgen_ir_template *t, const char *id, json_t *what, json_t *paths)
{
    json_t *o = json_object(), *segs = json_array();
    set(o, "id", json_string(id));
    set(o, "what", what);
    set(o, "text", comment_literal(t->text));
    set(o, "type", json_string(template_type(t)));
    for (size_t i = 0; i < t->n_segs; i++) {
        const ddbgen_ir_segment *s = &t->segs[i];
        json_t *so = json_object();
        set(so, "is_lit", json_boolean(s->lit != NULL));
        if (s->lit) {
            set(so, "lit", c_literal(s->lit));
            set(so, "path", json_string("NULL"));
        } else {
            json_t *p = json_object(), *indexes = json_array(), *pid = fmt("%s_p%zu", id, i);
            for (size_t k = 0; k < s->path_len; k++) {
                json_t *e = json_object();
                set(e, "i", count(s->path[k]));
                set(e, "sep", json_string(k + 1 < s->path_len ? ", " : ""));
                json_array_append_new(indexes, e);
            }
            set(p, "id", json_incref(pid));
            set(p, "indexes", indexes);
            json_array_append_new(paths, p);
            set(so, "lit", json_string("NULL"));
            set(so, "path", pid);
        }
        set(so, "path_len", count(s->lit ? 0 : s->path_len));
        set(so, "pad", json_integer(s->pad));
        set(so, "part", json_string(part_const(s->part)));
        set(so, "kase", json_string(case_const(s->kase)));
        json_array_append_new(segs, so);
    }
    set(o, "n", count(t->n_segs));
    set(o, "segs", segs);
    return o;
}

/* A template with a ddb_template of its own (derived fields, auto-id scope). */
static json_t *standalone_template(const ddbgen_ir_template *t, const char *id, json_t *what, json_t *templates,
                                   json_t *paths)
{
    json_t *tc = template_ctx(t, id, what, paths);
    set(tc, "standalone", json_true());
    json_array_append_new(templates, tc);
    return fmt("&%s", id);
}

/* ---- fields ----------------------------------------------------------------- */

static void add_flag(char *flags, size_t cap, bool on, const char *name)
{
    if (!on)
        return;
    size_t n = strlen(flags);
    snprintf(flags + n, cap - n, "%s%s", n ? " | " : "", name);
}

/* A field descriptor of owner type ctype.  templates/paths: the entity's,
 * or NULL for a nested struct (which has no templates). */
static json_t *field_ctx(const ddbgen_ir_field *f, const char *ctype, const char *base, const char *tprefix,
                         json_t *templates, json_t *paths)
{
    json_t *o = json_object();
    set(o, "name", c_literal(f->name));
    set(o, "attr", c_literal(f->attr));
    set(o, "ftype", json_string(ftype(f->type, f->num, f->chars)));
    set(o, "size", fmt("sizeof(((%s *)0)->%s)", ctype, f->name));
    set(o, "offset", fmt("offsetof(%s, %s)", ctype, f->name));
    const ddbgen_ir_struct *sub = f->st;
    if (f->is_list) {
        set(o, "elem_type", json_string(ftype(f->item.type, f->item.num, f->item.chars)));
        set(o, "elem_size", fmt("sizeof(*((%s *)0)->%s)", ctype, f->name));
        set(o, "count_offset", fmt("offsetof(%s, %s)", ctype, f->count_field));
        sub = f->item.st;
    } else {
        set(o, "elem_type", json_string("0"));
        set(o, "elem_size", json_string("0"));
        set(o, "count_offset", json_string("0"));
    }
    set(o, "is_list", json_boolean(f->is_list));
    set(o, "has_sub", json_boolean(sub != NULL));
    set(o, "has_derived", json_boolean(f->derived && templates));
    set(o, "sub", sub ? fmt("&%s_%s_struct", base, sub->cname) : json_string("NULL"));
    char flags[256] = "";
    add_flag(flags, sizeof flags, f->optional, "DDB_FIELD_OPTIONAL");
    add_flag(flags, sizeof flags, f->uuid, "DDB_FIELD_UUID");
    add_flag(flags, sizeof flags, f->auto_id != NULL, "DDB_FIELD_AUTO_ID");
    add_flag(flags, sizeof flags, f->version, "DDB_FIELD_VERSION");
    add_flag(flags, sizeof flags, f->ttl, "DDB_FIELD_TTL");
    add_flag(flags, sizeof flags, f->derived != NULL, "DDB_FIELD_DERIVED");
    add_flag(flags, sizeof flags, f->key, "DDB_FIELD_KEY");
    add_flag(flags, sizeof flags, f->unique, "DDB_FIELD_UNIQUE");
    add_flag(flags, sizeof flags, f->created_at, "DDB_FIELD_CREATED_AT");
    add_flag(flags, sizeof flags, f->updated_at, "DDB_FIELD_UPDATED_AT");
    set(o, "has_dflt", json_boolean(f->dflt != NULL));
    set(o, "dflt", c_literal(f->dflt));
    set(o, "flags", json_string(*flags ? flags : "0"));
    if (f->derived && templates) {
        json_t *id = fmt("%s_derived_%s", tprefix, f->name);
        set(o, "derived", standalone_template(f->derived, json_string_value(id),
                                              fmt("DDB_DERIVED field %s", f->name), templates, paths));
        json_decref(id);
    } else {
        set(o, "derived", json_string("NULL"));
    }
    set(o, "shard", json_integer(f->shard ? (json_int_t)f->shard->no : -1));
    return o;
}

static json_t *fields_ctx(const ddbgen_ir_field *fields, size_t n, const char *ctype, const char *base,
                          const char *tprefix, json_t *templates, json_t *paths)
{
    json_t *out = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(out, field_ctx(&fields[i], ctype, base, tprefix, templates, paths));
    return out;
}

/* ---- tables ------------------------------------------------------------------ */

/* [{name, type}] of the further attributes of a multi-attribute key side. */
static json_t *key_parts_ctx(const ddbgen_ir_key_attr *more, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *p = json_object();
        set(p, "name", c_literal(more[i].attr));
        set(p, "type", json_string(key_type(more[i].type)));
        json_array_append_new(a, p);
    }
    return a;
}

static void key_schema_ctx(json_t *o, const ddbgen_ir_index *x)
{
    set(o, "pk", c_literal(x->pk.attr));
    set(o, "pk_type", json_string(key_type(x->pk.type)));
    set(o, "sk", c_literal(x->has_sk ? x->sk.attr : NULL));
    set(o, "sk_type", json_string(x->has_sk ? key_type(x->sk.type) : "DDB_TNONE"));
    set(o, "pk_more", key_parts_ctx(x->pk_more, x->n_pk_more));
    set(o, "n_pk_more", count(x->n_pk_more));
    set(o, "sk_more", key_parts_ctx(x->sk_more, x->n_sk_more));
    set(o, "n_sk_more", count(x->n_sk_more));
    set(o, "has_pk_more", json_boolean(x->n_pk_more > 0));
    set(o, "has_sk_more", json_boolean(x->n_sk_more > 0));
}

static json_t *index_ctx(const ddbgen_ir_table *t, const ddbgen_ir_index *x, size_t no)
{
    static const char *const proj[] = {"DDB_PROJ_ALL", "DDB_PROJ_KEYS_ONLY", "DDB_PROJ_INCLUDE"};
    json_t *o = json_object(), *inc = json_array();
    set(o, "name", c_literal(x->name));
    set(o, "local", json_string(x->kind == DDBGEN_IR_LSI ? "true" : "false"));
    key_schema_ctx(o, x);
    set(o, "proj", json_string(proj[x->projection]));
    for (size_t i = 0; i < x->n_include; i++) {
        json_t *a = json_object();
        set(a, "attr", c_literal(x->include[i]));
        json_array_append_new(inc, a);
    }
    set(o, "n_include", count(x->n_include));
    set(o, "has_include", json_boolean(x->n_include > 0));
    set(o, "include_ref", x->n_include ? fmt("%s_index%zu_include", t->cname, no) : json_string("NULL"));
    set(o, "include", inc);
    set(o, "id", fmt("%s_index%zu", t->cname, no));
    /* a GSI of a DDB_PROVISIONED table has the table's throughput */
    set(o, "provisioned", json_boolean(x->kind == DDBGEN_IR_GSI && t->rcu));
    return o;
}

static bool batch_allows(const ddbgen_ir_entity *e, bool put);

static json_t *table_ctx(const ddbgen_ir_table *t)
{
    json_t *o = json_object(), *ix = json_array(), *members = json_array(), *records = json_array();
    json_t *upper = c_ident(t->cname, 1);
    set(o, "cname", json_string(t->cname));
    set(o, "name", c_literal(t->name));
    set(o, "label", comment_literal(t->name));
    set(o, "type_attr", c_literal(t->type_attr));
    key_schema_ctx(o, &t->primary);
    for (size_t i = 0; i < t->n_indexes; i++)
        json_array_append_new(ix, index_ctx(t, &t->indexes[i], i));
    for (size_t i = 0; i < t->n_entities; i++) {
        const ddbgen_ir_entity *e = t->entities[i];
        json_t *mo = json_object(), *ro = json_object(), *eu = c_ident(e->cname, 1);
        set(mo, "ename", json_string(e->cname));
        set(mo, "ectype", json_string(e->ctype));
        set(mo, "mconst", fmt("%s_SCAN_%s", json_string_value(upper), json_string_value(eu)));
        set(mo, "mname", json_string(e->cname)); /* templates/page_entry*.mustache */
        set(mo, "mctype", json_string(e->ctype));
        set(mo, "batch_put", json_boolean(batch_allows(e, true)));
        set(mo, "batch_delete", json_boolean(batch_allows(e, false)));
        json_array_append_new(members, mo);
        set(ro, "rcname", json_string(e->cname));
        set(ro, "rctype", json_string(e->ctype));
        set(ro, "rconst", fmt("%s_TYPE_%s", json_string_value(upper), json_string_value(eu)));
        json_decref(eu);
        json_array_append_new(records, ro);
    }
    set(o, "has_members", json_boolean(t->n_entities > 0));
    bool any_batch = false;
    for (size_t i = 0; i < t->n_entities; i++)
        any_batch = any_batch || batch_allows(t->entities[i], false);
    set(o, "has_batch", json_boolean(any_batch));
    set(o, "n_members", count(t->n_entities));
    set(o, "members_ref", t->n_entities ? fmt("%s_entities", t->cname) : json_string("NULL"));
    set(o, "members", members);
    set(o, "upper", upper);
    /* the scan's page in the order read (templates/page_entry*.mustache) */
    set(o, "result_type", fmt("%s_scan_result", t->cname));
    set(o, "kind_type", fmt("%s_scan_kind", t->cname));
    set(o, "entry_type", fmt("%s_scan_entry", t->cname));
    set(o, "entries_fn", fmt("%s_scan_entries_", t->cname));
    set(o, "n_const", fmt("%s_SCAN_MEMBERS", json_string_value(upper)));
    set(o, "what_lit", c_literal(t->name));
    set(o, "ttl_attr", c_literal(t->ttl_attr));
    static const char *const views[][2] = {{"KEYS_ONLY", "DDB_STREAM_KEYS_ONLY"},
                                           {"NEW_IMAGE", "DDB_STREAM_NEW_IMAGE"},
                                           {"OLD_IMAGE", "DDB_STREAM_OLD_IMAGE"},
                                           {"NEW_AND_OLD_IMAGES", "DDB_STREAM_NEW_AND_OLD_IMAGES"}};
    for (size_t i = 0; t->stream_view && i < sizeof views / sizeof *views; i++)
        if (!strcmp(t->stream_view, views[i][0]))
            set(o, "stream", json_string(views[i][1]));
    set(o, "provisioned", json_boolean(t->rcu > 0));
    set(o, "deletion_protection", json_boolean(t->deletion_protection));
    set(o, "rcu", fmt("%llu", t->rcu));
    set(o, "wcu", fmt("%llu", t->wcu));
    set(o, "has_record_entities", json_boolean(t->n_entities > 0));
    set(o, "record_entities", records);
    set(o, "n_indexes", count(t->n_indexes));
    set(o, "has_indexes", json_boolean(t->n_indexes > 0));
    set(o, "indexes_ref", t->n_indexes ? fmt("%s_indexes", t->cname) : json_string("NULL"));
    set(o, "indexes", ix);
    return o;
}

static json_t *struct_ctx(const ddbgen_ir_struct *s, const char *base)
{
    json_t *o = json_object();
    set(o, "id", fmt("%s_%s_struct", base, s->cname));
    set(o, "cname", c_literal(s->cname));
    set(o, "ctype", json_string(s->ctype));
    set(o, "n_fields", count(s->n_fields));
    set(o, "fields", fields_ctx(s->fields, s->n_fields, s->ctype, base, base, NULL, NULL));
    return o;
}

/* ---- entities ---------------------------------------------------------------- */

/* What a batch write refuses (runtime entity_batch_write.c's batchable), in
 * the order it checks: a put of an entity with a version field (a condition)
 * or a created-at field (a kept stored value); any entity with a unique field
 * (its uniqueness items need a transaction).  The field that refuses, or NULL.
 * Those batch forms are not generated, so misuse does not compile. */
static const ddbgen_ir_field *batch_refuser(const ddbgen_ir_entity *e, bool put)
{
    for (size_t i = 0; put && i < e->n_fields; i++)
        if (e->fields[i].version)
            return &e->fields[i];
    for (size_t i = 0; i < e->n_fields; i++)
        if (e->fields[i].unique)
            return &e->fields[i];
    for (size_t i = 0; put && i < e->n_fields; i++)
        if (e->fields[i].created_at)
            return &e->fields[i];
    return NULL;
}

static bool batch_allows(const ddbgen_ir_entity *e, bool put)
{
    return !batch_refuser(e, put);
}

/* Why a batch put of e is refused, as the header's comment says it (e refuses one). */
static json_t *batch_put_refusal(const ddbgen_ir_entity *e)
{
    const ddbgen_ir_field *f = batch_refuser(e, true);
    if (f->version)
        return fmt("a version field (%s), which a batch put cannot check", f->name);
    if (f->unique)
        return fmt("a unique field (%s), whose uniqueness items need a transaction", f->name);
    return fmt("a created-at field (%s), whose stored value a batch put would replace", f->name);
}

/* label: the entity's name as comments show it. */
static json_t *key_ctx(const char *label, const ddbgen_ir_key *k, const char *prefix, json_t *templates,
                       json_t *paths)
{
    json_t *o = json_object();
    int primary = k->index->kind == DDBGEN_IR_PRIMARY;
    set(o, "index", primary ? json_string("NULL") : c_literal(k->index->name));
    set(o, "index_ident", c_ident(k->index->name, 0));
    set(o, "index_name", json_string(primary ? "the primary key" : k->index->name));
    set(o, "key_no", count(k->no));
    set(o, "comment", key_comment(k));
    set(o, "pk_attr", c_literal(k->index->pk.attr));
    set(o, "sk_attr", c_literal(k->has_sk ? k->index->sk.attr : NULL));
    json_t *pk_id = fmt("%s_k%zu_pk", prefix, k->decl_no);
    json_array_append_new(templates, template_ctx(&k->pk, json_string_value(pk_id),
                                                  fmt("partition key of %s on %s", label, k->index->name),
                                                  paths));
    set(o, "pk_tmpl", pk_id);
    set(o, "pk_n", count(k->pk.n_segs));
    set(o, "pk_type", json_string(template_type(&k->pk)));
    set(o, "has_sk", json_boolean(k->has_sk));
    if (k->has_sk) {
        json_t *sk_id = fmt("%s_k%zu_sk", prefix, k->decl_no);
        json_array_append_new(templates, template_ctx(&k->sk, json_string_value(sk_id),
                                                      fmt("sort key of %s on %s", label, k->index->name),
                                                      paths));
        set(o, "sk_tmpl", sk_id);
        set(o, "sk_n", count(k->sk.n_segs));
        set(o, "sk_type", json_string(template_type(&k->sk)));
    }
    set(o, "shard", json_integer(k->shard ? (json_int_t)k->shard->no : -1));
    set(o, "by_fields", json_boolean(k->by_fields));
    return o;
}

/* The ddb_write_shards of each write-sharded key (DDB_WRITE_SHARDS): keys
 * gain has_ws and ws_id; the primary key's templates, which the hash reads,
 * get a ddb_template of their own. */
static json_t *write_shards_ctx(const ddbgen_ir_entity *e, const char *prefix, json_t *keys, json_t *templates)
{
    json_t *out = json_array();
    const ddbgen_ir_key *p = &e->keys[0];
    for (size_t i = 0; i < e->n_keys; i++) {
        const ddbgen_ir_key *k = &e->keys[i];
        if (!k->write_shards)
            continue;
        json_t *w = json_object(), *kc = json_array_get(keys, i);
        json_t *id = fmt("%s_k%zu_ws", prefix, k->decl_no);
        set(kc, "has_ws", json_true());
        set(kc, "ws_id", json_incref(id));
        set(w, "id", id);
        set(w, "count", count(k->write_shards));
        set(w, "by", json_string(k->shards_random ? "DDB_WS_RANDOM" : "DDB_WS_HASH"));
        set(w, "hash_pk", fmt("&%s_k%zu_pk", prefix, p->decl_no));
        set(w, "hash_sk", p->has_sk ? fmt("&%s_k%zu_sk", prefix, p->decl_no) : json_string("NULL"));
        json_array_append_new(out, w);
        size_t n;
        json_t *tc;
        json_array_foreach(templates, n, tc) {
            const char *tid = json_string_value(json_object_get(tc, "id"));
            char want[2][256];
            snprintf(want[0], sizeof want[0], "%s_k%zu_pk", prefix, p->decl_no);
            snprintf(want[1], sizeof want[1], "%s_k%zu_sk", prefix, p->decl_no);
            if (tid && (!strcmp(tid, want[0]) || !strcmp(tid, want[1])))
                set(tc, "standalone", json_true());
        }
    }
    return out;
}

static json_t *entity_ctx(const ddbgen_ir_entity *e, const char *base)
{
    json_t *o = json_object(), *templates = json_array(), *paths = json_array();
    json_t *label = comment_literal(e->name), *prefixj = fmt("%s_%s", base, e->cname);
    const char *prefix = json_string_value(prefixj);
    set(o, "cname", json_string(e->cname));
    set(o, "ctype", json_string(e->ctype));
    set(o, "name", c_literal(e->name));
    set(o, "table", json_string(e->table->cname));
    set(o, "prefix", json_string(prefix));
    set(o, "n_fields", count(e->n_fields));
    set(o, "fields", fields_ctx(e->fields, e->n_fields, e->ctype, base, prefix, templates, paths));
    json_t *shards = json_array(), *upd = json_array();
    for (size_t i = 0; i < e->n_shards; i++) {
        json_t *so = json_object();
        set(so, "id", c_literal(e->shards[i].id));
        json_array_append_new(shards, so);
    }
    set(o, "n_shards", count(e->n_shards));
    set(o, "has_shards", json_boolean(e->n_shards > 0));
    set(o, "shards_ref", e->n_shards ? fmt("%s_shards", prefix) : json_string("NULL"));
    set(o, "shards", shards);
    set(o, "shard_suffix", c_literal(e->shard_suffix));
    for (size_t i = 0; i < e->n_fields; i++) {
        if (!e->fields[i].updatable)
            continue;
        json_t *uo = json_object();
        set(uo, "name", c_literal(e->fields[i].name));
        json_array_append_new(upd, uo);
    }
    set(o, "has_updatable", json_boolean(json_array_size(upd) > 0));
    set(o, "n_updatable", count(json_array_size(upd)));
    set(o, "updatable", upd);
    set(o, "batch_delete", json_boolean(batch_allows(e, false)));
    set(o, "batch_put", json_boolean(batch_allows(e, true)));
    if (!batch_allows(e, true))
        set(o, "batch_put_refusal", batch_put_refusal(e));
    /* templates in declaration order; keys with the primary key first */
    json_t *keys = json_array();
    for (size_t i = 0; i < e->n_keys; i++)
        json_array_append_new(keys, json_null());
    for (size_t d = 0; d < e->n_keys; d++)
        for (size_t i = 0; i < e->n_keys; i++)
            if (e->keys[i].decl_no == d)
                json_array_set_new(keys, i,
                                   key_ctx(json_string_value(label), &e->keys[i], prefix, templates, paths));
    json_t *wsc = write_shards_ctx(e, prefix, keys, templates);
    set(o, "has_write_shards", json_boolean(json_array_size(wsc) > 0));
    set(o, "write_shards", wsc);
    set(o, "n_keys", count(e->n_keys));
    set(o, "keys", keys);
    set(o, "key_params", params_ctx(e->key_params, e->n_key_params));
    set(o, "primary_key", key_comment(&e->keys[0]));
    if (e->auto_scope) {
        json_t *id = fmt("%s_auto_scope", prefix);
        json_t *what = fmt("DDB_AUTO_ID scope of %s", json_string_value(label));
        set(o, "auto_scope", standalone_template(e->auto_scope, json_string_value(id), what, templates, paths));
        json_decref(id);
    } else {
        set(o, "auto_scope", json_string("NULL"));
    }
    set(o, "templates", templates);
    set(o, "paths", paths);
    set(o, "label", label);
    ddbgen__reads_ctx(o, e, base);
    ddbgen__writes_context(o, e);
    json_decref(prefixj);
    return o;
}

static json_t *collection_ctx(const ddbgen_ir_collection *c)
{
    json_t *o = json_object(), *members = json_array();
    set(o, "table", json_string(c->table->cname));
    set(o, "cname", c_ident(c->name, 0));
    set(o, "result_type", fmt("%s_%s_result", c->table->cname, c->name));
    set(o, "iter_type", fmt("%s_%s_iter", c->table->cname, c->name));
    set(o, "kind_type", fmt("%s_%s_kind", c->table->cname, c->name));
    set(o, "entry_type", fmt("%s_%s_entry", c->table->cname, c->name));
    set(o, "entries_fn", fmt("%s_%s_collection_entries_", c->table->cname, c->name));
    set(o, "what_lit", c_literal(c->name));
    set(o, "id", fmt("%s_%s_collection", c->table->cname, c->name));
    set(o, "name", c_literal(c->name));
    set(o, "label", comment_literal(c->name));
    set(o, "index", c->index->kind == DDBGEN_IR_PRIMARY ? json_string("NULL") : c_literal(c->index->name));
    json_t *tu = c_ident(c->table->cname, 1), *cu = c_ident(c->name, 1);
    set(o, "n_const", fmt("%s_%s_MEMBERS", json_string_value(tu), json_string_value(cu)));
    for (size_t i = 0; i < c->n_members; i++) {
        json_t *mo = json_object(), *eu = c_ident(c->members[i].entity->cname, 1);
        set(mo, "mconst", fmt("%s_%s_%s", json_string_value(tu), json_string_value(cu), json_string_value(eu)));
        json_decref(eu);
        set(mo, "cname", json_string(c->members[i].entity->cname));
        set(mo, "ctype", json_string(c->members[i].entity->ctype));
        set(mo, "mname", json_string(c->members[i].entity->cname)); /* templates/page_entry*.mustache */
        set(mo, "mctype", json_string(c->members[i].entity->ctype));
        set(mo, "key_no", count(c->members[i].key->no));
        /* the typed range: the member's access pattern on the collection's index */
        json_t *pid = c_ident(c->members[i].key->pattern, 0);
        set(mo, "member_no", count(i));
        set(mo, "pattern_fn", fmt("%s_%s", c->members[i].entity->cname, json_string_value(pid)));
        set(mo, "sk_type", fmt("%s_%s_sk", c->members[i].entity->cname, json_string_value(pid)));
        set(mo, "by_fn", fmt("%s_query_%s_%s", c->table->cname, c->name, c->members[i].entity->cname));
        json_decref(pid);
        json_array_append_new(members, mo);
    }
    if (c->n_members) {
        set(o, "params", params_ctx(c->params, c->n_params));
        set(o, "first_ctype", json_string(c->members[0].entity->ctype));
    }
    set(o, "n_members", count(c->n_members));
    set(o, "members", members);
    json_decref(tu);
    json_decref(cu);
    return o;
}

json_t *ddbgen__render_context(const ddbgen_ir *ir, const char *base)
{
    json_t *ctx = json_object();
    int major = 0, minor = 0;
    sscanf(DDBGEN_VERSION, "%d.%d", &major, &minor);
    set(ctx, "version", json_string(DDBGEN_VERSION));
    set(ctx, "major", json_integer(major));
    set(ctx, "minor", json_integer(minor));
    set(ctx, "source", json_string(ir->schema ? ir->schema : base));
    set(ctx, "base", json_string(base));
    json_t *guard = fmt("%s_DDB_H", base);
    set(ctx, "guard", c_ident(json_string_value(guard), 1));
    json_decref(guard);
    const char *slash = ir->schema ? strrchr(ir->schema, '/') : NULL;
    set(ctx, "schema_include", json_string(slash ? slash + 1 : ir->schema ? ir->schema : ""));
    json_t *tables = json_array(), *structs = json_array(), *ents = json_array(), *colls = json_array();
    for (size_t i = 0; i < ir->n_tables; i++)
        json_array_append_new(tables, table_ctx(&ir->tables[i]));
    for (size_t i = 0; i < ir->n_structs; i++)
        json_array_append_new(structs, struct_ctx(&ir->structs[i], base));
    for (size_t i = 0; i < ir->n_entities; i++)
        json_array_append_new(ents, entity_ctx(&ir->entities[i], base));
    for (size_t i = 0; i < ir->n_collections; i++)
        json_array_append_new(colls, collection_ctx(&ir->collections[i]));
    set(ctx, "tables", tables);
    set(ctx, "structs", structs);
    set(ctx, "entities", ents);
    set(ctx, "collections", colls);
    ddbgen__reads_module_ctx(ctx, ir);
    return ctx;
}
