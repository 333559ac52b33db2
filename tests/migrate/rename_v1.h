/* The rename/remove migration test, version 1: alerts, probes and tags of
 * a fleet (version 2 renames Alert to Notice and its field severity to
 * level, removes Probe with its items and Tag keeping them). */
#ifndef MIGRATE_RENAME_V1_H
#define MIGRATE_RENAME_V1_H
#include <ddb/schema.h>

DDB_TABLE(fleet, "Fleet", DDB_PRIMARY("PK", "SK"));

struct DDB_ENTITY(fleet, "Alert")
       DDB_KEY("table", "ALERT#{id}", "ALERT")
alert {
    char id[16];
    char severity[16];
    int64_t raised;
};

struct DDB_ENTITY(fleet, "Probe")
       DDB_KEY("table", "PROBE#{id}", "PROBE")
probe {
    char id[16];
    int64_t rtt;
};

struct DDB_ENTITY(fleet, "Tag")
       DDB_KEY("table", "TAG#{id}", "TAG")
tag {
    char id[16];
};
#endif
