/* ddb serve: a table's control-plane settings as DynamoDB's API carries
 * them: in a TableDescription (TableId, CreationDateTime,
 * BillingModeSummary, DeletionProtectionEnabled, LatestStreamArn and
 * LatestStreamLabel), UpdateTable's BillingMode, ProvisionedThroughput and
 * DeletionProtectionEnabled (ddb_update_table), and UpdateTable's rules
 * for turning a stream on and off (API_UpdateTable; API_TableDescription;
 * API_BillingModeSummary).  Calls wire.c, reply.c, op_streams.c and
 * libddb. */
#include "serve.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

void settings_describe(serve_req *r, json_t *t, const ddb_table_desc *d, const ddb_stream_desc *sd)
{
    /* a table created before ddb kept its TableId has none to give */
    if (d->table_id[0])
        json_object_set_new(t, "TableId", json_string(d->table_id));
    json_object_set_new(t, "CreationDateTime", json_real((double)d->created_ms / 1000.0));
    json_object_set_new(t, "DeletionProtectionEnabled", json_boolean(d->def.deletion_protection));
    bool on_demand = !d->def.rcu && !d->def.wcu;
    json_t *bm = json_pack("{s:s}", "BillingMode", on_demand ? "PAY_PER_REQUEST" : "PROVISIONED");
    if (d->on_demand_since_ms)
        json_object_set_new(bm, "LastUpdateToPayPerRequestDateTime", json_real((double)d->on_demand_since_ms / 1000.0));
    json_object_set_new(t, "BillingModeSummary", bm);
    /* the latest stream stays named after it is disabled (DescribeStream
     * then answers it DISABLED) */
    if (sd->spec.view != DDB_STREAM_NONE || sd->enabled_ms) {
        const char *label = stream_label(r, sd->enabled_ms);
        json_object_set_new(t, "LatestStreamArn", json_string(stream_arn(r, d->def.name, label)));
        json_object_set_new(t, "LatestStreamLabel", json_string(label));
    }
}

int settings_stream_check(serve_req *r, const char *table, const ddb_stream_spec *s)
{
    ddb_stream_desc sd;
    int rc = ddb_stream_describe(r->srv->db, table, &sd, &r->err);
    if (rc)
        return serve_fail_code(r, rc);
    /* enabling an enabled stream (whatever the view) or disabling a
     * disabled one is refused (Alternator's test_streams.py, written to
     * pass on DynamoDB: test_streams_enable_on_enabled,
     * test_streams_disable_on_disabled, test_streams_change_type) */
    if (s->view != DDB_STREAM_NONE && sd.spec.view != DDB_STREAM_NONE)
        return serve_validation(r, "Table already has an enabled stream: TableName: %s", table);
    if (s->view == DDB_STREAM_NONE && sd.spec.view == DDB_STREAM_NONE)
        return serve_validation(r, "Table has no stream to disable: TableName: %s", table);
    return 0;
}

/* ProvisionedThroughput {ReadCapacityUnits, WriteCapacityUnits}: 1 to 40,000 each. */
static int throughput(serve_req *r, const json_t *pt, uint64_t *rcu, uint64_t *wcu)
{
    bool p1, p2;
    if (w_uint(r, pt, "ReadCapacityUnits", "provisionedThroughput.readCapacityUnits", 1, 40000, rcu, &p1) ||
        w_uint(r, pt, "WriteCapacityUnits", "provisionedThroughput.writeCapacityUnits", 1, 40000, wcu, &p2))
        return -1;
    if (!p1 || !p2)
        return serve_validation(r, "1 validation error detected: Value null at 'provisionedThroughput.%s' failed to "
                                   "satisfy constraint: Member must not be null",
                                p1 ? "writeCapacityUnits" : "readCapacityUnits");
    return 0;
}

/* A table with global secondary indexes turns PROVISIONED only with each
 * index's throughput (API_UpdateTable; dynalite answers the same), which
 * ddb serve cannot set (an index's Update is refused): the error names
 * them. */
