/* ddb_demo — what ddbgen does, in one run.
 *
 * Users describe a single-table design as C structs with decorators
 * (schemas/NAME.h); ddbgen turns each header into a typed module at build
 * time; the module runs on libddb's embedded engine (LMDB, in process).
 * This tour uses the modules of the six examples (examples/<name>, one per
 * design note) and shows, for each pattern, the calls, the items they
 * store and the capacity DynamoDB would charge.
 *
 *   ddb_demo [DIR]      DIR: database directory (default: in the build tree) */
#include "clinic_ddb.h"
#include "example.h"
#include "orders_ddb.h"
#include "orgs_ddb.h"
#include "products_ddb.h"
#include "reservations_ddb.h"
#include "services_ddb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char cost[EX_COST_SIZE];

static void section(const char *title)
{
    static int first = 1;
    printf("%s== %s ==\n", first ? "" : "\n", title);
    first = 0;
}

/* Print the lines of a schema header from the first one containing `from`
 * to the first `};` after the one containing `to`. */
static void print_schema(const char *file, const char *from, const char *to)
{
    char path[4096], line[512];
    snprintf(path, sizeof path, "%s/%s", DEMO_SCHEMAS_DIR, file);
    FILE *f = fopen(path, "r");
    if (!f) {
        printf("  (see schemas/%s)\n", file);
        return;
    }
    int state = 0; /* 0 before, 1 inside, 2 inside the last struct */
    while (fgets(line, sizeof line, f)) {
        if (state == 0 && strstr(line, from))
            state = 1;
        if (state == 1 && strstr(line, to))
            state = 2;
        if (state)
            printf("  | %s", line);
        if (state == 2 && strncmp(line, "};", 2) == 0)
            break;
    }
    fclose(f);
}

/* The attributes of a stored item, on one line. */
static void print_item(const ddb_item *it)
{
    const ddb_value *m = ddb_item_map(it);
    printf("   ");
    for (uint32_t i = 0; i < m->len; i++) {
        const ddb_value *v = m->u.m[i].value;
        if (v->type == DDB_TS)
            printf(" %s=\"%s\"", m->u.m[i].name, v->u.s);
        else if (v->type == DDB_TN)
            printf(" %s=%s", m->u.m[i].name, v->u.s);
        else
            printf(" %s=<%s>", m->u.m[i].name, ddb_type_name(v->type));
    }
    printf("\n");
}

static void schema_and_module(ddb *db, ddb_arena *a)
{
    ddb_error err = {0};
    ddb_capacity cap;
    section("1. A schema is a C header with decorators (schemas/orgs.h, design note 004)");
    print_schema("orgs.h", "DDB_TABLE(orgs", "DDB_ENTITY(orgs, \"User\")");
    printf("\nddbgen_add_module(orgs_ddb SCHEMA schemas/orgs.h) in CMake generates orgs_ddb.h/.c:\n"
           "  orgs_open, organization_create/get/update_fields/delete, user_*, one function per access\n"
           "  pattern (user_in_org), declared queries (user_with_role), orgs_query_members (the\n"
           "  collection), scans, batch and transaction helpers.\n"
           "The application works with its structs; keys, Type and index keys are written for it.\n\n");
    EX_CHECK(orgs_open(db, &err));
    struct organization acme = {"acme", "enterprise", (struct office[]){{"Berlin", "DE", 120}}, 1};
    EX_CHECK(organization_create(db, &acme, &ex_total, &cap, &err));
    printf("organization_create(acme): %s\n", ex_cost(&cap, cost));
    struct user users[] = {
        {"acme", "ann", "Ann Lindqvist", "admin", "ann@acme.example"},
        {"acme", "bob", "Bob Mensah", "member", NULL},
        {"acme", "chen", "Chen Wei", "member", NULL},
    };
    for (size_t i = 0; i < 3; i++) {
        EX_CHECK(user_create(db, &users[i], &ex_total, &cap, &err));
        printf("user_create(acme/%s): %s\n", users[i].username, ex_cost(&cap, cost));
    }
    ddb_item *key = ddb_item_new(a), *it;
    ddb_item_set_s(key, "PK", "ORG#acme");
    ddb_item_set_s(key, "SK", "USER#bob");
    EX_CHECK(ddb_get_item(db, "Organizations", key, NULL, a, &it, NULL, &err));
    printf("the item stored for bob (GetItem PK \"ORG#acme\", SK \"USER#bob\"; email NULL: no attribute):\n");
    print_item(it);
    int rc = user_create(db, &users[0], NULL, NULL, &err);
    printf("user_create(acme/ann) again: %s (%s)\n", ddb_strerror(rc), err.message);
}

