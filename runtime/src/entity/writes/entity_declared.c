/* Entity room: declared updates (ddb_ent_update_declared and its
 * transaction form), the runtime of ddbgen's DDB_UPDATE.  A declared update
 * is lowered here into what ddb_ent_update runs (entity_update.c: one
 * ddb_ent_update_expr per shard item, updated-at, the version, the
 * existence condition, the transaction when more than one item is
 * written): its names and placeholders bound, the index keys and derived
 * attributes fed by the fields it sets recomputed on the shard item that
 * holds each, and its declared condition bound and ANDed with the caller's.
 * Calls the public item API and this room's templates, binding, keys and
 * updates. */
#include "entity/writes/entity_writes.h"

#include "core/error.h"

#include <stdio.h>
#include <string.h>

/* A declared update lowered: one expression per shard item written. */
typedef struct lowered {
    ddb_ent_update_expr u[DDB_ENT_MAX_SHARDS];
    size_t n;
    ddb_ent_expr cond[2]; /* the declared one (the caller's ANDed when on the same shard item), the caller's */
    size_t nc;
} lowered;

/* The clause bodies of one shard item (SET, REMOVE, ADD, DELETE). */
typedef struct clauses {
    ddb_buf c[4];
} clauses;

static int clause_add(ddb_buf *b, const char *s)
{
    if (!s || !*s)
        return DDB_OK;
    if (b->len && ddbi_buf_put(b, ", ", 2))
        return DDB_ENOMEM;
    return ddbi_buf_put(b, s, strlen(s));
}

/* Is ref ("#x", ":x") a whole token of text? */
static bool uses(const char *text, const char *ref)
{
    size_t n = strlen(ref);
    for (const char *p = strstr(text, ref); p; p = strstr(p + 1, ref)) {
        char after = p[n];
        if (!(after == '_' || (after >= 'a' && after <= 'z') || (after >= 'A' && after <= 'Z') ||
              (after >= '0' && after <= '9')))
            return true;
    }
    return false;
}

/* The entries of map m that text uses (DynamoDB refuses unused names and
 * values), in a; NULL when none. */
static int used_map(ddb_arena *a, const ddb_item *m, const char *text, const ddb_item **out)
{
    *out = NULL;
    const ddb_value *mv = m ? ddb_item_map(m) : NULL;
    ddb_item *r = NULL;
    for (uint32_t i = 0; mv && i < mv->len; i++) {
        if (!uses(text, mv->u.m[i].name))
            continue;
        if ((!r && !(r = ddb_item_new(a))) || ddb_item_set(r, mv->u.m[i].name, (ddb_value *)mv->u.m[i].value))
            return DDB_ENOMEM;
    }
    *out = r;
    return DDB_OK;
}

/* Name attr as "#ddb_<n>" (and v as ":ddb_<n>") into names / values; ref
 * gets "#ddb_<n> = :ddb_<n>" (v NULL: "#ddb_<n>", to remove).  ddbgen
 * refuses declared placeholders starting with ddb_. */
static int extra(ddb_arena *a, ddb_item *names, ddb_item *values, int n, const char *attr, ddb_value *v, char *ref,
                 size_t refsz)
{
    char nm[32], vl[32];
    snprintf(nm, sizeof nm, "#ddb_%d", n);
    snprintf(vl, sizeof vl, ":ddb_%d", n);
    ddb_value *s = ddb_v_str(a, attr);
    if (!s || ddb_item_set(names, nm, s) || (v && ddb_item_set(values, vl, v)))
        return DDB_ENOMEM;
    if (v)
        snprintf(ref, refsz, "%s = %s", nm, vl);
    else
        snprintf(ref, refsz, "%s", nm);
    return DDB_OK;
}

/* attr on shard item s: SET to v, or REMOVE when v is NULL. */
static int recompute(ddb_arena *a, ddb_item *names, ddb_item *values, int *n, const char *attr, ddb_value *v,
                     clauses *s)
{
    char ref[96];
    if (extra(a, names, values, (*n)++, attr, v, ref, sizeof ref))
        return DDB_ENOMEM;
    return clause_add(&s->c[v ? 0 : 1], ref);
}

/* The derived attributes and index keys that read a field of u->known,
 * rendered from obj, each into the clauses of the shard item holding it. */
