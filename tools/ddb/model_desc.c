/* ddb — a ddbgen model file as the entity layer's descriptors (see
 * model_desc.h).  The structs are the tool's own: each field gets a slot
 * aligned for its C type (char[N] as N bytes, numbers at their width,
 * pointers, ddb_bytes and the set types as libddb declares them, a list as
 * a pointer and a size_t count), so the descriptors are the generated
 * ones' in every rule and differ only in offsets.  Everything read from the
 * file is checked before use: names, types, sizes, the field paths of
 * templates, nesting and the limits the entity layer has.
 * May call libddb's public API (<ddb/entity.h>) and jansson; nothing else. */
#include "model_desc.h"

#include <stdalign.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 16         /* nested structs */
#define MAX_CHARS (400 << 10) /* a char[N] holds at most an item's size */

typedef struct loader {
    model *m;
    char *why;
    size_t cap;
    int failed;
    json_t *built;    /* struct cname -> index into descs (as integer) */
    ddb_struct_desc **descs;
    size_t n_descs;
} loader;

static int fail(loader *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(loader *l, const char *fmt, ...)
{
    if (!l->failed) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(l->why, l->cap, fmt, ap);
        va_end(ap);
    }
    l->failed = 1;
    return -1;
}

static void *alloc(loader *l, size_t n)
{
    void *p = n ? ddb_arena_alloc(l->m->a, n) : NULL;
    if (n && !p)
        fail(l, "out of memory");
    else if (p)
        memset(p, 0, n);
    return p;
}

static const char *str(loader *l, const json_t *o, const char *key, const char *what)
{
    const char *s = json_string_value(json_object_get(o, key));
    if (!s) {
        fail(l, "%s has no \"%s\" string", what, key);
        return NULL;
    }
    char *c = ddb_arena_strdup(l->m->a, s);
    if (!c)
        fail(l, "out of memory");
    return c;
}

static uint32_t ptr_align(void) { return (uint32_t)alignof(void *); }

static uint32_t desc_align(const ddb_struct_desc *st, int depth);

static uint32_t field_align(const ddb_field_desc *f, int depth)
{
    switch (f->type) {
    case DDB_F_CHARS:
    case DDB_F_BOOL:
        return 1;
    case DDB_F_INT:
    case DDB_F_UINT:
    case DDB_F_FLOAT:
        return f->size;
    case DDB_F_STRUCT:
        return desc_align(f->sub, depth + 1);
    default: /* pointers, ddb_bytes, sets, lists */
        return ptr_align();
    }
}

static uint32_t desc_align(const ddb_struct_desc *st, int depth)
{
    uint32_t a = 1;
    for (uint16_t i = 0; st && depth < MAX_DEPTH && i < st->n_fields; i++) {
        uint32_t fa = field_align(&st->fields[i], depth);
        a = fa > a ? fa : a;
    }
    return a;
}

static const ddb_struct_desc *struct_named(loader *l, const char *cname, int depth);

