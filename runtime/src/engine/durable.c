/* engine/: LMDB's and the system's errors as DDB_E* codes, storage
 * failures of the commit path and the durability of a new database's files.
 * May call core/, LMDB and the C library.
 *
 * After a failed sync the kernel may have dropped the dirty pages it could
 * not write (they are marked clean), so a later sync that succeeds proves
 * nothing about them: the handle is poisoned and refuses every later write
 * until the database is reopened (ddbi_run_write).  A full disk is told
 * apart from other I/O errors, also where LMDB reports a short write as
 * EIO.  A handle that has seen a damaged table (DDB_ECORRUPT) refuses every
 * later write to that table: LMDB trusts the pages it writes through, so a
 * write into a damaged tree can spread the damage (or fault inside LMDB);
 * damage that no table can be blamed for refuses every write the same way.
 * The other tables' trees are separate: their writes go on. */
#include "engine/engine.h"
#include "core/error.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
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

int ddbi_mdb_fail(ddb_error *err, int rc, const char *what)
{
    if (rc == MDB_MAP_FULL)
        return ddbi_fail(err, DDB_ELIMIT, "%s: the database is full (map_size reached; reopen with a larger map_size)",
                        what);
    if (rc == MDB_CORRUPTED || rc == MDB_PAGE_NOTFOUND || rc == MDB_INVALID)
        return ddbi_fail(err, DDB_ECORRUPT, "%s: the database file is damaged (%s)", what, mdb_strerror(rc));
    if (rc == ENOMEM) /* LMDB's, or the commit log's record buffer: nothing was written */
        return ddbi_fail(err, DDB_ENOMEM, "%s: %s", what, strerror(ENOMEM));
    if (rc == ENOSPC)
        return ddbi_fail(err, DDB_EFULL, "%s: %s", what, strerror(ENOSPC));
    if (rc == EFBIG)
        return ddbi_fail(err, DDB_EFULL, "%s: %s (the process's file size limit, RLIMIT_FSIZE)", what,
                        strerror(EFBIG));
    return ddbi_fail(err, DDB_EIO, "%s: %s", what, mdb_strerror(rc));
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

/* Handle-wide damage: every later write is refused. */
static void damaged_all(ddbi_engine *db, const ddb_error *err)
{
    int healthy = 0;
    if (atomic_compare_exchange_strong(&db->damaged, &healthy, 1)) {
        snprintf(db->damage, sizeof db->damage, "%s", err && err->message[0] ? err->message : "DDB_ECORRUPT");
        atomic_store(&db->damaged, 2);
    }
}

/* Index of table in the damaged tables, or -1 (caller holds damaged_mu). */
static int damaged_slot(ddbi_engine *db, const char *table)
{
    int n = atomic_load(&db->n_damaged_tables);
    for (int i = 0; i < n; i++)
        if (strcmp(db->damaged_tables[i], table) == 0)
            return i;
    return -1;
}

int ddbi_engine_damaged(ddbi_engine *db, const char *table, const ddb_error *err)
{
    if (!table || strlen(table) >= sizeof db->damaged_tables[0]) {
        damaged_all(db, err);
        return DDB_ECORRUPT;
    }
    pthread_mutex_lock(&db->damaged_mu);
    int n = atomic_load(&db->n_damaged_tables);
    bool full = false;
    if (damaged_slot(db, table) < 0) {
        if (n < DDB_DAMAGED_TABLES) {
            snprintf(db->damaged_tables[n], sizeof db->damaged_tables[n], "%s", table);
            atomic_store(&db->n_damaged_tables, n + 1);
        } else {
            full = true;
        }
    }
    pthread_mutex_unlock(&db->damaged_mu);
    if (full)
        damaged_all(db, err);
    return DDB_ECORRUPT;
}

void ddbi_engine_damage_dropped(ddbi_engine *db, const char *table)
{
    if (!atomic_load(&db->n_damaged_tables))
        return;
    pthread_mutex_lock(&db->damaged_mu);
    int i = damaged_slot(db, table), n = atomic_load(&db->n_damaged_tables);
    if (i >= 0) {
        memmove(db->damaged_tables[i], db->damaged_tables[n - 1], sizeof db->damaged_tables[i]);
        atomic_store(&db->n_damaged_tables, n - 1);
    }
    pthread_mutex_unlock(&db->damaged_mu);
}

bool ddbi_engine_any_damage(ddbi_engine *db)
{
    return atomic_load(&db->damaged) || atomic_load(&db->n_damaged_tables);
}

int ddbi_refuse_damaged(ddbi_engine *db, ddb_error *err)
{
    int state = atomic_load(&db->damaged);
    if (!state)
        return DDB_OK;
    return ddbi_fail(err, DDB_ECORRUPT,
                     "the database file is damaged; this handle writes nothing more (check it with `ddb check`, "
                     "restore or repair it, then reopen). The damage found: %s",
                     state == 2 ? db->damage : "(being recorded)");
}

int ddbi_refuse_damaged_table(ddbi_engine *db, const char *table, ddb_error *err)
{
    if (!table || !atomic_load(&db->n_damaged_tables)) /* the common case: no lock */
        return DDB_OK;
    pthread_mutex_lock(&db->damaged_mu);
    bool damaged = damaged_slot(db, table) >= 0;
    pthread_mutex_unlock(&db->damaged_mu);
    if (!damaged)
        return DDB_OK;
    return ddbi_fail(err, DDB_ECORRUPT,
                     "table %s is damaged; this handle writes nothing more to it (the other tables work; check it "
                     "with `ddb check`, then restore it, or drop it with `ddb delete-table %s`)",
                     table, table);
}

static int sync_dir(const char *dir, ddb_error *err)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return ddbi_fail(err, DDB_EIO, "ddb_open: cannot open directory %s to sync it: %s", dir, strerror(errno));
    int rc = fsync(fd) == 0 ? 0 : errno;
    close(fd);
    if (rc)
        return ddbi_fail(err, rc == ENOSPC ? DDB_EFULL : DDB_EIO, "ddb_open: syncing directory %s: %s", dir,
                         strerror(rc));
    return DDB_OK;
}

int ddbi_sync_created(ddbi_engine *db, const char *path, bool created_dir, ddb_error *err)
{
    /* the data file's contents (the open's commit may have left its meta
     * page unsynced), then the directory entries of data.mdb and
     * lock.mdb, then the directory's own entry in its parent */
    int rc = mdb_env_sync(db->env, 1);
    if (rc)
        return ddbi_mdb_fail(err, failure_cause(db, rc), "ddb_open: syncing the new database");
    if ((rc = sync_dir(path, err)) || !created_dir)
        return rc;
    char parent[PATH_MAX];
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    while (n > 0 && path[n - 1] != '/')
        n--;
    if (n == 0)
        return sync_dir(".", err);
    if (n >= sizeof parent)
        return ddbi_fail(err, DDB_EINVAL, "ddb_open: path %s is longer than %d bytes", path, PATH_MAX);
    memcpy(parent, path, n);
    parent[n] = '\0';
    return sync_dir(parent, err);
}
