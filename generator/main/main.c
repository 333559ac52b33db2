/* main.c — the ddbgen command line, a thin layer over the library (model.h).
 *
 *   ddbgen [-I DIR]... [-D NAME[=VALUE]]... [--templates DIR] -o OUTDIR [--old-model OLD.json] SCHEMA.h|MODEL.json
 *   ddbgen [-I DIR]... [-D ...] --emit-model FILE SCHEMA.h|MODEL.json
 *   ddbgen [-I DIR]... [-D ...] --check-compat OLD_MODEL.json SCHEMA.h|MODEL.json
 *   ddbgen [-I DIR]... [-D ...] --plan-migration OLD_MODEL.json [--plan-out PLAN.json] SCHEMA.h|MODEL.json
 *   ddbgen [-I DIR]... [-D ...] --emit-infra FORMAT [--infra-table NAME] [--infra-out FILE] SCHEMA.h|MODEL.json
 *   ddbgen [-I DIR]... [-D ...] --emit-workbench FILE SCHEMA.h|MODEL.json
 *   ddbgen --import-workbench [--draft-out FILE] WORKBENCH_MODEL.json
 *
 * The modes combine: parse -> validate (every rule, then lowering to the
 * IR) -> check compatibility -> write the model -> generate from the IR.  Exit status 0 ok, 1 schema errors (or breaking
 * changes), 2 usage errors (including unreadable or unwritable files).
 */
#include "library.h"
#include "model.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef DDBGEN_HAVE_GENERATE
#include "generate.h"
#endif

#ifndef DDBGEN_VERSION
#define DDBGEN_VERSION "0.0.0"
#endif
#ifndef DDBGEN_DEFAULT_TEMPLATES
#define DDBGEN_DEFAULT_TEMPLATES "templates"
#endif

/* Where the templates and <ddb/schema.h> are.  An installed ddbgen
 * (PREFIX/bin/ddbgen) uses the installation's: DDBGEN_INSTALL_*_REL from
 * its own executable's directory, so a moved or --prefix'ed install works.
 * The build-tree ddbgen (its directory is DDBGEN_BUILD_DIR), or one that
 * cannot find its own executable, uses the source tree's (the library's
 * defaults).  The --templates option overrides the templates. */
typedef struct data_dirs {
    char templates[PATH_MAX];
    char include[PATH_MAX]; /* "" = the library's default */
} data_dirs;

static void locate_data_dirs(data_dirs *d)
{
    snprintf(d->templates, sizeof d->templates, "%s", DDBGEN_DEFAULT_TEMPLATES);
    d->include[0] = '\0';
#if defined(DDBGEN_INSTALL_TEMPLATES_REL) && defined(DDBGEN_INSTALL_INCLUDE_REL)
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return;
    *slash = '\0'; /* the executable's directory, symlinks resolved */
#ifdef DDBGEN_BUILD_DIR
    char build[PATH_MAX];
    if (realpath(DDBGEN_BUILD_DIR, build) && !strcmp(build, exe))
        return;
#endif
    char t[PATH_MAX], i[PATH_MAX];
    if (snprintf(t, sizeof t, "%s/%s", exe, DDBGEN_INSTALL_TEMPLATES_REL) >= (int)sizeof t ||
        snprintf(i, sizeof i, "%s/%s", exe, DDBGEN_INSTALL_INCLUDE_REL) >= (int)sizeof i)
        return;
    memcpy(d->templates, t, sizeof t);
    memcpy(d->include, i, sizeof i);
#endif
}

static const char usage_text[] =
    "usage: ddbgen [-I DIR]... [-D NAME[=VALUE]]... [--templates DIR] -o OUTDIR [--old-model OLD_MODEL.json]\n"
    "              SCHEMA.h|MODEL.json\n"
    "       ddbgen [-I DIR]... [-D NAME[=VALUE]]... --emit-model FILE SCHEMA.h|MODEL.json\n"
    "       ddbgen [-I DIR]... [-D NAME[=VALUE]]... --check-compat OLD_MODEL.json SCHEMA.h|MODEL.json\n"
    "       ddbgen [-I DIR]... [-D NAME[=VALUE]]... --plan-migration OLD_MODEL.json [--plan-out FILE]\n"
    "              SCHEMA.h|MODEL.json\n"
    "       ddbgen [-I DIR]... [-D NAME[=VALUE]]... --emit-infra FORMAT [--infra-table NAME]\n"
    "              [--infra-out FILE] SCHEMA.h|MODEL.json\n"
    "       ddbgen [-I DIR]... [-D NAME[=VALUE]]... --emit-workbench FILE SCHEMA.h|MODEL.json\n"
    "       ddbgen --import-workbench [--draft-out FILE] WORKBENCH_MODEL.json\n"
    "       ddbgen --help | --version\n";

