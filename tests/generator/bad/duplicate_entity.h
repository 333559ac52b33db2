/* Entity names are stored in every item's type attribute: they must be unique. */
#include <ddb/schema.h>

DDB_TABLE(shop, "Shop", DDB_PRIMARY("PK", "SK"));

struct DDB_ENTITY(shop, "User")
       DDB_KEY("table", "USER#{id}", "USER")
user {
    char id[32];
};

struct DDB_ENTITY(shop, "User")
       DDB_KEY("table", "ADMIN#{id}", "ADMIN")
admin {
    char id[32];
};
