/* ddb serve: ExecuteStatement's NextToken — the page's LastEvaluatedKey
 * bound to the statement it continues.  A token is base64 of the JSON
 * {"s": <hash of the request: statement and parameters>, "k":
 * <LastEvaluatedKey>}; a token that does not decode is "Invalid NextToken",
 * one of another statement or parameters "NextToken does not match request" (DynamoDB's words, API_ExecuteStatement:
 * NextToken, length 1 to 32768).  Calls libddb's public API (<ddb/json.h>)
 * and jansson. */
#include "partiql.h"

#include <ddb/json.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* FNV-1a of the statement text, as hex: the statement a token belongs to. */
static void statement_hash(const char *statement, char out[17])
{
    uint64_t h = 1469598103934665603ull;
    for (const unsigned char *p = (const unsigned char *)statement; *p; p++)
        h = (h ^ *p) * 1099511628211ull;
    snprintf(out, 17, "%016llx", (unsigned long long)h);
}

static int invalid(ddb_error *err, const char *msg)
{
    err->code = DDB_EVALIDATION;
    snprintf(err->message, sizeof err->message, "%s", msg);
    return DDB_EVALIDATION;
}

int pq_token_encode(const char *statement, const ddb_item *last_key, ddb_arena *a, char **out, ddb_error *err)
{
    *out = NULL;
    json_t *k = NULL;
    int rc = ddb_json_from_item(last_key, &k, err);
    if (rc)
        return rc;
    char hash[17];
    statement_hash(statement, hash);
    json_t *o = json_pack("{s:s,s:o}", "s", hash, "k", k);
    char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    size_t n = text ? strlen(text) : 0;
    char *b64 = text ? ddb_arena_alloc(a, DDB_JSON_BASE64_LEN(n) + 1) : NULL;
    if (!b64) {
        free(text);
        err->code = DDB_ENOMEM;
        snprintf(err->message, sizeof err->message, "out of memory");
        return DDB_ENOMEM;
    }
    ddb_json_base64_encode((const uint8_t *)text, n, b64);
    free(text);
    if (strlen(b64) > PQ_MAX_TOKEN)
        return invalid(err, "The LastEvaluatedKey is too long for a NextToken");
    *out = b64;
    return 0;
}

int pq_token_decode(const char *statement, const char *token, ddb_arena *a, ddb_item **key, ddb_error *err)
{
    *key = NULL;
    size_t n = strlen(token);
    if (n > PQ_MAX_TOKEN)
        return invalid(err, "1 validation error detected: Value at 'nextToken' failed to satisfy constraint: Member "
                            "must have length less than or equal to 32768");
    uint8_t *raw = ddb_arena_alloc(a, n / 4 * 3 + 3);
    size_t len = 0, bad = 0;
    if (!raw)
        return invalid(err, "out of memory");
    if (ddb_json_base64_decode(token, n, raw, &len, &bad))
        return invalid(err, "Invalid NextToken");
    json_t *o = json_loadb((const char *)raw, len, JSON_REJECT_DUPLICATES, NULL);
    const char *hash = json_string_value(json_object_get(o, "s"));
    json_t *k = json_object_get(o, "k");
    if (!hash || !json_is_object(k)) {
        json_decref(o);
        return invalid(err, "Invalid NextToken");
    }
    char want[17];
    statement_hash(statement, want);
    if (strcmp(hash, want) != 0) {
        json_decref(o);
        return invalid(err, "NextToken does not match request");
    }
    int rc = ddb_json_to_item(k, a, key, err);
    json_decref(o);
    return rc ? invalid(err, "Invalid NextToken") : 0;
}
