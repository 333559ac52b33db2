/* ddb serve: tables.  CreateTable, DeleteTable, DescribeTable, ListTables,
 * UpdateTable (GSI create, stream settings; billing mode, throughput and
 * deletion protection in table_settings.c), UpdateTimeToLive,
 * DescribeTimeToLive, DescribeLimits, DescribeEndpoints (API_* pages of the
 * DynamoDB API Reference).  The embedded engine creates and deletes at
 * once: tables and indexes are ACTIVE as soon as the call returns.  Calls
 * wire.c, reply.c, shapes.c, table_settings.c and libddb. */
#include "../cli.h"
#include "serve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the definition in a CreateTable request ---- */

typedef struct attr_defs {
    const json_t *arr;
    bool *used;
} attr_defs;

static int attr_type(serve_req *r, attr_defs *defs, const char *name, ddb_type *out)
{
    size_t i;
    const json_t *d;
    json_array_foreach(defs->arr, i, d) {
        const char *n, *t;
        if (w_str_req(r, d, "AttributeName", "attributeDefinitions.member.attributeName", &n) ||
            w_str_req(r, d, "AttributeType", "attributeDefinitions.member.attributeType", &t))
            return -1;
        if (strcmp(n, name))
            continue;
        defs->used[i] = true;
        if (strcmp(t, "S") == 0)
            *out = DDB_TS;
        else if (strcmp(t, "N") == 0)
            *out = DDB_TN;
        else if (strcmp(t, "B") == 0)
            *out = DDB_TB;
        else
            return serve_validation(r,
                                    "1 validation error detected: Value '%s' at 'attributeDefinitions.%zu.member."
                                    "attributeType' failed to satisfy constraint: Member must satisfy enum value "
                                    "set: [B, N, S]",
                                    t, i + 1);
        return 0;
    }
    return serve_validation(r, "One or more parameter values were invalid: Some index key attributes are not defined "
                               "in AttributeDefinitions. Keys: [%s]",
                            name);
}

/* AttributeDefinitions name each attribute once (DynamoDB's answer to two
 * of one name, pynamodb's tests run against DynamoDB). */
static int attr_defs_unique(serve_req *r, const json_t *arr)
{
    for (size_t i = 0; i < json_array_size(arr); i++)
        for (size_t j = 0; j < i; j++) {
            const char *a = json_string_value(json_object_get(json_array_get(arr, i), "AttributeName"));
            const char *b = json_string_value(json_object_get(json_array_get(arr, j), "AttributeName"));
            if (a && b && strcmp(a, b) == 0)
                return serve_validation(r, "Cannot have two attributes with the same name (%s)", a);
        }
    return 0;
}

/* KeySchema [{AttributeName, KeyType HASH|RANGE}] with types from
 * AttributeDefinitions.  A global secondary index's may hold up to four
 * HASH elements, then up to four RANGE elements, in declared order (a
 * multi-attribute key: API_KeySchemaElement, developer guide
 * GSI.DesignPattern.MultiAttributeKeys); the counts and the table's and
 * LSIs' limit of two are the engine's validator's to answer.  max: the
 * elements this request member may hold (2 for the table's). */
