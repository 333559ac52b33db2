/* context.c — the library's life cycle: options, context, front-end
 * dispatch, validation, model output (see model.h). */
#include "library.h"

#include "check.h"
#include "decl.h"
#include "front.h"
#include "generated_names.h"
#include "internal.h"
#include "plan.h"
#include "render.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const ddbgen_loc no_loc = {NULL, 0, 0};

void ddbgen_options_init(ddbgen_options *opts) { memset(opts, 0, sizeof *opts); }

static char **copy_strings(const char *const *src, size_t n, int *oom)
{
    if (n == 0)
        return NULL;
    char **dst = calloc(n, sizeof *dst);
    if (!dst) {
        *oom = 1;
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        if (!(dst[i] = strdup(src[i])))
            *oom = 1;
    return dst;
}

static void free_strings(char **s, size_t n)
{
    for (size_t i = 0; s && i < n; i++)
        free(s[i]);
    free(s);
}

ddbgen_context *ddbgen_create(const ddbgen_options *opts)
{
    ddbgen_context *cx = calloc(1, sizeof *cx);
    if (!cx)
        return NULL;
    ddbgen_diags_init(&cx->diags);
    if (!opts)
        return cx;
    int oom = 0;
    cx->include_dirs = copy_strings(opts->include_dirs, opts->include_dir_count, &oom);
    cx->include_dir_count = opts->include_dir_count;
    cx->defines = copy_strings(opts->defines, opts->define_count, &oom);
    cx->define_count = opts->define_count;
    if (opts->runtime_include_dir && !(cx->runtime_include_dir = strdup(opts->runtime_include_dir)))
        oom = 1;
    if (oom) {
        ddbgen_destroy(cx);
        return NULL;
    }
    return cx;
}

void ddbgen_destroy(ddbgen_context *cx)
{
    if (!cx)
        return;
    free_strings(cx->include_dirs, cx->include_dir_count);
    free_strings(cx->defines, cx->define_count);
    free(cx->runtime_include_dir);
    json_decref(cx->model);
    json_decref(cx->checked);
    ddbgen_ir_free(cx->ir);
    free(cx->schema_base);
    ddbgen_diags_free(&cx->diags);
    free(cx);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

static int start_parse(ddbgen_context *cx, const char *path)
{
    if (cx->model) {
        ddbgen_diag_add(&cx->diags, DDBGEN_ERROR, no_loc,
                        "a context parses one schema; '%s' comes after another", path);
        return DDBGEN_EUSAGE;
    }
    free(cx->schema_base);
    cx->schema_base = ddbgen_base_name(path);
    return DDBGEN_OK;
}

int ddbgen_parse_file(ddbgen_context *cx, const char *path)
{
    return ends_with(path, ".json") ? ddbgen_load_model(cx, path) : ddbgen_parse_header(cx, path);
}

int ddbgen_parse_header(ddbgen_context *cx, const char *path)
{
    int rc = start_parse(cx, path);
    return rc ? rc : ddbgen__parse_clang(cx, path);
}

/* Reads a JSON file; jansson's syntax errors become diagnostics at their line. */
static json_t *read_json(ddbgen_diags *d, const char *path, int *rc)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        ddbgen_diag_add(d, DDBGEN_ERROR, no_loc, "cannot read '%s': %s", path, strerror(errno));
        *rc = DDBGEN_EUSAGE;
        return NULL;
    }
    json_error_t je;
    json_t *doc = json_loadf(f, JSON_REJECT_DUPLICATES, &je);
    fclose(f);
    if (!doc) {
        char *shown = ddbgen_display_path(path);
        ddbgen_loc l = {shown, je.line > 0 ? je.line : 0, je.column > 0 ? je.column : 1};
        ddbgen_diag_add(d, DDBGEN_ERROR, l, "invalid JSON: %s", je.text);
        free(shown);
        *rc = DDBGEN_ESCHEMA;
    }
    return doc;
}

int ddbgen_load_model(ddbgen_context *cx, const char *path)
{
    int rc = start_parse(cx, path);
    if (rc)
        return rc;
    json_t *doc = read_json(&cx->diags, path, &rc);
    if (!doc)
        return rc;
    char *shown = ddbgen_display_path(path);
    rc = ddbgen__load_json(cx, doc, shown, &cx->model);
    free(shown);
    json_decref(doc);
    return rc;
}

int ddbgen_load_model_json(ddbgen_context *cx, json_t *doc, const char *name)
{
    int rc = start_parse(cx, name);
    return rc ? rc : ddbgen__load_json(cx, doc, name, &cx->model);
}

