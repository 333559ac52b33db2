/* lower.c — the lowering step: a checked declared model (JSON, as a
 * front-end wrote it) becomes the typed IR of ir.h.
 *
 * Runs only on a model that passed validate.c, so it reports nothing: every
 * name it resolves is known to exist and every template parses.  Every
 * derived fact is worked out here, once: pointers between tables, indexes,
 * entities, fields and shards; template segments with their holes as field
 * index paths; which fields the primary key uses; the shards and which one
 * carries each secondary key; the primary key first, with key numbers;
 * index key types; each table's TTL attribute; collections; the fields that
 * address an item (key parameters).  May call internal.h's JSON helpers and
 * template.h; nothing else.
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

void *ddbgen__ir_alloc(ddbgen_ir *ir, size_t n)
{
    lw w = {ir, NULL, 0};
    return alloc(&w, n);
}

static void *alloc_array(lw *w, size_t count, size_t size)
{
    return count ? alloc(w, count * size) : NULL;
}

static const char *copy(lw *w, const char *s);

const char *ddbgen__ir_strdup(ddbgen_ir *ir, const char *s)
{
    lw w = {ir, NULL, 0};
    return copy(&w, s);
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

/* The hole's path "home.country" as field indexes, starting from the
 * owner's fields. */
static void lower_path(lw *w, const char *text, const ddbgen_ir_field *fields, size_t n_fields,
                       ddbgen_ir_segment *seg)
{
    size_t n = 1;
    for (const char *c = text; *c; c++)
        n += *c == '.';
    size_t *path = alloc_array(w, n, sizeof *path);
    seg->path = path;
    seg->path_len = path ? n : 0;
    for (size_t i = 0; path && i < n; i++) {
        size_t len = strcspn(text, ".");
        const ddbgen_ir_field *f = NULL;
        for (size_t k = 0; k < n_fields && !f; k++) {
            if (fields[k].name && strlen(fields[k].name) == len && !strncmp(fields[k].name, text, len)) {
                f = &fields[k];
                path[i] = k;
            }
        }
        if (!f)
            return; /* the checks resolved every path; unreachable */
        seg->field = f;
        fields = f->st ? f->st->fields : NULL;
        n_fields = f->st ? f->st->n_fields : 0;
        text += len + (text[len] == '.');
    }
}

/* Template object t ({"template": ...}) of an owner with these fields. */
static void lower_template(lw *w, const json_t *t, const ddbgen_ir_field *fields, size_t n_fields,
                           ddbgen_ir_template *out)
{
    const char *text = ddbgen_jstr(t, "template");
    ddbgen_tmpl tp;
    ddbgen_tmpl_error te;
    out->text = copy(w, text);
    if (ddbgen_tmpl_parse(text ? text : "", &tp, &te) != 0) {
        w->oom = 1; /* the checks parsed it: only memory can fail */
        ddbgen_tmpl_free(&tp);
        return;
    }
    out->n_segs = tp.count;
    out->segs = alloc_array(w, tp.count, sizeof *out->segs);
    for (size_t i = 0; out->segs && i < tp.count; i++) {
        const ddbgen_tmpl_seg *s = &tp.segs[i];
        ddbgen_ir_segment *seg = &out->segs[i];
        if (!s->is_field) {
            seg->lit = copy(w, s->text);
            continue;
        }
        seg->field_path = copy(w, s->text);
        seg->pad = s->pad;
        seg->part = s->part;
        seg->kase = s->kase;
        lower_path(w, s->text, fields, n_fields, seg);
    }
    ddbgen_tmpl_free(&tp);
}

/* A key template renders an N value when it is one integer field, as is. */
static bool renders_number(const ddbgen_ir_template *t)
{
    const ddbgen_ir_segment *s = t->n_segs == 1 ? &t->segs[0] : NULL;
    return s && !s->lit && s->field && !s->pad && !s->part && !s->kase && s->field->type == DDBGEN_IR_N;
}

