/* Entity room: key attributes parsed back into the fields they were
 * rendered from, for the results of a KEYS_ONLY / INCLUDE index, which
 * hold little more than the keys ("ORDER#{order_id}").  A hole is placed
 * by the literals around it or, for a date part ({d|year}, |month, |day,
 * |quarter), by its fixed width; its text is stored when it reads back
 * unchanged.  Date parts are collected over every key attribute of the
 * item: a field that appears only as date parts is rebuilt when the parts
 * determine it (a char[N] field exactly as long as the date text they
 * cover, e.g. char[11] from year, month and day), else left absent (its
 * mask bit clear).  Calls this room's templates (hole text, fit table),
 * field accessors and write shards, and the public value API. */
#include "entity/reads/entity_reads.h"

#include "core/error.h"

#include <stdlib.h>
#include <string.h>

/* The most fields of one item whose date parts are collected. */
#define MAX_DATED 8

/* What the date-part holes of one field showed: "YYYY-MM-DD" filled as far
 * as the parts go (have: bit 0 year, 1 month, 2 day). */
typedef struct dated {
    uint16_t field;
    uint8_t have;
    char ymd[10];
} dated;

typedef struct parts {
    dated d[MAX_DATED];
    uint8_t n;
} parts;

/* The width of a date-part hole's text (|year 4, |month |day |quarter 2), 0 for other segments. */
static size_t part_width(const ddb_tseg *s)
{
    if (s->lit || !s->part)
        return 0;
    return s->part == DDB_TP_YEAR ? 4 : 2;
}

static bool digits(const char *t, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (t[i] < '0' || t[i] > '9')
            return false;
    return true;
}

/* Note date-part hole s's text t (part_width(s) bytes) for its field;
 * false when the text is no such part (the key was not rendered from a
 * date: the item does not fit the template). */
static bool note_part(const ddb_tseg *s, const char *t, parts *ps)
{
    size_t w = part_width(s);
    if (s->part == DDB_TP_QUARTER)
        return t[0] == 'Q' && t[1] >= '1' && t[1] <= '4'; /* no month in it: nothing to keep */
    if (!digits(t, w))
        return false;
    if (s->path_len != 1)
        return true;
    dated *d = NULL;
    for (uint8_t i = 0; i < ps->n && !d; i++)
        if (ps->d[i].field == s->path[0])
            d = &ps->d[i];
    if (!d && ps->n < MAX_DATED) {
        d = &ps->d[ps->n++];
        memset(d, 0, sizeof *d);
        d->field = s->path[0];
    }
    if (!d)
        return true;
    size_t at = s->part == DDB_TP_YEAR ? 0 : s->part == DDB_TP_MONTH ? 5 : 8;
    memcpy(d->ymd + at, t, w);
    d->have |= (uint8_t)(1u << (s->part - DDB_TP_YEAR));
    return true;
}

/* Store hole text t[0..n) into the top-level field the hole names, when it
 * is not set yet and the text reads back unchanged (so "007" is no plain
 * {n}, "abc" no int, a too long text no char[N]).  Case-filtered holes
 * ({s|upper}) and nested paths lose information: left alone. */
