/* api/: the record reads of records.h: the backend's optional operation
 * (under the injected faults, faults.c), or the public GetItem / Query /
 * Scan / BatchGetItem when it has none.  Calls the backend, this room's
 * faults and core/. */
#include "api/records.h"

#include "api/api.h"
#include "core/error.h"

#include <stddef.h>
#include <string.h>

/* The items of a backend without records, to visitor v in order (the
 * page keeps its counts; its items are the visitor's now). */
static int visit_items(const ddbi_rec_visitor *v, ddb_item **items, size_t n, ddb_error *err)
{
    int rc = DDB_OK;
    for (size_t i = 0; i < n && !rc; i++)
        rc = v->fn(v->ctx, NULL, items[i], err);
    return rc;
}

int ddbi_get_record(ddb *db, const char *table, const ddb_item *key, const ddb_get_opts *opts, ddb_arena *a,
                    const ddbi_rec_visitor *v, ddb_item **out, ddbi_rec *rec, ddb_capacity *cap, ddb_error *err)
{
    if (rec)
        *rec = (ddbi_rec){NULL, 0, false};
    if (!db || !db->ops->get_record || !rec) {
        int rc = ddb_get_item(db, table, key, opts, a, out, cap, err);
        if (rc || !v || !*out)
            return rc;
        ddb_item *it = *out;
        *out = NULL;
        return visit_items(v, &it, 1, err);
    }
    *out = NULL;
    if (!table || !key || !a)
        return ddbi_fail(err, DDB_EINVAL, "GetItem: db, table, key, arena and out are required");
    if (cap)
        memset(cap, 0, sizeof *cap);
    ddbi_fault_call fc = {.op = DDB_OP_GET, .what = "GetItem", .table = table};
    bool after;
    int rc = ddbi_fault_check(db, &fc, &after, err);
    return rc ? rc : db->ops->get_record(db->impl, table, key, opts, a, v, out, rec, cap, err);
}

int ddbi_query_records(ddb *db, const ddb_query_params *q, ddb_arena *a, const ddbi_rec_visitor *v,
                       ddbi_rec_page *out, ddb_error *err)
{
    if (out)
        out->recs = NULL;
    if (!db || !db->ops->query_records || !out) {
        int rc = ddb_query(db, q, a, out ? &out->page : NULL, err);
        if (rc || !v)
            return rc;
        rc = visit_items(v, out->page.items, out->page.count, err);
        out->page.items = NULL;
        return rc;
    }
    if (!q || !q->table || (!q->pk && !q->key_condition) || !a)
        return ddbi_fail(err, DDB_EINVAL, "Query: db, table, pk (or key_condition), arena and out are required");
    ddbi_fault_call fc = {.op = DDB_OP_QUERY, .what = "Query", .table = q->table};
    bool after;
    int rc = ddbi_fault_check(db, &fc, &after, err);
    return rc ? rc : db->ops->query_records(db->impl, q, a, v, out, err);
}

int ddbi_scan_records(ddb *db, const ddb_scan_params *s, ddb_arena *a, ddbi_rec_page *out, ddb_error *err)
{
    if (out)
        out->recs = NULL;
    if (!ddbi_scans_records(db) || !out)
        return ddb_scan(db, s, a, out ? &out->page : NULL, err);
    if (!s || !s->table || !a)
        return ddbi_fail(err, DDB_EINVAL, "Scan: db, table, arena and out are required");
    ddbi_fault_call fc = {.op = DDB_OP_SCAN, .what = "Scan", .table = s->table};
    bool after;
    int rc = ddbi_fault_check(db, &fc, &after, err);
    return rc ? rc : db->ops->scan_records(db->impl, s, a, out, err);
}

bool ddbi_scans_records(const ddb *db)
{
    return db && db->ops->scan_records;
}

int ddbi_batch_get_records(ddb *db, const ddb_batch_get_op *ops, size_t n, ddb_arena *a, ddb_item **items,
                           ddbi_rec *recs, ddb_return_capacity rc, ddb_capacity *cap, ddb_error *err)
{
    if (recs)
        memset(recs, 0, n * sizeof *recs);
    if (!db || !db->ops->batch_get_records || !recs)
        return ddb_batch_get(db, ops, n, a, items, rc, cap, err);
    ddbi_fault_call fc;
    bool after;
    int r = ddbi_batch_get_begin(db, ops, n, a, items, cap, &fc, &after, err);
    return r ? r
             : ddbi_fault_after(&fc, after,
                                db->ops->batch_get_records(db->impl, ops, fc.processed ? fc.processed : n, a, items,
                                                           recs, rc, cap, err),
                                err);
}
