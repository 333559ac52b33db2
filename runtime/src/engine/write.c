/* engine/: PutItem, UpdateItem and DeleteItem: the item, every index entry and the
 * partition statistics change in one transaction.  The two steps of one
 * item write (prepare: read and check; apply: write) are shared with
 * batches and transactions (write.h).
 * May call core/ and expr/; the room above (streams/) only through its hooks. */
#include "core/codec.h"
#include "engine/engine.h"
#include "core/error.h"
#include "engine/keys.h"
#include "engine/stored.h"
#include "core/value.h"
#include "engine/write.h"

#include <string.h>

/* The stored record of key k, decoded into a, checked against pk/sk. */
static int load_old(ddbi_engine *db, MDB_txn *txn, const ddb_table_rt *t, const ddb_key *k, const ddb_value *pk, const ddb_value *sk,
                    ddb_arena *a, ddb_item **old, MDB_val *raw, ddb_error *err)
{
    MDB_val kv = {k->len, (void *)k->b};
    *old = NULL;
    int rc = mdb_get(txn, t->items, &kv, raw);
    if (rc == MDB_NOTFOUND)
        return DDB_OK;
    if (rc)
        return ddbi_mdb_fail(err, rc, "reading item");
    if ((rc = ddbi_stored_val_check(db, t->name, "the stored item", &kv, raw, err)))
        return rc;
    if ((rc = ddbi_decode_item(raw->mv_data, raw->mv_size, a, old)))
        return rc == DDB_ENOMEM ? ddbi_fail_oom(err, "reading the stored item")
                                : ddbi_fail_stored(err, t->name, k->b, k->len, "the stored item is unreadable");
    const ddb_value *opk = ddb_item_get(*old, t->pk), *osk = t->sk ? ddb_item_get(*old, t->sk) : NULL;
    if (!opk || !ddb_value_equal(opk, pk) || (sk && (!osk || !ddb_value_equal(osk, sk))))
        return ddbi_fail(err, DDB_ECOLLISION,
                        "table %s: the key of this item has the same 128-bit digest as a stored item's key", t->name);
    return DDB_OK;
}

/* Did a write change what index x projects of an item whose entry stays
 * (same index key, so the key attributes are unchanged)? */
static bool projection_changed(const ddb_index_rt *x, const ddb_item *old, const ddb_item *nw)
{
    if (x->proj == DDB_PROJ_ALL)
        return !ddb_value_equal(ddb_item_map(old), ddb_item_map(nw));
    for (size_t i = 0; i < x->n_include; i++) {
        const ddb_value *a = ddb_item_get(old, x->include[i]), *b = ddb_item_get(nw, x->include[i]);
        if (!a != !b || (a && !ddb_value_equal(a, b)))
            return true;
    }
    return false;
}

/* Bring index x in line: old -> new (either may be NULL). */
/* The size of item (whose whole size is whole) in index x: an ALL
 * projection holds all of it, known already (numbers are not parsed again). */
static size_t in_index_size(const ddb_table_rt *t, const ddb_index_rt *x, const ddb_item *item, size_t whole)
{
    return x->proj == DDB_PROJ_ALL ? whole : ddbi_keys_projected_size(t, x, item);
}

