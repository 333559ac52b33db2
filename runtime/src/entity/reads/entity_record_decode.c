/* Entity room: stored records -> entity structs, the typed reads' decode
 * without an intermediate ddb_item.  A record's attributes (sorted by name)
 * are walked once against the entity's fields sorted by attribute name;
 * scalars go straight into their fields (char[N] copied, strings copied
 * into the arena, bytes pointing into the record's arena copy or copied
 * from a borrowed record (api/backend.h), integers
 * parsed in place), anything else is decoded as one value and handed to
 * the item path's field decoder, which also words every type error the
 * same way.  The attributes are matched with the names of the entity's
 * read plan (entity_plan.c).  Calls core/record.h, core/number.h and this room's
 * unmarshalling and field accessors. */
#include "entity/reads/entity_reads.h"

#include "core/error.h"
#include "core/number.h"
#include "core/record.h"

#include <string.h>

static int damaged(const ddb_entity_desc *e, int rc, ddb_error *err)
{
    if (rc == DDB_ENOMEM)
        return ddbi_fail_oom(err, "reading a record");
    return ddbi_fail(err, DDB_ECORRUPT, "%s: a stored item of table %s is unreadable (damaged record)", e->name,
                     e->table->def.name);
}

int ddbi_ent_record_item(const ddb_entity_desc *e, const ddbi_rec *rec, ddb_arena *a, ddb_item **out,
                         ddb_error *err)
{
    int rc = ddbi_decode_item(rec->p, rec->len, a, out);
    return rc ? damaged(e, rc, err) : DDB_OK;
}

int ddbi_ent_record_type(const ddb_entity_desc *e, const ddbi_rec *rec, const char **name, size_t *len,
                         ddb_error *err)
{
    ddbi_rec_attr at;
    const char *ta = e->table->type_attr;
    int rc = ddbi_rec_find(rec->p, rec->len, ta, strlen(ta), &at);
    if (rc < 0)
        return damaged(e, rc, err);
    *name = rc && at.type == DDB_TS ? (const char *)at.val : NULL;
    *len = rc && at.type == DDB_TS ? at.len : 0;
    return DDB_OK;
}

/* A plain decimal integer (optional '-', 1..18 digits) without the number
 * parser; false for anything else. */
static inline bool small_int(const uint8_t *s, uint32_t n, int64_t *out)
{
    bool neg = n && s[0] == '-';
    uint32_t i = neg;
    if (n == i || n - i > 18)
        return false;
    int64_t v = 0;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (s[i] - '0');
    }
    *out = neg ? -v : v;
    return true;
}

/* Copy n bytes: a short run (key text, names) as two overlapping words, no
 * call; exactly s[0..n) read and d[0..n) written. */
static inline void copy_short(char *d, const uint8_t *s, uint32_t n)
{
    if (n >= 8 && n <= 16) {
        uint64_t x, y;
        memcpy(&x, s, 8);
        memcpy(&y, s + n - 8, 8);
        memcpy(d, &x, 8);
        memcpy(d + n - 8, &y, 8);
    } else if (n >= 4 && n < 8) {
        uint32_t x, y;
        memcpy(&x, s, 4);
        memcpy(&y, s + n - 4, 4);
        memcpy(d, &x, 4);
        memcpy(d + n - 4, &y, 4);
    } else if (n < 4) {
        for (uint32_t i = 0; i < n; i++)
            d[i] = (char)s[i];
    } else {
        memcpy(d, s, n);
    }
}

/* The scalars decoded in place: 1 done, 0 not this way (the value path
 * decodes it, and words any error).  borrowed: the record is the
 * backend's, for this call only (bytes are copied into a, not pointed to). */
static inline int scalar_in(const ddbi_ent_plan_at *fx, const ddbi_rec_attr *at, char *p, ddb_arena *a,
                            bool borrowed)
{
    int64_t x;
    switch (fx->type) {
    case DDB_F_CHARS:
        if (at->type != DDB_TS || at->len >= fx->size)
            return 0;
        copy_short(p, at->val, at->len);
        p[at->len] = '\0';
        return 1;
    case DDB_F_STRING: {
        if (at->type != DDB_TS)
            return 0;
        char *s = ddb_arena_alloc(a, (size_t)at->len + 1);
        if (!s)
            return 0; /* the value path reports it */
        memcpy(s, at->val, at->len);
        s[at->len] = '\0';
        *(char **)(void *)p = s;
        return 1;
    }
    case DDB_F_BYTES: { /* the record the arena's copy: point into it */
        if (at->type != DDB_TB)
            return 0;
        uint8_t *b = (uint8_t *)at->val;
        if (borrowed && !(b = ddb_arena_alloc(a, at->len ? at->len : 1))) /* empty: not NULL (absent) */
            return 0; /* the value path reports it */
        if (borrowed)
            memcpy(b, at->val, at->len);
        *(ddb_bytes *)(void *)p = (ddb_bytes){b, at->len};
        return 1;
    }
    case DDB_F_BOOL:
        if (at->type != DDB_TBOOL)
            return 0;
        *(bool *)(void *)p = *at->val != 0;
        return 1;
    case DDB_F_INT:
    case DDB_F_UINT: {
        if (at->type != DDB_TN || !small_int(at->val, at->len, &x))
            return 0;
        int bits = (int)fx->size * 8;
        if (fx->type == DDB_F_INT ? (bits < 64 && (x < -((int64_t)1 << (bits - 1)) || x >= ((int64_t)1 << (bits - 1))))
                                 : (x < 0 || (bits < 64 && x >= ((int64_t)1 << bits))))
            return 0; /* out of range: the value path words it */
        ddbi_ent_int_set(fx->f, p, x);
        return 1;
    }
    case DDB_F_FLOAT: {
        ddb_dec d;
        if (at->type != DDB_TN || ddbi_dec_parse((const char *)at->val, at->len, &d, NULL))
            return 0;
        double v = ddbi_dec_to_double(&d);
        if (fx->size == 4)
            *(float *)(void *)p = (float)v;
        else
            *(double *)(void *)p = v;
        return 1;
    }
    default:
        return 0;
    }
}

