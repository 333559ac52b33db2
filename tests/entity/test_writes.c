/* The entity layer's writes (issue 13) on the embedded engine, with
 * hand-written descriptors: conditions and the stored item on failure
 * (ReturnValuesOnConditionCheckFailure ALL_OLD, API Reference PutItem /
 * UpdateItem / DeleteItem / TransactWriteItems), patch / upsert /
 * update-fields with a mask / declared updates, defaults and timestamps on
 * the handle's clock, uniqueness items, auto ids drawn inside a transaction
 * (a cancelled one consumes none), transaction forms of every write with a
 * ClientRequestToken (TransactWriteItems, ClientRequestToken: the same
 * request within 10 minutes is applied once), versions on a sharded entity
 * (updating one shard never rewrites another) and ddb_ent_to_items. */
#include "testutil.h" /* tests/runtime: tu_open, tu_rmdir, cmocka */

#include <ddb/entity.h>

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 1764168000000 /* 2025-11-26T14:40:00.000Z */
static int64_t now_ms = T0;
static int64_t test_clock(void *ctx)
{
    (void)ctx;
    return now_ms;
}

/* ---- User: key id, unique email, default status, timestamps, version ---- */

struct user {
    char id[16];
    char email[40];
    char status[16];
    int32_t logins;
    char *nick;
    int64_t created;
    char updated[32];
    int64_t version;
};

enum { U_ID, U_EMAIL, U_STATUS, U_LOGINS, U_NICK, U_CREATED, U_UPDATED, U_VERSION };

static const ddb_field_desc user_fields[] = {
    {.name = "id", .attr = "id", .type = DDB_F_CHARS, .size = 16, .offset = offsetof(struct user, id),
     .flags = DDB_FIELD_KEY, .shard = -1},
    {.name = "email", .attr = "email", .type = DDB_F_CHARS, .size = 40, .offset = offsetof(struct user, email),
     .flags = DDB_FIELD_UNIQUE, .shard = -1},
    {.name = "status", .attr = "status", .type = DDB_F_CHARS, .size = 16, .offset = offsetof(struct user, status),
     .shard = -1, .dflt = "active"},
    {.name = "logins", .attr = "logins", .type = DDB_F_INT, .size = 4, .offset = offsetof(struct user, logins),
     .shard = -1},
    {.name = "nick", .attr = "nick", .type = DDB_F_STRING, .offset = offsetof(struct user, nick),
     .flags = DDB_FIELD_OPTIONAL, .shard = -1},
    {.name = "created", .attr = "created", .type = DDB_F_INT, .size = 8, .offset = offsetof(struct user, created),
     .flags = DDB_FIELD_CREATED_AT, .shard = -1},
    {.name = "updated", .attr = "updated", .type = DDB_F_CHARS, .size = 32, .offset = offsetof(struct user, updated),
     .flags = DDB_FIELD_UPDATED_AT, .shard = -1},
    {.name = "version", .attr = "version", .type = DDB_F_INT, .size = 8, .offset = offsetof(struct user, version),
     .flags = DDB_FIELD_VERSION, .shard = -1},
};
static const ddb_struct_desc user_desc = {"user", sizeof(struct user), 8, user_fields};
static const ddb_tseg user_pk[] = {{.lit = "USER#"}, {.path = (const uint16_t[]){U_ID}, .path_len = 1}};
static const ddb_tseg user_sk[] = {{.lit = "PROFILE"}};
static const ddb_key_desc user_keys[] = {{NULL, "PK", "SK", {user_pk, 2, DDB_TS}, {user_sk, 1, DDB_TS}, -1, false}};
static const ddb_schema_table table = {"app", "Type", {.name = "AppTable", .key = {.pk = "PK", .pk_type = DDB_TS, .sk = "SK", .sk_type = DDB_TS}}};
static const ddb_entity_desc user_entity = {.name = "User", .table = &table, .st = &user_desc, .n_keys = 1,
                                            .keys = user_keys};

/* ---- Ticket: auto id per project ---- */

