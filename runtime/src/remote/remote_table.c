/* remote/: Remote tables: CreateTable (waiting for ACTIVE), DeleteTable (waiting
 * until gone), DescribeTable, ListTables (every page).
 * May call core/ and expr/. */
#include "remote/remote_wire.h"

#include "core/error.h"
#include "core/key_parts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int nomem(ddb_error *err)
{
    return ddbi_fail_oom(err, "building a request");
}

static int push(json_t *arr, json_t *v, ddb_error *err)
{
    return (v && json_array_append_new(arr, v) == 0) ? DDB_OK : nomem(err);
}

static json_t *key_element(const char *name, const char *type)
{
    return json_pack("{s:s, s:s}", "AttributeName", name, "KeyType", type);
}

/* KeySchema: one HASH (and one RANGE) element, or for a multi-attribute
 * key several of each in declared order (API_KeySchemaElement). */
static json_t *key_schema_json(const ddb_key_schema *k)
{
    const char *names[2 * DDB_MAX_KEY_ATTRS];
    ddb_type types[2 * DDB_MAX_KEY_ATTRS];
    size_t n_pk, n = ddbi_key_schema_attrs(k, names, types, &n_pk);
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++)
        if (json_array_append_new(a, key_element(names[i], i < n_pk ? "HASH" : "RANGE"))) {
            json_decref(a);
            return NULL;
        }
    return a;
}

/* Add name:type to AttributeDefinitions once; a second, different type is
 * refused as the embedded engine refuses it. */
static int add_attr(json_t *defs, const char *name, ddb_type type, ddb_error *err)
{
    for (size_t i = 0; i < json_array_size(defs); i++) {
        const json_t *d = json_array_get(defs, i);
        if (strcmp(json_string_value(json_object_get(d, "AttributeName")), name) != 0)
            continue;
        if (strcmp(json_string_value(json_object_get(d, "AttributeType")), ddb_type_name(type)) != 0)
            return ddbi_fail(err, DDB_EVALIDATION,
                            "Cannot have two attributes with the same name (attribute %s is declared with two "
                            "different types)",
                            name);
        return DDB_OK;
    }
    return push(defs, json_pack("{s:s, s:s}", "AttributeName", name, "AttributeType", ddb_type_name(type)), err);
}

/* Every attribute of key schema k into AttributeDefinitions (add_attr). */
static int add_key_attrs(json_t *defs, const ddb_key_schema *k, ddb_error *err)
{
    const char *names[2 * DDB_MAX_KEY_ATTRS];
    ddb_type types[2 * DDB_MAX_KEY_ATTRS];
    size_t n = ddbi_key_schema_attrs(k, names, types, NULL);
    int rc = DDB_OK;
    for (size_t i = 0; i < n && !rc; i++)
        rc = names[i] ? add_attr(defs, names[i], types[i], err)
                      : ddbi_fail(err, DDB_EVALIDATION, "a key attribute has no name (attribute %zu)", i + 1);
    return rc;
}

static bool utf8_ok(const char *s)
{
    json_t *t = json_string(s);
    json_decref(t);
    return t != NULL;
}

static int key_check(const char *what, const ddb_key_schema *k, ddb_error *err)
{
    if (!k->pk)
        return ddbi_fail(err, DDB_EVALIDATION,
                        "1 validation error detected: Value null at 'keySchema.1.member.attributeName' failed to "
                        "satisfy constraint: Member must not be null (%s)",
                        what);
    if ((k->n_pk_more && !k->pk_more) || (k->n_sk_more && !k->sk_more))
        return ddbi_fail(err, DDB_EINVAL, "%s: n_pk_more or n_sk_more is set but its array is NULL", what);
    /* what the request could not carry whole (DynamoDB's limits, as the
     * embedded engine's validator words them) */
    if (k->n_pk_more > DDB_MAX_KEY_ATTRS - 1 || k->n_sk_more > DDB_MAX_KEY_ATTRS - 1)
        return ddbi_fail(err, DDB_ELIMIT,
                         "One or more parameter values were invalid: Index KeySchema of %s has %zu HASH and %zu RANGE "
                         "elements; a global secondary index supports up to %d partition and up to %d sort keys",
                         what, 1 + k->n_pk_more, (k->sk ? 1 : 0) + k->n_sk_more, DDB_MAX_KEY_ATTRS,
                         DDB_MAX_KEY_ATTRS);
    if (k->n_sk_more && !k->sk)
        return ddbi_fail(err, DDB_EVALIDATION,
                         "One or more parameter values were invalid: Index KeySchema of %s has further sort key "
                         "attributes but no first one (sk_more needs sk)",
                         what);
    const char *names[2 * DDB_MAX_KEY_ATTRS];
    ddb_type types[2 * DDB_MAX_KEY_ATTRS];
    size_t n = ddbi_key_schema_attrs(k, names, types, NULL);
    for (size_t i = 0; i < n; i++)
        if (!names[i] || !utf8_ok(names[i]))
            return ddbi_fail(err, DDB_EVALIDATION, "%s: key attribute names must be UTF-8", what);
    return DDB_OK;
}

