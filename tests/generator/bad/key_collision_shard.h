/* Primary keys can collide on any shard item, not only the first 16: the
 * 17th shard item of Meter ("METER#{id}" / "READINGS" + "#S16") is the
 * item of Snapshot ("METER#{id}" / "READINGS#S16"). */
#include <ddb/schema.h>
#include <stdint.h>

DDB_TABLE(metrics, "Metrics", DDB_PRIMARY("PK", "SK"));

struct DDB_ENTITY(metrics, "Meter") DDB_KEY("table", "METER#{id}", "READINGS") meter {
    char id[32];
    int64_t r00 DDB_SHARD("S00");
    int64_t r01 DDB_SHARD("S01");
    int64_t r02 DDB_SHARD("S02");
    int64_t r03 DDB_SHARD("S03");
    int64_t r04 DDB_SHARD("S04");
    int64_t r05 DDB_SHARD("S05");
    int64_t r06 DDB_SHARD("S06");
    int64_t r07 DDB_SHARD("S07");
    int64_t r08 DDB_SHARD("S08");
    int64_t r09 DDB_SHARD("S09");
    int64_t r10 DDB_SHARD("S10");
    int64_t r11 DDB_SHARD("S11");
    int64_t r12 DDB_SHARD("S12");
    int64_t r13 DDB_SHARD("S13");
    int64_t r14 DDB_SHARD("S14");
    int64_t r15 DDB_SHARD("S15");
    int64_t r16 DDB_SHARD("S16");
};

struct DDB_ENTITY(metrics, "Snapshot") DDB_KEY("table", "METER#{id}", "READINGS#S16") snapshot {
    char id[32];
    int64_t total;
};
