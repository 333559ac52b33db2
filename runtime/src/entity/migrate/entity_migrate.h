/* entity/migrate/: a module's table and its schema's changes (internal; room header of the typed
 * layer that generated modules call through <ddb/entity.h>, table-driven by entity descriptors).
 * It holds create and open a module's table under its schema, fingerprints of what stored items
 * depend on, backfill of index keys, migrations (steps, items in their new form, checkpoints,
 * history, claims of unique values, opening during a migration).  It may call what entity/core/ may
 * call and every other entity room; never engine/, streams/ or remote/: both backends are reached
 * through the ddb_* functions only.
 *
 * Files, one subject each:
 *   entity_backfill.c            index keys written into stored items (when asked)
 *   entity_fingerprint.c         what stored items depend on, and its comparison
 *   entity_migrate.c             migrations: every stored item of an entity rewritten in its new form
 *   entity_migrate_checkpoint.c  where a migration is, stored with the table
 *   entity_migrate_claim.c       a step's claims: uniqueness items for values stored before
 *   entity_migrate_history.c     a table's migration history and status
 *   entity_migrate_item.c        one logical item in its new form
 *   entity_migrate_open.c        opening a table while a migration of it is in progress
 *   entity_table.c               create and open a module's table
 */
#ifndef DDB_ENTITY_MIGRATE_H
#define DDB_ENTITY_MIGRATE_H

#include "entity/writes/entity_writes.h"

/* ---- entity_fingerprint.c ---- */

/* What an entity's stored items depend on, as text: one line per key
 * ("<index>: <attr>=<template> ..."), its type, its shards; NUL-terminated. */
int ddbi_ent_fingerprint(const ddb_entity_desc *e, ddb_buf *b);
/* The line of fingerprint fp whose label (text before ':') is label[0..llen). */
const char *ddbi_ent_fingerprint_line(const char *fp, const char *label, size_t llen, int *len);
/* Can items stored under fingerprint old be read under now?  When not, the
 * lines that differ: *ol (*on bytes) in old, *nl (*nn bytes) in now. */
/* The DDB_UNIQUE fields of e whose attribute the stored fingerprint old
 * does not list (their stored values were never claimed): how many, and
 * their C names, ", "-separated, in list (cut to cap). */
size_t ddbi_ent_fingerprint_new_unique(const char *old, const ddb_entity_desc *e, char *list, size_t cap);
bool ddbi_ent_fingerprint_compatible(const char *old, const char *now, const char **ol, int *on, const char **nl,
                                     int *nn);

/* ---- entity_backfill.c ---- */

/* Write the attributes of e's key k into every stored item of e, counting
 * into *pr and calling progress (may be NULL) after each page. */
int ddbi_ent_backfill_key(ddb *db, const ddb_entity_desc *e, uint16_t k, ddb_ent_progress_fn progress, void *ctx,
                          ddb_ent_progress *pr, ddb_error *err);
/* The filter "<type attribute> = <e's name>", prepared in fx. */
int ddbi_ent_type_filter(ddbi_exprb *fx, const ddb_entity_desc *e, ddb_arena *a, const ddb_expr **filter,
                         ddb_error *err);
/* The same for the entity named name of table t (a renamed or removed one's old name). */
int ddbi_ent_type_filter_named(ddbi_exprb *fx, const ddb_schema_table *t, const char *name, ddb_arena *a,
                               const ddb_expr **filter, ddb_error *err);
/* *any: does the table hold at least one item of e? (a consistent scan, stopped at the first) */
int ddbi_ent_has_items(ddb *db, const ddb_entity_desc *e, bool *any, ddb_error *err);

/* Table metadata keys: each entity's fingerprint is "ddbgen.entity.<name>";
 * a migration in progress is recorded under DDB_ENT_MIGRATION_META (its
 * checkpoint), the model version the data is in under DDB_ENT_MODEL_META. */
