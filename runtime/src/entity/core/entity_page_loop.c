/* Entity room: the page loop behind the generated iterators of access
 * patterns and entity scans (ddb_ent_pages, <ddb/entity.h>): the options
 * of the next page with a copy of the cursor the last one returned, and
 * whether there is a next page.  Calls only core/ (errors) and the C
 * library. */
#include "entity/core/entity_core.h"

#include "core/error.h"

#include <stdlib.h>
#include <string.h>

void ddb_ent_pages_init(ddb_ent_pages *p, const ddb_ent_read_opts *o)
{
    memset(p, 0, sizeof *p);
    if (o)
        p->opts = *o;
}

bool ddb_ent_pages_more(ddb_ent_pages *p)
{
    p->has_page = false;
    if (!p->started && p->opts.cursor && !p->cursor && !(p->cursor = strdup(p->opts.cursor))) {
        /* resuming from the caller's cursor needs a copy of our own: no
         * memory is reported by ddb_ent_pages_after, after a read that
         * starts from the caller's cursor itself */
        p->failed = true;
        return true;
    }
    if (!p->failed)
        p->opts.cursor = p->cursor;
    return !p->done;
}

int ddb_ent_pages_after(ddb_ent_pages *p, int rc, const char *cursor, ddb_error *err)
{
    p->started = true;
    if (p->failed) {
        p->done = true;
        return ddbi_fail_oom(err, __func__);
    }
    if (rc)
        return rc; /* the same page again on the next call */
    free(p->cursor);
    p->cursor = NULL;
    p->opts.cursor = NULL;
    if (cursor && !(p->cursor = strdup(cursor))) {
        p->done = true;
        return ddbi_fail_oom(err, __func__);
    }
    p->opts.cursor = p->cursor;
    p->done = cursor == NULL;
    p->has_page = true;
    return DDB_OK;
}

void ddb_ent_pages_done(ddb_ent_pages *p)
{
    if (!p)
        return;
    free(p->cursor);
    p->cursor = NULL;
    p->opts.cursor = NULL;
}
