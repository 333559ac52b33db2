/* ddb — commands that speak the schema's model (--model FILE, from ddbgen
 * --emit-model): entities and fields instead of raw attributes.
 *
 *   ddb --model m.json patterns
 *   ddb --model m.json get Device device_id=d1
 *   ddb --model m.json query Device.by_site site_id=s1 [--begins F=V | --eq ... | --between F=LO,HI]
 *   ddb --model m.json put Reading '{"device_id": "d1", "taken_at": "...", "celsius": 21.5}'
 *   ddb --model m.json create ...   update Device device_id=d1 --set battery_pct=80   delete ...
 *
 * Items go in and out as plain JSON by field names (model_value.c); every
 * read and write goes through libddb's entity layer with descriptors built
 * from the model (model_desc.c), so keys, derived attributes, the type
 * attribute, defaults, ids, versions and shards follow the generated
 * code's rules.  May call cli.c's helpers, model_desc/model_value and
 * libddb's public API. */
#include "cli.h"
#include "model_value.h"

#include <stdlib.h>
#include <string.h>

typedef struct mctx {
    cli *c;
    model m;
    ddb_arena *a;
    char why[1024];
} mctx;

static int load(mctx *x, cli *c)
{
    memset(x, 0, sizeof *x);
    x->c = c;
    if (model_load(&x->m, c->model, x->why, sizeof x->why))
        return cli_failf(c, "%s", x->why);
    x->a = ddb_arena_new();
    return x->a ? 0 : cli_failf(c, "out of memory");
}

static void done(mctx *x)
{
    ddb_arena_free(x->a);
    model_free(&x->m);
}

static const model_entity *entity_arg(mctx *x, const char *name)
{
    const model_entity *e = model_entity_named(&x->m, name);
    if (!e) {
        char names[600] = "";
        size_t used = 0;
        for (size_t i = 0; i < x->m.n_ents && used + 1 < sizeof names; i++)
            used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "", x->m.ents[i].desc.name);
        cli_failf(x->c, "the model has no entity '%s' (it has %s)", name, names);
    }
    return e;
}

/* A zeroed struct of e. */
static void *new_obj(mctx *x, const model_entity *e)
{
    void *o = ddb_arena_alloc(x->a, e->desc.st->size);
    if (o)
        memset(o, 0, e->desc.st->size);
    return o;
}

/* The field "FIELD=VALUE" names (C member or stored attribute, compared
 * whole) and *value the text after '='; -1 without '=' (*value NULL) or
 * when no field has that name. */
static int field_of_arg(const ddb_struct_desc *st, const char *arg, const char **value)
{
    const char *eq = strchr(arg, '=');
    *value = eq ? eq + 1 : NULL;
    size_t n = eq ? (size_t)(eq - arg) : 0;
    for (uint16_t i = 0; eq && i < st->n_fields; i++)
        if ((strlen(st->fields[i].name) == n && !strncmp(st->fields[i].name, arg, n)) ||
            (strlen(st->fields[i].attr) == n && !strncmp(st->fields[i].attr, arg, n)))
            return i;
    return -1;
}

/* FIELD=VALUE arguments pos[from..] into obj; given collects the fields. */
static int field_args(mctx *x, const model_entity *e, size_t from, void *obj, ddb_ent_mask *given)
{
    for (size_t i = from; i < x->c->o.npos; i++) {
        const char *arg = x->c->o.pos[i], *value;
        int f = field_of_arg(e->desc.st, arg, &value);
        if (!value)
            return usage_error(x->c, "'%s' is not FIELD=VALUE", arg);
        if (f < 0)
            return cli_failf(x->c, "%s has no field '%.*s'", e->desc.name, (int)(value - 1 - arg), arg);
        if (model_field_text_in(e->desc.st, f, value, obj, x->a, x->why, sizeof x->why))
            return cli_failf(x->c, "%s", x->why);
        if (given)
            ddb_ent_mask_set(given, (unsigned)f);
    }
    return 0;
}

/* Every field the templates of key k read must be given. */
static int key_fields_given(mctx *x, const model_entity *e, const ddb_key_desc *k, const ddb_ent_mask *given,
                            bool with_sk)
{
    const ddb_template *ts[2] = {&k->pk, with_sk && k->sk_attr ? &k->sk : NULL};
    for (int t = 0; t < 2; t++)
        for (uint16_t s = 0; ts[t] && s < ts[t]->n; s++)
            if (!ts[t]->segs[s].lit && !ddb_ent_mask_has(given, ts[t]->segs[s].path[0]))
                return cli_failf(x->c, "%s's key needs %s=VALUE", e->desc.name,
                                 e->desc.st->fields[ts[t]->segs[s].path[0]].name);
    return 0;
}

