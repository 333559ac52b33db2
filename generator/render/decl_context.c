/* decl_context.c — the render context of an entity's declared writes
 * (decl_write.h): what templates/decl_update.{h,c}.mustache print for each
 * DDB_UPDATE and templates/decl_condition.{h,c}.mustache for each
 * DDB_CONDITION.  Presentation only, from the IR; may call ir.h,
 * decl_write.h, render_context.h's literals and identifiers and
 * internal.h's buffers. */
#include "decl_write.h"
#include "internal.h"
#include "c_text.h"
#include "render_context.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void set(json_t *o, const char *key, json_t *v) { json_object_set_new(o, key, v); }

/* printf into a new JSON string: render_context.c's */
#define fmt ddbgen__rc_fmt

/* The C parameter(s) a placeholder is passed as, and the statement that
 * puts it into `dst` (a struct of the entity). */
static void param_ctx(json_t *p, const ddbgen_ir_placeholder *ph, const char *dst)
{
    const ddbgen_ir_field *f = ph->field;
    if (!f) {
        set(p, "decl", fmt("int64_t %s", ph->name));
        set(p, "assign", json_string(""));
        set(p, "call", json_string(ph->name));
        set(p, "ref", fmt("&%s", ph->name));
        set(p, "field_no", json_integer(-1));
        return;
    }
    set(p, "field_no", json_integer((json_int_t)ph->field_no));
    set(p, "ref", fmt("&%s", dst));
    set(p, "call", f->is_list ? fmt("%s, %s_count", ph->name, ph->name) : json_string(ph->name));
    if (f->chars) {
        json_t *lit = ddbgen__c_literal(f->name);
        set(p, "decl", fmt("const char *%s", ph->name));
        set(p, "assign",
            fmt("    if ((rc_ = ddb_ent_set_chars(%s.%s, sizeof %s.%s, %s, %s, err)))\n        return rc_;", dst,
                f->name, dst, f->name, ph->name, json_string_value(lit)));
        json_decref(lit);
    } else if (f->type == DDBGEN_IR_S) {
        /* a char * field: the runtime only reads the value, so callers may pass a const string */
        set(p, "decl", fmt("const char *%s", ph->name));
        set(p, "assign", fmt("    %s.%s = (char *)%s;", dst, f->name, ph->name));
    } else if (f->is_list) {
        /* a list is only read: its elements are const (const char *const * for strings) */
        size_t n = strlen(f->ctype);
        while (n && (f->ctype[n - 1] == ' ' || f->ctype[n - 1] == '*'))
            n--;
        bool ptrs = strchr(f->ctype + n, '*') != strrchr(f->ctype + n, '*'); /* T **: pointer elements */
        set(p, "decl", ptrs ? fmt("const %.*s *const *%s, size_t %s_count", (int)n, f->ctype, ph->name, ph->name)
                            : fmt("const %.*s *%s, size_t %s_count", (int)n, f->ctype, ph->name, ph->name));
        set(p, "assign", fmt("    %s.%s = (%s)%s;\n    %s.%s = %s_count;", dst, f->name, f->ctype, ph->name, dst,
                             f->count_field, ph->name));
    } else {
        set(p, "decl", fmt("%s %s", f->ctype, ph->name));
        set(p, "assign", fmt("    %s.%s = %s;", dst, f->name, ph->name));
    }
}

/* The placeholders as parameters, each put into v_[i] (a struct of the entity). */
static json_t *params_ctx(const ddbgen_ir_placeholder *ps, size_t n)
{
    json_t *params = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *p = json_object();
        char dst[64];
        snprintf(dst, sizeof dst, "v_[%zu]", i);
        param_ctx(p, &ps[i], dst);
        set(p, "pname", fmt(":%s", ps[i].name));
        json_array_append_new(params, p);
    }
    return params;
}

static json_t *names_ctx(const ddbgen_ir_dexpr *d)
{
    json_t *a = json_array();
    for (size_t i = 0; i < d->n_names; i++) {
        json_t *o = json_object();
        json_t *n = fmt("#%s", d->names[i]);
        set(o, "name", ddbgen__c_literal(json_string_value(n)));
        json_decref(n);
        set(o, "attr", ddbgen__c_literal(d->attrs[i]));
        json_array_append_new(a, o);
    }
    return a;
}

