/* Field-mask constants (<ENTITY>_F_<FIELD>) upper-case the field names:
 * two fields that differ only in case are refused. */
#include <ddb/schema.h>

DDB_TABLE(shop, "Shop", DDB_PRIMARY("PK", "SK"));

struct DDB_ENTITY(shop, "Item")
       DDB_KEY("table", "I#{id}", "ITEM")
item {
    char id[16];
    int32_t size;
    int32_t Size DDB_ATTR("size2");
};
