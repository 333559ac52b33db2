/* <ddb/entity.h> — the runtime side of ddbgen's generated modules.
 *
 * Generated code is table-driven (after nanopb and protobuf-c): for each
 * entity a `static const ddb_entity_desc` describes the C struct (field
 * offsets and types, stored attribute names), its key templates per index,
 * its shards and derived attributes; the typed wrappers are thin calls to
 * the generic functions below, so behaviour lives (and is tested) once.
 *
 * Memory: everything a read fills into an entity struct (char * strings,
 * bytes, lists, sets) is allocated from the ddb_arena passed to the call and
 * lives until that arena is reset or freed.  Bounded fields (char[N]) are
 * stored inline.  Inputs are never retained.
 *
 * Argument order.  Every function declared here and every function ddbgen
 * generates takes its parameters in this order of kinds (a kind a call
 * does not need is left out):
 *   1. the handle: db, or the transaction, batch or iterator it works on
 *      (a callback: its ctx)
 *   2. what the call acts on: the entity or collection, the keys, object
 *      or objects (and their count), then the call's own parameters (the
 *      fields to write, a sort-key condition, a declared update's values,
 *      a scan segment)
 *   3. the options (ddb_ent_opts, ddb_ent_read_opts, ddb_ent_tx_cond, ...;
 *      NULL = the defaults)
 *   4. the arena whatever the call returns is allocated from
 *   5. the outputs: what the call fills (out, then masks, found, ...)
 *   6. the consumed capacity (ddb_capacity *; NULL = not wanted)
 *   7. err, always last (may be NULL)
 * So a read is (db, key or partition, [condition], opts, arena, out, err)
 * and a write (db, obj, [fields or values], opts, [arena, out,] cap, err).
 * The test examples_argument_order checks it on every generated header.
 */
#ifndef DDB_ENTITY_H
#define DDB_ENTITY_H

#include <ddb/ddb.h>
#include <ddb/schema.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Exported from libddb.so, like every public declaration (see ddb.h). */
#pragma GCC visibility push(default)

/* Version of this ABI; generated code checks it with #error. */
#define DDB_ENTITY_ABI 1

/* C representation of a field. */
typedef enum ddb_ftype {
    DDB_F_CHARS = 1, /* char[N]: S of at most N-1 bytes, always present */
    DDB_F_STRING,    /* char *: S, NULL = absent */
    DDB_F_INT,       /* int8/16/32/64 (size = width): N */
    DDB_F_UINT,      /* uint8/16/32/64, also size_t: N */
    DDB_F_FLOAT,     /* float (size 4) or double (size 8): N */
    DDB_F_BOOL,      /* bool: BOOL */
    DDB_F_BYTES,     /* ddb_bytes: B, data NULL = absent */
    DDB_F_STRUCT,    /* nested struct: M */
    DDB_F_LIST,      /* T *x + size_t x_count: L of elem_type, count 0 = absent */
    DDB_F_SSET,      /* ddb_string_set: SS, count 0 = absent */
    DDB_F_ISET,      /* ddb_int_set: NS */
    DDB_F_DSET,      /* ddb_double_set: NS */
    DDB_F_BSET       /* ddb_bytes_set: BS */
} ddb_ftype;

/* Field flags. */
#define DDB_FIELD_OPTIONAL 0x01u /* may be absent (pointer types; sets; lists) */
#define DDB_FIELD_UUID 0x02u     /* filled with a new UUID by create when empty */
#define DDB_FIELD_AUTO_ID 0x04u  /* filled from an atomic counter by create when 0 */
#define DDB_FIELD_VERSION 0x08u  /* optimistic locking counter */
#define DDB_FIELD_TTL 0x10u      /* epoch seconds; 0 = no expiry (attribute absent) */
#define DDB_FIELD_DERIVED 0x20u  /* stored, computed from `derived` on every write */
#define DDB_FIELD_KEY 0x40u      /* used by the primary key: on every shard */
#define DDB_FIELD_UNIQUE 0x80u   /* unique across the entity: a uniqueness item per value (docs/SCHEMA.md) */
#define DDB_FIELD_CREATED_AT 0x100u /* set from the runtime clock by create; never overwritten */
#define DDB_FIELD_UPDATED_AT 0x200u /* set from the runtime clock by every write */
#define DDB_FIELD_CREATE_ONLY 0x400u /* written by create only: put/upsert/patch keep the stored value */

typedef struct ddb_struct_desc ddb_struct_desc;
typedef struct ddb_template ddb_template;

typedef struct ddb_field_desc {
    const char *name;          /* C member name */
    const char *attr;          /* stored attribute name */
    uint8_t type;              /* ddb_ftype */
    uint8_t elem_type;         /* DDB_F_LIST: element ddb_ftype */
    uint32_t size;             /* C size: char[N] -> N; ints/floats -> width */
    uint32_t elem_size;        /* DDB_F_LIST: element C size */
    uint16_t flags;            /* DDB_FIELD_* */
    uint32_t offset;           /* offsetof the member */
    uint32_t count_offset;     /* DDB_F_LIST: offsetof the size_t count */
    const ddb_struct_desc *sub; /* DDB_F_STRUCT, or DDB_F_LIST of structs */
    const ddb_template *derived; /* DDB_FIELD_DERIVED */
    int16_t shard;             /* index into the entity's shards; -1 = none */
    /* DDB_DEFAULT: the value create stores when the field is unset (0, "",
     * NULL), as text: a number for numeric fields, "true"/"false", else the
     * string itself.  NULL = no default. */
    const char *dflt;
} ddb_field_desc;

/* ---- Field masks ----------------------------------------------------------- */

/* A set of an entity's top-level fields: bit i = e->st->fields[i].  Typed
 * reads take one as a projection and return one per item (the fields the
 * stored data set); partial updates name the fields they write with one.
 * Generated code names each field's index (<ENTITY>_F_<FIELD>, e.g.
 * DEVICE_F_BATTERY_PCT) and builds masks with
 * DDB_FIELDS(DEVICE_F_BATTERY_PCT, DEVICE_F_LAST_SEEN): a misspelt field is
 * a compile error.  An entity has at most DDB_ENT_MAX_FIELDS fields (ddbgen
 * refuses more; the runtime answers DDB_ELIMIT). */
#define DDB_ENT_MASK_WORDS 4
#define DDB_ENT_MAX_FIELDS (DDB_ENT_MASK_WORDS * 64)
typedef struct ddb_ent_mask {
    uint64_t w[DDB_ENT_MASK_WORDS];
} ddb_ent_mask;

static inline void ddb_ent_mask_set(ddb_ent_mask *m, unsigned field)
{
    if (field < DDB_ENT_MAX_FIELDS)
        m->w[field / 64] |= (uint64_t)1 << (field % 64);
}
static inline bool ddb_ent_mask_has(const ddb_ent_mask *m, unsigned field)
{
    return field < DDB_ENT_MAX_FIELDS && (m->w[field / 64] >> (field % 64) & 1u);
}

/* The mask of the field indexes idx[0..n) (indexes past the limit are
 * ignored); DDB_FIELDS(...) calls it with a list of <ENTITY>_F_* constants. */
ddb_ent_mask ddb_ent_mask_of(const uint16_t *idx, size_t n);
#define DDB_FIELDS(...)                                                                            \
    ddb_ent_mask_of((const uint16_t[]){__VA_ARGS__},                                               \
                    sizeof((const uint16_t[]){__VA_ARGS__}) / sizeof(uint16_t))

struct ddb_struct_desc {
    const char *name; /* C struct tag */
    uint32_t size;    /* sizeof */
    uint16_t n_fields;
    const ddb_field_desc *fields;
};

