/* remote/: ddb_stream_iter_open / ddb_stream_read / ddb_stream_describe
 * through DynamoDB Streams (ListStreams, DescribeStream, GetShardIterator,
 * GetRecords), as the DynamoDB Developer Guide describes reading a stream
 * ("Reading and processing a stream"):
 *   - the table's newest stream (ListStreams with TableName), all of its
 *     shards (DescribeStream, following LastEvaluatedShardId);
 *   - a shard whose parent (ParentShardId) is listed is read only after
 *     the parent was read to its end (GetRecords without a
 *     NextShardIterator), so a split's parent comes before its children;
 *     when a shard ends, DescribeStream is asked again for its children;
 *   - an iterator expires 15 minutes after GetShardIterator
 *     (ExpiredIteratorException): it is acquired again after the last
 *     sequence number read (or at the shard's starting position);
 *   - TrimmedDataAccessException (records trimmed after 24 hours): a
 *     shard read from TRIM_HORIZON that has returned nothing yet moves on
 *     to the oldest record kept (as the embedded engine's TRIM_HORIZON);
 *     otherwise DDB_ETRIMMED, records would be lost.
 * Requests go through ddbi_remote_call_streams (signed, retried); answers
 * are read by remote_streams_parse.c.  May call core/ and the room. */
#include "remote/remote_streams.h"

#include "core/error.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

/* A table with more shards than this is refused (DDB_ELIMIT): each is a
 * few hundred bytes here and one GetRecords a read while open. */
#define RS_MAX_SHARDS 10000
/* ListStreams pages followed at most (100 streams a page). */
#define RS_MAX_STREAM_PAGES 100

typedef enum rs_state {
    RS_WAIT = 0, /* its parent is still being read */
    RS_READY,    /* to be read */
    RS_DONE      /* read to its end (or before the starting position) */
} rs_state;

/* One shard as the iterator reads it. */
typedef struct rs_cursor {
    rs_shard s;
    rs_state state;
    ddb_stream_position from;         /* where to start while nothing was read */
    char from_seq[RS_SEQ_MAX + 1];    /* of AT_ / AFTER_SEQUENCE */
    char last[RS_SEQ_MAX + 1];        /* SequenceNumber of the last record read, "" none */
    char *iter;                       /* ShardIterator; NULL: acquire one */
} rs_cursor;

/* The shards by ShardId (for lookups in O(log n)); id points into c. */
typedef struct rs_key {
    const char *id;
    size_t i;
} rs_key;

typedef struct rs_iter {
    ddb_remote *r;
    char *table;
    char arn[RS_ARN_MAX + 1];
    ddb_stream_view view; /* StreamViewType of DescribeStream */
    rs_cursor *c;
    size_t n, cap;
    rs_key *keys; /* nkeys of them, sorted by id: rebuilt whenever c changes */
    size_t nkeys;
    bool refresh; /* ask DescribeStream for new shards before the next read */
    uint64_t pos; /* ddb_stream_iter_position */
} rs_iter;

/* ---- Errors of the service ---------------------------------------------------------- */

/* The exception name of an error answer ("" when there was none). */
static const char *fault_type(const json_t *eb)
{
    const char *t = json_string_value(json_object_get(eb, "__type"));
    if (!t)
        return "";
    const char *hash = strrchr(t, '#');
    return hash ? hash + 1 : t;
}

/* ---- The stream and its shards ------------------------------------------------------- */

