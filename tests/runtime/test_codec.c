/* Item records: encode/decode round trips, and every damaged record is
 * refused (DDB_ECORRUPT), never read past its end. */
#include "testutil.h"

#include "core/codec.h"
#include "core/record.h"
#include "core/number.h"
#include "core/value.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint32_t rnd(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

static ddb_value *random_value(ddb_arena *a, int depth)
{
    char buf[300];
    int kind = rnd(depth > 4 ? 6 : 10);
    size_t len = rnd(4) == 0 ? 200 + rnd(100) : rnd(20);
    for (size_t i = 0; i < len; i++)
        buf[i] = (char)('a' + rnd(26));
    switch (kind) {
    case 0:
        return ddb_v_s(a, buf, len);
    case 1:
        return ddb_v_i64(a, (int64_t)rnd(1000000) - 500000);
    case 2:
        buf[0] = '\0'; /* bytes may hold NULs */
        return ddb_v_b(a, buf, len);
    case 3:
        return ddb_v_bool(a, rnd(2));
    case 4:
        return ddb_v_null(a);
    case 5: {
        ddb_value *set = ddb_v_set(a, DDB_TSS);
        for (uint32_t i = 0, n = 1 + rnd(4); i < n; i++) {
            char e[8];
            snprintf(e, sizeof e, "e%u", rnd(50));
            assert_int_equal(ddb_set_add(a, set, ddb_v_str(a, e), NULL), DDB_OK);
        }
        return set;
    }
    case 6:
    case 7: {
        ddb_value *l = ddb_v_list(a);
        for (uint32_t i = 0, n = rnd(5); i < n; i++)
            assert_int_equal(ddb_list_append(a, l, random_value(a, depth + 1)), DDB_OK);
        return l;
    }
    default: {
        ddb_value *m = ddb_v_map(a);
        for (uint32_t i = 0, n = rnd(5); i < n; i++) {
            char name[16];
            snprintf(name, sizeof name, "k%u", rnd(20));
            assert_int_equal(ddb_map_set(a, m, name, random_value(a, depth + 1)), DDB_OK);
        }
        return m;
    }
    }
}

/* The attributes of a random item (up to 8). */
static ddb_value *random_item_map(ddb_arena *a)
{
    ddb_value *m = ddb_v_map(a);
    for (uint32_t i = 0, n = rnd(8); i < n; i++) {
        char name[16];
        snprintf(name, sizeof name, "attr%u", rnd(30));
        assert_int_equal(ddb_map_set(a, m, name, random_value(a, 1)), DDB_OK);
    }
    return m;
}

/* Every S/N string and every name of a decoded tree is NUL-terminated. */
static void check_terminated(const ddb_value *v)
{
    switch (v->type) {
    case DDB_TS:
    case DDB_TN:
    case DDB_TB:
        assert_int_equal(v->u.s[v->len], '\0');
        break;
    case DDB_TM:
        for (uint32_t i = 0; i < v->len; i++) {
            assert_int_equal(v->u.m[i].name[v->u.m[i].name_len], '\0');
            check_terminated(v->u.m[i].value);
        }
        break;
    case DDB_TL:
    case DDB_TSS:
    case DDB_TNS:
    case DDB_TBS:
        for (uint32_t i = 0; i < v->len; i++)
            check_terminated(v->u.l[i]);
        break;
    default:
        break;
    }
}

