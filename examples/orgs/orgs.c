/* orgs — seed 004 on the embedded engine (schema: schemas/orgs.h).
 *
 * Organizations and their users share one table and one partition per
 * organization (ORG#<name>): the organization's item (METADATA#<name>) and
 * one item per user (USER#<username>).  The program runs the seed's four
 * access patterns, contrasts the users (items of a collection) with the
 * offices (a list inside the organization's item), and finds stores by
 * country, state, city and zip code with one composite sort key, then
 * again through an index keyed on the fields themselves (a multi-attribute
 * key: no key string on a write, a condition per attribute on a read).
 *
 *   orgs [DIR]      DIR: database directory (default: in the build tree) */
#include "orgs_ddb.h"
#include "example.h"

#include <stdio.h>
#include <string.h>

static void print_org(const struct organization *o)
{
    printf("    %s (plan %s), %zu offices:", o->name, o->plan, o->offices_count);
    for (size_t i = 0; i < o->offices_count; i++)
        printf("%s %s/%s %d desks", i ? "," : "", o->offices[i].city, o->offices[i].country, o->offices[i].desks);
    printf("\n");
}

static void print_user(const struct user *u)
{
    printf("    %s/%-6s %-16s %-8s %s\n", u->org, u->username, u->full_name, u->role, u->email ? u->email : "-");
}

static void print_stores(const store_page *pg, const ddb_capacity *cap, const char *what)
{
    char cost[EX_COST_SIZE];
    printf("  %s: %zu, %s\n", what, pg->count, ex_cost(cap, cost));
    for (size_t i = 0; i < pg->count; i++)
        printf("    %s / %s#%s#%s#%s  %s\n", pg->items[i].country, pg->items[i].state, pg->items[i].city,
               pg->items[i].zip, pg->items[i].store_no, pg->items[i].street);
}