struct ticket {
    char project[16];
    uint64_t no;
    char title[32];
};
static const ddb_field_desc ticket_fields[] = {
    {.name = "project", .attr = "project", .type = DDB_F_CHARS, .size = 16,
     .offset = offsetof(struct ticket, project), .flags = DDB_FIELD_KEY, .shard = -1},
    {.name = "no", .attr = "no", .type = DDB_F_UINT, .size = 8, .offset = offsetof(struct ticket, no),
     .flags = DDB_FIELD_KEY | DDB_FIELD_AUTO_ID, .shard = -1},
    {.name = "title", .attr = "title", .type = DDB_F_CHARS, .size = 32, .offset = offsetof(struct ticket, title),
     .shard = -1},
};
static const ddb_struct_desc ticket_desc = {"ticket", sizeof(struct ticket), 3, ticket_fields};
static const ddb_tseg ticket_pk[] = {{.lit = "PROJECT#"}, {.path = (const uint16_t[]){0}, .path_len = 1}};
static const ddb_tseg ticket_sk[] = {{.lit = "TICKET#"}, {.path = (const uint16_t[]){1}, .path_len = 1, .pad = 6}};
static const ddb_key_desc ticket_keys[] = {
    {NULL, "PK", "SK", {ticket_pk, 2, DDB_TS}, {ticket_sk, 2, DDB_TS}, -1, false}};
static const ddb_tseg ticket_scope[] = {{.lit = "TICKETS#"}, {.path = (const uint16_t[]){0}, .path_len = 1}};
static const ddb_template ticket_scope_t = {ticket_scope, 2, DDB_TS};
static const ddb_entity_desc ticket_entity = {.name = "Ticket", .table = &table, .st = &ticket_desc, .n_keys = 1,
                                              .keys = ticket_keys, .auto_id_scope = &ticket_scope_t};

/* ---- Device: sharded A (battery, version) / B (description) ---- */

struct device {
    char id[16];
    int32_t battery;
    char description[64];
    int64_t version;
};
static const ddb_field_desc device_fields[] = {
    {.name = "id", .attr = "id", .type = DDB_F_CHARS, .size = 16, .offset = offsetof(struct device, id),
     .flags = DDB_FIELD_KEY, .shard = -1},
    {.name = "battery", .attr = "battery", .type = DDB_F_INT, .size = 4, .offset = offsetof(struct device, battery),
     .shard = 0},
    {.name = "description", .attr = "description", .type = DDB_F_CHARS, .size = 64,
     .offset = offsetof(struct device, description), .shard = 1},
    {.name = "version", .attr = "version", .type = DDB_F_INT, .size = 8, .offset = offsetof(struct device, version),
     .flags = DDB_FIELD_VERSION, .shard = 0},
};
static const ddb_struct_desc device_desc = {"device", sizeof(struct device), 4, device_fields};
static const ddb_tseg device_pk[] = {{.lit = "DEVICE#"}, {.path = (const uint16_t[]){0}, .path_len = 1}};
static const ddb_tseg device_sk[] = {{.lit = "DEVICE"}};
static const ddb_key_desc device_keys[] = {{NULL, "PK", "SK", {device_pk, 2, DDB_TS}, {device_sk, 1, DDB_TS}, -1, false}};
static const char *const device_shards[] = {"A", "B"};
static const ddb_entity_desc device_entity = {.name = "Device", .table = &table, .st = &device_desc, .n_keys = 1,
                                              .keys = device_keys, .n_shards = 2, .shards = device_shards,
                                              .shard_suffix = "#"};

typedef struct fx {
    ddb *db;
    ddb_arena *a;
    char dir[512];
    ddb_error err;
} fx;

static int setup(void **state)
{
    static unsigned seq;
    fx *f = calloc(1, sizeof *f);
    char name[32];
    snprintf(name, sizeof name, "ent-writes%u", seq++);
    ddb_options o = {0};
    o.clock_ms = test_clock;
    now_ms = T0;
    f->db = tu_open(name, &o, f->dir, sizeof f->dir);
    f->a = ddb_arena_new();
    if (ddb_ent_create_table(f->db, &table, &f->err))
        fail_msg("create table: %s", f->err.message);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    ddb_arena_free(f->a);
    ddb_close(f->db);
    tu_rmdir(f->dir);
    free(f);
    return 0;
}

