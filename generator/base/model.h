/* model.h — ddbgen as a library (after flatcc: options -> context -> parse ->
 * validate (checks, then lowering) -> generate -> destroy).
 *
 *     ddbgen_options o;  ddbgen_options_init(&o);  o.include_dirs = ...;
 *     ddbgen_context *cx = ddbgen_create(&o);
 *     int rc = ddbgen_parse_file(cx, "schemas/shop.h");   // or a model .json
 *     if (rc == 0) rc = ddbgen_validate(cx);
 *     ddbgen_print_diagnostics(cx, stderr);                 // errors, warnings
 *     if (rc == 0) use(ddbgen_model(cx));                   // validated model
 *     ddbgen_destroy(cx);
 *
 * The model is a jansson document whose format is docs/MODEL.md
 * ("model_version": 1).  Both front-ends (libclang over a decorated header,
 * or a model JSON file) produce the same declared model; ddbgen_validate()
 * runs every schema rule on it without changing it (validate.c) and, when
 * they all pass, lowers it into the typed IR (lower.c, ir.h) that the
 * back-end renders (ddbgen_ir_of()) and that the model document with its
 * derived members (template segments, key types, shards, collections) is
 * written from (model_json.c).  All functions return DDBGEN_OK (0),
 * DDBGEN_ESCHEMA (1: problems were recorded as diagnostics) or DDBGEN_EUSAGE
 * (2: a file could not be read or written, bad options; also recorded as a
 * diagnostic) — the values are the CLI's exit statuses.
 */
#ifndef DDBGEN_MODEL_H
#define DDBGEN_MODEL_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DDBGEN_MODEL_VERSION 1

#define DDBGEN_OK 0
#define DDBGEN_ESCHEMA 1
#define DDBGEN_EUSAGE 2

typedef struct ddbgen_options {
    /* -I directories and -D NAME[=VALUE] definitions passed to libclang, in
     * order.  Borrowed: must stay valid until ddbgen_create() returns. */
    const char *const *include_dirs;
    size_t include_dir_count;
    const char *const *defines;
    size_t define_count;
    /* Directory holding ddb/schema.h; NULL = the build's runtime/include. */
    const char *runtime_include_dir;
} ddbgen_options;

typedef struct ddbgen_context ddbgen_context;

void ddbgen_options_init(ddbgen_options *opts);

/* A new context with a copy of opts; NULL when out of memory. */
ddbgen_context *ddbgen_create(const ddbgen_options *opts);
/* Frees the context, its model and its diagnostics.  NULL is a no-op. */
void ddbgen_destroy(ddbgen_context *cx);

/* Front-ends.  ddbgen_parse_file() picks one by the file name: "*.json" is
 * a model, anything else a C header.  A context holds one model: parsing
 * twice is a usage error.  Paths are recorded as given (see MODEL.md
 * "Paths").  DDBGEN_ESCHEMA with ddbgen_model() != NULL means a decorator
 * was rejected but the rest was read: call ddbgen_validate() anyway to get
 * every other diagnostic too (it will fail). */
int ddbgen_parse_file(ddbgen_context *cx, const char *path);
int ddbgen_parse_header(ddbgen_context *cx, const char *path);
int ddbgen_load_model(ddbgen_context *cx, const char *path);
/* The same, from a model already in memory (borrowed; copied). name is used
 * in diagnostics about the document's shape. */
int ddbgen_load_model_json(ddbgen_context *cx, json_t *doc, const char *name);

/* Checks the parsed model and lowers it (ir.h).  Returns DDBGEN_ESCHEMA if
 * any error was recorded (warnings do not fail); nothing is lowered then. */
int ddbgen_validate(ddbgen_context *cx);

/* The model: borrowed, valid until ddbgen_destroy(); NULL before a
 * successful parse.  The declared model until ddbgen_validate() returned 0,
 * then the complete document (declared and derived members) written from
 * the IR. */
json_t *ddbgen_model(const ddbgen_context *cx);

/* The input's base name without directory and extension ("shop" for
 * schemas/shop.h): the <schema> of <schema>_ddb.h.  Borrowed. */
const char *ddbgen_schema_base(const ddbgen_context *cx);

