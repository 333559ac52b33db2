/* The import command's parts: reading items from the input and the
 * default mode (cmd_import.c), the all-or-nothing mode (import_atomic.c). */
#ifndef DDB_IMPORT_H
#define DDB_IMPORT_H

#include "cli.h"

typedef struct import_src {
    cli *c;
    const ddb_table_desc *d;
    line_reader lr;
    unsigned long from; /* --resume: the first line to import (1 = all) */
    /* after import_next returned -1: the line at fault (0 when the input
     * could not be read after line lr.no) and the message to print */
    unsigned long bad;
    char msg[1024];
} import_src;

/* The next item (arena a) with lr.no its line; blank lines and the lines
 * before from are skipped.  1 an item, 0 the end, -1 a bad line or an
 * unreadable input (bad, msg). */
int import_next(import_src *s, ddb_arena *a, ddb_item **it);
/* Set s->msg to "FILE:LINE: ..." and s->bad to line; returns -1. */
int import_fail(import_src *s, unsigned long line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The table key of an item (arena a); NULL when out of memory. */
ddb_item *import_key(const ddb_table_desc *d, ddb_arena *a, const ddb_item *it);
bool import_same_key(const ddb_table_desc *d, const ddb_item *x, const ddb_item *y);

/* --atomic: every line is checked before the first write, then items are
 * written in transactions; a failure rolls back what was written.  Prints
 * its errors; 0 or 1. */
int import_atomic(import_src *s);

#endif
