/* Version 2, breaking: the member sort key template changed, so the items
 * already stored can no longer be found by their keys. */
#ifndef EVOLVE_V2BAD_H
#define EVOLVE_V2BAD_H
#include <ddb/schema.h>

DDB_TABLE(app, "AppEvolve", DDB_PRIMARY("PK", "SK"), DDB_GSI("GSI1", "GSI1PK", "GSI1SK"));

struct DDB_ENTITY(app, "Member")
       DDB_KEY("table", "TEAM#{team}", "M#{name}")
       DDB_KEY("GSI1", "MEMBER#{name}", "TEAM#{team}")
member {
    char team[32];
    char name[32];
    char *email;
};
#endif
