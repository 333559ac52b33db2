/* streams/: A table's stream specification and TTL attribute: stored under
 * "q/<table>" in the meta database, loaded with the table definition,
 * changed by CreateTable, UpdateTable (stream) and UpdateTimeToLive.
 * May call engine/, expr/ and core/. */
#include "core/keycodec.h"
#include "core/error.h"
#include "streams/streams.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

size_t ddbi_stream_config_key(char *key, size_t cap, const char *table)
{
    int n = snprintf(key, cap, "q/%s", table);
    return n < 0 || (size_t)n >= cap ? 0 : (size_t)n;
}

/* ---- the stored form: version, view, be64 retention seconds, be64
 * retention bytes, be16 TTL attribute length, the attribute; version 2
 * adds be64 the time the stream was last enabled (version 1, written
 * before, is read with that time 0) ---- */

typedef struct config {
    ddb_stream_spec stream;
    char ttl[256];
    int64_t enabled_ms;
} config;

static size_t encode(const config *c, uint8_t *out)
{
    size_t tl = strlen(c->ttl);
    out[0] = 2;
    out[1] = (uint8_t)c->stream.view;
    ddb_put_be(out + 2, c->stream.retention_seconds, 8);
    ddb_put_be(out + 10, c->stream.retention_bytes, 8);
    ddb_put_be(out + 18, tl, 2);
    memcpy(out + 20, c->ttl, tl);
    ddb_put_be(out + 20 + tl, (uint64_t)c->enabled_ms, 8);
    return 28 + tl;
}

static bool decode(const uint8_t *p, size_t n, config *c)
{
    memset(c, 0, sizeof *c);
    if (n < 20 || (p[0] != 1 && p[0] != 2) || p[1] > DDB_STREAM_NEW_AND_OLD_IMAGES)
        return false;
    size_t tl = (size_t)ddb_get_be(p + 18, 2), tail = p[0] == 2 ? 8 : 0;
    if (tl > 255 || n != 20 + tl + tail)
        return false;
    c->stream.view = (ddb_stream_view)p[1];
    c->stream.retention_seconds = ddb_get_be(p + 2, 8);
    c->stream.retention_bytes = ddb_get_be(p + 10, 8);
    memcpy(c->ttl, p + 20, tl);
    c->ttl[tl] = '\0';
    if (tail)
        c->enabled_ms = (int64_t)ddb_get_be(p + 20 + tl, 8);
    return true;
}

static int config_get(ddbi_engine *db, MDB_txn *txn, const char *table, config *c)
{
    char key[300];
    MDB_val k = {ddbi_stream_config_key(key, sizeof key, table), key}, v;
    memset(c, 0, sizeof *c);
    int rc = mdb_get(txn, db->meta, &k, &v);
    if (rc == 0 && !decode(v.mv_data, v.mv_size, c))
        return MDB_CORRUPTED; /* a damaged file: never run the table without its stream or TTL */
    return rc == MDB_NOTFOUND ? 0 : rc;
}

static int config_put(ddbi_engine *db, MDB_txn *txn, const char *table, const config *c)
{
    char key[300];
    MDB_val k = {ddbi_stream_config_key(key, sizeof key, table), key};
    if (c->stream.view == DDB_STREAM_NONE && !c->stream.retention_seconds && !c->stream.retention_bytes &&
        !c->ttl[0] && !c->enabled_ms) {
        int rc = ddbi_kv_del(db, txn, db->meta, &k, NULL);
        return rc == MDB_NOTFOUND ? 0 : rc;
    }
    uint8_t buf[28 + 256];
    MDB_val v = {encode(c, buf), buf};
    return ddbi_kv_put(db, txn, db->meta, &k, &v, 0);
}

int ddbi_stream_load_config(ddbi_engine *db, MDB_txn *txn, ddb_table_rt *t, ddb_error *err)
{
    config c;
    int rc = config_get(db, txn, t->name, &c);
    if (rc == MDB_CORRUPTED)
        return ddbi_fail(err, DDB_ECORRUPT,
                         "table %s: its stream and TTL settings record is malformed (the database file is damaged)",
                         t->name);
    if (rc)
        return ddbi_mdb_fail(err, rc, "reading the stream configuration");
    t->stream = c.stream;
    t->stream_enabled_ms = c.enabled_ms;
    if (!t->stream.retention_seconds)
        t->stream.retention_seconds = DDB_STREAM_DEFAULT_RETENTION_S;
    memcpy(t->ttl_attr, c.ttl, sizeof t->ttl_attr);
    return DDB_OK;
}

