/* Entity room: migrations (ddb_ent_migrate).  The new schema's GSIs are
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
 * model version are recorded and the migration ended.  Calls the public
 * Scan, TransactWriteItems, table and expression API, and this room's
 * fingerprints, cursors, type filter and checkpoints. */
#include "entity/migrate/entity_migrate.h"

#include "core/error.h"

#include <stdio.h>
#include <string.h>
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
static const char *step_name(const ddb_ent_migration_step *s)
{
    return s->removed ? s->removed : s->entity->name;
}

static double since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Hold the average rate of this run at or under max_capacity per second. */
static void throttle(mig *g)
{
    if (g->o.max_capacity <= 0)
        return;
    double want = (g->cp.capacity - g->cap0) / g->o.max_capacity, have = since(&g->t0);
    if (want > have) {
        double d = want - have;
        struct timespec ts = {(time_t)d, (long)((d - (double)(time_t)d) * 1e9)};
        while (nanosleep(&ts, &ts) != 0)
            ;
    }
}

static int prepare_conditions(mig *g, ddb_error *err)
{
    ddb_arena *na = ddb_arena_new();
    ddb_item *names = na ? ddb_item_new(na) : NULL;
    int rc = names && !ddb_item_set_s(names, "#k", g->m->table->def.key.pk) ? DDB_OK : ddbi_fail_oom(err, __func__);
    if (!rc)
        rc = ddb_expr_prepare(DDB_EXPR_CONDITION, "attribute_not_exists(#k)", names, &g->absent, err);
    if (!rc)
        rc = ddb_expr_prepare(DDB_EXPR_CONDITION, "attribute_exists(#k)", names, &g->present, err);
    ddb_arena_free(na);
    return rc;
}

/* The table key of item it (its table key attributes), in a. */
static ddb_item *table_key(const ddb_table_def *td, const ddb_item *it, ddb_arena *a)
{
    ddb_item *k = ddb_item_new(a);
    const ddb_value *pk = ddb_item_get(it, td->key.pk), *sk = td->key.sk ? ddb_item_get(it, td->key.sk) : NULL;
    if (!k || !pk || ddb_item_set(k, td->key.pk, ddb_value_copy(a, pk)) ||
        (sk && ddb_item_set(k, td->key.sk, ddb_value_copy(a, sk))))
        return NULL;
    return k;
}

/* Operation i, a claim, failed its condition: holder is the uniqueness
 * item that is there (NULL: unknown). */
static int claim_failed(mig *g, size_t i, const ddb_item *holder, ddb_arena *pa, ddb_error *err)
{
    const ddbi_ent_claim_op *c = &g->claim[i];
    const char *mine = ddbi_ent_key_text(&g->m->table->def, g->olds[g->op_item[i]], pa);
    if (c->check)
        return ddbi_fail(err, DDB_ECONDITION, "claiming %s.%s = \"%s\" for item %s: the item was changed meanwhile",
                         g->cl.e->name, c->f->name, c->value, mine);
    const ddb_value *o = holder ? ddb_item_get(holder, "owner") : NULL;
    return ddbi_fail(err, DDB_ECONDITION,
                     "%s.%s is DDB_UNIQUE, but the value \"%s\" is held by item %.*s (its claim) and by item %s: "
                     "change one of them and run the migration again (the values claimed so far stay claimed)",
                     g->cl.e->name, c->f->name, c->value, o && o->type == DDB_TS ? (int)o->len : 9,
                     o && o->type == DDB_TS ? o->u.s : "(unknown)", mine);
}

/* An endpoint without TransactWriteItems (dynalite): each operation alone,
 * still conditional.  An interruption between an item's put and delete
 * leaves both; run again, the put finds its new item already there (equal:
 * fine) and the delete goes on. */
