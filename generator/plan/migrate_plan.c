/* migrate_plan.c — --plan-migration: how the stored items of a deployed
 * model (an earlier --emit-model) become items of the new schema, as a
 * JSON document a user reviews and `ddb migrate` / ddb_ent_migrate apply.
 *
 * Things are matched as compat.c matches them (tables by C name then
 * name, entities by name, fields by stored attribute, a field whose C name
 * stays but whose stored name changes is a rename), and by what renames.c
 * reads (DDB_RENAMED_FROM on an entity or field: a rename; an old entity
 * neither declared nor renamed must be DDB_REMOVED).  Per entity, every
 * change is listed with what it takes:
 *   "none"       nothing to do (a new optional field, a widened number)
 *   "rewrite"    every stored item is read by the new schema and written in
 *                its new form (key templates, index keys, stored names,
 *                derived fields, new fields' DDB_DEFAULTs): no user code
 *   "transform"  as rewrite, with a user callback from the old struct to
 *                the new one (a type change, a new required field)
 *   "delete"     an entity the new schema removed with DDB_REMOVED(name,
 *                "delete"): its stored items are deleted
 *   "claim"      items stay as they are, but a field is now DDB_UNIQUE: the
 *                entity's "claims" lists the fields whose stored values get
 *                their uniqueness items (with a rewrite or transform, the
 *                same list goes with it)
 * A sharded entity's items are rewritten a logical item at a time (its
 * shard items read together, written in the new layout in one
 * transaction).  Changes nothing can migrate (a table renamed, a primary
 * key or an index altered, an entity moved, sharded or unsharded, a shard
 * suffix changed) are errors at the new schema's location.  Calls jansson, jsonutil.c and compat.c's template text. */
#include "plan.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct P {
    ddbgen_diags *d;
    const json_t *old_m, *new_m;
    int impossible;
} P;

static const char *S(const json_t *o, const char *k)
{
    const char *s = ddbgen_jstr(o, k);
    return s ? s : "";
}

static int same(const char *a, const char *b) { return !strcmp(a ? a : "", b ? b : ""); }

static void __attribute__((format(printf, 3, 4))) impossible(P *p, const json_t *at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ddbgen_diag_vadd(p->d, DDBGEN_ERROR, ddbgen_loc_of(at, "loc"), fmt, ap);
    va_end(ap);
    p->impossible = 1;
}

