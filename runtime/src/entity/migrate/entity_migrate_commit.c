/* Entity room, migrations: committing the operations a migration run
 * queued (entity_migrate_run.h): one TransactWriteItems of the queue, a
 * stale claim in the way taken over and the transaction sent again, a
 * cancelled move or claim explained (the new key taken, the value held by
 * another item); an endpoint without transactions gets each operation
 * alone, still conditional.  Calls the public item, transaction and
 * expression API and this room's claims. */
#include "entity_migrate_run.h"

#include "core/error.h"

#include <stdio.h>
#include <string.h>

int ddbi_ent_mig_prepare(mig *g, ddb_error *err)
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
ddb_item *ddbi_ent_mig_table_key(const ddb_table_def *td, const ddb_item *it, ddb_arena *a)
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
            ddb_item *key = ddbi_ent_mig_table_key(&g->m->table->def, op->item, pa);
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
            ddb_item *key = ddbi_ent_mig_table_key(&g->m->table->def, op->item, pa);
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
int ddbi_ent_mig_flush(mig *g, ddb_arena *pa, ddb_error *err)
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
