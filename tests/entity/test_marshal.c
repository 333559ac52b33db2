/* Entity descriptors: marshalling, key templates, errors (hand-written
 * descriptors of the shape ddbgen generates). */
#include <ddb/entity.h>

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

struct address {
    char city[16];
    char country[4];
};

struct user {
    char org[16];
    char username[16];
    char *email;
    int32_t logins;
    uint32_t id;
    bool active;
    ddb_bytes avatar;
    struct address home;
    struct address *past;
    size_t past_count;
    ddb_string_set tags;
    char order_date[11];
    char quarter[3];
    double score;
};

static const ddb_field_desc address_fields[] = {
    {.name = "city", .attr = "city", .type = DDB_F_CHARS, .size = 16, .offset = offsetof(struct address, city), .shard = -1},
    {.name = "country", .attr = "country", .type = DDB_F_CHARS, .size = 4, .offset = offsetof(struct address, country), .shard = -1},
};
static const ddb_struct_desc address_desc = {"address", sizeof(struct address), 2, address_fields};

static const ddb_tseg quarter_segs[] = {{.path = (const uint16_t[]){11}, .path_len = 1, .part = DDB_TP_QUARTER}};
static const ddb_template quarter_tmpl = {quarter_segs, 1, DDB_TS};

static const ddb_field_desc user_fields[] = {
    {.name = "org", .attr = "org", .type = DDB_F_CHARS, .size = 16, .offset = offsetof(struct user, org), .flags = DDB_FIELD_KEY, .shard = -1},
    {.name = "username", .attr = "username", .type = DDB_F_CHARS, .size = 16, .offset = offsetof(struct user, username), .flags = DDB_FIELD_KEY, .shard = -1},
    {.name = "email", .attr = "email", .type = DDB_F_STRING, .size = sizeof(char *), .offset = offsetof(struct user, email), .flags = DDB_FIELD_OPTIONAL, .shard = -1},
    {.name = "logins", .attr = "logins", .type = DDB_F_INT, .size = 4, .offset = offsetof(struct user, logins), .shard = -1},
    {.name = "id", .attr = "id", .type = DDB_F_UINT, .size = 4, .offset = offsetof(struct user, id), .shard = -1},
    {.name = "active", .attr = "active", .type = DDB_F_BOOL, .size = 1, .offset = offsetof(struct user, active), .shard = -1},
    {.name = "avatar", .attr = "av", .type = DDB_F_BYTES, .size = sizeof(ddb_bytes), .offset = offsetof(struct user, avatar), .flags = DDB_FIELD_OPTIONAL, .shard = -1},
    {.name = "home", .attr = "home", .type = DDB_F_STRUCT, .size = sizeof(struct address), .offset = offsetof(struct user, home), .sub = &address_desc, .shard = -1},
    {.name = "past", .attr = "past", .type = DDB_F_LIST, .elem_type = DDB_F_STRUCT, .elem_size = sizeof(struct address), .offset = offsetof(struct user, past), .count_offset = offsetof(struct user, past_count), .sub = &address_desc, .flags = DDB_FIELD_OPTIONAL, .shard = -1},
    {.name = "tags", .attr = "tags", .type = DDB_F_SSET, .size = sizeof(ddb_string_set), .offset = offsetof(struct user, tags), .flags = DDB_FIELD_OPTIONAL, .shard = -1},
    {.name = "score", .attr = "score", .type = DDB_F_FLOAT, .size = 8, .offset = offsetof(struct user, score), .shard = -1},
    {.name = "order_date", .attr = "OrderDate", .type = DDB_F_CHARS, .size = 11, .offset = offsetof(struct user, order_date), .shard = -1},
    {.name = "quarter", .attr = "Quarter", .type = DDB_F_CHARS, .size = 3, .offset = offsetof(struct user, quarter), .flags = DDB_FIELD_DERIVED, .derived = &quarter_tmpl, .shard = -1},
};
/* note: quarter_segs path {11} is order_date's index */
static const ddb_struct_desc user_desc = {"user", sizeof(struct user), 13, user_fields};

