/* A table's control-plane settings and its stream's enablements on the
 * embedded engine: CreationDateTime and TableId kept in the definition
 * (and a definition stored without them still loading), deletion
 * protection, UpdateTable's billing mode and throughput (ddb_update_table),
 * a stream's enablement time (its label) and the refusal of a view change,
 * and ddb_options.ttl_reads: expired items hidden from reads at once
 * (HIDE, the default) or returned until the sweep deletes them (SHOW, as
 * DynamoDB does).  Each case names the DynamoDB page it follows. */
#include "stream_util.h"

#include "api/api.h"
#include "engine/engine.h"

#include <stdio.h>
#include <string.h>

#define T "Settings"
#define T0 1700000000000LL

static su_clock clk;
static char dir[512];

static ddb *open_fresh(const char *name, ddb_options *o)
{
    atomic_store(&clk.ms, T0);
    return su_open(name, o, &clk, dir, sizeof dir);
}

static void close_fresh(ddb *db)
{
    ddb_close(db);
    su_rmdir(dir);
}

static ddb_item *key(ddb_arena *a, const char *pk, const char *sk)
{
    return su_item(a, "PK", 's', pk, "SK", 's', sk, NULL);
}

/* API_TableDescription: CreationDateTime, TableId (a UUID),
 * BillingModeSummary.LastUpdateToPayPerRequestDateTime; API_UpdateTable:
 * BillingMode, ProvisionedThroughput. */
static void test_created_and_billing(void **state)
{
    (void)state;
    ddb *db = open_fresh("settings_billing", NULL);
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    su_table(db, T, DDB_STREAM_NONE, NULL);
    ddb_table_desc *d;
    SU_OK(ddb_describe_table(db, T, a, &d, &err));
    assert_int_equal(d->created_ms, T0);
    assert_int_equal(strlen(d->table_id), 36);
    assert_true(d->table_id[8] == '-' && d->table_id[13] == '-' && d->table_id[14] == '4');
    assert_int_equal(d->on_demand_since_ms, T0); /* created on demand */
    char id[37];
    memcpy(id, d->table_id, sizeof id);

    /* to provisioned; throttle mode's throughput is the table's new one */
    atomic_store(&clk.ms, T0 + 5000);
    SU_OK(ddb_update_table(db, T, &(ddb_table_update){.set_throughput = true, .rcu = 7, .wcu = 3}, &err));
    SU_OK(ddb_describe_table(db, T, a, &d, &err));
    assert_int_equal(d->def.rcu, 7);
    assert_int_equal(d->def.wcu, 3);
    assert_int_equal(d->on_demand_since_ms, T0);
    assert_string_equal(d->table_id, id);
    assert_int_equal(d->created_ms, T0);
    /* back to on demand: the time of the switch is kept */
    atomic_store(&clk.ms, T0 + 9000);
    SU_OK(ddb_update_table(db, T, &(ddb_table_update){.set_throughput = true}, &err));
    SU_OK(ddb_describe_table(db, T, a, &d, &err));
    assert_int_equal(d->def.rcu, 0);
    assert_int_equal(d->on_demand_since_ms, T0 + 9000);
    /* one of the two units zero, or over the table limit */
    assert_int_equal(ddb_update_table(db, T, &(ddb_table_update){.set_throughput = true, .rcu = 5}, &err),
                     DDB_EVALIDATION);
    assert_non_null(strstr(err.message, "ReadCapacityUnits and WriteCapacityUnits"));
    assert_int_equal(
        ddb_update_table(db, T, &(ddb_table_update){.set_throughput = true, .rcu = 40001, .wcu = 1}, &err),
        DDB_EVALIDATION);
    assert_int_equal(ddb_update_table(db, "Missing", &(ddb_table_update){.set_throughput = true}, &err),
                     DDB_ENOTABLE);
    ddb_arena_free(a);
    close_fresh(db);
}

/* The developer guide's "Using deletion protection" and API_DeleteTable:
 * a protected table is not deleted (ValidationException). */
