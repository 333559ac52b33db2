/* The entity room (internal): the typed layer generated modules call
 * (<ddb/entity.h>), table-driven by entity descriptors.
 *
 * What it may call: the public API (<ddb/ddb.h>, <ddb/expr.h>,
 * <ddb/entity.h>), the handle's prepared-expression cache (api/expr_cache.h),
 * the reads handing over stored records (api/records.h) and core/ (errors, values, numbers, the item codec behind cursors).  It
 * never includes engine/, streams/ or remote/: both backends are reached
 * through the ddb_* functions only.
 *
 * Files, one subject each:
 *   entity_error.c       messages adding context to a callee's reason
 *   entity_field.c       C fields: integers by width, floats, char[N]
 *   entity_template.c    key templates rendered from a struct; derived fields
 *   entity_wshard.c      write-sharded partition keys: the shard suffix
 *   entity_scatter.c     scatter-gather reads over write shards
 *   entity_marshal.c     struct -> item
 *   entity_unmarshal.c   item -> struct
 *   entity_record.c      stored record -> struct (typed reads, no ddb_item between)
 *   entity_plan.c        a descriptor's read plan (names in stored order), built once
 *   entity_keys.c        descriptor checks, primary keys, shard items
 *   entity_exprb.c       expression text built piece by piece, prepared once
 *   entity_capacity.c    consumed capacity summed over several requests
 *   entity_ids.c         ids filled by create (UUIDs, counters)
 *   entity_mask.c        field masks
 *   entity_stamps.c      defaults, created-at and updated-at filled by writes
 *   entity_unique.c      uniqueness items of DDB_UNIQUE fields
 *   entity_write.c       put, create, get, delete
 *   entity_update.c      partial update
 *   entity_query.c       query pages (the ddb_ent_query interface, on top of entity_read.c)
 *   entity_skcond.c      sort-key conditions by level of the key template
 *   entity_project.c     field masks as projections; filters with their names and values
 *   entity_reader.c      pages of items into entity structs (types, shard groups, index entries)
 *   entity_read.c        typed reads: query by access pattern, scan, get with read options
 *   entity_collection.c  collection pages, their iterator, table scans grouped by type
 *   entity_declared.c    declared updates (ddbgen's DDB_UPDATE)
 *   entity_stamp.c       DDB_CREATED_AT / DDB_UPDATED_AT time stamps
 *   entity_cursor.c      cursors (LastEvaluatedKey as text)
 *   entity_pages.c       the page loop of the generated iterators (ddb_ent_pages)
 *   entity_tx.c          transactions across entities; every write's operations run through it
 *   entity_batch.c       batch get
 *   entity_batch_write.c batch puts and deletes, mixing entities
 *   entity_fingerprint.c what stored items depend on, and its comparison
 *   entity_table.c       create and open a module's table
 *   entity_backfill.c    index keys written into stored items (when asked)
 *   entity_migrate.c     migrations: every stored item of an entity rewritten in its new form
 *   entity_migrate_item.c  one stored item in its new form
 *   entity_migrate_checkpoint.c  where a migration is, stored with the table
 *   entity_stream.c      stream records decoded into entity structs
 */
#ifndef DDB_ENTITY_INTERNAL_H
#define DDB_ENTITY_INTERNAL_H

#include <ddb/ddb.h>
#include <ddb/entity.h>
#include <ddb/expr.h>
#include <string.h>

#include "api/records.h"
#include "core/codec.h"
#include "core/value.h"

/* ---- errors (entity_error.c) ---- */

/* Fail with code and the message "<fmt>: <the reason already in err>", for
 * a callee's failure seen from the caller's side (err may be NULL). */
