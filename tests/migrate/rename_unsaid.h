/* The rename/remove migration test: version 2 as a team might first write
 * it, saying nothing of what became of Alert, Probe and Tag (ddbgen must
 * refuse to plan it: their items would be orphaned). */
#ifndef MIGRATE_RENAME_UNSAID_H
#define MIGRATE_RENAME_UNSAID_H
#include <ddb/schema.h>

DDB_TABLE(fleet, "Fleet", DDB_PRIMARY("PK", "SK"));

struct DDB_ENTITY(fleet, "Notice")
       DDB_KEY("table", "NOTICE#{id}", "NOTICE")
notice {
    char id[16];
    char level[16];
    int64_t raised;
};
#endif
