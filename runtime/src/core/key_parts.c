/* core/: the LMDB key form of multi-attribute index keys (key_parts.h):
 * the partition digest of several values and the order-preserving,
 * self-delimiting sort form of several.  May call core/ (numbers, the key
 * codec) and xxhash. */
#include "core/key_parts.h"

#include "core/number.h"

#include <string.h>
#define XXH_STATIC_LINKING_ONLY /* XXH3_state_t on the stack */
#include <xxhash.h>

/* the seed of a digest of several values: never the digest of one */
#define PARTS_SEED 0x6b7061727473ull /* "kparts" */

void ddbi_key_parts_digest(const ddb_value *const *pk, size_t n, uint8_t out[DDB_DIGEST_LEN])
{
    if (n == 1) {
        ddbi_key_digest(pk[0], out);
        return;
    }
    XXH3_state_t state, *st = &state;
    memset(st, 0, sizeof *st); /* a state on the stack, before a seeded reset (xxhash.h) */
    XXH3_128bits_reset_withSeed(st, PARTS_SEED);
    for (size_t i = 0; i < n; i++) {
        uint8_t head[5];
        head[0] = (uint8_t)pk[i]->type;
        ddb_put_be(head + 1, pk[i]->len, 4);
        XXH3_128bits_update(st, head, sizeof head);
        XXH3_128bits_update(st, pk[i]->u.s, pk[i]->len);
    }
    XXH128_hash_t h = XXH3_128bits_digest(st);
    ddb_put_be(out, h.high64, 8);
    ddb_put_be(out + 8, h.low64, 8);
}

size_t ddbi_key_part_encode(const ddb_value *v, bool terminated, uint8_t *out)
{
    if (v->type == DDB_TN) {
        ddb_dec d;
        if (ddbi_dec_parse(v->u.s, v->len, &d, NULL) != DDB_OK)
            return 0;
        return ddbi_dec_key(&d, out);
    }
    if ((v->type != DDB_TS && v->type != DDB_TB) || v->len > (DDB_KEY_PART_MAX - 2) / 2)
        return 0;
    const uint8_t *s = (const uint8_t *)v->u.s;
    size_t o = 0;
    for (uint32_t i = 0; i < v->len; i++) {
        out[o++] = s[i];
        if (s[i] == 0x00)
            out[o++] = 0xff;
    }
    if (terminated) {
        out[o++] = 0x00;
        out[o++] = 0x01;
    }
    return o;
}

size_t ddbi_key_parts_encode(const ddb_value *const *sk, size_t n, uint8_t *out)
{
    size_t len = 0;
    for (size_t i = 0; i < n && i < DDB_MAX_KEY_ATTRS; i++) {
        size_t w = ddbi_key_part_encode(sk[i], true, out + len);
        if (!w)
            return 0;
        len += w;
    }
    return len;
}

bool ddbi_key_parts_make(ddb_key *k, const ddb_value *const *pk, size_t n_pk, const ddb_value *const *sk,
                         size_t n_sk, uint8_t *scratch)
{
    ddbi_key_parts_digest(pk, n_pk, k->b);
    k->len = DDB_DIGEST_LEN;
    if (!n_sk)
        return true;
    size_t len = ddbi_key_parts_encode(sk, n_sk, scratch);
    if (!len)
        return false;
    ddb_value b = {.type = DDB_TB, .len = (uint32_t)len, .u.b = scratch};
    k->len += ddbi_key_sortpart(&b, k->b + DDB_DIGEST_LEN);
    return true;
}