static const ddb_tseg pk_segs[] = {{.lit = "ORG#"}, {.path = (const uint16_t[]){0}, .path_len = 1, .kase = DDB_TC_UPPER}};
static const ddb_tseg sk_segs[] = {{.lit = "USER#"}, {.path = (const uint16_t[]){1}, .path_len = 1}, {.lit = "#"},
                                   {.path = (const uint16_t[]){4}, .path_len = 1, .pad = 6}};
static const ddb_tseg g1pk_segs[] = {{.lit = "EMAIL#"}, {.path = (const uint16_t[]){2}, .path_len = 1, .kase = DDB_TC_LOWER}};
static const ddb_tseg g1sk_segs[] = {{.path = (const uint16_t[]){7, 1}, .path_len = 2}, {.lit = "#{"},
                                     {.path = (const uint16_t[]){11}, .path_len = 1, .part = DDB_TP_YEAR}, {.lit = "}"}};
static const ddb_tseg year_segs[] = {{.path = (const uint16_t[]){3}, .path_len = 1}};

static const ddb_key_desc user_keys[] = {
    {NULL, "PK", "SK", {pk_segs, 2, DDB_TS}, {sk_segs, 4, DDB_TS}, -1, false},
    {"GSI1", "GSI1PK", "GSI1SK", {g1pk_segs, 2, DDB_TS}, {g1sk_segs, 4, DDB_TS}, -1, false},
    {"ByLogins", "Logins", NULL, {year_segs, 1, DDB_TN}, {NULL, 0, 0}, -1, false},
};
static const ddb_schema_table shop = {"shop", "Type", {.name = "Shop", .key = {.pk = "PK", .pk_type = DDB_TS, .sk = "SK", .sk_type = DDB_TS}}};
static const ddb_entity_desc user_entity = {"User", &shop, &user_desc, 3, user_keys, 0, NULL, NULL, NULL, NULL};

static struct user sample(void)
{
    static char *tags[] = {"b", "a"};
    static uint8_t av[] = {1, 2, 3};
    static struct address past[] = {{"Paris", "FR"}, {"Oslo", "NO"}};
    struct user u = {.org = "acme", .username = "ann", .email = "Ann@X.org", .logins = -5, .id = 42, .active = true,
                     .avatar = {av, 3}, .home = {"Lyon", "FR"}, .past = past, .past_count = 2, .tags = {tags, 2},
                     .order_date = "2022-11-01", .score = 2.5};
    return u;
}

static void test_to_item(void **state)
{
    (void)state;
    ddb_arena *a = ddb_arena_new();
    struct user u = sample();
    ddb_item *it;
    ddb_error err = {0};
    assert_int_equal(ddb_ent_to_item(&user_entity, &u, a, &it, &err), 0);
    assert_string_equal(ddb_item_get(it, "PK")->u.s, "ORG#ACME");
    assert_string_equal(ddb_item_get(it, "SK")->u.s, "USER#ann#000042");
    assert_string_equal(ddb_item_get(it, "GSI1PK")->u.s, "EMAIL#ann@x.org");
    assert_string_equal(ddb_item_get(it, "GSI1SK")->u.s, "FR#{2022}");
    assert_int_equal(ddb_item_get(it, "Logins")->type, DDB_TN);
    assert_string_equal(ddb_item_get(it, "Logins")->u.s, "-5");
    assert_string_equal(ddb_item_get(it, "Type")->u.s, "User");
    assert_string_equal(ddb_item_get(it, "Quarter")->u.s, "Q4");
    assert_string_equal(ddb_item_get(it, "score")->u.s, "2.5");
    assert_int_equal(ddb_item_get(it, "tags")->len, 2);
    assert_string_equal(ddb_item_get(it, "tags")->u.set[0]->u.s, "a");
    assert_int_equal(ddb_item_get(it, "av")->len, 3);
    const ddb_value *past = ddb_item_get(it, "past");
    assert_int_equal(past->type, DDB_TL);
    assert_int_equal(past->len, 2);
    assert_string_equal(ddb_map_get(past->u.l[1], "city")->u.s, "Oslo");
    assert_string_equal(ddb_map_get(ddb_item_get(it, "home"), "country")->u.s, "FR");

    /* back again */
    struct user v;
    assert_int_equal(ddb_ent_from_item(&user_entity, it, a, &v, &err), 0);
    assert_string_equal(v.org, "acme");
    assert_string_equal(v.email, "Ann@X.org");
    assert_int_equal(v.logins, -5);
    assert_int_equal(v.id, 42);
    assert_true(v.active);
    assert_int_equal(v.avatar.len, 3);
    assert_int_equal(v.past_count, 2);
    assert_string_equal(v.past[0].city, "Paris");
    assert_int_equal(v.tags.count, 2);
    assert_string_equal(v.quarter, "Q4");
    assert_true(v.score == 2.5);

    /* sparse: no email -> not in GSI1 */
    u.email = NULL;
    assert_int_equal(ddb_ent_to_item(&user_entity, &u, a, &it, &err), 0);
    assert_null(ddb_item_get(it, "GSI1PK"));
    assert_null(ddb_item_get(it, "GSI1SK"));
    assert_null(ddb_item_get(it, "email"));
    ddb_arena_free(a);
}

