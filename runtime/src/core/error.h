/* Filling a caller's ddb_error (internal). */
#ifndef DDB_ERROR_H
#define DDB_ERROR_H

#include <ddb/ddb.h>

/* Set err (may be NULL) to code and a printf-formatted message; returns
 * code so callers can write `return ddbi_fail(err, DDB_ELIMIT, ...)`. */
int ddbi_fail(ddb_error *err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The one out-of-memory failure: DDB_ENOMEM with "<what>: out of memory"
 * (what names the operation or object that could not be allocated). */
int ddbi_fail_oom(ddb_error *err, const char *what);

#endif
