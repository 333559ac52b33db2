/* Storage failures of the commit path (engine room; calls LMDB, core/error
 * and the C library).
 *
 * After a failed sync the kernel may have dropped the dirty pages it could
 * not write (they are marked clean), so a later sync that succeeds proves
 * nothing about them: the handle is poisoned and refuses every later write
 * until the database is reopened (ddbi_run_write).  A full disk is told
 * apart from other I/O errors, also where LMDB reports a short write as
 * EIO. */
#include "engine/engine.h"
#include "core/error.h"

#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* Free space under which a failed write is taken for a full disk. */
#define FULL_DISK_SLACK (256u * 1024u)

/* The cause of a failed commit write or sync: LMDB answers EIO for a
 * short write, which is how a filling disk (or the process's file size
 * limit) shows when part of a write still fitted. */
static int failure_cause(ddbi_engine *db, int rc)
{
    int fd;
    if (rc != EIO || !db->env || mdb_env_get_fd(db->env, &fd) != 0)
        return rc;
    struct statvfs vs;
    if (fstatvfs(fd, &vs) == 0) {
        unsigned long long avail = geteuid() == 0 ? vs.f_bfree : vs.f_bavail;
        if (avail * (unsigned long long)vs.f_frsize < FULL_DISK_SLACK)
            return ENOSPC;
    }
    struct rlimit rl;
    struct stat st;
    if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && fstat(fd, &st) == 0 &&
        (unsigned long long)st.st_size + FULL_DISK_SLACK >= (unsigned long long)rl.rlim_cur)
        return EFBIG;
    return rc;
}

bool ddbi_storage_failure(int rc)
{
    /* errno values from a write or a sync; not ENOMEM (nothing was
     * written), nor LMDB's own codes other than a panic */
    return (rc > 0 && rc != ENOMEM) || rc == MDB_PANIC;
}

int ddbi_poison(ddbi_engine *db, int rc)
{
    rc = failure_cause(db, rc);
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
