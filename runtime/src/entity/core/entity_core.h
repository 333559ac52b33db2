/* entity/core/: the shared core of the entity rooms (internal; room header of the typed layer that
 * generated modules call through <ddb/entity.h>, table-driven by entity descriptors).  It holds
 * what every typed operation stands on: C fields by width, key templates and derived fields,
 * structs to items and back, primary keys and shard items, expression text, consumed capacity,
 * defaults and time stamps, cursors and the page loop, write-sharded keys, the binding of declared
 * expressions.  It may call the public API (<ddb/ddb.h>, <ddb/expr.h>, <ddb/entity.h>), the
 * handle's prepared-expression cache (api/expr_cache.h), the reads handing over stored records
 * (api/records.h) and core/ (errors, values, numbers, the item codec behind cursors); never
 * engine/, streams/ or remote/: both backends are reached through the ddb_* functions only.
 *
 * Files, one subject each:
 *   entity_capacity.c      consumed capacity summed over several requests
 *   entity_cond.c          declared expressions bound to names and values; declared conditions
 *   entity_cursor.c        cursors (LastEvaluatedKey as text)
 *   entity_default_fill.c  DDB_DEFAULT of fields a stored item lacks
 *   entity_error.c         messages adding context to a callee's reason
 *   entity_exprb.c         expression text built piece by piece, prepared once
 *   entity_field.c         C fields: integers by width, floats, char[N]
 *   entity_keys.c          descriptor checks, primary keys, shard items
 *   entity_marshal.c       struct -> item
 *   entity_mask.c          field masks
 *   entity_page_loop.c     the page loop of the generated iterators (ddb_ent_pages)
 *   entity_template.c      key templates rendered from a struct; derived fields
 *   entity_timestamp.c     DDB_CREATED_AT / DDB_UPDATED_AT time stamps
 *   entity_unmarshal.c     item -> struct
 *   entity_write_fill.c    defaults, created-at and updated-at filled by writes
 *   entity_wshard.c        write-sharded partition keys: the shard suffix
 */
#ifndef DDB_ENTITY_CORE_H
#define DDB_ENTITY_CORE_H

#include <ddb/ddb.h>
#include <ddb/entity.h>
#include <ddb/expr.h>
#include <string.h>

#include "api/records.h"
#include "core/codec.h"
#include "core/value.h"

/* ---- entity_error.c ---- */

/* Fail with code and the message "<fmt>: <the reason already in err>", for
 * a callee's failure seen from the caller's side (err may be NULL). */
