/* Entity room, migrations: the operations of one logical item
 * (entity_migrate_run.h).  A stored item the scan meets (a sharded
 * entity's shard items read together with one Query) gets its new form
 * (entity_migrate_item.c): a moved item queues a put on its free new key
 * and a delete of the old one, a rewritten one a put on its key, a removed
 * entity's item a delete, and each claim of a DDB_UNIQUE value goes with
 * its item; a dry run counts them instead, with the capacity they would
 * take, samples and duplicates.  A full queue is committed
 * (entity_migrate_commit.c).  Calls the public item API and this room's
 * shards, claims and new forms. */
#include "entity_migrate_run.h"

#include "core/error.h"

#include <stdio.h>
#include <string.h>

/* Shard item it's logical item as text (partition key, NUL, sort key
 * without the shard suffix) into buf; false when it is no shard item of
 * e or the text does not fit. */
static bool group_of(const ddb_entity_desc *e, const ddb_item *it, char *buf, size_t cap)
{
    const ddb_key_desc *k = &e->keys[0];
    const ddb_value *pk = ddb_item_get(it, k->pk_attr), *sk = k->sk_attr ? ddb_item_get(it, k->sk_attr) : NULL;
    const char *cut = ddbi_ent_shard_cut(e, it);
    if (!pk || pk->type == DDB_TB || !cut || pk->len + (size_t)(cut - sk->u.s) + 2 > cap)
        return false;
    memcpy(buf, pk->u.s, pk->len);
    buf[pk->len] = '\0';
    memcpy(buf + pk->len + 1, sk->u.s, (size_t)(cut - sk->u.s));
    buf[pk->len + 1 + (size_t)(cut - sk->u.s)] = '\0';
    return true;
}

static bool same_group(const char *x, const char *y)
{
    size_t n = strlen(x);
    return !strcmp(x, y) && !strcmp(x + n + 1, y + n + 1);
}

/* The shard items of the logical item shard item `it` belongs to, read
 * with one consistent Query; *skip: another shard item of it came first
 * (the scan met it already). */
static int shard_group(mig *g, const ddb_ent_migration_step *s, const ddb_item *it, ddb_arena *pa, ddb_item ***olds,
                       size_t *n, bool *skip, ddb_error *err)
{
    const ddb_entity_desc *e = stored_layout(s);
    char here[GROUP_KEY_MAX];
    *skip = false;
    if (!group_of(e, it, here, sizeof here))
        return ddbi_fail(err, DDB_ECORRUPT, "%s item %s is not a shard item of the entity (its sort key lacks "
                                            "the shard suffix \"%s\")",
                         e->name, ddbi_ent_key_text(&g->m->table->def, it, pa), ddbi_ent_shard_suffix(e));
    if (g->group[0] && same_group(here, g->group)) {
        *skip = true;
        return DDB_OK;
    }
    memcpy(g->group, here, sizeof here);
    const ddb_key_desc *k = &e->keys[0];
    const ddb_value *sk = ddb_item_get(it, k->sk_attr);
    ddb_item *key = ddb_item_new(pa);
    size_t base = strlen(here + strlen(here) + 1);
    if (!key || ddb_item_set(key, k->pk_attr, ddb_value_copy(pa, ddb_item_get(it, k->pk_attr))) ||
        ddb_item_set(key, k->sk_attr, ddb_v_s(pa, sk->u.s, base)))
        return ddbi_fail_oom(err, __func__);
    ddb_page pg = {0};
    int rc = ddbi_ent_read_shards(g->db, e, key, pa, true, DDB_CAPACITY_TOTAL, &pg, err);
    if (rc)
        return rc;
    g->cp.capacity += pg.capacity.total;
    if (pg.last_key)
        return ddbi_fail(err, DDB_ELIMIT, "%s item %s: its shard items are more than one Query page (1 MB)",
                         e->name, ddbi_ent_key_text(&g->m->table->def, it, pa));
    *olds = pg.items;
    *n = pg.count;
    return DDB_OK;
}