/* The ARN of table's newest stream (ListStreams, every page). */
static int find_stream(ddb_remote *r, const char *table, char arn[RS_ARN_MAX + 1], ddb_error *err)
{
    char label[64] = "", last[RS_ARN_MAX + 1] = "", prev[RS_ARN_MAX + 1] = "";
    arn[0] = '\0';
    for (unsigned page = 0;; page++) {
        if (page == RS_MAX_STREAM_PAGES)
            return ddbi_remote_bad(err, "ListStreams", "more than %d pages of streams", RS_MAX_STREAM_PAGES);
        json_t *req = json_pack("{s:s, s:i}", "TableName", table, "Limit", 100), *resp = NULL;
        if (req && last[0] && json_object_set_new(req, "ExclusiveStartStreamArn", json_string(last))) {
            json_decref(req);
            req = NULL;
        }
        if (!req)
            return ddbi_fail(err, DDB_EVALIDATION, "table name \"%.64s\" is not UTF-8", table);
        int rc = ddbi_remote_call_streams(r, "ListStreams", req, &resp, NULL, err);
        json_decref(req);
        memcpy(prev, last, sizeof last);
        if (!rc)
            rc = ddbi_rs_parse_streams(resp, table, arn, label, last, err);
        json_decref(resp);
        if (rc)
            return rc;
        if (!last[0])
            break;
        if (strcmp(last, prev) == 0)
            return ddbi_remote_bad(err, "ListStreams", "LastEvaluatedStreamArn %.100s repeats", last);
    }
    if (!arn[0])
        return ddbi_fail(err, DDB_ENOTABLE, "table %s has no stream (ListStreams lists none)", table);
    return DDB_OK;
}

static int key_cmp(const void *a, const void *b)
{
    return strcmp(((const rs_key *)a)->id, ((const rs_key *)b)->id);
}

static ssize_t find_shard(const rs_iter *it, const char *id)
{
    rs_key k = {id, 0};
    const rs_key *hit = id[0] && it->nkeys ? bsearch(&k, it->keys, it->nkeys, sizeof k, key_cmp) : NULL;
    return hit ? (ssize_t)hit->i : -1;
}

/* Sort the shards by id again; a ShardId listed twice is a bad answer. */
static int index_shards(rs_iter *it, ddb_error *err)
{
    rs_key *k = realloc(it->keys, (it->n ? it->n : 1) * sizeof *k);
    if (!k)
        return ddbi_fail_oom(err, __func__);
    it->keys = k;
    for (size_t i = 0; i < it->n; i++)
        k[i] = (rs_key){it->c[i].s.id, i};
    qsort(k, it->n, sizeof *k, key_cmp);
    it->nkeys = it->n;
    for (size_t i = 1; i < it->n; i++)
        if (strcmp(k[i - 1].id, k[i].id) == 0)
            return ddbi_remote_bad(err, "DescribeStream", "shard %s is listed twice", k[i].id);
    return DDB_OK;
}

/* Add the shards DescribeStream lists that the iterator does not know yet
 * (every page); they get state RS_WAIT and are placed by the caller. */
static int list_shards(rs_iter *it, ddb_error *err)
{
    char last[RS_SHARD_ID_MAX + 1] = "";
    for (;;) {
        json_t *req = json_pack("{s:s, s:i}", "StreamArn", it->arn, "Limit", RS_SHARDS_PAGE), *resp = NULL;
        if (req && last[0] && json_object_set_new(req, "ExclusiveStartShardId", json_string(last))) {
            json_decref(req);
            req = NULL;
        }
        if (!req)
            return ddbi_fail_oom(err, "building a request");
        int rc = ddbi_remote_call_streams(it->r, "DescribeStream", req, &resp, NULL, err);
        json_decref(req);
        rs_stream_page pg = {0};
        if (!rc)
            rc = ddbi_rs_parse_stream(resp, &pg, err);
        json_decref(resp);
        if (!rc && pg.last[0] && (!pg.n || strcmp(pg.last, last) == 0))
            rc = ddbi_remote_bad(err, "DescribeStream", "LastEvaluatedShardId %s does not advance", pg.last);
        if (!rc && it->n + pg.n > it->cap) { /* room for the page first: keys point into c */
            size_t cap = it->cap ? it->cap : 16;
            while (cap < it->n + pg.n)
                cap *= 2;
            rs_cursor *c = realloc(it->c, cap * sizeof *c);
            if (c) {
                it->c = c;
                it->cap = cap;
            }
            rc = c ? index_shards(it, err) : ddbi_fail_oom(err, __func__);
        }
        for (size_t i = 0; !rc && i < pg.n; i++) {
            if (find_shard(it, pg.shards[i].id) >= 0)
                continue;
            if (it->n == RS_MAX_SHARDS) {
                rc = ddbi_fail(err, DDB_ELIMIT, "the stream of table %s has more than %d shards", it->table,
                               RS_MAX_SHARDS);
                break;
            }
            rs_cursor *c = &it->c[it->n++];
            memset(c, 0, sizeof *c);
            c->s = pg.shards[i];
            c->from = DDB_STREAM_TRIM_HORIZON;
        }
        memcpy(last, pg.last, sizeof last);
        it->view = pg.view;
        free(pg.shards);
        if (!rc)
            rc = index_shards(it, err);
        if (rc)
            return rc;
        if (!last[0])
            return DDB_OK;
    }
}

