/* ddb serve's streaming DynamoDB-JSON writer (tools/ddb/serve/jwrite.c)
 * against the jansson path it replaced (ddb_json_from_item + json_dumps):
 * for thousands of generated items (every type, nesting, unicode, control
 * characters, NUL in strings, quotes and backslashes, large and small
 * numbers, empty strings and binaries, sets) the writer's text parses to
 * the same JSON value and is even the same bytes; items jansson refuses
 * (text that is not UTF-8, nesting past DDB_JSON_MAX_DEPTH) the writer
 * refuses with the same code; every 1- and 2-byte string, the 3- and
 * 4-byte ones around UTF-8's edges and every byte at every place of a
 * 17-byte text are accepted or refused alike, and written alike.  Calls
 * jwrite.c, libddb's public API and jansson. */
#include "jwrite.h"

#include <ddb/json.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static unsigned rnd(unsigned n)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (unsigned)(rng % n);
}

/* A string of up to max bytes mixing ASCII, escapes, NUL, multi-byte
 * UTF-8 and, when dirty, stray bytes that break UTF-8. */
static size_t gen_text(char *out, size_t max, bool dirty, bool nul)
{
    static const char *const utf8[] = {"\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xef\xbf\xbf",
                                       "\xf4\x8f\xbf\xbf", "\xed\x9f\xbf", "\xee\x80\x80", "\xc2\x80", "\xdf\xbf"};
    size_t n = 0, len = rnd((unsigned)max / 4 + 1);
    while (n < len && n + 4 < max) {
        unsigned k = rnd(100);
        if (k < 50)
            out[n++] = (char)(' ' + rnd(95));
        else if (k < 60) {
            char c = (char)rnd(32);
            if (c || nul)
                out[n++] = c;
        } else if (k < 70)
            out[n++] = "\"\\/\x7f"[rnd(4)];
        else if (k < 95 || !dirty) {
            const char *u = utf8[rnd(sizeof utf8 / sizeof *utf8)];
            memcpy(out + n, u, strlen(u));
            n += strlen(u);
        } else
            out[n++] = (char)(0x80 + rnd(128));
    }
    return n;
}

static ddb_value *gen_number(ddb_arena *a)
{
    static const char *const texts[] = {"0", "-1", "1.5", "12345678901234567890123456789012345678",
                                        "-0.00000000000000000000000000000000000001", "9.9999999999999999999999999999999999999E+125",
                                        "-1E-130", "1e10", "100", "3.14159"};
    ddb_value *v = NULL;
    ddb_error err;
    switch (rnd(3)) {
    case 0: assert_int_equal(ddb_v_n(a, texts[rnd(sizeof texts / sizeof *texts)], &v, &err), 0); break;
    case 1: v = ddb_v_i64(a, (int64_t)(rng >> rnd(64))); break;
    default: assert_int_equal(ddb_v_double(a, (double)(int64_t)rng / 1e7, &v, &err), 0);
    }
    return v;
}

static ddb_value *gen_value(ddb_arena *a, int depth, bool dirty)
{
    char buf[256];
    ddb_error err;
    unsigned t = rnd(depth > 5 ? 7 : 10);
    switch (t) {
    case 0:
    case 1: return ddb_v_s(a, buf, gen_text(buf, sizeof buf, dirty, true));
    case 2: return gen_number(a);
    case 3: {
        size_t n = rnd(48);
        for (size_t i = 0; i < n; i++)
            buf[i] = (char)rnd(256);
        return ddb_v_b(a, buf, n);
    }
    case 4: return ddb_v_bool(a, rnd(2));
    case 5: return ddb_v_null(a);
    case 6: {
        ddb_type st = (ddb_type)(DDB_TSS + rnd(3));
        ddb_value *s = ddb_v_set(a, st);
        for (unsigned i = 0, n = 1 + rnd(5); i < n; i++) {
            ddb_value *e;
            if (st == DDB_TSS)
                e = ddb_v_s(a, buf, gen_text(buf, sizeof buf, dirty, true));
            else if (st == DDB_TNS)
                e = gen_number(a);
            else
                e = ddb_v_b(a, buf, rnd(20));
            assert_int_equal(ddb_set_add(a, s, e, &err), 0);
        }
        return s;
    }
    case 7: {
        ddb_value *l = ddb_v_list(a);
        for (unsigned i = 0, n = rnd(5); i < n; i++)
            assert_int_equal(ddb_list_append(a, l, gen_value(a, depth + 1, dirty)), 0);
        return l;
    }
    default: {
        ddb_value *m = ddb_v_map(a);
        for (unsigned i = 0, n = rnd(5); i < n; i++) {
            size_t k = gen_text(buf, 40, dirty, false);
            buf[k] = '\0';
            assert_int_equal(ddb_map_set(a, m, buf, gen_value(a, depth + 1, dirty)), 0);
        }
        return m;
    }
    }
}

/* The writer and the jansson path agree on it: same code, and on success
 * the same JSON value and the same text. */
