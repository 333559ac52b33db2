/* lastmile.h — the schema of issue 26's defects: a collection whose lead
 * member is sharded (Org: two shard items) beside an unsharded member
 * (User), a declared update appending to a list that may not exist yet
 * (an empty list parameter), and an unsharded entity (Site) whose
 * projected reads must still return its key fields. */
#ifndef LASTMILE_H
#define LASTMILE_H

#include <ddb/schema.h>

DDB_TABLE(t, "CollT2", DDB_PRIMARY("PK", "SK"));

struct DDB_ENTITY(t, "Org")
       DDB_KEY("table", "ORG#{org}", "A#{org}")
       DDB_COLLECTION("members", "table")
org {
    char org[16];
    char name[16] DDB_SHARD("A");
    int32_t n DDB_SHARD("B");
};

struct DDB_ENTITY(t, "User")
       DDB_KEY("table", "ORG#{org}", "U#{user}")
       DDB_COLLECTION("members", "table")
       DDB_UPDATE("note", "SET notes = list_append(if_not_exists(notes, :empty), :more)")
user {
    char org[16];
    char user[16];
    char name[16];
    char **notes;
    size_t notes_count;
};

struct DDB_ENTITY(t, "Site")
       DDB_KEY("table", "SITE#{site_id}", "SITE")
site {
    char site_id[16];
    char name[32];
    char region[8];
};

#endif
