/* test_cli.c — the ddbgen binary end to end (sqlc style).
 *
 *  - bad/<case>.h: `ddbgen --emit-model /dev/null bad/<case>.h` must print
 *    exactly bad/<case>.expected on stderr and exit 1 if that text holds an
 *    error, else 0 (warning-only cases).
 *  - compat/<case>.h: `ddbgen --check-compat compat/base.model.json
 *    compat/<case>.h`, the same way.  compat/base.model.json is
 *    compat/base.h's model and is checked as such.  compat-unique/ is a
 *    second such suite (DDB_UNIQUE added and removed).
 *  - compat/<case>.plan.expected: `ddbgen --plan-migration
 *    compat/base.model.json compat/<case>.h`, its plan and diagnostics.
 *  - options, usage errors, -I/-D pass-through, JSON input, --version.
 *
 * Runs in this folder (GEN_TEST_DIR) with the binary DDBGEN_EXE, so paths
 * in diagnostics are the relative ones given on the command line.
 * DDBGEN_UPDATE_GOLDEN=1 rewrites the .expected files (review the diff!). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gen_test_util.h"

typedef struct result {
    int status; /* exit status, or -1 if it did not exit normally */
    char *out, *err;
} result;

static void result_free(result *r)
{
    free(r->out);
    free(r->err);
}

/* Runs DDBGEN_EXE with argv (NULL-terminated, without argv[0]). */
static result run(const char *const *args)
{
    const char *argv[32];
    size_t n = 0;
    argv[n++] = DDBGEN_EXE;
    for (; *args && n < 31; args++)
        argv[n++] = *args;
    argv[n] = NULL;
    char out_path[] = "/tmp/ddbgen_test_out_XXXXXX", err_path[] = "/tmp/ddbgen_test_err_XXXXXX";
    int out_fd = mkstemp(out_path), err_fd = mkstemp(err_path);
    assert_true(out_fd >= 0 && err_fd >= 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(out_fd, 1);
        dup2(err_fd, 2);
        execv(DDBGEN_EXE, (char *const *)argv);
        _exit(127);
    }
    int ws;
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    close(out_fd);
    close(err_fd);
    result r = {WIFEXITED(ws) ? WEXITSTATUS(ws) : -1, gen_read_file(out_path), gen_read_file(err_path)};
    unlink(out_path);
    unlink(err_path);
    assert_non_null(r.out);
    assert_non_null(r.err);
    return r;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.h files of dir, sorted (caller frees each and the array). */
static char **list_headers(const char *dir, size_t *count)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    char **names = NULL;
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name);
        if (len < 3 || strcmp(de->d_name + len - 2, ".h") != 0)
            continue;
        names = realloc(names, (n + 1) * sizeof *names);
        names[n++] = strdup(de->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp_names);
    *count = n;
    return names;
}

/* Runs one case; returns 0 when stderr and the exit status match. */
static int check_case(const char *const *args, const char *expected_path)
{
    result r = run(args);
    int failed = 0;
    if (gen_update_golden()) {
        assert_int_equal(gen_write_file(expected_path, r.err), 0);
    } else {
        char *expected = gen_read_file(expected_path);
        if (!expected) {
            fprintf(stderr, "%s: missing; ddbgen printed:\n%s", expected_path, r.err);
            failed = 1;
        } else {
            int want = strstr(expected, ": error: ") ? 1 : 0;
            if (strcmp(expected, r.err) != 0) {
                gen_show_diff(expected_path, expected, r.err);
                fprintf(stderr, "full stderr:\n%s", r.err);
                failed = 1;
            }
            if (r.status != want) {
                fprintf(stderr, "%s: exit status %d, expected %d\n", expected_path, r.status, want);
                failed = 1;
            }
        }
        free(expected);
    }
    if (r.out[0]) {
        fprintf(stderr, "%s: unexpected stdout:\n%s", expected_path, r.out);
        failed = 1;
    }
    result_free(&r);
    return failed;
}

static void expected_path_of(char *dst, size_t n, const char *dir, const char *header)
{
    snprintf(dst, n, "%s/%.*s.expected", dir, (int)(strlen(header) - 2), header);
}

