/* engine/: ddb_check_table: verify a table against its indexes and partition
 * statistics in one read transaction (a snapshot, so concurrent writers
 * cannot cause false alarms).
 *
 * Three passes, each over a sorted LMDB database:
 *  1. items: every record decodes, sits under ddbi_key_make(its key
 *     attributes), has the table's key types, and every index entry it
 *     calls for exists (MDB_GET_BOTH); item counts and record-header sizes
 *     are summed per partition of the stored partition map;
 *  2. statistics: each partition's stored {count, bytes} equals those sums,
 *     and no statistics record lies outside the partition map;
 *  3. indexes: every entry points to a stored item that calls for exactly
 *     that entry.
 * Pass 1 proves "no missing entries", pass 3 "no stale entries"; together
 * an index holds exactly the entries its items call for.
 * May call core/ and expr/; the room above (streams/) only through its hooks. */
#include "core/codec.h"
#include "core/record.h"
#include "engine/engine.h"
#include "engine/stored.h"
#include "core/error.h"
#include "engine/keys.h"
#include "core/value.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- bounded text ---- */

typedef struct txt {
    char *p;
    size_t cap, len;
} txt;

__attribute__((format(printf, 2, 3))) static void txt_add(txt *t, const char *fmt, ...)
{
    if (t->len + 1 >= t->cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->p + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        t->len = t->len + (size_t)n < t->cap ? t->len + (size_t)n : t->cap - 1;
}

/* Bytes as hex; long keys are cut after 24 bytes with their length noted. */
static void txt_hex(txt *t, const void *p, size_t n)
{
    const uint8_t *b = p;
    size_t show = n > 32 ? 24 : n;
    for (size_t i = 0; i < show; i++)
        txt_add(t, "%02x", b[i]);
    if (show < n)
        txt_add(t, "...(%zu bytes)", n);
}

/* name=value for a key attribute: S quoted (escaped, cut at 48 bytes), N
 * as its text, B as 0x-hex. */
static void txt_attr(txt *t, const char *name, const ddb_value *v)
{
    txt_add(t, "%s=", name);
    if (!v) {
        txt_add(t, "(missing)");
        return;
    }
    switch (v->type) {
    case DDB_TS: {
        txt_add(t, "\"");
        size_t show = v->len > 48 ? 48 : v->len;
        for (size_t i = 0; i < show; i++) {
            unsigned char c = (unsigned char)v->u.s[i];
            if (c == '"' || c == '\\')
                txt_add(t, "\\%c", c);
            else if (c < 0x20 || c == 0x7f)
                txt_add(t, "\\x%02x", c);
            else
                txt_add(t, "%c", c);
        }
        txt_add(t, show < v->len ? "\"...(%u bytes)" : "\"", v->len);
        break;
    }
    case DDB_TN:
        txt_add(t, "%s", v->u.s);
        break;
    case DDB_TB:
        txt_add(t, "0x");
        txt_hex(t, v->u.b, v->len);
        break;
    default:
        txt_add(t, "(%s)", ddb_type_name(v->type));
        break;
    }
}

/* ---- the check ---- */

typedef struct part_sum {
    uint64_t count, bytes;
} part_sum;

typedef struct checker {
    ddbi_engine *db;
    MDB_txn *txn;
    const ddb_table_rt *t;
    ddb_check_report *r;
    ddb_arena *a;
    uint64_t *bounds; /* the partition map of this snapshot */
    size_t n_parts;
    part_sum *sums;
} checker;

/* Record one problem; the first is kept in the report. */
__attribute__((format(printf, 3, 4))) static void problem(checker *c, const char *index, const char *fmt, ...)
{
    if (c->r->problems++)
        return;
    txt t = {c->r->first_problem, sizeof c->r->first_problem, 0};
    if (index)
        txt_add(&t, "table %s index %s: ", c->t->name, index);
    else
        txt_add(&t, "table %s: ", c->t->name);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t.p + t.len, t.cap - t.len, fmt, ap);
    va_end(ap);
}

