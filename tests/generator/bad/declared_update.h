/* DDB_UPDATE: unknown fields, wrong types, key fields, required fields,
 * fields ddbgen maintains, index keys whose new value is unknown, two
 * shards, placeholders that cannot be typed or are typed twice, or that
 * are named like the generated functions' or the runtime's own names. */
#include <ddb/schema.h>

DDB_TABLE(fleet, "Fleet", DDB_PRIMARY("PK", "SK"), DDB_GSI("GSI1", "GSI1PK", "GSI1SK"));

struct DDB_ENTITY(fleet, "Device")
       DDB_KEY("table", "DEV#{id}", "DEVICE")
       DDB_KEY("GSI1", "SITE#{site}", "{status}#{battery}")
       DDB_UPDATE("typo", "SET batery = :b")
       DDB_UPDATE("add_string", "ADD site :s")
       DDB_UPDATE("delete_list", "DELETE readings :r")
       DDB_UPDATE("rekey", "SET id = :i")
       DDB_UPDATE("drop_required", "REMOVE battery")
       DDB_UPDATE("bump_version", "SET rev = :r")
       DDB_UPDATE("count_battery", "ADD battery :d")
       DDB_UPDATE("half_key", "SET status = :s")
       DDB_UPDATE("syntax", "SET battery = = :x")
       DDB_UPDATE("two_types", "SET battery = :v, site = :v")
       DDB_UPDATE("plus_string", "SET site = site + :x")
       DDB_CONDITION("untyped", ":a = :b")
       DDB_UPDATE("put", "SET notes = :n")
       DDB_CONDITION("clash", "battery < :obj")
       DDB_CONDITION("runtime_name", "battery < :v1")
       DDB_CONDITION("numbered", "n1 > :lim")
       DDB_UPDATE("move_site", "SET site = :s") /* the sort key is rendered again and needs status, battery */
device {
    char id[16];
    char site[16];
    char status[8];
    int32_t battery;
    int32_t *readings;
    size_t readings_count;
    char *notes;
    int64_t rev DDB_VERSION;
    int32_t n1;
};
