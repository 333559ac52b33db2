/* compat.c — --check-compat: what an existing table's data makes of a new
 * schema.
 *
 * Both models are validated.  Things are matched the way the data matches
 * them: tables by C name (then by table name), indexes by name, entities by
 * their name (the type attribute's value), fields by stored attribute name,
 * key templates by their rendering with attribute names (so renaming a C
 * field that keeps its DDB_ATTR changes nothing).  Breaking changes are
 * errors at the new schema's location; compatible ones are notes.
 */
#include "plan.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef struct C {
    ddbgen_diags *d;
    json_t *old_m, *new_m;
    const char *old_name;
    int breaking;
} C;

static ddbgen_loc LOC(const json_t *obj) { return ddbgen_loc_of(obj, "loc"); }

static void __attribute__((format(printf, 3, 4))) breaking(C *c, ddbgen_loc l, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ddbgen_diag_vadd(c->d, DDBGEN_ERROR, l, fmt, ap);
    va_end(ap);
    c->breaking = 1;
}

static void __attribute__((format(printf, 3, 4))) compatible(C *c, ddbgen_loc l, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ddbgen_diag_vadd(c->d, DDBGEN_NOTE, l, fmt, ap);
    va_end(ap);
}

/* A change that the table's infrastructure (CloudFormation, Terraform, the
 * AWS CLI: ddbgen --emit-infra) must make too: a note. */
static void __attribute__((format(printf, 3, 4))) infra_change(C *c, ddbgen_loc l, const char *fmt, ...)
{
    char text[1536]; /* two names of at most 255 bytes and the words */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    ddbgen_diag_add(c->d, DDBGEN_NOTE, l, "infrastructure change: %s (ddbgen --emit-infra writes the new definition)",
                    text);
}

static const char *S(const json_t *o, const char *k)
{
    const char *s = ddbgen_jstr(o, k);
    return s ? s : "";
}

static int same(const char *a, const char *b) { return !strcmp(a ? a : "", b ? b : ""); }

static json_t *struct_of(const json_t *model, const char *cname)
{
    return ddbgen_jfind(json_object_get(model, "structs"), "cname", cname);
}

void ddbgen__template_text(ddbgen_buf *b, const json_t *model, const json_t *entity, const json_t *t)
{
    size_t i;
    json_t *seg;
    json_array_foreach(json_object_get(t, "segments"), i, seg) {
        const char *lit = ddbgen_jstr(seg, "lit");
        if (lit) {
            for (; *lit; lit++)
                ddbgen_buf_puts(b, *lit == '{' ? "{{" : *lit == '}' ? "}}" : (char[2]){*lit, 0});
            continue;
        }
        ddbgen_buf_puts(b, "{");
        json_t *fields = json_object_get(entity, "fields");
        size_t k;
        json_t *p;
        json_array_foreach(json_object_get(seg, "path"), k, p) {
            json_t *f = ddbgen_jfind(fields, "name", json_string_value(p));
            if (k)
                ddbgen_buf_puts(b, ".");
            ddbgen_buf_puts(b, f ? S(f, "attr") : json_string_value(p));
            fields = f ? json_object_get(struct_of(model, S(f, "struct")), "fields") : NULL;
        }
        if (ddbgen_jint(seg, "pad", 0))
            ddbgen_buf_printf(b, ":0%lld", ddbgen_jint(seg, "pad", 0));
        if (ddbgen_jstr(seg, "part"))
            ddbgen_buf_printf(b, "|%s", S(seg, "part"));
        if (ddbgen_jstr(seg, "case"))
            ddbgen_buf_printf(b, "|%s", S(seg, "case"));
        ddbgen_buf_puts(b, "}");
    }
}

/* Widening a number keeps every stored value readable. */
static int num_widens(const char *from, const char *to)
{
    if (same(from, to))
        return 1;
    int fb = atoi(from + 1), tb = atoi(to + 1);
    if (from[0] == 'f')
        return to[0] == 'f' && tb >= fb;
    if (to[0] == 'f')
        return (tb == 64 && fb <= 32) || (tb == 32 && fb <= 16);
    if (from[0] == to[0])
        return tb >= fb;
    return from[0] == 'u' && to[0] == 'i' && tb > fb;
}

