/* ddb serve: PartiQL for DynamoDB (internal header of tools/ddb/serve/).
 *
 * PartiQL is a front end of `ddb serve`, not of libddb: a statement is
 * parsed into a small syntax tree (partiql_parse.c), then lowered
 * (partiql_lower.c) into exactly what the JSON API sends — a Query, Scan,
 * GetItem, PutItem, UpdateItem or DeleteItem with expression strings, an
 * ExpressionAttributeNames and an ExpressionAttributeValues map — and run
 * through libddb's public API by op_partiql.c.  There is no second engine:
 * every condition is evaluated by libddb's expression code.
 *
 * Both stages use libddb's public values (<ddb/ddb.h>) and nothing else, so
 * that the parser's unit tests and its fuzz target build them alone;
 * partiql_token.c (NextToken) adds <ddb/json.h>.
 * Everything is allocated in the caller's arena. */
#ifndef DDB_SERVE_PARTIQL_H
#define DDB_SERVE_PARTIQL_H

#include <ddb/ddb.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* DynamoDB's limit on a statement's length (API_ExecuteStatement:
 * Statement, length 1 to 8192). */
#define PQ_MAX_STATEMENT 8192
/* Nesting of parentheses, values and operators the parser follows at most
 * (its recursion depth; DynamoDB's own item nesting limit is 32). */
#define PQ_MAX_DEPTH 64

/* The prefix of DynamoDB's syntax errors. */
#define PQ_NOT_WELL_FORMED "Statement wasn't well formed, can't be processed: "

typedef enum pq_kind { PQ_SELECT = 1, PQ_INSERT, PQ_UPDATE, PQ_DELETE, PQ_EXISTS } pq_kind;

typedef enum pq_node_kind {
    PN_PATH = 1, /* a document path: steps */
    PN_VALUE,    /* a literal or a parameter: value */
    PN_MISSING,  /* the MISSING literal */
    PN_CMP,      /* args[0] op args[1]; op is "=", "<>", "<", "<=", ">", ">=" */
    PN_AND,      /* args[0] AND args[1] */
    PN_OR,
    PN_NOT,      /* NOT args[0] */
    PN_BETWEEN,  /* args[0] BETWEEN args[1] AND args[2] */
    PN_IN,       /* args[0] IN (args[1..n)) */
    PN_IS,       /* args[0] IS [NOT] type (op: MISSING, NULL, BOOLEAN, ...) */
    PN_CALL,     /* function op (lower case) of args */
    PN_ARITH     /* args[0] op args[1]; op is "+" or "-" */
} pq_node_kind;

/* One step of a path: a name (a.b, a."b", a['b']) or a list index (a[0]). */
typedef struct pq_step {
    const char *name; /* NULL for an index */
    uint32_t index;
} pq_step;

typedef struct pq_node pq_node;
struct pq_node {
    pq_node_kind kind;
    const char *op;
    bool negated;            /* PN_IS: IS NOT */
    pq_step *steps;          /* PN_PATH */
    size_t n_steps;
    const ddb_value *value;  /* PN_VALUE */
    pq_node **args;
    size_t n_args;
};

/* One action of an UPDATE: SET path = value, or REMOVE path. */
typedef struct pq_assign {
    pq_node *path;
    pq_node *value; /* NULL: REMOVE */
} pq_assign;

typedef struct pq_stmt {
    pq_kind kind;
    const char *table;
    const char *index;           /* SELECT ... FROM "t"."i"; NULL otherwise */
    pq_node **proj;              /* SELECT: the projection list; NULL for * */
    size_t n_proj;
    pq_node *where;              /* NULL when absent */
    pq_node *order_by[2];        /* SELECT: ORDER BY path [ASC|DESC], ... (key attributes) */
    bool descending[2];
    size_t n_order_by;
    const ddb_value *item;       /* INSERT: the item (an M value) */
    pq_assign *assigns;          /* UPDATE */
    size_t n_assigns;
    ddb_return_values returning; /* UPDATE / DELETE: RETURNING ... */
} pq_stmt;

/* Parse one statement (text[0..len), not NUL-terminated) with its
 * parameters (the request's Parameters, taken by each `?` in order).
 * DDB_EVALIDATION with DynamoDB's message ("Statement wasn't well formed,
 * can't be processed: ...", "Number of parameters in request and statement
 * don't match.", ...); DDB_ENOMEM. */
int pq_parse(const char *text, size_t len, const ddb_value *const *params, size_t n_params, ddb_arena *a,
             pq_stmt **out, ddb_error *err);

/* What a statement becomes: one libddb call with its expressions. */
typedef enum pq_call {
    PQC_QUERY = 1, /* SELECT with an equality on the partition key */
    PQC_SCAN,      /* any other SELECT */
    PQC_GET,       /* SELECT of one item by its full key (transactions, batches) */
    PQC_PUT,       /* INSERT: PutItem on condition that the key is new */
    PQC_UPDATE,    /* UPDATE: UpdateItem on condition that the item exists */
    PQC_DELETE,    /* DELETE: DeleteItem */
    PQC_CHECK      /* EXISTS(SELECT ...): a ConditionCheck (transactions) */
} pq_call;

/* The key attributes of the table, and of the index a SELECT reads. */
typedef struct pq_keys {
    ddb_key_schema table;
    ddb_key_schema target; /* the index's (or the table's again) */
} pq_keys;

typedef struct pq_plan {
    pq_call call;
    const char *table, *index;
    ddb_item *key;              /* GET, PUT (the item), UPDATE, DELETE, CHECK; the single
                                 * item a QUERY of a transaction or batch reads */
    bool backward;              /* QUERY: ORDER BY ... DESC */
    /* expression texts (NULL when none), with their names and values */
    const char *key_condition, *filter, *projection, *condition, *update;
    ddb_item *names, *values;   /* NULL when empty */
    ddb_return_values returning;
} pq_plan;

/* Lower a parsed statement.  single_item: a SELECT must name one item by
 * its full key (ExecuteTransaction, BatchExecuteStatement) and becomes a
 * GET.  DDB_EVALIDATION with DynamoDB's message; DDB_ENOMEM. */
int pq_lower(const pq_stmt *s, const pq_keys *keys, bool single_item, ddb_arena *a, pq_plan *out,
             ddb_error *err);

/* ---- partiql_token.c: NextToken ---- */

/* API_ExecuteStatement: NextToken, length 1 to 32768. */
#define PQ_MAX_TOKEN 32768

/* The NextToken continuing the request identified by statement (its text
 * and parameters) after last_key (arena memory). */
int pq_token_encode(const char *statement, const ddb_item *last_key, ddb_arena *a, char **out, ddb_error *err);
/* The ExclusiveStartKey of a NextToken given with statement; DDB_EVALIDATION
 * "Invalid NextToken" / "NextToken does not match request". */
int pq_token_decode(const char *statement, const char *token, ddb_arena *a, ddb_item **key, ddb_error *err);

#endif