/* Does t read a field whose new value u knows (removed: one it REMOVEs)? */
static bool reads_field(const ddbgen_ir_template *t, const ddbgen_ir_update *u, bool removed)
{
    for (size_t i = 0; t && i < t->n_segs; i++)
        for (size_t k = 0; !t->segs[i].lit && t->segs[i].path_len && k < u->n_known; k++)
            if (u->known_fields[k] == t->segs[i].path[0] && (!removed || u->known[k] == DDBGEN_KNOWN_ABSENT))
                return true;
    return false;
}

static bool reads_known(const ddbgen_ir_template *t, const ddbgen_ir_update *u)
{
    return reads_field(t, u, false);
}

static json_t *cond_sent(const ddbgen_ir_dexpr *d);

static int field_part(const ddbgen_ir_field *f) { return f->shard ? (int)f->shard->no : 0; }

/* Attribute attr, recomputed from template text: into rec as "attr =
 * <text>", or into gone when a field it reads is REMOVEd (it renders
 * absent: the attribute is REMOVEd). */
static void note_recomputed(ddbgen_buf *rec, ddbgen_buf *gone, bool leaves, const char *attr, const char *text)
{
    if (leaves)
        ddbgen_buf_printf(gone, ", %s", attr);
    else
        ddbgen_buf_printf(rec, ", %s = <%s>", attr, text);
}

/* What the generated function sends to shard item s (0 when unsharded), for
 * its comment: the UpdateExpression with what the runtime adds (updated-at
 * and the version first, the recomputed derived attributes and index keys
 * after the declared actions); "" when it does not write s. */
static void sent_part(const ddbgen_ir_entity *e, const ddbgen_ir_update *u, int s, ddbgen_buf *out)
{
    const ddbgen_ir_update_part *p = NULL;
    for (size_t i = 0; i < u->n_parts; i++)
        if (u->parts[i].shard == s)
            p = &u->parts[i];
    ddbgen_buf rec = {0}, gone = {0}; /* recomputed on s; REMOVEd with a field they read */
    for (size_t k = 1; k < e->n_keys; k++) {
        const ddbgen_ir_key *kd = &e->keys[k];
        if (kd->by_fields)
            continue; /* its attributes are the fields, sent as such */
        if ((kd->shard ? (int)kd->shard->no : 0) != s ||
            !(reads_known(&kd->pk, u) || (kd->has_sk && reads_known(&kd->sk, u))))
            continue;
        bool leaves = reads_field(&kd->pk, u, true) || (kd->has_sk && reads_field(&kd->sk, u, true));
        /* an LSI's partition key is the table's: never sent */
        if (strcmp(kd->index->pk.attr, e->keys[0].index->pk.attr) != 0)
            note_recomputed(&rec, &gone, leaves, kd->index->pk.attr, kd->pk.text);
        if (kd->has_sk)
            note_recomputed(&rec, &gone, leaves, kd->index->sk.attr, kd->sk.text);
    }
    for (size_t i = 0; i < e->n_fields; i++)
        if (e->fields[i].derived && field_part(&e->fields[i]) == s && reads_known(e->fields[i].derived, u))
            note_recomputed(&rec, &gone, reads_field(e->fields[i].derived, u, true), e->fields[i].attr,
                            e->fields[i].derived->text);
    if (!p && !rec.len && !gone.len) {
        ddbgen_buf_free(&rec);
        ddbgen_buf_free(&gone);
        return;
    }
    ddbgen_buf set = {0};
    for (size_t i = 0; i < e->n_fields; i++)
        if ((e->fields[i].updated_at || e->fields[i].version) && field_part(&e->fields[i]) == s) {
            if (e->fields[i].updated_at)
                ddbgen_buf_printf(&set, ", %s = :now", e->fields[i].attr);
            else
                ddbgen_buf_printf(&set, ", %s = if_not_exists(%s, 0) + 1", e->fields[i].attr, e->fields[i].attr);
        }
    if (p && *p->clauses[0])
        ddbgen_buf_printf(&set, ", %s", p->clauses[0]);
    if (rec.len)
        ddbgen_buf_puts(&set, ddbgen_buf_str(&rec));
    ddbgen_buf remove = {0};
    if (p && *p->clauses[1])
        ddbgen_buf_printf(&remove, ", %s", p->clauses[1]);
    if (gone.len)
        ddbgen_buf_puts(&remove, ddbgen_buf_str(&gone));
    if (out->len)
        ddbgen_buf_puts(out, "; ");
    if (e->n_shards)
        ddbgen_buf_printf(out, "shard %s: ", e->shards[s].id);
    if (set.len)
        ddbgen_buf_printf(out, "SET %s", ddbgen_buf_str(&set) + 2);
    if (remove.len)
        ddbgen_buf_printf(out, " REMOVE %s", ddbgen_buf_str(&remove) + 2);
    static const char *const kw[4] = {"SET", "REMOVE", "ADD", "DELETE"};
    for (int c = 2; p && c < 4; c++)
        if (*p->clauses[c])
            ddbgen_buf_printf(out, " %s %s", kw[c], p->clauses[c]);
    ddbgen_buf_free(&set);
    ddbgen_buf_free(&remove);
    ddbgen_buf_free(&rec);
    ddbgen_buf_free(&gone);
}

