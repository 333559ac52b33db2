/* remote/: AWS STS for the credential chain: AssumeRole (signed with the
 * source credentials: profiles with role_arn) and AssumeRoleWithWebIdentity
 * (unsigned: the token is the proof; EKS service-account roles and
 * AWS_WEB_IDENTITY_TOKEN_FILE), over the Query protocol (form-encoded POST,
 * XML answer), and the web identity source of the chain.
 * May call core/, sigv4.h, libcurl. */
#include "remote/cred.h"

#include "core/error.h"
#include "remote/sigv4.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_TOKEN_FILE (16u << 10)

/* The STS endpoint URL (malloc'd). */
static char *sts_url(const ddbi_cred_ctx *ctx)
{
    const char *e = ddbi_env("AWS_ENDPOINT_URL_STS");
    if (!e)
        e = ddbi_env("AWS_ENDPOINT_URL");
    if (e)
        return strdup(e);
    const char *region = ctx->region ? ctx->region : "us-east-1";
    char buf[160];
    snprintf(buf, sizeof buf, "https://sts.%.64s.amazonaws.com%s", region, strncmp(region, "cn-", 3) == 0 ? ".cn" : "");
    return strdup(buf);
}

/* name=value& with value form-encoded, appended to b. */
static int form_add(ddb_buf *b, const char *name, const char *value)
{
    char *v = curl_easy_escape(NULL, value, 0);
    if (!v)
        return DDB_ENOMEM;
    int rc = ddbi_buf_put(b, b->len ? "&" : "", b->len ? 1 : 0);
    if (!rc)
        rc = ddbi_buf_put(b, name, strlen(name));
    if (!rc)
        rc = ddbi_buf_put(b, "=", 1);
    if (!rc)
        rc = ddbi_buf_put(b, v, strlen(v));
    curl_free(v);
    return rc;
}

