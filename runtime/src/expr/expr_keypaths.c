/* Key attributes are scalars: a document path that goes into one (p.x,
 * g[0]) is refused in every expression of a request, as DynamoDB does.
 * Part of the expression room (reads the AST of expr.h only); the engine
 * passes the key attribute names of the table and of its indexes. */
#include "expr/expr.h"

#include "core/error.h"

#include <string.h>

static bool name_is(const expr_pelem *el, const char *name)
{
    return el->name && strlen(name) == el->len && memcmp(el->name, name, el->len) == 0;
}

/* The key attribute a nested path goes into, or NULL. */
static const char *nested_key(const expr_path *p, const char *const *attrs, size_t n)
{
    if (p->n < 2)
        return NULL;
    for (size_t k = 0; k < n; k++)
        if (attrs[k] && name_is(&p->el[0], attrs[k]))
            return attrs[k];
    return NULL;
}

static const char *in_node(const expr_node *x, const char *const *attrs, size_t n)
{
    if (!x)
        return NULL;
    if (x->kind == EN_PATH)
        return nested_key(&x->path, attrs, n);
    for (uint32_t i = 0; i < x->nargs; i++) {
        const char *hit = in_node(x->args[i], attrs, n);
        if (hit)
            return hit;
    }
    return NULL;
}

static const char *in_expr(const ddb_expr *e, const char *const *attrs, size_t n)
{
    const char *hit = in_node(e->root, attrs, n);
    for (size_t i = 0; !hit && i < e->nactions; i++)
        if (!(hit = nested_key(&e->actions[i].path, attrs, n)))
            hit = in_node(e->actions[i].value, attrs, n);
    for (size_t i = 0; !hit && i < e->npaths; i++)
        hit = nested_key(&e->paths[i], attrs, n);
    return hit;
}

int ddbi_expr_check_key_paths(const ddb_expr *const *exprs, size_t nexprs, const char *const *key_attrs,
                              size_t n_key_attrs, const char *const *index_attrs, size_t n_index_attrs,
                              ddb_error *err)
{
    static const char *const what[2] = {"Key", "IndexKey"};
    const char *const *attrs[2] = {key_attrs, index_attrs};
    size_t n[2] = {n_key_attrs, n_index_attrs};
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < nexprs; i++) {
            const char *hit = exprs[i] ? in_expr(exprs[i], attrs[pass], n[pass]) : NULL;
            if (hit)
                return ddbi_fail(err, DDB_EVALIDATION,
                                "Key attributes must be scalars; list random access '[]' and map lookup '.' are not "
                                "allowed: %s: %s",
                                what[pass], hit);
        }
    return DDB_OK;
}
