/* typed_writes.h — the typed-writes test schema (issue 13): declared updates over
 * every clause, recomputed index keys and derived fields, a sharded entity
 * whose declared updates write one shard item, declared conditions, and the
 * write decorators of fields, batch deletes and the table's mixed batch. */
#ifndef TYPED_WRITES_H
#define TYPED_WRITES_H

#include <ddb/schema.h>

DDB_TABLE(fleet, "Fleet", DDB_PRIMARY("PK", "SK"), DDB_GSI("GSI1", "GSI1PK", "GSI1SK"), DDB_LSI("ByDay", "DaySK"));

struct DDB_ENTITY(fleet, "Device")
       DDB_KEY("table", "DEV#{id}", "DEVICE")
       DDB_KEY("GSI1", "SITE#{site}", "{status}#{id}")
       DDB_UPDATE("charge", "SET battery = :pct, last_seen = :now")
       DDB_UPDATE("drain", "SET battery = battery - :d", "battery >= :d")
       DDB_UPDATE("count_boot", "ADD boots :one")
       DDB_UPDATE("move", "SET site = :site, status = :status")
       DDB_UPDATE("tag", "ADD tags :t")
       DDB_UPDATE("untag", "DELETE tags :t")
       DDB_UPDATE("log", "SET readings = list_append(readings, :r)")
       DDB_UPDATE("first_note", "SET note = if_not_exists(note, :n)")
       DDB_UPDATE("forget", "REMOVE note")
       DDB_CONDITION("idle", "battery < :max AND attribute_not_exists(note)")
device {
    char id[16];
    char site[16];
    char status[8];
    char label[40] DDB_DERIVED("{site}/{status}");
    int32_t battery DDB_DEFAULT("100");
    int64_t last_seen;
    int64_t boots;
    ddb_string_set tags;
    int32_t *readings;
    size_t readings_count;
    char *note;
    int64_t rev DDB_VERSION;
    int64_t created_ms DDB_CREATED_AT;
    char updated[25] DDB_UPDATED_AT;
};

/* A sparse index: an open ticket is on GSI1 under its state; closing it
 * REMOVEs the state, and the declared update takes it off GSI1 (its keys
 * REMOVEd in the same request) whatever the sort key's other field holds. */
struct DDB_ENTITY(fleet, "Ticket")
       DDB_KEY("table", "TICKET#{id}", "TICKET")
       DDB_KEY("GSI1", "STATE#{state}", "{prio}#{id}")
       DDB_UPDATE("close", "REMOVE state SET closed_at = :at")
       DDB_UPDATE("reopen", "SET state = :s, prio = :p REMOVE closed_at")
ticket {
    char id[16];
    char *state;
    char prio[4];
    char *closed_at;
};

/* A unique field: every write of it keeps a uniqueness item in the same
 * transaction (embedded engine only: dynalite has no TransactWriteItems). */
struct DDB_ENTITY(fleet, "Owner")
       DDB_KEY("table", "OWNER#{id}", "OWNER")
owner {
    char id[16];
    char email[64] DDB_UNIQUE;
};

/* Sharded by velocity, the version on the stock shard: a declared update
 * writes only the shard items of the fields it changes (one transaction
 * when two) and bumps the version only on its own shard; a condition on
 * another shard than the one written is a ConditionCheck of that item. */
struct DDB_ENTITY(fleet, "Stock")
       DDB_KEY("table", "ITEM#{sku}", "STOCK")
       DDB_UPDATE("take", "SET qty = qty - :n", "qty >= :n")
       DDB_UPDATE("rename", "SET title = :t")
       DDB_UPDATE("restock", "SET qty = qty + :n, title = :t REMOVE blurb")
       DDB_UPDATE("retitle_if_stocked", "SET title = :t", "qty >= :min")
       DDB_CONDITION("stocked", "qty >= :min")
stock {
    char sku[16];
    int32_t qty DDB_SHARD("A");
    int64_t ver_a DDB_VERSION DDB_SHARD("A");
    char title[64] DDB_SHARD("B");
    char *blurb DDB_SHARD("B");
};

/* A key on a local secondary index: its partition key is the table's, so
 * updates rewrite only the index's sort key. */
struct DDB_ENTITY(fleet, "Visit")
       DDB_KEY("table", "VISIT#{site}", "V#{id}")
       DDB_KEY("ByDay", "VISIT#{site}", "{day}#{id}")
       DDB_UPDATE("reschedule", "SET day = :day")
visit {
    char site[16];
    char id[8];
    char day[11];
    char note[32];
    int64_t made DDB_CREATED_AT;
};

/* No version, unique or created-at field: the one entity here whose puts
 * can go in a batch (fleet_batch_put_memo); the others only delete there. */
struct DDB_ENTITY(fleet, "Memo")
       DDB_KEY("table", "MEMO#{id}", "MEMO")
memo {
    char id[16];
    char text[32];
};

#endif
