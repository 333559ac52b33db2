/* Helpers shared by the example programs (see example.h). */
#include "example.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const ddb_ent_opts ex_total = {.return_capacity = DDB_CAPACITY_TOTAL};
const ddb_ent_opts ex_indexes = {.return_capacity = DDB_CAPACITY_INDEXES};

static const char *opened_dir;

void ex_check(int rc, const ddb_error *err, const char *what)
{
    if (!rc)
        return;
    fprintf(stderr, "error: %s\n  %s: %s\n", what, ddb_strerror(rc), err && err->message[0] ? err->message : "");
    exit(1);
}

ddb *ex_open(int argc, char **argv, const char *default_dir, const ddb_options *opts,
             const ddb_schema_table *const *tables, size_t n_tables)
{
    opened_dir = argc > 1 ? argv[1] : default_dir;
    ddb *db;
    ddb_error err = {0};
    char uri[4096];
    snprintf(uri, sizeof uri, "file:%s", opened_dir);
    ex_check(ddb_open(uri, opts, &db, &err), &err, "open the database");
    printf("Database: %s (embedded engine)\n\n", opened_dir);
    for (size_t i = 0; i < n_tables; i++) {
        int rc = ddb_delete_table(db, tables[i]->def.name, &err);
        if (rc != DDB_ENOTABLE)
            ex_check(rc, &err, "drop the table a previous run left");
    }
    return db;
}

const char *ex_dir(void)
{
    return opened_dir;
}

static size_t put_units(char *buf, size_t at, double units, const char *kind)
{
    return at + (size_t)snprintf(buf + at, 256 - at, "%s%g %s", at ? " + " : "", units, kind);
}

const char *ex_cost(const ddb_capacity *c, char *buf)
{
    size_t n = 0;
    buf[0] = '\0';
    if (c->read > 0 || c->write == 0)
        n = put_units(buf, n, c->read, "RCU");
    if (c->write > 0)
        n = put_units(buf, n, c->write, "WCU");
    if (c->n_indexes == 0)
        return buf;
    n += (size_t)snprintf(buf + n, 256 - n, " (table %g", c->table_read + c->table_write);
    for (size_t i = 0; i < c->n_indexes && n < 256; i++)
        n += (size_t)snprintf(buf + n, 256 - n, ", %s %g", c->indexes[i].name,
                              c->indexes[i].read + c->indexes[i].write);
    if (n < 256)
        snprintf(buf + n, 256 - n, ")");
    return buf;
}
