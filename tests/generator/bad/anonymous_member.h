/* Anonymous struct and union members would be dropped from the stored item:
 * they are refused instead. */
#include <ddb/schema.h>

DDB_TABLE(shop, "Shop", DDB_PRIMARY("PK", "SK"));

struct DDB_ENTITY(shop, "User")
       DDB_KEY("table", "USER#{id}", "USER")
user {
    char id[32];
    struct {
        int street_no;
    };
    union {
        int code;
        double ratio;
    };
};
