/* engine/: BatchWriteItem, BatchGetItem, TransactWriteItems, TransactGetItems.
 * May call core/ and expr/; the room above (streams/) only through its hooks. */
#include "core/backend.h"
#include "core/codec.h"
#include "engine/engine.h"
#include "core/error.h"
#include "engine/tokens.h"
#include "engine/keys.h"
#include "engine/stored.h"
#include "core/value.h"
#include "engine/write.h"

#include <stdio.h>
#include <string.h>

#define BATCH_WRITE_MAX 25
#define BATCH_GET_MAX 100
#define TX_MAX 100
#define TX_BYTES_MAX (4u * 1024u * 1024u)

/* A transaction's items over 4 MB (API_TransactWriteItems,
 * API_TransactGetItems: "The aggregate size of the items in the transaction
 * cannot exceed 4 MB").  DynamoDB's exact words are not published; ScyllaDB's
 * test/alternator/test_transact.py (test_transact_write_items_put_5MB, run
 * against DynamoDB) finds "size cannot exceed" in them and says DynamoDB
 * calls it the "transaction payload"; these hold both. */
static int tx_too_large(size_t bytes, ddb_error *err)
{
    return ddbi_fail(err, DDB_ELIMIT, "Transaction payload size cannot exceed 4 MB (%zu bytes, at most %u)", bytes,
                     TX_BYTES_MAX);
}

/* Two requests on one item of one table: DynamoDB refuses the request. */
static int same_item(const char *ta, const ddb_key *ka, const char *tb, const ddb_key *kb)
{
    return strcmp(ta, tb) == 0 && ka->len == kb->len && memcmp(ka->b, kb->b, ka->len) == 0;
}

/* ---- How many requests: DynamoDB's words ----
 * An empty request and too many requests for one table break the request
 * model's constraints ("1 validation error detected: ..."); too many in all
 * is "Too many items requested for the ... call".  Sources: the AWS DAX
 * client aws/aws-dax-go (empty RequestItems), moto's tests written against
 * DynamoDB (BatchGetItem keys of one table, TransactItems over 100),
 * dynalite test/batchWriteItem.js (over 25 requests); the limits:
 * API_BatchWriteItem.html, API_BatchGetItem.html, API_TransactWriteItems.html.
 * The value DynamoDB echoes (the Java form of the request) is summarised. */
static const char CONSTRAINT[] = "1 validation error detected: Value ";

static int requests_empty(const char *field, ddb_error *err)
{
    bool tx = strcmp(field, "transactItems") == 0;
    return ddbi_fail(err, DDB_EVALIDATION,
                    "%s'%s' at '%s' failed to satisfy constraint: Member must have length greater than or equal to 1",
                    CONSTRAINT, tx ? "[]" : "{}", field);
}

/* The table with the most requests and how many it has (the first such).
 * Quadratic: the caller bounds n. */
static const char *busiest_table(const void *ops, size_t n, const char *(*table_of)(const void *, size_t),
                                 size_t *count)
{
    const char *best = NULL;
    *count = 0;
    for (size_t i = 0; i < n; i++) {
        size_t c = 0;
        bool seen = false;
        for (size_t j = 0; j < n && !seen; j++) {
            seen = j < i && strcmp(table_of(ops, j), table_of(ops, i)) == 0;
            c += strcmp(table_of(ops, j), table_of(ops, i)) == 0;
        }
        if (!seen && c > *count) {
            *count = c;
            best = table_of(ops, i);
        }
    }
    return best;
}

static const char *bw_table(const void *ops, size_t i) { return ((const ddb_batch_write_op *)ops)[i].table; }

