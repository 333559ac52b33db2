/* The rename/remove migration test: bad uses of DDB_RENAMED_FROM and
 * DDB_REMOVED, each a located error (run_rename.sh checks the lines). */
#ifndef MIGRATE_RENAME_BAD_H
#define MIGRATE_RENAME_BAD_H
#include <ddb/schema.h>

DDB_TABLE(fleet, "Fleet", DDB_PRIMARY("PK", "SK"), DDB_REMOVED("Notice", "delete"), DDB_REMOVED("Probe", "trash"));

struct DDB_ENTITY(fleet, "Notice") DDB_RENAMED_FROM("Notice")
       DDB_KEY("table", "NOTICE#{id}", "NOTICE")
notice {
    char id[16];
    char level[16] DDB_RENAMED_FROM("level");
};

struct DDB_ENTITY(fleet, "Memo") DDB_RENAMED_FROM("Notice")
       DDB_KEY("table", "MEMO#{id}", "MEMO")
memo {
    char id[16];
};
#endif
