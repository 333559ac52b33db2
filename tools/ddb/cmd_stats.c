/* stats: ddb_table_report_build printed as text, JSON, or drawn as SVG
 * (the per-partition heat over the partition-hash space), with what the
 * report alone does not show: each partition's consumed capacity per
 * second over the recorded window (ddb_table_stats) against the limits of
 * one partition, and the write shards of one logical key
 * (DDB_WRITE_SHARDS: keys "<key>.<n>") side by side. */
#include "cli.h"

#include <ddb/json.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- text ---- */

/* A small grid: cells are strings; right-aligned columns for numbers. */
typedef struct grid {
    size_t ncol, nrow, cap;
    char **cells; /* nrow * ncol */
} grid;

static void grid_row(grid *g, ...)
{
    if (g->nrow == g->cap) {
        g->cap = g->cap ? 2 * g->cap : 16;
        char **nc = realloc(g->cells, g->cap * g->ncol * sizeof *nc);
        if (!nc) {
            fprintf(stderr, "ddb: out of memory\n");
            exit(1);
        }
        g->cells = nc;
    }
    va_list ap;
    va_start(ap, g);
    for (size_t j = 0; j < g->ncol; j++) {
        const char *s = va_arg(ap, const char *);
        g->cells[g->nrow * g->ncol + j] = strdup(s ? s : "");
    }
    va_end(ap);
    g->nrow++;
}

static size_t u8width(const char *s)
{
    size_t w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xc0) != 0x80;
    return w;
}

/* Row 0 is the header; right[j]: right-align column j. */
static void grid_print(grid *g, const bool *right, FILE *f)
{
    size_t w[16] = {0};
    for (size_t r = 0; r < g->nrow; r++)
        for (size_t j = 0; j < g->ncol; j++) {
            size_t cw = u8width(g->cells[r * g->ncol + j]);
            w[j] = cw > w[j] ? cw : w[j];
        }
    for (size_t r = 0; r < g->nrow; r++) {
        fputs("  ", f);
        for (size_t j = 0; j < g->ncol; j++) {
            const char *s = g->cells[r * g->ncol + j];
            size_t padn = w[j] - u8width(s);
            if (right[j])
                for (size_t k = 0; k < padn; k++)
                    fputc(' ', f);
            fputs(s, f);
            if (!right[j] && j + 1 < g->ncol)
                for (size_t k = 0; k < padn; k++)
                    fputc(' ', f);
            if (j + 1 < g->ncol)
                fputs("  ", f);
        }
        fputc('\n', f);
    }
    for (size_t i = 0; i < g->nrow * g->ncol; i++)
        free(g->cells[i]);
    free(g->cells);
    memset(g, 0, sizeof *g);
}

static const char *fmt_u(char *b, uint64_t v)
{
    snprintf(b, 32, "%" PRIu64, v);
    return b;
}

static const char *fmt_d(char *b, double v)
{
    snprintf(b, 32, "%.1f", v);
    return b;
}

/* ---- what the report alone does not show ---- */

/* The per-second timeline of each partition (ddb_table_stats), aligned with
 * the report's partitions; NULL seconds when the backend keeps none. */
typedef struct timeline {
    const ddb_partition_stats *parts; /* r->n_parts of them, or NULL */
    int64_t first, last;              /* the window's seconds (both 0 when empty) */
    const ddb_table_report *full;     /* the report with every key read (for the shards) */
} timeline;

/* The keys read for grouping write shards (the lists print --top of them). */
#define SHARD_KEYS 1024

/* Partition DynamoDB limits: what one partition serves per second. */
#define PART_RCU 3000.0
#define PART_WCU 1000.0

static void timeline_load(ddb *db, const ddb_table_report *r, ddb_arena *a, timeline *tl)
{
    memset(tl, 0, sizeof *tl);
    ddb_partition_stats *ps;
    size_t n;
    ddb_error e;
    if (ddb_table_stats(db, r->table, a, &ps, &n, &e) || n != r->n_parts)
        return; /* not kept by this backend, or the table split in between */
    for (size_t i = 0; i < n; i++)
        if (ps[i].hash_lo != r->parts[i].hash_lo)
            return;
    tl->parts = ps;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < ps[i].n_seconds; j++) {
            int64_t sec = ps[i].seconds[j].second;
            tl->last = sec > tl->last ? sec : tl->last;
        }
    /* the axis spans the recorded seconds, at most the window */
    tl->first = tl->last;
    for (size_t i = 0; i < n; i++)
        if (ps[i].n_seconds && ps[i].seconds[0].second < tl->first)
            tl->first = ps[i].seconds[0].second;
}

