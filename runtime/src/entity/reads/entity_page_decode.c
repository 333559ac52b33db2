/* Entity room: the pages of typed reads turned into entity structs (the
 * common back half of ddb_ent_query_pattern, the collection pages and the
 * typed scans).  Items are sorted by their type attribute into one sink per
 * entity type; a sharded entity's shard items are decoded into one struct
 * (a group cut by the page's end, or thinned by a filter, is completed from
 * the table and the cursor moved past it); an index entry of a sharded
 * entity is completed from the table (both: only the shard items the
 * sink's projection needs, by key); a KEYS_ONLY / INCLUDE index entry is
 * decoded as it is (fetch_base: read whole).  Entries a backend hands over
 * as stored records (api/records.h) are decoded straight into their
 * structs (entity_record_decode.c) where the entry needs nothing else; on the
 * other paths they are decoded into items first.  Calls the public Query,
 * GetItem and item API and this room's keys, unmarshalling and capacity. */
#include "entity/reads/entity_reads.h"

#include "core/error.h"

#include <string.h>

static const ddb_index_def *index_def(const ddb_entity_desc *e, const char *index)
{
    const ddb_table_def *t = &e->table->def;
    for (size_t i = 0; index && i < t->n_indexes; i++)
        if (!strcmp(t->indexes[i].name, index))
            return &t->indexes[i];
    return NULL;
}

const ddb_ent_read_opts *ddbi_ent_opts_begin(const ddb_ent_read_opts *o)
{
    static const ddb_ent_read_opts none = {0};
    if (o && o->capacity)
        memset(o->capacity, 0, sizeof *o->capacity);
    return o ? o : &none;
}

int ddbi_ent_reader_init(ddbi_ent_reader *r, ddb *db, ddb_arena *a, const ddb_ent_read_opts *o, const char *index,
                         ddbi_ent_sink *sinks, uint16_t n, ddb_error *err)
{
    static const ddb_ent_read_opts none = {0};
    /* field by field, not one memset: the capacity's per-index array is 7 KB */
    r->db = db;
    r->a = a;
    r->o = o ? o : &none;
    r->index = index;
    r->index_partial = r->projected = false;
    r->sinks = sinks;
    r->n = n;
    ddbi_ent_cap_clear(&r->cap);
    r->scanned = 0;
    r->last_key = NULL;
    r->max_entities = 0;
    r->order = NULL;
    r->n_order = r->order_cap = 0;
    if (r->o->fields && r->o->member_fields)
        return ddbi_fail(err, DDB_EINVAL, "%s: fields or member_fields, not both", n ? sinks[0].e->name : "read");
    for (uint16_t i = 0; i < n; i++) {
        int rc = ddbi_ent_check_shards(sinks[i].e, err);
        if (rc)
            return rc;
        if (sinks[i].e->st->n_fields > DDB_ENT_MAX_FIELDS)
            return ddbi_fail(err, DDB_ELIMIT, "%s has %u fields; a field mask holds at most %d (DDB_ENT_MAX_FIELDS)",
                             sinks[i].e->name, (unsigned)sinks[i].e->st->n_fields, DDB_ENT_MAX_FIELDS);
        if ((rc = ddbi_ent_plan_of(sinks[i].e, a, &sinks[i].plan, err)))
            return rc;
        sinks[i].fields = r->o->member_fields ? r->o->member_fields[i] : n == 1 ? r->o->fields : NULL;
        r->projected |= sinks[i].fields != NULL;
    }
    if (index && n) {
        const ddb_index_def *x = index_def(sinks[0].e, index);
        if (!x)
            return ddbi_fail(err, DDB_ENOTABLE, "table %s has no index %s", sinks[0].e->table->def.name, index);
        r->index_partial = x->projection != DDB_PROJ_ALL;
    }
    r->projected |= r->o->count_only || (r->index_partial && !r->o->fetch_base);
    return DDB_OK;
}

/* Does index hold the type attribute of e's table (ALL, or INCLUDE naming it)? */
static bool index_has_type(const ddb_entity_desc *e, const char *index)
{
    const ddb_index_def *x = index_def(e, index);
    if (!x || x->projection == DDB_PROJ_ALL)
        return true;
    for (size_t i = 0; x->projection == DDB_PROJ_INCLUDE && i < x->n_include; i++)
        if (!strcmp(x->include[i], e->table->type_attr))
            return true;
    return false;
}

