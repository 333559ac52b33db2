/* decl_update.c — DDB_UPDATE and DDB_CONDITION: the build-time checks of
 * declared expressions over C field names, and their lowering into the IR
 * (decl_write.h).  The expressions are parsed by the runtime's parser
 * (decl_expr.c); this file reads the parse (expr/expr.h's AST) to check
 * every path against the entity's fields, infer the C type of every
 * :placeholder, and work out what the runtime must recompute (index keys
 * and derived fields fed by fields set to a placeholder), which shard item
 * each action writes (one part per item) and which one a condition reads
 * (refusing new values and conditions that read another shard item).  May
 * call decl_expr.h, ir.h, internal.h's JSON and text helpers,
 * generated_names.h's list of generated names and the expression AST;
 * nothing else. */
#include "decl_expr.h"
#include "generated_names.h"
#include "decl.h"

#include "expr/expr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the analysis of one declared write found. */
typedef struct ph {
    char name[DDB_EXPR_MAX_REF_BYTES + 1]; /* without ':' */
    int field;                             /* field index; -1: int64_t (size) */
    const char *why;                       /* how it was typed, for messages */
} ph;

typedef struct an {
    ddbgen_diags *d;
    const ddbgen_dexpr *dx;
    json_t *e;         /* the entity (validator's copy, or the declared model when lowering) */
    json_t *fields;
    const char *ename;
    ph ph[64];
    size_t n_ph;
#define AN_MAX_FIELDS 1024 /* more than the runtime's DDB_ENT_MAX_FIELDS: every field fits */
    int known[AN_MAX_FIELDS];   /* field set to placeholder: its ph index; KNOWN_ABSENT: REMOVEd; by field index (-1 none) */
    int changed[AN_MAX_FIELDS]; /* by field index: 0, or the clause that changes it (CH_*) */
    size_t n_fields;
    int ok;
    int in_cond;          /* reading a condition: the shard items it reads are noted */
    int cond_shard;       /* the shard a condition reads (-1: none or only key fields) */
    const char *cond_by;  /* ... because of this field */
} an;

#define ERR(x, l, ...) ((x)->ok = 0, ddbgen_diag_add((x)->d, DDBGEN_ERROR, (l), __VA_ARGS__))

static ddbgen_loc at(const an *x, uint32_t line, uint32_t col) { return ddbgen__dexpr_loc(x->dx, line, col); }

static const char *fname(const json_t *f) { return ddbgen_jstr(f, "name"); }

static const char *fname(const json_t *f);

/* The shard item holding field i of a sharded entity (its index in the
 * entity's shards), or -1: unsharded entity, a key field (every shard item
 * carries it) or no field. */
static int field_shard(const an *x, int i)
{
    json_t *shards = json_object_get(x->e, "shards"), *f = i >= 0 ? json_array_get(x->fields, (size_t)i) : NULL;
    if (!f || !json_array_size(shards) || ddbgen_jtrue(f, "key"))
        return -1;
    const char *id = ddbgen_jstr(json_object_get(f, "shard"), "id");
    size_t s;
    json_t *sh;
    json_array_foreach(shards, s, sh) {
        if (id && !strcmp(ddbgen_jstr(sh, "id"), id))
            return (int)s;
    }
    return 0; /* no DDB_SHARD: the first shard item */
}

static const char *shard_id(const an *x, int s)
{
    return ddbgen_jstr(json_array_get(json_object_get(x->e, "shards"), (size_t)s), "id");
}

/* A condition is evaluated on one item: every field it reads must live on
 * the same shard item (key fields are on all of them). */
static void note_cond_shard(an *x, int i, uint32_t line, uint32_t col)
{
    int s = field_shard(x, i);
    const char *name = fname(json_array_get(x->fields, (size_t)i));
    if (s < 0)
        return;
    if (x->cond_shard < 0) {
        x->cond_shard = s;
        x->cond_by = name;
    } else if (x->cond_shard != s) {
        ERR(x, at(x, line, col),
            "this condition reads '%s' (shard %s) and '%s' (shard %s): a condition is checked on one item, and "
            "they are stored in two shard items; split it, or move the fields to one shard",
            x->cond_by, shard_id(x, x->cond_shard), name, shard_id(x, s));
        x->cond_shard = s;
        x->cond_by = name;
    }
}

/* The field a path names (top-level only), or -1 after an error. */
static int path_field(an *x, const expr_path *p)
{
    if (p->n == 0 || !p->el[0].name)
        return -1;
    size_t i;
    json_t *f;
    json_array_foreach(x->fields, i, f) {
        if (!strcmp(fname(f), p->el[0].name)) {
            if (p->n > 1) {
                ddbgen_buf b = {0};
                for (uint32_t k = 0; k < p->n; k++) {
                    if (p->el[k].name)
                        ddbgen_buf_printf(&b, "%s%.*s", k ? "." : "", (int)p->el[k].len, p->el[k].name);
                    else
                        ddbgen_buf_printf(&b, "[%u]", (unsigned)p->el[k].index);
                }
                ERR(x, at(x, p->line, p->col), "'%s' is a path into field '%s'; declared expressions name whole fields",
                    ddbgen_buf_str(&b), fname(f));
                ddbgen_buf_free(&b);
                return -1;
            }
            if (x->in_cond)
                note_cond_shard(x, (int)i, p->line, p->col);
            return (int)i;
        }
    }
    ddbgen_buf b = {0};
    size_t k;
    json_t *g;
    json_array_foreach(x->fields, k, g) {
        ddbgen_buf_puts(&b, k ? ", " : "");
        ddbgen_buf_puts(&b, fname(g));
    }
    ERR(x, at(x, p->line, p->col), "'%s' has no field '%s' (fields: %s)", x->ename, p->el[0].name,
        ddbgen_buf_str(&b));
    ddbgen_buf_free(&b);
    return -1;
}

