/* ddb serve: what decoding a request body will take in memory, estimated
 * in one pass over its text before jansson builds the tree.  jansson's
 * tree of a body of tiny values is many times the body (a 14 MB PutItem of
 * 640,000 one-digit numbers peaked at 400 MB), so http.c charges this
 * estimate to --body-memory while the request is handled.  Calls nothing. */
#include "serve.h"

/* Measured with jansson 2.14 and libddb's decoded item (about 600 bytes
 * for each {"N": "1"} and its key), rounded up. */
#define BYTES_PER_CONTAINER 640
#define BYTES_PER_STRING 64

size_t serve_decode_cost(const char *body, size_t len)
{
    size_t containers = 0, strings = 0;
    bool in_string = false;
    for (size_t i = 0; i < len; i++) {
        char ch = body[i];
        if (in_string) {
            if (ch == '\\')
                i++; /* the escaped character cannot end the string */
            else if (ch == '"')
                in_string = false;
        } else if (ch == '"') {
            in_string = true;
            strings++;
        } else if (ch == '{' || ch == '[') {
            containers++;
        }
    }
    return len + containers * BYTES_PER_CONTAINER + strings * BYTES_PER_STRING;
}
