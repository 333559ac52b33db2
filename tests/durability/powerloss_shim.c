/* A power-loss simulator, loaded with LD_PRELOAD into a test process.
 *
 * Inert until the process calls ddbt_shim_start(dir, shadow, ...) (found
 * with dlsym), or from its start when the environment names DDBT_SHIM_DIR
 * and DDBT_SHIM_SHADOW (DDBT_SHIM_FAIL_SYNC: fail_sync).  From then on it watches the files of directory dir (by the
 * path they are opened with) and keeps, per file, a shadow copy in
 * directory shadow holding the contents as of the file's last successful
 * sync: what a disk would hold after a power loss.
 *   - write, pwrite, writev, pwritev: the range is remembered as dirty
 *     (on a file opened O_DSYNC/O_SYNC it is copied to the shadow at once);
 *   - fsync, fdatasync: the dirty ranges are copied from the file to the
 *     shadow, and the shadow gets the file's size;
 *   - a file created after start is durable only once its directory is
 *     fsynced: until then its shadow is named NAME.unlinked;
 *   - fail_sync = n: the n-th sync of a watched file fails with EIO and,
 *     as Linux does, its dirty ranges are dropped (never copied, a later
 *     successful sync does not bring them back);
 *   - atomic: each sync reaches the shadow whole or not at all, even when
 *     the process is killed while the shim copies it (the ranges go to
 *     NAME.journal first; ddbt_shim_recover() finishes or drops it).
 *     Without it a kill during a sync leaves part of it, in no order: what
 *     a disk does when the power fails during a sync;
 *   - file_max: a write may not take a watched file beyond file_max bytes
 *     (a full disk): the write that crosses it is short, later ones fail
 *     with ENOSPC, and fstatvfs then reports no free blocks.
 * Writes through a writable memory map are not seen (msync is not
 * shadowed): the engine writes with pwrite in every sync mode.
 *
 * Files in dir at start are taken as durable: their contents are copied
 * to the shadow then, unless the shadow holds a file of that name already
 * (a test that may kill the process at once prepares the shadow itself). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#define MAX_FILES 16
#define MAX_FDS 4096

typedef struct range {
    off_t off, len;
} range;

typedef struct sfile {
    char name[256];
    char shadow[PATH_MAX];
    int shadow_fd;
    bool durable_entry;
    range *dirty;
    size_t n_dirty, cap_dirty;
} sfile;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static bool active;
static char g_dir[PATH_MAX], g_shadow[PATH_MAX];
static unsigned long g_syncs, g_fail_sync;
static off_t g_file_max;
static bool g_full, g_atomic;
static sfile files[MAX_FILES];
static size_t n_files;
/* fd -> 1 + file index, or -1 for the watched directory, 0 = not watched */
static int fd_file[MAX_FDS];
static bool fd_dsync[MAX_FDS];

/* the C library's functions */
static int (*r_open)(const char *, int, ...);
static int (*r_openat)(int, const char *, int, ...);
static int (*r_close)(int);
static ssize_t (*r_write)(int, const void *, size_t);
static ssize_t (*r_pwrite)(int, const void *, size_t, off_t);
static ssize_t (*r_writev)(int, const struct iovec *, int);
static ssize_t (*r_pwritev)(int, const struct iovec *, int, off_t);
static ssize_t (*r_pread)(int, void *, size_t, off_t);
static int (*r_fsync)(int);
static int (*r_fdatasync)(int);
static int (*r_fstatvfs)(int, struct statvfs *);
static off_t (*r_lseek)(int, off_t, int);
static int (*r_ftruncate)(int, off_t);
static int (*r_rename)(const char *, const char *);

void ddbt_shim_start(const char *dir, const char *shadow, unsigned long fail_sync, uint64_t file_max, bool atomic);