static int key_schema(serve_req *r, const json_t *o, const char *path, size_t max, attr_defs *defs,
                      ddb_key_schema *k)
{
    memset(k, 0, sizeof *k);
    const json_t *ks = json_object_get(o, "KeySchema");
    if (!ks || json_is_null(ks))
        return serve_validation(r,
                                "1 validation error detected: Value null at '%s' failed to satisfy constraint: "
                                "Member must not be null",
                                path);
    if (!json_is_array(ks) || json_array_size(ks) < 1 || json_array_size(ks) > max)
        return serve_validation(r,
                                "1 validation error detected: Value at '%s' failed to satisfy constraint: Member "
                                "must have length less than or equal to %zu",
                                path, max);
    ddb_key_part *more = ddb_arena_alloc(r->a, json_array_size(ks) * sizeof *more);
    if (!more)
        return serve_fail_code(r, DDB_ENOMEM);
    size_t i;
    const json_t *e;
    json_array_foreach(ks, i, e) {
        const char *name, *type;
        ddb_type t = DDB_TS;
        if (w_str_req(r, e, "AttributeName", "keySchema.member.attributeName", &name) ||
            w_str_req(r, e, "KeyType", "keySchema.member.keyType", &type))
            return -1;
        bool hash = strcmp(type, "HASH") == 0;
        if ((!hash && strcmp(type, "RANGE") != 0) || (i == 0 && !hash))
            return serve_validation(r, "Invalid KeySchema: The first KeySchemaElement is not a HASH key type");
        if (hash && k->sk)
            return serve_validation(r, "Invalid KeySchema: a HASH KeySchemaElement (%s) follows a RANGE one", name);
        if (attr_type(r, defs, name, &t))
            return -1;
        if (i == 0) {
            k->pk = name;
            k->pk_type = t;
        } else if (hash) {
            more[k->n_pk_more++] = (ddb_key_part){name, t};
        } else if (!k->sk) {
            k->sk = name;
            k->sk_type = t;
            k->sk_more = more + k->n_pk_more;
        } else {
            more[k->n_pk_more + k->n_sk_more++] = (ddb_key_part){name, t};
        }
    }
    k->pk_more = k->n_pk_more ? more : NULL;
    if (!k->n_sk_more)
        k->sk_more = NULL;
    return 0;
}

static int projection(serve_req *r, const json_t *x, ddb_index_def *d)
{
    const json_t *p = json_object_get(x, "Projection");
    const char *type = NULL;
    if (p && w_str(r, p, "ProjectionType", &type))
        return -1;
    if (!type || strcmp(type, "ALL") == 0) {
        d->projection = DDB_PROJ_ALL;
    } else if (strcmp(type, "KEYS_ONLY") == 0) {
        d->projection = DDB_PROJ_KEYS_ONLY;
    } else if (strcmp(type, "INCLUDE") == 0) {
        d->projection = DDB_PROJ_INCLUDE;
    } else {
        return serve_validation(r, "1 validation error detected: Value '%s' at 'projection.projectionType' failed to "
                                   "satisfy constraint: Member must satisfy enum value set: [ALL, INCLUDE, KEYS_ONLY]",
                                type);
    }
    const json_t *inc = p ? json_object_get(p, "NonKeyAttributes") : NULL;
    if (inc && json_is_array(inc)) {
        size_t n = json_array_size(inc);
        const char **names = ddb_arena_alloc(r->a, (n ? n : 1) * sizeof *names);
        if (!names)
            return serve_fail_code(r, DDB_ENOMEM);
        for (size_t i = 0; i < n; i++)
            if (!(names[i] = json_string_value(json_array_get(inc, i))))
                return serve_fail(r, 400, "SerializationException", "NonKeyAttributes: expected strings");
        d->include = names;
        d->n_include = n;
    }
    return 0;
}

static int throughput(serve_req *r, const json_t *o, uint64_t *rcu, uint64_t *wcu)
{
    const json_t *pt = json_object_get(o, "ProvisionedThroughput");
    if (!pt || json_is_null(pt))
        return 0;
    bool p1, p2;
    return w_uint(r, pt, "ReadCapacityUnits", "provisionedThroughput.readCapacityUnits", 1, 40000, rcu, &p1) ||
                   w_uint(r, pt, "WriteCapacityUnits", "provisionedThroughput.writeCapacityUnits", 1, 40000, wcu,
                          &p2)
               ? -1
               : 0;
}

static int index_def(serve_req *r, const json_t *x, bool local, attr_defs *defs, ddb_index_def *d)
{
    memset(d, 0, sizeof *d);
    d->local = local;
    if (w_str_req(r, x, "IndexName", local ? "localSecondaryIndexes.member.indexName"
                                           : "globalSecondaryIndexes.member.indexName",
                  &d->name) ||
        key_schema(r, x, "keySchema", 2 * DDB_MAX_KEY_ATTRS, defs, &d->key) || projection(r, x, d) ||
        (!local && throughput(r, x, &d->rcu, &d->wcu)))
        return -1;
    return 0;
}

