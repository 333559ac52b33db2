/* unique_space.c — the key space of the uniqueness items of DDB_UNIQUE
 * fields (docs/SCHEMA.md, "Unique fields at run time") against every key of
 * their table.
 *
 * A uniqueness item of field f of entity E holds four attributes: the
 * table's partition key "UNIQUE#<E>#<attr>#<value>", its sort key "UNIQUE",
 * the type attribute "ddb:unique" and "owner" (any text).  No entity's
 * primary key may be able to render its key (the items would overwrite
 * each other), nor may two unique fields' items (a '#' in a name can make
 * one key space part of another).  It also sits in every index whose key
 * attributes are among those four (an inverted index keyed on the sort
 * key, an index on the type attribute): there every such key attribute
 * must be a string, as in the table, or DynamoDB refuses the item.
 * Called from validate.c once the keys are resolved; may call internal.h
 * (the collision test of collision.c, JSON helpers) and diag.h. */
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ERR(l, ...) ddbgen_diag_add(d, DDBGEN_ERROR, (l), __VA_ARGS__)

static ddbgen_loc LOC(const json_t *o) { return ddbgen_loc_of(o, "loc"); }

/* The value a uniqueness item of e.f holds in attribute attr of table t, as
 * a resolved template ({type, template, segments}); NULL when the item has
 * no such attribute. */
static json_t *unique_value(const json_t *t, const json_t *e, const json_t *f, const char *attr)
{
    const json_t *primary = ddbgen_jfind(json_object_get(t, "indexes"), "kind", "primary");
    const char *pk = ddbgen_jstr(json_object_get(primary, "pk"), "attr");
    const char *sk = ddbgen_jstr(json_object_get(primary, "sk"), "attr");
    if (pk && !strcmp(attr, pk)) {
        char lit[600], tmpl[700];
        snprintf(lit, sizeof lit, "UNIQUE#%s#%s#", ddbgen_jstr(e, "name"), ddbgen_jstr(f, "attr"));
        snprintf(tmpl, sizeof tmpl, "%s{%s}", lit, ddbgen_jstr(f, "name"));
        /* the value's text: a number's digits, a string's or bytes' (hex) anything */
        const char *type = !strcmp(ddbgen_jstr(f, "type"), "N") ? "N" : "S";
        return json_pack("{s:s, s:s, s:[{s:s}, {s:s}]}", "type", "S", "template", tmpl, "segments", "lit", lit,
                         "type", type);
    }
    const char *type_attr = ddbgen_jstr(t, "type_attribute");
    const char *lit = sk && !strcmp(attr, sk)                    ? "UNIQUE"
                      : type_attr && !strcmp(attr, type_attr) ? "ddb:unique"
                                                               : NULL;
    if (lit)
        return json_pack("{s:s, s:s, s:[{s:s}]}", "type", "S", "template", lit, "segments", "lit", lit);
    if (!strcmp(attr, "owner")) /* "<pk>|<sk>" of the owning item */
        return json_pack("{s:s, s:s, s:[{s:s}]}", "type", "S", "template", "{owner}", "segments", "type", "S");
    return NULL;
}

/* The key of e.f's uniqueness items on index x ({pk, sk}); NULL when they
 * are not in x (they lack one of its key attributes). */
static json_t *unique_key_on(const json_t *t, const json_t *e, const json_t *f, const json_t *x)
{
    const char *pa = ddbgen_jstr(json_object_get(x, "pk"), "attr");
    const char *sa = ddbgen_jstr(json_object_get(x, "sk"), "attr");
    if (!strcmp(ddbgen_jstr(x, "kind"), "lsi")) { /* an LSI shares the table's partition key */
        const json_t *primary = ddbgen_jfind(json_object_get(t, "indexes"), "kind", "primary");
        pa = ddbgen_jstr(json_object_get(primary, "pk"), "attr");
    }
    json_t *pv = pa ? unique_value(t, e, f, pa) : NULL, *sv = sa ? unique_value(t, e, f, sa) : NULL;
    if (!pv || (sa && !sv)) {
        json_decref(pv);
        json_decref(sv);
        return NULL;
    }
    json_t *k = json_pack("{s:o}", "pk", pv);
    if (sv)
        json_object_set_new(k, "sk", sv);
    return k;
}

/* The type of key attribute attr in table t and where an entity key sets
 * it (keys are typed by the templates that render them); NULL if none. */
static const json_t *attr_key(const json_t *entities, const json_t *t, const char *attr)
{
    size_t i, k;
    json_t *e, *key;
    json_array_foreach(entities, i, e) {
        if (strcmp(ddbgen_jstr(e, "table"), ddbgen_jstr(t, "cname")))
            continue;
        json_array_foreach(json_object_get(e, "keys"), k, key) {
            const char *which[2] = {"pk", "sk"};
            for (int w = 0; w < 2; w++) {
                const json_t *part = json_object_get(key, which[w]);
                if (part && ddbgen_jstr(part, "type") && !strcmp(ddbgen_jstr(part, "attr") ? ddbgen_jstr(part, "attr") : "", attr))
                    return part;
            }
        }
    }
    return NULL;
}

/* Every key attribute of index x that the uniqueness items carry must be a
 * string: DynamoDB refuses an item whose key attribute has another type. */
