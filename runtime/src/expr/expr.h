/* expr/: DynamoDB expressions (room header: what the expression room
 * offers the engine and the remote backend; the room may call core/
 * only): tokens, the AST of a prepared expression, and the calls the
 * engine makes to execute one.
 *
 * Life of a request, as the engine drives it:
 *   1. ddb_expr_prepare() each expression of the request (names bound).
 *   2. ddbi_expr_check_request() once with all of them and the request's
 *      names and values maps: undefined :values, value types DynamoDB checks
 *      up front, unused names/values.  Execution calls below assume this
 *      passed and only re-check what they need for memory safety.
 *   3. Per item: ddbi_expr_eval_condition() (ConditionExpression against the
 *      old item, FilterExpression against each read item),
 *      ddbi_expr_apply_update(), ddbi_expr_project(); per Query:
 *      ddbi_expr_key_condition().
 * Everything here is reentrant; a prepared ddb_expr is never modified.
 *
 * Decisions worth knowing:
 *  - ADD and DELETE accept nested paths (m.counter, l[2]): the service does,
 *    although an old API page says top-level only.
 *  - Error messages tied to a place in the text end in " at LINE:COL"; the
 *    limits (4 KB, 300 operators, IN operands, path depth, parser nesting)
 *    are DDB_ELIMIT, everything else DDB_EVALIDATION.
 *  - The new item of ddbi_expr_apply_update() is not validated here (item
 *    size, key types, empty values): the engine validates it as for PutItem.
 *  - The AST below is also read by expr_render.c (remote backend): change
 *    it together.
 *  - C does not convert ddb_expr ** to const ddb_expr *const *: declare the
 *    request's array as const ddb_expr *exprs[] (or cast). */
#ifndef DDB_EXPR_INTERNAL_H
#define DDB_EXPR_INTERNAL_H

#include <ddb/expr.h>
#include <stdarg.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- Engine-facing calls -------------------------------------------------- */

/* Request-level validation, after every expression was prepared with the
 * same names map.  exprs may hold NULLs (absent expressions are skipped).
 * Checks, in DynamoDB's order: the names and values maps themselves (not
 * empty, keys "#..." / ":..."), maps given without any expression, then
 * per expression the values it uses (defined; ADD/DELETE/+/-/list_append/
 * begins_with/attribute_type/size/comparison/BETWEEN operand types), then
 * "Value provided in ExpressionAttributeNames unused in expressions: keys:
 * {#a, #b}" and the same for values.  DDB_EVALIDATION on failure. */
int ddbi_expr_check_request(const ddb_expr *const *exprs, size_t n, const ddb_item *names, const ddb_item *values,
                           ddb_error *err);

/* The maps alone, as DynamoDB checks them before parsing anything:
 * "ExpressionAttributeNames must not be empty", "... contains invalid key:
 * Syntax error; key: \"a\"", names that are not non-empty strings, and the
 * same for values.  Also done by ddbi_expr_check_request(). */
int ddbi_expr_check_maps(const ddb_item *names, const ddb_item *values, ddb_error *err);

/* Evaluate a condition or filter (or a key condition, as a filter) against
 * item (NULL = no item: every path is absent).  *result receives the
 * outcome; a false condition is not an error.  DDB_EVALIDATION only for an
 * undefined :value.  No memory is allocated. */
int ddbi_expr_eval_condition(const ddb_expr *e, const ddb_item *item, const ddb_item *values, bool *result,
                            ddb_error *err);

/* Refuse an update that touches a key attribute, as UpdateItem does:
 * "One or more parameter values were invalid: Cannot update attribute pk.
 * This attribute is part of the key" for the table's key attributes
 * (key_attrs), and "Key attributes must be scalars; list random access '[]'
 * and map lookup '.' are not allowed: IndexKey: gsi1pk" for a nested path
 * into an index key attribute (index_attrs).  Either array may be NULL. */
int ddbi_expr_update_check_keys(const ddb_expr *e, const char *const *key_attrs, size_t n_key_attrs,
                               const char *const *index_attrs, size_t n_index_attrs, ddb_error *err);

