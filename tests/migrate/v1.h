/* Migration test, version 1: customers keyed by city, found by name. */
#ifndef MIGRATE_V1_H
#define MIGRATE_V1_H
#include <ddb/schema.h>

#include "common.h"

DDB_TABLE(app, "AppMigrate", DDB_PRIMARY("PK", "SK"), DDB_GSI("GSI1", "GSI1PK", "GSI1SK"));

struct DDB_ENTITY(app, "Customer")
       DDB_KEY("table", "CITY#{home.city}", "CUST#{id:08}")
       DDB_KEY("GSI1", "NAME#{name}", "CUST#{id:08}")
customer {
    int64_t id;
    char name[32];
    struct home home;
    double score;
};
#endif
