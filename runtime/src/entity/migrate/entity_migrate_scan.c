/* Entity room, migrations: a step's scan (entity_migrate_run.h).  The
 * table is scanned for the step's entity (a renamed one's old name) page
 * by page from the checkpoint; each item goes to entity_migrate_queue.c,
 * the queue is committed after each page, then the checkpoint is stored,
 * progress reported and the rate held under the capacity asked for.  A
 * step with claims ends with a second scan that checks that every stored
 * value is claimed by its item.  Calls the public Scan API and this room's
 * cursors, type filter, claims and checkpoints. */
#include "entity_migrate_run.h"

#include "core/error.h"

#include <string.h>

static double since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Hold the average rate of this run at or under max_capacity per second. */
static void throttle(mig *g)
{
    if (g->o.max_capacity <= 0)
        return;
    double want = (g->cp.capacity - g->cap0) / g->o.max_capacity, have = since(&g->t0);
    if (want > have) {
        double d = want - have;
        struct timespec ts = {(time_t)d, (long)((d - (double)(time_t)d) * 1e9)};
        while (nanosleep(&ts, &ts) != 0)
            ;
    }
}

static void report_progress(mig *g, const ddb_ent_migration_step *s, uint64_t scanned, uint32_t step)
{
    if (!g->o.progress)
        return;
    ddb_ent_progress p = {.entity = step_name(s), .step = g->o.dry_run ? "dry run" : "migrate",
                          .done = g->cp.moved + g->cp.rewritten + g->cp.deleted, .skipped = g->cp.unchanged, .scanned = scanned,
                          .scanned_before = step == g->step0 ? g->in_step0 : 0, .total = g->total,
                          .capacity = g->cp.capacity, .step_no = step + 1, .n_steps = g->cp.n_steps,
                          .claimed = g->cp.claimed, .moved = g->cp.moved, .deleted = g->cp.deleted};
    g->o.progress(g->o.progress_ctx, &p);
}

/* The next page of scan sp, in pa (emptied first); its capacity counted. */
static int next_page(mig *g, const ddb_scan_params *sp, ddb_arena *pa, ddb_page *pg, ddb_error *err)
{
    ddb_arena_reset(pa);
    memset(pg, 0, sizeof *pg);
    int rc = ddb_scan(g->db, sp, pa, pg, err);
    if (!rc)
        g->cp.capacity += pg->capacity.total;
    return rc;
}

/* The end of a step with claims: every value its entity's items hold must
 * be claimed by its item.  The step's pass claims what it meets, but an
 * item it had passed before a run stopped (at a duplicate) may have been
 * changed since (the duplicate fixed on the item that made the claim): a
 * second consistent scan reads each item's uniqueness items back, claims
 * what is missing as the first pass does (the ConditionCheck that the item
 * still holds the value, the takeover of a stale claim, the duplicate
 * message), reads those again, and the values and the claims held must
 * then be as many, or the step fails saying so.  Not checkpointed: a
 * resumed run checks from the start. */
static int verify_claims(mig *g, const ddb_ent_migration_step *s, const ddb_scan_params *base, ddb_error *err)
{
    ddb_scan_params sp = *base;
    sp.start_key = NULL;
    ddb_arena *pa = ddb_arena_new(), *ka = ddb_arena_new();
    uint64_t values = 0, held = 0, scanned = 0;
    int rc = pa && ka ? DDB_OK : ddbi_fail_oom(err, __func__);
    while (!rc) {
        ddb_page pg;
        if ((rc = next_page(g, &sp, pa, &pg, err)))
            break;
        scanned += pg.scanned_count;
        bool *missing = pg.count ? ddb_arena_alloc(pa, pg.count * sizeof *missing) : NULL;
        if (pg.count && !missing)
            rc = ddbi_fail_oom(err, __func__);
        for (size_t i = 0; i < pg.count && !rc; i++) {
            size_t nv, nh;
            rc = ddbi_ent_claims_held(&g->cl, g->db, pg.items[i], pa, &nv, &nh, &g->cp.capacity, err);
            values += nv;
            held += nh;
            missing[i] = !rc && nh < nv;
            if (missing[i]) {
                held -= nh; /* counted when read again below */
                rc = ddbi_ent_mig_queue_claims(g, pg.items[i], true, pa, err);
            }
        }
        if (!rc)
            rc = ddbi_ent_mig_flush(g, pa, err);
        for (size_t i = 0; i < pg.count && !rc; i++) {
            size_t nv, nh;
            if (missing[i] && !(rc = ddbi_ent_claims_held(&g->cl, g->db, pg.items[i], pa, &nv, &nh, &g->cp.capacity,
                                                          err)))
                held += nh;
        }
        if (!rc && g->o.progress) {
            ddb_ent_progress p = {.entity = s->entity->name, .step = "check claims", .done = held,
                                  .scanned = scanned, .total = g->total, .capacity = g->cp.capacity,
                                  .step_no = g->cp.step + 1, .n_steps = g->cp.n_steps, .claimed = g->cp.claimed};
            g->o.progress(g->o.progress_ctx, &p);
        }
        if (rc || !pg.last_key)
            break;
        if (!(sp.start_key = ddb_item_copy(ka, pg.last_key)))
            rc = ddbi_fail_oom(err, __func__);
    }
    if (!rc && held != values)
        rc = ddbi_fail(err, DDB_ECONDITION,
                       "%s: after claiming, %llu of the %llu values its items hold for DDB_UNIQUE fields are claimed "
                       "by them (an item was changed during the check?): run the migration again",
                       s->entity->name, (unsigned long long)held, (unsigned long long)values);
    if (!rc)
        g->cp.verified += held;
    ddb_arena_free(ka);
    ddb_arena_free(pa);
    return rc;
}

