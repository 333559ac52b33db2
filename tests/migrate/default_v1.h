/* The default-backfill migration test, version 1: devices with an id and
 * a name. */
#ifndef MIGRATE_DEFAULT_V1_H
#define MIGRATE_DEFAULT_V1_H
#include <ddb/schema.h>

DDB_TABLE(site, "Site", DDB_PRIMARY("PK", "SK"));

struct DDB_ENTITY(site, "Device")
       DDB_KEY("table", "DEV#{id}", "DEV")
device {
    char id[16];
    char name[32];
};
#endif
