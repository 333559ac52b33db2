/* Entity room: key templates rendered from an entity struct ("ORG#{org}",
 * "{created_at:020}", "{order_date|quarter}"), and derived fields computed
 * from their templates.  Calls the public value API, core/number.h (decimal
 * text of floats) and the field accessors of entity_field.c. */
#include "entity/core/entity_core.h"

#include "core/error.h"
#include "core/number.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Locate the field a template hole names; *base receives its address. */
static const ddb_field_desc *resolve(const ddb_entity_desc *e, const ddb_tseg *s, const void *obj, const char **base)
{
    const ddb_struct_desc *st = e->st;
    const char *p = obj;
    const ddb_field_desc *f = NULL;
    for (uint8_t i = 0; i < s->path_len; i++) {
        if (!st || s->path[i] >= st->n_fields)
            return NULL;
        f = &st->fields[s->path[i]];
        p += f->offset;
        st = f->type == DDB_F_STRUCT ? f->sub : NULL;
    }
    *base = p;
    return f;
}

/* The text a hole renders to, before filters.  *absent when optional and unset. */
int ddbi_ent_hole_text(const ddb_field_desc *f, const char *p, const ddb_tseg *s, char *buf, size_t cap,
                       const char **text, size_t *len, bool *absent, ddb_error *err)
{
    *absent = false;
    int n = 0;
    switch (f->type) {
    case DDB_F_CHARS:
        *text = p;
        return ddbi_ent_chars_len(f, p, len, err);
    case DDB_F_STRING:
        *text = *(char *const *)p;
        if (!*text) {
            *absent = true;
            return DDB_OK;
        }
        *len = strlen(*text);
        return DDB_OK;
    case DDB_F_INT: {
        int64_t v = ddbi_ent_int_get(f, p);
        n = s->pad ? snprintf(buf, cap, "%0*lld", (int)s->pad, (long long)v) : snprintf(buf, cap, "%lld", (long long)v);
        break;
    }
    case DDB_F_UINT: {
        uint64_t v = (uint64_t)ddbi_ent_int_get(f, p);
        n = s->pad ? snprintf(buf, cap, "%0*llu", (int)s->pad, (unsigned long long)v)
                   : snprintf(buf, cap, "%llu", (unsigned long long)v);
        break;
    }
    case DDB_F_FLOAT: {
        ddb_dec d;
        int rc = ddbi_dec_from_double(ddbi_ent_float_get(f, p), &d, err);
        if (rc)
            return rc;
        char t[DDB_NUMBER_TEXT_MAX];
        ddbi_dec_format(&d, t);
        n = snprintf(buf, cap, "%s", t);
        break;
    }
    case DDB_F_BOOL:
        n = snprintf(buf, cap, "%s", *(const bool *)p ? "true" : "false");
        break;
    default:
        return ddbi_fail(err, DDB_EVALIDATION, "field %s cannot be used in a key template", f->name);
    }
    if (n < 0 || (size_t)n >= cap)
        return ddbi_fail(err, DDB_EVALIDATION, "field %s: key text longer than %zu bytes (padding %u)", f->name, cap,
                        s->pad);
    *text = buf;
    *len = (size_t)n;
    return DDB_OK;
}

static bool digits(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return true;
}

/* Apply a date-part filter to an ISO-8601 date text. */
static int date_part(const ddb_field_desc *f, uint8_t part, const char *t, size_t n, char *buf, const char **out,
                     size_t *olen, ddb_error *err)
{
    bool ok = n >= 4 && digits(t, 4);
    if (part != DDB_TP_YEAR)
        ok = ok && n >= 7 && t[4] == '-' && digits(t + 5, 2);
    if (part == DDB_TP_DAY)
        ok = ok && n >= 10 && t[7] == '-' && digits(t + 8, 2);
    if (!ok)
        return ddbi_fail(err, DDB_EVALIDATION, "field %s = \"%.*s\" is not an ISO-8601 date (YYYY-MM-DD...)", f->name,
                        (int)(n > 40 ? 40 : n), t);
    switch (part) {
    case DDB_TP_YEAR:
        *out = t;
        *olen = 4;
        break;
    case DDB_TP_MONTH:
        *out = t + 5;
        *olen = 2;
        break;
    case DDB_TP_DAY:
        *out = t + 8;
        *olen = 2;
        break;
    default: {
        int month = (t[5] - '0') * 10 + (t[6] - '0');
        if (month < 1 || month > 12)
            return ddbi_fail(err, DDB_EVALIDATION, "field %s = \"%.*s\" has month %d", f->name, (int)(n > 40 ? 40 : n), t,
                            month);
        buf[0] = 'Q';
        buf[1] = (char)('1' + (month - 1) / 3);
        *out = buf;
        *olen = 2;
    }
    }
    return DDB_OK;
}

