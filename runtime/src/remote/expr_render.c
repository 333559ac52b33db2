/* Rendering a prepared expression back to DynamoDB text for the wire.
 *
 * A prepared ddb_expr has its #names substituted, so its AST holds real
 * attribute names.  The remote backend needs text again: every attribute
 * name becomes a fresh "#nN" placeholder (safe against reserved words and
 * any byte in a name), collected in a names map shared by all expressions
 * of one request; ":values" pass through unchanged (the request's values
 * map travels as is).  Parentheses written by the user are kept (they
 * passed validation), and any the tree needs for precedence are added, so
 * the text parses back to the same tree. */
#include "remote/remote_wire.h"

#include "core/error.h"
#include "expr/expr.h"

#include <stdio.h>
#include <string.h>

int ddbi_wire_name_ref(ddb_wire_names *m, const char *name, size_t len, ddb_buf *out)
{
    size_t i = 0;
    while (i < m->n && !(m->lens[i] == len && memcmp(m->names[i], name, len) == 0))
        i++;
    if (i == m->n) {
        if (m->n == m->cap) {
            size_t nc = m->cap ? m->cap * 2 : 8;
            const char **nn = ddb_arena_alloc(m->arena, nc * sizeof *nn);
            size_t *nl = ddb_arena_alloc(m->arena, nc * sizeof *nl);
            if (!nn || !nl)
                return DDB_ENOMEM;
            if (m->n) {
                memcpy(nn, m->names, m->n * sizeof *nn);
                memcpy(nl, m->lens, m->n * sizeof *nl);
            }
            m->names = nn;
            m->lens = nl;
            m->cap = nc;
        }
        m->names[m->n] = name;
        m->lens[m->n] = len;
        m->n++;
    }
    char ph[32];
    int w = snprintf(ph, sizeof ph, "#n%zu", i);
    return ddbi_buf_put(out, ph, (size_t)w);
}

static int put(ddb_buf *b, const char *s)
{
    return ddbi_buf_put(b, s, strlen(s));
}

int ddbi_wire_render_path(const struct expr_path *p, ddb_wire_names *m, ddb_buf *out)
{
    for (uint32_t i = 0; i < p->n; i++) {
        const expr_pelem *el = &p->el[i];
        int rc;
        if (el->name) {
            if (i && ddbi_buf_put(out, ".", 1))
                return DDB_ENOMEM;
            rc = ddbi_wire_name_ref(m, el->name, el->len, out);
        } else {
            char ix[24];
            int w = snprintf(ix, sizeof ix, "[%u]", el->index);
            rc = ddbi_buf_put(out, ix, (size_t)w);
        }
        if (rc)
            return rc;
    }
    return DDB_OK;
}

/* Binding strength: OR < AND < NOT < everything else. */
static int strength(const expr_node *n)
{
    switch (n->kind) {
    case EN_OR: return 1;
    case EN_AND: return 2;
    case EN_NOT: return 3;
    default: return 4;
    }
}

static int render_node(const expr_node *n, ddb_wire_names *m, ddb_buf *out, bool need_parens, int depth);

static int render_list(expr_node *const *args, uint32_t from, uint32_t to, ddb_wire_names *m, ddb_buf *out,
                       int depth)
{
    for (uint32_t i = from; i < to; i++) {
        int rc = (i > from && put(out, ", ")) ? DDB_ENOMEM : render_node(args[i], m, out, false, depth + 1);
        if (rc)
            return rc;
    }
    return DDB_OK;
}

