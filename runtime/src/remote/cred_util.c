/* remote/: credential values (copy, wipe) and the bounded reads the
 * credential sources share (environment variables, small token files).
 * May call core/. */
#include "remote/cred.h"

#include "core/error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *ddbi_env(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

void ddbi_creds_clear(ddbi_creds *c)
{
    if (!c)
        return;
    if (c->secret)
        memset(c->secret, 0, strlen(c->secret));
    if (c->token)
        memset(c->token, 0, strlen(c->token));
    free(c->akid);
    free(c->secret);
    free(c->token);
    memset(c, 0, sizeof *c);
}

int ddbi_creds_set(ddbi_creds *c, const char *what, const char *akid, const char *secret, const char *token,
                   int64_t expires, ddb_error *err)
{
    ddbi_creds_clear(c);
    if (!akid || !*akid || !secret || !*secret)
        return ddbi_fail(err, DDB_EINVAL, "%s: %s", what,
                         (!akid || !*akid) ? "no access key id" : "no secret access key");
    c->akid = strdup(akid);
    c->secret = strdup(secret);
    c->token = token && *token ? strdup(token) : NULL;
    c->expires = expires;
    if (!c->akid || !c->secret || (token && *token && !c->token)) {
        ddbi_creds_clear(c);
        return ddbi_fail_oom(err, what);
    }
    return DDB_OK;
}

int ddbi_creds_copy(ddbi_creds *dst, const ddbi_creds *src, ddb_error *err)
{
    return ddbi_creds_set(dst, "credentials", src->akid, src->secret, src->token, src->expires, err);
}

int ddbi_cred_required(ddb_error *err, int rc, int code)
{
    if (rc != DDB_ENOTFOUND)
        return rc;
    if (err)
        err->code = code;
    return code;
}

int ddbi_read_small_file(const char *what, const char *path, size_t max, char **out, size_t *len, ddb_error *err)
{
    *out = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return ddbi_fail(err, errno == ENOENT ? DDB_ENOTFOUND : DDB_EIO, "%s: cannot open %s: %s", what, path,
                         strerror(errno));
    char *buf = malloc(max + 1);
    if (!buf) {
        fclose(f);
        return ddbi_fail_oom(err, what);
    }
    size_t n = fread(buf, 1, max + 1, f);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return ddbi_fail(err, DDB_EIO, "%s: cannot read %s", what, path);
    }
    if (n > max) {
        free(buf);
        return ddbi_fail(err, DDB_ELIMIT, "%s: %s is larger than %zu bytes", what, path, max);
    }
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return DDB_OK;
}
