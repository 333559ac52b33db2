/* Breaking against base.h: a changed key template, a removed entity, a
 * field type change, a narrowed string, a new required field, a removed
 * index, a changed projection, a field moved to another shard.  Exit 1. */
#include <ddb/schema.h>

DDB_TABLE(shop, "Shop",
          DDB_PRIMARY("PK", "SK"),
          DDB_GSI("GSI1", "GSI1PK", "GSI1SK", DDB_PROJECT_KEYS_ONLY));

struct DDB_ENTITY(shop, "User")
       DDB_KEY("table", "ORG#{org}", "MEMBER#{username}")
       DDB_KEY("GSI1", "USER#{username}", "PROFILE")
       DDB_WRITE_SHARDS("GSI1", 4, "hash")   /* breaking: the index entries move to shards */
user {
    char org[64];
    char username[32];
    char *email;
    int32_t logins;
    int32_t level;
};

struct DDB_ENTITY(shop, "Order")
       DDB_KEY("table", "ORG#{org}", "ORDER#{id:08}")
order {
    char org[64];
    uint32_t id;
    char date[11];
    int32_t year DDB_DERIVED("{date|year}");
    char total[16];
};

struct DDB_ENTITY(shop, "Product")
       DDB_KEY("table", "PRODUCT#{sku}", "DETAILS")
product {
    char sku[32];
    char title[128] DDB_SHARD("A");
    int64_t views DDB_SHARD("A");
};
