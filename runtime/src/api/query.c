/* api/: Query and Scan of <ddb/ddb.h>: argument checks, the injected
 * faults (faults.c), then the backend's operation.  Calls only the backend
 * (backend.h), this room's faults and core/. */
#include "api/api.h"
#include "core/error.h"

#include <string.h>

int ddb_query(ddb *db, const ddb_query_params *q, ddb_arena *a, ddb_page *out, ddb_error *err)
{
    if (db && !db->ops->query)
        return ddbi_api_notsup(db, "ddb_query", err);
    if (!db || !q || !q->table || (!q->pk && !q->key_condition) || !a || !out)
        return ddbi_fail(err, DDB_EINVAL, "Query: db, table, pk (or key_condition), arena and out are required");
    memset(out, 0, sizeof *out);
    ddbi_fault_call fc = {.op = DDB_OP_QUERY, .what = "Query", .table = q->table};
    bool after;
    int rc = ddbi_fault_check(db, &fc, &after, err);
    return rc ? rc : db->ops->query(db->impl, q, a, out, err);
}

int ddb_scan(ddb *db, const ddb_scan_params *s, ddb_arena *a, ddb_page *out, ddb_error *err)
{
    if (db && !db->ops->scan)
        return ddbi_api_notsup(db, "ddb_scan", err);
    if (!db || !s || !s->table || !a || !out)
        return ddbi_fail(err, DDB_EINVAL, "Scan: db, table, arena and out are required");
    memset(out, 0, sizeof *out);
    ddbi_fault_call fc = {.op = DDB_OP_SCAN, .what = "Scan", .table = s->table};
    bool after;
    int rc = ddbi_fault_check(db, &fc, &after, err);
    return rc ? rc : db->ops->scan(db->impl, s, a, out, err);
}
