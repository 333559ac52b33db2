/* ddb_ent_migrate's limits and checkpoints.  Limits are checked before
 * anything is written: a sharded
 * entity whose logical item could need more operations than one
 * TransactWriteItems takes (DynamoDB: "TransactWriteItems is a synchronous
 * write operation that groups up to 100 action requests" — Amazon DynamoDB
 * API Reference, TransactWriteItems) is DDB_ELIMIT naming the entity and
 * the count, and the table is left as it was (no migration recorded:
 * ddb_ent_open_table still opens it).  The descriptors are written by hand:
 * a 51-shard entity (51 puts + 51 deletes = 102) and a 50-shard one (100:
 * accepted).  Checkpoints (table metadata "ddbgen.migration", one line)
 * written by an earlier libddb, without "in_step", resume with their
 * counts, and so do those with "claimed" (the values of DDB_UNIQUE fields
 * claimed); an unreadable one is DDB_ECORRUPT.  A step's claims are
 * checked before anything too: a sharded entity's is DDB_ENOTSUP, a field
 * that is not DDB_UNIQUE is DDB_EINVAL. */
#include <ddb/ddb.h>
#include <ddb/entity.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

struct wide {
    char id[8];
};

static const ddb_field_desc wide_fields[] = {
    {.name = "id", .attr = "id", .type = DDB_F_STRING, .size = sizeof(((struct wide *)0)->id),
     .offset = offsetof(struct wide, id), .shard = -1},
};
static const ddb_struct_desc wide_struct = {.name = "wide", .size = sizeof(struct wide), .n_fields = 1,
                                            .fields = wide_fields};
static const ddb_tseg pk_segs[] = {{.lit = "W#"}};
static const ddb_tseg sk_segs[] = {{.lit = "W"}};
static const ddb_key_desc wide_keys[] = {
    {.index = NULL, .pk_attr = "PK", .sk_attr = "SK", .pk = {.segs = pk_segs, .n = 1, .type = DDB_TS},
     .sk = {.segs = sk_segs, .n = 1, .type = DDB_TS}, .shard = -1},
};
static const ddb_schema_table wide_table = {
    .cname = "wide", .type_attr = "Type", .def = {.name = "Wide", .key = {.pk = "PK", .pk_type = DDB_TS, .sk = "SK", .sk_type = DDB_TS}}};

static char ids[64][4];
static const char *shard_ids[64];

static ddb_entity_desc wide_entity(uint16_t n_shards)
{
    for (int i = 0; i < 64; i++) {
        snprintf(ids[i], sizeof ids[i], "S%d", i);
        shard_ids[i] = ids[i];
    }
    return (ddb_entity_desc){.name = "Wide", .table = &wide_table, .st = &wide_struct, .n_keys = 1,
                             .keys = wide_keys, .n_shards = n_shards, .shards = shard_ids, .shard_suffix = "#"};
}