/* Shards waiting for a parent that is done (or not listed) become ready.
 * One pass: a shard becoming ready makes no other one ready (only a parent
 * that is done does), and callers settle after each shard that ends. */
static void settle(rs_iter *it)
{
    for (size_t i = 0; i < it->n; i++) {
        if (it->c[i].state != RS_WAIT)
            continue;
        ssize_t p = find_shard(it, it->c[i].s.parent);
        if (p < 0 || it->c[p].state == RS_DONE)
            it->c[i].state = RS_READY;
    }
}

/* ---- One shard ---------------------------------------------------------------------------- */

static const char *const iter_types[] = {"TRIM_HORIZON", "LATEST", "AT_SEQUENCE_NUMBER", "AFTER_SEQUENCE_NUMBER"};

static bool fresh_horizon(const rs_cursor *c)
{
    return !c->last[0] && c->from == DDB_STREAM_TRIM_HORIZON;
}

static int trimmed(const rs_iter *it, const rs_cursor *c, const char *op, const ddb_error *e2, ddb_error *err)
{
    const char *what = c->last[0] ? c->last : c->from_seq;
    if (what[0])
        return ddbi_fail(err, DDB_ETRIMMED, "stream of table %s, shard %s: records after sequence number %s were "
                         "trimmed before they were read (%s: %s)", it->table, c->s.id, what, op, e2->message);
    return ddbi_fail(err, DDB_ETRIMMED, "stream of table %s, shard %s: records were trimmed before they were read "
                     "(%s: %s)", it->table, c->s.id, op, e2->message);
}

/* GetShardIterator for c: after its last record, else at its starting
 * position.  A shard gone from a fresh TRIM_HORIZON reader is done. */
static int acquire(rs_iter *it, rs_cursor *c, ddb_error *err)
{
    ddb_stream_position kind = c->last[0] ? DDB_STREAM_AFTER_SEQUENCE : c->from;
    const char *seq = c->last[0] ? c->last : c->from_seq;
    json_t *req = json_pack("{s:s, s:s, s:s}", "StreamArn", it->arn, "ShardId", c->s.id, "ShardIteratorType",
                            iter_types[kind]),
           *resp = NULL, *eb = NULL;
    if (req && kind >= DDB_STREAM_AT_SEQUENCE && json_object_set_new(req, "SequenceNumber", json_string(seq))) {
        json_decref(req);
        req = NULL;
    }
    if (!req)
        return ddbi_fail_oom(err, "building a request");
    ddb_error e2 = {0};
    int rc = ddbi_remote_call_streams(it->r, "GetShardIterator", req, &resp, &eb, &e2);
    json_decref(req);
    if (!rc)
        rc = ddbi_rs_parse_iterator(resp, &c->iter, &e2);
    const char *t = fault_type(eb);
    if (rc && fresh_horizon(c) && strcmp(t, "ResourceNotFoundException") == 0) {
        c->state = RS_DONE; /* the shard was trimmed away */
        rc = DDB_OK;
    } else if (rc && strcmp(t, "TrimmedDataAccessException") == 0) {
        rc = trimmed(it, c, "GetShardIterator", &e2, err);
    } else if (rc && err) {
        *err = e2;
    }
    json_decref(resp);
    json_decref(eb);
    return rc;
}