static int stream_spec(serve_req *r, const json_t *o, ddb_stream_spec *s, bool *given)
{
    memset(s, 0, sizeof *s);
    *given = false;
    const json_t *ss = json_object_get(o, "StreamSpecification");
    if (!ss || json_is_null(ss))
        return 0;
    bool enabled = false;
    const char *view = NULL;
    if (w_bool(r, ss, "StreamEnabled", &enabled) || w_str(r, ss, "StreamViewType", &view))
        return -1;
    *given = true;
    if (!enabled) {
        if (view)
            return serve_validation(r, "One or more parameter values were invalid: Disabled stream spec should not "
                                       "have view type");
        return 0;
    }
    if (!view || ddb_stream_view_parse(view, &s->view) || s->view == DDB_STREAM_NONE)
        return serve_validation(r, "One or more parameter values were invalid: Enabled stream spec must have a valid "
                                   "view type");
    return 0;
}

static int tags_check(serve_req *r, const json_t *tags);
static int tags_store(serve_req *r, const char *table, const json_t *tags);

int op_create_table(serve_req *r)
{
    ddb_table_def def;
    memset(&def, 0, sizeof def);
    const json_t *ad = json_object_get(r->in, "AttributeDefinitions");
    if (w_table(r, r->in, &def.name))
        return -1;
    if (!ad || !json_is_array(ad))
        return serve_validation(r, "1 validation error detected: Value null at 'attributeDefinitions' failed to "
                                   "satisfy constraint: Member must not be null");
    if (attr_defs_unique(r, ad))
        return -1;
    attr_defs defs = {ad, ddb_arena_alloc(r->a, json_array_size(ad) + 1)};
    if (!defs.used)
        return serve_fail_code(r, DDB_ENOMEM);
    memset(defs.used, 0, json_array_size(ad) + 1);
    if (key_schema(r, r->in, "keySchema", 2, &defs, &def.key))
        return -1;
    const json_t *gsi = json_object_get(r->in, "GlobalSecondaryIndexes");
    const json_t *lsi = json_object_get(r->in, "LocalSecondaryIndexes");
    size_t ng = json_is_array(gsi) ? json_array_size(gsi) : 0, nl = json_is_array(lsi) ? json_array_size(lsi) : 0;
    ddb_index_def *ix = ddb_arena_alloc(r->a, (ng + nl + 1) * sizeof *ix);
    if (!ix)
        return serve_fail_code(r, DDB_ENOMEM);
    for (size_t i = 0; i < ng + nl; i++)
        if (index_def(r, json_array_get(i < ng ? gsi : lsi, i < ng ? i : i - ng), i >= ng, &defs, &ix[i]))
            return -1;
    def.indexes = ix;
    def.n_indexes = ng + nl;
    for (size_t i = 0; i < json_array_size(ad); i++)
        if (!defs.used[i])
            return serve_validation(r, "One or more parameter values were invalid: Number of attributes in KeySchema "
                                       "does not exactly match number of attributes defined in AttributeDefinitions");
    const char *billing = NULL;
    bool given;
    if (w_str(r, r->in, "BillingMode", &billing) || throughput(r, r->in, &def.rcu, &def.wcu) ||
        stream_spec(r, r->in, &def.stream, &given))
        return -1;
    if (json_object_get(r->in, "DeletionProtectionEnabled") &&
        w_bool(r, r->in, "DeletionProtectionEnabled", &def.deletion_protection))
        return -1;
    bool on_demand = billing && strcmp(billing, "PAY_PER_REQUEST") == 0;
    if (billing && !on_demand && strcmp(billing, "PROVISIONED") != 0)
        return serve_validation(r, "1 validation error detected: Value '%s' at 'billingMode' failed to satisfy "
                                   "constraint: Member must satisfy enum value set: [PROVISIONED, PAY_PER_REQUEST]",
                                billing);
    if (on_demand && (def.rcu || def.wcu))
        return serve_validation(r, "One or more parameter values were invalid: Neither ReadCapacityUnits nor "
                                   "WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST");
    if (!on_demand && !def.rcu)
        return serve_validation(r, "One or more parameter values were invalid: ReadCapacityUnits and "
                                   "WriteCapacityUnits must both be specified when BillingMode is PROVISIONED");
    const json_t *tags = json_object_get(r->in, "Tags");
    if (tags && tags_check(r, tags))
        return -1;
    int rc = ddb_create_table(r->srv->db, &def, &r->err);
    if (rc)
        return serve_fail_code(r, rc);
    if (tags && tags_store(r, def.name, tags))
        return -1;
    json_t *t = table_description(r, def.name, "ACTIVE");
    if (!t)
        return -1;
    json_object_set_new(r->out, "TableDescription", t);
    return 0;
}

