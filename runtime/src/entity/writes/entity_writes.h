/* entity/writes/: entity writes (internal; room header of the typed layer that generated modules
 * call through <ddb/entity.h>, table-driven by entity descriptors).  It holds put, create, delete,
 * struct-wide and declared updates, uniqueness items of DDB_UNIQUE fields.  It may call what
 * entity/core/ may call, entity/core/, entity/reads/ and entity/tx/; never engine/, streams/ or
 * remote/: both backends are reached through the ddb_* functions only.
 *
 * Files, one subject each:
 *   entity_declared.c  declared updates (ddbgen's DDB_UPDATE)
 *   entity_unique.c    uniqueness items of DDB_UNIQUE fields
 *   entity_update.c    partial update
 *   entity_write.c     put, create, get, delete
 */
#ifndef DDB_ENTITY_WRITES_H
#define DDB_ENTITY_WRITES_H

#include "entity/tx/entity_tx.h"

/* ---- entity_write.c ---- */

/* Is attr one of the table's key attributes (an LSI's partition key is the
 * table's): fixed by the primary key, never SET or REMOVEd by an update. */
static inline bool ddbi_ent_table_key_attr(const ddb_entity_desc *e, const char *attr)
{
    const ddb_key_schema *ks = &e->table->def.key;
    return attr && (strcmp(attr, ks->pk) == 0 || (ks->sk && strcmp(attr, ks->sk) == 0));
}

/* The options of one operation as a transaction's conditional form. */
static inline ddb_ent_tx_cond ddbi_ent_cond_of(const ddb_ent_opts *o)
{
    ddb_ent_tx_cond c = {0};
    if (o) {
        c.condition = o->condition;
        c.current = o->current;
        c.current_found = o->current_found;
        c.current_arena = o->current_arena;
    }
    return c;
}
/* Add to tx the put (create: fails when it exists) of obj: every shard
 * item, the uniqueness items (old: the stored entity when known, for a put
 * that changes a unique value), the ids drawn inside tx. */
int ddbi_ent_add_put(ddb_ent_tx *tx, const ddb_entity_desc *e, void *obj, bool create, const ddb_ent_tx_cond *c,
                     const void *old, ddb_error *err);
/* How a struct-wide update treats the stored item (entity_update.c). */
typedef enum ddbi_upd_mode {
    DDBI_UPD_FIELDS = 1, /* the masked fields of an existing item */
    DDBI_UPD_PATCH,      /* every writable field of an existing item */
    DDBI_UPD_UPSERT,     /* create or update; create-only fields only when absent; absent fields untouched */
    DDBI_UPD_PUT         /* replace, keeping created-at and create-only fields */
} ddbi_upd_mode;

/* ---- entity_update.c ---- */

/* Add to tx the UpdateItem(s) of obj (one per shard touched). */
int ddbi_ent_add_update(ddb_ent_tx *tx, const ddb_entity_desc *e, void *obj, const ddb_ent_mask *mask,
                        ddbi_upd_mode mode, const ddb_ent_tx_cond *c, const void *old, ddb_error *err);
/* An update run alone (ddbi_ent_single) whose result goes to out (may be
 * NULL; zeroed first): an unsharded entity's build fills out from the
 * UpdateItem (ALL_NEW); a sharded entity's build is given no out, and the
 * whole item with key's primary key is read back after with a consistent
 * get (its capacity merged into cap; deleted since: out stays zeroed)
 * (entity_update.c). */
int ddbi_ent_single_out(ddb *db, const ddb_entity_desc *e, const void *key, const ddb_ent_opts *o, void *out,
                        ddb_arena *a, ddb_capacity *cap, ddbi_ent_build_fn build, void *ctx, ddb_error *err);
/* Add to tx the UpdateItems of n declared updates (ddb_ent_update_expr: one
 * per shard item) of the item with key's primary key, with the nc
 * conditions c[] each on its shard item (ANDed into that item's update, or
 * a ConditionCheck when none of them writes it); out (may be NULL, zeroed
 * by the caller; unsharded entities) gets the ALL_NEW of a lone UpdateItem
 * (entity_update.c). */
int ddbi_ent_add_declared(ddb_ent_tx *tx, const ddb_entity_desc *e, const void *key, const ddb_ent_update_expr *u,
                          size_t n, const ddb_ent_tx_cond *c, size_t nc, void *out, ddb_arena *out_arena,
                          ddb_error *err);

/* ---- entity_unique.c ---- */

/* Add to tx what moves e's unique values (those in only; NULL = all) from
 * old (the stored entity, NULL = none) to obj (NULL = deleted): a claim of
 * each new value, the release of each old one.  Text lives in a. */
int ddbi_ent_unique_sync(ddb_ent_tx *tx, ddb_arena *a, const ddb_entity_desc *e, const void *obj, const void *old,
                         const ddb_ent_mask *only, ddb_error *err);
/* Has e a unique field (among only; NULL = all)? */
bool ddbi_ent_has_unique(const ddb_entity_desc *e, const ddb_ent_mask *only);
/* A unique value's text (S, N; B as hex; NULL when out of memory), the
 * owner text "<pk>|<sk>" of key k, and the uniqueness item of e's field f
 * holding text, owned by owner (entity_unique.c). */
const char *ddbi_ent_unique_text(ddb_arena *a, const ddb_value *v);
const char *ddbi_ent_unique_owner(const ddb_table_def *t, const ddb_item *k, ddb_arena *a);
int ddbi_ent_unique_item(const ddb_entity_desc *e, const ddb_field_desc *f, const char *text, const char *owner,
                         ddb_arena *a, ddb_item **out, ddb_error *err);

#endif