static const ddbgen_ir_template *new_template(lw *w, const json_t *t, bool numeric,
                                              const ddbgen_ir_field *fields, size_t n_fields)
{
    ddbgen_ir_template *out = alloc(w, sizeof *out);
    if (out) {
        lower_template(w, t, fields, n_fields, out);
        out->numeric = numeric;
    }
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

static unsigned num_bits_of(const char *num) { return num ? (unsigned)strtoul(num + 1, NULL, 10) : 0; }

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
    out->num_bits = num_bits_of(ddbgen_jstr(f, "num"));
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
    out->dflt = copy(w, ddbgen_jstr(json_object_get(f, "default"), "value"));
    out->created_at = json_object_get(f, "created_at") != NULL;
    out->updated_at = json_object_get(f, "updated_at") != NULL;
    out->unique = json_object_get(f, "unique") != NULL;
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

/* The type comes from the entities' templates (key_types()). */
static void lower_key_attr(lw *w, const json_t *k, ddbgen_ir_key_attr *out)
{
    out->attr = copy(w, ddbgen_jstr(k, "attr"));
}

static void lower_index(lw *w, const json_t *x, ddbgen_ir_index *out)
{
    const char *kind = ddbgen_jstr(x, "kind");
    const json_t *proj = json_object_get(x, "projection");
    const char *pt = ddbgen_jstr(proj, "type");
    const json_t *inc = json_object_get(proj, "attributes");
    out->name = copy(w, ddbgen_jstr(x, "name"));
    out->kind = is(kind, "primary") ? DDBGEN_IR_PRIMARY : is(kind, "lsi") ? DDBGEN_IR_LSI : DDBGEN_IR_GSI;
    out->by_fields = out->kind == DDBGEN_IR_GSI && !json_object_get(x, "pk"); /* finish_tables names its parts */
    if (json_object_get(x, "pk"))
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
        out->stream_view = json_object_get(t, "stream") ? copy(w, ddbgen_jstr(t, "stream")) : NULL;
        const json_t *prov = json_object_get(t, "provisioned");
        out->rcu = prov ? (unsigned long long)json_integer_value(json_object_get(prov, "rcu")) : 0;
        out->wcu = prov ? (unsigned long long)json_integer_value(json_object_get(prov, "wcu")) : 0;
        out->deletion_protection = json_is_true(json_object_get(t, "deletion_protection"));
        out->indexes = alloc_array(w, json_array_size(indexes), sizeof *out->indexes);
        for (size_t k = 0; k < json_array_size(indexes); k++) {
            const json_t *x = json_array_get(indexes, k);
            if (is(ddbgen_jstr(x, "kind"), "primary"))
                lower_index(w, x, &out->primary);
            else if (out->indexes)
                lower_index(w, x, &out->indexes[out->n_indexes++]);
        }
        /* a local index shares the table's partition key */
        for (size_t k = 0; k < out->n_indexes; k++)
            if (out->indexes[k].kind == DDBGEN_IR_LSI)
                out->indexes[k].pk.attr = out->primary.pk.attr;
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

/* The shards: the DDB_SHARD ids of the fields outside the primary key, in
 * the order they first appear. */
static void lower_shards(lw *w, const json_t *je, ddbgen_ir_entity *e)
{
    const json_t *fields = json_object_get(je, "fields");
    e->shards = alloc_array(w, e->n_fields, sizeof *e->shards);
    for (size_t i = 0; e->shards && i < e->n_fields; i++) {
        const char *id = ddbgen_jstr(json_object_get(json_array_get(fields, i), "shard"), "id");
        if (!id || e->fields[i].key)
            continue;
        const ddbgen_ir_shard *shard = shard_named(e, id);
        if (!shard) {
            e->shards[e->n_shards] = (ddbgen_ir_shard){.id = copy(w, id), .no = e->n_shards};
            shard = &e->shards[e->n_shards++];
        }
        e->fields[i].shard = shard;
    }
    e->shard_suffix = copy(w, ddbgen_jstr(je, "shard_suffix") ? ddbgen_jstr(je, "shard_suffix") : "#");
}

/* The shard item that carries a secondary key of a sharded entity: the
 * shard of its first sharded field, else the first shard. */
static const ddbgen_ir_shard *key_shard(const ddbgen_ir_entity *e, const ddbgen_ir_key *k)
{
    const ddbgen_ir_template *t[2] = {&k->pk, k->has_sk ? &k->sk : NULL};
    for (int w = 0; w < 2; w++) {
        for (size_t i = 0; t[w] && i < t[w]->n_segs; i++) {
            const ddbgen_ir_segment *s = &t[w]->segs[i];
            const ddbgen_ir_field *top = s->lit || !s->path_len ? NULL : &e->fields[s->path[0]];
            if (top && top->shard && !top->key)
                return top->shard;
        }
    }
    return &e->shards[0];
}

/* Derived and auto-id templates, and the fields a full update writes. */
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
        out->updatable = !out->key && !derived && !out->version && !out->uuid && !auto_id && !out->created_at &&
                         !out->updated_at;
    }
}