/* Refuse a document path into a key attribute (p.x, g[0]) anywhere in the
 * expressions (conditions, filters, projections, updates; NULLs skipped):
 * "Key attributes must be scalars; list random access '[]' and map lookup
 * '.' are not allowed: Key: p" for the table's key attributes (key_attrs),
 * "...: IndexKey: g" for the indexes' (checked after the table's). */
int ddbi_expr_check_key_paths(const ddb_expr *const *exprs, size_t nexprs, const char *const *key_attrs,
                              size_t n_key_attrs, const char *const *index_attrs, size_t n_index_attrs,
                              ddb_error *err);

/* Apply an UpdateExpression to old (NULL = the item does not exist yet)
 * and build the new item in arena a (old is not modified; the new item
 * shares nothing with old or values).  Every operand reads the old item, as
 * DynamoDB specifies.  Errors (DDB_EVALIDATION), with DynamoDB's wording:
 *   "The provided expression refers to an attribute that does not exist in the item"
 *   "An operand in the update expression has an incorrect data type"
 *   "The document path provided in the update expression is invalid for update"
 *   number overflow/underflow/precision messages from number arithmetic. */
int ddbi_expr_apply_update(const ddb_expr *e, const ddb_item *old, const ddb_item *values, ddb_arena *a,
                          ddb_item **out, ddb_error *err);

/* Does the update create an item that does not exist?  Only when one of
 * its actions is a SET or an ADD: an update that only REMOVEs or DELETEs
 * leaves an absent item absent (and returns no attributes), as UpdateItem
 * does. */
bool ddbi_expr_update_creates(const ddb_expr *e);

/* ReturnValues UPDATED_OLD / UPDATED_NEW: item (the old or the new one)
 * restricted to the document paths the update's actions name, as a
 * projection (list elements keep their order, compacted).  *out is NULL
 * when nothing remains.  Also accepts a PROJECTION expression. */
int ddbi_expr_updated_attributes(const ddb_expr *e, const ddb_item *item, ddb_arena *a, ddb_item **out,
                                ddb_error *err);

/* ProjectionExpression: a new item in arena a holding only the projected
 * paths of item (nested maps keep only the projected keys; projected list
 * elements keep their relative order, compacted).  *out is an empty item
 * when nothing matched.  DDB_EINVAL if e is not a projection. */
int ddbi_expr_project(const ddb_expr *e, const ddb_item *item, ddb_arena *a, ddb_item **out, ddb_error *err);

/* Append to b what identifies e as a request parameter: its kind, its
 * text and, in order, the attribute names its #name placeholders resolved
 * to (two expressions with the same text and different names maps differ).
 * DDB_ENOMEM when b cannot grow. */
struct ddb_buf;
int ddbi_expr_identity(const ddb_expr *e, struct ddb_buf *b);

/* The distinct top-level attribute names an expression references
 * (projection: the attributes to fetch; update: the attributes written),
 * sorted bytewise.  Owned by e. */
void ddbi_expr_top_level_names(const ddb_expr *e, const char *const **names, size_t *count);

/* A KeyConditionExpression mapped onto a key schema (the table's or an
 * index's).  pk/sk1/sk2 point into the values item and live as long as it. */
typedef struct ddb_key_condition {
    const ddb_value *pk;
    ddb_key_op sk_op; /* DDB_SK_ANY when there is no sort key condition */
    const ddb_value *sk1, *sk2;
} ddb_key_condition;

/* Map a prepared KEY_CONDITION expression onto key (ddb_query's pk, sk_op,
 * sk1, sk2).  DDB_EVALIDATION with DynamoDB's messages: "Query condition
 * missed key schema element: pk", "Query key condition not supported",
 * "One or more parameter values were invalid: Condition parameter type
 * does not match schema type", undefined values. */
int ddbi_expr_key_condition(const ddb_expr *e, const ddb_key_schema *key, const ddb_item *values,
                           ddb_key_condition *out, ddb_error *err);

/* A KeyConditionExpression mapped onto a multi-attribute key schema: the
 * partition-key values (every one, in declared order), equality on the
 * first n_sk_eq sort-key attributes, then op (DDB_SK_ANY: none) on the
 * next one with v1 (and v2 for BETWEEN).  Values point into the values
 * item. */
