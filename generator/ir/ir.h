/* ir.h — the generator's typed intermediate representation; the room
 * header of ir/, which holds it and what makes it: the lowering (lower.c),
 * key templates (template.c, template.h), the names a generated module gives
 * (generated_names.c, generated_names.h), the IR of declared writes
 * (decl_write.h), the model file written from the IR (model_json.c), and
 * renames in model documents (renames.c).  The room may call base/ and
 * jansson.
 *
 * Stages of ddbgen (docs/ARCHITECTURE.md):
 *   front-end (front/): the declared model (JSON)
 *   -> checks (check/): every schema rule, all diagnostics at once
 *   -> lowering (lower.c): the checked declared model becomes this IR, with
 *      every derived fact (template segments as field paths, key order and
 *      numbers, index key types, shards, the primary key's fields, each
 *      table's TTL attribute, collections, key parameters) worked out once;
 *      then the declared reads and writes (decl/)
 *   -> the render context (render/) -> the templates (templates/),
 *      and the model file of --emit-model (model_json.c).
 *
 * Everything here is read-only after ddbgen__lower() returns and lives as
 * long as the ddbgen_ir (one allocation pool, freed by ddbgen_ir_free).
 * References between nodes are pointers, never names to look up.  Strings
 * are the schema's own text (names, attributes, literals), not C literals:
 * quoting for C is the render context's job.
 */
#ifndef DDBGEN_IR_H
#define DDBGEN_IR_H

#include "diag.h"
#include "model.h"
#include "template.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* A DynamoDB attribute type as the model names it ("S", "N", ...). */
typedef enum ddbgen_ir_type {
    DDBGEN_IR_S,
    DDBGEN_IR_N,
    DDBGEN_IR_B,
    DDBGEN_IR_BOOL,
    DDBGEN_IR_M,
    DDBGEN_IR_L,
    DDBGEN_IR_SS,
    DDBGEN_IR_NS,
    DDBGEN_IR_BS
} ddbgen_ir_type;

/* The C number behind an N or NS value. */
typedef enum ddbgen_ir_num {
    DDBGEN_IR_NUM_NONE = 0,
    DDBGEN_IR_NUM_INT,   /* int8_t ... int64_t */
    DDBGEN_IR_NUM_UINT,  /* uint8_t ... uint64_t */
    DDBGEN_IR_NUM_FLOAT  /* float, double */
} ddbgen_ir_num;

typedef enum ddbgen_ir_index_kind {
    DDBGEN_IR_PRIMARY,
    DDBGEN_IR_GSI,
    DDBGEN_IR_LSI
} ddbgen_ir_index_kind;

typedef enum ddbgen_ir_projection {
    DDBGEN_IR_PROJ_ALL,
    DDBGEN_IR_PROJ_KEYS_ONLY,
    DDBGEN_IR_PROJ_INCLUDE
} ddbgen_ir_projection;

typedef struct ddbgen_ir_struct ddbgen_ir_struct;
typedef struct ddbgen_ir_field ddbgen_ir_field;
typedef struct ddbgen_ir_template ddbgen_ir_template;
typedef struct ddbgen_ir_shard ddbgen_ir_shard;
typedef struct ddbgen_ir_table ddbgen_ir_table;
typedef struct ddbgen_ir_entity ddbgen_ir_entity;
typedef struct ddbgen_ir_writes ddbgen_ir_writes; /* decl_write.h */

/* What a list holds. */
typedef struct ddbgen_ir_value {
    ddbgen_ir_type type;
    ddbgen_ir_num num;
    bool chars;                 /* S held in char[N] */
    const ddbgen_ir_struct *st; /* M */
} ddbgen_ir_value;

