/* Entity room: opening a table while a migration of it is in progress.
 * When a migration starts it records, beside its checkpoint, the shape of
 * every entity of the new schema (DDB_ENT_MIGRATION_TARGET_META: lines
 * "<entity> <shape hash>"; the shape covers the fingerprint and every
 * field's name, stored name, type, size and flags).  ddb_ent_open_table
 * then tells the two modules apart: the new one (all its entities of the
 * target's shape) is refused until the migration ends; another one (the
 * old module: some entity of another shape) may open the table to read the
 * items not moved yet, provided its fingerprints are the stored ones and
 * opening changes nothing (no index to add, nothing to record or
 * backfill).  A migration recorded without a target (started by an
 * earlier version) refuses every module.  The refusal names the plan, the
 * step and the count scanned, not the checkpoint's raw position.  Calls
 * the public table metadata API and this room's checkpoints and
 * fingerprints. */
#include "entity/migrate/entity_migrate.h"

#include "core/error.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define SHAPE_LINE_MAX 300

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ ((const unsigned char *)p)[i]) * 1099511628211ull;
    return h;
}

static uint64_t struct_shape(uint64_t h, const ddb_struct_desc *st, int depth)
{
    for (uint16_t i = 0; st && depth < 16 && i < st->n_fields; i++) {
        const ddb_field_desc *f = &st->fields[i];
        uint32_t nums[5] = {f->type, f->elem_type, f->size, f->elem_size, f->flags};
        h = fnv(h, f->name, strlen(f->name) + 1);
        h = fnv(h, f->attr, strlen(f->attr) + 1);
        h = fnv(h, nums, sizeof nums);
        h = struct_shape(h, f->sub, depth + 1);
    }
    return h;
}

static int shape(const ddb_entity_desc *e, uint64_t *out, ddb_error *err)
{
    ddb_buf fp = {0};
    if (ddbi_ent_fingerprint(e, &fp)) {
        ddbi_buf_free(&fp);
        return ddbi_fail_oom(err, __func__);
    }
    *out = struct_shape(fnv(1469598103934665603ull, fp.p, fp.len), e->st, 0);
    ddbi_buf_free(&fp);
    return DDB_OK;
}

int ddbi_ent_migration_target_put(ddb *db, const ddb_ent_migration *m, ddb_error *err)
{
    ddb_buf b = {0};
    int rc = DDB_OK;
    for (size_t i = 0; !rc && i < m->n_entities; i++) {
        uint64_t h;
        char line[SHAPE_LINE_MAX];
        if ((rc = shape(m->entities[i], &h, err)))
            break;
        int w = snprintf(line, sizeof line, "%.200s %016" PRIx64 "\n", m->entities[i]->name, h);
        rc = ddbi_buf_put(&b, line, (size_t)w) ? ddbi_fail_oom(err, __func__) : DDB_OK;
    }
    if (!rc)
        rc = ddb_table_meta_put(db, m->table->def.name, DDB_ENT_MIGRATION_TARGET_META, b.p ? (const char *)b.p : "",
                                b.len, err);
    ddbi_buf_free(&b);
    return rc;
}

int ddbi_ent_migration_refuse(ddb *db, const ddb_schema_table *t, ddb_arena *a, const char *why, ddb_error *err)
{
    ddbi_ent_checkpoint cp;
    bool found;
    int rc = ddbi_ent_checkpoint_get(db, t->def.name, a, &cp, &found, err);
    if (rc)
        return rc;
    /* the step under way, 1-based as the progress counts them; when the last one is done, the last one */
    uint32_t step = cp.step < cp.n_steps ? cp.step + 1 : cp.n_steps;
    return ddbi_fail(err, DDB_EMODEL,
                     "table %s: a migration is in progress (%s, step %" PRIu32 "/%" PRIu32 ", %" PRIu64
                     " items scanned); its items are in two forms until it ends: %s",
                     t->def.name, cp.id ? cp.id : "?", step, cp.n_steps, cp.scanned, why);
}

/* Is the shape of e the target's for its name?  (false when the target lists no such entity) */
static int is_target(const char *target, size_t len, const ddb_entity_desc *e, bool *yes, ddb_error *err)
{
    uint64_t h;
    int rc = shape(e, &h, err);
    char line[SHAPE_LINE_MAX];
    int w = snprintf(line, sizeof line, "%.200s %016" PRIx64 "\n", e->name, h);
    *yes = false;
    for (const char *p = target; !rc && p < target + len;) {
        const char *nl = memchr(p, '\n', (size_t)(target + len - p));
        size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(target + len - p);
        *yes |= n == (size_t)w && !memcmp(p, line, n);
        p += n;
    }
    return rc;
}

int ddbi_ent_migration_open_check(ddb *db, const ddb_schema_table *t, const ddb_entity_desc *const *ents, size_t n,
                                  ddb_arena *a, bool *reader, ddb_error *err)
{
    *reader = false;
    void *v;
    size_t len;
    int rc = ddb_table_meta_get(db, t->def.name, DDB_ENT_MIGRATION_META, a, &v, &len, err);
    if (rc == DDB_ENOTFOUND || (!rc && len == 0)) /* never, or ended */
        return DDB_OK;
    if (rc)
        return rc;
    rc = ddb_table_meta_get(db, t->def.name, DDB_ENT_MIGRATION_TARGET_META, a, &v, &len, err);
    if (rc == DDB_ENOTFOUND || (!rc && len == 0))
        return ddbi_ent_migration_refuse(db, t, a, "resume it (ddb migrate, or ddb_ent_migrate) before opening the "
                                                   "table",
                                         err);
    if (rc)
        return rc;
    bool all = n > 0;
    for (size_t i = 0; !rc && i < n; i++) {
        bool yes;
        rc = is_target(v, len, ents[i], &yes, err);
        all &= yes;
    }
    if (rc)
        return rc;
    if (all)
        return ddbi_ent_migration_refuse(db, t, a, "this module is the migration's new schema: it opens the table "
                                                   "when the migration ends (resume it: ddb migrate, or "
                                                   "ddb_ent_migrate)",
                                         err);
    *reader = true;
    return DDB_OK;
}
