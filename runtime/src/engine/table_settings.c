/* engine/: a table's settings kept in its stored definition besides its
 * keys and indexes: the creation time and TableId (a random UUID) stamped
 * by CreateTable, deletion protection, the provisioned throughput and when
 * the table last became on demand (UpdateTable's billing mode).  A
 * definition stored before these were kept has none of them and loads as
 * created at 0, with no TableId, unprotected.  DeleteTable asks
 * ddbi_table_delete_allowed; UpdateTable (table_update.c) edits the
 * definition with ddbi_table_settings_edit.  Called by table.c; may call
 * core/, the clock (expiry.c) and libuuid. */
#include "core/error.h"
#include "engine/engine.h"

#include <stdio.h>
#include <string.h>
#include <uuid/uuid.h>

#define F_CREATED "created_ms"
#define F_ID "table_id"
#define F_PROTECTED "deletion_protection"
#define F_ON_DEMAND "on_demand_ms"

/* DynamoDB's limit of a table's provisioned units (ServiceQuotas.html:
 * 40,000 read and write request units per table by default). */
#define MAX_UNITS 40000

static int set_i64(ddb_arena *a, ddb_value *m, const char *k, int64_t v)
{
    ddb_value *n = ddb_v_i64(a, v);
    return n ? ddb_map_set(a, m, k, n) : DDB_ENOMEM;
}

int ddbi_table_settings_stamp(ddbi_engine *db, ddb_arena *a, ddb_value *def_map, const ddb_table_def *d)
{
    uuid_t u;
    char id[37];
    uuid_generate_random(u);
    uuid_unparse_lower(u, id);
    int64_t now = ddbi_engine_clock_ms(db);
    ddb_value *s = ddb_v_str(a, id);
    int rc = set_i64(a, def_map, F_CREATED, now) | (s ? ddb_map_set(a, def_map, F_ID, s) : DDB_ENOMEM) |
             set_i64(a, def_map, F_PROTECTED, d->deletion_protection ? 1 : 0);
    if (!d->rcu && !d->wcu)
        rc |= set_i64(a, def_map, F_ON_DEMAND, now);
    return rc ? DDB_ENOMEM : DDB_OK;
}

static int64_t get_i64(const ddb_item *def, const char *k)
{
    int64_t x = 0;
    const ddb_value *v = ddb_item_get(def, k);
    if (v && v->type == DDB_TN && ddb_value_to_i64(v, &x))
        x = 0;
    return x;
}

void ddbi_table_settings_load(ddb_table_rt *t, const ddb_item *def)
{
    t->created_ms = get_i64(def, F_CREATED);
    t->on_demand_ms = get_i64(def, F_ON_DEMAND);
    t->deletion_protection = get_i64(def, F_PROTECTED) != 0;
    const ddb_value *id = ddb_item_get(def, F_ID);
    t->table_id[0] = '\0';
    if (id && id->type == DDB_TS && id->len < sizeof t->table_id && !memchr(id->u.s, 0, id->len)) {
        memcpy(t->table_id, id->u.s, id->len);
        t->table_id[id->len] = '\0';
    }
}

void ddbi_table_settings_describe(const ddb_table_rt *t, ddb_table_desc *d)
{
    d->created_ms = t->created_ms;
    d->on_demand_since_ms = t->on_demand_ms;
    memcpy(d->table_id, t->table_id, sizeof d->table_id);
    d->def.deletion_protection = t->deletion_protection;
}

int ddbi_table_delete_allowed(const ddb_table_rt *t, ddb_error *err)
{
    /* DeleteTable on a protected table: DynamoDB's ValidationException
     * (API_DeleteTable; the developer guide's "Using deletion protection") */
    if (t->deletion_protection)
        return ddbi_fail(err, DDB_EVALIDATION,
                         "Resource cannot be deleted as it is currently protected against deletion. Disable "
                         "deletion protection first.");
    return DDB_OK;
}

/* ---- UpdateTable: throughput / billing mode, deletion protection ---- */

int ddbi_table_settings_edit(ddb_arena *a, ddb_item *def, const ddb_table_update *u, int64_t now_ms)
{
    ddb_value *m = (ddb_value *)ddb_item_map(def);
    int rc = DDB_OK;
    if (u->set_throughput) {
        bool was_on_demand = get_i64(def, "rcu") == 0 && get_i64(def, "wcu") == 0;
        rc |= set_i64(a, m, "rcu", (int64_t)u->rcu) | set_i64(a, m, "wcu", (int64_t)u->wcu);
        if (!u->rcu && !was_on_demand)
            rc |= set_i64(a, m, F_ON_DEMAND, now_ms);
    }
    if (u->set_deletion_protection)
        rc |= set_i64(a, m, F_PROTECTED, u->deletion_protection ? 1 : 0);
    return rc ? DDB_ENOMEM : DDB_OK;
}

int ddbi_table_settings_check(const ddb_table_update *u, ddb_error *err)
{
    if (u->set_throughput && ((!u->rcu) != (!u->wcu) || u->rcu > MAX_UNITS || u->wcu > MAX_UNITS))
        return ddbi_fail(err, DDB_EVALIDATION,
                         "UpdateTable: ReadCapacityUnits and WriteCapacityUnits must both be 1 to %d (both 0: on "
                         "demand); given %llu and %llu",
                         MAX_UNITS, (unsigned long long)u->rcu, (unsigned long long)u->wcu);
    return DDB_OK;
}
