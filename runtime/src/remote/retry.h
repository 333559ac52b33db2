/* remote/: the retry modes of the AWS SDKs (retry.c; internal):
 *   legacy   — ddbgen's DynamoDB default: every throttle and 5xx retried
 *              up to max_attempts, no quota;
 *   standard — the same errors plus network failures and timeouts, paid
 *              from a retry quota of 500 tokens (5 per retry, 10 per retry
 *              of a timeout or network failure; a success gives back its
 *              retry's cost, or 1 when it needed none): when the quota is
 *              spent, failures are not retried;
 *   adaptive — standard plus client-side rate limiting: once a throttle
 *              is seen, sending waits for a token bucket whose rate follows
 *              CUBIC (cut by 0.7 on each throttle, growing back with
 *              successes, never above twice the measured sending rate). */
#ifndef DDB_REMOTE_RETRY_H
#define DDB_REMOTE_RETRY_H

#include <ddb/ddb.h>

#include <stdbool.h>

typedef enum ddbi_retry_mode { DDBI_RETRY_LEGACY, DDBI_RETRY_STANDARD, DDBI_RETRY_ADAPTIVE } ddbi_retry_mode;

#define DDBI_RETRY_QUOTA 500
#define DDBI_RETRY_COST 5
#define DDBI_RETRY_TIMEOUT_COST 10

typedef struct ddbi_retry ddbi_retry;

/* "legacy", "standard", "adaptive" (any case); -1 otherwise. */
int ddbi_retry_mode_parse(const char *s, ddbi_retry_mode *out);
int ddbi_retry_new(ddbi_retry_mode mode, ddbi_retry **out, ddb_error *err);
void ddbi_retry_free(ddbi_retry *r);
ddbi_retry_mode ddbi_retry_get_mode(const ddbi_retry *r);
/* Before each attempt: adaptive mode waits for a send token. */
void ddbi_retry_before_send(ddbi_retry *r);
/* After each answer (adaptive: feeds the rate limiter). */
void ddbi_retry_after_response(ddbi_retry *r, bool throttled);
/* May a failed attempt be retried?  Takes its cost from the quota
 * (standard, adaptive); *cost gets it.  False when the quota is spent. */
bool ddbi_retry_acquire(ddbi_retry *r, bool timeout, unsigned *cost);
/* The request succeeded; last_cost: its last retry's cost (0: no retry). */
void ddbi_retry_success(ddbi_retry *r, unsigned last_cost);
/* Tokens left in the quota. */
unsigned ddbi_retry_quota(ddbi_retry *r);
/* The adaptive limiter's sending rate (requests per second); 0 while it
 * is not limiting. */
double ddbi_retry_send_rate(ddbi_retry *r);

#endif
