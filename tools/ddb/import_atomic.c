/* import --atomic: all or nothing.
 *
 * First every line of the input is read and converted, so a line that is
 * not an item fails the import before anything is written.  Then the
 * items are written in transactions within TransactWriteItems' limits
 * (100 items, 4 MB, distinct keys).  Before each transaction the current
 * version of each of its items is saved in an undo log (a temporary file):
 * when a transaction fails, it and those before it are undone newest
 * first, putting back each overwritten item and deleting each new one.
 * What the undo cannot hide: readers may see the import while it runs, and
 * the table's stream records the writes and their undoing. */
#include "import.h"

#include <ddb/json.h>

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define TX_ITEMS 100
#define TX_BYTES (4u << 20)

/* One transaction's undo records in the log. */
typedef struct chunk {
    off_t at;
    size_t n;
    unsigned long first, last; /* its lines */
} chunk;

typedef struct atomic {
    import_src *s;
    FILE *undo;
    chunk *chunks;
    size_t n_chunks, cap;
    uint64_t written;
    /* the transaction being gathered (items in arena a) */
    ddb_tx_op ops[TX_ITEMS];
    unsigned long lines[TX_ITEMS];
    size_t n, bytes;
    ddb_arena *a;
    progress pg;
} atomic;

/* Save the current version of each gathered item ("P item" to put back,
 * "D key" to delete), then write them in one transaction; a committed
 * transaction becomes a chunk to undo.  0, or -1 with s->msg. */
static int commit(atomic *at)
{
    import_src *s = at->s;
    ddb *db = s->c->db;
    const char *table = s->d->def.name;
    ddb_error e = {0};
    if (!at->n)
        return 0;
    if (at->n_chunks == at->cap) {
        size_t nc = at->cap ? at->cap * 2 : 64;
        chunk *ch = realloc(at->chunks, nc * sizeof *ch);
        if (!ch)
            return import_fail(s, at->lines[0], "out of memory");
        at->chunks = ch;
        at->cap = nc;
    }
    chunk ch = {ftello(at->undo), at->n, at->lines[0], at->lines[at->n - 1]};
    for (size_t i = 0; i < at->n; i++) {
        ddb_item *key = import_key(s->d, at->a, at->ops[i].item), *old = NULL;
        int g = key ? ddb_get_item(db, table, key, &(ddb_get_opts){.consistent = true}, at->a, &old, NULL, &e)
                    : DDB_ENOMEM;
        if (g && g != DDB_ENOTFOUND)
            return import_fail(s, at->lines[i], "%s%s",
                               g == DDB_EVALIDATION ? "" : "reading the item it replaces: ", e.message);
        char *json = item_json_line(g ? key : old, &e);
        if (!json)
            return import_fail(s, at->lines[i], "the undo log: %s", e.message);
        int w = fprintf(at->undo, "%c %s\n", g ? 'D' : 'P', json);
        free(json);
        if (w < 0)
            return import_fail(s, at->lines[i], "cannot write the undo log: %s", strerror(errno));
    }
    if (fflush(at->undo) != 0)
        return import_fail(s, ch.first, "cannot write the undo log: %s", strerror(errno));
    ddb_tx_result res = {0};
    if (ddb_transact_write(db, at->ops, at->n, DDB_CAPACITY_NONE, at->a, &res, &e)) {
        /* a failed transaction wrote nothing */
        for (size_t i = 0; e.code == DDB_ECANCELED && res.reasons && i < at->n; i++) {
            if (!res.reasons[i])
                continue;
            /* the item's own error: alone it fails as it did in the transaction
             * (should it not, it is written, and undone with the chunk) */
            ddb_error one = {0};
            if (!ddb_put_item(db, table, at->ops[i].item, NULL, NULL, NULL, &one))
                at->chunks[at->n_chunks++] = ch;
            return import_fail(s, at->lines[i], "%s", one.code ? one.message : e.message);
        }
        snprintf(s->msg, sizeof s->msg, "%s:%lu..%lu: %s", s->lr.src, ch.first, ch.last, e.message);
        s->bad = ch.first;
        return -1;
    }
    at->chunks[at->n_chunks++] = ch;
    at->written += at->n;
    progress_show(&at->pg, at->written, false);
    at->n = at->bytes = 0;
    ddb_arena_reset(at->a);
    return 0;
}

static int log_damaged(ddb_error *e, const char *why)
{
    e->code = DDB_EIO;
    snprintf(e->message, sizeof e->message, "reading the undo log: %s", why);
    return e->code;
}

