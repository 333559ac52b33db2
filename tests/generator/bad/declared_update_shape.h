/* More DDB_UPDATE / DDB_CONDITION rules: whole fields only, no tx_ prefix
 * (the transaction forms' names), placeholders that would clash with the generated function's
 * parameters, list_append into a non-list, functions whose placeholder
 * cannot be typed, names that are not C identifiers or already taken; a
 * warning for if_not_exists() on a field every item stores. */
#include <ddb/schema.h>

DDB_TABLE(shop, "Shop", DDB_PRIMARY("PK", "SK"));

struct address {
    char city[32];
};

struct DDB_ENTITY(shop, "Kayak")
       DDB_KEY("table", "K#{sku}", "KAYAK")
       DDB_UPDATE("nested", "SET home.city = :c")
       DDB_UPDATE("tx_both", "SET stock = :s, title = :t")
       DDB_UPDATE("key_param", "SET stock = :sku")
       DDB_UPDATE("runtime_name", "SET stock = :ddb_x")
       DDB_UPDATE("append", "SET title = list_append(title, :t)")
       DDB_UPDATE("9lives", "SET stock = :s")
       DDB_UPDATE("create", "SET stock = :s")
       DDB_UPDATE("first_stock", "SET stock = if_not_exists(stock, :s)")
       DDB_CONDITION("typed", "size(title) > :n AND begins_with(title, :p) AND stock BETWEEN :lo AND :hi")
       DDB_CONDITION("untyped", "contains(tags, :t) AND attribute_type(stock, :ty)")
kayak {
    char sku[16];
    int32_t stock DDB_SHARD("A");
    char title[64] DDB_SHARD("B");
    struct address home DDB_SHARD("B");
    ddb_string_set tags DDB_SHARD("B");
};
