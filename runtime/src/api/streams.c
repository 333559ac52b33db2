/* api/: change streams and TTL of <ddb/ddb.h>: argument checks, then the
 * backend's operation; ddb_stream_iter carries its backend's iterator
 * operations, so any backend's iterator plugs in.  Calls only the backend
 * (backend.h) and core/. */
#include "api/api.h"
#include "core/error.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ddb_update_table_stream(ddb *db, const char *table, const ddb_stream_spec *spec, ddb_error *err)
{
    if (db && !db->ops->update_table_stream)
        return ddbi_api_notsup(db, "ddb_update_table_stream", err);
    if (!db || !table || !spec)
        return ddbi_fail(err, DDB_EINVAL, "ddb_update_table_stream: db, table and spec are required");
    return db->ops->update_table_stream(db->impl, table, spec, err);
}

int ddb_update_time_to_live(ddb *db, const char *table, const char *attr, ddb_error *err)
{
    if (db && !db->ops->update_time_to_live)
        return ddbi_api_notsup(db, "ddb_update_time_to_live", err);
    if (!db || !table)
        return ddbi_fail(err, DDB_EINVAL, "ddb_update_time_to_live: db and table are required");
    return db->ops->update_time_to_live(db->impl, table, attr, err);
}

int ddb_ttl_sweep(ddb *db, const char *table, int64_t now_s, uint64_t *deleted, ddb_error *err)
{
    if (deleted)
        *deleted = 0;
    if (db && !db->ops->ttl_sweep)
        return ddbi_api_notsup(db, "ddb_ttl_sweep", err);
    if (!db)
        return ddbi_fail(err, DDB_EINVAL, "ddb_ttl_sweep: no database");
    return db->ops->ttl_sweep(db->impl, table, now_s, deleted, err);
}

int ddb_stream_trim(ddb *db, const char *table, uint64_t *trimmed, ddb_error *err)
{
    if (trimmed)
        *trimmed = 0;
    if (db && !db->ops->stream_trim)
        return ddbi_api_notsup(db, "ddb_stream_trim", err);
    if (!db || !table)
        return ddbi_fail(err, DDB_EINVAL, "ddb_stream_trim: db and table are required");
    return db->ops->stream_trim(db->impl, table, trimmed, err);
}

int ddb_stream_describe(ddb *db, const char *table, ddb_stream_desc *out, ddb_error *err)
{
    if (out)
        memset(out, 0, sizeof *out);
    if (db && !db->ops->stream_describe)
        return ddbi_api_notsup(db, "ddb_stream_describe", err);
    if (!db || !table || !out)
        return ddbi_fail(err, DDB_EINVAL, "ddb_stream_describe: db, table and out are required");
    return db->ops->stream_describe(db->impl, table, out, err);
}

int ddb_stream_check(ddb *db, const char *table, ddb_check_report *report, ddb_error *err)
{
    if (report)
        memset(report, 0, sizeof *report);
    if (db && !db->ops->stream_check)
        return ddbi_api_notsup(db, "ddb_stream_check", err);
    if (!db || !table)
        return ddbi_fail(err, DDB_EINVAL, "ddb_stream_check: db and table are required");
    return db->ops->stream_check(db->impl, table, report, err);
}

/* A public iterator around the backend's, opened by open (the backend's
 * stream_iter_open or stream_iter_resume through the arguments). */
static int wrap_iter(ddb *db, const char *table, ddb_stream_position from, uint64_t seq, const char *checkpoint,
                     ddb_stream_iter **out, ddb_error *err)
{
    ddb_stream_iter *it = calloc(1, sizeof *it);
    if (!it)
        return ddbi_fail_oom(err, __func__);
    int rc = checkpoint ? db->ops->stream_iter_resume(db->impl, table, checkpoint, &it->ops, &it->impl, err)
                        : db->ops->stream_iter_open(db->impl, table, from, seq, &it->ops, &it->impl, err);
    if (rc) {
        free(it);
        return rc;
    }
    *out = it;
    return DDB_OK;
}

int ddb_stream_iter_open(ddb *db, const char *table, ddb_stream_position from, uint64_t seq,
                         ddb_stream_iter **out, ddb_error *err)
{
    if (out)
        *out = NULL;
    if (db && !db->ops->stream_iter_open)
        return ddbi_api_notsup(db, "ddb_stream_iter_open", err);
    if (!db || !table || !out)
        return ddbi_fail(err, DDB_EINVAL, "ddb_stream_iter_open: db, table and out are required");
    return wrap_iter(db, table, from, seq, NULL, out, err);
}

/* checkpoint as a decimal sequence number (1 to 20 digits, fits in 64 bits). */
static bool decimal_seq(const char *checkpoint, uint64_t *seq)
{
    size_t n = strspn(checkpoint, "0123456789");
    if (!n || n > 20 || checkpoint[n])
        return false;
    errno = 0;
    unsigned long long v = strtoull(checkpoint, NULL, 10);
    *seq = v;
    return errno == 0;
}

int ddb_stream_iter_resume(ddb *db, const char *table, const char *checkpoint, ddb_stream_iter **out,
                           ddb_error *err)
{
    if (out)
        *out = NULL;
    if (db && !db->ops->stream_iter_open)
        return ddbi_api_notsup(db, "ddb_stream_iter_resume", err);
    if (!db || !table || !checkpoint || !out)
        return ddbi_fail(err, DDB_EINVAL, "ddb_stream_iter_resume: db, table, checkpoint and out are required");
    uint64_t seq;
    if (decimal_seq(checkpoint, &seq))
        return wrap_iter(db, table, DDB_STREAM_AFTER_SEQUENCE, seq, NULL, out, err);
    if (!db->ops->stream_iter_resume)
        return ddbi_fail(err, DDB_EINVAL, "ddb_stream_iter_resume: \"%.60s\" is not a checkpoint of the %s backend "
                         "(a sequence number)", checkpoint, db->ops->name);
    return wrap_iter(db, table, 0, 0, checkpoint, out, err);
}

int ddb_stream_iter_checkpoint(const ddb_stream_iter *it, char *buf, size_t cap, ddb_error *err)
{
    if (!it || !buf || !cap)
        return ddbi_fail(err, DDB_EINVAL, "ddb_stream_iter_checkpoint: iterator and a buffer are required");
    if (it->ops->checkpoint)
        return it->ops->checkpoint(it->impl, buf, cap, err);
    int n = snprintf(buf, cap, "%" PRIu64, it->ops->position(it->impl));
    if ((size_t)n >= cap) {
        buf[0] = '\0';
        return ddbi_fail(err, DDB_ELIMIT, "ddb_stream_iter_checkpoint: the checkpoint needs %d bytes, the buffer "
                         "has %zu", n + 1, cap);
    }
    return DDB_OK;
}

int ddb_stream_read(ddb_stream_iter *it, size_t max, ddb_arena *a, ddb_stream_record *recs, size_t *n,
                    ddb_error *err)
{
    if (!it || !a || !n || (max && !recs))
        return ddbi_fail(err, DDB_EINVAL, "ddb_stream_read: iterator, arena, records and n are required");
    *n = 0;
    return it->ops->read(it->impl, max, a, recs, n, err);
}

uint64_t ddb_stream_iter_position(const ddb_stream_iter *it)
{
    return it ? it->ops->position(it->impl) : 0;
}

void ddb_stream_iter_close(ddb_stream_iter *it)
{
    if (!it)
        return;
    it->ops->close(it->impl);
    free(it);
}