static int one_by_one(mig *g, ddb_arena *pa, ddb_error *err)
{
    int rc = DDB_OK;
    for (size_t i = 0; i < g->nops && !rc; i++) {
        const ddb_tx_op *op = &g->ops[i];
        ddb_write_opts wo = {.condition = op->condition, .values = op->values,
                             .return_capacity = DDB_CAPACITY_TOTAL};
        ddb_write_result res = {0};
        if (op->kind == DDB_TX_CHECK)
            continue; /* no ConditionCheck without transactions: the claim's own condition holds */
        if (op->kind == DDB_TX_PUT)
            rc = ddb_put_item(g->db, op->table, op->item, &wo, pa, &res, err);
        else
            rc = ddb_delete_item(g->db, op->table, op->item, &wo, pa, &res, err);
        g->cp.capacity += res.capacity.total;
        if (!rc && g->claim[i].f)
            g->cp.claimed++;
        if (rc == DDB_ECONDITION && op->kind == DDB_TX_DELETE)
            rc = DDB_OK; /* already deleted */
        else if (rc == DDB_ECONDITION && g->claim[i].f) {
            ddb_item *there = NULL;
            ddb_item *key = table_key(&g->m->table->def, op->item, pa);
            bool taken = false;
            if (key)
                (void)ddb_get_item(g->db, op->table, key, &(ddb_get_opts){.consistent = true}, pa, &there, NULL,
                                   NULL);
            if (!g->claim[i].taken && !(rc = ddbi_ent_claim_takeover(&g->cl, g->db, there, &g->claim[i], &g->ops[i],
                                                                      pa, &taken, err)) && taken) {
                g->claim[i].taken = true;
                i--; /* again, taking the stale claim over */
                continue;
            }
            if (!rc)
                rc = claim_failed(g, i, there, pa, err);
        }
        else if (rc == DDB_ECONDITION && op->condition == g->absent) {
            ddb_item *there = NULL;
            ddb_item *key = table_key(&g->m->table->def, op->item, pa);
            rc = key ? ddb_get_item(g->db, op->table, key, &(ddb_get_opts){.consistent = true}, pa, &there, NULL, err)
                     : ddbi_fail_oom(err, __func__);
            if (rc == DDB_ENOTFOUND)
                rc = DDB_OK;
            if (!rc && (!there || !ddb_value_equal(ddb_item_map(there), ddb_item_map(op->item))))
                rc = ddbi_fail(err, DDB_ECONDITION,
                               "moving %s item %s: its new key %s is taken by another item",
                               step_name(&g->m->steps[g->cp.step]),
                               ddbi_ent_key_text(&g->m->table->def, g->olds[g->op_item[i]], pa),
                               ddbi_ent_key_text(&g->m->table->def, op->item, pa));
        }
    }
    g->nops = g->nitems = 0;
    g->nclaims = 0;
    return rc;
}

/* Commit the queued items in one transaction. */
static int flush(mig *g, ddb_arena *pa, ddb_error *err)
{
    if (!g->nops)
        return DDB_OK;
    if (g->no_tx)
        return one_by_one(g, pa, err);
    ddb_tx_result res = {0};
    int rc = DDB_OK;
    bool again = true;
    /* a stale claim in the way: taken over, the transaction is sent again (at most once a claim) */
    for (size_t tries = 0; again && tries <= g->nops; tries++) {
        memset(&res, 0, sizeof res);
        rc = ddb_transact_write(g->db, g->ops, g->nops, DDB_CAPACITY_TOTAL, pa, &res, err);
        again = false;
        for (size_t i = 0; rc == DDB_ECANCELED && res.reasons && i < g->nops; i++) {
            if (res.reasons[i] != DDB_ECONDITION || !g->claim[i].f || g->claim[i].taken)
                continue;
            bool taken = false;
            int trc = ddbi_ent_claim_takeover(&g->cl, g->db, res.items ? res.items[i] : NULL, &g->claim[i],
                                              &g->ops[i], pa, &taken, err);
            if (trc)
                return trc;
            g->claim[i].taken = taken;
            again |= taken;
        }
    }
    if (rc == DDB_ENOTSUP) {
        g->no_tx = true;
        return one_by_one(g, pa, err);
    }
    if (!rc) {
        g->cp.capacity += res.capacity.total;
        g->cp.claimed += g->nclaims;
    } else if (rc == DDB_ECANCELED && res.reasons) {
        /* name the first item whose condition failed */
        size_t item = 0, at = 0;
        for (size_t i = 0; i < g->nops; i++)
            if (res.reasons[i]) {
                item = g->op_item[i];
                at = i;
                break;
            }
        if (g->claim[at].f && res.reasons[at] == DDB_ECONDITION)
            rc = claim_failed(g, at, res.items ? res.items[at] : NULL, pa, err);
        else
            rc = ddbi_ent_fail_within(err, rc,
                                  "moving %s item %s: its new key is taken, or it was changed meanwhile",
                                  step_name(&g->m->steps[g->cp.step]),
                                  ddbi_ent_key_text(&g->m->table->def, g->olds[item < g->nitems ? item : 0], pa));
    }
    g->nops = g->nitems = 0;
    g->nclaims = 0;
    return rc;
}