static bool has_key(const ddb_table_def *td, ddb_item *const *items, size_t n, const ddb_item *x)
{
    for (size_t i = 0; i < n; i++)
        if (ddbi_ent_same_key(td, items[i], x))
            return true;
    return false;
}

/* A dry run's estimate of a transactional write of an item of `bytes`:
 * DynamoDB counts a write unit per KB (rounded up) and two for a write in
 * a transaction (Developer Guide, "Read/write capacity mode": "Transactional
 * write requests require 2 write capacity units to perform one write per
 * second for items up to 1 KB"); index writes are not estimated. */
static double tx_write_units(size_t bytes)
{
    size_t u = (bytes + 1023) / 1024;
    return 2.0 * (double)(u ? u : 1);
}

/* A dry run's sample line, copied into the report. */
static int keep_sample(mig *g, const char *line, ddb_error *err)
{
    char *copy = ddb_arena_alloc(g->a, strlen(line) + 1);
    if (!copy)
        return ddbi_fail_oom(err, __func__);
    memcpy(copy, line, strlen(line) + 1);
    g->r->samples[g->r->n_samples++] = copy;
    return DDB_OK;
}

static int dry_sample(mig *g, const ddb_ent_migration_step *s, const ddb_item *from, const ddb_item *to,
                      bool moves, ddb_arena *pa, ddb_error *err)
{
    if (!g->r || g->r->n_samples >= g->o.samples)
        return DDB_OK;
    const ddb_table_def *td = &g->m->table->def;
    const char *f = ddbi_ent_key_text(td, from, pa), *t = ddbi_ent_key_text(td, to, pa);
    char line[520];
    snprintf(line, sizeof line, "%s %s -> %s%s", s->entity->name, f, t, moves ? "" : " (rewritten)");
    return keep_sample(g, line, err);
}

void ddbi_ent_mig_resume_group(mig *g, const ddb_ent_migration_step *s, const ddb_item *start)
{
    g->group[0] = '\0';
    if (start && sharded(s) && !group_of(stored_layout(s), start, g->group, sizeof g->group))
        g->group[0] = '\0';
}

/* Does a claim of ops[0..n) name a uniqueness item a queued operation
 * writes (two items holding one value)?  One transaction cannot hold two
 * operations on one item: the queue is committed first, and the claim then
 * fails its condition, naming both items. */
static bool clashes(const mig *g, const ddb_tx_op *ops, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; ops[i].kind == DDB_TX_PUT && j < g->nops; j++)
            if (g->claim[j].f && ddbi_ent_same_key(&g->m->table->def, g->ops[j].item, ops[i].item))
                return true;
    return false;
}

/* The claims of stored item it (as it is stored once migrated; check: it
 * is left as it is): a dry run counts them and notes duplicates, a real
 * run queues them (with the item's own operations, when it has any). */
