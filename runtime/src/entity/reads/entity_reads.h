/* entity/reads/: typed reads (internal; room header of the typed layer that generated modules call
 * through <ddb/entity.h>, table-driven by entity descriptors).  It holds gets, queries by access
 * pattern, scans, collection pages, batch-free reads of shard items, stored records decoded
 * straight into structs, key attributes parsed back into fields, scatter-gather over write shards,
 * stream records into structs.  It may call what entity/core/ may call, and entity/core/; never
 * engine/, streams/ or remote/: both backends are reached through the ddb_* functions only.
 *
 * Files, one subject each:
 *   entity_collection.c     collection pages, their iterator, table scans grouped by type
 *   entity_get_by_key.c     ddb_ent_get: one entity by its primary key, shards merged
 *   entity_keyparse.c       key attributes parsed back into the fields they were rendered from
 *   entity_page_decode.c    pages of items into entity structs (types, shard groups, index entries)
 *   entity_plan.c           a descriptor's read plan (names in stored order), built once
 *   entity_project.c        field masks as projections; filters with their names and values
 *   entity_query_page.c     query pages (the ddb_ent_query interface, on top of entity_typed_reads.c)
 *   entity_record_decode.c  stored record -> struct (typed reads, no ddb_item between)
 *   entity_scatter.c        scatter-gather reads over write shards
 *   entity_skcond.c         sort-key conditions by level of the key template
 *   entity_fieldkey.c       keys of fields (multi-attribute GSI keys): key conditions over the attributes
 *   entity_stream.c         stream records decoded into entity structs
 *   entity_typed_reads.c    typed reads: query by access pattern, scan, get with read options
 */
#ifndef DDB_ENTITY_READS_H
#define DDB_ENTITY_READS_H

#include "entity/core/entity_core.h"

/* ---- entity_keyparse.c ---- */

/* Parse key value v (its first len bytes: without a shard suffix), rendered
 * from t, back into the fields of obj whose bit mask does not have, and set
 * their bits (entity_keyparse.c): plain string, number and bool holes whose
 * text is placed by the template's literals or the fixed width of date
 * parts and reads back unchanged; a field seen only as date parts when
 * they determine it (char[N] of "YYYY", "YYYY-MM", "YYYY-MM-DD"); case
 * filters ({s|upper}) and nested paths are skipped. */
void ddbi_ent_parse_key(const ddb_entity_desc *e, const ddb_template *t, const ddb_value *v, size_t len, void *obj,
                        ddb_arena *a, ddb_ent_mask *mask);
/* The same over every key attribute item it holds of e's keys (an index
 * entry: the table's keys and the index's), date parts collected across
 * them. */
void ddbi_ent_fields_from_keys(const ddb_entity_desc *e, const ddb_item *it, void *obj, ddb_arena *a,
                               ddb_ent_mask *mask);

/* ---- entity_get_by_key.c ---- */

/* The stored entity with obj's key (consistent), NULL when absent; in a. */
int ddbi_ent_read_old(ddb *db, const ddb_entity_desc *e, const void *key, ddb_arena *a, void **old, ddb_error *err);

/* ---- entity_fieldkey.c ---- */

/* Keys of fields (ddb_key_desc.by_fields): the KeyConditionExpression of
 * kc into x (names #nK, values :vK of x's counter: start it at
 * DDBI_ENT_KEY_VALUES_BASE, past the filter's); does item it carry every
 * key attribute of kd (is it in that index)? */
#define DDBI_ENT_KEY_VALUES_BASE 1000
int ddbi_ent_fields_key_condition(const ddb_entity_desc *e, const ddb_ent_key_cond *kc, ddbi_exprb *x,
                                  ddb_error *err);
bool ddbi_ent_fields_present(const ddb_entity_desc *e, const ddb_key_desc *kd, const ddb_item *it);
/* A new map (in a) holding the entries of x and y: DDB_EINVAL when both
 * bind one placeholder. */
int ddbi_ent_values_merge(ddb_arena *a, const ddb_item *x, const ddb_item *y, const ddb_item **out, ddb_error *err);

/* ---- entity_skcond.c ---- */

/* Query's sort-key condition (sk_op, sk1, sk2) of kc on e->keys[kc->key]. */
int ddbi_ent_sk_condition(const ddb_entity_desc *e, const ddb_ent_key_cond *kc, ddb_arena *a, ddb_query_params *qp,
                          ddb_error *err);
/* The segment index of the nth (1-based) hole of t; DDB_EVALIDATION when t has fewer. */
int ddbi_ent_level_of_hole(const ddb_template *t, uint16_t nth, uint16_t *level);

/* What a read asks for besides its key condition: a projection (o->fields,
 * or only the keys for count_only), the filter (o's, and with type_filter
 * the type attribute equal to e's name). */
