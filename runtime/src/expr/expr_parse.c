/* expr/: Recursive-descent parser for DynamoDB expressions and the validation
 * DynamoDB does before it reads any item (ddb_expr_prepare).
 *
 * Two passes: the grammar builds an AST (syntax errors stop it at the
 * furthest token no rule could take), then a semantic walk in text order
 * records the first problem of each category, and the category DynamoDB
 * reports first wins (the order dynalite learned from the real service).
 * May call core/. */
#include "expr/expr.h"

#include "core/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parenthesis / NOT / function nesting the parser follows before giving up
 * (bounds recursion; every valid DynamoDB expression stays far below). */
#define EXPR_MAX_NESTING 256

/* ---- Diagnostics: first problem per category ------------------------------ */

typedef enum cat {
    CAT_LIMIT,
    CAT_PARENS,
    CAT_UNKNOWN_FUNC,
    CAT_MISUSED_FUNC,
    CAT_RESERVED,
    CAT_SECTION,
    CAT_NAME,
    CAT_OVERLAP,
    CAT_CONFLICT,
    CAT_OPERAND,
    CAT_DISTINCT,
    CAT_FUNCTION,
    CAT_KEY,
    NCAT
} cat;

typedef struct diag {
    bool set[NCAT];
    int code[NCAT];
    char msg[NCAT][DDB_ERROR_TEXT_SIZE];
} diag;

typedef struct sem {
    ddb_expr *e;
    diag *d;
    int nomem;
    unsigned operators;
    /* placeholders in text order (duplicates kept) */
    const char **names;
    uint32_t nnames, capnames;
    const char **values;
    uint32_t nvalues, capvalues;
} sem;

static void note(sem *s, cat c, int code, bool prefix, uint32_t line, uint32_t col, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));

static void note(sem *s, cat c, int code, bool prefix, uint32_t line, uint32_t col, const char *fmt, ...)
{
    if (s->d->set[c])
        return;
    va_list ap;
    va_start(ap, fmt);
    ddbi_expr_vformat(s->d->msg[c], sizeof s->d->msg[c], prefix, s->e->kind, line, col, fmt, ap);
    va_end(ap);
    s->d->set[c] = true;
    s->d->code[c] = code;
}

/* "[a, b, [3]]" as DynamoDB prints a document path. */
static void path_str(const expr_path *p, char *buf, size_t size)
{
    size_t n = 0;
#define PUT(...)                                                                                                  \
    do {                                                                                                          \
        int w_ = snprintf(buf + n, size - n, __VA_ARGS__);                                                        \
        if (w_ > 0)                                                                                               \
            n += (size_t)w_ < size - n ? (size_t)w_ : size - n - 1;                                               \
    } while (0)
    PUT("[");
    for (uint32_t i = 0; i < p->n; i++) {
        if (i)
            PUT(", ");
        if (p->el[i].name)
            PUT("%.*s", (int)(p->el[i].len > 64 ? 64 : p->el[i].len), p->el[i].name);
        else
            PUT("[%u]", p->el[i].index);
    }
    PUT("]");
#undef PUT
}

/* ---- Parser state ------------------------------------------------------------ */

/* Path element flags kept beside the AST while validating. */
typedef struct pelem_src {
    uint32_t line, col;
    uint32_t off, len; /* as written */
    uint8_t how;       /* 0 index, 1 bare name, 2 #name defined, 3 #name undefined */
} pelem_src;

enum { HOW_INDEX, HOW_BARE, HOW_HASH, HOW_UNDEF };

typedef struct parser {
    ddb_expr *e;
    ddb_arena *a;       /* the expression's arena: the AST */
    ddb_arena *scratch; /* freed when prepare returns: tokens, temporaries */
    const char *src;
    const expr_token *t;
    size_t nt, pos;
    const ddb_item *names;
    int depth;
    size_t fail;
    bool failed;
    int hard; /* DDB_ENOMEM or DDB_ELIMIT: give up at once */
    uint32_t hard_line, hard_col;
} parser;

static const expr_token *peek(const parser *p)
{
    return &p->t[p->pos];
}

static const expr_token *peek_at(const parser *p, size_t k)
{
    size_t i = p->pos + k;
    return &p->t[i < p->nt ? i : p->nt - 1];
}

static void *syn_fail(parser *p)
{
    if (!p->failed || p->pos > p->fail)
        p->fail = p->pos;
    p->failed = true;
    return NULL;
}

static void *nomem(parser *p)
{
    p->hard = DDB_ENOMEM;
    return NULL;
}

static bool enter(parser *p)
{
    if (++p->depth > EXPR_MAX_NESTING) {
        if (!p->hard) {
            p->hard = DDB_ELIMIT;
            p->hard_line = peek(p)->line;
            p->hard_col = peek(p)->col;
        }
        return false;
    }
    return true;
}

static void leave(parser *p)
{
    p->depth--;
}

static bool push(ddb_arena *a, void *arrp, uint32_t *n, uint32_t *cap, size_t elem, const void *x)
{
    char **arr = arrp;
    if (*n == *cap) {
        uint32_t nc = *cap ? *cap * 2 : 4;
        char *na = ddb_arena_alloc(a, nc * elem);
        if (!na)
            return false;
        if (*n)
            memcpy(na, *arr, *n * elem);
        *arr = na;
        *cap = nc;
    }
    memcpy(*arr + *n * elem, x, elem);
    (*n)++;
    return true;
}

static expr_node *new_node(parser *p, expr_node_kind k, const expr_token *at)
{
    expr_node *n = ddb_arena_alloc(p->a, sizeof *n);
    if (!n)
        return nomem(p);
    memset(n, 0, sizeof *n);
    n->kind = k;
    n->line = at->line;
    n->col = at->col;
    return n;
}

static bool is_cond_keyword(const parser *p, const expr_token *t)
{
    return ddbi_expr_tok_is(p->src, t, "AND") || ddbi_expr_tok_is(p->src, t, "OR") || ddbi_expr_tok_is(p->src, t, "NOT") ||
           ddbi_expr_tok_is(p->src, t, "BETWEEN") || ddbi_expr_tok_is(p->src, t, "IN");
}

static bool is_update_keyword(const parser *p, const expr_token *t)
{
    return ddbi_expr_tok_is(p->src, t, "SET") || ddbi_expr_tok_is(p->src, t, "REMOVE") || ddbi_expr_tok_is(p->src, t, "ADD") ||
           ddbi_expr_tok_is(p->src, t, "DELETE");
}

static bool is_keyword(const parser *p, const expr_token *t)
{
    switch (p->e->kind) {
    case DDB_EXPR_UPDATE: return is_update_keyword(p, t);
    case DDB_EXPR_PROJECTION: return false;
    default: return is_cond_keyword(p, t);
    }
}

static char *dup_bytes(ddb_arena *a, const char *s, size_t len)
{
    char *d = ddb_arena_alloc(a, len + 1);
    if (d) {
        memcpy(d, s, len);
        d[len] = 0;
    }
    return d;
}

/* ---- Document paths ------------------------------------------------------ */

/* A path's element sources (pelem_src) are stored right after its n
 * elements, in the same allocation. */
