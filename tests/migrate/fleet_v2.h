/* The fleet-telemetry scenario, version 2 (the first change): fields with
 * a DDB_DEFAULT and a new index on each — a device's firmware, in its
 * "spec" shard (the shard item that carries the ByFirmware key), and a
 * reading's unit — a device's max_speed with a default in its other shard,
 * and a new entity, Trip (which makes the way back to version 1 not
 * reversible: version 1 could not read trips). */
#ifndef MIGRATE_FLEET_V2_H
#define MIGRATE_FLEET_V2_H
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
       DDB_KEY("table", "DEV#{device}", "READ#{seq:06}")
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
