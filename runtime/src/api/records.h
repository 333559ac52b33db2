/* The reads that hand stored records to the entity room (internal; with
 * expr_cache.h what the entity layer uses of api/ besides the public API).
 * A backend that keeps records (the embedded engine) gives the entries it
 * need not decode as records (read them with core/record.h); any other
 * backend (remote) answers with items through the public GetItem / Query / Scan /
 * BatchGetItem,
 * so every caller handles both (core/backend.h: ddbi_rec, ddbi_rec_page). */
#ifndef DDB_API_RECORDS_H
#define DDB_API_RECORDS_H

#include "core/backend.h"

/* ddb_get_item, the item into *out or its record into *rec (one of them
 * when found); with a visitor v (may be NULL), the item found goes to v
 * instead (as a borrowed record, or an item where the backend has no
 * records), and *out, *rec stay empty. */
int ddbi_get_record(ddb *db, const char *table, const ddb_item *key, const ddb_get_opts *opts, ddb_arena *a,
                    const ddbi_rec_visitor *v, ddb_item **out, ddbi_rec *rec, ddb_capacity *cap, ddb_error *err);
/* ddb_query, entries as items or records (out->recs NULL: all items); with
 * a visitor v (may be NULL), every entry goes to v in order instead, and
 * out's items and recs stay empty. */
int ddbi_query_records(ddb *db, const ddb_query_params *q, ddb_arena *a, const ddbi_rec_visitor *v,
                       ddbi_rec_page *out, ddb_error *err);
/* ddb_scan, entries as items or records (out->recs NULL: all items). */
int ddbi_scan_records(ddb *db, const ddb_scan_params *s, ddb_arena *a, ddbi_rec_page *out, ddb_error *err);
/* ddb_batch_get, entry i as items[i] or recs[i] (recs zeroed, then filled
 * where the backend hands over records). */
int ddbi_batch_get_records(ddb *db, const ddb_batch_get_op *ops, size_t n, ddb_arena *a, ddb_item **items,
                           ddbi_rec *recs, ddb_return_capacity rc, ddb_capacity *cap, ddb_error *err);
/* Does db's backend hand over scanned records (so that a filter the
 * caller can apply to records itself is better left out of the Scan)? */
bool ddbi_scans_records(const ddb *db);

#endif
