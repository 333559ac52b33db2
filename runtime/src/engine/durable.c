/* Storage failures of the commit path (engine room; calls LMDB, core/error
 * and the C library).
 *
 * After a failed sync the kernel may have dropped the dirty pages it could
 * not write (they are marked clean), so a later sync that succeeds proves
 * nothing about them: the handle is poisoned and refuses every later write
 * until the database is reopened (ddbi_run_write). */
#include "engine/engine.h"
#include "core/error.h"

#include <errno.h>

bool ddbi_storage_failure(int rc)
{
    /* errno values from a write or a sync; not ENOMEM (nothing was
     * written), nor LMDB's own codes other than a panic */
    return (rc > 0 && rc != ENOMEM) || rc == MDB_PANIC;
}

int ddbi_poison(ddbi_engine *db, int rc)
{
    int healthy = 0;
    atomic_compare_exchange_strong(&db->poisoned, &healthy, rc);
    return rc;
}

int ddbi_refuse_poisoned(ddbi_engine *db, ddb_error *err)
{
    int cause = atomic_load(&db->poisoned);
    if (!cause)
        return DDB_OK;
    return ddbi_fail(err, DDB_EIO, "a sync failed; reopen the database (the failure: %s)", mdb_strerror(cause));
}