/* A partition key "<base>.<n>": the write shard n of logical key base
 * (DDB_WRITE_SHARDS).  *blen = strlen(base); -1 when pk is not one. */
static long shard_of(const ddb_value *pk, size_t *blen)
{
    if (!pk || pk->type != DDB_TS)
        return -1;
    const char *dot = strrchr(pk->u.s, '.');
    if (!dot || dot == pk->u.s || !dot[1] || strspn(dot + 1, "0123456789") != strlen(dot + 1) ||
        strlen(dot + 1) > 2)
        return -1;
    *blen = (size_t)(dot - pk->u.s);
    return strtol(dot + 1, NULL, 10);
}

/* Keys of the report that are write shards of one logical key: at least
 * two shards of the same base.  Each group: its keys in shard order. */
typedef struct shard_group {
    const ddb_value *first; /* a key of the group (its base is the logical key) */
    size_t blen;
    const ddb_key_report *shard[64];
    const ddb_key_report *hot[64];
    int n_shards;            /* highest shard number seen + 1 */
    uint64_t items, bytes, writes;
} shard_group;

static size_t shard_groups(const ddb_table_report *r, shard_group *g, size_t cap)
{
    size_t n = 0;
    for (int pass = 0; pass < 2; pass++) {
        const ddb_key_report *keys = pass ? r->hot : r->collections;
        size_t nk = pass ? r->n_hot : r->n_collections;
        for (size_t i = 0; i < nk; i++) {
            size_t blen;
            long sh = shard_of(keys[i].pk, &blen);
            if (sh < 0 || sh >= 64)
                continue;
            size_t j = 0;
            while (j < n && !(g[j].blen == blen && !memcmp(g[j].first->u.s, keys[i].pk->u.s, blen)))
                j++;
            if (j == n) {
                if (n == cap)
                    continue;
                memset(&g[n], 0, sizeof g[n]);
                g[n].first = keys[i].pk;
                g[n].blen = blen;
                n++;
            }
            if (pass) {
                g[j].hot[sh] = &keys[i];
                g[j].writes += keys[i].writes;
            } else {
                g[j].shard[sh] = &keys[i];
                g[j].items += keys[i].items;
                g[j].bytes += keys[i].bytes;
            }
            g[j].n_shards = (int)sh + 1 > g[j].n_shards ? (int)sh + 1 : g[j].n_shards;
        }
    }
    /* a lone "x.1" is a key with a dot, not a write-sharded one */
    size_t kept = 0;
    for (size_t j = 0; j < n; j++) {
        int seen = 0;
        for (int s = 0; s < g[j].n_shards; s++)
            seen += g[j].shard[s] || g[j].hot[s];
        if (seen >= 2)
            g[kept++] = g[j];
    }
    return kept;
}

static void print_shard_groups(const ddb_table_report *r)
{
    static shard_group g[16];
    size_t n = shard_groups(r, g, 16);
    if (!n)
        return;
    printf("\nwrite-sharded partition keys (the shards of one logical key side by side)\n");
    char a[32], b[32], c[32], d[32], base[300], sh[16];
    for (size_t j = 0; j < n; j++) {
        snprintf(base, sizeof base, "%.*s", (int)(g[j].blen > 250 ? 250 : g[j].blen), g[j].first->u.s);
        printf("  %s: %d shards, %" PRIu64 " items, %" PRIu64 " bytes, %" PRIu64 " writes in the stream\n", base,
               g[j].n_shards, g[j].items, g[j].bytes, g[j].writes);
        grid t = {5, 0, 0, NULL};
        grid_row(&t, "shard", "partition", "items", "bytes", "writes");
        for (int s = 0; s < g[j].n_shards; s++) {
            const ddb_key_report *k = g[j].shard[s] ? g[j].shard[s] : g[j].hot[s];
            snprintf(sh, sizeof sh, ".%d", s);
            grid_row(&t, sh, k ? fmt_u(a, k->partition) : "-", fmt_u(b, g[j].shard[s] ? g[j].shard[s]->items : 0),
                     fmt_u(c, g[j].shard[s] ? g[j].shard[s]->bytes : 0),
                     fmt_u(d, g[j].hot[s] ? g[j].hot[s]->writes : 0));
        }
        static const bool rs[] = {false, true, true, true, true};
        grid_print(&t, rs, stdout);
    }
}

