/* Entity room: a migration step's claims — the uniqueness items of
 * DDB_UNIQUE fields that items stored before the field was unique lack
 * (docs/SCHEMA.md, "Unique fields at run time").  Per stored item holding
 * a value: a put of the uniqueness item, conditional on its key being free
 * or owned by this same item (a rerun changes nothing), and, when the
 * item itself is not rewritten, a ConditionCheck that the item still holds
 * the value.  A claim held by another item that no longer holds the value
 * (a stale claim: the duplicate was fixed with the plain item API after a
 * run stopped at it) is taken over, conditional on its owner unchanged.
 * A dry run remembers every value met to list the duplicates
 * (memory: one entry a claimed value).  The step's check reads, per
 * stored item, its uniqueness items back (ddbi_ent_claims_held).  Calls the public item and
 * expression API and entity_unique.c's key space. */
#include "entity/migrate/entity_migrate.h"

#include "core/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Dry run: an open-addressing set of "<field>\n<value>" -> owner key text. */
struct ddbi_ent_seen {
    size_t cap, n;
    char **key, **owner;
};

static uint64_t hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static void seen_free(ddbi_ent_seen *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->cap; i++) {
        free(t->key[i]);
        free(t->owner[i]);
    }
    free(t->key);
    free(t->owner);
    free(t);
}

static bool seen_grow(ddbi_ent_seen *t)
{
    size_t cap = t->cap ? 2 * t->cap : 1024;
    char **k = calloc(cap, sizeof *k), **o = calloc(cap, sizeof *o);
    if (!k || !o) {
        free(k);
        free(o);
        return false;
    }
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->key[i])
            continue;
        size_t j = hash(t->key[i]) & (cap - 1);
        while (k[j])
            j = (j + 1) & (cap - 1);
        k[j] = t->key[i];
        o[j] = t->owner[i];
    }
    free(t->key);
    free(t->owner);
    t->key = k;
    t->owner = o;
    t->cap = cap;
    return true;
}

/* The owner of key, or NULL after adding key -> owner; *oom on failure. */
static const char *seen_add(ddbi_ent_seen *t, const char *key, const char *owner, bool *oom)
{
    *oom = false;
    if ((t->n + 1) * 2 > t->cap && !seen_grow(t)) {
        *oom = true;
        return NULL;
    }
    size_t j = hash(key) & (t->cap - 1);
    for (; t->key[j]; j = (j + 1) & (t->cap - 1))
        if (!strcmp(t->key[j], key))
            return t->owner[j];
    t->key[j] = strdup(key);
    t->owner[j] = strdup(owner);
    if (!t->key[j] || !t->owner[j]) {
        free(t->key[j]);
        free(t->owner[j]);
        t->key[j] = t->owner[j] = NULL;
        *oom = true;
        return NULL;
    }
    t->n++;
    return NULL;
}

static int prepare(const char *text, const char *n1, const char *a1, const char *n2, const char *a2, ddb_expr **out,
                   ddb_error *err)
{
    ddb_arena *na = ddb_arena_new();
    ddb_item *names = na ? ddb_item_new(na) : NULL;
    int rc = names && !ddb_item_set_s(names, n1, a1) && (!n2 || !ddb_item_set_s(names, n2, a2))
                 ? ddb_expr_prepare(DDB_EXPR_CONDITION, text, names, out, err)
                 : ddbi_fail_oom(err, __func__);
    ddb_arena_free(na);
    return rc;
}

int ddbi_ent_claims_init(ddbi_ent_claims *c, const ddb_ent_migration_step *s, ddb_error *err)
{
    memset(c, 0, sizeof *c);
    c->e = s->entity;
    if (!s->n_claims)
        return DDB_OK;
    const ddb_entity_desc *e = s->entity;
    if (!s->claims)
        return ddbi_fail(err, DDB_EINVAL, "ddb_ent_migrate: %s's step has claims but no array", e->name);
    if (s->n_claims > DDBI_ENT_CLAIMS_MAX)
        return ddbi_fail(err, DDB_ELIMIT, "ddb_ent_migrate: %s's step claims %zu fields, at most %d", e->name,
                         s->n_claims, DDBI_ENT_CLAIMS_MAX);
    if (e->n_shards)
        return ddbi_fail(err, DDB_ENOTSUP, "ddb_ent_migrate: %s is sharded; a migration cannot claim the values "
                                           "of its unique fields",
                         e->name);
    for (size_t i = 0; i < s->n_claims; i++) {
        const ddb_field_desc *f = NULL;
        for (uint16_t j = 0; j < e->st->n_fields && !f; j++)
            if (s->claims[i] && !strcmp(e->st->fields[j].name, s->claims[i]))
                f = &e->st->fields[j];
        if (!f || !(f->flags & DDB_FIELD_UNIQUE))
            return ddbi_fail(err, DDB_EINVAL, "ddb_ent_migrate: %s has no DDB_UNIQUE field '%.80s' to claim",
                             e->name, s->claims[i] ? s->claims[i] : "(null)");
        c->f[c->n++] = f;
    }
    int rc = prepare("attribute_not_exists(#k) OR #o = :o", "#k", e->table->def.key.pk, "#o", "owner", &c->put_cond,
                     err);
    if (!rc)
        rc = prepare("attribute_not_exists(#k) OR #o = :o OR #o = :old", "#k", e->table->def.key.pk, "#o", "owner",
                     &c->take_cond, err);
    for (size_t i = 0; !rc && i < c->n; i++)
        rc = prepare("#f = :v", "#f", c->f[i]->attr, NULL, NULL, &c->same[i], err);
    return rc;
}

