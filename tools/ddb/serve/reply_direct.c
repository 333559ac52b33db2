/* ddb serve: response members written as text (serve.h, "reply_direct.c"):
 * the items of GetItem, Query, Scan, BatchGetItem and TransactGetItems and
 * a write's Attributes go from their ddb_item trees straight into the
 * response body through jwrite.c, without a jansson tree; the other members
 * stay in r->out and are joined at the end.  r->direct holds ",\"name\":value" for each member; its first comma
 * becomes the body's opening brace.  Calls jwrite.c, reply.c and jansson. */
#include "serve.h"

#include <stdlib.h>
#include <string.h>

jw *w_reply_member(serve_req *r, const char *name)
{
    jw *w = &r->direct;
    jw_lit(w, ",");
    jw_str(w, name, strlen(name)); /* the operations' own member names: ASCII */
    jw_lit(w, ":");
    return w;
}

int w_reply_end(serve_req *r)
{
    return r->direct.oom ? serve_fail_code(r, DDB_ENOMEM) : 0;
}

int w_reply_item(serve_req *r, const char *name, const ddb_item *it)
{
    int rc = jw_item(w_reply_member(r, name), it, &r->err);
    return rc ? serve_fail_code(r, rc) : w_reply_end(r);
}

int w_reply_items(serve_req *r, const char *name, ddb_item *const *items, size_t n)
{
    jw *w = w_reply_member(r, name);
    jw_lit(w, "[");
    for (size_t i = 0; i < n; i++) {
        if (i)
            jw_lit(w, ",");
        int rc = jw_item(w, items[i], &r->err);
        if (rc)
            return serve_fail_code(r, rc);
    }
    jw_lit(w, "]");
    return w_reply_end(r);
}

void w_reply_u64(serve_req *r, const char *name, uint64_t v)
{
    jw_u64(w_reply_member(r, name), v);
}

void w_reply_body(serve_req *r, serve_reply *out)
{
    jw *w = &r->direct;
    out->body = NULL;
    out->len = 0;
    if (!w->len) {
        out->body = json_dumps(r->out, JSON_COMPACT);
        out->len = out->body ? strlen(out->body) : 0;
        return;
    }
    if (json_object_size(r->out)) {
        /* "{...}" of the other members: its opening brace becomes a comma */
        char *rest = json_dumps(r->out, JSON_COMPACT);
        if (!rest) {
            jw_free(w);
            return;
        }
        rest[0] = ',';
        jw_bytes(w, rest, strlen(rest));
        free(rest);
    } else {
        jw_lit(w, "}");
    }
    if (jw_reserve(w, 1))
        w->p[w->len] = '\0'; /* a C string too, outside len */
    if (w->oom) {
        jw_free(w);
        return;
    }
    w->p[0] = '{';
    out->body = w->p;
    out->len = w->len;
    *w = (jw){0}; /* the reply owns it now */
}
