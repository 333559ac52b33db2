/* remote/: the AWS shared config and credentials files (the INI format the
 * AWS CLI reads): the settings of one profile, and of one [services NAME]
 * section (service-specific endpoints).
 *
 * The format, as the AWS CLI accepts it: "[default]" and "[profile NAME]"
 * sections in the config file, "[NAME]" in the credentials file (spaces
 * around names ignored; other config sections such as [sso-session x]
 * and [services x] are not profiles); "key = value" or "key: value"
 * (keys compared lower-case, both sides trimmed); whole-line comments
 * starting with '#' or ';', and comments after a value when the '#' or
 * ';' follows whitespace; an indented line continues the previous
 * setting's value (nested settings such as "s3 =\n  max_concurrency = 4");
 * a section repeated later adds to the first, a key repeated replaces the
 * earlier value; CRLF line ends.  A setting before any section or a line
 * of another shape is an error naming the file and line.
 * May call core/. */
#include "remote/cred.h"

#include "core/error.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_SETTINGS 4096

static char *dup_range(const char *p, size_t n)
{
    char *s = malloc(n + 1);
    if (s) {
        memcpy(s, p, n);
        s[n] = '\0';
    }
    return s;
}

static void trim(const char **p, size_t *n)
{
    while (*n && isspace((unsigned char)**p))
        (*p)++, (*n)--;
    while (*n && isspace((unsigned char)(*p)[*n - 1]))
        (*n)--;
}

/* A comment after a value: '#' or ';' preceded by whitespace. */
static size_t strip_inline_comment(const char *p, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if ((p[i] == '#' || p[i] == ';') && isspace((unsigned char)p[i - 1]))
            return i;
    return n;
}

static int set(ddbi_profile *p, const char *key, size_t klen, const char *val, size_t vlen, bool append,
               bool overwrite, ddb_error *err)
{
    size_t i = 0;
    for (; i < p->n; i++)
        if (strlen(p->keys[i]) == klen && memcmp(p->keys[i], key, klen) == 0)
            break;
    if (i < p->n && append) {
        size_t old = strlen(p->vals[i]);
        char *v = realloc(p->vals[i], old + vlen + 2);
        if (!v)
            return ddbi_fail_oom(err, "profile setting");
        v[old] = '\n';
        memcpy(v + old + 1, val, vlen);
        v[old + 1 + vlen] = '\0';
        p->vals[i] = v;
        return DDB_OK;
    }
    if (i < p->n && !overwrite)
        return DDB_OK;
    char *v = dup_range(val, vlen);
    if (!v)
        return ddbi_fail_oom(err, "profile setting");
    if (i < p->n) {
        free(p->vals[i]);
        p->vals[i] = v;
        return DDB_OK;
    }
    if (p->n >= MAX_SETTINGS) {
        free(v);
        return ddbi_fail(err, DDB_ELIMIT, "profile %s: more than %d settings", p->name, MAX_SETTINGS);
    }
    char *k = dup_range(key, klen);
    char **nk = realloc(p->keys, (p->n + 1) * sizeof *nk);
    if (nk)
        p->keys = nk;
    char **nv = nk ? realloc(p->vals, (p->n + 1) * sizeof *nv) : NULL;
    if (nv)
        p->vals = nv;
    if (!k || !nk || !nv) {
        free(k);
        free(v);
        return ddbi_fail_oom(err, "profile setting");
    }
    for (size_t j = 0; j < klen; j++)
        k[j] = (char)tolower((unsigned char)k[j]);
    p->keys[p->n] = k;
    p->vals[p->n] = v;
    p->n++;
    return DDB_OK;
}

/* Does section text s (trimmed, inside the brackets) name section name of
 * the kind prefix ("profile", "services"; NULL: the bare name)? */