static json_t *field_at(const an *x, int i) { return i >= 0 ? json_array_get(x->fields, (size_t)i) : NULL; }

static const char *ftype(const json_t *f) { return ddbgen_jstr(f, "type"); }

/* The C type a placeholder typed by field i is passed as (strings: const char *). */
static const char *ptype(const an *x, int i)
{
    const json_t *f = field_at(x, i);
    return !f ? "int64_t" : !strcmp(ftype(f), "S") ? "const char *" : ddbgen_jstr(f, "ctype");
}

/* Type the :placeholder node n as field i (-1: int64_t); why says where. */
static void type_value(an *x, const expr_node *n, int i, const char *why)
{
    if (!n || n->kind != EN_VALUE)
        return;
    char name[DDB_EXPR_MAX_REF_BYTES + 1];
    snprintf(name, sizeof name, "%.*s", (int)(n->slen > 0 ? n->slen - 1 : 0), n->str + 1);
    /* the generated functions' own names (declared updates; the conditional variants of declared
     * conditions, templates/decl_condition.c.mustache); their locals all end in _ */
    static const char *const reserved[] = {"db", "o", "out", "a", "cap", "err", "k", "c", "tx", "obj", "fields"};
    for (size_t r = 0; r < sizeof reserved / sizeof *reserved; r++)
        if (!strcmp(name, reserved[r]) || !strncmp(name, "ddb_", 4) || (*name && name[strlen(name) - 1] == '_')) {
            ERR(x, at(x, n->line, n->col),
                "':%s' is a name the generated function uses itself (db, o, out, a, cap, err, k, c, tx, obj, "
                "fields, names ending in _, and names starting with ddb_): rename the placeholder",
                name);
            return;
        }
    if (name[0] == 'v' && name[1] >= '0' && name[1] <= '9') { /* ddb_ent_expr: :v<digits> are the runtime's */
        ERR(x, at(x, n->line, n->col),
            "':%s': placeholders ':v<digits>...' are reserved for the runtime's own values: rename the placeholder",
            name);
        return;
    }
    size_t k;
    json_t *kp;
    json_array_foreach(json_object_get(x->e, "keys"), k, kp) {
        if (strcmp(ddbgen_jstr(kp, "index"), "table"))
            continue;
        const char *which[2] = {"pk", "sk"};
        for (int w = 0; w < 2; w++) {
            size_t u;
            json_t *used;
            json_array_foreach(json_object_get(json_object_get(kp, which[w]), "uses"), u, used) {
                if (!strcmp(json_string_value(used), name)) {
                    ERR(x, at(x, n->line, n->col),
                        "':%s' has the name of key field '%s', which the generated function takes as a "
                        "parameter already: rename the placeholder",
                        name, name);
                    return;
                }
            }
        }
    }
    for (size_t p = 0; p < x->n_ph; p++) {
        if (strcmp(x->ph[p].name, name))
            continue;
        if (strcmp(ptype(x, x->ph[p].field), ptype(x, i)))
            ERR(x, at(x, n->line, n->col), "':%s' is %s (%s) here but %s (%s) before: use two placeholders", name,
                ptype(x, i), why, ptype(x, x->ph[p].field), x->ph[p].why);
        return;
    }
    if (x->n_ph == sizeof x->ph / sizeof *x->ph) {
        ERR(x, at(x, n->line, n->col), "too many placeholders (the most is %zu)", sizeof x->ph / sizeof *x->ph);
        return;
    }
    ph *p = &x->ph[x->n_ph++];
    snprintf(p->name, sizeof p->name, "%s", name);
    p->field = i;
    p->why = why;
}

static int is_num(const json_t *f) { return f && !strcmp(ftype(f), "N"); }
static int is_set(const json_t *f)
{
    const char *t = f ? ftype(f) : "";
    return !strcmp(t, "SS") || !strcmp(t, "NS") || !strcmp(t, "BS");
}

/* ---- conditions ---------------------------------------------------------- */

/* An operand of a comparison: the field it reads (or -2 for size(), -3 none). */
static int operand_field(an *x, const expr_node *n)
{
    if (n->kind == EN_PATH)
        return path_field(x, &n->path);
    if (n->kind == EN_FUNC && n->op == EF_SIZE && n->nargs == 1 && n->args[0]->kind == EN_PATH) {
        path_field(x, &n->args[0]->path);
        return -2;
    }
    return -3;
}

