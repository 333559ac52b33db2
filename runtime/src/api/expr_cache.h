/* The handle's cache of prepared expressions (internal; the one engine-side
 * service the entity layer uses besides the public API).  Lives with the
 * public handle, so it serves both backends. */
#ifndef DDB_API_EXPR_CACHE_H
#define DDB_API_EXPR_CACHE_H

#include <ddb/ddb.h>
#include <ddb/expr.h>

/* Prepared-expression cache of a handle (expr_cache.c).  *out stays valid
 * until ddb_close and may be used by any thread, unless the cache is full:
 * then *owned is set too and the caller frees it (ddb_expr_free) after use. */
int ddbi_expr_cached(ddb *db, ddb_expr_kind kind, const char *text, const ddb_item *names, const ddb_expr **out,
                    ddb_expr **owned, ddb_error *err);
void ddbi_expr_cache_free(ddb *db);

#endif
