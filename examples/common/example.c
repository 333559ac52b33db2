/* Helpers shared by the example programs (see example.h). */
#include "example.h"

#include <stdarg.h>
#include <stdbool.h>
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
    bool remote = strstr(opened_dir, "://") != NULL; /* http://host:port, https://..., dynamodb://region */
    snprintf(uri, sizeof uri, "%s%s", remote ? "" : "file:", opened_dir);
    ex_check(ddb_open(uri, opts, &db, &err), &err, "open the database");
    printf("Database: %s (%s)\n\n", opened_dir, remote ? "remote backend" : "embedded engine");
    for (size_t i = 0; i < n_tables; i++) {
        /* a schema's DDB_DELETION_PROTECTION protects the table a previous
         * run left: the example turns it off to start afresh */
        if (tables[i]->def.deletion_protection)
            ddb_update_table(db, tables[i]->def.name,
                             &(ddb_table_update){.set_deletion_protection = true, .deletion_protection = false}, &err);
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

void ex_print_item(const ddb_item *it)
{
    const ddb_value *m = ddb_item_map(it);
    for (uint32_t i = 0; i < m->len; i++) {
        const ddb_value *v = m->u.m[i].value;
        printf("    %-11s %-2s %s\n", m->u.m[i].name, ddb_type_name(v->type),
               v->type == DDB_TS || v->type == DDB_TN ? v->u.s : "...");
    }
}

/* Append to buf (EX_COST_SIZE bytes), never past its end. */
static void append(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void append(char *buf, const char *fmt, ...)
{
    size_t n = strlen(buf);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + n, EX_COST_SIZE - n, fmt, ap);
    va_end(ap);
}

const char *ex_cost(const ddb_capacity *c, char *buf)
{
    buf[0] = '\0';
    if (c->read > 0 || c->write == 0)
        append(buf, "%g RCU", c->read);
    if (c->write > 0)
        append(buf, "%s%g WCU", buf[0] ? " + " : "", c->write);
    if (c->n_indexes == 0)
        return buf;
    append(buf, " (table %g", c->table_read + c->table_write);
    for (size_t i = 0; i < c->n_indexes; i++)
        append(buf, ", %s %g", c->indexes[i].name, c->indexes[i].read + c->indexes[i].write);
    append(buf, ")");
    return buf;
}
