/* Entity room: the ddb_ent_query interface (a count of sort-key fields and
 * a Query operator), kept for the generated code that still calls it, as a
 * translation onto ddb_ent_query_pattern: the first sk_fields holes name a
 * level; no operator means equality on the whole key, else begins_with
 * (on a key of fields: equality on the fields given).
 * Partial index projections are read whole from the table, as before.
 * Calls entity_typed_reads.c and the templates of this room. */
#include "entity/reads/entity_reads.h"

#include "core/error.h"

#include <string.h>

static int to_key_cond(const ddb_entity_desc *e, const ddb_ent_query *q, ddb_ent_key_cond *kc, ddb_error *err)
{
    const ddb_key_desc *kd = &e->keys[q->key];
    uint16_t holes = kd->sk_attr ? ddbi_ent_holes(&kd->sk) : 0;
    static const ddb_ent_sk_op ops[] = {[DDB_SK_EQ] = DDB_ENT_SK_EQ, [DDB_SK_LT] = DDB_ENT_SK_LT,
                                        [DDB_SK_LE] = DDB_ENT_SK_LE, [DDB_SK_GT] = DDB_ENT_SK_GT,
                                        [DDB_SK_GE] = DDB_ENT_SK_GE, [DDB_SK_BETWEEN] = DDB_ENT_SK_BETWEEN,
                                        [DDB_SK_BEGINS_WITH] = DDB_ENT_SK_BEGINS};
    *kc = (ddb_ent_key_cond){.key = q->key, .obj = q->obj, .hi = q->obj_hi};
    if (q->sk_fields == 0) {
        if (q->op != DDB_SK_ANY)
            return ddbi_fail(err, DDB_EVALIDATION, "a sort-key condition needs at least one sort-key field");
        return DDB_OK;
    }
    if (q->sk_fields > holes)
        return ddbi_fail(err, DDB_EVALIDATION, "%s: the sort key has %u fields, %u given", e->name, holes,
                         q->sk_fields);
    if ((unsigned)q->op > DDB_SK_BEGINS_WITH)
        return ddbi_fail(err, DDB_EINVAL, "%s: unknown sort-key operator %d", e->name, (int)q->op);
    bool whole = q->sk_fields == holes;
    kc->op = q->op == DDB_SK_ANY ? (whole || kd->by_fields ? DDB_ENT_SK_EQ : DDB_ENT_SK_BEGINS) : ops[q->op];
    if (kd->by_fields) /* a level per field: the last one given */
        return ddbi_ent_level_of_hole(&kd->sk, q->sk_fields, &kc->level);
    if (kd->sk.type == DDB_TN)
        return DDB_OK; /* level 0 */
    if (kc->op == DDB_ENT_SK_EQ && whole) { /* through a trailing literal, if any */
        kc->level = (uint16_t)(kd->sk.n - 1);
        return DDB_OK;
    }
    return ddbi_ent_level_of_hole(&kd->sk, q->sk_fields, &kc->level);
}

int ddb_ent_query_page(ddb *db, const ddb_entity_desc *e, const ddb_ent_query *q, const ddb_ent_opts *o,
                       ddb_arena *a, ddb_ent_page *out, ddb_error *err)
{
    if (!db || !e || !q || !q->obj || !a || !out)
        return ddbi_fail(err, DDB_EINVAL, "query: db, entity, query, object, arena and out are required");
    memset(out, 0, sizeof *out);
    if (q->key >= e->n_keys)
        return ddbi_fail(err, DDB_EINVAL, "%s has no key %u", e->name, q->key);
    ddb_ent_key_cond kc;
    int rc = to_key_cond(e, q, &kc, err);
    if (rc)
        return rc;
    ddb_ent_read_opts ro = {.page_size = q->page_size, .cursor = q->cursor, .backward = q->backward,
                            .consistent = o && o->consistent, .fetch_base = true,
                            .return_capacity = ddbi_ent_cap_mode(o), .capacity = &out->capacity};
    ddb_ent_result res;
    if ((rc = ddb_ent_query_pattern(db, e, &kc, &ro, a, &res, err)))
        return rc;
    out->items = res.items;
    out->count = res.count;
    out->cursor = res.cursor;
    return DDB_OK;
}