/* Template segment filters. */
enum { DDB_TP_NONE = 0, DDB_TP_YEAR, DDB_TP_MONTH, DDB_TP_DAY, DDB_TP_QUARTER };
enum { DDB_TC_NONE = 0, DDB_TC_LOWER, DDB_TC_UPPER };

/* One segment: literal text, or a hole naming a field by its index path
 * (path[0] indexes the entity's fields, path[1] the nested struct's ...). */
typedef struct ddb_tseg {
    const char *lit;       /* literal, or NULL for a hole */
    const uint16_t *path;
    uint8_t path_len;
    uint8_t pad;           /* {f:0N}: N */
    uint8_t part;          /* DDB_TP_* */
    uint8_t kase;          /* DDB_TC_* */
} ddb_tseg;

/* How a write-sharded partition key picks its shard. */
enum { DDB_WS_HASH = 1, DDB_WS_RANDOM };

/* The most write shards one key may have (DDB_WRITE_SHARDS). */
#define DDB_ENT_MAX_WRITE_SHARDS 64

/* Write sharding of a key's partition (DDB_WRITE_SHARDS; the entity's
 * write_shards): the rendered partition key gets the suffix "." + a shard
 * number 0..count-1, from a hash of the item's primary key (hash_pk,
 * hash_sk: the primary key's templates, hash_sk NULL without a sort key)
 * or at random.  A query of the key reads every shard and merges them
 * (scatter-gather). */
typedef struct ddb_write_shards {
    uint16_t count;
    uint8_t by;  /* DDB_WS_HASH, DDB_WS_RANDOM */
    const ddb_template *hash_pk, *hash_sk;
} ddb_write_shards;

struct ddb_template {
    const ddb_tseg *segs;
    uint16_t n;
    uint8_t type; /* DDB_TS, or DDB_TN: a number (one numeric field, or text that is a number) */
};

/* An entity's key on one index. */
typedef struct ddb_key_desc {
    const char *index;   /* NULL = the table's primary key */
    const char *pk_attr; /* key attribute names on that index */
    const char *sk_attr; /* NULL when the index has no sort key */
    ddb_template pk, sk;
    int16_t shard;       /* sharded entity, secondary index: the shard item carrying this key */
    /* A global secondary index keyed on the entity's own fields
     * (DDB_KEY_FIELDS, DynamoDB's multi-attribute keys): pk and sk are one
     * hole per field, in declared order, and name the key attributes (the
     * fields' own); pk_attr and sk_attr are the first ones.  Nothing is
     * rendered on a write (the fields are stored anyway), and a query is a
     * KeyConditionExpression over the attributes. */
    bool by_fields;
} ddb_key_desc;

typedef struct ddb_schema_table {
    const char *cname;     /* C name used in identifiers */
    const char *type_attr; /* "Type" */
    ddb_table_def def;     /* name, key schema, indexes: for create_table */
} ddb_schema_table;

/* The most shards one entity may have: ddbgen refuses more (a located schema
 * error) and every runtime path checks n_shards against it. */
#define DDB_ENT_MAX_SHARDS 64

typedef struct ddb_entity_desc {
    const char *name;                /* value of the type attribute */
    const ddb_schema_table *table;
    const ddb_struct_desc *st;
    uint16_t n_keys;
    const ddb_key_desc *keys;        /* keys[0] is the primary key */
    uint16_t n_shards;
    const char *const *shards;       /* shard ids, e.g. "A", "B" */
    const char *shard_suffix;        /* between SK and shard id; "#" */
    const ddb_template *auto_id_scope; /* counter scope for DDB_FIELD_AUTO_ID */
    /* DDB_WRITE_SHARDS: per key (n_keys entries, like keys), the write shards
     * of its partition key or NULL; NULL = no key is write-sharded. */
    const ddb_write_shards *const *write_shards;
} ddb_entity_desc;

/* ---- Marshalling ------------------------------------------------------- */

/* The item of an unsharded entity with the type attribute, every index key
 * whose fields are present (sparse indexes), derived attributes.
 * DDB_EVALIDATION naming the field when a value does not fit (a char[N] not
 * NUL-terminated, NaN, a duplicated set member...).  A sharded entity is
 * DDB_EINVAL (a merged item written back would corrupt it): use
 * ddb_ent_to_items. */
int ddb_ent_to_item(const ddb_entity_desc *e, const void *obj, ddb_arena *a, ddb_item **out, ddb_error *err);
/* The physical items of obj: one per shard (each with the entity's key, its
 * shard sort key and the fields of that shard), or the one item of an
 * unsharded entity.  out has room for cap items; *out_n receives the count
 * (DDB_ELIMIT when cap is too small). */
int ddb_ent_to_items(const ddb_entity_desc *e, const void *obj, ddb_arena *a, ddb_item **out, size_t cap,
                     size_t *out_n, ddb_error *err);
/* Fill out (zeroed first) from an item of this entity.  DDB_EVALIDATION when
 * the item's type attribute names another entity, a required attribute is
 * missing, a string is longer than its field, a number does not fit its C
 * type.  Variable-size data is allocated from a. */
int ddb_ent_from_item(const ddb_entity_desc *e, const ddb_item *item, ddb_arena *a, void *out, ddb_error *err);
/* Render template t with obj's fields.  *out is NULL (and DDB_OK returned)
 * when a referenced optional field is absent. */
int ddb_ent_render(const ddb_entity_desc *e, const ddb_template *t, const void *obj, ddb_arena *a, ddb_value **out,
                   ddb_error *err);

/* Copy src into the char[cap] field dst: DDB_EVALIDATION naming field when
 * it does not fit (never truncated), DDB_EINVAL when src is NULL. */
int ddb_ent_set_chars(char *dst, size_t cap, const char *src, const char *field, ddb_error *err);

/* ---- Operations --------------------------------------------------------- */

/* An expression handed to an entity operation: DynamoDB expression text
 * over STORED attribute names (ddbgen maps C field names), with its own
 * #names and :values.  The placeholders #n<digits> and :v<digits> are the
 * runtime's own and may not be used. */
typedef struct ddb_ent_expr {
    const char *text;
    const ddb_item *names;   /* "#x" -> S attribute name; NULL = none */
    const ddb_item *values;  /* ":x" -> value; NULL = none */
    int16_t shard;           /* sharded entity: the shard item it applies to (0 = first) */
} ddb_ent_expr;

typedef struct ddb_ent_opts {
    ddb_return_capacity return_capacity;
    bool consistent;       /* reads */
    /* ---- writes (issue 13) ---- */
    /* A condition ANDed with the operation's own (existence, version). */
    const ddb_ent_expr *condition;
    /* When a condition or version check fails (DDB_ECONDITION): the stored
     * item decoded into *current (a struct of the entity, zeroed first;
     * ReturnValuesOnConditionCheckFailure ALL_OLD on both backends), and
     * *current_found says whether there was one.  Its variable-size data is
     * allocated from current_arena (required with current).  A sharded
     * entity returns the shard item the failed condition read (partial). */
    void *current;
    bool *current_found;
    ddb_arena *current_arena;
    /* ddb_ent_tx_commit: the transaction's ClientRequestToken (see
     * ddb_tx_opts); NULL = none. */
    const char *client_request_token;
} ddb_ent_opts;

/* Create or replace (all shards in one transaction).  With a version field:
 * the write is conditional on the stored version equal to obj's, and the
 * stored version becomes obj's + 1 (written back into obj). */
