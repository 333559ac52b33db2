/* engine/: GetItem, Query and Scan.
 * May call core/ and expr/; the room above (streams/) only through its hooks. */
#include "core/backend.h"
#include "core/codec.h"
#include "core/record.h"
#include "engine/engine.h"
#include "core/error.h"
#include "expr/expr.h"
#include "engine/keys.h"
#include "engine/query_parts.h"
#include "engine/stored.h"
#include "core/value.h"

#include <stdlib.h>
#include <string.h>

/* The attributes of a record a read looks at: the key attributes that
 * identify it (the partition key; the sort key when asked for) and the
 * table's TTL attribute (core/record.h finds them). */
typedef ddbi_rec_names rec_names;
enum { RN_PK, RN_SK, RN_TTL };

static void rec_names_set(rec_names *w, const char *pk, const char *sk, const ddb_table_rt *t)
{
    const char *n[3] = {pk, sk, ddbi_ttl_read_attr(t)};
    for (int i = 0; i < 3; i++) {
        w->name[i] = n[i];
        w->len[i] = n[i] ? (uint32_t)strlen(n[i]) : 0;
    }
}

/* Attribute at as a value: a view into the record for S and B (compared
 * by length only), decoded into arena a otherwise. */
static int attr_value(const ddbi_rec_attr *at, ddb_arena *a, ddb_value *tmp, const ddb_value **out)
{
    if (ddbi_rec_view(at, tmp)) {
        *out = tmp;
        return DDB_OK;
    }
    ddb_value *v;
    int rc = ddbi_rec_value(at, a, &v);
    *out = v;
    return rc;
}

/* Does attribute at (found: present) hold key value v?  S and B compare
 * their bytes in place; N values are compared as numbers. */
static int attr_is(const ddbi_rec_attr *at, bool found, const ddb_value *v, ddb_arena *a, bool *eq)
{
    *eq = false;
    if (!found || at->type != v->type)
        return DDB_OK;
    if (at->type == DDB_TS || at->type == DDB_TB) {
        *eq = at->len == v->len && ddbi_key_bytes_cmp(at->val, (const uint8_t *)v->u.s, v->len) == 0;
        return DDB_OK;
    }
    ddb_value tmp;
    const ddb_value *x;
    int rc = attr_value(at, a, &tmp, &x);
    if (!rc)
        *eq = ddb_value_equal(x, v);
    return rc;
}

/* Has the TTL attribute at (found: present) expired at now_ms?  Its
 * number is read in place. */
static bool attr_expired(const ddbi_rec_attr *at, bool found, int64_t now_ms)
{
    if (!found || at->type != DDB_TN)
        return false;
    ddb_value v = {.type = DDB_TN, .len = at->len};
    v.u.s = (const char *)at->val; /* ddb_value_to_double reads len bytes */
    return ddbi_ttl_value_expired(&v, now_ms);
}

/* Has record r of t expired (TTL) at now_ms?  *rc: DDB_ECORRUPT. */
static bool rec_expired(const ddb_table_rt *t, const uint8_t *r, size_t n, int64_t now_ms, int *rc)
{
    *rc = DDB_OK;
    if (!ddbi_ttl_read_attr(t))
        return false;
    rec_names w;
    rec_names_set(&w, NULL, NULL, t);
    ddbi_rec_attr at[3];
    bool found[3];
    *rc = ddbi_rec_find_names(r, n, &w, at, found);
    return !*rc && attr_expired(&at[RN_TTL], found[RN_TTL], now_ms);
}

/* Is record r (len bytes) of t the item with keys pk, sk (not another key
 * with the same digest) and not expired (TTL) at now_ms?  Keys and TTL are
 * read in place.  DDB_ECORRUPT, DDB_ENOMEM. */
static int rec_visible_at(const ddb_table_rt *t, const ddb_value *pk, const ddb_value *sk, const uint8_t *r,
                          size_t len, ddb_arena *a, int64_t now_ms, bool *visible)
{
    rec_names w;
    rec_names_set(&w, t->pk, t->sk, t);
    ddbi_rec_attr at[3];
    bool found[3], pk_eq = false, sk_eq = !sk;
    *visible = false;
    int rc = ddbi_rec_find_names(r, len, &w, at, found);
    if (!rc)
        rc = attr_is(&at[RN_PK], found[RN_PK], pk, a, &pk_eq);
    if (!rc && sk)
        rc = attr_is(&at[RN_SK], found[RN_SK], sk, a, &sk_eq);
    if (!rc)
        *visible = pk_eq && sk_eq && !attr_expired(&at[RN_TTL], found[RN_TTL], now_ms);
    return rc;
}

int ddbi_engine_rec_visible(ddbi_engine *db, const ddb_table_rt *t, const ddb_value *pk, const ddb_value *sk,
                            const uint8_t *r, size_t len, ddb_arena *a, bool *visible)
{
    return rec_visible_at(t, pk, sk, r, len, a, ddbi_engine_read_clock_ms(db), visible);
}

/* A copy of record r (n bytes) in a. */
static int rec_copy(ddb_arena *a, const void *r, size_t n, ddbi_rec *out)
{
    uint8_t *c = ddb_arena_alloc(a, n ? n : 1);
    if (!c)
        return DDB_ENOMEM;
    memcpy(c, r, n);
    *out = (ddbi_rec){c, n, false};
    return DDB_OK;
}

/* A record found by key (GetItem, an index entry's item): every cache
 * line of it asked for at once, since the reads of its header, key hint
 * and attributes depend on each other, and its copy reads them all. */
static void prefetch_record(const MDB_val *d)
{
    for (size_t off = 64; off < d->mv_size && off < 4096; off += 64)
        __builtin_prefetch((const uint8_t *)d->mv_data + off);
}

/* GetItem; rec non-NULL: the found item is handed over as its record
 * (into *rec) when the request needs no projection; v non-NULL: to v
 * instead, inside the read transaction (the record borrowed, not copied). */
