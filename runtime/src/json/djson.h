/* json/: the room of the public DynamoDB-JSON codec (<ddb/json.h>,
 * djson.c).  What the other rooms may call besides the public header.
 * Calls core and jansson. */
#ifndef DDBI_JSON_DJSON_H
#define DDBI_JSON_DJSON_H

#include <jansson.h>

/* What a JSON value is, for messages: "an object", "an array", "a
 * string", "a number", "a boolean", "null"; "missing" for NULL. */
const char *ddbi_json_kind(const json_t *j);

#endif
