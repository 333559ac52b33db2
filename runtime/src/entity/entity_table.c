/* Entity room: a generated module's table.  Create it, or open it under
 * the schema: same key schema and indexes (a new GSI is added and
 * backfilled), and per entity the same fingerprint as the stored items'
 * (compatible changes evolve it, with backfilled keys; incompatible ones
 * are DDB_EMODEL naming the change).  Calls the public table API
 * (describe, create, add index, table metadata) and this room's
 * fingerprints and backfill. */
#include "entity/entity_internal.h"

#include "core/error.h"

#include <stdio.h>
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

static int check_entities(ddb *db, const ddb_schema_table *t, const ddb_entity_desc *const *ents, size_t n,
                          ddb_arena *a, ddb_error *err)
{
    int rc = DDB_OK;
    for (size_t i = 0; i < n && !rc; i++) {
        ddb_buf fp = {0};
        char key[300];
        snprintf(key, sizeof key, "ddbgen.entity.%s", ents[i]->name);
        if ((rc = ddbi_ent_check_shards(ents[i], err)))
            break;
        if (ddbi_ent_fingerprint(ents[i], &fp)) {
            ddbi_buf_free(&fp);
            return ddbi_fail_oom(err, __func__);
        }
        void *old;
        size_t len;
        rc = ddb_table_meta_get(db, t->def.name, key, a, &old, &len, err);
        if (rc == DDB_ENOTFOUND)
            rc = ddb_table_meta_put(db, t->def.name, key, fp.p, fp.len, err); /* a new entity */
        else if (!rc && (len != fp.len || memcmp(old, fp.p, len) != 0)) {
            const char *la, *lb;
            int na, nb;
            if (ddbi_ent_fingerprint_compatible(old, (const char *)fp.p, &la, &na, &lb, &nb)) {
                /* keys the stored items lack (a new index, an index joined): write them, then remember */
                for (uint16_t k = 1; k < ents[i]->n_keys && !rc; k++) {
                    const char *ix = ents[i]->keys[k].index;
                    int ml;
                    if (!ddbi_ent_fingerprint_line(old, ix, strlen(ix), &ml))
                        rc = ddbi_ent_backfill_key(db, ents[i], k, err);
                }
                if (!rc)
                    rc = ddb_table_meta_put(db, t->def.name, key, fp.p, fp.len, err);
                ddbi_buf_free(&fp);
                continue;
            }
            rc = ddbi_fail(err, DDB_EMODEL,
                          "table %s holds %s items written with \"%.*s\"; the schema now says \"%.*s\" (regenerate "
                          "against the old schema, or migrate the items)",
                          t->def.name, ents[i]->name, na > 90 ? 90 : na, la, nb > 90 ? 90 : nb, lb);
        }
        ddbi_buf_free(&fp);
    }
    return rc;
}

int ddb_ent_open_table(ddb *db, const ddb_schema_table *t, const ddb_entity_desc *const *ents, size_t n,
                       ddb_error *err)
{
    if (!db || !t || (n && !ents))
        return ddbi_fail(err, DDB_EINVAL, "open_table: db, table and entities are required");
    ddb_arena *a = ddb_arena_new();
    if (!a)
        return ddbi_fail_oom(err, __func__);
    ddb_table_desc *d;
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
        else if (!have)
            rc = ddb_add_index(db, t->def.name, want, NULL, NULL, err); /* a new GSI, backfilled */
    }
    if (!rc)
        rc = check_entities(db, t, ents, n, a, err);
    ddb_arena_free(a);
    return rc;
}