static int get_one(ddbi_engine *db, const char *table, const ddb_item *key, const ddb_get_opts *opts, ddb_arena *a,
                   const ddbi_rec_visitor *v, ddb_item **out, ddbi_rec *rec, ddb_capacity *cap, ddb_error *err)
{
    *out = NULL;
    ddb_get_opts o = opts ? *opts : (ddb_get_opts){0};
    if (rec) {
        *rec = (ddbi_rec){NULL, 0, false};
        if (o.projection || o.attributes)
            rec = NULL;
    }
    if (cap)
        memset(cap, 0, sizeof *cap);
    MDB_txn *txn;
    uint64_t ticket;
    int rc = ddbi_rtxn_acquire(db, &txn, &ticket, err);
    if (rc)
        return rc;
    ddb_table_rt *t;
    const ddb_value *pk, *sk;
    if ((rc = ddbi_table_get_rd(db, txn, table, &t, err)) || (rc = ddbi_keys_exact(t, key, &pk, &sk, err)) ||
        (o.projection && (rc = ddbi_keys_check_paths(t, &o.projection, 1, err))))
        goto done;
    ddb_key k;
    ddbi_key_make(&k, pk, sk);
    MDB_val kv = {k.len, k.b}, dv;
    size_t size = 0;
    ddb_item *it = NULL;
    bool found_rec = false;
    int64_t now_ms = ddbi_engine_read_clock_ms(db); /* TTL and the timeline: one read of the clock */
    rc = mdb_get(txn, t->items, &kv, &dv);
    if (rc == 0 && (rc = ddbi_stored_val_check(db, t->name, "GetItem: the stored item", &kv, &dv, err)))
        goto done;
    if (rc == 0 && rec) {
        /* the record as it is: its keys and TTL read in place; not another
         * key with the same digest, nor expired (TTL) */
        prefetch_record(&dv);
        int rrc = ddbi_record_size(dv.mv_data, dv.mv_size, &size);
        if (!rrc)
            rrc = rec_visible_at(t, pk, sk, dv.mv_data, dv.mv_size, a, now_ms, &found_rec);
        if (rrc) {
            rc = rrc == DDB_ENOMEM ? ddbi_fail_oom(err, "GetItem")
                                   : ddbi_fail_stored(err, t->name, k.b, k.len, "GetItem: the stored item is unreadable");
            goto done;
        }
    } else if (rc == 0) {
        if ((rc = ddbi_decode_item(dv.mv_data, dv.mv_size, a, &it)) || (rc = ddbi_record_size(dv.mv_data, dv.mv_size, &size))) {
            rc = rc == DDB_ENOMEM ? ddbi_fail_oom(err, "GetItem")
                                  : ddbi_fail_stored(err, t->name, k.b, k.len, "GetItem: the stored item is unreadable");
            goto done;
        }
        const ddb_value *opk = ddb_item_get(it, t->pk), *osk = t->sk ? ddb_item_get(it, t->sk) : NULL;
        if (!opk || !ddb_value_equal(opk, pk) || (sk && (!osk || !ddb_value_equal(osk, sk))))
            it = NULL; /* another key with the same digest: not ours */
        else if (ddbi_ttl_read_attr(t) && ddbi_ttl_expired_at(t, it, now_ms))
            it = NULL; /* expired (TTL): invisible until the sweep deletes it */
    } else if (rc != MDB_NOTFOUND) {
        rc = ddbi_mdb_fail(err, rc, "GetItem");
        goto done;
    }
    rc = DDB_OK;
    double units = ddbi_read_units(it || found_rec ? size : 0, o.consistent);
    if ((rc = ddbi_part_charge_at(db, t, ddbi_part_of(t, ddbi_key_hash(k.b)), units, 0, now_ms, err)))
        goto done;
    ddbi_cap_add(cap, NULL, false, units, 0, o.return_capacity);
    if (found_rec && v) {
        rc = v->fn(v->ctx, &(ddbi_rec){dv.mv_data, dv.mv_size, true}, NULL, err);
        goto done;
    }
    if (found_rec) {
        if (rec_copy(a, dv.mv_data, dv.mv_size, rec))
            rc = ddbi_fail_oom(err, "GetItem");
        goto done;
    }
    if (!it) {
        rc = DDB_ENOTFOUND;
        ddbi_fail(err, rc, "GetItem: no item with that key in table %s", t->name);
        goto done;
    }
    if (o.projection)
        rc = ddbi_expr_project(o.projection, it, a, &it, err);
    else if (o.attributes && !(it = ddbi_keys_project(a, it, o.attributes, o.n_attributes)))
        rc = ddbi_fail_oom(err, __func__);
    if (!rc && v)
        rc = v->fn(v->ctx, NULL, it, err);
    else
        *out = it;
done:
    ddbi_rtxn_release(db, txn, ticket);
    return rc;
}

int ddbi_engine_get_item(void *impl, const char *table, const ddb_item *key, const ddb_get_opts *opts, ddb_arena *a,
                         ddb_item **out, ddb_capacity *cap, ddb_error *err)
{
    return get_one(impl, table, key, opts, a, NULL, out, NULL, cap, err);
}

int ddbi_engine_get_record(void *impl, const char *table, const ddb_item *key, const ddb_get_opts *opts,
                           ddb_arena *a, const ddbi_rec_visitor *v, ddb_item **out, ddbi_rec *rec, ddb_capacity *cap,
                           ddb_error *err)
{
    return get_one(impl, table, key, opts, a, v, out, rec, cap, err);
}

/* ---- shared iteration ---- */

typedef struct cand {
    ddb_item *item;  /* full item (in the page arena); NULL: not decoded (yet) */
    const uint8_t *rec; /* its record, in the read transaction's memory */
    size_t rec_len;
    MDB_val rkey;    /* the table key the record is stored under (messages) */
    int8_t expired;  /* a record's TTL as emit() read it; -1: not read */
    ddb_key tkey;    /* table key */
    size_t size;     /* size charged (projected for indexes) */
} cand;

typedef struct pager {
    ddbi_engine *db;
    MDB_txn *txn;
    ddb_table_rt *t;
    const ddb_index_rt *x; /* NULL = table */
    ddb_arena *a;
    ddb_page *page;
    size_t cap_items;
    size_t bytes;          /* data read so far */
    uint32_t limit;
    const char *const *attrs;
    size_t n_attrs;
    bool full;             /* stopped by limit or 1 MB */
    cand last;             /* last item evaluated (.item or .rec) */
    bool records;          /* hand over records where nothing needs the item (query_records) */
    ddbi_rec *recs;        /* then: the records of the page's entries, beside page->items */
    const ddbi_rec_visitor *visit; /* or the entries to it, in order, inside the transaction */
    ddb_error *err;
    const ddb_expr *filter;     /* FilterExpression: decides what is returned, not what is read */
    const ddb_expr *projection; /* ProjectionExpression */
    const ddb_item *values;
    bool fetch;                 /* an LSI result is read whole from the table (lsi_fetch) */
    bool consistent;
    double fetched;             /* the table's read units of those fetches */
    int64_t now_ms;             /* the read clock, read once (TTL, timeline) */
} pager;

/* API_Query / API_Scan, Select: on a local secondary index that does not
 * project every attribute, ALL_ATTRIBUTES -- or a projection naming an
 * attribute the index does not hold -- makes DynamoDB fetch each item from
 * the table, one read of the item's size each.  (The engine has the item
 * at hand: an index entry points to it.) */
