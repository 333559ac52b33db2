/* Entity room: backfill of index keys, run only when asked (open with
 * ddb_ent_open_opts.backfill, or a migration).  When an entity has a key
 * it did not have when its items were written (a new index, or an index
 * it joined), the key's attributes are written into every stored item of
 * the entity with UpdateItem, and the backend adds the index entries as
 * for any write; progress is reported after each page.  Also: does an
 * entity have stored items at all (a scan stopped at the first one).
 * Calls the public Scan and UpdateItem and this room's templates,
 * marshalling, keys and expression builder. */
#include "entity/migrate/entity_migrate.h"

#include "core/error.h"

#include <stdio.h>
#include <string.h>

int ddbi_ent_type_filter(ddbi_exprb *fx, const ddb_entity_desc *e, ddb_arena *a, const ddb_expr **filter,
                         ddb_error *err)
{
    return ddbi_ent_type_filter_named(fx, e->table, e->name, a, filter, err);
}

int ddbi_ent_type_filter_named(ddbi_exprb *fx, const ddb_schema_table *t, const char *name, ddb_arena *a,
                               const ddb_expr **filter, ddb_error *err)
{
    const char *n = ddbi_exprb_name(fx, t->type_attr), *v = ddbi_exprb_value(fx, ddb_v_str(a, name));
    if (!n || !v || ddbi_exprb_put(fx, n) || ddbi_exprb_put(fx, " = ") || ddbi_exprb_put(fx, v))
        return ddbi_fail_oom(err, __func__);
    return ddbi_exprb_prepare(fx, DDB_EXPR_FILTER, filter, err);
}

int ddbi_ent_has_items(ddb *db, const ddb_entity_desc *e, bool *any, ddb_error *err)
{
    *any = false;
    ddb_arena *a = ddb_arena_new(), *pa = ddb_arena_new();
    ddbi_exprb fx = {0};
    const ddb_expr *filter = NULL;
    int rc = !a || !pa ? ddbi_fail_oom(err, __func__) : DDB_OK;
    if (!rc)
        rc = ddbi_exprb_init(&fx, db, a, err);
    if (!rc)
        rc = ddbi_ent_type_filter(&fx, e, a, &filter, err);
    ddb_scan_params sp = {.table = e->table->def.name, .consistent = true, .filter = filter,
                          .values = ddbi_exprb_values(&fx)};
    ddb_page pg = {0};
    while (!rc && !*any) {
        ddb_arena_reset(pa);
        if ((rc = ddb_scan(db, &sp, pa, &pg, err)))
            break;
        *any = pg.count > 0;
        if (!pg.last_key)
            break;
        if (!(sp.start_key = ddb_item_copy(a, pg.last_key)))
            rc = ddbi_fail_oom(err, __func__);
    }
    ddbi_exprb_done(&fx);
    ddb_arena_free(pa);
    ddb_arena_free(a);
    return rc;
}

