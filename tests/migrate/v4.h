/* Version 4: the partition key template lowercases the city, the score
 * becomes text (a field type change: a transform callback writes it), and
 * the by-name index GSI1 is dropped (the plan deletes it). */
#ifndef MIGRATE_V4_H
#define MIGRATE_V4_H
#include <ddb/schema.h>

#include "common.h"

DDB_TABLE(app, "AppMigrate", DDB_PRIMARY("PK", "SK"), DDB_GSI("ByZip", "ZipPK", "ZipSK"));

struct DDB_ENTITY(app, "Customer")
       DDB_KEY("table", "CITY#{home.city|lower}", "CUST#{id:08}")
       DDB_KEY("ByZip", "ZIP#{home.zip}", "CUST#{id:08}")
customer {
    int64_t id;
    char name[32];
    struct home home;
    char score[16];
    char *nickname;
};
#endif