static void test_round_trip(void **state)
{
    (void)state;
    ddb_arena *a = ddb_arena_new(), *b = ddb_arena_new();
    for (int round = 0; round < 2000; round++) {
        ddb_arena_reset(a);
        ddb_arena_reset(b);
        ddb_value *m = random_item_map(a);
        ddb_item *in = ddb_item_from_map(a, m);
        ddb_buf buf = {0};
        assert_int_equal(ddbi_encode_item(&buf, m, ddb_item_size(in)), DDB_OK);
        ddb_item *out = NULL;
        assert_int_equal(ddbi_decode_item(buf.p, buf.len, b, &out), DDB_OK);
        assert_true(ddb_value_equal(ddb_item_map(out), m));
        assert_int_equal(ddb_item_size(out), ddb_item_size(in));
        assert_ptr_equal(ddb_item_arena(out), b);
        check_terminated(ddb_item_map(out));
        size_t size = 0;
        assert_int_equal(ddbi_record_size(buf.p, buf.len, &size), DDB_OK);
        assert_int_equal(size, ddb_item_size(in));
        /* a decoded item can be changed like any other */
        assert_int_equal(ddb_item_set_s(out, "added", "x"), DDB_OK);
        assert_non_null(ddb_item_get(out, "added"));

        /* every strict prefix is refused; so is a trailing byte */
        for (size_t cut = 0; cut < buf.len; cut++) {
            uint8_t *p = malloc(cut ? cut : 1); /* exactly cut bytes: ASan sees any overread */
            memcpy(p, buf.p, cut);
            assert_int_equal(ddbi_decode_item(p, cut, b, &out), DDB_ECORRUPT);
            free(p);
        }
        uint8_t *longer = malloc(buf.len + 1);
        memcpy(longer, buf.p, buf.len);
        longer[buf.len] = 0;
        assert_int_equal(ddbi_decode_item(longer, buf.len + 1, b, &out), DDB_ECORRUPT);
        /* damaged bytes: refused or decoded, never a crash or an overread */
        for (int k = 0; k < 20 && buf.len > 1; k++) {
            memcpy(longer, buf.p, buf.len);
            longer[1 + rnd((uint32_t)buf.len - 1)] = (uint8_t)rnd(256);
            int rc = ddbi_decode_item(longer, buf.len, b, &out);
            assert_true(rc == DDB_OK || rc == DDB_ECORRUPT);
            if (rc == DDB_OK)
                check_terminated(ddb_item_map(out));
        }
        free(longer);
        ddbi_buf_free(&buf);
    }
    ddb_arena_free(a);
    ddb_arena_free(b);
}

/* The write path's record (ddbi_encode_record: size, record and value
 * checks in one walk) is byte for byte the record ddbi_encode_item writes
 * after ddb_item_size measured the item, and flags the first attribute
 * ddbi_value_check refuses; with no buffer it only measures. */
static void test_record_one_pass(void **state)
{
    (void)state;
    ddb_arena *a = ddb_arena_new();
    ddb_buf two = {0}, one = {0};
    for (int round = 0; round < 2000; round++) {
        ddb_arena_reset(a);
        ddb_value *m = random_item_map(a);
        if (round % 3 == 0) { /* big items: 2- and 3-byte size varints */
            size_t len = 100 + rnd(300000);
            char *big = ddb_arena_alloc(a, len);
            memset(big, 'b', len);
            assert_int_equal(ddb_map_set(a, m, "big", ddb_v_s(a, big, len)), DDB_OK);
        }
        ddb_item *in = ddb_item_from_map(a, m);
        two.len = 0;
        assert_int_equal(ddbi_encode_item(&two, m, ddb_item_size(in)), DDB_OK);
        /* after what the buffer held before: the record is found by offset */
        one.len = 0;
        assert_int_equal(ddbi_buf_put(&one, "prefix", 6), DDB_OK);
        ddbi_record rec, measured;
        assert_int_equal(ddbi_encode_record(&one, m, NULL, &rec), DDB_OK);
        assert_int_equal(rec.size, ddb_item_size(in));
        assert_int_equal(rec.bad_attr, UINT32_MAX);
        assert_true(rec.off >= 6 && rec.off + rec.len == one.len);
        assert_int_equal(rec.len, two.len);
        assert_memory_equal(one.p + rec.off, two.p, two.len);
        assert_int_equal(ddbi_encode_record(NULL, m, NULL, &measured), DDB_OK);
        assert_int_equal(measured.size, rec.size);
        assert_int_equal(measured.len, 0);
    }
    /* values a write refuses: the first such attribute is named */
    ddb_arena_reset(a);
    ddb_value *m = ddb_v_map(a);
    assert_int_equal(ddb_map_set(a, m, "a", ddb_v_str(a, "fine")), DDB_OK);
    ddb_value *l = ddb_v_list(a);
    assert_int_equal(ddb_list_append(a, l, ddb_v_set(a, DDB_TNS)), DDB_OK); /* an empty set, nested */
    assert_int_equal(ddb_map_set(a, m, "b", l), DDB_OK);
    assert_int_equal(ddb_map_set(a, m, "c", ddb_v_set(a, DDB_TSS)), DDB_OK);
    ddbi_record rec;
    one.len = 0;
    assert_int_equal(ddbi_encode_record(&one, m, NULL, &rec), DDB_OK);
    assert_int_equal(rec.bad_attr, 1);
    ddb_error err = {0};
    assert_int_equal(ddbi_value_check(m->u.m[1].value, "b", 1, &err), DDB_EVALIDATION);
    assert_int_equal(ddbi_value_check(m->u.m[0].value, "a", 1, &err), DDB_OK);
    /* nesting: 32 levels are fine, 33 are not (DynamoDB's limit) */
    for (int depth = 32; depth <= 33; depth++) {
        ddb_arena_reset(a);
        ddb_value *v = ddb_v_str(a, "x");
        for (int i = 1; i < depth; i++) {
            ddb_value *outer = ddb_v_list(a);
            assert_int_equal(ddb_list_append(a, outer, v), DDB_OK);
            v = outer;
        }
        m = ddb_v_map(a);
        assert_int_equal(ddb_map_set(a, m, "deep", v), DDB_OK);
        assert_int_equal(ddbi_encode_record(NULL, m, NULL, &rec), DDB_OK);
        assert_int_equal(rec.bad_attr, depth == 32 ? UINT32_MAX : 0);
    }
    ddbi_buf_free(&one);
    ddbi_buf_free(&two);
    ddb_arena_free(a);
}

