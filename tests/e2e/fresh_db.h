/* fresh_db.h — the database of an end-to-end test, on either backend: a
 * private "mem:" database (removed at close), or the server at
 * DDB_TEST_URI (tests/serve/with_serve.py) with the test's table dropped
 * and created again.  Include after <cmocka.h>; calls libddb only. */
#ifndef E2E_FRESH_DB_H
#define E2E_FRESH_DB_H

#include <ddb/ddb.h>
#include <stdbool.h>
#include <stdlib.h>

#define OK(expr)                                                                                                      \
    do {                                                                                                              \
        int rc_ = (expr);                                                                                             \
        if (rc_)                                                                                                      \
            fail_msg("%s: %s (%s)", #expr, ddb_strerror(rc_), err.message);                                           \
    } while (0)

static inline bool remote(void)
{
    return getenv("DDB_TEST_URI") && *getenv("DDB_TEST_URI");
}

/* The database with table (created by create, a generated <t>_create_table) new and empty. */
static inline ddb *fresh_db(const char *table, int (*create)(ddb *db, ddb_error *err))
{
    ddb *db;
    ddb_error err;
    OK(ddb_open(remote() ? getenv("DDB_TEST_URI") : "mem:", NULL, &db, &err));
    int rc = ddb_delete_table(db, table, &err);
    assert_true(rc == DDB_OK || rc == DDB_ENOTABLE);
    OK(create(db, &err));
    return db;
}

/* Close it (on the server: its table dropped first). */
static inline void fresh_db_close(ddb *db, const char *table)
{
    ddb_error err;
    if (remote())
        ddb_delete_table(db, table, &err);
    ddb_close(db);
}

#endif
