/* Entity room: scatter-gather reads of write-sharded keys
 * (DDB_WRITE_SHARDS).  One logical partition lives in N physical ones
 * ("DATE#2024-03-04.0" ... ".7"); a typed query or collection page reads a
 * page from each (the same key condition, projection and filter), merges
 * the raw items in sort-key order and hands them to the reader
 * (entity_page_decode.c), which decodes them as if they came from one
 * partition; one cursor resumes every shard.
 *
 * Merging pages correctly: shard s has returned its items up to its
 * LastEvaluatedKey (its "frontier"; a Limit or a filter may stop it before
 * its last item); it may hold more after that.  An item of any shard is
 * taken only when it sorts at or before the nearest frontier, so nothing
 * unread can belong before it; within one partition sort keys are unique,
 * so a tie across shards is broken by the shard number.  The next page
 * resumes each shard after the last item taken from it (or at its frontier
 * when all its items were taken).  A page may hold fewer than page_size
 * entities and still have a cursor, as DynamoDB's own pages may.  A count
 * (count_only) merges the same way: the counted items are the keys.
 *
 * Cursor text: "ws<N>:" and N entries separated by '~', each "" (not read
 * yet), "!" (exhausted) or that shard's own cursor (base64url).  Calls the
 * record reads (api/records.h), core/record.h, the public item API and this room's templates, sort-key
 * conditions, projections, cursors and reader. */
#include "entity/reads/entity_reads.h"

#include "core/error.h"
#include "core/record.h"

#include <stdio.h>
#include <string.h>

typedef struct shard_pos {
    const char *cursor; /* resume after this; NULL = from the start */
    bool done;
} shard_pos;

static int bad_cursor(ddb_error *err, const char *why)
{
    return ddbi_fail(err, DDB_EVALIDATION, "invalid cursor: %s", why);
}

static int parse_cursor(const char *c, int n, shard_pos *pos, ddb_arena *a, ddb_error *err)
{
    memset(pos, 0, (size_t)n * sizeof *pos);
    if (!c)
        return DDB_OK;
    char head[16];
    int hl = snprintf(head, sizeof head, "ws%d:", n);
    if (strncmp(c, head, (size_t)hl) != 0)
        return bad_cursor(err, "not a cursor of this query's write shards");
    const char *p = c + hl;
    for (int s = 0; s < n; s++) {
        size_t len = strcspn(p, "~");
        if ((p[len] == '~') != (s + 1 < n))
            return bad_cursor(err, "wrong number of shards");
        if (len == 1 && p[0] == '!')
            pos[s].done = true;
        else if (len) {
            char *sub = ddb_arena_alloc(a, len + 1);
            if (!sub)
                return ddbi_fail_oom(err, __func__);
            memcpy(sub, p, len);
            sub[len] = '\0';
            pos[s].cursor = sub;
        }
        p += len + (s + 1 < n);
    }
    return DDB_OK;
}

static int format_cursor(const shard_pos *pos, int n, ddb_arena *a, const char **out, ddb_error *err)
{
    bool all_done = true;
    size_t len = 16;
    for (int s = 0; s < n; s++) {
        all_done &= pos[s].done;
        len += 2 + (pos[s].cursor ? strlen(pos[s].cursor) : 0);
    }
    *out = NULL;
    if (all_done)
        return DDB_OK;
    char *c = ddb_arena_alloc(a, len);
    if (!c)
        return ddbi_fail_oom(err, __func__);
    size_t o = (size_t)snprintf(c, len, "ws%d:", n);
    for (int s = 0; s < n; s++) {
        const char *v = pos[s].done ? "!" : pos[s].cursor ? pos[s].cursor : "";
        o += (size_t)snprintf(c + o, len - o, "%s%s", s ? "~" : "", v);
    }
    *out = c;
    return DDB_OK;
}

/* Sort order of two sort key values in the query's direction. */
static int order(const ddb_value *x, const ddb_value *y, bool backward)
{
    if (!x || !y)
        return 0; /* no sort key: no order is promised */
    int c = ddb_value_compare(x, y);
    return backward ? -c : c;
}

