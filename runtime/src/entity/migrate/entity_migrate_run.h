/* Entity room, migrations: what the pieces of a migration run share (a
 * header of this room only).  A run (entity_migrate.c: the migration
 * checked, the indexes created, the checkpoint, the end) scans each step's
 * items (entity_migrate_scan.c: pages, checkpoints, progress, the rate,
 * the final check of claims), gives each logical item its new form and
 * queues its operations (entity_migrate_queue.c: moves, rewrites, deletes,
 * claims, a dry run's counts and samples), and commits the queue
 * (entity_migrate_commit.c: TransactWriteItems, or one request at a time
 * where there are no transactions).  The files call each other in that
 * order only. */
#ifndef DDB_ENTITY_MIGRATE_RUN_H
#define DDB_ENTITY_MIGRATE_RUN_H
#include "entity/migrate/entity_migrate.h"

#include <time.h>

#define MAX_ITEMS_PER_TX 50 /* 2 operations an unsharded item, */
#define MAX_TX_OPS 100      /* 100 a TransactWriteItems */
#define GROUP_KEY_MAX 2048  /* a sharded logical item's key text that is remembered */
#define MAX_DUPLICATES 1000 /* a dry run's report lists at most this many duplicates */

typedef struct mig {
    ddb *db;
    const ddb_ent_migration *m;
    ddb_ent_migrate_opts o;
    ddb_arena *a;                  /* the report's arena */
    ddb_ent_migrate_report *r;
    ddbi_ent_checkpoint cp;
    ddb_expr *absent, *present;    /* attribute_not_exists / attribute_exists of the table's partition key */
    ddb_tx_op ops[MAX_TX_OPS];
    const ddb_item *olds[MAX_TX_OPS];  /* a stored item of each queued logical item, for messages */
    size_t op_item[MAX_TX_OPS];        /* the queued logical item of each operation */
    ddbi_ent_claim_op claim[MAX_TX_OPS]; /* what each operation claims (f NULL: no claim) */
    ddbi_ent_claims cl;                /* the claims of the step under way */
    uint64_t nclaims;                  /* claims queued */
    char group[GROUP_KEY_MAX];         /* sharded: the logical item of the last shard item met ("" none) */
    size_t nops, nitems;
    bool no_tx;                    /* the endpoint has no TransactWriteItems */
    struct timespec t0;
    double cap0;                   /* capacity when this run started */
    uint32_t step0;                /* the step under way when this run started */
    uint64_t in_step0;             /* and what it had scanned */
    uint64_t total;
    const ddb_table_def *live;     /* the table as it was described at the start */
} mig;

/* The entity step s reads: its name (a removed one's). */
static inline const char *step_name(const ddb_ent_migration_step *s)
{
    return s->removed ? s->removed : s->entity->name;
}


/* The entity whose layout the stored items of step s have: the old
 * schema's when the step names it (a sharded one), else the new one's. */
static inline const ddb_entity_desc *stored_layout(const ddb_ent_migration_step *s)
{
    return s->old_entity && s->old_entity->n_shards ? s->old_entity : s->entity;
}

/* Are step s's stored items shard items (read a logical item at a time)? */
static inline bool sharded(const ddb_ent_migration_step *s)
{
    return !s->removed && stored_layout(s)->n_shards;
}

/* entity_migrate_commit.c */
/* The conditions of moves: attribute_not_exists / attribute_exists of the table's partition key. */
int ddbi_ent_mig_prepare(mig *g, ddb_error *err);
/* The table key of item it (its table key attributes), in a; NULL when out of memory. */
ddb_item *ddbi_ent_mig_table_key(const ddb_table_def *td, const ddb_item *it, ddb_arena *a);
/* Commit the queued operations (one transaction, or one by one without transactions). */
int ddbi_ent_mig_flush(mig *g, ddb_arena *pa, ddb_error *err);

/* entity_migrate_queue.c */
/* One stored item of step s met by the scan: its logical item's operations queued (or counted). */
int ddbi_ent_mig_one_item(mig *g, const ddb_ent_migration_step *s, ddb_item *it, ddb_arena *pa, ddb_error *err);
/* The claims of stored item it (check: it is left as it is), queued (a dry run: counted). */
int ddbi_ent_mig_queue_claims(mig *g, const ddb_item *it, bool check, ddb_arena *pa, ddb_error *err);
/* A scan resumed at start: the sharded logical item it ends was done with that page. */
void ddbi_ent_mig_resume_group(mig *g, const ddb_ent_migration_step *s, const ddb_item *start);

/* entity_migrate_scan.c */
/* Scan the table for step s's entity from the checkpoint to the end. */
int ddbi_ent_mig_run_step(mig *g, const ddb_ent_migration_step *s, ddb_error *err);
#endif