static bool lsi_fetch(const ddb_table_rt *t, const ddb_index_rt *x, bool select_all, const ddb_expr *projection,
                      const char *const *attrs, size_t n_attrs)
{
    if (!x || !x->local || x->proj == DDB_PROJ_ALL)
        return false;
    if (select_all)
        return true;
    const char *const *names = attrs;
    size_t n = attrs ? n_attrs : 0;
    if (projection)
        ddbi_expr_top_level_names(projection, &names, &n);
    for (size_t i = 0; i < n; i++)
        if (!ddbi_keys_index_projects(t, x, names[i]))
            return true;
    return false;
}

/* A Query or Scan of the table reads most of each leaf page it enters (an
 * item collection is contiguous), in an order unrelated to where its
 * records lie in the page.  Each entry asks for its own record's cache
 * lines and for the page's next PREFETCH_STEP lines, so that the page
 * arrives over its first entries' work: asked for in one burst (64
 * prefetches), it stalled the loop once the core's line-fill buffers were
 * full (8.5% of a typed query's samples, half of them on the prefetches;
 * spread, the 100-item query ran 1.3x as fast, bench/extra/RESULTS.md).
 * An index query's entries are read the same way (an entry's data is the
 * table key it points to: the index's page arrives ahead of the cursor).
 * (LMDB pages are the OS page size; 4 KB covers the common case and is
 * harmless otherwise: a prefetch never faults.) */
enum { PREFETCH_STEP = 8 };
typedef struct page_prefetch {
    uintptr_t page; /* the page entered last */
    unsigned line;  /* its lines asked for so far */
} page_prefetch;

static void prefetch_entry(const MDB_val *d, page_prefetch *pf)
{
    uintptr_t pg = (uintptr_t)d->mv_data & ~(uintptr_t)4095;
    if (pg != pf->page) {
        pf->page = pg;
        pf->line = 0;
    }
    for (size_t off = 0; off < d->mv_size && off < 256; off += 64)
        __builtin_prefetch((const uint8_t *)d->mv_data + off);
    for (int n = 0; n < PREFETCH_STEP && pf->line < 4096 / 64; n++, pf->line++)
        __builtin_prefetch((const void *)(pg + pf->line * 64));
}

static int unreadable(pager *p, const MDB_val *k, int rc)
{
    if (rc == DDB_ENOMEM)
        return ddbi_fail_oom(p->err, "reading an item");
    return ddbi_fail_stored(p->err, p->t->name, k->mv_data, k->mv_size, "the stored item is unreadable");
}

/* c's item, decoded from its record when it was not yet. */
static int cand_item(pager *p, cand *c)
{
    int rc = c->item ? DDB_OK : ddbi_decode_item(c->rec, c->rec_len, p->a, &c->item);
    return rc ? unreadable(p, &c->rkey, rc) : DDB_OK;
}

/* The record d stored under table key k into c: decoded, or (records
 * mode) kept as it is until something needs the item. */
static int decode_item(pager *p, const MDB_val *k, const MDB_val *d, cand *c)
{
    int rc = ddbi_stored_val_check(p->db, p->t->name, "the stored item", k, d, p->err);
    if (rc)
        return rc;
    c->item = NULL;
    c->expired = -1;
    c->rec = d->mv_data;
    c->rec_len = d->mv_size;
    c->rkey = *k;
    rc = ddbi_record_size(d->mv_data, d->mv_size, &c->size);
    if (!rc && !p->records)
        rc = cand_item(p, c);
    return rc ? unreadable(p, k, rc) : DDB_OK;
}

static int load_item(pager *p, const MDB_val *tkey, cand *c)
{
    MDB_val k = *tkey, d;
    int rc = mdb_get(p->txn, p->t->items, &k, &d);
    if (rc == MDB_NOTFOUND)
        return ddbi_fail_stored(p->err, p->t->name, tkey->mv_data, tkey->mv_size,
                                "index %s: an entry points to a missing item", p->x->name);
    if (rc)
        return ddbi_mdb_fail(p->err, rc, "reading an indexed item");
    prefetch_record(&d);
    return decode_item(p, tkey, &d, c);
}

/* Where the cursor was: the keys it returns must advance (a damaged page
 * that sends it back would return the same items without end). */
typedef struct order {
    MDB_val k, d; /* the last entry (an index's: its key and the table key it holds) */
    bool have, backward;
} order;

/* Check an entry the cursor returned before anything uses it: the lengths
 * of its keys, and that it comes after the last one in cursor order. */
static int entry_ok(pager *p, order *o, const MDB_val *k, const MDB_val *d)
{
    const char *kw = p->x ? "an index key" : "an item key", *dw = "the table key of an index entry";
    int rc = ddbi_stored_key_check(p->t->name, kw, k, p->err);
    if (!rc)
        rc = ddbi_stored_val_check(p->db, p->t->name, kw, NULL, k, p->err);
    if (!rc && p->x && !(rc = ddbi_stored_key_check(p->t->name, dw, d, p->err)))
        rc = ddbi_stored_val_check(p->db, p->t->name, dw, k, d, p->err);
    if (rc)
        return rc;
    if (o->have) {
        int c = ddbi_stored_cmp(k, &o->k);
        if (!c && p->x)
            c = ddbi_stored_cmp(d, &o->d);
        if (o->backward ? c >= 0 : c <= 0) {
            char prev[128];
            return ddbi_fail_stored(p->err, p->t->name, k->mv_data, k->mv_size,
                                    "%s%s: the keys read do not advance (this one came after %s)",
                                    p->x ? "index " : "", p->x ? p->x->name : "items",
                                    ddbi_key_text(prev, sizeof prev, o->k.mv_data, o->k.mv_size));
        }
    }
    o->k = *k;
    o->d = *d;
    o->have = true;
    return DDB_OK;
}

/* The cursor stopped: at the end, or on an error of LMDB's. */
static int cursor_end(pager *p, int g, const char *op)
{
    return g == 0 || g == MDB_NOTFOUND ? DDB_OK : ddbi_mdb_fail(p->err, g, op);
}

