/* services — seed 000 on the embedded engine (schema: schemas/services.h).
 *
 * A services business: clients book services (cleaning, repairs ...);
 * the History screen lists a client's services, reports cover a year, a
 * month or a day, and some services are paid by voucher: a voucher is
 * issued, then fulfilled by a provider.
 *
 *   services [DIR]      DIR: database directory (default: in the build tree) */
#include "services_ddb.h"
#include "example.h"

#include <stdio.h>
#include <string.h>

static void print_service(const struct service *s)
{
    printf("    %s  %s  %s  %-10s %3d min  %7.2f", s->client_id, s->service_id, s->service_date, s->kind,
           s->minutes, (double)s->price_cents / 100);
    if (s->voucher)
        printf("  voucher %s", s->voucher);
    if (s->fulfilled_by)
        printf("  fulfilled by %s", s->fulfilled_by);
    printf("\n");
}

static void print_page(const service_page *pg, const char *what)
{
    char cost[EX_COST_SIZE];
    printf("  %s: %zu service%s, %s\n", what, pg->count, pg->count == 1 ? "" : "s", ex_cost(&pg->capacity, cost));
    for (size_t i = 0; i < pg->count; i++)
        print_service(&pg->items[i]);
}

int main(int argc, char **argv)
{
    ddb_error err = {0};
    char cost[EX_COST_SIZE];
    const ddb_schema_table *tables[] = {&services_table};
    ddb *db = ex_open(argc, argv, EX_DEFAULT_DIR, NULL, tables, 1);
    ddb_arena *a = ddb_arena_new();
    EX_CHECK(services_open(db, &err));
    printf("Table Services: PK = client ID, SK = service ID; LSI History; GSIs Report and Vouchers\n\n");

    /* ---- writes ---- */
    struct service data[] = {
        {"C-1001", "S-000101", "2023-04-28", "cleaning", 90, 8500, NULL, NULL},
        {"C-1002", "S-000102", "2023-05-02", "repair", 60, 12000, NULL, NULL},
        {"C-1001", "S-000103", "2023-05-14", "cleaning", 90, 8500, NULL, NULL},
        {"C-1003", "S-000104", "2023-05-14", "gardening", 120, 9600, NULL, NULL},
        {"C-1002", "S-000105", "2023-05-21", "inspection", 30, 4500, NULL, NULL},
        {"C-1001", "S-000106", "2023-06-03", "repair", 45, 9000, NULL, NULL},
        {"C-1003", "S-000107", "2023-11-11", "cleaning", 90, 8500, NULL, NULL},
        {"C-1001", "S-000108", "2024-01-09", "inspection", 30, 4500, NULL, NULL},
        {"C-1002", "S-000109", "2024-02-15", "cleaning", 60, 6000, NULL, NULL},
        {"C-1003", "S-000110", "2024-05-14", "repair", 120, 18000, NULL, NULL},
    };
    size_t n = sizeof data / sizeof *data;
    ddb_capacity cap;
    printf("Create %zu services; each write also writes its History and Report entries:\n", n);
    for (size_t i = 0; i < n; i++) {
        EX_CHECK(service_create(db, &data[i], &ex_indexes, &cap, &err));
        if (i == 0)
            printf("  %s %s: %s\n", data[i].client_id, data[i].service_id, ex_cost(&cap, cost));
    }
    printf("  ... and %zu more like it\n", n - 1);
    ddb_item *it;
    EX_CHECK(service_to_item(&data[2], a, &it, &err));
    printf("  the item of S-000103 as stored (attribute names shortened with DDB_ATTR):\n");
    ex_print_item(it);

    /* ---- one service: client ID + service ID ---- */
    struct service s;
    printf("\nGet C-1001 / S-000103:\n");
    EX_CHECK(service_get(db, "C-1001", "S-000103", &s, a, &ex_total, &cap, &err));
    print_service(&s);
    printf("  %s\n", ex_cost(&cap, cost));

    /* ---- the History screen: a client's services, newest first ---- */
    service_page pg;
    struct service client = {.client_id = "C-1001"};
    printf("\nHistory of C-1001 (LSI History, newest first):\n");
    EX_CHECK(service_query_History(db, (ddb_ent_query){.obj = &client, .backward = true}, a, &ex_total, &pg, &err));
    print_page(&pg, "PK = \"C-1001\"");

    /* ---- reports: the year is the partition, the date a sort-key prefix ---- */
    printf("\nReports (GSI Report: PK = year, SK = year-month-day#service ID):\n");
    struct service year = {.service_date = "2023"};
    EX_CHECK(service_query_Report(db, (ddb_ent_query){.obj = &year}, a, &ex_total, &pg, &err));
    print_page(&pg, "year 2023: ReportPK = \"2023\"");
    struct service month = {.service_date = "2023-05"};
    EX_CHECK(service_query_Report(db, (ddb_ent_query){.obj = &month, .sk_fields = 2}, a, &ex_total, &pg, &err));
    print_page(&pg, "May 2023: ReportPK = \"2023\" AND begins_with(ReportSK, \"2023-05-\")");
    struct service day = {.service_date = "2023-05-14"};
    EX_CHECK(service_query_Report(db, (ddb_ent_query){.obj = &day, .sk_fields = 3}, a, &ex_total, &pg, &err));
    print_page(&pg, "14 May 2023: ReportPK = \"2023\" AND begins_with(ReportSK, \"2023-05-14#\")");
    struct service may2024 = {.service_date = "2024-05-14"};
    EX_CHECK(service_query_Report(db, (ddb_ent_query){.obj = &may2024, .sk_fields = 3}, a, &ex_total, &pg, &err));
    print_page(&pg, "14 May 2024: another year, another partition");

    /* ---- vouchers: a sparse index holds only services awaiting fulfilment ---- */
    printf("\nVouchers (GSI Vouchers, keyed by the voucher attribute, present only until fulfilment):\n");
    ddb_scan_params scan = {.table = "Services", .index = "Vouchers", .return_capacity = DDB_CAPACITY_TOTAL};
    ddb_page raw;
    EX_CHECK(ddb_scan(db, &scan, a, &raw, &err));
    printf("  Scan Vouchers: %zu entries (the table holds %zu services), %s\n", raw.count, n,
           ex_cost(&raw.capacity, cost));

    data[5].voucher = "V-7F3K";
    EX_CHECK(service_update_fields(db, &data[5], service_mask(SERVICE_F_VOUCHER), &ex_indexes, &cap, &err));
    printf("  issue voucher V-7F3K for C-1001 / S-000106: %s\n", ex_cost(&cap, cost));
    data[9].voucher = "V-2M9Q";
    EX_CHECK(service_update_fields(db, &data[9], service_mask(SERVICE_F_VOUCHER), &ex_indexes, &cap, &err));
    printf("  issue voucher V-2M9Q for C-1003 / S-000110: %s\n", ex_cost(&cap, cost));

    EX_CHECK(ddb_scan(db, &scan, a, &raw, &err));
    printf("  awaiting fulfilment (Scan Vouchers): %zu, %s\n", raw.count, ex_cost(&raw.capacity, cost));
    for (size_t i = 0; i < raw.count; i++) {
        EX_CHECK(service_from_item(raw.items[i], &s, a, &err));
        print_service(&s);
    }

    /* the provider redeems a voucher: find its service, then fulfil it */
    struct service code = {.voucher = "V-7F3K"};
    EX_CHECK(service_query_Vouchers(db, (ddb_ent_query){.obj = &code}, a, &ex_total, &pg, &err));
    print_page(&pg, "voucher V-7F3K: VoucherPK = \"V-7F3K\"");
    s = pg.items[0];
    s.voucher = NULL;
    s.fulfilled_by = "Northside Repairs";
    EX_CHECK(service_update_fields(db, &s, service_mask(SERVICE_F_VOUCHER | SERVICE_F_FULFILLED_BY), &ex_indexes,
                                   &cap, &err));
    printf("  fulfil it (remove the voucher, record the provider): %s\n", ex_cost(&cap, cost));

    EX_CHECK(ddb_scan(db, &scan, a, &raw, &err));
    printf("  awaiting fulfilment (Scan Vouchers): %zu, %s\n", raw.count, ex_cost(&raw.capacity, cost));
    for (size_t i = 0; i < raw.count; i++) {
        EX_CHECK(service_from_item(raw.items[i], &s, a, &err));
        print_service(&s);
    }
    EX_CHECK(service_query_Vouchers(db, (ddb_ent_query){.obj = &code}, a, &ex_total, &pg, &err));
    print_page(&pg, "voucher V-7F3K again");
    EX_CHECK(service_get(db, "C-1001", "S-000106", &s, a, NULL, NULL, &err));
    printf("  C-1001 / S-000106 now:\n");
    print_service(&s);

    ddb_arena_free(a);
    ddb_close(db);
    return 0;
}