static void check_cond(an *x, const expr_node *n)
{
    if (!n)
        return;
    switch (n->kind) {
    case EN_AND:
    case EN_OR:
    case EN_NOT:
        for (uint32_t i = 0; i < n->nargs; i++)
            check_cond(x, n->args[i]);
        return;
    case EN_CMP:
    case EN_BETWEEN:
    case EN_IN: {
        int typed = -3;
        for (uint32_t i = 0; i < n->nargs; i++) {
            int o = operand_field(x, n->args[i]);
            if (typed == -3)
                typed = o;
        }
        for (uint32_t i = 0; i < n->nargs; i++) {
            if (n->args[i]->kind != EN_VALUE)
                continue;
            if (typed == -3)
                ERR(x, at(x, n->args[i]->line, n->args[i]->col),
                    "cannot tell the C type of '%.*s': compare it with a field", (int)n->args[i]->slen,
                    n->args[i]->str);
            else if (typed != -1)
                type_value(x, n->args[i], typed == -2 ? -1 : typed, typed == -2 ? "compared with size()" : "compared with a field");
        }
        return;
    }
    case EN_FUNC: {
        int f = n->nargs && n->args[0]->kind == EN_PATH ? path_field(x, &n->args[0]->path) : -1;
        if (n->op == EF_BEGINS_WITH || (n->op == EF_CONTAINS && f >= 0 && !strcmp(ftype(field_at(x, f)), "S"))) {
            if (n->nargs == 2)
                type_value(x, n->args[1], f, "an operand of a string function");
        } else if (n->nargs == 2 && n->args[1]->kind == EN_VALUE) {
            ERR(x, at(x, n->args[1]->line, n->args[1]->col),
                "cannot tell the C type of '%.*s' in %.*s(): declared conditions type a placeholder by the field "
                "it meets",
                (int)n->args[1]->slen, n->args[1]->str, (int)n->slen, n->str);
        }
        return;
    }
    default:
        return;
    }
}

/* ---- updates --------------------------------------------------------------- */

/* Field r is read to compute the new value of field t: one UpdateItem
 * reads the shard item it writes only. */
static void check_read(an *x, int r, int t, uint32_t line, uint32_t col)
{
    int rs = field_shard(x, r), ts = field_shard(x, t);
    if (rs >= 0 && ts >= 0 && rs != ts)
        ERR(x, at(x, line, col),
            "'%s' (shard %s) is read to write '%s' (shard %s): each shard item is updated by its own UpdateItem, "
            "which reads only that item; pass the value as a placeholder instead",
            fname(field_at(x, r)), shard_id(x, rs), fname(field_at(x, t)), shard_id(x, ts));
}

/* The SET value n written into target field t. */
/* How an update changes a field: SET to a placeholder (the new value is
 * known), changed in place (ADD, DELETE, SET f = f + :n: known only to the
 * database), REMOVEd (known: absent). */
enum { CH_SET = 1, CH_IN_PLACE = 2, CH_REMOVED = 3 };
#define KNOWN_ABSENT (-2) /* x->known[i]: the field is REMOVEd */

static void check_set_value(an *x, const expr_node *n, int t, int *plain)
{
    const json_t *tf = field_at(x, t);
    switch (n->kind) {
    case EN_VALUE:
        type_value(x, n, t, "written to a field");
        return;
    case EN_PATH:
        *plain = 0;
        check_read(x, path_field(x, &n->path), t, n->line, n->col);
        return;
    case EN_PLUS:
    case EN_MINUS:
        *plain = 0;
        if (tf && !is_num(tf))
            ERR(x, at(x, n->line, n->col), "'%c' needs numbers, and '%s' is %s", n->kind == EN_PLUS ? '+' : '-',
                fname(tf), ddbgen_jstr(tf, "ctype"));
        for (uint32_t i = 0; i < n->nargs; i++)
            check_set_value(x, n->args[i], t, plain);
        return;
    case EN_FUNC:
        *plain = 0;
        if (n->op == EF_LIST_APPEND && tf && strcmp(ftype(tf), "L"))
            ERR(x, at(x, n->line, n->col), "list_append() makes a list, and '%s' is %s", fname(tf),
                ddbgen_jstr(tf, "ctype"));
        if (n->op == EF_IF_NOT_EXISTS && n->nargs == 2) {
            int f = n->args[0]->kind == EN_PATH ? path_field(x, &n->args[0]->path) : t;
            check_read(x, f, t, n->line, n->col);
            const json_t *ff = field_at(x, f);
            if (ff && !ddbgen_jtrue(ff, "optional"))
                ddbgen_diag_add(x->d, DDBGEN_WARNING, at(x, n->line, n->col),
                                "if_not_exists(%s, ...) always keeps the stored value: every item stores '%s' (%s); "
                                "make it optional (a pointer, set or list) for the default to apply",
                                fname(ff), fname(ff), ddbgen_jstr(ff, "ctype"));
            check_set_value(x, n->args[1], f, plain);
            return;
        }
        for (uint32_t i = 0; i < n->nargs; i++)
            check_set_value(x, n->args[i], t, plain);
        return;
    default:
        return;
    }
}

