/* Version 2, compatible: a new sparse index on email (backfilled from the
 * members already stored) and a new entity. */
#ifndef EVOLVE_V2_H
#define EVOLVE_V2_H
#include <ddb/schema.h>

DDB_TABLE(app, "AppEvolve", DDB_PRIMARY("PK", "SK"), DDB_GSI("GSI1", "GSI1PK", "GSI1SK"),
          DDB_GSI("ByEmail", "EmailPK"));

struct DDB_ENTITY(app, "Member")
       DDB_KEY("table", "TEAM#{team}", "MEMBER#{name}")
       DDB_KEY("GSI1", "MEMBER#{name}", "TEAM#{team}")
       DDB_KEY("ByEmail", "{email}")
member {
    char team[32];
    char name[32];
    char *email;
};

struct DDB_ENTITY(app, "Team")
       DDB_KEY("table", "TEAM#{team}", "META")
team {
    char team[32];
    int32_t size;
};
#endif
