/* Entity room: a generated module's table.  Create it, or open it under
 * the schema: same key schema and indexes (a new GSI is added), and per
 * entity the same fingerprint as the stored items' (compatible changes
 * evolve it; incompatible ones are DDB_EMODEL naming the change).  Open
 * never rewrites items by itself: backfills the stored items need are
 * DDB_EMODEL with a summary unless the caller's options ask to run them
 * (with progress).  Fields now DDB_UNIQUE whose stored values were never
 * claimed are refused.  While a migration is in progress only the module
 * that wrote the stored items opens the table, changing nothing
 * (entity_migrate_open.c).
 * Calls the public table API (describe, create, add index, table
 * metadata) and this room's fingerprints and backfill. */
#include "entity/migrate/entity_migrate.h"

#include "core/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ddb_ent_create_table(ddb *db, const ddb_schema_table *t, ddb_error *err)
{
    if (!t)
        return ddbi_fail(err, DDB_EINVAL, "create_table: no table");
    return ddb_create_table(db, &t->def, err);
}

static bool same_key(const ddb_key_schema *x, const ddb_key_schema *y)
{
    return !strcmp(x->pk, y->pk) && x->pk_type == y->pk_type && !x->sk == !y->sk &&
           (!x->sk || (!strcmp(x->sk, y->sk) && x->sk_type == y->sk_type));
}

static bool same_index(const ddb_index_def *x, const ddb_index_def *y)
{
    if (x->local != y->local || !same_key(&x->key, &y->key) || x->projection != y->projection)
        return false;
    if (x->projection != DDB_PROJ_INCLUDE)
        return true;
    if (x->n_include != y->n_include)
        return false;
    for (size_t i = 0; i < x->n_include; i++) {
        size_t j = 0;
        while (j < y->n_include && strcmp(x->include[i], y->include[j]) != 0)
            j++;
        if (j == y->n_include)
            return false;
    }
    return true;
}

int ddbi_ent_drop_undeclared(ddb *db, const ddb_schema_table *t, ddb_error *err)
{
    ddb_arena *a = ddb_arena_new();
    ddb_table_desc *d;
    int rc = a ? ddb_describe_table(db, t->def.name, a, &d, err) : ddbi_fail_oom(err, __func__);
    for (size_t j = 0; !rc && j < d->def.n_indexes; j++) {
        bool declared = d->def.indexes[j].local;
        for (size_t i = 0; i < t->def.n_indexes; i++)
            declared |= !strcmp(t->def.indexes[i].name, d->def.indexes[j].name);
        if (!declared)
            rc = ddb_delete_index(db, t->def.name, d->def.indexes[j].name, err);
    }
    ddb_arena_free(a);
    return rc;
}

/* What the stored data of one entity needs before this schema can use it. */
typedef struct ent_state {
    ddb_buf fp;       /* the schema's fingerprint */
    bool record;      /* store fp (new entity, or evolved) */
    uint64_t backfill; /* bit k: key k is missing from the stored items */
    char unclaimed[200]; /* the fields now DDB_UNIQUE whose stored values were never claimed ("": none) */
} ent_state;

/* Compare every entity's stored fingerprint with the schema's; writes nothing. */
static int check_entities(ddb *db, const ddb_schema_table *t, const ddb_entity_desc *const *ents, size_t n,
                          ent_state *st, ddb_arena *a, ddb_error *err)
{
    int rc = DDB_OK;
    for (size_t i = 0; i < n && !rc; i++) {
        char key[300];
        snprintf(key, sizeof key, "ddbgen.entity.%s", ents[i]->name);
        if ((rc = ddbi_ent_check_shards(ents[i], err)))
            break;
        if (ents[i]->n_keys > 64)
            return ddbi_fail(err, DDB_ELIMIT, "entity %s has %u keys, at most 64", ents[i]->name, ents[i]->n_keys);
        if (ddbi_ent_fingerprint(ents[i], &st[i].fp))
            return ddbi_fail_oom(err, __func__);
        void *old;
        size_t len;
        rc = ddb_table_meta_get(db, t->def.name, key, a, &old, &len, err);
        if (rc == DDB_ENOTFOUND) {
            st[i].record = true; /* a new entity */
            rc = DDB_OK;
            continue;
        }
        if (rc || (len == st[i].fp.len && !memcmp(old, st[i].fp.p, len)))
            continue;
        const char *la, *lb;
        int na, nb;
        if (!ddbi_ent_fingerprint_compatible(old, (const char *)st[i].fp.p, &la, &na, &lb, &nb))
            return ddbi_fail(err, DDB_EMODEL,
                             "table %s holds %s items written with \"%.*s\"; the schema now says \"%.*s\" "
                             "(regenerate against the old schema, or migrate the items: ddbgen --plan-migration, "
                             "then ddb migrate)",
                             t->def.name, ents[i]->name, na > 90 ? 90 : na, la, nb > 90 ? 90 : nb, lb);
        st[i].record = true;
        ddbi_ent_fingerprint_new_unique(old, ents[i], st[i].unclaimed, sizeof st[i].unclaimed);
        for (uint16_t k = 1; k < ents[i]->n_keys; k++) { /* keys the stored items lack: a new or joined index */
            if (ents[i]->keys[k].by_fields)
                continue; /* a key of fields: the stored items carry its attributes already */
            const char *ix = ents[i]->keys[k].index;
            int ml;
            if (!ddbi_ent_fingerprint_line(old, ix, strlen(ix), &ml))
                st[i].backfill |= (uint64_t)1 << k;
        }
    }
    return rc;
}

