/* api/: statistics, consistency checks and reports of <ddb/ddb.h>
 * (ddb_table_stats, ddb_check_table, ddb_check_catalog, ddb_table_report_build): argument
 * checks, then the backend's operation.  Calls only the backend
 * (backend.h) and core/. */
#include "api/api.h"
#include "core/error.h"

#include <string.h>

int ddb_table_stats(ddb *db, const char *table, ddb_arena *a, ddb_partition_stats **parts, size_t *count,
                    ddb_error *err)
{
    if (parts)
        *parts = NULL;
    if (count)
        *count = 0;
    if (db && !db->ops->table_stats)
        return ddbi_api_notsup(db, "ddb_table_stats", err);
    if (!db || !table || !a || !parts || !count)
        return ddbi_fail(err, DDB_EINVAL, "ddb_table_stats: db, table, arena, parts and count are required");
    return db->ops->table_stats(db->impl, table, a, parts, count, err);
}

int ddb_check_table(ddb *db, const char *table, ddb_check_report *report, ddb_error *err)
{
    if (report)
        memset(report, 0, sizeof *report);
    if (db && !db->ops->check_table)
        return ddbi_api_notsup(db, "ddb_check_table", err);
    if (!db || !table)
        return ddbi_fail(err, DDB_EINVAL, "ddb_check_table: db and table are required");
    return db->ops->check_table(db->impl, table, report, err);
}

int ddb_check_catalog(ddb *db, ddb_check_report *report, ddb_error *err)
{
    if (report)
        memset(report, 0, sizeof *report);
    if (db && !db->ops->check_catalog)
        return ddbi_api_notsup(db, "ddb_check_catalog", err);
    if (!db)
        return ddbi_fail(err, DDB_EINVAL, "ddb_check_catalog: db is required");
    return db->ops->check_catalog(db->impl, report, err);
}

int ddb_table_report_build(ddb *db, const char *table, size_t top, ddb_arena *a, ddb_table_report **out,
                           ddb_error *err)
{
    if (out)
        *out = NULL;
    if (db && !db->ops->table_report_build)
        return ddbi_api_notsup(db, "ddb_table_report_build", err);
    if (!db || !table || !a || !out)
        return ddbi_fail(err, DDB_EINVAL, "ddb_table_report_build: db, table, arena and out are required");
    return db->ops->table_report_build(db->impl, table, top, a, out, err);
}
