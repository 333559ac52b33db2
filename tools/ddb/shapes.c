/* DynamoDB's API shapes as JSON: the TableDescription of DescribeTable
 * (API_TableDescription) and the Record of DynamoDB Streams
 * (API_streams_Record), from libddb's table and stream descriptions: what `ddb describe`
 * prints and the base of what `ddb serve` answers.  Calls libddb and
 * jansson only. */
#include "cli.h"

#include <ddb/json.h>

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

const char *projection_name(ddb_projection p)
{
    return p == DDB_PROJ_KEYS_ONLY ? "KEYS_ONLY" : p == DDB_PROJ_INCLUDE ? "INCLUDE" : "ALL";
}

/* KeySchema: a multi-attribute key's attributes as several HASH and
 * several RANGE elements, in declared order (API_KeySchemaElement); each
 * attribute also goes into defs (AttributeDefinitions), once. */
static void attr_def(json_t *defs, const char *name, ddb_type t)
{
    size_t i;
    json_t *d;
    json_array_foreach(defs, i, d) if (strcmp(json_string_value(json_object_get(d, "AttributeName")), name) == 0) return;
    json_array_append_new(defs, json_pack("{s:s,s:s}", "AttributeName", name, "AttributeType", ddb_type_name(t)));
}

static void key_element(json_t *a, json_t *defs, const char *name, ddb_type t, const char *kind)
{
    json_array_append_new(a, json_pack("{s:s,s:s}", "AttributeName", name, "KeyType", kind));
    attr_def(defs, name, t);
}

static json_t *key_schema_json(const ddb_key_schema *k, json_t *defs)
{
    json_t *a = json_array();
    key_element(a, defs, k->pk, k->pk_type, "HASH");
    for (size_t i = 0; i < k->n_pk_more; i++)
        key_element(a, defs, k->pk_more[i].name, k->pk_more[i].type, "HASH");
    if (k->sk)
        key_element(a, defs, k->sk, k->sk_type, "RANGE");
    for (size_t i = 0; k->sk && i < k->n_sk_more; i++)
        key_element(a, defs, k->sk_more[i].name, k->sk_more[i].type, "RANGE");
    return a;
}

json_t *table_shape(const ddb_table_desc *d, const ddb_stream_desc *sd)
{
    json_t *t = json_object(), *defs = json_array();
    json_object_set_new(t, "TableName", json_string(d->def.name));
    json_object_set_new(t, "KeySchema", key_schema_json(&d->def.key, defs));
    json_t *gsi = json_array(), *lsi = json_array();
    for (size_t i = 0; i < d->def.n_indexes; i++) {
        const ddb_index_def *x = &d->def.indexes[i];
        json_t *p = json_pack("{s:s}", "ProjectionType", projection_name(x->projection));
        if (x->projection == DDB_PROJ_INCLUDE) {
            json_t *inc = json_array();
            for (size_t j = 0; j < x->n_include; j++)
                json_array_append_new(inc, json_string(x->include[j]));
            json_object_set_new(p, "NonKeyAttributes", inc);
        }
        json_array_append_new(x->local ? lsi : gsi, json_pack("{s:s,s:o,s:o}", "IndexName", x->name, "KeySchema",
                                                               key_schema_json(&x->key, defs), "Projection", p));
    }
    json_object_set_new(t, "AttributeDefinitions", defs);
    json_object_set_new(t, "ItemCount", json_integer((json_int_t)d->item_count));
    json_object_set_new(t, "TableSizeBytes", json_integer((json_int_t)d->size_bytes));
    if (d->def.rcu || d->def.wcu)
        json_object_set_new(t, "ProvisionedThroughput",
                            json_pack("{s:I,s:I}", "ReadCapacityUnits", (json_int_t)d->def.rcu, "WriteCapacityUnits",
                                      (json_int_t)d->def.wcu));
    else
        json_object_set_new(t, "BillingModeSummary", json_pack("{s:s}", "BillingMode", "PAY_PER_REQUEST"));
    if (json_array_size(gsi))
        json_object_set_new(t, "GlobalSecondaryIndexes", gsi);
    else
        json_decref(gsi);
    if (json_array_size(lsi))
        json_object_set_new(t, "LocalSecondaryIndexes", lsi);
    else
        json_decref(lsi);
    if (d->def.stream.view)
        json_object_set_new(t, "StreamSpecification", json_pack("{s:b,s:s}", "StreamEnabled", 1, "StreamViewType",
                                                                ddb_stream_view_name(d->def.stream.view)));
    if (sd && (sd->last_seq || d->def.stream.view))
        json_object_set_new(t, "StreamDescription",
                            json_pack("{s:s,s:I,s:I,s:I,s:I}", "StreamViewType", ddb_stream_view_name(sd->spec.view),
                                      "FirstSequenceNumber", (json_int_t)sd->first_seq, "LastSequenceNumber",
                                      (json_int_t)sd->last_seq, "Records", (json_int_t)sd->records, "RetentionSeconds",
                                      (json_int_t)sd->spec.retention_seconds));
    json_object_set_new(t, "TimeToLiveDescription",
                        d->def.ttl_attribute ? json_pack("{s:s,s:s}", "TimeToLiveStatus", "ENABLED", "AttributeName",
                                                         d->def.ttl_attribute)
                                             : json_pack("{s:s}", "TimeToLiveStatus", "DISABLED"));
    return t;
}

static json_t *image(const ddb_item *it)
{
    json_t *j = NULL;
    ddb_json_from_item(it, &j, NULL);
    return j ? j : json_object();
}

json_t *stream_record_shape(const ddb_stream_record *r)
{
    char num[32];
    snprintf(num, sizeof num, "%" PRIu64, r->seq);
    const char *seq = r->sequence_number ? r->sequence_number : num; /* DynamoDB's exceed 64 bits */
    json_t *d = json_object();
    json_object_set_new(d, "ApproximateCreationDateTime", json_integer((json_int_t)(r->created_ms / 1000)));
    json_object_set_new(d, "Keys", image(r->keys));
    if (r->new_image)
        json_object_set_new(d, "NewImage", image(r->new_image));
    if (r->old_image)
        json_object_set_new(d, "OldImage", image(r->old_image));
    json_object_set_new(d, "SequenceNumber", json_string(seq));
    json_object_set_new(d, "SizeBytes", json_integer((json_int_t)r->size));
    json_object_set_new(d, "StreamViewType", json_string(ddb_stream_view_name(r->view)));
    json_t *o = json_object();
    json_object_set_new(o, "eventID", json_string(seq));
    json_object_set_new(o, "eventName", json_string(ddb_stream_event_name(r->event)));
    json_object_set_new(o, "eventVersion", json_string("1.1"));
    json_object_set_new(o, "eventSource", json_string("aws:dynamodb"));
    json_object_set_new(o, "dynamodb", d);
    if (r->by_ttl)
        json_object_set_new(o, "userIdentity", json_pack("{s:s,s:s}", "type", DDB_USER_IDENTITY_TYPE, "principalId",
                                                         DDB_USER_IDENTITY_PRINCIPAL));
    return o;
}
