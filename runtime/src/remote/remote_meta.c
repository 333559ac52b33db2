/* remote/: Table metadata (ddb_table_meta_put/get) on a remote endpoint: DynamoDB
 * has no per-table key/value store, but every table has tags, deleted with
 * it.  A value is kept base64-encoded (tag values allow only letters,
 * digits, spaces and "_.:/=+-@") in chunks of 256 characters under the tag
 * keys "KEY:0", "KEY:1", ...
 *
 * Limits that follow from tags: a key of at most 120 characters from that
 * same set, 50 tags per table in all, and DynamoDB's tag operations are
 * eventually consistent (a get right after a put may not see it yet) and
 * rate-limited.
 * May call core/ and expr/. */
#include "remote/remote_wire.h"

#include <ddb/json.h>
#include "core/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAG_VALUE_MAX 256
#define TAG_KEY_MAX 128
#define TAGS_MAX 50

static bool tag_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr(" _.:/=+-@", c);
}

static int check_key(const char *table, const char *key, ddb_error *err)
{
    size_t n = strlen(key);
    if (!n || n > TAG_KEY_MAX - 8)
        return ddbi_fail(err, DDB_ELIMIT, "table %s: metadata key \"%.40s\" must be 1 to %d characters on a remote "
                                         "endpoint (it is kept in a tag)",
                        table, key, TAG_KEY_MAX - 8);
    for (size_t i = 0; i < n; i++)
        if (!tag_char(key[i]))
            return ddbi_fail(err, DDB_EINVAL,
                            "table %s: metadata key \"%.40s\" may hold only letters, digits, spaces and _.:/=+-@ on a "
                            "remote endpoint (it is kept in a tag)",
                            table, key);
    return DDB_OK;
}

/* The table's ARN (malloc'd). */
static int table_arn(ddb_remote *r, const char *table, char **arn, ddb_error *err)
{
    *arn = NULL;
    json_t *req = json_pack("{s:s}", "TableName", table), *resp = NULL;
    if (!req)
        return ddbi_fail(err, DDB_EVALIDATION, "table name \"%.64s\" is not UTF-8", table);
    int rc = ddbi_remote_call(r, "DescribeTable", req, &resp, NULL, err);
    json_decref(req);
    if (!rc) {
        const json_t *a = json_object_get(json_object_get(resp, "Table"), "TableArn");
        if (!json_is_string(a))
            rc = ddbi_remote_bad(err, "DescribeTable", "Table.TableArn is missing or not a string");
        else if (!(*arn = strdup(json_string_value(a))))
            rc = ddbi_fail_oom(err, __func__);
    }
    json_decref(resp);
    return rc;
}

/* Every tag of the resource: one array of {"Key", "Value"} (all pages). */
static int list_tags(ddb_remote *r, const char *arn, json_t **out, ddb_error *err)
{
    json_t *all = json_array();
    if (!all)
        return ddbi_fail_oom(err, __func__);
    char *token = NULL;
    int rc = DDB_OK;
    for (int page = 0; page < 100 && !rc; page++) {
        json_t *req = json_pack("{s:s}", "ResourceArn", arn), *resp = NULL;
        if (!req || (token && json_object_set_new(req, "NextToken", json_string(token)))) {
            json_decref(req);
            rc = ddbi_fail_oom(err, __func__);
            break;
        }
        rc = ddbi_remote_call(r, "ListTagsOfResource", req, &resp, NULL, err);
        json_decref(req);
        const json_t *tags = json_object_get(resp, "Tags"), *next = json_object_get(resp, "NextToken");
        if (!rc && (!json_is_array(tags) || (next && !json_is_string(next))))
            rc = ddbi_remote_bad(err, "ListTagsOfResource", "Tags is not an array or NextToken not a string");
        for (size_t i = 0; !rc && i < json_array_size(tags); i++) {
            const json_t *t = json_array_get(tags, i);
            if (!json_is_string(json_object_get(t, "Key")) || !json_is_string(json_object_get(t, "Value")))
                rc = ddbi_remote_bad(err, "ListTagsOfResource", "Tags[%zu] is not {Key, Value} strings", i);
            else if (json_array_append(all, (json_t *)t))
                rc = ddbi_fail_oom(err, __func__);
        }
        free(token);
        token = !rc && next ? strdup(json_string_value(next)) : NULL;
        json_decref(resp);
        if (!token)
            break;
    }
    free(token);
    if (rc) {
        json_decref(all);
        return rc;
    }
    *out = all;
    return DDB_OK;
}

/* Chunk number of tag key k for metadata key, or -1 when k is not one. */
static long chunk_of(const char *k, const char *key)
{
    size_t n = strlen(key);
    if (strncmp(k, key, n) != 0 || k[n] != ':' || k[n + 1] < '0' || k[n + 1] > '9')
        return -1;
    char *end;
    long i = strtol(k + n + 1, &end, 10);
    return *end || i >= TAGS_MAX ? -1 : i;
}

