/* mustache.h — a small mustache(5) renderer over jansson values.
 *
 * Implements the official spec modules comments, delimiters, interpolation,
 * inverted, partials and sections (no lambdas: JSON has no functions). The
 * generator renders C code with it, so HTML escaping is an option.
 *
 * Semantics worth knowing (the spec leaves them to the host language):
 *  - Falsey: a missing name, JSON null, false, the empty array and the empty
 *    string. Everything else is truthy, including 0 and the empty object.
 *  - A section over an array renders once per element with the element pushed
 *    on the context stack; over any other truthy value it renders once with
 *    that value pushed (so {{.}} inside {{#name}} is the value itself).
 *  - Interpolation: strings verbatim, integers in decimal, reals in the
 *    shortest form that reads back to the same double ("1.21", "3"), true and
 *    false as "true"/"false", null and missing names as "", arrays and objects
 *    as compact JSON.
 *  - A standalone partial tag indents every non-empty line of the partial by
 *    the whitespace before the tag (the spec's rule; empty lines are left
 *    empty so generated code has no trailing blanks). Each template and
 *    partial starts with the default "{{ }}" delimiters.
 *  - The renderer keeps no global state; concurrent calls are safe as long as
 *    they do not share a partial loader that is itself unsafe.
 */
#ifndef DDBGEN_MUSTACHE_H
#define DDBGEN_MUSTACHE_H

#include <jansson.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Result codes (0 = ok, negative = error), stored in ddbgen_mustache_error.code. */
#define DDBGEN_MUSTACHE_OK               0
#define DDBGEN_MUSTACHE_ENOMEM          (-1)  /* allocation failed */
#define DDBGEN_MUSTACHE_EINVAL          (-2)  /* NULL template */
#define DDBGEN_MUSTACHE_EUNCLOSED_TAG   (-3)  /* "{{" without its closing delimiter */
#define DDBGEN_MUSTACHE_EUNCLOSED_SECTION (-4) /* {{#x}} / {{^x}} without {{/x}} */
#define DDBGEN_MUSTACHE_EMISMATCHED_CLOSE (-5) /* {{/y}} closing {{#x}}, or no open section */
#define DDBGEN_MUSTACHE_EBAD_DELIMITER  (-6)  /* malformed {{=a b=}} */
#define DDBGEN_MUSTACHE_EEMPTY_TAG      (-7)  /* tag without a name, e.g. {{}} or {{#}} */
#define DDBGEN_MUSTACHE_ENESTING        (-8)  /* sections nested deeper than DDBGEN_MUSTACHE_MAX_NESTING */
#define DDBGEN_MUSTACHE_EPARTIAL_DEPTH  (-9)  /* partials nested deeper than max_partial_depth */
#define DDBGEN_MUSTACHE_EMISSING_PARTIAL (-10) /* strict_partials and the loader returned NULL */
#define DDBGEN_MUSTACHE_EMISSING_VAR    (-11) /* strict_vars and an interpolated name is missing */

#define DDBGEN_MUSTACHE_MAX_NESTING 128          /* section nesting within one template */
#define DDBGEN_MUSTACHE_DEFAULT_PARTIAL_DEPTH 32 /* used when opts.max_partial_depth <= 0 */

/* Caller-owned error, filled on failure (like json_error_t): no heap is used
 * on the error path. line and column are 1-based (column counts bytes) and
 * point at the start of the offending tag in `source`, which is opts.name for
 * the top template or the partial's name for an error inside a partial.
 * Format for users as "source:line:column: error: text". */
typedef struct ddbgen_mustache_error {
  int code;
  int line;
  int column;
  char source[80];
  char text[160];
} ddbgen_mustache_error;

/* Partial loader: returns the source of partial `name` (NUL-terminated) or
 * NULL when there is none. The renderer only borrows the returned text; it
 * must stay valid until the render call that asked for it returns. */
typedef const char *(*ddbgen_mustache_partial_fn)(void *ud, const char *name);

typedef struct ddbgen_mustache_opts {
  int escape;                 /* nonzero: HTML-escape {{x}} as the spec says; 0: emit verbatim (C code) */
  ddbgen_mustache_partial_fn partial; /* may be NULL: every partial is missing */
  void *partial_ud;           /* passed to `partial` */
  int max_partial_depth;      /* <= 0: DDBGEN_MUSTACHE_DEFAULT_PARTIAL_DEPTH */
  int strict_partials;        /* nonzero: a missing partial is an error instead of "" */
  int strict_vars;            /* nonzero: interpolating a missing name is an error instead of "" */
  const char *name;           /* template name for error messages; NULL: "<template>" */
} ddbgen_mustache_opts;

/* Spec behaviour: escaping on, no partials, nothing strict. Note that a
 * zero-initialised ddbgen_mustache_opts has escaping off (the generator's case). */
#define DDBGEN_MUSTACHE_OPTS_INIT {1, NULL, NULL, 0, 0, 0, NULL}

/* Renders `tmpl` with `ctx` as the bottom of the context stack (any JSON
 * value; NULL behaves like an empty object). `opts` may be NULL for
 * DDBGEN_MUSTACHE_OPTS_INIT; `err` may be NULL.
 * Returns the output as a NUL-terminated string the caller frees with free(),
 * and stores its length (without the NUL) in *len_out when len_out is not NULL;
 * or returns NULL and fills *err with one of the DDBGEN_MUSTACHE_E* codes.
 * ctx is only read; no reference is taken or stolen. */
char *ddbgen_mustache_render_len(const char *tmpl, const json_t *ctx,
                                 const ddbgen_mustache_opts *opts,
                                 size_t *len_out, ddbgen_mustache_error *err);

/* ddbgen_mustache_render_len without the length. */
char *ddbgen_mustache_render(const char *tmpl, const json_t *ctx,
                             const ddbgen_mustache_opts *opts,
                             ddbgen_mustache_error *err);

/* Parses `tmpl` without rendering it (partials are not loaded), to report
 * syntax errors up front. Returns 0 or a DDBGEN_MUSTACHE_E* code and fills
 * *err (may be NULL). Only opts->name is used; opts may be NULL. */
int ddbgen_mustache_check(const char *tmpl, const ddbgen_mustache_opts *opts,
                          ddbgen_mustache_error *err);

/* A static English description of a DDBGEN_MUSTACHE_* code; never NULL. */
const char *ddbgen_mustache_strerror(int code);

#ifdef __cplusplus
}
#endif

#endif /* DDBGEN_MUSTACHE_H */
