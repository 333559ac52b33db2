/* DynamoDB JSON: the wire form of attribute values (internal API).
 *
 *   {"S": "text"}  {"N": "1.5"}  {"B": "<base64>"}  {"BOOL": true}
 *   {"NULL": true} {"L": [v, ...]}  {"M": {"name": v, ...}}
 *   {"SS": ["a"]}  {"NS": ["1"]}  {"BS": ["<base64>"]}
 *
 * One conversion module for everything that speaks this form: the remote
 * backend's requests and responses, and the embedded engine's import and
 * export.  Reading is strict, whoever wrote the JSON: exactly one type
 * descriptor per value, known descriptors only, numbers validated and
 * canonicalised by ddb_number_canonical(), base64 with the standard
 * alphabet and padding, NULL only as true, sets non-empty and without
 * duplicates, nesting at most DDB_DJSON_MAX_DEPTH levels.  Every error is
 * DDB_EVALIDATION (DDB_ENOMEM when out of memory) with a message that names
 * the attribute path, e.g.
 *   attribute "tags"[2]: SS element 2 is a number, not a string
 *   attribute "price": N "1e999": Number overflow. Attempting to store ...
 * No heap is used on the error path; JSON objects follow jansson's
 * reference counting (every json_t ** out is a new reference).
 */
#ifndef DDB_DJSON_H
#define DDB_DJSON_H

#include <ddb/ddb.h>
#include <jansson.h>

/* A top-level attribute value is level 1; DynamoDB allows 32. */
#define DDB_DJSON_MAX_DEPTH 32

/* ddb_value -> DynamoDB JSON.  DDB_EVALIDATION for S text or names that are
 * not UTF-8 (JSON cannot carry them) and for a value without a type. */
int ddbi_djson_from_value(const ddb_value *v, json_t **out, ddb_error *err);
/* ddb_item -> JSON object {"name": value, ...}. */
int ddbi_djson_from_item(const ddb_item *it, json_t **out, ddb_error *err);

/* DynamoDB JSON -> ddb_value in arena a (nothing of j is retained). */
int ddbi_djson_to_value(const json_t *j, ddb_arena *a, ddb_value **out, ddb_error *err);
/* JSON object of attributes -> ddb_item in arena a.  Attribute names must
 * be non-empty and hold no NUL byte. */
int ddbi_djson_to_item(const json_t *j, ddb_arena *a, ddb_item **out, ddb_error *err);

/* Text conveniences for import/export: parse one JSON object of attributes
 * (duplicate keys rejected) / dump an item as compact JSON (malloc'd,
 * NUL-terminated, free() it). */
int ddbi_djson_parse_item(const char *text, size_t len, ddb_arena *a, ddb_item **out, ddb_error *err);
int ddbi_djson_dump_item(const ddb_item *it, char **out, ddb_error *err);

/* Base64 (RFC 4648 standard alphabet, padded).  encode writes
 * DDB_BASE64_LEN(n) characters plus a NUL.  decode is strict: length a
 * multiple of 4, padding only at the end, unused bits zero; out needs
 * n / 4 * 3 bytes; returns DDB_EVALIDATION with *bad_at = the offending
 * offset otherwise. */
#define DDB_BASE64_LEN(n) (((n) + 2) / 3 * 4)
void ddbi_base64_encode(const uint8_t *p, size_t n, char *out);
int ddbi_base64_decode(const char *s, size_t n, uint8_t *out, size_t *out_len, size_t *bad_at);

#endif
