/* The hot paths' shared machinery: group commit with failing writes mixed
 * in (every mode), and the pool of reused read transactions when another
 * process changes the tables (the reload then opens database handles inside
 * a pooled read transaction). */
#include "testutil.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[512];
static const char *self; /* this program, for the child process */

static void create_table(ddb *db, const char *name, const char *pk)
{
    ddb_error err = {0};
    ddb_table_def def = {.name = name, .key = {.pk = pk, .pk_type = DDB_TS, .sk = "SK", .sk_type = DDB_TS}};
    if (ddb_create_table(db, &def, &err))
        fail_msg("create %s: %s", name, err.message);
}

/* ---- group commit: failures and no-op writes among good ones ---- */

typedef struct thr {
    ddb *db;
    int id;
    int bad;  /* writes refused */
    int good; /* writes done */
} thr;

static void *mixed_writer(void *p)
{
    thr *t = p;
    ddb_arena *a = ddb_arena_new();
    for (int i = 0; i < 150; i++) {
        char k[32];
        snprintf(k, sizeof k, "t%d-%d", t->id, i);
        ddb_error err = {0};
        int rc;
        if (i % 3 == 1) /* no sort key: refused inside the batch */
            rc = ddb_put_item(t->db, "Tab", tu_item(a, "PK", 's', k, NULL), NULL, NULL, NULL, &err);
        else if (i % 3 == 2) /* deleting a missing item: succeeds, changes nothing */
            rc = ddb_delete_item(t->db, "Tab", tu_item(a, "PK", 's', k, "SK", 's', "none", NULL), NULL, NULL, NULL,
                                 &err);
        else
            rc = ddb_put_item(t->db, "Tab", tu_item(a, "PK", 's', k, "SK", 's', "x", NULL), NULL, NULL, NULL, &err);
        if (i % 3 == 1) {
            if (rc != DDB_EVALIDATION || err.code != DDB_EVALIDATION)
                return (void *)1;
            t->bad++;
        } else if (rc != DDB_OK) {
            return (void *)2;
        } else {
            t->good++;
        }
        ddb_arena_reset(a);
    }
    ddb_arena_free(a);
    return NULL;
}

static void test_group_commit_mixed(void **state)
{
    (void)state;
    for (int mode = DDB_SYNC_FULL; mode <= DDB_SYNC_NONE; mode++) {
        ddb_options o = {.sync = (ddb_sync_mode)mode};
        ddb *db = tu_open("gcmix", &o, dir, sizeof dir);
        create_table(db, "Tab", "PK");
        pthread_t th[8];
        thr args[8];
        for (int i = 0; i < 8; i++) {
            args[i] = (thr){db, i, 0, 0};
            pthread_create(&th[i], NULL, mixed_writer, &args[i]);
        }
        for (int i = 0; i < 8; i++) {
            void *r;
            pthread_join(th[i], &r);
            assert_null(r);
            assert_int_equal(args[i].bad, 50);
            assert_int_equal(args[i].good, 100);
        }
        ddb_close(db);
        /* everything acknowledged is there after a reopen */
        char uri[600];
        snprintf(uri, sizeof uri, "file:%s", dir);
        ddb_error err = {0};
        TU_OK(ddb_open(uri, &o, &db, &err));
        ddb_arena *a = ddb_arena_new();
        ddb_table_desc *d;
        TU_OK(ddb_describe_table(db, "Tab", a, &d, &err));
        assert_int_equal(d->item_count, 8 * 50);
        ddb_check_report rep;
        TU_OK(ddb_check_table(db, "Tab", &rep, &err));
        ddb_close(db);
        ddb_arena_free(a);
        tu_rmdir(dir);
    }
}

/* ---- pooled read transactions and another process's DDL ---- */