/* Account for one evaluated item; 1 = page is full before it (not taken). */
static int take(pager *p, cand *c)
{
    int rc = DDB_OK;
    /* the item is needed by filters, projections and partial indexes */
    if ((!p->records || p->filter || p->projection || p->attrs || (p->x && p->x->proj != DDB_PROJ_ALL)) &&
        (rc = cand_item(p, c)))
        return rc;
    bool expired = !ddbi_ttl_read_attr(p->t) ? false
                   : c->item             ? ddbi_ttl_expired_at(p->t, c->item, p->now_ms)
                   : c->expired >= 0 ? c->expired
                                     : rec_expired(p->t, c->rec, c->rec_len, p->now_ms, &rc);
    if (!c->item && rc)
        return unreadable(p, &c->rkey, rc);
    if (expired)
        return DDB_OK; /* expired (TTL): invisible, as if already deleted */
    ddb_item *it = c->item;
    size_t size = c->size;
    /* size is the stored item's size: what an ALL projection holds too */
    size_t whole = size;
    if (p->x && p->x->proj != DDB_PROJ_ALL)
        size = ddbi_keys_projected_size(p->t, p->x, it);
    if (p->page->scanned_count && p->bytes + size > DDB_PAGE_MAX) {
        p->full = true;
        return 1;
    }
    p->bytes += size;
    p->page->scanned_count++;
    /* not the whole cand: its table key buffer is large */
    p->last.item = c->item;
    p->last.rec = c->rec;
    p->last.rec_len = c->rec_len;
    p->last.rkey = c->rkey;
    if (p->limit && p->page->scanned_count >= p->limit)
        p->full = true;
    if (p->fetch)
        p->fetched += ddbi_read_units(whole, p->consistent);
    ddb_item *out = !it ? NULL : p->x && !p->fetch ? ddbi_keys_project_index(p->a, p->t, p->x, it) : it;
    if (it && !out)
        return ddbi_fail_oom(p->err, __func__);
    if (p->filter) {
        bool keep = false;
        int rc = ddbi_expr_eval_condition(p->filter, out, p->values, &keep, p->err);
        if (rc)
            return rc;
        if (!keep)
            return DDB_OK;
    }
    if (p->projection) {
        int rc = ddbi_expr_project(p->projection, out, p->a, &out, p->err);
        if (rc)
            return rc;
    } else if (p->attrs && !(out = ddbi_keys_project(p->a, out, p->attrs, p->n_attrs))) {
        return ddbi_fail_oom(p->err, __func__);
    }
    if (p->visit) {
        /* the record borrowed (the transaction is still open), or the item */
        p->page->count++;
        return p->visit->fn(p->visit->ctx, out ? NULL : &(ddbi_rec){c->rec, c->rec_len, true}, out, p->err);
    }
    if (p->page->count == p->cap_items) {
        size_t ncap = p->cap_items ? p->cap_items * 2 : 16;
        ddb_item **n = ddb_arena_alloc(p->a, ncap * sizeof *n);
        ddbi_rec *nr = p->records ? ddb_arena_alloc(p->a, ncap * sizeof *nr) : NULL;
        if (!n || (p->records && !nr))
            return ddbi_fail_oom(p->err, __func__);
        if (p->page->count) {
            memcpy(n, p->page->items, p->page->count * sizeof *n);
            if (nr)
                memcpy(nr, p->recs, p->page->count * sizeof *nr);
        }
        p->page->items = n;
        p->recs = nr;
        p->cap_items = ncap;
    }
    if (p->records) {
        p->recs[p->page->count] = (ddbi_rec){NULL, 0, false};
        if (!out && rec_copy(p->a, c->rec, c->rec_len, &p->recs[p->page->count]))
            return ddbi_fail_oom(p->err, __func__);
    }
    p->page->items[p->page->count++] = out;
    return DDB_OK;
}

/* The LastEvaluatedKey of the last item evaluated: table key plus index
 * key attributes. */
static int key_of(pager *p, ddb_item **out)
{
    int rc = cand_item(p, &p->last);
    if (rc)
        return rc;
    const ddb_item *it = p->last.item;
    ddb_item *k = ddb_item_new(p->a);
    const char *names[2 + 2 * DDB_MAX_KEY_ATTRS] = {p->t->pk, p->t->sk};
    ddb_type types[2 * DDB_MAX_KEY_ATTRS];
    size_t n = 2 + (p->x ? ddbi_index_key_attrs(p->x, names + 2, types, NULL) : 0);
    for (size_t i = 0; k && i < n; i++) {
        const ddb_value *v = names[i] ? ddb_item_get(it, names[i]) : NULL;
        if (v && ddb_item_set(k, names[i], ddb_value_copy(p->a, v)))
            k = NULL;
    }
    if (!k)
        return ddbi_fail_oom(p->err, __func__);
    *out = k;
    return DDB_OK;
}

/* The index a Query or Scan reads (NULL name: the table itself).  A GSI
 * cannot fetch from its table, so Select ALL_ATTRIBUTES needs it to project
 * ALL (API_Query, Select; DynamoDB's words as boto3 reports them). */
static int read_index(const ddb_table_rt *t, const char *name, bool consistent, bool select_all,
                      const ddb_index_rt **x, ddb_error *err)
{
    *x = NULL;
    if (name && !(*x = ddbi_table_index(t, name)))
        return ddbi_fail(err, DDB_EVALIDATION, "The table does not have the specified index: %s (table %s)", name,
                        t->name);
    if (*x && !(*x)->local && consistent)
        return ddbi_fail(err, DDB_EVALIDATION, "Consistent reads are not supported on global secondary indexes (%s)",
                        (*x)->name);
    if (*x && !(*x)->local && select_all && (*x)->proj != DDB_PROJ_ALL)
        return ddbi_fail(err, DDB_EVALIDATION,
                        "One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not supported for "
                        "global secondary index %s because its projection type is not ALL",
                        (*x)->name);
    return DDB_OK;
}

/* ---- Query ---- */

typedef struct qstate {
    const ddb_query_params *q;
    const ddbi_qparts *mp;     /* an index with a multi-attribute key; NULL otherwise */
    const char *pk_name, *sk_name;
    ddb_type sk_type;
    const ddb_value *start_sk; /* ExclusiveStartKey sort key (index or table) */
    ddb_key start_tkey;        /* ExclusiveStartKey table key (indexes) */
    bool has_start;
    size_t pk_len; /* strlen(pk_name) */
    rec_names rn;  /* what emit() reads of a record: pk, sk when needed, TTL */
} qstate;

static bool sk_matches(const qstate *s, const ddb_value *sk)
{
    const ddb_query_params *q = s->q;
    return q->sk_op == DDB_SK_ANY || ddbi_keys_op_matches(sk, q->sk_op, q->sk1, q->sk2);
}

/* Logical order of two candidates: sort key, then table key bytes. */
static int cand_cmp(const qstate *s, const cand *x, const cand *y)
{
    int mc = s->mp ? ddbi_qparts_cmp(s->mp, x->item, y->item) : 0;
    if (mc)
        return mc;
    if (s->sk_name) {
        const ddb_value *a = ddb_item_get(x->item, s->sk_name), *b = ddb_item_get(y->item, s->sk_name);
        if (a && b) {
            int c = ddb_value_compare(a, b);
            if (c)
                return c;
        }
    }
    size_t n = x->tkey.len < y->tkey.len ? x->tkey.len : y->tkey.len;
    int c = memcmp(x->tkey.b, y->tkey.b, n);
    return c ? c : (x->tkey.len < y->tkey.len ? -1 : x->tkey.len > y->tkey.len);
}

