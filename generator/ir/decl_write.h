/* decl_write.h — declared writes of an entity: DDB_UPDATE and DDB_CONDITION
 * (checked by decl_update.c), and the write decorators of fields
 * (DDB_DEFAULT, DDB_CREATED_AT, DDB_UPDATED_AT, DDB_UNIQUE: write_fields.c).
 *
 * Stages, as for the rest of the schema: the checks run on the validator's
 * private copy of the model (ddbgen__check_writes, called by validate.c
 * after an entity's keys and shards are worked out); the lowering
 * (ddbgen__lower_writes, run on the IR lower.c made) gives each IR entity its
 * ddbgen_ir_writes; the render context (ddbgen__writes_context, called by
 * render_context.c) turns it into what templates/decl_update.*.mustache
 * print.
 */
#ifndef DDBGEN_DECL_WRITE_H
#define DDBGEN_DECL_WRITE_H

#include "diag.h"
#include "ir.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* A :placeholder of a declared expression: a C parameter of the typed
 * function, with the C type of the field it is compared with or written to
 * (field), or int64_t for the operand of size() (field NULL). */
typedef struct ddbgen_ir_placeholder {
    const char *name;              /* "pct" (the C parameter; ":pct" in the text) */
    const ddbgen_ir_field *field;  /* whose type it has; NULL: int64_t */
    size_t field_no;               /* index of field in the entity */
} ddbgen_ir_placeholder;

/* One declared expression over #names (the fields' C names). */
typedef struct ddbgen_ir_dexpr {
    const char *source;            /* as written in the schema */
    const char *text;              /* rewritten: every field name as #name */
    const char *const *names;      /* the C names behind the #names */
    const char *const *attrs;      /* their stored attributes */
    size_t n_names;
} ddbgen_ir_dexpr;

/* The actions of a declared update on one shard item. */
typedef struct ddbgen_ir_update_part {
    int shard;                     /* the shard item (0 when unsharded) */
    const char *clauses[4];        /* SET, REMOVE, ADD, DELETE bodies of its actions ("" when none) */
} ddbgen_ir_update_part;

#define DDBGEN_KNOWN_ABSENT ((size_t)-1) /* known[i]: the field is REMOVEd */

typedef struct ddbgen_ir_update {
    const char *name;              /* "charge": the function <entity>_charge */
    ddbgen_ir_dexpr update;
    const char *clauses[4];        /* SET, REMOVE, ADD, DELETE bodies ("" when absent) */
    bool has_condition;
    ddbgen_ir_dexpr condition;
    ddbgen_ir_placeholder *params; /* placeholders of both, in order of first use */
    size_t n_params;
    size_t *known;                 /* fields whose new value the update knows: SET f = :p (params
                                    * index) or REMOVE f (DDBGEN_KNOWN_ABSENT) */
    size_t *known_fields;          /* ... and those fields' indexes */
    size_t n_known;
    ddbgen_ir_update_part *parts;  /* one per shard item whose fields it changes, by shard */
    size_t n_parts;
    int cond_shard;                /* the shard item the condition reads (the first part's when it reads
                                    * only key fields; 0 when unsharded) */
} ddbgen_ir_update;

typedef struct ddbgen_ir_condition {
    const char *name;              /* "idle" */
    ddbgen_ir_dexpr condition;
    ddbgen_ir_placeholder *params;
    size_t n_params;
    int shard;                     /* the shard item it reads (0 when unsharded or only key fields) */
} ddbgen_ir_condition;

struct ddbgen_ir_writes {
    ddbgen_ir_update *updates;
    size_t n_updates;
    ddbgen_ir_condition *conditions;
    size_t n_conditions;
};

#endif
