/* inventory.h — a warehouse inventory written the way a user of ddbgen
 * would: SKUs split into a fast-moving shard (stock, reservations, price,
 * the version that guards them) and a slow one (title, description), with
 * declared updates and conditions; stock movements by day on a
 * write-sharded index (every movement of a busy day lands on one date),
 * expiring after a retention period; a chat-like feed of notes per SKU
 * read newest first.  Trial test schema (tests/trial/). */
#ifndef INVENTORY_H
#define INVENTORY_H

#include <ddb/schema.h>
#include <stdbool.h>
#include <stdint.h>

struct dims { double w_cm; double h_cm; double d_cm; };

DDB_TABLE(inv, "Inventory",
          DDB_PRIMARY("pk", "sk"),
          DDB_GSI("GSI1", "gsi1pk", "gsi1sk"),
          DDB_GSI("ByDay", "daypk", "daysk"));

struct DDB_ENTITY(inv, "Sku")
       DDB_KEY("table", "SKU#{sku}", "ITEM")
       DDB_KEY("GSI1", "WH#{warehouse}", "{category}#{sku}")
       DDB_SHARD_SUFFIX("~")
       DDB_PATTERN("in_warehouse", "GSI1")
       DDB_COLLECTION("sku_feed", "table")
       DDB_UPDATE("restock", "SET on_hand = on_hand + :n")
       DDB_UPDATE("reserve", "SET on_hand = on_hand - :n, reserved = reserved + :n", "on_hand >= :n")
       DDB_UPDATE("reprice", "SET price_cents = :p")
       DDB_UPDATE("retitle", "SET title = :t")
       DDB_CONDITION("in_stock", "on_hand > :min")
       DDB_QUERY("cat_range", "in_warehouse", "category BETWEEN :lo AND :hi")
       DDB_QUERY("by_prefix", "in_warehouse", "begins_with(category, :c)", "attribute_exists(description)")
sku {
    char sku[16];
    char warehouse[8] DDB_SHARD("B");
    char category[16] DDB_SHARD("B");
    char title[80] DDB_SHARD("B");
    char *description DDB_SHARD("B");
    struct dims dims DDB_SHARD("B");
    int32_t on_hand DDB_SHARD("A");
    int32_t reserved DDB_SHARD("A");
    int64_t price_cents DDB_SHARD("A");
    uint32_t version DDB_VERSION DDB_SHARD("A");
};

struct DDB_ENTITY(inv, "Movement")
       DDB_KEY("table", "SKU#{sku}", "MOVE#{at}")
       DDB_KEY("ByDay", "DAY#{at|year}-{at|month}-{at|day}", "{at}#{sku}")
       DDB_WRITE_SHARDS("ByDay", 4, "random")
       DDB_PATTERN("on_day", "ByDay")
       DDB_COLLECTION("sku_feed", "table")
movement {
    char sku[16];
    char at[25];
    int32_t delta;
    char reason[16];
    int64_t expires DDB_TTL;
    double *readings; size_t readings_count;
};

struct DDB_ENTITY(inv, "Note")
       DDB_KEY("table", "SKU#{sku}", "NOTE#{posted_ms:015}")
       DDB_COLLECTION("sku_feed", "table")
       DDB_SCAN("mentions", "contains(body, :word)")
note {
    char sku[16];
    int64_t posted_ms;
    char author[24];
    char body[280];
    ddb_int_set read_by;                  /* read receipts: user numbers */
    bool pinned;
};

#endif
