/* streams/: ddb_table_report_build: one read snapshot of a table -> its partitions
 * (range, items, bytes, consumed capacity from the ledger, write heat from
 * the stream), its largest item collections, its most written partition
 * keys, its index sizes.  What `ddb stats` prints and draws.
 * May call engine/, expr/ and core/. */
#include "core/codec.h"
#include "core/error.h"
#include "engine/keys.h"
#include "engine/stored.h"
#include "streams/streams.h"
#include "core/value.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_TOP 10

/* Keep the top best entries of a list sorted by score, largest first. */
typedef struct toplist {
    ddb_key_report *v;
    size_t n, cap;
} toplist;

static double score_bytes(const ddb_key_report *k)
{
    return (double)k->bytes;
}

static double score_writes(const ddb_key_report *k)
{
    return (double)k->writes + k->write_units * 1e-9; /* ties: more units first */
}

/* Insert k (its pk copied into a) if it ranks; ENOMEM on failure. */
static int top_add(toplist *l, const ddb_key_report *k, double (*score)(const ddb_key_report *), ddb_arena *a)
{
    double s = score(k);
    if (l->n == l->cap && (l->cap == 0 || s <= score(&l->v[l->n - 1])))
        return 0;
    size_t i = l->n < l->cap ? l->n++ : l->n - 1;
    while (i > 0 && score(&l->v[i - 1]) < s) {
        l->v[i] = l->v[i - 1];
        i--;
    }
    l->v[i] = *k;
    if (!(l->v[i].pk = ddb_value_copy(a, k->pk)))
        return ENOMEM;
    return 0;
}

/* ---- write heat per partition key, from the stream ---- */

typedef struct heat {
    uint8_t digest[DDB_DIGEST_LEN];
    bool used;
    ddb_key_report k;
} heat;

typedef struct heatmap {
    heat *slots;
    size_t cap, n;
} heatmap;

static heat *heat_find(heatmap *m, const uint8_t *d)
{
    if (m->n * 2 >= m->cap) {
        size_t nc = m->cap ? m->cap * 2 : 256;
        heat *ns = calloc(nc, sizeof *ns);
        if (!ns)
            return NULL;
        for (size_t i = 0; i < m->cap; i++) {
            if (!m->slots[i].used)
                continue;
            size_t j;
            memcpy(&j, m->slots[i].digest, sizeof j);
            for (j %= nc; ns[j].used; j = (j + 1) % nc)
                ;
            ns[j] = m->slots[i];
        }
        free(m->slots);
        m->slots = ns;
        m->cap = nc;
    }
    size_t j;
    memcpy(&j, d, sizeof j);
    for (j %= m->cap; m->slots[j].used; j = (j + 1) % m->cap)
        if (memcmp(m->slots[j].digest, d, DDB_DIGEST_LEN) == 0)
            return &m->slots[j];
    m->slots[j].used = true;
    memcpy(m->slots[j].digest, d, DDB_DIGEST_LEN);
    m->n++;
    return &m->slots[j];
}

static bool varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    *v = 0;
    for (int shift = 0; shift < 64 && *p < end; shift += 7) {
        uint8_t b = *(*p)++;
        *v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return true;
    }
    return false;
}

/* One stream record: its keys (decoded into a) and the write units its
 * change cost (the larger image; 1 when the view records no image). */
static int record_heat(const uint8_t *p, size_t n, ddb_arena *a, ddb_item **keys, double *units)
{
    if (n < 16)
        return DDB_ECORRUPT;
    const uint8_t *q = p + 16, *end = p + n;
    uint64_t len;
    if (!varint(&q, end, &len) || len > (uint64_t)(end - q) || ddbi_decode_item(q, (size_t)len, a, keys))
        return DDB_ECORRUPT;
    q += len;
    size_t big = 0;
    for (int part = 0; part < 2; part++) {
        if (!(p[3] & (part ? DDB_STREAM_FLAG_NEW : DDB_STREAM_FLAG_OLD)))
            continue;
        size_t sz = 0;
        if (!varint(&q, end, &len) || len > (uint64_t)(end - q) || ddbi_record_size(q, (size_t)len, &sz))
            return DDB_ECORRUPT;
        q += len;
        big = sz > big ? sz : big;
    }
    *units = big ? ddbi_write_units(big) : 1.0;
    return DDB_OK;
}

