/* The default-backfill migration test, version 2: two fields with a
 * DDB_DEFAULT (a required number, an optional string) and a new index on
 * the string: the stored devices get both values, and enter the index,
 * with no transform. */
#ifndef MIGRATE_DEFAULT_V2_H
#define MIGRATE_DEFAULT_V2_H
#include <ddb/schema.h>

DDB_TABLE(site, "Site", DDB_PRIMARY("PK", "SK"), DDB_GSI("ByZone", "ZonePK", "ZoneSK"));

struct DDB_ENTITY(site, "Device")
       DDB_KEY("table", "DEV#{id}", "DEV")
       DDB_KEY("ByZone", "ZONE#{zone}", "DEV#{id}")
device {
    char id[16];
    char name[32];
    int64_t priority DDB_DEFAULT("5");
    char *zone DDB_DEFAULT("eu");
};
#endif
