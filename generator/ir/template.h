/* template.h — parsing key templates such as "ORG#{org}", "pr-{id:06}",
 * "{home.country|lower}#{date|year}" into literal and field segments.
 *
 * Grammar (docs/SCHEMA.md, "Key templates"):
 *   template := ( literal | "{{" | "}}" | hole )*
 *   hole     := "{" path [ ":0" DIGITS ] [ "|" filter ] "}"
 *   path     := ident ( "." ident )*        ident := [A-Za-z_][A-Za-z0-9_]*
 *   filter   := year | month | day | quarter | lower | upper
 * "{{" and "}}" are literal braces; a lone "}" is an error.
 *
 * The parser knows nothing about fields: resolving paths and checking types
 * is validate.c's job.  Offsets are byte offsets into the template text so
 * diagnostics can point at the exact hole.
 */
#ifndef DDBGEN_TEMPLATE_H
#define DDBGEN_TEMPLATE_H

#include <stddef.h>

typedef enum ddbgen_tmpl_part {
    DDBGEN_PART_NONE = 0,
    DDBGEN_PART_YEAR,
    DDBGEN_PART_MONTH,
    DDBGEN_PART_DAY,
    DDBGEN_PART_QUARTER
} ddbgen_tmpl_part;

typedef enum ddbgen_tmpl_case {
    DDBGEN_CASE_NONE = 0,
    DDBGEN_CASE_LOWER,
    DDBGEN_CASE_UPPER
} ddbgen_tmpl_case;

typedef struct ddbgen_tmpl_seg {
    int is_field;            /* 0: literal text, 1: a {hole} */
    char *text;              /* literal (braces unescaped) or the path "a.b" */
    size_t offset;           /* byte offset of the segment in the template */
    int pad;                 /* {f:0N}: N; 0 = no padding */
    ddbgen_tmpl_part part;   /* {f|year} ... */
    ddbgen_tmpl_case kase;   /* {f|lower} / {f|upper} */
} ddbgen_tmpl_seg;

typedef struct ddbgen_tmpl {
    ddbgen_tmpl_seg *segs;
    size_t count;
    size_t fields; /* number of holes */
} ddbgen_tmpl;

typedef struct ddbgen_tmpl_error {
    size_t offset;     /* where in the template */
    char message[128]; /* what is wrong, e.g. "unknown format ':6'" */
    char hint[128];    /* how to fix it, or "" */
} ddbgen_tmpl_error;

/* Parses text into *out (caller frees with ddbgen_tmpl_free, also after an
 * error).  Returns 0, or -1 with *err filled (out of memory is reported the
 * same way, with message "out of memory"). */
int ddbgen_tmpl_parse(const char *text, ddbgen_tmpl *out, ddbgen_tmpl_error *err);
void ddbgen_tmpl_free(ddbgen_tmpl *t);

/* Names used in the model and in messages: "year", "lower", ... ("" for none). */
const char *ddbgen_tmpl_part_name(ddbgen_tmpl_part p);
const char *ddbgen_tmpl_case_name(ddbgen_tmpl_case c);

#endif