/* Items asked of each shard for a page of page_size: the items of one
 * partition are spread evenly over the shards (a hash picks the shard), so
 * twice a shard's share fills the page in most rounds without reading
 * (and paying for) n times the page; a shard that runs short only moves
 * the frontier, never the order.  0: no limit (1 MB pages). */
static uint32_t shard_limit(uint32_t page_size, int n)
{
    if (!page_size)
        return 0;
    uint32_t share = (page_size + (uint32_t)n - 1) / (uint32_t)n;
    uint32_t limit = 2 * share < 8 ? 8 : 2 * share;
    return limit < page_size ? limit : page_size;
}

/* One shard's page, its entries as items or records (api/records.h),
 * with what the merge reads of each entry, found once: its sort key (NULL:
 * none) and whether the reader keeps it. */
typedef struct shard_page {
    ddbi_rec_page rp;
    const ddb_value **sk;
    bool *wanted;
} shard_page;

static bool is_rec(const ddbi_rec_page *rp, size_t i)
{
    return rp->recs && rp->recs[i].p;
}

/* Is a type name (len bytes; NULL: none) one of the reader's sinks'? */
static bool wanted_type(const ddbi_ent_reader *r, const char *name, size_t len)
{
    if (!name)
        return r->index_partial; /* an index that does not project the type */
    for (uint16_t i = 0; i < r->n; i++)
        if (strlen(r->sinks[i].e->name) == len && !memcmp(name, r->sinks[i].e->name, len))
            return true;
    return false;
}

/* Attribute name of record rec as a value (a view into the record where
 * it can be); *out NULL when absent. */
static int rec_attr(const ddb_entity_desc *e, const ddbi_rec *rec, const char *name, ddb_arena *a, ddb_value *tmp,
                    const ddb_value **out, ddb_error *err)
{
    ddbi_rec_attr at;
    ddb_value *v;
    *out = NULL;
    int f = ddbi_rec_find(rec->p, rec->len, name, strlen(name), &at);
    if (f > 0 && ddbi_rec_view(&at, tmp))
        *out = tmp;
    else if (f > 0 && !(f = ddbi_rec_value(&at, a, &v)))
        *out = v;
    if (f >= 0)
        return DDB_OK;
    return f == DDB_ENOMEM ? ddbi_fail_oom(err, __func__)
                           : ddbi_fail(err, DDB_ECORRUPT, "%s: a stored item of table %s is unreadable (damaged record)",
                                       e->name, e->table->def.name);
}

/* The sort key and the reader's interest of every entry of sp. */
static int shard_page_index(const ddbi_ent_reader *r, const ddb_entity_desc *e, const char *sk_attr, shard_page *sp,
                            ddb_error *err)
{
    size_t n = sp->rp.page.count;
    ddb_value *tmp = ddb_arena_alloc(r->a, (n ? n : 1) * sizeof *tmp);
    sp->sk = ddb_arena_alloc(r->a, (n ? n : 1) * sizeof *sp->sk);
    sp->wanted = ddb_arena_alloc(r->a, n + 1);
    if (!tmp || !sp->sk || !sp->wanted)
        return ddbi_fail_oom(err, __func__);
    const char *ta = e->table->type_attr;
    for (size_t i = 0; i < n; i++) {
        sp->sk[i] = NULL;
        if (!is_rec(&sp->rp, i)) {
            const ddb_item *it = sp->rp.page.items[i];
            const ddb_value *tv = ddb_item_get(it, ta);
            sp->sk[i] = sk_attr ? ddb_item_get(it, sk_attr) : NULL;
            sp->wanted[i] = tv ? tv->type == DDB_TS && wanted_type(r, tv->u.s, tv->len) : wanted_type(r, NULL, 0);
            continue;
        }
        const char *tn;
        size_t tl;
        int rc = ddbi_ent_record_type(e, &sp->rp.recs[i], &tn, &tl, err);
        if (!rc && sk_attr)
            rc = rec_attr(e, &sp->rp.recs[i], sk_attr, r->a, &tmp[i], &sp->sk[i], err);
        if (rc)
            return rc;
        sp->wanted[i] = wanted_type(r, tn, tl);
    }
    return DDB_OK;
}

/* The LastEvaluatedKey a query of index `index` returns after item it: the
 * table's key and the index's key attributes, as a cursor. */