/* The lowering of a checked declared model with its declared writes, and
 * the model document written from it; -1 when out of memory. */
static int lower(const json_t *declared, ddbgen_ir **ir, json_t **doc)
{
    *ir = ddbgen__lower(declared);
    *doc = *ir && ddbgen__lower_writes(*ir, declared) == 0 ? ddbgen__model_json(*ir, declared) : NULL;
    if (*doc)
        return 0;
    ddbgen_ir_free(*ir);
    *ir = NULL;
    return -1;
}

/* The checks of reads.c need the lowered keys, and the module-wide name
 * check (generated_names.c) the reads; on failure nothing stays lowered. */
static int lower_reads(ddbgen_context *cx)
{
    int rc = ddbgen__lower_reads(cx->ir, cx->model, &cx->diags);
    if (rc != DDBGEN_EUSAGE) {
        size_t errors = cx->diags.errors;
        ddbgen__check_generated_names(cx->ir, cx->model, cx->schema_base, &cx->diags);
        if (cx->diags.errors > errors)
            rc = DDBGEN_ESCHEMA;
    }
    if (rc) {
        ddbgen_ir_free(cx->ir);
        json_decref(cx->checked);
        cx->ir = NULL;
        cx->checked = NULL;
    }
    return rc;
}

int ddbgen_validate(ddbgen_context *cx)
{
    if (!cx->model) {
        ddbgen_diag_add(&cx->diags, DDBGEN_ERROR, no_loc, "nothing to validate: no schema parsed");
        return DDBGEN_EUSAGE;
    }
    int rc = ddbgen__validate(cx->model, &cx->diags);
    if (cx->diags.errors)
        rc = DDBGEN_ESCHEMA; /* including what the front-end reported */
    if (rc == DDBGEN_OK && !cx->ir) {
        if (lower(cx->model, &cx->ir, &cx->checked) != 0) {
            ddbgen_diag_add(&cx->diags, DDBGEN_ERROR, no_loc, "out of memory");
            rc = DDBGEN_EUSAGE;
        } else {
            rc = lower_reads(cx);
        }
    }
    cx->validated = rc == DDBGEN_OK;
    return rc;
}

json_t *ddbgen_model(const ddbgen_context *cx) { return cx->validated ? cx->checked : cx->model; }

const ddbgen_ir *ddbgen_ir_of(const ddbgen_context *cx) { return cx->validated ? cx->ir : NULL; }

const char *ddbgen_schema_base(const ddbgen_context *cx) { return cx->schema_base; }

/* 1 when path holds exactly text. */
static int same_content(const char *path, const char *text)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    size_t n = strlen(text), i = 0;
    int c, same = 1;
    while (same && (c = fgetc(f)) != EOF)
        same = i < n && (unsigned char)text[i++] == c;
    fclose(f);
    return same && i == n;
}

/* Writes text to path ("-" = stdout), only if the file holds something else. */
static int write_text(ddbgen_context *cx, const char *path, const char *text)
{
    int rc = DDBGEN_OK;
    if (!strcmp(path, "-")) {
        if (fputs(text, stdout) == EOF || fflush(stdout) != 0)
            rc = DDBGEN_EUSAGE;
    } else if (!same_content(path, text)) {
        FILE *f = fopen(path, "wb");
        if (!f || fputs(text, f) == EOF) {
            ddbgen_diag_add(&cx->diags, DDBGEN_ERROR, no_loc, "cannot write '%s': %s", path,
                            strerror(errno));
            rc = DDBGEN_EUSAGE;
        }
        if (f && fclose(f) != 0 && rc == DDBGEN_OK) {
            ddbgen_diag_add(&cx->diags, DDBGEN_ERROR, no_loc, "cannot write '%s': %s", path,
                            strerror(errno));
            rc = DDBGEN_EUSAGE;
        }
    }
    return rc;
}

int ddbgen_write_model(ddbgen_context *cx, const char *path)
{
    if (!cx->model || !cx->validated) {
        ddbgen_diag_add(&cx->diags, DDBGEN_ERROR, no_loc, "no validated model to write");
        return DDBGEN_EUSAGE;
    }
    char *text = ddbgen_model_to_string(cx->checked);
    if (!text) {
        ddbgen_diag_add(&cx->diags, DDBGEN_ERROR, no_loc, "out of memory");
        return DDBGEN_EUSAGE;
    }
    int rc = write_text(cx, path, text);
    free(text);
    return rc;
}

