/* Generated code decodes stream records into entity structs: a consumer
 * switches on rec.type instead of parsing attributes.  Uses the module
 * ddbgen generates from tests/generator/schemas/shop.h, whose DDB_TTL
 * fields also give each table its TTL attribute.  The same consumer runs
 * on the embedded engine and through the remote backend against `ddb
 * serve` (DynamoDB Streams' API: ListStreams, DescribeStream,
 * GetShardIterator, GetRecords), and must see the same records. */
#include "shop_ddb.h"
#include "stream_util.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char dir[512];

#define OK(expr)                                                                                                      \
    do {                                                                                                              \
        int rc_ = (expr);                                                                                             \
        if (rc_ != 0)                                                                                                 \
            fail_msg("%s -> %d %s (%s)", #expr, rc_, ddb_strerror(rc_), err.message);                                 \
    } while (0)

/* Write through the generated module, read the stream, decode each record. */
static void write_and_decode(ddb *db)
{
    ddb_error err = {0};
    OK(shop_create_table(db, &err));
    OK(audit_create_table(db, &err));
    ddb_arena *a = ddb_arena_new();
    ddb_table_desc *d;
    OK(ddb_describe_table(db, "Shop", a, &d, &err));
    assert_string_equal(d->def.ttl_attribute, "expires_at"); /* from User.expires_at DDB_TTL */
    OK(ddb_describe_table(db, "Audit", a, &d, &err));
    assert_string_equal(d->def.ttl_attribute, "at");
    ddb_stream_spec spec = {.view = DDB_STREAM_NEW_AND_OLD_IMAGES};
    OK(ddb_update_table_stream(db, "Shop", &spec, &err));
    OK(ddb_update_table_stream(db, "Audit", &spec, &err));

    struct organization org = {.name = "acme", .plan = PLAN_TEAM, .seats = 5};
    OK(organization_put(db, &org, NULL, NULL, &err));
    struct user u = {.org = "acme", .username = "ann", .logins = 1, .home = {"fr", "Lyon", NULL, {0, 0}}};
    OK(user_create(db, &u, NULL, NULL, &err));
    u.logins = 2;
    OK(user_put(db, &u, NULL, NULL, &err));
    org.seats = 6;
    OK(organization_put(db, &org, NULL, NULL, &err));
    OK(user_delete(db, "acme", "ann", NULL, NULL, &err));
    struct product p = {.sku = "sku-1", .title = "Bike", .stock = 3, .views = 10};
    OK(product_put(db, &p, NULL, NULL, &err));
    struct audit_event ev = {.actor = "ann"};
    OK(audit_event_create(db, &ev, NULL, NULL, &err));

    ddb_stream_record r[16];
    size_t n = su_read_all(db, "Shop", a, r, 16);
    assert_int_equal(n, 7); /* org, user, user, org, user removed, product's two shard items */
    int users = 0, orgs = 0, products = 0;
    for (size_t i = 0; i < n; i++) {
        shop_record rec;
        OK(shop_decode_record(&r[i], a, &rec, &err));
        assert_int_equal(rec.seq, r[i].seq);
        switch (rec.type) {
        case SHOP_TYPE_ORGANIZATION:
            orgs++;
            assert_true(rec.has_new);
            assert_string_equal(rec.new_image.organization.name, "acme");
            assert_int_equal(rec.new_image.organization.plan, PLAN_TEAM);
            if (rec.event == DDB_STREAM_MODIFY) {
                assert_int_equal(rec.old_image.organization.seats, 5);
                assert_int_equal(rec.new_image.organization.seats, 6);
            }
            break;
        case SHOP_TYPE_USER:
            users++;
            if (rec.event == DDB_STREAM_REMOVE) {
                assert_false(rec.has_new);
                assert_true(rec.has_old);
                assert_int_equal(rec.old_image.user.logins, 2);
            } else {
                assert_string_equal(rec.new_image.user.username, "ann");
                assert_string_equal(rec.new_image.user.home.city, "Lyon");
            }
            break;
        case SHOP_TYPE_PRODUCT:
            products++;
            assert_true(rec.partial); /* one shard item: its fields and the key */
            assert_string_equal(rec.new_image.product.sku, "sku-1");
            assert_true(strcmp(rec.new_image.product.title, "Bike") == 0 || rec.new_image.product.views == 10);
            break;
        default:
            fail_msg("record %zu: type %d", i, (int)rec.type);
        }
    }
    assert_int_equal(orgs, 2);
    assert_int_equal(users, 3);
    assert_int_equal(products, 2);

    /* another table's decoder refuses the record */
    audit_record ar;
    assert_int_equal(audit_decode_record(&r[0], a, &ar, &err), DDB_EINVAL);
    n = su_read_all(db, "Audit", a, r, 16);
    assert_int_equal(n, 1);
    OK(audit_decode_record(&r[0], a, &ar, &err));
    assert_int_equal(ar.type, AUDIT_TYPE_AUDIT_EVENT);
    assert_string_equal(ar.new_image.audit_event.actor, "ann");

    /* KEYS_ONLY: the type comes from the key templates (an enabled
     * stream's view cannot change: off, then on with the new view) */
    spec.view = DDB_STREAM_NONE;
    OK(ddb_update_table_stream(db, "Shop", &spec, &err));
    spec.view = DDB_STREAM_KEYS_ONLY;
    OK(ddb_update_table_stream(db, "Shop", &spec, &err));
    struct user bob = {.org = "acme", .username = "bob", .home = {"us", "Austin", NULL, {0, 0}}};
    OK(user_create(db, &bob, NULL, NULL, &err));
    OK(organization_delete(db, "acme", NULL, NULL, &err));
    OK(product_delete(db, "sku-1", NULL, NULL, &err));
    n = su_read_all(db, "Shop", a, r, 16);
    assert_int_equal(n, 11);
    shop_record rec;
    OK(shop_decode_record(&r[7], a, &rec, &err));
    assert_int_equal(rec.type, SHOP_TYPE_USER);
    assert_false(rec.has_new || rec.has_old);
    OK(shop_decode_record(&r[8], a, &rec, &err));
    assert_int_equal(rec.type, SHOP_TYPE_ORGANIZATION);
    assert_int_equal(rec.event, DDB_STREAM_REMOVE);
    OK(shop_decode_record(&r[9], a, &rec, &err));
    assert_int_equal(rec.type, SHOP_TYPE_PRODUCT);
    ddb_arena_free(a);
}

static void test_decode(void **state)
{
    (void)state;
    ddb *db = su_open("entity", NULL, NULL, dir, sizeof dir);
    write_and_decode(db);
    ddb_close(db);
    su_rmdir(dir);
}

/* ---- through the remote backend, from `ddb serve` ---- */

/* Start `ddb --db DIR serve --listen 127.0.0.1:0 --port-file F`; its port. */
static pid_t serve_start(const char *db_dir, int *port)
{
    char port_file[600];
    snprintf(port_file, sizeof port_file, "%s.port", db_dir);
    unlink(port_file);
    pid_t pid = fork();
    if (pid == 0) {
        execl(DDB_TOOL, DDB_TOOL, "--db", db_dir, "serve", "--listen", "127.0.0.1:0", "--port-file", port_file,
              (char *)NULL);
        _exit(127);
    }
    assert_true(pid > 0);
    /* the port file appears (atomically) before the server answers; 30 s at most */
    for (int i = 0; i < 3000; i++) {
        FILE *f = fopen(port_file, "r");
        if (f) {
            int ok = fscanf(f, "%d", port) == 1;
            fclose(f);
            unlink(port_file);
            if (ok)
                return pid;
        }
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid)
            fail_msg("ddb serve exited before listening (status %d)", status);
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    fail_msg("ddb serve wrote no port file in 30 s");
    return -1;
}

static void test_decode_remote_serve(void **state)
{
    (void)state;
    const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(dir, sizeof dir, "%s/ddbstream-serve-%d", base, (int)getpid());
    su_rmdir(dir);
    int port = 0;
    pid_t pid = serve_start(dir, &port);
    char uri[64];
    snprintf(uri, sizeof uri, "http://127.0.0.1:%d", port);
    ddb *db = NULL;
    ddb_error err = {0};
    OK(ddb_open(uri, NULL, &db, &err));
    write_and_decode(db);

    /* a consumer's checkpoint after 3 records resumes at the 4th, by text
     * (per-shard positions) and by number (ddb serve's fit in 64 bits) */
    ddb_arena *a = ddb_arena_new();
    ddb_stream_record r[4];
    size_t n;
    ddb_stream_iter *it;
    OK(ddb_stream_iter_open(db, "Shop", DDB_STREAM_TRIM_HORIZON, 0, &it, &err));
    OK(ddb_stream_read(it, 3, a, r, &n, &err));
    assert_int_equal(n, 3);
    char ck[512];
    OK(ddb_stream_iter_checkpoint(it, ck, sizeof ck, &err));
    assert_non_null(strstr(ck, "ddb-streams-1;shardId-"));
    uint64_t pos = ddb_stream_iter_position(it);
    assert_int_equal(pos, r[2].seq);
    ddb_stream_iter_close(it);
    OK(ddb_stream_iter_resume(db, "Shop", ck, &it, &err));
    OK(ddb_stream_read(it, 1, a, r, &n, &err));
    assert_int_equal(n, 1);
    assert_int_equal(r[0].seq, pos + 1);
    ddb_stream_iter_close(it);
    OK(ddb_stream_iter_open(db, "Shop", DDB_STREAM_AFTER_SEQUENCE, pos, &it, &err));
    OK(ddb_stream_read(it, 1, a, r, &n, &err));
    assert_int_equal(n, 1);
    assert_int_equal(r[0].seq, pos + 1);
    ddb_stream_iter_close(it);
    ddb_arena_free(a);

    ddb_close(db);
    assert_int_equal(kill(pid, SIGTERM), 0);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0); /* a clean shutdown */
    su_rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_decode), cmocka_unit_test(test_decode_remote_serve)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