typedef struct ddb_key_condition_parts {
    const ddb_value *pk[DDB_MAX_KEY_ATTRS];
    size_t n_pk;
    const ddb_value *sk_eq[DDB_MAX_KEY_ATTRS];
    size_t n_sk_eq;
    ddb_key_op op;
    const ddb_value *v1, *v2;
} ddb_key_condition_parts;

/* Map a prepared KEY_CONDITION expression onto a key schema with several
 * attributes (ddbi_expr_key_condition's messages, and for the rules of
 * such keys: equality on every partition-key attribute, sort-key
 * attributes named left to right with no gap, a range condition only on
 * the last one named). */
int ddbi_expr_key_condition_parts(const ddb_expr *e, const ddb_key_schema *key, const ddb_item *values,
                                  ddb_key_condition_parts *out, ddb_error *err);

/* ---- Tokens (expr_lex.c) ------------------------------------------------- */

typedef enum expr_tok_kind {
    TK_EOF = 0,
    TK_NAME,   /* [A-Za-z_][A-Za-z0-9_]*: attribute name, keyword or function */
    TK_HASH,   /* #[A-Za-z0-9_]*  expression attribute name */
    TK_VALUE,  /* :[A-Za-z0-9_]*  expression attribute value */
    TK_NUMBER, /* [0-9]+ (list index) */
    TK_LPAREN,
    TK_RPAREN,
    TK_LBRACKET,
    TK_RBRACKET,
    TK_COMMA,
    TK_DOT,
    TK_EQ,
    TK_NE,
    TK_LT,
    TK_LE,
    TK_GT,
    TK_GE,
    TK_PLUS,
    TK_MINUS,
    TK_BAD /* any other character (one UTF-8 sequence) */
} expr_tok_kind;

typedef struct expr_token {
    expr_tok_kind kind;
    uint32_t off, len;  /* bytes of the source */
    uint32_t line, col; /* 1-based */
} expr_token;

/* Split text into tokens (array in arena a, ending with one TK_EOF).
 * Never fails on content; DDB_ENOMEM only. */
int ddbi_expr_lex(const char *text, size_t len, ddb_arena *a, expr_token **toks, size_t *ntoks);
/* Token text equals keyword kw (upper case), ignoring ASCII case. */
bool ddbi_expr_tok_is(const char *src, const expr_token *t, const char *kw);
/* DynamoDB's reserved words (case-insensitive), binary search. */
bool ddbi_expr_is_reserved(const char *s, size_t len);

/* ---- AST (expr_parse.c) -------------------------------------------------- */

typedef struct expr_pelem {
    const char *name; /* resolved attribute name (NUL-terminated), NULL for an index */
    uint32_t len;
    uint32_t index;   /* list index when name is NULL */
} expr_pelem;

typedef struct expr_path {
    expr_pelem *el;
    uint32_t n;
    uint32_t line, col;
} expr_path;

typedef enum expr_func {
    EF_UNKNOWN = 0,
    EF_ATTRIBUTE_EXISTS,
    EF_ATTRIBUTE_NOT_EXISTS,
    EF_ATTRIBUTE_TYPE,
    EF_BEGINS_WITH,
    EF_CONTAINS,
    EF_SIZE,
    EF_IF_NOT_EXISTS,
    EF_LIST_APPEND
} expr_func;

typedef enum expr_node_kind {
    EN_PATH,
    EN_VALUE,
    EN_FUNC,
    EN_PLUS,
    EN_MINUS,
    EN_CMP,
    EN_BETWEEN,
    EN_IN,
    EN_AND,
    EN_OR,
    EN_NOT
} expr_node_kind;

typedef enum expr_cmp { CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE } expr_cmp;

typedef struct expr_node {
    expr_node_kind kind;
    uint8_t op;      /* expr_cmp for EN_CMP, expr_func for EN_FUNC */
    uint8_t parens;  /* parenthesis pairs written directly around the node */
    uint32_t line, col;
    uint32_t nargs;
    struct expr_node **args;
    expr_path path;  /* EN_PATH */
    const char *str; /* EN_VALUE: ":v"; EN_FUNC: function name (not NUL-terminated) */
    uint32_t slen;
} expr_node;