/* Does the text of a hole sort like its value?  Strings do (as written or
 * case-folded), zero-padded integers do (non-negative ones: "-" sorts
 * before digits), and a numeric sort key (N) does; unpadded numbers in
 * text and floats do not compare as their values. */
static bool hole_ordered(const ddbgen_ir_template *t, const ddbgen_ir_segment *s)
{
    if (t->numeric)
        return true;
    if (s->field->type == DDBGEN_IR_S)
        return true;
    return s->field->type == DDBGEN_IR_N && s->pad && s->field->num != DDBGEN_IR_NUM_FLOAT;
}

/* The sort key's holes as levels. */
static void lower_levels(lw *w, ddbgen_ir_key *k)
{
    if (!k->has_sk)
        return;
    k->levels = alloc_array(w, k->sk.n_segs, sizeof *k->levels);
    for (size_t i = 0; k->levels && i < k->sk.n_segs; i++) {
        const ddbgen_ir_segment *s = &k->sk.segs[i];
        if (s->lit || !s->field)
            continue;
        ddbgen_ir_level *l = &k->levels[k->n_levels++];
        l->path = s->field_path;
        l->field = s->field;
        l->seg = i;
        l->eq_seg = i + 1 < k->sk.n_segs && k->sk.segs[i + 1].lit ? i + 1 : i;
        l->ordered = hole_ordered(&k->sk, s);
    }
}

/* The fields of a template (first field of each hole's path) are key fields. */
static void mark_key_fields(ddbgen_ir_entity *e, const ddbgen_ir_template *t)
{
    for (size_t i = 0; i < t->n_segs; i++)
        if (!t->segs[i].lit && t->segs[i].path_len)
            e->fields[t->segs[i].path[0]].key = true;
}

/* DDB_WRITE_SHARDS of each key; a key writing the same partition key
 * attribute (an LSI writes the table's) gets the same shards, or the two
 * would store different values in one attribute. */
static void lower_write_shards(const json_t *keys, size_t primary, ddbgen_ir_entity *e)
{
    size_t n = json_array_size(keys);
    for (size_t j = 0; j < n; j++) {
        const json_t *ws = json_object_get(json_array_get(keys, j), "write_shards");
        if (!ws)
            continue;
        ddbgen_ir_key *k = &e->keys[j == primary ? 0 : j < primary ? j + 1 : j];
        for (size_t i = 0; i < n; i++) {
            ddbgen_ir_key *o = &e->keys[i];
            if (o == k || is(o->index->pk.attr, k->index->pk.attr)) {
                o->write_shards = (unsigned)ddbgen_jint(ws, "count", 0);
                o->shards_random = is(ddbgen_jstr(ws, "by"), "random");
            }
        }
    }
}

