/* engine/: UpdateTable's table settings (ddb_update_table): the billing
 * mode with the provisioned throughput, and deletion protection, written
 * into the stored definition in one write transaction; the table cache
 * reloads them (throttle mode then uses the new throughput).  May call
 * table.c (the stored definition), table_settings.c and core/. */
#include "core/error.h"
#include "engine/engine.h"

typedef struct update_ctx {
    const char *table;
    const ddb_table_update *u;
    int64_t now;
    ddb_error *err;
} update_ctx;

static int edit(ddb_arena *a, ddb_item *def, void *vctx)
{
    const update_ctx *cx = vctx;
    return ddbi_table_settings_edit(a, def, cx->u, cx->now);
}

static int update_fn(ddbi_engine *db, MDB_txn *txn, void *vctx)
{
    update_ctx *cx = vctx;
    ddb_table_rt *t;
    int rc = ddbi_table_get(db, txn, cx->table, &t, cx->err);
    if (rc || (rc = ddbi_table_def_edit(db, txn, cx->table, edit, cx, cx->err)))
        return rc;
    rc = ddbi_schema_bump_gen(db, txn);
    return rc ? ddbi_mdb_fail(cx->err, rc, "UpdateTable") : DDB_OK;
}

int ddbi_engine_update_table(void *impl, const char *table, const ddb_table_update *u, ddb_error *err)
{
    ddbi_engine *db = impl;
    int rc = ddbi_table_settings_check(u, err);
    if (rc)
        return rc;
    update_ctx cx = {table, u, ddbi_engine_clock_ms(db), err};
    return ddbi_run_write(db, update_fn, &cx, true, err);
}