/* BatchWriteItem and BatchGetItem: n requests (each with a table). */
static int check_batch_count(const char *what, const void *ops, size_t n, size_t max,
                             const char *(*table_of)(const void *, size_t), ddb_error *err)
{
    if (n == 0)
        return requests_empty("requestItems", err);
    if (n <= max)
        return DDB_OK;
    /* the first 16 * max requests tell which table has too many (any
     * ordinary request; a pathological one gets the general answer) */
    size_t c;
    const char *t = busiest_table(ops, n < 16 * max ? n : 16 * max, table_of, &c);
    bool get = what[5] == 'G';
    if (c > max && get)
        return ddbi_fail(err, DDB_ELIMIT,
                        "%s'[%zu keys]' at 'requestItems.%s.member.keys' failed to satisfy constraint: Member must "
                        "have length less than or equal to %zu",
                        CONSTRAINT, c, t, max);
    if (c > max)
        return ddbi_fail(err, DDB_ELIMIT,
                        "%s'{%s=[%zu write requests]}' at 'requestItems' failed to satisfy constraint: Map value must "
                        "satisfy constraint: [Member must have length less than or equal to %zu, Member must have "
                        "length greater than or equal to 1]",
                        CONSTRAINT, t, c, max);
    return ddbi_fail(err, DDB_ELIMIT, "Too many items requested for the %s call (%zu %s, at most %zu)", what, n,
                    get ? "keys" : "requests", max);
}

/* TransactWriteItems and TransactGetItems: 1..100 items. */
static int check_tx_count(size_t n, ddb_error *err)
{
    if (n == 0)
        return requests_empty("transactItems", err);
    if (n > TX_MAX)
        return ddbi_fail(err, DDB_ELIMIT,
                        "%s'[%zu items]' at 'transactItems' failed to satisfy constraint: Member must have length less "
                        "than or equal to %d",
                        CONSTRAINT, n, TX_MAX);
    return DDB_OK;
}

/* The table key of a request's item, for duplicate detection. */
static int request_key(ddbi_engine *db, MDB_txn *txn, const char *table, const ddb_item *item, bool whole_item, ddb_key *k,
                       ddb_error *err)
{
    ddb_table_rt *t;
    const ddb_value *pk, *sk;
    int rc = ddbi_table_get(db, txn, table, &t, err);
    if (!rc)
        rc = whole_item ? ddbi_keys_table(t, item, &pk, &sk, err) : ddbi_keys_exact(t, item, &pk, &sk, err);
    if (!rc)
        ddbi_key_make(k, pk, sk);
    return rc;
}

/* A key attribute given with another type than the table's: DynamoDB
 * cancels the transaction with a ValidationError for that action rather than
 * refusing the request (Put, Delete, Update: ExtendDB's dual-target
 * tests/test_transaction_operations.py, measured on DynamoDB). */
static bool key_type_mismatch(const ddb_table_rt *t, const ddb_item *item)
{
    const ddb_value *pk = ddb_item_get(item, t->pk);
    const ddb_value *sk = t->sk ? ddb_item_get(item, t->sk) : NULL;
    return (pk && pk->type != t->pk_type) || (sk && sk->type != t->sk_type);
}

static ddb_arena *scratch(ddbi_engine *db)
{
    if (!db->wscratch)
        db->wscratch = ddb_arena_new();
    return db->wscratch;
}

/* Split partitions that the writes grew, with a fresh look at the table each
 * time (a split changes the partition map). */
static int split_after(ddbi_engine *db, MDB_txn *txn, const ddb_wreq *reqs, const ddb_wstate *st, size_t n, ddb_error *err)
{
    for (size_t i = 0; i < n; i++) {
        if (reqs[i].kind == DDB_TX_DELETE || reqs[i].kind == DDB_TX_CHECK || st[i].new_size <= st[i].old_size)
            continue;
        ddb_table_rt *t;
        int rc = ddbi_table_get(db, txn, reqs[i].table, &t, err);
        if (!rc)
            rc = ddbi_part_maybe_split(db, txn, t, ddbi_key_hash(st[i].key.b), err);
        if (rc)
            return rc;
    }
    return DDB_OK;
}

/* ---- BatchWriteItem ---- */

typedef struct bw_ctx {
    const ddb_batch_write_op *ops;
    size_t n;
    ddb_return_capacity mode;
    ddb_capacity *cap;
    ddb_error *err;
} bw_ctx;

