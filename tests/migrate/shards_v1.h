/* The sharded migration test, version 1: a product split into two
 * DDB_SHARD items (A: title; B: category and views) with an index on B,
 * and a write-sharded event (its day partition over 4 shards by hash, its
 * kind index over 4 random shards). */
#ifndef MIGRATE_SHARDS_V1_H
#define MIGRATE_SHARDS_V1_H
#include <ddb/schema.h>

DDB_TABLE(inv, "AppShards", DDB_PRIMARY("PK", "SK"), DDB_GSI("ByCat", "CatPK", "CatSK"),
          DDB_GSI("ByKind", "KindPK", "KindSK"));

struct DDB_ENTITY(inv, "Product")
       DDB_KEY("table", "PRODUCT#{sku}", "DETAILS")
       DDB_KEY("ByCat", "CAT#{category}", "SKU#{sku}")
product {
    char sku[16];
    char title[64] DDB_SHARD("A");
    char category[16] DDB_SHARD("B");
    int64_t views DDB_SHARD("B");
};

struct DDB_ENTITY(inv, "Event")
       DDB_KEY("table", "DAY#{day}", "EV#{id:08}")
       DDB_KEY("ByKind", "KIND#{kind}", "EV#{id:08}")
       DDB_WRITE_SHARDS("table", 4, "hash")
       DDB_WRITE_SHARDS("ByKind", 4, "random")
event {
    char day[11];
    int64_t id;
    char kind[16];
    int32_t amount;
};
#endif
