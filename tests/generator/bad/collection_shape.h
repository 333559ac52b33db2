/* Members of a collection must share one partition-key structure. */
#include <ddb/schema.h>

DDB_TABLE(shop, "Shop", DDB_PRIMARY("PK", "SK"));

struct DDB_ENTITY(shop, "Organization")
       DDB_KEY("table", "ORG#{name}", "METADATA")
       DDB_COLLECTION("members", "table")
organization {
    char name[64];
};

struct DDB_ENTITY(shop, "User")
       DDB_KEY("table", "ORGANIZATION#{org}", "USER#{name}")
       DDB_COLLECTION("members", "table")
user {
    char org[64];
    char name[64];
};

struct DDB_ENTITY(shop, "Invoice")
       DDB_KEY("table", "ORG#{number}", "INVOICE")
       DDB_COLLECTION("members", "table")
invoice {
    uint32_t number;
};