static int print_obj(mctx *x, const model_entity *e, const void *obj, const ddb_ent_mask *mask)
{
    json_t *j = model_struct_out(e->desc.st, obj, mask);
    char *s = j ? json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY) : NULL;
    json_decref(j);
    if (!s)
        return cli_failf(x->c, "out of memory");
    printf("%s\n", s);
    free(s);
    return 0;
}

/* ---- patterns ---------------------------------------------------------------- */

static void print_template(const ddb_struct_desc *st, const ddb_template *t)
{
    for (uint16_t s = 0; s < t->n; s++) {
        if (t->segs[s].lit)
            fputs(t->segs[s].lit, stdout);
        else {
            const ddb_tseg *g = &t->segs[s];
            static const char *const parts[] = {"", "|year", "|month", "|day", "|quarter"};
            static const char *const cases[] = {"", "|lower", "|upper"};
            printf("{%s", st->fields[g->path[0]].name);
            const ddb_struct_desc *in = st;
            for (uint8_t k = 1; k < g->path_len && in; k++) { /* a nested field: its path */
                in = in->fields[g->path[k - 1]].sub;
                printf(".%s", in ? in->fields[g->path[k]].name : "?");
            }
            if (g->pad)
                printf(":0%u", g->pad);
            printf("%s%s}", g->part < 5 ? parts[g->part] : "", g->kase < 3 ? cases[g->kase] : "");
        }
    }
}

/* The pattern names of key k: the model's DDB_PATTERN names for its index,
 * else the index name ("table" for the primary key). */
static const char *pattern_name(const model_entity *e, const ddb_key_desc *k)
{
    const char *index = k->index ? k->index : "table";
    size_t i;
    json_t *p;
    json_array_foreach(json_object_get(e->json, "patterns"), i, p) {
        const char *ix = json_string_value(json_object_get(p, "index"));
        if (ix && !strcmp(ix, index))
            return json_string_value(json_object_get(p, "name"));
    }
    return index;
}

static int cmd_patterns(cli *c)
{
    mctx x;
    if (load(&x, c))
        return 1;
    for (size_t i = 0; i < x.m.n_ents; i++) {
        const model_entity *e = &x.m.ents[i];
        printf("%s (table %s)\n", e->desc.name, e->desc.table->def.name);
        for (uint16_t k = 0; k < e->desc.n_keys; k++) {
            const ddb_key_desc *kd = &e->desc.keys[k];
            printf("  %s.%s  %s: ", e->desc.name, pattern_name(e, kd), kd->index ? kd->index : "table");
            print_template(e->desc.st, &kd->pk);
            if (kd->sk_attr) {
                fputs(" / ", stdout);
                print_template(e->desc.st, &kd->sk);
            }
            fputs("\n", stdout);
        }
        fputs("  fields:", stdout);
        for (uint16_t f = 0; f < e->desc.st->n_fields; f++)
            printf(" %s", e->desc.st->fields[f].name);
        fputs("\n", stdout);
    }
    done(&x);
    return 0;
}

/* ---- get, delete ------------------------------------------------------------- */

static int keyed(cli *c, bool del)
{
    mctx x;
    if (load(&x, c) || cli_open(c))
        return (done(&x), 1);
    int rc = 1;
    const model_entity *e = c->o.npos ? entity_arg(&x, c->o.pos[0]) : NULL;
    void *key = e ? new_obj(&x, e) : NULL;
    ddb_ent_mask given = {{0}};
    if (!c->o.npos)
        rc = usage_error(c, "give the entity and its key fields: %s ENTITY FIELD=VALUE...", c->cmd->name);
    else if (e && key && !field_args(&x, e, 1, key, &given) && !key_fields_given(&x, e, &e->desc.keys[0], &given, true)) {
        ddb_error err = {0};
        if (del) {
            rc = ddb_ent_delete(c->db, &e->desc, key, NULL, NULL, &err) ? cli_fail(c, &err, NULL) : 0;
        } else {
            void *out = new_obj(&x, e);
            ddb_ent_mask mask = {{0}};
            ddb_ent_read_opts ro = {.consistent = opt_count(c, "consistent") > 0};
            int g = out ? ddb_ent_read(c->db, &e->desc, key, &ro, x.a, out, &mask, &err) : DDB_ENOMEM;
            rc = g == DDB_ENOTFOUND ? cli_failf(c, "no %s with that key", e->desc.name)
                 : g               ? cli_fail(c, &err, NULL)
                                   : print_obj(&x, e, out, &mask);
        }
    }
    done(&x);
    return rc;
}

