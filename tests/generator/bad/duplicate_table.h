/* Two DDB_TABLE declarations with one C name. */
#include <ddb/schema.h>

DDB_TABLE(shop, "Shop", DDB_PRIMARY("PK", "SK"));
DDB_TABLE(shop, "Shop2", DDB_PRIMARY("PK", "SK"));

struct DDB_ENTITY(shop, "User")
       DDB_KEY("table", "USER#{id}", "USER")
user {
    char id[32];
};
