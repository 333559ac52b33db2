/* Entity room: batch writes (BatchWriteItem, 25 items a request; the
 * backend retries unprocessed items): puts and deletes of any entities,
 * gathered in a ddb_ent_batch and sent in order, or all of one entity
 * (ddb_ent_batch_put, ddb_ent_batch_delete).  A batch checks no condition:
 * entities whose writes need one (a version, unique fields) or that keep
 * stored fields (created-at, create-only) are refused.  Calls the public
 * batch API and this room's marshalling, templates, stamps and keys. */
#include "entity/tx/entity_tx.h"

#include "core/error.h"

#include <string.h>

/* DynamoDB's limit per request: items of BatchWriteItem. */
#define BATCH_WRITE_MAX 25

struct ddb_ent_batch {
    ddb *db;
    ddb_arena *a;
    size_t n, cap;
    ddb_batch_write_op *ops;
    bool failed;
};

ddb_ent_batch *ddb_ent_batch_new(ddb *db, ddb_arena *a, ddb_error *err)
{
    if (!db || !a) {
        ddbi_fail(err, DDB_EINVAL, "batch: %s is required", db ? "an arena" : "a database handle");
        return NULL;
    }
    ddb_ent_batch *b = ddb_arena_alloc(a, sizeof *b);
    if (!b) {
        ddbi_fail_oom(err, "ddb_ent_batch_new");
        return NULL;
    }
    memset(b, 0, sizeof *b);
    b->db = db;
    b->a = a;
    return b;
}

/* Can e's writes go in a batch? */
static int batchable(const ddb_entity_desc *e, bool put, ddb_error *err)
{
    int rc = ddbi_ent_check_shards(e, err);
    if (rc)
        return rc;
    if (ddbi_ent_parts(e) > BATCH_WRITE_MAX) /* one entity per request at least */
        return ddbi_fail(err, DDB_ELIMIT, "%s has %d shards: one entity needs more than the %d items of a batch write",
                         e->name, ddbi_ent_parts(e), BATCH_WRITE_MAX);
    const ddb_field_desc *f;
    if (put && (f = ddbi_ent_flagged(e, DDB_FIELD_VERSION)))
        return ddbi_fail(err, DDB_EVALIDATION,
                         "%s has a version field: a batch cannot check versions (use put or a transaction)", e->name);
    if ((f = ddbi_ent_flagged(e, DDB_FIELD_UNIQUE)))
        return ddbi_fail(err, DDB_EVALIDATION,
                         "%s has a unique field (%s): its uniqueness items need a transaction (use put/delete)",
                         e->name, f->name);
    if (put && (f = ddbi_ent_flagged(e, DDB_FIELD_CREATED_AT | DDB_FIELD_CREATE_ONLY)))
        return ddbi_fail(err, DDB_EVALIDATION, "%s keeps field %s when it is written again: a batch put would replace "
                         "it (use put or upsert)", e->name, f->name);
    return DDB_OK;
}

static int append(ddb_ent_batch *b, ddb_batch_write_op op, ddb_error *err)
{
    if (b->n == b->cap) {
        size_t nc = b->cap ? 2 * b->cap : 32;
        ddb_batch_write_op *ops = ddb_arena_alloc(b->a, nc * sizeof *ops);
        if (!ops)
            return ddbi_fail_oom(err, __func__);
        if (b->n)
            memcpy(ops, b->ops, b->n * sizeof *ops);
        b->ops = ops;
        b->cap = nc;
    }
    b->ops[b->n++] = op;
    return DDB_OK;
}

int ddb_ent_batch_add_put(ddb_ent_batch *b, const ddb_entity_desc *e, void *obj, ddb_error *err)
{
    if (!b || !e || !obj)
        return ddbi_fail(err, DDB_EINVAL, "batch: batch, entity and object are required");
    int rc = batchable(e, true, err);
    if (!rc)
        rc = ddbi_ent_fill_stamps(b->db, e, obj, false, b->a, err);
    if (!rc)
        rc = ddbi_ent_fill_derived(e, obj, b->a, err);
    for (int s = 0; !rc && s < ddbi_ent_parts(e); s++) {
        ddb_item *it = NULL;
        if (!(rc = ddbi_ent_item_part(e, obj, e->n_shards ? s : -1, b->a, &it, err)))
            rc = append(b, (ddb_batch_write_op){.table = e->table->def.name, .put = it}, err);
    }
    b->failed |= rc != DDB_OK;
    return rc;
}

