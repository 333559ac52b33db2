/* escapes.h — names and templates that need escaping in generated C: a
 * template or an entity name holding a comment delimiter, quotes and
 * backslashes.  The generated module must still compile warning-free. */
#ifndef ESCAPES_H
#define ESCAPES_H

#include <ddb/schema.h>

DDB_TABLE(esc, "Escapes", DDB_PRIMARY("PK", "SK"));

struct DDB_ENTITY(esc, "Star*/Slash /* \"q\"")
       DDB_KEY("table", "A*/B/*{id}?", "C\"D\\E*/")
note {
    char id[16];
};

#endif