static json_t *throughput(uint64_t rcu, uint64_t wcu)
{
    return json_pack("{s:I, s:I}", "ReadCapacityUnits", (json_int_t)rcu, "WriteCapacityUnits", (json_int_t)wcu);
}

static int index_json(const ddb_table_def *def, const ddb_index_def *x, json_t **out, ddb_error *err)
{
    int rc;
    if (!x->name)
        return ddbi_fail(err, DDB_EVALIDATION, "an index of table %s has no name", def->name);
    if ((rc = key_check(x->name, &x->key, err)))
        return rc;
    static const char *const proj[] = {"ALL", "KEYS_ONLY", "INCLUDE"};
    if ((unsigned)x->projection > DDB_PROJ_INCLUDE)
        return ddbi_fail(err, DDB_EVALIDATION, "index %s: unknown projection %d", x->name, (int)x->projection);
    json_t *p = json_pack("{s:s}", "ProjectionType", proj[x->projection]);
    json_t *o = json_pack("{s:s, s:o, s:o}", "IndexName", x->name, "KeySchema", key_schema_json(&x->key),
                          "Projection", p);
    if (!o)
        return ddbi_fail(err, DDB_EVALIDATION, "index %s: names must be UTF-8", x->name);
    if (x->projection == DDB_PROJ_INCLUDE) {
        json_t *nk = json_array();
        if (!nk || json_object_set_new(p, "NonKeyAttributes", nk)) {
            json_decref(o);
            return nomem(err);
        }
        for (size_t i = 0; i < x->n_include; i++)
            if (!x->include || !x->include[i] || json_array_append_new(nk, json_string(x->include[i]))) {
                json_decref(o);
                return ddbi_fail(err, DDB_EVALIDATION, "index %s: projected attribute %zu is missing or not UTF-8",
                                x->name, i);
            }
    }
    bool provisioned = def->rcu || def->wcu;
    if (!x->local && provisioned) {
        uint64_t r = x->rcu || x->wcu ? x->rcu : def->rcu, w = x->rcu || x->wcu ? x->wcu : def->wcu;
        if (json_object_set_new(o, "ProvisionedThroughput", throughput(r, w))) {
            json_decref(o);
            return nomem(err);
        }
    }
    *out = o;
    return DDB_OK;
}

static int build_create(const ddb_table_def *def, json_t *j, ddb_error *err)
{
    int rc;
    if ((rc = key_check(def->name, &def->key, err)) || (rc = ddbi_rq_str(j, "TableName", def->name, err)))
        return rc;
    json_t *defs = json_array();
    if (!defs || json_object_set_new(j, "AttributeDefinitions", defs) ||
        json_object_set_new(j, "KeySchema", key_schema_json(&def->key)))
        return nomem(err);
    if ((rc = add_key_attrs(defs, &def->key, err)))
        return rc;
    bool provisioned = def->rcu || def->wcu;
    if ((rc = ddbi_rq_str(j, "BillingMode", provisioned ? "PROVISIONED" : "PAY_PER_REQUEST", err)))
        return rc;
    if (provisioned && json_object_set_new(j, "ProvisionedThroughput", throughput(def->rcu, def->wcu)))
        return nomem(err);
    if ((unsigned)def->stream.view > DDB_STREAM_NEW_AND_OLD_IMAGES)
        return ddbi_fail(err, DDB_EINVAL, "table %s: unknown stream view %d", def->name, (int)def->stream.view);
    if (def->stream.view != DDB_STREAM_NONE) {
        /* DynamoDB Streams keep records 24 hours; retention settings are the
         * embedded engine's and are not sent */
            json_t *ss = json_pack("{s:b, s:s}", "StreamEnabled", 1, "StreamViewType", ddb_stream_view_name(def->stream.view));
        if (!ss || json_object_set_new(j, "StreamSpecification", ss))
            return nomem(err);
    }
    json_t *gsi = NULL, *lsi = NULL;
    for (size_t i = 0; i < def->n_indexes; i++) {
        const ddb_index_def *x = &def->indexes[i];
        json_t *o = NULL;
        if ((rc = index_json(def, x, &o, err)))
            return rc;
        json_t **arr = x->local ? &lsi : &gsi;
        if (!*arr && (!(*arr = json_array()) ||
                      json_object_set_new(j, x->local ? "LocalSecondaryIndexes" : "GlobalSecondaryIndexes", *arr))) {
            json_decref(o);
            return nomem(err);
        }
        if ((rc = push(*arr, o, err)) || (rc = add_key_attrs(defs, &x->key, err)))
            return rc;
    }
    return DDB_OK;
}