static pelem_src *path_src(const expr_path *p)
{
    return (pelem_src *)(void *)(p->el + p->n);
}

static bool p_path(parser *p, expr_path *out)
{
    expr_pelem *el = NULL;
    pelem_src *sr = NULL;
    uint32_t n = 0, cap_el = 0, n2 = 0, cap_sr = 0;
    const expr_token *first = peek(p);
    for (;;) {
        const expr_token *t = peek(p);
        expr_pelem e = {0};
        pelem_src s = {t->line, t->col, t->off, t->len, HOW_BARE};
        if (n == 0 || p->t[p->pos - 1].kind == TK_DOT) {
            if (t->kind == TK_NAME) {
                if (is_keyword(p, t))
                    return syn_fail(p), false;
                if (!(e.name = dup_bytes(p->a, p->src + t->off, t->len)))
                    return nomem(p), false;
                e.len = t->len;
            } else if (t->kind == TK_HASH) {
                const ddb_value *v = p->names ? ddbi_expr_map_get(ddb_item_map(p->names), p->src + t->off, t->len) : NULL;
                if (v && v->type == DDB_TS) {
                    if (!(e.name = dup_bytes(p->a, v->u.s, v->len)))
                        return nomem(p), false;
                    e.len = v->len;
                    s.how = HOW_HASH;
                } else {
                    if (!(e.name = dup_bytes(p->a, p->src + t->off, t->len)))
                        return nomem(p), false;
                    e.len = t->len;
                    s.how = HOW_UNDEF;
                }
            } else {
                return syn_fail(p), false;
            }
            p->pos++;
        } else { /* after '[' */
            if (t->kind != TK_NUMBER)
                return syn_fail(p), false;
            uint64_t v = 0;
            for (uint32_t i = 0; i < t->len; i++) {
                v = v * 10 + (uint64_t)(p->src[t->off + i] - '0');
                if (v > 0x7FFFFFFF)
                    return syn_fail(p), false;
            }
            e.index = (uint32_t)v;
            s.how = HOW_INDEX;
            p->pos++;
            if (peek(p)->kind != TK_RBRACKET)
                return syn_fail(p), false;
            p->pos++;
        }
        if (!push(p->scratch, &el, &n, &cap_el, sizeof e, &e) || !push(p->scratch, &sr, &n2, &cap_sr, sizeof s, &s))
            return nomem(p), false;
        const expr_token *nx = peek(p);
        if (nx->kind == TK_DOT || nx->kind == TK_LBRACKET) {
            p->pos++;
            continue;
        }
        break;
    }
    /* el[] followed by the element sources, one allocation. */
    char *mem = ddb_arena_alloc(p->a, n * (sizeof(expr_pelem) + sizeof(pelem_src)));
    if (!mem)
        return nomem(p), false;
    memcpy(mem, el, n * sizeof(expr_pelem));
    memcpy(mem + n * sizeof(expr_pelem), sr, n * sizeof(pelem_src));
    out->el = (expr_pelem *)(void *)mem;
    out->n = n;
    out->line = first->line;
    out->col = first->col;
    return true;
}

static expr_node *p_path_node(parser *p)
{
    expr_node *n = new_node(p, EN_PATH, peek(p));
    if (!n || !p_path(p, &n->path))
        return NULL;
    return n;
}

static expr_node *p_value_node(parser *p)
{
    const expr_token *t = peek(p);
    expr_node *n = new_node(p, EN_VALUE, t);
    if (!n)
        return NULL;
    n->str = p->src + t->off;
    n->slen = t->len;
    p->pos++;
    return n;
}

/* ---- Condition grammar ------------------------------------------------------- */

typedef expr_node *(*operand_fn)(parser *p);

static expr_func func_id(const char *s, size_t len)
{
    static const struct {
        const char *name;
        expr_func f;
    } fns[] = {
        {"attribute_exists", EF_ATTRIBUTE_EXISTS}, {"attribute_not_exists", EF_ATTRIBUTE_NOT_EXISTS},
        {"attribute_type", EF_ATTRIBUTE_TYPE},     {"begins_with", EF_BEGINS_WITH},
        {"contains", EF_CONTAINS},                 {"size", EF_SIZE},
        {"if_not_exists", EF_IF_NOT_EXISTS},       {"list_append", EF_LIST_APPEND},
    };
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
        if (strlen(fns[i].name) == len && memcmp(fns[i].name, s, len) == 0)
            return fns[i].f;
    return EF_UNKNOWN;
}

/* NAME '(' operand (',' operand)* ')' */
/* item ("," item)* ")": the operands of a function call or of IN, appended
 * to n->args.  Returns n, or NULL with the error set. */
static expr_node *p_list(parser *p, expr_node *n, uint32_t *cap, operand_fn item)
{
    for (;;) {
        expr_node *a = item(p);
        if (!a)
            return NULL;
        if (!push(p->a, &n->args, &n->nargs, cap, sizeof a, &a))
            return nomem(p);
        if (peek(p)->kind != TK_COMMA)
            break;
        p->pos++;
    }
    if (peek(p)->kind != TK_RPAREN)
        return syn_fail(p);
    p->pos++;
    return n;
}

static expr_node *p_call(parser *p, operand_fn arg)
{
    const expr_token *name = peek(p);
    if (is_keyword(p, name))
        return syn_fail(p);
    expr_node *n = new_node(p, EN_FUNC, name);
    if (!n)
        return NULL;
    n->str = p->src + name->off;
    n->slen = name->len;
    n->op = (uint8_t)func_id(n->str, n->slen);
    p->pos += 2; /* name ( */
    if (!enter(p))
        return NULL;
    uint32_t cap = 0;
    if (!p_list(p, n, &cap, arg))
        return NULL;
    leave(p);
    return n;
}

static expr_node *p_cond_operand(parser *p)
{
    const expr_token *t = peek(p);
    if (t->kind == TK_LPAREN) {
        if (!enter(p))
            return NULL;
        p->pos++;
        expr_node *n = p_cond_operand(p);
        if (!n)
            return NULL;
        if (peek(p)->kind != TK_RPAREN)
            return syn_fail(p);
        p->pos++;
        if (n->parens < 255)
            n->parens++;
        leave(p);
        return n;
    }
    if (t->kind == TK_NAME && peek_at(p, 1)->kind == TK_LPAREN)
        return p_call(p, p_cond_operand);
    if (t->kind == TK_VALUE)
        return p_value_node(p);
    if (t->kind == TK_NAME || t->kind == TK_HASH)
        return p_path_node(p);
    return syn_fail(p);
}

static bool cmp_start(const parser *p, const expr_token *t)
{
    switch (t->kind) {
    case TK_EQ:
    case TK_NE:
    case TK_LT:
    case TK_LE:
    case TK_GT:
    case TK_GE: return true;
    default: return ddbi_expr_tok_is(p->src, t, "BETWEEN") || ddbi_expr_tok_is(p->src, t, "IN");
    }
}

