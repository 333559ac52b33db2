/* engine/: the commit log (ddb_options.commit_log): a durable commit in
 * one sync.  Every change a write transaction makes to LMDB goes through
 * ddbi_kv_* (recorded by name of sub-database when the handle logs), the
 * commit appends the transaction's record to commit.log before LMDB
 * commits without syncing, and FULL syncs the log once per batch.
 * Checkpoints sync the data file, keep its meta pages aside in
 * commit.ckpt and pin their snapshot with a read transaction; recovery
 * writes those meta pages back and replays the log.  docs/ARCHITECTURE.md
 * ("The commit log") gives the design.  Private to engine/ (and streams/,
 * which changes LMDB through ddbi_kv_*). */
#ifndef DDB_ENGINE_CLOG_H
#define DDB_ENGINE_CLOG_H

#include <lmdb.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ddb/ddb.h>

#include "core/codec.h"

typedef struct ddbi_engine ddbi_engine;

/* The log's files in the database directory. */
#define DDBI_CLOG_FILE "commit.log"
#define DDBI_CLOG_CKPT "commit.ckpt"
#define DDBI_CLOG_LOCK "commit.lock"
/* A record's changes, at most (a transaction of 100 items of 400 KB and
 * their index entries fits); a longer length read back is damage. */
#define DDBI_CLOG_RECORD_MAX ((uint64_t)64 << 20)
/* Checkpoint after so many logged commits or bytes of log. */
#define DDBI_CLOG_CKPT_COMMITS 512u
#define DDBI_CLOG_CKPT_BYTES ((uint64_t)4 << 20)
/* The sub-databases LMDB may have open (mdb_env_set_maxdbs). */
#define DDBI_CLOG_MAXDBS 1024

/* Change kinds in a record. */
enum { DDBI_CLOG_PUT = 1, DDBI_CLOG_DEL = 2, DDBI_CLOG_DROP = 3, DDBI_CLOG_CREATE = 4 };

typedef struct ddbi_clog {
    int log_fd, ckpt_fd, lock_fd, dir_fd;
    char dir[4096];                 /* the database directory */
    uint64_t tail;                  /* where the next record goes */
    uint64_t last_txnid;            /* of the last record appended (or the checkpoint) */
    uint64_t prev_tail, prev_txnid; /* before the last append (ddbi_clog_unappend) */
    uint8_t *restore;               /* recovery: the checkpoint's meta pages */
    uint64_t restore_txnid;
    bool recovering_nosync;        /* recovery set MDB_NOSYNC, which the mode does not
                                      use */
    uint32_t since_ckpt;           /* records since the last checkpoint */
    int next_slot;                 /* commit.ckpt slot the next checkpoint writes */
    size_t psize;                  /* LMDB's page size */
    MDB_txn *pin;                  /* the reader pinning the last checkpoint's snapshot */
    ddb_buf rec;                   /* the open write transaction's changes */
    char *names[DDBI_CLOG_MAXDBS]; /* sub-database name by handle ("" = the main
                                      database) */
    unsigned flags[DDBI_CLOG_MAXDBS];
} ddbi_clog;

/* ---- changes to LMDB (every write of engine/ and streams/ goes here) ---- */
/* mdb_dbi_open, remembering the name of the handle (and recording the
 * creation of a named database when the write transaction logs).  LMDB codes.
 */
int ddbi_kv_dbi_open(ddbi_engine *db, MDB_txn *txn, const char *name, unsigned flags, MDB_dbi *dbi);
int ddbi_kv_put(ddbi_engine *db, MDB_txn *txn, MDB_dbi dbi, MDB_val *key, MDB_val *val, unsigned flags);
/* val NULL: the key (all its values in a MDB_DUPSORT database) */
int ddbi_kv_del(ddbi_engine *db, MDB_txn *txn, MDB_dbi dbi, MDB_val *key, MDB_val *val);
/* mdb_cursor_del(c, 0) of the cursor's current entry */
int ddbi_kv_cursor_del(ddbi_engine *db, MDB_cursor *c);
int ddbi_kv_drop(ddbi_engine *db, MDB_txn *txn, MDB_dbi dbi, int del);

/* ---- the commit path (db.c) ---- */
/* A top-level write transaction began (its changes start empty); a
 * checkpoint runs first when one is due.  DDB_OK or a storage failure (an
 * errno, the handle is to be poisoned). */
int ddbi_clog_begin(ddbi_engine *db, MDB_txn *txn);
/* A nested transaction's changes start at the mark; rolled back to it when
 * it aborts. */
size_t ddbi_clog_mark(const ddbi_engine *db);
void ddbi_clog_rollback(ddbi_engine *db, size_t mark);
/* Append the transaction's record (nothing when it changed nothing):
 * before mdb_txn_commit.  *appended: a record went to the file.  0 or an
 * errno. */
int ddbi_clog_append(ddbi_engine *db, MDB_txn *txn, bool *appended);
/* The commit that followed ddbi_clog_append failed without a storage
 * failure (nothing applied): its record is taken back. */
void ddbi_clog_unappend(ddbi_engine *db);
/* fdatasync of the log: every appended record is durable.  0 or an errno. */
int ddbi_clog_sync(ddbi_engine *db);

/* ---- open and close (open.c) ---- */
/* Before LMDB opens path: take the directory's commit lock, and where a
 * previous writer's commit log is left, write its checkpoint's meta pages
 * back (a writable open; the log is replayed by ddbi_clog_opened).  A
 * read-only open is refused when a log is left and no writer is alive. */
int ddbi_clog_prepare(ddbi_engine *db, const char *path, ddb_error *err);
/* Right after LMDB opened: replay a log left behind (its checkpoint's
 * snapshot pinned meanwhile). */
int ddbi_clog_recover(ddbi_engine *db, ddb_error *err);
/* After the open's own transaction committed: with commit_log a
 * checkpoint (the log begins); without it, where a log was replayed, a
 * sync and the log's files removed. */
int ddbi_clog_opened(ddbi_engine *db, ddb_error *err);
/* A clean close: the log synced, the data file synced, the log's files
 * removed (a poisoned handle leaves them to recovery).  Frees the state. */
void ddbi_clog_close(ddbi_engine *db);

/* ---- records (clog_record.c) ---- */
/* The record header: magic, length of the changes, txnid, CRC-32 (zlib) of
 * txnid and changes. */
#define DDBI_CLOG_HEADER 24
void ddbi_clog_header(uint8_t out[DDBI_CLOG_HEADER], uint64_t txnid, const uint8_t *changes, size_t len);
/* Read the record at off of fd: DDB_OK with its changes in *buf (a
 * malloc'd buffer, reused) and its txnid, or DDB_ENOTFOUND when there is
 * no whole valid record there (the end of the log, a torn or damaged
 * record). */
int ddbi_clog_read(int fd, uint64_t off, uint64_t file_size, ddb_buf *buf, uint64_t *txnid, uint64_t *next_off);
/* pread of exactly n bytes: 0, or an errno (EIO at the end of the file). */
int ddbi_clog_pread(int fd, void *buf, size_t n, uint64_t off);
/* Apply a record's changes in txn.  LMDB codes; MDB_CORRUPTED when the
 * changes do not parse. */
int ddbi_clog_apply(MDB_txn *txn, const uint8_t *p, size_t len);

#endif