/* Does the index entry it fit e's key templates on index? */
static bool index_keys_fit(const ddb_entity_desc *e, const char *index, const ddb_item *it)
{
    for (uint16_t k = 1; k < e->n_keys; k++) {
        const ddb_key_desc *kd = &e->keys[k];
        if (kd->by_fields && kd->index && !strcmp(kd->index, index) && ddbi_ent_fields_present(e, kd, it))
            return true;
        if (!kd->by_fields && kd->index && !strcmp(kd->index, index) && ddbi_ent_template_fits(&kd->pk, ddb_item_get(it, kd->pk_attr)) &&
            (!kd->sk_attr || ddbi_ent_template_fits(&kd->sk, ddb_item_get(it, kd->sk_attr))))
            return true;
    }
    return false;
}

/* The sink of it's type: told by its type attribute, or (an index that does
 * not project it) by the first member whose key templates its keys fit. */
static ddbi_ent_sink *sink_of(const ddbi_ent_reader *r, const ddb_item *it)
{
    if (!r->n)
        return NULL;
    const ddb_value *tv = ddb_item_get(it, r->sinks[0].e->table->type_attr);
    for (uint16_t i = 0; !tv && r->index_partial && i < r->n; i++)
        if (index_keys_fit(r->sinks[i].e, r->index, it))
            return &r->sinks[i];
    if (!tv || tv->type != DDB_TS)
        return NULL;
    for (uint16_t i = 0; i < r->n; i++)
        if (!strcmp(tv->u.s, r->sinks[i].e->name))
            return &r->sinks[i];
    return NULL;
}

/* The length of sk without its <suffix><shard id>; 0 when it has none. */
static size_t shard_base(const ddb_entity_desc *e, const ddb_value *sk)
{
    if (!sk || sk->type != DDB_TS)
        return 0;
    const char *sfx = ddbi_ent_shard_suffix(e);
    size_t sl = strlen(sfx);
    for (uint16_t s = 0; s < e->n_shards; s++) {
        size_t il = strlen(e->shards[s]);
        if (sk->len >= sl + il && !memcmp(sk->u.s + sk->len - il, e->shards[s], il) &&
            !memcmp(sk->u.s + sk->len - il - sl, sfx, sl))
            return sk->len - il - sl;
    }
    return 0;
}

/* Is b a shard item of the same logical item as a (base: a's key length)? */
static bool same_item(const ddb_entity_desc *e, const ddb_item *a, const ddb_item *b, size_t base)
{
    const ddb_key_desc *k = &e->keys[0];
    const ddb_value *tb = ddb_item_get(b, e->table->type_attr);
    const ddb_value *sa = ddb_item_get(a, k->sk_attr), *sb = ddb_item_get(b, k->sk_attr);
    const ddb_value *pa = ddb_item_get(a, k->pk_attr), *pb = ddb_item_get(b, k->pk_attr);
    /* items read from a damaged file may lack their key attributes */
    return tb && tb->type == DDB_TS && !strcmp(tb->u.s, e->name) && pa && pb && ddb_value_equal(pa, pb) && sa &&
           sa->type == DDB_TS && sa->len >= base && sb && sb->type == DDB_TS && shard_base(e, sb) == base &&
           !memcmp(sa->u.s, sb->u.s, base);
}

/* The sink of record rec (as sink_of; records come only where no index
 * entry lacks the type attribute). */
static int sink_of_rec(const ddbi_ent_reader *r, const ddbi_rec *rec, ddbi_ent_sink **out, ddb_error *err)
{
    *out = NULL;
    const char *tn;
    size_t tl;
    int rc = r->n ? ddbi_ent_record_type(r->sinks[0].e, rec, &tn, &tl, err) : DDB_OK;
    for (uint16_t i = 0; !rc && r->n && tn && i < r->n; i++)
        if (strlen(r->sinks[i].e->name) == tl && !memcmp(tn, r->sinks[i].e->name, tl)) {
            *out = &r->sinks[i];
            break;
        }
    return rc;
}

/* The next struct of s, zeroed, and its mask; NULL when only counting. */
static char *next_slot(ddbi_ent_reader *r, ddbi_ent_sink *s, ddb_ent_mask **mask)
{
    s->count++;
    if (r->o->count_only)
        return NULL;
    char *slot = s->items + (s->count - 1) * s->e->st->size;
    *mask = &s->masks[s->count - 1];
    memset(slot, 0, s->e->st->size);
    memset(*mask, 0, sizeof **mask);
    return slot;
}

