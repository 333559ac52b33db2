/* diag.h — schema diagnostics: collected, sorted, printed all at once.
 *
 * Every problem found by a front-end, the validator or --check-compat is
 * added here with the source location it concerns; nothing is printed
 * until the caller asks, so the output is complete and in a stable order
 * (by file, line, column, then the order they were found).  A diagnostic
 * may carry notes ("... declared here") that are printed right after it.
 *
 * Format (sqlc / gcc style):
 *     file:line:col: error: message
 *     file: error: message          (no line known, e.g. a JSON model's shape)
 *     ddbgen: error: message        (no file at all)
 */
#ifndef DDBGEN_DIAG_H
#define DDBGEN_DIAG_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

typedef enum ddbgen_severity {
    DDBGEN_NOTE = 0,
    DDBGEN_WARNING = 1,
    DDBGEN_ERROR = 2
} ddbgen_severity;

/* A source position.  file is borrowed (it usually points into the model);
 * line/col are 1-based, 0 when unknown. */
typedef struct ddbgen_loc {
    const char *file;
    int line;
    int col;
} ddbgen_loc;

typedef struct ddbgen_diag ddbgen_diag;

typedef struct ddbgen_diags {
    ddbgen_diag *items; /* top-level diagnostics, in the order found */
    size_t count, cap;
    size_t errors, warnings, notes; /* top-level counts by severity */
} ddbgen_diags;

void ddbgen_diags_init(ddbgen_diags *d);
void ddbgen_diags_free(ddbgen_diags *d);

/* Adds a diagnostic; returns its handle for ddbgen_diag_note(), or -1 when
 * out of memory (the diagnostic is then lost, which is reported as one
 * "out of memory" error when printing).  Copies file and the message. */
long ddbgen_diag_add(ddbgen_diags *d, ddbgen_severity sev, ddbgen_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
long ddbgen_diag_vadd(ddbgen_diags *d, ddbgen_severity sev, ddbgen_loc loc, const char *fmt,
                      va_list ap) __attribute__((format(printf, 4, 0)));
/* Attaches a note to diagnostic `parent` (ignored when parent < 0). */
void ddbgen_diag_note(ddbgen_diags *d, long parent, ddbgen_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Turns every error of d into a note (changes a migration plan covers). */
void ddbgen_diags_demote(ddbgen_diags *d);

/* Copies src's diagnostics of at least severity min (with their notes) to dst. */
void ddbgen_diags_append(ddbgen_diags *dst, const ddbgen_diags *src, ddbgen_severity min);

/* Prints everything, sorted, to out. */
void ddbgen_diags_print(const ddbgen_diags *d, FILE *out);
/* The same text as a malloc'ed string (caller frees); NULL when out of memory. */
char *ddbgen_diags_string(const ddbgen_diags *d);

#endif