static void bad_schemas(void **state)
{
    (void)state;
    size_t n;
    char **names = list_headers("bad", &n);
    assert_true(n >= 15);
    int failures = 0;
    for (size_t i = 0; i < n; i++) {
        char input[512], expected[512];
        snprintf(input, sizeof input, "bad/%s", names[i]);
        expected_path_of(expected, sizeof expected, "bad", names[i]);
        const char *args[] = {"--emit-model", "/dev/null", input, NULL};
        failures += check_case(args, expected);
        free(names[i]);
    }
    free(names);
    assert_int_equal(failures, 0);
}

/* The --check-compat suites: each folder holds base.h, its model
 * base.model.json (the deployed schema) and cases against it. */
static const char *const COMPAT_DIRS[] = {"compat", "compat-unique"};
#define N_COMPAT_DIRS (sizeof COMPAT_DIRS / sizeof *COMPAT_DIRS)

/* The case headers of suite dir (base.h among them), and its base model's path. */
static char **compat_suite(const char *dir, size_t *n, char *base, size_t cap)
{
    char **names = list_headers(dir, n);
    assert_true(*n >= 2);
    snprintf(base, cap, "%s/base.model.json", dir);
    return names;
}

static void compat_cases(void **state)
{
    (void)state;
    int failures = 0;
    for (size_t d = 0; d < N_COMPAT_DIRS; d++) {
        const char *dir = COMPAT_DIRS[d];
        size_t n;
        char base[512];
        char **names = compat_suite(dir, &n, base, sizeof base);
        for (size_t i = 0; i < n; i++) {
            char input[512], expected[512];
            snprintf(input, sizeof input, "%s/%s", dir, names[i]);
            expected_path_of(expected, sizeof expected, dir, names[i]);
            const char *args[] = {"--check-compat", base, input, NULL};
            failures += check_case(args, expected);
            free(names[i]);
        }
        free(names);
    }
    assert_int_equal(failures, 0);
}

/* --plan-migration from compat/base.model.json to each compat/<case>.h:
 * the plan (stdout) and the diagnostics (stderr) against
 * compat/<case>.plan.expected; exit 1 exactly when some change has no
 * migration (an error). */
static void plan_cases(void **state)
{
    (void)state;
    int failures = 0;
    for (size_t d = 0; d < N_COMPAT_DIRS; d++) {
        const char *dir = COMPAT_DIRS[d];
        size_t n;
        char base[512];
        char **names = compat_suite(dir, &n, base, sizeof base);
        for (size_t i = 0; i < n; i++) {
            char input[512], expected_path[512];
            snprintf(input, sizeof input, "%s/%s", dir, names[i]);
            snprintf(expected_path, sizeof expected_path, "%s/%.*s.plan.expected", dir,
                     (int)(strlen(names[i]) - 2), names[i]);
            const char *args[] = {"--plan-migration", base, input, NULL};
            result r = run(args);
            size_t len = strlen(r.out) + strlen(r.err) + 32;
            char *got = malloc(len);
            assert_non_null(got);
            /* the plan's "model" (one line: the new schema's model, which
             * --emit-model's tests cover) is there when the plan is, and left
             * out of the comparison */
            char *model = strstr(r.out, "\n  \"model\": \"{");
            if (r.status == 0 && !model) {
                fprintf(stderr, "%s: the plan has no \"model\" line\n", input);
                failures++;
            }
            if (model)
                memmove(model + 1, strchr(model + 1, '\n') + 1, strlen(strchr(model + 1, '\n') + 1) + 1);
            snprintf(got, len, "%s--- stderr\n%s", r.out, r.err);
            if (gen_update_golden()) {
                assert_int_equal(gen_write_file(expected_path, got), 0);
            } else {
                char *expected = gen_read_file(expected_path);
                if (!expected || strcmp(expected, got) != 0) {
                    if (expected)
                        gen_show_diff(expected_path, expected, got);
                    else
                        fprintf(stderr, "%s: missing; ddbgen printed:\n%s", expected_path, got);
                    failures++;
                } else if (r.status != (strstr(r.err, ": error: ") ? 1 : 0)) {
                    fprintf(stderr, "%s: exit status %d\n", expected_path, r.status);
                    failures++;
                }
                free(expected);
            }
            free(got);
            result_free(&r);
            free(names[i]);
        }
        free(names);
    }
    assert_int_equal(failures, 0);
}