void ddbi_ent_text_init(ddbi_ent_text *t, char *buf, size_t cap)
{
    *t = (ddbi_ent_text){buf, 0, cap, false};
    buf[0] = '\0';
}

int ddbi_ent_text_put(ddbi_ent_text *t, const char *s, size_t n)
{
    if (n >= t->cap - t->len) {
        if (n > SIZE_MAX / 2 - t->len)
            return DDB_ENOMEM;
        size_t cap = (t->len + n + 1) * 2;
        char *p = t->heap ? realloc(t->p, cap) : malloc(cap);
        if (!p)
            return DDB_ENOMEM;
        if (!t->heap)
            memcpy(p, t->p, t->len);
        t->p = p;
        t->cap = cap;
        t->heap = true;
    }
    memcpy(t->p + t->len, s, n);
    t->len += n;
    t->p[t->len] = '\0';
    return DDB_OK;
}

void ddbi_ent_text_free(ddbi_ent_text *t)
{
    if (t->heap)
        free(t->p);
    t->heap = false;
}

int ddbi_ent_render_prefix(const ddb_entity_desc *e, const ddb_template *t, const void *obj, uint16_t max_holes,
                          bool through_literal, ddbi_ent_text *b, bool *absent, ddb_error *err)
{
    *absent = false;
    uint16_t holes = 0;
    for (uint16_t i = 0; i < t->n; i++) {
        const ddb_tseg *s = &t->segs[i];
        if (s->lit) {
            if (holes >= max_holes && !through_literal)
                break;
            if (ddbi_ent_text_put(b, s->lit, strlen(s->lit)))
                return ddbi_fail_oom(err, __func__);
            if (holes >= max_holes)
                break;
            continue;
        }
        if (holes++ >= max_holes)
            break;
        const char *base;
        const ddb_field_desc *f = resolve(e, s, obj, &base);
        if (!f)
            return ddbi_fail(err, DDB_EINVAL, "entity %s: template hole with a bad field path", e->name);
        char buf[DDB_NUMBER_TEXT_MAX + 8], qbuf[4];
        const char *text = "";
        size_t len = 0;
        int rc = ddbi_ent_hole_text(f, base, s, buf, sizeof buf, &text, &len, absent, err);
        if (rc || *absent)
            return rc;
        if (s->part && (rc = date_part(f, s->part, text, len, qbuf, &text, &len, err)))
            return rc;
        size_t at = b->len;
        if (ddbi_ent_text_put(b, text, len))
            return ddbi_fail_oom(err, __func__);
        for (size_t j = at; s->kase && j < b->len; j++) {
            char c = b->p[j];
            if (s->kase == DDB_TC_LOWER && c >= 'A' && c <= 'Z')
                b->p[j] = (char)(c - 'A' + 'a');
            else if (s->kase == DDB_TC_UPPER && c >= 'a' && c <= 'z')
                b->p[j] = (char)(c - 'a' + 'A');
        }
    }
    return DDB_OK;
}

/* Which suffixes of text t[0..n) fit which tails of a template (holes
 * match any text, literals themselves): fit[i * (n + 1) + p] says whether
 * t[p..n) fits segs[i..nseg).  One pass from the end, O(nseg * n), so a
 * key text full of separators costs no more than another (a recursive
 * match would be exponential in the holes).  NULL when out of memory.
 * A key template's literal prefix and separators tell entity types apart,
 * e.g. "ORG#{org}" / "USER#{username}". */
bool *ddbi_ent_fit_table(const ddb_tseg *segs, uint16_t nseg, const char *t, size_t n)
{
    size_t w = n + 1;
    bool *fit = calloc((size_t)(nseg + 1) * w, sizeof *fit);
    if (!fit)
        return NULL;
    fit[(size_t)nseg * w + n] = true;
    for (uint16_t i = nseg; i-- > 0;) {
        bool *row = fit + (size_t)i * w, *next = row + w;
        if (segs[i].lit) {
            size_t l = strlen(segs[i].lit);
            for (size_t p = 0; p + l <= n; p++)
                row[p] = next[p + l] && !memcmp(t + p, segs[i].lit, l);
            continue;
        }
        bool any = false; /* does some t[q..) with q >= p fit the rest? */
        for (size_t p = w; p-- > 0;)
            row[p] = any = any || next[p];
    }
    return fit;
}

