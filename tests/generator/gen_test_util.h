/* gen_test_util.h — file helpers shared by the generator tests. */
#ifndef GEN_TEST_UTIL_H
#define GEN_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The whole file as a NUL-terminated string (caller frees), or NULL. */
static inline char *gen_read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t len = 0, cap = 0, n;
    char chunk[4096];
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (len + n + 1 > cap) {
            cap = (len + n + 1) * 2;
            char *b = realloc(buf, cap);
            if (!b) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = b;
        }
        memcpy(buf + len, chunk, n);
        len += n;
    }
    fclose(f);
    if (!buf)
        buf = calloc(1, 1);
    else
        buf[len] = '\0';
    return buf;
}

static inline int gen_write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    int rc = fputs(text, f) < 0 ? -1 : 0;
    return fclose(f) != 0 ? -1 : rc;
}

/* Prints the first line where two texts differ, to make failures readable. */
static inline void gen_show_diff(const char *what, const char *expected, const char *actual)
{
    size_t line = 1;
    const char *e = expected, *a = actual;
    while (*e && *e == *a) {
        if (*e == '\n')
            line++;
        e++, a++;
    }
    while (e > expected && e[-1] != '\n')
        e--, a--;
    fprintf(stderr, "%s: first difference at line %zu\n  expected: %.*s\n  actual:   %.*s\n", what,
            line, (int)strcspn(e, "\n"), e, (int)strcspn(a, "\n"), a);
}

/* Golden files are rewritten instead of compared when DDBGEN_UPDATE_GOLDEN=1. */
static inline int gen_update_golden(void)
{
    const char *v = getenv("DDBGEN_UPDATE_GOLDEN");
    return v && !strcmp(v, "1");
}

#endif
