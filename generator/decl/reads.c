/* reads.c — access patterns (DDB_PATTERN), declared queries (DDB_QUERY) and
 * declared scans (DDB_SCAN): checked against the lowered schema and
 * recorded in the IR for the templates.
 *
 * An expression is written over the entity's C field names.  Each field
 * name is bound as a #name (#f0, #f1 ... one per occurrence), so reserved
 * words need no '#' in the schema, and the text is parsed by the runtime's
 * own expression parser (ddb_expr_prepare, the AST of expr/expr.h).  The
 * AST is then checked here: fields exist, placeholders get one type each
 * (from the field they are compared with), functions apply to their
 * field's type, a key condition selects a prefix or a range of the
 * pattern's sort key, a filter leaves key fields alone.  Every problem is a
 * diagnostic at its byte in the schema.
 *
 * Runs after validate.c and lower.c passed (names resolve, templates
 * parse).  May call the IR, diag, jsonutil, generated_names.h (the names
 * every entity has, the module-wide check) and the runtime's expression
 * room (public <ddb/expr.h>, internal expr/expr.h: lexer and AST).
 */
#include "generated_names.h"
#include "decl.h"

#include "expr/expr.h"

#include <ddb/entity.h>

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct R {
    ddbgen_ir *ir;
    ddbgen_diags *d;
    int oom;
} R;

static bool is(const char *a, const char *b) { return a && b && !strcmp(a, b); }

static bool c_identifier(const char *s)
{
    if (!s || !(isalpha((unsigned char)*s) || *s == '_'))
        return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_')
            return false;
    return true;
}

static ddbgen_loc LOC(const json_t *o, const char *key) { return ddbgen_loc_of(o, key); }

static void *ralloc(R *r, size_t n)
{
    void *p = ddbgen__ir_alloc(r->ir, n ? n : 1);
    if (!p)
        r->oom = 1;
    return p;
}

static const char *rstr(R *r, const char *s)
{
    const char *c = ddbgen__ir_strdup(r->ir, s);
    if (s && !c)
        r->oom = 1;
    return c;
}

static const char *type_word(ddbgen_ir_type t, ddbgen_ir_num num)
{
    switch (t) {
    case DDBGEN_IR_S:
        return "a string";
    case DDBGEN_IR_N:
        return num == DDBGEN_IR_NUM_FLOAT ? "a floating-point number" : "an integer";
    case DDBGEN_IR_B:
        return "a binary";
    case DDBGEN_IR_BOOL:
        return "a boolean";
    case DDBGEN_IR_M:
        return "a map (struct)";
    case DDBGEN_IR_L:
        return "a list";
    case DDBGEN_IR_SS:
        return "a string set";
    case DDBGEN_IR_NS:
        return "a number set";
    case DDBGEN_IR_BS:
        return "a binary set";
    }
    return "a value";
}

/* ---- one expression: its text, bound names and positions ---------------- */

/* The text as written (T) and as parsed (P: every field name replaced by
 * #fK); positions in P map back to T through the replaced spans. */
typedef struct span {
    size_t t_off, t_len, p_off, p_len;
} span;

typedef struct X {
    R *r;
    const json_t *obj;     /* {"text", "loc", "verbatim"} */
    const char *what;      /* "the key condition of query 'hot'" */
    const char *text;      /* T */
    ddbgen_buf bound;      /* P */
    span *spans;
    size_t n_spans;
    const char **cnames;   /* #fK -> C name of that path element */
    const char **attrs;    /* #fK -> stored attribute */
    size_t n_names;
    ddb_expr *e;
    int errors;
    const ddbgen_ir_key *pk; /* the query's pattern (its partition parameters), or NULL */
} X;

static ddbgen_loc at(const X *x, size_t t_off)
{
    ddbgen_loc l = LOC(x->obj, "loc");
    if (l.line > 0 && !json_is_false(json_object_get(x->obj, "verbatim")) && !strchr(x->text, '\n'))
        l.col += 1 + (int)t_off;
    return l;
}

static void __attribute__((format(printf, 3, 4))) xerr(X *x, size_t t_off, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    ddbgen_diag_add(x->r->d, DDBGEN_ERROR, at(x, t_off), "%s: %s", x->what, msg);
    x->errors++;
}

/* A line:col of P as an offset into T. */
static size_t t_offset(const X *x, uint32_t line, uint32_t col)
{
    const char *p = ddbgen_buf_str((ddbgen_buf *)&x->bound);
    size_t off = 0;
    for (uint32_t l = 1; l < line && p[off]; off++)
        if (p[off] == '\n')
            l++;
    off += col ? col - 1 : 0;
    long delta = 0;
    for (size_t i = 0; i < x->n_spans; i++) {
        const span *s = &x->spans[i];
        if (off < s->p_off)
            break;
        if (off < s->p_off + s->p_len)
            return s->t_off;
        delta += (long)s->p_len - (long)s->t_len;
    }
    long t = (long)off - delta;
    size_t tl = strlen(x->text);
    return t < 0 ? 0 : (size_t)t > tl ? tl : (size_t)t;
}

static size_t node_off(const X *x, const expr_node *n) { return t_offset(x, n->line, n->col); }

/* "home.country" of an AST path (names are the C names bound). */
static void path_text(const expr_path *p, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < p->n && n + 1 < cap; i++) {
        const expr_pelem *el = &p->el[i];
        int w = el->name ? snprintf(buf + n, cap - n, "%s%.*s", i ? "." : "", (int)el->len, el->name)
                         : snprintf(buf + n, cap - n, "[%u]", el->index);
        n += w > 0 ? (size_t)w : 0;
    }
}

static const ddbgen_ir_field *field_named(const ddbgen_ir_field *fields, size_t n, const char *name, size_t len)
{
    for (size_t i = 0; i < n; i++)
        if (strlen(fields[i].name) == len && !strncmp(fields[i].name, name, len))
            return &fields[i];
    return NULL;
}

