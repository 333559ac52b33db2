/* The unique-claim migration test, version 2: nick is now DDB_UNIQUE,
 * a change whose migration plan claims the stored nicks. */
#ifndef MIGRATE_UNIQUE_V2_H
#define MIGRATE_UNIQUE_V2_H
#include <ddb/schema.h>

DDB_TABLE(club, "Club", DDB_PRIMARY("PK", "SK"));

struct DDB_ENTITY(club, "Guest")
       DDB_KEY("table", "GUEST#{id}", "GUEST")
guest {
    char id[16];
    char nick[32] DDB_UNIQUE;
    int64_t visits;
};
#endif