static expr_node *node2(parser *p, expr_node_kind k, const expr_token *at, expr_node *a, expr_node *b)
{
    expr_node *n = new_node(p, k, at);
    expr_node **args = n ? ddb_arena_alloc(p->a, 2 * sizeof *args) : NULL;
    if (!args)
        return nomem(p);
    args[0] = a;
    args[1] = b;
    n->args = args;
    n->nargs = b ? 2 : 1;
    return n;
}

/* After the left operand: comparator, BETWEEN or IN. */
static expr_node *p_cmp_tail(parser *p, expr_node *lhs)
{
    const expr_token *t = peek(p);
    static const expr_cmp ops[] = {[TK_EQ] = CMP_EQ, [TK_NE] = CMP_NE, [TK_LT] = CMP_LT,
                                   [TK_LE] = CMP_LE, [TK_GT] = CMP_GT, [TK_GE] = CMP_GE};
    switch (t->kind) {
    case TK_EQ:
    case TK_NE:
    case TK_LT:
    case TK_LE:
    case TK_GT:
    case TK_GE: {
        p->pos++;
        expr_node *rhs = p_cond_operand(p);
        if (!rhs)
            return NULL;
        expr_node *n = node2(p, EN_CMP, t, lhs, rhs);
        if (n)
            n->op = (uint8_t)ops[t->kind];
        return n;
    }
    default: break;
    }
    if (ddbi_expr_tok_is(p->src, t, "BETWEEN")) {
        p->pos++;
        expr_node *lo = p_cond_operand(p);
        if (!lo)
            return NULL;
        if (!ddbi_expr_tok_is(p->src, peek(p), "AND"))
            return syn_fail(p);
        p->pos++;
        expr_node *hi = p_cond_operand(p);
        if (!hi)
            return NULL;
        expr_node *n = new_node(p, EN_BETWEEN, t);
        expr_node **args = n ? ddb_arena_alloc(p->a, 3 * sizeof *args) : NULL;
        if (!args)
            return nomem(p);
        args[0] = lhs;
        args[1] = lo;
        args[2] = hi;
        n->args = args;
        n->nargs = 3;
        return n;
    }
    if (ddbi_expr_tok_is(p->src, t, "IN")) {
        p->pos++;
        if (peek(p)->kind != TK_LPAREN)
            return syn_fail(p);
        p->pos++;
        expr_node *n = new_node(p, EN_IN, t);
        if (!n)
            return NULL;
        uint32_t cap = 0;
        if (!push(p->a, &n->args, &n->nargs, &cap, sizeof lhs, &lhs))
            return nomem(p);
        return p_list(p, n, &cap, p_cond_operand);
    }
    return syn_fail(p);
}

static expr_node *p_or(parser *p);

static expr_node *p_primary(parser *p)
{
    const expr_token *t = peek(p);
    if (t->kind == TK_LPAREN) {
        /* '(' condition ')' — or a parenthesised left operand. */
        size_t save = p->pos;
        int depth = p->depth;
        if (!enter(p))
            return NULL;
        p->pos++;
        expr_node *inner = p_or(p);
        if (inner && peek(p)->kind != TK_RPAREN) {
            syn_fail(p);
        } else if (inner) {
            p->pos++;
            if (!cmp_start(p, peek(p))) {
                leave(p);
                if (inner->parens < 255)
                    inner->parens++;
                return inner;
            }
            syn_fail(p);
        }
        if (p->hard)
            return NULL;
        p->depth = depth;
        p->pos = save;
        expr_node *lhs = p_cond_operand(p);
        return lhs ? p_cmp_tail(p, lhs) : NULL;
    }
    if (t->kind == TK_NAME && peek_at(p, 1)->kind == TK_LPAREN) {
        expr_node *f = p_call(p, p_cond_operand);
        if (!f)
            return NULL;
        return cmp_start(p, peek(p)) ? p_cmp_tail(p, f) : f;
    }
    expr_node *lhs = p_cond_operand(p);
    return lhs ? p_cmp_tail(p, lhs) : NULL;
}

static expr_node *p_not(parser *p)
{
    const expr_token *t = peek(p);
    if (ddbi_expr_tok_is(p->src, t, "NOT")) {
        if (!enter(p))
            return NULL;
        p->pos++;
        expr_node *inner = p_not(p);
        leave(p);
        return inner ? node2(p, EN_NOT, t, inner, NULL) : NULL;
    }
    return p_primary(p);
}

static expr_node *p_and(parser *p)
{
    expr_node *l = p_not(p);
    while (l && ddbi_expr_tok_is(p->src, peek(p), "AND")) {
        const expr_token *t = peek(p);
        p->pos++;
        expr_node *r = p_not(p);
        l = r ? node2(p, EN_AND, t, l, r) : NULL;
    }
    return l;
}

static expr_node *p_or(parser *p)
{
    expr_node *l = p_and(p);
    while (l && ddbi_expr_tok_is(p->src, peek(p), "OR")) {
        const expr_token *t = peek(p);
        p->pos++;
        expr_node *r = p_and(p);
        l = r ? node2(p, EN_OR, t, l, r) : NULL;
    }
    return l;
}

static bool p_condition(parser *p)
{
    expr_node *root = p_or(p);
    if (!root)
        return false;
    if (peek(p)->kind != TK_EOF)
        return syn_fail(p), false;
    p->e->root = root;
    return true;
}

/* ---- Update grammar ------------------------------------------------------------ */

static expr_node *p_update_operand(parser *p);

/* function call | :value | path */
static expr_node *p_update_base(parser *p)
{
    const expr_token *t = peek(p);
    if (t->kind == TK_NAME && peek_at(p, 1)->kind == TK_LPAREN)
        return p_call(p, p_update_operand);
    if (t->kind == TK_VALUE)
        return p_value_node(p);
    if (t->kind == TK_NAME || t->kind == TK_HASH)
        return p_path_node(p);
    return syn_fail(p);
}

/* '(' base ')' | base */
static expr_node *p_update_operand(parser *p)
{
    if (peek(p)->kind != TK_LPAREN)
        return p_update_base(p);
    p->pos++;
    expr_node *n = p_update_base(p);
    if (!n)
        return NULL;
    if (peek(p)->kind != TK_RPAREN)
        return syn_fail(p);
    p->pos++;
    n->parens++;
    return n;
}

/* operand [('+' | '-') operand] */
static expr_node *p_set_inner(parser *p)
{
    expr_node *a = p_update_operand(p);
    if (!a)
        return NULL;
    const expr_token *t = peek(p);
    if (t->kind != TK_PLUS && t->kind != TK_MINUS)
        return a;
    p->pos++;
    expr_node *b = p_update_operand(p);
    return b ? node2(p, t->kind == TK_PLUS ? EN_PLUS : EN_MINUS, t, a, b) : NULL;
}

/* '(' inner ')' | inner */
static expr_node *p_set_value(parser *p)
{
    if (peek(p)->kind == TK_LPAREN) {
        size_t save = p->pos;
        int depth = p->depth;
        p->pos++;
        expr_node *n = p_set_inner(p);
        if (n && peek(p)->kind != TK_RPAREN)
            syn_fail(p);
        if (n && peek(p)->kind == TK_RPAREN) {
            p->pos++;
            const expr_token *t = peek(p);
            if (t->kind != TK_PLUS && t->kind != TK_MINUS) {
                n->parens++;
                return n;
            }
            syn_fail(p);
        }
        if (p->hard)
            return NULL;
        p->depth = depth;
        p->pos = save;
    }
    return p_set_inner(p);
}

