/* Entity room: a table's migration history and status.  When a migration
 * ends (entity_migrate.c) a line is appended to the table metadata
 * DDB_ENT_MIGRATION_HISTORY_META:
 *
 *   <plan id> ok <UTC time, ISO 8601> libddb <version> steps <n> scanned <s> moved <m> rewritten <r>
 *   deleted <d> claimed <c>
 *
 * keeping the last HISTORY_MAX lines (table metadata on DynamoDB lives in
 * tags, 50 to a table: the history stays a few of them).
 * ddb_ent_migration_status reads it back with the migration in progress
 * (its checkpoint) and the data's model version.  Calls the public table
 * metadata API, the clock, and this room's checkpoints. */
#include "entity/migrate/entity_migrate.h"

#include "core/error.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define HISTORY_MAX 5
#define LINE_MAX_BYTES 400

int ddbi_ent_history_add(ddb *db, const char *table, const ddbi_ent_checkpoint *cp, ddb_error *err)
{
    ddb_arena *a = ddb_arena_new();
    if (!a)
        return ddbi_fail_oom(err, __func__);
    void *v = NULL;
    size_t len = 0;
    int rc = ddb_table_meta_get(db, table, DDB_ENT_MIGRATION_HISTORY_META, a, &v, &len, err);
    if (rc == DDB_ENOTFOUND) {
        rc = DDB_OK;
        len = 0;
    }
    char when[32] = "?";
    time_t now = (time_t)(ddb_clock_ms(db) / 1000);
    struct tm tm;
    if (gmtime_r(&now, &tm))
        strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    char line[LINE_MAX_BYTES];
    int n = snprintf(line, sizeof line,
                     "%s ok %s libddb %s steps %" PRIu32 " scanned %" PRIu64 " moved %" PRIu64 " rewritten %" PRIu64
                     " deleted %" PRIu64 " claimed %" PRIu64 "\n",
                     cp->id, when, DDB_VERSION_STRING, cp->n_steps, cp->scanned, cp->moved, cp->rewritten,
                     cp->deleted, cp->claimed);
    /* the kept lines: the last HISTORY_MAX - 1 of what is there, then this one */
    const char *old = rc || !v ? "" : (const char *)v, *keep = old;
    size_t lines = 0;
    for (size_t i = 0; i < len; i++)
        lines += old[i] == '\n';
    for (; lines >= HISTORY_MAX && keep < old + len; lines--) {
        const char *nl = memchr(keep, '\n', (size_t)(old + len - keep));
        keep = nl ? nl + 1 : old + len;
    }
    size_t kept = len - (size_t)(keep - old);
    char *out = rc ? NULL : ddb_arena_alloc(a, kept + (size_t)n + 1);
    if (!rc && !out)
        rc = ddbi_fail_oom(err, __func__);
    if (!rc) {
        if (kept)
            memcpy(out, keep, kept);
        memcpy(out + kept, line, (size_t)n + 1);
        rc = ddb_table_meta_put(db, table, DDB_ENT_MIGRATION_HISTORY_META, out, kept + (size_t)n, err);
    }
    ddb_arena_free(a);
    return rc;
}

/* The text of metadata key (NULL when absent or empty), in a. */
static int meta_text(ddb *db, const char *table, const char *key, ddb_arena *a, const char **out, ddb_error *err)
{
    void *v;
    size_t len;
    *out = NULL;
    int rc = ddb_table_meta_get(db, table, key, a, &v, &len, err);
    if (rc == DDB_ENOTFOUND || (!rc && !len))
        return DDB_OK;
    if (rc)
        return rc;
    char *s = ddb_arena_alloc(a, len + 1);
    if (!s)
        return ddbi_fail_oom(err, __func__);
    memcpy(s, v, len);
    s[len] = '\0';
    *out = s;
    return DDB_OK;
}

int ddb_ent_migration_status(ddb *db, const char *table, ddb_arena *a, ddb_ent_migration_state *st, ddb_error *err)
{
    if (!db || !table || !a || !st)
        return ddbi_fail(err, DDB_EINVAL, "ddb_ent_migration_status: db, table, arena and state are required");
    memset(st, 0, sizeof *st);
    ddbi_ent_checkpoint cp;
    bool found;
    const char *hist = NULL;
    int rc = ddbi_ent_checkpoint_get(db, table, a, &cp, &found, err);
    if (!rc)
        rc = meta_text(db, table, DDB_ENT_MODEL_META, a, &st->model, err);
    if (!rc)
        rc = meta_text(db, table, DDB_ENT_MIGRATION_HISTORY_META, a, &hist, err);
    if (rc)
        return rc;
    if (found) {
        st->in_progress = true;
        st->id = cp.id;
        st->step = cp.step < cp.n_steps ? cp.step + 1 : cp.n_steps;
        st->n_steps = cp.n_steps;
        st->scanned = cp.scanned;
        st->moved = cp.moved;
        st->rewritten = cp.rewritten;
        st->unchanged = cp.unchanged;
        st->deleted = cp.deleted;
        st->claimed = cp.claimed;
        st->capacity = cp.capacity;
    }
    size_t n = 0;
    for (const char *p = hist; p && *p; p++)
        n += *p == '\n';
    if (n && !(st->history = ddb_arena_alloc(a, n * sizeof *st->history)))
        return ddbi_fail_oom(err, __func__);
    for (char *p = (char *)hist; p && *p && st->n_history < n;) {
        char *nl = strchr(p, '\n');
        *nl = '\0';
        st->history[st->n_history++] = p;
        p = nl + 1;
    }
    return DDB_OK;
}