/* Appends {"change": text, "migration": how} to changes. */
static void __attribute__((format(printf, 3, 4))) change(json_t *changes, const char *how, const char *fmt, ...)
{
    char text[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    json_array_append_new(changes, json_pack("{s:s,s:s}", "change", text, "migration", how));
}

/* Removes every "loc" member (and *_loc) below doc. */
static void strip_locations(json_t *doc)
{
    if (json_is_array(doc)) {
        size_t i;
        json_t *v;
        json_array_foreach(doc, i, v) strip_locations(v);
        return;
    }
    if (!json_is_object(doc))
        return;
    const char *k;
    json_t *v;
    void *tmp;
    json_object_foreach_safe(doc, tmp, k, v) {
        size_t n = strlen(k);
        if (!strcmp(k, "loc") || (n > 4 && !strcmp(k + n - 4, "_loc")))
            json_object_del(doc, k);
        else
            strip_locations(v);
    }
}

/* FNV-1a 64 of a document's canonical text without source locations and
 * the schema's path, as 16 hex digits. */
static void doc_hash(const json_t *doc, char out[17])
{
    json_t *copy = json_deep_copy(doc);
    strip_locations(copy);
    if (json_is_object(copy))
        json_object_del(copy, "schema");
    char *text = copy ? ddbgen_model_to_string(copy) : NULL;
    uint64_t h = 1469598103934665603ull;
    for (const char *c = text ? text : ""; *c; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ull;
    free(text);
    json_decref(copy);
    snprintf(out, 17, "%016llx", (unsigned long long)h);
}

static const json_t *find_key(const json_t *entity, const char *index)
{
    return ddbgen_jfind(json_object_get(entity, "keys"), "index", index);
}

static void compare_keys(P *p, const json_t *oe, const json_t *ne, json_t *changes)
{
    size_t i;
    json_t *ok, *nk;
    json_array_foreach(json_object_get(ne, "keys"), i, nk) {
        const char *ix = S(nk, "index");
        ok = (json_t *)find_key(oe, ix);
        if (!ok && json_object_get(nk, "pk_fields")) {
            change(changes, "none",
                   "joins index '%s', keyed on its fields: the stored items carry them already (no backfill)", ix);
            continue;
        }
        if (!ok) {
            change(changes, "rewrite", "joins index '%s': its stored items get the key attributes", ix);
            continue;
        }
        json_t *ow = json_deep_copy(json_object_get(ok, "write_shards")),
               *nw = json_deep_copy(json_object_get(nk, "write_shards"));
        strip_locations(ow);
        strip_locations(nw);
        if (!json_equal(ow, nw) && (ow || nw))
            change(changes, "rewrite", "the write shards of index '%s' changed: items are rendered with the new "
                                       "partition key suffixes",
                   ix);
        json_decref(ow);
        json_decref(nw);
        const char *which[2] = {"pk", "sk"};
        for (int w = 0; w < 2; w++) {
            json_t *ot = json_object_get(ok, which[w]), *nt = json_object_get(nk, which[w]);
            if (!ot || !nt)
                continue;
            ddbgen_buf a = {0}, b = {0};
            ddbgen__template_text(&a, p->old_m, oe, ot);
            ddbgen__template_text(&b, p->new_m, ne, nt);
            if (strcmp(ddbgen_buf_str(&a), ddbgen_buf_str(&b)) != 0)
                change(changes, "rewrite",
                       "the %s key template on index '%s' changed from \"%s\" to \"%s\": items are rendered "
                       "the new way%s",
                       w ? "sort" : "partition", ix, S(ot, "template"), S(nt, "template"),
                       strcmp(ix, "table") ? "" : " and moved to their new primary key");
            ddbgen_buf_free(&a);
            ddbgen_buf_free(&b);
        }
    }
    json_array_foreach(json_object_get(oe, "keys"), i, ok) {
        if (find_key(ne, S(ok, "index")))
            continue;
        if (json_object_get(ok, "pk_fields"))
            change(changes, "none", "leaves index '%s', keyed on its fields: the fields stay", S(ok, "index"));
        else
            change(changes, "rewrite", "leaves index '%s': the key attributes are removed from its stored items",
                   S(ok, "index"));
    }
}

static void compare_fields(const json_t *oe, const json_t *ne, json_t *changes, json_t *renames)
{
    size_t i;
    json_t *of, *nf;
    const json_t *ofs = json_object_get(oe, "fields"), *nfs = json_object_get(ne, "fields");
    json_array_foreach(nfs, i, nf) {
        const char *name = S(nf, "name");
        of = ddbgen_jfind(ofs, "attr", S(nf, "attr"));
        const json_t *was = of ? NULL : ddbgen__field_renamed_from(ofs, nf); /* DDB_RENAMED_FROM */
        if (was || (!of && (of = ddbgen_jfind(ofs, "name", name)) && !ddbgen_jfind(nfs, "attr", S(of, "attr")))) {
            if (was)
                of = (json_t *)was;
            json_array_append_new(renames, json_pack("{s:s,s:s}", "from", S(of, "attr"), "to", S(nf, "attr")));
            change(changes, "rewrite", "field '%s' is now stored as '%s' (was '%s')", name, S(nf, "attr"),
                   S(of, "attr"));
        } else if (!of) {
            const char *dflt = ddbgen_jstr(json_object_get(nf, "default"), "value");
            if (dflt) /* the stored items get the default, as a create would give it */
                change(changes, "rewrite", "new field '%s' with DDB_DEFAULT(\"%s\"): each stored item lacking it gets "
                                           "the default (and the keys that use it)",
                       name, dflt);
            else if (ddbgen_jtrue(nf, "optional"))
                change(changes, "none", "new optional field '%s'", name);
            else
                change(changes, "transform", "new required field '%s' (%s): your transform fills it", name,
                       S(nf, "ctype"));
            continue;
        }
        if (!same(S(of, "ctype"), S(nf, "ctype"))) {
            const char *ot = S(of, "type"), *nt = S(nf, "type");
            int widen = !strcmp(ot, "N") && !strcmp(nt, "N");
            if (same(ot, nt) && !strcmp(nt, "S") && ddbgen_jint(nf, "max_len", -1) < 0)
                widen = 1; /* any string into char * */
            change(changes, widen ? "none" : "transform", "field '%s' changed type from %s to %s%s", name,
                   S(of, "ctype"), S(nf, "ctype"), widen ? "" : ": your transform converts it");
        }
        json_t *od = json_object_get(of, "derived"), *nd = json_object_get(nf, "derived");
        if (nd && (!od || !same(S(od, "template"), S(nd, "template"))))
            change(changes, "rewrite", "the derived field '%s' is now \"%s\": stored values are computed again",
                   name, S(nd, "template"));
    }
}

/* A sharded entity's layout: shard ids, and the shard of each field.
 * Each logical item's shard items are read together and written in the
 * new layout in one transaction.  Returns whether it changed. */
static int compare_shards(const json_t *oe, const json_t *ne, json_t *changes)
{
    int changed = 0;
    ddbgen_buf a = {0}, b = {0};
    size_t i;
    json_t *x;
    json_array_foreach(json_object_get(oe, "shards"), i, x) ddbgen_buf_printf(&a, "%s%s", i ? "," : "", S(x, "id"));
    json_array_foreach(json_object_get(ne, "shards"), i, x) ddbgen_buf_printf(&b, "%s%s", i ? "," : "", S(x, "id"));
    if (strcmp(ddbgen_buf_str(&a), ddbgen_buf_str(&b))) {
        change(changes, "rewrite", "the shards changed from [%s] to [%s]: each item's shard items are written in the "
                                   "new layout, in one transaction",
               ddbgen_buf_str(&a), ddbgen_buf_str(&b));
        changed = 1;
    }
    ddbgen_buf_free(&a);
    ddbgen_buf_free(&b);
    json_array_foreach(json_object_get(ne, "fields"), i, x) {
        const json_t *of = ddbgen_jfind(json_object_get(oe, "fields"), "attr", S(x, "attr"));
        const char *os = ddbgen_jstr(json_object_get(of, "shard"), "id"), *ns = ddbgen_jstr(json_object_get(x, "shard"), "id");
        if (of && !same(os, ns) && !ddbgen_jtrue(x, "key")) {
            change(changes, "rewrite", "field '%s' moved from shard %s to shard %s: each item's shard items are "
                                       "written in the new layout, in one transaction",
                   S(x, "name"), os ? os : "(none)", ns ? ns : "(none)");
            changed = 1;
        }
    }
    return changed;
}

/* The fields of ne that are now DDB_UNIQUE (C names): the migration claims
 * their stored values (a uniqueness item each, in one transaction with a
 * check that the item still holds the value; a duplicate stops it). */
static json_t *claim_fields(P *p, const json_t *oe, const json_t *ne, int sharded, json_t *changes)
{
    json_t *claims = json_array(), *nf;
    size_t i;
    json_array_foreach(json_object_get(ne, "fields"), i, nf) {
        const json_t *of = ddbgen_jfind(json_object_get(oe, "fields"), "attr", S(nf, "attr"));
        if (!of || !json_object_get(nf, "unique") || json_object_get(of, "unique"))
            continue;
        if (sharded) {
            impossible(p, json_object_get(nf, "unique"),
                       "field '%s' of '%s' is now DDB_UNIQUE: a migration cannot claim the stored values of a "
                       "sharded entity; claim them with your own program first (docs/SCHEMA.md, \"Unique fields "
                       "at run time\")",
                       S(nf, "name"), S(ne, "name"));
            continue;
        }
        json_array_append_new(claims, json_string(S(nf, "name")));
        change(changes, "claim",
               "field '%s' is now DDB_UNIQUE: each stored value is claimed (its uniqueness item written, with a "
               "check that the item still holds it); two items holding one value stop the migration (ddb migrate "
               "--dry-run lists them first)",
               S(nf, "name"));
    }
    return claims;
}

/* The plan of one entity present in both models. */
static json_t *plan_entity(P *p, const json_t *oe, const json_t *ne)
{
    json_t *changes = json_array(), *renames = json_array();
    const json_t *ot = ddbgen_jfind(json_object_get(p->old_m, "tables"), "cname", S(oe, "table"));
    const json_t *nt = ddbgen_jfind(json_object_get(p->new_m, "tables"), "cname", S(ne, "table"));
    if (!same(S(ot, "name"), S(nt, "name")))
        impossible(p, ne, "'%s' moved from table \"%s\" to table \"%s\": no migration moves items between tables",
                   S(ne, "name"), S(ot, "name"), S(nt, "name"));
    int os = json_array_size(json_object_get(oe, "shards")) > 0, ns = json_array_size(json_object_get(ne, "shards")) > 0;
    compare_keys(p, oe, ne, changes);
    compare_fields(oe, ne, changes, renames);
    const char *how = "none";
    size_t i;
    json_t *c;
    json_array_foreach(changes, i, c) {
        const char *m = S(c, "migration");
        if (!strcmp(m, "transform"))
            how = "transform";
        else if (!strcmp(m, "rewrite") && !strcmp(how, "none"))
            how = "rewrite";
    }
    json_t *claims = claim_fields(p, oe, ne, ns, changes);
    if (json_array_size(claims) && !strcmp(how, "none"))
        how = "claim";
    if (os != ns)
        impossible(p, ne, "'%s' is %s sharded: no migration shards or unshards an entity's items (copy them into "
                          "a new entity)",
                   S(ne, "name"), ns ? "now" : "no longer");
    else if (os && !same(S(oe, "shard_suffix"), S(ne, "shard_suffix")))
        impossible(p, ne, "the shard suffix of '%s' changed from \"%s\" to \"%s\": the migration finds an item's "
                          "shard items by their suffix",
                   S(ne, "name"), S(oe, "shard_suffix"), S(ne, "shard_suffix"));
    if (os && ns && compare_shards(oe, ne, changes) && !strcmp(how, "none"))
        how = "rewrite";
    if (!same(S(oe, "name"), S(ne, "name"))) {
        change(changes, "rewrite", "entity '%s' is now '%s' (DDB_RENAMED_FROM): each stored item gets its new name "
                                   "in the type attribute and its keys rendered anew",
               S(oe, "name"), S(ne, "name"));
        if (!strcmp(how, "none") || !strcmp(how, "claim"))
            how = "rewrite";
    }
    json_t *pe = json_pack("{s:s,s:s,s:s,s:s,s:o,s:o}", "entity", S(ne, "name"), "cname", S(ne, "cname"), "struct",
                           S(ne, "ctype"), "migration", how, "changes", changes, "renames", renames);
    if (!same(S(oe, "name"), S(ne, "name"))) /* only then: the other plans keep their ids */
        json_object_set_new(pe, "renamed_from", json_string(S(oe, "name")));
    if (json_array_size(claims)) /* only then: the plans without claims keep their ids */
        json_object_set(pe, "claims", claims);
    json_decref(claims);
    return pe;
}

/* Old entity oe of table ot that the new schema does not declare under its
 * name: renamed (planned with the entity it became: NULL here), removed
 * with its items deleted (a "delete" step) or kept (NULL), or unsaid (a
 * located error: its items would be orphaned). */
static json_t *removed_entity(P *p, const json_t *ot, const json_t *nt, const json_t *oe)
{
    const char *name = S(oe, "name");
    if (ddbgen__entity_renamed_to(p->new_m, name))
        return NULL;
    const json_t *rm = ddbgen__entity_removal(p->new_m, S(nt, "name"), name);
    if (!rm) {
        impossible(p, nt, "entity '%s' was removed or renamed: its stored items (%s = \"%s\") would be read by no "
                          "schema; say what becomes of them: DDB_RENAMED_FROM(\"%s\") on the entity it is now, or "
                          "DDB_REMOVED(\"%s\", \"delete\") (or \"keep\") in DDB_TABLE(%s, ...)",
                   name, S(ot, "type_attribute"), name, name, name, S(nt, "cname"));
        return NULL;
    }
    if (strcmp(S(rm, "items"), "delete"))
        return NULL; /* "keep": the items stay, unread */
    json_t *changes = json_array();
    change(changes, "delete", "entity '%s' was removed (DDB_REMOVED, \"delete\"): each stored item (%s = \"%s\") "
                              "is deleted",
           name, S(ot, "type_attribute"), name);
    return json_pack("{s:s,s:s,s:s,s:s,s:o,s:[]}", "entity", name, "cname", S(oe, "cname"), "struct", S(oe, "ctype"),
                     "migration", "delete", "changes", changes, "renames");
}

static json_t *plan_table(P *p, const json_t *ot, const json_t *nt)
{
    json_t *create = json_array(), *drop = json_array(), *entities = json_array();
    if (!same(S(ot, "name"), S(nt, "name")))
        impossible(p, nt, "table '%s' is now named \"%s\" (was \"%s\"): no migration renames a table",
                   S(nt, "cname"), S(nt, "name"), S(ot, "name"));
    size_t i;
    json_t *ox, *nx;
    json_array_foreach(json_object_get(nt, "indexes"), i, nx) {
        ox = ddbgen_jfind(json_object_get(ot, "indexes"), "name", S(nx, "name"));
        if (!ox) {
            if (!strcmp(S(nx, "kind"), "lsi"))
                impossible(p, nx, "new local index '%s': a local index can only be created with the table",
                           S(nx, "name"));
            json_array_append_new(create, json_string(S(nx, "name")));
            continue;
        }
        json_t *oc = json_deep_copy(ox), *nc = json_deep_copy(nx);
        strip_locations(oc); /* where it is written is no change (the projection's too) */
        strip_locations(nc);
        if (!json_equal(oc, nc))
            impossible(p, nx, "index '%s' of table \"%s\" changed: an index cannot be altered in place; add a new "
                              "index under another name",
                       S(nx, "name"), S(nt, "name"));
        json_decref(oc);
        json_decref(nc);
    }
    json_array_foreach(json_object_get(ot, "indexes"), i, ox) {
        if (!ddbgen_jfind(json_object_get(nt, "indexes"), "name", S(ox, "name")))
            json_array_append_new(drop, json_string(S(ox, "name")));
    }
    json_t *oe, *ne;
    json_array_foreach(json_object_get(p->new_m, "entities"), i, ne) {
        if (strcmp(S(ne, "table"), S(nt, "cname")))
            continue;
        oe = ddbgen_jfind(json_object_get(p->old_m, "entities"), "name", S(ne, "name"));
        if (!oe && ddbgen_jstr(ne, "renamed_from"))
            oe = ddbgen_jfind(json_object_get(p->old_m, "entities"), "name", ddbgen_jstr(ne, "renamed_from"));
        if (!oe)
            continue; /* a new entity: no stored items */
        json_t *pe = plan_entity(p, oe, ne);
        if (strcmp(S(pe, "migration"), "none"))
            json_array_append_new(entities, pe);
        else
            json_decref(pe);
    }
    json_array_foreach(json_object_get(p->old_m, "entities"), i, oe) {
        if (strcmp(S(oe, "table"), S(ot, "cname")) || ddbgen_jfind(json_object_get(p->new_m, "entities"), "name",
                                                                   S(oe, "name")))
            continue;
        json_t *pe = removed_entity(p, ot, nt, oe);
        if (pe)
            json_array_append_new(entities, pe);
    }
    return json_pack("{s:s,s:s,s:o,s:o,s:o}", "table", S(nt, "name"), "cname", S(nt, "cname"), "create_indexes",
                     create, "drop_indexes", drop, "entities", entities);
}

int ddbgen__migration_plan(const json_t *old_model, const json_t *new_model, json_t **out, ddbgen_diags *d)
{
    P p = {d, old_model, new_model, 0};
    char from[17], to[17], id[40];
    doc_hash(old_model, from);
    doc_hash(new_model, to);
    json_t *tables = json_array();
    size_t i;
    json_t *ot, *nt;
    json_array_foreach(json_object_get(new_model, "tables"), i, nt) {
        ot = ddbgen_jfind(json_object_get(old_model, "tables"), "cname", S(nt, "cname"));
        if (!ot)
            ot = ddbgen_jfind(json_object_get(old_model, "tables"), "name", S(nt, "name"));
        if (!ot)
            continue; /* a new table: created by <table>_open */
        json_t *pt = plan_table(&p, ot, nt);
        if (json_array_size(json_object_get(pt, "entities")) || json_array_size(json_object_get(pt, "create_indexes")) ||
            json_array_size(json_object_get(pt, "drop_indexes")))
            json_array_append_new(tables, pt);
        else
            json_decref(pt);
    }
    char what[17]; /* the id names the change itself: what the plan does */
    doc_hash(tables, what);
    snprintf(id, sizeof id, "plan-%s", what);
    *out = json_pack("{s:s,s:i,s:s,s:s,s:s,s:s,s:o}", "format", "ddbgen-migration-plan", "version", 1, "id", id,
                     "from_model", from, "to_model", to, "schema", S(new_model, "schema"), "tables", tables);
    /* what each table's infrastructure (CloudFormation, Terraform, the AWS
     * CLI: ddbgen --emit-infra) must change too, in words; not part of the
     * id, which names what the plan does to the stored items */
    json_t *infra = json_array(), *pt, *x;
    size_t k;
    json_array_foreach(tables, i, pt) {
        json_array_foreach(json_object_get(pt, "create_indexes"), k, x)
            json_array_append_new(infra, json_sprintf("add index '%s' to table \"%s\" in its infrastructure "
                                                      "(ddbgen --emit-infra) and deploy it before code that queries it",
                                                      json_string_value(x), S(pt, "table")));
        json_array_foreach(json_object_get(pt, "drop_indexes"), k, x)
            json_array_append_new(infra, json_sprintf("remove index '%s' from table \"%s\" in its infrastructure "
                                                      "once no deployed code queries it",
                                                      json_string_value(x), S(pt, "table")));
    }
    if (*out && json_array_size(infra))
        json_object_set(*out, "infrastructure", infra);
    json_decref(infra);
    if (!*out) {
        ddbgen_diag_add(d, DDBGEN_ERROR, (ddbgen_loc){NULL, 0, 0}, "out of memory");
        return DDBGEN_EUSAGE;
    }
    return p.impossible ? DDBGEN_ESCHEMA : DDBGEN_OK;
}
