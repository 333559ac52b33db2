/* DDB_UPDATE / DDB_CONDITION on an entity sharded by velocity.  Allowed: an
 * update whose fields span shard items (one UpdateItem per item, in one
 * transaction), a condition on another shard item than the one written (a
 * ConditionCheck of that item).  Refused: a new value computed from a field
 * of another shard item (an UpdateItem reads only the item it writes), a
 * condition reading fields of two shard items (it is evaluated on one
 * item), names that clash with generated functions (patch, upsert), and
 * changing a DDB_UNIQUE field (its uniqueness item would not follow). */
#include <ddb/schema.h>

DDB_TABLE(shop, "Shop", DDB_PRIMARY("PK", "SK"));

struct DDB_ENTITY(shop, "Canoe")
       DDB_KEY("table", "C#{sku}", "CANOE")
       DDB_UPDATE("restock", "SET stock = stock + :n, title = :t")
       DDB_UPDATE("retitle", "SET title = :t", "stock > :min")
       DDB_UPDATE("copy_title", "SET note = title")
       DDB_UPDATE("first_note", "SET note = if_not_exists(title, :n)")
       DDB_UPDATE("take", "SET stock = stock - :n", "stock >= :n AND title <> :t")
       DDB_UPDATE("patch", "SET stock = :s")
       DDB_CONDITION("listed", "stock > :min AND begins_with(title, :p)")
       DDB_UPDATE("recode", "SET code = :c")
canoe {
    char sku[16];
    int32_t stock DDB_SHARD("A");
    char *note DDB_SHARD("A");
    char title[64] DDB_SHARD("B");
    char code[8] DDB_UNIQUE DDB_SHARD("A");
};
