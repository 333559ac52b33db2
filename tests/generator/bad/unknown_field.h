/* A key template names a field the entity does not have. */
#include <ddb/schema.h>

DDB_TABLE(shop, "Shop", DDB_PRIMARY("PK", "SK"));

struct DDB_ENTITY(shop, "User")
       DDB_KEY("table", "ORG#{organisation}", "USER#{username}")
user {
    char org[64];
    char username[64];
};
