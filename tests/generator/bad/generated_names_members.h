/* Names inside a table's generated types: the scan result's members <e>,
 * <e>_count, <e>_masks and page, and the constants <T>_TYPE_NONE and
 * <T>_TYPE_<E>: an entity named Page, None, or A next to ACount. */
#include <ddb/schema.h>
DDB_TABLE(t, "Things", DDB_PRIMARY("PK", "SK"));
struct DDB_ENTITY(t, "Page")
       DDB_KEY("table", "P#{id}", "P")
page {
    char id[16];
};
struct DDB_ENTITY(t, "None")
       DDB_KEY("table", "N#{id}", "N")
none {
    char id[16];
};
struct DDB_ENTITY(t, "A")
       DDB_KEY("table", "A#{id}", "A")
a {
    char id[16];
};
struct DDB_ENTITY(t, "ACount")
       DDB_KEY("table", "C#{id}", "C")
a_count {
    char id[16];
};
