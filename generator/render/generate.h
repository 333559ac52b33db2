/* generate.h — the back-end's entry point, called by main.c after the model
 * validated and was lowered.
 *
 * Renders the mustache templates of templates_dir with the IR's render
 * context into outdir/<schema_base>_ddb.h and outdir/<schema_base>_ddb.c,
 * writing a file only when its content changed.
 *   ir           borrowed (ddbgen_ir_of()); not modified
 *   outdir       existing directory
 *   templates_dir  directory of *.mustache files (--templates, or the build's
 *                templates/ by default)
 *   schema_base  "shop" for schemas/shop.h (ddbgen_schema_base())
 *   diag         where to print problems, one line each ("ddbgen: ...")
 * Returns 0 on success, 1 if a template or an output file failed, 2 on
 * usage errors (outdir missing, templates_dir unreadable).
 */
#ifndef DDBGEN_GENERATE_H
#define DDBGEN_GENERATE_H

#include "ir.h"

#include <jansson.h>

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

int ddbgen_generate(const ddbgen_ir *ir, const char *outdir, const char *templates_dir,
                    const char *schema_base, FILE *diag);

/* --old-model: <schema_base>_old.h and <schema_base>_old.c in outdir,
 * the old forms of the deployed model (old_ir, from ddbgen_old_forms) —
 * their structs and descriptors — and the migration steps of plan (may be
 * NULL) towards ir.  deployed names the model file in comments.  Returns
 * as ddbgen_generate. */
int ddbgen_generate_old(const ddbgen_ir *ir, const ddbgen_ir *old_ir, const json_t *plan, const char *deployed,
                        const char *outdir, const char *templates_dir, const char *schema_base, FILE *diag);

#ifdef __cplusplus
}
#endif

#endif