int ddb_ent_put(ddb *db, const ddb_entity_desc *e, void *obj, const ddb_ent_opts *o, ddb_capacity *cap,
                ddb_error *err);
/* Like put but fails with DDB_ECONDITION when the item exists.  Fills
 * DDB_FIELD_UUID fields that are empty and DDB_FIELD_AUTO_ID fields that are
 * 0 (written back into obj). */
int ddb_ent_create(ddb *db, const ddb_entity_desc *e, void *obj, const ddb_ent_opts *o, ddb_capacity *cap,
                   ddb_error *err);
/* Read by primary key: key fields are taken from `key` (an entity struct
 * with at least the key fields set); out receives the item.  DDB_ENOTFOUND
 * when absent.  key and out may be the same object. */
int ddb_ent_get(ddb *db, const ddb_entity_desc *e, const void *key, const ddb_ent_opts *o, ddb_arena *a, void *out,
                ddb_capacity *cap, ddb_error *err);
/* Delete by primary key (every shard). */
int ddb_ent_delete(ddb *db, const ddb_entity_desc *e, const void *key, const ddb_ent_opts *o, ddb_capacity *cap,
                   ddb_error *err);
/* Partial update: write only the named fields (C names) of obj, plus the
 * derived attributes and index keys that depend on them; for a sharded
 * entity only the shards holding them are written.  DDB_ENOTFOUND when the
 * item does not exist. */
int ddb_ent_update_fields(ddb *db, const ddb_entity_desc *e, void *obj, const char *const *fields, size_t n_fields,
                          const ddb_ent_opts *o, ddb_capacity *cap, ddb_error *err);

/* ---- Writes with declared semantics (issue 13; docs/SCHEMA.md) ---------- */

/* update-fields with a mask (DDB_FIELDS(...)): as ddb_ent_update_fields. */
int ddb_ent_update_mask(ddb *db, const ddb_entity_desc *e, void *obj, const ddb_ent_mask *fields,
                        const ddb_ent_opts *o, ddb_capacity *cap, ddb_error *err);
/* patch: update every writable field of an EXISTING item (DDB_ENOTFOUND when
 * absent): UpdateItem "SET <each field> = :v ..., <updated_at> = :now
 * REMOVE <absent optional fields>" with ConditionExpression
 * "attribute_exists(<pk>) [AND <version> = :expected]"; keys, created-at
 * and create-only fields are not sent. */
int ddb_ent_patch(ddb *db, const ddb_entity_desc *e, void *obj, const ddb_ent_opts *o, ddb_capacity *cap,
                  ddb_error *err);
/* upsert: create or update without touching create-only fields: UpdateItem
 * "SET <each field> = :v, <created_at> = if_not_exists(<created_at>, :now),
 * <create-only/default field> = if_not_exists(<attr>, :v) ..." (fields
 * obj leaves unset are not touched; nothing is removed) with no existence
 * condition.  With a version field the version's shard item is guarded as
 * by put: obj's version 0 = "attribute_not_exists(<pk>)" (create only),
 * N = "<version> = :N". */
int ddb_ent_upsert(ddb *db, const ddb_entity_desc *e, void *obj, const ddb_ent_opts *o, ddb_capacity *cap,
                   ddb_error *err);

/* A declared update (DDB_UPDATE): UpdateExpression text over stored names.
 * The runtime appends ", <updated_at> = :now" and the version bump, and
 * ANDs "attribute_exists(<pk>)" (unless upsert) and opts->condition. */
typedef struct ddb_ent_update_expr {
    ddb_ent_expr expr;       /* expr.shard: the shard item it updates */
    bool upsert;             /* true: create the item when absent */
} ddb_ent_update_expr;
/* Apply n updates (one per shard item touched; one transaction when n > 1)
 * to the item with key's primary key.  out (may be NULL, else a struct of e)
 * receives the item after the update with its data in a: the UpdateItem's
 * ALL_NEW, or for a sharded entity the whole item read back right after
 * with a consistent get (every shard item; its read capacity counted).  DDB_ENOTFOUND when the item
 * does not exist; DDB_ECONDITION when opts->condition or the version fails. */
int ddb_ent_update(ddb *db, const ddb_entity_desc *e, const void *key, const ddb_ent_update_expr *u, size_t n,
                   const ddb_ent_opts *o, ddb_arena *a, void *out, ddb_capacity *cap, ddb_error *err);

/* Delete n entities by key (structs with the key fields) with
 * BatchWriteItem, 25 items a request, unprocessed items retried; every
 * shard item of a sharded entity.  Entities with unique fields are refused
 * (their uniqueness items need a transaction), as are those whose writes
 * need a condition (put: a version) or keep stored fields (put: created-at,
 * create-only). */
int ddb_ent_batch_delete(ddb *db, const ddb_entity_desc *e, const void *keys, size_t n, const ddb_ent_opts *o,
                         ddb_capacity *cap, ddb_error *err);

/* One batch mixing entities of one table: add puts and deletes of any
 * entities, then ddb_ent_batch_run (25 items a request). */
typedef struct ddb_ent_batch ddb_ent_batch;
ddb_ent_batch *ddb_ent_batch_new(ddb *db, ddb_arena *a, ddb_error *err);
int ddb_ent_batch_add_put(ddb_ent_batch *b, const ddb_entity_desc *e, void *obj, ddb_error *err);
int ddb_ent_batch_add_delete(ddb_ent_batch *b, const ddb_entity_desc *e, const void *key, ddb_error *err);
int ddb_ent_batch_run(ddb_ent_batch *b, const ddb_ent_opts *o, ddb_capacity *cap, ddb_error *err);

/* The runtime clock created-at / updated-at use: ddb_clock_ms(db) (tests
 * set it with ddb_options.clock_ms). */

/* ---- Declared updates (ddbgen's DDB_UPDATE; docs/SCHEMA.md) ---------------- */

/* A :placeholder's value: the value of field `field` of the entity struct at
 * obj (marshalled like that field), or, when field is -1, the int64_t at obj. */
typedef struct ddb_ent_arg {
    const char *name;  /* ":pct" */
    int16_t field;
    const void *obj;
} ddb_ent_arg;

/* One shard item's part of a declared update: the clause bodies (over the
 * update's #names, "" when absent) of the actions on the fields it holds. */
typedef struct ddb_ent_update_part {
    int16_t shard;                        /* the shard item (0 when unsharded) */
    const char *set, *remove, *add, *del;
} ddb_ent_update_part;

/* A declared update as ddbgen checked it: one part per shard item whose
 * fields it changes, its ConditionExpression over the same #names. */
typedef struct ddb_ent_update_desc {
    const char *name;                     /* "charge" */
    const ddb_ent_update_part *parts;
    uint16_t n_parts;
    const char *condition;                /* declared condition, or NULL */
    int16_t cond_shard;                   /* the shard item it reads (0 when unsharded) */
    const char *const *names;             /* "#battery_pct", ... */
    const char *const *attrs;             /* the stored attribute of each */
    uint16_t n_names;
    const uint16_t *known;                /* fields SET to a placeholder: their new values are in obj */
    uint16_t n_known;
} ddb_ent_update_desc;

