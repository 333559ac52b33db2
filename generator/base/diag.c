/* diag.c — collecting and printing diagnostics (see diag.h). */
#include "diag.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef struct note {
    char *file;
    int line, col;
    char *msg;
} note;

struct ddbgen_diag {
    ddbgen_severity sev;
    char *file;
    int line, col;
    char *msg;
    size_t seq;
    note *notes;
    size_t note_count;
};

void ddbgen_diags_init(ddbgen_diags *d) { memset(d, 0, sizeof *d); }

void ddbgen_diags_demote(ddbgen_diags *d)
{
    for (size_t i = 0; i < d->count; i++)
        if (d->items[i].sev == DDBGEN_ERROR)
            d->items[i].sev = DDBGEN_NOTE;
    d->notes += d->errors;
    d->errors = 0;
}

void ddbgen_diags_free(ddbgen_diags *d)
{
    for (size_t i = 0; i < d->count; i++) {
        ddbgen_diag *g = &d->items[i];
        free(g->file);
        free(g->msg);
        for (size_t j = 0; j < g->note_count; j++) {
            free(g->notes[j].file);
            free(g->notes[j].msg);
        }
        free(g->notes);
    }
    free(d->items);
    memset(d, 0, sizeof *d);
}

static char *vformat(const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return NULL;
    char *s = malloc((size_t)n + 1);
    if (s)
        vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

long ddbgen_diag_add(ddbgen_diags *d, ddbgen_severity sev, ddbgen_loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    long r = ddbgen_diag_vadd(d, sev, loc, fmt, ap);
    va_end(ap);
    return r;
}

long ddbgen_diag_vadd(ddbgen_diags *d, ddbgen_severity sev, ddbgen_loc loc, const char *fmt,
                      va_list ap)
{
    if (d->count == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 16;
        ddbgen_diag *items = realloc(d->items, cap * sizeof *items);
        if (!items)
            return -1;
        d->items = items;
        d->cap = cap;
    }
    char *msg = vformat(fmt, ap);
    if (!msg)
        return -1;
    ddbgen_diag *g = &d->items[d->count];
    memset(g, 0, sizeof *g);
    g->sev = sev;
    g->file = dup_or_null(loc.file);
    g->line = loc.line;
    g->col = loc.col;
    g->msg = msg;
    g->seq = d->count;
    if (sev == DDBGEN_ERROR)
        d->errors++;
    else if (sev == DDBGEN_WARNING)
        d->warnings++;
    else
        d->notes++;
    return (long)d->count++;
}

void ddbgen_diag_note(ddbgen_diags *d, long parent, ddbgen_loc loc, const char *fmt, ...)
{
    if (parent < 0 || (size_t)parent >= d->count)
        return;
    ddbgen_diag *g = &d->items[parent];
    note *notes = realloc(g->notes, (g->note_count + 1) * sizeof *notes);
    if (!notes)
        return;
    g->notes = notes;
    va_list ap;
    va_start(ap, fmt);
    char *msg = vformat(fmt, ap);
    va_end(ap);
    if (!msg)
        return;
    note *n = &g->notes[g->note_count++];
    n->file = dup_or_null(loc.file);
    n->line = loc.line;
    n->col = loc.col;
    n->msg = msg;
}

void ddbgen_diags_append(ddbgen_diags *dst, const ddbgen_diags *src, ddbgen_severity min)
{
    for (size_t i = 0; i < src->count; i++) {
        const ddbgen_diag *g = &src->items[i];
        if (g->sev < min)
            continue;
        ddbgen_loc l = {g->file, g->line, g->col};
        long h = ddbgen_diag_add(dst, g->sev, l, "%s", g->msg);
        for (size_t j = 0; j < g->note_count; j++) {
            ddbgen_loc nl = {g->notes[j].file, g->notes[j].line, g->notes[j].col};
            ddbgen_diag_note(dst, h, nl, "%s", g->notes[j].msg);
        }
    }
}

static int cmp_str(const char *a, const char *b)
{
    if (!a || !b)
        return (a != NULL) - (b != NULL);
    return strcmp(a, b);
}

static int cmp_diag(const void *pa, const void *pb)
{
    const ddbgen_diag *a = *(const ddbgen_diag *const *)pa, *b = *(const ddbgen_diag *const *)pb;
    int c = cmp_str(a->file, b->file);
    if (c)
        return c;
    if (a->line != b->line)
        return a->line < b->line ? -1 : 1;
    if (a->col != b->col)
        return a->col < b->col ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static const char *sev_name(ddbgen_severity s)
{
    return s == DDBGEN_ERROR ? "error" : s == DDBGEN_WARNING ? "warning" : "note";
}

static void print_one(FILE *out, const char *file, int line, int col, ddbgen_severity sev,
                      const char *msg)
{
    if (!file)
        fprintf(out, "ddbgen: %s: %s\n", sev_name(sev), msg);
    else if (line <= 0)
        fprintf(out, "%s: %s: %s\n", file, sev_name(sev), msg);
    else
        fprintf(out, "%s:%d:%d: %s: %s\n", file, line, col > 0 ? col : 1, sev_name(sev), msg);
}

void ddbgen_diags_print(const ddbgen_diags *d, FILE *out)
{
    if (d->count == 0)
        return;
    const ddbgen_diag **order = malloc(d->count * sizeof *order);
    if (!order) {
        fputs("ddbgen: error: out of memory\n", out);
        return;
    }
    for (size_t i = 0; i < d->count; i++)
        order[i] = &d->items[i];
    qsort(order, d->count, sizeof *order, cmp_diag);
    for (size_t i = 0; i < d->count; i++) {
        const ddbgen_diag *g = order[i];
        print_one(out, g->file, g->line, g->col, g->sev, g->msg);
        for (size_t j = 0; j < g->note_count; j++)
            print_one(out, g->notes[j].file, g->notes[j].line, g->notes[j].col, DDBGEN_NOTE,
                      g->notes[j].msg);
    }
    free(order);
}

char *ddbgen_diags_string(const ddbgen_diags *d)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    ddbgen_diags_print(d, f);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}
