/* engine/: ClientRequestTokens of TransactWriteItems, kept durably in the
 * meta database in the same LMDB transaction as the writes they guard.
 *
 * "k/<token>" -> 8 bytes first-completion time (ms, little-endian), 16
 * bytes digest of the request, 8 bytes read units (double) a replay
 * reports; "K/<8 bytes time, big-endian><token>" -> "" orders tokens by age
 * so that each stored token removes a few expired ones.  A token is
 * valid for 10 minutes after the request that first used it completed
 * (TransactWriteItems, ClientRequestToken).  Calls LMDB, xxhash, core/ and
 * expr/ (an expression's identity). */
#include "engine/tokens.h"

#include "core/codec.h"
#include "core/error.h"
#include "engine/write.h"

#include <errno.h>
#include <string.h>
#include <xxhash.h>

#define TOKEN_VAL 32
#define SWEEP_MAX 16

int ddbi_tx_digest(const ddb_tx_op *ops, size_t n, uint8_t out[16])
{
    ddb_buf b = {0};
    int rc = ddbi_buf_varint(&b, n);
    for (size_t i = 0; !rc && i < n; i++) {
        const ddb_tx_op *op = &ops[i];
        size_t tl = strlen(op->table);
        if ((rc = ddbi_buf_varint(&b, (uint64_t)op->kind)) || (rc = ddbi_buf_varint(&b, tl)) ||
            (rc = ddbi_buf_put(&b, op->table, tl)) ||
            (rc = ddbi_encode_item(&b, ddb_item_map(op->item), 0)) ||
            (rc = ddbi_expr_identity(op->update, &b)) || (rc = ddbi_expr_identity(op->condition, &b)) ||
            (rc = ddbi_buf_varint(&b, (uint64_t)op->return_on_condition_failure)))
            break;
        rc = op->values ? ddbi_encode_item(&b, ddb_item_map(op->values), 0) : ddbi_buf_varint(&b, 0);
    }
    if (!rc) {
        XXH128_hash_t h = XXH3_128bits(b.p, b.len);
        XXH128_canonical_t c;
        XXH128_canonicalFromHash(&c, h);
        memcpy(out, c.digest, 16);
    }
    ddbi_buf_free(&b);
    return rc ? DDB_ENOMEM : DDB_OK;
}

static void put_be64(uint8_t *p, uint64_t v)
{
    for (int i = 7; i >= 0; i--, v >>= 8)
        p[i] = (uint8_t)v;
}

int ddbi_token_lookup(ddbi_engine *db, MDB_txn *txn, const char *token, const uint8_t digest[16], int64_t now_ms,
                      bool *replay, double *read_units, ddb_error *err)
{
    *replay = false;
    *read_units = 0;
    char key[2 + DDBI_TOKEN_MAX];
    size_t tl = strlen(token);
    memcpy(key, "k/", 2);
    memcpy(key + 2, token, tl);
    MDB_val k = {2 + tl, key}, v;
    int g = mdb_get(txn, db->meta, &k, &v);
    if (g == MDB_NOTFOUND)
        return DDB_OK;
    if (g)
        return ddbi_mdb_fail(err, g, "TransactWriteItems: reading the client request token");
    if (v.mv_size != TOKEN_VAL)
        return ddbi_fail(err, DDB_ECORRUPT, "the stored client request token %s has %zu bytes, not %d", token,
                         v.mv_size, TOKEN_VAL);
    int64_t at;
    memcpy(&at, v.mv_data, 8);
    if (now_ms - at >= DDBI_TOKEN_TTL_MS)
        return DDB_OK; /* expired: a new request */
    if (memcmp((const uint8_t *)v.mv_data + 8, digest, 16) != 0)
        /* TransactWriteItems, Errors: IdempotentParameterMismatchException */
        return ddbi_fail(err, DDB_EIDEMPOTENT,
                         "DynamoDB rejected the request because you retried a request with a different payload but "
                         "with an idempotent token that was already used.");
    memcpy(read_units, (const uint8_t *)v.mv_data + 24, 8);
    *replay = true;
    return DDB_OK;
}

