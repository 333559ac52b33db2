/* <ddb/json.h> — DynamoDB JSON: attribute values in their wire form.
 *
 *   {"S": "text"}  {"N": "1.5"}  {"B": "<base64>"}  {"BOOL": true}
 *   {"NULL": true} {"L": [v, ...]}  {"M": {"name": v, ...}}
 *   {"SS": ["a"]}  {"NS": ["1"]}  {"BS": ["<base64>"]}
 *
 * The form DynamoDB's API, its streams and its S3 export speak; libddb's
 * remote backend uses this codec for every request and response, and the
 * `ddb` tool for import, export and its --key / --values arguments.
 *
 * JSON trees are jansson's json_t (include this header only where
 * jansson's headers are available: Debian libjansson-dev, pkg-config
 * `jansson`; <ddb/ddb.h> does not include it).  Every json_t ** a function
 * fills receives a new reference: json_decref() it.  Input trees are only
 * read, never retained.
 *
 * Reading is strict, whoever wrote the JSON: exactly one type descriptor
 * per value, known descriptors only, numbers validated and canonicalised by
 * ddb_number_canonical(), base64 with the standard alphabet and padding,
 * NULL only as true, sets non-empty and without duplicates, nesting at most
 * DDB_JSON_READ_MAX_DEPTH levels, attribute names without NUL bytes.  Neither
 * direction applies DynamoDB's size limits (400 KB per item, 64 KB per
 * name): the write that stores an item checks those.
 *
 * Errors: every function but the base64 pair returns DDB_OK or a negative
 * DDB_E* code and fills the optional err.  DDB_EINVAL for NULL arguments or
 * a malformed ddb_value tree, DDB_EVALIDATION for input that is not valid
 * DynamoDB JSON (or, writing, text JSON cannot carry), DDB_ENOMEM when out
 * of memory.  Messages name the attribute path, e.g.
 *   attribute "tags"[2]: SS element 2 is a number, not a string
 *   attribute "price": N "1e999": Number overflow. Attempting to store ...
 * On failure the out argument is NULL (nothing to release).
 */
#ifndef DDB_JSON_H
#define DDB_JSON_H

#include <ddb/ddb.h>
#include <jansson.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Exported from libddb.so, like every public declaration (see ddb.h). */
#pragma GCC visibility push(default)

/* Nesting limit in both directions: a top-level attribute value is level 1
 * (DynamoDB allows 32).  Reading allows twice that: DynamoDB holds only the
 * values an item stores to 32 levels (the write checks them, in DynamoDB's
 * words), not a value a condition compares with. */
#define DDB_JSON_MAX_DEPTH 32
#define DDB_JSON_READ_MAX_DEPTH (2 * DDB_JSON_MAX_DEPTH)

/* ---- ddb_value / ddb_item -> JSON --------------------------------------- */

/* A value as DynamoDB JSON ({"S": "x"}, ...).  *out is a new reference.
 * DDB_EVALIDATION when S or N text or a map key is not UTF-8 (JSON cannot
 * carry it) or the value nests deeper than DDB_JSON_MAX_DEPTH; DDB_EINVAL
 * for NULL v or out and for a malformed tree (a value without a valid type,
 * a set element that is not S, N or B). */
int ddb_json_from_value(const ddb_value *v, json_t **out, ddb_error *err);

/* An item as a JSON object of attributes ({"name": {"S": "x"}, ...}), names
 * in the item's (bytewise) order.  *out is a new reference.  Errors as
 * ddb_json_from_value(), attribute names included. */
int ddb_json_from_item(const ddb_item *it, json_t **out, ddb_error *err);

/* An item as compact DynamoDB JSON text, NUL-terminated, one line (the
 * form of DynamoDB's JSON-lines export).  *out is malloc'd: free() it.
 * Errors as ddb_json_from_item(). */
int ddb_json_dump_item(const ddb_item *it, char **out, ddb_error *err);

/* ---- JSON -> ddb_value / ddb_item --------------------------------------- */

/* One attribute value ({"N": "1.50"} -> N "1.5").  *out and everything it
 * points to are allocated from arena a; nothing of j is retained.
 * DDB_EVALIDATION for anything that is not strict DynamoDB JSON (see
 * above); DDB_EINVAL for NULL j, a or out. */
int ddb_json_to_value(const json_t *j, ddb_arena *a, ddb_value **out, ddb_error *err);

/* A JSON object of attributes as an item in arena a.  Attribute names must
 * be non-empty and hold no NUL byte.  Errors as ddb_json_to_value(), and
 * DDB_EVALIDATION when j is not an object. */
int ddb_json_to_item(const json_t *j, ddb_arena *a, ddb_item **out, ddb_error *err);

/* Parse text[0..len) (need not be NUL-terminated) as one JSON object of
 * attributes and convert it as ddb_json_to_item() does.  Duplicate keys
 * are rejected; malformed JSON is DDB_EVALIDATION naming the line and
 * column.  The whole JSON tree is built in memory before it is converted:
 * bound len before calling with untrusted input. */
int ddb_json_parse_item(const char *text, size_t len, ddb_arena *a, ddb_item **out, ddb_error *err);

/* ---- Base64, the text of B values ------------------------------------------ */

/* Characters ddb_json_base64_encode() writes for n bytes (without the NUL). */
#define DDB_JSON_BASE64_LEN(n) (((n) + 2) / 3 * 4)

/* RFC 4648 base64 (standard alphabet, padded) of p[0..n) into out, which
 * needs DDB_JSON_BASE64_LEN(n) + 1 bytes; out is NUL-terminated.  Cannot
 * fail. */
void ddb_json_base64_encode(const uint8_t *p, size_t n, char *out);

/* Decode s[0..n) strictly: n a multiple of 4, standard alphabet, padding
 * only at the end, unused bits zero (the one canonical spelling of each
 * byte string).  out needs n / 4 * 3 bytes; *out_len gets the decoded
 * length.  DDB_EVALIDATION otherwise, with *bad_at the offset of the first
 * offending character (n when the length is wrong). */
int ddb_json_base64_decode(const char *s, size_t n, uint8_t *out, size_t *out_len, size_t *bad_at);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif /* DDB_JSON_H */
