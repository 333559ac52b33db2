/* Helpers shared by the runtime tests. */
#ifndef DDB_TESTUTIL_H
#define DDB_TESTUTIL_H

#include <ddb/ddb.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

/* A fresh database directory under the build tree's temp area. */
ddb *tu_open(const char *name, const ddb_options *opts, char *dir_out, size_t dir_cap);
void tu_rmdir(const char *dir);
/* Item from "name", type, value triples: 's' string, 'n' number text, 'i'
 * int64, 'b' bytes (ptr,len); end with NULL name. */
ddb_item *tu_item(ddb_arena *a, ...);
#define TU_OK(expr)                                                                                                   \
    do {                                                                                                              \
        ddb_error e_ = {0};                                                                                           \
        (void)e_;                                                                                                     \
        int rc_ = (expr);                                                                                             \
        if (rc_ != 0)                                                                                                 \
            fail_msg("%s -> %d %s", #expr, rc_, ddb_strerror(rc_));                                                   \
    } while (0)

#endif