/* Remove up to SWEEP_MAX tokens older than the 10 minutes. */
static int sweep(ddbi_engine *db, MDB_txn *txn, int64_t now_ms, ddb_error *err)
{
    MDB_cursor *c;
    int rc = mdb_cursor_open(txn, db->meta, &c);
    if (rc)
        return ddbi_mdb_fail(err, rc, "TransactWriteItems: token sweep");
    MDB_val k = {2, "K/"}, v;
    int g = mdb_cursor_get(c, &k, &v, MDB_SET_RANGE);
    for (int n = 0; !rc && g == 0 && n < SWEEP_MAX; n++) {
        if (k.mv_size < 10 || memcmp(k.mv_data, "K/", 2) != 0)
            break;
        const uint8_t *p = (const uint8_t *)k.mv_data + 2;
        uint64_t at = 0;
        for (int i = 0; i < 8; i++)
            at = at << 8 | p[i];
        if (now_ms - (int64_t)at < DDBI_TOKEN_TTL_MS)
            break;
        char tk[2 + DDBI_TOKEN_MAX];
        size_t tl = k.mv_size - 10;
        if (tl > DDBI_TOKEN_MAX)
            tl = DDBI_TOKEN_MAX;
        memcpy(tk, "k/", 2);
        memcpy(tk + 2, p + 8, tl);
        MDB_val tkv = {2 + tl, tk};
        int d = ddbi_kv_del(db, txn, db->meta, &tkv, NULL);
        if ((d && d != MDB_NOTFOUND) || (d = ddbi_kv_cursor_del(db, c)))
            rc = ddbi_mdb_fail(err, d, "TransactWriteItems: token sweep");
        else
            g = mdb_cursor_get(c, &k, &v, MDB_GET_CURRENT);
        if (g == EINVAL) /* the cursor moved past the last entry */
            g = MDB_NOTFOUND;
    }
    mdb_cursor_close(c);
    return rc;
}

int ddbi_token_store(ddbi_engine *db, MDB_txn *txn, const char *token, const uint8_t digest[16], int64_t now_ms,
                     double read_units, ddb_error *err)
{
    int rc = sweep(db, txn, now_ms, err);
    if (rc)
        return rc;
    size_t tl = strlen(token);
    char key[2 + DDBI_TOKEN_MAX], ord[10 + DDBI_TOKEN_MAX];
    uint8_t val[TOKEN_VAL];
    memcpy(key, "k/", 2);
    memcpy(key + 2, token, tl);
    MDB_val k = {2 + tl, key}, old;
    if (mdb_get(txn, db->meta, &k, &old) == 0 && old.mv_size == TOKEN_VAL) {
        /* an expired token used again: drop its place in the age order */
        int64_t at;
        memcpy(&at, old.mv_data, 8);
        memcpy(ord, "K/", 2);
        put_be64((uint8_t *)ord + 2, (uint64_t)at);
        memcpy(ord + 10, token, tl);
        MDB_val ok = {10 + tl, ord};
        int d = ddbi_kv_del(db, txn, db->meta, &ok, NULL);
        if (d && d != MDB_NOTFOUND)
            return ddbi_mdb_fail(err, d, "TransactWriteItems: storing the client request token");
    }
    memcpy(val, &now_ms, 8);
    memcpy(val + 8, digest, 16);
    memcpy(val + 24, &read_units, 8);
    MDB_val v = {TOKEN_VAL, val};
    memcpy(ord, "K/", 2);
    put_be64((uint8_t *)ord + 2, (uint64_t)now_ms);
    memcpy(ord + 10, token, tl);
    MDB_val ok = {10 + tl, ord}, empty = {0, ""};
    if ((rc = ddbi_kv_put(db, txn, db->meta, &k, &v, 0)) || (rc = ddbi_kv_put(db, txn, db->meta, &ok, &empty, 0)))
        return ddbi_mdb_fail(err, rc, "TransactWriteItems: storing the client request token");
    return DDB_OK;
}
