/* The "fleet" schema of the typed-read tests, as ddbgen would describe it
 * (hand-written descriptors): sites; devices split into two shards (A:
 * site, model, version; B: firmware) with a version field and a GSI
 * "devices by site" carried by shard A; readings under a hierarchical sort
 * key READ#{day}#{seq:04} with a TTL field; alerts on a sparse KEYS_ONLY
 * index OpenAlerts (only alerts with open_site set are in it); a collection
 * "telemetry" of devices, readings and alerts in the partition
 * DEVICE#{device_id}. */
#ifndef FLEET_SCHEMA_H
#define FLEET_SCHEMA_H

#include <ddb/entity.h>

#include <stddef.h>

struct site {
    char site_id[16];
    char *name;
};

struct device {
    char device_id[16];
    char site_id[16];
    char model[16];
    char firmware[16];
    int64_t version;
};

struct reading {
    char device_id[16];
    char day[11];
    int32_t seq;
    double celsius;
    int64_t expires; /* TTL */
};

struct alert {
    char device_id[16];
    char raised[24];
    char *open_site; /* set: the alert is open (in OpenAlerts) */
    char *text;
};

/* The result of the telemetry collection. */
struct telemetry {
    struct device *device;
    size_t device_count;
    ddb_ent_mask *device_masks;
    struct reading *reading;
    size_t reading_count;
    struct alert *alert;
    size_t alert_count;
};

/* field indexes, as generated code would name them */
enum { DEVICE_ID, DEVICE_SITE, DEVICE_MODEL, DEVICE_FIRMWARE, DEVICE_VERSION };
enum { READING_DEVICE, READING_DAY, READING_SEQ, READING_CELSIUS, READING_EXPIRES };
enum { ALERT_DEVICE, ALERT_RAISED, ALERT_OPEN_SITE, ALERT_TEXT };
/* levels of the reading's sort key READ#{day}#{seq:04} */
enum { READING_SK_READ = 0, READING_SK_DAY = 1, READING_SK_DAY_SEP = 2, READING_SK_SEQ = 3 };

#define P1(i) ((const uint16_t[]){i})
#define HOLE(i) {.path = P1(i), .path_len = 1}

static const ddb_index_def fleet_indexes[] = {
    {.name = "GSI1", .key = {.pk = "GSI1PK", .pk_type = DDB_TS, .sk = "GSI1SK", .sk_type = DDB_TS}, .projection = DDB_PROJ_ALL},
    {.name = "OpenAlerts", .key = {.pk = "OAPK", .pk_type = DDB_TS, .sk = "OASK", .sk_type = DDB_TS}, .projection = DDB_PROJ_KEYS_ONLY},
};
static const ddb_schema_table fleet_table = {
    "fleet", "Type",
    {.name = "Fleet", .key = {.pk = "PK", .pk_type = DDB_TS, .sk = "SK", .sk_type = DDB_TS}, .indexes = fleet_indexes, .n_indexes = 2,
     .ttl_attribute = "expires"}};

/* site: SITE#{site_id} / SITE */
static const ddb_field_desc site_fields[] = {
    {.name = "site_id", .attr = "site_id", .type = DDB_F_CHARS, .size = 16, .offset = offsetof(struct site, site_id),
     .flags = DDB_FIELD_KEY, .shard = -1},
    {.name = "name", .attr = "name", .type = DDB_F_STRING, .size = sizeof(char *),
     .offset = offsetof(struct site, name), .flags = DDB_FIELD_OPTIONAL, .shard = -1},
};
static const ddb_struct_desc site_st = {"site", sizeof(struct site), 2, site_fields};
static const ddb_tseg site_pk[] = {{.lit = "SITE#"}, HOLE(0)};
static const ddb_tseg site_sk[] = {{.lit = "SITE"}};
static const ddb_key_desc site_keys[] = {{NULL, "PK", "SK", {site_pk, 2, DDB_TS}, {site_sk, 1, DDB_TS}, -1, false}};
static const ddb_entity_desc site_entity = {.name = "Site", .table = &fleet_table, .st = &site_st, .n_keys = 1,
                                            .keys = site_keys};

/* device: DEVICE#{device_id} / DEV#{device_id}, shards A and B; GSI1
 * SITE#{site_id} / DEV#{device_id} on shard A */
static const ddb_field_desc device_fields[] = {
    {.name = "device_id", .attr = "device_id", .type = DDB_F_CHARS, .size = 16,
     .offset = offsetof(struct device, device_id), .flags = DDB_FIELD_KEY, .shard = -1},
    {.name = "site_id", .attr = "site_id", .type = DDB_F_CHARS, .size = 16, .offset = offsetof(struct device, site_id),
     .shard = 0},
    {.name = "model", .attr = "model", .type = DDB_F_CHARS, .size = 16, .offset = offsetof(struct device, model),
     .shard = 0},
    {.name = "firmware", .attr = "firmware", .type = DDB_F_CHARS, .size = 16,
     .offset = offsetof(struct device, firmware), .shard = 1},
    {.name = "version", .attr = "version", .type = DDB_F_INT, .size = 8, .offset = offsetof(struct device, version),
     .flags = DDB_FIELD_VERSION, .shard = 0},
};
static const ddb_struct_desc device_st = {"device", sizeof(struct device), 5, device_fields};
static const ddb_tseg device_pk[] = {{.lit = "DEVICE#"}, HOLE(0)};
static const ddb_tseg device_sk[] = {{.lit = "DEV#"}, HOLE(0)};
static const ddb_tseg device_gpk[] = {{.lit = "SITE#"}, HOLE(1)};
static const ddb_key_desc device_keys[] = {
    {NULL, "PK", "SK", {device_pk, 2, DDB_TS}, {device_sk, 2, DDB_TS}, -1, false},
    {"GSI1", "GSI1PK", "GSI1SK", {device_gpk, 2, DDB_TS}, {device_sk, 2, DDB_TS}, 0, false},
};
static const char *const device_shards[] = {"A", "B"};
static const ddb_entity_desc device_entity = {.name = "Device", .table = &fleet_table, .st = &device_st,
                                              .n_keys = 2, .keys = device_keys, .n_shards = 2,
                                              .shards = device_shards, .shard_suffix = "#"};