struct ddbgen_ir_field {
    const char *name;           /* C member */
    const char *attr;           /* stored attribute */
    const char *ctype;          /* "char[64]", "struct address *" */
    ddbgen_ir_type type;
    ddbgen_ir_num num;
    unsigned num_bits;          /* N, NS: 8, 16, 32 or 64 */
    bool chars;                 /* S in char[N] (has a max length) */
    const ddbgen_ir_struct *st; /* M: the nested struct */
    bool is_list;               /* L: item and count_field are set */
    ddbgen_ir_value item;
    const char *count_field;
    bool optional, uuid, version, ttl;
    bool key;                   /* used by the primary key (every shard carries it) */
    bool updatable;             /* written by a full update: not key, derived, version or generated */
    const ddbgen_ir_template *derived; /* DDB_DERIVED, or NULL */
    const ddbgen_ir_template *auto_id; /* DDB_AUTO_ID scope, or NULL */
    const ddbgen_ir_shard *shard;      /* DDB_SHARD, or NULL */
    const char *dflt;                  /* DDB_DEFAULT text, or NULL */
    bool created_at, updated_at, unique; /* DDB_CREATED_AT, DDB_UPDATED_AT, DDB_UNIQUE */
};

struct ddbgen_ir_struct {
    const char *cname, *ctype;
    ddbgen_ir_field *fields;
    size_t n_fields;
};

/* A template segment: literal text, or a hole naming a field by its index
 * path (path[0] indexes the owner's fields, path[1] the nested struct's ...). */
typedef struct ddbgen_ir_segment {
    const char *lit;              /* literal text, or NULL for a hole */
    const char *field_path;       /* hole: "home.country" */
    const size_t *path;           /* hole: field indexes */
    size_t path_len;
    const ddbgen_ir_field *field; /* hole: the field the path ends at */
    int pad;                      /* {f:0N}: N */
    ddbgen_tmpl_part part;
    ddbgen_tmpl_case kase;
} ddbgen_ir_segment;

struct ddbgen_ir_template {
    const char *text;    /* as written: "ORG#{org}" */
    bool numeric;        /* renders an N value (else S) */
    ddbgen_ir_segment *segs;
    size_t n_segs;
};

struct ddbgen_ir_shard {
    const char *id;
    size_t no; /* index into the entity's shards */
};

/* A key attribute of an index, and the type the entities' templates give it. */
typedef struct ddbgen_ir_key_attr {
    const char *attr;
    ddbgen_ir_type type; /* S, N (or B) */
} ddbgen_ir_key_attr;

typedef struct ddbgen_ir_index {
    const char *name; /* "table" for the primary key */
    ddbgen_ir_index_kind kind;
    ddbgen_ir_key_attr pk;        /* the first (or only) partition-key attribute */
    bool has_sk;
    ddbgen_ir_key_attr sk;        /* the first (or only) sort-key attribute */
    /* A GSI keyed on its entities' own fields (DDB_KEY_FIELDS): pk and sk
     * are the first fields' attributes, pk_more / sk_more the further ones
     * in declared order (DynamoDB's multi-attribute keys). */
    bool by_fields;
    const ddbgen_ir_key_attr *pk_more, *sk_more;
    size_t n_pk_more, n_sk_more;
    ddbgen_ir_projection projection;
    const char *const *include; /* DDB_PROJECT_INCLUDE attributes */
    size_t n_include;
} ddbgen_ir_index;

struct ddbgen_ir_table {
    const char *cname, *name, *type_attr;
    const char *ttl_attr;       /* the entities' DDB_TTL attribute, or NULL */
    const char *stream_view;    /* DDB_STREAM's view type, or NULL */
    unsigned long long rcu, wcu; /* DDB_PROVISIONED; 0 = on demand (PAY_PER_REQUEST) */
    bool deletion_protection;   /* DDB_DELETION_PROTECTION */
    ddbgen_ir_index primary;
    ddbgen_ir_index *indexes;   /* secondary indexes, in declaration order */
    size_t n_indexes;
    const ddbgen_ir_entity **entities; /* the entities stored in it, in order */
    size_t n_entities;
};

