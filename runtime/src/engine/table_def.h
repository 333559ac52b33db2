/* A table definition inside the engine (internal): the one validator of a
 * ddb_table_def (table_def.c) and the catalog's stored form of it
 * (catalog.c: "t/<name>" in the meta database, written only after a round
 * trip through the loader's decoding and the validator).  A new stored
 * field goes into ddb_table_def, catalog.c's encode and decode, and (when
 * it has rules) ddbi_table_def_validate. */
#ifndef DDB_TABLE_DEF_H
#define DDB_TABLE_DEF_H

#include "engine/engine.h"

/* Is d a definition DynamoDB's CreateTable accepts (names, key schemas,
 * index counts and projections, attribute types)?  DDB_EVALIDATION or
 * DDB_ELIMIT in DynamoDB's words otherwise. */
int ddbi_table_def_validate(const ddb_table_def *d, ddb_error *err);

/* The rules only a request is held to, not a stored definition (at most
 * 20 NonKeyAttributes per index: older versions stored more): for each
 * index of a CreateTable, and for the index an UpdateTable creates (prefix:
 * its request member, "globalSecondaryIndexUpdates.1.member.create.").
 * DDB_ELIMIT in DynamoDB's words. */
#define DDB_MAX_NONKEY_PER_INDEX 20
int ddbi_table_def_request_check(const ddb_table_def *d, ddb_error *err);
int ddbi_index_request_check(const char *prefix, const ddb_index_def *x, ddb_error *err);

/* The stored form of one index definition (NULL when out of memory). */
ddb_value *ddbi_catalog_index_map(ddb_arena *a, const ddb_index_def *x);
/* The stored form of d (a map), in arena a. */
int ddbi_catalog_encode(ddb_arena *a, const ddb_table_def *d, ddb_value **out, ddb_error *err);
/* The stored definition "t/<name>" (p, n bytes) read back into *out
 * (strings and arrays in arena a) and checked by the validator:
 * DDB_ECORRUPT "table <name>: the stored table definition is corrupt:
 * <why>" otherwise (DDB_ENOMEM when out of memory). */
int ddbi_catalog_decode(const void *p, size_t n, const char *name, ddb_arena *a, ddb_table_def *out,
                        ddb_error *err);
/* The decoded item of the stored definition of table name (for an edit
 * that keeps the fields it does not know).  DDB_ECORRUPT when unreadable. */
int ddbi_catalog_get(ddbi_engine *db, MDB_txn *txn, const char *name, ddb_arena *a, ddb_item **out,
                     ddb_error *err);
/* Store the definition def (a map: the stored form) of table name: encode
 * it, decode what would be stored as the loader does and validate it,
 * and put it only then, so that what is accepted always loads. */
int ddbi_catalog_put(ddbi_engine *db, MDB_txn *txn, const char *name, const ddb_value *def, ddb_error *err);

#endif