static int cmd_model_get(cli *c) { return keyed(c, false); }
static int cmd_model_delete(cli *c) { return keyed(c, true); }

/* ---- put, create, update ------------------------------------------------------ */

static int write_json(cli *c, bool create)
{
    mctx x;
    if (load(&x, c) || cli_open(c))
        return (done(&x), 1);
    int rc = 1;
    const model_entity *e = c->o.npos == 2 ? entity_arg(&x, c->o.pos[0]) : NULL;
    void *obj = e ? new_obj(&x, e) : NULL;
    json_error_t je;
    json_t *in = e ? json_loads(c->o.pos[1], 0, &je) : NULL;
    if (c->o.npos != 2)
        rc = usage_error(c, "give the entity and the item: %s ENTITY '{\"field\": value, ...}'", c->cmd->name);
    else if (e && !in)
        rc = cli_failf(c, "the item is not JSON: %s (column %d)", je.text, je.column);
    else if (e && obj && model_struct_in(e->desc.st, in, obj, x.a, NULL, x.why, sizeof x.why))
        rc = cli_failf(c, "%s", x.why);
    else if (e && obj) {
        ddb_error err = {0};
        int w = create ? ddb_ent_create(c->db, &e->desc, obj, NULL, NULL, &err)
                       : ddb_ent_put(c->db, &e->desc, obj, NULL, NULL, &err);
        rc = w == DDB_ECONDITION && create ? cli_failf(c, "a %s with that key exists", e->desc.name)
             : w                          ? cli_fail(c, &err, NULL)
                                          : print_obj(&x, e, obj, NULL); /* as stored: ids, versions, stamps */
    }
    json_decref(in);
    done(&x);
    return rc;
}

static int cmd_model_put(cli *c) { return write_json(c, false); }
static int cmd_model_create(cli *c) { return write_json(c, true); }

static int cmd_model_update(cli *c)
{
    mctx x;
    if (load(&x, c) || cli_open(c))
        return (done(&x), 1);
    int rc = 1;
    const model_entity *e = c->o.npos ? entity_arg(&x, c->o.pos[0]) : NULL;
    void *obj = e ? new_obj(&x, e) : NULL;
    ddb_ent_mask key = {{0}}, set = {{0}};
    if (!c->o.npos || !opt_count(c, "set"))
        rc = usage_error(c, "give the entity, its key fields and --set FIELD=VALUE: update ENTITY F=V... --set F=V");
    else if (e && obj && !field_args(&x, e, 1, obj, &key) && !key_fields_given(&x, e, &e->desc.keys[0], &key, true)) {
        rc = 0;
        for (int i = 0; !rc && i < opt_count(c, "set"); i++) {
            const char *arg = opt_nth(c, "set", i), *value;
            int f = field_of_arg(e->desc.st, arg, &value);
            if (!value)
                rc = usage_error(c, "--set takes FIELD=VALUE, not '%s'", arg);
            else if (f < 0)
                rc = cli_failf(c, "%s has no field '%.*s'", e->desc.name, (int)(value - 1 - arg), arg);
            else if (e->desc.st->fields[f].flags & DDB_FIELD_KEY)
                rc = cli_failf(c, "'%s' is a key field of %s: a key cannot be updated (put the item under its new key "
                                  "and delete the old one)",
                               e->desc.st->fields[f].name, e->desc.name);
            else if (model_field_text_in(e->desc.st, f, value, obj, x.a, x.why, sizeof x.why))
                rc = cli_failf(c, "%s", x.why);
            else
                ddb_ent_mask_set(&set, (unsigned)f);
        }
        ddb_error err = {0};
        int w = rc ? 0 : ddb_ent_update_mask(c->db, &e->desc, obj, &set, NULL, NULL, &err);
        if (!rc && w == DDB_ENOTFOUND)
            rc = cli_failf(c, "no %s with that key", e->desc.name);
        else if (!rc && w)
            rc = cli_fail(c, &err, NULL);
    }
    done(&x);
    return rc;
}

/* ---- query ---------------------------------------------------------------------- */