/* ---- describing ---- */

json_t *table_description(serve_req *r, const char *table, const char *status)
{
    ddb_table_desc *d;
    ddb_stream_desc sd;
    int rc = ddb_describe_table(r->srv->db, table, r->a, &d, &r->err);
    if (!rc)
        rc = ddb_stream_describe(r->srv->db, table, &sd, &r->err);
    if (rc) {
        serve_fail_code(r, rc);
        return NULL;
    }
    json_t *t = table_shape(d, &sd);
    /* the stream counters are ddb's own; DynamoDB describes the stream by its ARN */
    json_object_del(t, "StreamDescription");
    json_object_set_new(t, "TableStatus", json_string(status));
    json_object_set_new(t, "TableArn", json_string(w_table_arn(r, table)));
    settings_describe(r, t, d, &sd); /* table_settings.c */
    json_t *pt = json_object_get(t, "ProvisionedThroughput");
    if (!pt) {
        pt = json_pack("{s:i,s:i,s:i}", "NumberOfDecreasesToday", 0, "ReadCapacityUnits", 0, "WriteCapacityUnits", 0);
        json_object_set_new(t, "ProvisionedThroughput", pt);
    } else {
        json_object_set_new(pt, "NumberOfDecreasesToday", json_integer(0));
    }
    /* per index: status, ARN, counts (TableDescription.GlobalSecondaryIndexes) */
    const char *lists[] = {"GlobalSecondaryIndexes", "LocalSecondaryIndexes"};
    for (size_t l = 0; l < 2; l++) {
        size_t i;
        json_t *x;
        json_array_foreach(json_object_get(t, lists[l]), i, x) {
            const char *name = json_string_value(json_object_get(x, "IndexName"));
            size_t n = strlen(name) + 16;
            char *arn = ddb_arena_alloc(r->a, strlen(w_table_arn(r, table)) + n);
            if (arn)
                sprintf(arn, "%s/index/%s", w_table_arn(r, table), name);
            json_object_set_new(x, "IndexArn", json_string(arn ? arn : ""));
            json_object_set_new(x, "IndexSizeBytes", json_integer(0));
            json_object_set_new(x, "ItemCount", json_integer(0));
            if (l == 0) {
                json_object_set_new(x, "IndexStatus", json_string("ACTIVE"));
                for (size_t k = 0; k < d->def.n_indexes; k++)
                    if (strcmp(d->def.indexes[k].name, name) == 0)
                        json_object_set_new(x, "ProvisionedThroughput",
                                            json_pack("{s:i,s:I,s:I}", "NumberOfDecreasesToday", 0,
                                                      "ReadCapacityUnits", (json_int_t)d->def.indexes[k].rcu,
                                                      "WriteCapacityUnits", (json_int_t)d->def.indexes[k].wcu));
            }
        }
    }
    return t;
}

int op_describe_table(serve_req *r)
{
    const char *table;
    if (w_table(r, r->in, &table))
        return -1;
    json_t *t = table_description(r, table, "ACTIVE");
    if (!t)
        return -1;
    json_object_set_new(r->out, "Table", t);
    return 0;
}

int op_delete_table(serve_req *r)
{
    const char *table;
    if (w_table(r, r->in, &table))
        return -1;
    json_t *t = table_description(r, table, "DELETING");
    if (!t)
        return -1;
    int rc = ddb_delete_table(r->srv->db, table, &r->err);
    if (rc) {
        json_decref(t);
        return serve_fail_code(r, rc);
    }
    json_object_set_new(r->out, "TableDescription", t);
    return 0;
}

