/* remote/: DescribeTable and DescribeTimeToLive, shared by the table
 * operations (remote_table.c) and the key schema cache (remote_keys.c). */
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
    }
    json_decref(resp);
    if (!rc && with_ttl)
        rc = ddbi_remote_get_ttl(r, name, a, &(*out)->def.ttl_attribute, err);
    if (rc)
        *out = NULL;
    return rc;
}