static const char *maintained(const json_t *f)
{
    return json_object_get(f, "derived")   ? "DDB_DERIVED"
           : json_object_get(f, "version") ? "DDB_VERSION"
           : json_object_get(f, "uuid")    ? "DDB_UUID"
           : json_object_get(f, "auto_id") ? "DDB_AUTO_ID"
           : json_object_get(f, "created_at") ? "DDB_CREATED_AT"
           : json_object_get(f, "updated_at") ? "DDB_UPDATED_AT"
                                              : NULL;
}

static void check_action(an *x, const expr_action *ac)
{
    static const char *const verb[] = {"SET", "REMOVE", "ADD", "DELETE"};
    int i = path_field(x, &ac->path);
    const json_t *f = field_at(x, i);
    ddbgen_loc l = at(x, ac->path.line, ac->path.col);
    if (!f)
        return;
    if (ddbgen_jtrue(f, "key")) {
        ERR(x, l, "%s cannot change '%s': it is part of the primary key of '%s' (the item would move); write a "
                  "new item instead",
            verb[ac->kind], fname(f), x->ename);
        return;
    }
    const char *m = maintained(f);
    if (m) {
        ERR(x, l, "%s cannot change '%s': ddbgen maintains it (%s)", verb[ac->kind], fname(f), m);
        return;
    }
    if (json_object_get(f, "unique")) {
        ERR(x, l,
            "%s cannot change '%s': it is DDB_UNIQUE, and its uniqueness item must move with it in the same "
            "transaction; write it with <entity>_update_fields or _patch, which do",
            verb[ac->kind], fname(f));
        return;
    }
    int plain = 1;
    switch (ac->kind) {
    case UA_SET:
        check_set_value(x, ac->value, i, &plain);
        break;
    case UA_REMOVE:
        /* its new value is known: absent (a template using it renders
         * absent, so a sparse index key is REMOVEd) */
        if (!ddbgen_jtrue(f, "optional"))
            ERR(x, l, "REMOVE cannot clear '%s': a %s field is always stored; only optional fields (pointers, "
                      "sets, lists) can be removed",
                fname(f), ddbgen_jstr(f, "ctype"));
        break;
    case UA_ADD:
        plain = 0;
        if (!is_num(f) && !is_set(f))
            ERR(x, l, "ADD needs a number or a set, and '%s' is %s", fname(f), ddbgen_jstr(f, "ctype"));
        else
            type_value(x, ac->value, i, "added to a field");
        break;
    case UA_DELETE:
        plain = 0;
        if (!is_set(f))
            ERR(x, l, "DELETE removes elements from a set, and '%s' is %s", fname(f), ddbgen_jstr(f, "ctype"));
        else
            type_value(x, ac->value, i, "deleted from a set");
        break;
    }
    if ((size_t)i < sizeof x->changed / sizeof *x->changed) {
        x->changed[i] = ac->kind == UA_REMOVE ? CH_REMOVED : plain ? CH_SET : CH_IN_PLACE;
        if (ac->kind == UA_REMOVE)
            x->known[i] = KNOWN_ABSENT;
    }
    if (ac->kind == UA_SET && plain && ac->value && ac->value->kind == EN_VALUE) {
        for (size_t p = 0; p < x->n_ph; p++) {
            char name[DDB_EXPR_MAX_REF_BYTES + 1];
            snprintf(name, sizeof name, "%.*s", (int)ac->value->slen - 1, ac->value->str + 1);
            if (!strcmp(x->ph[p].name, name) && (size_t)i < sizeof x->known / sizeof *x->known)
                x->known[i] = (int)p;
        }
    }
}

/* The fields of template t the update touches: the changed one and how
 * (*kind: CH_IN_PLACE before CH_REMOVED before CH_SET, the one that
 * decides the template's new value) and one it does not know (neither a
 * key field nor changed). */
static void template_fields(an *x, const json_t *t, const char **changer, int *kind, const char **unknown)
{
    json_t *uses = json_object_get(t, "uses");
    size_t u, i;
    json_t *name, *f;
    *changer = *unknown = NULL;
    *kind = 0;
    json_array_foreach(x->fields, i, f) {
        int used = 0;
        json_array_foreach(uses, u, name) used |= !strcmp(json_string_value(name), fname(f));
        if (!used || i >= x->n_fields)
            continue;
        static const int rank[4] = {0, 1, 3, 2}; /* by CH_*: which change decides */
        if (x->changed[i] && (!*changer || rank[x->changed[i]] > rank[*kind])) {
            *changer = fname(f);
            *kind = x->changed[i];
        } else if (!x->changed[i] && !ddbgen_jtrue(f, "key") && !*unknown)
            *unknown = fname(f);
    }
}

/* Templates fed by changed fields must be recomputable from what the
 * request knows: the key fields and the fields set to a placeholder. */
