/* check: the catalog (ddb_check_catalog), every table's items against its
 * indexes and partition statistics (ddb_check_table) and its stream
 * (ddb_stream_check).  The checks run in a child process: LMDB asserts or
 * faults on some damaged pages, and that is then reported with its signal
 * instead of killing the tool.  Exit status 0 clean, 1 problems found, 2
 * could not check (the checker's crash included). */
#include "cli.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* What a failed check found first: its report's first problem, else the
 * error that stopped it (a report stays empty when the check could not
 * start, and the reason must not be lost). */
static const char *first_problem(const ddb_check_report *r, const ddb_error *e)
{
    return r->first_problem[0] ? r->first_problem : e->message;
}

/* The checks themselves (in the child). */
static int check_all(cli *c)
{
    if (c->o.npos)
        c->uri = c->o.pos[0];
    if (cli_open(c))
        return 2;
    ddb_arena *a = ddb_arena_new();
    const char **names;
    size_t n;
    ddb_error e = {0};
    if (!a || ddb_list_tables(c->db, a, &names, &n, &e)) {
        ddb_arena_free(a);
        cli_fail(c, &e, NULL);
        return 2;
    }
    size_t bad = 0;
    int rc = 0;
    /* the catalog first: databases whose table definition is lost or damaged */
    ddb_check_report cr;
    ddb_error ce = {0};
    int cat = ddb_check_catalog(c->db, &cr, &ce);
    if (cat && cat != DDB_ECORRUPT && cat != DDB_ENOTSUP) {
        cli_fail(c, &ce, "catalog");
        rc = 2;
    } else if (cat == DDB_ECORRUPT) {
        printf("catalog: %" PRIu64 " problem%s; the first: %s\n", cr.problems, cr.problems == 1 ? "" : "s",
               first_problem(&cr, &ce));
    }
    for (size_t i = 0; i < n && rc != 2; i++) {
        ddb_check_report tr, sr;
        ddb_error te = {0}, se = {0};
        int t = ddb_check_table(c->db, names[i], &tr, &te);
        int s = ddb_stream_check(c->db, names[i], &sr, &se);
        if ((t && t != DDB_ECORRUPT) || (s && s != DDB_ECORRUPT)) {
            cli_fail(c, t && t != DDB_ECORRUPT ? &te : &se, "table %s", names[i]);
            rc = 2;
            break;
        }
        if (!t && !s) {
            printf("table %s: ok: %" PRIu64 " item%s, %" PRIu64 " index entr%s, %" PRIu64 " stream record%s\n",
                   names[i], tr.items, tr.items == 1 ? "" : "s", tr.index_entries, tr.index_entries == 1 ? "y" : "ies",
                   sr.items, sr.items == 1 ? "" : "s");
            continue;
        }
        bad++;
        if (t)
            printf("table %s: %" PRIu64 " problem%s in its items and indexes; the first: %s\n", names[i], tr.problems,
                   tr.problems == 1 ? "" : "s", first_problem(&tr, &te));
        if (s)
            printf("table %s: %" PRIu64 " problem%s in its stream; the first: %s\n", names[i], sr.problems,
                   sr.problems == 1 ? "" : "s", first_problem(&sr, &se));
    }
    if (rc != 2) {
        if (bad)
            printf("%zu of %zu table%s with problems\n", bad, n, n == 1 ? "" : "s");
        else if (cat == DDB_ECORRUPT)
            printf("%zu table%s checked, clean, but the catalog has problems\n", n, n == 1 ? "" : "s");
        else
            printf("%zu table%s checked, all clean\n", n, n == 1 ? "" : "s");
        rc = bad || cat == DDB_ECORRUPT ? 1 : 0;
    }
    ddb_arena_free(a);
    return rc;
}

int cmd_check(cli *c)
{
    fflush(NULL); /* nothing buffered is written twice */
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "ddb check: cannot start the checker: %s\n", strerror(errno));
        return 2;
    }
    if (pid == 0) {
        int rc = check_all(c);
        ddb_close(c->db);
        fflush(NULL);
        _exit(rc);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) {
            fprintf(stderr, "ddb check: waiting for the checker: %s\n", strerror(errno));
            return 2;
        }
    if (WIFEXITED(st))
        return WEXITSTATUS(st);
    int sig = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
    fprintf(stderr,
            "ddb check: the checker crashed (signal %d, %s): the file is damaged in a way LMDB or ddb cannot "
            "read\n",
            sig, strsignal(sig));
    return 2;
}