#define DDB_ENT_MIGRATION_META "ddbgen.migration"
/* the applied migrations (entity_migrate_history.c) */
#define DDB_ENT_MIGRATION_HISTORY_META "ddbgen.migration.history"
/* entity_migrate_history.c: append the migration that ended (cp) to the history. */
struct ddbi_ent_checkpoint;

/* ---- entity_migrate_history.c ---- */

int ddbi_ent_history_add(ddb *db, const char *table, const struct ddbi_ent_checkpoint *cp, ddb_error *err);
/* the shapes of the migration's new entities (entity_migrate_open.c) */
#define DDB_ENT_MIGRATION_TARGET_META "ddbgen.migration.to"

/* ---- entity_migrate_open.c ---- */

/* entity_migrate_open.c: record m's new entities' shapes (when it starts). */
int ddbi_ent_migration_target_put(ddb *db, const ddb_ent_migration *m, ddb_error *err);
/* A migration of t in progress: DDB_EMODEL when ents are its new schema (or
 * it recorded no target); else OK with *reader (the old module may open
 * the table if opening changes nothing).  No migration: OK, !*reader. */
int ddbi_ent_migration_open_check(ddb *db, const ddb_schema_table *t, const ddb_entity_desc *const *ents, size_t n,
                                  ddb_arena *a, bool *reader, ddb_error *err);
/* DDB_EMODEL "a migration is in progress (<plan>, step i/n, s items scanned) ...: why". */
int ddbi_ent_migration_refuse(ddb *db, const ddb_schema_table *t, ddb_arena *a, const char *why, ddb_error *err);
#define DDB_ENT_MODEL_META "ddbgen.model"

/* ---- entity_table.c ---- */

/* Delete the table's GSIs that t no longer declares (entity_table.c). */
int ddbi_ent_drop_undeclared(ddb *db, const ddb_schema_table *t, ddb_error *err);

/* ---- entity_migrate_item.c ---- */

/* The most items one logical item is: a sharded entity's shard items. */
#define DDBI_ENT_MIGRATE_MAX_PARTS DDB_ENT_MAX_SHARDS
/* news[0..*n_new) (room for DDBI_ENT_MIGRATE_MAX_PARTS): the new form
 * under step s (in a) of one logical item stored as olds[0..n_old) (one
 * item, or a sharded entity's shard items); *same: it is already in that
 * form (nothing to write).  live: the table as it is (its index key
 * attributes are never carried over; may be NULL). */
int ddbi_ent_migrate_item(const ddb_ent_migration_step *s, const ddb_table_def *live, ddb_item *const *olds,
                          size_t n_old, ddb_arena *a, ddb_item **news, size_t *n_new, bool *same, ddb_error *err);
/* Where the shard suffix of shard item it's sort key begins (in the
 * value's text: what follows is the shard id), or NULL: not a shard item
 * of e. */
const char *ddbi_ent_shard_cut(const ddb_entity_desc *e, const ddb_item *it);
/* Do x and y have the same table key? */
bool ddbi_ent_same_key(const ddb_table_def *td, const ddb_item *x, const ddb_item *y);
/* The item's table key as "PK/SK" text (arena memory), for messages and samples. */
const char *ddbi_ent_key_text(const ddb_table_def *td, const ddb_item *it, ddb_arena *a);

#define DDBI_ENT_MIGRATION_ID_MAX 64
/* Where a migration is: its id, step, counts, and the scan's position. */
typedef struct ddbi_ent_checkpoint {
    const char *id;
    uint32_t step, n_steps;       /* step: 0-based, the one under way (n_steps: done) */
    uint64_t scanned, moved, rewritten, unchanged;
    uint64_t claimed;             /* DDB_UNIQUE values claimed (a plan's claims) */
    uint64_t verified;            /* of them, found claimed by their items by the steps' checks */
    uint64_t deleted;             /* items of removed entities deleted */
    uint64_t in_step;             /* items the step under way has scanned (scanned counts all steps) */
    double capacity;
    const char *cursor;           /* where the step's scan goes on; NULL = its start */
} ddbi_ent_checkpoint;