static void add_span(X *x, size_t t_off, size_t t_len, size_t p_off, size_t p_len)
{
    span *s = realloc(x->spans, (x->n_spans + 1) * sizeof *s);
    if (!s) {
        x->r->oom = 1;
        return;
    }
    x->spans = s;
    s[x->n_spans++] = (span){t_off, t_len, p_off, p_len};
}

static void add_name(X *x, const char *cname, size_t len, const char *attr)
{
    const char **c = realloc(x->cnames, (x->n_names + 1) * sizeof *c);
    const char **a = c ? realloc(x->attrs, (x->n_names + 1) * sizeof *a) : NULL;
    if (c)
        x->cnames = c;
    if (!a) {
        x->r->oom = 1;
        return;
    }
    x->attrs = a;
    char *cn = malloc(len + 1);
    if (!cn) {
        x->r->oom = 1;
        return;
    }
    memcpy(cn, cname, len);
    cn[len] = '\0';
    x->cnames[x->n_names] = cn;
    x->attrs[x->n_names++] = attr;
}

static bool keyword(const char *src, const expr_token *t)
{
    static const char *const kws[] = {"AND", "OR", "NOT", "BETWEEN", "IN"};
    for (size_t i = 0; i < sizeof kws / sizeof *kws; i++)
        if (ddbi_expr_tok_is(src, t, kws[i]))
            return true;
    return false;
}

/* Close suggestion among the entity's fields ("did you mean"). */
static const char *closest(const ddbgen_ir_field *fields, size_t n, const char *name, size_t len)
{
    const char *best = NULL;
    size_t best_d = (size_t)-1;
    for (size_t i = 0; i < n; i++) {
        const char *f = fields[i].name;
        size_t fl = strlen(f), d = 0;
        /* cheap distance: differing bytes plus the length difference */
        for (size_t k = 0; k < fl && k < len; k++)
            d += f[k] != name[k];
        d += fl > len ? fl - len : len - fl;
        if (d < best_d) {
            best_d = d;
            best = f;
        }
    }
    return best_d <= 2 ? best : NULL;
}

/* Bind every field name of T as #fK, checking that it names a field;
 * then parse P with the runtime's parser as kind. */
static void bind_and_parse(X *x, const ddbgen_ir_entity *e, ddb_expr_kind kind)
{
    ddb_arena *a = ddb_arena_new();
    expr_token *toks = NULL;
    size_t nt = 0;
    if (!a || ddbi_expr_lex(x->text, strlen(x->text), a, &toks, &nt)) {
        x->r->oom = 1;
        ddb_arena_free(a);
        return;
    }
    size_t copied = 0;
    const ddbgen_ir_field *fields = e->fields;
    size_t n_fields = e->n_fields;
    const ddbgen_ir_field *prev = NULL; /* the field of the previous path element */
    bool in_path = false;
    for (size_t i = 0; i < nt && toks[i].kind != TK_EOF; i++) {
        const expr_token *t = &toks[i];
        bool nested = in_path && i > 0 && toks[i - 1].kind == TK_DOT;
        if (t->kind == TK_NAME && (nested || (!keyword(x->text, t) && toks[i + 1].kind != TK_LPAREN))) {
            if (!nested) {
                fields = e->fields;
                n_fields = e->n_fields;
            } else if (!prev || !(prev->st || (prev->is_list && prev->item.st))) {
                xerr(x, t->off, "'%.*s' follows '.', but what comes before it is not a struct", (int)t->len,
                     x->text + t->off);
                continue;
            } else {
                const ddbgen_ir_struct *st = prev->st ? prev->st : prev->item.st;
                fields = st->fields;
                n_fields = st->n_fields;
            }
            const ddbgen_ir_field *f = field_named(fields, n_fields, x->text + t->off, t->len);
            if (!f) {
                const char *s = closest(fields, n_fields, x->text + t->off, t->len);
                for (size_t k = 0; k < n_fields; k++)
                    if (strlen(fields[k].attr) == t->len && !strncmp(fields[k].attr, x->text + t->off, t->len))
                        s = fields[k].name; /* the stored name of a field: expressions use C names */
                xerr(x, t->off, "'%.*s' is not a field of %s%s%s%s", (int)t->len, x->text + t->off,
                     nested ? "that struct" : e->ctype, s ? " (did you mean '" : "", s ? s : "", s ? "'?)" : "");
                in_path = false;
                continue;
            }
            ddbgen_buf_add(&x->bound, x->text + copied, t->off - copied);
            size_t p_off = x->bound.len;
            ddbgen_buf_printf(&x->bound, "#f%zu", x->n_names);
            add_span(x, t->off, t->len, p_off, x->bound.len - p_off);
            add_name(x, x->text + t->off, t->len, f->attr);
            copied = t->off + t->len;
            prev = f;
            in_path = true;
        } else if (t->kind != TK_DOT && t->kind != TK_LBRACKET && t->kind != TK_RBRACKET && t->kind != TK_NUMBER) {
            in_path = false;
        }
    }
    ddbgen_buf_add(&x->bound, x->text + copied, strlen(x->text) - copied);
    ddb_arena_free(a);
    if (x->errors || x->r->oom || x->bound.oom)
        return;
    /* parse with #fK -> C name, so the AST's paths read as the schema's */
    ddb_arena *na = ddb_arena_new();
    ddb_item *names = na ? ddb_item_new(na) : NULL;
    for (size_t k = 0; names && k < x->n_names; k++) {
        char key[32];
        snprintf(key, sizeof key, "#f%zu", k);
        if (ddb_item_set_s(names, key, x->cnames[k]))
            names = NULL;
    }
    if (!names) {
        x->r->oom = 1;
        ddb_arena_free(na);
        return;
    }
    ddb_error err;
    memset(&err, 0, sizeof err);
    int rc = ddb_expr_prepare(kind, ddbgen_buf_str(&x->bound), x->n_names ? names : NULL, &x->e, &err);
    ddb_arena_free(na);
    if (rc == DDB_ENOMEM) {
        x->r->oom = 1;
    } else if (rc) {
        /* "... at L:C": the position in P, reported at T's byte */
        char msg[sizeof err.message + 1];
        snprintf(msg, sizeof msg, "%s", err.message);
        size_t off = 0;
        char *pos = strstr(msg, " at ");
        unsigned line, col;
        while (pos && strstr(pos + 1, " at "))
            pos = strstr(pos + 1, " at ");
        if (pos && sscanf(pos, " at %u:%u", &line, &col) == 2) {
            off = t_offset(x, line, col);
            *pos = '\0';
        }
        /* the message quotes P: show the field names instead of #fK */
        ddbgen_buf shown = {0};
        for (const char *c = msg; *c;) {
            size_t k;
            int used = 0;
            if (c[0] == '#' && c[1] == 'f' && sscanf(c + 2, "%zu%n", &k, &used) == 1 && k < x->n_names) {
                ddbgen_buf_puts(&shown, x->cnames[k]);
                c += 2 + used;
            } else {
                ddbgen_buf_add(&shown, c, 1);
                c++;
            }
        }
        xerr(x, off, "%s", ddbgen_buf_str(&shown));
        ddbgen_buf_free(&shown);
    }
}

