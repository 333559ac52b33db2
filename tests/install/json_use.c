/* A consumer of the installed <ddb/json.h>: DynamoDB JSON in, canonical
 * DynamoDB JSON out, through the installed libddb.so. */
#include <ddb/json.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
    const char *in = "{\"price\": {\"N\": \"1.50\"}, \"tags\": {\"SS\": [\"b\", \"a\"]}}";
    ddb_arena *a = ddb_arena_new();
    ddb_item *it;
    char *out;
    ddb_error err;
    if (!a || ddb_json_parse_item(in, strlen(in), a, &it, &err) || ddb_json_dump_item(it, &out, &err)) {
        fprintf(stderr, "%s\n", a ? err.message : "out of memory");
        return 1;
    }
    printf("%s\n", out);
    free(out);
    ddb_arena_free(a);
    return 0;
}
