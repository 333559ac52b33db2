/* engine/: Tables: the in-memory table cache loaded from the catalog
 * (catalog.c; a table whose definition does not load is kept as a damaged
 * entry), CreateTable / DeleteTable / DescribeTable / ListTables, UpdateTable
 * adding or deleting a GSI, per-table metadata.
 * May call core/ and expr/; the room above (streams/) only through its hooks. */
#include "core/codec.h"
#include "engine/engine.h"
#include "core/error.h"
#include "engine/keys.h"
#include "engine/stored.h"
#include "engine/table_def.h"
#include "core/value.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* meta keys: "gen" -> u64; "t/<name>" -> table definition record;
 * "p/<name>" -> partition bounds (u64 big-endian each) */

static int meta_key(char *buf, size_t cap, char kind, const char *name)
{
    int n = snprintf(buf, cap, "%c/%s", kind, name);
    return (n < 0 || (size_t)n >= cap) ? -1 : n;
}

static uint64_t get_gen(ddbi_engine *db, MDB_txn *txn)
{
    MDB_val k = {3, (void *)DDB_META_GEN}, v;
    uint64_t g = 0;
    if (mdb_get(txn, db->meta, &k, &v) == 0 && v.mv_size == 8)
        memcpy(&g, v.mv_data, 8);
    return g;
}

int ddbi_schema_bump_gen(ddbi_engine *db, MDB_txn *txn)
{
    uint64_t g = get_gen(db, txn) + 1;
    MDB_val k = {3, (void *)DDB_META_GEN}, v = {8, &g};
    return ddbi_kv_put(db, txn, db->meta, &k, &v, 0);
}

void ddbi_tables_free(ddb_table_rt *t)
{
    while (t) {
        ddb_table_rt *n = t->next;
        free(t->name);
        free(t->pk);
        free(t->sk);
        for (size_t i = 0; i < t->n_idx; i++) {
            free(t->idx[i].name);
            free(t->idx[i].pk);
            free(t->idx[i].sk);
            for (size_t j = 0; j < t->idx[i].n_pk_more; j++)
                free(t->idx[i].pk_more[j]);
            for (size_t j = 0; j < t->idx[i].n_sk_more; j++)
                free(t->idx[i].sk_more[j]);
            for (size_t j = 0; j < t->idx[i].n_include; j++)
                free(t->idx[i].include[j]);
            free(t->idx[i].include);
        }
        free(t->bounds);
        free(t->parts);
        free(t->damage);
        pthread_mutex_destroy(&t->lock);
        free(t);
        t = n;
    }
}

static void db_name(char *buf, size_t cap, const char *table, const char *index)
{
    if (index)
        snprintf(buf, cap, "x/%s/%s", table, index);
    else
        snprintf(buf, cap, "i/%s", table);
}

/* A copy of s (NULL stays NULL); *ok turns false when out of memory. */
static char *sdup(const char *s, bool *ok)
{
    char *c = s ? strdup(s) : NULL;
    *ok &= !s || c;
    return c;
}

/* Build a runtime table from its stored definition (read back and
 * validated by ddbi_catalog_decode); opens its databases in dbi_txn. */
static int table_from_def(ddbi_engine *db, MDB_txn *dbi_txn, const ddb_table_def *def, const MDB_val *bounds, ddb_table_rt **out,
                          ddb_error *err)
{
    ddb_table_rt *t = calloc(1, sizeof *t);
    if (!t)
        return ddbi_fail_oom(err, __func__);
    pthread_mutex_init(&t->lock, NULL);
    bool names = true;
    t->name = sdup(def->name, &names);
    t->pk = sdup(def->key.pk, &names);
    t->pk_type = def->key.pk_type;
    t->sk = sdup(def->key.sk, &names);
    t->sk_type = def->key.sk_type;
    t->rcu = def->rcu;
    t->wcu = def->wcu;
    for (size_t i = 0; i < def->n_indexes && i < DDB_MAX_INDEXES; i++) {
        const ddb_index_def *d = &def->indexes[i];
        ddb_index_rt *x = &t->idx[t->n_idx++];
        x->name = sdup(d->name, &names);
        x->local = d->local;
        x->pk = sdup(d->key.pk, &names);
        x->pk_type = d->key.pk_type;
        x->sk = sdup(d->key.sk, &names);
        x->sk_type = d->key.sk_type;
        for (size_t j = 0; j < d->key.n_pk_more && j < DDB_MAX_KEY_ATTRS - 1; j++) {
            x->pk_more[x->n_pk_more] = sdup(d->key.pk_more[j].name, &names);
            x->pk_more_type[x->n_pk_more++] = d->key.pk_more[j].type;
        }
        for (size_t j = 0; j < d->key.n_sk_more && j < DDB_MAX_KEY_ATTRS - 1; j++) {
            x->sk_more[x->n_sk_more] = sdup(d->key.sk_more[j].name, &names);
            x->sk_more_type[x->n_sk_more++] = d->key.sk_more[j].type;
        }
        x->proj = d->projection;
        x->rcu = d->rcu;
        x->wcu = d->wcu;
        if (d->n_include && !(x->include = calloc(d->n_include, sizeof *x->include)))
            names = false;
        for (size_t j = 0; x->include && j < d->n_include; j++)
            x->include[x->n_include++] = sdup(d->include[j], &names);
    }
    t->n_parts = bounds->mv_size / 8;
    t->bounds = calloc(t->n_parts ? t->n_parts : 1, sizeof *t->bounds);
    t->parts = calloc(t->n_parts ? t->n_parts : 1, sizeof *t->parts);
    if (!names || !t->bounds || !t->parts) {
        ddbi_tables_free(t);
        return ddbi_fail_oom(err, "loading a table definition");
    }
    char why[120];
    if (!ddbi_bounds_decode(bounds->mv_data, bounds->mv_size, t->bounds, why, sizeof why)) {
        int rc = ddbi_fail_stored(err, t->name, NULL, 0, "%s", why);
        ddbi_tables_free(t);
        return rc;
    }
    char name[600];
    db_name(name, sizeof name, t->name, NULL);
    int rc = ddbi_kv_dbi_open(db, dbi_txn, name, 0, &t->items);
    for (size_t i = 0; !rc && i < t->n_idx; i++) {
        db_name(name, sizeof name, t->name, t->idx[i].name);
        rc = ddbi_kv_dbi_open(db, dbi_txn, name, MDB_DUPSORT, &t->idx[i].dbi);
    }
    if (rc) {
        rc = rc == MDB_NOTFOUND ? ddbi_fail_stored(err, t->name, NULL, 0, "its database %s is missing", name)
                                : ddbi_mdb_fail(err, rc, "opening table databases");
        ddbi_tables_free(t);
        return rc;
    }
    *out = t;
    return DDB_OK;
}