static void test_deletion_protection(void **state)
{
    (void)state;
    ddb *db = open_fresh("settings_protect", NULL);
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    ddb_key_schema k = {.pk = "PK", .pk_type = DDB_TS, .sk = NULL, .sk_type = DDB_TNONE};
    SU_OK(ddb_create_table(db, &(ddb_table_def){.name = T, .key = k, .deletion_protection = true}, &err));
    SU_OK(ddb_put_item(db, T, su_item(a, "PK", 's', "x", NULL), NULL, NULL, NULL, &err));
    assert_int_equal(ddb_delete_table(db, T, &err), DDB_EVALIDATION);
    assert_string_equal(err.message, "Resource cannot be deleted as it is currently protected against deletion. "
                                     "Disable deletion protection first.");
    ddb_table_desc *d;
    SU_OK(ddb_describe_table(db, T, a, &d, &err));
    assert_true(d->def.deletion_protection);
    assert_int_equal(d->item_count, 1); /* nothing lost */
    SU_OK(ddb_update_table(db, T, &(ddb_table_update){.set_deletion_protection = true}, &err));
    SU_OK(ddb_describe_table(db, T, a, &d, &err));
    assert_false(d->def.deletion_protection);
    SU_OK(ddb_delete_table(db, T, &err));
    ddb_arena_free(a);
    close_fresh(db);
}

static int drop_settings(ddb_arena *a, ddb_item *def, void *ctx)
{
    (void)a;
    (void)ctx;
    const char *gone[] = {"created_ms", "table_id", "deletion_protection", "on_demand_ms"};
    for (size_t i = 0; i < 4; i++)
        ddb_item_remove(def, gone[i]);
    return 0;
}

static int rewrite_old(ddbi_engine *e, MDB_txn *txn, void *ctx)
{
    int rc = ddbi_table_def_edit(e, txn, T, drop_settings, NULL, ctx);
    return rc ? rc : ddbi_schema_bump_gen(e, txn);
}

/* A definition stored before these settings were kept loads as created at
 * 0, without a TableId, unprotected; its items are all there. */
static void test_old_definition(void **state)
{
    (void)state;
    ddb *db = open_fresh("settings_old", NULL);
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    su_table(db, T, DDB_STREAM_NONE, NULL);
    SU_OK(ddb_put_item(db, T, key(a, "p", "s"), NULL, NULL, NULL, &err));
    SU_OK(ddbi_run_write(db->impl, rewrite_old, &err, true, &err));
    ddb_close(db);
    db = su_reopen(dir, NULL, &clk);
    ddb_table_desc *d;
    SU_OK(ddb_describe_table(db, T, a, &d, &err));
    assert_int_equal(d->created_ms, 0);
    assert_string_equal(d->table_id, "");
    assert_false(d->def.deletion_protection);
    assert_int_equal(d->item_count, 1);
    SU_OK(ddb_delete_table(db, T, &err));
    ddb_arena_free(a);
    close_fresh(db);
}

/* API_UpdateTable StreamSpecification: each enablement is a new stream
 * with a new label (StreamLabel: the time it was enabled); the view of an
 * enabled stream cannot change (Alternator's test_streams.py, written to
 * pass on DynamoDB: test_streams_change_type); its retention can. */
