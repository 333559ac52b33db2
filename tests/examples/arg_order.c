/* arg_order — checks the argument-order rule of <ddb/entity.h> on headers.
 *
 * Usage: arg_order [-I dir | -D def]... header...
 * Each header is parsed with libclang (the -I / -D options are handed to
 * it); every function it declares and every function type it defines (a
 * callback) must take its parameters in the rule's order of kinds:
 *   handle, what the call acts on, options, arena, outputs, capacity, err
 * (err last whenever present).  The kind of a parameter comes from its type
 * (ddb *, ddb_ent_tx *, a generated batch or iterator: handle; a const
 * pointer to a ddb_*opts or ddb_ent_tx_cond: options; ddb_arena *: arena;
 * ddb_capacity *: capacity; ddb_error *: err), from its name for outputs
 * (out, out_*, or one of a few names the headers use for what they fill),
 * and is "what the call acts on" otherwise; a plain size_t (a count or a
 * size) goes with the parameter before it.  Prints each violation as
 * file:line: function: the parameter and why; exit 1 when there is one.
 * Calls libclang only. */
#include <clang-c/Index.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum kind { K_NONE = -1, K_HANDLE, K_SUBJECT, K_OPTIONS, K_ARENA, K_OUTPUT, K_CAPACITY, K_ERR };
static const char *const kind_names[] = {"the handle", "what the call acts on", "the options", "the arena",
                                         "an output", "the capacity", "err"};

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static bool starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Names of parameters the call fills, besides out and out_*. */
static bool is_output_name(const char *name)
{
    static const char *const names[] = {"result", "info", "masks", "mask", "found", "report", "st"};
    if (strcmp(name, "out") == 0 || starts_with(name, "out_"))
        return true;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(name, names[i]) == 0)
            return true;
    return false;
}

static enum kind kind_of(const char *type, const char *name)
{
    if (strcmp(type, "ddb_error *") == 0)
        return K_ERR;
    if (strcmp(type, "ddb_capacity *") == 0)
        return K_CAPACITY;
    if (strcmp(type, "ddb_arena *") == 0)
        return K_ARENA;
    if (starts_with(type, "const ddb_") && (ends_with(type, "opts *") || strcmp(type, "const ddb_ent_tx_cond *") == 0))
        return K_OPTIONS;
    if (strcmp(type, "ddb *") == 0 || strcmp(type, "ddb_ent_tx *") == 0 || strcmp(type, "ddb_ent_pages *") == 0 ||
        (!starts_with(type, "const ") && (ends_with(type, "_batch *") || ends_with(type, "_iter *"))) ||
        (strcmp(type, "void *") == 0 && strcmp(name, "ctx") == 0))
        return K_HANDLE;
    if (strcmp(type, "size_t") == 0)
        return K_NONE;
    if (is_output_name(name))
        return K_OUTPUT;
    return K_SUBJECT;
}

typedef struct checker {
    int violations;
    int functions;
} checker;

/* Check the parameters (ParmDecl cursors) of one function or function type. */
static void check_params(checker *ck, CXCursor fn, const CXCursor *params, unsigned n)
{
    CXString fname = clang_getCursorSpelling(fn);
    CXString file;
    unsigned line;
    CXFile f;
    clang_getSpellingLocation(clang_getCursorLocation(fn), &f, &line, NULL, NULL);
    file = clang_getFileName(f);
    enum kind last = K_HANDLE;
    const char *last_name = "";
    char last_buf[128] = "";
    ck->functions++;
    for (unsigned i = 0; i < n; i++) {
        CXString pname = clang_getCursorSpelling(params[i]);
        CXString ptype = clang_getTypeSpelling(clang_getCursorType(params[i]));
        const char *name = clang_getCString(pname), *type = clang_getCString(ptype);
        enum kind k = kind_of(type, name);
        if (k == K_ERR && i + 1 != n) {
            printf("%s:%u: %s: err is not the last parameter\n", clang_getCString(file), line,
                   clang_getCString(fname));
            ck->violations++;
        }
        if (k != K_NONE) {
            if (k < last) {
                printf("%s:%u: %s: %s (%s, %s) comes after %s (%s)\n", clang_getCString(file), line,
                       clang_getCString(fname), name, type, kind_names[k], last_name, kind_names[last]);
                ck->violations++;
            }
            if (k >= last) {
                last = k;
                snprintf(last_buf, sizeof last_buf, "%s", name);
                last_name = last_buf;
            }
        }
        clang_disposeString(pname);
        clang_disposeString(ptype);
    }
    clang_disposeString(file);
    clang_disposeString(fname);
}