static void access_patterns(ddb *db, ddb_arena *a)
{
    ddb_error err = {0};
    ddb_capacity cap;
    section("2. Access patterns are queries on keys (design note 004)");
    orgs_members_result m;
    EX_CHECK(orgs_query_members(db, "acme", NULL, EX_READS(&cap), a, &m, &err));
    printf("orgs_query_members(\"acme\"): the organization and its users, one Query, %s:\n", ex_cost(&cap, cost));
    printf("    organization %s (plan %s, %zu office)\n", m.organization[0].name, m.organization[0].plan,
           m.organization[0].offices_count);
    for (size_t i = 0; i < m.user_count; i++)
        printf("    user %s: %s, %s\n", m.user[i].username, m.user[i].full_name, m.user[i].role);
    user_page up;
    EX_CHECK(user_in_org(db, "acme", user_in_org_all(), EX_READS(&cap), a, &up, &err));
    printf("user_in_org(\"acme\", user_in_org_all()): begins_with(SK, \"USER#\"): %zu users, %s\n", up.count,
           ex_cost(&cap, cost));
    EX_CHECK(user_with_role(db, "acme", "member", EX_READS(&cap), a, &up, &err));
    printf("user_with_role(\"acme\", \"member\"): declared in the schema, filter role = :role: %zu users\n",
           up.count);
    struct user u;
    EX_CHECK(user_get(db, "acme", "chen", EX_READS(&cap), a, &u, &err));
    printf("user_get(\"acme\", \"chen\"): %s, %s\n", u.full_name, ex_cost(&cap, cost));

    EX_CHECK(stores_open(db, &err));
    struct store stores[] = {
        {"US", "WA", "Seattle", "98101", "S-0001", "1124 Pike St"},
        {"US", "WA", "Seattle", "98109", "S-0003", "400 Broad St"},
        {"US", "WA", "Spokane", "99201", "S-0004", "707 W Main Ave"},
        {"US", "CA", "San Francisco", "94103", "S-0005", "1390 Market St"},
    };
    for (size_t i = 0; i < 4; i++)
        EX_CHECK(store_create(db, &stores[i], NULL, NULL, &err));
    printf("stores keyed {country} / {state}#{city}#{zip}#{store}: one query per level\n");
    const char *level[] = {"country US", "state WA", "city Seattle", "zip 98101"};
    store_locate_sk sk[] = {store_locate_all(), store_locate_state(DDB_ENT_SK_EQ, "WA"),
                            store_locate_city(DDB_ENT_SK_EQ, "WA", "Seattle"),
                            store_locate_zip(DDB_ENT_SK_EQ, "WA", "Seattle", "98101")};
    for (uint16_t k = 0; k <= 3; k++) {
        store_page sp;
        EX_CHECK(store_locate(db, "US", sk[k], NULL, a, &sp, &err));
        printf("    %-13s %zu store%s:", level[k], sp.count, sp.count == 1 ? "" : "s");
        for (size_t i = 0; i < sp.count; i++)
            printf(" %s", sp.items[i].store_no);
        printf("\n");
    }
}

