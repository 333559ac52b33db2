/* A schema without DDB_TABLE; entities naming undeclared tables. */
#include <ddb/schema.h>

struct DDB_ENTITY(shop, "User")
       DDB_KEY("table", "USER#{id}", "USER")
user {
    char id[16];
};

struct DDB_KEY("table", "X", "Y") not_an_entity {
    char id[16];
};
