/* example.h — the few lines every example program shares: open its
 * database, stop on the first error, and say what a call cost. */
#ifndef DDB_EXAMPLE_H
#define DDB_EXAMPLE_H

#include <ddb/ddb.h>
#include <ddb/entity.h>

/* Open the embedded database in argv[1] (or, when argv[1] is a URI such as
 * http://127.0.0.1:8000, that endpoint through the remote backend), or
 * default_dir when no argument is given (the build tree's default, compiled
 * in), print where it is,
 * and drop the given tables when a previous run left them, so that every
 * run starts without them and prints the same thing.  Exits on error. */
ddb *ex_open(int argc, char **argv, const char *default_dir, const ddb_options *opts,
             const ddb_schema_table *const *tables, size_t n_tables);

/* The directory ex_open opened (for files the example keeps next to it). */
const char *ex_dir(void);

/* Stop the program when rc is an error: prints what failed and why. */
void ex_check(int rc, const ddb_error *err, const char *what);
#define EX_CHECK(call) ex_check((call), &err, #call)

/* "1 WCU", "0.5 RCU", "2 RCU + 1 WCU": what c consumed.  With
 * DDB_CAPACITY_INDEXES the table and each index are listed:
 * "3 WCU (table 1, History 1, Report 1)".  Written into buf (at least
 * EX_COST_SIZE bytes; longer text is cut), which is returned. */
#define EX_COST_SIZE 256
const char *ex_cost(const ddb_capacity *c, char *buf);

/* Print an item one attribute a line: name, type, value (S and N). */
void ex_print_item(const ddb_item *it);

/* Capacity options for calls that report what they consumed. */
extern const ddb_ent_opts ex_total;   /* DDB_CAPACITY_TOTAL */
extern const ddb_ent_opts ex_indexes; /* DDB_CAPACITY_INDEXES */

/* Read options (a pointer to them) of a typed read that reports what it
 * consumed in *cap (DDB_CAPACITY_TOTAL). */
#define EX_READS(cap) (&(ddb_ent_read_opts){.return_capacity = DDB_CAPACITY_TOTAL, .capacity = (cap)})

#endif
