/* plan/: an earlier model against this one (room header): which changes
 * break stored items or callers (compat.c), the migration plan that takes
 * stored items from the old model to the new one and back
 * (migrate_plan.c, migrate_down.c), and the old model's forms, read as a
 * declared model of their own for <base>_old.{h,c} (old_forms.c).  Works
 * on model documents (JSON, docs/MODEL.md).  The room may call base/ and
 * ir/ (renames, the model's text), and jansson. */
#ifndef DDBGEN_PLAN_H
#define DDBGEN_PLAN_H

#include "internal.h"
#include "ir.h"

/* compat.c: old and new are model documents (ddbgen__model_json). */
int ddbgen__compat(json_t *old_model, json_t *new_model, const char *old_name, ddbgen_diags *d);

/* compat.c: key template t of entity as text with attribute names
 * ("ORG#{org}/USER#{username:06}"), appended to b. */
void ddbgen__template_text(ddbgen_buf *b, const json_t *model, const json_t *entity, const json_t *t);

/* migrate_plan.c: the migration plan from old_model to new_model (model
 * documents) into *out; DDBGEN_ESCHEMA (errors in d) for changes no
 * migration handles. */
int ddbgen__migration_plan(const json_t *old_model, const json_t *new_model, json_t **out, ddbgen_diags *d);
/* migrate_down.c: the plan from new_model back to old_model into *out, or
 * DDBGEN_ESCHEMA with a located "not reversible" error per reason. */
int ddbgen__migration_down(const json_t *old_model, const json_t *new_model, json_t **out, ddbgen_diags *d);

/* old_forms.c: the deployed model (a model document) as a declared model
 * of its old forms: tables, structs and entities with C names
 * "<cname>" DDBGEN_OLD_SUFFIX, the same stored names, field types that need
 * no header; no declared reads or writes.  NULL when out of memory. */
#define DDBGEN_OLD_SUFFIX "_old"
json_t *ddbgen__old_forms(const json_t *deployed);

#endif
