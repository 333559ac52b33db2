/* A sharded entity with DDB_VERSION needs one version field per shard (on
 * that shard), so that a write to one shard never rewrites another. */
#include <ddb/schema.h>

DDB_TABLE(shop, "Shop", DDB_PRIMARY("PK", "SK"));

struct DDB_ENTITY(shop, "Product")
       DDB_KEY("table", "P#{sku}", "PRODUCT")
product {
    char sku[16];
    int32_t stock DDB_SHARD("A");
    char title[64] DDB_SHARD("B");
    int64_t ver DDB_VERSION DDB_SHARD("B");
};

struct DDB_ENTITY(shop, "Kit")
       DDB_KEY("table", "K#{sku}", "KIT")
kit {
    char sku[16];
    int32_t stock DDB_SHARD("A");
    int64_t ver_a DDB_VERSION DDB_SHARD("A");
    int64_t ver_a2 DDB_VERSION DDB_SHARD("A");
    char title[64] DDB_SHARD("B");
    int64_t ver_b DDB_VERSION DDB_SHARD("B");
};

/* unsharded: still one */
struct DDB_ENTITY(shop, "Note")
       DDB_KEY("table", "N#{id}", "NOTE")
note {
    char id[16];
    int64_t v1 DDB_VERSION;
    int64_t v2 DDB_VERSION;
};
