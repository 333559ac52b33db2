/* streams/: Stream records: appended by the write path in its transaction, trimmed
 * by retention, read by iterators, verified by ddb_stream_check (layout in
 * streams.h).
 * May call engine/, expr/ and core/. */
#include "core/keycodec.h"
#include "core/codec.h"
#include "core/error.h"
#include "engine/keys.h"
#include "streams/streams.h"
#include "engine/stored.h"
#include "core/value.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define HEADER 16                /* version, event, view, flags, be64 created_ms, be32 size */
#define TRIM_ON_WRITE 8          /* records a write may trim by age */
#define TRIM_PER_TXN 10000       /* records one ddb_stream_trim transaction deletes */

size_t ddbi_stream_record_key(uint8_t *key, const char *table, uint64_t seq)
{
    size_t n = strlen(table);
    memcpy(key, table, n);
    key[n] = 0;
    ddb_put_be(key + n + 1, seq, 8);
    return n + 9;
}

/* Is k a record key of the table whose key prefix ("<table>\0") is pre? */
static bool is_record_of(const MDB_val *k, const uint8_t *pre, size_t plen)
{
    return k->mv_size == plen + 8 && memcmp(k->mv_data, pre, plen) == 0;
}

int ddbi_stream_state_get(ddbi_engine *db, MDB_txn *txn, const char *table, ddb_stream_state *s, bool *present)
{
    MDB_val k = {strlen(table) + 1, (void *)table}, v;
    memset(s, 0, sizeof *s);
    *present = false;
    int rc = mdb_get(txn, ddbi_streams_of(db)->dbi, &k, &v);
    if (rc == MDB_NOTFOUND)
        return 0;
    if (rc)
        return rc;
    *present = true;
    if (v.mv_size != sizeof *s)
        return MDB_CORRUPTED; /* a damaged file: never restart the sequence over stored records */
    memcpy(s, v.mv_data, sizeof *s);
    return 0;
}

static int state_put(ddbi_engine *db, MDB_txn *txn, const char *table, const ddb_stream_state *s)
{
    MDB_val k = {strlen(table) + 1, (void *)table}, v = {sizeof *s, (void *)s};
    return ddbi_kv_put(db, txn, ddbi_streams_of(db)->dbi, &k, &v, 0);
}

/* ---- retention ---- */

/* Delete the oldest records while they are over the size limit (never the
 * newest) or, up to age_budget of them, older than the retention period. */
static int trim(ddbi_engine *db, MDB_txn *txn, const char *table, const ddb_stream_spec *spec, int64_t now_ms,
                ddb_stream_state *s, size_t age_budget, uint64_t *trimmed)
{
    uint8_t key[300];
    size_t plen = strlen(table) + 1;
    uint64_t retention = spec->retention_seconds ? spec->retention_seconds : DDB_STREAM_DEFAULT_RETENTION_S;
    int64_t horizon = now_ms - (int64_t)(retention * 1000u);
    MDB_cursor *c = NULL;
    int rc = mdb_cursor_open(txn, ddbi_streams_of(db)->dbi, &c);
    while (!rc && s->records) {
        MDB_val k = {ddbi_stream_record_key(key, table, s->trimmed_through + 1), key}, v;
        int g = mdb_cursor_get(c, &k, &v, MDB_SET_RANGE);
        if (g == MDB_NOTFOUND || (!g && !is_record_of(&k, key, plen)))
            break;
        if (g) {
            rc = g;
            break;
        }
        bool over_size = spec->retention_bytes && s->bytes > spec->retention_bytes && s->records > 1;
        int64_t created = v.mv_size >= HEADER ? (int64_t)ddb_get_be((const uint8_t *)v.mv_data + 4, 8) : INT64_MIN;
        bool too_old = age_budget && created < horizon;
        if (!over_size && !too_old)
            break;
        if (!over_size)
            age_budget--;
        uint64_t seq = ddb_get_be((const uint8_t *)k.mv_data + plen, 8), size = v.mv_size;
        if ((rc = ddbi_kv_cursor_del(db, c)))
            break;
        s->records--;
        s->bytes = s->bytes > size ? s->bytes - size : 0;
        s->trimmed_through = seq;
        if (trimmed)
            (*trimmed)++;
    }
    if (c)
        mdb_cursor_close(c);
    return rc;
}