typedef struct parm_list {
    CXCursor items[64];
    unsigned n;
} parm_list;

static enum CXChildVisitResult collect_parm(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    parm_list *l = data;
    if (clang_getCursorKind(c) == CXCursor_ParmDecl && l->n < sizeof l->items / sizeof *l->items)
        l->items[l->n++] = c;
    return CXChildVisit_Continue;
}

static bool is_function_type(CXType t)
{
    t = clang_getCanonicalType(t);
    if (t.kind == CXType_Pointer)
        t = clang_getCanonicalType(clang_getPointeeType(t));
    return t.kind == CXType_FunctionProto;
}

static enum CXChildVisitResult visit_decl(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    checker *ck = data;
    if (!clang_Location_isFromMainFile(clang_getCursorLocation(c)))
        return CXChildVisit_Continue;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_FunctionDecl ||
        (k == CXCursor_TypedefDecl && is_function_type(clang_getTypedefDeclUnderlyingType(c)))) {
        parm_list l = {.n = 0};
        clang_visitChildren(c, collect_parm, &l);
        check_params(ck, c, l.items, l.n);
    }
    return CXChildVisit_Continue;
}

int main(int argc, char **argv)
{
    const char *args[64];
    int n_args = 0;
    checker ck = {0, 0};
    int files = 0;
    CXIndex index = clang_createIndex(0, 1);
    args[n_args++] = "-xc";
    args[n_args++] = "-std=c11";
    for (int i = 1; i < argc; i++) {
        if ((strcmp(argv[i], "-I") == 0 || strcmp(argv[i], "-D") == 0) && i + 1 < argc && n_args + 2 < 64) {
            args[n_args++] = argv[i];
            args[n_args++] = argv[++i];
            continue;
        }
        if (starts_with(argv[i], "-I") || starts_with(argv[i], "-D")) {
            if (n_args + 1 < 64)
                args[n_args++] = argv[i];
            continue;
        }
        CXTranslationUnit tu = clang_parseTranslationUnit(index, argv[i], args, n_args, NULL, 0,
                                                          CXTranslationUnit_SkipFunctionBodies);
        if (!tu) {
            fprintf(stderr, "arg_order: cannot parse %s\n", argv[i]);
            return 2;
        }
        bool broken = false;
        for (unsigned d = 0; d < clang_getNumDiagnostics(tu); d++) {
            CXDiagnostic diag = clang_getDiagnostic(tu, d);
            if (clang_getDiagnosticSeverity(diag) >= CXDiagnostic_Error) {
                CXString s = clang_formatDiagnostic(diag, clang_defaultDiagnosticDisplayOptions());
                fprintf(stderr, "arg_order: %s\n", clang_getCString(s));
                clang_disposeString(s);
                broken = true;
            }
            clang_disposeDiagnostic(diag);
        }
        if (broken)
            return 2;
        clang_visitChildren(clang_getTranslationUnitCursor(tu), visit_decl, &ck);
        clang_disposeTranslationUnit(tu);
        files++;
    }
    clang_disposeIndex(index);
    printf("arg_order: %d functions in %d headers, %d violations\n", ck.functions, files, ck.violations);
    if (files == 0 || ck.functions == 0)
        return 2;
    return ck.violations ? 1 : 0;
}
