/* Lists, maps, binary, booleans and floats cannot be rendered into a key. */
#include <ddb/schema.h>

struct address {
    char city[32];
};

DDB_TABLE(shop, "Shop", DDB_PRIMARY("PK", "SK"), DDB_GSI("GSI1", "GSI1PK", "GSI1SK"));

struct DDB_ENTITY(shop, "User")
       DDB_KEY("table", "USER#{id}", "PAST#{past}")
       DDB_KEY("GSI1", "HOME#{home}", "{score}#{active}")
user {
    char id[32];
    struct address home;
    struct address *past; size_t past_count;
    double score;
    bool active;
};
