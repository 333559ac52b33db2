/* Bounds on what is read back from the database file (see stored.h).
 * Calls core/ and LMDB only. */
#include "engine/stored.h"

#include "core/error.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

const char *ddbi_key_text(char *buf, size_t cap, const void *key, size_t len)
{
    const uint8_t *b = key;
    bool printable = len > 0;
    for (size_t i = 0; i < len && printable; i++)
        printable = b[i] >= 0x20 && b[i] < 0x7f;
    size_t show = len > 32 ? 24 : len, n = 0;
    if (!cap)
        return buf;
    buf[0] = '\0';
    int w = 0;
    if (printable)
        w = snprintf(buf, cap, "\"%.*s\"", (int)show, (const char *)b);
    else
        for (size_t i = 0; i < show && n + 2 < cap; i++, n += 2)
            snprintf(buf + n, cap - n, "%02x", b[i]);
    n += w > 0 ? (size_t)w : 0;
    if (show < len && n < cap)
        snprintf(buf + n, cap - n, "...(%zu bytes)", len);
    return buf;
}

int ddbi_fail_stored(ddb_error *err, const char *table, const void *key, size_t len, const char *fmt, ...)
{
    char what[160], k[128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (!key)
        return ddbi_fail(err, DDB_ECORRUPT, "table %s: %s (the database file is damaged)", table, what);
    return ddbi_fail(err, DDB_ECORRUPT, "table %s: %s (key %s; the database file is damaged)", table, what,
                     ddbi_key_text(k, sizeof k, key, len));
}

int ddbi_stored_key_fail(const char *table, const char *what, const MDB_val *k, ddb_error *err)
{
    return ddbi_fail_stored(err, table, k->mv_data, k->mv_size, "%s has %zu bytes (%d..%d expected)", what,
                            k->mv_size, DDB_DIGEST_LEN, DDB_KEY_MAX);
}

/* The file's length against what its meta page says, read through an
 * environment of its own (read-only, no lock file, closed again) so that
 * nothing has touched the file yet: with MDB_WRITEMAP, mdb_env_open
 * extends the file to the map size, hiding a truncation. */
static int check_length(const char *path, const char *file, ddb_error *err)
{
    MDB_env *env;
    if (mdb_env_create(&env))
        return ddbi_fail_oom(err, "ddb_open");
    int rc = mdb_env_open(env, path, MDB_RDONLY | MDB_NOLOCK, 0644);
    MDB_envinfo info;
    MDB_stat ms;
    mdb_filehandle_t fd;
    struct stat st;
    if (rc == ENOENT) /* no database yet */
        rc = DDB_OK;
    else if (rc || (rc = mdb_env_info(env, &info)) || (rc = mdb_env_stat(env, &ms)) || (rc = mdb_env_get_fd(env, &fd)))
        rc = ddbi_mdb_fail(err, rc, "ddb_open");
    else if (fstat(fd, &st) != 0)
        rc = ddbi_fail(err, DDB_EIO, "ddb_open: %s: %s", file, strerror(errno));
    else if ((uint64_t)st.st_size < ((uint64_t)info.me_last_pgno + 1) * ms.ms_psize)
        rc = ddbi_fail(err, DDB_ECORRUPT,
                       "ddb_open: %s is truncated: it has %" PRIu64 " bytes, its meta page says %" PRIu64
                       " (%" PRIu64 " pages of %u bytes)",
                       file, (uint64_t)st.st_size, ((uint64_t)info.me_last_pgno + 1) * ms.ms_psize,
                       (uint64_t)info.me_last_pgno + 1, ms.ms_psize);
    mdb_env_close(env);
    return rc;
}

int ddbi_file_check_length(const char *path, ddb_error *err)
{
    char file[4200];
    struct stat st;
    snprintf(file, sizeof file, "%s/data.mdb", path);
    if (stat(file, &st) == 0 && st.st_size == 0)
        return ddbi_fail(err, DDB_ECORRUPT,
                         "ddb_open: %s is empty (0 bytes): the file was truncated or its creation interrupted; "
                         "remove it to start a new database",
                         file);
    return check_length(path, file, err);
}

/* The end of the file in the map: reading the map past it faults
 * (SIGBUS).  Not the newest meta page's last page: a large write
 * transaction spills pages past it and reads them back through the map.
 * The file never shrinks; 0 when unknown. */
static uintptr_t used_end(ddbi_engine *db)
{
    mdb_filehandle_t fd;
    struct stat st;
    if (mdb_env_get_fd(db->env, &fd) || fstat(fd, &st) != 0)
        return 0;
    uint64_t used = (uint64_t)st.st_size < db->map_size ? (uint64_t)st.st_size : db->map_size;
    return (uintptr_t)db->map + (uintptr_t)used;
}

void ddbi_file_map_locate(ddbi_engine *db)
{
    MDB_envinfo info;
    mdb_filehandle_t fd;
    struct stat st;
    db->map = NULL;
    if (mdb_env_info(db->env, &info) || mdb_env_get_fd(db->env, &fd) || fstat(fd, &st) != 0)
        return;
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return;
    /* "start-end perms offset dev inode path": LMDB maps the whole file
     * once, from offset 0, me_mapsize bytes (the lock file is another inode) */
    char line[4200];
    while (fgets(line, sizeof line, f)) {
        unsigned long long lo, hi, off, ino;
        char perms[8];
        unsigned maj, min;
        if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu", &lo, &hi, perms, &off, &maj, &min, &ino) == 7 &&
            ino == (unsigned long long)st.st_ino && off == 0 && hi - lo == info.me_mapsize) {
            db->map = (const uint8_t *)(uintptr_t)lo;
            db->map_size = (size_t)(hi - lo);
            break;
        }
    }
    fclose(f);
    uintptr_t end = db->map ? used_end(db) : 0;
    if (!end)
        db->map = NULL; /* not bounded (see stored.h) */
    atomic_store(&db->map_end, end);
}

int ddbi_stored_past_end(ddbi_engine *db, const char *table, const char *what, const MDB_val *k, const MDB_val *v,
                         ddb_error *err)
{
    /* the file grew since the end was read: read it again (it only grows) */
    uintptr_t p = (uintptr_t)v->mv_data, end = used_end(db), seen = atomic_load(&db->map_end);
    while (end > seen && !atomic_compare_exchange_weak(&db->map_end, &seen, end))
        ;
    if (!end || (p <= end && v->mv_size <= end - p))
        return DDB_OK; /* !end: the file's length is unknown just now; nothing to bound by */
    return ddbi_fail_stored(err, table, k ? k->mv_data : NULL, k ? k->mv_size : 0,
                            "%s of %zu bytes runs past the end of the database file (%zu bytes)", what,
                            v->mv_size, (size_t)(end - (uintptr_t)db->map));
}
