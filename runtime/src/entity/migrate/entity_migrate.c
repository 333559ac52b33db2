/* Entity room, migrations: ddb_ent_migrate.  The new schema's GSIs are
 * created, the migration is recorded as in progress with the table (open
 * refuses the table meanwhile), then each step scans the table for its
 * entity's items, page by page: every logical item (one stored item, or a
 * sharded entity's shard items, read together when the scan meets the
 * first of them) gets its new form (entity_migrate_item.c; a renamed
 * entity's items are found by their old name), or is deleted (a removed
 * entity's step); a moved item
 * is one transaction (put the new items if their keys are free, delete the
 * old ones if still there), a rewritten one puts on the same keys, groups
 * of items in one TransactWriteItems (at most 100 operations).  A step's
 * claims (entity_migrate_claim.c) go in the transaction of their item,
 * and the step ends with a check that every stored value is claimed by
 * its item (a value whose claim is missing is claimed then).
 * After each page the checkpoint is stored, progress reported and the rate
 * held under the capacity asked for.  At the end the new fingerprints and
 * model version are recorded, an entry appended to the history, and the
 * migration ended.  This file checks the migration, starts and ends it;
 * the scan, the items' operations and their commit are
 * entity_migrate_scan.c, _queue.c and _commit.c (entity_migrate_run.h).
 * Calls the public table and transaction API, and this room's
 * fingerprints, checkpoints and history. */
#include "entity_migrate_run.h"

#include "core/error.h"

#include <stdio.h>
#include <string.h>

static int check_migration(const ddb_ent_migration *m, ddb_error *err)
{
    if (!m || !m->table || (m->n_steps && !m->steps) || (m->n_entities && !m->entities))
        return ddbi_fail(err, DDB_EINVAL, "ddb_ent_migrate: a migration with a table is required");
    if (!ddbi_ent_migration_id_ok(m->id))
        return ddbi_fail(err, DDB_EINVAL,
                         "ddb_ent_migrate: the migration id \"%.80s\" must be 1 to %d letters, digits or ._:-",
                         m->id ? m->id : "", DDBI_ENT_MIGRATION_ID_MAX);
    for (size_t i = 0; i < m->n_steps; i++) {
        const ddb_entity_desc *e = m->steps[i].entity;
        if (m->steps[i].removed && (e || m->steps[i].n_claims || m->steps[i].renamed_from))
            return ddbi_fail(err, DDB_EINVAL, "ddb_ent_migrate: step %zu deletes the items of %.80s: it has no entity, "
                                              "claims or rename",
                             i + 1, m->steps[i].removed);
        if (m->steps[i].removed)
            continue;
        if (!e || e->table != m->table)
            return ddbi_fail(err, DDB_EINVAL, "ddb_ent_migrate: step %zu's entity is not of table %s", i + 1,
                             m->table->def.name);
        const ddb_entity_desc *o = m->steps[i].old_entity;
        if (o && !o->n_shards != !e->n_shards)
            return ddbi_fail(err, DDB_ENOTSUP, "ddb_ent_migrate: %s is %s sharded; no migration shards or "
                                               "unshards an entity",
                             e->name, e->n_shards ? "now" : "no longer");
        size_t worst = (size_t)ddbi_ent_parts(e) + (size_t)ddbi_ent_parts(stored_layout(&m->steps[i]));
        if (e->n_shards && worst > MAX_TX_OPS)
            /* DynamoDB: TransactWriteItems "groups up to 100 action requests" (API Reference) */
            return ddbi_fail(err, DDB_ELIMIT,
                             "ddb_ent_migrate: moving a %s item takes up to %zu operations (a put of each of its %d "
                             "new shard items, a delete of each of its %d stored ones), more than the %d of one "
                             "TransactWriteItems: its shard items could not move together; nothing was changed",
                             e->name, worst, ddbi_ent_parts(e), ddbi_ent_parts(stored_layout(&m->steps[i])),
                             MAX_TX_OPS);
        ddbi_ent_claims cl; /* the claims name unique fields of an unsharded entity: checked before anything */
        int rc = ddbi_ent_claims_init(&cl, &m->steps[i], err);
        ddbi_ent_claims_done(&cl);
        if (rc)
            return rc;
        if (m->steps[i].n_renames && !m->steps[i].renames)
            return ddbi_fail(err, DDB_EINVAL, "ddb_ent_migrate: step %zu has renames but no array", i + 1);
    }
    return DDB_OK;
}

/* The shard items of one logical item move in one transaction: an
 * endpoint without TransactWriteItems (DDB_ENOTSUP: dynalite) cannot
 * migrate a sharded entity, and is told so before anything is written
 * (one ConditionCheck on an absent key: nothing changes). */
