/* A declared query's key condition selects a prefix or a range of its
 * pattern's sort key: =, <, <=, >, >=, BETWEEN or begins_with on sort-key
 * fields joined with AND, every level before the last given with =, a range
 * only where the key's text sorts like the value. */
#include <ddb/schema.h>

DDB_TABLE(t, "Logs", DDB_PRIMARY("PK", "SK"), DDB_GSI("ByHost", "HostPK"));

struct DDB_ENTITY(t, "Line")
       DDB_KEY("table", "APP#{app}", "{day}#{seq:08}#{level}#{n}")
       DDB_KEY("ByHost", "{host}")
       DDB_QUERY("gap", "table", "seq = :s")
       DDB_QUERY("early_range", "table", "day > :d AND seq = :s")
       DDB_QUERY("twice", "table", "day = :d1 AND day = :d2")
       DDB_QUERY("either", "table", "day = :d1 OR day = :d2")
       DDB_QUERY("not_equal", "table", "day <> :d")
       DDB_QUERY("values_only", "table", ":x = :y")
       DDB_QUERY("not_in_key", "table", "host = :h")
       DDB_QUERY("partition", "table", "app = :app_name")
       DDB_QUERY("unpadded", "table", "day = :d AND seq = :s AND level = :l AND n > :n")
       DDB_QUERY("prefix_of_number", "table", "day = :d AND begins_with(seq, :s)")
       DDB_QUERY("no_sort_key", "ByHost", "host = :h")
line {
    char app[16];
    char day[11];
    uint32_t seq;
    char level[8];
    int32_t n;
    char host[32];
};
