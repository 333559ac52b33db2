/* <ddb/schema.h> — the decorators of a ddbgen schema and the field types
 * entity structs may use.  Every decorator, its arguments and the rules
 * ddbgen enforces are described in docs/SCHEMA.md (installed with these
 * headers as share/doc/ddbgen/SCHEMA.md).
 *
 * Two modes:
 *  - Application mode (default): every decorator expands to nothing, so a
 *    decorated header compiles unchanged with gcc and clang
 *    (-std=c11 -pedantic -Wall -Wextra -Werror); DDB_TABLE(cname, ...)
 *    becomes the forward declaration `struct ddb_table_<cname>` and never
 *    expands its other arguments.
 *  - Parse mode (DDB_SCHEMA_PARSE defined, only ever by ddbgen running
 *    libclang): entity and field decorators become
 *    __attribute__((annotate("ddb:..."))) carrying their arguments joined
 *    with DDB__SEP; DDB_TABLE becomes a static, unused array of string
 *    literals (one per option argument, so each keeps its own line:col)
 *    whose options are introduced by `(const char *)"option"` markers — a
 *    cast, so no user string can be mistaken for a marker.
 *
 * The types below are used by generated code too; their layout is part of
 * the runtime ABI.  Ownership of the pointed-to memory is the application's
 * (or the arena's, for values returned by generated readers).
 */
#ifndef DDB_SCHEMA_H
#define DDB_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* B: a binary attribute.  data == NULL (len 0) means the attribute is absent. */
typedef struct ddb_bytes {
    uint8_t *data;
    size_t len;
} ddb_bytes;

/* SS: a string set.  count == 0 means absent (DynamoDB has no empty sets). */
typedef struct ddb_string_set {
    char **items;
    size_t count;
} ddb_string_set;

/* NS of integers. */
typedef struct ddb_int_set {
    int64_t *items;
    size_t count;
} ddb_int_set;

/* NS of floating-point numbers. */
typedef struct ddb_double_set {
    double *items;
    size_t count;
} ddb_double_set;

/* BS: a binary set. */
typedef struct ddb_bytes_set {
    ddb_bytes *items;
    size_t count;
} ddb_bytes_set;

#ifdef DDB_SCHEMA_PARSE

/* Separator between the arguments inside one annotation string. */
#define DDB__SEP "\x1f"
#define DDB__ANNOTATE(s) __attribute__((annotate(s)))
#define DDB__J1(a) DDB__SEP a
#define DDB__J2(a, b) DDB__SEP a DDB__SEP b
#define DDB__J3(a, b, c) DDB__SEP a DDB__SEP b DDB__SEP c
#define DDB__J4(a, b, c, d) DDB__SEP a DDB__SEP b DDB__SEP c DDB__SEP d
#define DDB__J5(a, b, c, d, e) DDB__SEP a DDB__SEP b DDB__SEP c DDB__SEP d DDB__SEP e
#define DDB__JPICK(_1, _2, _3, _4, _5, N, ...) N
/* "\x1f" a "\x1f" b ... for 1 to 5 string-literal arguments. */
#define DDB__JOIN(...) \
    DDB__JPICK(__VA_ARGS__, DDB__J5, DDB__J4, DDB__J3, DDB__J2, DDB__J1, DDB__J0)(__VA_ARGS__)
#define DDB__OPT(name) (const char *)"ddb:" name

/* Table: a static unused array; see the header comment. */
#define DDB_TABLE(cname, ...)                                                   \
    static const char *const ddb__table_##cname[] DDB__ANNOTATE("ddb:table" DDB__SEP #cname) \
        __attribute__((unused)) = { __VA_ARGS__ }
#define DDB_PRIMARY(...) DDB__OPT("primary"), __VA_ARGS__
#define DDB_GSI(...) DDB__OPT("gsi"), __VA_ARGS__
#define DDB_LSI(...) DDB__OPT("lsi"), __VA_ARGS__
#define DDB_PROJECT_KEYS_ONLY DDB__OPT("keys_only")
#define DDB_PROJECT_INCLUDE(...) DDB__OPT("include"), __VA_ARGS__
#define DDB_TYPE_ATTRIBUTE(name) DDB__OPT("type_attribute"), name
/* What the infrastructure outputs (ddbgen --emit-infra) state for the table:
 * a stream of this view type; provisioned throughput (default: on demand);
 * deletion protection. */
#define DDB_STREAM(view) DDB__OPT("stream"), view
#define DDB_PROVISIONED(rcu, wcu) DDB__OPT("provisioned"), #rcu, #wcu
#define DDB_DELETION_PROTECTION DDB__OPT("deletion_protection")
/* An entity no longer declared, and what a migration does with its stored
 * items: DDB_REMOVED("Alert", "delete") or ("Alert", "keep"). */
#define DDB_REMOVED(entity, items) DDB__OPT("removed"), entity, items

/* Entity decorators: between `struct` and the tag. */
#define DDB_ENTITY(table, name) DDB__ANNOTATE("ddb:entity" DDB__SEP #table DDB__SEP name)
#define DDB_KEY(...) DDB__ANNOTATE("ddb:key" DDB__JOIN(__VA_ARGS__))
#define DDB_COLLECTION(...) DDB__ANNOTATE("ddb:collection" DDB__JOIN(__VA_ARGS__))
#define DDB_SHARD_SUFFIX(suffix) DDB__ANNOTATE("ddb:shard_suffix" DDB__SEP suffix)
/* The entity's (or, after a field, the stored attribute's) name in the
 * deployed schema: a migration renames the stored items. */
