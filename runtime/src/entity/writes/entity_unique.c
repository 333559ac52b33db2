/* Entity room: uniqueness items of DDB_UNIQUE fields.  Each value a unique
 * field holds is claimed by an item of its own key space (docs/SCHEMA.md,
 * "Unique fields"):
 *     <pk attr> = "UNIQUE#<entity>#<attribute>#<value>"
 *     <sk attr> = "UNIQUE"                    (tables with a sort key)
 *     <type attr> = "ddb:unique", "owner" = "<pk>|<sk>" of the entity
 * put with attribute_not_exists(<pk attr>) in the same transaction as the
 * write that sets the value, and deleted in the one that changes or clears
 * it.  A duplicate cancels the transaction: DDB_ECONDITION naming the field
 * and the value.  Calls the public item API and this room's transactions,
 * marshalling and keys. */
#include "entity/writes/entity_writes.h"

#include "core/error.h"

#include <stdio.h>
#include <string.h>

#define UNIQUE_TYPE "ddb:unique"

/* The text of a scalar value (S, N; B as hex); NULL when out of memory. */
const char *ddbi_ent_unique_text(ddb_arena *a, const ddb_value *v)
{
    if (v->type == DDB_TS || v->type == DDB_TN)
        return v->u.s;
    char *s = ddb_arena_alloc(a, 2 * (size_t)v->len + 1);
    for (uint32_t i = 0; s && i < v->len; i++)
        snprintf(s + 2 * i, 3, "%02x", v->u.b[i]);
    if (s)
        s[2 * (size_t)v->len] = '\0';
    return s;
}

/* The key of the uniqueness item of e's field f holding text. */
static int unique_key(const ddb_entity_desc *e, const ddb_field_desc *f, const char *text, ddb_arena *a,
                      ddb_item **out, ddb_error *err)
{
    const ddb_table_def *t = &e->table->def;
    if (t->key.pk_type != DDB_TS)
        return ddbi_fail(err, DDB_EVALIDATION, "%s.%s is unique, but table %s's partition key is not a string",
                         e->name, f->name, t->name);
    size_t n = strlen(e->name) + strlen(f->attr) + strlen(text) + 16;
    char *pk = ddb_arena_alloc(a, n);
    ddb_item *k = ddb_item_new(a);
    if (!pk || !k)
        return ddbi_fail_oom(err, __func__);
    snprintf(pk, n, "UNIQUE#%s#%s#%s", e->name, f->attr, text);
    if (ddb_item_set_s(k, t->key.pk, pk) || (t->key.sk && ddb_item_set_s(k, t->key.sk, "UNIQUE")))
        return ddbi_fail_oom(err, __func__);
    *out = k;
    return DDB_OK;
}

/* The value of unique field f in obj as text; NULL when unset. */
static int field_text(const ddb_field_desc *f, const void *obj, ddb_arena *a, const char **out, ddb_error *err)
{
    *out = NULL;
    ddb_value *v = NULL;
    int rc = ddbi_ent_field_value(f, (const char *)obj + f->offset, a, &v, err);
    if (rc || !v)
        return rc;
    if (v->type != DDB_TS && v->type != DDB_TN && v->type != DDB_TB)
        return ddbi_fail(err, DDB_EVALIDATION, "unique field %s must be a string, number or bytes", f->name);
    if (v->type == DDB_TS && v->len == 0)
        return DDB_OK; /* "" is unset */
    return (*out = ddbi_ent_unique_text(a, v)) ? DDB_OK : ddbi_fail_oom(err, __func__);
}

const char *ddbi_ent_unique_owner(const ddb_table_def *t, const ddb_item *k, ddb_arena *a)
{
    const ddb_value *pk = ddb_item_get(k, t->key.pk), *sk = t->key.sk ? ddb_item_get(k, t->key.sk) : NULL;
    const char *ps = pk ? ddbi_ent_unique_text(a, pk) : NULL, *ss = sk ? ddbi_ent_unique_text(a, sk) : "";
    size_t n = (ps ? strlen(ps) : 0) + (ss ? strlen(ss) : 0) + 2;
    char *s = ps && ss ? ddb_arena_alloc(a, n) : NULL;
    if (s)
        snprintf(s, n, "%s|%s", ps, ss);
    return s;
}