static const char help_text[] =
    "\n"
    "Reads a schema header (C structs with <ddb/schema.h> decorators, parsed with\n"
    "libclang) or a model written by --emit-model, validates it, and\n"
    "  -o OUTDIR              writes OUTDIR/<schema>_ddb.h and OUTDIR/<schema>_ddb.c\n"
    "  --old-model OLD        with -o: also writes OUTDIR/<schema>_old.h and .c, the\n"
    "                         deployed model's structs (struct <name>_old) and\n"
    "                         descriptors, the typed transforms and migration steps\n"
    "                         of the migration from it (docs/SCHEMA.md)\n"
    "  --emit-model FILE      writes the validated model as JSON (FILE '-' = stdout)\n"
    "  --check-compat OLD     compares with an older model: breaking changes are\n"
    "                         errors (exit 1), compatible ones notes (exit 0)\n"
    "  --plan-migration OLD   writes the migration plan from an older model: per\n"
    "                         entity every change and what it takes (none, rewrite,\n"
    "                         transform), as JSON for ddb migrate; changes no\n"
    "                         migration handles are errors (exit 1)\n"
    "  --plan-out FILE        where --plan-migration writes (default '-' = stdout)\n"
    "  --down                 with --plan-migration: the plan back from this schema to\n"
    "                         OLD (a rollback), or \"not reversible\" errors saying why\n"
    "  --migration-plan FILE  with --check-compat: breaking changes that this plan\n"
    "                         (from --plan-migration) covers are accepted (exit 0)\n"
    "  --emit-infra FORMAT    writes the tables as infrastructure input: cloudformation\n"
    "                         (AWS::DynamoDB::Table resources, JSON), terraform\n"
    "                         (aws_dynamodb_table resources, HCL), create-table or\n"
    "                         update-time-to-live (the AWS CLI's --cli-input-json)\n"
    "  --infra-table NAME     with --emit-infra: that table only (the AWS CLI's\n"
    "                         formats need one when the schema has several)\n"
    "  --infra-out FILE       where --emit-infra writes (default '-' = stdout)\n"
    "  --emit-workbench FILE  writes the schema as a NoSQL Workbench data model (JSON)\n"
    "  --import-workbench     reads a NoSQL Workbench data model (the input) and writes\n"
    "                         a draft schema header to --draft-out FILE (default\n"
    "                         stdout), with TODO comments where the model is silent\n"
    "Options:\n"
    "  -I DIR                 add DIR to the header search path (libclang)\n"
    "  -D NAME[=VALUE]        define a macro while parsing the header\n"
    "  --templates DIR        templates for -o (default: PREFIX/share/ddbgen/templates\n"
    "                         of an installed ddbgen, the source tree's templates/\n"
    "                         for the build tree's)\n"
    "  --help, --version\n"
    "Modes combine; the order is: validate, check-compat, plan-migration, emit-model,\n"
    "emit-infra, emit-workbench, generate.\n"
    "Diagnostics go to stderr as 'file:line:col: error: message', all of them.\n"
    "Exit status: 0 ok, 1 schema errors or breaking changes, 2 usage errors.\n";

static int usage_error(const char *fmt, const char *arg)
{
    fputs("ddbgen: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("\n", stderr);
    fputs(usage_text, stderr);
    fputs("Try 'ddbgen --help' for more information.\n", stderr);
    return DDBGEN_EUSAGE;
}

typedef struct cli {
    const char **includes, **defines;
    size_t n_includes, n_defines;
    const char *templates, *outdir, *emit_model, *check_compat, *plan_migration, *plan_out, *accept_plan, *old_model, *input;
    const char *emit_infra, *infra_table, *infra_out, *emit_workbench, *draft_out;
    int import_workbench;
    int down; /* --down: the plan back to the old model */
} cli;

/* "-I DIR", "-IDIR", "--opt VALUE", "--opt=VALUE": the value or NULL. */
static const char *option_value(int argc, char **argv, int *i, const char *name)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0)
        return NULL;
    if (a[n] == '\0') {
        if (*i + 1 >= argc)
            return "";
        return argv[++*i];
    }
    if (name[1] != '-') /* short option glued to its value: -Idir */
        return a + n;
    if (a[n] == '=')
        return a + n + 1;
    return NULL;
}