static int update_index(ddbi_engine *db, MDB_txn *txn, ddb_table_rt *t, const ddb_index_rt *x, const ddb_key *tk,
                        const ddb_item *old, const ddb_item *nw, size_t old_size, size_t new_size, ddb_capacity *cap,
                        ddb_return_capacity mode, ddb_error *err)
{
    (void)db;
    ddb_key ok, nk;
    int in_old = old ? ddbi_keys_index_key(x, old, &ok, NULL) : 0;
    int in_new = nw ? ddbi_keys_index_key(x, nw, &nk, err) : 0;
    if (in_new < 0)
        return in_new;
    if (in_old < 0)
        in_old = 0; /* stored items were validated when written */
    MDB_val data = {tk->len, (void *)tk->b};
    int rc = 0;
    double units = 0;
    bool same = in_old && in_new && ok.len == nk.len && memcmp(ok.b, nk.b, ok.len) == 0;
    if (in_old && !same) {
        MDB_val kv = {ok.len, ok.b};
        rc = ddbi_kv_del(db, txn, x->dbi, &kv, &data);
        if (rc == MDB_NOTFOUND)
            rc = 0;
        units += ddbi_write_units(in_index_size(t, x, old, old_size));
    }
    if (!rc && in_new && !same) {
        MDB_val kv = {nk.len, nk.b};
        rc = ddbi_kv_put(db, txn, x->dbi, &kv, &data, MDB_NODUPDATA);
        if (rc == MDB_KEYEXIST)
            rc = 0;
        units += ddbi_write_units(in_index_size(t, x, nw, new_size));
    }
    if (same) {
        /* the entry stays; a write is charged when projected attributes
         * change (their values, not only their sizes) */
        size_t os = in_index_size(t, x, old, old_size), ns = in_index_size(t, x, nw, new_size);
        if (projection_changed(x, old, nw))
            units += ddbi_write_units(ns > os ? ns : os);
    }
    if (rc)
        return ddbi_mdb_fail(err, rc, "updating index");
    if (units > 0)
        ddbi_cap_add(cap, x->name, x->local, 0, units, mode);
    return DDB_OK;
}

/* Everything a write must refuse about a new item, before touching storage.
 * The words are DynamoDB's: "Item size has exceeded the maximum allowed
 * size" (PutItem), "Item size to update has exceeded the maximum allowed
 * size" (UpdateItem: API_UpdateItem.html lists it); the attribute-name
 * limits as DynamoDB Local words them ("Empty attribute name", "Attribute
 * name is too large, must be less than 65536 bytes"; ScyllaDB's
 * test/alternator/test_limits.py test_limit_attribute_length_nonkey_bad
 * shows DynamoDB naming 65536). */
static int check_new_item(const ddb_table_rt *t, const ddb_item *it, bool update, ddb_buf *b, ddbi_record *rec,
                          ddb_error *err)
{
    const ddb_value *m = ddb_item_map(it);
    ddbi_hint_names hint;
    ddbi_keys_hint_names(t, &hint);
    int rc = ddbi_encode_record(b, m, &hint, rec); /* size, record and value checks in one walk */
    if (rc)
        return ddbi_fail_oom(err, __func__);
    if (rec->size > DDB_ITEM_MAX)
        return ddbi_fail(err, DDB_ELIMIT,
                        "Item size %shas exceeded the maximum allowed size (item of %zu bytes, limit %u bytes)",
                        update ? "to update " : "", rec->size, DDB_ITEM_MAX);
    for (uint32_t i = 0; i < m->len; i++) {
        uint32_t n = m->u.m[i].name_len;
        if (n == 0)
            return ddbi_fail(err, DDB_EVALIDATION, "Empty attribute name (attribute %u of the item)", i + 1);
        if (n > DDB_ATTR_NAME_MAX)
            return ddbi_fail(err, DDB_EVALIDATION,
                            "Attribute name is too large, must be less than 65536 bytes (attribute \"%.40s...\" has "
                            "%u bytes)",
                            m->u.m[i].name, n);
        /* the first value to refuse: its message, as ddbi_value_check words it */
        if (i == rec->bad_attr && (rc = ddbi_value_check(m->u.m[i].value, m->u.m[i].name, 1, err)))
            return rc;
    }
    for (size_t i = 0; i < t->n_idx; i++) {
        const ddb_value *ipk, *isk;
        if ((rc = ddbi_keys_index(&t->idx[i], it, &ipk, &isk, err)) < 0)
            return rc;
    }
    return DDB_OK;
}

/* The key attributes an update may not touch: the table's (at all) and
 * the indexes' (through a nested path). */
static int check_update_keys(const ddb_table_rt *t, const ddb_expr *update, ddb_error *err)
{
    const char *keys[2], *ixk[DDBI_INDEX_KEYS_MAX];
    size_t nix, nk = ddbi_keys_names(t, keys, ixk, &nix);
    return ddbi_expr_update_check_keys(update, keys, nk, ixk, nix, err);
}

