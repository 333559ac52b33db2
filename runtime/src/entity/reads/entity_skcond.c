/* Entity room: the sort-key condition of a typed query, named by a LEVEL of
 * the key's sort-key template (a segment index: literal or hole) and an
 * operator (ddb_ent_sk_op), turned into Query's sk_op / sk1 / sk2.  Keys
 * that continue after the level (more template text, or the shard suffix
 * of a sharded entity's table items) are bracketed with U+10FFFF after the
 * literal that ends the level's text (or the shard suffix), so that they
 * compare as equal to the level's text and a longer value does not
 * ("ALB1#..." is ALB1, "ALB10#..." is above it).  Calls the templates of this
 * room and the public value API. */
#include "entity/reads/entity_reads.h"

#include "core/error.h"

#include <string.h>

/* U+10FFFF, above every character a key can continue with. */
static const char top[] = "\xf4\x8f\xbf\xbf";

static const char *op_name(ddb_ent_sk_op op)
{
    static const char *const names[] = {"ALL", "EQ", "BEGINS", "LT", "LE", "GT", "GE", "BETWEEN"};
    return (unsigned)op < sizeof names / sizeof *names ? names[op] : "?";
}

/* The number of holes among segments 0..level. */
static uint16_t holes_through(const ddb_template *t, uint16_t level)
{
    uint16_t n = 0;
    for (uint16_t i = 0; i <= level && i < t->n; i++)
        n += t->segs[i].lit == NULL;
    return n;
}

/* The text of segments 0..level of obj's fields (through_literal: and the
 * literal after a hole level) as a value, with top appended when asked. */
static int level_text(const ddb_entity_desc *e, const ddb_template *t, const void *obj, uint16_t level,
                      bool through_literal, bool add_top, const char *suffix, ddb_arena *a, ddb_value **out,
                      ddb_error *err)
{
    char buf[256];
    ddbi_ent_text b;
    ddbi_ent_text_init(&b, buf, sizeof buf);
    bool absent = false;
    bool at_literal = t->segs[level].lit != NULL;
    int rc = ddbi_ent_render_prefix(e, t, obj, holes_through(t, level), at_literal || through_literal, &b, &absent,
                                    err);
    if (!rc && absent)
        rc = ddbi_fail(err, DDB_EVALIDATION, "%s: a sort-key field of the query is unset", e->name);
    if (!rc && ((suffix && ddbi_ent_text_put(&b, suffix, strlen(suffix))) || (add_top && ddbi_ent_text_put(&b, top, 4))))
        rc = ddbi_fail_oom(err, __func__);
    if (!rc && !(*out = ddb_v_s(a, b.p, b.len)))
        rc = ddbi_fail_oom(err, __func__);
    ddbi_ent_text_free(&b);
    return rc;
}

/* A numeric sort key: one level, compared as a number. */
static int numeric_condition(const ddb_entity_desc *e, const ddb_key_desc *kd, const ddb_ent_key_cond *kc,
                             ddb_arena *a, ddb_query_params *qp, ddb_error *err)
{
    if (kc->level != 0 || kc->op == DDB_ENT_SK_BEGINS)
        return ddbi_fail(err, DDB_EVALIDATION, "%s: the numeric sort key %s takes level 0 and no BEGINS (got %s at %u)",
                         e->name, kd->sk_attr, op_name(kc->op), (unsigned)kc->level);
    static const ddb_key_op map[] = {DDB_SK_ANY, DDB_SK_EQ, DDB_SK_BEGINS_WITH, DDB_SK_LT, DDB_SK_LE,
                                     DDB_SK_GT, DDB_SK_GE, DDB_SK_BETWEEN};
    ddb_value *v, *hi = NULL;
    int rc = ddb_ent_render(e, &kd->sk, kc->obj, a, &v, err);
    if (!rc && kc->op == DDB_ENT_SK_BETWEEN)
        rc = ddb_ent_render(e, &kd->sk, kc->hi, a, &hi, err);
    if (rc)
        return rc;
    if (!v || (kc->op == DDB_ENT_SK_BETWEEN && !hi))
        return ddbi_fail(err, DDB_EVALIDATION, "%s: a sort-key field of the query is unset", e->name);
    qp->sk_op = map[kc->op];
    qp->sk1 = v;
    qp->sk2 = hi;
    return DDB_OK;
}

