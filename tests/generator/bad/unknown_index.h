/* DDB_KEY and DDB_COLLECTION may only name indexes the table declares. */
#include <ddb/schema.h>

DDB_TABLE(shop, "Shop", DDB_PRIMARY("PK", "SK"), DDB_GSI("GSI1", "GSI1PK", "GSI1SK"));

struct DDB_ENTITY(shop, "User")
       DDB_KEY("table", "USER#{id}", "USER")
       DDB_KEY("GSI2", "EMAIL#{email}", "USER")
       DDB_KEY("GIS1", "NAME#{id}", "USER")
       DDB_COLLECTION("by_email", "ByEmail")
user {
    char id[32];
    char email[64];
};