int ddbi_ent_decode_record(const ddbi_ent_reader *r, const ddbi_ent_sink *s, const ddbi_rec *rec, void *slot,
                           ddb_ent_mask *mask, bool *other, ddb_error *err)
{
    int rc = ddbi_ent_fields_from_record(s->plan, rec, slot, r->a, mask, other, err);
    return rc || (other && *other) || r->projected ? rc : ddbi_ent_plan_check_required(s->plan, mask, err);
}

/* Record rec (one unsharded item of a table or an ALL index) into a slot;
 * check_type: its type is not known yet (dropped when it is not s's). */
static int decode_rec(ddbi_ent_reader *r, ddbi_ent_sink *s, const ddbi_rec *rec, bool check_type, ddb_error *err)
{
    ddb_ent_mask *mask;
    char *slot = next_slot(r, s, &mask);
    if (!slot)
        return DDB_OK;
    bool other = false;
    int rc = ddbi_ent_decode_record(r, s, rec, slot, mask, check_type ? &other : NULL, err);
    if (!rc && other)
        s->count--; /* another entity in the same partition */
    return rc;
}

/* Decode n items (one logical item's shard items, or one item) into slot. */
static int decode(ddbi_ent_reader *r, ddbi_ent_sink *s, ddb_item *const *items, size_t n, ddb_error *err)
{
    ddb_ent_mask *mask;
    char *slot = next_slot(r, s, &mask);
    if (!slot)
        return DDB_OK;
    for (size_t i = 0; i < n; i++) {
        int rc = ddbi_ent_fields_by_order(s->e, s->plan->order, items[i], slot, r->a, mask, err);
        if (rc)
            return rc;
        if (r->index_partial && !r->o->fetch_base)
            ddbi_ent_fields_from_keys(s->e, items[i], slot, r->a, mask);
    }
    return r->projected ? DDB_OK : ddbi_ent_plan_check_required(s->plan, mask, err);
}

/* The table key of item it (for a cursor). */
static int table_key(const ddb_entity_desc *e, const ddb_item *it, ddb_arena *a, ddb_item **out, ddb_error *err)
{
    const ddb_key_schema *ks = &e->table->def.key;
    ddb_item *k = ddb_item_new(a);
    const ddb_value *pk = ddb_item_get(it, ks->pk), *sk = ks->sk ? ddb_item_get(it, ks->sk) : NULL;
    if (!k || !pk || ddb_item_set(k, ks->pk, (ddb_value *)pk) || (sk && ddb_item_set(k, ks->sk, (ddb_value *)sk)))
        return ddbi_fail_oom(err, __func__);
    *out = k;
    return DDB_OK;
}

/* The table key of the shard item of e's logical item (pk, sk base) that
 * a page in that direction reads last: the cursor past the item. */
static int past_item(const ddb_entity_desc *e, const ddb_item *it, bool backward, ddb_arena *a, ddb_item **out,
                     ddb_error *err)
{
    ddb_item *key = NULL;
    int shard, last = 0;
    int rc = ddbi_ent_shard_of(e, it, a, &shard, &key, err);
    if (rc || shard < 0)
        return rc;
    for (int s = 1; s < e->n_shards; s++)
        if ((strcmp(e->shards[s], e->shards[last]) > 0) != backward)
            last = s;
    const ddb_key_desc *k = &e->keys[0];
    ddb_value *sk;
    if ((rc = ddbi_ent_shard_sk(e, ddb_item_get(key, k->sk_attr), last, a, &sk, err)))
        return rc;
    if (ddb_item_set(key, k->sk_attr, sk))
        return ddbi_fail_oom(err, __func__);
    *out = key;
    return DDB_OK;
}

/* The options of a read of shard items: the sink's projection, no filter. */
static const ddb_ent_read_opts projection_only = {0};

/* The shards (bits) r needs of sink s's entities: those of its projection,
 * none to count. */
static uint64_t needed(const ddbi_ent_reader *r, const ddbi_ent_sink *s)
{
    return r->o->count_only ? 0 : ddbi_ent_shards_needed(s->e, s->fields);
}