/* ListTables: names after ExclusiveStartTableName, at most Limit (1..100, default 100). */
int op_list_tables(serve_req *r)
{
    const char *start;
    uint64_t limit = 100;
    bool given;
    if (w_str(r, r->in, "ExclusiveStartTableName", &start) ||
        w_uint(r, r->in, "Limit", "limit", 1, 100, &limit, &given))
        return -1;
    const char **names;
    size_t n;
    int rc = ddb_list_tables(r->srv->db, r->a, &names, &n, &r->err);
    if (rc)
        return serve_fail_code(r, rc);
    json_t *arr = json_array();
    size_t i = 0;
    while (i < n && start && strcmp(names[i], start) <= 0)
        i++;
    for (; i < n && json_array_size(arr) < limit; i++)
        json_array_append_new(arr, json_string(names[i]));
    json_object_set_new(r->out, "TableNames", arr);
    if (i < n && json_array_size(arr))
        json_object_set_new(r->out, "LastEvaluatedTableName", json_string(names[i - 1]));
    return 0;
}

/* UpdateTable: GlobalSecondaryIndexUpdates Create and Delete,
 * StreamSpecification, BillingMode, ProvisionedThroughput and
 * DeletionProtectionEnabled (table_settings.c).  Updating an index's
 * throughput is refused. */
int op_update_table(serve_req *r)
{
    const char *table;
    if (w_table(r, r->in, &table))
        return -1;
    const json_t *ad = json_object_get(r->in, "AttributeDefinitions");
    attr_defs defs = {json_is_array(ad) ? ad : NULL, NULL};
    if (defs.arr) {
        if (attr_defs_unique(r, ad))
            return -1;
        defs.used = ddb_arena_alloc(r->a, json_array_size(ad) + 1);
        if (!defs.used)
            return serve_fail_code(r, DDB_ENOMEM);
    }
    if (settings_update(r, table)) /* billing mode, throughput, deletion protection (table_settings.c) */
        return -1;
    const json_t *ups = json_object_get(r->in, "GlobalSecondaryIndexUpdates");
    size_t i, changes = 0;
    const json_t *u;
    /* everything checked before anything changes: one index created or
     * deleted per call (DynamoDB: "Subscriber limit exceeded: Only 1 online
     * index can be created or deleted simultaneously per table", quoted in
     * taoensso/faraday issue 80), the stream settings parsed */
    json_array_foreach(ups, i, u) changes += json_object_get(u, "Create") || json_object_get(u, "Delete");
    if (changes > 1)
        return serve_fail(r, 400, "LimitExceededException",
                          "Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per "
                          "table");
    ddb_stream_spec s;
    bool given;
    if (stream_spec(r, r->in, &s, &given))
        return -1;
    if (given && settings_stream_check(r, table, &s)) /* enabled twice, disabled twice, a view change */
        return -1;
    json_array_foreach(ups, i, u) {
        const json_t *create = json_object_get(u, "Create"), *del = json_object_get(u, "Delete");
        if (json_object_get(u, "Update"))
            return serve_validation(r, "ddb serve cannot update a global secondary index's throughput");
        if (del) {
            const char *name;
            if (w_str_req(r, del, "IndexName", "globalSecondaryIndexUpdates.member.delete.indexName", &name))
                return -1;
            int rc = ddb_delete_index(r->srv->db, table, name, &r->err);
            if (rc)
                return serve_fail_code(r, rc);
            continue;
        }
        if (!create)
            continue;
        if (!defs.arr)
            return serve_validation(r, "One or more parameter values were invalid: Some index key attributes are not "
                                       "defined in AttributeDefinitions");
        ddb_index_def x;
        if (index_def(r, create, false, &defs, &x))
            return -1;
        int rc = ddb_add_index(r->srv->db, table, &x, NULL, NULL, &r->err);
        if (rc)
            return serve_fail_code(r, rc);
    }
    if (given) {
        int rc = ddb_update_table_stream(r->srv->db, table, &s, &r->err);
        if (rc)
            return serve_fail_code(r, rc);
    }
    json_t *t = table_description(r, table, "ACTIVE");
    if (!t)
        return -1;
    json_object_set_new(r->out, "TableDescription", t);
    return 0;
}

/* ---- time to live ---- */