/* The child: one action on the database, then exit. */
static int child_main(const char *cdir, const char *action)
{
    char uri[600];
    snprintf(uri, sizeof uri, "file:%s", cdir);
    ddb *db;
    ddb_error err = {0};
    if (ddb_open(uri, NULL, &db, &err))
        return 10;
    ddb_arena *a = ddb_arena_new();
    int rc = 0;
    if (!strcmp(action, "create")) {
        ddb_table_def def = {.name = "Other", .key = {.pk = "PK", .pk_type = DDB_TS, .sk = "SK", .sk_type = DDB_TS}};
        rc = ddb_create_table(db, &def, &err) ||
             ddb_put_item(db, "Other", tu_item(a, "PK", 's', "p", "SK", 's', "one", NULL), NULL, NULL, NULL, &err);
    } else if (!strcmp(action, "recreate")) {
        /* same name, other key attribute */
        ddb_table_def def = {.name = "Other", .key = {.pk = "K2", .pk_type = DDB_TS, .sk = "SK", .sk_type = DDB_TS}};
        rc = ddb_delete_table(db, "Other", &err) || ddb_create_table(db, &def, &err) ||
             ddb_put_item(db, "Other", tu_item(a, "K2", 's', "p", "SK", 's', "two", NULL), NULL, NULL, NULL, &err);
    }
    ddb_arena_free(a);
    ddb_close(db);
    return rc ? 11 : 0;
}

static void run_child(const char *action)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        execl("/proc/self/exe", self, "child", dir, action, (char *)NULL);
        _exit(12);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

typedef struct reader {
    ddb *db;
    const char *table, *pk, *sk;
    int rc;
} reader;

static void *read_loop(void *p)
{
    reader *r = p;
    ddb_arena *a = ddb_arena_new();
    for (int i = 0; i < 300 && !r->rc; i++) {
        ddb_arena_reset(a);
        ddb_item *out;
        ddb_error err = {0};
        const char *pkname = strcmp(r->table, "Main") == 0 || strcmp(r->sk, "one") == 0 ? "PK" : "K2";
        ddb_item *key = tu_item(a, pkname, 's', r->pk, "SK", 's', r->sk, NULL);
        if (ddb_get_item(r->db, r->table, key, NULL, a, &out, NULL, &err)) {
            fprintf(stderr, "get %s %s/%s: %s\n", r->table, r->pk, r->sk, err.message);
            r->rc = 1;
            break;
        }
        ddb_page pg;
        ddb_query_params q = {.table = r->table, .pk = ddb_v_str(a, r->pk)};
        if (ddb_query(r->db, &q, a, &pg, &err) || pg.count != 1) {
            fprintf(stderr, "query %s %s: %s\n", r->table, r->pk, err.message);
            r->rc = 2;
        }
    }
    ddb_arena_free(a);
    return NULL;
}

static void read_from(ddb *db, const char *table, const char *pk, const char *sk)
{
    pthread_t th[4];
    reader r[4];
    for (int i = 0; i < 4; i++) {
        r[i] = (reader){db, table, pk, sk, 0};
        pthread_create(&th[i], NULL, read_loop, &r[i]);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(r[i].rc, 0);
    }
}

static void test_read_pool_and_foreign_ddl(void **state)
{
    (void)state;
    ddb *db = tu_open("rpool", NULL, dir, sizeof dir);
    create_table(db, "Main", "PK");
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    TU_OK(ddb_put_item(db, "Main", tu_item(a, "PK", 's', "m", "SK", 's', "s", NULL), NULL, NULL, NULL, &err));
    read_from(db, "Main", "m", "s"); /* fills the pool */

    run_child("create"); /* another process: a new table (new LMDB databases) */
    read_from(db, "Other", "p", "one");
    read_from(db, "Main", "m", "s");

    run_child("recreate"); /* dropped and created again, another key */
    read_from(db, "Other", "p", "two");
    ddb_item *out;
    ddb_item *old_key = tu_item(a, "PK", 's', "p", "SK", 's', "one", NULL);
    assert_int_equal(ddb_get_item(db, "Other", old_key, NULL, a, &out, NULL, &err), DDB_EVALIDATION);
    read_from(db, "Main", "m", "s");

    /* writes through this handle still see the foreign tables */
    TU_OK(ddb_put_item(db, "Other", tu_item(a, "K2", 's', "q", "SK", 's', "x", NULL), NULL, NULL, NULL, &err));
    read_from(db, "Other", "q", "x");
    ddb_close(db);
    ddb_arena_free(a);
    tu_rmdir(dir);
}

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "child"))
        return child_main(argv[2], argv[3]);
    self = argv[0];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_group_commit_mixed),
        cmocka_unit_test(test_read_pool_and_foreign_ddl),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
