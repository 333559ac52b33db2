/* Templates that do not parse: each error points into the literal. */
#include <ddb/schema.h>

DDB_TABLE(shop, "Shop", DDB_PRIMARY("PK", "SK"), DDB_GSI("GSI1", "GSI1PK", "GSI1SK"),
          DDB_GSI("GSI2", "GSI2PK", "GSI2SK"));

struct DDB_ENTITY(shop, "Order")
       DDB_KEY("table", "ORDER#{id", "ORDER")
       DDB_KEY("GSI1", "pr-{id:6}", "{date|yearly}")
       DDB_KEY("GSI2", "ORDER}#{id}", "{}")
order {
    char id[16];
    char date[11];
    char code[8] DDB_DERIVED("{id:04}");
    uint32_t n DDB_AUTO_ID("{date|week}");
};