/* Run declared update u on the item with obj's primary key: its parts
 * lowered to ddb_ent_update_expr (one UpdateItem per shard item; one
 * transaction when more than one) and run as ddb_ent_update, i.e. with
 * updated-at, the version bump and "attribute_exists(<pk>)" added.  Each
 * part also SETs (or REMOVEs) the derived attributes and index keys on its
 * shard item that read the fields in u->known (rendered from obj, which
 * holds the key fields and those fields' new values; a shard item holding
 * only such an attribute is updated too).  u->condition (its values bound
 * from args) is ANDed with opts->condition and checked on its shard item:
 * inside that shard's UpdateItem, or as a ConditionCheck in the same
 * transaction when the update does not write it.  DDB_ENOTFOUND when the
 * item does not exist, DDB_ECONDITION when a condition is false.  out (may
 * be NULL) receives the item after the update as ddb_ent_update says (a
 * sharded entity: the whole item, read back), its variable-size data
 * allocated from a.  Placeholder
 * names ":v<digits>" and "#n<digits>" are the runtime's. */
int ddb_ent_update_declared(ddb *db, const ddb_entity_desc *e, const ddb_ent_update_desc *u, void *obj,
                            const ddb_ent_arg *args, size_t n_args, const ddb_ent_opts *o, ddb_arena *a, void *out,
                            ddb_capacity *cap, ddb_error *err);

/* ---- Declared conditions (ddbgen's DDB_CONDITION; docs/SCHEMA.md) ------------ */

/* A declared condition as ddbgen checked it: ConditionExpression text over
 * #names, each bound to its stored attribute. */
typedef struct ddb_ent_cond_desc {
    const char *name;                     /* "idle" */
    const char *text;                     /* "#battery < :max AND attribute_not_exists(#note)" */
    const char *const *names;             /* "#battery", ... */
    const char *const *attrs;             /* the stored attribute of each */
    uint16_t n_names;
    int16_t shard;                        /* the shard item it reads (0 when unsharded) */
} ddb_ent_cond_desc;

/* Bind c for one call: its names, and its placeholders' values from args (as
 * in ddb_ent_update_declared); also (may be NULL, e.g. the caller's
 * opts->condition) is ANDed: "(<declared>) AND (<also>)".  *out, its maps
 * and text live in a; hand it to ddb_ent_opts.condition or
 * ddb_ent_tx_cond.condition.  DDB_EINVAL when a placeholder's value is
 * absent or also binds a name of c to another value; DDB_ENOMEM (also when
 * a is NULL). */
int ddb_ent_declared_cond(const ddb_entity_desc *e, const ddb_ent_cond_desc *c, const ddb_ent_arg *args,
                          size_t n_args, const ddb_ent_expr *also, ddb_arena *a, ddb_ent_expr *out, ddb_error *err);

/* Set field `field` (an index into e's fields) of obj, a DDB_CREATED_AT or
 * DDB_UPDATED_AT field, to the handle's clock (ddb_clock_ms): epoch
 * milliseconds in an integer field, ISO-8601 UTC with milliseconds
 * ("2026-11-26T15:04:05.123Z") in a char[N] field (N >= 25). */
void ddb_ent_stamp(ddb *db, const ddb_entity_desc *e, void *obj, uint16_t field);

/* ---- Queries ------------------------------------------------------------- */

typedef struct ddb_ent_query {
    uint16_t key;          /* index into e->keys */
    /* Partition fields come from `obj`; the sort key uses its first
     * sk_fields holes (0 = the whole partition, narrowed to begins_with
     * the template's leading text when it has one: "USER#" of
     * "USER#{username}").  Fewer than all holes and op DDB_SK_ANY:
     * begins_with the text up to the next hole. */
    const void *obj;
    uint16_t sk_fields;
    ddb_key_op op;         /* DDB_SK_ANY (prefix), EQ, LT, LE, GT, GE, BETWEEN on the last given field */
    const void *obj_hi;    /* BETWEEN upper bound (same fields) */
    bool backward;
    uint32_t page_size;    /* 0 = up to 1 MB */
    const char *cursor;    /* resume after this (from a previous page); NULL = start */
} ddb_ent_query;

typedef struct ddb_ent_page {
    void *items;           /* array of entity structs (e->st->size each), in the arena */
    size_t count;
    const char *cursor;    /* NULL when complete; else pass back as .cursor */
    ddb_capacity capacity;
} ddb_ent_page;

/* One page of entities of e from its index; items of other types in the
 * same partition are skipped. */
int ddb_ent_query_page(ddb *db, const ddb_entity_desc *e, const ddb_ent_query *q, const ddb_ent_opts *o,
                       ddb_arena *a, ddb_ent_page *out, ddb_error *err);

/* A collection: members of several entity types in one partition. */
typedef struct ddb_collection_member {
    const ddb_entity_desc *entity;
    uint16_t key;            /* the member's key index on the collection's index */
    uint32_t items_offset;   /* offsetof(result, <entity> pointer) */
    uint32_t count_offset;   /* offsetof(result, <entity>_count) */
    /* offsetof(result, <entity>_masks), a ddb_ent_mask * that
     * ddb_ent_collection_page fills per item; 0 = the result has none */
    uint32_t masks_offset;
} ddb_collection_member;

typedef struct ddb_collection_desc {
    const char *name;
    const char *index;       /* NULL = table */
    uint16_t n_members;
    const ddb_collection_member *members;
} ddb_collection_desc;

/* Query one partition of the collection (partition fields from obj, an
 * instance of members[0]'s struct... or any member whose partition fields
 * are set: member_index says which) and fill result: per member type an
 * arena array and a count.  Reads every page. */
int ddb_ent_query_collection(ddb *db, const ddb_collection_desc *c, uint16_t member_index, const void *obj,
                             const ddb_ent_opts *o, ddb_arena *a, void *result, ddb_capacity *cap, ddb_error *err);

/* ---- Typed reads (issue 12) ---------------------------------------------------
 *
 * One options struct and one result struct for every typed read: entity
 * queries by access pattern, collection pages, typed scans.  Results are
 * decoded into the caller's entity structs (arena memory, like every read)
 * with a field mask per item saying which fields the stored data set. */

/* Options of every typed read.  Zero-initialised = one page of up to 1 MB
 * from the start, forward, eventually consistent, every field. */
typedef struct ddb_ent_read_opts {
    /* Most entities per page (Limit, in logical items: a sharded entity's
     * shard items are one); 0 = up to 1 MB.  A collection page or table
     * scan with a sharded member asks for page_size x shards items, keeps
     * page_size entities and places the cursor after the last one kept:
     * its capacity and scanned_count include the items read past it. */
    uint32_t page_size;
    const char *cursor;        /* resume where the page that returned it ended; NULL = from the start */
    bool backward;             /* descending sort-key order (ScanIndexForward = false); queries only */
    bool consistent;           /* strongly consistent read (not on a GSI: DDB_EVALIDATION) */
    bool count_only;           /* count the matching entities of the page; no items are decoded */
    /* Every page in one call (ElectroDB's pages: "all"): the result holds
     * every matching entity (with count_only: their count) and no cursor;
     * page_size, when set, is the size of each request's page. */
    bool all_pages;
    /* Read the whole item from the table for each result of a KEYS_ONLY or
     * INCLUDE index (costs one GetItem each, counted in capacity).  Without
     * it such a query returns what the index holds, and the masks say which
     * fields that is. */
    bool fetch_base;
    /* Projection: the fields to read; NULL = all.  The primary key's
     * fields are always read (and set in the masks), so a projected result
     * can be matched to its key; on a KEYS_ONLY / INCLUDE index they are
     * parsed back from the key attributes where the templates allow.
     * A sharded entity reads only the shard items holding them (a get, an
     * exact-key query, a batch get, the completion of index entries and
     * of groups a page cut), so the capacity is that of the smaller read. */
    const ddb_ent_mask *fields;
    /* Collection pages and table scans: a projection per member type, in
     * the collection's member order (generated code names the positions:
     * <TABLE>_<COLLECTION>_<ENTITY>, <TABLE>_SCAN_<ENTITY>); a NULL entry,
     * or NULL here, = every field of that type.  Each result's mask holds
     * at most its type's projection.  Use this, not fields, there (a read of
 * one entity type takes member_fields[0] like fields; both set is
 * DDB_EINVAL). */
    const ddb_ent_mask *const *member_fields;
    /* FilterExpression applied to the entity's items after the key
     * condition, in DynamoDB syntax with its names and values already
     * bound (#n -> stored attribute, :v -> value); NULL = none.  On a sharded
     * entity it is evaluated per shard item: an entity matches when one of
     * its shard items does (name fields of one shard only). */
    const char *filter;
    const ddb_item *filter_names;
    const ddb_item *filter_values;
    ddb_return_capacity return_capacity;
    ddb_capacity *capacity;    /* out (may be NULL): zeroed, then the capacity of every request the call made */
    /* Out (may be NULL): the fields a generated <e>_get has set in its out
     * (what a projection, fields, left).  Pages and batch gets give a mask
     * per result instead. */
    ddb_ent_mask *mask;
} ddb_ent_read_opts;