static int key_after(const ddb_entity_desc *e, const char *index, const ddb_item *it, ddb_arena *a,
                     const char **cursor, ddb_error *err)
{
    const ddb_table_def *t = &e->table->def;
    const char *attrs[4] = {t->key.pk, t->key.sk, NULL, NULL};
    for (size_t i = 0; index && i < t->n_indexes; i++)
        if (!strcmp(t->indexes[i].name, index)) {
            attrs[2] = t->indexes[i].key.pk;
            attrs[3] = t->indexes[i].key.sk;
        }
    ddb_item *key = ddb_item_new(a);
    if (!key)
        return ddbi_fail_oom(err, __func__);
    for (int i = 0; i < 4; i++) {
        const ddb_value *v = attrs[i] ? ddb_item_get(it, attrs[i]) : NULL;
        if (v && ddb_item_set(key, attrs[i], (ddb_value *)v))
            return ddbi_fail_oom(err, __func__);
    }
    return ddbi_ent_cursor_encode(a, key, cursor, err);
}

/* One round: a page from every shard not done, merged into r. */
static int scatter_round(ddbi_ent_reader *r, const ddb_entity_desc *e, const ddb_template *pt, const void *obj,
                         const char *sk_attr, const ddb_query_params *qp, int n, shard_pos *pos, ddb_error *err)
{
    ddb_arena *a = r->a;
    /* (in the arena: a page's capacity is large) */
    shard_page *sp = ddb_arena_alloc(a, (size_t)n * sizeof *sp);
    ddbi_rec_page *merged = ddb_arena_alloc(a, sizeof *merged);
    if (!sp || !merged)
        return ddbi_fail_oom(err, __func__);
    size_t at[DDB_ENT_MAX_WRITE_SHARDS] = {0}, total = 0;
    const ddb_value *frontier = NULL;
    bool bounded = false, recs = false;
    memset(merged, 0, sizeof *merged);
    int rc = DDB_OK;
    for (int s = 0; s < n && !rc; s++) {
        memset(&sp[s], 0, sizeof sp[s]);
        if (pos[s].done)
            continue;
        ddb_query_params q = *qp;
        ddb_value *pk;
        if ((rc = ddbi_ent_render_shard(e, pt, obj, s, a, &pk, err)))
            break;
        if (!pk)
            return ddbi_fail(err, DDB_EVALIDATION, "%s: a partition field of the query is unset", e->name);
        q.pk = pk;
        q.limit = shard_limit(r->o->page_size, n);
        if (pos[s].cursor && (rc = ddbi_ent_cursor_decode(a, pos[s].cursor, (ddb_item **)&q.start_key, err)))
            break;
        if ((rc = ddbi_query_records(r->db, &q, a, NULL, &sp[s].rp, err)) ||
            (rc = shard_page_index(r, e, sk_attr, &sp[s], err)))
            break;
        const ddb_page *pg = &sp[s].rp.page;
        total += pg->count;
        recs |= sp[s].rp.recs != NULL;
        merged->page.scanned_count += pg->scanned_count;
        ddbi_ent_cap_merge(&merged->page.capacity, &pg->capacity);
        if (pg->last_key) {
            const ddb_value *f = sk_attr ? ddb_item_get(pg->last_key, sk_attr) : NULL;
            if (!bounded || order(f, frontier, qp->backward) < 0)
                frontier = f;
            bounded = true;
        }
    }
    if (rc)
        return rc;
    /* gather: the least head among the shards, while it is at or before the frontier */
    merged->page.items = ddb_arena_alloc(a, (total ? total : 1) * sizeof *merged->page.items);
    merged->recs = recs ? ddb_arena_alloc(a, (total ? total : 1) * sizeof *merged->recs) : NULL;
    if (!merged->page.items || (recs && !merged->recs))
        return ddbi_fail_oom(err, __func__);
    size_t entities = 0;
    while (!r->o->page_size || entities < r->o->page_size) {
        int best = -1;
        for (int s = 0; s < n; s++) {
            if (at[s] >= sp[s].rp.page.count)
                continue;
            if (best < 0 || order(sp[s].sk[at[s]], sp[best].sk[at[best]], qp->backward) < 0)
                best = s;
        }
        if (best < 0)
            break;
        size_t i = at[best];
        if (bounded && sk_attr && order(sp[best].sk[i], frontier, qp->backward) > 0)
            break;
        if (recs)
            merged->recs[merged->page.count] = is_rec(&sp[best].rp, i) ? sp[best].rp.recs[i] : (ddbi_rec){NULL, 0, false};
        merged->page.items[merged->page.count++] = sp[best].rp.page.items[i];
        entities += sp[best].wanted[i];
        at[best]++;
    }
    if ((rc = ddbi_ent_reader_take_recs(r, merged, err)))
        return rc;
    /* where each shard resumes */
    for (int s = 0; s < n && !rc; s++) {
        if (pos[s].done)
            continue;
        const ddb_page *pg = &sp[s].rp.page;
        if (at[s] == pg->count) {
            pos[s].done = !pg->last_key;
            pos[s].cursor = NULL;
            if (pg->last_key)
                rc = ddbi_ent_cursor_encode(a, pg->last_key, &pos[s].cursor, err);
        } else if (at[s] > 0) {
            ddb_item *it = pg->items[at[s] - 1];
            if (is_rec(&sp[s].rp, at[s] - 1))
                rc = ddbi_ent_record_item(e, &sp[s].rp.recs[at[s] - 1], a, &it, err);
            if (!rc)
                rc = key_after(e, qp->index, it, a, &pos[s].cursor, err);
        }
    }
    return rc;
}