/* ---- the write hook ---- */

static size_t keys_size(const ddb_value *m)
{
    size_t n = 0;
    for (uint32_t i = 0; i < m->len; i++)
        n += m->u.m[i].name_len + ddb_value_size(m->u.m[i].value);
    return n;
}

/* varint length + encoded item */
static int put_part(ddb_buf *out, ddb_buf *tmp, const ddb_value *map, size_t size)
{
    tmp->len = 0;
    int rc = ddbi_encode_item(tmp, map, size);
    if (!rc)
        rc = ddbi_buf_varint(out, tmp->len);
    if (!rc)
        rc = ddbi_buf_put(out, tmp->p, tmp->len);
    return rc;
}

int ddbi_stream_capture(ddbi_engine *db, MDB_txn *txn, const ddb_wreq *r, const ddb_wstate *st, ddb_error *err)
{
    const ddb_table_rt *t = st->t;
    if (!t || t->stream.view == DDB_STREAM_NONE || r->kind == DDB_TX_CHECK)
        return DDB_OK;
    const ddb_item *old = st->old, *nw = r->kind == DDB_TX_DELETE ? NULL : st->new_item;
    if (!old && !nw)
        return DDB_OK;
    if (old && nw && ddb_value_equal(ddb_item_map(old), ddb_item_map(nw)))
        return DDB_OK; /* nothing changed: DynamoDB writes no record */
    ddb_stream_event ev = !old ? DDB_STREAM_INSERT : nw ? DDB_STREAM_MODIFY : DDB_STREAM_REMOVE;

    /* Keys: the table's key attributes, a map sorted by name */
    const ddb_item *src = nw ? nw : old;
    ddb_attr ka[2];
    ddb_value km = {.type = DDB_TM};
    const char *names[2] = {t->pk, t->sk};
    for (int i = 0; i < 2 && names[i]; i++) {
        ddb_value *v = (ddb_value *)ddb_item_get(src, names[i]);
        if (!v)
            return ddbi_fail(err, DDB_ECORRUPT, "table %s: a changed item lacks its key attribute %s", t->name,
                            names[i]);
        ka[km.len++] = (ddb_attr){names[i], (uint32_t)strlen(names[i]), v};
    }
    if (km.len == 2 && strcmp(ka[0].name, ka[1].name) > 0) {
        ddb_attr x = ka[0];
        ka[0] = ka[1];
        ka[1] = x;
    }
    km.u.m = ka;

    ddb_stream_view view = t->stream.view;
    bool want_old = view == DDB_STREAM_OLD_IMAGE || view == DDB_STREAM_NEW_AND_OLD_IMAGES;
    bool want_new = view == DDB_STREAM_NEW_IMAGE || view == DDB_STREAM_NEW_AND_OLD_IMAGES;
    const ddb_item *oi = want_old ? old : NULL, *ni = want_new ? nw : NULL;
    size_t ksize = keys_size(&km);
    size_t size = ksize + (oi ? st->old_size : 0) + (ni ? st->new_size : 0);
    int64_t now = ddbi_engine_clock_ms(db);

    uint8_t h[HEADER];
    h[0] = DDB_STREAM_RECORD_VERSION;
    h[1] = (uint8_t)ev;
    h[2] = (uint8_t)view;
    h[3] = (uint8_t)((ddbi_streams_of(db)->ttl_writing ? DDB_STREAM_FLAG_TTL : 0) | (oi ? DDB_STREAM_FLAG_OLD : 0) |
                     (ni ? DDB_STREAM_FLAG_NEW : 0));
    ddb_put_be(h + 4, (uint64_t)now, 8);
    ddb_put_be(h + 12, size > UINT32_MAX ? UINT32_MAX : size, 4);
    ddb_buf out = {0}, tmp = {0};
    int rc = ddbi_buf_put(&out, h, HEADER);
    if (!rc)
        rc = put_part(&out, &tmp, &km, ksize);
    if (!rc && oi)
        rc = put_part(&out, &tmp, ddb_item_map(oi), st->old_size);
    if (!rc && ni)
        rc = put_part(&out, &tmp, ddb_item_map(ni), st->new_size);
    ddbi_buf_free(&tmp);
    if (rc) {
        ddbi_buf_free(&out);
        return ddbi_fail_oom(err, __func__);
    }

    ddb_stream_state s;
    bool present;
    uint8_t key[300];
    if (!(rc = ddbi_stream_state_get(db, txn, t->name, &s, &present))) {
        s.last_seq++;
        MDB_val k = {ddbi_stream_record_key(key, t->name, s.last_seq), key}, v = {out.len, out.p};
        if (!(rc = ddbi_kv_put(db, txn, ddbi_streams_of(db)->dbi, &k, &v, 0))) {
            s.records++;
            s.bytes += out.len;
            rc = trim(db, txn, t->name, &t->stream, now, &s, TRIM_ON_WRITE, NULL);
        }
        if (!rc)
            rc = state_put(db, txn, t->name, &s);
    }
    ddbi_buf_free(&out);
    if (rc == MDB_CORRUPTED)
        return ddbi_fail_stored(err, t->name, NULL, 0, "its stream counters record is malformed");
    return rc ? ddbi_mdb_fail(err, rc, "stream record") : DDB_OK;
}