static int parse_args(int argc, char **argv, cli *c)
{
    c->includes = calloc((size_t)argc, sizeof *c->includes);
    c->defines = calloc((size_t)argc, sizeof *c->defines);
    if (!c->includes || !c->defines)
        return usage_error("%s", "out of memory");
    int only_inputs = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (only_inputs || a[0] != '-' || !strcmp(a, "-")) {
            if (c->input)
                return usage_error("more than one input ('%s'); give one schema or model", a);
            c->input = a;
        } else if (!strcmp(a, "--")) {
            only_inputs = 1;
        } else if ((v = option_value(argc, argv, &i, "-I"))) {
            if (!v[0])
                return usage_error("%s needs a directory", "-I");
            c->includes[c->n_includes++] = v;
        } else if ((v = option_value(argc, argv, &i, "-D"))) {
            if (!v[0] || v[0] == '=')
                return usage_error("%s needs NAME or NAME=VALUE", "-D");
            c->defines[c->n_defines++] = v;
        } else if ((v = option_value(argc, argv, &i, "--templates"))) {
            if (!v[0])
                return usage_error("%s needs a directory", "--templates");
            c->templates = v;
        } else if ((v = option_value(argc, argv, &i, "-o"))) {
            if (!v[0])
                return usage_error("%s needs an output directory", "-o");
            c->outdir = v;
        } else if ((v = option_value(argc, argv, &i, "--emit-model"))) {
            if (!v[0])
                return usage_error("%s needs a file name ('-' for stdout)", "--emit-model");
            c->emit_model = v;
        } else if ((v = option_value(argc, argv, &i, "--check-compat"))) {
            if (!v[0])
                return usage_error("%s needs the old model (a .json file)", "--check-compat");
            c->check_compat = v;
        } else if ((v = option_value(argc, argv, &i, "--plan-migration"))) {
            if (!v[0])
                return usage_error("%s needs the old model (a .json file)", "--plan-migration");
            c->plan_migration = v;
        } else if ((v = option_value(argc, argv, &i, "--migration-plan"))) {
            if (!v[0])
                return usage_error("%s needs a plan file (from --plan-migration)", "--migration-plan");
            c->accept_plan = v;
        } else if ((v = option_value(argc, argv, &i, "--old-model"))) {
            if (!v[0])
                return usage_error("%s needs the deployed model (a .json file)", "--old-model");
            c->old_model = v;
        } else if ((v = option_value(argc, argv, &i, "--emit-infra"))) {
            if (!v[0])
                return usage_error("%s needs a format: cloudformation, terraform, create-table or update-time-to-live",
                                   "--emit-infra");
            c->emit_infra = v;
        } else if ((v = option_value(argc, argv, &i, "--emit-workbench"))) {
            if (!v[0])
                return usage_error("%s needs a file name ('-' for stdout)", "--emit-workbench");
            c->emit_workbench = v;
        } else if (!strcmp(a, "--import-workbench")) {
            c->import_workbench = 1;
        } else if ((v = option_value(argc, argv, &i, "--draft-out"))) {
            if (!v[0])
                return usage_error("%s needs a file name ('-' for stdout)", "--draft-out");
            c->draft_out = v;
        } else if ((v = option_value(argc, argv, &i, "--infra-table"))) {
            if (!v[0])
                return usage_error("%s needs a table name", "--infra-table");
            c->infra_table = v;
        } else if ((v = option_value(argc, argv, &i, "--infra-out"))) {
            if (!v[0])
                return usage_error("%s needs a file name ('-' for stdout)", "--infra-out");
            c->infra_out = v;
        } else if (!strcmp(a, "--down")) {
            c->down = 1;
        } else if ((v = option_value(argc, argv, &i, "--plan-out"))) {
            if (!v[0])
                return usage_error("%s needs a file name ('-' for stdout)", "--plan-out");
            c->plan_out = v;
        } else {
            return usage_error("unknown option '%s'", a);
        }
    }
    if (!c->input)
        return usage_error("%s", "no input: give a schema header or a model .json");
    if (c->import_workbench) {
        if (c->outdir || c->emit_model || c->check_compat || c->plan_migration || c->emit_infra || c->emit_workbench)
            return usage_error("%s", "--import-workbench reads a Workbench model and writes a draft schema; "
                                     "run ddbgen on the draft for anything else");
        return 0;
    }
    if (c->draft_out)
        return usage_error("%s", "--draft-out goes with --import-workbench");
    if (!c->outdir && !c->emit_model && !c->check_compat && !c->plan_migration && !c->emit_infra &&
        !c->emit_workbench)
        return usage_error("%s", "nothing to do: give -o OUTDIR, --emit-model FILE, "
                                 "--check-compat OLD_MODEL.json, --plan-migration OLD_MODEL.json, "
                                 "--emit-infra FORMAT or --emit-workbench FILE");
    if ((c->infra_table || c->infra_out) && !c->emit_infra)
        return usage_error("%s", "--infra-table and --infra-out go with --emit-infra FORMAT");
    if (c->down && !c->plan_migration)
        return usage_error("%s", "--down goes with --plan-migration OLD_MODEL.json");
    if (c->plan_out && !c->plan_migration)
        return usage_error("%s", "--plan-out goes with --plan-migration OLD_MODEL.json");
    if (c->old_model && !c->outdir)
        return usage_error("%s", "--old-model goes with -o OUTDIR");
    if (c->accept_plan && !c->check_compat)
        return usage_error("%s", "--migration-plan goes with --check-compat OLD_MODEL.json");
    return 0;
}

