/* Helpers of the damaged-file tests: a scratch database directory, its
 * data.mdb read and written whole, and raw LMDB access to it. */
#ifndef DAMAGED_UTIL_H
#define DAMAGED_UTIL_H

#include <ddb/ddb.h>

#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A fresh empty directory named after tag under $TMPDIR (or /tmp). */
static inline void dmg_dir(char *dir, size_t cap, const char *tag)
{
    const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(dir, cap, "%s/ddbdamaged-%s-%d", base, tag, (int)getpid());
    char cmd[2200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    if (system(cmd) != 0) {
        fprintf(stderr, "cannot prepare %s\n", dir);
        abort();
    }
}

static inline void dmg_rmdir(const char *dir)
{
    char cmd[2200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
}

/* dir/data.mdb, whole, into malloc'd memory. */
static inline unsigned char *dmg_read(const char *dir, size_t *len)
{
    char path[2100];
    snprintf(path, sizeof path, "%s/data.mdb", dir);
    FILE *f = fopen(path, "rb");
    *len = 0;
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *p = malloc(n > 0 ? (size_t)n : 1);
    if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
        free(p);
        p = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return p;
}

/* Replace dir/data.mdb (and drop the lock file) with len bytes of p. */
static inline int dmg_write(const char *dir, const unsigned char *p, size_t len)
{
    char path[2100];
    snprintf(path, sizeof path, "%s/lock.mdb", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/data.mdb", dir);
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t w = fwrite(p, 1, len, f);
    return fclose(f) == 0 && w == len ? 0 : -1;
}

/* Raw LMDB on a closed database directory: one write transaction. */
typedef struct dmg_raw {
    MDB_env *env;
    MDB_txn *txn;
} dmg_raw;

static inline int dmg_raw_open(dmg_raw *w, const char *dir)
{
    int rc;
    if ((rc = mdb_env_create(&w->env)) || (rc = mdb_env_set_maxdbs(w->env, 64)) ||
        (rc = mdb_env_set_mapsize(w->env, (size_t)1 << 30)) || (rc = mdb_env_open(w->env, dir, 0, 0644)) ||
        (rc = mdb_txn_begin(w->env, NULL, 0, &w->txn)))
        return rc;
    return 0;
}

/* Put key -> data into the named database (flags: its mdb_dbi_open flags). */
static inline int dmg_raw_put(dmg_raw *w, const char *db, unsigned flags, const void *k, size_t kn, const void *d,
                              size_t dn)
{
    MDB_dbi dbi;
    MDB_val kv = {kn, (void *)k}, dv = {dn, (void *)d};
    int rc = mdb_dbi_open(w->txn, db, flags, &dbi);
    return rc ? rc : mdb_put(w->txn, dbi, &kv, &dv, 0);
}

static inline int dmg_raw_del(dmg_raw *w, const char *db, const char *key)
{
    MDB_dbi dbi;
    MDB_val kv = {strlen(key), (void *)key};
    int rc = mdb_dbi_open(w->txn, db, 0, &dbi);
    return rc ? rc : mdb_del(w->txn, dbi, &kv, NULL);
}

static inline int dmg_raw_close(dmg_raw *w)
{
    int rc = mdb_txn_commit(w->txn);
    mdb_env_close(w->env);
    return rc;
}

#endif
