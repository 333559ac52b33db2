/* import: load items in DynamoDB's JSON-lines export format (what export
 * and DynamoDB's export to S3 write, gzip-compressed or not).  By default
 * in batches of 25, stopping at the first line that is not an item or
 * cannot be written, with every item before that line written (and said
 * so: --resume continues there); --atomic is all or nothing
 * (import_atomic.c). */
#include "import.h"

#include <ddb/json.h>

#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define BATCH 25

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

/* ---- the default mode: batches of 25 ---- */

typedef struct batch {
    ddb_batch_write_op ops[BATCH];
    unsigned long lines[BATCH];
    size_t n;
    ddb_arena *a;
    uint64_t written; /* items written, in input order */
} batch;

/* Write the pending items.  A batch refused as a whole is written item by
 * item, so that the item at fault is named and every one before it is
 * written.  0, or -1 with s->bad and s->msg. */
static int flush(import_src *s, batch *b)
{
    ddb_error e = {0};
    int rc = b->n ? ddb_batch_write(s->c->db, b->ops, b->n, DDB_CAPACITY_NONE, NULL, &e) : 0;
    if (!rc)
        b->written += b->n;
    for (size_t i = 0; rc && i < b->n; i++, b->written++) {
        if (ddb_put_item(s->c->db, s->d->def.name, b->ops[i].put, NULL, NULL, NULL, &e)) {
            import_fail(s, b->lines[i], "%s", e.message[0] ? e.message : ddb_strerror(e.code));
            break;
        }
        if (i + 1 == b->n)
            rc = 0;
    }
    b->n = 0;
    ddb_arena_reset(b->a);
    return rc ? -1 : 0;
}

static int add(import_src *s, batch *b, ddb_item *it)
{
    /* BatchWriteItem refuses two requests on one key: send what is pending first */
    for (size_t i = 0; i < b->n; i++)
        if (import_same_key(s->d, b->ops[i].put, it))
            return flush(s, b) ? -1 : add(s, b, it);
    if (!(it = ddb_item_copy(b->a, it)))
        return import_fail(s, s->lr.no, "out of memory");
    b->lines[b->n] = s->lr.no;
    b->ops[b->n++] = (ddb_batch_write_op){.table = s->d->def.name, .put = it};
    return b->n == BATCH ? flush(s, b) : 0;
}

/* After a failure: which lines were written, and where to resume. */
static void report(const import_src *s, uint64_t written)
{
    unsigned long first = s->from > 1 ? s->from : 1, next = s->bad ? s->bad : s->lr.no + 1;
    if (!written) {
        fprintf(stderr, "ddb import: nothing was imported\n");
        return;
    }
    char lines[64];
    if (first == next - 1)
        snprintf(lines, sizeof lines, "line %lu was", first);
    else
        snprintf(lines, sizeof lines, "lines %lu..%lu were", first, next - 1);
    fprintf(stderr, "ddb import: %s imported (%" PRIu64 " item%s), nothing from line %lu on; continue with --resume %lu\n",
            lines, written, written == 1 ? "" : "s", next, next);
}

static int import_batches(import_src *s)
{
    batch b = {.a = ddb_arena_new()};
    ddb_arena *la = ddb_arena_new();
    progress pg = {cli_progress_tty(), "import", 0};
    int rc = 0;
    if (!b.a || !la) {
        rc = cli_failf(s->c, "out of memory");
        goto out;
    }
    ddb_item *it;
    while ((rc = import_next(s, la, &it)) == 1) {
        rc = add(s, &b, it);
        ddb_arena_reset(la);
        if (rc)
            break;
        progress_show(&pg, b.written + b.n, false);
    }
    if (rc == 0) /* the end of the input */
        rc = flush(s, &b);
    else if (b.n) /* every item before the failure is written; a failed write names its own, earlier line */
        flush(s, &b);
    if (rc) {
        fprintf(stderr, "ddb import: %s\n", s->msg);
        report(s, b.written);
        rc = 1;
    } else {
        rc = 0;
        progress_show(&pg, b.written, true);
    }
out:
    ddb_arena_free(b.a);
    ddb_arena_free(la);
    return rc;
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
    const char *create = opt_get(c, "create"), *resume = opt_get(c, "resume");
    bool atomic = opt_count(c, "atomic") > 0;
    uint64_t from = 1;
    if (resume && (parse_u64(resume, &from) || !from || from > ULONG_MAX))
        return usage_error(c, "--resume takes the line number to continue at (1 or more), not '%s'", resume);
    if (atomic && strcmp(path, "-") == 0)
        return usage_error(c, "--atomic reads the input twice: give a FILE, not standard input");
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
    import_src s = {.c = c, .d = d, .from = (unsigned long)from};
    if (!rc && lr_open(&s.lr, path))
        rc = cli_failf(c, "%s", s.lr.error);
    if (!rc)
        rc = atomic ? import_atomic(&s) : import_batches(&s);
    lr_close(&s.lr);
    ddb_arena_free(da);
    return rc;
}