/* The entity whose layout the stored items of step s have: the old
 * schema's when the step names it (a sharded one), else the new one's. */
static const ddb_entity_desc *stored_layout(const ddb_ent_migration_step *s)
{
    return s->old_entity && s->old_entity->n_shards ? s->old_entity : s->entity;
}

/* Are step s's stored items shard items (read a logical item at a time)? */
static bool sharded(const ddb_ent_migration_step *s)
{
    return !s->removed && stored_layout(s)->n_shards;
}

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
static int queue_claims(mig *g, const ddb_item *it, bool check, ddb_arena *pa, ddb_error *err)
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
        (rc = flush(g, pa, err)))
        return rc;
    size_t item = g->nitems++;
    g->olds[item] = it;
    for (size_t i = 0; i < n; i++) {
        g->op_item[g->nops] = item;
        g->claim[g->nops] = info[i];
        g->nclaims += ops[i].kind == DDB_TX_PUT;
        g->ops[g->nops++] = ops[i];
    }
    return g->nitems >= g->o.items_per_tx ? flush(g, pa, err) : DDB_OK;
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
    ddb_item *key = table_key(td, it, pa);
    if (!key)
        return ddbi_fail_oom(err, __func__);
    int rc;
    if ((g->nops + 1 > MAX_TX_OPS || g->nitems >= g->o.items_per_tx) && (rc = flush(g, pa, err)))
        return rc;
    size_t item = g->nitems++;
    g->olds[item] = it;
    g->claim[g->nops].f = NULL;
    g->op_item[g->nops] = item;
    /* unconditional: an item deleted meanwhile is as good */
    g->ops[g->nops++] = (ddb_tx_op){.kind = DDB_TX_DELETE, .table = td->name, .item = key};
    return g->nitems >= g->o.items_per_tx ? flush(g, pa, err) : DDB_OK;
}

/* One stored item of the current step met by the scan: queue its logical
 * item's rewrite (or count it).  The operations of one logical item go in
 * one transaction: put each new item (its key free when it moves, else
 * there), delete each stored item the new ones do not overwrite. */
static int one_item(mig *g, const ddb_ent_migration_step *s, ddb_item *it, ddb_arena *pa, ddb_error *err)
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
        return g->cl.n ? queue_claims(g, olds[0], true, pa, err) : DDB_OK;
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
        return (rc = dry_sample(g, s, olds[0], news[0], moves, pa, err)) ? rc : queue_claims(g, news[0], false, pa, err);
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
        (rc = flush(g, pa, err)))
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
        ddb_item *old = table_key(td, olds[i], pa);
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
    return g->nitems >= g->o.items_per_tx ? flush(g, pa, err) : DDB_OK;
}