/* LT, LE, GT, GE on a hole: the levels before it are equal, so the range
 * stays inside the text through the segment before the level (P): keys of
 * other values of an earlier level are not matched (BETWEEN P AND v for
 * LT/LE, v AND P+top for GT/GE; DynamoDB has one condition per sort key,
 * so the open end of the range becomes that bound).  A level at segment 0
 * has no P: a plain comparison. */
static int range_in_prefix(const ddb_entity_desc *e, const ddb_template *t, const ddb_ent_key_cond *kc,
                           bool continues, bool through, const char *suffix, ddb_arena *a, ddb_query_params *qp,
                           ddb_error *err)
{
    bool upper = kc->op == DDB_ENT_SK_LT || kc->op == DDB_ENT_SK_LE;
    /* keys that continue after the level compare as equal to it: <= and >
     * take them (v+top), < and >= stop before them (v) */
    bool with_top = continues && (kc->op == DDB_ENT_SK_LE || kc->op == DDB_ENT_SK_GT);
    ddb_value *v, *p = NULL;
    int rc = level_text(e, t, kc->obj, kc->level, with_top && through, with_top, with_top ? suffix : NULL, a, &v, err);
    if (!rc && kc->level > 0)
        rc = level_text(e, t, kc->obj, (uint16_t)(kc->level - 1), false, !upper, NULL, a, &p, err);
    if (rc)
        return rc;
    static const ddb_key_op plain[] = {[DDB_ENT_SK_LT] = DDB_SK_LT, [DDB_ENT_SK_LE] = DDB_SK_LE,
                                       [DDB_ENT_SK_GT] = DDB_SK_GT, [DDB_ENT_SK_GE] = DDB_SK_GE};
    /* the strict ends of a key that ends at the level: v itself is not in
     * the range (the next string after v for >, v minus one for <) */
    bool strict_end = !continues && (kc->op == DDB_ENT_SK_LT || kc->op == DDB_ENT_SK_GT);
    if (!p || (strict_end && kc->op == DDB_ENT_SK_LT && (!v->len || (unsigned char)v->u.s[v->len - 1] < 0x21 ||
                                                         (unsigned char)v->u.s[v->len - 1] > 0x7e))) {
        qp->sk_op = plain[kc->op];
        qp->sk1 = v;
        return DDB_OK;
    }
    if (strict_end) {
        ddb_buf b = {0};
        if (ddbi_buf_put(&b, v->u.s, v->len) ||
            (kc->op == DDB_ENT_SK_GT ? ddbi_buf_put(&b, "\x01", 1) : ddbi_buf_put(&b, top, 4))) {
            ddbi_buf_free(&b);
            return ddbi_fail_oom(err, __func__);
        }
        if (kc->op == DDB_ENT_SK_LT)
            b.p[v->len - 1]--; /* "abc" -> "abb"+top: below "abc", above every "abb..." */
        v = ddb_v_s(a, (const char *)b.p, b.len);
        ddbi_buf_free(&b);
        if (!v)
            return ddbi_fail_oom(err, __func__);
    }
    qp->sk_op = DDB_SK_BETWEEN;
    qp->sk1 = upper ? p : v;
    qp->sk2 = upper ? v : p;
    return DDB_OK;
}

