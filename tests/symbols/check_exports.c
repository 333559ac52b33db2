/* check_exports: the dynamic symbols a shared library exports must be
 * exactly the functions and variables its public headers declare.
 *
 *   check_exports NM LIBRARY HEADER_DIR [clang arguments...]
 *
 * Declarations: every *.h in HEADER_DIR is parsed with libclang (one
 * translation unit including them all, in C11, with the clang arguments
 * given, e.g. -I paths); each function or variable declared in one of
 * those files with external linkage counts (static inline helpers do not).
 * Exports: `NM -D --defined-only LIBRARY`, symbol versions stripped.
 *
 * Prints every difference, in both directions, and exits 1 if there is
 * one; 2 when the headers do not compile or nm cannot be run; 0 otherwise.
 */
#include <clang-c/Index.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct names {
    char **v;
    size_t n, cap;
} names;

static void names_add(names *s, const char *name, size_t len)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 256;
        s->v = realloc(s->v, s->cap * sizeof *s->v);
        if (!s->v) {
            perror("check_exports");
            exit(2);
        }
    }
    s->v[s->n] = strndup(name, len);
    if (!s->v[s->n]) {
        perror("check_exports");
        exit(2);
    }
    s->n++;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sort and drop duplicates (a function may be declared twice). */
static void names_finish(names *s)
{
    if (!s->n)
        return;
    qsort(s->v, s->n, sizeof *s->v, cmp_str);
    size_t k = 1;
    for (size_t i = 1; i < s->n; i++) {
        if (strcmp(s->v[i], s->v[k - 1]))
            s->v[k++] = s->v[i];
        else
            free(s->v[i]);
    }
    s->n = k;
}

static void names_free(names *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
}

/* ---- Declarations ---------------------------------------------------- */

typedef struct decl_walk {
    const char *header_dir; /* realpath */
    names *out;
} decl_walk;

/* Whether the cursor is spelled in a file directly inside header_dir. */
static int in_header_dir(CXCursor c, const char *header_dir)
{
    CXFile file;
    clang_getExpansionLocation(clang_getCursorLocation(c), &file, NULL, NULL, NULL);
    if (!file)
        return 0;
    CXString name = clang_getFileName(file);
    char real[PATH_MAX];
    int inside = 0;
    if (realpath(clang_getCString(name), real)) {
        size_t n = strlen(header_dir);
        inside = !strncmp(real, header_dir, n) && real[n] == '/' && !strchr(real + n + 1, '/');
    }
    clang_disposeString(name);
    return inside;
}

static enum CXChildVisitResult visit_decl(CXCursor c, CXCursor parent, void *data)
{
    (void)parent;
    decl_walk *w = data;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_LinkageSpec || k == CXCursor_UnexposedDecl)
        return CXChildVisit_Recurse; /* extern "C" { ... } */
    if ((k == CXCursor_FunctionDecl || k == CXCursor_VarDecl) &&
        clang_getCursorLinkage(c) == CXLinkage_External && in_header_dir(c, w->header_dir)) {
        CXString s = clang_getCursorSpelling(c);
        const char *name = clang_getCString(s);
        names_add(w->out, name, strlen(name));
        clang_disposeString(s);
    }
    return CXChildVisit_Continue;
}

