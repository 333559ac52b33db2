/* The infrastructure options of DDB_TABLE: a known stream view type,
 * capacity units of at least 1, DDB_DELETION_PROTECTION without arguments. */
#include <ddb/schema.h>

DDB_TABLE(a, "Aaa", DDB_PRIMARY("PK"), DDB_STREAM("NEW"), DDB_PROVISIONED(0, 5));
DDB_TABLE(b, "Bbb", DDB_PRIMARY("PK"), DDB_PROVISIONED(5, x2), DDB_DELETION_PROTECTION, "oops");

struct DDB_ENTITY(a, "A") DDB_KEY("table", "A#{id}") ea {
    char id[8];
};
struct DDB_ENTITY(b, "B") DDB_KEY("table", "B#{id}") eb {
    char id[8];
};
