/* main/: the library's life cycle and the ddbgen command line (room
 * header).  context.c implements model.h (a context from options, the
 * front-end chosen by file name, the checks, the lowering with the declared
 * reads and writes, the model file, infrastructure and Workbench output,
 * compatibility and migration plans) and the two entry points below;
 * main.c is the CLI over them and generate.h.  The stages run in that
 * order: front/, check/, ir/ with decl/, then plan/ or render/.  The room
 * may call every other room of the generator; none calls it. */
#ifndef DDBGEN_LIBRARY_H
#define DDBGEN_LIBRARY_H

#include "ir.h"
#include "model.h"

#include <jansson.h>

/* The IR of cx's schema: NULL until ddbgen_validate() returned DDBGEN_OK.
 * Borrowed: valid until ddbgen_destroy(). */
const ddbgen_ir *ddbgen_ir_of(const ddbgen_context *cx);

/* --old-model: the deployed model of old_model_path (validated as
 * --check-compat does) as its old forms (old_forms.c), lowered into
 * *old_ir (the caller frees it), and the migration plan from it to cx's
 * model into *plan (the caller's; NULL when no migration can take the
 * data there, which --check-compat and --plan-migration report).  Needs a
 * validated cx. */
int ddbgen_old_forms(ddbgen_context *cx, const char *old_model_path, ddbgen_ir **old_ir, json_t **plan);

#endif