static json_t *update_ctx(const ddbgen_ir_entity *e, const ddbgen_ir_update *u)
{
    json_t *o = json_object(), *known = json_array(), *parts = json_array();
    set(o, "fn", fmt("%s_%s", e->cname, u->name));
    set(o, "tx_fn", fmt("%s_tx_%s", e->cname, u->name));
    set(o, "uname", ddbgen__c_literal(u->name));
    set(o, "source", ddbgen__comment_literal(u->update.source));
    set(o, "has_condition", json_boolean(u->has_condition));
    set(o, "condition_source", ddbgen__comment_literal(u->has_condition ? u->condition.source : ""));
    static const char *const kw[4] = {"set", "remove", "add", "del"};
    for (size_t i = 0; i < u->n_parts; i++) {
        json_t *p = json_object();
        set(p, "shard", json_integer(u->parts[i].shard));
        for (int c = 0; c < 4; c++)
            set(p, kw[c], ddbgen__c_literal(u->parts[i].clauses[c]));
        json_array_append_new(parts, p);
    }
    set(o, "parts", parts);
    set(o, "n_parts", json_integer((json_int_t)u->n_parts));
    ddbgen_buf sent = {0};
    size_t written = 0, cond_written = 0;
    for (int s = 0; s < (int)(e->n_shards ? e->n_shards : 1); s++) {
        size_t before = sent.len;
        sent_part(e, u, s, &sent);
        written += sent.len > before;
        cond_written |= sent.len > before && s == u->cond_shard;
    }
    set(o, "sent", ddbgen__comment_literal(ddbgen_buf_str(&sent)));
    ddbgen_buf_free(&sent);
    set(o, "multi", json_boolean(written > 1 || (u->has_condition && !cond_written)));
    set(o, "cond_check", json_boolean(u->has_condition && !cond_written));
    set(o, "cond_shard_id", json_string(e->n_shards ? e->shards[u->cond_shard].id : ""));
    set(o, "cond_shard", json_integer(u->cond_shard));
    set(o, "condition", ddbgen__c_literal(u->has_condition ? u->condition.text : NULL));
    set(o, "condition_sent", u->has_condition ? cond_sent(&u->condition) : json_string(""));
    /* one names map serves both expressions: the update's names, then the condition's others */
    json_t *names = names_ctx(&u->update);
    if (u->has_condition) {
        json_t *cn = names_ctx(&u->condition);
        size_t i, j;
        json_t *c, *n;
        json_array_foreach(cn, i, c) {
            int dup = 0;
            json_array_foreach(names, j, n) dup |= json_equal(json_object_get(n, "name"), json_object_get(c, "name"));
            if (!dup)
                json_array_append(names, c);
        }
        json_decref(cn);
    }
    set(o, "n_names", json_integer((json_int_t)json_array_size(names)));
    set(o, "names", names);
    set(o, "params", params_ctx(u->params, u->n_params));
    set(o, "n_params", json_integer((json_int_t)u->n_params));
    set(o, "has_params", json_boolean(u->n_params > 0));
    for (size_t i = 0; i < u->n_known; i++) {
        json_t *k = json_object();
        if (u->known[i] != DDBGEN_KNOWN_ABSENT)
            param_ctx(k, &u->params[u->known[i]], "k");
        else
            set(k, "assign", json_string("    /* " "REMOVEd: absent in k */"));
        set(k, "no", json_integer((json_int_t)u->known_fields[i]));
        json_array_append_new(known, k);
    }
    set(o, "known", known);
    set(o, "n_known", json_integer((json_int_t)u->n_known));
    set(o, "has_known", json_boolean(u->n_known > 0));
    return o;
}