int ddbi_ent_fail_within(ddb_error *err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* ---- C fields (entity_field.c) ---- */

/* The integer field f (DDB_F_INT / DDB_F_UINT, f->size 1, 2, 4 or 8 bytes) at
 * p: get widens it to 64 bits (sign-extended for DDB_F_INT, zero-extended
 * for DDB_F_UINT; an 8-byte unsigned value comes back as its bit pattern,
 * cast it to uint64_t), set stores the low f->size bytes of v. */
int64_t ddbi_ent_int_get(const ddb_field_desc *f, const void *p);
void ddbi_ent_int_set(const ddb_field_desc *f, void *p, int64_t v);
/* The float field f (f->size 4 or 8) at p. */
double ddbi_ent_float_get(const ddb_field_desc *f, const void *p);
/* The length of the char[N] field f at p; DDB_EVALIDATION when it is not
 * NUL-terminated within its N bytes. */
int ddbi_ent_chars_len(const ddb_field_desc *f, const char *p, size_t *len, ddb_error *err);
/* Must an item carry f's attribute (its C type cannot say "absent")? */
bool ddbi_ent_field_required(const ddb_field_desc *f);
/* The first field of e carrying flag (DDB_FIELD_*), or NULL. */
const ddb_field_desc *ddbi_ent_flagged(const ddb_entity_desc *e, unsigned flag);

/* ---- key templates and derived fields (entity_template.c) ---- */

/* Text rendered from templates: in the caller's buffer (buf, cap bytes)
 * while it fits, then on the heap (ddbi_ent_text_free); p[len] is '\0'. */
typedef struct ddbi_ent_text {
    char *p;
    size_t len, cap;
    bool heap; /* p is malloc'ed */
} ddbi_ent_text;
void ddbi_ent_text_init(ddbi_ent_text *t, char *buf, size_t cap);
/* Append s[0..n): DDB_ENOMEM when the heap has no room. */
int ddbi_ent_text_put(ddbi_ent_text *t, const char *s, size_t n);
void ddbi_ent_text_free(ddbi_ent_text *t);
/* Render the first max_holes holes of t (and, with through_literal, the
 * literal that follows them) onto b.  *absent when an optional field is unset. */
int ddbi_ent_render_prefix(const ddb_entity_desc *e, const ddb_template *t, const void *obj, uint16_t max_holes,
                           bool through_literal, ddbi_ent_text *b, bool *absent, ddb_error *err);
/* Could v have been rendered from t (literals match themselves, holes
 * any text; a numeric template any N)? */
bool ddbi_ent_template_fits(const ddb_template *t, const ddb_value *v);
/* ddb_ent_render without a write shard suffix. */
int ddbi_ent_render_plain(const ddb_entity_desc *e, const ddb_template *t, const void *obj, ddb_arena *a,
                          ddb_value **out, ddb_error *err);
/* The text hole s renders field f (at p) to, before filters (*absent: an
 * unset optional field); numbers are printed into buf. */
int ddbi_ent_hole_text(const ddb_field_desc *f, const char *p, const ddb_tseg *s, char *buf, size_t cap,
                       const char **text, size_t *len, bool *absent, ddb_error *err);
/* fit[i * (n + 1) + p]: does t[p..n) fit segs[i..nseg)?  (malloc'd; NULL when out of memory) */
bool *ddbi_ent_fit_table(const ddb_tseg *segs, uint16_t nseg, const char *t, size_t n);
/* Zero field f at p: the state of a field a read has not set (a list's
 * count, at its own offset, is the caller's). */
void ddbi_ent_clear_field(const ddb_field_desc *f, void *p);
/* Clear the fields of obj that mask has and keep (NULL = keep all) has
 * not, and their bits: a result cut to its projection (the primary key's
 * fields stay: keys are always read). */
void ddbi_ent_mask_trim(const ddb_entity_desc *e, void *obj, ddb_ent_mask *mask, const ddb_ent_mask *keep);
/* Parse key value v (its first len bytes: without a shard suffix), rendered
 * from t, back into the fields of obj whose bit mask does not have, and set
 * their bits (entity_keyparse.c): plain string, number and bool holes whose
 * text is placed by the template's literals or the fixed width of date
 * parts and reads back unchanged; a field seen only as date parts when
 * they determine it (char[N] of "YYYY", "YYYY-MM", "YYYY-MM-DD"); case
 * filters ({s|upper}) and nested paths are skipped. */
void ddbi_ent_parse_key(const ddb_entity_desc *e, const ddb_template *t, const ddb_value *v, size_t len, void *obj,
                        ddb_arena *a, ddb_ent_mask *mask);
/* The same over every key attribute item it holds of e's keys (an index
 * entry: the table's keys and the index's), date parts collected across
 * them. */
void ddbi_ent_fields_from_keys(const ddb_entity_desc *e, const ddb_item *it, void *obj, ddb_arena *a,
                               ddb_ent_mask *mask);
/* The number of holes (fields) of t. */
uint16_t ddbi_ent_holes(const ddb_template *t);
/* Does t read a top-level field i with changed[i] set? */
bool ddbi_ent_template_uses(const ddb_template *t, const ddb_ent_mask *changed);
/* Compute every derived field of obj in place. */
int ddbi_ent_fill_derived(const ddb_entity_desc *e, void *obj, ddb_arena *a, ddb_error *err);

/* ---- struct -> item (entity_marshal.c) ---- */

/* The item of one shard (shard >= 0) or the whole entity (-1). */
int ddbi_ent_item_part(const ddb_entity_desc *e, const void *obj, int shard, ddb_arena *a, ddb_item **out,
                       ddb_error *err);
int ddbi_ent_field_value(const ddb_field_desc *f, const char *p, ddb_arena *a, ddb_value **out, ddb_error *err);

/* ---- item -> struct (entity_unmarshal.c) ---- */

int ddbi_ent_field_from(const ddb_field_desc *f, const ddb_value *v, char *p, ddb_arena *a, ddb_error *err);
int ddbi_ent_check_type(const ddb_entity_desc *e, const ddb_item *item, ddb_error *err);
/* from_item without zeroing obj first; partial: missing required attributes
 * are not errors.  mask (may be NULL) gains the fields the item set. */
int ddbi_ent_from_item_partial(const ddb_entity_desc *e, const ddb_item *item, void *obj, ddb_arena *a, bool partial,
                               ddb_ent_mask *mask, ddb_error *err);
/* The attributes of item into e's fields of obj (not zeroed; no type
 * check: the caller told the type; missing attributes are no error).
 * borrow: item lives in arena a; top-level strings and bytes point into it. */
int ddbi_ent_fields_from_item(const ddb_entity_desc *e, const ddb_item *item, void *obj, ddb_arena *a, bool borrow,
                              ddb_ent_mask *mask, ddb_error *err);
/* The fields of item into obj in one walk of both sorted lists (order: e's
 * field indexes by attribute name, ddbi_ent_plan's; borrowing like
 * fields_from_item; mask gains the fields set). */
int ddbi_ent_fields_by_order(const ddb_entity_desc *e, const uint16_t *order, const ddb_item *item, void *obj,
                             ddb_arena *a, ddb_ent_mask *mask, ddb_error *err);
/* DDB_EVALIDATION naming the first required field of e not in mask. */
int ddbi_ent_check_required(const ddb_entity_desc *e, const ddb_ent_mask *mask, ddb_error *err);

/* ---- descriptor checks, primary keys, shard items (entity_keys.c) ---- */

/* DDB_ELIMIT naming the entity, its shard count and DDB_ENT_MAX_SHARDS when
 * e has more shards than that; DDB_EINVAL when a field or key names a shard
 * e does not have.  Every operation checks it before it looks at a shard,
 * so arrays of DDB_ENT_MAX_SHARDS entries indexed by shard always suffice. */
int ddbi_ent_check_shards(const ddb_entity_desc *e, ddb_error *err);
/* Is attr one of the table's key attributes (an LSI's partition key is the
 * table's): fixed by the primary key, never SET or REMOVEd by an update. */
static inline bool ddbi_ent_table_key_attr(const ddb_entity_desc *e, const char *attr)
{
    const ddb_key_schema *ks = &e->table->def.key;
    return attr && (strcmp(attr, ks->pk) == 0 || (ks->sk && strcmp(attr, ks->sk) == 0));
}
/* The number of physical items of one entity: its shards, or 1. */
int ddbi_ent_parts(const ddb_entity_desc *e);
/* The shard whose item carries field f (unsharded entity: 0). */
int ddbi_ent_field_part(const ddb_entity_desc *e, const ddb_field_desc *f);
/* The separator between a sort key and a shard id ("#" unless set). */
const char *ddbi_ent_shard_suffix(const ddb_entity_desc *e);
/* The sort key of shard item `shard`: sk + suffix + shard id. */
int ddbi_ent_shard_sk(const ddb_entity_desc *e, const ddb_value *sk, int shard, ddb_arena *a, ddb_value **out,
                      ddb_error *err);
/* A primary key as an item held by the caller (on its stack): the item,
 * its attributes and values, and their text while it fits. */
#define DDBI_ENT_KEY_TEXT 128
typedef struct ddbi_ent_key {
    struct ddb_item item;
    ddb_attr attrs[2];
    ddb_value vals[2];
    char text[2][DDBI_ENT_KEY_TEXT];
} ddbi_ent_key;
/* The table key of obj into out (shard >= 0: that shard's physical item);
 * &out->item is the key, valid while out is (longer text and shard keys go
 * into a). */
int ddbi_ent_key_fill(const ddb_entity_desc *e, const void *obj, int shard, ddb_arena *a, ddbi_ent_key *out,
                      ddb_error *err);
/* The same in a: *out is the key. */
int ddbi_ent_primary_key(const ddb_entity_desc *e, const void *obj, int shard, ddb_arena *a, ddb_item **out,
                         ddb_error *err);
/* Query the shard items of the logical item whose (unsharded) key is key. */
int ddbi_ent_read_shards(ddb *db, const ddb_entity_desc *e, const ddb_item *key, ddb_arena *a, bool consistent,
                         ddb_return_capacity mode, ddb_page *pg, ddb_error *err);
/* *out: the n shard items of one logical item merged into one item. */
int ddbi_ent_merge_shards(ddb_arena *a, ddb_item *const *items, size_t n, ddb_item **out, ddb_error *err);
/* The shard items of the logical item with table key `key` (sort key
 * without a shard suffix) whose shards bits `want` names (bit s = shard s),
 * with projection (may be NULL): one Query when want is every shard, else
 * one GetItem each (absent ones are left out).  pg: the items in shard
 * order, their capacity summed; no last_key. */
int ddbi_ent_read_some_shards(ddb *db, const ddb_entity_desc *e, const ddb_item *key, uint64_t want,
                              const ddb_expr *projection, ddb_arena *a, bool consistent, ddb_return_capacity mode,
                              ddb_page *pg, ddb_error *err);
/* Every shard of e as bits (bit s = shard s). */
uint64_t ddbi_ent_all_shards(const ddb_entity_desc *e);
/* The shard a shard item it is (*shard: its index in e->shards; -1 when its
 * table sort key ends in no shard id of e), and the table key of its
 * logical item (the sort key without suffix and id) into *key (may be NULL). */
int ddbi_ent_shard_of(const ddb_entity_desc *e, const ddb_item *it, ddb_arena *a, int *shard, ddb_item **key,
                      ddb_error *err);
/* A sharded entity found through a secondary index: the index holds the
 * shard item carrying that key; *out is the whole item, read from all its
 * shards in the table (o and cap may be NULL). */
int ddbi_ent_reassemble(ddb *db, const ddb_entity_desc *e, const ddb_item *shard_item, ddb_arena *a,
                        const ddb_ent_opts *o, ddb_capacity *cap, ddb_item **out, ddb_error *err);

/* ---- expression text (entity_exprb.c) ---- */

/* Expression text with its names and values, built up piece by piece, then
 * prepared through the handle's cache. */
typedef struct ddbi_exprb {
    ddb *db;
    ddb_expr *owned[4]; /* prepared outside the handle's cache (it was full) */
    int nowned;
    ddb_arena *a;
    ddb_buf text;
    ddb_item *names, *values;
    int n;
} ddbi_exprb;

/* DDB_ENOMEM (and err filled) when the name and value maps cannot be made. */
int ddbi_exprb_init(ddbi_exprb *x, ddb *db, ddb_arena *a, ddb_error *err);
/* A new "#nK" name for attr, or ":vK" value for v; NULL when out of memory. */
const char *ddbi_exprb_name(ddbi_exprb *x, const char *attr);
const char *ddbi_exprb_value(ddbi_exprb *x, ddb_value *v);
/* Append s to the text; DDB_ENOMEM (err not filled) when out of memory. */
int ddbi_exprb_put(ddbi_exprb *x, const char *s);
/* The values map to send: NULL when the expressions use none. */
const ddb_item *ddbi_exprb_values(const ddbi_exprb *x);
/* The text built so far as a prepared expression (NULL when empty): each
 * distinct text is parsed once per handle. */
int ddbi_exprb_prepare(ddbi_exprb *x, ddb_expr_kind kind, const ddb_expr **out, ddb_error *err);
/* Free what prepare made outside the cache, and the text. */
void ddbi_exprb_done(ddbi_exprb *x);

/* ---- consumed capacity (entity_capacity.c) ---- */

/* Add src to dst (dst may be NULL), index by index. */
void ddbi_ent_cap_merge(ddb_capacity *dst, const ddb_capacity *src);
/* A ddb_capacity is 7 KB, nearly all of it the per-index array, which is
 * read only up to n_indexes: clear zeroes the totals and n_indexes (an
 * empty capacity to merge into); copy copies what is in use. */
void ddbi_ent_cap_clear(ddb_capacity *c);
void ddbi_ent_cap_copy(ddb_capacity *dst, const ddb_capacity *src);
/* The capacity mode of o (NULL: none). */
ddb_return_capacity ddbi_ent_cap_mode(const ddb_ent_opts *o);

/* ---- writes (entity_ids.c, entity_write.c, entity_update.c) ---- */

/* create: fill obj's empty DDB_FIELD_UUID fields. */
int ddbi_ent_fill_uuids(const ddb_entity_desc *e, void *obj, ddb_arena *a, ddb_error *err);
/* The next id of e's counter for obj's scope, drawn now (UpdateItem ADD:
 * a create alone, whose id is consumed even when the put fails). */
int ddbi_ent_next_id(ddb *db, const ddb_entity_desc *e, const void *obj, ddb_arena *a, int64_t *id, ddb_capacity *cap,
                     ddb_return_capacity mode, ddb_error *err);

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
/* The names map (names[i] -> S attrs[i]) and values map (each arg
 * marshalled like its field; field -1: the int64_t at obj) of a declared
 * expression, set into nm and vals (entity_cond.c); what names it in
 * messages. */
int ddbi_ent_bind(const ddb_entity_desc *e, const char *what, const char *const *names, const char *const *attrs,
                  uint16_t n_names, const ddb_ent_arg *args, size_t n_args, ddb_arena *a, ddb_item *nm,
                  ddb_item *vals, ddb_error *err);
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
/* Add to tx the UpdateItem(s) of obj (one per shard touched). */
int ddbi_ent_add_update(ddb_ent_tx *tx, const ddb_entity_desc *e, void *obj, const ddb_ent_mask *mask,
                        ddbi_upd_mode mode, const ddb_ent_tx_cond *c, const void *old, ddb_error *err);
/* The stored entity with obj's key (consistent), NULL when absent; in a. */
int ddbi_ent_read_old(ddb *db, const ddb_entity_desc *e, const void *key, ddb_arena *a, void **old, ddb_error *err);
/* Run the operations build adds to a fresh transaction as one call: a lone
 * operation as PutItem/UpdateItem/DeleteItem, else TransactWriteItems;
 * retried when an id counter raced. */
typedef int (*ddbi_ent_build_fn)(ddb_ent_tx *tx, ddb_arena *a, void *ctx, ddb_error *err);
int ddbi_ent_single(ddb *db, const ddb_ent_opts *o, ddb_capacity *cap, ddbi_ent_build_fn build, void *ctx,
                    ddb_error *err);
/* An update run alone (ddbi_ent_single) whose result goes to out (may be
 * NULL; zeroed first): an unsharded entity's build fills out from the
 * UpdateItem (ALL_NEW); a sharded entity's build is given no out, and the
 * whole item with key's primary key is read back after with a consistent
 * get (its capacity merged into cap; deleted since: out stays zeroed)
 * (entity_update.c). */
int ddbi_ent_single_out(ddb *db, const ddb_entity_desc *e, const void *key, const ddb_ent_opts *o, void *out,
                        ddb_arena *a, ddb_capacity *cap, ddbi_ent_build_fn build, void *ctx, ddb_error *err);

/* ---- defaults and timestamps (entity_stamps.c) ---- */

/* Is the field at p unset (0, "", NULL, false)? */
bool ddbi_ent_field_unset(const ddb_field_desc *f, const char *p);
/* The stored value of timestamp field f at now_ms (epoch ms or ISO-8601). */
int ddbi_ent_stamp_value(const ddb_field_desc *f, int64_t now_ms, ddb_arena *a, ddb_value **out, ddb_error *err);
/* f->dflt as a value of f's type. */
int ddbi_ent_default_value(const ddb_field_desc *f, ddb_arena *a, ddb_value **out, ddb_error *err);
/* entity_default_fill.c: *out is it with the DDB_DEFAULT of every field of e
 * whose attribute it lacks (a copy in a; it itself when none is missing);
 * filled (room for e's field count; may be NULL) lists those fields. */
int ddbi_ent_fill_defaults(const ddb_entity_desc *e, const ddb_item *it, ddb_arena *a, ddb_item **out,
                           const ddb_field_desc **filled, size_t *n_filled, ddb_error *err);
/* Fill updated-at and, with create, created-at and the defaults of unset fields. */
int ddbi_ent_fill_stamps(ddb *db, const ddb_entity_desc *e, void *obj, bool create, ddb_arena *a, ddb_error *err);
/* ms as "YYYY-MM-DDTHH:MM:SS.mmmZ" (entity_stamp.c); DDB_EINVAL outside years 0..9999. */
int ddbi_ent_iso8601(int64_t ms, char out[25]);

/* ---- operations of one request (entity_tx.c) ---- */

/* What an operation of a transaction is for: its failure's message. */
typedef enum ddbi_op_role {
    DDBI_OP_PUT = 1,  /* replace (version checked) */
    DDBI_OP_CREATE,   /* must not exist */
    DDBI_OP_UPDATE,   /* must exist */
    DDBI_OP_UPSERT,   /* may exist */
    DDBI_OP_DELETE,
    DDBI_OP_CHECK,
    DDBI_OP_PART,     /* another shard item of an entity write: no condition of its own */
    DDBI_OP_UNIQUE,   /* claims a unique value */
    DDBI_OP_RELEASE,  /* frees a unique value */
    DDBI_OP_COUNTER   /* an auto id counter */
} ddbi_op_role;

typedef struct ddbi_ent_opinfo {
    const ddb_entity_desc *e;
    ddbi_op_role role;
    const ddb_field_desc *vf; /* version field this op checks */
    int64_t expected;
    const ddb_field_desc *uf; /* DDBI_OP_UNIQUE: the field, its value as text */
    const char *uval;
    bool user_cond;           /* a caller's condition is part of it */
    void *current;            /* on a failed condition: the stored item decoded here */
    bool *current_found;
    ddb_arena *current_arena;
    void *out;                /* a lone UpdateItem of a single call: its ALL_NEW decoded here (not
                               * zeroed: the caller zeroes it), its data in out_arena */
    ddb_arena *out_arena;
} ddbi_ent_opinfo;

/* tx's handle and arena. */
ddb *ddbi_ent_tx_db(const ddb_ent_tx *tx);
ddb_arena *ddbi_ent_tx_arena(const ddb_ent_tx *tx);
/* A new expression builder of tx, for one operation. */
int ddbi_ent_tx_exprb(ddb_ent_tx *tx, ddbi_exprb **out, ddb_error *err);
/* Append op with what it is for. */
int ddbi_ent_tx_add(ddb_ent_tx *tx, const ddb_tx_op *op, const ddbi_ent_opinfo *info, ddb_error *err);
/* On success set field f of obj to v (version bumps, written back only then). */
int ddbi_ent_tx_on_commit(ddb_ent_tx *tx, const ddb_field_desc *f, void *obj, int64_t v, ddb_error *err);
/* Fill obj's zero DDB_FIELD_AUTO_ID fields from their counters inside tx:
 * the counter is read now and its update joins the transaction (a
 * cancelled one consumes no id; the fields are zeroed again). */
int ddbi_ent_tx_auto_ids(ddb_ent_tx *tx, const ddb_entity_desc *e, void *obj, ddb_error *err);
/* A single call's transaction: ids are drawn at once (ddbi_ent_next_id),
 * not inside it, so that a create needs no transaction (backends without
 * TransactWriteItems, one request less). */
void ddbi_ent_tx_ids_now(ddb_ent_tx *tx, ddb_return_capacity mode);
/* Mark tx as failed (an add went wrong): commit refuses it. */
void ddbi_ent_tx_poison(ddb_ent_tx *tx);
/* Run tx.  single: it is one entity call (put, update...): a lone
 * operation goes out as PutItem/UpdateItem/DeleteItem, a cancellation
 * becomes the failed operation's DDB_ECONDITION (or DDB_ENOTFOUND), and
 * counter races are retried by the caller (DDB_EAGAIN_INTERNAL). */
int ddbi_ent_tx_run(ddb_ent_tx *tx, bool single, const char *token, ddb_return_capacity mode, ddb_capacity *cap,
                    ddb_error *err);
/* Another transaction allocated the same counter value: rebuild and retry. */
#define DDBI_ECOUNTER 1
/* Merge a caller's condition into x (text "(<text>)", its names and
 * values); DDB_EINVAL when it uses a runtime placeholder. */
int ddbi_exprb_merge(ddbi_exprb *x, const ddb_ent_expr *c, ddb_error *err);
/* Add to tx a ConditionCheck on key's item (the shard of c's condition):
 * the item exists (exists 1), does not (0) or either (-1), ANDed with c's
 * condition; role names it in a failure's message (entity_check.c). */
int ddbi_ent_add_check(ddb_ent_tx *tx, const ddb_entity_desc *e, const void *key, int exists,
                       const ddb_ent_tx_cond *c, ddbi_op_role role, ddb_error *err);
/* Add to tx the UpdateItems of n declared updates (ddb_ent_update_expr: one
 * per shard item) of the item with key's primary key, with the nc
 * conditions c[] each on its shard item (ANDed into that item's update, or
 * a ConditionCheck when none of them writes it); out (may be NULL, zeroed
 * by the caller; unsharded entities) gets the ALL_NEW of a lone UpdateItem
 * (entity_update.c). */
int ddbi_ent_add_declared(ddb_ent_tx *tx, const ddb_entity_desc *e, const void *key, const ddb_ent_update_expr *u,
                          size_t n, const ddb_ent_tx_cond *c, size_t nc, void *out, ddb_arena *out_arena,
                          ddb_error *err);

/* ---- uniqueness items (entity_unique.c) ---- */

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

/* ---- typed reads (entity_skcond.c, entity_project.c, entity_reader.c) ---- */

/* Query's sort-key condition (sk_op, sk1, sk2) of kc on e->keys[kc->key]. */
int ddbi_ent_sk_condition(const ddb_entity_desc *e, const ddb_ent_key_cond *kc, ddb_arena *a, ddb_query_params *qp,
                          ddb_error *err);
/* The segment index of the nth (1-based) hole of t; DDB_EVALIDATION when t has fewer. */
int ddbi_ent_level_of_hole(const ddb_template *t, uint16_t nth, uint16_t *level);

/* What a read asks for besides its key condition: a projection (o->fields,
 * or only the keys for count_only), the filter (o's, and with type_filter
 * the type attribute equal to e's name). */
typedef struct ddbi_ent_ask {
    const ddb_expr *projection, *filter;
    const ddb_item *values;
    ddbi_exprb xp, xf;
} ddbi_ent_ask;
typedef struct ddbi_ent_sink ddbi_ent_sink;
/* e: the entity read (its name in messages, its type for type_filter);
 * sinks[0..n): the types kept, each with its projection (sinks[i].fields):
 * a projection is asked for when every one has one (or count_only). */
int ddbi_ent_ask_init(ddbi_ent_ask *q, ddb *db, const ddb_entity_desc *e, const ddbi_ent_sink *sinks, uint16_t n,
                      const char *index, const ddb_ent_read_opts *o, bool type_filter, ddb_arena *a, ddb_error *err);
void ddbi_ent_ask_done(ddbi_ent_ask *q);
/* The shards (bit s = shard s) holding the fields of mask fields (NULL =
 * every shard): a key field is on every shard, so a mask of keys only
 * needs one (shard 0). */
uint64_t ddbi_ent_shards_needed(const ddb_entity_desc *e, const ddb_ent_mask *fields);

/* The most entity types one read sorts into (collection members). */
#define DDBI_ENT_MAX_SINKS 64

/* Two counted names in bytewise order (shorter first when one begins the
 * other): stored attribute names' order. */
static inline int ddbi_ent_name_cmp(const char *x, uint32_t xl, const char *y, uint32_t yl)
{
    uint32_t m = xl < yl ? xl : yl;
    for (uint32_t i = 0; i < m; i++)
        if (x[i] != y[i])
            return (unsigned char)x[i] < (unsigned char)y[i] ? -1 : 1;
    return xl < yl ? -1 : xl > yl;
}

/* An entity's read plan (entity_plan.c): built once per descriptor. */
#define DDBI_PLAN_NONE (-1) /* a name with no field (a key attribute) */
#define DDBI_PLAN_TYPE (-2) /* the type attribute */
typedef struct ddbi_ent_plan_at {
    const char *name; /* NUL-terminated too */
    uint32_t len;
    int32_t field; /* its field, DDBI_PLAN_NONE or DDBI_PLAN_TYPE */
    uint64_t head; /* the first 8 bytes of name, zero-padded, in memory order */
    /* the field's, copied here (one load fewer per attribute decoded) */
    const ddb_field_desc *f;
    uint32_t offset, size;
    uint8_t type;
} ddbi_ent_plan_at;
typedef struct ddbi_ent_plan {
    /* what it was built from */
    const ddb_entity_desc *e;
    const ddb_struct_desc *st;
    const ddb_field_desc *fields;
    uint16_t n_fields, n_keys;
    const ddb_schema_table *table;
    const char *type_attr, *name;
    const ddb_key_desc *keys;
    struct ddbi_ent_plan_field {
        const char *attr;
        uint32_t offset, size;
        uint16_t flags;
        uint8_t type;
    } *seen;                /* each field's parts the plan copied */
    const char **key_attrs; /* each key's pk_attr and sk_attr */
    /* what reads use */
    uint32_t name_len;      /* strlen(name) */
    ddb_ent_mask required;  /* the fields an item must carry */
    uint16_t *order;        /* field indexes by attribute name (ddbi_ent_fields_by_order) */
    ddbi_ent_plan_at *at;   /* the names a record of e holds, sorted bytewise, unique */
    uint32_t n_at;
} ddbi_ent_plan;
/* e's plan: shared (valid while e is unchanged), or built in a for this
 * call when the shared table has no room for it. */
int ddbi_ent_plan_of(const ddb_entity_desc *e, ddb_arena *a, const ddbi_ent_plan **out, ddb_error *err);
/* ddbi_ent_check_required, with the plan's mask first (one test per word). */
int ddbi_ent_plan_check_required(const ddbi_ent_plan *p, const ddb_ent_mask *mask, ddb_error *err);

/* Where the entities of one type go: an arena array grown page by page. */
typedef struct ddbi_ent_sink {
    const ddb_entity_desc *e;
    const ddb_ent_mask *fields; /* its projection (reader_init, from the options); NULL = all */
    const ddbi_ent_plan *plan; /* e's (reader_init) */
    char *items;
    ddb_ent_mask *masks;
    size_t count, cap;
} ddbi_ent_sink;

typedef struct ddbi_ent_reader {
    ddb *db;
    ddb_arena *a;
    const ddb_ent_read_opts *o;
    const char *index;        /* the index read; NULL = the table */
    bool index_partial;       /* it projects less than ALL */
    bool projected;           /* items may lack required fields (projection, count, partial index) */
    ddbi_ent_sink *sinks;
    uint16_t n;
    ddb_capacity cap;
    size_t scanned;
    const ddb_item *last_key; /* where the next page starts; NULL = done */
    /* The most entities one page may hold (0: no bound).  A read whose
     * Limit counts more physical items than page_size entities need (a
     * collection or table scan with a sharded member) stops at this many
     * and places the cursor after the last item it took. */
    uint32_t max_entities;
} ddbi_ent_reader;

/* o, or the zero options for NULL; o->capacity zeroed. */
const ddb_ent_read_opts *ddbi_ent_opts_begin(const ddb_ent_read_opts *o);
int ddbi_ent_reader_init(ddbi_ent_reader *r, ddb *db, ddb_arena *a, const ddb_ent_read_opts *o, const char *index,
                         ddbi_ent_sink *sinks, uint16_t n, ddb_error *err);
/* Record rec of sink s's entity (an unsharded item of a table or an ALL
 * index) into slot (zeroed) and mask (zeroed): its fields, the required
 * ones checked unless r reads a projection; other (may be NULL): as
 * ddbi_ent_fields_from_record (nothing checked when another's). */
int ddbi_ent_decode_record(const ddbi_ent_reader *r, const ddbi_ent_sink *s, const ddbi_rec *rec, void *slot,
                           ddb_ent_mask *mask, bool *other, ddb_error *err);
/* Sort the items of pg into the sinks (see entity_reader.c). */
int ddbi_ent_reader_take(ddbi_ent_reader *r, const ddb_page *pg, ddb_error *err);
/* The same with entries that may come as records (api/records.h). */
int ddbi_ent_reader_take_recs(ddbi_ent_reader *r, ddbi_rec_page *rp, ddb_error *err);
/* Ask for r's read of e (projection, filter: see ddbi_ent_ask_init) with
 * Query qp, or else Scan sp, and take the page (all_pages: every page). */
int ddbi_ent_reader_run(ddbi_ent_reader *r, const ddb_entity_desc *e, bool type_filter, ddb_query_params *qp,
                        ddb_scan_params *sp, bool all_pages, ddb_error *err);
/* Hand the summed capacity to o->capacity. */
void ddbi_ent_reader_finish(ddbi_ent_reader *r);

/* ---- stored records into structs (entity_record.c) ---- */

/* The fields of record rec into obj (not zeroed first): its attributes
 * are matched in one walk with the names of p (e's plan; stored names are
 * sorted too); mask gains the fields set.  Strings are copied into a,
 * bytes point into rec (which must live in a).  other (may be NULL): check
 * the type attribute in the same walk; *other = true when rec is not e's
 * (obj is then half-filled, to be dropped).  DDB_ECORRUPT when the record
 * is damaged. */
int ddbi_ent_fields_from_record(const ddbi_ent_plan *p, const ddbi_rec *rec, void *obj, ddb_arena *a,
                                ddb_ent_mask *mask, bool *other, ddb_error *err);
/* rec decoded into an item in a (for the paths that work on items). */
int ddbi_ent_record_item(const ddb_entity_desc *e, const ddbi_rec *rec, ddb_arena *a, ddb_item **out,
                         ddb_error *err);
/* The type attribute of rec when it is a string: *name (not
 * NUL-terminated) and *len; NULL when absent or not a string. */
int ddbi_ent_record_type(const ddb_entity_desc *e, const ddbi_rec *rec, const char **name, size_t *len,
                         ddb_error *err);

/* ---- write-sharded partition keys (entity_wshard.c) ---- */

/* ddb_ent_render, with the write shard of a write-sharded partition key
 * template given (t is &e->keys[k].pk and e->write_shards[k] is set): the
 * suffix "." + shard; shard < 0: the item's own (ddb_ent_render), from a
 * hash of its primary key or at random.  DDB_EINVAL when the write shards
 * are malformed (count 0 or above DDB_ENT_MAX_WRITE_SHARDS, a number key). */
int ddbi_ent_render_shard(const ddb_entity_desc *e, const ddb_template *t, const void *obj, int shard, ddb_arena *a,
                          ddb_value **out, ddb_error *err);
/* The number of partitions a key's partition template spreads over (1 when
 * not write-sharded). */
int ddbi_ent_write_shards(const ddb_entity_desc *e, const ddb_template *t);

/* ---- scatter-gather reads (entity_scatter.c) ---- */

/* One page of a query of a write-sharded partition: qp (its pk, limit and
 * start key are set here; the sort-key condition is the caller's) sent to
 * every write shard of partition template pt rendered from obj (entity e),
 * the pages merged in the order of sort key attribute sk_attr and taken
 * into r, at most page_size entities of r's sinks (0: whatever the shards
 * returned); *cursor: where the next page resumes every shard (NULL when
 * done), o->cursor where this one does.  all_pages: read to the end. */
int ddbi_ent_scatter_run(ddbi_ent_reader *r, const ddb_entity_desc *e, const ddb_template *pt, const void *obj,
                         const char *sk_attr, ddb_query_params *qp, bool all_pages, const char **cursor,
                         ddb_error *err);
/* ddb_ent_query_pattern on a write-sharded key (o already begun). */
int ddbi_ent_scatter_pattern(ddb *db, const ddb_entity_desc *e, const ddb_ent_key_cond *kc,
                             const ddb_ent_read_opts *o, ddb_arena *a, ddb_ent_result *out, ddb_error *err);

/* ---- cursors (entity_cursor.c) ---- */

/* LastEvaluatedKey as opaque base64url text, and back. */
int ddbi_ent_cursor_encode(ddb_arena *a, const ddb_item *key, const char **out, ddb_error *err);
int ddbi_ent_cursor_decode(ddb_arena *a, const char *s, ddb_item **out, ddb_error *err);

/* ---- schema fingerprints and backfill (entity_fingerprint.c, entity_backfill.c) ---- */

/* What an entity's stored items depend on, as text: one line per key
 * ("<index>: <attr>=<template> ..."), its type, its shards; NUL-terminated. */
int ddbi_ent_fingerprint(const ddb_entity_desc *e, ddb_buf *b);
/* The line of fingerprint fp whose label (text before ':') is label[0..llen). */
const char *ddbi_ent_fingerprint_line(const char *fp, const char *label, size_t llen, int *len);
/* Can items stored under fingerprint old be read under now?  When not, the
 * lines that differ: *ol (*on bytes) in old, *nl (*nn bytes) in now. */
/* The DDB_UNIQUE fields of e whose attribute the stored fingerprint old
 * does not list (their stored values were never claimed): how many, and
 * their C names, ", "-separated, in list (cut to cap). */
size_t ddbi_ent_fingerprint_new_unique(const char *old, const ddb_entity_desc *e, char *list, size_t cap);
bool ddbi_ent_fingerprint_compatible(const char *old, const char *now, const char **ol, int *on, const char **nl,
                                     int *nn);
/* Write the attributes of e's key k into every stored item of e, counting
 * into *pr and calling progress (may be NULL) after each page. */
int ddbi_ent_backfill_key(ddb *db, const ddb_entity_desc *e, uint16_t k, ddb_ent_progress_fn progress, void *ctx,
                          ddb_ent_progress *pr, ddb_error *err);
/* The filter "<type attribute> = <e's name>", prepared in fx. */
int ddbi_ent_type_filter(ddbi_exprb *fx, const ddb_entity_desc *e, ddb_arena *a, const ddb_expr **filter,
                         ddb_error *err);
/* The same for the entity named name of table t (a renamed or removed one's old name). */
int ddbi_ent_type_filter_named(ddbi_exprb *fx, const ddb_schema_table *t, const char *name, ddb_arena *a,
                               const ddb_expr **filter, ddb_error *err);
/* *any: does the table hold at least one item of e? (a consistent scan, stopped at the first) */
int ddbi_ent_has_items(ddb *db, const ddb_entity_desc *e, bool *any, ddb_error *err);

/* Table metadata keys: each entity's fingerprint is "ddbgen.entity.<name>";
 * a migration in progress is recorded under DDB_ENT_MIGRATION_META (its
 * checkpoint), the model version the data is in under DDB_ENT_MODEL_META. */
#define DDB_ENT_MIGRATION_META "ddbgen.migration"
/* entity_migrate_history.c: append the migration that ended (cp), with the
 * schema model it ran to (model, len bytes; may be NULL), to the history
 * kept in items of t's table. */
struct ddbi_ent_checkpoint;
int ddbi_ent_history_add(ddb *db, const ddb_schema_table *t, const struct ddbi_ent_checkpoint *cp, const char *model,
                         size_t len, ddb_error *err);
/* the shapes of the migration's new entities (entity_migrate_open.c) */
#define DDB_ENT_MIGRATION_TARGET_META "ddbgen.migration.to"
/* entity_migrate_open.c: record m's new entities' shapes (when it starts). */
int ddbi_ent_migration_target_put(ddb *db, const ddb_ent_migration *m, ddb_error *err);
/* A migration of t in progress: DDB_EMODEL when ents are its new schema (or
 * it recorded no target); else OK with *reader (the old module may open
 * the table if opening changes nothing).  No migration: OK, !*reader. */
int ddbi_ent_migration_open_check(ddb *db, const ddb_schema_table *t, const ddb_entity_desc *const *ents, size_t n,
                                  ddb_arena *a, bool *reader, ddb_error *err);
/* DDB_EMODEL "a migration is in progress (<plan>, step i/n, s items scanned) ...: why". */
int ddbi_ent_migration_refuse(ddb *db, const ddb_schema_table *t, ddb_arena *a, const char *why, ddb_error *err);
#define DDB_ENT_MODEL_META "ddbgen.model"

/* Delete the table's GSIs that t no longer declares (entity_table.c). */
int ddbi_ent_drop_undeclared(ddb *db, const ddb_schema_table *t, ddb_error *err);

/* ---- migrations (entity_migrate.c, entity_migrate_item.c, entity_migrate_checkpoint.c) ---- */

/* The most items one logical item is: a sharded entity's shard items. */
#define DDBI_ENT_MIGRATE_MAX_PARTS DDB_ENT_MAX_SHARDS
/* news[0..*n_new) (room for DDBI_ENT_MIGRATE_MAX_PARTS): the new form
 * under step s (in a) of one logical item stored as olds[0..n_old) (one
 * item, or a sharded entity's shard items); *same: it is already in that
 * form (nothing to write).  live: the table as it is (its index key
 * attributes are never carried over; may be NULL). */
int ddbi_ent_migrate_item(const ddb_ent_migration_step *s, const ddb_table_def *live, ddb_item *const *olds,
                          size_t n_old, ddb_arena *a, ddb_item **news, size_t *n_new, bool *same, ddb_error *err);
/* Where the shard suffix of shard item it's sort key begins (in the
 * value's text: what follows is the shard id), or NULL: not a shard item
 * of e. */
const char *ddbi_ent_shard_cut(const ddb_entity_desc *e, const ddb_item *it);
/* Do x and y have the same table key? */
bool ddbi_ent_same_key(const ddb_table_def *td, const ddb_item *x, const ddb_item *y);
/* The item's table key as "PK/SK" text (arena memory), for messages and samples. */
const char *ddbi_ent_key_text(const ddb_table_def *td, const ddb_item *it, ddb_arena *a);

#define DDBI_ENT_MIGRATION_ID_MAX 64
/* Where a migration is: its id, step, counts, and the scan's position. */
typedef struct ddbi_ent_checkpoint {
    const char *id;
    uint32_t step, n_steps;       /* step: 0-based, the one under way (n_steps: done) */
    uint64_t scanned, moved, rewritten, unchanged;
    uint64_t claimed;             /* DDB_UNIQUE values claimed (a plan's claims) */
    uint64_t verified;            /* of them, found claimed by their items by the steps' checks */
    uint64_t deleted;             /* items of removed entities deleted */
    uint64_t in_step;             /* items the step under way has scanned (scanned counts all steps) */
    double capacity;
    const char *cursor;           /* where the step's scan goes on; NULL = its start */
} ddbi_ent_checkpoint;

/* 1..64 characters of letters, digits and "._:-". */
bool ddbi_ent_migration_id_ok(const char *id);
int ddbi_ent_checkpoint_put(ddb *db, const char *table, const ddbi_ent_checkpoint *c, ddb_error *err);
/* *found: a migration is in progress (c filled, its strings in a). */
int ddbi_ent_checkpoint_get(ddb *db, const char *table, ddb_arena *a, ddbi_ent_checkpoint *c, bool *found,
                            ddb_error *err);
/* The migration is over. */
int ddbi_ent_checkpoint_end(ddb *db, const char *table, ddb_error *err);

/* A migration step's claims (entity_migrate_claim.c): the uniqueness
 * items of the DDB_UNIQUE fields it names, written for every stored item
 * that holds a value, in the transaction that writes the item (or with a
 * ConditionCheck that the item still holds the value, when it is left as
 * it is); a claim the same item holds already is no change. */
#define DDBI_ENT_CLAIMS_MAX 16
typedef struct ddbi_ent_seen ddbi_ent_seen;
typedef struct ddbi_ent_claims {
    const ddb_entity_desc *e;
    size_t n;
    const ddb_field_desc *f[DDBI_ENT_CLAIMS_MAX];
    ddb_expr *put_cond;                    /* attribute_not_exists(#k) OR #o = :o */
    ddb_expr *take_cond;                   /* ... OR #o = :old (a stale claim taken over) */
    ddb_expr *same[DDBI_ENT_CLAIMS_MAX];   /* #f = :v */
    ddbi_ent_seen *seen;                   /* dry run: the values met, and their items */
} ddbi_ent_claims;
/* One claim operation queued: which field, what value (for messages). */
typedef struct ddbi_ent_claim_op {
    const ddb_field_desc *f;               /* NULL: not a claim */
    const char *value;
    bool check;                            /* the ConditionCheck that the item is unchanged */
    bool taken;                            /* a stale claim is taken over (take_cond) */
} ddbi_ent_claim_op;
int ddbi_ent_claims_init(ddbi_ent_claims *c, const ddb_ent_migration_step *s, ddb_error *err);
void ddbi_ent_claims_done(ddbi_ent_claims *c);
/* The operations claiming stored item it's values (check: it is left as
 * it is, so each claim goes with a ConditionCheck that it still holds the
 * value), appended at ops[*n] (room for 2 * c->n), their descriptions at
 * info[*n]; *n grows. */
int ddbi_ent_claims_ops(const ddbi_ent_claims *c, const ddb_item *it, bool check, ddb_arena *a, ddb_tx_op *ops,
                        ddbi_ent_claim_op *info, size_t *n, ddb_error *err);
/* Dry run: remember item it's values; a value another item holds already
 * makes *dup a line (in a) "<Entity>.<field> = <value>: items <key> and <key>". */
int ddbi_ent_claims_seen(ddbi_ent_claims *c, const ddb_item *it, ddb_arena *a, const char **dup, ddb_error *err);
/* Claim put (described by op) failed: holder is the uniqueness item there.
 * When its owner no longer holds the value (absent, or another value),
 * *taken and put's condition becomes a takeover conditional on that owner. */
int ddbi_ent_claim_takeover(const ddbi_ent_claims *c, ddb *db, const ddb_item *holder, const ddbi_ent_claim_op *op,
                            ddb_tx_op *put, ddb_arena *a, bool *taken, ddb_error *err);
/* The step's check: of the *values stored item it holds for the claimed
 * fields, *owned have a uniqueness item owned by it (consistent GetItems,
 * their capacity added to *capacity). */
int ddbi_ent_claims_held(const ddbi_ent_claims *c, ddb *db, const ddb_item *it, ddb_arena *a, size_t *values,
                         size_t *owned, double *capacity, ddb_error *err);

#endif
