/* libFuzzer target: prepare any text as any kind of expression, and run
 * whatever prepares against a fixed item, fixed names and fixed values.
 * Input: first byte picks the kind (mod 5), the rest is the text. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "expr/expr.h"

static ddb_value *num(ddb_arena *a, const char *t)
{
    ddb_value *v = NULL;
    ddb_v_n(a, t, &v, NULL);
    return v;
}

static ddb_value *set_of(ddb_arena *a, ddb_type t, const char *x, const char *y)
{
    ddb_value *s = ddb_v_set(a, t);
    ddb_set_add(a, s, t == DDB_TNS ? num(a, x) : t == DDB_TSS ? ddb_v_str(a, x) : ddb_v_b(a, x, strlen(x)), NULL);
    ddb_set_add(a, s, t == DDB_TNS ? num(a, y) : t == DDB_TSS ? ddb_v_str(a, y) : ddb_v_b(a, y, strlen(y)), NULL);
    return s;
}

static ddb_item *fixed_item(ddb_arena *a)
{
    ddb_item *it = ddb_item_new(a);
    ddb_item_set_s(it, "pk", "p");
    ddb_item_set(it, "sk", num(a, "7"));
    ddb_item_set_s(it, "s", "hello");
    ddb_item_set(it, "n", num(a, "-12.5"));
    ddb_item_set_b(it, "b", "\x00\x01\xff", 3);
    ddb_item_set_bool(it, "t", true);
    ddb_item_set(it, "z", ddb_v_null(a));
    ddb_value *l = ddb_v_list(a), *inner = ddb_v_list(a), *m = ddb_v_map(a), *mm = ddb_v_map(a);
    ddb_list_append(a, inner, num(a, "3"));
    ddb_list_append(a, l, num(a, "1"));
    ddb_list_append(a, l, ddb_v_str(a, "two"));
    ddb_list_append(a, l, inner);
    ddb_map_set(a, mm, "z", ddb_v_str(a, "deep"));
    ddb_map_set(a, m, "x", num(a, "1"));
    ddb_map_set(a, m, "y", mm);
    ddb_map_set(a, m, "b.c", ddb_v_list(a));
    ddb_item_set(it, "l", l);
    ddb_item_set(it, "m", m);
    ddb_item_set(it, "ss", set_of(a, DDB_TSS, "a", "b"));
    ddb_item_set(it, "ns", set_of(a, DDB_TNS, "1", "2"));
    ddb_item_set(it, "bs", set_of(a, DDB_TBS, "x", "y"));
    return it;
}

static ddb_item *fixed_values(ddb_arena *a)
{
    ddb_item *v = ddb_item_new(a);
    ddb_item_set_s(v, ":s", "he");
    ddb_item_set_s(v, ":t", "SS");
    ddb_item_set(v, ":n", num(a, "1"));
    ddb_item_set(v, ":n2", num(a, "99999999999999999999999999999999999999"));
    ddb_item_set_b(v, ":b", "\x00", 1);
    ddb_item_set_bool(v, ":bool", false);
    ddb_item_set(v, ":null", ddb_v_null(a));
    ddb_value *l = ddb_v_list(a);
    ddb_list_append(a, l, num(a, "5"));
    ddb_item_set(v, ":l", l);
    ddb_value *m = ddb_v_map(a);
    ddb_map_set(a, m, "k", ddb_v_str(a, "v"));
    ddb_item_set(v, ":m", m);
    ddb_item_set(v, ":ss", set_of(a, DDB_TSS, "a", "c"));
    ddb_item_set(v, ":ns", set_of(a, DDB_TNS, "1", "3"));
    ddb_item_set(v, ":bs", set_of(a, DDB_TBS, "x", "z"));
    return v;
}

static ddb_item *fixed_names(ddb_arena *a)
{
    ddb_item *n = ddb_item_new(a);
    ddb_item_set_s(n, "#a", "a");
    ddb_item_set_s(n, "#b", "b.c");
    ddb_item_set_s(n, "#n", "n");
    ddb_item_set_s(n, "#pk", "pk");
    return n;
}

static void run(ddb_expr *e, ddb_arena *a, const ddb_item *item, const ddb_item *names, const ddb_item *values)
{
    ddb_error err;
    const ddb_expr *one[] = {e};
    (void)ddbi_expr_check_request(one, 1, names, values, &err);
    const char *const *top;
    size_t ntop;
    ddbi_expr_top_level_names(e, &top, &ntop);
    if (ddbi_expr_check_values(e, values, &err) != DDB_OK)
        return;
    bool r;
    ddb_item *out, *ret;
    switch (ddb_expr_get_kind(e)) {
    case DDB_EXPR_UPDATE: {
        static const char *const keys[] = {"pk", "sk"};
        (void)ddbi_expr_update_check_keys(e, keys, 2, keys, 2, &err);
        for (int k = 0; k < 2; k++) {
            const ddb_item *old = k ? NULL : item;
            if (ddbi_expr_apply_update(e, old, values, a, &out, &err) == DDB_OK) {
                (void)ddbi_expr_updated_attributes(e, out, a, &ret, &err);
                (void)ddbi_expr_updated_attributes(e, old, a, &ret, &err);
            }
        }
        break;
    }
    case DDB_EXPR_PROJECTION:
        (void)ddbi_expr_project(e, item, a, &out, &err);
        (void)ddbi_expr_project(e, NULL, a, &out, &err);
        break;
    case DDB_EXPR_KEY_CONDITION: {
        static const ddb_key_schema ks[] = {
            {.pk = "pk", .pk_type = DDB_TS, .sk = "sk", .sk_type = DDB_TN},
            {.pk = "pk", .pk_type = DDB_TS, .sk = NULL, .sk_type = DDB_TNONE},
            {.pk = "a", .pk_type = DDB_TB, .sk = "s", .sk_type = DDB_TS}};
        ddb_key_condition kc;
        for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++)
            (void)ddbi_expr_key_condition(e, &ks[i], values, &kc, &err);
        /* a multi-attribute key: (pk, a) hashed, (sk, s, b) sorted */
        static const ddb_key_part more[] = {{"a", DDB_TS}, {"s", DDB_TS}, {"b", DDB_TB}};
        static const ddb_key_schema multi = {.pk = "pk", .pk_type = DDB_TS, .sk = "sk", .sk_type = DDB_TN,
                                             .pk_more = more, .n_pk_more = 1, .sk_more = more + 1, .n_sk_more = 2};
        ddb_key_condition_parts kp;
        (void)ddbi_expr_key_condition_parts(e, &multi, values, &kp, &err);
    }
        /* fall through: a key condition also evaluates as a filter */
    default:
        (void)ddbi_expr_eval_condition(e, item, values, &r, &err);
        (void)ddbi_expr_eval_condition(e, NULL, values, &r, &err);
        break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > DDB_EXPR_MAX_BYTES + 64)
        return 0;
    ddb_expr_kind kind = (ddb_expr_kind)(data[0] % 5);
    char *text = malloc(size);
    memcpy(text, data + 1, size - 1);
    text[size - 1] = 0;
    ddb_arena *a = ddb_arena_new();
    ddb_item *item = fixed_item(a), *names = fixed_names(a), *values = fixed_values(a);
    ddb_expr *e = NULL;
    ddb_error err;
    if (ddb_expr_prepare(kind, text, names, &e, &err) == DDB_OK) {
        run(e, a, item, names, values);
        ddb_expr_free(e);
    }
    ddb_arena_free(a);
    free(text);
    return 0;
}