int ddbgen_write_infra(ddbgen_context *cx, const char *format, const char *table, const char *path)
{
    const ddbgen_ir *ir = ddbgen_ir_of(cx);
    if (!ir) {
        ddbgen_diag_add(&cx->diags, DDBGEN_ERROR, no_loc, "no validated model to write");
        return DDBGEN_EUSAGE;
    }
    if (!ddbgen__infra_format_known(format)) {
        ddbgen_diag_add(&cx->diags, DDBGEN_ERROR, no_loc,
                        "--emit-infra: unknown format '%s'; use cloudformation, terraform, create-table or "
                        "update-time-to-live",
                        format);
        return DDBGEN_EUSAGE;
    }
    const ddbgen_ir_table *only = NULL;
    for (size_t i = 0; table && i < ir->n_tables; i++)
        if (!strcmp(ir->tables[i].name, table) || !strcmp(ir->tables[i].cname, table))
            only = &ir->tables[i];
    if (table && !only) {
        ddbgen_buf names = {0};
        for (size_t i = 0; i < ir->n_tables; i++)
            ddbgen_buf_printf(&names, "%s'%s'", i ? ", " : "", ir->tables[i].name);
        ddbgen_diag_add(&cx->diags, DDBGEN_ERROR, no_loc, "--infra-table: the schema has no table '%s' (it has %s)",
                        table, ddbgen_buf_str(&names));
        ddbgen_buf_free(&names);
        return DDBGEN_EUSAGE;
    }
    const char *why = NULL;
    char *text = ddbgen__infra_text(ir, format, only, &why);
    if (!text) {
        ddbgen_diag_add(&cx->diags, DDBGEN_ERROR, no_loc, "--emit-infra %s: %s", format, why ? why : "out of memory");
        return DDBGEN_EUSAGE;
    }
    int rc = write_text(cx, path, text);
    free(text);
    return rc;
}

int ddbgen_write_workbench(ddbgen_context *cx, const char *path)
{
    const ddbgen_ir *ir = ddbgen_ir_of(cx);
    if (!ir) {
        ddbgen_diag_add(&cx->diags, DDBGEN_ERROR, no_loc, "no validated model to write");
        return DDBGEN_EUSAGE;
    }
    char *text = ddbgen__workbench_text(ir, ddbgen_schema_base(cx), stderr);
    ddbgen_buf b = {0};
    ddbgen_buf_puts(&b, text ? text : "");
    ddbgen_buf_puts(&b, "\n");
    free(text);
    int rc = text && !b.oom ? write_text(cx, path, ddbgen_buf_str(&b)) : DDBGEN_EUSAGE;
    if (!text || b.oom)
        ddbgen_diag_add(&cx->diags, DDBGEN_ERROR, no_loc, "out of memory");
    ddbgen_buf_free(&b);
    return rc;
}

int ddbgen_import_workbench(ddbgen_context *cx, const char *model_path, const char *out_path)
{
    int rc = DDBGEN_OK;
    json_t *doc = read_json(&cx->diags, model_path, &rc);
    if (!doc)
        return rc ? rc : DDBGEN_EUSAGE;
    char *shown = ddbgen_display_path(model_path);
    ddbgen_buf why = {0};
    char *text = ddbgen__workbench_draft(doc, shown ? shown : model_path, &why);
    json_decref(doc);
    if (!text) {
        ddbgen_loc l = {shown, 0, 0};
        const char *w = why.len ? ddbgen_buf_str(&why) : "out of memory\n";
        for (const char *line = w; *line;) {
            size_t n = strcspn(line, "\n");
            ddbgen_diag_add(&cx->diags, DDBGEN_ERROR, l, "%.*s", (int)n, line);
            line += n + (line[n] == '\n');
        }
        rc = DDBGEN_EUSAGE;
    } else
        rc = write_text(cx, out_path, text);
    ddbgen_buf_free(&why);
    free(text);
    free(shown);
    return rc;
}

/* The old model of old_model_path, validated and lowered: *old_doc is its
 * model document (owned by the caller), *shown its name for messages. */
