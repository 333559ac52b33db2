/* engine/: the commit log's files and its life: the directory's commit
 * lock, checkpoints (commit.ckpt: two slots, each a txnid and the data
 * file's two meta pages as of it, with a CRC), appending and syncing the
 * log, recovery at open (the meta pages written back, the log replayed)
 * and a clean close.  The design and what each failure loses:
 * docs/ARCHITECTURE.md, "The commit log".  May call LMDB, zlib, core/ and
 * engine/'s error helpers. */
#include "engine/clog.h"
#include "core/error.h"
#include "engine/engine.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include <zlib.h>

#define SLOT_MAGIC 0x31544b4342444444ull /* "DDDBCKT1" */
#define SLOT_HEADER 24                   /* magic, txnid, page size, CRC */
#define META_TXNID_AT 144                /* LMDB 0.9: the txnid's offset in a meta page (64-bit) */
#define PAGE_MAX 65536u

static uint64_t rd64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static void le64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static int write_full(int fd, const void *buf, size_t n, uint64_t off)
{
    const uint8_t *p = buf;
    while (n) {
        ssize_t w = pwrite(fd, p, n, (off_t)off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return errno;
        if (w == 0)
            return EIO;
        p += w, n -= (size_t)w, off += (uint64_t)w;
    }
    return 0;
}

static int sync_fd(int fd)
{
    return fdatasync(fd) == 0 ? 0 : errno;
}

/* ---- checkpoint slots ---- */

static uint32_t slot_crc(const uint8_t *slot, size_t psize)
{
    uLong crc = crc32(0L, slot + 8, 12);
    return (uint32_t)crc32(crc, slot + SLOT_HEADER, (uInt)(2 * psize));
}

static size_t slot_size(size_t psize)
{
    return SLOT_HEADER + 2 * psize;
}

/* The newest valid slot of commit.ckpt: its txnid, page size and meta
 * pages (malloc'd into *pages); false when none is valid. */
static bool best_slot(int fd, uint64_t *txnid, size_t *psize, uint8_t **pages)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return false;
    bool found = false;
    *pages = NULL;
    for (uint64_t off = 0; off < (uint64_t)st.st_size;) {
        uint8_t h[SLOT_HEADER];
        if (ddbi_clog_pread(fd, h, sizeof h, off) || rd64(h) != SLOT_MAGIC)
            break;
        size_t ps = (size_t)(h[16] | h[17] << 8 | (uint32_t)h[18] << 16 | (uint32_t)h[19] << 24);
        if (ps < 512 || ps > PAGE_MAX || (ps & (ps - 1)))
            break;
        size_t n = slot_size(ps);
        uint8_t *slot = malloc(n);
        if (!slot)
            break;
        uint32_t crc = (uint32_t)(h[20] | h[21] << 8 | (uint32_t)h[22] << 16 | (uint32_t)h[23] << 24);
        if (ddbi_clog_pread(fd, slot, n, off) == 0 && slot_crc(slot, ps) == crc &&
            (!found || rd64(slot + 8) > *txnid)) {
            free(*pages);
            *pages = malloc(2 * ps);
            if (*pages) {
                memcpy(*pages, slot + SLOT_HEADER, 2 * ps);
                *txnid = rd64(slot + 8);
                *psize = ps;
                found = true;
            }
        }
        free(slot);
        off += n;
    }
    return found;
}

static bool has_txnid(const uint8_t *pages, size_t psize, uint64_t txnid)
{
    return rd64(pages + META_TXNID_AT) == txnid || rd64(pages + psize + META_TXNID_AT) == txnid;
}

/* ---- checkpoint ---- */

static int data_fd(ddbi_engine *db)
{
    int fd = -1;
    return mdb_env_get_fd(db->env, &fd) == 0 ? fd : -1;
}

/* With LMDB's write lock held (txn, nothing written yet): the data file
 * synced as of the last commit C, its meta pages kept in the next slot
 * and synced, the reader renewed on C, the log restarted.  0 or an errno. */
