/* Two entities of one table keep their DDB_TTL in different attributes:
 * a table has one TTL attribute, so ddbgen refuses to generate. */
#ifndef TTL_CONFLICT_H
#define TTL_CONFLICT_H

#include <ddb/schema.h>
#include <stdint.h>

DDB_TABLE(events, "Events", DDB_PRIMARY("PK", "SK"));

struct DDB_ENTITY(events, "Session") DDB_KEY("table", "S#{id}", "S") session {
    char id[32];
    int64_t expires DDB_TTL;
};

struct DDB_ENTITY(events, "Token") DDB_KEY("table", "T#{id}", "T") token {
    char id[32];
    int64_t valid_until DDB_TTL;
};

#endif