static void compare_fields(C *c, const json_t *old_fields, const json_t *new_fields, const char *owner,
                           ddbgen_loc owner_loc, int entity_level, int sharding_compared, int depth);

/* Compares the types of two fields (or list items) with the same attribute. */
static void compare_type(C *c, const json_t *of, const json_t *nf, const char *what, ddbgen_loc l,
                         int depth)
{
    const char *ot = S(of, "type"), *nt = S(nf, "type");
    if (!same(ot, nt)) {
        breaking(c, l, "%s changed type from %s (%s) to %s (%s); stored values cannot be read as the "
                       "new type: needs a migration with a transform (ddbgen --plan-migration)",
                 what, ot, S(of, "ctype"), nt, S(nf, "ctype"));
        return;
    }
    if (!strcmp(nt, "S")) {
        long long om = ddbgen_jint(of, "max_len", -1), nm = ddbgen_jint(nf, "max_len", -1);
        int oo = ddbgen_jtrue(of, "optional"), no = ddbgen_jtrue(nf, "optional");
        if (oo && !no && json_object_get(nf, "optional"))
            breaking(c, l, "%s is now required (%s, was %s); existing items may lack it", what,
                     S(nf, "ctype"), S(of, "ctype"));
        else if (nm >= 0 && (om < 0 || nm < om))
            breaking(c, l, "%s now holds at most %lld bytes (%s, was %s); stored values may be "
                           "longer",
                     what, nm, S(nf, "ctype"), S(of, "ctype"));
    } else if (!strcmp(nt, "N") || !strcmp(nt, "NS")) {
        if (!num_widens(S(of, "num"), S(nf, "num")))
            breaking(c, l, "%s changed from %s to %s, which cannot hold every stored value", what,
                     S(of, "ctype"), S(nf, "ctype"));
    } else if (!strcmp(nt, "M") && depth < 32) {
        json_t *os = struct_of(c->old_m, S(of, "struct")), *ns = struct_of(c->new_m, S(nf, "struct"));
        compare_fields(c, json_object_get(os, "fields"), json_object_get(ns, "fields"), what, l, 0, 1,
                       depth + 1);
    } else if (!strcmp(nt, "L")) {
        char sub[600];
        snprintf(sub, sizeof sub, "the items of %s", what);
        compare_type(c, json_object_get(of, "item"), json_object_get(nf, "item"), sub, l, depth + 1);
    }
}

/* DDB_UNIQUE added or removed (docs/SCHEMA.md, "Unique fields at run time"):
 * the uniqueness items are written with the entity's writes, never for the
 * items already stored. */
static void compare_unique(C *c, const json_t *of, const json_t *nf, const char *what, const char *owner)
{
    const json_t *ou = json_object_get(of, "unique"), *nu = json_object_get(nf, "unique");
    char space[400]; /* owner is "'Entity'" */
    snprintf(space, sizeof space, "UNIQUE#%.*s#%s#", owner[0] == '\'' ? (int)strlen(owner) - 2 : (int)strlen(owner),
             owner[0] == '\'' ? owner + 1 : owner, S(nf, "attr"));
    if (nu && !ou)
        breaking(c, LOC(nu),
                 "%s is now DDB_UNIQUE; the items written before have no uniqueness items (\"%s<value>\"), so "
                 "their values are not claimed (a new item could take one of them) and two of them may already "
                 "hold the same value: needs a backfill that claims every stored value, finding the duplicates "
                 "first: ddbgen --plan-migration plans it (a claim step; ddb migrate --dry-run lists the duplicates) "
                 "(docs/SCHEMA.md, \"Changing a schema\")",
                 what, space);
    else if (ou && !nu)
        compatible(c, LOC(nf),
                   "%s is no longer DDB_UNIQUE: compatible; its uniqueness items (partition keys \"%s...\") "
                   "stay in the table and nothing reads them: delete them when convenient",
                   what, space);
}

