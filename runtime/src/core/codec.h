/* Binary encoding of items as stored in LMDB (internal).
 * Record: version byte, varint DynamoDB item size, (version 2 only) the key
 * hint, map body.  The key hint: varint n (at most DDBI_HINT_MAX), then n
 * varint offsets, from the start of the map body, of attributes the reads
 * look for first (the table's keys, its TTL attribute, index keys: see
 * ddbi_hint_names), so that they need not walk the attributes before them.
 * A reader checks the name found at an offset; version 1 records (no
 * hint) read as before.
 * Value: type byte, then S/N/B varint length + bytes; BOOL one byte; NULL
 * nothing; L and sets varint count + values; M varint count + (varint name
 * length, name, value)*. */
#ifndef DDB_CODEC_H
#define DDB_CODEC_H

#include <ddb/ddb.h>

#define DDBI_RECORD_VERSION 1        /* a record's first byte: no key hint */
#define DDBI_RECORD_VERSION_HINTED 2 /* a record's first byte: a key hint follows the size */
#define DDBI_HINT_MAX 8              /* attributes a key hint holds at most */

typedef struct ddb_buf {
    uint8_t *p;
    size_t len, cap;
} ddb_buf;

int ddbi_buf_put(ddb_buf *b, const void *p, size_t n);
int ddbi_buf_varint(ddb_buf *b, uint64_t v);
void ddbi_buf_free(ddb_buf *b);

/* Append the record for an M value whose DynamoDB size is size. */
int ddbi_encode_item(ddb_buf *b, const ddb_value *map, size_t size);
/* The record of a new item, its DynamoDB size (ddb_item_size) and whether
 * a value in it is one a write must refuse, in one walk of the item.  The
 * record is b->p[off .. off+len) (b may have moved: keep offsets); b NULL:
 * measure and check only.  bad_attr: the index of the first attribute
 * whose value ddbi_value_check refuses, UINT32_MAX when none. */
typedef struct ddbi_record {
    size_t off, len, size;
    uint32_t bad_attr;
} ddbi_record;
/* The attribute names a record's key hint lists (those the item has, in
 * this order). */
typedef struct ddbi_hint_names {
    const char *name[DDBI_HINT_MAX];
    uint32_t len[DDBI_HINT_MAX];
    uint32_t n;
} ddbi_hint_names;
/* hint NULL (or none of its names in the item): a version 1 record. */
int ddbi_encode_record(ddb_buf *b, const ddb_value *map, const ddbi_hint_names *hint, ddbi_record *out);
/* A record's header: its DynamoDB size, its key hint (n_hint varints at
 * hint; none in version 1) and where the map body starts.  DDB_ECORRUPT
 * when malformed; the hint's offsets are checked where they are used. */
typedef struct ddbi_rec_header {
    uint64_t size;
    const uint8_t *hint;
    uint32_t n_hint;
    const uint8_t *body;
} ddbi_rec_header;
static inline int ddbi_record_header(const uint8_t *p, size_t n, ddbi_rec_header *h);
/* Decode a record into arena memory; DDB_ECORRUPT on malformed input. */
int ddbi_decode_item(const uint8_t *p, size_t n, ddb_arena *a, ddb_item **out);
/* Decode one encoded value (type byte first, n bytes, nothing after it)
 * into arena memory; DDB_ECORRUPT on malformed input. */
int ddbi_decode_value(const uint8_t *p, size_t n, ddb_arena *a, ddb_value **out);
/* The end of the body (after its type byte) of a top-level attribute's M
 * (map), L or set value at p, checked as the decoder checks it; NULL when
 * damaged. */
const uint8_t *ddbi_skip_body(const uint8_t *p, const uint8_t *end, bool map);

/* A varint at p, not past end: the byte after it, or NULL. */
static inline const uint8_t *ddbi_varint_at(const uint8_t *p, const uint8_t *end, uint64_t *out)
{
    if (p < end && *p < 0x80) { /* the common one-byte case */
        *out = *p;
        return p + 1;
    }
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (p >= end)
            return NULL;
        uint8_t c = *p++;
        v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80)) {
            *out = v;
            return p;
        }
    }
    return NULL;
}

/* Inline: every read parses a header, some twice. */
static inline int ddbi_record_header(const uint8_t *p, size_t n, ddbi_rec_header *h)
{
    const uint8_t *end = p + n;
    uint64_t nh = 0, off;
    if (n < 1 || (*p != DDBI_RECORD_VERSION && *p != DDBI_RECORD_VERSION_HINTED))
        return DDB_ECORRUPT;
    bool hinted = *p++ == DDBI_RECORD_VERSION_HINTED;
    if (!(p = ddbi_varint_at(p, end, &h->size)) || (hinted && (!(p = ddbi_varint_at(p, end, &nh)) || nh > DDBI_HINT_MAX)))
        return DDB_ECORRUPT;
    h->hint = p;
    h->n_hint = (uint32_t)nh;
    for (uint64_t i = 0; i < nh; i++)
        if (!(p = ddbi_varint_at(p, end, &off)))
            return DDB_ECORRUPT;
    h->body = p;
    return DDB_OK;
}

/* The stored DynamoDB size of a record without decoding it. */
static inline int ddbi_record_size(const uint8_t *p, size_t n, size_t *size)
{
    ddbi_rec_header h;
    /* every value takes at least one byte of the record and counts at most
     * 4 in the DynamoDB size (an empty list in a list): a larger size is
     * damage, and would overflow the sums of page and capacity sizes */
    if (ddbi_record_header(p, n, &h) || h.size > 4 * (uint64_t)n + 16)
        return DDB_ECORRUPT;
    *size = (size_t)h.size;
    return DDB_OK;
}

#endif