static void x_free(X *x)
{
    for (size_t i = 0; i < x->n_names; i++)
        free((char *)x->cnames[i]);
    free(x->cnames);
    free(x->attrs);
    free(x->spans);
    ddbgen_buf_free(&x->bound);
    ddb_expr_free(x->e);
}

/* ---- types of operands and placeholders ------------------------------------ */

/* What an operand is. */
typedef struct qtype {
    bool known;
    ddbgen_ir_type type;
    ddbgen_ir_num num;
    const ddbgen_ir_struct *st;
    const ddbgen_ir_value *item;  /* L: what it holds */
    const ddbgen_ir_field *top;   /* the top-level field of the path */
    const ddbgen_ir_field *field; /* the field the path ends at (NULL: a list element) */
    const char *ctype;            /* the field's C type (NULL: a list element) */
} qtype;

static qtype path_type(const ddbgen_ir_entity *e, const expr_path *p)
{
    qtype q = {0};
    const ddbgen_ir_field *fields = e->fields;
    size_t n = e->n_fields;
    for (uint32_t i = 0; i < p->n; i++) {
        const expr_pelem *el = &p->el[i];
        if (el->name) {
            const ddbgen_ir_field *f = fields ? field_named(fields, n, el->name, el->len) : NULL;
            if (!f)
                return (qtype){0};
            if (i == 0)
                q.top = f;
            q = (qtype){true, f->type, f->num, f->st, f->is_list ? &f->item : NULL, q.top, f,
                        f->chars ? "char *" : f->ctype};
        } else {
            if (q.type != DDBGEN_IR_L || !q.item)
                return (qtype){0};
            const ddbgen_ir_value *v = q.item;
            q = (qtype){true, v->type, v->num, v->st, NULL, q.top, NULL, NULL};
        }
        fields = q.st ? q.st->fields : NULL;
        n = q.st ? q.st->n_fields : 0;
    }
    return q;
}

/* The placeholders of one query, with their types. */
typedef struct P {
    ddbgen_ir_qparam *items;
    size_t n;
} P;

static bool scalar(ddbgen_ir_type t)
{
    return t == DDBGEN_IR_S || t == DDBGEN_IR_N || t == DDBGEN_IR_BOOL || t == DDBGEN_IR_B;
}

static const char *num_ctype(ddbgen_ir_num num)
{
    return num == DDBGEN_IR_NUM_FLOAT ? "double" : num == DDBGEN_IR_NUM_UINT ? "uint64_t" : "int64_t";
}

/* Type :value (node v) as t; ctype: the C type for it (NULL = by type).
 * Returns the parameter's index, or (size_t)-1 after an error. */
