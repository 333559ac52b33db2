/* DynamoDB's Projection limits (API_Projection): at most 20 NonKeyAttributes
 * an index, each named once; the engine refuses such a table at CreateTable,
 * so ddbgen refuses the schema first. */
#include <ddb/schema.h>

DDB_TABLE(p, "Proj", DDB_PRIMARY("PK", "SK"),
          DDB_GSI("Twice", "G1PK", DDB_PROJECT_INCLUDE("a", "b", "a")),
          DDB_GSI("TooMany", "G2PK", DDB_PROJECT_INCLUDE("a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9", "a10",
                                                        "a11", "a12", "a13", "a14", "a15", "a16", "a17", "a18", "a19",
                                                        "a20", "a21")));

struct DDB_ENTITY(p, "E") DDB_KEY("table", "E#{id}", "E") DDB_KEY("Twice", "T#{id}") DDB_KEY("TooMany", "M#{id}") e {
    char id[8];
    char a[8];
    char b[8];
};