static void print_timeline(const ddb_table_report *r, const timeline *tl)
{
    if (!tl->parts || !tl->last)
        return;
    printf("\ncapacity per second (the recorded window: %d seconds up to %" PRId64
           "; one partition serves at most 3000 RCU/s and 1000 WCU/s)\n",
           DDB_STATS_SECONDS, tl->last);
    grid g = {7, 0, 0, NULL};
    grid_row(&g, "partition", "seconds", "peak RCU/s", "peak WCU/s", "at RCU limit", "at WCU limit", "throttled");
    char a[32], b[32], c[32], d[32], e[32], f[32], idx[32];
    for (size_t i = 0; i < r->n_parts; i++) {
        const ddb_partition_stats *p = &tl->parts[i];
        double pr = 0, pw = 0;
        uint64_t at_r = 0, at_w = 0, th = 0;
        for (size_t j = 0; j < p->n_seconds; j++) {
            const ddb_second_units *u = &p->seconds[j];
            pr = u->read_units > pr ? u->read_units : pr;
            pw = u->write_units > pw ? u->write_units : pw;
            at_r += u->read_units >= PART_RCU;
            at_w += u->write_units >= PART_WCU;
            th += u->throttled;
        }
        grid_row(&g, fmt_u(idx, i), fmt_u(a, p->n_seconds), fmt_d(b, pr), fmt_d(c, pw), fmt_u(d, at_r),
                 fmt_u(e, at_w), fmt_u(f, th));
    }
    static const bool rt[] = {true, true, true, true, true, true, true};
    grid_print(&g, rt, stdout);
}

static void print_text(const ddb_table_report *r, const timeline *tl)
{
    printf("table %s: %" PRIu64 " item%s, %" PRIu64 " bytes, %zu partition%s; write heat from %" PRIu64
           " stream record%s\n",
           r->table, r->items, r->items == 1 ? "" : "s", r->bytes, r->n_parts, r->n_parts == 1 ? "" : "s",
           r->stream_records, r->stream_records == 1 ? "" : "s");
    char a[32], b[32], c[32], d[32], e[32], f[32], h[64], idx[32];
    grid g = {9, 0, 0, NULL};
    grid_row(&g, "partition", "hash range", "items", "bytes", "RCU", "WCU", "throttled", "stream writes",
             "stream WCU");
    for (size_t i = 0; i < r->n_parts; i++) {
        const ddb_partition_report *p = &r->parts[i];
        snprintf(h, sizeof h, "%016" PRIx64 "..%016" PRIx64, p->hash_lo, p->hash_hi);
        char th[32], sw[32];
        grid_row(&g, fmt_u(idx, i), h, fmt_u(a, p->item_count), fmt_u(b, p->size_bytes), fmt_d(c, p->read_units),
                 fmt_d(d, p->write_units), fmt_u(th, p->throttled), fmt_u(sw, p->stream_writes),
                 fmt_d(e, p->stream_write_units));
    }
    printf("\npartitions (capacity consumed since the table was created)\n");
    static const bool rp[] = {true, false, true, true, true, true, true, true, true};
    grid_print(&g, rp, stdout);
    print_timeline(r, tl);

    sbuf k = {0};
    static const bool rk[] = {false, true, true, true};
    printf("\nlargest item collections\n");
    if (!r->n_collections)
        printf("  (none)\n");
    else {
        g = (grid){4, 0, 0, NULL};
        grid_row(&g, "partition key", "partition", "items", "bytes");
        for (size_t i = 0; i < r->n_collections; i++) {
            const ddb_key_report *x = &r->collections[i];
            sb_cell(&k, x->pk);
            grid_row(&g, k.p, fmt_u(a, x->partition), fmt_u(b, x->items), fmt_u(c, x->bytes));
        }
        grid_print(&g, rk, stdout);
    }
    printf("\nmost written partition keys (in the stream)\n");
    if (!r->n_hot)
        printf("  (none)\n");
    else {
        g = (grid){4, 0, 0, NULL};
        grid_row(&g, "partition key", "partition", "writes", "WCU");
        for (size_t i = 0; i < r->n_hot; i++) {
            const ddb_key_report *x = &r->hot[i];
            sb_cell(&k, x->pk);
            grid_row(&g, k.p, fmt_u(a, x->partition), fmt_u(b, x->writes), fmt_d(c, x->write_units));
        }
        grid_print(&g, rk, stdout);
    }
    print_shard_groups(tl->full);
    printf("\nindexes\n");
    if (!r->n_indexes)
        printf("  (none)\n");
    else {
        g = (grid){4, 0, 0, NULL};
        grid_row(&g, "index", "kind", "entries", "bytes");
        for (size_t i = 0; i < r->n_indexes; i++)
            grid_row(&g, r->indexes[i].name, r->indexes[i].local ? "local" : "global", fmt_u(a, r->indexes[i].items),
                     fmt_u(b, r->indexes[i].bytes));
        static const bool ri[] = {false, false, true, true};
        grid_print(&g, ri, stdout);
    }
    (void)f;
    sb_free(&k);
}

