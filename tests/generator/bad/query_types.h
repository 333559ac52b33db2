/* Each :placeholder becomes a typed C parameter: one type per placeholder
 * (from the field it is compared with), scalar fields only, two fields
 * compared must have one type, and two placeholders may not become one C
 * parameter (":out" is "out_", since out is the generated function's own). */
#include <ddb/schema.h>

DDB_TABLE(t, "Logs", DDB_PRIMARY("PK", "SK"));

struct DDB_ENTITY(t, "Line")
       DDB_KEY("table", "APP#{app}", "{day}")
       DDB_QUERY("two_types", "table", "day = :x", "count > :x")
       DDB_QUERY("set_value", "table", "", "tags = :t")
       DDB_QUERY("field_types", "table", "", "count = level")
       DDB_QUERY("two_values", "table", "", ":x = :y")
       DDB_QUERY("taken_name", "table", "", "count > :out AND count < :out_")
       DDB_QUERY("partition_name", "table", "", "level = :app")
line {
    char app[16];
    char day[11];
    char level[8];
    int32_t count;
    ddb_string_set tags;
};
