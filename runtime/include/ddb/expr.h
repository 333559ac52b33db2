/* libddb expressions — DynamoDB's expression language, prepared once and
 * executed many times (like sqlite3_prepare / sqlite3_step).
 *
 * Kinds: ConditionExpression, FilterExpression (same grammar, its own name
 * in messages), UpdateExpression, ProjectionExpression and
 * KeyConditionExpression.
 *
 * Binding rules:
 *  - Expression attribute NAMES (#n) are bound at prepare time: the names
 *    map is read by ddb_expr_prepare() and not retained.  A prepared
 *    expression therefore belongs to one ExpressionAttributeNames map.
 *  - Expression attribute VALUES (:v) are bound at execution time: every
 *    execution takes a values map, so one prepared handle serves many calls
 *    with different values.
 *
 * A prepared expression is immutable: any number of threads may execute it
 * at the same time.  It owns all of its memory (one arena), released by
 * ddb_expr_free().
 *
 * Errors are DDB_EVALIDATION (or DDB_ELIMIT for the 4 KB / operator / IN /
 * nesting limits) with DynamoDB's wording, prefixed as DynamoDB does
 * ("Invalid UpdateExpression: ...") and followed by the position in the
 * expression text as " at LINE:COL" (1-based, COL counts bytes) whenever the
 * problem has one, e.g.
 *   Invalid UpdateExpression: Syntax error; token: "SETT", near: "SETT a" at 1:1
 */
#ifndef DDB_EXPR_H
#define DDB_EXPR_H

#include <ddb/ddb.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Exported from libddb.so, like every public declaration (see ddb.h). */
#pragma GCC visibility push(default)

typedef struct ddb_expr ddb_expr;

typedef enum ddb_expr_kind {
    DDB_EXPR_CONDITION = 0, /* ConditionExpression (PutItem/UpdateItem/DeleteItem/ConditionCheck) */
    DDB_EXPR_FILTER,        /* FilterExpression (Query/Scan): the condition grammar */
    DDB_EXPR_UPDATE,        /* UpdateExpression */
    DDB_EXPR_PROJECTION,    /* ProjectionExpression */
    DDB_EXPR_KEY_CONDITION  /* KeyConditionExpression (Query) */
} ddb_expr_kind;

/* DynamoDB's limits on one expression. */
#define DDB_EXPR_MAX_BYTES 4096     /* expression text, in bytes */
#define DDB_EXPR_MAX_OPERATORS 300  /* comparators, AND, OR, NOT, BETWEEN, IN, + and - */
#define DDB_EXPR_MAX_IN_OPERANDS 100 /* operands of one IN, the left one included */
#define DDB_EXPR_MAX_PATH_DEPTH 32  /* elements of one document path */
#define DDB_EXPR_MAX_REF_BYTES 255  /* a #name or :value reference, its sigil included */
#define DDB_ATTR_NAME_MAX 65535     /* an attribute name's bytes (DynamoDB: "less than 65536 bytes") */

/* "ConditionExpression", "FilterExpression", ...; never NULL. */
const char *ddb_expr_kind_name(ddb_expr_kind kind);

/* Parse and validate text (NUL-terminated) as an expression of the given
 * kind.  names is the request's ExpressionAttributeNames as an item whose
 * attribute names are the placeholders ("#n") and whose values are S
 * values (the real attribute names); NULL when the request has none.
 * Names are substituted now; names is not retained.
 *
 * Checks everything that does not depend on values or on the table:
 * syntax, empty text, the 4 KB / 300 operator / IN / path depth limits,
 * reserved words used as bare attribute names, undefined #names, unknown or
 * misused functions and their operand counts, redundant parentheses,
 * overlapping or conflicting document paths (update and projection), a
 * clause used twice (update), and the shape of a KeyConditionExpression.
 *
 * On success *out owns a new handle (free with ddb_expr_free).  On failure
 * *out is NULL and the return is DDB_EVALIDATION, DDB_ELIMIT, DDB_EINVAL
 * (NULL text or out) or DDB_ENOMEM. */
int ddb_expr_prepare(ddb_expr_kind kind, const char *text, const ddb_item *names, ddb_expr **out, ddb_error *err);

/* The maps' own checks, which DynamoDB makes before any expression is read:
 * not empty, each key "#name" / ":name" of at most DDB_EXPR_MAX_REF_BYTES
 * (the length checked first), each name not empty, each value well formed.
 * names / values may be NULL.  DDB_EVALIDATION with DynamoDB's words. */
int ddb_expr_check_maps(const ddb_item *names, const ddb_item *values, ddb_error *err);

/* The checks DynamoDB makes on a whole request once each of its
 * expressions (exprs[0..n), NULLs skipped) was prepared with the same
 * names map: the maps themselves (not empty, "#..." / ":..." keys), maps
 * given without any expression, the values each expression uses, then
 * "Value provided in ExpressionAttributeNames unused in expressions: keys:
 * {#a}" and the same for values.  names / values may be NULL.  The item
 * operations check values themselves; a front end that receives a names
 * map (`ddb serve`) calls this for the names.  DDB_EVALIDATION. */
int ddb_expr_check_request(const ddb_expr *const *exprs, size_t n, const ddb_item *names, const ddb_item *values,
                           ddb_error *err);

/* Release a handle and everything it owns.  NULL is a no-op. */
void ddb_expr_free(ddb_expr *e);

ddb_expr_kind ddb_expr_get_kind(const ddb_expr *e);
/* The expression text as prepared; owned by the handle. */
const char *ddb_expr_text(const ddb_expr *e);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif /* DDB_EXPR_H */