/* One page of entities of one type. */
typedef struct ddb_ent_result {
    void *items;               /* count entity structs (e->st->size each), arena memory; NULL when count_only */
    ddb_ent_mask *masks;       /* masks[i]: the fields items[i] has set; NULL when count_only */
    size_t count;              /* entities on this page (after the filter) */
    size_t scanned_count;      /* items DynamoDB evaluated (physical items, before the filter) */
    const char *cursor;        /* NULL when this was the last page; else pass back as opts.cursor */
} ddb_ent_result;

/* Sort-key condition of an entity query, by LEVEL of the key's sort-key
 * template.  A level is an index into the template's segments (literal
 * text or hole, e.g. "SITE#{site}#DEV#{device}" has segments 0 "SITE#",
 * 1 {site}, 2 "#DEV#", 3 {device}); the condition uses the rendered text of
 * segments 0..level.
 *   DDB_ENT_SK_ALL      no condition besides the entity's leading literal
 *                       (every item of the entity in the partition); level unused
 *   DDB_ENT_SK_EQ       level must be the last segment: the whole sort key equals
 *   DDB_ENT_SK_BEGINS   begins_with the text through level: at a hole a string
 *                       prefix of that field's text ("SITE#s" matches s1 and
 *                       s10), at a literal through it (level 2: "SITE#s1#DEV#",
 *                       site s1 only)
 *   DDB_ENT_SK_LT/LE/GT/GE/BETWEEN   compare the text through level, a hole
 *                       (the last field of that level), inside the text of
 *                       the levels before it (those are equal); keys that
 *                       continue after the field count as equal to it (<= and
 *                       BETWEEN include them, > and < exclude them)
 * A numeric sort key (one N field) has one level, 0.  A sharded entity's
 * shard items are matched as the logical item (EQ finds its shards). */
typedef enum ddb_ent_sk_op {
    DDB_ENT_SK_ALL = 0,
    DDB_ENT_SK_EQ,
    DDB_ENT_SK_BEGINS,
    DDB_ENT_SK_LT,
    DDB_ENT_SK_LE,
    DDB_ENT_SK_GT,
    DDB_ENT_SK_GE,
    DDB_ENT_SK_BETWEEN
} ddb_ent_sk_op;

/* An entity query: one access pattern (key), its partition and sort-key condition. */
typedef struct ddb_ent_key_cond {
    uint16_t key;              /* index into e->keys: the access pattern */
    const void *obj;           /* an e struct with the partition fields and the sort-key fields through level set */
    ddb_ent_sk_op op;
    uint16_t level;            /* segment index into e->keys[key].sk (see above) */
    const void *hi;            /* BETWEEN: an e struct with the upper bound's fields set */
} ddb_ent_key_cond;

/* One page of entities of e by access pattern kc->key.  Items of other
 * types in the partition are skipped; a sharded entity's shard items are
 * merged into one struct (a page never ends inside one: the rest of its
 * shards are read and the cursor placed after them); an index that holds
 * one shard item per entity is completed from the table.  DDB_EVALIDATION
 * for an op the level cannot take (EQ short of the whole key, a range on
 * a literal), an unset key field, a consistent read on a GSI. */
int ddb_ent_query_pattern(ddb *db, const ddb_entity_desc *e, const ddb_ent_key_cond *kc,
                          const ddb_ent_read_opts *o, ddb_arena *a, ddb_ent_result *out, ddb_error *err);

/* Typed scan of e's items only (its type attribute; o->filter ANDed), one
 * page; segment/total_segments as Scan's (0/0 = the whole table); index
 * NULL = the table.  On an index that does not hold the type attribute
 * (KEYS_ONLY, INCLUDE without it) e's entries are those that fit e's key
 * templates on it, as in a query of the index. */
int ddb_ent_scan(ddb *db, const ddb_entity_desc *e, const char *index, uint32_t segment, uint32_t total_segments,
                 const ddb_ent_read_opts *o, ddb_arena *a, ddb_ent_result *out, ddb_error *err);

/* A collection (ddb_collection_desc above) read a page at a time.  The
 * result struct the generated code declares holds per member an items
 * pointer and a count (and optionally masks); page fills it and info. */
/* One entity of a page in the order it was read (a collection: its
 * partition's sort-key order, descending when backward): which member
 * (its position in the collection's members) and where in that member's
 * items. */
typedef struct ddb_ent_order {
    uint16_t member;
    uint32_t index;
} ddb_ent_order;

typedef struct ddb_ent_page_info {
    size_t count;              /* entities on the page, all members */
    size_t scanned_count;
    const char *cursor;        /* NULL after the last page */
    const ddb_ent_order *order; /* count entries in the order read (arena memory); NULL when count_only */
} ddb_ent_page_info;

/* Sort-key range over the collection's partition, on the stored sort key
 * (the shared prefix rendered by the caller); op DDB_SK_ANY = the whole
 * partition. */
typedef struct ddb_ent_range {
    ddb_key_op op;             /* DDB_SK_ANY, EQ, LT, LE, GT, GE, BETWEEN, BEGINS_WITH */
    const ddb_value *lo, *hi;  /* hi: BETWEEN only */
    /* Typed instead (the generated <table>_query_<collection>_<member>):
     * members[member]'s sort-key condition by level, kc on its key on the
     * collection's index (kc.key), rendered from kc.obj / kc.hi like an
     * access pattern's; op, lo and hi are unused. */
    bool typed;
    uint16_t member;
    ddb_ent_key_cond kc;
} ddb_ent_range;

/* One page of collection c's partition (partition fields from obj, an
 * instance of members[member_index]'s struct), grouped by type into result.
 * Shard items of a sharded member are merged into one struct, also when a
 * page boundary falls between them.  o->member_fields projects per member
 * (o->fields is DDB_EINVAL: a mask belongs to one entity); o->filter (over
 * stored attributes, names and values bound) applies to every item read,
 * whatever its type: an item it drops is not in the page (a sharded
 * member matches when one of its shard items does).  range may be NULL. */
int ddb_ent_collection_page(ddb *db, const ddb_collection_desc *c, uint16_t member_index, const void *obj,
                            const ddb_ent_range *range, const ddb_ent_read_opts *o, ddb_arena *a, void *result,
                            ddb_ent_page_info *info, ddb_error *err);

/* Typed scan of a whole table, grouped by type like a collection (c->index
 * NULL: the table; members are the entities to keep, the rest skipped);
 * o->member_fields and o->filter as for a collection page. */
