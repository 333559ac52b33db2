/* Entity room: the DDB_DEFAULT of fields a stored item lacks (items
 * written before the field existed), for the rewrites that read stored
 * items into the new schema: a migration step (entity_migrate_item.c) and
 * the backfill of a new index key (entity_backfill.c).  A create gives an
 * unset field its default (entity_write_fill.c); an item stored before the
 * field existed gets the same value here.  Pure: reads and writes nothing
 * in the database.  Calls the public item API and entity_write_fill.c's
 * default values. */
#include "entity/core/entity_core.h"

#include "core/error.h"

int ddbi_ent_fill_defaults(const ddb_entity_desc *e, const ddb_item *it, ddb_arena *a, ddb_item **out,
                           const ddb_field_desc **filled, size_t *n_filled, ddb_error *err)
{
    *out = (ddb_item *)it;
    if (n_filled)
        *n_filled = 0;
    for (uint16_t i = 0; i < e->st->n_fields; i++) {
        const ddb_field_desc *f = &e->st->fields[i];
        if (!f->dflt || ddb_item_get(it, f->attr))
            continue;
        ddb_value *v = NULL;
        int rc = ddbi_ent_default_value(f, a, &v, err);
        if (rc)
            return rc;
        if (*out == it && !(*out = ddb_item_copy(a, it)))
            return ddbi_fail_oom(err, __func__);
        if (ddb_item_set(*out, f->attr, v))
            return ddbi_fail_oom(err, __func__);
        if (filled && n_filled)
            filled[(*n_filled)++] = f;
    }
    return DDB_OK;
}