static bool section_is(const char *s, size_t n, const char *prefix, const char *name)
{
    if (prefix) {
        size_t pl = strlen(prefix);
        if (strcmp(prefix, "profile") == 0 && n == 7 && memcmp(s, "default", 7) == 0)
            return strcmp(name, "default") == 0;
        if (n <= pl || memcmp(s, prefix, pl) != 0 || !isspace((unsigned char)s[pl]))
            return false;
        s += pl, n -= pl;
        trim(&s, &n);
    }
    return strlen(name) == n && memcmp(s, name, n) == 0;
}

int ddbi_ini_parse(const char *text, size_t len, const char *path, const char *prefix, const char *name,
                   bool overwrite, ddbi_profile *p, ddb_error *err)
{
    bool in_section = false, ours = false;
    const char *last_key = NULL;
    size_t last_klen = 0;
    unsigned lineno = 0;
    for (size_t off = 0; off < len;) {
        const char *line = text + off;
        const char *nl = memchr(line, '\n', len - off);
        size_t n = nl ? (size_t)(nl - line) : len - off;
        off += n + (nl ? 1 : 0);
        lineno++;
        if (n && line[n - 1] == '\r')
            n--;
        bool indented = n && (line[0] == ' ' || line[0] == '\t');
        const char *t = line;
        size_t tn = n;
        trim(&t, &tn);
        if (!tn || t[0] == '#' || t[0] == ';')
            continue;
        if (indented && last_key) { /* continuation of the previous value */
            tn = strip_inline_comment(t, tn);
            trim(&t, &tn);
            if (ours) {
                int rc = set(p, last_key, last_klen, t, tn, true, overwrite, err);
                if (rc)
                    return rc;
            }
            continue;
        }
        if (t[0] == '[') {
            const char *close = memchr(t, ']', tn);
            const char *rest = close ? close + 1 : NULL;
            size_t rn = close ? tn - (size_t)(rest - t) : 0;
            trim(&rest, &rn);
            if (!close || (rn && rest[0] != '#' && rest[0] != ';'))
                return ddbi_fail(err, DDB_EINVAL, "%s line %u: malformed section header", path, lineno);
            const char *s = t + 1;
            size_t sn = (size_t)(close - s);
            trim(&s, &sn);
            in_section = true;
            ours = section_is(s, sn, prefix, name);
            if (ours)
                p->found = true;
            last_key = NULL;
            continue;
        }
        size_t d = 0;
        while (d < tn && t[d] != '=' && t[d] != ':')
            d++;
        if (d == tn)
            return ddbi_fail(err, DDB_EINVAL, "%s line %u: expected \"key = value\", a [section] or a comment",
                             path, lineno);
        if (!in_section)
            return ddbi_fail(err, DDB_EINVAL, "%s line %u: a setting before any [section]", path, lineno);
        const char *k = t, *v = t + d + 1;
        size_t kn = d, vn = tn - d - 1;
        trim(&k, &kn);
        vn = strip_inline_comment(v, vn);
        trim(&v, &vn);
        if (!kn)
            return ddbi_fail(err, DDB_EINVAL, "%s line %u: a setting without a name", path, lineno);
        last_key = k;
        last_klen = kn;
        if (ours) {
            int rc = set(p, k, kn, v, vn, false, overwrite, err);
            if (rc)
                return rc;
            /* keys are stored lower-case: continuations must find them */
            for (size_t i = 0; i < p->n; i++)
                if (strlen(p->keys[i]) == kn && strncasecmp(p->keys[i], k, kn) == 0)
                    last_key = p->keys[i];
        }
    }
    return DDB_OK;
}