/* Load table name (its stored definition v) into *out: the definition
 * read back and validated, its partition map, its databases opened in
 * dbi_txn, the hooks' settings (stream, TTL).  DDB_ECORRUPT when any of
 * these is damaged. */
static int load_one(ddbi_engine *db, MDB_txn *txn, MDB_txn *dbi_txn, const char *name, const MDB_val *v, ddb_arena *a,
                    ddb_table_rt **out, ddb_error *err)
{
    ddb_table_def def;
    int rc = ddbi_catalog_decode(v->mv_data, v->mv_size, name, a, &def, err);
    if (rc)
        return rc;
    char pkey[320];
    snprintf(pkey, sizeof pkey, "p/%s", name);
    MDB_val bk = {strlen(pkey), pkey}, bv;
    if (mdb_get(txn, db->meta, &bk, &bv) != 0)
        return ddbi_fail_stored(err, name, NULL, 0, "the partition map is missing");
    /* before mdb_dbi_open: pooled read transactions that may have
     * opened handles must commit, not reset (see ddbi_rtxn_release) */
    atomic_fetch_add_explicit(&db->dbi_opens, 1, memory_order_acq_rel);
    if ((rc = table_from_def(db, dbi_txn, &def, &bv, out, err)))
        return rc;
    ddb_item *stored; /* the settings kept beside keys and indexes (table_settings.c) */
    if (ddbi_decode_item(v->mv_data, v->mv_size, a, &stored) == DDB_OK)
        ddbi_table_settings_load(*out, stored);
    (*out)->ttl_reads_hide = ddbi_ttl_reads_hide(db); /* ddb_options.ttl_reads (expiry.c) */
    if (db->hooks && db->hooks->table_load && (rc = db->hooks->table_load(db, txn, *out, err))) { /* stream, TTL */
        ddbi_tables_free(*out);
        *out = NULL;
    }
    return rc;
}

/* The entry of a table whose definition does not load (err: why): only
 * its name and its damage, no databases. */
static int damaged_table(const char *name, ddb_error *err, ddb_table_rt **out)
{
    ddb_table_rt *t = calloc(1, sizeof *t);
    if (t) {
        pthread_mutex_init(&t->lock, NULL);
        t->name = strdup(name);
        t->damage = strdup(err->message);
    }
    if (!t || !t->name || !t->damage) {
        ddbi_tables_free(t);
        return ddbi_fail_oom(err, "loading a damaged table");
    }
    *out = t;
    return DDB_OK;
}

/* Reload every table definition as of txn (caller holds schema_mu).
 *
 * The reload opens the database handles of tables it has not seen (created
 * by another process).  A handle is usable only in transactions that begin
 * after the transaction opening it has committed, so when txn is a read
 * transaction the handles are opened in a transaction of their own,
 * committed before the new list is published (readers whose transaction is
 * older renew it: see table_get).  A write transaction keeps opening them
 * itself: it could not use handles committed after it began. */
static int load_locked(ddbi_engine *db, MDB_txn *txn, uint64_t gen, bool rdonly, ddb_error *err)
{
    MDB_txn *dbi_txn = txn;
    int rc = rdonly ? mdb_txn_begin(db->env, NULL, MDB_RDONLY, &dbi_txn) : 0;
    if (rc)
        return ddbi_mdb_fail(err, rc, "reading tables");
    MDB_cursor *c;
    rc = mdb_cursor_open(txn, db->meta, &c);
    if (rc) {
        if (dbi_txn != txn)
            mdb_txn_abort(dbi_txn);
        return ddbi_mdb_fail(err, rc, "reading tables");
    }
    ddb_table_rt *list = NULL;
    ddb_arena *a = ddb_arena_new();
    MDB_val k = {2, "t/"}, v;
    int g = a ? mdb_cursor_get(c, &k, &v, MDB_SET_RANGE) : ENOMEM; /* the cursor's LMDB code */
    while (!rc && g == 0 && k.mv_size > 2 && memcmp(k.mv_data, "t/", 2) == 0) {
        char name[300];
        if (!ddbi_stored_table_key_ok(&k)) { /* names no table: ddb_check_catalog reports it */
            g = mdb_cursor_get(c, &k, &v, MDB_NEXT);
            continue;
        }
        snprintf(name, sizeof name, "%.*s", (int)k.mv_size - 2, (char *)k.mv_data + 2);
        ddb_table_rt *t = NULL;
        ddb_error why = {0}; /* err may be NULL: the damage is kept in the entry */
        rc = load_one(db, txn, dbi_txn, name, &v, a, &t, &why);
        ddb_arena_reset(a);
        if (rc == DDB_ECORRUPT) /* that table's problem only: it answers its damage */
            rc = damaged_table(name, &why, &t);
        if (rc) {
            if (err)
                *err = why;
            break;
        }
        /* keep the counters of partitions that still start where they did
         * (after a split the lower half keeps its parent's history) */
        for (ddb_table_rt *o = atomic_load_explicit(&db->tables, memory_order_relaxed); o; o = o->next) {
            if (strcmp(o->name, t->name) != 0 || o->damage || t->damage)
                continue;
            for (size_t i = 0; i < t->n_parts; i++) {
                size_t j = ddbi_part_of(o, t->bounds[i]);
                if (o->bounds[j] != t->bounds[i])
                    continue;
                ddb_part_rt *np = &t->parts[i], *op = &o->parts[j];
                atomic_store_explicit(&np->rcu, atomic_load_explicit(&op->rcu, memory_order_relaxed),
                                      memory_order_relaxed);
                atomic_store_explicit(&np->wcu, atomic_load_explicit(&op->wcu, memory_order_relaxed),
                                      memory_order_relaxed);
                pthread_mutex_lock(&o->lock);
                np->throttled = op->throttled;
                np->read_tokens = op->read_tokens;
                np->write_tokens = op->write_tokens;
                np->last_refill = op->last_refill;
                pthread_mutex_unlock(&o->lock);
                ddbi_timeline_copy(np, op);
            }
        }
        t->next = list;
        list = t;
        g = mdb_cursor_get(c, &k, &v, MDB_NEXT);
    }
    mdb_cursor_close(c);
    ddb_arena_free(a);
    if (!rc && g == ENOMEM)
        rc = ddbi_fail_oom(err, "reading tables");
    else if (!rc && g && g != MDB_NOTFOUND)
        rc = ddbi_mdb_fail(err, g, "reading tables");
    if (dbi_txn != txn) {
        if (rc)
            mdb_txn_abort(dbi_txn);
        else if ((rc = mdb_txn_commit(dbi_txn))) /* the handles are everyone's from here */
            rc = ddbi_mdb_fail(err, rc, "opening table databases");
    }
    if (rc) {
        ddbi_tables_free(list);
        return rc;
    }
    /* retire the old list untouched (readers may be walking it) */
    ddb_table_rt *old = atomic_load_explicit(&db->tables, memory_order_relaxed);
    if (old) {
        old->retired_next = db->retired;
        db->retired = old;
    }
    /* tables before schema_gen: whoever sees the new generation sees its list */
    atomic_store_explicit(&db->tables, list, memory_order_release);
    atomic_store_explicit(&db->schema_gen, gen, memory_order_release);
    return DDB_OK;
}

