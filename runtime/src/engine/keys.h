/* Extracting and checking key attributes of items (internal). */
#ifndef DDB_KEYS_H
#define DDB_KEYS_H

#include "core/codec.h"
#include "core/key_parts.h"
#include "engine/engine.h"

/* Index x's key as a ddb_key_schema borrowing its strings; more holds the
 * further parts (room 2 * (DDB_MAX_KEY_ATTRS - 1)). */
void ddbi_index_key_schema(const ddb_index_rt *x, ddb_key_schema *k, ddb_key_part *more);
/* Whether index x has a multi-attribute key. */
static inline bool ddbi_index_multi(const ddb_index_rt *x)
{
    return x->n_pk_more || x->n_sk_more;
}
/* Index x's key attributes (ddbi_key_schema_attrs of its key). */
size_t ddbi_index_key_attrs(const ddb_index_rt *x, const char **names, ddb_type *types, size_t *n_pk);
/* The LMDB key of item's entry in index x (every key attribute of a
 * multi-attribute key, keycodec.h and key_parts.h): 1 when the item is in
 * the index, 0 when not (sparse: an attribute missing), <0 with err as
 * ddbi_keys_index. */
int ddbi_keys_index_key(const ddb_index_rt *x, const ddb_item *item, ddb_key *k, ddb_error *err);

/* Does key value v (NULL: absent) meet the sort-key condition op with
 * v1 (and v2 for BETWEEN)?  op is not DDB_SK_ANY. */
bool ddbi_keys_op_matches(const ddb_value *v, ddb_key_op op, const ddb_value *v1, const ddb_value *v2);

/* Check that item holds the table's key attributes with their types and
 * sizes; fill pk and sk (sk NULL for hash-only tables). */
int ddbi_keys_table(const ddb_table_rt *t, const ddb_item *item, const ddb_value **pk, const ddb_value **sk,
                   ddb_error *err);
/* A key item must hold exactly the table's key attributes. */
int ddbi_keys_exact(const ddb_table_rt *t, const ddb_item *key, const ddb_value **pk, const ddb_value **sk,
                   ddb_error *err);
/* The index key of item: 1 when the item is in the index (sparse: every
 * key attribute present), 0 when not, <0 with err on a type mismatch or
 * bad size of any key attribute.  pk and sk get the first attribute of
 * each side. */
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
 * its indexes' (index_keys, DDBI_INDEX_KEYS_MAX room, duplicates kept). */
#define DDBI_INDEX_KEYS_MAX (2 * DDB_MAX_KEY_ATTRS * DDB_MAX_INDEXES)
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
