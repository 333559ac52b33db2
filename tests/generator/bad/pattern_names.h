/* Access patterns: a C identifier naming one of the entity's keys, once;
 * every pattern, query and scan of an entity is a function <entity>_<name>,
 * so the names are unique and not those every entity has already. */
#include <ddb/schema.h>

DDB_TABLE(t, "Things", DDB_PRIMARY("PK", "SK"), DDB_GSI("GSI1", "G1PK", "G1SK"), DDB_GSI("GSI2", "G2PK"));

struct DDB_ENTITY(t, "Thing")
       DDB_KEY("table", "T#{id}", "THING")
       DDB_KEY("GSI1", "OWNER#{owner}", "T#{id}")
       DDB_PATTERN("by owner", "GSI1")
       DDB_PATTERN("of_owner", "GSI2")
       DDB_PATTERN("mine", "GSI1")
       DDB_PATTERN("again", "GSI1")
       DDB_PATTERN("get", "table")
       DDB_QUERY("mine", "GSI1", "")
       DDB_QUERY("all-of", "table", "")
       DDB_QUERY("q", "by_kind", "")
       DDB_SCAN("scan", "owner = :who")
thing {
    char id[16];
    char owner[16];
};
