/* ddb-bench: one workload, three engines (ddb embedded, SQLite, raw LMDB).
 *
 * Every engine ("peer") implements the same small vtable; bench_core.c runs
 * the phases, times them and prints the table.  The data set is a pure
 * function of (item number, version), so every peer stores the same items
 * and the driver can check every answer it gets. */
#ifndef DDB_BENCH_H
#define DDB_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- Workload ---------------------------------------------------------- */

#define WL_COLLECTION 100 /* items per partition key (and per GSI key) */
#define WL_ITEM_BYTES 200 /* DynamoDB size of an item; the peers' value blob */
#define WL_PK_LEN 13      /* "user#%08u" */
#define WL_SK_LEN 10      /* "order#%04u" */
#define WL_GPK_LEN 13     /* "stat#%08u" */
#define WL_GSK_LEN 12     /* "%012llu" */
#define WL_KEY_LEN (WL_PK_LEN + WL_SK_LEN)    /* pk||sk */
#define WL_GKEY_LEN (WL_GPK_LEN + WL_GSK_LEN) /* gpk||gsk */
/* ddb item: attributes pk, sk, gpk, gsk, data (B) whose names and values
 * add up to WL_ITEM_BYTES, DynamoDB-style. */
#define WL_DATA_LEN (WL_ITEM_BYTES - (2 + WL_PK_LEN) - (2 + WL_SK_LEN) - (3 + WL_GPK_LEN) - (3 + WL_GSK_LEN) - 4)
/* Peers' blob: pk sk gpk gsk at fixed offsets, then payload, WL_ITEM_BYTES long. */
#define WL_OFF_PK 0
#define WL_OFF_SK WL_PK_LEN
#define WL_OFF_GPK (WL_OFF_SK + WL_SK_LEN)
#define WL_OFF_GSK (WL_OFF_GPK + WL_GPK_LEN)
#define WL_OFF_DATA (WL_OFF_GSK + WL_GSK_LEN)

typedef struct wl {
    uint64_t items; /* a multiple of WL_COLLECTION */
    uint64_t parts; /* items / WL_COLLECTION: base partitions = GSI partitions */
    bool sorted;    /* load in item (= pk, sk) order instead of a scattered order */
} wl;

/* Item i, written at version v (0 = the load), fully spelled out. */
typedef struct wl_item {
    char pk[WL_PK_LEN + 1], sk[WL_SK_LEN + 1], gpk[WL_GPK_LEN + 1], gsk[WL_GSK_LEN + 1];
    uint8_t data[WL_DATA_LEN];
    uint8_t blob[WL_ITEM_BYTES]; /* the peers' value: pk sk gpk gsk data... */
} wl_item;

void wl_item_make(const wl *w, uint64_t i, uint64_t version, wl_item *out);
/* The item loaded n-th: n itself when sorted, else a fixed permutation that
 * scatters items (and partitions) as data arriving over time does. */
uint64_t wl_load_order(const wl *w, uint64_t n);
/* Keys of a partition / GSI partition (buffers of WL_PK_LEN+1 / WL_GPK_LEN+1). */
void wl_pk(uint64_t part, char *out);
void wl_gpk(uint64_t gpart, char *out);
void wl_sk(uint64_t slot, char *out);

/* ---- Peers -------------------------------------------------------------- */

typedef enum bench_mode { MODE_FULL = 0, MODE_LAZY, MODE_NONE } bench_mode;

typedef struct peer_vt {
    const char *name;
    /* Create the store under dir and load every item, as fast as the
     * engine allows (one transaction / no sync), durable at the end. */
    int (*load)(const char *dir, const wl *w);
    /* Open the loaded store with the durability of mode. */
    int (*open)(const char *dir, const wl *w, bench_mode mode, void **h);
    void (*close)(void *h);
    /* Per-thread state (connection, arena, reusable transaction). */
    int (*thread_open)(void *h, void **tc);
    void (*thread_close)(void *tc);
    /* The operations.  Each returns the number of items it read (get: 1),
     * or -1 on an error (the peer prints it).  Results are copied out of
     * the engine as an application would. */
    int (*get)(void *tc, uint64_t item);
    int (*query)(void *tc, uint64_t part);  /* the whole collection */
    int (*gsi)(void *tc, uint64_t gpart);   /* the whole GSI collection */
    int (*put)(void *tc, uint64_t item, uint64_t version);
} peer_vt;

extern const peer_vt peer_ddb, peer_sqlite, peer_lmdb;

/* LMDB map size for ddb and raw LMDB: 64 GiB, or $DDB_BENCH_MAP_MB (valgrind
 * cannot reserve 64 GiB of address space). */
uint64_t bench_map_size(void);
/* ddb opens its durable modes with ddb_options.commit_log (--commit-log). */
extern bool bench_commit_log;

#endif
