/* fleet.h — a user's schema from issue 12: sites, devices split into
 * velocity shards with a version field, readings with a TTL, alerts on a
 * sparse index, and a `telemetry` collection of devices and readings.
 * A work shift whose KEYS_ONLY index spells its day as date parts.
 * Every read the generator makes of it runs in test_e2e_fleet.c, on the
 * embedded engine and through the remote backend against dynalite. */
#ifndef FLEET_H
#define FLEET_H

#include <ddb/schema.h>

DDB_TABLE(fleet, "Fleet",
          DDB_PRIMARY("PK", "SK"),
          DDB_GSI("GSI1", "GSI1PK", "GSI1SK"),
          DDB_GSI("OpenAlerts", "OpenPK", "OpenSK", DDB_PROJECT_KEYS_ONLY),
          DDB_GSI("ByDay", "DayPK", "DaySK", DDB_PROJECT_KEYS_ONLY));

struct DDB_ENTITY(fleet, "Site")
       DDB_KEY("table", "SITE#{site_id}", "SITE#{site_id}")
site {
    char site_id[16];
    char name[64];
    char region[16];
};

/* A device: slow-moving profile (shard A) and fast-moving status (shard B). */
struct DDB_ENTITY(fleet, "Device")
       DDB_KEY("table", "DEV#{device_id}", "DEVICE")
       DDB_KEY("GSI1", "SITE#{site_id}", "DEV#{kind}#{device_id}")
       DDB_PATTERN("by_site", "GSI1")
       DDB_COLLECTION("telemetry", "table")
       DDB_QUERY("of_model", "by_site", "kind = :kind", "model = :model")   /* GSI1 holds shard A items */
       DDB_SCAN("low_battery", "battery_pct < :pct")
device {
    char device_id[16];
    char site_id[16] DDB_SHARD("A");
    char kind[16] DDB_SHARD("A");
    char model[32] DDB_SHARD("A");
    int32_t battery_pct DDB_SHARD("B");
    char status[16] DDB_SHARD("B");
    int64_t version DDB_VERSION DDB_SHARD("A");
    char *notes DDB_SHARD("B");  /* large when set: a projection of shard A fields skips it */
};

/* A reading in its device's partition, expiring after a while. */
struct DDB_ENTITY(fleet, "Reading")
       DDB_KEY("table", "DEV#{device_id}", "READING#{taken_at}")
       DDB_COLLECTION("telemetry", "table")
       DDB_QUERY("hot", "table", "taken_at BETWEEN :from AND :to", "celsius > :min")
       DDB_QUERY("since", "table", "taken_at >= :t", "")
       DDB_QUERY("band", "table", "", "celsius BETWEEN :lo AND :hi")   /* :hi is the C parameter hi_ */
reading {
    char device_id[16];
    char taken_at[25];   /* 2024-03-04T10:00:00Z */
    double celsius;
    int64_t expires_at DDB_TTL;
};

/* Alerts; open ones (with open_site set) are in the sparse OpenAlerts index. */
struct DDB_ENTITY(fleet, "Alert")
       DDB_KEY("table", "DEV#{device_id}", "ALERT#{alert_id}")
       DDB_KEY("OpenAlerts", "OPEN#{open_site}", "{raised_at}#{alert_id}")
       DDB_PATTERN("open_at_site", "OpenAlerts")
       DDB_QUERY("open_since", "open_at_site", "raised_at >= :t")
alert {
    char device_id[16];
    char alert_id[16];
    char *open_site;     /* NULL once closed: then not in OpenAlerts */
    char raised_at[25];
    char message[64];
    int32_t level;
};

/* A work shift at a site.  ByDay holds only the keys; its sort key spells
 * the day as date parts, which give the whole char[11] day back. */
struct DDB_ENTITY(fleet, "Shift")
       DDB_KEY("table", "SITE#{site_id}", "SHIFT#{shift_id}")
       DDB_KEY("ByDay", "SHIFTS#{site_id}", "{day|year}{day|month}{day|day}#{shift_id}")
       DDB_PATTERN("by_day", "ByDay")
shift {
    char site_id[16];
    char shift_id[16];
    char day[11];        /* 2024-03-04 */
    char crew[32];
};

#endif
