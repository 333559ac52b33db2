/* main.c — the module ddbgen generated from schemas/todo.h, on the
 * embedded engine: create the table, put, get, query. */
#include "todo_ddb.h"

#include <stdio.h>

int main(void)
{
    ddb *db;
    ddb_error err = {0};
    int rc = ddb_open("file:data", NULL, &db, &err);   /* the directory ./data */
    if (rc) {
        fprintf(stderr, "open: %s\n", err.message);
        return 1;
    }
    ddb_arena *a = ddb_arena_new();   /* owns whatever reads return */

    rc = app_create_table(db, &err);
    if (rc == DDB_EEXISTS)   /* second run */
        rc = 0;

    struct task tasks[] = {
        {.list = "home", .id = 1, .title = "water the plants"},
        {.list = "home", .id = 2, .title = "fix the bike", .done = true},
        {.list = "work", .id = 1, .title = "write the report"},
    };
    for (size_t i = 0; rc == 0 && i < sizeof tasks / sizeof *tasks; i++)
        rc = task_put(db, &tasks[i], NULL, NULL, &err);

    struct task t;
    if (rc == 0 && (rc = task_get(db, "home", 2, NULL, a, &t, &err)) == 0)
        printf("get: %s #%d %s%s\n", t.list, (int)t.id, t.title, t.done ? " (done)" : "");

    /* Every task of list "home", in id order, two at a time: the access
     * pattern of the primary key (task_table), the whole partition. */
    ddb_ent_read_opts q = {.page_size = 2};
    task_page page = {0};
    do {
        if (rc == 0 && (rc = task_table(db, "home", task_table_all(), &q, a, &page, &err)) == 0)
            for (size_t i = 0; i < page.count; i++)
                printf("query: %s #%d %s\n", page.items[i].list, (int)page.items[i].id, page.items[i].title);
        q.cursor = page.cursor;
    } while (rc == 0 && page.cursor);

    if (rc)
        fprintf(stderr, "%s: %s\n", ddb_strerror(rc), err.message);
    ddb_arena_free(a);
    ddb_close(db);
    return rc ? 1 : 0;
}
