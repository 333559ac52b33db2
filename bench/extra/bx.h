/* Shared helpers of the bench/extra benchmarks: clocks, the machine's
 * description, a multi-threaded op runner with an op budget and a time
 * cap, and small formatting helpers for the Markdown tables they print. */
#ifndef DDB_BENCH_EXTRA_BX_H
#define DDB_BENCH_EXTRA_BX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

double bx_now(void);       /* CLOCK_MONOTONIC seconds */
double bx_cpu(void);       /* user + system seconds of the process */
uint64_t bx_rand(uint64_t *state); /* xorshift64*: state must not be 0 */

/* "nproc 2, AMD EPYC, Linux 6.1, gcc 12.2": what a result was measured on. */
void bx_machine(char *out, size_t cap);
/* The 1-minute load average (other work on the machine skews results). */
double bx_loadavg(void);
/* Print the title, "Machine: ...", the load average and the command line. */
void bx_print_header(const char *title, int argc, char **argv);

/* rm -rf dir (dir must not be empty or "/"); 0 on success. */
int bx_rm_rf(const char *dir);
/* dir removed and made again, empty; 0 on success, else -1 with the reason on stderr. */
int bx_fresh_dir(const char *dir);

/* The command line of a benchmark: "--name VALUE" options and "--name"
 * flags, each read into the variable out points at (double, int, uint64_t,
 * a char buffer of cap bytes, a const char * into argv, a bool set to true). */
typedef enum bx_opt_kind { BX_OPT_DOUBLE, BX_OPT_INT, BX_OPT_U64, BX_OPT_TEXT, BX_OPT_ARG, BX_OPT_FLAG } bx_opt_kind;
typedef struct bx_opt {
    const char *name; /* "--seconds" */
    bx_opt_kind kind;
    void *out;
    size_t cap;       /* BX_OPT_TEXT: the buffer's size */
} bx_opt;
/* argv[1..] against the n options; false (with the reason on stderr) on an
 * unknown option, a missing value, a number that is not one, or a text
 * longer than its buffer: the caller prints its usage then. */
bool bx_parse_args(int argc, char **argv, const bx_opt *opts, size_t n);

/* One timed phase: `threads` threads each open their state, wait for the
 * start, then call op until `budget` ops were started in total or `cap_s`
 * seconds passed.  op returns 0 on success, anything else stops the phase
 * (it prints its own error). */
typedef struct bx_job {
    int threads;
    uint64_t budget;
    double cap_s;
    void *ctx;
    void *(*thread_open)(void *ctx, int id); /* NULL = failure */
    void (*thread_close)(void *tc);
    int (*op)(void *tc, uint64_t *rng);
} bx_job;

typedef struct bx_result {
    uint64_t ops;
    double secs;
    double cpu;  /* process CPU seconds during the phase */
    bool failed;
} bx_result;

bx_result bx_run(const bx_job *j);
double bx_rate(const bx_result *r);    /* ops/s, 0 when failed or empty */

/* "12,345" / "failed" / "-" into out. */
const char *bx_fmt_rate(char *out, size_t cap, const bx_result *r);
/* "1.23x" or "-" when either side is 0. */
const char *bx_fmt_ratio(char *out, size_t cap, double num, double den);

#endif
