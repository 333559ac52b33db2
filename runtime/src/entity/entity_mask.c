/* Entity room: field masks (ddb_field_mask), the sets of an entity's
 * fields that partial updates name.  Calls nothing. */
#include "entity/entity_internal.h"

#include <string.h>

ddb_field_mask ddb_mask_of(const uint16_t *idx, size_t n)
{
    ddb_field_mask m;
    memset(&m, 0, sizeof m);
    for (size_t i = 0; idx && i < n; i++)
        ddb_mask_add(&m, idx[i]);
    return m;
}
