/* Extracting and checking key attributes of items (internal). */
#ifndef DDB_KEYS_H
#define DDB_KEYS_H

#include "core/codec.h"
#include "engine/engine.h"

/* Check that item holds the table's key attributes with their types and
 * sizes; fill pk and sk (sk NULL for hash-only tables). */
int ddbi_keys_table(const ddb_table_rt *t, const ddb_item *item, const ddb_value **pk, const ddb_value **sk,
                   ddb_error *err);
/* A key item must hold exactly the table's key attributes. */
int ddbi_keys_exact(const ddb_table_rt *t, const ddb_item *key, const ddb_value **pk, const ddb_value **sk,
                   ddb_error *err);
/* The index key of item: 1 when the item is in the index (sparse), 0 when
 * not, <0 with err on a type mismatch or bad size. */
int ddbi_keys_index(const ddb_index_rt *x, const ddb_item *item, const ddb_value **pk, const ddb_value **sk,
                   ddb_error *err);
/* Check a key value's type and length for attribute name, with DynamoDB's
 * messages: index names the index for its index-key wording (NULL: the
 * table's key). */
int ddbi_keys_check_value(const char *name, const ddb_value *v, ddb_type want, bool partition, const char *index,
                         ddb_error *err);
/* An ExclusiveStartKey must hold exactly the table's key attributes and,
 * reading index x (NULL: the table), the index's, each with its declared
 * type: DynamoDB's "The provided starting key is invalid" otherwise (a Scan
 * of the table adds ": The provided key element does not match the
 * schema"), then which attribute is wrong. */
int ddbi_keys_start(const ddb_table_rt *t, const ddb_index_rt *x, const ddb_item *start, bool table_scan,
                    ddb_error *err);
/* The key attribute names: the table's (keys[0..1], returns 1 or 2) and
 * its indexes' (index_keys, 2 * DDB_MAX_INDEXES room, duplicates kept). */
size_t ddbi_keys_names(const ddb_table_rt *t, const char **keys, const char **index_keys, size_t *n_index_keys);
/* The names a record of t hints (core/codec.h): its keys, its TTL
 * attribute, then its indexes' keys, each once, while there is room. */
void ddbi_keys_hint_names(const ddb_table_rt *t, ddbi_hint_names *h);
/* Refuse a document path into a key attribute of t (or of its indexes) in
 * any of the expressions (NULLs skipped): DynamoDB's "Key attributes must
 * be scalars; ..." (ddbi_expr_check_key_paths). */
int ddbi_keys_check_paths(const ddb_table_rt *t, const ddb_expr *const *exprs, size_t n, ddb_error *err);
/* Whether index x holds attribute name (its projection, or a key). */
bool ddbi_keys_index_projects(const ddb_table_rt *t, const ddb_index_rt *x, const char *name);
/* Size of the attributes an index projects from item. */
size_t ddbi_keys_projected_size(const ddb_table_rt *t, const ddb_index_rt *x, const ddb_item *item);
/* A new item in arena a with the attributes index x projects. */
ddb_item *ddbi_keys_project_index(ddb_arena *a, const ddb_table_rt *t, const ddb_index_rt *x, const ddb_item *item);
/* A new item in arena a holding only the named top-level attributes. */
ddb_item *ddbi_keys_project(ddb_arena *a, const ddb_item *item, const char *const *names, size_t n);

#endif
