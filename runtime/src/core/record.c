/* core/: walking the top-level attributes of stored records without
 * decoding them (see record.h).  Calls codec.h for whole values. */
#include "core/record.h"

#include "core/codec.h"

#define varint ddbi_varint_at

#include <string.h>

int ddbi_rec_iter_init(ddbi_rec_iter *it, const uint8_t *rec, size_t n)
{
    const uint8_t *p, *end = rec + n;
    uint64_t count;
    ddbi_rec_header h;
    if (ddbi_record_header(rec, n, &h) || !(p = varint(h.body, end, &count)) || count > (uint64_t)(end - p))
        return DDB_ECORRUPT;
    it->p = p;
    it->end = end;
    it->left = count;
    return DDB_OK;
}

int ddbi_rec_find(const uint8_t *rec, size_t n, const char *name, size_t name_len, ddbi_rec_attr *at)
{
    ddbi_rec_iter it;
    int rc = ddbi_rec_iter_init(&it, rec, n);
    if (rc)
        return rc;
    while ((rc = ddbi_rec_next(&it, at)) == 1) {
        /* names are short: a byte loop beats a call to memcmp */
        size_t m = at->name_len < name_len ? at->name_len : name_len, i = 0;
        while (i < m && at->name[i] == name[i])
            i++;
        int c = i < m ? ((unsigned char)at->name[i] < (unsigned char)name[i] ? -1 : 1)
                      : (at->name_len < name_len ? -1 : at->name_len > name_len);
        if (!c)
            return 1;
        if (c > 0)
            return 0; /* sorted: it is not further on */
    }
    return rc;
}

/* The name (*name, *len) of the hinted attribute at offset off of the
 * body; DDB_ECORRUPT when off is past the record or no name fits there. */
static int hinted_name(const ddbi_rec_header *h, const uint8_t *end, uint64_t off, const uint8_t **name,
                       uint32_t *len)
{
    *name = NULL;
    if (off >= (uint64_t)(end - h->body))
        return DDB_ECORRUPT;
    return ddbi_rec_span(h->body + off, end, name, len) ? DDB_OK : DDB_ECORRUPT;
}

int ddbi_rec_find_names(const uint8_t *rec, size_t n, const ddbi_rec_names *w, ddbi_rec_attr at[DDBI_REC_NAMES],
                        bool found[DDBI_REC_NAMES])
{
    int want = 0;
    for (int i = 0; i < DDBI_REC_NAMES; i++) {
        found[i] = false;
        want += w->name[i] != NULL;
    }
    const uint8_t *end = rec + n;
    ddbi_rec_header h;
    if (ddbi_record_header(rec, n, &h))
        return DDB_ECORRUPT;
    /* the hint first: each offset's name read, its value only when wanted */
    const uint8_t *q = h.hint;
    for (uint32_t k = 0; want && k < h.n_hint; k++) {
        uint64_t off;
        const uint8_t *name;
        uint32_t len;
        if (!(q = varint(q, h.body, &off))) /* ddbi_record_header read them */
            return DDB_ECORRUPT;
        int rc = hinted_name(&h, end, off, &name, &len);
        if (rc)
            return rc;
        for (int i = 0; i < DDBI_REC_NAMES; i++)
            if (w->name[i] && !found[i] && w->len[i] == len && !memcmp(w->name[i], name, len)) {
                ddbi_rec_iter one = {h.body + off, end, 1};
                if (ddbi_rec_next(&one, &at[i]) != 1)
                    return DDB_ECORRUPT;
                found[i] = true;
                want--;
                break;
            }
    }
    if (!want)
        return DDB_OK;
    /* the rest (version 1 records, names the hint lacks): the walk, which
     * stops once everything wanted is found */
    ddbi_rec_iter it;
    ddbi_rec_attr a;
    int rc = ddbi_rec_iter_init(&it, rec, n);
    while (!rc && want && (rc = ddbi_rec_next(&it, &a)) == 1) {
        rc = DDB_OK;
        for (int i = 0; i < DDBI_REC_NAMES; i++)
            if (w->name[i] && !found[i] && w->len[i] == a.name_len && !memcmp(w->name[i], a.name, a.name_len)) {
                at[i] = a;
                found[i] = true;
                want--;
            }
    }
    return rc < 0 ? rc : DDB_OK;
}

int ddbi_rec_hint_check(const uint8_t *rec, size_t n)
{
    ddbi_rec_header h;
    if (ddbi_record_header(rec, n, &h))
        return DDB_ECORRUPT;
    const uint8_t *q = h.hint;
    for (uint32_t k = 0; k < h.n_hint; k++) {
        uint64_t off;
        if (!(q = varint(q, h.body, &off)))
            return DDB_ECORRUPT;
        /* an attribute must start there: walk to it */
        if (off >= (uint64_t)(rec + n - h.body))
            return DDB_ECORRUPT;
        const uint8_t *at = h.body + off;
        ddbi_rec_iter it;
        ddbi_rec_attr a;
        int rc = ddbi_rec_iter_init(&it, rec, n);
        while (!rc && it.p < at && (rc = ddbi_rec_next(&it, &a)) == 1)
            rc = DDB_OK;
        if (rc < 0 || it.p != at || !it.left)
            return DDB_ECORRUPT;
    }
    return DDB_OK;
}

int ddbi_rec_value(const ddbi_rec_attr *at, ddb_arena *a, ddb_value **out)
{
    return ddbi_decode_value(at->enc, at->enc_len, a, out);
}

bool ddbi_rec_view(const ddbi_rec_attr *at, ddb_value *out)
{
    if (at->type != DDB_TS && at->type != DDB_TB)
        return false;
    memset(out, 0, sizeof *out);
    out->type = at->type;
    out->u.s = (char *)at->val;
    out->len = at->len;
    return true;
}
