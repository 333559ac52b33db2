/* orders — seed 001 on the embedded engine (schema: schemas/orders.h).
 *
 * Orders are keyed or-<id> / <timestamp>.  Each write also stores
 * OrderDate, Quarter, Month and Year, computed from the timestamp
 * (DDB_DERIVED), and three GSIs built on them answer "orders in 2022",
 * "orders in Q4 2022" and "orders in November 2022" with one Query each.
 *
 *   orders [DIR]      DIR: database directory (default: in the build tree) */
#include "orders_ddb.h"
#include "example.h"

#include <stdio.h>
#include <string.h>

static void print_order(const struct order *o)
{
    printf("    or-%06u  %s  %s %s %s %d  %-8s %8.2f\n", o->id, o->ordered_at, o->order_date, o->quarter, o->month,
           o->year, o->customer, (double)o->total_cents / 100);
}

static void print_page(const order_page *pg, const ddb_capacity *cap, const char *what)
{
    char cost[EX_COST_SIZE];
    printf("%s: %zu order%s, %s\n", what, pg->count, pg->count == 1 ? "" : "s", ex_cost(cap, cost));
    for (size_t i = 0; i < pg->count; i++)
        print_order(&pg->items[i]);
}

/* What an index that projects less holds: the fields its mask says are set. */
static void print_projected(const order_page *pg, const ddb_capacity *cap, const char *what)
{
    char cost[EX_COST_SIZE];
    printf("%s: %zu order%s, %s\n", what, pg->count, pg->count == 1 ? "" : "s", ex_cost(cap, cost));
    for (size_t i = 0; i < pg->count; i++) {
        const struct order *o = &pg->items[i];
        const ddb_ent_mask *m = &pg->masks[i];
        char id[16] = "or-?";
        if (ddb_ent_mask_has(m, ORDER_FN_ID))
            snprintf(id, sizeof id, "or-%06u", o->id);
        printf("    %-9s  date %-10s  customer %-6s  total %s", id,
               ddb_ent_mask_has(m, ORDER_FN_ORDER_DATE) ? o->order_date : "-",
               ddb_ent_mask_has(m, ORDER_FN_CUSTOMER) ? o->customer : "-",
               ddb_ent_mask_has(m, ORDER_FN_TOTAL_CENTS) ? "" : "-");
        if (ddb_ent_mask_has(m, ORDER_FN_TOTAL_CENTS))
            printf("%.2f", (double)o->total_cents / 100);
        printf("\n");
    }
}

