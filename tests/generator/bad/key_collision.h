/* Two entities whose primary keys have the same structure: an Admin and a
 * User with the same name would overwrite each other. */
#include <ddb/schema.h>

DDB_TABLE(shop, "Shop", DDB_PRIMARY("PK", "SK"));

struct DDB_ENTITY(shop, "User")
       DDB_KEY("table", "ORG#{org}", "USER#{name}")
user {
    char org[64];
    char name[64];
};

struct DDB_ENTITY(shop, "Admin")
       DDB_KEY("table", "ORG#{org}", "USER#{login}")
admin {
    char org[64];
    char login[64];
};

/* Distinct literals: these never collide. */
struct DDB_ENTITY(shop, "Team")
       DDB_KEY("table", "ORG#{org}", "TEAM#{name}")
team {
    char org[64];
    char name[64];
};

/* An integer renders digits, never a letter: "{seq:020}#E" is not "USER#...". */
struct DDB_ENTITY(shop, "Event")
       DDB_KEY("table", "ORG#{org}", "{seq:020}#E")
event {
    char org[64];
    uint64_t seq;
};

/* A shard item's sort key is the sort key + "#" + the shard id, so a
 * Variant with color "A" would overwrite Product's shard item A. */
struct DDB_ENTITY(shop, "Product")
       DDB_KEY("table", "P#{sku}", "DETAILS")
product {
    char sku[16];
    char title[64] DDB_SHARD("A");
};

struct DDB_ENTITY(shop, "Variant")
       DDB_KEY("table", "P#{sku}", "DETAILS#{color}")
variant {
    char sku[16];
    char color[16];
};

/* A hierarchical sort key under a number: an Issue is "ISSUE#000007" and
 * its comments "ISSUE#000007#C#...".  A number never holds '#', so no
 * Comment's key is an Issue's: these are told apart. */
struct DDB_ENTITY(shop, "Issue")
       DDB_KEY("table", "PROJ#{project}", "ISSUE#{number:06}")
issue {
    char project[16];
    uint32_t number;
};

struct DDB_ENTITY(shop, "Comment")
       DDB_KEY("table", "PROJ#{project}", "ISSUE#{issue:06}#C#{posted:015}")
comment {
    char project[16];
    uint32_t issue;
    uint64_t posted;
};

/* The same shape under a string: a Doc named "x#P#1" is Part 1 of "x". */
struct DDB_ENTITY(shop, "Doc")
       DDB_KEY("table", "LIB#{lib}", "DOC#{title}")
doc {
    char lib[16];
    char title[64];
};

struct DDB_ENTITY(shop, "Part")
       DDB_KEY("table", "LIB#{lib}", "DOC#{doc}#P#{n:010}")
part {
    char lib[16];
    char doc[64];
    uint32_t n;
};