static void compare_fields(C *c, const json_t *old_fields, const json_t *new_fields, const char *owner,
                           ddbgen_loc owner_loc, int entity_level, int sharding_compared, int depth)
{
    size_t i;
    json_t *of, *nf;
    char what[600];
    json_array_foreach(old_fields, i, of) {
        nf = ddbgen_jfind(new_fields, "attr", S(of, "attr"));
        json_t *rn;
        size_t j;
        json_array_foreach(new_fields, j, rn) {
            if (!nf && entity_level && ddbgen__field_renamed_from(old_fields, rn) == of) {
                nf = rn;
                breaking(c, ddbgen_loc_of(rn, "renamed_from_loc"),
                         "field '%s' of %s is now stored as '%s' (DDB_RENAMED_FROM(\"%s\")): items written before "
                         "hold it as '%s' until a migration renames it (ddbgen --plan-migration plans it)",
                         S(rn, "name"), owner, S(rn, "attr"), S(of, "attr"), S(of, "attr"));
            }
        }
        if (!nf) {
            compatible(c, owner_loc,
                       "field '%s' (attribute '%s') is no longer part of %s: compatible; existing "
                       "items keep the attribute",
                       S(of, "name"), S(of, "attr"), owner);
            continue;
        }
        ddbgen_loc l = LOC(nf);
        snprintf(what, sizeof what, "field '%s' of %s", S(nf, "name"), owner);
        compare_type(c, of, nf, what, l, depth);
        if (!entity_level)
            continue;
        const char *osh = ddbgen_jstr(json_object_get(of, "shard"), "id");
        const char *nsh = ddbgen_jstr(json_object_get(nf, "shard"), "id");
        if (sharding_compared && !same(osh, nsh) && !ddbgen_jtrue(nf, "key"))
            breaking(c, l, "%s moved from shard '%s' to shard '%s'; existing items keep it in the old "
                           "shard's item",
                     what, osh ? osh : "", nsh ? nsh : "");
        compare_unique(c, of, nf, what, owner);
        json_t *od = json_object_get(of, "derived"), *nd = json_object_get(nf, "derived");
        if (od && nd && !same(S(od, "template"), S(nd, "template")))
            compatible(c, LOC(nd),
                       "the DDB_DERIVED template of %s changed from \"%s\" to \"%s\": compatible; "
                       "existing items keep the old value until rewritten (a migration rewrites them)",
                       what, S(od, "template"), S(nd, "template"));
    }
    json_array_foreach(new_fields, i, nf) {
        if (ddbgen_jfind(old_fields, "attr", S(nf, "attr")) ||
            (entity_level && ddbgen__field_renamed_from(old_fields, nf)))
            continue;
        snprintf(what, sizeof what, "field '%s' of %s", S(nf, "name"), owner);
        if (ddbgen_jtrue(nf, "optional"))
            compatible(c, LOC(nf), "new optional %s: compatible", what);
        else if (json_object_get(nf, "default"))
            breaking(c, LOC(nf),
                     "new required %s (%s): items written before lack attribute '%s': migrate them, no code: "
                     "ddbgen --plan-migration fills its DDB_DEFAULT(\"%s\") (a rewrite)",
                     what, S(nf, "ctype"), S(nf, "attr"), ddbgen_jstr(json_object_get(nf, "default"), "value"));
        else
            breaking(c, LOC(nf),
                     "new required %s (%s): items written before lack attribute '%s'; make it "
                     "optional (char *, ddb_bytes, a list or a set), or migrate with a transform that "
                     "fills it",
                     what, S(nf, "ctype"), S(nf, "attr"));
    }
}

/* DDB_WRITE_SHARDS added, removed or changed: every stored item sits in
 * the partition its old suffix (or none) names. */
