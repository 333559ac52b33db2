/* Warnings only (exit 0): partition keys that can take only few values
 * (heat.c): a short code (char[3]), a C enum, an 8-bit integer, and a
 * constant.  The estimate multiplies the values when they are known. */
#include <ddb/schema.h>

enum order_state { STATE_NEW, STATE_PAID, STATE_SHIPPED, STATE_DONE };

DDB_TABLE(shop, "Shop", DDB_PRIMARY("PK", "SK"),
          DDB_GSI("ByCountry", "CountryPK", "CountrySK"),
          DDB_GSI("ByState", "StatePK", "StateSK"),
          DDB_GSI("ByAll", "AllPK", "AllSK"));

struct DDB_ENTITY(shop, "Order")
       DDB_KEY("table", "STATE#{state}#{priority}", "ORDER#{id}")
       DDB_KEY("ByCountry", "C#{country}", "ORDER#{id}")
       DDB_KEY("ByState", "{state}", "ORDER#{id}")
       DDB_KEY("ByAll", "ORDERS", "ORDER#{id}")
order {
    char id[16];
    char country[3];
    enum order_state state;
    uint8_t priority;
};