int ddbi_tables_load(ddbi_engine *db, MDB_txn *txn, ddb_error *err)
{
    pthread_mutex_lock(&db->schema_mu);
    int rc = load_locked(db, txn, get_gen(db, txn), false, err);
    pthread_mutex_unlock(&db->schema_mu);
    return rc;
}

/* The cache is current for txn once its generation is not newer than the
 * cache's: then take it without a lock.  Only a newer generation (a table
 * created, deleted or split since the last reload) takes schema_mu. */
static int table_find(ddbi_engine *db, MDB_txn *txn, const char *name, bool rdonly, ddb_table_rt **out,
                      ddb_error *err)
{
    if (!name)
        return ddbi_fail(err, DDB_EINVAL, "table name is NULL");
    int rc = ddbi_table_name_check(name, err);
    if (rc)
        return rc;
    /* A read snapshot not newer than one already checked has an equal or
     * older generation (generations only grow with txnids).  A write txn's
     * id is the next commit's, never at or below a checked snapshot. */
    uint64_t id = mdb_txn_id(txn);
    if (!rdonly || id > atomic_load_explicit(&db->schema_txnid, memory_order_acquire)) {
        uint64_t gen = get_gen(db, txn);
        if (gen > atomic_load_explicit(&db->schema_gen, memory_order_acquire)) {
            pthread_mutex_lock(&db->schema_mu);
            if (gen > atomic_load_explicit(&db->schema_gen, memory_order_relaxed))
                rc = load_locked(db, txn, gen, rdonly, err);
            pthread_mutex_unlock(&db->schema_mu);
        } else if (rdonly) {
            /* only committed snapshots may vouch: a write txn could abort */
            uint64_t seen = atomic_load_explicit(&db->schema_txnid, memory_order_relaxed);
            while (seen < id && !atomic_compare_exchange_weak_explicit(&db->schema_txnid, &seen, id,
                                                                        memory_order_release, memory_order_relaxed))
                ;
        }
        if (rc)
            return rc;
    }
    ddb_table_rt *t = atomic_load_explicit(&db->tables, memory_order_acquire);
    while (t && strcmp(t->name, name) != 0)
        t = t->next;
    if (!t)
        return ddbi_fail(err, DDB_ENOTABLE, "Requested resource not found: table \"%s\" does not exist", name);
    *out = t;
    return DDB_OK;
}

/* The same, and DDB_ECORRUPT for a table whose definition is damaged (a
 * table only DeleteTable takes: table_find). */
static int table_get(ddbi_engine *db, MDB_txn *txn, const char *name, bool rdonly, ddb_table_rt **out, ddb_error *err)
{
    int rc = table_find(db, txn, name, rdonly, out, err);
    if (rc || !(*out)->damage)
        return rc;
    return ddbi_fail(err, DDB_ECORRUPT,
                     "%s; the other tables work: restore this table, or drop it with DeleteTable (`ddb delete-table "
                     "%s`)",
                     (*out)->damage, name);
}

/* Can txn use t's database handles?  Not if it began before the
 * transaction that opened them committed. */
static bool handles_usable(MDB_txn *txn, const ddb_table_rt *t)
{
    unsigned flags;
    if (mdb_dbi_flags(txn, t->items, &flags))
        return false;
    for (size_t i = 0; i < t->n_idx; i++)
        if (mdb_dbi_flags(txn, t->idx[i].dbi, &flags))
            return false;
    return true;
}

int ddbi_table_get(ddbi_engine *db, MDB_txn *txn, const char *name, ddb_table_rt **out, ddb_error *err)
{
    return table_get(db, txn, name, false, out, err);
}

int ddbi_table_get_rd(ddbi_engine *db, MDB_txn *txn, const char *name, ddb_table_rt **out, ddb_error *err)
{
    for (int tries = 0;; tries++) {
        int rc = table_get(db, txn, name, true, out, err);
        if (rc || handles_usable(txn, *out) || tries == 3)
            return rc;
        /* another thread's reload opened handles after txn began: nothing
         * was read yet, so move txn to a fresh snapshot that knows them */
        mdb_txn_reset(txn);
        if ((rc = mdb_txn_renew(txn)))
            return ddbi_mdb_fail(err, rc, "read transaction");
    }
}

