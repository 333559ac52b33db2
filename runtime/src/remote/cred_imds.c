/* remote/: the EC2 instance metadata source of the credential chain, with
 * IMDSv2 session tokens: PUT /latest/api/token
 * (X-aws-ec2-metadata-token-ttl-seconds), then with the token
 * (X-aws-ec2-metadata-token) GET /latest/meta-data/iam/security-credentials/
 * for the role name and GET .../ROLE for its credentials.  Off with
 * AWS_EC2_METADATA_DISABLED=true; the endpoint is
 * AWS_EC2_METADATA_SERVICE_ENDPOINT (or the profile's
 * ec2_metadata_service_endpoint), else http://169.254.169.254 (or
 * http://[fd00:ec2::254] when AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE is
 * IPv6).  No IMDSv1 fallback.  Unreachable or refusing: not configured
 * (not on EC2).  May call core/. */
#include "remote/cred.h"

#include "core/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define IMDS_TIMEOUT_MS 1000 /* the SDKs' default: one attempt of one second */

static int get(const char *what, const char *base, const char *path, const char *tokhdr, ddbi_cred_reply *rep,
               ddb_error *err)
{
    char url[1024];
    snprintf(url, sizeof url, "%s%s", base, path);
    const char *hdrs[1] = {tokhdr};
    return ddbi_cred_http(what, "GET", url, hdrs, 1, NULL, IMDS_TIMEOUT_MS, rep, err);
}

int ddbi_cred_imds(const ddbi_cred_ctx *ctx, const void *arg, ddbi_creds *out, ddb_error *err)
{
    (void)arg;
    const char *off = ddbi_env("AWS_EC2_METADATA_DISABLED");
    if (off && strcasecmp(off, "true") == 0)
        return ddbi_fail(err, DDB_ENOTFOUND, "AWS_EC2_METADATA_DISABLED=true");
    const char *ep = ddbi_env("AWS_EC2_METADATA_SERVICE_ENDPOINT");
    ddbi_profile prof = {0};
    if (!ep && ctx->files && ddbi_profile_load(ctx->files, ctx->profile, &prof, NULL) == DDB_OK)
        ep = ddbi_profile_get(&prof, "ec2_metadata_service_endpoint");
    if (!ep && ctx->local) {
        ddbi_profile_free(&prof);
        return ddbi_fail(err, DDB_ENOTFOUND, "not consulted for an http:// endpoint without "
                                             "AWS_EC2_METADATA_SERVICE_ENDPOINT");
    }
    const char *mode = ddbi_env("AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE");
    char base[512];
    snprintf(base, sizeof base, "%s",
             ep ? ep : mode && strcasecmp(mode, "IPv6") == 0 ? "http://[fd00:ec2::254]" : "http://169.254.169.254");
    ddbi_profile_free(&prof);
    size_t bl = strlen(base);
    while (bl && base[bl - 1] == '/')
        base[--bl] = '\0';

    ddbi_cred_reply rep;
    char url[600];
    snprintf(url, sizeof url, "%s/latest/api/token", base);
    const char *ttl[1] = {"X-aws-ec2-metadata-token-ttl-seconds: 21600"};
    ddb_error e2 = {0};
    if (ddbi_cred_http("instance metadata", "PUT", url, ttl, 1, NULL, IMDS_TIMEOUT_MS, &rep, &e2))
        return ddbi_fail(err, DDB_ENOTFOUND, "no instance metadata service at %s (%s)", base, e2.message);
    if (rep.status != 200 || !rep.len || rep.len > 4096 || strpbrk(rep.body, "\r\n")) {
        long st = rep.status;
        ddbi_cred_reply_free(&rep);
        return ddbi_fail(err, DDB_ENOTFOUND, "the instance metadata service at %s refused an IMDSv2 token (HTTP %ld)",
                         base, st);
    }
    char tokhdr[4200];
    snprintf(tokhdr, sizeof tokhdr, "X-aws-ec2-metadata-token: %s", rep.body);
    ddbi_cred_reply_free(&rep);

    int rc = get("instance metadata", base, "/latest/meta-data/iam/security-credentials/", tokhdr, &rep, err);
    if (rc)
        return rc;
    if (rep.status == 404 || (rep.status == 200 && !rep.len)) {
        ddbi_cred_reply_free(&rep);
        return ddbi_fail(err, DDB_ENOTFOUND, "the instance at %s has no IAM role (instance profile)", base);
    }
    if (rep.status != 200) {
        long st = rep.status;
        ddbi_cred_reply_free(&rep);
        return ddbi_fail(err, DDB_EINVAL, "instance metadata: listing the role: HTTP %ld", st);
    }
    char role[256];
    size_t rl = strcspn(rep.body, "\r\n");
    snprintf(role, sizeof role, "%.*s", (int)(rl < 255 ? rl : 255), rep.body);
    ddbi_cred_reply_free(&rep);
    if (!role[0] || strchr(role, '/') || strchr(role, '?') || strchr(role, '#'))
        return ddbi_fail(err, DDB_EINVAL, "instance metadata: bad role name \"%s\"", role);
    char path[400];
    snprintf(path, sizeof path, "/latest/meta-data/iam/security-credentials/%s", role);
    if ((rc = get("instance metadata", base, path, tokhdr, &rep, err)))
        return rc;
    if (rep.status != 200)
        rc = ddbi_fail(err, DDB_EINVAL, "instance metadata: credentials of role %s: HTTP %ld", role, rep.status);
    else
        rc = ddbi_creds_from_json("instance metadata", rep.body, rep.len, out, err);
    ddbi_cred_reply_free(&rep);
    memset(tokhdr, 0, sizeof tokhdr);
    return rc;
}
