/* remote/: the container source of the credential chain (ECS task roles,
 * EKS Pod Identity): GET AWS_CONTAINER_CREDENTIALS_RELATIVE_URI from
 * http://169.254.170.2, or AWS_CONTAINER_CREDENTIALS_FULL_URI (https, or
 * a loopback or container-agent address), with the Authorization header
 * from AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE or
 * AWS_CONTAINER_AUTHORIZATION_TOKEN.  May call core/. */
#include "remote/cred.h"

#include "core/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ECS_HOST "http://169.254.170.2"
#define MAX_TOKEN (16u << 10)

/* A full URI SDKs accept: https, or http to an allowed host. */
static bool allowed(const char *url)
{
    if (strncmp(url, "https://", 8) == 0)
        return true;
    if (strncmp(url, "http://", 7) != 0)
        return false;
    const char *h = url + 7;
    static const char *const hosts[] = {"127.", "localhost", "[::1]", "169.254.170.2", "169.254.170.23",
                                        "[fd00:ec2::23]"};
    for (size_t i = 0; i < sizeof hosts / sizeof *hosts; i++) {
        size_t n = strlen(hosts[i]);
        if (strncmp(h, hosts[i], n) == 0 && (hosts[i][n - 1] == '.' || h[n] == '\0' || h[n] == ':' || h[n] == '/'))
            return true;
    }
    return false;
}

int ddbi_cred_container(const ddbi_cred_ctx *ctx, const void *arg, ddbi_creds *out, ddb_error *err)
{
    (void)arg;
    const char *rel = ddbi_env("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI");
    const char *full = ddbi_env("AWS_CONTAINER_CREDENTIALS_FULL_URI");
    if (!rel && !full)
        return ddbi_fail(err, DDB_ENOTFOUND, "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI / _FULL_URI not set");
    char url[2048];
    if (rel)
        snprintf(url, sizeof url, "%s%s%s", ECS_HOST, rel[0] == '/' ? "" : "/", rel);
    else if (!allowed(full))
        return ddbi_fail(err, DDB_EINVAL,
                         "container: AWS_CONTAINER_CREDENTIALS_FULL_URI=%.200s must be https or name a loopback or "
                         "container-agent address (169.254.170.2, 169.254.170.23, fd00:ec2::23)",
                         full);
    else
        snprintf(url, sizeof url, "%s", full);
    char *token = NULL;
    size_t tlen = 0;
    const char *tfile = ddbi_env("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE");
    int rc = DDB_OK;
    if (tfile) {
        if ((rc = ddbi_read_small_file("container: AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", tfile, MAX_TOKEN, &token,
                                       &tlen, err)))
            return ddbi_cred_required(err, rc, DDB_EIO);
        while (tlen && (token[tlen - 1] == '\n' || token[tlen - 1] == '\r'))
            token[--tlen] = '\0';
    } else if (ddbi_env("AWS_CONTAINER_AUTHORIZATION_TOKEN")) {
        if (!(token = strdup(ddbi_env("AWS_CONTAINER_AUTHORIZATION_TOKEN"))))
            return ddbi_fail_oom(err, "container");
        tlen = strlen(token);
    }
    if (token && strpbrk(token, "\r\n")) {
        free(token);
        return ddbi_fail(err, DDB_EINVAL, "container: the authorization token holds a line break");
    }
    char *hdr = NULL;
    if (token) {
        size_t n = tlen + 32;
        if (!(hdr = malloc(n))) {
            free(token);
            return ddbi_fail_oom(err, "container");
        }
        snprintf(hdr, n, "Authorization: %s", token);
    }
    const char *hdrs[2] = {"Accept: application/json", hdr};
    ddbi_cred_reply rep;
    rc = ddbi_cred_http("container credentials", "GET", url, hdrs, hdr ? 2 : 1, NULL, ctx->timeout_ms, &rep, err);
    if (!rc) {
        if (rep.status != 200)
            rc = ddbi_fail(err, DDB_EINVAL, "container credentials: GET %s: HTTP %ld: %.200s", url, rep.status,
                           rep.body);
        else
            rc = ddbi_creds_from_json("container credentials", rep.body, rep.len, out, err);
        ddbi_cred_reply_free(&rep);
    }
    if (token)
        memset(token, 0, tlen);
    if (hdr)
        memset(hdr, 0, strlen(hdr));
    free(token);
    free(hdr);
    return rc;
}