/* The keys with the primary key first (decl_no keeps the declared order),
 * and the fields the primary key uses. */
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
        json_t *fields_tmpl[2] = {NULL, NULL};
        if (json_object_get(k, "pk_fields")) {
            /* one hole per field: params and levels as a template's */
            const char *sides[2] = {"pk_fields", "sk_fields"};
            for (int s = 0; s < 2; s++) {
                const json_t *list = json_object_get(k, sides[s]);
                ddbgen_buf b = {0};
                for (size_t i = 0; i < json_array_size(list); i++) {
                    ddbgen_buf_puts(&b, "{");
                    ddbgen_buf_puts(&b, ddbgen_jstr(json_array_get(list, i), "field"));
                    ddbgen_buf_puts(&b, "}");
                }
                if (json_array_size(list))
                    fields_tmpl[s] = json_pack("{s:s}", "template", ddbgen_buf_str(&b));
                ddbgen_buf_free(&b);
            }
            pk = fields_tmpl[0];
            sk = fields_tmpl[1];
            if (!pk)
                w->oom = 1;
        }
        size_t no = j == primary ? 0 : j < primary ? j + 1 : j;
        ddbgen_ir_key *out = &e->keys[no];
        out->index = index_named(e->table, ddbgen_jstr(k, "index"));
        out->no = no;
        out->decl_no = j;
        lower_template(w, pk, e->fields, e->n_fields, &out->pk);
        out->pk.numeric = out->pk.segs && renders_number(&out->pk);
        out->has_sk = sk != NULL;
        if (sk) {
            lower_template(w, sk, e->fields, e->n_fields, &out->sk);
            out->sk.numeric = out->sk.segs && renders_number(&out->sk);
        }
        const ddbgen_ir_template *pkt = &out->pk;
        out->pk_params = collect_params(w, &pkt, 1, &out->n_pk_params);
        out->pattern = out->index->name; /* reads.c applies DDB_PATTERN */
        lower_levels(w, out);
        if (fields_tmpl[0]) {
            /* as written, for the comments of the generated code */
            const char *sides[2] = {"pk_fields", "sk_fields"};
            ddbgen_ir_template *tm[2] = {&out->pk, &out->sk};
            for (int s = 0; s < 2; s++) {
                ddbgen_buf b = {0};
                ddbgen_buf_puts(&b, s ? "DDB_SK(" : "DDB_PK(");
                for (size_t i = 0; i < json_array_size(json_object_get(k, sides[s])); i++)
                    ddbgen_buf_printf(&b, "%s%s", i ? ", " : "",
                                      ddbgen_jstr(json_array_get(json_object_get(k, sides[s]), i), "field"));
                ddbgen_buf_puts(&b, ")");
                tm[s]->text = copy(w, ddbgen_buf_str(&b));
                ddbgen_buf_free(&b);
            }
            out->by_fields = true;
            out->sparse = json_object_get(k, "sparse") != NULL;
            out->pk.numeric = out->sk.numeric = false;
            for (size_t l = 0; l < out->n_levels; l++)
                out->levels[l].ordered = true; /* each attribute compares by its own type */
        }
        json_decref(fields_tmpl[0]);
        json_decref(fields_tmpl[1]);
    }
    e->n_keys = n;
    lower_write_shards(keys, primary, e);
    mark_key_fields(e, &e->keys[0].pk);
    if (e->keys[0].has_sk)
        mark_key_fields(e, &e->keys[0].sk);
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
        if (!t || w->oom)
            continue; /* the checks found the table; unreachable */
        lower_keys(w, je, e);
        lower_shards(w, je, e);
        finish_fields(w, je, e);
        for (size_t k = 1; k < e->n_keys && e->n_shards; k++)
            e->keys[k].shard = key_shard(e, &e->keys[k]);
    }
}

/* The type of key attribute attr of table t: what the entities' templates
 * for it render (the checks made them agree); S when no entity uses it. */
static ddbgen_ir_type key_type(const ddbgen_ir_table *t, const char *attr)
{
    for (size_t i = 0; i < t->n_entities; i++) {
        const ddbgen_ir_entity *e = t->entities[i];
        for (size_t k = 0; k < e->n_keys; k++) {
            const ddbgen_ir_key *key = &e->keys[k];
            if (is(key->index->pk.attr, attr))
                return key->pk.numeric ? DDBGEN_IR_N : DDBGEN_IR_S;
            if (key->has_sk && is(key->index->sk.attr, attr))
                return key->sk.numeric ? DDBGEN_IR_N : DDBGEN_IR_S;
        }
    }
    return DDBGEN_IR_S;
}

/* The attributes of index x keyed on fields, from the first entity's key
 * on it (the checks made the entities agree). */