static void compare_write_shards(C *c, const json_t *ok, const json_t *nk, const char *name)
{
    const json_t *ow = json_object_get(ok, "write_shards"), *nw = json_object_get(nk, "write_shards");
    long long on = ow ? ddbgen_jint(ow, "count", 0) : 1, nn = nw ? ddbgen_jint(nw, "count", 0) : 1;
    const char *oby = ow ? S(ow, "by") : "", *nby = nw ? S(nw, "by") : "";
    if (on == nn && same(oby, nby))
        return;
    char was[64], now[64];
    snprintf(was, sizeof was, on > 1 ? "%lld write shards (%s)" : "no write shards", on, oby);
    snprintf(now, sizeof now, nn > 1 ? "%lld write shards (%s)" : "no write shards", nn, nby);
    breaking(c, nw ? LOC(nw) : LOC(nk),
             "the partition key of '%s' on index '%s' had %s and now has %s; items written before are "
             "in the partitions the old layout picked and would not be found: needs a migration (a "
             "rewrite, no code: ddbgen --plan-migration)",
             name, S(nk, "index"), was, now);
}

static void compare_keys(C *c, const json_t *oe, const json_t *ne, const char *name)
{
    size_t i;
    json_t *ok, *nk;
    json_array_foreach(json_object_get(oe, "keys"), i, ok) {
        const char *index = S(ok, "index");
        nk = ddbgen_jfind(json_object_get(ne, "keys"), "index", index);
        json_t *nt = ddbgen_jfind(json_object_get(c->new_m, "tables"), "cname", S(ne, "table"));
        if (!nk && !ddbgen_jfind(json_object_get(nt, "indexes"), "name", index))
            continue; /* the index is gone: reported once, on the table */
        if (!nk) {
            breaking(c, LOC(ne),
                     "'%s' no longer has a DDB_KEY for index '%s'; existing items stay in that index "
                     "with their old key: needs a migration (a rewrite removes it)",
                     name, index);
            continue;
        }
        const char *which[2] = {"pk", "sk"};
        for (int w = 0; w < 2; w++) {
            json_t *ot = json_object_get(ok, which[w]), *nt = json_object_get(nk, which[w]);
            if (!ot || !nt)
                continue; /* an index's sort key change is reported on the index */
            ddbgen_buf a = {0}, b = {0};
            ddbgen__template_text(&a, c->old_m, oe, ot);
            ddbgen__template_text(&b, c->new_m, ne, nt);
            if (strcmp(ddbgen_buf_str(&a), ddbgen_buf_str(&b)) != 0)
                breaking(c, LOC(nt),
                         "the %s key template of '%s' on index '%s' changed from \"%s\" to \"%s\"; "
                         "items written before are keyed the old way and would not be found: needs a "
                         "migration (a rewrite, no code: ddbgen --plan-migration)",
                         w ? "sort" : "partition", name, index, S(ot, "template"), S(nt, "template"));
            ddbgen_buf_free(&a);
            ddbgen_buf_free(&b);
        }
        compare_write_shards(c, ok, nk, name);
    }
    json_array_foreach(json_object_get(ne, "keys"), i, nk) {
        if (ddbgen_jfind(json_object_get(oe, "keys"), "index", S(nk, "index")))
            continue;
        if (json_object_get(nk, "pk_fields"))
            compatible(c, LOC(nk),
                       "'%s' joins index '%s', keyed on its fields: compatible, with no backfill (the items "
                       "written before carry those fields, and DynamoDB indexes those that have them all)",
                       name, S(nk, "index"));
        else
            compatible(c, LOC(nk),
                       "'%s' joins index '%s': compatible after a backfill; items written before lack "
                       "its key, and <table>_open refuses (DDB_EMODEL) until the backfill is run "
                       "(<table>_open_with .backfill = true, or ddbgen --plan-migration then ddb migrate)",
                       name, S(nk, "index"));
    }
}

