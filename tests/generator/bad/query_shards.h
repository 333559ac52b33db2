/* A filter sees one stored item: on a sharded entity it names fields of
 * one shard (key fields are on all), and on an index that holds one shard
 * item per entity, fields of that shard. */
#include <ddb/schema.h>

DDB_TABLE(t, "Devices", DDB_PRIMARY("PK", "SK"), DDB_GSI("BySite", "SitePK", "SiteSK"));

struct DDB_ENTITY(t, "Device")
       DDB_KEY("table", "DEV#{id}", "DEVICE")
       DDB_KEY("BySite", "SITE#{site}", "{id}")
       DDB_PATTERN("by_site", "BySite")
       DDB_QUERY("two_shards", "table", "", "model = :m AND battery < :b")
       DDB_QUERY("other_shard", "by_site", "", "battery < :b")
       DDB_SCAN("key_fields_ok", "battery < :b AND id <> :other")   /* no error */
device {
    char id[16];
    char site[16] DDB_SHARD("A");
    char model[16] DDB_SHARD("A");
    int32_t battery DDB_SHARD("B");
};
