/* DDB_UUID, DDB_AUTO_ID, DDB_VERSION, DDB_TTL and DDB_DERIVED need fitting types. */
#include <ddb/schema.h>

DDB_TABLE(shop, "Shop", DDB_PRIMARY("PK", "SK"));

struct DDB_ENTITY(shop, "Thing")
       DDB_KEY("table", "THING#{id}", "V#{version}")
thing {
    char id[16] DDB_UUID;
    char *seq DDB_AUTO_ID("SEQ");
    char version[8] DDB_VERSION;
    double expires DDB_TTL;
    int64_t both DDB_UUID DDB_AUTO_ID("{id}");
    int32_t quarter DDB_DERIVED("{id|quarter}");
    char label[4] DDB_DERIVED("LABEL-{id}");
    char self[8] DDB_DERIVED("{self}");
    char again[8] DDB_DERIVED("{label}");
    int64_t count DDB_ATTR("n") DDB_ATTR("m");
    char *token DDB_UUID;
    char *tag DDB_DERIVED("T-{id}");
};