/* ---- JSON ---- */

static json_t *key_json(const ddb_key_report *x, bool writes)
{
    json_t *pk = NULL;
    ddb_json_from_value(x->pk, &pk, NULL);
    char h[32];
    snprintf(h, sizeof h, "%016" PRIx64, x->hash);
    json_t *o = json_pack("{s:o,s:s,s:I}", "pk", pk ? pk : json_null(), "hash", h, "partition", (json_int_t)x->partition);
    if (writes) {
        json_object_set_new(o, "writes", json_integer((json_int_t)x->writes));
        json_object_set_new(o, "write_units", json_real(x->write_units));
    } else {
        json_object_set_new(o, "items", json_integer((json_int_t)x->items));
        json_object_set_new(o, "bytes", json_integer((json_int_t)x->bytes));
    }
    return o;
}

static json_t *timeline_json(const ddb_partition_stats *p)
{
    json_t *arr = json_array();
    for (size_t j = 0; p && j < p->n_seconds; j++)
        json_array_append_new(arr, json_pack("{s:I,s:f,s:f,s:I}", "second", (json_int_t)p->seconds[j].second,
                                             "read_units", p->seconds[j].read_units, "write_units",
                                             p->seconds[j].write_units, "throttled",
                                             (json_int_t)p->seconds[j].throttled));
    return arr;
}

static json_t *shard_groups_json(const ddb_table_report *r)
{
    static shard_group g[16];
    size_t n = shard_groups(r, g, 16);
    json_t *arr = json_array();
    for (size_t j = 0; j < n; j++) {
        json_t *shards = json_array();
        for (int s = 0; s < g[j].n_shards; s++) {
            const ddb_key_report *k = g[j].shard[s] ? g[j].shard[s] : g[j].hot[s];
            json_array_append_new(shards, json_pack("{s:I,s:I,s:I,s:I}", "partition",
                                                    (json_int_t)(k ? (json_int_t)k->partition : -1), "items",
                                                    (json_int_t)(g[j].shard[s] ? g[j].shard[s]->items : 0), "bytes",
                                                    (json_int_t)(g[j].shard[s] ? g[j].shard[s]->bytes : 0), "writes",
                                                    (json_int_t)(g[j].hot[s] ? g[j].hot[s]->writes : 0)));
        }
        json_array_append_new(arr, json_pack("{s:s%,s:o}", "key", g[j].first->u.s, g[j].blen, "shards", shards));
    }
    return arr;
}