/* Undo every recorded chunk, newest first.  0, or -1 with s->msg. */
static int rollback(atomic *at, uint64_t *restored, uint64_t *deleted)
{
    import_src *s = at->s;
    char *line = NULL;
    size_t cap = 0;
    int rc = 0;
    ddb_arena_reset(at->a);
    for (size_t k = at->n_chunks; k-- > 0 && !rc;) {
        const chunk *ch = &at->chunks[k];
        ddb_tx_op ops[TX_ITEMS];
        size_t n = 0, bytes = 0, puts = 0;
        ddb_error e = {0};
        if (fseeko(at->undo, ch->at, SEEK_SET) != 0)
            rc = log_damaged(&e, strerror(errno));
        for (size_t i = 0; !rc && i <= ch->n; i++) {
            ssize_t len = i < ch->n ? getline(&line, &cap, at->undo) : 0;
            ddb_item *it = NULL;
            if (i < ch->n && (len < 3 || (line[0] != 'P' && line[0] != 'D') ||
                              ddb_json_parse_item(line + 2, (size_t)len - 3, at->a, &it, &e))) {
                rc = e.code ? e.code : log_damaged(&e, "a line is not an undo record");
                break;
            }
            size_t size = it && line[0] == 'P' ? ddb_item_size(it) : 0;
            if (n && (i == ch->n || bytes + size > TX_BYTES)) {
                ddb_tx_result res;
                if ((rc = ddb_transact_write(s->c->db, ops, n, DDB_CAPACITY_NONE, at->a, &res, &e)))
                    break;
                *restored += puts;
                *deleted += n - puts;
                n = bytes = puts = 0;
            }
            if (i == ch->n)
                break;
            bool put = line[0] == 'P';
            ops[n++] = (ddb_tx_op){.kind = put ? DDB_TX_PUT : DDB_TX_DELETE, .table = s->d->def.name, .item = it};
            bytes += size;
            puts += put;
        }
        if (rc)
            snprintf(s->msg, sizeof s->msg,
                     "--atomic: the rollback failed: %s; the items of lines %lu..%lu may remain written", e.message,
                     at->chunks[0].first, ch->last);
        ddb_arena_reset(at->a);
    }
    free(line);
    return rc ? -1 : 0;
}

static int write_all(atomic *at)
{
    import_src *s = at->s;
    ddb_arena *la = ddb_arena_new();
    ddb_item *it;
    int rc = la ? 0 : import_fail(s, 0, "out of memory");
    while (!rc && (rc = import_next(s, la, &it)) == 1) {
        size_t size = ddb_item_size(it);
        bool dup = false;
        for (size_t i = 0; i < at->n && !dup; i++)
            dup = import_same_key(s->d, at->ops[i].item, it);
        rc = at->n == TX_ITEMS || (at->n && at->bytes + size > TX_BYTES) || dup ? commit(at) : 0;
        if (!rc && !(it = ddb_item_copy(at->a, it)))
            rc = import_fail(s, s->lr.no, "out of memory");
        if (rc)
            break;
        at->lines[at->n] = s->lr.no;
        at->ops[at->n++] = (ddb_tx_op){.kind = DDB_TX_PUT, .table = s->d->def.name, .item = it};
        at->bytes += size;
        ddb_arena_reset(la);
    }
    if (!rc)
        rc = commit(at);
    ddb_arena_free(la);
    return rc;
}

int import_atomic(import_src *s)
{
    atomic at = {.s = s, .a = ddb_arena_new(), .pg = {cli_progress_tty(), "import", 0}};
    if (!at.a)
        return cli_failf(s->c, "out of memory");
    /* every line is an item before anything is written */
    ddb_item *it;
    int rc;
    while ((rc = import_next(s, at.a, &it)) == 1)
        ddb_arena_reset(at.a);
    if (!rc && lr_rewind(&s->lr)) {
        snprintf(s->msg, sizeof s->msg, "%s", s->lr.error);
        rc = -1;
    }
    if (!rc && !(at.undo = tmpfile())) {
        snprintf(s->msg, sizeof s->msg, "cannot create the undo log: %s", strerror(errno));
        rc = -1;
    }
    if (rc) {
        fprintf(stderr, "ddb import: %s\nddb import: --atomic: nothing was imported\n", s->msg);
        ddb_arena_free(at.a);
        return 1;
    }
    if ((rc = write_all(&at))) {
        fprintf(stderr, "ddb import: %s\n", s->msg);
        uint64_t restored = 0, deleted = 0, written = at.written;
        if (rollback(&at, &restored, &deleted))
            fprintf(stderr, "ddb import: %s\n", s->msg);
        else if (written)
            fprintf(stderr,
                    "ddb import: --atomic: nothing was imported (the %" PRIu64 " item%s written before were rolled back: "
                    "%" PRIu64 " put back, %" PRIu64 " deleted)\n",
                    written, written == 1 ? "" : "s", restored, deleted);
        else
            fprintf(stderr, "ddb import: --atomic: nothing was imported\n");
        rc = 1;
    } else {
        progress_show(&at.pg, at.written, true);
    }
    fclose(at.undo);
    free(at.chunks);
    ddb_arena_free(at.a);
    return rc;
}
