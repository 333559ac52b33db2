/* Entity room: query cursors.  A cursor is the page's LastEvaluatedKey in
 * the item codec's binary form, as base64url text: opaque to the caller,
 * handed back to resume.  Calls core/codec.h and the public item API. */
#include "entity/core/entity_core.h"

#include "core/error.h"

#include <string.h>

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

int ddbi_ent_cursor_encode(ddb_arena *a, const ddb_item *key, const char **out, ddb_error *err)
{
    ddb_buf b = {0};
    char *s = NULL;
    if (!ddbi_encode_item(&b, ddb_item_map(key), 0))
        s = ddb_arena_alloc(a, (b.len + 2) / 3 * 4 + 1);
    if (!s) {
        ddbi_buf_free(&b);
        return ddbi_fail_oom(err, __func__);
    }
    size_t o = 0;
    for (size_t i = 0; i < b.len; i += 3) {
        uint32_t v = (uint32_t)b.p[i] << 16 | (i + 1 < b.len ? (uint32_t)b.p[i + 1] << 8 : 0) |
                     (i + 2 < b.len ? b.p[i + 2] : 0);
        s[o++] = b64[v >> 18 & 63];
        s[o++] = b64[v >> 12 & 63];
        if (i + 1 < b.len)
            s[o++] = b64[v >> 6 & 63];
        if (i + 2 < b.len)
            s[o++] = b64[v & 63];
    }
    s[o] = '\0';
    ddbi_buf_free(&b);
    *out = s;
    return DDB_OK;
}

int ddbi_ent_cursor_decode(ddb_arena *a, const char *s, ddb_item **out, ddb_error *err)
{
    size_t n = strlen(s);
    uint8_t *p = ddb_arena_alloc(a, n * 3 / 4 + 3);
    size_t o = 0;
    uint32_t acc = 0;
    int bits = 0;
    if (!p)
        return ddbi_fail_oom(err, __func__);
    for (size_t i = 0; i < n; i++) {
        const char *c = memchr(b64, s[i], 64);
        if (!c || !s[i])
            return ddbi_fail(err, DDB_EVALIDATION, "invalid cursor (character %zu)", i + 1);
        acc = acc << 6 | (uint32_t)(c - b64);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            p[o++] = (uint8_t)(acc >> bits);
        }
    }
    if (ddbi_decode_item(p, o, a, out))
        return ddbi_fail(err, DDB_EVALIDATION, "invalid cursor");
    return DDB_OK;
}
