/* common.h — value types shared by the golden schema (a nested struct in
 * another header: its locations name this file). */
#ifndef COMMON_H
#define COMMON_H

#include <ddb/schema.h>

struct geo {
    double lat;
    double lon;
};

struct address {
    char country[3];                /* ISO 3166 alpha-2 */
    char city[64] DDB_ATTR("c");    /* DDB_ATTR applies inside nested structs */
    char *street;
    struct geo geo;
};

enum plan_kind { PLAN_FREE, PLAN_TEAM, PLAN_ENTERPRISE };

#endif