static int checkpoint(ddbi_engine *db, MDB_txn *txn)
{
    ddbi_clog *l = db->clog;
    uint64_t c = mdb_txn_id(txn) - 1;
    int rc = mdb_env_sync(db->env, 1);
    if (rc)
        return rc;
    size_t n = slot_size(l->psize);
    uint8_t *slot = malloc(n);
    if (!slot)
        return ENOMEM;
    int fd = data_fd(db);
    rc = fd < 0 ? EIO : ddbi_clog_pread(fd, slot + SLOT_HEADER, 2 * l->psize, 0);
    if (!rc && !has_txnid(slot + SLOT_HEADER, l->psize, c))
        rc = EIO; /* not LMDB 0.9's meta page layout: the log cannot restore it */
    if (!rc) {
        le64(slot, SLOT_MAGIC);
        le64(slot + 8, c);
        for (int i = 0; i < 4; i++)
            slot[16 + i] = (uint8_t)(l->psize >> (8 * i));
        uint32_t crc = slot_crc(slot, l->psize);
        for (int i = 0; i < 4; i++)
            slot[20 + i] = (uint8_t)(crc >> (8 * i));
        rc = write_full(l->ckpt_fd, slot, n, (uint64_t)l->next_slot * n);
    }
    free(slot);
    if (!rc)
        rc = sync_fd(l->ckpt_fd);
    if (rc)
        return rc;
    l->next_slot ^= 1;
    if (l->pin) {
        mdb_txn_reset(l->pin);
        rc = mdb_txn_renew(l->pin);
    } else {
        rc = mdb_txn_begin(db->env, NULL, MDB_RDONLY, &l->pin);
    }
    if (rc) {
        l->pin = NULL;
        return rc;
    }
    l->tail = 0;
    l->since_ckpt = 0;
    l->last_txnid = c;
    return 0;
}

/* ---- the commit path ---- */

int ddbi_clog_begin(ddbi_engine *db, MDB_txn *txn)
{
    ddbi_clog *l = db->clog;
    l->rec.len = 0;
    if (l->rec.cap > ((size_t)1 << 20))
        ddbi_buf_free(&l->rec); /* do not keep a big transaction's buffer */
    /* a transaction the log did not see (the open's) restarts it */
    if (l->since_ckpt >= DDBI_CLOG_CKPT_COMMITS || l->tail >= DDBI_CLOG_CKPT_BYTES ||
        mdb_txn_id(txn) != l->last_txnid + 1)
        return checkpoint(db, txn);
    return 0;
}

size_t ddbi_clog_mark(const ddbi_engine *db)
{
    return db->clog ? db->clog->rec.len : 0;
}

void ddbi_clog_rollback(ddbi_engine *db, size_t mark)
{
    if (db->clog && db->clog->rec.len > mark)
        db->clog->rec.len = mark;
}

int ddbi_clog_append(ddbi_engine *db, MDB_txn *txn, bool *appended)
{
    ddbi_clog *l = db->clog;
    *appended = false;
    if (!l->rec.len)
        return 0; /* LMDB commits a transaction that changed nothing without writing
                   */
    if (l->rec.len > DDBI_CLOG_RECORD_MAX)
        return EFBIG;
    uint64_t txnid = mdb_txn_id(txn);
    uint8_t h[DDBI_CLOG_HEADER];
    ddbi_clog_header(h, txnid, l->rec.p, l->rec.len);
    struct iovec iov[2] = {{h, sizeof h}, {l->rec.p, l->rec.len}};
    size_t want = sizeof h + l->rec.len, done = 0;
    while (done < want) {
        ssize_t w = pwritev(l->log_fd, iov, 2, (off_t)(l->tail + done));
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return w < 0 ? errno : EIO;
        done += (size_t)w;
        if (done < want) { /* short write: the rest */
            int rc = done < sizeof h ? write_full(l->log_fd, h + done, sizeof h - done, l->tail + done) : 0;
            size_t off = done < sizeof h ? 0 : done - sizeof h;
            if (!rc)
                rc = write_full(l->log_fd, l->rec.p + off, l->rec.len - off, l->tail + sizeof h + off);
            if (rc)
                return rc;
            done = want;
        }
    }
    l->prev_tail = l->tail;
    l->prev_txnid = l->last_txnid;
    l->tail += want;
    l->since_ckpt++;
    l->last_txnid = txnid;
    *appended = true;
    return 0;
}

void ddbi_clog_unappend(ddbi_engine *db)
{
    ddbi_clog *l = db->clog;
    l->tail = l->prev_tail;
    l->last_txnid = l->prev_txnid;
    l->since_ckpt--;
}

int ddbi_clog_sync(ddbi_engine *db)
{
    return sync_fd(db->clog->log_fd);
}

/* ---- open ---- */