static int sts_call(const ddbi_cred_ctx *ctx, const char *action, const ddbi_creds *with, const ddbi_sts_role *role,
                    const char *token, ddbi_creds *out, ddb_error *err)
{
    char what[160];
    snprintf(what, sizeof what, "STS %s (%.100s)", action, role->role_arn);
    char session[80];
    snprintf(session, sizeof session, "ddbgen-%lld", (long long)time(NULL));
    char dur[16];
    snprintf(dur, sizeof dur, "%u", (unsigned)role->duration_s);
    ddb_buf form = {0}, auth = {0};
    char *h_auth = NULL, *h_tok = NULL;
    int rc = form_add(&form, "Action", action);
    if (!rc)
        rc = form_add(&form, "Version", "2011-06-15");
    if (!rc)
        rc = form_add(&form, "RoleArn", role->role_arn);
    if (!rc)
        rc = form_add(&form, "RoleSessionName", role->session_name ? role->session_name : session);
    if (!rc && role->external_id)
        rc = form_add(&form, "ExternalId", role->external_id);
    if (!rc && role->duration_s)
        rc = form_add(&form, "DurationSeconds", dur);
    if (!rc && token)
        rc = form_add(&form, "WebIdentityToken", token);
    if (!rc)
        rc = ddbi_buf_put(&form, "", 1);
    char *url = rc ? NULL : sts_url(ctx);
    CURLU *u = url ? curl_url() : NULL;
    char *host = NULL, *port = NULL, *path = NULL;
    if (!url || !u) {
        rc = ddbi_fail_oom(err, what);
        goto done;
    }
    if (curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK || curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK) {
        rc = ddbi_fail(err, DDB_EINVAL, "%s: the STS endpoint \"%s\" is not a URL", what, url);
        goto done;
    }
    curl_url_get(u, CURLUPART_PORT, &port, 0);
    curl_url_get(u, CURLUPART_PATH, &path, 0);
    char hosthdr[300], amz_date[17];
    snprintf(hosthdr, sizeof hosthdr, "%.200s%s%.10s", host, port ? ":" : "", port ? port : "");
    ddbi_sigv4_amz_date((long long)time(NULL), amz_date);
    const char *ctype = "application/x-www-form-urlencoded; charset=utf-8";
    const char *hdrs[6];
    size_t nh = 0;
    char h_ctype[96], h_date[40];
    snprintf(h_ctype, sizeof h_ctype, "Content-Type: %s", ctype);
    snprintf(h_date, sizeof h_date, "X-Amz-Date: %s", amz_date);
    hdrs[nh++] = h_ctype;
    hdrs[nh++] = h_date;
    if (with) {
        ddb_sigv4_header sh[4] = {{"content-type", ctype},
                                  {"host", hosthdr},
                                  {"x-amz-date", amz_date},
                                  {"x-amz-security-token", with->token}};
        ddb_sigv4_request req = {"POST", path && *path ? path : "/", "", sh, with->token ? 4 : 3,
                                 form.p, form.len - 1, NULL};
        ddb_sigv4_key key = {with->akid, with->secret, ctx->region ? ctx->region : "us-east-1", "sts"};
        if ((rc = ddbi_sigv4_sign(&req, &key, amz_date, &auth, NULL, err)))
            goto done;
        size_t n = auth.len + 32;
        h_auth = malloc(n);
        if (h_auth)
            snprintf(h_auth, n, "Authorization: %s", (const char *)auth.p);
        if (with->token) {
            n = strlen(with->token) + 32;
            if ((h_tok = malloc(n)))
                snprintf(h_tok, n, "X-Amz-Security-Token: %s", with->token);
        }
        if (!h_auth || (with->token && !h_tok)) {
            rc = ddbi_fail_oom(err, what);
            goto done;
        }
        hdrs[nh++] = h_auth;
        if (h_tok)
            hdrs[nh++] = h_tok;
    }
    ddbi_cred_reply rep;
    if ((rc = ddbi_cred_http(what, "POST", url, hdrs, nh, (const char *)form.p, ctx->timeout_ms, &rep, err)))
        goto done;
    if (rep.status != 200) {
        char text[300];
        ddbi_sts_error_text(rep.body, rep.len, text, sizeof text);
        rc = ddbi_fail(err, DDB_EINVAL, "%s: HTTP %ld%s%s", what, rep.status, text[0] ? ": " : "", text);
    } else {
        rc = ddbi_creds_from_sts_xml(what, rep.body, rep.len, out, err);
    }
    ddbi_cred_reply_free(&rep);
done:
    if (h_auth)
        memset(h_auth, 0, strlen(h_auth));
    free(h_auth);
    free(h_tok);
    ddbi_buf_free(&auth);
    if (form.p)
        memset(form.p, 0, form.len);
    ddbi_buf_free(&form);
    curl_free(host);
    curl_free(port);
    curl_free(path);
    curl_url_cleanup(u);
    free(url);
    return rc;
}

int ddbi_sts_assume_role(const ddbi_cred_ctx *ctx, const ddbi_creds *with, const ddbi_sts_role *role,
                         ddbi_creds *out, ddb_error *err)
{
    return sts_call(ctx, "AssumeRole", with, role, NULL, out, err);
}

int ddbi_sts_assume_role_web_identity(const ddbi_cred_ctx *ctx, const ddbi_sts_role *role, const char *token,
                                      ddbi_creds *out, ddb_error *err)
{
    return sts_call(ctx, "AssumeRoleWithWebIdentity", NULL, role, token, out, err);
}

int ddbi_cred_web_identity(const ddbi_cred_ctx *ctx, const void *arg, ddbi_creds *out, ddb_error *err)
{
    (void)arg;
    const char *file = ddbi_env("AWS_WEB_IDENTITY_TOKEN_FILE");
    const char *arn = ddbi_env("AWS_ROLE_ARN");
    if (!file || !arn)
        return ddbi_fail(err, DDB_ENOTFOUND, "%s not set", !file ? "AWS_WEB_IDENTITY_TOKEN_FILE" : "AWS_ROLE_ARN");
    char *token;
    size_t len;
    int rc = ddbi_read_small_file("web identity token", file, MAX_TOKEN_FILE, &token, &len, err);
    if (rc)
        return ddbi_cred_required(err, rc, DDB_EIO);
    while (len && (token[len - 1] == '\n' || token[len - 1] == '\r' || token[len - 1] == ' '))
        token[--len] = '\0';
    ddbi_sts_role role = {arn, ddbi_env("AWS_ROLE_SESSION_NAME"), NULL, 0};
    rc = ddbi_sts_assume_role_web_identity(ctx, &role, token, out, err);
    memset(token, 0, len);
    free(token);
    return rc;
}
