/* jsonutil.c — small helpers over jansson, paths and strings. */
#include "internal.h"

#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

json_t *ddbgen_jloc(const char *file, int line, int col)
{
    return json_pack("{s:s, s:i, s:i}", "file", file ? file : "", "line", line, "col", col);
}

ddbgen_loc ddbgen_loc_of(const json_t *obj, const char *key)
{
    return ddbgen_loc_from(obj ? json_object_get(obj, key) : NULL);
}

ddbgen_loc ddbgen_loc_from(const json_t *o)
{
    ddbgen_loc l = {NULL, 0, 0};
    if (!json_is_object(o))
        return l;
    l.file = json_string_value(json_object_get(o, "file"));
    l.line = (int)json_integer_value(json_object_get(o, "line"));
    l.col = (int)json_integer_value(json_object_get(o, "col"));
    return l;
}

const char *ddbgen_jstr(const json_t *obj, const char *key)
{
    return obj ? json_string_value(json_object_get(obj, key)) : NULL;
}

long long ddbgen_jint(const json_t *obj, const char *key, long long dflt)
{
    json_t *v = obj ? json_object_get(obj, key) : NULL;
    return json_is_integer(v) ? json_integer_value(v) : dflt;
}

int ddbgen_jtrue(const json_t *obj, const char *key)
{
    return obj && json_is_true(json_object_get(obj, key));
}

json_t *ddbgen_jfind(const json_t *arr, const char *key, const char *value)
{
    size_t i;
    json_t *e;
    if (!value)
        return NULL;
    json_array_foreach(arr, i, e) {
        const char *v = ddbgen_jstr(e, key);
        if (v && !strcmp(v, value))
            return e;
    }
    return NULL;
}

char *ddbgen_display_path(const char *path)
{
    if (path[0] == '/') {
        char cwd[PATH_MAX];
        if (getcwd(cwd, sizeof cwd)) {
            size_t n = strlen(cwd);
            if (n > 1 && !strncmp(path, cwd, n) && path[n] == '/') {
                const char *rest = path + n + 1;
                while (*rest == '/')
                    rest++;
                if (*rest)
                    return strdup(rest);
            }
        }
    }
    while (path[0] == '.' && path[1] == '/' && path[2])
        path += 2;
    return strdup(path);
}

char *ddbgen_base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const char *dot = strrchr(base, '.');
    size_t n = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    return strndup(base, n);
}

void ddbgen_buf_add(ddbgen_buf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *d = realloc(b->data, cap);
        if (!d) {
            b->oom = 1;
            return;
        }
        b->data = d;
        b->cap = cap;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void ddbgen_buf_puts(ddbgen_buf *b, const char *s) { ddbgen_buf_add(b, s, strlen(s)); }

void ddbgen_buf_printf(ddbgen_buf *b, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        ddbgen_buf_add(b, small, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big) {
        b->oom = 1;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    ddbgen_buf_add(b, big, (size_t)n);
    free(big);
}

const char *ddbgen_buf_str(ddbgen_buf *b) { return b->data ? b->data : ""; }

void ddbgen_buf_free(ddbgen_buf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

char *ddbgen_json_text(const json_t *doc, size_t flags)
{
    char *s = json_dumps(doc, flags);
    if (!s)
        return NULL;
    size_t n = strlen(s);
    char *out = realloc(s, n + 2);
    if (!out) {
        free(s);
        return NULL;
    }
    memcpy(out + n, "\n", 2);
    return out;
}
