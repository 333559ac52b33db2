/* schema_use.c — an application translation unit using the golden schema's
 * structs directly (compiled by the gen_schema_compiles_* tests). */
#include "shop.h"

#include <string.h>

_Static_assert(sizeof(((struct user *)0)->org) == 64, "char[N] keeps its size");
_Static_assert(sizeof(ddb_bytes) == sizeof(uint8_t *) + sizeof(size_t), "ddb_bytes layout");

int schema_use(void);

int schema_use(void)
{
    struct user u;
    memset(&u, 0, sizeof u);
    strcpy(u.org, "acme");
    u.active = true;
    u.tags.count = 0;
    u.lucky.items = NULL;
    u.scores.count = 0;
    u.keys.items = NULL;
    u.home.geo.lat = 1.5;
    struct order o = {.total = 2.5};
    struct product p = {.stock = 1};
    struct audit_event a = {.at = 3};
    struct organization org = {.plan = PLAN_TEAM};
    return (int)(u.logins + o.year + p.views + a.at + (long)org.seats);
}
