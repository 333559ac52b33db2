/* Entity room: one page of entities of one type from a table or index
 * partition (ddb_ent_query_page): the sort-key condition from a prefix of
 * the key template's fields, other types in the partition skipped, shard
 * items merged, partial index projections read whole from the table, the
 * page's end as a cursor.  Calls the public Query and GetItem and this
 * room's templates, marshalling, keys and cursors. */
#include "entity/entity_internal.h"

#include "core/error.h"

#include <string.h>

/* Build the sort-key condition of q on key kd. */
static int sk_condition(const ddb_entity_desc *e, const ddb_key_desc *kd, const ddb_ent_query *q, ddb_arena *a,
                        ddb_query_params *qp, ddb_error *err)
{
    uint16_t holes = kd->sk_attr ? ddbi_ent_holes(&kd->sk) : 0;
    if (q->sk_fields == 0) {
        if (q->op != DDB_SK_ANY)
            return ddbi_fail(err, DDB_EVALIDATION, "a sort-key condition needs at least one sort-key field");
        /* every item of e starts its sort key with the template's leading
         * literal ("USER#" of "USER#{username}"): read only those, not the
         * other types sharing the partition (seed 004's begins_with(SK, "USER#")) */
        if (kd->sk_attr && kd->sk.type == DDB_TS && kd->sk.n && kd->sk.segs[0].lit && kd->sk.segs[0].lit[0]) {
            qp->sk_op = DDB_SK_BEGINS_WITH;
            if (!(qp->sk1 = ddb_v_str(a, kd->sk.segs[0].lit)))
                return ddbi_fail_oom(err, __func__);
        }
        return DDB_OK;
    }
    if (q->sk_fields > holes)
        return ddbi_fail(err, DDB_EVALIDATION, "%s: the sort key has %u fields, %u given", e->name, holes, q->sk_fields);
    if (kd->sk.type == DDB_TN) {
        ddb_value *v, *hi = NULL;
        int rc = ddb_ent_render(e, &kd->sk, q->obj, a, &v, err);
        if (!rc && q->op == DDB_SK_BETWEEN)
            rc = ddb_ent_render(e, &kd->sk, q->obj_hi, a, &hi, err);
        if (rc)
            return rc;
        qp->sk_op = q->op == DDB_SK_ANY ? DDB_SK_EQ : q->op;
        qp->sk1 = v;
        qp->sk2 = hi;
        return DDB_OK;
    }
    bool whole = q->sk_fields == holes;
    ddb_buf b = {0}, h = {0};
    bool absent = false, absent2 = false;
    int rc = ddbi_ent_render_prefix(e, &kd->sk, q->obj, q->sk_fields, q->op == DDB_SK_ANY && !whole, &b, &absent, err);
    if (!rc && q->op == DDB_SK_BETWEEN) {
        if (!q->obj_hi)
            rc = ddbi_fail(err, DDB_EINVAL, "BETWEEN needs obj_hi");
        else
            rc = ddbi_ent_render_prefix(e, &kd->sk, q->obj_hi, q->sk_fields, false, &h, &absent2, err);
    }
    if (!rc && (absent || absent2))
        rc = ddbi_fail(err, DDB_EVALIDATION, "%s: a sort-key field of the query is unset", e->name);
    /* a range on a field that is followed by more key text: bound the rest
     * with U+10FFFF so "<= x" includes every key that continues after x */
    static const char top[] = "\xf4\x8f\xbf\xbf";
    if (!rc && !whole) {
        if (((q->op == DDB_SK_LE || q->op == DDB_SK_GT) && ddbi_buf_put(&b, top, 4)) ||
            (q->op == DDB_SK_BETWEEN && ddbi_buf_put(&h, top, 4)))
            rc = ddbi_fail_oom(err, __func__);
    }
    if (!rc) {
        qp->sk_op = q->op == DDB_SK_ANY ? (whole ? DDB_SK_EQ : DDB_SK_BEGINS_WITH) : q->op;
        qp->sk1 = ddb_v_s(a, b.p ? (const char *)b.p : "", b.len);
        if (q->op == DDB_SK_BETWEEN)
            qp->sk2 = ddb_v_s(a, h.p ? (const char *)h.p : "", h.len);
        if (!qp->sk1 || (q->op == DDB_SK_BETWEEN && !qp->sk2))
            rc = ddbi_fail_oom(err, __func__);
    }
    ddbi_buf_free(&b);
    ddbi_buf_free(&h);
    return rc;
}

/* An index that projects less than the whole item returns partial items: a
 * typed query reads each one whole from the table (and reports the reads). */
