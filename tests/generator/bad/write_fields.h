/* DDB_DEFAULT must fit its field; DDB_CREATED_AT / DDB_UPDATED_AT need
 * int64_t (epoch ms) or a string of 24+ characters, one of each; DDB_UNIQUE
 * is for scalars outside the primary key; a DDB_CONDITION is checked like
 * an update's condition. */
#include <ddb/schema.h>

DDB_TABLE(shop, "Shop", DDB_PRIMARY("PK", "SK"));

struct DDB_ENTITY(shop, "Widget")
       DDB_KEY("table", "W#{id}", "W")
       DDB_CONDITION("cheap", "price < :max AND colour = :c")
       DDB_CONDITION("bad name", "attribute_exists(price)")
widget {
    char id[16] DDB_UNIQUE;
    int32_t price DDB_DEFAULT("12.5");
    uint8_t level DDB_DEFAULT("300");
    char code[4] DDB_DEFAULT("TOOLONG");
    bool on DDB_DEFAULT("yes");
    int32_t created DDB_CREATED_AT;
    char stamp[10] DDB_UPDATED_AT;
    int64_t also DDB_CREATED_AT;
    ddb_string_set tags DDB_UNIQUE;
    int64_t rev DDB_VERSION DDB_DEFAULT("1");
};