typedef struct ddbi_ent_ask {
    const ddb_expr *projection, *filter;
    const ddb_item *values;
    ddbi_exprb xp, xf;
} ddbi_ent_ask;
typedef struct ddbi_ent_sink ddbi_ent_sink;

/* ---- entity_project.c ---- */

/* e: the entity read (its name in messages, its type for type_filter);
 * sinks[0..n): the types kept, each with its projection (sinks[i].fields):
 * a projection is asked for when every one has one (or count_only). */
int ddbi_ent_ask_init(ddbi_ent_ask *q, ddb *db, const ddb_entity_desc *e, const ddbi_ent_sink *sinks, uint16_t n,
                      const char *index, const ddb_ent_read_opts *o, bool type_filter, ddb_arena *a, ddb_error *err);
void ddbi_ent_ask_done(ddbi_ent_ask *q);
/* The shards (bit s = shard s) holding the fields of mask fields (NULL =
 * every shard): a key field is on every shard, so a mask of keys only
 * needs one (shard 0). */
uint64_t ddbi_ent_shards_needed(const ddb_entity_desc *e, const ddb_ent_mask *fields);

/* The most entity types one read sorts into (collection members). */
#define DDBI_ENT_MAX_SINKS 64

/* Two counted names in bytewise order (shorter first when one begins the
 * other): stored attribute names' order. */
static inline int ddbi_ent_name_cmp(const char *x, uint32_t xl, const char *y, uint32_t yl)
{
    uint32_t m = xl < yl ? xl : yl;
    for (uint32_t i = 0; i < m; i++)
        if (x[i] != y[i])
            return (unsigned char)x[i] < (unsigned char)y[i] ? -1 : 1;
    return xl < yl ? -1 : xl > yl;
}

/* An entity's read plan (entity_plan.c): built once per descriptor. */
#define DDBI_PLAN_NONE (-1) /* a name with no field (a key attribute) */
#define DDBI_PLAN_TYPE (-2) /* the type attribute */
typedef struct ddbi_ent_plan_at {
    const char *name; /* NUL-terminated too */
    uint32_t len;
    int32_t field; /* its field, DDBI_PLAN_NONE or DDBI_PLAN_TYPE */
    uint64_t head; /* the first 8 bytes of name, zero-padded, in memory order */
    /* the field's, copied here (one load fewer per attribute decoded) */
    const ddb_field_desc *f;
    uint32_t offset, size;
    uint8_t type;
} ddbi_ent_plan_at;
typedef struct ddbi_ent_plan {
    /* what it was built from */
    const ddb_entity_desc *e;
    const ddb_struct_desc *st;
    const ddb_field_desc *fields;
    uint16_t n_fields, n_keys;
    const ddb_schema_table *table;
    const char *type_attr, *name;
    const ddb_key_desc *keys;
    struct ddbi_ent_plan_field {
        const char *attr;
        uint32_t offset, size;
        uint16_t flags;
        uint8_t type;
    } *seen;                /* each field's parts the plan copied */
    const char **key_attrs; /* each key's pk_attr and sk_attr */
    /* what reads use */
    uint32_t name_len;      /* strlen(name) */
    ddb_ent_mask required;  /* the fields an item must carry */
    uint16_t *order;        /* field indexes by attribute name (ddbi_ent_fields_by_order) */
    ddbi_ent_plan_at *at;   /* the names a record of e holds, sorted bytewise, unique */
    uint32_t n_at;
} ddbi_ent_plan;

/* ---- entity_plan.c ---- */

/* e's plan: shared (valid while e is unchanged), or built in a for this
 * call when the shared table has no room for it. */
int ddbi_ent_plan_of(const ddb_entity_desc *e, ddb_arena *a, const ddbi_ent_plan **out, ddb_error *err);
/* ddbi_ent_check_required, with the plan's mask first (one test per word). */
int ddbi_ent_plan_check_required(const ddbi_ent_plan *p, const ddb_ent_mask *mask, ddb_error *err);

/* Where the entities of one type go: an arena array grown page by page. */
typedef struct ddbi_ent_sink {
    const ddb_entity_desc *e;
    const ddb_ent_mask *fields; /* its projection (reader_init, from the options); NULL = all */
    const ddbi_ent_plan *plan; /* e's (reader_init) */
    char *items;
    ddb_ent_mask *masks;
    size_t count, cap;
} ddbi_ent_sink;