typedef enum expr_action_kind { UA_SET, UA_REMOVE, UA_ADD, UA_DELETE } expr_action_kind;

typedef struct expr_action {
    expr_action_kind kind;
    expr_path path;
    expr_node *value; /* SET: the value expression; ADD/DELETE: the :value; REMOVE: NULL */
} expr_action;

/* Projection tree: the union of paths, children sorted (names bytewise,
 * indexes ascending).  A leaf takes the whole value. */
typedef struct expr_pnode {
    const char *name; /* NULL for an index child */
    uint32_t len;
    uint32_t index;
    bool leaf;
    uint32_t n, cap;
    struct expr_pnode *kids;
} expr_pnode;

/* Conditions a KeyConditionExpression may hold: one per attribute of a
 * multi-attribute key (two for any other key schema). */
#define DDBI_KEYCONDS_MAX (2 * DDB_MAX_KEY_ATTRS)

typedef struct expr_keycond {
    const char *attr; /* key attribute name */
    uint32_t attr_len;
    ddb_key_op op;    /* normalised: the key attribute on the left */
    expr_node *v1, *v2;
    uint32_t line, col;
} expr_keycond;

struct ddb_expr {
    ddb_arena *arena;
    ddb_expr_kind kind;
    char *text;
    size_t len;
    expr_node *root;        /* condition, filter, key condition */
    expr_action *actions;   /* update */
    size_t nactions;
    expr_path *paths;       /* projection */
    size_t npaths;
    expr_pnode ptree;       /* projection / updated paths */
    const char **names_used; /* "#n" placeholders, distinct */
    size_t nnames_used;
    const char **values_used; /* ":v" placeholders, distinct */
    size_t nvalues_used;
    const char **top_names;
    size_t ntop_names;
    expr_keycond keyconds[DDBI_KEYCONDS_MAX];
    size_t nkeyconds;
};

/* ---- Shared helpers -------------------------------------------------------- */

/* The message of an expression error into buf: "Invalid <kind>: " when
 * prefix, the formatted text, " at line:col" when line (expr_error.c). */
void ddbi_expr_vformat(char *buf, size_t size, bool prefix, ddb_expr_kind kind, uint32_t line, uint32_t col,
                       const char *fmt, va_list ap);

/* Value of path under the map root (NULL when absent). */
const ddb_value *ddbi_expr_path_get(const ddb_value *root, const expr_path *p, uint32_t nelems);
/* The :value a node names, from values (NULL when undefined). */
const ddb_value *ddbi_expr_value_of(const ddb_item *values, const expr_node *n);
/* Fail with "Invalid <Kind>: <message> at L:C" (line 0 = no position). */
int ddbi_expr_fail(ddb_error *err, int code, ddb_expr_kind kind, uint32_t line, uint32_t col, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
/* Fail with message and position but no "Invalid <Kind>:" prefix. */
int ddbi_expr_fail_at(ddb_error *err, int code, uint32_t line, uint32_t col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Project value through a projection tree node into arena a (NULL when
 * nothing is selected or out of memory: *nomem tells which). */
ddb_value *ddbi_expr_project_value(ddb_arena *a, const ddb_value *v, const expr_pnode *node, bool *nomem);
/* Validate the :values one expression uses (step 2 of a request). */
int ddbi_expr_check_values(const ddb_expr *e, const ddb_item *values, ddb_error *err);
/* Map lookup with a counted name. */
const ddb_value *ddbi_expr_map_get(const ddb_value *map, const char *name, size_t len);
/* Insert or replace a counted name in a map built in arena a (the name is
 * copied, the value linked).  DDB_ENOMEM on failure. */
int ddbi_expr_map_setn(ddb_arena *a, ddb_value *map, const char *name, size_t len, ddb_value *v);
/* Remove a counted name from a map; true if it was there. */
bool ddbi_expr_map_removen(ddb_value *map, const char *name, size_t len);

#endif