/* GetRecords on c: up to max records into recs[0..*k). */
static int read_shard(rs_iter *it, rs_cursor *c, size_t max, ddb_arena *a, ddb_stream_record *recs, size_t *k,
                      ddb_error *err)
{
    *k = 0;
    if (max > RS_RECORDS_MAX)
        max = RS_RECORDS_MAX;
    /* at most: acquire, expire, acquire again, trimmed, from the horizon again */
    for (int attempt = 0; attempt < 3; attempt++) {
        int rc = c->iter ? DDB_OK : acquire(it, c, err);
        if (rc || c->state == RS_DONE)
            return rc;
        json_t *req = json_pack("{s:s, s:I}", "ShardIterator", c->iter, "Limit", (json_int_t)max), *resp = NULL,
               *eb = NULL;
        if (!req)
            return ddbi_fail_oom(err, "building a request");
        ddb_error e2 = {0};
        rc = ddbi_remote_call_streams(it->r, "GetRecords", req, &resp, &eb, &e2);
        json_decref(req);
        if (!rc) {
            char *next = NULL;
            rc = ddbi_rs_parse_records(resp, it->table, max, a, recs, k, &next, c->last, err);
            json_decref(resp);
            if (rc)
                return rc;
            for (size_t i = 0; i < *k; i++)
                if (!recs[i].view)
                    recs[i].view = it->view;
            free(c->iter);
            c->iter = next;
            if (!next)
                c->state = RS_DONE;
            if (*k && recs[*k - 1].seq)
                it->pos = recs[*k - 1].seq;
            return DDB_OK;
        }
        const char *t = fault_type(eb);
        bool expired = strcmp(t, "ExpiredIteratorException") == 0;
        bool trim = strcmp(t, "TrimmedDataAccessException") == 0;
        bool gone = strcmp(t, "ResourceNotFoundException") == 0;
        json_decref(eb);
        if (expired || ((trim || gone) && fresh_horizon(c))) {
            free(c->iter);
            c->iter = NULL;
            if (gone) {
                c->state = RS_DONE;
                return DDB_OK;
            }
            continue;
        }
        if (trim)
            return trimmed(it, c, "GetRecords", &e2, err);
        if (err)
            *err = e2;
        return rc;
    }
    return ddbi_fail(err, DDB_EIO, "stream of table %s, shard %s: GetRecords failed again with an iterator "
                     "acquired just before (ExpiredIteratorException or TrimmedDataAccessException)", it->table,
                     c->s.id);
}

/* ---- The iterator --------------------------------------------------------------------------- */

static int rs_read(void *vit, size_t max, ddb_arena *a, ddb_stream_record *recs, size_t *n, ddb_error *err)
{
    rs_iter *it = vit;
    *n = 0;
    if (!max)
        return DDB_OK;
    if (it->refresh) {
        size_t known = it->n;
        int rc = list_shards(it, err);
        if (rc)
            return rc;
        for (size_t i = known; i < it->n; i++)
            it->c[i].state = RS_WAIT; /* new shards (children) start at their beginning */
        settle(it);
        it->refresh = false;
    }
    bool ready = false;
    for (size_t i = 0; i < it->n && *n < max; i++) {
        rs_cursor *c = &it->c[i];
        if (c->state != RS_READY)
            continue;
        ready = true;
        size_t k;
        ddb_error e2 = {0};
        int rc = read_shard(it, c, max - *n, a, recs + *n, &k, &e2);
        if (rc) {
            /* records already taken are returned; the failure repeats at the next read */
            if (!*n && err)
                *err = e2;
            return *n ? DDB_OK : rc;
        }
        *n += k;
        if (c->state == RS_DONE) {
            settle(it);
            it->refresh = true; /* its children may be new */
        }
    }
    if (!ready)
        it->refresh = true; /* every shard is read: look for new ones next time */
    return DDB_OK;
}

static uint64_t rs_position(const void *vit)
{
    return ((const rs_iter *)vit)->pos;
}

static void rs_close(void *vit)
{
    rs_iter *it = vit;
    if (!it)
        return;
    for (size_t i = 0; i < it->n; i++)
        free(it->c[i].iter);
    free(it->c);
    free(it->keys);
    free(it->table);
    free(it);
}

/* ---- Checkpoints ---------------------------------------------------------------------------- */