static int stream_pass(ddbi_engine *db, MDB_txn *txn, const ddb_table_rt *t, ddb_table_report *r, toplist *hot,
                       ddb_arena *a, ddb_arena *tmp)
{
    uint8_t key[300];
    size_t plen = ddbi_stream_record_key(key, t->name, 0) - 8;
    MDB_cursor *c;
    int rc = mdb_cursor_open(txn, ddbi_streams_of(db)->dbi, &c);
    if (rc)
        return rc;
    heatmap m = {NULL, 0, 0};
    ddb_arena *pks = ddb_arena_new(); /* every key's pk; the ranking ones are copied into a */
    if (!pks) {
        mdb_cursor_close(c);
        return ENOMEM;
    }
    MDB_val k = {plen + 8, key}, v;
    int g = mdb_cursor_get(c, &k, &v, MDB_SET_RANGE);
    while (g == 0 && k.mv_size == plen + 8 && memcmp(k.mv_data, key, plen) == 0) {
        ddb_item *keys;
        double units;
        const ddb_value *pk;
        if (record_heat(v.mv_data, v.mv_size, tmp, &keys, &units) == DDB_OK && (pk = ddb_item_get(keys, t->pk))) {
            uint8_t d[DDB_DIGEST_LEN];
            ddbi_key_digest(pk, d);
            heat *h = heat_find(&m, d);
            if (!h) {
                rc = ENOMEM;
                break;
            }
            if (!h->k.pk) {
                if (!(h->k.pk = ddb_value_copy(pks, pk))) {
                    rc = ENOMEM;
                    break;
                }
                h->k.hash = ddbi_key_hash(d);
                h->k.partition = (uint32_t)ddbi_part_of(t, h->k.hash);
            }
            h->k.writes++;
            h->k.write_units += units;
            ddb_partition_report *pr = &r->parts[h->k.partition];
            pr->stream_writes++;
            pr->stream_write_units += units;
            r->stream_records++;
        }
        ddb_arena_reset(tmp);
        g = mdb_cursor_get(c, &k, &v, MDB_NEXT);
    }
    mdb_cursor_close(c);
    if (!rc && g && g != MDB_NOTFOUND)
        rc = g;
    for (size_t i = 0; !rc && i < m.cap; i++)
        if (m.slots[i].used && m.slots[i].k.pk)
            rc = top_add(hot, &m.slots[i].k, score_writes, a);
    free(m.slots);
    ddb_arena_free(pks);
    return rc;
}

/* ---- items: collections and index sizes ---- */

static int item_pass(ddbi_engine *db, MDB_txn *txn, const ddb_table_rt *t, ddb_table_report *r, toplist *big, ddb_arena *a,
                     ddb_arena *tmp)
{
    MDB_cursor *c;
    int rc = mdb_cursor_open(txn, t->items, &c);
    if (rc)
        return rc;
    MDB_val k, v;
    uint8_t cur[DDB_DIGEST_LEN];
    ddb_key_report coll;
    memset(&coll, 0, sizeof coll);
    ddb_arena *pk_arena = ddb_arena_new(); /* the current collection's pk */
    int g = pk_arena ? mdb_cursor_get(c, &k, &v, MDB_FIRST) : ENOMEM;
    while (g == 0) {
        if (k.mv_size < DDB_DIGEST_LEN) {
            g = mdb_cursor_get(c, &k, &v, MDB_NEXT);
            continue;
        }
        size_t size = 0;
        ddb_item *it;
        if (ddbi_stored_val_check(db, t->name, "the stored item", &k, &v, NULL) ||
            ddbi_record_size(v.mv_data, v.mv_size, &size) || ddbi_decode_item(v.mv_data, v.mv_size, tmp, &it)) {
            g = mdb_cursor_get(c, &k, &v, MDB_NEXT); /* ddb check reports it */
            continue;
        }
        if (!coll.pk || memcmp(cur, k.mv_data, DDB_DIGEST_LEN) != 0) {
            if (coll.pk && (rc = top_add(big, &coll, score_bytes, a)))
                break;
            ddb_arena_reset(pk_arena);
            memset(&coll, 0, sizeof coll);
            memcpy(cur, k.mv_data, DDB_DIGEST_LEN);
            const ddb_value *pk = ddb_item_get(it, t->pk);
            if (pk && !(coll.pk = ddb_value_copy(pk_arena, pk))) {
                rc = ENOMEM;
                break;
            }
            coll.hash = ddbi_key_hash(k.mv_data);
            coll.partition = (uint32_t)ddbi_part_of(t, coll.hash);
        }
        coll.items++;
        coll.bytes += size;
        r->items++;
        r->bytes += size;
        for (size_t i = 0; i < t->n_idx; i++) {
            const ddb_value *ipk, *isk;
            if (ddbi_keys_index(&t->idx[i], it, &ipk, &isk, NULL) > 0)
                r->indexes[i].bytes += ddbi_keys_projected_size(t, &t->idx[i], it);
        }
        ddb_arena_reset(tmp);
        g = mdb_cursor_get(c, &k, &v, MDB_NEXT);
    }
    if (!rc && coll.pk)
        rc = top_add(big, &coll, score_bytes, a);
    if (!rc && g && g != MDB_NOTFOUND)
        rc = g;
    mdb_cursor_close(c);
    ddb_arena_free(pk_arena);
    return rc;
}