static void compare_entity(C *c, const json_t *oe, const json_t *ne)
{
    const char *name = S(ne, "name");
    char owner[300];
    snprintf(owner, sizeof owner, "'%s'", name);
    json_t *ot = ddbgen_jfind(json_object_get(c->old_m, "tables"), "cname", S(oe, "table"));
    json_t *nt = ddbgen_jfind(json_object_get(c->new_m, "tables"), "cname", S(ne, "table"));
    if (!same(S(ot, "name"), S(nt, "name"))) {
        breaking(c, LOC(ne), "'%s' moved from table \"%s\" to table \"%s\"; its items stay in \"%s\"",
                 name, S(ot, "name"), S(nt, "name"), S(ot, "name"));
        return;
    }
    compare_keys(c, oe, ne, name);
    int os = json_array_size(json_object_get(oe, "shards")) > 0;
    int ns = json_array_size(json_object_get(ne, "shards")) > 0;
    if (os != ns)
        breaking(c, LOC(ne),
                 "'%s' is %s sharded; its items are stored as %s, so existing items would not be "
                 "found",
                 name, ns ? "now" : "no longer",
                 ns ? "one item per shard" : "one item instead of one per shard");
    else if (os && !same(S(oe, "shard_suffix"), S(ne, "shard_suffix")))
        breaking(c, LOC(ne), "the shard suffix of '%s' changed from \"%s\" to \"%s\"; shard items "
                             "written before would not be found",
                 name, S(oe, "shard_suffix"), S(ne, "shard_suffix"));
    compare_fields(c, json_object_get(oe, "fields"), json_object_get(ne, "fields"), owner, LOC(ne), 1,
                   os && ns, 0);
}

/* One side of an index's key as text: "GSI1PK S", or the attributes of a
 * key of fields in order ("country S, state S"); "(none)". */
static void key_side(ddbgen_buf *b, const json_t *x, int sort)
{
    const json_t *one = json_object_get(x, sort ? "sk" : "pk"), *parts = json_object_get(x, sort ? "sk_parts" : "pk_parts");
    size_t i;
    json_t *p;
    if (one)
        ddbgen_buf_printf(b, "%s %s", S(one, "attr"), S(one, "type") ? S(one, "type") : "S");
    json_array_foreach(parts, i, p) ddbgen_buf_printf(b, "%s%s %s", i ? ", " : "", S(p, "attr"), S(p, "type"));
    if (!one && !json_array_size(parts))
        ddbgen_buf_puts(b, "(none)");
}

static void compare_index(C *c, const json_t *ox, const json_t *nx, const char *table)
{
    const char *name = S(nx, "name");
    ddbgen_buf why = {0};
    if (!same(S(ox, "kind"), S(nx, "kind")))
        ddbgen_buf_printf(&why, "; kind %s -> %s", S(ox, "kind"), S(nx, "kind"));
    for (int w = 0; w < 2; w++) {
        ddbgen_buf a = {0}, b = {0};
        key_side(&a, ox, w);
        key_side(&b, nx, w);
        if (!same(ddbgen_buf_str(&a), ddbgen_buf_str(&b)))
            ddbgen_buf_printf(&why, "; %s key %s -> %s", w ? "sort" : "partition", ddbgen_buf_str(&a),
                              ddbgen_buf_str(&b));
        ddbgen_buf_free(&a);
        ddbgen_buf_free(&b);
    }
    json_t *op = json_object_get(ox, "projection"), *np = json_object_get(nx, "projection");
    if (op && np) {
        char *oa = json_dumps(json_object_get(op, "attributes"), JSON_COMPACT | JSON_ENCODE_ANY);
        char *na = json_dumps(json_object_get(np, "attributes"), JSON_COMPACT | JSON_ENCODE_ANY);
        if (!same(S(op, "type"), S(np, "type")) || !same(oa, na))
            ddbgen_buf_printf(&why, "; projection %s -> %s", S(op, "type"), S(np, "type"));
        free(oa);
        free(na);
    }
    if (why.len) {
        if (!strcmp(S(nx, "kind"), "primary"))
            breaking(c, LOC(nx), "the primary key of table \"%s\" changed (%s); a table's key schema "
                                 "is fixed when it is created",
                     table, ddbgen_buf_str(&why) + 2);
        else
            breaking(c, LOC(nx),
                     "index '%s' of table \"%s\" changed (%s); an index cannot be altered in place: "
                     "add a new index under another name instead",
                     name, table, ddbgen_buf_str(&why) + 2);
    }
    ddbgen_buf_free(&why);
}