void ddbi_ent_claims_done(ddbi_ent_claims *c)
{
    ddb_expr_free(c->put_cond);
    ddb_expr_free(c->take_cond);
    for (size_t i = 0; i < c->n; i++)
        ddb_expr_free(c->same[i]);
    seen_free(c->seen);
    memset(c, 0, sizeof *c);
}

/* The value item it holds for f as text (NULL: none, or ""). */
static const char *held(const ddb_field_desc *f, const ddb_item *it, ddb_arena *a, const ddb_value **v)
{
    *v = ddb_item_get(it, f->attr);
    if (!*v || ((*v)->type != DDB_TS && (*v)->type != DDB_TN && (*v)->type != DDB_TB) ||
        ((*v)->type == DDB_TS && (*v)->len == 0))
        return NULL; /* unset ("" is unset, as for the entity's writes) */
    return ddbi_ent_unique_text(a, *v);
}

/* The uniqueness item *u (owned by owner) of the value stored item it holds
 * for claimed field i, with *text and *v; *u NULL when it holds none. */
static int claim_of(const ddbi_ent_claims *c, size_t i, const ddb_item *it, const char *owner, ddb_arena *a,
                    const char **text, const ddb_value **v, ddb_item **u, ddb_error *err)
{
    *u = NULL;
    if (!owner)
        return ddbi_fail_oom(err, __func__);
    *text = held(c->f[i], it, a, v);
    return *text ? ddbi_ent_unique_item(c->e, c->f[i], *text, owner, a, u, err) : DDB_OK;
}

int ddbi_ent_claims_ops(const ddbi_ent_claims *c, const ddb_item *it, bool check, ddb_arena *a, ddb_tx_op *ops,
                        ddbi_ent_claim_op *info, size_t *n, ddb_error *err)
{
    const ddb_table_def *td = &c->e->table->def;
    const char *owner = c->n ? ddbi_ent_unique_owner(td, it, a) : NULL;
    for (size_t i = 0; i < c->n; i++) {
        const ddb_value *v = NULL;
        const char *text = NULL;
        ddb_item *u = NULL, *vals = ddb_item_new(a);
        int rc = claim_of(c, i, it, owner, a, &text, &v, &u, err);
        if (rc)
            return rc;
        if (!u)
            continue;
        if (!vals || ddb_item_set_s(vals, ":o", owner))
            return ddbi_fail_oom(err, __func__);
        info[*n] = (ddbi_ent_claim_op){.f = c->f[i], .value = text};
        /* ALL_OLD: a duplicate's message names the item that holds the claim */
        ops[(*n)++] = (ddb_tx_op){.kind = DDB_TX_PUT, .table = td->name, .item = u, .condition = c->put_cond,
                                  .values = vals, .return_on_condition_failure = DDB_RETURN_ALL_OLD};
        if (!check)
            continue;
        ddb_item *key = ddb_item_new(a), *cv = ddb_item_new(a);
        const ddb_value *pk = ddb_item_get(it, td->key.pk), *sk = td->key.sk ? ddb_item_get(it, td->key.sk) : NULL;
        if (!key || !cv || ddb_item_set(key, td->key.pk, ddb_value_copy(a, pk)) ||
            (sk && ddb_item_set(key, td->key.sk, ddb_value_copy(a, sk))) || ddb_item_set(cv, ":v", ddb_value_copy(a, v)))
            return ddbi_fail_oom(err, __func__);
        info[*n] = (ddbi_ent_claim_op){.f = c->f[i], .value = text, .check = true};
        ops[(*n)++] = (ddb_tx_op){.kind = DDB_TX_CHECK, .table = td->name, .item = key, .condition = c->same[i],
                                  .values = cv};
    }
    return DDB_OK;
}

int ddbi_ent_claims_seen(ddbi_ent_claims *c, const ddb_item *it, ddb_arena *a, const char **dup, ddb_error *err)
{
    *dup = NULL;
    if (!c->n)
        return DDB_OK;
    if (!c->seen && !(c->seen = calloc(1, sizeof *c->seen)))
        return ddbi_fail_oom(err, __func__);
    const ddb_table_def *td = &c->e->table->def;
    const char *mine = ddbi_ent_key_text(td, it, a);
    for (size_t i = 0; i < c->n && !*dup; i++) {
        const ddb_value *v;
        const char *text = held(c->f[i], it, a, &v);
        if (!text)
            continue;
        size_t kn = strlen(c->f[i]->attr) + strlen(text) + 2;
        char *key = ddb_arena_alloc(a, kn);
        if (!key || !mine)
            return ddbi_fail_oom(err, __func__);
        snprintf(key, kn, "%s\n%s", c->f[i]->attr, text);
        bool oom;
        const char *other = seen_add(c->seen, key, mine, &oom);
        if (oom)
            return ddbi_fail_oom(err, __func__);
        if (!other)
            continue;
        size_t ln = strlen(c->e->name) + strlen(c->f[i]->name) + strlen(text) + strlen(other) + strlen(mine) + 40;
        char *line = ddb_arena_alloc(a, ln);
        if (!line)
            return ddbi_fail_oom(err, __func__);
        snprintf(line, ln, "%s.%s = \"%s\": items %s and %s", c->e->name, c->f[i]->name, text, other, mine);
        *dup = line;
    }
    return DDB_OK;
}