static void too_many_shards_for_one_transaction(void **state)
{
    (void)state;
    char dir[] = "/tmp/ddb-miglim-XXXXXX", uri[64];
    assert_non_null(mkdtemp(dir));
    snprintf(uri, sizeof uri, "file:%s", dir);
    ddb *db;
    ddb_error err = {0};
    ddb_options o = {.sync = DDB_SYNC_NONE};
    assert_int_equal(ddb_open(uri, &o, &db, &err), 0);
    assert_int_equal(ddb_ent_create_table(db, &wide_table, &err), 0);

    ddb_entity_desc wide = wide_entity(51);
    const ddb_entity_desc *ents[] = {&wide};
    ddb_ent_migration_step step = {.entity = &wide};
    ddb_ent_migration m = {.id = "wide-1", .table = &wide_table, .entities = ents, .n_entities = 1,
                           .steps = &step, .n_steps = 1};
    int rc = ddb_ent_migrate(db, &m, NULL, NULL, NULL, &err);
    assert_int_equal(rc, DDB_ELIMIT);
    if (!strstr(err.message, "Wide item takes up to 102 operations") || !strstr(err.message, "the 100 of one"))
        fail_msg("message: %s", err.message);
    /* nothing recorded: the table is not in migration */
    assert_int_equal(ddb_ent_open_table(db, &wide_table, ents, 1, &err), 0);

    /* claims: a sharded entity's, or of a field that is not unique, refused before anything */
    ddb_entity_desc two = wide_entity(2);
    const ddb_entity_desc *ents2[] = {&two};
    static const char *const claim_id[] = {"id"};
    ddb_ent_migration_step claim = {.entity = &two, .claims = claim_id, .n_claims = 1};
    ddb_ent_migration cm = {.id = "wide-claim", .table = &wide_table, .entities = ents2, .n_entities = 1,
                            .steps = &claim, .n_steps = 1};
    rc = ddb_ent_migrate(db, &cm, NULL, NULL, NULL, &err);
    assert_int_equal(rc, DDB_ENOTSUP);
    if (!strstr(err.message, "Wide is sharded; a migration cannot claim"))
        fail_msg("message: %s", err.message);
    ddb_entity_desc plain = wide_entity(0);
    const ddb_entity_desc *ents0[] = {&plain};
    claim.entity = &plain;
    cm.entities = ents0;
    rc = ddb_ent_migrate(db, &cm, NULL, NULL, NULL, &err);
    assert_int_equal(rc, DDB_EINVAL);
    if (!strstr(err.message, "Wide has no DDB_UNIQUE field 'id' to claim"))
        fail_msg("message: %s", err.message);
    assert_int_equal(ddb_ent_open_table(db, &wide_table, ents, 1, &err), 0);

    /* 50 shards: 100 operations at most, accepted (no items: nothing moves) */
    ddb_entity_desc fifty = wide_entity(50);
    const ddb_entity_desc *ents50[] = {&fifty};
    step.entity = &fifty;
    m.entities = ents50;
    m.id = "wide-2";
    rc = ddb_ent_migrate(db, &m, NULL, NULL, NULL, &err);
    if (rc)
        fail_msg("50 shards: %s (%s)", ddb_strerror(rc), err.message);
    ddb_close(db);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* Resume a migration from checkpoint line `line`: the report's counts go on from it. */
static int resume_from(ddb *db, const char *id, const char *line, ddb_ent_migrate_report *r, ddb_arena *a,
                       ddb_error *err)
{
    static ddb_entity_desc two;
    two = wide_entity(2);
    static const ddb_entity_desc *ents[] = {&two};
    static ddb_ent_migration_step step = {.entity = &two};
    ddb_ent_migration m = {.id = id, .table = &wide_table, .entities = ents, .n_entities = 1, .steps = &step,
                           .n_steps = 1};
    int rc = ddb_table_meta_put(db, "Wide", "ddbgen.migration", line, strlen(line), err);
    return rc ? rc : ddb_ent_migrate(db, &m, NULL, a, r, err);
}

static void checkpoints_of_either_form_resume(void **state)
{
    (void)state;
    char dir[] = "/tmp/ddb-migcp-XXXXXX", uri[64];
    assert_non_null(mkdtemp(dir));
    snprintf(uri, sizeof uri, "file:%s", dir);
    ddb *db;
    ddb_error err = {0};
    ddb_options o = {.sync = DDB_SYNC_NONE};
    assert_int_equal(ddb_open(uri, &o, &db, &err), 0);
    assert_int_equal(ddb_ent_create_table(db, &wide_table, &err), 0);
    ddb_arena *a = ddb_arena_new();
    ddb_ent_migrate_report r;
    /* the earlier form: no in_step */
    int rc = resume_from(db, "old-form", "old-form step 0/1 scanned 5 moved 7 rewritten 2 unchanged 1 capacity 3.0 key -",
                         &r, a, &err);
    if (rc)
        fail_msg("old form: %s (%s)", ddb_strerror(rc), err.message);
    assert_true(r.resumed);
    assert_int_equal(r.scanned, 5);
    assert_int_equal(r.moved, 7);
    assert_int_equal(r.rewritten, 2);
    assert_int_equal(r.unchanged, 1);
    assert_true(r.capacity >= 3.0);
    /* today's form */
    rc = resume_from(db, "new-form",
                     "new-form step 0/1 scanned 9 moved 4 rewritten 0 unchanged 0 capacity 8.5 in_step 9 key -", &r,
                     a, &err);
    if (rc)
        fail_msg("new form: %s (%s)", ddb_strerror(rc), err.message);
    assert_true(r.resumed);
    assert_int_equal(r.scanned, 9);
    assert_int_equal(r.moved, 4);
    assert_true(r.capacity >= 8.5);
    /* with claimed */
    rc = resume_from(db, "claimed-form",
                     "claimed-form step 0/1 scanned 9 moved 0 rewritten 0 unchanged 9 capacity 8.5 in_step 9 claimed 6 "
                     "key -",
                     &r, a, &err);
    if (rc)
        fail_msg("claimed form: %s (%s)", ddb_strerror(rc), err.message);
    assert_true(r.resumed);
    assert_int_equal(r.unchanged, 9);
    assert_int_equal(r.claimed, 6);
    /* unreadable */
    rc = resume_from(db, "bad-form", "bad-form step 0/1 scanned 9 moved 4 rewritten 0 unchanged 0 capacity 8.5 in_step x",
                     &r, a, &err);
    assert_int_equal(rc, DDB_ECORRUPT);
    assert_non_null(strstr(err.message, "the migration checkpoint"));
    ddb_arena_free(a);
    ddb_close(db);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(too_many_shards_for_one_transaction),
        cmocka_unit_test(checkpoints_of_either_form_resume),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