/* The key of ENTITY[.PATTERN]: the pattern's name or its index name. */
static int pattern_key(mctx *x, const model_entity *e, const char *pattern)
{
    for (uint16_t k = 0; k < e->desc.n_keys; k++) {
        const ddb_key_desc *kd = &e->desc.keys[k];
        if (!pattern || !strcmp(pattern, pattern_name(e, kd)) || !strcmp(pattern, kd->index ? kd->index : "table"))
            return k;
    }
    return cli_failf(x->c, "%s has no access pattern '%s' (ddb --model ... patterns lists them)", e->desc.name,
                     pattern), -1;
}

/* The segment of key k's sort key that is field f's hole; -1 when none. */
static int level_of(const ddb_key_desc *k, int f)
{
    for (uint16_t s = 0; k->sk_attr && s < k->sk.n; s++)
        if (!k->sk.segs[s].lit && k->sk.segs[s].path[0] == f)
            return s;
    return -1;
}

static int cmd_model_query(cli *c)
{
    static const struct {
        const char *opt;
        ddb_ent_sk_op op;
    } ops[] = {{"eq", DDB_ENT_SK_EQ}, {"begins", DDB_ENT_SK_BEGINS}, {"lt", DDB_ENT_SK_LT}, {"le", DDB_ENT_SK_LE},
               {"gt", DDB_ENT_SK_GT}, {"ge", DDB_ENT_SK_GE},         {"between", DDB_ENT_SK_BETWEEN}};
    mctx x;
    if (load(&x, c) || cli_open(c))
        return (done(&x), 1);
    int rc = 1;
    char ename[256] = "";
    const char *pattern = NULL;
    if (c->o.npos) {
        snprintf(ename, sizeof ename, "%s", c->o.pos[0]);
        char *dot = strchr(ename, '.');
        if (dot)
            *dot = '\0', pattern = c->o.pos[0] + (dot - ename) + 1;
    }
    const model_entity *e = c->o.npos ? entity_arg(&x, ename) : NULL;
    int k = e ? pattern_key(&x, e, pattern) : -1;
    void *obj = k >= 0 ? new_obj(&x, e) : NULL, *hi = NULL;
    ddb_ent_mask given = {{0}};
    if (!c->o.npos) {
        done(&x);
        return usage_error(c, "give ENTITY[.PATTERN] and the partition's fields: query Device.by_site site_id=s1");
    }
    if (!obj || field_args(&x, e, 1, obj, &given) || key_fields_given(&x, e, &e->desc.keys[k], &given, false)) {
        done(&x);
        return 1;
    }
    ddb_ent_key_cond kc = {.key = (uint16_t)k, .obj = obj, .op = DDB_ENT_SK_ALL};
    const ddb_key_desc *kd = &e->desc.keys[k];
    int nops = 0;
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
        const char *arg = opt_get(c, ops[i].opt);
        if (!arg)
            continue;
        nops++;
        const char *value;
        int f = field_of_arg(e->desc.st, arg, &value), level = f >= 0 ? level_of(kd, f) : -1;
        char *lo = value ? ddb_arena_strdup(x.a, value) : NULL; /* BETWEEN's comma is cut in place */
        if (value && !lo)
            return (done(&x), cli_failf(c, "out of memory"));
        if (!value || f < 0 || level < 0) {
            done(&x);
            return cli_failf(c, "--%s takes FIELD=VALUE with a field of the sort key of %s.%s", ops[i].opt,
                             e->desc.name, pattern_name(e, kd));
        }
        const char *hi_text = NULL;
        if (ops[i].op == DDB_ENT_SK_BETWEEN) {
            char *comma = strchr(lo, ',');
            if (!comma) {
                done(&x);
                return usage_error(c, "--between takes FIELD=LOW,HIGH");
            }
            *comma = '\0';
            hi_text = comma + 1;
        }
        if (model_field_text_in(e->desc.st, f, lo, obj, x.a, x.why, sizeof x.why)) {
            done(&x);
            return cli_failf(c, "%s", x.why);
        }
        if (hi_text) {
            hi = new_obj(&x, e);
            if (!hi)
                return (done(&x), cli_failf(c, "out of memory"));
            memcpy(hi, obj, e->desc.st->size);
            if (model_field_text_in(e->desc.st, f, hi_text, hi, x.a, x.why, sizeof x.why))
                return (done(&x), cli_failf(c, "%s", x.why));
        }
        kc.op = ops[i].op;
        /* EQ on the last field is the whole key; otherwise the level of the field */
        kc.level = (uint16_t)(ops[i].op == DDB_ENT_SK_EQ && level_of(kd, f) == kd->sk.n - 1 ? kd->sk.n - 1 : level);
        kc.hi = hi;
    }
    if (nops > 1) {
        done(&x);
        return usage_error(c, "give at most one of --eq, --begins, --lt, --le, --gt, --ge, --between");
    }
    ddb_ent_read_opts ro = {.backward = opt_count(c, "desc") > 0, .consistent = opt_count(c, "consistent") > 0};
    uint64_t limit = 0, printed = 0;
    if (opt_get(c, "limit") && parse_u64(opt_get(c, "limit"), &limit))
        return (done(&x), usage_error(c, "--limit takes a number"));
    rc = 0;
    do {
        ddb_ent_result res;
        ddb_error err = {0};
        if (ddb_ent_query_pattern(c->db, &e->desc, &kc, &ro, x.a, &res, &err)) {
            rc = cli_fail(c, &err, NULL);
            break;
        }
        for (size_t i = 0; !rc && i < res.count && (!limit || printed < limit); i++, printed++)
            rc = print_obj(&x, e, (const char *)res.items + i * e->desc.st->size, &res.masks[i]);
        ro.cursor = res.cursor;
    } while (!rc && ro.cursor && (!limit || printed < limit));
    done(&x);
    return rc;
}

