/* No output (exit 0): the hot-partition warning is silenced per key, by
 * DDB_HEAT_OK when the volume is known to be small, or by write sharding
 * the key (DDB_WRITE_SHARDS); a key without either still warns. */
#include <ddb/schema.h>

DDB_TABLE(clinic, "Clinic", DDB_PRIMARY("PK", "SK"),
          DDB_GSI("ByDay", "DayPK", "DaySK"),
          DDB_GSI("ByMonth", "MonthPK", "MonthSK"));

struct DDB_ENTITY(clinic, "CheckIn")
       DDB_KEY("table", "DAY#{day}", "{patient}")
       DDB_KEY("ByDay", "D#{day}", "{patient}")
       DDB_KEY("ByMonth", "M#{day|year}-{day|month}", "{patient}")
       DDB_WRITE_SHARDS("table", 8, "hash")
       DDB_WRITE_SHARDS("ByDay", 4, "random")
       DDB_HEAT_OK("ByMonth", "a few hundred check-ins a month")
check_in {
    char day[11];
    char patient[16];
};
