/* render_reads.c — the render context of an entity's typed reads: field
 * masks, one function per access pattern with its sort-key levels,
 * declared queries and scans (see render_context.h).
 *
 * Presentation only, like render_context.c: the facts come from the IR
 * (ir.h, reads.c's patterns and queries); this file turns them into C text
 * (identifiers, parameter lists, the statements that copy a parameter into
 * a key struct or bind it as a :value).  May call render_context.c's text
 * helpers, ir.h and jansson.
 */
#include "internal.h"
#include "c_text.h"
#include "generated_names.h"
#include "render_context.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The prefix of a declared filter's placeholders in generated code: the
 * runtime ANDs the caller's filter with it (ddb_ent_declared_filter) and
 * refuses caller names in this namespace, so the two never collide. */
#define FILTER_NS "ddb_"

static void set(json_t *o, const char *key, json_t *v) { json_object_set_new(o, key, v); }

static const char *str(json_t *j) { return json_string_value(j); }

/* The C type a caller passes for a field's value. */
static const char *param_ctype(const ddbgen_ir_field *f)
{
    return f->type == DDBGEN_IR_S ? "const char *" : f->ctype;
}

/* "obj.path = expr;" for field f, as a statement of a function that has
 * int rc and ddb_error *err (char[N]: copied, never truncated). */
static void assign(ddbgen_buf *b, const char *obj, const char *path, const ddbgen_ir_field *f, const char *expr)
{
    if (f->chars)
        ddbgen_buf_printf(b,
                          "    if ((rc = ddb_ent_set_chars(%s.%s, sizeof %s.%s, %s, \"%s\", err)))\n"
                          "        return rc;\n",
                          obj, path, obj, path, expr, path);
    else if (f->type == DDBGEN_IR_S)
        ddbgen_buf_printf(b, "    %s.%s = (char *)%s;\n", obj, path, expr);
    else
        ddbgen_buf_printf(b, "    %s.%s = %s;\n", obj, path, expr);
}

/* o[key] = ctype, and o[key "_ptr"] when it ends in '*' (no space before the name). */
static void ctype_set(json_t *o, const char *key, const char *ctype)
{
    char k[64];
    set(o, key, json_string(ctype));
    snprintf(k, sizeof k, "%s_ptr", key);
    size_t n = strlen(ctype);
    set(o, k, json_boolean(n && ctype[n - 1] == '*'));
}

/* ---- iterators (templates/read_iter.mustache) --------------------------------- */

/* Append to args the arguments an iterator keeps, one per element of list
 * (parameter contexts with "ctype" and "pname"): {"decl": "const char
 * *org", "pname": "org"}. */
static void iter_args_add(json_t *args, const json_t *list)
{
    size_t i;
    const json_t *p;
    json_array_foreach(list, i, p) {
        const char *ctype = json_string_value(json_object_get(p, "ctype"));
        const char *pname = json_string_value(json_object_get(p, "pname"));
        size_t n = strlen(ctype);
        json_t *a = json_object();
        set(a, "decl", ddbgen__rc_fmt("%s%s%s", ctype, n && ctype[n - 1] == '*' ? "" : " ", pname));
        set(a, "pname", json_string(pname));
        json_array_append_new(args, a);
    }
}

/* One more argument of an iterator: its C type and name. */
static void iter_arg(json_t *args, const char *ctype, const char *pname)
{
    json_t *one = json_array(), *p = json_object();
    set(p, "ctype", json_string(ctype));
    set(p, "pname", json_string(pname));
    json_array_append_new(one, p);
    iter_args_add(args, one);
    json_decref(one);
}

/* The text of b without its last newline (the template adds one). */
static json_t *take(ddbgen_buf *b)
{
    if (b->len && b->data[b->len - 1] == '\n')
        b->data[--b->len] = '\0';
    json_t *j = json_string(ddbgen_buf_str(b));
    ddbgen_buf_free(b);
    return j;
}

static const char *sk_op_const(ddbgen_ir_skop op)
{
    static const char *const names[] = {"DDB_ENT_SK_ALL", "DDB_ENT_SK_EQ", "DDB_ENT_SK_BEGINS",
                                        "DDB_ENT_SK_LT",  "DDB_ENT_SK_LE", "DDB_ENT_SK_GT",
                                        "DDB_ENT_SK_GE",  "DDB_ENT_SK_BETWEEN"};
    return names[op];
}

/* ---- access patterns ----------------------------------------------------------- */