int ddbi_read_table(ddbi_engine *db, const char *name, MDB_txn **txn, ddb_table_rt **t, ddb_error *err)
{
    int rc = ddbi_read_begin(db, txn, err);
    if (rc)
        return rc;
    if ((rc = ddbi_table_get(db, *txn, name, t, err))) {
        ddbi_read_end(*txn);
        *txn = NULL;
    }
    return rc;
}

const ddb_index_rt *ddbi_table_index(const ddb_table_rt *t, const char *name)
{
    for (size_t i = 0; i < t->n_idx; i++)
        if (strcmp(t->idx[i].name, name) == 0)
            return &t->idx[i];
    return NULL;
}

/* ---- CreateTable ---- */

/* Initial partition count as DynamoDB sizes it from throughput. */
static size_t initial_partitions(const ddb_table_def *d)
{
    if (!d->rcu && !d->wcu)
        return 4; /* on demand: a new table serves 4,000 WCU / 12,000 RCU */
    double p = (double)d->rcu / 3000.0 + (double)d->wcu / 1000.0;
    size_t n = (size_t)p;
    if ((double)n < p)
        n++;
    return n ? (n > 4096 ? 4096 : n) : 1;
}

/* Store a table definition under "t/<name>" (a round trip: see
 * ddbi_catalog_put). */
static int put_def(ddbi_engine *db, MDB_txn *txn, const ddb_table_def *d, ddb_error *err)
{
    ddb_arena *a = ddb_arena_new();
    ddb_value *m;
    if (!a)
        return ddbi_fail_oom(err, __func__);
    int rc = ddbi_catalog_encode(a, d, &m, err);
    if (!rc)
        rc = ddbi_table_settings_stamp(db, a, m, d) ? ddbi_fail_oom(err, __func__) : DDB_OK; /* table_settings.c: creation time, TableId, ... */
    if (!rc)
        rc = ddbi_catalog_put(db, txn, d->name, m, err);
    ddb_arena_free(a);
    return rc;
}

typedef struct create_ctx {
    const ddb_table_def *def;
    ddb_error *err;
    bool locked; /* create_fn took schema_mu; the caller releases it */
} create_ctx;

static int create_fn(ddbi_engine *db, MDB_txn *txn, void *vctx)
{
    create_ctx *cx = vctx;
    const ddb_table_def *d = cx->def;
    /* mdb_dbi_open must not run in two transactions at once: hold
     * schema_mu from here until this transaction has ended.  Taken inside
     * the write transaction, the order is the one every writer uses (LMDB
     * write lock, then schema_mu in ddbi_table_get); taking it before the
     * transaction deadlocked against concurrent puts. */
    pthread_mutex_lock(&db->schema_mu);
    cx->locked = true;
    char key[600];
    int klen = meta_key(key, sizeof key, 't', d->name);
    MDB_val k = {(size_t)klen, key}, v;
    if (mdb_get(txn, db->meta, &k, &v) == 0)
        return ddbi_fail(cx->err, DDB_EEXISTS, "Table already exists: %s", d->name);
    int rc = put_def(db, txn, d, cx->err);
    if (rc)
        return rc;

    /* partition map: n equal ranges of the hash space */
    size_t n = initial_partitions(d);
    uint8_t *bounds = calloc(n, 8);
    if (!bounds)
        return ddbi_fail_oom(cx->err, __func__);
    for (size_t i = 0; i < n; i++) {
        uint64_t lo = (uint64_t)(((unsigned __int128)i << 64) / n);
        for (int j = 7; j >= 0; j--, lo >>= 8)
            bounds[8 * i + (size_t)j] = (uint8_t)lo;
    }
    klen = meta_key(key, sizeof key, 'p', d->name);
    k = (MDB_val){(size_t)klen, key};
    v = (MDB_val){n * 8, bounds};
    rc = ddbi_kv_put(db, txn, db->meta, &k, &v, 0);
    free(bounds);

    char name[600];
    MDB_dbi dbi;
    db_name(name, sizeof name, d->name, NULL);
    if (!rc)
        rc = ddbi_kv_dbi_open(db, txn, name, MDB_CREATE, &dbi);
    if (!rc)
        rc = ddbi_kv_drop(db, txn, dbi, 0); /* a table of that name may have existed */
    for (size_t i = 0; !rc && i < d->n_indexes; i++) {
        db_name(name, sizeof name, d->name, d->indexes[i].name);
        rc = ddbi_kv_dbi_open(db, txn, name, MDB_CREATE | MDB_DUPSORT, &dbi);
        if (!rc)
            rc = ddbi_kv_drop(db, txn, dbi, 0);
    }
    if (!rc)
        rc = db->hooks && db->hooks->table_create ? db->hooks->table_create(db, txn, d) : 0;
    if (!rc)
        rc = ddbi_schema_bump_gen(db, txn);
    return rc ? ddbi_mdb_fail(cx->err, rc, "CreateTable") : DDB_OK;
}

int ddbi_engine_create_table(void *impl, const ddb_table_def *def, ddb_error *err)
{
    ddbi_engine *db = impl;
    int rc = ddbi_table_def_request_check(def, err);
    if (!rc)
        rc = ddbi_table_def_validate(def, err);
    if (!rc)
        rc = db->hooks && db->hooks->table_validate ? db->hooks->table_validate(def, err) : DDB_OK;
    if (rc)
        return rc;
    create_ctx cx = {def, err, false};
    rc = ddbi_run_write(db, create_fn, &cx, true, err); /* exclusive: committed or aborted on return */
    if (cx.locked)
        pthread_mutex_unlock(&db->schema_mu);
    return rc;
}

/* ---- DeleteTable ---- */

