/* Declared writes named like functions every entity has (generated_names.c's
 * list): the newer forms patch, upsert and the conditional variants of a
 * DDB_CONDITION (update_if_<c>, patch_if_<c>, update_fields_if_<c>), and the
 * transaction forms (tx_patch_if_<c>, tx_upsert). */
#include <ddb/schema.h>

DDB_TABLE(t, "Things", DDB_PRIMARY("PK", "SK"));

struct DDB_ENTITY(t, "Thing")
       DDB_KEY("table", "T#{id}", "THING")
       DDB_CONDITION("low", "n < :m")
       DDB_UPDATE("upsert", "SET n = :n")
       DDB_UPDATE("update_if_low", "SET n = :n")
       DDB_UPDATE("patch_if_low", "SET n = :n")
       DDB_UPDATE("update_fields_if_low", "SET n = :n")
       DDB_CONDITION("put_if_new", "n > :m")
       DDB_UPDATE("tx_patch_if_low", "SET n = :n")
       DDB_UPDATE("tx_upsert", "SET n = :n")
       DDB_UPDATE("bump_if_low", "SET n = n + :n")
thing {
    char id[16];
    int32_t n;
};