/* "<pk>|<sk>" of obj's primary key. */
static int owner_of(const ddb_entity_desc *e, const void *obj, ddb_arena *a, const char **out, ddb_error *err)
{
    ddb_item *k = NULL;
    int rc = ddbi_ent_primary_key(e, obj, -1, a, &k, err);
    if (rc)
        return rc;
    return (*out = ddbi_ent_unique_owner(&e->table->def, k, a)) ? DDB_OK : ddbi_fail_oom(err, __func__);
}

int ddbi_ent_unique_item(const ddb_entity_desc *e, const ddb_field_desc *f, const char *text, const char *owner,
                         ddb_arena *a, ddb_item **out, ddb_error *err)
{
    int rc = unique_key(e, f, text, a, out, err);
    if (!rc && (ddb_item_set_s(*out, e->table->type_attr, UNIQUE_TYPE) || ddb_item_set_s(*out, "owner", owner)))
        rc = ddbi_fail_oom(err, __func__);
    return rc;
}

int ddbi_ent_unique_sync(ddb_ent_tx *tx, ddb_arena *a, const ddb_entity_desc *e, const void *obj, const void *old,
                         const ddb_ent_mask *only, ddb_error *err)
{
    int rc = DDB_OK;
    for (uint16_t i = 0; !rc && i < e->st->n_fields; i++) {
        const ddb_field_desc *f = &e->st->fields[i];
        if (!(f->flags & DDB_FIELD_UNIQUE) || (only && !ddb_ent_mask_has(only, i)))
            continue;
        const char *nv = NULL, *ov = NULL;
        if ((obj && (rc = field_text(f, obj, a, &nv, err))) || (old && (rc = field_text(f, old, a, &ov, err))))
            break;
        if (nv && ov && strcmp(nv, ov) == 0)
            continue; /* unchanged: its item stays */
        const char *owner = NULL;
        ddb_item *k = NULL;
        if (ov && !(rc = unique_key(e, f, ov, a, &k, err))) {
            ddb_tx_op op = {.kind = DDB_TX_DELETE, .table = e->table->def.name, .item = k};
            rc = ddbi_ent_tx_add(tx, &op, &(ddbi_ent_opinfo){.e = e, .role = DDBI_OP_RELEASE, .uf = f, .uval = ov},
                                 err);
        }
        if (rc || !nv)
            continue;
        ddbi_exprb *x = NULL;
        const ddb_expr *cond = NULL;
        if ((rc = owner_of(e, obj, a, &owner, err)) || (rc = ddbi_ent_unique_item(e, f, nv, owner, a, &k, err)) ||
            (rc = ddbi_ent_tx_exprb(tx, &x, err)))
            break;
        const char *n = ddbi_exprb_name(x, e->table->def.key.pk);
        if (!n || ddbi_exprb_put(x, "attribute_not_exists(") || ddbi_exprb_put(x, n) || ddbi_exprb_put(x, ")"))
            return ddbi_fail_oom(err, __func__);
        if ((rc = ddbi_exprb_prepare(x, DDB_EXPR_CONDITION, &cond, err)))
            break;
        ddb_tx_op op = {.kind = DDB_TX_PUT, .table = e->table->def.name, .item = k, .condition = cond};
        rc = ddbi_ent_tx_add(tx, &op, &(ddbi_ent_opinfo){.e = e, .role = DDBI_OP_UNIQUE, .uf = f, .uval = nv}, err);
    }
    return rc;
}

bool ddbi_ent_has_unique(const ddb_entity_desc *e, const ddb_ent_mask *only)
{
    for (uint16_t i = 0; i < e->st->n_fields; i++)
        if ((e->st->fields[i].flags & DDB_FIELD_UNIQUE) && (!only || ddb_ent_mask_has(only, i)))
            return true;
    return false;
}
