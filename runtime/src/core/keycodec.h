/* LMDB key layout (internal).
 *
 * A table key is digest(PK) || sortpart(SK).  digest is XXH3-128 of the
 * partition key's type and bytes, big-endian, so its first 8 bytes are the
 * partition hash and an item collection is one contiguous, SK-sorted run.
 * The PK value itself lives in the item; readers compare it, so a digest
 * collision is detected, never merged.
 *
 * sortpart: S and B raw bytes, N the order-preserving decimal encoding.  It
 * is the key's last component, so raw bytes already sort correctly.  A sort
 * key longer than DDB_SK_INLINE bytes keeps its first DDB_SK_INLINE bytes
 * plus a 16-byte digest of the whole key (a "long" key, total 511 bytes =
 * LMDB's limit); keys of one such run share the prefix and are re-sorted by
 * the full sort key when read.
 *
 * An index entry (MDB_DUPSORT) has key digest(index PK) || sortpart(index
 * SK) and data = the item's table key. */
#ifndef DDB_KEYCODEC_H
#define DDB_KEYCODEC_H

#include <ddb/ddb.h>

#include <string.h>

#define DDB_DIGEST_LEN 16
#define DDB_SK_INLINE 479
#define DDB_KEY_MAX (DDB_DIGEST_LEN + DDB_SK_INLINE + DDB_DIGEST_LEN) /* 511 */

typedef struct ddb_key {
    uint8_t b[DDB_KEY_MAX];
    size_t len;
} ddb_key;

/* 128-bit digest of a key value (S, N or B). */
void ddbi_key_digest(const ddb_value *v, uint8_t out[DDB_DIGEST_LEN]);
/* Encoded sort part of v; returns its length (at most DDB_SK_INLINE + 16). */
size_t ddbi_key_sortpart(const ddb_value *v, uint8_t *out);
/* digest(pk) || sortpart(sk) (sk may be NULL). */
void ddbi_key_make(ddb_key *k, const ddb_value *pk, const ddb_value *sk);
/* True when a key's sort part is in the long (prefix + digest) form. */
static inline int ddb_key_is_long(const uint8_t *key, size_t len)
{
    (void)key;
    return len == DDB_KEY_MAX;
}
/* Big-endian integers of 1..8 bytes, as stored in keys and records. */
static inline void ddb_put_be(uint8_t *p, uint64_t v, int bytes)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (bytes == 8) { /* digests and hashes: one store */
        v = __builtin_bswap64(v);
        memcpy(p, &v, 8);
        return;
    }
#endif
    for (int i = bytes - 1; i >= 0; i--, v >>= 8)
        p[i] = (uint8_t)v;
}

static inline uint64_t ddb_get_be(const uint8_t *p, int bytes)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (bytes == 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        return __builtin_bswap64(v);
    }
#endif
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v = v << 8 | p[i];
    return v;
}

/* memcmp's order of n bytes, compared a word at a time without a call
 * (Query and Scan compare every entry's key; keys are short). */
static inline int ddbi_key_bytes_cmp(const uint8_t *a, const uint8_t *b, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t x = ddb_get_be(a + i, 8), y = ddb_get_be(b + i, 8);
        if (x != y)
            return x < y ? -1 : 1;
    }
    for (; i < n; i++)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return 0;
}

/* Do keys a and b start with the same digest (the same partition key)? */
static inline bool ddbi_key_same_digest(const uint8_t *a, const uint8_t *b)
{
    uint64_t x[2], y[2];
    memcpy(x, a, DDB_DIGEST_LEN);
    memcpy(y, b, DDB_DIGEST_LEN);
    return x[0] == y[0] && x[1] == y[1];
}

/* Partition hash = first 8 bytes of the digest, big-endian. */
uint64_t ddbi_key_hash(const uint8_t *key);

#endif