static void parse_hole(const ddb_entity_desc *e, const ddb_tseg *s, const char *t, size_t n, void *obj,
                       ddb_arena *a, ddb_ent_mask *mask)
{
    if (s->path_len != 1 || s->part || s->kase || s->path[0] >= e->st->n_fields || ddb_ent_mask_has(mask, s->path[0]))
        return;
    const ddb_field_desc *f = &e->st->fields[s->path[0]];
    char *p = (char *)obj + f->offset;
    ddb_error ignored;
    ddb_value *v = ddb_v_s(a, t, n);
    if (!v)
        return;
    int rc;
    if (f->type == DDB_F_BOOL)
        rc = (n == 4 && !memcmp(t, "true", 4)) || (n == 5 && !memcmp(t, "false", 5))
                 ? (*(bool *)p = n == 4, DDB_OK)
                 : DDB_EVALIDATION;
    else if (f->type == DDB_F_INT || f->type == DDB_F_UINT || f->type == DDB_F_FLOAT) {
        ddb_value *num;
        rc = ddb_v_n(a, v->u.s, &num, &ignored);
        if (!rc)
            rc = ddbi_ent_field_from(f, num, p, a, &ignored);
    } else if (f->type == DDB_F_CHARS || f->type == DDB_F_STRING)
        rc = ddbi_ent_field_from(f, v, p, a, &ignored);
    else
        return;
    char buf[DDB_NUMBER_TEXT_MAX + 8];
    const char *back = NULL;
    size_t blen = 0;
    bool absent = false;
    if (!rc)
        rc = ddbi_ent_hole_text(f, p, s, buf, sizeof buf, &back, &blen, &absent, &ignored);
    if (rc || absent || blen != n || memcmp(back, t, n)) {
        ddbi_ent_clear_field(f, p);
        return;
    }
    ddb_ent_mask_set(mask, s->path[0]);
}

/* Where the hole segs[i], starting at t[p], ends: after its width for a
 * date part; else before the run of date parts that follows it and the
 * next literal, when exactly one place lets the rest fit (or, with no
 * literal after it, at the end minus that run).  SIZE_MAX when it cannot
 * be placed (another variable hole follows, or several places fit). */
static size_t hole_end(const ddb_tseg *segs, uint16_t nseg, const bool *fit, size_t n, uint16_t i, size_t p)
{
    size_t w = n + 1;
    if (part_width(&segs[i])) {
        size_t end = p + part_width(&segs[i]);
        return end <= n && fit[(size_t)(i + 1) * w + end] ? end : SIZE_MAX;
    }
    uint16_t j = (uint16_t)(i + 1);
    size_t run = 0;
    while (j < nseg && part_width(&segs[j]))
        run += part_width(&segs[j++]);
    if (j == nseg)
        return n >= p + run ? n - run : SIZE_MAX;
    if (!segs[j].lit)
        return SIZE_MAX;
    const bool *next = fit + (size_t)j * w;
    size_t end = SIZE_MAX, places = 0;
    for (size_t q = p; q + run <= n && places < 2; q++)
        if (next[q + run])
            end = q, places++;
    return places == 1 ? end : SIZE_MAX;
}

/* Parse t[0..n) through segs, hole by hole, until a hole cannot be placed
 * (e.g. "A#B#C" for "{x}#{y}": the separator may be in either field). */
static void parse_segs(const ddb_entity_desc *e, const ddb_tseg *segs, uint16_t nseg, const char *t, size_t n,
                       void *obj, ddb_arena *a, ddb_ent_mask *mask, parts *ps)
{
    bool *fit = ddbi_ent_fit_table(segs, nseg, t, n);
    if (!fit || !fit[0]) {
        free(fit);
        return;
    }
    size_t p = 0;
    for (uint16_t i = 0; i < nseg; i++) {
        const ddb_tseg *s = &segs[i];
        if (s->lit) {
            p += strlen(s->lit);
            continue;
        }
        size_t end = hole_end(segs, nseg, fit, n, i, p);
        if (end == SIZE_MAX)
            break;
        if (s->part) {
            if (!note_part(s, t + p, ps))
                break;
        } else {
            parse_hole(e, s, t + p, end - p, obj, a, mask);
        }
        p = end;
    }
    free(fit);
}

