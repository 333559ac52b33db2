/* A filter names the entity's C fields (not stored names), leaves the
 * pattern's key fields to the key condition, and uses functions and
 * comparisons that apply to each field's type. */
#include <ddb/schema.h>

DDB_TABLE(t, "Logs", DDB_PRIMARY("PK", "SK"));

struct address {
    char city[32];
};

struct DDB_ENTITY(t, "Line")
       DDB_KEY("table", "APP#{app}", "{day}")
       DDB_QUERY("unknown", "table", "", "levle = :l")
       DDB_QUERY("stored_name", "table", "", "msg = :m")
       DDB_QUERY("partition_field", "table", "", "app = :app_name")
       DDB_QUERY("sort_field", "table", "", "day > :d")
       DDB_QUERY("not_a_struct", "table", "", "level.x = :x")
       DDB_QUERY("nested_unknown", "table", "", "origin.town = :t")
       DDB_QUERY("bad_begins", "table", "", "begins_with(count, :p)")
       DDB_QUERY("bad_contains", "table", "", "contains(count, :p)")
       DDB_QUERY("bad_size", "table", "", "size(urgent) > :n")
       DDB_QUERY("bad_order", "table", "", "urgent < :u")
       DDB_QUERY("syntax", "table", "", "count >")
       DDB_QUERY("unknown_function", "table", "", "starts_with(level, :p)")
       DDB_SCAN("size_as_field", "size = :s")
line {
    char app[16];
    char day[11];
    char level[8];
    char *message DDB_ATTR("msg");
    int32_t count;
    bool urgent;
    struct address origin;
};