/* The C type of a field or a list's item: type and size (and sub). */
static int scalar_type(loader *l, const json_t *j, const char *what, uint8_t *type, uint32_t *size,
                       const ddb_struct_desc **sub, int depth)
{
    const char *t = json_string_value(json_object_get(j, "type"));
    const char *ctype = json_string_value(json_object_get(j, "ctype"));
    const char *num = json_string_value(json_object_get(j, "num"));
    if (!t || !ctype)
        return fail(l, "%s has no type", what);
    *sub = NULL;
    if (!strcmp(t, "S")) {
        if (!strncmp(ctype, "char[", 5)) {
            json_int_t max = json_integer_value(json_object_get(j, "max_len"));
            if (max < 1 || max >= MAX_CHARS)
                return fail(l, "%s: char[N] of a bad size", what);
            *type = DDB_F_CHARS, *size = (uint32_t)max + 1;
        } else
            *type = DDB_F_STRING, *size = sizeof(char *);
    } else if (!strcmp(t, "N")) {
        int bits = num ? atoi(num + 1) : 0;
        if (!num || (num[0] != 'i' && num[0] != 'u' && num[0] != 'f') ||
            (bits != 8 && bits != 16 && bits != 32 && bits != 64) || (num[0] == 'f' && bits < 32))
            return fail(l, "%s: unknown number type \"%s\"", what, num ? num : "");
        *type = num[0] == 'i' ? DDB_F_INT : num[0] == 'u' ? DDB_F_UINT : DDB_F_FLOAT;
        *size = (uint32_t)bits / 8;
    } else if (!strcmp(t, "BOOL"))
        *type = DDB_F_BOOL, *size = sizeof(bool);
    else if (!strcmp(t, "B"))
        *type = DDB_F_BYTES, *size = sizeof(ddb_bytes);
    else if (!strcmp(t, "SS"))
        *type = DDB_F_SSET, *size = sizeof(ddb_string_set);
    else if (!strcmp(t, "NS")) {
        int dbl = strstr(ctype, "double") != NULL;
        *type = dbl ? DDB_F_DSET : DDB_F_ISET, *size = dbl ? sizeof(ddb_double_set) : sizeof(ddb_int_set);
    } else if (!strcmp(t, "BS"))
        *type = DDB_F_BSET, *size = sizeof(ddb_bytes_set);
    else if (!strcmp(t, "M")) {
        const char *s = json_string_value(json_object_get(j, "struct"));
        if (!s || !(*sub = struct_named(l, s, depth + 1)))
            return fail(l, "%s: unknown struct \"%s\"", what, s ? s : "");
        *type = DDB_F_STRUCT, *size = (*sub)->size;
    } else
        return fail(l, "%s: unknown type \"%s\"", what, t);
    return 0;
}

static uint32_t align_up(uint32_t n, uint32_t a) { return (n + a - 1) / a * a; }

/* The fields of a struct (an entity's, or a named one) laid out in order. */
static ddb_struct_desc *build_struct(loader *l, const char *name, const json_t *fields, int depth)
{
    size_t n = json_array_size(fields);
    if (depth > MAX_DEPTH)
        return fail(l, "struct %s: nested deeper than %d", name, MAX_DEPTH), NULL;
    if (n == 0 || n > DDB_ENT_MAX_FIELDS)
        return fail(l, "struct %s: %zu fields (1 to %d)", name, n, DDB_ENT_MAX_FIELDS), NULL;
    ddb_struct_desc *st = alloc(l, sizeof *st);
    ddb_field_desc *fd = alloc(l, n * sizeof *fd);
    if (!st || !fd)
        return NULL;
    uint32_t off = 0;
    for (size_t i = 0; i < n && !l->failed; i++) {
        const json_t *f = json_array_get(fields, i);
        ddb_field_desc *d = &fd[i];
        char what[300];
        snprintf(what, sizeof what, "field %zu of %s", i, name);
        d->name = str(l, f, "name", what);
        d->attr = str(l, f, "attr", what);
        d->shard = -1;
        const char *t = json_string_value(json_object_get(f, "type"));
        if (t && !strcmp(t, "L")) {
            const json_t *item = json_object_get(f, "item");
            uint8_t et;
            uint32_t es;
            if (scalar_type(l, item, what, &et, &es, &d->sub, depth))
                break;
            d->type = DDB_F_LIST, d->elem_type = et, d->elem_size = es, d->size = sizeof(void *);
            off = align_up(off, ptr_align());
            d->offset = off;
            off += (uint32_t)sizeof(void *);
            off = align_up(off, (uint32_t)alignof(size_t));
            d->count_offset = off;
            off += (uint32_t)sizeof(size_t);
        } else {
            if (scalar_type(l, f, what, &d->type, &d->size, &d->sub, depth))
                break;
            off = align_up(off, field_align(d, depth));
            d->offset = off;
            off += d->size;
        }
        d->flags = (json_is_true(json_object_get(f, "optional")) ? DDB_FIELD_OPTIONAL : 0) |
                   (json_is_true(json_object_get(f, "key")) ? DDB_FIELD_KEY : 0) |
                   (json_object_get(f, "uuid") ? DDB_FIELD_UUID : 0) |
                   (json_object_get(f, "auto_id") ? DDB_FIELD_AUTO_ID : 0) |
                   (json_object_get(f, "version") ? DDB_FIELD_VERSION : 0) |
                   (json_object_get(f, "ttl") ? DDB_FIELD_TTL : 0) |
                   (json_object_get(f, "derived") ? DDB_FIELD_DERIVED : 0) |
                   (json_object_get(f, "unique") ? DDB_FIELD_UNIQUE : 0) |
                   (json_object_get(f, "created_at") ? DDB_FIELD_CREATED_AT : 0) |
                   (json_object_get(f, "updated_at") ? DDB_FIELD_UPDATED_AT : 0);
        const char *dflt = json_string_value(json_object_get(json_object_get(f, "default"), "value"));
        if (dflt && !(d->dflt = ddb_arena_strdup(l->m->a, dflt)))
            fail(l, "out of memory");
    }
    st->name = ddb_arena_strdup(l->m->a, name);
    st->n_fields = (uint16_t)n;
    st->fields = fd;
    st->size = align_up(off ? off : 1, desc_align(st, depth));
    return l->failed ? NULL : st;
}