/* Decode the shard items group[0..n) of one logical item, with the shards
 * of need it lacks read from the table (key: the item's, or NULL to derive
 * it from group[0]); a page cut or a filter may have left some out. */
static int complete(ddbi_ent_reader *r, ddbi_ent_sink *s, ddb_item *const *group, size_t n, uint64_t need,
                    ddb_error *err)
{
    const ddb_entity_desc *e = s->e;
    uint64_t have = 0;
    ddb_item *key = NULL;
    for (size_t g = 0; g < n; g++) {
        int shard;
        int rc = ddbi_ent_shard_of(e, group[g], r->a, &shard, key ? NULL : &key, err);
        if (rc)
            return rc;
        if (shard >= 0)
            have |= (uint64_t)1 << shard;
    }
    if (!(need & ~have))
        return decode(r, s, group, n, err);
    if (!key)
        return ddbi_fail(err, DDB_ECORRUPT, "%s: an item read is not a shard item", e->name);
    ddb_page more;
    ddbi_ent_ask ask;
    int rc = ddbi_ent_ask_init(&ask, r->db, e, s, 1, NULL, &projection_only, false, r->a, err);
    if (!rc)
        rc = ddbi_ent_read_some_shards(r->db, e, key, need & ~have, ask.projection, r->a, r->o->consistent,
                                       r->o->return_capacity, &more, err);
    ddbi_ent_ask_done(&ask);
    if (rc)
        return rc;
    ddbi_ent_cap_merge(&r->cap, &more.capacity);
    if (!n && !more.count)
        return DDB_OK; /* deleted since */
    ddb_item **all = ddb_arena_alloc(r->a, (n + more.count) * sizeof *all);
    if (!all)
        return ddbi_fail_oom(err, __func__);
    memcpy(all, group, n * sizeof *all);
    memcpy(all + n, more.items, more.count * sizeof *all);
    return decode(r, s, all, n + more.count, err);
}

/* A sharded entity's table items items[i..*j): the group of one logical
 * item, completed from the table when shards it needs are missing; at the
 * page's end the cursor moves past its last shard. */
static int take_group(ddbi_ent_reader *r, ddbi_ent_sink *s, const ddb_page *pg, size_t i, size_t *j, ddb_error *err)
{
    const ddb_entity_desc *e = s->e;
    const ddb_key_desc *k = &e->keys[0];
    ddb_item *first = pg->items[i];
    const ddb_value *sk = ddb_item_get(first, k->sk_attr);
    size_t base = shard_base(e, sk);
    if (!base)
        return ddbi_fail(err, DDB_ECORRUPT, "%s: item %s = %s%s is not a shard item", e->name, k->sk_attr,
                         sk && sk->type == DDB_TS ? sk->u.s : "", sk && sk->type == DDB_TS ? "" : "(not a string)");
    *j = i + 1;
    while (*j < pg->count && same_item(e, first, pg->items[*j], base))
        (*j)++;
    if (*j - i == e->n_shards)
        return decode(r, s, &pg->items[i], *j - i, err);
    int rc;
    if (*j == pg->count && pg->last_key && (rc = past_item(e, first, r->o->backward, r->a, (ddb_item **)&r->last_key, err)))
        return rc;
    return complete(r, s, &pg->items[i], *j - i, needed(r, s), err);
}

/* A sharded entity's index entry: one shard item; the other shards its
 * projection needs from the table. */
static int take_index_shard(ddbi_ent_reader *r, ddbi_ent_sink *s, ddb_item *it, ddb_error *err)
{
    if (r->index_partial && !r->o->fetch_base)
        return decode(r, s, &it, 1, err);
    if (r->o->count_only) {
        s->count++;
        return DDB_OK;
    }
    if (!r->index_partial)
        return complete(r, s, &it, 1, needed(r, s), err);
    /* fetch_base: the entry holds part of its shard item: read the shards whole */
    ddb_item *key = NULL;
    int shard;
    int rc = ddbi_ent_shard_of(s->e, it, r->a, &shard, &key, err);
    if (rc)
        return rc;
    if (shard < 0)
        return ddbi_fail(err, DDB_ECORRUPT, "%s: an index entry is not a shard item", s->e->name);
    ddb_page pg;
    ddbi_ent_ask ask;
    if (!(rc = ddbi_ent_ask_init(&ask, r->db, s->e, s, 1, NULL, &projection_only, false, r->a, err)))
        rc = ddbi_ent_read_some_shards(r->db, s->e, key, needed(r, s), ask.projection, r->a, r->o->consistent,
                                       r->o->return_capacity, &pg, err);
    ddbi_ent_ask_done(&ask);
    if (rc)
        return rc;
    ddbi_ent_cap_merge(&r->cap, &pg.capacity);
    return pg.count ? decode(r, s, pg.items, pg.count, err) : DDB_OK;
}

