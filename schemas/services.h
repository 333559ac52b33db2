/* services.h — seed 000: a services table keyed by client ID, a report
 * index partitioned by year, and a sparse voucher index.
 *
 * Access patterns
 *   - one service of a client                    table: {client_id} / {service_id}
 *   - the History screen: a client's services,   LSI History: {client_id} / {service_date}#{service_id}
 *     newest first
 *   - reports for a year, a month, a day         GSI Report: {year} / {year}-{month}-{day}#{service_id}
 *     (the sort key is the full service date and the service ID; its
 *     first 1, 2 or 3 date fields make the month and day prefixes)
 *   - services awaiting fulfilment, and the      GSI Vouchers: {voucher}
 *     service a voucher belongs to (sparse: an item is in the index only
 *     while it carries a voucher, between issuance and fulfilment)
 *
 * Items are written in 1 KB units, so stored attribute names are short
 * (DDB_ATTR): the C names stay readable.
 *
 * Schema history: the entity was called "Job" and stored its kind as "t"
 * (DDB_RENAMED_FROM on the entity and the field: a migration renamed the
 * stored items); a "Quote" entity was removed and its items kept
 * (DDB_REMOVED).  Against a deployed model of that version, ddbgen
 * --plan-migration plans the rename (docs/SCHEMA.md, "Renaming and
 * removing entities"); otherwise they change nothing. */
#ifndef SERVICES_H
#define SERVICES_H

#include <ddb/schema.h>

DDB_TABLE(services, "Services",
          DDB_PRIMARY("PK", "SK"),
          DDB_LSI("History", "HistorySK"),
          DDB_GSI("Report", "ReportPK", "ReportSK"),
          DDB_GSI("Vouchers", "VoucherPK"),
          DDB_PROVISIONED(50, 25), /* a clinic's steady load: provisioned capacity on AWS */
          DDB_REMOVED("Quote", "keep"));

struct DDB_ENTITY(services, "Service") DDB_RENAMED_FROM("Job")
       DDB_KEY("table", "{client_id}", "{service_id}")
       DDB_KEY("History", "{client_id}", "{service_date}#{service_id}")
       DDB_KEY("Report", "{service_date|year}",
               "{service_date|year}-{service_date|month}-{service_date|day}#{service_id}")
       DDB_KEY("Vouchers", "{voucher}")
       DDB_HEAT_OK("Report", "a yearly report index: a clinic's few hundred services a day fit one partition")
       DDB_PATTERN("of_client", "table")
       DDB_PATTERN("history", "History")
       DDB_PATTERN("report", "Report")
       DDB_PATTERN("by_voucher", "Vouchers")
       DDB_QUERY("history_since", "history", "service_date >= :since", "kind = :kind")
       DDB_SCAN("long_jobs", "minutes >= :min_minutes")
service {
    char client_id[16];                     /* C-1001 */
    char service_id[16];                    /* S-000123 */
    char service_date[11] DDB_ATTR("sd");   /* 2023-05-14 (ISO-8601) */
    char kind[32] DDB_ATTR("k") DDB_RENAMED_FROM("t"); /* "cleaning", "repair" ... */
    int32_t minutes DDB_ATTR("m");
    int64_t price_cents DDB_ATTR("p");
    char *voucher DDB_ATTR("v");            /* present only from issuance to fulfilment */
    char *fulfilled_by DDB_ATTR("f");       /* who redeemed the voucher */
};

#endif
