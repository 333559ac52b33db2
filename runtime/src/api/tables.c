/* api/: the table operations of <ddb/ddb.h> (CreateTable, DeleteTable,
 * DescribeTable, ListTables, UpdateTable adding an index or changing the
 * table's settings, table metadata): argument checks, then the backend's
 * operation.  Calls only the backend
 * (backend.h) and core/. */
#include "api/api.h"
#include "core/error.h"

int ddb_create_table(ddb *db, const ddb_table_def *def, ddb_error *err)
{
    if (db && !db->ops->create_table)
        return ddbi_api_notsup(db, "ddb_create_table", err);
    if (!db || !def)
        return ddbi_fail(err, DDB_EINVAL, "ddb_create_table: db and def are required");
    return db->ops->create_table(db->impl, def, err);
}

int ddb_delete_table(ddb *db, const char *name, ddb_error *err)
{
    if (db && !db->ops->delete_table)
        return ddbi_api_notsup(db, "ddb_delete_table", err);
    if (!db || !name)
        return ddbi_fail(err, DDB_EINVAL, "ddb_delete_table: db and name are required");
    return db->ops->delete_table(db->impl, name, err);
}

int ddb_describe_table(ddb *db, const char *name, ddb_arena *a, ddb_table_desc **out, ddb_error *err)
{
    if (out)
        *out = NULL;
    if (db && !db->ops->describe_table)
        return ddbi_api_notsup(db, "ddb_describe_table", err);
    if (!db || !name || !a || !out)
        return ddbi_fail(err, DDB_EINVAL, "ddb_describe_table: db, name, arena and out are required");
    return db->ops->describe_table(db->impl, name, a, out, err);
}

int ddb_list_tables(ddb *db, ddb_arena *a, const char ***names, size_t *count, ddb_error *err)
{
    if (db && !db->ops->list_tables)
        return ddbi_api_notsup(db, "ddb_list_tables", err);
    if (!db || !a || !names || !count)
        return ddbi_fail(err, DDB_EINVAL, "ddb_list_tables: db, arena, names and count are required");
    *names = NULL;
    *count = 0;
    return db->ops->list_tables(db->impl, a, names, count, err);
}

int ddb_add_index(ddb *db, const char *table, const ddb_index_def *x, uint64_t *backfilled, uint64_t *skipped,
                  ddb_error *err)
{
    if (db && !db->ops->add_index)
        return ddbi_api_notsup(db, "ddb_add_index", err);
    if (!db || !table || !x)
        return ddbi_fail(err, DDB_EINVAL, "ddb_add_index: db, table and index are required");
    return db->ops->add_index(db->impl, table, x, backfilled, skipped, err);
}

int ddb_delete_index(ddb *db, const char *table, const char *index, ddb_error *err)
{
    if (db && !db->ops->delete_index)
        return ddbi_api_notsup(db, "ddb_delete_index", err);
    if (!db || !table || !index)
        return ddbi_fail(err, DDB_EINVAL, "ddb_delete_index: db, table and index are required");
    return db->ops->delete_index(db->impl, table, index, err);
}

int ddb_update_table(ddb *db, const char *table, const ddb_table_update *u, ddb_error *err)
{
    if (db && !db->ops->update_table)
        return ddbi_api_notsup(db, "ddb_update_table", err);
    if (!db || !table || !u)
        return ddbi_fail(err, DDB_EINVAL, "ddb_update_table: db, table and update are required");
    return db->ops->update_table(db->impl, table, u, err);
}

int ddb_table_meta_put(ddb *db, const char *table, const char *key, const void *val, size_t len, ddb_error *err)
{
    if (db && !db->ops->table_meta_put)
        return ddbi_api_notsup(db, "ddb_table_meta_put", err);
    if (!db || !table || !key || (len && !val))
        return ddbi_fail(err, DDB_EINVAL, "ddb_table_meta_put: db, table, key and value are required");
    return db->ops->table_meta_put(db->impl, table, key, val, len, err);
}

int ddb_table_meta_get(ddb *db, const char *table, const char *key, ddb_arena *a, void **val, size_t *len,
                       ddb_error *err)
{
    if (db && !db->ops->table_meta_get)
        return ddbi_api_notsup(db, "ddb_table_meta_get", err);
    if (!db || !table || !key || !a || !val || !len)
        return ddbi_fail(err, DDB_EINVAL, "ddb_table_meta_get: db, table, key, arena, val and len are required");
    return db->ops->table_meta_get(db->impl, table, key, a, val, len, err);
}
