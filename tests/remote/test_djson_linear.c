/* DynamoDB JSON decoding stays linear in the number of map keys and set
 * members (issue 22 §4: one PutItem of 640,000 map keys held a server
 * worker for 19 s, because each key was inserted into the sorted map with
 * a memmove of the keys after it).  Without timing: the test counts the
 * bytes libddb moves with memmove (the linker's --wrap=memmove, see
 * CMakeLists.txt) while decoding a map and a string set whose members come
 * in descending order, the worst order for sorted inserts, and checks that
 * the count grows no faster than the input.  Under ASan memmove is the
 * sanitizer's, uncounted: the check then holds trivially. */
#include <ddb/json.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *__real_memmove(void *dst, const void *src, size_t n);
void *__wrap_memmove(void *dst, const void *src, size_t n);

static size_t moved;

void *__wrap_memmove(void *dst, const void *src, size_t n)
{
    moved += n;
    return __real_memmove(dst, src, n);
}

enum { N = 20000 };

/* {"m": {"M": {"k19999": {"N": "19999"}, ... "k00000": ...}}, "s": {"SS": ["s19999", ... "s00000"]}} */
static char *descending_item(void)
{
    size_t cap = (size_t)N * 64 + 64, len = 0;
    char *t = malloc(cap);
    assert_non_null(t);
    len += (size_t)snprintf(t + len, cap - len, "{\"m\": {\"M\": {");
    for (int i = N - 1; i >= 0; i--)
        len += (size_t)snprintf(t + len, cap - len, "\"k%05d\": {\"N\": \"%d\"}%s", i, i, i ? ", " : "");
    len += (size_t)snprintf(t + len, cap - len, "}}, \"s\": {\"SS\": [");
    for (int i = N - 1; i >= 0; i--)
        len += (size_t)snprintf(t + len, cap - len, "\"s%05d\"%s", i, i ? ", " : "");
    snprintf(t + len, cap - len, "]}}");
    return t;
}

static void decoding_moves_linear_bytes(void **state)
{
    (void)state;
    char *text = descending_item();
    ddb_arena *a = ddb_arena_new();
    ddb_item *it = NULL;
    ddb_error err = {0};
    moved = 0;
    assert_int_equal(ddb_json_parse_item(text, strlen(text), a, &it, &err), 0);
    size_t bound = (size_t)N * 64; /* sorted inserts moved about N * N / 2 * 24 bytes (4.8 GB) */
    if (moved > bound)
        fail_msg("decoding %d map keys and %d set members moved %zu bytes with memmove (at most %zu expected)", N,
                 N, moved, bound);
    /* everything is there, in order */
    const ddb_value *m = ddb_item_get(it, "m"), *s = ddb_item_get(it, "s");
    assert_non_null(m);
    assert_non_null(s);
    assert_int_equal(m->len, N);
    assert_int_equal(s->len, N);
    char name[16];
    for (int i = 0; i < N; i++) {
        snprintf(name, sizeof name, "k%05d", i);
        assert_string_equal(m->u.m[i].name, name);
        assert_non_null(ddb_map_get(m, name));
    }
    assert_int_equal(memcmp(s->u.set[0]->u.s, "s00000", 6), 0);
    assert_int_equal(memcmp(s->u.set[N - 1]->u.s, "s19999", 6), 0);
    ddb_arena_free(a);
    free(text);
}

/* Equal set members are still found after the sort, named by the later one's index. */
static void duplicates_named_after_sorting(void **state)
{
    (void)state;
    const char *text = "{\"s\": {\"SS\": [\"c\", \"a\", \"b\", \"a\"]}}";
    ddb_arena *a = ddb_arena_new();
    ddb_item *it = NULL;
    ddb_error err = {0};
    assert_int_equal(ddb_json_parse_item(text, strlen(text), a, &it, &err), DDB_EVALIDATION);
    assert_non_null(strstr(err.message, "Input collection SS contains duplicates (element 3: \"a\")"));
    ddb_arena_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(decoding_moves_linear_bytes),
        cmocka_unit_test(duplicates_named_after_sorting),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
