/* remote/: the retry modes (legacy, standard with its retry quota,
 * adaptive with client-side rate limiting), as retry.h describes.
 * May call core/. */
#include "remote/retry.h"

#include "core/error.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <strings.h>
#include <time.h>

#define MIN_RATE 0.5
#define SCALE 0.4
#define BETA 0.7
#define SMOOTH 0.8
#define BUCKET_S 0.5

struct ddbi_retry {
    ddbi_retry_mode mode;
    pthread_mutex_t mu;
    unsigned quota;
    /* adaptive */
    bool enabled;
    double max_rate, capacity, tokens, last_refill;
    double measured, last_bucket;
    unsigned count;
    double w_max, k, last_fail;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int ddbi_retry_mode_parse(const char *s, ddbi_retry_mode *out)
{
    if (!s)
        return -1;
    if (strcasecmp(s, "legacy") == 0)
        *out = DDBI_RETRY_LEGACY;
    else if (strcasecmp(s, "standard") == 0)
        *out = DDBI_RETRY_STANDARD;
    else if (strcasecmp(s, "adaptive") == 0)
        *out = DDBI_RETRY_ADAPTIVE;
    else
        return -1;
    return 0;
}

int ddbi_retry_new(ddbi_retry_mode mode, ddbi_retry **out, ddb_error *err)
{
    ddbi_retry *r = calloc(1, sizeof *r);
    if (!r)
        return ddbi_fail_oom(err, "retry state");
    pthread_mutex_init(&r->mu, NULL);
    r->mode = mode;
    r->quota = DDBI_RETRY_QUOTA;
    double t = now_s();
    r->w_max = MIN_RATE;
    r->k = cbrt(r->w_max * (1 - BETA) / SCALE);
    r->last_fail = t;
    r->last_refill = t;
    r->last_bucket = floor(t / BUCKET_S) * BUCKET_S;
    *out = r;
    return DDB_OK;
}

void ddbi_retry_free(ddbi_retry *r)
{
    if (!r)
        return;
    pthread_mutex_destroy(&r->mu);
    free(r);
}

ddbi_retry_mode ddbi_retry_get_mode(const ddbi_retry *r)
{
    return r->mode;
}

static void refill(ddbi_retry *r, double t)
{
    r->tokens += (t - r->last_refill) * r->max_rate;
    if (r->tokens > r->capacity)
        r->tokens = r->capacity;
    r->last_refill = t;
}

void ddbi_retry_before_send(ddbi_retry *r)
{
    if (r->mode != DDBI_RETRY_ADAPTIVE)
        return;
    pthread_mutex_lock(&r->mu);
    double wait = 0;
    if (r->enabled) {
        refill(r, now_s());
        r->tokens -= 1; /* reserved now, paid by waiting outside the lock */
        if (r->tokens < 0)
            wait = -r->tokens / r->max_rate;
    }
    pthread_mutex_unlock(&r->mu);
    if (wait > 0) {
        struct timespec ts = {(time_t)wait, (long)((wait - floor(wait)) * 1e9)};
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
        }
    }
}

void ddbi_retry_after_response(ddbi_retry *r, bool throttled)
{
    if (r->mode != DDBI_RETRY_ADAPTIVE)
        return;
    pthread_mutex_lock(&r->mu);
    double t = now_s();
    /* the measured sending rate, smoothed over half-second buckets */
    double bucket = floor(t / BUCKET_S) * BUCKET_S;
    r->count++;
    if (bucket > r->last_bucket) {
        double rate = r->count / (bucket - r->last_bucket);
        r->measured = rate * SMOOTH + r->measured * (1 - SMOOTH);
        r->count = 0;
        r->last_bucket = bucket;
    }
    double rate;
    if (throttled) {
        double use = r->enabled ? fmin(r->measured, r->max_rate) : r->measured;
        if (use < MIN_RATE)
            use = MIN_RATE;
        r->w_max = use;
        r->k = cbrt(r->w_max * (1 - BETA) / SCALE);
        r->last_fail = t;
        rate = use * BETA;
        r->enabled = true;
    } else {
        double dt = t - r->last_fail - r->k;
        rate = SCALE * dt * dt * dt + r->w_max;
    }
    if (r->measured > 0 && rate > 2 * r->measured)
        rate = 2 * r->measured;
    if (rate < MIN_RATE)
        rate = MIN_RATE;
    refill(r, t);
    r->max_rate = rate;
    r->capacity = rate > 1 ? rate : 1;
    pthread_mutex_unlock(&r->mu);
}

bool ddbi_retry_acquire(ddbi_retry *r, bool timeout, unsigned *cost)
{
    *cost = 0;
    if (r->mode == DDBI_RETRY_LEGACY)
        return true;
    unsigned c = timeout ? DDBI_RETRY_TIMEOUT_COST : DDBI_RETRY_COST;
    pthread_mutex_lock(&r->mu);
    bool ok = r->quota >= c;
    if (ok)
        r->quota -= c;
    pthread_mutex_unlock(&r->mu);
    *cost = ok ? c : 0;
    return ok;
}

void ddbi_retry_success(ddbi_retry *r, unsigned last_cost)
{
    if (r->mode == DDBI_RETRY_LEGACY)
        return;
    pthread_mutex_lock(&r->mu);
    r->quota += last_cost ? last_cost : 1;
    if (r->quota > DDBI_RETRY_QUOTA)
        r->quota = DDBI_RETRY_QUOTA;
    pthread_mutex_unlock(&r->mu);
}

unsigned ddbi_retry_quota(ddbi_retry *r)
{
    pthread_mutex_lock(&r->mu);
    unsigned q = r->quota;
    pthread_mutex_unlock(&r->mu);
    return q;
}

double ddbi_retry_send_rate(ddbi_retry *r)
{
    pthread_mutex_lock(&r->mu);
    double v = r->enabled ? r->max_rate : 0;
    pthread_mutex_unlock(&r->mu);
    return v;
}