/* "PK=... SK=..." of an item (its table key attributes). */
static const char *item_desc(char *buf, size_t cap, const ddb_table_rt *t, const ddb_item *it)
{
    txt d = {buf, cap, 0};
    buf[0] = '\0';
    txt_attr(&d, t->pk, ddb_item_get(it, t->pk));
    if (t->sk) {
        txt_add(&d, " ");
        txt_attr(&d, t->sk, ddb_item_get(it, t->sk));
    }
    return buf;
}

static const char *index_desc(char *buf, size_t cap, const ddb_index_rt *x, const ddb_item *it)
{
    txt d = {buf, cap, 0};
    buf[0] = '\0';
    const char *names[2 * DDB_MAX_KEY_ATTRS];
    ddb_type types[2 * DDB_MAX_KEY_ATTRS];
    size_t n = ddbi_index_key_attrs(x, names, types, NULL);
    for (size_t i = 0; i < n; i++) {
        if (i)
            txt_add(&d, " ");
        txt_attr(&d, names[i], ddb_item_get(it, names[i]));
    }
    return buf;
}

static const char *hex(char *buf, size_t cap, const void *p, size_t n)
{
    txt d = {buf, cap, 0};
    buf[0] = '\0';
    txt_hex(&d, p, n);
    return buf;
}

static size_t part_of(const checker *c, uint64_t hash)
{
    return ddbi_bounds_find(c->bounds, c->n_parts, hash);
}

/* The partition map "p/<table>" as of this snapshot.  A missing or
 * malformed map is a problem; the statistics are then not compared. */
static int load_bounds(checker *c)
{
    char key[300];
    int klen = snprintf(key, sizeof key, "p/%s", c->t->name);
    MDB_val k = {(size_t)klen, key}, v;
    int rc = mdb_get(c->txn, c->db->meta, &k, &v);
    if (rc == MDB_NOTFOUND) {
        problem(c, NULL, "partition map %s is missing", key);
        return DDB_OK;
    }
    if (rc)
        return rc;
    size_t n = v.mv_size / 8;
    uint64_t *b = malloc((n ? n : 1) * sizeof *b);
    part_sum *s = calloc(n ? n : 1, sizeof *s);
    char why[120];
    if (!b || !s || !ddbi_bounds_decode(v.mv_data, v.mv_size, b, why, sizeof why)) {
        free(b);
        free(s);
        if (!b || !s)
            return ENOMEM;
        problem(c, NULL, "%s", why);
        return DDB_OK;
    }
    c->bounds = b;
    c->sums = s;
    c->n_parts = n;
    return DDB_OK;
}

/* Pass 1 for one item: its index entries. */
static int check_item_indexes(checker *c, MDB_cursor **xc, const MDB_val *tk, const ddb_item *it)
{
    const ddb_table_rt *t = c->t;
    char d1[160], d2[160], h[128];
    for (size_t i = 0; i < t->n_idx; i++) {
        const ddb_index_rt *x = &t->idx[i];
        ddb_error e = {0};
        ddb_key ik;
        int in = ddbi_keys_index_key(x, it, &ik, &e);
        if (in < 0) {
            problem(c, x->name, "item %s: %s", item_desc(d1, sizeof d1, t, it), e.message);
            continue;
        }
        if (in == 0)
            continue;
        MDB_val k = {ik.len, ik.b}, d = *tk;
        int rc = mdb_cursor_get(xc[i], &k, &d, MDB_GET_BOTH);
        if (rc == MDB_NOTFOUND)
            problem(c, x->name, "item %s has no entry under %s (key %s)", item_desc(d1, sizeof d1, t, it),
                    index_desc(d2, sizeof d2, x, it), hex(h, sizeof h, ik.b, ik.len));
        else if (rc)
            return rc;
    }
    return DDB_OK;
}