/* A key value of type t no migrated item has. */
static ddb_value *probe_value(ddb_arena *a, ddb_type t)
{
    static const char probe[] = "ddbgen.migrate.probe";
    return t == DDB_TB ? ddb_v_b(a, probe, sizeof probe - 1)
           : t == DDB_TN ? ddb_v_i64(a, -7340032007)
                         : ddb_v_s(a, probe, sizeof probe - 1);
}

static int transactions_for_shards(mig *g, ddb_error *err)
{
    bool any = false;
    for (size_t i = 0; i < g->m->n_steps; i++)
        any |= sharded(&g->m->steps[i]);
    if (!any || g->o.dry_run)
        return DDB_OK;
    const ddb_table_def *td = &g->m->table->def;
    ddb_arena *a = ddb_arena_new();
    ddb_item *key = a ? ddb_item_new(a) : NULL;
    ddb_value *pk = key ? probe_value(a, td->key.pk_type) : NULL;
    ddb_value *sk = key && td->key.sk ? probe_value(a, td->key.sk_type) : NULL;
    int rc = !pk || ddb_item_set(key, td->key.pk, pk) || (td->key.sk && (!sk || ddb_item_set(key, td->key.sk, sk)))
                 ? ddbi_fail_oom(err, __func__)
                 : DDB_OK;
    ddb_tx_op op = {.kind = DDB_TX_CHECK, .table = td->name, .item = key, .condition = g->absent};
    ddb_tx_result res = {0};
    if (!rc)
        rc = ddb_transact_write(g->db, &op, 1, DDB_CAPACITY_TOTAL, a, &res, err);
    if (rc == DDB_ENOTSUP)
        rc = ddbi_fail(err, DDB_ENOTSUP, "table %s: a sharded entity's shard items move in one transaction, and "
                                         "this endpoint has no TransactWriteItems; nothing was changed",
                       td->name);
    else if (rc == DDB_ECANCELED)
        rc = ddbi_fail(err, DDB_EEXISTS, "table %s holds an item at the key %s the migration uses to test for "
                                         "transactions",
                       td->name, ddbi_ent_key_text(td, key, a));
    ddb_arena_free(a);
    return rc;
}

/* The new schema's GSIs the table lacks (the backend indexes the items that carry their keys). */
static int add_indexes(ddb *db, const ddb_schema_table *t, const ddb_table_desc *d, ddb_error *err)
{
    int rc = DDB_OK;
    for (size_t i = 0; !rc && i < t->def.n_indexes; i++) {
        const ddb_index_def *want = &t->def.indexes[i];
        bool have = false;
        for (size_t j = 0; j < d->def.n_indexes; j++)
            have |= !strcmp(d->def.indexes[j].name, want->name);
        if (have)
            continue;
        if (want->local)
            return ddbi_fail(err, DDB_EMODEL, "table %s has no local index %s, and a local index can only be "
                                              "created with the table",
                             t->def.name, want->name);
        rc = ddb_add_index(db, t->def.name, want, NULL, NULL, err);
    }
    return rc;
}

/* The end: the new schema's fingerprints and model version, the history's entry, then no migration. */
static int finish(mig *g, ddb_error *err)
{
    int rc = DDB_OK;
    const char *table = g->m->table->def.name;
    for (size_t i = 0; !rc && i < g->m->n_entities; i++) {
        ddb_buf fp = {0};
        char key[300];
        snprintf(key, sizeof key, "ddbgen.entity.%s", g->m->entities[i]->name);
        if (ddbi_ent_fingerprint(g->m->entities[i], &fp))
            rc = ddbi_fail_oom(err, __func__);
        else
            rc = ddb_table_meta_put(g->db, table, key, fp.p, fp.len, err);
        ddbi_buf_free(&fp);
    }
    if (!rc && g->m->model_version)
        rc = ddb_table_meta_put(g->db, table, DDB_ENT_MODEL_META, g->m->model_version, strlen(g->m->model_version),
                                err);
    if (!rc && g->o.drop_indexes)
        rc = ddbi_ent_drop_undeclared(g->db, g->m->table, err);
    ddb_error herr = {0}; /* the history is a record, not the migration: its failure is reported, not fatal */
    if (!rc && ddbi_ent_history_add(g->db, g->m->table, &g->cp, g->o.record_model, g->o.record_model_len, &herr) &&
        g->r) {
        char note[DDB_ERROR_TEXT_SIZE + 64];
        snprintf(note, sizeof note, "the migration ended but its history entry was not recorded: %s", herr.message);
        char *copy = ddb_arena_alloc(g->a, strlen(note) + 1);
        if (copy)
            memcpy(copy, note, strlen(note) + 1);
        g->r->history_note = copy;
    }
    if (!rc)
        rc = ddbi_ent_checkpoint_end(g->db, table, err);
    return rc;
}

