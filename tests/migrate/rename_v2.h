/* The rename/remove migration test, version 2: Alert is now Notice (its
 * key templates too), its field severity is stored as level; Probe is
 * removed with its items deleted, Tag removed with its items kept. */
#ifndef MIGRATE_RENAME_V2_H
#define MIGRATE_RENAME_V2_H
#include <ddb/schema.h>

DDB_TABLE(fleet, "Fleet", DDB_PRIMARY("PK", "SK"), DDB_REMOVED("Probe", "delete"), DDB_REMOVED("Tag", "keep"));

struct DDB_ENTITY(fleet, "Notice") DDB_RENAMED_FROM("Alert")
       DDB_KEY("table", "NOTICE#{id}", "NOTICE")
notice {
    char id[16];
    char level[16] DDB_RENAMED_FROM("severity");
    int64_t raised;
};
#endif
