/* import: load items in DynamoDB's JSON-lines export format (what export
 * and DynamoDB's export to S3 write, gzip-compressed or not).  By default
 * in batches of 25, stopping at the first line that is not an item or
 * cannot be written, with every item before that line written (and said
 * so: --resume continues there); --atomic is all or nothing
 * (import_atomic.c).  The items come from import_read.c. */
#include "import.h"

#include <ddb/json.h>

#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define BATCH 25

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