int ddbi_remote_table_meta_put(void *impl, const char *table, const char *key, const void *val, size_t len,
                               ddb_error *err)
{
    ddb_remote *r = impl;
    int rc = check_key(table, key, err);
    if (rc)
        return rc;
    size_t blen = DDB_JSON_BASE64_LEN(len), chunks = blen ? (blen + TAG_VALUE_MAX - 1) / TAG_VALUE_MAX : 1;
    if (chunks > TAGS_MAX)
        return ddbi_fail(err, DDB_ELIMIT, "table %s: metadata %s of %zu bytes does not fit in %d tags", table, key, len,
                        TAGS_MAX);
    char *b64 = malloc(blen + 1), *arn = NULL;
    json_t *tags = NULL, *req = NULL, *resp = NULL;
    if (!b64) {
        rc = ddbi_fail_oom(err, __func__);
        goto done;
    }
    ddb_json_base64_encode(val, len, b64);
    if ((rc = table_arn(r, table, &arn, err)) || (rc = list_tags(r, arn, &tags, err)))
        goto done;
    /* chunks of an older, longer value go first */
    json_t *stale = json_array();
    if (!stale) {
        rc = ddbi_fail_oom(err, __func__);
        goto done;
    }
    for (size_t i = 0; i < json_array_size(tags); i++) {
        const char *k = json_string_value(json_object_get(json_array_get(tags, i), "Key"));
        long c = chunk_of(k, key);
        if (c >= (long)chunks && json_array_append_new(stale, json_string(k)))
            rc = ddbi_fail_oom(err, __func__);
    }
    if (!rc && json_array_size(stale)) {
        req = json_pack("{s:s, s:O}", "ResourceArn", arn, "TagKeys", stale);
        rc = req ? ddbi_remote_call(r, "UntagResource", req, &resp, NULL, err) : ddbi_fail_oom(err, __func__);
        json_decref(req);
        json_decref(resp);
        req = resp = NULL;
    }
    json_decref(stale);
    if (rc)
        goto done;
    json_t *list = json_array();
    req = json_pack("{s:s, s:o}", "ResourceArn", arn, "Tags", list);
    for (size_t i = 0; req && i < chunks; i++) {
        char k[TAG_KEY_MAX + 8];
        snprintf(k, sizeof k, "%s:%zu", key, i);
        size_t off = i * TAG_VALUE_MAX, n = blen - off < TAG_VALUE_MAX ? blen - off : TAG_VALUE_MAX;
        json_t *t = json_pack("{s:s, s:s%}", "Key", k, "Value", b64 + off, n);
        if (!t || json_array_append_new(list, t)) {
            rc = ddbi_fail_oom(err, __func__);
            break;
        }
    }
    if (!req)
        rc = ddbi_fail_oom(err, __func__);
    if (!rc)
        rc = ddbi_remote_call(r, "TagResource", req, &resp, NULL, err);
done:
    json_decref(req);
    json_decref(resp);
    json_decref(tags);
    free(arn);
    free(b64);
    return rc;
}

int ddbi_remote_table_meta_get(void *impl, const char *table, const char *key, ddb_arena *a, void **val,
                               size_t *len, ddb_error *err)
{
    ddb_remote *r = impl;
    *val = NULL;
    *len = 0;
    int rc = check_key(table, key, err);
    if (rc)
        return rc;
    char *arn = NULL;
    json_t *tags = NULL;
    if ((rc = table_arn(r, table, &arn, err)) || (rc = list_tags(r, arn, &tags, err))) {
        free(arn);
        return rc;
    }
    free(arn);
    const char *part[TAGS_MAX] = {0};
    size_t plen[TAGS_MAX] = {0}, n = 0, total = 0;
    for (size_t i = 0; i < json_array_size(tags); i++) {
        const json_t *t = json_array_get(tags, i);
        long c = chunk_of(json_string_value(json_object_get(t, "Key")), key);
        if (c < 0)
            continue;
        part[c] = json_string_value(json_object_get(t, "Value"));
        plen[c] = json_string_length(json_object_get(t, "Value"));
        total += plen[c];
        n = (size_t)c + 1 > n ? (size_t)c + 1 : n;
    }
    if (!n) {
        json_decref(tags);
        return ddbi_fail(err, DDB_ENOTFOUND, "table %s has no metadata %s", table, key);
    }
    char *b64 = malloc(total + 1);
    uint8_t *out = ddb_arena_alloc(a, total / 4 * 3 + 1);
    if (!b64 || !out) {
        free(b64);
        json_decref(tags);
        return ddbi_fail_oom(err, __func__);
    }
    size_t off = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        if (!part[i])
            rc = ddbi_fail(err, DDB_ECORRUPT, "table %s: metadata %s lacks its tag %s:%zu", table, key, key, i);
        else {
            memcpy(b64 + off, part[i], plen[i]);
            off += plen[i];
        }
    }
    size_t got = 0, bad = 0;
    if (!rc && ddb_json_base64_decode(b64, off, out, &got, &bad) != DDB_OK)
        rc = ddbi_fail(err, DDB_ECORRUPT, "table %s: metadata %s is not valid base64 at offset %zu", table, key, bad);
    free(b64);
    json_decref(tags);
    if (rc)
        return rc;
    out[got] = '\0';
    *val = out;
    *len = got;
    return DDB_OK;
}
