/* export / import in DynamoDB's JSON-lines export format: one
 * {"Item": {<attribute>: <DynamoDB JSON value>, ...}} per line, what
 * DynamoDB's export to S3 writes (DYNAMODB_JSON) and its import reads, so
 * data moves between the embedded engine and DynamoDB. */
#include "cli.h"

#include <ddb/json.h>

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#define BATCH 25

/* Progress on a terminal: at most 5 updates a second. */
typedef struct progress {
    bool on;
    const char *what;
    double last;
} progress;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void progress_show(progress *p, uint64_t n, bool final)
{
    if (!p->on)
        return;
    double t = now_s();
    if (!final && t - p->last < 0.2)
        return;
    p->last = t;
    fprintf(stderr, "\rddb %s: %" PRIu64 " item%s%s", p->what, n, n == 1 ? "" : "s", final ? "\n" : "");
    fflush(stderr);
}

int cmd_export(cli *c)
{
    if (cli_open(c))
        return 1;
    const char *table = c->o.pos[0], *path = c->o.npos > 1 ? c->o.pos[1] : NULL;
    ddb_error e = {0};
    ddb_arena *ar[2] = {ddb_arena_new(), ddb_arena_new()};
    FILE *out = path && strcmp(path, "-") != 0 ? fopen(path, "w") : stdout;
    int rc = 0;
    if (!ar[0] || !ar[1])
        rc = cli_failf(c, "out of memory");
    else if (!out)
        rc = cli_failf(c, "cannot write %s: %s", path, strerror(errno));
    progress pg = {cli_progress_tty(), "export", 0};
    uint64_t n = 0;
    const ddb_item *start = NULL;
    for (int page = 0; !rc; page++) {
        ddb_arena *a = ar[page & 1];
        ddb_arena_reset(a);
        ddb_scan_params s = {.table = table, .start_key = start};
        ddb_page p;
        if (ddb_scan(c->db, &s, a, &p, &e)) {
            rc = cli_fail(c, &e, NULL);
            break;
        }
        for (size_t i = 0; i < p.count && !rc; i++) {
            char *line = item_json_line(p.items[i], &e);
            if (!line) {
                rc = cli_fail(c, &e, "item %" PRIu64, n + 1);
                break;
            }
            if (fprintf(out, "{\"Item\":%s}\n", line) < 0)
                rc = cli_failf(c, "cannot write %s: %s", path ? path : "the output", strerror(errno));
            free(line);
            n++;
            progress_show(&pg, n, false);
        }
        if (!p.last_key)
            break;
        start = p.last_key;
    }
    if (out && out != stdout && fclose(out) != 0 && !rc)
        rc = cli_failf(c, "cannot write %s: %s", path, strerror(errno));
    if (out == stdout && fflush(stdout) != 0 && !rc)
        rc = cli_failf(c, "cannot write the output: %s", strerror(errno));
    if (!rc)
        progress_show(&pg, n, true);
    ddb_arena_free(ar[0]);
    ddb_arena_free(ar[1]);
    return rc;
}

/* ---- import ---- */

typedef struct importer {
    cli *c;
    const ddb_table_desc *d;
    ddb_batch_write_op ops[BATCH];
    ddb_item *items[BATCH];
    size_t n;
    uint64_t done;
    unsigned long first_line; /* of the pending batch, for messages */
    ddb_arena *a;             /* the pending batch's items */
    ddb_arena *la;            /* the line being read */
} importer;

static int flush(importer *im)
{
    if (!im->n)
        return 0;
    ddb_error e = {0};
    if (ddb_batch_write(im->c->db, im->ops, im->n, DDB_CAPACITY_NONE, NULL, &e))
        return cli_fail(im->c, &e, "lines %lu..: after %" PRIu64 " items", im->first_line, im->done);
    im->done += im->n;
    im->n = 0;
    ddb_arena_reset(im->a);
    return 0;
}

static bool same_key(const ddb_table_desc *d, const ddb_item *x, const ddb_item *y)
{
    const char *k[2] = {d->def.key.pk, d->def.key.sk};
    for (int i = 0; i < 2 && k[i]; i++) {
        const ddb_value *a = ddb_item_get(x, k[i]), *b = ddb_item_get(y, k[i]);
        if (!a || !b || !ddb_value_equal(a, b))
            return false;
    }
    return true;
}