static void print_json(const ddb_table_report *r, const timeline *tl)
{
    json_t *parts = json_array(), *colls = json_array(), *hot = json_array(), *ix = json_array();
    for (size_t i = 0; i < r->n_parts; i++) {
        const ddb_partition_report *p = &r->parts[i];
        char lo[32], hi[32];
        snprintf(lo, sizeof lo, "%016" PRIx64, p->hash_lo);
        snprintf(hi, sizeof hi, "%016" PRIx64, p->hash_hi);
        json_array_append_new(parts, json_pack("{s:s,s:s,s:I,s:I,s:f,s:f,s:I,s:I,s:f}", "hash_lo", lo, "hash_hi", hi,
                                               "items", (json_int_t)p->item_count, "bytes", (json_int_t)p->size_bytes,
                                               "read_units", p->read_units, "write_units", p->write_units, "throttled",
                                               (json_int_t)p->throttled, "stream_writes",
                                               (json_int_t)p->stream_writes, "stream_write_units",
                                               p->stream_write_units));
        json_object_set_new(json_array_get(parts, i), "timeline", timeline_json(tl->parts ? &tl->parts[i] : NULL));
    }
    for (size_t i = 0; i < r->n_collections; i++)
        json_array_append_new(colls, key_json(&r->collections[i], false));
    for (size_t i = 0; i < r->n_hot; i++)
        json_array_append_new(hot, key_json(&r->hot[i], true));
    for (size_t i = 0; i < r->n_indexes; i++)
        json_array_append_new(ix, json_pack("{s:s,s:s,s:I,s:I}", "name", r->indexes[i].name, "kind",
                                            r->indexes[i].local ? "local" : "global", "entries",
                                            (json_int_t)r->indexes[i].items, "bytes", (json_int_t)r->indexes[i].bytes));
    json_t *o = json_pack("{s:s,s:I,s:I,s:I,s:o,s:o,s:o,s:o}", "table", r->table, "items", (json_int_t)r->items,
                          "bytes", (json_int_t)r->bytes, "stream_records", (json_int_t)r->stream_records,
                          "partitions", parts, "largest_collections", colls, "most_written_keys", hot, "indexes", ix);
    json_object_set_new(o, "write_sharded_keys", shard_groups_json(tl->full));
    char *s = json_dumps(o, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    printf("%s\n", s ? s : "{}");
    free(s);
    json_decref(o);
}

/* ---- SVG ---- */

#define SVG_W 1000
#define LEFT 170
#define RIGHT 30
#define BAR_W (SVG_W - LEFT - RIGHT)
#define ROW_H 46

static void xml_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default:
            if ((unsigned char)*s >= 0x20)
                fputc(*s, f);
        }
    }
}

/* x of a partition hash (the whole 2^64 space spans BAR_W) */
static double hx(uint64_t h)
{
    return LEFT + (double)h / 18446744073709551616.0 * BAR_W;
}

/* Heat colour for t in [0, 1]: pale yellow -> orange -> red; grey for 0. */
static void heat(double t, char out[8])
{
    if (t <= 0) {
        strcpy(out, "#eeeeee");
        return;
    }
    static const double stop[3][3] = {{255, 237, 160}, {254, 178, 76}, {189, 0, 38}};
    double u = t < 0.5 ? t * 2 : (t - 0.5) * 2;
    const double *x = stop[t < 0.5 ? 0 : 1], *y = stop[t < 0.5 ? 1 : 2];
    snprintf(out, 8, "#%02x%02x%02x", (int)(x[0] + (y[0] - x[0]) * u), (int)(x[1] + (y[1] - x[1]) * u),
             (int)(x[2] + (y[2] - x[2]) * u));
}

typedef double (*metric)(const ddb_partition_report *p);
static double m_bytes(const ddb_partition_report *p) { return (double)p->size_bytes; }
static double m_capacity(const ddb_partition_report *p) { return p->read_units + p->write_units; }
static double m_stream(const ddb_partition_report *p) { return p->stream_write_units; }

static void svg_row(FILE *f, const ddb_table_report *r, int y, const char *label, const char *unit, metric m)
{
    double max = 0;
    for (size_t i = 0; i < r->n_parts; i++)
        max = m(&r->parts[i]) > max ? m(&r->parts[i]) : max;
    fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"label\">", LEFT - 10, y + ROW_H / 2 - 2);
    xml_text(f, label);
    fprintf(f, "</text>\n<text x=\"%d\" y=\"%d\" class=\"unit\">", LEFT - 10, y + ROW_H / 2 + 12);
    xml_text(f, unit);
    fprintf(f, "</text>\n");
    for (size_t i = 0; i < r->n_parts; i++) {
        const ddb_partition_report *p = &r->parts[i];
        double x0 = hx(p->hash_lo), x1 = p->hash_hi == UINT64_MAX ? LEFT + BAR_W : hx(p->hash_hi + 1);
        double v = m(p);
        char col[8];
        heat(max > 0 ? v / max : 0, col);
        fprintf(f,
                "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\" stroke=\"#ffffff\" "
                "stroke-width=\"1\"><title>partition %zu: %.1f %s</title></rect>\n",
                x0, y, x1 - x0, ROW_H - 6, col, i, v, unit);
        if (x1 - x0 > 44)
            fprintf(f, "<text x=\"%.2f\" y=\"%d\" class=\"val\"%s>%.*f</text>\n", (x0 + x1) / 2, y + ROW_H / 2 + 2,
                    max > 0 && v / max > 0.6 ? " fill=\"#ffffff\"" : "", v == floor(v) ? 0 : 1, v);
    }
}

