/* A Query of an index with a multi-attribute key (internal; query_parts.c):
 * the key condition mapped onto the index's attributes, the range of LMDB
 * keys it reads (key_parts.h), and the checks read.c makes of each item it
 * finds there: the partition values (digests may collide), the sort
 * conditions, the order of a run of long keys and the ExclusiveStartKey. */
#ifndef DDB_QUERY_PARTS_H
#define DDB_QUERY_PARTS_H

#include "engine/keys.h"
#include "expr/expr.h"

typedef struct ddbi_qparts {
    const ddb_index_rt *x;
    ddb_key_condition_parts kc;
    const char *names[2 * DDB_MAX_KEY_ATTRS];
    ddb_type types[2 * DDB_MAX_KEY_ATTRS];
    size_t n_pk, n; /* partition-key attributes, all attributes */
    /* LMDB key bounds: lo, and hi prefix-inclusive, both digest || sort bytes */
    uint8_t lo[DDB_KEY_MAX], hi[DDB_KEY_MAX];
    size_t lolen, hilen;
} ddbi_qparts;

/* Map q's key condition onto index x (q->key_condition is required: the
 * struct form pk/sk_op/sk1/sk2 is DDB_EVALIDATION for such an index) and
 * compute the key range.  DynamoDB's messages (expr_key.c, and the classic
 * ones for begins_with on a number and reversed BETWEEN bounds). */
int ddbi_qparts_prepare(const ddb_index_rt *x, const ddb_query_params *q, ddbi_qparts *m, ddb_error *err);
/* An ExclusiveStartKey (checked by ddbi_keys_start): its partition values
 * must be the query's ("outside query boundaries" otherwise); the range
 * then starts (backward: ends) at its sort values. */
int ddbi_qparts_start(ddbi_qparts *m, const ddb_item *start, bool backward, ddb_error *err);
/* Does item (found in the key range) meet the key condition? */
bool ddbi_qparts_match(const ddbi_qparts *m, const ddb_item *item);
/* The order of two items by the index's sort-key attributes (each by its
 * type, in declared order). */
int ddbi_qparts_cmp(const ddbi_qparts *m, const ddb_item *a, const ddb_item *b);

#endif
