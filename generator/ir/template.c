/* template.c — the key template parser (see template.h). */
#include "template.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const part_names[] = {"", "year", "month", "day", "quarter"};
static const char *const case_names[] = {"", "lower", "upper"};

const char *ddbgen_tmpl_part_name(ddbgen_tmpl_part p) { return part_names[p]; }
const char *ddbgen_tmpl_case_name(ddbgen_tmpl_case c) { return case_names[c]; }

void ddbgen_tmpl_free(ddbgen_tmpl *t)
{
    for (size_t i = 0; i < t->count; i++)
        free(t->segs[i].text);
    free(t->segs);
    memset(t, 0, sizeof *t);
}

static int fail_hint(ddbgen_tmpl_error *err, size_t offset, const char *hint, const char *fmt,
                     const char *arg)
{
    err->offset = offset;
    snprintf(err->message, sizeof err->message, fmt, arg);
    snprintf(err->hint, sizeof err->hint, "%s", hint);
    return -1;
}

static int fail(ddbgen_tmpl_error *err, size_t offset, const char *fmt, const char *arg)
{
    return fail_hint(err, offset, "", fmt, arg);
}

static ddbgen_tmpl_seg *push(ddbgen_tmpl *t)
{
    ddbgen_tmpl_seg *segs = realloc(t->segs, (t->count + 1) * sizeof *segs);
    if (!segs)
        return NULL;
    t->segs = segs;
    ddbgen_tmpl_seg *s = &segs[t->count++];
    memset(s, 0, sizeof *s);
    return s;
}

/* Appends byte c to the literal segment being built (starting one if needed). */
static int lit_byte(ddbgen_tmpl *t, size_t offset, char c)
{
    ddbgen_tmpl_seg *s = t->count ? &t->segs[t->count - 1] : NULL;
    if (!s || s->is_field) {
        if (!(s = push(t)))
            return -1;
        s->offset = offset;
    }
    size_t n = s->text ? strlen(s->text) : 0;
    char *text = realloc(s->text, n + 2);
    if (!text)
        return -1;
    text[n] = c;
    text[n + 1] = '\0';
    s->text = text;
    return 0;
}

static int is_ident_start(char c) { return isalpha((unsigned char)c) || c == '_'; }
static int is_ident(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* Parses the hole starting at text[open] == '{'; returns the offset after '}'. */
static long parse_hole(const char *text, size_t open, ddbgen_tmpl *t, ddbgen_tmpl_error *err)
{
    size_t i = open + 1;
    size_t path_start = i;
    char one[2] = {0, 0};
    if (text[i] == '}') {
        fail_hint(err, open, "write '{{' for a literal brace", "empty field reference '{}'%s", "");
        return -1;
    }
    for (;;) {
        if (!is_ident_start(text[i])) {
            if (text[i] == '\0')
                fail(err, open, "unclosed '{'%s", "");
            else {
                one[0] = text[i];
                fail(err, i, "expected a field name, found '%s'", one);
            }
            return -1;
        }
        while (is_ident(text[i]))
            i++;
        if (text[i] != '.')
            break;
        i++;
    }
    size_t path_end = i;
    int pad = 0;
    ddbgen_tmpl_part part = DDBGEN_PART_NONE;
    ddbgen_tmpl_case kase = DDBGEN_CASE_NONE;
    if (text[i] == ':') {
        size_t fmt_start = i;
        i++;
        size_t d = i;
        while (isdigit((unsigned char)text[i]))
            i++;
        if (text[d] != '0' || i - d < 2 || i - d > 3 || (text[i] != '}' && text[i] != '|')) {
            size_t e = fmt_start + 1;
            while (text[e] && text[e] != '}' && text[e] != '|')
                e++;
            char fmt[64];
            snprintf(fmt, sizeof fmt, "%.*s", (int)(e - fmt_start), text + fmt_start);
            if (!text[e])
                return fail(err, open, "unclosed '{'%s", "");
            return fail_hint(err, fmt_start,
                             "the only format is ':0N' (zero-pad an integer to width N, e.g. ':06')",
                             "unknown format '%s'", fmt);
        }
        pad = atoi(text + d + 1);
        if (pad < 1 || pad > 40)
            return fail(err, fmt_start, "zero-pad width must be between 1 and 40%s", "");
    }
    if (text[i] == '|') {
        size_t f = ++i;
        while (is_ident(text[i]))
            i++;
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(i - f), text + f);
        if (text[i] != '}') {
            if (!text[i])
                return fail(err, open, "unclosed '{'%s", "");
            one[0] = text[i];
            return fail(err, i, "expected '}' after the filter, found '%s'", one);
        }
        for (int p = 1; p <= 4; p++)
            if (!strcmp(name, part_names[p]))
                part = (ddbgen_tmpl_part)p;
        for (int c = 1; c <= 2; c++)
            if (!strcmp(name, case_names[c]))
                kase = (ddbgen_tmpl_case)c;
        if (!part && !kase)
            return fail_hint(err, f - 1, "expected |year, |month, |day, |quarter, |lower or |upper",
                             "unknown filter '|%s'", name);
    }
    if (text[i] != '}') {
        if (!text[i])
            return fail(err, open, "unclosed '{'%s", "");
        one[0] = text[i];
        return fail(err, i, "unexpected '%s' in field reference", one);
    }
    ddbgen_tmpl_seg *s = push(t);
    if (!s || !(s->text = strndup(text + path_start, path_end - path_start)))
        return fail(err, open, "out of memory%s", "");
    s->is_field = 1;
    s->offset = open;
    s->pad = pad;
    s->part = part;
    s->kase = kase;
    t->fields++;
    return (long)i + 1;
}

int ddbgen_tmpl_parse(const char *text, ddbgen_tmpl *out, ddbgen_tmpl_error *err)
{
    memset(out, 0, sizeof *out);
    size_t i = 0;
    while (text[i]) {
        if (text[i] == '{' && text[i + 1] == '{') {
            if (lit_byte(out, i, '{'))
                return fail(err, i, "out of memory%s", "");
            i += 2;
        } else if (text[i] == '}' && text[i + 1] == '}') {
            if (lit_byte(out, i, '}'))
                return fail(err, i, "out of memory%s", "");
            i += 2;
        } else if (text[i] == '}') {
            return fail_hint(err, i, "write '}}' for a literal brace", "unmatched '}'%s", "");
        } else if (text[i] == '{') {
            long next = parse_hole(text, i, out, err);
            if (next < 0)
                return -1;
            i = (size_t)next;
        } else {
            if (lit_byte(out, i, text[i]))
                return fail(err, i, "out of memory%s", "");
            i++;
        }
    }
    return 0;
}
