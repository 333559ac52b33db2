/* decl_context.c — the render context of an entity's declared writes
 * (decl_write.h): what templates/decl_update.{h,c}.mustache print for each
 * DDB_UPDATE and templates/decl_condition.{h,c}.mustache for each
 * DDB_CONDITION.  Presentation only, from the IR; may call ir.h,
 * decl_write.h and render_context.h's literals. */
#include "decl_write.h"
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
    } else if (f->is_list) {
        set(p, "decl", fmt("%s %s, size_t %s_count", f->ctype, ph->name, ph->name));
        set(p, "assign", fmt("    %s.%s = %s;\n    %s.%s = %s_count;", dst, f->name, ph->name, dst, f->count_field,
                             ph->name));
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

static bool reads_known(const ddbgen_ir_template *t, const ddbgen_ir_entity *e, const ddbgen_ir_update *u)
{
    for (size_t i = 0; t && i < t->n_segs; i++)
        for (size_t k = 0; !t->segs[i].lit && t->segs[i].path_len && k < u->n_known; k++)
            if (&e->fields[u->known_fields[k]] == &e->fields[t->segs[i].path[0]])
                return true;
    return false;
}

/* What the generated function sends, for its comment: the UpdateExpression
 * with the runtime's additions, over stored attribute names. */
static const char *sent_text(const ddbgen_ir_entity *e, const ddbgen_ir_update *u, const ddbgen_ir_field *stamp,
                             char *buf, size_t cap)
{
    size_t n = 0;
    static const char *const kw[4] = {"SET", "REMOVE", "ADD", "DELETE"};
    for (int c = 0; c < 4; c++) {
        char extra[2048] = "";
        size_t x = 0;
        if (c == 0 && stamp)
            x += (size_t)snprintf(extra + x, sizeof extra - x, ", %s = :now", stamp->attr);
        for (size_t k = 1; c == 0 && k < e->n_keys && x < sizeof extra; k++) {
            const ddbgen_ir_key *kd = &e->keys[k];
            if ((e->n_shards && (!kd->shard || (int)kd->shard->no != u->shard)) ||
                !(reads_known(&kd->pk, e, u) || (kd->has_sk && reads_known(&kd->sk, e, u))))
                continue;
            x += (size_t)snprintf(extra + x, sizeof extra - x, ", %s = <%s>", kd->index->pk.attr, kd->pk.text);
            if (kd->has_sk && x < sizeof extra)
                x += (size_t)snprintf(extra + x, sizeof extra - x, ", %s = <%s>", kd->index->sk.attr, kd->sk.text);
        }
        for (size_t i = 0; c == 0 && i < e->n_fields && x < sizeof extra; i++)
            if (e->fields[i].derived && reads_known(e->fields[i].derived, e, u))
                x += (size_t)snprintf(extra + x, sizeof extra - x, ", %s = <%s>", e->fields[i].attr,
                                      e->fields[i].derived->text);
        for (size_t i = 0; c == 2 && i < e->n_fields && x < sizeof extra; i++)
            if (e->fields[i].version &&
                (!e->n_shards || (e->fields[i].shard && (int)e->fields[i].shard->no == u->shard)))
                x += (size_t)snprintf(extra + x, sizeof extra - x, ", %s 1", e->fields[i].attr);
        const char *body = u->clauses[c];
        const char *more = extra[0] ? extra + (*body ? 0 : 2) : "";
        if ((*body || *more) && n < cap)
            n += (size_t)snprintf(buf + n, cap - n, "%s%s %s%s", n ? " " : "", kw[c], body, more);
    }
    return n < cap ? buf : "";
}

static json_t *update_ctx(const ddbgen_ir_entity *e, const ddbgen_ir_update *u)
{
    json_t *o = json_object(), *known = json_array();
    set(o, "fn", fmt("%s_%s", e->cname, u->name));
    set(o, "uname", ddbgen__c_literal(u->name));
    set(o, "source", ddbgen__comment_literal(u->update.source));
    set(o, "has_condition", json_boolean(u->has_condition));
    set(o, "condition_source", ddbgen__comment_literal(u->has_condition ? u->condition.source : ""));
    /* DDB_UPDATED_AT on the item written is stamped by every update */
    const ddbgen_ir_field *stamp = NULL;
    size_t stamp_no = 0;
    for (size_t i = 0; i < e->n_fields; i++)
        if (e->fields[i].updated_at && (!e->n_shards || (e->fields[i].shard && (int)e->fields[i].shard->no == u->shard))) {
            stamp = &e->fields[i];
            stamp_no = i;
        }
    static const char *const kw[4] = {"set", "remove", "add", "del"};
    for (int c = 0; c < 4; c++) {
        json_t *body = fmt("%s%s%s", u->clauses[c], c == 0 && stamp && *u->clauses[c] ? ", " : "",
                           c == 0 && stamp ? "#ddb_updated = :ddb_updated" : "");
        set(o, kw[c], ddbgen__c_literal(json_string_value(body)));
        json_decref(body);
    }
    set(o, "has_stamp", json_boolean(stamp != NULL));
    char sent[8192];
    set(o, "sent", ddbgen__comment_literal(sent_text(e, u, stamp, sent, sizeof sent)));
    set(o, "stamp_no", json_integer((json_int_t)stamp_no));
    set(o, "condition", ddbgen__c_literal(u->has_condition ? u->condition.text : NULL));
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
    if (stamp) {
        json_t *sn = json_object();
        set(sn, "name", json_string("\"#ddb_updated\""));
        set(sn, "attr", ddbgen__c_literal(stamp->attr));
        json_array_append_new(names, sn);
    }
    set(o, "n_names", json_integer((json_int_t)json_array_size(names)));
    set(o, "names", names);
    set(o, "params", params_ctx(u->params, u->n_params));
    set(o, "n_params", json_integer((json_int_t)u->n_params));
    set(o, "n_args", json_integer((json_int_t)(u->n_params + (stamp != NULL))));
    set(o, "has_params", json_boolean(u->n_params > 0));
    set(o, "has_args", json_boolean(u->n_params > 0 || stamp));
    for (size_t i = 0; i < u->n_known; i++) {
        json_t *k = json_object();
        param_ctx(k, &u->params[u->known[i]], "k");
        set(k, "no", json_integer((json_int_t)u->known_fields[i]));
        json_array_append_new(known, k);
    }
    set(o, "known", known);
    set(o, "n_known", json_integer((json_int_t)u->n_known));
    set(o, "has_known", json_boolean(u->n_known > 0));
    set(o, "shard", json_integer(u->shard));
    set(o, "needs_rc", json_boolean(1));
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

/* A DDB_CONDITION: what templates/decl_condition.{h,c}.mustache print. */
static json_t *condition_ctx(const ddbgen_ir_entity *e, const ddbgen_ir_condition *c)
{
    json_t *o = json_object();
    set(o, "cond", json_string(c->name));
    set(o, "cond_lit", ddbgen__c_literal(c->name));
    set(o, "source", ddbgen__comment_literal(c->condition.source));
    set(o, "sent", cond_sent(&c->condition));
    set(o, "text", ddbgen__c_literal(c->condition.text));
    set(o, "names", names_ctx(&c->condition));
    set(o, "n_names", json_integer((json_int_t)c->condition.n_names));
    /* a sharded entity: the shard item holding the fields it reads */
    int shard = -1;
    for (size_t j = 0; j < c->condition.n_names; j++)
        for (size_t i = 0; shard < 0 && e->n_shards && i < e->n_fields; i++)
            if (e->fields[i].shard && strcmp(e->fields[i].name, c->condition.names[j]) == 0)
                shard = (int)e->fields[i].shard->no;
    set(o, "shard", json_integer(shard < 0 ? 0 : shard));
    set(o, "params", params_ctx(c->params, c->n_params));
    set(o, "n_params", json_integer((json_int_t)c->n_params));
    set(o, "has_params", json_boolean(c->n_params > 0));
    return o;
}

/* Field masks (templates/field_mask.mustache, the partial reads-gen's
 * render_reads.c renders with the same keys): <ENTITY>_FN_<FIELD> numbers,
 * and with at most 64 fields <ENTITY>_F_<FIELD> bits of <entity>_fields;
 * <entity>_update_fields takes a ddb_ent_mask of them. */
static json_t *upper_ident(const char *s)
{
    char *buf = strdup(s);
    if (!buf)
        return NULL;
    for (char *c = buf; *c; c++)
        *c = (char)(*c >= 'a' && *c <= 'z' ? *c - 'a' + 'A' : *c);
    json_t *j = json_string(buf);
    free(buf);
    return j;
}

static void mask_ctx(json_t *o, const ddbgen_ir_entity *e)
{
    json_t *fields = json_array(), *names = json_array();
    for (size_t i = 0; i < e->n_fields; i++) {
        json_t *f = json_object(), *n = json_object();
        set(f, "fupper", upper_ident(e->fields[i].name));
        set(f, "i", json_integer((json_int_t)i));
        json_array_append_new(fields, f);
        set(n, "name", ddbgen__c_literal(e->fields[i].name));
        json_array_append_new(names, n);
    }
    set(o, "upper", upper_ident(e->cname));
    set(o, "mask_fields", fields);
    set(o, "mask_small", json_boolean(e->n_fields <= 64));
    set(o, "field_names", names);
    set(o, "n_fields_c", json_integer((json_int_t)e->n_fields));
}

void ddbgen__writes_context(json_t *o, const ddbgen_ir_entity *e)
{
    mask_ctx(o, e);
    json_t *ups = json_array();
    for (size_t i = 0; e->writes && i < e->writes->n_updates; i++)
        json_array_append_new(ups, update_ctx(e, &e->writes->updates[i]));
    set(o, "decl_updates", ups);
    json_t *conds = json_array();
    for (size_t i = 0; e->writes && i < e->writes->n_conditions; i++)
        json_array_append_new(conds, condition_ctx(e, &e->writes->conditions[i]));
    set(o, "decl_conditions", conds);
}
