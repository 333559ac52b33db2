/* test_model.c — the library: libclang front-end -> model (golden), JSON
 * front-end round trip, derived members recomputed, model-file errors, and
 * validation through the JSON front-end.
 *
 * Runs in this folder (GEN_TEST_DIR) so recorded paths are "schemas/...".
 * DDBGEN_UPDATE_GOLDEN=1 rewrites schemas/shop.model.json instead. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <unistd.h>

#include "gen_test_util.h"
#include "library.h"
#include "model.h"

#define SCHEMA "schemas/shop.h"
#define GOLDEN "schemas/shop.model.json"

static ddbgen_context *new_context(void)
{
    ddbgen_options o;
    ddbgen_options_init(&o);
    ddbgen_context *cx = ddbgen_create(&o);
    assert_non_null(cx);
    return cx;
}

static void expect_diags(ddbgen_context *cx, const char *expected)
{
    char *d = ddbgen_diagnostics_string(cx);
    assert_non_null(d);
    if (strcmp(d, expected) != 0)
        fprintf(stderr, "diagnostics:\n%s--- expected:\n%s", d, expected);
    assert_string_equal(d, expected);
    free(d);
}

/* Validated model text of path, with no diagnostics at all. */
static char *model_text(const char *path)
{
    ddbgen_context *cx = new_context();
    assert_int_equal(ddbgen_parse_file(cx, path), DDBGEN_OK);
    assert_int_equal(ddbgen_validate(cx), DDBGEN_OK);
    expect_diags(cx, "");
    char *text = ddbgen_model_to_string(ddbgen_model(cx));
    assert_non_null(text);
    ddbgen_destroy(cx);
    return text;
}

static void compare_golden(const char *what, const char *text)
{
    if (gen_update_golden()) {
        assert_int_equal(gen_write_file(GOLDEN, text), 0);
        return;
    }
    char *golden = gen_read_file(GOLDEN);
    assert_non_null(golden);
    if (strcmp(golden, text) != 0)
        gen_show_diff(what, golden, text);
    assert_string_equal(golden, text);
    free(golden);
}

static void header_matches_golden(void **state)
{
    (void)state;
    char *text = model_text(SCHEMA);
    compare_golden(SCHEMA, text);
    free(text);
}

static void json_round_trip(void **state)
{
    (void)state;
    char *text = model_text(GOLDEN);
    compare_golden("model.json in -> model out", text);
    free(text);
}

/* Keys of fields (DDB_KEY_FIELDS) survive the model: header -> model ->
 * model file -> the same model, with the index's derived parts. */
static void key_fields_round_trip(void **state)
{
    (void)state;
    char *text = model_text("../e2e/key_fields/key_fields.h");
    assert_non_null(strstr(text, "\"pk_fields\""));
    assert_non_null(strstr(text, "\"sk_parts\""));
    char path[] = "/tmp/ddbgen-key-fields-XXXXXX.json";
    int fd = mkstemps(path, 5);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(gen_write_file(path, text), 0);
    char *again = model_text(path);
    assert_string_equal(text, again);
    unlink(path);
    free(text);
    free(again);
}

static void absolute_path_is_recorded_relative(void **state)
{
    (void)state;
    char cwd[4096], abs_path[4200];
    assert_non_null(getcwd(cwd, sizeof cwd));
    snprintf(abs_path, sizeof abs_path, "%s/%s", cwd, SCHEMA);
    char *a = model_text(abs_path), *b = model_text("./" SCHEMA);
    char *golden = gen_read_file(GOLDEN);
    assert_string_equal(a, golden);
    assert_string_equal(b, golden);
    free(a);
    free(b);
    free(golden);
}

static void schema_base_name(void **state)
{
    (void)state;
    ddbgen_context *cx = new_context();
    assert_int_equal(ddbgen_parse_file(cx, SCHEMA), DDBGEN_OK);
    assert_string_equal(ddbgen_schema_base(cx), "shop");
    /* one schema per context */
    assert_int_equal(ddbgen_parse_file(cx, SCHEMA), DDBGEN_EUSAGE);
    ddbgen_destroy(cx);
}

/* Loads the golden model, applies edit, validates through the JSON front-end. */
static ddbgen_context *load_edited(void (*edit)(json_t *model), int expect_rc)
{
    json_error_t je;
    json_t *doc = json_load_file(GOLDEN, 0, &je);
    assert_non_null(doc);
    edit(doc);
    ddbgen_context *cx = new_context();
    int rc = ddbgen_load_model_json(cx, doc, "edited.json");
    if (rc == DDBGEN_OK)
        rc = ddbgen_validate(cx);
    json_decref(doc);
    assert_int_equal(rc, expect_rc);
    return cx;
}

static json_t *entity(json_t *m, size_t i)
{
    return json_array_get(json_object_get(m, "entities"), i);
}