/* The canonical text of a model: 2-space indent, sorted keys, final
 * newline.  malloc'ed (caller frees); NULL when out of memory. */
char *ddbgen_model_to_string(const json_t *model);
/* Writes that text to path ("-" = stdout), only if it differs from what the
 * file holds already.  DDBGEN_EUSAGE (with a diagnostic) on I/O failure. */
int ddbgen_write_model(ddbgen_context *cx, const char *path);

/* Writes the schema's tables as infrastructure input (infra.h): format is
 * "cloudformation", "terraform", "create-table" or "update-time-to-live";
 * table (a table's name or C name, or NULL for all) picks one table, which
 * the AWS CLI's two formats need when the schema has several.  path "-" =
 * stdout.  DDBGEN_EUSAGE with a diagnostic on a bad choice or I/O failure. */
int ddbgen_write_infra(ddbgen_context *cx, const char *format, const char *table, const char *path);

/* Writes the schema as a NoSQL Workbench data model (JSON) to path ("-" =
 * stdout); tables with LSIs, which the model cannot hold, get a warning. */
int ddbgen_write_workbench(ddbgen_context *cx, const char *path);

/* Reads the NoSQL Workbench model at model_path and writes a draft schema
 * header to out_path ("-" = stdout).  DDBGEN_EUSAGE with diagnostics when
 * the file is unreadable or not a Workbench model. */
int ddbgen_import_workbench(ddbgen_context *cx, const char *model_path, const char *out_path);

/* The deployed model to use where an old model's path is NULL (ddbgen
 * --from-table: the model recorded in a table's migration history); doc
 * is copied, name says where it came from in messages. */
int ddbgen_use_deployed_model(ddbgen_context *cx, const json_t *doc, const char *name);
/* ddbgen_use_deployed_model with the schema model recorded in table's
 * migration history on the database at uri (libddb's ddb_open: a
 * directory, file:DIR, http(s)://, dynamodb://REGION).  DDBGEN_EUSAGE with
 * a diagnostic when it cannot be read (none recorded: how to record one). */
int ddbgen_deployed_from_table(ddbgen_context *cx, const char *uri, const char *table);

/* Compares the validated model of cx (the new schema) with old_model_path
 * (an earlier --emit-model; NULL: ddbgen_use_deployed_model's).  Breaking changes are recorded as errors at the
 * new schema's location, compatible ones as notes.  Returns DDBGEN_OK when
 * compatible, DDBGEN_ESCHEMA when breaking (or the old model is invalid),
 * DDBGEN_EUSAGE when it cannot be read. */
int ddbgen_check_compat(ddbgen_context *cx, const char *old_model_path);
/* The same; when it is breaking and plan_path (may be NULL) holds the
 * migration plan of exactly this change (--plan-migration's id), the
 * breaking changes are notes and the result DDBGEN_OK; with plan_path and
 * no such plan, one more error says how to write it. */
int ddbgen_check_compat_plan(ddbgen_context *cx, const char *old_model_path, const char *plan_path);

/* Writes to plan_path ("-" = stdout) the migration plan that takes the
 * stored items of old_model_path (an earlier --emit-model) to the
 * validated model of cx: per table the indexes to create and drop, per
 * entity every change and what it takes (none, rewrite, transform), as
 * JSON (docs/SCHEMA.md, "Changing a schema").  DDBGEN_ESCHEMA (with
 * located errors) for changes no migration handles. */
int ddbgen_plan_migration(ddbgen_context *cx, const char *old_model_path, const char *plan_path);
/* The same, back: the plan from this schema to the model at old_model_path
 * (--down), or "not reversible" errors. */
int ddbgen_plan_migration_down(ddbgen_context *cx, const char *old_model_path, const char *plan_path);

/* Diagnostics recorded so far, sorted by location. */
size_t ddbgen_error_count(const ddbgen_context *cx);
size_t ddbgen_warning_count(const ddbgen_context *cx);
void ddbgen_print_diagnostics(const ddbgen_context *cx, FILE *out);
/* Same text, malloc'ed (caller frees); NULL when out of memory. */
char *ddbgen_diagnostics_string(const ddbgen_context *cx);

#ifdef __cplusplus
}
#endif

#endif