static int run(const cli *c)
{
    data_dirs dirs;
    locate_data_dirs(&dirs);
    ddbgen_options o;
    ddbgen_options_init(&o);
    if (dirs.include[0])
        o.runtime_include_dir = dirs.include;
    o.include_dirs = c->includes;
    o.include_dir_count = c->n_includes;
    o.defines = c->defines;
    o.define_count = c->n_defines;
    ddbgen_context *cx = ddbgen_create(&o);
    if (!cx) {
        fputs("ddbgen: out of memory\n", stderr);
        return DDBGEN_EUSAGE;
    }
    if (c->import_workbench) {
        int irc = ddbgen_import_workbench(cx, c->input, c->draft_out ? c->draft_out : "-");
        ddbgen_print_diagnostics(cx, stderr);
        ddbgen_destroy(cx);
        return irc;
    }
    int rc = ddbgen_parse_file(cx, c->input);
    if (ddbgen_model(cx)) {
        /* also after a rejected decorator: report every problem at once */
        int vrc = ddbgen_validate(cx);
        if (rc == DDBGEN_OK)
            rc = vrc;
    }
    if (rc == DDBGEN_OK && c->check_compat)
        rc = ddbgen_check_compat_plan(cx, c->check_compat, c->accept_plan);
    if (rc == DDBGEN_OK && c->plan_migration)
        rc = (c->down ? ddbgen_plan_migration_down : ddbgen_plan_migration)(cx, c->plan_migration,
                                                                            c->plan_out ? c->plan_out : "-");
    if (rc == DDBGEN_OK && c->emit_model)
        rc = ddbgen_write_model(cx, c->emit_model);
    if (rc == DDBGEN_OK && c->emit_infra)
        rc = ddbgen_write_infra(cx, c->emit_infra, c->infra_table, c->infra_out ? c->infra_out : "-");
    if (rc == DDBGEN_OK && c->emit_workbench)
        rc = ddbgen_write_workbench(cx, c->emit_workbench);
    ddbgen_ir *old_ir = NULL;
    json_t *plan = NULL;
    if (rc == DDBGEN_OK && c->old_model)
        rc = ddbgen_old_forms(cx, c->old_model, &old_ir, &plan);
    ddbgen_print_diagnostics(cx, stderr);
    if (rc == DDBGEN_OK && c->outdir) {
#ifdef DDBGEN_HAVE_GENERATE
        rc = ddbgen_generate(ddbgen_ir_of(cx), c->outdir,
                             c->templates ? c->templates : dirs.templates,
                             ddbgen_schema_base(cx), stderr);
        if (rc == DDBGEN_OK && old_ir)
            rc = ddbgen_generate_old(ddbgen_ir_of(cx), old_ir, plan, c->old_model, c->outdir,
                                     c->templates ? c->templates : dirs.templates, ddbgen_schema_base(cx), stderr);
#else
        fputs("ddbgen: code generation is not built yet\n", stderr);
        rc = DDBGEN_EUSAGE;
#endif
    }
    ddbgen_ir_free(old_ir);
    json_decref(plan);
    ddbgen_destroy(cx);
    return rc;
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--"))
            break;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(usage_text, stdout);
            fputs(help_text, stdout);
            return 0;
        }
        if (!strcmp(argv[i], "--version")) {
            printf("ddbgen %s (model version %d)\n", DDBGEN_VERSION, DDBGEN_MODEL_VERSION);
            return 0;
        }
    }
    cli c;
    memset(&c, 0, sizeof c);
    int rc = parse_args(argc, argv, &c);
    if (rc == 0)
        rc = run(&c);
    free(c.includes);
    free(c.defines);
    return rc;
}