/* An unsharded entity's entry of a KEYS_ONLY / INCLUDE index, read whole
 * from the table (fetch_base); skipped when deleted since. */
static int take_fetched(ddbi_ent_reader *r, ddbi_ent_sink *s, ddb_item *it, ddb_error *err)
{
    ddb_item *key = NULL, *full = NULL;
    int rc = table_key(s->e, it, r->a, &key, err);
    if (rc)
        return rc;
    ddb_capacity c;
    ddb_get_opts go = {.consistent = r->o->consistent, .return_capacity = r->o->return_capacity};
    rc = ddb_get_item(r->db, s->e->table->def.name, key, &go, r->a, &full, &c, err);
    ddbi_ent_cap_merge(&r->cap, &c);
    if (rc == DDB_ENOTFOUND)
        return DDB_OK;
    return rc ? rc : decode(r, s, &full, 1, err);
}

/* Log the entities sink m gained past its first `before` (the order read). */
static int log_order(ddbi_ent_reader *r, uint16_t m, size_t before, ddb_error *err)
{
    const ddbi_ent_sink *s = &r->sinks[m];
    if (r->o->count_only || s->count <= before)
        return DDB_OK;
    size_t need = r->n_order + (s->count - before);
    if (need > r->order_cap) {
        size_t cap = need > 2 * r->order_cap ? need : 2 * r->order_cap;
        ddb_ent_order *o = ddb_arena_alloc(r->a, cap * sizeof *o);
        if (!o)
            return ddbi_fail_oom(err, __func__);
        if (r->n_order)
            memcpy(o, r->order, r->n_order * sizeof *o);
        r->order = o;
        r->order_cap = cap;
    }
    for (size_t k = before; k < s->count; k++)
        r->order[r->n_order++] = (ddb_ent_order){.member = m, .index = (uint32_t)k};
    return DDB_OK;
}

/* Entities in the sinks so far. */
static size_t entities(const ddbi_ent_reader *r)
{
    size_t n = 0;
    for (uint16_t m = 0; m < r->n; m++)
        n += r->sinks[m].count;
    return n;
}

/* The page ends after entry i of pg (the last one taken): the cursor is
 * that entry's table key, so the next page starts right after it. */
static int cut_after(ddbi_ent_reader *r, const ddb_page *pg, const ddbi_rec *recs, size_t i, ddb_error *err)
{
    const ddb_entity_desc *e = r->sinks[0].e;
    ddb_item *it = pg->items[i];
    int rc = recs && recs[i].p ? ddbi_ent_record_item(e, &recs[i], r->a, &it, err) : DDB_OK;
    ddb_item *key = NULL;
    if (!rc && (rc = table_key(e, it, r->a, &key, err)) == DDB_OK)
        r->last_key = key;
    return rc;
}

/* What a page read tells besides its entries: how many were scanned,
 * where the next page starts, the capacity. */
static void page_read(ddbi_ent_reader *r, const ddb_page *pg)
{
    r->scanned += pg->scanned_count;
    r->last_key = pg->last_key;
    ddbi_ent_cap_merge(&r->cap, &pg->capacity);
}

/* The entries of pg into the sinks; recs (NULL: none) holds the entries
 * that come as records, which only plain entries do (records_fit). */