static bool p_update(parser *p, sem *s)
{
    uint32_t cap = 0, n = 0;
    bool seen[4] = {false, false, false, false};
    static const char *const kw[] = {"SET", "REMOVE", "ADD", "DELETE"};
    while (peek(p)->kind != TK_EOF) {
        const expr_token *t = peek(p);
        int k = -1;
        for (int i = 0; i < 4; i++)
            if (ddbi_expr_tok_is(p->src, t, kw[i]))
                k = i;
        if (k < 0)
            return syn_fail(p), false;
        if (seen[k])
            note(s, CAT_SECTION, DDB_EVALIDATION, true, t->line, t->col,
                 "The \"%s\" section can only be used once in an update expression;", kw[k]);
        seen[k] = true;
        p->pos++;
        for (;;) {
            expr_action act = {(expr_action_kind)k, {0}, NULL};
            if (!p_path(p, &act.path))
                return false;
            if (k == UA_SET) {
                if (peek(p)->kind != TK_EQ)
                    return syn_fail(p), false;
                p->pos++;
                if (!(act.value = p_set_value(p)))
                    return false;
            } else if (k == UA_ADD || k == UA_DELETE) {
                if (peek(p)->kind != TK_VALUE)
                    return syn_fail(p), false;
                if (!(act.value = p_value_node(p)))
                    return false;
            }
            if (!push(p->a, &p->e->actions, &n, &cap, sizeof act, &act))
                return nomem(p), false;
            if (peek(p)->kind == TK_COMMA) {
                p->pos++;
                continue;
            }
            break;
        }
    }
    p->e->nactions = n;
    return true;
}

/* ---- Projection grammar ---------------------------------------------------------- */

static bool p_projection(parser *p)
{
    uint32_t cap = 0, n = 0;
    for (;;) {
        expr_path path;
        if (!p_path(p, &path))
            return false;
        if (!push(p->a, &p->e->paths, &n, &cap, sizeof path, &path))
            return nomem(p), false;
        if (peek(p)->kind == TK_COMMA) {
            p->pos++;
            continue;
        }
        break;
    }
    if (peek(p)->kind != TK_EOF)
        return syn_fail(p), false;
    p->e->npaths = n;
    return true;
}

/* ---- Semantic checks --------------------------------------------------------------- */

static void sem_push(sem *s, const char ***arr, uint32_t *n, uint32_t *cap, const char *x)
{
    if (!push(s->e->arena, arr, n, cap, sizeof x, &x))
        s->nomem = 1;
}

static void sem_path(sem *s, const expr_path *p)
{
    const pelem_src *sr = path_src(p);
    if (p->n > DDB_EXPR_MAX_PATH_DEPTH)
        note(s, CAT_LIMIT, DDB_ELIMIT, true, p->line, p->col,
             "The document path has too many nesting levels; nesting levels: %u", p->n);
    for (uint32_t i = 0; i < p->n; i++) {
        const char *src = s->e->text + sr[i].off;
        switch (sr[i].how) {
        case HOW_BARE:
            if (ddbi_expr_is_reserved(src, sr[i].len))
                note(s, CAT_RESERVED, DDB_EVALIDATION, true, sr[i].line, sr[i].col,
                     "Attribute name is a reserved keyword; reserved keyword: %.*s", (int)sr[i].len, src);
            break;
        case HOW_HASH: {
            char *ph = dup_bytes(s->e->arena, src, sr[i].len);
            if (!ph)
                s->nomem = 1;
            else
                sem_push(s, &s->names, &s->nnames, &s->capnames, ph);
            break;
        }
        case HOW_UNDEF:
            note(s, CAT_NAME, DDB_EVALIDATION, true, sr[i].line, sr[i].col,
                 "An expression attribute name used in the document path is not defined; attribute name: %.*s",
                 (int)(sr[i].len > 255 ? 255 : sr[i].len), src);
            break;
        default: break;
        }
    }
}

static bool path_equal(const expr_path *a, const expr_path *b)
{
    if (a->n != b->n)
        return false;
    for (uint32_t i = 0; i < a->n; i++) {
        const expr_pelem *x = &a->el[i], *y = &b->el[i];
        if (!x->name != !y->name)
            return false;
        if (x->name ? (x->len != y->len || memcmp(x->name, y->name, x->len)) : x->index != y->index)
            return false;
    }
    return true;
}

/* Statically known result type of an operand, DDB_TNONE when it depends
 * on the item or on values. */
static ddb_type static_type(const expr_node *n)
{
    switch (n->kind) {
    case EN_PLUS:
    case EN_MINUS: return DDB_TN;
    case EN_FUNC:
        switch ((expr_func)n->op) {
        case EF_SIZE: return DDB_TN;
        case EF_LIST_APPEND: return DDB_TL;
        case EF_IF_NOT_EXISTS: return n->nargs == 2 ? static_type(n->args[1]) : DDB_TNONE;
        case EF_ATTRIBUTE_EXISTS:
        case EF_ATTRIBUTE_NOT_EXISTS:
        case EF_ATTRIBUTE_TYPE:
        case EF_BEGINS_WITH:
        case EF_CONTAINS: return DDB_TBOOL;
        default: return DDB_TNONE;
        }
    default: return DDB_TNONE;
    }
}

static bool is_bool_func(expr_func f)
{
    return f == EF_ATTRIBUTE_EXISTS || f == EF_ATTRIBUTE_NOT_EXISTS || f == EF_ATTRIBUTE_TYPE ||
           f == EF_BEGINS_WITH || f == EF_CONTAINS;
}

static const char *cmp_symbol(expr_cmp c)
{
    static const char *const sym[] = {"=", "<>", "<", "<=", ">", ">="};
    return sym[c];
}

static void check_distinct(sem *s, const expr_node *n, const char *op)
{
    if (n->nargs == 2 && n->args[0]->kind == EN_PATH && n->args[1]->kind == EN_PATH &&
        path_equal(&n->args[0]->path, &n->args[1]->path)) {
        char ps[200];
        path_str(&n->args[0]->path, ps, sizeof ps);
        note(s, CAT_DISTINCT, DDB_EVALIDATION, true, n->args[0]->line, n->args[0]->col,
             "The first operand must be distinct from the remaining operands for this operator or function; "
             "operator: %s, first operand: %s",
             op, ps);
    }
}

static void sem_operand_common(sem *s, const expr_node *n)
{
    if (n->parens >= 2)
        note(s, CAT_PARENS, DDB_EVALIDATION, true, n->line, n->col, "The expression has redundant parentheses;");
    if (n->kind == EN_PATH)
        sem_path(s, &n->path);
    else if (n->kind == EN_VALUE) {
        char *ph = dup_bytes(s->e->arena, n->str, n->slen);
        if (!ph)
            s->nomem = 1;
        else
            sem_push(s, &s->values, &s->nvalues, &s->capvalues, ph);
    }
}