int ddbi_write_check(const ddb_table_rt *t, const ddb_wreq *r, ddb_error *err)
{
    ddbi_record rec;
    int rc;
    if (r->condition && (rc = ddbi_keys_check_paths(t, &r->condition, 1, err)))
        return rc;
    if (r->kind == DDB_TX_PUT)
        return check_new_item(t, r->item, false, NULL, &rec, err);
    if (r->kind == DDB_TX_UPDATE)
        return check_update_keys(t, r->update, err);
    return DDB_OK;
}

int ddbi_write_prepare(ddbi_engine *db, MDB_txn *txn, const ddb_wreq *r, ddb_wstate *st, ddb_arena *tmp, ddb_error *err)
{
    memset(st, 0, sizeof *st);
    int rc = ddbi_table_get(db, txn, r->table, &st->t, err);
    if (rc)
        return rc;
    ddb_table_rt *t = st->t;
    if (r->condition && (rc = ddbi_keys_check_paths(t, &r->condition, 1, err)))
        return rc;
    const ddb_value *pk, *sk;
    rc = r->kind == DDB_TX_PUT ? ddbi_keys_table(t, r->item, &pk, &sk, err) : ddbi_keys_exact(t, r->item, &pk, &sk, err);
    if (rc)
        return rc;
    ddbi_record rec;
    if (r->kind == DDB_TX_PUT && (rc = check_new_item(t, r->item, false, &db->wbuf, &rec, err)))
        return rc;
    ddbi_key_make(&st->key, pk, sk);
    MDB_val raw;
    if ((rc = load_old(db, txn, t, &st->key, pk, sk, tmp, &st->old, &raw, err)))
        return rc;
    /* the stored record carries its size: no need to measure the item again */
    if (st->old && ddbi_record_size(raw.mv_data, raw.mv_size, &st->old_size))
        st->old_size = ddb_item_size(st->old);
    /* The new item of an update is computed and validated (index key
     * types, size) before the condition, as DynamoDB validates it first;
     * an error of the update itself (an operand's type, a missing path)
     * is only reported when the condition holds. */
    int upd_rc = DDB_OK;
    if (r->kind == DDB_TX_PUT) {
        st->new_item = r->item;
        st->new_size = rec.size, st->rec_off = rec.off, st->rec_len = rec.len;
    } else if (r->kind == DDB_TX_UPDATE) {
        if ((rc = check_update_keys(t, r->update, err)))
            return rc;
        /* an absent item is created from its key, as UpdateItem does,
         * unless the update only removes: then nothing is written */
        ddb_item *nw = NULL;
        if (st->old || ddbi_expr_update_creates(r->update))
            upd_rc = ddbi_expr_apply_update(r->update, st->old ? st->old : r->item, r->values, tmp, &nw, err);
        if (nw && ((rc = ddbi_keys_table(t, nw, &pk, &sk, err)) || (rc = check_new_item(t, nw, true, &db->wbuf, &rec, err))))
            return rc;
        if (nw)
            st->new_size = rec.size, st->rec_off = rec.off, st->rec_len = rec.len;
        st->new_item = nw;
    }
    if (r->condition) {
        bool ok = false;
        ddb_error cerr = {0};
        if ((rc = ddbi_expr_eval_condition(r->condition, st->old, r->values, &ok, &cerr)))
            return ddbi_fail(err, rc, "%s", cerr.message);
        if (!ok)
            return ddbi_fail(err, DDB_ECONDITION, "The conditional request failed");
    }
    return upd_rc;
}