/* A field a caller passes to address an item: a hole of a key template. */
typedef struct ddbgen_ir_param {
    const char *path;             /* "home.country" */
    const ddbgen_ir_field *field; /* the field the path ends at */
} ddbgen_ir_param;

/* A level of a hierarchical sort key: one hole of the sort-key template,
 * named by its field.  A condition on level k gives levels 1..k-1 equal. */
typedef struct ddbgen_ir_level {
    const char *path;             /* "taken_at", "home.country" */
    const ddbgen_ir_field *field;
    size_t seg;                   /* the hole's segment index in the sort-key template */
    size_t eq_seg;                /* "equals at this level": through the literal after the hole (or the hole) */
    bool ordered;                 /* text order is the value's order: a range on it means what it says */
} ddbgen_ir_level;

/* An entity's key on one index. */
typedef struct ddbgen_ir_key {
    const ddbgen_ir_index *index;
    size_t no;                    /* position in the entity's keys: the primary key is 0 */
    size_t decl_no;               /* position among the DDB_KEYs as declared */
    ddbgen_ir_template pk;
    bool has_sk;
    ddbgen_ir_template sk;
    /* DDB_KEY_FIELDS: pk and sk are one hole per field, no literal (its
     * params and levels are the fields); nothing renders them: the fields
     * are the key attributes.  sparse: DDB_SPARSE was written. */
    bool by_fields, sparse;
    const ddbgen_ir_shard *shard; /* sharded entity, secondary key: the shard item carrying it */
    const char *pattern;          /* the access pattern's name (DDB_PATTERN, default the index name) */
    ddbgen_ir_param *pk_params;   /* the partition key's fields */
    size_t n_pk_params;
    ddbgen_ir_level *levels;      /* the sort key's holes, in order */
    size_t n_levels;
    unsigned write_shards;        /* DDB_WRITE_SHARDS count (also on keys sharing its partition
                                     key attribute, e.g. an LSI); 0 = not write-sharded */
    bool shards_random;           /* "random" rather than "hash" of the primary key */
} ddbgen_ir_key;

/* A typed parameter of a declared query or scan: a :placeholder. */
typedef struct ddbgen_ir_qparam {
    const char *name;             /* "from" for :from */
    ddbgen_ir_type type;          /* S, N, BOOL or B */
    ddbgen_ir_num num;
    const char *ctype;            /* its C parameter type */
    bool in_filter;               /* a :value of the filter */
    const char *cname;            /* its C parameter: name, or name_ when the generated function uses name */
} ddbgen_ir_qparam;

/* A key-condition field of a declared query: level = param (and hi). */
typedef struct ddbgen_ir_qkey {
    const ddbgen_ir_level *level;
    size_t param, param_hi;       /* indexes into params; param_hi for BETWEEN */
} ddbgen_ir_qkey;

typedef enum ddbgen_ir_skop {
    DDBGEN_SK_ALL, DDBGEN_SK_EQ, DDBGEN_SK_BEGINS, DDBGEN_SK_LT, DDBGEN_SK_LE, DDBGEN_SK_GT, DDBGEN_SK_GE,
    DDBGEN_SK_BETWEEN
} ddbgen_ir_skop;

/* DDB_QUERY (key != NULL) or DDB_SCAN (key == NULL). */
typedef struct ddbgen_ir_query {
    const char *name;
    const ddbgen_ir_key *key;
    const char *key_text, *filter_text; /* as written; NULL when absent */
    const char *filter_bound;     /* the filter with every field as #fN */
    const char **names;           /* the stored attribute of #f0, #f1 ... */
    size_t n_names;
    ddbgen_ir_qparam *params;     /* in order of first use */
    size_t n_params;
    ddbgen_ir_skop op;            /* on the last of keyconds; EQ with all levels = the whole key */
    size_t seg;                   /* the runtime's level: a segment of the sort-key template */
    ddbgen_ir_qkey *keyconds;     /* levels 1..k, in order */
    size_t n_keyconds;
} ddbgen_ir_query;

