/* engine/: One item write in two steps, shared by single writes, batches and
 * transactions (internal). */
#ifndef DDB_WRITE_H
#define DDB_WRITE_H

#include "engine/engine.h"
#include "expr/expr.h"

/* What to write: kind DDB_TX_PUT (item), DDB_TX_UPDATE / DDB_TX_DELETE /
 * DDB_TX_CHECK (item is the key). */
typedef struct ddb_wreq {
    ddb_tx_kind kind;
    const char *table;
    const ddb_item *item;
    const ddb_expr *update;
    const ddb_expr *condition;
    const ddb_item *values;
} ddb_wreq;

/* What prepare learnt: the table, the key, the stored item and the new one. */
typedef struct ddb_wstate {
    ddb_table_rt *t;
    ddb_key key;
    ddb_item *old;            /* NULL when absent (in the scratch arena) */
    const ddb_item *new_item; /* PUT / UPDATE */
    size_t old_size, new_size;
    /* PUT / UPDATE: the new item's record, encoded by prepare in the same
     * walk that measured and checked it: db->wbuf.p[rec_off .. +rec_len) */
    size_t rec_off, rec_len;
} ddb_wstate;

/* The checks of a request that need its table but not the stored item:
 * the new item of a PUT (size, values, index key types), the key
 * attributes an UPDATE may not touch.  Transactions run them first so that
 * they refuse the whole request (DynamoDB's ValidationException) rather
 * than cancel it.  ddbi_write_prepare() runs them too. */
int ddbi_write_check(const ddb_table_rt *t, const ddb_wreq *r, ddb_error *err);
/* Read the stored item, check the request and its condition (DDB_ECONDITION
 * when false) and compute the new item.  Writes nothing. */
int ddbi_write_prepare(ddbi_engine *db, MDB_txn *txn, const ddb_wreq *r, ddb_wstate *st, ddb_arena *tmp, ddb_error *err);
/* Write what prepare computed: the item, its index entries, partition
 * statistics; charge factor x the write units (2 in transactions).  split:
 * split the partition now if it grew too big (several writes in one
 * request split afterwards, since a split changes the partition map). */
int ddbi_write_apply(ddbi_engine *db, MDB_txn *txn, const ddb_wreq *r, ddb_wstate *st, double factor, bool split,
                    ddb_capacity *cap, ddb_return_capacity mode, ddb_error *err);

#endif
