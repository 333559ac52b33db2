/* internal.h — what the library's files share; not part of the API. */
#ifndef DDBGEN_INTERNAL_H
#define DDBGEN_INTERNAL_H

#include "diag.h"
#include "ir.h"
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
    ddbgen_ir *ir;       /* owned; the lowered model once validated */
    ddbgen_diags diags;
    json_t *deployed;    /* owned; the deployed model read from a table (--from-table), or NULL */
    char *deployed_name; /* how messages name it */
};

/* Front-ends: fill cx->model with the declared model, or record diagnostics. */
int ddbgen__parse_clang(ddbgen_context *cx, const char *path);
int ddbgen__load_json(ddbgen_context *cx, json_t *doc, const char *name, json_t **out);

/* validate.c: checks the declared model (not modified) and records every
 * problem in d. */
int ddbgen__validate(const json_t *model, ddbgen_diags *d);

/* heat.c: warnings about partition keys that can take only few values
 * (model: the checked private copy of validate.c, templates resolved). */
void ddbgen__heat(const json_t *model, ddbgen_diags *d);

/* collision.c: 1 when primary keys ka and kb (resolved key objects) can
 * render the same PK and SK; sfx_a/sfx_b are appended to the sort keys
 * (a shard item's suffix, or ""). */
int ddbgen__keys_may_collide(const json_t *ka, const char *sfx_a, const json_t *kb, const char *sfx_b);

/* collision.c: 1 when primary key ka of entity a and kb of entity b (resolved
 * key objects) may collide on some pair of their items (shard items
 * included); *sfx_a / *sfx_b (malloc'ed) then say which. */
int ddbgen__find_collision(const json_t *a, const json_t *ka, const json_t *b, const json_t *kb, char **sfx_a,
                           char **sfx_b);

/* compat.c: old and new are model documents (ddbgen__model_json). */
int ddbgen__compat(json_t *old_model, json_t *new_model, const char *old_name, ddbgen_diags *d);

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

/* renames.c: the entity of new_model DDB_RENAMED_FROM(old_name), or NULL. */
const json_t *ddbgen__entity_renamed_to(const json_t *new_model, const char *old_name);
/* renames.c: the DDB_REMOVED(old_name, ...) entry ({"entity", "items":
 * "delete"|"keep"}) of new_model's table named table_name, or NULL. */
const json_t *ddbgen__entity_removal(const json_t *new_model, const char *table_name, const char *old_name);
/* renames.c: the field of old_fields that new_field is DDB_RENAMED_FROM, or NULL. */
const json_t *ddbgen__field_renamed_from(const json_t *old_fields, const json_t *new_field);
/* renames.c: located errors for bad uses of DDB_RENAMED_FROM and DDB_REMOVED. */
void ddbgen__check_renames(const json_t *model, ddbgen_diags *d);

/* compat.c: key template t of entity as text with attribute names
 * ("ORG#{org}/USER#{username:06}"), appended to b. */
void ddbgen__template_text(ddbgen_buf *b, const json_t *model, const json_t *entity, const json_t *t);

/* migrate_plan.c: the migration plan from old_model to new_model (model
 * documents) into *out; DDBGEN_ESCHEMA (errors in d) for changes no
 * migration handles. */
int ddbgen__migration_plan(const json_t *old_model, const json_t *new_model, json_t **out, ddbgen_diags *d);
/* migrate_down.c: the plan from new_model back to old_model into *out, or
 * DDBGEN_ESCHEMA with a located "not reversible" error per reason. */
int ddbgen__migration_down(const json_t *old_model, const json_t *new_model, json_t **out, ddbgen_diags *d);

/* old_forms.c: the deployed model (a model document) as a declared model
 * of its old forms: tables, structs and entities with C names
 * "<cname>" DDBGEN_OLD_SUFFIX, the same stored names, field types that need
 * no header; no declared reads or writes.  NULL when out of memory. */
#define DDBGEN_OLD_SUFFIX "_old"
json_t *ddbgen__old_forms(const json_t *deployed);

#endif
