/* migrate_down.c — --plan-migration OLD --down: the plan that takes the
 * stored items of the new schema back to the deployed model OLD (a
 * rollback), or "not reversible" with every reason, as located errors.
 * The change up is planned first (migrate_plan.c) and read: a transform
 * (a type changed, a required field added without a default: the old
 * values are gone), a removed entity's deleted items, a rename (the old
 * schema cannot say DDB_RENAMED_FROM back), and an entity the old model
 * lacks (its items would be orphaned) have no way back.  Otherwise the
 * down plan is migrate_plan.c's from the new model to the old one: key
 * templates rendered the old way, fields stored under their old names,
 * claims of fields the old model has unique (none: removing DDB_UNIQUE
 * needs nothing).  Calls jansson, jsonutil.c, diag.c and migrate_plan.c. */
#include "plan.h"

#include <string.h>

static const char *S(const json_t *o, const char *k)
{
    const char *s = ddbgen_jstr(o, k);
    return s ? s : "";
}

int ddbgen__migration_down(const json_t *old_model, const json_t *new_model, json_t **out, ddbgen_diags *d)
{
    json_t *up = NULL;
    ddbgen_diags scratch;
    ddbgen_diags_init(&scratch);
    int rc = ddbgen__migration_plan(old_model, new_model, &up, &scratch);
    ddbgen_diags_free(&scratch);
    ddbgen_loc schema = {ddbgen_jstr(new_model, "schema"), 0, 0};
    int blocked = rc != DDBGEN_OK;
    if (blocked)
        ddbgen_diag_add(d, DDBGEN_ERROR, schema, "not reversible: the change up cannot be planned either "
                                                 "(ddbgen --plan-migration says why)");
    size_t i, j, k;
    json_t *t, *e, *c;
    json_array_foreach(json_object_get(up, "tables"), i, t) {
        json_array_foreach(json_object_get(t, "entities"), j, e) {
            const json_t *ne = ddbgen_jfind(json_object_get(new_model, "entities"), "name", S(e, "entity"));
            ddbgen_loc at = ne ? ddbgen_loc_of(ne, "loc") : schema;
            if (!strcmp(S(e, "migration"), "delete")) {
                ddbgen_diag_add(d, DDBGEN_ERROR, schema, "not reversible: entity '%s' was removed and its items "
                                                         "deleted going up",
                                S(e, "entity"));
                blocked = 1;
            } else if (ddbgen_jstr(e, "renamed_from")) {
                ddbgen_diag_add(d, DDBGEN_ERROR, at, "not reversible by a plan: '%s' was renamed from '%s' (the "
                                                     "old schema cannot say DDB_RENAMED_FROM(\"%s\"); rename it "
                                                     "back in a new schema version instead)",
                                S(e, "entity"), S(e, "renamed_from"), S(e, "entity"));
                blocked = 1;
            }
            json_array_foreach(json_object_get(e, "changes"), k, c) {
                if (strcmp(S(c, "migration"), "transform"))
                    continue;
                ddbgen_diag_add(d, DDBGEN_ERROR, at, "not reversible: %s", S(c, "change"));
                blocked = 1;
            }
        }
    }
    json_array_foreach(json_object_get(new_model, "entities"), i, e) {
        const char *from = ddbgen_jstr(e, "renamed_from");
        if (ddbgen_jfind(json_object_get(old_model, "entities"), "name", S(e, "name")) ||
            (from && ddbgen_jfind(json_object_get(old_model, "entities"), "name", from)))
            continue;
        ddbgen_diag_add(d, DDBGEN_ERROR, ddbgen_loc_of(e, "loc"),
                        "not reversible: entity '%s' is new, and the deployed model has nothing to read its items",
                        S(e, "name"));
        blocked = 1;
    }
    json_decref(up);
    if (blocked)
        return DDBGEN_ESCHEMA;
    return ddbgen__migration_plan(new_model, old_model, out, d);
}
