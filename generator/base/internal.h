/* internal.h — base/: what every stage of the generator shares (room
 * header; not part of the API): diagnostics (diag.h), the library's API
 * types (model.h), the context behind ddbgen_context, and small helpers
 * over jansson, paths and strings (jsonutil.c).  Each stage has a room of
 * its own with its header: front/front.h, ir/ir.h, decl/decl.h,
 * check/check.h, plan/plan.h, render/render.h, main/library.h
 * (docs/ARCHITECTURE.md).  The room calls only jansson and libc; every
 * room may call it. */
#ifndef DDBGEN_INTERNAL_H
#define DDBGEN_INTERNAL_H

#include "diag.h"
#include "model.h"

#include <jansson.h>

struct ddbgen_context {
    char **include_dirs;
    size_t include_dir_count;
    char **defines;
    size_t define_count;
    char *runtime_include_dir;
    json_t *model;       /* owned; the declared model; NULL before a parse */
    json_t *checked;     /* owned; the model file's document, written from ir */
    char *schema_base;   /* "shop" */
    int validated;
    struct ddbgen_ir *ir; /* owned; the lowered model once validated (ir.h) */
    ddbgen_diags diags;
};

/* ---- jsonutil.c ---- */

/* {"file": file, "line": line, "col": col} */
json_t *ddbgen_jloc(const char *file, int line, int col);
/* A location object read back ({file:NULL} when malformed). */
ddbgen_loc ddbgen_loc_from(const json_t *loc);
/* obj[key] read as a location ({file:NULL} when absent or malformed). */
ddbgen_loc ddbgen_loc_of(const json_t *obj, const char *key);
/* obj[key] as a string, or NULL. */
const char *ddbgen_jstr(const json_t *obj, const char *key);
/* obj[key] as an integer, or dflt. */
long long ddbgen_jint(const json_t *obj, const char *key, long long dflt);
/* obj[key] is JSON true. */
int ddbgen_jtrue(const json_t *obj, const char *key);
/* The element of array arr whose member key equals value, or NULL. */
json_t *ddbgen_jfind(const json_t *arr, const char *key, const char *value);
/* doc as json_dumps(doc, flags) writes it, with a final newline.
 * malloc'ed; NULL when out of memory. */
char *ddbgen_json_text(const json_t *doc, size_t flags);

/* A path as the model records it: relative paths unchanged, absolute ones
 * below the working directory made relative to it.  malloc'ed. */
char *ddbgen_display_path(const char *path);
/* Base name without directory and extension ("schemas/shop.h" -> "shop"). */
char *ddbgen_base_name(const char *path);

/* A small growable string. */
typedef struct ddbgen_buf {
    char *data;
    size_t len, cap;
    int oom;
} ddbgen_buf;
void ddbgen_buf_add(ddbgen_buf *b, const char *s, size_t n);
void ddbgen_buf_puts(ddbgen_buf *b, const char *s);
void ddbgen_buf_printf(ddbgen_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The text so far ("" when empty); stays owned by b. */
const char *ddbgen_buf_str(ddbgen_buf *b);
void ddbgen_buf_free(ddbgen_buf *b);

#endif
