/* The attributes of a key schema (ddb_key_schema, a multi-attribute key's
 * further parts included) in declared order (internal; key_schema.c). */
#ifndef DDB_KEY_SCHEMA_H
#define DDB_KEY_SCHEMA_H

#include <ddb/ddb.h>

/* The attributes of key schema k in declared order: the partition-key
 * ones (pk, then pk_more), then the sort-key ones (sk, then sk_more), into
 * names and types (room 2 * DDB_MAX_KEY_ATTRS; counts beyond the limit are
 * cut there: the validator refuses them).  *n_pk gets how many are
 * partition-key attributes (n_pk may be NULL).  Returns the count. */
size_t ddbi_key_schema_attrs(const ddb_key_schema *k, const char **names, ddb_type *types, size_t *n_pk);

#endif
