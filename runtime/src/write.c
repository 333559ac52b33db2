/* PutItem and DeleteItem: the item, every index entry and the partition
 * statistics change in one transaction. */
#include "codec.h"
#include "engine.h"
#include "error.h"
#include "keys.h"
#include "value.h"

#include <string.h>

typedef struct write_ctx {
    const char *table;
    const ddb_item *item; /* put: the item; delete: the key */
    bool is_delete;
    ddb_write_opts opts;
    ddb_arena *out_arena;
    ddb_write_result *res;
    ddb_error *err;
} write_ctx;

/* The stored record of key k, decoded into a, checked against pk/sk. */
static int load_old(MDB_txn *txn, const ddb_table_rt *t, const ddb_key *k, const ddb_value *pk, const ddb_value *sk,
                    ddb_arena *a, ddb_item **old, MDB_val *raw, ddb_error *err)
{
    MDB_val kv = {k->len, (void *)k->b};
    *old = NULL;
    int rc = mdb_get(txn, t->items, &kv, raw);
    if (rc == MDB_NOTFOUND)
        return DDB_OK;
    if (rc)
        return ddb_mdb_fail(err, rc, "reading item");
    if ((rc = ddb_decode_item(raw->mv_data, raw->mv_size, a, old)))
        return ddb_fail(err, rc, "stored item in table %s is unreadable", t->name);
    const ddb_value *opk = ddb_item_get(*old, t->pk), *osk = t->sk ? ddb_item_get(*old, t->sk) : NULL;
    if (!opk || !ddb_value_equal(opk, pk) || (sk && (!osk || !ddb_value_equal(osk, sk))))
        return ddb_fail(err, DDB_ECOLLISION,
                        "table %s: the key of this item has the same 128-bit digest as a stored item's key", t->name);
    return DDB_OK;
}

static int index_entry(const ddb_index_rt *x, const ddb_item *it, ddb_key *k, ddb_error *err)
{
    const ddb_value *pk, *sk;
    int in = ddb_keys_index(x, it, &pk, &sk, err);
    if (in > 0)
        ddb_key_make(k, pk, sk);
    return in;
}

/* Bring index x in line: old -> new (either may be NULL). */
static int update_index(ddb *db, MDB_txn *txn, ddb_table_rt *t, const ddb_index_rt *x, const ddb_key *tk,
                        const ddb_item *old, const ddb_item *nw, ddb_capacity *cap, ddb_return_capacity mode,
                        ddb_error *err)
{
    (void)db;
    ddb_key ok, nk;
    int in_old = old ? index_entry(x, old, &ok, NULL) : 0;
    int in_new = nw ? index_entry(x, nw, &nk, err) : 0;
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
        rc = mdb_del(txn, x->dbi, &kv, &data);
        if (rc == MDB_NOTFOUND)
            rc = 0;
        units += ddb_write_units(ddb_keys_projected_size(t, x, old));
    }
    if (!rc && in_new && !same) {
        MDB_val kv = {nk.len, nk.b};
        rc = mdb_put(txn, x->dbi, &kv, &data, MDB_NODUPDATA);
        if (rc == MDB_KEYEXIST)
            rc = 0;
        units += ddb_write_units(ddb_keys_projected_size(t, x, nw));
    }
    if (same) {
        /* the entry stays; a write is charged when projected attributes change */
        size_t os = ddb_keys_projected_size(t, x, old), ns = ddb_keys_projected_size(t, x, nw);
        if (x->proj == DDB_PROJECT_ALL ? !ddb_value_equal(ddb_item_map(old), ddb_item_map(nw)) : os != ns)
            units += ddb_write_units(ns > os ? ns : os);
    }
    if (rc)
        return ddb_mdb_fail(err, rc, "updating index");
    if (units > 0)
        ddb_cap_add(cap, x->name, 0, units, mode);
    return DDB_OK;
}