/* Pass 1 for one stored record. */
static int check_item(checker *c, MDB_cursor **xc, const MDB_val *k, const MDB_val *v)
{
    const ddb_table_rt *t = c->t;
    char d1[160], h1[128], h2[128];
    c->r->items++;
    if (k->mv_size < DDB_DIGEST_LEN || k->mv_size > DDB_KEY_MAX) {
        problem(c, NULL, "item key %s has %zu bytes (%d..%d expected)", hex(h1, sizeof h1, k->mv_data, k->mv_size),
                k->mv_size, DDB_DIGEST_LEN, DDB_KEY_MAX);
        return DDB_OK;
    }
    ddb_error pe;
    if (ddbi_stored_val_check(c->db, t->name, "the stored item", k, v, &pe)) {
        problem(c, NULL, "%s", pe.message);
        return DDB_OK;
    }
    size_t stored = 0;
    int hdr = ddbi_record_size(v->mv_data, v->mv_size, &stored);
    if (c->sums) {
        part_sum *s = &c->sums[part_of(c, ddbi_key_hash(k->mv_data))];
        s->count++;
        s->bytes += hdr ? 0 : stored;
    }
    ddb_item *it;
    int rc = ddbi_decode_item(v->mv_data, v->mv_size, c->a, &it);
    if (rc == DDB_ENOMEM)
        return ENOMEM;
    if (rc) {
        problem(c, NULL, "item record under key %s does not decode (%zu bytes)",
                hex(h1, sizeof h1, k->mv_data, k->mv_size), v->mv_size);
        return DDB_OK;
    }
    if (ddbi_rec_hint_check(v->mv_data, v->mv_size)) {
        problem(c, NULL, "item record under key %s: its key hint points between attributes",
                hex(h1, sizeof h1, k->mv_data, k->mv_size));
        return DDB_OK;
    }
    /* lookups by name rely on the top-level map being sorted */
    const ddb_value *m = ddb_item_map(it);
    for (uint32_t i = 1; i < m->len; i++) {
        const ddb_attr *p = &m->u.m[i - 1], *q = &m->u.m[i];
        size_t n = p->name_len < q->name_len ? p->name_len : q->name_len;
        int cmp = memcmp(p->name, q->name, n);
        if (cmp > 0 || (cmp == 0 && p->name_len >= q->name_len)) {
            problem(c, NULL, "item under key %s: attribute names are not sorted and unique",
                    hex(h1, sizeof h1, k->mv_data, k->mv_size));
            return DDB_OK;
        }
    }
    const ddb_value *pk, *sk;
    ddb_error e = {0};
    if (ddbi_keys_table(t, it, &pk, &sk, &e)) {
        problem(c, NULL, "item under key %s: %s", hex(h1, sizeof h1, k->mv_data, k->mv_size), e.message);
    } else {
        ddb_key want;
        ddbi_key_make(&want, pk, sk);
        if (want.len != k->mv_size || memcmp(want.b, k->mv_data, want.len) != 0)
            problem(c, NULL, "item %s is stored under key %s, its key attributes give %s",
                    item_desc(d1, sizeof d1, t, it), hex(h1, sizeof h1, k->mv_data, k->mv_size),
                    hex(h2, sizeof h2, want.b, want.len));
    }
    if (!hdr && stored != ddb_item_size(it))
        problem(c, NULL, "item %s: its record says %zu bytes, its attributes measure %zu",
                item_desc(d1, sizeof d1, t, it), stored, ddb_item_size(it));
    for (uint32_t i = 0; i < m->len; i++) {
        if (ddbi_value_check(m->u.m[i].value, m->u.m[i].name, 1, &e)) {
            problem(c, NULL, "item %s: %s", item_desc(d1, sizeof d1, t, it), e.message);
            break;
        }
    }
    return check_item_indexes(c, xc, k, it);
}

