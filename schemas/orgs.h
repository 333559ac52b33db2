/* orgs.h — seed 004: organizations and their users in one table, and a
 * store locator on a composite sort key.
 *
 * Table Organizations: generic key attributes (PK, SK) apart from the
 * application's, and a Type attribute on every item.
 *   ORG#acme / METADATA#acme   the organization
 *   ORG#acme / USER#ann        a user of it
 * Four access patterns, each one request:
 *   1. an organization               organization_get
 *   2. an organization and its users orgs_query_members (the item collection)
 *   3. only its users                user_query_table (begins_with(SK, "USER#"))
 *   4. one user                      user_get
 * Two ways to hold a one-to-many: the organization's offices are a complex
 * attribute (a bounded list inside the item: no access pattern on them,
 * read with it); its users are items of its collection (unbounded,
 * queryable, each with its own key).
 *
 * Table StoreLocations: country / {state}#{city}#{zip}#{store}, so one
 * query finds the stores of a country, a state, a city or a zip code. */
#ifndef ORGS_H
#define ORGS_H

#include <ddb/schema.h>

DDB_TABLE(orgs, "Organizations",
          DDB_PRIMARY("PK", "SK"),
          DDB_TYPE_ATTRIBUTE("Type"));

struct office {
    char city[32];
    char country[3];
    int32_t desks;
};

struct DDB_ENTITY(orgs, "Organization")
       DDB_KEY("table", "ORG#{name}", "METADATA#{name}")
       DDB_COLLECTION("members", "table")
organization {
    char name[32];
    char plan[16];
    struct office *offices; size_t offices_count;   /* a handful at most */
};

struct DDB_ENTITY(orgs, "User")
       DDB_KEY("table", "ORG#{org}", "USER#{username}")
       DDB_PATTERN("in_org", "table")
       DDB_COLLECTION("members", "table")
       DDB_QUERY("with_role", "in_org", "", "role = :role")   /* ROLE is a reserved word: no '#' needed */
user {
    char org[32];
    char username[32];
    char full_name[64];
    char role[16];
    char *email;
};

DDB_TABLE(stores, "StoreLocations", DDB_PRIMARY("PK", "SK"));

struct DDB_ENTITY(stores, "Store")
       DDB_KEY("table", "{country|upper}", "{state|upper}#{city}#{zip}#{store_no}")
       DDB_HEAT_OK("table", "store locations change a few times a year; reads are spread by the sort key")
       DDB_PATTERN("locate", "table")
       DDB_QUERY("in_city", "locate", "state = :state AND city = :city")
store {
    char country[3];
    char state[3];
    char city[32];
    char zip[11];
    char store_no[8];
    char street[64];
};

#endif
