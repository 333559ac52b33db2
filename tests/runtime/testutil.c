/* Helpers shared by the runtime tests (testutil.h): a fresh database
 * directory per test (tu_open / tu_rmdir) and items built from name/value
 * lists (tu_item). Calls the public API only. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

ddb *tu_open(const char *name, const ddb_options *opts, char *dir, size_t cap)
{
    const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(dir, cap, "%s/ddbtest-%s-%d", base, name, (int)getpid());
    tu_rmdir(dir);
    char uri[600];
    snprintf(uri, sizeof uri, "file:%s", dir);
    ddb *db = NULL;
    ddb_error err = {0};
    int rc = ddb_open(uri, opts, &db, &err);
    if (rc)
        fail_msg("ddb_open(%s): %s", uri, err.message);
    return db;
}

void tu_rmdir(const char *dir)
{
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fail_msg("cannot remove %s", dir);
}

ddb_item *tu_item(ddb_arena *a, ...)
{
    va_list ap;
    va_start(ap, a);
    ddb_item *it = ddb_item_new(a);
    const char *name;
    while ((name = va_arg(ap, const char *))) {
        int t = va_arg(ap, int);
        ddb_error err = {0};
        int rc = 0;
        if (t == 's')
            rc = ddb_item_set_s(it, name, va_arg(ap, const char *));
        else if (t == 'n')
            rc = ddb_item_set_n(it, name, va_arg(ap, const char *), &err);
        else if (t == 'i')
            rc = ddb_item_set_i64(it, name, va_arg(ap, int64_t));
        else if (t == 'b') {
            const void *p = va_arg(ap, const void *);
            size_t n = va_arg(ap, size_t);
            rc = ddb_item_set_b(it, name, p, n);
        }
        if (rc)
            fail_msg("tu_item %s: %d %s", name, rc, err.message);
    }
    va_end(ap);
    return it;
}