static const ddb_struct_desc *struct_named(loader *l, const char *cname, int depth)
{
    json_t *done = json_object_get(l->built, cname);
    if (done) {
        json_int_t k = json_integer_value(done);
        if (k < 0)
            return fail(l, "struct %s contains itself", cname), NULL;
        return l->descs[k];
    }
    size_t i;
    json_t *s;
    json_array_foreach(json_object_get(l->m->doc, "structs"), i, s) {
        const char *n = json_string_value(json_object_get(s, "cname"));
        if (!n || strcmp(n, cname))
            continue;
        json_object_set_new(l->built, cname, json_integer(-1));
        ddb_struct_desc *st = build_struct(l, cname, json_object_get(s, "fields"), depth);
        if (!st)
            return NULL;
        ddb_struct_desc **d = realloc(l->descs, (l->n_descs + 1) * sizeof *d);
        if (!d)
            return fail(l, "out of memory"), NULL;
        l->descs = d;
        d[l->n_descs] = st;
        json_object_set_new(l->built, cname, json_integer((json_int_t)l->n_descs++));
        return st;
    }
    return NULL;
}

/* A template's segments: literals, and holes whose field path is resolved
 * to indexes through st (and its nested structs). */
static int build_template(loader *l, const json_t *j, const ddb_struct_desc *st, ddb_template *out, const char *what)
{
    const json_t *segs = json_object_get(j, "segments");
    size_t n = json_array_size(segs);
    if (!n || n > 64)
        return fail(l, "%s: a template of %zu segments", what, n);
    ddb_tseg *s = alloc(l, n * sizeof *s);
    if (!s)
        return -1;
    for (size_t i = 0; i < n; i++) {
        const json_t *g = json_array_get(segs, i), *path = json_object_get(g, "path");
        const char *lit = json_string_value(json_object_get(g, "lit"));
        if (lit) {
            if (!(s[i].lit = ddb_arena_strdup(l->m->a, lit)))
                return fail(l, "out of memory");
            continue;
        }
        size_t np = json_array_size(path);
        if (!np || np > MAX_DEPTH)
            return fail(l, "%s: a hole without a field path", what);
        uint16_t *p = alloc(l, np * sizeof *p);
        if (!p)
            return -1;
        const ddb_struct_desc *cur = st;
        for (size_t k = 0; k < np; k++) {
            int idx = cur ? model_field_index(cur, json_string_value(json_array_get(path, k))) : -1;
            if (idx < 0)
                return fail(l, "%s: no field \"%s\"", what, json_string_value(json_array_get(path, k)));
            p[k] = (uint16_t)idx;
            cur = cur->fields[idx].sub;
        }
        s[i].path = p;
        s[i].path_len = (uint8_t)np;
        json_int_t pad = json_integer_value(json_object_get(g, "pad"));
        s[i].pad = pad > 0 && pad < 64 ? (uint8_t)pad : 0;
        const char *part = json_string_value(json_object_get(g, "part"));
        const char *kase = json_string_value(json_object_get(g, "case"));
        s[i].part = !part ? DDB_TP_NONE
                    : !strcmp(part, "year") ? DDB_TP_YEAR
                    : !strcmp(part, "month") ? DDB_TP_MONTH
                    : !strcmp(part, "day") ? DDB_TP_DAY
                    : !strcmp(part, "quarter") ? DDB_TP_QUARTER
                                               : DDB_TP_NONE;
        s[i].kase = !kase ? DDB_TC_NONE : !strcmp(kase, "lower") ? DDB_TC_LOWER : DDB_TC_UPPER;
    }
    const char *type = json_string_value(json_object_get(j, "type"));
    out->segs = s;
    out->n = (uint16_t)n;
    out->type = type && !strcmp(type, "N") ? DDB_TN : DDB_TS;
    return 0;
}