int ddb_ent_scan_table(ddb *db, const ddb_collection_desc *c, uint32_t segment, uint32_t total_segments,
                       const ddb_ent_read_opts *o, ddb_arena *a, void *result, ddb_ent_page_info *info,
                       ddb_error *err);

/* The page loop of every iterator (a collection's below, and the generated
 * ones of access patterns and entity scans: <e>_<pattern>_begin / _next /
 * _end, <e>_scan_begin ...):
 *     ddb_ent_pages p;
 *     ddb_ent_pages_init(&p, &opts);
 *     while (ddb_ent_pages_more(&p)) {      // false after the last page
 *         rc = <read one page>(..., &p.opts, a, &page, &err);
 *         if ((rc = ddb_ent_pages_after(&p, rc, rc ? NULL : page.cursor, &err)))
 *             break;                          // p.has_page: a page was read
 *         ...
 *     }
 *     ddb_ent_pages_done(&p);
 * p.opts is a copy of the options whose cursor advances (a copy of each
 * page's cursor, owned by p: reset the arena between pages if you like). */
typedef struct ddb_ent_pages {
    ddb_ent_read_opts opts;
    char *cursor;              /* owned copy (malloc) of the next page's cursor */
    bool started, done, failed;
    bool has_page;             /* after ddb_ent_pages_after: a page was read */
} ddb_ent_pages;
void ddb_ent_pages_init(ddb_ent_pages *p, const ddb_ent_read_opts *o);
/* Is there a page to read (p->opts holds its cursor)? */
bool ddb_ent_pages_more(ddb_ent_pages *p);
/* After a page read with p->opts: rc as it is (the same page is read again
 * next time), else the page's cursor kept for the next; DDB_ENOMEM. */
int ddb_ent_pages_after(ddb_ent_pages *p, int rc, const char *cursor, ddb_error *err);
/* Free the cursor copy (safe to call twice). */
void ddb_ent_pages_done(ddb_ent_pages *p);

/* Walks every page of a collection:
 *     ddb_ent_collection_iter it;
 *     ddb_ent_collection_iter_init(&it, db, &coll, 0, &key, NULL, &opts);
 *     while ((rc = ddb_ent_collection_next(&it, a, &page, &err)) == DDB_OK && it.has_page) { ... }
 * Each page is filled into result as ddb_ent_collection_page does (reset
 * the arena between pages if you like: the iterator copies the cursor). */
typedef struct ddb_ent_collection_iter {
    ddb *db;
    const ddb_collection_desc *c;
    uint16_t member_index;
    const void *obj;
    const ddb_ent_range *range;
    ddb_ent_pages pages;       /* the options (their cursor advances) and the page loop */
    bool has_page;             /* after next: a page was filled */
    ddb_ent_page_info info;    /* the last page's */
} ddb_ent_collection_iter;

void ddb_ent_collection_iter_init(ddb_ent_collection_iter *it, ddb *db, const ddb_collection_desc *c,
                                  uint16_t member_index, const void *obj, const ddb_ent_range *range,
                                  const ddb_ent_read_opts *o);
int ddb_ent_collection_next(ddb_ent_collection_iter *it, ddb_arena *a, void *result, ddb_error *err);
/* Free the iterator's cursor copy (safe to call twice). */
void ddb_ent_collection_iter_done(ddb_ent_collection_iter *it);

/* A declared filter (ddbgen's DDB_QUERY / DDB_SCAN: text over #names and
 * :values bound in names / values) ANDed with the caller's o->filter into
 * *out, a copy of *o (o may be NULL): filter "(<declared>) AND (<caller's>)"
 * (just the declared one when the caller has none), the two name and value
 * maps merged (new maps in a).  The declared filter's placeholders start
 * with #ddb_ / :ddb_ (ddbgen emits them so), so they never meet the
 * caller's: a caller's filter binding such a name is DDB_EINVAL, as are
 * names or values without a filter.  what names the query in messages. */
int ddb_ent_declared_filter(const char *what, const char *text, const ddb_item *names, const ddb_item *values,
                            const ddb_ent_read_opts *o, ddb_arena *a, ddb_ent_read_opts *out, ddb_error *err);

/* Get by primary key with the read options (fields, consistent, capacity;
 * paging options ignored); *mask (may be NULL) gets the fields set. */
int ddb_ent_read(ddb *db, const ddb_entity_desc *e, const void *key, const ddb_ent_read_opts *o, ddb_arena *a,
                 void *out, ddb_ent_mask *mask, ddb_error *err);

/* ---- Transactions and batches across entities ------------------------------ */

/* A TransactWriteItems under construction; it lives in arena a.  Add
 * operations from any entities of one database, then commit: all or nothing.
 * Sharded entities add one operation per shard item.  Two operations on one
 * item (the same primary key, a shard item included) are refused at commit
 * with DDB_EVALIDATION, as DynamoDB refuses them. */
typedef struct ddb_ent_tx ddb_ent_tx;
/* NULL with err filled (DDB_EINVAL: no db or arena; DDB_ENOMEM). */
ddb_ent_tx *ddb_ent_tx_new(ddb *db, ddb_arena *a, ddb_error *err);
/* The condition of a transactional write (every ddb_ent_tx_* write takes
 * one; NULL = none): condition is ANDed with the operation's own
 * (existence, version); current/current_found/current_arena as in
 * ddb_ent_opts, filled at commit when this operation's condition failed. */
typedef struct ddb_ent_tx_cond {
    const ddb_ent_expr *condition;
    void *current;
    bool *current_found;
    ddb_arena *current_arena;
} ddb_ent_tx_cond;
/* put / create / delete as ddb_ent_put / ddb_ent_create / ddb_ent_delete
 * (derived fields are filled into obj at once; auto ids are allocated
 * inside the transaction, so a cancelled one consumes none, and written
 * into obj on commit; versions are bumped in obj on commit); c may be NULL. */
int ddb_ent_tx_put(ddb_ent_tx *tx, const ddb_entity_desc *e, void *obj, const ddb_ent_tx_cond *c, ddb_error *err);
int ddb_ent_tx_create(ddb_ent_tx *tx, const ddb_entity_desc *e, void *obj, const ddb_ent_tx_cond *c, ddb_error *err);
int ddb_ent_tx_delete(ddb_ent_tx *tx, const ddb_entity_desc *e, const void *key, const ddb_ent_tx_cond *c,
                      ddb_error *err);
/* ConditionCheck: the item with key's primary key must exist (or not). */
int ddb_ent_tx_require(ddb_ent_tx *tx, const ddb_entity_desc *e, const void *key, bool exists, ddb_error *err);
/* ConditionCheck of an expression on the item with key's primary key. */
int ddb_ent_tx_check(ddb_ent_tx *tx, const ddb_entity_desc *e, const void *key, const ddb_ent_tx_cond *c,
                     ddb_error *err);
/* update-fields (mask; NULL = patch: every writable field) and declared
 * updates (as ddb_ent_update) in the transaction. */
int ddb_ent_tx_update_mask(ddb_ent_tx *tx, const ddb_entity_desc *e, void *obj, const ddb_ent_mask *fields,
                           const ddb_ent_tx_cond *c, ddb_error *err);
/* upsert (as ddb_ent_upsert) in the transaction. */
int ddb_ent_tx_upsert(ddb_ent_tx *tx, const ddb_entity_desc *e, void *obj, const ddb_ent_tx_cond *c, ddb_error *err);
int ddb_ent_tx_update(ddb_ent_tx *tx, const ddb_entity_desc *e, const void *key, const ddb_ent_update_expr *u, size_t n,
                      const ddb_ent_tx_cond *c, ddb_error *err);
