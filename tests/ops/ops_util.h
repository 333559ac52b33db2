/* Helpers of the engine-operation tests (tests/ops): items written as
 * DynamoDB JSON, prepared expressions owned by the fixture, exact
 * comparisons with readable failure messages. */
#ifndef OPS_UTIL_H
#define OPS_UTIL_H

#include "testutil.h" /* tests/runtime: tu_open, tu_rmdir, cmocka */

#include <ddb/ddb.h>

/* One test's database, arena and prepared expressions (freed by
 * ops_teardown). */
typedef struct ops_fx {
    ddb *db;
    ddb_arena *a;
    char dir[512];
    ddb_expr *exprs[128];
    size_t nexprs;
} ops_fx;

/* The test groups, one per file (test_ops_<group>.c), run by test_ops.c. */
extern const struct CMUnitTest ops_update_tests[], ops_index_tests[], ops_cond_tests[], ops_batch_tests[],
    ops_tx_tests[], ops_query_tests[];
extern const size_t ops_update_count, ops_index_count, ops_cond_count, ops_batch_count, ops_tx_count, ops_query_count;

/* cmocka setup/teardown: a fresh database with the standard tables below. */
int ops_setup(void **state);
int ops_teardown(void **state);

/* Tables created by ops_setup.
 *   "Ops": pk S, sk S, no index.
 *   "Idx": pk S, sk S and
 *      GSI "Gsi1" gpk S / gsk N, projection ALL;
 *      GSI "Gsi2" kpk S (no sort key), KEYS_ONLY;
 *      LSI "Lsi1" pk / lsk S, INCLUDE {inc}.
 *   "Hash": pk S only. */
#define T_OPS "Ops"
#define T_IDX "Idx"
#define T_HASH "Hash"

/* An item from DynamoDB JSON written with single quotes for double quotes
 * ("{'pk':{'S':'a'}}"); fails the test on a parse error. */
ddb_item *J(ops_fx *fx, const char *json);
/* A key of "Ops"/"Idx": {pk, sk}. */
ddb_item *K(ops_fx *fx, const char *pk, const char *sk);
/* An item from JSON padded with an S attribute "pad" to exactly size bytes
 * (ddb_item_size). */
ddb_item *sized(ops_fx *fx, const char *json, size_t size);
/* A prepared expression without names (names_json NULL) or with names
 * given as JSON ("{'#n':{'S':'name'}}"); owned by the fixture. */
const ddb_expr *X(ops_fx *fx, ddb_expr_kind kind, const char *text);
const ddb_expr *XN(ops_fx *fx, ddb_expr_kind kind, const char *text, const char *names_json);
#define UPD(fx, text) X(fx, DDB_EXPR_UPDATE, text)
#define CND(fx, text) X(fx, DDB_EXPR_CONDITION, text)
#define FLT(fx, text) X(fx, DDB_EXPR_FILTER, text)
#define PRJ(fx, text) X(fx, DDB_EXPR_PROJECTION, text)
#define KEYC(fx, text) X(fx, DDB_EXPR_KEY_CONDITION, text)

/* Single writes with ReturnConsumedCapacity INDEXES: cond (a
 * ConditionExpression) and values (JSON) may be NULL; res receives the
 * returned attributes (fixture arena) and the capacity. */
int put(ops_fx *fx, const char *table, const ddb_item *item, const char *cond, const char *values, ddb_return_values rv,
        ddb_write_result *res, ddb_error *err);
int update(ops_fx *fx, const char *table, const ddb_item *key, const char *update, const char *cond, const char *values,
           ddb_return_values rv, ddb_write_result *res, ddb_error *err);
int del(ops_fx *fx, const char *table, const ddb_item *key, const char *cond, const char *values, ddb_return_values rv,
        ddb_write_result *res, ddb_error *err);

/* Compact DynamoDB JSON of an item ("(none)" for NULL), in the arena. */
const char *dump(ops_fx *fx, const ddb_item *it);
/* got must equal want_json exactly (NULL want_json: got must be NULL). */
#define expect_item(fx, got, want_json) expect_item_at(fx, got, want_json, __FILE__, __LINE__)
void expect_item_at(ops_fx *fx, const ddb_item *got, const char *want_json, const char *file, int line);
/* A strongly consistent GetItem: the item, or NULL when absent. */
ddb_item *get(ops_fx *fx, const char *table, const ddb_item *key);
/* The stored item must be exactly want_json (NULL: absent). */
#define expect_stored(fx, table, key, want_json) expect_item_at(fx, get(fx, table, key), want_json, __FILE__, __LINE__)

/* The call must return want; on DDB_OK failure the message is shown. */
#define EXPECT_RC(want, call)                                                                                          \
    do {                                                                                                               \
        ddb_error err_ = {0};                                                                                          \
        ddb_error *err = &err_;                                                                                        \
        int rc_ = (call);                                                                                              \
        if (rc_ != (want))                                                                                             \
            fail_msg("%s:%d: %s -> %d (%s) \"%s\", expected %d (%s)", __FILE__, __LINE__, #call, rc_,                  \
                     ddb_strerror(rc_), err_.message, (int)(want), ddb_strerror(want));                                \
    } while (0)
/* The same, and the error message must contain text. */
#define EXPECT_ERR(want, text, call)                                                                                   \
    do {                                                                                                               \
        ddb_error err_ = {0};                                                                                          \
        ddb_error *err = &err_;                                                                                        \
        int rc_ = (call);                                                                                              \
        if (rc_ != (want) || err_.code != (want) || !strstr(err_.message, text))                                       \
            fail_msg("%s:%d: %s -> %d (%s) \"%s\", expected %d (%s) with \"%s\"", __FILE__, __LINE__, #call, rc_,      \
                     ddb_strerror(rc_), err_.message, (int)(want), ddb_strerror(want), text);                          \
    } while (0)

/* Capacity: exact comparisons (every unit count here is a multiple of 0.5). */
#define expect_units(got, want) expect_units_at(got, want, #got, __FILE__, __LINE__)
void expect_units_at(double got, double want, const char *what, const char *file, int line);
/* Write (or read) units charged to one index in a DDB_CAPACITY_INDEXES result; 0 when absent. */
double idx_write(const ddb_capacity *c, const char *index);
double idx_read(const ddb_capacity *c, const char *index);

/* Everything a table holds, as text: its items (scan, sorted) and the
 * entries of every index (scans), for before/after comparisons.  Also
 * requires ddb_check_table to be clean.  Arena memory. */
const char *table_state(ops_fx *fx, const char *table);
/* ddb_check_table must be clean with exactly these counts. */
#define expect_clean(fx, table, items, entries) expect_clean_at(fx, table, items, entries, __FILE__, __LINE__)
void expect_clean_at(ops_fx *fx, const char *table, uint64_t items, uint64_t entries, const char *file, int line);

/* Query all pages of one partition (S key pk_value) of a table or index:
 * the dumps of the items, one a line.  Arena memory. */
const char *query_index(ops_fx *fx, const char *table, const char *index, const char *pk_value);

/* Sum of write units consumed by a table's partitions (ddb_table_stats). */
double table_write_units(ops_fx *fx, const char *table);

#endif
