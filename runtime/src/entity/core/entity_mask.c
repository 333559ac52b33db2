/* Entity room: field masks (ddb_ent_mask), the sets of an entity's fields
 * that projections, per-item "fields set" answers and partial updates name,
 * and a decoded struct cut down to a projection.  Calls the field
 * accessors of entity_field.c. */
#include "entity/core/entity_core.h"

#include <string.h>

ddb_ent_mask ddb_ent_mask_of(const uint16_t *idx, size_t n)
{
    ddb_ent_mask m;
    memset(&m, 0, sizeof m);
    for (size_t i = 0; idx && i < n; i++)
        ddb_ent_mask_set(&m, idx[i]);
    return m;
}

void ddbi_ent_mask_trim(const ddb_entity_desc *e, void *obj, ddb_ent_mask *mask, const ddb_ent_mask *keep)
{
    for (uint16_t i = 0; keep && i < e->st->n_fields && i < DDB_ENT_MAX_FIELDS; i++) {
        const ddb_field_desc *f = &e->st->fields[i];
        if (!ddb_ent_mask_has(mask, i) || ddb_ent_mask_has(keep, i) || (f->flags & DDB_FIELD_KEY))
            continue; /* the primary key's fields are always kept */
        ddbi_ent_clear_field(f, (char *)obj + f->offset);
        if (f->type == DDB_F_LIST)
            *(size_t *)((char *)obj + f->count_offset) = 0;
        mask->w[i / 64] &= ~((uint64_t)1 << (i % 64));
    }
}
