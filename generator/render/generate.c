/* generate.c — the back-end's last stage: the render context of the IR
 * (render_context.c) through the templates in templates_dir into
 * <base>_ddb.h and <base>_ddb.c (and, with --old-model, the old forms'
 * context of render_old.c into <base>_old.h and <base>_old.c).
 *
 * This file only does I/O: reading templates and partials, rendering
 * (mustache.c), creating the output directory and writing a file only when
 * its content changes.  The shape of the output is in the templates. */
#include "generate.h"

#include "mustache.h"
#include "render_context.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct gen {
    const char *templates_dir;
    FILE *diag;
    /* Partials loaded so far: the renderer asks for one at every use. */
    char *partial_name[32];
    char *partial_buf[32];
    int n_partials;
} gen;

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    size_t r;
    while (buf && (r = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += r;
        if (cap - n - 1 == 0) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    fclose(f);
    if (buf)
        buf[n] = '\0';
    return buf;
}

static const char *load_partial(void *ud, const char *name)
{
    gen *g = ud;
    for (int i = 0; i < g->n_partials; i++)
        if (!strcmp(g->partial_name[i], name))
            return g->partial_buf[i];
    if (g->n_partials == (int)(sizeof g->partial_buf / sizeof *g->partial_buf))
        return NULL;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.mustache", g->templates_dir, name);
    char *text = read_file(path), *copy = text ? strdup(name) : NULL;
    if (!copy) {
        free(text);
        return NULL;
    }
    g->partial_name[g->n_partials] = copy;
    g->partial_buf[g->n_partials++] = text;
    return text;
}

/* Write path only when its content differs. */
static int write_if_changed(gen *g, const char *path, const char *text)
{
    char *old = read_file(path);
    int same = old && strcmp(old, text) == 0;
    free(old);
    if (same)
        return 0;
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0 || rename(tmp, path) != 0) {
        fprintf(g->diag, "ddbgen: cannot write %s: %s\n", path, strerror(errno));
        return 1;
    }
    return 0;
}

static int render_one(gen *g, json_t *ctx, const char *tmpl_name, const char *outdir, const char *outname)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", g->templates_dir, tmpl_name);
    char *tmpl = read_file(path);
    if (!tmpl) {
        fprintf(g->diag, "ddbgen: cannot read template %s: %s\n", path, strerror(errno));
        return 2;
    }
    ddbgen_mustache_opts o = {0};
    o.escape = 0;
    o.partial = load_partial;
    o.partial_ud = g;
    o.strict_partials = 1;
    o.strict_vars = 1;
    o.name = path;
    ddbgen_mustache_error merr;
    char *out = ddbgen_mustache_render(tmpl, ctx, &o, &merr);
    free(tmpl);
    if (!out) {
        fprintf(g->diag, "%s:%d:%d: error: %s\n", merr.source, merr.line, merr.column, merr.text);
        return 1;
    }
    snprintf(path, sizeof path, "%s/%s", outdir, outname);
    int rc = write_if_changed(g, path, out);
    free(out);
    return rc;
}

/* mkdir -p: the output directory is created when missing. */
static int make_dirs(const char *path)
{
    char buf[1024];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return -1;
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return mkdir(buf, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

/* Render ctx through tmpl.h/.c into outdir/<base><suffix>.h/.c. */
static int render_pair(const char *templates_dir, FILE *diag, json_t *ctx, const char *tmpl, const char *outdir,
                       const char *base, const char *suffix)
{
    gen g = {templates_dir, diag ? diag : stderr, {0}, {0}, 0};
    struct stat st;
    if (stat(outdir, &st) != 0 && make_dirs(outdir) != 0) {
        fprintf(g.diag, "ddbgen: cannot create the output directory %s: %s\n", outdir, strerror(errno));
        return 2;
    }
    if (stat(outdir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(g.diag, "ddbgen: %s is not a directory\n", outdir);
        return 2;
    }
    if (!ctx) {
        fprintf(g.diag, "ddbgen: out of memory\n");
        return 1;
    }
    char name[600], tname[600];
    snprintf(name, sizeof name, "%s%s.h", base, suffix);
    snprintf(tname, sizeof tname, "%s.h.mustache", tmpl);
    int rc = render_one(&g, ctx, tname, outdir, name);
    if (!rc) {
        snprintf(name, sizeof name, "%s%s.c", base, suffix);
        snprintf(tname, sizeof tname, "%s.c.mustache", tmpl);
        rc = render_one(&g, ctx, tname, outdir, name);
    }
    if (getenv("DDBGEN_DUMP_CONTEXT")) {
        char *s = json_dumps(ctx, JSON_INDENT(1) | JSON_SORT_KEYS);
        fprintf(g.diag, "%s\n", s ? s : "");
        free(s);
    }
    for (int i = 0; i < g.n_partials; i++) {
        free(g.partial_name[i]);
        free(g.partial_buf[i]);
    }
    return rc;
}

int ddbgen_generate(const ddbgen_ir *ir, const char *outdir, const char *templates_dir,
                    const char *schema_base, FILE *diag)
{
    json_t *ctx = ddbgen__render_context(ir, schema_base);
    int rc = render_pair(templates_dir, diag, ctx, "module", outdir, schema_base, "_ddb");
    json_decref(ctx);
    return rc;
}

int ddbgen_generate_old(const ddbgen_ir *ir, const ddbgen_ir *old_ir, const json_t *plan, const char *deployed,
                        const char *outdir, const char *templates_dir, const char *schema_base, FILE *diag)
{
    json_t *ctx = ddbgen__render_old_context(old_ir, ir, plan, schema_base, deployed);
    int rc = render_pair(templates_dir, diag, ctx, "module_old", outdir, schema_base, "_old");
    json_decref(ctx);
    return rc;
}
