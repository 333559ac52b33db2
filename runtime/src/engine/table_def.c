/* engine/: the one validator of a table definition (ddb_table_def): the
 * rules and limits of DynamoDB's CreateTable and UpdateTable, in DynamoDB's
 * words, checked on every path that writes a definition (CreateTable,
 * UpdateTable adding or deleting an index, the catalog writer's round trip
 * in catalog.c) and on every definition the table cache loads.  Names are
 * counted in UTF-8 bytes, as DynamoDB counts them
 * (HowItWorks.NamingRulesDataTypes.html).  Also the TableName check of
 * requests on existing tables.  May call core/. */
#include "engine/table_def.h"
#include "core/error.h"
#include "engine/keys.h"

#include <stdio.h>
#include <string.h>

static bool name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
           c == '.';
}

/* DynamoDB's request-validation form for a string member: "1 validation
 * error detected: Value 'x' at 'tableName' failed to satisfy constraint:
 * Member must ...", or "2 validation errors detected: ...; ...".  The
 * value is shown up to 100 bytes. */
static int constraint_fail(ddb_error *err, const char *field, const char *value, const char *const *why, int k)
{
    size_t n = strlen(value);
    int shown = n > 100 ? 100 : (int)n;
    const char *more = n > 100 ? "..." : "";
    if (k == 1)
        return ddbi_fail(err, DDB_EVALIDATION,
                        "1 validation error detected: Value '%.*s%s' at '%s' failed to satisfy constraint: %s", shown,
                        value, more, field, why[0]);
    return ddbi_fail(err, DDB_EVALIDATION,
                    "2 validation errors detected: Value '%.*s%s' at '%s' failed to satisfy constraint: %s; Value "
                    "'%.*s%s' at '%s' failed to satisfy constraint: %s",
                    shown, value, more, field, why[0], shown, value, more, field, why[1]);
}

static int null_member(ddb_error *err, const char *field)
{
    return ddbi_fail(err, DDB_EVALIDATION,
                    "1 validation error detected: Value null at '%s' failed to satisfy constraint: Member must not be "
                    "null",
                    field);
}

/* A table or index name: characters [a-zA-Z0-9_.-] and length min..max,
 * in DynamoDB's words; arn: names skip the pattern (a table ARN). */
static int check_name_member(const char *field, const char *name, size_t min, size_t max, bool arn_ok,
                             ddb_error *err)
{
    if (!name)
        return null_member(err, field);
    size_t n = strlen(name);
    bool bad_char = false;
    if (!(arn_ok && strncmp(name, "arn:", 4) == 0))
        for (size_t i = 0; i < n; i++)
            bad_char |= !name_char(name[i]);
    if (!bad_char && n >= min && n <= max)
        return DDB_OK; /* every request names a table: no formatting unless it fails */
    char lo[64], hi[64];
    snprintf(lo, sizeof lo, "Member must have length greater than or equal to %zu", min);
    snprintf(hi, sizeof hi, "Member must have length less than or equal to %zu", max);
    const char *why[2];
    int k = 0;
    if (bad_char)
        why[k++] = "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+";
    if (n < min)
        why[k++] = lo;
    if (n > max)
        why[k++] = hi;
    return constraint_fail(err, field, name, why, k);
}

/* A name CreateTable gives (table or index): DynamoDB answers a length
 * outside 3..255 with "TableName must be at least 3 characters long and at
 * most 255 characters long" before checking the characters. */
static int check_create_name(const char *param, const char *field, const char *name, ddb_error *err)
{
    size_t n = name ? strlen(name) : 0;
    if (name && (n < 3 || n > 255))
        return ddbi_fail(err, DDB_EVALIDATION,
                        "%s must be at least 3 characters long and at most 255 characters long (\"%.*s%s\" has %zu)",
                        param, (int)(n > 100 ? 100 : n), name, n > 100 ? "..." : "", n);
    return check_name_member(field, name, 3, 255, false, err);
}