/* The ConditionExpression a declared condition sends, over stored
 * attribute names (for the generated comment): each #name replaced by its
 * attribute. */
static json_t *cond_sent(const ddbgen_ir_dexpr *d)
{
    size_t n = 0, hashes = 0, longest = 0;
    for (const char *p = d->text; *p; p++)
        hashes += *p == '#';
    for (size_t i = 0; i < d->n_names; i++)
        longest = strlen(d->attrs[i]) > longest ? strlen(d->attrs[i]) : longest;
    size_t cap = strlen(d->text) + hashes * longest + 1; /* every #name replaced by the longest attribute */
    char *buf = malloc(cap);
    if (!buf)
        return NULL;
    for (const char *p = d->text; *p;) {
        size_t len = 0, j = d->n_names;
        if (*p == '#') {
            while (p[1 + len] == '_' || (p[1 + len] >= 'a' && p[1 + len] <= 'z') ||
                   (p[1 + len] >= 'A' && p[1 + len] <= 'Z') || (p[1 + len] >= '0' && p[1 + len] <= '9'))
                len++;
            for (j = 0; j < d->n_names; j++)
                if (strlen(d->names[j]) == len && strncmp(d->names[j], p + 1, len) == 0)
                    break;
        }
        if (j < d->n_names) {
            memcpy(buf + n, d->attrs[j], strlen(d->attrs[j]));
            n += strlen(d->attrs[j]);
            p += 1 + len;
        } else {
            buf[n++] = *p++;
        }
    }
    buf[n] = 0;
    json_t *j = ddbgen__comment_literal(buf);
    free(buf);
    return j;
}

/* The wrappers of a DDB_CONDITION c, in the order the header declares them
 * (templates/decl_condition.h.mustache; decl_condition_signature and
 * decl_condition_wrapper print each one's declaration and body: bind c into
 * a copy of the caller's options, then call).  fn: <entity>_<fn><c>; tx: a
 * transaction form (ddb_ent_tx_cond) rather than a call (ddb_ent_opts);
 * by_key: the item named by its key fields (else obj); mask: the field mask
 * argument the callee takes; callee: ddb_ent_<name> with the entity's
 * descriptor, or (typed) the entity's own <entity>_<name>; doc: the header
 * comment that goes before it ("typed", "tx", "tx_typed", "check").  The
 * context adds the handle (db / tx) and the options (o / c) each takes. */
static const struct {
    const char *fn, *callee, *mask;
    bool tx, by_key, typed;
    const char *doc;
} wrappers[] = {
    {"put_if_", "put", NULL, false, false, false, NULL},
    {"delete_if_", "delete", NULL, false, true, false, NULL},
    {"update_fields_if_", "update_mask", "&fields", false, false, false, NULL},
    {"update_if_", "update", NULL, false, false, true, "typed"},
    {"patch_if_", "patch", NULL, false, false, true, NULL},
    {"tx_put_if_", "tx_put", NULL, true, false, false, "tx"},
    {"tx_delete_if_", "tx_delete", NULL, true, true, false, NULL},
    {"tx_update_fields_if_", "tx_update_fields", "fields", true, false, true, "tx_typed"},
    {"tx_patch_if_", "tx_patch", NULL, true, false, true, NULL},
    {"tx_check_", "tx_check", NULL, true, true, false, "check"},
};