/* The stored item whose owner text is owner ("<pk>|<sk>": each "|" is
 * tried as the separator); NULL when none is there. */
static int owner_item(const ddbi_ent_claims *c, ddb *db, const char *owner, ddb_arena *a, ddb_item **out,
                      ddb_error *err)
{
    const ddb_table_def *td = &c->e->table->def;
    *out = NULL;
    for (const char *bar = strchr(owner, '|'); bar; bar = strchr(bar + 1, '|')) {
        ddb_item *key = ddb_item_new(a);
        if (!key || ddb_item_set(key, td->key.pk, ddb_v_s(a, owner, (size_t)(bar - owner))))
            return ddbi_fail_oom(err, __func__);
        if (td->key.sk) {
            ddb_value *sk = NULL;
            if (td->key.sk_type == DDB_TS)
                sk = ddb_v_s(a, bar + 1, strlen(bar + 1));
            else if (td->key.sk_type == DDB_TN && ddb_v_n(a, bar + 1, &sk, NULL))
                sk = NULL;
            if (!sk || ddb_item_set(key, td->key.sk, sk))
                continue; /* a binary sort key: not found by its text */
        } else if (bar[1]) {
            continue;
        }
        int rc = ddb_get_item(db, td->name, key, &(ddb_get_opts){.consistent = true}, a, out, NULL, err);
        if (rc == DDB_ENOTFOUND)
            rc = DDB_OK;
        if (rc || *out)
            return rc;
    }
    return DDB_OK;
}

int ddbi_ent_claim_takeover(const ddbi_ent_claims *c, ddb *db, const ddb_item *holder, const ddbi_ent_claim_op *op,
                            ddb_tx_op *put, ddb_arena *a, bool *taken, ddb_error *err)
{
    *taken = false;
    const ddb_value *o = holder ? ddb_item_get(holder, "owner") : NULL;
    if (!o || o->type != DDB_TS || op->check)
        return DDB_OK;
    ddb_item *it = NULL;
    const ddb_value *v;
    int rc = owner_item(c, db, o->u.s, a, &it, err);
    const char *text = it ? held(op->f, it, a, &v) : NULL;
    if (rc || (text && !strcmp(text, op->value)))
        return rc; /* the holder holds the value: a duplicate */
    ddb_item *vals = ddb_item_copy(a, put->values);
    if (!vals || ddb_item_set(vals, ":old", ddb_value_copy(a, o)))
        return ddbi_fail_oom(err, __func__);
    put->condition = c->take_cond;
    put->values = vals;
    *taken = true;
    return DDB_OK;
}

int ddbi_ent_claims_held(const ddbi_ent_claims *c, ddb *db, const ddb_item *it, ddb_arena *a, size_t *values,
                         size_t *owned, double *capacity, ddb_error *err)
{
    const ddb_table_def *td = &c->e->table->def;
    *values = *owned = 0;
    const char *owner = c->n ? ddbi_ent_unique_owner(td, it, a) : NULL;
    for (size_t i = 0; i < c->n; i++) {
        const ddb_value *v;
        const char *text;
        ddb_item *u, *key = ddb_item_new(a), *there = NULL;
        int rc = claim_of(c, i, it, owner, a, &text, &v, &u, err);
        if (rc)
            return rc;
        if (!u)
            continue;
        (*values)++;
        const ddb_value *pk = ddb_item_get(u, td->key.pk), *sk = td->key.sk ? ddb_item_get(u, td->key.sk) : NULL;
        if (!key || ddb_item_set(key, td->key.pk, ddb_value_copy(a, pk)) ||
            (sk && ddb_item_set(key, td->key.sk, ddb_value_copy(a, sk))))
            return ddbi_fail_oom(err, __func__);
        ddb_capacity cap = {0};
        rc = ddb_get_item(db, td->name, key, &(ddb_get_opts){.consistent = true, .return_capacity = DDB_CAPACITY_TOTAL},
                          a, &there, &cap, err);
        *capacity += cap.total;
        if (rc && rc != DDB_ENOTFOUND)
            return rc;
        const ddb_value *o = there ? ddb_item_get(there, "owner") : NULL;
        *owned += o && o->type == DDB_TS && o->len == strlen(owner) && !memcmp(o->u.s, owner, o->len);
    }
    return DDB_OK;
}