int model_field_index(const ddb_struct_desc *st, const char *name)
{
    for (uint16_t i = 0; name && i < st->n_fields; i++)
        if (!strcmp(st->fields[i].name, name) || !strcmp(st->fields[i].attr, name))
            return i;
    return -1;
}

static ddb_type key_type(const json_t *k)
{
    const char *t = json_string_value(json_object_get(k, "type"));
    return t && !strcmp(t, "N") ? DDB_TN : t && !strcmp(t, "B") ? DDB_TB : DDB_TS;
}

/* An index keyed on its entities' fields (the model's pk_parts / sk_parts,
 * [{"attr", "type"}]): the first attribute into *first / *type, the
 * further ones (at most DDB_MAX_KEY_ATTRS - 1) into *more. */
static int key_parts(loader *l, const json_t *parts, const char **first, ddb_type *type, const ddb_key_part **more,
                     size_t *n_more)
{
    size_t n = json_array_size(parts);
    if (!n || n > DDB_MAX_KEY_ATTRS)
        return fail(l, "an index key of %zu attributes (1 to %d a side)", n, DDB_MAX_KEY_ATTRS);
    ddb_key_part *p = n > 1 ? alloc(l, (n - 1) * sizeof *p) : NULL;
    if (n > 1 && !p)
        return -1;
    for (size_t i = 0; i < n; i++) {
        const json_t *a = json_array_get(parts, i);
        const char *name = str(l, a, "attr", "a key attribute");
        if (i == 0)
            *first = name, *type = key_type(a);
        else
            p[i - 1] = (ddb_key_part){name, key_type(a)};
    }
    *more = p;
    *n_more = n - 1;
    return l->failed ? -1 : 0;
}

/* A key of fields ({"pk_fields": [{"field"}], ...}) as the runtime's
 * template of one hole per field (ddb_key_desc.by_fields). */
static int fields_template(loader *l, const json_t *list, const ddb_struct_desc *st, ddb_template *out,
                           const char *what)
{
    json_t *segs = json_array();
    size_t i;
    json_t *r;
    json_array_foreach(list, i, r)
        json_array_append_new(segs, json_pack("{s:[s?]}", "path", json_string_value(json_object_get(r, "field"))));
    json_t *t = json_pack("{s:o}", "segments", segs);
    int rc = t ? build_template(l, t, st, out, what) : fail(l, "out of memory");
    json_decref(t);
    return rc;
}

