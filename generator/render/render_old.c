/* render_old.c — the context of <base>_old.{h,c} (`ddbgen -o DIR
 * --old-model OLD.json`): the old forms of the deployed model
 * (old_forms.c, lowered) as render_context.c makes any module's
 * descriptors, plus what only the old forms need: their C struct
 * definitions (the deployed header may be gone), and from the migration
 * plan, per entity it rewrites, the migration step (renames, claims, the typed
 * transform from the old struct to the new one) and per table the plan's
 * id.  Presentation only; may call ir.h, render_context.h and jansson. */
#include "c_text.h"
#include "render_context.h"

#include "internal.h"

#include <string.h>

static void set(json_t *o, const char *key, json_t *v) { json_object_set_new(o, key, v); }

/* The C member declarations of fields: [{"decl": "char city[32];"}...]. */
static json_t *decls(const ddbgen_ir_field *fields, size_t n)
{
    json_t *out = json_array();
    for (size_t i = 0; i < n; i++) {
        const ddbgen_ir_field *f = &fields[i];
        const char *br = strchr(f->ctype, '[');
        size_t len = br ? (size_t)(br - f->ctype) : strlen(f->ctype);
        json_t *d = json_object();
        if (br)
            set(d, "decl", ddbgen__rc_fmt("%.*s %s%s;", (int)len, f->ctype, f->name, br));
        else
            set(d, "decl", ddbgen__rc_fmt("%s%s%s;", f->ctype, f->ctype[len - 1] == '*' ? "" : " ", f->name));
        json_array_append_new(out, d);
        if (f->is_list && f->count_field) {
            json_t *c = json_object();
            set(c, "decl", ddbgen__rc_fmt("size_t %s;", f->count_field));
            json_array_append_new(out, c);
        }
    }
    return out;
}

static const ddbgen_ir_entity *new_entity(const ddbgen_ir *ir, const char *name)
{
    for (size_t i = 0; i < ir->n_entities; i++)
        if (!strcmp(ir->entities[i].name, name))
            return &ir->entities[i];
    return NULL;
}

/* The plan's entry for entity name (NULL: its items do not change). */
static const json_t *plan_entity(const json_t *plan, const char *name, const json_t **table)
{
    size_t i, j;
    json_t *t, *e;
    json_array_foreach(json_object_get(plan, "tables"), i, t) {
        json_array_foreach(json_object_get(t, "entities"), j, e) {
            const char *from = ddbgen_jstr(e, "renamed_from"); /* a renamed entity's entry names it as it was too */
            if (!strcmp(ddbgen_jstr(e, "entity") ? ddbgen_jstr(e, "entity") : "", name) || (from && !strcmp(from, name))) {
                *table = t;
                return e;
            }
        }
    }
    return NULL;
}

/* Entity o (old form e): its migration step, when the plan rewrites it. */
static void step_ctx(json_t *o, const ddbgen_ir_entity *e, const ddbgen_ir *new_ir, const json_t *plan)
{
    const json_t *pt = NULL, *pe = plan_entity(plan, e->name, &pt);
    const char *how = ddbgen_jstr(pe, "migration"), *now = ddbgen_jstr(pe, "entity");
    int removed = how && !strcmp(how, "delete");
    const ddbgen_ir_entity *ne = now ? new_entity(new_ir, now) : NULL;
    set(o, "has_step", json_boolean(pe && (ne || removed)));
    set(o, "removed", removed ? ddbgen__c_literal(e->name) : json_false());
    set(o, "renamed_from", ddbgen_jstr(pe, "renamed_from") ? ddbgen__c_literal(e->name) : json_false());
    if (removed) { /* the step of a removed entity: its items are deleted by name */
        set(o, "new_cname", json_string(ddbgen_jstr(pe, "cname") ? ddbgen_jstr(pe, "cname") : ""));
        return;
    }
    if (!pe || !ne)
        return;
    set(o, "new_cname", json_string(ne->cname));
    set(o, "new_ctype", json_string(ne->ctype));
    set(o, "transform", json_boolean(how && !strcmp(how, "transform")));
    json_t *renames = json_array();
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(pe, "renames"), i, r) {
        json_t *ro = json_object();
        set(ro, "from", ddbgen__c_literal(ddbgen_jstr(r, "from")));
        set(ro, "to", ddbgen__c_literal(ddbgen_jstr(r, "to")));
        json_array_append_new(renames, ro);
    }
    set(o, "has_renames", json_boolean(json_array_size(renames) > 0));
    set(o, "n_renames", json_integer((json_int_t)json_array_size(renames)));
    set(o, "renames", renames);
    json_t *claims = json_array(); /* the fields now DDB_UNIQUE whose stored values the step claims */
    json_array_foreach(json_object_get(pe, "claims"), i, r) {
        json_t *co = json_object();
        set(co, "name", ddbgen__c_literal(json_string_value(r)));
        json_array_append_new(claims, co);
    }
    set(o, "has_claims", json_boolean(json_array_size(claims) > 0));
    set(o, "n_claims", json_integer((json_int_t)json_array_size(claims)));
    set(o, "claims", claims);
}