int ddbi_stream_drop_records(ddbi_engine *db, MDB_txn *txn, const char *table)
{
    ddb_stream_state s;
    bool present;
    int rc = ddbi_stream_state_get(db, txn, table, &s, &present);
    if (rc == MDB_CORRUPTED) /* dropping the table: delete every record */
        rc = 0;
    if (rc || !present)
        return rc;
    uint8_t key[300];
    size_t n = ddbi_stream_record_key(key, table, 0) - 8;
    /* records: the prefix plus 8 bytes; the state itself is the bare prefix */
    MDB_cursor *c;
    if ((rc = mdb_cursor_open(txn, ddbi_streams_of(db)->dbi, &c)))
        return rc;
    for (;;) {
        MDB_val k = {n + 8, key}, v;
        ddb_put_be(key + n, s.trimmed_through + 1, 8);
        int g = mdb_cursor_get(c, &k, &v, MDB_SET_RANGE);
        if (g == MDB_NOTFOUND || (!g && !is_record_of(&k, key, n)))
            break;
        if (g) {
            rc = g;
            break;
        }
        uint64_t seq = ddb_get_be((const uint8_t *)k.mv_data + n, 8); /* before the page changes */
        if ((rc = ddbi_kv_cursor_del(db, c)))
            break;
        s.trimmed_through = seq;
    }
    mdb_cursor_close(c);
    if (rc)
        return rc;
    s.trimmed_through = s.last_seq;
    s.records = s.bytes = 0;
    return state_put(db, txn, table, &s);
}

/* ---- decoding ---- */

static bool get_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    *v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (*p >= end)
            return false;
        uint8_t b = *(*p)++;
        *v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return true;
    }
    return false;
}

static int get_part(const uint8_t **p, const uint8_t *end, ddb_arena *a, ddb_item **out, const char *what,
                    ddb_error *err)
{
    uint64_t n;
    if (!get_varint(p, end, &n) || n > (uint64_t)(end - *p))
        return ddbi_fail(err, DDB_ECORRUPT, "the %s is truncated", what);
    int rc = ddbi_decode_item(*p, (size_t)n, a, out);
    if (rc == DDB_ENOMEM)
        return ddbi_fail_oom(err, __func__);
    if (rc)
        return ddbi_fail(err, DDB_ECORRUPT, "the %s does not decode", what);
    *p += n;
    return DDB_OK;
}

