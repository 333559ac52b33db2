/* DDB_WRITE_SHARDS rules: a shard count of 2..64, an explicit "hash" or
 * "random" (not random on the primary key: a read by key must find the
 * item), not on an LSI (shard the table's key), a string partition key,
 * an index the entity has a key on, no field shards (DDB_SHARD), and the
 * same shard count for every member of a collection; the suffix (".63" at
 * most) counts toward the 2048-byte partition key. */
#include <ddb/schema.h>

DDB_TABLE(ev, "Events", DDB_PRIMARY("PK", "SK"),
          DDB_GSI("ByKind", "KindPK", "KindSK"),
          DDB_GSI("ByYear", "Year", "YearSK"),
          DDB_LSI("ByTime", "TimeSK"));

struct DDB_ENTITY(ev, "Event")
       DDB_KEY("table", "DAY#{day}", "{id}")
       DDB_KEY("ByKind", "K#{kind}", "{id}")
       DDB_KEY("ByYear", "{year}", "{id}")
       DDB_KEY("ByTime", "DAY#{day}", "{at}")
       DDB_WRITE_SHARDS("table", 1, "random")
       DDB_WRITE_SHARDS("ByKind", 65, "modulo")
       DDB_WRITE_SHARDS("ByYear", 4, "hash")
       DDB_WRITE_SHARDS("ByTime", 4, "hash")
       DDB_WRITE_SHARDS("ByColor", 4, "hash")
event {
    char day[11];
    char id[16];
    char kind[16];
    int32_t year;
    char at[25];
};

struct DDB_ENTITY(ev, "Note")
       DDB_KEY("table", "N#{day}", "NOTE#{id}")
       DDB_KEY("ByKind", "K#{kind}", "NOTE#{id}")
       DDB_COLLECTION("by_kind", "ByKind")
       DDB_WRITE_SHARDS("ByKind", 4, "hash")
note {
    char day[11];
    char id[16];
    char kind[16];
};

struct DDB_ENTITY(ev, "Memo")
       DDB_KEY("table", "M#{day}", "MEMO#{id}")
       DDB_KEY("ByKind", "K#{kind}", "MEMO#{id}")
       DDB_COLLECTION("by_kind", "ByKind")
memo {
    char day[11];
    char id[16];
    char kind[16];
};

struct DDB_ENTITY(ev, "Blob")
       DDB_KEY("table", "B#{body}", "{id}")
       DDB_WRITE_SHARDS("table", 4, "hash")
blob {
    char body[2045]; /* 2,046 bytes with "B#": fits, but not with ".3" */
    char id[16];
};

struct DDB_ENTITY(ev, "Counter")
       DDB_KEY("table", "COUNTER#{day}", "{name}")
       DDB_WRITE_SHARDS("table", 8, "hash")
counter {
    char day[11];
    char name[16];
    int64_t hits DDB_SHARD("A");
};
