/* DDB_UNIQUE keeps uniqueness items under "UNIQUE#<Entity>#<attr>#<value>"
 * / "UNIQUE" in the entity's table: a primary key that can render the same
 * text is refused. */
#include <ddb/schema.h>

DDB_TABLE(shop, "Shop", DDB_PRIMARY("PK", "SK"));

struct DDB_ENTITY(shop, "Member")
       DDB_KEY("table", "M#{id}", "MEMBER")
member {
    char id[16];
    char email[64] DDB_UNIQUE;
};

struct DDB_ENTITY(shop, "Tag")
       DDB_KEY("table", "{name}", "UNIQUE")
tag {
    char name[32];
    char kind[16];
};