/* TableName of a request on an existing table, as DynamoDB validates it
 * before looking the table up (API_PutItem.html and the other item and
 * read operations: "Length Constraints: Minimum length of 1. Maximum length
 * of 1024", a name or a table ARN): outside that, or with characters no
 * table name may hold, the request is a ValidationException in DynamoDB's
 * "N validation error(s) detected" form; a well-formed name of no table is
 * ResourceNotFoundException.  An ARN is looked up as given. */
int ddbi_table_name_check(const char *name, ddb_error *err)
{
    return check_name_member("tableName", name, 1, 1024, true, err);
}

/* An attribute name of a definition (a key schema's, a projection's, the
 * TTL attribute): 1..255 bytes, in DynamoDB's request-validation words
 * (API_KeySchemaElement.html and API_Projection.html: "Length Constraints:
 * Minimum length of 1. Maximum length of 255"; ScyllaDB's
 * test/alternator/test_limits.py test_limit_attribute_length_key_bad shows
 * DynamoDB refusing 256). */
int ddbi_attr_name_check(const char *field, const char *name, ddb_error *err)
{
    if (!name)
        return null_member(err, field);
    size_t n = strlen(name);
    const char *why = n < 1 ? "Member must have length greater than or equal to 1"
                            : "Member must have length less than or equal to 255";
    return n < 1 || n > 255 ? constraint_fail(err, field, name, &why, 1) : DDB_OK;
}

static int check_key_type(const char *prefix, int member, ddb_type t, ddb_error *err)
{
    if (t == DDB_TS || t == DDB_TN || t == DDB_TB)
        return DDB_OK;
    char field[160];
    snprintf(field, sizeof field, "%sattributeDefinitions.%d.member.attributeType", prefix, member);
    const char *why = "Member must satisfy enum value set: [B, N, S]";
    return constraint_fail(err, field, ddb_type_name(t), &why, 1);
}

/* The shape of a multi-attribute key (GSI.DesignPattern.MultiAttributeKeys
 * and API_CreateGlobalSecondaryIndexAction: "Global secondary index
 * supports up to 4 partition and up to 4 sort keys"; a table's and a local
 * secondary index's KeySchema stay at most 2 elements, API_CreateTable and
 * API_LocalSecondaryIndex: "Maximum number of 2 items").  gsi: the schema
 * is a global secondary index's. */
static int check_key_shape(const char *prefix, const char *index, bool gsi, const ddb_key_schema *k, ddb_error *err)
{
    size_t n = 1 + k->n_pk_more + (k->sk ? 1 + k->n_sk_more : k->n_sk_more);
    if ((k->n_pk_more && !k->pk_more) || (k->n_sk_more && !k->sk_more))
        return ddbi_fail(err, DDB_EINVAL, "%s: n_pk_more or n_sk_more is set but its array is NULL",
                         index ? index : "the table's key schema");
    if (!gsi && (k->n_pk_more || k->n_sk_more))
        return ddbi_fail(err, DDB_EVALIDATION,
                         "1 validation error detected: Value at '%skeySchema' failed to satisfy constraint: Member "
                         "must have length less than or equal to 2 (%zu attributes: multi-attribute keys are for "
                         "global secondary indexes only)",
                         prefix, n);
    if (k->n_pk_more > DDB_MAX_KEY_ATTRS - 1 || k->n_sk_more > DDB_MAX_KEY_ATTRS - 1)
        return ddbi_fail(err, DDB_ELIMIT,
                         "One or more parameter values were invalid: Index KeySchema of %s has %zu HASH and %zu RANGE "
                         "elements; a global secondary index supports up to %d partition and up to %d sort keys",
                         index, 1 + k->n_pk_more, k->sk ? 1 + k->n_sk_more : k->n_sk_more, DDB_MAX_KEY_ATTRS,
                         DDB_MAX_KEY_ATTRS);
    if (k->n_sk_more && !k->sk)
        return ddbi_fail(err, DDB_EVALIDATION,
                         "One or more parameter values were invalid: Index KeySchema of %s has further sort key "
                         "attributes but no first one (sk_more needs sk)",
                         index);
    return DDB_OK;
}

