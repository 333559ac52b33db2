/* engine/: every change engine/ and streams/ make to LMDB, through one
 * door: when the handle writes a commit log, each change is recorded (by
 * the name of its sub-database) in the open write transaction's record
 * before LMDB makes it, and taken back when LMDB refuses it.  Without a
 * commit log these are LMDB's calls.  May call LMDB and core/. */
#include "engine/clog.h"
#include "engine/engine.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int put_u32(ddb_buf *b, uint32_t v)
{
    uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    return ddbi_buf_put(b, x, 4);
}

static int put_bytes(ddb_buf *b, const void *p, size_t n)
{
    if (n > UINT32_MAX)
        return EINVAL;
    int rc = put_u32(b, (uint32_t)n);
    return rc || !n ? rc : ddbi_buf_put(b, p, n);
}

/* op, then the sub-database's name; ENOMEM, EINVAL (a handle of unknown
 * name), or 0 */
static int put_op(ddbi_clog *l, uint8_t op, MDB_dbi dbi)
{
    if (dbi >= DDBI_CLOG_MAXDBS || !l->names[dbi])
        return EINVAL;
    int rc = ddbi_buf_put(&l->rec, &op, 1);
    return rc ? ENOMEM : put_bytes(&l->rec, l->names[dbi], strlen(l->names[dbi])) ? ENOMEM : 0;
}

/* The log records the changes of a logging handle (changes happen only in
 * write transactions, one at a time per environment; each top-level one
 * starts its record empty, ddbi_clog_begin). */
static ddbi_clog *logging(ddbi_engine *db, MDB_txn *txn)
{
    (void)txn;
    return db->clog;
}

int ddbi_kv_dbi_open(ddbi_engine *db, MDB_txn *txn, const char *name, unsigned flags, MDB_dbi *dbi)
{
    ddbi_clog *l = logging(db, txn);
    size_t mark = l ? l->rec.len : 0;
    if (l && (flags & MDB_CREATE)) {
        /* recorded whether or not the database exists: replaying a
         * creation of an existing one opens it */
        uint8_t op = DDBI_CLOG_CREATE;
        if (ddbi_buf_put(&l->rec, &op, 1) || put_bytes(&l->rec, name ? name : "", name ? strlen(name) : 0) ||
            put_u32(&l->rec, flags))
            return ENOMEM;
    }
    int rc = mdb_dbi_open(txn, name, flags, dbi);
    if (rc) {
        if (l)
            l->rec.len = mark;
        return rc;
    }
    if (db->clog && *dbi < DDBI_CLOG_MAXDBS) {
        ddbi_clog *c = db->clog;
        const char *n = name ? name : "";
        if (!c->names[*dbi] || strcmp(c->names[*dbi], n) != 0) {
            char *copy = strdup(n);
            if (!copy)
                return ENOMEM;
            free(c->names[*dbi]);
            c->names[*dbi] = copy;
        }
        c->flags[*dbi] = flags & ~(unsigned)MDB_CREATE;
    }
    return 0;
}

int ddbi_kv_put(ddbi_engine *db, MDB_txn *txn, MDB_dbi dbi, MDB_val *key, MDB_val *val, unsigned flags)
{
    ddbi_clog *l = logging(db, txn);
    if (!l)
        return mdb_put(txn, dbi, key, val, flags);
    size_t mark = l->rec.len;
    int rc = put_op(l, DDBI_CLOG_PUT, dbi);
    if (!rc && (put_u32(&l->rec, flags) || put_bytes(&l->rec, key->mv_data, key->mv_size) ||
                put_bytes(&l->rec, val->mv_data, val->mv_size)))
        rc = ENOMEM;
    if (!rc)
        rc = mdb_put(txn, dbi, key, val, flags);
    if (rc)
        l->rec.len = mark;
    return rc;
}

/* a delete of key (and val, NULL for all its values) recorded */
static int record_del(ddbi_clog *l, MDB_dbi dbi, const MDB_val *key, const MDB_val *val)
{
    int rc = put_op(l, DDBI_CLOG_DEL, dbi);
    uint8_t has = val != NULL;
    if (!rc && (ddbi_buf_put(&l->rec, &has, 1) || put_bytes(&l->rec, key->mv_data, key->mv_size) ||
                (val && put_bytes(&l->rec, val->mv_data, val->mv_size))))
        rc = ENOMEM;
    return rc;
}

int ddbi_kv_del(ddbi_engine *db, MDB_txn *txn, MDB_dbi dbi, MDB_val *key, MDB_val *val)
{
    ddbi_clog *l = logging(db, txn);
    if (!l)
        return mdb_del(txn, dbi, key, val);
    size_t mark = l->rec.len;
    int rc = record_del(l, dbi, key, val);
    if (!rc)
        rc = mdb_del(txn, dbi, key, val);
    if (rc)
        l->rec.len = mark;
    return rc;
}

int ddbi_kv_cursor_del(ddbi_engine *db, MDB_cursor *c)
{
    MDB_txn *txn = mdb_cursor_txn(c);
    ddbi_clog *l = logging(db, txn);
    if (!l)
        return mdb_cursor_del(c, 0);
    MDB_dbi dbi = mdb_cursor_dbi(c);
    unsigned dflags = 0;
    MDB_val k, v;
    int rc = mdb_dbi_flags(txn, dbi, &dflags);
    if (!rc)
        rc = mdb_cursor_get(c, &k, &v, MDB_GET_CURRENT);
    if (rc)
        return rc;
    size_t mark = l->rec.len;
    /* in a MDB_DUPSORT database the cursor's entry is one value of its key */
    rc = record_del(l, dbi, &k, (dflags & MDB_DUPSORT) ? &v : NULL);
    if (!rc)
        rc = mdb_cursor_del(c, 0);
    if (rc)
        l->rec.len = mark;
    return rc;
}

int ddbi_kv_drop(ddbi_engine *db, MDB_txn *txn, MDB_dbi dbi, int del)
{
    ddbi_clog *l = logging(db, txn);
    if (!l)
        return mdb_drop(txn, dbi, del);
    size_t mark = l->rec.len;
    uint8_t d = del != 0;
    int rc = put_op(l, DDBI_CLOG_DROP, dbi);
    if (!rc && ddbi_buf_put(&l->rec, &d, 1))
        rc = ENOMEM;
    if (!rc)
        rc = mdb_drop(txn, dbi, del);
    if (rc)
        l->rec.len = mark;
    return rc;
}
