/* expr/: what identifies a prepared expression as a request parameter (its
 * kind, text and resolved attribute names), for comparing two requests
 * (TransactWriteItems' ClientRequestToken).  Calls core/ (buffers). */
#include "core/codec.h"
#include "expr/expr.h"

#include <string.h>

static int put_path(ddb_buf *b, const expr_path *p)
{
    int rc = ddbi_buf_varint(b, p->n);
    for (uint32_t i = 0; !rc && i < p->n; i++) {
        const expr_pelem *el = &p->el[i];
        rc = el->name ? ddbi_buf_varint(b, (uint64_t)el->len + 1) : ddbi_buf_varint(b, 0);
        if (!rc)
            rc = el->name ? ddbi_buf_put(b, el->name, el->len) : ddbi_buf_varint(b, el->index);
    }
    return rc;
}

static int put_node(ddb_buf *b, const expr_node *n)
{
    if (!n)
        return ddbi_buf_varint(b, 0);
    int rc = n->kind == EN_PATH ? put_path(b, &n->path) : DDB_OK;
    for (uint32_t i = 0; !rc && i < n->nargs; i++)
        rc = put_node(b, n->args[i]);
    return rc;
}

int ddbi_expr_identity(const ddb_expr *e, ddb_buf *b)
{
    if (!e)
        return ddbi_buf_varint(b, 0);
    int rc = ddbi_buf_varint(b, (uint64_t)e->kind + 1);
    if (!rc)
        rc = ddbi_buf_varint(b, e->len);
    if (!rc)
        rc = ddbi_buf_put(b, e->text, e->len);
    if (!rc)
        rc = put_node(b, e->root);
    for (size_t i = 0; !rc && i < e->nactions; i++) {
        rc = put_path(b, &e->actions[i].path);
        if (!rc)
            rc = put_node(b, e->actions[i].value);
    }
    for (size_t i = 0; !rc && i < e->npaths; i++)
        rc = put_path(b, &e->paths[i]);
    return rc;
}
