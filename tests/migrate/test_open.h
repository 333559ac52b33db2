/* The migration tests' programs (unique_test.c, rename_test.c): open the
 * database their command line names, a directory of the embedded engine
 * or an http:// endpoint (a private `ddb serve`).  Calls the public API. */
#ifndef MIGRATE_TEST_OPEN_H
#define MIGRATE_TEST_OPEN_H
#include <ddb/ddb.h>

#include <stdio.h>
#include <string.h>

static inline int migrate_test_open(const char *where, ddb **db, ddb_error *err)
{
    char uri[600];
    snprintf(uri, sizeof uri, strncmp(where, "http", 4) ? "file:%s" : "%s", where);
    ddb_options opts = {.sync = DDB_SYNC_NONE};
    return ddb_open(uri, &opts, db, err);
}
#endif
