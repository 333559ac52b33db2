/* generate_stream.h — render context for the stream-record decoder and the
 * TTL attribute of each table (templates: module.{h,c}.mustache, inside
 * {{#tables}}). */
#ifndef DDBGEN_GENERATE_STREAM_H
#define DDBGEN_GENERATE_STREAM_H

#include <jansson.h>
#include <stdio.h>

/* Add to table context tctx (of model table mt, model m):
 *   "ttl_attr":   C literal of the table's TTL attribute, or NULL
 *   "upper":      the table's cname in upper case (enum constants)
 *   "record_entities": [{"rcname", "rctype", "rconst"}] the table's entities
 *   "has_record_entities": bool
 * Entities of one table that declare different DDB_TTL attributes are an
 * error (DynamoDB has one per table): reported on diag, returns 1. */
int ddbgen_stream_ctx(json_t *m, json_t *mt, json_t *tctx, FILE *diag);

/* s as a C string literal ("..." with C escapes), a new json string (generate.c). */
json_t *ddbgen_c_literal(const char *s);

#endif