int ddbi_write_apply(ddbi_engine *db, MDB_txn *txn, const ddb_wreq *r, ddb_wstate *st, double factor, bool split,
                    ddb_capacity *cap, ddb_return_capacity mode, ddb_error *err)
{
    ddb_table_rt *t = st->t;
    if (r->kind == DDB_TX_CHECK) {
        /* a ConditionCheck is charged as a write of the checked item (1 WCU
         * per KB, at least 1), to its partition too */
        double u = factor * ddbi_write_units(st->old_size);
        int rc = ddbi_part_charge(db, t, ddbi_part_of(t, ddbi_key_hash(st->key.b)), 0, u, err);
        if (!rc)
            ddbi_cap_add(cap, NULL, false, 0, u, mode);
        return rc;
    }
    bool del = r->kind == DDB_TX_DELETE;
    /* an update of an absent item that only removes writes nothing (it
     * still consumes a write, as a delete of an absent item does) */
    bool noop = r->kind == DDB_TX_UPDATE && !st->new_item;
    size_t big = st->old_size > st->new_size ? st->old_size : st->new_size;
    double wcu = factor * ddbi_write_units(big);
    uint64_t hash = ddbi_key_hash(st->key.b);
    int rc = ddbi_part_charge(db, t, ddbi_part_of(t, hash), 0, wcu, err);
    if (rc)
        return rc;
    ddbi_cap_add(cap, NULL, false, 0, wcu, mode);
    MDB_val kv = {st->key.len, st->key.b};
    if (noop)
        return DDB_OK;
    if (del) {
        if (!st->old)
            return DDB_OK;
        if ((rc = ddbi_kv_del(db, txn, t->items, &kv, NULL)))
            return ddbi_mdb_fail(err, rc, "DeleteItem");
    } else {
        MDB_val dv = {st->rec_len, db->wbuf.p + st->rec_off}; /* encoded by prepare */
        rc = ddbi_kv_put(db, txn, t->items, &kv, &dv, 0);
        if (rc)
            return ddbi_mdb_fail(err, rc, "PutItem");
    }
    ddb_capacity ic; /* per index, then scaled into cap */
    memset(&ic, 0, sizeof ic);
    for (size_t i = 0; i < t->n_idx && !rc; i++)
        rc = update_index(db, txn, t, &t->idx[i], &st->key, st->old, del ? NULL : st->new_item, st->old_size,
                          st->new_size, &ic,
                          DDB_CAPACITY_INDEXES, err);
    if (rc)
        return rc;
    for (size_t i = 0; i < ic.n_indexes; i++)
        ddbi_cap_add(cap, ic.indexes[i].name, ic.indexes[i].local, 0, factor * ic.indexes[i].write, mode);
    rc = ddbi_part_adjust(db, txn, t, hash, (st->old ? -1 : 0) + (del ? 0 : 1),
                         (int64_t)(del ? 0 : st->new_size) - (int64_t)st->old_size, err);
    if (!rc && split && !del && st->new_size > st->old_size)
        rc = ddbi_part_maybe_split(db, txn, t, hash, err);
    if (!rc && db->hooks && db->hooks->write_applied) /* the change stream's record, in this transaction */
        rc = db->hooks->write_applied(db, txn, r, st, err);
    return rc;
}

/* ReturnValues of a single-item write. */
static int return_values(const ddb_wreq *r, const ddb_wstate *st, ddb_return_values rv, ddb_arena *a,
                         ddb_item **out, ddb_error *err)
{
    *out = NULL;
    const ddb_item *src = rv == DDB_RETURN_ALL_OLD || rv == DDB_RETURN_UPDATED_OLD ? st->old : st->new_item;
    if (rv == DDB_RETURN_NONE || !src)
        return DDB_OK;
    if (rv == DDB_RETURN_UPDATED_OLD || rv == DDB_RETURN_UPDATED_NEW)
        return ddbi_expr_updated_attributes(r->update, src, a, out, err);
    *out = ddb_item_copy(a, src);
    return *out ? DDB_OK : ddbi_fail_oom(err, __func__);
}

typedef struct single_ctx {
    ddb_wreq req;
    ddb_write_opts opts;
    ddb_arena *out_arena;
    ddb_write_result *res;
    ddb_error *err;
} single_ctx;

static ddb_arena *scratch(ddbi_engine *db)
{
    /* the handle's write scratch: writers hold LMDB's write lock, one at a time */
    if (!db->wscratch)
        db->wscratch = ddb_arena_new();
    return db->wscratch;
}

