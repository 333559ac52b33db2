/* DDB_UNIQUE removed from Member.email (compatible: its uniqueness items
 * stay, unread) and added to Guest.nick (breaking: the stored guests'
 * nicks are not claimed and may repeat: the migration plan claims them). */
#include <ddb/schema.h>

DDB_TABLE(club, "Club", DDB_PRIMARY("PK", "SK"));

struct DDB_ENTITY(club, "Member")
       DDB_KEY("table", "MEMBER#{id}", "MEMBER")
member {
    char id[16];
    char email[64];
};

struct DDB_ENTITY(club, "Guest")
       DDB_KEY("table", "GUEST#{id}", "GUEST")
guest {
    char id[16];
    char nick[32] DDB_UNIQUE;
};