/* Backfills of entities that have no stored items are free: drop them.
 * The rest are refused with a summary unless o asks to run them. */
static int settle_backfills(ddb *db, const ddb_schema_table *t, const ddb_entity_desc *const *ents, size_t n,
                            ent_state *st, const ddb_ent_open_opts *o, ddb_error *err)
{
    char list[600] = "";
    size_t used = 0, count = 0;
    for (size_t i = 0; i < n; i++) {
        if (!st[i].backfill || (o && o->backfill))
            continue;
        bool any;
        int rc = ddbi_ent_has_items(db, ents[i], &any, err);
        if (rc)
            return rc;
        if (!any) {
            st[i].backfill = 0;
            continue;
        }
        for (uint16_t k = 1; k < ents[i]->n_keys; k++) {
            if (!(st[i].backfill >> k & 1))
                continue;
            int w = snprintf(list + used, sizeof list - used, "%s%s joins index %s (its stored items lack %s)",
                             count ? "; " : "", ents[i]->name, ents[i]->keys[k].index, ents[i]->keys[k].pk_attr);
            if (w > 0)
                used = used + (size_t)w < sizeof list ? used + (size_t)w : sizeof list - 1;
            count++;
        }
    }
    if (!count)
        return DDB_OK;
    return ddbi_fail(err, DDB_EMODEL,
                     "table %s needs %zu backfill%s before this schema can use it: %s; nothing was changed: run "
                     "them with <table>_open_with(.backfill = true) (ddb_ent_open_opts), or apply a migration plan "
                     "(ddbgen --plan-migration, then ddb migrate)",
                     t->def.name, count, count == 1 ? "" : "s", list);
}

/* Fields now DDB_UNIQUE whose stored values were never claimed: refused
 * while the entity has stored items (a new item could take a value they
 * hold, and two of them may hold one); the migration plan's claim step
 * claims them and records the new fingerprint. */
static int settle_claims(ddb *db, const ddb_schema_table *t, const ddb_entity_desc *const *ents, size_t n,
                         const ent_state *st, ddb_error *err)
{
    for (size_t i = 0; i < n; i++) {
        bool any;
        int rc = st[i].unclaimed[0] ? ddbi_ent_has_items(db, ents[i], &any, err) : DDB_OK;
        if (rc)
            return rc;
        if (st[i].unclaimed[0] && any)
            return ddbi_fail(err, DDB_EMODEL,
                             "table %s holds %s items written before %s was DDB_UNIQUE: their values are not claimed "
                             "(a new item could take one, and two items may already hold one); nothing was changed: "
                             "apply the migration plan that claims them (ddbgen --plan-migration, ddb migrate "
                             "--dry-run to list the duplicates, then ddb migrate)",
                             t->def.name, ents[i]->name, st[i].unclaimed);
    }
    return DDB_OK;
}

int ddb_ent_open_table(ddb *db, const ddb_schema_table *t, const ddb_entity_desc *const *ents, size_t n,
                       ddb_error *err)
{
    return ddb_ent_open_table_with(db, t, ents, n, NULL, err);
}

