/* A key template that renders nothing: DynamoDB refuses empty key values. */
#include <ddb/schema.h>

DDB_TABLE(shop, "Shop", DDB_PRIMARY("PK", "SK"));

struct DDB_ENTITY(shop, "User")
       DDB_KEY("table", "", "USER")
user {
    char id[32];
};