/* ---- the command table ------------------------------------------------------------ */

static const opt_spec none[] = {{NULL, 0, 0, false, NULL, NULL}};
static const opt_spec get_opts[] = {{"consistent", 0, 0, false, NULL, "strongly consistent read"},
                                    {NULL, 0, 0, false, NULL, NULL}};
static const opt_spec update_opts[] = {{"set", 0, 1, true, "FIELD=VALUE", "the new value of a field (repeatable)"},
                                       {NULL, 0, 0, false, NULL, NULL}};
static const opt_spec query_opts[] = {
    {"eq", 0, 1, false, "FIELD=VALUE", "the sort key through FIELD equals (the last field: the whole key)"},
    {"begins", 0, 1, false, "FIELD=VALUE", "the sort key through FIELD begins with VALUE"},
    {"lt", 0, 1, false, "FIELD=VALUE", "FIELD < VALUE (the fields before it given as FIELD=VALUE)"},
    {"le", 0, 1, false, "FIELD=VALUE", "FIELD <= VALUE"},
    {"gt", 0, 1, false, "FIELD=VALUE", "FIELD > VALUE"},
    {"ge", 0, 1, false, "FIELD=VALUE", "FIELD >= VALUE"},
    {"between", 0, 1, false, "FIELD=LOW,HIGH", "LOW <= FIELD <= HIGH"},
    {"desc", 0, 0, false, NULL, "descending sort-key order"},
    {"limit", 0, 1, false, "N", "print at most N entities"},
    {"consistent", 0, 0, false, NULL, "strongly consistent read (not on a GSI)"},
    {NULL, 0, 0, false, NULL, NULL}};

#define MODEL_NOTE "Needs --model FILE (ddbgen --emit-model) or $DDB_MODEL; items are plain JSON by field names.\n"

const command ddb_model_commands[] = {
    {"patterns", cmd_patterns, "", "List the model's entities, access patterns and fields", MODEL_NOTE, none, 0, 0,
     true},
    {"get", cmd_model_get, "ENTITY FIELD=VALUE...", "Read one entity by its key fields",
     MODEL_NOTE "Example: ddb --model m.json get Device device_id=d1\n", get_opts, 1, 31, true},
    {"query", cmd_model_query, "ENTITY[.PATTERN] FIELD=VALUE...", "Read the entities of one partition of a pattern",
     MODEL_NOTE "Example: ddb --model m.json query Reading device_id=d1 --begins taken_at=2024-05\n", query_opts, 1,
     31, true},
    {"put", cmd_model_put, "ENTITY JSON", "Write an entity (replaces the one with its key)",
     MODEL_NOTE "Keys, derived attributes and the type attribute are computed as the generated code does.\n", none,
     2, 2, false},
    {"create", cmd_model_create, "ENTITY JSON", "Write a new entity (fails when one has its key)",
     MODEL_NOTE "Fills defaults, generated ids and timestamps as the generated <entity>_create does.\n", none, 2, 2,
     false},
    {"update", cmd_model_update, "ENTITY FIELD=VALUE... --set FIELD=VALUE...", "Change fields of an existing entity",
     MODEL_NOTE, update_opts, 1, 31, false},
    {"delete", cmd_model_delete, "ENTITY FIELD=VALUE...", "Delete one entity by its key fields", MODEL_NOTE, none, 1,
     31, false},
};
const size_t ddb_n_model_commands = sizeof ddb_model_commands / sizeof *ddb_model_commands;
