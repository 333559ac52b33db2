/* DDB_UNIQUE: uniqueness items ("UNIQUE#<Entity>#<attr>#<value>" / "UNIQUE")
 * that would overwrite each other, or that the table cannot store. */
#include <ddb/schema.h>

/* An inverted index (partition key SK) holds the uniqueness items too:
 * fine, its key attributes are strings. */
DDB_TABLE(shop, "Shop", DDB_PRIMARY("PK", "SK"), DDB_GSI("Inverted", "SK", "PK"));

struct DDB_ENTITY(shop, "Member")
       DDB_KEY("table", "M#{id}", "MEMBER#{id}")
       DDB_KEY("Inverted", "MEMBER#{id}", "M#{id}")
member {
    char id[16];
    char email[64] DDB_UNIQUE;
    /* a '#' in a stored name: nick "x#a" and tag "a" would claim the same
     * item "UNIQUE#Member#nick#x#a" */
    char nick[32] DDB_UNIQUE;
    char tag[32] DDB_UNIQUE DDB_ATTR("nick#x");
};

/* A number sort key: a uniqueness item's sort key "UNIQUE" cannot be stored. */
DDB_TABLE(log, "Log", DDB_PRIMARY("PK", "SK"));

struct DDB_ENTITY(log, "Entry")
       DDB_KEY("table", "E#{stream}", "{seq}")
entry {
    char stream[16];
    int64_t seq;
    char ref[32] DDB_UNIQUE;
};