/* The first level of k whose field path is path. */
static size_t first_level(const ddbgen_ir_key *k, const char *path)
{
    size_t i = 0;
    while (i < k->n_levels && strcmp(k->levels[i].path, path))
        i++;
    return i;
}

static json_t *pattern_ctx(const ddbgen_ir_entity *e, const ddbgen_ir_key *k)
{
    json_t *o = json_object(), *levels = json_array(), *values = json_array(), *pid = ddbgen__rc_ident(k->pattern, 0);
    json_t *fn = ddbgen__rc_fmt("%s_%s", e->cname, str(pid));
    set(o, "fn", json_incref(fn));
    set(o, "sk_type", ddbgen__rc_fmt("%s_sk", str(fn)));
    set(o, "pattern", ddbgen__comment_literal(k->pattern));
    set(o, "index_label", ddbgen__comment_literal(k->index->kind == DDBGEN_IR_PRIMARY ? "the table" : k->index->name));
    set(o, "key_comment", ddbgen__rc_key_comment(k));
    set(o, "key_no", json_integer((json_int_t)k->no));
    set(o, "pk_params", ddbgen__rc_params(k->pk_params, k->n_pk_params));
    json_t *args = json_array();
    iter_args_add(args, json_object_get(o, "pk_params"));
    iter_arg(args, str(json_object_get(o, "sk_type")), "sk");
    set(o, "iter_args", args);
    ddbgen_buf segs = {0}, eq = {0}, sets = {0};
    /* one value (and upper bound) per field the levels name: a field held
     * by several levels ("{d|year}-{d|month}") is given once */
    for (size_t i = 0; i < k->n_levels; i++) {
        const ddbgen_ir_level *l = &k->levels[i];
        if (first_level(k, l->path) != i)
            continue;
        json_t *vo = json_object(), *id = ddbgen__rc_ident(l->path, 0);
        set(vo, "ident", json_incref(id));
        ctype_set(vo, "ctype", param_ctype(l->field));
        /* its "unset" value: a ddb_bytes level (a key of fields) is a struct */
        set(vo, "zero", json_string(l->field->type == DDBGEN_IR_B ? "(ddb_bytes){NULL, 0}" : "0"));
        json_array_append_new(values, vo);
        /* into k once a level of it is reached; into hi the upper bound of
         * a BETWEEN on one of its levels, else the same value */
        ddbgen_buf cond = {0};
        for (size_t j = i; j < k->n_levels; j++)
            if (!strcmp(k->levels[j].path, l->path))
                ddbgen_buf_printf(&cond, "%ssk.sk_level == %zu", cond.len ? " || " : "", j + 1);
        char v[300], h[1200];
        snprintf(v, sizeof v, "sk.v_%s", str(id));
        snprintf(h, sizeof h, "(sk.sk_op == DDB_ENT_SK_BETWEEN && (%s) ? sk.hi_%s : sk.v_%s)", ddbgen_buf_str(&cond),
                 str(id), str(id));
        ddbgen_buf_free(&cond);
        ddbgen_buf_printf(&sets, "    if (sk.sk_level >= %zu) {\n", i + 1);
        ddbgen_buf b1 = {0};
        assign(&b1, "k", l->path, l->field, v);
        assign(&b1, "hi", l->path, l->field, h);
        for (const char *c = ddbgen_buf_str(&b1); *c;) {
            size_t n = strcspn(c, "\n");
            ddbgen_buf_printf(&sets, "    %.*s\n", (int)n, c);
            c += n + (c[n] == '\n');
        }
        ddbgen_buf_free(&b1);
        ddbgen_buf_puts(&sets, "    }\n");
        json_decref(id);
    }
    for (size_t i = 0; i < k->n_levels; i++) {
        const ddbgen_ir_level *l = &k->levels[i];
        json_t *lo = json_object(), *id = ddbgen__rc_ident(l->path, 0), *args = json_array();
        const ddbgen_ir_segment *seg = &k->sk.segs[l->seg];
        set(lo, "ident", json_incref(id));
        ctype_set(lo, "ctype", param_ctype(l->field));
        set(lo, "no", json_integer((json_int_t)i + 1));
        set(lo, "ctor", seg->part ? ddbgen__rc_fmt("%s_%s_%s", str(fn), str(id), ddbgen__part_word(seg->part))
                                  : ddbgen__rc_fmt("%s_%s", str(fn), str(id)));
        set(lo, "path", seg->part ? ddbgen__rc_fmt("\"%s\" (its %s)", l->path, ddbgen__part_word(seg->part))
                                  : ddbgen__comment_literal(l->path));
        for (size_t j = 0; j <= i; j++) {
            if (first_level(k, k->levels[j].path) != j)
                continue;
            json_t *a = json_object();
            set(a, "aident", ddbgen__rc_ident(k->levels[j].path, 0));
            ctype_set(a, "actype", param_ctype(k->levels[j].field));
            json_array_append_new(args, a);
        }
        set(lo, "args", args);
        json_array_append_new(levels, lo);
        ddbgen_buf_printf(&segs, "%s%zu", i ? ", " : "", l->seg);
        ddbgen_buf_printf(&eq, "%s%zu", i ? ", " : "", l->eq_seg);
        json_decref(id);
    }
    set(o, "levels", levels);
    set(o, "values", values);
    set(o, "has_levels", json_boolean(k->n_levels > 0));
    set(o, "n_levels", json_integer((json_int_t)k->n_levels));
    set(o, "last_seg", json_integer(k->has_sk && k->sk.n_segs ? (json_int_t)k->sk.n_segs - 1 : 0));
    set(o, "segs", take(&segs));
    set(o, "eq_segs", take(&eq));
    set(o, "by_fields", json_boolean(k->by_fields));
    set(o, "level_sets", take(&sets));
    json_decref(fn);
    json_decref(pid);
    return o;
}

