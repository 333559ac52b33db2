/* The unique-claim migration test, version 1: guests with a nick that is
 * not unique yet (two of the populated guests share one). */
#ifndef MIGRATE_UNIQUE_V1_H
#define MIGRATE_UNIQUE_V1_H
#include <ddb/schema.h>

DDB_TABLE(club, "Club", DDB_PRIMARY("PK", "SK"));

struct DDB_ENTITY(club, "Guest")
       DDB_KEY("table", "GUEST#{id}", "GUEST")
guest {
    char id[16];
    char nick[32];
    int64_t visits;
};
#endif
