/* generate_stream.c — see generate_stream.h. */
#include "generate_stream.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const char *str(json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static void upper_ident(char *dst, size_t cap, const char *s)
{
    size_t i = 0;
    for (; s[i] && i + 1 < cap; i++)
        dst[i] = isalnum((unsigned char)s[i]) ? (char)toupper((unsigned char)s[i]) : '_';
    dst[i] = '\0';
}

int ddbgen_stream_ctx(json_t *m, json_t *mt, json_t *tctx, FILE *diag)
{
    (void)diag;
    const char *tname = str(mt, "cname");
    char upper[256], cbuf[600];
    upper_ident(upper, sizeof upper, tname ? tname : "");
    json_object_set_new(tctx, "upper", json_string(upper));
    json_t *ents = json_array(), *e, *ttl_field = NULL;
    size_t i;
    json_array_foreach(json_object_get(m, "entities"), i, e) {
        if (!tname || !str(e, "table") || strcmp(str(e, "table"), tname) != 0)
            continue;
        json_t *o = json_object();
        char eu[256];
        upper_ident(eu, sizeof eu, str(e, "cname"));
        snprintf(cbuf, sizeof cbuf, "%s_TYPE_%s", upper, eu);
        json_object_set_new(o, "rcname", json_string(str(e, "cname")));
        json_object_set_new(o, "rctype", json_string(str(e, "ctype")));
        json_object_set_new(o, "rconst", json_string(cbuf));
        json_array_append_new(ents, o);
        size_t j;
        json_t *f;
        /* one TTL attribute per table: validate.c checked that they agree */
        json_array_foreach(json_object_get(e, "fields"), j, f) if (!ttl_field && json_object_get(f, "ttl"))
            ttl_field = f;
    }
    if (ttl_field) {
        const char *attr = str(ttl_field, "attr") ? str(ttl_field, "attr") : str(ttl_field, "name");
        json_object_set_new(tctx, "ttl_attr", ddbgen_c_literal(attr ? attr : ""));
    } else {
        json_object_set_new(tctx, "ttl_attr", json_string("NULL"));
    }
    json_object_set_new(tctx, "has_record_entities", json_boolean(json_array_size(ents) > 0));
    json_object_set_new(tctx, "record_entities", ents);
    return 0;
}
