/* The fleet-telemetry scenario, version 1: velocity-sharded devices (a
 * "spec" shard that rarely changes, a "live" one written often), their
 * readings (most of the items), and drivers with badges.  Versions 2 to 4
 * are the three changes run_fleet.sh takes the stored items through. */
#ifndef MIGRATE_FLEET_V1_H
#define MIGRATE_FLEET_V1_H
#include <ddb/schema.h>

DDB_TABLE(fleet, "Fleet", DDB_PRIMARY("PK", "SK"));

struct DDB_ENTITY(fleet, "Device")
       DDB_KEY("table", "DEV#{id}", "DEVICE")
device {
    char id[16];
    char model[24] DDB_SHARD("spec");
    int64_t odometer DDB_SHARD("live");
    int32_t speed DDB_SHARD("live");
};

struct DDB_ENTITY(fleet, "Reading")
       DDB_KEY("table", "DEV#{device}", "READ#{seq:06}")
reading {
    char device[16];
    int32_t seq;
    char day[11];
    int32_t value;
};

struct DDB_ENTITY(fleet, "Driver")
       DDB_KEY("table", "DRIVER#{id}", "DRIVER")
driver {
    char id[16];
    char badge[16];
};
#endif