bool ddbi_ent_template_fits(const ddb_template *tp, const ddb_value *v)
{
    if (!v)
        return false;
    if (tp->type == DDB_TN)
        return v->type == DDB_TN;
    if (v->type != DDB_TS)
        return false;
    bool *fit = ddbi_ent_fit_table(tp->segs, tp->n, v->u.s, v->len);
    bool ok = fit && fit[0];
    free(fit);
    return ok;
}

uint16_t ddbi_ent_holes(const ddb_template *t)
{
    uint16_t n = 0;
    for (uint16_t i = 0; i < t->n; i++)
        n += t->segs[i].lit == NULL;
    return n;
}

int ddbi_ent_render_plain(const ddb_entity_desc *e, const ddb_template *t, const void *obj, ddb_arena *a,
                          ddb_value **out, ddb_error *err)
{
    *out = NULL;
    if (t->type == DDB_TN && t->n == 1 && !t->segs[0].lit && !t->segs[0].pad && !t->segs[0].part) {
        /* exactly one numeric field: its value */
        const char *base;
        const ddb_field_desc *f = resolve(e, &t->segs[0], obj, &base);
        if (!f)
            return ddbi_fail(err, DDB_EINVAL, "entity %s: template hole with a bad field path", e->name);
        if (f->type == DDB_F_INT)
            *out = ddb_v_i64(a, ddbi_ent_int_get(f, base));
        else if (f->type == DDB_F_UINT)
            *out = ddb_v_u64(a, (uint64_t)ddbi_ent_int_get(f, base));
        else if (f->type == DDB_F_FLOAT)
            return ddb_v_double(a, ddbi_ent_float_get(f, base), out, err);
        if (f->type == DDB_F_INT || f->type == DDB_F_UINT)
            return *out ? DDB_OK : ddbi_fail_oom(err, __func__);
    }
    char buf[256];
    ddbi_ent_text b;
    ddbi_ent_text_init(&b, buf, sizeof buf);
    bool absent;
    int rc = ddbi_ent_render_prefix(e, t, obj, UINT16_MAX, true, &b, &absent, err);
    if (!rc && !absent) {
        if (t->type == DDB_TN)
            rc = ddb_v_n(a, b.p, out, err); /* text that must be a number, e.g. {order_date|year} */
        else if (!(*out = ddb_v_s(a, b.p, b.len)))
            rc = ddbi_fail_oom(err, __func__);
    }
    ddbi_ent_text_free(&b);
    return rc;
}

/* Store a rendered derived value into its C field. */
static int store_derived(const ddb_field_desc *f, const ddb_value *v, char *p, ddb_arena *a, ddb_error *err)
{
    if (f->type == DDB_F_CHARS && v->len >= f->size)
        return ddbi_fail(err, DDB_EVALIDATION, "derived field %s needs %u bytes, it holds %u", f->name, v->len + 1u,
                        f->size);
    if ((f->type == DDB_F_CHARS || f->type == DDB_F_STRING) && v->type == DDB_TN) {
        ddb_value s = *v;
        s.type = DDB_TS;
        return ddbi_ent_field_from(f, &s, p, a, err);
    }
    if ((f->type == DDB_F_INT || f->type == DDB_F_UINT || f->type == DDB_F_FLOAT) && v->type == DDB_TS) {
        ddb_value *n;
        int rc = ddb_v_n(a, v->u.s, &n, err);
        if (rc)
            return ddbi_fail(err, rc, "derived field %s: \"%s\" is not a number", f->name, v->u.s);
        return ddbi_ent_field_from(f, n, p, a, err);
    }
    return ddbi_ent_field_from(f, v, p, a, err);
}

int ddbi_ent_fill_derived(const ddb_entity_desc *e, void *obj, ddb_arena *a, ddb_error *err)
{
    for (uint16_t i = 0; i < e->st->n_fields; i++) {
        const ddb_field_desc *f = &e->st->fields[i];
        if (!(f->flags & DDB_FIELD_DERIVED) || !f->derived)
            continue;
        ddb_value *v;
        int rc = ddbi_ent_render_plain(e, f->derived, obj, a, &v, err);
        if (rc)
            return rc;
        if (v && (rc = store_derived(f, v, (char *)obj + f->offset, a, err)))
            return rc;
    }
    return DDB_OK;
}

bool ddbi_ent_template_uses(const ddb_template *t, const ddb_ent_mask *changed)
{
    for (uint16_t i = 0; i < t->n; i++)
        if (!t->segs[i].lit && t->segs[i].path_len && ddb_ent_mask_has(changed, t->segs[i].path[0]))
            return true;
    return false;
}