/* reading: DEVICE#{device_id} / READ#{day}#{seq:04}, TTL expires */
static const ddb_field_desc reading_fields[] = {
    {.name = "device_id", .attr = "device_id", .type = DDB_F_CHARS, .size = 16,
     .offset = offsetof(struct reading, device_id), .flags = DDB_FIELD_KEY, .shard = -1},
    {.name = "day", .attr = "day", .type = DDB_F_CHARS, .size = 11, .offset = offsetof(struct reading, day),
     .flags = DDB_FIELD_KEY, .shard = -1},
    {.name = "seq", .attr = "seq", .type = DDB_F_INT, .size = 4, .offset = offsetof(struct reading, seq),
     .flags = DDB_FIELD_KEY, .shard = -1},
    {.name = "celsius", .attr = "celsius", .type = DDB_F_FLOAT, .size = 8, .offset = offsetof(struct reading, celsius),
     .shard = -1},
    {.name = "expires", .attr = "expires", .type = DDB_F_INT, .size = 8, .offset = offsetof(struct reading, expires),
     .flags = DDB_FIELD_TTL, .shard = -1},
};
static const ddb_struct_desc reading_st = {"reading", sizeof(struct reading), 5, reading_fields};
static const ddb_tseg reading_sk[] = {{.lit = "READ#"}, HOLE(1), {.lit = "#"}, {.path = P1(2), .path_len = 1, .pad = 4}};
static const ddb_key_desc reading_keys[] = {{NULL, "PK", "SK", {device_pk, 2, DDB_TS}, {reading_sk, 4, DDB_TS}, -1, false}};
static const ddb_entity_desc reading_entity = {.name = "Reading", .table = &fleet_table, .st = &reading_st,
                                               .n_keys = 1, .keys = reading_keys};

/* alert: DEVICE#{device_id} / ALERT#{raised}; OpenAlerts {open_site} / {device_id}#{raised} */
static const ddb_field_desc alert_fields[] = {
    {.name = "device_id", .attr = "device_id", .type = DDB_F_CHARS, .size = 16,
     .offset = offsetof(struct alert, device_id), .flags = DDB_FIELD_KEY, .shard = -1},
    {.name = "raised", .attr = "raised", .type = DDB_F_CHARS, .size = 24, .offset = offsetof(struct alert, raised),
     .flags = DDB_FIELD_KEY, .shard = -1},
    {.name = "open_site", .attr = "open_site", .type = DDB_F_STRING, .size = sizeof(char *),
     .offset = offsetof(struct alert, open_site), .flags = DDB_FIELD_OPTIONAL, .shard = -1},
    {.name = "text", .attr = "text", .type = DDB_F_STRING, .size = sizeof(char *), .offset = offsetof(struct alert, text),
     .flags = DDB_FIELD_OPTIONAL, .shard = -1},
};
static const ddb_struct_desc alert_st = {"alert", sizeof(struct alert), 4, alert_fields};
static const ddb_tseg alert_sk[] = {{.lit = "ALERT#"}, HOLE(1)};
static const ddb_tseg alert_opk[] = {HOLE(2)};
static const ddb_tseg alert_osk[] = {HOLE(0), {.lit = "#"}, HOLE(1)};
static const ddb_key_desc alert_keys[] = {
    {NULL, "PK", "SK", {device_pk, 2, DDB_TS}, {alert_sk, 2, DDB_TS}, -1, false},
    {"OpenAlerts", "OAPK", "OASK", {alert_opk, 1, DDB_TS}, {alert_osk, 3, DDB_TS}, -1, false},
};
static const ddb_entity_desc alert_entity = {.name = "Alert", .table = &fleet_table, .st = &alert_st, .n_keys = 2,
                                             .keys = alert_keys};

static const ddb_collection_member telemetry_members[] = {
    {.entity = &device_entity, .key = 0, .items_offset = offsetof(struct telemetry, device),
     .count_offset = offsetof(struct telemetry, device_count), .masks_offset = offsetof(struct telemetry, device_masks)},
    {.entity = &reading_entity, .key = 0, .items_offset = offsetof(struct telemetry, reading),
     .count_offset = offsetof(struct telemetry, reading_count)},
    {.entity = &alert_entity, .key = 0, .items_offset = offsetof(struct telemetry, alert),
     .count_offset = offsetof(struct telemetry, alert_count)},
};
static const ddb_collection_desc telemetry = {.name = "telemetry", .index = NULL, .n_members = 3,
                                              .members = telemetry_members};

static const ddb_entity_desc *const fleet_entities[] = {&site_entity, &device_entity, &reading_entity, &alert_entity};

#endif