/* Derived members in a model file are ignored and recomputed. */
static void scramble_derived(json_t *m)
{
    json_t *user = entity(m, 1);
    json_t *pk = json_object_get(json_array_get(json_object_get(user, "keys"), 0), "pk");
    json_object_set_new(pk, "segments", json_string("garbage"));
    json_object_set_new(pk, "type", json_string("N"));
    json_object_del(m, "collections");
    json_object_set_new(m, "unknown_member", json_true());
    json_t *idx = json_object_get(json_array_get(json_object_get(m, "tables"), 0), "indexes");
    json_object_del(json_object_get(json_array_get(idx, 0), "pk"), "type");
}

static void derived_members_are_recomputed(void **state)
{
    (void)state;
    ddbgen_context *cx = load_edited(scramble_derived, DDBGEN_OK);
    char *text = ddbgen_model_to_string(ddbgen_model(cx));
    char *golden = gen_read_file(GOLDEN);
    assert_string_equal(text, golden);
    free(text);
    free(golden);
    ddbgen_destroy(cx);
}

/* A model edited by hand is validated like a header, at the recorded locations. */
static void break_template(json_t *m)
{
    json_t *user = entity(m, 1);
    json_t *pk = json_object_get(json_array_get(json_object_get(user, "keys"), 0), "pk");
    json_object_set_new(pk, "template", json_string("ORG#{orgg}"));
}

static void json_model_is_validated(void **state)
{
    (void)state;
    ddbgen_context *cx = load_edited(break_template, DDBGEN_ESCHEMA);
    /* the literal's quote is at 28:25; the hole starts 4 bytes into it */
    expect_diags(cx, "schemas/shop.h:28:30: error: unknown field 'orgg' in the partition key "
                     "template of 'User' on index 'table'; did you mean 'org'?\n");
    ddbgen_destroy(cx);
}

static void drop_type(json_t *m)
{
    json_t *f = json_array_get(json_object_get(entity(m, 0), "fields"), 1);
    json_object_del(f, "type");
    json_object_set_new(f, "optional", json_string("no"));
    json_object_set_new(json_array_get(json_object_get(m, "tables"), 1), "indexes", json_integer(3));
}

static void json_shape_errors(void **state)
{
    (void)state;
    ddbgen_context *cx = load_edited(drop_type, DDBGEN_ESCHEMA);
    /* tables are checked before entities */
    expect_diags(cx, "edited.json: error: tables[1].indexes: must be an array\n"
                     "edited.json: error: entities[0].fields[1]: missing \"type\"\n"
                     "edited.json: error: entities[0].fields[1].optional: must be true or false\n");
    ddbgen_destroy(cx);
}

/* A file of this test's own in $TMPDIR (or /tmp): the process id keeps runs
 * of several checkouts apart. */
static void scratch_path(char *out, size_t cap, const char *what)
{
    const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(out, cap, "%s/ddbgen_test_%s_%ld.json", base, what, (long)getpid());
}

static void json_syntax_error(void **state)
{
    (void)state;
    char path[128], expected[256];
    scratch_path(path, sizeof path, "bad_syntax");
    assert_int_equal(gen_write_file(path, "{\n  \"model_version\": 1,\n  \"tables\": [,]\n}\n"), 0);
    ddbgen_context *cx = new_context();
    assert_int_equal(ddbgen_parse_file(cx, path), DDBGEN_ESCHEMA);
    snprintf(expected, sizeof expected, "%s:3:14: error: invalid JSON: unexpected token near ','\n",
             path);
    expect_diags(cx, expected);
    ddbgen_destroy(cx);
    unlink(path);
}

static void wrong_model_version(void **state)
{
    (void)state;
    json_t *doc = json_pack("{s:i}", "model_version", 2);
    ddbgen_context *cx = new_context();
    assert_int_equal(ddbgen_load_model_json(cx, doc, "v2.json"), DDBGEN_ESCHEMA);
    expect_diags(cx, "v2.json: error: \"model_version\" must be 1; this model was written by an "
                     "incompatible ddbgen\n");
    json_decref(doc);
    ddbgen_destroy(cx);
}

/* --check-compat refuses an old model that does not validate. */
static void invalid_old_model(void **state)
{
    (void)state;
    char path[128], expected[512];
    scratch_path(path, sizeof path, "old_model");
    json_error_t je;
    json_t *doc = json_load_file(GOLDEN, 0, &je);
    assert_non_null(doc);
    break_template(doc);
    assert_int_equal(json_dump_file(doc, path, JSON_INDENT(2)), 0);
    json_decref(doc);
    ddbgen_context *cx = new_context();
    assert_int_equal(ddbgen_parse_file(cx, SCHEMA), DDBGEN_OK);
    assert_int_equal(ddbgen_validate(cx), DDBGEN_OK);
    assert_int_equal(ddbgen_check_compat(cx, path), DDBGEN_ESCHEMA);
    snprintf(expected, sizeof expected,
             "%s: error: the old model does not validate; write it again with --emit-model from "
             "the old schema\n"
             "schemas/shop.h:28:30: error: unknown field 'orgg' in the partition key template of "
             "'User' on index 'table'; did you mean 'org'?\n",
             path);
    expect_diags(cx, expected);
    ddbgen_destroy(cx);
    unlink(path);
}