/* True when the candidate (sort key sk) comes after ExclusiveStartKey in
 * query order. */
static bool after_start(const qstate *s, const cand *c, const ddb_value *sk)
{
    if (!s->has_start)
        return true;
    int r = 0;
    if (s->mp)
        r = ddbi_qparts_cmp(s->mp, c->item, s->q->start_key);
    else if (s->sk_name)
        r = sk ? ddb_value_compare(sk, s->start_sk) : 0;
    if (r == 0 && s->q->index) {
        size_t n = c->tkey.len < s->start_tkey.len ? c->tkey.len : s->start_tkey.len;
        r = memcmp(c->tkey.b, s->start_tkey.b, n);
        if (!r)
            r = c->tkey.len < s->start_tkey.len ? -1 : c->tkey.len > s->start_tkey.len;
    }
    return s->q->backward ? r < 0 : r > 0;
}

static int emit(pager *p, const qstate *s, cand *c)
{
    ddb_value tmp;
    int rc = DDB_OK;
    const ddb_value *sk = NULL;
    bool pk_eq;
    c->expired = -1;
    if (s->mp) {
        if ((rc = cand_item(p, c)))
            return rc;
        return ddbi_qparts_match(s->mp, c->item) && after_start(s, c, NULL) ? take(p, c) : DDB_OK;
    }
    if (!c->item) {
        /* a record: its keys and TTL in one walk, the partition key
         * compared in place */
        ddbi_rec_attr at[3];
        bool found[3];
        if ((rc = ddbi_rec_find_names(c->rec, c->rec_len, &s->rn, at, found)) ||
            (rc = attr_is(&at[RN_PK], found[RN_PK], s->q->pk, p->a, &pk_eq)) ||
            (found[RN_SK] && (rc = attr_value(&at[RN_SK], p->a, &tmp, &sk))))
            return unreadable(p, &c->rkey, rc);
        c->expired = attr_expired(&at[RN_TTL], found[RN_TTL], p->now_ms);
    } else {
        const ddb_value *pk = ddbi_map_getn(ddb_item_map(c->item), s->pk_name, s->pk_len);
        pk_eq = pk && ddb_value_equal(pk, s->q->pk);
        sk = s->rn.name[RN_SK] ? ddb_item_get(c->item, s->rn.name[RN_SK]) : NULL;
    }
    if (!pk_eq)
        return DDB_OK; /* digest collision with another partition key */
    if (s->q->sk_op != DDB_SK_ANY && !sk_matches(s, sk))
        return DDB_OK;
    if (!after_start(s, c, sk))
        return DDB_OK;
    return take(p, c);
}

static int cand_qsort(const void *a, const void *b, void *state);

/* Prefix-inclusive comparison: is key <= bound when keys that start with
 * bound count as equal? */
static int cmp_prefix(const MDB_val *key, const uint8_t *bound, size_t blen)
{
    size_t n = key->mv_size < blen ? key->mv_size : blen;
    int c = ddbi_key_bytes_cmp(key->mv_data, bound, n);
    if (c)
        return c;
    return key->mv_size < blen ? -1 : 0;
}

/* The key range [lo, hi] (hi prefix-inclusive) of a Query of the table or
 * of an index with a single-attribute key. */
static void query_bounds(const ddb_query_params *q, const qstate *s, uint8_t *lo, size_t *lolen, uint8_t *hi,
                         size_t *hilen)
{
    ddbi_key_digest(q->pk, lo);
    memcpy(hi, lo, DDB_DIGEST_LEN);
    *lolen = *hilen = DDB_DIGEST_LEN;
    const ddb_value *low = NULL, *high = NULL;
    switch (q->sk_op) {
    case DDB_SK_EQ:
    case DDB_SK_BEGINS_WITH:
        low = high = q->sk1;
        break;
    case DDB_SK_LT:
    case DDB_SK_LE:
        high = q->sk1;
        break;
    case DDB_SK_GT:
    case DDB_SK_GE:
        low = q->sk1;
        break;
    case DDB_SK_BETWEEN:
        low = q->sk1;
        high = q->sk2;
        break;
    default:
        break;
    }
    if (s->has_start && s->start_sk) {
        if (!q->backward && (!low || ddb_value_compare(s->start_sk, low) > 0))
            low = s->start_sk;
        if (q->backward && (!high || ddb_value_compare(s->start_sk, high) < 0))
            high = s->start_sk;
    }
    uint8_t part[DDB_KEY_MAX];
    if (low) {
        size_t n = ddbi_key_sortpart(low, part);
        if (n > DDB_SK_INLINE && low->type != DDB_TN)
            n = DDB_SK_INLINE;
        memcpy(lo + *lolen, part, n);
        *lolen += n;
    }
    if (high) {
        size_t n = ddbi_key_sortpart(high, part);
        if (n > DDB_SK_INLINE && high->type != DDB_TN)
            n = DDB_SK_INLINE;
        memcpy(hi + *hilen, part, n);
        *hilen += n;
    }
}

/* Query; recs non-NULL: records mode (query_records), *recs gets the
 * records beside out->items, or v (non-NULL) every entry. */
