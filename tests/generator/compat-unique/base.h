/* base.h — the "old" schema of the DDB_UNIQUE --check-compat cases;
 * base.model.json is its --emit-model output. */
#include <ddb/schema.h>

DDB_TABLE(club, "Club", DDB_PRIMARY("PK", "SK"));

struct DDB_ENTITY(club, "Member")
       DDB_KEY("table", "MEMBER#{id}", "MEMBER")
member {
    char id[16];
    char email[64] DDB_UNIQUE;
};

struct DDB_ENTITY(club, "Guest")
       DDB_KEY("table", "GUEST#{id}", "GUEST")
guest {
    char id[16];
    char nick[32];
};
