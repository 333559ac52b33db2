/* trial_check.h — the checks of the trial programs (tests/trial): CHECK
 * counts a failed condition and prints where and why; OK and RC check a
 * call's DDB_* result, printing the call, its code and err.message (an
 * `err` in scope); trial_uri / trial_open / trial_done are every program's
 * start and end.  Include in one .c file per program, after its generated
 * header. */
#ifndef TRIAL_CHECK_H
#define TRIAL_CHECK_H

#include <ddb/ddb.h>

#include <stdio.h>
#include <stdlib.h>

static int failures;
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            failures++;                                                                            \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                        \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)
#define OK(call)                                                                                   \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        CHECK(rc_ == 0, "%s -> %s: %s", #call, ddb_strerror(rc_), err.message);                  \
    } while (0)
#define RC(want, call)                                                                             \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        CHECK(rc_ == (want), "%s -> %s (want %s): %s", #call, ddb_strerror(rc_), ddb_strerror(want), \
              err.message);                                                                        \
    } while (0)

/* The database URI: argv[1], else $DDB_TEST_URI; NULL after the usage line. */
static const char *trial_uri(int argc, char **argv)
{
    const char *uri = argc == 2 ? argv[1] : getenv("DDB_TEST_URI");
    if (!uri)
        fprintf(stderr, "usage: %s URI (or DDB_TEST_URI)\n", argv[0]);
    return uri;
}

/* ddb_open of uri with opts (may be NULL); NULL after printing why. */
static ddb *trial_open(const char *uri, const ddb_options *opts)
{
    ddb *db;
    ddb_error err = {0};
    if (ddb_open(uri, opts, &db, &err)) {
        fprintf(stderr, "open %s: %s\n", uri, err.message);
        return NULL;
    }
    return db;
}

/* Frees a and closes db, prints the count of failed checks; the exit code. */
static int trial_done(const char *prog, ddb *db, ddb_arena *a)
{
    ddb_arena_free(a);
    ddb_close(db);
    printf("%s: %d failures\n", prog, failures);
    return failures ? 1 : 0;
}

#endif