static size_t bind_value(X *x, P *ps, const expr_node *v, ddbgen_ir_type t, ddbgen_ir_num num, const char *ctype,
                         const char *against, bool in_filter)
{
    const char *name = v->str + 1;
    size_t len = v->slen ? v->slen - 1 : 0;
    if (!scalar(t)) {
        xerr(x, node_off(x, v), "':%.*s' is compared with %s, %s: declared queries take strings, numbers, booleans "
                                "and binaries as :values",
             (int)len, name, against, type_word(t, num));
        return (size_t)-1;
    }
    if (!ctype)
        ctype = t == DDBGEN_IR_S      ? "const char *"
                : t == DDBGEN_IR_BOOL ? "bool"
                : t == DDBGEN_IR_B    ? "ddb_bytes"
                                      : num_ctype(num);
    if (t == DDBGEN_IR_S)
        ctype = "const char *";
    for (size_t i = 0; i < ps->n; i++) {
        ddbgen_ir_qparam *p = &ps->items[i];
        if (strlen(p->name) != len || strncmp(p->name, name, len))
            continue;
        if (p->type != t) {
            xerr(x, node_off(x, v), "':%s' is %s here (compared with %s) but %s elsewhere in the query", p->name,
                 type_word(t, num), against, type_word(p->type, p->num));
            return (size_t)-1;
        }
        p->in_filter |= in_filter;
        return i;
    }
    char pname[256];
    snprintf(pname, sizeof pname, "%.*s", (int)len, name);
    if (!c_identifier(pname)) {
        xerr(x, node_off(x, v), "':%s' cannot be a C parameter name", pname);
        return (size_t)-1;
    }
    /* the generated function's own names: such a placeholder's C parameter
     * gets a '_' appended (callers never see parameter names) */
    static const char *const taken[] = {"db", "o", "a", "out", "err", "k", "hi", "kc", "r", "rc", "rc_", "ro",
                                        "names", "values", "v", "segment", "total_segments"};
    char cname[sizeof pname + 8];
    snprintf(cname, sizeof cname, "%s", pname);
    for (size_t i = 0; i < sizeof taken / sizeof *taken; i++) {
        if (is(taken[i], cname) && strlen(cname) + 1 < sizeof cname) {
            strcat(cname, "_");
            i = (size_t)-1; /* "rc" -> "rc_" is taken too: again */
        }
    }
    for (size_t i = 0; i < ps->n; i++) {
        if (is(ps->items[i].cname, cname)) {
            xerr(x, node_off(x, v), "':%s' and ':%s' would both be the C parameter '%s': rename one", pname,
                 ps->items[i].name, cname);
            return (size_t)-1;
        }
    }
    for (size_t i = 0; x->pk && i < x->pk->n_pk_params; i++) {
        if (is(x->pk->pk_params[i].path, pname)) {
            xerr(x, node_off(x, v), "':%s' has the name of the partition field parameter '%s': rename it", pname,
                 pname);
            return (size_t)-1;
        }
    }
    ddbgen_ir_qparam *grown = realloc(ps->items, (ps->n + 1) * sizeof *grown);
    if (!grown) {
        x->r->oom = 1;
        return (size_t)-1;
    }
    ps->items = grown;
    grown[ps->n] = (ddbgen_ir_qparam){rstr(x->r, pname), t, num, rstr(x->r, ctype), in_filter, rstr(x->r, cname)};
    return ps->n++;
}

static size_t bind_to(X *x, P *ps, const expr_node *v, const qtype *q, const char *against, bool in_filter)
{
    const char *ctype = q->field && q->type == DDBGEN_IR_N ? q->ctype : NULL;
    return bind_value(x, ps, v, q->type, q->num, ctype, against, in_filter);
}

/* ---- filters ------------------------------------------------------------------ */

/* "partition" or "sort" when top is used by the pattern's key templates
 * (NULL: not, or a scan, which has no key). */
static const char *key_role(const ddbgen_ir_entity *e, const ddbgen_ir_key *k, const ddbgen_ir_field *top)
{
    for (int w = 0; k && top && w < 2; w++) {
        const ddbgen_ir_template *t = w ? &k->sk : &k->pk;
        if (w && !k->has_sk)
            continue;
        for (size_t i = 0; i < t->n_segs; i++)
            if (!t->segs[i].lit && t->segs[i].path_len && &e->fields[t->segs[i].path[0]] == top)
                return w ? "sort" : "partition";
    }
    return NULL;
}

typedef struct Q {
    X *x;
    const ddbgen_ir_entity *e;
    const ddbgen_ir_key *key; /* the pattern's, or NULL */
    const char *pattern;
    P *ps;
    const ddbgen_ir_field *sharded; /* the filter's first field on a shard */
} Q;

/* A filter runs on each stored item; a sharded entity's fields are spread
 * over its shard items (key fields are on all of them), and an index of a
 * sharded entity holds one shard item each. */
static void check_shard(Q *q, const expr_node *n, const ddbgen_ir_field *top, const char *label)
{
    if (!top || !top->shard || top->key)
        return;
    const ddbgen_ir_shard *held = q->key ? q->key->shard : NULL;
    if (held && top->shard != held) {
        xerr(q->x, node_off(q->x, n),
             "'%s' is on shard %s of '%s', but index '%s' holds its shard %s items: a filter sees one stored item, "
             "so it names fields of shard %s (or key fields)",
             label, top->shard->id, q->e->name, q->key->index->name, held->id, held->id);
    } else if (q->sharded && q->sharded->shard != top->shard) {
        xerr(q->x, node_off(q->x, n),
             "'%s' is on shard %s of '%s' and '%s' on shard %s: a filter sees one stored item, so it names fields of "
             "one shard (or key fields)",
             label, top->shard->id, q->e->name, q->sharded->name, q->sharded->shard->id);
    } else if (!q->sharded) {
        q->sharded = top;
    }
}

static qtype operand(Q *q, const expr_node *n, char *label, size_t cap)
{
    if (n->kind == EN_PATH) {
        path_text(&n->path, label, cap);
        qtype t = path_type(q->e, &n->path);
        const char *role = key_role(q->e, q->key, t.top);
        check_shard(q, n, t.top, label);
        if (t.known && role) {
            xerr(q->x, node_off(q->x, n),
                 "'%s' is in the %s key of access pattern '%s': %s", label, role, q->pattern,
                 role[0] == 'p' ? "the query reads one partition of it already"
                                : "put its condition in the key condition, where it narrows the read instead of "
                                  "filtering what was read");
        }
        return t;
    }
    if (n->kind == EN_FUNC && n->op == EF_SIZE) {
        snprintf(label, cap, "size()");
        return (qtype){true, DDBGEN_IR_N, DDBGEN_IR_NUM_INT, NULL, NULL, NULL, NULL, "int64_t"};
    }
    label[0] = '\0';
    return (qtype){0};
}

static bool orderable(ddbgen_ir_type t) { return t == DDBGEN_IR_S || t == DDBGEN_IR_N || t == DDBGEN_IR_B; }

static void check_func_arg(Q *q, const expr_node *fn, const qtype *t, const char *label);

