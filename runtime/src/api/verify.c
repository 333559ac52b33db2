/* api/: ddb_open's verification of an embedded database before it opens
 * (ddb_options.verify).  A child process opens the directory read-only and
 * runs every check (the catalog; each table's items, indexes and partition
 * statistics; each stream); LMDB asserts or faults on some damaged pages,
 * and that kills the child, never the caller.  A crash, or damage to the
 * catalog (which every table depends on), refuses the open with
 * DDB_ECORRUPT naming the `ddb check` command to run.  Damage the check
 * found inside tables, with LMDB reading every page of them unharmed, is
 * those tables' problem: the open goes on and the caller marks them
 * damaged at once (no write reaches them), the others work.
 * May call the embedded backend (api.h, backend.h) and core/. */
#include "api/api.h"
#include "core/error.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* What the child tells the parent: its answer and the first problem. */
typedef struct verdict {
    int code; /* DDB_OK, or the code of the first problem that is not a damaged table */
    char why[DDB_ERROR_TEXT_SIZE];
    int n_tables; /* tables found damaged (their names below, at most DDBI_VERIFY_TABLES) */
    char tables[DDBI_VERIFY_TABLES][256];
    char table_why[DDB_ERROR_TEXT_SIZE]; /* the first table's problem */
} verdict;

/* The checks, in the child, through the embedded backend's operations
 * (not the public API, which ddb_open is part of): the first failure into v. */
static void check_all(const char *dir, verdict *v)
{
    const ddbi_backend_ops *ops = &ddbi_embedded_ops;
    ddb_options o = {.read_only = true};
    void *impl = NULL;
    ddb_error e = {0};
    ddb_arena *a = ddb_arena_new();
    const char **names = NULL;
    size_t n = 0;
    ddb_check_report r;
    int rc = a ? ddbi_embedded_open(dir, dir, &o, &impl, &e) : ddbi_fail_oom(&e, "ddb_open: verify");
    if (!rc && (rc = ops->check_catalog(impl, &r, &e)) == DDB_ENOTSUP)
        rc = DDB_OK;
    if (!rc)
        rc = ops->list_tables(impl, a, &names, &n, &e);
    for (size_t i = 0; !rc && i < n; i++) {
        int trc = ops->check_table(impl, names[i], &r, &e);
        if (!trc)
            trc = ops->stream_check(impl, names[i], &r, &e);
        if (trc == DDB_ECORRUPT && strlen(names[i]) < sizeof v->tables[0]) {
            if (!v->n_tables)
                snprintf(v->table_why, sizeof v->table_why, "%s", e.message);
            if (v->n_tables < DDBI_VERIFY_TABLES)
                snprintf(v->tables[v->n_tables], sizeof v->tables[0], "%s", names[i]);
            v->n_tables++;
        } else
            rc = trc;
    }
    v->code = rc;
    snprintf(v->why, sizeof v->why, "%s", e.message);
    if (impl)
        ops->close(impl);
    ddb_arena_free(a);
}

/* Read exactly n bytes of fd (fewer: the child died first). */
static size_t read_all(int fd, void *p, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t k = read(fd, (char *)p + got, n - got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        got += (size_t)k;
    }
    return got;
}

int ddbi_verify_file(const char *dir, ddbi_verify_result *out, ddb_error *err)
{
    memset(out, 0, sizeof *out);
    char file[4200];
    struct stat st;
    snprintf(file, sizeof file, "%s/data.mdb", dir);
    if (stat(file, &st) != 0 && errno == ENOENT)
        return DDB_OK; /* a new database: nothing to verify */
    int fd[2];
    if (pipe(fd))
        return ddbi_fail(err, DDB_EIO, "ddb_open: cannot verify %s: %s", dir, strerror(errno));
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return ddbi_fail(err, DDB_EIO, "ddb_open: cannot verify %s: %s", dir, strerror(errno));
    }
    if (pid == 0) {
        close(fd[0]);
        verdict v = {0};
        check_all(dir, &v);
        ssize_t w = write(fd[1], &v, sizeof v);
        _exit(w == (ssize_t)sizeof v ? 0 : 1);
    }
    close(fd[1]);
    verdict v;
    size_t got = read_all(fd[0], &v, sizeof v);
    close(fd[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return ddbi_fail(err, DDB_EIO, "ddb_open: verifying %s: %s", dir, strerror(errno));
    v.why[sizeof v.why - 1] = '\0';
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        return ddbi_fail(err, DDB_ECORRUPT,
                         "ddb_open: %s is damaged where LMDB cannot read it (run `ddb check %s`; its check crashed "
                         "with signal %d, %s)",
                         dir, dir, sig, strsignal(sig));
    }
    if (got != sizeof v || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return ddbi_fail(err, DDB_EIO, "ddb_open: cannot verify %s: its check gave no answer", dir);
    v.table_why[sizeof v.table_why - 1] = '\0';
    if (v.code == DDB_ECORRUPT)
        return ddbi_fail(err, DDB_ECORRUPT, "ddb_open: %s is damaged (run `ddb check %s` for every problem): %s", dir,
                         dir, v.why);
    if (v.code)
        return ddbi_fail(err, v.code, "ddb_open: cannot verify %s: %s", dir, v.why);
    if (v.n_tables > DDBI_VERIFY_TABLES)
        return ddbi_fail(err, DDB_ECORRUPT,
                         "ddb_open: %s is damaged in %d tables (run `ddb check %s` for every problem): %s", dir,
                         v.n_tables, dir, v.table_why);
    out->n_tables = v.n_tables;
    for (int i = 0; i < v.n_tables; i++) {
        v.tables[i][sizeof v.tables[i] - 1] = '\0';
        memcpy(out->tables[i], v.tables[i], sizeof out->tables[i]);
    }
    snprintf(out->why, sizeof out->why, "%s", v.table_why);
    return DDB_OK;
}
