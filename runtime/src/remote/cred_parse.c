/* remote/: parsing what credential sources answer: the JSON of the
 * container endpoint, IMDS and credential_process, STS's XML, and ISO 8601
 * expiry times.  No I/O.  May call core/ and jansson. */
#include "remote/cred.h"

#include "core/error.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int digits(const char *s, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return 0;
}

/* Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

int ddbi_iso8601_parse(const char *s, int64_t *out)
{
    int y, mo, d, h, mi, se;
    if (!s || strlen(s) < 19 || digits(s, 4, &y) || s[4] != '-' || digits(s + 5, 2, &mo) || s[7] != '-' ||
        digits(s + 8, 2, &d) || (s[10] != 'T' && s[10] != 't' && s[10] != ' ') || digits(s + 11, 2, &h) ||
        s[13] != ':' || digits(s + 14, 2, &mi) || s[16] != ':' || digits(s + 17, 2, &se))
        return -1;
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60)
        return -1;
    const char *p = s + 19;
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++) {
        }
    int64_t off = 0;
    if (*p == 'Z' || *p == 'z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        int oh, om;
        if (digits(p + 1, 2, &oh) || p[3] != ':' || digits(p + 4, 2, &om))
            return -1;
        off = (oh * 3600 + om * 60) * (*p == '+' ? 1 : -1);
        p += 6;
    } else {
        return -1;
    }
    if (*p)
        return -1;
    *out = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se - off;
    return 0;
}

int ddbi_creds_from_json(const char *what, const char *body, size_t len, ddbi_creds *c, ddb_error *err)
{
    json_error_t je;
    json_t *j = json_loadb(body, len, JSON_REJECT_DUPLICATES, &je);
    if (!j || !json_is_object(j)) {
        json_decref(j);
        return ddbi_fail(err, DDB_EINVAL, "%s: the answer is not a JSON object%s%s", what, j ? "" : ": ",
                         j ? "" : je.text);
    }
    const char *akid = json_string_value(json_object_get(j, "AccessKeyId"));
    const char *secret = json_string_value(json_object_get(j, "SecretAccessKey"));
    const char *token = json_string_value(json_object_get(j, "Token"));
    if (!token)
        token = json_string_value(json_object_get(j, "SessionToken"));
    const char *exp = json_string_value(json_object_get(j, "Expiration"));
    json_t *version = json_object_get(j, "Version");
    int rc = DDB_OK;
    int64_t expires = 0;
    if (version && json_integer_value(version) != 1)
        rc = ddbi_fail(err, DDB_EINVAL, "%s: unsupported Version (1 is)", what);
    else if (exp && ddbi_iso8601_parse(exp, &expires))
        rc = ddbi_fail(err, DDB_EINVAL, "%s: Expiration \"%.40s\" is not an ISO 8601 time", what, exp);
    else if (!akid || !secret) {
        const char *code = json_string_value(json_object_get(j, "Code"));
        if (!code)
            code = json_string_value(json_object_get(j, "code"));
        const char *msg = json_string_value(json_object_get(j, "Message"));
        if (!msg)
            msg = json_string_value(json_object_get(j, "message"));
        rc = ddbi_fail(err, DDB_EINVAL, "%s: %s%s%s", what, code ? code : "no AccessKeyId and SecretAccessKey",
                       msg ? ": " : "", msg ? msg : "");
    } else
        rc = ddbi_creds_set(c, what, akid, secret, token, expires, err);
    json_decref(j);
    return rc;
}

/* The text of the first <tag>...</tag> inside [p, end), entities decoded,
 * into a new string (NULL when absent; *oom set when out of memory). */
static char *xml_text(const char *p, const char *end, const char *tag, bool *oom)
{
    char open[64], close[64];
    snprintf(open, sizeof open, "<%s>", tag);
    snprintf(close, sizeof close, "</%s>", tag);
    size_t ol = strlen(open), cl = strlen(close);
    const char *a = NULL;
    for (const char *q = p; q + ol <= end; q++)
        if (memcmp(q, open, ol) == 0) {
            a = q + ol;
            break;
        }
    if (!a)
        return NULL;
    const char *b = NULL;
    for (const char *q = a; q + cl <= end; q++)
        if (memcmp(q, close, cl) == 0) {
            b = q;
            break;
        }
    if (!b)
        return NULL;
    char *out = malloc((size_t)(b - a) + 1);
    if (!out) {
        *oom = true;
        return NULL;
    }
    size_t o = 0;
    static const struct {
        const char *ent;
        char c;
    } ents[] = {{"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
    for (const char *q = a; q < b;) {
        size_t i = 0;
        for (; i < sizeof ents / sizeof *ents; i++) {
            size_t el = strlen(ents[i].ent);
            if ((size_t)(b - q) >= el && memcmp(q, ents[i].ent, el) == 0) {
                out[o++] = ents[i].c;
                q += el;
                break;
            }
        }
        if (i == sizeof ents / sizeof *ents)
            out[o++] = *q++;
    }
    out[o] = '\0';
    return out;
}

void ddbi_sts_error_text(const char *body, size_t len, char *out, size_t cap)
{
    bool oom = false;
    char *code = xml_text(body, body + len, "Code", &oom);
    char *msg = xml_text(body, body + len, "Message", &oom);
    snprintf(out, cap, "%s%s%s", code ? code : "", code && msg ? ": " : "", msg ? msg : "");
    free(code);
    free(msg);
}

int ddbi_creds_from_sts_xml(const char *what, const char *body, size_t len, ddbi_creds *c, ddb_error *err)
{
    const char *end = body + len;
    const char *cred = NULL;
    for (const char *q = body; q + 13 <= end; q++)
        if (memcmp(q, "<Credentials>", 13) == 0) {
            cred = q;
            break;
        }
    if (!cred)
        return ddbi_fail(err, DDB_EINVAL, "%s: STS's answer has no <Credentials>", what);
    bool oom = false;
    char *akid = xml_text(cred, end, "AccessKeyId", &oom);
    char *secret = xml_text(cred, end, "SecretAccessKey", &oom);
    char *token = xml_text(cred, end, "SessionToken", &oom);
    char *exp = xml_text(cred, end, "Expiration", &oom);
    int64_t expires = 0;
    int rc;
    if (oom)
        rc = ddbi_fail_oom(err, what);
    else if (!exp || ddbi_iso8601_parse(exp, &expires))
        rc = ddbi_fail(err, DDB_EINVAL, "%s: STS's answer has no valid <Expiration>", what);
    else
        rc = ddbi_creds_set(c, what, akid, secret, token, expires, err);
    if (secret)
        memset(secret, 0, strlen(secret));
    free(akid);
    free(secret);
    free(token);
    free(exp);
    return rc;
}