int ddb_ent_open_table_with(ddb *db, const ddb_schema_table *t, const ddb_entity_desc *const *ents, size_t n,
                            const ddb_ent_open_opts *o, ddb_error *err)
{
    if (!db || !t || (n && !ents))
        return ddbi_fail(err, DDB_EINVAL, "open_table: db, table and entities are required");
    ddb_arena *a = ddb_arena_new();
    ent_state *st = calloc(n ? n : 1, sizeof *st);
    if (!a || !st) {
        ddb_arena_free(a);
        free(st);
        return ddbi_fail_oom(err, __func__);
    }
    ddb_table_desc *d;
    const ddb_index_def *add[DDB_MAX_GSI];
    size_t n_add = 0;
    int rc = ddb_describe_table(db, t->def.name, a, &d, err);
    if (rc == DDB_ENOTABLE) {
        rc = ddb_create_table(db, &t->def, err);
        if (rc == DDB_EEXISTS) /* created meanwhile by someone else: verify it below */
            rc = ddb_describe_table(db, t->def.name, a, &d, err);
        else if (!rc)
            d = NULL;
    }
    if (!rc && d && !same_key(&d->def.key, &t->def.key))
        rc = ddbi_fail(err, DDB_EMODEL, "table %s was created with key %s%s%s; the schema declares %s%s%s",
                      t->def.name, d->def.key.pk, d->def.key.sk ? "/" : "", d->def.key.sk ? d->def.key.sk : "",
                      t->def.key.pk, t->def.key.sk ? "/" : "", t->def.key.sk ? t->def.key.sk : "");
    for (size_t i = 0; !rc && d && i < t->def.n_indexes; i++) {
        const ddb_index_def *want = &t->def.indexes[i], *have = NULL;
        for (size_t j = 0; j < d->def.n_indexes; j++)
            if (!strcmp(d->def.indexes[j].name, want->name))
                have = &d->def.indexes[j];
        if (have && !same_index(have, want))
            rc = ddbi_fail(err, DDB_EMODEL,
                          "index %s of table %s was created with another key or projection than the schema declares",
                          want->name, t->def.name);
        else if (!have && want->local)
            rc = ddbi_fail(err, DDB_EMODEL,
                          "table %s has no local index %s, and a local index can only be created with the table",
                          t->def.name, want->name);
        else if (!have && n_add < DDB_MAX_GSI)
            add[n_add++] = want;
    }
    bool reader = false; /* a migration is in progress: opened only as it is stored, changing nothing */
    if (!rc && d)
        rc = ddbi_ent_migration_open_check(db, t, ents, n, a, &reader, err);
    if (!rc)
        rc = check_entities(db, t, ents, n, st, a, err);
    if (!rc)
        rc = settle_claims(db, t, ents, n, st, err);
    if (!rc)
        rc = settle_backfills(db, t, ents, n, st, o, err);
    bool changes = n_add || (o && o->drop_indexes);
    for (size_t i = 0; i < n; i++)
        changes |= st[i].record || st[i].backfill;
    if (!rc && reader && changes)
        rc = ddbi_ent_migration_refuse(db, t, a, "this module's schema is not the one the stored items were written "
                                                 "with (only that one may read the table meanwhile): resume the "
                                                 "migration (ddb migrate, or ddb_ent_migrate) before opening it",
                                       err);
    /* from here on the table is changed: new GSIs (the backend indexes the
     * items that already carry their keys), backfills, fingerprints */
    for (size_t i = 0; !rc && i < n_add; i++)
        rc = ddb_add_index(db, t->def.name, add[i], NULL, NULL, err);
    if (!rc && d && o && o->drop_indexes)
        rc = ddbi_ent_drop_undeclared(db, t, err);
    ddb_ent_progress pr = {.total = d ? d->item_count : 0};
    for (size_t i = 0; !rc && i < n; i++)
        for (uint16_t k = 1; !rc && k < ents[i]->n_keys; k++)
            if (st[i].backfill >> k & 1)
                rc = ddbi_ent_backfill_key(db, ents[i], k, o ? o->progress : NULL, o ? o->progress_ctx : NULL, &pr,
                                           err);
    for (size_t i = 0; !rc && i < n; i++) {
        char key[300];
        snprintf(key, sizeof key, "ddbgen.entity.%s", ents[i]->name);
        if (st[i].record)
            rc = ddb_table_meta_put(db, t->def.name, key, st[i].fp.p, st[i].fp.len, err);
    }
    for (size_t i = 0; i < n; i++)
        ddbi_buf_free(&st[i].fp);
    free(st);
    ddb_arena_free(a);
    return rc;
}
