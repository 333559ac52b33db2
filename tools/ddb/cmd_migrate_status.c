/* migrate status, migrate model, migrate baseline: what a table's
 * migrations are — the one in progress (its plan, step and counts, from
 * the checkpoint stored with the table), the model version the data is
 * in, the last applied plans and the schema model the next plan starts
 * from (the history the migrations record in the table); that model
 * written out; and a deployed model recorded as the starting point of a
 * table no migration has run on yet.  Calls the public entity API
 * (ddb_ent_migration_status, _model, _baseline) and the cli's JSON reader. */
#include "cli.h"
#include <ddb/entity.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print_record(const ddb_ent_migration_record *r)
{
    printf("  %" PRIu64 ". %s ok %s libddb %s steps %" PRIu32 " scanned %" PRIu64 " moved %" PRIu64 " rewritten %" PRIu64
           " deleted %" PRIu64 " claimed %" PRIu64 "%s\n",
           r->seq, r->id, r->at, r->libddb, r->n_steps, r->scanned, r->moved, r->rewritten, r->deleted, r->claimed,
           r->model_bytes ? " (schema model recorded)" : "");
}

int cmd_migrate_status(cli *c, const char *table)
{
    if (cli_open(c))
        return 1;
    ddb_arena *a = ddb_arena_new();
    ddb_ent_migration_state st;
    ddb_error e = {0};
    if (!a || ddb_ent_migration_status(c->db, table, a, &st, &e)) {
        ddb_arena_free(a);
        return cli_fail(c, &e, "%s", table);
    }
    printf("%s: data model %s\n", table, st.model ? st.model : "(never migrated)");
    if (st.in_progress)
        printf("%s: in progress: %s, step %" PRIu32 "/%" PRIu32 ", %" PRIu64 " items scanned, %" PRIu64
               " moved, %" PRIu64 " rewritten, %" PRIu64 " already in their new form, %" PRIu64 " deleted, %" PRIu64
               " unique values claimed, %.0f capacity units: run the same ddb migrate again to resume\n",
               table, st.id, st.step, st.n_steps, st.scanned, st.moved, st.rewritten, st.unchanged, st.deleted,
               st.claimed, st.capacity);
    else
        printf("%s: no migration in progress\n", table);
    printf("%s: %" PRIu64 " applied migration%s recorded%s\n", table, st.n_recorded, st.n_recorded == 1 ? "" : "s",
           st.n_history < st.n_recorded ? " (the last ones, oldest first):" : st.n_history ? ":" : "");
    for (size_t i = 0; i < st.n_history; i++)
        print_record(&st.history[i]);
    if (st.model_entry)
        printf("%s: schema model recorded by entry %" PRIu64 " (%s, %" PRIu64 " bytes): the next plan starts from it "
               "(ddbgen --plan-migration --from-table URI %s; ddb migrate model %s writes it)\n",
               table, st.model_entry->seq, st.model_entry->id, st.model_entry->model_bytes, table, table);
    else
        printf("%s: no schema model recorded: record the deployed one (ddb migrate baseline %s MODEL.json)\n", table,
               table);
    ddb_arena_free(a);
    return 0;
}

int cmd_migrate_model(cli *c, const char *table)
{
    if (cli_open(c))
        return 1;
    ddb_arena *a = ddb_arena_new();
    const char *model = NULL;
    size_t len = 0;
    ddb_error e = {0};
    if (!a || ddb_ent_migration_model(c->db, table, a, &model, &len, NULL, &e)) {
        ddb_arena_free(a);
        return cli_fail(c, &e, "%s", ""); /* the message names the table */
    }
    int rc = fwrite(model, 1, len, stdout) == len && putchar('\n') != EOF ? 0 : cli_failf(c, "writing the model failed");
    ddb_arena_free(a);
    return rc;
}

int cmd_migrate_baseline(cli *c, const char *table, const char *path)
{
    if (cli_open(c))
        return 1;
    json_t *doc = cli_load_json(c, path, DDB_ENT_MODEL_MAX, "the model");
    if (!doc)
        return 1;
    int rc = 0;
    if (!json_is_array(json_object_get(doc, "tables")) || !json_is_array(json_object_get(doc, "entities")))
        rc = cli_failf(c, "%s is not a schema model (write it with ddbgen --emit-model)", path);
    char *compact = rc ? NULL : json_dumps(doc, JSON_COMPACT);
    ddb_error e = {0};
    if (!rc && !compact)
        rc = cli_failf(c, "out of memory");
    if (!rc && ddb_ent_migration_baseline(c->db, table, compact, strlen(compact), &e))
        rc = cli_fail(c, &e, "baseline of %s", table);
    if (!rc)
        printf("%s: %s recorded as the schema model the data is in (%zu bytes): the next plan starts from it\n",
               table, path, strlen(compact));
    free(compact);
    json_decref(doc);
    return rc;
}