/* Delete every key of dbi that starts with prefix. */
int ddbi_del_prefix(ddbi_engine *db, MDB_txn *txn, MDB_dbi dbi, const void *prefix, size_t len)
{
    MDB_cursor *c = NULL;
    int rc = mdb_cursor_open(txn, dbi, &c);
    while (!rc) {
        MDB_val k = {len, (void *)prefix}, v;
        int g = mdb_cursor_get(c, &k, &v, MDB_SET_RANGE);
        if (g == MDB_NOTFOUND || (!g && (k.mv_size < len || memcmp(k.mv_data, prefix, len) != 0)))
            break;
        rc = g ? g : ddbi_kv_cursor_del(db, c);
    }
    if (c)
        mdb_cursor_close(c);
    return rc;
}

typedef struct delete_ctx {
    const char *name;
    ddb_error *err;
    bool locked; /* delete_fn took schema_mu; the caller releases it */
} delete_ctx;

/* Empty the databases of table name, found by their names in LMDB's main
 * database ("i/<name>" and each "x/<name>/<index>"): a table whose
 * definition is damaged has no list of its indexes to go by.  Caller holds
 * schema_mu (mdb_dbi_open).  LMDB codes. */
static int drop_by_name(ddbi_engine *db, MDB_txn *txn, const char *name)
{
    char items[300], prefix[300];
    snprintf(items, sizeof items, "i/%s", name);
    int np = snprintf(prefix, sizeof prefix, "x/%s/", name);
    MDB_dbi main, dbi;
    int rc = ddbi_kv_dbi_open(db, txn, NULL, 0, &main);
    if (!rc && !(rc = ddbi_kv_dbi_open(db, txn, items, 0, &dbi)))
        rc = ddbi_kv_drop(db, txn, dbi, 0);
    rc = rc == MDB_NOTFOUND ? 0 : rc;
    char at[600];
    size_t at_len = (size_t)np;
    memcpy(at, prefix, at_len);
    while (!rc) {
        /* the next index database after at (the cursor is closed before
         * the drop writes to the main database) */
        MDB_cursor *c;
        MDB_val k = {at_len, at}, v;
        if ((rc = mdb_cursor_open(txn, main, &c)))
            break;
        int g = mdb_cursor_get(c, &k, &v, MDB_SET_RANGE);
        if (!g && k.mv_size == at_len && memcmp(k.mv_data, at, at_len) == 0 && at_len > (size_t)np)
            g = mdb_cursor_get(c, &k, &v, MDB_NEXT);
        bool mine = !g && k.mv_size > (size_t)np && k.mv_size < sizeof at &&
                    memcmp(k.mv_data, prefix, (size_t)np) == 0 && !memchr(k.mv_data, 0, k.mv_size);
        if (mine) {
            memcpy(at, k.mv_data, k.mv_size);
            at_len = k.mv_size;
            at[at_len] = '\0';
        }
        mdb_cursor_close(c);
        if (g && g != MDB_NOTFOUND)
            return g;
        if (!mine)
            break;
        if (!(rc = ddbi_kv_dbi_open(db, txn, at, MDB_DUPSORT, &dbi)))
            rc = ddbi_kv_drop(db, txn, dbi, 0);
        rc = rc == MDB_NOTFOUND || rc == MDB_INCOMPATIBLE ? 0 : rc;
    }
    return rc;
}

static int delete_fn(ddbi_engine *db, MDB_txn *txn, void *vctx)
{
    delete_ctx *cx = vctx;
    ddb_table_rt *t;
    int rc = table_find(db, txn, cx->name, false, &t, cx->err);
    if (rc || (rc = ddbi_table_delete_allowed(t, cx->err))) /* deletion protection (table_settings.c) */
        return rc;
    if (t->damage) {
        /* the way out for a damaged definition: its databases by name */
        pthread_mutex_lock(&db->schema_mu);
        cx->locked = true;
        rc = drop_by_name(db, txn, cx->name);
    } else {
        /* empty the databases but keep their handles: other threads may hold them */
        rc = ddbi_kv_drop(db, txn, t->items, 0);
        for (size_t i = 0; !rc && i < t->n_idx; i++)
            rc = ddbi_kv_drop(db, txn, t->idx[i].dbi, 0);
    }
    char key[600];
    const char kinds[] = {'t', 'p', 's', 'u'};
    for (size_t i = 0; !rc && i < sizeof kinds; i++) {
        int klen = meta_key(key, sizeof key, kinds[i], cx->name);
        MDB_val k = {(size_t)klen, key};
        if (kinds[i] == 's' || kinds[i] == 'u') {
            /* per-partition stats "s/<name>/<bound>", metadata "u/<name>/<key>" */
            key[klen] = '/';
            rc = ddbi_del_prefix(db, txn, db->meta, key, (size_t)klen + 1);
        } else {
            rc = ddbi_kv_del(db, txn, db->meta, &k, NULL);
            if (rc == MDB_NOTFOUND && t->damage)
                rc = 0; /* a damaged table may miss its partition map */
        }
    }
    if (!rc)
        rc = db->hooks && db->hooks->table_delete ? db->hooks->table_delete(db, txn, cx->name) : 0;
    if (!rc)
        rc = ddbi_schema_bump_gen(db, txn);
    return rc ? ddbi_mdb_fail(cx->err, rc, "DeleteTable") : DDB_OK;
}

int ddbi_engine_delete_table(void *impl, const char *name, ddb_error *err)
{
    ddbi_engine *db = impl;
    delete_ctx cx = {name, err, false};
    int rc = ddbi_run_write(db, delete_fn, &cx, true, err); /* exclusive: committed or aborted on return */
    if (cx.locked)
        pthread_mutex_unlock(&db->schema_mu);
    return rc;
}

/* ---- DescribeTable / ListTables ---- */