static int query_run(ddbi_engine *db, const ddb_query_params *q, ddb_arena *a, const ddbi_rec_visitor *v,
                     ddb_page *out, ddbi_rec **recs, ddb_error *err)
{
    const ddb_expr *ex[3] = {q->key_condition, q->filter, q->projection};
    if (q->key_condition || q->filter || q->projection) {
        int crc = ddbi_expr_check_request(ex, 3, NULL, q->values, err);
        if (crc)
            return crc;
    }
    memset(out, 0, sizeof *out);
    if (q->sk_op > DDB_SK_BEGINS_WITH)
        return ddbi_fail(err, DDB_EINVAL, "Query: unknown sort key operator %d", (int)q->sk_op);
    if (q->sk_op != DDB_SK_ANY && (!q->sk1 || (q->sk_op == DDB_SK_BETWEEN && !q->sk2)))
        return ddbi_fail(err, DDB_EINVAL, "Query: the sort key condition needs its value(s)");
    MDB_txn *txn;
    uint64_t ticket;
    int rc = ddbi_rtxn_acquire(db, &txn, &ticket, err);
    if (rc)
        return rc;
    ddb_table_rt *t;
    MDB_cursor *cur = NULL;
    cand run1, *run = &run1; /* one entry unless keys repeat (long keys, index duplicates) */
    size_t nrun = 0, caprun = 1;
    if ((rc = ddbi_table_get_rd(db, txn, q->table, &t, err)))
        goto done;
    const ddb_index_rt *x = NULL;
    const ddb_expr *qex[3] = {q->key_condition, q->filter, q->projection};
    if ((rc = read_index(t, q->index, q->consistent, q->select_all, &x, err)) || (rc = ddbi_keys_check_paths(t, qex, 3, err)))
        goto done;
    ddb_query_params mapped;
    ddbi_qparts mparts, *mp = NULL;
    if (x && ddbi_index_multi(x)) {
        if ((rc = ddbi_qparts_prepare(x, q, &mparts, err)))
            goto done;
        mp = &mparts;
    } else if (q->key_condition) {
        /* KeyConditionExpression -> the structured condition */
        ddb_key_schema ks = {.pk = x ? x->pk : t->pk, .pk_type = x ? x->pk_type : t->pk_type,
                             .sk = x ? x->sk : t->sk, .sk_type = x ? x->sk_type : t->sk_type};
        ddb_key_condition kc;
        if ((rc = ddbi_expr_key_condition(q->key_condition, &ks, q->values, &kc, err)))
            goto done;
        mapped = *q;
        mapped.pk = kc.pk;
        mapped.sk_op = kc.sk_op;
        mapped.sk1 = kc.sk1;
        mapped.sk2 = kc.sk2;
        q = &mapped;
    }
    if (q->filter) {
        /* DynamoDB: a Query filter cannot use the key attributes */
        const char *const *names;
        size_t nn;
        ddbi_expr_top_level_names(q->filter, &names, &nn);
        const char *keys[2 * DDB_MAX_KEY_ATTRS] = {t->pk, t->sk};
        ddb_type ktypes[2 * DDB_MAX_KEY_ATTRS];
        size_t nk = x ? ddbi_index_key_attrs(x, keys, ktypes, NULL) : 2;
        for (size_t i = 0; i < nn; i++)
            for (size_t k = 0; k < nk; k++)
                if (keys[k] && strcmp(names[i], keys[k]) == 0) {
                    rc = ddbi_fail(err, DDB_EVALIDATION,
                                  "Filter Expression can only contain non-primary key attributes: Primary key "
                                  "attribute: %s",
                                  keys[k]);
                    goto done;
                }
    }
    qstate s = {.q = q, .mp = mp, .pk_name = x ? x->pk : t->pk, .sk_name = x ? x->sk : t->sk, .sk_type = x ? x->sk_type : t->sk_type};
    s.pk_len = strlen(s.pk_name);
    /* the sort key is read where the condition or the start key needs it */
    rec_names_set(&s.rn, s.pk_name, (q->sk_op != DDB_SK_ANY || q->start_key) ? s.sk_name : NULL, t);
    if (!mp && (rc = ddbi_keys_check_value(s.pk_name, q->pk, x ? x->pk_type : t->pk_type, true, NULL, err)))
        goto done;
    if (!mp && q->sk_op != DDB_SK_ANY) {
        if (!s.sk_name) {
            rc = ddbi_fail(err, DDB_EVALIDATION, "Query condition on a sort key, but %s has no sort key",
                          x ? x->name : t->name);
            goto done;
        }
        if ((rc = ddbi_keys_check_value(s.sk_name, q->sk1, s.sk_type, false, NULL, err)) ||
            (q->sk_op == DDB_SK_BETWEEN &&
             (rc = ddbi_keys_check_value(s.sk_name, q->sk2, s.sk_type, false, NULL, err))))
            goto done;
        if (q->sk_op == DDB_SK_BEGINS_WITH && s.sk_type == DDB_TN) {
            rc = ddbi_fail(err, DDB_EVALIDATION,
                          "Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or "
                          "function: begins_with, operand type: N (sort key %s)",
                          s.sk_name);
            goto done;
        }
        if (q->sk_op == DDB_SK_BETWEEN && ddb_value_compare(q->sk1, q->sk2) > 0) {
            rc = ddbi_fail(err, DDB_EVALIDATION,
                          "Invalid KeyConditionExpression: The BETWEEN operator requires upper bound to be greater than "
                          "or equal to lower bound (sort key %s)",
                          s.sk_name);
            goto done;
        }
    }
    if (q->start_key) {
        if ((rc = ddbi_keys_start(t, x, q->start_key, false, err)))
            goto done;
        const ddb_value *spk = ddb_item_get(q->start_key, s.pk_name);
        const ddb_value *tpk = ddb_item_get(q->start_key, t->pk), *tsk = t->sk ? ddb_item_get(q->start_key, t->sk) : NULL;
        s.start_sk = s.sk_name ? ddb_item_get(q->start_key, s.sk_name) : NULL;
        if (mp && (rc = ddbi_qparts_start(mp, q->start_key, q->backward, err)))
            goto done;
        if (!mp && !ddb_value_equal(spk, q->pk)) {
            rc = ddbi_fail(err, DDB_EVALIDATION,
                          "The provided starting key is outside query boundaries based on provided conditions");
            goto done;
        }
        ddbi_key_make(&s.start_tkey, tpk, tsk);
        s.has_start = true;
    }

    /* key range [lo, hi] of candidates (hi prefix-inclusive) */
    uint8_t lo[DDB_KEY_MAX], hi[DDB_KEY_MAX];
    size_t lolen, hilen;
    if (mp) {
        memcpy(lo, mp->lo, lolen = mp->lolen);
        memcpy(hi, mp->hi, hilen = mp->hilen);
    } else {
        query_bounds(q, &s, lo, &lolen, hi, &hilen);
    }

    MDB_dbi dbi = x ? x->dbi : t->items;
    if ((rc = mdb_cursor_open(txn, dbi, &cur))) {
        rc = ddbi_mdb_fail(err, rc, "Query");
        goto done;
    }
    pager p = {.db = db, .txn = txn, .t = t, .x = x, .a = a, .page = out, .limit = q->limit,
               .attrs = q->attributes, .n_attrs = q->n_attributes, .records = recs != NULL, .visit = v,
               .err = err, .filter = q->filter, .projection = q->projection, .values = q->values,
               .fetch = lsi_fetch(t, x, q->select_all, q->projection, q->attributes, q->n_attributes),
               .consistent = q->consistent, .now_ms = ddbi_engine_read_clock_ms(db)};
    MDB_val k, d;
    int g;
    if (!q->backward) {
        k = (MDB_val){lolen, lo};
        g = mdb_cursor_get(cur, &k, &d, MDB_SET_RANGE);
    } else {
        /* first key past the prefix-inclusive upper bound, then step back */
        uint8_t succ[DDB_KEY_MAX];
        size_t sl = hilen;
        memcpy(succ, hi, hilen);
        while (sl && succ[sl - 1] == 0xff)
            sl--;
        if (sl) {
            succ[sl - 1]++;
            k = (MDB_val){sl, succ};
            g = mdb_cursor_get(cur, &k, &d, MDB_SET_RANGE);
            g = g == 0 ? mdb_cursor_get(cur, &k, &d, MDB_PREV) : mdb_cursor_get(cur, &k, &d, MDB_LAST);
        } else {
            g = mdb_cursor_get(cur, &k, &d, MDB_LAST);
        }
    }
    MDB_cursor_op step = q->backward ? MDB_PREV : MDB_NEXT;
    page_prefetch page = {0, 0};
    order ord = {.backward = q->backward};
    while (g == 0 && !p.full && rc == 0) {
        if ((rc = entry_ok(&p, &ord, &k, &d)))
            break;
        prefetch_entry(&d, &page); /* a record, or an index entry's table key */
        /* out of the partition (entry_ok checked the length), then past the
         * sort key bound: lo and hi share the digest, so only their sort
         * parts are compared */
        if (!ddbi_key_same_digest(k.mv_data, lo))
            break;
        MDB_val ksort = {k.mv_size - DDB_DIGEST_LEN, (uint8_t *)k.mv_data + DDB_DIGEST_LEN};
        if (!q->backward ? hilen > DDB_DIGEST_LEN && cmp_prefix(&ksort, hi + DDB_DIGEST_LEN, hilen - DDB_DIGEST_LEN) > 0
                         : lolen > DDB_DIGEST_LEN && cmp_prefix(&ksort, lo + DDB_DIGEST_LEN, lolen - DDB_DIGEST_LEN) < 0)
            break;
        /* gather one entry, or a run of long keys sharing their inline prefix */
        nrun = 0;
        uint8_t runkey[DDB_KEY_MAX];
        size_t runlen = k.mv_size;
        bool is_long = ddb_key_is_long(k.mv_data, k.mv_size);
        /* keys are kept only where a run can form (they sort it) or an
         * index query compares them with the start key */
        bool keep_keys = is_long || x;
        if (keep_keys)
            memcpy(runkey, k.mv_data, k.mv_size);
        do {
            if (nrun == caprun) {
                size_t nc = caprun * 2 < 8 ? 8 : caprun * 2;
                cand *nr = run == &run1 ? malloc(nc * sizeof *nr) : realloc(run, nc * sizeof *nr);
                if (!nr) {
                    rc = ddbi_fail_oom(err, __func__);
                    break;
                }
                if (run == &run1)
                    nr[0] = run1;
                run = nr;
                caprun = nc;
            }
            if (nrun && (rc = entry_ok(&p, &ord, &k, &d)))
                break;
            cand *c = &run[nrun];
            MDB_val tk = x ? d : k;
            c->tkey.len = keep_keys ? tk.mv_size : 0;
            if (keep_keys)
                memcpy(c->tkey.b, tk.mv_data, tk.mv_size);
            /* a table query has the record at hand; an index entry points to it */
            if ((rc = x ? load_item(&p, &tk, c) : decode_item(&p, &k, &d, c)))
                break;
            nrun++;
            g = mdb_cursor_get(cur, &k, &d, step);
            if (g == 0)
                prefetch_entry(&d, &page);
        } while (g == 0 && (is_long || x) &&
                 (is_long ? (k.mv_size == runlen && ddbi_key_bytes_cmp(k.mv_data, runkey, DDB_KEY_MAX - DDB_DIGEST_LEN) == 0)
                          : (k.mv_size == runlen && ddbi_key_bytes_cmp(k.mv_data, runkey, runlen) == 0)));
        if (rc)
            break;
        if (nrun > 1) {
            for (size_t i = 0; i < nrun && !rc; i++)
                rc = cand_item(&p, &run[i]); /* sorted by their items' sort keys */
            if (rc)
                break;
            qsort_r(run, nrun, sizeof *run, cand_qsort, &s);
        }
        for (size_t i = 0; i < nrun && !p.full && rc == 0; i++)
            rc = emit(&p, &s, &run[q->backward ? nrun - 1 - i : i]);
    }
    if (rc > 0)
        rc = DDB_OK;
    if (!rc && !p.full)
        rc = cursor_end(&p, g, "Query");
    if (rc == DDB_OK) {
        bool more = p.full; /* DynamoDB returns a key whenever the limit or 1 MB stops the page */
        if (more && (p.last.item || p.last.rec))
            rc = key_of(&p, &out->last_key);
        if (recs)
            *recs = p.recs;
        double units = ddbi_read_units(p.bytes, q->consistent);
        uint64_t hash = ddbi_key_hash(lo);
        if (!rc)
            rc = ddbi_part_charge_at(db, t, ddbi_part_of(t, hash), units + p.fetched, 0, p.now_ms, err);
        ddbi_cap_add(&out->capacity, x ? x->name : NULL, x && x->local, units, 0, q->return_capacity);
        if (p.fetched)
            ddbi_cap_add(&out->capacity, NULL, false, p.fetched, 0, q->return_capacity);
    }
done:
    if (run != &run1)
        free(run);
    if (cur)
        mdb_cursor_close(cur);
    ddbi_rtxn_release(db, txn, ticket);
    return rc;
}