#define TL_H 120     /* one partition's timeline panels */
#define SHARD_ROW 40 /* one logical key's shards */

static void fmt_units(char *b, size_t n, double v)
{
    if (v >= 1000)
        snprintf(b, n, "%d,%03d", (int)(v / 1000), (int)fmod(v, 1000));
    else
        snprintf(b, n, "%d", (int)v);
}

/* One panel: the partition's units per second over the window as bars,
 * with the partition limit as a dashed line; throttled seconds in red. */
static void svg_panel(FILE *f, const timeline *tl, const ddb_partition_stats *p, bool write, double x0, int y0,
                      double w, int h)
{
    double limit = write ? PART_WCU : PART_RCU, max = 0;
    for (size_t j = 0; j < p->n_seconds; j++) {
        double v = write ? p->seconds[j].write_units : p->seconds[j].read_units;
        max = v > max ? v : max;
    }
    double top = (max > limit ? max : limit) * 1.15;
    fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"#fafafa\" stroke=\"#ccc\"/>\n", x0,
            y0, w, h);
    double bw = w / (double)(tl->last - tl->first + 1);
    for (size_t j = 0; j < p->n_seconds; j++) {
        const ddb_second_units *u = &p->seconds[j];
        double v = write ? u->write_units : u->read_units, bh = v / top * h;
        double x = x0 + (double)(u->second - tl->first) * bw;
        const char *col = u->throttled ? "#bd0026" : write ? "#fd8d3c" : "#3182bd";
        fprintf(f,
                "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"><title>second %" PRId64
                ": %.1f %s%s</title></rect>\n",
                x, y0 + h - bh, bw > 1.5 ? bw - 0.5 : bw, bh, col, u->second, v, write ? "WCU" : "RCU",
                u->throttled ? ", throttled" : "");
    }
    double ly = y0 + h - limit / top * h;
    char lim[32];
    fmt_units(lim, sizeof lim, limit);
    fprintf(f,
            "<line x1=\"%.1f\" y1=\"%.2f\" x2=\"%.1f\" y2=\"%.2f\" stroke=\"#bd0026\" stroke-dasharray=\"5,3\"/>\n"
            "<text x=\"%.1f\" y=\"%.2f\" class=\"unit\" style=\"text-anchor:end\">%s %s/s per partition</text>\n",
            x0, ly, x0 + w, ly, x0 + w - 4, ly - 3, lim, write ? "WCU" : "RCU");
    char pk[32];
    fmt_units(pk, sizeof pk, max);
    fprintf(f, "<text x=\"%.1f\" y=\"%d\" class=\"unit\" style=\"text-anchor:start\">%s/s, peak %s</text>\n",
            x0 + 4, y0 + 12, write ? "WCU" : "RCU", pk);
}

static int svg_timeline(FILE *f, const ddb_table_report *r, const timeline *tl, int y)
{
    if (!tl->parts || !tl->last)
        return y;
    fprintf(f,
            "<text x=\"20\" y=\"%d\" class=\"title\" style=\"font-size:15px\">Capacity per second</text>\n"
            "<text x=\"20\" y=\"%d\" class=\"sub\">seconds %" PRId64 " to %" PRId64 " (the window keeps %d)"
            "; left: write, right: read units per second of each partition; red bars: seconds with throttled "
            "calls</text>\n",
            y, y + 18, tl->first, tl->last, DDB_STATS_SECONDS);
    y += 30;
    double pw = (BAR_W - 20) / 2.0;
    for (size_t i = 0; i < r->n_parts; i++) {
        fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"label\">partition %zu</text>\n", LEFT - 10,
                y + TL_H / 2, i);
        svg_panel(f, tl, &tl->parts[i], true, LEFT, y, pw, TL_H - 20);
        svg_panel(f, tl, &tl->parts[i], false, LEFT + pw + 20, y, pw, TL_H - 20);
        y += TL_H;
    }
    return y;
}

