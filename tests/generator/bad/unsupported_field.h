/* Field types ddbgen cannot map to a DynamoDB attribute. */
#include <ddb/schema.h>

union number {
    int64_t i;
    double d;
};

DDB_TABLE(shop, "Shop", DDB_PRIMARY("PK", "SK"));

struct DDB_ENTITY(shop, "Thing")
       DDB_KEY("table", "THING#{id}", "THING")
thing {
    char id[16];
    union number value;
    int32_t scores[4];
    struct thing *parent;
    unsigned flags : 3;
    long double precise;
    char one[1];
    int32_t *counts; int32_t counts_count;
    struct { int32_t x; } point;
};