int ddbi_stream_decode(const char *table, uint64_t seq, const uint8_t *p, size_t n, ddb_arena *a,
                      ddb_stream_record *rec, ddb_error *err)
{
    memset(rec, 0, sizeof *rec);
    rec->table = table;
    rec->seq = seq;
    if (n < HEADER || p[0] != DDB_STREAM_RECORD_VERSION)
        return ddbi_fail(err, DDB_ECORRUPT, "record header is malformed (%zu bytes, version %u)", n,
                        n ? p[0] : 0u);
    if (p[1] < DDB_STREAM_INSERT || p[1] > DDB_STREAM_REMOVE)
        return ddbi_fail(err, DDB_ECORRUPT, "unknown event %u", p[1]);
    if (p[2] < DDB_STREAM_KEYS_ONLY || p[2] > DDB_STREAM_NEW_AND_OLD_IMAGES)
        return ddbi_fail(err, DDB_ECORRUPT, "unknown view type %u", p[2]);
    if (p[3] & ~7u)
        return ddbi_fail(err, DDB_ECORRUPT, "unknown flags 0x%02x", p[3]);
    rec->event = (ddb_stream_event)p[1];
    rec->view = (ddb_stream_view)p[2];
    rec->by_ttl = p[3] & DDB_STREAM_FLAG_TTL;
    rec->created_ms = (int64_t)ddb_get_be(p + 4, 8);
    rec->size = (size_t)ddb_get_be(p + 12, 4);
    const uint8_t *q = p + HEADER, *end = p + n;
    ddb_item *keys = NULL, *old = NULL, *nw = NULL;
    int rc = get_part(&q, end, a, &keys, "Keys", err);
    if (!rc && (p[3] & DDB_STREAM_FLAG_OLD))
        rc = get_part(&q, end, a, &old, "OldImage", err);
    if (!rc && (p[3] & DDB_STREAM_FLAG_NEW))
        rc = get_part(&q, end, a, &nw, "NewImage", err);
    if (!rc && q != end)
        rc = ddbi_fail(err, DDB_ECORRUPT, "%zu bytes follow the record", (size_t)(end - q));
    rec->keys = keys;
    rec->old_image = old;
    rec->new_image = nw;
    char text[24];
    snprintf(text, sizeof text, "%" PRIu64, seq);
    if (!rc && !(rec->sequence_number = ddb_arena_strdup(a, text)))
        rc = ddbi_fail_oom(err, __func__);
    return rc;
}

/* ---- iterators ---- */

typedef struct stream_iter {
    ddbi_engine *db;
    char table[256];
    ddb_stream_position from;
    uint64_t pos;  /* records up to pos are consumed */
    bool started;  /* a record was returned (TRIM_HORIZON is resolved) */
} stream_iter;

/* A read transaction, the table, its stream counters; DDB_ENOTABLE when the
 * table never had a stream. */
static int open_stream(ddbi_engine *db, const char *table, MDB_txn **txn, ddb_table_rt **t, ddb_stream_state *s,
                       ddb_error *err)
{
    int rc = ddbi_read_begin(db, txn, err);
    if (rc)
        return rc;
    bool present = false;
    if (!(rc = ddbi_table_get(db, *txn, table, t, err))) {
        int g = ddbi_stream_state_get(db, *txn, table, s, &present);
        if (g)
            rc = ddbi_mdb_fail(err, g, "stream");
        else if (!present && (*t)->stream.view == DDB_STREAM_NONE)
            rc = ddbi_fail(err, DDB_ENOTABLE, "table %s has no stream (enable one with ddb_update_table_stream)",
                          table);
    }
    if (rc) {
        ddbi_read_end(*txn);
        *txn = NULL;
    }
    return rc;
}

static int trimmed_error(const char *table, uint64_t pos, const ddb_stream_state *s, ddb_error *err)
{
    if (pos + 1 == s->trimmed_through && s->records)
        return ddbi_fail(err, DDB_ETRIMMED,
                        "stream of table %s: record %" PRIu64 " was trimmed before it was read; the oldest retained is %" PRIu64,
                        table, pos + 1, s->trimmed_through + 1);
    if (pos + 1 == s->trimmed_through)
        return ddbi_fail(err, DDB_ETRIMMED, "stream of table %s: record %" PRIu64 " was trimmed before it was read",
                        table, pos + 1);
    if (s->records)
        return ddbi_fail(err, DDB_ETRIMMED,
                        "stream of table %s: records %" PRIu64 "..%" PRIu64
                        " were trimmed before they were read; the oldest retained is %" PRIu64,
                        table, pos + 1, s->trimmed_through, s->trimmed_through + 1);
    return ddbi_fail(err, DDB_ETRIMMED,
                    "stream of table %s: records %" PRIu64 "..%" PRIu64 " were trimmed before they were read", table,
                    pos + 1, s->trimmed_through);
}

