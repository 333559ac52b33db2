/* render_context.h — the IR as the data the templates read (mustache
 * context): C literals, identifiers, sizeof/offsetof expressions, template
 * segments and their index paths.  Built from the IR only (ir.h); the shape
 * of the output lives in templates/. */
#ifndef DDBGEN_RENDER_CONTEXT_H
#define DDBGEN_RENDER_CONTEXT_H

#include "ir.h"

#include <jansson.h>

/* The context for ir's module <base>_ddb.{h,c}; NULL when out of memory. */
json_t *ddbgen__render_context(const ddbgen_ir *ir, const char *base);

/* render_old.c: the context of <base>_old.{h,c}: old_ir (the deployed
 * model's old forms, old_forms.c) as any module's descriptors, with the
 * old structs' member declarations, and the migration steps of plan (may
 * be NULL) towards new_ir.  deployed: the model file, for comments. */
json_t *ddbgen__render_old_context(const ddbgen_ir *old_ir, const ddbgen_ir *new_ir, const json_t *plan,
                                   const char *base, const char *deployed);

/* render_reads.c: the typed reads of entity e into its context o: field
 * masks, access patterns, declared queries and scans. */
void ddbgen__reads_ctx(json_t *o, const ddbgen_ir_entity *e, const char *base);
/* Which of the module's static helpers the reads use (uses_sk_level ...). */
void ddbgen__reads_module_ctx(json_t *ctx, const ddbgen_ir *ir);
/* decl_context.c: the render context of e's declared writes: {"updates": [...], ...},
 * merged into the entity's context object o. */
void ddbgen__writes_context(json_t *o, const ddbgen_ir_entity *e);

#endif
