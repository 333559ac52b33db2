/* Entity room: field masks (ddb_ent_mask), the sets of an entity's fields
 * that projections, per-item "fields set" answers and partial updates name.
 * Calls nothing. */
#include "entity/entity_internal.h"

#include <string.h>

ddb_ent_mask ddb_ent_mask_of(const uint16_t *idx, size_t n)
{
    ddb_ent_mask m;
    memset(&m, 0, sizeof m);
    for (size_t i = 0; idx && i < n; i++)
        ddb_ent_mask_set(&m, idx[i]);
    return m;
}