static void test_stream_enablements(void **state)
{
    (void)state;
    ddb *db = open_fresh("settings_stream", NULL);
    ddb_error err = {0};
    su_table(db, T, DDB_STREAM_KEYS_ONLY, NULL);
    ddb_stream_desc sd;
    SU_OK(ddb_stream_describe(db, T, &sd, &err));
    assert_int_equal(sd.enabled_ms, T0);
    assert_int_equal(ddb_update_table_stream(db, T, &(ddb_stream_spec){.view = DDB_STREAM_NEW_IMAGE}, &err),
                     DDB_EVALIDATION);
    assert_string_equal(err.message, "Table already has an enabled stream: TableName: " T);
    SU_OK(ddb_update_table_stream(db, T, &(ddb_stream_spec){.view = DDB_STREAM_KEYS_ONLY, .retention_seconds = 60},
                                  &err));
    SU_OK(ddb_stream_describe(db, T, &sd, &err));
    assert_int_equal(sd.enabled_ms, T0); /* the same stream */
    SU_OK(ddb_update_table_stream(db, T, &(ddb_stream_spec){.view = DDB_STREAM_NONE}, &err));
    SU_OK(ddb_stream_describe(db, T, &sd, &err));
    assert_int_equal(sd.enabled_ms, T0); /* the disabled stream keeps its label */
    /* enabled again at the same instant of the clock: still a later label */
    SU_OK(ddb_update_table_stream(db, T, &(ddb_stream_spec){.view = DDB_STREAM_NEW_IMAGE}, &err));
    SU_OK(ddb_stream_describe(db, T, &sd, &err));
    assert_int_equal(sd.enabled_ms, T0 + 1);
    assert_int_equal(sd.spec.view, DDB_STREAM_NEW_IMAGE);
    close_fresh(db);
}

/* Throttle mode uses the throughput UpdateTable set (API_UpdateTable
 * ProvisionedThroughput): 1 WCU lets one 1 KB write through per second,
 * 5 WCU five. */
static void test_throughput_throttles(void **state)
{
    (void)state;
    ddb *db = open_fresh("settings_throttle", &(ddb_options){.throttle = true});
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    ddb_key_schema k = {.pk = "PK", .pk_type = DDB_TS, .sk = "SK", .sk_type = DDB_TS};
    SU_OK(ddb_create_table(db, &(ddb_table_def){.name = T, .key = k, .rcu = 1, .wcu = 1}, &err));
    SU_OK(ddb_put_item(db, T, key(a, "p", "0"), NULL, NULL, NULL, &err));
    assert_int_equal(ddb_put_item(db, T, key(a, "p", "1"), NULL, NULL, NULL, &err), DDB_ETHROTTLED);
    SU_OK(ddb_update_table(db, T, &(ddb_table_update){.set_throughput = true, .rcu = 5, .wcu = 5}, &err));
    atomic_store(&clk.ms, T0 + 1000);
    for (int i = 0; i < 5; i++) {
        char sk[8];
        snprintf(sk, sizeof sk, "n%d", i);
        SU_OK(ddb_put_item(db, T, key(a, "p", sk), NULL, NULL, NULL, &err));
    }
    assert_int_equal(ddb_put_item(db, T, key(a, "p", "n5"), NULL, NULL, NULL, &err), DDB_ETHROTTLED);
    ddb_arena_free(a);
    close_fresh(db);
}

static int put_v1_config(ddbi_engine *e, MDB_txn *txn, void *ctx)
{
    (void)ctx;
    /* version 1 of "q/<table>": version, view, be64 retention seconds, be64
     * retention bytes, be16 TTL attribute length, the attribute */
    uint8_t v[23] = {1, DDB_STREAM_KEYS_ONLY};
    v[19] = 3;
    memcpy(v + 20, "exp", 3);
    MDB_val k = {sizeof "q/" T - 1, "q/" T}, val = {sizeof v, v};
    int rc = mdb_put(txn, e->meta, &k, &val, 0);
    return rc ? rc : ddbi_schema_bump_gen(e, txn);
}

/* The stream settings stored before the enablement time was kept (version
 * 1) still load: the stream and the TTL attribute as they were, enabled at
 * 0 (the label 1970-01-01T00:00:00.000 ddb serve gave every stream then). */
static void test_old_stream_config(void **state)
{
    (void)state;
    ddb *db = open_fresh("settings_old_stream", NULL);
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    su_table(db, T, DDB_STREAM_NEW_IMAGE, NULL);
    SU_OK(ddbi_run_write(db->impl, put_v1_config, NULL, true, &err));
    ddb_close(db);
    db = su_reopen(dir, NULL, &clk);
    ddb_stream_desc sd;
    SU_OK(ddb_stream_describe(db, T, &sd, &err));
    assert_int_equal(sd.spec.view, DDB_STREAM_KEYS_ONLY);
    assert_int_equal(sd.enabled_ms, 0);
    ddb_table_desc *d;
    SU_OK(ddb_describe_table(db, T, a, &d, &err));
    assert_string_equal(d->def.ttl_attribute, "exp");
    ddb_arena_free(a);
    close_fresh(db);
}