/* The key schema of the table (prefix "") or of an index (prefix
 * "globalSecondaryIndexes.N.member."), checked as DynamoDB checks a
 * KeySchema; index names the index in our extra detail.  Members are
 * numbered in declared order, partition-key attributes first. */
static int check_key_schema(const char *prefix, const char *index, bool gsi, const ddb_key_schema *k,
                            ddb_error *err)
{
    int rc = check_key_shape(prefix, index, gsi, k, err);
    if (rc)
        return rc;
    const char *names[2 * DDB_MAX_KEY_ATTRS];
    ddb_type types[2 * DDB_MAX_KEY_ATTRS];
    size_t n_pk, n = ddbi_key_schema_attrs(k, names, types, &n_pk);
    for (size_t i = 0; i < n && !rc; i++) {
        char f[160];
        snprintf(f, sizeof f, "%skeySchema.%zu.member.attributeName", prefix, i + 1);
        rc = ddbi_attr_name_check(f, names[i], err);
    }
    for (size_t i = 0; i < n && !rc; i++)
        rc = check_key_type(prefix, (int)i + 1, types[i], err);
    for (size_t i = 0; i < n && !rc; i++)
        for (size_t j = 0; j < i && !rc; j++) {
            if (strcmp(names[i], names[j]) != 0)
                continue;
            if (n == 2)
                rc = ddbi_fail(err, DDB_EVALIDATION,
                               "Both the Hash Key and the Range Key element in the KeySchema have the same name "
                               "(\"%s\"%s%s)",
                               names[i], index ? ", index " : "", index ? index : "");
            else
                rc = ddbi_fail(err, DDB_EVALIDATION,
                               "One or more parameter values were invalid: Duplicate attribute name in the KeySchema: "
                               "%s (index %s)",
                               names[i], index ? index : "of the table");
        }
    return rc;
}

/* Every attribute that appears in two key schemas must have one type. */
static int check_attr_type(const ddb_table_def *d, const char *name, ddb_type type, ddb_error *err)
{
    const ddb_key_schema *ks[1 + DDB_MAX_INDEXES];
    size_t n = 0;
    ks[n++] = &d->key;
    for (size_t i = 0; i < d->n_indexes; i++)
        ks[n++] = &d->indexes[i].key;
    for (size_t i = 0; i < n; i++) {
        const char *names[2 * DDB_MAX_KEY_ATTRS];
        ddb_type types[2 * DDB_MAX_KEY_ATTRS];
        size_t na = ddbi_key_schema_attrs(ks[i], names, types, NULL);
        for (size_t j = 0; j < na; j++)
            if (strcmp(names[j], name) == 0 && types[j] != type)
                goto bad;
    }
    return DDB_OK;
bad:
    /* DynamoDB answers two AttributeDefinitions of one name so (pynamodb's
     * tests, run against DynamoDB) */
    return ddbi_fail(err, DDB_EVALIDATION,
                    "Cannot have two attributes with the same name (attribute %s is declared with two different "
                    "types)",
                    name);
}

/* An index's NonKeyAttributes (INCLUDE): each 1..255 bytes, none twice
 * (a set of names: API_Projection.html). */
static int check_projected(const char *prefix, const ddb_index_def *x, ddb_error *err)
{
    char field[200];
    for (size_t j = 0; j < x->n_include; j++) {
        snprintf(field, sizeof field, "%sprojection.nonKeyAttributes.%zu.member", prefix, j + 1);
        int rc = ddbi_attr_name_check(field, x->include[j], err);
        if (rc)
            return rc;
        for (size_t k = 0; k < j; k++)
            if (strcmp(x->include[k], x->include[j]) == 0)
                return ddbi_fail(err, DDB_EVALIDATION,
                                 "One or more parameter values were invalid: Duplicate attribute in "
                                 "NonKeyAttributes: %s (index %s)",
                                 x->include[j], x->name);
    }
    return DDB_OK;
}

