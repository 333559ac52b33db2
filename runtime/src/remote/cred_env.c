/* remote/: the environment source of the credential chain:
 * AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN and
 * AWS_CREDENTIAL_EXPIRATION (Lambda rotates these by restarting the
 * runtime with new ones).  May call core/. */
#include "remote/cred.h"

#include "core/error.h"

int ddbi_cred_env(const ddbi_cred_ctx *ctx, const void *arg, ddbi_creds *out, ddb_error *err)
{
    (void)ctx, (void)arg;
    const char *akid = ddbi_env("AWS_ACCESS_KEY_ID");
    const char *secret = ddbi_env("AWS_SECRET_ACCESS_KEY");
    if (!akid && !secret)
        return ddbi_fail(err, DDB_ENOTFOUND, "AWS_ACCESS_KEY_ID not set");
    if (!akid || !secret)
        return ddbi_fail(err, DDB_EINVAL, "environment: %s is set but not %s",
                         akid ? "AWS_ACCESS_KEY_ID" : "AWS_SECRET_ACCESS_KEY",
                         akid ? "AWS_SECRET_ACCESS_KEY" : "AWS_ACCESS_KEY_ID");
    int64_t expires = 0;
    const char *exp = ddbi_env("AWS_CREDENTIAL_EXPIRATION");
    if (exp && ddbi_iso8601_parse(exp, &expires))
        return ddbi_fail(err, DDB_EINVAL, "environment: AWS_CREDENTIAL_EXPIRATION=\"%.40s\" is not an ISO 8601 time",
                         exp);
    return ddbi_creds_set(out, "environment", akid, secret, ddbi_env("AWS_SESSION_TOKEN"), expires, err);
}