static int render_node(const expr_node *n, ddb_wire_names *m, ddb_buf *out, bool need_parens, int depth)
{
    if (depth > 512) /* the parser bounds nesting far below this */
        return DDB_EINVAL;
    unsigned pairs = n->parens ? n->parens : 0;
    if (need_parens && pairs == 0)
        pairs = 1;
    for (unsigned i = 0; i < pairs; i++)
        if (put(out, "("))
            return DDB_ENOMEM;
    static const char *const cmp[] = {" = ", " <> ", " < ", " <= ", " > ", " >= "};
    int rc = DDB_OK;
    switch (n->kind) {
    case EN_PATH: rc = ddbi_wire_render_path(&n->path, m, out); break;
    case EN_VALUE: rc = ddbi_buf_put(out, n->str, n->slen); break;
    case EN_FUNC:
        if (ddbi_buf_put(out, n->str, n->slen) || put(out, "("))
            return DDB_ENOMEM;
        if (!(rc = render_list(n->args, 0, n->nargs, m, out, depth)))
            rc = put(out, ")");
        break;
    case EN_PLUS:
    case EN_MINUS:
        if (!(rc = render_node(n->args[0], m, out, false, depth + 1)) &&
            !(rc = put(out, n->kind == EN_PLUS ? " + " : " - ")))
            rc = render_node(n->args[1], m, out, false, depth + 1);
        break;
    case EN_CMP:
        if (n->op >= sizeof cmp / sizeof *cmp)
            return DDB_EINVAL;
        if (!(rc = render_node(n->args[0], m, out, false, depth + 1)) && !(rc = put(out, cmp[n->op])))
            rc = render_node(n->args[1], m, out, false, depth + 1);
        break;
    case EN_BETWEEN:
        if (!(rc = render_node(n->args[0], m, out, false, depth + 1)) && !(rc = put(out, " BETWEEN ")) &&
            !(rc = render_node(n->args[1], m, out, false, depth + 1)) && !(rc = put(out, " AND ")))
            rc = render_node(n->args[2], m, out, false, depth + 1);
        break;
    case EN_IN:
        if (!(rc = render_node(n->args[0], m, out, false, depth + 1)) && !(rc = put(out, " IN (")) &&
            !(rc = render_list(n->args, 1, n->nargs, m, out, depth)))
            rc = put(out, ")");
        break;
    case EN_AND:
    case EN_OR: {
        /* left-associative: a right operand of the same strength needs parentheses */
        int s = strength(n);
        if (!(rc = render_node(n->args[0], m, out, strength(n->args[0]) < s, depth + 1)) &&
            !(rc = put(out, n->kind == EN_AND ? " AND " : " OR ")))
            rc = render_node(n->args[1], m, out, strength(n->args[1]) <= s, depth + 1);
        break;
    }
    case EN_NOT:
        if (!(rc = put(out, "NOT ")))
            rc = render_node(n->args[0], m, out, strength(n->args[0]) < strength(n), depth + 1);
        break;
    default: return DDB_EINVAL;
    }
    for (unsigned i = 0; !rc && i < pairs; i++)
        if (put(out, ")"))
            rc = DDB_ENOMEM;
    return rc;
}

static int render_update(const ddb_expr *e, ddb_wire_names *m, ddb_buf *out)
{
    static const char *const kw[] = {"SET ", "REMOVE ", "ADD ", "DELETE "};
    for (size_t i = 0; i < e->nactions; i++) {
        const expr_action *a = &e->actions[i];
        bool first = i == 0 || e->actions[i - 1].kind != a->kind;
        int rc = DDB_OK;
        if ((unsigned)a->kind > UA_DELETE)
            return DDB_EINVAL;
        if (first)
            rc = put(out, i ? " " : "") || put(out, kw[a->kind]) ? DDB_ENOMEM : DDB_OK;
        else
            rc = put(out, ", ");
        if (!rc)
            rc = ddbi_wire_render_path(&a->path, m, out);
        if (!rc && a->kind == UA_SET)
            rc = put(out, " = ") ? DDB_ENOMEM : render_node(a->value, m, out, false, 0);
        else if (!rc && a->value)
            rc = put(out, " ") ? DDB_ENOMEM : render_node(a->value, m, out, false, 0);
        if (rc)
            return rc;
    }
    return DDB_OK;
}

int ddbi_expr_render(const ddb_expr *e, ddb_wire_names *m, ddb_buf *out, ddb_error *err)
{
    if (!e || !m || !out)
        return ddbi_fail(err, DDB_EINVAL, "ddbi_expr_render needs an expression, a names map and a buffer");
    int rc = DDB_OK;
    switch (e->kind) {
    case DDB_EXPR_UPDATE: rc = render_update(e, m, out); break;
    case DDB_EXPR_PROJECTION:
        for (size_t i = 0; i < e->npaths && !rc; i++)
            rc = (i && put(out, ", ")) ? DDB_ENOMEM : ddbi_wire_render_path(&e->paths[i], m, out);
        break;
    default: rc = e->root ? render_node(e->root, m, out, false, 0) : DDB_EINVAL; break;
    }
    if (!rc && (ddbi_buf_put(out, "", 1) == DDB_OK))
        out->len--; /* NUL-terminated, not counted */
    else if (!rc)
        rc = DDB_ENOMEM;
    if (rc == DDB_ENOMEM)
        return ddbi_fail_oom(err, ddb_expr_kind_name(e->kind));
    if (rc)
        return ddbi_fail(err, rc, "%s: the prepared expression has an unexpected shape", ddb_expr_kind_name(e->kind));
    return DDB_OK;
}