/* Scan the table for step s's entity from the checkpoint to the end. */
int ddbi_ent_mig_run_step(mig *g, const ddb_ent_migration_step *s, ddb_error *err)
{
    ddb_arena *a = ddb_arena_new(), *pa = ddb_arena_new();
    ddbi_exprb fx = {0};
    const ddb_expr *filter = NULL;
    int rc = !a || !pa ? ddbi_fail_oom(err, __func__) : DDB_OK;
    if (!rc)
        rc = ddbi_exprb_init(&fx, g->db, a, err);
    /* the items stored under the entity's name: a renamed one's old name */
    if (!rc)
        rc = ddbi_ent_type_filter_named(&fx, g->m->table, s->renamed_from ? s->renamed_from : step_name(s), a, &filter,
                                        err);
    if (!rc)
        rc = ddbi_ent_claims_init(&g->cl, s, err);
    ddb_scan_params sp = {.table = g->m->table->def.name, .consistent = true, .filter = filter,
                          .values = ddbi_exprb_values(&fx), .limit = g->o.page_size,
                          .return_capacity = DDB_CAPACITY_TOTAL};
    ddb_item *start = NULL;
    if (!rc && g->cp.cursor && (rc = ddbi_ent_cursor_decode(a, g->cp.cursor, &start, err)))
        rc = ddbi_ent_fail_within(err, DDB_ECORRUPT, "the migration checkpoint's position is unreadable");
    sp.start_key = start;
    /* sharded: the logical item of the item the last page ended at was done with that page */
    ddbi_ent_mig_resume_group(g, s, start);
    while (!rc) {
        ddb_page pg;
        if ((rc = next_page(g, &sp, pa, &pg, err)))
            break;
        g->cp.in_step += pg.scanned_count;
        g->cp.scanned += pg.scanned_count;
        for (size_t i = 0; i < pg.count && !rc; i++)
            rc = ddbi_ent_mig_one_item(g, s, pg.items[i], pa, err);
        if (!rc)
            rc = ddbi_ent_mig_flush(g, pa, err);
        if (rc)
            break;
        const char *cursor = NULL;
        if (pg.last_key) {
            ddb_item *next = ddb_item_copy(a, pg.last_key);
            if (!next || (rc = ddbi_ent_cursor_encode(a, next, &cursor, err))) {
                rc = rc ? rc : ddbi_fail_oom(err, __func__);
                break;
            }
            sp.start_key = next;
        }
        g->cp.cursor = cursor;
        if (!cursor && g->cl.n && !g->o.dry_run && (rc = verify_claims(g, s, &sp, err)))
            break;
        uint32_t step = g->cp.step;
        uint64_t scanned = g->cp.in_step;
        if (!cursor) {
            g->cp.step++;
            g->cp.in_step = 0;
        }
        if (!g->o.dry_run && (rc = ddbi_ent_checkpoint_put(g->db, g->m->table->def.name, &g->cp, err)))
            break;
        report_progress(g, s, scanned, step);
        throttle(g);
        if (!cursor)
            break;
    }
    ddbi_ent_claims_done(&g->cl);
    ddbi_exprb_done(&fx);
    ddb_arena_free(pa);
    ddb_arena_free(a);
    return rc;
}