static int build_table(loader *l, const json_t *t, ddb_schema_table *out)
{
    const char *name = str(l, t, "name", "a table");
    out->cname = str(l, t, "cname", "a table");
    out->type_attr = str(l, t, "type_attribute", "a table");
    out->def.name = name;
    const json_t *indexes = json_object_get(t, "indexes");
    size_t n = json_array_size(indexes);
    ddb_index_def *ix = alloc(l, (n ? n : 1) * sizeof *ix);
    if (!ix || l->failed)
        return -1;
    size_t k;
    json_t *x;
    json_array_foreach(indexes, k, x) {
        const char *kind = json_string_value(json_object_get(x, "kind"));
        const json_t *pk = json_object_get(x, "pk"), *sk = json_object_get(x, "sk");
        ddb_key_schema ks = {.pk = NULL, .pk_type = DDB_TS};
        if (pk)
            ks.pk = str(l, pk, "attr", "a key"), ks.pk_type = key_type(pk);
        if (sk)
            ks.sk = str(l, sk, "attr", "a key"), ks.sk_type = key_type(sk);
        const json_t *pkp = json_object_get(x, "pk_parts"), *skp = json_object_get(x, "sk_parts");
        if ((pkp && key_parts(l, pkp, &ks.pk, &ks.pk_type, &ks.pk_more, &ks.n_pk_more)) ||
            (skp && key_parts(l, skp, &ks.sk, &ks.sk_type, &ks.sk_more, &ks.n_sk_more)))
            return -1;
        if (kind && !strcmp(kind, "primary")) {
            out->def.key = ks;
            continue;
        }
        ddb_index_def *d = &ix[out->def.n_indexes++];
        d->name = str(l, x, "name", "an index");
        d->local = kind && !strcmp(kind, "lsi");
        d->key = ks;
        const json_t *proj = json_object_get(x, "projection"), *attrs = json_object_get(proj, "attributes");
        const char *pt = json_string_value(json_object_get(proj, "type"));
        d->projection = pt && !strcmp(pt, "KEYS_ONLY") ? DDB_PROJ_KEYS_ONLY
                        : pt && !strcmp(pt, "INCLUDE") ? DDB_PROJ_INCLUDE
                                                       : DDB_PROJ_ALL;
        size_t na = json_array_size(attrs);
        const char **inc = na ? alloc(l, na * sizeof *inc) : NULL;
        for (size_t i = 0; inc && i < na; i++)
            inc[i] = ddb_arena_strdup(l->m->a, json_string_value(json_array_get(attrs, i)) ? json_string_value(json_array_get(attrs, i)) : "");
        d->include = inc;
        d->n_include = inc ? na : 0;
    }
    for (size_t i = 0; i < out->def.n_indexes; i++)
        if (ix[i].local)
            ix[i].key.pk = out->def.key.pk, ix[i].key.pk_type = out->def.key.pk_type;
    out->def.indexes = ix;
    if (!out->def.key.pk)
        return fail(l, "table %s has no primary key", name ? name : "?");
    return l->failed ? -1 : 0;
}

static const ddb_schema_table *table_of(const model *m, const char *cname)
{
    for (size_t i = 0; cname && i < m->n_tables; i++)
        if (!strcmp(m->tables[i].cname, cname))
            return &m->tables[i];
    return NULL;
}

/* The key attributes of index on t: the table's key ("table"), or an index's. */
static const ddb_key_schema *index_key(const ddb_schema_table *t, const char *index)
{
    if (!strcmp(index, "table"))
        return &t->def.key;
    for (size_t i = 0; i < t->def.n_indexes; i++)
        if (!strcmp(t->def.indexes[i].name, index))
            return &t->def.indexes[i].key;
    return NULL;
}

