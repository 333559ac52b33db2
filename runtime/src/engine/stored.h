/* Bounds on what is read back from the database file (internal).  A file
 * may be damaged or come from elsewhere: every stored key, index entry and
 * record is checked against what the engine writes before it is used, and a
 * mismatch is DDB_ECORRUPT naming the table and the key. */
#ifndef DDB_STORED_H
#define DDB_STORED_H

#include "engine/engine.h"

/* A key as text: printable bytes quoted, anything else as hex (cut after
 * 24 bytes, with the length noted).  Returns buf. */
const char *ddbi_key_text(char *buf, size_t cap, const void *key, size_t len);
/* DDB_ECORRUPT "table T: <fmt> (key K)"; key may be NULL. */
int ddbi_fail_stored(ddb_error *err, const char *table, const void *key, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* A stored table key (or an index key, or an index entry's table key) has
 * DDB_DIGEST_LEN..DDB_KEY_MAX bytes; what names it in the error. */
int ddbi_stored_key_fail(const char *table, const char *what, const MDB_val *k, ddb_error *err);
static inline int ddbi_stored_key_check(const char *table, const char *what, const MDB_val *k, ddb_error *err)
{
    /* inline: Query and Scan check every entry */
    if (k->mv_size >= DDB_DIGEST_LEN && k->mv_size <= DDB_KEY_MAX)
        return DDB_OK;
    return ddbi_stored_key_fail(table, what, k, err);
}
/* LMDB's default order of keys (and of MDB_DUPSORT data): bytes, then
 * length.  Inline: every entry of a Query or Scan is compared. */
static inline int ddbi_stored_cmp(const MDB_val *a, const MDB_val *b)
{
    size_t n = a->mv_size < b->mv_size ? a->mv_size : b->mv_size;
    int c = ddbi_key_bytes_cmp(a->mv_data, b->mv_data, n);
    return c ? c : (a->mv_size < b->mv_size ? -1 : a->mv_size > b->mv_size);
}

/* A key of the table list in the meta database: "t/" and a table name of
 * 1..255 bytes without NUL.  Others are skipped by the table cache and
 * ListTables and reported by ddb_check_catalog. */
static inline bool ddbi_stored_table_key_ok(const MDB_val *k)
{
    return k->mv_size > 2 && k->mv_size <= 257 && !memchr(k->mv_data, 0, k->mv_size);
}

/* Where the environment's file is mapped (db->map, map_size, map_end),
 * found once after mdb_env_open in /proc/self/maps (Linux); not found
 * (another system), values read from the map are not bounded by it. */
void ddbi_file_map_locate(ddbi_engine *db);
/* A value (a record, key or index entry) LMDB returned: DDB_OK when it
 * lies in memory of its own (a page written in this transaction) or ends
 * within the file; DDB_ECORRUPT "table T: <what> of N
 * bytes runs past the end of the database file" (key k, may be NULL)
 * otherwise: a damaged length would read past the end of the file
 * (SIGBUS).  Inline: every entry of a Query or Scan is checked. */
int ddbi_stored_past_end(ddbi_engine *db, const char *table, const char *what, const MDB_val *k, const MDB_val *v,
                         ddb_error *err);
static inline int ddbi_stored_val_check(ddbi_engine *db, const char *table, const char *what, const MDB_val *k,
                                        const MDB_val *v, ddb_error *err)
{
    uintptr_t p = (uintptr_t)v->mv_data, m = (uintptr_t)db->map;
    if (p < m || p - m >= db->map_size)
        return DDB_OK; /* not in the map (or no map known) */
    uintptr_t end = atomic_load_explicit(&db->map_end, memory_order_relaxed);
    if (p <= end && v->mv_size <= end - p)
        return DDB_OK;
    return ddbi_stored_past_end(db, table, what, k, v, err); /* rereads the end first */
}

/* Before mdb_env_open: refuse a data.mdb shorter than its meta page says
 * (last page number * page size: reads past the end would fault with
 * SIGBUS) and an existing empty one (LMDB would start a new database over
 * it).  DDB_OK when there is no database yet. */
int ddbi_file_check_length(const char *path, ddb_error *err);

#endif