/* "ddb-streams-1" then ";ENTRY" per shard:
 *   ID>SEQ  read up to SEQ (records after it next)
 *   ID@SEQ  nothing read, opened AT_SEQUENCE SEQ
 *   ID=     nothing read, from the shard's first record
 *   ID!     read to its end, with no child known yet
 * Shards not named are the named ones' ancestors (done) or descendants
 * (after them), or new (from their start).  ShardIds hold [A-Za-z0-9_.-]. */
#define CKPT_HEAD "ddb-streams-1"

static bool has_child(const rs_iter *it, const char *id)
{
    for (size_t i = 0; i < it->n; i++)
        if (strcmp(it->c[i].s.parent, id) == 0)
            return true;
    return false;
}

static int rs_checkpoint(const void *vit, char *buf, size_t cap, ddb_error *err)
{
    const rs_iter *it = vit;
    size_t need = sizeof CKPT_HEAD;
    /* two passes: measure, then write (when it fits) */
    for (int write = 0; write < 2; write++) {
        size_t off = write ? (size_t)snprintf(buf, cap, "%s", CKPT_HEAD) : need;
        for (size_t i = 0; i < it->n; i++) {
            const rs_cursor *c = &it->c[i];
            char tag = 0;
            const char *seq = "";
            if (c->state == RS_DONE && !has_child(it, c->s.id))
                tag = '!';
            else if (c->state == RS_READY && c->last[0])
                tag = '>', seq = c->last;
            else if (c->state == RS_READY && c->from == DDB_STREAM_AT_SEQUENCE)
                tag = '@', seq = c->from_seq;
            else if (c->state == RS_READY && c->from == DDB_STREAM_AFTER_SEQUENCE)
                tag = '>', seq = c->from_seq;
            else if (c->state == RS_READY)
                tag = '=';
            if (!tag)
                continue;
            size_t len = 1 + strlen(c->s.id) + 1 + strlen(seq);
            if (write)
                snprintf(buf + off, cap - off, ";%s%c%s", c->s.id, tag, seq);
            off += len;
        }
        if (!write) {
            need = off;
            if (need > cap) {
                buf[0] = '\0';
                return ddbi_fail(err, DDB_ELIMIT, "ddb_stream_iter_checkpoint: the checkpoint of %zu shards needs %zu "
                                 "bytes, the buffer has %zu", it->n, need, cap);
            }
        }
    }
    return DDB_OK;
}

static const ddbi_stream_iter_ops rs_ops = {rs_read, rs_position, rs_close, rs_checkpoint};

/* A new iterator over table's newest stream with its shards listed (state
 * RS_WAIT, to be placed).  On failure *out is NULL. */
static int iter_start(ddb_remote *r, const char *table, rs_iter **out, ddb_error *err)
{
    *out = NULL;
    rs_iter *it = calloc(1, sizeof *it);
    if (!it || !(it->table = strdup(table))) {
        free(it);
        return ddbi_fail_oom(err, __func__);
    }
    it->r = r;
    int rc = find_stream(r, table, it->arn, err);
    if (!rc)
        rc = list_shards(it, err);
    if (rc)
        rs_close(it);
    else
        *out = it;
    return rc;
}

/* Hand the placed iterator out, or free it when rc says so. */
static int iter_finish(rs_iter *it, int rc, const ddbi_stream_iter_ops **iops, void **out)
{
    if (rc) {
        rs_close(it);
        return rc;
    }
    *iops = &rs_ops;
    *out = it;
    return DDB_OK;
}

