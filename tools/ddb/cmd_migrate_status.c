/* migrate status: what a table's migrations are — the one in progress
 * (its plan, step and counts, from the checkpoint stored with the table),
 * the model version the data is in, and the last applied plans (the
 * history the migrations record in the table).  Calls the public entity
 * API (ddb_ent_migration_status). */
#include "cli.h"
#include <ddb/entity.h>
#include <inttypes.h>

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
    printf("%s: %zu applied migration%s recorded%s\n", table, st.n_history, st.n_history == 1 ? "" : "s",
           st.n_history ? " (the last ones, oldest first):" : "");
    for (size_t i = 0; i < st.n_history; i++)
        printf("  %s\n", st.history[i]);
    ddb_arena_free(a);
    return 0;
}
