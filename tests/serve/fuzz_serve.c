/* libFuzzer target: `ddb serve`'s request decoder and handlers
 * (serve_call(): X-Amz-Target + body -> response) over a real embedded
 * database.  An input is "TARGET\nBODY": TARGET an operation name
 * ("PutItem", "DynamoDBStreams_20120810.GetRecords", anything), BODY the
 * request bytes.  Whatever the input, the reply must be a status DynamoDB
 * uses with a JSON object body (or, for TagResource and UntagResource
 * answered 200, an empty one), and an error body must carry __type. */
#include "serve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static server srv;

static void setup(void)
{
    char dir[] = "/tmp/fuzz-serve-XXXXXX";
    if (!mkdtemp(dir))
        abort();
    ddb_options o = {.sync = DDB_SYNC_NONE, .map_size = 1ull << 30};
    ddb_error e;
    if (ddb_open(dir, &o, &srv.db, &e)) {
        fprintf(stderr, "fuzz_serve: %s\n", e.message);
        abort();
    }
    srv.region = "us-east-1";
    srv.account = "000000000000";
    ddb_index_def gsi = {.name = "gsi1", .key = {.pk = "g", .pk_type = DDB_TS}};
    ddb_table_def t = {.name = "Fuzz",
                       .key = {.pk = "pk", .pk_type = DDB_TS, .sk = "sk", .sk_type = DDB_TN},
                       .indexes = &gsi,
                       .n_indexes = 1,
                       .stream = {.view = DDB_STREAM_NEW_AND_OLD_IMAGES},
                       .ttl_attribute = "exp"};
    if (ddb_create_table(srv.db, &t, &e))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!srv.db)
        setup();
    const char *nl = memchr(data, '\n', size);
    size_t tlen = nl ? (size_t)(nl - (const char *)data) : size;
    if (tlen > 200)
        return 0;
    char target[256];
    const char *prefix = memchr(data, '.', tlen) ? "" : "DynamoDB_20120810.";
    snprintf(target, sizeof target, "%s%.*s", prefix, (int)tlen, (const char *)data);
    const char *body = nl ? nl + 1 : "";
    size_t blen = nl ? size - tlen - 1 : 0;
    serve_reply rep;
    serve_call(&srv, target, "localhost", body, blen, &rep);
    if (rep.status != 200 && rep.status != 400 && rep.status != 500)
        abort();
    bool tagging = strstr(target, "TagResource") != NULL; /* TagResource, UntagResource */
    if (rep.status == 200 && tagging && rep.body && rep.len == 0) {
        free(rep.body);
        return 0;
    }
    json_t *j = rep.body ? json_loadb(rep.body, rep.len, 0, NULL) : NULL;
    if (!j || !json_is_object(j) || (rep.status != 200 && !json_is_string(json_object_get(j, "__type"))))
        abort();
    json_decref(j);
    free(rep.body);
    return 0;
}