int ddbi_ent_backfill_key(ddb *db, const ddb_entity_desc *e, uint16_t k, ddb_ent_progress_fn progress, void *ctx,
                          ddb_ent_progress *pr, ddb_error *err)
{
    char step[300];
    snprintf(step, sizeof step, "backfill %s", e->keys[k].index ? e->keys[k].index : "table");
    pr->entity = e->name;
    pr->step = step;
    pr->scanned = 0;
    const ddb_key_desc *kd = &e->keys[k];
    ddb_arena *a = ddb_arena_new(), *pa = ddb_arena_new();
    ddbi_exprb fx = {0}, ux = {0};
    const ddb_expr *filter = NULL;
    int rc = !a || !pa ? ddbi_fail_oom(err, __func__) : DDB_OK;
    if (!rc)
        rc = ddbi_exprb_init(&fx, db, a, err);
    if (!rc)
        rc = ddbi_exprb_init(&ux, db, a, err);
    if (!rc) /* only the entity's own items */
        rc = ddbi_ent_type_filter(&fx, e, a, &filter, err);
    const char *sid = e->n_shards ? e->shards[kd->shard >= 0 ? kd->shard : 0] : NULL;
    const char *sfx = ddbi_ent_shard_suffix(e);
    ddb_scan_params sp = {.table = e->table->def.name, .consistent = true, .filter = filter,
                          .values = ddbi_exprb_values(&fx)};
    ddb_page pg = {0};
    while (!rc) {
        ddb_arena_reset(pa);
        if ((rc = ddb_scan(db, &sp, pa, &pg, err)))
            break;
        for (size_t i = 0; i < pg.count && !rc; i++) {
            ddb_item *it = pg.items[i], *full = it;
            const ddb_value *sk = e->keys[0].sk_attr ? ddb_item_get(it, e->keys[0].sk_attr) : NULL;
            if (sid) { /* the key lives on one shard item: rebuild the entity from all of them */
                size_t l = strlen(sfx) + strlen(sid);
                if (!sk || sk->len < l || memcmp(sk->u.s + sk->len - l, sfx, strlen(sfx)) ||
                    strcmp(sk->u.s + sk->len - strlen(sid), sid))
                    continue;
                if ((rc = ddbi_ent_reassemble(db, e, it, pa, NULL, NULL, &full, err)))
                    break;
            }
            void *obj = ddb_arena_alloc(pa, e->st->size);
            const ddb_field_desc **filled = ddb_arena_alloc(pa, (e->st->n_fields + 1u) * sizeof *filled);
            size_t n_filled = 0;
            ddb_value *pk, *skv = NULL;
            if (!obj || !filled)
                rc = ddbi_fail_oom(err, __func__);
            else if ((rc = ddbi_ent_fill_defaults(e, full, pa, &full, filled, &n_filled, err)))
                break; /* fields added with a DDB_DEFAULT: read with it, and written below */
            else if ((rc = ddb_ent_from_item(e, full, pa, obj, err)))
                rc = ddbi_ent_fail_within(err, DDB_EMODEL, "cannot add the %s key to a stored %s",
                                          kd->index ? kd->index : "table", e->name);
            if (!rc)
                rc = ddb_ent_render(e, &kd->pk, obj, pa, &pk, err);
            if (!rc && kd->sk_attr)
                rc = ddb_ent_render(e, &kd->sk, obj, pa, &skv, err);
            if (rc || !pk || (kd->sk_attr && !skv))
                continue; /* sparse: not in this index */
            /* SET the key attributes on the stored (shard) item, if it is still there */
            ux.text.len = 0;
            ux.n = 0;
            ux.names = ddb_item_new(pa);
            ux.values = ddb_item_new(pa);
            const char *np = ddbi_exprb_name(&ux, kd->pk_attr), *vp = ddbi_exprb_value(&ux, pk);
            const char *ns = kd->sk_attr ? ddbi_exprb_name(&ux, kd->sk_attr) : NULL;
            const char *vs = skv ? ddbi_exprb_value(&ux, skv) : NULL;
            if (!np || !vp || ddbi_exprb_put(&ux, "SET ") || ddbi_exprb_put(&ux, np) || ddbi_exprb_put(&ux, " = ") ||
                ddbi_exprb_put(&ux, vp) ||
                (ns && (!vs || ddbi_exprb_put(&ux, ", ") || ddbi_exprb_put(&ux, ns) || ddbi_exprb_put(&ux, " = ") ||
                        ddbi_exprb_put(&ux, vs)))) {
                rc = ddbi_fail_oom(err, __func__);
                break;
            }
            /* the defaults filled, on an unsharded item (a sharded one's live on their own shard items) */
            for (size_t f = 0; !rc && !e->n_shards && f < n_filled; f++) {
                const char *nf = ddbi_exprb_name(&ux, filled[f]->attr);
                const char *vf = nf ? ddbi_exprb_value(&ux, (ddb_value *)ddb_item_get(full, filled[f]->attr)) : NULL;
                if (!vf || ddbi_exprb_put(&ux, ", ") || ddbi_exprb_put(&ux, nf) || ddbi_exprb_put(&ux, " = ") ||
                    ddbi_exprb_put(&ux, vf))
                    rc = ddbi_fail_oom(err, __func__);
            }
            if (rc)
                break;
            const ddb_expr *upd;
            if ((rc = ddbi_exprb_prepare(&ux, DDB_EXPR_UPDATE, &upd, err)))
                break;
            ddb_item *key = ddb_item_new(pa);
            const ddb_value *tpk = ddb_item_get(it, e->table->def.key.pk);
            if (!key || !tpk || ddb_item_set(key, e->table->def.key.pk, (ddb_value *)tpk) ||
                (sk && ddb_item_set(key, e->table->def.key.sk, (ddb_value *)sk))) {
                rc = ddbi_fail_oom(err, __func__);
                break;
            }
            ddb_write_opts wo = {.values = ddbi_exprb_values(&ux), .return_capacity = DDB_CAPACITY_TOTAL};
            ddb_write_result res = {0};
            rc = ddb_update_item(db, e->table->def.name, key, upd, &wo, pa, &res, err);
            if (!rc) {
                pr->done++;
                pr->capacity += res.capacity.total;
            }
        }
        pr->scanned += pg.scanned_count;
        if (!rc && progress)
            progress(ctx, pr);
        if (pg.last_key && !rc) {
            /* the next page starts after this key: keep it in the long-lived arena */
            sp.start_key = ddb_item_copy(a, pg.last_key);
            if (!sp.start_key)
                rc = ddbi_fail_oom(err, __func__);
        }
        if (!pg.last_key)
            break;
    }
    ddbi_exprb_done(&ux);
    ddbi_exprb_done(&fx);
    ddb_arena_free(pa);
    ddb_arena_free(a);
    return rc;
}
