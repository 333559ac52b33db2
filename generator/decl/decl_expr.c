/* decl_expr.c — see decl_expr.h.  The one place the generator calls the
 * runtime's expression room (its lexer and parser, runtime/src/expr); it
 * may call <ddb/ddb.h>, <ddb/expr.h>, expr/expr.h and diag.h, nothing else. */
#include "decl_expr.h"

#include "expr/expr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bare words that are the grammar's own, never field names. */
static int is_keyword(const char *src, const expr_token *t)
{
    static const char *const kw[] = {"SET", "REMOVE", "ADD", "DELETE", "AND", "OR", "NOT", "BETWEEN", "IN"};
    for (size_t i = 0; i < sizeof kw / sizeof *kw; i++)
        if (ddbi_expr_tok_is(src, t, kw[i]))
            return 1;
    return 0;
}

static int add_name(ddbgen_dexpr *dx, const char *s, size_t n)
{
    for (size_t i = 0; i < dx->n_names; i++)
        if (strlen(dx->names[i]) == n && !memcmp(dx->names[i], s, n))
            return 0;
    char **names = realloc(dx->names, (dx->n_names + 1) * sizeof *names);
    if (!names)
        return -1;
    dx->names = names;
    if (!(names[dx->n_names] = strndup(s, n)))
        return -1;
    dx->n_names++;
    return 0;
}

ddbgen_loc ddbgen__dexpr_loc(const ddbgen_dexpr *dx, unsigned line, unsigned col)
{
    ddbgen_loc l = dx->loc;
    if (!dx->verbatim || line != 1 || col == 0 || l.line <= 0)
        return l;
    /* the i-th '#' stands at inserted[i] + i of the rewritten text, and
     * moved everything after it one byte right */
    size_t off = col - 1, before = 0;
    for (size_t i = 0; i < dx->n_inserted; i++)
        if (dx->inserted[i] + i < off)
            before++;
    l.col += 1 + (int)(off - before);
    return l;
}

/* Split DynamoDB's " at L:C" from a parse error and record it there. */
static void report_parse_error(ddbgen_dexpr *dx, ddbgen_diags *d, const char *msg)
{
    char buf[DDB_ERROR_TEXT_SIZE];
    snprintf(buf, sizeof buf, "%s", msg);
    unsigned line = 0, col = 0;
    char *at = strstr(buf, " at ");
    for (char *p = at; p; p = strstr(p + 1, " at "))
        at = p;
    if (at && sscanf(at, " at %u:%u", &line, &col) == 2)
        *at = '\0';
    else
        line = col = 0;
    ddbgen_diag_add(d, DDBGEN_ERROR, ddbgen__dexpr_loc(dx, line, col), "%s", buf);
}

int ddbgen__dexpr_parse(ddbgen_dexpr *dx, ddb_expr_kind kind, const char *text, ddbgen_loc loc, int verbatim,
                        ddbgen_diags *d)
{
    memset(dx, 0, sizeof *dx);
    dx->loc = loc;
    dx->verbatim = verbatim;
    ddb_arena *a = ddb_arena_new();
    expr_token *toks = NULL;
    size_t ntoks = 0, len = strlen(text);
    int oom = !a || ddbi_expr_lex(text, len, a, &toks, &ntoks) != DDB_OK;
    dx->text = oom ? NULL : malloc(2 * len + 1);
    dx->inserted = oom ? NULL : calloc(ntoks + 1, sizeof *dx->inserted);
    oom = oom || !dx->text || !dx->inserted;
    size_t o = 0, from = 0;
    for (size_t i = 0; !oom && i < ntoks && toks[i].kind != TK_EOF; i++) {
        const expr_token *t = &toks[i];
        if (t->kind != TK_NAME || is_keyword(text, t) || toks[i + 1].kind == TK_LPAREN)
            continue;
        memcpy(dx->text + o, text + from, t->off - from);
        o += t->off - from;
        dx->text[o++] = '#';
        from = t->off;
        dx->inserted[dx->n_inserted++] = t->off;
        oom = add_name(dx, text + t->off, t->len) != 0;
    }
    if (oom) {
        ddb_arena_free(a);
        ddbgen_diag_add(d, DDBGEN_ERROR, loc, "out of memory");
        return -1;
    }
    memcpy(dx->text + o, text + from, len - from);
    dx->text[o + len - from] = '\0';
    ddb_item *names = dx->n_names ? ddb_item_new(a) : NULL;
    char key[DDB_EXPR_MAX_REF_BYTES + 2];
    for (size_t i = 0; names && i < dx->n_names; i++) {
        snprintf(key, sizeof key, "#%s", dx->names[i]);
        ddb_item_set_s(names, key, dx->names[i]);
    }
    ddb_error err;
    memset(&err, 0, sizeof err);
    int rc = ddb_expr_prepare(kind, dx->text, names, &dx->x, &err);
    if (rc != DDB_OK) {
        dx->x = NULL;
        report_parse_error(dx, d, err.message);
    }
    ddb_arena_free(a);
    return rc == DDB_OK ? 0 : -1;
}

