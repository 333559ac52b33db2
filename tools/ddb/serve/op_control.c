/* ddb serve: the control-plane reads infrastructure tools make on every
 * table (Terraform's AWS provider, CloudFormation/CDK harnesses, the
 * Serverless framework), answered with DynamoDB's shapes for what the
 * embedded engine has: DescribeContinuousBackups and
 * UpdateContinuousBackups (point-in-time recovery is a setting kept with
 * the table; ddb keeps no backups to restore from),
 * DescribeKinesisStreamingDestination (none), DescribeContributorInsights
 * (DISABLED).  API_DescribeContinuousBackups, API_UpdateContinuousBackups,
 * API_DescribeKinesisStreamingDestination, API_DescribeContributorInsights
 * of the DynamoDB API Reference.  Calls wire.c, reply.c and libddb. */
#include "serve.h"

#include <string.h>

#define PITR_META "ddb.serve.pitr"

/* The table of the request, which must exist: these operations answer a
 * missing one with TableNotFoundException (API_DescribeContinuousBackups,
 * Errors). */
static int existing_table(serve_req *r, const char **table, bool table_not_found)
{
    ddb_table_desc *d;
    if (w_table(r, r->in, table))
        return -1;
    int rc = ddb_describe_table(r->srv->db, *table, r->a, &d, &r->err);
    if (rc == DDB_ENOTABLE && table_not_found)
        return serve_fail(r, 400, "TableNotFoundException", "Table not found: %s", *table);
    return rc ? serve_fail_code(r, rc) : 0;
}

static int pitr_enabled(serve_req *r, const char *table, bool *on)
{
    void *val;
    size_t len;
    ddb_error e;
    int rc = ddb_table_meta_get(r->srv->db, table, PITR_META, r->a, &val, &len, &e);
    *on = rc == 0 && len == 1 && *(const char *)val == '1';
    if (rc && rc != DDB_ENOTFOUND) {
        r->err = e;
        return serve_fail_code(r, rc);
    }
    return 0;
}

static json_t *backups_description(serve_req *r, bool on)
{
    json_t *pitr = json_pack("{s:s}", "PointInTimeRecoveryStatus", on ? "ENABLED" : "DISABLED");
    if (on) {
        double now = (double)ddb_clock_ms(r->srv->db) / 1000.0;
        json_object_set_new(pitr, "RecoveryPeriodInDays", json_integer(35));
        json_object_set_new(pitr, "EarliestRestorableDateTime", json_real(now));
        json_object_set_new(pitr, "LatestRestorableDateTime", json_real(now));
    }
    return json_pack("{s:s,s:o}", "ContinuousBackupsStatus", "ENABLED", "PointInTimeRecoveryDescription", pitr);
}

int op_describe_continuous_backups(serve_req *r)
{
    const char *table;
    bool on;
    if (existing_table(r, &table, true) || pitr_enabled(r, table, &on))
        return -1;
    json_object_set_new(r->out, "ContinuousBackupsDescription", backups_description(r, on));
    return 0;
}

int op_update_continuous_backups(serve_req *r)
{
    const char *table;
    const json_t *spec = json_object_get(r->in, "PointInTimeRecoverySpecification");
    bool on = false;
    if (existing_table(r, &table, true))
        return -1;
    if (!spec || json_is_null(spec))
        return serve_validation(r, "1 validation error detected: Value null at 'pointInTimeRecoverySpecification' "
                                   "failed to satisfy constraint: Member must not be null");
    if (!json_object_get(spec, "PointInTimeRecoveryEnabled"))
        return serve_validation(r, "1 validation error detected: Value null at "
                                   "'pointInTimeRecoverySpecification.pointInTimeRecoveryEnabled' failed to satisfy "
                                   "constraint: Member must not be null");
    if (w_bool(r, spec, "PointInTimeRecoveryEnabled", &on))
        return -1;
    if (!on && json_object_get(spec, "RecoveryPeriodInDays"))
        return serve_validation(r, "Invalid Request: Cannot specify RecoveryPeriodInDays when disabling "
                                   "point-in-time recovery.");
    int rc = ddb_table_meta_put(r->srv->db, table, PITR_META, on ? "1" : "0", 1, &r->err);
    if (rc)
        return serve_fail_code(r, rc);
    json_object_set_new(r->out, "ContinuousBackupsDescription", backups_description(r, on));
    return 0;
}

int op_describe_kinesis_streaming_destination(serve_req *r)
{
    const char *table;
    if (existing_table(r, &table, false))
        return -1;
    json_object_set_new(r->out, "TableName", json_string(table));
    json_object_set_new(r->out, "KinesisDataStreamDestinations", json_array());
    return 0;
}

int op_describe_contributor_insights(serve_req *r)
{
    const char *table, *index;
    if (existing_table(r, &table, false) || w_str(r, r->in, "IndexName", &index))
        return -1;
    json_object_set_new(r->out, "TableName", json_string(table));
    if (index)
        json_object_set_new(r->out, "IndexName", json_string(index));
    json_object_set_new(r->out, "ContributorInsightsStatus", json_string("DISABLED"));
    return 0;
}
