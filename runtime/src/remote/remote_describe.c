/* remote/: DescribeTable and DescribeTimeToLive, shared by the table
 * operations (remote_table.c) and the key schema cache (remote_keys.c);
 * the settings a TableDescription carries besides the definition
 * (CreationDateTime, TableId, DeletionProtectionEnabled,
 * BillingModeSummary.LastUpdateToPayPerRequestDateTime). */
#include "remote/remote_wire.h"

#include "core/error.h"

#include <string.h>

int ddbi_remote_get_ttl(ddb_remote *r, const char *table, ddb_arena *a, const char **attr, ddb_error *err)
{
    *attr = NULL;
    json_t *req = json_pack("{s:s}", "TableName", table), *resp = NULL;
    if (!req)
        return ddbi_fail_oom(err, "building a request");
    ddb_error e2 = {0};
    int rc = ddbi_remote_call(r, "DescribeTimeToLive", req, &resp, NULL, &e2);
    json_decref(req);
    if (rc == DDB_ENOTSUP)
        return DDB_OK;
    if (rc) {
        if (err)
            *err = e2;
        return rc;
    }
    const json_t *d = json_object_get(resp, "TimeToLiveDescription");
    const json_t *st = json_object_get(d, "TimeToLiveStatus"), *an = json_object_get(d, "AttributeName");
    if (d && (!json_is_object(d) || (st && !json_is_string(st)) || (an && !json_is_string(an))))
        rc = ddbi_remote_bad(err, "DescribeTimeToLive", "TimeToLiveDescription has the wrong shape");
    else if (json_is_string(st) && json_is_string(an) &&
             (!strcmp(json_string_value(st), "ENABLED") || !strcmp(json_string_value(st), "ENABLING"))) {
        size_t n = json_string_length(an) + 1;
        char *c = ddb_arena_alloc(a, n);
        if (!c)
            rc = ddbi_fail_oom(err, __func__);
        else
            *attr = memcpy(c, json_string_value(an), n);
    }
    json_decref(resp);
    return rc;
}

/* Epoch seconds (a JSON number) as ms; 0 when absent or out of range. */
static int64_t seconds_ms(const json_t *v)
{
    double s = json_is_number(v) ? json_number_value(v) : 0;
    return s > 0 && s < 1e12 ? (int64_t)(s * 1000.0 + 0.5) : 0;
}

static void parse_settings(const json_t *t, ddb_table_desc *d)
{
    d->created_ms = seconds_ms(json_object_get(t, "CreationDateTime"));
    d->on_demand_since_ms =
        seconds_ms(json_object_get(json_object_get(t, "BillingModeSummary"), "LastUpdateToPayPerRequestDateTime"));
    const char *id = json_string_value(json_object_get(t, "TableId"));
    if (id && strlen(id) < sizeof d->table_id)
        memcpy(d->table_id, id, strlen(id) + 1);
    d->def.deletion_protection = json_is_true(json_object_get(t, "DeletionProtectionEnabled"));
}

int ddbi_remote_describe(ddb_remote *r, const char *name, ddb_arena *a, ddb_table_desc **out, bool with_ttl,
                         ddb_error *err)
{
    *out = NULL;
    json_t *req = json_pack("{s:s}", "TableName", name), *resp = NULL;
    if (!req)
        return ddbi_fail(err, DDB_EVALIDATION, "table name \"%.64s\" is not UTF-8", name);
    int rc = ddbi_remote_call(r, "DescribeTable", req, &resp, NULL, err);
    json_decref(req);
    if (!rc) {
        const char *status;
        bool active;
        rc = ddbi_remote_parse_table("DescribeTable", json_object_get(resp, "Table"), a, out, &status, &active, err);
        if (!rc)
            parse_settings(json_object_get(resp, "Table"), *out);
    }
    json_decref(resp);
    if (!rc && with_ttl)
        rc = ddbi_remote_get_ttl(r, name, a, &(*out)->def.ttl_attribute, err);
    if (rc)
        *out = NULL;
    return rc;
}