/* Records with a key hint (version 2): the hint lists the offsets of the
 * named attributes the item has; the record decodes to the same item as
 * the version 1 record of it, and ddbi_rec_find_names finds the same
 * attributes in both (through the hint, or the walk for what it lacks). */
static void test_record_hint(void **state)
{
    (void)state;
    ddb_arena *a = ddb_arena_new();
    ddb_buf v1 = {0}, v2 = {0};
    ddbi_hint_names h = {.n = 4};
    const char *hn[4] = {"attr7", "attr3", "attr21", "attr3"}; /* a duplicate is hinted once */
    for (int i = 0; i < 4; i++) {
        h.name[i] = hn[i];
        h.len[i] = (uint32_t)strlen(hn[i]);
    }
    int hinted = 0;
    for (int round = 0; round < 2000; round++) {
        ddb_arena_reset(a);
        ddb_value *m = random_item_map(a);
        ddb_item *in = ddb_item_from_map(a, m);
        v1.len = v2.len = 0;
        ddbi_record r1, r2;
        assert_int_equal(ddbi_encode_record(&v1, m, NULL, &r1), DDB_OK);
        assert_int_equal(ddbi_encode_record(&v2, m, &h, &r2), DDB_OK);
        const uint8_t *p1 = v1.p + r1.off, *p2 = v2.p + r2.off;
        bool any = ddb_item_get(in, "attr7") || ddb_item_get(in, "attr3") || ddb_item_get(in, "attr21");
        assert_int_equal(p1[0], DDBI_RECORD_VERSION);
        assert_int_equal(p2[0], any ? DDBI_RECORD_VERSION_HINTED : DDBI_RECORD_VERSION);
        hinted += any;
        ddbi_rec_header hd = {0};
        assert_int_equal(ddbi_record_header(p2, r2.len, &hd), DDB_OK);
        assert_int_equal(hd.n_hint, (uint32_t)(!!ddb_item_get(in, "attr7") + !!ddb_item_get(in, "attr3") +
                                               !!ddb_item_get(in, "attr21")));
        assert_int_equal(hd.size, ddb_item_size(in));
        assert_int_equal(ddbi_rec_hint_check(p2, r2.len), DDB_OK);
        size_t size;
        assert_int_equal(ddbi_record_size(p2, r2.len, &size), DDB_OK);
        assert_int_equal(size, ddb_item_size(in));
        ddb_item *o1, *o2;
        assert_int_equal(ddbi_decode_item(p1, r1.len, a, &o1), DDB_OK);
        assert_int_equal(ddbi_decode_item(p2, r2.len, a, &o2), DDB_OK);
        assert_true(ddb_value_equal(ddb_item_map(o1), ddb_item_map(o2)));
        /* hinted names, a name the hint lacks, an absent one */
        const char *want[3][3] = {{"attr7", "attr21", "attr3"}, {"attr3", "attr0", NULL}, {NULL, "attr29", "attr7"}};
        for (int w = 0; w < 3; w++) {
            ddbi_rec_names rn;
            for (int i = 0; i < DDBI_REC_NAMES; i++) {
                rn.name[i] = want[w][i];
                rn.len[i] = want[w][i] ? (uint32_t)strlen(want[w][i]) : 0;
            }
            ddbi_rec_attr at1[3], at2[3];
            bool f1[3], f2[3];
            assert_int_equal(ddbi_rec_find_names(p1, r1.len, &rn, at1, f1), DDB_OK);
            assert_int_equal(ddbi_rec_find_names(p2, r2.len, &rn, at2, f2), DDB_OK);
            for (int i = 0; i < 3; i++) {
                assert_int_equal(f1[i], want[w][i] && ddb_item_get(in, want[w][i]));
                assert_int_equal(f2[i], f1[i]);
                if (f1[i]) {
                    assert_int_equal(at1[i].enc_len, at2[i].enc_len);
                    assert_memory_equal(at1[i].enc, at2[i].enc, at1[i].enc_len);
                    assert_int_equal(at2[i].name_len, rn.len[i]);
                    assert_memory_equal(at2[i].name, rn.name[i], rn.len[i]);
                }
            }
        }
    }
    assert_true(hinted > 100 && hinted < 1900); /* both kinds were made */

    /* a damaged hint: an offset into an attribute's middle, past the end */
    ddb_arena_reset(a);
    ddb_value *m = ddb_v_map(a);
    assert_int_equal(ddb_map_set(a, m, "attr3", ddb_v_str(a, "xxxxxxxxxxxxxxxxxxxx")), DDB_OK);
    assert_int_equal(ddb_map_set(a, m, "attr7", ddb_v_str(a, "seven")), DDB_OK);
    v2.len = 0;
    ddbi_record r;
    assert_int_equal(ddbi_encode_record(&v2, m, &h, &r), DDB_OK);
    uint8_t *p = v2.p + r.off;
    /* version, size (1 byte), count 2, offsets: attr7 first (the hint's order), then attr3 at 1 (after the count) */
    assert_int_equal(p[0], DDBI_RECORD_VERSION_HINTED);
    assert_int_equal(p[2], 2);
    assert_int_equal(p[4], 1);
    ddbi_rec_names rn = {{"attr7", NULL, NULL}, {5, 0, 0}};
    ddbi_rec_attr at[3];
    bool found[3];
    p[3] = 12; /* into attr3's value: no attribute starts there */
    assert_int_equal(ddbi_rec_hint_check(p, r.len), DDB_ECORRUPT);
    p[3] = 120; /* past the end */
    assert_int_equal(ddbi_rec_hint_check(p, r.len), DDB_ECORRUPT);
    assert_int_equal(ddbi_rec_find_names(p, r.len, &rn, at, found), DDB_ECORRUPT);
    p[2] = DDBI_HINT_MAX + 1; /* more offsets than a hint holds */
    assert_int_equal(ddbi_record_header(p, r.len, &(ddbi_rec_header){0}), DDB_ECORRUPT);
    size_t size;
    assert_int_equal(ddbi_record_size(p, r.len, &size), DDB_ECORRUPT);
    ddbi_buf_free(&v1);
    ddbi_buf_free(&v2);
    ddb_arena_free(a);
}

