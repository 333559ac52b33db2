/* Value helpers shared inside the runtime (internal). */
#ifndef DDB_VALUE_H
#define DDB_VALUE_H

#include <ddb/ddb.h>

struct ddb_item {
    ddb_value map; /* type DDB_TM */
    ddb_arena *arena;
};

/* Index of name in a map, or -(insertion point)-1 when absent. */
long ddbi_map_find(const ddb_value *map, const char *name, size_t name_len);
/* Make attrs (n attributes with distinct names, in any order, arena
 * memory that stays the map's) the contents of the empty map: one sort,
 * where n ddb_map_set calls would move O(n^2) entries (a 14 MB request of
 * 640,000 map keys took 19 s).  DDB_EINVAL when two names are equal. */
int ddbi_map_adopt(ddb_value *map, ddb_attr *attrs, size_t n);
/* The same for a set: elems (n values of the set's element type, in any
 * order, arena memory) are sorted into the empty set's order.  When two are
 * equal, DDB_EVALIDATION with the pair in dup[0], dup[1]. */
int ddbi_set_adopt(ddb_value *set, ddb_value **elems, size_t n, const ddb_value *dup[2]);
/* Map lookup by counted name. */
const ddb_value *ddbi_map_getn(const ddb_value *map, const char *name, size_t name_len);
/* DynamoDB's message for an empty set of type set_type (SS, NS or BS):
 * one text for the engine's check and the DynamoDB JSON decoder. */
const char *ddbi_empty_set_problem(ddb_type set_type);
/* Check what a write must refuse: empty sets, duplicate set members,
 * nesting over 32 levels.  The message is DynamoDB's ("One or more
 * parameter values were invalid: An string set  may not be empty"),
 * followed by " (attribute PATH)". */
int ddbi_value_check(const ddb_value *v, const char *path, int depth, ddb_error *err);
/* The same about v itself, not the values inside an L or M (the record
 * encoder walks those): DynamoDB's words, in buf when formatted; NULL =
 * nothing to refuse. */
const char *ddbi_value_node_problem(const ddb_value *v, int depth, char *buf, size_t cap);
/* Can ddbi_value_node_problem find anything about v (sets, a missing type,
 * nesting past 32 levels)?  Scalars, lists and maps within the nesting
 * limit need no call. */
static inline bool ddbi_value_node_checked(const ddb_value *v, int depth)
{
    return depth > 32 || v->type < DDB_TS || v->type > DDB_TM;
}
/* The same check for a value of ExpressionAttributeValues, in DynamoDB's
 * form: "ExpressionAttributeValues contains invalid value: One or more
 * parameter values were invalid: An string set  may not be empty for key
 * :v".  It nests to 64 levels: only what an item stores is held to 32. */
int ddbi_value_check_placeholder(const ddb_value *v, const char *key, size_t key_len, ddb_error *err);
/* Bytes of the N value's storage size. */
size_t ddbi_number_size(const char *canon, size_t len);

#endif
