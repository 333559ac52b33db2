/* ddb serve: the PartiQL parser — one statement's text into a pq_stmt
 * (partiql.h), by hand-written recursive descent (no Debian package parses
 * PartiQL from C: the reference implementation is a JVM library).
 *
 * The subset is DynamoDB's (developer guide, "PartiQL - a SQL-compatible
 * query language for Amazon DynamoDB" and its statement, function and
 * operator pages): SELECT list|* FROM t[."index"] [WHERE] [ORDER BY],
 * INSERT INTO t VALUE {...}, UPDATE t SET/REMOVE ... WHERE [RETURNING],
 * DELETE FROM t WHERE [RETURNING], EXISTS(SELECT ...) for transactions;
 * literals 'string', numbers, TRUE/FALSE/NULL, MISSING, [list],
 * {'map': ...}, <<set>>, and `?` parameters.  Keywords are case-insensitive,
 * names are case-sensitive ("quoted" or bare).
 *
 * Fuzz-safe: the statement is at most PQ_MAX_STATEMENT bytes (checked here
 * too), recursion at most PQ_MAX_DEPTH deep, every read bounded by len.
 * Calls libddb's public value API only. */
#include "partiql.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

typedef enum tok_kind {
    T_END = 0,
    T_WORD,   /* a bare name or keyword */
    T_QNAME,  /* "a quoted name" */
    T_STRING, /* 'a string' */
    T_NUMBER,
    T_PARAM,  /* ? */
    T_PUNCT   /* ( ) [ ] { } << >> , . : * = <> != < <= > >= + - ; */
} tok_kind;

typedef struct tok {
    tok_kind kind;
    const char *s; /* T_QNAME / T_STRING: the unescaped text (arena); others: the source */
    size_t len;
    size_t at;     /* byte offset in the statement */
    size_t src_len; /* its length in the statement */
} tok;

typedef struct parser {
    const char *src;
    size_t len, pos;
    tok t;              /* the current token */
    ddb_arena *a;
    ddb_error *err;
    int rc;             /* the first failure */
    int depth;
    const ddb_value *const *params;
    size_t n_params, used_params;
} parser;

