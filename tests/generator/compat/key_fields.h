/* key_fields.h — base.h with GSI1's template key moved to an index keyed on
 * the fields themselves under a new name (as key_fields_move.h), and ByYear
 * re-keyed on fields in place: breaking, an index's key schema is fixed
 * once it exists (DynamoDB's UpdateTable cannot change it). */
#include <ddb/schema.h>

DDB_TABLE(shop, "Shop",
          DDB_PRIMARY("PK", "SK"),
          DDB_GSI("ByUser"),
          DDB_GSI("ByYear"));

struct DDB_ENTITY(shop, "User")
       DDB_KEY("table", "ORG#{org}", "USER#{username}")
       DDB_KEY_FIELDS("ByUser", DDB_PK(username), DDB_SK(logins))
user {
    char org[64];
    char username[64];
    char *email;
    int32_t logins;
    char nickname[32];
};

struct DDB_ENTITY(shop, "Order")
       DDB_KEY("table", "ORG#{org}", "ORDER#{id:08}")
       DDB_KEY_FIELDS("ByYear", DDB_PK(year), DDB_SK(id))
       DDB_HEAT_OK("ByYear", "a report index: a few orders a day")
order {
    char org[64];
    uint32_t id;
    char date[11];
    int32_t year DDB_DERIVED("{date|year}");
    double total;
};

struct DDB_ENTITY(shop, "Product")
       DDB_KEY("table", "PRODUCT#{sku}", "DETAILS")
product {
    char sku[32];
    char title[128] DDB_SHARD("A");
    int64_t views DDB_SHARD("B");
};

struct DDB_ENTITY(shop, "Coupon")
       DDB_KEY("table", "COUPON#{code}", "COUPON")
coupon {
    char code[16];
    int32_t percent;
};