static int refetch_projected(ddb *db, const ddb_entity_desc *e, const char *index, ddb_page *pg, ddb_arena *a,
                             const ddb_ent_opts *o, ddb_capacity *cap, ddb_error *err)
{
    const ddb_table_def *t = &e->table->def;
    const ddb_index_def *x = NULL;
    for (size_t i = 0; i < t->n_indexes; i++)
        if (!strcmp(t->indexes[i].name, index))
            x = &t->indexes[i];
    if (!x || x->projection == DDB_PROJ_ALL)
        return DDB_OK;
    size_t kept = 0;
    for (size_t i = 0; i < pg->count; i++) {
        ddb_item *key = ddb_item_new(a), *full;
        const ddb_value *pk = ddb_item_get(pg->items[i], t->key.pk);
        const ddb_value *sk = t->key.sk ? ddb_item_get(pg->items[i], t->key.sk) : NULL;
        if (!key || !pk || ddb_item_set(key, t->key.pk, (ddb_value *)pk) ||
            (sk && ddb_item_set(key, t->key.sk, (ddb_value *)sk)))
            return ddbi_fail_oom(err, __func__);
        ddb_capacity c;
        ddb_get_opts go = {.consistent = o && o->consistent, .return_capacity = ddbi_ent_cap_mode(o)};
        int rc = ddb_get_item(db, t->name, key, &go, a, &full, &c, err);
        ddbi_ent_cap_merge(cap, &c);
        if (rc == DDB_ENOTFOUND)
            continue; /* deleted since the index was read */
        if (rc)
            return rc;
        pg->items[kept++] = full;
    }
    pg->count = kept;
    return DDB_OK;
}

int ddb_ent_query_page(ddb *db, const ddb_entity_desc *e, const ddb_ent_query *q, ddb_arena *a,
                       const ddb_ent_opts *o, ddb_ent_page *out, ddb_error *err)
{
    if (!db || !e || !q || !q->obj || !a || !out)
        return ddbi_fail(err, DDB_EINVAL, "query: db, entity, query, object, arena and out are required");
    memset(out, 0, sizeof *out);
    if (q->key >= e->n_keys)
        return ddbi_fail(err, DDB_EINVAL, "%s has no key %u", e->name, q->key);
    const ddb_key_desc *kd = &e->keys[q->key];
    ddb_value *pk;
    int rc = ddbi_ent_check_shards(e, err);
    if (!rc)
        rc = ddb_ent_render(e, &kd->pk, q->obj, a, &pk, err);
    if (rc)
        return rc;
    if (!pk)
        return ddbi_fail(err, DDB_EVALIDATION, "%s: a partition field of the query is unset", e->name);
    ddb_query_params qp = {.table = e->table->def.name, .index = kd->index, .pk = pk, .backward = q->backward,
                           .limit = q->page_size, .consistent = o && o->consistent,
                           .return_capacity = ddbi_ent_cap_mode(o)};
    if ((rc = sk_condition(e, kd, q, a, &qp, err)))
        return rc;
    if (q->cursor && (rc = ddbi_ent_cursor_decode(a, q->cursor, (ddb_item **)&qp.start_key, err)))
        return rc;
    bool sharded = e->n_shards && q->key == 0;
    bool shard_index = e->n_shards && q->key != 0; /* the index holds one shard item per entity */
    if (sharded && q->page_size)
        qp.limit = q->page_size * e->n_shards;
    ddb_page pg;
    if ((rc = ddb_query(db, &qp, a, &pg, err)))
        return rc;
    out->capacity = pg.capacity;
    if (kd->index && (rc = refetch_projected(db, e, kd->index, &pg, a, o, &out->capacity, err)))
        return rc;
    char *items = ddb_arena_alloc(a, (pg.count ? pg.count : 1) * e->st->size);
    if (!items)
        return ddbi_fail_oom(err, __func__);
    const ddb_value *tv;
    for (size_t i = 0; i < pg.count; i++) {
        ddb_item *it = pg.items[i];
        size_t span = 1;
        tv = ddb_item_get(it, e->table->type_attr);
        if (!tv || tv->type != DDB_TS || strcmp(tv->u.s, e->name) != 0)
            continue; /* another entity in the same partition */
        if (sharded) {
            /* consecutive shard items of one logical item share SK up to the suffix */
            const ddb_value *sk = ddb_item_get(it, kd->sk_attr);
            const char *sfx = ddbi_ent_shard_suffix(e);
            const char *cut = sk ? strstr(sk->u.s, sfx) : NULL;
            size_t base = cut ? (size_t)(cut - sk->u.s) + strlen(sfx) : 0;
            while (sk && i + span < pg.count) {
                const ddb_value *nsk = ddb_item_get(pg.items[i + span], kd->sk_attr);
                if (!nsk || nsk->len < base || memcmp(nsk->u.s, sk->u.s, base) != 0)
                    break;
                span++;
            }
            if ((rc = ddbi_ent_merge_shards(a, &pg.items[i], span, &it, err)))
                return rc;
        }
        if (shard_index && (rc = ddbi_ent_reassemble(db, e, it, a, o, &out->capacity, &it, err)))
            return rc;
        char *slot = items + out->count * e->st->size;
        if ((rc = ddb_ent_from_item(e, it, slot, a, err)))
            return rc;
        out->count++;
        i += span - 1;
    }
    out->items = items;
    if (pg.last_key)
        return ddbi_ent_cursor_encode(a, pg.last_key, &out->cursor, err);
    return DDB_OK;
}