/* ddbi_number_size sizes plain integers without a full parse: the same
 * size as the parsed number's (DynamoDB's rule, ddbi_dec_size), for every
 * digit count up to 38, trailing zeros and signs; other text is parsed. */
static void test_number_size(void **state)
{
    (void)state;
    static const char *const texts[] = {"0", "1", "-1", "10", "100", "-1000", "12", "120", "1200", "99", "-99",
                                        "12345678901234567890123456789012345678", "-10000000000000000000000000000000000000",
                                        "1.5", "-0.001", "1E+100", "1.2e-5", "007", "1e2"};
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        ddb_dec d;
        assert_int_equal(ddbi_dec_parse(texts[i], strlen(texts[i]), &d, NULL), DDB_OK);
        assert_int_equal(ddbi_number_size(texts[i], strlen(texts[i])), ddbi_dec_size(&d));
    }
    char buf[48];
    for (int round = 0; round < 20000; round++) {
        size_t n = 0, digits = 1 + rnd(38);
        if (rnd(2))
            buf[n++] = '-';
        buf[n++] = (char)('1' + rnd(9));
        for (size_t k = 1; k < digits; k++)
            buf[n++] = rnd(3) ? (char)('0' + rnd(10)) : '0';
        ddb_dec d;
        assert_int_equal(ddbi_dec_parse(buf, n, &d, NULL), DDB_OK);
        assert_int_equal(ddbi_number_size(buf, n), ddbi_dec_size(&d));
    }
}

/* An attribute holding lists nested to the given depth (the attribute's
 * value is depth 1). */
