/* trial_check.h — the checks of the trial programs (tests/trial): CHECK
 * counts a failed condition and prints where and why; OK and RC check a
 * call's DDB_* result, printing the call, its code and err.message (an
 * `err` in scope).  Include in one .c file per program. */
#ifndef TRIAL_CHECK_H
#define TRIAL_CHECK_H

#include <stdio.h>

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

#endif