static int header_cmp(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

static int is_header(const struct dirent *d)
{
    size_t n = strlen(d->d_name);
    return n > 2 && !strcmp(d->d_name + n - 2, ".h");
}

/* The declarations of every header in header_dir into out; 0 or 2. */
static int read_declarations(const char *header_dir, int nargs, const char *const *args, names *out)
{
    struct dirent **ents;
    int n = scandir(header_dir, &ents, is_header, header_cmp);
    if (n <= 0) {
        fprintf(stderr, "check_exports: no headers in %s\n", header_dir);
        return 2;
    }
    size_t cap = 64;
    for (int i = 0; i < n; i++)
        cap += strlen(header_dir) + strlen(ents[i]->d_name) + 16;
    char *src = malloc(cap), *p = src;
    if (!src) {
        perror("check_exports");
        return 2;
    }
    for (int i = 0; i < n; i++) {
        p += sprintf(p, "#include \"%s/%s\"\n", header_dir, ents[i]->d_name);
        free(ents[i]);
    }
    free(ents);

    const char *argv[256];
    int argc = 0;
    argv[argc++] = "-xc";
    argv[argc++] = "-std=c11";
    for (int i = 0; i < nargs && argc < 256; i++)
        argv[argc++] = args[i];
    struct CXUnsavedFile unsaved = {"check_exports_all.c", src, (unsigned long)strlen(src)};
    CXIndex index = clang_createIndex(0, 0);
    CXTranslationUnit tu = NULL;
    enum CXErrorCode ec = clang_parseTranslationUnit2(index, unsaved.Filename, argv, argc, &unsaved, 1,
                                                      CXTranslationUnit_SkipFunctionBodies, &tu);
    int rc = 0;
    if (ec != CXError_Success || !tu) {
        fprintf(stderr, "check_exports: libclang could not parse the headers (error %d)\n", (int)ec);
        rc = 2;
    } else {
        for (unsigned i = 0; i < clang_getNumDiagnostics(tu); i++) {
            CXDiagnostic d = clang_getDiagnostic(tu, i);
            if (clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error) {
                CXString s = clang_formatDiagnostic(d, clang_defaultDiagnosticDisplayOptions());
                fprintf(stderr, "check_exports: %s\n", clang_getCString(s));
                clang_disposeString(s);
                rc = 2;
            }
            clang_disposeDiagnostic(d);
        }
        decl_walk w = {header_dir, out};
        if (!rc)
            clang_visitChildren(clang_getTranslationUnitCursor(tu), visit_decl, &w);
        clang_disposeTranslationUnit(tu);
    }
    clang_disposeIndex(index);
    free(src);
    return rc;
}

/* ---- Exports ------------------------------------------------------------ */

/* Single-quote s for sh -c. */
static void put_quoted(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++)
        *s == '\'' ? fputs("'\\''", f) : fputc(*s, f);
    fputc('\'', f);
}

/* `nm -D --defined-only lib` -> out; 0 or 2. */
static int read_exports(const char *nm, const char *lib, names *out)
{
    char *cmd = NULL;
    size_t cmd_len = 0;
    FILE *f = open_memstream(&cmd, &cmd_len);
    if (!f) {
        perror("check_exports");
        return 2;
    }
    put_quoted(f, nm);
    fputs(" -D --defined-only ", f);
    put_quoted(f, lib);
    fclose(f);
    FILE *in = popen(cmd, "r");
    if (!in) {
        perror(cmd);
        free(cmd);
        return 2;
    }
    char line[4096];
    while (fgets(line, sizeof line, in)) {
        /* "ADDRESS TYPE NAME[@VERSION]" */
        char *name = strrchr(line, ' ');
        name = name ? name + 1 : line;
        size_t len = strcspn(name, "@\n");
        if (len)
            names_add(out, name, len);
    }
    int status = pclose(in);
    if (status != 0) {
        fprintf(stderr, "check_exports: `%s` failed (status %d)\n", cmd, status);
        free(cmd);
        return 2;
    }
    free(cmd);
    if (!out->n)
        fprintf(stderr, "check_exports: %s exports nothing\n", lib);
    return out->n ? 0 : 2;
}

/* ---- Comparison ----------------------------------------------------------- */

/* Print the names of a that b lacks; their count. */
static size_t report_missing(const names *a, const names *b, const char *what)
{
    size_t missing = 0;
    for (size_t i = 0; i < a->n; i++) {
        if (!bsearch(&a->v[i], b->v, b->n, sizeof *b->v, cmp_str)) {
            printf("%s: %s\n", what, a->v[i]);
            missing++;
        }
    }
    return missing;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: check_exports NM LIBRARY HEADER_DIR [clang arguments...]\n");
        return 2;
    }
    char header_dir[PATH_MAX];
    if (!realpath(argv[3], header_dir)) {
        perror(argv[3]);
        return 2;
    }
    names declared = {0}, exported = {0};
    int rc = read_declarations(header_dir, argc - 4, (const char *const *)argv + 4, &declared);
    if (!rc)
        rc = read_exports(argv[1], argv[2], &exported);
    if (!rc) {
        names_finish(&declared);
        names_finish(&exported);
        size_t diff = report_missing(&exported, &declared, "exported but not declared") +
                      report_missing(&declared, &exported, "declared but not exported");
        if (diff) {
            printf("%zu difference(s) between %s and the declarations in %s\n", diff, argv[2], header_dir);
            rc = 1;
        } else {
            printf("%zu symbols: exported == declared in %s\n", exported.n, header_dir);
        }
    }
    names_free(&declared);
    names_free(&exported);
    return rc;
}