/* ---- declared queries and scans ------------------------------------------------- */

/* The statements that bind parameter p as :name into values. */
static void bind_value(ddbgen_buf *b, const ddbgen_ir_qparam *p)
{
    const char *ph = p->name, *c = p->cname; /* the :placeholder, the C parameter */
    switch (p->type) {
    case DDBGEN_IR_S:
        ddbgen_buf_printf(b, "    if (!rc)\n        rc = ddb_item_set_s(values, \":" FILTER_NS "%s\", %s);\n", ph, c);
        break;
    case DDBGEN_IR_BOOL:
        ddbgen_buf_printf(b, "    if (!rc)\n        rc = ddb_item_set_bool(values, \":" FILTER_NS "%s\", %s);\n", ph, c);
        break;
    case DDBGEN_IR_B:
        ddbgen_buf_printf(b, "    if (!rc)\n        rc = ddb_item_set_b(values, \":" FILTER_NS "%s\", %s.data, %s.len);\n",
                          ph, c, c);
        break;
    default:
        if (p->num == DDBGEN_IR_NUM_FLOAT)
            ddbgen_buf_printf(b,
                              "    if (!rc && !(rc = ddb_v_double(a, (double)%s, &v, err)))\n"
                              "        rc = ddb_item_set(values, \":" FILTER_NS "%s\", v);\n",
                              c, ph);
        else if (p->num == DDBGEN_IR_NUM_UINT)
            ddbgen_buf_printf(b,
                              "    if (!rc)\n        rc = ddb_item_set(values, \":" FILTER_NS "%s\", ddb_v_u64(a, (uint64_t)%s));\n",
                              ph, c);
        else
            ddbgen_buf_printf(b, "    if (!rc)\n        rc = ddb_item_set_i64(values, \":" FILTER_NS "%s\", (int64_t)%s);\n",
                              ph, c);
    }
}

/* The filter as the generated code runs it: every #name and :value of the
 * bound text moved into FILTER_NS ("#f0 > :min" -> "#ddb_f0 > :ddb_min").
 * DynamoDB expressions have no string literals, so a '#' or ':' always
 * starts a placeholder. */
static char *runtime_filter(const char *bound)
{
    ddbgen_buf b = {0};
    for (const char *p = bound; *p; p++) {
        ddbgen_buf_printf(&b, "%c", *p);
        if ((*p == '#' || *p == ':') && p[1] && (isalnum((unsigned char)p[1]) || p[1] == '_'))
            ddbgen_buf_puts(&b, FILTER_NS);
    }
    char *r = strdup(ddbgen_buf_str(&b));
    ddbgen_buf_free(&b);
    return r;
}

