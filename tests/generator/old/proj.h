/* proj.h — a table with KEYS_ONLY and INCLUDE indexes (their projections
 * carry locations); proj_moved.h is the same schema two lines lower.
 * --plan-migration between them changes nothing (test_cli.c). */
#include <ddb/schema.h>

DDB_TABLE(app, "Proj", DDB_PRIMARY("PK", "SK"), DDB_GSI("ByEmail", "EPK", "ESK", DDB_PROJECT_KEYS_ONLY),
          DDB_GSI("ByName", "NPK", "NSK", DDB_PROJECT_INCLUDE("name")));

struct DDB_ENTITY(app, "User")
       DDB_KEY("table", "U#{id}", "U")
       DDB_KEY("ByEmail", "E#{email}", "U")
       DDB_KEY("ByName", "N#{name}", "U")
user {
    char id[16];
    char email[64];
    char name[32];
};