static int take_entries(ddbi_ent_reader *r, const ddb_page *pg, const ddbi_rec *recs, ddb_error *err)
{
    page_read(r, pg);
    /* room: at most one struct per item of the page, per type */
    size_t want[DDBI_ENT_MAX_SINKS] = {0};
    uint8_t *which = ddb_arena_alloc(r->a, pg->count + 1); /* 1 + the sink of each item; 0 = none */
    if (!which)
        return ddbi_fail_oom(err, __func__);
    /* one entity, not only counting: a record's type is checked as it is
     * decoded, in the same walk */
    bool late_type = r->n == 1 && !r->o->count_only;
    for (size_t i = 0; i < pg->count; i++) {
        ddbi_ent_sink *s = NULL;
        int rc = recs && recs[i].p ? (late_type ? (s = r->sinks, DDB_OK) : sink_of_rec(r, &recs[i], &s, err))
                                   : (s = sink_of(r, pg->items[i]), DDB_OK);
        if (rc)
            return rc;
        which[i] = s ? (uint8_t)(1 + (s - r->sinks)) : 0;
        if (s)
            want[s - r->sinks]++;
    }
    for (uint16_t m = 0; m < r->n && !r->o->count_only; m++) {
        ddbi_ent_sink *s = &r->sinks[m];
        size_t need = s->count + want[m];
        if (need <= s->cap)
            continue;
        char *items = ddb_arena_alloc(r->a, need * s->e->st->size + 1);
        ddb_ent_mask *masks = ddb_arena_alloc(r->a, need * sizeof *masks + 1);
        if (!items || !masks)
            return ddbi_fail_oom(err, __func__);
        if (s->count) {
            memcpy(items, s->items, s->count * s->e->st->size);
            memcpy(masks, s->masks, s->count * sizeof *masks);
        }
        s->items = items;
        s->masks = masks;
        s->cap = need;
    }
    int rc = DDB_OK;
    for (size_t i = 0; i < pg->count && !rc; i++) {
        if (!which[i])
            continue; /* another entity in the same partition */
        if (r->max_entities && i && entities(r) >= r->max_entities)
            return cut_after(r, pg, recs, i - 1, err); /* a full page: the rest is the next page's */
        ddbi_ent_sink *s = &r->sinks[which[i] - 1];
        size_t before = s->count;
        if (recs && recs[i].p)
            rc = decode_rec(r, s, &recs[i], late_type, err);
        else if (s->e->n_shards && !r->index) {
            size_t j = i + 1;
            rc = take_group(r, s, pg, i, &j, err);
            i = j - 1;
        } else if (s->e->n_shards)
            rc = take_index_shard(r, s, pg->items[i], err);
        else if (r->index_partial && r->o->fetch_base && !r->o->count_only)
            rc = take_fetched(r, s, pg->items[i], err);
        else
            rc = decode(r, s, &pg->items[i], 1, err);
        if (!rc)
            rc = log_order(r, (uint16_t)(which[i] - 1), before, err);
    }
    return rc;
}

int ddbi_ent_reader_take(ddbi_ent_reader *r, const ddb_page *pg, ddb_error *err)
{
    return take_entries(r, pg, NULL, err);
}

/* Can every entry be decoded as it is (no shard groups, no index entries
 * completed from the table or read back through key templates)? */
static bool records_fit(const ddbi_ent_reader *r)
{
    for (uint16_t i = 0; i < r->n; i++)
        if (r->sinks[i].e->n_shards)
            return false;
    return !r->index_partial;
}

int ddbi_ent_reader_take_recs(ddbi_ent_reader *r, ddbi_rec_page *rp, ddb_error *err)
{
    if (rp->recs && !records_fit(r)) {
        /* the paths that work on items: the records of a sharded member's
         * shard items (all of them on a partial index) decoded into items;
         * the other members' stay records */
        for (size_t i = 0; i < rp->page.count; i++) {
            ddbi_ent_sink *s = NULL;
            int rc = rp->recs[i].p && r->n && !r->index_partial ? sink_of_rec(r, &rp->recs[i], &s, err) : DDB_OK;
            if (!rc && rp->recs[i].p && r->n && (r->index_partial || (s && s->e->n_shards))) {
                rc = ddbi_ent_record_item(r->sinks[0].e, &rp->recs[i], r->a, &rp->page.items[i], err);
                rp->recs[i] = (ddbi_rec){NULL, 0, false};
            }
            if (rc)
                return rc;
        }
    }
    return take_entries(r, &rp->page, rp->recs, err);
}

/* Room for one more struct in s (the visitor's sinks grow as entries
 * come): at first for the page size, or as many as 32 KB hold (at least
 * 16), so that a page of small structs is not copied as it grows. */