static json_t *wrappers_ctx(void)
{
    static const char *const docs[] = {"typed", "tx", "tx_typed", "check"};
    json_t *a = json_array();
    for (size_t i = 0; i < sizeof wrappers / sizeof *wrappers; i++) {
        json_t *w = json_object();
        set(w, "fn", json_string(wrappers[i].fn));
        set(w, "callee", json_string(wrappers[i].callee));
        /* every key set (false when absent): a section must not find an outer context's */
        set(w, "mask", wrappers[i].mask ? json_string(wrappers[i].mask) : json_false());
        set(w, "tx", json_boolean(wrappers[i].tx));
        set(w, "by_key", json_boolean(wrappers[i].by_key));
        set(w, "typed", json_boolean(wrappers[i].typed));
        for (size_t d = 0; d < sizeof docs / sizeof *docs; d++) {
            char key[32];
            snprintf(key, sizeof key, "doc_%s", docs[d]);
            set(w, key, json_boolean(wrappers[i].doc && !strcmp(wrappers[i].doc, docs[d])));
        }
        set(w, "handle", json_string(wrappers[i].tx ? "tx" : "db"));
        set(w, "handle_decl", json_string(wrappers[i].tx ? "ddb_ent_tx *tx" : "ddb *db"));
        set(w, "opts", json_string(wrappers[i].tx ? "c" : "o"));
        set(w, "opts_type", json_string(wrappers[i].tx ? "ddb_ent_tx_cond" : "ddb_ent_opts"));
        json_array_append_new(a, w);
    }
    return a;
}

/* A DDB_CONDITION: what templates/decl_condition.{h,c}.mustache print. */
static json_t *condition_ctx(const ddbgen_ir_condition *c)
{
    json_t *o = json_object();
    set(o, "wrappers", wrappers_ctx());
    set(o, "cond", json_string(c->name));
    set(o, "cond_lit", ddbgen__c_literal(c->name));
    set(o, "source", ddbgen__comment_literal(c->condition.source));
    set(o, "sent", cond_sent(&c->condition));
    set(o, "text", ddbgen__c_literal(c->condition.text));
    set(o, "names", names_ctx(&c->condition));
    set(o, "n_names", json_integer((json_int_t)c->condition.n_names));
    set(o, "shard", json_integer(c->shard));
    set(o, "params", params_ctx(c->params, c->n_params));
    set(o, "n_params", json_integer((json_int_t)c->n_params));
    set(o, "has_params", json_boolean(c->n_params > 0));
    return o;
}

/* Field masks (templates/field_mask.mustache, the partial reads-gen's
 * render_reads.c renders with the same keys): <ENTITY>_FN_<FIELD> numbers,
 * and with at most 64 fields <ENTITY>_F_<FIELD> bits of <entity>_fields;
 * <entity>_update_fields takes a ddb_ent_mask of them. */
static void mask_ctx(json_t *o, const ddbgen_ir_entity *e)
{
    json_t *fields = json_array(), *names = json_array();
    for (size_t i = 0; i < e->n_fields; i++) {
        json_t *f = json_object(), *n = json_object();
        set(f, "fupper", ddbgen__rc_ident(e->fields[i].name, 1));
        set(f, "i", json_integer((json_int_t)i));
        json_array_append_new(fields, f);
        set(n, "name", ddbgen__c_literal(e->fields[i].name));
        json_array_append_new(names, n);
    }
    set(o, "upper", ddbgen__rc_ident(e->cname, 1));
    set(o, "mask_fields", fields);
    set(o, "mask_small", json_boolean(e->n_fields <= 64));
    set(o, "field_names", names);
    set(o, "n_fields_c", json_integer((json_int_t)e->n_fields));
}

/* What <entity>_patch and <entity>_upsert send (entity_update.c), for
 * their comments: the UpdateExpression over stored attribute names. */
