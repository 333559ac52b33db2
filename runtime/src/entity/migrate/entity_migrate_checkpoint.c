/* Entity room: a migration's checkpoint, stored with the table under the
 * metadata key DDB_ENT_MIGRATION_META as one line of text:
 *
 *   <id> step <i>/<n> scanned <s> moved <m> rewritten <r> unchanged <u> capacity <c> in_step <k> [claimed <u>]
 *   [verified <v>] [deleted <d>] key <cursor|->
 *
 * (the cursor is the scan's LastEvaluatedKey as base64url text, "-" at the
 * start of a step; in_step the items the step under way has scanned, so a
 * resumed run's progress goes on from there).  A line without in_step (a
 * checkpoint written before it existed) reads as in_step 0, one without
 * claimed (verified, deleted) as 0.  An empty value means no migration is in progress
 * (table metadata cannot be deleted).  ddb_ent_open_table shows the line
 * when it refuses a table in migration.  Calls the public table metadata
 * API and this room's cursors. */
#include "entity/migrate/entity_migrate.h"

#include "core/error.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool ddbi_ent_migration_id_ok(const char *id)
{
    size_t n = id ? strlen(id) : 0;
    if (!n || n > DDBI_ENT_MIGRATION_ID_MAX)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = id[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr("._:-", c)))
            return false;
    }
    return true;
}

int ddbi_ent_checkpoint_put(ddb *db, const char *table, const ddbi_ent_checkpoint *c, ddb_error *err)
{
    char head[512];
    int n = snprintf(head, sizeof head,
                     "%s step %" PRIu32 "/%" PRIu32 " scanned %" PRIu64 " moved %" PRIu64 " rewritten %" PRIu64
                     " unchanged %" PRIu64 " capacity %.1f in_step %" PRIu64 " claimed %" PRIu64 " verified %" PRIu64
                     " deleted %" PRIu64 " key ",
                     c->id, c->step, c->n_steps, c->scanned, c->moved, c->rewritten, c->unchanged, c->capacity,
                     c->in_step, c->claimed, c->verified, c->deleted);
    const char *key = c->cursor ? c->cursor : "-";
    size_t kl = strlen(key);
    char *line = malloc((size_t)n + kl + 1);
    if (n < 0 || (size_t)n >= sizeof head || !line) {
        free(line);
        return ddbi_fail_oom(err, __func__);
    }
    memcpy(line, head, (size_t)n);
    memcpy(line + n, key, kl + 1);
    int rc = ddb_table_meta_put(db, table, DDB_ENT_MIGRATION_META, line, (size_t)n + kl, err);
    free(line);
    return rc;
}

int ddbi_ent_checkpoint_end(ddb *db, const char *table, ddb_error *err)
{
    return ddb_table_meta_put(db, table, DDB_ENT_MIGRATION_META, "", 0, err);
}

int ddbi_ent_checkpoint_get(ddb *db, const char *table, ddb_arena *a, ddbi_ent_checkpoint *c, bool *found,
                            ddb_error *err)
{
    memset(c, 0, sizeof *c);
    *found = false;
    void *v;
    size_t len;
    int rc = ddb_table_meta_get(db, table, DDB_ENT_MIGRATION_META, a, &v, &len, err);
    if (rc == DDB_ENOTFOUND)
        return DDB_OK;
    if (rc || len == 0)
        return rc;
    const char *line = v;
    char *id = ddb_arena_alloc(a, DDBI_ENT_MIGRATION_ID_MAX + 1);
    if (!id)
        return ddbi_fail_oom(err, __func__);
    int used = 0, more = 0;
    /* the id's width is DDBI_ENT_MIGRATION_ID_MAX (64) */
    bool ok = sscanf(line,
                     "%64s step %" SCNu32 "/%" SCNu32 " scanned %" SCNu64 " moved %" SCNu64 " rewritten %" SCNu64
                     " unchanged %" SCNu64 " capacity %lf %n",
                     id, &c->step, &c->n_steps, &c->scanned, &c->moved, &c->rewritten, &c->unchanged, &c->capacity,
                     &used) == 8 &&
              used > 0 && (size_t)used <= len;
    if (ok && !strncmp(line + used, "in_step ", 8)) {
        ok = sscanf(line + used, "in_step %" SCNu64 " %n", &c->in_step, &more) == 1 && more > 0;
        used += more;
    }
    static const struct {
        const char *word;
        size_t off;
    } optional[] = {{"claimed", offsetof(ddbi_ent_checkpoint, claimed)},
                    {"verified", offsetof(ddbi_ent_checkpoint, verified)},
                    {"deleted", offsetof(ddbi_ent_checkpoint, deleted)}};
    for (size_t i = 0; ok && i < sizeof optional / sizeof *optional; i++) {
        size_t wn = strlen(optional[i].word);
        if (strncmp(line + used, optional[i].word, wn) || line[used + wn] != ' ')
            continue;
        more = 0;
        uint64_t *field = (uint64_t *)((char *)c + optional[i].off);
        ok = sscanf(line + used + wn, " %" SCNu64 " %n", field, &more) == 1 && more > 0;
        used += (int)wn + more;
    }
    if (!ok || (size_t)used + 4 > len || strncmp(line + used, "key ", 4))
        return ddbi_fail(err, DDB_ECORRUPT, "table %s: the migration checkpoint \"%.120s\" is unreadable", table,
                         line);
    used += 4;
    c->id = id;
    c->cursor = strcmp(line + used, "-") ? line + used : NULL;
    *found = true;
    return DDB_OK;
}