static int batch_write_fn(ddbi_engine *db, MDB_txn *txn, void *vctx)
{
    bw_ctx *cx = vctx;
    ddb_arena *tmp = scratch(db);
    if (!tmp)
        return ddbi_fail_oom(cx->err, __func__);
    ddb_wreq reqs[BATCH_WRITE_MAX];
    ddb_wstate st[BATCH_WRITE_MAX];
    int rc = DDB_OK;
    for (size_t i = 0; i < cx->n && !rc; i++) {
        const ddb_batch_write_op *op = &cx->ops[i];
        reqs[i] = (ddb_wreq){op->put ? DDB_TX_PUT : DDB_TX_DELETE, op->table, op->put ? op->put : op->delete_key,
                             NULL, NULL, NULL};
        if ((rc = request_key(db, txn, op->table, reqs[i].item, op->put != NULL, &st[i].key, cx->err)))
            break;
        for (size_t j = 0; j < i; j++)
            if (same_item(reqs[j].table, &st[j].key, op->table, &st[i].key))
                rc = ddbi_fail(cx->err, DDB_EVALIDATION,
                              "Provided list of item keys contains duplicates (requests %zu and %zu, table %s)", j + 1,
                              i + 1, op->table);
    }
    for (size_t i = 0; i < cx->n && !rc; i++)
        if (!(rc = ddbi_write_prepare(db, txn, &reqs[i], &st[i], tmp, cx->err)))
            rc = ddbi_write_apply(db, txn, &reqs[i], &st[i], 1.0, false, cx->cap, cx->mode, cx->err);
    if (!rc)
        rc = split_after(db, txn, reqs, st, cx->n, cx->err);
    ddb_arena_reset(tmp);
    return rc;
}

int ddbi_engine_batch_write(void *impl, const ddb_batch_write_op *ops, size_t n, ddb_return_capacity rc_mode, ddb_capacity *cap,
                            ddb_error *err)
{
    ddbi_engine *db = impl;
    for (size_t i = 0; i < n; i++)
        if (!ops[i].table || !ops[i].put == !ops[i].delete_key)
            return ddbi_fail(err, DDB_EVALIDATION,
                            "BatchWriteItem: request %zu needs a table and exactly one of put and delete_key", i + 1);
    int rc = check_batch_count("BatchWriteItem", ops, n, BATCH_WRITE_MAX, bw_table, err);
    if (rc)
        return rc;
    ddb_capacity scratch_cap;
    if (cap)
        memset(cap, 0, sizeof *cap);
    bw_ctx cx = {ops, n, cap ? rc_mode : DDB_CAPACITY_NONE, cap ? cap : &scratch_cap, err};
    return ddbi_run_write(db, batch_write_fn, &cx, false, err);
}

/* ---- TransactWriteItems ---- */

typedef struct tw_ctx {
    const ddb_tx_op *ops;
    size_t n;
    ddb_return_capacity mode;
    ddb_capacity *cap;
    int *reasons;
    ddb_item **items;      /* ReturnValuesOnConditionCheckFailure, in out */
    char **messages;       /* a ValidationError's message, in out */
    ddb_arena *out;
    const char *token;     /* ClientRequestToken, or NULL */
    uint8_t digest[16];    /* of the request, with a token */
    ddb_error *err;
} tw_ctx;

static const char *reason_name(int code)
{
    switch (code) {
    case DDB_OK: return "None";
    case DDB_ECONDITION: return "ConditionalCheckFailed";
    case DDB_ETHROTTLED: return "ThrottlingError";
    default: return "ValidationError";
    }
}

