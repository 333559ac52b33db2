/* A key attribute is a number for one entity and a string for another. */
#include <ddb/schema.h>

DDB_TABLE(shop, "Shop", DDB_PRIMARY("PK", "SK"), DDB_GSI("ByYear", "Year", "YearSK"));

struct DDB_ENTITY(shop, "Order")
       DDB_KEY("table", "ORDER#{id}", "ORDER")
       DDB_KEY("ByYear", "{year}", "ORDER#{id}")
order {
    char id[16];
    int32_t year;
};

struct DDB_ENTITY(shop, "Invoice")
       DDB_KEY("table", "INVOICE#{id}", "INVOICE")
       DDB_KEY("ByYear", "Y{year}", "INVOICE#{id}")
invoice {
    char id[16];
    int32_t year;
};
