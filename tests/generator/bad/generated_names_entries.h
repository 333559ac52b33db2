/* A collection's page in sort-key order is its result's member `entries`
 * (and the types <t>_<c>_entry, <t>_<c>_kind), and so is a table scan's
 * page in the order read: a member entity named Entries would be a second
 * member of that name in both. */
#include <ddb/schema.h>
DDB_TABLE(t, "Things", DDB_PRIMARY("PK", "SK"));
struct DDB_ENTITY(t, "Box")
       DDB_KEY("table", "B#{id}", "BOX")
       DDB_COLLECTION("stuff", "table")
box {
    char id[16];
};
struct DDB_ENTITY(t, "Entries")
       DDB_KEY("table", "B#{id}", "E#{n:04}")
       DDB_COLLECTION("stuff", "table")
entries {
    char id[16];
    int32_t n;
};
