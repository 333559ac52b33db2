/* The sharded migration test, version 2: both entities change their key
 * templates (every item moves: a product's shard items together, in one
 * transaction), views moves to shard A, and an event's amount becomes
 * text (a transform from the generated struct event_old). */
#ifndef MIGRATE_SHARDS_V2_H
#define MIGRATE_SHARDS_V2_H
#include <ddb/schema.h>

DDB_TABLE(inv, "AppShards", DDB_PRIMARY("PK", "SK"), DDB_GSI("ByCat", "CatPK", "CatSK"),
          DDB_GSI("ByKind", "KindPK", "KindSK"));

struct DDB_ENTITY(inv, "Product")
       DDB_KEY("table", "P#{sku}", "INFO")
       DDB_KEY("ByCat", "CAT#{category}", "SKU#{sku}")
product {
    char sku[16];
    char title[64] DDB_SHARD("A");
    char category[16] DDB_SHARD("B");
    int64_t views DDB_SHARD("A");
};

struct DDB_ENTITY(inv, "Event")
       DDB_KEY("table", "D#{day}", "EV#{id:08}")
       DDB_KEY("ByKind", "KIND#{kind}", "EV#{id:08}")
       DDB_WRITE_SHARDS("table", 4, "hash")
       DDB_WRITE_SHARDS("ByKind", 4, "random")
event {
    char day[11];
    int64_t id;
    char kind[16];
    char amount[12];
};
#endif