static void report_progress(mig *g, const ddb_ent_migration_step *s, uint64_t scanned, uint32_t step)
{
    if (!g->o.progress)
        return;
    ddb_ent_progress p = {.entity = step_name(s), .step = g->o.dry_run ? "dry run" : "migrate",
                          .done = g->cp.moved + g->cp.rewritten + g->cp.deleted, .skipped = g->cp.unchanged, .scanned = scanned,
                          .scanned_before = step == g->step0 ? g->in_step0 : 0, .total = g->total,
                          .capacity = g->cp.capacity, .step_no = step + 1, .n_steps = g->cp.n_steps,
                          .claimed = g->cp.claimed, .moved = g->cp.moved, .deleted = g->cp.deleted};
    g->o.progress(g->o.progress_ctx, &p);
}

/* The next page of scan sp, in pa (emptied first); its capacity counted. */
static int next_page(mig *g, const ddb_scan_params *sp, ddb_arena *pa, ddb_page *pg, ddb_error *err)
{
    ddb_arena_reset(pa);
    memset(pg, 0, sizeof *pg);
    int rc = ddb_scan(g->db, sp, pa, pg, err);
    if (!rc)
        g->cp.capacity += pg->capacity.total;
    return rc;
}

/* The end of a step with claims: every value its entity's items hold must
 * be claimed by its item.  The step's pass claims what it meets, but an
 * item it had passed before a run stopped (at a duplicate) may have been
 * changed since (the duplicate fixed on the item that made the claim): a
 * second consistent scan reads each item's uniqueness items back, claims
 * what is missing as the first pass does (the ConditionCheck that the item
 * still holds the value, the takeover of a stale claim, the duplicate
 * message), reads those again, and the values and the claims held must
 * then be as many, or the step fails saying so.  Not checkpointed: a
 * resumed run checks from the start. */
static int verify_claims(mig *g, const ddb_ent_migration_step *s, const ddb_scan_params *base, ddb_error *err)
{
    ddb_scan_params sp = *base;
    sp.start_key = NULL;
    ddb_arena *pa = ddb_arena_new(), *ka = ddb_arena_new();
    uint64_t values = 0, held = 0, scanned = 0;
    int rc = pa && ka ? DDB_OK : ddbi_fail_oom(err, __func__);
    while (!rc) {
        ddb_page pg;
        if ((rc = next_page(g, &sp, pa, &pg, err)))
            break;
        scanned += pg.scanned_count;
        bool *missing = pg.count ? ddb_arena_alloc(pa, pg.count * sizeof *missing) : NULL;
        if (pg.count && !missing)
            rc = ddbi_fail_oom(err, __func__);
        for (size_t i = 0; i < pg.count && !rc; i++) {
            size_t nv, nh;
            rc = ddbi_ent_claims_held(&g->cl, g->db, pg.items[i], pa, &nv, &nh, &g->cp.capacity, err);
            values += nv;
            held += nh;
            missing[i] = !rc && nh < nv;
            if (missing[i]) {
                held -= nh; /* counted when read again below */
                rc = queue_claims(g, pg.items[i], true, pa, err);
            }
        }
        if (!rc)
            rc = flush(g, pa, err);
        for (size_t i = 0; i < pg.count && !rc; i++) {
            size_t nv, nh;
            if (missing[i] && !(rc = ddbi_ent_claims_held(&g->cl, g->db, pg.items[i], pa, &nv, &nh, &g->cp.capacity,
                                                          err)))
                held += nh;
        }
        if (!rc && g->o.progress) {
            ddb_ent_progress p = {.entity = s->entity->name, .step = "check claims", .done = held,
                                  .scanned = scanned, .total = g->total, .capacity = g->cp.capacity,
                                  .step_no = g->cp.step + 1, .n_steps = g->cp.n_steps, .claimed = g->cp.claimed};
            g->o.progress(g->o.progress_ctx, &p);
        }
        if (rc || !pg.last_key)
            break;
        if (!(sp.start_key = ddb_item_copy(ka, pg.last_key)))
            rc = ddbi_fail_oom(err, __func__);
    }
    if (!rc && held != values)
        rc = ddbi_fail(err, DDB_ECONDITION,
                       "%s: after claiming, %llu of the %llu values its items hold for DDB_UNIQUE fields are claimed "
                       "by them (an item was changed during the check?): run the migration again",
                       s->entity->name, (unsigned long long)held, (unsigned long long)values);
    if (!rc)
        g->cp.verified += held;
    ddb_arena_free(ka);
    ddb_arena_free(pa);
    return rc;
}