int ddb_ent_batch_add_delete(ddb_ent_batch *b, const ddb_entity_desc *e, const void *key, ddb_error *err)
{
    if (!b || !e || !key)
        return ddbi_fail(err, DDB_EINVAL, "batch: batch, entity and key are required");
    int rc = batchable(e, false, err);
    for (int s = 0; !rc && s < ddbi_ent_parts(e); s++) {
        ddb_item *k = NULL;
        if (!(rc = ddbi_ent_primary_key(e, key, e->n_shards ? s : -1, b->a, &k, err)))
            rc = append(b, (ddb_batch_write_op){.table = e->table->def.name, .delete_key = k}, err);
    }
    b->failed |= rc != DDB_OK;
    return rc;
}

int ddb_ent_batch_run(ddb_ent_batch *b, const ddb_ent_opts *o, ddb_capacity *cap, ddb_error *err)
{
    if (cap)
        memset(cap, 0, sizeof *cap);
    if (!b)
        return ddbi_fail(err, DDB_EINVAL, "batch: no builder");
    int rc = DDB_OK;
    if (b->failed)
        rc = ddbi_fail(err, DDB_EINVAL, "batch: an operation could not be added; nothing was written");
    for (size_t i = 0; !rc && i < b->n; i += BATCH_WRITE_MAX) {
        size_t k = b->n - i < BATCH_WRITE_MAX ? b->n - i : BATCH_WRITE_MAX;
        ddb_capacity c;
        if (!(rc = ddb_batch_write(b->db, b->ops + i, k, ddbi_ent_cap_mode(o), &c, err)))
            ddbi_ent_cap_merge(cap, &c);
        else if (i)
            ddbi_ent_fail_within(err, rc, "batch: the first %zu items were written, then", i);
    }
    b->n = 0;
    b->failed = false;
    return rc;
}

/* n structs of e (objects to put, or keys to delete), each e->st->size
 * bytes, written as one batch (split as BatchWriteItem requires). */
static int batch_all(ddb *db, const ddb_entity_desc *e, const void *structs, size_t n, bool put,
                     const ddb_ent_opts *o, ddb_capacity *cap, ddb_error *err)
{
    if (cap)
        memset(cap, 0, sizeof *cap);
    if (!db || !e || (n && !structs))
        return ddbi_fail(err, DDB_EINVAL, put ? "batch put: db, entity and objects are required"
                                              : "batch delete: db, entity and keys are required");
    int rc = batchable(e, put, err);
    if (rc)
        return rc;
    ddb_arena *a = ddb_arena_new();
    ddb_ent_batch *b = a ? ddb_ent_batch_new(db, a, err) : NULL;
    if (!b) {
        ddb_arena_free(a);
        return a ? DDB_ENOMEM : ddbi_fail_oom(err, __func__);
    }
    for (size_t i = 0; i < n && !rc; i++) {
        const char *s = (const char *)structs + i * e->st->size;
        rc = put ? ddb_ent_batch_add_put(b, e, (void *)s, err) : ddb_ent_batch_add_delete(b, e, s, err);
    }
    if (!rc)
        rc = ddb_ent_batch_run(b, o, cap, err);
    ddb_arena_free(a);
    return rc;
}

int ddb_ent_batch_put(ddb *db, const ddb_entity_desc *e, void *objs, size_t n, const ddb_ent_opts *o,
                      ddb_capacity *cap, ddb_error *err)
{
    return batch_all(db, e, objs, n, true, o, cap, err);
}

int ddb_ent_batch_delete(ddb *db, const ddb_entity_desc *e, const void *keys, size_t n, const ddb_ent_opts *o,
                         ddb_capacity *cap, ddb_error *err)
{
    return batch_all(db, e, keys, n, false, o, cap, err);
}