int ddb_ent_migrate(ddb *db, const ddb_ent_migration *m, const ddb_ent_migrate_opts *o, ddb_arena *a,
                    ddb_ent_migrate_report *report, ddb_error *err)
{
    int rc = !db ? ddbi_fail(err, DDB_EINVAL, "ddb_ent_migrate: db is required") : check_migration(m, err);
    if (rc)
        return rc;
    if (report && !a)
        return ddbi_fail(err, DDB_EINVAL, "ddb_ent_migrate: a report needs an arena");
    mig g = {.db = db, .m = m, .a = a, .r = report};
    if (o)
        g.o = *o;
    if (!g.o.page_size)
        g.o.page_size = 200;
    if (!g.o.items_per_tx || g.o.items_per_tx > MAX_ITEMS_PER_TX)
        g.o.items_per_tx = g.o.items_per_tx ? MAX_ITEMS_PER_TX : 25;
    if (report) {
        memset(report, 0, sizeof *report);
        if (g.o.dry_run && g.o.samples && !(report->samples = ddb_arena_alloc(a, g.o.samples * sizeof(char *))))
            return ddbi_fail_oom(err, __func__);
        if (g.o.dry_run && !(report->duplicates = ddb_arena_alloc(a, MAX_DUPLICATES * sizeof(char *))))
            return ddbi_fail_oom(err, __func__);
    }
    if (!report)
        g.o.samples = 0;
    ddb_arena *wa = ddb_arena_new();
    if (!wa)
        return ddbi_fail_oom(err, __func__);
    ddb_table_desc *d;
    bool found = false;
    rc = ddb_describe_table(db, m->table->def.name, wa, &d, err);
    if (!rc)
        rc = ddbi_ent_checkpoint_get(db, m->table->def.name, wa, &g.cp, &found, err);
    if (!rc && found && strcmp(g.cp.id, m->id) != 0)
        rc = ddbi_fail(err, DDB_EMODEL, "table %s: migration %s is in progress; finish it before starting %s",
                       m->table->def.name, g.cp.id, m->id);
    if (!rc && found && g.cp.n_steps != m->n_steps)
        rc = ddbi_fail(err, DDB_EMODEL, "table %s: migration %s was started with %u steps, this one has %zu",
                       m->table->def.name, m->id, g.cp.n_steps, m->n_steps);
    if (!rc && (!found || g.o.dry_run)) { /* a dry run always looks at everything */
        memset(&g.cp, 0, sizeof g.cp);
        g.cp.id = m->id;
        g.cp.n_steps = (uint32_t)m->n_steps;
    }
    if (!rc)
        rc = ddbi_ent_mig_prepare(&g, err);
    if (!rc && !found)
        rc = transactions_for_shards(&g, err);
    if (!rc && !g.o.dry_run && !found && !(rc = add_indexes(db, m->table, d, err)) &&
        !(rc = ddbi_ent_migration_target_put(db, m, err)))
        rc = ddbi_ent_checkpoint_put(db, m->table->def.name, &g.cp, err);
    if (!rc && !g.o.dry_run && found)
        rc = add_indexes(db, m->table, d, err);
    g.total = rc ? 0 : d->item_count;
    g.live = rc ? NULL : &d->def;
    g.cap0 = g.cp.capacity;
    g.step0 = g.cp.step;
    g.in_step0 = g.cp.in_step;
    clock_gettime(CLOCK_MONOTONIC, &g.t0);
    while (!rc && g.cp.step < m->n_steps)
        rc = ddbi_ent_mig_run_step(&g, &m->steps[g.cp.step], err);
    if (!rc && !g.o.dry_run)
        rc = finish(&g, err);
    if (report) {
        report->resumed = found && !g.o.dry_run;
        report->scanned = g.cp.scanned;
        report->moved = g.cp.moved;
        report->rewritten = g.cp.rewritten;
        report->unchanged = g.cp.unchanged;
        report->deleted = g.cp.deleted;
        report->claimed = g.cp.claimed;
        report->verified = g.cp.verified;
        report->capacity = g.cp.capacity;
    }
    ddb_expr_free(g.absent);
    ddb_expr_free(g.present);
    ddb_arena_free(wa);
    return rc;
}
