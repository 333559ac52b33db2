/* remote/: the shared-files source of the credential chain: the profile's
 * static keys (aws_access_key_id, aws_secret_access_key,
 * aws_session_token), an assumed role (role_arn with source_profile,
 * credential_source or web_identity_token_file; external_id,
 * role_session_name, duration_seconds), or credential_process.
 * Source profiles chain (at most 8 deep, no cycles).
 * May call core/ and the other sources. */
#include "remote/cred.h"

#include "core/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 8

static int resolve(const ddbi_cred_ctx *ctx, const char *name, unsigned depth, bool must_exist, ddbi_creds *out,
                   ddb_error *err);

static int static_keys(const ddbi_profile *p, ddbi_creds *out, ddb_error *err)
{
    char what[160];
    snprintf(what, sizeof what, "profile %.100s", p->name);
    const char *akid = ddbi_profile_get(p, "aws_access_key_id");
    const char *secret = ddbi_profile_get(p, "aws_secret_access_key");
    if (!akid || !secret)
        return ddbi_fail(err, DDB_EINVAL, "profile %s: %s without %s", p->name,
                         akid ? "aws_access_key_id" : "aws_secret_access_key",
                         akid ? "aws_secret_access_key" : "aws_access_key_id");
    return ddbi_creds_set(out, what, akid, secret, ddbi_profile_get(p, "aws_session_token"), 0, err);
}

static int assume(const ddbi_cred_ctx *ctx, const ddbi_profile *p, unsigned depth, ddbi_creds *out, ddb_error *err)
{
    const char *dur = ddbi_profile_get(p, "duration_seconds");
    char *end = NULL;
    unsigned long d = dur ? strtoul(dur, &end, 10) : 0;
    if (dur && (*end || d < 900 || d > 43200))
        return ddbi_fail(err, DDB_EINVAL, "profile %s: duration_seconds=%.20s is not a number in 900..43200", p->name,
                         dur);
    ddbi_sts_role role = {ddbi_profile_get(p, "role_arn"), ddbi_profile_get(p, "role_session_name"),
                          ddbi_profile_get(p, "external_id"), (uint32_t)d};
    if (ddbi_profile_get(p, "mfa_serial"))
        return ddbi_fail(err, DDB_EINVAL, "profile %s: mfa_serial needs an interactive MFA code, which a library "
                                          "cannot ask for", p->name);
    ddbi_cred_ctx c2 = *ctx;
    if (ddbi_profile_get(p, "region"))
        c2.region = ddbi_profile_get(p, "region");
    const char *wif = ddbi_profile_get(p, "web_identity_token_file");
    const char *src = ddbi_profile_get(p, "source_profile");
    const char *cs = ddbi_profile_get(p, "credential_source");
    if (!!wif + !!src + !!cs != 1)
        return ddbi_fail(err, DDB_EINVAL,
                         "profile %s: role_arn needs exactly one of source_profile, credential_source and "
                         "web_identity_token_file",
                         p->name);
    if (wif) {
        char *token;
        size_t len;
        int rc = ddbi_read_small_file("web_identity_token_file", wif, 16u << 10, &token, &len, err);
        if (rc)
            return ddbi_cred_required(err, rc, DDB_EIO);
        while (len && (token[len - 1] == '\n' || token[len - 1] == '\r'))
            token[--len] = '\0';
        rc = ddbi_sts_assume_role_web_identity(&c2, &role, token, out, err);
        free(token);
        return rc;
    }
    ddbi_creds base = {0};
    int rc;
    if (src && strcmp(src, p->name) == 0)
        rc = static_keys(p, &base, err); /* a profile may be its own source when it has keys */
    else if (src)
        rc = resolve(ctx, src, depth + 1, true, &base, err);
    else if (strcmp(cs, "Environment") == 0)
        rc = ddbi_cred_env(ctx, NULL, &base, err);
    else if (strcmp(cs, "Ec2InstanceMetadata") == 0)
        rc = ddbi_cred_imds(ctx, NULL, &base, err);
    else if (strcmp(cs, "EcsContainer") == 0)
        rc = ddbi_cred_container(ctx, NULL, &base, err);
    else
        return ddbi_fail(err, DDB_EINVAL,
                         "profile %s: credential_source=%.40s (known: Environment, Ec2InstanceMetadata, EcsContainer)",
                         p->name, cs);
    rc = ddbi_cred_required(err, rc, DDB_EINVAL); /* configured, so its absence is an error */
    if (!rc)
        rc = ddbi_sts_assume_role(&c2, &base, &role, out, err);
    ddbi_creds_clear(&base);
    return rc;
}

static int resolve(const ddbi_cred_ctx *ctx, const char *name, unsigned depth, bool must_exist, ddbi_creds *out,
                   ddb_error *err)
{
    if (depth > MAX_DEPTH)
        return ddbi_fail(err, DDB_EINVAL, "profile %s: source_profile chain longer than %d (a cycle?)", name,
                         MAX_DEPTH);
    ddbi_profile p;
    int rc = ddbi_profile_load(ctx->files, name, &p, err);
    if (rc)
        return rc;
    const char *cfg = ctx->files->config ? ctx->files->config : "(no config file)";
    const char *crd = ctx->files->credentials ? ctx->files->credentials : "(no credentials file)";
    if (!p.found)
        rc = must_exist ? ddbi_fail(err, DDB_EINVAL, "profile %s not found in %s or %s", name, crd, cfg)
                        : ddbi_fail(err, DDB_ENOTFOUND, "no profile %s", name);
    else if (ddbi_profile_get(&p, "role_arn"))
        rc = assume(ctx, &p, depth, out, err);
    else if (ddbi_profile_get(&p, "aws_access_key_id") || ddbi_profile_get(&p, "aws_secret_access_key"))
        rc = static_keys(&p, out, err);
    else if (ddbi_profile_get(&p, "credential_process"))
        rc = ddbi_cred_process(ctx, ddbi_profile_get(&p, "credential_process"), out, err);
    else if (ddbi_profile_get(&p, "sso_session") || ddbi_profile_get(&p, "sso_start_url"))
        rc = ddbi_fail(err, DDB_EINVAL,
                       "profile %s uses IAM Identity Center (sso_*), which ddbgen does not read: export its "
                       "credentials (aws configure export-credentials --profile %s --format env)",
                       name, name);
    else
        rc = ddbi_fail(err, depth ? DDB_EINVAL : DDB_ENOTFOUND, "profile %s has no credentials", name);
    ddbi_profile_free(&p);
    return rc;
}

int ddbi_cred_profile(const ddbi_cred_ctx *ctx, const void *arg, ddbi_creds *out, ddb_error *err)
{
    const char *name = arg ? arg : ctx->profile;
    return resolve(ctx, name, 0, ctx->profile_named, out, err);
}