static int provisioned_indexes_missing(serve_req *r, const ddb_table_desc *d)
{
    char names[DDB_MAX_GSI * 257] = "";
    size_t n = 0;
    for (size_t i = 0; i < d->def.n_indexes; i++) {
        if (d->def.indexes[i].local)
            continue;
        int w = snprintf(names + n, sizeof names - n, "%s%s", n ? "," : "", d->def.indexes[i].name);
        n = w < 0 || (size_t)w >= sizeof names - n ? sizeof names - 1 : n + (size_t)w;
    }
    if (!n)
        return 0;
    return serve_validation(r, "One or more parameter values were invalid: ProvisionedThroughput must be specified "
                               "for index: %s",
                            names);
}

int settings_update(serve_req *r, const char *table)
{
    const char *billing = NULL;
    const json_t *pt = json_object_get(r->in, "ProvisionedThroughput");
    const json_t *dp = json_object_get(r->in, "DeletionProtectionEnabled");
    if (pt && json_is_null(pt))
        pt = NULL;
    if (w_str(r, r->in, "BillingMode", &billing))
        return -1;
    if (!billing && !pt && (!dp || json_is_null(dp)))
        return 0;
    ddb_table_desc *d;
    int rc = ddb_describe_table(r->srv->db, table, r->a, &d, &r->err);
    if (rc)
        return serve_fail_code(r, rc);
    ddb_table_update u = {0};
    if (dp && !json_is_null(dp)) {
        if (w_bool(r, r->in, "DeletionProtectionEnabled", &u.deletion_protection))
            return -1;
        u.set_deletion_protection = true;
    }
    bool on_demand_now = !d->def.rcu && !d->def.wcu;
    bool to_on_demand = billing ? strcmp(billing, "PAY_PER_REQUEST") == 0 : on_demand_now;
    if (billing && !to_on_demand && strcmp(billing, "PROVISIONED") != 0)
        return serve_validation(r, "1 validation error detected: Value '%s' at 'billingMode' failed to satisfy "
                                   "constraint: Member must satisfy enum value set: [PROVISIONED, PAY_PER_REQUEST]",
                                billing);
    if (to_on_demand && pt)
        return serve_validation(r, "One or more parameter values were invalid: Neither ReadCapacityUnits nor "
                                   "WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST");
    if (!to_on_demand && on_demand_now && !pt)
        return serve_validation(r, "One or more parameter values were invalid: ProvisionedThroughput must be "
                                   "specified when BillingMode is PROVISIONED");
    if (!to_on_demand && on_demand_now && provisioned_indexes_missing(r, d))
        return -1;
    if (pt) {
        if (throughput(r, pt, &u.rcu, &u.wcu))
            return -1;
        /* the same units again is DynamoDB's ValidationException (API_UpdateTable) */
        if (u.rcu == d->def.rcu && u.wcu == d->def.wcu && !billing)
            return serve_validation(
                r,
                "The provisioned throughput for the table will not change. The requested value equals the current "
                "value. Current ReadCapacityUnits provisioned for the table: %" PRIu64 ". Requested ReadCapacityUnits: "
                "%" PRIu64 ". Current WriteCapacityUnits provisioned for the table: %" PRIu64 ". Requested "
                "WriteCapacityUnits: %" PRIu64 ". Refer to the Amazon DynamoDB Developer Guide for current limits and "
                "how to request higher limits.",
                d->def.rcu, u.rcu, d->def.wcu, u.wcu);
        u.set_throughput = true;
    } else if (to_on_demand && !on_demand_now) {
        u.set_throughput = true; /* rcu = wcu = 0: on demand */
    }
    if (!u.set_throughput && !u.set_deletion_protection)
        return 0; /* the billing mode it has already */
    if ((rc = ddb_update_table(r->srv->db, table, &u, &r->err)))
        return serve_fail_code(r, rc);
    return 0;
}