static int build_entity(loader *l, const json_t *e, model_entity *out)
{
    ddb_entity_desc *d = &out->desc;
    char what[300];
    const char *name = str(l, e, "name", "an entity");
    if (!name)
        return -1;
    snprintf(what, sizeof what, "entity %s", name);
    d->name = name;
    out->json = e;
    out->table_cname = str(l, e, "table", what);
    d->table = table_of(l->m, out->table_cname);
    if (!d->table)
        return fail(l, "%s: unknown table", what);
    ddb_struct_desc *st = build_struct(l, name, json_object_get(e, "fields"), 0);
    if (!st)
        return -1;
    d->st = st;
    /* shards: ids, and each field's shard */
    const json_t *shards = json_object_get(e, "shards");
    size_t ns = json_array_size(shards);
    if (ns > DDB_ENT_MAX_SHARDS)
        return fail(l, "%s: more than %d shards", what, DDB_ENT_MAX_SHARDS);
    const char **ids = ns ? alloc(l, ns * sizeof *ids) : NULL;
    for (size_t s = 0; ids && s < ns; s++) {
        const json_t *sh = json_array_get(shards, s);
        ids[s] = str(l, sh, "id", what);
        size_t k;
        json_t *fname;
        json_array_foreach(json_object_get(sh, "fields"), k, fname) {
            int fi = model_field_index(st, json_string_value(fname));
            if (fi < 0)
                return fail(l, "%s: shard %s names no field \"%s\"", what, ids[s] ? ids[s] : "?",
                            json_string_value(fname) ? json_string_value(fname) : "");
            ((ddb_field_desc *)st->fields)[fi].shard = (int16_t)s;
        }
    }
    d->n_shards = (uint16_t)ns;
    d->shards = ids;
    const char *sfx = json_string_value(json_object_get(e, "shard_suffix"));
    d->shard_suffix = ddb_arena_strdup(l->m->a, sfx ? sfx : "#");
    /* derived fields, the auto-id scope */
    for (uint16_t i = 0; i < st->n_fields && !l->failed; i++) {
        const json_t *f = json_array_get(json_object_get(e, "fields"), i);
        ddb_field_desc *fd = (ddb_field_desc *)&st->fields[i];
        if (json_object_get(f, "derived")) {
            ddb_template *t = alloc(l, sizeof *t);
            if (!t || build_template(l, json_object_get(f, "derived"), st, t, what))
                return -1;
            fd->derived = t;
        }
        if (json_object_get(f, "auto_id") && !d->auto_id_scope) {
            ddb_template *t = alloc(l, sizeof *t);
            if (!t || build_template(l, json_object_get(f, "auto_id"), st, t, what))
                return -1;
            d->auto_id_scope = t;
        }
    }
    /* keys: the primary key first, then the others as declared */
    const json_t *keys = json_object_get(e, "keys");
    size_t nk = json_array_size(keys);
    if (!nk || nk > 64)
        return fail(l, "%s: %zu keys", what, nk);
    ddb_key_desc *kd = alloc(l, nk * sizeof *kd);
    const ddb_write_shards **ws = alloc(l, nk * sizeof *ws);
    if (!kd || !ws)
        return -1;
    size_t n = 0;
    int any_ws = 0;
    for (int pass = 0; pass < 2; pass++) {
        size_t k;
        json_t *key;
        json_array_foreach(keys, k, key) {
            const char *index = json_string_value(json_object_get(key, "index"));
            if (!index || (pass == 0) != !strcmp(index, "table"))
                continue;
            if (n == nk)
                return fail(l, "%s: two primary keys", what);
            const ddb_key_schema *ks = index_key(d->table, index);
            if (!ks)
                return fail(l, "%s: unknown index %s", what, index);
            ddb_key_desc *o = &kd[n];
            o->index = pass == 0 ? NULL : ddb_arena_strdup(l->m->a, index);
            o->pk_attr = ks->pk;
            o->shard = -1;
            const json_t *pkf = json_object_get(key, "pk_fields"), *skf = json_object_get(key, "sk_fields");
            if (pkf) { /* a key of fields: the fields are the key attributes */
                o->by_fields = true;
                o->sk_attr = skf ? ks->sk : NULL;
                if (fields_template(l, pkf, st, &o->pk, what) ||
                    (o->sk_attr && fields_template(l, skf, st, &o->sk, what)))
                    return -1;
            } else {
                o->sk_attr = json_object_get(key, "sk") ? ks->sk : NULL;
                if (build_template(l, json_object_get(key, "pk"), st, &o->pk, what) ||
                    (o->sk_attr && build_template(l, json_object_get(key, "sk"), st, &o->sk, what)))
                    return -1;
            }
            const char *shard = json_string_value(json_object_get(key, "shard"));
            for (uint16_t s = 0; shard && s < d->n_shards; s++)
                if (!strcmp(d->shards[s], shard))
                    o->shard = (int16_t)s;
            const json_t *w = json_object_get(key, "write_shards");
            if (w) {
                ddb_write_shards *x = alloc(l, sizeof *x);
                json_int_t count = json_integer_value(json_object_get(w, "count"));
                const char *by = json_string_value(json_object_get(w, "by"));
                if (!x || count < 1 || count > DDB_ENT_MAX_WRITE_SHARDS)
                    return fail(l, "%s: bad write shards on %s", what, index);
                x->count = (uint16_t)count;
                x->by = by && !strcmp(by, "random") ? DDB_WS_RANDOM : DDB_WS_HASH;
                ws[n] = x;
                any_ws = 1;
            }
            n++;
        }
        if (pass == 0 && n != 1)
            return fail(l, "%s: needs exactly one key on the table", what);
    }
    for (size_t k = 0; k < n; k++)
        if (ws[k]) {
            ddb_write_shards *x = (ddb_write_shards *)ws[k];
            x->hash_pk = &kd[0].pk;
            x->hash_sk = kd[0].sk_attr ? &kd[0].sk : NULL;
        }
    d->n_keys = (uint16_t)n;
    d->keys = kd;
    d->write_shards = any_ws ? ws : NULL;
    return l->failed ? -1 : 0;
}

