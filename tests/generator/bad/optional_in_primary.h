/* An optional field (char *) cannot be part of the primary key; in a GSI
 * key it is fine: it makes the index sparse. */
#include <ddb/schema.h>

DDB_TABLE(shop, "Shop", DDB_PRIMARY("PK", "SK"), DDB_GSI("ByEmail", "EmailPK"));

struct DDB_ENTITY(shop, "User")
       DDB_KEY("table", "USER#{id}", "EMAIL#{email}")
       DDB_KEY("ByEmail", "{email}")
user {
    char id[32];
    char *email;
};