int ddbi_engine_describe_table(void *impl, const char *name, ddb_arena *a, ddb_table_desc **out, ddb_error *err)
{
    ddbi_engine *db = impl;
    MDB_txn *txn;
    ddb_table_rt *t;
    int rc = ddbi_read_table(db, name, &txn, &t, err);
    if (rc)
        return rc;
    ddb_table_desc *d = ddb_arena_alloc(a, sizeof *d);
    ddb_index_def *ix = ddb_arena_alloc(a, (t->n_idx ? t->n_idx : 1) * sizeof *ix);
    if (!d || !ix) {
        ddbi_read_end(txn);
        return ddbi_fail_oom(err, __func__);
    }
    memset(d, 0, sizeof *d);
    d->def.name = ddb_arena_strdup(a, t->name);
    d->def.key = (ddb_key_schema){.pk = ddb_arena_strdup(a, t->pk), .pk_type = t->pk_type,
                                  .sk = ddb_arena_strdup(a, t->sk), .sk_type = t->sk_type};
    d->def.rcu = t->rcu;
    d->def.wcu = t->wcu;
    d->def.stream = t->stream;
    d->def.ttl_attribute = t->ttl_attr[0] ? ddb_arena_strdup(a, t->ttl_attr) : NULL;
    for (size_t i = 0; i < t->n_idx; i++) {
        const ddb_index_rt *x = &t->idx[i];
        const char **inc = x->n_include ? ddb_arena_alloc(a, x->n_include * sizeof *inc) : NULL;
        for (size_t j = 0; inc && j < x->n_include; j++)
            inc[j] = ddb_arena_strdup(a, x->include[j]);
        ddb_key_part *more = ddb_arena_alloc(a, 2 * (DDB_MAX_KEY_ATTRS - 1) * sizeof *more);
        if (!more) {
            ddbi_read_end(txn);
            return ddbi_fail_oom(err, __func__);
        }
        ddb_key_schema key;
        ddbi_index_key_schema(x, &key, more);
        key.pk = ddb_arena_strdup(a, key.pk);
        key.sk = ddb_arena_strdup(a, key.sk);
        for (size_t j = 0; j < x->n_pk_more + x->n_sk_more; j++)
            more[j].name = ddb_arena_strdup(a, more[j].name);
        ix[i] = (ddb_index_def){ddb_arena_strdup(a, x->name), x->local, key, x->proj, inc, x->n_include, x->rcu,
                                x->wcu};
    }
    d->def.indexes = ix;
    d->def.n_indexes = t->n_idx;
    ddbi_table_settings_describe(t, d); /* table_settings.c */
    d->partitions = (uint32_t)t->n_parts;
    for (size_t p = 0; p < t->n_parts; p++) {
        uint64_t c = 0, b = 0;
        ddbi_part_read(txn, db, t, p, &c, &b);
        d->item_count += c;
        d->size_bytes += b;
    }
    ddbi_read_end(txn);
    *out = d;
    return DDB_OK;
}

int ddbi_engine_list_tables(void *impl, ddb_arena *a, const char ***names, size_t *count, ddb_error *err)
{
    ddbi_engine *db = impl;
    MDB_txn *txn;
    int rc = ddbi_read_begin(db, &txn, err);
    if (rc)
        return rc;
    MDB_cursor *c;
    if ((rc = mdb_cursor_open(txn, db->meta, &c))) {
        ddbi_read_end(txn);
        return ddbi_mdb_fail(err, rc, "ListTables");
    }
    size_t n = 0, cap = 16;
    const char **v = ddb_arena_alloc(a, cap * sizeof *v);
    MDB_val k = {2, "t/"}, d;
    int g = mdb_cursor_get(c, &k, &d, MDB_SET_RANGE);
    while (v && g == 0 && k.mv_size > 2 && memcmp(k.mv_data, "t/", 2) == 0) {
        if (!ddbi_stored_table_key_ok(&k)) { /* names no table (ddb_check_catalog) */
            g = mdb_cursor_get(c, &k, &d, MDB_NEXT);
            continue;
        }
        if (n == cap) {
            const char **nv = ddb_arena_alloc(a, 2 * cap * sizeof *nv);
            if (!nv) {
                v = NULL;
                break;
            }
            memcpy(nv, v, n * sizeof *nv);
            v = nv;
            cap *= 2;
        }
        char *s = ddb_arena_alloc(a, k.mv_size - 1);
        if (!s) {
            v = NULL;
            break;
        }
        memcpy(s, (char *)k.mv_data + 2, k.mv_size - 2);
        s[k.mv_size - 2] = '\0';
        v[n++] = s;
        g = mdb_cursor_get(c, &k, &d, MDB_NEXT);
    }
    mdb_cursor_close(c);
    ddbi_read_end(txn);
    if (!v)
        return ddbi_fail_oom(err, __func__);
    *names = v;
    *count = n;
    return DDB_OK;
}

/* ---- UpdateTable: a new global secondary index, backfilled ---- */

typedef struct addix_ctx {
    const char *table;
    const ddb_index_def *x;
    uint64_t *backfilled, *skipped;
    ddb_error *err;
    bool locked;
} addix_ctx;

/* The definition of a cached table, borrowing its strings (more: room
 * for the further key attributes of every index). */
static void def_of(const ddb_table_rt *t, ddb_table_def *d, ddb_index_def *ix,
                   ddb_key_part (*more)[2 * (DDB_MAX_KEY_ATTRS - 1)])
{
    for (size_t i = 0; i < t->n_idx; i++) {
        const ddb_index_rt *x = &t->idx[i];
        ddb_key_schema key;
        ddbi_index_key_schema(x, &key, more[i]);
        ix[i] = (ddb_index_def){x->name, x->local, key, x->proj, (const char *const *)x->include, x->n_include,
                                x->rcu, x->wcu};
    }
    memset(d, 0, sizeof *d);
    d->name = t->name;
    d->key = (ddb_key_schema){.pk = t->pk, .pk_type = t->pk_type, .sk = t->sk, .sk_type = t->sk_type};
    d->indexes = ix;
    d->n_indexes = t->n_idx;
    d->rcu = t->rcu;
    d->wcu = t->wcu;
}

/* Rewrite the stored definition "t/<table>" in txn: fn edits the decoded
 * definition (in arena a), everything else in it is kept.  The caller
 * bumps the schema generation. */