/* Condition-language node; as_cond: in a place that needs a boolean. */
static void sem_cond(sem *s, const expr_node *n, bool as_cond)
{
    sem_operand_common(s, n);
    switch (n->kind) {
    case EN_PATH:
    case EN_VALUE: return;
    case EN_AND:
    case EN_OR:
    case EN_NOT:
        s->operators++;
        for (uint32_t i = 0; i < n->nargs; i++)
            sem_cond(s, n->args[i], true);
        return;
    case EN_CMP:
        s->operators++;
        for (uint32_t i = 0; i < n->nargs; i++)
            sem_cond(s, n->args[i], false);
        check_distinct(s, n, cmp_symbol((expr_cmp)n->op));
        return;
    case EN_BETWEEN:
    case EN_IN:
        s->operators++;
        if (n->kind == EN_IN && n->nargs > DDB_EXPR_MAX_IN_OPERANDS)
            note(s, CAT_LIMIT, DDB_ELIMIT, true, n->line, n->col,
                 "The expression has too many operands for an operator; operator: IN, number of operands: %u, "
                 "maximum: %u",
                 n->nargs, DDB_EXPR_MAX_IN_OPERANDS);
        for (uint32_t i = 0; i < n->nargs; i++)
            sem_cond(s, n->args[i], false);
        return;
    case EN_FUNC: break;
    default: return; /* + and - do not parse in conditions */
    }
    expr_func f = (expr_func)n->op;
    int nm = (int)n->slen;
    if (f == EF_UNKNOWN) {
        note(s, CAT_UNKNOWN_FUNC, DDB_EVALIDATION, true, n->line, n->col, "Invalid function name; function: %.*s",
             nm > 64 ? 64 : nm, n->str);
    } else if (f == EF_IF_NOT_EXISTS || f == EF_LIST_APPEND) {
        note(s, CAT_MISUSED_FUNC, DDB_EVALIDATION, true, n->line, n->col,
             "The function is not allowed in a condition expression; function: %.*s", nm, n->str);
    } else if (as_cond != is_bool_func(f)) {
        note(s, CAT_MISUSED_FUNC, DDB_EVALIDATION, true, n->line, n->col,
             "The function is not allowed to be used this way in an expression; function: %.*s", nm, n->str);
    }
    for (uint32_t i = 0; i < n->nargs; i++)
        sem_cond(s, n->args[i], false);
    if (f == EF_UNKNOWN || f == EF_IF_NOT_EXISTS || f == EF_LIST_APPEND)
        return;
    uint32_t want = (f == EF_ATTRIBUTE_EXISTS || f == EF_ATTRIBUTE_NOT_EXISTS || f == EF_SIZE) ? 1 : 2;
    if (n->nargs != want) {
        note(s, CAT_OPERAND, DDB_EVALIDATION, true, n->line, n->col,
             "Incorrect number of operands for operator or function; operator or function: %.*s, number of "
             "operands: %u",
             nm, n->str, n->nargs);
        return;
    }
    char fname[32];
    snprintf(fname, sizeof fname, "%.*s", nm, n->str);
    check_distinct(s, n, fname);
    switch (f) {
    case EF_ATTRIBUTE_EXISTS:
    case EF_ATTRIBUTE_NOT_EXISTS:
        if (n->args[0]->kind != EN_PATH)
            note(s, CAT_FUNCTION, DDB_EVALIDATION, true, n->args[0]->line, n->args[0]->col,
                 "Operator or function requires a document path; operator or function: %s", fname);
        break;
    case EF_ATTRIBUTE_TYPE: {
        const expr_node *t = n->args[1];
        ddb_type st = static_type(t);
        if (t->kind == EN_PATH)
            note(s, CAT_FUNCTION, DDB_EVALIDATION, true, t->line, t->col,
                 "Incorrect operand type for operator or function; operator or function: %s, operand type: "
                 "{NS,SS,L,BS,N,M,B,BOOL,NULL,S}",
                 fname);
        else if (st != DDB_TNONE && st != DDB_TS)
            note(s, CAT_FUNCTION, DDB_EVALIDATION, true, t->line, t->col,
                 "Incorrect operand type for operator or function; operator or function: %s, operand type: %s",
                 fname, ddb_type_name(st));
        break;
    }
    case EF_BEGINS_WITH:
        for (uint32_t i = 0; i < 2; i++) {
            ddb_type st = static_type(n->args[i]);
            if (st != DDB_TNONE && st != DDB_TS && st != DDB_TB)
                note(s, CAT_FUNCTION, DDB_EVALIDATION, true, n->args[i]->line, n->args[i]->col,
                     "Incorrect operand type for operator or function; operator or function: %s, operand type: %s",
                     fname, ddb_type_name(st));
        }
        break;
    case EF_SIZE: {
        ddb_type st = static_type(n->args[0]);
        if (st == DDB_TN || st == DDB_TBOOL || st == DDB_TNULL)
            note(s, CAT_FUNCTION, DDB_EVALIDATION, true, n->args[0]->line, n->args[0]->col,
                 "Incorrect operand type for operator or function; operator or function: %s, operand type: %s",
                 fname, ddb_type_name(st));
        break;
    }
    default: break;
    }
}

/* Update-language value (right of SET's '=').  in_func: n is an argument
 * of a function, where DynamoDB refuses list_append (if_not_exists may be
 * nested: list_append(if_not_exists(l, :empty), :more) is the documented
 * idiom). */
static void sem_update_value_in(sem *s, const expr_node *n, bool in_func);

static void sem_update_value(sem *s, const expr_node *n)
{
    sem_update_value_in(s, n, false);
}

static void sem_update_value_in(sem *s, const expr_node *n, bool in_func)
{
    sem_operand_common(s, n);
    if (n->kind == EN_PLUS || n->kind == EN_MINUS) {
        s->operators++;
        for (uint32_t i = 0; i < 2; i++) {
            sem_update_value(s, n->args[i]);
            ddb_type st = static_type(n->args[i]);
            if (st != DDB_TNONE && st != DDB_TN)
                note(s, CAT_FUNCTION, DDB_EVALIDATION, true, n->args[i]->line, n->args[i]->col,
                     "Incorrect operand type for operator or function; operator or function: %s, operand type: %s",
                     n->kind == EN_PLUS ? "+" : "-", ddb_type_name(st));
        }
        return;
    }
    if (n->kind != EN_FUNC)
        return;
    expr_func f = (expr_func)n->op;
    int nm = (int)n->slen;
    if (f == EF_UNKNOWN)
        note(s, CAT_UNKNOWN_FUNC, DDB_EVALIDATION, true, n->line, n->col, "Invalid function name; function: %.*s",
             nm > 64 ? 64 : nm, n->str);
    else if (f != EF_IF_NOT_EXISTS && f != EF_LIST_APPEND)
        note(s, CAT_MISUSED_FUNC, DDB_EVALIDATION, true, n->line, n->col,
             "The function is not allowed in an update expression; function: %.*s", nm, n->str);
    else if (f == EF_LIST_APPEND && in_func)
        note(s, CAT_MISUSED_FUNC, DDB_EVALIDATION, true, n->line, n->col,
             "The function is not allowed to be used this way in an expression; function: %.*s", nm, n->str);
    for (uint32_t i = 0; i < n->nargs; i++)
        sem_update_value_in(s, n->args[i], true);
    if (f != EF_IF_NOT_EXISTS && f != EF_LIST_APPEND)
        return;
    if (n->nargs != 2) {
        note(s, CAT_FUNCTION, DDB_EVALIDATION, true, n->line, n->col,
             "Incorrect number of operands for operator or function; operator or function: %.*s, number of "
             "operands: %u",
             nm, n->str, n->nargs);
        return;
    }
    if (f == EF_IF_NOT_EXISTS) {
        if (n->args[0]->kind != EN_PATH)
            note(s, CAT_FUNCTION, DDB_EVALIDATION, true, n->args[0]->line, n->args[0]->col,
                 "Operator or function requires a document path; operator or function: if_not_exists");
        return;
    }
    for (uint32_t i = 0; i < 2; i++) {
        ddb_type st = static_type(n->args[i]);
        if (st != DDB_TNONE && st != DDB_TL)
            note(s, CAT_FUNCTION, DDB_EVALIDATION, true, n->args[i]->line, n->args[i]->col,
                 "Incorrect operand type for operator or function; operator or function: list_append, operand "
                 "type: %s",
                 ddb_type_name(st));
    }
}

