/* Table declarations: names, primary key, index names, projections. */
#include <ddb/schema.h>

DDB_TABLE(t1, "x", DDB_GSI("GSI1", "GSI1PK"));

DDB_TABLE(t2, "Second",
          DDB_PRIMARY("PK"),
          DDB_PRIMARY("PK2", "SK2"),
          DDB_GSI("table", "A"),
          DDB_GSI("Dup", "B"),
          DDB_GSI("Dup", "C"),
          DDB_LSI("Local", "LSK"),
          DDB_PROJECT_KEYS_ONLY,
          DDB_TYPE_ATTRIBUTE("PK"));

struct DDB_ENTITY(t2, "Thing")
       DDB_KEY("table", "THING#{id}")
thing {
    char id[16];
};