int ddbi_ent_mig_queue_claims(mig *g, const ddb_item *it, bool check, ddb_arena *pa, ddb_error *err)
{
    ddb_tx_op ops[2 * DDBI_ENT_CLAIMS_MAX];
    ddbi_ent_claim_op info[2 * DDBI_ENT_CLAIMS_MAX];
    size_t n = 0;
    int rc;
    if (g->o.dry_run) {
        const char *dup = NULL;
        if ((rc = ddbi_ent_claims_ops(&g->cl, it, false, pa, ops, info, &n, err)) ||
            (rc = ddbi_ent_claims_seen(&g->cl, it, pa, &dup, err)))
            return rc;
        g->cp.claimed += n;
        for (size_t i = 0; i < n; i++) /* each claim's put, and the check of an item left as it is */
            g->cp.capacity += tx_write_units(ddb_item_size(ops[i].item)) + (check ? tx_write_units(ddb_item_size(it)) : 0);
        if (dup && g->r)
            g->r->duplicates_found++;
        if (dup && g->r && g->r->n_duplicates < MAX_DUPLICATES) {
            char *copy = ddb_arena_alloc(g->a, strlen(dup) + 1);
            if (!copy)
                return ddbi_fail_oom(err, __func__);
            memcpy(copy, dup, strlen(dup) + 1);
            g->r->duplicates[g->r->n_duplicates++] = copy;
        }
        return DDB_OK;
    }
    if ((rc = ddbi_ent_claims_ops(&g->cl, it, check, pa, ops, info, &n, err)) || !n)
        return rc;
    if ((g->nops + n > MAX_TX_OPS || g->nitems >= g->o.items_per_tx || clashes(g, ops, n)) &&
        (rc = ddbi_ent_mig_flush(g, pa, err)))
        return rc;
    size_t item = g->nitems++;
    g->olds[item] = it;
    for (size_t i = 0; i < n; i++) {
        g->op_item[g->nops] = item;
        g->claim[g->nops] = info[i];
        g->nclaims += ops[i].kind == DDB_TX_PUT;
        g->ops[g->nops++] = ops[i];
    }
    return g->nitems >= g->o.items_per_tx ? ddbi_ent_mig_flush(g, pa, err) : DDB_OK;
}

/* A stored item of a removed entity (DDB_REMOVED "delete"): deleted if
 * still there (a rerun finds it gone); a dry run counts it. */
static int delete_item(mig *g, const ddb_ent_migration_step *s, ddb_item *it, ddb_arena *pa, ddb_error *err)
{
    const ddb_table_def *td = &g->m->table->def;
    g->cp.deleted++;
    if (g->o.dry_run) {
        g->cp.capacity += tx_write_units(ddb_item_size(it));
        if (!g->r || g->r->n_samples >= g->o.samples)
            return DDB_OK;
        char line[520];
        snprintf(line, sizeof line, "%s %s deleted", step_name(s), ddbi_ent_key_text(td, it, pa));
        return keep_sample(g, line, err);
    }
    ddb_item *key = ddbi_ent_mig_table_key(td, it, pa);
    if (!key)
        return ddbi_fail_oom(err, __func__);
    int rc;
    if ((g->nops + 1 > MAX_TX_OPS || g->nitems >= g->o.items_per_tx) && (rc = ddbi_ent_mig_flush(g, pa, err)))
        return rc;
    size_t item = g->nitems++;
    g->olds[item] = it;
    g->claim[g->nops].f = NULL;
    g->op_item[g->nops] = item;
    /* unconditional: an item deleted meanwhile is as good */
    g->ops[g->nops++] = (ddb_tx_op){.kind = DDB_TX_DELETE, .table = td->name, .item = key};
    return g->nitems >= g->o.items_per_tx ? ddbi_ent_mig_flush(g, pa, err) : DDB_OK;
}

/* One stored item of the current step met by the scan: queue its logical
 * item's rewrite (or count it).  The operations of one logical item go in
 * one transaction: put each new item (its key free when it moves, else
 * there), delete each stored item the new ones do not overwrite. */