/* The member of a request's index that only a request is held to: at most
 * 20 NonKeyAttributes in one index (API_Projection.html: "Array Members:
 * Maximum number of 20 items").  Not a rule of stored definitions: versions
 * before it stored more, and those load. */
int ddbi_index_request_check(const char *prefix, const ddb_index_def *x, ddb_error *err)
{
    if (x->projection != DDB_PROJ_INCLUDE || x->n_include <= DDB_MAX_NONKEY_PER_INDEX || !x->include)
        return DDB_OK; /* (no list: the validator's "NonKeyAttributes is not specified") */
    char list[128];
    size_t n = 0;
    for (size_t j = 0; j < x->n_include && n + 8 < sizeof list; j++) {
        int w = snprintf(list + n, sizeof list - n, "%s%s", j ? ", " : "", x->include[j] ? x->include[j] : "null");
        n = w < 0 || (size_t)w >= sizeof list - n ? sizeof list - 1 : n + (size_t)w;
    }
    return ddbi_fail(err, DDB_ELIMIT,
                     "1 validation error detected: Value '[%s%s]' at '%sprojection.nonKeyAttributes' failed to satisfy "
                     "constraint: Member must have length less than or equal to %d (index %s projects %zu)",
                     list, n + 1 >= sizeof list ? "..." : "", prefix, DDB_MAX_NONKEY_PER_INDEX,
                     x->name ? x->name : "null", x->n_include);
}

/* Field prefix of index i of d in a CreateTable request
 * ("globalSecondaryIndexes.N.member."), counted by kind. */
static void index_prefix(const ddb_table_def *d, size_t i, char *buf, size_t cap)
{
    size_t member = 1;
    for (size_t j = 0; j < i; j++)
        member += d->indexes[j].local == d->indexes[i].local;
    snprintf(buf, cap, "%sSecondaryIndexes.%zu.member.", d->indexes[i].local ? "local" : "global", member);
}

int ddbi_table_def_request_check(const ddb_table_def *d, ddb_error *err)
{
    for (size_t i = 0; d->indexes && i < d->n_indexes; i++) {
        char prefix[80];
        index_prefix(d, i, prefix, sizeof prefix);
        int rc = ddbi_index_request_check(prefix, &d->indexes[i], err);
        if (rc)
            return rc;
    }
    return DDB_OK;
}

