/* A C error: libclang's diagnostics are reported and nothing else. */
#include <ddb/schema.h>

DDB_TABLE(shop, "Shop", DDB_PRIMARY("PK", "SK"));

struct DDB_ENTITY(shop, "User")
       DDB_KEY("table", "USER#{id}", "USER")
user {
    char id[16]
    unknown_type_t x;
};