int ddbi_ent_mig_one_item(mig *g, const ddb_ent_migration_step *s, ddb_item *it, ddb_arena *pa, ddb_error *err)
{
    const ddb_table_def *td = &g->m->table->def;
    ddb_item **olds = &it, *news[DDBI_ENT_MIGRATE_MAX_PARTS];
    size_t n_old = 1, n_new;
    bool same, skip = false;
    if (s->removed)
        return delete_item(g, s, it, pa, err);
    int rc = sharded(s) ? shard_group(g, s, it, pa, &olds, &n_old, &skip, err) : DDB_OK;
    if (rc || skip || !n_old)
        return rc;
    if ((rc = ddbi_ent_migrate_item(s, g->live, olds, n_old, pa, news, &n_new, &same, err)))
        return rc;
    if (same) {
        g->cp.unchanged++;
        return g->cl.n ? ddbi_ent_mig_queue_claims(g, olds[0], true, pa, err) : DDB_OK;
    }
    size_t n_ops = n_new, n_del = 0;
    for (size_t i = 0; i < n_old; i++)
        n_del += !has_key(td, news, n_new, olds[i]);
    n_ops += n_del;
    bool moves = n_del > 0;
    if (moves)
        g->cp.moved++;
    else
        g->cp.rewritten++;
    if (g->o.dry_run) {
        for (size_t i = 0; i < n_new; i++) { /* a put over the stored item at its key, or on a free one */
            size_t bytes = ddb_item_size(news[i]);
            for (size_t j = 0; j < n_old; j++)
                if (ddbi_ent_same_key(td, olds[j], news[i]) && ddb_item_size(olds[j]) > bytes)
                    bytes = ddb_item_size(olds[j]);
            g->cp.capacity += tx_write_units(bytes);
        }
        for (size_t j = 0; j < n_old; j++)
            if (!has_key(td, news, n_new, olds[j]))
                g->cp.capacity += tx_write_units(ddb_item_size(olds[j]));
        return (rc = dry_sample(g, s, olds[0], news[0], moves, pa, err)) ? rc : ddbi_ent_mig_queue_claims(g, news[0], false, pa, err);
    }
    ddb_tx_op cops[2 * DDBI_ENT_CLAIMS_MAX];
    ddbi_ent_claim_op cinfo[2 * DDBI_ENT_CLAIMS_MAX];
    size_t cn = 0;
    if (g->cl.n && (rc = ddbi_ent_claims_ops(&g->cl, news[0], false, pa, cops, cinfo, &cn, err)))
        return rc;
    n_ops += cn;
    if (n_ops > MAX_TX_OPS)
        /* DynamoDB: "TransactWriteItems is a synchronous write operation that groups up to 100 action
         * requests" (API Reference, TransactWriteItems) */
        return ddbi_fail(err, DDB_ELIMIT,
                         "%s item %s: moving it takes %zu operations (%zu new items, %zu deletes), more than the %d "
                         "of one TransactWriteItems; its shard items cannot move together",
                         s->entity->name, ddbi_ent_key_text(td, olds[0], pa), n_ops, n_new, n_del, MAX_TX_OPS);
    if ((g->nops + n_ops > MAX_TX_OPS || g->nitems >= g->o.items_per_tx || clashes(g, cops, cn)) &&
        (rc = ddbi_ent_mig_flush(g, pa, err)))
        return rc;
    size_t item = g->nitems++;
    g->olds[item] = olds[0];
    for (size_t i = 0; i < n_new + n_old; i++)
        g->claim[g->nops + i].f = NULL;
    for (size_t i = 0; i < n_new; i++) {
        g->op_item[g->nops] = item;
        g->ops[g->nops++] = (ddb_tx_op){.kind = DDB_TX_PUT, .table = td->name, .item = news[i],
                                        .condition = has_key(td, olds, n_old, news[i]) ? g->present : g->absent};
    }
    for (size_t i = 0; i < n_old; i++) {
        if (has_key(td, news, n_new, olds[i]))
            continue;
        ddb_item *old = ddbi_ent_mig_table_key(td, olds[i], pa);
        if (!old)
            return ddbi_fail_oom(err, __func__);
        g->op_item[g->nops] = item;
        g->ops[g->nops++] = (ddb_tx_op){.kind = DDB_TX_DELETE, .table = td->name, .item = old,
                                        .condition = g->present};
    }
    for (size_t i = 0; i < cn; i++) {
        g->op_item[g->nops] = item;
        g->claim[g->nops] = cinfo[i];
        g->nclaims += cops[i].kind == DDB_TX_PUT;
        g->ops[g->nops++] = cops[i];
    }
    return g->nitems >= g->o.items_per_tx ? ddbi_ent_mig_flush(g, pa, err) : DDB_OK;
}