static int load_old(ddbgen_context *cx, const char *old_model_path, json_t **old_doc, char **shown)
{
    *old_doc = NULL;
    *shown = NULL;
    if (!cx->model || !cx->validated) {
        ddbgen_diag_add(&cx->diags, DDBGEN_ERROR, no_loc, "no validated model to compare");
        return DDBGEN_EUSAGE;
    }
    int rc = DDBGEN_OK;
    json_t *doc = read_json(&cx->diags, old_model_path, &rc);
    if (!doc)
        return rc;
    *shown = ddbgen_display_path(old_model_path);
    json_t *old = NULL;
    rc = ddbgen__load_json(cx, doc, *shown, &old);
    json_decref(doc);
    if (rc == DDBGEN_OK) {
        /* The old model's own warnings are history; only its errors matter. */
        ddbgen_diags od;
        ddbgen_diags_init(&od);
        rc = ddbgen__validate(old, &od);
        if (rc != DDBGEN_OK) {
            ddbgen_loc l = {*shown, 0, 0};
            ddbgen_diag_add(&cx->diags, DDBGEN_ERROR, l,
                            "the old model does not validate; write it again with --emit-model "
                            "from the old schema");
            ddbgen_diags_append(&cx->diags, &od, DDBGEN_ERROR);
        }
        ddbgen_diags_free(&od);
    }
    ddbgen_ir *old_ir = NULL;
    if (rc == DDBGEN_OK && lower(old, &old_ir, old_doc) != 0) {
        ddbgen_diag_add(&cx->diags, DDBGEN_ERROR, no_loc, "out of memory");
        rc = DDBGEN_EUSAGE;
    }
    ddbgen_ir_free(old_ir);
    json_decref(old);
    return rc;
}

int ddbgen_check_compat(ddbgen_context *cx, const char *old_model_path)
{
    return ddbgen_check_compat_plan(cx, old_model_path, NULL);
}

/* Does the plan at plan_path take old_doc to the new model? */
static int plan_covers(ddbgen_context *cx, const json_t *old_doc, const char *plan_path, const char **id)
{
    int rc = DDBGEN_OK;
    json_t *given = read_json(&cx->diags, plan_path, &rc), *want = NULL;
    ddbgen_diags scratch;
    ddbgen_diags_init(&scratch);
    int covers = given && ddbgen__migration_plan(old_doc, cx->checked, &want, &scratch) == DDBGEN_OK &&
                 json_equal(json_object_get(given, "id"), json_object_get(want, "id"));
    static char idbuf[64];
    snprintf(idbuf, sizeof idbuf, "%s", covers ? ddbgen_jstr(want, "id") : "");
    *id = idbuf;
    ddbgen_diags_free(&scratch);
    json_decref(given);
    json_decref(want);
    return covers;
}

int ddbgen_check_compat_plan(ddbgen_context *cx, const char *old_model_path, const char *plan_path)
{
    json_t *old_doc;
    char *shown;
    int rc = load_old(cx, old_model_path, &old_doc, &shown);
    if (rc == DDBGEN_OK) {
        ddbgen_diags found;
        ddbgen_diags_init(&found);
        rc = ddbgen__compat(old_doc, cx->checked, shown, &found);
        const char *id;
        if (rc == DDBGEN_ESCHEMA && plan_path && plan_covers(cx, old_doc, plan_path, &id)) {
            ddbgen_diags_demote(&found);
            ddbgen_diag_add(&found, DDBGEN_NOTE, no_loc,
                            "the breaking changes of this schema are covered by migration plan %s (%s): apply it "
                            "with ddb migrate before the new module opens the table",
                            id, plan_path);
            rc = DDBGEN_OK;
        } else if (rc == DDBGEN_ESCHEMA && plan_path) {
            ddbgen_diag_add(&found, DDBGEN_ERROR, no_loc,
                            "no migration plan for this change in %s: write one with ddbgen "
                            "--plan-migration %s --plan-out %s, review it, and apply it with ddb migrate",
                            plan_path, shown, plan_path);
        }
        ddbgen_diags_append(&cx->diags, &found, DDBGEN_NOTE);
        ddbgen_diags_free(&found);
    }
    json_decref(old_doc);
    free(shown);
    return rc;
}

static int plan_either(ddbgen_context *cx, const char *old_model_path, const char *plan_path, bool down)
{
    json_t *old_doc, *plan = NULL;
    char *shown;
    int rc = load_old(cx, old_model_path, &old_doc, &shown);
    if (rc == DDBGEN_OK)
        rc = down ? ddbgen__migration_down(old_doc, cx->checked, &plan, &cx->diags)
                  : ddbgen__migration_plan(old_doc, cx->checked, &plan, &cx->diags);
    if (rc == DDBGEN_OK) {
        char *text = ddbgen_model_to_string(plan);
        rc = text ? write_text(cx, plan_path, text) : DDBGEN_EUSAGE;
        free(text);
    }
    json_decref(plan);
    json_decref(old_doc);
    free(shown);
    return rc;
}