int op_update_ttl(serve_req *r)
{
    const char *table, *attr;
    bool enabled = false;
    const json_t *spec = json_object_get(r->in, "TimeToLiveSpecification");
    if (w_table(r, r->in, &table))
        return -1;
    if (!spec)
        return serve_validation(r, "1 validation error detected: Value null at 'timeToLiveSpecification' failed to "
                                   "satisfy constraint: Member must not be null");
    if (w_str_req(r, spec, "AttributeName", "timeToLiveSpecification.attributeName", &attr) ||
        w_bool(r, spec, "Enabled", &enabled))
        return -1;
    ddb_table_desc *d;
    int rc = ddb_describe_table(r->srv->db, table, r->a, &d, &r->err);
    if (rc)
        return serve_fail_code(r, rc);
    /* API_UpdateTimeToLive: enabling twice or disabling when disabled is a ValidationException */
    if (enabled && d->def.ttl_attribute)
        return serve_validation(r, "TimeToLive is already enabled");
    if (!enabled && !d->def.ttl_attribute)
        return serve_validation(r, "TimeToLive is already disabled");
    if ((rc = ddb_update_time_to_live(r->srv->db, table, enabled ? attr : NULL, &r->err)))
        return serve_fail_code(r, rc);
    json_object_set_new(r->out, "TimeToLiveSpecification",
                        json_pack("{s:s,s:b}", "AttributeName", attr, "Enabled", enabled));
    return 0;
}

int op_describe_ttl(serve_req *r)
{
    const char *table;
    ddb_table_desc *d;
    if (w_table(r, r->in, &table))
        return -1;
    int rc = ddb_describe_table(r->srv->db, table, r->a, &d, &r->err);
    if (rc)
        return serve_fail_code(r, rc);
    json_object_set_new(r->out, "TimeToLiveDescription",
                        d->def.ttl_attribute ? json_pack("{s:s,s:s}", "TimeToLiveStatus", "ENABLED", "AttributeName",
                                                         d->def.ttl_attribute)
                                             : json_pack("{s:s}", "TimeToLiveStatus", "DISABLED"));
    return 0;
}

/* ---- account ---- */

/* DescribeLimits: DynamoDB's default quotas (ServiceQuotas.html). */
int op_describe_limits(serve_req *r)
{
    json_object_set_new(r->out, "AccountMaxReadCapacityUnits", json_integer(80000));
    json_object_set_new(r->out, "AccountMaxWriteCapacityUnits", json_integer(80000));
    json_object_set_new(r->out, "TableMaxReadCapacityUnits", json_integer(40000));
    json_object_set_new(r->out, "TableMaxWriteCapacityUnits", json_integer(40000));
    return 0;
}

/* DescribeEndpoints: this server, cached for a day as DynamoDB answers. */
int op_describe_endpoints(serve_req *r)
{
    json_object_set_new(r->out, "Endpoints",
                        json_pack("[{s:s,s:i}]", "Address", r->host ? r->host : "localhost", "CachePeriodInMinutes",
                                  1440));
    return 0;
}

/* ---- tags, kept as table metadata (deleted with the table) ---- */

#define TAGS_META "ddb.serve.tags"

static json_t *tags_load(serve_req *r, const char *table)
{
    void *val;
    size_t len;
    ddb_error e;
    int rc = ddb_table_meta_get(r->srv->db, table, TAGS_META, r->a, &val, &len, &e);
    if (rc == DDB_ENOTFOUND)
        return json_object();
    if (rc) {
        r->err = e;
        serve_fail_code(r, rc);
        return NULL;
    }
    json_t *o = json_loadb(val, len, 0, NULL);
    return o && json_is_object(o) ? o : (json_decref(o), json_object());
}

static int tags_save(serve_req *r, const char *table, json_t *tags)
{
    char *s = json_dumps(tags, JSON_COMPACT | JSON_SORT_KEYS);
    if (!s)
        return serve_fail_code(r, DDB_ENOMEM);
    int rc = ddb_table_meta_put(r->srv->db, table, TAGS_META, s, strlen(s), &r->err);
    free(s);
    return rc ? serve_fail_code(r, rc) : 0;
}

/* Characters of UTF-8 text (DynamoDB's tag lengths count characters). */
static size_t utf8_chars(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xc0) != 0x80;
    return n;
}

