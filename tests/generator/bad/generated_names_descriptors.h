/* The module's own descriptors, <base>_<entity>_fields, _keys, _k<n>_pk ...
 * (the base is this file's name): an entity whose name makes one of them
 * (its typedef <entity>_fields), or a pattern of it that does. */
#include <ddb/schema.h>

DDB_TABLE(t, "Things", DDB_PRIMARY("PK", "SK"));

struct DDB_ENTITY(t, "User")
       DDB_KEY("table", "U#{id}", "U")
user {
    char id[16];
};

struct DDB_ENTITY(t, "DescriptorsUser")
       DDB_KEY("table", "D#{id}", "D")
       DDB_PATTERN("k0_pk", "table")
generated_names_descriptors_user {
    char id[16];
};
