/* Compatible with base.h: a new optional field, a removed field, a C
 * rename that keeps the stored name, a widened number, a new index that a
 * new entity and an old one join.  Exit 0, each change a note. */
#include <ddb/schema.h>

DDB_TABLE(shop, "Shop",
          DDB_PRIMARY("PK", "SK"),
          DDB_GSI("GSI1", "GSI1PK", "GSI1SK"),
          DDB_GSI("ByYear", "Year", "SK"),
          DDB_GSI("GSI2", "GSI2PK", "GSI2SK"));

struct DDB_ENTITY(shop, "User")
       DDB_KEY("table", "ORG#{org}", "USER#{user_name}")
       DDB_KEY("GSI1", "USER#{user_name}", "PROFILE")
       DDB_KEY("GSI2", "EMAIL#{email}", "USER")
user {
    char org[64];
    char user_name[64] DDB_ATTR("username");
    char *email;
    int64_t logins;
    char *bio;
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

struct DDB_ENTITY(shop, "Review")
       DDB_KEY("table", "REVIEW#{id}", "REVIEW")
       DDB_KEY("GSI2", "PRODUCT#{sku}", "REVIEW#{id}")
review {
    char id[37] DDB_UUID;
    char sku[32];
    char *text;
};
