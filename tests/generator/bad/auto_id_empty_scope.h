/* A DDB_AUTO_ID scope is the counter item's partition key: it cannot be empty. */
#include <ddb/schema.h>

DDB_TABLE(shop, "Shop", DDB_PRIMARY("PK", "SK"));

struct DDB_ENTITY(shop, "Order")
       DDB_KEY("table", "ORDER#{id}", "ORDER")
order {
    long long id DDB_AUTO_ID("");
};