/* Mark the shard of one checkpoint entry "ID<tag>SEQ" (len bytes). */
static int resume_entry(rs_iter *it, const char *e, size_t len, ddb_error *err)
{
    size_t idl = strcspn(e, ">@=!");
    if (!idl || idl > RS_SHARD_ID_MAX || idl >= len)
        return ddbi_fail(err, DDB_EINVAL, "ddb_stream_iter_resume: \"%.*s\" is not a shard entry of a checkpoint",
                         (int)(len < 80 ? len : 80), e);
    char id[RS_SHARD_ID_MAX + 1], seq[RS_SEQ_MAX + 1] = "";
    memcpy(id, e, idl);
    id[idl] = '\0';
    char tag = e[idl];
    size_t sl = len - idl - 1;
    bool wants_seq = tag == '>' || tag == '@';
    if (sl > RS_SEQ_MAX || (wants_seq != (sl > 0)))
        return ddbi_fail(err, DDB_EINVAL, "ddb_stream_iter_resume: shard %s: bad position \"%.*s\"", id,
                         (int)(sl < 48 ? sl : 48), e + idl + 1);
    memcpy(seq, e + idl + 1, sl);
    seq[sl] = '\0';
    if (wants_seq && !ddbi_rs_seq_ok(seq))
        return ddbi_fail(err, DDB_EINVAL, "ddb_stream_iter_resume: shard %s: \"%s\" is not a sequence number", id,
                         seq);
    ssize_t i = find_shard(it, id);
    if (i < 0 && tag == '!')
        return DDB_OK; /* read to its end and trimmed since */
    if (i < 0)
        return ddbi_fail(err, DDB_ETRIMMED, "stream of table %s: shard %s of the checkpoint is no longer in the stream "
                         "(trimmed after 24 hours): records after the checkpoint are lost", it->table, id);
    rs_cursor *c = &it->c[i];
    c->state = tag == '!' ? RS_DONE : RS_READY;
    c->from = tag == '@' ? DDB_STREAM_AT_SEQUENCE : DDB_STREAM_TRIM_HORIZON;
    snprintf(tag == '>' ? c->last : c->from_seq, RS_SEQ_MAX + 1, "%s", seq);
    if (tag == '>' && ddbi_rs_seq_u64(seq))
        it->pos = ddbi_rs_seq_u64(seq);
    /* what came before it is read */
    for (ssize_t p = find_shard(it, c->s.parent); p >= 0 && it->c[p].state != RS_DONE;
         p = find_shard(it, it->c[p].s.parent))
        it->c[p].state = RS_DONE;
    return DDB_OK;
}

int ddbi_remote_stream_iter_resume(void *impl, const char *table, const char *checkpoint,
                                   const ddbi_stream_iter_ops **iops, void **out, ddb_error *err)
{
    size_t hl = strlen(CKPT_HEAD);
    if (strncmp(checkpoint, CKPT_HEAD, hl) || (checkpoint[hl] && checkpoint[hl] != ';'))
        return ddbi_fail(err, DDB_EINVAL, "ddb_stream_iter_resume: \"%.60s\" is not a checkpoint (a sequence "
                         "number, or text starting " CKPT_HEAD ")", checkpoint);
    rs_iter *it;
    int rc = iter_start(impl, table, &it, err);
    /* every shard waits for its lineage unless an entry says otherwise */
    for (const char *e = checkpoint + hl; !rc && *e == ';';) {
        e++;
        size_t len = strcspn(e, ";");
        rc = resume_entry(it, e, len, err);
        e += len;
    }
    if (!rc)
        settle(it);
    /* positions given are checked now (a trimmed one fails here, as at open) */
    for (size_t i = 0; !rc && i < it->n; i++)
        if (it->c[i].state == RS_READY && (it->c[i].last[0] || it->c[i].from_seq[0]))
            rc = acquire(it, &it->c[i], err);
    return iter_finish(it, rc, iops, out);
}

/* The shard holding sequence number seq; else the earliest root shard when
 * seq precedes it (the service then says whether records were trimmed). */
static ssize_t shard_at(const rs_iter *it, const char *seq)
{
    ssize_t first = -1;
    for (size_t i = 0; i < it->n; i++) {
        const rs_shard *s = &it->c[i].s;
        if (ddbi_rs_seq_cmp(s->start, seq) <= 0 && (!s->end[0] || ddbi_rs_seq_cmp(seq, s->end) <= 0))
            return (ssize_t)i;
        if (find_shard(it, s->parent) < 0 && (first < 0 || ddbi_rs_seq_cmp(s->start, it->c[first].s.start) < 0))
            first = (ssize_t)i;
    }
    return first >= 0 && ddbi_rs_seq_cmp(seq, it->c[first].s.start) < 0 ? first : -1;
}

