/* The generated module creates its tables as the schema states them
 * (tests/infra/infra_schema.h): DDB_STREAM's view, DDB_PROVISIONED's
 * throughput on the table and on each GSI (not on the LSI), deletion
 * protection, the TTL
 * attribute of the DDB_TTL field; a table without options is on demand with
 * no stream.  The same definition ddbgen --emit-infra writes for AWS
 * (test_infra.py checks that side). */
#include "infra_schema_ddb.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[512];

static ddb *open_fresh(void)
{
    const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(dir, sizeof dir, "%s/ddb-infra-tables-%d", base, (int)getpid());
    char cmd[600], uri[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    snprintf(uri, sizeof uri, "file:%s", dir);
    ddb *db = NULL;
    ddb_error err;
    if (ddb_open(uri, NULL, &db, &err))
        fail_msg("open: %s", err.message);
    return db;
}

static void created_as_declared(void **state)
{
    (void)state;
    ddb *db = open_fresh();
    ddb_error err;
    if (events_create_table(db, &err) || audit_create_table(db, &err))
        fail_msg("create: %s", err.message);
    ddb_arena *a = ddb_arena_new();
    ddb_table_desc *d = NULL;
    if (ddb_describe_table(db, "Events", a, &d, &err))
        fail_msg("describe: %s", err.message);
    assert_int_equal(d->def.stream.view, DDB_STREAM_NEW_AND_OLD_IMAGES);
    assert_int_equal(d->def.rcu, 7);
    assert_true(d->def.deletion_protection);
    assert_int_equal(d->def.wcu, 3);
    assert_non_null(d->def.ttl_attribute);
    assert_string_equal(d->def.ttl_attribute, "expires");
    assert_int_equal(d->def.n_indexes, 3);
    for (size_t i = 0; i < d->def.n_indexes; i++) {
        const ddb_index_def *x = &d->def.indexes[i];
        assert_int_equal(x->rcu, x->local ? 0 : 7);
        assert_int_equal(x->wcu, x->local ? 0 : 3);
    }
    if (ddb_describe_table(db, "Audit.log-2", a, &d, &err))
        fail_msg("describe: %s", err.message);
    assert_int_equal(d->def.stream.view, DDB_STREAM_NONE);
    assert_int_equal(d->def.rcu, 0);
    assert_null(d->def.ttl_attribute);
    ddb_arena_free(a);
    ddb_close(db);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(created_as_declared)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
