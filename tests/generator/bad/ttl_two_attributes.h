/* DynamoDB has one TTL attribute per table: entities of one table whose
 * DDB_TTL fields are stored under different attribute names are refused
 * before anything is written (--emit-model as well as -o), even when the
 * C fields share a name. */
#include <ddb/schema.h>
#include <stdint.h>

DDB_TABLE(cache, "Cache", DDB_PRIMARY("PK"));

struct DDB_ENTITY(cache, "Page")
       DDB_KEY("table", "PAGE#{url}")
page {
    char url[256];
    char *body;
    uint32_t expires_at DDB_TTL;
};

struct DDB_ENTITY(cache, "Thumbnail")
       DDB_KEY("table", "THUMB#{url}")
thumbnail {
    char url[256];
    ddb_bytes png;
    uint32_t expires_at DDB_TTL DDB_ATTR("thumb_ttl");
};
