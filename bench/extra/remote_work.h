/* The workload of the remote-endpoint benchmarks (ddb-bench-remote,
 * ddb-bench-serve): one table of 20 partitions x 100 items (pk "user#%08u",
 * sk "order#%04u", a 150-byte binary attribute: ~200 bytes an item) loaded
 * with BatchWriteItem, and the three timed operations over the public API
 * of <ddb/ddb.h> (so any backend: file:, http://), as bx_job callbacks;
 * and dynalite started through tests/remote/dynalite.sh. */
#ifndef DDB_BENCH_EXTRA_REMOTE_WORK_H
#define DDB_BENCH_EXTRA_REMOTE_WORK_H

#include <ddb/ddb.h>

#include <stddef.h>
#include <stdint.h>

#define RW_TABLE "remote_bench"
#define RW_PARTS 20u
#define RW_PER_PART 100u
#define RW_ITEMS (RW_PARTS * RW_PER_PART)

typedef enum rw_op { RW_PUT, RW_GET, RW_QUERY, RW_N_OPS } rw_op;
extern const char *const rw_op_names[RW_N_OPS]; /* "put", "get", "query (100 items)" */

/* What the operations run on: a handle shared by the threads. */
typedef struct rw_side {
    ddb *db;
    uint64_t version; /* put's version counter */
} rw_side;

/* Print "what: error (message)" on stderr; returns -1. */
int rw_fail(const char *what, int rc, const ddb_error *err);
/* Create the table and load its items; 0 or -1 (printed). */
int rw_load(ddb *db);

/* bx_job callbacks: ctx is an rw_side. */
void *rw_thread_open(void *side, int id);
void rw_thread_close(void *tc);
/* put: PutItem overwriting a random item; get: GetItem of a random item
 * (eventually consistent); query: a whole 100-item partition in one page. */
extern int (*const rw_op_fns[RW_N_OPS])(void *tc, uint64_t *rng);

/* Start dynalite with `sh script start dir PID`: 0 ok (uri and pid filled),
 * 77 not possible here (the reason printed on stdout), -1 error (printed). */
int rw_start_dynalite(const char *script, const char *dir, char *uri, size_t cap, long *pid);

#endif
