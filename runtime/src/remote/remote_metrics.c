/* remote/: the per-request metrics of the remote backend: what
 * ddb_remote_options.on_request receives once per request (operation,
 * table, HTTP status, result, attempts, throttles, latency, consumed
 * capacity).  May call core/ and jansson. */
#include "remote/remote_wire.h"

#include <string.h>
#include <time.h>

uint64_t ddbi_remote_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* TableName, else the first table of RequestItems or TransactItems. */
static const char *request_table(const json_t *req)
{
    const char *t = json_string_value(json_object_get(req, "TableName"));
    if (t)
        return t;
    json_t *items = json_object_get(req, "RequestItems");
    if (json_is_object(items) && json_object_size(items))
        return json_object_iter_key(json_object_iter(items));
    json_t *tx = json_array_get(json_object_get(req, "TransactItems"), 0);
    if (json_is_object(tx) && json_object_size(tx))
        return json_string_value(json_object_get(json_object_iter_value(json_object_iter(tx)), "TableName"));
    return NULL;
}

static double capacity_of(const json_t *cc)
{
    if (json_is_object(cc))
        return json_number_value(json_object_get(cc, "CapacityUnits"));
    double sum = 0;
    size_t i;
    json_t *v;
    if (json_is_array(cc))
        json_array_foreach(cc, i, v) sum += json_number_value(json_object_get(v, "CapacityUnits"));
    return sum;
}

void ddbi_remote_report(ddb_request_fn fn, void *ctx, const remote_metrics *m, const json_t *req, const json_t *resp,
                        int rc)
{
    ddb_request_metrics out;
    memset(&out, 0, sizeof out);
    out.operation = m->op;
    out.table = request_table(req);
    out.http_status = m->status;
    out.result = rc;
    out.attempts = m->attempts;
    out.throttles = m->throttles;
    out.latency_us = ddbi_remote_now_us() - m->start_us;
    out.consumed_capacity = resp ? capacity_of(json_object_get(resp, "ConsumedCapacity")) : 0;
    fn(&out, ctx);
}