/* ---- entity_migrate_checkpoint.c ---- */

/* 1..64 characters of letters, digits and "._:-". */
bool ddbi_ent_migration_id_ok(const char *id);
int ddbi_ent_checkpoint_put(ddb *db, const char *table, const ddbi_ent_checkpoint *c, ddb_error *err);
/* *found: a migration is in progress (c filled, its strings in a). */
int ddbi_ent_checkpoint_get(ddb *db, const char *table, ddb_arena *a, ddbi_ent_checkpoint *c, bool *found,
                            ddb_error *err);
/* The migration is over. */
int ddbi_ent_checkpoint_end(ddb *db, const char *table, ddb_error *err);

/* A migration step's claims (entity_migrate_claim.c): the uniqueness
 * items of the DDB_UNIQUE fields it names, written for every stored item
 * that holds a value, in the transaction that writes the item (or with a
 * ConditionCheck that the item still holds the value, when it is left as
 * it is); a claim the same item holds already is no change. */
#define DDBI_ENT_CLAIMS_MAX 16
typedef struct ddbi_ent_seen ddbi_ent_seen;
typedef struct ddbi_ent_claims {
    const ddb_entity_desc *e;
    size_t n;
    const ddb_field_desc *f[DDBI_ENT_CLAIMS_MAX];
    ddb_expr *put_cond;                    /* attribute_not_exists(#k) OR #o = :o */
    ddb_expr *take_cond;                   /* ... OR #o = :old (a stale claim taken over) */
    ddb_expr *same[DDBI_ENT_CLAIMS_MAX];   /* #f = :v */
    ddbi_ent_seen *seen;                   /* dry run: the values met, and their items */
} ddbi_ent_claims;
/* One claim operation queued: which field, what value (for messages). */
typedef struct ddbi_ent_claim_op {
    const ddb_field_desc *f;               /* NULL: not a claim */
    const char *value;
    bool check;                            /* the ConditionCheck that the item is unchanged */
    bool taken;                            /* a stale claim is taken over (take_cond) */
} ddbi_ent_claim_op;

/* ---- entity_migrate_claim.c ---- */

int ddbi_ent_claims_init(ddbi_ent_claims *c, const ddb_ent_migration_step *s, ddb_error *err);
void ddbi_ent_claims_done(ddbi_ent_claims *c);
/* The operations claiming stored item it's values (check: it is left as
 * it is, so each claim goes with a ConditionCheck that it still holds the
 * value), appended at ops[*n] (room for 2 * c->n), their descriptions at
 * info[*n]; *n grows. */
int ddbi_ent_claims_ops(const ddbi_ent_claims *c, const ddb_item *it, bool check, ddb_arena *a, ddb_tx_op *ops,
                        ddbi_ent_claim_op *info, size_t *n, ddb_error *err);
/* Dry run: remember item it's values; a value another item holds already
 * makes *dup a line (in a) "<Entity>.<field> = <value>: items <key> and <key>". */
int ddbi_ent_claims_seen(ddbi_ent_claims *c, const ddb_item *it, ddb_arena *a, const char **dup, ddb_error *err);
/* Claim put (described by op) failed: holder is the uniqueness item there.
 * When its owner no longer holds the value (absent, or another value),
 * *taken and put's condition becomes a takeover conditional on that owner. */
int ddbi_ent_claim_takeover(const ddbi_ent_claims *c, ddb *db, const ddb_item *holder, const ddbi_ent_claim_op *op,
                            ddb_tx_op *put, ddb_arena *a, bool *taken, ddb_error *err);
/* The step's check: of the *values stored item it holds for the claimed
 * fields, *owned have a uniqueness item owned by it (consistent GetItems,
 * their capacity added to *capacity). */
int ddbi_ent_claims_held(const ddbi_ent_claims *c, ddb *db, const ddb_item *it, ddb_arena *a, size_t *values,
                         size_t *owned, double *capacity, ddb_error *err);

#endif