static int svg_shards(FILE *f, const timeline *tl, int y)
{
    static shard_group g[16];
    size_t n = shard_groups(tl->full, g, 16);
    if (!n)
        return y;
    fprintf(f,
            "<text x=\"20\" y=\"%d\" class=\"title\" style=\"font-size:15px\">Write-sharded keys</text>\n"
            "<text x=\"20\" y=\"%d\" class=\"sub\">the shards of one logical key side by side: items in each "
            "(darker = more) and the partition holding it</text>\n",
            y, y + 18);
    y += 30;
    char base[300];
    for (size_t j = 0; j < n; j++) {
        snprintf(base, sizeof base, "%.*s", (int)(g[j].blen > 60 ? 60 : g[j].blen), g[j].first->u.s);
        fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"label\">", LEFT - 10, y + SHARD_ROW / 2);
        xml_text(f, base);
        fprintf(f, "</text>\n");
        uint64_t max = 0;
        for (int s = 0; s < g[j].n_shards; s++)
            max = g[j].shard[s] && g[j].shard[s]->items > max ? g[j].shard[s]->items : max;
        double w = (double)BAR_W / g[j].n_shards;
        for (int s = 0; s < g[j].n_shards; s++) {
            const ddb_key_report *k = g[j].shard[s] ? g[j].shard[s] : g[j].hot[s];
            uint64_t items = g[j].shard[s] ? g[j].shard[s]->items : 0;
            char col[8];
            heat(max ? (double)items / (double)max : 0, col);
            fprintf(f,
                    "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\" stroke=\"#fff\"/>\n"
                    "<text x=\"%.2f\" y=\"%d\" class=\"val\">.%d: %" PRIu64 "</text>\n"
                    "<text x=\"%.2f\" y=\"%d\" class=\"axis\">p%d</text>\n",
                    LEFT + s * w, y, w, SHARD_ROW - 14, col, LEFT + (s + 0.5) * w, y + 16, s, items,
                    LEFT + (s + 0.5) * w, y + SHARD_ROW - 4, k ? (int)k->partition : -1);
        }
        y += SHARD_ROW;
    }
    return y;
}