/* Is at called as the plan's name x?  end: the record's end.  Names are
 * short: one of up to 8 bytes that the record has 8 bytes for (a value
 * follows it) is compared as one word with x->head. */
static inline bool same_name(const ddbi_ent_plan_at *x, const ddbi_rec_attr *at, const uint8_t *end)
{
    if (x->len != at->name_len)
        return false;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (x->len <= 8 && (size_t)(end - (const uint8_t *)at->name) >= 8) {
        uint64_t w;
        memcpy(&w, at->name, 8);
        uint64_t keep = x->len == 8 ? UINT64_MAX : ((uint64_t)1 << (x->len * 8)) - 1; /* its first len bytes */
        return (w & keep) == x->head;
    }
#endif
    for (uint32_t i = 0; i < x->len; i++)
        if (x->name[i] != at->name[i])
            return false;
    return true;
}

/* Are x[0..xl) and y[0..yl) the same bytes?  (Type names are short:
 * compared inline.) */
static inline bool same_text(const uint8_t *x, const char *y, uint32_t xl, uint32_t yl)
{
    if (xl != yl)
        return false;
    for (uint32_t i = 0; i < xl; i++)
        if (x[i] != (uint8_t)y[i])
            return false;
    return true;
}

int ddbi_ent_fields_from_record(const ddbi_ent_plan *pl, const ddbi_rec *rec, void *obj, ddb_arena *a,
                                ddb_ent_mask *mask, bool *other, ddb_error *err)
{
    const ddb_entity_desc *e = pl->e;
    ddbi_rec_iter it;
    ddbi_rec_attr at;
    int rc = ddbi_rec_iter_init(&it, rec->p, rec->len);
    if (rc)
        return damaged(e, rc, err);
    bool typed = !other; /* the type attribute seen (or not asked about) */
    /* Every attribute is walked (and so checked), merged with the plan's
     * names (both sorted): a record of e mostly holds only those, each
     * found by one comparison. */
    uint32_t j = 0;             /* the plan's next name */
    const char *prev = NULL;    /* the attribute before */
    uint32_t prev_len = 0;
    bool prev_known = false;    /* it was one of the plan's names */
    int pending = DDB_OK;       /* the first field's error */
    uint64_t low = 0;           /* the fields of mask's first word set */
    while ((rc = ddbi_rec_next(&it, &at)) == 1) {
        const ddbi_ent_plan_at *m = NULL; /* the plan's name it is */
        if (j < pl->n_at && same_name(&pl->at[j], &at, it.end)) {
            m = &pl->at[j++]; /* the plan's next name: the common case */
        } else {
            while (j < pl->n_at) {
                const ddbi_ent_plan_at *x = &pl->at[j];
                int c = ddbi_ent_name_cmp(x->name, x->len, at.name, at.name_len);
                if (c > 0)
                    break;
                j++;
                if (!c) {
                    m = x;
                    break;
                }
            }
        }
        bool known = m != NULL;
        int32_t fx = m ? m->field : DDBI_PLAN_NONE;
        /* stored names are sorted and unique: anything else is damage (two
         * of the plan's names, matched in turn, are in order already) */
        if (prev && !(known && prev_known) && ddbi_ent_name_cmp(prev, prev_len, at.name, at.name_len) >= 0)
            return damaged(e, DDB_ECORRUPT, err);
        prev = at.name;
        prev_len = at.name_len;
        prev_known = known;
        if (fx == DDBI_PLAN_TYPE && !typed) {
            typed = true;
            if (at.type != DDB_TS || !same_text(at.val, e->name, at.len, pl->name_len))
                *other = true; /* another entity's item: walked on (checked), not decoded */
        }
        if (fx < 0 || pending || (other && *other))
            continue;
        const ddb_field_desc *f = m->f;
        char *p = (char *)obj + m->offset;
        if (!scalar_in(m, &at, p, a, rec->borrowed)) {
            ddb_value *v;
            if ((rc = ddbi_rec_value(&at, a, &v)))
                return damaged(e, rc, err);
            if ((rc = ddbi_ent_field_from(f, v, p, a, err))) {
                /* answered once the record is walked: damage further on
                 * comes first, and another entity's item is no error */
                pending = rc;
                continue;
            }
        }
        if (fx < 64)
            low |= (uint64_t)1 << fx; /* (in a register: mask's memory is written once) */
        else
            ddb_ent_mask_set(mask, (uint16_t)fx);
    }
    mask->w[0] |= low;
    if (!rc && !typed)
        *other = true; /* no type attribute: not e's */
    return rc ? damaged(e, rc, err) : other && *other ? DDB_OK : pending;
}
