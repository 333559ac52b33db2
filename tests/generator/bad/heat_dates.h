/* Warnings only (exit 0): partition keys that can take only few values
 * because they are made of dates (heat.c).  One case per kind of date:
 * a date field, date parts of a timestamp, and a derived field of one.
 * A key with one field that takes many values (the order id) is fine. */
#include <ddb/schema.h>

DDB_TABLE(log, "Log", DDB_PRIMARY("PK", "SK"),
          DDB_GSI("ByMonth", "MonthPK", "MonthSK"),
          DDB_GSI("ByYear", "YearPK", "YearSK"),
          DDB_GSI("ByOrder", "OrderPK", "OrderSK"));

struct DDB_ENTITY(log, "Visit")
       DDB_KEY("table", "DATE#{visit_date}", "{patient}")
       DDB_KEY("ByMonth", "{at|year}-{at|month}", "{patient}")
       DDB_KEY("ByYear", "Y#{year}", "{patient}")
       DDB_KEY("ByOrder", "{year}#{order_id}", "{patient}")
visit {
    char visit_date[11];
    char at[25];
    char patient[16];
    char order_id[16];
    char year[5] DDB_DERIVED("{at|year}");
};
