/* shop.h — the golden schema: every decorator of <ddb/schema.h> at least once but DDB_KEY_FIELDS (dynalite runs it, and
 * predates multi-attribute keys: tests/e2e/key_fields has them).  Its model is shop.model.json; test_gen_model checks both. */
#ifndef SHOP_H
#define SHOP_H

#include <ddb/schema.h>

#include "common.h"

DDB_TABLE(shop, "Shop",
          DDB_PRIMARY("PK", "SK"),
          DDB_GSI("GSI1", "GSI1PK", "GSI1SK"),
          DDB_GSI("ByYear", "Year", "SK", DDB_PROJECT_KEYS_ONLY),
          DDB_GSI("ByEmail", "EmailPK", DDB_PROJECT_INCLUDE("username", "Type")),
          DDB_LSI("LSI1", "LSI1SK"),
          DDB_TYPE_ATTRIBUTE("Type"));

struct DDB_ENTITY(shop, "Organization")
       DDB_KEY("table", "ORG#{name}", "METADATA#{name}")
       DDB_COLLECTION("members", "table")
organization {
    char name[64];
    enum plan_kind plan;
    uint16_t seats;
};

struct DDB_ENTITY(shop, "User")
       DDB_KEY("table", "ORG#{org}", "USER#{username}")
       DDB_KEY("GSI1", "USER#{username}", "PROFILE")
       DDB_KEY("ByEmail", "{email|lower}")
       DDB_KEY("LSI1", "ORG#{org}", "{home.country|upper}#{created_at:020}")
       DDB_COLLECTION("members", "table")
       DDB_PATTERN("by_country", "LSI1")
       DDB_QUERY("joined", "by_country", "home.country = :country AND created_at BETWEEN :from AND :to",
                 "active = :active AND logins >= :min_logins")
       DDB_SCAN("tagged", "contains(tags, :tag) OR size(nicknames) > :n")
user {
    char org[64];
    char username[64];
    char global_id[37] DDB_UUID;
    char *email;                              /* optional: sparse in ByEmail */
    int32_t logins;
    int64_t created_at DDB_ATTR("ca");
    bool active;
    ddb_bytes avatar;
    struct address home;
    struct address *past;   size_t past_count;
    char **nicknames;       size_t nicknames_count;
    ddb_string_set tags;
    ddb_int_set lucky;
    ddb_double_set scores;
    ddb_bytes_set keys;
    uint32_t version DDB_VERSION;
    int64_t expires_at DDB_TTL;
};

/* A template from a macro: its diagnostics point at the macro's use. */
#define ORG_PARTITION "ORG#{org}"

struct DDB_ENTITY(shop, "Order")
       DDB_KEY("table", ORG_PARTITION, "ORDER#{id:08}")
       DDB_KEY("GSI1", "ORDER#{id:08}", "{order_date}")
       DDB_KEY("ByYear", "{year}", "ORDER#{id:08}")
       DDB_HEAT_OK("ByYear", "a report index: a few orders a day")
       DDB_COLLECTION("members", "table")
order {
    char org[64];
    uint64_t id DDB_AUTO_ID("ORG#{org}");
    char order_date[11];                                  /* 2022-11-01 */
    int32_t year DDB_DERIVED("{order_date|year}");
    char quarter[3] DDB_DERIVED("{order_date|quarter}");
    char month[3] DDB_DERIVED("{order_date|month}") DDB_ATTR("Month");
    double total;
};

/* High-velocity counters live apart from the large, rarely written text. */
struct DDB_ENTITY(shop, "Product")
       DDB_KEY("table", "PRODUCT#{sku}", "DETAILS")
       DDB_KEY("GSI1", "POPULAR", "{views:020}#{sku}")
       DDB_HEAT_OK("GSI1", "a leaderboard read now and then, written with each view count")
       DDB_SHARD_SUFFIX("~")
       DDB_PATTERN("popular", "GSI1")
       DDB_QUERY("viewed", "popular", "views >= :min", "stock > :in_stock")
product {
    char sku[32];
    char title[128] DDB_SHARD("A");
    char *description DDB_SHARD("A");
    int64_t stock DDB_SHARD("B");
    int64_t views DDB_SHARD("B");
};

DDB_TABLE(audit, "Audit", DDB_PRIMARY("id"));

struct DDB_ENTITY(audit, "AuditEvent")
       DDB_KEY("table", "{event_id}")
audit_event {
    char event_id[37] DDB_UUID;
    char actor[64];
    int64_t at DDB_TTL;
};

#endif