static int iter_read(void *impl, size_t max, ddb_arena *a, ddb_stream_record *recs, size_t *n, ddb_error *err);
static uint64_t iter_position(const void *impl);
static void iter_close(void *impl);

static const ddbi_stream_iter_ops iter_ops = {iter_read, iter_position, iter_close, NULL};

int ddbi_streams_stream_iter_open(void *impl, const char *table, ddb_stream_position from, uint64_t seq,
                                  const ddbi_stream_iter_ops **iops, void **out, ddb_error *err)
{
    ddbi_engine *db = impl;
    if ((unsigned)from > DDB_STREAM_AFTER_SEQUENCE)
        return ddbi_fail(err, DDB_EINVAL, "ddb_stream_iter_open: unknown position %d", (int)from);
    if (strlen(table) > 255)
        return ddbi_fail(err, DDB_EVALIDATION, "table name is longer than 255 bytes");
    if (from == DDB_STREAM_AT_SEQUENCE && seq == 0)
        return ddbi_fail(err, DDB_EVALIDATION, "sequence numbers start at 1");
    MDB_txn *txn;
    ddb_table_rt *t;
    ddb_stream_state s;
    int rc = open_stream(db, table, &txn, &t, &s, err);
    if (rc)
        return rc;
    ddbi_read_end(txn);
    uint64_t pos = 0;
    if (from == DDB_STREAM_LATEST)
        pos = s.last_seq;
    else if (from != DDB_STREAM_TRIM_HORIZON) {
        pos = from == DDB_STREAM_AT_SEQUENCE ? seq - 1 : seq;
        if (pos > s.last_seq)
            return ddbi_fail(err, DDB_EVALIDATION,
                            "stream of table %s: sequence number %" PRIu64 " is beyond the newest record (%" PRIu64 ")",
                            table, from == DDB_STREAM_AT_SEQUENCE ? seq : seq, s.last_seq);
        if (pos < s.trimmed_through)
            return trimmed_error(table, pos, &s, err);
    }
    stream_iter *it = calloc(1, sizeof *it);
    if (!it)
        return ddbi_fail_oom(err, __func__);
    it->db = db;
    snprintf(it->table, sizeof it->table, "%s", table);
    it->from = from;
    it->pos = pos;
    *iops = &iter_ops;
    *out = it;
    return DDB_OK;
}

static int iter_read(void *impl, size_t max, ddb_arena *a, ddb_stream_record *recs, size_t *n, ddb_error *err)
{
    stream_iter *it = impl;
    MDB_txn *txn;
    ddb_table_rt *t;
    ddb_stream_state s;
    int rc = open_stream(it->db, it->table, &txn, &t, &s, err);
    if (rc)
        return rc;
    if (it->from == DDB_STREAM_TRIM_HORIZON && !it->started && it->pos < s.trimmed_through)
        it->pos = s.trimmed_through;
    if (it->pos < s.trimmed_through) {
        ddbi_read_end(txn);
        return trimmed_error(it->table, it->pos, &s, err);
    }
    char *name = ddb_arena_alloc(a, strlen(it->table) + 1);
    MDB_cursor *c = NULL;
    if (!name)
        rc = ddbi_fail_oom(err, __func__);
    else if ((rc = mdb_cursor_open(txn, ddbi_streams_of(it->db)->dbi, &c)))
        rc = ddbi_mdb_fail(err, rc, "stream");
    if (!rc) {
        strcpy(name, it->table);
        uint8_t key[300];
        size_t plen = strlen(it->table) + 1;
        MDB_val k = {ddbi_stream_record_key(key, it->table, it->pos + 1), key}, v;
        int g = mdb_cursor_get(c, &k, &v, MDB_SET_RANGE);
        while (!rc && *n < max && g == 0 && is_record_of(&k, key, plen)) {
            uint64_t seq = ddb_get_be((const uint8_t *)k.mv_data + plen, 8);
            ddb_error e;
            if (seq <= it->pos) { /* the cursor went back: a damaged page */
                rc = ddbi_fail(err, DDB_ECORRUPT,
                               "stream of table %s: record %" PRIu64 " read after %" PRIu64
                               " (the database file is damaged)",
                               it->table, seq, it->pos);
                break;
            }
            if ((rc = ddbi_stored_val_check(it->db, it->table, "a stream record", &k, &v, err)))
                break;
            if ((rc = ddbi_stream_decode(name, seq, v.mv_data, v.mv_size, a, &recs[*n], &e))) {
                rc = ddbi_fail(err, rc, "stream of table %s, record %" PRIu64 ": %s", it->table, seq, e.message);
                break;
            }
            (*n)++;
            it->pos = seq;
            it->started = true;
            g = mdb_cursor_get(c, &k, &v, MDB_NEXT);
        }
        if (!rc && g && g != MDB_NOTFOUND)
            rc = ddbi_mdb_fail(err, g, "stream");
    }
    if (c)
        mdb_cursor_close(c);
    ddbi_read_end(txn);
    return rc;
}

