/* The fleet-telemetry scenario, version 3 (the second change): a
 * reading's sort key template is now "R#{day}#{seq:06}", so every reading
 * moves to a new primary key; the way back (--down) moves them back. */
#ifndef MIGRATE_FLEET_V3_H
#define MIGRATE_FLEET_V3_H
#include <ddb/schema.h>

DDB_TABLE(fleet, "Fleet", DDB_PRIMARY("PK", "SK"), DDB_GSI("ByFirmware", "FwPK", "FwSK"),
          DDB_GSI("ByUnit", "UnitPK", "UnitSK"));

struct DDB_ENTITY(fleet, "Device")
       DDB_KEY("table", "DEV#{id}", "DEVICE")
       DDB_KEY("ByFirmware", "FW#{firmware}", "DEV#{id}")
device {
    char id[16];
    char model[24] DDB_SHARD("spec");
    char firmware[16] DDB_SHARD("spec") DDB_DEFAULT("1.0");
    int64_t odometer DDB_SHARD("live");
    int32_t speed DDB_SHARD("live");
    int32_t max_speed DDB_SHARD("live") DDB_DEFAULT("130");
};

struct DDB_ENTITY(fleet, "Reading")
       DDB_KEY("table", "DEV#{device}", "R#{day}#{seq:06}")
       DDB_KEY("ByUnit", "UNIT#{unit}", "DEV#{device}#{seq:06}")
reading {
    char device[16];
    int32_t seq;
    char day[11];
    int32_t value;
    char unit[8] DDB_DEFAULT("C");
};

struct DDB_ENTITY(fleet, "Driver")
       DDB_KEY("table", "DRIVER#{id}", "DRIVER")
driver {
    char id[16];
    char badge[16];
};

struct DDB_ENTITY(fleet, "Trip")
       DDB_KEY("table", "TRIP#{id}", "TRIP")
trip {
    char id[16];
    char device[16];
};
#endif