/* What the infrastructure outputs (ddbgen --emit-infra) state besides the
 * indexes: stream, throughput, deletion protection, TTL attribute. */
static void compare_table_options(C *c, const json_t *ot, const json_t *nt)
{
    const char *name = S(nt, "name");
    if (!same(S(ot, "stream"), S(nt, "stream")))
        infra_change(c, LOC(nt), "the stream of table \"%s\" changes from %s to %s", name,
                     S(ot, "stream")[0] ? S(ot, "stream") : "none", S(nt, "stream")[0] ? S(nt, "stream") : "none");
    const json_t *op = json_object_get(ot, "provisioned"), *np = json_object_get(nt, "provisioned");
    long long orcu = ddbgen_jint(op, "rcu", 0), owcu = ddbgen_jint(op, "wcu", 0);
    long long nrcu = ddbgen_jint(np, "rcu", 0), nwcu = ddbgen_jint(np, "wcu", 0);
    if (orcu != nrcu || owcu != nwcu)
        infra_change(c, LOC(nt), "the capacity of table \"%s\" changes from %s to %s", name,
                     op ? "provisioned" : "on demand", np ? "provisioned" : "on demand");
    if (ddbgen_jtrue(ot, "deletion_protection") != ddbgen_jtrue(nt, "deletion_protection"))
        infra_change(c, LOC(nt), "deletion protection of table \"%s\" is turned %s", name,
                     ddbgen_jtrue(nt, "deletion_protection") ? "on" : "off");
}

static void compare_table(C *c, const json_t *ot, const json_t *nt)
{
    const char *name = S(nt, "name");
    if (!same(S(ot, "name"), name))
        breaking(c, LOC(nt), "table '%s' is now named \"%s\" (was \"%s\"); the existing data lives in "
                             "\"%s\"",
                 S(nt, "cname"), name, S(ot, "name"), S(ot, "name"));
    if (!same(S(ot, "type_attribute"), S(nt, "type_attribute"))) {
        ddbgen_loc l = ddbgen_loc_of(nt, "type_attribute_loc");
        breaking(c, l.file ? l : LOC(nt),
                 "the type attribute of table \"%s\" changed from '%s' to '%s'; existing items "
                 "carry their entity name in '%s'",
                 name, S(ot, "type_attribute"), S(nt, "type_attribute"), S(ot, "type_attribute"));
    }
    size_t i;
    json_t *ox, *nx;
    json_array_foreach(json_object_get(ot, "indexes"), i, ox) {
        nx = ddbgen_jfind(json_object_get(nt, "indexes"), "name", S(ox, "name"));
        if (!nx)
            breaking(c, LOC(nt),
                     "index '%s' was removed from table \"%s\"; DynamoDB drops its data and queries "
                     "on it stop working",
                     S(ox, "name"), name);
        else
            compare_index(c, ox, nx, name);
    }
    json_array_foreach(json_object_get(nt, "indexes"), i, nx) {
        if (!ddbgen_jfind(json_object_get(ot, "indexes"), "name", S(nx, "name"))) {
            compatible(c, LOC(nx),
                       "new index '%s' on table \"%s\": compatible; <table>_open creates it and "
                       "DynamoDB indexes the existing items that carry its key attributes",
                       S(nx, "name"), name);
            infra_change(c, LOC(nx), "index '%s' of table \"%s\" is new: deploy it before the code that queries it",
                         S(nx, "name"), name);
        }
    }
    json_array_foreach(json_object_get(ot, "indexes"), i, ox)
        if (!ddbgen_jfind(json_object_get(nt, "indexes"), "name", S(ox, "name")))
            infra_change(c, LOC(nt), "index '%s' is dropped from table \"%s\"", S(ox, "name"), name);
    compare_table_options(c, ot, nt);
}

