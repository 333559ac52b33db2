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
#include <stdlib.h>
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

static int by_service_id(const void *x, const void *y)
{
    return strcmp(((const struct service *)x)->service_id, ((const struct service *)y)->service_id);
}

static void print_page(const service_page *pg, const ddb_capacity *cap, const char *what)
{
    char cost[EX_COST_SIZE];
    printf("  %s: %zu service%s, %s\n", what, pg->count, pg->count == 1 ? "" : "s", ex_cost(cap, cost));
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
    EX_CHECK(service_get(db, "C-1001", "S-000103", EX_READS(&cap), a, &s, &err));
    print_service(&s);
    printf("  %s\n", ex_cost(&cap, cost));

    /* ---- the History screen: a client's services, newest first ---- */
    service_page pg;
    printf("\nHistory of C-1001 (LSI History, newest first):\n");
    ddb_ent_read_opts newest = {.backward = true, .return_capacity = DDB_CAPACITY_TOTAL, .capacity = &cap};
    EX_CHECK(service_history(db, "C-1001", service_history_all(), &newest, a, &pg, &err));
    print_page(&pg, &cap, "service_history: PK = \"C-1001\"");
    EX_CHECK(service_history_since(db, "C-1001", "2023-05-01", "repair", EX_READS(&cap), a, &pg, &err));
    print_page(&pg, &cap, "service_history_since (declared: service_date >= :since, filter kind = :kind)");

    /* ---- reports: the year is the partition, the date a sort-key prefix ---- */
    printf("\nReports (GSI Report: PK = year, SK = year-month-day#service ID):\n");
    EX_CHECK(service_report(db, "2023", service_report_all(), EX_READS(&cap), a, &pg, &err));
    print_page(&pg, &cap, "year 2023: ReportPK = \"2023\"");
    EX_CHECK(service_report(db, "2023", service_report_service_date_month(DDB_ENT_SK_EQ, "2023-05"),
                            EX_READS(&cap), a, &pg, &err));
    print_page(&pg, &cap, "May 2023 (level service_date|month): begins_with(ReportSK, \"2023-05-\")");
    EX_CHECK(service_report(db, "2023", service_report_service_date_day(DDB_ENT_SK_EQ, "2023-05-14"),
                            EX_READS(&cap), a, &pg, &err));
    print_page(&pg, &cap, "14 May 2023 (level service_date|day): begins_with(ReportSK, \"2023-05-14#\")");
    EX_CHECK(service_report(db, "2024", service_report_service_date_day(DDB_ENT_SK_EQ, "2024-05-14"),
                            EX_READS(&cap), a, &pg, &err));
    print_page(&pg, &cap, "14 May 2024: another year, another partition");

    /* a declared scan: every service of the table, filtered, in two parallel
     * segments (which segment holds an item depends on the backend's hash,
     * so the two are shown together, in service order) */
    struct service found[16];
    size_t nfound = 0;
    ddb_capacity total = {0};
    for (uint32_t seg = 0; seg < 2; seg++) {
        EX_CHECK(service_long_jobs(db, 120, seg, 2, EX_READS(&cap), a, &pg, &err));
        total.read += cap.read;
        for (size_t i = 0; i < pg.count && nfound < 16; i++)
            found[nfound++] = pg.items[i];
    }
    qsort(found, nfound, sizeof *found, by_service_id);
    printf("\nLong jobs (service_long_jobs, a declared Scan: filter minutes >= :min_minutes, 2 segments): %zu, %s\n",
           nfound, ex_cost(&total, cost));
    for (size_t i = 0; i < nfound; i++)
        print_service(&found[i]);

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
        EX_CHECK(service_from_item(raw.items[i], a, &s, &err));
        print_service(&s);
    }

    /* the provider redeems a voucher: find its service, then fulfil it */
    EX_CHECK(service_by_voucher(db, "V-7F3K", service_by_voucher_all(), EX_READS(&cap), a, &pg, &err));
    print_page(&pg, &cap, "voucher V-7F3K (service_by_voucher): VoucherPK = \"V-7F3K\"");
    s = pg.items[0];
    s.voucher = NULL;
    s.fulfilled_by = "Northside Repairs";
    EX_CHECK(service_update_fields(db, &s, service_mask(SERVICE_F_VOUCHER | SERVICE_F_FULFILLED_BY), &ex_indexes,
                                   &cap, &err));
    printf("  fulfil it (remove the voucher, record the provider): %s\n", ex_cost(&cap, cost));

    EX_CHECK(ddb_scan(db, &scan, a, &raw, &err));
    printf("  awaiting fulfilment (Scan Vouchers): %zu, %s\n", raw.count, ex_cost(&raw.capacity, cost));
    for (size_t i = 0; i < raw.count; i++) {
        EX_CHECK(service_from_item(raw.items[i], a, &s, &err));
        print_service(&s);
    }
    EX_CHECK(service_by_voucher(db, "V-7F3K", service_by_voucher_all(), EX_READS(&cap), a, &pg, &err));
    print_page(&pg, &cap, "voucher V-7F3K again");
    EX_CHECK(service_get(db, "C-1001", "S-000106", NULL, a, &s, &err));
    printf("  C-1001 / S-000106 now:\n");
    print_service(&s);

    ddb_arena_free(a);
    ddb_close(db);
    return 0;
}
