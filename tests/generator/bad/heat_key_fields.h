/* Hot partitions of keys of fields: DynamoDB hashes the partition-key
 * attributes of a multi-attribute key together (developer guide,
 * "Multi-attribute keys pattern"), so the key is hot only when every one of
 * them takes few values, and their counts multiply: a short code alone (one
 * partition per value), a C enum with an 8-bit integer (at most 3 x 256
 * partitions), and no warning once an id joins them. */
#include <ddb/schema.h>

enum tier { TIER_FREE, TIER_PRO, TIER_MAX };

DDB_TABLE(shops, "Shops", DDB_PRIMARY("PK", "SK"), DDB_GSI("ByCountry"), DDB_GSI("ByTier"), DDB_GSI("ByOwner"));

struct DDB_ENTITY(shops, "Shop")
       DDB_KEY("table", "SHOP#{shop_id}", "SHOP")
       DDB_KEY_FIELDS("ByCountry", DDB_PK(country), DDB_SK(shop_id))
       DDB_KEY_FIELDS("ByTier", DDB_PK(tier, level), DDB_SK(shop_id))
       DDB_KEY_FIELDS("ByOwner", DDB_PK(country, owner_id), DDB_SK(shop_id))
shop {
    char shop_id[16];
    char country[3];
    enum tier tier;
    uint8_t level;
    char owner_id[16];
};