static char *home_path(const char *env_name, const char *rel, ddb_error *err, int *rc)
{
    const char *v = ddbi_env(env_name);
    const char *home = ddbi_env("HOME");
    char *out = NULL;
    if (v && strncmp(v, "~/", 2) == 0 && home) {
        size_t n = strlen(home) + strlen(v);
        if ((out = malloc(n)))
            snprintf(out, n, "%s%s", home, v + 1);
    } else if (v) {
        out = strdup(v);
    } else if (home) {
        size_t n = strlen(home) + strlen(rel) + 2;
        if ((out = malloc(n)))
            snprintf(out, n, "%s/%s", home, rel);
    } else {
        return NULL; /* no home: no default files */
    }
    if (!out)
        *rc = ddbi_fail_oom(err, "shared file path");
    return out;
}

int ddbi_aws_files_init(ddbi_aws_files *f, ddb_error *err)
{
    int rc = DDB_OK;
    memset(f, 0, sizeof *f);
    f->config = home_path("AWS_CONFIG_FILE", ".aws/config", err, &rc);
    if (!rc)
        f->credentials = home_path("AWS_SHARED_CREDENTIALS_FILE", ".aws/credentials", err, &rc);
    if (rc)
        ddbi_aws_files_free(f);
    return rc;
}

void ddbi_aws_files_free(ddbi_aws_files *f)
{
    free(f->config);
    free(f->credentials);
    memset(f, 0, sizeof *f);
}

static int load_file(const char *path, const char *prefix, const char *name, bool overwrite, ddbi_profile *p,
                     ddb_error *err)
{
    if (!path)
        return DDB_OK;
    char *text;
    size_t len;
    int rc = ddbi_read_small_file("shared AWS file", path, DDBI_INI_MAX_FILE, &text, &len, err);
    if (rc == DDB_ENOTFOUND)
        return DDB_OK;
    if (rc)
        return rc;
    rc = ddbi_ini_parse(text, len, path, prefix, name, overwrite, p, err);
    free(text);
    return rc;
}

int ddbi_profile_load(const ddbi_aws_files *f, const char *name, ddbi_profile *p, ddb_error *err)
{
    memset(p, 0, sizeof *p);
    if (!(p->name = strdup(name)))
        return ddbi_fail_oom(err, "profile");
    int rc = load_file(f->config, "profile", name, true, p, err);
    if (!rc)
        rc = load_file(f->credentials, NULL, name, true, p, err);
    if (rc)
        ddbi_profile_free(p);
    return rc;
}

int ddbi_services_load(const ddbi_aws_files *f, const char *name, ddbi_profile *p, ddb_error *err)
{
    memset(p, 0, sizeof *p);
    if (!(p->name = strdup(name)))
        return ddbi_fail_oom(err, "services section");
    int rc = load_file(f->config, "services", name, true, p, err);
    if (rc)
        ddbi_profile_free(p);
    return rc;
}

int ddbi_ini_nested(const char *value, const char *key, char *out, size_t cap)
{
    size_t kl = strlen(key);
    for (const char *line = value; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        size_t n = strcspn(line, "\n");
        const char *t = line;
        trim(&t, &n);
        if (n > kl && strncasecmp(t, key, kl) == 0) {
            const char *v = t + kl;
            size_t vn = n - kl;
            trim(&v, &vn);
            if (vn && (*v == '=' || *v == ':')) {
                v++, vn--;
                trim(&v, &vn);
                if (vn >= cap)
                    return -1;
                memcpy(out, v, vn);
                out[vn] = '\0';
                return 0;
            }
        }
    }
    return -1;
}

const char *ddbi_profile_get(const ddbi_profile *p, const char *key)
{
    for (size_t i = 0; p && i < p->n; i++)
        if (strcmp(p->keys[i], key) == 0)
            return p->vals[i][0] ? p->vals[i] : NULL;
    return NULL;
}

void ddbi_profile_free(ddbi_profile *p)
{
    for (size_t i = 0; i < p->n; i++) {
        if (p->vals[i])
            memset(p->vals[i], 0, strlen(p->vals[i]));
        free(p->keys[i]);
        free(p->vals[i]);
    }
    free(p->keys);
    free(p->vals);
    free(p->name);
    memset(p, 0, sizeof *p);
}