static int pass_items(checker *c)
{
    const ddb_table_rt *t = c->t;
    MDB_cursor *ic = NULL, *xc[DDB_MAX_INDEXES] = {0};
    int rc = mdb_cursor_open(c->txn, t->items, &ic);
    for (size_t i = 0; !rc && i < t->n_idx; i++)
        rc = mdb_cursor_open(c->txn, t->idx[i].dbi, &xc[i]);
    MDB_val k, v;
    int g = rc ? rc : mdb_cursor_get(ic, &k, &v, MDB_FIRST);
    while (g == 0) {
        if ((rc = check_item(c, xc, &k, &v)))
            break;
        ddb_arena_reset(c->a);
        g = mdb_cursor_get(ic, &k, &v, MDB_NEXT);
    }
    if (!rc && g != MDB_NOTFOUND)
        rc = g;
    for (size_t i = 0; i < t->n_idx; i++)
        if (xc[i])
            mdb_cursor_close(xc[i]);
    if (ic)
        mdb_cursor_close(ic);
    return rc;
}

/* Pass 2: stored statistics against the sums of pass 1. */
static int pass_stats(checker *c)
{
    char key[300];
    int plen = snprintf(key, sizeof key, "s/%s/", c->t->name);
    for (size_t i = 0; i < c->n_parts; i++) {
        ddb_put_be((uint8_t *)key + plen, c->bounds[i], 8);
        MDB_val k = {(size_t)plen + 8, key}, v;
        uint64_t st[2] = {0, 0};
        int rc = mdb_get(c->txn, c->db->meta, &k, &v);
        if (rc && rc != MDB_NOTFOUND)
            return rc;
        if (rc == 0 && v.mv_size != sizeof st) {
            problem(c, NULL, "partition %zu: statistics record has %zu bytes (16 expected)", i, v.mv_size);
            continue;
        }
        if (rc == 0)
            memcpy(st, v.mv_data, sizeof st);
        const part_sum *s = &c->sums[i];
        if (st[0] != s->count || st[1] != s->bytes) {
            uint64_t hi = i + 1 < c->n_parts ? c->bounds[i + 1] - 1 : UINT64_MAX;
            problem(c, NULL,
                    "partition %zu [0x%016" PRIx64 "..0x%016" PRIx64 "]: statistics say %" PRIu64 " items / %" PRIu64
                    " bytes, its range holds %" PRIu64 " items / %" PRIu64 " bytes",
                    i, c->bounds[i], hi, st[0], st[1], s->count, s->bytes);
        }
    }
    /* statistics of a bound the map does not have are counted nowhere */
    MDB_cursor *mc;
    int rc = mdb_cursor_open(c->txn, c->db->meta, &mc);
    if (rc)
        return rc;
    MDB_val k = {(size_t)plen, key}, v;
    int g = mdb_cursor_get(mc, &k, &v, MDB_SET_RANGE);
    while (g == 0 && k.mv_size >= (size_t)plen && memcmp(k.mv_data, key, (size_t)plen) == 0) {
        char h[128];
        if (k.mv_size != (size_t)plen + 8) {
            problem(c, NULL, "malformed statistics key %s", hex(h, sizeof h, k.mv_data, k.mv_size));
        } else {
            uint64_t b = ddbi_key_hash((const uint8_t *)k.mv_data + plen);
            if (c->bounds[part_of(c, b)] != b)
                problem(c, NULL, "statistics record for 0x%016" PRIx64 ", which starts no partition", b);
        }
        g = mdb_cursor_get(mc, &k, &v, MDB_NEXT);
    }
    mdb_cursor_close(mc);
    return g == 0 || g == MDB_NOTFOUND ? DDB_OK : g;
}