static void whole_ctx(json_t *o, const ddbgen_ir_entity *e)
{
    ddbgen_buf ps = {0}, pr = {0}, us = {0}, not_sent = {0}, ver = {0};
    const char *created = NULL;
    const char *pk = e->keys[0].index->pk.attr;
    ddbgen_buf_printf(&us, ", %s = \"%s\"", e->table->type_attr, e->name);
    for (size_t i = 0; i < e->n_fields; i++) {
        const ddbgen_ir_field *f = &e->fields[i];
        bool table_key = !strcmp(f->attr, pk) || (e->keys[0].has_sk && !strcmp(f->attr, e->keys[0].index->sk.attr));
        if (f->version) {
            ddbgen_buf_printf(&ver, "%s", f->attr);
            continue;
        }
        if (f->derived) {
            ddbgen_buf_printf(&ps, ", %s = <%s>", f->attr, f->derived->text);
            ddbgen_buf_printf(&us, ", %s = <%s>", f->attr, f->derived->text);
            continue;
        }
        if (f->updated_at) {
            ddbgen_buf_printf(&ps, ", %s = :now", f->attr);
            ddbgen_buf_printf(&us, ", %s = :now", f->attr);
            continue;
        }
        if (f->created_at) {
            created = f->attr;
            ddbgen_buf_printf(&us, ", %s = if_not_exists(%s, :now)", f->attr, f->attr);
            ddbgen_buf_printf(&not_sent, ", %s", f->name);
            continue;
        }
        if (f->key && table_key)
            continue;
        if (f->key || f->uuid || f->auto_id) { /* written on creation only */
            ddbgen_buf_printf(&us, ", %s = :%s", f->attr, f->name);
            if (!f->key)
                ddbgen_buf_printf(&not_sent, ", %s", f->name);
            continue;
        }
        ddbgen_buf_printf(&ps, ", %s = :%s", f->attr, f->name);
        if (f->dflt)
            ddbgen_buf_printf(&us, ", %s = :%s (unset: if_not_exists(%s, %s))", f->attr, f->name, f->attr, f->dflt);
        else
            ddbgen_buf_printf(&us, ", %s = :%s", f->attr, f->name);
        if (f->optional || f->is_list || f->type == DDBGEN_IR_SS || f->type == DDBGEN_IR_NS || f->type == DDBGEN_IR_BS)
            ddbgen_buf_printf(&pr, ", %s", f->attr);
    }
    for (size_t k = 1; k < e->n_keys; k++) {
        if (e->keys[k].by_fields)
            continue; /* its attributes are the fields */
        ddbgen_buf_printf(&us, ", %s = <%s>", e->keys[k].index->pk.attr, e->keys[k].pk.text);
        if (e->keys[k].has_sk)
            ddbgen_buf_printf(&us, ", %s = <%s>", e->keys[k].index->sk.attr, e->keys[k].sk.text);
    }
    if (ver.len) {
        ddbgen_buf_printf(&ps, ", %s = :%s + 1", ddbgen_buf_str(&ver), ddbgen_buf_str(&ver));
        ddbgen_buf_printf(&us, ", %s = :%s + 1", ddbgen_buf_str(&ver), ddbgen_buf_str(&ver));
    }
    set(o, "patch_set", ddbgen__comment_literal(ps.len ? ddbgen_buf_str(&ps) + 2 : ""));
    set(o, "patch_remove", ddbgen__comment_literal(pr.len ? ddbgen_buf_str(&pr) + 2 : ""));
    set(o, "has_patch_remove", json_boolean(pr.len > 0));
    set(o, "upsert_set", ddbgen__comment_literal(ddbgen_buf_str(&us) + 2));
    set(o, "not_patched", ddbgen__comment_literal(not_sent.len ? ddbgen_buf_str(&not_sent) + 2 : ""));
    set(o, "has_not_patched", json_boolean(not_sent.len > 0));
    set(o, "has_version", json_boolean(ver.len > 0));
    set(o, "version_attr", json_string(ver.len ? ddbgen_buf_str(&ver) : ""));
    set(o, "pk_attr", json_string(pk));
    set(o, "has_created_at", json_boolean(created != NULL));
    set(o, "created_attr", json_string(created ? created : ""));
    ddbgen_buf_free(&ps);
    ddbgen_buf_free(&pr);
    ddbgen_buf_free(&us);
    ddbgen_buf_free(&not_sent);
    ddbgen_buf_free(&ver);
}

void ddbgen__writes_context(json_t *o, const ddbgen_ir_entity *e)
{
    mask_ctx(o, e);
    whole_ctx(o, e);
    json_t *ups = json_array();
    for (size_t i = 0; e->writes && i < e->writes->n_updates; i++)
        json_array_append_new(ups, update_ctx(e, &e->writes->updates[i]));
    set(o, "decl_updates", ups);
    json_t *conds = json_array();
    for (size_t i = 0; e->writes && i < e->writes->n_conditions; i++)
        json_array_append_new(conds, condition_ctx(&e->writes->conditions[i]));
    set(o, "decl_conditions", conds);
}