/* The files are opened by their paths, not relative to a directory
 * descriptor, so that tools that watch a directory's files by path (the
 * power-loss simulator of the tests) see them. */
static const char *in_dir(const char *dir, const char *name, char out[PATH_MAX])
{
    if (snprintf(out, PATH_MAX, "%s/%s", dir, name) >= PATH_MAX)
        out[0] = '\0'; /* opens nothing */
    return out;
}

/* Does another process have the LMDB environment of the directory open?
 * (LMDB holds a lock on the first byte of lock.mdb in every process that
 * has it open.)  Only before this process opens it: closing a descriptor
 * of lock.mdb would drop this process's own locks on it. */
static bool others_have_env(const char *dir)
{
    char p[PATH_MAX];
    int fd = open(in_dir(dir, "lock.mdb", p), O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return false;
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1};
    int r = fcntl(fd, F_GETLK, &fl);
    close(fd);
    return r == 0 && fl.l_type != F_UNLCK;
}

static bool file_nonempty(const char *dir, const char *name)
{
    struct stat st;
    char p[PATH_MAX];
    return stat(in_dir(dir, name, p), &st) == 0 && st.st_size > 0;
}

static int open_file(ddbi_clog *l, const char *name, int flags, ddb_error *err)
{
    char p[PATH_MAX];
    int fd = open(in_dir(l->dir, name, p), flags | O_CLOEXEC, 0644);
    if (fd < 0)
        return -ddbi_fail(err, DDB_EIO, "ddb_open: cannot open %s: %s", name, strerror(errno)) - 1;
    return fd;
}

static void clog_free(ddbi_clog *l)
{
    if (!l)
        return;
    if (l->pin)
        mdb_txn_abort(l->pin);
    int fds[] = {l->log_fd, l->ckpt_fd, l->lock_fd, l->dir_fd};
    for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    for (size_t i = 0; i < DDBI_CLOG_MAXDBS; i++)
        free(l->names[i]);
    ddbi_buf_free(&l->rec);
    free(l->restore);
    free(l);
}

