/* engine/: ddb_check_catalog: the named LMDB databases of the file against the
 * stored table definitions.  A table's items live in "i/<table>", each
 * index in "x/<table>/<index>", next to "meta" (definitions, partition
 * maps and statistics) and "streams"; a database holding entries that no
 * definition calls for means a definition was lost or damaged.  (DeleteTable
 * empties its databases but keeps them; a definition whose databases are
 * missing makes its table damaged.)  Keys of the table list that name no
 * table are reported too.
 * May call the rest of engine/ and core/. */
#include "engine/engine.h"
#include "engine/stored.h"
#include "core/error.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Record one problem; the first is kept in the report. */
static void problem(ddb_check_report *r, const char *kind, const MDB_val *name, const char *what)
{
    if (r->problems++)
        return;
    char k[128];
    snprintf(r->first_problem, sizeof r->first_problem, "%s %s %s", kind,
             ddbi_key_text(k, sizeof k, name->mv_data, name->mv_size), what);
}

/* Does the table definition "t/<table>" (table: len bytes) exist in txn,
 * and, when index is given, does it define that index? */
static bool defined(ddbi_engine *db, MDB_txn *txn, const char *table, size_t len, const char *index)
{
    char key[300];
    if (len > 255)
        return false;
    int n = snprintf(key, sizeof key, "t/%.*s", (int)len, table);
    MDB_val k = {(size_t)n, key}, v;
    if (mdb_get(txn, db->meta, &k, &v) != 0)
        return false;
    if (!index)
        return true;
    ddb_table_rt *t;
    ddb_error e;
    int rc = ddbi_table_get(db, txn, key + 2, &t, &e);
    /* a table whose definition is damaged is reported by its own check */
    return rc == DDB_ECORRUPT || (rc == DDB_OK && ddbi_table_index(t, index) != NULL);
}

/* Entries of a named database, from its record in LMDB's main database
 * (LMDB's on-disk MDB_db: 48 bytes, the entry count a size_t at byte 32);
 * a record of another size counts as holding entries. */
static uint64_t db_entries(const MDB_val *v)
{
    if (v->mv_size != 48 || sizeof(size_t) != 8)
        return UINT64_MAX;
    size_t e;
    memcpy(&e, (const char *)v->mv_data + 32, sizeof e);
    return e;
}

static void check_name(ddbi_engine *db, MDB_txn *txn, const MDB_val *k, const MDB_val *v, ddb_check_report *r)
{
    const char *s = k->mv_data;
    size_t n = k->mv_size;
    char ix[300];
    if ((n == 4 && memcmp(s, "meta", 4) == 0) || (n == 7 && memcmp(s, "streams", 7) == 0) || db_entries(v) == 0)
        return;
    if (memchr(s, 0, n)) {
        problem(r, "database", k, "is not one of ddb's");
    } else if (n > 2 && memcmp(s, "i/", 2) == 0) {
        if (!defined(db, txn, s + 2, n - 2, NULL))
            problem(r, "database", k, "holds items of a table that has no definition");
    } else if (n > 2 && memcmp(s, "x/", 2) == 0) {
        const char *slash = memchr(s + 2, '/', n - 2);
        size_t tl = slash ? (size_t)(slash - (s + 2)) : 0, il = slash ? n - 3 - tl : 0;
        if (!slash || il == 0 || il >= sizeof ix)
            problem(r, "database", k, "is not one of ddb's");
        else {
            memcpy(ix, slash + 1, il);
            ix[il] = '\0';
            if (!defined(db, txn, s + 2, tl, ix))
                problem(r, "database", k, "holds an index that no table definition has");
        }
    } else {
        problem(r, "database", k, "is not one of ddb's");
    }
}

int ddbi_engine_check_catalog(void *impl, ddb_check_report *report, ddb_error *err)
{
    ddbi_engine *db = impl;
    ddb_check_report local;
    ddb_check_report *r = report ? report : &local;
    memset(r, 0, sizeof *r);
    MDB_txn *txn;
    int rc = ddbi_read_begin(db, &txn, err);
    if (rc)
        return rc;
    MDB_dbi main;
    MDB_cursor *c = NULL;
    MDB_val k, v;
    int g = ddbi_kv_dbi_open(db, txn, NULL, 0, &main);
    if (!g)
        g = mdb_cursor_open(txn, main, &c);
    if (!g)
        g = mdb_cursor_get(c, &k, &v, MDB_FIRST);
    while (g == 0) {
        r->items++;
        check_name(db, txn, &k, &v, r);
        g = mdb_cursor_get(c, &k, &v, MDB_NEXT);
    }
    if (c)
        mdb_cursor_close(c);
    c = NULL;
    /* the table list: keys that name no table */
    if (g == MDB_NOTFOUND && !(g = mdb_cursor_open(txn, db->meta, &c))) {
        k = (MDB_val){2, "t/"};
        g = mdb_cursor_get(c, &k, &v, MDB_SET_RANGE);
        while (g == 0 && k.mv_size >= 2 && memcmp(k.mv_data, "t/", 2) == 0) {
            if (!ddbi_stored_table_key_ok(&k))
                problem(r, "meta key", &k, "is in the table list but names no table");
            g = mdb_cursor_get(c, &k, &v, MDB_NEXT);
        }
        mdb_cursor_close(c);
    }
    ddbi_read_end(txn);
    if (g != MDB_NOTFOUND && g != 0)
        return ddbi_mdb_fail(err, g, "ddb_check_catalog");
    if (r->problems)
        return ddbi_fail(err, DDB_ECORRUPT, "catalog: %" PRIu64 " problem(s); the first: %s", r->problems,
                         r->first_problem);
    return DDB_OK;
}