#define OK(x)                                                                                                          \
    do {                                                                                                               \
        int rc_ = (x);                                                                                                 \
        if (rc_)                                                                                                       \
            fail_msg("%s -> %s: %s", #x, ddb_strerror(rc_), f->err.message);                                          \
    } while (0)

/* The stored item with key pk / sk, or NULL. */
static ddb_item *raw(fx *f, const char *pk, const char *sk)
{
    ddb_item *k = tu_item(f->a, "PK", 's', pk, "SK", 's', sk, NULL), *it = NULL;
    ddb_error err;
    int rc = ddb_get_item(f->db, "AppTable", k, &(ddb_get_opts){.consistent = true}, f->a, &it, NULL, &err);
    return rc ? NULL : it;
}

static int64_t num(const ddb_item *it, const char *attr)
{
    int64_t v = -1;
    const ddb_value *x = it ? ddb_item_get(it, attr) : NULL;
    if (x)
        ddb_value_to_i64(x, &v);
    return v;
}

static const char *str(const ddb_item *it, const char *attr)
{
    const ddb_value *x = it ? ddb_item_get(it, attr) : NULL;
    return x && x->type == DDB_TS ? x->u.s : NULL;
}

/* create fills the default and both timestamps; put keeps created-at; a
 * failed condition returns the stored item into the caller's struct. */
static void test_create_defaults_timestamps(void **state)
{
    fx *f = *state;
    struct user u = {.id = "ann", .email = "ann@example.com", .logins = 1};
    OK(ddb_ent_create(f->db, &user_entity, &u, NULL, NULL, &f->err));
    assert_string_equal(u.status, "active");
    assert_int_equal(u.created, now_ms);
    assert_string_equal(u.updated, "2025-11-26T14:40:00.000Z");
    assert_int_equal(u.version, 1);
    ddb_item *it = raw(f, "USER#ann", "PROFILE");
    assert_string_equal(str(it, "status"), "active");
    assert_int_equal(num(it, "created"), now_ms);
    /* create again: exists; the stored item comes back */
    struct user again = {.id = "ann", .email = "other@example.com"}, cur;
    bool found = false;
    ddb_ent_opts o = {.current = &cur, .current_found = &found, .current_arena = f->a};
    assert_int_equal(ddb_ent_create(f->db, &user_entity, &again, &o, NULL, &f->err), DDB_ECONDITION);
    assert_string_equal(f->err.message, "User already exists");
    assert_true(found);
    assert_string_equal(cur.email, "ann@example.com");
    assert_int_equal(cur.version, 1);
    /* put later, with created unset in the struct: the stored created-at stays */
    now_ms += 60000;
    struct user p = {.id = "ann", .email = "ann@example.com", .status = "away", .version = 1};
    OK(ddb_ent_put(f->db, &user_entity, &p, NULL, NULL, &f->err));
    it = raw(f, "USER#ann", "PROFILE");
    assert_int_equal(num(it, "created"), now_ms - 60000);
    assert_string_equal(str(it, "updated"), "2025-11-26T14:41:00.000Z");
    assert_string_equal(str(it, "status"), "away");
    assert_int_equal(num(it, "version"), 2);
    assert_null(ddb_item_get(it, "nick"));
    /* a stale put: the version message, and the stored item */
    p.version = 1;
    found = false;
    assert_int_equal(ddb_ent_put(f->db, &user_entity, &p, &o, NULL, &f->err), DDB_ECONDITION);
    assert_string_equal(f->err.message, "User: stored version is not 1 (changed by another writer)");
    assert_true(found);
    assert_int_equal(cur.version, 2);
}

/* patch updates only an existing item, never created-at; update-fields with
 * a mask writes only those fields; upsert creates or keeps create-only. */
static void test_patch_mask_upsert(void **state)
{
    fx *f = *state;
    struct user ghost = {.id = "ghost", .email = "g@example.com"};
    assert_int_equal(ddb_ent_patch(f->db, &user_entity, &ghost, NULL, NULL, &f->err), DDB_ENOTFOUND);
    assert_string_equal(f->err.message, "User not found");
    assert_null(raw(f, "USER#ghost", "PROFILE"));

    struct user u = {.id = "bob", .email = "bob@example.com", .logins = 1, .nick = "bobby"};
    OK(ddb_ent_create(f->db, &user_entity, &u, NULL, NULL, &f->err));
    int64_t created = u.created;
    now_ms += 1000;
    u.logins = 7;
    u.nick = NULL;
    u.created = 0;
    OK(ddb_ent_patch(f->db, &user_entity, &u, NULL, NULL, &f->err));
    ddb_item *it = raw(f, "USER#bob", "PROFILE");
    assert_int_equal(num(it, "logins"), 7);
    assert_null(ddb_item_get(it, "nick")); /* absent optional: removed */
    assert_int_equal(num(it, "created"), created);
    assert_int_equal(u.version, 2);

    /* update-fields with a mask: status only (logins in the struct is ignored) */
    u.logins = 99;
    strcpy(u.status, "gone");
    ddb_ent_mask m = DDB_FIELDS(U_STATUS);
    OK(ddb_ent_update_mask(f->db, &user_entity, &u, &m, NULL, NULL, &f->err));
    it = raw(f, "USER#bob", "PROFILE");
    assert_string_equal(str(it, "status"), "gone");
    assert_int_equal(num(it, "logins"), 7);
    /* a maintained field in the mask is refused */
    m = DDB_FIELDS(U_CREATED);
    assert_int_equal(ddb_ent_update_mask(f->db, &user_entity, &u, &m, NULL, NULL, &f->err), DDB_EVALIDATION);
    m = DDB_FIELDS(U_ID);
    assert_int_equal(ddb_ent_update_mask(f->db, &user_entity, &u, &m, NULL, NULL, &f->err), DDB_EVALIDATION);

    /* upsert: creates with default and created-at, then keeps them */
    struct user c = {.id = "cy", .email = "cy@example.com", .logins = 3};
    OK(ddb_ent_upsert(f->db, &user_entity, &c, NULL, NULL, &f->err));
    it = raw(f, "USER#cy", "PROFILE");
    assert_string_equal(str(it, "status"), "active");
    assert_int_equal(num(it, "created"), now_ms);
    assert_string_equal(str(it, "Type"), "User");
    now_ms += 5000;
    struct user c2 = {.id = "cy", .email = "cy@example.com", .logins = 4, .version = c.version};
    OK(ddb_ent_upsert(f->db, &user_entity, &c2, NULL, NULL, &f->err));
    it = raw(f, "USER#cy", "PROFILE");
    assert_int_equal(num(it, "logins"), 4);
    assert_int_equal(num(it, "created"), now_ms - 5000);
    assert_string_equal(str(it, "status"), "active"); /* default only when absent */
}

/* conditions with the caller's names and values, on put, delete, declared updates */
static void test_conditions(void **state)
{
    fx *f = *state;
    struct user u = {.id = "dee", .email = "dee@example.com", .logins = 5};
    OK(ddb_ent_create(f->db, &user_entity, &u, NULL, NULL, &f->err));
    ddb_ent_expr few = {.text = "#l < :max", .names = tu_item(f->a, "#l", 's', "logins", NULL),
                        .values = tu_item(f->a, ":max", 'i', (int64_t)3, NULL)};
    struct user cur;
    bool found;
    ddb_ent_opts o = {.condition = &few, .current = &cur, .current_found = &found, .current_arena = f->a};
    assert_int_equal(ddb_ent_delete(f->db, &user_entity, &u, &o, NULL, &f->err), DDB_ECONDITION);
    assert_string_equal(f->err.message, "User: the condition failed");
    assert_true(found);
    assert_int_equal(cur.logins, 5);
    assert_non_null(raw(f, "USER#dee", "PROFILE"));
    /* a declared update: ADD with its own value, version bumped, updated-at set */
    now_ms += 2000;
    ddb_ent_update_expr add = {.expr = {.text = "ADD logins :n", .values = tu_item(f->a, ":n", 'i', (int64_t)2, NULL)}};
    struct user after;
    u.version = 0; /* the key's version: 0 = not checked */
    OK(ddb_ent_update(f->db, &user_entity, &u, &add, 1, NULL, f->a, &after, NULL, &f->err));
    assert_int_equal(after.logins, 7);
    assert_int_equal(after.version, 2);
    assert_string_equal(after.updated, "2025-11-26T14:40:02.000Z");
    /* with a SET clause the runtime's assignments join it */
    ddb_ent_update_expr set = {.expr = {.text = "SET #s = :s REMOVE nick",
                                        .names = tu_item(f->a, "#s", 's', "status", NULL),
                                        .values = tu_item(f->a, ":s", 's', "busy", NULL)}};
    OK(ddb_ent_update(f->db, &user_entity, &u, &set, 1, NULL, f->a, &after, NULL, &f->err));
    assert_string_equal(after.status, "busy");
    assert_int_equal(after.version, 3);
    /* the key struct's version is checked when set */
    u.version = 1;
    assert_int_equal(ddb_ent_update(f->db, &user_entity, &u, &set, 1, NULL, NULL, NULL, NULL, &f->err),
                     DDB_ECONDITION);
    /* an update of nothing */
    struct user nobody = {.id = "nobody"};
    assert_int_equal(ddb_ent_update(f->db, &user_entity, &nobody, &add, 1, NULL, NULL, NULL, NULL, &f->err),
                     DDB_ENOTFOUND);
    /* reserved placeholders are refused */
    ddb_ent_expr bad = {.text = "#n0 < :v0", .names = tu_item(f->a, "#n0", 's', "logins", NULL),
                        .values = tu_item(f->a, ":v0", 'i', (int64_t)3, NULL)};
    o = (ddb_ent_opts){.condition = &bad};
    assert_int_equal(ddb_ent_delete(f->db, &user_entity, &u, &o, NULL, &f->err), DDB_EINVAL);
    assert_non_null(strstr(f->err.message, "reserved"));
    /* and a condition that holds */
    few.values = tu_item(f->a, ":max", 'i', (int64_t)100, NULL);
    o = (ddb_ent_opts){.condition = &few};
    OK(ddb_ent_delete(f->db, &user_entity, &u, &o, NULL, &f->err));
    assert_null(raw(f, "USER#dee", "PROFILE"));
}

/* a unique field: its item is claimed by create, moved by an update,
 * released by delete; a duplicate names the field and the value */
static void test_unique(void **state)
{
    fx *f = *state;
    struct user a = {.id = "a1", .email = "same@example.com"}, b = {.id = "b1", .email = "same@example.com"};
    OK(ddb_ent_create(f->db, &user_entity, &a, NULL, NULL, &f->err));
    ddb_item *claim = raw(f, "UNIQUE#User#email#same@example.com", "UNIQUE");
    assert_non_null(claim);
    assert_string_equal(str(claim, "owner"), "USER#a1|PROFILE");
    assert_string_equal(str(claim, "Type"), "ddb:unique");
    assert_int_equal(ddb_ent_create(f->db, &user_entity, &b, NULL, NULL, &f->err), DDB_ECONDITION);
    assert_string_equal(f->err.message, "User: email \"same@example.com\" is already taken (unique field)");
    assert_null(raw(f, "USER#b1", "PROFILE"));
    /* a moves to another address: the old one is free again */
    strcpy(a.email, "new@example.com");
    ddb_ent_mask m = DDB_FIELDS(U_EMAIL);
    OK(ddb_ent_update_mask(f->db, &user_entity, &a, &m, NULL, NULL, &f->err));
    assert_null(raw(f, "UNIQUE#User#email#same@example.com", "UNIQUE"));
    assert_non_null(raw(f, "UNIQUE#User#email#new@example.com", "UNIQUE"));
    OK(ddb_ent_create(f->db, &user_entity, &b, NULL, NULL, &f->err));
    /* in a transaction a duplicate cancels it, naming the field */
    ddb_ent_tx *tx = ddb_ent_tx_new(f->db, f->a, &f->err);
    struct user c = {.id = "c1", .email = "new@example.com"};
    OK(ddb_ent_tx_create(tx, &user_entity, &c, NULL, &f->err));
    assert_int_equal(ddb_ent_tx_commit(tx, NULL, NULL, &f->err), DDB_ECANCELED);
    assert_non_null(strstr(f->err.message, "(User) email \"new@example.com\" is already taken"));
    /* delete releases it */
    OK(ddb_ent_delete(f->db, &user_entity, &a, NULL, NULL, &f->err));
    assert_null(raw(f, "UNIQUE#User#email#new@example.com", "UNIQUE"));
}

/* ids drawn inside a transaction: a cancelled one consumes none */
static void test_auto_ids_in_transaction(void **state)
{
    fx *f = *state;
    struct ticket t1 = {.project = "p", .title = "one"}, t2 = {.project = "p", .title = "two"};
    ddb_ent_tx *tx = ddb_ent_tx_new(f->db, f->a, &f->err);
    OK(ddb_ent_tx_create(tx, &ticket_entity, &t1, NULL, &f->err));
    OK(ddb_ent_tx_create(tx, &ticket_entity, &t2, NULL, &f->err));
    assert_int_equal(t1.no, 1);
    assert_int_equal(t2.no, 2);
    OK(ddb_ent_tx_commit(tx, NULL, NULL, &f->err));
    assert_int_equal(num(raw(f, "TICKETS#p", "#COUNTER"), "Counter"), 2);
    /* cancelled by another operation: the counter stays, the id is cleared */
    struct ticket t3 = {.project = "p", .title = "three"};
    struct user nobody = {.id = "nobody"};
    tx = ddb_ent_tx_new(f->db, f->a, &f->err);
    OK(ddb_ent_tx_create(tx, &ticket_entity, &t3, NULL, &f->err));
    assert_int_equal(t3.no, 3);
    OK(ddb_ent_tx_require(tx, &user_entity, &nobody, true, &f->err));
    assert_int_equal(ddb_ent_tx_commit(tx, NULL, NULL, &f->err), DDB_ECANCELED);
    assert_int_equal(t3.no, 0);
    assert_int_equal(num(raw(f, "TICKETS#p", "#COUNTER"), "Counter"), 2);
    tx = ddb_ent_tx_new(f->db, f->a, &f->err);
    OK(ddb_ent_tx_create(tx, &ticket_entity, &t3, NULL, &f->err));
    OK(ddb_ent_tx_commit(tx, NULL, NULL, &f->err));
    assert_int_equal(t3.no, 3);
    /* a create alone draws the next one */
    struct ticket t4 = {.project = "p", .title = "four"};
    OK(ddb_ent_create(f->db, &ticket_entity, &t4, NULL, NULL, &f->err));
    assert_int_equal(t4.no, 4);
    /* ddb_ent_tx_new says why it fails */
    assert_null(ddb_ent_tx_new(f->db, NULL, &f->err));
    assert_int_equal(f->err.code, DDB_EINVAL);
    assert_string_equal(f->err.message, "transaction: an arena is required");
}

/* every write has a transaction form; a token makes the commit idempotent */
static void test_transaction_forms(void **state)
{
    fx *f = *state;
    struct user a = {.id = "ta", .email = "ta@example.com", .logins = 1};
    struct user b = {.id = "tb", .email = "tb@example.com", .logins = 1};
    OK(ddb_ent_create(f->db, &user_entity, &a, NULL, NULL, &f->err));
    OK(ddb_ent_create(f->db, &user_entity, &b, NULL, NULL, &f->err));
    ddb_ent_update_expr inc = {.expr = {.text = "ADD logins :one", .values = tu_item(f->a, ":one", 'i', (int64_t)1, NULL)}};
    ddb_ent_expr has_logins = {.text = "logins >= :min", .values = tu_item(f->a, ":min", 'i', (int64_t)1, NULL)};
    ddb_ent_tx_cond c = {.condition = &has_logins};
    for (int round = 0; round < 2; round++) { /* the same request twice, one token */
        ddb_ent_tx *tx = ddb_ent_tx_new(f->db, f->a, &f->err);
        struct user key = {.id = "ta"};
        OK(ddb_ent_tx_update(tx, &user_entity, &key, &inc, 1, &c, &f->err));
        struct user bk = {.id = "tb"};
        OK(ddb_ent_tx_check(tx, &user_entity, &bk, &c, &f->err));
        OK(ddb_ent_tx_commit(tx, &(ddb_ent_opts){.client_request_token = "order-1"}, NULL, &f->err));
    }
    assert_int_equal(num(raw(f, "USER#ta", "PROFILE"), "logins"), 2);
    /* update-fields and a conditional delete in one transaction; the failed
     * check returns the stored item */
    ddb_ent_tx *tx = ddb_ent_tx_new(f->db, f->a, &f->err);
    a.logins = 50;
    a.version = 0; /* the declared update bumped it: unknown here */
    ddb_ent_mask m = DDB_FIELDS(U_LOGINS);
    struct user got;
    bool found = false;
    ddb_ent_expr many = {.text = "logins > :n", .values = tu_item(f->a, ":n", 'i', (int64_t)10, NULL)};
    ddb_ent_tx_cond dc = {.condition = &many, .current = &got, .current_found = &found, .current_arena = f->a};
    OK(ddb_ent_tx_update_mask(tx, &user_entity, &a, &m, NULL, &f->err));
    OK(ddb_ent_tx_delete(tx, &user_entity, &b, &dc, &f->err));
    assert_int_equal(ddb_ent_tx_commit(tx, NULL, NULL, &f->err), DDB_ECANCELED);
    assert_true(found);
    assert_int_equal(got.logins, 1);
    assert_string_equal(got.email, "tb@example.com");
}

/* a version on shard A: updating shard B alone neither checks nor writes A */
static void test_sharded_version(void **state)
{
    fx *f = *state;
    struct device d = {.id = "d1", .battery = 90, .description = "sensor"};
    OK(ddb_ent_create(f->db, &device_entity, &d, NULL, NULL, &f->err));
    assert_int_equal(d.version, 1);
    assert_int_equal(num(raw(f, "DEVICE#d1", "DEVICE#A"), "version"), 1);
    assert_null(ddb_item_get(raw(f, "DEVICE#d1", "DEVICE#B"), "version"));
    /* shard B only: one UpdateItem of B, 1 WCU; A untouched */
    strcpy(d.description, "sensor v2");
    ddb_capacity cap;
    OK(ddb_ent_update_fields(f->db, &device_entity, &d, (const char *const[]){"description"}, 1,
                             &(ddb_ent_opts){.return_capacity = DDB_CAPACITY_TOTAL}, &cap, &f->err));
    assert_true(cap.write == 1.0);
    assert_int_equal(num(raw(f, "DEVICE#d1", "DEVICE#A"), "version"), 1);
    assert_int_equal(d.version, 1);
    /* shard A: checked and bumped */
    d.battery = 80;
    OK(ddb_ent_update_fields(f->db, &device_entity, &d, (const char *const[]){"battery"}, 1,
                             &(ddb_ent_opts){.return_capacity = DDB_CAPACITY_TOTAL}, &cap, &f->err));
    assert_true(cap.write == 1.0);
    assert_int_equal(d.version, 2);
    d.version = 1;
    d.battery = 70;
    assert_int_equal(ddb_ent_update_fields(f->db, &device_entity, &d, (const char *const[]){"battery"}, 1, NULL,
                                           NULL, &f->err),
                     DDB_ECONDITION);
    /* to_items: one item per shard; to_item refuses a sharded entity */
    ddb_item *items[4];
    size_t n = 0;
    OK(ddb_ent_to_items(&device_entity, &d, f->a, items, 4, &n, &f->err));
    assert_int_equal(n, 2);
    assert_string_equal(str(items[0], "SK"), "DEVICE#A");
    assert_non_null(ddb_item_get(items[0], "battery"));
    assert_null(ddb_item_get(items[0], "description"));
    assert_string_equal(str(items[1], "SK"), "DEVICE#B");
    assert_int_equal(ddb_ent_to_items(&device_entity, &d, f->a, items, 1, &n, &f->err), DDB_ELIMIT);
    ddb_item *one;
    assert_int_equal(ddb_ent_to_item(&device_entity, &d, f->a, &one, &f->err), DDB_EINVAL);
}

/* ddb_ent_update_declared with descriptors ddbgen would not write: refused
 * before anything is sent; and a caller's condition on the shard item an
 * update-fields does not write, checked there (a ConditionCheck in the same
 * transaction). */
static void test_declared_misuse_and_cross_shard(void **state)
{
    fx *f = *state;
    struct device d = {.id = "d2", .battery = 50, .description = "pump"};
    OK(ddb_ent_create(f->db, &device_entity, &d, NULL, NULL, &f->err));
    static const char *const names[] = {"#b"}, *const attrs[] = {"battery"};
    struct device vals = {.battery = 5};
    ddb_ent_arg args[] = {{.name = ":n", .field = 1, .obj = &vals}};
    ddb_ent_update_part bad_shard[] = {{.shard = 2, .set = "#b = #b + :n", .remove = "", .add = "", .del = ""}};
    ddb_ent_update_desc u = {.name = "bump", .parts = bad_shard, .n_parts = 1, .names = names, .attrs = attrs,
                             .n_names = 1};
    struct device key = {.id = "d2"};
    assert_int_equal(ddb_ent_update_declared(f->db, &device_entity, &u, &key, args, 1, NULL, NULL, NULL, NULL, &f->err),
                     DDB_EINVAL);
    assert_string_equal(f->err.message, "declared update bump of Device names shard 2 of 2");
    u.n_parts = 0;
    assert_int_equal(ddb_ent_update_declared(f->db, &device_entity, &u, &key, args, 1, NULL, NULL, NULL, NULL, &f->err),
                     DDB_EINVAL);
    ddb_ent_update_part two_a[] = {{.shard = 0, .set = "#b = :n", .remove = "", .add = "", .del = ""},
                                   {.shard = 0, .set = "#b = :n", .remove = "", .add = "", .del = ""}};
    u.parts = two_a;
    u.n_parts = 2;
    assert_int_equal(ddb_ent_update_declared(f->db, &device_entity, &u, &key, args, 1, NULL, NULL, NULL, NULL, &f->err),
                     DDB_EINVAL);
    assert_string_equal(f->err.message, "declared update bump of Device has two parts for shard 0");
    /* a placeholder without a value: named */
    u.n_parts = 1;
    assert_int_equal(ddb_ent_update_declared(f->db, &device_entity, &u, &key, NULL, 0, NULL, NULL, NULL, NULL, &f->err),
                     DDB_EVALIDATION);
    assert_non_null(strstr(f->err.message, ":n"));
    OK(ddb_ent_get(f->db, &device_entity, &key, NULL, f->a, &d, NULL, &f->err));
    assert_int_equal(d.battery, 50); /* nothing was written */
    /* update-fields of the description (shard B) when battery (shard A) > :min */
    ddb_item *vals2 = ddb_item_new(f->a);
    assert_int_equal(ddb_item_set_n(vals2, ":min", "60", &f->err), 0);
    ddb_ent_expr c = {.text = "battery > :min", .values = vals2, .shard = 0};
    strcpy(d.description, "pump v2");
    ddb_ent_opts o = {.condition = &c, .return_capacity = DDB_CAPACITY_TOTAL};
    ddb_capacity cap;
    assert_int_equal(ddb_ent_update_fields(f->db, &device_entity, &d, (const char *const[]){"description"}, 1, &o,
                                           &cap, &f->err),
                     DDB_ECONDITION);
    assert_string_equal(str(raw(f, "DEVICE#d2", "DEVICE#B"), "description"), "pump");
    assert_int_equal(ddb_item_set_n(vals2, ":min", "40", &f->err), 0);
    OK(ddb_ent_update_fields(f->db, &device_entity, &d, (const char *const[]){"description"}, 1, &o, &cap, &f->err));
    assert_true(cap.write == 4.0); /* TransactWriteItems: ConditionCheck of A (2) + Update of B (2) */
    assert_string_equal(str(raw(f, "DEVICE#d2", "DEVICE#B"), "description"), "pump v2");
    assert_int_equal(num(raw(f, "DEVICE#d2", "DEVICE#A"), "version"), 1); /* A was checked, not written */
}

/* batch delete, and one batch mixing entities: puts and deletes of
 * tickets and devices (every shard item) */
static void test_batches(void **state)
{
    fx *f = *state;
    struct ticket t[30];
    for (int i = 0; i < 30; i++) {
        t[i] = (struct ticket){.project = "b", .no = (uint64_t)i + 1};
        snprintf(t[i].title, sizeof t[i].title, "t%d", i);
    }
    ddb_capacity cap;
    OK(ddb_ent_batch_put(f->db, &ticket_entity, t, 30, &(ddb_ent_opts){.return_capacity = DDB_CAPACITY_TOTAL},
                         &cap, &f->err));
    assert_true(cap.write == 30.0);
    OK(ddb_ent_batch_delete(f->db, &ticket_entity, t, 28, NULL, NULL, &f->err));
    assert_null(raw(f, "PROJECT#b", "TICKET#000001"));
    assert_non_null(raw(f, "PROJECT#b", "TICKET#000029"));
    /* mixed: a device (2 shard items) and a ticket put, a ticket deleted */
    ddb_ent_batch *b = ddb_ent_batch_new(f->db, f->a, &f->err);
    struct device d = {.id = "bd", .battery = 5, .description = "x"};
    ddb_entity_desc unversioned = device_entity; /* a batch cannot check versions */
    ddb_field_desc df[4];
    memcpy(df, device_fields, sizeof df);
    df[3].flags = 0;
    ddb_struct_desc ds = {"device", sizeof(struct device), 4, df};
    unversioned.st = &ds;
    struct ticket nt = {.project = "b", .no = 100, .title = "new"};
    OK(ddb_ent_batch_add_put(b, &unversioned, &d, &f->err));
    OK(ddb_ent_batch_add_put(b, &ticket_entity, &nt, &f->err));
    OK(ddb_ent_batch_add_delete(b, &ticket_entity, &t[28], &f->err));
    OK(ddb_ent_batch_run(b, &(ddb_ent_opts){.return_capacity = DDB_CAPACITY_TOTAL}, &cap, &f->err));
    assert_true(cap.write == 4.0);
    assert_non_null(raw(f, "DEVICE#bd", "DEVICE#A"));
    assert_non_null(raw(f, "DEVICE#bd", "DEVICE#B"));
    assert_non_null(raw(f, "PROJECT#b", "TICKET#000100"));
    assert_null(raw(f, "PROJECT#b", "TICKET#000029"));
    /* refused: a version (put), a unique field (put and delete) */
    assert_int_equal(ddb_ent_batch_add_put(b, &device_entity, &d, &f->err), DDB_EVALIDATION);
    struct user u = {.id = "x"};
    assert_int_equal(ddb_ent_batch_add_delete(b, &user_entity, &u, &f->err), DDB_EVALIDATION);
    assert_non_null(strstr(f->err.message, "unique field (email)"));
    assert_int_equal(ddb_ent_batch_run(b, NULL, NULL, &f->err), DDB_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_create_defaults_timestamps, setup, teardown),
        cmocka_unit_test_setup_teardown(test_patch_mask_upsert, setup, teardown),
        cmocka_unit_test_setup_teardown(test_conditions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unique, setup, teardown),
        cmocka_unit_test_setup_teardown(test_auto_ids_in_transaction, setup, teardown),
        cmocka_unit_test_setup_teardown(test_transaction_forms, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sharded_version, setup, teardown),
        cmocka_unit_test_setup_teardown(test_batches, setup, teardown),
        cmocka_unit_test_setup_teardown(test_declared_misuse_and_cross_shard, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