/* A declared update (ddb_ent_update_declared) in the transaction (c may be
 * NULL: c->condition ANDed with the declared one, c->current filled at
 * commit when it fails). */
int ddb_ent_tx_update_declared(ddb_ent_tx *tx, const ddb_entity_desc *e, const ddb_ent_update_desc *u, void *obj,
                               const ddb_ent_arg *args, size_t n_args, const ddb_ent_tx_cond *c, ddb_error *err);
/* Run it.  DDB_ECANCELED (message naming the failed operations) when a
 * condition fails; nothing is written then.  The builder is empty afterwards.
 * o->client_request_token makes it idempotent (ddb_tx_opts). */
int ddb_ent_tx_commit(ddb_ent_tx *tx, const ddb_ent_opts *o, ddb_capacity *cap, ddb_error *err);

/* Put n entities (an array of e's struct) with BatchWriteItem, 25 items at a
 * time.  Entities with a version field are refused (a batch cannot check it). */
int ddb_ent_batch_put(ddb *db, const ddb_entity_desc *e, void *objs, size_t n, const ddb_ent_opts *o,
                      ddb_capacity *cap, ddb_error *err);
/* Get n entities by the primary keys in keys (structs with the key fields
 * set) with BatchGetItem; out[i] and found[i] per key. */
int ddb_ent_batch_get(ddb *db, const ddb_entity_desc *e, const void *keys, size_t n, const ddb_ent_opts *o,
                      ddb_arena *a, void *out, bool *found, ddb_capacity *cap, ddb_error *err);
/* The same with read options: o->fields projects (a sharded entity asks
 * only for the shard items holding those fields), o->consistent,
 * o->return_capacity and o->capacity; masks (may be NULL) receives per key
 * the fields set.  Paging, filter and count options do not apply. */
int ddb_ent_batch_read(ddb *db, const ddb_entity_desc *e, const void *keys, size_t n, const ddb_ent_read_opts *o,
                       ddb_arena *a, void *out, ddb_ent_mask *masks, bool *found, ddb_error *err);

/* Open the table of a generated module: create it when absent; otherwise
 * check it against the schema — same key schema and index definitions,
 * same key templates per entity (stored with the table as fingerprints) —
 * and evolve it where that needs no rewrite of stored items: a new GSI is
 * created, a new entity (or one with no stored items) is recorded.  It
 * never rewrites items: when stored items need new key attributes (an
 * entity joined an index) it is DDB_EMODEL with a summary of the backfills
 * needed, and nothing is changed.  DDB_EMODEL, naming what changed, when
 * the stored data was written under an incompatible schema, or while a
 * migration of the table is in progress.  = ddb_ent_open_table_with(...,
 * NULL, err). */
int ddb_ent_open_table(ddb *db, const ddb_schema_table *t, const ddb_entity_desc *const *ents, size_t n,
                       ddb_error *err);

/* Progress of a long rewrite (a backfill run by open, a migration). */
typedef struct ddb_ent_progress {
    const char *entity;     /* the entity being rewritten */
    const char *step;       /* what is done to it: "backfill GSI1", "migrate" */
    uint64_t done;          /* items rewritten so far (all steps; a resumed migration's count goes on
                             * from its checkpoint, and so does capacity) */
    uint64_t skipped;       /* items looked at and left as they were */
    uint64_t scanned;       /* items of the table read by this step so far (all types); a resumed
                             * migration goes on from its checkpoint's count */
    uint64_t scanned_before; /* of scanned, what earlier runs of a resumed migration read (0 otherwise):
                              * scanned - scanned_before were read by this call */
    uint64_t total;         /* items in the table when the step started (0 = unknown): scanned/total is
                             * the step's fraction done */
    uint32_t step_no, n_steps; /* a migration: this step (1-based) of how many; 0 when not a migration */
    double capacity;        /* write capacity units consumed so far */
    uint64_t claimed;       /* a migration: DDB_UNIQUE values claimed so far (all steps) */
    uint64_t moved, deleted; /* a migration: of done, the items moved to a new key, and those of removed
                              * entities deleted (the rest were rewritten under their key) */
} ddb_ent_progress;
typedef void (*ddb_ent_progress_fn)(void *ctx, const ddb_ent_progress *p);

typedef struct ddb_ent_open_opts {
    /* Run the backfills the stored items need in this call (a consistent
     * Scan of the entity's items and one UpdateItem per item), reporting
     * to progress (may be NULL) after each page. */
    bool backfill;
    ddb_ent_progress_fn progress;
    void *progress_ctx;
    /* The caller's consent to delete the table's global secondary indexes
     * the schema no longer declares (ddb_delete_index); without it they
     * are left alone. */
    bool drop_indexes;
} ddb_ent_open_opts;

/* ddb_ent_open_table with options (o may be NULL). */
int ddb_ent_open_table_with(ddb *db, const ddb_schema_table *t, const ddb_entity_desc *const *ents, size_t n,
                            const ddb_ent_open_opts *o, ddb_error *err);

/* ---- Migrations -------------------------------------------------------------- */

/* A stored attribute renamed by the new schema: its value moves. */
typedef struct ddb_ent_rename {
    const char *from, *to;
} ddb_ent_rename;

/* A data transform: new_obj (the new schema's struct) arrives filled with
 * every field whose stored attribute the new schema can read (the others
 * zero); old_obj (the old schema's struct, when the step names
 * old_entity; else NULL) holds the item as the old schema read it, and
 * stored is the item as stored.  Fill what changed; variable-size data
 * from a.  Return DDB_OK, or a DDB_E* code (with err filled) to stop the
 * migration at this item (it can be resumed after a fix).  Items already
 * in their new form (read by the new schema and written back the same)
 * are not passed to it again. */
typedef int (*ddb_ent_transform_fn)(void *ctx, const ddb_item *stored, const void *old_obj, void *new_obj,
                                    ddb_arena *a, ddb_error *err);

/* How the stored items of one entity are rewritten.  Every stored item of
 * the entity (by its type attribute) is read, renamed attributes are moved,
 * the item is read into the new schema's struct (and transformed), and
 * written in its new form: its key templates, index keys and derived
 * fields rendered by the new schema; stored attributes the new schema does
 * not know (removed fields) are kept, index key attributes it no longer
 * renders are dropped.  An item whose key changes is moved in one
 * transaction (put the new item if its key is free, delete the old one if
 * it is still there); an item already in its new form is left alone.  A
 * sharded entity (DDB_SHARD) is migrated a logical item at a time: its
 * shard items are read together (one consistent Query, when the scan
 * meets the first of them) and written in the new layout in one
 * transaction, which must hold every put and delete (DynamoDB's limit is
 * 100: an entity whose new and stored shard counts add up to more is
 * DDB_ELIMIT before anything is written). */