int ddbi_streams_table_report_build(void *impl, const char *table, size_t top, ddb_arena *a, ddb_table_report **out,
                                    ddb_error *err)
{
    ddbi_engine *db = impl;
    if (!top)
        top = DEFAULT_TOP;
    if (top > 100000)
        return ddbi_fail(err, DDB_EINVAL, "ddb_table_report_build: top %zu is too large", top);
    MDB_txn *txn;
    int rc = ddbi_read_begin(db, &txn, err);
    if (rc)
        return rc;
    ddb_table_rt *t;
    if ((rc = ddbi_table_get(db, txn, table, &t, err))) {
        ddbi_read_end(txn);
        return rc;
    }
    ddb_table_report *r = ddb_arena_alloc(a, sizeof *r);
    ddb_partition_report *parts = ddb_arena_alloc(a, (t->n_parts ? t->n_parts : 1) * sizeof *parts);
    ddb_index_report *ix = ddb_arena_alloc(a, (t->n_idx ? t->n_idx : 1) * sizeof *ix);
    toplist big = {ddb_arena_alloc(a, top * sizeof(ddb_key_report)), 0, top};
    toplist hot = {ddb_arena_alloc(a, top * sizeof(ddb_key_report)), 0, top};
    ddb_arena *tmp = ddb_arena_new();
    if (r)
        memset(r, 0, sizeof *r);
    if (!r || !parts || !ix || !big.v || !hot.v || !tmp || !(r->table = ddb_arena_strdup(a, t->name))) {
        ddb_arena_free(tmp);
        ddbi_read_end(txn);
        return ddbi_fail_oom(err, __func__);
    }
    memset(parts, 0, (t->n_parts ? t->n_parts : 1) * sizeof *parts);
    memset(ix, 0, (t->n_idx ? t->n_idx : 1) * sizeof *ix);
    r->parts = parts;
    r->n_parts = t->n_parts;
    r->indexes = ix;
    r->n_indexes = t->n_idx;
    for (size_t i = 0; i < t->n_parts; i++) {
        ddb_partition_report *p = &parts[i];
        p->hash_lo = t->bounds[i];
        p->hash_hi = i + 1 < t->n_parts ? t->bounds[i + 1] - 1 : UINT64_MAX;
        ddbi_part_read(txn, db, t, i, &p->item_count, &p->size_bytes);
        double cr = atomic_load_explicit(&t->parts[i].rcu, memory_order_relaxed);
        double cw = atomic_load_explicit(&t->parts[i].wcu, memory_order_relaxed);
        ddbi_ledger_totals(db, txn, t->name, t->bounds[i], cr, cw, &p->read_units, &p->write_units);
        pthread_mutex_lock(&t->lock);
        p->throttled = t->parts[i].throttled;
        pthread_mutex_unlock(&t->lock);
    }
    for (size_t i = 0; i < t->n_idx; i++) {
        MDB_stat st;
        ix[i].name = ddb_arena_strdup(a, t->idx[i].name);
        ix[i].local = t->idx[i].local;
        if (mdb_stat(txn, t->idx[i].dbi, &st) == 0)
            ix[i].items = st.ms_entries;
    }
    int g = item_pass(db, txn, t, r, &big, a, tmp);
    if (!g)
        g = stream_pass(db, txn, t, r, &hot, a, tmp);
    ddb_arena_free(tmp);
    ddbi_read_end(txn);
    if (g == ENOMEM)
        return ddbi_fail_oom(err, __func__);
    if (g)
        return ddbi_mdb_fail(err, g, "table report");
    r->collections = big.v;
    r->n_collections = big.n;
    r->hot = hot.v;
    r->n_hot = hot.n;
    *out = r;
    return DDB_OK;
}