int ddbi_table_def_edit(ddbi_engine *db, MDB_txn *txn, const char *table,
                        int (*fn)(ddb_arena *a, ddb_item *def, void *ctx), void *ctx, ddb_error *err)
{
    ddb_arena *da = ddb_arena_new();
    ddb_item *def;
    if (!da)
        return ddbi_fail_oom(err, __func__);
    int rc = ddbi_catalog_get(db, txn, table, da, &def, err);
    if (rc) {
        ddb_arena_free(da);
        return rc;
    }
    int frc = fn(da, def, ctx);
    rc = frc == DDB_ENOMEM ? ddbi_fail_oom(err, __func__)
         : frc ? ddbi_fail_stored(err, table, NULL, 0, "the stored table definition cannot be edited (malformed)")
               : ddbi_catalog_put(db, txn, table, ddb_item_map(def), err); /* a round trip, as every write */
    ddb_arena_free(da);
    return rc;
}

typedef struct index_edit {
    const ddb_index_def *x;
    const char *drop;
} index_edit;

static int edit_indexes(ddb_arena *da, ddb_item *def, void *vctx)
{
    const index_edit *e = vctx;
    const ddb_index_def *x = e->x;
    ddb_value *list = (ddb_value *)ddb_item_get(def, "indexes"), *xm = x ? ddbi_catalog_index_map(da, x) : NULL;
    if (!list && (list = ddb_v_list(da)) && ddb_item_set(def, "indexes", list))
        list = NULL;
    if (list && list->type != DDB_TL)
        return DDB_ECORRUPT;
    bool ok = list && (!x || (xm && !ddb_list_append(da, list, xm)));
    if (ok && !x) {
        uint32_t kept = 0;
        for (uint32_t i = 0; i < list->len; i++) {
            const ddb_value *n = ddb_map_get(list->u.l[i], "name");
            if (!(n && n->type == DDB_TS && !strcmp(n->u.s, e->drop)))
                list->u.l[kept++] = list->u.l[i];
        }
        list->len = kept;
    }
    return ok ? DDB_OK : DDB_ENOMEM;
}

/* Change the list of index definitions in table t's stored definition,
 * keeping everything else in it: x appended, or (x NULL) the index named
 * drop removed. */
static int edit_stored_indexes(ddbi_engine *db, MDB_txn *txn, const ddb_table_rt *t, const ddb_index_def *x,
                               const char *drop, ddb_error *err)
{
    index_edit e = {x, drop};
    return ddbi_table_def_edit(db, txn, t->name, edit_indexes, &e, err);
}

static int addix_fn(ddbi_engine *db, MDB_txn *txn, void *vctx)
{
    addix_ctx *cx = vctx;
    ddb_table_rt *t;
    int rc = ddbi_table_get(db, txn, cx->table, &t, cx->err);
    if (rc)
        return rc;
    if (cx->x->local)
        return ddbi_fail(cx->err, DDB_EVALIDATION,
                        "table %s: local secondary index %s can only be created with the table", t->name, cx->x->name);
    if (ddbi_table_index(t, cx->x->name))
        return ddbi_fail(cx->err, DDB_EVALIDATION,
                        "Attempting to create an index which already exists (table %s, index %s)", t->name,
                        cx->x->name); /* UpdateTable's answer, as observed on DynamoDB */
    ddb_index_def ix[DDB_MAX_INDEXES + 1];
    ddb_key_part more[DDB_MAX_INDEXES][2 * (DDB_MAX_KEY_ATTRS - 1)];
    ddb_table_def d;
    def_of(t, &d, ix, more);
    ix[d.n_indexes++] = *cx->x;
    if ((rc = ddbi_index_request_check("globalSecondaryIndexUpdates.1.member.create.", cx->x, cx->err)) ||
        (rc = ddbi_table_def_validate(&d, cx->err)))
        return rc;
    pthread_mutex_lock(&db->schema_mu); /* mdb_dbi_open, as in create_fn */
    cx->locked = true;
    if ((rc = edit_stored_indexes(db, txn, t, cx->x, NULL, cx->err)))
        return rc;
    char name[600];
    MDB_dbi dbi;
    MDB_cursor *c = NULL;
    db_name(name, sizeof name, t->name, cx->x->name);
    if ((rc = ddbi_kv_dbi_open(db, txn, name, MDB_CREATE | MDB_DUPSORT, &dbi)) || (rc = ddbi_kv_drop(db, txn, dbi, 0)) ||
        (rc = mdb_cursor_open(txn, t->items, &c)))
        return ddbi_mdb_fail(cx->err, rc, "UpdateTable");
    /* backfill: every item that has the index key attributes */
    ddb_index_rt xr = {.name = (char *)cx->x->name, .pk = (char *)cx->x->key.pk, .sk = (char *)cx->x->key.sk,
                       .pk_type = cx->x->key.pk_type, .sk_type = cx->x->key.sk_type,
                       .n_pk_more = cx->x->key.n_pk_more, .n_sk_more = cx->x->key.n_sk_more};
    for (size_t j = 0; j < xr.n_pk_more; j++) { /* (the validator bounded the counts) */
        xr.pk_more[j] = (char *)cx->x->key.pk_more[j].name;
        xr.pk_more_type[j] = cx->x->key.pk_more[j].type;
    }
    for (size_t j = 0; j < xr.n_sk_more; j++) {
        xr.sk_more[j] = (char *)cx->x->key.sk_more[j].name;
        xr.sk_more_type[j] = cx->x->key.sk_more[j].type;
    }
    ddb_arena *a = ddb_arena_new();
    MDB_val k, v;
    int g = a ? mdb_cursor_get(c, &k, &v, MDB_FIRST) : ENOMEM;
    while (g == 0) {
        ddb_item *it;
        if ((rc = ddbi_stored_key_check(t->name, "an item key", &k, cx->err)) ||
            (ddbi_decode_item(v.mv_data, v.mv_size, a, &it) &&
             (rc = ddbi_fail_stored(cx->err, t->name, k.mv_data, k.mv_size, "UpdateTable: the stored item is unreadable")))) {
            g = DDB_ECORRUPT;
            break;
        }
        ddb_key ik;
        int in = ddbi_keys_index_key(&xr, it, &ik, NULL);
        if (in > 0) {
            MDB_val ikv = {ik.len, ik.b}, data = k;
            if ((g = ddbi_kv_put(db, txn, dbi, &ikv, &data, MDB_NODUPDATA)) && g != MDB_KEYEXIST)
                break;
            (*cx->backfilled)++;
        } else if (in < 0) {
            (*cx->skipped)++; /* a key attribute of another type: not indexed (an index key violation) */
        }
        ddb_arena_reset(a);
        g = mdb_cursor_get(c, &k, &v, MDB_NEXT);
    }
    mdb_cursor_close(c);
    ddb_arena_free(a);
    if (g == DDB_ECORRUPT)
        return rc;
    if (g != MDB_NOTFOUND)
        return ddbi_mdb_fail(cx->err, g, "UpdateTable: backfill");
    rc = ddbi_schema_bump_gen(db, txn);
    return rc ? ddbi_mdb_fail(cx->err, rc, "UpdateTable") : DDB_OK;
}

