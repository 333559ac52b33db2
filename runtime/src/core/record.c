/* core/: walking the top-level attributes of stored records without
 * decoding them (see record.h).  Calls codec.h for whole values. */
#include "core/record.h"

#include "core/codec.h"

#define varint ddbi_varint_at

#include <string.h>

int ddbi_rec_iter_init(ddbi_rec_iter *it, const uint8_t *rec, size_t n)
{
    const uint8_t *p = rec, *end = rec + n;
    uint64_t size, count;
    if (n < 1 || *p++ != DDBI_RECORD_VERSION || !(p = varint(p, end, &size)) || !(p = varint(p, end, &count)) ||
        count > (uint64_t)(end - p))
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
