/* The data set: item i belongs to partition i / 100 at slot i % 100.  Its
 * GSI key transposes the grid (j = slot * parts + partition), so a GSI
 * collection gathers 100 items from 100 different base partitions, as an
 * index on another attribute does.  The GSI sort key is the "version" (an
 * updated-at stamp): every put moves the item's index entry. */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t bench_map_size(void)
{
    const char *mb = getenv("DDB_BENCH_MAP_MB");
    return mb && *mb ? strtoull(mb, NULL, 10) << 20 : (uint64_t)64 << 30;
}

void wl_pk(uint64_t part, char *out)
{
    snprintf(out, WL_PK_LEN + 1, "user#%08u", (unsigned)part);
}

void wl_sk(uint64_t slot, char *out)
{
    snprintf(out, WL_SK_LEN + 1, "order#%04u", (unsigned)slot);
}

void wl_gpk(uint64_t gpart, char *out)
{
    snprintf(out, WL_GPK_LEN + 1, "stat#%08u", (unsigned)gpart);
}

uint64_t wl_load_order(const wl *w, uint64_t n)
{
    if (w->sorted)
        return n;
    /* n -> n * P + 1 mod items is a bijection when P is coprime with items */
    static const uint64_t primes[] = {999983, 1000003, 7919};
    for (size_t i = 0; i < sizeof primes / sizeof *primes; i++)
        if (w->items % primes[i] != 0)
            return (uint64_t)(((unsigned __int128)n * primes[i] + 1) % w->items);
    return n;
}

void wl_item_make(const wl *w, uint64_t i, uint64_t version, wl_item *out)
{
    uint64_t part = i / WL_COLLECTION, slot = i % WL_COLLECTION;
    uint64_t j = slot * w->parts + part;
    wl_pk(part, out->pk);
    wl_sk(slot, out->sk);
    wl_gpk(j / WL_COLLECTION, out->gpk);
    /* load: the transposed position; later versions sort after every load stamp */
    snprintf(out->gsk, sizeof out->gsk, "%012llu", (unsigned long long)(version ? w->items + version : j));
    uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ull ^ version;
    for (size_t k = 0; k < WL_DATA_LEN; k++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        out->data[k] = (uint8_t)x;
    }
    memcpy(out->blob + WL_OFF_PK, out->pk, WL_PK_LEN);
    memcpy(out->blob + WL_OFF_SK, out->sk, WL_SK_LEN);
    memcpy(out->blob + WL_OFF_GPK, out->gpk, WL_GPK_LEN);
    memcpy(out->blob + WL_OFF_GSK, out->gsk, WL_GSK_LEN);
    size_t rest = WL_ITEM_BYTES - WL_OFF_DATA;
    memcpy(out->blob + WL_OFF_DATA, out->data, rest < WL_DATA_LEN ? rest : WL_DATA_LEN);
    if (rest > WL_DATA_LEN)
        memset(out->blob + WL_OFF_DATA + WL_DATA_LEN, 0, rest - WL_DATA_LEN);
}
