/* sharded.h — base.h with the sharded Product changed: its sort key
 * template, a third shard, and a field moved from shard B to shard A.
 * --check-compat calls these breaking; --plan-migration rewrites each
 * product's shard items together (one transaction a product). */
#include <ddb/schema.h>

DDB_TABLE(shop, "Shop",
          DDB_PRIMARY("PK", "SK"),
          DDB_GSI("GSI1", "GSI1PK", "GSI1SK"),
          DDB_GSI("ByYear", "Year", "SK"));

struct DDB_ENTITY(shop, "User")
       DDB_KEY("table", "ORG#{org}", "USER#{username}")
       DDB_KEY("GSI1", "USER#{username}", "PROFILE")
user {
    char org[64];
    char username[64];
    char *email;
    int32_t logins;
    char nickname[32];
};

struct DDB_ENTITY(shop, "Order")
       DDB_KEY("table", "ORG#{org}", "ORDER#{id:08}")
       DDB_KEY("ByYear", "{year}", "ORDER#{id:08}")
       DDB_HEAT_OK("ByYear", "a report index: a few orders a day")
order {
    char org[64];
    uint32_t id;
    char date[11];
    int32_t year DDB_DERIVED("{date|year}");
    double total;
};

struct DDB_ENTITY(shop, "Product")
       DDB_KEY("table", "PRODUCT#{sku}", "INFO")
product {
    char sku[32];
    char title[128] DDB_SHARD("A");
    int64_t views DDB_SHARD("A");
    char *notes DDB_SHARD("C");
};

struct DDB_ENTITY(shop, "Coupon")
       DDB_KEY("table", "COUPON#{code}", "COUPON")
coupon {
    char code[16];
    int32_t percent;
};
