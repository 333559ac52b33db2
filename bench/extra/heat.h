/* The schema of ddb-bench-heat (bench_heat.c): one date-keyed entity on two
 * tables, its key plain on one and spread over 8 write shards on the other. */
#ifndef DDB_BENCH_HEAT_H
#define DDB_BENCH_HEAT_H

#include <ddb/schema.h>

DDB_TABLE(plain_log, "PlainLog", DDB_PRIMARY("PK", "SK"));
DDB_TABLE(sharded_log, "ShardedLog", DDB_PRIMARY("PK", "SK"));

struct DDB_ENTITY(plain_log, "PlainEvent")
       DDB_KEY("table", "DAY#{day}", "{id:08}")
       DDB_HEAT_OK("table", "the benchmark's hot partition, on purpose")
plain_event {
    char day[11];
    uint32_t id;
    char body[100];
};

struct DDB_ENTITY(sharded_log, "ShardedEvent")
       DDB_KEY("table", "DAY#{day}", "{id:08}")
       DDB_WRITE_SHARDS("table", 8, "hash")
sharded_event {
    char day[11];
    uint32_t id;
    char body[100];
};

#endif