static void check_template(an *x, const json_t *t, const char *what, ddbgen_loc l)
{
    const char *changer, *unknown;
    int changer_kind;
    template_fields(x, t, &changer, &changer_kind, &unknown);
    if (!changer)
        return;
    if (changer_kind == CH_IN_PLACE)
        ERR(x, l,
            "this update changes '%s' in place (its new value is known only to the database), and %s "
            "(\"%s\") depends on it, so it cannot be recomputed in the same request: SET '%s' to a placeholder "
            "instead",
            changer, what, ddbgen_jstr(t, "template"), changer);
    else if (changer_kind == CH_SET && unknown) /* CH_REMOVED: it renders absent whatever the rest holds */
        ERR(x, l,
            "this update sets '%s', and %s (\"%s\") also uses '%s', whose value the update does not know: SET "
            "'%s' too, so the runtime can recompute it",
            changer, what, ddbgen_jstr(t, "template"), unknown, unknown);
}

/* A secondary index key is written whole: when the update changes one of
 * its templates, the other one is rendered again too (the item may join or
 * leave a sparse index), so it must be recomputable as well -- unless a
 * field of either is REMOVEd: then the key is absent (the item leaves the
 * sparse index) whatever the other fields hold. */
static void check_index_key(an *x, const json_t *k, ddbgen_loc l)
{
    const json_t *t[2] = {json_object_get(k, "pk"), json_object_get(k, "sk")};
    const char *changer[2] = {NULL, NULL}, *unknown[2] = {NULL, NULL};
    int kind[2] = {0, 0};
    char what[512];
    for (int w = 0; w < 2; w++) {
        snprintf(what, sizeof what, "the %s key on index '%s'", w ? "sort" : "partition", ddbgen_jstr(k, "index"));
        if (t[w]) {
            check_template(x, t[w], what, l);
            template_fields(x, t[w], &changer[w], &kind[w], &unknown[w]);
        }
    }
    for (int w = 0; w < 2; w++)
        if (t[w] && !changer[w] && kind[!w] == CH_SET && unknown[w])
            ERR(x, l,
                "this update sets '%s', so it rewrites the key on index '%s', and its %s key (\"%s\") uses '%s', "
                "whose value the update does not know: SET '%s' too, so the runtime can recompute it",
                changer[!w], ddbgen_jstr(k, "index"), w ? "sort" : "partition", ddbgen_jstr(t[w], "template"),
                unknown[w], unknown[w]);
}

/* Analyse one declared update (cond may be NULL) or condition (upd NULL). */
static void analyse(an *x, const ddbgen_dexpr *upd, const ddbgen_dexpr *cond)
{
    x->fields = json_object_get(x->e, "fields");
    x->ename = ddbgen_jstr(x->e, "name");
    x->n_fields = json_array_size(x->fields);
    x->ok = 1;
    for (size_t i = 0; i < sizeof x->known / sizeof *x->known; i++)
        x->known[i] = -1;
    if (x->n_fields > sizeof x->changed / sizeof *x->changed)
        x->n_fields = sizeof x->changed / sizeof *x->changed;
    if (upd && upd->x) {
        x->dx = upd;
        for (size_t i = 0; i < upd->x->nactions; i++)
            check_action(x, &upd->x->actions[i]);
    }
    x->cond_shard = -1;
    if (cond && cond->x) {
        x->dx = cond;
        x->in_cond = 1;
        check_cond(x, cond->x->root);
        x->in_cond = 0;
    }
    x->dx = upd ? upd : cond;
}

/* ---- the checks ----------------------------------------------------------- */