/* Table o (old form t): the plan's id and steps, when the plan changes it. */
static void plan_ctx(json_t *o, const ddbgen_ir_table *t, const json_t *plan, const json_t *ents)
{
    const json_t *pt = NULL;
    size_t i;
    json_t *x;
    json_array_foreach(json_object_get(plan, "tables"), i, x) {
        const char *name = ddbgen_jstr(x, "table");
        if (name && !strcmp(name, t->name))
            pt = x;
    }
    set(o, "has_plan", json_boolean(pt != NULL));
    if (!pt)
        return;
    const char *ncname = ddbgen_jstr(pt, "cname");
    set(o, "new_cname", json_string(ncname ? ncname : ""));
    set(o, "new_cname_upper", ddbgen__rc_ident(ncname ? ncname : "", 1));
    set(o, "plan_id", ddbgen__c_literal(ddbgen_jstr(plan, "id")));
    /* the plan's model, recorded in the table's history: as the bytes of a
     * char array (a string literal may be at most 4095 characters in C11) */
    const char *model = ddbgen_jstr(plan, "model");
    ddbgen_buf b = {0};
    for (size_t k = 0; model && model[k]; k++)
        ddbgen_buf_printf(&b, "%u,%s", (unsigned)(unsigned char)model[k], k % 24 == 23 ? "\n    " : "");
    ddbgen_buf_puts(&b, "0");
    set(o, "model_bytes", json_string(ddbgen_buf_str(&b)));
    ddbgen_buf_free(&b);
    json_t *steps = json_array();
    json_array_foreach(ents, i, x) {
        if (json_is_true(json_object_get(x, "has_step")) &&
            !strcmp(json_string_value(json_object_get(x, "table")), t->cname)) {
            json_t *s = json_object();
            set(s, "new_cname", json_incref(json_object_get(x, "new_cname")));
            json_array_append_new(steps, s);
        }
    }
    set(o, "has_steps", json_boolean(json_array_size(steps) > 0));
    set(o, "steps", steps);
}

json_t *ddbgen__render_old_context(const ddbgen_ir *old_ir, const ddbgen_ir *new_ir, const json_t *plan,
                                   const char *base, const char *deployed)
{
    json_t *ctx = ddbgen__render_context(old_ir, base);
    if (!ctx)
        return NULL;
    set(ctx, "deployed", ddbgen__comment_literal(deployed));
    json_t *guard = ddbgen__rc_fmt("%s_OLD_H", base);
    set(ctx, "old_guard", ddbgen__rc_ident(json_string_value(guard), 1));
    json_decref(guard);
    size_t i;
    json_t *x;
    json_array_foreach(json_object_get(ctx, "structs"), i, x)
        set(x, "decls", decls(old_ir->structs[i].fields, old_ir->structs[i].n_fields));
    json_t *ents = json_object_get(ctx, "entities");
    json_array_foreach(ents, i, x) {
        const ddbgen_ir_entity *e = &old_ir->entities[i];
        set(x, "decls", decls(e->fields, e->n_fields));
        set(x, "has_updatable", json_false()); /* the old forms are never updated */
        set(x, "label", ddbgen__comment_literal(e->name));
        step_ctx(x, e, new_ir, plan);
    }
    json_array_foreach(json_object_get(ctx, "tables"), i, x) plan_ctx(x, &old_ir->tables[i], plan, ents);
    return ctx;
}
