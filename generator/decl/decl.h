/* decl/: declared reads and writes (room header): access patterns, queries
 * and scans (DDB_PATTERN, DDB_QUERY, DDB_SCAN: reads.c), updates and
 * conditions (DDB_UPDATE, DDB_CONDITION: decl_update.c), the write
 * decorators of fields (write_fields.c), all written over C field names and
 * parsed by the runtime's own expression parser (decl_expr.c).  Each is
 * checked, then lowered into the IR (ir.h, decl_write.h).  The room may call
 * base/, ir/, the runtime's expression room (runtime/src/expr) and
 * jansson. */
#ifndef DDBGEN_DECL_H
#define DDBGEN_DECL_H

#include "decl_write.h"
#include "internal.h"

/* Checks of entity e (the validator's copy: its keys carry "uses", its
 * fields "key", its "shards" are worked out): every DDB_UPDATE and
 * DDB_CONDITION and the write decorators of its fields.  Problems go to d. */
void ddbgen__check_writes(ddbgen_diags *d, json_t *e, const json_t *table);

/* write_fields.c, for ddbgen__check_writes: the checks of entity e's
 * field decorators that shape writes (DDB_DEFAULT, DDB_CREATED_AT,
 * DDB_UPDATED_AT, DDB_UNIQUE). */
void ddbgen__check_field_writes(ddbgen_diags *d, json_t *e);

/* Sets the writes of every entity of ir (lowered by ddbgen__lower from
 * declared, the checked declared model): the declared writes of its
 * declaration (NULL when it declares none), allocated with
 * ddbgen__ir_alloc.  -1 when out of memory, else 0. */
int ddbgen__lower_writes(ddbgen_ir *ir, const json_t *declared);

/* reads.c: checks the access patterns (DDB_PATTERN), declared queries
 * (DDB_QUERY) and scans (DDB_SCAN) of the declared model against its
 * lowering and records them in ir (key patterns, entity queries).
 * Problems are located diagnostics in d; DDBGEN_ESCHEMA then. */
int ddbgen__lower_reads(ddbgen_ir *ir, const json_t *declared, ddbgen_diags *d);

#endif