static int add_line(importer *im, const char *line, size_t len, unsigned long no, const char *src)
{
    const char *nul = memchr(line, '\0', len);
    if (nul)
        return cli_failf(im->c, "%s:%lu: a NUL byte at column %zu: not a line of JSON (is this a binary file?)", src,
                         no, (size_t)(nul - line) + 1);
    json_error_t je;
    json_t *j = json_loadb(line, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &je); /* export writes U+0000 as \u0000 */
    json_t *item = j ? json_object_get(j, "Item") : NULL;
    if (!j)
        return cli_failf(im->c, "%s:%lu: malformed JSON (column %d): %s", src, no, je.column, je.text);
    if (!json_is_object(item) || json_object_size(j) != 1) {
        json_decref(j);
        return cli_failf(im->c, "%s:%lu: expected {\"Item\": {...}}, DynamoDB's export format", src, no);
    }
    ddb_item *it;
    ddb_error e = {0};
    ddb_arena_reset(im->la);
    int rc = ddb_json_to_item(item, im->la, &it, &e);
    json_decref(j);
    if (rc)
        return cli_failf(im->c, "%s:%lu: %s", src, no, e.message);
    /* BatchWriteItem refuses two requests on one key: send what is pending first */
    for (size_t i = 0; i < im->n && !rc; i++)
        if (same_key(im->d, im->items[i], it))
            rc = flush(im);
    if (rc)
        return rc;
    if (!(it = ddb_item_copy(im->a, it)))
        return cli_failf(im->c, "out of memory");
    if (!im->n)
        im->first_line = no;
    im->items[im->n] = it;
    im->ops[im->n] = (ddb_batch_write_op){.table = im->d->def.name, .put = it};
    im->n++;
    return im->n == BATCH ? flush(im) : 0;
}

/* --create PK:TYPE[,SK:TYPE] */
static int create_for_import(cli *c, const char *table, const char *spec)
{
    char buf[600];
    snprintf(buf, sizeof buf, "%s", spec);
    char *sk = strchr(buf, ',');
    if (sk)
        *sk++ = '\0';
    ddb_table_def def = {.name = table};
    char *parts[2] = {buf, sk};
    ddb_key_schema *k = &def.key;
    for (int i = 0; i < 2 && parts[i]; i++) {
        char *colon = strrchr(parts[i], ':');
        ddb_type t = !colon ? DDB_TNONE
                     : !strcmp(colon + 1, "S") ? DDB_TS
                     : !strcmp(colon + 1, "N") ? DDB_TN
                     : !strcmp(colon + 1, "B") ? DDB_TB : DDB_TNONE;
        if (t == DDB_TNONE || colon == parts[i])
            return usage_error(c, "--create: expected PK:TYPE[,SK:TYPE] with types S, N or B, got '%s'", spec);
        *colon = '\0';
        if (i == 0) {
            k->pk = parts[i];
            k->pk_type = t;
        } else {
            k->sk = parts[i];
            k->sk_type = t;
        }
    }
    ddb_error e = {0};
    if (ddb_create_table(c->db, &def, &e))
        return cli_fail(c, &e, NULL);
    return 0;
}

int cmd_import(cli *c)
{
    const char *table = c->o.pos[0], *path = c->o.npos > 1 ? c->o.pos[1] : "-";
    const char *create = opt_get(c, "create");
    if (cli_open(c))
        return 1;
    ddb_arena *da = ddb_arena_new();
    ddb_table_desc *d = NULL;
    ddb_error e = {0};
    int rc = da ? 0 : cli_failf(c, "out of memory");
    if (!rc && ddb_describe_table(c->db, table, da, &d, &e)) {
        if (e.code == DDB_ENOTABLE && create) {
            if (!(rc = create_for_import(c, table, create)) && ddb_describe_table(c->db, table, da, &d, &e))
                rc = cli_fail(c, &e, NULL);
        } else {
            rc = cli_fail(c, &e, NULL);
            if (e.code == DDB_ENOTABLE)
                fprintf(stderr, "ddb import: create the table first, or pass --create PK:TYPE[,SK:TYPE]\n");
        }
    }
    line_reader lr = {0};
    if (!rc && lr_open(&lr, path))
        rc = cli_failf(c, "%s", lr.error);
    importer im = {c, d, {{0}}, {0}, 0, 0, 0, ddb_arena_new(), ddb_arena_new()};
    if (!rc && (!im.a || !im.la))
        rc = cli_failf(c, "out of memory");
    progress pg = {cli_progress_tty(), "import", 0};
    char *line;
    size_t len;
    int got = 0;
    while (!rc && (got = lr_next(&lr, &line, &len)) == 1) {
        if (len == strspn(line, " \t")) /* a blank line holds no item */
            continue;
        rc = add_line(&im, line, len, lr.no, lr.src);
        progress_show(&pg, im.done + im.n, false);
    }
    if (!rc && got < 0)
        rc = cli_failf(c, "%s", lr.error);
    if (!rc)
        rc = flush(&im);
    if (!rc)
        progress_show(&pg, im.done, true);
    lr_close(&lr);
    ddb_arena_free(im.a);
    ddb_arena_free(im.la);
    ddb_arena_free(da);
    return rc;
}
