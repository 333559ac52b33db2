/* engine/: the commit log's records: the header a record is written with,
 * reading one back (bounded by the file and DDBI_CLOG_RECORD_MAX, checked
 * by magic and CRC), and applying its changes to LMDB in recovery.  The
 * changes are encoded by clog_kv.c: op byte, the sub-database's name
 * (u32 length, bytes), then per op: PUT flags, key, value; DEL has-value
 * byte, key[, value]; DROP del byte; CREATE flags (u32 little-endian,
 * lengths u32).  May call LMDB, zlib and the C library. */
#include "engine/clog.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define RECORD_MAGIC 0x31474f4cu /* "LOG1" */

static void le32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void le64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const uint8_t *p)
{
    return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

static uint32_t record_crc(uint64_t txnid, const uint8_t *changes, size_t len)
{
    uint8_t t[8];
    le64(t, txnid);
    uLong crc = crc32(0L, t, sizeof t);
    while (len) {
        uInt chunk = len > (1u << 30) ? 1u << 30 : (uInt)len;
        crc = crc32(crc, changes, chunk);
        changes += chunk, len -= chunk;
    }
    return (uint32_t)crc;
}

void ddbi_clog_header(uint8_t out[DDBI_CLOG_HEADER], uint64_t txnid, const uint8_t *changes, size_t len)
{
    le32(out, RECORD_MAGIC);
    le32(out + 4, (uint32_t)len);
    le64(out + 8, txnid);
    le32(out + 16, record_crc(txnid, changes, len));
    le32(out + 20, ~(uint32_t)len); /* the length again: a damaged length is not followed */
}

int ddbi_clog_pread(int fd, void *buf, size_t n, uint64_t off)
{
    uint8_t *p = buf;
    while (n) {
        ssize_t r = pread(fd, p, n, (off_t)off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return r < 0 ? errno : EIO;
        p += r, n -= (size_t)r, off += (uint64_t)r;
    }
    return 0;
}

int ddbi_clog_read(int fd, uint64_t off, uint64_t file_size, ddb_buf *buf, uint64_t *txnid, uint64_t *next_off)
{
    uint8_t h[DDBI_CLOG_HEADER];
    if (off > file_size || file_size - off < DDBI_CLOG_HEADER || ddbi_clog_pread(fd, h, sizeof h, off))
        return DDB_ENOTFOUND;
    uint32_t len = rd32(h + 4);
    if (rd32(h) != RECORD_MAGIC || rd32(h + 20) != ~len || len > DDBI_CLOG_RECORD_MAX ||
        file_size - off - DDBI_CLOG_HEADER < len)
        return DDB_ENOTFOUND;
    if (buf->cap < len) {
        uint8_t *p = realloc(buf->p, len);
        if (!p)
            return DDB_ENOMEM;
        buf->p = p;
        buf->cap = len;
    }
    buf->len = len;
    if (len && ddbi_clog_pread(fd, buf->p, len, off + DDBI_CLOG_HEADER))
        return DDB_ENOTFOUND;
    *txnid = rd64(h + 8);
    if (record_crc(*txnid, buf->p, len) != rd32(h + 16))
        return DDB_ENOTFOUND;
    *next_off = off + DDBI_CLOG_HEADER + len;
    return DDB_OK;
}

/* A cursor over a record's changes: every read checks what is left. */
typedef struct reader {
    const uint8_t *p;
    size_t left;
    bool bad;
} reader;

static uint32_t get_u32(reader *r)
{
    if (r->bad || r->left < 4) {
        r->bad = true;
        return 0;
    }
    uint32_t v = rd32(r->p);
    r->p += 4, r->left -= 4;
    return v;
}

static uint8_t get_u8(reader *r)
{
    if (r->bad || r->left < 1) {
        r->bad = true;
        return 0;
    }
    r->left--;
    return *r->p++;
}

static MDB_val get_bytes(reader *r)
{
    uint32_t n = get_u32(r);
    MDB_val v = {0, NULL};
    if (r->bad || r->left < n) {
        r->bad = true;
        return v;
    }
    v.mv_size = n;
    v.mv_data = (void *)r->p;
    r->p += n, r->left -= n;
    return v;
}

/* The sub-database a change names, opened in txn (created when asked). */
static int open_named(MDB_txn *txn, MDB_val name, unsigned flags, MDB_dbi *dbi)
{
    char n[512];
    if (name.mv_size >= sizeof n)
        return MDB_CORRUPTED;
    memcpy(n, name.mv_data, name.mv_size);
    n[name.mv_size] = '\0';
    return mdb_dbi_open(txn, name.mv_size ? n : NULL, flags, dbi);
}

/* The flags a sub-database was created with, for reopening it by name. */
static unsigned stored_flags(MDB_txn *txn, MDB_val name)
{
    MDB_dbi dbi;
    unsigned f = 0;
    if (open_named(txn, name, 0, &dbi) == 0)
        mdb_dbi_flags(txn, dbi, &f);
    return f;
}

static int apply_one(MDB_txn *txn, reader *r)
{
    uint8_t op = get_u8(r);
    MDB_val name = get_bytes(r);
    if (r->bad)
        return MDB_CORRUPTED;
    MDB_dbi dbi;
    if (op == DDBI_CLOG_CREATE) {
        unsigned flags = get_u32(r);
        return r->bad ? MDB_CORRUPTED : open_named(txn, name, flags | MDB_CREATE, &dbi);
    }
    int rc = open_named(txn, name, stored_flags(txn, name), &dbi);
    if (rc)
        return rc;
    if (op == DDBI_CLOG_PUT) {
        unsigned flags = get_u32(r);
        MDB_val k = get_bytes(r), v = get_bytes(r);
        return r->bad ? MDB_CORRUPTED : mdb_put(txn, dbi, &k, &v, flags);
    }
    if (op == DDBI_CLOG_DEL) {
        uint8_t has = get_u8(r);
        MDB_val k = get_bytes(r), v = {0, NULL};
        if (has)
            v = get_bytes(r);
        return r->bad ? MDB_CORRUPTED : mdb_del(txn, dbi, &k, has ? &v : NULL);
    }
    if (op == DDBI_CLOG_DROP) {
        uint8_t del = get_u8(r);
        return r->bad ? MDB_CORRUPTED : mdb_drop(txn, dbi, del);
    }
    return MDB_CORRUPTED;
}

int ddbi_clog_apply(MDB_txn *txn, const uint8_t *p, size_t len)
{
    reader r = {p, len, false};
    while (r.left) {
        int rc = apply_one(txn, &r);
        if (rc)
            return rc;
    }
    return 0;
}
