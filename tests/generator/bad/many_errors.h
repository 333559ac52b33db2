/* Several problems in one schema: every one is reported, in source order. */
#include <ddb/schema.h>

DDB_TABLE(shop, "Shop", DDB_PRIMARY("PK", "SK"), DDB_GSI("GSI1", "GSI1PK", "GSI1SK"));

struct DDB_ENTITY(shop, "User")
       DDB_KEY("table", "USER#{nmae}", "PROFILE")
       DDB_KEY("GSI1", "EMAIL#{email}", "{created:08")
       DDB_COLLECTION("people", "GSI9")
user {
    char name[64];
    char *email;
    int64_t created;
    int64_t ttl1 DDB_TTL;
    int64_t ttl2 DDB_TTL;
};

struct DDB_ENTITY(shop, "User")
       DDB_KEY("table", "ORDER#{id}", "ORDER")
order {
    char id[16];
    float total DDB_VERSION;
};

struct DDB_ENTITY(shoop, "Invoice")
       DDB_KEY("table", "INVOICE#{id}", "INVOICE")
invoice {
    char id[16];
};