static int transact_fn(ddbi_engine *db, MDB_txn *txn, void *vctx)
{
    tw_ctx *cx = vctx;
    ddb_arena *tmp = scratch(db);
    if (!tmp)
        return ddbi_fail_oom(cx->err, __func__);
    ddb_wreq reqs[TX_MAX];
    ddb_wstate st[TX_MAX];
    bool bad_key[TX_MAX] = {false};
    int rc = DDB_OK;
    for (size_t i = 0; i < cx->n && !rc; i++) {
        const ddb_tx_op *op = &cx->ops[i];
        reqs[i] = (ddb_wreq){op->kind, op->table, op->item, op->update, op->condition, op->values};
        ddb_table_rt *t;
        if ((rc = ddbi_table_get(db, txn, op->table, &t, cx->err)))
            break;
        /* a key of the wrong type: the action's ValidationError (below,
         * where preparing it fails on its key), not the request's */
        if ((bad_key[i] = op->item && key_type_mismatch(t, op->item)))
            continue;
        if ((rc = request_key(db, txn, op->table, op->item, op->kind == DDB_TX_PUT, &st[i].key, cx->err)))
            break;
        /* what the request alone gets wrong refuses it (ValidationException);
         * only what depends on the stored items cancels it */
        if ((rc = ddbi_write_check(t, &reqs[i], cx->err)))
            break;
        for (size_t j = 0; j < i; j++)
            if (!bad_key[j] && same_item(reqs[j].table, &st[j].key, op->table, &st[i].key))
                rc = ddbi_fail(cx->err, DDB_EVALIDATION,
                              "Transaction request cannot include multiple operations on one item (operations %zu "
                              "and %zu, table %s)",
                              j + 1, i + 1, op->table);
    }
    if (rc) {
        ddb_arena_reset(tmp);
        return rc;
    }
    /* a token already used: the same request is not applied again, another
     * one is refused (TransactWriteItems, ClientRequestToken) */
    int64_t now = cx->token ? ddbi_engine_clock_ms(db) : 0;
    if (cx->token) {
        bool replay;
        double ru;
        if ((rc = ddbi_token_lookup(db, txn, cx->token, cx->digest, now, &replay, &ru, cx->err)) || replay) {
            if (!rc)
                ddbi_cap_add(cx->cap, NULL, false, ru, 0, cx->mode);
            ddb_arena_reset(tmp);
            return rc;
        }
    }
    /* every action is validated before any condition is checked: the first
     * action with a key of the wrong type is the ValidationError, the others
     * "None" (ScyllaDB test/alternator/test_transact.py::
     * test_transact_write_cancellation_reasons_validationerror); every
     * condition is checked against the state before the transaction */
    bool cancelled = false;
    size_t bytes = 0;
    size_t bad = 0;
    while (bad < cx->n && !bad_key[bad])
        bad++;
    for (size_t i = 0; i < cx->n; i++) {
        ddb_error e = {0};
        if (bad < cx->n && i != bad)
            continue;
        cx->reasons[i] = ddbi_write_prepare(db, txn, &reqs[i], &st[i], tmp, &e);
        if (cx->reasons[i] && cx->reasons[i] != DDB_ECONDITION && cx->reasons[i] != DDB_ETHROTTLED &&
            !(cx->messages[i] = ddb_arena_strdup(cx->out, e.message))) {
            ddb_arena_reset(tmp);
            return ddbi_fail_oom(cx->err, __func__);
        }
        if (cx->reasons[i] == DDB_ECONDITION && cx->ops[i].return_on_condition_failure == DDB_RETURN_ALL_OLD &&
            st[i].old && !(cx->items[i] = ddb_item_copy(cx->out, st[i].old))) {
            ddb_arena_reset(tmp);
            return ddbi_fail_oom(cx->err, __func__);
        }
        cancelled |= cx->reasons[i] != DDB_OK;
        bytes += st[i].new_size;
    }
    if (!cancelled && bytes > TX_BYTES_MAX) {
        ddb_arena_reset(tmp);
        return tx_too_large(bytes, cx->err);
    }
    if (cancelled) {
        char text[DDB_ERROR_TEXT_SIZE];
        size_t o = (size_t)snprintf(text, sizeof text, "Transaction cancelled, please refer cancellation reasons for "
                                                       "specific reasons [");
        for (size_t i = 0; i < cx->n && o < sizeof text; i++)
            o += (size_t)snprintf(text + o, sizeof text - o, "%s%s", i ? ", " : "", reason_name(cx->reasons[i]));
        if (o < sizeof text)
            snprintf(text + o, sizeof text - o, "]");
        ddbi_fail(cx->err, DDB_ECANCELED, "%s", text);
        ddb_arena_reset(tmp);
        return DDB_ECANCELED;
    }
    double replay_units = 0; /* what a replay with the same token reports */
    for (size_t i = 0; i < cx->n && !rc; i++) {
        rc = ddbi_write_apply(db, txn, &reqs[i], &st[i], 2.0, false, cx->cap, cx->mode, cx->err);
        replay_units += 2.0 * ddbi_read_units(st[i].new_size > st[i].old_size ? st[i].new_size : st[i].old_size, true);
    }
    if (!rc && cx->token)
        rc = ddbi_token_store(db, txn, cx->token, cx->digest, now, replay_units, cx->err);
    if (!rc)
        rc = split_after(db, txn, reqs, st, cx->n, cx->err);
    ddb_arena_reset(tmp);
    return rc;
}