int ddbi_table_def_validate(const ddb_table_def *d, ddb_error *err)
{
    /* CreateTable: 3..255 characters (HowItWorks.NamingRulesDataTypes),
     * the length checked first, in DynamoDB's words */
    int rc = check_create_name("TableName", "tableName", d->name, err);
    if (!rc)
        rc = check_key_schema("", NULL, false, &d->key, err);
    if (rc)
        return rc;
    size_t ngsi = 0, nlsi = 0, projected = 0;
    if (d->n_indexes && !d->indexes)
        return ddbi_fail(err, DDB_EINVAL, "n_indexes is %zu but indexes is NULL", d->n_indexes);
    /* the messages are DynamoDB's CreateTable answers (dynalite
     * validations/createTable.js and test/createTable.js; Projection:
     * API_Projection.html; the limits: ServiceQuotas.html) */
    for (size_t i = 0; i < d->n_indexes; i++) {
        const ddb_index_def *x = &d->indexes[i];
        char field[80], prefix[80];
        const char *kind = x->local ? "local" : "global";
        size_t member = (x->local ? nlsi : ngsi) + 1;
        snprintf(field, sizeof field, "%sSecondaryIndexes.%zu.member.indexName", kind, member);
        snprintf(prefix, sizeof prefix, "%sSecondaryIndexes.%zu.member.", kind, member);
        if ((rc = check_create_name("IndexName", field, x->name, err)) ||
            (rc = check_key_schema(prefix, x->name, !x->local, &x->key, err)))
            return rc;
        for (size_t j = 0; j < i; j++)
            if (strcmp(d->indexes[j].name, x->name) == 0)
                return ddbi_fail(err, DDB_EVALIDATION,
                                "One or more parameter values were invalid: Duplicate index name: %s", x->name);
        if (x->local) {
            nlsi++;
            if (!d->key.sk)
                return ddbi_fail(err, DDB_EVALIDATION,
                                "One or more parameter values were invalid: Table KeySchema does not have a range key, "
                                "which is required when specifying a LocalSecondaryIndex (index %s)",
                                x->name);
            if (strcmp(x->key.pk, d->key.pk) != 0)
                return ddbi_fail(err, DDB_EVALIDATION,
                                "One or more parameter values were invalid: Index KeySchema does not have the same "
                                "leading hash key as table KeySchema for index: %s. index hash key: %s, table hash "
                                "key: %s",
                                x->name, x->key.pk, d->key.pk);
            if (!x->key.sk)
                return ddbi_fail(err, DDB_EVALIDATION,
                                "One or more parameter values were invalid: Index KeySchema does not have a range key "
                                "for index: %s",
                                x->name);
        } else {
            ngsi++;
        }
        if (x->projection > DDB_PROJ_INCLUDE)
            return ddbi_fail(err, DDB_EVALIDATION,
                            "1 validation error detected: Value '%d' at '%sprojection.projectionType' failed to "
                            "satisfy constraint: Member must satisfy enum value set: [ALL, INCLUDE, KEYS_ONLY]",
                            (int)x->projection, prefix);
        if (x->projection == DDB_PROJ_INCLUDE) {
            if (!x->n_include || !x->include)
                return ddbi_fail(err, DDB_EVALIDATION,
                                "One or more parameter values were invalid: ProjectionType is INCLUDE, but "
                                "NonKeyAttributes is not specified (index %s)",
                                x->name);
            if ((rc = check_projected(prefix, x, err)))
                return rc;
            projected += x->n_include;
            if (projected > 100)
                return ddbi_fail(err, DDB_ELIMIT,
                                "One or more parameter values were invalid: Number of projected attributes in all "
                                "indexes exceeds limit of 100 (%zu up to index %s)",
                                projected, x->name);
        }
    }
    if (ngsi > DDB_MAX_GSI)
        return ddbi_fail(err, DDB_ELIMIT,
                        "One or more parameter values were invalid: GlobalSecondaryIndex count exceeds the per-table "
                        "limit of %d (table %s has %zu)",
                        DDB_MAX_GSI, d->name, ngsi);
    if (nlsi > DDB_MAX_LSI)
        return ddbi_fail(err, DDB_ELIMIT,
                        "One or more parameter values were invalid: Number of LocalSecondaryIndexes exceeds per-table "
                        "limit of %d (table %s has %zu)",
                        DDB_MAX_LSI, d->name, nlsi);
    if (d->ttl_attribute && d->ttl_attribute[0] &&
        (rc = ddbi_attr_name_check("timeToLiveSpecification.attributeName", d->ttl_attribute, err)))
        return rc;
    if ((rc = check_attr_type(d, d->key.pk, d->key.pk_type, err)) ||
        (d->key.sk && (rc = check_attr_type(d, d->key.sk, d->key.sk_type, err))))
        return rc;
    for (size_t i = 0; i < d->n_indexes; i++) {
        const char *names[2 * DDB_MAX_KEY_ATTRS];
        ddb_type types[2 * DDB_MAX_KEY_ATTRS];
        size_t na = ddbi_key_schema_attrs(&d->indexes[i].key, names, types, NULL);
        for (size_t j = 0; j < na; j++)
            if ((rc = check_attr_type(d, names[j], types[j], err)))
                return rc;
    }
    return DDB_OK;
}