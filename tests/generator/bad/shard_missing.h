/* Once a field is sharded, every non-key field names its shard. */
#include <ddb/schema.h>

DDB_TABLE(shop, "Shop", DDB_PRIMARY("PK", "SK"));

struct DDB_ENTITY(shop, "Product")
       DDB_KEY("table", "PRODUCT#{sku}", "DETAILS")
product {
    char sku[32];
    char title[128] DDB_SHARD("A");
    char *description;
    int64_t views DDB_SHARD("B");
    int64_t stock;
};