#define DDB_RENAMED_FROM(name) DDB__ANNOTATE("ddb:renamed_from" DDB__SEP name)
/* Reads (docs/SCHEMA.md "Access patterns and declared queries"). */
#define DDB_PATTERN(...) DDB__ANNOTATE("ddb:pattern" DDB__JOIN(__VA_ARGS__))
#define DDB_QUERY(...) DDB__ANNOTATE("ddb:query" DDB__JOIN(__VA_ARGS__))
#define DDB_SCAN(...) DDB__ANNOTATE("ddb:scan" DDB__JOIN(__VA_ARGS__))
/* Write sharding of one key's partition (docs/SCHEMA.md "Write sharding"):
 * DDB_WRITE_SHARDS("table", 8, "hash") spreads the items of each logical
 * partition over 8 physical ones; "hash" picks the shard from the item's
 * primary key, "random" (secondary indexes only) at random. */
#define DDB_WRITE_SHARDS(index, count, by) \
    DDB__ANNOTATE("ddb:write_shards" DDB__SEP index DDB__SEP #count DDB__SEP by)
/* Silences ddbgen's hot-partition warning on one key: DDB_HEAT_OK("table",
 * "a few hundred writes a day"). */
#define DDB_HEAT_OK(index, reason) DDB__ANNOTATE("ddb:heat_ok" DDB__SEP index DDB__SEP reason)
/* A global secondary index keyed on the entity's own fields, in order
 * (docs/SCHEMA.md "Multi-attribute keys"): the index is declared
 * DDB_GSI("ByPlace") without key attributes, and each entity on it names
 * its fields, at most four a side:
 *     DDB_KEY_FIELDS("ByPlace", DDB_PK(country), DDB_SK(state, city))
 * DDB_SPARSE as the last argument says that an item whose optional key
 * field is absent is meant to stay out of the index. */
#define DDB_KEY_FIELDS(index, ...) DDB__ANNOTATE("ddb:key_fields" DDB__JOIN(index, __VA_ARGS__))
#define DDB_PK(...) "pk:" #__VA_ARGS__
#define DDB_SK(...) "sk:" #__VA_ARGS__
#define DDB_SPARSE "sparse"

/* Field decorators: after the declarator, before the `;`. */
#define DDB_ATTR(name) DDB__ANNOTATE("ddb:attr" DDB__SEP name)
#define DDB_SHARD(id) DDB__ANNOTATE("ddb:shard" DDB__SEP id)
#define DDB_DERIVED(tmpl) DDB__ANNOTATE("ddb:derived" DDB__SEP tmpl)
#define DDB_UUID DDB__ANNOTATE("ddb:uuid")
#define DDB_AUTO_ID(scope) DDB__ANNOTATE("ddb:auto_id" DDB__SEP scope)
#define DDB_VERSION DDB__ANNOTATE("ddb:version")
#define DDB_TTL DDB__ANNOTATE("ddb:ttl")

/* Typed writes (docs/SCHEMA.md "Declared updates and conditions"). */
#define DDB_UPDATE(...) DDB__ANNOTATE("ddb:update" DDB__JOIN(__VA_ARGS__))
#define DDB_CONDITION(name, expr) DDB__ANNOTATE("ddb:condition" DDB__SEP name DDB__SEP expr)
#define DDB_DEFAULT(value) DDB__ANNOTATE("ddb:default" DDB__SEP value)
#define DDB_CREATED_AT DDB__ANNOTATE("ddb:created_at")
#define DDB_UPDATED_AT DDB__ANNOTATE("ddb:updated_at")
#define DDB_UNIQUE DDB__ANNOTATE("ddb:unique")

#else /* application mode: decorators vanish */

#define DDB_TABLE(cname, ...) struct ddb_table_##cname
#define DDB_PRIMARY(...)
#define DDB_GSI(...)
#define DDB_LSI(...)
#define DDB_PROJECT_KEYS_ONLY
#define DDB_PROJECT_INCLUDE(...)
#define DDB_TYPE_ATTRIBUTE(name)
#define DDB_STREAM(view)
#define DDB_PROVISIONED(rcu, wcu)
#define DDB_DELETION_PROTECTION
#define DDB_REMOVED(entity, items)
#define DDB_ENTITY(table, name)
#define DDB_KEY(...)
#define DDB_COLLECTION(...)
#define DDB_SHARD_SUFFIX(suffix)
#define DDB_RENAMED_FROM(name)
#define DDB_PATTERN(...)
#define DDB_QUERY(...)
#define DDB_SCAN(...)
#define DDB_WRITE_SHARDS(index, count, by)
#define DDB_HEAT_OK(index, reason)
#define DDB_KEY_FIELDS(index, ...)
#define DDB_PK(...)
#define DDB_SK(...)
#define DDB_SPARSE
#define DDB_ATTR(name)
#define DDB_SHARD(id)
#define DDB_DERIVED(tmpl)
#define DDB_UUID
#define DDB_AUTO_ID(scope)
#define DDB_VERSION
#define DDB_TTL
#define DDB_UPDATE(...)
#define DDB_CONDITION(name, expr)
#define DDB_DEFAULT(value)
#define DDB_CREATED_AT
#define DDB_UPDATED_AT
#define DDB_UNIQUE

#endif /* DDB_SCHEMA_PARSE */

#ifdef __cplusplus
}
#endif

#endif /* DDB_SCHEMA_H */