/* Scan the table for step s's entity from the checkpoint to the end. */
static int run_step(mig *g, const ddb_ent_migration_step *s, ddb_error *err)
{
    ddb_arena *a = ddb_arena_new(), *pa = ddb_arena_new();
    ddbi_exprb fx = {0};
    const ddb_expr *filter = NULL;
    int rc = !a || !pa ? ddbi_fail_oom(err, __func__) : DDB_OK;
    if (!rc)
        rc = ddbi_exprb_init(&fx, g->db, a, err);
    /* the items stored under the entity's name: a renamed one's old name */
    if (!rc)
        rc = ddbi_ent_type_filter_named(&fx, g->m->table, s->renamed_from ? s->renamed_from : step_name(s), a, &filter,
                                        err);
    if (!rc)
        rc = ddbi_ent_claims_init(&g->cl, s, err);
    ddb_scan_params sp = {.table = g->m->table->def.name, .consistent = true, .filter = filter,
                          .values = ddbi_exprb_values(&fx), .limit = g->o.page_size,
                          .return_capacity = DDB_CAPACITY_TOTAL};
    ddb_item *start = NULL;
    if (!rc && g->cp.cursor && (rc = ddbi_ent_cursor_decode(a, g->cp.cursor, &start, err)))
        rc = ddbi_ent_fail_within(err, DDB_ECORRUPT, "the migration checkpoint's position is unreadable");
    sp.start_key = start;
    /* sharded: the logical item of the item the last page ended at was done with that page */
    g->group[0] = '\0';
    if (start && sharded(s) && !group_of(stored_layout(s), start, g->group, sizeof g->group))
        g->group[0] = '\0';
    while (!rc) {
        ddb_page pg;
        if ((rc = next_page(g, &sp, pa, &pg, err)))
            break;
        g->cp.in_step += pg.scanned_count;
        g->cp.scanned += pg.scanned_count;
        for (size_t i = 0; i < pg.count && !rc; i++)
            rc = one_item(g, s, pg.items[i], pa, err);
        if (!rc)
            rc = flush(g, pa, err);
        if (rc)
            break;
        const char *cursor = NULL;
        if (pg.last_key) {
            ddb_item *next = ddb_item_copy(a, pg.last_key);
            if (!next || (rc = ddbi_ent_cursor_encode(a, next, &cursor, err))) {
                rc = rc ? rc : ddbi_fail_oom(err, __func__);
                break;
            }
            sp.start_key = next;
        }
        g->cp.cursor = cursor;
        if (!cursor && g->cl.n && !g->o.dry_run && (rc = verify_claims(g, s, &sp, err)))
            break;
        uint32_t step = g->cp.step;
        uint64_t scanned = g->cp.in_step;
        if (!cursor) {
            g->cp.step++;
            g->cp.in_step = 0;
        }
        if (!g->o.dry_run && (rc = ddbi_ent_checkpoint_put(g->db, g->m->table->def.name, &g->cp, err)))
            break;
        report_progress(g, s, scanned, step);
        throttle(g);
        if (!cursor)
            break;
    }
    ddbi_ent_claims_done(&g->cl);
    ddbi_exprb_done(&fx);
    ddb_arena_free(pa);
    ddb_arena_free(a);
    return rc;
}

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

/* The end: the new schema's fingerprints and model version, the history's line, then no migration. */
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
    if (!rc && ddbi_ent_history_add(g->db, table, &g->cp, &herr) && g->r) {
        char note[DDB_ERROR_TEXT_SIZE + 64];
        snprintf(note, sizeof note, "the migration ended but its history line was not recorded: %s", herr.message);
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
        rc = prepare_conditions(&g, err);
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
        rc = run_step(&g, &m->steps[g.cp.step], err);
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
