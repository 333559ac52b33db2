/* ddb-bench-sync: what one durable commit costs on this machine's disk,
 * for the commit shapes a storage engine can choose between:
 *   log-append     append one record to a growing log file, fdatasync it
 *                  (the file's size changes: the journal commits too)
 *   log-reuse      overwrite the next record of a log file written and
 *                  synced beforehand (only data blocks change)
 *   two-syncs      LMDB's commit: write the transaction's scattered pages
 *                  into the data file, fdatasync, write the meta page,
 *                  fdatasync again
 *   one-sync       the same writes with one fdatasync (not crash-safe: the
 *                  floor of a single sync over scattered pages)
 *   redo           what a redo log costs per commit: the scattered pages
 *                  written without a sync, one record appended to a reused
 *                  log and synced, and every --checkpoint commits an
 *                  fdatasync of the data file
 * The shapes take turns, round after round; the table gives each one's
 * median time per commit over the rounds.  No engine is involved: plain
 * pwrite and fdatasync on files in --dir.  May call the C library and bx.h.
 * Not a test: no timing assertions. */
#include "bx.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PAGE 4096

typedef struct cfg {
    const char *dir;
    int commits; /* per shape and round */
    int rounds;
    int pages;      /* scattered data pages per commit */
    int record;     /* log record bytes per commit */
    int checkpoint; /* redo: commits between data file syncs */
    int data_mib;   /* size of the data file the pages are scattered over */
} cfg;

typedef struct files {
    int data, log_grow, log_reuse;
    off_t grow_at, reuse_at, reuse_size;
    uint64_t rng;
    unsigned char page[PAGE];
    unsigned char *rec;
} files;

static int die(const char *what)
{
    fprintf(stderr, "ddb-bench-sync: %s: %s\n", what, strerror(errno));
    return -1;
}

static int full_pwrite(int fd, const void *buf, size_t n, off_t at)
{
    const unsigned char *p = buf;
    while (n) {
        ssize_t w = pwrite(fd, p, n, at);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return die("pwrite");
        }
        p += w, n -= (size_t)w, at += w;
    }
    return 0;
}

static int sync_fd(int fd)
{
    return fdatasync(fd) == 0 ? 0 : die("fdatasync");
}

/* A file of `bytes` bytes written and synced, so that later overwrites
 * change no metadata. */
static int prewritten(const char *path, off_t bytes, unsigned char *page)
{
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return die(path);
    for (off_t at = 0; at < bytes; at += PAGE)
        if (full_pwrite(fd, page, PAGE, at)) {
            close(fd);
            return -1;
        }
    if (fsync(fd)) {
        close(fd);
        return die("fsync");
    }
    return fd;
}

static int scattered_pages(const cfg *c, files *f)
{
    uint64_t npages = (uint64_t)c->data_mib * 1024 * 1024 / PAGE;
    for (int i = 0; i < c->pages; i++) {
        off_t at = (off_t)(2 + bx_rand(&f->rng) % (npages - 2)) * PAGE;
        f->page[0]++;
        if (full_pwrite(f->data, f->page, PAGE, at))
            return -1;
    }
    return 0;
}

static int meta_page(files *f, int n)
{
    f->page[1]++;
    return full_pwrite(f->data, f->page, PAGE, (off_t)(n & 1) * PAGE);
}

static int log_reuse_append(const cfg *c, files *f)
{
    if (f->reuse_at + c->record > f->reuse_size)
        f->reuse_at = 0; /* wrap: the file stays as written beforehand */
    f->rec[0]++;
    if (full_pwrite(f->log_reuse, f->rec, (size_t)c->record, f->reuse_at))
        return -1;
    f->reuse_at += c->record;
    return sync_fd(f->log_reuse);
}

enum shape { LOG_APPEND, LOG_REUSE, TWO_SYNCS, ONE_SYNC, REDO, N_SHAPES };
static const char *const shape_name[N_SHAPES] = {"log-append", "log-reuse", "two-syncs", "one-sync", "redo"};

