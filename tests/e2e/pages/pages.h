/* pages.h — a collection whose members have 1, 2, 3 and 4 items each (an
 * unsharded User, an Org of two shards, a Proj of three, a Team of four),
 * interleaved in sort-key order by a shared sequence number, for the
 * paging property test (test_collection_pages.c); a declared query (of
 * Teams, a filter on a shard's field) and a declared scan (of Users) for
 * their iterators (test_read_iterators.c). */
#ifndef PAGES_H
#define PAGES_H

#include <ddb/schema.h>

DDB_TABLE(pg, "CollPages", DDB_PRIMARY("PK", "SK"));

struct DDB_ENTITY(pg, "Org")
       DDB_KEY("table", "ORG#{org}", "A#{org}")
       DDB_COLLECTION("members", "table")
org {
    char org[16];
    char name[16] DDB_SHARD("A");
    int32_t n DDB_SHARD("B");
};

struct DDB_ENTITY(pg, "Proj")
       DDB_KEY("table", "ORG#{org}", "M#{seq:04}#P")
       DDB_COLLECTION("members", "table")
proj {
    char org[16];
    int32_t seq;
    int32_t a DDB_SHARD("A");
    int32_t b DDB_SHARD("B");
    int32_t c DDB_SHARD("C");
};

struct DDB_ENTITY(pg, "Team")
       DDB_KEY("table", "ORG#{org}", "M#{seq:04}#T")
       DDB_COLLECTION("members", "table")
       DDB_QUERY("big", "table", "", "d >= :min_d")
team {
    char org[16];
    int32_t seq;
    int32_t a DDB_SHARD("A");
    int32_t b DDB_SHARD("B");
    int32_t c DDB_SHARD("C");
    int32_t d DDB_SHARD("D");
};

struct DDB_ENTITY(pg, "User")
       DDB_KEY("table", "ORG#{org}", "M#{seq:04}#U")
       DDB_COLLECTION("members", "table")
       DDB_SCAN("over", "a >= :min_a")
user {
    char org[16];
    int32_t seq;
    int32_t a;
};

#endif