static bool same(const ddb_item *it)
{
    json_t *ref = NULL;
    ddb_error e1, e2;
    int r1 = ddb_json_from_item(it, &ref, &e1);
    jw w = {0};
    int r2 = jw_item(&w, it, &e2);
    assert_int_equal(r1, r2);
    if (!r1) {
        json_error_t jerr;
        json_t *got = json_loadb(w.p, w.len, JSON_ALLOW_NUL, &jerr);
        if (!got)
            fail_msg("the writer's text does not parse (%s): %.*s", jerr.text, (int)w.len, w.p);
        assert_true(json_equal(ref, got));
        char *text = json_dumps(ref, JSON_COMPACT);
        assert_non_null(text);
        assert_int_equal(strlen(text), w.len);
        assert_memory_equal(text, w.p, w.len);
        free(text);
        json_decref(got);
    }
    json_decref(ref);
    jw_free(&w);
    return r1 == 0;
}

static void generated_items(void **state)
{
    (void)state;
    ddb_arena *a = ddb_arena_new();
    char name[64];
    unsigned ok = 0, refused = 0;
    for (int i = 0; i < 5000; i++) {
        bool dirty = i % 10 == 9;
        ddb_item *it = ddb_item_new(a);
        for (unsigned k = 0, n = rnd(8); k < n; k++) {
            size_t len = gen_text(name, sizeof name - 1, dirty, false);
            name[len] = '\0';
            assert_int_equal(ddb_item_set(it, len ? name : "pk", gen_value(a, 1, dirty)), 0);
        }
        if (same(it))
            ok++;
        else
            refused++;
        ddb_arena_reset(a);
    }
    /* both outcomes were exercised */
    assert_true(ok > 4000);
    assert_true(refused > 50);
    ddb_arena_free(a);
}

static ddb_item *nested(ddb_arena *a, int levels)
{
    ddb_value *v = ddb_v_str(a, "leaf");
    for (int i = 1; i < levels; i++) {
        ddb_value *c = i % 2 ? ddb_v_list(a) : ddb_v_map(a);
        if (c->type == DDB_TL)
            ddb_list_append(a, c, v);
        else
            ddb_map_set(a, c, "k", v);
        v = c;
    }
    ddb_item *it = ddb_item_new(a);
    ddb_item_set(it, "deep", v);
    return it;
}

static void depth_limit(void **state)
{
    (void)state;
    ddb_arena *a = ddb_arena_new();
    assert_true(same(nested(a, DDB_JSON_MAX_DEPTH)));
    assert_false(same(nested(a, DDB_JSON_MAX_DEPTH + 1)));
    ddb_arena_free(a);
}

/* s[0..n) accepted by both or refused by both. */
static void one_string(const unsigned char *s, size_t n)
{
    json_t *j = json_stringn((const char *)s, n);
    jw w = {0};
    int rc = jw_str(&w, (const char *)s, n);
    if ((j != NULL) != (rc == 0))
        fail_msg("jansson %s, the writer %s, %zu bytes starting %02x %02x", j ? "accepts" : "refuses",
                 rc ? "refuses" : "accepts", n, s[0], n > 1 ? s[1] : 0);
    if (j) {
        char *text = json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT);
        assert_int_equal(strlen(text), w.len);
        assert_memory_equal(text, w.p, w.len);
        free(text);
    }
    json_decref(j);
    jw_free(&w);
}

static void utf8_edges(void **state)
{
    (void)state;
    unsigned char s[4];
    for (unsigned x = 0; x < 256; x++) {
        s[0] = (unsigned char)x;
        one_string(s, 1);
        for (unsigned y = 0; y < 256; y++) {
            s[1] = (unsigned char)y;
            one_string(s, 2);
        }
    }
    static const unsigned char conts[] = {0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xff};
    for (unsigned x = 0xc0; x < 256; x++)
        for (unsigned y = 0; y < 256; y++)
            for (size_t z = 0; z < sizeof conts; z++)
                for (size_t t = 0; t < sizeof conts; t++) {
                    s[0] = (unsigned char)x, s[1] = (unsigned char)y, s[2] = conts[z], s[3] = conts[t];
                    one_string(s, 3);
                    one_string(s, 4);
                }
}

/* Every byte at every place of a 17-byte text: the writer's word-at-a-time
 * scan (8 bytes) and its byte-at-a-time rest agree with jansson. */
static void every_byte_in_a_word(void **state)
{
    (void)state;
    unsigned char s[17];
    for (unsigned b = 0; b < 256; b++)
        for (size_t at = 0; at < sizeof s; at++) {
            memset(s, 'a', sizeof s);
            s[at] = (unsigned char)b;
            one_string(s, sizeof s);
            if (at + 1 < sizeof s) { /* a valid 2-byte sequence straddling the words */
                s[at] = 0xc3, s[at + 1] = 0xa9;
                one_string(s, sizeof s);
            }
        }
}

static void reply_pieces(void **state)
{
    (void)state;
    jw w = {0};
    jw_lit(&w, "[");
    jw_u64(&w, 0);
    jw_lit(&w, ",");
    jw_u64(&w, UINT64_MAX);
    jw_lit(&w, "]");
    assert_int_equal(w.len, strlen("[0,18446744073709551615]"));
    assert_memory_equal(w.p, "[0,18446744073709551615]", w.len);
    assert_false(w.oom);
    jw_free(&w);
    /* a buffer past JW_MAX is refused, not grown */
    assert_false(jw_reserve(&w, JW_MAX + 1));
    assert_true(w.oom);
    jw_lit(&w, "x");
    assert_int_equal(w.len, 0);
    jw_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(generated_items),
        cmocka_unit_test(depth_limit),
        cmocka_unit_test(utf8_edges),
        cmocka_unit_test(every_byte_in_a_word),
        cmocka_unit_test(reply_pieces),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