int ddbgen_plan_migration(ddbgen_context *cx, const char *old_model_path, const char *plan_path)
{
    return plan_either(cx, old_model_path, plan_path, false);
}

int ddbgen_plan_migration_down(ddbgen_context *cx, const char *old_model_path, const char *plan_path)
{
    return plan_either(cx, old_model_path, plan_path, true);
}

/* The old forms' C names must not be the new schema's: a struct, entity
 * or table named "<x>_old" in the schema is an error at its location. */
static int old_names_free(ddbgen_context *cx, const json_t *forms, const char *shown)
{
    static const char *const kinds[] = {"structs", "entities", "tables"};
    int rc = DDBGEN_OK;
    for (size_t k = 0; k < 3; k++) {
        size_t i, j;
        json_t *o, *n;
        json_array_foreach(json_object_get(forms, kinds[k]), i, o) {
            const char *name = ddbgen_jstr(o, "cname");
            for (size_t m = 0; m < 3 && name; m++) {
                json_array_foreach(json_object_get(cx->checked, kinds[m]), j, n) {
                    const char *taken = ddbgen_jstr(n, "cname");
                    if (taken && !strcmp(taken, name)) {
                        ddbgen_diag_add(&cx->diags, DDBGEN_ERROR, ddbgen_loc_of(n, "loc"),
                                        "'%s' is the C name ddbgen gives the old form of '%.*s' of the deployed "
                                        "model %s (--old-model): rename it",
                                        name, (int)(strlen(name) - strlen(DDBGEN_OLD_SUFFIX)), name, shown);
                        rc = DDBGEN_ESCHEMA;
                    }
                }
            }
        }
    }
    return rc;
}

int ddbgen_old_forms(ddbgen_context *cx, const char *old_model_path, ddbgen_ir **old_ir, json_t **plan)
{
    json_t *old_doc, *forms = NULL, *declared = NULL, *doc = NULL;
    char *shown;
    *old_ir = NULL;
    *plan = NULL;
    int rc = load_old(cx, old_model_path, &old_doc, &shown);
    if (rc == DDBGEN_OK) {
        /* no plan, no steps: what no migration handles is --check-compat's and --plan-migration's to report */
        ddbgen_diags scratch;
        ddbgen_diags_init(&scratch);
        if (ddbgen__migration_plan(old_doc, cx->checked, plan, &scratch) != DDBGEN_OK) {
            json_decref(*plan);
            *plan = NULL;
        }
        ddbgen_diags_free(&scratch);
    }
    if (rc == DDBGEN_OK && !(forms = ddbgen__old_forms(old_doc))) {
        ddbgen_diag_add(&cx->diags, DDBGEN_ERROR, no_loc, "out of memory");
        rc = DDBGEN_EUSAGE;
    }
    if (rc == DDBGEN_OK)
        rc = old_names_free(cx, forms, shown);
    if (rc == DDBGEN_OK)
        rc = ddbgen__load_json(cx, forms, shown, &declared);
    if (rc == DDBGEN_OK) {
        ddbgen_diags od;
        ddbgen_diags_init(&od);
        if ((rc = ddbgen__validate(declared, &od)) != DDBGEN_OK) {
            ddbgen_diag_add(&cx->diags, DDBGEN_ERROR, (ddbgen_loc){shown, 0, 0},
                            "the old forms of this model do not validate (a C name ending in \"%s\" taken twice?)",
                            DDBGEN_OLD_SUFFIX);
            ddbgen_diags_append(&cx->diags, &od, DDBGEN_ERROR);
        }
        ddbgen_diags_free(&od);
    }
    if (rc == DDBGEN_OK && lower(declared, old_ir, &doc) != 0) {
        ddbgen_diag_add(&cx->diags, DDBGEN_ERROR, no_loc, "out of memory");
        rc = DDBGEN_EUSAGE;
    }
    json_decref(doc);
    json_decref(declared);
    json_decref(forms);
    json_decref(old_doc);
    free(shown);
    return rc;
}

size_t ddbgen_error_count(const ddbgen_context *cx) { return cx->diags.errors; }
size_t ddbgen_warning_count(const ddbgen_context *cx) { return cx->diags.warnings; }

void ddbgen_print_diagnostics(const ddbgen_context *cx, FILE *out)
{
    ddbgen_diags_print(&cx->diags, out);
}

char *ddbgen_diagnostics_string(const ddbgen_context *cx)
{
    return ddbgen_diags_string(&cx->diags);
}
