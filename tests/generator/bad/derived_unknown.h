/* A derived attribute is computed from fields that must exist. */
#include <ddb/schema.h>

DDB_TABLE(shop, "Shop", DDB_PRIMARY("PK", "SK"));

struct DDB_ENTITY(shop, "Order")
       DDB_KEY("table", "ORDER#{id}", "ORDER")
order {
    char id[16];
    char order_date[11];
    int32_t year DDB_DERIVED("{orderdate|year}");
    char month[3] DDB_DERIVED("{order_date|month}");
};