static int check_types(ddbgen_diags *d, const json_t *entities, const json_t *t, const json_t *e, const json_t *f,
                       const json_t *x)
{
    const char *which[2] = {"pk", "sk"};
    for (int w = 0; w < 2; w++) {
        const char *attr = ddbgen_jstr(json_object_get(x, which[w]), "attr");
        json_t *v = attr ? unique_value(t, e, f, attr) : NULL;
        json_decref(v);
        const json_t *part = v ? attr_key(entities, t, attr) : NULL;
        const char *type = ddbgen_jstr(part, "type");
        if (!type || !strcmp(type, "S"))
            continue;
        long h = ERR(LOC(json_object_get(f, "unique")),
                     "DDB_UNIQUE field '%s' of '%s' needs string keys: its uniqueness items hold text in '%s', "
                     "which is a %s key attribute of table \"%s\"",
                     ddbgen_jstr(f, "name"), ddbgen_jstr(e, "name"), attr, !strcmp(type, "N") ? "number" : "binary",
                     ddbgen_jstr(t, "name"));
        ddbgen_diag_note(d, h, LOC(part), "'%s' gets its type from this key template", attr);
        return 1;
    }
    return 0;
}

/* Primary keys of the table that can render the key of e.f's uniqueness
 * items (uk): the two items would overwrite each other.  (In an index that
 * holds uniqueness items too, a shared key overwrites nothing, and readers
 * pass over items of other types.) */
static void check_entities(ddbgen_diags *d, const json_t *entities, const json_t *t, const json_t *e,
                           const json_t *f, const json_t *uk)
{
    json_t *none = json_pack("{s:[], s:s}", "shards", "shard_suffix", "");
    size_t j;
    json_t *other;
    json_array_foreach(entities, j, other) {
        json_t *ko = ddbgen_jfind(json_object_get(other, "keys"), "index", "table");
        char *so = NULL, *su = NULL;
        if (strcmp(ddbgen_jstr(other, "table"), ddbgen_jstr(t, "cname")) ||
            !json_object_get(json_object_get(ko, "pk"), "segments") ||
            !ddbgen__find_collision(other, ko, none, uk, &so, &su))
            continue;
        free(so);
        free(su);
        long h = ERR(LOC(ko),
                     "the primary key of '%s' (\"%s\") can collide with the uniqueness items of '%s'.'%s' "
                     "(\"%s\" / \"UNIQUE\"): start its partition key with a literal other than \"UNIQUE#\"",
                     ddbgen_jstr(other, "name"), ddbgen_jstr(json_object_get(ko, "pk"), "template"),
                     ddbgen_jstr(e, "name"), ddbgen_jstr(f, "name"), ddbgen_jstr(json_object_get(uk, "pk"), "template"));
        ddbgen_diag_note(d, h, LOC(json_object_get(f, "unique")), "DDB_UNIQUE is here");
    }
    json_decref(none);
}

/* Two unique fields of the table whose uniqueness items can share a key. */
static void check_pairs(ddbgen_diags *d, const json_t *entities, const json_t *t, const json_t *e,
                        const json_t *f, const json_t *primary, const json_t *uk)
{
    size_t j, k;
    json_t *e2, *f2;
    int after = 0; /* each pair once: from (e, f) on */
    json_array_foreach(entities, j, e2) {
        json_array_foreach(json_object_get(e2, "fields"), k, f2) {
            if (e2 == e && f2 == f) {
                after = 1;
                continue;
            }
            if (!after || !json_object_get(f2, "unique") || strcmp(ddbgen_jstr(e2, "table"), ddbgen_jstr(t, "cname")))
                continue;
            json_t *uk2 = unique_key_on(t, e2, f2, primary);
            if (uk2 && ddbgen__keys_may_collide(uk, "", uk2, "")) {
                long h = ERR(LOC(json_object_get(f2, "unique")),
                             "the uniqueness items of '%s'.'%s' (\"%s\") and of '%s'.'%s' (\"%s\") can collide: a "
                             "'#' in an entity or attribute name makes one key space part of the other; rename one "
                             "(DDB_ATTR)",
                             ddbgen_jstr(e2, "name"), ddbgen_jstr(f2, "name"),
                             ddbgen_jstr(json_object_get(uk2, "pk"), "template"), ddbgen_jstr(e, "name"),
                             ddbgen_jstr(f, "name"), ddbgen_jstr(json_object_get(uk, "pk"), "template"));
                ddbgen_diag_note(d, h, LOC(json_object_get(f, "unique")), "the other DDB_UNIQUE is here");
            }
            json_decref(uk2);
        }
    }
}

void ddbgen__check_unique_space(ddbgen_diags *d, const json_t *tables, const json_t *entities)
{
    size_t i, k, n;
    json_t *e, *f, *x;
    json_array_foreach(entities, i, e) {
        const json_t *t = ddbgen_jfind(tables, "cname", ddbgen_jstr(e, "table"));
        const json_t *primary = ddbgen_jfind(json_object_get(t, "indexes"), "kind", "primary");
        json_array_foreach(json_object_get(e, "fields"), k, f) {
            if (!json_object_get(f, "unique") || !primary)
                continue;
            int bad_types = 0;
            json_array_foreach(json_object_get(t, "indexes"), n, x) {
                json_t *uk = unique_key_on(t, e, f, x);
                if (uk && !bad_types)
                    bad_types = check_types(d, entities, t, e, f, x);
                json_decref(uk);
            }
            json_t *uk = unique_key_on(t, e, f, primary);
            if (uk && !bad_types) {
                check_entities(d, entities, t, e, f, uk);
                check_pairs(d, entities, t, e, f, primary, uk);
            }
            json_decref(uk);
        }
    }
}