/* Two operands compared (=, <>, <, ..., BETWEEN's bounds, IN's list). */
static void compare(Q *q, const expr_node *a, const expr_node *b, bool ordered)
{
    char la[300], lb[300];
    qtype ta = operand(q, a, la, sizeof la), tb = operand(q, b, lb, sizeof lb);
    if (a->kind == EN_VALUE && b->kind == EN_VALUE) {
        xerr(q->x, node_off(q->x, a), "two :values compared: compare a field with a :value");
        return;
    }
    if (a->kind == EN_VALUE) {
        const expr_node *s = a;
        a = b;
        b = s;
        qtype st = ta;
        ta = tb;
        tb = st;
        char tmp[300];
        memcpy(tmp, la, sizeof tmp);
        memcpy(la, lb, sizeof la);
        memcpy(lb, tmp, sizeof lb);
    }
    if (a->kind == EN_FUNC && a->op == EF_SIZE && a->nargs == 1) {
        char lf[300];
        qtype tf = operand(q, a->args[0], lf, sizeof lf);
        if (tf.known)
            check_func_arg(q, a, &tf, lf);
    }
    if (!ta.known)
        return;
    if (ordered && !orderable(ta.type)) {
        xerr(q->x, node_off(q->x, a), "'%s' is %s: <, <=, >, >= and BETWEEN compare strings, numbers and binaries",
             la, type_word(ta.type, ta.num));
        return;
    }
    if (b->kind == EN_VALUE) {
        char against[320];
        snprintf(against, sizeof against, "'%s'", la);
        bind_to(q->x, q->ps, b, &ta, against, true);
    } else if (tb.known && (ta.type != tb.type)) {
        xerr(q->x, node_off(q->x, b), "'%s' is %s and '%s' %s: they never compare equal or ordered", la,
             type_word(ta.type, ta.num), lb, type_word(tb.type, tb.num));
    }
}

/* Functions that do not apply to the field's type. */
static void check_func_arg(Q *q, const expr_node *fn, const qtype *t, const char *label)
{
    switch (fn->op) {
    case EF_BEGINS_WITH:
        if (t->type != DDBGEN_IR_S && t->type != DDBGEN_IR_B)
            xerr(q->x, node_off(q->x, fn), "begins_with applies to strings and binaries; '%s' is %s", label,
                 type_word(t->type, t->num));
        break;
    case EF_CONTAINS:
        if (t->type != DDBGEN_IR_S && t->type != DDBGEN_IR_SS && t->type != DDBGEN_IR_NS &&
            t->type != DDBGEN_IR_BS && !(t->type == DDBGEN_IR_L && t->item && scalar(t->item->type)))
            xerr(q->x, node_off(q->x, fn),
                 "contains applies to strings, sets and lists of strings, numbers, booleans or binaries; '%s' is %s",
                 label, type_word(t->type, t->num));
        break;
    case EF_SIZE:
        if (t->type == DDBGEN_IR_N || t->type == DDBGEN_IR_BOOL)
            xerr(q->x, node_off(q->x, fn), "size applies to strings, binaries, sets, lists and maps; '%s' is %s",
                 label, type_word(t->type, t->num));
        break;
    default:
        break;
    }
}

static void filter_node(Q *q, const expr_node *n)
{
    char label[300];
    switch (n->kind) {
    case EN_AND:
    case EN_OR:
    case EN_NOT:
        for (uint32_t i = 0; i < n->nargs; i++)
            filter_node(q, n->args[i]);
        break;
    case EN_CMP:
        compare(q, n->args[0], n->args[1], n->op != CMP_EQ && n->op != CMP_NE);
        break;
    case EN_BETWEEN:
        compare(q, n->args[0], n->args[1], true);
        compare(q, n->args[0], n->args[2], true);
        break;
    case EN_IN:
        for (uint32_t i = 1; i < n->nargs; i++)
            compare(q, n->args[0], n->args[i], false);
        break;
    case EN_FUNC: {
        if (n->nargs == 0)
            break;
        qtype t = operand(q, n->args[0], label, sizeof label);
        if (!t.known)
            break;
        check_func_arg(q, n, &t, label);
        if (n->nargs < 2 || n->args[1]->kind != EN_VALUE)
            break;
        char against[320];
        snprintf(against, sizeof against, "'%s'", label);
        if (n->op == EF_ATTRIBUTE_TYPE) {
            bind_value(q->x, q->ps, n->args[1], DDBGEN_IR_S, DDBGEN_IR_NUM_NONE, NULL, "attribute_type", true);
        } else if (n->op == EF_BEGINS_WITH) {
            bind_to(q->x, q->ps, n->args[1], &t, against, true);
        } else if (n->op == EF_CONTAINS) {
            ddbgen_ir_type et = t.type == DDBGEN_IR_SS   ? DDBGEN_IR_S
                                : t.type == DDBGEN_IR_NS ? DDBGEN_IR_N
                                : t.type == DDBGEN_IR_BS ? DDBGEN_IR_B
                                : t.type == DDBGEN_IR_L && t.item ? t.item->type
                                                                  : t.type;
            ddbgen_ir_num en = t.type == DDBGEN_IR_L && t.item ? t.item->num : t.num;
            if (scalar(et))
                bind_value(q->x, q->ps, n->args[1], et, en, NULL, against, true);
        }
        break;
    }
    default:
        break;
    }
}

/* ---- key conditions --------------------------------------------------------------- */

typedef struct kc {
    const expr_node *node, *path, *v1, *v2;
    ddbgen_ir_skop op;
    const ddbgen_ir_level *level;
    size_t level_no;
} kc;

static ddbgen_ir_skop cmp_op(int cmp, bool flipped)
{
    switch (cmp) {
    case CMP_EQ:
        return DDBGEN_SK_EQ;
    case CMP_LT:
        return flipped ? DDBGEN_SK_GT : DDBGEN_SK_LT;
    case CMP_LE:
        return flipped ? DDBGEN_SK_GE : DDBGEN_SK_LE;
    case CMP_GT:
        return flipped ? DDBGEN_SK_LT : DDBGEN_SK_GT;
    default:
        return flipped ? DDBGEN_SK_LE : DDBGEN_SK_GE;
    }
}