int ddbi_engine_transact_write(void *impl, const ddb_tx_op *ops, size_t n, const ddb_tx_opts *o, ddb_arena *a,
                               ddb_tx_result *res, ddb_error *err)
{
    ddbi_engine *db = impl;
    int rc = check_tx_count(n, err);
    if (rc)
        return rc;
    for (size_t i = 0; i < n; i++) {
        const ddb_tx_op *op = &ops[i];
        if (!op->table || !op->item || op->kind < DDB_TX_PUT || op->kind > DDB_TX_CHECK)
            return ddbi_fail(err, DDB_EVALIDATION, "TransactWriteItems: operation %zu needs a kind, a table and an item",
                            i + 1);
        if (op->kind == DDB_TX_UPDATE && !op->update)
            return ddbi_fail(err, DDB_EVALIDATION, "TransactWriteItems: update %zu has no UpdateExpression", i + 1);
        if (op->kind == DDB_TX_CHECK && !op->condition)
            return ddbi_fail(err, DDB_EVALIDATION, "TransactWriteItems: ConditionCheck %zu has no ConditionExpression",
                            i + 1);
        const ddb_expr *ex[2] = {op->condition, op->update};
        if ((rc = ddbi_expr_check_request(ex, 2, NULL, op->values, err)))
            return rc;
    }
    res->reasons = ddb_arena_alloc(a, n * sizeof *res->reasons);
    res->items = ddb_arena_alloc(a, n * sizeof *res->items);
    res->messages = ddb_arena_alloc(a, n * sizeof *res->messages);
    if (!res->reasons || !res->items || !res->messages)
        return ddbi_fail_oom(err, __func__);
    memset(res->reasons, 0, n * sizeof *res->reasons);
    memset(res->items, 0, n * sizeof *res->items);
    memset(res->messages, 0, n * sizeof *res->messages);
    tw_ctx cx = {ops, n, o->return_capacity, &res->capacity, res->reasons, res->items, res->messages, a,
                 o->client_request_token, {0}, err};
    if (cx.token && ddbi_tx_digest(ops, n, cx.digest))
        return ddbi_fail_oom(err, __func__);
    rc = ddbi_run_write(db, transact_fn, &cx, false, err);
    if (rc != DDB_ECANCELED) {
        memset(res->reasons, 0, n * sizeof *res->reasons);
        memset(res->items, 0, n * sizeof *res->items);
        memset(res->messages, 0, n * sizeof *res->messages);
    }
    return rc;
}

/* ---- reads ---- */

/* One item by key in an open read transaction: *out NULL when absent;
 * *size its stored size (0 when absent).  rec non-NULL: the item is handed
 * over as its record (a copy in a) instead, its keys and TTL read in
 * place. */
