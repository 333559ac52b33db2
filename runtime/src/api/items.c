/* api/: the single-item operations of <ddb/ddb.h> (PutItem, DeleteItem,
 * UpdateItem, GetItem): argument checks, the injected faults (faults.c),
 * then the backend's operation.  Calls only the backend (backend.h),
 * this room's faults and core/. */
#include "api/api.h"
#include "core/error.h"

#include <string.h>

/* ReturnValues of a single-item write (the same for every backend). */
static int check_return_values(const char *op, bool update, const ddb_write_opts *opts, ddb_arena *a,
                               ddb_write_result *res, ddb_error *err)
{
    ddb_return_values rv = opts ? opts->return_values : DDB_RETURN_NONE;
    if ((unsigned)rv > DDB_RETURN_UPDATED_NEW)
        return ddbi_fail(err, DDB_EINVAL, "%s: unknown ReturnValues %d", op, (int)rv);
    if (!update && rv != DDB_RETURN_NONE && rv != DDB_RETURN_ALL_OLD)
        return ddbi_fail(err, DDB_EVALIDATION, "ReturnValues can only be ALL_OLD or NONE (%s)", op);
    if (rv != DDB_RETURN_NONE && (!a || !res))
        return ddbi_fail(err, DDB_EINVAL, "ReturnValues needs an arena and a result");
    /* ReturnValuesOnConditionCheckFailure: ALL_OLD or NONE (PutItem, UpdateItem, DeleteItem) */
    ddb_return_values rf = opts ? opts->return_on_condition_failure : DDB_RETURN_NONE;
    if (rf != DDB_RETURN_NONE && rf != DDB_RETURN_ALL_OLD)
        return ddbi_fail(err, DDB_EVALIDATION, "ReturnValuesOnConditionCheckFailure can only be ALL_OLD or NONE (%s)",
                         op);
    if (rf != DDB_RETURN_NONE && (!a || !res))
        return ddbi_fail(err, DDB_EINVAL, "ReturnValuesOnConditionCheckFailure needs an arena and a result");
    if (res)
        memset(res, 0, sizeof *res);
    return DDB_OK;
}

int ddb_put_item(ddb *db, const char *table, const ddb_item *item, const ddb_write_opts *opts, ddb_arena *a,
                 ddb_write_result *res, ddb_error *err)
{
    if (db && !db->ops->put_item)
        return ddbi_api_notsup(db, "ddb_put_item", err);
    if (!db || !table || !item)
        return ddbi_fail(err, DDB_EINVAL, "PutItem: db, table, item are required");
    ddbi_fault_call fc = {.op = DDB_OP_PUT, .what = "PutItem", .table = table};
    bool after;
    int rc = check_return_values("PutItem", false, opts, a, res, err);
    if (rc || (rc = ddbi_fault_check(db, &fc, &after, err)))
        return rc;
    return ddbi_fault_after(&fc, after, db->ops->put_item(db->impl, table, item, opts, a, res, err), err);
}

int ddb_delete_item(ddb *db, const char *table, const ddb_item *key, const ddb_write_opts *opts, ddb_arena *a,
                    ddb_write_result *res, ddb_error *err)
{
    if (db && !db->ops->delete_item)
        return ddbi_api_notsup(db, "ddb_delete_item", err);
    if (!db || !table || !key)
        return ddbi_fail(err, DDB_EINVAL, "DeleteItem: db, table, item are required");
    ddbi_fault_call fc = {.op = DDB_OP_DELETE, .what = "DeleteItem", .table = table};
    bool after;
    int rc = check_return_values("DeleteItem", false, opts, a, res, err);
    if (rc || (rc = ddbi_fault_check(db, &fc, &after, err)))
        return rc;
    return ddbi_fault_after(&fc, after, db->ops->delete_item(db->impl, table, key, opts, a, res, err), err);
}

int ddb_update_item(ddb *db, const char *table, const ddb_item *key, const ddb_expr *update,
                    const ddb_write_opts *opts, ddb_arena *a, ddb_write_result *res, ddb_error *err)
{
    if (db && !db->ops->update_item)
        return ddbi_api_notsup(db, "ddb_update_item", err);
    if (!db || !table || !key || !update)
        return ddbi_fail(err, DDB_EINVAL, "UpdateItem: db, table, key and update are required");
    ddbi_fault_call fc = {.op = DDB_OP_UPDATE, .what = "UpdateItem", .table = table};
    bool after;
    int rc = check_return_values("UpdateItem", true, opts, a, res, err);
    if (rc || (rc = ddbi_fault_check(db, &fc, &after, err)))
        return rc;
    return ddbi_fault_after(&fc, after, db->ops->update_item(db->impl, table, key, update, opts, a, res, err), err);
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
    ddbi_fault_call fc = {.op = DDB_OP_GET, .what = "GetItem", .table = table};
    bool after;
    int rc = ddbi_fault_check(db, &fc, &after, err);
    return rc ? rc : db->ops->get_item(db->impl, table, key, opts, a, out, cap, err);
}
