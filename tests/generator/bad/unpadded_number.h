/* Warnings only (exit 0): integers inside string sort keys sort as text.
 * A key that is exactly one integer field is a number key and is fine,
 * and partition keys are hashed, not sorted. */
#include <ddb/schema.h>

DDB_TABLE(shop, "Shop", DDB_PRIMARY("PK", "SK"), DDB_GSI("ByYear", "Year", "YearSK"));

struct DDB_ENTITY(shop, "Order")
       DDB_KEY("table", "ORDER#{customer}", "pr-{id}")
       DDB_KEY("ByYear", "{year}", "{month}-{day:02}")
order {
    uint32_t customer;
    uint64_t id;
    int32_t year;
    int32_t month;
    int32_t day;
};
