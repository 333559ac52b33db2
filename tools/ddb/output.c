/* Printing items: DynamoDB JSON lines (the default, what `aws dynamodb`
 * and DynamoDB's export use) or a readable table; plain JSON values (for
 * OpenSearch documents and table cells). */
#include "cli.h"

#include <ddb/json.h>

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define CELL_MAX 40 /* characters shown of one table cell */

void sb_add(sbuf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) {
            fprintf(stderr, "ddb: out of memory\n");
            exit(1);
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

void sb_str(sbuf *b, const char *s)
{
    sb_add(b, s, strlen(s));
}

void sb_printf(sbuf *b, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof tmp) {
        sb_add(b, tmp, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big)
        return;
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sb_add(b, big, (size_t)n);
    free(big);
}

void sb_free(sbuf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

void sb_json_string(sbuf *b, const char *s, size_t n)
{
    sb_add(b, "\"", 1);
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        switch (ch) {
        case '"': sb_add(b, "\\\"", 2); break;
        case '\\': sb_add(b, "\\\\", 2); break;
        case '\n': sb_add(b, "\\n", 2); break;
        case '\r': sb_add(b, "\\r", 2); break;
        case '\t': sb_add(b, "\\t", 2); break;
        default:
            if (ch < 0x20)
                sb_printf(b, "\\u%04x", ch);
            else
                sb_add(b, (const char *)&ch, 1);
        }
    }
    sb_add(b, "\"", 1);
}

static void sb_base64(sbuf *b, const uint8_t *p, size_t n)
{
    char *out = malloc(DDB_JSON_BASE64_LEN(n) + 1);
    if (!out)
        return;
    ddb_json_base64_encode(p, n, out);
    sb_json_string(b, out, strlen(out));
    free(out);
}

void sb_plain_value(sbuf *b, const ddb_value *v)
{
    switch (v->type) {
    case DDB_TS: sb_json_string(b, v->u.s, v->len); break;
    case DDB_TN: sb_add(b, v->u.s, v->len); break;
    case DDB_TB: sb_base64(b, v->u.b, v->len); break;
    case DDB_TBOOL: sb_str(b, v->u.boolean ? "true" : "false"); break;
    case DDB_TNULL: sb_str(b, "null"); break;
    case DDB_TM:
        sb_add(b, "{", 1);
        for (uint32_t i = 0; i < v->len; i++) {
            if (i)
                sb_add(b, ",", 1);
            sb_json_string(b, v->u.m[i].name, v->u.m[i].name_len);
            sb_add(b, ":", 1);
            sb_plain_value(b, v->u.m[i].value);
        }
        sb_add(b, "}", 1);
        break;
    case DDB_TL:
    case DDB_TSS:
    case DDB_TNS:
    case DDB_TBS:
        sb_add(b, "[", 1);
        for (uint32_t i = 0; i < v->len; i++) {
            if (i)
                sb_add(b, ",", 1);
            sb_plain_value(b, v->type == DDB_TL ? v->u.l[i] : v->u.set[i]);
        }
        sb_add(b, "]", 1);
        break;
    default: sb_str(b, "null"); break;
    }
}

char *item_json_line(const ddb_item *it, ddb_error *err)
{
    char *s = NULL;
    return ddb_json_dump_item(it, &s, err) ? NULL : s;
}

/* ---- the printer ---- */

void printer_init(item_printer *p, cli *c, FILE *out, const ddb_table_desc *d, int default_format)
{
    memset(p, 0, sizeof *p);
    p->c = c;
    p->out = out;
    p->d = d;
    int f = c->format ? c->format : default_format;
    p->table = f == FMT_TABLE;
}

int printer_item(item_printer *p, const ddb_item *it)
{
    if (!p->table) {
        ddb_error e = {0};
        char *s = item_json_line(it, &e);
        if (!s)
            return cli_fail(p->c, &e, "printing an item");
        fprintf(p->out, "%s\n", s);
        free(s);
        return 0;
    }
    if (!p->a && !(p->a = ddb_arena_new()))
        return cli_failf(p->c, "out of memory");
    if (p->n == p->cap) {
        size_t nc = p->cap ? p->cap * 2 : 64;
        ddb_item **r = realloc(p->rows, nc * sizeof *r);
        if (!r)
            return cli_failf(p->c, "out of memory");
        p->rows = r;
        p->cap = nc;
    }
    if (!(p->rows[p->n] = ddb_item_copy(p->a, it)))
        return cli_failf(p->c, "out of memory");
    p->n++;
    return 0;
}

/* Display width of UTF-8 text (code points). */
static size_t width(const char *s, size_t n)
{
    size_t w = 0;
    for (size_t i = 0; i < n; i++)
        w += ((unsigned char)s[i] & 0xc0) != 0x80;
    return w;
}

/* The cell text of v: S as itself (control characters as '?'), the rest
 * as plain JSON; cut to CELL_MAX characters with "...". */
void sb_cell(sbuf *b, const ddb_value *v)
{
    b->len = 0;
    if (v->type == DDB_TS) {
        sb_add(b, "", 0);
        for (uint32_t i = 0; i < v->len; i++) {
            char ch = v->u.s[i];
            sb_add(b, (unsigned char)ch < 0x20 ? "?" : &ch, 1);
        }
    } else {
        sb_plain_value(b, v);
    }
    if (width(b->p, b->len) > CELL_MAX) {
        size_t i = 0, w = 0;
        while (i < b->len && w < CELL_MAX - 3) {
            i++;
            while (i < b->len && ((unsigned char)b->p[i] & 0xc0) == 0x80)
                i++;
            w++;
        }
        b->len = i;
        sb_add(b, "...", 3);
    }
}

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static void pad(FILE *f, size_t n)
{
    while (n--)
        fputc(' ', f);
}

int printer_end(item_printer *p)
{
    if (!p->table)
        return fflush(p->out) == 0 ? 0 : cli_failf(p->c, "cannot write the output");
    /* columns: the key attributes, then every other name in order */
    size_t ncol = 0, capcol = 16;
    const char **cols = malloc(capcol * sizeof *cols);
    const char *keys[2] = {p->d ? p->d->def.key.pk : NULL, p->d ? p->d->def.key.sk : NULL};
    size_t nkeys = 0;
    for (int k = 0; k < 2; k++)
        for (size_t r = 0; keys[k] && r < p->n; r++)
            if (ddb_item_get(p->rows[r], keys[k])) {
                cols[ncol++] = keys[k];
                nkeys++;
                break;
            }
    for (size_t r = 0; cols && r < p->n; r++) {
        const ddb_value *m = ddb_item_map(p->rows[r]);
        for (uint32_t i = 0; i < m->len; i++) {
            const char *name = m->u.m[i].name;
            bool seen = false;
            for (size_t j = 0; j < ncol && !seen; j++)
                seen = strcmp(cols[j], name) == 0;
            if (seen)
                continue;
            if (ncol == capcol) {
                const char **nc = realloc(cols, 2 * capcol * sizeof *nc);
                if (!nc)
                    break;
                cols = nc;
                capcol *= 2;
            }
            cols[ncol++] = name;
        }
    }
    if (!cols)
        return cli_failf(p->c, "out of memory");
    qsort(cols + nkeys, ncol - nkeys, sizeof *cols, cmp_str);
    size_t *w = calloc(ncol ? ncol : 1, sizeof *w);
    sbuf b = {0};
    for (size_t j = 0; w && j < ncol; j++) {
        w[j] = width(cols[j], strlen(cols[j]));
        for (size_t r = 0; r < p->n; r++) {
            const ddb_value *v = ddb_item_get(p->rows[r], cols[j]);
            if (v) {
                sb_cell(&b, v);
                size_t cw = width(b.p, b.len);
                w[j] = cw > w[j] ? cw : w[j];
            }
        }
    }
    for (size_t j = 0; w && j < ncol; j++) {
        fputs(cols[j], p->out);
        if (j + 1 < ncol)
            pad(p->out, w[j] - width(cols[j], strlen(cols[j])) + 2);
    }
    if (ncol)
        fputc('\n', p->out);
    for (size_t j = 0; w && j < ncol; j++) {
        for (size_t k = 0; k < w[j]; k++)
            fputc('-', p->out);
        if (j + 1 < ncol)
            pad(p->out, 2);
    }
    if (ncol)
        fputc('\n', p->out);
    sbuf line = {0};
    for (size_t r = 0; w && r < p->n; r++) {
        line.len = 0;
        for (size_t j = 0; j < ncol; j++) {
            const ddb_value *v = ddb_item_get(p->rows[r], cols[j]);
            size_t cw = 0;
            if (v) {
                sb_cell(&b, v);
                sb_add(&line, b.p, b.len);
                cw = width(b.p, b.len);
            }
            for (size_t k = 0; j + 1 < ncol && k < w[j] - cw + 2; k++)
                sb_add(&line, " ", 1);
        }
        while (line.len && line.p[line.len - 1] == ' ')
            line.len--;
        if (line.len)
            fwrite(line.p, 1, line.len, p->out);
        fputc('\n', p->out);
    }
    sb_free(&line);
    fprintf(p->out, "(%zu item%s)\n", p->n, p->n == 1 ? "" : "s");
    sb_free(&b);
    free(w);
    free(cols);
    free(p->rows);
    ddb_arena_free(p->a);
    p->rows = NULL;
    p->a = NULL;
    return fflush(p->out) == 0 ? 0 : cli_failf(p->c, "cannot write the output");
}

void printer_discard(item_printer *p)
{
    free(p->rows);
    ddb_arena_free(p->a);
    p->rows = NULL;
    p->a = NULL;
    p->n = p->cap = 0;
}