static void indexes(ddb *db, ddb_arena *a)
{
    ddb_error err = {0};
    ddb_capacity cap;
    section("3. A report index and a sparse index (schemas/services.h, design note 000)");
    EX_CHECK(services_open(db, &err));
    struct service s[] = {
        {"C-1001", "S-000101", "2023-04-28", "cleaning", 90, 8500, NULL, NULL},
        {"C-1002", "S-000102", "2023-05-02", "repair", 60, 12000, NULL, NULL},
        {"C-1001", "S-000103", "2023-05-14", "cleaning", 90, 8500, NULL, NULL},
        {"C-1003", "S-000104", "2024-05-14", "gardening", 120, 9600, NULL, NULL},
    };
    for (size_t i = 0; i < 4; i++)
        EX_CHECK(service_create(db, &s[i], &ex_indexes, &cap, &err));
    printf("service_create x4, each %s\n", ex_cost(&cap, cost));
    service_page pg;
    EX_CHECK(service_report(db, "2023", service_report_service_date_month(DDB_ENT_SK_EQ, "2023-05"), NULL, a,
                            &pg, &err));
    printf("services in May 2023 (Report: PK \"2023\", begins_with(SK, \"2023-05-\")): %zu:", pg.count);
    for (size_t i = 0; i < pg.count; i++)
        printf(" %s", pg.items[i].service_id);
    printf("\n");
    s[1].voucher = "V-7F3K";
    EX_CHECK(service_update_fields(db, &s[1], service_mask(SERVICE_F_VOUCHER), &ex_indexes, &cap, &err));
    printf("issue voucher V-7F3K on S-000102: %s\n", ex_cost(&cap, cost));
    EX_CHECK(service_by_voucher(db, "V-7F3K", service_by_voucher_all(), NULL, a, &pg, &err));
    printf("    Vouchers index, V-7F3K: %zu service (%s)\n", pg.count, pg.count ? pg.items[0].service_id : "-");
    s[1].voucher = NULL;
    EX_CHECK(service_update_fields(db, &s[1], service_mask(SERVICE_F_VOUCHER), &ex_indexes, &cap, &err));
    printf("fulfil it (voucher removed): %s\n", ex_cost(&cap, cost));
    EX_CHECK(service_by_voucher(db, "V-7F3K", service_by_voucher_all(), NULL, a, &pg, &err));
    printf("    Vouchers index, V-7F3K: %zu services: the index holds only what awaits fulfilment\n", pg.count);
}

static void derived_and_shards(ddb *db, ddb_arena *a)
{
    ddb_error err = {0};
    ddb_capacity cap;
    section("4. Derived attributes (schemas/orders.h, design note 001)");
    EX_CHECK(orders_open(db, &err));
    const char *when[] = {"2022-08-30 17:03:10.000000", "2022-11-01 12:31:00.000000", "2022-12-24 10:00:00.000000",
                          "2023-01-03 07:30:00.000000"};
    for (uint32_t i = 0; i < 4; i++) {
        struct order o = {.id = 324901 + i, .customer = "mara", .total_cents = 1000 * (i + 1)};
        strcpy(o.ordered_at, when[i]);
        EX_CHECK(order_create(db, &o, NULL, NULL, &err));
        if (i == 1)
            printf("order_create(or-%06u, ordered_at \"%s\") also stores\n    OrderDate \"%s\", Quarter \"%s\", "
                   "Month \"%s\", Year %d\n",
                   o.id, o.ordered_at, o.order_date, o.quarter, o.month, o.year);
    }
    order_page op;
    EX_CHECK(order_in_quarter(db, 2022, "Q4", order_in_quarter_all(),
                              &(ddb_ent_read_opts){.fetch_base = true, .return_capacity = DDB_CAPACITY_TOTAL,
                                                   .capacity = &cap},
                              a, &op, &err));
    printf("orders in Q4 2022 (order_in_quarter: GSI ByQuarter, PK \"2022-Q4\", keys only + fetch_base): %zu:",
           op.count);
    for (size_t i = 0; i < op.count; i++)
        printf(" or-%06u", op.items[i].id);
    printf(", %s\n", ex_cost(&cap, cost));

    section("5. Shards by attribute velocity (schemas/products.h, design note 001)");
    EX_CHECK(products_v1_open(db, &err));
    EX_CHECK(products_open(db, &err));
    char *text = malloc(38000);
    memset(text, 'x', 37999);
    text[37999] = '\0';
    struct product_item one = {.id = 1, .stock = 40, .price_cents = 129900, .name = "Sea kayak", .description = text};
    struct product two = {.id = 1, .stock = 40, .price_cents = 129900, .name = "Sea kayak", .description = text};
    EX_CHECK(product_item_create(db, &one, NULL, NULL, &err));
    EX_CHECK(product_create(db, &two, NULL, NULL, &err));
    one.stock = two.stock = 38;
    EX_CHECK(product_item_update_fields(db, &one, product_item_mask(PRODUCT_ITEM_F_STOCK), &ex_total, &cap, &err));
    printf("a 38 KB product, stock update as one item:         %s\n", ex_cost(&cap, cost));
    EX_CHECK(product_update_fields(db, &two, product_mask(PRODUCT_F_STOCK), &ex_total, &cap, &err));
    printf("the same product split in shards A and B, update:  %s (pr-000001 / PRODUCT#A only)\n",
           ex_cost(&cap, cost));
    free(text);
    (void)a;
}