static int decode_nested(int depth)
{
    ddb_arena *a = ddb_arena_new();
    ddb_value *inner = ddb_v_str(a, "leaf");
    for (int d = depth; d > 1; d--) {
        ddb_value *l = ddb_v_list(a);
        assert_int_equal(ddb_list_append(a, l, inner), DDB_OK);
        inner = l;
    }
    ddb_value *m = ddb_v_map(a);
    assert_int_equal(ddb_map_set(a, m, "deep", inner), DDB_OK);
    ddb_buf buf = {0};
    assert_int_equal(ddbi_encode_item(&buf, m, 1), DDB_OK);
    ddb_item *out;
    int rc = ddbi_decode_item(buf.p, buf.len, a, &out);
    if (rc == DDB_OK)
        assert_true(ddb_value_equal(ddb_item_map(out), m));
    ddbi_buf_free(&buf);
    ddb_arena_free(a);
    return rc;
}

static void test_depth_limit(void **state)
{
    (void)state;
    assert_int_equal(decode_nested(64), DDB_OK);
    assert_int_equal(decode_nested(65), DDB_ECORRUPT);
}

static void test_empty_and_scalars(void **state)
{
    (void)state;
    ddb_arena *a = ddb_arena_new();
    ddb_value *m = ddb_v_map(a);
    ddb_buf buf = {0};
    ddb_item *out;
    assert_int_equal(ddbi_encode_item(&buf, m, 0), DDB_OK);
    assert_int_equal(ddbi_decode_item(buf.p, buf.len, a, &out), DDB_OK);
    assert_int_equal(ddb_item_count(out), 0);
    buf.len = 0;
    assert_int_equal(ddb_map_set(a, m, "t", ddb_v_bool(a, true)), DDB_OK);
    assert_int_equal(ddb_map_set(a, m, "f", ddb_v_bool(a, false)), DDB_OK);
    assert_int_equal(ddb_map_set(a, m, "z", ddb_v_null(a)), DDB_OK);
    assert_int_equal(ddb_map_set(a, m, "e", ddb_v_s(a, "", 0)), DDB_OK);
    assert_int_equal(ddb_map_set(a, m, "l", ddb_v_list(a)), DDB_OK);
    assert_int_equal(ddb_map_set(a, m, "m", ddb_v_map(a)), DDB_OK);
    assert_int_equal(ddbi_encode_item(&buf, m, 9), DDB_OK);
    assert_int_equal(ddbi_decode_item(buf.p, buf.len, a, &out), DDB_OK);
    assert_true(ddb_value_equal(ddb_item_map(out), m));
    assert_true(ddb_item_get(out, "t")->u.boolean);
    assert_false(ddb_item_get(out, "f")->u.boolean);
    assert_int_equal(ddb_item_get(out, "z")->type, DDB_TNULL);
    assert_string_equal(ddb_item_get(out, "e")->u.s, "");
    assert_null(ddb_item_get(out, "l")->u.l);
    assert_null(ddb_item_get(out, "m")->u.m);
    /* unknown version and unknown type bytes */
    uint8_t bad_version[] = {2, 0, 0};
    assert_int_equal(ddbi_decode_item(bad_version, sizeof bad_version, a, &out), DDB_ECORRUPT);
    uint8_t bad_type[] = {1, 0, 1, 1, 'x', 99};
    assert_int_equal(ddbi_decode_item(bad_type, sizeof bad_type, a, &out), DDB_ECORRUPT);
    ddbi_buf_free(&buf);
    ddb_arena_free(a);
}

/* Reset keeps a block big enough for the last use, so a reused arena
 * stops allocating; everything it hands out stays usable. */
static void test_arena_reuse(void **state)
{
    (void)state;
    ddb_arena *a = ddb_arena_new();
    for (int round = 0; round < 50; round++) {
        ddb_arena_reset(a);
        assert_int_equal(ddb_arena_used(a), 0);
        char *prev = NULL;
        for (int i = 0; i < 400; i++) {
            char *p = ddb_arena_alloc(a, 200 + (size_t)(i % 7));
            assert_non_null(p);
            memset(p, i, 200);
            if (prev)
                assert_int_equal((unsigned char)prev[199], (unsigned char)(i - 1));
            prev = p;
        }
        char *big = ddb_arena_alloc(a, 3u << 20); /* over the kept size */
        assert_non_null(big);
        memset(big, 1, 3u << 20);
    }
    ddb_arena_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_record_one_pass),
        cmocka_unit_test(test_record_hint),
        cmocka_unit_test(test_number_size),
        cmocka_unit_test(test_depth_limit),
        cmocka_unit_test(test_empty_and_scalars),
        cmocka_unit_test(test_arena_reuse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
