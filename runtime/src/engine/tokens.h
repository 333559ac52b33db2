/* engine/: ClientRequestTokens of TransactWriteItems (internal; tokens.c). */
#ifndef DDB_ENGINE_TOKENS_H
#define DDB_ENGINE_TOKENS_H

#include "engine/engine.h"

#define DDBI_TOKEN_MAX 36                 /* ClientRequestToken: 1 to 36 characters */
#define DDBI_TOKEN_TTL_MS (10 * 60 * 1000) /* valid 10 minutes after first completion */

/* XXH3-128 of everything that makes two TransactWriteItems requests the
 * same: each operation's kind, table, item or key, expressions (with the
 * names they resolved), values and ReturnValuesOnConditionCheckFailure.
 * DDB_ENOMEM when out of memory. */
int ddbi_tx_digest(const ddb_tx_op *ops, size_t n, uint8_t out[16]);
/* Look token up at now_ms: *replay when it completed a request with this
 * digest less than 10 minutes ago (*read_units: what to report);
 * DDB_EIDEMPOTENT (DynamoDB's message) when it completed another request. */
int ddbi_token_lookup(ddbi_engine *db, MDB_txn *txn, const char *token, const uint8_t digest[16], int64_t now_ms,
                      bool *replay, double *read_units, ddb_error *err);
/* Record token as completed at now_ms (in the writes' transaction), and
 * remove a few tokens expired by then. */
int ddbi_token_store(ddbi_engine *db, MDB_txn *txn, const char *token, const uint8_t digest[16], int64_t now_ms,
                     double read_units, ddb_error *err);

#endif