static void conjuncts(const expr_node *n, const expr_node **out, size_t *count, size_t cap)
{
    if (n->kind == EN_AND) {
        for (uint32_t i = 0; i < n->nargs; i++)
            conjuncts(n->args[i], out, count, cap);
    } else if (*count < cap) {
        out[(*count)++] = n;
    }
}

static const char *sk_shape =
    "a key condition is =, <, <=, >, >=, BETWEEN or begins_with on sort-key fields, joined with AND";

/* One conjunct as a condition on a level; false after an error. */
static bool key_conjunct(Q *q, const expr_node *n, kc *out)
{
    memset(out, 0, sizeof *out);
    out->node = n;
    if (n->kind == EN_CMP) {
        const expr_node *a = n->args[0], *b = n->args[1];
        bool flipped = a->kind == EN_VALUE;
        if (flipped) {
            const expr_node *s = a;
            a = b;
            b = s;
        }
        if (a->kind != EN_PATH || b->kind != EN_VALUE) {
            xerr(q->x, node_off(q->x, n), "%s; compare a field with a :value", sk_shape);
            return false;
        }
        if (n->op == CMP_NE) {
            xerr(q->x, node_off(q->x, n), "<> cannot select a range of the sort key; %s", sk_shape);
            return false;
        }
        out->path = a;
        out->v1 = b;
        out->op = cmp_op(n->op, flipped);
    } else if (n->kind == EN_BETWEEN && n->args[0]->kind == EN_PATH && n->args[1]->kind == EN_VALUE &&
               n->args[2]->kind == EN_VALUE) {
        out->path = n->args[0];
        out->v1 = n->args[1];
        out->v2 = n->args[2];
        out->op = DDBGEN_SK_BETWEEN;
    } else if (n->kind == EN_FUNC && n->op == EF_BEGINS_WITH && n->nargs == 2 && n->args[0]->kind == EN_PATH &&
               n->args[1]->kind == EN_VALUE) {
        out->path = n->args[0];
        out->v1 = n->args[1];
        out->op = DDBGEN_SK_BEGINS;
    } else {
        xerr(q->x, node_off(q->x, n), "%s; move other conditions to the filter", sk_shape);
        return false;
    }
    char label[300];
    path_text(&out->path->path, label, sizeof label);
    for (size_t i = 0; i < q->key->n_levels; i++) {
        if (is(q->key->levels[i].path, label)) {
            out->level = &q->key->levels[i];
            out->level_no = i;
        }
    }
    if (!out->level) {
        qtype t = path_type(q->e, &out->path->path);
        const char *role = key_role(q->e, q->key, t.top);
        if (role && role[0] == 'p')
            xerr(q->x, node_off(q->x, out->path),
                 "'%s' is in the partition key of access pattern '%s': it is a parameter of every query of the "
                 "pattern; drop it from the key condition",
                 label, q->pattern);
        else
            xerr(q->x, node_off(q->x, out->path),
                 "'%s' is not in the sort key of access pattern '%s' (\"%s\"): a key condition names sort-key "
                 "fields; move this condition to the filter",
                 label, q->pattern, q->key->has_sk ? q->key->sk.text : "the index has no sort key");
        return false;
    }
    return true;
}

static int kc_cmp(const void *a, const void *b)
{
    const kc *x = a, *y = b;
    return x->level_no < y->level_no ? -1 : x->level_no > y->level_no;
}

static const char *level_reason(const ddbgen_ir_level *l)
{
    (void)l; /* floats never reach a key template (validate.c) */
    return "an unpadded number written as text, whose order is not the number's (\"10\" < \"9\"): pad it "
           "({field:010})";
}

static void key_condition(Q *q, const expr_node *root, ddbgen_ir_query *out)
{
    const expr_node *parts[64];
    size_t n = 0;
    conjuncts(root, parts, &n, 64);
    kc conds[64];
    size_t nc = 0;
    for (size_t i = 0; i < n; i++)
        if (key_conjunct(q, parts[i], &conds[nc]))
            nc++;
    if (nc != n)
        return;
    qsort(conds, nc, sizeof *conds, kc_cmp);
    for (size_t i = 0; i < nc; i++) {
        const kc *c = &conds[i];
        if (i > 0 && conds[i - 1].level_no == c->level_no) {
            xerr(q->x, node_off(q->x, c->node), "two conditions on '%s'", c->level->path);
            return;
        }
        /* every level before it is named too (a field held by several
         * levels, "{d|year}-{d|month}", counts for all of them) */
        for (size_t j = 0; j < c->level_no; j++) {
            bool named = false;
            for (size_t m = 0; m < nc && !named; m++)
                named = is(conds[m].level->path, q->key->levels[j].path);
            if (!named) {
                xerr(q->x, node_off(q->x, c->node),
                     "the sort key \"%s\" orders by '%s' before '%s': a condition on '%s' needs '%s' = :value too",
                     q->key->sk.text, q->key->levels[j].path, c->level->path, c->level->path,
                     q->key->levels[j].path);
                return;
            }
        }
        if (i + 1 < nc && c->op != DDBGEN_SK_EQ) {
            xerr(q->x, node_off(q->x, c->node),
                 "only the last field a key condition names may take a range or begins_with: '%s' comes after "
                 "'%s' in the sort key \"%s\"",
                 conds[i + 1].level->path, c->level->path, q->key->sk.text);
            return;
        }
        bool range = c->op != DDBGEN_SK_EQ && c->op != DDBGEN_SK_BEGINS;
        if (range && !c->level->ordered) {
            xerr(q->x, node_off(q->x, c->node), "the sort key \"%s\" holds '%s' as %s; compare it in the filter",
                 q->key->sk.text, c->level->path, level_reason(c->level));
            return;
        }
        /* a key of fields compares each attribute as itself: binary takes begins_with too */
        bool bytes_ok = q->key->by_fields && c->level->field->type == DDBGEN_IR_B;
        if (c->op == DDBGEN_SK_BEGINS && (c->level->field->type != DDBGEN_IR_S || q->key->sk.numeric) && !bytes_ok) {
            xerr(q->x, node_off(q->x, c->node), "begins_with applies to strings; '%s' is %s", c->level->path,
                 type_word(c->level->field->type, c->level->field->num));
            return;
        }
    }
    out->keyconds = ralloc(q->x->r, nc * sizeof *out->keyconds);
    if (!out->keyconds)
        return;
    for (size_t i = 0; i < nc; i++) {
        const kc *c = &conds[i];
        qtype t = path_type(q->e, &c->path->path);
        char against[320];
        snprintf(against, sizeof against, "'%s'", c->level->path);
        size_t p1 = bind_to(q->x, q->ps, c->v1, &t, against, false);
        size_t p2 = c->v2 ? bind_to(q->x, q->ps, c->v2, &t, against, false) : (size_t)-1;
        out->keyconds[out->n_keyconds++] = (ddbgen_ir_qkey){c->level, p1, p2};
    }
    const kc *last = &conds[nc - 1];
    if (last->op == DDBGEN_SK_EQ && q->key->by_fields) {
        out->op = DDBGEN_SK_EQ; /* a key of fields: equality on that attribute, any level */
        out->seg = last->level->seg;
    } else if (last->op == DDBGEN_SK_EQ && last->level_no + 1 == q->key->n_levels) {
        out->op = DDBGEN_SK_EQ;
        out->seg = q->key->sk.n_segs - 1;
    } else if (last->op == DDBGEN_SK_EQ) {
        out->op = DDBGEN_SK_BEGINS; /* level k equal: begins_with through the literal after it */
        out->seg = last->level->eq_seg;
    } else {
        out->op = last->op;
        out->seg = last->level->seg;
    }
}