int ddbi_ent_sk_condition(const ddb_entity_desc *e, const ddb_ent_key_cond *kc, ddb_arena *a, ddb_query_params *qp,
                          ddb_error *err)
{
    const ddb_key_desc *kd = &e->keys[kc->key];
    const ddb_template *t = &kd->sk;
    if ((unsigned)kc->op > DDB_ENT_SK_BETWEEN)
        return ddbi_fail(err, DDB_EINVAL, "%s: unknown sort-key operator %d", e->name, (int)kc->op);
    if (kc->op == DDB_ENT_SK_ALL) {
        /* every item of e starts its sort key with the template's leading
         * literal ("USER#" of "USER#{username}"): read only those, not the
         * other types sharing the partition */
        if (kd->sk_attr && t->type == DDB_TS && t->n && t->segs[0].lit && t->segs[0].lit[0]) {
            qp->sk_op = DDB_SK_BEGINS_WITH;
            if (!(qp->sk1 = ddb_v_str(a, t->segs[0].lit)))
                return ddbi_fail_oom(err, __func__);
        }
        return DDB_OK;
    }
    if (!kd->sk_attr)
        return ddbi_fail(err, DDB_EVALIDATION, "%s: the key on %s has no sort key to compare (%s)", e->name,
                         kd->index ? kd->index : "the table", op_name(kc->op));
    if (kc->op == DDB_ENT_SK_BETWEEN && !kc->hi)
        return ddbi_fail(err, DDB_EINVAL, "%s: BETWEEN needs the upper bound (hi)", e->name);
    if (t->type == DDB_TN)
        return numeric_condition(e, kd, kc, a, qp, err);
    if (kc->level >= t->n)
        return ddbi_fail(err, DDB_EVALIDATION, "%s: sort-key level %u is past the template's %u segments", e->name,
                         (unsigned)kc->level, (unsigned)t->n);
    bool last = kc->level + 1u == t->n;
    bool hole = t->segs[kc->level].lit == NULL;
    /* a sharded entity's table items carry <suffix><shard id> after the key */
    bool sharded = e->n_shards && kc->key == 0;
    bool continues = !last || sharded;
    /* what ends the level's text in a key that continues: the literal after
     * the hole, or the shard suffix after the last level (a hole followed
     * by a hole has none) */
    bool through = !last && t->segs[kc->level + 1].lit != NULL;
    const char *suffix = last && sharded ? ddbi_ent_shard_suffix(e) : NULL;
    if (kc->op == DDB_ENT_SK_EQ && !last)
        return ddbi_fail(err, DDB_EVALIDATION, "%s: EQ needs the whole sort key (level %u of %u segments)", e->name,
                         (unsigned)kc->level, (unsigned)t->n);
    if (kc->op >= DDB_ENT_SK_LT && !hole)
        return ddbi_fail(err, DDB_EVALIDATION, "%s: %s compares a field; sort-key level %u is literal text", e->name,
                         op_name(kc->op), (unsigned)kc->level);
    int rc;
    switch (kc->op) {
    case DDB_ENT_SK_EQ:
        qp->sk_op = sharded ? DDB_SK_BEGINS_WITH : DDB_SK_EQ;
        return level_text(e, t, kc->obj, kc->level, false, false, sharded ? ddbi_ent_shard_suffix(e) : NULL, a,
                          (ddb_value **)&qp->sk1, err);
    case DDB_ENT_SK_BEGINS:
        /* at a hole: a prefix of that field's text, whatever follows it */
        qp->sk_op = DDB_SK_BEGINS_WITH;
        return level_text(e, t, kc->obj, kc->level, false, false, NULL, a, (ddb_value **)&qp->sk1, err);
    case DDB_ENT_SK_LT:
    case DDB_ENT_SK_GE:
    case DDB_ENT_SK_LE:
    case DDB_ENT_SK_GT:
        return range_in_prefix(e, t, kc, continues, through, suffix, a, qp, err);
    default: /* BETWEEN */
        qp->sk_op = DDB_SK_BETWEEN;
        rc = level_text(e, t, kc->obj, kc->level, false, false, NULL, a, (ddb_value **)&qp->sk1, err);
        return rc ? rc
                  : level_text(e, t, kc->hi, kc->level, continues && through, continues, continues ? suffix : NULL, a,
                               (ddb_value **)&qp->sk2, err);
    }
}

int ddbi_ent_level_of_hole(const ddb_template *t, uint16_t nth, uint16_t *level)
{
    uint16_t seen = 0;
    for (uint16_t i = 0; i < t->n; i++)
        if (!t->segs[i].lit && ++seen == nth) {
            *level = i;
            return DDB_OK;
        }
    return DDB_EVALIDATION;
}