int model_load(model *m, const char *path, char *why, size_t cap)
{
    memset(m, 0, sizeof *m);
    json_error_t je;
    m->doc = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!m->doc) {
        snprintf(why, cap, "cannot read the model %s: %s (line %d)", path, je.text, je.line);
        return -1;
    }
    loader l = {m, why, cap, 0, json_object(), NULL, 0};
    m->a = ddb_arena_new();
    const json_t *tables = json_object_get(m->doc, "tables"), *ents = json_object_get(m->doc, "entities");
    if (!m->a || !l.built)
        fail(&l, "out of memory");
    else if (json_integer_value(json_object_get(m->doc, "model_version")) != 1 || !json_array_size(tables))
        fail(&l, "%s is not a ddbgen model (ddbgen --emit-model writes one)", path);
    m->n_tables = json_array_size(tables);
    m->n_ents = json_array_size(ents);
    if (!l.failed) {
        m->tables = alloc(&l, m->n_tables * sizeof *m->tables);
        m->ents = alloc(&l, (m->n_ents ? m->n_ents : 1) * sizeof *m->ents);
    }
    for (size_t i = 0; !l.failed && i < m->n_tables; i++)
        build_table(&l, json_array_get(tables, i), &m->tables[i]);
    for (size_t i = 0; !l.failed && i < m->n_ents; i++)
        build_entity(&l, json_array_get(ents, i), &m->ents[i]);
    /* each table's TTL attribute: its entities' DDB_TTL field */
    for (size_t i = 0; !l.failed && i < m->n_ents; i++) {
        ddb_schema_table *t = (ddb_schema_table *)m->ents[i].desc.table;
        for (uint16_t k = 0; k < m->ents[i].desc.st->n_fields && !t->def.ttl_attribute; k++)
            if (m->ents[i].desc.st->fields[k].flags & DDB_FIELD_TTL)
                t->def.ttl_attribute = m->ents[i].desc.st->fields[k].attr;
    }
    json_decref(l.built);
    free(l.descs);
    if (l.failed) {
        char msg[600];
        snprintf(msg, sizeof msg, "%s", why);
        if (strncmp(msg, "cannot", 6) && !strstr(msg, "is not a ddbgen model"))
            snprintf(why, cap, "the model %s: %s", path, msg);
        model_free(m);
        return -1;
    }
    return 0;
}

void model_free(model *m)
{
    ddb_arena_free(m->a);
    json_decref(m->doc);
    memset(m, 0, sizeof *m);
}

const model_entity *model_entity_named(const model *m, const char *name)
{
    for (size_t i = 0; name && i < m->n_ents; i++)
        if (!strcmp(m->ents[i].desc.name, name) ||
            !strcmp(json_string_value(json_object_get(m->ents[i].json, "cname")) ? json_string_value(json_object_get(m->ents[i].json, "cname")) : "", name))
            return &m->ents[i];
    return NULL;
}
