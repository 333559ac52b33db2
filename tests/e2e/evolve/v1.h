/* Schema evolution, version 1: members of teams. */
#ifndef EVOLVE_V1_H
#define EVOLVE_V1_H
#include <ddb/schema.h>

DDB_TABLE(app, "AppEvolve", DDB_PRIMARY("PK", "SK"), DDB_GSI("GSI1", "GSI1PK", "GSI1SK"));

struct DDB_ENTITY(app, "Member")
       DDB_KEY("table", "TEAM#{team}", "MEMBER#{name}")
       DDB_KEY("GSI1", "MEMBER#{name}", "TEAM#{team}")
member {
    char team[32];
    char name[32];
    char *email;
};
#endif