/* The [start, end) span of clause keyword's body in dx->text, and with
 * acts (may be NULL) the span of each action (split at commas outside
 * parentheses); 0 when the clause is absent, -1 when out of memory. */
static int clause_spans(const ddbgen_dexpr *dx, const char *keyword, size_t *start, size_t *end, size_t (**acts)[2],
                        size_t *n_acts)
{
    ddb_arena *a = ddb_arena_new();
    expr_token *toks = NULL;
    size_t ntoks = 0, len = strlen(dx->text);
    if (!a || ddbi_expr_lex(dx->text, len, a, &toks, &ntoks) != DDB_OK) {
        ddb_arena_free(a);
        return -1;
    }
    static const char *const clauses[] = {"SET", "REMOVE", "ADD", "DELETE"};
    int in = 0, depth = 0, oom = 0;
    size_t from = 0, cap = 0;
    if (acts) {
        *acts = NULL;
        *n_acts = 0;
    }
    for (size_t i = 0; i < ntoks; i++) {
        const expr_token *t = &toks[i];
        int is_clause = 0;
        for (size_t c = 0; t->kind == TK_NAME && c < 4; c++)
            is_clause |= ddbi_expr_tok_is(dx->text, t, clauses[c]);
        int ends = in && (is_clause || t->kind == TK_EOF);
        if (in && acts && (ends || (t->kind == TK_COMMA && depth == 0))) {
            if (*n_acts == cap) {
                size_t (*g)[2] = realloc(*acts, (cap = cap ? 2 * cap : 4) * sizeof **acts);
                if (!g) {
                    oom = 1;
                    break;
                }
                *acts = g;
            }
            (*acts)[*n_acts][0] = from;
            (*acts)[(*n_acts)++][1] = t->off;
            from = t->off + t->len;
        }
        if (ends) {
            *end = t->off;
            break;
        }
        depth += t->kind == TK_LPAREN ? 1 : t->kind == TK_RPAREN ? -1 : 0;
        if (is_clause && ddbi_expr_tok_is(dx->text, t, keyword)) {
            in = 1;
            *start = from = t->off + t->len;
        }
    }
    ddb_arena_free(a);
    if (oom && acts) {
        free(*acts);
        *acts = NULL;
        *n_acts = 0;
    }
    return oom ? -1 : in;
}

/* A copy of text[start, end) without surrounding spaces. */
static char *trimmed(const char *text, size_t start, size_t end)
{
    while (start < end && text[start] == ' ')
        start++;
    while (end > start && text[end - 1] == ' ')
        end--;
    return strndup(text + start, end - start);
}

char *ddbgen__dexpr_clause(const ddbgen_dexpr *dx, const char *keyword)
{
    size_t start = 0, end = 0;
    int in = clause_spans(dx, keyword, &start, &end, NULL, NULL);
    return in < 0 ? NULL : in ? trimmed(dx->text, start, end) : strdup("");
}

int ddbgen__dexpr_actions(const ddbgen_dexpr *dx, const char *keyword, char ***out, size_t *n)
{
    size_t start = 0, end = 0, (*acts)[2] = NULL, na = 0;
    *out = NULL;
    *n = 0;
    int in = clause_spans(dx, keyword, &start, &end, &acts, &na);
    if (in < 0)
        return -1;
    char **r = na ? calloc(na, sizeof *r) : NULL;
    int oom = na && !r;
    for (size_t i = 0; !oom && i < na; i++)
        oom = !(r[i] = trimmed(dx->text, acts[i][0], acts[i][1]));
    free(acts);
    if (oom) {
        for (size_t i = 0; r && i < na; i++)
            free(r[i]);
        free(r);
        return -1;
    }
    *out = r;
    *n = na;
    return 0;
}

void ddbgen__dexpr_free(ddbgen_dexpr *dx)
{
    ddb_expr_free(dx->x);
    for (size_t i = 0; i < dx->n_names; i++)
        free(dx->names[i]);
    free(dx->names);
    free(dx->inserted);
    free(dx->text);
    memset(dx, 0, sizeof *dx);
}