/* Overlap / conflict between document paths, DynamoDB's wording. */
static void check_paths(sem *s, const expr_path *const *paths, size_t n)
{
    for (size_t j = 1; j < n; j++) {
        for (size_t i = 0; i < j; i++) {
            const expr_path *a = paths[i], *b = paths[j];
            uint32_t m = a->n < b->n ? a->n : b->n, k = 0;
            bool differ = false, conflict = false;
            for (; k < m; k++) {
                const expr_pelem *x = &a->el[k], *y = &b->el[k];
                if (!x->name != !y->name) {
                    conflict = true;
                    break;
                }
                if (x->name ? (x->len != y->len || memcmp(x->name, y->name, x->len)) : x->index != y->index) {
                    differ = true;
                    break;
                }
            }
            if (differ)
                continue;
            char p1[140], p2[140];
            path_str(a, p1, sizeof p1);
            path_str(b, p2, sizeof p2);
            if (conflict)
                note(s, CAT_CONFLICT, DDB_EVALIDATION, true, b->line, b->col,
                     "Two document paths conflict with each other; must remove or rewrite one of these paths; "
                     "path one: %s, path two: %s",
                     p1, p2);
            else
                note(s, CAT_OVERLAP, DDB_EVALIDATION, true, b->line, b->col,
                     "Two document paths overlap with each other; must remove or rewrite one of these paths; "
                     "path one: %s, path two: %s",
                     p1, p2);
        }
    }
}

/* ---- KeyConditionExpression shape ------------------------------------------------ */

static const char *operator_name(const expr_node *n, char *buf, size_t size)
{
    switch (n->kind) {
    case EN_OR: return "OR";
    case EN_NOT: return "NOT";
    case EN_IN: return "IN";
    case EN_CMP: return cmp_symbol((expr_cmp)n->op);
    case EN_FUNC: snprintf(buf, size, "%.*s", (int)(n->slen > 64 ? 64 : n->slen), n->str); return buf;
    default: return "?";
    }
}

/* Operators a key condition may not use, outermost first. */
static const expr_node *bad_key_operator(const expr_node *n)
{
    switch (n->kind) {
    case EN_OR:
    case EN_NOT:
    case EN_IN: return n;
    case EN_CMP: return n->op == CMP_NE ? n : NULL;
    case EN_FUNC: return n->op == EF_BEGINS_WITH ? NULL : n;
    case EN_AND:
        for (uint32_t i = 0; i < n->nargs; i++) {
            const expr_node *b = bad_key_operator(n->args[i]);
            if (b)
                return b;
        }
        return NULL;
    default: return NULL;
    }
}

static void flatten_and(const expr_node *n, const expr_node **out, size_t *cnt, size_t max)
{
    if (n->kind == EN_AND) {
        flatten_and(n->args[0], out, cnt, max);
        flatten_and(n->args[1], out, cnt, max);
    } else {
        if (*cnt < max)
            out[*cnt] = n;
        (*cnt)++;
    }
}

static void check_key_condition(sem *s)
{
    ddb_expr *e = s->e;
    const expr_node *bad = bad_key_operator(e->root);
    char buf[72];
    if (bad) {
        note(s, CAT_KEY, DDB_EVALIDATION, false, bad->line, bad->col,
             "Invalid operator used in KeyConditionExpression: %s", operator_name(bad, buf, sizeof buf));
        return;
    }
    const expr_node *conds[DDBI_KEYCONDS_MAX];
    size_t n = 0;
    flatten_and(e->root, conds, &n, DDBI_KEYCONDS_MAX);
    size_t seen = n < DDBI_KEYCONDS_MAX ? n : DDBI_KEYCONDS_MAX;
    for (size_t i = 0; i < seen; i++) {
        const expr_node *c = conds[i];
        if ((c->kind == EN_BETWEEN || c->kind == EN_FUNC) && c->args[0]->kind != EN_PATH) {
            note(s, CAT_KEY, DDB_EVALIDATION, false, c->line, c->col,
                 "Invalid condition in KeyConditionExpression: %s operator must have the key attribute as its first "
                 "operand",
                 c->kind == EN_BETWEEN ? "BETWEEN" : "begins_with");
            return;
        }
        const expr_node *key = NULL;
        for (uint32_t k = 0; k < c->nargs; k++) {
            const expr_node *a = c->args[k];
            if (a->kind == EN_FUNC || a->kind == EN_PLUS || a->kind == EN_MINUS) {
                note(s, CAT_KEY, DDB_EVALIDATION, false, a->line, a->col,
                     "KeyConditionExpressions cannot contain nested operations");
                return;
            }
            if (a->kind != EN_PATH)
                continue;
            if (key) {
                note(s, CAT_KEY, DDB_EVALIDATION, false, a->line, a->col,
                     "Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition");
                return;
            }
            if (a->path.n > 1) {
                note(s, CAT_KEY, DDB_EVALIDATION, false, a->line, a->col,
                     "KeyConditionExpressions cannot have conditions on nested attributes");
                return;
            }
            key = a;
        }
        if (!key) {
            note(s, CAT_KEY, DDB_EVALIDATION, false, c->line, c->col,
                 "Invalid condition in KeyConditionExpression: No key attribute specified");
            return;
        }
    }
    for (size_t i = 0; i < seen; i++)
        for (size_t j = 0; j < i; j++) {
            const expr_node *ki = NULL, *kj = NULL;
            for (uint32_t k = 0; k < conds[i]->nargs; k++)
                if (conds[i]->args[k]->kind == EN_PATH)
                    ki = conds[i]->args[k];
            for (uint32_t k = 0; k < conds[j]->nargs; k++)
                if (conds[j]->args[k]->kind == EN_PATH)
                    kj = conds[j]->args[k];
            if (path_equal(&ki->path, &kj->path)) {
                note(s, CAT_KEY, DDB_EVALIDATION, false, ki->line, ki->col,
                     "KeyConditionExpressions must only contain one condition per key");
                return;
            }
        }
    if (n > DDBI_KEYCONDS_MAX) { /* (a key schema without multi-attribute keys: at mapping, expr_key.c) */
        note(s, CAT_KEY, DDB_EVALIDATION, false, e->root->line, e->root->col,
             "Conditions can be of length 1 or 2 only");
        return;
    }
    for (size_t i = 0; i < n; i++) {
        const expr_node *c = conds[i];
        expr_keycond *kc = &e->keyconds[i];
        kc->line = c->line;
        kc->col = c->col;
        const expr_node *key;
        if (c->kind == EN_CMP) {
            bool swapped = c->args[0]->kind != EN_PATH;
            key = c->args[swapped ? 1 : 0];
            kc->v1 = c->args[swapped ? 0 : 1];
            static const ddb_key_op direct[] = {DDB_SK_EQ, DDB_SK_ANY, DDB_SK_LT, DDB_SK_LE, DDB_SK_GT, DDB_SK_GE};
            static const ddb_key_op mirror[] = {DDB_SK_EQ, DDB_SK_ANY, DDB_SK_GT, DDB_SK_GE, DDB_SK_LT, DDB_SK_LE};
            kc->op = swapped ? mirror[c->op] : direct[c->op];
        } else if (c->kind == EN_BETWEEN) {
            key = c->args[0];
            kc->v1 = c->args[1];
            kc->v2 = c->args[2];
            kc->op = DDB_SK_BETWEEN;
        } else { /* begins_with */
            key = c->args[0];
            kc->v1 = c->args[1];
            kc->op = DDB_SK_BEGINS_WITH;
        }
        kc->attr = key->path.el[0].name;
        kc->attr_len = key->path.el[0].len;
    }
    e->nkeyconds = n;
}

