/* import: the items of the input, read one line at a time in DynamoDB's
 * JSON-lines export format (import_next), each bad line named by file and
 * line (import_fail), and the table key of an item; shared by the default
 * mode (cmd_import.c) and the all-or-nothing one (import_atomic.c).  Calls
 * cli.h's line reader, <ddb/json.h> and libddb. */
#include "import.h"

#include <ddb/json.h>

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int import_fail(import_src *s, unsigned long line, const char *fmt, ...)
{
    int n = snprintf(s->msg, sizeof s->msg, "%s:%lu: ", s->lr.src, line);
    va_list ap;
    va_start(ap, fmt);
    if (n > 0 && (size_t)n < sizeof s->msg)
        vsnprintf(s->msg + n, sizeof s->msg - (size_t)n, fmt, ap);
    va_end(ap);
    s->bad = line;
    return -1;
}

/* One line: {"Item": {...}} holding one item in DynamoDB JSON. */
static int parse_line(import_src *s, const char *line, size_t len, ddb_arena *a, ddb_item **out)
{
    const char *nul = memchr(line, '\0', len);
    if (nul)
        return import_fail(s, s->lr.no, "a NUL byte at column %zu: not a line of JSON (is this a binary file?)",
                        (size_t)(nul - line) + 1);
    json_error_t je;
    json_t *j = json_loadb(line, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &je); /* export writes U+0000 as \u0000 */
    json_t *item = j ? json_object_get(j, "Item") : NULL;
    if (!j)
        return import_fail(s, s->lr.no, "malformed JSON (column %d): %s", je.column, je.text);
    if (!json_is_object(item) || json_object_size(j) != 1) {
        json_decref(j);
        return import_fail(s, s->lr.no, "expected {\"Item\": {...}}, DynamoDB's export format");
    }
    ddb_error e = {0};
    int rc = ddb_json_to_item(item, a, out, &e);
    json_decref(j);
    return rc ? import_fail(s, s->lr.no, "%s", e.message) : 0;
}

int import_next(import_src *s, ddb_arena *a, ddb_item **it)
{
    char *line;
    size_t len;
    int got;
    while ((got = lr_next(&s->lr, &line, &len)) == 1) {
        if (s->lr.no < s->from || len == strspn(line, " \t")) /* resumed past it, or blank: no item */
            continue;
        if (!parse_line(s, line, len, a, it))
            return 1;
        if (lr_check_rest(&s->lr)) /* the line is damaged data, not a bad item */
            snprintf(s->msg, sizeof s->msg, "%s; line %lu, decoded from it, is no item", s->lr.error, s->bad);
        return -1;
    }
    if (got < 0) {
        snprintf(s->msg, sizeof s->msg, "%s", s->lr.error);
        s->bad = s->lr.error_line;
        return -1;
    }
    if (s->lr.no < s->from && !(s->lr.no == 0 && s->from == 1)) { /* an empty file (an empty table's export): no items */
        snprintf(s->msg, sizeof s->msg, "--resume %lu: %s has only %lu line%s", s->from, s->lr.src, s->lr.no,
                 s->lr.no == 1 ? "" : "s");
        s->bad = s->lr.no + 1;
        return -1;
    }
    return 0;
}

ddb_item *import_key(const ddb_table_desc *d, ddb_arena *a, const ddb_item *it)
{
    ddb_item *k = ddb_item_new(a);
    const char *names[2] = {d->def.key.pk, d->def.key.sk};
    for (int i = 0; k && i < 2 && names[i]; i++) {
        const ddb_value *v = ddb_item_get(it, names[i]);
        ddb_value *copy = v ? ddb_value_copy(a, v) : NULL;
        if (v && (!copy || ddb_item_set(k, names[i], copy)))
            return NULL;
    }
    return k;
}

bool import_same_key(const ddb_table_desc *d, const ddb_item *x, const ddb_item *y)
{
    const char *k[2] = {d->def.key.pk, d->def.key.sk};
    for (int i = 0; i < 2 && k[i]; i++) {
        const ddb_value *a = ddb_item_get(x, k[i]), *b = ddb_item_get(y, k[i]);
        if (!a || !b || !ddb_value_equal(a, b))
            return false;
    }
    return true;
}