/* ddb_options.ttl_reads.  SHOW: the developer guide's "Time to Live"
 * (TTL.html) says items past their expiry that TTL has not deleted yet
 * still appear in reads, queries and scans; the sweep then deletes them
 * with a service-made REMOVE record.  HIDE (default): invisible at once. */
static void check_ttl_reads(ddb_options *o, bool visible)
{
    ddb *db = open_fresh(visible ? "settings_ttl_show" : "settings_ttl_hide", o);
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    su_table(db, T, DDB_STREAM_NEW_AND_OLD_IMAGES, "exp");
    char past[32];
    snprintf(past, sizeof past, "%lld", (long long)(T0 / 1000 - 60));
    SU_OK(ddb_put_item(db, T, su_item(a, "PK", 's', "t", "SK", 's', "old", "GK", 's', "g", "exp", 'n', past, NULL),
                       NULL, NULL, NULL, &err));
    SU_OK(ddb_put_item(db, T, su_item(a, "PK", 's', "t", "SK", 's', "new", "GK", 's', "g", NULL), NULL, NULL, NULL,
                       &err));
    ddb_item *got = NULL;
    int rc = ddb_get_item(db, T, key(a, "t", "old"), NULL, a, &got, NULL, &err);
    assert_int_equal(rc, visible ? DDB_OK : DDB_ENOTFOUND);
    size_t n = visible ? 2 : 1;
    ddb_page pg;
    SU_OK(ddb_query(db, &(ddb_query_params){.table = T, .pk = ddb_v_str(a, "t")}, a, &pg, &err));
    assert_int_equal(pg.count, n);
    SU_OK(ddb_query(db, &(ddb_query_params){.table = T, .index = "GSI", .pk = ddb_v_str(a, "g")}, a, &pg, &err));
    assert_int_equal(pg.count, n);
    SU_OK(ddb_scan(db, &(ddb_scan_params){.table = T}, a, &pg, &err));
    assert_int_equal(pg.count, n);
    ddb_batch_get_op bg[1] = {{.table = T, .key = key(a, "t", "old")}};
    ddb_item *out[1];
    SU_OK(ddb_batch_get(db, bg, 1, a, out, DDB_CAPACITY_NONE, NULL, &err));
    assert_true((out[0] != NULL) == visible);
    ddb_tx_get tg[1] = {{.table = T, .key = key(a, "t", "old")}};
    SU_OK(ddb_transact_get(db, tg, 1, a, out, DDB_CAPACITY_NONE, NULL, &err));
    assert_true((out[0] != NULL) == visible);
    /* the sweep deletes it either way, as the service */
    uint64_t deleted = 0;
    SU_OK(ddb_ttl_sweep(db, T, 0, &deleted, &err));
    assert_int_equal(deleted, 1);
    assert_int_equal(ddb_get_item(db, T, key(a, "t", "old"), NULL, a, &got, NULL, &err), DDB_ENOTFOUND);
    ddb_stream_record recs[8];
    size_t nr = su_read_all(db, T, a, recs, 8);
    assert_int_equal(nr, 3);
    assert_int_equal(recs[2].event, DDB_STREAM_REMOVE);
    assert_true(recs[2].by_ttl);
    ddb_arena_free(a);
    close_fresh(db);
}

static void test_ttl_reads(void **state)
{
    (void)state;
    check_ttl_reads(&(ddb_options){0}, false);
    check_ttl_reads(&(ddb_options){.ttl_reads = DDB_TTL_READS_SHOW}, true);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_created_and_billing), cmocka_unit_test(test_deletion_protection),
        cmocka_unit_test(test_old_definition),      cmocka_unit_test(test_stream_enablements),
        cmocka_unit_test(test_ttl_reads),           cmocka_unit_test(test_throughput_throttles),
        cmocka_unit_test(test_old_stream_config),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