/* Pass 3 for one index: every entry is called for by the item it names. */
static int pass_index(checker *c, const ddb_index_rt *x)
{
    const ddb_table_rt *t = c->t;
    MDB_cursor *xc;
    int rc = mdb_cursor_open(c->txn, x->dbi, &xc);
    if (rc)
        return rc;
    MDB_val k, d;
    int g = mdb_cursor_get(xc, &k, &d, MDB_FIRST);
    char h1[128], h2[128], d1[160], d2[160];
    while (g == 0) {
        c->r->index_entries++;
        MDB_val tk = d, v;
        ddb_item *it = NULL;
        if (d.mv_size < DDB_DIGEST_LEN || d.mv_size > DDB_KEY_MAX) {
            problem(c, x->name, "entry %s holds a malformed table key %s", hex(h1, sizeof h1, k.mv_data, k.mv_size),
                    hex(h2, sizeof h2, d.mv_data, d.mv_size));
        } else if ((rc = mdb_get(c->txn, t->items, &tk, &v)) == MDB_NOTFOUND) {
            rc = 0;
            problem(c, x->name, "entry %s points to a missing item %s", hex(h1, sizeof h1, k.mv_data, k.mv_size),
                    hex(h2, sizeof h2, d.mv_data, d.mv_size));
        } else if (rc) {
            break;
        } else if (ddbi_stored_val_check(c->db, t->name, "the stored item", &tk, &v, NULL)) {
            /* counted by pass 1 */
        } else if ((rc = ddbi_decode_item(v.mv_data, v.mv_size, c->a, &it)) != DDB_OK) {
            /* an undecodable record was counted by pass 1 */
            if (rc == DDB_ENOMEM) {
                rc = ENOMEM;
                break;
            }
            rc = 0;
        } else {
            ddb_key ik;
            int in = ddbi_keys_index_key(x, it, &ik, NULL);
            if (in <= 0)
                problem(c, x->name, "stale entry %s for item %s, which is not in the index",
                        hex(h1, sizeof h1, k.mv_data, k.mv_size), item_desc(d1, sizeof d1, t, it));
            else if (ik.len != k.mv_size || memcmp(ik.b, k.mv_data, ik.len) != 0)
                problem(c, x->name, "stale entry %s for item %s, which belongs under %s",
                        hex(h1, sizeof h1, k.mv_data, k.mv_size), item_desc(d1, sizeof d1, t, it),
                        index_desc(d2, sizeof d2, x, it));
        }
        ddb_arena_reset(c->a);
        g = mdb_cursor_get(xc, &k, &d, MDB_NEXT);
    }
    mdb_cursor_close(xc);
    if (rc)
        return rc;
    return g == MDB_NOTFOUND ? DDB_OK : g;
}

int ddbi_check_stopped(ddb_check_report *r, int code, const ddb_error *err)
{
    if (code != DDB_ECORRUPT)
        return code;
    if (!r->problems++)
        snprintf(r->first_problem, sizeof r->first_problem, "%s", err->message);
    return code;
}

int ddbi_engine_check_table(void *impl, const char *table, ddb_check_report *report, ddb_error *err)
{
    ddbi_engine *db = impl;
    ddb_check_report local;
    ddb_check_report *r = report ? report : &local;
    memset(r, 0, sizeof *r);
    MDB_txn *txn;
    ddb_table_rt *t;
    int rc = ddbi_read_table(db, table, &txn, &t, err);
    if (rc)
        return rc;
    /* the cache may be newer than this snapshot: the table must exist in it */
    char key[300];
    int klen = snprintf(key, sizeof key, "t/%s", table);
    MDB_val k = {(size_t)klen, key}, v;
    if (mdb_get(txn, db->meta, &k, &v) != 0) {
        ddbi_read_end(txn);
        return ddbi_fail(err, DDB_ENOTABLE, "Requested resource not found: table \"%s\" does not exist", table);
    }
    checker c = {db, txn, t, r, ddb_arena_new(), NULL, 0, NULL};
    rc = c.a ? load_bounds(&c) : ENOMEM;
    if (!rc)
        rc = pass_items(&c);
    if (!rc && c.sums)
        rc = pass_stats(&c);
    for (size_t i = 0; !rc && i < t->n_idx; i++)
        rc = pass_index(&c, &t->idx[i]);
    free(c.bounds);
    free(c.sums);
    ddb_arena_free(c.a);
    ddbi_read_end(txn);
    if (rc == ENOMEM)
        return ddbi_fail_oom(err, "ddb_check_table");
    if (rc)
        return ddbi_check_stopped(r, ddbi_mdb_fail(err, rc, "ddb_check_table"), err);
    if (r->problems)
        return ddbi_fail(err, DDB_ECORRUPT, "table %s: %" PRIu64 " problem(s); the first: %s", table, r->problems,
                        r->first_problem);
    return DDB_OK;
}
