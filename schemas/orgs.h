/* orgs.h — seed 004: organizations and their users in one table, and a
 * store locator on a composite sort key.
 *
 * Table Organizations: generic key attributes (PK, SK) apart from the
 * application's, and a Type attribute on every item.
 *   ORG#acme / METADATA#acme   the organization
 *   ORG#acme / USER#ann        a user of it
 * Five access patterns, each one request:
 *   1. an organization               organization_get
 *   2. an organization and its users orgs_query_members (the item collection)
 *   3. only its users                user_query_table (begins_with(SK, "USER#"))
 *   4. one user                      user_get
 *   5. a user by email               user_by_email (a sparse index keyed on the
 *                                    email field: users without one are not in it)
 * Two ways to hold a one-to-many: the organization's offices are a complex
 * attribute (a bounded list inside the item: no access pattern on them,
 * read with it); its users are items of its collection (unbounded,
 * queryable, each with its own key).
 *
 * Table StoreLocations: country / {state}#{city}#{zip}#{store}, so one
 * query finds the stores of a country, a state, a city or a zip code.  The
 * same hierarchy again as a global secondary index keyed on the fields
 * themselves (DDB_KEY_FIELDS: DynamoDB's multi-attribute keys): partition
 * country, sort state, city, zip, each its own typed attribute, with no key
 * string built on a write and none to parse on a read. */
#ifndef ORGS_H
#define ORGS_H

#include <ddb/schema.h>

DDB_TABLE(orgs, "Organizations",
          DDB_PRIMARY("PK", "SK"),
          DDB_GSI("ByEmail", DDB_PROJECT_KEYS_ONLY),
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
       DDB_KEY_FIELDS("ByEmail", DDB_PK(email), DDB_SPARSE)    /* users without an email stay out */
       DDB_PATTERN("by_email", "ByEmail")
user {
    char org[32];
    char username[32];
    char full_name[64];
    char role[16];
    char *email;
};

DDB_TABLE(stores, "StoreLocations", DDB_PRIMARY("PK", "SK"), DDB_GSI("ByPlace"));

struct DDB_ENTITY(stores, "Store")
       DDB_KEY("table", "{country|upper}", "{state|upper}#{city}#{zip}#{store_no}")
       DDB_HEAT_OK("table", "store locations change a few times a year; reads are spread by the sort key")
       DDB_PATTERN("locate", "table")
       DDB_QUERY("in_city", "locate", "state = :state AND city = :city")
       DDB_KEY_FIELDS("ByPlace", DDB_PK(country), DDB_SK(state, city, zip))
       DDB_HEAT_OK("ByPlace", "the same few writes as the table's key")
       DDB_PATTERN("place", "ByPlace")
store {
    char country[3];
    char state[3];
    char city[32];
    char zip[11];
    char store_no[8];
    char street[64];
};

#endif
