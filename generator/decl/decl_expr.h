/* decl_expr.h — DynamoDB expressions written over C field names (DDB_UPDATE,
 * DDB_CONDITION), parsed with the runtime's own expression parser
 * (runtime/src/expr) so that ddbgen accepts exactly what libddb executes.
 *
 * A declared expression names fields by their C names ("SET battery_pct =
 * :pct").  Every bare name that is not a keyword or a function is
 * rewritten as an expression attribute name, the C name prefixed with '#'
 * ("SET #battery_pct = :pct"), so reserved words (status, name, count...)
 * are legal field names; the generated code sends that text with a names
 * map from each #name to the field's stored attribute.
 */
#ifndef DDBGEN_DECL_EXPR_H
#define DDBGEN_DECL_EXPR_H

#include "diag.h"

#include <ddb/expr.h>

#include <stddef.h>

typedef struct ddbgen_dexpr {
    char *text;          /* rewritten text (malloc'ed) */
    ddb_expr *x;         /* the runtime's parse; NULL when it failed */
    char **names;        /* the distinct C names rewritten, in order of first use */
    size_t n_names;
    size_t *inserted;    /* offsets in the original text where a '#' was inserted */
    size_t n_inserted;
    ddbgen_loc loc;      /* the expression literal's location */
    int verbatim;        /* the literal is written as is: positions inside it are exact */
} ddbgen_dexpr;

/* Rewrite and parse text (an UpdateExpression or ConditionExpression).  A
 * parse error is recorded in d at its place in the schema; returns 0 when
 * parsed, -1 otherwise (d->x NULL).  Always free with ddbgen__dexpr_free. */
int ddbgen__dexpr_parse(ddbgen_dexpr *dx, ddb_expr_kind kind, const char *text, ddbgen_loc loc, int verbatim,
                        ddbgen_diags *d);
void ddbgen__dexpr_free(ddbgen_dexpr *dx);

/* The schema location of 1-based line:col of the rewritten text. */
ddbgen_loc ddbgen__dexpr_loc(const ddbgen_dexpr *dx, unsigned line, unsigned col);

/* The rewritten text of one UpdateExpression clause ("SET", "REMOVE", "ADD",
 * "DELETE"), without its keyword: malloc'ed, "" when the clause is absent.
 * NULL when out of memory. */
char *ddbgen__dexpr_clause(const ddbgen_dexpr *dx, const char *keyword);

/* The actions of one clause (its body split at the commas outside
 * parentheses: "#qty = #qty - :n", ...), each malloc'ed, in *out
 * (malloc'ed; NULL and 0 when the clause is absent).  -1 when out of
 * memory, else 0. */
int ddbgen__dexpr_actions(const ddbgen_dexpr *dx, const char *keyword, char ***out, size_t *n);

#endif