static int write_svg(const char *path, const ddb_table_report *r, const timeline *tl)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    size_t nkeys = r->n_hot ? r->n_hot : r->n_collections;
    const ddb_key_report *keys = r->n_hot ? r->hot : r->collections;
    int rows_y = 84, keys_y = rows_y + 3 * ROW_H + 40;
    int height = keys_y + 40 + (int)nkeys * 18 + 20;
    static shard_group sg[16];
    size_t n_groups = shard_groups(tl->full, sg, 16);
    int extra_y = height;
    if (tl->parts && tl->last)
        height += 30 + (int)r->n_parts * TL_H + 20;
    if (n_groups)
        height += 30 + (int)n_groups * SHARD_ROW + 20;
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
            "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n"
            "<style>.title{font-size:18px;font-weight:bold}.sub{font-size:12px;fill:#555}"
            ".label{font-size:13px;text-anchor:end}.unit{font-size:10px;fill:#777;text-anchor:end}"
            ".val{font-size:11px;text-anchor:middle}.axis{font-size:10px;fill:#555;text-anchor:middle}"
            ".key{font-size:12px}</style>\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n",
            SVG_W, height, SVG_W, height);
    fprintf(f, "<text x=\"20\" y=\"30\" class=\"title\">Table ");
    xml_text(f, r->table);
    fprintf(f, ": partition heat</text>\n<text x=\"20\" y=\"50\" class=\"sub\">%zu partition%s over the 64-bit "
               "partition-hash space, %" PRIu64 " items, %" PRIu64 " bytes; darker = hotter (each row scaled to "
               "its own maximum)</text>\n",
            r->n_parts, r->n_parts == 1 ? "" : "s", r->items, r->bytes);
    for (size_t i = 0; i < r->n_parts; i++) {
        const ddb_partition_report *p = &r->parts[i];
        double x0 = hx(p->hash_lo), x1 = p->hash_hi == UINT64_MAX ? LEFT + BAR_W : hx(p->hash_hi + 1);
        if (x1 - x0 > 60)
            fprintf(f, "<text x=\"%.2f\" y=\"%d\" class=\"axis\">partition %zu</text>\n", (x0 + x1) / 2, rows_y - 6, i);
    }
    svg_row(f, r, rows_y, "size", "bytes", m_bytes);
    svg_row(f, r, rows_y + ROW_H, "consumed capacity", "RCU + WCU since creation", m_capacity);
    svg_row(f, r, rows_y + 2 * ROW_H, "writes in the stream", "WCU", m_stream);
    /* hash axis */
    int ay = rows_y + 3 * ROW_H;
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#999\"/>\n", LEFT, ay, LEFT + BAR_W, ay);
    for (int q = 0; q <= 4; q++) {
        double x = LEFT + BAR_W * q / 4.0;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#999\"/>\n", x, ay, x, ay + 5);
        fprintf(f, "<text x=\"%.1f\" y=\"%d\" class=\"axis\">%s</text>\n", x, ay + 17,
                q == 0 ? "0x0000…" : q == 1 ? "0x4000…" : q == 2 ? "0x8000…" : q == 3 ? "0xc000…" : "0xffff…");
    }
    /* the hottest (or largest) partition keys, numbered at their hash */
    if (nkeys) {
        fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"label\">%s</text>\n", LEFT - 10, keys_y + 4,
                r->n_hot ? "most written keys" : "largest collections");
        fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ccc\"/>\n", LEFT, keys_y, LEFT + BAR_W,
                keys_y);
    }
    sbuf b = {0};
    for (size_t i = 0; i < nkeys; i++) {
        double x = hx(keys[i].hash);
        fprintf(f, "<circle cx=\"%.2f\" cy=\"%d\" r=\"8\" fill=\"#bd0026\"/>\n", x, keys_y);
        fprintf(f, "<text x=\"%.2f\" y=\"%d\" font-size=\"10\" fill=\"#fff\" text-anchor=\"middle\">%zu</text>\n", x,
                keys_y + 4, i + 1);
        sb_cell(&b, keys[i].pk);
        fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"key\">%zu. ", LEFT, keys_y + 34 + (int)i * 18, i + 1);
        xml_text(f, b.p);
        if (r->n_hot)
            fprintf(f, " — %" PRIu64 " write%s, %.1f WCU (partition %u)</text>\n", keys[i].writes,
                    keys[i].writes == 1 ? "" : "s", keys[i].write_units, keys[i].partition);
        else
            fprintf(f, " — %" PRIu64 " item%s, %" PRIu64 " bytes (partition %u)</text>\n", keys[i].items,
                    keys[i].items == 1 ? "" : "s", keys[i].bytes, keys[i].partition);
    }
    sb_free(&b);
    int y = svg_timeline(f, r, tl, extra_y + 10);
    svg_shards(f, tl, y + (y > extra_y + 10 ? 20 : 0));
    fprintf(f, "</svg>\n");
    return fclose(f) == 0 ? 0 : -1;
}

int cmd_stats(cli *c)
{
    uint64_t top = 10;
    if (opt_get(c, "top") && (parse_u64(opt_get(c, "top"), &top) || !top || top > 1000))
        return usage_error(c, "--top takes a whole number from 1 to 1000");
    if (cli_open(c))
        return 1;
    ddb_arena *a = ddb_arena_new();
    ddb_table_report *r;
    ddb_error e = {0};
    /* every key up to SHARD_KEYS, for the write shards; the lists show --top */
    if (!a || ddb_table_report_build(c->db, c->o.pos[0], top > SHARD_KEYS ? (size_t)top : SHARD_KEYS, a, &r, &e)) {
        ddb_arena_free(a);
        return cli_fail(c, &e, NULL);
    }
    timeline tl;
    timeline_load(c->db, r, a, &tl);
    tl.full = r;
    ddb_table_report shown = *r;
    shown.n_collections = shown.n_collections > top ? (size_t)top : shown.n_collections;
    shown.n_hot = shown.n_hot > top ? (size_t)top : shown.n_hot;
    r = &shown;
    if (c->format == FMT_JSON)
        print_json(r, &tl);
    else
        print_text(r, &tl);
    int rc = 0;
    const char *svg = opt_get(c, "svg");
    if (svg && write_svg(svg, r, &tl))
        rc = cli_failf(c, "cannot write %s: %s", svg, strerror(errno));
    ddb_arena_free(a);
    return rc;
}
