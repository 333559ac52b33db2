/* ddb serve: a growing byte buffer and a streaming DynamoDB-JSON writer
 * into it (jwrite.c).  A response's items are appended as text straight
 * from their ddb_value trees, without a jansson tree: strings escaped by a
 * table (and checked to be UTF-8, as jansson does), numbers copied as their
 * stored canonical decimal text, binary as base64, lists, maps and sets
 * recursively.  The output is the same JSON value ddb_json_from_item()
 * gives (tests/serve/test_jwrite.c compares them).
 *
 * It lives in the tool, not in libddb: the server's responses are its only
 * hot consumer, and libddb.so exports its public API only (the tool links
 * against it: docs/SERVER.md).  Only jwrite.c and the files that build
 * responses from it include this header. */
#ifndef DDB_SERVE_JWRITE_H
#define DDB_SERVE_JWRITE_H

#include <ddb/ddb.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A malloc'd byte buffer; zero-initialised is empty.  After an allocation
 * failure oom is set and every later append is a no-op. */
typedef struct jw {
    char *p;
    size_t len, cap;
    bool oom;
} jw;

/* A buffer never grows past this (far above DynamoDB's 16 MB responses). */
#define JW_MAX ((size_t)256 << 20)

/* jw_reserve's slow path: grow the buffer (jwrite.c). */
bool jw_grow(jw *w, size_t n);
/* Room for n more bytes; false (oom set, and every later reservation
 * false) when out of memory or the buffer would pass JW_MAX.  Inline: the
 * writer calls it for every few bytes. */
static inline bool jw_reserve(jw *w, size_t n)
{
    return n <= w->cap - w->len || jw_grow(w, n);
}
void jw_free(jw *w);

static inline void jw_bytes(jw *w, const char *s, size_t n)
{
    if (jw_reserve(w, n)) {
        memcpy(w->p + w->len, s, n);
        w->len += n;
    }
}
/* A string literal (only: "" s "" refuses anything else at compile time). */
#define jw_lit(w, s) jw_bytes((w), "" s "", sizeof(s) - 1)
void jw_u64(jw *w, uint64_t v);
/* s[0..n) as a JSON string, quotes included.  -1 (nothing written) when s
 * is not UTF-8. */
int jw_str(jw *w, const char *s, size_t n);

/* True when none of the 8 bytes at s needs more than a copy: none of 0x80
 * or above, none below 0x20, no '"' and no '\\' (the caller decides
 * the rest one byte at a time).  With every byte below 0x80, a byte's
 * difference b - c sets its high bit exactly when b < c, and nothing
 * borrows from a neighbour unless some byte already did. */
static inline bool jw_plain8(const unsigned char *s)
{
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    uint64_t x;
    memcpy(&x, s, 8);
    if (x & highs)
        return false;
    uint64_t quote = x ^ (ones * '"'), slash = x ^ (ones * '\\');
    return !(((x - ones * 0x20) | (quote - ones) | (slash - ones)) & highs);
}

/* The length of the well-formed UTF-8 sequence at s[0..n) whose first
 * byte is 0x80 or above; 0 when it is not one (a continuation byte first,
 * truncated, overlong, a surrogate, past U+10FFFF).  The writer checks the
 * strings it writes with it, the request decoder (fastreq.c) those it reads. */
size_t jw_utf8_len(const unsigned char *s, size_t n);

/* A value as DynamoDB JSON ({"S":"x"}, ...), an item as an object of
 * them.  DDB_EVALIDATION when a text is not UTF-8 or the value nests deeper
 * than DDB_JSON_MAX_DEPTH, DDB_EINVAL for a malformed tree, DDB_ENOMEM:
 * err names the attribute.  On failure w holds a partial text. */
int jw_value(jw *w, const ddb_value *v, ddb_error *err);
int jw_item(jw *w, const ddb_item *it, ddb_error *err);

#endif
