/* widgets.h — the small schema of ddb-bench-gen's put/get comparison: one
 * entity of 7 fields with a primary key and a GSI key, as an application's
 * typical entity.  The hand-built side (bench_gen.c) writes the very same
 * item with ddb_put_item. */
#ifndef WIDGETS_H
#define WIDGETS_H

#include <ddb/schema.h>

DDB_TABLE(widgets, "Widgets",
          DDB_PRIMARY("PK", "SK"),
          DDB_GSI("GSI1", "GSI1PK", "GSI1SK"));

struct DDB_ENTITY(widgets, "Widget")
       DDB_KEY("table", "WIDGET#{id}", "META")
       DDB_KEY("GSI1", "OWNER#{owner}", "{created:020}")
widget {
    char id[24];
    char owner[24];
    char name[64];
    int32_t qty;
    double price;
    bool active;
    int64_t created;
};

#endif