/* Tags [{Key, Value}] as a request gives them: an array of strings, keys
 * of 1..128 and values of 0..256 characters, at most 50 keys (API_Tag.html,
 * TaggingRestrictions.html).  Checked before anything is stored, so that a
 * CreateTable refused for its tags creates no table. */
static int tags_check(serve_req *r, const json_t *tags)
{
    if (!json_is_array(tags))
        return serve_fail(r, 400, "SerializationException", "Tags: expected an array");
    size_t i;
    const json_t *t;
    json_array_foreach(tags, i, t) {
        const char *k, *v;
        if (w_str_req(r, t, "Key", "tags.member.key", &k) || w_str_req(r, t, "Value", "tags.member.value", &v))
            return -1;
        size_t kn = utf8_chars(k), vn = utf8_chars(v);
        if (kn < 1 || kn > 128 || vn > 256)
            return serve_validation(r,
                                    "1 validation error detected: Value '%.100s' at 'tags.%zu.member.%s' failed to "
                                    "satisfy constraint: Member must have length %s",
                                    kn < 1 || kn > 128 ? k : v, i + 1, kn < 1 || kn > 128 ? "key" : "value",
                                    kn < 1 ? "greater than or equal to 1"
                                           : kn > 128 ? "less than or equal to 128" : "less than or equal to 256");
    }
    if (json_array_size(tags) > 50)
        return serve_fail(r, 400, "LimitExceededException", "The number of tags exceeds the limit of 50");
    return 0;
}

/* Add Tags [{Key, Value}] (API_Tag: at most 50 per resource). */
static int tags_store(serve_req *r, const char *table, const json_t *tags)
{
    if (tags_check(r, tags))
        return -1;
    json_t *cur = tags_load(r, table);
    if (!cur)
        return -1;
    size_t i;
    const json_t *t;
    json_array_foreach(tags, i, t) {
        const char *k, *v;
        if (w_str_req(r, t, "Key", "tags.member.key", &k) || w_str_req(r, t, "Value", "tags.member.value", &v)) {
            json_decref(cur);
            return -1;
        }
        json_object_set_new(cur, k, json_string(v));
    }
    if (json_object_size(cur) > 50) {
        json_decref(cur);
        return serve_fail(r, 400, "LimitExceededException", "The number of tags exceeds the limit of 50");
    }
    int rc = tags_save(r, table, cur);
    json_decref(cur);
    return rc;
}

static int resource_table(serve_req *r, const char **table)
{
    const char *arn;
    if (w_str_req(r, r->in, "ResourceArn", "resourceArn", &arn))
        return -1;
    if (!(*table = w_arn_table(r, arn)))
        return serve_validation(r, "Invalid TableArn: %s", arn);
    ddb_table_desc *d;
    int rc = ddb_describe_table(r->srv->db, *table, r->a, &d, &r->err);
    if (rc)
        return serve_fail(r, 400, "ResourceNotFoundException", "Requested resource not found: ResourcArn: %s not found",
                          arn);
    r->table = *table;
    return 0;
}

int op_tag_resource(serve_req *r)
{
    const char *table;
    if (resource_table(r, &table))
        return -1;
    return tags_store(r, table, json_object_get(r->in, "Tags"));
}

int op_untag_resource(serve_req *r)
{
    const char *table;
    if (resource_table(r, &table))
        return -1;
    json_t *cur = tags_load(r, table);
    if (!cur)
        return -1;
    size_t i;
    const json_t *k;
    json_array_foreach(json_object_get(r->in, "TagKeys"), i, k) {
        if (json_is_string(k))
            json_object_del(cur, json_string_value(k));
    }
    int rc = tags_save(r, table, cur);
    json_decref(cur);
    return rc;
}

int op_list_tags(serve_req *r)
{
    const char *table;
    if (resource_table(r, &table))
        return -1;
    json_t *cur = tags_load(r, table);
    if (!cur)
        return -1;
    json_t *arr = json_array();
    const char *k;
    json_t *v;
    json_object_foreach(cur, k, v) {
        json_array_append_new(arr, json_pack("{s:s,s:O}", "Key", k, "Value", v));
    }
    json_decref(cur);
    json_object_set_new(r->out, "Tags", arr);
    return 0;
}