static void test_errors(void **state)
{
    (void)state;
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    ddb_item *it;
    struct user u = sample();
    memset(u.username, 'x', sizeof u.username); /* no NUL */
    assert_int_equal(ddb_ent_to_item(&user_entity, &u, a, &it, &err), DDB_EVALIDATION);
    assert_string_equal(err.message, "field username is not NUL-terminated within its 16 bytes (at most 15 characters)");
    u = sample();
    strcpy(u.order_date, "Nov 2022");
    assert_int_equal(ddb_ent_to_item(&user_entity, &u, a, &it, &err), DDB_EVALIDATION);
    assert_string_equal(err.message, "field order_date = \"Nov 2022\" is not an ISO-8601 date (YYYY-MM-DD...)");
    u = sample();
    static char *dup[] = {"a", "a"};
    u.tags = (ddb_string_set){dup, 2};
    assert_int_equal(ddb_ent_to_item(&user_entity, &u, a, &it, &err), DDB_EVALIDATION);
    assert_string_equal(err.message, "field tags: Input collection contains duplicates (element 1)");

    /* reading: wrong type, too long, missing, out of range */
    u = sample();
    assert_int_equal(ddb_ent_to_item(&user_entity, &u, a, &it, &err), 0);
    struct user v;
    ddb_item_set_s(it, "Type", "Order");
    assert_int_equal(ddb_ent_from_item(&user_entity, it, a, &v, &err), DDB_EVALIDATION);
    assert_string_equal(err.message, "item has Type = \"Order\", expected \"User\"");
    ddb_item_set_s(it, "Type", "User");
    ddb_item_set_s(it, "username", "a-name-that-is-too-long");
    assert_int_equal(ddb_ent_from_item(&user_entity, it, a, &v, &err), DDB_EVALIDATION);
    assert_string_equal(err.message,
                        "attribute username is 23 bytes, longer than field username holds (at most 15)");
    ddb_item_set_s(it, "username", "ann");
    ddb_item_remove(it, "logins");
    assert_int_equal(ddb_ent_from_item(&user_entity, it, a, &v, &err), DDB_EVALIDATION);
    assert_string_equal(err.message, "required attribute logins (field logins of user) is missing");
    ddb_item_set_i64(it, "logins", 5000000000LL);
    assert_int_equal(ddb_ent_from_item(&user_entity, it, a, &v, &err), DDB_EVALIDATION);
    assert_string_equal(err.message, "attribute logins = 5000000000 does not fit field logins (4-byte integer)");
    ddb_item_set_s(it, "logins", "5");
    assert_int_equal(ddb_ent_from_item(&user_entity, it, a, &v, &err), DDB_EVALIDATION);
    assert_string_equal(err.message, "attribute logins (field logins) is S, expected N");
    ddb_arena_free(a);
}

/* Integer fields of every width and signedness go through one accessor:
 * the extremes survive the round trip, a value too wide for its field is
 * refused naming it. */
struct widths {
    char id[8];
    int8_t i8;
    int16_t i16;
    int32_t i32;
    int64_t i64;
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64;
};