/* Write the checkpoint's meta pages back over the data file's and sync. */
static int restore_meta(ddbi_clog *l, ddb_error *err)
{
    char p[PATH_MAX];
    int fd = open(in_dir(l->dir, "data.mdb", p), O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return ddbi_fail(err, DDB_ECORRUPT, "ddb_open: %s is left but data.mdb cannot be opened: %s", DDBI_CLOG_CKPT,
                         strerror(errno));
    int rc = write_full(fd, l->restore, 2 * l->psize, 0);
    if (!rc)
        rc = sync_fd(fd);
    close(fd);
    if (rc)
        return ddbi_fail(err, rc == ENOSPC ? DDB_EFULL : DDB_EIO,
                         "ddb_open: writing the checkpoint's meta pages back into data.mdb: %s", strerror(rc));
    return DDB_OK;
}

int ddbi_clog_prepare(ddbi_engine *db, const char *path, ddb_error *err)
{
    bool logs = db->opts.commit_log && db->opts.sync != DDB_SYNC_NONE && !db->opts.read_only;
    bool left = file_nonempty(path, DDBI_CLOG_CKPT);
    if (db->opts.read_only) {
        /* a live writer's pages are all in the page cache: read them; with
         * none, the file is as a crash left it until the log is replayed */
        char p[PATH_MAX];
        int lfd = left ? open(in_dir(path, DDBI_CLOG_LOCK, p), O_RDONLY | O_CLOEXEC) : -1;
        bool live = lfd >= 0 && flock(lfd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
        if (lfd >= 0)
            close(lfd);
        if (left && !live)
            return ddbi_fail(err, DDB_EINVAL,
                             "ddb_open: %s holds a commit log that was not closed "
                             "(%s); a read-only open cannot "
                             "replay it: open the database for writing once",
                             path, DDBI_CLOG_CKPT);
        return DDB_OK;
    }
    if (!logs && !left)
        return DDB_OK;
    int dir_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir_fd < 0)
        return ddbi_fail(err, DDB_EIO, "ddb_open: cannot open directory %s: %s", path, strerror(errno));
    ddbi_clog *l = calloc(1, sizeof *l);
    if (!l) {
        close(dir_fd);
        return ddbi_fail_oom(err, "ddb_open");
    }
    l->dir_fd = dir_fd;
    l->log_fd = l->ckpt_fd = -1;
    if (snprintf(l->dir, sizeof l->dir, "%s", path) >= (int)sizeof l->dir)
        return ddbi_fail(err, DDB_EINVAL, "ddb_open: path %s is too long", path);
    db->clog = l;
    if ((l->lock_fd = open_file(l, DDBI_CLOG_LOCK, O_RDWR | O_CREAT, err)) < 0)
        return -(l->lock_fd + 1);
    if (flock(l->lock_fd, LOCK_EX | LOCK_NB) != 0)
        return ddbi_fail(err, DDB_EINVAL,
                         "ddb_open: %s is open in another process that writes "
                         "through a commit log; %s",
                         path, logs ? "a commit log needs the directory to itself" : "close it first");
    if (logs && others_have_env(path))
        return ddbi_fail(err, DDB_EINVAL,
                         "ddb_open: %s is open in another process; a commit log "
                         "(ddb_options.commit_log) needs the "
                         "directory to itself",
                         path);
    if (!left)
        return DDB_OK;
    if ((l->ckpt_fd = open_file(l, DDBI_CLOG_CKPT, O_RDWR, err)) < 0)
        return -(l->ckpt_fd + 1);
    if (!best_slot(l->ckpt_fd, &l->restore_txnid, &l->psize, &l->restore))
        return DDB_OK; /* the first checkpoint was torn: nothing was logged after it
                        */
    if (others_have_env(path))
        return ddbi_fail(err, DDB_EINVAL,
                         "ddb_open: %s holds a commit log left by a writer that "
                         "did not close, and another process "
                         "has the database open; replaying the log needs the "
                         "directory to itself",
                         path);
    return restore_meta(l, err);
}

/* Replay the log's records that follow the checkpoint, each in its own
 * transaction whose txnid must be the record's. */
static int replay(ddbi_engine *db, ddb_error *err)
{
    ddbi_clog *l = db->clog;
    char p[PATH_MAX];
    int fd = open(in_dir(l->dir, DDBI_CLOG_FILE, p), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT
                   ? DDB_OK
                   : ddbi_fail(err, DDB_EIO, "ddb_open: cannot open %s: %s", DDBI_CLOG_FILE, strerror(errno));
    struct stat st;
    ddb_buf rec = {0};
    uint64_t off = 0, txnid = 0, n = 0;
    int rc =
        fstat(fd, &st) == 0 ? DDB_OK : ddbi_fail(err, DDB_EIO, "ddb_open: %s: %s", DDBI_CLOG_FILE, strerror(errno));
    while (!rc) {
        uint64_t next = 0;
        int r = ddbi_clog_read(fd, off, (uint64_t)st.st_size, &rec, &txnid, &next);
        if (r == DDB_ENOMEM) {
            rc = ddbi_fail_oom(err, "ddb_open: replaying the commit log");
            break;
        }
        if (r)
            break; /* the end, a torn tail or damage: nothing after it is replayed */
        MDB_txn *txn;
        if ((r = mdb_txn_begin(db->env, NULL, 0, &txn))) {
            rc = ddbi_mdb_fail(err, r, "ddb_open: replaying the commit log");
            break;
        }
        if (mdb_txn_id(txn) != txnid) {
            mdb_txn_abort(txn); /* a gap, or an older generation of the log */
            break;
        }
        if ((r = ddbi_clog_apply(txn, rec.p, rec.len)))
            mdb_txn_abort(txn);
        else
            r = mdb_txn_commit(txn);
        if (r) {
            rc = ddbi_fail(err, DDB_ECORRUPT,
                           "ddb_open: record %" PRIu64 " of %s (transaction %" PRIu64 ") does not apply: %s", n + 1,
                           DDBI_CLOG_FILE, txnid, mdb_strerror(r));
            break;
        }
        n++;
        off = next;
    }
    free(rec.p);
    close(fd);
    return rc;
}

int ddbi_clog_recover(ddbi_engine *db, ddb_error *err)
{
    ddbi_clog *l = db->clog;
    if (!l || !l->restore)
        return DDB_OK;
    /* the checkpoint's pages stay as they are while the log replays: a
     * power loss during the replay recovers from the same checkpoint */
    int rc = mdb_txn_begin(db->env, NULL, MDB_RDONLY, &l->pin);
    if (rc) {
        l->pin = NULL;
        return ddbi_mdb_fail(err, rc, "ddb_open: recovery");
    }
    unsigned flags = 0;
    mdb_env_get_flags(db->env, &flags);
    l->recovering_nosync = !(flags & MDB_NOSYNC);
    if ((rc = mdb_env_set_flags(db->env, MDB_NOSYNC, 1)))
        return ddbi_mdb_fail(err, rc, "ddb_open: recovery");
    return replay(db, err);
}

/* commit.log and commit.ckpt opened (created, and their names synced,
 * when missing) */
static int open_log_files(ddbi_clog *l, ddb_error *err)
{
    char p[PATH_MAX], q[PATH_MAX];
    bool created =
        access(in_dir(l->dir, DDBI_CLOG_FILE, p), F_OK) != 0 || access(in_dir(l->dir, DDBI_CLOG_CKPT, q), F_OK) != 0;
    if ((l->log_fd = open_file(l, DDBI_CLOG_FILE, O_RDWR | O_CREAT, err)) < 0)
        return -(l->log_fd + 1);
    if (l->ckpt_fd < 0 && (l->ckpt_fd = open_file(l, DDBI_CLOG_CKPT, O_RDWR | O_CREAT, err)) < 0)
        return -(l->ckpt_fd + 1);
    if (created && fsync(l->dir_fd) != 0)
        return ddbi_fail(err, DDB_EIO, "ddb_open: syncing the directory of %s: %s", DDBI_CLOG_FILE, strerror(errno));
    return DDB_OK;
}

/* The log's files made obsolete, then removed: the data file is durable
 * as it is.  An emptied commit.ckpt is no checkpoint, so a power loss
 * before the removal reaches the disk recovers nothing stale.  0 or an
 * errno. */
static int retire_log_files(ddbi_engine *db)
{
    ddbi_clog *l = db->clog;
    int rc = l->log_fd >= 0 ? sync_fd(l->log_fd) : 0;
    if (!rc)
        rc = mdb_env_sync(db->env, 1);
    if (!rc && l->ckpt_fd >= 0)
        rc = ftruncate(l->ckpt_fd, 0) == 0 ? sync_fd(l->ckpt_fd) : errno;
    if (rc)
        return rc;
    char p[PATH_MAX];
    unlink(in_dir(l->dir, DDBI_CLOG_FILE, p));
    unlink(in_dir(l->dir, DDBI_CLOG_CKPT, p));
    return fsync(l->dir_fd) == 0 ? 0 : errno;
}

int ddbi_clog_opened(ddbi_engine *db, ddb_error *err)
{
    ddbi_clog *l = db->clog;
    if (!l)
        return DDB_OK;
    int rc;
    if (!db->opts.commit_log || db->opts.sync == DDB_SYNC_NONE) {
        /* a log left by a writer that used one: replayed; now retired */
        if ((rc = retire_log_files(db)))
            return ddbi_mdb_fail(err, rc, "ddb_open: retiring the replayed commit log");
        if (l->recovering_nosync && (rc = mdb_env_set_flags(db->env, MDB_NOSYNC, 0)))
            return ddbi_mdb_fail(err, rc, "ddb_open");
        clog_free(l);
        db->clog = NULL;
        return DDB_OK;
    }
    MDB_stat ms;
    if ((rc = mdb_env_stat(db->env, &ms)))
        return ddbi_mdb_fail(err, rc, "ddb_open: commit log");
    l->psize = ms.ms_psize;
    if ((rc = open_log_files(l, err)))
        return rc;
    MDB_txn *txn;
    if ((rc = mdb_txn_begin(db->env, NULL, 0, &txn)))
        return ddbi_mdb_fail(err, rc, "ddb_open: commit log");
    rc = checkpoint(db, txn);
    mdb_txn_abort(txn);
    if (!rc)
        rc = mdb_env_set_flags(db->env, MDB_NOSYNC, 1);
    return rc ? ddbi_mdb_fail(err, rc, "ddb_open: the commit log's first checkpoint") : DDB_OK;
}

void ddbi_clog_close(ddbi_engine *db)
{
    ddbi_clog *l = db->clog;
    if (!l)
        return;
    /* a poisoned handle leaves the log to the next open's recovery */
    if (db->env && l->log_fd >= 0 && !atomic_load(&db->poisoned) && retire_log_files(db) != 0)
        fprintf(stderr,
                "libddb: closing %s: the commit log could not be retired; the next "
                "open replays it\n",
                DDBI_CLOG_FILE);
    clog_free(l);
    db->clog = NULL;
}