static void parse_into(const ddb_entity_desc *e, const ddb_template *t, const ddb_value *v, size_t len, void *obj,
                       ddb_arena *a, ddb_ent_mask *mask, parts *ps)
{
    if (!v)
        return;
    if (t->type == DDB_TN) {
        /* a numeric key: a plain {n}, or one date part ({d|year}) */
        if (v->type == DDB_TN && t->n == 1 && !t->segs[0].lit && !t->segs[0].part)
            parse_hole(e, &t->segs[0], v->u.s, v->len, obj, a, mask);
        else if (v->type == DDB_TN && t->n == 1 && part_width(&t->segs[0]) == v->len)
            note_part(&t->segs[0], v->u.s, ps);
        return;
    }
    if (v->type == DDB_TS)
        parse_segs(e, t->segs, t->n, v->u.s, len < v->len ? len : v->len, obj, a, mask, ps);
}

/* Fields seen only as date parts: rebuilt when the parts are the whole
 * value (a char[N] field whose N - 1 is the length of "YYYY", "YYYY-MM"
 * or "YYYY-MM-DD" as far as the parts go); others stay absent. */
static void rebuild_dates(const ddb_entity_desc *e, const parts *ps, void *obj, ddb_arena *a, ddb_ent_mask *mask)
{
    for (uint8_t i = 0; i < ps->n; i++) {
        const dated *d = &ps->d[i];
        if (d->field >= e->st->n_fields || ddb_ent_mask_has(mask, d->field) || !(d->have & 1))
            continue;
        size_t len = d->have == 1 ? 4 : d->have == 3 ? 7 : d->have == 7 ? 10 : 0; /* year, +month, +day */
        const ddb_field_desc *f = &e->st->fields[d->field];
        if (!len || f->type != DDB_F_CHARS || f->size != len + 1)
            continue;
        char text[10];
        memcpy(text, d->ymd, len);
        if (len > 4)
            text[4] = '-';
        if (len > 7)
            text[7] = '-';
        ddb_value *v = ddb_v_s(a, text, len);
        ddb_error ignored;
        if (v && !ddbi_ent_field_from(f, v, (char *)obj + f->offset, a, &ignored))
            ddb_ent_mask_set(mask, d->field);
    }
}

void ddbi_ent_parse_key(const ddb_entity_desc *e, const ddb_template *t, const ddb_value *v, size_t len, void *obj,
                        ddb_arena *a, ddb_ent_mask *mask)
{
    parts ps = {.n = 0};
    parse_into(e, t, v, len, obj, a, mask, &ps);
    rebuild_dates(e, &ps, obj, a, mask);
}

/* The length of key text v without a write shard's ".N" suffix. */
static size_t unsharded_len(const ddb_entity_desc *e, const ddb_template *t, const ddb_value *v)
{
    size_t n = v && v->type == DDB_TS ? v->len : SIZE_MAX;
    if (n == SIZE_MAX || ddbi_ent_write_shards(e, t) <= 1)
        return n;
    while (n > 0 && v->u.s[n - 1] >= '0' && v->u.s[n - 1] <= '9')
        n--;
    return n > 0 && v->u.s[n - 1] == '.' ? n - 1 : v->len;
}

void ddbi_ent_fields_from_keys(const ddb_entity_desc *e, const ddb_item *it, void *obj, ddb_arena *a,
                               ddb_ent_mask *mask)
{
    parts ps = {.n = 0};
    for (uint16_t k = 0; k < e->n_keys; k++) {
        const ddb_key_desc *kd = &e->keys[k];
        if (kd->by_fields)
            continue; /* its attributes are the fields, read as fields */
        const ddb_value *pk = ddb_item_get(it, kd->pk_attr);
        parse_into(e, &kd->pk, pk, unsharded_len(e, &kd->pk, pk), obj, a, mask, &ps);
        if (!kd->sk_attr || (k == 0 && e->n_shards)) /* a shard item's SK ends in its shard id */
            continue;
        const ddb_value *sk = ddb_item_get(it, kd->sk_attr);
        parse_into(e, &kd->sk, sk, unsharded_len(e, &kd->sk, sk), obj, a, mask, &ps);
    }
    rebuild_dates(e, &ps, obj, a, mask);
}