/* The golden schema is compatible with its own model. */
static void self_compatible(void **state)
{
    (void)state;
    ddbgen_context *cx = new_context();
    assert_int_equal(ddbgen_parse_file(cx, SCHEMA), DDBGEN_OK);
    assert_int_equal(ddbgen_validate(cx), DDBGEN_OK);
    assert_int_equal(ddbgen_check_compat(cx, GOLDEN), DDBGEN_OK);
    expect_diags(cx, "");
    ddbgen_destroy(cx);
}

/* The lowering step: the IR of shop.h holds the derived facts as typed
 * references (checked here on the parts the back-end relies on). */
static const ddbgen_ir_entity *ir_entity(const ddbgen_ir *ir, const char *name)
{
    for (size_t i = 0; i < ir->n_entities; i++)
        if (!strcmp(ir->entities[i].name, name))
            return &ir->entities[i];
    fail_msg("no entity %s", name);
    return NULL;
}

static void lowered_ir(void **state)
{
    (void)state;
    ddbgen_context *cx = new_context();
    assert_int_equal(ddbgen_parse_file(cx, SCHEMA), DDBGEN_OK);
    assert_null(ddbgen_ir_of(cx));
    assert_int_equal(ddbgen_validate(cx), DDBGEN_OK);
    const ddbgen_ir *ir = ddbgen_ir_of(cx);
    assert_non_null(ir);
    assert_int_equal(ir->n_tables, 2);
    const ddbgen_ir_table *shop = &ir->tables[0];
    assert_string_equal(shop->ttl_attr, "expires_at");
    assert_int_equal(shop->n_indexes, 4);
    assert_int_equal(shop->indexes[1].pk.type, DDBGEN_IR_N); /* ByYear's "{year}" */
    assert_int_equal(shop->indexes[3].kind, DDBGEN_IR_LSI);
    assert_string_equal(shop->indexes[3].pk.attr, "PK");
    assert_int_equal(shop->n_entities, 4);

    const ddbgen_ir_entity *user = ir_entity(ir, "User");
    assert_ptr_equal(user->table, shop);
    assert_ptr_equal(user->keys[0].index, &shop->primary);
    assert_int_equal(user->n_key_params, 2);
    assert_string_equal(user->key_params[0].path, "org");
    assert_string_equal(user->key_params[1].path, "username");
    const ddbgen_ir_template *lsi_sk = &user->keys[3].sk; /* "{home.country|upper}#{created_at:020}" */
    assert_int_equal(lsi_sk->n_segs, 3);
    assert_int_equal(lsi_sk->segs[0].path_len, 2);
    assert_string_equal(lsi_sk->segs[0].field->name, "country");
    assert_int_equal(lsi_sk->segs[0].kase, DDBGEN_CASE_UPPER);
    assert_string_equal(lsi_sk->segs[1].lit, "#");
    assert_int_equal(lsi_sk->segs[2].pad, 20);

    const ddbgen_ir_entity *product = ir_entity(ir, "Product");
    assert_int_equal(product->n_shards, 2);
    assert_string_equal(product->shard_suffix, "~");
    assert_ptr_equal(product->fields[3].shard, &product->shards[1]); /* stock: "B" */
    assert_ptr_equal(product->keys[1].shard, &product->shards[1]);   /* GSI1 uses views */
    assert_true(product->fields[0].key);

    const ddbgen_ir_entity *order = ir_entity(ir, "Order");
    assert_non_null(order->auto_scope);
    assert_true(order->fields[3].derived->numeric); /* year */
    assert_false(order->fields[3].updatable);

    assert_int_equal(ir->n_collections, 1);
    assert_int_equal(ir->collections[0].n_members, 3);
    assert_ptr_equal(ir->collections[0].members[1].entity, user);
    assert_int_equal(ir->collections[0].n_params, 1);
    ddbgen_destroy(cx);
}

static void missing_input(void **state)
{
    (void)state;
    ddbgen_context *cx = new_context();
    assert_int_equal(ddbgen_parse_file(cx, "schemas/no_such.h"), DDBGEN_EUSAGE);
    expect_diags(cx, "ddbgen: error: cannot read 'schemas/no_such.h': No such file or directory\n");
    ddbgen_destroy(cx);
}

int main(void)
{
    if (chdir(GEN_TEST_DIR) != 0) {
        perror(GEN_TEST_DIR);
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(header_matches_golden),
        cmocka_unit_test(json_round_trip),
        cmocka_unit_test(absolute_path_is_recorded_relative),
        cmocka_unit_test(schema_base_name),
        cmocka_unit_test(derived_members_are_recomputed),
        cmocka_unit_test(json_model_is_validated),
        cmocka_unit_test(json_shape_errors),
        cmocka_unit_test(json_syntax_error),
        cmocka_unit_test(wrong_model_version),
        cmocka_unit_test(invalid_old_model),
        cmocka_unit_test(self_compatible),
        cmocka_unit_test(missing_input),
        cmocka_unit_test(lowered_ir),
        cmocka_unit_test(key_fields_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
