/* entity/tx/: transactions and batches (internal; room header of the typed layer that generated
 * modules call through <ddb/entity.h>, table-driven by entity descriptors).  It holds the
 * operations of one request gathered then run (every entity write goes through here), a single call
 * as a one-operation transaction, condition checks, the ids create fills in, batch gets and batch
 * writes.  It may call what entity/core/ may call, entity/core/ and entity/reads/; never engine/,
 * streams/ or remote/: both backends are reached through the ddb_* functions only.
 *
 * Files, one subject each:
 *   entity_batch.c        batch gets of one entity type
 *   entity_batch_write.c  batch puts and deletes, mixing entities
 *   entity_check.c        ConditionCheck operations of a transaction
 *   entity_ids.c          ids filled by create (UUIDs, counters)
 *   entity_single.c       one typed write as a one-operation transaction
 *   entity_tx.c           transactions across entities; every write's operations run through it
 */
#ifndef DDB_ENTITY_TX_H
#define DDB_ENTITY_TX_H

#include "entity/reads/entity_reads.h"

/* ---- entity_ids.c ---- */

/* create: fill obj's empty DDB_FIELD_UUID fields. */
int ddbi_ent_fill_uuids(const ddb_entity_desc *e, void *obj, ddb_arena *a, ddb_error *err);
/* The next id of e's counter for obj's scope, drawn now (UpdateItem ADD:
 * a create alone, whose id is consumed even when the put fails). */
int ddbi_ent_next_id(ddb *db, const ddb_entity_desc *e, const void *obj, ddb_arena *a, int64_t *id, ddb_capacity *cap,
                     ddb_return_capacity mode, ddb_error *err);
/* Run the operations build adds to a fresh transaction as one call: a lone
 * operation as PutItem/UpdateItem/DeleteItem, else TransactWriteItems;
 * retried when an id counter raced. */
typedef int (*ddbi_ent_build_fn)(ddb_ent_tx *tx, ddb_arena *a, void *ctx, ddb_error *err);

/* ---- entity_single.c ---- */

int ddbi_ent_single(ddb *db, const ddb_ent_opts *o, ddb_capacity *cap, ddbi_ent_build_fn build, void *ctx,
                    ddb_error *err);

/* What an operation of a transaction is for: its failure's message. */
typedef enum ddbi_op_role {
    DDBI_OP_PUT = 1,  /* replace (version checked) */
    DDBI_OP_CREATE,   /* must not exist */
    DDBI_OP_UPDATE,   /* must exist */
    DDBI_OP_UPSERT,   /* may exist */
    DDBI_OP_DELETE,
    DDBI_OP_CHECK,
    DDBI_OP_PART,     /* another shard item of an entity write: no condition of its own */
    DDBI_OP_UNIQUE,   /* claims a unique value */
    DDBI_OP_RELEASE,  /* frees a unique value */
    DDBI_OP_COUNTER   /* an auto id counter */
} ddbi_op_role;

typedef struct ddbi_ent_opinfo {
    const ddb_entity_desc *e;
    ddbi_op_role role;
    const ddb_field_desc *vf; /* version field this op checks */
    int64_t expected;
    const ddb_field_desc *uf; /* DDBI_OP_UNIQUE: the field, its value as text */
    const char *uval;
    bool user_cond;           /* a caller's condition is part of it */
    void *current;            /* on a failed condition: the stored item decoded here */
    bool *current_found;
    ddb_arena *current_arena;
    void *out;                /* a lone UpdateItem of a single call: its ALL_NEW decoded here (not
                               * zeroed: the caller zeroes it), its data in out_arena */
    ddb_arena *out_arena;
} ddbi_ent_opinfo;

/* ---- entity_tx.c ---- */

/* tx's handle and arena. */
ddb *ddbi_ent_tx_db(const ddb_ent_tx *tx);
ddb_arena *ddbi_ent_tx_arena(const ddb_ent_tx *tx);
/* A new expression builder of tx, for one operation. */
int ddbi_ent_tx_exprb(ddb_ent_tx *tx, ddbi_exprb **out, ddb_error *err);
/* Append op with what it is for. */
int ddbi_ent_tx_add(ddb_ent_tx *tx, const ddb_tx_op *op, const ddbi_ent_opinfo *info, ddb_error *err);
/* On success set field f of obj to v (version bumps, written back only then). */
int ddbi_ent_tx_on_commit(ddb_ent_tx *tx, const ddb_field_desc *f, void *obj, int64_t v, ddb_error *err);
/* Fill obj's zero DDB_FIELD_AUTO_ID fields from their counters inside tx:
 * the counter is read now and its update joins the transaction (a
 * cancelled one consumes no id; the fields are zeroed again). */
int ddbi_ent_tx_auto_ids(ddb_ent_tx *tx, const ddb_entity_desc *e, void *obj, ddb_error *err);
/* A single call's transaction: ids are drawn at once (ddbi_ent_next_id),
 * not inside it, so that a create needs no transaction (backends without
 * TransactWriteItems, one request less). */
void ddbi_ent_tx_ids_now(ddb_ent_tx *tx, ddb_return_capacity mode);
/* Mark tx as failed (an add went wrong): commit refuses it. */
void ddbi_ent_tx_poison(ddb_ent_tx *tx);
/* Run tx.  single: it is one entity call (put, update...): a lone
 * operation goes out as PutItem/UpdateItem/DeleteItem, a cancellation
 * becomes the failed operation's DDB_ECONDITION (or DDB_ENOTFOUND), and
 * counter races are retried by the caller (DDB_EAGAIN_INTERNAL). */
int ddbi_ent_tx_run(ddb_ent_tx *tx, bool single, const char *token, ddb_return_capacity mode, ddb_capacity *cap,
                    ddb_error *err);
/* Another transaction allocated the same counter value: rebuild and retry. */
#define DDBI_ECOUNTER 1

/* ---- entity_check.c ---- */

/* Add to tx a ConditionCheck on key's item (the shard of c's condition):
 * the item exists (exists 1), does not (0) or either (-1), ANDed with c's
 * condition; role names it in a failure's message (entity_check.c). */
int ddbi_ent_add_check(ddb_ent_tx *tx, const ddb_entity_desc *e, const void *key, int exists,
                       const ddb_ent_tx_cond *c, ddbi_op_role role, ddb_error *err);

#endif