/* One DescribeTable: the table's status and whether its GSIs are ACTIVE. */
static int table_status(ddb_remote *r, const char *name, char *status, size_t cap, bool *indexes_active,
                        ddb_error *err)
{
    json_t *req = json_pack("{s:s}", "TableName", name), *resp = NULL;
    if (!req)
        return nomem(err);
    int rc = ddbi_remote_call(r, "DescribeTable", req, &resp, NULL, err);
    json_decref(req);
    ddb_arena *a = rc ? NULL : ddb_arena_new();
    if (!rc && !a)
        rc = ddbi_fail_oom(err, __func__);
    if (!rc) {
        ddb_table_desc *d;
        const char *st;
        rc = ddbi_remote_parse_table("DescribeTable", json_object_get(resp, "Table"), a, &d, &st, indexes_active, err);
        if (!rc)
            snprintf(status, cap, "%s", st);
    }
    ddb_arena_free(a);
    json_decref(resp);
    return rc;
}

typedef enum { WAIT_ACTIVE, WAIT_GONE } wait_for;

/* Poll DescribeTable until the table (and its GSIs) are ACTIVE, or until
 * it is gone; DDB_ETIMEOUT after table_wait_ms. */
static int wait_table(ddb_remote *r, const char *name, wait_for what, ddb_error *err)
{
    uint64_t start = ddbi_remote_now_ms(), limit = ddbi_remote_table_wait_ms(r);
    uint32_t pause = 10;
    char status[64] = "";
    for (;;) {
        bool active = false;
        int rc = table_status(r, name, status, sizeof status, &active, err);
        if (rc == DDB_ENOTABLE) {
            if (what == WAIT_GONE)
                return DDB_OK;
            snprintf(status, sizeof status, "not visible"); /* a new table may take a moment to show */
        } else if (rc) {
            return rc;
        } else if (what == WAIT_ACTIVE && strcmp(status, "ACTIVE") == 0 && active) {
            return DDB_OK;
        }
        uint64_t spent = ddbi_remote_now_ms() - start;
        if (spent >= limit)
            return ddbi_fail(err, DDB_ETIMEOUT, "table %s is %s%s after %llu ms (table_wait_ms)", name, status,
                            what == WAIT_ACTIVE && strcmp(status, "ACTIVE") == 0 ? " but an index is not" : "",
                            (unsigned long long)spent);
        ddbi_remote_sleep_ms((uint32_t)(pause < limit - spent ? pause : limit - spent));
        if (pause < 500)
            pause *= 2;
    }
}

/* TTL is not part of CreateTable: UpdateTimeToLive once the table is ACTIVE. */
static int set_ttl(ddb_remote *r, const char *table, const char *attr, ddb_error *err)
{
    json_t *req = json_pack("{s:s, s:{s:b, s:s}}", "TableName", table, "TimeToLiveSpecification", "Enabled", 1,
                            "AttributeName", attr),
           *resp = NULL;
    if (!req)
        return ddbi_fail(err, DDB_EVALIDATION, "table %s: TTL attribute name is not UTF-8", table);
    int rc = ddbi_remote_call(r, "UpdateTimeToLive", req, &resp, NULL, err);
    json_decref(req);
    json_decref(resp);
    if (rc == DDB_ENOTSUP && err) {
        char why[DDB_ERROR_TEXT_SIZE];
        snprintf(why, sizeof why, "%s", err->message);
        ddbi_fail(err, rc, "table %s was created, but the endpoint cannot set its TTL attribute (%s)", table, why);
    }
    return rc;
}


