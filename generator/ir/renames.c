/* renames.c — what the new schema says became of the deployed model's
 * entities and fields it no longer declares under their names:
 * DDB_RENAMED_FROM on an entity (its items get the new name) or on a field
 * (its stored attribute gets the new name), DDB_REMOVED in a table (the
 * removed entity's items are deleted, or kept unread).  The matching that
 * compat.c and migrate_plan.c share, and the checks of bad uses (located
 * errors) that validate.c runs.  Calls jansson, jsonutil.c and diag.c. */
#include "internal.h"

#include <string.h>

static const char *S(const json_t *o, const char *k)
{
    const char *s = ddbgen_jstr(o, k);
    return s ? s : "";
}

const json_t *ddbgen__entity_renamed_to(const json_t *new_model, const char *old_name)
{
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(new_model, "entities"), i, e) {
        if (!strcmp(S(e, "renamed_from"), old_name))
            return e;
    }
    return NULL;
}

const json_t *ddbgen__entity_removal(const json_t *new_model, const char *table_name, const char *old_name)
{
    const json_t *t = ddbgen_jfind(json_object_get(new_model, "tables"), "name", table_name);
    return ddbgen_jfind(json_object_get(t, "removed"), "entity", old_name);
}

const json_t *ddbgen__field_renamed_from(const json_t *old_fields, const json_t *new_field)
{
    const char *from = ddbgen_jstr(new_field, "renamed_from");
    return from ? ddbgen_jfind(old_fields, "attr", from) : NULL;
}

static void entity_checks(const json_t *model, const json_t *e, ddbgen_diags *d)
{
    const json_t *ents = json_object_get(model, "entities");
    const char *from = ddbgen_jstr(e, "renamed_from");
    ddbgen_loc at = ddbgen_loc_of(e, "renamed_from_loc");
    size_t i;
    json_t *x;
    if (from && !strcmp(from, S(e, "name")))
        ddbgen_diag_add(d, DDBGEN_ERROR, at, "DDB_RENAMED_FROM(\"%s\") on '%s' names the entity itself: name the "
                                             "entity's name in the deployed schema, or remove it",
                        from, S(e, "name"));
    else if (from && ddbgen_jfind(ents, "name", from))
        ddbgen_diag_add(d, DDBGEN_ERROR, at, "DDB_RENAMED_FROM(\"%s\") on '%s': an entity named '%s' is still "
                                             "declared; the items of one name can become one entity only",
                        from, S(e, "name"), from);
    const json_t *first = from ? ddbgen__entity_renamed_to(model, from) : NULL;
    if (first && first != e)
        ddbgen_diag_add(d, DDBGEN_ERROR, at, "'%s' and '%s' are both DDB_RENAMED_FROM(\"%s\"): the items of one "
                                             "name can become one entity only",
                        S(first, "name"), S(e, "name"), from);
    json_array_foreach(json_object_get(e, "fields"), i, x) {
        const char *ff = ddbgen_jstr(x, "renamed_from");
        if (!ff)
            continue;
        ddbgen_loc fl = ddbgen_loc_of(x, "renamed_from_loc");
        const json_t *other = ddbgen_jfind(json_object_get(e, "fields"), "attr", ff);
        if (other == x)
            ddbgen_diag_add(d, DDBGEN_ERROR, fl, "DDB_RENAMED_FROM(\"%s\") on field '%s' of '%s' names its own "
                                                 "stored attribute: name the attribute it was stored as",
                            ff, S(x, "name"), S(e, "name"));
        else if (other)
            ddbgen_diag_add(d, DDBGEN_ERROR, fl, "DDB_RENAMED_FROM(\"%s\") on field '%s' of '%s': field '%s' is "
                                                 "still stored as '%s'",
                            ff, S(x, "name"), S(e, "name"), S(other, "name"), ff);
    }
}

void ddbgen__check_renames(const json_t *model, ddbgen_diags *d)
{
    const json_t *ents = json_object_get(model, "entities");
    size_t i, j;
    json_t *e, *t, *r;
    json_array_foreach(ents, i, e) entity_checks(model, e, d);
    json_array_foreach(json_object_get(model, "tables"), i, t) {
        json_array_foreach(json_object_get(t, "removed"), j, r) {
            const char *name = S(r, "entity");
            const json_t *still = ddbgen_jfind(ents, "name", name), *to = ddbgen__entity_renamed_to(model, name);
            if (still)
                ddbgen_diag_add(d, DDBGEN_ERROR, ddbgen_loc_of(r, "loc"),
                                "DDB_REMOVED(\"%s\", ...) in table '%s': entity '%s' is still declared", name,
                                S(t, "cname"), name);
            else if (to)
                ddbgen_diag_add(d, DDBGEN_ERROR, ddbgen_loc_of(r, "loc"),
                                "DDB_REMOVED(\"%s\", ...) in table '%s': '%s' is DDB_RENAMED_FROM(\"%s\"); an "
                                "entity's items are renamed or removed, not both",
                                name, S(t, "cname"), S(to, "name"), name);
            else if (ddbgen_jfind(json_object_get(t, "removed"), "entity", name) != r)
                ddbgen_diag_add(d, DDBGEN_ERROR, ddbgen_loc_of(r, "loc"),
                                "duplicate DDB_REMOVED(\"%s\", ...) in table '%s'", name, S(t, "cname"));
        }
    }
}
