/* Damage a database behind libddb's back, for `ddb check` tests (LMDB
 * directly; the database must not be open):
 *   cli_fixture drop-index-entry DIR TABLE INDEX   delete the index's first entry
 *   cli_fixture drop-stream-record DIR TABLE SEQ   delete one stream record */
#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int die(const char *what, int rc)
{
    fprintf(stderr, "cli_fixture: %s: %s\n", what, mdb_strerror(rc));
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 5 || (strcmp(argv[1], "drop-index-entry") != 0 && strcmp(argv[1], "drop-stream-record") != 0)) {
        fprintf(stderr, "usage: cli_fixture drop-index-entry DIR TABLE INDEX | drop-stream-record DIR TABLE SEQ\n");
        return 2;
    }
    MDB_env *env;
    MDB_txn *txn;
    MDB_dbi dbi;
    int rc;
    if ((rc = mdb_env_create(&env)) || (rc = mdb_env_set_maxdbs(env, 1024)) ||
        (rc = mdb_env_set_mapsize(env, (size_t)64 << 30)) || (rc = mdb_env_open(env, argv[2], 0, 0644)))
        return die("open", rc);
    if ((rc = mdb_txn_begin(env, NULL, 0, &txn)))
        return die("begin", rc);
    char name[600];
    if (strcmp(argv[1], "drop-index-entry") == 0) {
        snprintf(name, sizeof name, "x/%s/%s", argv[3], argv[4]);
        MDB_cursor *c;
        MDB_val k, v;
        if ((rc = mdb_dbi_open(txn, name, MDB_DUPSORT, &dbi)) || (rc = mdb_cursor_open(txn, dbi, &c)) ||
            (rc = mdb_cursor_get(c, &k, &v, MDB_FIRST)) || (rc = mdb_cursor_del(c, 0)))
            return die(name, rc);
        mdb_cursor_close(c);
    } else {
        unsigned char key[300];
        size_t n = strlen(argv[3]);
        unsigned long long seq = strtoull(argv[4], NULL, 10);
        memcpy(key, argv[3], n + 1);
        for (int i = 7; i >= 0; i--, seq >>= 8)
            key[n + 1 + (size_t)i] = (unsigned char)seq;
        MDB_val k = {n + 9, key};
        if ((rc = mdb_dbi_open(txn, "streams", 0, &dbi)) || (rc = mdb_del(txn, dbi, &k, NULL)))
            return die("streams", rc);
    }
    if ((rc = mdb_txn_commit(txn)))
        return die("commit", rc);
    mdb_env_close(env);
    return 0;
}
