/* Shared inside the entity layer (internal). */
#ifndef DDB_ENTITY_INTERNAL_H
#define DDB_ENTITY_INTERNAL_H

#include <ddb/entity.h>

#include "core/codec.h"

/* The item of one shard (shard >= 0) or the whole entity (-1). */
int ddbi_ent_item_part(const ddb_entity_desc *e, const void *obj, int shard, ddb_arena *a, ddb_item **out,
                      ddb_error *err);
int ddbi_ent_field_value(const ddb_field_desc *f, const char *p, ddb_arena *a, ddb_value **out, ddb_error *err);
int ddbi_ent_field_from(const ddb_field_desc *f, const ddb_value *v, char *p, ddb_arena *a, ddb_error *err);
bool ddbi_ent_field_required(const ddb_field_desc *f);
int ddbi_ent_chars_len(const ddb_field_desc *f, const char *p, size_t *len, ddb_error *err);
/* Render the first max_holes holes of t (and, with through_literal, the
 * literal that follows them) into b.  *absent when an optional field is unset. */
int ddbi_ent_render_prefix(const ddb_entity_desc *e, const ddb_template *t, const void *obj, uint16_t max_holes,
                          bool through_literal, ddb_buf *b, bool *absent, ddb_error *err);
uint16_t ddbi_ent_holes(const ddb_template *t);
int ddbi_ent_check_type(const ddb_entity_desc *e, const ddb_item *item, ddb_error *err);
/* from_item without zeroing obj first; partial: missing required attributes are not errors. */
int ddbi_ent_from_item_partial(const ddb_entity_desc *e, const ddb_item *item, void *obj, ddb_arena *a, bool partial,
                              ddb_error *err);

/* Compute every derived field of obj in place. */
int ddbi_ent_fill_derived(const ddb_entity_desc *e, void *obj, ddb_arena *a, ddb_error *err);
/* A copy of obj in a with its derived fields computed; NULL on error. */
void *ddbi_ent_copy_derived(const ddb_entity_desc *e, const void *obj, ddb_arena *a, ddb_error *err);

#endif