static int cand_qsort(const void *a, const void *b, void *state)
{
    return cand_cmp(state, a, b);
}

int ddbi_engine_query(void *impl, const ddb_query_params *q, ddb_arena *a, ddb_page *out, ddb_error *err)
{
    return query_run(impl, q, a, NULL, out, NULL, err);
}

int ddbi_engine_query_records(void *impl, const ddb_query_params *q, ddb_arena *a, const ddbi_rec_visitor *v,
                              ddbi_rec_page *out, ddb_error *err)
{
    memset(out, 0, sizeof *out);
    return query_run(impl, q, a, v, &out->page, &out->recs, err);
}

/* ---- Scan ---- */

/* Scan; recs non-NULL: the entries that need no filter or projection are
 * handed over as records (query_run's records mode). */
static int scan_run(ddbi_engine *db, const ddb_scan_params *sc, ddb_arena *a, ddb_page *out, ddbi_rec **recs,
                    ddb_error *err)
{
    memset(out, 0, sizeof *out);
    if (sc->filter || sc->projection) {
        const ddb_expr *ex[2] = {sc->filter, sc->projection};
        int crc = ddbi_expr_check_request(ex, 2, NULL, sc->values, err);
        if (crc)
            return crc;
    }
    uint32_t nseg = sc->total_segments ? sc->total_segments : 1;
    if (nseg > 1000000 || sc->segment >= nseg)
        return ddbi_fail(err, DDB_EVALIDATION,
                        "The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: %u "
                        "is not less than TotalSegments: %u (TotalSegments is 1..1000000)",
                        sc->segment, nseg);
    MDB_txn *txn;
    uint64_t ticket;
    int rc = ddbi_rtxn_acquire(db, &txn, &ticket, err);
    if (rc)
        return rc;
    ddb_table_rt *t;
    MDB_cursor *cur = NULL;
    if ((rc = ddbi_table_get_rd(db, txn, sc->table, &t, err)))
        goto done;
    const ddb_index_rt *x = NULL;
    const ddb_expr *sex[2] = {sc->filter, sc->projection};
    if ((rc = read_index(t, sc->index, sc->consistent, sc->select_all, &x, err)) || (rc = ddbi_keys_check_paths(t, sex, 2, err)))
        goto done;
    /* segment = a contiguous range of partition hashes */
    uint64_t seg_lo = (uint64_t)(((unsigned __int128)sc->segment << 64) / nseg);
    uint64_t seg_hi = sc->segment + 1 < nseg ? (uint64_t)(((unsigned __int128)(sc->segment + 1) << 64) / nseg) : 0;
    uint8_t start[DDB_KEY_MAX];
    size_t startlen = 8;
    ddb_put_be(start, seg_lo, 8);
    ddb_key skey = {{0}, 0}, tkey = {{0}, 0};
    if (sc->start_key) {
        const ddb_value *pk, *sk;
        if ((rc = ddbi_keys_start(t, x, sc->start_key, !x, err)) ||
            (rc = ddbi_keys_table(t, sc->start_key, &pk, &sk, err)))
            goto done;
        ddbi_key_make(&tkey, pk, sk);
        if (x) {
            if (ddbi_keys_index_key(x, sc->start_key, &skey, err) <= 0) {
                rc = ddbi_fail(err, DDB_EVALIDATION, "The provided starting key is invalid for index %s", x->name);
                goto done;
            }
        } else {
            skey = tkey;
        }
        memcpy(start, skey.b, skey.len);
        startlen = skey.len;
        /* a parallel Scan's start key lies in its segment (DynamoDB's words:
         * ScyllaDB test/alternator/test_scan.py::
         * test_scan_parallel_with_exclusive_start_key) */
        uint64_t h = ddbi_key_hash(skey.b);
        if (h < seg_lo || (seg_hi && h >= seg_hi)) {
            rc = ddbi_fail(err, DDB_EVALIDATION,
                           "The provided Exclusive start key does not map to the provided Segment and TotalSegments "
                           "values.");
            goto done;
        }
    }
    if ((rc = mdb_cursor_open(txn, x ? x->dbi : t->items, &cur))) {
        rc = ddbi_mdb_fail(err, rc, "Scan");
        goto done;
    }
    pager p = {.db = db, .txn = txn, .t = t, .x = x, .a = a, .page = out, .limit = sc->limit,
               .attrs = sc->attributes, .n_attrs = sc->n_attributes, .records = recs != NULL, .err = err,
               .filter = sc->filter,
               .projection = sc->projection, .values = sc->values,
               .fetch = lsi_fetch(t, x, sc->select_all, sc->projection, sc->attributes, sc->n_attributes),
               .consistent = sc->consistent, .now_ms = ddbi_engine_read_clock_ms(db)};
    MDB_val k = {startlen, start}, d;
    int g;
    if (sc->start_key && x) {
        d = (MDB_val){tkey.len, tkey.b};
        g = mdb_cursor_get(cur, &k, &d, MDB_GET_BOTH_RANGE);
        if (g == MDB_NOTFOUND) {
            k = (MDB_val){startlen, start};
            g = mdb_cursor_get(cur, &k, &d, MDB_SET_RANGE);
            if (g == 0 && k.mv_size == startlen && memcmp(k.mv_data, start, startlen) == 0)
                g = mdb_cursor_get(cur, &k, &d, MDB_NEXT_NODUP);
        }
    } else {
        g = mdb_cursor_get(cur, &k, &d, MDB_SET_RANGE);
    }
    /* skip the start entry itself */
    if (sc->start_key && g == 0 && k.mv_size == startlen && memcmp(k.mv_data, start, startlen) == 0 &&
        (!x || (d.mv_size == tkey.len && memcmp(d.mv_data, tkey.b, tkey.len) == 0)))
        g = mdb_cursor_get(cur, &k, &d, MDB_NEXT);
    double units_bytes = 0;
    uint64_t first_hash = seg_lo;
    page_prefetch page = {0, 0};
    /* the first entry must come after ExclusiveStartKey */
    order ord = {{skey.len, skey.b}, {tkey.len, tkey.b}, sc->start_key != NULL, false};
    while (g == 0 && !p.full) {
        if ((rc = entry_ok(&p, &ord, &k, &d)))
            break;
        uint64_t h = ddbi_key_hash(k.mv_data);
        if (seg_hi && h >= seg_hi)
            break;
        if (!x)
            prefetch_entry(&d, &page);
        MDB_val tk = x ? d : k;
        cand c;
        if ((rc = x ? load_item(&p, &tk, &c) : decode_item(&p, &k, &d, &c)))
            break;
        if ((rc = take(&p, &c)))
            break;
        g = mdb_cursor_get(cur, &k, &d, MDB_NEXT);
    }
    (void)units_bytes;
    if (rc > 0)
        rc = DDB_OK;
    if (!rc && !p.full)
        rc = cursor_end(&p, g, "Scan");
    if (rc == DDB_OK) {
        if (p.full && (p.last.item || p.last.rec))
            rc = key_of(&p, &out->last_key);
        if (recs)
            *recs = p.recs;
        double units = ddbi_read_units(p.bytes, sc->consistent);
        if (!rc && !x)
            rc = ddbi_part_charge_at(db, t, ddbi_part_of(t, first_hash), units, 0, p.now_ms, err);
        ddbi_cap_add(&out->capacity, x ? x->name : NULL, x && x->local, units, 0, sc->return_capacity);
        if (p.fetched)
            ddbi_cap_add(&out->capacity, NULL, false, p.fetched, 0, sc->return_capacity);
    }
done:
    if (cur)
        mdb_cursor_close(cur);
    ddbi_rtxn_release(db, txn, ticket);
    return rc;
}

int ddbi_engine_scan(void *impl, const ddb_scan_params *sc, ddb_arena *a, ddb_page *out, ddb_error *err)
{
    return scan_run(impl, sc, a, out, NULL, err);
}

int ddbi_engine_scan_records(void *impl, const ddb_scan_params *sc, ddb_arena *a, ddbi_rec_page *out,
                             ddb_error *err)
{
    out->recs = NULL;
    return scan_run(impl, sc, a, &out->page, &out->recs, err);
}