static uint64_t iter_position(const void *impl)
{
    const stream_iter *it = impl;
    return it->pos;
}

static void iter_close(void *it)
{
    free(it);
}

/* ---- DescribeStream, trimming ---- */

int ddbi_streams_stream_describe(void *impl, const char *table, ddb_stream_desc *out, ddb_error *err)
{
    ddbi_engine *db = impl;
    memset(out, 0, sizeof *out);
    MDB_txn *txn;
    int rc = ddbi_read_begin(db, &txn, err);
    if (rc)
        return rc;
    ddb_table_rt *t;
    ddb_stream_state s;
    bool present;
    if (!(rc = ddbi_table_get(db, txn, table, &t, err))) {
        int g = ddbi_stream_state_get(db, txn, table, &s, &present);
        if (g)
            rc = ddbi_mdb_fail(err, g, "stream");
    }
    if (!rc) {
        out->spec = t->stream;
        out->enabled_ms = t->stream_enabled_ms;
        out->last_seq = s.last_seq;
        out->trimmed_through = s.trimmed_through;
        out->records = s.records;
        out->bytes = s.bytes;
        uint8_t key[300];
        size_t plen = strlen(table) + 1;
        MDB_val k = {ddbi_stream_record_key(key, table, s.trimmed_through + 1), key}, v;
        MDB_cursor *c;
        if (s.records && !mdb_cursor_open(txn, ddbi_streams_of(db)->dbi, &c)) {
            if (mdb_cursor_get(c, &k, &v, MDB_SET_RANGE) == 0 && is_record_of(&k, key, plen)) {
                out->first_seq = ddb_get_be((const uint8_t *)k.mv_data + plen, 8);
                if (v.mv_size >= HEADER)
                    out->oldest_ms = (int64_t)ddb_get_be((const uint8_t *)v.mv_data + 4, 8);
            }
            mdb_cursor_close(c);
        }
    }
    ddbi_read_end(txn);
    return rc;
}

typedef struct trim_ctx {
    const char *table;
    int64_t now;
    uint64_t trimmed;
    bool more;
    ddb_error *err;
} trim_ctx;

static int trim_fn(ddbi_engine *db, MDB_txn *txn, void *vctx)
{
    trim_ctx *cx = vctx;
    ddb_table_rt *t;
    int rc = ddbi_table_get(db, txn, cx->table, &t, cx->err);
    if (rc)
        return rc;
    ddb_stream_state s;
    bool present;
    uint64_t n = 0;
    if ((rc = ddbi_stream_state_get(db, txn, cx->table, &s, &present)) || !present)
        return rc ? ddbi_mdb_fail(cx->err, rc, "stream") : DDB_OK;
    if (!(rc = trim(db, txn, cx->table, &t->stream, cx->now, &s, TRIM_PER_TXN, &n)) && n)
        rc = state_put(db, txn, cx->table, &s);
    if (rc)
        return ddbi_mdb_fail(cx->err, rc, "trimming the stream");
    cx->trimmed += n;
    cx->more = n == TRIM_PER_TXN;
    return DDB_OK;
}

int ddbi_streams_stream_trim(void *impl, const char *table, uint64_t *trimmed, ddb_error *err)
{
    ddbi_engine *db = impl;
    trim_ctx cx = {table, ddbi_engine_clock_ms(db), 0, true, err};
    int rc = DDB_OK;
    while (!rc && cx.more) {
        cx.more = false;
        rc = ddbi_run_write(db, trim_fn, &cx, false, err);
    }
    if (trimmed)
        *trimmed = cx.trimmed;
    return rc;
}