/* ---- Projection tree, used placeholders, top-level names ------------------------ */

static int pnode_cmp(const expr_pnode *x, const expr_pelem *el)
{
    if (!x->name != !el->name)
        return x->name ? 1 : -1; /* cannot happen once conflicts are refused */
    if (!x->name)
        return x->index < el->index ? -1 : x->index > el->index;
    size_t m = x->len < el->len ? x->len : el->len;
    int c = memcmp(x->name, el->name, m);
    return c ? c : (x->len < el->len ? -1 : x->len > el->len);
}

static bool ptree_add(ddb_arena *a, expr_pnode *root, const expr_path *p)
{
    expr_pnode *node = root;
    for (uint32_t i = 0; i < p->n; i++) {
        if (node->leaf)
            return true; /* an enclosing path takes the whole value */
        const expr_pelem *el = &p->el[i];
        uint32_t lo = 0, hi = node->n;
        while (lo < hi) {
            uint32_t mid = (lo + hi) / 2;
            if (pnode_cmp(&node->kids[mid], el) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo == node->n || pnode_cmp(&node->kids[lo], el) != 0) {
            if (node->n == node->cap) {
                uint32_t nc = node->cap ? node->cap * 2 : 4;
                expr_pnode *k = ddb_arena_alloc(a, nc * sizeof *k);
                if (!k)
                    return false;
                if (node->n)
                    memcpy(k, node->kids, node->n * sizeof *k);
                node->kids = k;
                node->cap = nc;
            }
            memmove(&node->kids[lo + 1], &node->kids[lo], (node->n - lo) * sizeof *node->kids);
            node->kids[lo] = (expr_pnode){el->name, el->len, el->index, false, 0, 0, NULL};
            node->n++;
        }
        node = &node->kids[lo];
    }
    node->leaf = true;
    node->n = 0; /* the whole value: drop finer paths */
    return true;
}

static int str_cmp_ptr(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* Sort and drop duplicates in place; returns the new count. */
static size_t uniq(const char **v, size_t n)
{
    if (n < 2)
        return n;
    qsort(v, n, sizeof *v, str_cmp_ptr);
    size_t k = 1;
    for (size_t i = 1; i < n; i++)
        if (strcmp(v[i], v[k - 1]) != 0)
            v[k++] = v[i];
    return k;
}

static void collect_top(sem *s, const expr_node *n, const char ***arr, uint32_t *cnt, uint32_t *cap)
{
    if (n->kind == EN_PATH && n->path.n)
        sem_push(s, arr, cnt, cap, n->path.el[0].name);
    for (uint32_t i = 0; i < n->nargs; i++)
        collect_top(s, n->args[i], arr, cnt, cap);
}

static bool finish(sem *s)
{
    ddb_expr *e = s->e;
    ddb_arena *a = e->arena;
    const char **top = NULL;
    uint32_t ntop = 0, captop = 0;
    if (e->kind == DDB_EXPR_PROJECTION) {
        for (size_t i = 0; i < e->npaths; i++) {
            if (!ptree_add(a, &e->ptree, &e->paths[i]))
                return false;
            sem_push(s, &top, &ntop, &captop, e->paths[i].el[0].name);
        }
    } else if (e->kind == DDB_EXPR_UPDATE) {
        for (size_t i = 0; i < e->nactions; i++) {
            if (!ptree_add(a, &e->ptree, &e->actions[i].path))
                return false;
            sem_push(s, &top, &ntop, &captop, e->actions[i].path.el[0].name);
        }
    } else if (e->root) {
        collect_top(s, e->root, &top, &ntop, &captop);
    }
    if (s->nomem)
        return false;
    e->top_names = top;
    e->ntop_names = uniq(top, ntop);
    e->names_used = s->names;
    e->nnames_used = uniq(s->names, s->nnames);
    e->values_used = s->values;
    e->nvalues_used = uniq(s->values, s->nvalues);
    return true;
}

/* ---- Syntax error message ---------------------------------------------------------- */

static int syntax_error(const parser *p, ddb_error *err)
{
    const expr_token *t = &p->t[p->fail];
    const expr_token *prev = p->fail ? &p->t[p->fail - 1] : NULL;
    const expr_token *next = (t->kind != TK_EOF && p->fail + 1 < p->nt && p->t[p->fail + 1].kind != TK_EOF)
                                 ? &p->t[p->fail + 1]
                                 : NULL;
    uint32_t from = prev ? prev->off : t->off;
    const expr_token *last = next ? next : (t->kind == TK_EOF ? prev : t);
    uint32_t to = last ? last->off + last->len : from;
    int nlen = (int)(to - from > 120 ? 120 : to - from);
    if (t->kind == TK_EOF)
        return ddbi_expr_fail(err, DDB_EVALIDATION, p->e->kind, t->line, t->col,
                         "Syntax error; token: \"<EOF>\", near: \"%.*s\"", nlen, p->src + from);
    return ddbi_expr_fail(err, DDB_EVALIDATION, p->e->kind, t->line, t->col, "Syntax error; token: \"%.*s\", near: \"%.*s\"",
                     (int)(t->len > 80 ? 80 : t->len), p->src + t->off, nlen, p->src + from);
}

/* ---- Prepare ----------------------------------------------------------------------------- */

static const cat order_condition[] = {CAT_LIMIT, CAT_PARENS, CAT_UNKNOWN_FUNC, CAT_MISUSED_FUNC, CAT_RESERVED,
                                      CAT_NAME,  CAT_OPERAND, CAT_DISTINCT,   CAT_FUNCTION,     CAT_KEY};
static const cat order_update[] = {CAT_LIMIT,   CAT_RESERVED, CAT_UNKNOWN_FUNC, CAT_MISUSED_FUNC, CAT_SECTION,
                                   CAT_NAME,    CAT_OVERLAP,  CAT_CONFLICT,     CAT_OPERAND,      CAT_FUNCTION};
static const cat order_projection[] = {CAT_LIMIT, CAT_RESERVED, CAT_NAME, CAT_OVERLAP, CAT_CONFLICT};

static int report(const ddb_expr *e, const diag *d, ddb_error *err)
{
    const cat *order;
    size_t n;
    if (e->kind == DDB_EXPR_UPDATE) {
        order = order_update;
        n = sizeof order_update / sizeof *order_update;
    } else if (e->kind == DDB_EXPR_PROJECTION) {
        order = order_projection;
        n = sizeof order_projection / sizeof *order_projection;
    } else {
        order = order_condition;
        n = sizeof order_condition / sizeof *order_condition;
    }
    for (size_t i = 0; i < n; i++)
        if (d->set[order[i]]) {
            if (err) {
                err->code = d->code[order[i]];
                snprintf(err->message, sizeof err->message, "%s", d->msg[order[i]]);
            }
            return d->code[order[i]];
        }
    return DDB_OK;
}

static int prepare(ddb_expr *e, const ddb_item *names, ddb_arena *scratch, diag *d, ddb_error *err)
{
    expr_token *toks;
    size_t nt;
    if (ddbi_expr_lex(e->text, e->len, scratch, &toks, &nt) != DDB_OK)
        return ddbi_fail_oom(err, ddb_expr_kind_name(e->kind));
    if (nt == 1)
        return ddbi_expr_fail(err, DDB_EVALIDATION, e->kind, 0, 0, "The expression can not be empty;");

    parser p = {.e = e, .a = e->arena, .scratch = scratch, .src = e->text, .t = toks, .nt = nt, .names = names};
    sem s = {.e = e, .d = d};
    bool ok;
    switch (e->kind) {
    case DDB_EXPR_UPDATE: ok = p_update(&p, &s); break;
    case DDB_EXPR_PROJECTION: ok = p_projection(&p); break;
    default: ok = p_condition(&p); break;
    }
    if (p.hard == DDB_ENOMEM)
        return ddbi_fail_oom(err, ddb_expr_kind_name(e->kind));
    if (p.hard == DDB_ELIMIT)
        return ddbi_expr_fail(err, DDB_ELIMIT, e->kind, p.hard_line, p.hard_col,
                         "The expression has too many nesting levels; maximum: %d", EXPR_MAX_NESTING);
    if (!ok)
        return syntax_error(&p, err);

    /* Semantic walk in text order. */
    if (e->kind == DDB_EXPR_UPDATE) {
        const expr_path **paths = ddb_arena_alloc(scratch, (e->nactions + 1) * sizeof *paths);
        if (!paths)
            return ddbi_fail_oom(err, ddb_expr_kind_name(e->kind));
        for (size_t i = 0; i < e->nactions; i++) {
            const expr_action *act = &e->actions[i];
            sem_path(&s, &act->path);
            if (act->value) {
                if (act->kind == UA_SET)
                    sem_update_value(&s, act->value);
                else
                    sem_operand_common(&s, act->value);
            }
            paths[i] = &act->path;
        }
        check_paths(&s, paths, e->nactions);
    } else if (e->kind == DDB_EXPR_PROJECTION) {
        const expr_path **paths = ddb_arena_alloc(scratch, (e->npaths + 1) * sizeof *paths);
        if (!paths)
            return ddbi_fail_oom(err, ddb_expr_kind_name(e->kind));
        for (size_t i = 0; i < e->npaths; i++) {
            sem_path(&s, &e->paths[i]);
            paths[i] = &e->paths[i];
        }
        check_paths(&s, paths, e->npaths);
    } else {
        sem_cond(&s, e->root, true);
    }
    if (s.operators > DDB_EXPR_MAX_OPERATORS)
        note(&s, CAT_LIMIT, DDB_ELIMIT, true, 0, 0, "The expression contains too many operators; operator count: %u",
             DDB_EXPR_MAX_OPERATORS + 1);
    if (s.nomem)
        return ddbi_fail_oom(err, ddb_expr_kind_name(e->kind));
    int rc = report(e, d, err);
    if (rc)
        return rc;
    if (e->kind == DDB_EXPR_KEY_CONDITION) {
        check_key_condition(&s);
        if ((rc = report(e, d, err)) != DDB_OK)
            return rc;
    }
    if (!finish(&s))
        return ddbi_fail_oom(err, ddb_expr_kind_name(e->kind));
    return DDB_OK;
}

int ddb_expr_prepare(ddb_expr_kind kind, const char *text, const ddb_item *names, ddb_expr **out, ddb_error *err)
{
    if (out)
        *out = NULL;
    if (!text || !out)
        return ddbi_fail(err, DDB_EINVAL, "ddb_expr_prepare needs text and out");
    if ((unsigned)kind > DDB_EXPR_KEY_CONDITION)
        return ddbi_fail(err, DDB_EINVAL, "unknown expression kind %d", (int)kind);
    size_t len = strlen(text);
    if (len > DDB_EXPR_MAX_BYTES)
        return ddbi_expr_fail(err, DDB_ELIMIT, kind, 0, 0,
                         "Expression size has exceeded the maximum allowed size; expression size: %zu", len);
    ddb_arena *a = ddb_arena_new(), *scratch = ddb_arena_new();
    ddb_expr *e = a ? ddb_arena_alloc(a, sizeof *e) : NULL;
    char *copy = e ? dup_bytes(a, text, len) : NULL;
    diag *d = copy && scratch ? ddb_arena_alloc(scratch, sizeof *d) : NULL;
    if (!d) {
        ddb_arena_free(a);
        ddb_arena_free(scratch);
        return ddbi_fail_oom(err, ddb_expr_kind_name(kind));
    }
    memset(e, 0, sizeof *e);
    memset(d, 0, sizeof *d);
    e->arena = a;
    e->kind = kind;
    e->text = copy;
    e->len = len;
    int rc = prepare(e, names, scratch, d, err);
    ddb_arena_free(scratch);
    if (rc != DDB_OK) {
        ddb_arena_free(a);
        return rc;
    }
    *out = e;
    return DDB_OK;
}

void ddb_expr_free(ddb_expr *e)
{
    if (e)
        ddb_arena_free(e->arena);
}

ddb_expr_kind ddb_expr_get_kind(const ddb_expr *e)
{
    return e->kind;
}

const char *ddb_expr_text(const ddb_expr *e)
{
    return e->text;
}

void ddbi_expr_top_level_names(const ddb_expr *e, const char *const **names, size_t *count)
{
    *names = e->top_names;
    *count = e->ntop_names;
}
