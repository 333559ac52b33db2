/* old_forms.c — the deployed model (an earlier --emit-model) made into a
 * model of its own "old forms", for `ddbgen -o DIR --old-model OLD.json`:
 * the C structs a migration transform reads stored items into.
 *
 * Every table, struct and entity keeps its stored names (table name,
 * entity name, attributes, key templates) and gets the C name
 * "<cname>_old" ("struct customer" -> "struct customer_old"), so the old
 * forms live next to the new schema's structs in one program.  Field C
 * types are made independent of the old header, which may be gone:
 * numbers become the fixed-width type of their kind (an enum, a typedef ->
 * int32_t ...), nested structs their own old form.  Declared reads, writes
 * and collections are left out: the old forms only decode stored items.
 * Calls jansson and jsonutil.c only. */
#include "plan.h"

#include <stdio.h>
#include <string.h>

/* The fixed-width C type of a number kind ("i64" -> "int64_t"). */
static const char *num_ctype(const char *num)
{
    static const char *const map[][2] = {{"i8", "int8_t"},   {"i16", "int16_t"},  {"i32", "int32_t"},
                                         {"i64", "int64_t"}, {"u8", "uint8_t"},   {"u16", "uint16_t"},
                                         {"u32", "uint32_t"}, {"u64", "uint64_t"}, {"f32", "float"},
                                         {"f64", "double"}};
    for (size_t i = 0; num && i < sizeof map / sizeof *map; i++)
        if (!strcmp(num, map[i][0]))
            return map[i][1];
    return NULL;
}

static void set_str(json_t *o, const char *k, const char *v) { json_object_set_new(o, k, json_string(v)); }

/* "<s>_old" into o[k] when o[k] is a string. */
static void suffix(json_t *o, const char *k)
{
    const char *s = ddbgen_jstr(o, k);
    if (!s)
        return;
    char buf[512];
    snprintf(buf, sizeof buf, "%s%s", s, DDBGEN_OLD_SUFFIX);
    set_str(o, k, buf);
}

/* A field's or a list item's C type in the old forms. */
static void retype(json_t *v)
{
    const char *type = ddbgen_jstr(v, "type"), *num = num_ctype(ddbgen_jstr(v, "num"));
    char buf[512];
    if (!type)
        return;
    if (!strcmp(type, "N") && num) {
        set_str(v, "ctype", num);
    } else if (!strcmp(type, "M") && ddbgen_jstr(v, "struct")) {
        suffix(v, "struct");
        snprintf(buf, sizeof buf, "struct %s", ddbgen_jstr(v, "struct"));
        set_str(v, "ctype", buf);
    } else if (!strcmp(type, "L") && json_is_object(json_object_get(v, "item"))) {
        json_t *item = json_object_get(v, "item");
        retype(item);
        const char *ic = ddbgen_jstr(item, "ctype");
        snprintf(buf, sizeof buf, "%s%s*", ic ? ic : "void", ic && ic[strlen(ic) - 1] == '*' ? "" : " ");
        set_str(v, "ctype", buf);
    }
}

static void retype_fields(json_t *owner)
{
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(owner, "fields"), i, f) retype(f);
}

/* The owner's C name and struct type with the suffix. */
static void rename_type(json_t *o)
{
    suffix(o, "cname");
    char buf[512];
    snprintf(buf, sizeof buf, "struct %s", ddbgen_jstr(o, "cname"));
    set_str(o, "ctype", buf);
}

json_t *ddbgen__old_forms(const json_t *deployed)
{
    json_t *m = json_deep_copy(deployed);
    if (!m)
        return NULL;
    size_t i;
    json_t *x;
    json_array_foreach(json_object_get(m, "tables"), i, x) suffix(x, "cname");
    json_array_foreach(json_object_get(m, "structs"), i, x) {
        rename_type(x);
        retype_fields(x);
    }
    json_array_foreach(json_object_get(m, "entities"), i, x) {
        rename_type(x);
        suffix(x, "table");
        retype_fields(x);
        json_object_set_new(x, "collections", json_array());
        static const char *const reads_writes[] = {"patterns", "queries", "scans", "updates", "conditions"};
        for (size_t k = 0; k < sizeof reads_writes / sizeof *reads_writes; k++)
            json_object_del(x, reads_writes[k]);
    }
    return m;
}
