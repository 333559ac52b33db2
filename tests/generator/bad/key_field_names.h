/* Key fields become parameters of the generated functions (get, delete,
 * access patterns, sort-key constructors); a key field named like one of
 * those functions' own arguments or locals would make the module fail to
 * compile, so ddbgen refuses it at the field (found by the trial: a user's
 * key field 'k'). */
#include <ddb/schema.h>

DDB_TABLE(t, "Things", DDB_PRIMARY("PK", "SK"), DDB_GSI("GSI1", "G1PK", "G1SK"));

struct DDB_ENTITY(t, "Thing")
       DDB_KEY("table", "T#{k}", "R#{range}")
       DDB_KEY("GSI1", "DB#{db}", "{hi}#{range}")
thing {
    char k[16];
    char range[16];
    char db[16];
    char hi[16];
    char err[16];   /* not in a key: no parameter, no clash */
};