static int read_one(ddbi_engine *db, MDB_txn *txn, const char *table, const ddb_item *key, ddb_arena *a, ddb_item **out,
                    ddbi_rec *rec, size_t *size, ddb_table_rt **tp, ddb_error *err)
{
    ddb_table_rt *t;
    const ddb_value *pk, *sk;
    int rc = ddbi_table_get(db, txn, table, &t, err);
    if (!rc)
        rc = ddbi_keys_exact(t, key, &pk, &sk, err);
    if (rc)
        return rc;
    *tp = t;
    ddb_key k;
    ddbi_key_make(&k, pk, sk);
    MDB_val kv = {k.len, k.b}, dv;
    *out = NULL;
    *size = 0;
    rc = mdb_get(txn, t->items, &kv, &dv);
    if (rc == MDB_NOTFOUND)
        return DDB_OK;
    if (rc)
        return ddbi_mdb_fail(err, rc, "reading item");
    if ((rc = ddbi_stored_val_check(db, t->name, "the stored item", &kv, &dv, err)))
        return rc;
    if (rec) {
        bool ours;
        uint8_t *c;
        if ((rc = ddbi_record_size(dv.mv_data, dv.mv_size, size)) ||
            (rc = ddbi_engine_rec_visible(db, t, pk, sk, dv.mv_data, dv.mv_size, a, &ours)))
            return rc == DDB_ENOMEM ? ddbi_fail_oom(err, "BatchGetItem")
                                    : ddbi_fail_stored(err, t->name, k.b, k.len, "the stored item is unreadable");
        if (!ours) {
            *size = 0; /* another key with the same digest, or expired */
            return DDB_OK;
        }
        if (!(c = ddb_arena_alloc(a, dv.mv_size ? dv.mv_size : 1)))
            return ddbi_fail_oom(err, "BatchGetItem");
        memcpy(c, dv.mv_data, dv.mv_size);
        *rec = (ddbi_rec){c, dv.mv_size, false};
        return DDB_OK;
    }
    ddb_item *it;
    if (ddbi_decode_item(dv.mv_data, dv.mv_size, a, &it) || ddbi_record_size(dv.mv_data, dv.mv_size, size))
        return ddbi_fail_stored(err, t->name, k.b, k.len, "the stored item is unreadable");
    const ddb_value *opk = ddb_item_get(it, t->pk), *osk = t->sk ? ddb_item_get(it, t->sk) : NULL;
    if (opk && ddb_value_equal(opk, pk) && (!sk || (osk && ddb_value_equal(osk, sk))) &&
        !ddbi_ttl_expired(db, t, it)) /* an expired item (TTL) reads as absent */
        *out = it;
    else
        *size = 0; /* another key with the same digest, or expired */
    return DDB_OK;
}

/* BatchGetItem / TransactGetItems.  recs non-NULL: an entry without
 * projection comes as its record (recs[i]; items[i] NULL). */