int ddbi_remote_create_table(void *impl, const ddb_table_def *def, ddb_error *err)
{
    ddb_remote *r = impl;
    if (!def->name)
        return ddbi_fail(err, DDB_EINVAL, "ddb_create_table: the definition needs a name");
    if (def->n_indexes && !def->indexes)
        return ddbi_fail(err, DDB_EINVAL, "n_indexes is %zu but indexes is NULL", def->n_indexes);
    remote_req q;
    int rc = ddbi_remote_req_init(&q, err);
    if (rc)
        return rc;
    json_t *resp = NULL;
    if (!(rc = build_create(def, q.j, err)))
        rc = ddbi_remote_call(r, "CreateTable", q.j, &resp, NULL, err);
    json_decref(resp);
    ddbi_remote_req_free(&q);
    ddbi_remote_forget_table(r, def->name);
    if (!rc)
        rc = wait_table(r, def->name, WAIT_ACTIVE, err);
    if (!rc && def->ttl_attribute)
        rc = set_ttl(r, def->name, def->ttl_attribute, err);
    return rc;
}

int ddbi_remote_delete_table(void *impl, const char *name, ddb_error *err)
{
    ddb_remote *r = impl;
    json_t *req = json_pack("{s:s}", "TableName", name), *resp = NULL;
    if (!req)
        return ddbi_fail(err, DDB_EVALIDATION, "table name \"%.64s\" is not UTF-8", name);
    int rc = ddbi_remote_call(r, "DeleteTable", req, &resp, NULL, err);
    json_decref(req);
    json_decref(resp);
    ddbi_remote_forget_table(r, name);
    return rc ? rc : wait_table(r, name, WAIT_GONE, err);
}


int ddbi_remote_describe_table(void *impl, const char *name, ddb_arena *a, ddb_table_desc **out, ddb_error *err)
{
    ddb_remote *r = impl;
    return ddbi_remote_describe(r, name, a, out, true, err);
}

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

int ddbi_remote_list_tables(void *impl, ddb_arena *a, const char ***names, size_t *count, ddb_error *err)
{
    ddb_remote *r = impl;
    *names = NULL;
    *count = 0;
    size_t n = 0, cap = 0;
    const char **v = NULL;
    char *start = NULL;
    int rc = DDB_OK;
    for (unsigned page = 0; rc == DDB_OK; page++) {
        json_t *req = start ? json_pack("{s:s}", "ExclusiveStartTableName", start) : json_object(), *resp = NULL;
        if (!req) {
            rc = nomem(err);
            break;
        }
        rc = ddbi_remote_call(r, "ListTables", req, &resp, NULL, err);
        json_decref(req);
        if (rc)
            break;
        const json_t *tn = json_object_get(resp, "TableNames"), *next = json_object_get(resp, "LastEvaluatedTableName");
        if (!json_is_array(tn))
            rc = ddbi_remote_bad(err, "ListTables", "TableNames is not an array");
        else if (next && !json_is_string(next))
            rc = ddbi_remote_bad(err, "ListTables", "LastEvaluatedTableName is not a string");
        else if (next && start && strcmp(json_string_value(next), start) <= 0)
            rc = ddbi_remote_bad(err, "ListTables", "LastEvaluatedTableName does not advance");
        for (size_t i = 0; !rc && i < json_array_size(tn); i++) {
            const json_t *s = json_array_get(tn, i);
            if (!json_is_string(s)) {
                rc = ddbi_remote_bad(err, "ListTables", "TableNames[%zu] is not a string", i);
                break;
            }
            if (n == cap) {
                size_t nc = cap ? cap * 2 : 16;
                const char **nv = ddb_arena_alloc(a, nc * sizeof *nv);
                if (!nv) {
                    rc = ddbi_fail_oom(err, __func__);
                    break;
                }
                if (n)
                    memcpy(nv, v, n * sizeof *nv);
                v = nv;
                cap = nc;
            }
            size_t len = json_string_length(s);
            char *c = ddb_arena_alloc(a, len + 1);
            if (!c) {
                rc = ddbi_fail_oom(err, __func__);
                break;
            }
            memcpy(c, json_string_value(s), len + 1);
            v[n++] = c;
        }
        free(start);
        start = !rc && next ? strdup(json_string_value(next)) : NULL;
        json_decref(resp);
        if (!rc && next && !start)
            rc = ddbi_fail_oom(err, __func__);
        if (!start)
            break;
    }
    free(start);
    if (rc)
        return rc;
    if (n)
        qsort(v, n, sizeof *v, cmp_str);
    *names = v;
    *count = n;
    return DDB_OK;
}

