/* remote/: the standard credential chain of the AWS SDKs and the cache
 * that keeps its credentials fresh.
 *
 * Order (explicit settings are handled first, by the caller):
 * environment, web identity, the shared files' profile, the container
 * endpoint, EC2 instance metadata.  The first source with credentials is
 * kept for the handle's life and asked again when its credentials come
 * within DDBI_CRED_REFRESH_S seconds of expiry.  One thread refreshes;
 * the others go on signing with the cached credentials while those are
 * usable (more than DDBI_CRED_MARGIN_S seconds left) and wait only when
 * they are not.  A failed refresh keeps the cached credentials until they
 * stop being usable (retrying at most every REFRESH_RETRY_S seconds
 * meanwhile, as after a refresh that brought credentials already due),
 * then the failure is the request's error.
 * May call core/ and the sources. */
#include "remote/cred.h"

#include "core/error.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define REFRESH_RETRY_S 10

typedef struct source {
    const char *name;
    ddbi_cred_source_fn fn;
} source;

static const source chain[] = {
    {"environment", ddbi_cred_env},
    {"web identity", ddbi_cred_web_identity},
    {"shared files", ddbi_cred_profile},
    {"container", ddbi_cred_container},
    {"instance metadata", ddbi_cred_imds},
};

struct ddbi_cred_cache {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    ddbi_aws_files files;
    char *profile, *region;
    ddbi_cred_ctx ctx;
    const source *src; /* NULL: explicit credentials, never refreshed */
    char name[80];
    ddbi_creds cur;
    bool refreshing;
    int64_t retry_after; /* no refresh before (after a failed one) */
};

static int cache_new(const ddbi_cred_ctx *ctx, ddbi_cred_cache **out, ddb_error *err)
{
    ddbi_cred_cache *c = calloc(1, sizeof *c);
    if (!c)
        return ddbi_fail_oom(err, "credential cache");
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->cv, NULL);
    c->ctx = *ctx;
    c->profile = strdup(ctx->profile ? ctx->profile : "default");
    c->region = ctx->region ? strdup(ctx->region) : NULL;
    int rc = c->profile && (!ctx->region || c->region) ? DDB_OK : ddbi_fail_oom(err, "credential cache");
    if (!rc && ctx->files) {
        c->files.config = ctx->files->config ? strdup(ctx->files->config) : NULL;
        c->files.credentials = ctx->files->credentials ? strdup(ctx->files->credentials) : NULL;
        if ((ctx->files->config && !c->files.config) || (ctx->files->credentials && !c->files.credentials))
            rc = ddbi_fail_oom(err, "credential cache");
    }
    c->ctx.files = &c->files;
    c->ctx.profile = c->profile;
    c->ctx.region = c->region;
    if (rc) {
        ddbi_cred_cache_free(c);
        return rc;
    }
    *out = c;
    return DDB_OK;
}

void ddbi_cred_cache_free(ddbi_cred_cache *c)
{
    if (!c)
        return;
    ddbi_creds_clear(&c->cur);
    ddbi_aws_files_free(&c->files);
    free(c->profile);
    free(c->region);
    pthread_cond_destroy(&c->cv);
    pthread_mutex_destroy(&c->mu);
    free(c);
}

int ddbi_cred_chain_open(const ddbi_cred_ctx *ctx, const ddbi_creds *explicit_creds, bool allow_none,
                         ddbi_cred_cache **out, ddb_error *err)
{
    *out = NULL;
    ddbi_cred_cache *c = NULL;
    int rc = cache_new(ctx, &c, err);
    if (rc)
        return rc;
    if (explicit_creds) {
        snprintf(c->name, sizeof c->name, "explicit settings");
        if ((rc = ddbi_creds_copy(&c->cur, explicit_creds, err))) {
            ddbi_cred_cache_free(c);
            return rc;
        }
        *out = c;
        return DDB_OK;
    }
    char tried[700];
    size_t tl = (size_t)snprintf(tried, sizeof tried, "explicit settings");
    for (size_t i = 0; i < sizeof chain / sizeof *chain; i++) {
        ddb_error e = {0};
        rc = chain[i].fn(&c->ctx, NULL, &c->cur, &e);
        if (rc == DDB_OK) {
            c->src = &chain[i];
            if (chain[i].fn == ddbi_cred_profile)
                snprintf(c->name, sizeof c->name, "profile %.60s", c->profile);
            else
                snprintf(c->name, sizeof c->name, "%s", chain[i].name);
            *out = c;
            return DDB_OK;
        }
        if (rc != DDB_ENOTFOUND) {
            ddbi_cred_cache_free(c);
            if (err)
                *err = e;
            return rc;
        }
        if (tl < sizeof tried)
            tl += (size_t)snprintf(tried + tl, sizeof tried - tl, "; %s (%.*s)", chain[i].name,
                                   chain[i].fn == ddbi_cred_profile ? 40 : 28, e.message);
    }
    ddbi_cred_cache_free(c);
    if (allow_none)
        return DDB_OK;
    return ddbi_fail(err, DDB_EINVAL, "no AWS credentials found; tried: %s", tried);
}

const char *ddbi_cred_cache_source(const ddbi_cred_cache *c)
{
    return c ? c->name : "none";
}

int ddbi_cred_cache_get(ddbi_cred_cache *c, ddbi_creds *out, ddb_error *err)
{
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&c->mu);
    for (;;) {
        int64_t now = (int64_t)time(NULL);
        bool usable = !c->cur.expires || now < c->cur.expires - DDBI_CRED_MARGIN_S;
        bool due = c->src && c->cur.expires && now >= c->cur.expires - DDBI_CRED_REFRESH_S;
        if (!due || (usable && (c->refreshing || now < c->retry_after))) {
            int rc = ddbi_creds_copy(out, &c->cur, err);
            pthread_mutex_unlock(&c->mu);
            return rc;
        }
        if (c->refreshing) { /* unusable: wait for the refreshing thread */
            pthread_cond_wait(&c->cv, &c->mu);
            continue;
        }
        c->refreshing = true;
        pthread_mutex_unlock(&c->mu);
        ddbi_creds fresh = {0};
        ddb_error e = {0};
        int rc = c->src->fn(&c->ctx, NULL, &fresh, &e);
        pthread_mutex_lock(&c->mu);
        c->refreshing = false;
        pthread_cond_broadcast(&c->cv);
        if (rc == DDB_OK) {
            ddbi_creds_clear(&c->cur);
            c->cur = fresh;
            /* a source that still hands out the old (expiring) credentials
             * is not asked again at every request */
            now = (int64_t)time(NULL);
            c->retry_after = fresh.expires && now >= fresh.expires - DDBI_CRED_REFRESH_S ? now + REFRESH_RETRY_S : 0;
            rc = ddbi_creds_copy(out, &c->cur, err);
            pthread_mutex_unlock(&c->mu);
            return rc;
        }
        now = (int64_t)time(NULL);
        if (now < c->cur.expires - DDBI_CRED_MARGIN_S) { /* keep the cached ones */
            c->retry_after = now + REFRESH_RETRY_S;
            rc = ddbi_creds_copy(out, &c->cur, err);
            pthread_mutex_unlock(&c->mu);
            return rc;
        }
        pthread_mutex_unlock(&c->mu);
        return ddbi_fail(err, rc == DDB_ENOTFOUND ? DDB_EINVAL : rc,
                         "the credentials from %s expired and refreshing them failed: %s", c->name, e.message);
    }
}