static int room_for_one(ddbi_ent_reader *r, ddbi_ent_sink *s, ddb_error *err)
{
    if (s->count < s->cap)
        return DDB_OK;
    size_t size = s->e->st->size, first = 32768 / (size ? size : 1);
    if (first < 16)
        first = 16;
    if (r->o->page_size && r->o->page_size < first)
        first = r->o->page_size;
    size_t cap = s->cap ? s->cap * 2 : first;
    char *items = ddb_arena_alloc(r->a, cap * size + 1);
    ddb_ent_mask *masks = ddb_arena_alloc(r->a, cap * sizeof *masks + 1);
    if (!items || !masks)
        return ddbi_fail_oom(err, __func__);
    if (s->count) {
        memcpy(items, s->items, s->count * size);
        memcpy(masks, s->masks, s->count * sizeof *masks);
    }
    s->items = items;
    s->masks = masks;
    s->cap = cap;
    return DDB_OK;
}

/* The visitor of a one-entity read (visits_fit): each entry decoded into
 * the sink's next struct as the backend hands it over, a record straight
 * from the backend's memory (its type checked in the same walk), an item as
 * take_entries decodes it. */
static int visit_entry(void *ctx, const ddbi_rec *rec, ddb_item *it, ddb_error *err)
{
    ddbi_ent_reader *r = ctx;
    ddbi_ent_sink *s = r->sinks;
    int rc = room_for_one(r, s, err);
    if (rc)
        return rc;
    if (rec)
        return decode_rec(r, s, rec, true, err);
    return sink_of(r, it) ? decode(r, s, &it, 1, err) : DDB_OK; /* else another entity in the partition */
}

/* Can the entries of r's reads go to visit_entry: one entity, decoded
 * whole as they come (no shard groups, no partial index, no count, no
 * bound on the entities of a page)? */
static bool visits_fit(const ddbi_ent_reader *r)
{
    return r->n == 1 && records_fit(r) && !r->o->count_only && !r->max_entities;
}

int ddbi_ent_reader_run(ddbi_ent_reader *r, const ddb_entity_desc *e, bool type_filter, ddb_query_params *qp,
                        ddb_scan_params *sp, bool all_pages, ddb_error *err)
{
    /* a scan that hands over records leaves the type to the decoder (which
     * drops other entities' records in the same walk) instead of decoding
     * every item for the filter; Limit, ScannedCount and the capacity
     * do not depend on a filter */
    if (type_filter && !qp && ddbi_scans_records(r->db) && records_fit(r) && !r->projected &&
        !(r->o->filter && r->o->filter[0]))
        type_filter = false;
    /* an index without the type attribute: its entries are told by their
     * key templates (sink_of), a filter on the type would drop them all */
    if (type_filter && r->index && !index_has_type(e, r->index))
        type_filter = false;
    ddbi_ent_ask ask;
    int rc = ddbi_ent_ask_init(&ask, r->db, e, r->sinks, r->n, r->index, r->o, type_filter, r->a, err);
    if (!rc && qp) {
        qp->projection = ask.projection;
        qp->filter = ask.filter;
        /* a key condition's values (a key of fields) go with the filter's */
        if (!qp->values || !ask.values)
            qp->values = qp->values ? qp->values : ask.values;
        else
            rc = ddbi_ent_values_merge(r->a, qp->values, ask.values, &qp->values, err);
    } else if (!rc) {
        sp->projection = ask.projection;
        sp->filter = ask.filter;
        sp->values = ask.values;
    }
    /* a query of one entity: decoded inside the backend's read, no record copied */
    ddbi_rec_visitor visit = {visit_entry, r};
    bool visiting = qp && visits_fit(r);
    while (!rc) {
        ddbi_rec_page rp; /* filled by the read (not zeroed here: its capacity is large) */
        rp.recs = NULL;
        if (visiting) {
            if (!(rc = ddbi_query_records(r->db, qp, r->a, &visit, &rp, err)))
                page_read(r, &rp.page);
        } else {
            rc = qp ? ddbi_query_records(r->db, qp, r->a, NULL, &rp, err) : ddbi_scan_records(r->db, sp, r->a, &rp, err);
            if (!rc)
                rc = ddbi_ent_reader_take_recs(r, &rp, err);
        }
        if (!all_pages || !r->last_key)
            break;
        if (qp)
            qp->start_key = r->last_key;
        else
            sp->start_key = r->last_key;
    }
    ddbi_ent_ask_done(&ask);
    return rc;
}

void ddbi_ent_reader_finish(ddbi_ent_reader *r)
{
    if (r->o->capacity)
        ddbi_ent_cap_copy(r->o->capacity, &r->cap);
}