/* ---- UpdateTable: a new GSI ---------------------------------------------------------------- */

int ddbi_remote_add_index(void *impl, const char *table, const ddb_index_def *x, uint64_t *backfilled,
                          uint64_t *skipped, ddb_error *err)
{
    ddb_remote *r = impl;
    if (backfilled)
        *backfilled = 0; /* DynamoDB backfills in the background and does not report counts */
    if (skipped)
        *skipped = 0;
    if (!x->name)
        return ddbi_fail(err, DDB_EINVAL, "ddb_add_index: the index needs a name");
    if (x->local)
        return ddbi_fail(err, DDB_EVALIDATION, "a local secondary index (%s) can only be created with the table",
                        x->name);
    ddb_arena *a = ddb_arena_new();
    if (!a)
        return ddbi_fail_oom(err, __func__);
    ddb_table_desc *d;
    json_t *req = NULL, *resp = NULL, *idx = NULL;
    int rc = ddbi_remote_describe(r, table, a, &d, false, err);
    if (rc)
        goto done;
    /* the index takes the table's billing: provisioned tables give it throughput */
    ddb_table_def tdef = {.name = table, .rcu = d->def.rcu, .wcu = d->def.wcu};
    json_t *defs = json_array();
    if (!(req = json_object()) || !defs || json_object_set_new(req, "AttributeDefinitions", defs)) {
        json_decref(defs);
        rc = nomem(err);
        goto done;
    }
    if ((rc = ddbi_rq_str(req, "TableName", table, err)) || (rc = index_json(&tdef, x, &idx, err)) ||
        (rc = add_key_attrs(defs, &x->key, err)))
        goto done;
    json_t *upd = json_pack("[{s:o}]", "Create", idx);
    idx = NULL;
    if (!upd || json_object_set_new(req, "GlobalSecondaryIndexUpdates", upd)) {
        rc = nomem(err);
        goto done;
    }
    if ((rc = ddbi_remote_call(r, "UpdateTable", req, &resp, NULL, err)))
        goto done;
    ddbi_remote_forget_table(r, table);
    /* DynamoDB lists a new index at once (CREATING); an endpoint that took
     * the request without creating it must not make us wait for nothing */
    ddb_arena_reset(a);
    if ((rc = ddbi_remote_describe(r, table, a, &d, false, err)))
        goto done;
    bool present = false;
    for (size_t i = 0; i < d->def.n_indexes; i++)
        present |= strcmp(d->def.indexes[i].name, x->name) == 0;
    if (!present) {
        rc = ddbi_fail(err, DDB_ENOTSUP, "UpdateTable: the endpoint accepted the request but created no index %s on %s",
                      x->name, table);
        goto done;
    }
    rc = wait_table(r, table, WAIT_ACTIVE, err);
done:
    json_decref(idx);
    json_decref(req);
    json_decref(resp);
    ddb_arena_free(a);
    return rc;
}

/* ---- UpdateTable: delete a GSI ---------------------------------------------------------------
 * GlobalSecondaryIndexUpdates [{"Delete": {"IndexName": ...}}] (Amazon DynamoDB API Reference,
 * UpdateTable; DeleteGlobalSecondaryIndexAction); the index is DELETING until it is gone, and the
 * table ACTIVE with every listed index ACTIVE again after it. */