static int add_recomputed(const ddb_entity_desc *e, const ddb_ent_update_desc *u, const void *obj, ddb_arena *a,
                          ddb_item *names, ddb_item *values, clauses *cl, ddb_error *err)
{
    ddb_ent_mask changed;
    memset(&changed, 0, sizeof changed);
    for (uint16_t i = 0; i < u->n_known; i++) {
        if (u->known[i] >= e->st->n_fields)
            return ddbi_fail(err, DDB_EINVAL, "declared update %s of %s names field %u of %u", u->name, e->name,
                             (unsigned)u->known[i], (unsigned)e->st->n_fields);
        ddb_ent_mask_set(&changed, u->known[i]);
    }
    int n = 0, rc = DDB_OK;
    for (uint16_t j = 0; !rc && j < e->st->n_fields; j++) {
        const ddb_field_desc *f = &e->st->fields[j];
        if (!(f->flags & DDB_FIELD_DERIVED) || !f->derived || !ddbi_ent_template_uses(f->derived, &changed))
            continue;
        ddb_value *v;
        if (!(rc = ddb_ent_render(e, f->derived, obj, a, &v, err)) &&
            recompute(a, names, values, &n, f->attr, v, &cl[ddbi_ent_field_part(e, f)]))
            rc = ddbi_fail_oom(err, __func__);
    }
    for (uint16_t k = 1; !rc && k < e->n_keys; k++) {
        const ddb_key_desc *kd = &e->keys[k];
        if (kd->by_fields)
            continue; /* its attributes are the fields themselves */
        if (!ddbi_ent_template_uses(&kd->pk, &changed) &&
            !(kd->sk_attr && ddbi_ent_template_uses(&kd->sk, &changed)))
            continue;
        ddb_value *pk, *sk = NULL;
        if ((rc = ddb_ent_render(e, &kd->pk, obj, a, &pk, err)) ||
            (kd->sk_attr && (rc = ddb_ent_render(e, &kd->sk, obj, a, &sk, err))))
            break;
        bool in = pk && (!kd->sk_attr || sk); /* a sparse index: the item leaves it */
        clauses *s = &cl[e->n_shards && kd->shard >= 0 ? kd->shard : 0];
        /* an LSI's partition key is the table's: fixed, never sent */
        if ((!ddbi_ent_table_key_attr(e, kd->pk_attr) && recompute(a, names, values, &n, kd->pk_attr, in ? pk : NULL, s)) ||
            (kd->sk_attr && recompute(a, names, values, &n, kd->sk_attr, in ? sk : NULL, s)))
            rc = ddbi_fail_oom(err, __func__);
    }
    return rc;
}

/* The text of one shard item's UpdateExpression from its clauses, in a. */
static const char *update_text(ddb_arena *a, const clauses *s)
{
    static const char *const kw[4] = {"SET ", "REMOVE ", "ADD ", "DELETE "};
    size_t n = 1;
    for (int c = 0; c < 4; c++)
        n += s->c[c].len ? strlen(kw[c]) + s->c[c].len + 1 : 0;
    char *t = ddb_arena_alloc(a, n), *p = t;
    for (int c = 0; t && c < 4; c++) {
        if (!s->c[c].len)
            continue;
        if (p != t)
            *p++ = ' ';
        memcpy(p, kw[c], strlen(kw[c]));
        p += strlen(kw[c]);
        memcpy(p, s->c[c].p, s->c[c].len);
        p += s->c[c].len;
    }
    if (t)
        *p = 0;
    return t;
}

/* Lower u (bound with args, recomputing from obj) into *L, its condition
 * ANDed with also (may be NULL). */
static int lower(const ddb_entity_desc *e, const ddb_ent_update_desc *u, const void *obj, const ddb_ent_arg *args,
                 size_t n_args, const ddb_ent_expr *also, ddb_arena *a, lowered *L, ddb_error *err)
{
    memset(L, 0, sizeof *L);
    int rc = ddbi_ent_check_shards(e, err);
    if (rc)
        return rc;
    int nparts = ddbi_ent_parts(e);
    if (!u->n_parts || !u->parts)
        return ddbi_fail(err, DDB_EINVAL, "declared update %s of %s has no parts", u->name, e->name);
    for (uint16_t i = 0; i < u->n_parts; i++) {
        if (u->parts[i].shard < 0 || u->parts[i].shard >= nparts)
            return ddbi_fail(err, DDB_EINVAL, "declared update %s of %s names shard %d of %d", u->name, e->name,
                             u->parts[i].shard, nparts);
        for (uint16_t j = 0; j < i; j++)
            if (u->parts[j].shard == u->parts[i].shard)
                return ddbi_fail(err, DDB_EINVAL, "declared update %s of %s has two parts for shard %d", u->name,
                                 e->name, u->parts[i].shard);
    }
    if (u->condition && (u->cond_shard < 0 || u->cond_shard >= nparts))
        return ddbi_fail(err, DDB_EINVAL, "declared update %s of %s: its condition names shard %d of %d", u->name,
                         e->name, u->cond_shard, nparts);
    ddb_item *names = ddb_item_new(a), *values = ddb_item_new(a);
    if (!names || !values)
        return ddbi_fail_oom(err, __func__);
    if ((rc = ddbi_ent_bind(e, u->name, u->names, u->attrs, u->n_names, args, n_args, a, names, values, err)))
        return rc;
    clauses cl[DDB_ENT_MAX_SHARDS];
    memset(cl, 0, sizeof cl);
    for (uint16_t i = 0; !rc && i < u->n_parts; i++) {
        const ddb_ent_update_part *p = &u->parts[i];
        const char *body[4] = {p->set, p->remove, p->add, p->del};
        for (int c = 0; !rc && c < 4; c++)
            if (clause_add(&cl[p->shard].c[c], body[c]))
                rc = ddbi_fail_oom(err, __func__);
    }
    if (!rc)
        rc = add_recomputed(e, u, obj, a, names, values, cl, err);
    for (int s = 0; !rc && s < nparts; s++) {
        if (!cl[s].c[0].len && !cl[s].c[1].len && !cl[s].c[2].len && !cl[s].c[3].len)
            continue;
        ddb_ent_expr *x = &L->u[L->n++].expr;
        x->shard = (int16_t)s;
        if (!(x->text = update_text(a, &cl[s])) || used_map(a, names, x->text, &x->names) ||
            used_map(a, values, x->text, &x->values))
            rc = ddbi_fail_oom(err, __func__);
    }
    for (int s = 0; s < nparts; s++)
        for (int c = 0; c < 4; c++)
            ddbi_buf_free(&cl[s].c[c]);
    if (rc || !u->condition) {
        if (!rc && also)
            L->cond[L->nc++] = *also;
        return rc;
    }
    /* the caller's condition joins the declared one when both read the same
     * shard item; else each is checked on its own */
    bool apart = also && e->n_shards && also->shard != u->cond_shard;
    ddb_ent_cond_desc cd = {.name = u->name, .text = u->condition, .names = u->names, .attrs = u->attrs,
                            .n_names = u->n_names, .shard = u->cond_shard};
    ddb_ent_expr *dc = &L->cond[L->nc++];
    if ((rc = ddb_ent_declared_cond(e, &cd, args, n_args, apart ? NULL : also, a, dc, err)))
        return rc;
    if (apart)
        L->cond[L->nc++] = *also;
    /* the update's own names and placeholders are not the condition's */
    if (used_map(a, dc->names, dc->text, &dc->names) || used_map(a, dc->values, dc->text, &dc->values))
        return ddbi_fail_oom(err, __func__);
    return DDB_OK;
}