/* Where each shard starts for an iterator opened at from / seq. */
static int place(rs_iter *it, ddb_stream_position from, uint64_t seq, ddb_error *err)
{
    if (from == DDB_STREAM_AFTER_SEQUENCE && seq == 0)
        from = DDB_STREAM_TRIM_HORIZON; /* from the first record */
    if (from == DDB_STREAM_TRIM_HORIZON) {
        settle(it);
        return DDB_OK;
    }
    if (from == DDB_STREAM_LATEST) {
        for (size_t i = 0; i < it->n; i++) {
            rs_cursor *c = &it->c[i];
            c->state = c->s.end[0] ? RS_DONE : RS_READY;
            c->from = DDB_STREAM_LATEST;
            int rc = c->state == RS_READY ? acquire(it, c, err) : DDB_OK; /* records after now */
            if (rc)
                return rc;
        }
        return DDB_OK;
    }
    char s[24];
    snprintf(s, sizeof s, "%llu", (unsigned long long)seq);
    ssize_t t = shard_at(it, s);
    if (t < 0)
        return ddbi_fail(err, DDB_EVALIDATION, "stream of table %s: no shard holds sequence number %s (beyond the "
                         "newest record)", it->table, s);
    /* the target's ancestors and shards that ended before seq are behind us */
    for (ssize_t p = find_shard(it, it->c[t].s.parent); p >= 0; p = find_shard(it, it->c[p].s.parent)) {
        if (it->c[p].state == RS_DONE)
            break; /* a loop in the lineage */
        it->c[p].state = RS_DONE;
    }
    for (size_t i = 0; i < it->n; i++)
        if (it->c[i].s.end[0] && ddbi_rs_seq_cmp(it->c[i].s.end, s) < 0)
            it->c[i].state = RS_DONE;
    rs_cursor *c = &it->c[t];
    c->state = RS_READY;
    c->from = from;
    snprintf(c->from_seq, sizeof c->from_seq, "%s", s);
    settle(it);
    it->pos = from == DDB_STREAM_AFTER_SEQUENCE ? seq : seq - 1;
    return acquire(it, c, err);
}

int ddbi_remote_stream_iter_open(void *impl, const char *table, ddb_stream_position from, uint64_t seq,
                                 const ddbi_stream_iter_ops **iops, void **out, ddb_error *err)
{
    if ((unsigned)from > DDB_STREAM_AFTER_SEQUENCE)
        return ddbi_fail(err, DDB_EINVAL, "ddb_stream_iter_open: unknown position %d", (int)from);
    if (from == DDB_STREAM_AT_SEQUENCE && seq == 0)
        return ddbi_fail(err, DDB_EINVAL, "ddb_stream_iter_open: AT_SEQUENCE needs a sequence number (1 or more)");
    rs_iter *it;
    int rc = iter_start(impl, table, &it, err);
    if (!rc)
        rc = place(it, from, seq, err);
    return iter_finish(it, rc, iops, out);
}

/* ---- DescribeStream --------------------------------------------------------------------------- */

int ddbi_remote_stream_describe(void *impl, const char *table, ddb_stream_desc *out, ddb_error *err)
{
    ddb_remote *r = impl;
    ddb_arena *a = ddb_arena_new();
    if (!a)
        return ddbi_fail_oom(err, __func__);
    ddb_table_desc *d;
    int rc = ddbi_remote_describe(r, table, a, &d, false, err);
    if (!rc)
        out->spec = d->def.stream;
    ddb_arena_free(a);
    rs_iter it = {.r = r, .table = (char *)(uintptr_t)table};
    ddb_error e2 = {0};
    if (!rc && find_stream(r, table, it.arn, &e2) == DDB_OK) {
        rc = list_shards(&it, err);
        /* the oldest shard's first record: what is retained starts there */
        const char *first = NULL;
        for (size_t i = 0; !rc && i < it.n; i++)
            if (!first || ddbi_rs_seq_cmp(it.c[i].s.start, first) < 0)
                first = it.c[i].s.start;
        out->first_seq = first ? ddbi_rs_seq_u64(first) : 0;
        free(it.c);
        free(it.keys);
    }
    return rc;
}