int main(int argc, char **argv)
{
    ddb_error err = {0};
    char cost[EX_COST_SIZE];
    const ddb_schema_table *tables[] = {&orgs_table, &stores_table};
    ddb *db = ex_open(argc, argv, EX_DEFAULT_DIR, NULL, tables, 2);
    ddb_arena *a = ddb_arena_new();
    ddb_capacity cap;
    EX_CHECK(orgs_open(db, &err));
    EX_CHECK(stores_open(db, &err));

    /* ---- organizations and users ---- */
    struct office acme_offices[] = {{"Berlin", "DE", 120}, {"Austin", "US", 80}, {"Lisbon", "PT", 40}};
    struct organization orgs[] = {
        {"acme", "enterprise", acme_offices, 3},
        {"globex", "team", (struct office[]){{"Oslo", "NO", 25}}, 1},
    };
    struct user users[] = {
        {"acme", "ann", "Ann Lindqvist", "admin", "ann@acme.example"},
        {"acme", "bob", "Bob Mensah", "member", NULL},
        {"acme", "chen", "Chen Wei", "member", "chen@acme.example"},
        {"acme", "dara", "Dara O'Neill", "billing", "dara@acme.example"},
        {"globex", "eve", "Eve Moreau", "admin", "eve@globex.example"},
        {"globex", "finn", "Finn Berg", "member", NULL},
    };
    for (size_t i = 0; i < 2; i++)
        EX_CHECK(organization_create(db, &orgs[i], NULL, NULL, &err));
    for (size_t i = 0; i < sizeof users / sizeof *users; i++)
        EX_CHECK(user_create(db, &users[i], NULL, NULL, &err));
    printf("Table Organizations: 2 organizations, 6 users\n");

    /* what the partition of acme holds, Type on every item */
    ddb_page raw;
    ddb_query_params q = {.table = "Organizations", .pk = ddb_v_str(a, "ORG#acme")};
    EX_CHECK(ddb_query(db, &q, a, &raw, &err));
    printf("  the item collection ORG#acme:\n");
    for (size_t i = 0; i < raw.count; i++)
        printf("    PK %-10s SK %-15s Type %s\n", ddb_item_get(raw.items[i], "PK")->u.s,
               ddb_item_get(raw.items[i], "SK")->u.s, ddb_item_get(raw.items[i], "Type")->u.s);

    printf("\n1. An organization (GetItem ORG#acme / METADATA#acme):\n");
    struct organization org;
    EX_CHECK(organization_get(db, "acme", EX_READS(&cap), a, &org, &err));
    print_org(&org);
    printf("  %s; its offices came with it: a list inside the item\n", ex_cost(&cap, cost));

    printf("\n2. An organization and all its users (Query PK = \"ORG#acme\"):\n");
    orgs_members_result m;
    EX_CHECK(orgs_query_members(db, "acme", NULL, EX_READS(&cap), a, &m, &err));
    for (size_t i = 0; i < m.organization_count; i++)
        print_org(&m.organization[i]);
    for (size_t i = 0; i < m.user_count; i++)
        print_user(&m.user[i]);
    printf("  one request, %s: the join was done at write time\n", ex_cost(&cap, cost));

    printf("\n3. Only the users (Query PK = \"ORG#acme\" AND begins_with(SK, \"USER#\")), two per page:\n");
    ddb_ent_read_opts uq = {.page_size = 2, .return_capacity = DDB_CAPACITY_TOTAL, .capacity = &cap};
    user_page up;
    do {
        EX_CHECK(user_in_org(db, "acme", user_in_org_all(), &uq, a, &up, &err));
        printf("  page of %zu, %s\n", up.count, ex_cost(&cap, cost));
        for (size_t i = 0; i < up.count; i++)
            print_user(&up.items[i]);
        uq.cursor = up.cursor;
    } while (uq.cursor);
    EX_CHECK(user_with_role(db, "acme", "member", EX_READS(&cap), a, &up, &err));
    printf("  the members only (user_with_role, a declared query: filter role = :role): %zu of %zu read, %s\n",
           up.count, up.scanned_count, ex_cost(&cap, cost));
    for (size_t i = 0; i < up.count; i++)
        print_user(&up.items[i]);

    printf("\n4. One user (GetItem ORG#acme / USER#chen):\n");
    struct user u;
    EX_CHECK(user_get(db, "acme", "chen", EX_READS(&cap), a, &u, &err));
    print_user(&u);
    printf("  %s\n", ex_cost(&cap, cost));

    printf("\n5. A user by email (Query ByEmail: email = \"dara@acme.example\"):\n");
    EX_CHECK(user_by_email(db, "dara@acme.example", user_by_email_all(), EX_READS(&cap), a, &up, &err));
    for (size_t i = 0; i < up.count; i++)
        printf("    %s/%s %s\n", up.items[i].org, up.items[i].username, up.items[i].email);
    printf("  %s; the index is keyed on the email field itself and holds only the keys\n", ex_cost(&cap, cost));
    ddb_page idx;
    EX_CHECK(ddb_scan(db, &(ddb_scan_params){.table = "Organizations", .index = "ByEmail"}, a, &idx, &err));
    printf("  %zu of the 6 users are in it: the two without an email are not (a sparse index)\n", idx.count);

    /* one-to-many, two ways */
    printf("\nOne-to-many, two ways:\n");
    struct user newcomer = {"acme", "eli", "Eli Sato", "member", NULL};
    EX_CHECK(user_create(db, &newcomer, &ex_total, &cap, &err));
    printf("  a new user is a new item of the collection: %s, the organization's item is untouched\n",
           ex_cost(&cap, cost));
    struct office more[] = {{"Berlin", "DE", 120}, {"Austin", "US", 80}, {"Lisbon", "PT", 40}, {"Osaka", "JP", 30}};
    org.offices = more;
    org.offices_count = 4;
    EX_CHECK(organization_update_fields(db, &org, organization_mask(ORGANIZATION_F_OFFICES), &ex_total, &cap, &err));
    printf("  a new office rewrites the list in the organization's item: %s\n", ex_cost(&cap, cost));
    printf("  (fine for a few offices read with the organization; users are unbounded and have\n"
           "  their own access patterns, so they are items)\n");

    /* ---- the store locator: {state}#{city}#{zip} ---- */
    struct store stores[] = {
        {"US", "WA", "Seattle", "98101", "S-0001", "1124 Pike St"},
        {"US", "WA", "Seattle", "98101", "S-0002", "1912 Pike Pl"},
        {"US", "WA", "Seattle", "98109", "S-0003", "400 Broad St"},
        {"US", "WA", "Spokane", "99201", "S-0004", "707 W Main Ave"},
        {"US", "CA", "San Francisco", "94103", "S-0005", "1390 Market St"},
        {"US", "CA", "San Francisco", "94107", "S-0006", "340 Mission Bay Blvd"},
        {"US", "CA", "Los Angeles", "90012", "S-0007", "300 S Grand Ave"},
        {"US", "OR", "Portland", "97205", "S-0008", "720 SW Broadway"},
        {"CA", "BC", "Vancouver", "V6B 1A1", "S-0009", "700 W Georgia St"},
    };
    for (size_t i = 0; i < sizeof stores / sizeof *stores; i++)
        EX_CHECK(store_create(db, &stores[i], NULL, NULL, &err));
    printf("\nTable StoreLocations: PK = country, SK = {state}#{city}#{zip}#{store}\n");
    store_page sp;
    /* the access pattern "locate": one level of the sort key per identifier */
    EX_CHECK(store_locate(db, "US", store_locate_all(), EX_READS(&cap), a, &sp, &err));
    print_stores(&sp, &cap, "country US (PK = \"US\")");
    /* {state|upper}: the key is normalised, so is the query */
    EX_CHECK(store_locate(db, "US", store_locate_state(DDB_ENT_SK_EQ, "wa"), EX_READS(&cap), a, &sp, &err));
    print_stores(&sp, &cap, "state WA (store_locate_state: begins_with(SK, \"WA#\"))");
    EX_CHECK(store_locate(db, "US", store_locate_city(DDB_ENT_SK_EQ, "wa", "Seattle"), EX_READS(&cap), a, &sp,
                          &err));
    print_stores(&sp, &cap, "city Seattle (store_locate_city: begins_with(SK, \"WA#Seattle#\"))");
    EX_CHECK(store_locate(db, "US", store_locate_zip(DDB_ENT_SK_EQ, "wa", "Seattle", "98101"), EX_READS(&cap), a,
                          &sp, &err));
    print_stores(&sp, &cap, "zip 98101 (store_locate_zip: begins_with(SK, \"WA#Seattle#98101#\"))");
    EX_CHECK(store_locate(db, "US", store_locate_city(DDB_ENT_SK_BEGINS, "ca", "San"), EX_READS(&cap), a, &sp,
                          &err));
    print_stores(&sp, &cap, "cities of CA starting with San (store_locate_city, BEGINS: begins_with(SK, \"CA#San\"))");
    EX_CHECK(store_in_city(db, "us", "or", "Portland", EX_READS(&cap), a, &sp, &err));
    print_stores(&sp, &cap, "Portland, OR (store_in_city, a declared query: state = :state AND city = :city)");
    EX_CHECK(store_locate(db, "ca", store_locate_all(), EX_READS(&cap), a, &sp, &err));
    print_stores(&sp, &cap, "country CA (PK = \"CA\")");

    /* ---- the same hierarchy, keyed on the fields: DDB_KEY_FIELDS ---- */
    printf("\nIndex ByPlace: partition country, sort state, city, zip (the fields' own attributes)\n");
    EX_CHECK(store_place(db, "US", store_place_state(DDB_ENT_SK_EQ, "WA"), EX_READS(&cap), a, &sp, &err));
    print_stores(&sp, &cap, "state WA (store_place_state: country = \"US\" AND state = \"WA\")");
    EX_CHECK(store_place(db, "US", store_place_city(DDB_ENT_SK_EQ, "WA", "Seattle"), EX_READS(&cap), a, &sp, &err));
    print_stores(&sp, &cap, "city Seattle (store_place_city: ... AND city = \"Seattle\")");
    EX_CHECK(store_place(db, "US", store_place_zip(DDB_ENT_SK_GT, "WA", "Seattle", "98101"), EX_READS(&cap), a, &sp,
                         &err));
    print_stores(&sp, &cap, "zips of Seattle after 98101 (store_place_zip, GT: ... AND zip > \"98101\")");
    EX_CHECK(store_place(db, "US", store_place_city(DDB_ENT_SK_BEGINS, "CA", "San"), EX_READS(&cap), a, &sp, &err));
    print_stores(&sp, &cap, "cities of CA starting with San (store_place_city, BEGINS: begins_with(city, \"San\"))");
    EX_CHECK(store_place(db, "US", store_place_state_between("CA", "OR"), EX_READS(&cap), a, &sp, &err));
    print_stores(&sp, &cap, "states CA to OR (store_place_state_between: state BETWEEN \"CA\" AND \"OR\")");
    /* what the index costs in the item: nothing, its attributes are the fields */
    ddb_item *stored = NULL;
    ddb_item *key = ddb_item_new(a);
    EX_CHECK(ddb_item_set_s(key, "PK", "US") || ddb_item_set_s(key, "SK", "WA#Seattle#98101#S-0001") ? DDB_ENOMEM
                                                                                                    : DDB_OK);
    EX_CHECK(ddb_get_item(db, "StoreLocations", key, NULL, a, &stored, NULL, &err));
    size_t keys = ddb_item_size(key);
    printf("  a store's item: %zu bytes, %zu of them the table's key strings (PK, SK); ByPlace adds no attribute\n",
           ddb_item_size(stored), keys);

    ddb_arena_free(a);
    ddb_close(db);
    return 0;
}