static void graphs_and_partitions(ddb *db, ddb_arena *a)
{
    ddb_error err = {0};
    section("6. Adjacency list, inverted and overloaded GSI (schemas/clinic.h, design note 002)");
    EX_CHECK(clinic_open(db, &err));
    EX_CHECK(doctor_create(db, &(struct doctor){"d-01", "Dr. Amara Okafor", "cardiology"}, NULL, NULL, &err));
    EX_CHECK(patient_create(db, &(struct patient){"p-0001", "Juan Perez", "1961-07-02"}, NULL, NULL, &err));
    EX_CHECK(patient_create(db, &(struct patient){"p-0002", "Mei Tanaka", "1984-01-19"}, NULL, NULL, &err));
    EX_CHECK(treatment_create(db, &(struct treatment){"p-0001", "d-01", "Juan Perez", "Dr. Amara Okafor",
                                                      "2021-05-10", "arrhythmia"}, NULL, NULL, &err));
    EX_CHECK(treatment_create(db, &(struct treatment){"p-0002", "d-01", "Mei Tanaka", "Dr. Amara Okafor",
                                                      "2022-02-14", "hypertension"}, NULL, NULL, &err));
    EX_CHECK(room_create(db, &(struct room){"r-101", "d-01", "east", 2}, NULL, NULL, &err));
    EX_CHECK(equipment_create(db, &(struct equipment){"e-9001", "d-01", "ECG monitor"}, NULL, NULL, &err));
    clinic_schedule_result r;
    ddb_capacity cap;
    EX_CHECK(clinic_query_schedule(db, "d-01", NULL, EX_READS(&cap), a, &r, &err));
    printf("clinic_query_schedule(\"d-01\"): one Query on GSI1 (PK \"DOCTOR#d-01\"), %s:\n", ex_cost(&cap, cost));
    printf("    doctor %s, %zu patients (", r.doctor[0].name, r.treatment_count);
    for (size_t i = 0; i < r.treatment_count; i++)
        printf("%s%s", i ? ", " : "", r.treatment[i].patient_name);
    printf("), %zu room, %zu equipment\n", r.room_count, r.equipment_count);

    section("7. Hot partitions (design note 002)");
    ddb_table_def by_date = visits_by_date_table.def, by_patient = visits_by_patient_table.def;
    by_date.rcu = by_patient.rcu = 6000; /* provisioned: 6000/3000 + 2000/1000 = 4 partitions */
    by_date.wcu = by_patient.wcu = 2000;
    EX_CHECK(ddb_create_table(db, &by_date, &err));
    EX_CHECK(ddb_create_table(db, &by_patient, &err));
    enum { N = 400 };
    static struct visit_by_date d[N];
    static struct visit_by_patient p[N];
    for (int i = 0; i < N; i++) {
        d[i] = (struct visit_by_date){.date = "2024-03-04", .visit_no = 1, .doctor_id = "d-01", .reason = "check-up"};
        p[i] = (struct visit_by_patient){.date = "2024-03-04", .visit_no = 1, .doctor_id = "d-01", .reason = "check-up"};
        snprintf(d[i].patient_id, sizeof d[i].patient_id, "p-%04d", i + 1);
        memcpy(p[i].patient_id, d[i].patient_id, sizeof p[i].patient_id);
    }
    EX_CHECK(visit_by_date_batch_put(db, d, N, NULL, NULL, &err));
    EX_CHECK(visit_by_patient_batch_put(db, p, N, NULL, NULL, &err));
    ddb_partition_stats *sd, *sp;
    size_t nd, np;
    EX_CHECK(ddb_table_stats(db, "VisitsByDate", a, &sd, &nd, &err));
    EX_CHECK(ddb_table_stats(db, "VisitsByPatient", a, &sp, &np, &err));
    printf("%d check-ins on 2024-03-04, written to two tables of 4 partitions (2000 WCU provisioned):\n", N);
    printf("    partition   PK DATE#2024-03-04   PK PATIENT#<id>\n");
    for (size_t i = 0; i < nd && i < np; i++)
        printf("    %9zu   %10g WCU   %10g WCU\n", i, sd[i].write_units, sp[i].write_units);
    printf("each partition serves 500 WCU/s: keyed by date, one partition takes every write\n");
}

