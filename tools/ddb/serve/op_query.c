/* ddb serve: Query and Scan (API_Query, API_Scan): key condition, filter
 * and projection expressions, Limit, ExclusiveStartKey / LastEvaluatedKey
 * paging, ScanIndexForward, Select, parallel scan segments, AttributesToGet.
 * The legacy KeyConditions / QueryFilter / ScanFilter arrive translated into
 * expressions (legacy.c).  Calls wire.c, reply.c and libddb. */
#include "serve.h"

#include <string.h>

/* What Query and Scan share. */
typedef struct read_args {
    const char *table, *index;
    ddb_item *names, *values, *start;
    ddb_expr *filter, *projection;
    const char **attributes;
    size_t n_attributes;
    uint64_t limit;
    bool consistent, count_only, select_all;
    ddb_return_capacity rc;
} read_args;

static int read_common(serve_req *r, read_args *q)
{
    memset(q, 0, sizeof *q);
    bool given;
    const char *select = NULL;
    if (w_table(r, r->in, &q->table) || w_str(r, r->in, "IndexName", &q->index) || w_names(r, r->in, &q->names) ||
        w_values(r, r->in, &q->values) ||
        w_item(r, r->in, "ExclusiveStartKey", &q->start) ||
        w_expr(r, r->in, "FilterExpression", DDB_EXPR_FILTER, q->names, &q->filter) ||
        w_expr(r, r->in, "ProjectionExpression", DDB_EXPR_PROJECTION, q->names, &q->projection) ||
        w_attributes(r, r->in, &q->attributes, &q->n_attributes) ||
        w_uint(r, r->in, "Limit", "limit", 1, UINT32_MAX, &q->limit, &given) ||
        w_bool(r, r->in, "ConsistentRead", &q->consistent) || w_capacity(r, r->in, &q->rc) ||
        w_str(r, r->in, "Select", &select))
        return -1;
    if (select) {
        if (strcmp(select, "COUNT") == 0)
            q->count_only = true;
        else if (strcmp(select, "SPECIFIC_ATTRIBUTES") == 0) {
            if (!q->projection && !q->attributes)
                return serve_validation(r, "Select type SPECIFIC_ATTRIBUTES requires AttributesToGet or "
                                           "ProjectionExpression");
        } else if (strcmp(select, "ALL_ATTRIBUTES") && strcmp(select, "ALL_PROJECTED_ATTRIBUTES"))
            return serve_validation(r,
                                    "1 validation error detected: Value '%s' at 'select' failed to satisfy "
                                    "constraint: Member must satisfy enum value set: [SPECIFIC_ATTRIBUTES, COUNT, "
                                    "ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES]",
                                    select);
        /* DynamoDB's words, measured by ExtendDB's dual-target tests
         * (tests/test_wording_parity_validation.py): the member given, "only
         * the Count" for COUNT, and Query's COUNT with the validator's prefix */
        if (strcmp(select, "SPECIFIC_ATTRIBUTES") && (q->projection || q->attributes)) {
            bool count = strcmp(select, "COUNT") == 0;
            return serve_validation(r, "%sCannot specify the %s when choosing to get %s",
                                    count && r->op == op_query ? "1 validation error detected: " : "",
                                    q->projection ? "ProjectionExpression" : "AttributesToGet",
                                    count ? "only the Count" : select);
        }
        if (strcmp(select, "ALL_PROJECTED_ATTRIBUTES") == 0 && !q->index)
            return serve_validation(r, "ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName");
        /* the engine refuses it on a GSI that cannot fetch, and fetches on an LSI */
        q->select_all = strcmp(select, "ALL_ATTRIBUTES") == 0;
    }
    return 0;
}

static int page_reply(serve_req *r, const read_args *q, const ddb_page *p)
{
    if (!q->count_only && w_reply_items(r, "Items", p->items, p->count))
        return -1;
    w_reply_u64(r, "Count", p->count);
    w_reply_u64(r, "ScannedCount", p->scanned_count);
    if (p->last_key && w_reply_item(r, "LastEvaluatedKey", p->last_key))
        return -1;
    json_t *c = w_capacity_json(r, q->table, q->rc, &p->capacity);
    if (c)
        json_object_set_new(r->out, "ConsumedCapacity", c);
    return 0;
}

int op_query(serve_req *r)
{
    read_args q;
    ddb_expr *key;
    bool forward = true;
    if (read_common(r, &q) ||
        w_expr(r, r->in, "KeyConditionExpression", DDB_EXPR_KEY_CONDITION, q.names, &key) ||
        w_bool(r, r->in, "ScanIndexForward", &forward))
        return -1;
    if (!key)
        return serve_validation(r, "Either the KeyConditions or KeyConditionExpression parameter must be specified in "
                                   "the request.");
    const ddb_expr *e[] = {key, q.filter, q.projection};
    if (w_check_exprs(r, e, 3, q.names, q.values))
        return -1;
    ddb_query_params p = {
        .table = q.table,
        .index = q.index,
        .backward = !forward,
        .limit = (uint32_t)q.limit,
        .start_key = q.start,
        .consistent = q.consistent,
        .attributes = q.attributes,
        .n_attributes = q.n_attributes,
        .return_capacity = q.rc,
        .filter = q.filter,
        .projection = q.projection,
        .values = q.values,
        .key_condition = key,
        .select_all = q.select_all,
    };
    ddb_page page;
    memset(&page, 0, sizeof page);
    int rc = ddb_query(r->srv->db, &p, r->a, &page, &r->err);
    return rc ? serve_fail_code(r, rc) : page_reply(r, &q, &page);
}

int op_scan(serve_req *r)
{
    read_args q;
    uint64_t segment = 0, total = 0;
    bool has_segment, has_total;
    if (read_common(r, &q) ||
        w_uint(r, r->in, "Segment", "segment", 0, 999999, &segment, &has_segment) ||
        w_uint(r, r->in, "TotalSegments", "totalSegments", 1, 1000000, &total, &has_total))
        return -1;
    /* API_Scan: Segment and TotalSegments go together; the message names
     * the one missing (DynamoDB's words as dynalite's validations/scan.js
     * has them for either direction) */
    if (has_segment && !has_total)
        return serve_validation(r, "The TotalSegments parameter is required but was not present in the request when "
                                   "Segment parameter is present");
    if (has_total && !has_segment)
        return serve_validation(r, "The Segment parameter is required but was not present in the request when "
                                   "parameter TotalSegments is present");
    const ddb_expr *e[] = {q.filter, q.projection};
    if (w_check_exprs(r, e, 2, q.names, q.values))
        return -1;
    ddb_scan_params p = {
        .table = q.table,
        .index = q.index,
        .limit = (uint32_t)q.limit,
        .start_key = q.start,
        .consistent = q.consistent,
        .segment = (uint32_t)segment,
        .total_segments = (uint32_t)total,
        .attributes = q.attributes,
        .n_attributes = q.n_attributes,
        .return_capacity = q.rc,
        .filter = q.filter,
        .projection = q.projection,
        .values = q.values,
        .select_all = q.select_all,
    };
    ddb_page page;
    memset(&page, 0, sizeof page);
    int rc = ddb_scan(r->srv->db, &p, r->a, &page, &r->err);
    return rc ? serve_fail_code(r, rc) : page_reply(r, &q, &page);
}