/* ---- ddb_stream_check ---- */

typedef struct scheck {
    const ddb_table_rt *t;
    ddb_check_report *r;
} scheck;

__attribute__((format(printf, 3, 4))) static void problem(scheck *c, uint64_t seq, const char *fmt, ...)
{
    if (c->r->problems++)
        return;
    int n = seq ? snprintf(c->r->first_problem, sizeof c->r->first_problem, "stream of table %s, record %" PRIu64 ": ",
                           c->t->name, seq)
                : snprintf(c->r->first_problem, sizeof c->r->first_problem, "stream of table %s: ", c->t->name);
    if (n < 0 || (size_t)n >= sizeof c->r->first_problem)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->r->first_problem + n, sizeof c->r->first_problem - (size_t)n, fmt, ap);
    va_end(ap);
}

/* Does image carry the key attributes keys names, with the same values? */
static bool image_matches(const ddb_item *image, const ddb_item *keys)
{
    const ddb_value *m = ddb_item_map(keys);
    for (uint32_t i = 0; i < m->len; i++) {
        const ddb_value *v = ddb_item_get(image, m->u.m[i].name);
        if (!v || !ddb_value_equal(v, m->u.m[i].value))
            return false;
    }
    return true;
}

static void check_record(scheck *c, const ddb_stream_record *rec)
{
    const ddb_table_rt *t = c->t;
    const ddb_value *pk, *sk;
    ddb_error e = {0};
    if (ddbi_keys_exact(t, rec->keys, &pk, &sk, &e)) {
        problem(c, rec->seq, "Keys: %s", e.message);
        return;
    }
    bool old = rec->old_image != NULL, nw = rec->new_image != NULL;
    bool has_old = rec->event != DDB_STREAM_INSERT, has_new = rec->event != DDB_STREAM_REMOVE;
    bool want_old = has_old && (rec->view == DDB_STREAM_OLD_IMAGE || rec->view == DDB_STREAM_NEW_AND_OLD_IMAGES);
    bool want_new = has_new && (rec->view == DDB_STREAM_NEW_IMAGE || rec->view == DDB_STREAM_NEW_AND_OLD_IMAGES);
    if (old != want_old || nw != want_new) {
        problem(c, rec->seq, "a %s record of view %s has %s old and %s new image", ddb_stream_event_name(rec->event),
                ddb_stream_view_name(rec->view), old ? "an" : "no", nw ? "a" : "no");
        return;
    }
    if ((old && !image_matches(rec->old_image, rec->keys)) || (nw && !image_matches(rec->new_image, rec->keys))) {
        problem(c, rec->seq, "an image's key attributes differ from the record's Keys");
        return;
    }
    if (rec->by_ttl && rec->event != DDB_STREAM_REMOVE) {
        problem(c, rec->seq, "a TTL deletion recorded as %s", ddb_stream_event_name(rec->event));
        return;
    }
    size_t size = ddb_item_size(rec->keys) + (old ? ddb_item_size(rec->old_image) : 0) +
                  (nw ? ddb_item_size(rec->new_image) : 0);
    if (size != rec->size)
        problem(c, rec->seq, "SizeBytes says %zu, its keys and images measure %zu", rec->size, size);
}

