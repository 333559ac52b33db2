/* orders.h — seed 001: duplicate attributes for efficient queries.
 *
 * The business asks for orders by year, by quarter and by month.  The order
 * date is written once (ordered_at); DDB_DERIVED keeps OrderDate, Quarter,
 * Month and Year next to it on every write, as in the seed's table:
 *
 *   PK         SK                           OrderDate   Quarter Month Year
 *   or-000001  2022-11-01 12:31:00.000000   2022-11-01  Q4      11    2022
 *
 * and one GSI per question puts the answer in one partition:
 *   "orders in 2022"           ByYear     {Year}            / {OrderDate}#{id}
 *   "orders in Q4 2022"        ByQuarter  {Year}-{Quarter}  / {OrderDate}#{id}   (keys only)
 *   "orders in November 2022"  ByMonth    {Year}-{Month}    / {OrderDate}#{id}   (a few attributes)
 * Each index is an access pattern with a name (DDB_PATTERN: order_in_year,
 * order_in_quarter, order_in_month); a query on a smaller index returns what
 * the index holds, and reading the whole order back is an explicit option. */
#ifndef ORDERS_H
#define ORDERS_H

#include <ddb/schema.h>

DDB_TABLE(orders, "Orders",
          DDB_PRIMARY("PK", "SK"),
          DDB_GSI("ByYear", "YearPK", "YearSK"),
          DDB_GSI("ByQuarter", "QuarterPK", "QuarterSK", DDB_PROJECT_KEYS_ONLY),
          DDB_GSI("ByMonth", "MonthPK", "MonthSK", DDB_PROJECT_INCLUDE("OrderDate", "customer", "total_cents")));

struct DDB_ENTITY(orders, "Order")
       DDB_KEY("table", "or-{id:06}", "{ordered_at}")
       DDB_KEY("ByYear", "{year}", "{order_date}#{id:06}")
       DDB_KEY("ByQuarter", "{year}-{quarter}", "{order_date}#{id:06}")
       DDB_KEY("ByMonth", "{year}-{month}", "{order_date}#{id:06}")
       DDB_HEAT_OK("ByYear", "reporting indexes: orders arrive at a few per second, far below one partition")
       DDB_HEAT_OK("ByQuarter", "reporting indexes: orders arrive at a few per second, far below one partition")
       DDB_HEAT_OK("ByMonth", "reporting indexes: orders arrive at a few per second, far below one partition")
       DDB_PATTERN("by_id", "table")
       DDB_PATTERN("in_year", "ByYear")
       DDB_PATTERN("in_quarter", "ByQuarter")
       DDB_PATTERN("in_month", "ByMonth")
       DDB_QUERY("big_between", "in_year", "order_date BETWEEN :from AND :to", "total_cents >= :min_cents")
order {
    uint32_t id;
    char ordered_at[27];   /* 2022-11-01 12:31:00.000000 */
    char order_date[11] DDB_DERIVED("{ordered_at|year}-{ordered_at|month}-{ordered_at|day}") DDB_ATTR("OrderDate");
    char quarter[3] DDB_DERIVED("{ordered_at|quarter}") DDB_ATTR("Quarter");
    char month[3] DDB_DERIVED("{ordered_at|month}") DDB_ATTR("Month");
    int32_t year DDB_DERIVED("{ordered_at|year}") DDB_ATTR("Year");
    char customer[32];
    int64_t total_cents;
};

#endif