int ddbi_engine_add_index(void *impl, const char *table, const ddb_index_def *x, uint64_t *backfilled, uint64_t *skipped,
                          ddb_error *err)
{
    ddbi_engine *db = impl;
    uint64_t b = 0, sk = 0;
    addix_ctx cx = {table, x, &b, &sk, err, false};
    int rc = ddbi_run_write(db, addix_fn, &cx, true, err);
    if (cx.locked)
        pthread_mutex_unlock(&db->schema_mu);
    if (backfilled)
        *backfilled = rc ? 0 : b;
    if (skipped)
        *skipped = rc ? 0 : sk;
    return rc;
}

/* ---- UpdateTable: delete a GSI ---- */

typedef struct delix_ctx {
    const char *table, *index;
    ddb_error *err;
} delix_ctx;

static int delix_fn(ddbi_engine *db, MDB_txn *txn, void *vctx)
{
    delix_ctx *cx = vctx;
    ddb_table_rt *t;
    int rc = ddbi_table_get(db, txn, cx->table, &t, cx->err);
    if (rc)
        return rc;
    const ddb_index_rt *x = ddbi_table_index(t, cx->index);
    if (!x)
        return ddbi_fail(cx->err, DDB_ENOTABLE, "Requested resource not found: table %s has no index %s", t->name,
                         cx->index);
    if (x->local)
        return ddbi_fail(cx->err, DDB_EVALIDATION,
                         "table %s: local secondary index %s can only be deleted with the table", t->name, cx->index);
    if ((rc = edit_stored_indexes(db, txn, t, NULL, cx->index, cx->err)))
        return rc;
    /* empty its entries but keep the handle: other threads may hold it */
    rc = ddbi_kv_drop(db, txn, x->dbi, 0);
    if (!rc)
        rc = ddbi_schema_bump_gen(db, txn);
    return rc ? ddbi_mdb_fail(cx->err, rc, "UpdateTable") : DDB_OK;
}

int ddbi_engine_delete_index(void *impl, const char *table, const char *index, ddb_error *err)
{
    delix_ctx cx = {table, index, err};
    return ddbi_run_write(impl, delix_fn, &cx, true, err);
}

/* ---- per-table metadata ("u/<table>/<key>") ---- */

typedef struct meta_ctx {
    const char *table, *key;
    const void *val;
    size_t len;
    ddb_error *err;
} meta_ctx;

static int meta_name(char *buf, size_t cap, const char *table, const char *key)
{
    int n = snprintf(buf, cap, "u/%s/%s", table, key);
    return n < 0 || (size_t)n >= cap ? -1 : n;
}

static int meta_put_fn(ddbi_engine *db, MDB_txn *txn, void *vctx)
{
    meta_ctx *cx = vctx;
    ddb_table_rt *t;
    int rc = ddbi_table_get(db, txn, cx->table, &t, cx->err);
    if (rc)
        return rc;
    char name[1200];
    int n = meta_name(name, sizeof name, cx->table, cx->key);
    if (n < 0)
        return ddbi_fail(cx->err, DDB_EINVAL, "metadata key too long");
    MDB_val k = {(size_t)n, name}, v = {cx->len, (void *)cx->val};
    rc = ddbi_kv_put(db, txn, db->meta, &k, &v, 0);
    return rc ? ddbi_mdb_fail(cx->err, rc, "table metadata") : DDB_OK;
}

int ddbi_engine_table_meta_put(void *impl, const char *table, const char *key, const void *val, size_t len, ddb_error *err)
{
    ddbi_engine *db = impl;
    meta_ctx cx = {table, key, val, len, err};
    return ddbi_run_write(db, meta_put_fn, &cx, false, err);
}

int ddbi_engine_table_meta_get(void *impl, const char *table, const char *key, ddb_arena *a, void **val, size_t *len,
                               ddb_error *err)
{
    ddbi_engine *db = impl;
    MDB_txn *txn;
    int rc = ddbi_read_begin(db, &txn, err);
    if (rc)
        return rc;
    ddb_table_rt *t;
    char name[1200];
    int n = meta_name(name, sizeof name, table, key);
    if ((rc = ddbi_table_get(db, txn, table, &t, err)) == DDB_OK) {
        MDB_val k = {(size_t)(n < 0 ? 0 : n), name}, v;
        int g = n < 0 ? MDB_NOTFOUND : mdb_get(txn, db->meta, &k, &v);
        if (g == MDB_NOTFOUND)
            rc = ddbi_fail(err, DDB_ENOTFOUND, "table %s has no metadata %s", table, key);
        else if (g)
            rc = ddbi_mdb_fail(err, g, "table metadata");
        else if (!(*val = ddb_arena_alloc(a, v.mv_size + 1)))
            rc = ddbi_fail_oom(err, __func__);
        else {
            memcpy(*val, v.mv_data, v.mv_size);
            ((char *)*val)[v.mv_size] = '\0';
            *len = v.mv_size;
        }
    }
    ddbi_read_end(txn);
    return rc;
}
