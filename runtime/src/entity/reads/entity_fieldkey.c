/* Entity room: keys of a global secondary index keyed on the entity's own
 * fields (ddb_key_desc.by_fields, ddbgen's DDB_KEY_FIELDS: DynamoDB's
 * multi-attribute keys).  The key's templates are one hole per field, in
 * declared order; the attributes are the fields' own, so nothing is
 * rendered on a write.  A query is a KeyConditionExpression: equality on
 * every partition-key attribute, equality on the sort-key attributes before
 * the level named, and the level's own condition (=, <, <=, >, >=,
 * BETWEEN, begins_with) on it (DynamoDB's developer guide, "Multi-attribute
 * keys pattern": left to right, no gaps, a range only on the last one).
 * Calls this room's expression builder and field values, and the public
 * value API. */
#include "entity/reads/entity_reads.h"

#include "core/error.h"

/* The field of hole i of t (a key of fields has no literal segment). */
static const ddb_field_desc *hole_field(const ddb_entity_desc *e, const ddb_template *t, uint16_t i)
{
    const ddb_tseg *s = &t->segs[i];
    return !s->lit && s->path_len && s->path[0] < e->st->n_fields ? &e->st->fields[s->path[0]] : NULL;
}

bool ddbi_ent_fields_present(const ddb_entity_desc *e, const ddb_key_desc *kd, const ddb_item *it)
{
    const ddb_template *t[2] = {&kd->pk, kd->sk_attr ? &kd->sk : NULL};
    for (int w = 0; w < 2 && t[w]; w++)
        for (uint16_t i = 0; i < t[w]->n; i++) {
            const ddb_field_desc *f = hole_field(e, t[w], i);
            if (!f || !ddb_item_get(it, f->attr))
                return false;
        }
    return true;
}

/* " AND " before every term but the first. */
static int term(ddbi_exprb *x, bool *first, ddb_error *err)
{
    if (!*first && ddbi_exprb_put(x, " AND "))
        return ddbi_fail_oom(err, __func__);
    *first = false;
    return DDB_OK;
}

/* "#n = :v" (or the op given) of hole i of t with obj's value; *absent when
 * the field is unset (a NULL string, empty bytes). */
static int compare(ddbi_exprb *x, const ddb_entity_desc *e, const ddb_template *t, uint16_t i, const void *obj,
                   const char *op, const void *hi, bool *first, ddb_error *err)
{
    const ddb_field_desc *f = hole_field(e, t, i);
    if (!f)
        return ddbi_fail(err, DDB_EINVAL, "%s: a key of fields names no field at position %u", e->name, (unsigned)i);
    ddb_value *v = NULL, *v2 = NULL;
    int rc = ddbi_ent_field_value(f, (const char *)obj + f->offset, x->a, &v, err);
    if (!rc && hi)
        rc = ddbi_ent_field_value(f, (const char *)hi + f->offset, x->a, &v2, err);
    if (rc)
        return rc;
    if (!v || (hi && !v2))
        return ddbi_fail(err, DDB_EVALIDATION, "%s: key field '%s' of the query is unset", e->name, f->name);
    const char *n = ddbi_exprb_name(x, f->attr), *r1 = ddbi_exprb_value(x, v), *r2 = hi ? ddbi_exprb_value(x, v2) : "";
    if (!n || !r1 || !r2 || (rc = term(x, first, err)))
        return rc ? rc : ddbi_fail_oom(err, __func__);
    int bad;
    if (!strcmp(op, "begins_with"))
        bad = ddbi_exprb_put(x, "begins_with(") || ddbi_exprb_put(x, n) || ddbi_exprb_put(x, ", ") ||
              ddbi_exprb_put(x, r1) || ddbi_exprb_put(x, ")");
    else if (hi)
        bad = ddbi_exprb_put(x, n) || ddbi_exprb_put(x, " BETWEEN ") || ddbi_exprb_put(x, r1) ||
              ddbi_exprb_put(x, " AND ") || ddbi_exprb_put(x, r2);
    else
        bad = ddbi_exprb_put(x, n) || ddbi_exprb_put(x, " ") || ddbi_exprb_put(x, op) || ddbi_exprb_put(x, " ") ||
              ddbi_exprb_put(x, r1);
    return bad ? ddbi_fail_oom(err, __func__) : DDB_OK;
}

int ddbi_ent_fields_key_condition(const ddb_entity_desc *e, const ddb_ent_key_cond *kc, ddbi_exprb *x,
                                  ddb_error *err)
{
    static const char *const ops[] = {[DDB_ENT_SK_EQ] = "=",     [DDB_ENT_SK_BEGINS] = "begins_with",
                                      [DDB_ENT_SK_LT] = "<",     [DDB_ENT_SK_LE] = "<=",
                                      [DDB_ENT_SK_GT] = ">",     [DDB_ENT_SK_GE] = ">=",
                                      [DDB_ENT_SK_BETWEEN] = "BETWEEN"};
    const ddb_key_desc *kd = &e->keys[kc->key];
    if ((unsigned)kc->op > DDB_ENT_SK_BETWEEN)
        return ddbi_fail(err, DDB_EINVAL, "%s: unknown sort-key operator %d", e->name, (int)kc->op);
    bool first = true;
    int rc = DDB_OK;
    for (uint16_t i = 0; !rc && i < kd->pk.n; i++)
        rc = compare(x, e, &kd->pk, i, kc->obj, "=", NULL, &first, err);
    if (rc || kc->op == DDB_ENT_SK_ALL)
        return rc;
    if (!kd->sk_attr || kc->level >= kd->sk.n)
        return ddbi_fail(err, DDB_EVALIDATION, "%s: the key on %s has no sort-key field %u", e->name,
                         kd->index ? kd->index : "the table", (unsigned)kc->level);
    if (kc->op == DDB_ENT_SK_BETWEEN && !kc->hi)
        return ddbi_fail(err, DDB_EINVAL, "%s: BETWEEN needs its upper bound", e->name);
    const ddb_field_desc *f = hole_field(e, &kd->sk, kc->level);
    if (kc->op == DDB_ENT_SK_BEGINS && f && f->type != DDB_F_CHARS && f->type != DDB_F_STRING &&
        f->type != DDB_F_BYTES)
        return ddbi_fail(err, DDB_EVALIDATION, "%s: begins_with needs a string or binary key field, not '%s'", e->name,
                         f->name);
    for (uint16_t i = 0; !rc && i < kc->level; i++)
        rc = compare(x, e, &kd->sk, i, kc->obj, "=", NULL, &first, err);
    if (!rc)
        rc = compare(x, e, &kd->sk, kc->level, kc->obj, ops[kc->op], kc->op == DDB_ENT_SK_BETWEEN ? kc->hi : NULL,
                     &first, err);
    return rc;
}
