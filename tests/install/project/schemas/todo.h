/* todo.h — one table, one entity: tasks grouped by list, sorted by id. */
#ifndef TODO_H
#define TODO_H

#include <ddb/schema.h>

DDB_TABLE(app, "App", DDB_PRIMARY("PK", "SK"));

struct DDB_ENTITY(app, "Task")
       DDB_KEY("table", "LIST#{list}", "TASK#{id:06}")
task {
    char list[32];
    int32_t id;
    char title[64];
    bool done;
};

#endif