int ddbi_ent_scatter_run(ddbi_ent_reader *r, const ddb_entity_desc *e, const ddb_template *pt, const void *obj,
                         const char *sk_attr, ddb_query_params *qp, bool all_pages, const char **cursor,
                         ddb_error *err)
{
    int n = ddbi_ent_write_shards(e, pt);
    shard_pos pos[DDB_ENT_MAX_WRITE_SHARDS];
    *cursor = NULL;
    int rc = parse_cursor(r->o->cursor, n, pos, r->a, err);
    if (rc)
        return rc;
    ddbi_ent_ask ask;
    if ((rc = ddbi_ent_ask_init(&ask, r->db, e, r->sinks, r->n, r->index, r->o, false, r->a, err)))
        return rc;
    qp->projection = ask.projection;
    qp->filter = ask.filter;
    qp->values = ask.values;
    bool done;
    do {
        rc = scatter_round(r, e, pt, obj, sk_attr, qp, n, pos, err);
        done = true;
        for (int s = 0; s < n; s++)
            done &= pos[s].done;
    } while (!rc && all_pages && !done);
    ddbi_ent_ask_done(&ask);
    r->last_key = NULL;
    return rc ? rc : format_cursor(pos, n, r->a, cursor, err);
}

int ddbi_ent_scatter_pattern(ddb *db, const ddb_entity_desc *e, const ddb_ent_key_cond *kc,
                             const ddb_ent_read_opts *o, ddb_arena *a, ddb_ent_result *out, ddb_error *err)
{
    const ddb_key_desc *kd = &e->keys[kc->key];
    if (e->n_shards)
        return ddbi_fail(err, DDB_EINVAL, "entity %s: write shards of an entity with DDB_SHARD items are not supported",
                         e->name);
    ddbi_ent_sink sink = {.e = e};
    ddbi_ent_reader r;
    int rc = ddbi_ent_reader_init(&r, db, a, o, kd->index, &sink, 1, err);
    if (rc)
        return rc;
    ddb_query_params qp = {.table = e->table->def.name, .index = kd->index, .backward = o->backward,
                           .consistent = o->consistent, .return_capacity = o->return_capacity};
    const char *next;
    if (!(rc = ddbi_ent_sk_condition(e, kc, a, &qp, err)))
        rc = ddbi_ent_scatter_run(&r, e, &kd->pk, kc->obj, kd->sk_attr, &qp, o->all_pages, &next, err);
    ddbi_ent_reader_finish(&r);
    if (rc)
        return rc;
    out->items = o->count_only ? NULL : sink.items;
    out->masks = o->count_only ? NULL : sink.masks;
    out->count = sink.count;
    out->scanned_count = r.scanned;
    out->cursor = next;
    return DDB_OK;
}