int ddbi_streams_stream_check(void *impl, const char *table, ddb_check_report *report, ddb_error *err)
{
    ddbi_engine *db = impl;
    ddb_check_report local;
    ddb_check_report *r = report ? report : &local;
    memset(r, 0, sizeof *r);
    MDB_txn *txn;
    int rc = ddbi_read_begin(db, &txn, err);
    if (rc)
        return rc;
    ddb_table_rt *t;
    if ((rc = ddbi_table_get(db, txn, table, &t, err))) {
        ddbi_read_end(txn);
        return rc;
    }
    scheck c = {t, r};
    ddb_stream_state s;
    bool present;
    MDB_cursor *cur = NULL;
    ddb_arena *a = ddb_arena_new();
    int g = ddbi_stream_state_get(db, txn, table, &s, &present);
    if (g == MDB_CORRUPTED) /* reported below */
        g = 0;
    if (!g && present) {
        MDB_val k = {strlen(table) + 1, (void *)table}, v;
        if (mdb_get(txn, ddbi_streams_of(db)->dbi, &k, &v) == 0 && v.mv_size != sizeof s)
            problem(&c, 0, "its counters record has %zu bytes (%zu expected)", v.mv_size, sizeof s);
        else if (s.trimmed_through > s.last_seq)
            problem(&c, 0, "trimmed through %" PRIu64 " but the newest sequence number is %" PRIu64, s.trimmed_through,
                    s.last_seq);
    }
    if (!g && !a)
        g = ENOMEM;
    if (!g)
        g = mdb_cursor_open(txn, ddbi_streams_of(db)->dbi, &cur);
    uint64_t count = 0, bytes = 0, prev = 0;
    if (!g) {
        /* every key from "<table>\0" on, until another table's */
        uint8_t key[300];
        size_t plen = ddbi_stream_record_key(key, table, 0) - 8;
        MDB_val k = {plen, key}, v;
        g = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
        while (g == 0 && k.mv_size >= plen && memcmp(k.mv_data, key, plen) == 0) {
            if (k.mv_size == plen) { /* the counters */
                g = mdb_cursor_get(cur, &k, &v, MDB_NEXT);
                continue;
            }
            if (k.mv_size != plen + 8) {
                problem(&c, 0, "a key of %zu bytes (%zu expected)", k.mv_size, plen + 8);
                g = mdb_cursor_get(cur, &k, &v, MDB_NEXT);
                continue;
            }
            uint64_t seq = ddb_get_be((const uint8_t *)k.mv_data + plen, 8);
            r->items++;
            count++;
            bytes += v.mv_size;
            if (seq <= s.trimmed_through || seq > s.last_seq)
                problem(&c, seq, "outside the retained range %" PRIu64 "..%" PRIu64, s.trimmed_through + 1,
                        s.last_seq);
            else if (seq != (prev ? prev : s.trimmed_through) + 1) { /* trimming takes the oldest only: no gaps */
                uint64_t from = (prev ? prev : s.trimmed_through) + 1;
                if (from == seq - 1)
                    problem(&c, seq, "record %" PRIu64 " before it is missing", from);
                else
                    problem(&c, seq, "records %" PRIu64 "..%" PRIu64 " before it are missing", from, seq - 1);
            }
            prev = seq;
            ddb_stream_record rec;
            ddb_error e = {0};
            int d = ddbi_stored_val_check(db, table, "a stream record", &k, &v, &e);
            if (!d)
                d = ddbi_stream_decode(table, seq, v.mv_data, v.mv_size, a, &rec, &e);
            if (d == DDB_ENOMEM) {
                g = ENOMEM;
                break;
            }
            if (d)
                problem(&c, seq, "%s", e.message);
            else
                check_record(&c, &rec);
            ddb_arena_reset(a);
            g = mdb_cursor_get(cur, &k, &v, MDB_NEXT);
        }
        if (g == MDB_NOTFOUND || g == 0)
            g = 0;
    }
    if (!g && (prev ? prev : s.trimmed_through) < s.last_seq)
        problem(&c, 0, "records %" PRIu64 "..%" PRIu64 " are missing", (prev ? prev : s.trimmed_through) + 1,
                s.last_seq);
    if (!g && (count != s.records || bytes != s.bytes))
        problem(&c, 0, "its counters say %" PRIu64 " records / %" PRIu64 " bytes, it holds %" PRIu64 " / %" PRIu64,
                s.records, s.bytes, count, bytes);
    if (cur)
        mdb_cursor_close(cur);
    ddb_arena_free(a);
    ddbi_read_end(txn);
    if (g == ENOMEM)
        return ddbi_fail_oom(err, "ddb_stream_check");
    if (g)
        return ddbi_check_stopped(r, ddbi_mdb_fail(err, g, "ddb_stream_check"), err);
    if (r->problems)
        return ddbi_fail(err, DDB_ECORRUPT, "%" PRIu64 " problem(s); the first: %s", r->problems, r->first_problem);
    return DDB_OK;
}
