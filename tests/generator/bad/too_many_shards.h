/* An entity has at most DDB_ENT_MAX_SHARDS (64, <ddb/entity.h>) shards:
 * the 65th shard id is a located error. */
#include <ddb/schema.h>
#include <stdint.h>

DDB_TABLE(stats, "Stats", DDB_PRIMARY("PK", "SK"));

struct DDB_ENTITY(stats, "Counter") DDB_KEY("table", "C#{id}", "TOTALS") counter {
    char id[32];
    int64_t n00 DDB_SHARD("S00");
    int64_t n01 DDB_SHARD("S01");
    int64_t n02 DDB_SHARD("S02");
    int64_t n03 DDB_SHARD("S03");
    int64_t n04 DDB_SHARD("S04");
    int64_t n05 DDB_SHARD("S05");
    int64_t n06 DDB_SHARD("S06");
    int64_t n07 DDB_SHARD("S07");
    int64_t n08 DDB_SHARD("S08");
    int64_t n09 DDB_SHARD("S09");
    int64_t n10 DDB_SHARD("S10");
    int64_t n11 DDB_SHARD("S11");
    int64_t n12 DDB_SHARD("S12");
    int64_t n13 DDB_SHARD("S13");
    int64_t n14 DDB_SHARD("S14");
    int64_t n15 DDB_SHARD("S15");
    int64_t n16 DDB_SHARD("S16");
    int64_t n17 DDB_SHARD("S17");
    int64_t n18 DDB_SHARD("S18");
    int64_t n19 DDB_SHARD("S19");
    int64_t n20 DDB_SHARD("S20");
    int64_t n21 DDB_SHARD("S21");
    int64_t n22 DDB_SHARD("S22");
    int64_t n23 DDB_SHARD("S23");
    int64_t n24 DDB_SHARD("S24");
    int64_t n25 DDB_SHARD("S25");
    int64_t n26 DDB_SHARD("S26");
    int64_t n27 DDB_SHARD("S27");
    int64_t n28 DDB_SHARD("S28");
    int64_t n29 DDB_SHARD("S29");
    int64_t n30 DDB_SHARD("S30");
    int64_t n31 DDB_SHARD("S31");
    int64_t n32 DDB_SHARD("S32");
    int64_t n33 DDB_SHARD("S33");
    int64_t n34 DDB_SHARD("S34");
    int64_t n35 DDB_SHARD("S35");
    int64_t n36 DDB_SHARD("S36");
    int64_t n37 DDB_SHARD("S37");
    int64_t n38 DDB_SHARD("S38");
    int64_t n39 DDB_SHARD("S39");
    int64_t n40 DDB_SHARD("S40");
    int64_t n41 DDB_SHARD("S41");
    int64_t n42 DDB_SHARD("S42");
    int64_t n43 DDB_SHARD("S43");
    int64_t n44 DDB_SHARD("S44");
    int64_t n45 DDB_SHARD("S45");
    int64_t n46 DDB_SHARD("S46");
    int64_t n47 DDB_SHARD("S47");
    int64_t n48 DDB_SHARD("S48");
    int64_t n49 DDB_SHARD("S49");
    int64_t n50 DDB_SHARD("S50");
    int64_t n51 DDB_SHARD("S51");
    int64_t n52 DDB_SHARD("S52");
    int64_t n53 DDB_SHARD("S53");
    int64_t n54 DDB_SHARD("S54");
    int64_t n55 DDB_SHARD("S55");
    int64_t n56 DDB_SHARD("S56");
    int64_t n57 DDB_SHARD("S57");
    int64_t n58 DDB_SHARD("S58");
    int64_t n59 DDB_SHARD("S59");
    int64_t n60 DDB_SHARD("S60");
    int64_t n61 DDB_SHARD("S61");
    int64_t n62 DDB_SHARD("S62");
    int64_t n63 DDB_SHARD("S63");
    int64_t n64 DDB_SHARD("S64");
    int64_t n65 DDB_SHARD("S65");
};
