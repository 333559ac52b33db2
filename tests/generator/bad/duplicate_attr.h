/* Two fields stored under one attribute name, and fields stored under the
 * table's key or type attribute names. */
#include <ddb/schema.h>

struct geo {
    double lat DDB_ATTR("x");
    double lon DDB_ATTR("x");
};

DDB_TABLE(shop, "Shop", DDB_PRIMARY("PK", "SK"));

struct DDB_ENTITY(shop, "User")
       DDB_KEY("table", "USER#{id}", "USER")
user {
    char id[32];
    int64_t created_at DDB_ATTR("ca");
    int64_t changed_at DDB_ATTR("ca");
    char sk[8] DDB_ATTR("SK");
    char Type[8];
    struct geo where;
};