static int single_fn(ddbi_engine *db, MDB_txn *txn, void *vctx)
{
    single_ctx *cx = vctx;
    ddb_arena *tmp = scratch(db);
    if (!tmp)
        return ddbi_fail_oom(cx->err, __func__);
    ddb_wstate st;
    ddb_capacity scratch_cap, *cap = cx->res ? &cx->res->capacity : &scratch_cap;
    ddb_return_capacity mode = cx->res ? cx->opts.return_capacity : DDB_CAPACITY_NONE;
    int rc = ddbi_write_prepare(db, txn, &cx->req, &st, tmp, cx->err);
    if (rc == DDB_ECONDITION && st.t) {
        /* a failed condition still consumes a write (the stored item's size,
         * at least 1 WCU) from the table, as in DynamoDB; the result stays
         * DDB_ECONDITION even where throttle mode would refuse the units */
        double u = ddbi_write_units(st.old_size);
        ddbi_part_charge(db, st.t, ddbi_part_of(st.t, ddbi_key_hash(st.key.b)), 0, u, NULL);
        ddbi_cap_add(cap, NULL, false, 0, u, mode);
        /* ReturnValuesOnConditionCheckFailure ALL_OLD: the stored item */
        if (cx->res && cx->out_arena && cx->opts.return_on_condition_failure == DDB_RETURN_ALL_OLD && st.old &&
            !(cx->res->attributes = ddb_item_copy(cx->out_arena, st.old)))
            rc = ddbi_fail_oom(cx->err, __func__);
    }
    if (!rc)
        rc = ddbi_write_apply(db, txn, &cx->req, &st, 1.0, true, cap, mode, cx->err);
    if (!rc && cx->res)
        rc = return_values(&cx->req, &st, cx->opts.return_values, cx->out_arena, &cx->res->attributes, cx->err);
    ddb_arena_reset(tmp);
    return rc;
}

static int check_exprs(const ddb_expr *cond, const ddb_expr *update, const ddb_item *values, ddb_error *err)
{
    const ddb_expr *ex[2] = {cond, update};
    if (cond && ddb_expr_get_kind(cond) != DDB_EXPR_CONDITION)
        return ddbi_fail(err, DDB_EINVAL, "the condition is a %s, not a ConditionExpression",
                        ddb_expr_kind_name(ddb_expr_get_kind(cond)));
    if (update && ddb_expr_get_kind(update) != DDB_EXPR_UPDATE)
        return ddbi_fail(err, DDB_EINVAL, "the update is a %s, not an UpdateExpression",
                        ddb_expr_kind_name(ddb_expr_get_kind(update)));
    if (!cond && !update && !values)
        return DDB_OK;
    return ddbi_expr_check_request(ex, 2, NULL, values, err);
}

static int run(ddbi_engine *db, const char *table, const ddb_item *item, ddb_tx_kind kind, const ddb_expr *update,
               const ddb_write_opts *opts, ddb_arena *a, ddb_write_result *res, ddb_error *err)
{
    ddb_write_opts o = opts ? *opts : (ddb_write_opts){0};
    int rc = check_exprs(o.condition, update, o.values, err);
    if (rc)
        return rc;
    if (res)
        memset(res, 0, sizeof *res);
    single_ctx cx = {{kind, table, item, update, o.condition, o.values}, o, a, res, err};
    return ddbi_run_write(db, single_fn, &cx, false, err);
}

int ddbi_engine_put_item(void *impl, const char *table, const ddb_item *item, const ddb_write_opts *opts, ddb_arena *a,
                         ddb_write_result *res, ddb_error *err)
{
    ddbi_engine *db = impl;
    return run(db, table, item, DDB_TX_PUT, NULL, opts, a, res, err);
}

int ddbi_engine_delete_item(void *impl, const char *table, const ddb_item *key, const ddb_write_opts *opts, ddb_arena *a,
                            ddb_write_result *res, ddb_error *err)
{
    ddbi_engine *db = impl;
    return run(db, table, key, DDB_TX_DELETE, NULL, opts, a, res, err);
}

int ddbi_engine_update_item(void *impl, const char *table, const ddb_item *key, const ddb_expr *update,
                            const ddb_write_opts *opts, ddb_arena *a, ddb_write_result *res, ddb_error *err)
{
    ddbi_engine *db = impl;
    return run(db, table, key, DDB_TX_UPDATE, update, opts, a, res, err);
}