int main(int argc, char **argv)
{
    ddb_error err = {0};
    char cost[EX_COST_SIZE];
    const ddb_schema_table *tables[] = {&orders_table};
    ddb *db = ex_open(argc, argv, EX_DEFAULT_DIR, NULL, tables, 1);
    ddb_arena *a = ddb_arena_new();
    EX_CHECK(orders_open(db, &err));

    struct order data[] = {
        {.id = 324901, .ordered_at = "2022-03-14 09:12:44.120000", .customer = "ines", .total_cents = 4200},
        {.id = 324902, .ordered_at = "2022-08-30 17:03:10.000000", .customer = "tomas", .total_cents = 1999},
        {.id = 324903, .ordered_at = "2022-10-02 08:45:00.500000", .customer = "ines", .total_cents = 12950},
        {.id = 324904, .ordered_at = "2022-11-01 12:31:00.000000", .customer = "mara", .total_cents = 8900},
        {.id = 324905, .ordered_at = "2022-11-01 19:02:33.000000", .customer = "tomas", .total_cents = 2500},
        {.id = 324906, .ordered_at = "2022-11-18 11:11:11.000000", .customer = "li", .total_cents = 31000},
        {.id = 324907, .ordered_at = "2022-11-30 23:59:59.999999", .customer = "mara", .total_cents = 700},
        {.id = 324908, .ordered_at = "2022-12-24 10:00:00.000000", .customer = "ines", .total_cents = 15400},
        {.id = 324909, .ordered_at = "2023-01-03 07:30:00.000000", .customer = "li", .total_cents = 6300},
        {.id = 324910, .ordered_at = "2023-11-05 14:20:00.000000", .customer = "tomas", .total_cents = 9900},
    };
    size_t n = sizeof data / sizeof *data;
    ddb_capacity cap;
    for (size_t i = 0; i < n; i++)
        EX_CHECK(order_create(db, &data[i], &ex_indexes, &cap, &err));
    printf("Created %zu orders; each create writes the order and its three index entries:\n  %s\n", n,
           ex_cost(&cap, cost));
    ddb_item *it;
    EX_CHECK(order_to_item(&data[3], a, &it, &err));
    printf("The stored item of or-324904 (derived attributes filled on write):\n");
    ex_print_item(it);

    order_page pg;
    /* an order by its id: the sort key (its timestamp) need not be known */
    EX_CHECK(order_by_id(db, 324907, order_by_id_all(), EX_READS(&cap), a, &pg, &err));
    print_page(&pg, &cap, "\nOrder or-324907 (order_by_id: Query PK = \"or-324907\")");

    EX_CHECK(order_in_year(db, 2022, order_in_year_all(), EX_READS(&cap), a, &pg, &err));
    print_page(&pg, &cap, "\nOrders in 2022 (order_in_year: ByYear, YearPK = 2022, projects ALL)");

    EX_CHECK(order_in_quarter(db, 2022, "Q4", order_in_quarter_all(), EX_READS(&cap), a, &pg, &err));
    print_projected(&pg, &cap, "\nOrders in Q4 2022 (order_in_quarter: ByQuarter, QuarterPK = \"2022-Q4\", projects keys\n"
                               "only: what the index holds)");
    ddb_ent_read_opts whole = {.fetch_base = true, .return_capacity = DDB_CAPACITY_TOTAL, .capacity = &cap};
    EX_CHECK(order_in_quarter(db, 2022, "Q4", order_in_quarter_all(), &whole, a, &pg, &err));
    print_page(&pg, &cap, "\nThe same with fetch_base (each order read whole from the table, one GetItem each)");

    EX_CHECK(order_in_month(db, 2022, "11", order_in_month_all(), EX_READS(&cap), a, &pg, &err));
    print_projected(&pg, &cap, "\nOrders in November 2022 (order_in_month: ByMonth, MonthPK = \"2022-11\", projects\n"
                               "OrderDate, customer and total_cents)");

    /* the year index also answers any period within the year, by range on
     * the first level of its sort key "{order_date}#{id:06}" */
    EX_CHECK(order_in_year(db, 2022, order_in_year_order_date_between("2022-11-01", "2022-11-18"),
                           EX_READS(&cap), a, &pg, &err));
    print_page(&pg, &cap, "\nOrders from 1 to 18 November 2022 (order_in_year_order_date, BETWEEN the two dates)");

    /* a declared query: the same range with a filter, checked at build time */
    EX_CHECK(order_big_between(db, 2022, "2022-11-01", "2022-11-18", 5000, EX_READS(&cap), a, &pg, &err));
    print_page(&pg, &cap, "\nOf those, 50.00 or more (order_big_between: filter total_cents >= :min_cents)");

    /* pages: two orders at a time, newest first, with the cursor */
    printf("\nOrders in 2022, newest first, two per page:\n");
    ddb_ent_read_opts paged = {.page_size = 2, .backward = true, .return_capacity = DDB_CAPACITY_TOTAL,
                               .capacity = &cap};
    int page = 0;
    do {
        EX_CHECK(order_in_year(db, 2022, order_in_year_all(), &paged, a, &pg, &err));
        printf("  page %d: %zu, %s%s\n", ++page, pg.count, ex_cost(&cap, cost), pg.cursor ? ", more" : "");
        for (size_t i = 0; i < pg.count; i++)
            print_order(&pg.items[i]);
        paged.cursor = pg.cursor;
    } while (paged.cursor);
    printf("  (a full page always comes with a cursor, so the last page can be empty)\n");

    ddb_arena_free(a);
    ddb_close(db);
    return 0;
}
