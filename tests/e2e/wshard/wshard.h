/* Write sharding end to end (tests/e2e/test_write_shards.c): a date-keyed
 * table whose primary key is spread over 4 partitions by a hash of the
 * item's key, a second entity in the same partitions (a collection), and
 * a GSI spread over 3 partitions at random. */
#ifndef WSHARD_H
#define WSHARD_H

#include <ddb/schema.h>

DDB_TABLE(desk, "Desk", DDB_PRIMARY("PK", "SK"), DDB_GSI("ByKind", "KindPK", "KindSK"));

struct DDB_ENTITY(desk, "CheckIn")
       DDB_KEY("table", "DATE#{date}", "C#{patient}#{visit_no:04}")
       DDB_KEY("ByKind", "KIND#{kind}", "{date}#{patient}#{visit_no:04}")
       DDB_WRITE_SHARDS("table", 4, "hash")
       DDB_WRITE_SHARDS("ByKind", 3, "random")
       DDB_COLLECTION("day", "table")
check_in {
    char date[11];
    char patient[16];
    uint16_t visit_no;
    char kind[16];
    char note[32];
};

struct DDB_ENTITY(desk, "Shift")
       DDB_KEY("table", "DATE#{date}", "S#{doctor}")
       DDB_WRITE_SHARDS("table", 4, "hash")
       DDB_COLLECTION("day", "table")
shift {
    char date[11];
    char doctor[16];
};

#endif