/* ---- patterns, queries, scans ------------------------------------------------------ */

/* Functions of one entity named <entity>_<name>: patterns, queries, scans. */
typedef struct names {
    const char *name[256];
    ddbgen_loc loc[256];
    size_t n;
} names;

static void claim(R *r, names *ns, const char *name, ddbgen_loc l, const char *ent, const char *what)
{
    const char *taken = ddbgen_entity_name_taken(name);
    if (taken && strchr(taken, '<')) {
        ddbgen_diag_add(r->d, DDBGEN_ERROR, l,
                        "%s '%s' would be the function %s_%s, of the form %s_%s every entity has: choose another name",
                        what, name, ent, name, ent, taken);
        return;
    }
    if (taken) {
        ddbgen_diag_add(r->d, DDBGEN_ERROR, l,
                        "%s '%s' would be the function %s_%s, which every entity has already: choose another name",
                        what, name, ent, name);
        return;
    }
    for (size_t i = 0; i < ns->n; i++) {
        if (is(ns->name[i], name)) {
            long h = ddbgen_diag_add(r->d, DDBGEN_ERROR, l,
                                     "%s '%s' of '%s': the name is taken (patterns, queries and scans of an entity "
                                     "are all functions %s_<name>)",
                                     what, name, ent, ent);
            ddbgen_diag_note(r->d, h, ns->loc[i], "'%s' is first used here", name);
            return;
        }
    }
    if (ns->n < 256) {
        ns->name[ns->n] = name;
        ns->loc[ns->n++] = l;
    }
}

static void apply_patterns(R *r, const json_t *je, ddbgen_ir_entity *e, names *ns)
{
    const json_t *pats = json_object_get(je, "patterns");
    size_t i;
    const json_t *p;
    json_array_foreach(pats, i, p) {
        const char *name = ddbgen_jstr(p, "name"), *index = ddbgen_jstr(p, "index");
        ddbgen_ir_key *k = NULL;
        for (size_t j = 0; j < e->n_keys; j++)
            if (is(e->keys[j].index->name, index))
                k = &e->keys[j];
        if (!c_identifier(name)) {
            ddbgen_diag_add(r->d, DDBGEN_ERROR, LOC(p, "loc"),
                            "access pattern name \"%s\" must be a C identifier (it names the function %s_%s)", name,
                            e->cname, name);
        } else if (!k) {
            ddbgen_buf b = {0};
            for (size_t j = 0; j < e->n_keys; j++)
                ddbgen_buf_printf(&b, "%s'%s'", j ? ", " : "", e->keys[j].index->name);
            ddbgen_diag_add(r->d, DDBGEN_ERROR, LOC(p, "index_loc"),
                            "'%s' has no DDB_KEY on index '%s' (its keys: %s): an access pattern names one of them",
                            e->name, index, ddbgen_buf_str(&b));
            ddbgen_buf_free(&b);
        } else if (k->pattern != k->index->name) {
            ddbgen_diag_add(r->d, DDBGEN_ERROR, LOC(p, "loc"), "index '%s' of '%s' is named twice ('%s' and '%s')",
                            index, e->name, k->pattern, name);
        } else {
            k->pattern = rstr(r, name);
        }
    }
    for (size_t j = 0; j < e->n_keys; j++) {
        ddbgen_loc l = LOC(je, "loc");
        json_array_foreach(pats, i, p)
            if (is(ddbgen_jstr(p, "name"), e->keys[j].pattern))
                l = LOC(p, "loc");
        claim(r, ns, e->keys[j].pattern, l, e->cname, "access pattern");
    }
}

static const ddbgen_ir_key *pattern_named(const ddbgen_ir_entity *e, const char *name)
{
    for (size_t j = 0; j < e->n_keys; j++)
        if (is(e->keys[j].pattern, name))
            return &e->keys[j];
    for (size_t j = 0; j < e->n_keys; j++)
        if (is(e->keys[j].index->name, name))
            return &e->keys[j];
    return NULL;
}