static void field_parts(lw *w, ddbgen_ir_table *t, ddbgen_ir_index *x)
{
    for (size_t i = 0; i < t->n_entities; i++) {
        const ddbgen_ir_entity *e = t->entities[i];
        for (size_t k = 0; k < e->n_keys; k++) {
            const ddbgen_ir_key *key = &e->keys[k];
            if (key->index != x)
                continue;
            const ddbgen_ir_template *tm[2] = {&key->pk, key->has_sk ? &key->sk : NULL};
            ddbgen_ir_key_attr *first[2] = {&x->pk, &x->sk};
            const ddbgen_ir_key_attr **more[2] = {&x->pk_more, &x->sk_more};
            size_t *n_more[2] = {&x->n_pk_more, &x->n_sk_more};
            x->has_sk = key->has_sk;
            for (int s = 0; s < 2 && tm[s]; s++) {
                ddbgen_ir_key_attr *rest = tm[s]->n_segs > 1 ? alloc_array(w, tm[s]->n_segs - 1, sizeof *rest) : NULL;
                for (size_t g = 0; g < tm[s]->n_segs; g++) {
                    const ddbgen_ir_field *f = tm[s]->segs[g].field;
                    ddbgen_ir_key_attr *a = g ? (rest ? &rest[g - 1] : NULL) : first[s];
                    if (a && f) {
                        a->attr = f->attr;
                        a->type = f->type;
                    }
                }
                *more[s] = rest;
                *n_more[s] = rest ? tm[s]->n_segs - 1 : 0;
            }
            return;
        }
    }
}

static void key_types(ddbgen_ir_table *t, ddbgen_ir_index *x)
{
    x->pk.type = key_type(t, x->pk.attr);
    if (x->has_sk)
        x->sk.type = key_type(t, x->sk.attr);
}

/* Each table's entities, TTL attribute (the checks made the entities'
 * DDB_TTL attributes agree) and index key types. */
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
        key_types(t, &t->primary);
        for (size_t k = 0; k < t->n_indexes; k++) {
            if (t->indexes[k].by_fields)
                field_parts(w, t, &t->indexes[k]);
            else
                key_types(t, &t->indexes[k]);
        }
    }
}

/* ---- collections ---------------------------------------------------------- */

static const ddbgen_ir_key *key_on(const ddbgen_ir_entity *e, const ddbgen_ir_index *x)
{
    for (size_t i = 0; i < e->n_keys; i++)
        if (e->keys[i].index == x)
            return &e->keys[i];
    return NULL;
}

static ddbgen_ir_collection *collection_named(ddbgen_ir *ir, const ddbgen_ir_table *t, const char *name)
{
    for (size_t i = 0; i < ir->n_collections; i++)
        if (ir->collections[i].table == t && is(ir->collections[i].name, name))
            return &ir->collections[i];
    return NULL;
}

/* The collections the entities join (DDB_COLLECTION), one per table and
 * name, in the order they are first joined; members in entity order. */
static void lower_collections(lw *w)
{
    const json_t *ents = json_object_get(w->model, "entities");
    ddbgen_ir *ir = w->ir;
    size_t joins = 0;
    for (size_t i = 0; i < json_array_size(ents); i++)
        joins += json_array_size(json_object_get(json_array_get(ents, i), "collections"));
    ir->collections = alloc_array(w, joins, sizeof *ir->collections);
    for (size_t i = 0; ir->collections && i < ir->n_entities; i++) {
        const ddbgen_ir_entity *e = &ir->entities[i];
        const json_t *colls = json_object_get(json_array_get(ents, i), "collections");
        for (size_t j = 0; j < json_array_size(colls); j++) {
            const json_t *c = json_array_get(colls, j);
            ddbgen_ir_collection *out = collection_named(ir, e->table, ddbgen_jstr(c, "name"));
            if (!out) {
                out = &ir->collections[ir->n_collections++];
                out->name = copy(w, ddbgen_jstr(c, "name"));
                out->table = e->table;
                out->index = index_named(e->table, ddbgen_jstr(c, "index"));
                out->members = alloc_array(w, ir->n_entities, sizeof *out->members);
            }
            const ddbgen_ir_key *k = key_on(e, out->index);
            if (k && out->members)
                out->members[out->n_members++] = (ddbgen_ir_member){.entity = e, .key = k};
        }
    }
    for (size_t i = 0; i < ir->n_collections; i++) {
        ddbgen_ir_collection *c = &ir->collections[i];
        if (c->n_members) {
            const ddbgen_ir_template *pk = &c->members[0].key->pk;
            c->params = collect_params(w, &pk, 1, &c->n_params);
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
