/* ddb — the schema's model (ddbgen --emit-model) as the entity layer's
 * descriptors, for the model-aware commands (cmd_model.c): every table,
 * struct and entity of the model gets the ddb_schema_table /
 * ddb_struct_desc / ddb_entity_desc the generated module would have, laid
 * out over a struct of the tool's own (model_desc.c), so that reads and
 * writes go through libddb's entity layer with the generated code's rules
 * (keys, derived attributes, the type attribute, defaults, versions, ids,
 * shards).  model_value.c moves plain JSON in and out of those structs. */
#ifndef DDB_MODEL_DESC_H
#define DDB_MODEL_DESC_H

#include <ddb/entity.h>

#include <jansson.h>

typedef struct model_entity {
    ddb_entity_desc desc;
    const json_t *json;       /* the model's entity */
    const char *table_cname;  /* its table's C name */
} model_entity;

typedef struct model {
    ddb_arena *a;             /* every descriptor lives here */
    json_t *doc;              /* the model document */
    ddb_schema_table *tables;
    size_t n_tables;
    model_entity *ents;
    size_t n_ents;
} model;

/* Loads the model file at path.  0, or -1 with why (a sentence naming the
 * file and what is wrong) set. */
int model_load(model *m, const char *path, char *why, size_t cap);
void model_free(model *m);

/* The entity named name (its Type value, or its C name); NULL when none. */
const model_entity *model_entity_named(const model *m, const char *name);
/* The field of st named name (C member or stored attribute); -1 when none. */
int model_field_index(const ddb_struct_desc *st, const char *name);

#endif
