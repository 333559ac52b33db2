/* Entity room: stored records -> entity structs, the typed reads' decode
 * without an intermediate ddb_item.  A record's attributes (sorted by name)
 * are walked once against the entity's fields sorted by attribute name;
 * scalars go straight into their fields (char[N] copied, strings copied
 * into the arena, bytes pointing into the record's arena copy, integers
 * parsed in place), anything else is decoded as one value and handed to
 * the item path's field decoder, which also words every type error the
 * same way.  The attributes are matched with the names of the entity's
 * read plan (entity_plan.c).  Calls core/record.h, core/number.h and this room's
 * unmarshalling and field accessors. */
#include "entity/entity_internal.h"

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

/* The scalars decoded in place: 1 done, 0 not this way (the value path
 * decodes it, and words any error). */
static int scalar_in(const ddb_field_desc *f, const ddbi_rec_attr *at, char *p, ddb_arena *a)
{
    int64_t x;
    switch (f->type) {
    case DDB_F_CHARS:
        if (at->type != DDB_TS || at->len >= f->size)
            return 0;
        memcpy(p, at->val, at->len);
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
    case DDB_F_BYTES: /* the record is the arena's copy: point into it */
        if (at->type != DDB_TB)
            return 0;
        *(ddb_bytes *)(void *)p = (ddb_bytes){(uint8_t *)at->val, at->len};
        return 1;
    case DDB_F_BOOL:
        if (at->type != DDB_TBOOL)
            return 0;
        *(bool *)(void *)p = *at->val != 0;
        return 1;
    case DDB_F_INT:
    case DDB_F_UINT: {
        if (at->type != DDB_TN || !small_int(at->val, at->len, &x))
            return 0;
        int bits = f->size * 8;
        if (f->type == DDB_F_INT ? (bits < 64 && (x < -((int64_t)1 << (bits - 1)) || x >= ((int64_t)1 << (bits - 1))))
                                 : (x < 0 || (bits < 64 && x >= ((int64_t)1 << bits))))
            return 0; /* out of range: the value path words it */
        ddbi_ent_int_set(f, p, x);
        return 1;
    }
    case DDB_F_FLOAT: {
        ddb_dec d;
        if (at->type != DDB_TN || ddbi_dec_parse((const char *)at->val, at->len, &d, NULL))
            return 0;
        double v = ddbi_dec_to_double(&d);
        if (f->size == 4)
            *(float *)(void *)p = (float)v;
        else
            *(double *)(void *)p = v;
        return 1;
    }
    default:
        return 0;
    }
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
    while ((rc = ddbi_rec_next(&it, &at)) == 1) {
        int32_t fx = DDBI_PLAN_NONE;
        bool known = false;
        while (j < pl->n_at) {
            const ddbi_ent_plan_at *x = &pl->at[j];
            int c = ddbi_ent_name_cmp(x->name, x->len, at.name, at.name_len);
            if (c > 0)
                break;
            j++;
            if (!c) {
                fx = x->field;
                known = true;
                break;
            }
        }
        /* stored names are sorted and unique: anything else is damage (two
         * of the plan's names, matched in turn, are in order already) */
        if (prev && !(known && prev_known) && ddbi_ent_name_cmp(prev, prev_len, at.name, at.name_len) >= 0)
            return damaged(e, DDB_ECORRUPT, err);
        prev = at.name;
        prev_len = at.name_len;
        prev_known = known;
        if (fx == DDBI_PLAN_TYPE && !typed) {
            typed = true;
            if (at.type != DDB_TS || at.len != pl->name_len || memcmp(at.val, e->name, pl->name_len))
                *other = true; /* another entity's item: walked on (checked), not decoded */
        }
        if (fx < 0 || pending || (other && *other))
            continue;
        const ddb_field_desc *f = &e->st->fields[fx];
        char *p = (char *)obj + f->offset;
        if (!scalar_in(f, &at, p, a)) {
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
        ddb_ent_mask_set(mask, (uint16_t)fx);
    }
    if (!rc && !typed)
        *other = true; /* no type attribute: not e's */
    return rc ? damaged(e, rc, err) : other && *other ? DDB_OK : pending;
}
