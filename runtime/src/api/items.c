/* api/: the single-item operations of <ddb/ddb.h> (PutItem, DeleteItem,
 * UpdateItem, GetItem): argument checks, then the backend's operation.
 * Calls only the backend (backend.h) and core/. */
#include "api/api.h"
#include "core/error.h"

#include <string.h>

int ddb_put_item(ddb *db, const char *table, const ddb_item *item, const ddb_write_opts *opts, ddb_arena *a,
                 ddb_write_result *res, ddb_error *err)
{
    if (db && !db->ops->put_item)
        return ddbi_api_notsup(db, "ddb_put_item", err);
    if (!db || !table || !item)
        return ddbi_fail(err, DDB_EINVAL, "PutItem: db, table, item are required");
    return db->ops->put_item(db->impl, table, item, opts, a, res, err);
}

int ddb_delete_item(ddb *db, const char *table, const ddb_item *key, const ddb_write_opts *opts, ddb_arena *a,
                    ddb_write_result *res, ddb_error *err)
{
    if (db && !db->ops->delete_item)
        return ddbi_api_notsup(db, "ddb_delete_item", err);
    if (!db || !table || !key)
        return ddbi_fail(err, DDB_EINVAL, "DeleteItem: db, table, item are required");
    return db->ops->delete_item(db->impl, table, key, opts, a, res, err);
}

int ddb_update_item(ddb *db, const char *table, const ddb_item *key, const ddb_expr *update,
                    const ddb_write_opts *opts, ddb_arena *a, ddb_write_result *res, ddb_error *err)
{
    if (db && !db->ops->update_item)
        return ddbi_api_notsup(db, "ddb_update_item", err);
    if (!db || !table || !key || !update)
        return ddbi_fail(err, DDB_EINVAL, "UpdateItem: db, table, key and update are required");
    return db->ops->update_item(db->impl, table, key, update, opts, a, res, err);
}

int ddb_get_item(ddb *db, const char *table, const ddb_item *key, const ddb_get_opts *opts, ddb_arena *a,
                 ddb_item **out, ddb_capacity *cap, ddb_error *err)
{
    if (out)
        *out = NULL;
    if (db && !db->ops->get_item)
        return ddbi_api_notsup(db, "ddb_get_item", err);
    if (!db || !table || !key || !a || !out)
        return ddbi_fail(err, DDB_EINVAL, "GetItem: db, table, key, arena and out are required");
    if (cap)
        memset(cap, 0, sizeof *cap);
    return db->ops->get_item(db->impl, table, key, opts, a, out, cap, err);
}
