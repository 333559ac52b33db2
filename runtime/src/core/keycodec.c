/* LMDB key encoding (see keycodec.h). */
#include "core/keycodec.h"

#include "core/number.h"

#include <string.h>
#include <xxhash.h>

static void digest_bytes(uint8_t type, const void *p, size_t n, uint8_t out[DDB_DIGEST_LEN])
{
    /* the value's type seeds the hash: "1" (S) and "1" (N) differ */
    XXH128_hash_t h = XXH3_128bits_withSeed(p, n, type);
    ddb_put_be(out, h.high64, 8);
    ddb_put_be(out + 8, h.low64, 8);
}

void ddbi_key_digest(const ddb_value *v, uint8_t out[DDB_DIGEST_LEN])
{
    digest_bytes((uint8_t)v->type, v->u.s, v->len, out);
}

size_t ddbi_key_sortpart(const ddb_value *v, uint8_t *out)
{
    if (v->type == DDB_TN) {
        ddb_dec d;
        if (ddbi_dec_parse(v->u.s, v->len, &d, NULL) != DDB_OK)
            return 0; /* stored numbers are canonical: unreachable */
        return ddbi_dec_key(&d, out);
    }
    if (v->len <= DDB_SK_INLINE) {
        memcpy(out, v->u.s, v->len);
        return v->len;
    }
    memcpy(out, v->u.s, DDB_SK_INLINE);
    digest_bytes((uint8_t)v->type, v->u.s, v->len, out + DDB_SK_INLINE);
    return DDB_SK_INLINE + DDB_DIGEST_LEN;
}

void ddbi_key_make(ddb_key *k, const ddb_value *pk, const ddb_value *sk)
{
    ddbi_key_digest(pk, k->b);
    k->len = DDB_DIGEST_LEN;
    if (sk)
        k->len += ddbi_key_sortpart(sk, k->b + DDB_DIGEST_LEN);
}

uint64_t ddbi_key_hash(const uint8_t *key)
{
    return ddb_get_be(key, 8);
}

uint64_t ddb_partition_hash(const ddb_value *pk)
{
    uint8_t d[DDB_DIGEST_LEN];
    ddbi_key_digest(pk, d);
    return ddbi_key_hash(d);
}