typedef struct ddb_ent_migration_step {
    const ddb_entity_desc *entity;     /* the new schema's entity */
    const ddb_entity_desc *old_entity; /* the old schema's (ddbgen --old-model's <entity>_old_entity), for
                                        * transform and a sharded entity's stored layout (may be NULL: the
                                        * stored items have the new schema's shard layout) */
    const ddb_ent_rename *renames;
    size_t n_renames;
    ddb_ent_transform_fn transform;    /* NULL: the new struct is read from the (renamed) item */
    void *transform_ctx;
    /* DDB_UNIQUE fields (C names; a plan's "claims") whose stored values this
     * step claims: for every item holding a value its uniqueness item is
     * written in the transaction that writes the item, or, when the item is
     * left as it is, with a ConditionCheck that it still holds the value;
     * a claim the same item holds already is no change (a rerun goes on).
     * A value another item claimed is DDB_ECONDITION naming the field, the
     * value and both items (the claims committed before stay: fix the
     * duplicate and run again); a dry run lists every duplicate in the
     * report instead.  Not for sharded entities (DDB_ENOTSUP). */
    const char *const *claims;
    size_t n_claims;
    /* The entity's name in the deployed schema when it was renamed
     * (DDB_RENAMED_FROM): the step reads the items of that name and writes
     * them under the new one (type attribute, keys rendered anew). */
    const char *renamed_from;
    /* An entity the new schema removed (DDB_REMOVED(name, "delete")): the
     * step deletes every stored item of that name; entity is then NULL and
     * nothing else of the step is used. */
    const char *removed;
} ddb_ent_migration_step;

typedef struct ddb_ent_migration {
    const char *id;                    /* names this migration in its checkpoint (a plan's id) */
    const char *model_version;         /* recorded with the table when it ends (may be NULL) */
    const ddb_schema_table *table;     /* the new schema's table: its GSIs are created first */
    const ddb_entity_desc *const *entities; /* every entity of the new schema: fingerprints recorded at the end */
    size_t n_entities;
    const ddb_ent_migration_step *steps;
    size_t n_steps;
} ddb_ent_migration;

typedef struct ddb_ent_migrate_opts {
    bool dry_run;              /* read and compute only: counts and samples, nothing written */
    size_t samples;            /* dry run: how many "old key -> new key" samples to keep */
    double max_capacity;       /* capacity units (read + write) per second; 0 = unthrottled */
    uint32_t page_size;        /* items scanned per page (one checkpoint a page); 0 = 200 */
    uint32_t items_per_tx;     /* items moved per TransactWriteItems (2 operations each, 1..50); 0 = 25 */
    bool drop_indexes;         /* when it ends, delete the GSIs the new schema no longer declares */
    ddb_ent_progress_fn progress;
    void *progress_ctx;
} ddb_ent_migrate_opts;

typedef struct ddb_ent_migrate_report {
    bool resumed;              /* it went on from a checkpoint */
    uint64_t scanned;          /* items of the table read (all types) */
    uint64_t moved;            /* items whose key changed: moved to the new key */
    uint64_t rewritten;        /* items rewritten under the same key */
    uint64_t unchanged;        /* items of the entities already in their new form */
    uint64_t deleted;          /* items of removed entities deleted */
    double capacity;           /* capacity units consumed (reads and writes) */
                               /* (each count covers the whole migration, earlier runs included) */
    size_t n_samples;          /* dry run: samples (arena text) */
    const char **samples;
    uint64_t claimed;          /* values of DDB_UNIQUE fields claimed (a dry run: that would be) */
    uint64_t verified;         /* values of DDB_UNIQUE fields the steps' final checks found claimed by
                                * their items (every stored value; not in a dry run) */
    size_t n_duplicates;       /* dry run: values two stored items hold, "<Entity>.<field> = <value>: */
    const char **duplicates;   /* items <key> and <key>" (arena text; the first 1000) */
    uint64_t duplicates_found; /* dry run: all of them (more than n_duplicates when over 1000) */
    const char *history_note;  /* the migration ended but its history line could not be recorded (a table
                                * at its metadata limit, say): why; NULL otherwise */
} ddb_ent_migrate_report;

/* Apply a migration to the table of m->table: create the new schema's
 * missing GSIs, record the migration as in progress (ddb_ent_open_table
 * refuses the table with DDB_EMODEL meanwhile), rewrite every step's
 * items page by page with a checkpoint stored with the table after each
 * page, throttled to o->max_capacity, reporting to o->progress; then
 * record the new schema's fingerprints and model version and end the
 * migration.  Run again after an interruption it resumes from the
 * checkpoint (each item is rewritten at most once: it is idempotent per
 * item).  A different migration in progress is DDB_EMODEL.  report (in
 * arena a) may be NULL.  Sharded entities need TransactWriteItems: on an
 * endpoint without it (dynalite) the migration is DDB_ENOTSUP before
 * anything is written.  A step whose old_entity is sharded and entity not
 * (or the reverse) is DDB_ENOTSUP. */
int ddb_ent_migrate(ddb *db, const ddb_ent_migration *m, const ddb_ent_migrate_opts *o, ddb_arena *a,
                    ddb_ent_migrate_report *report, ddb_error *err);

/* A table's migrations: the one in progress (its checkpoint), the model
 * version the data is in, and the last applied ones (ddb migrate status). */
typedef struct ddb_ent_migration_state {
    bool in_progress;
    const char *id;                 /* the plan in progress */
    uint32_t step, n_steps;         /* its step under way, 1-based, of how many */
    uint64_t scanned, moved, rewritten, unchanged, deleted, claimed;
    double capacity;
    const char *model;              /* the plan id the data was last migrated to (NULL: never) */
    size_t n_history;               /* the last applied plans, oldest first, one line each: */
    const char **history;           /* "<id> ok <UTC time> libddb <version> steps <n> scanned <s> ..." */
} ddb_ent_migration_state;
/* Read table's migration state into st (its strings in a). */
int ddb_ent_migration_status(ddb *db, const char *table, ddb_arena *a, ddb_ent_migration_state *st, ddb_error *err);

/* Create the table an entity lives in (and its indexes). DDB_EEXISTS when it exists. */
int ddb_ent_create_table(ddb *db, const ddb_schema_table *t, ddb_error *err);

/* ---- Stream records --------------------------------------------------------- */

/* What ddb_ent_decode_record learnt of a stream record. */
typedef struct ddb_ent_record {
    int type;          /* 1 + the entity's index in entities[]; 0 = none of them */
    bool has_old;      /* out_old holds the OldImage */
    bool has_new;      /* out_new holds the NewImage */
    bool partial;      /* a sharded entity: the image is one shard item, only its fields are set */
    ddb_ent_mask new_fields, old_fields; /* the fields each image set */
} ddb_ent_record;

/* Decode a stream record of a generated module's table.  The entity is the
 * one named by the image's type attribute (NewImage, else OldImage); with no
 * image (KEYS_ONLY) the one entity whose primary key templates match the
 * record's Keys, if exactly one does.  The images are filled into out_new /
 * out_old (obj_size bytes each, at least the largest entity struct; zeroed
 * first), their variable-size data allocated from a.  out->type 0 and
 * DDB_OK when no entity of the list matches.  DDB_EINVAL when the record
 * belongs to another table, DDB_EVALIDATION when an image does not fit its
 * entity's struct (the message names the field). */
int ddb_ent_decode_record(const ddb_entity_desc *const *entities, size_t n, const ddb_stream_record *rec,
                          ddb_arena *a, void *out_new, void *out_old, size_t obj_size, ddb_ent_record *out,
                          ddb_error *err);

/* A sharded entity's record (info->partial) completed: the fields of
 * out_new that its NewImage did not set are read from the item's other
 * shards in the table as they are now (a get; o as for ddb_ent_read, may
 * be NULL); info->partial becomes false and new_fields grows.  Nothing to
 * do (DDB_OK) for a whole image or a record without NewImage; DDB_OK with
 * info->partial still true when the item is gone from the table.  The
 * OldImage cannot be completed (the other shards' old values are not
 * kept). */
int ddb_ent_complete_record(ddb *db, const ddb_entity_desc *const *entities, size_t n, const ddb_ent_read_opts *o,
                            ddb_arena *a, ddb_ent_record *info, void *out_new, ddb_error *err);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif /* DDB_ENTITY_H */
