/* Entity room: ConditionCheck operations of a transaction
 * (ddbi_ent_add_check): the item with a key's primary key must exist, must
 * not, or must meet a caller's condition, checked on the shard item that
 * condition reads.  Used by ddb_ent_tx_require / ddb_ent_tx_check
 * (entity_write.c) and by updates whose condition reads a shard item they
 * do not write (entity_update.c).  Calls the public item API and this
 * room's keys, expression builder and transactions. */
#include "entity/tx/entity_tx.h"

#include "core/error.h"

int ddbi_ent_add_check(ddb_ent_tx *tx, const ddb_entity_desc *e, const void *key, int exists,
                       const ddb_ent_tx_cond *c, ddbi_op_role role, ddb_error *err)
{
    ddbi_exprb *x = NULL;
    ddb_item *k = NULL;
    ddb_tx_op op = {.kind = DDB_TX_CHECK, .table = e->table->def.name};
    int shard = c && c->condition && e->n_shards ? c->condition->shard : 0;
    int rc = ddbi_ent_check_shards(e, err);
    if (!rc && (shard < 0 || shard >= ddbi_ent_parts(e)))
        rc = ddbi_fail(err, DDB_EINVAL, "%s: the condition names shard %d of %d", e->name, shard, ddbi_ent_parts(e));
    if (!rc)
        rc = ddbi_ent_tx_exprb(tx, &x, err);
    if (!rc)
        rc = ddbi_ent_primary_key(e, key, e->n_shards ? shard : -1, ddbi_ent_tx_arena(tx), &k, err);
    if (!rc && exists >= 0) {
        const char *n = ddbi_exprb_name(x, e->keys[0].pk_attr);
        if (!n || ddbi_exprb_put(x, exists ? "attribute_exists(" : "attribute_not_exists(") ||
            ddbi_exprb_put(x, n) || ddbi_exprb_put(x, ")"))
            rc = ddbi_fail_oom(err, __func__);
    }
    if (!rc && c && c->condition && !(rc = x->text.len && ddbi_exprb_put(x, " AND ") ? ddbi_fail_oom(err, __func__) : DDB_OK))
        rc = ddbi_exprb_merge(x, c->condition, err);
    if (!rc)
        rc = ddbi_exprb_prepare(x, DDB_EXPR_CONDITION, &op.condition, err);
    if (!rc && !op.condition)
        rc = ddbi_fail(err, DDB_EINVAL, "transaction: a condition check needs a condition");
    if (!rc) {
        op.item = k;
        op.values = ddbi_exprb_values(x);
        ddbi_ent_opinfo in = {.e = e, .role = role, .user_cond = c && c->condition,
                              .current = c ? c->current : NULL, .current_found = c ? c->current_found : NULL,
                              .current_arena = c ? c->current_arena : NULL};
        rc = ddbi_ent_tx_add(tx, &op, &in, err);
    }
    return rc;
}