static json_t *query_ctx(const ddbgen_ir_entity *e, const ddbgen_ir_query *q)
{
    json_t *o = json_object(), *params = json_array();
    set(o, "fn", ddbgen__rc_fmt("%s_%s", e->cname, q->name));
    set(o, "is_scan", json_boolean(q->key == NULL));
    set(o, "name", json_string(q->name));
    if (q->key) {
        set(o, "pattern", ddbgen__comment_literal(q->key->pattern));
        set(o, "key_comment", ddbgen__rc_key_comment(q->key));
        set(o, "key_no", json_integer((json_int_t)q->key->no));
        set(o, "pk_params", ddbgen__rc_params(q->key->pk_params, q->key->n_pk_params));
        set(o, "op", json_string(sk_op_const(q->op)));
        set(o, "seg", json_integer((json_int_t)q->seg));
    }
    set(o, "key_text", q->key_text ? ddbgen__comment_literal(q->key_text) : json_string("(the whole partition)"));
    set(o, "has_filter", json_boolean(q->filter_bound != NULL));
    if (q->filter_bound) {
        char *rt = runtime_filter(q->filter_bound);
        set(o, "filter_text", ddbgen__comment_literal(q->filter_text));
        set(o, "filter_lit", ddbgen__c_literal(rt ? rt : ""));
        set(o, "filter_comment", ddbgen__comment_literal(rt ? rt : ""));
        free(rt);
    }
    bool any_float = false;
    for (size_t i = 0; i < q->n_params; i++) {
        const ddbgen_ir_qparam *p = &q->params[i];
        json_t *po = json_object();
        set(po, "pname", json_string(p->cname));
        ctype_set(po, "ctype", p->ctype);
        json_array_append_new(params, po);
        any_float |= p->in_filter && p->type == DDBGEN_IR_N && p->num == DDBGEN_IR_NUM_FLOAT;
    }
    set(o, "params", params);
    json_t *args = json_array();
    if (q->key)
        iter_args_add(args, json_object_get(o, "pk_params"));
    iter_args_add(args, params);
    if (!q->key) {
        iter_arg(args, "uint32_t", "segment");
        iter_arg(args, "uint32_t", "total_segments");
    }
    set(o, "iter_args", args);
    set(o, "needs_v", json_boolean(any_float));
    ddbgen_buf keys = {0}, binds = {0};
    for (size_t i = 0; i < q->n_keyconds; i++) {
        const ddbgen_ir_qkey *c = &q->keyconds[i];
        const char *lo = q->params[c->param].cname;
        const char *hi = c->param_hi != (size_t)-1 ? q->params[c->param_hi].cname : lo;
        assign(&keys, "k", c->level->path, c->level->field, lo);
        assign(&keys, "hi", c->level->path, c->level->field, hi);
    }
    for (size_t i = 0; i < q->n_names; i++) {
        json_t *lit = ddbgen__c_literal(q->names[i]);
        ddbgen_buf_printf(&binds, "    if (!rc)\n        rc = ddb_item_set_s(names, \"#" FILTER_NS "f%zu\", %s);\n", i, str(lit));
        json_decref(lit);
    }
    for (size_t i = 0; i < q->n_params; i++)
        if (q->params[i].in_filter)
            bind_value(&binds, &q->params[i]);
    set(o, "key_sets", take(&keys));
    set(o, "binds", take(&binds));
    return o;
}

void ddbgen__reads_module_ctx(json_t *ctx, const ddbgen_ir *ir)
{
    bool levels = false, failed = false;
    for (size_t i = 0; i < ir->n_entities; i++) {
        const ddbgen_ir_entity *e = &ir->entities[i];
        for (size_t k = 0; k < e->n_keys; k++) {
            levels |= e->keys[k].n_levels > 0;
            failed |= e->keys[k].n_levels == 0;
        }
        for (size_t q = 0; q < e->n_queries; q++)
            failed |= e->queries[q].filter_bound != NULL;
    }
    set(ctx, "uses_sk_level", json_boolean(levels));
    set(ctx, "uses_failed", json_boolean(failed));
}

void ddbgen__reads_ctx(json_t *o, const ddbgen_ir_entity *e, const char *base)
{
    (void)base;
    json_t *patterns = json_array(), *queries = json_array();
    for (size_t i = 0; i < e->n_keys; i++)
        json_array_append_new(patterns, pattern_ctx(e, &e->keys[i]));
    for (size_t i = 0; i < e->n_queries; i++)
        json_array_append_new(queries, query_ctx(e, &e->queries[i]));
    set(o, "patterns", patterns);
    set(o, "queries", queries);
    /* the entity scan's iterator: <entity>_scan_iter */
    json_t *scan = json_object(), *args = json_array();
    set(scan, "fn", ddbgen__rc_fmt("%s_scan", e->cname));
    iter_arg(args, "uint32_t", "segment");
    iter_arg(args, "uint32_t", "total_segments");
    set(scan, "iter_args", args);
    set(o, "scan_iter", scan);
}
