/* DDB_KEY arguments must fit the index; one attribute, one template; a
 * version field cannot be a key; every entity needs a primary key. */
#include <ddb/schema.h>

DDB_TABLE(shop, "Shop",
          DDB_PRIMARY("PK", "SK"),
          DDB_GSI("GSI1", "GSI1PK", "GSI1SK"),
          DDB_GSI("Flat", "FlatPK"),
          DDB_GSI("BySK", "OtherPK", "SK"),
          DDB_LSI("LSI1", "LSI1SK"));

struct DDB_ENTITY(shop, "User")
       DDB_KEY("table", "USER#{id}", "V#{rev}")
       DDB_KEY("GSI1", "EMAIL#{email}")
       DDB_KEY("Flat", "X#{id}", "Y#{id}")
       DDB_KEY("BySK", "{email}", "USER#{id}")
       DDB_KEY("LSI1", "USR#{id}", "{email}")
       DDB_KEY("GSI1", "A#{id}", "B")
user {
    char id[16];
    char email[64];
    int64_t rev DDB_VERSION;
};

struct DDB_ENTITY(shop, "Orphan")
       DDB_KEY("GSI1", "ORPHAN#{id}", "X")
orphan {
    char id[16];
};