static int write_fn(ddb *db, MDB_txn *txn, void *vctx)
{
    write_ctx *cx = vctx;
    ddb_error *err = cx->err;
    ddb_table_rt *t;
    int rc = ddb_table_get(db, txn, cx->table, &t, err);
    if (rc)
        return rc;
    const ddb_value *pk, *sk;
    rc = cx->is_delete ? ddb_keys_exact(t, cx->item, &pk, &sk, err) : ddb_keys_table(t, cx->item, &pk, &sk, err);
    if (rc)
        return rc;
    size_t new_size = 0;
    if (!cx->is_delete) {
        new_size = ddb_item_size(cx->item);
        if (new_size > DDB_ITEM_MAX)
            return ddb_fail(err, DDB_ELIMIT, "Item size of %zu bytes has exceeded the maximum allowed size of %u bytes",
                            new_size, DDB_ITEM_MAX);
        const ddb_value *m = ddb_item_map(cx->item);
        for (uint32_t i = 0; i < m->len; i++) {
            if (m->u.m[i].name_len == 0 || m->u.m[i].name_len > 65535)
                return ddb_fail(err, DDB_EVALIDATION, "attribute name length %u is outside 1..65535",
                                m->u.m[i].name_len);
            if ((rc = ddb_value_check(m->u.m[i].value, m->u.m[i].name, 1, err)))
                return rc;
        }
        for (size_t i = 0; i < t->n_idx; i++) {
            const ddb_value *ipk, *isk;
            if ((rc = ddb_keys_index(&t->idx[i], cx->item, &ipk, &isk, err)) < 0)
                return rc;
        }
    }
    ddb_key k;
    ddb_key_make(&k, pk, sk);
    ddb_arena *tmp = ddb_arena_new();
    if (!tmp)
        return ddb_fail(err, DDB_ENOMEM, "out of memory");
    ddb_item *old;
    MDB_val raw;
    rc = load_old(txn, t, &k, pk, sk, tmp, &old, &raw, err);
    if (rc)
        goto out;
    size_t old_size = old ? ddb_item_size(old) : 0;
    ddb_capacity scratch, *cap = cx->res ? &cx->res->capacity : &scratch;
    ddb_return_capacity mode = cx->res ? cx->opts.return_capacity : DDB_CAPACITY_NONE;
    double wcu = ddb_write_units(old_size > new_size ? old_size : new_size);
    uint64_t hash = ddb_key_hash(k.b);
    if ((rc = ddb_part_charge(db, t, ddb_part_of(t, hash), 0, wcu, err)))
        goto out;
    ddb_cap_add(cap, NULL, 0, wcu, mode);

    if (cx->res && cx->opts.return_values == DDB_RETURN_ALL_OLD && old) {
        if ((rc = ddb_decode_item(raw.mv_data, raw.mv_size, cx->out_arena, &cx->res->attributes))) {
            rc = ddb_fail(err, rc, "out of memory");
            goto out;
        }
    }
    MDB_val kv = {k.len, k.b};
    if (cx->is_delete) {
        if (!old)
            goto out;
        if ((rc = mdb_del(txn, t->items, &kv, NULL))) {
            rc = ddb_mdb_fail(err, rc, "DeleteItem");
            goto out;
        }
    } else {
        ddb_buf b = {0};
        if ((rc = ddb_encode_item(&b, ddb_item_map(cx->item), new_size))) {
            ddb_buf_free(&b);
            rc = ddb_fail(err, rc, "out of memory");
            goto out;
        }
        MDB_val dv = {b.len, b.p};
        rc = mdb_put(txn, t->items, &kv, &dv, 0);
        ddb_buf_free(&b);
        if (rc) {
            rc = ddb_mdb_fail(err, rc, "PutItem");
            goto out;
        }
    }
    for (size_t i = 0; i < t->n_idx && !rc; i++)
        rc = update_index(db, txn, t, &t->idx[i], &k, old, cx->is_delete ? NULL : cx->item, cap, mode, err);
    if (!rc)
        rc = ddb_part_adjust(db, txn, t, hash, (old ? -1 : 0) + (cx->is_delete ? 0 : 1),
                             (int64_t)new_size - (int64_t)old_size, err);
    if (!rc && !cx->is_delete && new_size > old_size)
        rc = ddb_part_maybe_split(db, txn, t, hash, err);
out:
    ddb_arena_free(tmp);
    return rc;
}

static int run(ddb *db, const char *table, const ddb_item *item, bool is_delete, const ddb_write_opts *opts,
               ddb_arena *a, ddb_write_result *res, ddb_error *err)
{
    if (!db || !table || !item)
        return ddb_fail(err, DDB_EINVAL, "%s: db, table and item are required", is_delete ? "DeleteItem" : "PutItem");
    ddb_write_opts o = opts ? *opts : (ddb_write_opts){0};
    if (o.return_values != DDB_RETURN_NONE && o.return_values != DDB_RETURN_ALL_OLD)
        return ddb_fail(err, DDB_EVALIDATION, "ReturnValues can only be NONE or ALL_OLD on %s",
                        is_delete ? "DeleteItem" : "PutItem");
    if (o.return_values == DDB_RETURN_ALL_OLD && (!a || !res))
        return ddb_fail(err, DDB_EINVAL, "ReturnValues ALL_OLD needs an arena and a result");
    if (res)
        memset(res, 0, sizeof *res);
    write_ctx cx = {table, item, is_delete, o, a, res, err};
    return ddb_run_write(db, write_fn, &cx, false, err);
}

int ddb_put_item(ddb *db, const char *table, const ddb_item *item, const ddb_write_opts *opts, ddb_arena *a,
                 ddb_write_result *res, ddb_error *err)
{
    return run(db, table, item, false, opts, a, res, err);
}

int ddb_delete_item(ddb *db, const char *table, const ddb_item *key, const ddb_write_opts *opts, ddb_arena *a,
                    ddb_write_result *res, ddb_error *err)
{
    return run(db, table, key, true, opts, a, res, err);
}
