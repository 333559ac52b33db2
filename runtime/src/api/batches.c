/* api/: BatchWriteItem, BatchGetItem, TransactWriteItems and
 * TransactGetItems of <ddb/ddb.h>: argument checks, the injected faults
 * (faults.c), then the backend's operation (which applies DynamoDB's
 * request rules).  Calls only the backend (backend.h), this room's faults
 * and core/. */
#include "api/api.h"
#include "core/error.h"

#include <stddef.h>
#include <string.h>

int ddb_batch_write(ddb *db, const ddb_batch_write_op *ops, size_t n, ddb_return_capacity rc, ddb_capacity *cap,
                    ddb_error *err)
{
    if (db && !db->ops->batch_write)
        return ddbi_api_notsup(db, "ddb_batch_write", err);
    if (!db || (n && !ops))
        return ddbi_fail(err, DDB_EINVAL, "BatchWriteItem: db and ops are required");
    if (cap)
        memset(cap, 0, sizeof *cap);
    ddbi_fault_call fc = {.op = DDB_OP_BATCH_WRITE, .what = "BatchWriteItem", .reqs = ops, .n = n,
                          .stride = sizeof *ops, .table_off = offsetof(ddb_batch_write_op, table)};
    bool after;
    int r = ddbi_fault_check(db, &fc, &after, err);
    if (r)
        return r;
    r = db->ops->batch_write(db->impl, ops, fc.processed ? fc.processed : n, rc, cap, err);
    return ddbi_fault_after(&fc, after, r, err);
}

int ddb_transact_write(ddb *db, const ddb_tx_op *ops, size_t n, ddb_return_capacity rc, ddb_arena *a,
                       ddb_tx_result *res, ddb_error *err)
{
    ddb_tx_opts o = {.return_capacity = rc};
    return ddb_transact_write_opts(db, ops, n, &o, a, res, err);
}

/* The longest ClientRequestToken (TransactWriteItems, Request Parameters). */
#define TOKEN_MAX 36

int ddb_transact_write_opts(ddb *db, const ddb_tx_op *ops, size_t n, const ddb_tx_opts *opts, ddb_arena *a,
                            ddb_tx_result *res, ddb_error *err)
{
    if (db && !db->ops->transact_write)
        return ddbi_api_notsup(db, "ddb_transact_write", err);
    if (!db || (n && !ops) || !a || !res)
        return ddbi_fail(err, DDB_EINVAL, "TransactWriteItems: db, ops, arena and result are required");
    memset(res, 0, sizeof *res);
    ddb_tx_opts o = opts ? *opts : (ddb_tx_opts){0};
    if (o.client_request_token) {
        size_t len = strnlen(o.client_request_token, TOKEN_MAX + 1);
        if (len < 1 || len > TOKEN_MAX)
            return ddbi_fail(err, DDB_EVALIDATION,
                             "1 validation error detected: Value '%.40s%s' at 'clientRequestToken' failed to satisfy "
                             "constraint: Member must have length %s %d",
                             o.client_request_token, len > TOKEN_MAX ? "..." : "",
                             len ? "less than or equal to" : "greater than or equal to", len ? TOKEN_MAX : 1);
    }
    ddbi_fault_call fc = {.op = DDB_OP_TRANSACT_WRITE, .what = "TransactWriteItems", .reqs = ops, .n = n,
                          .stride = sizeof *ops, .table_off = offsetof(ddb_tx_op, table), .a = a, .res = res};
    bool after;
    int rc = ddbi_fault_check(db, &fc, &after, err);
    return rc ? rc : ddbi_fault_after(&fc, after, db->ops->transact_write(db->impl, ops, n, &o, a, res, err), err);
}

int ddbi_api_check_read_many(const ddb *db, const char *what, size_t n, const void *ops, ddb_arena *a,
                             ddb_item **items, ddb_capacity *cap, ddb_error *err)
{
    if (!db || (n && (!ops || !items)) || !a)
        return ddbi_fail(err, DDB_EINVAL, "%s: db, requests, arena and items are required", what);
    if (cap)
        memset(cap, 0, sizeof *cap);
    return DDB_OK;
}

int ddbi_batch_get_begin(ddb *db, const ddb_batch_get_op *ops, size_t n, ddb_arena *a, ddb_item **items,
                         ddb_capacity *cap, ddbi_fault_call *fc, bool *after, ddb_error *err)
{
    *fc = (ddbi_fault_call){.op = DDB_OP_BATCH_GET, .what = "BatchGetItem", .reqs = ops, .n = n,
                            .stride = sizeof *ops, .table_off = offsetof(ddb_batch_get_op, table)};
    *after = false;
    int r = ddbi_api_check_read_many(db, "BatchGetItem", n, ops, a, items, cap, err);
    return r ? r : ddbi_fault_check(db, fc, after, err);
}

int ddb_batch_get(ddb *db, const ddb_batch_get_op *ops, size_t n, ddb_arena *a, ddb_item **items,
                  ddb_return_capacity rc, ddb_capacity *cap, ddb_error *err)
{
    if (db && !db->ops->batch_get)
        return ddbi_api_notsup(db, "ddb_batch_get", err);
    ddbi_fault_call fc;
    bool after;
    int r = ddbi_batch_get_begin(db, ops, n, a, items, cap, &fc, &after, err);
    return r ? r
             : ddbi_fault_after(&fc, after,
                                db->ops->batch_get(db->impl, ops, fc.processed ? fc.processed : n, a, items, rc, cap,
                                                   err),
                                err);
}

int ddb_transact_get(ddb *db, const ddb_tx_get *gets, size_t n, ddb_arena *a, ddb_item **items,
                     ddb_return_capacity rc, ddb_capacity *cap, ddb_error *err)
{
    if (db && !db->ops->transact_get)
        return ddbi_api_notsup(db, "ddb_transact_get", err);
    int r = ddbi_api_check_read_many(db, "TransactGetItems", n, gets, a, items, cap, err);
    if (!r)
        r = ddbi_fault_read_many(db, DDB_OP_TRANSACT_GET, "TransactGetItems", gets, n, sizeof *gets,
                                 offsetof(ddb_tx_get, table), err);
    return r ? r : db->ops->transact_get(db->impl, gets, n, a, items, rc, cap, err);
}
