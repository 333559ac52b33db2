/* core/: reading stored item records (codec.h's layout) without decoding
 * them into a ddb_item (internal).  A record's top-level attributes are
 * walked in stored order (sorted by name, bytewise), each as a view into the
 * record's bytes; every length is checked against the bytes left before it
 * is used, so a damaged record gives DDB_ECORRUPT, never a read past its end.
 * The engine uses it to check keys of records it hands over undecoded
 * (through the key hint of version 2 records, codec.h); the entity layer
 * to decode records straight into structs. */
#ifndef DDB_CORE_RECORD_H
#define DDB_CORE_RECORD_H

#include <ddb/ddb.h>

#include "core/codec.h"

/* One top-level attribute of a record. */
typedef struct ddbi_rec_attr {
    const char *name; /* not NUL-terminated */
    uint32_t name_len;
    ddb_type type;
    /* S, N, B: the value's bytes (not NUL-terminated) and their length;
     * BOOL: one byte; NULL: nothing; M, L and sets: the body after the
     * type byte (len = its byte length) */
    const uint8_t *val;
    uint32_t len;
    const uint8_t *enc; /* the whole encoded value, type byte included */
    size_t enc_len;
} ddbi_rec_attr;

typedef struct ddbi_rec_iter {
    const uint8_t *p, *end;
    uint64_t left; /* attributes not walked yet */
} ddbi_rec_iter;

/* Start walking record rec of n bytes: DDB_ECORRUPT when its header is
 * malformed. */
int ddbi_rec_iter_init(ddbi_rec_iter *it, const uint8_t *rec, size_t n);
/* A length-prefixed run of bytes at p: its start in *s, length in *n; the
 * byte after it, or NULL. */
static inline const uint8_t *ddbi_rec_span(const uint8_t *p, const uint8_t *end, const uint8_t **s, uint32_t *n)
{
    uint64_t len;
    if (!(p = ddbi_varint_at(p, end, &len)) || len > (uint64_t)(end - p) || len > UINT32_MAX)
        return NULL;
    *s = p;
    *n = (uint32_t)len;
    return p + len;
}

/* The next attribute into *at: 1, 0 at the end (the record must end there
 * too), DDB_ECORRUPT on damage.  Inline: the decoders call it per attribute. */
static inline int ddbi_rec_next(ddbi_rec_iter *it, ddbi_rec_attr *at)
{
    const uint8_t *p = it->p, *end = it->end, *s;
    if (!it->left)
        return p == end ? 0 : DDB_ECORRUPT;
    it->left--;
    uint32_t len;
    if (!(p = ddbi_rec_span(p, end, &s, &len)) || p >= end)
        return DDB_ECORRUPT;
    at->name = (const char *)s;
    at->name_len = len;
    at->enc = p;
    at->type = (ddb_type)*p++;
    switch (at->type) {
    case DDB_TS:
    case DDB_TN:
    case DDB_TB:
        if (!(p = ddbi_rec_span(p, end, &at->val, &at->len)))
            return DDB_ECORRUPT;
        break;
    case DDB_TBOOL:
        if (p >= end)
            return DDB_ECORRUPT;
        at->val = p++;
        at->len = 1;
        break;
    case DDB_TNULL:
        at->val = p;
        at->len = 0;
        break;
    case DDB_TM:
    case DDB_TL:
    case DDB_TSS:
    case DDB_TNS:
    case DDB_TBS:
        at->val = p;
        if (!(p = ddbi_skip_body(p, end, at->type == DDB_TM)))
            return DDB_ECORRUPT;
        at->len = (uint32_t)(p - at->val);
        break;
    default:
        return DDB_ECORRUPT;
    }
    at->enc_len = (size_t)(p - at->enc);
    it->p = p;
    return 1;
}

/* What a read looks for in a record: up to DDBI_REC_NAMES attributes by
 * name (NULL: not wanted), e.g. a key's and the TTL attribute. */
#define DDBI_REC_NAMES 3
typedef struct ddbi_rec_names {
    const char *name[DDBI_REC_NAMES];
    uint32_t len[DDBI_REC_NAMES];
} ddbi_rec_names;
/* Those attributes of record rec (n bytes): found[i], at[i].  The key
 * hint's offsets first (version 2 records), then the walk for what they
 * did not find, which stops once everything wanted is found.
 * DDB_ECORRUPT when what was read is damaged. */
int ddbi_rec_find_names(const uint8_t *rec, size_t n, const ddbi_rec_names *w, ddbi_rec_attr at[DDBI_REC_NAMES],
                        bool found[DDBI_REC_NAMES]);
/* Does every offset of rec's key hint point to the start of an
 * attribute?  DDB_OK, or DDB_ECORRUPT (ddb check). */
int ddbi_rec_hint_check(const uint8_t *rec, size_t n);
/* The attribute called name: 1 (into *at), 0 when absent, DDB_ECORRUPT. */
int ddbi_rec_find(const uint8_t *rec, size_t n, const char *name, size_t name_len, ddbi_rec_attr *at);
/* The attribute's value as a ddb_value in arena memory (strings
 * NUL-terminated): DDB_ECORRUPT when it is damaged, DDB_ENOMEM. */
int ddbi_rec_value(const ddbi_rec_attr *at, ddb_arena *a, ddb_value **out);
/* An S or B attribute as a value pointing into the record (u.s not
 * NUL-terminated: for comparisons by length only); false for other types. */
bool ddbi_rec_view(const ddbi_rec_attr *at, ddb_value *out);

#endif
