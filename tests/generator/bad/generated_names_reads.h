/* Patterns, queries and scans named like functions every entity has
 * (generated_names.c's list: patch, upsert, the conditional variants
 * update_if_<c>, patch_if_<c>, and the transaction forms tx_patch,
 * tx_update_fields_if_<c>), and reads against declared writes and a
 * pattern's own functions (<entity>_<pattern>_all, _<level>) and the static
 * helpers of a condition (<entity>_cond_<c>_) or update (<entity>_<u>_parts_):
 * one generated name, two things; a scan named like another's iterator
 * (<entity>_<scan>_next).  by_owner_when is fine: no level 'when'. */
#include <ddb/schema.h>

DDB_TABLE(t, "Things", DDB_PRIMARY("PK", "SK"), DDB_GSI("GSI1", "G1PK", "G1SK"));

struct DDB_ENTITY(t, "Thing")
       DDB_KEY("table", "T#{id}", "THING")
       DDB_KEY("GSI1", "OWNER#{owner}", "T#{id}")
       DDB_CONDITION("low", "n < :m")
       DDB_UPDATE("joined", "SET n = :n")
       DDB_PATTERN("by_owner", "GSI1")
       DDB_PATTERN("patch", "table")
       DDB_QUERY("upsert", "by_owner", "")
       DDB_QUERY("update_if_low", "by_owner", "")
       DDB_QUERY("patch_if_low", "by_owner", "")
       DDB_SCAN("tx_patch", "n > :m")
       DDB_SCAN("tx_update_fields_if_low", "n > :m")
       DDB_QUERY("joined", "by_owner", "")
       DDB_QUERY("by_owner_all", "by_owner", "")
       DDB_SCAN("by_owner_id", "n > :m")
       DDB_SCAN("by_owner_when", "n > :m")
       DDB_SCAN("cond_low_", "n > :m")
       DDB_SCAN("joined_parts_", "n > :m")
       DDB_SCAN("mine", "n > :m")
       DDB_SCAN("mine_next", "n > :m")
thing {
    char id[16];
    char owner[16];
    int32_t n;
};