static int commit(const cfg *c, files *f, enum shape s, int n)
{
    switch (s) {
    case LOG_APPEND:
        f->rec[0]++;
        if (full_pwrite(f->log_grow, f->rec, (size_t)c->record, f->grow_at))
            return -1;
        f->grow_at += c->record;
        return sync_fd(f->log_grow);
    case LOG_REUSE:
        return log_reuse_append(c, f);
    case TWO_SYNCS:
        if (scattered_pages(c, f) || sync_fd(f->data) || meta_page(f, n))
            return -1;
        return sync_fd(f->data);
    case ONE_SYNC:
        if (scattered_pages(c, f) || meta_page(f, n))
            return -1;
        return sync_fd(f->data);
    case REDO:
        if (scattered_pages(c, f) || meta_page(f, n) || log_reuse_append(c, f))
            return -1;
        return (n + 1) % c->checkpoint ? 0 : sync_fd(f->data);
    default:
        return -1;
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    cfg c = {"/tmp/ddb-bench-sync", 200, 5, 8, 512, 100, 64};
    bool help = false;
    const bx_opt opts[] = {
        {"--dir", BX_OPT_ARG, &c.dir, 0},           {"--commits", BX_OPT_INT, &c.commits, 0},
        {"--rounds", BX_OPT_INT, &c.rounds, 0},     {"--pages", BX_OPT_INT, &c.pages, 0},
        {"--record", BX_OPT_INT, &c.record, 0},     {"--checkpoint", BX_OPT_INT, &c.checkpoint, 0},
        {"--data-mib", BX_OPT_INT, &c.data_mib, 0}, {"--help", BX_OPT_FLAG, &help, 0},
    };
    if (!bx_parse_args(argc, argv, opts, sizeof opts / sizeof opts[0]) || help || c.commits < 1 || c.rounds < 1 ||
        c.pages < 0 || c.record < 1 || c.record > 1 << 24 || c.checkpoint < 1 || c.data_mib < 1 || c.data_mib > 4096) {
        fprintf(stderr, "usage: ddb-bench-sync [--dir DIR] [--commits N] [--rounds "
                        "R] [--pages P] [--record BYTES] "
                        "[--checkpoint N] [--data-mib M]\n");
        return help ? 0 : 2;
    }
    if (bx_fresh_dir(c.dir))
        return 1;
    files f = {.rng = 0x9e3779b97f4a7c15ull};
    f.rec = calloc(1, (size_t)c.record);
    if (!f.rec)
        return 1;
    memset(f.page, 0xa5, sizeof f.page);
    char path[4096];
    snprintf(path, sizeof path, "%s/data", c.dir);
    f.data = prewritten(path, (off_t)c.data_mib * 1024 * 1024, f.page);
    snprintf(path, sizeof path, "%s/log-reuse", c.dir);
    f.reuse_size = (off_t)c.record * c.commits;
    f.reuse_size = (f.reuse_size + PAGE - 1) / PAGE * PAGE;
    f.log_reuse = prewritten(path, f.reuse_size, f.page);
    snprintf(path, sizeof path, "%s/log-grow", c.dir);
    f.log_grow = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (f.data < 0 || f.log_reuse < 0 || f.log_grow < 0)
        return die("opening the files"), 1;

    bx_print_header("ddb-bench-sync: the cost of one durable commit", argc, argv);
    printf("%d commits per shape and round, %d rounds, %d scattered %d-byte "
           "pages per commit in a %d MiB file, "
           "%d-byte log records, redo checkpoint every %d commits\n\n",
           c.commits, c.rounds, c.pages, PAGE, c.data_mib, c.record, c.checkpoint);
    double *us = calloc((size_t)c.rounds * N_SHAPES, sizeof *us);
    if (!us)
        return 1;
    for (int r = 0; r < c.rounds; r++)
        for (int k = 0; k < N_SHAPES; k++) {
            enum shape s = (enum shape)((k + r) % N_SHAPES); /* a different shape goes first each round */
            double t0 = bx_now();
            for (int n = 0; n < c.commits; n++)
                if (commit(&c, &f, s, n))
                    return 1;
            if (s == REDO && c.commits % c.checkpoint && sync_fd(f.data)) /* the round's last checkpoint */
                return 1;
            us[s * c.rounds + r] = (bx_now() - t0) * 1e6 / c.commits;
        }
    printf("| commit shape | syncs per commit | median µs per commit | commits/s "
           "| min-max µs over rounds |\n");
    printf("|---|---:|---:|---:|---|\n");
    for (int s = 0; s < N_SHAPES; s++) {
        double *v = us + s * c.rounds;
        qsort(v, (size_t)c.rounds, sizeof *v, cmp_double);
        double med = v[c.rounds / 2];
        const char *syncs = s == TWO_SYNCS ? "2" : s == REDO ? "1 + 1/checkpoint" : "1";
        printf("| %s | %s | %.0f | %.0f | %.0f-%.0f |\n", shape_name[s], syncs, med, 1e6 / med, v[0], v[c.rounds - 1]);
    }
    printf("\nLoad average (1 min) at the end: %.2f\n", bx_loadavg());
    free(us);
    free(f.rec);
    close(f.data);
    close(f.log_reuse);
    close(f.log_grow);
    return bx_rm_rf(c.dir) ? 1 : 0;
}