/* One DDB_QUERY (key pattern) or DDB_SCAN (is_scan) into out; false on error. */
static bool lower_query(R *r, const json_t *jq, const ddbgen_ir_entity *e, bool is_scan, names *ns,
                        ddbgen_ir_query *out)
{
    const char *name = ddbgen_jstr(jq, "name");
    const char *what_kind = is_scan ? "scan" : "query";
    size_t errors = r->d->errors;
    if (!c_identifier(name)) {
        ddbgen_diag_add(r->d, DDBGEN_ERROR, LOC(jq, "loc"),
                        "%s name \"%s\" must be a C identifier (it names the function %s_%s)", what_kind, name,
                        e->cname, name);
        return false;
    }
    claim(r, ns, name, LOC(jq, "loc"), e->cname, what_kind);
    memset(out, 0, sizeof *out);
    out->name = rstr(r, name);
    const ddbgen_ir_key *key = NULL;
    if (!is_scan) {
        const char *pat = ddbgen_jstr(jq, "pattern");
        key = pattern_named(e, pat);
        if (!key) {
            ddbgen_buf b = {0};
            for (size_t j = 0; j < e->n_keys; j++)
                ddbgen_buf_printf(&b, "%s'%s'", j ? ", " : "", e->keys[j].pattern);
            ddbgen_diag_add(r->d, DDBGEN_ERROR, LOC(jq, "pattern_loc"),
                            "query '%s': '%s' has no access pattern or index '%s' (its patterns: %s)", name, e->name,
                            pat, ddbgen_buf_str(&b));
            ddbgen_buf_free(&b);
            return false;
        }
    }
    out->key = key;
    P ps = {0};
    Q q = {NULL, e, key, key ? key->pattern : NULL, &ps, NULL};
    char what[300];
    const json_t *jk = json_object_get(jq, "key");
    const char *ktext = ddbgen_jstr(jk, "text");
    if (key && ktext && ktext[strspn(ktext, " \t\n")]) {
        snprintf(what, sizeof what, "the key condition of query '%s'", name);
        X x = {.r = r, .obj = jk, .what = what, .text = ktext, .pk = key};
        q.x = &x;
        if (!key->has_sk) {
            xerr(&x, 0, "index '%s' has no sort key: leave the key condition empty (\"\")", key->index->name);
        } else {
            bind_and_parse(&x, e, DDB_EXPR_CONDITION);
            if (!x.errors && x.e)
                key_condition(&q, x.e->root, out);
        }
        x_free(&x);
        out->key_text = rstr(r, ktext);
    } else {
        out->op = DDBGEN_SK_ALL;
    }
    const json_t *jf = json_object_get(jq, "filter");
    const char *ftext = ddbgen_jstr(jf, "text");
    if (ftext && ftext[strspn(ftext, " \t\n")]) {
        snprintf(what, sizeof what, "the filter of %s '%s'", what_kind, name);
        X x = {.r = r, .obj = jf, .what = what, .text = ftext, .pk = key};
        q.x = &x;
        bind_and_parse(&x, e, DDB_EXPR_FILTER);
        if (!x.errors && x.e)
            filter_node(&q, x.e->root);
        out->filter_text = rstr(r, ftext);
        out->filter_bound = rstr(r, ddbgen_buf_str(&x.bound));
        out->names = ralloc(r, (x.n_names ? x.n_names : 1) * sizeof *out->names);
        for (size_t k = 0; out->names && k < x.n_names; k++)
            out->names[k] = x.attrs[k];
        out->n_names = x.n_names;
        x_free(&x);
    }
    out->params = ralloc(r, (ps.n ? ps.n : 1) * sizeof *out->params);
    if (out->params && ps.n)
        memcpy(out->params, ps.items, ps.n * sizeof *ps.items);
    out->n_params = ps.n;
    free(ps.items);
    return r->d->errors == errors;
}

int ddbgen__lower_reads(ddbgen_ir *ir, const json_t *declared, ddbgen_diags *d)
{
    R r = {ir, d, 0};
    const json_t *ents = json_object_get(declared, "entities");
    for (size_t i = 0; i < ir->n_entities && !r.oom; i++) {
        const json_t *je = json_array_get(ents, i);
        ddbgen_ir_entity *e = &ir->entities[i];
        names *ns = calloc(1, sizeof *ns);
        if (!ns) {
            r.oom = 1;
            break;
        }
        if (e->n_fields > DDB_ENT_MAX_FIELDS)
            ddbgen_diag_add(d, DDBGEN_ERROR, LOC(je, "loc"),
                            "'%s' has %zu fields; a typed read's field mask holds at most %d (DDB_ENT_MAX_FIELDS): "
                            "group some of them into a nested struct",
                            e->name, e->n_fields, DDB_ENT_MAX_FIELDS);
        apply_patterns(&r, je, e, ns);
        const json_t *qs = json_object_get(je, "queries"), *ss = json_object_get(je, "scans");
        size_t nq = json_array_size(qs), nsc = json_array_size(ss);
        e->queries = ralloc(&r, (nq + nsc) * sizeof *e->queries);
        for (size_t k = 0; e->queries && k < nq + nsc; k++) {
            bool scan = k >= nq;
            const json_t *jq = scan ? json_array_get(ss, k - nq) : json_array_get(qs, k);
            if (lower_query(&r, jq, e, scan, ns, &e->queries[e->n_queries]))
                e->n_queries++;
        }
        free(ns);
    }
    if (r.oom) {
        ddbgen_loc none = {NULL, 0, 0};
        ddbgen_diag_add(d, DDBGEN_ERROR, none, "out of memory");
        return DDBGEN_EUSAGE;
    }
    return d->errors ? DDBGEN_ESCHEMA : DDBGEN_OK;
}
