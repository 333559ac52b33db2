/* deployed_table.c — ddbgen --from-table URI TABLE: the deployed model is
 * the schema model recorded in the table's migration history (each
 * migration that `ddb migrate` ran records the model of its plan; `ddb
 * migrate baseline` records a first one), read through libddb (ddb_open,
 * read-only for a directory; ddb_ent_migration_model) and handed to the
 * context as the old model of --plan-migration, --check-compat and
 * --old-model.  What is read is bounded by the runtime (DDB_ENT_MODEL_MAX,
 * each part's size and the hash) and must parse as JSON; the model checks
 * of load_old follow.  Calls libddb's public API, jansson and context.c. */
#include "internal.h"

#include <ddb/entity.h>

#include <stdio.h>
#include <string.h>

int ddbgen_deployed_from_table(ddbgen_context *cx, const char *uri, const char *table)
{
    ddbgen_loc none = {NULL, 0, 0};
    ddb *db = NULL;
    ddb_error err = {0};
    ddb_arena *a = ddb_arena_new();
    const char *text = NULL;
    size_t len = 0;
    ddb_ent_migration_record entry;
    int rc = DDBGEN_OK;
    if (!a) {
        ddbgen_diag_add(&cx->diags, DDBGEN_ERROR, none, "out of memory");
        return DDBGEN_EUSAGE;
    }
    /* a directory is only read (a mistyped path is an error, not a new database) */
    ddb_options o = {.read_only = !strstr(uri, "://")};
    if (ddb_open(uri, &o, &db, &err) || ddb_ent_migration_model(db, table, a, &text, &len, &entry, &err)) {
        ddbgen_diag_add(&cx->diags, DDBGEN_ERROR, none, "--from-table %s %s: %s", uri, table, err.message);
        rc = DDBGEN_EUSAGE;
    }
    json_error_t je;
    json_t *doc = rc ? NULL : json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!rc && !doc) {
        ddbgen_diag_add(&cx->diags, DDBGEN_ERROR, none, "--from-table %s %s: the recorded model is not JSON (%s)", uri,
                        table, je.text);
        rc = DDBGEN_EUSAGE;
    }
    if (!rc) {
        char name[512];
        snprintf(name, sizeof name, "the model recorded in table %s (migration history entry %llu, %s)", table,
                 (unsigned long long)entry.seq, entry.id);
        rc = ddbgen_use_deployed_model(cx, doc, name);
    }
    json_decref(doc);
    ddb_close(db);
    ddb_arena_free(a);
    return rc;
}