int ddbi_remote_delete_index(void *impl, const char *table, const char *index, ddb_error *err)
{
    ddb_remote *r = impl;
    json_t *req = json_pack("{s:s,s:[{s:{s:s}}]}", "TableName", table, "GlobalSecondaryIndexUpdates", "Delete",
                            "IndexName", index),
           *resp = NULL;
    if (!req)
        return ddbi_fail(err, DDB_EVALIDATION, "table %s: index name is not UTF-8", table);
    int rc = ddbi_remote_call(r, "UpdateTable", req, &resp, NULL, err);
    json_decref(req);
    json_decref(resp);
    ddbi_remote_forget_table(r, table);
    if (!rc)
        rc = wait_table(r, table, WAIT_ACTIVE, err);
    /* an endpoint that took the request and kept the index must not pass for one that deleted it */
    ddb_arena *a = rc ? NULL : ddb_arena_new();
    ddb_table_desc *d;
    if (!rc && !a)
        rc = ddbi_fail_oom(err, __func__);
    if (!rc && !(rc = ddbi_remote_describe(r, table, a, &d, false, err)))
        for (size_t i = 0; i < d->def.n_indexes && !rc; i++)
            if (!strcmp(d->def.indexes[i].name, index))
                rc = ddbi_fail(err, DDB_ENOTSUP,
                               "UpdateTable: the endpoint accepted the request but did not delete index %s of %s",
                               index, table);
    ddb_arena_free(a);
    return rc;
}

/* ---- Streams and TTL settings ---------------------------------------------------------------- */

int ddbi_remote_update_time_to_live(void *impl, const char *table, const char *attr, ddb_error *err)
{
    ddb_remote *r = impl;
    if (attr && *attr)
        return set_ttl(r, table, attr, err);
    /* disabling names the attribute it was enabled with */
    ddb_arena *a = ddb_arena_new();
    if (!a)
        return ddbi_fail_oom(err, __func__);
    const char *current;
    int rc = ddbi_remote_get_ttl(r, table, a, &current, err);
    if (!rc && current) {
        json_t *req = json_pack("{s:s, s:{s:b, s:s}}", "TableName", table, "TimeToLiveSpecification", "Enabled", 0,
                                "AttributeName", current),
               *resp = NULL;
        rc = req ? ddbi_remote_call(r, "UpdateTimeToLive", req, &resp, NULL, err) : nomem(err);
        json_decref(req);
        json_decref(resp);
    }
    ddb_arena_free(a);
    return rc;
}

int ddbi_remote_update_table_stream(void *impl, const char *table, const ddb_stream_spec *spec, ddb_error *err)
{
    ddb_remote *r = impl;
    if ((unsigned)spec->view > DDB_STREAM_NEW_AND_OLD_IMAGES)
        return ddbi_fail(err, DDB_EINVAL, "unknown stream view %d", (int)spec->view);
    json_t *ss = spec->view ? json_pack("{s:b, s:s}", "StreamEnabled", 1, "StreamViewType", ddb_stream_view_name(spec->view))
                            : json_pack("{s:b}", "StreamEnabled", 0);
    json_t *req = ss ? json_pack("{s:s, s:o}", "TableName", table, "StreamSpecification", ss) : NULL, *resp = NULL;
    if (!req)
        return ddbi_fail(err, DDB_EVALIDATION, "table name \"%.64s\" is not UTF-8", table);
    int rc = ddbi_remote_call(r, "UpdateTable", req, &resp, NULL, err);
    json_decref(req);
    json_decref(resp);
    return rc ? rc : wait_table(r, table, WAIT_ACTIVE, err);
}

/* UpdateTable's settings (ddb_update_table): BillingMode with
 * ProvisionedThroughput, DeletionProtectionEnabled; the rules are the
 * service's.  Returns once the table is ACTIVE again. */
int ddbi_remote_update_table(void *impl, const char *table, const ddb_table_update *u, ddb_error *err)
{
    ddb_remote *r = impl;
    json_t *req = json_pack("{s:s}", "TableName", table), *resp = NULL;
    if (!req)
        return ddbi_fail(err, DDB_EVALIDATION, "table name \"%.64s\" is not UTF-8", table);
    if (u->set_throughput && !u->rcu && !u->wcu) {
        json_object_set_new(req, "BillingMode", json_string("PAY_PER_REQUEST"));
    } else if (u->set_throughput) {
        json_object_set_new(req, "BillingMode", json_string("PROVISIONED"));
        json_object_set_new(req, "ProvisionedThroughput",
                            json_pack("{s:I,s:I}", "ReadCapacityUnits", (json_int_t)u->rcu, "WriteCapacityUnits",
                                      (json_int_t)u->wcu));
    }
    if (u->set_deletion_protection)
        json_object_set_new(req, "DeletionProtectionEnabled", json_boolean(u->deletion_protection));
    int rc = ddbi_remote_call(r, "UpdateTable", req, &resp, NULL, err);
    json_decref(req);
    json_decref(resp);
    return rc ? rc : wait_table(r, table, WAIT_ACTIVE, err);
}
