/* c_text.c — C text from IR facts, for every render context (render_context.c,
 * render_reads.c, render_old.c, decl_context.c): printf into a JSON string,
 * C string literals (also ones that can stand in a comment), identifiers,
 * the parameters that address an item, a key's templates for comments.
 * May call generated_names.h's identifier rule, ir.h and jansson; nothing
 * else. */
#include "c_text.h"

#include "generated_names.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void put(json_t *o, const char *key, json_t *v) { json_object_set_new(o, key, v); }

json_t *ddbgen__rc_fmt(const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    int n = vsnprintf(NULL, 0, f, ap);
    va_end(ap);
    char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (!buf)
        return NULL;
    va_start(ap, f);
    vsnprintf(buf, (size_t)n + 1, f, ap);
    va_end(ap);
    json_t *j = json_string(buf);
    free(buf);
    return j;
}

/* s as a C string literal ("..." with C escapes); "NULL" for NULL. */
json_t *ddbgen__c_literal(const char *s)
{
    if (!s)
        return json_string("NULL");
    size_t n = strlen(s);
    char *out = malloc(n * 4 + 3), *o = out;
    if (!out)
        return NULL;
    *o++ = '"';
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            *o++ = '\\';
            *o++ = (char)*p;
        } else if (*p < 0x20 || *p >= 0x7f || *p == '?') {
            /* octal escapes cannot swallow a following digit beyond 3 */
            o += sprintf(o, "\\%03o", *p);
        } else {
            *o++ = (char)*p;
        }
    }
    *o++ = '"';
    *o = '\0';
    json_t *j = json_string(out);
    free(out);
    return j;
}

/* s as a C string literal that can stand inside a comment: where a star
 * and a slash meet, a backslash goes between them, so the text neither
 * closes nor opens a comment. */
json_t *ddbgen__comment_literal(const char *s)
{
    json_t *lit = ddbgen__c_literal(s);
    const char *l = json_string_value(lit);
    char *out = l ? malloc(strlen(l) * 2 + 1) : NULL;
    if (!out) {
        json_decref(lit);
        return NULL;
    }
    char *o = out;
    for (const char *p = l; *p; p++) {
        *o++ = *p;
        if ((p[0] == '*' && p[1] == '/') || (p[0] == '/' && p[1] == '*'))
            *o++ = '\\';
    }
    *o = '\0';
    json_decref(lit);
    json_t *j = json_string(out);
    free(out);
    return j;
}

/* ddbgen_c_ident(s, upper) as a JSON string. */
json_t *ddbgen__rc_ident(const char *s, int upper)
{
    char *buf = ddbgen_c_ident(s, upper);
    json_t *j = buf ? json_string(buf) : NULL;
    free(buf);
    return j;
}

/* The C parameters that address an item, and what copies them into `k`. */
json_t *ddbgen__rc_params(const ddbgen_ir_param *params, size_t n)
{
    json_t *out = json_array();
    for (size_t i = 0; i < n; i++) {
        const ddbgen_ir_field *f = params[i].field;
        json_t *p = json_object();
        put(p, "path", json_string(params[i].path));
        put(p, "pname", ddbgen__rc_ident(params[i].path, 0));
        /* strings are taken as const char * (char[N] copied, char * pointed to, never written) */
        bool str = !f->chars && f->type == DDBGEN_IR_S;
        put(p, "ctype", json_string(f->chars || str ? "const char *" : f->ctype));
        put(p, "str", json_boolean(str));
        if (f->chars) {
            put(p, "chars", json_true());
            put(p, "cname_lit", ddbgen__c_literal(params[i].path));
        }
        put(p, "last", json_boolean(i + 1 == n));
        json_array_append_new(out, p);
    }
    return out;
}

/* "\"ORG#{org}\" / \"USER#{username}\"": a key's templates as comments show them. */
json_t *ddbgen__rc_key_comment(const ddbgen_ir_key *k)
{
    json_t *pk = ddbgen__comment_literal(k->pk.text), *sk = k->has_sk ? ddbgen__comment_literal(k->sk.text) : NULL;
    json_t *j = ddbgen__rc_fmt("%s%s%s", json_string_value(pk), sk ? " / " : "", sk ? json_string_value(sk) : "");
    json_decref(pk);
    json_decref(sk);
    return j;
}
