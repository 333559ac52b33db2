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

static void print_page(const order_page *pg, const char *what)
{
    char cost[EX_COST_SIZE];
    printf("%s: %zu order%s, %s\n", what, pg->count, pg->count == 1 ? "" : "s", ex_cost(&pg->capacity, cost));
    for (size_t i = 0; i < pg->count; i++)
        print_order(&pg->items[i]);
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
    struct order by_id = {.id = 324907};
    EX_CHECK(order_query_table(db, (ddb_ent_query){.obj = &by_id}, a, &ex_total, &pg, &err));
    print_page(&pg, "\nOrder or-324907 (Query PK = \"or-324907\")");

    struct order y2022 = {.year = 2022};
    EX_CHECK(order_query_ByYear(db, (ddb_ent_query){.obj = &y2022}, a, &ex_total, &pg, &err));
    print_page(&pg, "\nOrders in 2022 (ByYear: YearPK = 2022, projects ALL)");

    struct order q4 = {.year = 2022, .quarter = "Q4"};
    EX_CHECK(order_query_ByQuarter(db, (ddb_ent_query){.obj = &q4}, a, &ex_total, &pg, &err));
    print_page(&pg, "\nOrders in Q4 2022 (ByQuarter: QuarterPK = \"2022-Q4\", projects keys only,\n"
                    "so each order is read whole from the table)");

    struct order nov = {.year = 2022, .month = "11"};
    EX_CHECK(order_query_ByMonth(db, (ddb_ent_query){.obj = &nov}, a, &ex_total, &pg, &err));
    print_page(&pg, "\nOrders in November 2022 (ByMonth: MonthPK = \"2022-11\", projects three attributes,\n"
                    "so each order is read whole from the table)");

    /* the year index also answers any period within the year, by range */
    struct order from = {.year = 2022, .order_date = "2022-11-01"}, to = {.year = 2022, .order_date = "2022-11-18"};
    EX_CHECK(order_query_ByYear(db, (ddb_ent_query){.obj = &from, .sk_fields = 1, .op = DDB_SK_BETWEEN, .obj_hi = &to},
                                a, &ex_total, &pg, &err));
    print_page(&pg, "\nOrders from 1 to 18 November 2022 (ByYear, sort key BETWEEN the two dates)");

    /* pages: two orders at a time, newest first, with the cursor */
    printf("\nOrders in 2022, newest first, two per page:\n");
    ddb_ent_query q = {.obj = &y2022, .page_size = 2, .backward = true};
    int page = 0;
    do {
        EX_CHECK(order_query_ByYear(db, q, a, &ex_total, &pg, &err));
        printf("  page %d: %zu, %s%s\n", ++page, pg.count, ex_cost(&pg.capacity, cost), pg.cursor ? ", more" : "");
        for (size_t i = 0; i < pg.count; i++)
            print_order(&pg.items[i]);
        q.cursor = pg.cursor;
    } while (q.cursor);
    printf("  (a full page always comes with a cursor, so the last page can be empty)\n");

    ddb_arena_free(a);
    ddb_close(db);
    return 0;
}