static int fail(parser *p, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(parser *p, int code, const char *fmt, ...)
{
    if (p->rc)
        return p->rc;
    p->rc = code;
    if (p->err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(p->err->message, sizeof p->err->message, fmt, ap);
        va_end(ap);
        p->err->code = code;
    }
    return code;
}

static int oom(parser *p)
{
    return fail(p, DDB_ENOMEM, "out of memory");
}

/* A syntax error: DynamoDB's prefix, what was expected, and where. */
static int syntax(parser *p, const char *what)
{
    if (p->t.kind == T_END)
        return fail(p, DDB_EVALIDATION, PQ_NOT_WELL_FORMED "%s at end of statement", what);
    return fail(p, DDB_EVALIDATION, PQ_NOT_WELL_FORMED "%s, found '%.*s' at offset %zu", what,
                (int)(p->t.src_len > 40 ? 40 : p->t.src_len), p->src + p->t.at, p->t.at);
}

/* ---- lexer ------------------------------------------------------------ */

static bool word_char(char c, bool first)
{
    return isalpha((unsigned char)c) || c == '_' || c == '$' || (!first && isdigit((unsigned char)c));
}

/* 'text' or "text" with the quote doubled inside; the unescaped copy
 * (measured first, so that each token takes only its own length). */
static int quoted(parser *p, char q)
{
    size_t start = p->pos, end = start + 1, n = 0;
    for (;; end++) {
        if (end >= p->len)
            return fail(p, DDB_EVALIDATION, PQ_NOT_WELL_FORMED "unterminated %s starting at offset %zu",
                        q == '\'' ? "string" : "quoted name", start);
        if (p->src[end] == q) {
            if (end + 1 < p->len && p->src[end + 1] == q) {
                end++;
                n++;
                continue;
            }
            break;
        }
        n++;
    }
    char *out = ddb_arena_alloc(p->a, n + 1);
    if (!out)
        return oom(p);
    size_t k = 0;
    for (size_t i = start + 1; i < end; i++) {
        out[k++] = p->src[i];
        if (p->src[i] == q)
            i++; /* the doubled quote */
    }
    out[k] = 0;
    p->pos = end + 1;
    p->t = (tok){q == '\'' ? T_STRING : T_QNAME, out, k, start, end + 1 - start};
    return 0;
}

static int next(parser *p)
{
    if (p->rc)
        return p->rc;
    for (;;) { /* white space, -- line comments and block comments */
        while (p->pos < p->len && isspace((unsigned char)p->src[p->pos]))
            p->pos++;
        if (p->pos + 1 < p->len && p->src[p->pos] == '-' && p->src[p->pos + 1] == '-') {
            while (p->pos < p->len && p->src[p->pos] != '\n')
                p->pos++;
        } else if (p->pos + 1 < p->len && p->src[p->pos] == '/' && p->src[p->pos + 1] == '*') {
            size_t start = p->pos;
            for (p->pos += 2; p->pos + 1 < p->len && !(p->src[p->pos] == '*' && p->src[p->pos + 1] == '/');)
                p->pos++;
            if (p->pos + 1 >= p->len)
                return fail(p, DDB_EVALIDATION, PQ_NOT_WELL_FORMED "unterminated comment starting at offset %zu",
                            start);
            p->pos += 2;
        } else
            break;
    }
    size_t at = p->pos;
    if (at >= p->len) {
        p->t = (tok){T_END, p->src + at, 0, at, 0};
        return 0;
    }
    char c = p->src[at];
    if (c == '\'' || c == '"')
        return quoted(p, c);
    if (word_char(c, true)) {
        while (p->pos < p->len && word_char(p->src[p->pos], false))
            p->pos++;
        p->t = (tok){T_WORD, p->src + at, p->pos - at, at, p->pos - at};
        return 0;
    }
    if (isdigit((unsigned char)c) || (c == '.' && at + 1 < p->len && isdigit((unsigned char)p->src[at + 1]))) {
        while (p->pos < p->len && isdigit((unsigned char)p->src[p->pos]))
            p->pos++;
        if (p->pos < p->len && p->src[p->pos] == '.')
            for (p->pos++; p->pos < p->len && isdigit((unsigned char)p->src[p->pos]);)
                p->pos++;
        if (p->pos < p->len && (p->src[p->pos] == 'e' || p->src[p->pos] == 'E')) {
            size_t e = p->pos + 1;
            if (e < p->len && (p->src[e] == '+' || p->src[e] == '-'))
                e++;
            if (e < p->len && isdigit((unsigned char)p->src[e])) {
                while (e < p->len && isdigit((unsigned char)p->src[e]))
                    e++;
                p->pos = e;
            }
        }
        p->t = (tok){T_NUMBER, p->src + at, p->pos - at, at, p->pos - at};
        return 0;
    }
    if (c == '?') {
        p->pos++;
        p->t = (tok){T_PARAM, p->src + at, 1, at, 1};
        return 0;
    }
    static const char *const two[] = {"<<", ">>", "<>", "!=", "<=", ">="};
    for (size_t i = 0; i < sizeof two / sizeof *two; i++)
        if (at + 1 < p->len && p->src[at] == two[i][0] && p->src[at + 1] == two[i][1]) {
            p->pos += 2;
            p->t = (tok){T_PUNCT, p->src + at, 2, at, 2};
            return 0;
        }
    if (c && strchr("()[]{},.:*=<>+-;", c)) { /* strchr finds the NUL too */
        p->pos++;
        p->t = (tok){T_PUNCT, p->src + at, 1, at, 1};
        return 0;
    }
    return fail(p, DDB_EVALIDATION, PQ_NOT_WELL_FORMED "unexpected character '%c' at offset %zu",
                isprint((unsigned char)c) ? c : '?', at);
}

static bool is_punct(const parser *p, const char *s)
{
    return p->t.kind == T_PUNCT && p->t.len == strlen(s) && memcmp(p->t.s, s, p->t.len) == 0;
}

static bool is_word(const parser *p, const char *kw)
{
    return p->t.kind == T_WORD && p->t.len == strlen(kw) && strncasecmp(p->t.s, kw, p->t.len) == 0;
}

/* Consume the punctuation or keyword when it is the current token. */
static bool accept_punct(parser *p, const char *s)
{
    if (!is_punct(p, s))
        return false;
    next(p);
    return true;
}

static bool accept_word(parser *p, const char *kw)
{
    if (!is_word(p, kw))
        return false;
    next(p);
    return true;
}

static int expect_punct(parser *p, const char *s)
{
    if (accept_punct(p, s))
        return p->rc;
    char what[32];
    snprintf(what, sizeof what, "expected '%s'", s);
    return syntax(p, what);
}

static int expect_word(parser *p, const char *kw)
{
    if (accept_word(p, kw))
        return p->rc;
    char what[32];
    snprintf(what, sizeof what, "expected %s", kw);
    return syntax(p, what);
}

/* Words that cannot be bare names. */
static bool reserved(const parser *p)
{
    static const char *const kws[] = {"SELECT", "FROM",   "WHERE", "AND",   "OR",       "NOT",   "BETWEEN",
                                      "IN",     "IS",     "MISSING", "NULL", "TRUE",    "FALSE", "INSERT",
                                      "INTO",   "VALUE",  "VALUES", "UPDATE", "SET",     "REMOVE", "DELETE",
                                      "RETURNING", "ORDER", "BY",   "EXISTS"};
    for (size_t i = 0; i < sizeof kws / sizeof *kws; i++)
        if (is_word(p, kws[i]))
            return true;
    return false;
}

/* ---- names, paths --------------------------------------------------------- */

static char *copy(parser *p, const char *s, size_t n)
{
    char *c = ddb_arena_alloc(p->a, n + 1);
    if (!c) {
        oom(p);
        return NULL;
    }
    memcpy(c, s, n);
    c[n] = 0;
    return c;
}

/* The current T_QNAME / T_STRING as an attribute name: a NUL inside would
 * cut it short, so it is refused. */
static bool nul_free(parser *p)
{
    if (strlen(p->t.s) == p->t.len)
        return true;
    fail(p, DDB_EVALIDATION, PQ_NOT_WELL_FORMED "a name cannot contain a NUL character (offset %zu)", p->t.at);
    return false;
}

/* A bare or "quoted" name; NULL after the error. */
static const char *name(parser *p, const char *what)
{
    if (p->t.kind == T_QNAME || (p->t.kind == T_WORD && !reserved(p))) {
        if (p->t.kind == T_QNAME && !nul_free(p))
            return NULL;
        if (p->t.len == 0) {
            fail(p, DDB_EVALIDATION, "Path component cannot be an empty string");
            return NULL;
        }
        const char *s = p->t.kind == T_QNAME ? p->t.s : copy(p, p->t.s, p->t.len);
        next(p);
        return p->rc ? NULL : s;
    }
    syntax(p, what);
    return NULL;
}

static pq_node *node(parser *p, pq_node_kind kind, size_t n_args)
{
    pq_node *n = ddb_arena_alloc(p->a, sizeof *n);
    pq_node **args = n_args ? ddb_arena_alloc(p->a, n_args * sizeof *args) : NULL;
    if (!n || (n_args && !args)) {
        oom(p);
        return NULL;
    }
    memset(n, 0, sizeof *n);
    n->kind = kind;
    n->args = args;
    n->n_args = n_args;
    return n;
}

static int add_step(parser *p, pq_node *n, size_t *cap, pq_step st)
{
    if (n->n_steps == *cap) {
        size_t c = *cap ? *cap * 2 : 4;
        pq_step *s = ddb_arena_alloc(p->a, c * sizeof *s);
        if (!s)
            return oom(p);
        if (n->n_steps)
            memcpy(s, n->steps, n->n_steps * sizeof *s);
        n->steps = s;
        *cap = c;
    }
    n->steps[n->n_steps++] = st;
    return 0;
}

/* name ( .name | ."name" | [N] | ['name'] )* — the first name already read. */
static pq_node *path_from(parser *p, const char *first)
{
    pq_node *n = node(p, PN_PATH, 0);
    size_t cap = 0;
    if (!n || add_step(p, n, &cap, (pq_step){first, 0}))
        return NULL;
    for (;;) {
        if (accept_punct(p, ".")) {
            const char *s = name(p, "expected identifier for simple path");
            if (!s || add_step(p, n, &cap, (pq_step){s, 0}))
                return NULL;
        } else if (accept_punct(p, "[")) {
            if (p->t.kind == T_NUMBER) {
                unsigned long long v = 0;
                bool ok = p->t.len <= 9;
                for (size_t i = 0; ok && i < p->t.len; i++)
                    ok = isdigit((unsigned char)p->t.s[i]), v = v * 10 + (unsigned)(p->t.s[i] - '0');
                if (!ok) {
                    fail(p, DDB_EVALIDATION, "List index is not within the allowable range; index: [%.*s]",
                         (int)(p->t.len > 40 ? 40 : p->t.len), p->t.s);
                    return NULL;
                }
                if (add_step(p, n, &cap, (pq_step){NULL, (uint32_t)v}))
                    return NULL;
            } else if (p->t.kind == T_STRING) {
                if (!nul_free(p) || add_step(p, n, &cap, (pq_step){p->t.s, 0}))
                    return NULL;
            } else {
                syntax(p, "expected a list index or a string in brackets");
                return NULL;
            }
            next(p);
            if (expect_punct(p, "]"))
                return NULL;
        } else
            return p->rc ? NULL : n;
    }
}

static pq_node *path(parser *p)
{
    const char *s = name(p, "expected identifier for simple path");
    return s ? path_from(p, s) : NULL;
}

/* ---- literal values --------------------------------------------------------- */

static ddb_value *value(parser *p);

static ddb_value *param(parser *p)
{
    size_t i = p->used_params++;
    next(p);
    if (i < p->n_params)
        return (ddb_value *)p->params[i];
    /* too few: reported after the whole statement parsed */
    ddb_value *v = ddb_v_null(p->a);
    if (!v)
        oom(p);
    return v;
}

static ddb_value *number(parser *p, bool negative)
{
    char buf[PQ_MAX_STATEMENT + 2];
    snprintf(buf, sizeof buf, "%s%.*s", negative ? "-" : "", (int)p->t.len, p->t.s);
    ddb_value *v = NULL;
    int rc = ddb_v_n(p->a, buf, &v, p->err);
    if (rc) {
        p->rc = rc;
        return NULL;
    }
    next(p);
    return v;
}

/* [v, ...] or <<v, ...>> into a list or a set */
static ddb_value *collection(parser *p, bool set)
{
    const char *close = set ? ">>" : "]";
    ddb_value *l = ddb_v_list(p->a);
    if (!l) {
        oom(p);
        return NULL;
    }
    if (!accept_punct(p, close)) {
        do {
            ddb_value *e = value(p);
            if (!e || ddb_list_append(p->a, l, e)) {
                if (e)
                    oom(p);
                return NULL;
            }
        } while (accept_punct(p, ","));
        if (expect_punct(p, close))
            return NULL;
    }
    if (!set)
        return l;
    /* DynamoDB's bags: strings or numbers (binary ones from parameters) */
    if (!l->len) {
        fail(p, DDB_EVALIDATION, "Empty bags are not supported");
        return NULL;
    }
    ddb_type et = l->u.l[0]->type;
    if (et != DDB_TS && et != DDB_TN && et != DDB_TB) {
        fail(p, DDB_EVALIDATION, "Unsupported data type in Bag. DynamoDB only supports either numbers or strings in bags");
        return NULL;
    }
    ddb_value *s = ddb_v_set(p->a, et == DDB_TS ? DDB_TSS : et == DDB_TN ? DDB_TNS : DDB_TBS);
    if (!s) {
        oom(p);
        return NULL;
    }
    for (uint32_t i = 0; i < l->len; i++)
        if (ddb_set_add(p->a, s, l->u.l[i], NULL)) {
            fail(p, DDB_EVALIDATION,
                 "Unsupported data type in Bag. DynamoDB only supports either numbers or strings in bags");
            return NULL;
        }
    return s;
}

/* {'name': v, ...} */
static ddb_value *tuple(parser *p)
{
    ddb_value *m = ddb_v_map(p->a);
    if (!m) {
        oom(p);
        return NULL;
    }
    if (accept_punct(p, "}"))
        return m;
    do {
        if (p->t.kind != T_STRING) {
            if (p->t.kind == T_END || p->t.kind == T_PUNCT)
                syntax(p, "expected a string key in the tuple");
            else
                fail(p, DDB_EVALIDATION, "Tuple keys must be of type String. Actual type: %s under tuple",
                     p->t.kind == T_NUMBER ? "DECIMAL" : "IDENTIFIER");
            return NULL;
        }
        const char *k = p->t.s;
        if (!nul_free(p))
            return NULL;
        next(p);
        if (expect_punct(p, ":"))
            return NULL;
        ddb_value *v = value(p);
        if (!v)
            return NULL;
        if (ddb_map_get(m, k)) {
            fail(p, DDB_EVALIDATION, "Duplicate keys in tuple. Key: %s", k);
            return NULL;
        }
        if (ddb_map_set(p->a, m, k, v)) {
            oom(p);
            return NULL;
        }
    } while (accept_punct(p, ","));
    return expect_punct(p, "}") ? NULL : m;
}

static bool starts_value(const parser *p)
{
    return p->t.kind == T_STRING || p->t.kind == T_NUMBER || p->t.kind == T_PARAM || is_punct(p, "[") ||
           is_punct(p, "{") || is_punct(p, "<<") || is_word(p, "TRUE") || is_word(p, "FALSE") ||
           is_word(p, "NULL");
}

/* A literal value or a parameter. */
static ddb_value *value(parser *p)
{
    if (p->rc)
        return NULL;
    if (++p->depth > PQ_MAX_DEPTH) {
        fail(p, DDB_EVALIDATION, PQ_NOT_WELL_FORMED "nesting deeper than %d levels", PQ_MAX_DEPTH);
        return NULL;
    }
    ddb_value *v = NULL;
    if (p->t.kind == T_STRING) {
        v = ddb_v_s(p->a, p->t.s, p->t.len);
        if (!v)
            oom(p);
        next(p);
    } else if (p->t.kind == T_NUMBER)
        v = number(p, false);
    else if (is_punct(p, "-")) {
        next(p);
        if (p->t.kind != T_NUMBER)
            syntax(p, "expected a number after '-'");
        else
            v = number(p, true);
    } else if (p->t.kind == T_PARAM)
        v = param(p);
    else if (is_word(p, "TRUE") || is_word(p, "FALSE")) {
        v = ddb_v_bool(p->a, is_word(p, "TRUE"));
        if (!v)
            oom(p);
        next(p);
    } else if (is_word(p, "NULL")) {
        v = ddb_v_null(p->a);
        if (!v)
            oom(p);
        next(p);
    } else if (accept_punct(p, "["))
        v = collection(p, false);
    else if (accept_punct(p, "<<"))
        v = collection(p, true);
    else if (accept_punct(p, "{"))
        v = tuple(p);
    else if (is_word(p, "MISSING"))
        fail(p, DDB_EVALIDATION, "MISSING must be compared using IS operator");
    else
        syntax(p, "expected a value");
    p->depth--;
    return p->rc ? NULL : v;
}

/* ---- expressions ------------------------------------------------------------ */

static pq_node *expr(parser *p);

static pq_node *value_node(parser *p)
{
    ddb_value *v = value(p);
    pq_node *n = v ? node(p, PN_VALUE, 0) : NULL;
    if (n)
        n->value = v;
    return n;
}

/* f(args) — the name read, '(' current */
static pq_node *call(parser *p, const char *fname)
{
    next(p); /* ( */
    pq_node *args[8];
    size_t n = 0;
    if (!accept_punct(p, ")")) {
        do {
            if (n == sizeof args / sizeof *args) {
                syntax(p, "too many arguments");
                return NULL;
            }
            if (!(args[n++] = expr(p)))
                return NULL;
        } while (accept_punct(p, ","));
        if (expect_punct(p, ")"))
            return NULL;
    }
    pq_node *c = node(p, PN_CALL, n);
    char *lower = c ? copy(p, fname, strlen(fname)) : NULL;
    if (!lower)
        return NULL;
    for (char *q = lower; *q; q++)
        *q = (char)tolower((unsigned char)*q);
    c->op = lower;
    if (n) /* f(): no argument array */
        memcpy(c->args, args, n * sizeof *args);
    return c;
}

static pq_node *primary(parser *p)
{
    if (p->rc)
        return NULL;
    if (accept_punct(p, "(")) {
        pq_node *e = expr(p);
        return e && !expect_punct(p, ")") ? e : NULL;
    }
    if (starts_value(p) || is_punct(p, "-"))
        return value_node(p);
    if (is_word(p, "MISSING")) {
        next(p);
        return node(p, PN_MISSING, 0);
    }
    if (p->t.kind == T_WORD && !reserved(p)) {
        const char *s = copy(p, p->t.s, p->t.len);
        if (!s)
            return NULL;
        next(p);
        return is_punct(p, "(") ? call(p, s) : path_from(p, s);
    }
    if (p->t.kind == T_QNAME)
        return path(p);
    syntax(p, "expected an expression");
    return NULL;
}

static pq_node *binary(parser *p, pq_node_kind kind, const char *op, pq_node *l, pq_node *r)
{
    if (!l || !r)
        return NULL;
    pq_node *n = node(p, kind, 2);
    if (!n)
        return NULL;
    n->op = op;
    n->args[0] = l;
    n->args[1] = r;
    return n;
}

static pq_node *additive(parser *p)
{
    pq_node *l = primary(p);
    while (l && (is_punct(p, "+") || is_punct(p, "-"))) {
        const char *op = is_punct(p, "+") ? "+" : "-";
        next(p);
        l = binary(p, PN_ARITH, op, l, primary(p));
    }
    return l;
}

static pq_node *negate(parser *p, pq_node *n)
{
    pq_node *x = n ? node(p, PN_NOT, 1) : NULL;
    if (x)
        x->args[0] = n;
    return x;
}

/* x IN [v, ...] or x IN (v, ...) */
static pq_node *in_list(parser *p, pq_node *x)
{
    const char *close = accept_punct(p, "[") ? "]" : accept_punct(p, "(") ? ")" : NULL;
    if (!close) {
        fail(p, DDB_EVALIDATION, "IN operator must have a left hand argument of type Variable Reference and right "
                                 "hand argument of type Seq with at least one member");
        return NULL;
    }
    pq_node *items[101];
    size_t n = 0;
    items[n++] = x;
    do {
        if (n == sizeof items / sizeof *items) {
            fail(p, DDB_ELIMIT, "Too many operands for IN: at most %zu", sizeof items / sizeof *items - 1);
            return NULL;
        }
        if (!(items[n++] = additive(p)))
            return NULL;
    } while (accept_punct(p, ","));
    if (expect_punct(p, close))
        return NULL;
    pq_node *in = node(p, PN_IN, n);
    if (in)
        memcpy(in->args, items, n * sizeof *items);
    return in;
}

static const char *is_type(parser *p)
{
    static const char *const types[] = {"MISSING", "NULL", "BOOLEAN", "BLOB", "STRING",
                                        "NUMERIC", "STRUCT", "TUPLE", "LIST"};
    for (size_t i = 0; i < sizeof types / sizeof *types; i++)
        if (accept_word(p, types[i]))
            return types[i];
    if (p->t.kind == T_WORD || p->t.kind == T_QNAME)
        fail(p, DDB_EVALIDATION,
             "Unsupported data type for IS operator: %.*s. Supported data types are [MISSING, NULL, BOOLEAN, BLOB, "
             "STRING, NUMERIC, STRUCT, TUPLE, LIST]",
             (int)(p->t.len > 40 ? 40 : p->t.len), p->t.s);
    else
        syntax(p, "expected a type after IS");
    return NULL;
}

static pq_node *predicate(parser *p)
{
    pq_node *l = additive(p);
    if (!l)
        return NULL;
    static const char *const cmps[] = {"=", "<>", "!=", "<", "<=", ">", ">="};
    for (size_t i = 0; i < sizeof cmps / sizeof *cmps; i++)
        if (accept_punct(p, cmps[i]))
            return binary(p, PN_CMP, i == 2 ? "<>" : cmps[i], l, additive(p));
    if (accept_word(p, "IS")) {
        bool neg = accept_word(p, "NOT");
        const char *t = is_type(p);
        pq_node *n = t ? node(p, PN_IS, 1) : NULL;
        if (!n)
            return NULL;
        n->op = t;
        n->negated = neg;
        n->args[0] = l;
        return n;
    }
    bool neg = accept_word(p, "NOT");
    if (accept_word(p, "BETWEEN")) {
        pq_node *lo = additive(p);
        if (!lo || expect_word(p, "AND"))
            return NULL;
        pq_node *hi = additive(p), *n = hi ? node(p, PN_BETWEEN, 3) : NULL;
        if (!n)
            return NULL;
        n->args[0] = l, n->args[1] = lo, n->args[2] = hi;
        return neg ? negate(p, n) : n;
    }
    if (accept_word(p, "IN")) {
        pq_node *n = in_list(p, l);
        return neg ? negate(p, n) : n;
    }
    if (neg) {
        syntax(p, "expected BETWEEN or IN after NOT");
        return NULL;
    }
    return l;
}

static pq_node *not_expr(parser *p)
{
    if (++p->depth > PQ_MAX_DEPTH) {
        fail(p, DDB_EVALIDATION, PQ_NOT_WELL_FORMED "nesting deeper than %d levels", PQ_MAX_DEPTH);
        return NULL;
    }
    pq_node *n = accept_word(p, "NOT") ? negate(p, not_expr(p)) : predicate(p);
    p->depth--;
    return n;
}

static pq_node *and_expr(parser *p)
{
    pq_node *l = not_expr(p);
    while (l && accept_word(p, "AND"))
        l = binary(p, PN_AND, "AND", l, not_expr(p));
    return l;
}

static pq_node *expr(parser *p)
{
    if (++p->depth > PQ_MAX_DEPTH) {
        fail(p, DDB_EVALIDATION, PQ_NOT_WELL_FORMED "nesting deeper than %d levels", PQ_MAX_DEPTH);
        return NULL;
    }
    pq_node *l = and_expr(p);
    while (l && accept_word(p, "OR"))
        l = binary(p, PN_OR, "OR", l, and_expr(p));
    p->depth--;
    return l;
}

/* ---- statements ------------------------------------------------------------- */

/* RETURNING (ALL|MODIFIED) (OLD|NEW) * */
static int returning(parser *p, pq_stmt *s)
{
    if (!accept_word(p, "RETURNING"))
        return p->rc;
    bool all = accept_word(p, "ALL");
    if (!all && !accept_word(p, "MODIFIED"))
        return syntax(p, "expected ALL or MODIFIED after RETURNING");
    bool old = accept_word(p, "OLD");
    if (!old && !accept_word(p, "NEW"))
        return syntax(p, "expected OLD or NEW in RETURNING");
    if (!accept_punct(p, "*"))
        return fail(p, DDB_EVALIDATION, "Expected '*' after ( MODIFIED | ALL ) ( NEW | OLD ) in RETURNING clause");
    s->returning = all ? (old ? DDB_RETURN_ALL_OLD : DDB_RETURN_ALL_NEW)
                       : (old ? DDB_RETURN_UPDATED_OLD : DDB_RETURN_UPDATED_NEW);
    if (s->kind == PQ_DELETE && s->returning != DDB_RETURN_ALL_OLD)
        return fail(p, DDB_EVALIDATION,
                    "Invalid returning clause: RETURNING %s %s *. Only RETURNING ALL OLD * is allowed in DELETE "
                    "statements.",
                    all ? "ALL" : "MODIFIED", old ? "OLD" : "NEW");
    return p->rc;
}

static int where(parser *p, pq_stmt *s, bool required)
{
    if (!accept_word(p, "WHERE")) {
        if (required)
            return fail(p, DDB_EVALIDATION, "Where clause does not contain a mandatory equality on all key attributes");
        return p->rc;
    }
    s->where = expr(p);
    return p->rc;
}

static int select_stmt(parser *p, pq_stmt *s)
{
    s->kind = PQ_SELECT;
    if (accept_punct(p, "*")) {
        if (is_punct(p, ","))
            return fail(p, DDB_EVALIDATION, "Other attributes should not be present in the projection when '*' is used.");
    } else {
        pq_node *items[256];
        size_t n = 0;
        do {
            if (is_punct(p, "*"))
                return fail(p, DDB_EVALIDATION,
                            "Other attributes should not be present in the projection when '*' is used.");
            if (n == sizeof items / sizeof *items)
                return fail(p, DDB_ELIMIT, "Too many attributes in the projection: at most %zu",
                            sizeof items / sizeof *items);
            if (!(items[n++] = path(p)))
                return p->rc;
            if (accept_word(p, "AS"))
                return fail(p, DDB_EVALIDATION, "Aliasing is not supported");
        } while (accept_punct(p, ","));
        s->proj = ddb_arena_alloc(p->a, n * sizeof *items);
        if (!s->proj)
            return oom(p);
        memcpy(s->proj, items, n * sizeof *items);
        s->n_proj = n;
    }
    if (expect_word(p, "FROM") || !(s->table = name(p, "expected a table name")))
        return p->rc;
    if (accept_punct(p, ".") && !(s->index = name(p, "expected an index name")))
        return p->rc;
    if (where(p, s, false))
        return p->rc;
    if (accept_word(p, "ORDER")) {
        if (expect_word(p, "BY"))
            return p->rc;
        do {
            pq_node *k = path(p);
            if (!k)
                return p->rc;
            /* a table has two key attributes: a third is never one */
            if (s->n_order_by == 2)
                return fail(p, DDB_EVALIDATION,
                            "Variable reference %s in ORDER BY clause must be part of the primary key",
                            k->steps[0].name);
            s->order_by[s->n_order_by] = k;
            if (!accept_word(p, "ASC"))
                s->descending[s->n_order_by] = accept_word(p, "DESC");
            s->n_order_by++;
        } while (accept_punct(p, ","));
    }
    return p->rc;
}

static int insert_stmt(parser *p, pq_stmt *s)
{
    s->kind = PQ_INSERT;
    if (expect_word(p, "INTO") || !(s->table = name(p, "expected a table name")))
        return p->rc;
    if (is_word(p, "VALUES") || is_punct(p, "("))
        return fail(p, DDB_EVALIDATION, "Unsupported operation: Inserting multiple items in a single statement is "
                                        "not supported, use \"INSERT INTO tableName VALUE item\" instead");
    if (expect_word(p, "VALUE"))
        return p->rc;
    if (!is_punct(p, "{") && p->t.kind != T_PARAM)
        return fail(p, DDB_EVALIDATION, "Unsupported format in item expression. Please use struct format {...} to "
                                        "express item values for insert statement.");
    if (!(s->item = value(p)))
        return p->rc;
    if (s->item->type != DDB_TM)
        return fail(p, DDB_EVALIDATION, "Unsupported format in item expression. Please use struct format {...} to "
                                        "express item values for insert statement.");
    if (is_word(p, "RETURNING"))
        return fail(p, DDB_EVALIDATION, "RETURNING is not supported in INSERT");
    return p->rc;
}

static int update_stmt(parser *p, pq_stmt *s)
{
    s->kind = PQ_UPDATE;
    if (!(s->table = name(p, "expected a table name")))
        return p->rc;
    pq_assign acts[256];
    size_t n = 0;
    for (;;) {
        bool set = accept_word(p, "SET");
        if (!set && !accept_word(p, "REMOVE"))
            break;
        do {
            if (n == sizeof acts / sizeof *acts)
                return fail(p, DDB_ELIMIT, "Too many SET and REMOVE actions: at most %zu", sizeof acts / sizeof *acts);
            pq_assign *x = &acts[n++];
            x->value = NULL;
            if (!(x->path = path(p)))
                return p->rc;
            if (set && (expect_punct(p, "=") || !(x->value = additive(p))))
                return p->rc;
        } while (accept_punct(p, ","));
    }
    if (!n)
        return syntax(p, "expected SET or REMOVE");
    s->assigns = ddb_arena_alloc(p->a, n * sizeof *acts);
    if (!s->assigns)
        return oom(p);
    memcpy(s->assigns, acts, n * sizeof *acts);
    s->n_assigns = n;
    if (where(p, s, true))
        return p->rc;
    return returning(p, s);
}

static int delete_stmt(parser *p, pq_stmt *s)
{
    s->kind = PQ_DELETE;
    if (expect_word(p, "FROM") || !(s->table = name(p, "expected a table name")))
        return p->rc;
    if (where(p, s, true))
        return p->rc;
    return returning(p, s);
}

/* EXISTS(SELECT * FROM t WHERE ...): a transaction's condition check. */
static int exists_stmt(parser *p, pq_stmt *s)
{
    if (expect_punct(p, "(") || expect_word(p, "SELECT") || select_stmt(p, s))
        return p->rc;
    s->kind = PQ_EXISTS;
    return expect_punct(p, ")");
}

int pq_parse(const char *text, size_t len, const ddb_value *const *params, size_t n_params, ddb_arena *a,
             pq_stmt **out, ddb_error *err)
{
    *out = NULL;
    parser p = {.src = text, .len = len, .a = a, .err = err, .params = params, .n_params = n_params};
    if (err)
        err->message[0] = 0;
    if (len > PQ_MAX_STATEMENT)
        return fail(&p, DDB_EVALIDATION, "Statement is %zu bytes long: at most %d", len, PQ_MAX_STATEMENT);
    pq_stmt *s = ddb_arena_alloc(a, sizeof *s);
    if (!s)
        return oom(&p);
    memset(s, 0, sizeof *s);
    if (next(&p))
        return p.rc;
    if (accept_word(&p, "SELECT"))
        select_stmt(&p, s);
    else if (accept_word(&p, "INSERT"))
        insert_stmt(&p, s);
    else if (accept_word(&p, "UPDATE"))
        update_stmt(&p, s);
    else if (accept_word(&p, "DELETE"))
        delete_stmt(&p, s);
    else if (accept_word(&p, "EXISTS"))
        exists_stmt(&p, s);
    else
        return fail(&p, DDB_EVALIDATION, PQ_NOT_WELL_FORMED "Expected data manipulation");
    if (p.rc)
        return p.rc;
    accept_punct(&p, ";");
    if (p.t.kind != T_END)
        return syntax(&p, "Unexpected token after expression");
    if (p.used_params != n_params)
        return fail(&p, DDB_EVALIDATION, "Number of parameters in request and statement don't match.");
    *out = s;
    return 0;
}