static int read_many(ddbi_engine *db, const char *what, size_t n, size_t max, const char *(*table_of)(const void *, size_t),
                     const ddb_item *(*key_of)(const void *, size_t), const ddb_expr *(*proj_of)(const void *, size_t),
                     bool (*consistent_of)(const void *, size_t), double factor, const void *ops, ddb_arena *a,
                     ddb_item **items, ddbi_rec *recs, ddb_return_capacity mode, ddb_capacity *cap, ddb_error *err)
{
    for (size_t i = 0; i < n; i++)
        if (!table_of(ops, i) || !key_of(ops, i))
            return ddbi_fail(err, DDB_EVALIDATION, "%s: request %zu needs a table and a key", what, i + 1);
    int rc = what[0] == 'T' ? check_tx_count(n, err) : check_batch_count(what, ops, n, max, table_of, err);
    if (rc)
        return rc;
    MDB_txn *txn;
    if ((rc = ddbi_read_begin(db, &txn, err)))
        return rc;
    ddb_key keys[BATCH_GET_MAX];
    for (size_t i = 0; i < n && !rc; i++) {
        if ((rc = request_key(db, txn, table_of(ops, i), key_of(ops, i), false, &keys[i], err)))
            break;
        for (size_t j = 0; j < i && !rc; j++)
            if (same_item(table_of(ops, j), &keys[j], table_of(ops, i), &keys[i]))
                rc = ddbi_fail(err, DDB_EVALIDATION,
                              "Provided list of item keys contains duplicates (%s requests %zu and %zu)", what, j + 1,
                              i + 1);
    }
    size_t bytes = 0; /* a transaction's items (TransactGetItems: at most 4 MB) */
    for (size_t i = 0; i < n && !rc; i++) {
        ddb_table_rt *t;
        size_t size;
        const ddb_expr *p = proj_of(ops, i);
        ddbi_rec *rec = recs && !p ? &recs[i] : NULL;
        if (recs)
            recs[i] = (ddbi_rec){NULL, 0, false};
        if ((rc = read_one(db, txn, table_of(ops, i), key_of(ops, i), a, &items[i], rec, &size, &t, err)))
            break;
        bytes += size;
        if (what[0] == 'T' && bytes > TX_BYTES_MAX) {
            rc = tx_too_large(bytes, err);
            break;
        }
        bool strong = consistent_of ? consistent_of(ops, i) : true;
        double units = factor * ddbi_read_units(size, strong);
        if ((rc = ddbi_part_charge(db, t, ddbi_part_of(t, ddbi_key_hash(keys[i].b)), units, 0, err)))
            break;
        ddbi_cap_add(cap, NULL, false, units, 0, mode);
        if ((rc = ddbi_keys_check_paths(t, &p, 1, err)))
            break;
        if (items[i] && p)
            rc = ddbi_expr_project(p, items[i], a, &items[i], err);
    }
    ddbi_read_end(txn);
    return rc;
}

static const char *bg_table(const void *ops, size_t i) { return ((const ddb_batch_get_op *)ops)[i].table; }
static const ddb_item *bg_key(const void *ops, size_t i) { return ((const ddb_batch_get_op *)ops)[i].key; }
static const ddb_expr *bg_proj(const void *ops, size_t i) { return ((const ddb_batch_get_op *)ops)[i].projection; }
static bool bg_consistent(const void *ops, size_t i) { return ((const ddb_batch_get_op *)ops)[i].consistent; }
static const char *tg_table(const void *ops, size_t i) { return ((const ddb_tx_get *)ops)[i].table; }
static const ddb_item *tg_key(const void *ops, size_t i) { return ((const ddb_tx_get *)ops)[i].key; }
static const ddb_expr *tg_proj(const void *ops, size_t i) { return ((const ddb_tx_get *)ops)[i].projection; }

int ddbi_engine_batch_get(void *impl, const ddb_batch_get_op *ops, size_t n, ddb_arena *a, ddb_item **items,
                          ddb_return_capacity rc, ddb_capacity *cap, ddb_error *err)
{
    ddbi_engine *db = impl;
    return read_many(db, "BatchGetItem", n, BATCH_GET_MAX, bg_table, bg_key, bg_proj, bg_consistent, 1.0, ops, a,
                     items, NULL, rc, cap, err);
}

int ddbi_engine_batch_get_records(void *impl, const ddb_batch_get_op *ops, size_t n, ddb_arena *a, ddb_item **items,
                                  ddbi_rec *recs, ddb_return_capacity rc, ddb_capacity *cap, ddb_error *err)
{
    ddbi_engine *db = impl;
    return read_many(db, "BatchGetItem", n, BATCH_GET_MAX, bg_table, bg_key, bg_proj, bg_consistent, 1.0, ops, a,
                     items, recs, rc, cap, err);
}

int ddbi_engine_transact_get(void *impl, const ddb_tx_get *gets, size_t n, ddb_arena *a, ddb_item **items,
                             ddb_return_capacity rc, ddb_capacity *cap, ddb_error *err)
{
    ddbi_engine *db = impl;
    return read_many(db, "TransactGetItems", n, TX_MAX, tg_table, tg_key, tg_proj, NULL, 2.0, gets, a, items, NULL,
                     rc, cap, err);
}
