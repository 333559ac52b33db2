/* ddb serve: what the files translating DynamoDB's legacy parameters share
 * (legacy.c: the requests and their rules, legacy_text.c: the expression
 * text and its placeholders, legacy_cond.c: Expected, QueryFilter,
 * ScanFilter and KeyConditions, legacy_update.c: AttributeUpdates).  The translation writes the engine's expression form
 * into the request itself: a condition, filter, key-condition, update or
 * projection expression whose attribute names and values are generated
 * placeholders added to ExpressionAttributeNames / ExpressionAttributeValues.
 * Internal to tools/ddb/serve/; calls serve.h (reply.c), libddb and jansson. */
#ifndef DDB_SERVE_LEGACY_H
#define DDB_SERVE_LEGACY_H

#include "serve.h"

#include <jansson.h>

/* Expression text being written (in the request's arena). */
typedef struct lg_text {
    char *s;
    size_t len, cap;
} lg_text;

/* One request's translation. */
typedef struct lg_ctx {
    serve_req *r;
    json_t *names;  /* ExpressionAttributeNames of the rewritten request (holds the request's own) */
    json_t *values; /* ExpressionAttributeValues of the rewritten request */
    unsigned next;  /* the number of the next placeholder */
} lg_ctx;

/* Append printf-style text; -1 (out of memory, error set) or 0. */
int lg_append(lg_ctx *c, lg_text *t, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A ValidationException "One or more parameter values were invalid: " + the
 * formatted text (DynamoDB's prefix of the parameter checks); returns -1. */
int lg_invalid(serve_req *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A new placeholder "#lN" standing for the attribute name; NULL after setting the error. */
const char *lg_name(lg_ctx *c, const char *attr);
/* A new placeholder ":lN" standing for the value v (DynamoDB JSON, checked by
 * the caller); NULL after setting the error. */
const char *lg_value(lg_ctx *c, json_t *v);

/* Which map a set of conditions comes from: its member name, the member's
 * path in DynamoDB's validation messages, and its rules. */
typedef enum lg_map {
    LG_EXPECTED,    /* Expected: Exists / Value or ComparisonOperator, any value type */
    LG_FILTER,      /* QueryFilter, ScanFilter: ComparisonOperator, typed values */
    LG_KEY          /* KeyConditions: as a filter, and only the indexable operators */
} lg_map;

/* The conditions of map (a JSON object attribute -> condition) as one
 * expression in out, joined by AND or by OR (or_join).  Nothing written
 * when the map is empty. */
int lg_conditions(lg_ctx *c, const json_t *map, const char *member, lg_map kind, bool or_join, lg_text *out);

/* AttributeUpdates as an UpdateExpression in out (nothing when empty). */
int lg_updates(lg_ctx *c, const json_t *map, lg_text *out);

#endif