static int check_spec(const ddb_stream_spec *s, ddb_error *err)
{
    if ((unsigned)s->view > DDB_STREAM_NEW_AND_OLD_IMAGES)
        return ddbi_fail(err, DDB_EVALIDATION, "unknown StreamViewType %d", (int)s->view);
    if (s->retention_seconds > (uint64_t)INT64_MAX / 1000)
        return ddbi_fail(err, DDB_EVALIDATION, "stream retention of %llu seconds is out of range",
                        (unsigned long long)s->retention_seconds);
    return DDB_OK;
}

/* UpdateTimeToLive's attribute: the rule of every attribute name of a
 * definition (engine/table_def.c); "" or NULL turns TTL off. */
static int check_ttl_attr(const char *attr, ddb_error *err)
{
    return attr && attr[0] ? ddbi_attr_name_check("timeToLiveSpecification.attributeName", attr, err) : DDB_OK;
}

/* CreateTable's stream specification (its TTL attribute is the engine's
 * validator's). */
int ddbi_stream_validate_def(const ddb_table_def *d, ddb_error *err)
{
    return check_spec(&d->stream, err);
}

int ddbi_stream_on_create(ddbi_engine *db, MDB_txn *txn, const ddb_table_def *d)
{
    config c;
    memset(&c, 0, sizeof c);
    c.stream = d->stream;
    if (d->stream.view != DDB_STREAM_NONE)
        c.enabled_ms = ddbi_engine_clock_ms(db);
    if (d->ttl_attribute)
        snprintf(c.ttl, sizeof c.ttl, "%s", d->ttl_attribute);
    return config_put(db, txn, d->name, &c);
}

int ddbi_stream_on_delete(ddbi_engine *db, MDB_txn *txn, const char *table)
{
    config none;
    memset(&none, 0, sizeof none);
    int rc = config_put(db, txn, table, &none);
    if (!rc)
        rc = ddbi_stream_drop_records(db, txn, table);
    if (!rc)
        rc = ddbi_ledger_drop(db, txn, table);
    return rc;
}

/* ---- UpdateTable (stream) and UpdateTimeToLive ---- */

typedef struct update_ctx {
    const char *table;
    const ddb_stream_spec *spec; /* NULL: leave the stream */
    const char *ttl;             /* with set_ttl: the new attribute ("" = none) */
    bool set_ttl;
    ddb_error *err;
} update_ctx;

static int update_fn(ddbi_engine *db, MDB_txn *txn, void *vctx)
{
    update_ctx *cx = vctx;
    ddb_table_rt *t;
    int rc = ddbi_table_get(db, txn, cx->table, &t, cx->err);
    if (rc)
        return rc;
    config c;
    if ((rc = config_get(db, txn, cx->table, &c)))
        return ddbi_mdb_fail(cx->err, rc, "reading the stream configuration");
    if (cx->spec) {
        bool was_on = c.stream.view != DDB_STREAM_NONE, on = cx->spec->view != DDB_STREAM_NONE;
        /* the view of an enabled stream cannot change (API_UpdateTable,
         * StreamSpecification; DynamoDB answers this ValidationException) */
        if (was_on && on && c.stream.view != cx->spec->view)
            return ddbi_fail(cx->err, DDB_EVALIDATION, "Table already has an enabled stream: TableName: %s",
                             cx->table);
        /* each enablement a new stream, with a later label */
        if (!was_on && on) {
            int64_t now = ddbi_engine_clock_ms(db);
            c.enabled_ms = now > c.enabled_ms ? now : c.enabled_ms + 1;
        }
        c.stream = *cx->spec;
    }
    if (cx->set_ttl)
        snprintf(c.ttl, sizeof c.ttl, "%s", cx->ttl);
    if ((rc = config_put(db, txn, cx->table, &c)) || (rc = ddbi_schema_bump_gen(db, txn)))
        return ddbi_mdb_fail(cx->err, rc, cx->spec ? "UpdateTable" : "UpdateTimeToLive");
    return DDB_OK;
}

int ddbi_streams_update_table_stream(void *impl, const char *table, const ddb_stream_spec *spec, ddb_error *err)
{
    ddbi_engine *db = impl;
    int rc = check_spec(spec, err);
    if (rc)
        return rc;
    update_ctx cx = {table, spec, NULL, false, err};
    return ddbi_run_write(db, update_fn, &cx, true, err);
}

int ddbi_streams_update_time_to_live(void *impl, const char *table, const char *attr, ddb_error *err)
{
    ddbi_engine *db = impl;
    int rc = check_ttl_attr(attr, err);
    if (rc)
        return rc;
    update_ctx cx = {table, NULL, attr ? attr : "", true, err};
    return ddbi_run_write(db, update_fn, &cx, true, err);
}
