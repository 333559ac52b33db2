/* defines.h — needs -I schemas/include -D NAME_LEN=32 -D TYPE_NAME="Thing" */
#ifndef DEFINES_H
#define DEFINES_H

#include <ddb/schema.h>
#include "extra.h"

DDB_TABLE(things, "Things", DDB_PRIMARY("PK"));

struct DDB_ENTITY(things, TYPE_NAME)
       DDB_KEY("table", "THING#{name}")
thing {
    char name[NAME_LEN];
    struct extra more;
};

#endif
