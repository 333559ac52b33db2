/* DDB_PATTERN takes a name and an index, DDB_QUERY three or four
 * arguments, DDB_SCAN a name and a filter. */
#include <ddb/schema.h>

DDB_TABLE(t, "Things", DDB_PRIMARY("PK", "SK"));

struct DDB_ENTITY(t, "Thing")
       DDB_KEY("table", "T#{id}", "THING")
       DDB_PATTERN("by_id")
       DDB_QUERY("q", "table")
       DDB_SCAN("s")
thing {
    char id[16];
};