#define WIDTH_FIELD(f, t)                                                                                            \
    {.name = #f, .attr = #f, .type = t, .size = sizeof(((struct widths *)0)->f), .offset = offsetof(struct widths, f), \
     .shard = -1}
static const ddb_field_desc widths_fields[] = {
    {.name = "id", .attr = "id", .type = DDB_F_CHARS, .size = 8, .offset = offsetof(struct widths, id),
     .flags = DDB_FIELD_KEY, .shard = -1},
    WIDTH_FIELD(i8, DDB_F_INT),   WIDTH_FIELD(i16, DDB_F_INT),  WIDTH_FIELD(i32, DDB_F_INT),
    WIDTH_FIELD(i64, DDB_F_INT),  WIDTH_FIELD(u8, DDB_F_UINT),  WIDTH_FIELD(u16, DDB_F_UINT),
    WIDTH_FIELD(u32, DDB_F_UINT), WIDTH_FIELD(u64, DDB_F_UINT),
};
static const ddb_struct_desc widths_desc = {"widths", sizeof(struct widths), 9, widths_fields};
static const ddb_tseg wpk_segs[] = {{.path = (const uint16_t[]){0}, .path_len = 1}};
static const ddb_tseg wsk_segs[] = {{.lit = "W#"}, {.path = (const uint16_t[]){8}, .path_len = 1}};
static const ddb_key_desc widths_keys[] = {{NULL, "PK", "SK", {wpk_segs, 1, DDB_TS}, {wsk_segs, 2, DDB_TS}, -1, false}};
static const ddb_entity_desc widths_entity = {"Widths", &shop, &widths_desc, 1, widths_keys, 0, NULL, NULL, NULL, NULL};

static void test_integer_widths(void **state)
{
    (void)state;
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    ddb_item *it;
    struct widths w = {"w1", INT8_MIN, INT16_MIN, INT32_MIN, INT64_MIN, UINT8_MAX, UINT16_MAX, UINT32_MAX, UINT64_MAX};
    assert_int_equal(ddb_ent_to_item(&widths_entity, &w, a, &it, &err), 0);
    const char *want[][2] = {{"i8", "-128"},       {"i16", "-32768"},   {"i32", "-2147483648"},
                             {"i64", "-9223372036854775808"},           {"u8", "255"},
                             {"u16", "65535"},     {"u32", "4294967295"}, {"u64", "18446744073709551615"},
                             {"SK", "W#18446744073709551615"}};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        assert_string_equal(ddb_item_get(it, want[i][0])->u.s, want[i][1]);
    struct widths back;
    assert_int_equal(ddb_ent_from_item(&widths_entity, it, a, &back, &err), 0);
    assert_string_equal(back.id, w.id);
    assert_true(back.i8 == w.i8 && back.i16 == w.i16 && back.i32 == w.i32 && back.i64 == w.i64);
    assert_true(back.u8 == w.u8 && back.u16 == w.u16 && back.u32 == w.u32 && back.u64 == w.u64);

    ddb_value *n;
    assert_int_equal(ddb_v_n(a, "256", &n, &err), 0);
    assert_int_equal(ddb_item_set(it, "u8", n), 0);
    assert_int_equal(ddb_ent_from_item(&widths_entity, it, a, &back, &err), DDB_EVALIDATION);
    assert_string_equal(err.message, "attribute u8 = 256 does not fit field u8 (1-byte unsigned integer)");
    ddb_arena_free(a);
}

/* A callee's reason keeps its words when the caller adds the field name. */
static void test_float_reason(void **state)
{
    (void)state;
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    ddb_item *it;
    struct user u = sample();
    u.score = NAN;
    assert_int_equal(ddb_ent_to_item(&user_entity, &u, a, &it, &err), DDB_EVALIDATION);
    assert_non_null(strstr(err.message, "field score: "));
    assert_non_null(strstr(err.message, "NaN (a double that is not a number)"));
    assert_int_equal(ddb_ent_to_item(&user_entity, &u, a, &it, NULL), DDB_EVALIDATION); /* no ddb_error */
    ddb_arena_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_to_item), cmocka_unit_test(test_errors),
                                       cmocka_unit_test(test_integer_widths), cmocka_unit_test(test_float_reason)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
