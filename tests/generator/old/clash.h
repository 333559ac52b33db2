/* clash.h — a schema with an entity named as the old form of one of
 * compat/base.model.json's ("user_old"): `ddbgen -o DIR --old-model
 * compat/base.model.json old/clash.h` refuses it (test_cli.c). */
#include <ddb/schema.h>

DDB_TABLE(shop, "Shop", DDB_PRIMARY("PK", "SK"));

struct DDB_ENTITY(shop, "UserOld")
       DDB_KEY("table", "ORG#{org}", "UOLD#{username}")
user_old {
    char org[64];
    char username[64];
};