int ddbgen__compat(json_t *old_model, json_t *new_model, const char *old_name, ddbgen_diags *d)
{
    C c = {d, old_model, new_model, old_name, 0};
    json_t *new_tables = json_object_get(new_model, "tables");
    ddbgen_loc schema_loc = {ddbgen_jstr(new_model, "schema"), 0, 0};
    size_t i;
    json_t *ot, *nt, *oe, *ne;
    json_array_foreach(json_object_get(old_model, "tables"), i, ot) {
        nt = ddbgen_jfind(new_tables, "cname", S(ot, "cname"));
        if (!nt)
            nt = ddbgen_jfind(new_tables, "name", S(ot, "name"));
        if (!nt)
            breaking(&c, schema_loc, "table \"%s\" ('%s' in %s) is no longer declared",
                     S(ot, "name"), S(ot, "cname"), old_name);
        else
            compare_table(&c, ot, nt);
    }
    json_array_foreach(new_tables, i, nt) {
        if (!ddbgen_jfind(json_object_get(old_model, "tables"), "cname", S(nt, "cname")) &&
            !ddbgen_jfind(json_object_get(old_model, "tables"), "name", S(nt, "name")))
            compatible(&c, LOC(nt), "new table \"%s\": compatible", S(nt, "name"));
    }
    json_t *new_entities = json_object_get(new_model, "entities");
    json_array_foreach(json_object_get(old_model, "entities"), i, oe) {
        ne = ddbgen_jfind(new_entities, "name", S(oe, "name"));
        if (ne) {
            compare_entity(&c, oe, ne);
            continue;
        }
        json_t *old_t = ddbgen_jfind(json_object_get(old_model, "tables"), "cname", S(oe, "table"));
        if ((ne = (json_t *)ddbgen__entity_renamed_to(new_model, S(oe, "name")))) {
            breaking(&c, ddbgen_loc_of(ne, "renamed_from_loc"),
                     "entity '%s' is now '%s' (DDB_RENAMED_FROM): its stored items carry %s = \"%s\" until a "
                     "migration renames them (ddbgen --plan-migration plans it)",
                     S(oe, "name"), S(ne, "name"), S(old_t, "type_attribute"), S(oe, "name"));
            compare_entity(&c, oe, ne);
            continue;
        }
        nt = ddbgen_jfind(new_tables, "name", S(old_t, "name"));
        const json_t *rm = ddbgen__entity_removal(new_model, S(old_t, "name"), S(oe, "name"));
        if (rm && !strcmp(S(rm, "items"), "keep"))
            compatible(&c, LOC(rm), "entity '%s' was removed (DDB_REMOVED, \"keep\"): compatible; its stored items "
                                    "(%s = \"%s\") stay in the table, unread",
                       S(oe, "name"), S(old_t, "type_attribute"), S(oe, "name"));
        else if (rm)
            breaking(&c, LOC(rm), "entity '%s' was removed (DDB_REMOVED, \"delete\"): its stored items (%s = \"%s\") "
                                  "are deleted by a migration (ddbgen --plan-migration plans it)",
                     S(oe, "name"), S(old_t, "type_attribute"), S(oe, "name"));
        else
            breaking(&c, nt ? LOC(nt) : schema_loc,
                     "entity '%s' was removed or renamed; existing items with %s = \"%s\" would no "
                     "longer be read: say what becomes of them, DDB_RENAMED_FROM(\"%s\") on the entity it is now, "
                     "or DDB_REMOVED(\"%s\", \"delete\") (or \"keep\") in its DDB_TABLE",
                     S(oe, "name"), S(old_t, "type_attribute"), S(oe, "name"), S(oe, "name"), S(oe, "name"));
    }
    json_array_foreach(new_entities, i, ne) {
        const char *from = ddbgen_jstr(ne, "renamed_from");
        if (!ddbgen_jfind(json_object_get(old_model, "entities"), "name", S(ne, "name")) &&
            !(from && ddbgen_jfind(json_object_get(old_model, "entities"), "name", from)))
            compatible(&c, LOC(ne), "new entity '%s': compatible", S(ne, "name"));
    }
    return c.breaking ? DDBGEN_ESCHEMA : DDBGEN_OK;
}