typedef struct ddbi_ent_reader {
    ddb *db;
    ddb_arena *a;
    const ddb_ent_read_opts *o;
    const char *index;        /* the index read; NULL = the table */
    bool index_partial;       /* it projects less than ALL */
    bool projected;           /* items may lack required fields (projection, count, partial index) */
    ddbi_ent_sink *sinks;
    uint16_t n;
    ddb_capacity cap;
    size_t scanned;
    const ddb_item *last_key; /* where the next page starts; NULL = done */
    /* The most entities one page may hold (0: no bound).  A read whose
     * Limit counts more physical items than page_size entities need (a
     * collection or table scan with a sharded member) stops at this many
     * and places the cursor after the last item it took. */
    uint32_t max_entities;
    /* The entities taken, in the order read (count_only: none). */
    ddb_ent_order *order;
    size_t n_order, order_cap;
} ddbi_ent_reader;

/* ---- entity_page_decode.c ---- */

/* o, or the zero options for NULL; o->capacity zeroed. */
const ddb_ent_read_opts *ddbi_ent_opts_begin(const ddb_ent_read_opts *o);
int ddbi_ent_reader_init(ddbi_ent_reader *r, ddb *db, ddb_arena *a, const ddb_ent_read_opts *o, const char *index,
                         ddbi_ent_sink *sinks, uint16_t n, ddb_error *err);
/* Record rec of sink s's entity (an unsharded item of a table or an ALL
 * index) into slot (zeroed) and mask (zeroed): its fields, the required
 * ones checked unless r reads a projection; other (may be NULL): as
 * ddbi_ent_fields_from_record (nothing checked when another's). */
int ddbi_ent_decode_record(const ddbi_ent_reader *r, const ddbi_ent_sink *s, const ddbi_rec *rec, void *slot,
                           ddb_ent_mask *mask, bool *other, ddb_error *err);
/* Sort the items of pg into the sinks (see entity_page_decode.c). */
int ddbi_ent_reader_take(ddbi_ent_reader *r, const ddb_page *pg, ddb_error *err);
/* The same with entries that may come as records (api/records.h). */
int ddbi_ent_reader_take_recs(ddbi_ent_reader *r, ddbi_rec_page *rp, ddb_error *err);
/* Ask for r's read of e (projection, filter: see ddbi_ent_ask_init) with
 * Query qp, or else Scan sp, and take the page (all_pages: every page). */
int ddbi_ent_reader_run(ddbi_ent_reader *r, const ddb_entity_desc *e, bool type_filter, ddb_query_params *qp,
                        ddb_scan_params *sp, bool all_pages, ddb_error *err);
/* Hand the summed capacity to o->capacity. */
void ddbi_ent_reader_finish(ddbi_ent_reader *r);

/* ---- entity_record_decode.c ---- */

/* The fields of record rec into obj (not zeroed first): its attributes
 * are matched in one walk with the names of p (e's plan; stored names are
 * sorted too); mask gains the fields set.  Strings are copied into a,
 * bytes point into rec (which must live in a).  other (may be NULL): check
 * the type attribute in the same walk; *other = true when rec is not e's
 * (obj is then half-filled, to be dropped).  DDB_ECORRUPT when the record
 * is damaged. */
int ddbi_ent_fields_from_record(const ddbi_ent_plan *p, const ddbi_rec *rec, void *obj, ddb_arena *a,
                                ddb_ent_mask *mask, bool *other, ddb_error *err);
/* rec decoded into an item in a (for the paths that work on items). */
int ddbi_ent_record_item(const ddb_entity_desc *e, const ddbi_rec *rec, ddb_arena *a, ddb_item **out,
                         ddb_error *err);
/* The type attribute of rec when it is a string: *name (not
 * NUL-terminated) and *len; NULL when absent or not a string. */
int ddbi_ent_record_type(const ddb_entity_desc *e, const ddbi_rec *rec, const char **name, size_t *len,
                         ddb_error *err);

/* ---- entity_scatter.c ---- */

/* One page of a query of a write-sharded partition: qp (its pk, limit and
 * start key are set here; the sort-key condition is the caller's) sent to
 * every write shard of partition template pt rendered from obj (entity e),
 * the pages merged in the order of sort key attribute sk_attr and taken
 * into r, at most page_size entities of r's sinks (0: whatever the shards
 * returned); *cursor: where the next page resumes every shard (NULL when
 * done), o->cursor where this one does.  all_pages: read to the end. */
int ddbi_ent_scatter_run(ddbi_ent_reader *r, const ddb_entity_desc *e, const ddb_template *pt, const void *obj,
                         const char *sk_attr, ddb_query_params *qp, bool all_pages, const char **cursor,
                         ddb_error *err);
/* ddb_ent_query_pattern on a write-sharded key (o already begun). */
int ddbi_ent_scatter_pattern(ddb *db, const ddb_entity_desc *e, const ddb_ent_key_cond *kc,
                             const ddb_ent_read_opts *o, ddb_arena *a, ddb_ent_result *out, ddb_error *err);

#endif