/* <dir>/base.model.json is what --emit-model makes of <dir>/base.h. */
static void compat_base_model_is_current(void **state)
{
    (void)state;
    for (size_t d = 0; d < N_COMPAT_DIRS; d++) {
        char header[512], model[512];
        snprintf(header, sizeof header, "%s/base.h", COMPAT_DIRS[d]);
        snprintf(model, sizeof model, "%s/base.model.json", COMPAT_DIRS[d]);
        const char *args[] = {"--emit-model", "-", header, NULL};
        result r = run(args);
        assert_int_equal(r.status, 0);
        assert_string_equal(r.err, "");
        if (gen_update_golden())
            assert_int_equal(gen_write_file(model, r.out), 0);
        char *golden = gen_read_file(model);
        assert_non_null(golden);
        assert_string_equal(r.out, golden);
        free(golden);
        result_free(&r);
    }
}

static void emit_model_from_json_input(void **state)
{
    (void)state;
    char path[] = "/tmp/ddbgen_test_model_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    const char *args[] = {"--emit-model", path, "schemas/shop.model.json", NULL};
    result r = run(args);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.err, "");
    char *written = gen_read_file(path), *golden = gen_read_file("schemas/shop.model.json");
    assert_string_equal(written, golden);
    free(written);
    free(golden);
    result_free(&r);
    unlink(path);
}

/* Modes combine: check against the old model, then write the new one. */
static void check_compat_then_emit(void **state)
{
    (void)state;
    const char *args[] = {"--check-compat", "compat/base.model.json", "--emit-model", "-",
                          "compat/compatible.h", NULL};
    result r = run(args);
    assert_int_equal(r.status, 0);
    char *expected = gen_read_file("compat/compatible.expected");
    assert_string_equal(r.err, expected);
    assert_non_null(strstr(r.out, "\"name\": \"Review\""));
    free(expected);
    result_free(&r);

    /* breaking: nothing is written */
    const char *breaking[] = {"--check-compat", "compat/base.model.json", "--emit-model", "-",
                              "compat/breaking.h", NULL};
    r = run(breaking);
    assert_int_equal(r.status, 1);
    assert_string_equal(r.out, "");
    result_free(&r);
}

static void include_dirs_and_defines(void **state)
{
    (void)state;
    const char *args[] = {"-I", "schemas/include", "-DNAME_LEN=32", "-D", "TYPE_NAME=\"Thing\"",
                          "--emit-model", "-", "schemas/defines.h", NULL};
    result r = run(args);
    assert_string_equal(r.err, "");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\"max_len\": 31"));
    assert_non_null(strstr(r.out, "\"name\": \"Thing\""));
    assert_non_null(strstr(r.out, "\"file\": \"schemas/include/extra.h\""));
    result_free(&r);

    const char *without[] = {"--emit-model", "-", "schemas/defines.h", NULL};
    r = run(without);
    assert_int_equal(r.status, 1);
    assert_string_equal(r.err, "schemas/defines.h:6:10: error: 'extra.h' file not found\n");
    assert_string_equal(r.out, "");
    result_free(&r);
}