static int is_c_ident(const char *s)
{
    if (!s || !(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
        return 0;
    for (; *s; s++)
        if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
            return 0;
    return 1;
}

/* The name of a declared write becomes part of a C function name: not one
 * every entity has (generated_names.c's list), nor a transaction form's. */
static void check_name(ddbgen_diags *d, const json_t *e, const json_t *w, const char *macro, json_t *seen)
{
    const char *name = ddbgen_jstr(w, "name"), *taken;
    ddbgen_loc l = ddbgen_loc_of(w, "loc");
    if (!is_c_ident(name)) {
        ddbgen_diag_add(d, DDBGEN_ERROR, l, "the name of a %s, \"%s\", must be a C identifier", macro, name);
        return;
    }
    /* a declared update's transaction form is <entity>_tx_<name>, and the
     * generated transaction operations are <entity>_tx_put, ... */
    if (!strncmp(name, "tx_", 3)) {
        ddbgen_diag_add(d, DDBGEN_ERROR, l,
                        "%s \"%s\": names starting with tx_ are the transaction forms' (<entity>_tx_<name>); "
                        "drop the prefix",
                        macro, name);
        return;
    }
    if ((taken = ddbgen_entity_name_taken(name))) {
        ddbgen_diag_add(d, DDBGEN_ERROR, l, "%s \"%s\" would clash with the generated function%s %s_%s of every entity",
                        macro, name, strchr(taken, '<') ? "s" : "", ddbgen_jstr(e, "cname"), taken);
        return;
    }
    json_t *prev = json_object_get(seen, name);
    if (prev) {
        long h = ddbgen_diag_add(d, DDBGEN_ERROR, l, "two declared writes are named \"%s\"", name);
        ddbgen_diag_note(d, h, ddbgen_loc_of(prev, "loc"), "the first is here");
        return;
    }
    json_object_set(seen, name, (json_t *)w);
}

static int parse(ddbgen_dexpr *dx, ddb_expr_kind kind, const json_t *o, ddbgen_diags *d)
{
    return ddbgen__dexpr_parse(dx, kind, ddbgen_jstr(o, "text"), ddbgen_loc_of(o, "loc"),
                               !json_is_false(json_object_get(o, "verbatim")), d);
}

static void check_update(ddbgen_diags *d, json_t *e, const json_t *u)
{
    ddbgen_dexpr ux, cx;
    const json_t *cj = json_object_get(u, "condition");
    int ok = parse(&ux, DDB_EXPR_UPDATE, json_object_get(u, "update"), d) == 0;
    memset(&cx, 0, sizeof cx);
    if (cj)
        ok = (parse(&cx, DDB_EXPR_CONDITION, cj, d) == 0) && ok;
    an *x = calloc(1, sizeof *x);
    if (ok && x) {
        x->d = d;
        x->e = e;
        analyse(x, &ux, cj ? &cx : NULL);
        ddbgen_loc l = ddbgen_loc_of(u, "loc");
        size_t i;
        json_t *k;
        char what[512];
        json_array_foreach(json_object_get(e, "keys"), i, k) {
            if (!strcmp(ddbgen_jstr(k, "index"), "table"))
                continue;
            check_index_key(x, k, l);
        }
        json_t *f;
        json_array_foreach(x->fields, i, f) {
            json_t *t = json_object_get(f, "derived");
            snprintf(what, sizeof what, "DDB_DERIVED field '%s'", fname(f));
            if (t)
                check_template(x, t, what, l);
        }
    }
    free(x);
    ddbgen__dexpr_free(&ux);
    ddbgen__dexpr_free(&cx);
}

static void check_condition(ddbgen_diags *d, json_t *e, const json_t *c)
{
    ddbgen_dexpr cx;
    an *x = calloc(1, sizeof *x);
    if (parse(&cx, DDB_EXPR_CONDITION, json_object_get(c, "condition"), d) == 0 && x) {
        x->d = d;
        x->e = e;
        analyse(x, NULL, &cx);
        /* its conditional variants send it through ddb_ent_expr, where #n<digits> are the runtime's */
        for (size_t i = 0; i < cx.n_names; i++)
            if (cx.names[i][0] == 'n' && cx.names[i][1] >= '0' && cx.names[i][1] <= '9')
                ddbgen_diag_add(d, DDBGEN_ERROR, cx.loc,
                                "field '%s' cannot be named in a DDB_CONDITION: names #n<digits>... are the "
                                "runtime's own (rename the field)",
                                cx.names[i]);
    }
    free(x);
    ddbgen__dexpr_free(&cx);
}

void ddbgen__check_writes(ddbgen_diags *d, json_t *e, const json_t *table)
{
    (void)table;
    size_t nf = json_array_size(json_object_get(e, "fields"));
    if (nf > AN_MAX_FIELDS && (json_array_size(json_object_get(e, "updates")) ||
                               json_array_size(json_object_get(e, "conditions")))) {
        ddbgen_diag_add(d, DDBGEN_ERROR, ddbgen_loc_of(e, "loc"),
                        "'%s' has %zu fields; declared updates and conditions handle entities of at most %d",
                        ddbgen_jstr(e, "name"), nf, AN_MAX_FIELDS);
        return;
    }
    json_t *seen = json_object();
    size_t i;
    json_t *w;
    json_array_foreach(json_object_get(e, "updates"), i, w) {
        check_name(d, e, w, "DDB_UPDATE", seen);
        check_update(d, e, w);
    }
    json_array_foreach(json_object_get(e, "conditions"), i, w) {
        check_name(d, e, w, "DDB_CONDITION", seen);
        check_condition(d, e, w);
    }
    json_decref(seen);
    ddbgen__check_field_writes(d, e);
}

/* ---- lowering ---------------------------------------------------------------- */

static const char *pool_copy(ddbgen_ir *ir, const char *s, int *oom)
{
    size_t n = strlen(s ? s : "") + 1;
    char *c = ddbgen__ir_alloc(ir, n);
    if (!c) {
        *oom = 1;
        return "";
    }
    memcpy(c, s ? s : "", n);
    return c;
}

static void *pool_array(ddbgen_ir *ir, size_t n, size_t size, int *oom)
{
    void *p = n ? ddbgen__ir_alloc(ir, n * size) : NULL;
    if (n && !p)
        *oom = 1;
    return p;
}

static const ddbgen_ir_field *ir_field(const ddbgen_ir_entity *e, const char *name, size_t *no)
{
    for (size_t i = 0; i < e->n_fields; i++)
        if (!strcmp(e->fields[i].name, name)) {
            if (no)
                *no = i;
            return &e->fields[i];
        }
    return NULL;
}

static void lower_dexpr(ddbgen_ir *ir, const ddbgen_ir_entity *e, const ddbgen_dexpr *dx, const char *source,
                        ddbgen_ir_dexpr *out, int *oom)
{
    out->source = pool_copy(ir, source, oom);
    out->text = pool_copy(ir, dx->text, oom);
    const char **names = pool_array(ir, dx->n_names, sizeof *names, oom);
    const char **attrs = pool_array(ir, dx->n_names, sizeof *attrs, oom);
    for (size_t i = 0; names && attrs && i < dx->n_names; i++) {
        const ddbgen_ir_field *f = ir_field(e, dx->names[i], NULL);
        names[i] = pool_copy(ir, dx->names[i], oom);
        attrs[i] = f ? f->attr : names[i];
    }
    out->names = names;
    out->attrs = attrs;
    out->n_names = names && attrs ? dx->n_names : 0;
}

static ddbgen_ir_placeholder *lower_params(ddbgen_ir *ir, const ddbgen_ir_entity *e, const an *x, int *oom)
{
    ddbgen_ir_placeholder *ps = pool_array(ir, x->n_ph, sizeof *ps, oom);
    for (size_t i = 0; ps && i < x->n_ph; i++) {
        ps[i].name = pool_copy(ir, x->ph[i].name, oom);
        if (x->ph[i].field >= 0 && (size_t)x->ph[i].field < e->n_fields) {
            ps[i].field = &e->fields[x->ph[i].field];
            ps[i].field_no = (size_t)x->ph[i].field;
        }
    }
    return ps;
}

/* The shard item holding the fields condition cx reads (the checks made
 * sure there is one), or -1: unsharded, or it reads key fields only. */
static int cond_shard(const ddbgen_ir_entity *e, const ddbgen_dexpr *cx)
{
    for (size_t i = 0; e->n_shards && i < cx->n_names; i++) {
        const ddbgen_ir_field *f = ir_field(e, cx->names[i], NULL);
        if (f && !f->key)
            return f->shard ? (int)f->shard->no : 0;
    }
    return -1;
}

/* The actions of ux grouped by the shard item of the field each writes
 * (the checks made sure no action reads another shard item). */
static void lower_parts(ddbgen_ir *ir, const ddbgen_ir_entity *e, const ddbgen_dexpr *ux, ddbgen_ir_update *out,
                        int *oom)
{
    static const char *const kw[4] = {"SET", "REMOVE", "ADD", "DELETE"};
    size_t ns = e->n_shards ? e->n_shards : 1;
    ddbgen_buf *b = calloc(ns * 4, sizeof *b);
    if (!b) {
        *oom = 1;
        return;
    }
    for (int c = 0; c < 4; c++) {
        char **acts = NULL;
        size_t na = 0;
        if (ux->text && ddbgen__dexpr_actions(ux, kw[c], &acts, &na))
            *oom = 1;
        for (size_t i = 0; i < na; i++) {
            size_t len = 0;
            while (acts[i][1 + len] == '_' || (acts[i][1 + len] >= 'a' && acts[i][1 + len] <= 'z') ||
                   (acts[i][1 + len] >= 'A' && acts[i][1 + len] <= 'Z') ||
                   (acts[i][1 + len] >= '0' && acts[i][1 + len] <= '9'))
                len++;
            size_t s = 0;
            for (size_t f = 0; acts[i][0] == '#' && e->n_shards && f < e->n_fields; f++)
                if (strlen(e->fields[f].name) == len && !strncmp(e->fields[f].name, acts[i] + 1, len) &&
                    e->fields[f].shard)
                    s = e->fields[f].shard->no;
            ddbgen_buf *to = &b[s * 4 + (size_t)c];
            ddbgen_buf_puts(to, to->len ? ", " : "");
            ddbgen_buf_puts(to, acts[i]);
            free(acts[i]);
        }
        free(acts);
    }
    size_t n = 0;
    for (size_t s = 0; s < ns; s++)
        n += b[s * 4].len || b[s * 4 + 1].len || b[s * 4 + 2].len || b[s * 4 + 3].len;
    out->parts = pool_array(ir, n, sizeof *out->parts, oom);
    for (size_t s = 0; out->parts && s < ns; s++) {
        if (!(b[s * 4].len || b[s * 4 + 1].len || b[s * 4 + 2].len || b[s * 4 + 3].len))
            continue;
        ddbgen_ir_update_part *p = &out->parts[out->n_parts++];
        p->shard = (int)s;
        for (int c = 0; c < 4; c++)
            p->clauses[c] = pool_copy(ir, b[s * 4 + (size_t)c].len ? ddbgen_buf_str(&b[s * 4 + (size_t)c]) : "", oom);
    }
    for (size_t i = 0; i < ns * 4; i++)
        ddbgen_buf_free(&b[i]);
    free(b);
}

static void lower_update(ddbgen_ir *ir, const json_t *je, const ddbgen_ir_entity *e, const json_t *u,
                         ddbgen_ir_update *out, an *x, int *oom)
{
    static const char *const kw[4] = {"SET", "REMOVE", "ADD", "DELETE"};
    ddbgen_diags quiet; /* the checks passed: nothing is reported here */
    ddbgen_diags_init(&quiet);
    ddbgen_dexpr ux, cx;
    memset(&cx, 0, sizeof cx);
    const json_t *cj = json_object_get(u, "condition");
    parse(&ux, DDB_EXPR_UPDATE, json_object_get(u, "update"), &quiet);
    if (cj)
        parse(&cx, DDB_EXPR_CONDITION, cj, &quiet);
    memset(x, 0, sizeof *x);
    x->d = &quiet;
    x->e = (json_t *)je;
    analyse(x, &ux, cj ? &cx : NULL);
    out->name = pool_copy(ir, ddbgen_jstr(u, "name"), oom);
    lower_dexpr(ir, e, &ux, ddbgen_jstr(json_object_get(u, "update"), "text"), &out->update, oom);
    for (int c = 0; c < 4; c++) {
        char *body = ux.text ? ddbgen__dexpr_clause(&ux, kw[c]) : NULL;
        if (!body)
            *oom = 1;
        out->clauses[c] = pool_copy(ir, body, oom);
        free(body);
    }
    out->has_condition = cj != NULL;
    if (cj)
        lower_dexpr(ir, e, &cx, ddbgen_jstr(cj, "text"), &out->condition, oom);
    out->params = lower_params(ir, e, x, oom);
    out->n_params = x->n_ph;
    size_t nk = 0;
    for (size_t i = 0; i < x->n_fields; i++)
        nk += x->known[i] >= 0 || x->known[i] == KNOWN_ABSENT;
    out->known = pool_array(ir, nk, sizeof *out->known, oom);
    out->known_fields = pool_array(ir, nk, sizeof *out->known_fields, oom);
    for (size_t i = 0; out->known && out->known_fields && i < x->n_fields; i++)
        if (x->known[i] >= 0 || x->known[i] == KNOWN_ABSENT) {
            out->known[out->n_known] = x->known[i] >= 0 ? (size_t)x->known[i] : DDBGEN_KNOWN_ABSENT;
            out->known_fields[out->n_known++] = i;
        }
    lower_parts(ir, e, &ux, out, oom);
    out->cond_shard = cj ? cond_shard(e, &cx) : -1;
    if (out->cond_shard < 0)
        out->cond_shard = out->n_parts ? out->parts[0].shard : 0;
    ddbgen__dexpr_free(&ux);
    ddbgen__dexpr_free(&cx);
    ddbgen_diags_free(&quiet);
}

static void lower_condition(ddbgen_ir *ir, const json_t *je, const ddbgen_ir_entity *e, const json_t *c,
                            ddbgen_ir_condition *out, an *x, int *oom)
{
    ddbgen_diags quiet;
    ddbgen_diags_init(&quiet);
    ddbgen_dexpr cx;
    const json_t *cj = json_object_get(c, "condition");
    parse(&cx, DDB_EXPR_CONDITION, cj, &quiet);
    memset(x, 0, sizeof *x);
    x->d = &quiet;
    x->e = (json_t *)je;
    analyse(x, NULL, &cx);
    out->name = pool_copy(ir, ddbgen_jstr(c, "name"), oom);
    lower_dexpr(ir, e, &cx, ddbgen_jstr(cj, "text"), &out->condition, oom);
    out->params = lower_params(ir, e, x, oom);
    out->n_params = x->n_ph;
    out->shard = cond_shard(e, &cx);
    if (out->shard < 0)
        out->shard = 0;
    ddbgen__dexpr_free(&cx);
    ddbgen_diags_free(&quiet);
}

static int lower_entity_writes(ddbgen_ir *ir, const json_t *je, ddbgen_ir_entity *e)
{
    const json_t *ups = json_object_get(je, "updates"), *conds = json_object_get(je, "conditions");
    if (!json_array_size(ups) && !json_array_size(conds))
        return 0;
    int oom = 0;
    ddbgen_ir_writes *w = pool_array(ir, 1, sizeof *w, &oom);
    an *x = calloc(1, sizeof *x);
    if (!w || !x) {
        free(x);
        return -1;
    }
    w->n_updates = json_array_size(ups);
    w->updates = pool_array(ir, w->n_updates, sizeof *w->updates, &oom);
    for (size_t i = 0; w->updates && i < w->n_updates; i++)
        lower_update(ir, je, e, json_array_get(ups, i), &w->updates[i], x, &oom);
    w->n_conditions = json_array_size(conds);
    w->conditions = pool_array(ir, w->n_conditions, sizeof *w->conditions, &oom);
    for (size_t i = 0; w->conditions && i < w->n_conditions; i++)
        lower_condition(ir, je, e, json_array_get(conds, i), &w->conditions[i], x, &oom);
    free(x);
    e->writes = w;
    return oom ? -1 : 0;
}

int ddbgen__lower_writes(ddbgen_ir *ir, const json_t *declared)
{
    const json_t *ents = json_object_get(declared, "entities");
    for (size_t i = 0; i < ir->n_entities; i++)
        if (lower_entity_writes(ir, json_array_get(ents, i), &ir->entities[i]))
            return -1;
    return 0;
}