__attribute__((constructor)) static void shim_init(void)
{
    r_open = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
    r_openat = (int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, "openat");
    r_close = (int (*)(int))dlsym(RTLD_NEXT, "close");
    r_write = (ssize_t(*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
    r_pwrite = (ssize_t(*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite");
    r_writev = (ssize_t(*)(int, const struct iovec *, int))dlsym(RTLD_NEXT, "writev");
    r_pwritev = (ssize_t(*)(int, const struct iovec *, int, off_t))dlsym(RTLD_NEXT, "pwritev");
    r_pread = (ssize_t(*)(int, void *, size_t, off_t))dlsym(RTLD_NEXT, "pread");
    r_fsync = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    r_fdatasync = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    r_fstatvfs = (int (*)(int, struct statvfs *))dlsym(RTLD_NEXT, "fstatvfs");
    r_lseek = (off_t(*)(int, off_t, int))dlsym(RTLD_NEXT, "lseek");
    r_ftruncate = (int (*)(int, off_t))dlsym(RTLD_NEXT, "ftruncate");
    r_rename = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
    /* a program that cannot call ddbt_shim_start (ddb serve) is started by
     * its environment: DDBT_SHIM_DIR, DDBT_SHIM_SHADOW, DDBT_SHIM_FAIL_SYNC */
    const char *dir = getenv("DDBT_SHIM_DIR"), *shadow = getenv("DDBT_SHIM_SHADOW");
    const char *fail = getenv("DDBT_SHIM_FAIL_SYNC");
    if (dir && shadow)
        ddbt_shim_start(dir, shadow, fail ? strtoul(fail, NULL, 10) : 0, 0, false);
}

static void die(const char *what)
{
    char m[512];
    int n = snprintf(m, sizeof m, "powerloss shim: %s: %s\n", what, strerror(errno));
    if (n > 0 && r_write(2, m, (size_t)n) < 0)
        abort();
    abort();
}

/* Copy [off, off+len) of fd into the shadow of f. */
static void copy_range(int fd, sfile *f, off_t off, off_t len)
{
    char buf[65536];
    while (len > 0) {
        size_t want = len < (off_t)sizeof buf ? (size_t)len : sizeof buf;
        ssize_t n = r_pread(fd, buf, want, off);
        if (n < 0)
            die("pread");
        if (n == 0)
            return; /* the file was truncated meanwhile */
        if (r_pwrite(f->shadow_fd, buf, (size_t)n, off) != n)
            die("writing the shadow");
        off += n;
        len -= n;
    }
}

static void shadow_name(sfile *f)
{
    char name[sizeof f->name];
    memcpy(name, f->name, sizeof name);
    size_t n = strlen(g_shadow), k = strlen(name);
    const char *suffix = f->durable_entry ? "" : ".unlinked";
    if (n + 1 + k + strlen(suffix) >= sizeof f->shadow)
        die("shadow path too long");
    memcpy(f->shadow, g_shadow, n);
    f->shadow[n] = '/';
    memcpy(f->shadow + n + 1, name, k);
    strcpy(f->shadow + n + 1 + k, suffix);
}

/* The watched file named name (the part of path after the directory). */
static sfile *file_for(const char *name, int fd, bool created)
{
    for (size_t i = 0; i < n_files; i++)
        if (strcmp(files[i].name, name) == 0)
            return &files[i];
    if (n_files == MAX_FILES || strlen(name) >= sizeof files[0].name)
        die("too many or too long file names");
    sfile *f = &files[n_files++];
    memset(f, 0, sizeof *f);
    strcpy(f->name, name);
    f->durable_entry = !created;
    shadow_name(f);
    /* a shadow the test prepared holds the durable contents already */
    if (!created && (f->shadow_fd = r_open(f->shadow, O_RDWR | O_CLOEXEC)) >= 0)
        return f;
    f->shadow_fd = r_open(f->shadow, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (f->shadow_fd < 0)
        die(f->shadow);
    struct stat st;
    if (!created && fstat(fd, &st) == 0) { /* existing contents are durable */
        copy_range(fd, f, 0, st.st_size);
        if (r_ftruncate(f->shadow_fd, st.st_size) != 0)
            die("ftruncate shadow");
    }
    return f;
}

/* Which watched file path names: its name inside g_dir, NULL if none;
 * *is_dir when path is g_dir itself. */
static const char *watched_name(const char *path, bool *is_dir)
{
    size_t n = strlen(g_dir);
    *is_dir = false;
    if (strncmp(path, g_dir, n) != 0)
        return NULL;
    const char *rest = path + n;
    while (*rest == '/')
        rest++;
    if (!*rest) {
        *is_dir = true;
        return NULL;
    }
    if (rest == path + n || strchr(rest, '/'))
        return NULL;
    return rest;
}

static void track(const char *path, int flags, int fd, bool existed)
{
    if (!active || fd < 0 || fd >= MAX_FDS)
        return;
    pthread_mutex_lock(&mu);
    bool is_dir;
    const char *name = watched_name(path, &is_dir);
    if (is_dir) {
        fd_file[fd] = -1;
    } else if (name) {
        sfile *f = file_for(name, fd, !existed);
        fd_file[fd] = (int)(f - files) + 1;
        fd_dsync[fd] = (flags & (O_DSYNC | O_SYNC)) != 0;
    }
    pthread_mutex_unlock(&mu);
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static int opened(int dirfd, const char *path, int flags, mode_t mode)
{
    /* names relative to another directory are not watched */
    bool named = path[0] == '/' || dirfd == AT_FDCWD;
    bool existed = active && named ? exists(path) : true;
    int fd = r_openat(dirfd, path, flags, mode);
    if (named)
        track(path, flags, fd, existed);
    return fd;
}

/* the mode argument that follows flags when a file may be created */
#define MODE_ARG(flags, mode)                                                                                         \
    do {                                                                                                              \
        if ((flags) & (O_CREAT | O_TMPFILE)) {                                                                        \
            va_list ap;                                                                                               \
            va_start(ap, flags);                                                                                      \
            mode = (mode_t)va_arg(ap, int);                                                                           \
            va_end(ap);                                                                                               \
        }                                                                                                             \
    } while (0)

int open(const char *path, int flags, ...)
{
    mode_t mode = 0;
    MODE_ARG(flags, mode);
    return opened(AT_FDCWD, path, flags, mode);
}

int open64(const char *path, int flags, ...) __attribute__((alias("open")));

int openat(int dirfd, const char *path, int flags, ...)
{
    mode_t mode = 0;
    MODE_ARG(flags, mode);
    return opened(dirfd, path, flags, mode);
}

int openat64(int dirfd, const char *path, int flags, ...) __attribute__((alias("openat")));

int close(int fd)
{
    if (fd >= 0 && fd < MAX_FDS && fd_file[fd]) {
        pthread_mutex_lock(&mu);
        fd_file[fd] = 0;
        fd_dsync[fd] = false;
        pthread_mutex_unlock(&mu);
    }
    return r_close(fd);
}

static sfile *watched(int fd)
{
    return active && fd >= 0 && fd < MAX_FDS && fd_file[fd] > 0 ? &files[fd_file[fd] - 1] : NULL;
}

/* How much of a write of len bytes at off fits under file_max; sets errno
 * and returns -1 when nothing does. */
static ssize_t room(off_t off, size_t len)
{
    if (!g_file_max || off + (off_t)len <= g_file_max)
        return (ssize_t)len;
    g_full = true;
    if (off >= g_file_max) {
        errno = ENOSPC;
        return -1;
    }
    return (ssize_t)(g_file_max - off);
}

static void written(int fd, sfile *f, off_t off, ssize_t n)
{
    if (n <= 0)
        return;
    if (fd_dsync[fd]) {
        copy_range(fd, f, off, n);
        return;
    }
    if (f->n_dirty == f->cap_dirty) {
        f->cap_dirty = f->cap_dirty ? 2 * f->cap_dirty : 64;
        f->dirty = realloc(f->dirty, f->cap_dirty * sizeof *f->dirty);
        if (!f->dirty)
            die("realloc");
    }
    f->dirty[f->n_dirty++] = (range){off, n};
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
    sfile *f = watched(fd);
    if (!f)
        return r_pwrite(fd, buf, len, off);
    pthread_mutex_lock(&mu);
    ssize_t n = room(off, len);
    if (n >= 0)
        n = r_pwrite(fd, buf, (size_t)n, off);
    int e = errno;
    written(fd, f, off, n);
    pthread_mutex_unlock(&mu);
    errno = e;
    return n;
}

ssize_t pwrite64(int fd, const void *buf, size_t len, off_t off) __attribute__((alias("pwrite")));

static size_t iov_len(const struct iovec *iov, int cnt)
{
    size_t n = 0;
    for (int i = 0; i < cnt; i++)
        n += iov[i].iov_len;
    return n;
}

/* A vectored write cut to what fits: a plain pwrite of a copy. */
static ssize_t vwrite(int fd, sfile *f, const struct iovec *iov, int cnt, off_t off, bool advance)
{
    size_t len = iov_len(iov, cnt);
    ssize_t n = room(off, len);
    if (n < 0)
        return -1;
    char *b = malloc(len ? len : 1);
    if (!b)
        die("malloc");
    size_t o = 0;
    for (int i = 0; i < cnt; i++) {
        memcpy(b + o, iov[i].iov_base, iov[i].iov_len);
        o += iov[i].iov_len;
    }
    n = r_pwrite(fd, b, (size_t)n, off);
    int e = errno;
    free(b);
    if (n > 0 && advance)
        r_lseek(fd, off + n, SEEK_SET);
    written(fd, f, off, n);
    errno = e;
    return n;
}

ssize_t pwritev(int fd, const struct iovec *iov, int cnt, off_t off)
{
    sfile *f = watched(fd);
    if (!f)
        return r_pwritev(fd, iov, cnt, off);
    pthread_mutex_lock(&mu);
    ssize_t n = vwrite(fd, f, iov, cnt, off, false);
    int e = errno;
    pthread_mutex_unlock(&mu);
    errno = e;
    return n;
}

ssize_t pwritev64(int fd, const struct iovec *iov, int cnt, off_t off) __attribute__((alias("pwritev")));

ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
    sfile *f = watched(fd);
    if (!f)
        return r_writev(fd, iov, cnt);
    pthread_mutex_lock(&mu);
    ssize_t n = vwrite(fd, f, iov, cnt, r_lseek(fd, 0, SEEK_CUR), true);
    int e = errno;
    pthread_mutex_unlock(&mu);
    errno = e;
    return n;
}

ssize_t write(int fd, const void *buf, size_t len)
{
    sfile *f = watched(fd);
    if (!f)
        return r_write(fd, buf, len);
    struct iovec v = {(void *)buf, len};
    pthread_mutex_lock(&mu);
    ssize_t n = vwrite(fd, f, &v, 1, r_lseek(fd, 0, SEEK_CUR), true);
    int e = errno;
    pthread_mutex_unlock(&mu);
    errno = e;
    return n;
}

/* Journal record: off >= 0, len bytes follow; the last one has off = -1
 * and len = the file's size. */
typedef struct jrec {
    int64_t off, len;
} jrec;

static void put_all(int fd, const void *p, size_t n)
{
    if (r_write(fd, p, n) != (ssize_t)n)
        die("writing the journal");
}

/* The ranges a sync brings to the shadow, complete with the file's size
 * before the shadow is touched. */
static void write_journal(int fd, const sfile *f, const char *journal, off_t size)
{
    int j = r_open(journal, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (j < 0)
        die(journal);
    char buf[65536];
    for (size_t i = 0; i < f->n_dirty; i++) {
        off_t off = f->dirty[i].off, len = f->dirty[i].len;
        while (len > 0) {
            ssize_t n = r_pread(fd, buf, len < (off_t)sizeof buf ? (size_t)len : sizeof buf, off);
            if (n < 0)
                die("pread");
            if (n == 0)
                break;
            jrec h = {off, n};
            put_all(j, &h, sizeof h);
            put_all(j, buf, (size_t)n);
            off += n;
            len -= n;
        }
    }
    jrec end = {-1, size};
    put_all(j, &end, sizeof end);
    r_close(j);
}

/* A sync of fd: the file's dirty ranges reach the shadow, or (the chosen
 * failure) are dropped; the directory's sync makes new files' names
 * durable. */
static int sync_fd(int fd, int (*real)(int))
{
    if (!active || fd < 0 || fd >= MAX_FDS || !fd_file[fd])
        return real(fd);
    pthread_mutex_lock(&mu);
    int rc = 0;
    if (fd_file[fd] < 0) {
        rc = real(fd);
        for (size_t i = 0; i < n_files && rc == 0; i++) {
            sfile *f = &files[i];
            if (f->durable_entry)
                continue;
            char old[PATH_MAX];
            memcpy(old, f->shadow, sizeof old);
            f->durable_entry = true;
            shadow_name(f);
            if (r_rename(old, f->shadow) != 0)
                die("rename shadow");
        }
    } else {
        sfile *f = &files[fd_file[fd] - 1];
        if (++g_syncs == g_fail_sync) {
            f->n_dirty = 0; /* the kernel marks the pages it could not write clean */
            rc = -1;
            errno = EIO;
        } else if ((rc = real(fd)) == 0) {
            struct stat st;
            if (fstat(fd, &st) != 0)
                die("fstat");
            char journal[PATH_MAX + 16];
            snprintf(journal, sizeof journal, "%s.journal", f->shadow);
            if (g_atomic)
                write_journal(fd, f, journal, st.st_size);
            for (size_t i = 0; i < f->n_dirty; i++)
                copy_range(fd, f, f->dirty[i].off, f->dirty[i].len);
            f->n_dirty = 0;
            if (r_ftruncate(f->shadow_fd, st.st_size) != 0)
                die("sizing the shadow");
            if (g_atomic && unlink(journal) != 0)
                die("unlink journal");
        }
    }
    int e = errno;
    pthread_mutex_unlock(&mu);
    errno = e;
    return rc;
}

int fsync(int fd)
{
    return sync_fd(fd, r_fsync);
}

int fdatasync(int fd)
{
    return sync_fd(fd, r_fdatasync);
}

int fstatvfs(int fd, struct statvfs *buf)
{
    int rc = r_fstatvfs(fd, buf);
    if (rc == 0 && watched(fd) && g_full)
        buf->f_bfree = buf->f_bavail = 0;
    return rc;
}

/* ---- control (called by the test through dlsym) ---- */

/* Start watching dir, shadowing into shadow (an existing directory).
 * fail_sync: the n-th sync of a watched file fails with EIO (0: none);
 * file_max: the size no watched file may grow beyond (0: unlimited);
 * atomic: syncs are all or nothing (see the top). */
void ddbt_shim_start(const char *dir, const char *shadow, unsigned long fail_sync, uint64_t file_max, bool atomic)
{
    pthread_mutex_lock(&mu);
    snprintf(g_dir, sizeof g_dir, "%s", dir);
    snprintf(g_shadow, sizeof g_shadow, "%s", shadow);
    size_t n = strlen(g_dir);
    while (n > 1 && g_dir[n - 1] == '/')
        g_dir[--n] = '\0';
    g_fail_sync = fail_sync;
    g_file_max = (off_t)file_max;
    g_syncs = 0;
    g_full = false;
    g_atomic = atomic;
    for (size_t i = 0; i < n_files; i++) { /* a restart: the last start's files are forgotten */
        free(files[i].dirty);
        if (files[i].shadow_fd >= 0)
            r_close(files[i].shadow_fd);
    }
    n_files = 0;
    DIR *d = opendir(g_dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        char path[PATH_MAX + 256];
        snprintf(path, sizeof path, "%s/%s", g_dir, e->d_name);
        struct stat st;
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        int fd = r_open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            die(path);
        file_for(e->d_name, fd, false);
        r_close(fd);
    }
    if (d)
        closedir(d);
    active = true;
    pthread_mutex_unlock(&mu);
}

/* Syncs of watched files so far (the failing one included). */
unsigned long ddbt_shim_syncs(void)
{
    pthread_mutex_lock(&mu);
    unsigned long n = g_syncs;
    pthread_mutex_unlock(&mu);
    return n;
}

/* Fail the n-th sync from now (counted like fail_sync). */
void ddbt_shim_fail_sync_in(unsigned long n)
{
    pthread_mutex_lock(&mu);
    g_fail_sync = g_syncs + n;
    pthread_mutex_unlock(&mu);
}

/* After a kill: finish the sync whose journal file (a shadow's
 * NAME.journal) is complete, or drop it.  Returns 0, -1 on an I/O error. */
int ddbt_shim_recover(const char *shadow_file)
{
    char journal[PATH_MAX + 16];
    snprintf(journal, sizeof journal, "%s.journal", shadow_file);
    int j = r_open(journal, O_RDONLY | O_CLOEXEC);
    if (j < 0)
        return errno == ENOENT ? 0 : -1;
    struct stat st;
    if (fstat(j, &st) != 0)
        return -1;
    /* complete: ends with the size record */
    jrec h;
    bool complete = st.st_size >= (off_t)sizeof h && r_pread(j, &h, sizeof h, st.st_size - (off_t)sizeof h) ==
                                                           (ssize_t)sizeof h && h.off == -1;
    int rc = 0;
    if (complete) {
        int f = r_open(shadow_file, O_WRONLY | O_CLOEXEC);
        off_t pos = 0;
        char buf[65536];
        while (f >= 0 && rc == 0 && r_pread(j, &h, sizeof h, pos) == (ssize_t)sizeof h) {
            pos += (off_t)sizeof h;
            if (h.off < 0) {
                rc = r_ftruncate(f, h.len);
                break;
            }
            for (int64_t done = 0; done < h.len && rc == 0;) {
                size_t n = h.len - done < (int64_t)sizeof buf ? (size_t)(h.len - done) : sizeof buf;
                if (r_pread(j, buf, n, pos) != (ssize_t)n || r_pwrite(f, buf, n, h.off + done) != (ssize_t)n)
                    rc = -1;
                pos += (off_t)n;
                done += (int64_t)n;
            }
        }
        if (f < 0)
            rc = -1;
        else
            r_close(f);
    }
    r_close(j);
    return rc == 0 && unlink(journal) == 0 ? 0 : -1;
}