static void usage_errors(void **state)
{
    (void)state;
    static const struct {
        const char *args[6];
        const char *first_line;
    } cases[] = {
        {{NULL}, "ddbgen: no input: give a schema header or a model .json\n"},
        {{"schemas/shop.h", NULL},
         "ddbgen: nothing to do: give -o OUTDIR, --emit-model FILE, --check-compat "
         "OLD_MODEL.json, --plan-migration OLD_MODEL.json, --emit-infra FORMAT or --emit-workbench FILE\n"},
        {{"--frobnicate", "schemas/shop.h", NULL}, "ddbgen: unknown option '--frobnicate'\n"},
        {{"--emit-model", "-", "a.h", "b.h", NULL},
         "ddbgen: more than one input ('b.h'); give one schema or model\n"},
        {{"schemas/shop.h", "-o", NULL}, "ddbgen: -o needs an output directory\n"},
        {{"-D", "=1", "--emit-model", "-", "schemas/shop.h", NULL},
         "ddbgen: -D needs NAME or NAME=VALUE\n"},
        {{"--old-model", "compat/base.model.json", "--emit-model", "-", "schemas/shop.h", NULL},
         "ddbgen: --old-model goes with -o OUTDIR\n"},
        {{"--infra-table", "Shop", "--emit-model", "-", "schemas/shop.h", NULL},
         "ddbgen: --infra-table and --infra-out go with --emit-infra FORMAT\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        result r = run(cases[i].args);
        assert_int_equal(r.status, 2);
        size_t n = strlen(cases[i].first_line);
        if (strncmp(r.err, cases[i].first_line, n) != 0)
            fprintf(stderr, "case %zu: %s", i, r.err);
        assert_memory_equal(r.err, cases[i].first_line, n);
        assert_non_null(strstr(r.err, "usage: ddbgen"));
        assert_string_equal(r.out, "");
        result_free(&r);
    }
}

static void unreadable_files(void **state)
{
    (void)state;
    const char *missing[] = {"--emit-model", "-", "bad/no_such_schema.h", NULL};
    result r = run(missing);
    assert_int_equal(r.status, 2);
    assert_string_equal(r.err,
                        "ddbgen: error: cannot read 'bad/no_such_schema.h': No such file or directory\n");
    result_free(&r);

    const char *old_missing[] = {"--check-compat", "compat/none.json", "compat/base.h", NULL};
    r = run(old_missing);
    assert_int_equal(r.status, 2);
    assert_string_equal(r.err,
                        "ddbgen: error: cannot read 'compat/none.json': No such file or directory\n");
    result_free(&r);

    const char *unwritable[] = {"--emit-model", "/nonexistent-dir/m.json", "compat/base.h", NULL};
    r = run(unwritable);
    assert_int_equal(r.status, 2);
    assert_string_equal(
        r.err, "ddbgen: error: cannot write '/nonexistent-dir/m.json': No such file or directory\n");
    result_free(&r);
}

/* --old-model: the old forms' C names ("<name>_old") must be free in the
 * new schema; nothing is written otherwise. */
static void old_forms_name_clash(void **state)
{
    (void)state;
    const char *args[] = {"-o", "/nonexistent-dir/out", "--old-model", "compat/base.model.json", "old/clash.h",
                          NULL};
    result r = run(args);
    assert_int_equal(r.status, 1);
    assert_string_equal(r.err, "old/clash.h:8:8: error: 'user_old' is the C name ddbgen gives the old form of "
                               "'user' of the deployed model compat/base.model.json (--old-model): rename it\n");
    result_free(&r);
}

/* Locations are no change: the same schema written two lines lower (its
 * indexes' projections carry locations too) needs no migration. */
static void plan_ignores_locations(void **state)
{
    (void)state;
    char model[] = "/tmp/ddbgen-proj-XXXXXX";
    int fd = mkstemp(model);
    assert_true(fd >= 0);
    close(fd);
    const char *emit[] = {"--emit-model", model, "old/proj.h", NULL};
    result r = run(emit);
    assert_int_equal(r.status, 0);
    result_free(&r);
    const char *plan[] = {"--plan-migration", model, "old/proj_moved.h", NULL};
    r = run(plan);
    unlink(model);
    if (r.status != 0)
        fprintf(stderr, "%s", r.err);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\"tables\": []"));
    result_free(&r);
}

static void help_and_version(void **state)
{
    (void)state;
    const char *version[] = {"--version", NULL};
    result r = run(version);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "ddbgen " DDBGEN_VERSION " (model version 1)\n");
    assert_string_equal(r.err, "");
    result_free(&r);

    const char *help[] = {"--help", NULL};
    r = run(help);
    assert_int_equal(r.status, 0);
    assert_memory_equal(r.out, "usage: ddbgen ", 14);
    assert_non_null(strstr(r.out, "--check-compat"));
    assert_string_equal(r.err, "");
    result_free(&r);
}

/* -o runs only after validation: a bad schema stops before generation. */
static void generate_needs_a_valid_schema(void **state)
{
    (void)state;
    const char *args[] = {"-o", "/tmp", "bad/unknown_field.h", NULL};
    result r = run(args);
    assert_int_equal(r.status, 1);
    char *expected = gen_read_file("bad/unknown_field.expected");
    assert_string_equal(r.err, expected);
    free(expected);
    result_free(&r);
}

int main(void)
{
    if (chdir(GEN_TEST_DIR) != 0) {
        perror(GEN_TEST_DIR);
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bad_schemas),
        cmocka_unit_test(compat_base_model_is_current),
        cmocka_unit_test(compat_cases),
        cmocka_unit_test(plan_cases),
        cmocka_unit_test(emit_model_from_json_input),
        cmocka_unit_test(check_compat_then_emit),
        cmocka_unit_test(include_dirs_and_defines),
        cmocka_unit_test(usage_errors),
        cmocka_unit_test(unreadable_files),
        cmocka_unit_test(old_forms_name_clash),
        cmocka_unit_test(plan_ignores_locations),
        cmocka_unit_test(help_and_version),
        cmocka_unit_test(generate_needs_a_valid_schema),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