int ddbi_ent_fail_within(ddb_error *err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* ---- entity_field.c ---- */

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

/* ---- entity_template.c ---- */

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

/* ---- entity_field.c ---- */

/* Zero field f at p: the state of a field a read has not set (a list's
 * count, at its own offset, is the caller's). */
void ddbi_ent_clear_field(const ddb_field_desc *f, void *p);

/* ---- entity_mask.c ---- */

/* Clear the fields of obj that mask has and keep (NULL = keep all) has
 * not, and their bits: a result cut to its projection (the primary key's
 * fields stay: keys are always read). */
void ddbi_ent_mask_trim(const ddb_entity_desc *e, void *obj, ddb_ent_mask *mask, const ddb_ent_mask *keep);

/* ---- entity_template.c ---- */

/* The number of holes (fields) of t. */
uint16_t ddbi_ent_holes(const ddb_template *t);
/* Does t read a top-level field i with changed[i] set? */
bool ddbi_ent_template_uses(const ddb_template *t, const ddb_ent_mask *changed);
/* Compute every derived field of obj in place. */
int ddbi_ent_fill_derived(const ddb_entity_desc *e, void *obj, ddb_arena *a, ddb_error *err);

/* ---- entity_marshal.c ---- */

/* The item of one shard (shard >= 0) or the whole entity (-1). */
int ddbi_ent_item_part(const ddb_entity_desc *e, const void *obj, int shard, ddb_arena *a, ddb_item **out,
                       ddb_error *err);
int ddbi_ent_field_value(const ddb_field_desc *f, const char *p, ddb_arena *a, ddb_value **out, ddb_error *err);

/* ---- entity_unmarshal.c ---- */

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

/* ---- entity_keys.c ---- */

/* DDB_ELIMIT naming the entity, its shard count and DDB_ENT_MAX_SHARDS when
 * e has more shards than that; DDB_EINVAL when a field or key names a shard
 * e does not have.  Every operation checks it before it looks at a shard,
 * so arrays of DDB_ENT_MAX_SHARDS entries indexed by shard always suffice. */
int ddbi_ent_check_shards(const ddb_entity_desc *e, ddb_error *err);
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

/* ---- entity_exprb.c ---- */

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

/* ---- entity_capacity.c ---- */

/* Add src to dst (dst may be NULL), index by index. */
void ddbi_ent_cap_merge(ddb_capacity *dst, const ddb_capacity *src);
/* A ddb_capacity is 7 KB, nearly all of it the per-index array, which is
 * read only up to n_indexes: clear zeroes the totals and n_indexes (an
 * empty capacity to merge into); copy copies what is in use. */
void ddbi_ent_cap_clear(ddb_capacity *c);
void ddbi_ent_cap_copy(ddb_capacity *dst, const ddb_capacity *src);
/* The capacity mode of o (NULL: none). */
ddb_return_capacity ddbi_ent_cap_mode(const ddb_ent_opts *o);

/* ---- entity_cond.c ---- */

/* The names map (names[i] -> S attrs[i]) and values map (each arg
 * marshalled like its field; field -1: the int64_t at obj) of a declared
 * expression, set into nm and vals (entity_cond.c); what names it in
 * messages. */
int ddbi_ent_bind(const ddb_entity_desc *e, const char *what, const char *const *names, const char *const *attrs,
                  uint16_t n_names, const ddb_ent_arg *args, size_t n_args, ddb_arena *a, ddb_item *nm,
                  ddb_item *vals, ddb_error *err);

/* ---- entity_write_fill.c ---- */

/* Is the field at p unset (0, "", NULL, false)? */
bool ddbi_ent_field_unset(const ddb_field_desc *f, const char *p);
/* The stored value of timestamp field f at now_ms (epoch ms or ISO-8601). */
int ddbi_ent_stamp_value(const ddb_field_desc *f, int64_t now_ms, ddb_arena *a, ddb_value **out, ddb_error *err);
/* f->dflt as a value of f's type. */
int ddbi_ent_default_value(const ddb_field_desc *f, ddb_arena *a, ddb_value **out, ddb_error *err);

/* ---- entity_default_fill.c ---- */

/* entity_default_fill.c: *out is it with the DDB_DEFAULT of every field of e
 * whose attribute it lacks (a copy in a; it itself when none is missing);
 * filled (room for e's field count; may be NULL) lists those fields. */
int ddbi_ent_fill_defaults(const ddb_entity_desc *e, const ddb_item *it, ddb_arena *a, ddb_item **out,
                           const ddb_field_desc **filled, size_t *n_filled, ddb_error *err);

/* ---- entity_write_fill.c ---- */

/* Fill updated-at and, with create, created-at and the defaults of unset fields. */
int ddbi_ent_fill_stamps(ddb *db, const ddb_entity_desc *e, void *obj, bool create, ddb_arena *a, ddb_error *err);

/* ---- entity_timestamp.c ---- */

/* ms as "YYYY-MM-DDTHH:MM:SS.mmmZ" (entity_timestamp.c); DDB_EINVAL outside years 0..9999. */
int ddbi_ent_iso8601(int64_t ms, char out[25]);

/* ---- entity_exprb.c ---- */

/* Merge a caller's condition into x (text "(<text>)", its names and
 * values); DDB_EINVAL when it uses a runtime placeholder. */
int ddbi_exprb_merge(ddbi_exprb *x, const ddb_ent_expr *c, ddb_error *err);

/* ---- entity_wshard.c ---- */

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

/* ---- entity_cursor.c ---- */

/* LastEvaluatedKey as opaque base64url text, and back. */
int ddbi_ent_cursor_encode(ddb_arena *a, const ddb_item *key, const char **out, ddb_error *err);
int ddbi_ent_cursor_decode(ddb_arena *a, const char *s, ddb_item **out, ddb_error *err);

#endif