static void conventions(ddb *db, ddb_arena *a)
{
    ddb_error err = {0};
    section("8. Key conventions, counters and UUIDs (schemas/reservations.h, design note 003)");
    EX_CHECK(reservations_open(db, &err));
    struct booking b[2] = {
        {.collection_id = "bcparks_1", .activity = "dayuse", .product = "1", .date = "2025-12-31",
         .guest = "Ada Kim", .party_size = 4},
        {.collection_id = "bcparks_1", .activity = "dayuse", .product = "1", .date = "2025-12-31",
         .guest = "Omar Haddad", .party_size = 2},
    };
    for (int i = 0; i < 2; i++) {
        EX_CHECK(booking_create(db, &b[i], NULL, NULL, &err));
        printf("booking_create: pk booking::%s, sk %010llu (DDB_AUTO_ID), globalId a %zu-character UUID (DDB_UUID)\n",
               b[i].collection_id, (unsigned long long)b[i].booking_no, strlen(b[i].global_id));
    }
    booking_page bp;
    EX_CHECK(booking_by_global_id(db, b[1].global_id, booking_by_global_id_all(), NULL, a, &bp, &err));
    printf("booking_by_global_id(the second UUID): %zu booking, %s (no other key needed)\n", bp.count,
           bp.count ? bp.items[0].guest : "-");
}

int main(int argc, char **argv)
{
    printf("ddbgen demo: single-table designs written as C structs, run in process\n\n");
    const ddb_schema_table *tables[] = {&orgs_table,        &stores_table,         &services_table,
                                        &orders_table,      &products_v1_table,    &products_table,
                                        &clinic_table,      &visits_by_date_table, &visits_by_patient_table,
                                        &reservations_table};
    ddb *db = ex_open(argc, argv, EX_DEFAULT_DIR, NULL, tables, sizeof tables / sizeof *tables);
    ddb_arena *a = ddb_arena_new();
    schema_and_module(db, a);
    access_patterns(db, a);
    indexes(db, a);
    derived_and_shards(db, a);
    graphs_and_partitions(db, a);
    conventions(db, a);
    section("Next");
    printf("Each design note has a schema (schemas/<name>.h) and a program that runs every access\n"
           "pattern of it: build/examples/<name>/<name> for services, products, orders, clinic,\n"
           "reservations and orgs.  docs/TOUR.md walks through the decorators.\n");
    ddb_arena_free(a);
    ddb_close(db);
    return 0;
}