/* Lower u and add it to tx (c: the caller's condition and current). */
static int add(ddb_ent_tx *tx, ddb_arena *a, const ddb_entity_desc *e, const ddb_ent_update_desc *u, void *obj,
               const ddb_ent_arg *args, size_t n_args, const ddb_ent_tx_cond *c, void *out, ddb_arena *out_arena,
               ddb_error *err)
{
    lowered L;
    int rc = lower(e, u, obj, args, n_args, c ? c->condition : NULL, a, &L, err);
    if (rc)
        return rc;
    ddb_ent_tx_cond lc[2];
    for (size_t i = 0; i < L.nc; i++) {
        memset(&lc[i], 0, sizeof lc[i]);
        if (c)
            lc[i] = *c;
        lc[i].condition = &L.cond[i];
    }
    return ddbi_ent_add_declared(tx, e, obj, L.u, L.n, lc, L.nc, out, out_arena, err);
}

typedef struct call {
    const ddb_entity_desc *e;
    const ddb_ent_update_desc *u;
    void *obj;
    const ddb_ent_arg *args;
    size_t n_args;
    const ddb_ent_opts *o;
    void *out;
    ddb_arena *out_arena;
} call;

static int build(ddb_ent_tx *tx, ddb_arena *a, void *ctx, ddb_error *err)
{
    call *k = ctx;
    ddb_ent_tx_cond c = ddbi_ent_cond_of(k->o);
    return add(tx, a, k->e, k->u, k->obj, k->args, k->n_args, &c, k->out, k->out_arena, err);
}

int ddb_ent_update_declared(ddb *db, const ddb_entity_desc *e, const ddb_ent_update_desc *u, void *obj,
                            const ddb_ent_arg *args, size_t n_args, const ddb_ent_opts *o, ddb_arena *ra, void *out,
                            ddb_capacity *cap, ddb_error *err)
{
    if (cap)
        memset(cap, 0, sizeof *cap);
    if (!db || !e || !u || !obj || (n_args && !args) || (out && !ra))
        return ddbi_fail(err, DDB_EINVAL, "declared update: db, entity, update and key are required (and an arena "
                                          "with out)");
    /* a sharded entity's out is the whole item: read back after (the
     * UpdateItems return only the shard items they write) */
    call k = {e, u, obj, args, n_args, o, e->n_shards ? NULL : out, ra};
    return ddbi_ent_single_out(db, e, obj, o, out, ra, cap, build, &k, err);
}

int ddb_ent_tx_update_declared(ddb_ent_tx *tx, const ddb_entity_desc *e, const ddb_ent_update_desc *u, void *obj,
                               const ddb_ent_arg *args, size_t n_args, const ddb_ent_tx_cond *c, ddb_error *err)
{
    if (!tx || !e || !u || !obj || (n_args && !args))
        return ddbi_fail(err, DDB_EINVAL, "transaction: tx, entity, declared update and key are required");
    int rc = add(tx, ddbi_ent_tx_arena(tx), e, u, obj, args, n_args, c, NULL, NULL, err);
    if (rc)
        ddbi_ent_tx_poison(tx);
    return rc;
}