struct ddbgen_ir_entity {
    const char *name, *cname, *ctype;
    const ddbgen_ir_table *table;
    ddbgen_ir_field *fields;
    size_t n_fields;
    ddbgen_ir_key *keys;          /* keys[0] is the primary key */
    size_t n_keys;
    ddbgen_ir_shard *shards;      /* none when unsharded */
    size_t n_shards;
    const char *shard_suffix;     /* between the sort key and a shard id */
    const ddbgen_ir_template *auto_scope; /* the DDB_AUTO_ID field's scope, or NULL */
    ddbgen_ir_param *key_params;  /* the fields of the primary key, in template order */
    size_t n_key_params;
    ddbgen_ir_query *queries;     /* DDB_QUERY then DDB_SCAN, as declared (reads.c) */
    size_t n_queries;
    const ddbgen_ir_writes *writes; /* DDB_UPDATE / DDB_CONDITION (decl_write.h), or NULL */
};

/* An entity in a collection, with its key on the collection's index. */
typedef struct ddbgen_ir_member {
    const ddbgen_ir_entity *entity;
    const ddbgen_ir_key *key;
} ddbgen_ir_member;

typedef struct ddbgen_ir_collection {
    const char *name;
    const ddbgen_ir_table *table;
    const ddbgen_ir_index *index; /* &table->primary, or a secondary index */
    ddbgen_ir_member *members;
    size_t n_members;
    ddbgen_ir_param *params;      /* the partition key's fields (members share its shape) */
    size_t n_params;
} ddbgen_ir_collection;

typedef struct ddbgen_ir_pool ddbgen_ir_pool;

typedef struct ddbgen_ir {
    const char *schema; /* the schema file as the model records it */
    ddbgen_ir_table *tables;
    size_t n_tables;
    ddbgen_ir_struct *structs;
    size_t n_structs;
    ddbgen_ir_entity *entities;
    size_t n_entities;
    ddbgen_ir_collection *collections;
    size_t n_collections;
    ddbgen_ir_pool *pool; /* every allocation of the IR */
} ddbgen_ir;

/* Lowers a declared model that passed the checks (ddbgen__validate) into a
 * new IR.  NULL when out of memory.  The model is not modified and may be
 * freed afterwards: the IR copies what it keeps. */
ddbgen_ir *ddbgen__lower(const json_t *model);

/* model_json.c: the model document of --emit-model (docs/MODEL.md): the
 * declared model (copied) with the derived members written from ir, the
 * lowering of that same declared model.  NULL when out of memory. */
json_t *ddbgen__model_json(const ddbgen_ir *ir, const json_t *declared);
void ddbgen_ir_free(ddbgen_ir *ir);
/* A copy of s owned by ir (NULL when out of memory). */
const char *ddbgen__ir_strdup(ddbgen_ir *ir, const char *s);

/* n zeroed bytes owned by ir, for lowering done outside lower.c (NULL when
 * out of memory). */
void *ddbgen__ir_alloc(ddbgen_ir *ir, size_t n);

/* The model's name of a type ("S", "BOOL", ...). */
const char *ddbgen_ir_type_name(ddbgen_ir_type t);

/* renames.c: the entity of new_model DDB_RENAMED_FROM(old_name), or NULL. */
const json_t *ddbgen__entity_renamed_to(const json_t *new_model, const char *old_name);
/* renames.c: the DDB_REMOVED(old_name, ...) entry ({"entity", "items":
 * "delete"|"keep"}) of new_model's table named table_name, or NULL. */
const json_t *ddbgen__entity_removal(const json_t *new_model, const char *table_name, const char *old_name);
/* renames.c: the field of old_fields that new_field is DDB_RENAMED_FROM, or NULL. */
const json_t *ddbgen__field_renamed_from(const json_t *old_fields, const json_t *new_field);
/* renames.c: located errors for bad uses of DDB_RENAMED_FROM and DDB_REMOVED. */
void ddbgen__check_renames(const json_t *model, ddbgen_diags *d);


#endif
